// Allocator awareness: std::pmr, and a stateful allocator's propagation on copy, move, swap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string>
#include <type_traits>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {

struct arena_stats {
    std::size_t live_bytes = 0;
    std::size_t allocations = 0;
    std::size_t largest = 0;  // bytes of the largest allocation
};

/// An allocator with state (which arena it draws from); propagation is a template parameter.
template <class T, bool Propagate>
struct tracking_allocator {
    using value_type = T;
    using propagate_on_container_copy_assignment = std::bool_constant<Propagate>;
    using propagate_on_container_move_assignment = std::bool_constant<Propagate>;
    using propagate_on_container_swap = std::bool_constant<Propagate>;
    using is_always_equal = std::false_type;
    template <class U>
    struct rebind {
        using other = tracking_allocator<U, Propagate>;
    };

    arena_stats* arena;
    explicit tracking_allocator(arena_stats* a) noexcept : arena(a) {}
    template <class U>
    tracking_allocator(const tracking_allocator<U, Propagate>& o) noexcept : arena(o.arena) {}

    T* allocate(std::size_t n) {
        arena->live_bytes += n * sizeof(T);
        ++arena->allocations;
        arena->largest = std::max(arena->largest, n * sizeof(T));
        return static_cast<T*>(::operator new(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        arena->live_bytes -= n * sizeof(T);
        ::operator delete(p);
    }
    tracking_allocator select_on_container_copy_construction() const { return *this; }
    template <class U>
    bool operator==(const tracking_allocator<U, Propagate>& o) const noexcept {
        return arena == o.arena;
    }
    template <class U>
    bool operator!=(const tracking_allocator<U, Propagate>& o) const noexcept {
        return arena != o.arena;
    }
};

template <bool Propagate>
using tracked_set = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                                     std::less<>, tracking_allocator<std::string, Propagate>>;

template <bool Propagate>
void fill(tracked_set<Propagate>& s, int n) {
    for (int i = 0; i < n; ++i) s.add("m" + std::to_string(i), i);
}

}  // namespace

TEST_CASE("every byte comes from, and returns to, the set's allocator", "[allocators]") {
    arena_stats arena;
    {
        tracked_set<true> s(zset::options{}, tracking_allocator<std::string, true>(&arena));
        fill(s, 5000);
        REQUIRE(arena.live_bytes > 0);
        REQUIRE(arena.live_bytes + sizeof(s) == s.memory_usage());
        for (int i = 0; i < 5000; i += 2) s.erase("m" + std::to_string(i));
        s.shrink_to_fit();
        REQUIRE(arena.live_bytes + sizeof(s) == s.memory_usage());
    }
    REQUIRE(arena.live_bytes == 0);
}

TEST_CASE("propagating allocator: copy-assign, move-assign and swap take the other's",
          "[allocators]") {
    arena_stats a, b;
    using alloc = tracking_allocator<std::string, true>;
    {
        tracked_set<true> x(zset::options{}, alloc(&a)), y(zset::options{}, alloc(&b));
        fill(x, 300);
        fill(y, 10);
        y = x;  // propagates: y now draws from arena a
        REQUIRE(y.get_allocator().arena == &a);
        REQUIRE(b.live_bytes == 0);
        REQUIRE(y == x);
        tracked_set<true> z(zset::options{}, alloc(&b));
        fill(z, 50);
        x.swap(z);
        REQUIRE(x.get_allocator().arena == &b);
        REQUIRE(z.get_allocator().arena == &a);
        REQUIRE(x.size() == 50);
        z = std::move(x);
        REQUIRE(z.get_allocator().arena == &b);
        REQUIRE(z.size() == 50);
        tracked_set<true> copy(z);  // select_on_container_copy_construction keeps the arena
        REQUIRE(copy.get_allocator().arena == &b);
    }
    REQUIRE(a.live_bytes == 0);
    REQUIRE(b.live_bytes == 0);
}

TEST_CASE("non-propagating allocator: assignment copies into its own arena", "[allocators]") {
    arena_stats a, b;
    using alloc = tracking_allocator<std::string, false>;
    {
        tracked_set<false> x(zset::options{}, alloc(&a)), y(zset::options{}, alloc(&b));
        fill(x, 300);
        const std::size_t a_bytes = a.live_bytes;
        y = x;
        REQUIRE(y.get_allocator().arena == &b);
        REQUIRE(y == x);
        REQUIRE(b.live_bytes > 0);
        y = std::move(x);  // unequal allocators: element-wise, x's memory stays in arena a
        REQUIRE(y.get_allocator().arena == &b);
        REQUIRE(y.size() == 300);
        REQUIRE(a.live_bytes <= a_bytes);
        tracked_set<false> moved(std::move(y));  // move construction takes the allocator along
        REQUIRE(moved.get_allocator().arena == &b);
        REQUIRE(moved.size() == 300);
    }
    REQUIRE(a.live_bytes == 0);
    REQUIRE(b.live_bytes == 0);
}

TEST_CASE("zset::pmr::sorted_set draws from a monotonic buffer", "[allocators]") {
    std::vector<std::byte> buffer(1 << 20);
    std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size(),
                                              std::pmr::null_memory_resource());
    zset::pmr::sorted_set<> s(zset::options{}, &arena);
    for (int i = 0; i < 200; ++i) s.add("member:" + std::to_string(i), i);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    REQUIRE(s.rank("member:150") == 150u);
    REQUIRE(s.get_allocator().resource() == &arena);
    REQUIRE(s.validate());
    // the arena is bounded: exhausting it throws bad_alloc and leaves the set intact
    bool exhausted = false;
    for (int i = 0; i < 100000 && !exhausted; ++i) {
        try {
            s.add("overflow:" + std::to_string(i), -i);
        } catch (const std::bad_alloc&) {
            exhausted = true;
        }
    }
    REQUIRE(exhausted);
    REQUIRE(s.validate());
    REQUIRE(s.rank("member:150").has_value());
}

