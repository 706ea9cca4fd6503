// zset::detail::skiplist — a span-annotated skiplist whose nodes own blocks of elements.
//
// Every node holds one block (see listpack.hpp) of up to `max_entries` elements in
// (score, member) order; nodes are linked in a skiplist of random height (p = 1/4, at most 32
// levels, as Redis). Each forward link carries a span: the number of elements from the start of
// its node to the start of the node it points at (a null link: to the end of the set). Summing
// spans along a search path gives ranks, so rank, nth and range-by-rank are O(log n), while a run
// of elements is contiguous memory (B-tree-like locality, ~1/100 the pointers of a
// node-per-element skiplist).
//
// Level 0 is circular through the head sentinel (last->next[0] == head, head->prev == last), so an
// iterator is just (node, index) and end() is (head, 0). Higher levels end in nullptr.
//
// Nodes are also registered in an id table: the hash index stores 32-bit node ids rather than
// pointers, which halves its slots. Ids are recycled through a free list threaded through the
// table itself, so releasing an id never allocates.
//
// Exception safety: every structural operation allocates what it needs first (block, node, id
// slot) and only then rewires links; the rewiring never throws. An erase never allocates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include "../common.hpp"
#include "listpack.hpp"

namespace zset {
namespace detail {

/// A hint to start loading the cache line at p (any address, even null: never faults).
inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

template <class Score, class Member, class Allocator>
class skiplist {
public:
    using block_type = block<Score, Member, Allocator>;
    using view = typename block_type::view;
    using size_type = std::size_t;
    static constexpr int max_level = 32;

    struct node;
    struct link {
        node* next;
        size_type span;
    };
    struct alignas(link) node {
        block_type data{};
        node* prev = nullptr;
        Score first_score{};  // data.score(0), kept here so a search step reads only this node
        std::uint32_t id = 0;
        std::uint8_t height = 0;
        link* links() noexcept {
            return reinterpret_cast<link*>(reinterpret_cast<unsigned char*>(this) + sizeof(node));
        }
        const link* links() const noexcept {
            return reinterpret_cast<const link*>(reinterpret_cast<const unsigned char*>(this) +
                                                 sizeof(node));
        }
        node* next(int level) const noexcept { return links()[level].next; }
        size_type size() const noexcept { return data ? data.size() : 0; }
    };
    static_assert(sizeof(node) % alignof(link) == 0, "links follow the node header");

    /// A search result: per level, the last node visited and the rank of its first element.
    struct path {
        node* at[max_level];
        size_type rank[max_level];
    };

private:
    using link_traits = typename std::allocator_traits<Allocator>::template rebind_traits<link>;
    using link_allocator = typename link_traits::allocator_type;
    using id_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<std::uintptr_t>;
    using id_allocator = typename id_traits::allocator_type;

public:
    explicit skiplist(const Allocator& alloc = Allocator()) noexcept : alloc_(alloc) {}
    skiplist(const skiplist&) = delete;
    skiplist& operator=(const skiplist&) = delete;
    ~skiplist() {
        clear();
        release_ids();
    }

    /// Takes over other's nodes; other becomes empty. Never throws.
    void steal(skiplist& other) noexcept {
        clear();
        release_ids();
        head_ = std::exchange(other.head_, nullptr);
        head_height_ = std::exchange(other.head_height_, 0);
        level_ = std::exchange(other.level_, 0);
        size_ = std::exchange(other.size_, 0);
        nodes_ = std::exchange(other.nodes_, 0);
        ids_ = std::exchange(other.ids_, nullptr);
        id_capacity_ = std::exchange(other.id_capacity_, 0);
        free_id_ = std::exchange(other.free_id_, 0);
        rng_ = other.rng_;
    }

    void swap(skiplist& other) noexcept {
        skiplist tmp(alloc_);
        tmp.steal(*this);
        steal(other);
        other.steal(tmp);
    }

