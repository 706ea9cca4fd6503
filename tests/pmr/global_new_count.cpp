// A zset::pmr::sorted_set makes no global allocation: every byte it needs, for itself and for
// the results it returns (pops, random_members, scores), comes from its memory resource.
//
// Global operator new / delete are replaced by counting versions; each step of the scenario
// runs with counting on and must count 0 global allocations, while the set's own resource
// (malloc-backed, counting too) must see the set's allocations. The scenario runs on that
// resource directly (so every byte must come back when the set is destroyed) and through a
// std::pmr::monotonic_buffer_resource, with string members and with integer members, through
// both encodings.
//
// Members are short (at most 15 bytes): a std::string member held *by value* (pop_min's
// std::pair<std::string, double>, a batch input copied by the set) is a std::string, whose
// longer contents allocate through std::allocator -- that is the value type's allocation, not
// the set's, and is not tested here.
//
//   zset_pmr_global_new              the scenario (the "pmr.no_global_new" test)
//   zset_pmr_global_new set_ops      set_union / set_intersection / set_difference on pmr sets
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <zset/zset.hpp>

// ---- counting global allocation functions -----------------------------------------------------

namespace {
bool counting = false;
std::size_t global_allocations = 0;

void* counted_alloc(std::size_t n, std::size_t align) noexcept {
    if (counting) ++global_allocations;
    if (n == 0) n = 1;
    if (align <= alignof(std::max_align_t)) return std::malloc(n);
    return std::aligned_alloc(align, (n + align - 1) / align * align);
}
void* alloc_or_throw(std::size_t n, std::size_t align) {
    if (void* p = counted_alloc(n, align)) return p;
    throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) {
    return alloc_or_throw(n, 0);
}
void* operator new[](std::size_t n) {
    return alloc_or_throw(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a) {
    return alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
    return alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return counted_alloc(n, 0);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    return counted_alloc(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}

namespace {

// ---- the set's resource ------------------------------------------------------------------------

/// A memory_resource on malloc (not on global new) that counts what it hands out.
class counting_resource : public std::pmr::memory_resource {
public:
    std::size_t allocations = 0;
    std::size_t live_bytes = 0;

private:
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        ++allocations;
        live_bytes += bytes;
        if (void* p = align <= alignof(std::max_align_t)
                          ? std::malloc(bytes == 0 ? 1 : bytes)
                          : std::aligned_alloc(align, (bytes + align - 1) / align * align))
            return p;
        throw std::bad_alloc();
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
        live_bytes -= bytes;
        std::free(p);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
        return this == &other;
    }
};

int failures = 0;

/// Runs one step with global counting on; the step must make no global allocation.
template <class Step>
void step(const char* scenario, const char* name, Step&& run) {
    global_allocations = 0;
    counting = true;
    const bool ok = run();
    counting = false;
    if (global_allocations != 0 || !ok) {
        ++failures;
        std::printf("FAILED [%s] %s: %zu global allocations%s\n", scenario, name,
                    global_allocations, ok ? "" : ", wrong result");
    }
}

std::string name_of(int i) {
    return "m" + std::to_string(i);  // at most 15 bytes: no heap for a std::string copy
}
std::int64_t key_of(int i) {
    return i;
}

template <class Member>
using pmr_set = zset::pmr::sorted_set<Member>;

/// Every operation of the container on a set drawing from `mr`.
template <class Member, class Key>
void scenario(const char* where, std::pmr::memory_resource* mr, Key key) {
    using set = pmr_set<Member>;
    using alloc = typename set::allocator_type;
    // inputs are made before counting
    std::vector<std::pair<Member, double>> batch_small, batch_big;
    for (int i = 100; i < 110; ++i) batch_small.emplace_back(key(i), i);
    for (int i = 0; i < 400; ++i) batch_big.emplace_back(key(i), i * 2 + 1);
    std::vector<Member> doomed;
    for (int i = 300; i < 320; ++i) doomed.push_back(key(i));
    const Member absent = key(-1), first = key(0), fifth = key(5), low_lex = key(10);
    std::mt19937_64 rng(42);

    set s(alloc{mr});
    step(where, "single adds, listpack mode", [&] {
        for (int i = 0; i < 100; ++i) s.add(key(i), i);
        return s.size() == 100 && s.encoding() == zset::encoding::listpack;
    });
    step(where, "batch add, listpack mode",
         [&] { return s.add(batch_small.begin(), batch_small.end()) == 10 && s.size() == 110; });
    step(where, "single adds converting to skiplist", [&] {
        for (int i = 110; i < 200; ++i) s.add(key(i), i);
        return s.size() == 200 && s.encoding() == zset::encoding::skiplist;
    });
    step(where, "batch add (updates and new members), skiplist mode",
         [&] { return s.add(batch_big.begin(), batch_big.end(), zset::add_flags::ch) == 400; });
    step(where, "increment",
         [&] { return s.increment(first, 0.5) == 1.5 && s.increment(absent, 2) == 2.0; });
    step(where, "lookups", [&] {
        return s.score(fifth) == 11.0 && s.contains(first) && s.rank(first) && s.rev_rank(fifth) &&
               s.rank_with_score(fifth) && s.find(absent) != s.end() && s.count({0, 100}) > 0 &&
               s.lex_count({}) == s.size();
    });
    step(where, "ranges", [&] {
        double total = 0;
        for (auto e : s.range_by_rank(0, 9)) total += e.score;
        for (auto e : s.rev_range_by_rank(0, 9)) total += e.score;
        for (auto e : s.range_by_score({10, 50}, {1, 5})) total += e.score;
        for (auto e : s.rev_range_by_score({10, 50})) total += e.score;
        for (auto e : s.range_by_lex({}, {0, 3})) total += e.score;
        return total > 0;
    });
    step(where, "scores (ZMSCORE)", [&] {
        const auto got = s.scores(doomed.begin(), doomed.end());
        return got.size() == doomed.size() && got.get_allocator().resource() == mr;
    });
    step(where, "scan", [&] {
        std::size_t visited = 0;
        std::uint64_t cursor = 0;
        do {
            cursor = s.scan(cursor, 50, [&](const auto&) { ++visited; });
        } while (cursor != 0);
        return visited >= s.size();
    });
    step(where, "random_members", [&] {
        return s.random_members(10, rng).size() == 10 && s.random_members(-30, rng).size() == 30 &&
               s.random_members(1000, rng).size() == s.size();
    });
    step(where, "copy with the allocator, copy assignment, move", [&] {
        set copy(s, alloc{mr});
        set assigned{alloc{mr}};
        assigned = copy;
        set moved(std::move(copy));
        return moved == s && assigned == s;
    });
    step(where, "erase", [&] {
        const std::size_t before = s.size();
        const bool one = s.erase(first);
        const std::size_t many = s.erase(doomed.begin(), doomed.end());
        const auto next = s.erase(s.begin());
        s.erase(s.range_by_rank(0, 4).begin(), s.range_by_rank(0, 4).end());
        return one && many == 20 && next == s.begin() && s.size() == before - 27;
    });
    step(where, "erase ranges", [&] {
        return s.erase_range_by_rank(0, 9) == 10 && s.erase_range_by_score({0, 100}) > 0 &&
               s.erase_range_by_lex({zset::lex_bound<typename set::lex_key>::minus_infinity(),
                                     zset::lex_bound<typename set::lex_key>::exclusive(low_lex)}) <=
                   s.size();
    });
    step(where, "pops", [&] {
        const auto low = s.pop_min(3), high = s.pop_max(2);
        return low.size() == 3 && high.size() == 2 && low.get_allocator().resource() == mr;
    });
    step(where, "shrink_to_fit back to listpack", [&] {
        s.erase_range_by_rank(50, -1);
        s.shrink_to_fit();
        return s.size() == 50 && s.encoding() == zset::encoding::listpack && s.validate();
    });
    step(where, "from_sorted, assign_sorted", [&] {
        const auto view = s.range_by_rank(0, 9);
        set built = set::from_sorted(view.begin(), view.end(), s.get_options(), alloc{mr});
        s.assign_sorted(built.begin(), built.end());
        return s.size() == 10 && built == s;
    });
    step(where, "batch add through an initializer list, clear", [&] {
        if constexpr (std::is_same_v<Member, std::string>)
            s.add({{"short", 1.0}, {"shorter", 2.0}});
        s.clear();
        return s.empty();
    });
}

template <class Member, class Key>
void scenario_on_each_resource(const char* where, Key key) {
    counting_resource direct;
    scenario<Member>(where, &direct, key);
    if (direct.allocations == 0 || direct.live_bytes != 0) {
        ++failures;
        std::printf("FAILED [%s] the resource saw %zu allocations, %zu bytes never returned\n",
                    where, direct.allocations, direct.live_bytes);
    }
    counting_resource upstream;
    {
        std::pmr::monotonic_buffer_resource arena(&upstream);
        scenario<Member>(where, &arena, key);
    }
    if (upstream.allocations == 0 || upstream.live_bytes != 0) {
        ++failures;
        std::printf("FAILED [%s] monotonic buffer: upstream saw %zu allocations, %zu live\n", where,
                    upstream.allocations, upstream.live_bytes);
    }
}

/// ZUNION / ZINTER / ZDIFF on pmr sets: the results come from the first input's resource; the
/// working vectors must too.
int set_operations() {
    using set = pmr_set<std::string>;
    counting_resource mr;
    set a{set::allocator_type{&mr}}, b{set::allocator_type{&mr}};
    for (int i = 0; i < 300; ++i) a.add(name_of(i), i);
    for (int i = 0; i < 100; ++i) b.add(name_of(i * 3), i);
    const std::vector<const set*> in{&a, &b}, missing_first{nullptr, &b};
    const std::vector<double> weights{2, 0.5};  // made before counting, as the inputs
    const auto from_mr = [&mr](auto&& run) {
        const std::size_t before = mr.allocations;
        return run() && mr.allocations > before;  // the work really went to the resource
    };
    step("set operations", "set_union",
         [&] { return from_mr([&] { return zset::set_union<set>(in).size() == 300; }); });
    step("set operations", "set_union, weighted, missing first input", [&] {
        return from_mr([&] {
            const set u = zset::set_union<set>(missing_first, weights, zset::aggregate::max);
            return u.size() == 100 && u.get_allocator().resource() == &mr;
        });
    });
    step("set operations", "set_intersection", [&] {
        return from_mr([&] {
            return zset::set_intersection<set>(in, weights, zset::aggregate::min).size() == 100;
        });
    });
    step("set operations", "set_difference",
         [&] { return from_mr([&] { return zset::set_difference<set>(in).size() == 200; }); });
    step("set operations", "union_elements", [&] {
        return from_mr([&] {
            const auto els = zset::union_elements<set>(in, weights);
            return els.size() == 300 && els.get_allocator().resource() == &mr;
        });
    });
    step("set operations", "intersection_elements", [&] {
        return from_mr([&] { return zset::intersection_elements<set>(in).size() == 100; });
    });
    step("set operations", "difference_elements",
         [&] { return from_mr([&] { return zset::difference_elements<set>(in).size() == 200; }); });
    step("set operations", "intersection_cardinality", [&] {
        return from_mr([&] { return zset::intersection_cardinality<set>(in, 50) == 50; });
    });
    std::printf("pmr set operations: %s\n", failures == 0 ? "no global allocation" : "FAILED");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "set_ops") == 0) return set_operations();
    scenario_on_each_resource<std::string>("string members", name_of);
    scenario_on_each_resource<std::int64_t>("integer members", key_of);
    std::printf("pmr sets: %s\n", failures == 0 ? "no global allocation" : "FAILED");
    return failures == 0 ? 0 : 1;
}
