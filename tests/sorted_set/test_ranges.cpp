// Ranges (docs/sorted_set/ranges.md): ZRANGE by rank / score / lex, their REV forms and LIMIT,
// against Redis's rules and brute force, over many blocks in both directions. ZCOUNT and
// ZLEXCOUNT (count, lex_count) are in test_lookup.cpp.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {
using bound = zset::score_bound<double>;
using lex = zset::lex_bound<std::string_view>;

template <class Range>
std::vector<std::string> members(const Range& r) {
    std::vector<std::string> out;
    for (const auto& e : r) out.emplace_back(e.member);
    return out;
}
using names = std::vector<std::string>;

zset::sorted_set<> abcde() {
    return {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}};
}
}  // namespace

TEST_CASE("rank ranges follow Redis's index rules", "[ranges]") {
    const auto s = abcde();
    REQUIRE(members(s.range_by_rank(0, -1)) == names{"a", "b", "c", "d", "e"});
    REQUIRE(members(s.range_by_rank(1, 2)) == names{"b", "c"});
    REQUIRE(members(s.range_by_rank(-2, -1)) == names{"d", "e"});
    REQUIRE(members(s.range_by_rank(-100, 1)) == names{"a", "b"});  // start clamps to 0
    REQUIRE(members(s.range_by_rank(3, 100)) == names{"d", "e"});   // stop clips
    REQUIRE(s.range_by_rank(3, 2).empty());                         // start > stop
    REQUIRE(s.range_by_rank(5, 10).empty());                        // start >= size
    REQUIRE(s.range_by_rank(-100, -50).empty());
    REQUIRE(members(s.rev_range_by_rank(0, 1)) == names{"e", "d"});
    REQUIRE(members(s.rev_range_by_rank(-1, -1)) == names{"a"});
    REQUIRE(s.range_by_rank(1, 3).size() == 3);
    const auto huge = std::numeric_limits<long long>::max();
    REQUIRE(members(s.range_by_rank(4, huge)) == names{"e"});
    REQUIRE(s.range_by_rank(std::numeric_limits<long long>::min(), -6).empty());
}

TEST_CASE("score ranges: inclusive, exclusive, infinite ends", "[ranges]") {
    const auto s = abcde();
    REQUIRE(members(s.range_by_score({bound::inclusive(2), bound::inclusive(4)})) ==
            names{"b", "c", "d"});
    REQUIRE(members(s.range_by_score({bound::exclusive_of(2), bound::inclusive(4)})) ==
            names{"c", "d"});
    REQUIRE(members(s.range_by_score({bound::inclusive(2), bound::exclusive_of(4)})) ==
            names{"b", "c"});
    REQUIRE(members(s.range_by_score({bound::lowest(), bound::inclusive(1)})) == names{"a"});
    REQUIRE(members(s.range_by_score({bound::exclusive_of(4), bound::highest()})) == names{"e"});
    REQUIRE(s.range_by_score({bound::inclusive(3), bound::exclusive_of(3)}).empty());
    REQUIRE(s.range_by_score({bound::inclusive(4), bound::inclusive(2)}).empty());  // min > max
    REQUIRE(s.count({bound::inclusive(2), bound::inclusive(4)}) == 3);
    REQUIRE(s.count(zset::score_range<double>::all()) == 5);
    REQUIRE(s.count({bound::exclusive_of(5), bound::highest()}) == 0);
}

TEST_CASE("LIMIT offset count", "[ranges]") {
    const auto s = abcde();
    const auto all = zset::score_range<double>::all();
    REQUIRE(members(s.range_by_score(all, {1, 2})) == names{"b", "c"});
    REQUIRE(members(s.range_by_score(all, {3, -1})) == names{"d", "e"});  // negative count: all
    REQUIRE(s.range_by_score(all, {-1, 2}).empty());                      // negative offset: none
    REQUIRE(s.range_by_score(all, {10, 2}).empty());
    REQUIRE(s.range_by_score(all, {0, 0}).empty());
    // REV: the offset counts from the top
    REQUIRE(members(s.rev_range_by_score(all, {1, 2})) == names{"d", "c"});
    REQUIRE(members(s.rev_range_by_score({bound::inclusive(2), bound::inclusive(4)}, {0, 10})) ==
            names{"d", "c", "b"});
}

