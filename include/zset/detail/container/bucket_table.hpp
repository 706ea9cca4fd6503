// zset::detail::bucket_table — the member lookup of a listpack-mode block of at most 128
// positions: 2-byte entries sorted into 16 buckets by their member's hash.
// SPDX-License-Identifier: MIT
//
// A listpack-mode block (block.hpp) finds a member by its hash. Comparing a 16-bit fingerprint
// beside each position would take sixteen 8-lane compares a lookup at n = 100, more than
// skiplist mode's one probe of its hash index; this table takes the same two bytes a position
// (plus 17 bytes a block) and is read in one step (docs/design-log.md, "Listpack mode's bucket
// table"):
//
//   entries: u16 x capacity, grouped by bucket (the fingerprint's top 4 bits), in any order
//            within a bucket; an entry is check | position: 9 more bits of the fingerprint
//            (bits 3-11) in its top 9 bits and the element's position in the block's order
//            array (0-127) in its low 7;
//   starts:  17 bytes after the entries: bucket b's entries are [starts[b], starts[b + 1]),
//            starts[0] = 0 and starts[16] = the number of entries.
//
// A lookup reads starts[b] and starts[b + 1] and compares the check bits of the bucket's first
// 16 entries at once (two 8-lane compares), masked to the bucket's length. At n = 100 a bucket
// holds 6.25 entries on average against 512 check values, so about one miss in 80 meets an
// entry with its check bits (random members), and a bucket longer than 16, which takes a loop,
// is rare. A false candidate is rare, so the branch on it mispredicts, which costs such a miss
// more than the rest of its work (docs/design-log.md, "A one-multiply fingerprint for listpack
// mode"). The lookup is inlined into set_engine::find_score, finds its entries' place in the
// block header (block.hpp) and takes the fingerprint of set_engine::listpack_fingerprint
// (bench rows zscore_hit/zset/100, zscore_miss/zset/100).
//
// What it costs: the positions are ranks, so inserting or erasing at position p adds or
// subtracts one from every entry's position past p: one pass of 8-entry steps over the entries,
// which also moves them to open or close the entry's slot (no memmove), and an erase by
// position first needs its entry (the caller passes the one its lookup found; a pop hashes its
// member to find it in one bucket). That upkeep costs ZREM and ZADD of a new member at n = 100
// more than parallel fingerprints would, and these rows stay faster than skiplist mode's and
// the Redis-style peer's (bench rows zrem/zset/100, zadd_new/zset/100). A table whose upkeep
// goes bucket by bucket, with a search per erase, costs ZREM far more (docs/design-log.md,
// "Listpack mode's bucket table").
//
// Caveats: 7 position bits bound the table to 128 positions (a block with more, from larger
// listpack thresholds, keeps parallel fingerprints, and a block that grows past 128 gets its
// whole fingerprints back: set_engine::refingerprint_listpack); an entry keeps 13 of the 16
// fingerprint bits (kept_fingerprint), which is all a table lookup compares. Positions sit in
// the low bits, so the upkeep passes mask them before comparing (one AND per 8 entries). The 17
// starts put a 100-member listpack set at exactly 24.0 bytes a member, the target's limit (the
// suite's memory/zset/100 row).
#ifndef ZSET_DETAIL_CONTAINER_BUCKET_TABLE_HPP
#define ZSET_DETAIL_CONTAINER_BUCKET_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "scan.hpp"

namespace zset {
namespace detail {

class bucket_table {
public:
    static constexpr std::size_t max_positions = 128;
    static constexpr std::size_t bucket_count = 16;
    /// Bytes after the entries: the bucket starts.
    static constexpr std::size_t starts_bytes = bucket_count + 1;

    /// The table over `entries` (room for `capacity` entries followed by starts_bytes bytes).
    bucket_table(std::uint16_t* entries, std::size_t capacity) noexcept
        : entries_(entries), starts_(reinterpret_cast<std::uint8_t*>(entries + capacity)) {}

    /// Makes the table empty.
    void clear() noexcept { std::memset(starts_, 0, starts_bytes); }

