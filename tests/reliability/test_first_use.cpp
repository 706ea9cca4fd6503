// First use: the defects and friction items a first user of the API hit, each pinned down.
//
//  * A Member whose copy constructor throws on the k-th copy: for every k until the operation
//    succeeds, batch add, single add and increment (both encodings, and across the conversion)
//    throw, and the set validate()s and holds exactly what it held before. On success the
//    Member copies the operation made are counted and bounded.
//  * Scores given as another arithmetic type are checked: an integral Score refuses fractions,
//    NaN and out-of-range values with zset::error, in every entry point, changing nothing.
//  * `{lo, hi}` is the closed range [lo, hi] (no brace elision into an exclusive flag).
//  * lex_bound<std::string>, add_flags operators, `= {}` / `return {}`, erase by iterators.
// Concurrent readers are tested in tests/threads/; misuse that must not compile in
// tests/compile_fail/; checked iterators in tests/checked/.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {

// ---- a Member whose copy throws on demand -------------------------------------------------------

struct copy_failure {};

/// How many more Member copies succeed before one throws (negative: unlimited), and how many
/// copies were made. Tests are single-threaded.
struct copy_control {
    long remaining = -1;
    std::size_t copies = 0;
    void arm(long k) noexcept {
        remaining = k;
        copies = 0;
    }
    void disarm() noexcept { remaining = -1; }
    void on_copy() {
        if (remaining == 0) throw copy_failure{};
        if (remaining > 0) --remaining;
        ++copies;
    }
};
copy_control copy_budget;

/// An id with a copy that may throw (copy_budget) and a nothrow move, as zset requires.
struct fragile {
    std::int64_t id = 0;
    fragile() = default;
    explicit fragile(std::int64_t i) noexcept : id(i) {}
    fragile(const fragile& o) : id(o.id) { copy_budget.on_copy(); }
    fragile(fragile&& o) noexcept : id(o.id) {}
    fragile& operator=(const fragile& o) {
        copy_budget.on_copy();
        id = o.id;
        return *this;
    }
    fragile& operator=(fragile&& o) noexcept {
        id = o.id;
        return *this;
    }
    friend bool operator==(const fragile& a, const fragile& b) noexcept { return a.id == b.id; }
    friend bool operator<(const fragile& a, const fragile& b) noexcept { return a.id < b.id; }
};
struct fragile_hash {
    std::uint64_t operator()(const fragile& f) const noexcept {
        return static_cast<std::uint64_t>(f.id) * 0x9e3779b97f4a7c15ull;
    }
};
using fragile_set = zset::sorted_set<fragile, double, fragile_hash>;
using fragile_contents = std::vector<std::pair<std::int64_t, double>>;

fragile_contents contents(const fragile_set& s) {
    fragile_contents out;
    for (const auto& e : s) out.emplace_back(e.member.id, e.score);
    return out;
}

/// ids [0, n) with score id (built with copies allowed).
fragile_set fragile_ids(std::int64_t n) {
    copy_budget.disarm();
    fragile_set s;
    for (std::int64_t i = 0; i < n; ++i) s.add(fragile(i), static_cast<double>(i));
    return s;
}

/// Runs `op` on a copy of `start` with the k-th Member copy throwing, for k = 0, 1, ... until
/// it succeeds; every failed run must leave the set valid and unchanged (encoding included).
/// Returns the copies the successful run made and its set.
template <class Op>
std::pair<std::size_t, fragile_set> sweep_copy_failures(const fragile_set& start, Op op) {
    copy_budget.disarm();
    const fragile_contents before = contents(start);
    for (long k = 0;; ++k) {
        copy_budget.disarm();
        fragile_set s = start;
        copy_budget.arm(k);
        try {
            op(s);
        } catch (const copy_failure&) {
            copy_budget.disarm();
            INFO("copy " << k << " threw");
            REQUIRE(s.validate());
            REQUIRE(contents(s) == before);
            REQUIRE(s.encoding() == start.encoding());
            continue;
        }
        const std::size_t copies = copy_budget.copies;
        copy_budget.disarm();
        REQUIRE(s.validate());
        return {copies, std::move(s)};
    }
}

