// zset::detail scanning primitives: byte and 16-bit matches over short arrays, 16 bytes at a time
// with SSE2 where the target has it, a scalar loop elsewhere (ARM64, 32-bit x86 without SSE2,
// POWER). Callers keep `scan_slack` readable bytes past every array they scan, so a whole
// 16-byte chunk may be loaded at the end of an array.
// SPDX-License-Identifier: MIT
#ifndef ZSET_DETAIL_CONTAINER_SCAN_HPP
#define ZSET_DETAIL_CONTAINER_SCAN_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "../../common.hpp"

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define ZSET_DETAIL_SSE2 1
#endif

namespace zset {
namespace detail {

/// Bytes a scanned array keeps readable past its end.
inline constexpr std::size_t scan_slack = 16;

/// A hint to start loading the cache line at p (any address, even null: never faults).
///
/// The empty volatile asm is what keeps the hint: g++ 12's pure-const analysis counts
/// __builtin_prefetch as having no effect, so a function that only prefetches (a loop over a
/// block's lines, too big to be inlined early) was declared "looping pure" and every call to
/// it deleted at -O2 (checked in the generated code: block::prefetch_block compiled to a bare
/// `ret`). An asm the compiler must assume has effects makes such functions impure.
inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
    __asm__ __volatile__("" : : "r"(p));
#else
    (void)p;
#endif
}

/// Index of the lowest set bit of a non-zero 64-bit mask.
inline std::size_t lowest_bit64(std::uint64_t mask) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<std::size_t>(__builtin_ctzll(mask));
#else
    std::size_t i = 0;
    while ((mask & 1u) == 0) {
        mask >>= 1;
        ++i;
    }
    return i;
#endif
}

/// Index of the lowest set bit of a non-zero mask.
inline std::size_t lowest_bit(unsigned mask) noexcept {
    return lowest_bit64(mask);
}

/// All ones if c, else 0.
inline std::uint64_t mask_if(bool c) noexcept {
    return std::uint64_t{0} - static_cast<std::uint64_t>(c);
}

/// Returned by the searches below when nothing matches.
inline constexpr std::size_t no_match = ~std::size_t{0};

/// Which of up to 128 values equal a value: bit i of `low` for value i, of `high` for 64 + i.
struct byte_matches {
    std::uint64_t low, high;
    bool any() const noexcept { return (low | high) != 0; }
};

/// The matches among [0, n), 64 < n <= 128, from `matches64(start)`, the 64-bit mask of the 64
/// values from `start`: those of [0, 64) and of [n - 64, n), the second shifted right by 128 - n
/// so that it drops the values the first already holds (bit i then stands for value 64 + i).
/// Every value is read once or twice, none past n, and nothing branches on n: the scans of a
/// listpack block's fingerprints and of a block's order array (docs/design-log.md, "The
/// position scan in fixed work").
template <class Matches64>
ZSET_ALWAYS_INLINE byte_matches matches_in_two_halves(std::size_t n, Matches64&& matches64) {
    return {matches64(std::size_t{0}), matches64(n - 64) >> (128 - n)};
}

#ifdef ZSET_DETAIL_SSE2
/// The lanes of the 8 values at p equal to the needle (0xffff each, else 0).
ZSET_ALWAYS_INLINE __m128i equal_u16x8(const std::uint16_t* p, __m128i needle) noexcept {
    return _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), needle);
}
/// Which of values[0, 16) equal the needle (bit i for values[i]): two compares packed into one
/// movemask (0xffff / 0 lanes pack to 0xff / 0).
ZSET_ALWAYS_INLINE unsigned match_u16x16(const std::uint16_t* values, __m128i needle) noexcept {
    const __m128i both =
        _mm_packs_epi16(equal_u16x8(values, needle), equal_u16x8(values + 8, needle));
    return static_cast<unsigned>(_mm_movemask_epi8(both));
}
/// Which of values[0, 8) equal the needle (bit i for values[i]).
ZSET_ALWAYS_INLINE unsigned match_u16x8(const std::uint16_t* values, __m128i needle) noexcept {
    const __m128i packed = _mm_packs_epi16(equal_u16x8(values, needle), _mm_setzero_si128());
    return static_cast<unsigned>(_mm_movemask_epi8(packed));
}
/// Which of values[0, 64) equal the needle (bit i for values[i]).
ZSET_ALWAYS_INLINE std::uint64_t match_u16x64(const std::uint16_t* values,
                                              __m128i needle) noexcept {
    const auto matches16 = [values, needle](std::size_t at) ZSET_LAMBDA_INLINE {
        return std::uint64_t{match_u16x16(values + at, needle)};
    };
    return matches16(0) | (matches16(16) << 16) | (matches16(32) << 32) | (matches16(48) << 48);
}
#endif

