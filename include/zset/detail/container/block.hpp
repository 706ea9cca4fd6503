// zset::detail::block — a slotted page of (score, member) records: the unit of storage.
// SPDX-License-Identifier: MIT
//
// A whole sorted set in listpack mode is one block; in skiplist mode every skiplist node owns
// one. A block is one allocation:
//
//   [header][record area: `area` units][order: u16 x capacity][member lookup]
//
// * Records never move inside their block. A record is addressed by its `ref`: its byte offset
//   in the area (byte-string members) or its cell number (other members). The hash index
//   stores (node, ref), so a member lookup reaches the member and its score by reading exactly
//   one record, with no scan (scores, lengths and member bytes in separate sorted arrays
//   would make a lookup sum lengths to find its member; docs/design-log.md, "Slotted
//   blocks").
// * `order` lists the refs in (score, member) order. Ranks, iteration and binary search go
//   through it; inserting or erasing shifts 2 bytes per element, never the records.
// * the member lookup (listpack mode only: skiplist mode has the hash index) finds a member by
//   its hash. Up to bucket_table::max_positions (128) positions it is a bucket_table
//   (bucket_table.hpp): a 2-byte entry a position, sorted into 16 buckets by the hash, plus 17
//   bucket starts; a lookup compares one bucket's entries in one step, and a miss almost always
//   ends at that compare. Larger blocks (listpack thresholds above 128) keep a 16-bit
//   fingerprint beside each position instead, in order, and compare all of them 16 at a time.
//   A table block keeps its entries' offset in its header (table_at), so a lookup finds them
//   without computing it; a block whose entries would lie past 128 KiB (members of about
//   1 KiB) keeps parallel fingerprints instead. Why a table of ranked entries: it keeps a
//   one-step lookup within listpack mode's 24 bytes a member, and its upkeep on insert and
//   erase is one pass, an erase given the entry its lookup found (docs/design-log.md, "Listpack
//   mode's bucket table", which also lists the hashed tables it was measured against; bench
//   rows zscore_hit/zset/100, zscore_miss/zset/100, memory/zset/100).
//
// An allocator that rounds requests up to size classes and says so (allocate_at_least.hpp; the
// module's allocator over Redis's jemalloc) gives a block more bytes than it asked for. The
// block spreads them over its positions and its area (widen), so it is copied again only when
// its size class is full: a set of 10^5 members takes 38.4 bytes an element in Redis 7.0.15,
// against 39.8 with blocks of the sizes they ask for (bench/results/module-shapes.md, shape
// k10_m100k_dbl).
//
// Record formats:
//   byte strings (Member = std::string): [score][length byte][member bytes], packed (scores are
//     read with memcpy). A member of 255 bytes or more has length byte 255 and its bytes in
//     an allocation of their own: [score][255][u32 length][pointer]. A record is thus at most
//     sizeof(Score) + 255 bytes, which keeps a block's area within 16-bit offsets.
//     Element cost: sizeof(Score) + 3 bytes + the member (24 bytes for 13 bytes and a double).
//   other members: fixed cells [score][Member], aligned; the Member's move constructor must not
//     throw (records move when blocks split or compact).
//
// An erased record becomes a hole, kept on a free list threaded through the holes themselves
// ([next hole][hole size] in its first 4 bytes), and a later record that fits takes it
// (first fit). So an erase never allocates (the container's strong exception guarantee relies
// on it), and a block whose elements churn (score updates moving members between blocks)
// rarely needs compacting. Regrowing copies the area as it is, so refs stay valid; a split or
// compaction moves records and reports each move (the index re-points the moved entries).
//
// Invariant: the units of the live records plus `garbage` (holes and fragments too small to be
// holes) equal `used`.
#ifndef ZSET_DETAIL_CONTAINER_BLOCK_HPP
#define ZSET_DETAIL_CONTAINER_BLOCK_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../../common.hpp"
#include "allocate_at_least.hpp"
#include "bucket_table.hpp"
#include "scan.hpp"

namespace zset {
namespace detail {

template <class T>
inline constexpr bool is_byte_string_v = std::is_same_v<T, std::string>;

/// What a block hands out for a member: a string_view for byte strings, a reference otherwise.
template <class Member>
using member_view_t = std::conditional_t<is_byte_string_v<Member>, std::string_view, const Member&>;

/// Size used for the listpack "value" threshold: bytes for strings, sizeof otherwise.
template <class Member>
std::size_t member_size(member_view_t<Member> m) noexcept {
    if constexpr (is_byte_string_v<Member>)
        return m.size();
    else
        return sizeof(Member);
}

/// Where an index entry points: a node (its block) and a record ref inside it.
struct record_address {
    std::uint32_t node;
    std::uint16_t ref;
    friend bool operator==(record_address a, record_address b) noexcept {
        return a.node == b.node && a.ref == b.ref;
    }
    friend bool operator!=(record_address a, record_address b) noexcept { return !(a == b); }
};

template <class Score, class Member, class Allocator>
class block {
public:
    static constexpr bool bytes = is_byte_string_v<Member>;
    using view = member_view_t<Member>;
    using size_type = std::size_t;
    using ref_type = std::uint16_t;
    /// A member's 16-bit listpack fingerprint (set_engine::listpack_fingerprint), beside each
    /// element of a listpack-mode block without a bucket table.
    using fingerprint_type = std::uint16_t;
    static constexpr size_type npos = ~size_type{0};
    /// Positions and area units are 16-bit.
    static constexpr size_type max_positions = 0xffff;
    static constexpr size_type max_area = 0xffff;
    static constexpr std::uint8_t long_length = 255;
    static constexpr ref_type no_hole = 0xffff;

