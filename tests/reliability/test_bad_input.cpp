// Bad input: every hostile or extreme input gives Redis's error text or Redis's result, and the
// set (or keyspace) is unchanged after an error. The tables here are the ones listed in
// docs/reliability.md ("Bad input"); the Redis replies were recorded from redis-server 7.0.15.
//
// Three layers: the container API (zset::error with zset::errors texts), the Redis argument
// parsers (zset::redis::parse_*), and the keyspace (zset::redis::keyspace, whole commands).
#include <zset/redis/numbers.hpp>
#include <zset/zset.hpp>

#if __has_include(<zset/redis/keyspace.hpp>)
#include <zset/redis/keyspace.hpp>
#define ZSET_TEST_HAVE_KEYSPACE 1
#endif

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"
#include "zset_catch.hpp"

namespace {

using namespace std::string_literals;
using zset::add_flags;

using zset_test::inf;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

using set = zset::sorted_set<>;
using contents_t = std::vector<std::pair<std::string, double>>;

contents_t contents(const set& s) {
    contents_t out;
    for (const auto& e : s) out.emplace_back(std::string(e.member), e.score);
    return out;
}

/// A set in listpack mode and one in skiplist mode, both holding a..c (plus fillers).
std::vector<set> sample_sets() {
    std::vector<set> out;
    out.emplace_back();
    out.back().add({{"a", 1}, {"b", 2}, {"c", 3}});
    out.emplace_back();
    for (int i = 0; i < 300; ++i) out.back().add("filler" + std::to_string(i), 100 + i);
    out.back().add({{"a", 1}, {"b", 2}, {"c", 3}});
    REQUIRE(out[0].encoding() == zset::encoding::listpack);
    REQUIRE(out[1].encoding() == zset::encoding::skiplist);
    return out;
}

/// Runs f on s, which must throw zset::error with `text`, and checks s is unchanged.
template <class F>
void require_error_unchanged(set& s, F f, const char* text) {
    const contents_t before = contents(s);
    const auto enc = s.encoding();
    REQUIRE_THROWS_WITH(f(s), text);
    REQUIRE(contents(s) == before);
    REQUIRE(s.encoding() == enc);
    REQUIRE(s.validate());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Container API
// ---------------------------------------------------------------------------------------------

TEST_CASE("bad input, container: NaN scores and incompatible flags", "[bad-input]") {
    for (set& s : sample_sets()) {
        require_error_unchanged(
            s, [](set& x) { x.add("a", not_a_number); }, zset::errors::not_a_float);
        require_error_unchanged(
            s, [](set& x) { x.add("new", not_a_number); }, zset::errors::not_a_float);
        require_error_unchanged(
            s, [](set& x) { x.add("new", -not_a_number); }, zset::errors::not_a_float);
        require_error_unchanged(
            s, [](set& x) { x.add("a", 1, add_flags::nx | add_flags::xx); },
            zset::errors::xx_and_nx);
        require_error_unchanged(
            s, [](set& x) { x.add("a", 1, add_flags::gt | add_flags::lt); },
            zset::errors::gt_lt_nx);
        require_error_unchanged(
            s, [](set& x) { x.add("a", 1, add_flags::nx | add_flags::gt); },
            zset::errors::gt_lt_nx);
        require_error_unchanged(
            s, [](set& x) { x.add("a", 1, add_flags::nx | add_flags::lt); },
            zset::errors::gt_lt_nx);
        // flags are checked before the score, as in Redis (ZADD k XX NX nan a: the flags error)
        require_error_unchanged(
            s, [](set& x) { x.add("a", not_a_number, add_flags::nx | add_flags::xx); },
            zset::errors::xx_and_nx);
        // increments: NaN delta, inf + -inf, flags
        require_error_unchanged(
            s, [](set& x) { x.increment("a", not_a_number); }, zset::errors::not_a_float);
        require_error_unchanged(
            s, [](set& x) { x.increment("new", not_a_number); }, zset::errors::not_a_float);
        s.add("pinf", inf);
        require_error_unchanged(
            s, [](set& x) { x.increment("pinf", -inf); }, zset::errors::nan_result);
        REQUIRE(s.increment("pinf", -inf, add_flags::nx) ==
                std::nullopt);  // NX: not applied, no error
        require_error_unchanged(
            s, [](set& x) { x.increment("a", 1, add_flags::xx | add_flags::nx); },
            zset::errors::xx_and_nx);
        // a batch with one NaN anywhere changes nothing, not even the pairs before it
        require_error_unchanged(
            s,
            [](set& x) {
                x.add({{"new1", 1}, {"a", 7}, {"new2", not_a_number}});
            },
            zset::errors::not_a_float);
        std::vector<std::pair<std::string, double>> many;
        for (int i = 0; i < 500; ++i) many.emplace_back("bulk" + std::to_string(i), i);
        many.emplace_back("last", not_a_number);
        require_error_unchanged(
            s, [&](set& x) { x.add(many.begin(), many.end()); }, zset::errors::not_a_float);
        require_error_unchanged(
            s, [&](set& x) { x.add(many.begin(), many.end() - 1, add_flags::nx | add_flags::xx); },
            zset::errors::xx_and_nx);
    }
}

TEST_CASE("bad input, container: integral score overflow", "[bad-input]") {
    zset::sorted_set<std::string, std::int64_t> s;
    s.add("max", INT64_MAX);
    s.add("min", INT64_MIN);
    const auto before = s;
    REQUIRE_THROWS_WITH(s.increment("max", 1), zset::errors::integer_overflow);
    REQUIRE_THROWS_WITH(s.increment("min", -1), zset::errors::integer_overflow);
    REQUIRE_THROWS_WITH(s.increment("max", INT64_MAX), zset::errors::integer_overflow);
    REQUIRE(s == before);
    REQUIRE(s.increment("max", INT64_MIN) == -1);  // in range: fine
    REQUIRE(s.increment("min", INT64_MAX) == -1);
}

TEST_CASE("bad input, container: integral scores saturate in set operations", "[bad-input]") {
    using iset = zset::sorted_set<std::string, std::int64_t>;
    const iset a{{"x", INT64_MAX}, {"y", INT64_MIN}}, b{{"x", 1}, {"y", -1}};
    const auto a_before = a;
    const std::vector<const iset*> both{&a, &b};
    const iset u = zset::set_union<iset>(both);
    REQUIRE(u.score("x") == INT64_MAX);  // INT64_MAX + 1
    REQUIRE(u.score("y") == INT64_MIN);  // INT64_MIN - 1
    const iset doubled = zset::set_union<iset>(std::vector<const iset*>{&a}, {2});
    REQUIRE(doubled.score("x") == INT64_MAX);
    REQUIRE(doubled.score("y") == INT64_MIN);
    const iset negated = zset::set_union<iset>(std::vector<const iset*>{&a}, {-1});
    REQUIRE(negated.score("x") == -INT64_MAX);
    REQUIRE(negated.score("y") == INT64_MAX);  // -INT64_MIN does not fit
    const iset inter = zset::set_intersection<iset>(both, {3, 3});
    REQUIRE(inter.score("x") == INT64_MAX);
    REQUIRE(inter.score("y") == INT64_MIN);
    REQUIRE(u.validate());
    REQUIRE(a == a_before);
}

TEST_CASE("bad input, container: huge and negative counts, ranks and limits", "[bad-input]") {
    constexpr long long lmax = LLONG_MAX, lmin = LLONG_MIN;
    for (set& s : sample_sets()) {
        const auto all = contents(s);
        const std::size_t n = s.size();
        // ZRANGE with extreme indices (Redis: whole set / empty / empty)
        REQUIRE(s.range_by_rank(lmin, lmax).size() == n);
        REQUIRE(s.range_by_rank(lmax, lmax).size() == 0);
        REQUIRE(s.range_by_rank(lmin, lmin).size() == 0);
        REQUIRE(s.range_by_rank(0, lmin).size() == 0);
        REQUIRE(s.rev_range_by_rank(lmin, lmax).size() == n);
        REQUIRE(s.rev_range_by_rank(lmax, lmin).size() == 0);
        // LIMIT: negative count = all, negative offset = nothing, huge offset = nothing
        const auto everything = zset::score_range<double>::all();
        REQUIRE(s.range_by_score(everything, {0, -1}).size() == n);
        REQUIRE(s.range_by_score(everything, {0, lmin}).size() == n);
        REQUIRE(s.range_by_score(everything, {-1, 1}).size() == 0);
        REQUIRE(s.range_by_score(everything, {lmin, lmax}).size() == 0);
        REQUIRE(s.range_by_score(everything, {lmax, lmin}).size() == 0);
        REQUIRE(s.range_by_score(everything, {lmax, lmax}).size() == 0);
        REQUIRE(s.range_by_score(everything, {0, lmax}).size() == n);
        REQUIRE(s.rev_range_by_score(everything, {lmax, 1}).size() == 0);
        REQUIRE(s.rev_range_by_score(everything, {1, lmax}).size() == n - 1);
        // inverted and empty ranges
        REQUIRE(s.count(zset::score_range<double>::closed(2, 1)) == 0);
        REQUIRE(s.count({zset::score_bound<double>::exclusive_of(1),
                         zset::score_bound<double>::exclusive_of(1)}) == 0);
        REQUIRE(s.count({zset::score_bound<double>::inclusive(inf),
                         zset::score_bound<double>::inclusive(-inf)}) == 0);
        using lb = zset::lex_bound<std::string_view>;
        REQUIRE(s.lex_count({lb::plus_infinity(), lb::minus_infinity()}) == 0);
        REQUIRE(s.lex_count({lb::exclusive("a"), lb::exclusive("a")}) == 0);
        // pops: 0 and SIZE_MAX
        REQUIRE(s.pop_min(0).empty());
        REQUIRE(contents(s) == all);
        set copy = s;
        REQUIRE(copy.pop_max(SIZE_MAX).size() == n);
        REQUIRE(copy.empty());
        REQUIRE(copy.encoding() == zset::encoding::listpack);
        // range removal with extreme ranks
        copy = s;
        REQUIRE(copy.erase_range_by_rank(lmax, lmin) == 0);
        REQUIRE(copy.erase_range_by_rank(lmin, lmin) == 0);
        REQUIRE(copy.erase_range_by_rank(lmin, lmax) == n);
        REQUIRE(copy.validate());
        REQUIRE(copy.empty());
        // random members: 0, huge positive (all, distinct); LLONG_MIN cannot be honoured
        std::mt19937_64 rng(1);
        REQUIRE(s.random_members(0, rng).empty());
        REQUIRE(s.random_members(lmax, rng).size() == n);
        REQUIRE_THROWS_AS(s.random_members(lmin, rng), std::length_error);
        REQUIRE(contents(s) == all);
        // scan with an out-of-range cursor and a zero count
        std::size_t visited = 0;
        REQUIRE(s.scan(UINT64_MAX, 0, [&](const auto&) { ++visited; }) == 0);
        std::uint64_t cursor = 0;
        do {
            cursor = s.scan(cursor, 0, [&](const auto&) { ++visited; });
        } while (cursor != 0);
        REQUIRE(visited >= n);
    }
}

TEST_CASE("bad input, container: empty, binary and huge members", "[bad-input]") {
    for (set& s : sample_sets()) {
        // empty member
        REQUIRE(s.add("", 5) == zset::add_status::added);
        REQUIRE(s.score("") == 5.0);
        REQUIRE(s.add("", 5) == zset::add_status::unchanged);
        // binary members: NUL and 0xFF bytes, ordered as unsigned bytes (memcmp), as Redis
        const std::string nul("\0"s), a_nul_b("a\0b"s), ff("\xff"s), ff_nul("\xff\0"s);
        s.add(nul, 0);
        s.add(a_nul_b, 0);
        s.add(ff, 0);
        s.add(ff_nul, 0);
        REQUIRE(s.score("a") == 1.0);  // "a\0b" is a different member
        REQUIRE(s.rank(nul) < s.rank(a_nul_b));
        REQUIRE(s.rank(a_nul_b) < s.rank(ff));
        REQUIRE(s.rank(ff) < s.rank(ff_nul));
        using lb = zset::lex_bound<std::string_view>;
        // among the score-0 members: ["\0", ("\xff") = {"\0", "a\0b"}
        const auto zeros = s.range_by_score(zset::score_range<double>::closed(0, 0));
        REQUIRE(zeros.size() == 4);
        set zero_only;
        for (const auto& e : zeros) zero_only.add(e.member, e.score);
        REQUIRE(zero_only.lex_count({lb::inclusive(nul), lb::exclusive(ff)}) == 2);
        REQUIRE(zero_only.lex_count({lb::exclusive(ff), lb::plus_infinity()}) == 1);
        REQUIRE(s.erase(a_nul_b));
        REQUIRE(s.contains(nul));
        REQUIRE(s.validate());
        // a 1 MiB member: converts a listpack (longer than max_listpack_value) and works
        const std::string huge(std::size_t{1} << 20, '\xab');
        REQUIRE(s.add(huge, 2.5) == zset::add_status::added);
        REQUIRE(s.encoding() == zset::encoding::skiplist);
        REQUIRE(s.score(huge) == 2.5);
        REQUIRE(s.add(huge, -1) == zset::add_status::updated);
        REQUIRE(s.rank(huge) == 0u);
        REQUIRE(s.validate());
        REQUIRE(s.memory_usage() > huge.size());
        set copy = s;
        REQUIRE(copy == s);
        REQUIRE(s.erase(huge));
        REQUIRE(!s.contains(huge));
        REQUIRE(s.validate());
    }
}

TEST_CASE("bad input, container: thresholds of 0", "[bad-input]") {
    set never(zset::options{0, 0});
    REQUIRE(never.add("", 1) == zset::add_status::added);  // even "" (0 bytes) over 0 entries
    REQUIRE(never.encoding() == zset::encoding::skiplist);
    never.erase("");
    REQUIRE(never.encoding() == zset::encoding::listpack);  // emptied: starts over
    set values0(zset::options{128, 0});
    values0.add("", 1);
    REQUIRE(values0.encoding() == zset::encoding::listpack);  // "" is not longer than 0
    values0.add("x", 1);
    REQUIRE(values0.encoding() == zset::encoding::skiplist);
    values0.erase("x");
    values0.shrink_to_fit();
    REQUIRE(values0.encoding() == zset::encoding::listpack);
    for (int i = 0; i < 1000; ++i) never.add(std::to_string(i), i % 7);
    REQUIRE(never.validate());
    never.shrink_to_fit();
    REQUIRE(never.encoding() == zset::encoding::skiplist);  // 0 entries: never fits
    REQUIRE(never.size() == 1000);
    const auto merged = zset::set_union<set>(std::vector<const set*>{&never, &values0});
    REQUIRE(merged.encoding() == zset::encoding::skiplist);
    REQUIRE(merged.validate());
}

TEST_CASE("bad input, container: set operation arguments", "[bad-input]") {
    auto sets = sample_sets();
    const std::vector<const set*> in{&sets[0], &sets[1]};
    const auto a = contents(sets[0]);
    const auto b = contents(sets[1]);
    REQUIRE_THROWS_WITH(zset::set_union<set>(in, {1.0}), zset::errors::syntax);
    REQUIRE_THROWS_WITH(zset::set_union<set>(in, {1.0, 2.0, 3.0}), zset::errors::syntax);
    REQUIRE_THROWS_WITH(zset::set_intersection<set>(in, {1.0}), zset::errors::syntax);
    REQUIRE(contents(sets[0]) == a);
    REQUIRE(contents(sets[1]) == b);
    // weights of inf, -inf, 0 and NaN products: a NaN becomes 0 (Redis's rule)
    const auto u = zset::set_union<set>(in, {inf, 0.0});
    REQUIRE(u.validate());
    REQUIRE(u.score("a") == inf);  // inf * 1 + 0 * 1
    const auto z = zset::set_union<set>(std::vector<const set*>{&sets[0]}, {0.0});
    for (const auto& e : z) REQUIRE(e.score == 0.0);
    set pinf{{"x", inf}}, ninf{{"x", -inf}};
    const auto sum = zset::set_union<set>(std::vector<const set*>{&pinf, &ninf});
    REQUIRE(sum.score("x") == 0.0);  // inf + -inf is 0, not NaN
    const auto nan_weight = zset::set_union<set>(std::vector<const set*>{&pinf}, {0.0});
    REQUIRE(nan_weight.score("x") == 0.0);  // inf * 0 is 0, not NaN
    // missing keys (nullptr) and empty inputs
    REQUIRE(zset::set_union<set>(std::vector<const set*>{nullptr, nullptr}).empty());
    REQUIRE(zset::set_intersection<set>(std::vector<const set*>{&sets[0], nullptr}).empty());
    REQUIRE(zset::set_difference<set>(std::vector<const set*>{nullptr, &sets[0]}).empty());
    REQUIRE(zset::intersection_cardinality<set>(std::vector<const set*>{&sets[0], &sets[1]}, 0) ==
            3);
    REQUIRE(zset::intersection_cardinality<set>(std::vector<const set*>{&sets[0], &sets[1]}, 2) ==
            2);
    REQUIRE(zset::intersection_cardinality<set>(std::vector<const set*>{&sets[0], &sets[1]},
                                                SIZE_MAX) == 3);
}

// ---------------------------------------------------------------------------------------------
// Redis argument parsers
// ---------------------------------------------------------------------------------------------

namespace {
struct score_case {
    std::string text;
    bool ok;
    double value;  // when ok
};
using zset_test::same_double;
}  // namespace

TEST_CASE("bad input, redis: scores (ZADD, ZINCRBY, WEIGHTS)", "[bad-input]") {
    const score_case cases[] = {
        // NaN in every spelling strtod knows
        {"nan", false, 0},
        {"NaN", false, 0},
        {"-nan", false, 0},
        {"+nan", false, 0},
        {"nan(123)", false, 0},
        // junk
        {"", false, 0},
        {" 1", false, 0},
        {"\t1", false, 0},
        {"1 ", false, 0},
        {"1x", false, 0},
        {"1.5.5", false, 0},
        {"--1", false, 0},
        {"1e", false, 0},
        {"e5", false, 0},
        {"abc", false, 0},
        {"0x", false, 0},
        {"1\0"s, false, 0},
        {"1\0002"s, false, 0},
        {"\xff"s, false, 0},
        {"(1", false, 0},
        // ERANGE: overflow and underflow to zero are refused, a denormal result is kept
        {"1e400", false, 0},
        {"-1e400", false, 0},
        {"1e-400", false, 0},
        {"2e-324", false, 0},
        {"1e-310", true, 1e-310},
        {"4e-324", true, 4.9406564584124654e-324},
        {"-1e-310", true, -1e-310},
        // hex, signs, infinities, forms strtod accepts
        {"0x10", true, 16},
        {"0x1p-3", true, 0.125},
        {"-0x1.8p1", true, -3},
        {"0X1P4", true, 16},
        {"inf", true, inf},
        {"-inf", true, -inf},
        {"+inf", true, inf},
        {"Infinity", true, inf},
        {"-INFINITY", true, -inf},
        {"+1", true, 1},
        {"-0", true, -0.0},
        {".5", true, 0.5},
        {"5.", true, 5},
        {"1e308", true, 1e308},
        {"1.7976931348623157e308", true, 1.7976931348623157e308},
        // long inputs (the parser copies inputs of 128 bytes or more to the heap)
        {std::string(200, '1'), true, not_a_number},  // nan: expect what strtod gives
        {"0." + std::string(300, '0') + "1", true, 1e-301},
        {std::string(200, '1') + "x", false, 0},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto r = zset::redis::parse_score(c.text);
        REQUIRE(r.has_value() == c.ok);
        if (c.ok)
            REQUIRE(same_double(*r, std::isnan(c.value) ? std::strtod(c.text.c_str(), nullptr)
                                                        : c.value));
    }
    REQUIRE(zset::redis::errors::not_a_float == std::string_view(zset::errors::not_a_float));
}

TEST_CASE("bad input, redis: score range bounds (ZRANGEBYSCORE, ZCOUNT, ...)", "[bad-input]") {
    struct bound_case {
        std::string text;
        bool ok;
        double value;
        bool exclusive;
    };
    const bound_case cases[] = {
        {"1", true, 1, false},
        {"(1", true, 1, true},
        {"-inf", true, -inf, false},
        {"(+inf", true, inf, true},
        // zslParseRange quirks, as Redis: leading blanks, empty, anything after a NUL, no ERANGE
        {" 1", true, 1, false},
        {"", true, 0, false},
        {"(", true, 0, true},
        {"1\0x"s, true, 1, false},
        {"1e400", true, inf, false},
        {"-1e400", true, -inf, false},
        {"1e-400", true, 0, false},
        {"0x10", true, 16, false},
        // rejected: trailing bytes, doubled '(', '[', NaN
        {"1 ", false, 0, false},
        {"((1", false, 0, false},
        {"[1", false, 0, false},
        {"1e", false, 0, false},
        {"nan", false, 0, false},
        {"(nan", false, 0, false},
        {"x", false, 0, false},
        {"+", false, 0, false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto r = zset::redis::parse_score_bound(c.text);
        REQUIRE(r.has_value() == c.ok);
        if (c.ok) {
            REQUIRE(same_double(r->value, c.value));
            REQUIRE(r->exclusive == c.exclusive);
        }
    }
}

TEST_CASE("bad input, redis: lex range items (ZRANGEBYLEX, ZLEXCOUNT, ...)", "[bad-input]") {
    using lb = zset::lex_bound<std::string_view>;
    using kind = lb::kind;
    struct lex_case {
        std::string text;
        bool ok;
        kind type;
        std::string value;
    };
    const lex_case cases[] = {
        {"[a", true, kind::inclusive, "a"},
        {"(a", true, kind::exclusive, "a"},
        {"[", true, kind::inclusive, ""},
        {"(", true, kind::exclusive, ""},
        {"-", true, kind::minus_infinity, ""},
        {"+", true, kind::plus_infinity, ""},
        {"+\0x"s, true, kind::plus_infinity, ""},  // Redis tests c[1] on the C string
        {"[\0\xff"s, true, kind::inclusive, "\0\xff"s},
        {"[" + std::string(1 << 20, 'x'), true, kind::inclusive, std::string(1 << 20, 'x')},
        {"", false, kind::inclusive, ""},
        {"a", false, kind::inclusive, ""},
        {"-a", false, kind::inclusive, ""},
        {"++", false, kind::inclusive, ""},
        {"+-", false, kind::inclusive, ""},
        {"1", false, kind::inclusive, ""},
        {"\0"s, false, kind::inclusive, ""},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text.substr(0, 16));
        const auto r = zset::redis::parse_lex_bound(c.text);
        REQUIRE(r.has_value() == c.ok);
        if (c.ok) {
            REQUIRE(r->type == c.type);
            if (c.type == kind::inclusive || c.type == kind::exclusive)
                REQUIRE(r->value == c.value);
        }
    }
}

TEST_CASE("bad input, redis: integers (ranks, LIMIT, counts, numkeys)", "[bad-input]") {
    struct int_case {
        std::string text;
        bool ok;
        long long value;
    };
    const int_case cases[] = {
        {"0", true, 0},
        {"-1", true, -1},
        {"9223372036854775807", true, LLONG_MAX},
        {"-9223372036854775808", true, LLONG_MIN},
        {"9223372036854775808", false, 0},
        {"-9223372036854775809", false, 0},
        {"99999999999999999999", false, 0},
        {"123456789012345678901", false, 0},
        {"18446744073709551616", false, 0},
        {"-0", false, 0},
        {"00", false, 0},
        {"01", false, 0},
        {"+1", false, 0},
        {" 1", false, 0},
        {"1 ", false, 0},
        {"", false, 0},
        {"-", false, 0},
        {"1.0", false, 0},
        {"1e3", false, 0},
        {"0x10", false, 0},
        {"1\0"s, false, 0},
        {"\xff"s, false, 0},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto r = zset::redis::parse_integer(c.text);
        REQUIRE(r.has_value() == c.ok);
        if (c.ok) REQUIRE(*r == c.value);
    }
}

// ---------------------------------------------------------------------------------------------
// Keyspace: whole commands, replies byte for byte as redis-server 7.0.15 sends them (RESP2,
// %.17g doubles), and nothing changes after an error.
// ---------------------------------------------------------------------------------------------

#if defined(ZSET_TEST_HAVE_KEYSPACE)

namespace {

struct keyspace_fixture {
    zset::redis::keyspace ks;
    zset::redis::session session;

    keyspace_fixture() : ks(options()) {
        run({"ZADD", "k", "1", "a", "2", "b", "3", "c"});
        run({"ZADD", "big", "0", "x"});
        std::vector<std::string> argv{"ZADD", "big"};
        for (int i = 0; i < 300; ++i) {
            argv.push_back(std::to_string(i));
            argv.push_back("m" + std::to_string(i));
        }
        run(argv);
        run({"SET", "str", "v"});
    }
    static zset::redis::keyspace_options options() {
        zset::redis::keyspace_options o;
        o.double_format = zset::redis::format_style::percent17g;  // as Redis 7.0
        return o;
    }
    std::string run(const std::vector<std::string>& argv) {
        std::string out;
        ks.execute(argv, session, out);
        return out;
    }
    /// Everything the keyspace holds, as replies (compared before and after an error).
    std::string state() {
        std::string out;
        for (const char* key : {"k", "big", "e", "b", "h"}) {
            out += run({"ZRANGE", key, "0", "-1", "WITHSCORES"});
            out += run({"OBJECT", "ENCODING", key});
        }
        out += run({"DBSIZE"});
        return out;
    }
};

struct command_case {
    std::vector<std::string> argv;
    std::string reply;
};

std::string err(std::string_view text) {
    return "-" + std::string(text) + "\r\n";
}

}  // namespace

TEST_CASE("bad input, keyspace: errors leave every key unchanged", "[bad-input]") {
    keyspace_fixture f;
    const std::string not_float = err("ERR value is not a valid float");
    const std::string not_int = err("ERR value is not an integer or out of range");
    const std::string minmax = err("ERR min or max is not a float");
    const std::string lex = err("ERR min or max not valid string range item");
    const std::string syntax = err("ERR syntax error");
    const command_case cases[] = {
        // scores
        {{"ZADD", "k", "nan", "x"}, not_float},
        {{"ZADD", "k", "NaN", "x"}, not_float},
        {{"ZADD", "k", "-nan", "x"}, not_float},
        {{"ZADD", "k", "1e400", "x"}, not_float},
        {{"ZADD", "k", "-1e400", "x"}, not_float},
        {{"ZADD", "k", "1e-400", "x"}, not_float},
        {{"ZADD", "k", " 1", "x"}, not_float},
        {{"ZADD", "k", "1 ", "x"}, not_float},
        {{"ZADD", "k", "", "x"}, not_float},
        {{"ZADD", "k", "1x", "x"}, not_float},
        {{"ZADD", "k", "1\0"s, "x"}, not_float},
        {{"ZADD", "k", "1", "a", "nan", "b"}, not_float},
        {{"ZADD", "big", "1", "new", "nan", "b"}, not_float},
        {{"ZADD", "k", "1"}, err("ERR wrong number of arguments for 'zadd' command")},
        {{"ZADD", "k", "1", "a", "2"}, syntax},
        {{"ZADD", "k", "NX", "XX", "1", "a"},
         err("ERR XX and NX options at the same time are not compatible")},
        {{"ZADD", "k", "XX", "NX", "nan", "a"},
         err("ERR XX and NX options at the same time are not compatible")},
        {{"ZADD", "k", "GT", "LT", "1", "a"},
         err("ERR GT, LT, and/or NX options at the same time are not compatible")},
        {{"ZADD", "k", "NX", "GT", "1", "a"},
         err("ERR GT, LT, and/or NX options at the same time are not compatible")},
        {{"ZADD", "k", "INCR", "1", "a", "2", "b"},
         err("ERR INCR option supports a single increment-element pair")},
        {{"ZINCRBY", "k", "nan", "a"}, not_float},
        {{"ZINCRBY", "k", "abc", "a"}, not_float},
        {{"ZADD", "str", "1", "a"},
         err("WRONGTYPE Operation against a key holding the wrong kind of value")},
        // score ranges
        {{"ZRANGEBYSCORE", "k", "nan", "1"}, minmax},
        {{"ZRANGEBYSCORE", "k", "(nan", "1"}, minmax},
        {{"ZRANGEBYSCORE", "k", "((1", "2"}, minmax},
        {{"ZRANGEBYSCORE", "k", "[1", "2"}, minmax},
        {{"ZRANGEBYSCORE", "k", "1 ", "2"}, minmax},
        {{"ZREMRANGEBYSCORE", "k", "nan", "1"}, minmax},
        {{"ZREMRANGEBYSCORE", "big", "-inf", "x"}, minmax},
        // lex ranges
        {{"ZRANGEBYLEX", "k", "a", "b"}, lex},
        {{"ZRANGEBYLEX", "k", "", "+"}, lex},
        {{"ZRANGEBYLEX", "k", "-a", "+"}, lex},
        {{"ZREMRANGEBYLEX", "k", "x", "+"}, lex},
        // integers: junk, LONG_MAX + 1, leading zero, '+', "-0"
        {{"ZRANGE", "k", "0", "x"}, not_int},
        {{"ZRANGE", "k", "0", "9223372036854775808"}, not_int},
        {{"ZRANGE", "k", "01", "2"}, not_int},
        {{"ZRANGE", "k", "+1", "2"}, not_int},
        {{"ZRANGE", "k", "-0", "2"}, not_int},
        {{"ZREMRANGEBYRANK", "k", "x", "1"}, not_int},
        {{"ZRANGE", "k", "0", "-1", "LIMIT", "0", "1"},
         err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
             "BYLEX")},
        {{"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "1"}, syntax},
        {{"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "0", "x"}, not_int},
        // counts
        {{"ZPOPMIN", "k", "-1"}, err("ERR value is out of range, must be positive")},
        {{"ZPOPMIN", "k", "x"}, err("ERR value is out of range, must be positive")},
        {{"ZRANDMEMBER", "k", "-9223372036854775808"},
         err("ERR value is out of range, value must between -9223372036854775807 and "
             "9223372036854775807")},
        {{"ZRANDMEMBER", "k", "-4611686018427387904", "WITHSCORES"},
         err("ERR value is out of range")},
        {{"ZRANDMEMBER", "k", "x"}, not_int},
        {{"ZMPOP", "0", "k", "MIN"}, err("ERR numkeys should be greater than 0")},
        {{"ZMPOP", "1", "k", "MIN", "COUNT", "0"}, err("ERR count should be greater than 0")},
        {{"ZMPOP", "1", "k", "MID"}, syntax},
        // set operations
        {{"ZUNION", "0", "k"}, err("ERR at least 1 input key is needed for 'zunion' command")},
        {{"ZUNION", "-1", "k"}, err("ERR at least 1 input key is needed for 'zunion' command")},
        {{"ZUNION", "2", "k"}, syntax},
        {{"ZUNION", "9223372036854775807", "k"}, syntax},
        {{"ZUNION", "1", "k", "WEIGHTS", "nan"}, err("ERR weight value is not a float")},
        {{"ZUNION", "1", "k", "WEIGHTS", "1", "2"}, syntax},
        {{"ZUNION", "1", "k", "AGGREGATE", "AVG"}, syntax},
        {{"ZUNIONSTORE", "k", "1", "big", "WEIGHTS", "x"}, err("ERR weight value is not a float")},
        {{"ZINTERCARD", "1", "k", "LIMIT", "-1"}, err("ERR LIMIT can't be negative")},
        {{"ZINTERCARD", "0", "k"},
         err("ERR at least 1 input key is needed for 'zintercard' command")},
        // cursors and timeouts
        {{"ZSCAN", "k", "x"}, err("ERR invalid cursor")},
        {{"ZSCAN", "k", "18446744073709551616"}, err("ERR invalid cursor")},
        {{"ZSCAN", "k", "0", "COUNT", "0"}, syntax},
        {{"BZPOPMIN", "k", "-1"}, err("ERR timeout is negative")},
        {{"BZPOPMIN", "k", "nan"}, err("ERR timeout is not a float or out of range")},
    };
    const std::string before = f.state();
    for (const auto& c : cases) {
        std::string shown;
        for (const auto& a : c.argv) shown += a + " ";
        CAPTURE(shown);
        REQUIRE(f.run(c.argv) == c.reply);
        REQUIRE(f.state() == before);
    }
}

TEST_CASE("bad input, keyspace: extreme values give Redis's results", "[bad-input]") {
    keyspace_fixture f;
    const std::string abc = "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n";
    const command_case cases[] = {
        // forms strtod accepts; ERANGE denormals kept; -0 stored as 0 in a listpack
        {{"ZADD", "h", "0x10", "hex", "1e-310", "denorm", "4e-324", "tiny", "inf", "pinf", "-inf",
          "ninf", "-0", "negzero"},
         ":6\r\n"},
        {{"ZSCORE", "h", "hex"}, "$2\r\n16\r\n"},
        {{"ZSCORE", "h", "denorm"}, "$23\r\n9.9999999999999694e-311\r\n"},
        {{"ZSCORE", "h", "tiny"}, "$23\r\n4.9406564584124654e-324\r\n"},
        {{"ZSCORE", "h", "negzero"}, "$1\r\n0\r\n"},
        {{"ZINCRBY", "h", "-inf", "pinf"}, "-ERR resulting score is not a number (NaN)\r\n"},
        // score bounds Redis accepts
        {{"ZRANGEBYSCORE", "k", " 1", "2"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
        {{"ZRANGEBYSCORE", "k", "(", "+inf"}, abc},
        {{"ZRANGEBYSCORE", "k", "", "+inf"}, abc},
        {{"ZRANGEBYSCORE", "k", "1e400", "+inf"}, "*0\r\n"},
        {{"ZRANGEBYSCORE", "k", "-1e400", "1e-400"}, "*0\r\n"},
        {{"ZRANGEBYSCORE", "k", "1\0x"s, "5"}, abc},
        {{"ZCOUNT", "k", "2", "1"}, ":0\r\n"},
        // lex items Redis accepts
        {{"ZRANGEBYLEX", "k", "+", "-"}, "*0\r\n"},
        {{"ZRANGEBYLEX", "k", "[", "+"}, abc},
        {{"ZRANGEBYLEX", "k", "-", "+\0x"s}, abc},
        {{"ZLEXCOUNT", "k", "(a", "(a"}, ":0\r\n"},
        // LONG_MAX / LONG_MIN ranks and limits
        {{"ZRANGE", "k", "-9223372036854775808", "9223372036854775807"}, abc},
        {{"ZRANGE", "k", "9223372036854775807", "9223372036854775807"}, "*0\r\n"},
        {{"ZRANGE", "k", "-9223372036854775808", "-9223372036854775808"}, "*0\r\n"},
        {{"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "0", "-1"}, abc},
        {{"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "-1", "1"}, "*0\r\n"},
        {{"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "9223372036854775807",
          "-9223372036854775808"},
         "*0\r\n"},
        {{"ZPOPMIN", "k", "0"}, "*0\r\n"},
        {{"ZPOPMIN", "nokey", "9223372036854775807"}, "*0\r\n"},
        {{"ZRANDMEMBER", "k", "0"}, "*0\r\n"},
        // ZSCAN takes any strtoull cursor, "-1" included (Redis 7.0 does)
        {{"ZSCAN", "k", "-1"},
         "*2\r\n$1\r\n0\r\n*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$"
         "1\r\n3\r\n"},
        // empty and binary members
        {{"ZADD", "e", "1", ""}, ":1\r\n"},
        {{"ZSCORE", "e", ""}, "$1\r\n1\r\n"},
        {{"ZADD", "b", "1", "a\0b"s, "2", "\xff", "0", "\0"s}, ":3\r\n"},
        {{"ZRANGE", "b", "0", "-1"}, "*3\r\n$1\r\n\0\r\n$3\r\na\0b\r\n$1\r\n\xff\r\n"s},
        {{"ZRANGEBYLEX", "b", "[\0"s, "(\xff"}, "*2\r\n$1\r\n\0\r\n$3\r\na\0b\r\n"s},
        {{"ZRANK", "b", "a\0b"s}, ":1\r\n"},
        {{"ZSCORE", "b", "a"}, "$-1\r\n"},
    };
    for (const auto& c : cases) {
        std::string shown;
        for (const auto& a : c.argv) shown += a + " ";
        CAPTURE(shown);
        REQUIRE(f.run(c.argv) == c.reply);
    }
    // ZRANDMEMBER with a negative count beyond the keyspace's cap: an error, not a huge reply
    // (redis-server 7.0.15 tries to build it; with -9223372036854775807 it exhausts memory)
    const std::string capped = f.run({"ZRANDMEMBER", "k", "-9223372036854775807"});
    REQUIRE(capped == "-ERR value is out of range\r\n");
    // a 1 MiB member converts the set and round-trips
    const std::string huge(std::size_t{1} << 20, 'Z');
    REQUIRE(f.run({"ZADD", "k", "5", huge}) == ":1\r\n");
    REQUIRE(f.run({"OBJECT", "ENCODING", "k"}) == "$8\r\nskiplist\r\n");
    REQUIRE(f.run({"ZSCORE", "k", huge}) == "$1\r\n5\r\n");
    REQUIRE(f.run({"ZRANGE", "k", "-1", "-1"}) == "*1\r\n$1048576\r\n" + huge + "\r\n");
    // thresholds of 0 (CONFIG SET zset-max-listpack-entries 0)
    f.ks.set_listpack_limits(0, 0);
    REQUIRE(f.run({"ZADD", "z0", "1", ""}) == ":1\r\n");
    REQUIRE(f.run({"OBJECT", "ENCODING", "z0"}) == "$8\r\nskiplist\r\n");
}

#endif  // ZSET_TEST_HAVE_KEYSPACE
