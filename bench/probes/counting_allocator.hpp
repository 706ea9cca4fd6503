// bench/probes: an allocator that records what a container asks for, for the probes' byte
// counts: every live allocation with its size (g_live), and every allocation's size in order
// (g_allocations). Single-threaded, as the probes are.
// SPDX-License-Identifier: MIT
#ifndef ZSET_BENCH_PROBES_COUNTING_ALLOCATOR_HPP
#define ZSET_BENCH_PROBES_COUNTING_ALLOCATOR_HPP

#include <cstddef>
#include <map>
#include <new>
#include <type_traits>
#include <vector>

namespace probe {

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
