// ZINCRBY / ZADD INCR semantics.
#include <cstdint>
#include <limits>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

using zset::add_flags;

TEST_CASE("increment adds to the score or creates the member", "[increment]") {
    zset::sorted_set<> s;
    REQUIRE(s.increment("a", 2.5) == 2.5);
    REQUIRE(s.increment("a", 2.5) == 5.0);
    REQUIRE(s.increment("a", 0) == 5.0);  // no change still replies the score
    REQUIRE(s.increment("a", -10) == -5.0);
    REQUIRE(s.score("a") == -5.0);
}

TEST_CASE("increment with flags replies nothing when blocked", "[increment]") {
    zset::sorted_set<> s{{"a", 10}};
    REQUIRE(s.increment("a", 1, add_flags::nx) == std::nullopt);
    REQUIRE(s.increment("b", 1, add_flags::xx) == std::nullopt);
    REQUIRE_FALSE(s.contains("b"));
    REQUIRE(s.increment("a", -1, add_flags::gt) == std::nullopt);  // GT compares the result
    REQUIRE(s.increment("a", 1, add_flags::gt) == 11.0);
    REQUIRE(s.increment("a", 1, add_flags::lt) == std::nullopt);
    REQUIRE(s.increment("a", -2, add_flags::lt) == 9.0);
    REQUIRE(s.increment("a", 0, add_flags::gt) == std::nullopt);  // equal is not greater
    REQUIRE(s.increment("c", 4, add_flags::gt) == 4.0);           // new members still added
}

TEST_CASE("inf + -inf is an error and changes nothing", "[increment]") {
    const double inf = std::numeric_limits<double>::infinity();
    zset::sorted_set<> s{{"a", inf}};
    REQUIRE_THROWS_WITH(s.increment("a", -inf), "ERR resulting score is not a number (NaN)");
    REQUIRE(s.score("a") == inf);
    REQUIRE_THROWS_WITH(s.increment("a", std::numeric_limits<double>::quiet_NaN()),
                        "ERR value is not a valid float");
    REQUIRE(s.increment("a", inf) == inf);
    REQUIRE(s.size() == 1);
}

TEST_CASE("integral scores detect overflow", "[increment]") {
    zset::sorted_set<std::string, std::int64_t> s;
    s.add("a", std::numeric_limits<std::int64_t>::max() - 1);
    REQUIRE(s.increment("a", 1) == std::numeric_limits<std::int64_t>::max());
    REQUIRE_THROWS_WITH(s.increment("a", 1), "ERR increment or decrement would overflow");
    REQUIRE(s.score("a") == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("increments move elements across blocks and keep ranks right", "[increment]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 2000; ++i) s.add("m" + std::to_string(i), i);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    for (int i = 0; i < 2000; i += 7) s.increment("m" + std::to_string(i), 5000);
    REQUIRE(s.validate());
    REQUIRE(s.rank("m0") == 2000u - 286u);  // 286 members were moved past everyone else
    REQUIRE(s.rev_rank("m1995") == 0u);
}
