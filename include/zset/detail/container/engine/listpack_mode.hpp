// zset::detail::set_engine: listpack mode's insert and the growth of its one block. Part of
// engine.hpp.
// SPDX-License-Identifier: MIT
//
// In listpack mode the set is one block (block.hpp) with no index: an insert appends the record
// and links it into the order array and the block's member lookup (the bucket table up to 128
// positions, fingerprints beyond). When the block is full it is compacted (it holds garbage:
// there is no index to re-point) or regrown, never past the positions the thresholds allow, so
// that a block of the default 128 keeps its bucket table. Adding a member that does not fit the
// thresholds converts the set instead (must_convert_for; the conversion is in changes.hpp).
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_MODE_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_MODE_HPP

#include <algorithm>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

template <class Params>
inline bool set_engine<Params>::listpack_can_take(size_type count, size_type units) const noexcept {
    const size_type live = lp_ ? lp_.used() - lp_.garbage() : 0;
    return block_type::can_hold(size() + count, live + units);
}

template <class Params>
inline bool set_engine<Params>::must_convert_for(key_view m) const noexcept {
    return size() + 1 > opts_.max_listpack_entries ||
           detail::member_size<Member>(m) > opts_.max_listpack_value ||
           !listpack_can_take(1, block_type::units_for(m));
}

template <class Params>
inline void set_engine<Params>::listpack_insert(const probe& k, Score given) {
    const Score s = stored_score(given, zset::encoding::listpack);
    const size_type units = block_type::units_for(k.member);
    const Allocator& alloc = allocator();
    const bool created = !lp_;
    if (created)
        lp_ = block_type::create(alloc, listpack_grown_positions(1), listpack_grown_area(units),
                                 true);
    else if (!lp_.has_room(units))
        make_listpack_room(units);  // same elements, more room
    ref_type r;
    ZSET_TRY {
        r = lp_.append_record(alloc, s, k.member);
    }
    ZSET_CATCH_ALL {
        if (created) release_listpack();
        ZSET_RETHROW;
    }
    lp_.link(lp_.lower_bound(s, k.member, less_(), search_mode()), r,
             listpack_fingerprint(k.member));
}

/// Compacted when the block holds garbage (there is no index to re-point in listpack mode),
/// else regrown. Either way both the positions and the area get their growth step unless they
/// have that much room already: grown one at a time, they ran out a few inserts apart and a set
/// built from empty copied its block twice as often. Strong guarantee.
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::make_listpack_room(size_type units) {
    const size_type cap =
        listpack_positions(std::max(lp_.capacity(), listpack_grown_positions(lp_.size() + 1)));
    const size_type live = lp_.used() - lp_.garbage();
    const size_type area =
        std::max(lp_.garbage() == 0 ? lp_.area() : size_type{0}, listpack_grown_area(live + units));
    resize_listpack(cap, area);
}

template <class Params>
inline void set_engine<Params>::resize_listpack(size_type cap, size_type area) {
    const Allocator& alloc = allocator();
    const bool had_table = lp_.has_table();
    if (lp_.garbage() == 0) {
        lp_ = block_type::regrow(alloc, lp_, cap, area);
    } else {
        block_type fresh = block_type::create(alloc, cap, area, true);
        block_type::transfer(lp_, 0, lp_.size(), fresh, [](key_view, Score, ref_type, ref_type) {});
        block_type::discard_moved(alloc, lp_);
        lp_ = fresh;
    }
    if (had_table && !lp_.has_table()) refingerprint_listpack();
}

/// Positions for n elements, and area for the records to come at the set's average record
/// size, within the block's addressable area (records longer than the average may still grow
/// it). Strong guarantee.
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::reserve_listpack(size_type n) {
    const size_type live = lp_ ? lp_.used() - lp_.garbage() : 0;
    const size_type average = size() != 0 ? (live + size() - 1) / size()
                                          : block_type::units_for_length(reserve_member_bytes);
    const size_type area = std::min(live + (n - size()) * average, block_type::max_area);
    if (!lp_) {
        lp_ = block_type::create(allocator(), n, area, true);
        return;
    }
    if (lp_.capacity() >= n && lp_.area() - lp_.used() >= area - live) return;
    resize_listpack(std::max(lp_.capacity(), n),
                    std::max(lp_.garbage() == 0 ? lp_.area() : 0, area));
}

/// The room a listpack block grows to for n positions (area units): the block's 1/16 step
/// (block_type::grown), or half again while that is below 8 positions (128 bytes of area). The
/// 1/16 step alone would copy the block of a small set on nearly every insert (its constant
/// part is a record or less), and a set is built from empty through those sizes: half again up
/// to the cap makes about a third as many copies to 100 members, for at most 8 positions and
/// 128 bytes of room, and keeps the 1/16 step near the default thresholds (docs/design-log.md,
/// "Building from empty"; bench row many_sets_100).
template <class Params>
inline auto set_engine<Params>::listpack_grown_positions(size_type n) noexcept -> size_type {
    return std::max(block_type::grown(n), n + std::min<size_type>(n / 2, 8));
}

template <class Params>
inline auto set_engine<Params>::listpack_grown_area(size_type units) noexcept -> size_type {
    constexpr size_type small_step = std::max<size_type>(128 / block_type::bytes_per_unit(), 1);
    const size_type wanted =
        std::max(block_type::grown_area(units), units + std::min(units / 2, small_step));
    return std::max(units, std::min(wanted, block_type::max_area));
}

/// No more than the set may hold in listpack mode, so that a block of the default 128 keeps its
/// bucket table (block.hpp) instead of growing past it.
template <class Params>
inline auto set_engine<Params>::listpack_positions(size_type wanted) const noexcept -> size_type {
    const size_type most = std::max<size_type>(opts_.max_listpack_entries, 1);
    return std::min(wanted, std::max(most, size() + 1));
}

/// The table kept 13 of the fingerprint's 16 bits. Never throws.
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::refingerprint_listpack() noexcept {
    for (size_type i = 0; i < lp_.size(); ++i)
        lp_.set_fingerprint(i, listpack_fingerprint(lp_.member(i)));
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_MODE_HPP
