// zset::detail::skiplist — a skiplist whose nodes own blocks of elements, counted by a rank
// tree.
// SPDX-License-Identifier: MIT
//
// Every node holds one block (block.hpp) of elements in (score, member) order; nodes are linked
// in a skiplist of random height (p = 1/4, at most 32 levels, as Redis), so a search by key is
// O(log n) while a run of elements is one block (B-tree-like locality, ~1/90 the nodes of a
// node-per-element skiplist).
//
// An insert (or a score update leaving its block) finds its block in the rank tree instead,
// which keeps every block's first score as a B+tree key (rank_tree.hpp, block_for_key): one
// node a level, no branch per entry. It descends the list only when a first score ties with
// the new one (members decide) or the block must split (the split links its new node by the
// descent's path). At 10^7 members a descent's hops, each a dependent cache miss, would be a
// large part of building by single adds (docs/design-log.md, "The rank tree keyed by first
// score"; bench row build_random/zset/10000000).
//
// Ranks: Redis annotates every link with a span (elements skipped). Keeping spans right costs a
// search path for every change: an element erased from a block lowers the span of every link
// that passes over it, so ZREM, a score update (erase + insert) and range removals would each
// descend the list a second time just to find those links. Here the links carry no spans: a
// counted B+tree over the blocks (rank_tree.hpp: a block's start rank from one node per level,
// 1-4 levels up to 10^7 members) is the only count: an element inserted or erased changes its
// block's entry and the entries above it (leaf to root, no search), nth(r) descends the tree by
// counts, and a node's predecessors are searched for only when it is linked (the insert's own
// descent gives them) or unlinked (rare: a block emptied). That makes ZREM, score updates and
// ZPOPMIN at 10^6 and 10^7 faster than with spans (docs/design-log.md, "Counts in the rank tree
// only"; bench rows zrem, update, pop_min). Caveat: a count between two keys (ZCOUNT) climbs
// the tree from both blocks to their common node instead of reading ranks summed during the
// descents, and a block search by score reads records scattered in arrival order, not a score
// array. To pay for it, the end of a counted range is searched from the start's descent path
// (descend_from: up the levels while the next node still lies before the end, then down), not
// from the head, and the two ends' blocks are searched in one interleaved loop
// (docs/design-log.md, "Range ends found from their search"; bench row zcount/zset/100000).
//
// Nodes live in one pool, an array indexed by 32-bit node id, 40 bytes each (for a double
// Score): the cached first score, the level-0 backward link and up to four levels of next ids
// inline; the rare taller node (1 in 256) keeps the levels above those four in a separate
// allocation, and the four stay inline (so a step at a low level reads its next id from the
// node itself, with no pointer to follow). Why a pool: a search is a descent over
// ~3 log4(nodes) nodes. At 10^6 members the pool is ~0.45 MB, at 10^7 ~4.5 MB; nodes allocated
// one by one would be spread over as many pages as the blocks between them, and each hop would
// be a cache and TLB miss. Ids are also what the hash index stores (24 bits).
//
// The blocks are not in the nodes but in a parallel array, `blocks_`, indexed by the same ids
// (8 bytes a node, so the memory is the same as a 48-byte node's). Why: a lookup by member
// (ZSCORE, ZRANK, a score update, ZREM) goes from its index entry's node id straight to the
// block and never reads the node; the array is 1/6 of the pool (~90 KB at 10^6 members, ~0.9 MB
// at 10^7), so it stays in the L2 cache where the pool's lines are mostly evicted between two
// lookups: fewer L2 and L3 misses per ZSCORE hit at 10^6 and 10^7, and no multiply by the node
// size (docs/design-log.md, "The node pool and the block array"; bench rows
// zscore_hit/zset/10000000, zrank/zset/10000000). A descent reads a block only on a
// first-score tie and at its end.
//
// Node 0 is the head sentinel. Level 0 is circular through it (last.next(0) == 0,
// head.prev == last), higher levels end with a link to 0; so an iterator is (node, position)
// and end() is (0, 0). Free ids are chained through `prev`.
//
// Exception safety: every structural operation allocates what it needs first (pool slot,
// blocks, tall links) and only then rewires; the rewiring never throws. An erase never
// allocates.
#ifndef ZSET_DETAIL_CONTAINER_SKIPLIST_HPP
#define ZSET_DETAIL_CONTAINER_SKIPLIST_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "../../common.hpp"
#include "allocator_holder.hpp"
#include "block.hpp"
#include "rank_tree.hpp"