TEST_CASE("lex ranges over equal scores", "[ranges]") {
    zset::sorted_set<> s;
    for (const char* m : {"a", "b", "c", "d", "e", "f", "g"}) s.add(m, 0);
    REQUIRE(members(s.range_by_lex({lex::minus_infinity(), lex::inclusive("c")})) ==
            names{"a", "b", "c"});
    REQUIRE(members(s.range_by_lex({lex::minus_infinity(), lex::exclusive("c")})) ==
            names{"a", "b"});
    REQUIRE(members(s.range_by_lex({lex::exclusive("aaa"), lex::exclusive("g")})) ==
            names{"b", "c", "d", "e", "f"});
    REQUIRE(members(s.range_by_lex({lex::inclusive("f"), lex::plus_infinity()})) ==
            names{"f", "g"});
    REQUIRE(s.range_by_lex({lex::plus_infinity(), lex::minus_infinity()}).empty());
    REQUIRE(s.range_by_lex({lex::plus_infinity(), lex::plus_infinity()}).empty());
    REQUIRE(s.lex_count({lex::minus_infinity(), lex::plus_infinity()}) == 7);
    REQUIRE(s.lex_count({lex::inclusive("b"), lex::inclusive("b")}) == 1);
    REQUIRE(s.lex_count({lex::exclusive("b"), lex::inclusive("b")}) == 0);
    REQUIRE(members(s.rev_range_by_lex({lex::inclusive("b"), lex::inclusive("e")}, {1, 2})) ==
            names{"d", "c"});
    REQUIRE(members(s.range_by_lex({lex::minus_infinity(), lex::plus_infinity()}, {5, 10})) ==
            names{"f", "g"});
}

TEST_CASE("ranges span many blocks in skiplist mode", "[ranges]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 5000; ++i) s.add("m" + std::to_string(i), i);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    const auto r = s.range_by_score({bound::inclusive(1000), bound::inclusive(3999)});
    REQUIRE(r.size() == 3000);
    double expect = 1000;
    for (const auto& e : r) REQUIRE(e.score == expect++);
    REQUIRE(expect == 4000);
    const auto rr = s.rev_range_by_rank(0, 9);
    expect = 4999;
    for (const auto& e : rr) REQUIRE(e.score == expect--);
    REQUIRE(s.count({bound::exclusive_of(10), bound::exclusive_of(20)}) == 9);
}

// range_by_score builds its iterators from the search that found the range's start, and reaches
// the end by hopping blocks when the range is short (up to 512 elements) or by a rank descent:
// every start position in a block (first, middle, last, one past the last), both ways to the end,
// with and without an offset (which takes the descents), repeated scores, against a brute-force
// sorted copy.
TEST_CASE("score ranges with LIMIT match brute force across block boundaries", "[ranges]") {
    zset::sorted_set<> s;
    std::vector<std::pair<double, std::string>> sorted;
    for (int i = 0; i < 4000; ++i) {
        const double score = (i * 7919) % 1500;  // ~2.7 elements per score
        s.add("m" + std::to_string(i), score);
        sorted.emplace_back(score, "m" + std::to_string(i));
    }
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    const long long counts[] = {-1, 0, 1, 2, 63, 64, 65, 127, 128, 129, 511, 512, 513, 2000};
    for (double lo = -1; lo <= 1501; lo += 37) {
        for (const bool exclusive : {false, true}) {
            const auto first = std::find_if(sorted.begin(), sorted.end(), [&](const auto& e) {
                return exclusive ? e.first > lo : e.first >= lo;
            });
            for (const long long offset : {0LL, 3LL, 130LL, 500LL, 600LL}) {
                for (const long long count : counts) {
                    const auto min = exclusive ? bound::exclusive_of(lo) : bound::inclusive(lo);
                    const auto got = members(
                        s.range_by_score({min, bound::highest()}, zset::limit{offset, count}));
                    const auto left =
                        std::max(0LL, static_cast<long long>(sorted.end() - first) - offset);
                    const auto take = count < 0 ? left : std::min(count, left);
                    names expected;
                    for (auto it = first + static_cast<std::ptrdiff_t>(left > 0 ? offset : 0);
                         expected.size() < static_cast<std::size_t>(take); ++it)
                        expected.push_back(it->second);
                    INFO("lo " << lo << (exclusive ? " exclusive" : "") << " offset " << offset
                               << " count " << count);
                    REQUIRE(got == expected);
                }
            }
        }
    }
}

