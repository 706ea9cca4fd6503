// ZREM, ZREMRANGEBYRANK/SCORE/LEX, ZPOPMIN/ZPOPMAX.
#include <string>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {
using bound = zset::score_bound<double>;
using lex = zset::lex_bound<std::string_view>;
zset::sorted_set<> numbered(int n, const zset::options& o = {}) {
    zset::sorted_set<> s(o);
    for (int i = 0; i < n; ++i) s.add("m" + std::to_string(i), i);
    return s;
}
}  // namespace

TEST_CASE("erase removes members and reports presence", "[erase]") {
    auto s = numbered(10);
    REQUIRE(s.erase("m3"));
    REQUIRE_FALSE(s.erase("m3"));
    REQUIRE_FALSE(s.erase("nope"));
    REQUIRE(s.size() == 9);
    REQUIRE(s.erase({"m1", "m2", "zz", "m1"}) == 2);
    REQUIRE(s.size() == 7);
    REQUIRE(s.rank("m4") == 1u);
}

TEST_CASE("erasing everything returns the set to listpack mode", "[erase]") {
    auto s = numbered(1000);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    for (int i = 0; i < 1000; ++i) REQUIRE(s.erase("m" + std::to_string(i)));
    REQUIRE(s.empty());
    REQUIRE(s.encoding() == zset::encoding::listpack);
    REQUIRE(s.validate());
    s.add("again", 1);
    REQUIRE(s.encoding() == zset::encoding::listpack);
}

TEST_CASE("range removal by rank, score and lex", "[erase]") {
    auto s = numbered(1000);
    REQUIRE(s.erase_range_by_rank(0, 9) == 10);
    REQUIRE(s.rank("m10") == 0u);
    REQUIRE(s.erase_range_by_rank(-10, -1) == 10);
    REQUIRE(s.size() == 980);
    REQUIRE(s.erase_range_by_rank(5, 2) == 0);
    REQUIRE(s.erase_range_by_score({bound::inclusive(100), bound::exclusive_of(600)}) == 500);
    REQUIRE(s.size() == 480);
    REQUIRE_FALSE(s.contains("m100"));
    REQUIRE(s.contains("m600"));
    REQUIRE(s.validate());
    zset::sorted_set<> w;
    for (const char* m : {"alpha", "beta", "gamma", "delta"}) w.add(m, 0);
    REQUIRE(w.erase_range_by_lex({lex::inclusive("b"), lex::exclusive("e")}) == 2);
    REQUIRE(w.size() == 2);
    REQUIRE(w.contains("alpha"));
    REQUIRE(w.contains("gamma"));
}

TEST_CASE("pop_min and pop_max", "[erase]") {
    auto s = numbered(300);
    const auto low = s.pop_min(3);
    REQUIRE(low.size() == 3);
    REQUIRE(low[0] == std::pair<std::string, double>{"m0", 0});
    REQUIRE(low[2] == std::pair<std::string, double>{"m2", 2});
    const auto high = s.pop_max(2);
    REQUIRE(high[0] == std::pair<std::string, double>{"m299", 299});
    REQUIRE(high[1] == std::pair<std::string, double>{"m298", 298});
    REQUIRE(s.pop_min(0).empty());
    REQUIRE(s.size() == 295);
    REQUIRE(s.pop_max(1000).size() == 295);
    REQUIRE(s.empty());
    REQUIRE(s.pop_min().empty());
    REQUIRE(s.validate());
}

// Past ~256 blocks a pop of one requests its index entry before it copies the element out
// (pop_one in sorted_set.hpp): popping one at a time from either end of such a set must
// still return the elements in order and remove each from the index.
TEST_CASE("pops of one from a set of many blocks", "[erase]") {
    constexpr int n = 40000;
    zset::sorted_set<> s;
    for (int i = 0; i < n; ++i) s.add("m" + std::to_string(i), (i * 7919) % n);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    int low = 0, high = n - 1;
    for (int k = 0; k < n / 2; ++k) {
        const bool from_low = k % 3 != 2;
        const auto got = from_low ? s.pop_min() : s.pop_max();
        REQUIRE(got.size() == 1);
        const int expected = from_low ? low++ : high--;
        REQUIRE(got[0].second == expected);
        REQUIRE_FALSE(s.contains(got[0].first));
        if (k % 4096 == 0) REQUIRE(s.validate());
    }
    REQUIRE(s.size() == static_cast<std::size_t>(n - n / 2));
    REQUIRE(s.validate());
    REQUIRE(s.pop_min()[0].second == low);
    REQUIRE(s.pop_max()[0].second == high);
}