    static_assert(bytes || std::is_nothrow_move_constructible_v<Member>,
                  "zset: a non-string Member must be nothrow move constructible");

private:
    struct header {
        std::uint32_t node;   // id of the skiplist node owning this block
        std::uint32_t units;  // allocation size in allocation units
        std::uint16_t size;
        std::uint16_t capacity;  // positions (order / fingerprint entries)
        std::uint16_t used;      // area units in use from the start: records and garbage
        std::uint16_t area;      // area units available
        std::uint16_t garbage;   // units of erased records below `used`
        std::uint16_t holes;     // first hole of the free list (no_hole: none)
        std::uint8_t lookup;     // a member_lookup
        std::uint8_t reserved;
        std::uint16_t table_at;  // a table block's entries, in 2-byte steps from the block's start
    };
    static_assert(sizeof(header) == 24, "zset: the block header is 24 bytes");
    struct alignas(std::max_align_t) unit {
        unsigned char raw[alignof(std::max_align_t)];
    };
    using unit_traits = typename std::allocator_traits<Allocator>::template rebind_traits<unit>;
    using unit_allocator = typename unit_traits::allocator_type;
    using char_traits = typename std::allocator_traits<Allocator>::template rebind_traits<char>;
    using char_allocator = typename char_traits::allocator_type;

    static constexpr size_type align_up(size_type n, size_type a) noexcept {
        return (n + a - 1) / a * a;
    }
    // Object cells: [Score][Member], aligned for both.
    static constexpr size_type cell_align = alignof(Score) > alignof(Member) ? alignof(Score)
                                                                             : alignof(Member);
    // at least 2 bytes before the member: a free cell keeps its hole link there
    static constexpr size_type member_offset =
        align_up(sizeof(Score) < 2 ? 2 : sizeof(Score), alignof(Member));
    static constexpr size_type cell_bytes = align_up(member_offset + sizeof(Member), cell_align);
    static constexpr size_type unit_bytes = bytes ? 1 : cell_bytes;
    static constexpr size_type records_offset = align_up(sizeof(header), bytes ? 1 : cell_align);
    static_assert(bytes || cell_align <= alignof(std::max_align_t),
                  "zset: over-aligned Member or Score types are not supported");

    static size_type order_offset(size_type area) noexcept {
        return align_up(records_offset + area * unit_bytes, alignof(std::uint16_t));
    }
    /// How a block finds a member by its hash: not at all (skiplist mode, whose hash index
    /// addresses the records), a bucket table (listpack mode up to bucket_table::max_positions
    /// positions) or a fingerprint beside each position (larger listpack-mode blocks).
    enum member_lookup : std::uint8_t { no_lookup, parallel_fingerprints, table_lookup };
    static member_lookup lookup_for(size_type cap, size_type area, bool fingerprinted) noexcept {
        if (!fingerprinted) return no_lookup;
        return cap <= bucket_table::max_positions && table_offset(cap, area) / 2 <= 0xffff
                   ? table_lookup
                   : parallel_fingerprints;
    }
    /// Where the lookup array (a table's entries, or the fingerprints) starts. A table block
    /// keeps it in its header (table_at): a lookup then loads its entries' place instead of
    /// computing it from the capacity and the area, which shortens every listpack-mode lookup
    /// (docs/design-log.md, "A one-multiply fingerprint for listpack mode").
    static size_type table_offset(size_type cap, size_type area) noexcept {
        return order_offset(area) + cap * sizeof(std::uint16_t);
    }
    /// Bytes a position takes: its order entry and its lookup entry, if any.
    static constexpr size_type position_bytes(member_lookup lookup) noexcept {
        return sizeof(std::uint16_t) + (lookup == no_lookup      ? 0
                                        : lookup == table_lookup ? sizeof(std::uint16_t)
                                                                 : sizeof(fingerprint_type));
    }
    static size_type total_bytes(size_type cap, size_type area, member_lookup lookup) noexcept {
        const size_type table_starts = lookup == table_lookup ? bucket_table::starts_bytes : 0;
        return order_offset(area) + cap * position_bytes(lookup) + table_starts + scan_slack;
    }

    header* h_;

    explicit block(header* h) noexcept : h_(h) {}
    unsigned char* base() const noexcept { return reinterpret_cast<unsigned char*>(h_); }
    unsigned char* record(ref_type r) const noexcept {
        return base() + records_offset + size_type{r} * unit_bytes;
    }

public:
    block() noexcept : h_(nullptr) {}
    explicit operator bool() const noexcept { return h_ != nullptr; }
    friend bool operator==(block a, block b) noexcept { return a.h_ == b.h_; }
    friend bool operator!=(block a, block b) noexcept { return a.h_ != b.h_; }
    /// Starts loading the cache line of the record at r.
    void prefetch_record(ref_type r) const noexcept { prefetch(record(r)); }
    /// Starts loading the header.
    void prefetch_header() const noexcept { prefetch(h_); }
    /// Starts loading the header and the first order entries.
    void prefetch_order() const noexcept {
        prefetch(h_);
        prefetch(order());
    }
    /// Starts loading the whole block: header, used records and order. Records lie in arrival
    /// order, so a search or walk in (score, member) order visits them at random; requested
    /// together, their misses overlap instead of following one another.
    void prefetch_block() const noexcept {
        const size_type record_bytes = records_offset + size_type{h_->used} * unit_bytes;
        for (size_type i = 0; i < record_bytes; i += 64) prefetch(base() + i);
        const auto* o = reinterpret_cast<const unsigned char*>(order());
        for (size_type i = 0; i < size_type{h_->size} * sizeof(std::uint16_t); i += 64)
            prefetch(o + i);
    }

