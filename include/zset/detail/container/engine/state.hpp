// zset::detail::set_engine: the state — skiplist mode's state and its owner; construction,
// assignment, swap and clear; the observers and the function objects; size and memory; the cache
// policy of searches and walks; checked mode's modification count. Part of engine.hpp.
// SPDX-License-Identifier: MIT
//
// Skiplist mode's state (the list and the hash index) lives in one allocation the set points to,
// so a set is three words (the thresholds, that pointer, the listpack block pointer; the
// allocator and the function objects are empty bases for the defaults). With the state inline
// the set object would be several times larger, and with the function objects a member their
// empty tuple would take a padded word. A set in listpack mode does not pay for skiplist mode,
// which keeps a 100-member set within 24 bytes a member (bench row memory/zset/100) with room
// for the bucket table (docs/design-log.md, "The set object at 24 bytes"). The cost is one
// load during the member's hashing in skiplist mode.
//
// Whole-set changes build a new engine and take() it, which cannot fail: that is how copy
// assignment, batch adds in listpack mode, conversions and rebuilds give the strong guarantee.
// A copy is built by conversion.hpp's build_from over views.hpp's begin and end: the lifetime is
// the one part of this layer that calls later ones.
//
// The cache policy: below walks_cold()'s 256 blocks (~25,000 elements, ~1 MB: more than a
// core's L2) a set is taken to be cached, and searches and walks request nothing ahead; from
// there on they request the records they are about to read.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_STATE_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_STATE_HPP

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

/// An allocated skiplist_state, freed unless released. Throws only when allocating.
template <class Params>
class set_engine<Params>::owned_state {
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

// ---- construction and assignment --------------------------------------------------------------

template <class Params>
inline set_engine<Params>::set_engine(const options& opts, const Allocator& alloc)
    : allocator_holder_type(alloc), opts_(opts) {}

template <class Params>
inline set_engine<Params>::set_engine(const options& opts, const Hash& hash, const KeyEqual& equal,
                                      const Compare& compare, const Allocator& alloc)
    : allocator_holder_type(alloc), function_holder_type(hash, equal, compare), opts_(opts) {}

/// The allocator comes from select_on_container_copy_construction.
template <class Params>
inline set_engine<Params>::set_engine(const set_engine& other)
    : set_engine(other,
                 alloc_traits::select_on_container_copy_construction(other.get_allocator())) {}

/// Copies elements, options, function objects and encoding.
template <class Params>
inline set_engine<Params>::set_engine(const set_engine& other, const Allocator& alloc)
    : allocator_holder_type(alloc), function_holder_type(other.functions()), opts_(other.opts_) {
    build_from(other.begin(), other.end(), other.size(), other.skiplist_mode());
}

/// The function objects are copied, not moved: the moved-from set stays usable, hash and all.
template <class Params>
inline set_engine<Params>::set_engine(set_engine&& other) noexcept
    : allocator_holder_type(other.get_allocator()),
      // NOLINTNEXTLINE(performance-move-constructor-init): copied on purpose (above)
      function_holder_type(other.functions()), opts_(other.opts_) {
    take(other);
}

template <class Params>
inline set_engine<Params>::~set_engine() {
    release_listpack();
    release_skiplist();
}

/// Strong guarantee: copy, then take the copy.
template <class Params>
inline set_engine<Params>& set_engine<Params>::operator=(const set_engine& other) {
    if (this == &other) return *this;
    if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
        set_engine copy(other, other.get_allocator());
        clear();
        set_allocators(other.get_allocator());
        take(copy);
    } else {
        set_engine copy(other, get_allocator());
        take(copy);
    }
    return *this;
}

/// O(1) when the allocator propagates or compares equal, else a copy.
template <class Params>
inline set_engine<Params>& set_engine<Params>::operator=(set_engine&& other) noexcept(
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
            set_engine copy(other, get_allocator());
            take(copy);
            other.clear();
        }
    }
    return *this;
}

/// Allocators are swapped only when they propagate on swap.
template <class Params>
inline void set_engine<Params>::swap(set_engine& other) noexcept {
    if constexpr (alloc_traits::propagate_on_container_swap::value) {
        using std::swap;
        swap(this->held_allocator(), other.held_allocator());
    }
    swap_contents(other);
    std::swap(opts_, other.opts_);
    std::swap(this->held_functions(), other.held_functions());
}

/// The set returns to listpack mode.
template <class Params>
inline void set_engine<Params>::clear() noexcept {
    modified();
    release_skiplist();
    release_listpack();
}

template <class Params>
inline void set_engine<Params>::release_listpack() noexcept {
    block_type::destroy(allocator(), lp_);
    lp_ = block_type();
}

template <class Params>
inline void set_engine<Params>::release_skiplist() noexcept {
    if (sk_ != nullptr) owned_state::destroy(allocator(), std::exchange(sk_, nullptr));
}

template <class Params>
inline void set_engine<Params>::set_allocators(const Allocator& a) noexcept {
    this->held_allocator() = a;
}

template <class Params>
inline void set_engine<Params>::swap_contents(set_engine& other) noexcept {
    std::swap(sk_, other.sk_);
    std::swap(lp_, other.lp_);
}

