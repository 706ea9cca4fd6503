// Probe: ZSCORE at n = 100, listpack mode against skiplist mode, over 12 sets of members (not
// only the suite's one), in a loop shaped like the suite's rows (keys from a pool of 65,536,
// indexed and masked; the sum kept through benchmark::DoNotOptimize). Prints the mean time of
// each mode and the mean of the per-set ratios, for hits and for misses:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/listpack_lookup.cpp
//       -o /tmp/listpack_lookup -lbenchmark -lpthread
//   /tmp/listpack_lookup            (members member:<i>, as the suite names them)
//   /tmp/listpack_lookup random     (members of 10 random letters and digits)
//
// A set's misses are members of the same kind not in it. Which misses meet a false candidate in
// the bucket table depends on the member names, and one such miss costs ~45 cycles: a single
// set's ratio moves with its names, the mean over 12 sets much less. Figures:
// docs/benchmarks.md, "A one-multiply fingerprint for listpack mode".
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include <zset/zset.hpp>

namespace {

using set_type = zset::sorted_set<>;

bool random_names = false;

std::string name_of(std::uint64_t i) {
    if (!random_names) return zbench::member_name(i);
    std::mt19937_64 r(i * 0x9e3779b97f4a7c15ull + 12345);
    std::string s(10, ' ');
    for (char& c : s) c = "abcdefghijklmnopqrstuvwxyz0123456789"[r() % 36];
    return s;
}

__attribute__((noinline)) std::size_t
lookups(const set_type& s, const std::vector<std::string>& keys, std::size_t count) {
    std::size_t missing = 0, q = 0;
    double sum = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const auto v = s.score(keys[q]);
        missing += v ? 0 : 1;
        sum += v ? *v : 0.0;
        benchmark::DoNotOptimize(sum);
        q = (q + 1) & (keys.size() - 1);
    }
    return missing;
}

/// Best of 7 passes over the pool, 8 times round, in ns a lookup.
double time_lookups(const set_type& s, const std::vector<std::string>& keys) {
    double best = 1e300;
    for (int pass = 0; pass < 7; ++pass) {
        const auto t0 = std::chrono::steady_clock::now();
        volatile std::size_t missing = lookups(s, keys, keys.size() * 8);
        const auto t1 = std::chrono::steady_clock::now();
        (void)missing;
        const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() /
                          static_cast<double>(keys.size() * 8);
        if (ns < best) best = ns;
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    random_names = argc > 1 && std::strcmp(argv[1], "random") == 0;
    constexpr int sets = 12;
    double ratio_sum[2] = {0, 0}, listpack_sum[2] = {0, 0}, skiplist_sum[2] = {0, 0};
    for (int set = 0; set < sets; ++set) {
        const std::uint64_t base = static_cast<std::uint64_t>(set) * 100000;
        set_type listpack, skiplist(zset::options{0, 64});
        for (std::uint64_t i = 0; i < 100; ++i) {
            const double score = zbench::score_of(zbench::stream::main, base + i);
            listpack.add(name_of(base + i), score);
            skiplist.add(name_of(base + i), score);
        }
        zbench::rng draw(base + 7);
        for (int kind = 0; kind < 2; ++kind) {  // 0: hits, 1: misses
            std::vector<std::string> keys;
            for (int i = 0; i < 65536; ++i)
                keys.push_back(name_of(base + draw.below(100) + (kind == 1 ? 500 : 0)));
            const double a = time_lookups(listpack, keys), b = time_lookups(skiplist, keys);
            ratio_sum[kind] += a / b;
            listpack_sum[kind] += a;
            skiplist_sum[kind] += b;
        }
    }
    for (int kind = 0; kind < 2; ++kind)
        std::printf("%s: listpack %.2f ns, skiplist mode %.2f ns, mean ratio %.3f\n",
                    kind == 1 ? "miss" : "hit ", listpack_sum[kind] / sets,
                    skiplist_sum[kind] / sets, ratio_sum[kind] / sets);
    return 0;
}
