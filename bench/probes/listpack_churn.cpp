// Probe: ZREM, ZADD of a new member and a score update in a listpack-mode set of n members
// (default 100), each the best of 200 rounds of 25 operations, the set restored between rounds.
// It times the maintenance a listpack block's member index costs, which the suite's rows mix
// with their loops; run two builds side by side to compare layouts:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude bench/probes/listpack_churn.cpp -o /tmp/churn
//   /tmp/churn [n]
//
// Figures: docs/benchmarks.md, "The set object at 32 bytes, and a bucketed index in the block".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <zset/zset.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

double ns_each(clock_type::time_point a, clock_type::time_point b, std::size_t count) {
    return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(count);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100;
    constexpr std::size_t batch = 25;
    if (n < batch) return 1;
    std::vector<std::string> members;
    std::vector<double> scores;
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> unit(0, 1);
    for (std::size_t i = 0; i < n; ++i) {
        members.push_back("member:" + std::to_string(i));
        scores.push_back(unit(rng));
    }
    zset::sorted_set<> s;
    for (std::size_t i = 0; i < n; ++i) s.add(members[i], scores[i]);
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    double best_erase = 1e9, best_add = 1e9, best_update = 1e9;
    for (int round = 0; round < 200; ++round) {
        std::shuffle(order.begin(), order.end(), rng);
        const auto t0 = clock_type::now();
        std::size_t removed = 0;
        for (std::size_t j = 0; j < batch; ++j) removed += s.erase(members[order[j]]) ? 1 : 0;
        const auto t1 = clock_type::now();
        for (std::size_t j = 0; j < batch; ++j) s.add(members[order[j]], scores[order[j]]);
        const auto t2 = clock_type::now();
        for (std::size_t j = 0; j < batch; ++j)
            s.add(members[order[j]], static_cast<double>(j) / batch);
        const auto t3 = clock_type::now();
        for (std::size_t j = 0; j < batch; ++j) s.add(members[order[j]], scores[order[j]]);
        if (removed != batch) {
            std::puts("a member was missing");
            return 1;
        }
        best_erase = std::min(best_erase, ns_each(t0, t1, batch));
        best_add = std::min(best_add, ns_each(t1, t2, batch));
        best_update = std::min(best_update, ns_each(t2, t3, batch));
    }
    std::printf("n = %zu (%s): ZREM %.1f ns, ZADD new %.1f ns, score update %.1f ns\n", n,
                s.encoding() == zset::encoding::listpack ? "listpack" : "skiplist", best_erase,
                best_add, best_update);
    return 0;
}
