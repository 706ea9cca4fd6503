// zset::detail::hash_index — the member index of a sorted set in skiplist mode.
// SPDX-License-Identifier: MIT
//
// Maps a member to the exact address of its record: (node id, ref) — the skiplist node whose
// block holds the record and the record's ref in that block (see block.hpp). A hit therefore
// reads one index key, one index record, the block pointer of that node id (skiplist.hpp keeps
// them in a small array of their own) and one element record; a miss reads the keys only. The
// member itself is never stored here.
//
// Layout: parallel arrays of slots in one allocation.
//   keys:    u16 per slot, the only array a probe reads before it has a candidate. An entry
//            d slots past its home stores (254 - d) << 8 | f << 1 | live, f being the 7 bits of
//            tag * capacity just below the home's; 0xffff is an empty slot, a key with its live
//            bit cleared a tombstone;
//   records: 7 bytes per slot: the tag's low 16 bits, ref (16 bits) and node id (24 bits),
//            read as one little-endian 8-byte load (a padding byte follows the last);
//   third tag bytes: bits 16-23 of the tag, in tables of under 512 slots only (see below).
// 9 bytes a slot in all; growth fills the table to 7/8 and grows it by 1/8, so from 8,192
// slots the load stays within 0.78-0.875 and the index costs 10.3-11.6 bytes per member;
// smaller tables at least double as inserts fill them (growth_after), which costs up to twice
// that a member in sets of 129 to ~7,000 members and saves ~7 of every 8 entry moves their
// growth would make (docs/design-log.md, "Index growth and layout"). A table of 8-byte
// (tag, address) slots would double the probed bytes, and a 15/16 load would save under a
// byte a member but make an insert shift several times as many slots (docs/design-log.md,
// "The member index: 2-byte keys and 7-byte records").
//
// Why 2-byte keys: the narrower the probed slots, the faster random probes past the cache. At
// 10^7 members the probed array is 23 MB, inside this machine class's 32 MB L3 (4-byte tags
// would be 46 MB; absl::flat_hash_map's control bytes are 16 MB), which keeps ZSCORE misses
// at 10^7 about even with absl's. Caveat: that ratio swings widely from one full run to the
// next: absl's 16 MB stay in a busy L3 more often than 23 MB do (docs/design-log.md, "The
// member index: 2-byte keys and 7-byte records"; bench row zscore_miss/zset/10000000).
//
// Placement is linear probing from the home slot `tag * capacity >> 32` (a multiply, not a
// mask, so any capacity works), with every run of occupied slots kept sorted by tag. Because the
// home is monotone in the tag, sorted runs are exactly Robin Hood order, and the key keeps that
// order visible: the entry in slot j sorts below a tag whose home is h <= j exactly when its
// key (live bit set) is below the key that tag would have in slot j, (254 - (j - h)) << 8 |
// f << 1 | 1 (a smaller home means a larger distance, so a smaller high byte; the same home
// compares the 7 fraction bits, and only entries with equal keys, ~1 in 150 misses, need their
// records read). That buys:
//   * a probe compares keys only, 16 slots per SIMD step (two 8-lane compares against wanted
//     keys that fall by 256 a slot): the first key equal to the wanted one is the candidate,
//     and a key not below it with none equal before ends a miss (see first_with_key): no
//     loop-exit branch to mispredict at 7/8 load (a scalar loop mispredicts nearly once a
//     lookup), no key read twice, and the record's fields in one load, so a ZSCORE hit at 10^3
//     runs fewer instructions than the Redis-style peer's, with almost no mispredicted branches
//     (docs/design-log.md, "Candidates from the probe's equal keys"; bench row
//     zscore_hit/zset/1000). The steps start at the home slot, not on a 64-byte
//     boundary, which would make a miss slower in cache;
//   * growth is one sequential pass (entries are already in order; no member is re-hashed);
//   * the entries whose tags lie in [t0, t1] are one contiguous stretch, which makes the ZSCAN
//     cursor (a tag) exact while the table grows or shrinks.
// Whole tags are rebuilt, not stored: the key gives q = tag * capacity >> 25 (the home, from the
// slot and the distance, and the 7 bits below it); the tags sharing a q are a run of at most
// 2^25 / capacity integers, at most 2^16 from 512 slots up, so the record's low 16 bits pick
// one. Smaller tables keep 8 more tag bits in a byte a slot (under 600 bytes), and their
// lookups, which compare the low 16 bits only, may meet an entry of another tag with the same
// key and low bits, which the caller's record or address comparison rejects.
//
// Runs never wrap around: a few extra slots follow the last home slot, and an insertion that
// would run past them grows the table instead; so does one that would put an entry more than
// 253 slots past its home (the key's high byte). At 7/8 load the farthest entry of random
// fills sits a few dozen slots from home, from 4,096-slot tables to 10^7 slots
// (docs/design-log.md, "The member index: 2-byte keys and 7-byte records"), so only members
// sharing one 32-bit tag reach it: 255 of them cannot be placed at any size, and the insert of
// the 255th throws std::length_error (the hash is mixed first, so it takes a Hash that gives
// 255 members one value). An erase never moves an entry: it empties its
// slot when no displaced entry follows, and leaves a tombstone otherwise; an insert next to a
// tombstone revives it in place, and the insert that finds the table full of them drops the
// rest in one pass over the table, in place (drop_tombstones). Never shifting costs ZPOPMIN
// the fewest instructions and mispredicted branches of the erase policies (docs/design-log.md,
// "Erases leave tombstones"; bench row pop_min). Caveat: 24-bit node ids bound a set to 2^24
// blocks (2^30 to 2^31 elements, blocks being half to fully used).
//
// Not here, and why (docs/design-log.md, "The member index: 2-byte keys and 7-byte records"):
// a Bloom filter in front of the index makes far-from-cache misses cheaper but hits slower
// (less room to overlap a hit's dependent misses); prefetching the records at the home slot
// with the key probe makes hits faster but misses slower and far more variable; a 1-byte
// control array with no order in its bytes must probe to the first empty slot, so a miss in
// cache mispredicts; huge pages change nothing (the cost past the cache is the L3's capacity,
// not the TLB). The 2-byte keys keep the order a control array lacks in the bytes it saves.
#ifndef ZSET_DETAIL_CONTAINER_HASH_INDEX_HPP
#define ZSET_DETAIL_CONTAINER_HASH_INDEX_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "../../common.hpp"
#include "allocator_holder.hpp"
#include "block.hpp"
#include "hash.hpp"
#include "scan.hpp"

