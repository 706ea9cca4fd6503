// zset::detail::set_engine: the container's operations, each composing the layers before it,
// grouped by Redis command family: ZADD / ZINCRBY / ZREM, ZSCORE / ZRANK, ZCOUNT, ZRANGE,
// ZREMRANGEBY* / ZPOP*, building, ZRANDMEMBER / ZSCAN, and validate(). Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// A public member is defined here unless a lower layer calls it: the lifetime, the observers
// and size (state.hpp), and begin, end and nth (views.hpp). A helper that serves one operation
// only sits beside it.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_OPERATIONS_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_OPERATIONS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../random.hpp"
#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- ZADD, ZINCRBY, ZREM ----------------------------------------------------------------------

template <class Params>
inline add_status set_engine<Params>::add(key_view member, score_arg<Score> score,
                                          add_flags flags) {
    modified();
    check_flags(flags);
    return add_checked(member, score.checked(), flags);
}

template <class Params>
inline add_status set_engine<Params>::add_checked(key_view member, Score score, add_flags flags) {
    const probe k = make_probe(member);
    const position pos = locate(k);
    if (!pos) {
        if (has(flags, add_flags::xx)) return add_status::skipped;
        insert_new(k, score);
        return add_status::added;
    }
    if (has(flags, add_flags::nx)) return add_status::skipped;
    const Score current = pos.b.score_of(pos.r);
    if ((has(flags, add_flags::lt) && !(score < current)) ||
        (has(flags, add_flags::gt) && !(score > current)))
        return add_status::skipped;
    if (score == current) return add_status::unchanged;
    update_score(k, pos, score);
    return add_status::updated;
}

template <class Params>
inline auto set_engine<Params>::increment(key_view member, score_arg<Score> delta_arg,
                                          add_flags flags) -> std::optional<Score> {
    modified();
    check_flags(flags);
    const Score delta = delta_arg.checked();
    const probe k = make_probe(member);
    const position pos = locate(k);
    if (!pos) {
        if (has(flags, add_flags::xx)) return std::nullopt;
        insert_new(k, delta);
        return delta;
    }
    if (has(flags, add_flags::nx)) return std::nullopt;
    const Score current = pos.b.score_of(pos.r);
    const Score next = checked_sum(current, delta);
    if ((has(flags, add_flags::lt) && !(next < current)) ||
        (has(flags, add_flags::gt) && !(next > current)))
        return std::nullopt;
    if (next != current) update_score(k, pos, next);
    return next;
}

template <class Params>
inline bool set_engine<Params>::erase(key_view member) noexcept {
    modified();
    const position pos = locate(make_probe(member));
    if (!pos) return false;
    erase_found(pos);
    return true;
}

template <class Params>
template <class InputIt>
inline auto set_engine<Params>::erase_members(InputIt first, InputIt last) -> size_type {
    size_type removed = 0;
    for (; first != last; ++first) removed += erase(key_view(*first)) ? 1 : 0;
    return removed;
}

template <class Params>
template <class ForwardIt>
inline auto set_engine<Params>::add(ForwardIt first, ForwardIt last, add_flags flags) -> size_type {
    modified();
    check_flags(flags);
    batch_plan plan(*this);
    const size_type counted = plan.build(*this, first, last, flags);
    apply_batch(plan);
    return counted;
}

// ---- ZSCORE, ZMSCORE, ZRANK -------------------------------------------------------------------

/// The optional is built here, in the caller: returned from an out-of-line call, g++ stores a
/// std::optional<double>'s two register halves and reloads them as one 16-byte vector, a failed
/// store forward that costs more than a cached lookup's whole work (docs/design-log.md,
/// "Lookups inlined into their caller").
template <class Params>
ZSET_ALWAYS_INLINE std::optional<typename set_engine<Params>::Score>
set_engine<Params>::score(key_view member) const noexcept {
    Score found;
    if (!find_score(member, found)) return std::nullopt;
    return found;
}

/// Inlined into the caller: the listpack-mode lookup runs there in full (its rare paths are
/// calls), and skiplist mode is one call. One out-of-line function for both modes would save
/// five registers at entry for the skiplist side's call to hash_long_bytes, which every
/// listpack lookup would pay too (docs/design-log.md, "Lookups inlined into their caller";
/// bench rows zscore_hit and zscore_miss at 100, zset against zset_skiplist).
template <class Params>
ZSET_ALWAYS_INLINE bool set_engine<Params>::find_score(key_view member, Score& out) const noexcept {
    if (ZSET_LIKELY(skiplist_mode())) return score_in_skiplist(member, out);
    return score_in_listpack(member, out);
}

