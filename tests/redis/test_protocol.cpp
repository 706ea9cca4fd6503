// Tests for the container-independent Redis layer: number parsing and formatting, error texts,
// RESP encoding and the request parser. Unless a comment says otherwise, every expectation was
// checked against a live redis-server 7.0.15 (Debian), and the double texts for
// format_style::shortest against Redis >= 7.2's d2string/fpconv_dtoa rules.
#include <cfloat>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"
#include "zset_catch.hpp"
#include <zset/redis/errors.hpp>
#include <zset/redis/numbers.hpp>
#include <zset/redis/request_parser.hpp>
#include <zset/redis/resp.hpp>

using namespace std::string_literals;
using namespace std::string_view_literals;
namespace zr = zset::redis;

namespace {

using zset_test::same_double;

std::string printable(std::string_view s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 32 && c < 127) {
            out += ch;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
            out += buf;
        }
    }
    return out;
}

std::vector<std::vector<std::string>> drain(zr::request_parser& p) {
    std::vector<std::vector<std::string>> all;
    std::vector<std::string> cmd;
    while (p.next(cmd)) {
        all.push_back(cmd);
    }
    return all;
}

/// Feeds `input` one byte at a time.
void feed_bytewise(zr::request_parser& p, std::string_view input) {
    for (char c : input) {
        p.feed(&c, 1);
    }
}

using argv_list = std::vector<std::vector<std::string>>;

}  // namespace

// ---------------------------------------------------------------------------------------------
// parse_score (ZADD / ZINCRBY / WEIGHTS)
// ---------------------------------------------------------------------------------------------

