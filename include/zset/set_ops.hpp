// zset set operations: ZUNION, ZINTER, ZDIFF and ZINTERCARD over sorted sets.
//
// Inputs are a sequence of `const Set*`; a null pointer stands for a missing key (an empty set),
// as Redis treats missing keys. Results are new sets built in the smallest encoding that fits
// (as *STORE commands build them), with the options and allocator of the first non-null input.
// Scores combine exactly as Redis does: each score is multiplied by its weight (a NaN product
// becomes 0, except ZINTER's inputs after the first, whose products go to the aggregate as
// they are), sets are visited from the smallest to the largest (Redis sorts them by
// cardinality), a NaN SUM is 0, and MIN/MAX ignore a NaN candidate. Integral scores saturate
// at their type's limits instead of overflowing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"

namespace zset {
namespace detail {

/// score * weight; integral scores saturate at the type's limits instead of overflowing.
template <class Score>
Score multiply(Score a, Score b) noexcept {
    if constexpr (std::is_floating_point_v<Score>) {
        return a * b;
    } else {
        using limits = std::numeric_limits<Score>;
        if (a == 0 || b == 0) return Score{0};
        const bool negative = (a < 0) != (b < 0);
        const Score saturated = negative ? limits::lowest() : limits::max();
        if constexpr (std::is_signed_v<Score>) {
            // |a * b| > max, tested by division without overflowing (lowest() / -1 overflows)
            if (a == -1) return b == limits::lowest() ? limits::max() : static_cast<Score>(-b);
            if (b == -1) return a == limits::lowest() ? limits::max() : static_cast<Score>(-a);
            // trunc-toward-zero division gives the exact bound in every sign case
            const bool overflow =
                negative ? (a < 0 ? a < limits::lowest() / b : b < limits::lowest() / a)
                         : (a > 0 ? a > limits::max() / b : a < limits::max() / b);
            if (overflow) return saturated;
        } else if (a > limits::max() / b) {
            return saturated;
        }
        return static_cast<Score>(a * b);
    }
}
/// a + b; integral scores saturate.
template <class Score>
Score add(Score a, Score b) noexcept {
    if constexpr (std::is_floating_point_v<Score>) {
        return a + b;
    } else {
        using limits = std::numeric_limits<Score>;
        if (b > 0 && a > limits::max() - b) return limits::max();
        if constexpr (std::is_signed_v<Score>)
            if (b < 0 && a < limits::lowest() - b) return limits::lowest();
        return static_cast<Score>(a + b);
    }
}

template <class Score>
Score weighted(Score score, Score weight) noexcept {
    const Score v = multiply(score, weight);
    if constexpr (std::is_floating_point_v<Score>)
        if (std::isnan(v)) return Score{0};
    return v;
}

template <class Score>
void combine(Score& acc, Score v, aggregate agg) noexcept {
    switch (agg) {
    case aggregate::sum:
        acc = add(acc, v);
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(acc)) acc = Score{0};
        break;
    case aggregate::min:
        acc = v < acc ? v : acc;
        break;
    case aggregate::max:
        acc = v > acc ? v : acc;
        break;
    }
}

/// The inputs with their weights, smallest cardinality first (stable for equal sizes).
template <class Set, class SetRange>
std::vector<std::pair<const Set*, typename Set::score_type>>
weighted_inputs(const SetRange& sets, const std::vector<typename Set::score_type>& weights) {
    using Score = typename Set::score_type;
    std::vector<std::pair<const Set*, Score>> in;
    std::size_t i = 0;
    for (const Set* s : sets) {
        if (!weights.empty() && i >= weights.size()) detail::raise_error(errors::syntax);
        in.emplace_back(s, weights.empty() ? Score{1} : weights[i]);
        ++i;
    }
    if (!weights.empty() && weights.size() != in.size()) detail::raise_error(errors::syntax);
    std::stable_sort(in.begin(), in.end(), [](const auto& a, const auto& b) {
        return (a.first ? a.first->size() : 0) < (b.first ? b.first->size() : 0);
    });
    return in;
}

/// An empty result with the options, function objects and allocator of the first input
/// present. With none present the allocator must be default-constructible; otherwise that is a
/// zset::error, as no allocator exists to build the result with.
template <class Set, class SetRange>
Set empty_like(const SetRange& sets) {
    for (const Set* s : sets)
        if (s != nullptr)
            return Set(s->get_options(), s->hash_function(), s->key_eq(), s->member_comp(),
                       s->get_allocator());
    if constexpr (std::is_default_constructible_v<typename Set::allocator_type>)
        return Set();
    else
        detail::raise_error(
            "ERR a set operation without any input set needs a default-constructible allocator");
}

/// Sorts the (member, score) results by (score, member) and stores them in `out`.
/// Members are views for byte-string members; other members are referenced, so the sort
/// goes through an index (the references cannot be reassigned).
template <class Set, class Results>
Set build_result(Results& results, Set out) {
    const auto less = [cmp = out.member_comp()](const auto& a, const auto& b) {
        return a.score < b.score || (!(b.score < a.score) && cmp(a.member, b.member));
    };
    if constexpr (std::is_copy_assignable_v<typename Results::value_type>) {
        std::sort(results.begin(), results.end(), less);
        out.assign_sorted(results.begin(), results.end());
    } else {
        std::vector<std::size_t> order(results.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return less(results[a], results[b]); });
        Results sorted;
        sorted.reserve(results.size());
        for (const std::size_t i : order) sorted.push_back(results[i]);
        out.assign_sorted(sorted.begin(), sorted.end());
    }
    return out;
}

