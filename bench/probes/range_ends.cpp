// Probe: what finding a range's ends costs, outside the suite. One process builds n members,
// then times five passes of 10^5 queries of one kind, printing ns per query for each pass:
//
//   score  ZRANGEBYSCORE lo +inf LIMIT 0 100 from a random member's score (the suite's
//          range_by_score), walking the results
//   count  ZCOUNT [lo, lo + 0.01] (1% of n, the suite's zcount)
//   lex    ZRANGEBYLEX [p (p\xff LIMIT 0 10 over members "user:<number>" of equal score, p a
//          random member without its last two characters (autocomplete)
//   page   ZREVRANGEBYSCORE (hi -inf LIMIT 0 10 from a random member's score: a leaderboard's
//          next page, walking the results
//   top    ZREVRANGEBYSCORE +inf -inf LIMIT 0 10 (a leaderboard's first page)
//   rank   ZREVRANGE 0 9 and ZREVRANGE 20 29 (its first and third pages by rank)
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/range_ends.cpp
//       bench/alloc_counter.cpp -o /tmp/range_ends
//   /tmp/range_ends 10000 lex
//
// For A/B runs build a second binary from the other header tree and alternate them. Figures:
// docs/benchmarks.md, "Range ends from the start".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include <zset/zset.hpp>

namespace {

using namespace zbench;
using score_bound = zset::score_bound<double>;
using lex_bound = zset::lex_bound<std::string>;
constexpr int rounds = 10;

__attribute__((noinline)) double score_ranges(const zset::sorted_set<>& s,
                                              const std::vector<double>& lo, std::size_t k) {
    double acc = 0;
    for (int r = 0; r < rounds; ++r)
        for (const double l : lo)
            for (const auto e :
                 s.range_by_score({score_bound::inclusive(l), score_bound::highest()},
                                  zset::limit{0, static_cast<long long>(k)}))
                acc += e.score + static_cast<double>(e.member.size());
    return acc;
}

__attribute__((noinline)) double rev_pages(const zset::sorted_set<>& s,
                                           const std::vector<double>& hi, bool top) {
    double acc = 0;
    for (int r = 0; r < rounds; ++r)
        for (const double h : hi)
            for (const auto e :
                 s.rev_range_by_score({score_bound::lowest(),
                                       top ? score_bound::highest() : score_bound::exclusive_of(h)},
                                      zset::limit{0, 10}))
                acc += e.score + static_cast<double>(e.member.size());
    return acc;
}

__attribute__((noinline)) double rev_rank_pages(const zset::sorted_set<>& s) {
    double acc = 0;
    for (int r = 0; r < rounds * 5000; ++r)
        for (const long long first : {0, 20})
            for (const auto e : s.rev_range_by_rank(first, first + 9))
                acc += e.score + static_cast<double>(e.member.size());
    return acc;
}

__attribute__((noinline)) double counts(const zset::sorted_set<>& s,
                                        const std::vector<double>& lo) {
    double acc = 0;
    for (int r = 0; r < rounds; ++r)
        for (const double l : lo)
            acc += static_cast<double>(
                s.count({score_bound::inclusive(l), score_bound::inclusive(l + 0.01)}));
    return acc;
}

__attribute__((noinline)) double lex_ranges(const zset::sorted_set<>& s,
                                            const std::vector<std::string>& prefixes) {
    double acc = 0;
    for (int r = 0; r < rounds; ++r)
        for (const auto& p : prefixes)
            for (const auto e :
                 s.range_by_lex({lex_bound::inclusive(p), lex_bound::exclusive(p + "\xff")},
                                zset::limit{0, 10}))
                acc += static_cast<double>(e.member.size());
    return acc;
}

}  // namespace

int main(int argc, char** argv) {
    const char* kind = argc == 3 ? argv[2] : "";
    if (std::strcmp(kind, "score") != 0 && std::strcmp(kind, "count") != 0 &&
        std::strcmp(kind, "lex") != 0 && std::strcmp(kind, "page") != 0 &&
        std::strcmp(kind, "top") != 0 && std::strcmp(kind, "rank") != 0) {
        std::fprintf(stderr, "usage: range_ends <n> score|count|lex|page|top|rank\n");
        return 2;
    }
    const std::size_t n = std::strtoul(argv[1], nullptr, 10);
    if (n == 0) return 2;
    const bool lex = std::strcmp(kind, "lex") == 0;
    zset::sorted_set<> s;
    std::vector<double> scores;
    rng draw(3);
    for (std::size_t i = 0; i < n; ++i) {
        if (lex) {
            s.add("user:" + std::to_string(draw.below(n * 10)), 0.0);
        } else {
            scores.push_back(score_of(stream::main, i));
            s.add(member_name(i), scores.back());
        }
    }
    std::sort(scores.begin(), scores.end());
    const std::size_t k = std::min<std::size_t>(100, n);
    std::vector<double> lo;
    std::vector<std::string> prefixes;
    for (int i = 0; i < 10000; ++i) {
        if (lex) {
            const std::string m = "user:" + std::to_string(draw.below(n * 10));
            prefixes.push_back(m.substr(0, m.size() - 2));
        } else {
            lo.push_back(scores[draw.below(n - k + 1)]);
        }
    }
    double acc = 0;
    for (int pass = 0; pass < 5; ++pass) {
        const double t0 = thread_cpu_seconds();
        acc += lex              ? lex_ranges(s, prefixes)
               : kind[0] == 'c' ? counts(s, lo)
               : kind[0] == 's' ? score_ranges(s, lo, k)
               : kind[0] == 'r' ? rev_rank_pages(s)
                                : rev_pages(s, lo, kind[0] == 't');
        const double t1 = thread_cpu_seconds();
        std::printf("%.1f ", (t1 - t0) * 1e9 / (rounds * 10000.0));
    }
    std::printf("ns per query (checksum %g)\n", acc);
}