/// A batch: `updates` existing ids [0, updates) get score id + 0.5, then `added` new ids from
/// `first_new` get score -id; the first two updates appear twice (the later pair wins).
std::vector<std::pair<fragile, double>> make_batch(std::int64_t updates, std::int64_t first_new,
                                                   std::int64_t added) {
    copy_budget.disarm();
    std::vector<std::pair<fragile, double>> batch;
    for (std::int64_t i = 0; i < updates; ++i)
        batch.emplace_back(fragile(i), static_cast<double>(i) + 0.5);
    for (std::int64_t i = first_new; i < first_new + added; ++i)
        batch.emplace_back(fragile(i), -static_cast<double>(i));
    batch.emplace_back(fragile(0), 7.25);
    batch.emplace_back(fragile(1), 8.25);
    return batch;
}

/// What `start` holds after `batch`, computed by brute force.
fragile_contents expected_after(const fragile_set& start,
                                const std::vector<std::pair<fragile, double>>& batch) {
    std::map<std::int64_t, double> by_id;
    for (const auto& e : start) by_id[e.member.id] = e.score;
    for (const auto& p : batch) by_id[p.first.id] = p.second;
    fragile_contents out(by_id.begin(), by_id.end());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.second < b.second || (a.second == b.second && a.first < b.first);
    });
    return out;
}

struct batch_workload {
    const char* name;
    std::int64_t set_size, updates, added;
    zset::encoding before, after;
};

// ---- score conversion ---------------------------------------------------------------------------

using int_set = zset::sorted_set<std::string, long long>;

template <class Set>
std::vector<std::pair<std::string, typename Set::score_type>> contents(const Set& s) {
    std::vector<std::pair<std::string, typename Set::score_type>> out;
    for (const auto& e : s) out.emplace_back(std::string(e.member), e.score);
    return out;
}

/// `op` must throw zset::error with `text` and leave s unchanged.
template <class Set, class Op>
void require_refused(Set& s, Op op, const char* text) {
    const auto before = contents(s);
    const auto enc = s.encoding();
    try {
        op(s);
        FAIL("no zset::error thrown");
    } catch (const zset::error& e) {
        CHECK(std::string(e.what()) == text);
    }
    CHECK(s.validate());
    CHECK(contents(s) == before);
    CHECK(s.encoding() == enc);
}

/// A set of integral scores in listpack mode and one in skiplist mode, both holding a, b, c.
std::vector<int_set> int_samples() {
    std::vector<int_set> out(2);
    for (int i = 0; i < 300; ++i) out[1].add("filler" + std::to_string(i), 100 + i);
    for (auto& s : out) s.add({{"a", 1}, {"b", 2}, {"c", 3}});
    return out;
}

int_set empty_set_from_braces() {
    return {};
}

}  // namespace

// ---- (a) throwing Member copies -----------------------------------------------------------------

TEST_CASE("api safety: a throwing Member copy in a batch add changes nothing", "[api-safety]") {
    const batch_workload workload =
        GENERATE(batch_workload{"batch, skiplist: 500 members, 250 updates + 50 new", 500, 250, 50,
                                zset::encoding::skiplist, zset::encoding::skiplist},
                 batch_workload{"batch, listpack: 60 members, 30 updates + 10 new", 60, 30, 10,
                                zset::encoding::listpack, zset::encoding::listpack},
                 batch_workload{"batch, converting: 100 members, 20 updates + 40 new", 100, 20, 40,
                                zset::encoding::listpack, zset::encoding::skiplist});
    INFO(workload.name);
    const fragile_set start = fragile_ids(workload.set_size);
    REQUIRE(start.encoding() == workload.before);
    const auto batch = make_batch(workload.updates, workload.set_size, workload.added);
    const auto [copies, result] =
        sweep_copy_failures(start, [&](fragile_set& s) { s.add(batch.begin(), batch.end()); });
    CHECK(result.encoding() == workload.after);
    CHECK(contents(result) == expected_after(start, batch));
    CAPTURE(copies);
    // Each distinct member is copied once into the set: a new one where it goes, an updated
    // one beside its old copy. A listpack-mode batch works on a copy of the whole set (and a
    // converting one builds the skiplist from it), which costs one copy per member held.
    if (workload.before == zset::encoding::skiplist)
        CHECK(copies <= static_cast<std::size_t>(workload.updates + workload.added));
    else
        CHECK(copies <=
              static_cast<std::size_t>(workload.set_size + workload.updates + workload.added));
}

