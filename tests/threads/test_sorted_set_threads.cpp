// Concurrent const use of one zset::sorted_set. docs/sorted_set.md promises what the standard
// containers promise: const member functions modify nothing (no caches, no mutable state), so any
// number of threads may read one set at once. Here several threads run every const operation —
// lookups, ranks, score / rank / lex ranges, iteration both ways, nth, find, scan, random_members
// with a generator of their own, copies, comparisons, set operations over shared inputs — on
// shared sets in both encodings, and each result must equal the one computed before the threads
// started. Under ThreadSanitizer (the tsan leg of scripts/test.sh) any write a const call makes
// to shared memory is reported as a race. Catch2 assertions are not thread-safe, so the threads
// only count mismatches; the main thread asserts.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "zset_catch.hpp"
#include <zset/set_ops.hpp>
#include <zset/zset.hpp>

namespace {

using set_t = zset::sorted_set<>;

constexpr std::size_t reader_threads = 4;
constexpr int rounds_per_thread = 16;

/// FNV-1a over everything a call returned: two runs agree when every result agrees.
struct digest {
    std::uint64_t value = 14695981039346656037ull;
    void bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) value = (value ^ b[i]) * 1099511628211ull;
    }
    void text(std::string_view s) {
        number(s.size());
        bytes(s.data(), s.size());
    }
    void number(std::uint64_t v) { bytes(&v, sizeof v); }
    void score(double d) {
        std::uint64_t u;
        std::memcpy(&u, &d, sizeof u);
        number(u);
    }
    template <class Element>
    void element(const Element& e) {
        text(e.member);
        score(e.score);
    }
    template <class Range>
    void elements(const Range& r) {
        number(r.size());
        for (const auto& e : r) element(e);
    }
    template <class T>
    void optional(const std::optional<T>& o) {
        number(o.has_value());
        if (o) number(static_cast<std::uint64_t>(*o));
    }
};

std::string member_name(std::uint64_t i) {
    return "member:" + std::to_string(i);
}

/// Sets shared by the readers: one per encoding, one of equal scores (lex ranges) and a second
/// input for the set operations.
struct shared_sets {
    set_t listpack, skiplist, lex, other;
    shared_sets() {
        for (std::uint64_t i = 0; i < 3000; ++i) {
            const double score = static_cast<double>((i * 7919) % 1000) / 4;
            if (i < 100) listpack.add(member_name(i), score);
            skiplist.add(member_name(i), score);
            if (i % 2 == 0) lex.add(member_name(i), 0.0);
            if (i % 3 == 0) other.add(member_name(i), score + 1);
        }
    }
};

void point_lookups(const set_t& s, std::mt19937_64& rng, digest& d) {
    const auto n = static_cast<std::uint64_t>(s.size());
    for (int i = 0; i < 64; ++i) {
        const std::string m = member_name(rng() % (n + n / 4 + 1));  // some are absent
        d.number(s.contains(m));
        if (const auto sc = s.score(m)) d.score(*sc);
        d.optional(s.rank(m));
        d.optional(s.rev_rank(m));
        if (const auto rs = s.rank_with_score(m)) d.number(rs->first);
        if (const auto rs = s.rev_rank_with_score(m)) d.number(rs->first);
        const auto it = s.find(m);
        d.number(it == s.end());
        if (it != s.end()) {
            d.element(*it);
            d.number(s.nth(*s.rank(m)) == it);
        }
    }
    const std::vector<std::string> batch{member_name(1), member_name(n + 5), member_name(2)};
    for (const auto& sc : s.scores(batch.begin(), batch.end())) d.number(sc.has_value());
}

