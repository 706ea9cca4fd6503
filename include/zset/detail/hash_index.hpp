// zset::detail::hash_index — the member index of a sorted set in skiplist mode.
//
// Maps a member to the exact address of its record: (node id, ref) — the skiplist node whose
// block holds the record and the record's ref in that block (see block.hpp). A hit therefore
// reads one index slot and one record. The member itself is never stored here.
//
// Layout: two parallel arrays of slots.
//   tags: u32 per slot, the high 32 bits of the member's hash with the low bit set (0 = empty,
//         an even value = a tombstone: the erased entry's tag minus one);
//   refs: 5 bytes per slot, node id (24 bits) and ref (16 bits).
// A miss reads only `tags`: 4 bytes a slot keeps the probed array of a 10^6-member set near
// 5 MB. Measured alternative: one array of 8-byte (tag, address) slots doubles that to ~10 MB,
// past this machine class's TLB reach, and a dependent probe went from 17-24 ns (tables up to
// 6 MB) to ~150 ns. 9 bytes a slot in all; growth fills the table to 7/8 and grows it by 1/8,
// so the load stays within 0.78-0.875 and the index costs 10.3-11.6 bytes per member (10.99 at
// 10^6). Measured alternative: 15/16 load saves ~0.7 byte but an insert shifted 118 slots on
// average against 28 at 7/8.
//
// Placement is linear probing from the home slot `tag * capacity >> 32` (a multiply, not a
// mask, so any capacity works), with every run of occupied slots kept sorted by tag. Because the
// home is monotone in the tag, sorted runs are exactly Robin Hood order, and they buy three
// things:
//   * a probe compares tags only and stops at the first tag not below its own, 16 slots per
//     SIMD step: no loop-exit branch to mispredict at 7/8 load (the scalar loop mispredicted
//     0.84 times per lookup, callgrind --branch-sim). Measured alternative: starting the steps
//     on a 64-byte boundary (one cache line read per step instead of two, the slots before the
//     home masked) made a miss 2 ns slower in cache (10^3: 7.0-7.2 -> 9.0-9.2 ns, 10^5:
//     8.5-9.2 -> 11.1-11.2; the address arithmetic precedes the first load) and changed
//     nothing beyond the noise at 10^6 and 10^7;
//   * growth is one sequential pass (entries are already in order; no member is re-hashed);
//   * the entries whose tags lie in [t0, t1] are one contiguous stretch, which makes the ZSCAN
//     cursor (a tag) exact while the table grows or shrinks.
// Runs never wrap around: a few extra slots follow the last home slot, and an insertion
// that would run past them grows the table instead. An erase never moves an entry: it empties
// its slot when no displaced entry follows, and leaves a tombstone otherwise; an insert of the
// same tag revives it in place, and the next rehash drops the rest. Measured alternatives
// (callgrind, bench/probes/pop_cost.cpp): shifting the whole run back cost 2624 instructions
// per pop + re-add against 2015 for shifting at most 8 entries, and that bound cost 911
// instructions and 1.84 mispredicted branches per ZPOPMIN at 10^3 against 807 and 0.66 for
// never shifting (a job queue of ZADD + ZPOPMIN: 2114 -> 2070 at 10^3, 2655 -> 2569 at 10^5;
// lookups after erasing 50-90% of 10^5 members: the same count either way, the SIMD probe
// steps over tombstones 16 slots at a time). Caveat: 24-bit node ids bound a set to 2^24
// blocks (2^30 to 2^31 elements, blocks being half to fully used).
//
// Caveat: at 10^7 members the tag array (~46 MB) is larger than this machine class's 32 MB L3,
// while absl::flat_hash_map's 1-byte control array (16 MB) fits when the neighbours are quiet,
// so a miss there costs zset a DRAM read that absl may not pay (absl's own 10^7 miss read 18.5
// to 105 ns across four sittings of one binary). Measured alternatives for that case:
//   * a blocked Bloom filter of 5 bits per member (6.25 MB, 9.4% false positives) in front of
//     the index (bench/probes/miss_filter.cpp) took a miss at 10^7 from 27-30 to 16 ns (absl:
//     15) but a hit from 238-260 to 377-400 ns (absl: 102-110), and at 10^6 a hit from 162-163
//     to 253-283 ns: its extra work leaves less room to overlap a hit's dependent misses;
//   * prefetching the refs at the home slot alongside the tag probe (tables past 1 MB) took a
//     hit at 10^6 from 163-178 to 125-146 ns and ZRANK from 618-653 to 424-469 ns, but a miss
//     from 11.7-13.4 to 13.6-34.8 ns (absl: 10.2-11.8): one more line per miss, which the miss
//     target (1.2x absl) cannot afford;
//   * a second design of the same 9 bytes a slot, a 1-byte control array (7 tag bits and a live
//     bit; 12 MB at 10^7) beside 8-byte entries (the other 24 tag bits and the address): with
//     no order in the probed bytes a miss must reach the first empty slot, past the first 32
//     about half the time at 7/8 load, so a miss in cache mispredicted 0.79 branches against
//     under 0.001 and took 14 ns against 6.8 at 10^3 (absl: 5.5-6.9), and at 10^7 it was no better
//     (131 and 68 ns against 71 and 65; bench/probes/lookup_cost.cpp, docs/benchmarks.md);
//   * huge pages for the table (madvise, granted by the kernel): no change beyond the noise at
//     10^7, so the cost is the L3's capacity, not the TLB.
// Order in the probed bytes at 2 bytes a slot would fit in L3 but costs 1.2 bytes per member,
// past the 38-byte budget at 10^6.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "../common.hpp"
#include "allocator_holder.hpp"
#include "block.hpp"
#include "scan.hpp"

