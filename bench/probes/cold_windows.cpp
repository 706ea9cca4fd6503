// Probe: ZCOUNT over many small sets whose blocks are not in cache, as a server holding a
// sliding-window rate limiter per client sees it: 40,000 listpack-mode sets of 100 members
// (about 100 MB, past the L3), counted in random order. `to-end`: a window [50, 1000] that
// reaches past every set's last score (a window up to now); `middle`: [40, 60], inside the set.
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude bench/probes/cold_windows.cpp -o /tmp/cold_windows
//   /tmp/cold_windows to-end        (or middle)
//
// Prints the best of 7 passes of 2^20 counts, in ns a count. Figures: docs/benchmarks.md,
// "Run 26".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <zset/zset.hpp>

int main(int argc, char** argv) {
    if (argc != 2 || (std::strcmp(argv[1], "to-end") != 0 && std::strcmp(argv[1], "middle") != 0)) {
        std::fprintf(stderr, "usage: cold_windows to-end|middle\n");
        return 2;
    }
    const bool middle = std::strcmp(argv[1], "middle") == 0;
    constexpr std::size_t sets = 40000;
    std::vector<zset::sorted_set<>> all(sets);
    unsigned x = 1;
    const auto next = [&x] {
        x = x * 1103515245u + 12345u;
        return x >> 8;
    };
    for (std::size_t s = 0; s < sets; ++s)
        for (int i = 0; i < 100; ++i)
            all[s].add("request:" + std::to_string(s) + ":" + std::to_string(i),
                       i + (next() >> 12) / 4096.0);
    std::vector<unsigned> order(1u << 20);
    for (auto& o : order) o = static_cast<unsigned>(next() % sets);
    const auto window = middle ? zset::score_range<double>::closed(40.0, 60.0)
                               : zset::score_range<double>::closed(50.0, 1000.0);
    std::size_t total = 0;
    double best = 1e300;
    for (int pass = 0; pass < 7; ++pass) {
        const auto start = std::chrono::steady_clock::now();
        for (const unsigned o : order) total += all[o].count(window);
        const std::chrono::duration<double, std::nano> took =
            std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / static_cast<double>(order.size()));
    }
    std::printf("%s: %.1f ns a count (%zu counted)\n", argv[1], best, total);
}