TEST_CASE("set operations allocate from the first input's allocator", "[allocators]") {
    arena_stats first, second;
    using aset = tracked_set<false>;
    using alloc = tracking_allocator<std::string, false>;
    aset a{zset::options{}, alloc{&first}}, b{zset::options{}, alloc{&second}};
    fill(a, 300);
    fill(b, 200);
    const std::size_t before_second = second.allocations;
    const std::size_t before_first = first.allocations;
    {
        const aset u = zset::set_union<aset>(std::vector<const aset*>{nullptr, &a, &b});
        REQUIRE(u.size() == 300);
        REQUIRE(u.get_allocator() == alloc(&first));
        REQUIRE(second.allocations == before_second);  // a is the first sorted input, not b
        const std::size_t after_union = first.allocations;
        const aset d = zset::set_difference<aset>(std::vector<const aset*>{&b, &a});
        REQUIRE(d.empty());
        REQUIRE(d.get_allocator() == alloc(&second));
        // the difference's working vectors come from b's allocator, none from a's
        REQUIRE(second.allocations > before_second);
        REQUIRE(first.allocations == after_union);
    }
    REQUIRE(first.allocations > before_first);
    // no input at all: the allocator has no default constructor, so there is nothing to build with
    REQUIRE_THROWS_AS(zset::set_union<aset>(std::vector<const aset*>{nullptr}), zset::error);
    REQUIRE(zset::intersection_cardinality<aset>(std::vector<const aset*>{nullptr, &a}) == 0);
}

