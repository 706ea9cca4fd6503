// Probe: the cost of ZPOPMIN (count 1) in instructions, for zset and for the Abseil pair
// (absl::btree_set of (score, member) + absl::flat_hash_map) through the suite's own adapters
// (bench/adapters.hpp), doing the suite's pop_min work: pop a batch of min(1000, n/4), re-add
// it, repeat. Counted with callgrind, which the shared machine's noise does not move:
//
//   g++ -std=c++17 -O2 -DNDEBUG -g -Iinclude -Ibench bench/probes/pop_cost.cpp
//       -o /tmp/pop_cost -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
//   valgrind --tool=callgrind --branch-sim=yes --cache-sim=yes --toggle-collect='*pop_batch*'
//       /tmp/pop_cost zset 1000 400         (one command each; then with absl for zset)
//
// Divide the collected counts by the pops (rounds x batch). Figures: docs/benchmarks.md,
// "ZPOPMIN".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define ZSET_BENCH_HAVE_ABSL 1  // the suite's own adapters, Abseil pair included
#include "adapters.hpp"
#include "bench_support.hpp"

namespace {

using zbench::popped;
using zset_pair = zbench::zset_adapter<zset::sorted_set<>>;
using absl_pair = zbench::absl_adapter;

template <class Set>
__attribute__((noinline)) double pop_batch(Set& s, popped& into, std::size_t batch) {
    double sum = 0;
    for (std::size_t j = 0; j < batch; ++j) {
        popped one = s.pop_min();
        sum += one[0].second;
        into.push_back(std::move(one[0]));
    }
    return sum;
}

template <class Set>
double run(Set s, std::size_t n, int rounds) {
    for (std::size_t i = 0; i < n; ++i)
        s.add(zbench::member_name(i), zbench::score_of(zbench::stream::main, i));
    const std::size_t batch = std::clamp<std::size_t>(n / 4, 1, 1000);
    popped out;
    out.reserve(batch);
    double sum = 0;
    for (int r = 0; r < rounds; ++r) {
        out.clear();
        sum += pop_batch(s, out, batch);
        for (const auto& [m, score] : out) s.add(m, score);
    }
    return sum;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: pop_cost zset|absl n [rounds]\n");
        return 2;
    }
    const std::size_t n = std::strtoul(argv[2], nullptr, 10);
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 400;
    const bool zset_side = std::strcmp(argv[1], "zset") == 0;
    const double sum =
        zset_side ? run(zset_pair(zset::sorted_set<>()), n, rounds) : run(absl_pair(), n, rounds);
    std::printf("%s n=%zu rounds=%d checksum %.6f\n", argv[1], n, rounds, sum);
}