    /// The fingerprint bits a table keeps (and compares): the bucket's 4 and the check's 9.
    static std::uint16_t kept_fingerprint(std::uint16_t fp) noexcept {
        return static_cast<std::uint16_t>(fp & 0xfff8);
    }

    // ---- lookup ------------------------------------------------------------------------------

    /// The entries among the first 16 of fp's bucket that carry its check bits: bit i of
    /// `mask` for entry `first + i`; the bucket ends at `end` (one longer than 16 continues
    /// past them). The mask is limited to the bucket before anyone tests it: tested raw (empty
    /// for most misses at n = 100, the rest matching a later bucket's entry), a miss would run a
    /// few instructions fewer and take longer, as the branch on the raw mask mispredicts for
    /// the rest (docs/design-log.md, "Listpack mode's bucket table").
    struct candidates {
        unsigned mask;
        std::size_t first, end;
        /// Did the mask cover the whole bucket (at most 16 entries)?
        bool whole() const noexcept { return end - first <= 16; }
    };
    ZSET_ALWAYS_INLINE candidates first_candidates(std::uint16_t fp) const noexcept {
        const std::size_t b = bucket_of(fp);
        const std::size_t first = starts_[b], end = starts_[b + 1];
        return {matches16(first, check_of(fp)) & within(end - first), first, end};
    }
    /// The bits of the first `len` of 16 entries.
    static unsigned within(std::size_t len) noexcept {
        return len < 16 ? (1u << len) - 1 : 0xffffu;
    }
    /// Position of the element of entry i.
    std::size_t position_at(std::size_t i) const noexcept { return entries_[i] & position_mask; }

    /// The first entry among fp's candidates whose position p has accept(p), or no_match.
    template <class Accept>
    ZSET_ALWAYS_INLINE std::size_t find_entry(std::uint16_t fp, Accept&& accept) const {
        const std::size_t b = bucket_of(fp);
        const std::uint16_t check = check_of(fp);
        const std::size_t end = starts_[b + 1];
        for (std::size_t at = starts_[b]; at < end; at += 16) {
            for (unsigned m = matches16(at, check) & within(end - at); m != 0; m &= m - 1) {
                const std::size_t i = at + lowest_bit(m);
                if (accept(position_at(i))) return i;
            }
        }
        return no_match;
    }

    /// The kept fingerprint of the element at position pos.
    std::uint16_t fingerprint_of_position(std::size_t n, std::size_t pos) const noexcept {
        const std::size_t at = index_of(n, pos);
        return fingerprint_from(bucket_holding(at), entries_[at]);
    }

    /// Writes the kept fingerprint of every position to out[position].
    void fingerprints_by_position(std::uint16_t* out) const noexcept {
        for (unsigned b = 0; b < bucket_count; ++b)
            for (std::size_t at = starts_[b]; at < starts_[b + 1]; ++at)
                out[position_at(at)] = fingerprint_from(b, entries_[at]);
    }

    /// Starts ordered and ending at n, and the positions a permutation of [0, n).
    bool validate(std::size_t n) const noexcept {
        if (starts_[0] != 0 || starts_[bucket_count] != n) return false;
        for (unsigned b = 0; b < bucket_count; ++b)
            if (starts_[b] > starts_[b + 1]) return false;
        bool seen[max_positions] = {};
        for (std::size_t at = 0; at < n; ++at) {
            const std::size_t pos = position_at(at);
            if (pos >= n || seen[pos]) return false;
            seen[pos] = true;
        }
        return true;
    }

    // ---- upkeep (n: the entries before the change) -------------------------------------------

    /// Adds the entry of a new element at position pos; the elements at pos and after move up
    /// one. Precondition: n < capacity, pos <= n.
    void insert(std::size_t n, std::size_t pos, std::uint16_t fp) noexcept {
        const unsigned b = bucket_of(fp);
        const std::size_t at = starts_[b + 1];
        const auto fresh = static_cast<std::uint16_t>(check_of(fp) | pos);
        if (pos == n) {  // appended: no position moves
            std::memmove(entries_ + at + 1, entries_ + at, (n - at) * sizeof *entries_);
            entries_[at] = fresh;
        } else {
            insert_shifting(n, at, fresh, pos);
        }
        add_to_starts_after(b, 1);
    }

