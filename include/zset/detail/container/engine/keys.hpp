// zset::detail::set_engine: members and scores as the engine compares them — hashing, probes and
// fingerprints; member equality; element order; score and flag checks. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// Listpack mode never hashes a short byte-string member with the set's Hash: its blocks keep a
// fingerprint made from the member's bytes in one multiply, and a probe in listpack mode carries
// no hash. Skiplist mode hashes every member, and its index places members by the hash's high
// bits, so a Hash that does not declare itself avalanching is mixed once more.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_KEYS_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_KEYS_HPP

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- hashing, probes, fingerprints ------------------------------------------------------------

template <class Params>
ZSET_ALWAYS_INLINE std::uint64_t set_engine<Params>::hash_value(key_view m) const noexcept {
    const auto h = static_cast<std::uint64_t>(hash_()(m));
    // The index places by the high bits: a user hash that leaves them empty (std::hash of
    // an integer is the identity) would pile every member into one run, so it is mixed.
    if constexpr (detail::is_avalanching_v<Hash>)
        return h;
    else
        return detail::mix_integer(h);
}

/// The 16-bit fingerprint a listpack-mode block keeps of member m (13 bits of it in a bucket
/// table). Members compared as bytes take it from their bytes in one multiply when they are at
/// most 16 bytes long (detail::short_bytes_fingerprint), not from the set's Hash: a lookup's
/// chain of dependent steps is then as short as skiplist mode's, whose index needs the whole
/// hash (docs/design-log.md, "A one-multiply fingerprint for listpack mode"). Other members
/// take the top 16 bits of their hash.
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::listpack_fingerprint(key_view m) const noexcept ->
    typename block_type::fingerprint_type {
    if constexpr (byte_equality)
        if (m.size() <= 16) return detail::short_bytes_fingerprint(m.data(), m.size());
    return static_cast<typename block_type::fingerprint_type>(hash_value(m) >> 48);
}

/// A member and, in skiplist mode, its hash (listpack mode does not use it: its blocks take
/// listpack_fingerprint).
template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::make_probe(key_view m) const noexcept -> probe {
    return probe{m, skiplist_mode() ? hash_value(m) : 0};
}

template <class Params>
ZSET_ALWAYS_INLINE bool set_engine<Params>::same_member(block_type b, ref_type r,
                                                        key_view m) const noexcept {
    if constexpr (byte_equality)
        return b.bytes_equal(r, m);
    else
        return eq_()(b.member_of(r), m);
}

// ---- element order ----------------------------------------------------------------------------

template <class Params>
inline bool set_engine<Params>::element_less(Score as, key_view am, Score bs,
                                             key_view bm) const noexcept {
    return as < bs || (!(bs < as) && less_()(am, bm));
}

template <class Params>
inline bool set_engine<Params>::node_before(const node& n, Score s, key_view m) const noexcept {
    if (n.first_score < s) return true;
    if (s < n.first_score) return false;
    return less_()(sk_->list.block_of(n).member(0), m);
}

// ---- scores and flags -------------------------------------------------------------------------

template <class Params>
inline void set_engine<Params>::check_flags(add_flags f) {
    if (has(f, add_flags::nx) && has(f, add_flags::xx)) detail::raise_error(errors::xx_and_nx);
    const int exclusive = (has(f, add_flags::gt) ? 1 : 0) + (has(f, add_flags::lt) ? 1 : 0) +
                          (has(f, add_flags::nx) ? 1 : 0);
    if (exclusive > 1) detail::raise_error(errors::gt_lt_nx);
}

template <class Params>
template <class S>
inline auto set_engine<Params>::score_of_pair(const S& s) -> Score {
    if constexpr (std::is_same_v<S, score_arg<Score>>)
        return s.checked();
    else
        return detail::checked_score_cast<Score>(s);
}

template <class Params>
inline auto set_engine<Params>::checked_sum(Score a, Score b) -> Score {
    if constexpr (std::is_floating_point_v<Score>) {
        const Score r = a + b;
        if (std::isnan(r)) detail::raise_error(errors::nan_result);
        return r;
    } else {
        if ((b > 0 && a > std::numeric_limits<Score>::max() - b) ||
            (b < 0 && a < std::numeric_limits<Score>::lowest() - b))
            detail::raise_error(errors::integer_overflow);
        return static_cast<Score>(a + b);
    }
}

/// The score as stored: Redis's listpack keeps an integral score as an integer, so a set in
/// listpack mode stores -0.0 as 0 (visible through std::signbit and in formatted replies);
/// skiplist mode keeps the double as given.
template <class Params>
inline auto set_engine<Params>::stored_score(Score s, zset::encoding mode) noexcept -> Score {
    if constexpr (std::is_floating_point_v<Score>)
        if (mode == zset::encoding::listpack && s == Score(0)) return Score(0);
    return s;
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_KEYS_HPP
