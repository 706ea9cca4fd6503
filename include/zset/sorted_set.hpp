// zset::sorted_set — the Redis sorted set (ZSET) as a C++ container.
//
// Composition (each piece in its own header under detail/):
//   * detail/listpack.hpp   — block: a sorted run of elements in one allocation.
//   * detail/skiplist.hpp   — span-annotated skiplist of blocks: order and O(log n) rank.
//   * detail/hash_index.hpp — open-addressing member -> block index (skiplist mode only).
//
// Encodings. In listpack mode the whole set is one block and a member lookup scans its 8-bit
// fingerprints (no index at all, as Redis's listpack). Adding a member that would make the set
// longer than `max_listpack_entries`, or a member longer than `max_listpack_value` bytes,
// converts the set to skiplist mode: blocks of at most 128 elements linked in the skiplist, plus
// the hash index. Score updates never convert; erasing never converts back, except that an
// emptied set starts over in listpack mode (an empty key does not exist in Redis);
// shrink_to_fit() converts back when the set fits again.
//
// Iterator invalidation: any insertion, erasure, score update or conversion may invalidate every
// iterator, view and member string_view into the set. Lookups never do.
//
// Exception guarantees: every single-element operation gives the strong guarantee, including
// when allocation throws (it allocates everything it needs before changing anything). Invalid
// arguments throw zset::error (what() is Redis's error text) before anything changes.
// Hash, KeyEqual and Compare must not throw.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#if __has_include(<memory_resource>)
#include <memory_resource>
#define ZSET_HAS_MEMORY_RESOURCE 1
#endif
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common.hpp"
#include "detail/hash.hpp"
#include "detail/hash_index.hpp"
#include "detail/listpack.hpp"
#include "detail/skiplist.hpp"

namespace zset {

/// What an iterator yields: a view of one element. For string members `member` is a
/// std::string_view into the set (invalidated by any modification).
template <class MemberView, class Score>
struct element {
    MemberView member;
    Score score;
};

template <class MemberView, class Score>
bool operator==(const element<MemberView, Score>& a, const element<MemberView, Score>& b) {
    return a.score == b.score && a.member == b.member;
}
template <class MemberView, class Score>
bool operator!=(const element<MemberView, Score>& a, const element<MemberView, Score>& b) {
    return !(a == b);
}

/// A lazy range of elements: begin()/end() iterators, its size known up front. Creating one
/// allocates nothing; it is invalidated like an iterator.
template <class Iterator>
class range_view {
public:
    using iterator = Iterator;
    range_view() = default;
    range_view(Iterator first, Iterator last, std::size_t n) : first_(first), last_(last), n_(n) {}
    Iterator begin() const { return first_; }
    Iterator end() const { return last_; }
    std::size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }

private:
    Iterator first_{}, last_{};
    std::size_t n_ = 0;
};

/// A sorted set of unique members ordered by (score, member), with Redis ZSET semantics.
///
/// \tparam Member   std::string (stored as packed bytes, looked up by std::string_view) or any
///                  hashable, equality- and less-comparable type with a nothrow move.
/// \tparam Score    double (Redis) or another arithmetic type, e.g. std::int64_t.
/// \tparam Hash     hash of a member view; returns a 64-bit value. Must not throw.
/// \tparam KeyEqual equality of member views. \tparam Compare order of member views (ties).
/// \tparam Allocator rebound internally; propagation follows std::allocator_traits.
template <class Member = std::string, class Score = double, class Hash = zset::hash<Member>,
          class KeyEqual = std::equal_to<>, class Compare = std::less<>,
          class Allocator = std::allocator<Member>>
class sorted_set {
    static_assert(std::is_arithmetic_v<Score>, "zset: Score must be an arithmetic type");

    using list_type = detail::skiplist<Score, Member, Allocator>;
    using node = typename list_type::node;
    using block_type = typename list_type::block_type;
    using path = typename list_type::path;
    using index_type = detail::hash_index<Allocator>;
    using alloc_traits = std::allocator_traits<Allocator>;
    static constexpr bool byte_members = detail::is_byte_string_v<Member>;
    template <class It>
    using if_iterator =
        std::enable_if_t<std::is_base_of_v<std::input_iterator_tag,
                                           typename std::iterator_traits<It>::iterator_category>,
                         int>;
    template <class It>
    using if_forward_iterator =
        std::enable_if_t<std::is_base_of_v<std::forward_iterator_tag,
                                           typename std::iterator_traits<It>::iterator_category>,
                         int>;

public:
    using member_type = Member;
    using score_type = Score;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using allocator_type = Allocator;
    using hasher = Hash;
    using key_equal = KeyEqual;
    using member_compare = Compare;
    /// How members are passed in and handed out: std::string_view for std::string members.
    using key_view = detail::member_view_t<Member>;
    /// A member held by value in argument lists and lex bounds: std::string_view for strings,
    /// Member otherwise.
    using key_value = std::conditional_t<byte_members, std::string_view, Member>;
    using lex_key = key_value;
    /// An owning element, as returned by pop_min / pop_max / random_members.
    using value_type = std::pair<Member, Score>;
    using reference = element<key_view, Score>;
    using const_reference = reference;

    /// Elements beyond this many per block split (skiplist mode).
    static constexpr size_type block_max_entries = 128;
    /// Member bytes beyond this many per block split (skiplist mode; a soft limit).
    static constexpr size_type block_max_bytes = 2048;

    // ---- iterators --------------------------------------------------------------------------

    /// Bidirectional iterator over elements in (score, member) order. Dereferences to a
    /// reference (an element view) by value, so it is a proxy iterator.
    class const_iterator {
    public:
        using iterator_category = std::bidirectional_iterator_tag;
        using value_type = sorted_set::reference;
        using difference_type = std::ptrdiff_t;
        using reference = sorted_set::reference;
        struct pointer {
            reference ref;
            const reference* operator->() const noexcept { return &ref; }
        };

        const_iterator() = default;

        reference operator*() const noexcept {
            return {node_->data.member_at(index_, offset_), node_->data.score(index_)};
        }
        pointer operator->() const noexcept { return pointer{**this}; }

        const_iterator& operator++() noexcept {
            if constexpr (byte_members) offset_ += node_->data.record_size_at(index_, offset_);
            if (++index_ == node_->data.size()) {
                node_ = node_->next(0);
                index_ = 0;
                offset_ = 0;
            }
            return *this;
        }
        const_iterator operator++(int) noexcept {
            const_iterator t = *this;
            ++*this;
            return t;
        }
        const_iterator& operator--() noexcept {
            if (index_ == 0) {
                node_ = node_->prev;
                index_ = node_->data.size() - 1;
                if constexpr (byte_members) offset_ = node_->data.offset_of(index_);
            } else {
                if constexpr (byte_members) offset_ = node_->data.prev_offset(index_, offset_);
                --index_;
            }
            return *this;
        }
        const_iterator operator--(int) noexcept {
            const_iterator t = *this;
            --*this;
            return t;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
            return a.node_ == b.node_ && a.index_ == b.index_;
        }
        friend bool operator!=(const const_iterator& a, const const_iterator& b) noexcept {
            return !(a == b);
        }

