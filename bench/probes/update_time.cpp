// Probe: the time of a score update (ZADD of an existing member with a new score) in a large
// set, outside the suite: one process builds n members with random scores once, then times
// five passes of 2^20 updates of random members to random scores, printing ns per update for
// each pass. For A/B runs of two header trees, alternating the binaries:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/update_time.cpp
//       -o /tmp/update_time
//   /tmp/update_time 10000000
//
// Figures: docs/benchmarks.md, "Re-pointing moved records in prefetched batches".
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include <zset/zset.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: update_time <n>\n");
        return 2;
    }
    const std::size_t n = std::strtoul(argv[1], nullptr, 10);
    if (n == 0) return 2;
    constexpr std::size_t updates = std::size_t{1} << 20;
    zbench::rng draw(7);
    const auto score = [&] { return static_cast<double>(draw.below(1000000007u)); };
    std::vector<std::string> members;
    members.reserve(n);
    zset::sorted_set<> set;
    for (std::size_t i = 0; i < n; ++i) {
        members.push_back(zbench::member_name(i));
        set.add(members.back(), score());
    }
    std::vector<std::size_t> which(updates);
    for (auto& w : which) w = static_cast<std::size_t>(draw.below(n));
    std::vector<double> scores(updates);
    for (auto& s : scores) s = score();
    std::size_t added = 0;
    for (std::size_t pass = 0; pass < 5; ++pass) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t t = 0; t < updates; ++t) {
            const auto status = set.add(members[which[t]], scores[(t + pass * 7919) % updates]);
            added += status == zset::add_status::added ? 1 : 0;
        }
        const std::chrono::duration<double, std::nano> took =
            std::chrono::steady_clock::now() - start;
        std::printf("%.0f ", took.count() / static_cast<double>(updates));
    }
    std::printf("\n");
    return added == 0 ? 0 : 1;  // every update found its member
}