    // ---- allocation ---------------------------------------------------------------------

    /// Allocates an empty block. Throws std::bad_alloc / std::length_error; changes nothing.
    static block create(const Allocator& alloc, size_type cap, size_type area, bool fingerprinted) {
        if (cap > max_positions || area > max_area) raise_length_error("zset: block too large");
        unit_allocator ua(alloc);
        const member_lookup lookup = lookup_for(cap, area, fingerprinted);
        const size_type n_units =
            align_up(total_bytes(cap, area, lookup), sizeof(unit)) / sizeof(unit);
        const auto got = allocate_at_least(ua, n_units);
        if (got.count > n_units) widen(cap, area, lookup, got.count * sizeof(unit));
        void* raw = std::addressof(*got.ptr);
        header* h = new (raw) header();
        h->units = static_cast<std::uint32_t>(got.count);
        h->capacity = static_cast<std::uint16_t>(cap);
        h->area = static_cast<std::uint16_t>(area);
        h->holes = no_hole;
        h->lookup = lookup;
        if (lookup == table_lookup)
            h->table_at = static_cast<std::uint16_t>(table_offset(cap, area) / 2);
        block b(h);
        if (lookup == table_lookup) b.table().clear();
        return b;
    }

    /// Grows `cap` and `area` into the bytes an allocation gave beyond its request, shared as
    /// the request shares its bytes between positions and records. A table block keeps at most
    /// bucket_table::max_positions positions, so its lookup stays a table.
    static void widen(size_type& cap, size_type& area, member_lookup lookup,
                      size_type given_bytes) noexcept {
        const size_type per_position = position_bytes(lookup);
        const size_type asked = cap * per_position + area * unit_bytes;
        const size_type spare = given_bytes - total_bytes(cap, area, lookup);
        const size_type cap_limit =
            lookup == table_lookup ? bucket_table::max_positions : max_positions;
        const size_type more_positions =
            std::min(spare * cap / asked, cap_limit > cap ? cap_limit - cap : 0);
        cap += more_positions;
        area = std::min(area + (spare - more_positions * per_position) / unit_bytes, max_area);
        while (total_bytes(cap, area, lookup) > given_bytes) --area;
    }

    /// Releases every live record (out-of-line member bytes, member objects) and the block.
    static void destroy(const Allocator& alloc, block b) noexcept {
        if (!b) return;
        for (size_type i = 0; i < b.size(); ++i) b.release_record(alloc, b.ref(i));
        deallocate(alloc, b);
    }

    /// A copy of `old` with room for `cap` positions and `area` units, every record at the same
    /// ref (so index entries stay valid); `old` is freed. Strong guarantee.
    ZSET_NOINLINE static block regrow(const Allocator& alloc, block old, size_type cap,
                                      size_type area) {
        block fresh = create(alloc, cap, area, old.fingerprinted());
        if constexpr (bytes) {
            std::memcpy(fresh.record(0), old.record(0), old.used());
        } else {
            for (size_type i = 0; i < old.size(); ++i) {
                const ref_type r = old.ref(i);
                std::memcpy(fresh.record(r), old.record(r), sizeof(Score));
                ::new (static_cast<void*>(fresh.member_ptr(r)))
                    Member(std::move(*old.member_ptr(r)));
                old.member_ptr(r)->~Member();
            }
            for (ref_type h = old.h_->holes; h != no_hole; h = old.next_hole(h))
                std::memcpy(fresh.record(h), old.record(h), sizeof(ref_type));
        }
        std::memcpy(fresh.order(), old.order(), old.size() * sizeof(std::uint16_t));
        copy_lookup(old, fresh);
        fresh.h_->node = old.h_->node;
        fresh.h_->size = old.h_->size;
        fresh.h_->used = old.h_->used;
        fresh.h_->garbage = old.h_->garbage;
        fresh.h_->holes = old.h_->holes;
        deallocate(alloc, old);
        return fresh;
    }

    /// Slack policy: 1/16 keeps a set near its exact size (as Redis's realloc per insert) while
    /// a large block is copied only every n/16 inserts. A listpack-mode block takes larger steps
    /// while it is small (set_engine::listpack_grown_positions).
    static size_type grown(size_type n) noexcept { return n + n / 16 + 2; }
    /// Bytes of one area unit (1 for byte strings, a cell otherwise).
    static constexpr size_type bytes_per_unit() noexcept { return unit_bytes; }
    static size_type grown_area(size_type units) noexcept {
        return units + units / 16 + (bytes ? 8 : 1);
    }

    /// Can one block hold `count` elements of `units` area units (with growth slack)?
    static bool can_hold(size_type count, size_type units) noexcept {
        return grown(count) <= max_positions && grown_area(units) <= max_area;
    }

    size_type allocated_bytes() const noexcept { return size_type{h_->units} * sizeof(unit); }
    /// Out-of-line member bytes owned by the live records.
    size_type out_of_line_bytes() const noexcept {
        size_type total = 0;
        if constexpr (bytes) {
            for (size_type i = 0; i < size(); ++i)
                if (record(ref(i))[sizeof(Score)] == long_length) total += member_of(ref(i)).size();
        }
        return total;
    }