TEST_CASE("a set built from empty copies its blocks rarely", "[allocators]") {
    // Members in random score order: each insert lands anywhere in its block. Grown by 1/16
    // alone, a small listpack block was copied on nearly every insert (43 allocations to 100
    // members here), and a block's positions and area ran out separately, each costing a copy
    // (309 allocations to 1,000 members here).
    const auto build = [](int n) {
        arena_stats arena;
        tracked_set<true> s(zset::options{}, tracking_allocator<std::string, true>(&arena));
        std::uint64_t x = 12345;
        for (int i = 0; i < n; ++i) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            s.add("member:" + std::to_string(i), static_cast<double>(x >> 11));
        }
        REQUIRE(s.size() == static_cast<std::size_t>(n));
        REQUIRE(s.validate());
        return arena.allocations;
    };
    CHECK(build(100) <= 20);
    CHECK(build(1000) <= 220);
}

TEST_CASE("adds up to a reservation grow neither the listpack block nor the index",
          "[allocators]") {
    SECTION("listpack mode: 100 members of up to 16 bytes, no allocation after reserve") {
        arena_stats arena;
        tracked_set<true> s(zset::options{}, tracking_allocator<std::string, true>(&arena));
        s.reserve(100);
        REQUIRE(s.encoding() == zset::encoding::listpack);
        const std::size_t reserved = arena.allocations;
        for (int i = 0; i < 100; ++i)
            s.add("member:" + std::to_string(i), static_cast<double>((i * 37) % 100));
        CHECK(arena.allocations == reserved);  // 16 without the reservation
        REQUIRE(s.validate());
    }
    SECTION("skiplist mode: 5,000 members, no allocation the size of the index") {
        arena_stats arena;
        tracked_set<true> s(zset::options{}, tracking_allocator<std::string, true>(&arena));
        s.reserve(5000);
        REQUIRE(s.encoding() == zset::encoding::skiplist);
        const std::size_t index_bytes = arena.largest;  // 9 bytes a slot, ~5,700 slots
        REQUIRE(index_bytes >= 5000 * 9);
        arena.largest = 0;
        std::uint64_t x = 99;
        for (int i = 0; i < 5000; ++i) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            s.add("member:" + std::to_string(i), static_cast<double>(x >> 11));
        }
        // blocks of 128 short records and the node pool stay far below the index: without
        // the reservation the index is reallocated on the way, the last time at full size
        CHECK(arena.largest < index_bytes / 4);
        REQUIRE(s.size() == 5000);
        REQUIRE(s.validate());
    }
}

namespace {

/// Rounds every request up to a size class as jemalloc does (16-byte steps to 128 bytes, then
/// four classes a doubling), and says so through allocate_at_least when `Says` is true.
struct class_arena {
    struct held {
        const void* ptr;
        std::size_t class_bytes;    // what the allocation holds
        std::size_t counted_bytes;  // what its owner was told: asked, or given by at_least
    };
    std::size_t class_bytes = 0;       // held by live allocations
    std::size_t counted_bytes = 0;     // their owners' count
    std::size_t allocations = 0;       // calls that allocated
    std::size_t mismatched_frees = 0;  // deallocate calls with another count than the owner's
    std::vector<held> live;
};

std::size_t size_class(std::size_t bytes) {
    if (bytes <= 16) return 16;
    if (bytes <= 128) return (bytes + 15) / 16 * 16;
    std::size_t low = 128;
    while (low * 2 < bytes) low *= 2;
    const std::size_t step = low / 4;
    return (bytes + step - 1) / step * step;
}

template <class T, bool Says>
struct class_allocator {
    using value_type = T;
    using is_always_equal = std::false_type;
    template <class U>
    struct rebind {
        using other = class_allocator<U, Says>;
    };
    struct allocation {
        T* ptr;
        std::size_t count;
    };

    class_arena* arena;
    explicit class_allocator(class_arena* a) noexcept : arena(a) {}
    template <class U>
    class_allocator(const class_allocator<U, Says>& o) noexcept : arena(o.arena) {}

