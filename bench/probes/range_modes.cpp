// Probe: the instructions of a whole-set range read in listpack mode and in skiplist mode, for
// the suite's "listpack mode vs skiplist mode at n = 100" rows (range_by_rank and
// range_by_score with 100 results), counted with callgrind:
//
//   g++ -std=c++17 -O2 -DNDEBUG -falign-loops=32 -g -Iinclude bench/probes/range_modes.cpp
//       -o /tmp/range_modes
//   valgrind --tool=callgrind --toggle-collect='*by_*' /tmp/range_modes listpack rank
//   valgrind --tool=callgrind --toggle-collect='*by_*' /tmp/range_modes skiplist finite
//
// rank: range_by_rank(0, 99); all: range_by_score over every score; finite: over [-1, 2], which
// holds every member; middle: over [0.25, 0.75], about half of them (scores are in [0, 1)). Divide
// the collected counts by the reads (10,000). Figures: docs/benchmarks.md, "Run 26".
#include <cstdio>
#include <cstring>
#include <string>

#include <zset/zset.hpp>

namespace {

constexpr int reads = 10000;

__attribute__((noinline)) std::size_t by_rank(const zset::sorted_set<>& s) {
    std::size_t got = 0;
    for (int r = 0; r < reads; ++r)
        for (const auto e : s.range_by_rank(0, 99)) got += e.member.size() + (e.score > 0.5);
    return got;
}

// `range`: every score (-inf, +inf), or finite bounds around every member (as the suite's
// range at n = 100, whose ends are searched in the block).
__attribute__((noinline)) std::size_t by_score(const zset::sorted_set<>& s,
                                               const zset::score_range<double>& range) {
    std::size_t got = 0;
    for (int r = 0; r < reads; ++r)
        for (const auto e : s.range_by_score(range)) got += e.member.size() + (e.score > 0.5);
    return got;
}

}  // namespace

int main(int argc, char** argv) {
    const bool ok_mode = argc == 3 && (std::strcmp(argv[1], "listpack") == 0 ||
                                       std::strcmp(argv[1], "skiplist") == 0);
    if (!ok_mode || (std::strcmp(argv[2], "rank") != 0 && std::strcmp(argv[2], "all") != 0 &&
                     std::strcmp(argv[2], "finite") != 0 && std::strcmp(argv[2], "middle") != 0)) {
        std::fprintf(stderr, "usage: range_modes listpack|skiplist rank|all|finite|middle\n");
        return 2;
    }
    const bool skiplist = std::strcmp(argv[1], "skiplist") == 0;
    zset::sorted_set<> s(skiplist ? zset::options{0, 64} : zset::options{});
    unsigned x = 12345;
    for (int i = 0; i < 100; ++i) {
        x = x * 1103515245u + 12345u;
        s.add("member:" + std::to_string(i * 7919 % 100000), (x >> 8) / 16777216.0);
    }
    std::size_t got = 0;
    if (std::strcmp(argv[2], "rank") == 0)
        got = by_rank(s);
    else if (std::strcmp(argv[2], "all") == 0)
        got = by_score(s, zset::score_range<double>::all());
    else if (std::strcmp(argv[2], "finite") == 0)
        got = by_score(s, zset::score_range<double>::closed(-1.0, 2.0));
    else
        got = by_score(s, zset::score_range<double>::closed(0.25, 0.75));
    std::printf("%s %s %zu\n", argv[1], argv[2], got);
}