// Past ~256 blocks, walks request each block's records as they enter it (walks_cold in
// sorted_set.hpp) and short rank ranges find their end by hopping blocks: checked here in both
// directions against the sorted elements.
TEST_CASE("walks and rank ranges over a set of many blocks match brute force", "[ranges]") {
    zset::sorted_set<> s;
    std::vector<std::pair<double, std::string>> sorted;
    for (int i = 0; i < 60000; ++i) {
        const double score = (i * 7919) % 20011;
        s.add("m" + std::to_string(i), score);
        sorted.emplace_back(score, "m" + std::to_string(i));
    }
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(s.encoding() == zset::encoding::skiplist);  // blocks of <= 128: 469 or more
    names all;
    for (const auto& e : sorted) all.push_back(e.second);
    REQUIRE(members(s) == all);
    names backwards;
    for (auto it = s.rbegin(); it != s.rend(); ++it) backwards.emplace_back((*it).member);
    REQUIRE(names(all.rbegin(), all.rend()) == backwards);
    // starts near the top too: pages ending within 512 of the highest are reached by hopping
    // blocks back from the end
    std::vector<long long> starts{1, 60, 127, 128, 129, 300, 505, 511, 512};
    for (long long start = 0; start < 60000; start += 4999) starts.push_back(start);
    for (const long long start : starts) {
        for (const long long length : {1LL, 100LL, 129LL, 512LL, 513LL, 3000LL}) {
            INFO("start " << start << " length " << length);
            const auto stop = std::min(start + length, 60000LL);
            REQUIRE(members(s.range_by_rank(start, stop - 1)) ==
                    names(all.begin() + static_cast<std::ptrdiff_t>(start),
                          all.begin() + static_cast<std::ptrdiff_t>(stop)));
            REQUIRE(members(s.rev_range_by_rank(start, stop - 1)) ==
                    names(all.rbegin() + static_cast<std::ptrdiff_t>(start),
                          all.rbegin() + static_cast<std::ptrdiff_t>(stop)));
        }
    }
}

// Walks over a set of more than 8,192 blocks (sorted_set::far_blocks) request each block one
// block ahead of the walk (its records on entering the one before, its header two before):
// every walk must still read exactly the elements in order, to the last block and back to the
// first. 200,000 members of 250 bytes in random score order fill ~21 a block (9,648 blocks,
// counted once through the set's internals). Tagged [far]: too large for the valgrind leg.
TEST_CASE("walks over more than 8192 blocks match brute force", "[ranges][far]") {
    constexpr int n = 200000;
    const auto name = [](int i) {
        std::string m = "m" + std::to_string(i);
        m.resize(250, 'x');
        return m;
    };
    const auto score_of = [](int i) { return static_cast<double>((i * 7919LL) % 200003); };
    zset::sorted_set<> s;
    for (int i = 0; i < n; ++i) s.add(name(i), score_of(i));
    std::vector<int> order(n);  // member indices by score (the scores are distinct)
    for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return score_of(a) < score_of(b); });
    const auto at = [&](std::size_t rank) { return name(order[rank]); };
    std::size_t rank = 0, wrong = 0;
    for (const auto& e : s) wrong += e.member == at(rank++) ? 0 : 1;
    REQUIRE(rank == order.size());
    for (auto it = s.rbegin(); it != s.rend(); ++it) wrong += (*it).member == at(--rank) ? 0 : 1;
    REQUIRE(rank == 0);
    REQUIRE(wrong == 0);
    // long rank ranges from the middle, both ways
    for (const long long start : {0LL, 99999LL, 150001LL}) {
        const long long stop = start + 40000;
        std::size_t k = static_cast<std::size_t>(start);
        for (const auto& e : s.range_by_rank(start, stop)) wrong += e.member == at(k++) ? 0 : 1;
        REQUIRE(k == static_cast<std::size_t>(stop) + 1);
        k = static_cast<std::size_t>(start);
        for (const auto& e : s.rev_range_by_rank(start, stop))
            wrong += e.member == at(order.size() - 1 - k++) ? 0 : 1;
        REQUIRE(k == static_cast<std::size_t>(stop) + 1);
    }
    REQUIRE(wrong == 0);
    // an iterator stepped 120,000 forward, then 90,000 back
    auto it = s.begin();
    for (int i = 0; i < 120000; ++i) ++it;
    REQUIRE((*it).member == at(120000));
    for (int i = 0; i < 90000; ++i) --it;
    REQUIRE((*it).member == at(30000));
}

