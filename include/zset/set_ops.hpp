// zset set operations: ZUNION, ZINTER, ZDIFF and ZINTERCARD over sorted sets (and plain sets).
// SPDX-License-Identifier: MIT
//
// Inputs are a range of `const Set*` (a null pointer stands for a missing key, an empty set, as
// Redis treats missing keys), or of set_input<Set, Members>, which also accepts a plain set of
// members (Redis SET keys are valid inputs: each member weighs 1 before WEIGHTS). Scores combine
// exactly as Redis does: each score is multiplied by its weight (a NaN product becomes 0, except
// ZINTER's inputs after the first, whose products go to the aggregate as they are), inputs are
// visited from the smallest to the largest (Redis sorts them by cardinality), a NaN SUM is 0, and
// MIN/MAX ignore a NaN candidate. Integral scores saturate at their type's limits.
//
// Two kinds of results, one implementation:
//   union_elements / intersection_elements / difference_elements: the result elements, sorted
//     by (score, member), as views into the inputs (what ZUNION ... WITHSCORES replies; the
//     scores are exact: a -0.0 stays -0.0);
//   set_union / set_intersection / set_difference: a new Set built from those elements in the
//     smallest encoding that fits (as *STORE builds its destination), with the options and
//     allocator of the first sorted input.
// Every allocation they make (working vectors, element lists, the result) draws on the first
// sorted input's allocator, rebound: a pmr set's operations stay on its memory resource.
//
// Thread safety: the functions only read their inputs; concurrent calls on shared inputs are
// safe. Exception guarantee: strong (inputs are never modified).
#ifndef ZSET_SET_OPS_HPP
#define ZSET_SET_OPS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"

namespace zset {

/// A plain set (a Redis SET) given to a set operation: every member weighs 1.
template <class Members>
struct members_input {
    const Members* members;
};
/// Wraps a plain set of members as a set-operation input. `Members` is a container of the Set's
/// member type with size(), iteration and find(key_view) (e.g. std::set<std::string, std::less<>>).
template <class Members>
members_input<Members> as_members(const Members& m) noexcept {
    return {&m};
}

/// One input of a set operation: a sorted set, a plain set of members (Members not void), or
/// nothing (a missing key). Implicitly constructible from `const Set*` and members_input.
template <class Set, class Members = void>
class set_input {
public:
    using score_type = typename Set::score_type;
    using key_view = typename Set::key_view;

    set_input(const Set* s) noexcept : sorted_(s) {}  // NOLINT: implicit on purpose
    template <class M = Members, std::enable_if_t<!std::is_void_v<M>, int> = 0>
    set_input(members_input<M> m) noexcept : plain_(m.members) {}  // NOLINT: implicit

