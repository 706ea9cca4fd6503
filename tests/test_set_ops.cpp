// Set operations (docs/set_ops.md): ZUNION / ZINTER / ZDIFF / ZINTERCARD, and the encoding of
// their results.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"
#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {
using set = zset::sorted_set<>;
using inputs = std::vector<const set*>;
std::vector<std::pair<std::string, double>> items(const set& s) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& e : s) out.emplace_back(std::string(e.member), e.score);
    return out;
}
using list = std::vector<std::pair<std::string, double>>;
}  // namespace

TEST_CASE("union sums by default and honours weights and aggregate", "[set_ops]") {
    const set a{{"x", 1}, {"y", 2}};
    const set b{{"y", 10}, {"z", 3}};
    REQUIRE(items(zset::set_union<set>(inputs{&a, &b})) == list{{"x", 1}, {"z", 3}, {"y", 12}});
    REQUIRE(items(zset::set_union<set>(inputs{&a, &b}, {2, 1})) ==
            list{{"x", 2}, {"z", 3}, {"y", 14}});
    REQUIRE(items(zset::set_union<set>(inputs{&a, &b}, {}, zset::aggregate::min)) ==
            list{{"x", 1}, {"y", 2}, {"z", 3}});
    REQUIRE(items(zset::set_union<set>(inputs{&a, &b}, {}, zset::aggregate::max)) ==
            list{{"x", 1}, {"z", 3}, {"y", 10}});
    REQUIRE(items(zset::set_union<set>(inputs{&a, nullptr})) == items(a));  // missing key = empty
    REQUIRE_THROWS_WITH(zset::set_union<set>(inputs{&a, &b}, {1}), "ERR syntax error");
}

TEST_CASE("intersection keeps members in every input", "[set_ops]") {
    const set a{{"x", 1}, {"y", 2}, {"w", 0}};
    const set b{{"y", 10}, {"z", 3}, {"w", 5}};
    REQUIRE(items(zset::set_intersection<set>(inputs{&a, &b})) == list{{"w", 5}, {"y", 12}});
    REQUIRE(items(zset::set_intersection<set>(inputs{&a, &b}, {1, 0})) == list{{"w", 0}, {"y", 2}});
    REQUIRE(zset::set_intersection<set>(inputs{&a, nullptr}).empty());
    REQUIRE(zset::intersection_cardinality<set>(inputs{&a, &b}) == 2);
    REQUIRE(zset::intersection_cardinality<set>(inputs{&a, &b}, 1) == 1);
    REQUIRE(zset::intersection_cardinality<set>(inputs{&a, &b}, 0) == 2);
}

TEST_CASE("difference keeps the first set's members found nowhere else", "[set_ops]") {
    const set a{{"x", 1}, {"y", 2}, {"z", 3}};
    const set b{{"y", 10}};
    const set c{{"z", 0}};
    REQUIRE(items(zset::set_difference<set>(inputs{&a, &b, &c})) == list{{"x", 1}});
    REQUIRE(items(zset::set_difference<set>(inputs{&a, nullptr})) == items(a));
    REQUIRE(zset::set_difference<set>(inputs{nullptr, &a}).empty());
}

TEST_CASE("NaN products become 0 and inf + -inf sums to 0, as Redis", "[set_ops]") {
    const double inf = std::numeric_limits<double>::infinity();
    const set a{{"p", inf}, {"q", 0}};
    const set b{{"p", -inf}, {"q", 1}};
    REQUIRE(items(zset::set_union<set>(inputs{&a, &b})) == list{{"p", 0}, {"q", 1}});
    // weight 0 times inf is NaN -> 0
    REQUIRE(items(zset::set_union<set>(inputs{&a}, {0})) == list{{"p", 0}, {"q", 0}});
}

TEST_CASE("set operations over large inputs", "[set_ops]") {
    set a, b;
    for (int i = 0; i < 3000; ++i) a.add("m" + std::to_string(i), i);
    for (int i = 1500; i < 4500; ++i) b.add("m" + std::to_string(i), 1);
    const auto u = zset::set_union<set>(inputs{&a, &b});
    REQUIRE(u.size() == 4500);
    REQUIRE(u.validate());
    REQUIRE(u.score("m2000") == 2001.0);
    const auto in = zset::set_intersection<set>(inputs{&a, &b});
    REQUIRE(in.size() == 1500);
    REQUIRE(in.validate());
    REQUIRE(zset::set_difference<set>(inputs{&a, &b}).size() == 1500);
}