// A range's end is searched forward from its start when the range is walked (range_by_score,
// range_by_lex): in the start's block, up to 8 blocks on, else by a descent; an end before the
// start (an empty range) takes the descent. Every distance, both kinds of end, against brute
// force; the unbounded ends (-inf, +inf) take no search at all.
namespace {
/// n members "m10000", "m10001", ... scored (i * 7919) % 1500 (~2.7 members a score at
/// n = 4000) in `s`, all scored 0 in `lexset`; `sorted` is the (score, member) order and
/// `by_name` the lex order.
struct range_sets {
    zset::sorted_set<> s, lexset;
    std::vector<std::pair<double, std::string>> sorted;
    names by_name;
    explicit range_sets(int n) {
        for (int i = 0; i < n; ++i) {
            const double score = (i * 7919) % 1500;
            const std::string m = "m" + std::to_string(10000 + i);
            s.add(m, score);
            lexset.add(m, 0);
            sorted.emplace_back(score, m);
            by_name.push_back(m);
        }
        std::sort(sorted.begin(), sorted.end());
    }
};
/// Lex range lengths that end in the start's block, a few blocks on, and far beyond.
constexpr std::size_t lex_spans[] = {0, 1, 9, 130, 700, 1500};
}  // namespace

TEST_CASE("score and lex ranges with a finite end match brute force", "[ranges]") {
    const range_sets sets(4000);
    const auto& [s, lexset, sorted, by_name] = sets;
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    const auto in_range = [](double v, const zset::score_range<double>& r) {
        return (r.min.exclusive ? v > r.min.value : v >= r.min.value) &&
               (r.max.exclusive ? v < r.max.value : v <= r.max.value);
    };
    const double widths[] = {-3, 0, 1, 4, 40, 150, 300, 700, 1600};
    for (double lo = -1; lo <= 1501; lo += 53) {
        for (const double width : widths) {
            for (const int ends : {0, 1, 2, 3}) {
                const bool lo_open = (ends & 1) != 0, hi_open = (ends & 2) != 0;
                const zset::score_range<double> r{
                    lo_open ? bound::exclusive_of(lo) : bound::inclusive(lo),
                    hi_open ? bound::exclusive_of(lo + width) : bound::inclusive(lo + width)};
                names expected;
                for (const auto& e : sorted)
                    if (in_range(e.first, r)) expected.push_back(e.second);
                INFO("lo " << lo << " width " << width << " ends " << ends);
                REQUIRE(members(s.range_by_score(r)) == expected);
                REQUIRE(s.count(r) == expected.size());
                const auto limited = members(s.range_by_score(r, zset::limit{2, 5}));
                const auto skip = std::min<std::size_t>(2, expected.size());
                REQUIRE(limited == names(expected.begin() + static_cast<std::ptrdiff_t>(skip),
                                         expected.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                skip + 5, expected.size()))));
            }
        }
    }
    for (std::size_t from = 0; from < by_name.size(); from += 211) {
        for (const std::size_t span : lex_spans) {
            const std::size_t to = std::min(from + span, by_name.size() - 1);
            const zset::lex_range<std::string_view> r{lex::inclusive(by_name[from]),
                                                      lex::exclusive(by_name[to])};
            INFO("from " << from << " span " << span);
            REQUIRE(members(lexset.range_by_lex(r)) ==
                    names(by_name.begin() + static_cast<std::ptrdiff_t>(from),
                          by_name.begin() + static_cast<std::ptrdiff_t>(std::max(from, to))));
            // an end before the start: empty
            REQUIRE(
                lexset.range_by_lex({lex::inclusive(by_name[to]), lex::exclusive(by_name[from])})
                    .size() == 0);
        }
    }
}

