// redis_skiplist: the sorted set "a reader of the Redis source would write" (issue 13), as a
// benchmark peer for zset. Not part of the zset library.
//
// What it models: Redis's skiplist encoding of a sorted set (src/t_zset.c, OBJ_ENCODING_SKIPLIST)
// in its current form, where the member is embedded in the skiplist node and the member index
// stores only node pointers:
//   * one allocation per element: node header (score, level-0 backward link, member length,
//     level count), then `levels` (forward, span) links, then the member bytes inline;
//   * Redis's skiplist rules: at most 32 levels, a node has k+1 levels with probability 4^-k
//     (p = 1/4), a header node with all 32 levels, the span of each forward link = the number of
//     elements it skips (a null link's span counts the elements up to the end), order by
//     (score, member bytes compared with memcmp, shorter first on a common prefix);
//   * the member index is a flat open-addressing table (absl::flat_hash_set, SSE2 group probing)
//     whose slots hold only the node pointer; the member is hashed and compared through the
//     node, with the same absl::Hash over string views as the `absl` peer's flat_hash_map.
//
// Redis functions mirrored (algorithms re-derived from t_zset.c, not copied):
//   zslRandomLevel          random_level()      level k+1 with probability 4^-k, capped at 32
//   zslInsert               link_node()         descent recording the predecessor and its rank
//                                               at every level, then splice and fix the spans
//   zslDeleteNode           unlink_node()       splice out with the recorded predecessors
//   zslDelete               erase()             descent by (score, member), then zslDeleteNode
//   zslUpdateScore          change_score()      in place when the node stays strictly between
//                                               its neighbours, else unlink + relink the node
//   zslGetRank (by node)    rank_of()           modern Redis: walk forward along each node's top
//                                               level to the end summing spans, no key
//                                               comparisons; rank = length - 1 - sum
//   zslGetElementByRank     at_rank()           descent by spans
//   zslNthInRange (n = 0)   first_at_least()    descent to the first score >= lo
//   zsetAdd                 add()               index lookup; new -> node + index + zslInsert;
//                                               existing with another score -> zslUpdateScore
//   zsetRemoveFromSkiplist  erase()             index lookup, unlink from index and skiplist
//   genericZpopCommand      pop_min()           first node of level 0
//   zcountCommand           count()             two rank descents by score (Redis finds the
//                                               first and last node in range, then ranks both)
//
// Deliberate differences from Redis: the member index is a SwissTable instead of Redis's
// chained dict (so the peer is the stronger of the two); levels come from a splitmix64 stream
// seeded per instance (deterministic runs) rather than random(); NaN scores are rejected with
// std::invalid_argument (Redis rejects them while parsing the command).
//
// Exception guarantee: add() and erase() are strong (a new node is allocated and entered in
// the index before anything is linked; unlinking never throws); assign_sorted() is basic.
// Iterator (node pointer) invalidation: erase/pop_min invalidate the removed node only; a score
// change keeps the node. Thread safety: none (like any standard container).
// Move-only; a moved-from set may only be destroyed or assigned to.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/strings/string_view.h>

namespace zbench::peers {

class redis_skiplist {
public:
    static constexpr int max_level = 32;  // ZSKIPLIST_MAXLEVEL

    struct node;
    struct level_link {
        node* forward;
        std::size_t span;  // elements skipped by `forward` (to the end when forward is null)
    };

    /// One element: this header, then level_count links, then member_size member bytes.
    struct node {
        double score;
        node* backward;  // level 0 only; null for the first element
        std::uint32_t member_size;
        std::uint8_t level_count;

        level_link* links() noexcept { return reinterpret_cast<level_link*>(this + 1); }
        const level_link* links() const noexcept {
            return reinterpret_cast<const level_link*>(this + 1);
        }
        char* member_bytes() noexcept { return reinterpret_cast<char*>(links() + level_count); }
        std::string_view member() const noexcept {
            return {reinterpret_cast<const char*>(links() + level_count), member_size};
        }
        const node* next() const noexcept { return links()[0].forward; }
    };

