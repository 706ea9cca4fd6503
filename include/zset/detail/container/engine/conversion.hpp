// zset::detail::set_engine: building a set from sorted elements (copies, assign_sorted,
// from_sorted, set-operation results, shrink_to_fit) and converting listpack mode to skiplist
// mode. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// Input elements are sorted by (score, member) and unique, so a build appends records in order
// and never searches: one block in listpack mode, or blocks filled to block_max_entries (and
// about block_max_bytes) in skiplist mode, each appended to the list, with the index built
// beside them. A build goes into a fresh engine that the set then takes, so a failure leaves
// the set as it was. The input may be the set's own elements (shrink_to_fit, assign_sorted of
// its own view). A conversion is a build of the set's own elements in skiplist mode.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_CONVERSION_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_CONVERSION_HPP

#include <algorithm>
#include <iterator>
#include <type_traits>
#include <vector>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

template <class Params>
template <class It>
inline bool set_engine<Params>::fits_listpack(It first, It last, size_type n) const {
    if (n == 0) return true;
    if (n > opts_.max_listpack_entries) return false;
    size_type units = 0;
    for (; first != last; ++first) {
        const key_view m = key_view(element_member(*first));
        if (detail::member_size<Member>(m) > opts_.max_listpack_value) return false;
        units += block_type::units_for(m);
    }
    return block_type::can_hold(n, units);
}

template <class Params>
template <class E>
inline decltype(auto) set_engine<Params>::element_member(const E& e) {
    if constexpr (std::is_same_v<E, reference>)
        return e.member;
    else
        return (e.first);
}

template <class Params>
template <class E>
inline auto set_engine<Params>::element_score(const E& e) -> Score {
    if constexpr (std::is_same_v<E, reference>)
        return e.score;
    else
        return score_of_pair(e.second);
}

/// Strong guarantee: on exception this stays empty.
template <class Params>
template <class It>
inline void set_engine<Params>::build_from(It first, It last, size_type n, bool as_skiplist,
                                           build_room room) {
    if (n == 0) return;
    if (as_skiplist)
        build_skiplist(first, last, n, room);
    else
        build_listpack(first, last, n, room);
}

/// [first, last) may be this set's own elements. Strong guarantee.
template <class Params>
template <class It>
inline void set_engine<Params>::rebuild_from(It first, It last, build_room room) {
    set_engine fresh(opts_, hash_(), eq_(), less_(), get_allocator());
    const auto n = static_cast<size_type>(std::distance(first, last));
    fresh.build_from(first, last, n, !fresh.fits_listpack(first, last, n), room);
    take(fresh);
}

template <class Params>
inline auto set_engine<Params>::built_positions(size_type count, build_room room) noexcept
    -> size_type {
    return room != build_room::none ? block_type::grown(count) : count;
}

template <class Params>
inline auto set_engine<Params>::built_area(size_type units, build_room room) noexcept -> size_type {
    return room != build_room::none ? block_type::grown_area(units) : units;
}

template <class Params>
template <class It>
inline void set_engine<Params>::build_listpack(It first, It last, size_type n, build_room room) {
    const Allocator& alloc = allocator();
    size_type units = 0;
    for (It it = first; it != last; ++it)
        units += block_type::units_for(key_view(element_member(*it)));
    block_type b =
        block_type::create(alloc, std::max(listpack_positions(built_positions(n, room)), n),
                           built_area(units, room), true);
    ZSET_TRY {
        fill_block(b, first, last, zset::encoding::listpack);
    }
    ZSET_CATCH_ALL {
        block_type::destroy(alloc, b);
        ZSET_RETHROW;
    }
    lp_ = b;
}

/// Strong guarantee for b's owner: on exception b holds a prefix of them (destroyed by the
/// caller).
template <class Params>
template <class It>
inline void set_engine<Params>::fill_block(block_type b, It first, It last,
                                           zset::encoding mode) const {
    const Allocator& alloc = allocator();
    for (It it = first; it != last; ++it) {
        const key_view m = key_view(element_member(*it));
        const ref_type r = b.append_record(alloc, stored_score(element_score(*it), mode), m);
        b.link(b.size(), r, listpack_fingerprint(m));
    }
}

/// Up to index_laid_out_up_to members the index is laid out in one pass (hash_index::assign),
/// which builds set-operation results faster than one insert after another. Not beyond: its
/// temporaries (about 30 bytes a member) then outgrow malloc's mmap threshold, and the page
/// faults of fresh memory would make large unions slower (docs/design-log.md, "Index growth and
/// layout"; bench row union).
template <class Params>
template <class It>
inline ZSET_NOINLINE void set_engine<Params>::build_skiplist(It first, It last, size_type n,
                                                             build_room room) {
    owned_state state(allocator());
    list_type& fresh = state.get()->list;
    index_type& fresh_index = state.get()->index;
    using tagged_address = typename index_type::tagged_address;
    std::vector<tagged_address, rebound<tagged_address>> entries{
        rebound<tagged_address>(get_allocator())};
    const bool laid_out = n <= index_laid_out_up_to;
    const bool converting = room == build_room::conversion;
    const size_type index_room = converting ? 2 * n : n;
    if (laid_out)
        entries.reserve(n);
    else
        fresh_index.reserve(index_room);
    const size_type most_entries = converting ? block_max_entries / 2 : block_max_entries;
    const size_type most_units = converting ? block_max_bytes / 2 : block_max_bytes;
    while (first != last) {
        // one block: up to most_entries elements and (softly) most_units of records
        It chunk_end = first;
        size_type count = 0, units = 0;
        while (chunk_end != last && count < most_entries) {
            const size_type need = block_type::units_for(key_view(element_member(*chunk_end)));
            if (count > 0 && units + need > most_units) break;
            units += need;
            ++count;
            ++chunk_end;
        }
        const node_id made = fresh.append_node(
            built_positions(count, room), built_area(units, room), list_type::max_level, false,
            [&](block_type b) { fill_block(b, first, chunk_end, zset::encoding::skiplist); });
        const block_type b = fresh.block_of(made);
        for (size_type i = 0; i < b.size(); ++i) {
            const tagged_address e{index_type::tag_of(hash_value(b.member(i))),
                                   address{made, b.ref(i)}};
            if (laid_out)
                entries.push_back(e);
            else
                fresh_index.insert(e.tag, e.a);
        }
        first = chunk_end;
    }
    if (laid_out) fresh_index.assign(entries.data(), entries.data() + entries.size(), index_room);
    release_listpack();
    release_skiplist();
    sk_ = state.release();
}

/// O(n).
template <class Params>
inline ZSET_NOINLINE auto set_engine<Params>::skiplist_copy() const -> set_engine {
    set_engine converted(opts_, hash_(), eq_(), less_(), get_allocator());
    converted.build_skiplist(begin(), end(), size(), build_room::conversion);
    return converted;
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_CONVERSION_HPP
