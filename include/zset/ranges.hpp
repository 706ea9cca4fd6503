// zset/ranges.hpp — C++20 range adaptors over a sorted set's views.
// SPDX-License-Identifier: MIT
//
//   for (std::string_view m : s.range_by_rank(0, 9) | zset::views::members) ...
//   double total = 0; for (double x : s.range_by_score({0, 100}) | zset::views::scores) total += x;
//
// Every view of a sorted set (range_by_rank, range_by_score, ...) is a std::ranges::view and a
// borrowed range, so the standard algorithms and adaptors apply to it directly. std::views::keys
// / values do not: they call std::get, which the standard lets only std::pair, std::tuple and
// std::array provide, and an element is {member, score} by name. These two adaptors are the
// equivalent. Separate from <zset/zset.hpp> because <ranges> is costly to compile.
#ifndef ZSET_RANGES_HPP
#define ZSET_RANGES_HPP

#if __cplusplus < 202002L && (!defined(_MSVC_LANG) || _MSVC_LANG < 202002L)
#error "<zset/ranges.hpp> needs C++20"
#endif

#include <ranges>

#include "sorted_set.hpp"

namespace zset::views {

/// The members of a range of elements (std::string_view for std::string members).
inline constexpr auto members = std::views::transform([](const auto& e) { return e.member; });
/// The scores of a range of elements.
inline constexpr auto scores = std::views::transform([](const auto& e) { return e.score; });

}  // namespace zset::views

#endif  // ZSET_RANGES_HPP