    private:
        friend class sorted_set;
        const_iterator(const node* n, size_type i) noexcept
            : node_(n), index_(i),
              offset_(n != nullptr && n->data && byte_members ? n->data.offset_of(i) : 0) {}
        const node* node_ = nullptr;
        size_type index_ = 0;
        size_type offset_ = 0;  // heap offset of the element (string members)
    };
    using iterator = const_iterator;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using reverse_iterator = const_reverse_iterator;
    using rank_range = range_view<const_iterator>;
    using reverse_range = range_view<const_reverse_iterator>;

    // ---- construction -----------------------------------------------------------------------

    /// An empty set (listpack mode). Allocates nothing.
    explicit sorted_set(const options& opts = options(), const Allocator& alloc = Allocator())
        : opts_(opts), list_(alloc), index_(alloc) {}
    explicit sorted_set(const Allocator& alloc) : sorted_set(options(), alloc) {}
    /// An empty set with given function objects (e.g. a seeded hash). Allocates nothing.
    sorted_set(const options& opts, const Hash& hash, const KeyEqual& equal = KeyEqual(),
               const Compare& compare = Compare(), const Allocator& alloc = Allocator())
        : opts_(opts), list_(alloc), index_(alloc), hash_(hash), eq_(equal), less_(compare) {}

    /// Adds each (member, score) pair in order, as one ZADD. O(n log n).
    sorted_set(std::initializer_list<std::pair<key_value, Score>> items,
               const options& opts = options(), const Allocator& alloc = Allocator())
        : sorted_set(opts, alloc) {
        add(items.begin(), items.end());
    }

    /// Copies elements, options and encoding. O(n). The allocator comes from
    /// select_on_container_copy_construction.
    sorted_set(const sorted_set& other)
        : sorted_set(other,
                     alloc_traits::select_on_container_copy_construction(other.get_allocator())) {}
    sorted_set(const sorted_set& other, const Allocator& alloc)
        : opts_(other.opts_), list_(alloc), index_(alloc), hash_(other.hash_), eq_(other.eq_),
          less_(other.less_) {
        build_from(other.begin(), other.end(), other.size(), other.skiplist_mode_);
    }

    /// Takes other's elements in O(1); other is left empty. Never throws.
    sorted_set(sorted_set&& other) noexcept
        : opts_(other.opts_), list_(other.list_.allocator()), index_(other.list_.allocator()),
          hash_(other.hash_), eq_(other.eq_), less_(other.less_) {
        take(other);
    }

    ~sorted_set() = default;

