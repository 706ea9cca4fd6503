// zset::sorted_set — the Redis sorted set (ZSET) as a C++ container.
// SPDX-License-Identifier: MIT
//
// This header is the container's API: the class below lists its members in the order
// cppreference lists a container's (construction, iterators, capacity, modifiers, lookup), then
// zset's own groups (ranks and counts, ranges, range removal and pops, random members and scan,
// observers and options, maintenance). Each member says what it does, its Redis counterpart,
// its complexity and its exception guarantee, and forwards to the engine,
// detail::set_engine (detail/container/set_engine.hpp, whose top comment describes the layout;
// its operations are in detail/container/engine/, one file per responsibility). element and
// range_view, what iterators yield and ranges return, are in element.hpp.
//
// Encodings. A small set is one block of records with no index, as Redis's listpack
// (encoding::listpack); adding a member beyond `max_listpack_entries` elements, or longer than
// `max_listpack_value` bytes, converts it to skiplist mode (encoding::skiplist): blocks of at
// most 128 elements in a skiplist with a counted B+tree for ranks, plus a hash index from member
// to record. Score updates never convert; erasing never converts back, except that an emptied
// set starts over in listpack mode; shrink_to_fit() converts back when the set fits again.
//
// Iterator invalidation: any insertion, erasure, score update or conversion may invalidate every
// iterator, view and member string_view into the set. Lookups never do.
//
// Exception guarantees: every single-element operation gives the strong guarantee, including
// when allocation or a member's copy throws (it allocates and copies everything it needs before
// changing anything observable). Invalid arguments throw zset::error (what() is Redis's error
// text) before anything changes. Hash, KeyEqual and Compare must not throw. At most 254 members
// may share one Hash value (the index keeps an entry within 253 slots of its home): adding the
// 255th throws std::length_error and changes nothing. Hash values are mixed before use, so only
// equal values count.
//
// Thread safety: as the standard containers — concurrent calls of const member functions on one
// set are safe; any non-const call needs exclusive access.
#ifndef ZSET_SORTED_SET_HPP
#define ZSET_SORTED_SET_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#if __has_include(<memory_resource>)
#include <memory_resource>
#define ZSET_HAS_MEMORY_RESOURCE 1
#endif
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"
#include "detail/container/engine.hpp"
#include "detail/container/hash.hpp"  // zset::hash, std::equal_to<> and std::less<>
#include "element.hpp"

namespace zset {

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
    static_assert(!std::is_same_v<Score, bool>, "zset: Score must be a number, not bool");
    // The function objects are called with member views: std::string_view for std::string
    // members (so a hash taking `const std::string&` does not fit), `const Member&` otherwise.
    using member_arg = detail::member_view_t<Member>;
    static_assert(std::is_invocable_r_v<std::uint64_t, const Hash&, member_arg>,
                  "zset: Hash must be callable as hash(key_view) -> an unsigned 64-bit value "
                  "(key_view is std::string_view for std::string members)");
    static_assert(std::is_invocable_r_v<bool, const KeyEqual&, member_arg, member_arg>,
                  "zset: KeyEqual must be callable as equal(key_view, key_view) -> bool");
    static_assert(std::is_invocable_r_v<bool, const Compare&, member_arg, member_arg>,
                  "zset: Compare must be callable as less(key_view, key_view) -> bool");

    using engine_type =
        detail::set_engine<detail::set_params<Member, Score, Hash, KeyEqual, Compare, Allocator>>;
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
    // ---- member types -------------------------------------------------------------------------

