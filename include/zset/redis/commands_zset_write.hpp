// zset::redis::commands — sorted-set writes: ZADD, ZINCRBY, ZREM, ZREMRANGEBYRANK / SCORE / LEX,
// ZPOPMIN, ZPOPMAX, ZMPOP and the blocking BZPOPMIN, BZPOPMAX, BZMPOP.
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's t_zset.c (checked against redis-server 7.0.15). Encodings are the
// container's own rules: before a write, the set gets the thresholds in force (set_options), so
// it converts to skiplist exactly when Redis's zsetAdd would. A set emptied by a command is
// deleted; a key that changes is reported (WATCH, and a module's propagation).
//
// The handlers are templates over the sorted-set context (command.hpp's file comment lists what
// they use of it): the keyspace runs them with `command`, the Redis module with its own.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_ZSET_WRITE_HPP
#define ZSET_REDIS_COMMANDS_ZSET_WRITE_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "commands_zset_common.hpp"

namespace zset::redis::commands {

namespace detail {

/// One ZADD INCR / ZINCRBY step. \returns false after replying an error.
template <class Ctx, class Set>
bool zadd_increment(Ctx& c, Set& s, const zadd_request& r, std::optional<double>& result) {
    const std::string_view member = r.member(c, 0);
    const double delta = r.scores[0];
    const auto current = s.score(member);
    // Redis checks NX before the sum and GT / LT after it: only NX avoids the NaN error.
    if (current && !zset::has(r.flags, zset::add_flags::nx) && std::isnan(*current + delta))
        return c.out.error(errors::nan_result), false;
    result = s.increment(member, delta, r.flags);
    return true;
}

/// Converts a listpack-mode set to skiplist mode now, with room for `size_hint` elements.
template <class Set>
void convert_to_skiplist(Set& s, const zset::options& o, std::size_t size_hint) {
    if (s.encoding() == zset::encoding::skiplist) return;
    zset::options forced = o;
    forced.max_listpack_entries = 0;  // reserve() then converts whatever the set holds
    s.set_options(forced);
    s.reserve(std::max(size_hint, s.size() + 1));
    s.set_options(o);
}

/// ZADD's encoding choice before it adds (server_rules::zadd_hint), for `r`'s pairs on `s`,
/// which the command has just created when `created`.
template <class Ctx, class Set>
void apply_zadd_hint(Ctx& c, Set& s, const zadd_request& r, bool created) {
    const zadd_encoding_hint hint = c.rules().zadd_hint;
    if (hint == zadd_encoding_hint::none || s.encoding() == zset::encoding::skiplist) return;
    const zset::options o = c.zset_options();
    std::size_t longest = 0;
    if (hint == zadd_encoding_hint::pair_count_and_length) {
        for (std::size_t j = 0; j < r.scores.size(); ++j)
            longest = std::max(longest, r.member(c, j).size());
    } else if (created) {
        longest = r.member(c, 0).size();
    }
    if (r.scores.size() > o.max_listpack_entries || longest > o.max_listpack_value)
        convert_to_skiplist(s, o, r.scores.size());
}

}  // namespace detail

/// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ... ; ZINCRBY is zadd_generic(c, true).
template <class Ctx>
void zadd_generic(Ctx& c, bool incr_command) {
    using set_type = typename Ctx::zset_type;
    detail::zadd_request r;
    if (!detail::parse_zadd(c, incr_command, r)) return;
    const std::string_view key = c[1];
    const bool xx = zset::has(r.flags, zset::add_flags::xx);
    auto existing = c.find_zset(key);
    if (c.wrongtype(existing)) return;
    if (existing.missing() && xx) return r.incr ? c.out.null() : c.out.integer(0);
    set_type& s = *detail::zset_for_write(c, key, true);
    detail::apply_zadd_hint(c, s, r, existing.missing());
    // If an insertion throws (std::bad_alloc), a key created here must not stay empty.
    struct empty_key_guard {
        Ctx& c;
        std::string_view key;
        const set_type& set;
        ~empty_key_guard() {
            if (set.empty()) c.remove_key(key);
        }
    } guard{c, key, s};
    if (r.incr) {
        const auto before = s.score(r.member(c, 0));
        std::optional<double> result;
        if (!detail::zadd_increment(c, s, r, result)) return;
        // As Redis: only an added member or a changed score is a modification (WATCH).
        if (result && (!before || *before != *result)) c.key_modified(key);
        return result ? c.out.dbl(*result) : c.out.null();
    }
    long long added = 0, updated = 0;
    for (std::size_t j = 0; j < r.scores.size(); ++j) {
        const zset::add_status st = s.add(r.member(c, j), r.scores[j], r.flags);
        added += st == zset::add_status::added ? 1 : 0;
        updated += st == zset::add_status::updated ? 1 : 0;
    }
    if (added > 0 || updated > 0) c.key_modified(key);
    c.out.integer(r.ch ? added + updated : added);
}

template <class Ctx>
void zadd(Ctx& c) {
    zadd_generic(c, false);
}
template <class Ctx>
void zincrby(Ctx& c) {
    zadd_generic(c, true);
}

/// ZREM key member ...
template <class Ctx>
void zrem(Ctx& c) {
    auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    if (z.missing()) return c.out.integer(0);
    long long deleted = 0;
    for (std::size_t j = 2; j < c.argc && !z.value->empty(); ++j)
        deleted += z.value->erase(c[j]) ? 1 : 0;
    detail::after_write(c, c[1], *z.value, deleted > 0);
    c.out.integer(deleted);
}

/// ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX key min max.
template <class Ctx>
void zremrange(Ctx& c, detail::range_by by) {
    detail::range_request r;
    r.by = by;
    const std::string_view min = c[2], max = c[3];
    if (by == detail::range_by::rank &&
        !(detail::integer_arg(c, 2, r.start) && detail::integer_arg(c, 3, r.stop)))
        return;
    if (by == detail::range_by::score) {
        const auto range = parse_score_range(min, max, c.rules().scores);
        if (!range) return c.out.error(errors::minmax_not_float);
        r.scores = *range;
    } else if (by == detail::range_by::lex) {
        const auto range = parse_lex_range(min, max);
        if (!range) return c.out.error(errors::lex_range);
        r.lex = *range;
    }
    auto z = c.find_zset(c[1]);
    if (c.wrongtype(z)) return;
    if (z.missing()) return c.out.integer(0);
    const std::size_t removed =
        by == detail::range_by::rank    ? z.value->erase_range_by_rank(r.start, r.stop)
        : by == detail::range_by::score ? z.value->erase_range_by_score(r.scores)
                                        : z.value->erase_range_by_lex(r.lex);
    detail::after_write(c, c[1], *z.value, removed > 0);
    c.out.integer(static_cast<long long>(removed));
}

template <class Ctx>
void zremrangebyrank(Ctx& c) {
    zremrange(c, detail::range_by::rank);
}
template <class Ctx>
void zremrangebyscore(Ctx& c) {
    zremrange(c, detail::range_by::score);
}
template <class Ctx>
void zremrangebylex(Ctx& c) {
    zremrange(c, detail::range_by::lex);
}

// ---- popping --------------------------------------------------------------------------------

namespace detail {

/// Which end a pop takes from.
enum class pop_side { min, max };

/// How popped elements are laid out in the reply.
enum class pop_shape {
    pairs_flat,     ///< m, s, m, s          (ZPOPMIN in RESP2 or without COUNT)
    pairs_nested,   ///< [m, s], [m, s]      (ZPOPMIN key count in RESP3)
    key_then_flat,  ///< key, m, s           (BZPOPMIN / BZPOPMAX)
    key_then_list,  ///< key, [[m, s], ...]  (ZMPOP / BZMPOP)
};

/// What to pop and how to reply.
struct pop_request {
    pop_side side = pop_side::min;
    pop_shape shape = pop_shape::pairs_flat;
    long long count = 1;
    bool nil_when_missing = false;  ///< a null array instead of an empty array
};

template <class Ctx>
void pop_header(Ctx& c, std::string_view key, std::size_t n, pop_shape shape) {
    switch (shape) {
    case pop_shape::pairs_flat:
        return c.out.array(n * 2);
    case pop_shape::pairs_nested:
        return c.out.array(n);
    case pop_shape::key_then_flat:
        c.out.array(n * 2 + 1);
        return c.out.bulk(key);
    case pop_shape::key_then_list:
        c.out.array(2);
        c.out.bulk(key);
        return c.out.array(n);
    }
}

/// Pops from the sorted set under `key` (present) and replies (Redis genericZpopCommand's tail).
template <class Ctx, class Set>
void pop_from(Ctx& c, std::string_view key, Set& s, const pop_request& r) {
    if (r.count == 0) return c.out.array(0);
    const std::size_t n = std::min(redis::detail::count_as_size(r.count), s.size());
    const auto popped = r.side == pop_side::max ? s.pop_max(n) : s.pop_min(n);
    pop_header(c, key, n, r.shape);
    const bool nested = r.shape == pop_shape::pairs_nested || r.shape == pop_shape::key_then_list;
    for (const auto& e : popped) {
        if (nested) c.out.array(2);
        c.out.bulk(e.first);
        c.out.dbl(e.second);
    }
    after_write(c, key, s, !popped.empty());
}

/// Pops from the first of `nkeys` keys that holds a sorted set (WRONGTYPE stops the scan).
template <class Ctx>
void pop_first(Ctx& c, const std::string_view* keys, std::size_t nkeys, const pop_request& r) {
    for (std::size_t i = 0; i < nkeys; ++i) {
        auto z = c.find_zset(keys[i]);
        if (c.wrongtype(z)) return;
        if (!z.missing()) return pop_from(c, keys[i], *z.value, r);
    }
    return r.nil_when_missing ? c.out.null_array() : c.out.array(0);
}

/// Blocking form: pops now, or (when every key is missing) blocks, or replies as a timeout when
/// the session may not block (inside MULTI).
template <class Ctx>
void pop_or_block(Ctx& c, const std::string_view* keys, std::size_t nkeys, const pop_request& r,
                  long long timeout_ms) {
    for (std::size_t i = 0; i < nkeys; ++i) {
        if (c.serving_other_than(keys[i])) continue;
        auto z = c.find_zset(keys[i]);
        if (c.wrongtype(z)) return;
        if (!z.missing()) return pop_from(c, keys[i], *z.value, r);
    }
    if (!c.may_block()) return c.out.null_array();
    c.block_on(keys, nkeys, timeout_ms);
}

/// MIN | MAX [COUNT count] after the keys of ZMPOP / BZMPOP.
template <class Ctx>
bool parse_mpop_tail(Ctx& c, std::size_t where, pop_request& r) {
    if (c.is(where, "min"))
        r.side = pop_side::min;
    else if (c.is(where, "max"))
        r.side = pop_side::max;
    else
        return c.out.error(errors::syntax), false;
    r.count = -1;
    for (std::size_t j = where + 1; j < c.argc; ++j) {
        if (r.count != -1 || !c.is(j, "count") || j + 1 >= c.argc)
            return c.out.error(errors::syntax), false;
        const auto v = parse_integer(c[++j]);
        if (!v || *v < 1) return c.out.error(errors::count_positive), false;
        r.count = *v;
    }
    if (r.count == -1) r.count = 1;
    return true;
}

/// ZMPOP / BZMPOP: [timeout] numkeys key ... MIN|MAX [COUNT n].
template <class Ctx>
void mpop(Ctx& c, bool blocking) {
    const std::size_t numkeys_idx = blocking ? 2 : 1;
    const auto numkeys = parse_integer(c[numkeys_idx]);
    if (!numkeys || *numkeys < 1) return c.out.error(errors::numkeys_positive);
    if (static_cast<unsigned long long>(*numkeys) >= c.argc - numkeys_idx - 1)
        return c.out.error(errors::syntax);
    const auto nkeys = static_cast<std::size_t>(*numkeys);
    pop_request r;
    r.shape = pop_shape::key_then_list;
    r.nil_when_missing = true;
    if (!parse_mpop_tail(c, numkeys_idx + nkeys + 1, r)) return;
    const std::string_view* keys = c.argv + numkeys_idx + 1;
    if (!blocking) return pop_first(c, keys, nkeys, r);
    long long timeout = 0;
    if (!parse_timeout_ms(c, c[1], timeout)) return;
    pop_or_block(c, keys, nkeys, r, timeout);
}

}  // namespace detail

/// ZPOPMIN / ZPOPMAX key [count].
template <class Ctx>
void zpop(Ctx& c, detail::pop_side side) {
    if (c.argc > 3) return c.out.error(errors::syntax);
    detail::pop_request r;
    r.side = side;
    if (c.argc == 3) {
        const auto v = parse_integer(c[2]);
        if (!v || *v < 0) return c.out.error(errors::out_of_range_positive);
        r.count = *v;
        if (c.out.proto() == protocol::resp3) r.shape = detail::pop_shape::pairs_nested;
    }
    detail::pop_first(c, c.argv + 1, 1, r);
}

template <class Ctx>
void zpopmin(Ctx& c) {
    zpop(c, detail::pop_side::min);
}
template <class Ctx>
void zpopmax(Ctx& c) {
    zpop(c, detail::pop_side::max);
}

/// BZPOPMIN / BZPOPMAX key ... timeout.
template <class Ctx>
void bzpop(Ctx& c, detail::pop_side side) {
    long long timeout = 0;
    if (!detail::parse_timeout_ms(c, c[c.argc - 1], timeout)) return;
    detail::pop_request r;
    r.side = side;
    r.shape = detail::pop_shape::key_then_flat;
    detail::pop_or_block(c, c.argv + 1, c.argc - 2, r, timeout);
}

template <class Ctx>
void bzpopmin(Ctx& c) {
    bzpop(c, detail::pop_side::min);
}
template <class Ctx>
void bzpopmax(Ctx& c) {
    bzpop(c, detail::pop_side::max);
}
template <class Ctx>
void zmpop(Ctx& c) {
    detail::mpop(c, false);
}
template <class Ctx>
void bzmpop(Ctx& c) {
    detail::mpop(c, true);
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_ZSET_WRITE_HPP
