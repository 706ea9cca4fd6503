// zset::detail::set_engine: removing ranges of elements (ZREMRANGEBYRANK / BYSCORE / BYLEX, erase
// of iterators) and popping from either end (ZPOPMIN, ZPOPMAX). Part of set_engine.hpp.
// SPDX-License-Identifier: MIT
//
// Every range removal becomes ranks [lo, hi) (ranks.hpp) and erase_ranks(), which removes block
// by block: the index entries of a block's doomed elements (found by their exact address, so no
// member comparisons), then the elements. Removal never allocates and never throws. Pops copy
// the elements out first (strong guarantee), then remove them the same way; a pop of one
// element reads the end block directly.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_REMOVAL_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_REMOVAL_HPP

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

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

/// O(log n * blocks + m): a rank search per block touched.
template <class Params>
inline auto set_engine<Params>::erase_ranks(size_type lo, size_type hi) noexcept -> size_type {
    const size_type removed = hi > lo ? hi - lo : 0;
    if (removed == 0) return 0;
    modified();
    if (!skiplist_mode()) {
        lp_.erase(allocator(), lo, hi);
        if (lp_.empty()) release_listpack();
        return removed;
    }
    size_type remaining = removed;
    while (remaining > 0) {
        const auto [x, i] =
            lo == 0 ? std::pair<node_id, size_type>{sk_->list.first(), 0} : sk_->list.nth(lo);
        const block_type b = sk_->list.block_of(x);
        const size_type here = std::min(remaining, b.size() - i);
        for (size_type j = i; j < i + here; ++j) {
            const key_view m = b.member(j);
            sk_->index.erase_slot(
                sk_->index.find_present(index_type::tag_of(hash_value(m)), address{x, b.ref(j)}));
        }
        sk_->list.erase(x, i, i + here);
        remaining -= here;
    }
    if (sk_->list.size() == 0) clear();
    return removed;
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

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_REMOVAL_HPP