namespace zset {
namespace detail {

template <class Score, class Member, class Allocator>
class skiplist : private allocator_holder<Allocator> {
public:
    using block_type = block<Score, Member, Allocator>;
    using view = typename block_type::view;
    using ref_type = typename block_type::ref_type;
    using fingerprint_type = typename block_type::fingerprint_type;
    using size_type = std::size_t;
    using node_id = std::uint32_t;
    static constexpr int max_level = 32;
    static constexpr int inline_levels = 4;
    static constexpr node_id head_id = 0;
    /// A pool beyond this many nodes (512 KB) is not expected in L1/L2: descents prefetch.
    static constexpr std::uint32_t far_pool = 8192;
    /// Ranks are 32-bit (rank_tree.hpp): a set holds fewer than 2^32 elements.
    static constexpr size_type max_elements = 0xffffffffu;
    /// A node id no node has (ids are 24-bit; the pool stops below it): compaction parks the
    /// index entries of the records it moves under it.
    static constexpr node_id parked_node = 0xffffff;

    struct link {
        node_id next;
    };
    struct node {
        Score first_score;  // the block's score(0), kept here so a search step reads only this node
        link* high;         // levels from inline_levels up, when tall(); else null
        node_id prev;       // level 0 backward link; next free id while the node is free
        std::uint8_t height;  // 0 while the node is free
        link low[inline_levels];
        // The low levels live only in the node, and the high ones only in `high`: a step at a
        // low level loads the next id straight from the node it is on, where a pointer to
        // either array would cost one more dependent load a step, which shows in ZCOUNT at
        // 10^5 (docs/design-log.md, "The node pool and the block array"; bench row
        // zcount/zset/100000). descend() walks the
        // high levels and the low ones in separate loops, so its steps do not branch on the
        // level.
        link& at(int level) noexcept {
            return level < inline_levels ? low[level] : high[level - inline_levels];
        }
        const link& at(int level) const noexcept {
            return level < inline_levels ? low[level] : high[level - inline_levels];
        }
        bool tall() const noexcept { return height > inline_levels; }
        node_id next(int level) const noexcept { return at(level).next; }
    };

    /// A search result: per level, the last node visited.
    struct path {
        node_id at[max_level];
    };

    /// Block size limits for an insertion (skiplist mode bounds blocks; listpack mode does not).
    struct limits {
        size_type entries;
        size_type area;
        int max_height;
    };

private:
    using node_traits = typename std::allocator_traits<Allocator>::template rebind_traits<node>;
    using node_allocator = typename node_traits::allocator_type;
    using link_traits = typename std::allocator_traits<Allocator>::template rebind_traits<link>;
    using link_allocator = typename link_traits::allocator_type;
    using block_traits =
        typename std::allocator_traits<Allocator>::template rebind_traits<block_type>;
    using block_allocator = typename block_traits::allocator_type;

public:
    explicit skiplist(const Allocator& alloc = Allocator()) noexcept
        : allocator_holder<Allocator>(alloc) {}
    skiplist(const skiplist&) = delete;
    skiplist& operator=(const skiplist&) = delete;
    ~skiplist() { clear(); }

    const Allocator& allocator() const noexcept { return this->held_allocator(); }

    size_type size() const noexcept { return size_; }
    size_type node_count() const noexcept { return count_; }
    int level() const noexcept { return level_; }
    bool empty() const noexcept { return count_ == 0; }
    node& at(node_id id) noexcept { return nodes_[id]; }
    const node& at(node_id id) const noexcept { return nodes_[id]; }
    node_id first() const noexcept { return nodes_ != nullptr ? nodes_[head_id].at(0).next : 0; }
    node_id last() const noexcept { return nodes_ != nullptr ? nodes_[head_id].prev : 0; }
    block_type block_of(node_id id) const noexcept { return blocks_[id]; }
    /// The block of a node of this list's pool (a descent's predicates get nodes, not ids).
    block_type block_of(const node& n) const noexcept { return blocks_[&n - nodes_]; }
    /// Elements in node id's block (0 for the head and free ids).
    size_type size_of(node_id id) const noexcept { return blocks_[id] ? blocks_[id].size() : 0; }

    /// Frees every node and the pool. Never throws.
    void clear() noexcept {
        if (nodes_ != nullptr) {
            for (node_id id = first(); id != head_id;) {
                const node_id next = nodes_[id].next(0);
                block_type::destroy(allocator(), blocks_[id]);
                free_tall(nodes_[id]);
                id = next;
            }
            free_tall(nodes_[head_id]);
            node_allocator na(allocator());
            node_traits::deallocate(na, nodes_, capacity_);
            block_allocator ba(allocator());
            block_traits::deallocate(ba, blocks_, capacity_);
        }
        ranks_.release(allocator());
        nodes_ = nullptr;
        blocks_ = nullptr;
        capacity_ = 0;
        free_ = 0;
        level_ = 0;
        size_ = 0;
        count_ = 0;
    }

    // ---- searching ---------------------------------------------------------------------------