    using member_type = Member;
    using score_type = Score;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using allocator_type = Allocator;
    using hasher = Hash;
    using key_equal = KeyEqual;
    using member_compare = Compare;
    /// How members are passed in and handed out: std::string_view for std::string members.
    using key_view = typename engine_type::key_view;
    /// A member held by value in argument lists and lex bounds: std::string_view for strings,
    /// Member otherwise.
    using key_value = typename engine_type::key_value;
    using lex_key = key_value;
    /// An owning element, as returned by pop_min / pop_max / random_members.
    using value_type = std::pair<Member, Score>;
    /// What pop_min / pop_max / random_members return: a vector using the set's allocator
    /// (std::vector<value_type> for the default allocator).
    using value_vector = typename engine_type::value_vector;
    /// What scores() (ZMSCORE) returns, on the set's allocator.
    using score_vector = typename engine_type::score_vector;
    /// What iterators yield: an element view, by value.
    using reference = element<key_view, Score>;
    using const_reference = reference;
    /// Bidirectional iterator over elements in (score, member) order. Dereferences to a
    /// reference (an element view) by value, so it is a proxy iterator.
    using const_iterator = typename engine_type::const_iterator;
    using iterator = const_iterator;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using reverse_iterator = const_reverse_iterator;
    using rank_range = range_view<const_iterator>;
    using reverse_range = range_view<const_reverse_iterator>;

    /// Elements beyond this many per block split (skiplist mode).
    static constexpr size_type block_max_entries = engine_type::block_max_entries;
    /// Record bytes (score, length and member) beyond this many per block split (skiplist
    /// mode; soft: a block always takes at least one element).
    static constexpr size_type block_max_bytes = engine_type::block_max_bytes;

    // ---- construction, destruction, assignment ------------------------------------------------

    /// An empty set (listpack mode) with the default options. Not explicit, so
    /// `sorted_set<> s = {};` and `return {};` work. O(1); allocates nothing. Redis: a key that
    /// does not exist yet.
    sorted_set() : sorted_set(options()) {}
    /// An empty set with the given conversion thresholds (Redis: CONFIG SET
    /// zset-max-listpack-entries / -value, per set). O(1); allocates nothing.
    explicit sorted_set(const options& opts, const Allocator& alloc = Allocator())
        : engine_(opts, alloc) {}
    /// An empty set on the given allocator. O(1); allocates nothing.
    explicit sorted_set(const Allocator& alloc) : sorted_set(options(), alloc) {}
    /// An empty set with given function objects (e.g. a seeded hash). O(1); allocates nothing.
    sorted_set(const options& opts, const Hash& hash, const KeyEqual& equal = KeyEqual(),
               const Compare& compare = Compare(), const Allocator& alloc = Allocator())
        : engine_(opts, hash, equal, compare, alloc) {}
    /// Adds each (member, score) pair in order, as one ZADD. O(k log k). Throws zset::error for
    /// an invalid score; std::bad_alloc.
    sorted_set(std::initializer_list<std::pair<key_value, score_arg<Score>>> items,
               const options& opts = options(), const Allocator& alloc = Allocator())
        : sorted_set(opts, alloc) {
        add(items.begin(), items.end());
    }
    /// Copies elements, options, function objects and encoding; the allocator comes from
    /// select_on_container_copy_construction. O(n). Redis: COPY. Throws std::bad_alloc or what a
    /// Member copy throws.
    sorted_set(const sorted_set& other) : engine_(other.engine_) {}
    /// The same copy on the given allocator. O(n).
    sorted_set(const sorted_set& other, const Allocator& alloc) : engine_(other.engine_, alloc) {}
    /// Takes other's elements in O(1); other is left empty. Never throws. The function objects
    /// are copied, not moved: the moved-from set stays usable, hash and all. Redis: RENAME.
    sorted_set(sorted_set&& other) noexcept : engine_(std::move(other.engine_)) {}

    /// Frees everything. O(number of blocks), plus O(n) for non-string members. Never throws.
    ~sorted_set() = default;

    /// Copy assignment. O(n). Strong guarantee (copy, then swap in).
    sorted_set& operator=(const sorted_set& other) {
        if (this != &other) engine_ = other.engine_;
        return *this;
    }
    /// Move assignment: O(1) when the allocator propagates or compares equal, else a copy
    /// (then strong guarantee). Never throws in the first two cases.
    sorted_set& operator=(sorted_set&& other) noexcept(
        std::allocator_traits<Allocator>::propagate_on_container_move_assignment::value ||
        std::allocator_traits<Allocator>::is_always_equal::value) {
        engine_ = std::move(other.engine_);
        return *this;
    }

    /// The allocator the set was built with. O(1). Never throws.
    [[nodiscard]] allocator_type get_allocator() const noexcept { return engine_.get_allocator(); }

