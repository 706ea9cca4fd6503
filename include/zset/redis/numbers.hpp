// zset::redis — number parsing and formatting with Redis's exact rules.
// SPDX-License-Identifier: MIT
//
// The argument parsers of the sorted-set commands (scores, score-range bounds, lex-range items,
// integers) and the double formatter of ZSCORE / ZINCRBY / WITHSCORES replies. Range bounds
// parse straight into the container's zset::score_bound / zset::lex_bound. The behaviour was
// checked against redis-server 7.0.15 and, for double formatting, against the Redis >= 7.2
// algorithm (util.c d2string + deps/fpconv); see tests/redis/test_protocol.cpp. Error texts
// for rejected input are in <zset/redis/errors.hpp>.
//
// Thread safety: pure functions, except that parse_score / parse_score_bound read the C
// locale's decimal point (localeconv): do not call setlocale() concurrently.
#ifndef ZSET_REDIS_NUMBERS_HPP
#define ZSET_REDIS_NUMBERS_HPP

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "../common.hpp"
#include "../detail/redis_text.hpp"

namespace zset::redis {

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

namespace detail {

using zset::detail::c_string_prefix;
using zset::detail::is_c_space;

/// True when strtod could start a conversion at `c` (after whitespace) in the "C" locale:
/// a digit, '.', a sign, or the first letter of "inf"/"infinity"/"nan".
constexpr bool may_start_c_float(char c) noexcept {
    return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == 'i' || c == 'I' ||
           c == 'n' || c == 'N';
}

/// Result of c_strtod: the value, how many bytes of the input strtod consumed (0 = no
/// conversion, in which case strtod would have left endptr at the start, before any
/// whitespace), and whether strtod set errno to ERANGE.
struct strtod_result {
    double value = 0.0;
    std::size_t consumed = 0;
    bool erange = false;
};

/// The C locale's view of the decimal point: the bytes strtod expects where "C" has '.'.
struct decimal_point {
    const char* text = ".";
    std::size_t size = 1;
    bool is_dot = true;