template <class Params>
template <class InputIt>
inline auto set_engine<Params>::scores(InputIt first, InputIt last) const -> score_vector {
    score_vector out{typename score_vector::allocator_type(get_allocator())};
    for (; first != last; ++first) out.push_back(score(key_view(*first)));
    return out;
}

template <class Params>
inline bool set_engine<Params>::contains(key_view member) const noexcept {
    return bool(locate(make_probe(member)));
}

template <class Params>
inline auto set_engine<Params>::find(key_view member) const noexcept -> const_iterator {
    const position pos = locate(make_probe(member));
    if (!pos) return end();
    return iterator_at(pos.node, pos.b, position_in_block(pos));
}

/// No key comparisons beyond the lookup: the rank is the block's start rank (rank tree) plus
/// the position in the block.
template <class Params>
inline auto set_engine<Params>::rank(key_view member) const noexcept -> std::optional<size_type> {
    if (!skiplist_mode()) {
        const size_type i = listpack_position(member);
        if (i == block_type::npos) return std::nullopt;
        return i;
    }
    const position pos = locate_in_skiplist(make_probe(member));
    if (!pos) return std::nullopt;
    return rank_of(pos);
}

template <class Params>
inline auto set_engine<Params>::rank_with_score(key_view member) const noexcept
    -> std::optional<std::pair<size_type, Score>> {
    if (!skiplist_mode()) {
        const size_type i = listpack_position(member);
        if (i == block_type::npos) return std::nullopt;
        return std::pair<size_type, Score>{i, lp_.score_of(lp_.ref(i))};
    }
    const position pos = locate_in_skiplist(make_probe(member));
    if (!pos) return std::nullopt;
    return std::pair<size_type, Score>{rank_of(pos), pos.b.score_of(pos.r)};
}

// ---- ZCOUNT, ZLEXCOUNT ------------------------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::count(const score_range<Score>& range) const noexcept -> size_type {
    const auto [lo, hi] = score_points(range);
    return points_between(lo, hi);
}

template <class Params>
inline auto set_engine<Params>::lex_count(const lex_range<lex_key>& range) const noexcept
    -> size_type {
    const auto [lo, hi] = lex_points(range);
    return points_between(lo, hi);
}

// ---- ZRANGE by rank, score and lex, forward and reverse ---------------------------------------

template <class Params>
inline auto set_engine<Params>::range_by_rank(long long start, long long stop) const noexcept
    -> rank_range {
    const auto [lo, hi] = clamp_ranks(start, stop);
    return forward_range(lo, hi);
}

template <class Params>
inline auto set_engine<Params>::rev_range_by_rank(long long start, long long stop) const noexcept
    -> reverse_range {
    const auto [lo, hi] = clamp_ranks(start, stop);
    return reverse_range_between({begin_point(), end_point()}, size(),
                                 {static_cast<long long>(lo), static_cast<long long>(hi - lo)});
}

template <class Params>
inline auto set_engine<Params>::range_by_score(const score_range<Score>& range,
                                               limit lim) const noexcept -> rank_range {
    return forward_range_between(score_points(range, walk_hops), lim);
}

template <class Params>
inline auto set_engine<Params>::rev_range_by_score(const score_range<Score>& range,
                                                   limit lim) const noexcept -> reverse_range {
    const auto points = score_points(range);
    if (skiplist_mode() && short_page(lim) && !inverted(range)) return reverse_page(points, lim);
    return reverse_range_between(points, lim);
}

template <class Params>
inline auto set_engine<Params>::range_by_lex(const lex_range<lex_key>& range,
                                             limit lim) const noexcept -> rank_range {
    return forward_range_between(lex_points(range, walk_hops), lim);
}

template <class Params>
inline auto set_engine<Params>::rev_range_by_lex(const lex_range<lex_key>& range,
                                                 limit lim) const noexcept -> reverse_range {
    return reverse_range_between(lex_points(range), lim);
}

