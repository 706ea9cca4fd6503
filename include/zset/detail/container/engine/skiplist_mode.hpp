// zset::detail::set_engine: skiplist mode's list changes — where a new element goes and its
// insert into the list, the index re-pointing of records a split moves, erasing from the list,
// whether a changed key stays in its block, and finding an element by descent. Part of
// engine.hpp.
// SPDX-License-Identifier: MIT
//
// These change the list only: the index entry of an inserted or erased element is its caller's
// (changes.hpp), except for the records a split or compaction moves, which the repointer
// re-points as they move.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_SKIPLIST_MODE_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_SKIPLIST_MODE_HPP

#include <utility>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- insert -----------------------------------------------------------------------------------

/// Inserts (s, m) into the list where it belongs.
template <class Params>
inline auto set_engine<Params>::insert_element(const probe& k, Score s) -> address {
    path p;
    return insert_placed(place_of(s, k.member, p), p, s, k.member);
}

/// Where an element of key (s, m) goes: the block block_for_score picks from the rank tree's
/// keys when it takes the element without splitting (no descent); else (a tie on a first score,
/// or a split ahead) the node a descent finds, which fills `p` for a split to link by.
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::place_of(Score s, key_view m, path& p) const noexcept
    -> placement {
    const list_type& list = sk_->list;
    const node_id t = list.block_for_score(s);
    if (t != list_type::head_id && !list.must_split(t, m, skiplist_limits()))
        return {{t, 0}, placement::found_directly};
    list.descend([&](const node& n) { return node_before(n, s, m); }, p);
    return {list.locate(p), placement::descended};
}

/// Inserts (s, m) at its placement, in the list only (not the index). Strong guarantee.
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::insert_placed(placement at, path& p, Score s,
                                                          key_view m) -> address {
    list_type& list = sk_->list;
    if (at.where.target != list_type::head_id)
        at.where.pos = list.block_of(at.where.target).lower_bound(s, m, less_(), search_mode());
    const auto placed = at.how == placement::descended
                            ? list.insert(p, at.where, s, m, 0, skiplist_limits(), false, repoint())
                            : list.insert_into(at.where, s, m, 0, repoint());
    return address{placed.first, placed.second};
}

template <class Params>
inline auto set_engine<Params>::skiplist_limits() const noexcept -> typename list_type::limits {
    return {block_max_entries, block_max_bytes, list_type::max_level};
}

/// Every element a split or compaction moves needs its index entry re-pointed, one probe each
/// from its member's hash. In an index past a few megabytes each probe misses the cache, and
/// one after another they are a large part of building a set by single adds at 10^7 members
/// (docs/design-log.md, "Re-pointing moved records"; bench row build_random/zset/10000000).
/// Told which positions are about to move (skiplist::announce_moves), a large index
/// first requests the slots every one of them will read, so that the misses overlap; a small
/// one, likely cached, skips that pass and its second hash of each member.
template <class Params>
class set_engine<Params>::repointer {
public:
    explicit repointer(set_engine& e) noexcept
        : e_(e), ahead_(e.sk_->index.capacity() >= announce_from) {}
    void operator()(key_view m, Score, address from, address to) const noexcept {
        e_.sk_->index.replace(index_type::tag_of(e_.hash_value(m)), from, to);
    }
    void announce(block_type b, size_type first, size_type last) const noexcept {
        if (!ahead_) return;
        for (size_type i = first; i < last; ++i)
            e_.sk_->index.prefetch(index_type::tag_of(e_.hash_value(b.member(i))));
    }

private:
    static constexpr size_type announce_from = size_type{1} << 18;  // slots: 2.3 MB of index
    set_engine& e_;
    bool ahead_;
};

template <class Params>
inline auto set_engine<Params>::repoint() noexcept -> repointer {
    return repointer(*this);
}

// ---- erase ------------------------------------------------------------------------------------

template <class Params>
inline void set_engine<Params>::erase_from_list(node_id x, size_type pos) noexcept {
    sk_->list.erase(x, pos, pos + 1);
}

// ---- score update and search ------------------------------------------------------------------

/// A cheap test from x's own elements and its successor's cached first score; false negatives
/// only cost a descent.
template <class Params>
inline bool set_engine<Params>::stays_in_node(node_id x, size_type i, Score s,
                                              key_view m) const noexcept {
    const node& n = sk_->list.at(x);
    const block_type b = sk_->list.block_of(x);
    const bool lower_ok = x == sk_->list.first() ||
                          (i > 0 && element_less(n.first_score, b.member(0), s, m)) ||
                          (i == 0 && b.size() > 1 && element_less(b.score(1), b.member(1), s, m));
    if (!lower_ok) return false;
    const node_id next = n.next(0);
    if (next == list_type::head_id) return true;
    const node& nn = sk_->list.at(next);
    return s < nn.first_score ||
           (!(nn.first_score < s) && less_()(m, sk_->list.block_of(next).member(0)));
}

/// Not through the index: the batch's second copy of a member is not indexed.
template <class Params>
inline auto set_engine<Params>::find_element(Score s, key_view m) const noexcept
    -> std::pair<node_id, size_type> {
    path p;
    sk_->list.descend([&](const node& n) { return node_before(n, s, m); }, p);
    node_id x = p.at[0] == list_type::head_id ? sk_->list.first() : p.at[0];
    size_type i = sk_->list.block_of(x).lower_bound(s, m, less_(), search_mode());
    if (i == sk_->list.block_of(x).size()) {
        x = sk_->list.at(x).next(0);
        i = 0;
    }
    return {x, i};
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_SKIPLIST_MODE_HPP