    // ---- iterators ----------------------------------------------------------------------------
    // Redis: ZRANGE key 0 -1 WITHSCORES walks begin() to end(); ZREVRANGE, rbegin() to rend().
    // O(1) each, and each step O(1); never throw.

    /// The lowest element, or end() when the set is empty.
    [[nodiscard]] const_iterator begin() const noexcept { return engine_.begin(); }
    /// Past the highest element.
    [[nodiscard]] const_iterator end() const noexcept { return engine_.end(); }
    [[nodiscard]] const_iterator cbegin() const noexcept { return begin(); }
    [[nodiscard]] const_iterator cend() const noexcept { return end(); }
    /// The highest element, walking down.
    [[nodiscard]] const_reverse_iterator rbegin() const noexcept { return engine_.rbegin(); }
    [[nodiscard]] const_reverse_iterator rend() const noexcept { return engine_.rend(); }

    // ---- capacity -----------------------------------------------------------------------------

    /// Whether the set has no element (Redis: the key does not exist). O(1). Never throws.
    [[nodiscard]] bool empty() const noexcept { return engine_.empty(); }
    /// ZCARD. O(1). Never throws.
    [[nodiscard]] size_type size() const noexcept { return engine_.size(); }
    /// The most elements a set can hold (ranks are 32-bit). O(1). Never throws.
    [[nodiscard]] size_type max_size() const noexcept { return engine_.max_size(); }
    /// Makes room for n elements in all, so that adding up to n - size() new members does not
    /// grow what their count decides: the listpack block's positions (and its record area, at
    /// the set's average record size, or a 16-byte member's in an empty set), or, for n past
    /// max_listpack_entries, the hash index, converting to skiplist mode first (an empty set
    /// so reserved is in skiplist mode; a copy of it is not). Blocks still split as they fill.
    /// No-op when n <= size(). Redis: the size hint with which ZADD and the *STORE commands
    /// create a key (listpack or skiplist by the count). O(size() + n). Throws
    /// std::length_error for n past max_size() or past what the index can hold (2^31 slots),
    /// std::bad_alloc; strong guarantee.
    void reserve(size_type n) { engine_.reserve(n); }

    // ---- modifiers ----------------------------------------------------------------------------

    /// Removes every element; the set returns to listpack mode (Redis: DEL). O(number of
    /// blocks). Never throws.
    void clear() noexcept { engine_.clear(); }