namespace zset {
namespace detail {

template <class Allocator>
class hash_index
    : private allocator_holder<
          typename std::allocator_traits<Allocator>::template rebind_alloc<std::uint32_t>> {
    // One allocation of 32-bit words holds every array (so each is aligned whatever the
    // allocator's own alignment for bytes).
    using word_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<std::uint32_t>;
    using word_allocator = typename word_traits::allocator_type;
    /// Slots after the last home slot: enough for the longest run at 7/8 load (a small table
    /// needs fewer), plus one sentinel slot that always stays empty, so every probe loop ends
    /// on an empty key.
    static constexpr std::size_t overflow_for(std::size_t cap) noexcept {
        return cap < 2048 ? 16 + cap / 16 : 256;
    }
    static constexpr std::size_t extra_for(std::size_t cap) noexcept {
        return overflow_for(cap) + 1;
    }
    /// A record: the tag's low 16 bits, then the address (node id 24 bits, ref 16 bits).
    static constexpr std::size_t record_bytes = 7;
    static constexpr std::uint16_t empty_key = 0xffff;
    /// The farthest an entry may sit from its home: its key's high byte is 254 minus that
    /// distance, so 1..254 for an entry and 255 only for an empty slot.
    static constexpr std::size_t max_displacement = 253;
    /// Below this capacity a key and the tag's low 16 bits do not pin the tag down (the home
    /// and the key's 7 fraction bits give log2(capacity) + 7 of its 32 bits), so the table
    /// keeps bits 16-23 of every tag in a byte array after the records.
    static constexpr std::size_t third_tag_byte_below = 512;

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
        if (capacity_ != 0) word_traits::deallocate(alloc(), mem_, words_for(capacity_));
        mem_ = no_slots();
        capacity_ = 0;
        records_at_ = 0;
        tombstones_ = 0;
        size_ = 0;
    }

    void swap(hash_index& other) noexcept {
        using std::swap;
        swap(mem_, other.mem_);
        swap(records_at_, other.records_at_);
        swap(tombstones_, other.tombstones_);
        swap(capacity_, other.capacity_);
        swap(size_, other.size_);
    }

    size_type size() const noexcept { return size_; }
    size_type capacity() const noexcept { return capacity_; }
    size_type memory_usage() const noexcept {
        return capacity_ == 0 ? 0 : words_for(capacity_) * sizeof(std::uint32_t);
    }

    /// The tag of a hash: its high 32 bits (a tombstone is marked in its key, so every value
    /// is a tag).
    static std::uint32_t tag_of(std::uint64_t hash) noexcept {
        return static_cast<std::uint32_t>(hash >> 32);
    }

    /// Makes room for `n` entries without further growth (barring a run overflowing, which
    /// insert handles); tombstones count as occupied until a rehash drops them. A rehash that
    /// only drops tombstones keeps the capacity when that leaves an eighth of it free, so its
    /// cost spreads over at least that many erases. Strong guarantee.
    void reserve(size_type n) {
        if (n + tombstones_ <= max_load(capacity_)) return;
        const size_type cap = capacity_for(n, capacity_, tombstones_ != 0);
        if (cap == capacity_)
            drop_tombstones();
        else
            rehash(cap);
    }

    /// Makes room for one more entry, growing as inserts one at a time want (see
    /// growth_after): reserve(size() + 1) but for the step. Strong guarantee.
    void reserve_one_more() {
        if (size_ + 1 + tombstones_ <= max_load(capacity_)) return;
        if (tombstones_ != 0) return reserve(size_ + 1);
        rehash(growth_after(capacity_));
    }

    /// Starts loading the slots a lookup of `tag` reads first.
    void prefetch(std::uint32_t tag) const noexcept {
        if (size_ == 0) return;
        const size_type h = home(tag);
        detail::prefetch(keys() + h);
        detail::prefetch(records() + h * record_bytes);
    }

