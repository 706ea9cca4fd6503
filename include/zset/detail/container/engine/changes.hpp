// zset::detail::set_engine: changes in whichever encoding the set is in — inserting a new
// member (converting when it must), updating a score, erasing a located element, erasing ranks
// [lo, hi), and applying a planned batch add. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// Each single-element change starts from a position located once (member_index.hpp). Strong
// guarantee throughout: whatever may throw (a new record, a block split, growing the index, a
// conversion) happens before anything observable changes, and the steps after it cannot fail.
// In skiplist mode a new element goes into the list first and its index entry after (rolled
// back if the index throws, though its room was reserved first); a score update that leaves
// the member's block inserts the new copy before dropping the old one and re-pointing the
// index. Listpack mode's insert is in listpack_mode.hpp, the list's in skiplist_mode.hpp.
//
// Every range removal becomes ranks [lo, hi) (order.hpp) and erase_ranks(), which removes block
// by block: the index entries of a block's doomed elements (found by their exact address, so no
// member comparisons), then the elements. Removal never allocates and never throws.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_CHANGES_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_CHANGES_HPP

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

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

/// A copy is converted and added to, and the set changes (encoding included) only if both
/// succeed.
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::convert_and_insert(const probe& k, Score s) {
    set_engine converted = skiplist_copy();
    converted.insert_new(converted.make_probe(k.member), s, false);
    take(converted);
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

// ---- erase ------------------------------------------------------------------------------------

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

// ---- a planned batch add ----------------------------------------------------------------------

// A batch add is planned first (batch_plan): the pairs are simulated member by member (flags
// only ever look at the member's own score), which yields ZADD's reply and, for each distinct
// member, its score before and after the batch. Nothing in the set changes while planning. Then:
//   * listpack mode: the changes are applied one by one to a copy (converted first if the batch
//     needs it), and the set takes the copy;
//   * skiplist mode: the index is grown for the new members, each new member is inserted and
//     each updated member gets a second, unindexed copy at its new score (the old copies stay,
//     so a failure takes back only what was inserted); a final step that cannot fail drops the
//     old copies and points the index at the new ones.

/// A planned batch add: what each distinct member ends up as. Members are viewed in the input
/// (copied into `owned` only when the input yields temporaries); every allocation goes through
/// the set's allocator.
template <class Params>
struct set_engine<Params>::batch_plan {
    struct change {
        key_view member;
        std::uint64_t hash;
        std::optional<Score> before;  // score before the batch
        std::optional<Score> after;   // score after every pair for this member
    };
    std::vector<change, rebound<change>> changes;
    std::vector<std::uint32_t, rebound<std::uint32_t>> slots;  // open addressing: change + 1
    std::vector<Member, rebound<Member>> owned;

    explicit batch_plan(const set_engine& s)
        : changes(rebound<change>(s.get_allocator())),
          slots(rebound<std::uint32_t>(s.get_allocator())),
          owned(rebound<Member>(s.get_allocator())) {}

    static bool adds(const change& c) noexcept { return !c.before && c.after; }
    static bool moves(const change& c) noexcept {
        return c.before && c.after && !(*c.before == *c.after);
    }

    /// Simulates the pairs member by member. Returns ZADD's reply. Allocates; changes nothing
    /// in the set.
    template <class ForwardIt>
    size_type build(const set_engine& s, ForwardIt first, ForwardIt last, add_flags flags) {
        using ref_t = typename std::iterator_traits<ForwardIt>::reference;
        const auto n = static_cast<size_type>(std::distance(first, last));
        std::vector<Score, rebound<Score>> scores(rebound<Score>(s.get_allocator()));
        scores.reserve(n);
        for (ForwardIt it = first; it != last; ++it) scores.push_back(score_of_pair(it->second));
        changes.reserve(n);
        size_type table = 8;
        while (table < 2 * n) table *= 2;
        slots.assign(table, 0);
        if constexpr (!std::is_reference_v<ref_t>) {
            // the input yields temporaries: keep copies its members can be viewed in
            owned.reserve(n);
            for (ForwardIt it = first; it != last; ++it) owned.emplace_back(key_view(it->first));
        }
        size_type counted = 0, i = 0;
        for (ForwardIt it = first; it != last; ++it, ++i) {
            key_view m = key_view(it->first);
            if constexpr (!std::is_reference_v<ref_t>) m = key_view(owned[i]);
            counted += apply_pair(s, m, scores[i], flags);
        }
        return counted;
    }

    /// One pair against the member's planned score: what ZADD would reply for it.
    size_type apply_pair(const set_engine& s, key_view m, Score score, add_flags flags) {
        change& c = changes[find_or_add(s, m)];
        if (!c.after) {
            if (has(flags, add_flags::xx)) return 0;
            c.after = score;
            return 1;
        }
        if (has(flags, add_flags::nx)) return 0;
        if ((has(flags, add_flags::lt) && !(score < *c.after)) ||
            (has(flags, add_flags::gt) && !(score > *c.after)) || score == *c.after)
            return 0;
        c.after = score;
        return has(flags, add_flags::ch) ? 1 : 0;
    }

    /// The change for member m, added (with its current score) on first sight.
    size_type find_or_add(const set_engine& s, key_view m) {
        const std::uint64_t h = s.hash_value(m);
        const size_type mask = slots.size() - 1;
        for (size_type i = static_cast<size_type>(h) & mask;; i = (i + 1) & mask) {
            if (slots[i] == 0) {
                const position pos = s.locate(probe{m, h});
                std::optional<Score> cur;
                if (pos) cur = pos.b.score_of(pos.r);
                changes.push_back(change{m, h, cur, cur});
                slots[i] = static_cast<std::uint32_t>(changes.size());
                return changes.size() - 1;
            }
            const change& c = changes[slots[i] - 1];
            if (c.hash == h && s.eq_()(c.member, m)) return slots[i] - 1;
        }
    }
};

template <class Params>
inline void set_engine<Params>::apply_batch(const batch_plan& plan) {
    if (empty()) return build_from_batch(plan);
    if (!skiplist_mode()) {
        // A listpack is small: apply the changes one by one to a copy (converted first if the
        // batch will need it: sizes only grow during a batch add, so this is exactly when
        // applying the pairs one by one would), then take the copy.
        set_engine work =
            needs_conversion(plan) ? skiplist_copy() : set_engine(*this, get_allocator());
        for (const auto& c : plan.changes) work.apply_change_in_place(c);
        take(work);
        return;
    }
    size_type done = 0;
    ZSET_TRY {
        sk_->index.reserve(size() + count_adds(plan));
        for (const auto& c : plan.changes) {
            apply_change_beside(c);
            ++done;
        }
    }
    ZSET_CATCH_ALL {
        undo_changes(plan, done);
        ZSET_RETHROW;
    }
    for (const auto& c : plan.changes)
        if (batch_plan::moves(c)) commit_move(c);
}

/// A batch into an empty set only adds: its members, sorted, are built as from_sorted builds
/// (blocks filled in order, the index laid out in one pass) rather than inserted one by one,
/// each with a search, block splits and index growth. Strong guarantee (a fresh engine).
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::build_from_batch(const batch_plan& plan) {
    using change = typename batch_plan::change;
    std::vector<const change*, rebound<const change*>> adds{
        rebound<const change*>(get_allocator())};
    adds.reserve(plan.changes.size());
    for (const change& c : plan.changes)
        if (batch_plan::adds(c)) adds.push_back(&c);
    std::sort(adds.begin(), adds.end(), [this](const change* a, const change* b) {
        return element_less(*a->after, a->member, *b->after, b->member);
    });
    using pair = std::pair<key_view, Score>;  // key_view may be a reference: built, not sorted
    std::vector<pair, rebound<pair>> sorted{rebound<pair>(get_allocator())};
    sorted.reserve(adds.size());
    for (const change* c : adds) sorted.emplace_back(c->member, *c->after);
    rebuild_from(sorted.begin(), sorted.end(), build_room::growth);
}

template <class Params>
inline auto set_engine<Params>::count_adds(const batch_plan& plan) noexcept -> size_type {
    size_type added = 0;
    for (const auto& c : plan.changes) added += batch_plan::adds(c) ? 1 : 0;
    return added;
}

template <class Params>
inline bool set_engine<Params>::needs_conversion(const batch_plan& plan) const noexcept {
    size_type added = 0, units = 0, longest = 0;
    for (const auto& c : plan.changes) {
        if (!batch_plan::adds(c)) continue;
        ++added;
        units += block_type::units_for(c.member);
        longest = std::max(longest, detail::member_size<Member>(c.member));
    }
    return added > 0 && (size() + added > opts_.max_listpack_entries ||
                         longest > opts_.max_listpack_value || !listpack_can_take(added, units));
}

template <class Params>
inline void set_engine<Params>::apply_change_in_place(const typename batch_plan::change& c) {
    const probe k{c.member, c.hash};
    if (batch_plan::adds(c)) {
        insert_new(k, *c.after, false);
    } else if (batch_plan::moves(c)) {
        update_score(k, locate(k), *c.after);
    }
}

/// A new member is inserted (index entry included); an updated member gets a second, unindexed
/// copy at its new score. Strong guarantee.
template <class Params>
inline void set_engine<Params>::apply_change_beside(const typename batch_plan::change& c) {
    const probe k{c.member, c.hash};
    if (batch_plan::adds(c))
        insert_new(k, *c.after, false);
    else if (batch_plan::moves(c))
        insert_element(k, *c.after);
}

/// Never throws.
template <class Params>
inline void set_engine<Params>::undo_changes(const batch_plan& plan, size_type done) noexcept {
    for (size_type i = done; i-- > 0;) {
        const auto& c = plan.changes[i];
        if (batch_plan::adds(c)) {
            const position pos = locate(probe{c.member, c.hash});
            sk_->index.erase_slot(pos.slot);
            erase_from_list(pos.node, position_in(pos.b, pos.r));
        } else if (batch_plan::moves(c)) {
            const auto [x, at] = find_element(*c.after, c.member);
            erase_from_list(x, at);
        }
    }
}

/// Never throws.
template <class Params>
inline void set_engine<Params>::commit_move(const typename batch_plan::change& c) noexcept {
    // the index entry still points at the old copy (re-pointing goes by exact address)
    const position old_copy = locate(probe{c.member, c.hash});
    erase_from_list(old_copy.node, position_in(old_copy.b, old_copy.r));
    const auto [x, at] = find_element(*c.after, c.member);
    sk_->index.set_address(old_copy.slot, address{x, sk_->list.block_of(x).ref(at)});
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_CHANGES_HPP