    /// Removes the entry of position pos (entry `at` if known, else no_match); the elements
    /// after it move down one.
    void erase_one(std::size_t n, std::size_t pos, std::size_t at = no_match) noexcept {
        if (at == no_match) at = index_of(n, pos);
        const unsigned b = bucket_holding(at);
        erase_shifting(n, at, pos + 1);
        add_to_starts_after(b, -1);
    }

    /// Removes the entries of positions [first, last); the elements after them move down.
    /// One pass over the buckets; block::forget sends a single position to erase_one instead.
    void erase_range(std::size_t first, std::size_t last) noexcept {
        const std::size_t gone = last - first;
        std::size_t kept = 0, at = 0;
        for (unsigned b = 0; b < bucket_count; ++b) {
            const std::size_t end = starts_[b + 1];
            starts_[b] = static_cast<std::uint8_t>(kept);
            for (; at < end; ++at) {
                const std::size_t pos = position_at(at);
                if (pos >= first && pos < last) continue;
                const std::size_t moved = pos >= last ? pos - gone : pos;
                entries_[kept++] = static_cast<std::uint16_t>((entries_[at] & check_mask) | moved);
            }
        }
        starts_[bucket_count] = static_cast<std::uint8_t>(kept);
    }

    /// The element at position `from` (entry `at` if known, else no_match) moves to position
    /// `to`, the others between shifting.
    void move(std::size_t n, std::size_t from, std::size_t to, std::size_t at = no_match) noexcept {
        if (from == to) return;
        if (at == no_match) at = index_of(n, from);
        if (to > from)
            shift_in_place(n, from + 1, to, -1);
        else
            shift_in_place(n, to, from - 1, +1);
        entries_[at] = static_cast<std::uint16_t>((entries_[at] & check_mask) | to);
    }

    /// Copies n entries and the starts to `to` (of any capacity >= n).
    void copy_to(bucket_table to, std::size_t n) const noexcept {
        std::memcpy(to.entries_, entries_, n * sizeof *entries_);
        std::memcpy(to.starts_, starts_, starts_bytes);
    }

private:
    std::uint16_t* entries_;
    std::uint8_t* starts_;

    static unsigned bucket_of(std::uint16_t fp) noexcept { return fp >> 12; }
    /// An entry's position bits (low 7) and check bits (high 9: bits 3-11 of the fingerprint).
    static constexpr std::uint16_t position_mask = 0x7f, check_mask = 0xff80;
    /// Bits 3-11 of fp, where an entry keeps them.
    static std::uint16_t check_of(std::uint16_t fp) noexcept {
        return static_cast<std::uint16_t>(fp << 4) & check_mask;
    }
    static std::uint16_t fingerprint_from(unsigned bucket, std::uint16_t entry) noexcept {
        return static_cast<std::uint16_t>(bucket << 12 |
                                          static_cast<unsigned>(entry & check_mask) >> 4);
    }

    /// The bucket whose entries include entry i: the count of starts[1..16] not above i.
    unsigned bucket_holding(std::size_t i) const noexcept {
#ifdef ZSET_DETAIL_SSE2
        // starts are at most 128 and i below it: unsigned bytes compared through max
        const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(starts_ + 1));
        const __m128i i_bytes = _mm_set1_epi8(static_cast<char>(i));
        const __m128i not_above = _mm_cmpeq_epi8(_mm_max_epu8(s, i_bytes), i_bytes);
        // the starts only grow: the lanes not above i are a prefix
        const unsigned above = ~static_cast<unsigned>(_mm_movemask_epi8(not_above));
        return static_cast<unsigned>(lowest_bit(above | 0x10000u));
#else
        unsigned b = 0;
        while (starts_[b + 1] <= i) ++b;
        return b;
#endif
    }