TEST_CASE("api safety: a throwing Member copy in add / increment changes nothing", "[api-safety]") {
    struct single {
        const char* name;
        std::int64_t set_size;
        bool increment;
        std::int64_t id;  // < set_size: an update
    };
    const single op = GENERATE(
        single{"add new, listpack", 50, false, 1000}, single{"add new, skiplist", 500, false, 1000},
        single{"add new, converting (129th member)", 128, false, 1000},
        single{"add update, listpack", 50, false, 7}, single{"add update, skiplist", 500, false, 7},
        single{"increment new, listpack", 50, true, 1000},
        single{"increment new, skiplist", 500, true, 1000},
        single{"increment existing, listpack", 50, true, 7},
        single{"increment existing, skiplist", 500, true, 7},
        single{"increment new, converting", 128, true, 1000});
    INFO(op.name);
    const fragile_set start = fragile_ids(op.set_size);
    const fragile member(op.id);
    // (no REQUIRE inside: Catch would take the copy_failure as a failed assertion)
    std::optional<double> incremented;
    zset::add_status status{};
    const auto [copies, result] = sweep_copy_failures(start, [&](fragile_set& s) {
        if (op.increment)
            incremented = s.increment(member, 1000.5);
        else
            status = s.add(member, 1000.5);
    });
    const bool update = op.id < op.set_size;
    if (op.increment)
        CHECK(incremented == (update ? 1007.5 : 1000.5));
    else
        CHECK(status == (update ? zset::add_status::updated : zset::add_status::added));
    CHECK(result.score(member) == (op.increment && op.id < op.set_size ? 1007.5 : 1000.5));
    CHECK(result.size() == static_cast<std::size_t>(op.set_size) + (op.id < op.set_size ? 0u : 1u));
    CAPTURE(copies);
    // one copy for the member's record; converting copies every member once more
    CHECK(copies <= (op.set_size == 128 ? 129u : 1u));
}

// ---- (b) integral scores refuse what they cannot hold -------------------------------------------

TEST_CASE("api safety: an integral Score refuses fractions, NaN and overflow", "[api-safety]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double two_to_63 = 9223372036854775808.0;
    for (int_set& s : int_samples()) {
        INFO(s.size());
        // batch add: all or nothing
        require_refused(
            s,
            [](int_set& t) {
                t.add({{"a", 5}, {"x", 1.5}});
            },
            zset::errors::score_out_of_range);
        require_refused(
            s,
            [&](int_set& t) {
                t.add({{"x", 4}, {"b", nan}});
            },
            zset::errors::not_a_float);
        const std::vector<std::pair<std::string, double>> huge{{"y", 1}, {"z", 1e30}};
        require_refused(
            s, [&](int_set& t) { t.add(huge.begin(), huge.end()); },
            zset::errors::score_out_of_range);
        const std::vector<std::pair<std::string, unsigned long long>> too_big{
            {"y", 1}, {"z", std::numeric_limits<unsigned long long>::max()}};
        require_refused(
            s, [&](int_set& t) { t.add(too_big.begin(), too_big.end()); },
            zset::errors::score_out_of_range);
        // single add and increment
        require_refused(
            s, [](int_set& t) { t.add("a", 2.5); }, zset::errors::score_out_of_range);
        require_refused(
            s, [&](int_set& t) { t.add("new", two_to_63); }, zset::errors::score_out_of_range);
        require_refused(
            s, [&](int_set& t) { t.add("new", -nan); }, zset::errors::not_a_float);
        require_refused(
            s, [](int_set& t) { (void)t.increment("a", 0.5); }, zset::errors::score_out_of_range);
        require_refused(
            s, [&](int_set& t) { (void)t.increment("new", nan); }, zset::errors::not_a_float);
        // flags are checked before the score, as Redis checks ZADD's options first
        require_refused(
            s, [](int_set& t) { t.add("a", 1.5, zset::add_flags::nx | zset::add_flags::xx); },
            zset::errors::xx_and_nx);
        // what fits exactly is taken
        CHECK(s.add("a", 2.0) == zset::add_status::updated);
        CHECK(s.add("low", -two_to_63) == zset::add_status::added);
        CHECK(s.score("low") == std::numeric_limits<long long>::lowest());
        CHECK(s.increment("a", 3.0f) == 5);
        CHECK(s.validate());
    }
}

