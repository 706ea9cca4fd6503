// zset::detail::set_engine: order and ranks — where a score or lex bound falls (a rank_point),
// how many elements lie between two points, ranks of elements and iterators, Redis's rank
// clamping and LIMIT. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// A search by key ends at a rank_point: a block and a position in it, without its absolute
// rank, which costs a climb of the rank tree and is computed only when wanted (rank_at). A range
// is two points; the elements between them are the positions' difference plus the blocks
// between, hopped over when few (the walk will read them anyway) or counted by the rank tree.
//
// Searches go by predicate: goes_before(score, member_of) says whether an element lies before
// the bound, member_of() yielding its member on demand, so a search by score reads no member
// bytes. One predicate type serves both ends of a range, so each search is compiled once.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_ORDER_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_ORDER_HPP

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- ranks of elements and points -------------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::rank_of_iterator(const const_iterator& it) const noexcept
    -> size_type {
    if (it.id_ == 0) return size();
    return skiplist_mode() ? sk_->list.start_rank(it.id_) + it.pos_ : it.pos_;
}

template <class Params>
inline auto set_engine<Params>::rank_of(const position& p) const noexcept -> size_type {
    const size_type i = position_in_block(p);
    return skiplist_mode() ? sk_->list.start_rank(p.node) + i : i;
}

/// O(log n).
template <class Params>
inline auto set_engine<Params>::rank_at(const rank_point& p) const noexcept -> size_type {
    return skiplist_mode() && p.node != 0 ? sk_->list.start_rank(p.node) + p.pos : p.pos;
}

/// The positions' difference plus the elements of the blocks between, counted by hopping up to
/// `hops` blocks forward from a's (for a range about to be walked: the walk reads those blocks
/// anyway), else by the rank tree (one tree node when the two blocks share a leaf). O(log n).
template <class Params>
inline auto set_engine<Params>::points_between(const rank_point& a, const rank_point& b,
                                               int hops) const noexcept -> size_type {
    if (skiplist_mode() && a.node != b.node && hops > 0) {
        size_type n = sk_->list.block_of(a.node).size() - a.pos;
        for (node_id x = sk_->list.at(a.node).next(0); x != list_type::head_id && hops-- > 0;
             x = sk_->list.at(x).next(0)) {
            if (x == b.node) return n + b.pos;
            n += sk_->list.block_of(x).size();
        }
    }
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(b.pos) -
                             static_cast<std::ptrdiff_t>(a.pos) +
                             (skiplist_mode() ? sk_->list.rank_offset(a.node, b.node) : 0);
    return n > 0 ? static_cast<size_type>(n) : 0;
}

template <class Params>
inline auto set_engine<Params>::begin_point() const noexcept -> rank_point {
    return {skiplist_mode() ? sk_->list.first() : 0, 0};
}

template <class Params>
inline auto set_engine<Params>::end_point() const noexcept -> rank_point {
    if (!skiplist_mode()) return {0, size()};
    const node_id last = sk_->list.last();
    return {last, last != 0 ? sk_->list.block_of(last).size() : 0};
}

// ---- searches by predicate --------------------------------------------------------------------

/// The first element e for which goes_before(e.score, member_of_e) does not hold. The predicate
/// must hold for a prefix of the order. O(log n).
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::point_before(const GoesBefore& goes_before) const noexcept
    -> rank_point {
    if (empty()) return {};
    if (!skiplist_mode()) return {0, point_in_listpack(goes_before)};
    path p;
    sk_->list.descend(node_goes_before(goes_before), p);
    return point_in_node(p.at[0], goes_before);
}

/// before_max holds for at least the prefix before_min holds for, unless the range is empty.
/// The end is searched from the nodes the start's descent passed (skiplist::descend_from), and
/// the two blocks are then searched together (block::partition_points), their record reads
/// overlapping; in listpack mode the one block is searched for both ends together.
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::both_points(const GoesBefore& before_min,
                                            const GoesBefore& before_max) const noexcept
    -> std::pair<rank_point, rank_point> {
    if (empty()) return {};
    if (!skiplist_mode()) {
        // the set's first and last elements first, as point_in_listpack does: a range from
        // the set's start, or to its end, searches the block once
        if (!element_goes_before(lp_, 0, before_min))
            return {{0, 0}, {0, point_in_listpack(before_max)}};
        if (element_goes_before(lp_, lp_.size() - 1, before_max))
            return {{0, point_in_block(lp_, before_min)}, {0, lp_.size()}};
        const auto [i, j] = block_type::partition_points(
            lp_, [&](size_type k) { return element_goes_before(lp_, k, before_min); }, lp_,
            [&](size_type k) { return element_goes_before(lp_, k, before_max); }, search_mode());
        return {{0, i}, {0, j}};
    }
    path p;
    sk_->list.descend(node_goes_before(before_min), p);
    const node_id a = p.at[0], b = sk_->list.descend_from(p, node_goes_before(before_max));
    if (a == list_type::head_id || b == list_type::head_id)
        return {point_in_node(a, before_min), point_in_node(b, before_max)};
    const block_type ba = sk_->list.block_of(a), bb = sk_->list.block_of(b);
    const auto [i, j] = block_type::partition_points(
        ba, [&](size_type k) { return element_goes_before(ba, k, before_min); }, bb,
        [&](size_type k) { return element_goes_before(bb, k, before_max); }, search_mode());
    return {{a, i}, {b, j}};
}