    /// Adds delta to starts[b + 1..16] (an entry entered or left bucket b).
    void add_to_starts_after(unsigned b, int delta) noexcept {
#ifdef ZSET_DETAIL_SSE2
        auto* p = reinterpret_cast<__m128i*>(starts_ + 1);
        const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m128i from_b =
            _mm_cmpgt_epi8(lane, _mm_set1_epi8(static_cast<char>(static_cast<int>(b) - 1)));
        const __m128i v = _mm_loadu_si128(p);
        _mm_storeu_si128(p, delta > 0 ? _mm_sub_epi8(v, from_b) : _mm_add_epi8(v, from_b));
#else
        for (unsigned j = b + 1; j <= bucket_count; ++j)
            starts_[j] = static_cast<std::uint8_t>(starts_[j] + delta);
#endif
    }

    /// Which of the 16 entries from `at` carry `check`: bit i for entry at + i. Reads past
    /// the last entry: the starts and the block's scan slack keep 32 bytes there readable.
    ZSET_ALWAYS_INLINE unsigned matches16(std::size_t at, std::uint16_t check) const noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i keep = _mm_set1_epi16(static_cast<short>(check_mask));
        const __m128i needle = _mm_set1_epi16(static_cast<short>(check));
        const auto equal8 = [&](std::size_t i) ZSET_LAMBDA_INLINE {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(entries_ + i));
            return _mm_cmpeq_epi16(_mm_and_si128(v, keep), needle);
        };
        const __m128i both = _mm_packs_epi16(equal8(at), equal8(at + 8));
        return static_cast<unsigned>(_mm_movemask_epi8(both));
#else
        unsigned m = 0;
        for (std::size_t i = 0; i < 16; ++i)
            m |= static_cast<unsigned>((entries_[at + i] & check_mask) == check) << i;
        return m;
#endif
    }

    /// The entry holding position pos (present among [0, n)).
    std::size_t index_of(std::size_t n, std::size_t pos) const noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i wanted = _mm_set1_epi16(static_cast<short>(pos));
        for (std::size_t at = 0;; at += 8) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(entries_ + at));
            unsigned m =
                static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi16(positions8(v), wanted)));
            if (n - at < 8) m &= (1u << (2 * (n - at))) - 1;
            if (m != 0) return at + lowest_bit(m) / 2;
        }
#else
        std::size_t at = 0;
        while (position_at(at) != pos) ++at;
        (void)n;
        return at;
#endif
    }

#ifdef ZSET_DETAIL_SSE2
    // The passes below rewrite the entries 8 at a time, each 8 read from where they were and
    // stored once where they go (a memmove and a pass over the same bytes would do the work
    // twice).
    // A step past the last entry stores back the bytes it read there (the starts, the scan
    // slack) unchanged.
    static __m128i load8(const std::uint16_t* p) noexcept {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    }
    static __m128i lane_index() noexcept {
        return _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
    }
    /// Lanes below k (any k in short range) all ones.
    static __m128i lanes_below(std::ptrdiff_t k) noexcept {
        return _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<short>(k)), lane_index());
    }
    static __m128i pick(__m128i which, __m128i a, __m128i b) noexcept {
        return _mm_or_si128(_mm_and_si128(which, a), _mm_andnot_si128(which, b));
    }
    /// The position bits of 8 entries.
    static __m128i positions8(__m128i v) noexcept {
        return _mm_and_si128(v, _mm_set1_epi16(position_mask));
    }
    /// Entries whose position is at least lo, from at_least(lo), moved by `step` (set1(+-1)).
    static __m128i shifted(__m128i v, __m128i at_least, __m128i step) noexcept {
        return _mm_add_epi16(v, _mm_and_si128(_mm_cmpgt_epi16(positions8(v), at_least), step));
    }
    static __m128i at_least(std::size_t lo) noexcept {
        return _mm_set1_epi16(static_cast<short>(static_cast<std::ptrdiff_t>(lo) - 1));
    }
    /// Stores v over the 8 entries at c, of which those from `count` on keep `old`.
    void store8(std::size_t c, __m128i v, __m128i old, std::size_t count) noexcept {
        if (c + 8 > count) v = pick(lanes_below(static_cast<std::ptrdiff_t>(count - c)), v, old);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(entries_ + c), v);
    }