    /// Reads LC_NUMERIC (localeconv() on every call).
    static decimal_point current() noexcept {
        decimal_point d;
        const char* dp = std::localeconv()->decimal_point;
        if (dp == nullptr || dp[0] == '\0') return d;
        d.text = dp;
        d.size = std::strlen(dp);
        d.is_dot = dp[0] == '.' && dp[1] == '\0';
        return d;
    }
};

/// strtod(3) over `body` with '.' spelled as the locale's decimal point; returns the value and
/// sets `used` to the bytes of `body` consumed (errno is preserved, ERANGE reported).
inline double strtod_in_locale(std::string_view body, const decimal_point& dp, std::size_t& used,
                               bool& erange) {
    constexpr std::size_t small = 128;
    char local[small];
    std::string heap;
    std::size_t dots = 0;
    if (!dp.is_dot)
        for (const char c : body) dots += c == '.' ? 1 : 0;
    const std::size_t need = body.size() + dots * (dp.size - 1) + 1;
    char* buf = local;
    if (need > small) {
        heap.resize(need);
        buf = heap.data();
    }
    std::size_t w = 0;
    for (const char c : body) {
        if (!dp.is_dot && c == '.') {
            std::memcpy(buf + w, dp.text, dp.size);
            w += dp.size;
        } else {
            buf[w++] = c;
        }
    }
    buf[w] = '\0';
    const int saved_errno = errno;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(buf, &end);
    erange = errno == ERANGE;
    errno = saved_errno;
    // Map back: each consumed decimal point occupied dp.size bytes instead of one.
    const auto consumed = static_cast<std::size_t>(end - buf);
    std::size_t in = 0;
    for (std::size_t out = 0; out < consumed; ++in)
        out += (!dp.is_dot && body[in] == '.') ? dp.size : 1;
    used = in;
    return v;
}

/// Runs strtod(3) over `s` exactly as Redis does on its NUL-terminated argument, with "C" locale
/// semantics whatever the process locale is:
///  - conversion stops at an embedded NUL (only the part before it is visible to strtod);
///  - leading whitespace is the "C" set only (a Latin-1 locale might also skip 0xA0);
///  - if LC_NUMERIC's decimal point is not ".", every '.' is given to strtod as the locale's
///    decimal point and the input is cut at the first byte that begins the locale's decimal
///    point (such a byte can never be part of a "C" float), then the consumed count is mapped
///    back. localeconv() is read on every call; do not call setlocale() concurrently.
/// errno is preserved. Complexity O(|s|). Allocates only for inputs of 128 bytes or more
/// (may throw std::bad_alloc).
inline strtod_result c_strtod(std::string_view s) {
    strtod_result r;
    std::size_t lead = 0;
    while (lead < s.size() && is_c_space(s[lead])) ++lead;
    if (lead == s.size() || !may_start_c_float(s[lead])) return r;  // no conversion
    std::string_view body = c_string_prefix(s.substr(lead));
    const decimal_point dp = decimal_point::current();
    if (!dp.is_dot) body = body.substr(0, std::min(body.size(), body.find(dp.text[0])));
    std::size_t used = 0;
    r.value = strtod_in_locale(body, dp, used, r.erange);
    if (used == 0) return strtod_result{};  // no conversion
    r.consumed = lead + used;
    return r;
}

/// How many bytes of `s` the fast_float library's from_chars (general format, built with a
/// leading '+' allowed, as Redis builds it) consumes, up to the first NUL (Redis hands it a
/// NUL-terminated string); 0 when it converts nothing. `infnan` is set when what it consumed is
/// an infinity or a NaN rather than a decimal number. The grammar: an optional sign, digits
/// with an optional '.' and fraction (at least one digit in all), then an exponent when 'e' or
/// 'E' is followed by an optional sign and a digit (otherwise the 'e' is not consumed); failing
/// that, an optional '-', an optional '+', then "nan" (with an optional "(chars)") or "inf" /
/// "infinity" in any case. No leading blanks, no hexadecimal. Complexity O(|s|). No-throw.
inline std::size_t fast_float_length(std::string_view s, bool& infnan) noexcept {
    s = c_string_prefix(s);
    const std::size_t n = s.size();
    const auto digit = [&](std::size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
    infnan = false;
    std::size_t p = 0;
    if (p < n && (s[p] == '-' || s[p] == '+')) ++p;
    std::size_t digits = 0;
    while (digit(p)) ++p, ++digits;
    if (p < n && s[p] == '.') {
        ++p;
        while (digit(p)) ++p, ++digits;
    }
    if (digits > 0) {
        if (p < n && (s[p] == 'e' || s[p] == 'E')) {
            std::size_t q = p + 1;
            if (q < n && (s[q] == '-' || s[q] == '+')) ++q;
            if (digit(q)) {
                while (digit(q)) ++q;
                p = q;
            }
        }
        return p;
    }
    // Not a number: an infinity or a NaN, where the sign may be "-", "+" or "-+".
    p = 0;
    if (p < n && s[p] == '-') ++p;
    if (p < n && s[p] == '+') ++p;
    using zset::detail::ascii_iequals;
    if (n - p < 3) return 0;
    if (ascii_iequals(s.substr(p, 3), "nan")) {
        infnan = true;
        p += 3;
        if (p < n && s[p] == '(') {
            for (std::size_t q = p + 1; q < n; ++q) {
                const char c = s[q];
                if (c == ')') return q + 1;
                const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9') || c == '_';
                if (!word) break;
            }
        }
        return p;
    }
    if (!ascii_iequals(s.substr(p, 3), "inf")) return 0;
    infnan = true;
    if (n - p >= 8 && ascii_iequals(s.substr(p + 3, 5), "inity")) return p + 8;
    return p + 3;
}

/// fast_float's conversion of `s` (fast_float_length): the consumed count and the value, which
/// for a decimal number is the correctly rounded double strtod(3) also gives (+-inf past the
/// largest double, +-0 below the smallest denormal; fast_float reports these as out of range,
/// which Redis's callers do not check). erange is never set.
inline strtod_result fast_float_strtod(std::string_view s) {
    bool infnan = false;
    const std::size_t used = fast_float_length(s, infnan);
    strtod_result r;
    if (used == 0) return r;
    r.consumed = used;
    if (!infnan) {
        r.value = c_strtod(s.substr(0, used)).value;
        return r;
    }
    const bool negative = s[0] == '-';
    const char letter = s[s[0] == '-' || s[0] == '+' ? (s[1] == '+' ? 2 : 1) : 0];
    const double v = letter == 'n' || letter == 'N' ? std::numeric_limits<double>::quiet_NaN()
                                                    : std::numeric_limits<double>::infinity();
    r.value = negative ? -v : v;
    return r;
}

}  // namespace detail

/// How a server reads a score or a score-range bound (server_rules::scores in config.hpp).
enum class score_syntax : unsigned char {
    /// strtod(3) in the "C" locale (Redis before 8.0, Valkey): decimal and hexadecimal forms;
    /// see parse_score and parse_score_bound for the checks around it.
    strtod,
    /// The fast_float library (Redis 8.0 and later): decimal forms only (detail::
    /// fast_float_length), never a leading blank; a score out of the double range is kept as
    /// +-inf or +-0, since fast_float signals it without the ERANGE string2d tests.
    fast_float,
};

/// Parses a score as Redis `string2d` / `getDoubleFromObject` (ZADD, ZINCRBY, WEIGHTS).
/// Accepts exactly what strtod(3) accepts in the "C" locale when it consumes the whole string:
/// decimal and hex (`0x10`, `0x1p-3`) forms, an optional sign, `inf`/`infinity` in any case,
/// and results that underflow to a denormal (`1e-310`, `4e-324`). Rejects: the empty string,
/// leading whitespace, anything left over (trailing spaces, junk, an embedded NUL), NaN in any
/// spelling, overflow to +-HUGE_VAL (`1e400`) and underflow to zero (`1e-400`, `2e-324`).
/// Returns nullopt on rejection (reply errors::not_a_float, or errors::weight_not_float for
/// WEIGHTS). Complexity O(|s|). Allocates only for inputs of 128 bytes or more (may throw
/// std::bad_alloc).
/// With score_syntax::fast_float (Redis 8.0 and later): what detail::fast_float_length reads,
/// consuming the whole string, not NaN; "0x10" and "1e400 " are rejected, "1e400" is +inf,
/// "1e-400" is 0 and "-+inf" is -inf.
inline std::optional<double> parse_score(std::string_view s,
                                         score_syntax syntax = score_syntax::strtod) {
    if (s.empty() || detail::is_c_space(s[0])) {
        return std::nullopt;
    }
    if (syntax == score_syntax::fast_float) {
        const detail::strtod_result f = detail::fast_float_strtod(s);
        if (f.consumed != s.size() || std::isnan(f.value)) return std::nullopt;
        return f.value;
    }
    const detail::strtod_result r = detail::c_strtod(s);
    if (r.consumed != s.size() || std::isnan(r.value)) {
        return std::nullopt;
    }
    // Redis only rejects ERANGE when the result is infinite or zero: a denormal is kept.
    if (r.erange && (std::isinf(r.value) || r.value == 0.0)) {
        return std::nullopt;
    }
    return r.value;
}

/// Parses one score-range bound as Redis `zslParseRange` (ZRANGEBYSCORE, ZCOUNT,
/// ZREMRANGEBYSCORE, ZRANGE BYSCORE): an optional '(' (exclusive), then strtod(3) with no
/// range check. Because Redis only tests that strtod stopped at a NUL byte and did not produce
/// NaN, it also accepts: leading whitespace (" 1"), an empty rest ("" is inclusive 0, "(" is
/// exclusive 0), anything after an embedded NUL ("1\0x" is 1), and out-of-range values
/// ("1e400" is +inf, "1e-400" is 0). Rejected: trailing bytes ("1 ", "1e", "((1"), NaN.
/// Returns nullopt on rejection (reply errors::minmax_not_float). With score_syntax::fast_float
/// the number is read by detail::fast_float_strtod, so a leading blank and hexadecimal forms
/// are rejected too, while "", "(" and anything after a NUL still pass.
/// Complexity O(|s|). Allocates only for inputs of 128 bytes or more (may throw std::bad_alloc).
inline std::optional<zset::score_bound<double>>
parse_score_bound(std::string_view s, score_syntax syntax = score_syntax::strtod) {
    const bool exclusive = !s.empty() && s[0] == '(';
    if (exclusive) s.remove_prefix(1);
    const detail::strtod_result r =
        syntax == score_syntax::fast_float ? detail::fast_float_strtod(s) : detail::c_strtod(s);
    if ((r.consumed != s.size() && s[r.consumed] != '\0') || std::isnan(r.value))
        return std::nullopt;
    return exclusive ? zset::score_bound<double>::exclusive_of(r.value)
                     : zset::score_bound<double>::inclusive(r.value);
}

/// Parses ZRANGEBYSCORE's `min max` (both with parse_score_bound); nullopt when either is
/// rejected (reply errors::minmax_not_float). Complexity O(|min| + |max|).
inline std::optional<zset::score_range<double>>
parse_score_range(std::string_view min, std::string_view max,
                  score_syntax syntax = score_syntax::strtod) {
    const auto lo = parse_score_bound(min, syntax);
    if (!lo) return std::nullopt;
    const auto hi = parse_score_bound(max, syntax);
    if (!hi) return std::nullopt;
    zset::score_range<double> r = zset::score_range<double>::all();
    r.min = *lo;
    r.max = *hi;
    return r;
}

/// Parses one lex-range item as Redis `zslParseLexRangeItem` (ZRANGEBYLEX, ZLEXCOUNT,
/// ZREMRANGEBYLEX, ZRANGE BYLEX): "[x" inclusive, "(x" exclusive (x may be empty or binary),
/// "-" and "+" the infinities. Everything else, including the empty string, is rejected.
/// Redis tests "-"/"+" with `c[1] != '\0'` on the NUL-terminated argument, so "+\0..." also
/// counts as "+"; that quirk is reproduced. Returns nullopt on rejection (errors::lex_range).
/// Complexity O(1). No-throw.
inline std::optional<zset::lex_bound<std::string_view>> parse_lex_bound(std::string_view s) {
    using bound = zset::lex_bound<std::string_view>;
    if (s.empty()) return std::nullopt;
    switch (s[0]) {
    case '[':
        return bound::inclusive(s.substr(1));
    case '(':
        return bound::exclusive(s.substr(1));
    case '-':
    case '+':
        if (s.size() != 1 && s[1] != '\0') return std::nullopt;
        return s[0] == '-' ? bound::minus_infinity() : bound::plus_infinity();
    default:
        return std::nullopt;
    }
}

/// Parses ZRANGEBYLEX's `min max` (both with parse_lex_bound); nullopt when either is rejected
/// (reply errors::lex_range). The bounds view into the arguments. Complexity O(1).
inline std::optional<zset::lex_range<std::string_view>> parse_lex_range(std::string_view min,
                                                                        std::string_view max) {
    auto lo = parse_lex_bound(min);
    if (!lo) return std::nullopt;
    auto hi = parse_lex_bound(max);
    if (!hi) return std::nullopt;
    zset::lex_range<std::string_view> r;
    r.min = *lo;
    r.max = *hi;
    return r;
}

/// Parses a signed 64-bit integer exactly as Redis `string2ll` (ranks, LIMIT, counts, numkeys):
/// optional '-' then decimal digits with no leading zero ("0" alone is the only form of zero:
/// "-0", "00", "01" are rejected), no '+', no whitespace, at most 20 bytes, within
/// [LLONG_MIN, LLONG_MAX]. Returns nullopt on rejection (usually errors::not_integer).
/// Complexity O(|s|). No-throw.
inline std::optional<long long> parse_integer(std::string_view s) noexcept {
    return zset::detail::parse_int64(s);
}

// ---------------------------------------------------------------------------------------------
// Double formatting
// ---------------------------------------------------------------------------------------------

/// How a double is written in replies.
enum class format_style : unsigned char {
    /// Redis >= 7.2 (`d2string`): integers in [-2^62, 2^62] print as integers, other values as
    /// Grisu2's (nearly always shortest) round-trip digits in Redis's fpconv layout ("1e+19",
    /// "1.5e-7").
    shortest,
    /// Redis <= 7.0: printf("%.17g"), with "inf"/"-inf" ("0.10000000000000001").
    percent17g,
};

/// Upper bound on the length of any text format_double produces (longest real cases are
/// 25 bytes, e.g. "-1.2345678901234567e-308" or "-12345678901234567000000").
inline constexpr std::size_t max_double_chars = zset::detail::number_text_capacity;

/// Fixed-capacity result of format_double_chars: avoids a heap allocation per reply.
struct double_chars {
    char data[max_double_chars];
    std::size_t size;
    /// The formatted text (valid while this object lives).
    std::string_view view() const noexcept { return std::string_view(data, size); }
};

namespace detail {

/// Lays out shortest round-trip digits like Redis's fpconv `emit_digits`.
/// `digits` holds n significant digits d1..dn (d1 != 0) and `e10` is the
/// decimal exponent of d1, i.e. the value is d1.d2...dn x 10^e10. With k = e10 - (n - 1)
/// (value = digits x 10^k), Redis writes:
///   1. k >= 0 and e10 < n + 7 (at most 7 padding zeros): the digits then k zeros
///      ("123456789012345680000000");
///   2. k < 0 and (k > -7 or |e10| < 4): positional decimal, "0.000ddd" when e10 < 0
///      ("0.0001", "1234.5678", "0.0012345678901234567");
///   3. otherwise scientific: d1, then "." and the rest when n > 1, then 'e', the exponent sign
///      ('+' or '-') and |e10| without leading zeros ("1e+19", "1.5e-7", "5e-324").
/// Writes into out (capacity >= max_double_chars) and returns the length.
inline std::size_t emit_redis_digits(char* out, const char* digits, int n, int e10) noexcept {
    const int k = e10 - (n - 1);
    const int mag = e10 < 0 ? -e10 : e10;
    std::size_t w = 0;
    if (k >= 0 && mag < n + 7) {
        for (int i = 0; i < n; ++i) {
            out[w++] = digits[i];
        }
        for (int i = 0; i < k; ++i) {
            out[w++] = '0';
        }
        return w;
    }
    if (k < 0 && (k > -7 || mag < 4)) {
        if (e10 < 0) {
            out[w++] = '0';
            out[w++] = '.';
            for (int i = 0; i < -e10 - 1; ++i) {
                out[w++] = '0';
            }
            for (int i = 0; i < n; ++i) {
                out[w++] = digits[i];
            }
        } else {
            for (int i = 0; i < n; ++i) {
                if (i == e10 + 1) {
                    out[w++] = '.';
                }
                out[w++] = digits[i];
            }
        }
        return w;
    }
    out[w++] = digits[0];
    if (n > 1) {
        out[w++] = '.';
        for (int i = 1; i < n; ++i) {
            out[w++] = digits[i];
        }
    }
    out[w++] = 'e';
    out[w++] = e10 < 0 ? '-' : '+';
    char exp_digits[4];
    int ne = 0;
    int m = mag;
    do {
        exp_digits[ne++] = static_cast<char>('0' + m % 10);
        m /= 10;
    } while (m != 0);
    while (ne > 0) {
        out[w++] = exp_digits[--ne];
    }
    return w;
}

/// Grisu2 (F. Loitsch, "Printing Floating-Point Numbers Quickly and Accurately with Integers",
/// PLDI 2010) configured as Redis >= 7.2 uses it (deps/fpconv): 64-bit "diy" floats, cached
/// powers of ten every 8 decimal orders, target binary exponent window [-60, -32], and the
/// paper's round-weeding step. Grisu2 always round-trips but is not always the shortest or the
/// closest representation (1e23 comes out as "99999999999999990000000"); Redis prints exactly
/// these digits, so we reproduce the same arithmetic rather than use std::to_chars, which would
/// differ for roughly 1 double in 1000. This is an independent implementation from the paper;
/// the test suite checks it against Redis's own output rules.
namespace grisu {

/// An unnormalised binary floating-point value f * 2^e.
struct diy_fp {
    std::uint64_t f;
    int e;
};

inline constexpr int cached_first_k = -348;  ///< decimal exponent of cached_powers[0]
inline constexpr int cached_step_k = 8;      ///< decimal exponent step between entries

/// 10^k for k = -348, -340, ..., 340 as 64-bit significands (top bit set, rounded to nearest)
/// with binary exponents: 10^k ~= f * 2^e. Generated from exact rational arithmetic.
inline constexpr diy_fp cached_powers[] = {
    {0xFA8FD5A0081C0288u, -1220},  // 1e-348
    {0xBAAEE17FA23EBF76u, -1193},  // 1e-340
    {0x8B16FB203055AC76u, -1166},  // 1e-332
    {0xCF42894A5DCE35EAu, -1140},  // 1e-324
    {0x9A6BB0AA55653B2Du, -1113},  // 1e-316
    {0xE61ACF033D1A45DFu, -1087},  // 1e-308
    {0xAB70FE17C79AC6CAu, -1060},  // 1e-300
    {0xFF77B1FCBEBCDC4Fu, -1034},  // 1e-292
    {0xBE5691EF416BD60Cu, -1007},  // 1e-284
    {0x8DD01FAD907FFC3Cu, -980},   // 1e-276
    {0xD3515C2831559A83u, -954},   // 1e-268
    {0x9D71AC8FADA6C9B5u, -927},   // 1e-260
    {0xEA9C227723EE8BCBu, -901},   // 1e-252
    {0xAECC49914078536Du, -874},   // 1e-244
    {0x823C12795DB6CE57u, -847},   // 1e-236
    {0xC21094364DFB5637u, -821},   // 1e-228
    {0x9096EA6F3848984Fu, -794},   // 1e-220
    {0xD77485CB25823AC7u, -768},   // 1e-212
    {0xA086CFCD97BF97F4u, -741},   // 1e-204
    {0xEF340A98172AACE5u, -715},   // 1e-196
    {0xB23867FB2A35B28Eu, -688},   // 1e-188
    {0x84C8D4DFD2C63F3Bu, -661},   // 1e-180
    {0xC5DD44271AD3CDBAu, -635},   // 1e-172
    {0x936B9FCEBB25C996u, -608},   // 1e-164
    {0xDBAC6C247D62A584u, -582},   // 1e-156
    {0xA3AB66580D5FDAF6u, -555},   // 1e-148
    {0xF3E2F893DEC3F126u, -529},   // 1e-140
    {0xB5B5ADA8AAFF80B8u, -502},   // 1e-132
    {0x87625F056C7C4A8Bu, -475},   // 1e-124
    {0xC9BCFF6034C13053u, -449},   // 1e-116
    {0x964E858C91BA2655u, -422},   // 1e-108
    {0xDFF9772470297EBDu, -396},   // 1e-100
    {0xA6DFBD9FB8E5B88Fu, -369},   // 1e-92
    {0xF8A95FCF88747D94u, -343},   // 1e-84
    {0xB94470938FA89BCFu, -316},   // 1e-76
    {0x8A08F0F8BF0F156Bu, -289},   // 1e-68
    {0xCDB02555653131B6u, -263},   // 1e-60
    {0x993FE2C6D07B7FACu, -236},   // 1e-52
    {0xE45C10C42A2B3B06u, -210},   // 1e-44
    {0xAA242499697392D3u, -183},   // 1e-36
    {0xFD87B5F28300CA0Eu, -157},   // 1e-28
    {0xBCE5086492111AEBu, -130},   // 1e-20
    {0x8CBCCC096F5088CCu, -103},   // 1e-12
    {0xD1B71758E219652Cu, -77},    // 1e-4
    {0x9C40000000000000u, -50},    // 1e4
    {0xE8D4A51000000000u, -24},    // 1e12
    {0xAD78EBC5AC620000u, 3},      // 1e20
    {0x813F3978F8940984u, 30},     // 1e28
    {0xC097CE7BC90715B3u, 56},     // 1e36
    {0x8F7E32CE7BEA5C70u, 83},     // 1e44
    {0xD5D238A4ABE98068u, 109},    // 1e52
    {0x9F4F2726179A2245u, 136},    // 1e60
    {0xED63A231D4C4FB27u, 162},    // 1e68
    {0xB0DE65388CC8ADA8u, 189},    // 1e76
    {0x83C7088E1AAB65DBu, 216},    // 1e84
    {0xC45D1DF942711D9Au, 242},    // 1e92
    {0x924D692CA61BE758u, 269},    // 1e100
    {0xDA01EE641A708DEAu, 295},    // 1e108
    {0xA26DA3999AEF774Au, 322},    // 1e116
    {0xF209787BB47D6B85u, 348},    // 1e124
    {0xB454E4A179DD1877u, 375},    // 1e132
    {0x865B86925B9BC5C2u, 402},    // 1e140
    {0xC83553C5C8965D3Du, 428},    // 1e148
    {0x952AB45CFA97A0B3u, 455},    // 1e156
    {0xDE469FBD99A05FE3u, 481},    // 1e164
    {0xA59BC234DB398C25u, 508},    // 1e172
    {0xF6C69A72A3989F5Cu, 534},    // 1e180
    {0xB7DCBF5354E9BECEu, 561},    // 1e188
    {0x88FCF317F22241E2u, 588},    // 1e196
    {0xCC20CE9BD35C78A5u, 614},    // 1e204
    {0x98165AF37B2153DFu, 641},    // 1e212
    {0xE2A0B5DC971F303Au, 667},    // 1e220
    {0xA8D9D1535CE3B396u, 694},    // 1e228
    {0xFB9B7CD9A4A7443Cu, 720},    // 1e236
    {0xBB764C4CA7A44410u, 747},    // 1e244
    {0x8BAB8EEFB6409C1Au, 774},    // 1e252
    {0xD01FEF10A657842Cu, 800},    // 1e260
    {0x9B10A4E5E9913129u, 827},    // 1e268
    {0xE7109BFBA19C0C9Du, 853},    // 1e276
    {0xAC2820D9623BF429u, 880},    // 1e284
    {0x80444B5E7AA7CF85u, 907},    // 1e292
    {0xBF21E44003ACDD2Du, 933},    // 1e300
    {0x8E679C2F5E44FF8Fu, 960},    // 1e308
    {0xD433179D9C8CB841u, 986},    // 1e316
    {0x9E19DB92B4E31BA9u, 1013},   // 1e324
    {0xEB96BF6EBADF77D9u, 1039},   // 1e332
    {0xAF87023B9BF0EE6Bu, 1066},   // 1e340
};

/// The upper 64 bits of the 128-bit product, rounded half up (the paper's multiplication).
constexpr diy_fp multiply(diy_fp x, diy_fp y) noexcept {
    constexpr std::uint64_t low32 = 0xFFFFFFFFu;
    const std::uint64_t xh = x.f >> 32;
    const std::uint64_t xl = x.f & low32;
    const std::uint64_t yh = y.f >> 32;
    const std::uint64_t yl = y.f & low32;
    const std::uint64_t hh = xh * yh;
    const std::uint64_t hl = xh * yl;
    const std::uint64_t lh = xl * yh;
    const std::uint64_t ll = xl * yl;
    std::uint64_t middle = (ll >> 32) + (hl & low32) + (lh & low32);
    middle += std::uint64_t{1} << 31;  // round the discarded low half
    return diy_fp{hh + (hl >> 32) + (lh >> 32) + (middle >> 32), x.e + y.e + 64};
}

/// Shifts f left until its top bit is set.
constexpr diy_fp normalized(diy_fp x) noexcept {
    while ((x.f & (std::uint64_t{1} << 63)) == 0) {
        x.f <<= 1;
        --x.e;
    }
    return x;
}

/// Picks the cached power c = 10^k that brings `upper_e` into the window [-60, -32]
/// (upper_e + c.e + 64). Two entries can qualify; like Redis we start from the estimate
/// (int)(-(upper_e + 87) * log10(2)) and step towards the window, which decides the tie.
inline diy_fp cached_power_for(int upper_e, int& k) noexcept {
    constexpr double log10_2 = 0.30102999566398114;
    const auto estimate = static_cast<int>(-(upper_e + 87) * log10_2);
    int idx = (estimate - cached_first_k) / cached_step_k;
    for (;;) {
        const int scaled_e = upper_e + cached_powers[idx].e + 64;
        if (scaled_e < -60) {
            ++idx;
        } else if (scaled_e > -32) {
            --idx;
        } else {
            break;
        }
    }
    k = cached_first_k + idx * cached_step_k;
    return cached_powers[idx];
}

/// Moves the last generated digit towards w while that stays inside the safe interval and gets
/// closer to w (the paper's round_weed, without the Grisu3 safety check).
inline void round_weed(char* digits, int n, std::uint64_t delta, std::uint64_t rest,
                       std::uint64_t ten_kappa, std::uint64_t w_dist) noexcept {
    while (rest < w_dist && delta - rest >= ten_kappa &&
           (rest + ten_kappa < w_dist || w_dist - rest > rest + ten_kappa - w_dist)) {
        --digits[n - 1];
        rest += ten_kappa;
    }
}

/// The scaled boundaries of a finite, non-zero |v|: w = v, [lower, upper] the interval of
/// values that read back as v, all multiplied by a cached power 10^-k10 so that upper's binary
/// exponent is in [-60, -32], and narrowed by one unit each to absorb the multiplication error.
struct scaled_interval {
    diy_fp w, lower, upper;
    int k10;
};

inline scaled_interval scaled_boundaries(double v) noexcept {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    constexpr std::uint64_t hidden_bit = std::uint64_t{1} << 52;
    const std::uint64_t fraction = bits & (hidden_bit - 1);
    const auto biased_e = static_cast<int>((bits >> 52) & 0x7FF);
    // v = f * 2^e exactly.
    const diy_fp x =
        biased_e != 0 ? diy_fp{fraction + hidden_bit, biased_e - 1075} : diy_fp{fraction, 1 - 1075};
    // Boundaries half-way to the neighbours: m+ = (2f + 1) 2^(e-1); m- = (2f - 1) 2^(e-1), or
    // (4f - 1) 2^(e-2) when f is a power of two (the lower neighbour is closer).
    diy_fp upper = normalized(diy_fp{(x.f << 1) + 1, x.e - 1});
    const int lower_shift = x.f == hidden_bit ? 2 : 1;
    diy_fp lower{(x.f << lower_shift) - 1, x.e - lower_shift};
    lower.f <<= lower.e - upper.e;
    lower.e = upper.e;
    int k = 0;
    const diy_fp c = cached_power_for(upper.e, k);
    scaled_interval r{multiply(normalized(x), c), multiply(lower, c), multiply(upper, c), -k};
    ++r.lower.f;
    --r.upper.f;
    return r;
}

/// Generates the digits of a finite, non-zero |v| into `digits` (at least 20 bytes).
/// Returns the digit count n and sets `k10` so that |v| ~= digits * 10^k10.
/// Digits come from the upper boundary: the integral part first (at most 10 digits, never zero
/// because upper.f >> 60 >= 8), then fractional digits until what is left of the upper
/// boundary lies inside the interval.
inline int digits_of(double v, char* digits, int& k10) noexcept {
    const scaled_interval b = scaled_boundaries(v);
    k10 = b.k10;
    const std::uint64_t w_dist = b.upper.f - b.w.f;
    std::uint64_t delta = b.upper.f - b.lower.f;
    const int shift = -b.upper.e;  // in [32, 60]
    const std::uint64_t one = std::uint64_t{1} << shift;
    std::uint64_t integral = b.upper.f >> shift;
    std::uint64_t fractional = b.upper.f & (one - 1);
    constexpr int max_digits = 20;
    int n = 0;
    int kappa = 10;
    const auto put = [&](std::uint64_t d) {
        if ((d != 0 || n != 0) && n < max_digits) digits[n++] = static_cast<char>('0' + d);
    };
    for (std::uint64_t divisor = 1000000000; kappa > 0; divisor /= 10) {
        const std::uint64_t d = integral / divisor;
        put(d);
        integral -= d * divisor;
        --kappa;
        const std::uint64_t rest = (integral << shift) + fractional;
        if (rest <= delta) {
            k10 += kappa;
            round_weed(digits, n, delta, rest, divisor << shift, w_dist);
            return n;
        }
    }
    for (std::uint64_t scale = 10;; scale *= 10) {  // 10^(fractional digits generated so far)
        fractional *= 10;
        delta *= 10;
        --kappa;
        put(fractional >> shift);
        fractional &= one - 1;
        if (fractional < delta || n >= max_digits) {
            k10 += kappa;
            round_weed(digits, n, delta, fractional, one, w_dist * scale);
            return n;
        }
    }
}

}  // namespace grisu

}  // namespace detail

/// Formats `v` as Redis formats a double reply, into a fixed buffer (no allocation).
///  - shortest (Redis >= 7.2 `d2string`): "nan"; "inf"/"-inf"; "0"/"-0"; an integral value in
///    [-2^62, 2^62] as an integer ("100000000000000000" for 1e17); otherwise a round-trip digit
///    string laid out as Redis's fpconv_dtoa does (see detail::emit_redis_digits): "0.1",
///    "1.5e-7", "1e+19", "1.7976931348623157e+308".
///    The digits are Grisu2's, like Redis's (see detail::grisu): they always round-trip but
///    are occasionally longer than the shortest ("99999999999999990000000" for 1e23).
///  - percent17g (Redis <= 7.0): "inf"/"-inf", "nan", else exactly printf("%.17g") in the "C"
///    locale (done with std::to_chars, so LC_NUMERIC does not matter).
/// Complexity O(1). No-throw.
inline double_chars format_double_chars(double v,
                                        format_style style = format_style::shortest) noexcept {
    double_chars r{};
    char* out = r.data;
    if (std::isnan(v)) {
        std::memcpy(out, "nan", 3);
        r.size = 3;
        return r;
    }
    if (std::isinf(v)) {
        r.size = v < 0 ? 4 : 3;
        std::memcpy(out, v < 0 ? "-inf" : "inf", r.size);
        return r;
    }
    if (style == format_style::percent17g) {
        r.size = zset::detail::format_g17(out, v);
        return r;
    }
    if (v == 0.0) {
        r.size = std::signbit(v) ? 2 : 1;
        std::memcpy(out, std::signbit(v) ? "-0" : "0", r.size);
        return r;
    }
    // Redis double2ll: integral values with |v| <= LLONG_MAX / 2 (2^62 after rounding to double)
    // are printed with the integer printer.
    if (const auto as_int =
            zset::detail::integral_within(v, zset::detail::d2string_integer_bound)) {
        r.size = zset::detail::write_int64(out, *as_int);
        return r;
    }
    // Redis fpconv_dtoa: the sign, then Grisu2 digits laid out by emit_redis_digits.
    std::size_t w = 0;
    if (v < 0) {
        out[w++] = '-';
    }
    char digits[24];
    int k10 = 0;
    const int n = detail::grisu::digits_of(v, digits, k10);
    const int e10 = k10 + n - 1;
    w += detail::emit_redis_digits(out + w, digits, n, e10);
    r.size = w;
    return r;
}

/// Formats `v` as Redis formats a double reply (ZSCORE, ZINCRBY, ZADD INCR, WITHSCORES, ZMSCORE,
/// RESP3 doubles); see format_double_chars for the rules of each style.
/// Complexity O(1). Strong guarantee (may throw std::bad_alloc).
inline std::string format_double(double v, format_style style = format_style::shortest) {
    const double_chars c = format_double_chars(v, style);
    return std::string(c.data, c.size);
}

}  // namespace zset::redis

#endif  // ZSET_REDIS_NUMBERS_HPP
