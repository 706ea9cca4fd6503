// zset::detail::rank_tree — how many elements precede a block: a counted B+tree over the
// skiplist's blocks, in list order.
// SPDX-License-Identifier: MIT
//
// Why it exists: ZRANK finds the member's block through the index, and then needs the number of
// elements in the blocks before it. The skiplist's spans give that by walking forward and up to
// the end of the list, about 3 hops a level at p = 1/4: a few hops for the 11 blocks of a
// 10^3-member set, with mispredicted branches ZSCORE does not have, and some twenty at 10^6 and
// 10^7, where each hop is a cache miss (docs/design-log.md, "The rank tree: a counted B+tree
// over the blocks"; bench row zrank). Here a leaf holds up to 32 (block, element count) entries
// and an inner node up to 32 (child, element count) entries; a block's start rank is the sum of
// the counts before its entry in its leaf, plus, for every ancestor, the counts before the
// child on the path: 1 node per level, 32-wide sums with no data-dependent branch, and
// ceil(log_16..32(blocks)) levels: 1 up to 32 blocks (3,000 members), 4 at 10^7 members.
//
// It is the set's only count (the skiplist's links carry no spans): an element inserted or
// erased adds or subtracts 1 along its leaf's path to the root, with no search; nth(r) descends
// from the root by counts (ZRANGE by rank, ZREMRANGEBYRANK); offset(a, b) climbs from two
// blocks to their lowest common node (ZCOUNT). A block linked or unlinked inserts or removes a
// leaf entry (splitting full nodes; a node left empty is removed, an inner root with one child
// is replaced by it; there is no merging of underfull nodes, as blocks themselves are only
// freed when empty).
//
// Keys: every entry also keeps its subtree's first key (a leaf entry the first score of its
// block, an inner entry its child's first key), so the tree is a B+tree by score as well:
// block_for_key(s) finds the block an element of score s goes in from one node per level, each
// scanned without a data-dependent branch, where the skiplist's descent takes ~3 dependent
// hops a level at p = 1/4, a cache miss each at 10^7 members and a mispredicted branch about
// once a level at every size. Blocks sharing a first score are told apart by their members,
// which the tree does not see: the search gives up when it meets a key equal to s, and the
// caller descends the skiplist instead (docs/design-log.md, "The rank tree keyed by first
// score"; bench rows build_random, update).
//
// Memory: 264 bytes + 32 keys a node (520 bytes for double scores; the 10^6-member set: ~11,000
// blocks, ~500 leaves, 0.27 B/element), plus 4 bytes per skiplist node id for the block ->
// (leaf, entry) map. A tree that is one leaf with room keeps no spare node.
//
// Allocation: the tree holds no allocator; the skiplist passes its own. reserve() allocates
// everything the next link may need (a node per level for splits and one for a new root), so
// every other member is noexcept; a failed reserve() leaves the tree as it was.
#ifndef ZSET_DETAIL_CONTAINER_RANK_TREE_HPP
#define ZSET_DETAIL_CONTAINER_RANK_TREE_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "../../common.hpp"
#include "scan.hpp"

namespace zset {
namespace detail {

template <class Key, class Allocator>
class rank_tree {
public:
    using size_type = std::size_t;
    using block_id = std::uint32_t;
    static constexpr unsigned fanout = 32;
    static constexpr std::uint32_t none = 0xffffffffu;

    rank_tree() noexcept = default;
    rank_tree(const rank_tree&) = delete;
    rank_tree& operator=(const rank_tree&) = delete;

    /// Frees everything, with the allocator that allocated it. Never throws.
    void release(const Allocator& a) noexcept {
        if (s_ == nullptr) return;
        if (s_->nodes != nullptr) {
            node_allocator na(a);
            node_traits::deallocate(na, s_->nodes, s_->capacity);
        }
        if (s_->where != nullptr) {
            where_allocator wa(a);
            where_traits::deallocate(wa, s_->where, s_->where_capacity);
        }
        state_allocator sa(a);
        state_traits::deallocate(sa, s_, 1);
        s_ = nullptr;
    }

    /// Makes sure the next insert_after() of a block id below `blocks` cannot allocate. Strong
    /// guarantee (an empty tree may keep its small header).
    void reserve(const Allocator& a, size_type blocks) {
        const state& s = s_ != nullptr ? *s_ : create_state(a);
        if (blocks > s.where_capacity) grow_where(a, blocks);
        if (s.free_count < nodes_for_link(s)) grow_nodes(a, nodes_for_link(s));
    }

