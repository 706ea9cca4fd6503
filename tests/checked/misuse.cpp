// Checked mode (ZSET_DEBUG=1): each case misuses an iterator or view of a set in one way, and
// the test passes only when the program aborts with zset's message (ctest matches it). A case
// that gets past its misuse prints "misuse not detected" and exits with 1.
//
//   zset_checked_misuse <case>        (see `cases` below; "valid_patterns" must run cleanly)
#if !ZSET_DEBUG
#error "built with ZSET_DEBUG=1 (tests/checked/CMakeLists.txt)"
#endif

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include <zset/zset.hpp>

namespace {

using set = zset::sorted_set<>;

/// A set of n members "m<i>" with score i: listpack mode up to 128, skiplist mode beyond.
set make_set(int n) {
    set s;
    for (int i = 0; i < n; ++i) s.add("m" + std::to_string(i), i);
    return s;
}

int not_detected(const char* what) {
    std::printf("misuse not detected: %s\n", what);
    return 1;
}

int erase_in_range_for(int n) {
    set s = make_set(n);
    for (auto e : s.range_by_rank(0, -1)) s.erase(e.member);  // skips every other element
    return not_detected("erase inside a range-for over a view");
}

int iterator_after_add() {
    set s = make_set(10);
    const auto it = s.begin();
    s.add("new", 4.5);
    return (*it).score == 0 ? not_detected("iterator after add") : 1;
}

int iterator_after_batch_add() {
    set s = make_set(200);
    const auto view = s.range_by_score({10, 20});
    s.add({{"x", 1.5}, {"y", 2.5}});
    for (auto e : view) (void)e;
    return not_detected("view after a batch add");
}

int iterator_after_erase() {
    set s = make_set(200);
    auto it = s.find("m5");
    s.erase("m7");
    ++it;
    return not_detected("iterator after erase(member)");
}

int iterator_after_clear() {
    set s = make_set(10);
    const auto it = s.begin();
    s.clear();
    return it->score == 0 ? not_detected("iterator after clear") : 1;
}

int iterator_after_increment() {
    set s = make_set(10);
    const auto it = s.nth(3);
    (void)s.increment("m3", 100);
    return (*it).score >= 0 ? not_detected("iterator after increment") : 1;
}

int reverse_view_after_pop() {
    set s = make_set(300);
    const auto top = s.rev_range_by_rank(0, 4);
    (void)s.pop_max();
    for (auto e : top) (void)e;
    return not_detected("reverse view after pop_max");
}

int view_after_erase_range() {
    set s = make_set(300);
    const auto view = s.range_by_rank(0, 9);
    (void)s.erase_range_by_score({100, 200});
    for (auto e : view) (void)e;
    return not_detected("view after erase_range_by_score");
}

int iterator_after_shrink_to_fit() {
    set s = make_set(200);
    s.erase_range_by_rank(0, 149);
    const auto it = s.begin();
    s.shrink_to_fit();  // back to listpack mode: the blocks it pointed into are gone
    return (*it).score >= 0 ? not_detected("iterator after shrink_to_fit") : 1;
}

// erase(iterator) is a modification: iterators taken before it are stale.
int iterator_after_erase_iterator() {
    set s = make_set(200);
    const auto later = s.nth(5);
    s.erase(s.begin());
    return (*later).score >= 0 ? not_detected("iterator after erase(iterator)") : 1;
}

// erase(iterator) with a stale iterator: caught (by the std::next(pos) it computes).
int erase_with_stale_iterator() {
    set s = make_set(200);
    const auto stale = s.find("m5");
    s.erase("m0");
    s.erase(stale);
    return not_detected("erase(iterator) with a stale iterator");
}

// erase(first, last) checks the iterators it is given: stale ones would erase whatever now
// has their ranks.
int erase_range_with_stale_iterators() {
    set s = make_set(200);
    const auto view = s.range_by_rank(5, 9);  // m5 .. m9
    s.erase("m0");
    s.erase(view.begin(), view.end());  // erases m6 .. m10
    return not_detected("erase(first, last) with stale iterators");
}

// erase(iterator) checks that the iterator belongs to this set: another set's iterator would
// erase this set's element of the same rank (in skiplist mode its node id indexes this pool).
int erase_iterator_of_another_set() {
    set a = make_set(10);
    const set b = make_set(10);
    a.erase(b.begin());  // erases a's m0
    return not_detected("erase(iterator) with another set's iterator");
}

// The patterns that are fine must not trip the checks: erase through the returned iterator,
// lookups while iterating, a fresh view after a change, comparing iterators.
int valid_patterns() {
    set s = make_set(300);
    for (auto it = s.begin(); it != s.end();) {
        const bool even = static_cast<int>(it->score) % 2 == 0;
        if (s.contains(it->member) && s.rank(it->member) && even && it->score < 50)
            it = s.erase(it);
        else
            ++it;
    }
    std::size_t seen = 0;
    for (auto e : s.range_by_score({0, 49})) seen += s.score(e.member) ? 1 : 0;
    s.add("late", 1000);
    for (auto e : s.rev_range_by_rank(0, 2)) seen += e.member.empty() ? 0 : 1;
    const auto v = s.range_by_rank(0, -1);
    s.erase(v.begin(), std::next(v.begin(), 10));
    if (seen != 28 || s.size() != 266 || !s.validate()) {
        std::printf("valid patterns: wrong result (seen %zu, size %zu)\n", seen, s.size());
        return 1;
    }
    std::printf("checked: valid patterns ok\n");
    return 0;
}

struct test_case {
    const char* name;
    int (*run)();
};
const test_case cases[] = {
    {"erase_in_range_for_listpack", [] { return erase_in_range_for(20); }},
    {"erase_in_range_for_skiplist", [] { return erase_in_range_for(300); }},
    {"iterator_after_add", iterator_after_add},
    {"iterator_after_batch_add", iterator_after_batch_add},
    {"iterator_after_erase", iterator_after_erase},
    {"iterator_after_clear", iterator_after_clear},
    {"iterator_after_increment", iterator_after_increment},
    {"reverse_view_after_pop", reverse_view_after_pop},
    {"view_after_erase_range", view_after_erase_range},
    {"iterator_after_shrink_to_fit", iterator_after_shrink_to_fit},
    {"iterator_after_erase_iterator", iterator_after_erase_iterator},
    {"erase_with_stale_iterator", erase_with_stale_iterator},
    {"erase_range_with_stale_iterators", erase_range_with_stale_iterators},
    {"erase_iterator_of_another_set", erase_iterator_of_another_set},
    {"valid_patterns", valid_patterns},
};

}  // namespace

/// ctest counts a run killed by a signal as failed whatever its output: the expected abort
/// becomes a plain exit (status 3) once its message is out (stderr is unbuffered).
extern "C" void exit_on_abort(int) {
    std::_Exit(3);
}

int main(int argc, char** argv) {
    std::signal(SIGABRT, exit_on_abort);
    if (argc == 2)
        for (const test_case& c : cases)
            if (std::strcmp(argv[1], c.name) == 0) return c.run();
    std::fprintf(stderr, "usage: zset_checked_misuse <case>; cases:");
    for (const test_case& c : cases) std::fprintf(stderr, " %s", c.name);
    std::fprintf(stderr, "\n");
    return 2;
}
