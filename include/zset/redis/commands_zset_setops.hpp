// zset::redis::commands — set operations: ZUNION, ZINTER, ZDIFF, their STORE forms and
// ZINTERCARD, computed by the library's own <zset/set_ops.hpp>.
// SPDX-License-Identifier: MIT
//
// Validation follows Redis 7.0's zunionInterDiffGenericCommand: numkeys, then the keys (a plain
// set is a valid input, each member weighing 1; another type is WRONGTYPE), then the options.
// *STORE results are built in the smallest encoding that fits the thresholds in force; an empty
// result deletes the destination. Templates over the sorted-set context (command.hpp).
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_ZSET_SETOPS_HPP
#define ZSET_REDIS_COMMANDS_ZSET_SETOPS_HPP

#include <cstddef>
#include <string_view>
#include <vector>

#include "../set_ops.hpp"
#include "arguments.hpp"
#include "command.hpp"
#include "commands_zset_common.hpp"

namespace zset::redis::commands {

namespace detail {

/// Which operation.
enum class setop { set_union, set_inter, set_diff };

/// What the command name fixes: the operation, where numkeys is, whether it stores or counts.
struct setop_form {
    setop op;
    std::size_t numkeys_index;  ///< 1, or 2 for the STORE forms
    bool store;
    bool cardinality;  ///< ZINTERCARD
};

/// The parsed options after the keys.
struct setop_options {
    std::vector<double> weights;
    zset::aggregate agg = zset::aggregate::sum;
    bool withscores = false;
    long long limit = 0;
};

/// numkeys and the input keys; replies the error and returns false when they are bad.
template <class Ctx>
bool parse_setop_inputs(Ctx& c, const setop_form& f, std::vector<typename Ctx::setop_input>& in) {
    const auto n = parse_integer(c[f.numkeys_index]);
    if (!n) return c.out.error(errors::not_integer), false;
    if (*n < 1) return c.out.error(errors::at_least_one_key(c.spec->name)), false;
    if (static_cast<unsigned long long>(*n) > c.argc - (f.numkeys_index + 1))
        return c.out.error(errors::syntax), false;
    for (std::size_t j = f.numkeys_index + 1; in.size() < static_cast<std::size_t>(*n); ++j) {
        auto input = c.setop_input_of(c[j]);
        if (!input) return c.out.error(errors::wrongtype), false;
        in.push_back(*input);
    }
    return true;
}

/// WEIGHTS / AGGREGATE / WITHSCORES / LIMIT after the keys, as the form allows them.
template <class Ctx>
bool parse_setop_options(Ctx& c, const setop_form& f, std::size_t j, std::size_t n,
                         setop_options& o) {
    const bool weighted = f.op != setop::set_diff && !f.cardinality;
    while (j < c.argc) {
        const std::size_t remaining = c.argc - j;
        if (weighted && remaining >= n + 1 && c.is(j, "weights")) {
            for (++j; o.weights.size() < n; ++j) {
                const auto w = parse_score(c[j], c.rules().scores);
                if (!w) return c.out.error(errors::weight_not_float), false;
                o.weights.push_back(*w);
            }
        } else if (weighted && remaining >= 2 && c.is(j, "aggregate")) {
            if (c.is(j + 1, "sum"))
                o.agg = zset::aggregate::sum;
            else if (c.is(j + 1, "min"))
                o.agg = zset::aggregate::min;
            else if (c.is(j + 1, "max"))
                o.agg = zset::aggregate::max;
            else
                return c.out.error(errors::syntax), false;
            j += 2;
        } else if (!f.store && !f.cardinality && c.is(j, "withscores")) {
            o.withscores = true;
            ++j;
        } else if (f.cardinality && remaining >= 2 && c.is(j, "limit")) {
            const auto v = parse_integer(c[j + 1]);
            if (!v || *v < 0) return c.out.error(errors::limit_negative), false;
            o.limit = *v;
            j += 2;
        } else {
            return c.out.error(errors::syntax), false;
        }
    }
    return true;
}

/// ZUNION / ZINTER / ZDIFF (+STORE) / ZINTERCARD (Redis zunionInterDiffGenericCommand).
template <class Ctx>
void setop_generic(Ctx& c, const setop_form& f) {
    using set_type = typename Ctx::zset_type;
    std::vector<typename Ctx::setop_input> in;
    if (!parse_setop_inputs(c, f, in)) return;
    setop_options o;
    if (!parse_setop_options(c, f, f.numkeys_index + 1 + in.size(), in.size(), o)) return;
    if (f.cardinality)
        return c.out.integer(static_cast<long long>(
            zset::intersection_cardinality<set_type>(in, static_cast<std::size_t>(o.limit))));
    const auto els = f.op == setop::set_union ? zset::union_elements<set_type>(in, o.weights, o.agg)
                     : f.op == setop::set_inter
                         ? zset::intersection_elements<set_type>(in, o.weights, o.agg)
                         : zset::difference_elements<set_type>(in);
    if (f.store)
        return store_set(c, c[1], set_type::from_sorted(els.begin(), els.end(), c.zset_options()));
    c.out.scored_header(els.size(), o.withscores);
    for (const auto& e : els) c.out.scored_element(e.member, e.score, o.withscores);
}

}  // namespace detail

template <class Ctx>
void zunion(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_union, 1, false, false});
}
template <class Ctx>
void zinter(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_inter, 1, false, false});
}
template <class Ctx>
void zdiff(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_diff, 1, false, false});
}
template <class Ctx>
void zunionstore(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_union, 2, true, false});
}
template <class Ctx>
void zinterstore(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_inter, 2, true, false});
}
template <class Ctx>
void zdiffstore(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_diff, 2, true, false});
}
template <class Ctx>
void zintercard(Ctx& c) {
    detail::setop_generic(c, {detail::setop::set_inter, 1, false, true});
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_ZSET_SETOPS_HPP