    // ---- lookup ------------------------------------------------------------------------------

    /// Elements in the blocks before block b. O(log blocks), one node read per level.
    size_type rank_of(block_id b) const noexcept {
        std::uint32_t at = s_->where[b] >> 8;
        unsigned entry = s_->where[b] & 0xffu;
        std::uint32_t rank = 0;  // 32-bit: a set holds fewer than 2^32 elements
        for (;;) {
            const tree_node& t = s_->nodes[at];
            rank += counts_before(t, entry);
            if (t.parent == none) return rank;
            entry = t.slot;
            at = t.parent;
        }
    }

    /// The block holding the element of rank r (r below the total count) and r's offset in
    /// it: from the root, the entry whose counts reach past what is left of r, one node read
    /// per level. O(log blocks).
    std::pair<block_id, size_type> nth(size_type r) const noexcept {
        auto left = static_cast<std::uint32_t>(r);
        for (std::uint32_t at = s_->root;;) {
            const tree_node& t = s_->nodes[at];
            unsigned i = 0;
            while (left >= t.count[i]) left -= t.count[i++];  // an empty block's 0 is passed
            if (t.leaf) return {t.item[i], left};
            at = t.item[i];
        }
    }

    /// rank_of(b) - rank_of(a), found by climbing from both leaves to their lowest common
    /// node (every leaf is at the same depth): blocks near each other, as the two ends of a
    /// short range, share a leaf and cost one node read. O(log blocks).
    std::ptrdiff_t offset(block_id a, block_id b) const noexcept {
        std::uint32_t at_a = s_->where[a] >> 8, at_b = s_->where[b] >> 8;
        unsigned entry_a = s_->where[a] & 0xffu, entry_b = s_->where[b] & 0xffu;
        std::ptrdiff_t diff = 0;
        for (;;) {
            const tree_node& ta = s_->nodes[at_a];
            const tree_node& tb = s_->nodes[at_b];
            diff += static_cast<std::ptrdiff_t>(counts_before(tb, entry_b)) -
                    static_cast<std::ptrdiff_t>(counts_before(ta, entry_a));
            if (at_a == at_b) return diff;
            entry_a = ta.slot;
            entry_b = tb.slot;
            at_a = ta.parent;
            at_b = tb.parent;
        }
    }

    /// The element count recorded for block b. O(1).
    size_type count_of(block_id b) const noexcept {
        return s_->nodes[s_->where[b] >> 8].count[s_->where[b] & 0xffu];
    }

    size_type blocks() const noexcept { return s_ != nullptr ? s_->entries : 0; }
    int height() const noexcept { return s_ != nullptr ? s_->height : 0; }

    /// The block an element of score s goes in, when the keys alone decide it: the last block
    /// whose first key is below s, or the first block if none is. `none` when the tree is empty
    /// or a node on the way holds a key equal to s (the blocks' first members then decide,
    /// which the tree does not know). O(log blocks), one node per level, no branch per entry.
    block_id block_for_key(const Key& s) const noexcept {
        if (s_ == nullptr || s_->root == none) return none;
        for (std::uint32_t at = s_->root;;) {
            const tree_node& t = s_->nodes[at];
            const key_counts c = count_keys(t.key, t.size, s);
            const unsigned below = c.below;
            if (c.equal != 0) return none;
            const std::uint32_t item = t.item[below == 0 ? 0 : below - 1];
            if (t.leaf) return item;
            at = item;
        }
    }
    size_type memory_usage() const noexcept {
        if (s_ == nullptr) return 0;
        return sizeof(state) + s_->capacity * sizeof(tree_node) +
               s_->where_capacity * sizeof(std::uint32_t);
    }

    // ---- modifiers ---------------------------------------------------------------------------

    /// Records block b, holding no elements yet and starting with key `first`, right after
    /// block `prev` (none: first). reserve() must have been called since the last
    /// insert_after(). Never throws.
    void insert_after(block_id prev, block_id b, const Key& first) noexcept {
        if (s_->root == none) {
            s_->root = take_node(true);
            s_->height = 1;
        }
        std::uint32_t at = s_->root;
        unsigned entry = 0;
        if (prev == none) {
            while (!s_->nodes[at].leaf) at = s_->nodes[at].item[0];
        } else {
            at = s_->where[prev] >> 8;
            entry = (s_->where[prev] & 0xffu) + 1;
        }
        place(at, entry, b, first);
        ++s_->entries;
    }