    T* allocate(std::size_t n) { return take(n * sizeof(T), n * sizeof(T)); }
    template <bool S = Says, std::enable_if_t<S, int> = 0>
    allocation allocate_at_least(std::size_t n) {
        const std::size_t count = size_class(n * sizeof(T)) / sizeof(T);
        return {take(n * sizeof(T), count * sizeof(T)), count};
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const auto it = std::find_if(arena->live.begin(), arena->live.end(),
                                     [p](const class_arena::held& h) { return h.ptr == p; });
        if (it == arena->live.end() || it->counted_bytes != n * sizeof(T))
            ++arena->mismatched_frees;
        if (it != arena->live.end()) {
            arena->class_bytes -= it->class_bytes;
            arena->counted_bytes -= it->counted_bytes;
            arena->live.erase(it);
        }
        ::operator delete(p);
    }
    template <class U>
    bool operator==(const class_allocator<U, Says>& o) const noexcept {
        return arena == o.arena;
    }
    template <class U>
    bool operator!=(const class_allocator<U, Says>& o) const noexcept {
        return arena != o.arena;
    }

private:
    T* take(std::size_t asked, std::size_t counted) {
        const std::size_t bytes = size_class(asked);
        T* p = static_cast<T*>(::operator new(bytes));
        arena->class_bytes += bytes;
        arena->counted_bytes += counted;
        ++arena->allocations;
        arena->live.push_back({p, bytes, counted});
        return p;
    }
};

template <bool Says>
using class_set = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                                   std::less<>, class_allocator<std::string, Says>>;

/// Builds a set of n members "user:<8 digits>" with random scores, erases every third, and
/// returns its contents.
template <bool Says>
std::vector<std::pair<std::string, double>> build_in_classes(class_set<Says>& s, int n) {
    std::uint64_t x = 7;
    for (int i = 0; i < n; ++i) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        const std::string m = "user:" + std::to_string(10000000 + (x >> 40) % 90000000);
        s.add(m, static_cast<double>(x >> 11) / 1e6);
    }
    std::vector<std::string> members;
    for (const auto& e : s) members.emplace_back(e.member);
    for (std::size_t i = 0; i < members.size(); i += 3) s.erase(members[i]);
    std::vector<std::pair<std::string, double>> out;
    for (const auto& e : s) out.emplace_back(e.member, e.score);
    return out;
}

}  // namespace

TEST_CASE("an allocator that gives more than asked: the set uses the bytes it is given",
          "[allocators]") {
    // Redis's allocator (jemalloc) rounds a request up to its size class; the module's
    // allocator reports the class through allocate_at_least, and blocks grow into it.
    for (const int n : {10, 100, 129, 1000, 20000}) {
        CAPTURE(n);
        class_arena exact_arena;
        class_arena given_arena;
        {
            class_set<false> exact(zset::options{},
                                   class_allocator<std::string, false>(&exact_arena));
            class_set<true> given(zset::options{},
                                  class_allocator<std::string, true>(&given_arena));
            const auto exact_contents = build_in_classes(exact, n);
            const auto given_contents = build_in_classes(given, n);
            REQUIRE(given_contents == exact_contents);
            REQUIRE(given.validate());
            REQUIRE(given.encoding() == exact.encoding());
            // every byte given is counted, and the classes hold no more than the exact set's
            CHECK(given_arena.counted_bytes + sizeof(given) == given.memory_usage());
            CHECK(given_arena.class_bytes <= exact_arena.class_bytes);
            // the room a class gives is used before a block is copied again
            CHECK(given_arena.allocations <= exact_arena.allocations);
            if (n >= 1000) CHECK(given_arena.allocations < exact_arena.allocations);
            given.shrink_to_fit();
            REQUIRE(given.validate());
            REQUIRE(std::equal(given.begin(), given.end(), exact.begin(), exact.end(),
                               [](const auto& a, const auto& b) {
                                   return a.member == b.member && a.score == b.score;
                               }));
        }
        // each block goes back with the count it was given
        CHECK(given_arena.mismatched_frees == 0);
        CHECK(exact_arena.mismatched_frees == 0);
        CHECK(given_arena.class_bytes == 0);
    }
}