template <class Set>
using result_element = typename Set::reference;

}  // namespace detail

/// ZUNION numkeys key... [WEIGHTS w...] [AGGREGATE SUM|MIN|MAX].
/// \param sets    a range of `const Set*` (nullptr = missing key).
/// \param weights empty (all 1) or one weight per set; otherwise zset::error("ERR syntax error").
/// Complexity O(N * K + M log M): N total input elements, K inputs, M result size.
/// Strong guarantee (inputs are never modified).
template <class Set, class SetRange>
Set set_union(const SetRange& sets, const std::vector<typename Set::score_type>& weights = {},
              aggregate agg = aggregate::sum) {
    using Score = typename Set::score_type;
    const auto in = detail::weighted_inputs<Set>(sets, weights);
    Set like = detail::empty_like<Set>(sets);
    std::vector<detail::result_element<Set>> results;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i].first == nullptr) continue;
        for (const auto& e : *in[i].first) {
            // Counted once, at the first input that has it; later inputs are folded in, in
            // order, exactly as Redis's accumulator sees them.
            bool seen_before = false;
            for (std::size_t j = 0; j < i && !seen_before; ++j)
                seen_before = in[j].first != nullptr && in[j].first->contains(e.member);
            if (seen_before) continue;
            Score acc = detail::weighted(e.score, in[i].second);
            for (std::size_t j = i + 1; j < in.size(); ++j) {
                if (in[j].first == nullptr) continue;
                if (const auto s = in[j].first->score(e.member))
                    detail::combine(acc, detail::weighted(*s, in[j].second), agg);
            }
            results.push_back({e.member, acc});
        }
    }
    return detail::build_result(results, std::move(like));
}

/// ZINTER numkeys key... [WEIGHTS w...] [AGGREGATE SUM|MIN|MAX]. Iterates the smallest input
/// and probes the others. O(N_min * K + M log M). Strong guarantee.
template <class Set, class SetRange>
Set set_intersection(const SetRange& sets,
                     const std::vector<typename Set::score_type>& weights = {},
                     aggregate agg = aggregate::sum) {
    using Score = typename Set::score_type;
    const auto in = detail::weighted_inputs<Set>(sets, weights);
    Set like = detail::empty_like<Set>(sets);
    std::vector<detail::result_element<Set>> results;
    if (in.empty() || in.front().first == nullptr) return like;
    for (const auto& e : *in.front().first) {
        Score acc = detail::weighted(e.score, in.front().second);
        bool everywhere = true;
        for (std::size_t j = 1; j < in.size() && everywhere; ++j) {
            const auto s = in[j].first ? in[j].first->score(e.member) : std::nullopt;
            if (!s)
                everywhere = false;
            else  // as Redis: only the first input's product is cleaned of NaN; later ones
                  // reach the aggregate as they are (SUM then turns NaN into 0, MIN/MAX skip it)
                detail::combine(acc, detail::multiply(*s, in[j].second), agg);
        }
        if (everywhere) results.push_back({e.member, acc});
    }
    return detail::build_result(results, std::move(like));
}

/// ZDIFF numkeys key...: the elements of the first set found in none of the others, with their
/// scores from the first set. O(N_first * K). Strong guarantee.
template <class Set, class SetRange>
Set set_difference(const SetRange& sets) {
    Set like = detail::empty_like<Set>(sets);
    auto it = std::begin(sets);
    if (it == std::end(sets) || *it == nullptr) return like;
    const Set* base = *it;
    std::vector<const Set*> others(std::next(it), std::end(sets));
    std::vector<detail::result_element<Set>> results;
    for (const auto& e : *base) {
        bool elsewhere = false;
        for (const Set* o : others)
            if (o != nullptr && o->contains(e.member)) {
                elsewhere = true;
                break;
            }
        if (!elsewhere) results.push_back({e.member, e.score});
    }
    like.assign_sorted(results.begin(), results.end());  // already in order: no sort needed
    return like;
}

/// ZINTERCARD numkeys key... [LIMIT limit]: the size of the intersection, counting stops at
/// `limit` when limit > 0 (0 = no limit). O(N_min * K).
template <class Set, class SetRange>
std::size_t intersection_cardinality(const SetRange& sets, std::size_t limit = 0) {
    const auto in = detail::weighted_inputs<Set>(sets, {});
    if (in.empty() || in.front().first == nullptr) return 0;
    std::size_t n = 0;
    for (const auto& e : *in.front().first) {
        bool everywhere = true;
        for (std::size_t j = 1; j < in.size() && everywhere; ++j)
            everywhere = in[j].first != nullptr && in[j].first->contains(e.member);
        if (everywhere && ++n == limit) break;
    }
    return n;
}

}  // namespace zset