    /// Block b now starts with key `first`. O(1), or up the tree while b's entry is its node's
    /// first. Never throws.
    void set_key(block_id b, const Key& first) noexcept {
        std::uint32_t at = s_->where[b] >> 8;
        unsigned entry = s_->where[b] & 0xffu;
        for (;;) {
            tree_node& t = s_->nodes[at];
            t.key[entry] = first;
            if (entry != 0 || t.parent == none) return;
            entry = t.slot;
            at = t.parent;
        }
    }

    /// Adds k elements to block b's count (and its ancestors'). Never throws.
    void grow(block_id b, size_type k) noexcept { add(b, static_cast<std::uint32_t>(k)); }
    /// Takes k elements from block b's count. Never throws.
    void shrink(block_id b, size_type k) noexcept {
        add(b, 0u - static_cast<std::uint32_t>(k));  // modular: the counts stay exact
    }

    /// Forgets block b (its elements leave the counts). Never throws.
    void erase(block_id b) noexcept {
        shrink(b, count_of(b));
        remove_entry(s_->where[b] >> 8, s_->where[b] & 0xffu);
        --s_->entries;
        while (s_->root != none && !s_->nodes[s_->root].leaf && s_->nodes[s_->root].size == 1) {
            const std::uint32_t old = s_->root;
            s_->root = s_->nodes[old].item[0];
            s_->nodes[s_->root].parent = none;
            give_node(old);
            --s_->height;
        }
    }

    /// Checks every node's entries against `of_block` (a block's real size and first key, as a
    /// pair), the inner counts and keys against their children, and the parent and position
    /// records. For tests.
    template <class OfBlock>
    bool validate(const OfBlock& of_block) const noexcept {
        if (s_ == nullptr) return true;
        if (s_->root == none) return s_->entries == 0 && s_->height == 0;
        size_type leaf_entries = 0;
        return s_->nodes[s_->root].parent == none &&
               validate_node(s_->root, 1, of_block, leaf_entries) == subtree_ok &&
               leaf_entries == s_->entries;
    }

private:
    /// How many of a node's keys are below s, and how many equal it.
    struct key_counts {
        unsigned below, equal;
    };
    /// count_keys over keys [0, n): no branch on any key. With SSE2 and double keys, two keys a
    /// step (half the instructions of the scalar loop, which would be most of block_for_key's).
    static key_counts count_keys(const Key* key, unsigned n, const Key& s) noexcept {
        unsigned i = 0;
        key_counts c{0, 0};
#ifdef ZSET_DETAIL_SSE2
        if constexpr (std::is_same_v<Key, double>) {
            const __m128d wanted = _mm_set1_pd(s);
            __m128i below = _mm_setzero_si128(), equal = _mm_setzero_si128();
            for (; i + 2 <= n; i += 2) {  // a true lane is all ones: subtracting it counts 1
                const __m128d v = _mm_loadu_pd(key + i);
                below = _mm_sub_epi64(below, _mm_castpd_si128(_mm_cmplt_pd(v, wanted)));
                equal = _mm_sub_epi64(equal, _mm_castpd_si128(_mm_cmpeq_pd(v, wanted)));
            }
            const auto lanes_sum = [](__m128i v) {
                return static_cast<unsigned>(
                    _mm_cvtsi128_si32(_mm_add_epi64(v, _mm_unpackhi_epi64(v, v))));
            };
            c = key_counts{lanes_sum(below), lanes_sum(equal)};
        }
#endif
        for (; i < n; ++i) {
            c.below += unsigned{key[i] < s};
            c.equal += unsigned{key[i] == s};
        }
        return c;
    }

    struct tree_node {
        std::uint32_t count[fanout];  // elements under each entry
        std::uint32_t item[fanout];   // a block id (leaf) or a tree node (inner)
        Key key[fanout];              // the first key under each entry
        std::uint32_t parent;         // none at the root; the next free node while free
        std::uint8_t size;            // entries in use
        std::uint8_t slot;            // this node's entry in its parent
        bool leaf;
    };
    struct state {
        tree_node* nodes = nullptr;
        std::uint32_t* where = nullptr;  // block id -> tree node << 8 | entry
        size_type capacity = 0;
        size_type where_capacity = 0;
        size_type free_count = 0;
        size_type entries = 0;
        std::uint32_t free = none;
        std::uint32_t root = none;
        int height = 0;
    };
    using state_traits = typename std::allocator_traits<Allocator>::template rebind_traits<state>;
    using state_allocator = typename state_traits::allocator_type;
    using node_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<tree_node>;
    using node_allocator = typename node_traits::allocator_type;
    using where_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<std::uint32_t>;
    using where_allocator = typename where_traits::allocator_type;

