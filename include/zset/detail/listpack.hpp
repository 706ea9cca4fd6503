// zset::detail::block — a small sorted run of (score, member) elements in one allocation.
//
// A block is the listpack of zset: a whole sorted set in listpack mode is a single block, and in
// skiplist mode every skiplist node owns one block of up to `block_max_entries` elements. One
// format for both means conversion is a matter of splitting blocks, and iteration, range and rank
// code is shared by both encodings.
//
// Layout of one allocation (capacity = element slots, heap_capacity = member bytes):
//
//   byte strings: [header][fingerprints: u8 x cap][lengths: u8 x cap][scores: Score x cap][heap]
//   other types:  [header][fingerprints: u8 x cap][scores: Score x cap][members: Member x cap]
//
// Members are stored in one of two ways:
//   * byte strings (Member = std::string): a length byte per element and a heap of the member
//     bytes concatenated in element order. A member of 255 bytes or more has length byte
//     255 and a 4-byte length in front of its bytes. The offset of element i is the sum of the
//     lengths before it (summed 16 at a time with SSE2), so an element costs
//     sizeof(Score) + 2 bytes + its bytes: 23 bytes for a 13-byte member and a double.
//   * any other Member: an array of Member objects (moved on insert and erase; their move
//     constructor must not throw).
// Scores live in their own array so that binary search by score touches only a few cache lines,
// and fingerprints (8 bits of the member hash) let a member lookup skip non-matching elements
// 16 at a time.
//
// Blocks never shrink on erase: an erase never allocates, which the container's strong exception
// guarantee relies on. Growing reallocates into a new block (capacity + 1/16 slack).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define ZSET_DETAIL_SSE2 1
#endif

#include "../common.hpp"

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

/// Bytes a block keeps readable past each of its byte arrays, so the SIMD loops below may load
/// a whole 16-byte chunk at the end of an array.
inline constexpr std::size_t simd_slack = 16;

/// Index of the lowest set bit of a non-zero mask.
inline std::size_t lowest_bit(unsigned mask) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<std::size_t>(__builtin_ctz(mask));
#else
    std::size_t i = 0;
    while ((mask & 1u) == 0) {
        mask >>= 1;
        ++i;
    }
    return i;
#endif
}

#ifdef ZSET_DETAIL_SSE2
/// Lanes [0, n) set, for n in [0, 16].
inline __m128i first_lanes(std::size_t n) noexcept {
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_cmplt_epi8(iota, _mm_set1_epi8(static_cast<char>(n)));
}
#endif

/// Calls visit(i) for each i in [0, n) with bytes[i] == value, in order, until visit returns
/// true (then returns true). 32 positions per branch, then 16; reads up to simd_slack bytes
/// past n.
template <class Visit>
inline bool for_each_byte_match(const std::uint8_t* bytes, std::size_t n, std::uint8_t value,
                                Visit&& visit) {
#ifdef ZSET_DETAIL_SSE2
    const __m128i needle = _mm_set1_epi8(static_cast<char>(value));
    const auto matches = [&](std::size_t at) {
        return _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + at)),
                              needle);
    };
    const auto visit_mask = [&](std::size_t base, unsigned mask) {
        for (; mask != 0; mask &= mask - 1)
            if (visit(base + lowest_bit(mask))) return true;
        return false;
    };
    std::size_t i = 0;
    // A miss scans the whole block: testing two chunks per branch halves that scan's branches.
    for (; i + 32 <= n; i += 32) {
        const auto low = static_cast<unsigned>(_mm_movemask_epi8(matches(i)));
        const auto high = static_cast<unsigned>(_mm_movemask_epi8(matches(i + 16)));
        if (visit_mask(i, low | (high << 16))) return true;
    }
    for (; i < n; i += 16) {
        __m128i hits = matches(i);
        if (n - i < 16) hits = _mm_and_si128(hits, first_lanes(n - i));
        if (visit_mask(i, static_cast<unsigned>(_mm_movemask_epi8(hits)))) return true;
    }
    return false;