    /// Fills `p` with, per level, the last node whose first element satisfies `goes_before`
    /// (the head if none). O(log n).
    template <class GoesBefore>
    void descend(const GoesBefore& goes_before, path& p) const {
        node_id x = head_id;
        const bool far = capacity_ > far_pool;
        p.at[0] = head_id;  // an empty list has no levels to descend
        int i = level_ - 1;
        // the levels kept outside the nodes, then those inside: no branch on the level per step
        for (; i >= inline_levels; --i) p.at[i] = x = walk_level<true>(x, i, goes_before, far);
        for (; i >= 0; --i) p.at[i] = x = walk_level<false>(x, i, goes_before, far);
    }

    /// The last node from x on at level i (High: a level kept in `high`) that goes before.
    template <bool High, class GoesBefore>
    ZSET_ALWAYS_INLINE node_id walk_level(node_id x, int i, const GoesBefore& goes_before,
                                          bool far) const {
        for (;;) {
            const node& n = nodes_[x];
            const node_id next = High ? n.high[i - inline_levels].next : n.low[i].next;
            // Every level ends by dropping from x to x's next node one level down: fetch that
            // node while this one is compared, so the two misses overlap.
            if (far && i > 0) prefetch(nodes_ + (High ? n.at(i - 1) : n.low[i - 1]).next);
            if (next == head_id || !goes_before(nodes_[next])) return x;
            x = next;
        }
    }

    /// The level-0 node descend(goes_before, p) would end on, for a predicate that holds for at
    /// least the prefix another one held for, when a descent by that one left path `from` (a
    /// range's end, searched after its start). The end's predecessors lie at or after the
    /// start's, so the search climbs from the start's level-0 node while the next node at that
    /// level still goes before, then descends from the start's node at the level below: for a
    /// range over k blocks, about log4(k) levels up and down, on nodes the first descent mostly
    /// read. If the predicate holds for a shorter prefix instead (an empty range), the climb
    /// stops at once and the result is from.at[0], not after the start.
    template <class GoesBefore>
    node_id descend_from(const path& from, const GoesBefore& goes_before) const {
        const auto goes_on = [&](node_id x, int level) {
            const node_id next = nodes_[x].at(level).next;
            return next != head_id && goes_before(nodes_[next]);
        };
        int top = 0;
        while (top + 1 < level_ && goes_on(from.at[top], top)) ++top;
        node_id x = from.at[top];
        for (int i = top; i >= 0; --i) {
            // below the climb's top the start's node and its successor go before: the end's
            // predecessor lies beyond both, so a walk that has not left from.at[i + 1] jumps
            if (i < top && x == from.at[i + 1]) x = from.at[i];
            while (goes_on(x, i)) x = nodes_[x].at(i).next;
        }
        return x;
    }

    /// The node descend() and locate() would pick for an element of score s: the last block
    /// whose first score is below s, or the first block, found by the rank tree's keys (one
    /// node a level, each compared with s in one pass with no branch per entry, where a
    /// descent's steps branch on comparisons that mispredict about once a level and, at 10^7
    /// members, miss the cache about once a step). head_id when the list is empty, or when a
    /// block's first score met on the way equals s (first members then decide: the caller
    /// descends). O(log n).
    node_id block_for_score(Score s) const noexcept {
        if (count_ == 1) return first();
        const auto b = ranks_.block_for_key(s);
        return b == ranks_.none ? head_id : b;
    }

    /// Fills `p` with the strict predecessors of node x at every level (the last node before x
    /// that has the level). Only an unlink needs them. The descent orders nodes by their cached
    /// first scores and, between equal ones, by start rank (rank tree), so it needs no key
    /// comparator; x may already be empty (its start rank is then its successor's, and nodes
    /// before it, being non-empty, start below it). O(log n).
    void predecessors(node_id x, path& p) const noexcept {
        if (x == first()) {
            path_from_head(p, level_);
            return;
        }
        const Score s = nodes_[x].first_score;
        const size_type start = start_rank(x);
        descend(
            [this, x, s, start](const node& n) {
                const auto id = static_cast<node_id>(&n - nodes_);
                if (id == x || s < n.first_score) return false;
                return n.first_score < s || start_rank(id) < start;
            },
            p);
    }

    /// The node holding the element of rank r (r < size()) and r's position in it, from the
    /// rank tree. O(log n).
    std::pair<node_id, size_type> nth(size_type r) const noexcept {
        if (!ranked()) return {first(), r};
        return ranks_.nth(r);  // a tree block id is the node id
    }

    /// Whether the rank tree is kept: from the second block on (listpack mode keeps one block
    /// and no tree).
    bool ranked() const noexcept { return ranks_.blocks() != 0; }

    /// Rank of the first element of x, from the rank tree (rank_tree.hpp): no key comparisons
    /// and one tree node per level. O(log n).
    size_type start_rank(node_id x) const noexcept { return ranked() ? ranks_.rank_of(x) : 0; }
    /// start_rank(b) - start_rank(a), climbing only to the two nodes' lowest common tree node
    /// (one node read when they share a leaf). O(log n).
    std::ptrdiff_t rank_offset(node_id a, node_id b) const noexcept {
        return ranked() && a != b ? ranks_.offset(a, b) : 0;
    }