    /// The first slot holding a live entry with this tag, or npos. Expected O(1): a few key
    /// comparisons in one cache line, and the record of a slot whose key matches. With
    /// next_match, walks the candidates for a member. In a table of under 512 slots an entry
    /// of another tag with the same key and low 16 bits is a candidate too (see has_tag).
    ZSET_ALWAYS_INLINE size_type first_match(std::uint32_t tag) const noexcept {
        const size_type h = home(tag);
        const std::uint32_t at_home = key_at_home(tag);
        const size_type first = first_with_key(keys(), h, at_home);
        return first == npos ? npos : match_from(first, h, at_home, tag);
    }
    /// A lookup's first step, for callers that settle the common case inline: the slot of the
    /// first live entry whose key is the tag's (a candidate, which the record's low tag bits
    /// confirm or not; match_at_or_after(slot, tag) goes on from it), or npos (nearly every
    /// miss ends here, having read no record).
    ZSET_ALWAYS_INLINE size_type first_candidate(std::uint32_t tag) const noexcept {
        return first_with_key(keys(), home(tag), key_at_home(tag));
    }
    /// The first slot at or after `slot` holding a live entry with this tag, or npos.
    size_type match_at_or_after(size_type slot, std::uint32_t tag) const noexcept {
        return match_from(slot, home(tag), key_at_home(tag), tag);
    }
    /// The next slot after `slot` holding a live entry with this tag, or npos.
    size_type next_match(size_type slot, std::uint32_t tag) const noexcept {
        return match_at_or_after(slot + 1, tag);
    }

    /// The slot of the first live entry with this tag for which `is_member(address)` returns
    /// true, or npos.
    template <class IsMember>
    size_type find(std::uint32_t tag, IsMember&& is_member) const {
        for (size_type i = first_match(tag); i != npos; i = next_match(i, tag))
            if (is_member(address(i))) return i;
        return npos;
    }

    /// The slot of the entry (tag, a), or npos. Compares each candidate's whole record (the
    /// tag's low bits and the address) with the one wanted, in one comparison: re-pointing the
    /// records a split moves does this once a record.
    size_type find_exact(std::uint32_t tag, record_address a) const noexcept {
        const std::uint16_t* k = keys();
        const size_type h = home(tag);
        const std::uint32_t at_home = key_at_home(tag);
        size_type i = first_with_key(k, h, at_home);
        if (i == npos) return npos;
        const std::uint64_t wanted = record_for(tag, a);
        for (std::uint32_t want = at_home - static_cast<std::uint32_t>((i - h) << 8);
             (k[i] | 1u) == want; ++i, want -= 256)
            if (k[i] == want && (record(i) & record_bits) == wanted) return i;
        return npos;
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
        return address_in(record(slot));
    }
    /// The record in `slot` as one integer: bits 0-15 the tag's low bits, 16-31 the ref, 32-55
    /// the node id (one 8-byte load: a byte of padding follows the last record).
    ZSET_ALWAYS_INLINE std::uint64_t record(size_type slot) const noexcept {
        return load_le64(records() + slot * record_bytes);
    }
    /// The bits of record() that are the record (the top byte is the next record's).
    static constexpr std::uint64_t record_bits = 0x00ffffffffffffffull;
    /// The record an entry (tag, a) has, as record() reads it.
    static std::uint64_t record_for(std::uint32_t tag, record_address a) noexcept {
        return std::uint64_t{static_cast<std::uint16_t>(tag)} | std::uint64_t{a.ref} << 16 |
               std::uint64_t{a.node & max_node} << 32;
    }
    ZSET_ALWAYS_INLINE static record_address address_in(std::uint64_t record) noexcept {
        return record_address{static_cast<std::uint32_t>(record >> 32) & max_node,
                              static_cast<std::uint16_t>(record >> 16)};
    }
    /// Whether a record may belong to an entry with this tag (its low 16 bits agree).
    ZSET_ALWAYS_INLINE static bool record_has_tag(std::uint64_t record,
                                                  std::uint32_t tag) noexcept {
        return static_cast<std::uint16_t>(record) == static_cast<std::uint16_t>(tag);
    }
    /// The tag of the entry or tombstone in an occupied slot.
    std::uint32_t tag_at(size_type slot) const noexcept {
        return whole_tag(slot, fraction_scale(capacity_));
    }
    bool empty_at(size_type slot) const noexcept { return keys()[slot] == empty_key; }
    bool tombstone_at(size_type slot) const noexcept { return dead(keys()[slot]); }

    /// Points the entry in `slot` at a. Never throws. One 8-byte read-modify-write: the byte
    /// after the record (the next record's first, or the padding byte) is written back as it
    /// was, which costs a split's re-points fewer instructions than five byte stores.
    void set_address(size_type slot, record_address a) noexcept {
        unsigned char* r = records() + slot * record_bytes;
        constexpr std::uint64_t address_bits = record_bits & ~std::uint64_t{0xffff};
        store_le64(r, (load_le64(r) & ~address_bits) | record_for(0, a));
    }

    /// Adds an entry; the caller guarantees the member is absent. Strong guarantee (grows or
    /// drops tombstones first when needed).
    void insert(std::uint32_t tag, record_address a) {
        reserve_one_more();
        while (!try_place(tag, a)) rehash(grown(capacity_, size_ + 1));
        ++size_;
    }

