// bench/probes: an allocator that records what a container asks for, for the probes' byte
// counts: every live allocation with its size (g_live), and every allocation's size in order
// (g_allocations); and the jemalloc size class those bytes take in redis-server.
// Single-threaded, as the probes are.
// SPDX-License-Identifier: MIT
#ifndef ZSET_BENCH_PROBES_COUNTING_ALLOCATOR_HPP
#define ZSET_BENCH_PROBES_COUNTING_ALLOCATOR_HPP

#include <cstddef>
#include <map>
#include <new>
#include <type_traits>
#include <vector>

namespace probe {

/// jemalloc 5's size class for n bytes (16-byte quantum, four classes a doubling from 128 up).
inline std::size_t jemalloc_class(std::size_t n) {
    if (n <= 8) return 8;
    if (n <= 128) return (n + 15) / 16 * 16;
    std::size_t pow = 128;
    while (pow * 2 < n) pow *= 2;
    const std::size_t step = pow / 4;
    return (n + step - 1) / step * step;
}

inline std::map<void*, std::size_t> g_live;     // pointer -> bytes asked
inline std::vector<std::size_t> g_allocations;  // every allocation's size, in order

template <class T>
struct counting_allocator {
    using value_type = T;
    using is_always_equal = std::true_type;
    counting_allocator() noexcept = default;
    template <class U>
    counting_allocator(const counting_allocator<U>&) noexcept {}  // NOLINT: converting
    T* allocate(std::size_t n) {
        void* p = ::operator new(n * sizeof(T));
        g_live[p] = n * sizeof(T);
        g_allocations.push_back(n * sizeof(T));
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept {
        g_live.erase(p);
        ::operator delete(p);
    }
    template <class U>
    friend bool operator==(const counting_allocator&, const counting_allocator<U>&) noexcept {
        return true;
    }
    template <class U>
    friend bool operator!=(const counting_allocator&, const counting_allocator<U>&) noexcept {
        return false;
    }
};

}  // namespace probe

#endif  // ZSET_BENCH_PROBES_COUNTING_ALLOCATOR_HPP
