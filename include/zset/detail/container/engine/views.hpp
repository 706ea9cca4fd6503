// zset::detail::set_engine: iterators and range views — begin, end, nth, and the forward and
// reverse ranges made from two points (order.hpp), with LIMIT. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// A range view is two iterators and a count. Its ends come from the two points a search found
// (order.hpp) without converting them to ranks where possible: a short range (hop_limit
// elements) finds its end by hopping blocks from its start, and a short reverse page by hopping
// back from its end, where a search by rank would descend the rank tree again. Past the cache
// (walks_cold) a short range requests the blocks it will walk once, when it is made, and its
// iterators then request nothing as they walk.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_VIEWS_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_VIEWS_HPP

#include <cmath>
#include <type_traits>
#include <utility>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- iterators --------------------------------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::begin() const noexcept -> const_iterator {
    if (!skiplist_mode()) return make_iterator(nullptr, lp_, lp_ && !lp_.empty() ? 1 : 0, 0);
    const node_id f = sk_->list.first();
    return make_iterator(&sk_->list, sk_->list.block_of(f), f, 0);
}

template <class Params>
inline auto set_engine<Params>::end() const noexcept -> const_iterator {
    if (!skiplist_mode()) return make_iterator(nullptr, lp_, 0, 0);
    return make_iterator(&sk_->list, block_type(), 0, 0);
}

template <class Params>
inline auto set_engine<Params>::rbegin() const noexcept -> const_reverse_iterator {
    return const_reverse_iterator(end());
}

template <class Params>
inline auto set_engine<Params>::rend() const noexcept -> const_reverse_iterator {
    return const_reverse_iterator(begin());
}

/// end() if r >= size(). O(log n).
template <class Params>
inline auto set_engine<Params>::nth(size_type r) const noexcept -> const_iterator {
    if (r >= size()) return end();
    if (!skiplist_mode()) return make_iterator(nullptr, lp_, 1, r);
    const auto [id, pos] = sk_->list.nth(r);
    return make_iterator(&sk_->list, sk_->list.block_of(id), id, pos);
}

/// Always inlined so that an iterator is built where it is used. Out of line, g++ writes the
/// iterator's first two fields with two 8-byte stores and the caller copies them into the view
/// with one 16-byte load, which the store buffer cannot forward: a stall for each end of a
/// listpack-mode range view (docs/design-log.md, "Iteration in few instructions"; bench rows
/// range_by_score/zset/100, range_by_rank/zset/100).
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::make_iterator(const list_type* list, block_type b,
                                                          node_id id, size_type pos) const noexcept
    -> const_iterator {
    const_iterator it(list, b, id, pos);
    it.requests_ = block_requests_for();
#if ZSET_DEBUG
    it.owner_generation_ = &generation_;
    it.generation_ = generation_;
#endif
    return it;
}

/// nth() without its empty-set and mode checks, built in the caller (see make_iterator).
/// Precondition: the set is in listpack mode and not empty.
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::listpack_iterator(size_type pos) const noexcept
    -> const_iterator {
    return pos < lp_.size() ? make_iterator(nullptr, lp_, 1, pos)
                            : make_iterator(nullptr, lp_, 0, 0);
}

template <class Params>
inline auto set_engine<Params>::iterator_at(node_id id, block_type b, size_type pos) const noexcept
    -> const_iterator {
    if (!skiplist_mode()) return make_iterator(nullptr, lp_, 1, pos);
    return make_iterator(&sk_->list, b, id, pos);
}

/// Skiplist mode: O(steps / block size), no descent. Requests the records of every block it
/// enters when walks_cold() (a walk over them follows). id is a node of the list, never the
/// head.
template <class Params>
inline auto set_engine<Params>::iterator_after(node_id id, size_type pos,
                                               size_type steps) const noexcept -> const_iterator {
    pos += steps;
    block_type b = sk_->list.block_of(id);
    while (pos >= b.size()) {
        pos -= b.size();
        id = sk_->list.at(id).next(0);
        if (id == list_type::head_id) return end();
        b = sk_->list.block_of(id);
        if (walks_cold()) b.prefetch_block();
    }
    return make_iterator(&sk_->list, b, id, pos);
}

/// Skiplist mode, at least `steps` elements precede p: O(steps / block size), no descent.
template <class Params>
inline auto set_engine<Params>::iterator_before(const rank_point& p, size_type steps) const noexcept
    -> const_iterator {
    node_id id = p.node;
    size_type pos = p.pos;
    while (pos < steps) {
        steps -= pos;
        id = sk_->list.at(id).prev;
        pos = sk_->list.block_of(id).size();
    }
    return iterator_after(id, pos - steps, 0);
}

// ---- forward ranges ---------------------------------------------------------------------------

/// A short range from its first element needs no absolute rank, and its start is the point the
/// search found (no second search by rank).
template <class Params>
inline auto
set_engine<Params>::forward_range_between(const std::pair<rank_point, rank_point>& points,
                                          limit lim) const noexcept -> rank_range {
    const rank_point& at = points.first;
    const auto [a, b] = apply_limit(0, points_between(at, points.second, walk_hops), lim);
    if (skiplist_mode() && b <= hop_limit) {
        if (a == 0) return forward_range_from(at, 0, b);
        if (a < b) return forward_range_at(at.node, at.pos + a, 0, b - a);  // after an offset
    }
    const size_type lo = rank_at(at);
    return a == 0 ? forward_range_from(at, lo, lo + b) : forward_range(lo + a, lo + b);
}