    // ---- observers ----------------------------------------------------------------------

    std::uint32_t node() const noexcept { return h_->node; }
    void set_node(std::uint32_t id) noexcept { h_->node = id; }
    size_type size() const noexcept { return h_->size; }
    bool empty() const noexcept { return h_->size == 0; }
    size_type capacity() const noexcept { return h_->capacity; }
    size_type area() const noexcept { return h_->area; }
    size_type used() const noexcept { return h_->used; }
    size_type garbage() const noexcept { return h_->garbage; }
    bool fingerprinted() const noexcept { return h_->lookup != no_lookup; }
    /// Does the block find members with a bucket_table (else by parallel fingerprints)?
    bool has_table() const noexcept { return h_->lookup == table_lookup; }
    /// The bucket table (has_table() blocks).
    ZSET_ALWAYS_INLINE bucket_table table() const noexcept {
        auto* entries = reinterpret_cast<std::uint16_t*>(base() + size_type{h_->table_at} * 2);
        return bucket_table(entries, h_->capacity);
    }

    std::uint16_t* order() const noexcept {
        return reinterpret_cast<std::uint16_t*>(base() + order_offset(h_->area));
    }
    fingerprint_type* fingerprints() const noexcept {
        return reinterpret_cast<fingerprint_type*>(base() + table_offset(h_->capacity, h_->area));
    }
    ref_type ref(size_type pos) const noexcept { return order()[pos]; }
    /// The fingerprint position pos keeps (of a table block: its kept bits). O(size) in a
    /// table block.
    fingerprint_type fingerprint(size_type pos) const noexcept {
        return has_table() ? table().fingerprint_of_position(size(), pos) : fingerprints()[pos];
    }
    /// The bits of fp that fingerprint() gives back.
    fingerprint_type kept_fingerprint(fingerprint_type fp) const noexcept {
        return has_table() ? bucket_table::kept_fingerprint(fp) : fp;
    }

    ZSET_ALWAYS_INLINE Score score_of(ref_type r) const noexcept {
        Score s;
        std::memcpy(&s, record(r), sizeof s);
        return s;
    }
    void set_score_of(ref_type r, Score s) noexcept { std::memcpy(record(r), &s, sizeof s); }
    ZSET_ALWAYS_INLINE view member_of(ref_type r) const noexcept {
        if constexpr (bytes) {
            const unsigned char* p = record(r) + sizeof(Score);
            // Marked likely so that a short member falls through: a walk's loop then takes one
            // taken branch an element, not two (unmarked, g++ may make the short case the
            // taken jump over the long case's load), which matters most in listpack mode
            // (docs/design-log.md, "Iteration in few instructions"; bench row iterate).
            if (ZSET_LIKELY(*p != long_length))
                return view(reinterpret_cast<const char*>(p + 1), *p);
            std::uint32_t n;
            const char* out;
            std::memcpy(&n, p + 1, sizeof n);
            std::memcpy(&out, p + 1 + sizeof n, sizeof out);
            return view(out, n);
        } else {
            return *member_ptr(r);
        }
    }
    /// Is the member of record r the byte string m? (byte-string members)
    ZSET_ALWAYS_INLINE bool bytes_equal(ref_type r, std::string_view m) const noexcept {
        const unsigned char* p = record(r) + sizeof(Score);
        if (m.size() >= long_length) return *p == long_length && member_of(r) == m;
        return *p == m.size() && equal_bytes(p + 1, m.data(), m.size());
    }
    /// bytes_equal() for a member of at most 16 bytes: no call.
    ZSET_ALWAYS_INLINE bool short_bytes_equal(ref_type r, std::string_view m) const noexcept {
        const unsigned char* p = record(r) + sizeof(Score);
        return *p == m.size() && equal_short_bytes(p + 1, m.data(), m.size());
    }
    Score score(size_type pos) const noexcept { return score_of(ref(pos)); }
    view member(size_type pos) const noexcept { return member_of(ref(pos)); }

    /// Area units a record for member m takes (at least a hole's 4 bytes).
    static size_type units_for(view m) noexcept {
        if constexpr (bytes)
            return units_for_length(m.size());
        else
            return 1;
    }
    /// Area units a record for a member of `length` bytes takes (members that are not byte
    /// strings: one unit, whatever the length).
    static size_type units_for_length(size_type length) noexcept {
        if constexpr (bytes)
            return string_units(length < long_length ? length : long_length);
        else
            return 1;
    }
    /// Area units of the live record at r.
    size_type record_units(ref_type r) const noexcept {
        if constexpr (bytes)
            return string_units(record(r)[sizeof(Score)]);
        else
            return 1;
    }

    // ---- searching ------------------------------------------------------------------------

    /// Position of the element whose record satisfies is_member(ref), or npos (fingerprinted
    /// blocks only). Tests the records whose fingerprint matches.
    template <class IsMember>
    ZSET_ALWAYS_INLINE size_type find(fingerprint_type fp, const IsMember& is_member) const {
        static_assert(npos == no_match, "find_u16_match's no_match must be npos");
        return find_with_entry(fp, is_member).pos;
    }
    /// find()'s position, and in a table block the table entry that holds it (else npos), which
    /// erase() and move_position() take to skip searching for it.
    struct found_at {
        size_type pos, entry;
    };
    template <class IsMember>
    ZSET_ALWAYS_INLINE found_at find_with_entry(fingerprint_type fp,
                                                const IsMember& is_member) const {
        const auto accept = [&](size_type i) ZSET_LAMBDA_INLINE { return is_member(ref(i)); };
        if (has_table()) {
            const bucket_table t = table();
            const size_type entry = t.find_entry(fp, accept);
            return {entry == no_match ? npos : t.position_at(entry), entry};
        }
        return {find_u16_match(fingerprints(), size(), fp, accept), npos};
    }