namespace zset {
namespace detail {

template <class Allocator>
class hash_index
    : private allocator_holder<
          typename std::allocator_traits<Allocator>::template rebind_alloc<std::uint32_t>> {
    // One allocation of 32-bit words holds both arrays (so `tags` is aligned whatever the
    // allocator's own alignment for bytes).
    using word_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<std::uint32_t>;
    using word_allocator = typename word_traits::allocator_type;
    /// Slots after the last home slot: enough for the longest run at 7/8 load (a small table
    /// needs fewer), plus one sentinel slot that always stays empty, so every probe loop ends
    /// on a zero.
    static constexpr std::size_t overflow_for(std::size_t cap) noexcept {
        return cap < 2048 ? 16 + cap / 16 : 256;
    }
    static constexpr std::size_t extra_for(std::size_t cap) noexcept {
        return overflow_for(cap) + 1;
    }
    static constexpr std::size_t ref_bytes = 5;

public:
    using size_type = std::size_t;
    static constexpr size_type npos = ~size_type{0};
    /// Node ids are 24-bit.
    static constexpr std::uint32_t max_node = 0xffffff;

    explicit hash_index(const Allocator& alloc = Allocator()) noexcept
        : allocator_holder<word_allocator>(word_allocator(alloc)) {}
    hash_index(const hash_index&) = delete;
    hash_index& operator=(const hash_index&) = delete;
    ~hash_index() { release(); }

    /// Frees the table. Never throws.
    void release() noexcept {
        if (mem_ != nullptr) word_traits::deallocate(alloc(), mem_, words_for(capacity_));
        mem_ = nullptr;
        capacity_ = 0;
        slots_ = 0;
        tombstones_ = 0;
        size_ = 0;
    }

    void swap(hash_index& other) noexcept {
        using std::swap;
        swap(mem_, other.mem_);
        swap(slots_, other.slots_);
        swap(tombstones_, other.tombstones_);
        swap(capacity_, other.capacity_);
        swap(size_, other.size_);
    }
    /// Replaces the allocator; the table must be released first.
    void set_allocator(const Allocator& a) noexcept { alloc() = word_allocator(a); }
    void swap_allocators(hash_index& other) noexcept {
        using std::swap;
        swap(alloc(), other.alloc());
    }

    size_type size() const noexcept { return size_; }
    size_type capacity() const noexcept { return capacity_; }
    size_type memory_usage() const noexcept {
        return mem_ == nullptr ? 0 : words_for(capacity_) * sizeof(std::uint32_t);
    }

    /// The tag of a hash: its high 32 bits, odd (bit 0 marks a live entry; an erased entry keeps
    /// its tag minus one as a tombstone, so runs stay ordered by tag | 1) and at least 3.
    static std::uint32_t tag_of(std::uint64_t hash) noexcept {
        const auto t = static_cast<std::uint32_t>(hash >> 32) | 1u;
        return t == 1 ? 3 : t;
    }

    /// Makes room for `n` entries without further growth (barring a run overflowing, which
    /// insert handles); tombstones count as occupied until a rehash drops them. A rehash that
    /// only drops tombstones keeps the capacity when that leaves an eighth of it free, so its
    /// cost spreads over at least that many erases. Strong guarantee.
    void reserve(size_type n) {
        if (n + tombstones_ <= max_load(capacity_)) return;
        size_type cap = capacity_ < 16 ? 16 : capacity_;
        // growth fills a table to 7/8; a rehash that drops tombstones keeps 1/8 of that free
        const auto room = [&](size_type c) {
            return tombstones_ == 0 ? max_load(c) : max_load(c) - max_load(c) / 8;
        };
        while (room(cap) < n) cap += cap / 8;
        rehash(cap);
    }

    /// Starts loading the slots a lookup of `tag` reads first.
    void prefetch(std::uint32_t tag) const noexcept {
        if (size_ == 0) return;
        const size_type h = home(tag);
        detail::prefetch(tags() + h);
        detail::prefetch(refs() + h * ref_bytes);
    }

    /// The first slot holding a live entry with this tag, or npos. Expected O(1): a few tag
    /// comparisons in one cache line. With next_match, walks the candidates for a member.
    ZSET_ALWAYS_INLINE size_type first_match(std::uint32_t tag) const noexcept {
        if (size_ == 0) return npos;
        const std::uint32_t* t = tags();
        const size_type i = first_not_below(t, home(tag), tag);
        if (t[i] == tag) return i;
        return (t[i] | 1u) == tag ? next_match(i, tag) : npos;  // a tombstone of this tag first
    }
    /// The next slot after `slot` holding a live entry with this tag, or npos.
    size_type next_match(size_type slot, std::uint32_t tag) const noexcept {
        const std::uint32_t* t = tags();
        for (size_type i = slot + 1; (t[i] | 1u) == tag; ++i)
            if (t[i] == tag) return i;
        return npos;
    }

    /// The slot of the first live entry with this tag for which `is_member(address)` returns
    /// true, or npos.
    template <class IsMember>
    size_type find(std::uint32_t tag, IsMember&& is_member) const {
        for (size_type i = first_match(tag); i != npos; i = next_match(i, tag))
            if (is_member(address(i))) return i;
        return npos;
    }

    /// The slot of the entry (tag, a), or npos.
    size_type find_exact(std::uint32_t tag, record_address a) const noexcept {
        return find(tag, [a](record_address b) { return a == b; });
    }
    /// The slot of the entry (tag, a), which must exist (erases: the member is in the set, so
    /// first_match never returns npos here). When it is the only live entry with
    /// this tag (all but ~n/2^32 of the time) that is its slot, found without reading the
    /// addresses: at 10^6 members they are a second cache miss per erase (ZPOPMIN, ranges).
    size_type find_present(std::uint32_t tag, record_address a) const noexcept {
        const size_type slot = first_match(tag);
        if (ZSET_LIKELY(next_match(slot, tag) == npos)) return slot;
        return find_exact(tag, a);
    }

    ZSET_ALWAYS_INLINE record_address address(size_type slot) const noexcept {
        std::uint32_t low;
        std::memcpy(&low, refs() + slot * ref_bytes, sizeof low);
        const std::uint32_t high = refs()[slot * ref_bytes + 4];
        return record_address{low & max_node,
                              static_cast<std::uint16_t>((low >> 24) | (high << 8))};
    }
    std::uint32_t tag_at(size_type slot) const noexcept { return tags()[slot]; }

    /// Points the entry in `slot` at a. Never throws.
    void set_address(size_type slot, record_address a) noexcept {
        const std::uint32_t low = a.node | (std::uint32_t{a.ref} << 24);
        std::memcpy(refs() + slot * ref_bytes, &low, sizeof low);
        refs()[slot * ref_bytes + 4] = static_cast<unsigned char>(a.ref >> 8);
    }

    /// Adds an entry; the caller guarantees the member is absent. Strong guarantee (grows or
    /// drops tombstones first when needed).
    void insert(std::uint32_t tag, record_address a) {
        reserve(size_ + 1);
        while (!try_place(tag, a)) rehash(capacity_ + capacity_ / 8);
        ++size_;
    }

    /// Removes the entry in `slot` without moving any other: when the next slot holds an entry
    /// displaced from its home, the run must stay unbroken and the entry becomes a tombstone
    /// (its tag minus one); otherwise the slot is emptied, and so are the tombstones just
    /// before it, which nothing after the empty slot needs any more. O(1) expected. Never
    /// allocates, never throws.
    void erase_slot(size_type slot) noexcept {
        std::uint32_t* t = tags();
        --size_;
        const size_type next = slot + 1;
        if (t[next] != 0 && home(t[next] | 1u) < next) {
            t[slot] -= 1;
            ++tombstones_;
            return;
        }
        t[slot] = 0;
        for (size_type at = slot; at > 0 && dead(t[at - 1]); --at) {
            t[at - 1] = 0;
            --tombstones_;
        }
    }

    /// Re-points the entry (tag, from) to `to`: its record moved. Returns false when no such
    /// entry exists. Never throws.
    bool replace(std::uint32_t tag, record_address from, record_address to) noexcept {
        const size_type slot = find_exact(tag, from);
        if (slot == npos) return false;
        set_address(slot, to);
        return true;
    }

    /// Calls `visit(tag, address)` once for every entry whose tag lies in [first, last].
    template <class Visit>
    void for_each_in_tag_range(std::uint32_t first, std::uint32_t last, Visit&& visit) const {
        if (size_ == 0) return;
        const size_type end = capacity_ + overflow_for(capacity_);
        for (size_type i = home(first); i != end; ++i) {
            const std::uint32_t t = tags()[i];
            if (t == 0) {
                if (i > home(last)) return;
                continue;
            }
            if ((t | 1u) > last) return;
            if (!dead(t) && t >= first) visit(t, address(i));
        }
    }

    /// Calls `visit(tag, address)` for every entry.
    template <class Visit>
    void for_each(Visit&& visit) const {
        for (size_type i = 0; mem_ != nullptr && i < capacity_ + overflow_for(capacity_); ++i)
            if (tags()[i] != 0 && !dead(tags()[i])) visit(tags()[i], address(i));
    }

    /// Checks that every run is sorted, every entry sits at or after its home, and the counts.
    bool validate() const noexcept {
        size_type live = 0, tombs = 0;
        for (size_type i = 0; mem_ != nullptr && i < capacity_ + overflow_for(capacity_); ++i) {
            const std::uint32_t t = tags()[i];
            if (t == 0) continue;
            ++(dead(t) ? tombs : live);
            if (home(t | 1u) > i) return false;
            if (i > 0 && tags()[i - 1] != 0 && (tags()[i - 1] | 1u) > (t | 1u)) return false;
        }
        return live == size_ && tombs == tombstones_ &&
               (mem_ == nullptr || tags()[capacity_ + overflow_for(capacity_)] == 0);
    }

private:
    static size_type max_load(size_type cap) noexcept { return cap - cap / 8; }

    word_allocator& alloc() noexcept { return this->held_allocator(); }

    std::uint32_t* tags() const noexcept { return mem_; }
    unsigned char* refs() const noexcept { return reinterpret_cast<unsigned char*>(mem_ + slots_); }

    /// 32-bit words of a table of `cap` home slots: the tags, then the refs.
    static size_type words_for(size_type cap) noexcept {
        const size_type slots = cap + extra_for(cap);
        return slots + (slots * ref_bytes + sizeof(std::uint32_t) - 1) / sizeof(std::uint32_t);
    }

    size_type home(std::uint32_t tag) const noexcept {
        return static_cast<size_type>((static_cast<std::uint64_t>(tag) * capacity_) >> 32);
    }

    /// Puts (tag, a) in tag order into its run, into a tombstone where one fits; false if the
    /// run would pass the overflow area.
    bool try_place(std::uint32_t tag, record_address a) noexcept {
        std::uint32_t* t = tags();
        const size_type end = capacity_ + overflow_for(capacity_);
        size_type s = home(tag);
        while (s != end && t[s] != 0 && (t[s] | 1u) < tag) ++s;
        // a tombstone among the entries of the same tag, or just before them, takes it as is
        for (size_type j = s; j != end && t[j] != 0 && (t[j] | 1u) == tag; ++j)
            if (dead(t[j])) return revive(j, tag, a);
        if (s > home(tag) && dead(t[s - 1])) return revive(s - 1, tag, a);
        // else shift the rest of the run right, into the first empty slot or tombstone
        size_type hole = s;
        while (hole != end && t[hole] != 0 && !dead(t[hole])) ++hole;
        if (hole == end) return false;
        if (t[hole] != 0) --tombstones_;
        std::memmove(t + s + 1, t + s, (hole - s) * sizeof *t);
        std::memmove(refs() + (s + 1) * ref_bytes, refs() + s * ref_bytes, (hole - s) * ref_bytes);
        t[s] = tag;
        set_address(s, a);
        return true;
    }
    bool revive(size_type slot, std::uint32_t tag, record_address a) noexcept {
        tags()[slot] = tag;
        set_address(slot, a);
        --tombstones_;
        return true;
    }
    static bool dead(std::uint32_t t) noexcept { return (t & 1u) == 0 && t != 0; }

    /// The first slot at or after i whose tag is not below `tag` or that is empty. Entries
    /// below the tag form a prefix of the run, so with SSE2 sixteen slots are tested per step and
    /// the loop almost always ends in one (a scalar loop's exit is a mispredicted branch per
    /// lookup). 0 (empty) wraps to the largest value, so one comparison stops at empty or
    /// larger tags (a tombstone of this tag, tag - 1, is passed over too). May read 15 slots
    /// past the sentinel: the refs array follows.
    ZSET_ALWAYS_INLINE static size_type first_not_below(const std::uint32_t* t, size_type i,
                                                        std::uint32_t tag) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i one = _mm_set1_epi32(1);
        const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));
        const __m128i key = _mm_set1_epi32(static_cast<int>((tag - 1u) ^ 0x80000000u));
        const auto below = [&](size_type at) ZSET_LAMBDA_INLINE {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + at));
            const __m128i biased = _mm_xor_si128(_mm_sub_epi32(v, one), flip);
            return static_cast<unsigned>(
                _mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(biased, key))));
        };
        for (;; i += 16) {
            const unsigned mask =
                below(i) | (below(i + 4) << 4) | (below(i + 8) << 8) | (below(i + 12) << 12);
            if (mask != 0xffffu) return i + lowest_bit(~mask & 0xffffu);
        }
