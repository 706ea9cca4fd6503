// zset::detail — Redis's text rules shared by the DUMP codec and the Redis command layer.
// SPDX-License-Identifier: MIT
//
// One implementation each of: ASCII case folding (Redis compares command names and options with
// strcasecmp in the "C" locale), string2ll (the canonical signed 64-bit integer text), the test
// "this double is an integer that fits" behind Redis's d2string and rdbSaveDoubleValue,
// printf("%.17g") independent of the C locale, and the signed-width test behind every
// "smallest integer encoding" ladder (listpack, ziplist, RDB strings, intsets).
//
// Thread safety: every function here is pure (no shared state). Exceptions: none.
#ifndef ZSET_DETAIL_REDIS_TEXT_HPP
#define ZSET_DETAIL_REDIS_TEXT_HPP

#include <charconv>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>

// Floating-point std::to_chars (libstdc++ >= 11, MSVC). Without it %.17g falls back to snprintf
// (with '.' forced as the decimal point). Define ZSET_FP_CHARCONV to 0 or 1 to force a choice.
#ifndef ZSET_FP_CHARCONV
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
#define ZSET_FP_CHARCONV 1
#else
#define ZSET_FP_CHARCONV 0
#endif
#endif

namespace zset {
namespace detail {

/// tolower() of the "C" locale: ASCII letters only, every other byte unchanged.
constexpr char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// toupper() of the "C" locale: ASCII letters only.
constexpr char ascii_upper(char c) noexcept {
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

/// isspace() in the "C" locale. Redis never changes LC_CTYPE, so this is what it sees.
constexpr bool is_c_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// The part of `s` that a C function would see: everything before the first NUL byte.
/// Redis formats and compares user arguments as C strings (printf "%s", strcasecmp, strtod).
constexpr std::string_view c_string_prefix(std::string_view s) noexcept {
    const std::size_t nul = s.find('\0');
    return nul == std::string_view::npos ? s : s.substr(0, nul);
}

/// Whether `text` equals `lower_name` (already lower case) ignoring ASCII case, byte for byte
/// (no NUL handling: callers that mimic C strings cut `text` first). O(|text|).
constexpr bool ascii_iequals(std::string_view text, std::string_view lower_name) noexcept {
    if (text.size() != lower_name.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (ascii_lower(text[i]) != lower_name[i]) return false;
    return true;
}

/// Redis string2ll: an optional '-' then decimal digits without a leading zero ("0" alone is
/// the only zero: "-0", "00", "01" are rejected), no '+', no blank, at most 20 bytes, within
/// [LLONG_MIN, LLONG_MAX]. Exactly the texts that print back identically. O(|s|).
constexpr std::optional<long long> parse_int64(std::string_view s) noexcept {
    if (s.empty() || s.size() > 20) return std::nullopt;
    if (s.size() == 1 && s[0] == '0') return 0LL;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size() || s[i] < '1' || s[i] > '9') return std::nullopt;
    unsigned long long v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
        const auto digit = static_cast<unsigned long long>(s[i] - '0');
        if (v > (ULLONG_MAX - digit) / 10) return std::nullopt;
        v = v * 10 + digit;
    }
    constexpr auto max_positive = static_cast<unsigned long long>(LLONG_MAX);
    if (s[0] != '-') {
        if (v > max_positive) return std::nullopt;
        return static_cast<long long>(v);
    }
    if (v > max_positive + 1) return std::nullopt;
    return v == max_positive + 1 ? LLONG_MIN : -static_cast<long long>(v);
}

/// Capacity that holds any text written by write_int64 or format_g17.
inline constexpr std::size_t number_text_capacity = 32;

/// Decimal text of `v` into `out` (capacity number_text_capacity); returns the length.
inline std::size_t write_int64(char* out, long long v) noexcept {
    const auto r = std::to_chars(out, out + number_text_capacity, v);
    return static_cast<std::size_t>(r.ptr - out);
}

/// `v` as a long long when it is integral and within [-bound, bound] (Redis's d2string uses
/// 2^62 = (double)(LLONG_MAX / 2), rdbSaveDoubleValue 2^52), else nullopt. -0.0 gives 0.
inline std::optional<long long> integral_within(double v, double bound) noexcept {
    if (!(v >= -bound && v <= bound)) return std::nullopt;  // also rejects NaN
    const auto as_int = static_cast<long long>(v);
    if (static_cast<double>(as_int) != v) return std::nullopt;
    return as_int;
}

/// The bound of Redis's d2string integer shortcut: (double)(LLONG_MAX / 2) == 2^62.
inline constexpr double d2string_integer_bound = 4611686018427387904.0;

/// printf("%.17g") of a finite double in the "C" locale (decimal point '.', whatever
/// LC_NUMERIC says) into `out` (capacity number_text_capacity); returns the length.
inline std::size_t format_g17(char* out, double v) noexcept {
#if ZSET_FP_CHARCONV
    const auto r =
        std::to_chars(out, out + number_text_capacity, v, std::chars_format::general, 17);
    return static_cast<std::size_t>(r.ptr - out);
#else
    const int n = std::snprintf(out, number_text_capacity, "%.17g", v);
    const std::size_t len = n > 0 ? static_cast<std::size_t>(n) : 0;
    for (std::size_t i = 0; i < len; ++i)
        if (out[i] == ',') out[i] = '.';
    return len;
#endif
}

/// Whether `v` fits a two's complement integer of `bits` bits (1..64): the test behind every
/// "smallest integer encoding" ladder of Redis's formats.
constexpr bool fits_signed(std::int64_t v, unsigned bits) noexcept {
    if (bits >= 64) return true;
    const std::int64_t half = std::int64_t{1} << (bits - 1);
    return v >= -half && v < half;
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_REDIS_TEXT_HPP