    /// The sorted set, or nullptr.
    const Set* sorted() const noexcept { return sorted_; }
    /// Which container it reads (Redis compares inputs by identity: the same key given twice).
    const void* identity() const noexcept {
        return sorted_ != nullptr ? static_cast<const void*>(sorted_) : plain_;
    }
    std::size_t size() const noexcept {
        if (sorted_ != nullptr) return sorted_->size();
        if constexpr (!std::is_void_v<Members>)
            if (plain_ != nullptr) return plain_->size();
        return 0;
    }
    /// The member's score in this input (1 for a plain set's member), or nullopt. Always
    /// inlined, as sorted_set::score() is: out of line, g++ returns the optional through
    /// memory, its flag byte stored and the whole word reloaded (a failed store forward), and
    /// the sorted_set's listpack lookup, inlined here, makes this function large enough for g++
    /// to leave it out of line, which would slow ZINTER at 100 (docs/design-log.md, "Lookups
    /// inlined into their caller"; bench row inter/zset/100).
    ZSET_ALWAYS_INLINE std::optional<score_type> score(key_view m) const {
        if (sorted_ != nullptr) return sorted_->score(m);
        if constexpr (!std::is_void_v<Members>)
            if (plain_ != nullptr && plain_->find(m) != plain_->end()) return score_type(1);
        return std::nullopt;
    }
    ZSET_ALWAYS_INLINE bool contains(key_view m) const { return score(m).has_value(); }
    /// Whether rank_and_score() costs what score() does: a sorted set in listpack mode, where
    /// an element's rank is its position in the set's one block.
    bool ranks_cheaply() const noexcept {
        return sorted_ != nullptr && sorted_->encoding() == encoding::listpack;
    }
    /// The member's rank and score in the sorted set, or nullopt. Precondition: sorted().
    std::optional<std::pair<std::size_t, score_type>> rank_and_score(key_view m) const noexcept {
        return sorted_->rank_with_score(m);
    }
    /// Calls f(member view, score) for every element.
    template <class F>
    void for_each(F&& f) const {
        if (sorted_ != nullptr) {
            for (const auto& e : *sorted_) f(e.member, e.score);
            return;
        }
        if constexpr (!std::is_void_v<Members>)
            if (plain_ != nullptr)
                for (const auto& m : *plain_) f(key_view(m), score_type(1));
    }

private:
    const Set* sorted_ = nullptr;
    const std::conditional_t<std::is_void_v<Members>, void, Members>* plain_ = nullptr;
};

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

/// The set_input type a range element converts to: itself, or set_input<Set> for pointers.
template <class Set, class T>
struct input_type {
    using type = set_input<Set>;
};
template <class Set, class M>
struct input_type<Set, set_input<Set, M>> {
    using type = set_input<Set, M>;
};
template <class Set, class Range>
using input_of =
    typename input_type<Set,
                        std::decay_t<decltype(*std::begin(std::declval<const Range&>()))>>::type;

/// `like`'s allocator rebound to Alloc's value type (the allocator a set operation's memory comes
/// from); with no sorted input a default-constructed one, or zset::error if there is none.
template <class Alloc, class Set>
Alloc allocator_like(const Set* like) {
    if (like != nullptr) return Alloc(like->get_allocator());
    if constexpr (std::is_default_constructible_v<Alloc>)
        return Alloc();
    else
        raise_error("ERR a set operation without any input set needs a default-constructible "
                    "allocator");
}

/// A working vector of a set operation, on the inputs' allocator.
template <class Set, class T>
using scratch_vector = std::vector<
    T, typename std::allocator_traits<typename Set::allocator_type>::template rebind_alloc<T>>;

/// One input with its weight.
template <class Set, class Range>
struct weighted_input {
    input_of<Set, Range> in;
    typename Set::score_type weight;
    std::size_t position;  // in the argument list: equal sizes keep their order
};

/// The inputs with their weights, smallest cardinality first (stable for equal sizes).
/// `weights` is empty (all 1) or one per input; otherwise zset::error(errors::syntax).
template <class Set, class Range>
scratch_vector<Set, weighted_input<Set, Range>>
weighted_inputs(const Range& sets, const std::vector<typename Set::score_type>& weights,
                const Set* like) {
    using Score = typename Set::score_type;
    using inputs = scratch_vector<Set, weighted_input<Set, Range>>;
    inputs in(allocator_like<typename inputs::allocator_type>(like));
    for (const auto& s : sets) {
        if (!weights.empty() && in.size() >= weights.size()) raise_error(errors::syntax);
        in.push_back(
            {input_of<Set, Range>(s), weights.empty() ? Score{1} : weights[in.size()], in.size()});
    }
    if (!weights.empty() && weights.size() != in.size()) raise_error(errors::syntax);
    // std::sort on (size, position) rather than std::stable_sort, whose buffer is global memory
    std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) {
        const std::size_t na = a.in.size(), nb = b.in.size();
        return na < nb || (na == nb && a.position < b.position);
    });
    return in;
}

/// The first sorted input, or nullptr (its options, functors and allocator shape results).
template <class Set, class Range>
const Set* first_sorted(const Range& sets) noexcept {
    for (const auto& s : sets)
        if (const Set* p = input_of<Set, Range>(s).sorted()) return p;
    return nullptr;
}

/// An empty result shaped like `like` (options, function objects, allocator); with no sorted
/// input the allocator must be default-constructible, otherwise that is a zset::error.
template <class Set>
Set empty_like(const Set* like) {
    if (like != nullptr)
        return Set(like->get_options(), like->hash_function(), like->key_eq(), like->member_comp(),
                   like->get_allocator());
    return Set(allocator_like<typename Set::allocator_type>(like));
}

/// Sorts result elements by (score, member). Elements holding references (non-string members)
/// cannot be reassigned: they are sorted through an index.
template <class Set, class Results>
void sort_results(Results& results, const Set* like) {
    const auto cmp = like != nullptr ? like->member_comp() : typename Set::member_compare();
    const auto less = [&cmp](const auto& a, const auto& b) {
        return a.score < b.score || (!(b.score < a.score) && cmp(a.member, b.member));
    };
    if constexpr (std::is_copy_assignable_v<typename Results::value_type>) {
        std::sort(results.begin(), results.end(), less);
    } else {
        scratch_vector<Set, std::size_t> order(results.size(), results.get_allocator());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return less(results[a], results[b]); });
        Results sorted(results.get_allocator());
        sorted.reserve(results.size());
        for (const std::size_t i : order) sorted.push_back(results[i]);
        results.swap(sorted);
    }
}