    static std::uint32_t counts_before(const tree_node& t, unsigned entry) noexcept {
        static_assert(fanout == 32, "sum_first_of_32 sums 32 counts");
        return sum_first_of_32(t.count, entry);
    }

    void add(block_id b, std::uint32_t delta) noexcept {
        const std::uint32_t at = s_->where[b] >> 8;
        s_->nodes[at].count[s_->where[b] & 0xffu] += delta;
        add_above(at, delta);
    }
    /// Adds delta to the entries on the path from node `at` (excluded) to the root.
    void add_above(std::uint32_t at, std::uint32_t delta) noexcept {
        for (; s_->nodes[at].parent != none; at = s_->nodes[at].parent)
            s_->nodes[s_->nodes[at].parent].count[s_->nodes[at].slot] += delta;
    }

    /// Records where entry i of node `at` now is, in the block map or in the child.
    void point(std::uint32_t at, unsigned i) noexcept {
        const tree_node& t = s_->nodes[at];
        if (t.leaf) {
            s_->where[t.item[i]] = at << 8 | i;
        } else {
            s_->nodes[t.item[i]].parent = at;
            s_->nodes[t.item[i]].slot = static_cast<std::uint8_t>(i);
        }
    }

    /// Free nodes the next link may take: none while the tree is one leaf with room (a small
    /// set keeps one node), else a node per level for splits and one for a new root.
    static size_type nodes_for_link(const state& s) noexcept {
        if (s.root == none) return 1;
        if (s.height == 1 && s.nodes[s.root].size < fanout) return 0;
        return static_cast<size_type>(s.height) + 2;
    }

    /// Puts `item`, counting 0 elements and starting with key `first`, at entry i of node `at`,
    /// splitting the node first when it is full. (A count of 0 keeps every ancestor's count
    /// right whichever node it lands in; a new first entry passes its key up.)
    void place(std::uint32_t at, unsigned i, std::uint32_t item, const Key& first) noexcept {
        if (s_->nodes[at].size == fanout) {
            const std::uint32_t right = split(at);
            if (i > fanout / 2) {
                i -= fanout / 2;
                at = right;
            }
        }
        tree_node& t = s_->nodes[at];
        for (unsigned j = t.size; j > i; --j) {
            t.count[j] = t.count[j - 1];
            t.item[j] = t.item[j - 1];
            t.key[j] = t.key[j - 1];
            point(at, j);
        }
        t.count[i] = 0;
        t.item[i] = item;
        ++t.size;
        point(at, i);
        if (i == 0 && t.parent != none) set_key_above(at, first);
        t.key[i] = first;
    }

    /// Node `at`'s first key is now `first`: its entry in the parent, and up while that entry
    /// is its node's first.
    void set_key_above(std::uint32_t at, const Key& first) noexcept {
        for (; s_->nodes[at].parent != none; at = s_->nodes[at].parent) {
            tree_node& up = s_->nodes[s_->nodes[at].parent];
            up.key[s_->nodes[at].slot] = first;
            if (s_->nodes[at].slot != 0) return;
        }
    }

    /// Moves the upper half of full node `at` into a new node linked right after it in the
    /// parent (a new root when `at` was the root). Returns the new node.
    std::uint32_t split(std::uint32_t at) noexcept {
        const std::uint32_t right = take_node(s_->nodes[at].leaf);
        tree_node& l = s_->nodes[at];
        tree_node& r = s_->nodes[right];
        std::uint32_t total = 0, moved = 0;
        for (unsigned i = 0; i < fanout; ++i) total += l.count[i];
        for (unsigned i = fanout / 2; i < fanout; ++i) {
            r.count[i - fanout / 2] = l.count[i];
            r.item[i - fanout / 2] = l.item[i];
            r.key[i - fanout / 2] = l.key[i];
            moved += l.count[i];
        }
        l.size = fanout / 2;
        r.size = fanout - fanout / 2;
        for (unsigned i = 0; i < r.size; ++i) point(right, i);
        if (l.parent == none) {
            const std::uint32_t top = take_node(false);
            s_->nodes[top].size = 1;
            s_->nodes[top].item[0] = at;
            s_->nodes[top].count[0] = total;
            s_->nodes[top].key[0] = l.key[0];
            point(top, 0);
            s_->root = top;
            ++s_->height;
        }
        add_above(at, 0u - moved);
        place(l.parent, l.slot + 1u, right, r.key[0]);
        add_above(right, moved);
        return right;
    }

