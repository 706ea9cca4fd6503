// zset::redis — argument parsing shared by the command handlers: cursors, timeouts, SCAN-family
// and RESTORE options, ZADD's options and the ZRANGE family's forms. Each parser checks in Redis's
// order, so the same error wins, and replies the error itself (returning false) so a handler just
// returns. SPDX-License-Identifier: MIT
//
// The parsers are templates over the command context (command.hpp: the keyspace's, or the Redis
// module's): they read arguments and write errors through it.
//
// Thread safety: pure functions over the command context.
#ifndef ZSET_REDIS_ARGUMENTS_HPP
#define ZSET_REDIS_ARGUMENTS_HPP

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.hpp"
#include "command.hpp"
#include "errors.hpp"
#include "numbers.hpp"

namespace zset::redis::detail {

/// A count argument (non-negative) as a size: counts beyond size_t (a 32-bit target) saturate,
/// so COUNT 4294967297 still means "that many or all", never 1.
inline std::size_t count_as_size(long long count) noexcept {
    if (count <= 0) return 0;
    const auto v = static_cast<unsigned long long>(count);
    return v > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(v);
}

/// Parses a SCAN / ZSCAN cursor as Redis 7.0's parseScanCursorOrReply (strtoul(3), base 10): no
/// leading blank, an optional sign ("-1" wraps around), digits, nothing after (bytes after a NUL
/// are invisible, so "" is cursor 0), no overflow. With `string2ull` (server_rules::
/// scan_cursor_string2ull) as Redis 7.4's and Valkey 8.0's string2ull: a string2ll integer,
/// which must not be negative, or else what strtoull(3) reads in full, which now may begin with
/// blanks (" 1" is 1, " -1" wraps around) but must not be empty ("" is refused).
inline std::optional<std::uint64_t> parse_scan_cursor(std::string_view arg,
                                                      bool string2ull = false) noexcept {
    const std::string_view s = zset::detail::c_string_prefix(arg);
    std::size_t i = 0;
    if (string2ull) {
        if (const auto ll = zset::detail::parse_int64(s))
            return *ll < 0 ? std::nullopt
                           : std::optional<std::uint64_t>(static_cast<std::uint64_t>(*ll));
        while (i < s.size() && zset::detail::is_c_space(s[i])) ++i;
    } else {
        if (s.empty()) return 0;
        if (zset::detail::is_c_space(s[0])) return std::nullopt;
    }
    const bool negative = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i == s.size()) return std::nullopt;
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
        const auto d = static_cast<std::uint64_t>(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return std::nullopt;  // ERANGE
        v = v * 10 + d;
    }
    return negative ? (~v + 1) : v;
}

/// Parses a blocking timeout in seconds as Redis's getTimeoutFromObjectOrReply: strtold(3)
/// over the whole argument (no leading blank, no junk, no NaN, no overflow/underflow to
/// HUGE_VALL/0); then milliseconds = seconds * 1000, where more than LLONG_MAX is "timeout is
/// out of range" when the server checks it (server_rules::timeout_overflow_is_range_error);
/// then (long long)ceill(milliseconds), where an unrepresentable value acts as LLONG_MIN (what
/// the x86 conversion yields), negative -> "timeout is negative", and a deadline past
/// LLONG_MAX from `now` -> "timeout is out of range". A timeout of a fraction of a millisecond
/// rounds up to a whole millisecond, as Redis 7.0.11 and later do. Uses the C library's strtold, so
/// LC_NUMERIC must be "C" (Redis's own assumption). Replies the error itself.
template <class Ctx>
bool parse_timeout_ms(Ctx& c, std::string_view arg, long long& ms) {
    constexpr std::size_t max_chars = 5 * 1024;  // MAX_LONG_DOUBLE_CHARS
    if (arg.empty() || arg.size() >= max_chars)
        return c.out.error(errors::timeout_not_float), false;
    const std::string buf(arg);
    char* end = nullptr;
    const int saved = errno;
    errno = 0;
    const long double v = std::strtold(buf.c_str(), &end);
    const int e = errno;
    errno = saved;
    if (zset::detail::is_c_space(buf[0]) || *end != '\0' ||
        (e == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0.0L)) || e == EINVAL ||
        std::isnan(v))
        return c.out.error(errors::timeout_not_float), false;
    const long double product = v * 1000.0L;
    if (c.rules().timeout_overflow_is_range_error && product > static_cast<long double>(LLONG_MAX))
        return c.out.error(errors::timeout_out_of_range), false;
    const long double up = std::ceil(product);
    long long tval = LLONG_MIN;
    if (up >= -9223372036854775808.0L && up < 9223372036854775808.0L)
        tval = static_cast<long long>(up);
    if (tval < 0) return c.out.error(errors::timeout_negative), false;
    if (tval > 0 && tval > LLONG_MAX - c.now_ms())
        return c.out.error(errors::timeout_out_of_range), false;
    ms = tval;
    return true;
}