TEST_CASE("parse_score accepts what Redis string2d accepts", "[redis]") {
    struct row {
        std::string_view in;
        double expected;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const row rows[] = {
        {"1", 1.0},
        {"-1", -1.0},
        {"+1", 1.0},
        {"-0", -0.0},
        {".5", 0.5},
        {"5.", 5.0},
        {"+.5e-3", 0.0005},
        {"1e+2", 100.0},
        {"1E2", 100.0},
        {"0x10", 16.0},
        {"0x1p3", 8.0},
        {"0X1P-1074", 4.9406564584124654e-324},
        {"0x1.fffffffffffffp1023", DBL_MAX},
        {"inf", inf},
        {"+inf", inf},
        {"-inf", -inf},
        {"Inf", inf},
        {"INFINITY", inf},
        {"infinity", inf},
        {"-Infinity", -inf},
        {"1.7976931348623157e308", DBL_MAX},
        // Underflow to a denormal sets ERANGE, but Redis keeps the value.
        {"1e-310", 1e-310},
        {"4e-324", 4.9406564584124654e-324},
        {"2.5e-324", 4.9406564584124654e-324},
        {"5e-324", 4.9406564584124654e-324},
        {"2.2250738585072011e-308", 2.2250738585072011e-308},
    };
    for (const row& r : rows) {
        INFO("input: " << printable(r.in));
        const std::optional<double> v = zr::parse_score(r.in);
        REQUIRE(v.has_value());
        CHECK(same_double(*v, r.expected));
    }
    // A long (heap-buffered) input is fine.
    const std::string long_input = "1." + std::string(300, '0') + "1";
    REQUIRE(zr::parse_score(long_input).has_value());
    CHECK(*zr::parse_score(long_input) == 1.0);
}

TEST_CASE("parse_score rejects what Redis string2d rejects", "[redis]") {
    const std::string_view rejected[] = {
        "",
        " 1",
        "1 ",
        "\t1",
        "\n1",
        "\v1",
        "\f1",
        "\r1",
        "\xa0\x31",  // NBSP then '1': NBSP is not a "C" locale space
        "1\n",
        "1\0"sv,
        "1\0x"sv,
        "nan",
        "NaN",
        "-nan",
        "nan(1)",
        "1e400",
        "-1e400",
        "1.7976931348623159e308",  // rounds to infinity: ERANGE
        "1e-400",
        "2e-324",
        "0x1p-1075",
        "0x1p-1076",  // underflow to zero: ERANGE
        "1e",
        "0x",
        "1,5",
        "1_0",
        "infinit",
        "infx",
        "abc",
        "--1",
        "+-1",
        "(1",
        "1.5.5",
    };
    for (std::string_view in : rejected) {
        INFO("input: " << printable(in));
        CHECK_FALSE(zr::parse_score(in).has_value());
    }
}

// ---------------------------------------------------------------------------------------------
// parse_score_bound (zslParseRange)
// ---------------------------------------------------------------------------------------------

TEST_CASE("parse_score_bound follows zslParseRange", "[redis]") {
    struct row {
        std::string_view in;
        double value;
        bool exclusive;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const row accepted[] = {
        {"1", 1.0, false},
        {"(1", 1.0, true},
        {"-inf", -inf, false},
        {"+inf", inf, false},
        {"inf", inf, false},
        {"(inf", inf, true},
        {"(-inf", -inf, true},
        {"infinity", inf, false},
        {"0x10", 16.0, false},
        {"+1", 1.0, false},
        // No ERANGE check: out-of-range values saturate.
        {"1e400", inf, false},
        {"1e-400", 0.0, false},
        {"(1e-400", 0.0, true},
        // strtod skips leading whitespace.
        {" 1", 1.0, false},
        {"( 1", 1.0, true},
        {"\t1", 1.0, false},
        {"\n0", 0.0, false},
        {"  -inf", -inf, false},
        // strtod converts nothing, and Redis only checks that it stopped at a NUL byte.
        {"", 0.0, false},
        {"(", 0.0, true},
        {"\0x"sv, 0.0, false},
        {"(\0x"sv, 0.0, true},
        {"1\0x"sv, 1.0, false},
    };
    for (const row& r : accepted) {
        INFO("input: " << printable(r.in));
        const std::optional<zset::score_bound<double>> b = zr::parse_score_bound(r.in);
        REQUIRE(b.has_value());
        CHECK(same_double(b->value, r.value));
        CHECK(b->exclusive == r.exclusive);
    }
    const std::string_view rejected[] = {"1 ", "((1", "nan", "(nan", "-nan", "x",  "1e", "1,0",
                                         " ",  "( ",  "-",   "+",    "(x",   "[1", "1)"};
    for (std::string_view in : rejected) {
        INFO("input: " << printable(in));
        CHECK_FALSE(zr::parse_score_bound(in).has_value());
    }
}

// ---------------------------------------------------------------------------------------------
// parse_lex_bound (zslParseLexRangeItem)
// ---------------------------------------------------------------------------------------------

TEST_CASE("parse_lex_bound follows zslParseLexRangeItem", "[redis]") {
    using lb = zset::lex_bound<std::string_view>;
    using kind = lb::kind;
    struct row {
        std::string_view in;
        kind type;
        std::string_view value;
    };
    const row accepted[] = {
        {"-", kind::minus_infinity, ""},
        {"+", kind::plus_infinity, ""},
        {"[a", kind::inclusive, "a"},
        {"(a", kind::exclusive, "a"},
        {"[", kind::inclusive, ""},
        {"(", kind::exclusive, ""},
        {"[\0"sv, kind::inclusive, "\0"sv},
        {"(a\xff b", kind::exclusive, "a\xff b"},
        {"[-", kind::inclusive, "-"},
        // Redis tests c[1] != '\0', so a NUL right after '+'/'-' still means infinity.
        {"+\0x"sv, kind::plus_infinity, ""},
        {"-\0"sv, kind::minus_infinity, ""},
    };
    for (const row& r : accepted) {
        INFO("input: " << printable(r.in));
        const std::optional<lb> b = zr::parse_lex_bound(r.in);
        REQUIRE(b.has_value());
        CHECK(b->type == r.type);
        if (r.type == kind::inclusive || r.type == kind::exclusive) {
            CHECK(b->value == r.value);
        }
    }
    const std::string_view rejected[] = {"", "a", "--", "++", "+a", "-a", " -", " [a", "]a"};
    for (std::string_view in : rejected) {
        INFO("input: " << printable(in));
        CHECK_FALSE(zr::parse_lex_bound(in).has_value());
    }
}

// ---------------------------------------------------------------------------------------------
// parse_integer (string2ll)
// ---------------------------------------------------------------------------------------------

TEST_CASE("parse_integer follows string2ll", "[redis]") {
    struct row {
        std::string_view in;
        long long value;
    };
    const row accepted[] = {
        {"0", 0},
        {"1", 1},
        {"-1", -1},
        {"99", 99},
        {"-99", -99},
        {"9223372036854775807", std::numeric_limits<long long>::max()},
        {"-9223372036854775808", std::numeric_limits<long long>::min()},
        {"-9223372036854775807", -9223372036854775807LL},
    };
    for (const row& r : accepted) {
        INFO("input: " << r.in);
        const std::optional<long long> v = zr::parse_integer(r.in);
        REQUIRE(v.has_value());
        CHECK(*v == r.value);
    }
    const std::string_view rejected[] = {
        "",
        "-",
        "-0",
        "00",
        "01",
        "-01",
        "+1",
        " 1",
        "1 ",
        "1.0",
        "1e3",
        "0x1",
        "1\0"sv,
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "99999999999999999999",
        "-99999999999999999999",
        "184467440737095516150",
        "00000000000000000001",
        "-00000000000000000001",
        "a",
        "1a",
    };
    for (std::string_view in : rejected) {
        INFO("input: " << printable(in));
        CHECK_FALSE(zr::parse_integer(in).has_value());
    }
}

// ---------------------------------------------------------------------------------------------
// Locale independence
// ---------------------------------------------------------------------------------------------

TEST_CASE("number parsing and formatting ignore LC_NUMERIC", "[redis]") {
    // Tries a few locales whose decimal point is ','. If none is installed the checks still run
    // in the "C" locale. (Also verified by hand with de_DE.UTF-8 and ps_AF.UTF-8, whose decimal
    // point is the two-byte U+066B, over 200000 random inputs.)
    const char* const candidates[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE",
                                      "German_Germany.1252"};
    const char* const previous = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = previous != nullptr ? previous : "C";
    bool switched = false;
    for (const char* name : candidates) {
        if (std::setlocale(LC_NUMERIC, name) != nullptr) {
            switched = true;
            break;
        }
    }
    if (!switched) {
        WARN("no locale with a ',' decimal point installed; checking the \"C\" locale only");
    }
    CHECK(zr::parse_score("1.5") == std::optional<double>(1.5));
    CHECK_FALSE(zr::parse_score("1,5").has_value());
    CHECK(zr::parse_score("0x1.8p1") == std::optional<double>(3.0));
    CHECK(zr::parse_score_bound("(2.25").has_value());
    CHECK(zr::parse_score_bound("(2.25")->value == 2.25);
    CHECK_FALSE(zr::parse_score_bound("2,25").has_value());
    CHECK(zr::format_double(1.5) == "1.5");
    CHECK(zr::format_double(0.1, zr::format_style::percent17g) == "0.10000000000000001");
    std::setlocale(LC_NUMERIC, saved.c_str());
}

// ---------------------------------------------------------------------------------------------
// Error texts
// ---------------------------------------------------------------------------------------------

TEST_CASE("error texts match redis-server", "[redis]") {
    CHECK(std::string_view(zr::errors::not_a_float) == "ERR value is not a valid float");
    CHECK(zr::errors::weight_not_float == "ERR weight value is not a float");
    CHECK(zr::errors::minmax_not_float == "ERR min or max is not a float");
    CHECK(zr::errors::lex_range == "ERR min or max not valid string range item");
    CHECK(zr::errors::not_integer == "ERR value is not an integer or out of range");
    CHECK(std::string_view(zr::errors::syntax) == "ERR syntax error");
    CHECK(std::string_view(zr::errors::xx_and_nx) ==
          "ERR XX and NX options at the same time are not compatible");
    CHECK(std::string_view(zr::errors::gt_lt_nx) ==
          "ERR GT, LT, and/or NX options at the same time are not compatible");
    CHECK(zr::errors::incr_single_pair ==
          "ERR INCR option supports a single increment-element pair");
    CHECK(std::string_view(zr::errors::nan_result) == "ERR resulting score is not a number (NaN)");
    CHECK(std::string_view(zr::errors::out_of_range_positive) ==
          "ERR value is out of range, must be positive");
    CHECK(zr::errors::out_of_range == "ERR value is out of range");
    CHECK(zr::errors::limit_needs_by ==
          "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    CHECK(zr::errors::withscores_bylex ==
          "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    CHECK(std::string_view(zr::errors::limit_negative) == "ERR LIMIT can't be negative");
    CHECK(zr::errors::numkeys_positive == "ERR numkeys should be greater than 0");
    CHECK(zr::errors::count_positive == "ERR count should be greater than 0");
    CHECK(zr::errors::invalid_cursor == "ERR invalid cursor");
    CHECK(zr::errors::timeout_not_float == "ERR timeout is not a float or out of range");
    CHECK(zr::errors::timeout_negative == "ERR timeout is negative");
    CHECK(zr::errors::wrongtype ==
          "WRONGTYPE Operation against a key holding the wrong kind of value");

    CHECK(zr::errors::wrong_arity("zadd") == "ERR wrong number of arguments for 'zadd' command");
    CHECK(zr::errors::wrong_arity("zAdD") == "ERR wrong number of arguments for 'zadd' command");
    CHECK(zr::errors::at_least_one_key("ZUNIONSTORE") ==
          "ERR at least 1 input key is needed for 'zunionstore' command");
    CHECK(zr::errors::at_least_one_key("zintercard") ==
          "ERR at least 1 input key is needed for 'zintercard' command");
}

TEST_CASE("unknown-command error matches redis-server", "[redis]") {
    using v = std::vector<std::string>;
    const std::string prefix = "ERR unknown command ";
    CHECK(zr::errors::unknown_command(v{"FOO", "a", "b"}) ==
          prefix + "'FOO', with args beginning with: 'a' 'b' ");
    CHECK(zr::errors::unknown_command(v{"foo"}) == prefix + "'foo', with args beginning with: ");
    // Arguments are added while the argument text is shorter than 128 bytes, each cut to fit.
    CHECK(zr::errors::unknown_command(v{"FOO", std::string(200, 'a'), "b"}) ==
          prefix + "'FOO', with args beginning with: '" + std::string(128, 'a') + "' ");
    CHECK(zr::errors::unknown_command(v{"FOO", std::string(100, 'a'), std::string(50, 'b'), "c"}) ==
          prefix + "'FOO', with args beginning with: '" + std::string(100, 'a') + "' '" +
              std::string(25, 'b') + "' ");
    CHECK(zr::errors::unknown_command(v{"FOO", std::string(125, 'a'), std::string(50, 'b')}) ==
          prefix + "'FOO', with args beginning with: '" + std::string(125, 'a') + "' ");
    // The name is cut to 128 bytes.
    CHECK(zr::errors::unknown_command(v{std::string(200, 'F')}) ==
          prefix + "'" + std::string(128, 'F') + "', with args beginning with: ");
    // CR/LF become spaces; values stop at a NUL byte.
    CHECK(zr::errors::unknown_command(v{"FOO\r\nX", "a\nb"}) ==
          prefix + "'FOO  X', with args beginning with: 'a b' ");
    CHECK(zr::errors::unknown_command(v{"FOO\0BAR"s, "x\0y"s, "z"}) ==
          prefix + "'FOO', with args beginning with: 'x' 'z' ");
    // Works with views too.
    const std::vector<std::string_view> views{"nope", "k"};
    CHECK(zr::errors::unknown_command(views) == prefix + "'nope', with args beginning with: 'k' ");
}

// ---------------------------------------------------------------------------------------------
// format_double
// ---------------------------------------------------------------------------------------------

TEST_CASE("format_double matches Redis reply texts", "[redis]") {
    // shortest: Redis >= 7.2 d2string. Rules, in order:
    //  (a) nan / inf / -inf / 0 / -0 are spelled out;
    //  (b) an integral value in [-2^62, 2^62] prints as an integer (double2ll + ll2string);
    //  (c) otherwise Grisu2 digits d (n of them) with decimal exponent K (value = d x 10^K) are
    //      laid out by fpconv's emit_digits: plain integer with K zeros when K >= 0 and the
    //      exponent |K+n-1| < n+7; positional decimal when K < 0 and (K > -7 or |K+n-1| < 4);
    //      else d1.d2...e(+|-)X with no exponent padding.
    // percent17g: Redis <= 7.0, printf("%.17g") (checked against 7.0.15 ZSCORE replies).
    struct row {
        double in;
        std::string_view shortest;
        std::string_view percent17g;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const row rows[] = {
        {0.0, "0", "0"},                                                           // (a)
        {-0.0, "-0", "-0"},                                                        // (a)
        {inf, "inf", "inf"},                                                       // (a)
        {-inf, "-inf", "-inf"},                                                    // (a)
        {1.0, "1", "1"},                                                           // (b)
        {-1.0, "-1", "-1"},                                                        // (b)
        {100.0, "100", "100"},                                                     // (b)
        {1e7, "10000000", "10000000"},                                             // (b)
        {1e15, "1000000000000000", "1000000000000000"},                            // (b)
        {1e16, "10000000000000000", "10000000000000000"},                          // (b)
        {1e17, "100000000000000000", "1e+17"},                                     // (b) up to 2^62
        {1e18, "1000000000000000000", "1e+18"},                                    // (b)
        {9007199254740992.0, "9007199254740992", "9007199254740992"},              // 2^53 (b)
        {9007199254740994.0, "9007199254740994", "9007199254740994"},              // 2^53+2 (b)
        {123456789012345678.0, "123456789012345680", "1.2345678901234568e+17"},    // (b)
        {4611686018427387904.0, "4611686018427387904", "4.6116860184273879e+18"},  // 2^62 (b)
        // Next double above 2^62: (c), digits "4611686018427389", K = 3 -> plain integer.
        {4611686018427388928.0, "4611686018427389000", "4.6116860184273889e+18"},
        {9223372036854775808.0, "9223372036854776000", "9.2233720368547758e+18"},  // 2^63
        {5e18, "5e+18", "5e+18"},  // (c) n = 1, K = 18: too many zeros -> scientific
        {1e19, "1e+19", "1e+19"},
        {1e21, "1e+21", "1e+21"},
        {1e22, "1e+22", "1e+22"},
        // Grisu2 is not always shortest: 1e23 is 99999999999999991611392 exactly.
        {1e23, "99999999999999990000000", "9.9999999999999992e+22"},
        {123456789012345678901234.0, "123456789012345690000000", "1.2345678901234569e+23"},
        {1e100, "1e+100", "1e+100"},
        {1.05e102, "1.05e+102", "1.05e+102"},
        {1.5e300, "1.5e+300", "1.5000000000000001e+300"},
        {1e308, "1e+308", "1e+308"},
        {DBL_MAX, "1.7976931348623157e+308", "1.7976931348623157e+308"},
        {-DBL_MAX, "-1.7976931348623157e+308", "-1.7976931348623157e+308"},
        {0.1, "0.1", "0.10000000000000001"},  // (c) K = -1 > -7: positional
        {0.2, "0.2", "0.20000000000000001"},
        {0.5, "0.5", "0.5"},
        {-1.5, "-1.5", "-1.5"},
        {2.5, "2.5", "2.5"},
        {1.1, "1.1", "1.1000000000000001"},
        {4.35, "4.35", "4.3499999999999996"},
        {1234.5678, "1234.5678", "1234.5678"},
        {1234567.125, "1234567.125", "1234567.125"},
        {12345678.9, "12345678.9", "12345678.9"},
        {3.0000000000000004, "3.0000000000000004", "3.0000000000000004"},  // K = -16, |exp| 0 < 4
        {-3.0000000000000004, "-3.0000000000000004", "-3.0000000000000004"},
        {0.30000000000000004, "0.30000000000000004", "0.30000000000000004"},
        {1.0 / 3.0, "0.3333333333333333", "0.33333333333333331"},
        {1234.5678901234, "1234.5678901234", "1234.5678901234"},     // K = -10, exp 3 < 4
        {12345.678901234, "1.2345678901234e+4", "12345.678901234"},  // K = -9, exp 4: scientific
        {12345.678, "12345.678", "12345.678"},                       // K = -3 > -7
        {0.0001, "0.0001", "0.0001"},
        {1e-5, "0.00001", "1.0000000000000001e-05"},   // K = -5 > -7
        {1.5e-5, "0.000015", "1.5e-05"},               // K = -6 > -7
        {1e-6, "0.000001", "9.9999999999999995e-07"},  // K = -6
        {-0.000001, "-0.000001", "-9.9999999999999995e-07"},
        {1.5e-6, "1.5e-6", "1.5e-06"},  // K = -7, exp 6: scientific
        {1e-7, "1e-7", "9.9999999999999995e-08"},
        {1.5e-7, "1.5e-7", "1.4999999999999999e-07"},
        {0.0012345678901234567, "0.0012345678901234567", "0.0012345678901234567"},    // exp 3
        {0.00012345678901234567, "1.2345678901234567e-4", "0.00012345678901234567"},  // exp 4
        {123e-20, "1.23e-18", "1.23e-18"},
        {1e-300, "1e-300", "1e-300"},
        {DBL_MIN, "2.2250738585072014e-308", "2.2250738585072014e-308"},
        {1e-310, "1e-310", "9.9999999999999694e-311"},
        {4.9406564584124654e-324, "5e-324", "4.9406564584124654e-324"},  // smallest denormal
    };
    for (const row& r : rows) {
        INFO("value: " << r.percent17g);
        CHECK(zr::format_double(r.in) == r.shortest);
        CHECK(zr::format_double(r.in, zr::format_style::shortest) == r.shortest);
        CHECK(zr::format_double(r.in, zr::format_style::percent17g) == r.percent17g);
        CHECK(zr::format_double_chars(r.in).view() == r.shortest);
    }
    CHECK(zr::format_double(std::numeric_limits<double>::quiet_NaN()) == "nan");
    CHECK(zr::format_double(-std::numeric_limits<double>::quiet_NaN()) == "nan");
    CHECK(zr::format_double(std::numeric_limits<double>::quiet_NaN(),
                            zr::format_style::percent17g) == "nan");
}

TEST_CASE("format_double round-trips and percent17g equals printf", "[redis]") {
    std::mt19937_64 rng(20240607);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t bits = rng();
        double v = 0;
        std::memcpy(&v, &bits, sizeof v);
        if (std::isnan(v)) {
            continue;
        }
        const std::string text = zr::format_double(v);
        INFO("value bits: " << bits << " text: " << text);
        REQUIRE(text.size() <= zr::max_double_chars);
        if (!std::isinf(v)) {
            CHECK(same_double(std::strtod(text.c_str(), nullptr), v));
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", v);
            CHECK(zr::format_double(v, zr::format_style::percent17g) == buf);
        }
        // The shortest text is also what parse_score accepts back.
        CHECK(zr::parse_score(text) == std::optional<double>(v));
    }
}

// ---------------------------------------------------------------------------------------------
// RESP encoding
// ---------------------------------------------------------------------------------------------

TEST_CASE("RESP2 and RESP3 encoding of every reply kind", "[redis]") {
    using zr::reply;
    struct row {
        reply r;
        std::string_view resp2;
        std::string_view resp3;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const row rows[] = {
        {reply::simple("OK"), "+OK\r\n", "+OK\r\n"},
        {reply::simple("a\r\nb"), "+a  b\r\n", "+a  b\r\n"},
        {reply::error("ERR syntax error"), "-ERR syntax error\r\n", "-ERR syntax error\r\n"},
        {reply::error(std::string(zr::errors::wrongtype)),
         "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
         "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
        {reply::error(""), "-ERR\r\n", "-ERR\r\n"},
        {reply::integer(0), ":0\r\n", ":0\r\n"},
        {reply::integer(-42), ":-42\r\n", ":-42\r\n"},
        {reply::integer(std::numeric_limits<long long>::min()), ":-9223372036854775808\r\n",
         ":-9223372036854775808\r\n"},
        {reply::bulk("hello"), "$5\r\nhello\r\n", "$5\r\nhello\r\n"},
        {reply::bulk(""), "$0\r\n\r\n", "$0\r\n\r\n"},
        {reply::bulk("a\r\n\0b"s), "$5\r\na\r\n\0b\r\n"sv, "$5\r\na\r\n\0b\r\n"sv},
        {reply::null(), "$-1\r\n", "_\r\n"},
        {reply(), "$-1\r\n", "_\r\n"},
        {reply::null_array(), "*-1\r\n", "_\r\n"},
        {reply::dbl(1.5), "$3\r\n1.5\r\n", ",1.5\r\n"},
        {reply::dbl(inf), "$3\r\ninf\r\n", ",inf\r\n"},
        {reply::dbl(-inf), "$4\r\n-inf\r\n", ",-inf\r\n"},
        {reply::dbl(-0.0), "$2\r\n-0\r\n", ",-0\r\n"},
        {reply::dbl(1e19), "$5\r\n1e+19\r\n", ",1e+19\r\n"},
        {reply::boolean(true), ":1\r\n", "#t\r\n"},
        {reply::boolean(false), ":0\r\n", "#f\r\n"},
        {reply::array({}), "*0\r\n", "*0\r\n"},
        {reply::array({reply::bulk("a"), reply::dbl(2.0)}), "*2\r\n$1\r\na\r\n$1\r\n2\r\n",
         "*2\r\n$1\r\na\r\n,2\r\n"},
        // ZMPOP shape: [key, [[member, score], ...]].
        {reply::array(
             {reply::bulk("k"), reply::array({reply::array({reply::bulk("m"), reply::dbl(0.5)})})}),
         "*2\r\n$1\r\nk\r\n*1\r\n*2\r\n$1\r\nm\r\n$3\r\n0.5\r\n",
         "*2\r\n$1\r\nk\r\n*1\r\n*2\r\n$1\r\nm\r\n,0.5\r\n"},
        {reply::map(
             {reply::bulk("server"), reply::bulk("zset"), reply::bulk("proto"), reply::integer(3)}),
         "*4\r\n$6\r\nserver\r\n$4\r\nzset\r\n$5\r\nproto\r\n:3\r\n",
         "%2\r\n$6\r\nserver\r\n$4\r\nzset\r\n$5\r\nproto\r\n:3\r\n"},
        {reply::map({}), "*0\r\n", "%0\r\n"},
        {reply::array({reply::null(), reply::null_array(), reply::boolean(true)}),
         "*3\r\n$-1\r\n*-1\r\n:1\r\n", "*3\r\n_\r\n_\r\n#t\r\n"},
    };
    for (const row& r : rows) {
        std::string out2;
        std::string out3;
        zr::encode_resp2(r.r, out2);
        zr::encode_resp3(r.r, out3);
        CHECK(printable(out2) == printable(r.resp2));
        CHECK(printable(out3) == printable(r.resp3));
        std::string via_encode;
        zr::encode(r.r, zr::protocol::resp3, via_encode);
        CHECK(via_encode == out3);
    }
    // Encoders append.
    std::string out = "x";
    zr::encode_resp2(reply::integer(1), out);
    CHECK(out == "x:1\r\n");
}

TEST_CASE("double replies in Redis 7.0 style", "[redis]") {
    using zr::reply;
    std::string out;
    zr::encode_resp2(reply::dbl(0.1), out, zr::format_style::percent17g);
    CHECK(out == "$19\r\n0.10000000000000001\r\n");
    out.clear();
    zr::encode_resp3(reply::dbl(0.1), out, zr::format_style::percent17g);
    CHECK(out == ",0.10000000000000001\r\n");
    out.clear();
    zr::encode_resp2(reply::dbl(1e-310), out, zr::format_style::percent17g);
    CHECK(out == "$23\r\n9.9999999999999694e-311\r\n");  // ZINCRBY k 1e-310 on 7.0.15
    out.clear();
    zr::encode_resp3(reply::dbl(0.0), out, zr::format_style::percent17g);
    CHECK(out == ",0\r\n");
}

TEST_CASE("streaming RESP writers", "[redis]") {
    std::string out;
    zr::append_array_header(out, 2);
    zr::append_bulk(out, "m");
    zr::append_double(out, 3.25, zr::protocol::resp2);
    zr::append_map_header(out, 1, zr::protocol::resp3);
    zr::append_simple(out, "k");
    zr::append_boolean(out, false, zr::protocol::resp3);
    zr::append_map_header(out, 2, zr::protocol::resp2);
    zr::append_null(out, zr::protocol::resp2);
    zr::append_null_array(out, zr::protocol::resp3);
    zr::append_integer(out, 7);
    zr::append_error(out, zr::errors::syntax);
    zr::append_double(out, -2.5, zr::protocol::resp3, zr::format_style::percent17g);
    CHECK(out == "*2\r\n$1\r\nm\r\n$4\r\n3.25\r\n%1\r\n+k\r\n#f\r\n*4\r\n$-1\r\n_\r\n:7\r\n"
                 "-ERR syntax error\r\n,-2.5\r\n");
}

TEST_CASE("reply accessors and equality", "[redis]") {
    using zr::reply;
    const reply a = reply::array({reply::bulk("x"), reply::dbl(0.0)});
    CHECK(a.type() == reply::kind::array);
    CHECK(a.elements().size() == 2);
    CHECK(a.elements()[0].text() == "x");
    CHECK(a == reply::array({reply::bulk("x"), reply::dbl(0.0)}));
    CHECK(a != reply::array({reply::bulk("x"), reply::dbl(-0.0)}));
    CHECK(reply::dbl(std::nan("")) == reply::dbl(std::nan("")));
    CHECK(reply::integer(1) != reply::boolean(true));
    CHECK(reply::bulk("a") != reply::simple("a"));
    CHECK(reply::null() != reply::null_array());
    CHECK(reply::boolean(true).as_bool());
    CHECK(reply::dbl(2.5).as_double() == 2.5);
    CHECK(reply::integer(-3).as_integer() == -3);
    // A map with an odd element count drops the dangling key.
    CHECK(reply::map({reply::bulk("k")}).elements().empty());
    reply built = reply::array({});
    built.elements().push_back(reply::integer(5));
    std::string out;
    zr::encode_resp2(built, out);
    CHECK(out == "*1\r\n:5\r\n");
}

TEST_CASE("deeply nested replies encode without recursion", "[redis]") {
    using zr::reply;
    reply r = reply::integer(1);
    for (int i = 0; i < 500; ++i) {
        std::vector<reply> one;
        one.push_back(std::move(r));
        r = reply::array(std::move(one));
    }
    std::string out;
    zr::encode_resp3(r, out);
    std::string expected;
    for (int i = 0; i < 500; ++i) {
        expected += "*1\r\n";
    }
    expected += ":1\r\n";
    CHECK(out == expected);
}

// ---------------------------------------------------------------------------------------------
// Request parser
// ---------------------------------------------------------------------------------------------

TEST_CASE("request parser: multibulk commands, whole and byte by byte", "[redis]") {
    const std::string input = "*3\r\n$4\r\nZADD\r\n$1\r\nk\r\n$0\r\n\r\n"
                              "*2\r\n$4\r\nECHO\r\n$7\r\na\r\nb\0c\r\r\n"s;
    const std::size_t first_len = 27;  // bytes of the ZADD request
    const argv_list expected{{"ZADD", "k", ""}, {"ECHO", "a\r\nb\0c\r"s}};
    SECTION("one feed") {
        zr::request_parser p;
        p.feed(input);
        CHECK(p.queued() == 2);
        CHECK(drain(p) == expected);
        CHECK(p.idle());
        CHECK_FALSE(p.failed());
    }
    SECTION("byte by byte") {
        zr::request_parser p;
        for (std::size_t i = 0; i < input.size(); ++i) {
            p.feed(input.data() + i, 1);
            const std::size_t fed = i + 1;
            const std::size_t complete =
                (fed >= first_len ? 1u : 0u) + (fed == input.size() ? 1u : 0u);
            CHECK(p.queued() == complete);
        }
        CHECK(drain(p) == expected);
        CHECK(p.idle());
    }
    SECTION("every split point") {
        for (std::size_t cut = 0; cut <= input.size(); ++cut) {
            zr::request_parser p;
            p.feed(input.data(), cut);
            p.feed(input.data() + cut, input.size() - cut);
            CHECK(drain(p) == expected);
        }
    }
}

TEST_CASE("request parser: pipelined mixed inline and multibulk", "[redis]") {
    const std::string input = "PING\r\n"
                              "*1\r\n$4\r\nPING\r\n"
                              "\r\n"       // blank inline line: skipped
                              "\n\n"       // more blank lines
                              "*0\r\n"     // empty multibulk: skipped
                              "*-1\r\n"    // negative count: skipped
                              "ECHO hi\n"  // bare \n
                              "  SET\t\tk   v  \r\n"
                              "PING\r\r\n";  // one \r is dropped, the other ends the token
    const argv_list expected{{"PING"}, {"PING"}, {"ECHO", "hi"}, {"SET", "k", "v"}, {"PING"}};
    zr::request_parser whole;
    whole.feed(input);
    CHECK(drain(whole) == expected);
    CHECK(whole.idle());
    zr::request_parser bytewise;
    feed_bytewise(bytewise, input);
    CHECK(drain(bytewise) == expected);
}

TEST_CASE("request parser: inline quoting like sdssplitargs", "[redis]") {
    struct row {
        std::string_view line;
        std::vector<std::string> argv;
    };
    const row rows[] = {
        {R"(ECHO "a\x41b")", {"ECHO", "aAb"}},
        {R"(ECHO 'it\'s')", {"ECHO", "it's"}},
        {R"(ECHO a"b c")", {"ECHO", "ab c"}},
        {R"(ECHO "")", {"ECHO", ""}},
        {R"(ECHO '')", {"ECHO", ""}},
        {R"(ECHO "\n\q\\")", {"ECHO", "\nq\\"}},
        {R"(ECHO "\r\t\b\a")", {"ECHO", "\r\t\b\a"}},
        {R"(ECHO "\x4g")", {"ECHO", "x4g"}},
        {R"(ECHO "\x")", {"ECHO", "x"}},
        {R"(ECHO "\xff\x00")", {"ECHO", "\xff\0"s}},
        {R"(ECHO 'a\nb')", {"ECHO", "a\\nb"}},
        {"ECHO \"a\rb\"", {"ECHO", "a\rb"}},
        {"ECHO a\rb", {"ECHO", "a", "b"}},
        {"ECHO a\vb", {"ECHO", "a\vb"}},
        {"ECHO a\fb", {"ECHO", "a\fb"}},
        {"\v\fECHO\t\tx  ", {"ECHO", "x"}},
        {"ECHO \"a\"\t", {"ECHO", "a"}},
        {"ECHO \"a\"\v", {"ECHO", "a"}},
        {"", {}},
        {"   ", {}},
    };
    for (const row& r : rows) {
        INFO("line: " << printable(r.line));
        std::vector<std::string> argv{"junk"};
        REQUIRE(zr::split_inline_args(r.line, argv));
        CHECK(argv == r.argv);
        // And through the parser.
        zr::request_parser p;
        p.feed(std::string(r.line) + "\r\n");
        if (r.argv.empty()) {
            CHECK_FALSE(p.has_command());
        } else {
            CHECK(drain(p) == argv_list{r.argv});
        }
        CHECK_FALSE(p.failed());
    }
    const std::string_view unbalanced[] = {R"(ECHO "a"b)", R"(ECHO "abc)", R"(ECHO 'a'b)",
                                           R"(ECHO "a\")", R"(ECHO 'abc)", R"(ECHO "\)",
                                           R"("a"")"};
    for (std::string_view line : unbalanced) {
        INFO("line: " << printable(line));
        std::vector<std::string> argv;
        CHECK_FALSE(zr::split_inline_args(line, argv));
        zr::request_parser p;
        p.feed(std::string(line) + "\r\n");
        CHECK(p.failed());
        CHECK(p.error() == "ERR Protocol error: unbalanced quotes in request");
    }
}

TEST_CASE("request parser: protocol errors", "[redis]") {
    struct row {
        std::string_view input;
        std::string_view error;
    };
    const row rows[] = {
        {"*x\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*+1\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*01\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*1 \r\n", "ERR Protocol error: invalid multibulk length"},
        {"*2147483648\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*99999999999999999999\r\n", "ERR Protocol error: invalid multibulk length"},
        {"*1\r\nfoo\r\n", "ERR Protocol error: expected '$', got 'f'"},
        {"*1\r\n $4\r\n", "ERR Protocol error: expected '$', got ' '"},
        {"*1\r\n\r\n", "ERR Protocol error: expected '$', got ' '"},    // '\r' shown as ' '
        {"*1\r\n\n\r\n", "ERR Protocol error: expected '$', got ' '"},  // '\n' shown as ' '
        {"*2\r\n$4\r\nECHO\r\n*1\r\n", "ERR Protocol error: expected '$', got '*'"},
        {"*1\r\n$-1\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$x\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$+4\r\nPING\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$04\r\nPING\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$-0\r\n", "ERR Protocol error: invalid bulk length"},
        {"*1\r\n$536870913\r\n", "ERR Protocol error: invalid bulk length"},
        {"ECHO \"abc\r\n", "ERR Protocol error: unbalanced quotes in request"},
    };
    for (const row& r : rows) {
        INFO("input: " << printable(r.input));
        for (int bytewise = 0; bytewise < 2; ++bytewise) {
            zr::request_parser p;
            if (bytewise != 0) {
                feed_bytewise(p, r.input);
            } else {
                p.feed(r.input);
            }
            CHECK(p.failed());
            CHECK(p.error() == r.error);
            CHECK_FALSE(p.has_command());
        }
    }
    CHECK(zr::errors::proto_expected_dollar('f') == "ERR Protocol error: expected '$', got 'f'");
}

TEST_CASE("request parser: commands before an error survive, input after it is ignored",
          "[redis]") {
    zr::request_parser p;
    p.feed("PING\r\n*1\r\nfoo\r\nPING\r\n");
    CHECK(p.failed());
    CHECK(p.error() == "ERR Protocol error: expected '$', got 'f'");
    CHECK(drain(p) == argv_list{{"PING"}});
    p.feed("*1\r\n$4\r\nPING\r\n");
    CHECK_FALSE(p.has_command());
    p.reset();
    CHECK_FALSE(p.failed());
    CHECK(p.error().empty());
    p.feed("*1\r\n$4\r\nPING\r\n");
    CHECK(drain(p) == argv_list{{"PING"}});
}

TEST_CASE("request parser: Redis's unchecked terminators", "[redis]") {
    // Redis skips the two bytes after a bulk payload and the byte after a count line's '\r'
    // without looking at them (verified: both inputs below answer PONG on 7.0.15).
    zr::request_parser p;
    p.feed("*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n");
    CHECK(drain(p) == argv_list{{"PING"}, {"PING"}});
    p.feed("*1\rX$4\rXPING\r\n");
    CHECK(drain(p) == argv_list{{"PING"}});
    CHECK(p.idle());
    CHECK_FALSE(p.failed());
}

TEST_CASE("request parser: NUL hides a line terminator as in Redis", "[redis]") {
    // Redis finds line ends with strchr(), which stops at a NUL byte: the connection stalls until
    // the pending line exceeds 64 KiB, then fails with the "too big" error of that line type.
    struct row {
        std::string input;
        std::string_view error;
    };
    const row rows[] = {
        {"*1\0\r\n$4\r\nPING\r\n"s, "ERR Protocol error: too big mbulk count string"},
        {"*1\r\n$4\0\r\nPING\r\n"s, "ERR Protocol error: too big bulk count string"},
        {"PI\0NG\r\n"s, "ERR Protocol error: too big inline request"},
    };
    for (const row& r : rows) {
        INFO("input: " << printable(r.input));
        zr::request_parser p;
        p.feed(r.input);
        CHECK_FALSE(p.failed());
        CHECK_FALSE(p.has_command());
        CHECK_FALSE(p.idle());
        p.feed(std::string(65536, 'x'));
        CHECK(p.failed());
        CHECK(p.error() == r.error);
        CHECK(p.pending_bytes() < 1024);
    }
}

TEST_CASE("request parser: line length limits", "[redis]") {
    const std::size_t limit = std::size_t{64} * 1024;
    SECTION("inline request") {
        zr::request_parser ok;
        ok.feed("ECHO " + std::string(limit - 6, 'a') + "\r");  // exactly 64 KiB pending
        CHECK_FALSE(ok.failed());
        ok.feed("\n");
        const argv_list got = drain(ok);
        REQUIRE(got.size() == 1);
        CHECK(got[0][1].size() == limit - 6);

        // The '\r' counts: Redis sees 64 KiB + 1 pending bytes with no '\n' yet.
        zr::request_parser cr_over;
        cr_over.feed("ECHO " + std::string(limit - 5, 'a') + "\r\n");
        CHECK(cr_over.error() == "ERR Protocol error: too big inline request");

        zr::request_parser too_big;
        too_big.feed(std::string(limit + 1, 'a'));
        CHECK(too_big.failed());
        CHECK(too_big.error() == "ERR Protocol error: too big inline request");
        CHECK(too_big.pending_bytes() < 2 * limit);

        // The limit is per line, independent of how the bytes arrive.
        zr::request_parser one_chunk;
        one_chunk.feed("ECHO " + std::string(limit, 'a') + "\r\n");
        CHECK(one_chunk.failed());
    }
    SECTION("multibulk count line") {
        zr::request_parser ok;
        ok.feed("*" + std::string(limit - 1, '1'));  // 64 KiB pending: not yet an error
        CHECK_FALSE(ok.failed());
        ok.feed("\r\n");
        CHECK(ok.error() == "ERR Protocol error: invalid multibulk length");

        zr::request_parser too_big;
        too_big.feed("*" + std::string(limit, '1'));
        CHECK(too_big.error() == "ERR Protocol error: too big mbulk count string");
    }
    SECTION("bulk count line") {
        zr::request_parser ok;
        ok.feed("*1\r\n$" + std::string(limit - 1, '1'));
        CHECK_FALSE(ok.failed());
        zr::request_parser too_big;
        too_big.feed("*1\r\n$" + std::string(limit, '1'));
        CHECK(too_big.error() == "ERR Protocol error: too big bulk count string");
    }
    SECTION("configured limits") {
        zr::request_limits limits;
        limits.max_inline_len = 16;
        limits.max_bulk_len = 3;
        limits.max_multibulk_len = 2;
        zr::request_parser p(limits);
        p.feed("*2\r\n$3\r\nabc\r\n$3\r\nxyz\r\n");
        CHECK(drain(p) == argv_list{{"abc", "xyz"}});
        p.feed("*3\r\n");
        CHECK(p.error() == "ERR Protocol error: invalid multibulk length");
        zr::request_parser q(limits);
        q.feed("*1\r\n$4\r\n");
        CHECK(q.error() == "ERR Protocol error: invalid bulk length");
        zr::request_parser r(limits);
        r.feed(std::string(17, 'a'));
        CHECK(r.error() == "ERR Protocol error: too big inline request");
    }
}

TEST_CASE("request parser: huge declared lengths do not allocate up front", "[redis]") {
    SECTION("maximal multibulk count and bulk length are accepted lazily") {
        zr::request_parser p;
        p.feed("*2147483647\r\n$536870912\r\n");
        CHECK_FALSE(p.failed());
        CHECK(p.pending_bytes() < std::size_t{256} * 1024);
        p.feed("0123456789");
        CHECK_FALSE(p.failed());
        CHECK(p.pending_bytes() < std::size_t{256} * 1024);
        CHECK_FALSE(p.has_command());
    }
    SECTION("memory follows the bytes received") {
        zr::request_parser p;
        p.feed("*1\r\n$1000000\r\n");
        const std::string chunk(1000, 'z');
        for (int i = 0; i < 100; ++i) {
            p.feed(chunk);
        }
        // 100000 bytes received of 1000000 declared.
        CHECK(p.pending_bytes() < std::size_t{400} * 1024);
        for (int i = 100; i < 1000; ++i) {
            p.feed(chunk);
        }
        p.feed("\r\n");
        std::vector<std::string> cmd;
        REQUIRE(p.next(cmd));
        REQUIRE(cmd.size() == 1);
        CHECK(cmd[0].size() == 1000000);
        CHECK(cmd[0].find_first_not_of('z') == std::string::npos);
    }
    SECTION("limits are inclusive") {
        zr::request_parser p;
        p.feed("*1\r\n$536870912\r\n");
        CHECK_FALSE(p.failed());
        zr::request_parser q;
        q.feed("*1\r\n$536870913\r\n");
        CHECK(q.error() == "ERR Protocol error: invalid bulk length");
    }
}

TEST_CASE("request parser: unauthenticated limits", "[redis]") {
    zr::request_parser p;
    p.set_authenticated(false);
    p.feed("*10\r\n");
    CHECK_FALSE(p.failed());
    zr::request_parser q;
    q.set_authenticated(false);
    q.feed("*11\r\n");
    CHECK(q.error() == "ERR Protocol error: unauthenticated multibulk length");
    zr::request_parser r;
    r.set_authenticated(false);
    r.feed("*1\r\n$16384\r\n");
    CHECK_FALSE(r.failed());
    zr::request_parser s;
    s.set_authenticated(false);
    s.feed("*1\r\n$16385\r\n");
    CHECK(s.error() == "ERR Protocol error: unauthenticated bulk length");
    // Authenticated (the default): no such limits.
    zr::request_parser t;
    t.feed("*11\r\n$16385\r\n");
    CHECK_FALSE(t.failed());
}

TEST_CASE("request parser: next() moves the argument buffers", "[redis]") {
    zr::request_parser p;
    const std::string big(100000, 'q');
    p.feed("*2\r\n$3\r\nSET\r\n$100000\r\n" + big + "\r\n");
    std::vector<std::string> cmd{"stale", "contents", "here"};
    REQUIRE(p.next(cmd));
    REQUIRE(cmd.size() == 2);
    CHECK(cmd[1] == big);
    CHECK_FALSE(p.next(cmd));
    CHECK(cmd.size() == 2);  // unchanged when nothing is queued
}

TEST_CASE("request parser: randomized chunking agrees with one-shot parsing", "[redis]") {
    // Build a long pipeline of varied valid requests, then feed it in random chunk sizes.
    std::mt19937 rng(12345);
    std::string input;
    argv_list expected;
    for (int i = 0; i < 300; ++i) {
        if (rng() % 3 == 0) {
            const std::string arg = "v" + std::to_string(rng() % 1000);
            input += "ECHO \"" + arg + "\\x21\"\r\n";
            expected.push_back({"ECHO", arg + "!"});
        } else {
            std::vector<std::string> argv{"ZADD"};
            const unsigned n = rng() % 4;
            for (unsigned j = 0; j < n; ++j) {
                std::string a(rng() % 40, '\0');
                for (char& c : a) {
                    c = static_cast<char>(rng() % 256);
                }
                argv.push_back(a);
            }
            input += "*" + std::to_string(argv.size()) + "\r\n";
            for (const std::string& a : argv) {
                input += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
            }
            expected.push_back(argv);
        }
    }
    for (int round = 0; round < 20; ++round) {
        zr::request_parser p;
        std::size_t off = 0;
        while (off < input.size()) {
            const std::size_t n = std::min<std::size_t>(1 + rng() % 64, input.size() - off);
            p.feed(input.data() + off, n);
            off += n;
        }
        CHECK(drain(p) == expected);
        CHECK(p.idle());
    }
}

// ---------------------------------------------------------------------------------------------
// score_syntax::fast_float (Redis >= 8.0; expectations from its fast_float_strtod + string2d /
// zslParseRange, checked against redis-server built from unstable, which reports 255.255.255)
// ---------------------------------------------------------------------------------------------

TEST_CASE("parse_score with fast_float syntax: decimal only, out-of-range values kept", "[redis]") {
    const auto ff = zr::score_syntax::fast_float;
    // strtod reads hexadecimal; fast_float stops at the 'x'
    CHECK(zr::parse_score("0x10").value_or(0) == 16.0);
    CHECK_FALSE(zr::parse_score("0x10", ff));
    CHECK_FALSE(zr::parse_score("0X1p3", ff));
    CHECK_FALSE(zr::parse_score("-0x1.8p1", ff));
    // string2d's ERANGE test never fires: overflow is +-inf, underflow +-0
    CHECK_FALSE(zr::parse_score("1e400"));
    CHECK(zr::parse_score("1e400", ff).value_or(0) == std::numeric_limits<double>::infinity());
    CHECK(zr::parse_score("-1e400", ff).value_or(0) == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(zr::parse_score("1e-400"));
    REQUIRE(zr::parse_score("-1e-400", ff));
    CHECK(same_double(*zr::parse_score("-1e-400", ff), -0.0));
    // fast_float's inf/nan reader takes "-" then "+"
    CHECK_FALSE(zr::parse_score("-+inf"));
    CHECK(zr::parse_score("-+inf", ff).value_or(0) == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(zr::parse_score("+-inf", ff));
    CHECK_FALSE(zr::parse_score("++1", ff));
    // what both read alike
    for (const char* s : {"1", "+5", "-0", ".5", "5.", "1E2", "1e+2", "inf", "-Infinity", "4e-324",
                          "1e-310", "123456789012345678901234567890"}) {
        INFO(s);
        REQUIRE(zr::parse_score(s, ff));
        CHECK(same_double(*zr::parse_score(s, ff), *zr::parse_score(s)));
    }
    for (const char* s : {"", " 1", "1 ", "nan", "-nan", "nan(1)", "1e", "1e+", ".", "-", "+",
                          "inf1", "infinit", "--1", "1,5"}) {
        INFO(s);
        CHECK_FALSE(zr::parse_score(s, ff));
    }
    CHECK_FALSE(zr::parse_score("1\0"sv, ff));
}

TEST_CASE("parse_score_bound with fast_float syntax: no leading blank, no hexadecimal", "[redis]") {
    const auto ff = zr::score_syntax::fast_float;
    CHECK(zr::parse_score_bound(" 1"));
    CHECK_FALSE(zr::parse_score_bound(" 1", ff));
    CHECK(zr::parse_score_bound("0x10"));
    CHECK_FALSE(zr::parse_score_bound("0x10", ff));
    CHECK_FALSE(zr::parse_score_bound("(0x1p-3", ff));
    // an empty rest is still 0, bytes after a NUL still invisible, 1e400 still +inf
    CHECK(zr::parse_score_bound("", ff));
    CHECK(zr::parse_score_bound("(", ff));
    CHECK(zr::parse_score_bound("1\0junk"sv, ff));
    CHECK(zr::parse_score_bound("1e400", ff));
    CHECK_FALSE(zr::parse_score_bound("nan", ff));
    CHECK_FALSE(zr::parse_score_range("0", "0x10", ff));
    CHECK(zr::parse_score_range("0", "0x10"));
}