    /// ZADD key [NX|XX] [GT|LT] score member. O(log n) (listpack mode: O(n), n small).
    /// \returns what happened to the member.
    /// \throws zset::error for a score Score cannot hold (NaN; a fraction or an out-of-range
    ///         value for an integral Score: see score_arg) or incompatible flags;
    ///         std::bad_alloc. Nothing changes then. Strong guarantee.
    add_status add(key_view member, score_arg<Score> score, add_flags flags = add_flags::none) {
        return engine_.add(member, score, flags);
    }
    /// ZADD with many pairs (each a std::pair<member-like, score-like>), applied in order, as
    /// Redis applies them (a later pair for the same member sees the earlier ones). A score of
    /// another arithmetic type converts only when the value fits Score exactly (integral
    /// Scores take no fractions); otherwise zset::error. O(k log n).
    /// \returns the number of added members, or added + updated with add_flags::ch.
    /// \throws zset::error for NaN or unrepresentable scores or incompatible flags;
    ///         std::bad_alloc; whatever a Member copy throws. Strong guarantee: the batch is
    ///         planned first, new copies of updated members are inserted beside the old ones,
    ///         and only a final step that cannot fail removes the replaced elements.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    size_type add(ForwardIt first, ForwardIt last, add_flags flags = add_flags::none) {
        return engine_.add(first, last, flags);
    }
    /// ZADD with the pairs of a braced list. As add(first, last, flags).
    size_type add(std::initializer_list<std::pair<key_value, score_arg<Score>>> items,
                  add_flags flags = add_flags::none) {
        return add(items.begin(), items.end(), flags);
    }

    /// ZINCRBY key delta member / ZADD key [NX|XX] [GT|LT] INCR delta member. O(log n).
    /// \returns the new score, or std::nullopt when NX/XX/GT/LT blocked the operation.
    /// \throws zset::error when delta is NaN, when the result would be NaN (inf + -inf) or, for
    ///         integral scores, would overflow; std::bad_alloc. Strong guarantee.
    std::optional<Score> increment(key_view member, score_arg<Score> delta,
                                   add_flags flags = add_flags::none) {
        return engine_.increment(member, delta, flags);
    }

    /// ZREM key member. O(log n). \returns whether the member was present. Never throws.
    bool erase(key_view member) noexcept { return engine_.erase(member); }
    /// ZREM key member... over a range of members. O(k log n). \returns how many were removed.
    /// Never throws (beyond what iterating the input may throw).
    template <class InputIt, if_iterator<InputIt> = 0>
    size_type erase(InputIt first, InputIt last) {
        static_assert(
            std::is_constructible_v<key_view, typename std::iterator_traits<InputIt>::reference>,
            "zset: erase(first, last) takes a range of members (strings for a set of "
            "strings), or this set's own const_iterators / reverse iterators");
        return engine_.erase_members(first, last);
    }
    /// ZREM key member... with a braced list of members. O(k log n). Never throws.
    size_type erase(std::initializer_list<key_value> members) noexcept {
        return erase(members.begin(), members.end());
    }
    /// Removes the element at `pos`, an iterator of this set (not end()). O(log n).
    /// \returns the iterator to the element that followed it. Never throws. Redis: ZREM.
    const_iterator erase(const_iterator pos) noexcept { return erase(pos, std::next(pos)); }
    /// Removes the elements [first, last), iterators of this set (a rank_range's begin() and
    /// end(), say). O(log n + m). \returns the iterator to the element that followed them.
    /// Never throws. Redis: ZREMRANGEBYRANK.
    // Iterators are taken by value, as the standard containers take them.
    // cppcheck-suppress passedByValue
    const_iterator erase(const_iterator first, const_iterator last) noexcept {
        return engine_.erase(first, last);
    }
    /// Removes the elements of a reverse range (rev_range_by_*), given as reverse iterators.
    /// O(log n + m). Never throws.
    const_iterator erase(const_reverse_iterator first, const_reverse_iterator last) noexcept {
        return erase(last.base(), first.base());
    }

    /// Swaps contents in O(1); allocators are swapped only when they propagate on swap. Never
    /// throws. No Redis counterpart.
    void swap(sorted_set& other) noexcept { engine_.swap(other.engine_); }

    // ---- lookup -------------------------------------------------------------------------------

    /// ZSCORE key member. Expected O(1) in skiplist mode (one index slot and one record read),
    /// O(n/16) in listpack mode. Never throws.
    [[nodiscard]] ZSET_ALWAYS_INLINE std::optional<Score> score(key_view member) const noexcept {
        // The optional is built here, in the caller (engine/operations.hpp, set_engine::score):
        // passed up from the engine's score() instead, g++ tests the lookup's result again.
        Score found;
        if (!engine_.find_score(member, found)) return std::nullopt;
        return found;
    }
    /// ZMSCORE key member...: one optional score per member, in order. O(k). Throws
    /// std::bad_alloc (the result).
    template <class InputIt, if_iterator<InputIt> = 0>
    [[nodiscard]] score_vector scores(InputIt first, InputIt last) const {
        return engine_.scores(first, last);
    }
    /// ZMSCORE with a braced list of members. O(k). Throws std::bad_alloc.
    [[nodiscard]] score_vector scores(std::initializer_list<key_value> members) const {
        return scores(members.begin(), members.end());
    }
    /// Iterator to the member's element, or end(). Expected O(1) in skiplist mode. Never
    /// throws. Redis: ZSCORE (where the element is).
    [[nodiscard]] const_iterator find(key_view member) const noexcept {
        return engine_.find(member);
    }
    /// Whether the member is present. Expected O(1) in skiplist mode. Never throws. Redis:
    /// ZSCORE key member is not nil.
    [[nodiscard]] bool contains(key_view member) const noexcept { return engine_.contains(member); }

    // ---- ranks and counts ---------------------------------------------------------------------

    /// ZRANK key member: 0-based rank in ascending order. O(log n). Never throws.
    [[nodiscard]] std::optional<size_type> rank(key_view member) const noexcept {
        return engine_.rank(member);
    }
    /// ZREVRANK key member: rank in descending order. O(log n). Never throws.
    [[nodiscard]] std::optional<size_type> rev_rank(key_view member) const noexcept {
        const auto r = rank(member);
        if (!r) return std::nullopt;
        return size() - 1 - *r;
    }
    /// ZRANK key member WITHSCORE. O(log n). Never throws.
    [[nodiscard]] std::optional<std::pair<size_type, Score>>
    rank_with_score(key_view member) const noexcept {
        return engine_.rank_with_score(member);
    }
    /// ZREVRANK key member WITHSCORE. O(log n). Never throws.
    [[nodiscard]] std::optional<std::pair<size_type, Score>>
    rev_rank_with_score(key_view member) const noexcept {
        auto r = rank_with_score(member);
        if (r) r->first = size() - 1 - r->first;
        return r;
    }
    /// Iterator to the element of rank r (ascending), or end() if r >= size(). O(log n). Never
    /// throws. Redis: ZRANGE key r r.
    [[nodiscard]] const_iterator nth(size_type r) const noexcept { return engine_.nth(r); }
    /// ZCOUNT key min max. O(log n). Never throws.
    [[nodiscard]] size_type count(const score_range<Score>& range) const noexcept {
        return engine_.count(range);
    }
    /// ZLEXCOUNT key min max. O(log n). Never throws.
    [[nodiscard]] size_type lex_count(const lex_range<lex_key>& range) const noexcept {
        return engine_.lex_count(range);
    }

    // ---- ranges -------------------------------------------------------------------------------
    // Lazy views: O(log n) to create, O(1) a step, allocate nothing, never throw; invalidated
    // like iterators.

    /// ZRANGE key start stop: ranks with Redis's negative indices (-1 = last), clamped.
    [[nodiscard]] rank_range range_by_rank(long long start, long long stop) const noexcept {
        return engine_.range_by_rank(start, stop);
    }
    /// ZREVRANGE key start stop (ZRANGE ... REV): rank 0 is the highest element.
    [[nodiscard]] reverse_range rev_range_by_rank(long long start, long long stop) const noexcept {
        return engine_.rev_range_by_rank(start, stop);
    }
    /// ZRANGEBYSCORE key min max [LIMIT offset count].
    [[nodiscard]] rank_range range_by_score(const score_range<Score>& range,
                                            limit lim = {}) const noexcept {
        return engine_.range_by_score(range, lim);
    }
    /// ZREVRANGEBYSCORE key max min [LIMIT offset count]: descending; the offset counts from
    /// the highest element. Takes {min, max}, not Redis's max min.
    [[nodiscard]] reverse_range rev_range_by_score(const score_range<Score>& range,
                                                   limit lim = {}) const noexcept {
        return engine_.rev_range_by_score(range, lim);
    }
    /// ZRANGEBYLEX key min max [LIMIT offset count].
    [[nodiscard]] rank_range range_by_lex(const lex_range<lex_key>& range,
                                          limit lim = {}) const noexcept {
        return engine_.range_by_lex(range, lim);
    }
    /// ZREVRANGEBYLEX key max min [LIMIT offset count]. Takes {min, max}.
    [[nodiscard]] reverse_range rev_range_by_lex(const lex_range<lex_key>& range,
                                                 limit lim = {}) const noexcept {
        return engine_.rev_range_by_lex(range, lim);
    }

    // ---- range removal and pops ---------------------------------------------------------------

    /// ZREMRANGEBYRANK key start stop. O(log n + m). \returns the number removed. Never throws.
    size_type erase_range_by_rank(long long start, long long stop) noexcept {
        return engine_.erase_range_by_rank(start, stop);
    }
    /// ZREMRANGEBYSCORE key min max. O(log n + m). \returns the number removed. Never throws.
    size_type erase_range_by_score(const score_range<Score>& range) noexcept {
        return engine_.erase_range_by_score(range);
    }
    /// ZREMRANGEBYLEX key min max. O(log n + m). \returns the number removed. Never throws.
    size_type erase_range_by_lex(const lex_range<lex_key>& range) noexcept {
        return engine_.erase_range_by_lex(range);
    }
    /// ZPOPMIN key [count]: removes and returns up to `count` lowest elements, lowest first.
    /// O(log n + count). Strong guarantee (the result is built before anything is removed).
    value_vector pop_min(size_type count = 1) {
        return engine_.pop(count, engine_type::end_of_set::low);
    }
    /// ZPOPMAX key [count]: removes and returns up to `count` highest elements, highest first.
    /// O(log n + count). Strong guarantee.
    value_vector pop_max(size_type count = 1) {
        return engine_.pop(count, engine_type::end_of_set::high);
    }

    // ---- random members and scan --------------------------------------------------------------

    /// ZRANDMEMBER key count. count > 0: min(count, size()) distinct members in random order;
    /// count < 0: |count| members drawn with replacement; 0: none. Draws with `gen`. O(k log n).
    /// Throws std::bad_alloc; std::length_error when |count| elements cannot be held.
    template <class URBG>
    [[nodiscard]] value_vector random_members(long long count, URBG&& gen) const {
        return engine_.random_members(count, gen);
    }
    /// ZSCAN key cursor COUNT count: calls visit(reference) for a batch of about `count`
    /// elements and returns the next cursor (0 when the walk is complete). Start with 0. Every
    /// member present for the whole walk is visited at least once, even if the set grows,
    /// shrinks or converts between calls; some may be visited twice. In listpack mode the whole
    /// set comes in one call (as Redis). O(count) expected per call. Throws what visit throws.
    template <class Visit>
    std::uint64_t scan(std::uint64_t cursor, size_type count, Visit&& visit) const {
        return engine_.scan(cursor, count, std::forward<Visit>(visit));
    }

    // ---- observers and options ----------------------------------------------------------------
    // O(1) each. Redis has no counterpart for the function objects; the options are its
    // zset-max-listpack-entries / -value configuration, per set.

    /// The hash the set was built with (copied by set operations into results). Throws what
    /// copying it throws.
    [[nodiscard]] hasher hash_function() const { return engine_.hash_function(); }
    /// The member equality the set was built with.
    [[nodiscard]] key_equal key_eq() const { return engine_.key_eq(); }
    /// The member order (for equal scores) the set was built with.
    [[nodiscard]] member_compare member_comp() const { return engine_.member_comp(); }
    /// CONFIG GET zset-max-listpack-*: the conversion thresholds (a threshold above 2^32 - 1
    /// reads back as 2^32 - 1: the set keeps them in 32 bits, and no listpack reaches either).
    /// Never throws.
    [[nodiscard]] options get_options() const noexcept { return engine_.get_options(); }
    /// CONFIG SET zset-max-listpack-*: changes the conversion thresholds for what follows. Like
    /// Redis, nothing converts now; the next add checks the new limits. Never throws.
    void set_options(const options& opts) noexcept { engine_.set_options(opts); }

    // ---- maintenance --------------------------------------------------------------------------

    /// OBJECT ENCODING key. O(1). Never throws.
    [[nodiscard]] zset::encoding encoding() const noexcept { return engine_.encoding(); }
    /// Rebuilds the set without spare room in its blocks (the next insert into a block copies
    /// it); converts back to listpack mode when it fits the thresholds again (Redis converts
    /// back only on reload: DEBUG RELOAD). O(n). Strong guarantee.
    void shrink_to_fit() { engine_.shrink_to_fit(); }
    /// MEMORY USAGE key: bytes allocated by the set (blocks, out-of-line members, node pool,
    /// hash index) plus sizeof(*this). Allocator bookkeeping (e.g. malloc headers) is not
    /// included. O(number of blocks). Never throws.
    [[nodiscard]] size_type memory_usage() const noexcept { return engine_.memory_usage(); }
    /// Replaces the contents with elements already sorted by (score, member) with unique
    /// members (`reference`s or pairs), in the smallest encoding that fits; options, function
    /// objects and allocator stay. `[first, last)` may be this set's own elements (Redis:
    /// ZRANGESTORE). O(n). Precondition (checked by validate()): sorted and unique. Strong
    /// guarantee. Invalidates all iterators.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    void assign_sorted(ForwardIt first, ForwardIt last) {
        engine_.assign_sorted(first, last);
    }
    /// Builds a set from elements already sorted by (score, member) with unique members, in
    /// the smallest encoding that fits (as Redis builds *STORE results). O(n).
    /// Precondition (checked by validate()): sorted and unique. Strong guarantee.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    [[nodiscard]] static sorted_set from_sorted(ForwardIt first, ForwardIt last,
                                                const options& opts = options(),
                                                const Allocator& alloc = Allocator()) {
        sorted_set out(opts, alloc);
        out.assign_sorted(first, last);
        return out;
    }
    /// Checks every internal invariant: order, links, rank counts, blocks, node pool, index <->
    /// records agreement, fingerprints, encoding rules. For tests and debugging; no Redis
    /// counterpart. O(n log n); O(n^2) in listpack mode. Throws what a Member copy throws.
    [[nodiscard]] bool validate() const { return engine_.validate(); }

    // ---- non-member functions -----------------------------------------------------------------

    /// The same elements in the same order (options, encodings and allocators aside). O(n).
    /// Never throws beyond what comparing members throws.
    friend bool operator==(const sorted_set& a, const sorted_set& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const sorted_set& a, const sorted_set& b) { return !(a == b); }
    /// a.swap(b). O(1). Never throws.
    friend void swap(sorted_set& a, sorted_set& b) noexcept { a.swap(b); }