    const Allocator& allocator() const noexcept { return alloc_; }
    void swap_allocators(skiplist& other) noexcept {
        using std::swap;
        swap(alloc_, other.alloc_);
    }
    /// Replaces the allocator, freeing everything allocated with the old one first.
    void set_allocator(const Allocator& a) noexcept {
        clear();
        release_ids();
        alloc_ = a;
    }

    size_type size() const noexcept { return size_; }
    size_type node_count() const noexcept { return nodes_; }
    int level() const noexcept { return level_; }
    /// The sentinel: allocated with the first node, freed by clear(); nullptr while empty.
    node* head() const noexcept { return head_; }
    node* first() const noexcept { return head_ != nullptr ? head_->links()[0].next : nullptr; }
    node* last() const noexcept { return head_ != nullptr ? head_->prev : nullptr; }
    /// The block registered under a node id (the index's way in: one table read, no node).
    block_type block_by_id(std::uint32_t id) const noexcept {
        return block_type::from_raw(reinterpret_cast<void*>(ids_[id]));
    }
    static node* owner_of(block_type b) noexcept { return static_cast<node*>(b.owner()); }
    node* by_id(std::uint32_t id) const noexcept { return owner_of(block_by_id(id)); }

    /// Frees every node. Never throws.
    void clear() noexcept {
        if (head_ != nullptr) {
            node* n = first();
            while (n != head_) {
                node* next = n->next(0);
                destroy_node(n);
                n = next;
            }
            free_links(head_, head_height_);
        }
        head_ = nullptr;
        head_height_ = 0;
        level_ = 0;
        size_ = 0;
        nodes_ = 0;
        // every id is free again: rebuild the free list
        free_id_ = 0;
        for (std::size_t i = id_capacity_; i-- > 1;) release_id(static_cast<std::uint32_t>(i));
    }

    // ---- searching ---------------------------------------------------------------------------

    /// Fills `p` with, per level, the last node whose first element satisfies `goes_before`
    /// (head if none) and the rank of that node's first element. O(log n).
    template <class GoesBefore>
    void descend(const GoesBefore& goes_before, path& p) const {
        node* x = head();
        size_type rank = 0;
        p.at[0] = x;  // an empty list has no levels to descend
        p.rank[0] = 0;
        for (int i = level_ - 1; i >= 0; --i) {
            for (;;) {
                node* y = x->links()[i].next;
                // Every level ends by dropping from x to x's next node one level down: fetch
                // that node while y is being compared, so the two cache misses overlap.
                if (i > 0) prefetch(x->links()[i - 1].next);
                if (y == nullptr || y == head() || !goes_before(y)) break;
                rank += x->links()[i].span;
                x = y;
            }
            p.at[i] = x;
            p.rank[i] = rank;
        }
    }

    /// The node holding the element of rank r (r < size()) and r's index in it. O(log n).
    std::pair<node*, size_type> nth(size_type r) const noexcept {
        node* x = head();
        size_type rank = 0;
        for (int i = level_ - 1; i >= 0; --i) {
            for (;;) {
                const link& l = x->links()[i];
                if (i > 0) prefetch(x->links()[i - 1].next);  // as in descend()
                if (l.next == nullptr || l.next == head() || rank + l.span > r) break;
                rank += l.span;
                x = l.next;
            }
        }
        return {x, r - rank};
    }

    /// Rank of the first element of x, by walking forward and up to the end summing spans: no
    /// key comparisons. Expected O(log n).
    size_type start_rank(const node* x) const noexcept {
        size_type after = 0;
        while (x != nullptr && x != head()) {
            const link& l = x->links()[x->height - 1];
            after += l.span;
            x = l.next;
        }
        return size_ - after;
    }

    // ---- element insertion ----------------------------------------------------------------------

    /// Where a new element goes: the node, its index there, and the search path.
    struct slot {
        node* target;     // nullptr when the list has no node yet
        size_type index;  // index inside target
        size_type start;  // rank of target's first element
    };