/// ZUNION's record of the elements of each listpack-mode input (ranks_cheaply()) that an
/// earlier input has already counted, one bit per rank. Every member is counted once, at the
/// first input holding it, whose pass looks it up in every later input; so the later inputs'
/// lookups can mark it, and a marked input's own pass then knows which of its members an earlier
/// input holds without looking them up there (two listpack inputs of 100 overlapping in full:
/// half the lookups).
template <class Set>
class counted_ranks {
public:
    template <class Inputs>
    explicit counted_ranks(const Inputs& in)
        : first_word_(in.size() + 1, 0, in.get_allocator()), words_(in.get_allocator()) {
        std::size_t words = 0;
        for (std::size_t i = 0; i < in.size(); ++i) {
            first_word_[i] = words;
            if (in[i].in.ranks_cheaply()) words += (in[i].in.size() + 63) / 64;
        }
        first_word_[in.size()] = words;
        words_.assign(words, 0);
    }
    /// Does input i keep marks (and so its members need no lookup in earlier inputs)?
    bool tracks(std::size_t input) const noexcept {
        return first_word_[input] != first_word_[input + 1];
    }
    void mark(std::size_t input, std::size_t rank) noexcept {
        words_[first_word_[input] + rank / 64] |= std::uint64_t{1} << (rank % 64);
    }
    bool marked(std::size_t input, std::size_t rank) const noexcept {
        return (words_[first_word_[input] + rank / 64] >> (rank % 64) & 1u) != 0;
    }

private:
    scratch_vector<Set, std::size_t> first_word_;
    scratch_vector<Set, std::uint64_t> words_;
};

template <class Set, class Elements>
Set build_from(const Elements& els, const Set* like) {
    Set out = empty_like(like);
    out.assign_sorted(els.begin(), els.end());
    return out;
}

}  // namespace detail

/// Result elements of a set operation: (member view, score), sorted by (score, member). The
/// views point into the inputs and stay valid while the inputs are unchanged. The vector uses the
/// first sorted input's allocator (std::vector<reference> for the default allocator).
template <class Set>
using set_op_elements = detail::scratch_vector<Set, typename Set::reference>;

/// ZUNION's elements: every member found in any input, with its weighted scores aggregated.
/// \param sets    a range of `const Set*` (nullptr = missing key) or of set_input<Set, M>.
/// \param weights empty (all 1) or one weight per input; otherwise zset::error(errors::syntax).
/// Complexity O(N * K + M log M): N input elements, K inputs, M result size.
template <class Set, class SetRange>
set_op_elements<Set> union_elements(const SetRange& sets,
                                    const std::vector<typename Set::score_type>& weights = {},
                                    aggregate agg = aggregate::sum) {
    using Score = typename Set::score_type;
    const Set* const like = detail::first_sorted<Set>(sets);
    const auto in = detail::weighted_inputs<Set>(sets, weights, like);
    set_op_elements<Set> results(in.get_allocator());
    detail::counted_ranks<Set> counted(in);
    const auto held_before = [&](std::size_t i, std::size_t rank, typename Set::key_view m) {
        if (counted.tracks(i)) return counted.marked(i, rank);
        for (std::size_t j = 0; j < i; ++j)
            if (in[j].in.contains(m)) return true;
        return false;
    };
    const auto score_in = [&](std::size_t j, typename Set::key_view m) -> std::optional<Score> {
        if (!counted.tracks(j)) return in[j].in.score(m);
        const auto t = in[j].in.rank_and_score(m);
        if (!t) return std::nullopt;
        counted.mark(j, t->first);
        return t->second;
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        std::size_t rank = 0;
        in[i].in.for_each([&](typename Set::key_view m, Score s) {
            // Counted once, at the first input that has it; later inputs are folded in, in
            // order, exactly as Redis's accumulator sees them.
            if (held_before(i, rank++, m)) return;
            Score acc = detail::weighted(s, in[i].weight);
            for (std::size_t j = i + 1; j < in.size(); ++j)
                if (const auto t = score_in(j, m))
                    detail::combine(acc, detail::weighted(*t, in[j].weight), agg);
            results.push_back({m, acc});
        });
    }
    detail::sort_results(results, like);
    return results;
}