    /// A member's tag and its record's address: one entry of assign().
    struct tagged_address {
        std::uint32_t tag;
        record_address a;
    };
    /// Fills an empty index with the entries [first, last) of distinct members, put in tag
    /// order here: each then lands at max(its home, one past the previous entry), as a rehash
    /// lays entries out, instead of being shifted into its run by one insert after another
    /// (set-operation results are built this way: bench row union). The order comes from a
    /// counting pass on the tags' top bits (about one entry a bucket) and an insertion sort of
    /// what is left, which beats std::sort on these nearly ordered entries (docs/design-log.md,
    /// "Index growth and layout"). The capacity is reserve(room)'s, room being at
    /// least the entries' count. Strong guarantee (on an exception the index stays empty).
    /// Allocates 4 bytes an entry and a copy of the entries for the time of the call.
    void assign(const tagged_address* first, const tagged_address* last, size_type room = 0) {
        const auto count = static_cast<size_type>(last - first);
        if (count == 0) return;
        unsigned bits = 1;
        while (bits < 31 && (size_type{1} << bits) < count) ++bits;
        using entry_allocator =
            typename std::allocator_traits<word_allocator>::template rebind_alloc<tagged_address>;
        std::vector<std::uint32_t, word_allocator> starts((size_type{1} << bits) + 1, 0, alloc());
        std::vector<tagged_address, entry_allocator> sorted(count, tagged_address{},
                                                            entry_allocator(alloc()));
        const auto bucket = [bits](std::uint32_t tag) { return tag >> (32 - bits); };
        for (const tagged_address* e = first; e != last; ++e) ++starts[bucket(e->tag) + 1];
        for (size_type b = 1; b < starts.size(); ++b) starts[b] += starts[b - 1];
        for (const tagged_address* e = first; e != last; ++e) sorted[starts[bucket(e->tag)]++] = *e;
        for (size_type i = 1; i < count; ++i)
            for (size_type j = i; j > 0 && sorted[j].tag < sorted[j - 1].tag; --j)
                std::swap(sorted[j], sorted[j - 1]);
        size_type cap = capacity_for(std::max(count, room), 0, false);
        while (!lay_out(cap, count, [&](auto&& place) {
            for (const tagged_address& e : sorted)
                if (!place(e.tag, e.a)) return false;
            return true;
        }))
            cap = grown(cap, count);
    }