/// Argument i as a string2ll integer; replies errors::not_integer otherwise.
template <class Ctx>
bool integer_arg(Ctx& c, std::size_t i, long long& v) {
    const auto n = parse_integer(c[i]);
    if (!n) return c.out.error(errors::not_integer), false;
    v = *n;
    return true;
}

/// SCAN-family options: COUNT n, MATCH pattern and (SCAN only) TYPE name.
struct scan_options {
    long long count = 10;
    std::string_view pattern;
    bool use_pattern = false;
    std::string_view type;  ///< empty: any type
};

/// Parses the SCAN-family options from argv[first] on (Redis scanGenericCommand's loop).
template <class Ctx>
bool parse_scan_options(Ctx& c, std::size_t first, bool allow_type, scan_options& o) {
    for (std::size_t i = first; i < c.argc; i += 2) {
        const bool has_value = c.argc - i >= 2;
        if (c.is(i, "count") && has_value) {
            if (!integer_arg(c, i + 1, o.count)) return false;
            if (o.count < 1) return c.out.error(errors::syntax), false;
        } else if (c.is(i, "match") && has_value) {
            o.pattern = c[i + 1];
            o.use_pattern = !(o.pattern.size() == 1 && o.pattern[0] == '*');
        } else if (allow_type && c.is(i, "type") && has_value) {
            o.type = c[i + 1];
        } else {
            return c.out.error(errors::syntax), false;
        }
    }
    return true;
}

/// RESTORE's options after the payload.
struct restore_options {
    bool replace = false;
    bool absttl = false;
};

/// RESTORE's options after the payload (Redis 7.0's restoreCommand loop).
template <class Ctx>
bool parse_restore_options(Ctx& c, restore_options& o) {
    bool idletime = false, freq = false;
    for (std::size_t j = 4; j < c.argc; ++j) {
        const bool more = c.argc - j - 1 >= 1;
        long long v = 0;
        if (c.is(j, "replace")) {
            o.replace = true;
        } else if (c.is(j, "absttl")) {
            o.absttl = true;
        } else if (c.is(j, "idletime") && more && !freq) {
            if (!integer_arg(c, ++j, v)) return false;
            if (v < 0) return c.out.error(errors::invalid_idletime), false;
            idletime = true;
        } else if (c.is(j, "freq") && more && !idletime) {
            if (!integer_arg(c, ++j, v)) return false;
            if (v < 0 || v > 255) return c.out.error(errors::invalid_freq), false;
            freq = true;
        } else {
            return c.out.error(errors::syntax), false;
        }
    }
    return true;
}

// ---- ZADD / ZINCRBY ---------------------------------------------------------------------------

/// A parsed ZADD (or ZINCRBY, which Redis runs through the same code).
struct zadd_request {
    zset::add_flags flags = zset::add_flags::none;  ///< NX / XX / GT / LT for the container
    bool ch = false;                                ///< reply added + updated
    bool incr = false;                              ///< INCR (ZINCRBY always)
    std::size_t first_score = 2;                    ///< argv index of the first score
    std::vector<double> scores;                     ///< every score, parsed before any change
    template <class Ctx>
    std::string_view member(const Ctx& c, std::size_t j) const noexcept {
        return c[first_score + 2 * j + 1];
    }
};

