// zset::detail::hash_index — the member index of a sorted set in skiplist mode.
//
// Layout: one array of 64-bit slots, open addressing with linear probing kept in Robin Hood
// order. A slot is `tag << 32 | block_id`: the tag is the high 32 bits of the member's hash and
// block_id names the skiplist block that holds the member (0 = empty slot). The member itself is
// never stored here: a lookup follows the block id and finds the member inside the block by its
// 8-bit fingerprint, so the index costs 8 bytes per slot and nothing more.
//
// The home slot is `tag * capacity >> 32` (a multiply, not a mask), so any capacity works and the
// table grows by 1.5x, which keeps the average load near 3/4. Homes are monotone in the tag, which
// gives two properties used elsewhere: growth never re-hashes a member (the tag is enough), and
// entries whose tags fall in [t0, t1) sit in one contiguous run of slots, which is what makes the
// ZSCAN cursor (a tag) stable while the table grows or shrinks.
//
// Deletion shifts the following run back by one (no tombstones), so probe lengths only depend on
// the current load. Equal slots (same tag, same block) are interchangeable: two members whose
// 32-bit tags collide and that share a block are told apart inside the block.
#pragma once

#include <cstddef>
#include <cstdint>
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

public:
    using size_type = std::size_t;

    explicit hash_index(const Allocator& alloc = Allocator()) noexcept : alloc_(alloc) {}
    hash_index(const hash_index&) = delete;
    hash_index& operator=(const hash_index&) = delete;
    hash_index(hash_index&& other) noexcept
        : alloc_(std::move(other.alloc_)),
          slots_(std::exchange(other.slots_, nullptr)),
          capacity_(std::exchange(other.capacity_, 0)),
          size_(std::exchange(other.size_, 0)) {}
    ~hash_index() { release(); }

    /// Frees the table. Used when the set converts back to listpack mode.
    void release() noexcept {
        if (slots_ != nullptr) alloc_traits::deallocate(alloc_, slots_, capacity_);
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
    size_type memory_usage() const noexcept { return capacity_ * sizeof(slot_type); }

    static std::uint32_t tag_of(std::uint64_t hash) noexcept {
        return static_cast<std::uint32_t>(hash >> 32);
    }

    /// Makes room for `n` entries without further growth. Strong guarantee.
    void reserve(size_type n) {
        if (n <= max_load(capacity_)) return;
        size_type cap = capacity_ < 16 ? 16 : capacity_;
        while (max_load(cap) < n) cap += cap / 2;
        rehash(cap);
    }

    /// Calls `is_member(block_id)` for every entry with this tag until it returns true; returns
    /// that block id, or 0. Expected O(1).
    template <class IsMember>
    std::uint32_t find(std::uint32_t tag, IsMember&& is_member) const {
        if (size_ == 0) return 0;
        size_type pos = home(tag);
        for (size_type dist = 0;; ++dist) {
            const slot_type s = slots_[pos];
            if (s == 0 || distance(pos, s) < dist) return 0;
            if (slot_tag(s) == tag && is_member(slot_id(s))) return slot_id(s);
            if (++pos == capacity_) pos = 0;
        }
    }

    /// Adds an entry; the caller guarantees the member is absent. Strong guarantee (grows first).
    void insert(std::uint32_t tag, std::uint32_t id) {
        reserve(size_ + 1);
        place(make_slot(tag, id));
        ++size_;
    }

    /// Removes one entry equal to (tag, id). Never allocates. Returns false if none exists.
    bool erase(std::uint32_t tag, std::uint32_t id) noexcept {
        const size_type pos = locate(make_slot(tag, id));
        if (pos == npos) return false;
        shift_back(pos);
        --size_;
        return true;
    }

    /// Re-points one entry (tag, from) to (tag, to): the member moved between blocks.
    bool replace(std::uint32_t tag, std::uint32_t from, std::uint32_t to) noexcept {
        const size_type pos = locate(make_slot(tag, from));
        if (pos == npos) return false;
        slots_[pos] = make_slot(tag, to);
        return true;
    }

    /// Calls `visit(tag, id)` for every entry whose tag lies in [first, last], inclusive.
    /// Each such entry is visited exactly once, whatever the capacity.
    template <class Visit>
    void for_each_in_tag_range(std::uint32_t first, std::uint32_t last, Visit&& visit) const {
        if (size_ == 0) return;
        size_type pos = home(first);
        const size_type last_home = home(last);
        bool past_last_home = false;
        for (size_type steps = 0; steps < capacity_; ++steps) {
            const slot_type s = slots_[pos];
            if (s == 0) {
                if (past_last_home) return;
            } else {
                const std::uint32_t t = slot_tag(s);
                if (t >= first && t <= last) visit(t, slot_id(s));
            }
            if (pos == last_home) past_last_home = true;
            if (++pos == capacity_) pos = 0;
        }
    }

    /// Calls `visit(tag, id)` for every entry.
    template <class Visit>
    void for_each(Visit&& visit) const {
        for (size_type i = 0; i < capacity_; ++i)
            if (slots_[i] != 0) visit(slot_tag(slots_[i]), slot_id(slots_[i]));
    }

private:
    static constexpr size_type npos = ~size_type{0};

    static slot_type make_slot(std::uint32_t tag, std::uint32_t id) noexcept {
        return (slot_type{tag} << 32) | id;
    }
    static std::uint32_t slot_tag(slot_type s) noexcept { return static_cast<std::uint32_t>(s >> 32); }
    static std::uint32_t slot_id(slot_type s) noexcept { return static_cast<std::uint32_t>(s); }
    static size_type max_load(size_type cap) noexcept { return cap - cap / 8; }

    size_type home(std::uint32_t tag) const noexcept {
        return static_cast<size_type>((std::uint64_t{tag} * capacity_) >> 32);
    }
    size_type distance(size_type pos, slot_type s) const noexcept {
        const size_type h = home(slot_tag(s));
        return pos >= h ? pos - h : pos + capacity_ - h;
    }

    size_type locate(slot_type wanted) const noexcept {
        if (size_ == 0) return npos;
        size_type pos = home(slot_tag(wanted));
        for (size_type dist = 0;; ++dist) {
            const slot_type s = slots_[pos];
            if (s == 0 || distance(pos, s) < dist) return npos;
            if (s == wanted) return pos;
            if (++pos == capacity_) pos = 0;
        }
    }

    void place(slot_type s) noexcept {
        size_type pos = home(slot_tag(s));
        for (size_type dist = 0;; ++dist) {
            slot_type& here = slots_[pos];
            if (here == 0) {
                here = s;
                return;
            }
            const size_type d = distance(pos, here);
            if (d < dist) {
                std::swap(here, s);
                dist = d;
            }
            if (++pos == capacity_) pos = 0;
        }
    }

    void shift_back(size_type pos) noexcept {
        for (;;) {
            size_type next = pos + 1 == capacity_ ? 0 : pos + 1;
            const slot_type s = slots_[next];
            if (s == 0 || distance(next, s) == 0) break;
            slots_[pos] = s;
            pos = next;
        }
        slots_[pos] = 0;
    }

    void rehash(size_type new_capacity) {
        slot_type* fresh = alloc_traits::allocate(alloc_, new_capacity);
        for (size_type i = 0; i < new_capacity; ++i) fresh[i] = 0;
        slot_type* old = std::exchange(slots_, fresh);
        const size_type old_capacity = std::exchange(capacity_, new_capacity);
        for (size_type i = 0; i < old_capacity; ++i)
            if (old[i] != 0) place(old[i]);
        if (old != nullptr) alloc_traits::deallocate(alloc_, old, old_capacity);
    }

    slot_allocator alloc_;
    slot_type* slots_ = nullptr;
    size_type capacity_ = 0;
    size_type size_ = 0;
};

}  // namespace detail
}  // namespace zset
