// zset::detail::function_holder — a sorted set's hash, equality and order function objects,
// held as a base class so that empty ones (the defaults) take no space: as a member, their
// empty tuple would take a padded word of the set object (32 bytes; 24 with it as a base).
// SPDX-License-Identifier: MIT
#ifndef ZSET_DETAIL_CONTAINER_FUNCTION_HOLDER_HPP
#define ZSET_DETAIL_CONTAINER_FUNCTION_HOLDER_HPP

#include <tuple>

namespace zset {
namespace detail {

template <class Hash, class KeyEqual, class Compare>
class function_holder : private std::tuple<Hash, KeyEqual, Compare> {
public:
    using functions_type = std::tuple<Hash, KeyEqual, Compare>;

    function_holder() = default;
    function_holder(const Hash& hash, const KeyEqual& equal, const Compare& compare)
        : functions_type(hash, equal, compare) {}

    const Hash& held_hash() const noexcept { return std::get<0>(held_functions()); }
    const KeyEqual& held_equal() const noexcept { return std::get<1>(held_functions()); }
    const Compare& held_compare() const noexcept { return std::get<2>(held_functions()); }
    const functions_type& held_functions() const noexcept { return *this; }
    functions_type& held_functions() noexcept { return *this; }
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_FUNCTION_HOLDER_HPP
