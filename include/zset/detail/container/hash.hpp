// zset::detail hashing.
// SPDX-License-Identifier: MIT
//
// In skiplist mode members are hashed once per operation and the top 32 bits of the 64-bit
// result are the tag that places and filters entries in the hash index. A weak hash would
// cluster the index, so integers are mixed with a 128-bit multiply and strings are folded eight
// bytes at a time through the same mixer.
//
// A listpack-mode block needs only a 16-bit fingerprint a member (13 bits of it in a bucket
// table). For byte strings of at most 16 bytes (compared as bytes) it is short_bytes_fingerprint:
// the words hash_bytes would load, folded through one multiply instead of two, which takes a
// multiply's latency off the chain of dependent steps a lookup waits for and makes listpack
// mode's ZSCORE at n = 100 as fast as skiplist mode's (docs/design-log.md, "A one-multiply
// fingerprint for listpack mode"; bench rows zscore_hit and zscore_miss at 100, zset against
// zset_skiplist). Over random members its buckets fill as a random function's
// would; over numbered members ("member:0", "member:1", ...) more evenly, as multiplicative hashing
// spreads a sequence. Caveat: it is not seeded and not the set's Hash, so members crafted to share
// it all fall in one bucket; a listpack-mode set is at most 128 members by default, where that
// costs a scan of the set, as Redis's listpack always does.
#ifndef ZSET_DETAIL_CONTAINER_HASH_HPP
#define ZSET_DETAIL_CONTAINER_HASH_HPP

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "../../common.hpp"

// The function objects the container names: std::hash, std::equal_to<> and std::less<>. In C++17
// <functional> also brings std::function, the searchers and <unordered_map>: a noticeable share
// of the time g++ takes to parse a TU using the container (docs/benchmarks.md, "Compile time").
// libstdc++ keeps these three in two small headers (which its <string> includes anyway): they
// are included instead.
#if defined(__GLIBCXX__) && __has_include(<bits/stl_function.h>) && \
    __has_include(<bits/functional_hash.h>)
#include <bits/functional_hash.h>
#include <bits/stl_function.h>
#else
#include <functional>
#endif