/// The values of [0, n), n <= 128, equal to value, compared 8 or 16 at a time into two 64-bit
/// masks, so that the branches depend on n (fixed for a block), not on where the matches lie.
/// For n <= 64 reads up to 14 bytes past n (within scan_slack: a 16-value step runs only when
/// more than 8 values remain); above, exactly [0, n), in two halves of 64 (as
/// matches_in_two_halves), whose union is tested before any mask is built, so that a miss stops
/// there: a miss is faster and a hit slightly slower than building the masks first, the trade
/// wanted, as most lookups of a miss-heavy workload miss (docs/design-log.md, "Listpack mode's
/// bucket table").
ZSET_ALWAYS_INLINE byte_matches match_u16x128(const std::uint16_t* values, std::size_t n,
                                              std::uint16_t value) noexcept {
#ifdef ZSET_DETAIL_SSE2
    const __m128i needle = _mm_set1_epi16(static_cast<short>(value));
    if (n > 64) {
        // 16 values to a vector of byte lanes (match_u16x16 before its movemask; spelled out
        // here, as g++ 12 schedules the shared form a few instructions longer a lookup); a miss
        // tests their union and stops there
        const auto packed = [&](std::size_t at) ZSET_LAMBDA_INLINE {
            return _mm_packs_epi16(equal_u16x8(values + at, needle),
                                   equal_u16x8(values + at + 8, needle));
        };
        const std::size_t h = n - 64;
        const __m128i l0 = packed(0), l1 = packed(16), l2 = packed(32), l3 = packed(48);
        const __m128i h0 = packed(h), h1 = packed(h + 16), h2 = packed(h + 32), h3 = packed(h + 48);
        const __m128i all = _mm_or_si128(_mm_or_si128(_mm_or_si128(l0, l1), _mm_or_si128(l2, l3)),
                                         _mm_or_si128(_mm_or_si128(h0, h1), _mm_or_si128(h2, h3)));
        if (_mm_movemask_epi8(all) == 0) return {0, 0};
        const auto bits = [](__m128i v, int shift) ZSET_LAMBDA_INLINE {
            return std::uint64_t{static_cast<std::uint32_t>(_mm_movemask_epi8(v))} << shift;
        };
        const std::uint64_t low = bits(l0, 0) | bits(l1, 16) | bits(l2, 32) | bits(l3, 48);
        const std::uint64_t high = bits(h0, 0) | bits(h1, 16) | bits(h2, 32) | bits(h3, 48);
        return {low, high >> (128 - n)};
    }
    std::uint64_t mask = 0;
    for (std::size_t at = 0; at < n; at += 16) {
        const unsigned step =
            n - at > 8 ? match_u16x16(values + at, needle) : match_u16x8(values + at, needle);
        mask |= std::uint64_t{step} << at;
    }
    return {n == 0 ? 0 : mask & (~std::uint64_t{0} >> (64 - n)), 0};
#else
    byte_matches m{0, 0};
    for (std::size_t i = 0; i < n && i < 64; ++i)
        m.low |= static_cast<std::uint64_t>(values[i] == value) << i;
    for (std::size_t i = 64; i < n; ++i)
        m.high |= static_cast<std::uint64_t>(values[i] == value) << (i - 64);
    return m;
#endif
}

/// The index of m's lowest match; m has one. Mask arithmetic, not a branch on which mask holds
/// it (a coin flip for a hit; g++ 12 compiles the ?: forms to branches).
ZSET_ALWAYS_INLINE std::size_t first_match(const byte_matches& m) noexcept {
    constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;
    const std::uint64_t in_high = mask_if(m.low == 0);
    const std::uint64_t low_at = lowest_bit64(m.low | top_bit);
    const std::uint64_t high_at = 64 + lowest_bit64(m.high | top_bit);
    return static_cast<std::size_t>(low_at ^ ((low_at ^ high_at) & in_high));
}