    /// Given a path from descend(goes_before = "first element < key"), picks the node the key
    /// belongs in and fixes the path so that p.at[i] is the node whose level-i link covers it.
    /// (`index` is left for the caller to fill from the block.)
    slot locate(path& p) const noexcept {
        if (level_ == 0) return slot{nullptr, 0, 0};
        node* t = p.at[0];
        size_type start = p.rank[0];
        if (t == head()) {
            t = first();
            start = 0;
            for (int i = 0; i < t->height; ++i) {
                p.at[i] = t;
                p.rank[i] = 0;
            }
        }
        return slot{t, 0, start};
    }

    /// Inserts (s, m) at `index` of `target` (from find_slot), splitting a full block.
    /// `limit_entries`/`limit_heap` bound a block (skiplist mode); a new node is created when
    /// the list is empty. `moved(view, score, from, to)` is called for every element that changes
    /// node.
    /// Returns the node and index of the new element. Strong guarantee.
    template <class Moved>
    std::pair<node*, size_type> insert(path& p, slot where, Score s, view m, std::uint8_t fp,
                                       size_type limit_entries, size_type limit_heap,
                                       int max_height, Moved&& moved) {
        staged_member staged = stage(m);  // object members: copied now, before any change
        if (where.target == nullptr) {
            node* n = create_node(random_height(max_height), 1, block_type::heap_need(m));
            adopt_head(p, n);
            link_after_covering(p, n, 0);
            put(n->data, 0, s, staged, m, fp);
            refresh_first(n);
            count_insert(p, n);
            return {n, 0};
        }
        node* t = where.target;
        block_type b = t->data;
        const size_type n = b.size();
        const size_type need = block_type::heap_need(m);
        const bool full = n >= limit_entries || (n > 0 && b.heap_used() + need > limit_heap);
        if (!full) {
            if (!b.fits(m)) set_block(t, block_type::regrow(alloc_, b, 1, need));
            put(t->data, where.index, s, staged, m, fp);
            refresh_first(t);
            count_insert(p, t);
            return {t, where.index};
        }
        // Split: elements [k, n) move to a new node after t. Appending at the end of a block
        // starts a new block, so ascending inserts (time series) leave full blocks behind.
        const size_type idx = where.index;
        const size_type k = idx == n ? n : idx == 0 ? 0 : n / 2;
        const bool into_new = idx > k || (idx == k && k == n);
        const size_type moved_heap = bytes_from(b, k);
        const size_type new_count = n - k + (into_new ? 1 : 0);
        const size_type new_heap = moved_heap + (into_new ? need : 0);
        // allocate everything first
        node* fresh = create_node(random_height(max_height), new_count, new_heap);
        adopt_head(p, fresh);
        // The half that stays gets a right-sized block too: leaving it in the old, full-size
        // block would waste half of every split block (the B-tree fill-factor problem).
        block_type regrown;
        {
            const size_type kept = k + (into_new ? 0 : 1);
            const size_type kept_heap = b.heap_used() - moved_heap + (into_new ? 0 : need);
            ZSET_TRY {
                regrown = block_type::create(alloc_, block_type::grown(kept),
                                             bytes_layout ? block_type::grown_heap(kept_heap) : 0);
            }
            ZSET_CATCH_ALL {
                destroy_node(fresh);
                ZSET_RETHROW;
            }
        }
        // rewire (nothing below throws)
        b.move_range_to(k, n, fresh->data);
        b.move_range_to(0, k, regrown);
        block_type::destroy(alloc_, b);
        set_block(t, regrown);
        link_after_covering(p, fresh, where.start + k);
        for (size_type i = 0, off = 0; i < fresh->data.size(); ++i) {
            moved(fresh->data.member_at(i, off), fresh->data.score(i), t, fresh);
            if constexpr (block_type::bytes) off += fresh->data.record_size_at(i, off);
        }
        node* dest = into_new ? fresh : t;
        const size_type at = into_new ? idx - k : idx;
        put(dest->data, at, s, staged, m, fp);
        refresh_first(t);
        refresh_first(fresh);
        if (into_new) {
            for (int i = 0; i < fresh->height; ++i) {
                p.at[i] = fresh;
                p.rank[i] = where.start + k;
            }
        }
        count_insert(p, dest);
        return {dest, at};
    }

