// Iteration, random sampling, scanning (docs/sorted_set/iteration.md): iterators both ways, nth,
// ZSCAN's cursor guarantees (scan) and ZRANDMEMBER's properties (random_members).
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

TEST_CASE("iterators walk both ways in (score, member) order", "[container]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 1000; ++i) s.add("m" + std::to_string(i), (i * 37) % 101);
    REQUIRE(static_cast<std::size_t>(std::distance(s.begin(), s.end())) == s.size());
    auto it = s.end();
    std::size_t steps = 0;
    while (it != s.begin()) {
        --it;
        ++steps;
    }
    REQUIRE(steps == 1000);
    REQUIRE(std::is_sorted(s.begin(), s.end(), [](const auto& a, const auto& b) {
        return a.score < b.score || (a.score == b.score && a.member < b.member);
    }));
    std::vector<std::string> fwd, rev;
    for (const auto& e : s) fwd.emplace_back(e.member);
    for (auto r = s.rbegin(); r != s.rend(); ++r) rev.emplace_back(r->member);
    std::reverse(rev.begin(), rev.end());
    REQUIRE(fwd == rev);
    REQUIRE(s.nth(0) == s.begin());
    REQUIRE(s.nth(1000) == s.end());
    REQUIRE(std::next(s.nth(998)) == std::prev(s.end()));
    REQUIRE((*s.find(fwd[500])).member == fwd[500]);
    REQUIRE(s.find("missing") == s.end());
}

TEST_CASE("scan in listpack mode returns everything at once", "[scan]") {
    zset::sorted_set<> s{{"a", 1}, {"b", 2}};
    std::set<std::string> seen;
    REQUIRE(s.scan(0, 1, [&](const auto& e) { seen.emplace(e.member); }) == 0);
    REQUIRE(seen == std::set<std::string>{"a", "b"});
}

TEST_CASE("scan visits every member that stays, while the set grows and shrinks", "[scan]") {
    std::mt19937_64 rng(42);
    zset::sorted_set<> s;
    for (int i = 0; i < 5000; ++i) s.add("m" + std::to_string(i), static_cast<double>(rng() % 100));
    std::set<std::string> stable;  // never removed during the walk
    for (int i = 0; i < 5000; i += 2) stable.insert("m" + std::to_string(i));
    std::map<std::string, int> seen;
    std::uint64_t cursor = 0;
    int calls = 0, next_new = 5000;
    do {
        cursor = s.scan(cursor, 10, [&](const auto& e) { ++seen[std::string(e.member)]; });
        ++calls;
        // grow (forces index growth) and shrink (odd members only) between calls
        for (int k = 0; k < 20; ++k) s.add("n" + std::to_string(next_new++), 1);
        const int odd = 1 + 2 * static_cast<int>(rng() % 2500);
        s.erase("m" + std::to_string(odd));
    } while (cursor != 0 && calls < 100000);
    REQUIRE(cursor == 0);
    for (const auto& m : stable) REQUIRE(seen.count(m) == 1);
    // a walk does a bounded amount of repeated work
    std::size_t repeats = 0;
    for (const auto& [m, n] : seen) repeats += static_cast<std::size_t>(n - 1);
    REQUIRE(repeats < seen.size() / 10 + 10);
}

TEST_CASE("scan survives a conversion between calls", "[scan]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 1000; ++i) s.add("m" + std::to_string(i), i);
    std::set<std::string> seen;
    std::uint64_t cursor = s.scan(0, 50, [&](const auto& e) { seen.emplace(e.member); });
    REQUIRE(cursor != 0);
    s.erase_range_by_rank(100, 899);  // keep m0..m99 and m900..m999
    s.shrink_to_fit();                // 200 members: still skiplist by entry count
    s.erase_range_by_rank(50, 149);   // 100 left
    s.shrink_to_fit();
    REQUIRE(s.encoding() == zset::encoding::listpack);
    while (cursor != 0) cursor = s.scan(cursor, 50, [&](const auto& e) { seen.emplace(e.member); });
    for (const auto& e : s) REQUIRE(seen.count(std::string(e.member)) == 1);
}

TEST_CASE("random_members: distinct for positive counts, with replacement for negative",
          "[random]") {
    std::mt19937_64 rng(7);
    zset::sorted_set<> s;
    for (int i = 0; i < 300; ++i) s.add("m" + std::to_string(i), i);
    const auto some = s.random_members(10, rng);
    REQUIRE(some.size() == 10);
    std::set<std::string> distinct;
    for (const auto& [m, sc] : some) {
        distinct.insert(m);
        REQUIRE(s.score(m) == sc);
    }
    REQUIRE(distinct.size() == 10);
    REQUIRE(s.random_members(1000, rng).size() == 300);  // capped at the set size
    const auto many = s.random_members(-1000, rng);
    REQUIRE(many.size() == 1000);
    std::set<std::string> drawn;
    for (const auto& [m, sc] : many) drawn.insert(m);
    REQUIRE(drawn.size() < 1000);  // repeats happen with replacement
    REQUIRE(drawn.size() > 200);   // and it covers the set
    REQUIRE(s.random_members(0, rng).empty());
    zset::sorted_set<> empty;
    REQUIRE(empty.random_members(-5, rng).empty());
}

TEST_CASE("random_members is roughly uniform", "[random]") {
    std::mt19937_64 rng(11);
    zset::sorted_set<> s;
    for (int i = 0; i < 10; ++i) s.add("m" + std::to_string(i), i);
    std::map<std::string, int> hits;
    for (const auto& [m, sc] : s.random_members(-100000, rng)) ++hits[m];
    REQUIRE(hits.size() == 10);
    for (const auto& [m, n] : hits) {
        CAPTURE(m, n);
        REQUIRE(n > 9000);
        REQUIRE(n < 11000);
    }
}
