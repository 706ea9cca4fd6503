// Lookup (docs/sorted_set/lookup.md): score, contains and rank in listpack blocks past 128
// positions, of very wide members, and of short members without calling the Hash; count (ZCOUNT)
// and lex_count (ZLEXCOUNT) against brute force in both encodings.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

using zset::encoding;

namespace {
using bound = zset::score_bound<double>;
using lex = zset::lex_bound<std::string_view>;
using names = std::vector<std::string>;
}  // namespace

// A listpack block finds members through a bucket table up to 128 positions and through a
// fingerprint beside each position beyond (larger thresholds): a block that grows past 128
// must give every member its whole fingerprint again (the table kept 12 of its 16 bits).
TEST_CASE("listpack blocks past 128 positions still find every member", "[encoding]") {
    for (const bool erase_some : {false, true}) {
        zset::sorted_set<> s(zset::options{300, 64});
        for (int i = 0; i < 280; ++i) {
            s.add("m" + std::to_string(i), i % 7);
            if (erase_some && i % 3 == 0) s.erase("m" + std::to_string(i / 2));
        }
        REQUIRE(s.encoding() == zset::encoding::listpack);
        REQUIRE(s.validate());
        for (int i = 0; i < 280; ++i) {
            const std::string m = "m" + std::to_string(i);
            // m(j) was erased when i = 2j or 2j + 1 was a multiple of 3
            const bool erased =
                erase_some && ((2 * i) % 3 == 0 || (2 * i + 1) % 3 == 0) && 2 * i < 280;
            REQUIRE(s.contains(m) == !erased);
            if (!erased) REQUIRE(*s.score(m) == i % 7);
        }
        REQUIRE_FALSE(s.contains("m280"));
    }
}

namespace {
/// A string hash that counts its calls.
struct counting_hash {
    static inline int calls = 0;
    std::uint64_t operator()(std::string_view m) const noexcept {
        ++calls;
        return zset::hash<std::string>{}(m);
    }
};
}  // namespace

TEST_CASE("listpack mode fingerprints members of at most 16 bytes without the Hash", "[encoding]") {
    zset::sorted_set<std::string, double, counting_hash> s(zset::options{64, 64});
    counting_hash::calls = 0;
    for (int i = 0; i < 60; ++i) s.add("member:" + std::to_string(i), i);
    REQUIRE(*s.score("member:7") == 7);
    REQUIRE_FALSE(s.score("member:70"));
    REQUIRE(s.rank("member:9") == 9u);
    REQUIRE(s.increment("member:8", 100) == 108);
    REQUIRE(s.erase("member:3"));
    REQUIRE(s.validate());
    REQUIRE(counting_hash::calls == 0);
    // longer members are fingerprinted through the Hash; skiplist mode hashes every member
    s.add("a member longer than sixteen bytes", 1);
    REQUIRE(counting_hash::calls > 0);
    REQUIRE(*s.score("a member longer than sixteen bytes") == 1);
    for (int i = 60; i < 70; ++i) s.add("member:" + std::to_string(i), i);
    REQUIRE(s.encoding() == encoding::skiplist);
    REQUIRE(s.validate());
    for (int i = 60; i < 70; ++i) REQUIRE(*s.score("member:" + std::to_string(i)) == i);
}

namespace {
/// A member of 1,100 bytes: a listpack block of 120 needs its lookup more than 128 KiB past its
/// start, beyond what the block header records, and keeps per-position fingerprints instead.
struct wide_member {
    std::array<char, 1100> bytes{};
    wide_member() = default;
    explicit wide_member(int i) { std::snprintf(bytes.data(), bytes.size(), "w%d", i); }
    friend bool operator==(const wide_member& a, const wide_member& b) {
        return a.bytes == b.bytes;
    }
    friend bool operator<(const wide_member& a, const wide_member& b) { return a.bytes < b.bytes; }
};
struct wide_hash {
    std::uint64_t operator()(const wide_member& m) const noexcept {
        return zset::hash<std::string>{}(std::string_view(m.bytes.data()));
    }
};
}  // namespace

