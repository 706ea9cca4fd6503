// Construction, assignment, swap (docs/sorted_set/construction.md): deep copies, moves, swap and
// ==; the listpack thresholds given at construction (options, get_options) and changed later
// (set_options); stateful function objects through copies, moves and assignment.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

using zset::encoding;

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

TEST_CASE("thresholds are runtime options, including 0", "[encoding]") {
    zset::sorted_set<> never(zset::options{0, 64});
    never.add("a", 1);
    REQUIRE(never.encoding() == encoding::skiplist);
    zset::sorted_set<> one(zset::options{1, 64});
    one.add("a", 1);
    REQUIRE(one.encoding() == encoding::listpack);
    one.add("b", 1);
    REQUIRE(one.encoding() == encoding::skiplist);
    zset::sorted_set<> short_values(zset::options{128, 0});
    short_values.add("", 1);  // an empty member is not longer than 0
    REQUIRE(short_values.encoding() == encoding::listpack);
    short_values.add("x", 1);
    REQUIRE(short_values.encoding() == encoding::skiplist);
    REQUIRE(short_values.get_options().max_listpack_value == 0);
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

TEST_CASE("set_options changes the thresholds for later adds only", "[encoding]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 10; ++i) s.add("m" + std::to_string(i), i);
    s.set_options(zset::options{5, 64});
    REQUIRE(s.encoding() == encoding::listpack);  // nothing converts on the change itself
    s.add("m0", 100);                             // an update never converts
    REQUIRE(s.encoding() == encoding::listpack);
    s.add("new", 1);
    REQUIRE(s.encoding() == encoding::skiplist);
    REQUIRE(s.get_options().max_listpack_entries == 5);
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
