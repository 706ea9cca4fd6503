// zset::detail::set_engine: single-element changes — add (ZADD of one member), increment
// (ZINCRBY), erase (ZREM) — and skiplist mode's insert, score update and erase under them.
// Part of set_engine.hpp.
// SPDX-License-Identifier: MIT
//
// Each change locates the member once (lookup.hpp) and then works from that position. Strong
// guarantee throughout: whatever may throw (a new record, a block split, growing the index, a
// conversion) happens before anything observable changes, and the steps after it cannot fail.
// In skiplist mode a new element goes into the list first and its index entry after (rolled
// back if the index throws, though its room was reserved first); a score update that leaves
// the member's block inserts the new copy before dropping the old one and re-pointing the
// index. Listpack mode's insert is in listpack.hpp, conversion in build.hpp.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_MODIFY_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_MODIFY_HPP

#include <iterator>
#include <optional>

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

// ---- insert -----------------------------------------------------------------------------------

/// `may_convert` is false inside a batch, which settles conversion up front.
template <class Params>
inline void set_engine<Params>::insert_new(const probe& k, Score s, bool may_convert) {
    if (!skiplist_mode()) {
        if (may_convert && must_convert_for(k.member)) {
            convert_and_insert(k, s);
            return;
        }
        listpack_insert(k, s);
        return;
    }
    sk_->index.reserve_one_more();
    const address placed = insert_element(k, s);
    ZSET_TRY {
        sk_->index.insert(index_type::tag_of(k.hash), placed);
    }
    ZSET_CATCH_ALL {
        erase_from_list(placed.node, position_in(sk_->list.block_of(placed.node), placed.ref));
        ZSET_RETHROW;
    }
}

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

template <class Params>
inline void set_engine<Params>::erase_found(const position& pos) noexcept {
    if (!skiplist_mode()) {
        lp_.erase(allocator(), pos.pos, pos.pos + 1, pos.entry);
        if (lp_.empty()) release_listpack();
        return;
    }
    sk_->index.erase_slot(pos.slot);
    erase_from_list(pos.node, position_in_block(pos));
    if (sk_->list.size() == 0) clear();
}

// ---- score update -----------------------------------------------------------------------------

/// Within its block when the new key still belongs there (no index change); otherwise the new
/// copy is inserted first (may throw: nothing changed yet), then the old one dropped and the
/// index pointed at the new one, neither of which allocates.
template <class Params>
inline void set_engine<Params>::update_score(const probe& k, const position& pos, Score given) {
    if (!skiplist_mode()) {
        const Score s = stored_score(given, zset::encoding::listpack);
        move_within(lp_, pos.pos, pos.r, s, k.member, pos.entry);
        return;
    }
    const Score s = given;
    const size_type i = position_in(pos.b, pos.r);
    if (stays_in_node(pos.node, i, s, k.member)) {
        move_within(pos.b, i, pos.r, s, k.member);
        sk_->list.refresh_first(pos.node);
        return;
    }
    path p;
    const placement at = place_of(s, k.member, p);
    if (at.where.target == pos.node) {  // its own block after all
        move_within(pos.b, i, pos.r, s, k.member);
        sk_->list.refresh_first(pos.node);
        return;
    }
    const address placed = insert_placed(at, p, s, k.member);
    erase_from_list(pos.node, i);
    sk_->index.set_address(pos.slot, placed);
}

/// Precondition: the element's place is in b. Never throws.
template <class Params>
inline void set_engine<Params>::move_within(block_type b, size_type i, ref_type r, Score s,
                                            key_view m, size_type entry) noexcept {
    // where (s, m) goes among the others: lower_bound counts the element itself when its old
    // key is below the new one
    size_type to = b.lower_bound(s, m, less_(), search_mode());
    if (to > i) --to;
    b.set_score_of(r, s);
    b.move_position(i, to, entry);
}

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

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_MODIFY_HPP