/// m without its lowest match.
ZSET_ALWAYS_INLINE byte_matches without_first_match(byte_matches m) noexcept {
    const std::uint64_t in_high = mask_if(m.low == 0);
    m.high &= ~in_high | (m.high - 1);
    m.low &= m.low - 1;
    return m;
}

/// base + the first match i of m, lowest first, with is_match(base + i); or no_match.
template <class IsMatch>
ZSET_ALWAYS_INLINE std::size_t first_accepted(byte_matches m, std::size_t base,
                                              IsMatch&& is_match) {
    for (; m.any(); m = without_first_match(m))
        if (is_match(base + first_match(m))) return base + first_match(m);
    return no_match;
}

/// The first i in [0, n) with values[i] == value and is_match(i), or no_match; is_match is
/// called only where the value matches. Reads up to 14 bytes past n (within scan_slack).
///
/// With 16-bit fingerprints a miss at n = 100 expects 100/65536 false candidates, so the
/// branch on whether there is a candidate is predictable and a miss reads no record. (With 8-bit
/// fingerprints a miss would expect 100/256: that branch would be a coin flip.)
template <class IsMatch>
ZSET_ALWAYS_INLINE std::size_t find_u16_match(const std::uint16_t* values, std::size_t n,
                                              std::uint16_t value, IsMatch&& is_match) {
    if (n <= 128) {  // a listpack-mode block by default
        const byte_matches m = match_u16x128(values, n, value);
        if (!m.any()) return no_match;
        const std::size_t at = first_match(m);
        if (is_match(at)) return at;
        return first_accepted(without_first_match(m), 0, is_match);
    }
    for (std::size_t base = 0; base < n; base += 128) {
        const std::size_t left = n - base < 128 ? n - base : 128;
        const std::size_t at =
            first_accepted(match_u16x128(values + base, left, value), base, is_match);
        if (at != no_match) return at;
    }
    return no_match;
}

#ifdef ZSET_DETAIL_SSE2
/// Entry i is 128 - i: 8 entries from `at` score the positions at..at+7 (the scan's loads start
/// at 120 at most, so 128 entries cover them).
struct descending_scores_table {
    alignas(16) std::uint16_t score[128];
};
constexpr descending_scores_table make_descending_scores() noexcept {
    descending_scores_table t{};
    for (unsigned i = 0; i < 128; ++i) t.score[i] = static_cast<std::uint16_t>(128 - i);
    return t;
}
inline constexpr descending_scores_table descending_scores = make_descending_scores();

/// The fixed-work search of find_u16_fixed_work() (8 <= n <= 128).
template <std::size_t... Pair>
ZSET_ALWAYS_INLINE std::size_t find_u16_all(const std::uint16_t* values, std::size_t n,
                                            std::uint16_t value,
                                            std::index_sequence<Pair...>) noexcept {
    const __m128i needle = _mm_set1_epi16(static_cast<short>(value));
    const std::size_t last = n - 8;
    const auto scored = [&](std::size_t start) ZSET_LAMBDA_INLINE {
        const std::size_t at = start < last ? start : last;
        const auto* score = reinterpret_cast<const __m128i*>(descending_scores.score + at);
        return _mm_and_si128(equal_u16x8(values + at, needle), _mm_loadu_si128(score));
    };
    // two running maxima: half the dependency chain
    __m128i even = _mm_setzero_si128(), odd = _mm_setzero_si128();
    ((even = _mm_max_epi16(even, scored(Pair * 16)),
      odd = _mm_max_epi16(odd, scored(Pair * 16 + 8))),
     ...);
    __m128i best = _mm_max_epi16(even, odd);
    best = _mm_max_epi16(best, _mm_shuffle_epi32(best, 0x4e));
    best = _mm_max_epi16(best, _mm_shuffle_epi32(best, 0xb1));
    best = _mm_max_epi16(best, _mm_shufflelo_epi16(best, 0xb1));
    const auto top = static_cast<std::size_t>(_mm_cvtsi128_si32(best) & 0xffff);
    return top == 0 ? n : 128 - top;
}