    /// Re-reads a node's cached first score after its block changed at index 0.
    static void refresh_first(node* n) noexcept {
        if (n->data && !n->data.empty()) n->first_score = n->data.score(0);
    }

    // ---- element removal ---------------------------------------------------------------------

    /// Removes [first, last) of node x, where `p` comes from descend(goes_before = "first
    /// element < first element of x"), i.e. strict predecessors. Frees x if it empties.
    /// Returns the node that now follows the removed range's position (x, or x's successor if x
    /// was freed). Never allocates, never throws.
    node* erase(path& p, node* x, size_type first, size_type last) noexcept {
        const size_type count = last - first;
        for (int i = 0; i < level_; ++i) {
            node* cover = i < x->height ? x : p.at[i];
            cover->links()[i].span -= count;
        }
        size_ -= count;
        x->data.erase_range(first, last);
        if (!x->data.empty()) {
            refresh_first(x);
            return x;
        }
        node* next = x->next(0);
        for (int i = 0; i < x->height; ++i) {
            node* pred = p.at[i];
            pred->links()[i].next = x->links()[i].next;
            pred->links()[i].span += x->links()[i].span;
        }
        next->prev = x->prev;
        destroy_node(x);
        --nodes_;
        while (level_ > 1 && head_->links()[level_ - 1].next == nullptr) --level_;
        if (first_is_head()) level_ = 0;
        return next;
    }

    // ---- bulk building ---------------------------------------------------------------------

    /// Appends a new node holding `count` elements produced by `fill(block)` at the end of the
    /// list. For building from sorted input (conversion, copy, set operations). Strong
    /// guarantee: on exception the list is unchanged.
    template <class Fill>
    node* append_node(size_type capacity, size_type heap, int max_height, Fill&& fill) {
        node* n = create_node(random_height(max_height), capacity, heap);
        path p;
        descend([](const node*) { return true; }, p);  // the last node at every level
        ZSET_TRY {
            fill(n->data);
        }
        ZSET_CATCH_ALL {
            destroy_node(n);
            ZSET_RETHROW;
        }
        refresh_first(n);
        adopt_head(p, n);  // frees n itself if it throws
        link_after_covering(p, n, size_);
        const size_type added = n->data.size();
        for (int i = 0; i < level_; ++i) {
            node* cover = i < n->height ? n : p.at[i];
            cover->links()[i].span += added;
        }
        size_ += added;
        return n;
    }

    /// Makes sure the next node creation cannot fail for lack of an id slot.
    void reserve_id() {
        if (free_id_ != 0) return;
        grow_ids();
    }

    size_type memory_usage() const noexcept {
        size_type total = id_capacity_ * sizeof(std::uintptr_t);
        if (head_ == nullptr) return total;
        total += links_for(head_height_) * sizeof(link);
        for (node* n = first(); n != head(); n = n->next(0))
            total += links_for(n->height) * sizeof(link) + n->data.allocated_bytes();
        return total;
    }

    /// Checks links, spans, prev pointers and the id table. Returns false on corruption.
    /// O(n * level); for tests and debugging.
    bool validate() const noexcept {
        if (head_ == nullptr) return level_ == 0 && size_ == 0 && nodes_ == 0;
        size_type count = 0, node_total = 0;
        const node* prev = head();
        for (const node* n = first(); n != head(); n = n->next(0)) {
            if (n->prev != prev || n->data.empty() || by_id(n->id) != n) return false;
            if (block_by_id(n->id) != n->data) return false;
            if (!(n->first_score == n->data.score(0))) return false;
            if (n->height < 1 || n->height > level_) return false;
            count += n->size();
            ++node_total;
            prev = n;
        }
        if (head_->prev != prev || count != size_ || node_total != nodes_) return false;
        if ((level_ == 0) != (nodes_ == 0)) return false;
        for (int i = 0; i < level_; ++i) {
            for (const node* x = head(); x != nullptr;) {
                const link& l = x->links()[i];
                const node* target = (l.next == nullptr || l.next == head()) ? head() : l.next;
                if (target != head() && target->height <= i) return false;
                size_type between = 0;
                const node* y = x;
                do {
                    between += y->size();
                    y = y->next(0);
                } while (y != target && y != head());
                if (y != target || l.span != between) return false;
                if (target == head()) break;
                x = target;
            }
        }
        for (int i = std::max(level_, 1); i < head_height_; ++i)
            if (head_->links()[i].next != nullptr) return false;
        return true;
    }

private:
    static constexpr bool bytes_layout = block_type::bytes;
    using staged_member = std::conditional_t<bytes_layout, int, Member>;