#endif

    /// insert(): the entry `fresh` at `at`, the entries from `at` one up, positions from pos
    /// one up. Backwards, so each step reads entries no later step stores.
    void insert_shifting(std::size_t n, std::size_t at, std::uint16_t fresh,
                         std::size_t pos) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i lo = at_least(pos), step = _mm_set1_epi16(1);
        const std::size_t count = n + 1;
        std::uint16_t* const e = entries_;
        std::size_t c = (count - 1) & ~std::size_t{7};
        if (c > at) {  // the last step, past the end: partly stored
            store8(c, shifted(load8(e + c - 1), lo, step), load8(e + c), count);
            for (c -= 8; c > at; c -= 8)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(e + c),
                                 shifted(load8(e + c - 1), lo, step));
        }
        // the step holding `at` (entries_[-1] is the order array's last entry: readable)
        const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(at - c);
        const __m128i same = load8(entries_ + c);
        __m128i v = shifted(pick(lanes_below(k), same, load8(entries_ + c - 1)), lo, step);
        const __m128i is_fresh =
            _mm_cmpeq_epi16(lane_index(), _mm_set1_epi16(static_cast<short>(k)));
        store8(c, pick(is_fresh, _mm_set1_epi16(static_cast<short>(fresh)), v), same, count);
        while (c != 0) {
            c -= 8;
            const __m128i w = load8(entries_ + c);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(entries_ + c), shifted(w, lo, step));
        }
#else
        for (std::size_t i = 0; i < n; ++i)
            if (position_at(i) >= pos) entries_[i] = static_cast<std::uint16_t>(entries_[i] + 1);
        std::memmove(entries_ + at + 1, entries_ + at, (n - at) * sizeof *entries_);
        entries_[at] = fresh;
#endif
    }

    /// erase_one(): the entry at `at` gone, the entries after it one down, positions from lo
    /// one down. Forwards, so each step reads entries no earlier step stored.
    void erase_shifting(std::size_t n, std::size_t at, std::size_t lo_pos) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i lo = at_least(lo_pos), step = _mm_set1_epi16(-1);
        const std::size_t count = n - 1;
        std::size_t c = 0;
        std::uint16_t* const e = entries_;
        for (; c + 8 <= at; c += 8)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(e + c), shifted(load8(e + c), lo, step));
        if (c >= count) return;
        const __m128i same = load8(entries_ + c);
        const __m128i v =
            pick(lanes_below(static_cast<std::ptrdiff_t>(at - c)), same, load8(entries_ + c + 1));
        store8(c, shifted(v, lo, step), same, count);
        for (c += 8; c + 8 <= count; c += 8)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(e + c),
                             shifted(load8(e + c + 1), lo, step));
        if (c < count) store8(c, shifted(load8(e + c + 1), lo, step), load8(e + c), count);
#else
        std::memmove(entries_ + at, entries_ + at + 1, (n - at - 1) * sizeof *entries_);
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (position_at(i) >= lo_pos) entries_[i] = static_cast<std::uint16_t>(entries_[i] - 1);
#endif
    }

    /// Adds delta (+1 or -1) to the positions in [lo, hi] of the n entries, in place.
    void shift_in_place(std::size_t n, std::size_t lo, std::size_t hi, int delta) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i from = at_least(lo);
        const __m128i beyond = _mm_set1_epi16(static_cast<short>(hi));
        const __m128i step = _mm_set1_epi16(static_cast<short>(delta));
        std::uint16_t* const e = entries_;
        const auto moved = [&](__m128i v) ZSET_LAMBDA_INLINE {
            const __m128i p = positions8(v);
            const __m128i in =
                _mm_andnot_si128(_mm_cmpgt_epi16(p, beyond), _mm_cmpgt_epi16(p, from));
            return _mm_add_epi16(v, _mm_and_si128(in, step));
        };
        std::size_t c = 0;
        for (; c + 8 <= n; c += 8)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(e + c), moved(load8(e + c)));
        if (c < n) {
            const __m128i v = load8(e + c);
            store8(c, moved(v), v, n);
        }
#else
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t pos = position_at(i);
            if (pos >= lo && pos <= hi)
                entries_[i] = static_cast<std::uint16_t>(entries_[i] + delta);
        }
#endif
    }
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_BUCKET_TABLE_HPP