#else
    for (std::size_t i = 0; i < n; ++i)
        if (bytes[i] == value && visit(i)) return true;
    return false;
#endif
}

/// Sum of n bytes (the byte offset of element n when no member is long). Reads up to
/// simd_slack bytes past n.
inline std::size_t sum_bytes(const std::uint8_t* bytes, std::size_t n) noexcept {
#ifdef ZSET_DETAIL_SSE2
    __m128i acc = _mm_setzero_si128();
    for (std::size_t i = 0; i < n; i += 16) {
        __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
        if (n - i < 16) chunk = _mm_and_si128(chunk, first_lanes(n - i));
        acc = _mm_add_epi64(acc, _mm_sad_epu8(chunk, _mm_setzero_si128()));
    }
    return static_cast<std::size_t>(_mm_cvtsi128_si32(acc)) +
           static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_srli_si128(acc, 8)));
#else
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += bytes[i];
    return total;
#endif
}

template <class Score, class Member, class Allocator>
class block {
public:
    static constexpr bool bytes = is_byte_string_v<Member>;
    using view = member_view_t<Member>;
    using size_type = std::size_t;
    static constexpr std::uint8_t long_length = 255;  // length byte of a member >= 255 bytes
    static constexpr size_type npos = ~size_type{0};

    static_assert(bytes || (std::is_nothrow_move_constructible_v<Member> &&
                            std::is_nothrow_move_assignable_v<Member>),
                  "zset: a non-string Member must be nothrow movable");

private:
    struct header {
        void* owner;  // the skiplist node that holds this block (lookups come in by block)
        std::uint32_t size;
        std::uint32_t capacity;
        std::uint32_t heap_used;
        std::uint32_t heap_capacity;
        std::uint32_t long_members;
        std::uint32_t units;  // allocation size in units
    };
    struct alignas(std::max_align_t) unit {
        unsigned char raw[alignof(std::max_align_t)];
    };
    using unit_traits = typename std::allocator_traits<Allocator>::template rebind_traits<unit>;
    using unit_allocator = typename unit_traits::allocator_type;

    static constexpr size_type align_up(size_type n, size_type a) noexcept {
        return (n + a - 1) / a * a;
    }
    // Metadata first: a member lookup reads the header, the fingerprints and the lengths,
    // which are then one run of adjacent cache lines; scores and member bytes follow.
    static constexpr size_type fingerprints_offset = sizeof(header);
    static size_type lengths_offset(size_type cap) noexcept { return fingerprints_offset + cap; }
    static size_type scores_offset(size_type cap) noexcept {
        return align_up(fingerprints_offset + cap * (bytes ? 2 : 1), alignof(Score));
    }
    static size_type scores_end(size_type cap) noexcept {
        return scores_offset(cap) + cap * sizeof(Score);
    }
    static size_type heap_offset(size_type cap) noexcept { return scores_end(cap); }
    static size_type members_offset(size_type cap) noexcept {
        return align_up(scores_end(cap), alignof(Member));
    }
    static size_type total_bytes(size_type cap, size_type heap_cap) noexcept {
        // simd_slack keeps a 16-byte load at the end of the fingerprint / length arrays inside
        // the allocation whatever follows them
        if constexpr (bytes)
            return heap_offset(cap) + heap_cap + simd_slack;
        else
            return members_offset(cap) + cap * sizeof(Member) + simd_slack;
    }

    header* h_;