TEST_CASE("api safety: an initializer list of scores is checked too", "[api-safety]") {
    try {
        const int_set s{{"a", 1}, {"b", 1.5}};
        FAIL("no zset::error thrown, size " << s.size());
    } catch (const zset::error& e) {
        CHECK(std::string(e.what()) == zset::errors::score_out_of_range);
    }
    const int_set ok{{"a", 1}, {"b", 2.0}, {"c", 3u}};
    CHECK(ok.size() == 3);
    CHECK(ok.score("b") == 2);
    // narrower floating scores: an overflow to infinity is refused, infinity itself is not
    zset::sorted_set<std::string, float> f;
    require_refused(
        f, [](auto& t) { t.add("a", 1e300); }, zset::errors::score_out_of_range);
    CHECK(f.add("a", std::numeric_limits<double>::infinity()) == zset::add_status::added);
    // a narrower integral score refuses what its type cannot hold
    zset::sorted_set<std::string, std::int16_t> small;
    require_refused(
        small, [](auto& t) { t.add("a", 40000); }, zset::errors::score_out_of_range);
    CHECK(small.add("a", -32768) == zset::add_status::added);
}

// ---- (c) {lo, hi} is the closed range -----------------------------------------------------------

TEST_CASE("api safety: {lo, hi} is the closed score range [lo, hi]", "[api-safety]") {
    for (const std::size_t fillers : {0u, 300u}) {
        zset::sorted_set<> s;
        for (std::size_t i = 0; i < fillers; ++i) s.add("filler" + std::to_string(i), 100);
        s.add({{"half", 0.5}, {"one", 1}, {"two", 2}, {"three", 3}});
        INFO(fillers);
        CHECK(s.count({0, 1}) == 2);
        CHECK(s.range_by_score({0, 1}).size() == 2);
        CHECK(s.rev_range_by_score({0, 1}).size() == 2);
        CHECK(s.count({1, 1}) == 1);
        CHECK(s.count({}) == s.size());
        using bound = zset::score_bound<double>;
        CHECK(s.count({bound(0.5, zset::endpoint::exclusive), 1}) == 1);
        CHECK(s.count({bound::exclusive_of(0.5), bound::exclusive_of(2)}) == 1);
        CHECK(s.count(zset::score_range<double>::closed(1, 3)) == 3);
        CHECK(s.erase_range_by_score({0, 1}) == 2);
        CHECK(s.size() == fillers + 2);
        CHECK(!s.contains("half"));
        CHECK(!s.contains("one"));
        CHECK(s.validate());
    }
    // integral scores: `{0, 1}` is [0, 1] too
    zset::sorted_set<std::string, int> n{{"a", 0}, {"b", 1}, {"c", 2}};
    CHECK(n.count({0, 1}) == 2);
    CHECK(n.count({zset::score_bound<int>(0, zset::endpoint::exclusive), 2}) == 2);
    CHECK(n.range_by_score({0, 2}, {1, 1}).begin()->member == "b");
}

// ---- (d) lex bounds over std::string ------------------------------------------------------------

TEST_CASE("api safety: lex_bound<std::string> works with a set of strings", "[api-safety]") {
    zset::sorted_set<> words;
    for (const char* w : {"apple", "apricot", "banana", "blueberry", "cherry"}) words.add(w, 0);
    using lex = zset::lex_bound<std::string>;
    std::string from = "ap", to = "b";
    const zset::lex_range<std::string> owned{lex::inclusive(from), lex::exclusive(to)};
    CHECK(words.lex_count(owned) == 2);
    CHECK(words.range_by_lex({lex::inclusive("b"), lex::plus_infinity()}).size() == 3);
    CHECK(words.rev_range_by_lex({lex::exclusive("apple"), lex::inclusive("banana")})
              .begin()
              ->member == "banana");
    CHECK(words.erase_range_by_lex({lex::minus_infinity(), lex::exclusive("b")}) == 2);
    CHECK(words.size() == 3);
}

// `{}` as a lex bound does not compile (tests/compile_fail/lex_bound_braces.cpp); a whole lex
// range is still `{}`.
TEST_CASE("api safety: {} is the whole lex range", "[api-safety]") {
    zset::sorted_set<> words{{"apple", 0}, {"banana", 0}, {"cherry", 0}};
    CHECK(words.lex_count({}) == 3);
    CHECK(words.range_by_lex({}).size() == 3);
}