// ---- ZREMRANGEBYRANK, BYSCORE, BYLEX; ZPOPMIN, ZPOPMAX ----------------------------------------

// Range removals erase ranks [lo, hi) (changes.hpp). Pops copy the elements out first (strong
// guarantee), then remove them the same way; a pop of one element reads the end block directly.

template <class Params>
inline auto set_engine<Params>::erase(const_iterator first, const_iterator last) noexcept
    -> const_iterator {
    check_own(first);
    check_own(last);
    const size_type lo = rank_of_iterator(first), hi = rank_of_iterator(last);
    erase_ranks(lo, hi);
    return nth(lo);
}

template <class Params>
inline auto set_engine<Params>::erase_range_by_rank(long long start, long long stop) noexcept
    -> size_type {
    modified();
    const auto [lo, hi] = clamp_ranks(start, stop);
    return erase_ranks(lo, hi);
}

template <class Params>
inline auto set_engine<Params>::erase_range_by_score(const score_range<Score>& range) noexcept
    -> size_type {
    modified();
    const auto [lo, hi] = score_ranks(range);
    return erase_ranks(lo, hi);
}

template <class Params>
inline auto set_engine<Params>::erase_range_by_lex(const lex_range<lex_key>& range) noexcept
    -> size_type {
    modified();
    const auto [lo, hi] = lex_ranks(range);
    return erase_ranks(lo, hi);
}

/// ZPOPMIN / ZPOPMAX: copies the elements out first, then removes them block by block from the
/// chosen end (no search: the first node's predecessors are the head).
template <class Params>
inline auto set_engine<Params>::pop(size_type count, end_of_set from) -> value_vector {
    modified();
    const size_type n = std::min(count, size());
    value_vector out{typename value_vector::allocator_type(get_allocator())};
    out.reserve(n);
    if (n == 1) {
        pop_one(out, from);
        return out;
    }
    if (from == end_of_set::low) {
        for (auto it = begin(); out.size() < n; ++it) append_owned(out, *it);
        erase_ranks(0, n);
    } else {
        for (auto it = end(); out.size() < n;) append_owned(out, *--it);
        erase_ranks(size() - n, size());
    }
    return out;
}

/// ZPOPMIN without a count, BZPOPMIN: the end block read directly, with no iterator and no rank
/// search, and its index entry found by its address. Precondition: the set is not empty and
/// `out` has room for one element.
///
/// In a set past the cache the index entry is requested before the copy is made, so that its
/// miss (the pop's one) overlaps the allocation and the copy; requesting the next pop's entry
/// as well would be slower. In a cached set the early hash only costs, so it waits there
/// (docs/design-log.md, "Pops"; bench row pop_min/zset/1000000).
template <class Params>
inline void set_engine<Params>::pop_one(value_vector& out, end_of_set from) {
    position at;
    at.node = !skiplist_mode()          ? node_id{0}
              : from == end_of_set::low ? sk_->list.first()
                                        : sk_->list.last();
    at.b = skiplist_mode() ? sk_->list.block_of(at.node) : lp_;
    at.pos = from == end_of_set::low ? 0 : at.b.size() - 1;
    at.r = at.b.ref(at.pos);
    const key_view m = at.b.member_of(at.r);
    const bool request_early = skiplist_mode() && walks_cold();
    std::uint32_t tag = request_early ? index_type::tag_of(hash_value(m)) : 0;
    if (request_early) sk_->index.prefetch(tag);
    append_owned(out, reference{m, at.b.score_of(at.r)});
    if (skiplist_mode()) {
        if (!request_early) tag = index_type::tag_of(hash_value(m));
        at.slot = sk_->index.find_present(tag, address{at.node, at.r});
    } else if (lp_.has_table())  // its table entry from its hash: one bucket, not a search
        at.entry = lp_.table().find_entry(listpack_fingerprint(m),
                                          [&](size_type p) { return p == at.pos; });
    erase_found(at);
}

/// No second copy through a temporary pair; with a scoped or polymorphic allocator, the member
/// is built with the vector's.
template <class Params>
inline void set_engine<Params>::append_owned(value_vector& out, const reference& e) {
    out.emplace_back(std::piecewise_construct, std::forward_as_tuple(e.member),
                     std::forward_as_tuple(e.score));
}

// ---- building: shrink_to_fit, reserve, assign_sorted ------------------------------------------