template <class Params>
inline auto set_engine<Params>::forward_range(size_type lo, size_type hi) const noexcept
    -> rank_range {
    if (lo >= hi) return rank_range(end(), end(), 0);
    if (!skiplist_mode()) return rank_range(listpack_iterator(lo), listpack_iterator(hi), hi - lo);
    const auto [id, pos] = sk_->list.nth(lo);
    return forward_range_at(id, pos, lo, hi);
}

/// No second search for the start: past the cache, a descent costs about as much as the whole
/// walk of a short range.
template <class Params>
inline auto set_engine<Params>::forward_range_from(const rank_point& at, size_type lo,
                                                   size_type hi) const noexcept -> rank_range {
    if (lo >= hi || !skiplist_mode()) return forward_range(lo, hi);
    return forward_range_at(at.node, at.pos, lo, hi);
}

/// pos may lie past the block's end: the element that many positions on, in the blocks after.
/// A short range (hop_limit) finds its end by hopping blocks, and requests the records it will
/// walk, once: its walk does not request the blocks it enters again (walks_cold()), nor the
/// header of the block after its end (docs/design-log.md, "Walks request their blocks").
template <class Params>
inline auto set_engine<Params>::forward_range_at(node_id id, size_type pos, size_type lo,
                                                 size_type hi) const noexcept -> rank_range {
    const_iterator first = iterator_after(id, pos, 0);
    if (hi - lo > hop_limit) return rank_range(first, nth(hi), hi - lo);
    if (walks_cold()) first.block_.prefetch_block();
    const const_iterator last = iterator_after(first.id_, first.pos_, hi - lo);
    first.requests_ = block_requests::none;
    return rank_range(first, last, hi - lo);
}

// ---- reverse ranges ---------------------------------------------------------------------------

/// A page that ends at most hop_limit elements below the range's top is reached by hopping
/// blocks back from the end point the search found, with no search by rank (a leaderboard's
/// ZREVRANGEBYSCORE ... LIMIT 0 10: two descents of the rank tree fewer).
template <class Params>
inline auto
set_engine<Params>::reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                          limit lim) const noexcept -> reverse_range {
    return reverse_range_between(points, points_between(points.first, points.second), lim);
}

/// reverse_range_between(points, lim) given the count of elements between the points.
template <class Params>
inline auto
set_engine<Params>::reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                          size_type count, limit lim) const noexcept
    -> reverse_range {
    const auto [a, b] = apply_limit_reverse(0, count, lim);
    if (skiplist_mode() && a < b && count - a <= hop_limit)
        return reverse_from(iterator_before(points.second, count - a), b - a);
    const size_type lo = rank_at(points.first);
    return reverse_view(lo + a, lo + b);
}

/// offset + count within hop_limit.
template <class Params>
inline bool set_engine<Params>::short_page(limit lim) noexcept {
    const auto most = static_cast<long long>(hop_limit);
    return lim.offset >= 0 && lim.count >= 0 && lim.offset <= most &&
           lim.count <= most - lim.offset;
}

/// Min above max, one score with an exclusive end, or NaN: then the range's start point may
/// lie after its end.
template <class Params>
inline bool set_engine<Params>::inverted(const score_range<Score>& r) noexcept {
    if constexpr (std::is_floating_point_v<Score>)
        if (std::isnan(r.min.value) || std::isnan(r.max.value)) return true;
    return r.max.value < r.min.value ||
           (!(r.min.value < r.max.value) && (r.min.exclusive || r.max.exclusive));
}

/// Skiplist mode, a range whose start point is not after its end: walks back from the end at
/// most offset + count elements, stopping at the start, so a range with that many elements needs
/// no count of them (a leaderboard's next page: no rank-tree climb between its two ends).
template <class Params>
inline auto set_engine<Params>::reverse_page(const std::pair<rank_point, rank_point>& points,
                                             limit lim) const noexcept -> reverse_range {
    const rank_point& start = points.first;
    auto need = static_cast<size_type>(lim.offset + lim.count);
    node_id id = points.second.node;
    size_type pos = points.second.pos, found = 0;
    for (;;) {
        const size_type here = id != start.node ? pos : pos > start.pos ? pos - start.pos : 0;
        if (need <= here) {
            pos -= need;
            found += need;
            break;
        }
        found += here;
        need -= here;
        pos -= here;
        if (id == start.node) break;
        id = sk_->list.at(id).prev;
        pos = sk_->list.block_of(id).size();
    }
    const auto [a, b] = apply_limit_reverse(0, found, lim);
    if (a >= b) return reverse_view(0, 0);
    return reverse_from(iterator_after(id, pos, a), b - a);
}

/// Every block of the range is requested here (the hop to its end requests those after
/// first's), so its walk requests none: a reverse iterator's dereference decrements a copy,
/// which at a block boundary would enter and request the block below once more per element
/// read there (docs/design-log.md, "Walks request their blocks").
template <class Params>
inline auto set_engine<Params>::reverse_from(const const_iterator& first,
                                             size_type n) const noexcept -> reverse_range {
    const_iterator last = iterator_after(first.id_, first.pos_, n);
    if (walks_cold() && first.id_ != 0 && first.id_ != last.id_) first.block_.prefetch_block();
    last.requests_ = block_requests::none;
    return reverse_range(const_reverse_iterator(last), const_reverse_iterator(first), n);
}

template <class Params>
inline auto set_engine<Params>::reverse_view(size_type lo, size_type hi) const noexcept
    -> reverse_range {
    if (lo >= hi) return reverse_range(rend(), rend(), 0);
    return reverse_range(const_reverse_iterator(nth(hi)), const_reverse_iterator(nth(lo)), hi - lo);
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_VIEWS_HPP