void ranges(const set_t& s, std::mt19937_64& rng, digest& d) {
    for (int i = 0; i < 16; ++i) {
        const double lo = static_cast<double>(rng() % 260),
                     hi = lo + static_cast<double>(rng() % 40);
        const auto range = zset::score_range<double>::closed(lo, hi);
        zset::limit lim;
        lim.offset = static_cast<long long>(rng() % 5);
        lim.count = static_cast<long long>(rng() % 50) - 1;
        d.number(s.count(range));
        d.elements(s.range_by_score(range, lim));
        d.elements(s.rev_range_by_score(range, lim));
        const auto start = static_cast<long long>(rng() % 200) - 100;
        d.elements(s.range_by_rank(start, start + static_cast<long long>(rng() % 100)));
        d.elements(s.rev_range_by_rank(start, start + static_cast<long long>(rng() % 100)));
        const std::string from = member_name(rng() % 3000), to = member_name(rng() % 3000);
        const zset::lex_range<set_t::lex_key> lex{zset::lex_bound<set_t::lex_key>::inclusive(from),
                                                  zset::lex_bound<set_t::lex_key>::exclusive(to)};
        d.number(s.lex_count(lex));
        d.elements(s.range_by_lex(lex, lim));
        d.elements(s.rev_range_by_lex(lex, lim));
    }
}

void whole_set(const set_t& s, std::mt19937_64& rng, digest& d) {
    for (const auto& e : s) d.element(e);
    for (auto it = s.rbegin(); it != s.rend(); ++it) d.element(*it);
    std::vector<std::string> scanned;
    std::uint64_t cursor = 0;
    do {
        cursor =
            s.scan(cursor, 7, [&](const set_t::reference& e) { scanned.emplace_back(e.member); });
    } while (cursor != 0);
    std::sort(scanned.begin(), scanned.end());
    scanned.erase(std::unique(scanned.begin(), scanned.end()), scanned.end());
    for (const auto& m : scanned) d.text(m);
    for (const long long count : {5LL, -5LL, 200LL})
        for (const auto& [m, sc] : s.random_members(count, rng)) {
            d.text(m);
            d.score(sc);
        }
    const set_t copy(s);
    d.number(copy == s);
    d.number(s.validate());
    d.number(s.memory_usage());
    d.number(static_cast<std::uint64_t>(s.encoding()));
}

void set_operations(const set_t& s, const set_t& other, digest& d) {
    const std::vector<const set_t*> inputs{&s, &other};
    d.elements(zset::set_union<set_t>(inputs, {1.0, 2.0}, zset::aggregate::max));
    d.elements(zset::set_intersection<set_t>(inputs));
    d.elements(zset::set_difference<set_t>(inputs));
    d.number(zset::intersection_cardinality<set_t>(inputs, 10));
}

/// Every const operation on s (and other), choices and random_members drawn from `seed`.
std::uint64_t observe(const set_t& s, const shared_sets& sets, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    digest d;
    point_lookups(s, rng, d);
    ranges(s, rng, d);
    ranges(sets.lex, rng, d);
    whole_set(s, rng, d);
    set_operations(s, sets.other, d);
    return d.value;
}

/// Runs observe() for seeds 0..reader_threads-1 first alone, then from reader_threads threads at
/// once, each repeating its seed; returns how many concurrent results differed.
int concurrent_mismatches(const set_t& s, const shared_sets& sets) {
    std::vector<std::uint64_t> expected;
    for (std::size_t t = 0; t < reader_threads; ++t) expected.push_back(observe(s, sets, t));
    std::atomic<int> mismatches{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> readers;
    for (std::size_t t = 0; t < reader_threads; ++t)
        readers.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();  // start together
            for (int r = 0; r < rounds_per_thread; ++r)
                if (observe(s, sets, t) != expected[t]) ++mismatches;
        });
    go = true;
    for (auto& th : readers) th.join();
    return mismatches.load();
}

}  // namespace

TEST_CASE("threads: concurrent const use of one sorted_set", "[threads]") {
    const shared_sets sets;
    SECTION("listpack mode") {
        REQUIRE(sets.listpack.encoding() == zset::encoding::listpack);
        CHECK(concurrent_mismatches(sets.listpack, sets) == 0);
    }
    SECTION("skiplist mode") {
        REQUIRE(sets.skiplist.encoding() == zset::encoding::skiplist);
        CHECK(concurrent_mismatches(sets.skiplist, sets) == 0);
    }
}
