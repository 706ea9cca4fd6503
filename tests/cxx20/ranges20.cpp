// C++20: the range story of a sorted set, for string and integer members in both encodings.
// Views are std::ranges::view and borrowed ranges (algorithms on a view return usable
// iterators, never std::ranges::dangling), the standard adaptors compose over them, elements
// have the tuple protocol, and zset::views::members / scores project them.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <zset/ranges.hpp>

namespace {

int failures = 0;

void check(bool ok, const char* what, const char* where, int line) {
    if (ok) return;
    ++failures;
    std::printf("FAILED %s (%s, line %d)\n", what, where, line);
}
#define CHECK(where, ...) check((__VA_ARGS__), #__VA_ARGS__, where, __LINE__)

using string_set = zset::sorted_set<>;
using int_set = zset::sorted_set<std::int64_t, double>;

template <class Set>
constexpr bool range_concepts() {
    using forward = typename Set::rank_range;
    using reverse = typename Set::reverse_range;
    using it = typename Set::const_iterator;
    static_assert(std::bidirectional_iterator<it>);
    static_assert(std::sentinel_for<it, it>);
    static_assert(std::ranges::view<forward> && std::ranges::view<reverse>);
    static_assert(std::ranges::borrowed_range<forward> && std::ranges::borrowed_range<reverse>);
    static_assert(std::ranges::bidirectional_range<forward>);
    static_assert(std::ranges::bidirectional_range<reverse>);
    static_assert(std::ranges::sized_range<forward> && std::ranges::common_range<forward>);
    static_assert(std::same_as<std::ranges::range_value_t<forward>, typename Set::reference>);
    // the set owns its elements: a temporary set is not borrowed, so algorithms on it dangle
    static_assert(std::ranges::bidirectional_range<const Set&>);
    static_assert(!std::ranges::borrowed_range<Set>);
    static_assert(!std::ranges::view<Set>);
    // tuple protocol
    static_assert(std::tuple_size_v<typename Set::reference> == 2);
    static_assert(std::same_as<std::tuple_element_t<1, typename Set::reference>, double>);
    return true;
}
static_assert(range_concepts<string_set>());
static_assert(range_concepts<int_set>());

// std::ranges::find_if on a temporary view yields an iterator; on a temporary set, dangling.
using found_in_view = decltype(std::ranges::find_if(
    std::declval<string_set&>().range_by_rank(0, -1), [](const auto&) { return true; }));
static_assert(std::same_as<found_in_view, string_set::const_iterator>);
using found_in_temporary_set =
    decltype(std::ranges::find_if(string_set{}, [](const auto&) { return true; }));
static_assert(std::same_as<found_in_temporary_set, std::ranges::dangling>);

std::string name_of(int i) {
    // Same length: byte order is numeric order. Appended rather than `"m" + ...`: g++ 12 at -O3
    // reports a false -Wrestrict inside that operator+.
    std::string name = "m";
    name += std::to_string(1000 + i);
    return name;
}
std::int64_t key_of(int i) {
    return std::int64_t{1000} + i;
}

/// n members i = 0..n-1 with score i * 10 (so every fifth has a score divisible by 50).
template <class Set, class Key>
Set make_set(int n, Key key) {
    Set s;
    for (int i = 0; i < n; ++i) s.add(key(i), i * 10);
    return s;
}

template <class Set, class Key>
void exercise(const char* where, int n, Key key) {
    const Set s = make_set<Set>(n, key);
    CHECK(where, s.encoding() == (n > 128 ? zset::encoding::skiplist : zset::encoding::listpack));

    // find_if on a temporary view: the iterator stays usable after the view is gone
    const auto it =
        std::ranges::find_if(s.range_by_rank(0, -1), [](const auto& e) { return e.score >= 95; });
    CHECK(where, it != s.end() && (*it).member == key(10) && it->score == 100);
    const auto [member, score] = *it;  // structured bindings through the tuple protocol
    CHECK(where, member == key(10) && score == 100);
    CHECK(where, get<0>(*it) == key(10) && get<1>(*it) == 100);

    // algorithms with projections on the element's fields
    CHECK(where, std::ranges::count_if(
                     s, [](double x) { return x >= 100; }, &Set::reference::score) == n - 10);
    const auto at =
        std::ranges::lower_bound(s.range_by_rank(0, -1), 145.0, {}, &Set::reference::score);
    CHECK(where, at != s.end() && at->member == key(15));
    CHECK(where, std::ranges::distance(s.range_by_score({0, 90}, {2, 3})) == 3);
    CHECK(where, std::ranges::size(s.rev_range_by_score({0, 90})) == 10);
    std::vector<typename Set::reference> last5;
    std::ranges::reverse_copy(s.range_by_rank(-5, -1), std::back_inserter(last5));
    CHECK(where, std::ranges::equal(s.rev_range_by_rank(0, 4), last5));
}

#if ZSET_TEST_RANGE_ADAPTORS
template <class Set, class Key>
void exercise_adaptors(const char* where, int n, Key key) {
    const Set s = make_set<Set>(n, key);
    // filter | transform | take over a score range
    std::vector<double> halves;
    for (double h : s.range_by_score({0, 1000}) |
                        std::views::filter([](const auto& e) { return int(e.score) % 50 == 0; }) |
                        std::views::transform([](const auto& e) { return e.score / 2; }) |
                        std::views::take(3))
        halves.push_back(h);
    CHECK(where, halves == std::vector<double>{0, 25, 50});

    // reverse of a forward view is the reverse view
    const auto last5 = s.range_by_rank(-5, -1) | std::views::reverse | zset::views::members;
    const auto top5 = s.rev_range_by_rank(0, 4) | zset::views::members;
    CHECK(where, std::ranges::equal(last5, top5));
    CHECK(where, *std::ranges::begin(top5) == key(n - 1));
    CHECK(where, std::ranges::equal(s.rev_range_by_rank(0, -1) | std::views::reverse, s));

    // members / scores adaptors
    std::vector<decltype(key(0))> expected;
    for (int i = 3; i < 8; ++i) expected.push_back(key(i));
    CHECK(where, std::ranges::equal(s.range_by_rank(3, 7) | zset::views::members, expected));
    double total = 0;
    for (double x : s.range_by_score({0, 40}) | zset::views::scores) total += x;
    CHECK(where, total == 100);
    CHECK(where, std::ranges::max(s | zset::views::scores) == (n - 1) * 10);
}
#endif

}  // namespace

int main() {
    exercise<string_set>("string members, listpack", 20, name_of);
    exercise<string_set>("string members, skiplist", 300, name_of);
    exercise<int_set>("integer members, listpack", 20, key_of);
    exercise<int_set>("integer members, skiplist", 300, key_of);
#if ZSET_TEST_RANGE_ADAPTORS
    exercise_adaptors<string_set>("string members, listpack", 20, name_of);
    exercise_adaptors<string_set>("string members, skiplist", 300, name_of);
    exercise_adaptors<int_set>("integer members, listpack", 20, key_of);
    exercise_adaptors<int_set>("integer members, skiplist", 300, key_of);
#else
    std::printf("C++20 ranges: adaptors not tested (this compiler cannot build libstdc++'s)\n");
#endif
    std::printf("C++20 ranges: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
