// zset::sorted_set — the Redis sorted set (ZSET) as a C++ container.
// SPDX-License-Identifier: MIT
//
// Composition (each piece in its own header under detail/):
//   * detail/container/block.hpp      — block: a slotted page of (score, member) records in one
//                             allocation, in order through a 16-bit array of record refs.
//   * detail/container/skiplist.hpp   — skiplist of blocks (a pool of 40-byte nodes, their block pointers
//                             in an array beside it): order.
//   * detail/container/rank_tree.hpp  — counted B+tree over the blocks: O(log n) rank and nth.
//   * detail/container/hash_index.hpp — open-addressing member -> (node, record) index (skiplist mode).
//
// Encodings. In listpack mode the whole set is one block and a member lookup scans its 16-bit
// fingerprints (no index at all, as Redis's listpack). Adding a member that would make the set
// longer than `max_listpack_entries`, or a member longer than `max_listpack_value` bytes,
// converts the set to skiplist mode: blocks of at most 128 elements linked in the skiplist, plus
// the hash index. Score updates never convert; erasing never converts back, except that an
// emptied set starts over in listpack mode (an empty key does not exist in Redis);
// shrink_to_fit() converts back when the set fits again. A listpack-mode block addresses its
// records with 16-bit offsets: a set whose thresholds would let its single block pass 64 KiB of
// records or 65,535 elements converts to skiplist mode there (Redis's listpack converts at
// its own size limit too).
//
// Member lookups (ZSCORE, ZINCRBY, ZREM, ZRANK) in skiplist mode: the index entry is the exact
// address of the member's record, so a hit reads one index slot, the block pointer (an array
// small enough to stay cached) and one record; a score update that keeps the member in its
// block rewrites the score and shifts 2-byte order entries, and the index is untouched. See
// docs/benchmarks.md for the measurements behind the layout.
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
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#if __has_include(<memory_resource>)
#include <memory_resource>
#define ZSET_HAS_MEMORY_RESOURCE 1
#endif
#include <optional>
#if __has_include(<version>)
#include <version>
#endif
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"
#include "detail/container/allocator_holder.hpp"
#include "detail/container/block.hpp"
#include "detail/container/function_holder.hpp"
#include "detail/container/hash.hpp"  // also std::equal_to<> and std::less<>
#include "detail/container/hash_index.hpp"
#include "detail/container/random.hpp"
#include "detail/container/skiplist.hpp"
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
class sorted_set : private detail::allocator_holder<Allocator>,
                   private detail::function_holder<Hash, KeyEqual, Compare> {
    static_assert(std::is_arithmetic_v<Score>, "zset: Score must be an arithmetic type");
    static_assert(!std::is_same_v<Score, bool>, "zset: Score must be a number, not bool");

    using list_type = detail::skiplist<Score, Member, Allocator>;
    using node = typename list_type::node;
    using node_id = typename list_type::node_id;
    using block_type = typename list_type::block_type;
    using ref_type = typename block_type::ref_type;
    using path = typename list_type::path;
    using index_type = detail::hash_index<Allocator>;
    using address = detail::record_address;
    using alloc_traits = std::allocator_traits<Allocator>;
    using allocator_holder_type = detail::allocator_holder<Allocator>;
    using function_holder_type = detail::function_holder<Hash, KeyEqual, Compare>;

    // Skiplist mode's state lives in one allocation the set points to, so a set is three words
    // (the thresholds, that pointer, the block pointer; the allocator and the function objects
    // are empty bases for the defaults): 24 bytes against 112 with the state inline, 32 with
    // the function objects a member (their empty tuple took a padded word). A set in listpack mode
    // does not pay for skiplist mode, which keeps a 100-member set under 24 bytes a member with
    // room for a larger member index (docs/benchmarks.md, "The set object at 32 bytes"). The cost
    // is one load, during the member's hashing: callgrind counts one instruction more a lookup.
    struct skiplist_state {
        list_type list;
        index_type index;
        explicit skiplist_state(const Allocator& a) noexcept : list(a), index(a) {}
    };
    /// An allocated skiplist_state, freed unless released. Throws only when allocating.
    class owned_state {
        using traits = typename alloc_traits::template rebind_traits<skiplist_state>;

    public:
        explicit owned_state(const Allocator& a) : alloc_(a) {
            skiplist_state* p = traits::allocate(alloc_, 1);
            state_ = ::new (static_cast<void*>(p)) skiplist_state(a);
        }
        owned_state(const owned_state&) = delete;
        owned_state& operator=(const owned_state&) = delete;
        ~owned_state() {
            if (state_ != nullptr) destroy(alloc_, state_);
        }
        skiplist_state* get() const noexcept { return state_; }
        skiplist_state* release() noexcept { return std::exchange(state_, nullptr); }
        static void destroy(const Allocator& a, skiplist_state* p) noexcept {
            typename traits::allocator_type sa(a);
            p->~skiplist_state();
            traits::deallocate(sa, p, 1);
        }

    private:
        typename traits::allocator_type alloc_;
        skiplist_state* state_ = nullptr;
    };
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
    /// What pop_min / pop_max / random_members return: a vector using the set's allocator
    /// (std::vector<value_type> for the default allocator).
    using value_vector =
        std::vector<value_type,
                    typename std::allocator_traits<Allocator>::template rebind_alloc<value_type>>;
    /// What scores() (ZMSCORE) returns, on the set's allocator.
    using score_vector = std::vector<
        std::optional<Score>,
        typename std::allocator_traits<Allocator>::template rebind_alloc<std::optional<Score>>>;
    using reference = element<key_view, Score>;
    using const_reference = reference;

    /// Elements beyond this many per block split (skiplist mode).
    static constexpr size_type block_max_entries = 128;
    /// Record bytes (score, length and member) beyond this many per block split (skiplist
    /// mode; soft: a block always takes at least one element).
    static constexpr size_type block_max_bytes = 8192;

    // ---- iterators --------------------------------------------------------------------------

private:
    /// How an iterator's walk requests the blocks it is about to read (see enter_block).
    enum class block_requests : std::uint8_t { none, on_entry, ahead };

public:
    /// Bidirectional iterator over elements in (score, member) order. Dereferences to a
    /// reference (an element view) by value, so it is a proxy iterator.
    class const_iterator {
    public:
        using iterator_category = std::bidirectional_iterator_tag;
        using iterator_concept = std::bidirectional_iterator_tag;  // C++20 ranges
        using value_type = sorted_set::reference;
        using difference_type = std::ptrdiff_t;
        using reference = sorted_set::reference;
        struct pointer {
            reference ref;
            const reference* operator->() const noexcept { return &ref; }
        };

        const_iterator() = default;

        reference operator*() const noexcept {
            check_valid();
            const ref_type r = order_[pos_];
            return {block_.member_of(r), block_.score_of(r)};
        }
        pointer operator->() const noexcept { return pointer{**this}; }

        const_iterator& operator++() noexcept {
            check_valid();
            if (++pos_ == block_size_) {
                pos_ = 0;
                if (list_ == nullptr) {  // listpack mode: one block
                    id_ = 0;
                } else {
                    id_ = list_->at(id_).next(0);
                    set_block(list_->block_of(id_));
                    if (id_ != 0 && requests_ != block_requests::none) enter_block<true>();
                }
            }
            return *this;
        }
        const_iterator operator++(int) noexcept {
            const_iterator t = *this;
            ++*this;
            return t;
        }
        const_iterator& operator--() noexcept {
            check_valid();
            if (pos_ == 0 || id_ == 0) {
                if (list_ == nullptr) {
                    if (id_ == 0) {
                        id_ = 1;
                        pos_ = block_size_;
                    }
                } else {
                    id_ = list_->at(id_).prev;
                    set_block(list_->block_of(id_));
                    pos_ = block_size_;
                    if (id_ != 0 && requests_ != block_requests::none) enter_block<false>();
                }
            }
            --pos_;
            return *this;
        }
        const_iterator operator--(int) noexcept {
            const_iterator t = *this;
            --*this;
            return t;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
            return a.id_ == b.id_ && a.pos_ == b.pos_;
        }
        friend bool operator!=(const const_iterator& a, const const_iterator& b) noexcept {
            return !(a == b);
        }

    private:
        friend class sorted_set;
        const_iterator(const list_type* list, block_type b, node_id id, size_type pos) noexcept
            : list_(list), id_(id), pos_(pos) {
            set_block(b);
        }
        /// Keeps the block's order array and size at hand: a walk then reads one order entry
        /// and one record per element, not the block header as well (13 instructions an
        /// element instead of 17; the suite's iterate, three alternated rounds: 1567-1643 ->
        /// 1457-1500 ns at 10^3, 234-257 -> 216-229 us at 10^5). The iterator is 48 bytes.
        void set_block(block_type b) noexcept {
            block_ = b;
            order_ = b ? b.order() : nullptr;
            block_size_ = b ? b.size() : 0;
        }
        /// A walk over a set too big for the cache reached a new block: its records lie in
        /// arrival order, so they are requested all at once (their misses overlap instead of
        /// following one another), and the header of the block the walk reaches next, so that
        /// the same can be done there without waiting (iteration at 10^6: 10.1 -> 3.3 ms).
        ///
        /// Blocks far beyond the cache (block_requests::ahead) are requested one block
        /// earlier: entering block j requests block j + 1, whose header was requested on
        /// entering j - 1, and the header of j + 2; so a block's records arrive while the one
        /// before it is walked (iteration at 10^6, three alternated rounds: 1.98-2.55 -> 1.37-1.40
        /// ms). Not for smaller sets: at 10^5 (1,100 blocks, in the L3 cache) the walk took
        /// 76 -> 88 us with it.
        template <bool Forward>
        void enter_block() noexcept {
            const node_id following = step<Forward>(id_);
            if (requests_ == block_requests::on_entry || !ahead_) {
                block_.prefetch_block();
                if (following != 0) list_->block_of(following).prefetch_header();
                ahead_ = true;
                return;
            }
            if (following == 0) return;
            list_->block_of(following).prefetch_block();
            const node_id after = step<Forward>(following);
            if (after != 0) list_->block_of(after).prefetch_header();
        }
        template <bool Forward>
        node_id step(node_id id) const noexcept {
            return Forward ? list_->at(id).next(0) : list_->at(id).prev;
        }
#if ZSET_DEBUG
        // Checked mode: the set and its generation when the iterator was made; any change to
        // the set since then makes using the iterator abort with a message.
        void check_valid() const noexcept {
            if (owner_ != nullptr && owner_->generation_ != generation_)
                detail::fail_check("zset: iterator or view used after the set was modified "
                                   "(insert, erase and score updates invalidate them)");
        }
        const sorted_set* owner_ = nullptr;
        std::uint64_t generation_ = 0;
#else
        void check_valid() const noexcept {}
#endif
        const list_type* list_ = nullptr;       // the skiplist (nullptr in listpack mode)
        block_type block_{};                    // the block of node id_ (listpack: the set's block)
        const std::uint16_t* order_ = nullptr;  // block_'s order array
        size_type block_size_ = 0;              // block_'s size
        node_id id_ = 0;                        // 0: end()
        block_requests requests_ = block_requests::none;  // block_requests_for() of its set
        bool ahead_ = false;  // the walk has requested the next block's header
        size_type pos_ = 0;
    };
    using iterator = const_iterator;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using reverse_iterator = const_reverse_iterator;
    using rank_range = range_view<const_iterator>;
    using reverse_range = range_view<const_reverse_iterator>;

    // ---- construction -----------------------------------------------------------------------

    /// An empty set (listpack mode) with the default options. Allocates nothing. Not explicit,
    /// so `sorted_set<> s = {};` and `return {};` work.
    sorted_set() : sorted_set(options()) {}
    /// An empty set with the given conversion thresholds. Allocates nothing.
    explicit sorted_set(const options& opts, const Allocator& alloc = Allocator())
        : allocator_holder_type(alloc), opts_(opts) {}
    explicit sorted_set(const Allocator& alloc) : sorted_set(options(), alloc) {}
    /// An empty set with given function objects (e.g. a seeded hash). Allocates nothing.
    sorted_set(const options& opts, const Hash& hash, const KeyEqual& equal = KeyEqual(),
               const Compare& compare = Compare(), const Allocator& alloc = Allocator())
        : allocator_holder_type(alloc), function_holder_type(hash, equal, compare), opts_(opts) {}

    /// Adds each (member, score) pair in order, as one ZADD. O(n log n).
    sorted_set(std::initializer_list<std::pair<key_value, score_arg<Score>>> items,
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
        : allocator_holder_type(alloc), function_holder_type(other.functions()),
          opts_(other.opts_) {
        build_from(other.begin(), other.end(), other.size(), other.skiplist_mode());
    }

    /// Takes other's elements in O(1); other is left empty. Never throws.
    /// The function objects are copied, not moved: the moved-from set stays usable, hash and all.
    sorted_set(sorted_set&& other) noexcept
        : allocator_holder_type(other.get_allocator()),
          // NOLINTNEXTLINE(performance-move-constructor-init): copied on purpose (above)
          function_holder_type(other.functions()), opts_(other.opts_) {
        take(other);
    }

    ~sorted_set() {
        release_listpack();
        release_skiplist();
    }

    /// Copy assignment with the strong guarantee (copy, then swap in).
    sorted_set& operator=(const sorted_set& other) {
        if (this == &other) return *this;
        if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
            sorted_set copy(other, other.get_allocator());
            clear();
            set_allocators(other.get_allocator());
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
            set_allocators(other.get_allocator());
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
            using std::swap;
            swap(this->held_allocator(), other.held_allocator());
        }
        swap_contents(other);
        std::swap(opts_, other.opts_);
        std::swap(this->held_functions(), other.held_functions());
    }
    friend void swap(sorted_set& a, sorted_set& b) noexcept {
        a.swap(b);
    }

    [[nodiscard]] allocator_type get_allocator() const noexcept {
        return this->held_allocator();
    }
    /// The conversion thresholds (a threshold above 2^32 - 1 reads back as 2^32 - 1: the set
    /// keeps them in 32 bits, and no listpack reaches either).
    [[nodiscard]] options get_options() const noexcept {
        return opts_;
    }
    /// The function objects the set was built with (copied by set operations into results).
    [[nodiscard]] hasher hash_function() const {
        return hash_();
    }
    [[nodiscard]] key_equal key_eq() const {
        return eq_();
    }
    [[nodiscard]] member_compare member_comp() const {
        return less_();
    }
    /// Changes the conversion thresholds for what follows (CONFIG SET zset-max-listpack-*):
    /// like Redis, nothing converts now; the next add checks the new limits. O(1), noexcept.
    void set_options(const options& opts) noexcept {
        opts_ = opts;
    }

    // ---- ZADD / ZINCRBY ------------------------------------------------------------------------

    /// ZADD key [NX|XX] [GT|LT] score member. O(log n).
    /// \returns what happened to the member.
    /// \throws zset::error for a score Score cannot hold (NaN; a fraction or an out-of-range
    ///         value for an integral Score: see score_arg) or incompatible flags;
    ///         std::bad_alloc. Nothing changes then. Strong guarantee.
    add_status add(key_view member, score_arg<Score> score, add_flags flags = add_flags::none) {
        modified();
        check_flags(flags);
        return add_checked(member, score.checked(), flags);
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
        modified();
        check_flags(flags);
        batch_plan plan(*this);
        const size_type counted = plan.build(*this, first, last, flags);
        apply_batch(plan);
        return counted;
    }
    size_type add(std::initializer_list<std::pair<key_value, score_arg<Score>>> items,
                  add_flags flags = add_flags::none) {
        return add(items.begin(), items.end(), flags);
    }

    /// ZINCRBY key delta member / ZADD key [NX|XX] [GT|LT] INCR delta member. O(log n).
    /// \returns the new score, or std::nullopt when NX/XX/GT/LT blocked the operation.
    /// \throws zset::error when delta is NaN, when the result would be NaN (inf + -inf) or, for
    ///         integral scores, would overflow. Strong guarantee.
    std::optional<Score> increment(key_view member, score_arg<Score> delta_arg,
                                   add_flags flags = add_flags::none) {
        modified();
        check_flags(flags);
        const Score delta = delta_arg.checked();
        const probe k = make_probe(member);
        const position pos = locate(k);
        if (!pos) {
            if (has(flags, add_flags::xx)) return std::nullopt;
            insert_new(k, delta);
            return delta;
        }
        if (has(flags, add_flags::nx)) return std::nullopt;
        const Score current = pos.b.score_of(pos.r);
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
        modified();
        const position pos = locate(make_probe(member));
        if (!pos) return false;
        erase_found(pos);
        return true;
    }

    /// ZREM key member... over a range of members. \returns how many were removed. Never throws
    /// (beyond what iterating the input may throw).
    template <class InputIt, if_iterator<InputIt> = 0>
    size_type erase(InputIt first, InputIt last) {
        static_assert(
            std::is_constructible_v<key_view, typename std::iterator_traits<InputIt>::reference>,
            "zset: erase(first, last) takes a range of members (strings for a set of "
            "strings), or this set's own const_iterators / reverse iterators");
        size_type removed = 0;
        for (; first != last; ++first) removed += erase(key_view(*first)) ? 1 : 0;
        return removed;
    }
    size_type erase(std::initializer_list<key_value> members) noexcept {
        return erase(members.begin(), members.end());
    }

    /// Removes the element at `pos`, an iterator of this set (not end()). O(log n).
    /// \returns the iterator to the element that followed it. Never throws.
    const_iterator erase(const_iterator pos) noexcept {
        return erase(pos, std::next(pos));
    }
    /// Removes the elements [first, last), iterators of this set (a rank_range's begin() and
    /// end(), say). O(log n + m). \returns the iterator to the element that followed them.
    /// Never throws.
    // Iterators are taken by value, as the standard containers take them.
    // cppcheck-suppress passedByValue
    const_iterator erase(const_iterator first, const_iterator last) noexcept {
        check_own(first);
        check_own(last);
        const size_type lo = rank_of_iterator(first), hi = rank_of_iterator(last);
        erase_ranks(lo, hi);
        return nth(lo);
    }
    /// Removes the elements of a reverse range (rev_range_by_*), given as reverse iterators.
    const_iterator erase(const_reverse_iterator first, const_reverse_iterator last) noexcept {
        return erase(last.base(), first.base());
    }

    // ---- lookups --------------------------------------------------------------------------------

    /// ZSCORE. Expected O(1) in skiplist mode (one index slot and one record read), O(n/16) in
    /// listpack mode. Never throws.
    [[nodiscard]] ZSET_ALWAYS_INLINE std::optional<Score> score(key_view member) const noexcept {
        // The optional is built here, in the caller: returned from an out-of-line call, g++
        // stores a std::optional<double>'s two register halves and reloads them as one 16-byte
        // vector, a failed store forward (~12 cycles, more than a cached lookup's whole work).
        Score found;
        if (!find_score(member, found)) return std::nullopt;
        return found;
    }

    /// ZMSCORE: one optional score per member, in order.
    template <class InputIt, if_iterator<InputIt> = 0>
    [[nodiscard]] score_vector scores(InputIt first, InputIt last) const {
        score_vector out{typename score_vector::allocator_type(get_allocator())};
        for (; first != last; ++first) out.push_back(score(key_view(*first)));
        return out;
    }
    [[nodiscard]] score_vector scores(std::initializer_list<key_value> members) const {
        return scores(members.begin(), members.end());
    }

    /// Whether the member is present. Never throws.
    [[nodiscard]] bool contains(key_view member) const noexcept {
        return bool(locate(make_probe(member)));
    }

    /// Iterator to the member's element, or end(). Never throws.
    [[nodiscard]] const_iterator find(key_view member) const noexcept {
        const position pos = locate(make_probe(member));
        if (!pos) return end();
        return iterator_at(pos.node, pos.b, position_in_block(pos));
    }

    /// ZCARD. O(1).
    [[nodiscard]] size_type size() const noexcept {
        if (skiplist_mode()) return sk_->list.size();
        return lp_ ? lp_.size() : 0;
    }
    [[nodiscard]] bool empty() const noexcept {
        return size() == 0;
    }
    [[nodiscard]] size_type max_size() const noexcept {
        // ranks are 32-bit; on a 32-bit size_t the address space is the tighter bound
        return static_cast<size_type>(std::min<std::uint64_t>(
            list_type::max_elements, std::numeric_limits<size_type>::max() / 64));
    }

    /// ZRANK: 0-based rank in ascending order. O(log n), no key comparisons beyond the lookup.
    [[nodiscard]] std::optional<size_type> rank(key_view member) const noexcept {
        if (!skiplist_mode()) {
            const size_type i = listpack_position(member);
            if (i == block_type::npos) return std::nullopt;
            return i;
        }
        const position pos = locate_in_skiplist(make_probe(member));
        if (!pos) return std::nullopt;
        return rank_of(pos);
    }
    /// ZREVRANK: rank in descending order. O(log n).
    [[nodiscard]] std::optional<size_type> rev_rank(key_view member) const noexcept {
        const auto r = rank(member);
        if (!r) return std::nullopt;
        return size() - 1 - *r;
    }
    /// ZRANK ... WITHSCORE. O(log n).
    [[nodiscard]] std::optional<std::pair<size_type, Score>>
    rank_with_score(key_view member) const noexcept {
        if (!skiplist_mode()) {
            const size_type i = listpack_position(member);
            if (i == block_type::npos) return std::nullopt;
            return std::pair<size_type, Score>{i, lp_.score_of(lp_.ref(i))};
        }
        const position pos = locate_in_skiplist(make_probe(member));
        if (!pos) return std::nullopt;
        return std::pair<size_type, Score>{rank_of(pos), pos.b.score_of(pos.r)};
    }
    /// ZREVRANK ... WITHSCORE. O(log n).
    [[nodiscard]] std::optional<std::pair<size_type, Score>>
    rev_rank_with_score(key_view member) const noexcept {
        auto r = rank_with_score(member);
        if (r) r->first = size() - 1 - r->first;
        return r;
    }

    /// ZCOUNT key min max. O(log n).
    [[nodiscard]] size_type count(const score_range<Score>& range) const noexcept {
        const auto [lo, hi] = score_points(range);
        return points_between(lo, hi);
    }
    /// ZLEXCOUNT key min max. O(log n).
    [[nodiscard]] size_type lex_count(const lex_range<lex_key>& range) const noexcept {
        const auto [lo, hi] = lex_points(range);
        return points_between(lo, hi);
    }

    // ---- ranges ---------------------------------------------------------------------------------

    /// ZRANGE key start stop: ranks with Redis's negative indices (-1 = last), clamped.
    /// O(log n) to create, O(1) per step.
    [[nodiscard]] rank_range range_by_rank(long long start, long long stop) const noexcept {
        const auto [lo, hi] = clamp_ranks(start, stop);
        return forward_range(lo, hi);
    }
    /// ZREVRANGE key start stop (ZRANGE ... REV): rank 0 is the highest element.
    [[nodiscard]] reverse_range rev_range_by_rank(long long start, long long stop) const noexcept {
        const auto [lo, hi] = clamp_ranks(start, stop);
        return reverse_range_between({begin_point(), end_point()}, size(),
                                     {static_cast<long long>(lo), static_cast<long long>(hi - lo)});
    }
    /// ZRANGEBYSCORE key min max [LIMIT offset count]. O(log n) to create.
    [[nodiscard]] rank_range range_by_score(const score_range<Score>& range,
                                            limit lim = {}) const noexcept {
        return forward_range_between(score_points(range, walk_hops), lim);
    }
    /// ZREVRANGEBYSCORE key max min [LIMIT offset count]: descending; the offset counts from
    /// the highest element.
    [[nodiscard]] reverse_range rev_range_by_score(const score_range<Score>& range,
                                                   limit lim = {}) const noexcept {
        const auto points = score_points(range);
        if (skiplist_mode() && short_page(lim) && !inverted(range))
            return reverse_page(points, lim);
        return reverse_range_between(points, lim);
    }
    /// ZRANGEBYLEX key min max [LIMIT offset count]. O(log n) to create.
    [[nodiscard]] rank_range range_by_lex(const lex_range<lex_key>& range,
                                          limit lim = {}) const noexcept {
        return forward_range_between(lex_points(range, walk_hops), lim);
    }
    /// ZREVRANGEBYLEX key max min [LIMIT offset count].
    [[nodiscard]] reverse_range rev_range_by_lex(const lex_range<lex_key>& range,
                                                 limit lim = {}) const noexcept {
        return reverse_range_between(lex_points(range), lim);
    }

    // ---- range removal --------------------------------------------------------------------------

    /// ZREMRANGEBYRANK key start stop. O(log n + m). \returns the number removed. Never throws.
    size_type erase_range_by_rank(long long start, long long stop) noexcept {
        modified();
        const auto [lo, hi] = clamp_ranks(start, stop);
        return erase_ranks(lo, hi);
    }
    /// ZREMRANGEBYSCORE key min max. O(log n + m). Never throws.
    size_type erase_range_by_score(const score_range<Score>& range) noexcept {
        modified();
        const auto [lo, hi] = score_ranks(range);
        return erase_ranks(lo, hi);
    }
    /// ZREMRANGEBYLEX key min max. O(log n + m). Never throws.
    size_type erase_range_by_lex(const lex_range<lex_key>& range) noexcept {
        modified();
        const auto [lo, hi] = lex_ranks(range);
        return erase_ranks(lo, hi);
    }

    /// ZPOPMIN key [count]: removes and returns up to `count` lowest elements, lowest first.
    /// O(log n + count). Strong guarantee (the result is built before anything is removed).
    value_vector pop_min(size_type count = 1) {
        return pop(count, end_of_set::low);
    }
    /// ZPOPMAX key [count]: removes and returns up to `count` highest elements, highest first.
    value_vector pop_max(size_type count = 1) {
        return pop(count, end_of_set::high);
    }

    // ---- ZRANDMEMBER / ZSCAN -------------------------------------------------------------------

    /// ZRANDMEMBER key count. count > 0: min(count, size()) distinct members in random order;
    /// count < 0: |count| members drawn with replacement; 0: none. O(k log n).
    template <class URBG>
    [[nodiscard]] value_vector random_members(long long count, URBG&& gen) const {
        value_vector out{typename value_vector::allocator_type(get_allocator())};
        if (count == 0 || empty()) return out;
        if (count < 0) {
            // |count| without overflow (LLONG_MIN), and no silent truncation to a 32-bit size_t
            const unsigned long long wanted = static_cast<unsigned long long>(-(count + 1)) + 1;
            if (wanted > std::numeric_limits<size_type>::max() / sizeof(value_type))
                detail::raise_length_error("zset: too many random members requested");
            const auto draws = static_cast<size_type>(wanted);
            out.reserve(draws);
            for (size_type i = 0; i < draws; ++i) append_owned(out, *nth(random_rank(gen, size())));
            return out;
        }
        const size_type k = static_cast<unsigned long long>(count) >= size()
                                ? size()
                                : static_cast<size_type>(count);
        out.reserve(k);
        if (k == size()) {
            for (const auto& e : *this) append_owned(out, e);
            detail::shuffle(out.begin(), out.end(), gen);
            return out;
        }
        // Floyd's sampling: k distinct ranks in k draws; `chosen` is a small open-addressing set
        // of ranks (empty slots hold npos).
        size_type cap = 8;
        while (cap < 2 * k) cap *= 2;
        std::vector<size_type, rebound<size_type>> chosen(cap, block_type::npos,
                                                          rebound<size_type>(get_allocator()));
        const auto choose = [&](size_type r) {
            for (size_type i = static_cast<size_type>(detail::mix_integer(r)) & (cap - 1);;
                 i = (i + 1) & (cap - 1)) {
                if (chosen[i] == r) return false;
                if (chosen[i] == block_type::npos) {
                    chosen[i] = r;
                    return true;
                }
            }
        };
        std::vector<size_type, rebound<size_type>> ranks{rebound<size_type>(get_allocator())};
        ranks.reserve(k);
        for (size_type j = size() - k; j < size(); ++j) {
            const size_type r = random_rank(gen, j + 1);
            if (choose(r)) {
                ranks.push_back(r);
            } else {
                choose(j);
                ranks.push_back(j);
            }
        }
        detail::shuffle(ranks.begin(), ranks.end(), gen);
        for (size_type r : ranks) append_owned(out, *nth(r));
        return out;
    }

    /// ZSCAN key cursor COUNT count: calls visit(reference) for a batch of about `count`
    /// elements and returns the next cursor (0 when the walk is complete). Start with 0. Every
    /// member present for the whole walk is visited at least once, even if the set grows,
    /// shrinks or converts between calls; some may be visited twice. In listpack mode the whole
    /// set comes in one call (as Redis). O(count) expected per call.
    template <class Visit>
    std::uint64_t scan(std::uint64_t cursor, size_type count, Visit&& visit) const {
        if (!skiplist_mode()) {
            for (const auto& e : *this) visit(e);
            return 0;
        }
        if (cursor > 0xffffffffu) return 0;
        const std::uint64_t span_all = std::uint64_t{1} << 32;
        const std::uint64_t want = std::max<size_type>(count, 1);
        std::uint64_t width = size() == 0 ? span_all : (span_all / size()) * want;
        if (width == 0 || width > span_all) width = span_all;
        const std::uint64_t last = std::min<std::uint64_t>(cursor + width - 1, 0xffffffffu);
        sk_->index.for_each_in_tag_range(
            static_cast<std::uint32_t>(cursor), static_cast<std::uint32_t>(last),
            [&](std::uint32_t, address a) {
                const block_type b = sk_->list.block_of(a.node);
                visit(reference{b.member_of(a.ref), b.score_of(a.ref)});
            });
        return last == 0xffffffffu ? 0 : last + 1;
    }

    // ---- STL side -------------------------------------------------------------------------------

    [[nodiscard]] const_iterator begin() const noexcept {
        if (!skiplist_mode()) return make_iterator(nullptr, lp_, lp_ && !lp_.empty() ? 1 : 0, 0);
        const node_id f = sk_->list.first();
        return make_iterator(&sk_->list, sk_->list.block_of(f), f, 0);
    }
    [[nodiscard]] const_iterator end() const noexcept {
        if (!skiplist_mode()) return make_iterator(nullptr, lp_, 0, 0);
        return make_iterator(&sk_->list, block_type(), 0, 0);
    }
    [[nodiscard]] const_iterator cbegin() const noexcept {
        return begin();
    }
    [[nodiscard]] const_iterator cend() const noexcept {
        return end();
    }
    [[nodiscard]] const_reverse_iterator rbegin() const noexcept {
        return const_reverse_iterator(end());
    }
    [[nodiscard]] const_reverse_iterator rend() const noexcept {
        return const_reverse_iterator(begin());
    }

    /// Iterator to the element of rank r (ascending), or end() if r >= size(). O(log n).
    [[nodiscard]] const_iterator nth(size_type r) const noexcept {
        if (r >= size()) return end();
        if (!skiplist_mode()) return make_iterator(nullptr, lp_, 1, r);
        const auto [id, pos] = sk_->list.nth(r);
        return make_iterator(&sk_->list, sk_->list.block_of(id), id, pos);
    }

    /// Removes every element; the set returns to listpack mode. Never throws.
    void clear() noexcept {
        modified();
        release_skiplist();
        release_listpack();
    }

    /// OBJECT ENCODING.
    [[nodiscard]] zset::encoding encoding() const noexcept {
        return skiplist_mode() ? zset::encoding::skiplist : zset::encoding::listpack;
    }

    /// Rebuilds the set without spare room in its blocks (the next insert into a block copies
    /// it); converts back to listpack mode when it fits the thresholds again. O(n). Strong
    /// guarantee.
    void shrink_to_fit() {
        rebuild_from(begin(), end(), build_room::none);
    }

    /// Replaces the contents with elements already sorted by (score, member) with unique
    /// members (`reference`s or pairs), in the smallest encoding that fits; options, function
    /// objects and allocator stay. `[first, last)` may be this set's own elements. O(n).
    /// Precondition (checked by validate()): sorted and unique. Strong guarantee.
    /// Invalidates all iterators.
    template <class ForwardIt, if_forward_iterator<ForwardIt> = 0>
    void assign_sorted(ForwardIt first, ForwardIt last) {
        rebuild_from(first, last, build_room::growth);
    }

    /// Bytes allocated by the set (blocks, out-of-line members, node pool, hash index) plus
    /// sizeof(*this). Allocator bookkeeping (e.g. malloc headers) is not included.
    /// O(number of blocks).
    [[nodiscard]] size_type memory_usage() const noexcept {
        size_type total = sizeof(*this);
        if (sk_)
            total += sizeof(skiplist_state) + sk_->list.memory_usage() + sk_->index.memory_usage();
        if (lp_) total += lp_.allocated_bytes() + lp_.out_of_line_bytes();
        return total;
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
    /// records agreement, fingerprints, encoding rules. O(n log n). For tests and debugging.
    [[nodiscard]] bool validate() const {
        if (skiplist_mode() ? !validate_skiplist() : !validate_listpack()) return false;
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
            if (!pos || !eq_()(pos.b.member_of(pos.r), e.member) ||
                !(pos.b.score_of(pos.r) == e.score))
                return false;
        }
        return true;
    }

    friend bool operator==(const sorted_set& a, const sorted_set& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const sorted_set& a, const sorted_set& b) {
        return !(a == b);
    }

private:
    const Allocator& allocator() const noexcept {
        return this->held_allocator();
    }
    bool skiplist_mode() const noexcept {
        return sk_ != nullptr;
    }
    const function_holder_type& functions() const noexcept {
        return *this;
    }
    const Hash& hash_() const noexcept {
        return this->held_hash();
    }
    const KeyEqual& eq_() const noexcept {
        return this->held_equal();
    }
    const Compare& less_() const noexcept {
        return this->held_compare();
    }

    struct probe {
        key_view member;
        std::uint64_t hash;
    };
    /// Where a member was found: its block and record; in skiplist mode also its node and
    /// index slot, in listpack mode its position.
    struct position {
        block_type b{};
        ref_type r = 0;
        node_id node = 0;
        size_type slot = index_type::npos;   // skiplist mode
        size_type pos = block_type::npos;    // listpack mode
        size_type entry = block_type::npos;  // listpack mode: the bucket table's entry, if any
        explicit operator bool() const noexcept { return bool(b); }
    };

    ZSET_ALWAYS_INLINE std::uint64_t hash_value(key_view m) const noexcept {
        const auto h = static_cast<std::uint64_t>(hash_()(m));
        // The index places by the high bits: a user hash that leaves them empty (std::hash of
        // an integer is the identity) would pile every member into one run, so it is mixed.
        if constexpr (detail::is_avalanching_v<Hash>)
            return h;
        else
            return detail::mix_integer(h);
    }
    /// The 16-bit fingerprint a listpack-mode block keeps of member m (13 bits of it in a bucket
    /// table). Members compared as bytes take it from their bytes in one multiply when they are
    /// at most 16 bytes long (detail::short_bytes_fingerprint), not from the set's Hash: a
    /// lookup's chain of dependent steps is then as short as skiplist mode's, whose index needs
    /// the whole hash (docs/benchmarks.md, "A one-multiply fingerprint for listpack mode").
    /// Other members take the top 16 bits of their hash.
    ZSET_ALWAYS_INLINE typename block_type::fingerprint_type
    listpack_fingerprint(key_view m) const noexcept {
        if constexpr (byte_equality)
            if (m.size() <= 16) return detail::short_bytes_fingerprint(m.data(), m.size());
        return static_cast<typename block_type::fingerprint_type>(hash_value(m) >> 48);
    }
    /// A member and, in skiplist mode, its hash (listpack mode does not use it: its blocks take
    /// listpack_fingerprint).
    ZSET_ALWAYS_INLINE probe make_probe(key_view m) const noexcept {
        return probe{m, skiplist_mode() ? hash_value(m) : 0};
    }

    static void check_flags(add_flags f) {
        if (has(f, add_flags::nx) && has(f, add_flags::xx)) detail::raise_error(errors::xx_and_nx);
        const int exclusive = (has(f, add_flags::gt) ? 1 : 0) + (has(f, add_flags::lt) ? 1 : 0) +
                              (has(f, add_flags::nx) ? 1 : 0);
        if (exclusive > 1) detail::raise_error(errors::gt_lt_nx);
    }
    /// The checked score of an input pair's second member (a number or a score_arg).
    template <class S>
    static Score score_of_pair(const S& s) {
        if constexpr (std::is_same_v<S, score_arg<Score>>)
            return s.checked();
        else
            return detail::checked_score_cast<Score>(s);
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
        return as < bs || (!(bs < as) && less_()(am, bm));
    }
    /// Does node n's first element order before (s, m)? Reads the block only on a score tie.
    bool node_before(const node& n, Score s, key_view m) const noexcept {
        if (n.first_score < s) return true;
        if (s < n.first_score) return false;
        return less_()(sk_->list.block_of(n).member(0), m);
    }

    // ---- lookup ---------------------------------------------------------------------------------

    /// score()'s lookup: stores the member's score in `out` and returns true, or returns false.
    /// Inlined into the caller: the listpack-mode lookup runs there in full (its rare paths are
    /// calls), and skiplist mode is one call. Both used to be one out-of-line function whose
    /// entry saved five registers for the skiplist side's call to hash_long_bytes, which every
    /// listpack lookup paid too (callgrind, bench/probes/lookup_cost.cpp at 100: a listpack
    /// miss 79 -> 64 instructions, a hit 106 -> 88; the suite at 100, alternated rounds:
    /// miss 3.33 / 3.37 -> 2.89 / 2.90 ns, hit 6.16 / 6.32 -> 5.43 / 5.40).
    ZSET_ALWAYS_INLINE bool find_score(key_view member, Score& out) const noexcept {
        if (ZSET_LIKELY(skiplist_mode())) return score_in_skiplist(member, out);
        return score_in_listpack(member, out);
    }
    /// find_score() in skiplist mode. A miss almost always ends at the index probe (no slot
    /// whose key matches: ~99% of misses), and a hit on a member of 16 bytes or fewer at the
    /// first candidate, its record read in one load and the member compared here without a
    /// call; longer members (hashed by a call) and further candidates go to functions of their
    /// own, reached by tail calls, so this part saves one register where it saved five
    /// (lookup_cost at 10^3: a miss 83.5 -> 77.4 instructions, a hit 107.2 -> 97.2; the suite
    /// at 10^3: miss 3.36 / 3.46 -> 3.12 / 3.10 ns, hit 6.85 / 6.83 -> 6.64 / 6.53; at 10^5 a
    /// miss 3.8 -> 3.5, a hit 13.2 -> 13.5, within its spread). History: with every
    /// compare out of line a hit at 10^3 took 191 instructions against 144, and 15-20% longer
    /// at 10^6, where fewer lookups then fit in the reorder buffer to overlap their misses.
    ZSET_NOINLINE bool score_in_skiplist(key_view member, Score& out) const noexcept {
        if constexpr (byte_equality) {
            if (!ZSET_LIKELY(member.size() <= 16)) return score_of_long_member(member, out);
        }
        const std::uint32_t tag = index_type::tag_of(hash_value(member));
        const size_type slot = sk_->index.first_candidate(tag);
        if (slot == index_type::npos) return false;
        if constexpr (byte_equality) {
            if (member.size() <= 16) {
                const std::uint64_t record = sk_->index.record(slot);
                if (ZSET_LIKELY(index_type::record_has_tag(record, tag))) {
                    const address a = index_type::address_in(record);
                    const block_type b = sk_->list.block_of(a.node);
                    if (ZSET_LIKELY(b.short_bytes_equal(a.ref, member))) {
                        out = b.score_of(a.ref);
                        return true;
                    }
                }
            }
        }
        return score_from_slot(member, tag, slot, out);
    }
    ZSET_NOINLINE bool score_of_long_member(key_view member, Score& out) const noexcept {
        const position pos = locate_in_skiplist(make_probe(member));
        if (!pos) return false;
        out = pos.b.score_of(pos.r);
        return true;
    }
    ZSET_NOINLINE bool score_from_slot(key_view member, std::uint32_t tag, size_type slot,
                                       Score& out) const noexcept {
        const position pos = locate_from_slot(member, tag, sk_->index.match_at_or_after(slot, tag));
        if (!pos) return false;
        out = pos.b.score_of(pos.r);
        return true;
    }

    /// KeyEqual compares the bytes of strings: members may be compared inline.
    static constexpr bool byte_equality =
        byte_members && (std::is_same_v<KeyEqual, std::equal_to<>> ||
                         std::is_same_v<KeyEqual, std::equal_to<std::string_view>> ||
                         std::is_same_v<KeyEqual, std::equal_to<std::string>>);

    /// Is the member of record r in block b equal to m?
    ZSET_ALWAYS_INLINE bool same_member(block_type b, ref_type r, key_view m) const noexcept {
        if constexpr (byte_equality)
            return b.bytes_equal(r, m);
        else
            return eq_()(b.member_of(r), m);
    }

    /// Where the member is, or an empty position.
    ZSET_ALWAYS_INLINE position locate(const probe& k) const noexcept {
        if (!skiplist_mode()) return locate_in_listpack(k);
        return locate_in_skiplist(k);
    }
    ZSET_ALWAYS_INLINE position locate_in_skiplist(const probe& k) const noexcept {
        const std::uint32_t tag = index_type::tag_of(k.hash);
        return locate_from_slot(k.member, tag, sk_->index.first_match(tag));
    }
    /// Where the member is, from `slot`, the first index slot that may hold its tag (or npos).
    ZSET_ALWAYS_INLINE position locate_from_slot(key_view member, std::uint32_t tag,
                                                 size_type slot) const noexcept {
        position out;
        for (; slot != index_type::npos; slot = sk_->index.next_match(slot, tag)) {
            const address a = sk_->index.address(slot);
            const block_type b = sk_->list.block_of(a.node);
            if (!same_member(b, a.ref, member)) continue;
            out.b = b;
            out.r = a.ref;
            out.node = a.node;
            out.slot = slot;
            return out;
        }
        return out;
    }

    /// locate() in listpack mode. Out of line: inlined, its fingerprint scan's registers and
    /// stack frame slowed every skiplist-mode lookup by a third (ZSCORE miss at 10^3: 7.4 ->
    /// 11 ns); a listpack lookup pays a call instead.
    ZSET_NOINLINE position locate_in_listpack(const probe& k) const noexcept {
        position out;
        if (!lp_) return out;
        const auto found = lp_.find_with_entry(listpack_fingerprint(k.member), [&](ref_type r) {
            return same_member(lp_, r, k.member);
        });
        if (found.pos == block_type::npos) return out;
        out.b = lp_;
        out.r = lp_.ref(found.pos);
        out.pos = found.pos;
        out.entry = found.entry;
        return out;
    }
    /// find_score() in listpack mode, inlined into score()'s caller; the fingerprint scan, for
    /// the rare lookup the table cannot settle, is a call.
    ZSET_ALWAYS_INLINE bool score_in_listpack(key_view member, Score& out) const noexcept {
        const size_type i = listpack_position_by_table(member);
        if (ZSET_LIKELY(i < needs_scan)) {
            out = lp_.score_of(lp_.ref(i));
            return true;
        }
        if (i == block_type::npos) return false;
        return score_in_listpack_scan(member, out);
    }
    ZSET_NOINLINE bool score_in_listpack_scan(key_view member, Score& out) const noexcept {
        const size_type i = position_in_listpack(make_probe(member));
        if (i == block_type::npos) return false;
        out = lp_.score_of(lp_.ref(i));
        return true;
    }
    /// The member's position (its rank) in listpack mode, or npos.
    ZSET_ALWAYS_INLINE size_type listpack_position(key_view member) const noexcept {
        const size_type i = listpack_position_by_table(member);
        if (ZSET_LIKELY(i != needs_scan)) return i;
        return listpack_position_scan(member);
    }
    ZSET_NOINLINE size_type listpack_position_scan(key_view member) const noexcept {
        return position_in_listpack(make_probe(member));
    }
    /// listpack_position_by_table()'s answer when the block's fingerprint scan must decide.
    static constexpr size_type needs_scan = block_type::npos - 1;
    /// The member's position in listpack mode, npos, or needs_scan. A member of at most 16
    /// bytes in a block with a bucket table (at most 128 positions: the default thresholds): a
    /// miss ends at its bucket's compare (a false candidate 1.2% of misses at n = 100), or at
    /// its only candidate's record; a hit compares its first candidate here, as in skiplist
    /// mode; further candidates, longer buckets, other members and blocks need the scan (a
    /// miss with one false candidate went there too and hashed again: 3.70-3.78 -> 3.63 ns at
    /// n = 100 on misses that meet one 3% of the time). Inlined into find_score: the lookup is
    /// short enough that skiplist mode's lookups did not slow (callgrind,
    /// bench/probes/lookup_cost.cpp 1000: hit 144 -> 146 instructions, miss 106 -> 106) while
    /// listpack mode's lost the call (100: hit 117 -> 110, miss 99 -> 88; in the suite a miss
    /// 5.0 -> 4.7 ns, skiplist mode 4.7). The fingerprint scan before the table could not be
    /// inlined (ZSCORE miss at 10^3 in skiplist mode 7.4 -> 11 ns: its registers and frame).
    /// rank() and rank_with_score() take it too: through locate() (a call, and a position
    /// built) a listpack input's lookup in ZUNION cost twice a skiplist-mode ZSCORE.
    ZSET_ALWAYS_INLINE size_type listpack_position_by_table(key_view member) const noexcept {
        if constexpr (byte_equality) {
            if (lp_ && lp_.has_table() && member.size() <= 16) {
                const detail::bucket_table t = lp_.table();
                const auto c = t.first_candidates(listpack_fingerprint(member));
                if (c.mask == 0 && ZSET_LIKELY(c.whole())) return block_type::npos;
                if (ZSET_LIKELY(c.mask != 0)) {
                    const size_type i = t.position_at(c.first + detail::lowest_bit(c.mask));
                    if (ZSET_LIKELY(lp_.short_bytes_equal(lp_.ref(i), member))) return i;
                    if ((c.mask & (c.mask - 1)) == 0 && c.whole())  // the only candidate
                        return block_type::npos;
                }
            }
        }
        return needs_scan;
    }
    ZSET_ALWAYS_INLINE size_type position_in_listpack(const probe& k) const noexcept {
        if (!lp_) return block_type::npos;
        return lp_.find(listpack_fingerprint(k.member), [&](ref_type r) ZSET_LAMBDA_INLINE {
            return same_member(lp_, r, k.member);
        });
    }

    size_type position_in_block(const position& p) const noexcept {
        return p.pos != block_type::npos ? p.pos : position_in(p.b, p.r);
    }
    /// Rank of the element an iterator points at (size() for end()).
    size_type rank_of_iterator(const const_iterator& it) const noexcept {
        if (it.id_ == 0) return size();
        return skiplist_mode() ? sk_->list.start_rank(it.id_) + it.pos_ : it.pos_;
    }
    size_type rank_of(const position& p) const noexcept {
        const size_type i = position_in_block(p);
        return skiplist_mode() ? sk_->list.start_rank(p.node) + i : i;
    }
    /// Always inlined so that an iterator is built where it is used. Out of line, g++ wrote
    /// the iterator's first two fields with two 8-byte stores and the caller copied them into
    /// the view with one 16-byte load, which the store buffer cannot forward: a stall for each
    /// end of a listpack-mode range view (the suite at 100, two alternated rounds:
    /// range_by_score 70.1, 68.3 -> 56.5, 56.6 ns, range_by_rank 62.2, 61.1 -> 55.5, 56.8;
    /// docs/benchmarks.md).
    ZSET_ALWAYS_INLINE const_iterator make_iterator(const list_type* list, block_type b, node_id id,
                                                    size_type pos) const noexcept {
        const_iterator it(list, b, id, pos);
        it.requests_ = block_requests_for();
#if ZSET_DEBUG
        it.owner_ = this;
        it.generation_ = generation_;
#endif
        return it;
    }

    /// Checked mode: `it` is a valid iterator of this set.
    void check_own(const const_iterator& it) const noexcept {
#if ZSET_DEBUG
        if (it.owner_ != this)
            detail::fail_check("zset: erase given an iterator of another set (or a default one)");
        it.check_valid();
#else
        (void)it;
#endif
    }

    /// Every change that may invalidate iterators (checked mode counts them).
    void modified() noexcept {
#if ZSET_DEBUG
        ++generation_;
#endif
    }

    /// The listpack-mode iterator at position pos (end() from size()), built in the caller
    /// (see make_iterator); nth() without its empty-set and mode checks. Precondition: the set
    /// is in listpack mode and not empty.
    ZSET_ALWAYS_INLINE const_iterator listpack_iterator(size_type pos) const noexcept {
        return pos < lp_.size() ? make_iterator(nullptr, lp_, 1, pos)
                                : make_iterator(nullptr, lp_, 0, 0);
    }
    const_iterator iterator_at(node_id id, block_type b, size_type pos) const noexcept {
        if (!skiplist_mode()) return make_iterator(nullptr, lp_, 1, pos);
        return make_iterator(&sk_->list, b, id, pos);
    }

    // ---- single-element changes -----------------------------------------------------------------

    add_status add_checked(key_view member, Score score, add_flags flags) {
        const probe k = make_probe(member);
        const position pos = locate(k);
        if (!pos) {
            if (has(flags, add_flags::xx)) return add_status::skipped;
            insert_new(k, score);
            return add_status::added;
        }
        if (has(flags, add_flags::nx)) return add_status::skipped;
        const Score current = pos.b.score_of(pos.r);
        if ((has(flags, add_flags::lt) && !(score < current)) ||
            (has(flags, add_flags::gt) && !(score > current)))
            return add_status::skipped;
        if (score == current) return add_status::unchanged;
        update_score(k, pos, score);
        return add_status::updated;
    }

    /// Would the listpack block still be addressable with `count` more elements of `units`
    /// more area units?
    bool listpack_can_take(size_type count, size_type units) const noexcept {
        const size_type live = lp_ ? lp_.used() - lp_.garbage() : 0;
        return block_type::can_hold(size() + count, live + units);
    }

    /// Inserts a new member (list and index). `may_convert` is false inside a batch, which
    /// settles conversion up front. Strong guarantee.
    void insert_new(const probe& k, Score s, bool may_convert = true) {
        if (!skiplist_mode()) {
            if (may_convert && must_convert_for(k.member)) {
                convert_and_insert(k, s);
                return;
            }
            listpack_insert(k, s);
            return;
        }
        sk_->index.reserve(sk_->index.size() + 1);
        const address placed = insert_element(k, s);
        ZSET_TRY {
            sk_->index.insert(index_type::tag_of(k.hash), placed);
        }
        ZSET_CATCH_ALL {
            erase_from_list(placed.node, position_in(sk_->list.block_of(placed.node), placed.ref));
            ZSET_RETHROW;
        }
    }

    /// Converts to skiplist mode and inserts the new member. Strong guarantee: a copy is
    /// converted and added to, and the set changes (encoding included) only if both succeed.
    ZSET_NOINLINE void convert_and_insert(const probe& k, Score s) {
        sorted_set converted = skiplist_copy();
        converted.insert_new(converted.make_probe(k.member), s, false);
        take(converted);
    }

    bool must_convert_for(key_view m) const noexcept {
        return size() + 1 > opts_.max_listpack_entries ||
               detail::member_size<Member>(m) > opts_.max_listpack_value ||
               !listpack_can_take(1, block_type::units_for(m));
    }

    /// Inserts (s, m) into the listpack block. Strong guarantee.
    void listpack_insert(const probe& k, Score given) {
        const Score s = stored_score(given, zset::encoding::listpack);
        const size_type units = block_type::units_for(k.member);
        const Allocator& alloc = allocator();
        const bool created = !lp_;
        if (created)
            lp_ = block_type::create(alloc, block_type::grown(1), block_type::grown_area(units),
                                     true);
        else if (!lp_.has_room(units))
            make_listpack_room(units);  // same elements, more room
        ref_type r;
        ZSET_TRY {
            r = lp_.append_record(alloc, s, k.member);
        }
        ZSET_CATCH_ALL {
            if (created) release_listpack();
            ZSET_RETHROW;
        }
        lp_.link(lp_.lower_bound(s, k.member, less_(), search_mode()), r,
                 listpack_fingerprint(k.member));
    }

    /// Replaces the listpack block by one with room for one more record of `units` units:
    /// compacted when it holds garbage (there is no index to re-point in listpack mode), else
    /// regrown. Strong guarantee.
    ZSET_NOINLINE void make_listpack_room(size_type units) {
        const Allocator& alloc = allocator();
        const size_type cap = lp_.size() < lp_.capacity()
                                  ? lp_.capacity()
                                  : listpack_positions(block_type::grown(lp_.size() + 1));
        const size_type live = lp_.used() - lp_.garbage();
        const bool had_table = lp_.has_table();
        if (lp_.garbage() == 0) {
            lp_ = block_type::regrow(alloc, lp_, cap, block_type::grown_area(live + units));
        } else {
            block_type fresh =
                block_type::create(alloc, cap, block_type::grown_area(live + units), true);
            block_type::transfer(lp_, 0, lp_.size(), fresh,
                                 [](key_view, Score, ref_type, ref_type) {});
            block_type::destroy(alloc, lp_);
            lp_ = fresh;
        }
        if (had_table && !lp_.has_table()) refingerprint_listpack();
    }

    /// Positions for a listpack block that wants `wanted` (with growth room): no more than the
    /// set may hold in listpack mode, so that a block of the default 128 keeps its bucket
    /// table (block.hpp) instead of growing past it.
    size_type listpack_positions(size_type wanted) const noexcept {
        const size_type most = std::max<size_type>(opts_.max_listpack_entries, 1);
        return std::min(wanted, std::max(most, size() + 1));
    }

    /// Gives every element of a block that left its bucket table its whole fingerprint (the
    /// table kept 13 of its 16 bits). Never throws.
    ZSET_NOINLINE void refingerprint_listpack() noexcept {
        for (size_type i = 0; i < lp_.size(); ++i)
            lp_.set_fingerprint(i, listpack_fingerprint(lp_.member(i)));
    }

    typename list_type::limits skiplist_limits() const noexcept {
        return {block_max_entries, block_max_bytes, list_type::max_level};
    }

    /// Re-points the index entry of a record that moved (a split or compaction).
    auto repoint() noexcept {
        return [this](key_view m, Score, address from, address to) {
            sk_->index.replace(index_type::tag_of(hash_value(m)), from, to);
        };
    }

    /// Descends to where (s, m) belongs and inserts it into the list (not the index).
    /// Strong guarantee.
    address insert_element(const probe& k, Score s) {
        path p;
        sk_->list.descend([&](const node& n) { return node_before(n, s, k.member); }, p);
        auto where = sk_->list.locate(p);
        if (where.target != list_type::head_id)
            where.pos =
                sk_->list.block_of(where.target).lower_bound(s, k.member, less_(), search_mode());
        const auto placed =
            sk_->list.insert(p, where, s, k.member, 0, skiplist_limits(), false, repoint());
        return address{placed.first, placed.second};
    }

    /// Removes position `pos` of node x from the list only (not the index). Never throws.
    void erase_from_list(node_id x, size_type pos) noexcept {
        sk_->list.erase(x, pos, pos + 1);
    }

    /// Do walks over the set request each block's records as they enter it? Beyond ~256 blocks
    /// (~25,000 elements, ~1 MB: more than a core's L2) the blocks a walk reaches are seldom
    /// cached, and their records, in arrival order, would each be a miss of their own. Below,
    /// the requests are instructions spent for nothing (range_by_rank at 10^3: 130 -> 170 ns).
    bool walks_cold() const noexcept {
        return skiplist_mode() && sk_->list.node_count() >= 256;
    }
    /// What an iterator requests ahead of its walk: nothing while the set is likely cached,
    /// blocks as it enters them, or (from far_blocks blocks, ~20 MB of blocks) one block
    /// further ahead.
    static constexpr std::uint32_t far_blocks = 8192;
    block_requests block_requests_for() const noexcept {
        if (!walks_cold()) return block_requests::none;
        return sk_->list.node_count() >= far_blocks ? block_requests::ahead
                                                    : block_requests::on_entry;
    }

    /// Position of record r in block b. Below walks_cold()'s 256 blocks the order array is
    /// likely cached and is scanned in fixed work; beyond, the scan stops at the match.
    size_type position_in(block_type b, ref_type r) const noexcept {
        return b.position_of(r, search_mode());
    }

    /// How a block search should treat the cache: from walks_cold()'s 256 blocks (~1 MB, more
    /// than a core's L2) a search prefetches the records it may probe next, as each step reads
    /// an order entry and then a record. The bound was 2,048 blocks until a host with a 2.5 GHz
    /// Xeon (35.8 MiB L3) put ZCOUNT of 1% of 10^5 members 15-20% behind 0.1.0's contiguous
    /// score arrays; from 256, alternated suite rounds at 10^5: zcount 578-604 -> 489-493 ns,
    /// zadd_new 552-568 -> 527 us a batch, range_by_score 727-731 -> 707-732 ns.
    /// Up to hot_set_size elements (one listpack's worth at Redis's defaults) a set is taken to
    /// be in L1, where block::lower_bound's branching search beats its conditional moves.
    typename block_type::search search_mode() const noexcept {
        if (walks_cold()) return block_type::search::cold;
        return size() <= hot_set_size ? block_type::search::hot : block_type::search::cached;
    }
    static constexpr size_type hot_set_size = 128;

    /// Removes a located element (index entry included). Never throws.
    void erase_found(const position& pos) noexcept {
        if (!skiplist_mode()) {
            lp_.erase(allocator(), pos.pos, pos.pos + 1, pos.entry);
            if (lp_.empty()) release_listpack();
            return;
        }
        sk_->index.erase_slot(pos.slot);
        erase_from_list(pos.node, position_in_block(pos));
        if (sk_->list.size() == 0) clear();
    }

    /// Changes the score of the located element (present, score differs). Strong guarantee.
    void update_score(const probe& k, const position& pos, Score given) {
        if (!skiplist_mode()) {
            const Score s = stored_score(given, zset::encoding::listpack);
            move_within(lp_, pos.pos, pos.r, s, k.member, pos.entry);
            return;
        }
        const Score s = given;
        const size_type i = position_in(pos.b, pos.r);
        if (stays_in_node(pos.node, i, s, k.member)) {
            move_within(pos.b, i, pos.r, s, k.member);
            sk_->list.refresh_first(pos.node);
            return;
        }
        path p;
        sk_->list.descend([&](const node& n) { return node_before(n, s, k.member); }, p);
        auto where = sk_->list.locate(p);
        if (where.target == pos.node) {  // the descent found the same block after all
            move_within(pos.b, i, pos.r, s, k.member);
            sk_->list.refresh_first(pos.node);
            return;
        }
        where.pos =
            sk_->list.block_of(where.target).lower_bound(s, k.member, less_(), search_mode());
        // Insert the new copy first (may throw: nothing changed yet), then drop the old one and
        // point the index at the new one. Neither step allocates.
        const auto placed =
            sk_->list.insert(p, where, s, k.member, 0, skiplist_limits(), false, repoint());
        erase_from_list(pos.node, i);
        sk_->index.set_address(pos.slot, address{placed.first, placed.second});
    }

    /// Gives the element at position i (record r) of block b the score s and moves it to its
    /// place within b. Precondition: its place is in b. Never throws.
    void move_within(block_type b, size_type i, ref_type r, Score s, key_view m,
                     size_type entry = block_type::npos) noexcept {
        // where (s, m) goes among the others: lower_bound counts the element itself when its old
        // key is below the new one
        size_type to = b.lower_bound(s, m, less_(), search_mode());
        if (to > i) --to;
        b.set_score_of(r, s);
        b.move_position(i, to, entry);
    }

    /// Does (s, m), the new key of the element at position i of node x, still belong in x?
    /// A cheap test from x's own elements and its successor's cached first score; false
    /// negatives only cost a descent.
    bool stays_in_node(node_id x, size_type i, Score s, key_view m) const noexcept {
        const node& n = sk_->list.at(x);
        const block_type b = sk_->list.block_of(x);
        const bool lower_ok =
            x == sk_->list.first() || (i > 0 && element_less(n.first_score, b.member(0), s, m)) ||
            (i == 0 && b.size() > 1 && element_less(b.score(1), b.member(1), s, m));
        if (!lower_ok) return false;
        const node_id next = n.next(0);
        if (next == list_type::head_id) return true;
        const node& nn = sk_->list.at(next);
        return s < nn.first_score ||
               (!(nn.first_score < s) && less_()(m, sk_->list.block_of(next).member(0)));
    }

    // ---- batch add ------------------------------------------------------------------------------

    template <class T>
    using rebound = typename alloc_traits::template rebind_alloc<T>;

    /// A planned batch add: what each distinct member ends up as. Members are viewed in the
    /// input (copied into `owned` only when the input yields temporaries); every allocation goes
    /// through the set's allocator.
    struct batch_plan {
        struct change {
            key_view member;
            std::uint64_t hash;
            std::optional<Score> before;  // score before the batch
            std::optional<Score> after;   // score after every pair for this member
        };
        std::vector<change, rebound<change>> changes;
        std::vector<std::uint32_t, rebound<std::uint32_t>> slots;  // open addressing: change + 1
        std::vector<Member, rebound<Member>> owned;

        explicit batch_plan(const sorted_set& s)
            : changes(rebound<change>(s.get_allocator())),
              slots(rebound<std::uint32_t>(s.get_allocator())),
              owned(rebound<Member>(s.get_allocator())) {}

        static bool adds(const change& c) noexcept { return !c.before && c.after; }
        static bool moves(const change& c) noexcept {
            return c.before && c.after && !(*c.before == *c.after);
        }

        /// Simulates the pairs member by member (flags only ever look at the member's own
        /// score). Returns ZADD's reply. Allocates; changes nothing in the set.
        template <class ForwardIt>
        size_type build(const sorted_set& s, ForwardIt first, ForwardIt last, add_flags flags) {
            using ref_t = typename std::iterator_traits<ForwardIt>::reference;
            const auto n = static_cast<size_type>(std::distance(first, last));
            std::vector<Score, rebound<Score>> scores(rebound<Score>(s.get_allocator()));
            scores.reserve(n);
            for (ForwardIt it = first; it != last; ++it)
                scores.push_back(score_of_pair(it->second));
            changes.reserve(n);
            size_type table = 8;
            while (table < 2 * n) table *= 2;
            slots.assign(table, 0);
            if constexpr (!std::is_reference_v<ref_t>) {
                // the input yields temporaries: keep copies its members can be viewed in
                owned.reserve(n);
                for (ForwardIt it = first; it != last; ++it)
                    owned.emplace_back(key_view(it->first));
            }
            size_type counted = 0, i = 0;
            for (ForwardIt it = first; it != last; ++it, ++i) {
                key_view m = key_view(it->first);
                if constexpr (!std::is_reference_v<ref_t>) m = key_view(owned[i]);
                counted += apply_pair(s, m, scores[i], flags);
            }
            return counted;
        }

        size_type apply_pair(const sorted_set& s, key_view m, Score score, add_flags flags) {
            change& c = changes[find_or_add(s, m)];
            if (!c.after) {
                if (has(flags, add_flags::xx)) return 0;
                c.after = score;
                return 1;
            }
            if (has(flags, add_flags::nx)) return 0;
            if ((has(flags, add_flags::lt) && !(score < *c.after)) ||
                (has(flags, add_flags::gt) && !(score > *c.after)) || score == *c.after)
                return 0;
            c.after = score;
            return has(flags, add_flags::ch) ? 1 : 0;
        }

        /// The change for member m, added (with its current score) on first sight.
        size_type find_or_add(const sorted_set& s, key_view m) {
            const std::uint64_t h = s.hash_value(m);
            const size_type mask = slots.size() - 1;
            for (size_type i = static_cast<size_type>(h) & mask;; i = (i + 1) & mask) {
                if (slots[i] == 0) {
                    const position pos = s.locate(probe{m, h});
                    std::optional<Score> cur;
                    if (pos) cur = pos.b.score_of(pos.r);
                    changes.push_back(change{m, h, cur, cur});
                    slots[i] = static_cast<std::uint32_t>(changes.size());
                    return changes.size() - 1;
                }
                const change& c = changes[slots[i] - 1];
                if (c.hash == h && s.eq_()(c.member, m)) return slots[i] - 1;
            }
        }
    };

    void apply_batch(const batch_plan& plan) {
        if (!skiplist_mode()) {
            // A listpack is small: apply the changes one by one to a copy (converted first if
            // the batch will need it: sizes only grow during a batch add, so this is exactly
            // when applying the pairs one by one would), then take the copy.
            sorted_set work =
                needs_conversion(plan) ? skiplist_copy() : sorted_set(*this, get_allocator());
            for (const auto& c : plan.changes) work.apply_change_in_place(c);
            take(work);
            return;
        }
        size_type done = 0;
        ZSET_TRY {
            sk_->index.reserve(size() + count_adds(plan));
            for (const auto& c : plan.changes) {
                apply_change_beside(c);
                ++done;
            }
        }
        ZSET_CATCH_ALL {
            undo_changes(plan, done);
            ZSET_RETHROW;
        }
        for (const auto& c : plan.changes)
            if (batch_plan::moves(c)) commit_move(c);
    }

    static size_type count_adds(const batch_plan& plan) noexcept {
        size_type added = 0;
        for (const auto& c : plan.changes) added += batch_plan::adds(c) ? 1 : 0;
        return added;
    }

    /// Would applying the plan to this listpack-mode set convert it?
    bool needs_conversion(const batch_plan& plan) const noexcept {
        size_type added = 0, units = 0, longest = 0;
        for (const auto& c : plan.changes) {
            if (!batch_plan::adds(c)) continue;
            ++added;
            units += block_type::units_for(c.member);
            longest = std::max(longest, detail::member_size<Member>(c.member));
        }
        return added > 0 &&
               (size() + added > opts_.max_listpack_entries || longest > opts_.max_listpack_value ||
                !listpack_can_take(added, units));
    }

    /// Applies one planned change with the single-element operations (on a copy).
    void apply_change_in_place(const typename batch_plan::change& c) {
        const probe k{c.member, c.hash};
        if (batch_plan::adds(c)) {
            insert_new(k, *c.after, false);
        } else if (batch_plan::moves(c)) {
            update_score(k, locate(k), *c.after);
        }
    }

    /// Applies one planned change in skiplist mode: a new member is inserted (index entry
    /// included); an updated member gets a second, unindexed copy at its new score. Strong
    /// guarantee.
    void apply_change_beside(const typename batch_plan::change& c) {
        const probe k{c.member, c.hash};
        if (batch_plan::adds(c))
            insert_new(k, *c.after, false);
        else if (batch_plan::moves(c))
            insert_element(k, *c.after);
    }

    /// Takes back the first `done` changes of a batch that failed (skiplist mode). Never throws.
    void undo_changes(const batch_plan& plan, size_type done) noexcept {
        for (size_type i = done; i-- > 0;) {
            const auto& c = plan.changes[i];
            if (batch_plan::adds(c)) {
                const position pos = locate(probe{c.member, c.hash});
                sk_->index.erase_slot(pos.slot);
                erase_from_list(pos.node, position_in(pos.b, pos.r));
            } else if (batch_plan::moves(c)) {
                const auto [x, at] = find_element(*c.after, c.member);
                erase_from_list(x, at);
            }
        }
    }

    /// Drops the old copy of a member the batch moved and points the index at the new one
    /// (skiplist mode). Never throws.
    void commit_move(const typename batch_plan::change& c) noexcept {
        // the index entry still points at the old copy (re-pointing goes by exact address)
        const position old_copy = locate(probe{c.member, c.hash});
        erase_from_list(old_copy.node, position_in(old_copy.b, old_copy.r));
        const auto [x, at] = find_element(*c.after, c.member);
        sk_->index.set_address(old_copy.slot, address{x, sk_->list.block_of(x).ref(at)});
    }

    /// The element (s, m), found by descending the skiplist (not through the index): its node
    /// and position.
    std::pair<node_id, size_type> find_element(Score s, key_view m) const noexcept {
        path p;
        sk_->list.descend([&](const node& n) { return node_before(n, s, m); }, p);
        node_id x = p.at[0] == list_type::head_id ? sk_->list.first() : p.at[0];
        size_type i = sk_->list.block_of(x).lower_bound(s, m, less_(), search_mode());
        if (i == sk_->list.block_of(x).size()) {
            x = sk_->list.at(x).next(0);
            i = 0;
        }
        return {x, i};
    }

    // ---- range removal and copies ---------------------------------------------------------------

    /// Removes ranks [lo, hi) (index entries included). O(log n * blocks + m). Never throws.
    size_type erase_ranks(size_type lo, size_type hi) noexcept {
        const size_type removed = hi > lo ? hi - lo : 0;
        if (removed == 0) return 0;
        modified();
        if (!skiplist_mode()) {
            lp_.erase(allocator(), lo, hi);
            if (lp_.empty()) release_listpack();
            return removed;
        }
        size_type remaining = removed;
        while (remaining > 0) {
            const auto [x, i] =
                lo == 0 ? std::pair<node_id, size_type>{sk_->list.first(), 0} : sk_->list.nth(lo);
            const block_type b = sk_->list.block_of(x);
            const size_type here = std::min(remaining, b.size() - i);
            for (size_type j = i; j < i + here; ++j) {
                const key_view m = b.member(j);
                sk_->index.erase_slot(sk_->index.find_present(index_type::tag_of(hash_value(m)),
                                                              address{x, b.ref(j)}));
            }
            sk_->list.erase(x, i, i + here);
            remaining -= here;
        }
        if (sk_->list.size() == 0) clear();
        return removed;
    }

    enum class end_of_set { low, high };

    /// ZPOPMIN / ZPOPMAX: copies the elements out first, then removes them block by block
    /// from the chosen end (no search: the first node's predecessors are the head).
    value_vector pop(size_type count, end_of_set from) {
        modified();
        const size_type n = std::min(count, size());
        value_vector out{typename value_vector::allocator_type(get_allocator())};
        out.reserve(n);
        if (n == 1) {
            pop_one(out, from);
            return out;
        }
        if (from == end_of_set::low) {
            for (auto it = begin(); out.size() < n; ++it) append_owned(out, *it);
            erase_ranks(0, n);
        } else {
            for (auto it = end(); out.size() < n;) append_owned(out, *--it);
            erase_ranks(size() - n, size());
        }
        return out;
    }
    /// pop() of one element (ZPOPMIN without a count, BZPOPMIN): the end block read directly,
    /// with no iterator and no rank search, and its index entry found by its address.
    /// Precondition: the set is not empty and `out` has room for one element.
    void pop_one(value_vector& out, end_of_set from) {
        position at;
        at.node = !skiplist_mode()          ? node_id{0}
                  : from == end_of_set::low ? sk_->list.first()
                                            : sk_->list.last();
        at.b = skiplist_mode() ? sk_->list.block_of(at.node) : lp_;
        at.pos = from == end_of_set::low ? 0 : at.b.size() - 1;
        at.r = at.b.ref(at.pos);
        const key_view m = at.b.member_of(at.r);
        // In a set past the cache the index entry is requested before the copy is made, so
        // that its miss (the pop's one) overlaps the allocation and the copy
        // (bench/probes/pop_fresh.cpp: 49.9 -> 43.7 ns a pop at 2 x 10^5, 90-104 -> 70-78 at
        // 10^6; requesting the next pop's entry as well was slower). In a cached set the early
        // hash only costs (the suite at 10^3: 8.6 -> 9.0 us a batch), so it waits there.
        const bool request_early = skiplist_mode() && walks_cold();
        std::uint32_t tag = request_early ? index_type::tag_of(hash_value(m)) : 0;
        if (request_early) sk_->index.prefetch(tag);
        append_owned(out, reference{m, at.b.score_of(at.r)});
        if (skiplist_mode()) {
            if (!request_early) tag = index_type::tag_of(hash_value(m));
            at.slot = sk_->index.find_present(tag, address{at.node, at.r});
        } else if (lp_.has_table())  // its table entry from its hash: one bucket, not a search
            at.entry = lp_.table().find_entry(listpack_fingerprint(m),
                                              [&](size_type p) { return p == at.pos; });
        erase_found(at);
    }
    /// Appends an owning copy of e, its member built in place (no second copy through a
    /// temporary pair; with a scoped or polymorphic allocator, built with the vector's).
    static void append_owned(value_vector& out, const reference& e) {
        out.emplace_back(std::piecewise_construct, std::forward_as_tuple(e.member),
                         std::forward_as_tuple(e.score));
    }
    /// A rank drawn uniformly from [0, n), n >= 1.
    template <class URBG>
    static size_type random_rank(URBG& gen, size_type n) {
        return static_cast<size_type>(detail::uniform_below(gen, n));
    }

    // ---- rank arithmetic ------------------------------------------------------------------------

    /// Where a search by key ended: the rank of the first element not before the key, and that
    /// element's block and position (`pos` may equal the block's size: the next block's first).
    /// A place between elements: position `pos` of block `node` (skiplist mode; 0 when the set
    /// is empty), or `pos` alone in listpack mode.
    struct rank_point {
        node_id node = 0;
        size_type pos = 0;
    };

    /// The rank of the element at point p. O(log n).
    size_type rank_at(const rank_point& p) const noexcept {
        return skiplist_mode() && p.node != 0 ? sk_->list.start_rank(p.node) + p.pos : p.pos;
    }
    /// Elements from point a up to point b (0 when b is not after a): the positions'
    /// difference plus the elements of the blocks between, counted by hopping up to `hops`
    /// blocks forward from a's (for a range about to be walked: the walk reads those blocks
    /// anyway), else by the rank tree (one tree node when the two blocks share a leaf).
    /// O(log n).
    size_type points_between(const rank_point& a, const rank_point& b,
                             int hops = 0) const noexcept {
        if (skiplist_mode() && a.node != b.node && hops > 0) {
            size_type n = sk_->list.block_of(a.node).size() - a.pos;
            for (node_id x = sk_->list.at(a.node).next(0); x != list_type::head_id && hops-- > 0;
                 x = sk_->list.at(x).next(0)) {
                if (x == b.node) return n + b.pos;
                n += sk_->list.block_of(x).size();
            }
        }
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(b.pos) -
                                 static_cast<std::ptrdiff_t>(a.pos) +
                                 (skiplist_mode() ? sk_->list.rank_offset(a.node, b.node) : 0);
        return n > 0 ? static_cast<size_type>(n) : 0;
    }

    /// Where the first element e for which goes_before(e.score, member_of_e) does not hold
    /// lies, where member_of_e() yields e's member on demand (score predicates never call it,
    /// so a search by score reads no member bytes). The predicate must hold for a prefix of
    /// the order. O(log n).
    template <class GoesBefore>
    rank_point point_before(const GoesBefore& goes_before) const noexcept {
        if (empty()) return {};
        if (!skiplist_mode()) return {0, point_in_listpack(goes_before)};
        path p;
        sk_->list.descend(node_goes_before(goes_before), p);
        return point_in_node(p.at[0], goes_before);
    }
    /// {point_before(before_min), point_before(before_max)} for a range's two ends, before_max
    /// holding for at least the prefix before_min holds for unless the range is empty. The end
    /// is searched from the nodes the start's descent passed (skiplist::descend_from), and the
    /// two blocks are then searched together (block::partition_points), their record reads
    /// overlapping; in listpack mode the one block is searched for both ends together.
    template <class GoesBefore>
    std::pair<rank_point, rank_point> both_points(const GoesBefore& before_min,
                                                  const GoesBefore& before_max) const noexcept {
        if (empty()) return {};
        if (!skiplist_mode()) {
            // the set's first and last elements first, as point_in_listpack does: a range from
            // the set's start, or to its end, searches the block once
            if (!element_goes_before(lp_, 0, before_min))
                return {{0, 0}, {0, point_in_listpack(before_max)}};
            if (element_goes_before(lp_, lp_.size() - 1, before_max))
                return {{0, point_in_block(lp_, before_min)}, {0, lp_.size()}};
            const auto [i, j] = block_type::partition_points(
                lp_, [&](size_type k) { return element_goes_before(lp_, k, before_min); }, lp_,
                [&](size_type k) { return element_goes_before(lp_, k, before_max); },
                search_mode());
            return {{0, i}, {0, j}};
        }
        path p;
        sk_->list.descend(node_goes_before(before_min), p);
        const node_id a = p.at[0], b = sk_->list.descend_from(p, node_goes_before(before_max));
        if (a == list_type::head_id || b == list_type::head_id)
            return {point_in_node(a, before_min), point_in_node(b, before_max)};
        const block_type ba = sk_->list.block_of(a), bb = sk_->list.block_of(b);
        const auto [i, j] = block_type::partition_points(
            ba, [&](size_type k) { return element_goes_before(ba, k, before_min); }, bb,
            [&](size_type k) { return element_goes_before(bb, k, before_max); }, search_mode());
        return {{a, i}, {b, j}};
    }
    /// goes_before on a node's first element (its cached score, its member on demand).
    template <class GoesBefore>
    auto node_goes_before(const GoesBefore& goes_before) const noexcept {
        return [this, &goes_before](const node& n) {
            return goes_before(n.first_score, [this, &n]() -> key_view {
                return sk_->list.block_of(n).member(0);
            });
        };
    }
    /// The point in the block of node x, the level-0 node a descent ended on (the first
    /// block's start when the descent stayed at the head).
    template <class GoesBefore>
    rank_point point_in_node(node_id x, const GoesBefore& goes_before) const noexcept {
        if (x == list_type::head_id) return {sk_->list.first(), 0};
        return {x, point_in_block(sk_->list.block_of(x), goes_before)};
    }
    /// point_before(goes_before) for the end of a range that starts at `from`: searched forward
    /// from from's block, hopping up to `hops` blocks before falling back to a descent. A
    /// range's end mostly lies in its start's block or a few blocks on: the test is a block's
    /// last element (the start's block is in cache from the search), where a descent reads a
    /// dozen nodes. An end before from's block comes back as from's block's start, which is
    /// not after `from`: the range is empty either way.
    template <class GoesBefore>
    rank_point point_before_from(const rank_point& from, const GoesBefore& goes_before,
                                 int hops) const noexcept {
        if (!skiplist_mode() || from.node == 0) return point_before(goes_before);
        for (node_id x = from.node;; --hops) {
            const block_type b = sk_->list.block_of(x);
            if (!element_goes_before(b, b.size() - 1, goes_before))
                return {x, point_in_block(b, goes_before)};
            const node_id next = sk_->list.at(x).next(0);
            if (next == list_type::head_id) return {x, b.size()};
            if (hops == 0) return point_before(goes_before);
            x = next;
        }
    }
    /// Does the element at position j of block b go before? Always inlined: in the two-ended
    /// search of a listpack block (both_points) g++ 12 made it a call, 10 a count (callgrind,
    /// ZCOUNT at n = 100: 296 -> 337 instructions; inlined, 293).
    template <class GoesBefore>
    ZSET_ALWAYS_INLINE static bool element_goes_before(block_type b, size_type j,
                                                       const GoesBefore& goes_before) noexcept {
        const ref_type r = b.ref(j);
        return goes_before(b.score_of(r), [b, r]() -> key_view { return b.member_of(r); });
    }
    /// point_before() in listpack mode. The first and the last element are tested before the
    /// block is searched, as skiplist mode's descent compares a block's cached first score and
    /// its end search (point_before_from) a block's last element, so a range from the set's
    /// start or to its end needs no binary search. From the start: the suite's range_by_score at
    /// n = 100, 137-215 -> 100-106 ns (three alternated rounds). To the end (a window up to
    /// now): ZCOUNT over 40,000 listpack sets out of cache, 672-731 -> 328-462 ns a count, a
    /// window inside the sets unchanged (bench/probes/cold_windows.cpp); in cache, a read of all
    /// 100 members with finite ends 1988 -> 1851 instructions, one inside them 1540 -> 1552
    /// (bench/probes/range_modes.cpp), time unchanged.
    template <class GoesBefore>
    size_type point_in_listpack(const GoesBefore& goes_before) const noexcept {
        if (!element_goes_before(lp_, 0, goes_before)) return 0;
        const size_type n = lp_.size();
        if (element_goes_before(lp_, n - 1, goes_before)) return n;
        return point_in_block(lp_, goes_before);
    }
    /// The position in block b where goes_before stops holding.
    template <class GoesBefore>
    size_type point_in_block(block_type b, const GoesBefore& goes_before) const noexcept {
        return b.partition_point(
            [&](size_type j) { return element_goes_before(b, j, goes_before); }, search_mode());
    }
    /// The places before the first element and after the last.
    rank_point begin_point() const noexcept {
        return {skiplist_mode() ? sk_->list.first() : 0, 0};
    }
    rank_point end_point() const noexcept {
        if (!skiplist_mode()) return {0, size()};
        const node_id last = sk_->list.last();
        return {last, last != 0 ? sk_->list.block_of(last).size() : 0};
    }

    /// The iterator `steps` elements after position pos of block id (skiplist mode), found by
    /// hopping whole blocks: O(steps / block size), no descent. Requests the records of every
    /// block it enters when walks_cold() (a walk over them follows). id is a node of the list,
    /// never the head.
    const_iterator iterator_after(node_id id, size_type pos, size_type steps) const noexcept {
        pos += steps;
        block_type b = sk_->list.block_of(id);
        while (pos >= b.size()) {
            pos -= b.size();
            id = sk_->list.at(id).next(0);
            if (id == list_type::head_id) return end();
            b = sk_->list.block_of(id);
            if (walks_cold()) b.prefetch_block();
        }
        return make_iterator(&sk_->list, b, id, pos);
    }

    /// Where a score range starts and ends (the end may lie before the start: then it is
    /// empty). The end is searched forward from the start, up to `hops` blocks on, or through
    /// the levels from the start's search path (climb_from_start).
    std::pair<rank_point, rank_point> score_points(const score_range<Score>& r,
                                                   int hops = climb_from_start) const noexcept {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(r.min.value) || std::isnan(r.max.value)) return {};  // matches nothing
        // One predicate type for both ends, so point_before is compiled once: a score goes
        // before the range when below min (or equal to an exclusive min), before its end when
        // below max (or equal to an inclusive max).
        const auto goes_before = [](Score bound, bool strict) {
            return
                [bound, strict](Score s, const auto&) { return strict ? s < bound : !(bound < s); };
        };
        // the unbounded ends (-inf / +inf) need no search
        const bool from_lowest =
            !r.min.exclusive && !(score_bound<Score>::lowest().value < r.min.value);
        const bool to_highest =
            !r.max.exclusive && !(r.max.value < score_bound<Score>::highest().value);
        const auto before_min = goes_before(r.min.value, !r.min.exclusive);
        const auto before_max = goes_before(r.max.value, r.max.exclusive);
        if (hops == climb_from_start && !from_lowest && !to_highest)
            return both_points(before_min, before_max);
        const rank_point start = from_lowest ? begin_point() : point_before(before_min);
        if (to_highest) return {start, end_point()};
        if (hops != climb_from_start) return {start, point_before_from(start, before_max, hops)};
        return {start, point_before(before_max)};
    }
    /// The ranks [lo, hi) between two points.
    std::pair<size_type, size_type>
    ranks_of(const std::pair<rank_point, rank_point>& points) const noexcept {
        const size_type lo = rank_at(points.first);
        return {lo, lo + points_between(points.first, points.second)};
    }
    std::pair<size_type, size_type> score_ranks(const score_range<Score>& r) const noexcept {
        return ranks_of(score_points(r));
    }

    /// Does member m order before the end of a lex range at bound b? `lower` selects the
    /// meaning of an inclusive / exclusive bound: before its start (min) or before its end (max).
    bool before_lex_bound(key_view m, const lex_bound<lex_key>& b, bool lower) const noexcept {
        using kind = typename lex_bound<lex_key>::kind;
        switch (b.type) {
        case kind::inclusive:
            return lower ? less_()(m, key_view(b.value)) : !less_()(key_view(b.value), m);
        case kind::exclusive:
            return lower ? !less_()(key_view(b.value), m) : less_()(m, key_view(b.value));
        case kind::minus_infinity:
            return false;
        case kind::plus_infinity:
            return true;
        }
        return false;
    }

    std::pair<rank_point, rank_point> lex_points(const lex_range<lex_key>& r,
                                                 int hops = climb_from_start) const noexcept {
        // one predicate type for both ends (point_before compiled once)
        const auto goes_before = [this](const lex_bound<lex_key>& bound, bool lower) {
            return [this, &bound, lower](Score, const auto& member_of) {
                return before_lex_bound(member_of(), bound, lower);
            };
        };
        const auto before_min = goes_before(r.min, true);
        const auto before_max = goes_before(r.max, false);
        if (hops == climb_from_start) return both_points(before_min, before_max);
        const rank_point start = point_before(before_min);
        return {start, point_before_from(start, before_max, hops)};
    }
    std::pair<size_type, size_type> lex_ranks(const lex_range<lex_key>& r) const noexcept {
        return ranks_of(lex_points(r));
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

    /// The elements between two points (a search's start and end), LIMIT applied. A short
    /// range from its first element needs no absolute rank, and its start is the point the
    /// search found (no second search by rank).
    rank_range forward_range_between(const std::pair<rank_point, rank_point>& points,
                                     limit lim) const noexcept {
        const rank_point& at = points.first;
        const auto [a, b] = apply_limit(0, points_between(at, points.second, walk_hops), lim);
        if (skiplist_mode() && b <= hop_limit) {
            if (a == 0) return forward_range_from(at, 0, b);
            if (a < b) return forward_range_at(at.node, at.pos + a, 0, b - a);  // after an offset
        }
        const size_type lo = rank_at(at);
        return a == 0 ? forward_range_from(at, lo, lo + b) : forward_range(lo + a, lo + b);
    }
    rank_range forward_range(size_type lo, size_type hi) const noexcept {
        if (lo >= hi) return rank_range(end(), end(), 0);
        if (!skiplist_mode())
            return rank_range(listpack_iterator(lo), listpack_iterator(hi), hi - lo);
        const auto [id, pos] = sk_->list.nth(lo);
        return forward_range_at(id, pos, lo, hi);
    }
    /// forward_range(lo, hi) when the search for rank lo ended at `at`, so that no second
    /// search is needed for the start (range_by_score at 10^6: a descent costs about as much as
    /// the whole walk).
    rank_range forward_range_from(const rank_point& at, size_type lo, size_type hi) const noexcept {
        if (lo >= hi || !skiplist_mode()) return forward_range(lo, hi);
        return forward_range_at(at.node, at.pos, lo, hi);
    }
    /// A range of at most this many elements finds its end by hopping blocks (about 6) rather
    /// than by a search by rank.
    static constexpr size_type hop_limit = 512;
    /// Blocks a short range's count may hop (hop_limit elements in blocks at least half full).
    static constexpr int walk_hops = 8;
    /// score_points() / lex_points(): search the end through the skiplist's levels from the
    /// nodes the start's descent passed (skiplist::descend_from), not along level 0, then both
    /// ends' blocks together (both_points). Counts and reverse ranges do. ZCOUNT of 1% of n
    /// (bench/probes/range_ends.cpp `count`, alternated, medians of 5 passes) against a second
    /// descent from the head and separate block searches: 10^3 78.5-78.9 -> 61.0-61.3 ns, 10^5
    /// 346-362 -> 278-282 ns (0.1.0: 290-294). The level-0 hop (hops 0) was slower for counts
    /// at 10^5 (345 -> 365 ns), where the end lies some 11-15 blocks on.
    static constexpr int climb_from_start = -1;
    /// The range [lo, hi) whose first element is at position pos of block id (pos may lie
    /// past the block's end: the element that many positions on, in the blocks after). A short
    /// range (hop_limit) finds its end by hopping blocks, and requests the records it will walk.
    /// Once: its walk does not request the blocks it enters again (walks_cold()), nor the
    /// header of the block after its end. Suite, zset's median at 10^5, two alternated rounds:
    /// range_by_score 443-444 -> 416-418 ns, range_by_rank 250-251 -> 233-234 ns.
    rank_range forward_range_at(node_id id, size_type pos, size_type lo,
                                size_type hi) const noexcept {
        const_iterator first = iterator_after(id, pos, 0);
        if (hi - lo > hop_limit) return rank_range(first, nth(hi), hi - lo);
        if (walks_cold()) first.block_.prefetch_block();
        const const_iterator last = iterator_after(first.id_, first.pos_, hi - lo);
        first.requests_ = block_requests::none;
        return rank_range(first, last, hi - lo);
    }
    /// The elements between two points walked highest first, LIMIT applied (its offset counts
    /// from the highest). A page that ends at most hop_limit elements below the range's top is
    /// reached by hopping blocks back from the end point the search found, with no search by
    /// rank (a leaderboard's ZREVRANGEBYSCORE ... LIMIT 0 10 at 10^6: two descents of the rank
    /// tree fewer).
    reverse_range reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                        limit lim) const noexcept {
        return reverse_range_between(points, points_between(points.first, points.second), lim);
    }
    /// reverse_range_between(points, lim) given the count of elements between the points.
    reverse_range reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                        size_type count, limit lim) const noexcept {
        const auto [a, b] = apply_limit_reverse(0, count, lim);
        if (skiplist_mode() && a < b && count - a <= hop_limit)
            return reverse_from(iterator_before(points.second, count - a), b - a);
        const size_type lo = rank_at(points.first);
        return reverse_view(lo + a, lo + b);
    }
    /// Is lim a page of at most hop_limit elements from the range's top (offset + count)?
    static bool short_page(limit lim) noexcept {
        const auto most = static_cast<long long>(hop_limit);
        return lim.offset >= 0 && lim.count >= 0 && lim.offset <= most &&
               lim.count <= most - lim.offset;
    }
    /// Does the score range hold no score at all (min above max, or one score with an
    /// exclusive end, or NaN)? Then its start point may lie after its end.
    static bool inverted(const score_range<Score>& r) noexcept {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(r.min.value) || std::isnan(r.max.value)) return true;
        return r.max.value < r.min.value ||
               (!(r.min.value < r.max.value) && (r.min.exclusive || r.max.exclusive));
    }
    /// reverse_range_between() for a short page (short_page) of a range whose start point is
    /// not after its end (skiplist mode): walks back from the end at most offset + count
    /// elements, stopping at the start, so a range with that many elements needs no count of
    /// them (a leaderboard's next page at 10^6: no rank-tree climb between its two ends).
    reverse_range reverse_page(const std::pair<rank_point, rank_point>& points,
                               limit lim) const noexcept {
        const rank_point& start = points.first;
        auto need = static_cast<size_type>(lim.offset + lim.count);
        node_id id = points.second.node;
        size_type pos = points.second.pos, found = 0;
        for (;;) {
            const size_type here = id != start.node ? pos : pos > start.pos ? pos - start.pos : 0;
            if (need <= here) {
                pos -= need;
                found += need;
                break;
            }
            found += here;
            need -= here;
            pos -= here;
            if (id == start.node) break;
            id = sk_->list.at(id).prev;
            pos = sk_->list.block_of(id).size();
        }
        const auto [a, b] = apply_limit_reverse(0, found, lim);
        if (a >= b) return reverse_view(0, 0);
        return reverse_from(iterator_after(id, pos, a), b - a);
    }
    /// The n elements from `first` on (skiplist mode), walked highest first. Every block of
    /// the range is requested here (the hop to its end requests those after first's), so its
    /// walk requests none: a reverse iterator's dereference decrements a copy, which at a block
    /// boundary entered and requested the block below once more per element read there.
    /// bench/probes/range_ends.cpp at 10^5, five passes each: ZREVRANGE 0 9 and 20 29 (`rank`)
    /// 40.5-41.3 -> 23.2-24.0 ns, ZREVRANGEBYSCORE +inf -inf LIMIT 0 10 (`top`) 42.5-42.7 ->
    /// 38.7-39.4 ns, the next page (`page`) 240-243 -> 237-244 ns.
    reverse_range reverse_from(const const_iterator& first, size_type n) const noexcept {
        const_iterator last = iterator_after(first.id_, first.pos_, n);
        if (walks_cold() && first.id_ != 0 && first.id_ != last.id_) first.block_.prefetch_block();
        last.requests_ = block_requests::none;
        return reverse_range(const_reverse_iterator(last), const_reverse_iterator(first), n);
    }
    /// The iterator `steps` elements before point p (skiplist mode; at least `steps` elements
    /// precede p), found by hopping whole blocks back: O(steps / block size), no descent.
    const_iterator iterator_before(const rank_point& p, size_type steps) const noexcept {
        node_id id = p.node;
        size_type pos = p.pos;
        while (pos < steps) {
            steps -= pos;
            id = sk_->list.at(id).prev;
            pos = sk_->list.block_of(id).size();
        }
        return iterator_after(id, pos - steps, 0);
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
        size_type units = 0;
        for (; first != last; ++first) {
            const key_view m = key_view(element_member(*first));
            if (detail::member_size<Member>(m) > opts_.max_listpack_value) return false;
            units += block_type::units_for(m);
        }
        return block_type::can_hold(n, units);
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
            return score_of_pair(e.second);
    }

    /// Whether a built set's blocks keep room to grow (copies, set-operation results, so the
    /// next inserts do not copy a block at once) or none (shrink_to_fit: at n = 100 in listpack
    /// mode the growth room is about 1.5 bytes a member).
    enum class build_room { growth, none };

    /// Fills this (empty) set from sorted unique elements, in the given encoding. Strong
    /// guarantee: on exception this stays empty.
    template <class It>
    void build_from(It first, It last, size_type n, bool as_skiplist,
                    build_room room = build_room::growth) {
        if (n == 0) return;
        if (as_skiplist)
            build_skiplist(first, last, n, room);
        else
            build_listpack(first, last, n, room);
    }

    /// Replaces the contents with the sorted, unique elements [first, last) (possibly this
    /// set's own), in the smallest encoding that fits. Strong guarantee.
    template <class It>
    void rebuild_from(It first, It last, build_room room) {
        sorted_set fresh(opts_, hash_(), eq_(), less_(), get_allocator());
        const auto n = static_cast<size_type>(std::distance(first, last));
        fresh.build_from(first, last, n, !fresh.fits_listpack(first, last, n), room);
        take(fresh);
    }

    /// The positions and area units of a built block for `count` elements of `units` units.
    static size_type built_positions(size_type count, build_room room) noexcept {
        return room == build_room::growth ? block_type::grown(count) : count;
    }
    static size_type built_area(size_type units, build_room room) noexcept {
        return room == build_room::growth ? block_type::grown_area(units) : units;
    }

    template <class It>
    void build_listpack(It first, It last, size_type n, build_room room) {
        const Allocator& alloc = allocator();
        size_type units = 0;
        for (It it = first; it != last; ++it)
            units += block_type::units_for(key_view(element_member(*it)));
        block_type b =
            block_type::create(alloc, std::max(listpack_positions(built_positions(n, room)), n),
                               built_area(units, room), true);
        ZSET_TRY {
            fill_block(b, first, last, zset::encoding::listpack);
        }
        ZSET_CATCH_ALL {
            block_type::destroy(alloc, b);
            ZSET_RETHROW;
        }
        lp_ = b;
    }

    /// Appends the elements [first, last) to block b in order. Strong guarantee for b's owner:
    /// on exception b holds a prefix of them (destroyed by the caller).
    template <class It>
    void fill_block(block_type b, It first, It last, zset::encoding mode) const {
        const Allocator& alloc = allocator();
        for (It it = first; it != last; ++it) {
            const key_view m = key_view(element_member(*it));
            const ref_type r = b.append_record(alloc, stored_score(element_score(*it), mode), m);
            b.link(b.size(), r, listpack_fingerprint(m));
        }
    }

    /// Sets of up to this many members get their index laid out in one pass
    /// (hash_index::assign): ZUNION of two sets of 100, 1,000 and 4,000 members 17%, 11% and 17%
    /// faster than one insert after another. Not beyond: its temporaries (~30 bytes a member)
    /// then outgrow malloc's mmap threshold, and the page faults of fresh memory made ZUNION at
    /// 10^5 25% slower.
    static constexpr size_type index_laid_out_up_to = 8192;

    template <class It>
    ZSET_NOINLINE void build_skiplist(It first, It last, size_type n,
                                      build_room room = build_room::growth) {
        owned_state state(allocator());
        list_type& fresh = state.get()->list;
        index_type& fresh_index = state.get()->index;
        using tagged_address = typename index_type::tagged_address;
        std::vector<tagged_address, rebound<tagged_address>> entries{
            rebound<tagged_address>(get_allocator())};
        const bool laid_out = n <= index_laid_out_up_to;
        if (laid_out)
            entries.reserve(n);
        else
            fresh_index.reserve(n);
        while (first != last) {
            // one block: up to block_max_entries elements and (softly) block_max_bytes of records
            It chunk_end = first;
            size_type count = 0, units = 0;
            while (chunk_end != last && count < block_max_entries) {
                const size_type need = block_type::units_for(key_view(element_member(*chunk_end)));
                if (count > 0 && units + need > block_max_bytes) break;
                units += need;
                ++count;
                ++chunk_end;
            }
            const node_id made = fresh.append_node(
                built_positions(count, room), built_area(units, room), list_type::max_level, false,
                [&](block_type b) { fill_block(b, first, chunk_end, zset::encoding::skiplist); });
            const block_type b = fresh.block_of(made);
            for (size_type i = 0; i < b.size(); ++i) {
                const tagged_address e{index_type::tag_of(hash_value(b.member(i))),
                                       address{made, b.ref(i)}};
                if (laid_out)
                    entries.push_back(e);
                else
                    fresh_index.insert(e.tag, e.a);
            }
            first = chunk_end;
        }
        if (laid_out) fresh_index.assign(entries.data(), entries.data() + entries.size());
        release_listpack();
        release_skiplist();
        sk_ = state.release();
    }

    /// A copy of this set in skiplist mode (same allocator, options and functors). O(n).
    ZSET_NOINLINE sorted_set skiplist_copy() const {
        sorted_set converted(opts_, hash_(), eq_(), less_(), get_allocator());
        converted.build_skiplist(begin(), end(), size());
        return converted;
    }

    /// Frees the listpack block, if any. Never throws.
    void release_listpack() noexcept {
        block_type::destroy(allocator(), lp_);
        lp_ = block_type();
    }

    /// Frees the skiplist mode's state, if any (the set is then in listpack mode). Never throws.
    void release_skiplist() noexcept {
        if (sk_ != nullptr) owned_state::destroy(allocator(), std::exchange(sk_, nullptr));
    }

    /// Replaces the allocator of an empty set. Never throws.
    void set_allocators(const Allocator& a) noexcept {
        this->held_allocator() = a;
    }

    /// Exchanges elements and encoding with other (same allocator). Never throws.
    void swap_contents(sorted_set& other) noexcept {
        std::swap(sk_, other.sk_);
        std::swap(lp_, other.lp_);
    }

    /// Takes other's contents (same allocator). Never throws.
    void take(sorted_set& other) noexcept {
        modified();
        other.modified();  // its iterators now point into this set
        release_skiplist();
        sk_ = std::exchange(other.sk_, nullptr);
        release_listpack();
        lp_ = std::exchange(other.lp_, block_type());
        opts_ = other.opts_;
        this->held_functions() =
            other.held_functions();  // a stateful hash (e.g. seeded) must travel with the elements
    }

    // ---- validation -----------------------------------------------------------------------------

    bool validate_listpack() const {
        if (!lp_) return true;
        if (lp_.empty() || !lp_.validate() || !lp_.fingerprinted()) return false;
        for (size_type i = 0; i < lp_.size(); ++i) {
            if (lp_.fingerprint(i) != lp_.kept_fingerprint(listpack_fingerprint(lp_.member(i))))
                return false;
            if constexpr (std::is_floating_point_v<Score>)
                if (lp_.score(i) == Score(0) && std::signbit(lp_.score(i))) return false;
        }
        return true;
    }

    bool validate_skiplist() const {
        if (lp_ || !sk_->list.validate() || sk_->list.size() == 0) return false;
        if (sk_->index.size() != size() || !sk_->index.validate()) return false;
        bool ok = true;
        sk_->index.for_each([&](std::uint32_t tag, address a) {
            const block_type b = sk_->list.block_of(a.node);
            if (sk_->list.at(a.node).height == 0 || !b) {
                ok = false;
                return;
            }
            const size_type i = b.position_of(a.ref);
            ok = ok && i < b.size() && index_type::tag_of(hash_value(b.member_of(a.ref))) == tag;
        });
        for (node_id x = sk_->list.first(); ok && x != list_type::head_id;
             x = sk_->list.at(x).next(0))
            ok = sk_->list.block_of(x).size() <= block_max_entries &&
                 !sk_->list.block_of(x).fingerprinted();
        return ok;
    }

    detail::compact_options opts_;
    skiplist_state* sk_ = nullptr;  // skiplist mode (null in listpack mode)
    block_type lp_{};               // listpack mode (null while empty)
#if ZSET_DEBUG
    std::uint64_t generation_ = 0;  // counts modifications (checked iterators)
#endif
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
// compiles its algorithms again: about two thirds of such a TU's compile time at -O2
// (docs/benchmarks.md, "Compile time"). With ZSET_EXTERN_TEMPLATES defined (for the whole
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
ZSET_DETAIL_INSTANCE class zset::sorted_set<>;
#undef ZSET_DETAIL_INSTANCE
#endif

#endif  // ZSET_SORTED_SET_HPP
