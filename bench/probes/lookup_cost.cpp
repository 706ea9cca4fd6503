// Probe: the cost of ZSCORE in instructions and mispredicted branches, for a skiplist-mode set
// of n members, hits or misses, counted with callgrind (which the shared machine's noise does
// not move):
//
//   g++ -std=c++17 -O2 -DNDEBUG -g -Iinclude -Ibench bench/probes/lookup_cost.cpp
//       -o /tmp/lookup_cost
//   valgrind --tool=callgrind --branch-sim=yes --toggle-collect='*lookups*'
//       /tmp/lookup_cost 1000 miss          (or hit)
//
// Divide the collected counts by the lookups (100,000). Figures: docs/benchmarks.md, "A 1-byte
// control array instead of the 4-byte tags".
//
// With -DZSET_PROBE_REDISSKL (and `-labsl_hash -labsl_city -labsl_low_level_hash
// -labsl_raw_hash_set`), a third argument `redisskl` counts the Redis-style peer's lookup
// (bench/peers/redis_skiplist.hpp: absl::flat_hash_set of node pointers) through the same loop.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include <zset/zset.hpp>
#ifdef ZSET_PROBE_REDISSKL
#include "peers/redis_skiplist.hpp"
#endif

namespace {

constexpr std::size_t queries = 10000;
constexpr int rounds = 10;

bool holds(const zset::sorted_set<>& set, const std::string& k) {
    return set.score(k).has_value();
}
#ifdef ZSET_PROBE_REDISSKL
bool holds(const zbench::peers::redis_skiplist& set, const std::string& k) {
    return set.find(k) != nullptr;
}
#endif

template <class Set>
__attribute__((noinline)) std::size_t lookups(const Set& set,
                                              const std::vector<std::string>& keys) {
    std::size_t found = 0;
    for (int r = 0; r < rounds; ++r)
        for (const auto& k : keys) found += holds(set, k) ? 1 : 0;
    return found;
}

template <class Set>
int run(std::size_t n, bool hits) {
    Set set;
    for (std::size_t i = 0; i < n; ++i) set.add(zbench::member_name(i), static_cast<double>(i));
    std::vector<std::string> keys;
    zbench::rng draw(42);
    for (std::size_t i = 0; i < queries; ++i)  // members are 0..n-1; a miss asks for one of n..2n-1
        keys.push_back(zbench::member_name(draw.below(n) + (hits ? 0 : n)));
    std::printf("%zu of %zu found\n", lookups(set, keys), queries * rounds);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4 ||
        (std::strcmp(argv[2], "hit") != 0 && std::strcmp(argv[2], "miss") != 0)) {
        std::fprintf(stderr, "usage: lookup_cost <n> hit|miss [redisskl]\n");
        return 2;
    }
    const std::size_t n = std::strtoul(argv[1], nullptr, 10);
    const bool hits = std::strcmp(argv[2], "hit") == 0;
    if (n == 0) return 2;
    if (argc == 4) {
#ifdef ZSET_PROBE_REDISSKL
        if (std::strcmp(argv[3], "redisskl") == 0)
            return run<zbench::peers::redis_skiplist>(n, hits);
#endif
        std::fprintf(stderr, "lookup_cost: unknown structure '%s'\n", argv[3]);
        return 2;
    }
    return run<zset::sorted_set<>>(n, hits);
}
