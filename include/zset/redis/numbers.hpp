// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// Number parsing and formatting with Redis's exact rules, plus Redis's error texts.
//
// Everything here is independent of the container: these are the argument parsers the
// sorted-set commands use (scores, score ranges, lex ranges, integers), the double
// formatter used for ZSCORE / ZINCRBY / WITHSCORES replies, and the error strings Redis sends.
// The behaviour was checked against redis-server 7.0.15 and, for double formatting, against
// the Redis >= 7.2 algorithm (util.c d2string + deps/fpconv); see tests/test_redis_protocol.cpp.
#ifndef ZSET_REDIS_NUMBERS_HPP
#define ZSET_REDIS_NUMBERS_HPP

#include <cerrno>
#include <charconv>
#include <climits>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace zset::redis {

// ---------------------------------------------------------------------------------------------
// Error texts
// ---------------------------------------------------------------------------------------------
// Each constant is the full error line without the leading '-' and trailing CRLF, exactly as
// redis-server sends it (verified against 7.0.15; unchanged in 7.2/7.4).

/// ZADD / ZINCRBY score that is not a valid double (`string2d` failed).
inline constexpr std::string_view err_not_float = "ERR value is not a valid float";
/// ZUNION/ZINTER(STORE) WEIGHTS value that is not a valid double.
inline constexpr std::string_view err_weight_not_float = "ERR weight value is not a float";
/// Score range bound (ZRANGEBYSCORE, ZCOUNT, ...) that `zslParseRange` rejects.
inline constexpr std::string_view err_minmax_not_float = "ERR min or max is not a float";
/// Lex range item (ZRANGEBYLEX, ZLEXCOUNT, ...) that is not `[x`, `(x`, `-` or `+`.
inline constexpr std::string_view err_lex_range = "ERR min or max not valid string range item";
/// Integer argument (rank, LIMIT offset/count, numkeys, ...) that `string2ll` rejects.
inline constexpr std::string_view err_not_integer = "ERR value is not an integer or out of range";
/// Generic syntax error (unknown option, odd score/member count, ...).
inline constexpr std::string_view err_syntax = "ERR syntax error";
/// ZADD with both NX and XX.
inline constexpr std::string_view err_xx_and_nx =
    "ERR XX and NX options at the same time are not compatible";
/// ZADD with two of GT, LT, NX.
inline constexpr std::string_view err_gt_lt_nx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
/// ZADD INCR with more than one score/member pair.
inline constexpr std::string_view err_incr_single_pair =
    "ERR INCR option supports a single increment-element pair";
/// ZINCRBY / ZADD INCR whose result would be NaN (inf + -inf).
inline constexpr std::string_view err_nan_result = "ERR resulting score is not a number (NaN)";
/// ZPOPMIN / ZPOPMAX count that is negative or not an integer.
inline constexpr std::string_view err_out_of_range_positive =
    "ERR value is out of range, must be positive";
/// ZRANDMEMBER ... WITHSCORES with |count| > LONG_MAX / 2.
inline constexpr std::string_view err_out_of_range = "ERR value is out of range";
/// ZRANGE with LIMIT but neither BYSCORE nor BYLEX.
inline constexpr std::string_view err_limit_needs_by =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
/// ZRANGE BYLEX ... WITHSCORES.
inline constexpr std::string_view err_withscores_bylex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
/// ZINTERCARD LIMIT that is negative or not an integer.
inline constexpr std::string_view err_limit_negative = "ERR LIMIT can't be negative";
/// ZMPOP / BZMPOP numkeys <= 0 (or not an integer).
inline constexpr std::string_view err_numkeys_positive = "ERR numkeys should be greater than 0";
/// ZMPOP / BZMPOP COUNT <= 0 (or not an integer).
inline constexpr std::string_view err_count_positive = "ERR count should be greater than 0";
/// ZSCAN cursor that is not an unsigned 64-bit integer.
inline constexpr std::string_view err_invalid_cursor = "ERR invalid cursor";
/// Blocking pop timeout that does not parse as a double.
inline constexpr std::string_view err_timeout_not_float =
    "ERR timeout is not a float or out of range";
