// zset::redis::commands — sorted-set reads: ZSCORE, ZMSCORE, ZCARD, ZCOUNT, ZLEXCOUNT, ZRANK,
// ZREVRANK, the ZRANGE family (ZRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZREVRANGEBYLEX, ZREVRANGE) with ZRANGESTORE, ZRANDMEMBER and ZSCAN.
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's t_zset.c (checked against redis-server 7.0.15), plus Redis 7.2's
// ZRANK / ZREVRANK ... WITHSCORE. Templates over the sorted-set context (command.hpp).
//
// Thread safety: handlers need exclusive access to the keyspace (reads expire keys lazily).
#ifndef ZSET_REDIS_COMMANDS_ZSET_READ_HPP
#define ZSET_REDIS_COMMANDS_ZSET_READ_HPP

#include <climits>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "commands_zset_common.hpp"
#include "glob.hpp"

namespace zset::redis::commands {

/// ZSCORE key member.
template <class Ctx>
void zscore(Ctx& c) {
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    const auto s = z.value ? z.value->score(c[2]) : std::nullopt;
    return s ? c.out.dbl(*s) : c.out.null();
}

/// ZMSCORE key member ...
template <class Ctx>
void zmscore(Ctx& c) {
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    c.out.array(c.argc - 2);
    for (std::size_t j = 2; j < c.argc; ++j) {
        const auto s = z.value ? z.value->score(c[j]) : std::nullopt;
        if (s)
            c.out.dbl(*s);
        else
            c.out.null();
    }
}

/// ZCARD key.
template <class Ctx>
void zcard(Ctx& c) {
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    c.out.integer(z.value ? static_cast<long long>(z.value->size()) : 0);
}

/// ZCOUNT key min max.
template <class Ctx>
void zcount(Ctx& c) {
    const auto range = parse_score_range(c[2], c[3], c.rules().scores);
    if (!range) return c.out.error(errors::minmax_not_float);
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    c.out.integer(z.value ? static_cast<long long>(z.value->count(*range)) : 0);
}

/// ZLEXCOUNT key min max.
template <class Ctx>
void zlexcount(Ctx& c) {
    const auto range = parse_lex_range(c[2], c[3]);
    if (!range) return c.out.error(errors::lex_range);
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    c.out.integer(z.value ? static_cast<long long>(z.value->lex_count(*range)) : 0);
}

/// ZRANK / ZREVRANK key member [WITHSCORE].
template <class Ctx>
void zrank_generic(Ctx& c, detail::range_order order) {
    if (c.argc > (c.rules().rank_withscore ? 4u : 3u))
        return c.out.error(errors::wrong_arity(c.spec->name));
    if (c.argc == 4 && !c.is(3, "withscore")) return c.out.error(errors::syntax);
    const bool withscore = c.argc == 4;
    const auto z = c.find_zset(c[1]);
    if (z.missing()) return withscore ? c.out.null_array() : c.out.null();
    if (c.wrongtype(z)) return;
    const auto r = order == detail::range_order::reverse ? z.value->rev_rank_with_score(c[2])
                                                         : z.value->rank_with_score(c[2]);
    if (!r) return withscore ? c.out.null_array() : c.out.null();
    if (withscore) c.out.array(2);
    c.out.integer(static_cast<long long>(r->first));
    if (withscore) c.out.dbl(r->second);
}

template <class Ctx>
void zrank(Ctx& c) {
    zrank_generic(c, detail::range_order::forward);
}
template <class Ctx>
void zrevrank(Ctx& c) {
    zrank_generic(c, detail::range_order::reverse);
}

namespace detail {

/// The LIMIT a score or lex range of `s` is walked with. A negative offset selects nothing,
/// unless the server counts it back from the end of the range on a skiplist-encoded key
/// (server_rules::negative_offset_from_end): then it becomes that element's position from the
/// start of the range in walking order (still negative, so nothing, when the range is shorter).
template <class Set>
zset::limit range_limit(const Set& s, const range_request& r, const server_rules& rules) {
    zset::limit lim = r.lim;
    if (lim.offset >= 0 || !rules.negative_offset_from_end ||
        s.encoding() == zset::encoding::listpack)
        return lim;
    const std::size_t in_range = r.by == range_by::score ? s.count(r.scores) : s.lex_count(r.lex);
    lim.offset += static_cast<long long>(in_range);
    return lim;
}

/// Calls f(view) with the view of `s` the request selects (rank, score or lex; either order),
/// under the server's rules.
template <class Set, class F>
void with_range(const Set& s, const range_request& r, const server_rules& rules, F&& f) {
    switch (r.by) {
    case range_by::score: {
        const zset::limit lim = range_limit(s, r, rules);
        return r.reverse() ? f(s.rev_range_by_score(r.scores, lim))
                           : f(s.range_by_score(r.scores, lim));
    }
    case range_by::lex: {
        const zset::limit lim = range_limit(s, r, rules);
        return r.reverse() ? f(s.rev_range_by_lex(r.lex, lim)) : f(s.range_by_lex(r.lex, lim));
    }
    default:
        return r.reverse() ? f(s.rev_range_by_rank(r.start, r.stop))
                           : f(s.range_by_rank(r.start, r.stop));
    }
}

/// ZRANGESTORE's destination, built as Redis does: created from a size hint (the exact length
/// for a rank range, none for score and lex), then filled one element at a time in range order,
/// converting at the first element that exceeds the thresholds (the container's rule).
template <class Ctx, class View>
typename Ctx::zset_type range_result(const Ctx& c, const View& view, range_by by) {
    zset::options o = c.zset_options();
    if (by == range_by::rank && view.size() > o.max_listpack_entries) o.max_listpack_entries = 0;
    typename Ctx::zset_type dst(o);
    for (const auto& e : view) dst.add(e.member, e.score);
    return dst;
}

/// The ZRANGE family, with `f` telling what the command name fixes.
template <class Ctx>
void range_generic(Ctx& c, const range_form& f) {
    range_request r;
    if (!parse_range(c, f, r)) return;
    const auto z = c.find_zset(c[f.source]);
    if (z.missing()) return f.store ? store_nothing(c, c[1]) : c.out.array(0);
    if (c.wrongtype(z)) return;
    if (!f.store) {
        return with_range(*z.value, r, c.rules(), [&](const auto& view) {
            c.out.scored_header(view.size(), r.withscores);
            for (const auto& e : view) c.out.scored_element(e.member, e.score, r.withscores);
        });
    }
    typename Ctx::zset_type built;
    with_range(*z.value, r, c.rules(),
               [&](const auto& view) { built = range_result(c, view, r.by); });
    store_set(c, c[1], std::move(built));
}

}  // namespace detail

template <class Ctx>
void zrange(Ctx& c) {
    detail::range_generic(
        c, {1, false, detail::range_by::unspecified, detail::range_order::unspecified});
}
template <class Ctx>
void zrangestore(Ctx& c) {
    detail::range_generic(
        c, {2, true, detail::range_by::unspecified, detail::range_order::unspecified});
}
template <class Ctx>
void zrangebyscore(Ctx& c) {
    detail::range_generic(c, {1, false, detail::range_by::score, detail::range_order::forward});
}
template <class Ctx>
void zrevrangebyscore(Ctx& c) {
    detail::range_generic(c, {1, false, detail::range_by::score, detail::range_order::reverse});
}
template <class Ctx>
void zrangebylex(Ctx& c) {
    detail::range_generic(c, {1, false, detail::range_by::lex, detail::range_order::forward});
}
template <class Ctx>
void zrevrangebylex(Ctx& c) {
    detail::range_generic(c, {1, false, detail::range_by::lex, detail::range_order::reverse});
}
template <class Ctx>
void zrevrange(Ctx& c) {
    detail::range_generic(c, {1, false, detail::range_by::rank, detail::range_order::reverse});
}

// ---- ZRANDMEMBER ------------------------------------------------------------------------------

namespace detail {

template <class Ctx>
std::size_t pick(Ctx& c, std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(c.rng());
}

/// ZRANDMEMBER key count [WITHSCORES] once the count is known.
template <class Ctx>
void randmember_count(Ctx& c, long long l, bool withscores) {
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    if (z.missing()) return c.out.array(0);
    const auto& s = *z.value;
    const auto count = static_cast<unsigned long long>(l >= 0 ? l : -l);
    if (count == 0) return c.out.array(0);
    if (l < 0 || count == 1) {
        if (count > c.max_random_draws()) return c.out.error(errors::out_of_range);
        const auto n = static_cast<std::size_t>(count);
        c.out.scored_header(n, withscores);
        for (std::size_t i = 0; i < n; ++i) {
            const auto e = *s.nth(pick(c, s.size()));
            c.out.scored_element(e.member, e.score, withscores);
        }
        return;
    }
    if (count >= s.size()) {
        c.out.scored_header(s.size(), withscores);
        for (const auto& e : s) c.out.scored_element(e.member, e.score, withscores);
        return;
    }
    const auto picked = s.random_members(static_cast<long long>(count), c.rng());
    c.out.scored_header(picked.size(), withscores);
    for (const auto& e : picked) c.out.scored_element(e.first, e.second, withscores);
}

}  // namespace detail

/// ZRANDMEMBER key [count [WITHSCORES]].
template <class Ctx>
void zrandmember(Ctx& c) {
    if (c.argc >= 3) {
        long long l = 0;
        if (!detail::integer_arg(c, 2, l)) return;
        if (l == LLONG_MIN) return c.out.error(errors::randmember_llong_min);
        if (c.argc > 4 || (c.argc == 4 && !c.is(3, "withscores")))
            return c.out.error(errors::syntax);
        const bool withscores = c.argc == 4;
        if (withscores && (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2))
            return c.out.error(errors::out_of_range);
        return detail::randmember_count(c, l, withscores);
    }
    const auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    if (z.missing()) return c.out.null();
    c.out.bulk((*z.value->nth(detail::pick(c, z.value->size()))).member);
}

// ---- ZSCAN --------------------------------------------------------------------------------

/// ZSCAN key cursor [MATCH pattern] [COUNT count].
template <class Ctx>
void zscan(Ctx& c) {
    const auto cursor = detail::parse_scan_cursor(c[2], c.rules().scan_cursor_string2ull);
    if (!cursor) return c.out.error(errors::invalid_cursor);
    const auto z = c.find_zset(c[1]);
    if (z.missing()) {
        c.out.array(2);
        c.out.bulk("0");
        return c.out.array(0);
    }
    if (c.wrongtype(z)) return;
    detail::scan_options o;
    if (!detail::parse_scan_options(c, 3, false, o)) return;
    std::vector<std::pair<std::string_view, double>> found;
    const std::uint64_t next =
        z.value->scan(*cursor, redis::detail::count_as_size(o.count), [&](const auto& e) {
            if (!o.use_pattern || glob_match(o.pattern, e.member))
                found.emplace_back(e.member, e.score);
        });
    c.out.array(2);
    c.out.bulk(std::to_string(next));
    c.out.array(found.size() * 2);
    for (const auto& e : found) {
        c.out.bulk(e.first);
        c.out.bulk(format_double_chars(e.second, c.out.style()).view());
    }
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_ZSET_READ_HPP