    redis_skiplist() : header_(make_node(max_level, 0.0, std::string_view())) {}
    redis_skiplist(redis_skiplist&& other) noexcept
        : header_(std::exchange(other.header_, nullptr)),
          tail_(std::exchange(other.tail_, nullptr)), length_(std::exchange(other.length_, 0)),
          level_(std::exchange(other.level_, 1)), random_state_(other.random_state_),
          index_(std::move(other.index_)) {}
    redis_skiplist& operator=(redis_skiplist&& other) noexcept {
        if (this != &other) {
            free_nodes();
            header_ = std::exchange(other.header_, nullptr);
            tail_ = std::exchange(other.tail_, nullptr);
            length_ = std::exchange(other.length_, 0);
            level_ = std::exchange(other.level_, 1);
            random_state_ = other.random_state_;
            index_ = std::move(other.index_);
        }
        return *this;
    }
    redis_skiplist(const redis_skiplist&) = delete;
    redis_skiplist& operator=(const redis_skiplist&) = delete;
    ~redis_skiplist() { free_nodes(); }

    /// ZADD: true if `member` was added; an existing member takes the new score. Expected
    /// O(log n).
    bool add(std::string_view member, double score) {
        if (std::isnan(score)) throw std::invalid_argument("redis_skiplist: NaN score");
        const auto it = index_.find(member);
        if (it == index_.end()) {
            insert_new(member, score);
            return true;
        }
        if ((*it)->score != score) change_score(*it, score);
        return false;
    }

    /// The element of `member`, or null. O(1) expected.
    const node* find(std::string_view member) const noexcept {
        const auto it = index_.find(member);
        return it == index_.end() ? nullptr : *it;
    }

    /// ZRANK (0-based). Expected O(log n), no key comparisons after the index lookup.
    std::optional<std::size_t> rank(std::string_view member) const noexcept {
        const node* x = find(member);
        if (x == nullptr) return std::nullopt;
        return rank_of(x);
    }

    /// ZREM. Expected O(log n).
    bool erase(std::string_view member) noexcept {
        const auto it = index_.find(member);
        if (it == index_.end()) return false;
        node* x = *it;
        index_.erase(it);
        node* update[max_level];
        find_predecessors(x->score, x->member(), update, nullptr);
        unlink_node(x, update);
        destroy(x);
        return true;
    }

    /// ZPOPMIN count 1: calls take(member, score) on the first element, then removes it.
    /// Returns false when empty. Expected O(1) (plus the index erase).
    template <class F>
    bool pop_min(F&& take) {
        node* x = header_->links()[0].forward;
        if (x == nullptr) return false;
        node* update[max_level];
        for (int i = 0; i < level_; ++i) update[i] = header_;
        take(x->member(), x->score);
        index_.erase(x->member());
        unlink_node(x, update);
        destroy(x);
        return true;
    }

    /// The first element with score >= lo (ZRANGEBYSCORE's start), or null. Expected O(log n).
    const node* first_at_least(double lo) const noexcept {
        const node* x = header_;
        for (int i = level_ - 1; i >= 0; --i) {
            for (const node* f = x->links()[i].forward; f != nullptr && f->score < lo;
                 f = x->links()[i].forward)
                x = f;
        }
        return x->links()[0].forward;
    }

    /// The element of 0-based rank r, or null. Expected O(log n).
    const node* at_rank(std::size_t r) const noexcept {
        const std::size_t target = r + 1;  // the header has rank 0
        const node* x = header_;
        std::size_t traversed = 0;
        for (int i = level_ - 1; i >= 0; --i) {
            while (x->links()[i].forward != nullptr && traversed + x->links()[i].span <= target) {
                traversed += x->links()[i].span;
                x = x->links()[i].forward;
            }
            if (traversed == target) return x;
        }
        return nullptr;
    }

    /// ZCOUNT [lo, hi]: elements with score <= hi minus elements with score < lo. Expected
    /// O(log n).
    std::size_t count(double lo, double hi) const noexcept {
        const std::size_t below_lo = count_while([lo](double s) { return s < lo; });
        const std::size_t up_to_hi = count_while([hi](double s) { return s <= hi; });
        return up_to_hi > below_lo ? up_to_hi - below_lo : 0;
    }