private:
    engine_type engine_;  // all of the set's state: the set is its engine
};

#if defined(ZSET_HAS_MEMORY_RESOURCE)
namespace pmr {
/// zset::sorted_set on a std::pmr::memory_resource: blocks, node pool, index and batch
/// bookkeeping all come from the resource given at construction.
template <class Member = std::string, class Score = double, class Hash = zset::hash<Member>,
          class KeyEqual = std::equal_to<>, class Compare = std::less<>>
using sorted_set = zset::sorted_set<Member, Score, Hash, KeyEqual, Compare,
                                    std::pmr::polymorphic_allocator<Member>>;
}  // namespace pmr
#endif

}  // namespace zset

// ---- the default set compiled once (opt-in) --------------------------------------------------
//
// Every translation unit that uses zset::sorted_set<> (std::string members, double scores)
// compiles its algorithms again: about two thirds of such a TU's compile time at -O2 (the
// claim of bench/compile_time.sh's rows "(i) 6 operations" and "(i) with ZSET_EXTERN_TEMPLATES";
// docs/benchmarks.md, "Compile time"). With ZSET_EXTERN_TEMPLATES defined (for the whole
// program, e.g. -DZSET_EXTERN_TEMPLATES), TUs only declare that instantiation
// (`extern template`) and inline what they call on the hot paths; exactly one TU of the program
// provides it, by defining ZSET_INSTANTIATE before including this header:
//
//     // zset_instance.cpp
//     #define ZSET_INSTANTIATE
//     #include <zset/sorted_set.hpp>
//
// Still header-only: nothing to build or link beyond that one file. Every TU must agree on
// ZSET_DEBUG (as always), the instantiating one included. Other set types are unaffected.
#if defined(ZSET_INSTANTIATE) || defined(ZSET_EXTERN_TEMPLATES)
#if defined(ZSET_INSTANTIATE)
#define ZSET_DETAIL_INSTANCE template
#else
#define ZSET_DETAIL_INSTANCE extern template
#endif
ZSET_DETAIL_INSTANCE class zset::detail::block<double, std::string, std::allocator<std::string>>;
ZSET_DETAIL_INSTANCE class zset::detail::skiplist<double, std::string, std::allocator<std::string>>;
ZSET_DETAIL_INSTANCE class zset::detail::hash_index<std::allocator<std::string>>;
ZSET_DETAIL_INSTANCE class zset::detail::set_iterator<double, std::string,
                                                      std::allocator<std::string>>;
ZSET_DETAIL_INSTANCE class zset::detail::set_engine<
    zset::detail::set_params<std::string, double, zset::hash<std::string>, std::equal_to<>,
                             std::less<>, std::allocator<std::string>>>;
ZSET_DETAIL_INSTANCE class zset::sorted_set<>;
#undef ZSET_DETAIL_INSTANCE
#endif

#endif  // ZSET_SORTED_SET_HPP