template <class Params>
inline void set_engine<Params>::take(set_engine& other) noexcept {
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

// ---- observers --------------------------------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::get_allocator() const noexcept -> Allocator {
    return this->held_allocator();
}

template <class Params>
inline auto set_engine<Params>::allocator() const noexcept -> const Allocator& {
    return this->held_allocator();
}

template <class Params>
inline auto set_engine<Params>::functions() const noexcept -> const function_holder_type& {
    return *this;
}

template <class Params>
inline options set_engine<Params>::get_options() const noexcept {
    return opts_;
}

template <class Params>
inline void set_engine<Params>::set_options(const options& opts) noexcept {
    opts_ = opts;
}

template <class Params>
inline auto set_engine<Params>::hash_function() const -> Hash {
    return hash_();
}

template <class Params>
inline auto set_engine<Params>::key_eq() const -> KeyEqual {
    return eq_();
}

template <class Params>
inline auto set_engine<Params>::member_comp() const -> Compare {
    return less_();
}

// ---- the encoding and the function objects ----------------------------------------------------

template <class Params>
inline bool set_engine<Params>::skiplist_mode() const noexcept {
    return sk_ != nullptr;
}

template <class Params>
inline auto set_engine<Params>::hash_() const noexcept -> const Hash& {
    return this->held_hash();
}

template <class Params>
inline auto set_engine<Params>::eq_() const noexcept -> const KeyEqual& {
    return this->held_equal();
}

template <class Params>
inline auto set_engine<Params>::less_() const noexcept -> const Compare& {
    return this->held_compare();
}

// ---- size and memory --------------------------------------------------------------------------

template <class Params>
inline auto set_engine<Params>::size() const noexcept -> size_type {
    if (skiplist_mode()) return sk_->list.size();
    return lp_ ? lp_.size() : 0;
}

template <class Params>
inline bool set_engine<Params>::empty() const noexcept {
    return size() == 0;
}

template <class Params>
inline auto set_engine<Params>::max_size() const noexcept -> size_type {
    // ranks are 32-bit; on a 32-bit size_t the address space is the tighter bound
    return static_cast<size_type>(std::min<std::uint64_t>(
        list_type::max_elements, std::numeric_limits<size_type>::max() / 64));
}

template <class Params>
inline zset::encoding set_engine<Params>::encoding() const noexcept {
    return skiplist_mode() ? zset::encoding::skiplist : zset::encoding::listpack;
}

/// The set object (this engine is all of it) and everything it allocated.
template <class Params>
inline auto set_engine<Params>::memory_usage() const noexcept -> size_type {
    size_type total = sizeof(*this);
    if (sk_) total += sizeof(skiplist_state) + sk_->list.memory_usage() + sk_->index.memory_usage();
    if (lp_) total += lp_.allocated_bytes() + lp_.out_of_line_bytes();
    return total;
}

// ---- the cache policy -------------------------------------------------------------------------

/// Beyond ~256 blocks (~25,000 elements, ~1 MB: more than a core's L2) the blocks a walk reaches
/// are seldom cached, and their records, in arrival order, would each be a miss of their own.
/// Below, the requests are instructions spent for nothing, which would make short ranges over
/// cached sets slower (docs/design-log.md, "Walks request their blocks"; bench rows
/// range_by_rank and iterate).
template <class Params>
inline bool set_engine<Params>::walks_cold() const noexcept {
    return skiplist_mode() && sk_->list.node_count() >= 256;
}

/// Nothing while the set is likely cached, blocks as the walk enters them, or (from far_blocks
/// blocks) one block further ahead.
template <class Params>
inline block_requests set_engine<Params>::block_requests_for() const noexcept {
    if (!walks_cold()) return block_requests::none;
    return sk_->list.node_count() >= far_blocks ? block_requests::ahead : block_requests::on_entry;
}

/// From walks_cold()'s 256 blocks a search prefetches the records it may probe next, as each
/// step reads an order entry and then a record. At 256 blocks a set's records already pass a
/// core's L2, so the prefetches pay for short counts, batch adds and ranges at 10^5 and cost no
/// row anything (docs/design-log.md, "Walks request their blocks"; bench rows
/// zcount/zset/100000, range_by_score/zset/100000).
template <class Params>
inline auto set_engine<Params>::search_mode() const noexcept -> typename block_type::search {
    return walks_cold() ? block_type::search::cold : block_type::search::cached;
}

/// Below walks_cold()'s 256 blocks the order array is likely cached and is scanned in fixed
/// work; beyond, the scan stops at the match.
template <class Params>
inline auto set_engine<Params>::position_in(block_type b, ref_type r) const noexcept -> size_type {
    return b.position_of(r, search_mode());
}

// ---- checked mode -----------------------------------------------------------------------------

template <class Params>
inline void set_engine<Params>::modified() noexcept {
#if ZSET_DEBUG
    ++generation_;
#endif
}

template <class Params>
inline void set_engine<Params>::check_own(const const_iterator& it) const noexcept {
#if ZSET_DEBUG
    if (it.owner_generation_ != &generation_)
        detail::fail_check("zset: erase given an iterator of another set (or a default one)");
    it.check_valid();
#else
    (void)it;
#endif
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_STATE_HPP
