// zset::detail::allocator_holder — stores an allocator in no space when it is empty (the empty
// base optimization), so a sorted set's parts do not pay 8 bytes each for std::allocator.
// SPDX-License-Identifier: MIT
#ifndef ZSET_DETAIL_CONTAINER_ALLOCATOR_HOLDER_HPP
#define ZSET_DETAIL_CONTAINER_ALLOCATOR_HOLDER_HPP

#include <type_traits>
#include <utility>

namespace zset {
namespace detail {

template <class Allocator, bool Empty = std::is_empty_v<Allocator> && !std::is_final_v<Allocator>>
class allocator_holder : private Allocator {
public:
    explicit allocator_holder(const Allocator& a) noexcept : Allocator(a) {}
    const Allocator& held_allocator() const noexcept { return *this; }
    Allocator& held_allocator() noexcept { return *this; }
};

template <class Allocator>
class allocator_holder<Allocator, false> {
public:
    explicit allocator_holder(const Allocator& a) noexcept : alloc_(a) {}
    const Allocator& held_allocator() const noexcept { return alloc_; }
    Allocator& held_allocator() noexcept { return alloc_; }

private:
    Allocator alloc_;
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ALLOCATOR_HOLDER_HPP