    /// Removes entry i (whose count is 0) of node `at`; a node left empty leaves its parent.
    void remove_entry(std::uint32_t at, unsigned i) noexcept {
        tree_node& t = s_->nodes[at];
        for (unsigned j = i; j + 1 < t.size; ++j) {
            t.count[j] = t.count[j + 1];
            t.item[j] = t.item[j + 1];
            t.key[j] = t.key[j + 1];
            point(at, j);
        }
        --t.size;
        if (t.size > 0) {
            if (i == 0) set_key_above(at, t.key[0]);
            return;
        }
        const std::uint32_t parent = t.parent;
        const unsigned slot = t.slot;
        give_node(at);
        if (parent == none) {
            s_->root = none;
            s_->height = 0;
            return;
        }
        remove_entry(parent, slot);
    }

    std::uint32_t take_node(bool leaf) noexcept {
        const std::uint32_t id = s_->free;
        tree_node& t = s_->nodes[id];
        s_->free = t.parent;
        --s_->free_count;
        t = tree_node();
        t.parent = none;
        t.leaf = leaf;
        return id;
    }
    void give_node(std::uint32_t id) noexcept {
        s_->nodes[id].parent = s_->free;
        s_->free = id;
        ++s_->free_count;
    }

    ZSET_NOINLINE state& create_state(const Allocator& a) {
        state_allocator sa(a);
        s_ = ::new (static_cast<void*>(state_traits::allocate(sa, 1))) state();
        return *s_;
    }

    ZSET_NOINLINE void grow_where(const Allocator& a, size_type blocks) {
        where_allocator wa(a);
        std::uint32_t* fresh = where_traits::allocate(wa, blocks);
        for (size_type i = 0; i < s_->where_capacity; ++i) fresh[i] = s_->where[i];
        if (s_->where != nullptr) where_traits::deallocate(wa, s_->where, s_->where_capacity);
        s_->where = fresh;
        s_->where_capacity = blocks;
    }

    ZSET_NOINLINE void grow_nodes(const Allocator& a, size_type need) {
        const size_type cap = s_->capacity + std::max(need, s_->capacity / 8);
        node_allocator na(a);
        tree_node* fresh = node_traits::allocate(na, cap);
        for (size_type i = 0; i < s_->capacity; ++i)
            ::new (static_cast<void*>(fresh + i)) tree_node(s_->nodes[i]);
        if (s_->nodes != nullptr) node_traits::deallocate(na, s_->nodes, s_->capacity);
        s_->nodes = fresh;
        for (size_type i = cap; i-- > s_->capacity;) {
            ::new (static_cast<void*>(s_->nodes + i)) tree_node();
            give_node(static_cast<std::uint32_t>(i));
        }
        s_->capacity = cap;
    }

    static constexpr int subtree_bad = -1, subtree_ok = 0;
    template <class OfBlock>
    int validate_node(std::uint32_t at, int depth, const OfBlock& of_block,
                      size_type& leaf_entries) const noexcept {
        const tree_node& t = s_->nodes[at];
        if (t.size == 0 || t.size > fanout || t.leaf != (depth == s_->height)) return subtree_bad;
        for (unsigned i = 0; i < t.size; ++i) {
            if (t.leaf) {
                const auto block = of_block(t.item[i]);
                if (s_->where[t.item[i]] != (at << 8 | i) || block.first != t.count[i] ||
                    !(block.second == t.key[i]))
                    return subtree_bad;
                ++leaf_entries;
                continue;
            }
            const tree_node& child = s_->nodes[t.item[i]];
            std::uint32_t sum = 0;
            for (unsigned j = 0; j < child.size; ++j) sum += child.count[j];
            if (child.parent != at || child.slot != i || sum != t.count[i] ||
                !(child.key[0] == t.key[i]) ||
                validate_node(t.item[i], depth + 1, of_block, leaf_entries) != subtree_ok)
                return subtree_bad;
        }
        return subtree_ok;
    }

    state* s_ = nullptr;  // allocated with the tree's first node: an empty tree costs 8 bytes
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_RANK_TREE_HPP