TEST_CASE("ZINTER cleans NaN only in the first input's products, as Redis", "[set_ops]") {
    const double inf = std::numeric_limits<double>::infinity();
    const set a{{"x", 5}};
    const set b{{"x", inf}};
    // ZINTER 2 a b WEIGHTS 1 0 AGGREGATE MIN -> x 5 (inf * 0 is NaN; MIN skips it)
    REQUIRE(items(zset::set_intersection<set>(inputs{&a, &b}, {1, 0}, zset::aggregate::min)) ==
            list{{"x", 5}});
    // ... AGGREGATE SUM -> x 0 (5 + NaN is NaN, and a NaN sum is 0)
    REQUIRE(items(zset::set_intersection<set>(inputs{&a, &b}, {1, 0})) == list{{"x", 0}});
    // the first (smallest) input's own NaN product becomes 0 before aggregating
    REQUIRE(items(zset::set_intersection<set>(inputs{&b, &a}, {0, 1}, zset::aggregate::max)) ==
            list{{"x", 5}});
}

TEST_CASE("set operations over integer members", "[set_ops]") {
    using iset = zset::sorted_set<long long, double>;
    using ilist = std::vector<std::pair<long long, double>>;
    const auto ints = [](const iset& s) {
        ilist out;
        for (const auto& e : s) out.emplace_back(e.member, e.score);
        return out;
    };
    iset a, b;
    for (long long i = 0; i < 300; ++i) a.add(i * 7 % 300, static_cast<double>(i % 5));
    for (long long i = 150; i < 450; ++i) b.add(i, 1);
    const std::vector<const iset*> both{&a, &b};
    const iset u = zset::set_union<iset>(both, {2, 1});
    REQUIRE(u.size() == 450);
    REQUIRE(u.validate());
    for (long long m = 0; m < 450; ++m) {
        const double expect = (m < 300 ? 2 * *a.score(m) : 0) + (m >= 150 ? 1 : 0);
        REQUIRE(u.score(m) == expect);
    }
    const iset in = zset::set_intersection<iset>(both, {}, zset::aggregate::max);
    REQUIRE(in.size() == 150);
    REQUIRE(in.validate());
    for (const auto& [m, sc] : ints(in)) REQUIRE(sc == std::max(*a.score(m), 1.0));
    // ties in score are ordered by member, through the reference-sorting path
    const iset tied = zset::set_union<iset>(std::vector<const iset*>{&b}, {0});
    const ilist t = ints(tied);
    REQUIRE(std::is_sorted(t.begin(), t.end()));
    REQUIRE(zset::set_difference<iset>(both).size() == 150);
}

using zset_test::reverse_bytes;

TEST_CASE("set operation results keep the inputs' options and function objects", "[set_ops]") {
    using rset = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                                  reverse_bytes>;
    zset::options small;
    small.max_listpack_entries = 4;
    rset a(small), b(small);
    for (const char* m : {"a", "b", "c", "d", "e"}) {
        a.add(m, 1);
        b.add(m, 2);
    }
    const std::vector<const rset*> both{&b, &a};
    const rset u = zset::set_union<rset>(both);
    REQUIRE(u.validate());
    REQUIRE(u.get_options().max_listpack_entries == 4);
    REQUIRE(u.encoding() == zset::encoding::skiplist);  // 5 > 4
    std::string order;
    for (const auto& e : u) order += std::string(e.member);
    REQUIRE(order == "edcba");  // equal scores: reverse member order, as the inputs
}

namespace {
template <class Score, class Wide>
Score clamp_to(Wide v) {
    if (v > static_cast<Wide>(std::numeric_limits<Score>::max()))
        return std::numeric_limits<Score>::max();
    if (v < static_cast<Wide>(std::numeric_limits<Score>::lowest()))
        return std::numeric_limits<Score>::lowest();
    return static_cast<Score>(v);
}
/// The pairs of 8-bit scores whose saturating product or sum is wrong (the first one reported).
template <class Score>
std::size_t wrong_pairs() {
    using limits = std::numeric_limits<Score>;
    std::size_t wrong = 0;
    for (long a = limits::lowest(); a <= limits::max(); ++a)
        for (long b = limits::lowest(); b <= limits::max(); ++b) {
            const auto sa = static_cast<Score>(a), sb = static_cast<Score>(b);
            if ((zset::detail::multiply(sa, sb) != clamp_to<Score>(a * b) ||
                 zset::detail::add(sa, sb) != clamp_to<Score>(a + b)) &&
                wrong++ == 0)
                FAIL_CHECK("8-bit pair " << a << ", " << b);
        }
    return wrong;
}
}  // namespace