    /// Removes the entry in `slot` without moving any other: when the next slot holds an entry
    /// displaced from its home, the run must stay unbroken and the entry becomes a tombstone
    /// (its key's live bit cleared); otherwise the slot is emptied, and so are the tombstones
    /// just before it, which nothing after the empty slot needs any more. O(1) expected. Never
    /// allocates, never throws.
    void erase_slot(size_type slot) noexcept {
        std::uint16_t* k = keys();
        --size_;
        const std::uint16_t next = k[slot + 1];
        if (next != empty_key && displacement(next) != 0) {
            k[slot] = static_cast<std::uint16_t>(k[slot] & ~1u);
            ++tombstones_;
            return;
        }
        k[slot] = empty_key;
        for (size_type at = slot; at > 0 && dead(k[at - 1]); --at) {
            k[at - 1] = empty_key;
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
        const double scale = fraction_scale(capacity_);
        for (size_type i = home(first); i != end; ++i) {
            const std::uint16_t k = keys()[i];
            if (k == empty_key) {
                if (i > home(last)) return;
                continue;
            }
            const std::uint32_t t = whole_tag(i, scale);
            if (t > last) return;
            if (!dead(k) && t >= first) visit(t, address(i));
        }
    }

    /// Calls `visit(tag, address)` for every entry.
    template <class Visit>
    void for_each(Visit&& visit) const {
        const double scale = fraction_scale(capacity_);
        for (size_type i = 0; capacity_ != 0 && i < capacity_ + overflow_for(capacity_); ++i)
            if (keys()[i] != empty_key && !dead(keys()[i])) visit(whole_tag(i, scale), address(i));
    }

    /// Checks that every key encodes its entry's tag and distance from home, that every run is
    /// sorted by tag, and the counts.
    bool validate() const noexcept {
        size_type live = 0, tombs = 0;
        std::uint32_t before = 0;  // the tag of the previous occupied slot, 0 after an empty one
        const double scale = fraction_scale(capacity_);
        for (size_type i = 0; capacity_ != 0 && i < capacity_ + overflow_for(capacity_); ++i) {
            const std::uint16_t k = keys()[i];
            if (k == empty_key) {
                before = 0;
                continue;
            }
            ++(dead(k) ? tombs : live);
            const std::uint32_t t = whole_tag(i, scale);
            const size_type h = home(t);
            if (h > i || i - h > max_displacement || (k | 1u) != key_at(t, h, i)) return false;
            if (t < before) return false;
            before = t;
        }
        return live == size_ && tombs == tombstones_ &&
               (capacity_ == 0 || keys()[capacity_ + overflow_for(capacity_)] == empty_key);
    }

private:
    /// Slots a table may have (its 24-bit node ids and 32-bit counts hold far more members).
    static constexpr size_type max_capacity = 0x7fffffff;
    static size_type max_load(size_type cap) noexcept { return cap - cap / 8; }
    /// Below this many slots (72 KB of table) a table grown by an insert at least doubles.
    static constexpr size_type doubling_below = 8192;
    /// The capacity a full table grows to when an insert needs room: the next of the 1/8 steps
    /// from 16 (every capacity is one of them; reserve(n) takes the first that holds n), or
    /// below doubling_below the first of them at least twice as large. Every 1/8 step moves
    /// each entry once, ~8 moves per member inserted one by one; doubling small tables makes
    /// that ~1 below 8,192 slots, where the index is small beside the elements, and keeps the
    /// capacities of large tables on the 1/8 steps, so their bytes per member stay low.
    static size_type growth_after(size_type cap) noexcept {
        if (cap < 16) return 16;
        size_type next = cap + cap / 8;
        if (cap < doubling_below)
            while (next < 2 * cap) next += next / 8;
        return next;
    }
    /// The capacity growth reaches from `from` (16 at least) to hold n entries: tables fill to
    /// 7/8, and one rebuilt to drop tombstones (`drops_tombstones`) keeps 1/8 of that free, so
    /// the next drop is at least that many erases away. Throws std::length_error past the
    /// capacities growth allows (grown), which a count passed to reserve() may ask for.
    static size_type capacity_for(size_type n, size_type from, bool drops_tombstones) {
        const auto room = [drops_tombstones](size_type c) {
            return drops_tombstones ? max_load(c) - max_load(c) / 8 : max_load(c);
        };
        size_type cap = from < 16 ? 16 : from;
        while (room(cap) < n) {
            cap += cap / 8;
            if (cap > max_capacity) raise_length_error("zset: too many members for one set");
        }
        return cap;
    }

    word_allocator& alloc() noexcept { return this->held_allocator(); }

    static bool keeps_third_tag_byte(size_type cap) noexcept { return cap < third_tag_byte_below; }
    static size_type key_words(size_type cap) noexcept {
        return ((cap + extra_for(cap)) * sizeof(std::uint16_t) + sizeof(std::uint32_t) - 1) /
               sizeof(std::uint32_t);
    }
    /// The records and one byte of padding (record() loads 8 bytes).
    static size_type record_words(size_type cap) noexcept {
        return ((cap + extra_for(cap)) * record_bytes + 1 + sizeof(std::uint32_t) - 1) /
               sizeof(std::uint32_t);
    }
    /// 32-bit words of a table of `cap` home slots: the keys, the records (a probe may read 15
    /// keys past the sentinel: the records follow), then the third tag bytes (small tables).
    static size_type words_for(size_type cap) noexcept {
        return key_words(cap) + record_words(cap) +
               (keeps_third_tag_byte(cap)
                    ? (cap + extra_for(cap) + sizeof(std::uint32_t) - 1) / sizeof(std::uint32_t)
                    : 0);
    }
    std::uint16_t* keys() const noexcept { return reinterpret_cast<std::uint16_t*>(mem_); }
    unsigned char* records() const noexcept {
        return reinterpret_cast<unsigned char*>(mem_ + records_at_);
    }
    unsigned char* third_tag_bytes() const noexcept {
        return reinterpret_cast<unsigned char*>(mem_ + records_at_ + record_words(capacity_));
    }

    size_type home(std::uint32_t tag) const noexcept {
        return static_cast<size_type>((static_cast<std::uint64_t>(tag) * capacity_) >> 32);
    }
    /// The key of a live entry with this tag sitting at its home: high byte 254, then the 7
    /// bits of tag * capacity just below the home's, then the live bit. At `d` slots past its
    /// home the key is 256 * d less.
    std::uint32_t key_at_home(std::uint32_t tag) const noexcept {
        const auto fraction =
            static_cast<std::uint32_t>((static_cast<std::uint64_t>(tag) * capacity_) >> 25) & 127u;
        return (254u << 8) | (fraction << 1) | 1u;
    }
    std::uint32_t key_at(std::uint32_t tag, size_type h, size_type slot) const noexcept {
        return key_at_home(tag) - static_cast<std::uint32_t>((slot - h) << 8);
    }
    static size_type displacement(std::uint16_t key) noexcept { return 254u - (key >> 8); }
    static bool dead(std::uint16_t key) noexcept { return (key & 1u) == 0; }
    /// 2^25 / capacity, for whole_tag's estimate.
    static double fraction_scale(size_type cap) noexcept {
        return cap == 0 ? 0.0 : 33554432.0 / static_cast<double>(cap);
    }

    /// The tag (live form) of the entry in an occupied slot. Its key gives q = tag * capacity
    /// >> 25 (the home, from the slot and the displacement, and 7 bits below it); the tags with
    /// that q form a run of at most 2^25 / capacity integers, so the stored low bits pick one:
    /// 16 of them from 512 slots up (2^25 / capacity <= 2^16), 24 below (<= 2^21: capacities
    /// start at 16). q * 2^25 / capacity, by a multiply, is within 2 of the run's first tag:
    /// the first tag from 1 below it with the right low bits is the tag or one period short.
    std::uint32_t whole_tag(size_type slot, double scale) const noexcept {
        const std::uint16_t k = keys()[slot];
        const std::uint64_t q = (std::uint64_t{slot - displacement(k)} << 7) | ((k >> 1) & 127u);
        const bool third = keeps_third_tag_byte(capacity_);
        const std::uint64_t period = third ? std::uint64_t{1} << 24 : std::uint64_t{1} << 16;
        const std::uint64_t low =
            low_tag(slot) | (third ? std::uint64_t{third_tag_bytes()[slot]} << 16 : 0);
        const auto estimate = static_cast<std::uint64_t>(static_cast<double>(q) * scale);
        const std::uint64_t start = estimate == 0 ? 0 : estimate - 1;
        std::uint64_t t = start + ((low - start) & (period - 1));
        if (((t * capacity_) >> 25) != q) t += period;
        return static_cast<std::uint32_t>(t);
    }
    std::uint16_t low_tag(size_type slot) const noexcept {
        return static_cast<std::uint16_t>(record(slot));
    }
    /// Whether the live entry in `slot`, whose key matches the tag's, may have that tag: in a
    /// table of 512 slots or more the key and the low 16 bits decide it (see whole_tag); in a
    /// smaller one a few entries of other tags pass too, which every caller tells apart by
    /// the record or the address (lookups read no whole tag).
    bool has_tag(size_type slot, std::uint32_t tag) const noexcept {
        return record_has_tag(record(slot), tag);
    }
    /// An entry's record in the table it leaves (a rehash): the tag's low bits and the address
    /// are the same in the new table, so the record is copied, not rebuilt.
    struct moved_record {
        const unsigned char* bytes;
    };
    /// write_entry for a moved entry: its record in one 8-byte copy (decoding the address and
    /// writing it back byte by byte would be most of a rehash's instructions). The copy's
    /// last byte lands on the first byte of the next slot's record (or on the padding byte after
    /// the last): the rehash's next entry overwrites it, or the slot stays empty and its record
    /// is never read.
    void write_entry(size_type slot, std::uint32_t key, std::uint32_t tag,
                     moved_record from) noexcept {
        keys()[slot] = static_cast<std::uint16_t>(key);
        std::memcpy(records() + slot * record_bytes, from.bytes, sizeof(std::uint64_t));
        if (keeps_third_tag_byte(capacity_))
            third_tag_bytes()[slot] = static_cast<unsigned char>(tag >> 16);
    }
    void write_entry(size_type slot, std::uint32_t key, std::uint32_t tag,
                     record_address a) noexcept {
        keys()[slot] = static_cast<std::uint16_t>(key);
        records()[slot * record_bytes] = static_cast<unsigned char>(tag);
        records()[slot * record_bytes + 1] = static_cast<unsigned char>(tag >> 8);
        set_address(slot, a);
        if (keeps_third_tag_byte(capacity_))
            third_tag_bytes()[slot] = static_cast<unsigned char>(tag >> 16);
    }

    /// The first live entry with this tag at or after slot `i`, among the slots whose keys
    /// match the tag's key there (a 7-bit fraction shared by ~1/150 of misses), or npos.
    ZSET_ALWAYS_INLINE size_type match_from(size_type i, size_type h, std::uint32_t at_home,
                                            std::uint32_t tag) const noexcept {
        const std::uint16_t* k = keys();
        for (std::uint32_t want = at_home - static_cast<std::uint32_t>((i - h) << 8);
             (k[i] | 1u) == want; ++i, want -= 256)
            if (k[i] == want && has_tag(i, tag)) return i;
        return npos;
    }

    /// Puts (tag, a) in tag order into its run, into a tombstone where one fits; false if the
    /// run would pass the overflow area or an entry would sit too far from its home.
    bool try_place(std::uint32_t tag, record_address a) noexcept {
        const std::uint16_t* k = keys();
        const size_type end = capacity_ + overflow_for(capacity_);
        const size_type h = home(tag);
        const std::uint32_t at_home = key_at_home(tag);
        const auto wanted = [&](size_type slot) {
            return at_home - static_cast<std::uint32_t>((slot - h) << 8);
        };
        size_type s = first_not_below(k, h, at_home);
        // keys equal to its own: the entries' whole tags decide the order (the scale, a
        // division, only then)
        if ((k[s] | 1u) == wanted(s)) {
            const double scale = fraction_scale(capacity_);
            while ((k[s] | 1u) == wanted(s) && whole_tag(s, scale) < tag) ++s;
        }
        if (s - h > max_displacement) return false;
        if (dead(k[s])) return revive(s, wanted(s), tag, a);  // the empty key is not dead
        // the slot before (when it is in the run), tested without a branch on whether it is
        // (an && would be a branch, mispredicted on many inserts)
        const size_type before = s - size_type{s > h};
        if ((s > h) & dead(k[before])) return revive(before, wanted(before), tag, a);
        // else shift the rest of the run right, into the first empty slot or tombstone
        const size_type hole = first_free_or_farthest(k, s);
        if (hole >= end || (k[hole] != empty_key && !dead(k[hole]))) return false;
        if (k[hole] != empty_key) --tombstones_;
        shift_right(s, hole);
        write_entry(s, wanted(s), tag, a);
        return true;
    }
    /// From slot s on, the first slot that is empty, a tombstone or an entry at the farthest
    /// distance from its home (which cannot move further). The sentinel after the overflow area
    /// is empty, so the scan ends there at the latest (it may read 15 slots past it, as a probe
    /// does). With SSE2 sixteen keys a step: a slot-by-slot loop costs a new member far more
    /// instructions, and eight a step would take a second step, a mispredicted branch, on many
    /// inserts (docs/design-log.md, "Building from empty").
    ZSET_ALWAYS_INLINE static size_type first_free_or_farthest(const std::uint16_t* k,
                                                               size_type s) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i live = _mm_set1_epi16(1), empty = _mm_set1_epi16(-1);
        const __m128i farthest = _mm_set1_epi16(static_cast<short>((254 - max_displacement) << 8));
        const __m128i high_byte = _mm_set1_epi16(static_cast<short>(0xff00));
        const auto stops8 = [&](size_type i) ZSET_LAMBDA_INLINE {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + i));
            const __m128i free_slot =
                _mm_or_si128(_mm_cmpeq_epi16(_mm_and_si128(v, live), _mm_setzero_si128()),
                             _mm_cmpeq_epi16(v, empty));
            return _mm_or_si128(free_slot, _mm_cmpeq_epi16(_mm_and_si128(v, high_byte), farthest));
        };
        for (size_type i = s;; i += 16) {
            const auto bits =
                static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(stops8(i), stops8(i + 8))));
            if (bits != 0) return i + lowest_bit(bits);
        }