    /// Whether a search expects the block in cache; a cold search first requests the whole
    /// block, then the records it may probe next (they are scattered in the area), which pays
    /// off only on cache misses (docs/design-log.md, "Walks request their blocks").
    enum class search { cached, cold };

    /// Position of the record r (present), found in the order array: O(size / 8). A cached
    /// block is scanned in fixed work (no mispredicted exit), a cold one stops at the match
    /// (fewer lines read): see find_u16_fixed_work.
    size_type position_of(ref_type r, search mode = search::cold) const noexcept {
        return mode != search::cold ? find_u16_fixed_work(order(), size(), r)
                                    : find_u16(order(), size(), r);
    }

    /// First position i for which goes_before(i) is false, assuming it is true then false.
    /// Each step keeps a half by a conditional move when the compiler can make goes_before
    /// branch-free (a single comparison); a compound predicate may branch instead (see
    /// lower_bound, which relies on both).
    template <class GoesBefore>
    ZSET_ALWAYS_INLINE size_type partition_point(const GoesBefore& goes_before,
                                                 search mode = search::cached) const {
        return partition_point_from(0, goes_before, mode);
    }
    /// partition_point() over positions [first, size()).
    template <class GoesBefore>
    ZSET_ALWAYS_INLINE size_type partition_point_from(size_type first,
                                                      const GoesBefore& goes_before,
                                                      search mode = search::cached) const {
        size_type base = first, len = size() - first;
        if (len == 0) return first;
        const std::uint16_t* o = order();
        if (mode == search::cold) prefetch_block();
        while (len > 1) {
            if (mode == search::cold) {  // the records the next step may probe
                const size_type half = len / 2;
                prefetch(record(o[base + half / 2]));
                prefetch(record(o[base + half + half / 2]));
            }
            halve(base, len, goes_before);
        }
        return base + (goes_before(base) ? 1 : 0);
    }

    /// One step of the binary search over positions [base, base + len), len > 1: keeps the
    /// half where goes_before turns false, by a conditional move.
    template <class GoesBefore>
    ZSET_ALWAYS_INLINE static void halve(size_type& base, size_type& len,
                                         const GoesBefore& goes_before) {
        const size_type half = len / 2;
        base = goes_before(base + half) ? base + half : base;
        len -= half;
    }

    /// partition_point() in two blocks at once (a range's two ends), their probes interleaved
    /// step by step so that the two chains of dependent record reads overlap. Returns the
    /// positions in a and in b.
    template <class GoesBeforeA, class GoesBeforeB>
    static std::pair<size_type, size_type> partition_points(block a, const GoesBeforeA& before_a,
                                                            block b, const GoesBeforeB& before_b,
                                                            search mode = search::cached) {
        if (a.size() == 0 || b.size() == 0)
            return {a.partition_point(before_a, mode), b.partition_point(before_b, mode)};
        if (mode == search::cold) {
            a.prefetch_block();
            if (b != a) b.prefetch_block();
        }
        size_type base_a = 0, len_a = a.size(), base_b = 0, len_b = b.size();
        while (len_a > 1 || len_b > 1) {
            if (len_a > 1) halve(base_a, len_a, before_a);
            if (len_b > 1) halve(base_b, len_b, before_b);
        }
        return {base_a + (before_a(base_a) ? 1 : 0), base_b + (before_b(base_b) ? 1 : 0)};
    }

    /// First position whose (score, member) is not less than (s, m): by scores first, without
    /// a branch on any comparison (score_lower_bound; in a cold block a binary search behind the
    /// block's prefetch), then by members among the scores equal to s. A search comparing
    /// members as it went would branch on every step, mispredicted about half the time in a
    /// set whose inserts the branch predictor has not seen before (docs/design-log.md,
    /// "Building from empty"; bench rows build_random, many_sets_1000).
    template <class Compare>
    ZSET_NOINLINE size_type lower_bound(Score s, view m, const Compare& less,
                                        search mode = search::cached) const {
        const std::uint16_t* o = order();
        // after the last score: appends (ascending scores, time series) need no search
        if (size() == 0 || score_of(o[size() - 1]) < s) return size();
        size_type p;
        if (mode == search::cold) {
            p = partition_point([&](size_type i) ZSET_LAMBDA_INLINE { return score_of(o[i]) < s; },
                                mode);
            if (s < score_of(o[p])) return p;
        } else {
            const score_bound b = score_lower_bound(s);
            if (!b.tie) return b.pos;
            p = b.pos;
        }
        return partition_point_from(p, [&](size_type i) ZSET_LAMBDA_INLINE {
            const ref_type r = o[i];
            return !(s < score_of(r)) && less(member_of(r), m);
        });
    }

