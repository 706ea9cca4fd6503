// zset::detail::set_iterator — the const_iterator of zset::sorted_set: a bidirectional walk over
// the elements in (score, member) order.
// SPDX-License-Identifier: MIT
//
// An iterator is a block and a position in it: in listpack mode the set's one block (list_ is
// null and id_ is 1, or 0 for end()), in skiplist mode a node of the list and its block. Steps
// within a block read one 16-bit order entry; a step past the block's end follows the node's
// level-0 link. Dereferencing builds an element view by value, so it is a proxy iterator.
//
// Walks over sets too big for the cache request the blocks they are about to read
// (block_requests, chosen by the set when it makes the iterator: set_engine::block_requests_for).
// In checked mode (ZSET_DEBUG) an iterator also remembers its set's modification count and
// aborts when used after the set changed.
#ifndef ZSET_DETAIL_CONTAINER_SET_ITERATOR_HPP
#define ZSET_DETAIL_CONTAINER_SET_ITERATOR_HPP

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "../../common.hpp"
#include "../../element.hpp"
#include "block.hpp"
#include "skiplist.hpp"

namespace zset {
namespace detail {

/// How an iterator's walk requests the blocks it is about to read (see set_iterator::enter_block).
enum class block_requests : std::uint8_t { none, on_entry, ahead };

template <class Params>
class set_engine;

/// Bidirectional iterator over a set's elements in (score, member) order. Dereferences to an
/// element view by value, so it is a proxy iterator. Made by set_engine (make_iterator).
template <class Score, class Member, class Allocator>
class set_iterator {
    using list_type = skiplist<Score, Member, Allocator>;
    using block_type = typename list_type::block_type;
    using ref_type = typename block_type::ref_type;
    using node_id = typename list_type::node_id;
    using size_type = std::size_t;

public:
    using iterator_category = std::bidirectional_iterator_tag;
    using iterator_concept = std::bidirectional_iterator_tag;  // C++20 ranges
    using value_type = element<member_view_t<Member>, Score>;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    struct pointer {
        reference ref;
        const reference* operator->() const noexcept { return &ref; }
    };

    set_iterator() = default;

    reference operator*() const noexcept {
        check_valid();
        const ref_type r = order_[pos_];
        return {block_.member_of(r), block_.score_of(r)};
    }
    pointer operator->() const noexcept { return pointer{**this}; }

    set_iterator& operator++() noexcept {
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
    set_iterator operator++(int) noexcept {
        set_iterator t = *this;
        ++*this;
        return t;
    }
    set_iterator& operator--() noexcept {
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
    set_iterator operator--(int) noexcept {
        set_iterator t = *this;
        --*this;
        return t;
    }
    friend bool operator==(const set_iterator& a, const set_iterator& b) noexcept {
        return a.id_ == b.id_ && a.pos_ == b.pos_;
    }
    friend bool operator!=(const set_iterator& a, const set_iterator& b) noexcept {
        return !(a == b);
    }

private:
    template <class Params>
    friend class set_engine;

    set_iterator(const list_type* list, block_type b, node_id id, size_type pos) noexcept
        : list_(list), id_(id), pos_(pos) {
        set_block(b);
    }
    /// Keeps the block's order array and size at hand: a walk then reads one order entry and
    /// one record per element, not the block header as well, which would take several
    /// instructions an element (docs/design-log.md, "Iteration in few instructions"; bench row
    /// iterate).
    /// The iterator is 48 bytes.
    void set_block(block_type b) noexcept {
        block_ = b;
        order_ = b ? b.order() : nullptr;
        block_size_ = b ? b.size() : 0;
    }
    /// A walk over a set too big for the cache reached a new block: its records lie in arrival
    /// order, so they are requested all at once (their misses overlap instead of following one
    /// another), and the header of the block the walk reaches next, so that the same can be
    /// done there without waiting (docs/design-log.md, "Walks request their blocks").
    ///
    /// Blocks far beyond the cache (block_requests::ahead) are requested one block earlier:
    /// entering block j requests block j + 1, whose header was requested on entering j - 1, and
    /// the header of j + 2; so a block's records arrive while the one before it is walked. Not
    /// for smaller sets: while the blocks fit in the L3 cache the extra requests make the walk
    /// slower (docs/design-log.md, "Walks request their blocks"; bench rows iterate/zset/100000
    /// and iterate/zset/1000000).
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
    // Checked mode: the set's modification count, and its value when the iterator was made;
    // any change to the set since then makes using the iterator abort with a message.
    void check_valid() const noexcept {
        if (owner_generation_ != nullptr && *owner_generation_ != generation_)
            detail::fail_check("zset: iterator or view used after the set was modified "
                               "(insert, erase and score updates invalidate them)");
    }
    const std::uint64_t* owner_generation_ = nullptr;  // the set's count (identifies the set)
    std::uint64_t generation_ = 0;
#else
    void check_valid() const noexcept {}
#endif
    const list_type* list_ = nullptr;       // the skiplist (nullptr in listpack mode)
    block_type block_{};                    // the block of node id_ (listpack: the set's block)
    const std::uint16_t* order_ = nullptr;  // block_'s order array
    size_type block_size_ = 0;              // block_'s size
    node_id id_ = 0;                        // 0: end()
    block_requests requests_ = block_requests::none;  // set_engine::block_requests_for()
    bool ahead_ = false;  // the walk has requested the next block's header
    size_type pos_ = 0;
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_SET_ITERATOR_HPP