template <class Params>
inline void set_engine<Params>::shrink_to_fit() {
    rebuild_from(begin(), end(), build_room::none);
}

/// In listpack mode up to the entry threshold, room in the block; beyond it (or in skiplist
/// mode) room in the index, converting first, as Redis creates a key from a ZADD's size hint
/// in the encoding that count needs. An empty set reserved past the threshold is an empty set
/// in skiplist mode. Strong guarantee.
template <class Params>
inline void set_engine<Params>::reserve(size_type n) {
    if (n <= size()) return;
    if (n > max_size()) raise_length_error("zset: reserve() past max_size()");
    if (!skiplist_mode() && n <= opts_.max_listpack_entries &&
        block_type::can_hold(n, lp_ ? lp_.used() - lp_.garbage() : 0)) {
        reserve_listpack(n);
        return;
    }
    if (!skiplist_mode()) {
        set_engine converted = skiplist_copy();
        converted.sk_->list.reserve_head();
        converted.sk_->index.reserve(n);
        take(converted);
        return;
    }
    sk_->index.reserve(n);
}

template <class Params>
template <class ForwardIt>
inline void set_engine<Params>::assign_sorted(ForwardIt first, ForwardIt last) {
    rebuild_from(first, last, build_room::growth);
}

// ---- ZRANDMEMBER, ZSCAN -----------------------------------------------------------------------

// random_members draws ranks with the caller's generator (random.hpp) and reads each drawn
// element by rank (nth): distinct members by Floyd's sampling, or the whole set shuffled when
// every member is wanted; with replacement, one draw a member.
//
// scan walks the hash index by tag: a cursor is the next 32-bit tag to visit, and a call visits
// the entries whose tags lie in a window sized for about `count` elements. Those entries are
// one contiguous stretch of the index however it grows or shrinks (hash_index.hpp), so the
// cursor stays exact and every member present for the whole walk is visited at least once. In
// listpack mode (no index) the whole set comes in one call, as Redis does.

/// count > 0: min(count, size()) distinct members in random order; count < 0: |count| members
/// drawn with replacement; 0: none.
template <class Params>
template <class URBG>
inline auto set_engine<Params>::random_members(long long count, URBG& gen) const -> value_vector {
    value_vector out{typename value_vector::allocator_type(get_allocator())};
    if (count == 0 || empty()) return out;
    if (count < 0) {
        // |count| without overflow (LLONG_MIN), and no silent truncation to a 32-bit size_t
        const unsigned long long wanted = static_cast<unsigned long long>(-(count + 1)) + 1;
        if (wanted > std::numeric_limits<size_type>::max() / sizeof(value_type))
            detail::raise_length_error("zset: too many random members requested");
        const auto draws = static_cast<size_type>(wanted);
        out.reserve(draws);
        for (size_type i = 0; i < draws; ++i) append_owned(out, *nth(random_rank(gen, size())));
        return out;
    }
    const size_type k =
        static_cast<unsigned long long>(count) >= size() ? size() : static_cast<size_type>(count);
    out.reserve(k);
    if (k == size()) {
        for (const auto& e : *this) append_owned(out, e);
        detail::shuffle(out.begin(), out.end(), gen);
        return out;
    }
    // Floyd's sampling: k distinct ranks in k draws; `chosen` is a small open-addressing set
    // of ranks (empty slots hold npos).
    size_type cap = 8;
    while (cap < 2 * k) cap *= 2;
    std::vector<size_type, rebound<size_type>> chosen(cap, block_type::npos,
                                                      rebound<size_type>(get_allocator()));
    const auto choose = [&](size_type r) {
        for (size_type i = static_cast<size_type>(detail::mix_integer(r)) & (cap - 1);;
             i = (i + 1) & (cap - 1)) {
            if (chosen[i] == r) return false;
            if (chosen[i] == block_type::npos) {
                chosen[i] = r;
                return true;
            }
        }
    };
    std::vector<size_type, rebound<size_type>> ranks{rebound<size_type>(get_allocator())};
    ranks.reserve(k);
    for (size_type j = size() - k; j < size(); ++j) {
        const size_type r = random_rank(gen, j + 1);
        if (choose(r)) {
            ranks.push_back(r);
        } else {
            choose(j);
            ranks.push_back(j);
        }
    }
    detail::shuffle(ranks.begin(), ranks.end(), gen);
    for (size_type r : ranks) append_owned(out, *nth(r));
    return out;
}