    /// Allocates the node pool with its head if the list has none, so that an empty list is
    /// walkable as any other (first() is the head, whose block is null): a set reserve()d in
    /// skiplist mode before its first element. Strong guarantee.
    void reserve_head() { reserve_node(); }

    // ---- element insertion ----------------------------------------------------------------------

    /// Where a new element goes: the node (head_id when the list has no node yet) and its
    /// position there.
    struct slot {
        node_id target;
        size_type pos;
    };

    /// Given a path from descend(goes_before = "first element < key"), picks the node the key
    /// belongs in and fixes the path so that p.at[i] is the last node at level i up to it (where
    /// a node split off after it is linked). (`pos` is left for the caller to fill from the
    /// block.)
    slot locate(path& p) const noexcept {
        if (level_ == 0) return slot{head_id, 0};
        node_id t = p.at[0];
        if (t == head_id) {
            t = first();
            for (int i = 0; i < nodes_[t].height; ++i) p.at[i] = t;
        }
        return slot{t, 0};
    }

    /// Inserts (s, m) at position `where.pos` of `where.target`, making room first (regrowing,
    /// compacting or splitting its block within `lim`); creates the first node when the list is
    /// empty. `moved(member, score, from, to)` is called for every element whose record moved
    /// (from and to are record_address values). Returns the new element's node and ref.
    /// Always inlined, as block::append_record: left to itself, g++ 12 leaves one or the other
    /// out of line, which costs every new member a call (bench row zadd_new).
    /// Strong guarantee: the set's elements are unchanged on exception (records may have moved,
    /// reported through `moved`).
    template <class Moved>
    ZSET_ALWAYS_INLINE std::pair<node_id, ref_type> insert(path& p, slot where, Score s, view m,
                                                           fingerprint_type fp, const limits& lim,
                                                           bool fingerprinted, Moved&& moved) {
        if (where.target == head_id) return insert_first(p, s, m, fp, lim, fingerprinted);
        if (must_split(where.target, m, lim)) return split_insert(p, where, s, m, fp, lim, moved);
        return insert_into(where, s, m, fp, moved);
    }

    /// Would inserting member m into node x's block split it (a full block, or one whose
    /// records would pass lim.area)?
    bool must_split(node_id x, view m, const limits& lim) const noexcept {
        const block_type b = blocks_[x];
        const size_type n = b.size();
        return n >= lim.entries ||
               (n > 0 && b.used() - b.garbage() + block_type::units_for(m) > lim.area);
    }

    /// insert() into a block that takes the element without splitting (must_split is false):
    /// the search path is not needed. Strong guarantee, as insert().
    template <class Moved>
    ZSET_ALWAYS_INLINE std::pair<node_id, ref_type>
    insert_into(slot where, Score s, view m, fingerprint_type fp, Moved&& moved) {
        const block_type target = blocks_[where.target];
        const size_type units = block_type::units_for(m);
        // appending to the last block (time series, queues): grow it by doubling, not by 1/16
        const bool appending =
            where.pos == target.size() && nodes_[where.target].next(0) == head_id;
        if (!target.has_room(units)) make_room(where.target, units, appending, moved);
        block_type b = blocks_[where.target];
        const ref_type r = b.append_record(allocator(), s, m);  // may throw: nothing linked yet
        b.link(where.pos, r, fp);
        if (where.pos == 0) refresh_first(where.target);  // a later position leaves the first
        count_insert(where.target);
        return {where.target, r};
    }

    /// Re-reads a linked node's first score, cached in the node and in the rank tree's keys,
    /// after its block changed at position 0.
    void refresh_first(node_id id) noexcept {
        cache_first(id);
        if (ranked() && !blocks_[id].empty()) ranks_.set_key(id, nodes_[id].first_score);
    }

    // ---- element removal ---------------------------------------------------------------------

    /// Removes positions [first, last) of node x (releasing their records). Frees x if it
    /// empties. Returns the node that now follows the removed range's position (x, or x's
    /// successor if x was freed). No search: the counts live in the rank tree, updated from x's
    /// leaf up, and only an unlink looks for x's predecessors. Never throws.
    node_id erase(node_id x, size_type first, size_type last) noexcept {
        const size_type count = last - first;
        if (ranked()) ranks_.shrink(x, count);
        size_ -= count;
        blocks_[x].erase(allocator(), first, last);
        if (blocks_[x].empty()) return unlink(x);
        refresh_first(x);
        return x;
    }

private:
    /// Unlinks and frees node x, just emptied. Returns its successor. Never throws.
    ZSET_NOINLINE node_id unlink(node_id x) noexcept {
        path p;
        predecessors(x, p);  // before the rank tree forgets x
        const node_id next = nodes_[x].next(0);
        for (int i = 0; i < nodes_[x].height; ++i) nodes_[p.at[i]].at(i).next = nodes_[x].next(i);
        nodes_[next].prev = nodes_[x].prev;
        release_node(x);
        if (count_ <= 1)
            ranks_.release(allocator());  // one block left: its start rank is 0
        else
            ranks_.erase(x);
        while (level_ > 1 && nodes_[head_id].at(level_ - 1).next == head_id) --level_;
        if (count_ == 0) level_ = 0;
        return next;
    }

public:
    /// Moves the element at position `from` of node x to position `to` (positions after the
    /// move) within the same block. Never throws.
    void move_position(node_id x, size_type from, size_type to) noexcept {
        blocks_[x].move_position(from, to);
        refresh_first(x);
    }