TEST_CASE("listpack blocks of very wide members find every member", "[encoding]") {
    zset::sorted_set<wide_member, double, wide_hash> s(zset::options{128, 2048});
    for (int i = 0; i < 120; ++i) {
        s.add(wide_member(i), i);
        if (i % 10 == 9) REQUIRE(s.validate());
    }
    REQUIRE(s.encoding() == encoding::listpack);
    for (int i = 0; i < 120; ++i) REQUIRE(*s.score(wide_member(i)) == i);
    REQUIRE_FALSE(s.score(wide_member(120)));
    REQUIRE(s.erase(wide_member(5)));
    REQUIRE_FALSE(s.contains(wide_member(5)));
    REQUIRE(s.validate());
}

namespace {
/// ZCOUNT and ZLEXCOUNT against brute force over n members, ~3 a score (modulus distinct
/// scores): every end kind, widths from inverted to the whole set.
void check_counts(int n, int modulus, zset::encoding expected) {
    zset::sorted_set<> s, lexset;
    std::vector<double> scores;
    names by_name;
    for (int i = 0; i < n; ++i) {
        const double score = (i * 7919) % modulus;
        const std::string m = "m" + std::to_string(100000 + i);
        s.add(m, score);
        lexset.add(m, 0);
        scores.push_back(score);
        by_name.push_back(m);
    }
    std::sort(scores.begin(), scores.end());
    REQUIRE(s.encoding() == expected);
    REQUIRE(lexset.encoding() == expected);
    const auto below = [&](double v, bool inclusive) {  // elements < v (<= v when inclusive)
        const auto it = inclusive ? std::upper_bound(scores.begin(), scores.end(), v)
                                  : std::lower_bound(scores.begin(), scores.end(), v);
        return static_cast<std::size_t>(it - scores.begin());
    };
    const double lo_step = std::max(1, modulus / 20);
    for (double lo = -2; lo <= modulus + 2; lo += lo_step) {
        for (const double width : {-5.0, 0.0, 1.0, 10.0, 100.0, 1000.0, 5000.0, 20011.0}) {
            for (const int ends : {0, 1, 2, 3}) {
                const bool lo_open = (ends & 1) != 0, hi_open = (ends & 2) != 0;
                const double hi = lo + width;
                const std::size_t first = below(lo, lo_open), last = below(hi, !hi_open);
                INFO("n " << n << " lo " << lo << " width " << width << " ends " << ends);
                REQUIRE(s.count({lo_open ? bound::exclusive_of(lo) : bound::inclusive(lo),
                                 hi_open ? bound::exclusive_of(hi) : bound::inclusive(hi)}) ==
                        (last > first ? last - first : 0));
            }
        }
    }
    const auto from_step = std::max<std::size_t>(1, by_name.size() / 12);
    for (std::size_t from = 0; from < by_name.size(); from += from_step) {
        for (const std::size_t span : {std::size_t{0}, std::size_t{1}, std::size_t{100},
                                       std::size_t{5000}, std::size_t{59999}}) {
            const std::size_t to = std::min(from + span, by_name.size() - 1);
            INFO("n " << n << " from " << from << " span " << span);
            REQUIRE(lexset.lex_count({lex::inclusive(by_name[from]),
                                      lex::inclusive(by_name[to])}) == to - from + 1);
            REQUIRE(
                lexset.lex_count({lex::exclusive(by_name[from]), lex::exclusive(by_name[to])}) ==
                (to > from ? to - from - 1 : 0));
            REQUIRE(lexset.lex_count(
                        {lex::inclusive(by_name[to]), lex::exclusive(by_name[from])}) == 0);
            REQUIRE(lexset.lex_count({lex::minus_infinity(), lex::exclusive(by_name[to])}) == to);
        }
    }
}
}  // namespace

// ZCOUNT and ZLEXCOUNT search a range's end from the nodes the search for its start passed
// (skiplist::descend_from): up from the start's block while the next node at a level still
// lies before the end, then down. Widths from nothing to the whole set over 60,000 members
// (469 blocks or more), every kind of end, and ranges empty by their bounds, against
// brute force.
TEST_CASE("counts search the end from the start's path and match brute force", "[ranges]") {
    check_counts(60000, 20011, zset::encoding::skiplist);
}

// In listpack mode both ends are searched in the one block together
// (block::partition_points), at the default limit of 128 entries and below it.
TEST_CASE("counts in listpack mode search one block for both ends and match brute force",
          "[ranges]") {
    check_counts(100, 37, zset::encoding::listpack);
    check_counts(128, 41, zset::encoding::listpack);
    check_counts(5, 2, zset::encoding::listpack);
}