/// ZINTER's elements: the members found in every input. Walks the smallest input and probes
/// the others. O(N_min * K + M log M).
template <class Set, class SetRange>
set_op_elements<Set>
intersection_elements(const SetRange& sets,
                      const std::vector<typename Set::score_type>& weights = {},
                      aggregate agg = aggregate::sum) {
    using Score = typename Set::score_type;
    const Set* const like = detail::first_sorted<Set>(sets);
    const auto in = detail::weighted_inputs<Set>(sets, weights, like);
    set_op_elements<Set> results(in.get_allocator());
    if (in.empty()) return results;
    in.front().in.for_each([&](typename Set::key_view m, Score s) {
        Score acc = detail::weighted(s, in.front().weight);
        for (std::size_t j = 1; j < in.size(); ++j) {
            // As Redis: the same input twice reuses the walked score; only the first input's
            // product is cleaned of NaN (SUM then turns NaN into 0, MIN/MAX skip it).
            const auto t = in[j].in.identity() == in.front().in.identity() ? std::optional<Score>(s)
                                                                           : in[j].in.score(m);
            if (!t) return;
            detail::combine(acc, detail::multiply(*t, in[j].weight), agg);
        }
        results.push_back({m, acc});
    });
    detail::sort_results(results, like);
    return results;
}

/// ZDIFF's elements: those of the first input found in none of the others, with the first
/// input's scores (no weights). Already in order. O(N_first * K).
template <class Set, class SetRange>
set_op_elements<Set> difference_elements(const SetRange& sets) {
    using inputs = detail::scratch_vector<Set, detail::input_of<Set, SetRange>>;
    const Set* const like = detail::first_sorted<Set>(sets);
    const inputs in(std::begin(sets), std::end(sets),
                    detail::allocator_like<typename inputs::allocator_type>(like));
    set_op_elements<Set> results(in.get_allocator());
    if (in.empty()) return results;
    in.front().for_each([&](typename Set::key_view m, typename Set::score_type s) {
        for (std::size_t j = 1; j < in.size(); ++j)
            if (in[j].contains(m)) return;
        results.push_back({m, s});
    });
    if (in.front().sorted() == nullptr) detail::sort_results(results, like);
    return results;
}

/// ZUNION as a new set (ZUNIONSTORE is `dst = set_union<Set>(...)`), in the smallest encoding
/// that fits, with the first sorted input's options, function objects and allocator.
template <class Set, class SetRange>
Set set_union(const SetRange& sets, const std::vector<typename Set::score_type>& weights = {},
              aggregate agg = aggregate::sum) {
    return detail::build_from(union_elements<Set>(sets, weights, agg),
                              detail::first_sorted<Set>(sets));
}

/// ZINTER as a new set (ZINTERSTORE). See set_union.
template <class Set, class SetRange>
Set set_intersection(const SetRange& sets,
                     const std::vector<typename Set::score_type>& weights = {},
                     aggregate agg = aggregate::sum) {
    return detail::build_from(intersection_elements<Set>(sets, weights, agg),
                              detail::first_sorted<Set>(sets));
}

/// ZDIFF as a new set (ZDIFFSTORE). See set_union.
template <class Set, class SetRange>
Set set_difference(const SetRange& sets) {
    return detail::build_from(difference_elements<Set>(sets), detail::first_sorted<Set>(sets));
}

/// ZINTERCARD numkeys key... [LIMIT limit]: the size of the intersection; counting stops at
/// `limit` when limit > 0 (0 = no limit). O(N_min * K).
template <class Set, class SetRange>
std::size_t intersection_cardinality(const SetRange& sets, std::size_t limit = 0) {
    const auto in = detail::weighted_inputs<Set>(sets, {}, detail::first_sorted<Set>(sets));
    std::size_t n = 0;
    if (in.empty()) return 0;
    bool stop = false;
    in.front().in.for_each([&](typename Set::key_view m, typename Set::score_type) {
        if (stop) return;
        for (std::size_t j = 1; j < in.size(); ++j)
            if (in[j].in.identity() != in.front().in.identity() && !in[j].in.contains(m)) return;
        stop = ++n == limit;
    });
    return n;
}

}  // namespace zset

#endif  // ZSET_SET_OPS_HPP