#else
        while (k[s] != empty_key && !dead(k[s]) && displacement(k[s]) != max_displacement) ++s;
        return s;
#endif
    }
    /// Moves the live entries in [from, to) one slot right (each a slot further from home).
    void shift_right(size_type from, size_type to) noexcept {
        // a key a slot further from home is 256 less; the records follow the keys' sentinel
        shift_u16_up(keys(), from, to, static_cast<std::uint16_t>(0x10000 - 256));
        move_bytes(records() + (from + 1) * record_bytes, records() + from * record_bytes,
                   (to - from) * record_bytes);
        if (keeps_third_tag_byte(capacity_))
            move_bytes(third_tag_bytes() + from + 1, third_tag_bytes() + from, to - from);
    }
    /// Empties every slot of a fresh table: every key empty_key, and zeros in the rest of the
    /// key words and in the records' first 32 bytes (what a probe past the sentinel reads) and
    /// last 8 (the padding byte). Records and third tag bytes are written with their entries
    /// and read only for occupied slots, so the rest stays as allocated: zeroing the whole
    /// table would be a large part of a growing index's rehash.
    void clear_slots() noexcept {
        const size_type key_bytes = (capacity_ + extra_for(capacity_)) * sizeof(std::uint16_t);
        const size_type record_bytes_total = record_words(capacity_) * sizeof(std::uint32_t);
        auto* bytes = reinterpret_cast<unsigned char*>(mem_);
        std::memset(bytes, 0xff, key_bytes);
        std::memset(bytes + key_bytes, 0,
                    size_type{records_at_} * sizeof(std::uint32_t) - key_bytes);
        std::memset(records(), 0, std::min<size_type>(32, record_bytes_total));
        std::memset(records() + record_bytes_total - 8, 0, 8);
    }
    /// Drops every tombstone in place: one pass moves each live entry back to max(its home,
    /// one past the previous entry), which keeps the runs sorted and only shortens distances.
    /// A rehash to the same capacity would need a fresh table, every whole tag rebuilt and
    /// every entry rewritten: about ten times the instructions a slot (bench row
    /// zadd_new/zset/1000, whose untimed erases leave tombstones a later batch drops;
    /// docs/design-log.md, "Erases leave tombstones"). Never allocates, never throws.
    void drop_tombstones() noexcept {
        // A table without slots has no tombstones; saying so keeps g++ from following a
        // default-constructed index (no_slots()) into the loop below and warning about it.
        if (capacity_ == 0) return;
        std::uint16_t* k = keys();
        unsigned char* r = records();
        const bool third = keeps_third_tag_byte(capacity_);
        const size_type end = capacity_ + overflow_for(capacity_);
        size_type next = 0;  // every slot below it is settled
        for (size_type i = 0; i < end; ++i) {
            const std::uint16_t key = k[i];
            if (key == empty_key) continue;
            if (dead(key)) {
                k[i] = empty_key;
                continue;
            }
            const size_type h = i - displacement(key);
            const size_type at = h > next ? h : next;
            next = at + 1;
            if (at == i) continue;
            // slot `at` was emptied above (a tombstone) or vacated by an entry moved back
            k[at] = static_cast<std::uint16_t>(key + ((i - at) << 8));
            k[i] = empty_key;
            std::memcpy(r + at * record_bytes, r + i * record_bytes, record_bytes);
            if (third) third_tag_bytes()[at] = third_tag_bytes()[i];
        }
        tombstones_ = 0;
    }
    bool revive(size_type slot, std::uint32_t key, std::uint32_t tag, record_address a) noexcept {
        write_entry(slot, key, tag, a);
        --tombstones_;
        return true;
    }

    /// The first slot from the home h whose key is the key a live entry with this tag would
    /// have there (at_home - 256 per slot past home), or npos. Tombstones with the tag's key
    /// count as below it (their key is one less). Runs are sorted by tag, so the entries with
    /// the key form one stretch of the run holding the home, after every entry below it and
    /// before every entry above it, and no later run holds one: the first equal key among the
    /// slots scanned is the first live entry with the key, and a key not below the wanted one
    /// with none equal before it ends a miss. With SSE2 sixteen slots are tested per step, the
    /// equality first (a hit needs nothing else), and the loop almost always ends in one step (a
    /// scalar loop's exit is a mispredicted branch per lookup); no key is read twice and a miss
    /// reads no record. The empty key is the largest; past 254 slots the wanted key's high byte
    /// would be 0, below every entry's, so the loop ends there at the latest. May read 15 slots
    /// past the sentinel: the records follow.
    ZSET_ALWAYS_INLINE static size_type first_with_key(const std::uint16_t* k, size_type h,
                                                       std::uint32_t at_home) noexcept {
        return scan_keys<false>(k, h, at_home);
    }
    /// Inserts: the first slot whose key is not below the wanted one, a tombstone with the tag's
    /// key stopping the scan too (its key is compared with the live bit set), so the insert
    /// sees the whole stretch of entries with the key.
    ZSET_ALWAYS_INLINE static size_type first_not_below(const std::uint16_t* k, size_type h,
                                                        std::uint32_t at_home) noexcept {
        return scan_keys<true>(k, h, at_home);
    }
    template <bool ForInsert>
    ZSET_ALWAYS_INLINE static size_type scan_keys(const std::uint16_t* k, size_type h,
                                                  std::uint32_t at_home) noexcept {
#ifdef ZSET_DETAIL_SSE2
        const __m128i zero = _mm_setzero_si128();
        const __m128i first8 = _mm_setr_epi16(0, 256, 512, 768, 1024, 1280, 1536, 1792);
        const __m128i next8 = _mm_setr_epi16(2048, 2304, 2560, 2816, 3072, 3328, 3584, 3840);
        const __m128i step = _mm_set1_epi16(4096);
        __m128i want = _mm_set1_epi16(static_cast<short>(at_home));
        const auto keys_at = [&](size_type at) ZSET_LAMBDA_INLINE {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + at));
            return ForInsert ? _mm_or_si128(v, _mm_set1_epi16(1)) : v;
        };
        // lanes where key >= wanted key, by unsigned saturating subtraction
        const auto not_below = [&](__m128i v, __m128i wanted) ZSET_LAMBDA_INLINE {
            return _mm_cmpeq_epi16(_mm_subs_epu16(wanted, v), zero);
        };
        const auto bits = [](__m128i low8, __m128i high8) ZSET_LAMBDA_INLINE {
            return static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(low8, high8)));
        };
        for (size_type i = h;; i += 16) {
            const __m128i v0 = keys_at(i), v1 = keys_at(i + 8);
            const __m128i w0 = _mm_subs_epu16(want, first8), w1 = _mm_subs_epu16(want, next8);
            if (!ForInsert) {
                const unsigned equal = bits(_mm_cmpeq_epi16(v0, w0), _mm_cmpeq_epi16(v1, w1));
                if (equal != 0) {
                    const size_type at = i + lowest_bit(equal);
#if defined(__GNUC__)
                    if (at == npos) __builtin_unreachable();  // lets callers drop their npos test
#endif
                    return at;
                }
            }
            const unsigned stops = bits(not_below(v0, w0), not_below(v1, w1));
            if (stops != 0) return ForInsert ? i + lowest_bit(stops) : npos;
            want = _mm_subs_epu16(want, step);
        }