    /// The first position whose score is not below s, and whether its score is s. Precondition:
    /// the block is not empty and its last score is not below s.
    struct score_bound {
        size_type pos;
        bool tie;
    };
    /// A binary search step waits for an order entry, then for its record, before the next step
    /// can start. Here each step probes three positions a quarter apart, their reads side by
    /// side, and keeps the quarter where the scores reach s; the last one to three positions and
    /// the one after them are read together too, which settles the position and the tie in the
    /// same step. A block of 128 positions waits for 4 such rounds instead of 9.
    ZSET_ALWAYS_INLINE score_bound score_lower_bound(Score s) const noexcept {
        const std::uint16_t* o = order();
        const size_type last = size() - 1;
        const auto score_at = [&](size_type i) ZSET_LAMBDA_INLINE { return score_of(o[i]); };
        size_type base = 0, len = size();  // the answer lies in [base, base + len]
        while (len >= 4) {
            const size_type q = len / 4;
            const size_type p1 = base + q, p2 = p1 + q, p3 = p2 + q;
            const bool b1 = score_at(p1) < s, b2 = score_at(p2) < s, b3 = score_at(p3) < s;
            base = b1 ? p1 : base;  // scores rise: the last probe below s wins
            base = b2 ? p2 : base;
            base = b3 ? p3 : base;
            len -= 3 * q;
        }
        // 1 to 3 positions left, and the answer's score among them or just after
        const Score a0 = score_at(base), a1 = score_at(std::min(base + 1, last)),
                    a2 = score_at(std::min(base + 2, last)),
                    a3 = score_at(std::min(base + 3, last));
        // Every test combined with & (g++ makes `len > 1 && ...` and the choice of the answer's
        // score branches, which mispredict on about half the searches of a set being built).
        // The scores rise, so the answer has score s exactly when one of the candidates
        // [base, base + len] does (a clamped one is the last score, which is not below s: if it
        // is s, so is the answer's).
        const bool b0 = a0 < s;
        const bool b1 = (len > 1) & (a1 < s);
        const bool b2 = (len > 2) & (a2 < s);
        const size_type pos = base + size_type{b0} + size_type{b1} + size_type{b2};
        const bool tie = (a0 == s) | (a1 == s) | ((len > 1) & (a2 == s)) | ((len > 2) & (a3 == s));
        return {pos, tie};
    }

    // ---- modifiers ------------------------------------------------------------------------

    /// Is there room for one more record of `units` units (at the end of the area or in a
    /// hole) without reallocating?
    bool has_room(size_type units) const noexcept {
        if (h_->size >= h_->capacity) return false;
        return size_type{h_->used} + units <= h_->area || find_hole(units).at != no_hole;
    }

    /// Writes a new record (not yet linked into the order) at the end of the used area, or in
    /// the first hole it fits when the end has no room, and returns its ref. Precondition:
    /// has_room(units_for(m)). For object members the copy of m may throw, and a long string
    /// member allocates; on exception nothing changed.
    ZSET_ALWAYS_INLINE ref_type append_record(const Allocator& alloc, Score s, view m) {
        const size_type units = units_for(m);
        const bool at_end = size_type{h_->used} + units <= h_->area;
        const hole_slot hole = at_end ? hole_slot{} : find_hole(units);  // read before writing
        const ref_type r = at_end ? static_cast<ref_type>(h_->used) : hole.at;
        write_record(alloc, r, s, m);  // may throw: nothing changed yet
        if (at_end)
            h_->used = static_cast<std::uint16_t>(h_->used + units);
        else
            take_hole(hole, units);
        return r;
    }

private:
    /// Writes record (s, m) at r. Only the member copy or allocation may throw.
    void write_record(const Allocator& alloc, ref_type r, Score s, view m) {
        unsigned char* p = record(r);
        if constexpr (bytes) {
            if (m.size() < long_length) {
                p[sizeof(Score)] = static_cast<std::uint8_t>(m.size());
                move_bytes(p + sizeof(Score) + 1, m.data(), m.size());
            } else {
                char_allocator ca(alloc);
                char* out = char_traits::allocate(ca, m.size());
                std::memcpy(out, m.data(), m.size());
                const auto n = static_cast<std::uint32_t>(m.size());
                p[sizeof(Score)] = long_length;
                std::memcpy(p + sizeof(Score) + 1, &n, sizeof n);
                std::memcpy(p + sizeof(Score) + 1 + sizeof n, &out, sizeof out);
            }
        } else {
            (void)alloc;
            ::new (static_cast<void*>(member_ptr(r))) Member(m);  // may throw: nothing changed
        }
        std::memcpy(p, &s, sizeof s);
    }

    // ---- holes ----------------------------------------------------------------------------
    // A hole holds [next hole: u16][size: u16] (object cells: [next hole] only, size 1).

    struct hole_slot {
        ref_type at = no_hole;
        ref_type prev = no_hole;  // the hole before it in the list (no_hole: it is the head)
        ref_type next = no_hole;  // the hole after it
        size_type units = 0;      // its size
    };
    static constexpr size_type min_units = 4;
    static constexpr size_type hole_search_limit = 32;  // bounds an insertion's walk

    static size_type string_units(size_type length_byte) noexcept {
        const size_type raw =
            sizeof(Score) + 1 +
            (length_byte != long_length ? length_byte : sizeof(std::uint32_t) + sizeof(char*));
        return raw < min_units ? min_units : raw;
    }
    ref_type next_hole(ref_type h) const noexcept {
        ref_type next;
        std::memcpy(&next, record(h), sizeof next);
        return next;
    }
    size_type hole_units(ref_type h) const noexcept {
        if constexpr (!bytes) {
            (void)h;
            return 1;
        } else {
            std::uint16_t units;
            std::memcpy(&units, record(h) + sizeof(ref_type), sizeof units);
            return units;
        }
    }
    void set_hole(ref_type h, ref_type next, size_type units) noexcept {
        std::memcpy(record(h), &next, sizeof next);
        if constexpr (bytes) {
            const auto u = static_cast<std::uint16_t>(units);
            std::memcpy(record(h) + sizeof(ref_type), &u, sizeof u);
        } else {
            (void)units;
        }
    }
    void relink(ref_type prev, ref_type next) noexcept {
        if (prev == no_hole)
            h_->holes = next;
        else
            std::memcpy(record(prev), &next, sizeof next);
    }