// ---- (e) add_flags operators --------------------------------------------------------------------

TEST_CASE("api safety: add_flags combine with |, |=, & and &=", "[api-safety]") {
    using zset::add_flags;
    add_flags f = add_flags::xx;
    f |= add_flags::gt;
    f |= add_flags::ch;
    CHECK(zset::has(f, add_flags::gt));
    CHECK((f & add_flags::gt) == add_flags::gt);
    CHECK((f & add_flags::nx) == add_flags::none);
    f &= add_flags::xx | add_flags::gt;
    CHECK(f == (add_flags::xx | add_flags::gt));
    CHECK(!zset::has(f, add_flags::ch));
    static_assert((add_flags::nx | add_flags::ch) != add_flags::none);
    zset::sorted_set<> s{{"a", 5}, {"b", 1}};
    std::vector<std::pair<std::string, double>> batch{{"a", 3}, {"b", 4}, {"c", 1}};
    CHECK(s.add(batch.begin(), batch.end(), f | add_flags::ch) == 1);  // only b, XX skips c
    CHECK(s.score("a") == 5);
    CHECK(s.score("b") == 4);
    CHECK(!s.contains("c"));
}

// ---- (f) = {} and return {} ---------------------------------------------------------------------

TEST_CASE("api safety: a set initialised from {} is empty", "[api-safety]") {
    zset::sorted_set<> a = {};
    CHECK(a.empty());
    const int_set b = empty_set_from_braces();
    CHECK(b.empty());
    zset::sorted_set<std::int64_t, std::int64_t> c = {};
    c = {{1, 2}};
    CHECK(c.score(1) == 2);
    a = {};
    CHECK(a.encoding() == zset::encoding::listpack);
}

// ---- (g) erase by iterators ---------------------------------------------------------------------

TEST_CASE("api safety: erase by iterators and reverse iterators", "[api-safety]") {
    for (const int n : {20, 300}) {
        INFO(n);
        zset::sorted_set<> s;
        for (int i = 0; i < n; ++i) s.add("m" + std::to_string(1000 + i), i);

        // a forward view: returns the iterator to what followed it
        const auto view = s.range_by_score({5, 9});
        auto next = s.erase(view.begin(), view.end());
        CHECK(s.size() == static_cast<std::size_t>(n - 5));
        REQUIRE(next != s.end());
        CHECK(next->member == "m1010");
        CHECK(!s.contains("m1005"));
        CHECK(!s.contains("m1009"));

        // a reverse view: the same elements as its forward counterpart
        const auto top = s.rev_range_by_rank(0, 2);
        next = s.erase(top.begin(), top.end());
        CHECK(next == s.end());
        CHECK(s.size() == static_cast<std::size_t>(n - 8));
        CHECK(std::prev(s.end())->member == "m" + std::to_string(1000 + n - 4));

        // one element: returns its successor
        next = s.erase(s.find("m1002"));
        CHECK(next->member == "m1003");
        next = s.erase(std::prev(s.end()));
        CHECK(next == s.end());
        // erasing with the returned iterator walks the set
        std::size_t removed = 0;
        for (auto it = s.begin(); it != s.end();) {
            if (it->score < 4) {
                it = s.erase(it);
                ++removed;
            } else {
                ++it;
            }
        }
        CHECK(removed == 3);  // m1000, m1001, m1003
        // an empty range erases nothing
        const auto none = s.range_by_score({1000, 2000});
        CHECK(s.erase(none.begin(), none.end()) == s.end());
        CHECK(s.size() == static_cast<std::size_t>(n - 13));
        CHECK(s.validate());
        // erasing everything returns the set to listpack mode
        CHECK(s.erase(s.begin(), s.end()) == s.end());
        CHECK(s.empty());
        CHECK(s.encoding() == zset::encoding::listpack);
    }
}

TEST_CASE("api safety: erase(first, last) still takes ranges of members", "[api-safety]") {
    zset::sorted_set<> s{{"a", 1}, {"b", 2}, {"c", 3}};
    const std::vector<std::string> names{"a", "x", "c"};
    CHECK(s.erase(names.begin(), names.end()) == 2);
    const std::vector<std::string_view> views{"b"};
    CHECK(s.erase(views.begin(), views.end()) == 1);
    CHECK(s.empty());
    CHECK(s.erase({"a", "b"}) == 0);
}
