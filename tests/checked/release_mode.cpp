// Release mode (ZSET_DEBUG=0): iterators, views and the set carry no checked-mode fields
// (compared at compile time with the sizes layout_probe.cpp measured with ZSET_DEBUG=1), and a
// normal program runs, including the erase-while-iterating pattern done right.
#if ZSET_DEBUG
#error "built with ZSET_DEBUG=0 (tests/checked/CMakeLists.txt)"
#endif

#include <cstdint>
#include <cstdio>
#include <string>

#include "checked_layout.hpp"
#include <zset/zset.hpp>

namespace {
using set = zset::sorted_set<>;
using int_set = zset::sorted_set<std::int64_t, std::int64_t>;

static_assert(sizeof(set::const_iterator) < ZSET_CHECKED_ITERATOR_SIZE,
              "release iterators must not carry the checked-mode fields");
static_assert(sizeof(set::const_reverse_iterator) < ZSET_CHECKED_REVERSE_ITERATOR_SIZE);
static_assert(sizeof(int_set::const_iterator) < ZSET_CHECKED_INT_ITERATOR_SIZE);
static_assert(sizeof(set) < ZSET_CHECKED_SET_SIZE, "release sets must not count modifications");
}  // namespace

int main() {
    set s;
    for (int i = 0; i < 300; ++i) s.add("m" + std::to_string(i), i);
    for (auto it = s.begin(); it != s.end();) it = it->score < 100 ? s.erase(it) : std::next(it);
    std::size_t seen = 0;
    for (auto e : s.rev_range_by_score({150, 249})) seen += e.member.empty() ? 0 : 1;
    const auto popped = s.pop_min(10);
    const bool ok = s.size() == 190 && seen == 100 && popped.size() == 10 &&
                    popped.front().first == "m100" && s.validate();
    std::printf("release mode: iterator %zu bytes (checked %d), set %zu bytes (checked %d): %s\n",
                sizeof(set::const_iterator), ZSET_CHECKED_ITERATOR_SIZE, sizeof(set),
                ZSET_CHECKED_SET_SIZE, ok ? "ok" : "WRONG RESULT");
    return ok ? 0 : 1;
}
