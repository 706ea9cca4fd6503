// zset::detail::set_engine: listpack mode's insert and the growth of its one block. Part of
// set_engine.hpp.
// SPDX-License-Identifier: MIT
//
// In listpack mode the set is one block (block.hpp) with no index: an insert appends the record
// and links it into the order array and the block's member lookup (the bucket table up to 128
// positions, fingerprints beyond). When the block is full it is compacted (it holds garbage:
// there is no index to re-point) or regrown, never past the positions the thresholds allow, so
// that a block of the default 128 keeps its bucket table. Adding a member that does not fit the
// thresholds converts the set instead (must_convert_for; the conversion is in build.hpp).
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_HPP

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
        lp_ = block_type::create(alloc, block_type::grown(1), block_type::grown_area(units), true);
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
/// else regrown. Strong guarantee.
template <class Params>
inline ZSET_NOINLINE void set_engine<Params>::make_listpack_room(size_type units) {
    const Allocator& alloc = allocator();
    const size_type cap = lp_.size() < lp_.capacity()
                              ? lp_.capacity()
                              : listpack_positions(block_type::grown(lp_.size() + 1));
    const size_type live = lp_.used() - lp_.garbage();
    const bool had_table = lp_.has_table();
    if (lp_.garbage() == 0) {
        lp_ = block_type::regrow(alloc, lp_, cap, block_type::grown_area(live + units));
    } else {
        block_type fresh =
            block_type::create(alloc, cap, block_type::grown_area(live + units), true);
        block_type::transfer(lp_, 0, lp_.size(), fresh, [](key_view, Score, ref_type, ref_type) {});
        block_type::destroy(alloc, lp_);
        lp_ = fresh;
    }
    if (had_table && !lp_.has_table()) refingerprint_listpack();
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

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_LISTPACK_HPP