#else
        while (t[i] - 1u < tag - 1u) ++i;
        return i;
#endif
    }

    /// Moves every entry to a table of `new_capacity` home slots in one ordered pass.
    ZSET_NOINLINE void rehash(size_type new_capacity) {
        for (;;) {
            std::uint32_t* fresh = word_traits::allocate(alloc(), words_for(new_capacity));
            std::memset(fresh, 0, words_for(new_capacity) * sizeof *fresh);
            std::uint32_t* fresh_tags = fresh;
            unsigned char* fresh_refs =
                reinterpret_cast<unsigned char*>(fresh + new_capacity + extra_for(new_capacity));
            // entries are in tag order already (runs are sorted and homes are monotone), so
            // each lands at max(its home, one past the previous entry)
            size_type next = 0;
            bool fits = true;
            for (size_type i = 0; mem_ != nullptr && i < capacity_ + overflow_for(capacity_); ++i) {
                if (tags()[i] == 0 || dead(tags()[i])) continue;
                const size_type h =
                    static_cast<size_type>((std::uint64_t{tags()[i]} * new_capacity) >> 32);
                const size_type at = h > next ? h : next;
                if (at >= new_capacity + overflow_for(new_capacity)) {
                    fits = false;
                    break;
                }
                fresh_tags[at] = tags()[i];
                std::memcpy(fresh_refs + at * ref_bytes, refs() + i * ref_bytes, ref_bytes);
                next = at + 1;
            }
            if (!fits) {
                word_traits::deallocate(alloc(), fresh, words_for(new_capacity));
                new_capacity += new_capacity / 8;
                continue;
            }
            if (mem_ != nullptr) word_traits::deallocate(alloc(), mem_, words_for(capacity_));
            mem_ = fresh;
            capacity_ = static_cast<std::uint32_t>(new_capacity);
            slots_ = static_cast<std::uint32_t>(new_capacity + extra_for(new_capacity));
            tombstones_ = 0;
            return;
        }
    }

    std::uint32_t* mem_ = nullptr;  // the tags, then the refs
    // 32-bit counts (a set holds fewer than 2^32 members) keep the index 24 bytes
    std::uint32_t capacity_ = 0;
    std::uint32_t slots_ = 0;  // capacity_ + extra_for(capacity_): where the refs start
    std::uint32_t size_ = 0;
    std::uint32_t tombstones_ = 0;
};

}  // namespace detail
}  // namespace zset
