// Template parameters (docs/sorted_set.md, "Template parameters"): integer members with integral
// scores, and a Hash that returns its input unchanged (the set mixes it, as it declares no
// is_avalanching).
#include <cstddef>
#include <cstdint>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

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