#else
        size_type i = h;
        std::uint32_t want = at_home;
        const auto key = [&] { return ForInsert ? k[i] | 1u : std::uint32_t{k[i]}; };
        for (; key() < want; want -= 256) ++i;
        return ForInsert || key() == want ? i : npos;
#endif
    }

    /// Moves every entry to a table of `new_capacity` home slots in one ordered pass; grows it
    /// further while a run would overflow or an entry sit too far from home.
    ZSET_NOINLINE void rehash(size_type new_capacity) {
        const size_type asked = new_capacity;
        while (!rehash_into(new_capacity)) new_capacity = grown(new_capacity, asked);
    }
    /// The capacity after `cap` when a table of it could not hold its entries (`need`: their
    /// count, or the capacity asked for). Only members sharing a tag,
    /// 255 of them, put an entry too far from home at every capacity: past 8 slots an
    /// entry (plus 4096) growth gives up.
    static size_type grown(size_type cap, size_type need) {
        const size_type next = cap + cap / 8;
        if (next > 8 * need + 4096 || next > max_capacity)
            raise_length_error("zset: too many members share one hash value (255 or more)");
        return next;
    }
    bool rehash_into(size_type new_capacity) {
        // entries are in tag order already (runs are sorted and homes are monotone)
        const size_type end = capacity_ == 0 ? 0 : capacity_ + overflow_for(capacity_);
        const double scale = fraction_scale(capacity_);
        return lay_out(new_capacity, size_, [&](auto&& place) {
            for (size_type i = 0; i < end; ++i) {
                if (keys()[i] == empty_key || dead(keys()[i])) continue;
                if (!place(whole_tag(i, scale), moved_record{records() + i * record_bytes}))
                    return false;
            }
            return true;
        });
    }
    /// Builds a table of `new_capacity` home slots from `count` entries that each_entry(place)
    /// hands to place(tag, address) in tag order (stopping when it returns false), each landing
    /// at max(its home, one past the previous entry), and swaps it in; false (this index
    /// unchanged) if a run would pass the overflow area or an entry sit too far from home.
    template <class EachEntry>
    bool lay_out(size_type new_capacity, size_type count, EachEntry&& each_entry) {
        hash_index fresh(alloc());
        fresh.mem_ = word_traits::allocate(fresh.alloc(), words_for(new_capacity));
        fresh.capacity_ = static_cast<std::uint32_t>(new_capacity);
        fresh.records_at_ = static_cast<std::uint32_t>(key_words(new_capacity));
        fresh.clear_slots();
        const size_type fresh_end = new_capacity + overflow_for(new_capacity);
        size_type next = 0;
        const bool placed_all = each_entry([&](std::uint32_t tag, const auto& what) {
            const size_type h = fresh.home(tag);
            const size_type at = h > next ? h : next;
            if (at >= fresh_end || at - h > max_displacement) return false;
            fresh.write_entry(at, fresh.key_at(tag, h, at), tag, what);
            next = at + 1;
            return true;
        });
        if (!placed_all) return false;
        fresh.size_ = static_cast<std::uint32_t>(count);
        swap(fresh);
        return true;
    }

    /// The keys of a table without slots (16 words: the 16 keys a probe of home 0 reads and 16
    /// more): a probe of an empty index stops at its first, so lookups need no emptiness test.
    /// Never written (every insert allocates first).
    static std::uint32_t* no_slots() noexcept {
        alignas(16) static const std::uint32_t empty[16] = {
            0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
            0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
            0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
        return const_cast<std::uint32_t*>(empty);
    }

    std::uint32_t* mem_ = no_slots();  // the keys, the records, the whole tags (small tables)
    // 32-bit counts (a set holds fewer than 2^32 members) keep the index 24 bytes
    std::uint32_t capacity_ = 0;
    std::uint32_t records_at_ = 0;  // key_words(capacity_): where the records start
    std::uint32_t size_ = 0;
    std::uint32_t tombstones_ = 0;
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_HASH_INDEX_HPP
