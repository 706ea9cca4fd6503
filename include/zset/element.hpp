// zset::element and zset::range_view: what a sorted set's iterators yield and what its range
// functions return.
// SPDX-License-Identifier: MIT
//
// An element is a view of one (member, score) pair, handed out by value: for std::string members
// `member` is a std::string_view into the set, invalidated by any modification of the set. It
// supports structured bindings (`auto [member, score] = *it;`) through the tuple protocol. A
// range_view is a lazy pair of iterators with its size known up front; in C++20 it is a
// std::ranges::view and a borrowed range.
#ifndef ZSET_ELEMENT_HPP
#define ZSET_ELEMENT_HPP

#include <cstddef>
#include <iterator>  // with <string_view>, declares the C++20 ranges traits specialized below
#include <string_view>
#if __has_include(<version>)
#include <version>
#endif
#include <tuple>
#include <type_traits>
#include <utility>

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

/// Tuple protocol: `auto [member, score] = *it;` and generic code using get<0> / get<1>.
template <std::size_t I, class MemberView, class Score>
constexpr auto& get(element<MemberView, Score>& e) noexcept {
    static_assert(I < 2, "zset::element has two parts: member and score");
    if constexpr (I == 0)
        return e.member;
    else
        return e.score;
}
template <std::size_t I, class MemberView, class Score>
constexpr const auto& get(const element<MemberView, Score>& e) noexcept {
    return get<I>(const_cast<element<MemberView, Score>&>(e));
}
template <std::size_t I, class MemberView, class Score>
constexpr auto&& get(element<MemberView, Score>&& e) noexcept {
    return std::move(get<I>(e));
}

/// A lazy range of elements: begin()/end() iterators, its size known up front. Creating one
/// allocates nothing; it is invalidated like an iterator. In C++20 it is a
/// std::ranges::view and a borrowed range (its iterators point into the set, not the view).
template <class Iterator>
class range_view {
public:
    using iterator = Iterator;
    range_view() = default;
    range_view(Iterator first, Iterator last, std::size_t n) : first_(first), last_(last), n_(n) {}
    [[nodiscard]] Iterator begin() const { return first_; }
    [[nodiscard]] Iterator end() const { return last_; }
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    [[nodiscard]] bool empty() const noexcept { return n_ == 0; }

private:
    Iterator first_{}, last_{};
    std::size_t n_ = 0;
};

}  // namespace zset

template <class MemberView, class Score>
struct std::tuple_size<zset::element<MemberView, Score>> : std::integral_constant<std::size_t, 2> {
};
template <class MemberView, class Score>
struct std::tuple_element<0, zset::element<MemberView, Score>> {
    using type = MemberView;
};
template <class MemberView, class Score>
struct std::tuple_element<1, zset::element<MemberView, Score>> {
    using type = Score;
};

#if defined(__cpp_lib_ranges)
template <class Iterator>
inline constexpr bool std::ranges::enable_borrowed_range<zset::range_view<Iterator>> = true;
template <class Iterator>
inline constexpr bool std::ranges::enable_view<zset::range_view<Iterator>> = true;
#endif

#endif  // ZSET_ELEMENT_HPP