    /// Rebuilds node x's block compactly (every live record moves; `moved` reports each), with
    /// room for `units` more area units and one more element. Strong guarantee.
    template <class Moved>
    ZSET_NOINLINE void compact(node_id x, size_type units, Moved&& moved) {
        block_type old = blocks_[x];
        const size_type live = old.used() - old.garbage();
        block_type fresh =
            block_type::create(allocator(), block_type::grown(old.size() + 1),
                               block_type::grown_area(live + units), old.fingerprinted());
        fresh.set_node(x);
        // The node id stays, so old and new refs share one address space: reporting x -> x
        // moves one by one could re-point an entry twice, when a record lands on the ref of
        // another record with the same index tag that has yet to move (the old and the new copy
        // of a member a batch moves, or a 32-bit tag collision). So the moves are reported
        // parked under a node id no node has, then unparked.
        announce_moves(old, 0, old.size(), moved);
        move_out(x, 0, old.size(), parked_node, fresh, moved);  // the splits' transfer, once
        for (size_type i = 0; i < fresh.size(); ++i) {
            const ref_type r = fresh.ref(i);
            moved(fresh.member_of(r), fresh.score_of(r), record_address{parked_node, r},
                  record_address{x, r});
        }
        block_type::discard_moved(allocator(), old);  // every record moved out
        blocks_[x] = fresh;
    }

    // ---- bulk building ---------------------------------------------------------------------

    /// Appends a new node at the end of the list whose block (of `capacity` positions and `area`
    /// units) is filled by `fill(block)`. For building from sorted input (conversion, copy, set
    /// operations). Strong guarantee: on exception the list is unchanged.
    template <class Fill>
    ZSET_NOINLINE node_id append_node(size_type capacity, size_type area, int max_height,
                                      bool fingerprinted, Fill&& fill) {
        const node_id id = create_node(random_height(max_height), capacity, area, fingerprinted);
        ZSET_TRY {
            fill(blocks_[id]);
        }
        ZSET_CATCH_ALL {
            discard_node(id);
            ZSET_RETHROW;
        }
        path p;
        descend([](const node&) { return true; }, p);  // the last node at every level
        cache_first(id);
        link_after(p, id);
        const size_type added = blocks_[id].size();
        if (ranked()) ranks_.grow(id, added);
        size_ += added;
        return id;
    }

    size_type memory_usage() const noexcept {
        if (nodes_ == nullptr) return 0;
        size_type total = capacity_ * (sizeof(node) + sizeof(block_type)) +
                          tall_bytes(nodes_[head_id]) + ranks_.memory_usage();
        for (node_id id = first(); id != head_id; id = nodes_[id].next(0))
            total += tall_bytes(nodes_[id]) + blocks_[id].allocated_bytes() +
                     blocks_[id].out_of_line_bytes();
        return total;
    }

    /// Checks links, backward links, cached first scores, the rank tree and every block. Returns
    /// false on corruption. O(n * level); for tests and debugging.
    bool validate() const noexcept {
        if (nodes_ == nullptr) return level_ == 0 && size_ == 0 && count_ == 0;
        size_type elements = 0, nodes = 0;
        node_id prev = head_id;
        for (node_id id = first(); id != head_id; id = nodes_[id].next(0)) {
            const node& n = nodes_[id];
            const block_type b = blocks_[id];
            if (n.prev != prev || !b || b.empty() || !b.validate()) return false;
            if (b.node() != id || !(n.first_score == b.score(0))) return false;
            if (n.height < 1 || n.height > level_) return false;
            elements += b.size();
            ++nodes;
            prev = id;
        }
        if (nodes_[head_id].prev != prev || elements != size_ || nodes != count_) return false;
        if (ranks_.blocks() != (count_ >= 2 ? count_ : 0)) return false;
        if (!ranked()) return true;
        if (!ranks_.validate(
                [this](node_id id) { return std::make_pair(size_of(id), nodes_[id].first_score); }))
            return false;
        size_type rank = 0;
        for (node_id id = first(); id != head_id; id = nodes_[id].next(0)) {
            if (ranks_.rank_of(id) != rank) return false;
            rank += size_of(id);
        }
        if ((level_ == 0) != (count_ == 0)) return false;
        for (int i = 0; i < level_; ++i) {
            for (node_id x = head_id;;) {
                const link& l = nodes_[x].at(i);
                if (l.next != head_id && nodes_[l.next].height <= i) return false;
                node_id y = nodes_[x].next(0);  // l.next must lie ahead of x in list order
                while (y != l.next && y != head_id) y = nodes_[y].next(0);
                if (y != l.next) return false;
                if (l.next == head_id) break;
                x = l.next;
            }
        }
        for (int i = std::max(level_, 1); i < max_level; ++i)
            if (nodes_[head_id].at(i).next != head_id) return false;
        return true;
    }

private:
    void free_tall(node& n) noexcept {
        if (!n.tall()) return;
        link_allocator la(allocator());
        link_traits::deallocate(la, n.high, high_levels(n.height));
        n.high = nullptr;
    }
    /// The links a node of `height` keeps outside itself.
    static size_type high_levels(int height) noexcept {
        return static_cast<size_type>(height - inline_levels);
    }
    static size_type tall_bytes(const node& n) noexcept {
        return n.tall() ? high_levels(n.height) * sizeof(link) : 0;
    }

