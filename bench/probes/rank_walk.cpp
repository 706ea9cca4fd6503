// Probe: where ZRANK's time goes in skiplist mode. Not part of the suite (no peers, no
// targets); it reads the skiplist's private links to count the hops a walk from the element's
// block forward and up to the end of the list takes (how start_rank worked before the rank
// tree, detail/rank_tree.hpp, replaced it; the tree's height is printed beside it), which is
// why it opens the classes up below. Build and run (n = set size):
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/rank_walk.cpp -o /tmp/rank_walk
//   /tmp/rank_walk 1000000
//
// Prints the average number of hops per walk and how they split over the levels, then the
// time of ZRANK and of ZSCORE over the same 65,536 random members (their difference is the
// walk plus the position scan in the block). Figures: docs/benchmarks.md, "ZRANK: a counted B+tree
// over the blocks". Every standard header the container uses comes first, so the macro below
// reaches only zset's own classes.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <memory_resource>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#define private public  // a probe: read the skiplist's links
#include <zset/zset.hpp>
#undef private

#include "bench_support.hpp"

namespace {

using zbench::member_name;
using zbench::score_of;
using zbench::stream;
using set_type = zset::sorted_set<>;

double ns_per(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1,
              std::size_t count) {
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(count);
}

void count_hops(const set_type& z, std::size_t n) {
    const auto& list = z.sk_->list;
    std::vector<std::size_t> hops_at(static_cast<std::size_t>(list.level_), 0);
    std::size_t total = 0, nodes = 0;
    for (auto x = list.first(); x != list.head_id; x = list.nodes_[x].next(0)) ++nodes;
    zbench::rng g(3);
    constexpr std::size_t walks = 100000;
    for (std::size_t q = 0; q < walks; ++q) {
        const auto pos = z.locate(z.make_probe(member_name(g.below(n))));
        for (auto x = pos.node; x != list.head_id; ++total) {
            const int level = list.nodes_[x].height - 1;
            ++hops_at[static_cast<std::size_t>(level)];
            x = list.nodes_[x].at(level).next;
        }
    }
    std::printf("n=%zu nodes=%zu levels=%d hops per walk %.2f; rank tree height %d\n", n, nodes,
                list.level_, static_cast<double>(total) / walks, list.ranks_.height());
    for (std::size_t i = 0; i < hops_at.size(); ++i)
        std::printf("  level %zu: %.2f\n", i, static_cast<double>(hops_at[i]) / walks);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000000;
    set_type z;
    for (std::size_t i = 0; i < n; ++i) z.add(member_name(i), score_of(stream::main, i));
    count_hops(z, n);
    zbench::rng g(5);
    std::vector<std::string> keys;
    for (int i = 0; i < 65536; ++i) keys.push_back(member_name(g.below(n)));
    for (int rep = 0; rep < 5; ++rep) {
        std::size_t ranks = 0;
        double scores = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (const auto& k : keys) ranks += *z.rank(k);
        const auto t1 = std::chrono::steady_clock::now();
        for (const auto& k : keys) scores += *z.score(k);
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("ZRANK %.0f ns  ZSCORE %.0f ns  (checksums %zu %.3f)\n",
                    ns_per(t0, t1, keys.size()), ns_per(t1, t2, keys.size()), ranks, scores);
    }
}