/// Parses ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ... with Redis's checks in order:
/// pair count, XX+NX, GT/LT/NX, INCR with one pair, then every score.
template <class Ctx>
bool parse_zadd(Ctx& c, bool incr_command, zadd_request& r) {
    r.incr = incr_command;
    struct option {
        std::string_view name;
        zset::add_flags flag;
    };
    static constexpr option options[] = {
        {"nx", zset::add_flags::nx}, {"xx", zset::add_flags::xx}, {"gt", zset::add_flags::gt},
        {"lt", zset::add_flags::lt}, {"ch", zset::add_flags::ch}, {"incr", zset::add_flags::none}};
    for (; r.first_score < c.argc; ++r.first_score) {
        const option* hit = nullptr;
        for (const option& o : options)
            if (c.is(r.first_score, o.name)) hit = &o;
        if (hit == nullptr) break;
        if (hit->name == "incr") r.incr = true;
        if (hit->name == "ch") r.ch = true;
        if (hit->flag != zset::add_flags::ch) r.flags = r.flags | hit->flag;
    }
    const std::size_t words = c.argc - r.first_score;
    const auto has = [&](zset::add_flags f) { return zset::has(r.flags, f); };
    if (words % 2 != 0 || words == 0) return c.out.error(errors::syntax), false;
    if (has(zset::add_flags::nx) && has(zset::add_flags::xx))
        return c.out.error(errors::xx_and_nx), false;
    const int exclusive = int(has(zset::add_flags::gt)) + int(has(zset::add_flags::lt)) +
                          int(has(zset::add_flags::nx));
    if (exclusive > 1) return c.out.error(errors::gt_lt_nx), false;
    if (r.incr && words > 2) return c.out.error(errors::incr_single_pair), false;
    for (std::size_t j = r.first_score; j < c.argc; j += 2) {
        const auto v = parse_score(c[j], c.rules().scores);
        if (!v) return c.out.error(errors::not_a_float), false;
        r.scores.push_back(*v);
    }
    return true;
}

// ---- the ZRANGE family ------------------------------------------------------------------------

/// How a range is given.
enum class range_by { unspecified, rank, score, lex };
/// Which way it is walked.
enum class range_order { unspecified, forward, reverse };

/// What a ZRANGE-family command name fixes before its options are read.
struct range_form {
    std::size_t source;  ///< argv index of the source key (2 for ZRANGESTORE)
    bool store;          ///< ZRANGESTORE
    range_by by;
    range_order order;
};

/// A parsed ZRANGE-family request.
struct range_request {
    range_by by = range_by::rank;
    range_order order = range_order::forward;
    bool withscores = false;
    zset::limit lim;  ///< count -1: none given
    long long start = 0, stop = 0;
    zset::score_range<double> scores = zset::score_range<double>::all();
    zset::lex_range<std::string_view> lex;
    bool reverse() const noexcept { return order == range_order::reverse; }
};

/// Reads the options after `min max` (Redis zrangeGenericCommand's loop): REV, BYSCORE and BYLEX
/// are accepted once each, and only where the command name did not fix them already.
template <class Ctx>
bool parse_range_options(Ctx& c, const range_form& f, range_request& r) {
    for (std::size_t j = f.source + 3; j < c.argc; ++j) {
        const std::size_t left = c.argc - j - 1;
        if (!f.store && c.is(j, "withscores")) {
            r.withscores = true;
        } else if (c.is(j, "limit") && left >= 2) {
            if (!integer_arg(c, j + 1, r.lim.offset) || !integer_arg(c, j + 2, r.lim.count))
                return false;
            j += 2;
        } else if (r.order == range_order::unspecified && c.is(j, "rev")) {
            r.order = range_order::reverse;
        } else if (r.by == range_by::unspecified && c.is(j, "bylex")) {
            r.by = range_by::lex;
        } else if (r.by == range_by::unspecified && c.is(j, "byscore")) {
            r.by = range_by::score;
        } else {
            return c.out.error(errors::syntax), false;
        }
    }
    return true;
}

/// Parses a ZRANGE-family command: options, their combinations, then min and max.
template <class Ctx>
bool parse_range(Ctx& c, const range_form& f, range_request& r) {
    r.by = f.by;
    r.order = f.order;
    if (!parse_range_options(c, f, r)) return false;
    if (r.by == range_by::unspecified) r.by = range_by::rank;
    if (r.order == range_order::unspecified) r.order = range_order::forward;
    if (r.lim.count != -1 && r.by == range_by::rank)
        return c.out.error(errors::limit_needs_by), false;
    if (r.withscores && r.by == range_by::lex) return c.out.error(errors::withscores_bylex), false;
    std::size_t min = f.source + 1, max = f.source + 2;
    if (r.reverse() && r.by != range_by::rank) std::swap(min, max);
    if (r.by == range_by::rank) return integer_arg(c, min, r.start) && integer_arg(c, max, r.stop);
    if (r.by == range_by::score) {
        const auto range = parse_score_range(c[min], c[max], c.rules().scores);
        if (!range) return c.out.error(errors::minmax_not_float), false;
        r.scores = *range;
        return true;
    }
    const auto range = parse_lex_range(c[min], c[max]);
    if (!range) return c.out.error(errors::lex_range), false;
    r.lex = *range;
    return true;
}

}  // namespace zset::redis::detail

#endif  // ZSET_REDIS_ARGUMENTS_HPP