    /// Makes sure a node id is available (allocating the pool, with its head, or growing it).
    /// Strong guarantee.
    ZSET_NOINLINE void reserve_node() {
        if (nodes_ != nullptr && free_ != head_id) return;
        // an eighth more at a time, as the hash index grows: the pool (40 bytes a node, a node
        // per ~88 elements) is copied often and cheaply, and at most an eighth of it is spare
        const size_type cap =
            capacity_ < 4 ? 4 : size_type{capacity_} + std::max<size_type>(capacity_ / 8, 4);
        if (cap > size_type{parked_node}) raise_length_error("zset: too many blocks");
        node_allocator na(allocator());
        block_allocator ba(allocator());
        node* fresh = node_traits::allocate(na, cap);
        block_type* fresh_blocks;
        link* tall = nullptr;
        ZSET_TRY {
            fresh_blocks = block_traits::allocate(ba, cap);
        }
        ZSET_CATCH_ALL {
            node_traits::deallocate(na, fresh, cap);
            ZSET_RETHROW;
        }
        if (nodes_ == nullptr) {
            ZSET_TRY {
                link_allocator la(allocator());
                tall = link_traits::allocate(la, high_levels(max_level));
            }
            ZSET_CATCH_ALL {
                block_traits::deallocate(ba, fresh_blocks, cap);
                node_traits::deallocate(na, fresh, cap);
                ZSET_RETHROW;
            }
            node& h = *new (static_cast<void*>(fresh)) node();
            h.height = max_level;
            h.high = tall;
            h.prev = head_id;
            for (int i = 0; i < max_level; ++i) h.at(i) = link{head_id};
            new (static_cast<void*>(fresh_blocks)) block_type();
        } else {
            // nodes and blocks point into nothing of their own, so plain copies move them
            std::uninitialized_copy(nodes_, nodes_ + capacity_, fresh);
            std::uninitialized_copy(blocks_, blocks_ + capacity_, fresh_blocks);
            node_traits::deallocate(na, nodes_, capacity_);
            block_traits::deallocate(ba, blocks_, capacity_);
        }
        nodes_ = fresh;
        blocks_ = fresh_blocks;
        const size_type old = capacity_ == 0 ? 1 : capacity_;
        capacity_ = static_cast<std::uint32_t>(cap);
        for (size_type i = cap; i-- > old;) {
            node& f = *new (static_cast<void*>(nodes_ + i)) node();
            new (static_cast<void*>(blocks_ + i)) block_type();
            f.height = 0;
            f.prev = free_;
            free_ = static_cast<node_id>(i);
        }
    }

    /// A node of `height` with an empty block, not linked. Strong guarantee.
    ZSET_NOINLINE node_id create_node(int height, size_type capacity, size_type area,
                                      bool fingerprinted) {
        reserve_node();
        if (count_ >= 1) ranks_.reserve(allocator(), capacity_);  // the link may start the tree
        link* tall = nullptr;
        if (height > inline_levels) {
            link_allocator la(allocator());
            tall = link_traits::allocate(la, high_levels(height));
        }
        block_type b;
        ZSET_TRY {
            b = block_type::create(allocator(), capacity, area, fingerprinted);
        }
        ZSET_CATCH_ALL {
            if (tall != nullptr) {
                link_allocator la(allocator());
                link_traits::deallocate(la, tall, high_levels(height));
            }
            ZSET_RETHROW;
        }
        const node_id id = free_;
        node& n = nodes_[id];
        free_ = n.prev;
        n = node();
        n.height = static_cast<std::uint8_t>(height);
        n.high = tall;
        for (int i = 0; i < height; ++i) n.at(i) = link{head_id};
        blocks_[id] = b;
        b.set_node(id);
        return id;
    }