    /// f(member, score) for every element in (score, member) order.
    template <class F>
    void for_each(F&& f) const {
        for (const node* x = header_->links()[0].forward; x != nullptr; x = x->next())
            f(x->member(), x->score);
    }

    /// Builds an empty set from (score, member) pairs (members as anything convertible to
    /// std::string_view) already in strictly increasing (score, member) order, appending each
    /// element after the last one of every level it spans: O(1) per element.
    template <class It>
    void assign_sorted(It first, It last) {
        if (length_ != 0) throw std::logic_error("redis_skiplist::assign_sorted: not empty");
        index_.reserve(static_cast<std::size_t>(std::distance(first, last)));
        append_state tails;
        for (int i = 0; i < max_level; ++i) tails.node_at[i] = header_, tails.rank_at[i] = 0;
        try {
            for (; first != last; ++first)
                append(std::string_view(first->second), first->first, tails);
        } catch (...) {
            close_tails(tails);
            throw;
        }
        close_tails(tails);
    }

    std::size_t size() const noexcept { return length_; }

private:
    struct append_state {
        node* node_at[max_level];
        std::size_t rank_at[max_level];
    };

    struct member_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view m) const noexcept {
            return absl::Hash<absl::string_view>{}(absl::string_view(m.data(), m.size()));
        }
        std::size_t operator()(const node* x) const noexcept { return (*this)(x->member()); }
    };
    struct member_eq {
        using is_transparent = void;
        static std::string_view key(std::string_view m) noexcept { return m; }
        static std::string_view key(const node* x) noexcept { return x->member(); }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const noexcept {
            return key(a) == key(b);
        }
    };

    /// (score, member) order; string_view's compare is memcmp, then the shorter first.
    static bool precedes(const node* x, double score, std::string_view member) noexcept {
        return x->score < score || (x->score == score && x->member() < member);
    }

    static node* make_node(int levels, double score, std::string_view member) {
        if (member.size() > std::numeric_limits<std::uint32_t>::max())
            throw std::length_error("redis_skiplist: member too long");
        const std::size_t bytes =
            sizeof(node) + static_cast<std::size_t>(levels) * sizeof(level_link) + member.size();
        node* x = ::new (::operator new(bytes))
            node{score, nullptr, static_cast<std::uint32_t>(member.size()),
                 static_cast<std::uint8_t>(levels)};
        for (int i = 0; i < levels; ++i) ::new (x->links() + i) level_link{nullptr, 0};
        if (!member.empty()) std::memcpy(x->member_bytes(), member.data(), member.size());
        return x;
    }
    static void destroy(node* x) noexcept { ::operator delete(x); }

    void free_nodes() noexcept {
        if (header_ == nullptr) return;
        for (node* x = header_->links()[0].forward; x != nullptr;) {
            node* next = x->links()[0].forward;
            destroy(x);
            x = next;
        }
        destroy(header_);
        header_ = nullptr;
    }

    /// zslRandomLevel: each extra level with probability 1/4 = two more trailing zero bits.
    int random_level() noexcept {
        std::uint64_t z = (random_state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return 1 + __builtin_ctzll(z | (std::uint64_t{1} << 63)) / 2;  // <= 32
    }

    /// The last node before (score, member) at every level below level_, and (if rank is not
    /// null) its rank, the header being rank 0.
    void find_predecessors(double score, std::string_view member, node** update,
                           std::size_t* rank) const noexcept {
        node* x = header_;
        std::size_t traversed = 0;
        for (int i = level_ - 1; i >= 0; --i) {
            for (node* f = x->links()[i].forward; f != nullptr && precedes(f, score, member);
                 f = x->links()[i].forward) {
                traversed += x->links()[i].span;
                x = f;
            }
            update[i] = x;
            if (rank != nullptr) rank[i] = traversed;
        }
    }

    /// zslInsert with an allocated node (new, or reused by a score change).
    void link_node(node* x) noexcept {
        node* update[max_level];
        std::size_t rank[max_level];
        find_predecessors(x->score, x->member(), update, rank);
        const int levels = x->level_count;
        for (int i = level_; i < levels; ++i) {
            update[i] = header_;
            rank[i] = 0;
            header_->links()[i].span = length_;
        }
        if (levels > level_) level_ = levels;
        const std::size_t before_x = rank[0];
        for (int i = 0; i < levels; ++i) {
            level_link& prev = update[i]->links()[i];
            level_link& own = x->links()[i];
            own.forward = prev.forward;
            prev.forward = x;
            own.span = prev.span - (before_x - rank[i]);
            prev.span = before_x - rank[i] + 1;
        }
        for (int i = levels; i < level_; ++i) ++update[i]->links()[i].span;
        x->backward = update[0] == header_ ? nullptr : update[0];
        node* next = x->links()[0].forward;
        (next != nullptr ? next->backward : tail_) = x;
        ++length_;
    }

    /// zslDeleteNode: update[i] is the last node before x at level i.
    void unlink_node(node* x, node* const* update) noexcept {
        for (int i = 0; i < level_; ++i) {
            level_link& prev = update[i]->links()[i];
            if (prev.forward == x) {
                prev.span += x->links()[i].span - 1;
                prev.forward = x->links()[i].forward;
            } else {
                --prev.span;
            }
        }
        node* next = x->links()[0].forward;
        (next != nullptr ? next->backward : tail_) = x->backward;
        while (level_ > 1 && header_->links()[level_ - 1].forward == nullptr) --level_;
        --length_;
    }

    /// A new node for a member not yet present, already entered in the index (and not yet
    /// linked). Strong guarantee.
    node* make_indexed_node(std::string_view member, double score) {
        node* x = make_node(random_level(), score, member);
        try {
            index_.insert(x);
        } catch (...) {
            destroy(x);
            throw;
        }
        return x;
    }

    void insert_new(std::string_view member, double score) {
        link_node(make_indexed_node(member, score));
    }

    /// zslUpdateScore, starting from the node the index gave.
    void change_score(node* x, double score) noexcept {
        const node* prev = x->backward;
        const node* next = x->links()[0].forward;
        if ((prev == nullptr || prev->score < score) && (next == nullptr || next->score > score)) {
            x->score = score;
            return;
        }
        node* update[max_level];
        find_predecessors(x->score, x->member(), update, nullptr);
        unlink_node(x, update);
        x->score = score;
        link_node(x);
    }

    /// Modern Redis's rank by node: along each node's top level to the end, summing spans.
    std::size_t rank_of(const node* x) const noexcept {
        std::size_t after = 0;
        for (;;) {
            const level_link& top = x->links()[x->level_count - 1];
            after += top.span;
            if (top.forward == nullptr) break;
            x = top.forward;
        }
        return length_ - 1 - after;
    }

    /// The number of leading elements whose score satisfies `before` (a prefix of the order).
    template <class Before>
    std::size_t count_while(Before before) const noexcept {
        const node* x = header_;
        std::size_t traversed = 0;
        for (int i = level_ - 1; i >= 0; --i) {
            for (const node* f = x->links()[i].forward; f != nullptr && before(f->score);
                 f = x->links()[i].forward) {
                traversed += x->links()[i].span;
                x = f;
            }
        }
        return traversed;
    }

    void append(std::string_view member, double score, append_state& tails) {
        node* x = make_indexed_node(member, score);
        const std::size_t r = ++length_;
        x->backward = tails.node_at[0] == header_ ? nullptr : tails.node_at[0];
        for (int i = 0; i < x->level_count; ++i) {
            level_link& prev = tails.node_at[i]->links()[i];
            prev.forward = x;
            prev.span = r - tails.rank_at[i];
            tails.node_at[i] = x;
            tails.rank_at[i] = r;
        }
        if (x->level_count > level_) level_ = x->level_count;
        tail_ = x;
    }

    /// The null link ending each level counts the elements after its node.
    void close_tails(const append_state& tails) noexcept {
        for (int i = 0; i < level_; ++i) {
            level_link& last = tails.node_at[i]->links()[i];
            last.forward = nullptr;
            last.span = length_ - tails.rank_at[i];
        }
    }

    node* header_;
    node* tail_ = nullptr;
    std::size_t length_ = 0;
    int level_ = 1;
    std::uint64_t random_state_ = 0x5eed5eed5eed5eedull;
    absl::flat_hash_set<node*, member_hash, member_eq> index_;
};

}  // namespace zbench::peers