TEST_CASE("integral scores saturate exactly: every 8-bit pair, random 64-bit pairs", "[set_ops]") {
    CHECK(wrong_pairs<std::int8_t>() == 0);
    CHECK(wrong_pairs<std::uint8_t>() == 0);
    std::size_t wrong = 0;
#if defined(__SIZEOF_INT128__)
    __extension__ using i128 = __int128;
    std::mt19937_64 rng(7);
    const std::int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -3037000500, -3037000499, -2, -1, 0, 1,
                                  2,         3037000499,    3037000500,  INT64_MAX};
    const auto draw = [&]() -> std::int64_t {
        switch (rng() % 4) {
        case 0:
            return edges[rng() % std::size(edges)];
        case 1:
            return static_cast<std::int64_t>(rng());
        case 2:
            return static_cast<std::int64_t>(rng() >> (rng() % 64)) * (rng() % 2 ? 1 : -1);
        default:
            return static_cast<std::int64_t>(rng() % 2001) - 1000;
        }
    };
    for (int i = 0; i < 200000; ++i) {
        const std::int64_t a = draw(), b = draw();
        if ((zset::detail::multiply(a, b) != clamp_to<std::int64_t>(i128{a} * b) ||
             zset::detail::add(a, b) != clamp_to<std::int64_t>(i128{a} + b)) &&
            wrong++ == 0)
            FAIL_CHECK("64-bit pair " << a << ", " << b);
    }
#else
    // No 128-bit integer (32-bit targets): random 32-bit pairs, exact in 64 bits.
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200000; ++i) {
        const auto a = static_cast<std::int32_t>(rng()), b = static_cast<std::int32_t>(rng());
        if ((zset::detail::multiply(a, b) != clamp_to<std::int32_t>(std::int64_t{a} * b) ||
             zset::detail::add(a, b) != clamp_to<std::int32_t>(std::int64_t{a} + b)) &&
            wrong++ == 0)
            FAIL_CHECK("32-bit pair " << a << ", " << b);
    }
#endif
    CHECK(wrong == 0);
}

TEST_CASE("union against a brute-force fold: both encodings, repeated, missing and plain inputs",
          "[set_ops]") {
    // Listpack-mode inputs mark the ranks an earlier input counted instead of being looked up
    // (detail::counted_ranks); skiplist-mode and plain inputs are looked up. Integral scores and
    // weights keep every sum exact, so the fold's order does not matter to the reference.
    using plain = std::set<std::string, std::less<>>;
    using input = zset::set_input<set, plain>;
    std::mt19937_64 rng(20261126);
    const auto below = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const auto name = [](std::size_t i) { return "m" + std::to_string(i); };
    for (int round = 0; round < 300; ++round) {
        const std::size_t pool = 1 + below(300);  // member names drawn from m0 .. m(pool-1)
        std::vector<set> sets(1 + below(4));
        for (set& s : sets) {
            const std::size_t n = below(200);  // listpack up to 128, skiplist beyond
            for (std::size_t i = 0; i < n; ++i)
                s.add(name(below(pool)), static_cast<double>(below(21)) - 10);
        }
        plain members;
        for (std::size_t i = below(40); i > 0; --i) members.insert(name(below(pool)));
        std::vector<input> in;
        std::vector<double> weights;
        for (std::size_t k = 1 + below(5); k > 0; --k) {
            const std::size_t pick = below(sets.size() + 2);
            if (pick < sets.size())
                in.emplace_back(&sets[pick]);  // the same set may come twice
            else if (pick == sets.size())
                in.emplace_back(zset::as_members(members));
            else
                in.emplace_back(static_cast<const set*>(nullptr));  // a missing key
            weights.push_back(static_cast<double>(below(5)) - 2);
        }
        const auto agg = static_cast<zset::aggregate>(below(3));
        std::map<std::string, double> want;
        for (std::size_t k = 0; k < in.size(); ++k)
            in[k].for_each([&](std::string_view m, double s) {
                const double w = s * weights[k];
                const auto [at, fresh] = want.emplace(std::string(m), w);
                if (fresh) return;
                double& acc = at->second;
                acc = agg == zset::aggregate::sum   ? acc + w
                      : agg == zset::aggregate::min ? std::min(acc, w)
                                                    : std::max(acc, w);
            });
        list expected(want.begin(), want.end());
        std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
            return a.second < b.second || (a.second == b.second && a.first < b.first);
        });
        const auto got = zset::union_elements<set>(in, weights, agg);
        list actual;
        for (const auto& e : got) actual.emplace_back(std::string(e.member), e.score);
        INFO("round " << round << ", " << in.size() << " inputs");
        REQUIRE(actual == expected);
    }
}

TEST_CASE("set operation results take the smallest encoding that fits", "[encoding]") {
    zset::sorted_set<> big(zset::options{0, 64});
    big.add("a", 1);
    big.add("b", 2);
    REQUIRE(big.encoding() == zset::encoding::skiplist);
    const std::vector<const zset::sorted_set<>*> in{&big};
    const auto u = zset::set_union<zset::sorted_set<>>(in);
    REQUIRE(u.encoding() == zset::encoding::skiplist);  // threshold 0 never fits
    zset::sorted_set<> normal{{"a", 1}, {"b", 2}};
    zset::sorted_set<> copy(normal);
    const std::vector<const zset::sorted_set<>*> in2{&normal};
    REQUIRE(zset::set_union<zset::sorted_set<>>(in2).encoding() == zset::encoding::listpack);
}