template <class Params>
template <class URBG>
inline auto set_engine<Params>::random_rank(URBG& gen, size_type n) -> size_type {
    return static_cast<size_type>(detail::uniform_below(gen, n));
}

/// Calls visit(reference) for a batch of about `count` elements and returns the next cursor (0
/// when the walk is complete). O(count) expected per call.
template <class Params>
template <class Visit>
inline std::uint64_t set_engine<Params>::scan(std::uint64_t cursor, size_type count,
                                              Visit&& visit) const {
    if (!skiplist_mode()) {
        for (const auto& e : *this) visit(e);
        return 0;
    }
    if (cursor > 0xffffffffu) return 0;
    const std::uint64_t span_all = std::uint64_t{1} << 32;
    const std::uint64_t want = std::max<size_type>(count, 1);
    std::uint64_t width = size() == 0 ? span_all : (span_all / size()) * want;
    if (width == 0 || width > span_all) width = span_all;
    const std::uint64_t last = std::min<std::uint64_t>(cursor + width - 1, 0xffffffffu);
    sk_->index.for_each_in_tag_range(static_cast<std::uint32_t>(cursor),
                                     static_cast<std::uint32_t>(last),
                                     [&](std::uint32_t, address a) {
                                         const block_type b = sk_->list.block_of(a.node);
                                         visit(reference{b.member_of(a.ref), b.score_of(a.ref)});
                                     });
    return last == 0xffffffffu ? 0 : last + 1;
}

// ---- validate() -------------------------------------------------------------------------------

// Every internal invariant checked, for tests and debugging: each mode's own structure (the
// listpack block and its fingerprints, no -0.0 stored in listpack mode; the skiplist's links,
// rank counts and node pool, the blocks' sizes, index <-> records agreement and tags), then for
// both modes the order of all elements, no NaN score, and that every element is found by its
// member with its score. O(n log n).

template <class Params>
inline bool set_engine<Params>::validate() const {
    if (skiplist_mode() ? !validate_skiplist() : !validate_listpack()) return false;
    bool have_prev = false;
    Score prev_score{};
    Member prev_member{};
    for (const auto& e : *this) {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(e.score)) return false;
        if (have_prev && !element_less(prev_score, key_view(prev_member), e.score, e.member))
            return false;
        prev_score = e.score;
        prev_member = Member(e.member);
        have_prev = true;
        const position pos = locate(make_probe(e.member));
        if (!pos || !eq_()(pos.b.member_of(pos.r), e.member) || !(pos.b.score_of(pos.r) == e.score))
            return false;
    }
    return true;
}

template <class Params>
inline bool set_engine<Params>::validate_listpack() const {
    if (!lp_) return true;
    if (!lp_.validate() || !lp_.fingerprinted()) return false;  // empty when reserved
    for (size_type i = 0; i < lp_.size(); ++i) {
        if (lp_.fingerprint(i) != lp_.kept_fingerprint(listpack_fingerprint(lp_.member(i))))
            return false;
        if constexpr (std::is_floating_point_v<Score>)
            if (lp_.score(i) == Score(0) && std::signbit(lp_.score(i))) return false;
    }
    return true;
}

template <class Params>
inline bool set_engine<Params>::validate_skiplist() const {
    if (lp_ || !sk_->list.validate()) return false;  // empty when reserved
    if (sk_->index.size() != size() || !sk_->index.validate()) return false;
    bool ok = true;
    sk_->index.for_each([&](std::uint32_t tag, address a) {
        const block_type b = sk_->list.block_of(a.node);
        if (sk_->list.at(a.node).height == 0 || !b) {
            ok = false;
            return;
        }
        const size_type i = b.position_of(a.ref);
        ok = ok && i < b.size() && index_type::tag_of(hash_value(b.member_of(a.ref))) == tag;
    });
    for (node_id x = sk_->list.first(); ok && x != list_type::head_id; x = sk_->list.at(x).next(0))
        ok = sk_->list.block_of(x).size() <= block_max_entries &&
             !sk_->list.block_of(x).fingerprinted();
    return ok;
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_OPERATIONS_HPP