    explicit block(header* h) noexcept : h_(h) {}
    unsigned char* base() const noexcept { return reinterpret_cast<unsigned char*>(h_); }

public:
    block() noexcept : h_(nullptr) {}
    static block from_raw(void* p) noexcept { return block(static_cast<header*>(p)); }
    void* raw() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != nullptr; }
    friend bool operator==(block a, block b) noexcept { return a.h_ == b.h_; }
    friend bool operator!=(block a, block b) noexcept { return a.h_ != b.h_; }

    // ---- allocation ---------------------------------------------------------------------

    /// Allocates an empty block. Throws std::bad_alloc / std::length_error; allocates nothing
    /// else.
    static block create(const Allocator& alloc, size_type cap, size_type heap_cap) {
        if (cap > 0xffffffffu || heap_cap > 0xffffffffu)
            raise_length_error("zset: block too large");
        unit_allocator ua(alloc);
        const size_type n_units = align_up(total_bytes(cap, heap_cap), sizeof(unit)) / sizeof(unit);
        unit* mem = unit_traits::allocate(ua, n_units);
        void* raw = mem;
        header* h = new (raw) header();
        h->capacity = static_cast<std::uint32_t>(cap);
        h->heap_capacity = static_cast<std::uint32_t>(heap_cap);
        h->units = static_cast<std::uint32_t>(n_units);
        return block(h);
    }

    static void destroy(const Allocator& alloc, block b) noexcept {
        if (!b) return;
        if constexpr (!bytes) {
            for (size_type i = 0; i < b.size(); ++i) b.member_ptr(i)->~Member();
        }
        unit_allocator ua(alloc);
        unit_traits::deallocate(ua, reinterpret_cast<unit*>(b.h_), b.h_->units);
    }

    size_type allocated_bytes() const noexcept { return size_type{h_->units} * sizeof(unit); }

    /// A new block holding this block's elements with room for `extra` more elements and
    /// `extra_heap` more member bytes (plus slack). The old block is destroyed on success only.
    static block regrow(const Allocator& alloc, block old, size_type extra, size_type extra_heap) {
        const size_type cap = grown(old.size() + extra);
        const size_type heap = bytes ? grown_heap(old.heap_used() + extra_heap) : 0;
        block fresh = create(alloc, cap, heap);
        fresh.set_owner(old.owner());
        old.move_range_to(0, old.size(), fresh);
        destroy(alloc, old);
        return fresh;
    }
    // Growth slack: 1/16 keeps a listpack-mode set near its exact size (like Redis's realloc
    // per insert) while a block is copied only every n/16 inserts.
    static size_type grown(size_type n) noexcept { return n + n / 16 + 2; }
    static size_type grown_heap(size_type n) noexcept { return n + n / 16 + 16; }

    // ---- observers ----------------------------------------------------------------------

    void* owner() const noexcept { return h_->owner; }
    void set_owner(void* o) noexcept { h_->owner = o; }
    size_type size() const noexcept { return h_->size; }
    bool empty() const noexcept { return h_->size == 0; }
    size_type capacity() const noexcept { return h_->capacity; }
    size_type heap_used() const noexcept { return h_->heap_used; }
    size_type heap_capacity() const noexcept { return h_->heap_capacity; }

    Score* scores() const noexcept {
        return reinterpret_cast<Score*>(base() + scores_offset(h_->capacity));
    }
    std::uint8_t* fingerprints() const noexcept {
        return reinterpret_cast<std::uint8_t*>(base() + fingerprints_offset);
    }
    Score score(size_type i) const noexcept { return scores()[i]; }
    void set_score(size_type i, Score s) noexcept { scores()[i] = s; }
    std::uint8_t fingerprint(size_type i) const noexcept { return fingerprints()[i]; }

    /// Bytes the member needs in the heap (0 for object members).
    static size_type heap_need(view m) noexcept {
        if constexpr (bytes)
            return m.size() < long_length ? m.size() : m.size() + 4;
        else
            return 0;
    }

    /// Heap offset of element i (byte strings), O(i/16).
    size_type offset_of(size_type i) const noexcept {
        if (h_->long_members == 0) return sum_bytes(lengths(), i);
        size_type off = 0;
        for (size_type k = 0; k < i; ++k) off += record_size_at(k, off);
        return off;
    }

    /// Heap bytes of element i whose record starts at heap offset `off`.
    size_type record_size_at(size_type i, size_type off) const noexcept {
        const std::uint8_t len = lengths()[i];
        if (len != long_length) return len;
        std::uint32_t n;
        std::memcpy(&n, heap() + off, 4);
        return size_type{n} + 4;
    }

    /// Heap offset of element i - 1 given the offset `off` of element i (i > 0).
    size_type prev_offset(size_type i, size_type off) const noexcept {
        const std::uint8_t len = lengths()[i - 1];
        return len != long_length ? off - len : offset_of(i - 1);
    }

    /// Index of the element with member `m` and score `s` (two copies of one member can sit in
    /// a block for a moment during a score update), or npos.
    template <class KeyEqual>
    size_type find_exact(view m, Score s, std::uint8_t fp, const KeyEqual& eq) const {
        size_type found = npos;
        for_each_byte_match(fingerprints(), size(), fp, [&](size_type i) {
            if (scores()[i] == s && eq(member(i), m)) {
                found = i;
                return true;
            }
            return false;
        });
        return found;
    }

    /// The member of element i given its heap offset (ignored for object members).
    view member_at(size_type i, size_type off) const noexcept {
        if constexpr (bytes) {
            const std::uint8_t len = lengths()[i];
            const char* p = reinterpret_cast<const char*>(heap() + off);
            if (len != long_length) return view(p, len);
            std::uint32_t n;
            std::memcpy(&n, p, 4);
            return view(p + 4, n);
        } else {
            (void)off;
            return *member_ptr(i);
        }
    }
    view member(size_type i) const noexcept {
        if constexpr (bytes)
            return member_at(i, offset_of(i));
        else
            return *member_ptr(i);
    }

    /// Would one more element with this member fit without reallocation?
    bool fits(view m) const noexcept {
        return h_->size < h_->capacity && h_->heap_used + heap_need(m) <= h_->heap_capacity;
    }

    // ---- searching ------------------------------------------------------------------------

    /// Index of `m` in this block, or npos. Compares only elements whose fingerprint matches.
    template <class KeyEqual>
    size_type find(view m, std::uint8_t fp, const KeyEqual& eq) const {
        size_type found = npos;
        for_each_byte_match(fingerprints(), size(), fp, [&](size_type i) {
            if constexpr (bytes) {
                // the length byte rules out most false fingerprint matches without locating
                // the member's bytes
                const std::uint8_t len = lengths()[i];
                if (len != long_length && len != m.size()) return false;
            }
            if (eq(member(i), m)) {
                found = i;
                return true;
            }
            return false;
        });
        return found;
    }

    /// First index whose (score, member) is not less than (s, m).
    template <class Compare>
    size_type lower_bound(Score s, view m, const Compare& less) const {
        const Score* sc = scores();
        size_type lo = 0, hi = size();
        while (lo < hi) {
            const size_type mid = lo + (hi - lo) / 2;
            if (sc[mid] < s || (!(s < sc[mid]) && less(member(mid), m)))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    /// First index i for which `goes_after(i)` is false, assuming it is true then false.
    template <class Pred>
    size_type partition_point(Pred&& goes_before) const {
        size_type lo = 0, hi = size();
        while (lo < hi) {
            const size_type mid = lo + (hi - lo) / 2;
            if (goes_before(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    // ---- modifiers (never allocate) --------------------------------------------------------

    /// Inserts at index i. Precondition: fits(m). noexcept for byte strings; for object members
    /// the copy of `m` may throw, in which case nothing changes.
    void insert(size_type i, Score s, view m, std::uint8_t fp) {
        const size_type n = size();
        if constexpr (bytes) {
            const size_type off = offset_of(i);
            const size_type need = heap_need(m);
            unsigned char* hp = heap();
            std::memmove(hp + off + need, hp + off, h_->heap_used - off);
            if (m.size() < long_length) {
                if (!m.empty()) std::memcpy(hp + off, m.data(), m.size());
            } else {
                const auto len32 = static_cast<std::uint32_t>(m.size());
                std::memcpy(hp + off, &len32, 4);
                std::memcpy(hp + off + 4, m.data(), m.size());
                ++h_->long_members;
            }
            h_->heap_used += static_cast<std::uint32_t>(need);
            std::uint8_t* len = lengths();
            std::memmove(len + i + 1, len + i, n - i);
            len[i] = m.size() < long_length ? static_cast<std::uint8_t>(m.size()) : long_length;
        } else {
            insert_object(i, s, Member(m), fp);  // the copy may throw before anything moves
            return;
        }
        shift_in(i, s, fp);
    }

    /// Inserts a member object at index i by move. Precondition: fits(). Never throws.
    void insert_object(size_type i, Score s, Member&& m, std::uint8_t fp) noexcept {
        static_assert(!bytes, "byte-string blocks store views");
        const size_type n = size();
        {
            Member& copy = m;
            Member* arr = member_ptr(0);
            if (i == n) {
                ::new (static_cast<void*>(arr + n)) Member(std::move(copy));
            } else {
                ::new (static_cast<void*>(arr + n)) Member(std::move(arr[n - 1]));
                for (size_type k = n - 1; k > i; --k) arr[k] = std::move(arr[k - 1]);
                arr[i] = std::move(copy);
            }
        }
        shift_in(i, s, fp);
    }

private:
    // Opens index i in the score and fingerprint arrays and counts the new element.
    void shift_in(size_type i, Score s, std::uint8_t fp) noexcept {
        const size_type n = size();
        Score* sc = scores();
        std::memmove(static_cast<void*>(sc + i + 1), sc + i, (n - i) * sizeof(Score));
        sc[i] = s;
        std::uint8_t* f = fingerprints();
        std::memmove(f + i + 1, f + i, n - i);
        f[i] = fp;
        ++h_->size;
    }

public:
    /// Removes element i. Never allocates, never throws.
    void erase(size_type i) noexcept { erase_range(i, i + 1); }

    /// Removes elements [first, last).
    void erase_range(size_type first, size_type last) noexcept {
        if (first >= last) return;
        const size_type n = size();
        const size_type count = last - first;
        if constexpr (bytes) {
            const size_type off = offset_of(first);
            size_type end = off;
            for (size_type k = first; k < last; ++k) {
                if (lengths()[k] == long_length) --h_->long_members;
                end += record_size_at(k, end);
            }
            unsigned char* hp = heap();
            std::memmove(hp + off, hp + end, h_->heap_used - end);
            h_->heap_used -= static_cast<std::uint32_t>(end - off);
            std::uint8_t* len = lengths();
            std::memmove(len + first, len + last, n - last);
        } else {
            Member* arr = member_ptr(0);
            for (size_type k = first; k + count < n; ++k) arr[k] = std::move(arr[k + count]);
            for (size_type k = n - count; k < n; ++k) arr[k].~Member();
        }
        Score* sc = scores();
        std::memmove(static_cast<void*>(sc + first), sc + last, (n - last) * sizeof(Score));
        std::uint8_t* f = fingerprints();
        std::memmove(f + first, f + last, n - last);
        h_->size -= static_cast<std::uint32_t>(count);
    }

    /// Appends elements [first, last) of this block to the end of `dst` and removes them here.
    /// Precondition: dst has room (capacity and heap). Never throws.
    void move_range_to(size_type first, size_type last, block dst) noexcept {
        if (first >= last) return;
        const size_type count = last - first;
        const size_type d = dst.size();
        std::memcpy(static_cast<void*>(dst.scores() + d), scores() + first, count * sizeof(Score));
        std::memcpy(dst.fingerprints() + d, fingerprints() + first, count);
        if constexpr (bytes) {
            const size_type off = offset_of(first);
            size_type end = off;
            std::uint32_t longs = 0;
            for (size_type k = first; k < last; ++k) {
                if (lengths()[k] == long_length) ++longs;
                end += record_size_at(k, end);
            }
            std::memcpy(dst.lengths() + d, lengths() + first, count);
            std::memcpy(dst.heap() + dst.h_->heap_used, heap() + off, end - off);
            dst.h_->heap_used += static_cast<std::uint32_t>(end - off);
            dst.h_->long_members += longs;
            dst.h_->size += static_cast<std::uint32_t>(count);
            // remove from this block
            h_->long_members -= longs;
            unsigned char* hp = heap();
            std::memmove(hp + off, hp + end, h_->heap_used - end);
            h_->heap_used -= static_cast<std::uint32_t>(end - off);
            std::uint8_t* len = lengths();
            std::memmove(len + first, len + last, size() - last);
        } else {
            Member* src = member_ptr(0);
            Member* out = dst.member_ptr(0);
            for (size_type k = 0; k < count; ++k)
                ::new (static_cast<void*>(out + d + k)) Member(std::move(src[first + k]));
            dst.h_->size += static_cast<std::uint32_t>(count);
            const size_type n = size();
            for (size_type k = first; k + count < n; ++k) src[k] = std::move(src[k + count]);
            for (size_type k = n - count; k < n; ++k) src[k].~Member();
        }
        const size_type n = size();
        Score* sc = scores();
        std::memmove(static_cast<void*>(sc + first), sc + last, (n - last) * sizeof(Score));
        std::uint8_t* f = fingerprints();
        std::memmove(f + first, f + last, n - last);
        h_->size -= static_cast<std::uint32_t>(count);
    }

    /// Moves element `from` to index `to` (indices before the move) with a new score, keeping
    /// every other element in order. Never allocates. Used for score updates inside one block.
    void relocate(size_type from, size_type to, Score s) noexcept {
        if constexpr (bytes) {
            const size_type off_from = offset_of(from);
            const size_type rec = record_size_at(from, off_from);
            unsigned char* hp = heap();
            if (to > from) {
                const size_type off_to = offset_of(to);  // end of the elements that shift left
                move_record(hp, off_from, rec, off_from + rec, off_to, off_to - rec);
            } else if (to < from) {
                const size_type off_to = offset_of(to);
                move_record(hp, off_from, rec, off_to, off_from, off_to);
            }
        } else {
            Member* arr = member_ptr(0);
            if (to > from)
                std::rotate(arr + from, arr + from + 1, arr + to);
            else if (to < from)
                std::rotate(arr + to, arr + from, arr + from + 1);
        }
        auto rotate_one = [&](auto* a) {
            if (to > from)
                std::rotate(a + from, a + from + 1, a + to);
            else if (to < from)
                std::rotate(a + to, a + from, a + from + 1);
        };
        if constexpr (bytes) rotate_one(lengths());
        rotate_one(fingerprints());
        rotate_one(scores());
        scores()[to > from ? to - 1 : to] = s;
    }

private:
    /// Moves the record at [at, at + rec) to `dest` after shifting [lo, hi) by rec towards the
    /// record's old place (lo/hi are the bytes between the two places; dest is where the record
    /// lands once they moved). A memmove through a stack buffer; records too long for it fall
    /// back to an in-place rotation.
    static void move_record(unsigned char* hp, size_type at, size_type rec, size_type lo,
                            size_type hi, size_type dest) noexcept {
        unsigned char buffer[long_length + 4];
        if (rec > sizeof buffer) {
            if (lo > at)
                std::rotate(hp + at, hp + lo, hp + hi);
            else
                std::rotate(hp + lo, hp + at, hp + at + rec);
            return;
        }
        std::memcpy(buffer, hp + at, rec);
        if (lo > at)
            std::memmove(hp + at, hp + lo, hi - lo);  // the bytes after the record slide back
        else
            std::memmove(hp + lo + rec, hp + lo, hi - lo);  // the bytes before it slide forward
        std::memcpy(hp + dest, buffer, rec);
    }

    std::uint8_t* lengths() const noexcept {
        return reinterpret_cast<std::uint8_t*>(base() + lengths_offset(h_->capacity));
    }
    unsigned char* heap() const noexcept { return base() + heap_offset(h_->capacity); }
    Member* member_ptr(size_type i) const noexcept {
        return reinterpret_cast<Member*>(base() + members_offset(h_->capacity)) + i;
    }
};

}  // namespace detail
}  // namespace zset