/// Blocking pop timeout < 0.
inline constexpr std::string_view err_timeout_negative = "ERR timeout is negative";
/// Command applied to a key that holds another type.
inline constexpr std::string_view err_wrongtype =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

namespace detail {

/// Appends `text` to `out`, mapping '\r' and '\n' to ' ' as Redis does for error texts that
/// embed user input (an error reply must stay on one line).
inline void append_error_safe(std::string& out, std::string_view text) {
    for (char c : text) {
        out.push_back(c == '\r' || c == '\n' ? ' ' : c);
    }
}

/// Lower-cases ASCII letters only (command names are ASCII; locale must not matter).
inline void append_ascii_lower(std::string& out, std::string_view text) {
    for (char c : text) {
        out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
}

/// The part of `s` that a C function would see: everything before the first NUL byte.
/// Redis formats user arguments with printf("%s") / "%.*s", which stop at a NUL.
inline std::string_view c_string_prefix(std::string_view s) noexcept {
    const std::size_t nul = s.find('\0');
    return nul == std::string_view::npos ? s : s.substr(0, nul);
}

}  // namespace detail

/// Builds "ERR wrong number of arguments for '<name>' command" (Redis `commandCheckArity`).
/// `name` is the command name; it is lower-cased like Redis's command table name (e.g. "zadd").
/// Complexity O(|name|). Strong guarantee (may throw std::bad_alloc).
inline std::string err_wrong_arity(std::string_view name) {
    std::string out = "ERR wrong number of arguments for '";
    detail::append_ascii_lower(out, name);
    out += "' command";
    return out;
}

/// Builds "ERR at least 1 input key is needed for '<name>' command" (ZUNION, ZINTER, ZDIFF and
/// their STORE forms, ZINTERCARD with numkeys < 1). `name` is lower-cased.
/// Complexity O(|name|). Strong guarantee (may throw std::bad_alloc).
inline std::string err_at_least_one_key(std::string_view name) {
    std::string out = "ERR at least 1 input key is needed for '";
    detail::append_ascii_lower(out, name);
    out += "' command";
    return out;
}

/// Builds Redis's unknown-command error from the full argv (argv[0] is the command name):
/// "ERR unknown command '<name>', with args beginning with: '<a1>' '<a2>' ".
/// Mirrors Redis `commandCheckExistence`: the name is cut to 128 bytes; arguments are appended
/// while the argument text is shorter than 128 bytes, each cut so the text stays within 128;
/// every value stops at its first NUL byte (printf semantics) and CR/LF become spaces.
/// `Argv` is any range of string-like values convertible to std::string_view.
/// Complexity O(total bytes used, at most ~260). Strong guarantee (may throw std::bad_alloc).
template <class Argv>
std::string err_unknown_command(const Argv& argv) {
    constexpr std::size_t limit = 128;
    auto it = std::begin(argv);
    const auto end = std::end(argv);
    std::string name;
    if (it != end) {
        const std::string_view n = detail::c_string_prefix(std::string_view(*it));
        name.assign(n.substr(0, limit));
        ++it;
    }
    std::string args;
    for (; it != end && args.size() < limit; ++it) {
        const std::string_view a = detail::c_string_prefix(std::string_view(*it));
        const std::size_t precision = limit - args.size();  // "'%.*s' " with 128 - sdslen(args)
        args += '\'';
        args.append(a.substr(0, precision));
        args += "' ";
    }
    std::string out = "ERR unknown command '";
    detail::append_error_safe(out, name);
    out += "', with args beginning with: ";
    detail::append_error_safe(out, args);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

namespace detail {

/// isspace() in the "C" locale. Redis never changes LC_CTYPE, so this is what it sees.
constexpr bool is_c_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

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

/// Runs strtod(3) over `s` exactly as Redis does on its NUL-terminated argument, with "C" locale
/// semantics whatever the process locale is:
///  - the input is copied into a NUL-terminated buffer (a string_view is not terminated), so,
///    as in Redis, conversion stops at an embedded NUL;
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
    while (lead < s.size() && is_c_space(s[lead])) {
        ++lead;
    }
    if (lead == s.size() || !may_start_c_float(s[lead])) {
        return r;  // strtod performs no conversion
    }
    // Only the part up to the first NUL is visible to strtod.
    std::string_view body = c_string_prefix(s.substr(lead));

    const char* dp = std::localeconv()->decimal_point;
    const std::size_t dp_len = (dp != nullptr && dp[0] != '\0') ? std::strlen(dp) : 1;
    const bool c_point = dp == nullptr || dp[0] == '\0' || (dp[0] == '.' && dp[1] == '\0');
    if (!c_point) {
        const std::size_t cut = body.find(dp[0]);
        if (cut != std::string_view::npos) {
            body = body.substr(0, cut);
        }
    }

    // Buffer: '.' may expand to dp_len bytes, plus the terminating NUL.
    constexpr std::size_t small = 128;
    char local[small];
    std::string heap;
    std::size_t dots = 0;
    if (!c_point) {
        for (char c : body) {
            dots += c == '.' ? 1 : 0;
        }
    }
    const std::size_t need = body.size() + dots * (dp_len - 1) + 1;
    char* buf = local;
    if (need > small) {
        heap.resize(need);
        buf = heap.data();
    }
    std::size_t w = 0;
    for (char c : body) {
        if (!c_point && c == '.') {
            std::memcpy(buf + w, dp, dp_len);
            w += dp_len;
        } else {
            buf[w++] = c;
        }
    }
    buf[w] = '\0';

    const int saved_errno = errno;
    errno = 0;
    char* end = nullptr;
    r.value = std::strtod(buf, &end);
    r.erange = errno == ERANGE;
    errno = saved_errno;

    std::size_t used = static_cast<std::size_t>(end - buf);
    if (used == 0) {
        return strtod_result{};  // no conversion
    }
    if (!c_point) {
        // Map back: each consumed decimal point occupied dp_len bytes instead of one.
        std::size_t in = 0;
        std::size_t out = 0;
        while (out < used) {
            out += (body[in] == '.') ? dp_len : 1;
            ++in;
        }
        used = in;
    }
    r.consumed = lead + used;
    return r;
}

}  // namespace detail

/// Parses a score as Redis `string2d` / `getDoubleFromObject` (ZADD, ZINCRBY, WEIGHTS).
/// Accepts exactly what strtod(3) accepts in the "C" locale when it consumes the whole string:
/// decimal and hex (`0x10`, `0x1p-3`) forms, an optional sign, `inf`/`infinity` in any case,
/// and results that underflow to a denormal (`1e-310`, `4e-324`). Rejects: the empty string,
/// leading whitespace, anything left over (trailing spaces, junk, an embedded NUL), NaN in any
/// spelling, overflow to +-HUGE_VAL (`1e400`) and underflow to zero (`1e-400`, `2e-324`).
/// Returns nullopt on rejection (reply err_not_float, or err_weight_not_float for WEIGHTS).
/// Complexity O(|s|). Allocates only for inputs of 128 bytes or more (may throw std::bad_alloc).
inline std::optional<double> parse_score(std::string_view s) {
    if (s.empty() || detail::is_c_space(s[0])) {
        return std::nullopt;
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

/// One end of a score range: `value` with `exclusive` set when written as "(value".
struct score_bound {
    double value;
    bool exclusive;
};

/// Parses one score-range bound as Redis `zslParseRange` (ZRANGEBYSCORE, ZCOUNT,
/// ZREMRANGEBYSCORE, ZRANGE BYSCORE): an optional '(' (exclusive), then strtod(3) with no
/// range check. Because Redis only tests that strtod stopped at a NUL byte and did not produce
/// NaN, it also accepts: leading whitespace (" 1"), an empty rest ("" is inclusive 0, "(" is
/// exclusive 0), anything after an embedded NUL ("1\0x" is 1), and out-of-range values
/// ("1e400" is +inf, "1e-400" is 0). Rejected: trailing bytes ("1 ", "1e", "((1"), NaN.
/// Returns nullopt on rejection (reply err_minmax_not_float).
/// Complexity O(|s|). Allocates only for inputs of 128 bytes or more (may throw std::bad_alloc).
inline std::optional<score_bound> parse_score_bound(std::string_view s) {
    score_bound b{0.0, false};
    if (!s.empty() && s[0] == '(') {
        b.exclusive = true;
        s.remove_prefix(1);
    }
    const detail::strtod_result r = detail::c_strtod(s);
    if (r.consumed != s.size() && s[r.consumed] != '\0') {
        return std::nullopt;
    }
    if (std::isnan(r.value)) {
        return std::nullopt;
    }
    b.value = r.value;
    return b;
}

/// One end of a lex range. `value` views into the parsed argument (without the '[' or '(')
/// and is meaningful only for `inclusive` / `exclusive`; it is valid as long as that argument.
struct lex_bound {
    /// What the bound is. An unscoped enum so the kinds read as lex_bound::inclusive etc.
    enum kind_type : unsigned char {
        inclusive,  ///< "[value"
        exclusive,  ///< "(value"
        neg_inf,    ///< "-": below every member
        pos_inf     ///< "+": above every member
    };
    std::string_view value;
    kind_type kind;
};

/// Parses one lex-range item as Redis `zslParseLexRangeItem` (ZRANGEBYLEX, ZLEXCOUNT,
/// ZREMRANGEBYLEX, ZRANGE BYLEX): "[x" inclusive, "(x" exclusive (x may be empty or binary),
/// "-" and "+" the infinities. Everything else, including the empty string, is rejected.
/// Redis tests "-"/"+" with `c[1] != '\0'` on the NUL-terminated argument, so "+\0..." also
/// counts as "+"; that quirk is reproduced. Returns nullopt on rejection (err_lex_range).
/// Complexity O(1). No-throw.
inline std::optional<lex_bound> parse_lex_bound(std::string_view s) noexcept {
    if (s.empty()) {
        return std::nullopt;
    }
    switch (s[0]) {
    case '[':
        return lex_bound{s.substr(1), lex_bound::inclusive};
    case '(':
        return lex_bound{s.substr(1), lex_bound::exclusive};
    case '-':
    case '+':
        if (s.size() == 1 || s[1] == '\0') {
            return lex_bound{std::string_view(),
                             s[0] == '-' ? lex_bound::neg_inf : lex_bound::pos_inf};
        }
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

/// Parses a signed 64-bit integer exactly as Redis `string2ll` (ranks, LIMIT, counts, numkeys):
/// optional '-' then decimal digits with no leading zero ("0" alone is the only form of zero:
/// "-0", "00", "01" are rejected), no '+', no whitespace, at most 20 bytes, within
/// [LLONG_MIN, LLONG_MAX]. Returns nullopt on rejection (usually err_not_integer).
/// Complexity O(|s|). No-throw.
inline std::optional<long long> parse_integer(std::string_view s) noexcept {
    constexpr std::size_t max_len = 20;  // strlen("-9223372036854775808")
    if (s.empty() || s.size() > max_len) {
        return std::nullopt;
    }
    if (s.size() == 1 && s[0] == '0') {
        return 0LL;
    }
    std::size_t i = 0;
    const bool negative = s[0] == '-';
    if (negative) {
        ++i;
    }
    if (i == s.size() || s[i] < '1' || s[i] > '9') {
        return std::nullopt;
    }
    // Accumulate in unsigned: at most 19 digits here, so the value fits in 64 bits unless it
    // has 20 digits, which the overflow checks catch.
    unsigned long long v = 0;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        const auto digit = static_cast<unsigned long long>(c - '0');
        if (v > (ULLONG_MAX - digit) / 10) {
            return std::nullopt;
        }
        v = v * 10 + digit;
    }
    constexpr auto max_positive = static_cast<unsigned long long>(LLONG_MAX);
    if (negative) {
        if (v > max_positive + 1) {
            return std::nullopt;
        }
        // -(v) without signed overflow for v == 2^63.
        return v == max_positive + 1 ? LLONG_MIN : -static_cast<long long>(v);
    }
    if (v > max_positive) {
        return std::nullopt;
    }
    return static_cast<long long>(v);
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
inline constexpr std::size_t max_double_chars = 32;

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

/// Writes a long long in decimal; returns the length.
inline std::size_t write_integer(char* out, long long v) noexcept {
    const auto r = std::to_chars(out, out + max_double_chars, v);
    return static_cast<std::size_t>(r.ptr - out);
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

/// Generates the digits of a finite, non-zero |v| into `digits` (at least 20 bytes).
/// Returns the digit count n and sets `k10` so that |v| ~= digits * 10^k10.
inline int digits_of(double v, char* digits, int& k10) noexcept {
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
    diy_fp w = normalized(x);

    int k = 0;
    const diy_fp c = cached_power_for(upper.e, k);
    w = multiply(w, c);
    upper = multiply(upper, c);
    lower = multiply(lower, c);
    // Shrink the interval by one unit on each side to absorb the multiplication error.
    ++lower.f;
    --upper.f;
    k10 = -k;

    // Digit generation from the upper boundary: integral part first (at most 10 digits, and
    // never zero because upper.f >> 60 >= 8), then fractional digits until what is left of
    // the upper boundary lies inside the interval.
    const std::uint64_t w_dist = upper.f - w.f;
    std::uint64_t delta = upper.f - lower.f;
    const int shift = -upper.e;  // in [32, 60]
    const std::uint64_t one = std::uint64_t{1} << shift;
    std::uint64_t integral = upper.f >> shift;
    std::uint64_t fractional = upper.f & (one - 1);
    constexpr int max_digits = 20;
    int n = 0;
    int kappa = 10;
    std::uint64_t divisor = 1000000000;
    while (kappa > 0) {
        const std::uint64_t d = integral / divisor;
        if ((d != 0 || n != 0) && n < max_digits) {
            digits[n++] = static_cast<char>('0' + d);
        }
        integral -= d * divisor;
        --kappa;
        const std::uint64_t rest = (integral << shift) + fractional;
        if (rest <= delta) {
            k10 += kappa;
            round_weed(digits, n, delta, rest, divisor << shift, w_dist);
            return n;
        }
        divisor /= 10;
    }
    std::uint64_t scale = 10;  // 10^(number of fractional digits generated so far)
    for (;;) {
        fractional *= 10;
        delta *= 10;
        --kappa;
        const std::uint64_t d = fractional >> shift;
        if ((d != 0 || n != 0) && n < max_digits) {
            digits[n++] = static_cast<char>('0' + d);
        }
        fractional &= one - 1;
        if (fractional < delta || n >= max_digits) {
            k10 += kappa;
            round_weed(digits, n, delta, fractional, one, w_dist * scale);
            return n;
        }
        scale *= 10;
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
        const auto res =
            std::to_chars(out, out + max_double_chars, v, std::chars_format::general, 17);
        r.size = static_cast<std::size_t>(res.ptr - out);
        return r;
    }
    if (v == 0.0) {
        r.size = std::signbit(v) ? 2 : 1;
        std::memcpy(out, std::signbit(v) ? "-0" : "0", r.size);
        return r;
    }
    // Redis double2ll: integral values with |v| <= LLONG_MAX / 2 (2^62 after rounding to double)
    // are printed with the integer printer.
    constexpr double int_limit = 4611686018427387904.0;  // (double)(LLONG_MAX / 2) == 2^62
    if (v >= -int_limit && v <= int_limit) {
        const auto as_int = static_cast<long long>(v);
        if (static_cast<double>(as_int) == v) {
            r.size = detail::write_integer(out, as_int);
            return r;
        }
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