    /// Copy assignment with the strong guarantee (copy, then swap in).
    sorted_set& operator=(const sorted_set& other) {
        if (this == &other) return *this;
        if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
            sorted_set copy(other, other.get_allocator());
            clear();
            list_.set_allocator(other.get_allocator());
            index_.set_allocator(other.get_allocator());
            take(copy);
        } else {
            sorted_set copy(other, get_allocator());
            take(copy);
        }
        return *this;
    }

    /// Move assignment: O(1) when the allocator propagates or compares equal, else a copy.
    sorted_set& operator=(sorted_set&& other) noexcept(
        alloc_traits::propagate_on_container_move_assignment::value ||
        alloc_traits::is_always_equal::value) {
        if (this == &other) return *this;
        if constexpr (alloc_traits::propagate_on_container_move_assignment::value) {
            clear();
            list_.set_allocator(other.list_.allocator());
            index_.set_allocator(other.list_.allocator());
            take(other);
        } else {
            if (get_allocator() == other.get_allocator()) {
                take(other);
            } else {
                sorted_set copy(other, get_allocator());
                take(copy);
                other.clear();
            }
        }
        return *this;
    }

    /// Swaps contents in O(1); allocators are swapped only when they propagate on swap.
    void swap(sorted_set& other) noexcept {
        if constexpr (alloc_traits::propagate_on_container_swap::value) {
            list_.swap_allocators(other.list_);
            index_.swap_allocators(other.index_);
        }
        list_.swap(other.list_);
        index_.swap(other.index_);
        std::swap(opts_, other.opts_);
        std::swap(skiplist_mode_, other.skiplist_mode_);
        std::swap(hash_, other.hash_);
        std::swap(eq_, other.eq_);
        std::swap(less_, other.less_);
    }
    friend void swap(sorted_set& a, sorted_set& b) noexcept { a.swap(b); }

    allocator_type get_allocator() const noexcept { return list_.allocator(); }
    const options& get_options() const noexcept { return opts_; }
    /// The function objects the set was built with (copied by set operations into results).
    hasher hash_function() const { return hash_; }
    key_equal key_eq() const { return eq_; }
    member_compare member_comp() const { return less_; }
    /// Changes the conversion thresholds for what follows (CONFIG SET zset-max-listpack-*):
    /// like Redis, nothing converts now; the next add checks the new limits. O(1), noexcept.
    void set_options(const options& opts) noexcept { opts_ = opts; }

    // ---- ZADD / ZINCRBY ------------------------------------------------------------------------

    /// ZADD key [NX|XX] [GT|LT] score member. O(log n).
    /// \returns what happened to the member.
    /// \throws zset::error for NaN scores or incompatible flags (nothing changes);
    ///         std::bad_alloc (nothing changes). Strong guarantee.
    add_status add(key_view member, Score score, add_flags flags = add_flags::none) {
        check_flags(flags);
        check_score(score);
        return add_checked(member, score, flags);
    }

    /// ZADD with many pairs (each a std::pair<member-like, Score>), applied in order, as Redis
    /// applies them (a later pair for the same member sees the earlier ones). O(k log n).
    /// \returns the number of added members, or added + updated with add_flags::ch.
    /// \throws zset::error for NaN scores or incompatible flags; std::bad_alloc.
    /// Strong guarantee, also when allocation fails part-way: the batch is planned first,
    /// new elements are inserted next to the old ones, and only a final step that cannot fail
    /// removes the replaced elements.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    size_type add(ForwardIt first, ForwardIt last, add_flags flags = add_flags::none) {
        check_flags(flags);
        for (ForwardIt it = first; it != last; ++it) check_score(static_cast<Score>(it->second));
        batch b(*this);
        const size_type counted = b.plan(*this, first, last, flags);
        apply_batch(b);
        return counted;
    }
    size_type add(std::initializer_list<std::pair<key_value, Score>> items,
                  add_flags flags = add_flags::none) {
        return add(items.begin(), items.end(), flags);
    }

    /// ZINCRBY key delta member / ZADD key [NX|XX] [GT|LT] INCR delta member. O(log n).
    /// \returns the new score, or std::nullopt when NX/XX/GT/LT blocked the operation.
    /// \throws zset::error when delta is NaN, when the result would be NaN (inf + -inf) or, for
    ///         integral scores, would overflow. Strong guarantee.
    std::optional<Score> increment(key_view member, Score delta,
                                   add_flags flags = add_flags::none) {
        check_flags(flags);
        check_score(delta);
        const probe k = make_probe(member);
        const position pos = locate(k);
        if (!pos.n) {
            if (has(flags, add_flags::xx)) return std::nullopt;
            insert_new(k, delta);
            return delta;
        }
        if (has(flags, add_flags::nx)) return std::nullopt;
        const Score current = pos.b.score(pos.i);
        const Score next = checked_sum(current, delta);
        if ((has(flags, add_flags::lt) && !(next < current)) ||
            (has(flags, add_flags::gt) && !(next > current)))
            return std::nullopt;
        if (next != current) update_score(k, pos, next);
        return next;
    }

    // ---- ZREM -----------------------------------------------------------------------------------

    /// ZREM key member. O(log n). \returns whether the member was present. Never throws.
    bool erase(key_view member) noexcept {
        const probe k = make_probe(member);
        const position pos = locate(k);
        if (!pos.n) return false;
        if (skiplist_mode_) index_.erase(index_type::tag_of(k.hash), pos.n->id);  // hash known
        release(pos.n, pos.i, pos.i + 1);
        return true;
    }

    /// ZREM key member... over a range of members. \returns how many were removed. Never throws
    /// (beyond what iterating the input may throw).
    template <class InputIt, if_iterator<InputIt> = 0>
    size_type erase(InputIt first, InputIt last) {
        size_type removed = 0;
        for (; first != last; ++first) removed += erase(key_view(*first)) ? 1 : 0;
        return removed;
    }
    size_type erase(std::initializer_list<key_value> members) noexcept {
        return erase(members.begin(), members.end());
    }

    // ---- lookups --------------------------------------------------------------------------------

    /// ZSCORE. Expected O(1) in skiplist mode, O(n/16) in listpack mode. Never throws.
    std::optional<Score> score(key_view member) const noexcept {
        const position pos = locate(make_probe(member));
        if (!pos.n) return std::nullopt;
        return pos.b.score(pos.i);
    }

    /// ZMSCORE: one optional score per member, in order.
    template <class InputIt, if_iterator<InputIt> = 0>
    std::vector<std::optional<Score>> scores(InputIt first, InputIt last) const {
        std::vector<std::optional<Score>> out;
        for (; first != last; ++first) out.push_back(score(key_view(*first)));
        return out;
    }
    std::vector<std::optional<Score>> scores(std::initializer_list<key_value> members) const {
        return scores(members.begin(), members.end());
    }

    /// Whether the member is present. Never throws.
    bool contains(key_view member) const noexcept { return locate(make_probe(member)).n; }

    /// Iterator to the member's element, or end(). Never throws.
    const_iterator find(key_view member) const noexcept {
        const position pos = locate(make_probe(member));
        return pos.n ? const_iterator(pos.n, pos.i) : end();
    }

    /// ZCARD. O(1).
    size_type size() const noexcept { return list_.size(); }
    bool empty() const noexcept { return size() == 0; }
    size_type max_size() const noexcept {
        // block ids are 32-bit; on a 32-bit size_t the address space is the tighter bound
        constexpr std::uint64_t by_ids =
            std::uint64_t{std::numeric_limits<std::uint32_t>::max()} * block_max_entries;
        return static_cast<size_type>(
            std::min<std::uint64_t>(by_ids, std::numeric_limits<size_type>::max()));
    }

    /// ZRANK: 0-based rank in ascending order. O(log n), no key comparisons beyond the lookup.
    std::optional<size_type> rank(key_view member) const noexcept {
        const position pos = locate(make_probe(member));
        if (!pos.n) return std::nullopt;
        return list_.start_rank(pos.n) + pos.i;
    }
    /// ZREVRANK: rank in descending order. O(log n).
    std::optional<size_type> rev_rank(key_view member) const noexcept {
        const auto r = rank(member);
        if (!r) return std::nullopt;
        return size() - 1 - *r;
    }
    /// ZRANK ... WITHSCORE. O(log n).
    std::optional<std::pair<size_type, Score>> rank_with_score(key_view member) const noexcept {
        const position pos = locate(make_probe(member));
        if (!pos.n) return std::nullopt;
        return std::pair<size_type, Score>{list_.start_rank(pos.n) + pos.i, pos.b.score(pos.i)};
    }
    /// ZREVRANK ... WITHSCORE. O(log n).
    std::optional<std::pair<size_type, Score>> rev_rank_with_score(key_view member) const noexcept {
        auto r = rank_with_score(member);
        if (r) r->first = size() - 1 - r->first;
        return r;
    }

    /// ZCOUNT key min max. O(log n).
    size_type count(const score_range<Score>& range) const noexcept {
        const auto [lo, hi] = score_ranks(range);
        return hi - lo;
    }
    /// ZLEXCOUNT key min max. O(log n).
    size_type lex_count(const lex_range<lex_key>& range) const noexcept {
        const auto [lo, hi] = lex_ranks(range);
        return hi - lo;
    }

    // ---- ranges ---------------------------------------------------------------------------------

    /// ZRANGE key start stop: ranks with Redis's negative indices (-1 = last), clamped.
    /// O(log n) to create, O(1) per step.
    rank_range range_by_rank(long long start, long long stop) const noexcept {
        const auto [lo, hi] = clamp_ranks(start, stop);
        return forward_range(lo, hi);
    }
    /// ZREVRANGE key start stop (ZRANGE ... REV): rank 0 is the highest element.
    reverse_range rev_range_by_rank(long long start, long long stop) const noexcept {
        const auto [lo, hi] = clamp_ranks(start, stop);
        return reverse_view(size() - hi, size() - lo);
    }
    /// ZRANGEBYSCORE key min max [LIMIT offset count]. O(log n) to create.
    rank_range range_by_score(const score_range<Score>& range, limit lim = {}) const noexcept {
        const auto [lo, hi] = score_ranks(range);
        const auto [a, b] = apply_limit(lo, hi, lim);
        return forward_range(a, b);
    }
    /// ZREVRANGEBYSCORE key max min [LIMIT offset count]: descending; the offset counts from
    /// the highest element.
    reverse_range rev_range_by_score(const score_range<Score>& range,
                                     limit lim = {}) const noexcept {
        const auto [lo, hi] = score_ranks(range);
        const auto [a, b] = apply_limit_reverse(lo, hi, lim);
        return reverse_view(a, b);
    }
    /// ZRANGEBYLEX key min max [LIMIT offset count]. O(log n) to create.
    rank_range range_by_lex(const lex_range<lex_key>& range, limit lim = {}) const noexcept {
        const auto [lo, hi] = lex_ranks(range);
        const auto [a, b] = apply_limit(lo, hi, lim);
        return forward_range(a, b);
    }
    /// ZREVRANGEBYLEX key max min [LIMIT offset count].
    reverse_range rev_range_by_lex(const lex_range<lex_key>& range, limit lim = {}) const noexcept {
        const auto [lo, hi] = lex_ranks(range);
        const auto [a, b] = apply_limit_reverse(lo, hi, lim);
        return reverse_view(a, b);
    }

    // ---- range removal --------------------------------------------------------------------------

    /// ZREMRANGEBYRANK key start stop. O(log n + m). \returns the number removed. Never throws.
    size_type erase_range_by_rank(long long start, long long stop) noexcept {
        const auto [lo, hi] = clamp_ranks(start, stop);
        return erase_ranks(lo, hi);
    }
    /// ZREMRANGEBYSCORE key min max. O(log n + m). Never throws.
    size_type erase_range_by_score(const score_range<Score>& range) noexcept {
        const auto [lo, hi] = score_ranks(range);
        return erase_ranks(lo, hi);
    }
    /// ZREMRANGEBYLEX key min max. O(log n + m). Never throws.
    size_type erase_range_by_lex(const lex_range<lex_key>& range) noexcept {
        const auto [lo, hi] = lex_ranks(range);
        return erase_ranks(lo, hi);
    }

    /// ZPOPMIN key [count]: removes and returns up to `count` lowest elements, lowest first.
    /// O(log n + count). Strong guarantee (the result is built before anything is removed).
    std::vector<value_type> pop_min(size_type count = 1) {
        const size_type n = std::min(count, size());
        std::vector<value_type> out = copy_ranks(0, n, false);
        erase_ranks(0, n);
        return out;
    }
    /// ZPOPMAX key [count]: removes and returns up to `count` highest elements, highest first.
    std::vector<value_type> pop_max(size_type count = 1) {
        const size_type n = std::min(count, size());
        std::vector<value_type> out = copy_ranks(size() - n, size(), true);
        erase_ranks(size() - n, size());
        return out;
    }

    // ---- ZRANDMEMBER / ZSCAN -------------------------------------------------------------------

    /// ZRANDMEMBER key count. count > 0: min(count, size()) distinct members in random order;
    /// count < 0: |count| members drawn with replacement; 0: none. O(k log n).
    template <class URBG>
    std::vector<value_type> random_members(long long count, URBG&& gen) const {
        std::vector<value_type> out;
        if (count == 0 || empty()) return out;
        std::uniform_int_distribution<size_type> pick(0, size() - 1);
        if (count < 0) {
            const auto draws = static_cast<size_type>(-(count + 1)) + 1;
            out.reserve(draws);
            for (size_type i = 0; i < draws; ++i) out.push_back(owned(*nth(pick(gen))));
            return out;
        }
        const size_type k = std::min(static_cast<size_type>(count), size());
        if (k == size()) {
            for (const auto& e : *this) out.push_back(owned(e));
            std::shuffle(out.begin(), out.end(), gen);
            return out;
        }
        // Floyd's sampling: k distinct ranks in k draws.
        std::unordered_set<size_type> chosen;
        std::vector<size_type> ranks;
        ranks.reserve(k);
        for (size_type j = size() - k; j < size(); ++j) {
            const size_type r = std::uniform_int_distribution<size_type>(0, j)(gen);
            const size_type take_rank = chosen.insert(r).second ? r : j;
            if (take_rank == j) chosen.insert(j);
            ranks.push_back(take_rank);
        }
        std::shuffle(ranks.begin(), ranks.end(), gen);
        out.reserve(k);
        for (size_type r : ranks) out.push_back(owned(*nth(r)));
        return out;
    }

    /// ZSCAN key cursor COUNT count: calls visit(reference) for a batch of about `count`
    /// elements and returns the next cursor (0 when the walk is complete). Start with 0. Every
    /// member present for the whole walk is visited at least once, even if the set grows,
    /// shrinks or converts between calls; some may be visited twice. In listpack mode the whole
    /// set comes in one call (as Redis). O(count) expected per call.
    template <class Visit>
    std::uint64_t scan(std::uint64_t cursor, size_type count, Visit&& visit) const {
        if (!skiplist_mode_) {
            for (const auto& e : *this) visit(e);
            return 0;
        }
        if (cursor > 0xffffffffu) return 0;
        const std::uint64_t span_all = std::uint64_t{1} << 32;
        const std::uint64_t want = std::max<size_type>(count, 1);
        std::uint64_t width = size() == 0 ? span_all : (span_all / size()) * want;
        if (width == 0 || width > span_all) width = span_all;
        const std::uint64_t last = std::min<std::uint64_t>(cursor + width - 1, 0xffffffffu);
        index_.for_each_in_tag_range(static_cast<std::uint32_t>(cursor),
                                     static_cast<std::uint32_t>(last),
                                     [&](std::uint32_t tag, std::uint32_t id) {
                                         const node* n = list_.by_id(id);
                                         const auto fp = static_cast<std::uint8_t>(tag >> 24);
                                         for (size_type i = 0; i < n->data.size(); ++i) {
                                             if (n->data.fingerprint(i) != fp) continue;
                                             const key_view m = n->data.member(i);
                                             if (index_type::tag_of(hash_value(m)) == tag)
                                                 visit(reference{m, n->data.score(i)});
                                         }
                                     });
        return last == 0xffffffffu ? 0 : last + 1;
    }

    // ---- STL side -------------------------------------------------------------------------------

    const_iterator begin() const noexcept { return const_iterator(list_.first(), 0); }
    const_iterator end() const noexcept { return const_iterator(list_.head(), 0); }
    const_iterator cbegin() const noexcept { return begin(); }
    const_iterator cend() const noexcept { return end(); }
    const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

    /// Iterator to the element of rank r (ascending), or end() if r >= size(). O(log n).
    const_iterator nth(size_type r) const noexcept {
        if (r >= size()) return end();
        const auto [n, i] = list_.nth(r);
        return const_iterator(n, i);
    }

    /// Removes every element; the set returns to listpack mode. Never throws.
    void clear() noexcept {
        list_.clear();
        index_.release();
        skiplist_mode_ = false;
    }

    /// OBJECT ENCODING.
    zset::encoding encoding() const noexcept {
        return skiplist_mode_ ? zset::encoding::skiplist : zset::encoding::listpack;
    }

    /// Rebuilds the set compactly; converts back to listpack mode when it fits the thresholds
    /// again. O(n). Strong guarantee.
    void shrink_to_fit() { assign_sorted(begin(), end()); }

    /// Replaces the contents with elements already sorted by (score, member) with unique
    /// members (`reference`s or pairs), in the smallest encoding that fits; options, function
    /// objects and allocator stay. `[first, last)` may be this set's own elements. O(n).
    /// Precondition (checked by validate()): sorted and unique. Strong guarantee.
    /// Invalidates all iterators.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    void assign_sorted(ForwardIt first, ForwardIt last) {
        sorted_set fresh(opts_, hash_, eq_, less_, get_allocator());
        const auto n = static_cast<size_type>(std::distance(first, last));
        fresh.build_from(first, last, n, !fresh.fits_listpack(first, last, n));
        take(fresh);
    }

    /// Bytes allocated by the set (blocks, nodes, node table, hash index) plus sizeof(*this).
    /// Allocator bookkeeping (e.g. malloc headers) is not included. O(number of blocks).
    size_type memory_usage() const noexcept {
        return sizeof(*this) + list_.memory_usage() + index_.memory_usage();
    }

    /// Builds a set from elements already sorted by (score, member) with unique members, in
    /// the smallest encoding that fits (as Redis builds *STORE results). O(n).
    /// Precondition (checked by validate()): sorted and unique. Strong guarantee.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    static sorted_set from_sorted(ForwardIt first, ForwardIt last, const options& opts = options(),
                                  const Allocator& alloc = Allocator()) {
        sorted_set out(opts, alloc);
        out.assign_sorted(first, last);
        return out;
    }

    /// Checks every internal invariant: order, spans, node table, index <-> blocks agreement,
    /// encoding rules. O(n log n). For tests and debugging.
    bool validate() const {
        if (!list_.validate()) return false;
        if (!skiplist_mode_ && (index_.size() != 0 || list_.node_count() > 1)) return false;
        if (skiplist_mode_ && (index_.size() != size() || !index_.validate())) return false;
        bool have_prev = false;
        Score prev_score{};
        Member prev_member{};
        for (const auto& e : *this) {
            if constexpr (std::is_floating_point_v<Score>)
                if (std::isnan(e.score)) return false;
            if (have_prev && !element_less(prev_score, key_view(prev_member), e.score, e.member))
                return false;
            prev_score = e.score;
            prev_member = Member(e.member);
            have_prev = true;
            const position pos = locate(make_probe(e.member));
            if (!pos.n || !eq_(pos.n->data.member(pos.i), e.member) ||
                !(pos.b.score(pos.i) == e.score))
                return false;
        }
        for (const node* n = list_.first(); n != list_.head(); n = n->next(0)) {
            for (size_type i = 0; i < n->data.size(); ++i)
                if (n->data.fingerprint(i) != fingerprint_of(hash_value(n->data.member(i))))
                    return false;
            if (skiplist_mode_ && n->data.size() > block_max_entries) return false;
        }
        return true;
    }

    friend bool operator==(const sorted_set& a, const sorted_set& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const sorted_set& a, const sorted_set& b) { return !(a == b); }