/// find_u16_fixed_work() for 64 < n <= 128, in two halves (matches_in_two_halves): sixteen
/// loads whatever n, no table, no clamped starts, which costs ZRANK at 10^3 markedly fewer
/// instructions than clamped loads (docs/design-log.md, "The position scan in fixed work").
ZSET_ALWAYS_INLINE std::size_t find_u16_exact128(const std::uint16_t* values, std::size_t n,
                                                 std::uint16_t value) noexcept {
    const __m128i needle = _mm_set1_epi16(static_cast<short>(value));
    const byte_matches m =
        matches_in_two_halves(n, [&](std::size_t at) { return match_u16x64(values + at, needle); });
    return m.any() ? first_match(m) : n;
}
#endif

/// Index of the first i in [0, n) with values[i] == value, or n. 16 values per branch, stopping
/// at the first match; reads up to 14 bytes past the end of the array (within scan_slack).
inline std::size_t find_u16(const std::uint16_t* values, std::size_t n,
                            std::uint16_t value) noexcept {
#ifdef ZSET_DETAIL_SSE2
    const __m128i needle = _mm_set1_epi16(static_cast<short>(value));
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const unsigned mask = match_u16x16(values + i, needle);
        if (mask != 0) return i + lowest_bit(mask);
    }
    for (; i < n; i += 8) {  // the tail: reads at most 14 bytes past the end
        const auto mask = static_cast<unsigned>(_mm_movemask_epi8(equal_u16x8(values + i, needle)));
        if (mask != 0) {
            const std::size_t at = i + lowest_bit(mask) / 2;
            return at < n ? at : n;
        }
    }
    return n;
#else
    for (std::size_t i = 0; i < n; ++i)
        if (values[i] == value) return i;
    return n;
#endif
}

/// find_u16() in fixed work for 8 <= n <= 128 (a skiplist-mode block), for arrays in cache, so
/// that no branch depends on where the value is: above 64 values find_u16_exact128; up to 64,
/// 8 loads of 8 values whose starts are clamped to n - 8 (the last ones repeat the final 8
/// values, so nothing past n is read), each match scored 128 - position and the best score
/// kept. find_u16's exit mispredicts about once a search, and fixed work makes ZRANK at 10^3
/// markedly faster (bench row zrank/zset/1000). On arrays not in cache, reading every
/// line costs more than the mispredict (ZRANK at 10^6 much slower): there find_u16 is the one
/// to use (docs/design-log.md, "The position scan in fixed work"). Other n: find_u16
/// (scan_slack).
inline std::size_t find_u16_fixed_work(const std::uint16_t* values, std::size_t n,
                                       std::uint16_t value) noexcept {
#ifdef ZSET_DETAIL_SSE2
    if (n > 64 && n <= 128) return find_u16_exact128(values, n, value);
    if (n >= 8 && n <= 64) return find_u16_all(values, n, value, std::make_index_sequence<4>{});
#endif
    return find_u16(values, n, value);
}

/// The sum of values[0, n) of an array of 32 values (n <= 32), in fixed work: every lane is
/// read and masked, so there is no loop exit that depends on n to mispredict (the rank tree's
/// per-level sum; 4 values a step with SSE2).
inline std::uint32_t sum_first_of_32(const std::uint32_t* values, unsigned n) noexcept {
#ifdef ZSET_DETAIL_SSE2
    const __m128i limit = _mm_set1_epi32(static_cast<int>(n));
    const auto* v = reinterpret_cast<const __m128i*>(values);
    // written out: g++ -O2 does not unroll a loop, and its counter cost as much as the sums
    const auto masked = [&](int i) {
        const __m128i index = _mm_setr_epi32(4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3);
        return _mm_and_si128(_mm_loadu_si128(v + i), _mm_cmpgt_epi32(limit, index));
    };
    __m128i sum = _mm_add_epi32(
        _mm_add_epi32(_mm_add_epi32(masked(0), masked(1)), _mm_add_epi32(masked(2), masked(3))),
        _mm_add_epi32(_mm_add_epi32(masked(4), masked(5)), _mm_add_epi32(masked(6), masked(7))));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));  // lanes 2,3 onto 0,1
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xb1));  // lane 1 onto 0
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(sum));
#else
    std::uint32_t sum = 0;
    for (unsigned i = 0; i < 32; ++i) sum += values[i] & (0u - static_cast<std::uint32_t>(i < n));
    return sum;
#endif
}