    /// Caches the first score of node id's block in the node (not yet linked: the rank tree
    /// gets it from link_after).
    void cache_first(node_id id) noexcept {
        const block_type b = blocks_[id];
        if (b && !b.empty()) nodes_[id].first_score = b.score(0);
    }

    /// Frees an unlinked node whose block holds nothing the caller still needs.
    void discard_node(node_id id) noexcept {
        block_type::destroy(allocator(), blocks_[id]);
        free_tall(nodes_[id]);
        nodes_[id].height = 0;
        blocks_[id] = block_type();
        nodes_[id].prev = free_;
        free_ = id;
    }

    /// Frees a node just unlinked from the list.
    void release_node(node_id id) noexcept {
        discard_node(id);
        --count_;
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

    /// Links node n (holding no counted elements yet, or elements counted by the caller) into
    /// the list: p.at[i] must be the last node at level i before n's place.
    void link_after(path& p, node_id id) noexcept {
        node& n = nodes_[id];
        if (n.height > level_) {
            for (int i = level_; i < n.height; ++i) {
                p.at[i] = head_id;
                nodes_[head_id].at(i) = link{head_id};
            }
            level_ = n.height;
        }
        for (int i = 0; i < n.height; ++i) {
            link& pl = nodes_[p.at[i]].at(i);
            n.at(i) = link{pl.next};
            pl.next = id;
        }
        n.prev = p.at[0];
        nodes_[n.next(0)].prev = id;
        if (count_ == 1) {  // a second block: the tree starts, with the first one's elements
            const node_id only = n.prev == head_id ? n.next(0) : n.prev;
            ranks_.insert_after(ranks_.none, only, nodes_[only].first_score);
            ranks_.grow(only, size_);
        }
        if (count_ >= 1)
            ranks_.insert_after(n.prev == head_id ? ranks_.none : n.prev, id, n.first_score);
        ++count_;
    }

    void count_insert(node_id dest) noexcept {
        if (ranked()) ranks_.grow(dest, 1);
        ++size_;
    }

    /// A new, unlinked node holding (s, m) alone. Strong guarantee.
    ZSET_NOINLINE std::pair<node_id, ref_type> lone_node(Score s, view m, fingerprint_type fp,
                                                         const limits& lim, bool fingerprinted) {
        const node_id id =
            create_node(random_height(lim.max_height), 1, block_type::units_for(m), fingerprinted);
        ref_type r;
        ZSET_TRY {
            r = blocks_[id].append_record(allocator(), s, m);
        }
        ZSET_CATCH_ALL {
            discard_node(id);
            ZSET_RETHROW;
        }
        blocks_[id].link(0, r, fp);
        cache_first(id);
        return {id, r};
    }

    /// Points the path at the head at its lowest `levels` levels (nothing precedes rank 0).
    static void path_from_head(path& p, int levels) noexcept {
        for (int i = 0; i < levels; ++i) p.at[i] = head_id;
    }

    /// The first element of an empty list: a node of its own.
    ZSET_NOINLINE std::pair<node_id, ref_type> insert_first(path& p, Score s, view m,
                                                            fingerprint_type fp, const limits& lim,
                                                            bool fingerprinted) {
        const auto placed = lone_node(s, m, fp, lim, fingerprinted);
        path_from_head(p, max_level);
        link_after(p, placed.first);
        count_insert(placed.first);
        return placed;
    }

    /// Gives node x's block room for one more record of `units` units: compacts it when at
    /// least a quarter of its area is garbage (records move), else regrows it (refs kept).
    template <class Moved>
    ZSET_NOINLINE void make_room(node_id x, size_type units, bool appending, Moved&& moved) {
        block_type b = blocks_[x];
        if (b.garbage() * 4 >= b.area() && b.garbage() >= units) {
            compact(x, units, moved);
            return;
        }
        // Both dimensions take their step unless they have that much room already: grown one
        // at a time, positions and area ran out a few inserts apart and each ran a copy.
        const size_type n = b.size() + 1, needed = b.used() + units;
        const size_type cap =
            std::max(b.capacity(),
                     appending ? std::min(2 * n, block_type::max_positions) : block_type::grown(n));
        const size_type area =
            std::max(b.area(), appending ? std::min(2 * needed, block_type::max_area)
                                         : block_type::grown_area(needed));
        blocks_[x] = block_type::regrow(allocator(), b, cap, area);
    }

    /// Inserts into a full node: a new node holds the new element alone when it goes at the
    /// very start or end of the block (ascending inserts, time series, leave full blocks
    /// behind), else the block splits in two right-sized halves.
    template <class Moved>
    ZSET_NOINLINE std::pair<node_id, ref_type> split_insert(path& p, slot where, Score s, view m,
                                                            fingerprint_type fp, const limits& lim,
                                                            Moved&& moved) {
        const node_id t = where.target;
        const block_type b = blocks_[t];
        const size_type n = b.size(), idx = where.pos;
        const bool fingerprinted = b.fingerprinted();
        if (idx == n || (idx == 0 && t == first())) {
            const auto placed = lone_node(s, m, fp, lim, fingerprinted);
            const node_id id = placed.first;
            if (idx == 0) path_from_head(p, level_);
            link_after(p, id);
            count_insert(id);
            return placed;
        }
        return split_middle(p, where, s, m, fp, lim, moved);
    }

    template <class Moved>
    ZSET_NOINLINE std::pair<node_id, ref_type> split_middle(path& p, slot where, Score s, view m,
                                                            fingerprint_type fp, const limits& lim,
                                                            Moved&& moved) {
        const node_id t = where.target;
        block_type b = blocks_[t];
        const size_type n = b.size(), idx = where.pos, k = n / 2;
        const bool into_new = idx > k;
        const size_type units = block_type::units_for(m);
        // bytes of each half, for right-sized blocks
        size_type upper_units = 0;
        for (size_type i = k; i < n; ++i) upper_units += b.record_units(b.ref(i));
        const size_type lower_units = b.used() - b.garbage() - upper_units;
        const size_type new_count = n - k + (into_new ? 1 : 0);
        // allocate everything first
        const node_id fresh_id = create_node(
            random_height(lim.max_height), block_type::grown(new_count),
            block_type::grown_area(upper_units + (into_new ? units : 0)), b.fingerprinted());
        block_type fresh = blocks_[fresh_id];
        // (Each try block reads in its handler only what was set before it: g++ 12 at -O1 and
        // above may drop the null store of a block assigned inside the same try.)
        block_type kept;
        ZSET_TRY {
            kept = block_type::create(allocator(), block_type::grown(k + (into_new ? 0 : 1)),
                                      block_type::grown_area(lower_units + (into_new ? 0 : units)),
                                      b.fingerprinted());
        }
        ZSET_CATCH_ALL {
            discard_node(fresh_id);
            ZSET_RETHROW;
        }
        ref_type r;
        ZSET_TRY {
            r = (into_new ? fresh : kept).append_record(allocator(), s, m);
        }
        ZSET_CATCH_ALL {
            block_type::destroy(allocator(), kept);
            discard_node(fresh_id);
            ZSET_RETHROW;
        }
        // rewire (nothing below throws)
        kept.set_node(t);
        announce_moves(b, 0, n, moved);
        move_out(t, k, n, fresh_id, blocks_[fresh_id], moved);
        move_out(t, 0, k, t, kept, moved);
        block_type::discard_moved(allocator(), b);  // every record moved out
        blocks_[t] = kept;
        link_after(p, fresh_id);
        ranks_.shrink(t, n - k);  // two blocks now: the tree is there
        ranks_.grow(fresh_id, n - k);
        const node_id dest = into_new ? fresh_id : t;
        blocks_[dest].link(into_new ? idx - k : idx, r, fp);
        refresh_first(t);
        refresh_first(fresh_id);
        count_insert(dest);
        return {dest, r};
    }

    /// Tells `moved` that positions [first, last) of block b are about to move, if it listens
    /// (announce(b, first, last)): the engine's repointer then requests the index slots the
    /// moves will read. Never throws.
    template <class Moved>
    static void announce_moves(block_type b, size_type first, size_type last,
                               Moved& moved) noexcept {
        if constexpr (hears_announcements<std::decay_t<Moved>>::value)
            moved.announce(b, first, last);
    }
    template <class M, class = void>
    struct hears_announcements : std::false_type {};
    template <class M>
    struct hears_announcements<M, std::void_t<decltype(std::declval<const M&>().announce(
                                      block_type(), size_type{}, size_type{}))>> : std::true_type {
    };

    /// Moves positions [first, last) of node x's block to the end of `dst`, the block of node
    /// `to` (or the block about to become x's), reporting each move; x's block is then freed
    /// with discard_moved (block::transfer). Never throws.
    template <class Moved>
    void move_out(node_id x, size_type first, size_type last, node_id to, block_type dst,
                  Moved&& moved) noexcept {
        const block_type src = blocks_[x];
        block_type::transfer(src, first, last, dst, [&](view mv, Score sc, ref_type a, ref_type c) {
            moved(mv, sc, record_address{x, a}, record_address{to, c});
        });
    }

    node* nodes_ = nullptr;
    block_type* blocks_ = nullptr;  // node id -> its block, beside the pool (see the top)
    std::uint32_t capacity_ = 0;    // nodes in the pool
    node_id free_ = 0;              // first free id (0: none)
    int level_ = 0;
    std::uint32_t count_ = 0;  // nodes in the list (the head not counted)
    size_type size_ = 0;
    std::uint64_t rng_ = 0x2545f4914f6cdd1dull;
    rank_tree<Score, Allocator> ranks_;  // start ranks and first scores of blocks, from the
                                         // second block on
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_SKIPLIST_HPP