private:
    struct probe {
        key_view member;
        std::uint64_t hash;
    };
    struct position {
        const node* n;
        size_type i;
        block_type b{};  // n's block, when the lookup came through the index (saves a node read)
    };

    std::uint64_t hash_value(key_view m) const noexcept {
        const auto h = static_cast<std::uint64_t>(hash_(m));
        // The index places by the high bits: a user hash that leaves them empty (std::hash of
        // an integer is the identity) would pile every member into one run, so it is mixed.
        if constexpr (detail::is_avalanching_v<Hash>)
            return h;
        else
            return detail::mix_integer(h);
    }
    static std::uint8_t fingerprint_of(std::uint64_t h) noexcept {
        return static_cast<std::uint8_t>(h >> 56);
    }
    probe make_probe(key_view m) const noexcept { return probe{m, hash_value(m)}; }

    static node* mut(const node* n) noexcept { return const_cast<node*>(n); }

    static void check_flags(add_flags f) {
        if (has(f, add_flags::nx) && has(f, add_flags::xx)) detail::raise_error(errors::xx_and_nx);
        const int exclusive = (has(f, add_flags::gt) ? 1 : 0) + (has(f, add_flags::lt) ? 1 : 0) +
                              (has(f, add_flags::nx) ? 1 : 0);
        if (exclusive > 1) detail::raise_error(errors::gt_lt_nx);
    }
    static void check_score(Score s) {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(s)) detail::raise_error(errors::not_a_float);
    }
    static Score checked_sum(Score a, Score b) {
        if constexpr (std::is_floating_point_v<Score>) {
            const Score r = a + b;
            if (std::isnan(r)) detail::raise_error(errors::nan_result);
            return r;
        } else {
            if ((b > 0 && a > std::numeric_limits<Score>::max() - b) ||
                (b < 0 && a < std::numeric_limits<Score>::lowest() - b))
                detail::raise_error(errors::integer_overflow);
            return static_cast<Score>(a + b);
        }
    }

    /// The score as stored: Redis's listpack keeps an integral score as an integer, so a set in
    /// listpack mode stores -0.0 as 0 (visible through std::signbit and in formatted replies);
    /// skiplist mode keeps the double as given.
    static Score stored_score(Score s, zset::encoding mode) noexcept {
        if constexpr (std::is_floating_point_v<Score>)
            if (mode == zset::encoding::listpack && s == Score(0)) return Score(0);
        return s;
    }

    bool element_less(Score as, key_view am, Score bs, key_view bm) const noexcept {
        return as < bs || (!(bs < as) && less_(am, bm));
    }
    static std::pair<Score, key_view> first_key(const node* n) noexcept {
        return {n->first_score, n->data.member_at(0, 0)};
    }
    /// Does node n's first element order before (s, m)? Reads the block only on a score tie.
    bool node_before(const node* n, Score s, key_view m) const noexcept {
        if (n->first_score < s) return true;
        if (s < n->first_score) return false;
        return less_(n->data.member_at(0, 0), m);
    }

    /// Where the member lives, or {nullptr, 0}.
    position locate(const probe& k) const noexcept {
        const std::uint8_t fp = fingerprint_of(k.hash);
        if (!skiplist_mode_) {
            const node* n = list_.first();
            if (n == list_.head()) return {nullptr, 0};
            const size_type i = n->data.find(k.member, fp, eq_);
            return i == block_type::npos ? position{nullptr, 0} : position{n, i, n->data};
        }
        size_type idx = 0;
        block_type found;
        index_.find(index_type::tag_of(k.hash), [&](std::uint32_t cand) {
            const block_type b = list_.block_by_id(cand);
            idx = b.find(k.member, fp, eq_);
            if (idx == block_type::npos) return false;
            found = b;
            return true;
        });
        if (!found) return {nullptr, 0};
        return {list_type::owner_of(found), idx, found};
    }

    size_type limit_entries() const noexcept {
        return skiplist_mode_ ? block_max_entries : std::numeric_limits<size_type>::max();
    }
    /// Listpack mode keeps its single node one level high: no links to pay for.
    int max_height() const noexcept { return skiplist_mode_ ? list_type::max_level : 1; }
    size_type limit_bytes() const noexcept {
        return skiplist_mode_ ? block_max_bytes : std::numeric_limits<size_type>::max();
    }

    add_status add_checked(key_view member, Score score, add_flags flags) {
        const probe k = make_probe(member);
        const position pos = locate(k);
        if (!pos.n) {
            if (has(flags, add_flags::xx)) return add_status::skipped;
            insert_new(k, score);
            return add_status::added;
        }
        if (has(flags, add_flags::nx)) return add_status::skipped;
        const Score current = pos.b.score(pos.i);
        if ((has(flags, add_flags::lt) && !(score < current)) ||
            (has(flags, add_flags::gt) && !(score > current)))
            return add_status::skipped;
        if (score == current) return add_status::unchanged;
        update_score(k, pos, score);
        return add_status::updated;
    }

    /// Descends to where (s, m) belongs and inserts it into the list (not the index).
    std::pair<node*, size_type> insert_element(const probe& k, Score given) {
        const Score s = stored_score(given, encoding());
        path p;
        list_.descend([&](const node* n) { return node_before(n, s, k.member); }, p);
        auto where = list_.locate(p);
        if (where.target) where.index = where.target->data.lower_bound(s, k.member, less_);
        return list_.insert(
            p, where, s, k.member, fingerprint_of(k.hash), limit_entries(), limit_bytes(),
            max_height(), [this](key_view m, Score moved_score, const node* from, const node* to) {
                if (!skiplist_mode_) return;
                // a batch's new copy of an updated member has no index entry yet
                if (transit_ != nullptr && transit_->is_new_copy(m, moved_score)) return;
                index_.replace(index_type::tag_of(hash_value(m)), from->id, to->id);
            });
    }

    /// Inserts a new member (list and index). `may_convert` is false inside a batch, which
    /// settles conversion up front. Strong guarantee.
    void insert_new(const probe& k, Score s, bool may_convert = true) {
        if (may_convert && !skiplist_mode_ &&
            (size() + 1 > opts_.max_listpack_entries ||
             detail::member_size<Member>(k.member) > opts_.max_listpack_value)) {
            // convert a copy and add to it; the set changes (encoding included) only if both
            // succeed
            sorted_set converted = skiplist_copy();
            converted.insert_new(k, s, false);
            take(converted);
            return;
        }
        if (!skiplist_mode_) {
            insert_element(k, s);
            return;
        }
        // Index entry first (it may allocate), under a placeholder id until the element has a
        // block; if the element's insertion throws, the entry is taken out again.
        const std::uint32_t tag = index_type::tag_of(k.hash);
        index_.insert(tag, pending_id);
        std::pair<node*, size_type> placed;
        ZSET_TRY {
            placed = insert_element(k, s);
        }
        ZSET_CATCH_ALL {
            index_.erase(tag, pending_id);
            ZSET_RETHROW;
        }
        index_.replace(tag, pending_id, placed.first->id);
    }

    /// An id no block ever has (block ids stay below 2^32 - 1).
    static constexpr std::uint32_t pending_id = 0xffffffffu;

    /// Changes the score of the element at pos (present, score differs). Strong guarantee.
    void update_score(const probe& k, position pos, Score given) {
        const Score s = stored_score(given, encoding());
        node* x = mut(pos.n);
        block_type& b = x->data;
        const size_type i = pos.i;
        // Still between its neighbours: write the score in place (the common case for small
        // increments, as in Redis).
        const bool after_prev = [&] {
            if (i > 0) return element_less(b.score(i - 1), b.member(i - 1), s, k.member);
            if (x->prev == list_.head()) return true;
            const block_type& pb = x->prev->data;
            return element_less(pb.score(pb.size() - 1), pb.member(pb.size() - 1), s, k.member);
        }();
        const bool before_next = [&] {
            if (i + 1 < b.size()) return element_less(s, k.member, b.score(i + 1), b.member(i + 1));
            const node* nx = x->next(0);
            if (nx == list_.head()) return true;
            const auto fk = first_key(nx);
            return element_less(s, k.member, fk.first, fk.second);
        }();
        if (after_prev && before_next) {
            b.set_score(i, s);
            list_type::refresh_first(x);
            return;
        }
        // Moves inside its block: rotate, no allocation.
        const size_type to = b.lower_bound(s, k.member, less_);
        if (to > 0 && to < b.size()) {
            b.relocate(i, to, s);
            list_type::refresh_first(x);
            return;
        }
        // Elsewhere: insert the new copy first (may throw: nothing changed yet), then remove
        // the old copy and re-point the index. The member bytes are copied out because the
        // old copy's storage moves.
        const Member owned_member(k.member);
        const probe moved_probe{key_view(owned_member), k.hash};
        const Score old_score = b.score(i);
        const auto placed = insert_element(moved_probe, s);
        const position old_pos = find_copy(moved_probe.member, k.hash, old_score);
        const node* old_node = old_pos.n;
        const size_type old_index = old_pos.i;
        const std::uint32_t old_id = old_node->id;
        erase_in_list(old_node, old_index, old_index + 1);
        if (skiplist_mode_) index_.replace(index_type::tag_of(k.hash), old_id, placed.first->id);
    }

    /// A planned batch add: what each distinct member ends up as.
    struct batch {
        struct change {
            Member member;
            std::uint64_t hash;
            std::optional<Score> before;  // score before the batch
            std::optional<Score> after;   // score after every pair for this member
        };
        std::vector<change> changes;
        /// Duplicates within the batch, found with the set's own hash and equality.
        using slot_map = std::unordered_map<key_value, size_type, Hash, KeyEqual>;
        slot_map slot_of;

        explicit batch(const sorted_set& s) : slot_of(make_slots(s)) {}
        static slot_map make_slots(const sorted_set& s) {
            // Stateless function objects are made afresh: copying an empty object trips g++ 12's
            // -Wmaybe-uninitialized, and there is no state to carry.
            if constexpr (std::is_empty_v<Hash> && std::is_empty_v<KeyEqual> &&
                          std::is_default_constructible_v<Hash> &&
                          std::is_default_constructible_v<KeyEqual>) {
                (void)s;
                return slot_map();
            } else {
                return slot_map(0, s.hash_, s.eq_);
            }
        }

        /// Simulates the pairs member by member (flags only ever look at the member's own
        /// score). Returns ZADD's reply. Allocates; changes nothing in the set.
        template <class ForwardIt>
        size_type plan(const sorted_set& s, ForwardIt first, ForwardIt last, add_flags flags) {
            changes.reserve(static_cast<size_type>(std::distance(first, last)));  // keys stay put
            size_type counted = 0;
            for (; first != last; ++first) {
                const key_view m = key_view(first->first);
                const Score score = static_cast<Score>(first->second);
                auto found = slot_of.find(key_value(m));
                if (found == slot_of.end()) {
                    const std::uint64_t h = s.hash_value(m);
                    const position pos = s.locate(probe{m, h});
                    std::optional<Score> cur;
                    if (pos.n) cur = pos.b.score(pos.i);
                    changes.push_back(change{Member(m), h, cur, cur});
                    found =
                        slot_of
                            .emplace(key_value(key_view(changes.back().member)), changes.size() - 1)
                            .first;
                }
                std::optional<Score>& after = changes[found->second].after;
                if (!after) {
                    if (has(flags, add_flags::xx)) continue;
                    after = score;
                    ++counted;
                    continue;
                }
                if (has(flags, add_flags::nx)) continue;
                if ((has(flags, add_flags::lt) && !(score < *after)) ||
                    (has(flags, add_flags::gt) && !(score > *after)) || score == *after)
                    continue;
                after = score;
                if (has(flags, add_flags::ch)) ++counted;
            }
            return counted;
        }
        static bool adds(const change& c) noexcept { return !c.before && c.after; }
        static bool moves(const change& c) noexcept {
            return c.before && c.after && !(*c.before == *c.after);
        }
        /// Is (m, s) the new copy of a member this batch updates?
        bool is_new_copy(key_view m, Score s) const {
            const auto it = slot_of.find(key_value(m));
            return it != slot_of.end() && moves(changes[it->second]) &&
                   *changes[it->second].after == s;
        }
    };

    void apply_batch(batch& b) {
        size_type added = 0, longest = 0;
        for (const auto& c : b.changes)
            if (batch::adds(c)) {
                ++added;
                longest = std::max(longest, detail::member_size<Member>(key_view(c.member)));
            }
        // Convert first if the batch will need it (sizes only grow during a batch add, so this
        // is exactly when applying the pairs one by one would). The old listpack is kept in
        // `previous` until the batch has succeeded.
        sorted_set previous(opts_, get_allocator());
        bool converted_now = false;
        if (!skiplist_mode_ && added > 0 &&
            (size() + added > opts_.max_listpack_entries || longest > opts_.max_listpack_value)) {
            sorted_set converted = skiplist_copy();
            swap_contents(converted);
            previous.swap_contents(converted);
            converted_now = true;
        }
        transit_ = &b;
        size_type done = 0;
        ZSET_TRY {
            if (skiplist_mode_) index_.reserve(size() + added);
            for (auto& c : b.changes) {
                if (!batch::adds(c) && !batch::moves(c)) {
                    ++done;
                    continue;
                }
                const probe k{key_view(c.member), c.hash};
                if (batch::adds(c))
                    insert_new(k, *c.after, false);  // conversion was settled above
                else
                    insert_element(k, *c.after);
                ++done;
            }
        }
        ZSET_CATCH_ALL {
            transit_ = nullptr;
            if (converted_now) {
                swap_contents(previous);  // back to the untouched listpack
            } else {
                for (size_type i = done; i-- > 0;) {
                    const auto& c = b.changes[i];
                    if (batch::adds(c)) {
                        const position pos = locate(probe{key_view(c.member), c.hash});
                        erase_at(pos.n, pos.i, pos.i + 1);
                    } else if (batch::moves(c)) {
                        const position pos = find_element(*c.after, key_view(c.member));
                        erase_in_list(pos.n, pos.i, pos.i + 1);
                    }
                }
            }
            ZSET_RETHROW;
        }
        transit_ = nullptr;
        // Commit: drop the replaced elements and point the index at the new ones. No allocation.
        for (const auto& c : b.changes) {
            if (!batch::moves(c)) continue;
            const key_view m = key_view(c.member);
            const position old_pos = find_copy(m, c.hash, *c.before);
            const std::uint32_t old_id = old_pos.n->id;
            erase_in_list(old_pos.n, old_pos.i, old_pos.i + 1);
            if (skiplist_mode_) {
                const position now = find_element(*c.after, m);
                index_.replace(index_type::tag_of(c.hash), old_id, now.n->id);
            }
        }
    }

    /// The element (s, m), found by descending the skiplist (not through the index).
    position find_element(Score s, key_view m) const noexcept {
        path p;
        list_.descend([&](const node* n) { return node_before(n, s, m); }, p);
        const node* x = p.at[0] == list_.head() ? list_.first() : p.at[0];
        size_type i = x->data.lower_bound(s, m, less_);
        if (i == x->data.size()) {
            x = x->next(0);
            i = 0;
        }
        return {x, i};
    }

    /// The copy of member m whose score is s, found through the index (or the listpack scan).
    position find_copy(key_view m, std::uint64_t h, Score s) const noexcept {
        const std::uint8_t fp = fingerprint_of(h);
        if (!skiplist_mode_) {
            const node* n = list_.first();
            return {n, n->data.find_exact(m, s, fp, eq_)};
        }
        position found{nullptr, 0};
        index_.find(index_type::tag_of(h), [&](std::uint32_t cand) {
            const node* n = list_.by_id(cand);
            const size_type j = n->data.find_exact(m, s, fp, eq_);
            if (j == block_type::npos) return false;
            found = {n, j};
            return true;
        });
        return found;
    }

    /// Exchanges elements and encoding with other (same allocator). Never throws.
    void swap_contents(sorted_set& other) noexcept {
        list_.swap(other.list_);
        index_.swap(other.index_);
        std::swap(skiplist_mode_, other.skiplist_mode_);
    }

    /// Removes [first, last) of node x from the list only. Never throws.
    void erase_in_list(const node* x, size_type first, size_type last) noexcept {
        path p;
        if (x == list_.first()) {
            // nothing precedes the first node: its predecessors are the head at every level
            // (ZPOPMIN and friends skip the search)
            list_.descend([](const node*) { return false; }, p);
        } else {
            const auto fx = first_key(x);
            list_.descend([&](const node* n) { return node_before(n, fx.first, fx.second); }, p);
        }
        list_.erase(p, mut(x), first, last);
    }

    /// Removes [first, last) of node x from the list and the index. Never throws.
    void erase_at(const node* x, size_type first, size_type last) noexcept {
        if (skiplist_mode_) {
            for (size_type i = first; i < last; ++i)
                index_.erase(index_type::tag_of(hash_value(x->data.member(i))), x->id);
        }
        release(x, first, last);
    }
    /// Removes [first, last) of node x from the list, already out of the index; an emptied
    /// set returns to its initial state (listpack mode, nothing allocated). Never throws.
    void release(const node* x, size_type first, size_type last) noexcept {
        erase_in_list(x, first, last);
        if (empty()) clear();
    }

    /// Removes ranks [lo, hi). O(log n * blocks + m). Never throws.
    size_type erase_ranks(size_type lo, size_type hi) noexcept {
        size_type remaining = hi > lo ? hi - lo : 0;
        const size_type removed = remaining;
        while (remaining > 0) {
            const auto [n, i] = list_.nth(lo);
            const size_type here = std::min(remaining, n->data.size() - i);
            erase_at(n, i, i + here);
            remaining -= here;
        }
        return removed;
    }

    std::vector<value_type> copy_ranks(size_type lo, size_type hi, bool descending) const {
        std::vector<value_type> out;
        out.reserve(hi - lo);
        for (auto it = nth(lo); out.size() < hi - lo; ++it) out.push_back(owned(*it));
        if (descending) std::reverse(out.begin(), out.end());
        return out;
    }
    static value_type owned(const reference& e) { return value_type(Member(e.member), e.score); }

    // ---- rank arithmetic ------------------------------------------------------------------------

    /// Number of elements e for which goes_before(e.score, member_of_e) holds, where
    /// member_of_e() yields e's member on demand (score predicates never call it, so a search
    /// by score reads no member bytes). The predicate must hold for a prefix of the order.
    /// O(log n).
    template <class GoesBefore>
    size_type count_before(const GoesBefore& goes_before) const noexcept {
        if (empty()) return 0;
        path p;
        list_.descend(
            [&](const node* n) {
                return goes_before(n->first_score,
                                   [n]() -> key_view { return n->data.member_at(0, 0); });
            },
            p);
        const node* x = p.at[0];
        if (x == list_.head()) return 0;
        const size_type i = x->data.partition_point([&](size_type j) {
            return goes_before(x->data.score(j),
                               [x, j]() -> key_view { return x->data.member(j); });
        });
        return p.rank[0] + i;
    }

    std::pair<size_type, size_type> score_ranks(const score_range<Score>& r) const noexcept {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(r.min.value) || std::isnan(r.max.value))
                return {0, 0};  // matches nothing
        const size_type lo = count_before([&](Score s, const auto&) {
            return r.min.exclusive ? !(r.min.value < s) : s < r.min.value;
        });
        const size_type hi = count_before([&](Score s, const auto&) {
            return r.max.exclusive ? s < r.max.value : !(r.max.value < s);
        });
        return {lo, std::max(lo, hi)};
    }

    std::pair<size_type, size_type> lex_ranks(const lex_range<lex_key>& r) const noexcept {
        using kind = typename lex_bound<lex_key>::kind;
        const auto before_min = [&](Score, const auto& member_of) {
            const key_view m = member_of();
            switch (r.min.type) {
            case kind::inclusive:
                return less_(m, key_view(r.min.value));
            case kind::exclusive:
                return !less_(key_view(r.min.value), m);
            case kind::minus_infinity:
                return false;
            case kind::plus_infinity:
                return true;
            }
            return false;
        };
        const auto before_max_end = [&](Score, const auto& member_of) {
            const key_view m = member_of();
            switch (r.max.type) {
            case kind::inclusive:
                return !less_(key_view(r.max.value), m);
            case kind::exclusive:
                return less_(m, key_view(r.max.value));
            case kind::minus_infinity:
                return false;
            case kind::plus_infinity:
                return true;
            }
            return false;
        };
        const size_type lo = count_before(before_min);
        const size_type hi = count_before(before_max_end);
        return {lo, std::max(lo, hi)};
    }

    std::pair<size_type, size_type> clamp_ranks(long long start, long long stop) const noexcept {
        const auto n = static_cast<long long>(size());
        if (start < 0) start += n;
        if (stop < 0) stop += n;
        if (start < 0) start = 0;
        if (start > stop || start >= n) return {0, 0};
        if (stop >= n) stop = n - 1;
        return {static_cast<size_type>(start), static_cast<size_type>(stop) + 1};
    }

    static std::pair<size_type, size_type> apply_limit(size_type lo, size_type hi,
                                                       limit lim) noexcept {
        if (lim.offset < 0) return {lo, lo};
        const auto off = static_cast<unsigned long long>(lim.offset);
        const size_type a = off >= hi - lo ? hi : lo + static_cast<size_type>(off);
        size_type b = hi;
        if (lim.count >= 0 && static_cast<unsigned long long>(lim.count) < hi - a)
            b = a + static_cast<size_type>(lim.count);
        return {a, b};
    }
    static std::pair<size_type, size_type> apply_limit_reverse(size_type lo, size_type hi,
                                                               limit lim) noexcept {
        if (lim.offset < 0) return {hi, hi};
        const auto off = static_cast<unsigned long long>(lim.offset);
        const size_type b = off >= hi - lo ? lo : hi - static_cast<size_type>(off);
        size_type a = lo;
        if (lim.count >= 0 && static_cast<unsigned long long>(lim.count) < b - lo)
            a = b - static_cast<size_type>(lim.count);
        return {a, b};
    }

    rank_range forward_range(size_type lo, size_type hi) const noexcept {
        if (lo >= hi) return rank_range(end(), end(), 0);
        return rank_range(nth(lo), nth(hi), hi - lo);
    }
    /// Ranks [lo, hi) walked from hi - 1 down to lo.
    reverse_range reverse_view(size_type lo, size_type hi) const noexcept {
        if (lo >= hi) return reverse_range(rend(), rend(), 0);
        return reverse_range(const_reverse_iterator(nth(hi)), const_reverse_iterator(nth(lo)),
                             hi - lo);
    }

    // ---- building and conversion --------------------------------------------------------------

    template <class It>
    bool fits_listpack(It first, It last, size_type n) const {
        if (n == 0) return true;
        if (n > opts_.max_listpack_entries) return false;
        for (; first != last; ++first)
            if (detail::member_size<Member>(key_view(element_member(*first))) >
                opts_.max_listpack_value)
                return false;
        return true;
    }

    template <class E>
    static decltype(auto) element_member(const E& e) {
        if constexpr (std::is_same_v<E, reference>)
            return e.member;
        else
            return (e.first);
    }
    template <class E>
    static Score element_score(const E& e) {
        if constexpr (std::is_same_v<E, reference>)
            return e.score;
        else
            return static_cast<Score>(e.second);
    }

    /// Fills this (empty) set from sorted unique elements, in the given encoding. Strong
    /// guarantee: on exception this stays empty.
    template <class It>
    void build_from(It first, It last, size_type n, bool as_skiplist) {
        list_type fresh(get_allocator());
        index_type fresh_index(get_allocator());
        if (as_skiplist) fresh_index.reserve(n);
        const size_type max_entries = as_skiplist ? block_max_entries : n;
        const size_type max_bytes =
            as_skiplist ? block_max_bytes : std::numeric_limits<size_type>::max();
        while (first != last) {
            // one block: up to max_entries elements and (softly) max_bytes member bytes
            It chunk_end = first;
            size_type count = 0, heap = 0;
            while (chunk_end != last && count < max_entries) {
                const size_type need = block_type::heap_need(key_view(element_member(*chunk_end)));
                if (count > 0 && heap + need > max_bytes) break;
                heap += need;
                ++count;
                ++chunk_end;
            }
            node* made = fresh.append_node(
                count, heap, as_skiplist ? list_type::max_level : 1, [&](block_type b) {
                    for (It it = first; it != chunk_end; ++it) {
                        const key_view m = key_view(element_member(*it));
                        const std::uint8_t fp = fingerprint_of(hash_value(m));
                        const Score sc = stored_score(element_score(*it),
                                                      as_skiplist ? zset::encoding::skiplist
                                                                  : zset::encoding::listpack);
                        if constexpr (byte_members)
                            b.insert(b.size(), sc, m, fp);
                        else
                            b.insert_object(b.size(), sc, Member(m), fp);
                    }
                });
            if (as_skiplist) {
                for (size_type i = 0; i < made->data.size(); ++i)
                    fresh_index.insert(index_type::tag_of(hash_value(made->data.member(i))),
                                       made->id);
            }
            first = chunk_end;
        }
        list_.swap(fresh);
        index_.swap(fresh_index);
        skiplist_mode_ = as_skiplist && n > 0;
    }

    /// A copy of this set in skiplist mode (same allocator, options and functors). O(n).
    sorted_set skiplist_copy() const {
        sorted_set converted(opts_, get_allocator());
        converted.hash_ = hash_;
        converted.eq_ = eq_;
        converted.less_ = less_;
        converted.build_from(begin(), end(), size(), true);
        converted.skiplist_mode_ = true;
        return converted;
    }

    /// Takes other's contents (same allocator). Never throws.
    void take(sorted_set& other) noexcept {
        list_.steal(other.list_);
        index_.release();
        index_.swap(other.index_);
        opts_ = other.opts_;
        skiplist_mode_ = std::exchange(other.skiplist_mode_, false);
        hash_ = other.hash_;  // a stateful hash (e.g. seeded) must travel with the elements
        eq_ = other.eq_;
        less_ = other.less_;
    }

    options opts_;
    list_type list_;
    index_type index_;
    bool skiplist_mode_ = false;
    const batch* transit_ = nullptr;  // the batch add in progress, if any
    Hash hash_{};
    KeyEqual eq_{};
    Compare less_{};
};

#if defined(ZSET_HAS_MEMORY_RESOURCE)
namespace pmr {
/// zset::sorted_set on a std::pmr::memory_resource: blocks, nodes, the node table and the
/// index all come from the resource given at construction.
template <class Member = std::string, class Score = double, class Hash = zset::hash<Member>,
          class KeyEqual = std::equal_to<>, class Compare = std::less<>>
using sorted_set = zset::sorted_set<Member, Score, Hash, KeyEqual, Compare,
                                    std::pmr::polymorphic_allocator<Member>>;
}  // namespace pmr
#endif

}  // namespace zset