namespace zset {
namespace detail {

/// Folds a 64x64 -> 128-bit product into 64 bits: the high half carries the avalanche.
ZSET_ALWAYS_INLINE std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
    __extension__ using u128 = unsigned __int128;
    const u128 product = static_cast<u128>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
#else
    const std::uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
    const std::uint64_t hi_hi = a_hi * b_hi;
    const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
    const std::uint64_t high = hi_hi + (hi_lo >> 32) + (cross >> 32);
    const std::uint64_t low = (cross << 32) | (lo_lo & 0xffffffffu);
    return low ^ high;
#endif
}

inline constexpr std::uint64_t hash_k0 = 0x9e3779b97f4a7c15ull;
inline constexpr std::uint64_t hash_k1 = 0xd6e8feb86659fd93ull;
inline constexpr std::uint64_t hash_k2 = 0xa0761d6478bd642full;

inline std::uint64_t load_u64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// Loads 8 bytes as a little-endian integer whatever the host's byte order (for layouts written
/// byte by byte and read as one integer).
inline std::uint64_t load_le64(const unsigned char* p) noexcept {
    std::uint64_t v = load_u64(p);
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/// Stores v as 8 little-endian bytes whatever the host's byte order (load_le64's inverse).
inline void store_le64(unsigned char* p, std::uint64_t v) noexcept {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    std::memcpy(p, &v, sizeof v);
}

inline std::uint64_t load_u32(const unsigned char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// Loads 1..7 trailing bytes without reading past the end.
ZSET_ALWAYS_INLINE std::uint64_t load_tail(const unsigned char* p, std::size_t n) noexcept {
    if (n >= 4) return (load_u32(p) << 32) | load_u32(p + n - 4);
    return (std::uint64_t{p[0]} << 16) | (std::uint64_t{p[n >> 1]} << 8) | p[n - 1];
}

/// Hashes 17 or more bytes (out of line: the short path below is the hot one).
inline std::uint64_t hash_long_bytes(const unsigned char* p, std::size_t len) noexcept {
    std::uint64_t h = hash_k0 ^ fold_multiply(len ^ hash_k1, hash_k2);
    std::size_t n = len;
    while (n >= 16) {
        h = fold_multiply(load_u64(p) ^ hash_k1, load_u64(p + 8) ^ h);
        p += 16;
        n -= 16;
    }
    // the last 16 bytes again, overlapping: no tail loop
    h = fold_multiply(load_u64(p + n - 16) ^ hash_k2, load_u64(p + n - 8) ^ h);
    return fold_multiply(h ^ (h >> 29), hash_k0);
}

/// The two words hash_bytes mixes for a string of at most 16 bytes: its first and last eight
/// (overlapping; four and four below 8 bytes, the spread tail below 4).
struct short_words {
    std::uint64_t first, last;
};
ZSET_ALWAYS_INLINE short_words load_short(const unsigned char* p, std::size_t len) noexcept {
    if (len >= 8) return {load_u64(p), load_u64(p + len - 8)};
    if (len >= 4) return {load_u32(p), load_u32(p + len - 4)};
    return {len > 0 ? load_tail(p, len) : 0, 0};
}

/// Hashes a byte string. Not cryptographic; good distribution for table placement. Members are
/// mostly short, so up to 16 bytes take two overlapping loads and two multiplies.
ZSET_ALWAYS_INLINE std::uint64_t hash_bytes(const void* data, std::size_t len) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    if (len > 16) return hash_long_bytes(p, len);
    const short_words w = load_short(p, len);
    return fold_multiply(fold_multiply(w.first ^ hash_k1, w.last ^ hash_k2) ^ len, hash_k0);
}

ZSET_ALWAYS_INLINE std::uint64_t mix_integer(std::uint64_t v) noexcept {
    return fold_multiply(v ^ hash_k1, hash_k0);
}

/// 16 well-mixed bits of a string of at most 16 bytes in one multiply (hash_bytes takes two):
/// enough for a listpack-mode block's fingerprints, which keep 13. The last word is rotated
/// before the words are combined: from 9 to 15 bytes they overlap, and unrotated the shared
/// bytes would cancel. Multiplying the two words instead (as hash_bytes's first step does) and
/// keeping the top bits clustered numbered members: at n = 100, largest buckets about twice a
/// random function's (docs/design-log.md, "A one-multiply fingerprint for listpack mode").
ZSET_ALWAYS_INLINE std::uint16_t short_bytes_fingerprint(const void* data,
                                                         std::size_t len) noexcept {
    const short_words w = load_short(static_cast<const unsigned char*>(data), len);
    return static_cast<std::uint16_t>(
        mix_integer(w.first ^ ((w.last << 29) | (w.last >> 35)) ^ len) >> 48);
}

/// Whether a hash functor declares `is_avalanching` (all 64 output bits well mixed).
template <class H, class = void>
struct is_avalanching : std::false_type {};
template <class H>
struct is_avalanching<H, std::void_t<typename H::is_avalanching>> : std::true_type {};
template <class H>
inline constexpr bool is_avalanching_v = is_avalanching<H>::value;

}  // namespace detail

/// The default member hash: byte strings through zset's string hash, everything else through
/// std::hash followed by a mixing step (std::hash of an integer is often the identity).
/// Transparent for string members: std::string, std::string_view and const char* hash alike.
template <class Member>
struct hash {
    using is_avalanching = void;  // output already mixed: the container uses it as is
    ZSET_ALWAYS_INLINE std::uint64_t operator()(const Member& m) const
        noexcept(noexcept(std::hash<Member>{}(m))) {
        return detail::mix_integer(static_cast<std::uint64_t>(std::hash<Member>{}(m)));
    }
};

template <>
struct hash<std::string> {
    using is_transparent = void;
    using is_avalanching = void;
    ZSET_ALWAYS_INLINE std::uint64_t operator()(std::string_view s) const noexcept {
        return detail::hash_bytes(s.data(), s.size());
    }
};

}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_HASH_HPP
