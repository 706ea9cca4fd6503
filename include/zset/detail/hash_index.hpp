// zset::detail::hash_index — the member index of a sorted set in skiplist mode.
//
// Layout: one array of 64-bit slots, `tag << 32 | block_id`, where the tag is the high 32 bits
// of the member's hash and block_id names the skiplist block that holds the member (0 = empty
// slot). The member itself is never stored here: a lookup follows the block id and finds the
// member inside the block by its 8-bit fingerprint, so the index costs 8 bytes per slot.
//
// Placement is linear probing from the home slot `tag * capacity >> 32` (a multiply, not a
// mask, so any capacity works and the table grows by 1.5x), with every run of occupied slots kept
// sorted by tag. Because the home is monotone in the tag, sorted runs are exactly Robin Hood
// order, and they buy three things:
//   * a probe compares tags only: it stops at the first larger tag or an empty slot;
//   * growth is one sequential pass (entries are already in order; no member is re-hashed);
//   * the entries whose tags lie in [t0, t1] are one contiguous stretch, which is what makes the
//     ZSCAN cursor (a tag) exact while the table grows or shrinks.
// Runs never wrap around: `overflow` extra slots follow the last home slot, and an insertion
// that would run past them grows the table instead. Deletion shifts the rest of the run back
// (no tombstones). Equal slots (same tag, same block) are interchangeable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

namespace zset {
namespace detail {

template <class Allocator>
class hash_index {
    using slot_type = std::uint64_t;
    using alloc_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<slot_type>;
    using slot_allocator = typename alloc_traits::allocator_type;
    static constexpr std::size_t overflow = 64;  // slots after the last home slot
    // ...plus one sentinel slot that always stays empty, so every probe loop ends on a zero.
    static constexpr std::size_t extra = overflow + 1;

public:
    using size_type = std::size_t;

    explicit hash_index(const Allocator& alloc = Allocator()) noexcept : alloc_(alloc) {}
    hash_index(const hash_index&) = delete;
    hash_index& operator=(const hash_index&) = delete;
    hash_index(hash_index&& other) noexcept
        : alloc_(std::move(other.alloc_)), slots_(std::exchange(other.slots_, nullptr)),
          capacity_(std::exchange(other.capacity_, 0)), size_(std::exchange(other.size_, 0)) {}
    ~hash_index() { release(); }

    /// Frees the table. Used when the set returns to listpack mode.
    void release() noexcept {
        if (slots_ != nullptr) alloc_traits::deallocate(alloc_, slots_, capacity_ + extra);
        slots_ = nullptr;
        capacity_ = 0;
        size_ = 0;
    }

    void swap(hash_index& other) noexcept {
        using std::swap;
        swap(slots_, other.slots_);
        swap(capacity_, other.capacity_);
        swap(size_, other.size_);
    }
    /// Replaces the allocator; the table must be released first.
    void set_allocator(const Allocator& a) noexcept { alloc_ = slot_allocator(a); }
    void swap_allocators(hash_index& other) noexcept {
        using std::swap;
        swap(alloc_, other.alloc_);
    }

    size_type size() const noexcept { return size_; }
    size_type capacity() const noexcept { return capacity_; }
    size_type memory_usage() const noexcept {
        return slots_ == nullptr ? 0 : (capacity_ + extra) * sizeof(slot_type);
    }

    static std::uint32_t tag_of(std::uint64_t hash) noexcept {
        return static_cast<std::uint32_t>(hash >> 32);
    }

    /// Makes room for `n` entries without further growth (barring a run overflowing, which
    /// insert handles). Strong guarantee.
    void reserve(size_type n) {
        if (n <= max_load(capacity_)) return;
        size_type cap = capacity_ < 16 ? 16 : capacity_;
        while (max_load(cap) < n) cap += cap / 2;
        rehash(cap);
    }

    /// Calls `is_member(block_id)` for every entry with this tag until it returns true; returns
    /// that block id, or 0. Expected O(1): a few tag comparisons in one cache line.
    template <class IsMember>
    std::uint32_t find(std::uint32_t tag, IsMember&& is_member) const {
        if (size_ == 0) return 0;
        const slot_type* s = slots_ + home(tag);
        while (*s != 0 && slot_tag(*s) < tag) ++s;
        for (; *s != 0 && slot_tag(*s) == tag; ++s)
            if (is_member(slot_id(*s))) return slot_id(*s);
        return 0;
    }

    /// Adds an entry; the caller guarantees the member is absent. Strong guarantee (grows
    /// first when needed).
    void insert(std::uint32_t tag, std::uint32_t id) {
        reserve(size_ + 1);
        while (!try_place(make_slot(tag, id))) rehash(capacity_ + capacity_ / 2);
        ++size_;
    }

    /// Removes one entry equal to (tag, id). Never allocates. Returns false if none exists.
    bool erase(std::uint32_t tag, std::uint32_t id) noexcept {
        slot_type* s = locate(make_slot(tag, id));
        if (s == nullptr) return false;
        // shift the rest of the run back while its entries sit past their home
        slot_type* end = slots_ + capacity_ + overflow;
        slot_type* next = s + 1;
        while (next != end && *next != 0 &&
               home(slot_tag(*next)) < static_cast<size_type>(next - slots_)) {
            *(next - 1) = *next;
            ++next;
        }
        *(next - 1) = 0;
        --size_;
        return true;
    }