    /// The first hole of at least `units` units (within the search limit), or none.
    hole_slot find_hole(size_type units) const noexcept {
        hole_slot found;
        size_type steps = 0;
        for (ref_type h = h_->holes; h != no_hole && steps < hole_search_limit;
             h = next_hole(h), ++steps) {
            if (hole_units(h) >= units) {
                found.at = h;
                found.next = next_hole(h);
                found.units = hole_units(h);
                return found;
            }
            found.prev = h;
        }
        return hole_slot{};
    }

    /// A record of `units` units now occupies the start of hole `slot`: the rest of the hole
    /// stays on the list when it can still hold a hole, else it is a fragment (garbage until a
    /// rebuild).
    void take_hole(hole_slot slot, size_type units) noexcept {
        if (slot.units - units >= min_units) {
            const auto rest = static_cast<ref_type>(slot.at + units);
            set_hole(rest, slot.next, slot.units - units);
            relink(slot.prev, rest);
        } else {
            relink(slot.prev, slot.next);
        }
        h_->garbage = static_cast<std::uint16_t>(h_->garbage - units);
    }

public:
    /// Links record r at position pos. Precondition: size() < capacity(). Never throws.
    void link(size_type pos, ref_type r, fingerprint_type fp) noexcept {
        const size_type n = size();
        std::uint16_t* o = order();
        shift_u16_up(o, pos, n, 0);  // the lookup array or the scan slack follows the order
        o[pos] = r;
        if (has_table()) {
            table().insert(n, pos, fp);
        } else if (fingerprinted()) {
            fingerprint_type* f = fingerprints();
            std::memmove(f + pos + 1, f + pos, (n - pos) * sizeof *f);
            f[pos] = fp;
        }
        ++h_->size;
    }

    /// Moves the element at position `from` to position `to` (positions after the move),
    /// shifting the others. Its record stays where it is. `entry`: its table entry if known
    /// (find_with_entry), else npos. Never throws.
    void move_position(size_type from, size_type to, size_type entry = npos) noexcept {
        const auto move_one = [&](auto* a) {
            const auto moving = a[from];
            if (to > from)
                std::memmove(a + from, a + from + 1, (to - from) * sizeof *a);
            else
                std::memmove(a + to + 1, a + to, (from - to) * sizeof *a);
            a[to] = moving;
        };
        move_one(order());
        if (has_table())
            table().move(size(), from, to, entry);
        else if (fingerprinted())
            move_one(fingerprints());
    }

    /// Removes positions [first, last) and releases their records. `entry`: the table entry
    /// of a single position if known (find_with_entry), else npos. Never throws.
    void erase(const Allocator& alloc, size_type first, size_type last,
               size_type entry = npos) noexcept {
        for (size_type i = first; i < last; ++i) release_record(alloc, ref(i));
        forget(first, last, entry);
    }

    /// Appends the records at positions [first, last) of `src` to the end of `dst` (area and
    /// positions), in order: they now belong to dst. `src` still lists them, so the caller, which
    /// moves every record of src out this way, frees it with discard_moved(), not destroy().
    /// (Forgetting each record in src, to make it a hole of a block about to be freed, would
    /// be work for nothing.) Calls moved(member view in dst, score, old ref, new ref) for
    /// each. Precondition: dst has room. Never throws.
    template <class Moved>
    static void transfer(block src, size_type first, size_type last, block dst, Moved&& moved) {
        // a table block's fingerprints by position, read in one pass (fingerprint() searches)
        fingerprint_type by_position[bucket_table::max_positions];
        const bool carry = src.fingerprinted() && dst.fingerprinted();
        if (carry && src.has_table()) src.table().fingerprints_by_position(by_position);
        const auto fingerprint_at = [&](size_type i) -> fingerprint_type {
            if (!carry) return 0;
            return src.has_table() ? by_position[i] : src.fingerprints()[i];
        };
        for (size_type i = first; i < last; ++i) {
            const ref_type from = src.ref(i);
            const auto to = static_cast<ref_type>(dst.h_->used);
            const size_type units = src.record_units(from);
            if constexpr (bytes) {
                copy_record(src, from, dst, to, units);
            } else {
                std::memcpy(dst.record(to), src.record(from), sizeof(Score));
                ::new (static_cast<void*>(dst.member_ptr(to)))
                    Member(std::move(*src.member_ptr(from)));
                src.member_ptr(from)->~Member();
            }
            dst.h_->used = static_cast<std::uint16_t>(dst.h_->used + units);
            if (dst.fingerprinted()) {
                dst.link(dst.size(), to, fingerprint_at(i));
            } else {  // skiplist mode: the order entry alone, at the end (link would memmove)
                dst.order()[dst.size()] = to;
                ++dst.h_->size;
            }
            moved(dst.member_of(to), dst.score_of(to), from, to);
        }
    }

    /// Frees a block whose records were all moved out by transfer() (none is released: they
    /// belong to their new blocks). Never throws.
    static void discard_moved(const Allocator& alloc, block b) noexcept { deallocate(alloc, b); }

