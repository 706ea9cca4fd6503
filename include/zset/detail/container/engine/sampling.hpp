// zset::detail::set_engine: ZRANDMEMBER (random_members) and ZSCAN (scan). Part of
// set_engine.hpp.
// SPDX-License-Identifier: MIT
//
// random_members draws ranks with the caller's generator (random.hpp) and reads each drawn
// element by rank (nth): distinct members by Floyd's sampling, or the whole set shuffled when
// every member is wanted; with replacement, one draw a member.
//
// scan walks the hash index by tag: a cursor is the next 32-bit tag to visit, and a call visits
// the entries whose tags lie in a window sized for about `count` elements. Those entries are
// one contiguous stretch of the index however it grows or shrinks (hash_index.hpp), so the
// cursor stays exact and every member present for the whole walk is visited at least once. In
// listpack mode (no index) the whole set comes in one call, as Redis does.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_SAMPLING_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_SAMPLING_HPP

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "../random.hpp"
#include "../set_engine.hpp"

namespace zset {
namespace detail {

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

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_SAMPLING_HPP