    /// Re-points one entry (tag, from) to (tag, to): the member moved between blocks.
    bool replace(std::uint32_t tag, std::uint32_t from, std::uint32_t to) noexcept {
        slot_type* s = locate(make_slot(tag, from));
        if (s == nullptr) return false;
        *s = make_slot(tag, to);
        return true;
    }

    /// Calls `visit(tag, id)` once for every entry whose tag lies in [first, last].
    template <class Visit>
    void for_each_in_tag_range(std::uint32_t first, std::uint32_t last, Visit&& visit) const {
        if (size_ == 0) return;
        const slot_type* end = slots_ + capacity_ + overflow;
        for (const slot_type* s = slots_ + home(first); s != end; ++s) {
            if (*s == 0) {
                if (static_cast<size_type>(s - slots_) > home(last)) return;
                continue;
            }
            const std::uint32_t t = slot_tag(*s);
            if (t > last) return;
            if (t >= first) visit(t, slot_id(*s));
        }
    }

    /// Calls `visit(tag, id)` for every entry.
    template <class Visit>
    void for_each(Visit&& visit) const {
        for (size_type i = 0; slots_ != nullptr && i < capacity_ + overflow; ++i)
            if (slots_[i] != 0) visit(slot_tag(slots_[i]), slot_id(slots_[i]));
    }

    /// Checks that every run is sorted and every entry sits at or after its home.
    bool validate() const noexcept {
        size_type count = 0;
        for (size_type i = 0; slots_ != nullptr && i < capacity_ + overflow; ++i) {
            if (slots_[i] == 0) continue;
            ++count;
            if (home(slot_tag(slots_[i])) > i) return false;
            if (i > 0 && slots_[i - 1] != 0 && slot_tag(slots_[i - 1]) > slot_tag(slots_[i]))
                return false;
        }
        return count == size_;
    }

private:
    static slot_type make_slot(std::uint32_t tag, std::uint32_t id) noexcept {
        return (slot_type{tag} << 32) | id;
    }
    static std::uint32_t slot_tag(slot_type s) noexcept {
        return static_cast<std::uint32_t>(s >> 32);
    }
    static std::uint32_t slot_id(slot_type s) noexcept { return static_cast<std::uint32_t>(s); }
    static size_type max_load(size_type cap) noexcept { return cap - cap / 8; }

    size_type home(std::uint32_t tag) const noexcept {
        return static_cast<size_type>((std::uint64_t{tag} * capacity_) >> 32);
    }

    slot_type* locate(slot_type wanted) const noexcept {
        if (size_ == 0) return nullptr;
        const std::uint32_t tag = slot_tag(wanted);
        slot_type* s = slots_ + home(tag);
        while (*s != 0 && slot_tag(*s) < tag) ++s;
        for (; *s != 0 && slot_tag(*s) == tag; ++s)
            if (*s == wanted) return s;
        return nullptr;
    }

    /// Puts s in tag order into its run; false if the run would pass the overflow area.
    bool try_place(slot_type v) noexcept {
        const std::uint32_t tag = slot_tag(v);
        slot_type* end = slots_ + capacity_ + overflow;
        slot_type* s = slots_ + home(tag);
        while (s != end && *s != 0 && slot_tag(*s) <= tag) ++s;
        slot_type* hole = s;
        while (hole != end && *hole != 0) ++hole;
        if (hole == end) return false;
        std::memmove(s + 1, s, static_cast<size_type>(hole - s) * sizeof(slot_type));
        *s = v;
        return true;
    }

    /// Moves every entry to a table of `new_capacity` home slots in one ordered pass.
    void rehash(size_type new_capacity) {
        for (;;) {
            slot_type* fresh = alloc_traits::allocate(alloc_, new_capacity + extra);
            for (size_type i = 0; i < new_capacity + extra; ++i) fresh[i] = 0;
            // entries are in tag order already (runs are sorted and homes are monotone), so
            // each lands at max(its home, one past the previous entry)
            size_type next = 0;
            bool fits = true;
            for (size_type i = 0; slots_ != nullptr && i < capacity_ + overflow && fits; ++i) {
                if (slots_[i] == 0) continue;
                const size_type h = static_cast<size_type>(
                    (std::uint64_t{slot_tag(slots_[i])} * new_capacity) >> 32);
                const size_type at = h > next ? h : next;
                if (at >= new_capacity + overflow) {
                    fits = false;
                    break;
                }
                fresh[at] = slots_[i];
                next = at + 1;
            }
            if (!fits) {
                alloc_traits::deallocate(alloc_, fresh, new_capacity + extra);
                new_capacity += new_capacity / 2;
                continue;
            }
            if (slots_ != nullptr) alloc_traits::deallocate(alloc_, slots_, capacity_ + extra);
            slots_ = fresh;
            capacity_ = new_capacity;
            return;
        }
    }

    slot_allocator alloc_;
    slot_type* slots_ = nullptr;
    size_type capacity_ = 0;
    size_type size_ = 0;
};

}  // namespace detail
}  // namespace zset