/// goes_before on a node's first element: its cached score, its member on demand.
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::node_goes_before(const GoesBefore& goes_before) const noexcept {
    return [this, &goes_before](const node& n) {
        return goes_before(n.first_score,
                           [this, &n]() -> key_view { return sk_->list.block_of(n).member(0); });
    };
}

/// The first block's start when the descent stayed at the head.
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::point_in_node(node_id x,
                                              const GoesBefore& goes_before) const noexcept
    -> rank_point {
    if (x == list_type::head_id) return {sk_->list.first(), 0};
    return {x, point_in_block(sk_->list.block_of(x), goes_before)};
}

/// Searched forward from from's block, hopping up to `hops` blocks before falling back to a
/// descent. A range's end mostly lies in its start's block or a few blocks on: the test is a
/// block's last element (the start's block is in cache from the search), where a descent reads
/// a dozen nodes. An end before from's block comes back as from's block's start, which is not
/// after `from`: the range is empty either way.
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::point_before_from(const rank_point& from,
                                                  const GoesBefore& goes_before,
                                                  int hops) const noexcept -> rank_point {
    if (!skiplist_mode() || from.node == 0) return point_before(goes_before);
    for (node_id x = from.node;; --hops) {
        const block_type b = sk_->list.block_of(x);
        if (!element_goes_before(b, b.size() - 1, goes_before))
            return {x, point_in_block(b, goes_before)};
        const node_id next = sk_->list.at(x).next(0);
        if (next == list_type::head_id) return {x, b.size()};
        if (hops == 0) return point_before(goes_before);
        x = next;
    }
}

/// Always inlined: in the two-ended search of a listpack block (both_points) g++ 12 would make
/// it a call, ten of them a count, which costs more instructions than the two-ended search
/// saves (docs/design-log.md, "Range ends found from their search"; bench row zcount/zset/100).
template <class Params>
template <class GoesBefore>
ZSET_ALWAYS_INLINE bool
set_engine<Params>::element_goes_before(block_type b, size_type j,
                                        const GoesBefore& goes_before) noexcept {
    const ref_type r = b.ref(j);
    return goes_before(b.score_of(r), [b, r]() -> key_view { return b.member_of(r); });
}

/// The first and the last element are tested before the block is searched, as skiplist mode's
/// descent compares a block's cached first score and its end search (point_before_from) a
/// block's last element, so a range from the set's start or to its end needs no binary search.
/// From the start it makes short ranges at n = 100 faster (bench row range_by_score/zset/100).
/// To the end (a window up to now, as a rate limiter counts) it is for sets out of cache, where
/// each step of the binary search is a cache miss; in cache it changes neither the instruction
/// count much nor the time (docs/design-log.md, "Range ends found from their search").
template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::point_in_listpack(const GoesBefore& goes_before) const noexcept
    -> size_type {
    if (!element_goes_before(lp_, 0, goes_before)) return 0;
    const size_type n = lp_.size();
    if (element_goes_before(lp_, n - 1, goes_before)) return n;
    return point_in_block(lp_, goes_before);
}

template <class Params>
template <class GoesBefore>
inline auto set_engine<Params>::point_in_block(block_type b,
                                               const GoesBefore& goes_before) const noexcept
    -> size_type {
    return b.partition_point([&](size_type j) { return element_goes_before(b, j, goes_before); },
                             search_mode());
}

// ---- score and lex ranges ---------------------------------------------------------------------