    static staged_member stage(view m) {
        if constexpr (bytes_layout) {
            (void)m;
            return 0;
        } else {
            return Member(m);
        }
    }
    static void put(block_type b, size_type i, Score s, staged_member& staged, view m,
                    std::uint8_t fp) noexcept {
        if constexpr (bytes_layout) {
            (void)staged;
            b.insert(i, s, m, fp);
        } else {
            (void)m;
            b.insert_object(i, s, std::move(staged), fp);
        }
    }

    static size_type bytes_from(block_type b, size_type k) noexcept {
        if constexpr (bytes_layout)
            return b.heap_used() - b.offset_of(k);
        else
            return 0;
    }

    static constexpr size_type node_bytes(int height) noexcept {
        return sizeof(node) + sizeof(link) * static_cast<size_type>(height);
    }

    bool first_is_head() const noexcept { return head_->links()[0].next == head_; }

    static constexpr size_type links_for(int height) noexcept {
        return (node_bytes(height) + sizeof(link) - 1) / sizeof(link);
    }

    /// Allocates raw node storage with `height` links. Strong guarantee.
    node* allocate_links(int height) {
        link_allocator la(alloc_);
        link* mem = link_traits::allocate(la, links_for(height));
        void* raw = mem;
        node* n = new (raw) node();
        n->height = static_cast<std::uint8_t>(height);
        return n;
    }
    void free_links(node* n, int height) noexcept {
        link_allocator la(alloc_);
        n->~node();
        link_traits::deallocate(la, reinterpret_cast<link*>(n), links_for(height));
    }

    /// Makes the head sentinel tall enough for node n (allocating it on first use) and points
    /// the search path at the new head. On failure frees n and rethrows: nothing changed.
    void adopt_head(path& p, node* n) {
        if (head_ != nullptr && head_height_ >= n->height) return;
        node* fresh;
        const int height = head_ == nullptr
                               ? n->height
                               : std::max<int>(n->height, std::min(max_level, head_height_ * 2));
        ZSET_TRY {
            fresh = allocate_links(height);
        }
        ZSET_CATCH_ALL {
            destroy_node(n);
            ZSET_RETHROW;
        }
        fresh->data = block_type();
        fresh->id = 0;
        for (int i = 0; i < height; ++i) fresh->links()[i] = link{nullptr, size_};
        if (head_ == nullptr) {
            fresh->prev = fresh;
            fresh->links()[0] = link{fresh, 0};
        } else {
            for (int i = 0; i < head_height_; ++i) fresh->links()[i] = head_->links()[i];
            if (nodes_ == 0) {
                fresh->prev = fresh;
                fresh->links()[0].next = fresh;
            } else {
                fresh->prev = head_->prev;
                head_->prev->links()[0].next = fresh;
                head_->links()[0].next->prev = fresh;
            }
            for (int i = 0; i < std::max(level_, 1); ++i)  // the levels descend() filled
                if (p.at[i] == head_) p.at[i] = fresh;
            free_links(head_, head_height_);
        }
        head_ = fresh;
        head_height_ = height;
    }

    int random_height(int limit) noexcept {
        if (limit <= 1) return 1;
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        std::uint64_t r = rng_;
        int h = 1;
        while ((r & 3) == 0 && h < limit) {
            ++h;
            r >>= 2;
        }
        return h;
    }