namespace {
/// Redis's LIMIT over an already ordered result: a negative offset gives nothing, a negative
/// count everything after the offset.
names apply_limit(const names& all, long long offset, long long count) {
    if (offset < 0 || static_cast<std::size_t>(offset) >= all.size()) return {};
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(offset);
    const auto left = static_cast<long long>(all.end() - first);
    return names(first, count < 0 || count >= left ? all.end()
                                                   : first + static_cast<std::ptrdiff_t>(count));
}
}  // namespace

TEST_CASE("reverse score and lex ranges with LIMIT match brute force", "[ranges]") {
    // Pages near the top of a range are reached by hopping blocks back from its end; longer
    // ones by rank. Every kind of end, offsets crossing blocks, and both encodings.
    const std::pair<long long, long long> limits[] = {
        {0, -1},    {0, 1},   {0, 10},  {3, 10}, {90, 40},  {0, 600}, {450, 100},
        {100, 300}, {0, 512}, {700, 5}, {-1, 5}, {5000, 1}, {2, 0}};
    for (const int n : {60, 4000}) {
        const range_sets sets(n);
        const auto& [s, lexset, sorted, by_name] = sets;
        REQUIRE(s.encoding() == (n > 128 ? zset::encoding::skiplist : zset::encoding::listpack));
        const double his[] = {-std::numeric_limits<double>::infinity(), 0, 7, 700, 1499, 1500,
                              std::numeric_limits<double>::infinity()};
        for (const double lo : {-std::numeric_limits<double>::infinity(), 0.0, 300.0, 1490.0}) {
            for (const double hi : his) {
                for (const bool open : {false, true}) {
                    const zset::score_range<double> r{
                        open ? bound::exclusive_of(lo) : bound::inclusive(lo),
                        open ? bound::exclusive_of(hi) : bound::inclusive(hi)};
                    names descending;
                    for (auto e = sorted.rbegin(); e != sorted.rend(); ++e)
                        if ((open ? e->first > lo : e->first >= lo) &&
                            (open ? e->first < hi : e->first <= hi))
                            descending.push_back(e->second);
                    for (const auto& [offset, count] : limits) {
                        INFO("n " << n << " lo " << lo << " hi " << hi << " open " << open
                                  << " limit " << offset << " " << count);
                        const auto got = s.rev_range_by_score(r, zset::limit{offset, count});
                        const names want = apply_limit(descending, offset, count);
                        REQUIRE(members(got) == want);
                        REQUIRE(got.size() == want.size());
                    }
                }
            }
        }
        for (std::size_t from = 0; from < by_name.size(); from += 37) {
            for (const std::size_t span : lex_spans) {
                const std::size_t to = std::min(from + span, by_name.size() - 1);
                const zset::lex_range<std::string_view> r{lex::inclusive(by_name[from]),
                                                          lex::inclusive(by_name[to])};
                const names descending(by_name.rbegin() +
                                           static_cast<std::ptrdiff_t>(by_name.size() - 1 - to),
                                       by_name.rend() - static_cast<std::ptrdiff_t>(from));
                for (const auto& [offset, count] : limits) {
                    INFO("n " << n << " from " << from << " span " << span << " limit " << offset
                              << " " << count);
                    REQUIRE(members(lexset.rev_range_by_lex(r, zset::limit{offset, count})) ==
                            apply_limit(descending, offset, count));
                }
            }
        }
    }
}