/// Whether n <= 16 bytes at a and b are equal, in at most two overlapping word loads each (no
/// call); never reads outside [a, a + n) or [b, b + n).
ZSET_ALWAYS_INLINE bool equal_short_bytes(const void* a, const void* b, std::size_t n) noexcept {
    const auto* x = static_cast<const unsigned char*>(a);
    const auto* y = static_cast<const unsigned char*>(b);
    const auto load64 = [](const unsigned char* p) {
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    const auto load32 = [](const unsigned char* p) {
        std::uint32_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    if (n >= 8) return ((load64(x) ^ load64(y)) | (load64(x + n - 8) ^ load64(y + n - 8))) == 0;
    if (n >= 4) return ((load32(x) ^ load32(y)) | (load32(x + n - 4) ^ load32(y + n - 4))) == 0;
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i]) return false;
    return true;
}

/// memmove(dst, src, n), with runs of up to 32 bytes (the common member, a few index records)
/// moved inline: every word of the run is loaded before any is stored, in at most two
/// overlapping loads a size class, so overlapping ranges work as with memmove. The library's
/// memmove picks its path by branching on n, which mispredicts about once a call on the
/// varying short runs of building a set, the largest single source of mispredicted branches
/// there (docs/design-log.md, "Building from empty"; bench row many_sets_1000). Never touches
/// bytes outside [dst, dst + n) or [src, src + n).
ZSET_ALWAYS_INLINE void move_bytes(void* dst, const void* src, std::size_t n) noexcept {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* x = static_cast<const unsigned char*>(src);
    const auto move_two = [&](auto word) ZSET_LAMBDA_INLINE {  // sizeof word <= n <= 2 words
        decltype(word) low, high;
        std::memcpy(&low, x, sizeof low);
        std::memcpy(&high, x + n - sizeof high, sizeof high);
        std::memcpy(d, &low, sizeof low);
        std::memcpy(d + n - sizeof high, &high, sizeof high);
    };
    struct sixteen {
        unsigned char b[16];
    };
    if (n > 32) {
        std::memmove(d, x, n);
    } else if (n > 16) {
        move_two(sixteen{});
    } else if (n >= 8) {
        move_two(std::uint64_t{});
    } else if (n >= 4) {
        move_two(std::uint32_t{});
    } else if (n != 0) {  // 1 to 3 bytes: first, middle, last
        const unsigned char a = x[0], b = x[n / 2], c = x[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

/// Moves the 16-bit values [from, to) of p one slot up, to [from + 1, to + 1), adding `add` to
/// each (modulo 2^16): an insert into a sorted array of positions or keys. With SSE2 eight at a
/// time from the top, and the lowest step blending its values into the eight slots from
/// from + 1, which it loads and stores back unchanged beyond `to`: callers keep 16 readable
/// and writable bytes after p[to]. No branch on a short run's length (see move_bytes).
ZSET_ALWAYS_INLINE void shift_u16_up(std::uint16_t* p, std::size_t from, std::size_t to,
                                     std::uint16_t add) noexcept {
#ifdef ZSET_DETAIL_SSE2
    const __m128i step = _mm_set1_epi16(static_cast<short>(add));
    const auto at = [p](std::size_t i)
                        ZSET_LAMBDA_INLINE { return reinterpret_cast<__m128i*>(p + i); };
    std::size_t n = to - from;
    for (; n > 8; n -= 8)  // each step reads values no earlier step stored
        _mm_storeu_si128(at(from + n - 7), _mm_add_epi16(_mm_loadu_si128(at(from + n - 8)), step));
    const __m128i moved = _mm_cmplt_epi16(_mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7),
                                          _mm_set1_epi16(static_cast<short>(n)));
    const __m128i shifted = _mm_add_epi16(_mm_loadu_si128(at(from)), step);
    const __m128i kept = _mm_loadu_si128(at(from + 1));
    _mm_storeu_si128(at(from + 1),
                     _mm_or_si128(_mm_and_si128(moved, shifted), _mm_andnot_si128(moved, kept)));
#else
    for (std::size_t i = to; i != from; --i) p[i] = static_cast<std::uint16_t>(p[i - 1] + add);
#endif
}

/// Whether n bytes at a and b are equal. Short runs (the common member) compare in two
/// overlapping word loads instead of a call; never reads outside [a, a + n) or [b, b + n).
ZSET_ALWAYS_INLINE bool equal_bytes(const void* a, const void* b, std::size_t n) noexcept {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return equal_short_bytes(a, b, n);
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_SCAN_HPP