    /// Allocates a node with an empty block. Strong guarantee.
    node* create_node(int height, size_type capacity, size_type heap) {
        reserve_id();
        block_type b = block_type::create(alloc_, block_type::grown(capacity),
                                          bytes_layout ? block_type::grown_heap(heap) : 0);
        node* n;
        ZSET_TRY {
            n = allocate_links(height);
        }
        ZSET_CATCH_ALL {
            block_type::destroy(alloc_, b);
            ZSET_RETHROW;
        }
        n->prev = nullptr;
        for (int i = 0; i < height; ++i) n->links()[i] = link{nullptr, 0};
        n->id = acquire_id();
        set_block(n, b);
        return n;
    }

    void destroy_node(node* n) noexcept {
        block_type::destroy(alloc_, n->data);
        release_id(n->id);
        free_links(n, n->height);
    }

    /// Links n (holding no counted elements yet, or `added` elements counted by the caller)
    /// right after the node covering rank `start` at each of its levels: p.at[i] must be the
    /// node whose level-i link covers position `start` and p.rank[i] its first element's rank.
    void link_after_covering(path& p, node* n, size_type start) noexcept {
        if (n->height > level_) {
            for (int i = level_; i < n->height; ++i) {
                p.at[i] = head_;
                p.rank[i] = 0;
                if (i > 0) head_->links()[i] = link{nullptr, size_};  // level 0 stays circular
            }
            level_ = n->height;
        }
        for (int i = 0; i < n->height; ++i) {
            node* pred = p.at[i];
            link& pl = pred->links()[i];
            const size_type before = start - p.rank[i];
            n->links()[i] = link{pl.next, pl.span - before};
            pl.next = n;
            pl.span = before;
        }
        node* after = n->links()[0].next;
        n->prev = p.at[0];
        after->prev = n;
        ++nodes_;
    }

    void count_insert(path& p, node* dest) noexcept {
        for (int i = 0; i < level_; ++i) {
            node* cover = i < dest->height ? dest : p.at[i];
            cover->links()[i].span += 1;
        }
        ++size_;
    }

    // id table -------------------------------------------------------------------------------
    std::uint32_t acquire_id() noexcept {
        const std::uint32_t id = free_id_;
        free_id_ = static_cast<std::uint32_t>(ids_[id] >> 1);
        ids_[id] = 0;
        return id;
    }

    /// Gives node n block b: the block learns its node, the id table its block.
    void set_block(node* n, block_type b) noexcept {
        n->data = b;
        b.set_owner(n);
        ids_[n->id] = reinterpret_cast<std::uintptr_t>(b.raw());
    }
    void release_id(std::uint32_t id) noexcept {
        ids_[id] = (std::uintptr_t{free_id_} << 1) | 1u;
        free_id_ = id;
    }
    void grow_ids() {
        const size_type cap = id_capacity_ < 4 ? 4 : id_capacity_ * 2;
        if (cap > 0xffffffffu) raise_length_error("zset: too many blocks");
        id_allocator ia(alloc_);
        std::uintptr_t* fresh = id_traits::allocate(ia, cap);
        for (size_type i = 0; i < id_capacity_; ++i) fresh[i] = ids_[i];
        if (ids_ != nullptr) id_traits::deallocate(ia, ids_, id_capacity_);
        ids_ = fresh;
        const size_type old = id_capacity_;
        id_capacity_ = cap;
        fresh[0] = 1;  // id 0 is never handed out
        for (size_type i = cap; i-- > (old == 0 ? 1 : old);)
            release_id(static_cast<std::uint32_t>(i));
    }
    void release_ids() noexcept {
        if (ids_ != nullptr) {
            id_allocator ia(alloc_);
            id_traits::deallocate(ia, ids_, id_capacity_);
        }
        ids_ = nullptr;
        id_capacity_ = 0;
        free_id_ = 0;
    }

    Allocator alloc_;
    node* head_ = nullptr;
    int head_height_ = 0;
    int level_ = 0;
    size_type size_ = 0;
    size_type nodes_ = 0;
    std::uintptr_t* ids_ = nullptr;
    size_type id_capacity_ = 0;
    std::uint32_t free_id_ = 0;
    std::uint64_t rng_ = 0x2545f4914f6cdd1dull;
};

}  // namespace detail
}  // namespace zset
