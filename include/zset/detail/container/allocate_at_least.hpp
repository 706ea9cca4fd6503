// zset::detail::allocate_at_least — asks an allocator for n objects and learns how many it gave.
// SPDX-License-Identifier: MIT
//
// An allocator that rounds requests up to size classes (jemalloc, Redis's allocator, rounds a
// 1,700-byte request to 1,792) hands out bytes nobody asked for. An allocator with a member
// `allocate_at_least(n)` returning `{ptr, count}` (the shape of C++23's
// std::allocator_traits::allocate_at_least) says how many objects it really gave, and a block
// takes them all as room to grow: it is then copied only when its size class is full. Other
// allocators give exactly n.
#ifndef ZSET_DETAIL_CONTAINER_ALLOCATE_AT_LEAST_HPP
#define ZSET_DETAIL_CONTAINER_ALLOCATE_AT_LEAST_HPP

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace zset {
namespace detail {

/// What allocate_at_least() gave: the memory and how many objects fit in it (at least n).
template <class Pointer>
struct allocation_result {
    Pointer ptr;
    std::size_t count;
};

template <class Alloc, class = void>
struct has_allocate_at_least : std::false_type {};
template <class Alloc>
struct has_allocate_at_least<
    Alloc, std::void_t<decltype(std::declval<Alloc&>().allocate_at_least(std::size_t{1}).ptr),
                       decltype(std::declval<Alloc&>().allocate_at_least(std::size_t{1}).count)>>
    : std::true_type {};

/// Allocates room for at least n objects through `alloc`. The memory is returned with
/// deallocate(alloc, ptr, count), count as reported. Throws what the allocator throws.
template <class Alloc>
allocation_result<typename std::allocator_traits<Alloc>::pointer> allocate_at_least(Alloc& alloc,
                                                                                    std::size_t n) {
    if constexpr (has_allocate_at_least<Alloc>::value) {
        auto got = alloc.allocate_at_least(n);
        return {got.ptr, static_cast<std::size_t>(got.count)};
    } else {
        return {std::allocator_traits<Alloc>::allocate(alloc, n), n};
    }
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ALLOCATE_AT_LEAST_HPP