/// The end is searched forward from the start, up to `hops` blocks on (short ranges about to be
/// walked: views.hpp's walk_hops), or through the skiplist's levels from the nodes the start's
/// descent passed (climb_from_start, for counts and reverse ranges), then both ends' blocks
/// together (both_points). Against a second descent from the head and separate block searches,
/// the climb makes short counts faster at 10^3 and 10^5 (docs/design-log.md, "Range ends found
/// from their search"; bench row zcount); the level-0 hop would be slower for counts at 10^5,
/// where the end lies a dozen blocks or more on.
template <class Params>
inline auto set_engine<Params>::score_points(const score_range<Score>& r, int hops) const noexcept
    -> std::pair<rank_point, rank_point> {
    if constexpr (std::is_floating_point_v<Score>)
        if (std::isnan(r.min.value) || std::isnan(r.max.value)) return {};  // matches nothing
    // One predicate type for both ends, so point_before is compiled once: a score goes before
    // the range when below min (or equal to an exclusive min), before its end when below max
    // (or equal to an inclusive max).
    const auto goes_before = [](Score bound, bool strict) {
        return [bound, strict](Score s, const auto&) { return strict ? s < bound : !(bound < s); };
    };
    // the unbounded ends (-inf / +inf) need no search
    const bool from_lowest =
        !r.min.exclusive && !(score_bound<Score>::lowest().value < r.min.value);
    const bool to_highest =
        !r.max.exclusive && !(r.max.value < score_bound<Score>::highest().value);
    const auto before_min = goes_before(r.min.value, !r.min.exclusive);
    const auto before_max = goes_before(r.max.value, r.max.exclusive);
    if (hops == climb_from_start && !from_lowest && !to_highest)
        return both_points(before_min, before_max);
    const rank_point start = from_lowest ? begin_point() : point_before(before_min);
    if (to_highest) return {start, end_point()};
    if (hops != climb_from_start) return {start, point_before_from(start, before_max, hops)};
    return {start, point_before(before_max)};
}

template <class Params>
inline bool set_engine<Params>::before_lex_bound(key_view m, const lex_bound<lex_key>& b,
                                                 bool lower) const noexcept {
    using kind = typename lex_bound<lex_key>::kind;
    switch (b.type) {
    case kind::inclusive:
        return lower ? less_()(m, key_view(b.value)) : !less_()(key_view(b.value), m);
    case kind::exclusive:
        return lower ? !less_()(key_view(b.value), m) : less_()(m, key_view(b.value));
    case kind::minus_infinity:
        return false;
    case kind::plus_infinity:
        return true;
    }
    return false;
}

template <class Params>
inline auto set_engine<Params>::lex_points(const lex_range<lex_key>& r, int hops) const noexcept
    -> std::pair<rank_point, rank_point> {
    // one predicate type for both ends (point_before compiled once)
    const auto goes_before = [this](const lex_bound<lex_key>& bound, bool lower) {
        return [this, &bound, lower](Score, const auto& member_of) {
            return before_lex_bound(member_of(), bound, lower);
        };
    };
    const auto before_min = goes_before(r.min, true);
    const auto before_max = goes_before(r.max, false);
    if (hops == climb_from_start) return both_points(before_min, before_max);
    const rank_point start = point_before(before_min);
    return {start, point_before_from(start, before_max, hops)};
}

template <class Params>
inline auto
set_engine<Params>::ranks_of(const std::pair<rank_point, rank_point>& points) const noexcept
    -> std::pair<size_type, size_type> {
    const size_type lo = rank_at(points.first);
    return {lo, lo + points_between(points.first, points.second)};
}

template <class Params>
inline auto set_engine<Params>::score_ranks(const score_range<Score>& r) const noexcept
    -> std::pair<size_type, size_type> {
    return ranks_of(score_points(r));
}

template <class Params>
inline auto set_engine<Params>::lex_ranks(const lex_range<lex_key>& r) const noexcept
    -> std::pair<size_type, size_type> {
    return ranks_of(lex_points(r));
}

// ---- Redis's rank arguments and LIMIT ---------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::clamp_ranks(long long start, long long stop) const noexcept
    -> std::pair<size_type, size_type> {
    const auto n = static_cast<long long>(size());
    if (start < 0) start += n;
    if (stop < 0) stop += n;
    if (start < 0) start = 0;
    if (start > stop || start >= n) return {0, 0};
    if (stop >= n) stop = n - 1;
    return {static_cast<size_type>(start), static_cast<size_type>(stop) + 1};
}

template <class Params>
inline auto set_engine<Params>::apply_limit(size_type lo, size_type hi, limit lim) noexcept
    -> std::pair<size_type, size_type> {
    if (lim.offset < 0) return {lo, lo};
    const auto off = static_cast<unsigned long long>(lim.offset);
    const size_type a = off >= hi - lo ? hi : lo + static_cast<size_type>(off);
    size_type b = hi;
    if (lim.count >= 0 && static_cast<unsigned long long>(lim.count) < hi - a)
        b = a + static_cast<size_type>(lim.count);
    return {a, b};
}

template <class Params>
inline auto set_engine<Params>::apply_limit_reverse(size_type lo, size_type hi, limit lim) noexcept
    -> std::pair<size_type, size_type> {
    if (lim.offset < 0) return {hi, hi};
    const auto off = static_cast<unsigned long long>(lim.offset);
    const size_type b = off >= hi - lo ? lo : hi - static_cast<size_type>(off);
    size_type a = lo;
    if (lim.count >= 0 && static_cast<unsigned long long>(lim.count) < b - lo)
        a = b - static_cast<size_type>(lim.count);
    return {a, b};
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_ORDER_HPP
