// Probe: would a blocked Bloom filter small enough to stay in L3 make ZSCORE misses at 10^7
// cheaper than probing the index's tag array (~46 MB at 10^7, never cached), and what would it
// cost a hit? zset::sorted_set with and without the filter in front of score(), and
// absl::flat_hash_map::find, in one binary, 7 interleaved rounds of 2^22 lookups (independent
// lookups, as in the suite's zscore benchmarks); prints medians, min and max in ns per lookup:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/miss_filter.cpp
//       -o /tmp/miss_filter -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
//   /tmp/miss_filter 10000000 5        (members, filter bits per member)
//
// The filter: one 64-byte block per lookup, 4 bits set in it from the member's hash (hashed a
// second time here, which the container would not need). Figures: docs/benchmarks.md, "Index of
// 4-byte tags + 5-byte refs".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "bench_support.hpp"
#include <zset/zset.hpp>

using namespace zbench;
struct filter {
    std::vector<std::uint64_t> words;  // blocks of 8 words = 64 bytes
    std::uint64_t blocks;
    explicit filter(std::uint64_t n, double bits_per) {
        blocks = static_cast<std::uint64_t>(static_cast<double>(n) * bits_per / 512) + 1;
        words.assign(blocks * 8 + 8, 0);
    }
    static void bits(std::uint64_t h, unsigned out[4]) {
        for (int i = 0; i < 4; ++i) out[i] = (h >> (9 * i)) & 511;
    }
    std::uint64_t* block(std::uint64_t h) {
        return words.data() + (((h >> 32) * blocks) >> 32) * 8;
    }
    void add(std::uint64_t h) {
        unsigned b[4];
        bits(h, b);
        auto* w = block(h);
        for (unsigned x : b) w[x >> 6] |= 1ull << (x & 63);
    }
    bool maybe(std::uint64_t h) {
        unsigned b[4];
        bits(h, b);
        auto* w = block(h);
        bool ok = true;
        for (unsigned x : b) ok &= (w[x >> 6] >> (x & 63)) & 1;
        return ok;
    }
};

int main(int argc, char** argv) {
    const std::uint64_t n = argc > 1 ? std::stoull(argv[1]) : 10000000;
    const double bpm = argc > 2 ? std::stod(argv[2]) : 5.0;
    zset::sorted_set<> s;
    absl::flat_hash_map<std::string, double> m;
    filter f(n, bpm);
    zset::hash<std::string> hs;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::string k = member_name(i);
        s.add(k, double(i));
        m.emplace(k, double(i));
        f.add(hs(k));
    }
    const std::size_t pool = 1 << 16;
    std::vector<std::string> miss, hit;
    rng r(42);
    for (std::size_t i = 0; i < pool; ++i) {
        miss.push_back(member_name(n + 100000 + r.below(n)));
        hit.push_back(member_name(r.below(n)));
    }
    std::size_t fp = 0;
    for (auto& k : miss) fp += f.maybe(hs(k));
    std::printf("n=%llu filter %.2f MB (%.1f bits/member), false positives %.2f%%\n",
                (unsigned long long)n, static_cast<double>(f.words.size()) * 8 / 1e6, bpm,
                100.0 * static_cast<double>(fp) / pool);
    const std::size_t iters = 1 << 22;
    auto timed = [&](auto&& fn) {
        auto t0 = std::chrono::steady_clock::now();
        std::size_t c = 0;
        for (std::size_t i = 0; i < iters; ++i) c += fn(i & (pool - 1));
        auto t1 = std::chrono::steady_clock::now();
        if (c == 12345678) std::puts("");
        return std::chrono::duration<double, std::nano>(t1 - t0).count() / iters;
    };
    const char* names[] = {"miss zset", "miss filter+zset", "miss absl",
                           "hit zset",  "hit filter+zset",  "hit absl"};
    std::vector<std::vector<double>> t(6);
    for (int round = 0; round < 7; ++round) {
        t[0].push_back(timed([&](std::size_t q) { return s.score(miss[q]).has_value(); }));
        t[1].push_back(timed(
            [&](std::size_t q) { return f.maybe(hs(miss[q])) && s.score(miss[q]).has_value(); }));
        t[2].push_back(timed([&](std::size_t q) { return m.find(miss[q]) != m.end(); }));
        t[3].push_back(timed([&](std::size_t q) { return s.score(hit[q]).has_value(); }));
        t[4].push_back(timed(
            [&](std::size_t q) { return f.maybe(hs(hit[q])) && s.score(hit[q]).has_value(); }));
        t[5].push_back(timed([&](std::size_t q) { return m.find(hit[q]) != m.end(); }));
    }
    for (std::size_t i = 0; i < 6; ++i) {
        auto v = t[i];
        std::sort(v.begin(), v.end());
        std::printf("%-18s median %6.1f ns  min %6.1f  max %6.1f\n", names[i], v[3], v[0], v[6]);
    }
}