    /// Sets the fingerprint of position pos (blocks with parallel fingerprints). Never throws.
    void set_fingerprint(size_type pos, fingerprint_type fp) noexcept { fingerprints()[pos] = fp; }

    /// Checks the block's own invariants: refs in range and distinct, live units + garbage ==
    /// used, sizes within capacity. For tests and debugging; O(size * log size).
    bool validate() const noexcept {
        if (!h_ || h_->size > h_->capacity || h_->used > h_->area) return false;
        size_type live = 0;
        std::uint64_t seen[(max_area + 64) / 64] = {};  // 8 KB, one bit per ref: refs are distinct
        for (size_type i = 0; i < size(); ++i) {
            const ref_type r = ref(i);
            const std::uint64_t bit = std::uint64_t{1} << (r % 64);
            if (r >= h_->used || (seen[r / 64] & bit) != 0) return false;
            seen[r / 64] |= bit;
            const size_type u = record_units(r);
            if (size_type{r} + u > h_->used) return false;
            live += u;
        }
        if (live + h_->garbage != h_->used) return false;
        if (has_table() && (h_->capacity > bucket_table::max_positions ||
                            size_type{h_->table_at} * 2 != table_offset(h_->capacity, h_->area) ||
                            !table().validate(size())))
            return false;
        size_type in_holes = 0, count = 0;
        for (ref_type h = h_->holes; h != no_hole; h = next_hole(h)) {
            if (h >= h_->used || ++count > h_->used) return false;
            in_holes += hole_units(h);
        }
        return in_holes <= h_->garbage;
    }

private:
    /// Gives `to` (empty of lookup entries, at least old's capacity) old's member lookup. A
    /// table block grown into parallel fingerprints keeps the table's 12 bits a fingerprint
    /// (the set re-fingerprints it: set_engine::make_listpack_room).
    static void copy_lookup(block old, block to) noexcept {
        const size_type n = old.size();
        if (!old.fingerprinted() || !to.fingerprinted()) return;
        if (old.has_table() && to.has_table()) {
            old.table().copy_to(to.table(), n);
        } else if (old.has_table()) {
            old.table().fingerprints_by_position(to.fingerprints());
        } else if (to.has_table()) {
            for (size_type i = 0; i < n; ++i) to.table().insert(i, i, old.fingerprints()[i]);
        } else {
            std::memcpy(to.fingerprints(), old.fingerprints(), n * sizeof(fingerprint_type));
        }
    }

    /// Copies the byte-string record of `units` units at src's `from` to dst's `to`, at the end
    /// of dst's used area: records of up to 32 bytes in one fixed-size copy (a call to memcpy
    /// for each record's own length would cost a split more than the copies), which may write
    /// past the record into dst's unused area and read past it within src's allocation.
    static void copy_record(block src, ref_type from, block dst, ref_type to,
                            size_type units) noexcept {
        constexpr size_type wide = 32;
        const unsigned char* s = src.record(from);
        unsigned char* d = dst.record(to);
        const bool room =
            size_type{to} + wide <= dst.area() && s + wide <= src.base() + src.allocated_bytes();
        if (units <= wide && room)
            std::memcpy(d, s, wide);
        else
            std::memcpy(d, s, units);
    }

    Member* member_ptr(ref_type r) const noexcept {
        return reinterpret_cast<Member*>(record(r) + member_offset);
    }

    static void deallocate(const Allocator& alloc, block b) noexcept {
        unit_allocator ua(alloc);
        unit_traits::deallocate(ua, reinterpret_cast<unit*>(b.h_), b.h_->units);
    }

    /// Frees what a live record owns (its out-of-line bytes or its member object).
    void release_record(const Allocator& alloc, ref_type r) noexcept {
        if constexpr (bytes) {
            const unsigned char* p = record(r) + sizeof(Score);
            if (*p != long_length) return;
            const view m = member_of(r);
            char_allocator ca(alloc);
            char_traits::deallocate(ca, const_cast<char*>(m.data()), m.size());
        } else {
            (void)alloc;
            member_ptr(r)->~Member();
        }
    }

    /// Removes positions [first, last) whose records were released or moved away: their units
    /// become garbage (or shrink `used` when a record ends it). Never throws.
    void forget(size_type first, size_type last, size_type entry = npos) noexcept {
        if (first >= last) return;
        for (size_type i = first; i < last; ++i) {
            const ref_type r = ref(i);
            const size_type u = record_units(r);
            if (size_type{r} + u == h_->used) {
                h_->used = r;
            } else {
                h_->garbage = static_cast<std::uint16_t>(h_->garbage + u);
                set_hole(r, h_->holes, u);
                h_->holes = r;
            }
        }
        const size_type n = size();
        std::uint16_t* o = order();
        std::memmove(o + first, o + last, (n - last) * sizeof *o);
        if (has_table()) {
            if (last == first + 1)
                table().erase_one(n, first, entry);
            else
                table().erase_range(first, last);
        } else if (fingerprinted()) {
            fingerprint_type* f = fingerprints();
            std::memmove(f + first, f + last, (n - last) * sizeof *f);
        }
        h_->size = static_cast<std::uint16_t>(n - (last - first));
        if (h_->size == 0) {  // nothing live: the whole area is free again
            h_->used = 0;
            h_->garbage = 0;
            h_->holes = no_hole;
        }
    }
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_BLOCK_HPP
