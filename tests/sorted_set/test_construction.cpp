// STL side: iterators, nth, find, copy / move / swap, ==, memory_usage, generic members.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
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

TEST_CASE("copies are deep and equal; moves leave the source empty", "[container]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 500; ++i) s.add("m" + std::to_string(i), i);
    zset::sorted_set<> c = s;
    REQUIRE(c == s);
    c.add("m0", -1);
    REQUIRE(c != s);
    REQUIRE(s.score("m0") == 0.0);
    zset::sorted_set<> m = std::move(c);
    REQUIRE(m.size() == 500);
    REQUIRE(m.validate());
    zset::sorted_set<> small{{"a", 1}};
    small = s;
    REQUIRE(small == s);
    small = std::move(m);
    REQUIRE(small.score("m0") == -1.0);
    swap(small, s);
    REQUIRE(s.score("m0") == -1.0);
    REQUIRE(small.score("m0") == 0.0);
    REQUIRE(s.validate());
    REQUIRE(small.validate());
    s.clear();
    REQUIRE(s.empty());
    REQUIRE(s.begin() == s.end());
    REQUIRE(s.encoding() == zset::encoding::listpack);
}

TEST_CASE("integer members with integral scores", "[container]") {
    zset::sorted_set<std::int64_t, std::int64_t> s;
    for (std::int64_t i = 0; i < 1000; ++i) s.add(i, -i);
    REQUIRE(s.rank(999) == 0u);
    REQUIRE(s.score(5) == -5);
    REQUIRE(s.count({zset::score_bound<std::int64_t>::inclusive(-10),
                     zset::score_bound<std::int64_t>::highest()}) == 11);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    REQUIRE(s.validate());
    const auto top = s.pop_max(2);
    REQUIRE(top[0].first == 0);
    REQUIRE(top[1].first == 1);
}

TEST_CASE("memory_usage grows with the set and is compact", "[container]") {
    zset::sorted_set<> s;
    const auto empty = s.memory_usage();
    REQUIRE(empty == sizeof(s));
    for (int i = 0; i < 100000; ++i) s.add("member:" + std::to_string(i), i * 0.5);
    const double per = static_cast<double>(s.memory_usage() - empty) / 100000.0;
    CAPTURE(per);
    REQUIRE(per > 20.0);  // at least the member, score and length
    REQUIRE(per < 48.0);
}

namespace {
/// The set's members in order: the thresholds, the state and block pointers, the modification
/// counter of checked builds (the allocator and the function objects, empty, are bases).
struct expected_set_layout {
    std::uint32_t max_listpack_entries, max_listpack_value;
    void* skiplist_state;
    void* listpack_block;
#if ZSET_DEBUG
    std::uint64_t generation;
#endif
};
}  // namespace

TEST_CASE("a set object is three words; skiplist mode's state lives behind one of them",
          "[container]") {
    // a listpack-mode set pays nothing for skiplist mode: 100 members stay under 24 bytes each
    STATIC_REQUIRE(sizeof(zset::sorted_set<>) == sizeof(expected_set_layout));
    zset::sorted_set<> s;
    for (int i = 0; i < 300; ++i) s.add("member:" + std::to_string(i), i * 0.5);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    // the state's allocation counts in memory_usage: more than the object and the blocks alone
    REQUIRE(s.memory_usage() > sizeof(s) + 300 * 20);
    zset::sorted_set<> moved = std::move(s);
    REQUIRE(s.empty());  // NOLINT(bugprone-use-after-move): a moved-from set is empty
    REQUIRE(s.encoding() == zset::encoding::listpack);
    REQUIRE(s.memory_usage() == sizeof(s));
    REQUIRE(moved.size() == 300);
    REQUIRE(moved.validate());
    moved.clear();  // frees the state: back to listpack mode
    REQUIRE(moved.encoding() == zset::encoding::listpack);
    REQUIRE(moved.memory_usage() == sizeof(moved));
}

TEST_CASE("thresholds above 32 bits read back saturated and still never convert", "[container]") {
    const std::size_t huge = static_cast<std::size_t>(-1);
    zset::sorted_set<> s(zset::options{huge, huge});
    const zset::options o = s.get_options();
    if constexpr (sizeof(std::size_t) > 4) {
        REQUIRE(o.max_listpack_entries == 0xffffffffu);
        REQUIRE(o.max_listpack_value == 0xffffffffu);
    }
    for (int i = 0; i < 400; ++i) s.add(std::string(100, 'a') + std::to_string(i), i);
    REQUIRE(s.encoding() == zset::encoding::listpack);
    REQUIRE(s.validate());
}

namespace {
/// A hash with per-object state: sets built with different seeds must keep their own.
struct seeded_hash {
    std::uint64_t seed = 0;
    std::uint64_t operator()(std::string_view s) const noexcept {
        return zset::hash<std::string>{}(s) ^ seed;
    }
};
}  // namespace

TEST_CASE("stateful function objects travel with copies, moves and assignment", "[container]") {
    using set = zset::sorted_set<std::string, double, seeded_hash>;
    set a(zset::options{0, 64}, seeded_hash{0x1234567890abcdefull});
    for (int i = 0; i < 300; ++i) a.add("m" + std::to_string(i), i);
    set b(zset::options{0, 64}, seeded_hash{42});
    b.add("other", 1);
    b = a;
    REQUIRE(b.contains("m7"));
    REQUIRE(b.validate());
    set c(zset::options{}, seeded_hash{7});
    c = std::move(b);
    REQUIRE(c.contains("m299"));
    REQUIRE(c.validate());
    set d(c);
    REQUIRE(d == c);
    REQUIRE(d.validate());
}

TEST_CASE("an identity hash is mixed, so integer members stay fast", "[container]") {
    struct identity {
        std::size_t operator()(long long v) const noexcept { return static_cast<std::size_t>(v); }
    };
    zset::sorted_set<long long, double, identity> s;
    for (long long i = 0; i < 200000; ++i) s.add(i, static_cast<double>(i % 1000));
    REQUIRE(s.size() == 200000);
    REQUIRE(s.score(123456) == 456.0);
    REQUIRE(s.validate());
}
