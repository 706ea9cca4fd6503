// Probe: ZPOPMIN (count 1) from a freshly built set, for zset and for the Abseil pair through
// the suite's adapters (bench/adapters.hpp): build n members, time popping half of them, best of
// `rounds` rebuilds. Unlike the suite's pop_min (pop a batch, re-add it: every popped member's
// hash slot was touched just before), the popped members' index entries and hash slots are cold
// here.
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/pop_fresh.cpp -o /tmp/pop_fresh
//       -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
//   /tmp/pop_fresh zset 200000 5        (then absl)
//
// Figures: docs/benchmarks.md, "ZSCORE misses without a frame, pops without a path".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define ZSET_BENCH_HAVE_ABSL 1  // the suite's own adapters, Abseil pair included
#include "adapters.hpp"
#include "bench_support.hpp"

namespace {

template <class Set>
__attribute__((noinline)) double pop_some(Set& s, std::size_t k) {
    double sum = 0;
    for (std::size_t j = 0; j < k; ++j) sum += s.pop_min()[0].second;
    return sum;
}

template <class Set>
void run(Set s, std::size_t n, int rounds) {
    double best = 1e300, sum = 0;
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t i = 0; i < n; ++i)
            s.add(zbench::member_name(i), zbench::score_of(zbench::stream::main, i));
        const auto t0 = std::chrono::steady_clock::now();
        sum += pop_some(s, n / 2);
        const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - t0;
        best = std::min(best, took.count() / static_cast<double>(n / 2));
    }
    std::printf("best of %d: %.1f ns a pop (checksum %g)\n", rounds, best, sum);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: pop_fresh zset|absl n [rounds]\n");
        return 2;
    }
    const std::size_t n = std::strtoul(argv[2], nullptr, 10);
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
    if (n < 2 || rounds < 1) return 2;
    if (std::strcmp(argv[1], "zset") == 0)
        run(zbench::zset_adapter<zset::sorted_set<>>(zset::sorted_set<>()), n, rounds);
    else
        run(zbench::absl_adapter(), n, rounds);
}
