// zset module — the value stored under a module key: a zset::sorted_set whose memory comes from
// Redis's allocator.
// SPDX-License-Identifier: MIT
//
// Memory given by RedisModule_Alloc is counted in INFO's used_memory, MEMORY STATS and against
// maxmemory, as Redis counts its own sorted sets; std::allocator's would be invisible to them.
// RedisModule_Alloc never returns null (Redis aborts on out-of-memory, as for its own types), and
// RedisModule_Free is safe from Redis's lazy-free thread, which frees big values off the main
// thread (see free_effort in type.hpp).
#ifndef ZSET_MODULE_VALUE_HPP
#define ZSET_MODULE_VALUE_HPP

#include <cstddef>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "redis_module_api.hpp"
#include "stats.hpp"
#include <zset/sorted_set.hpp>

namespace zset::module {

/// A stateless allocator over RedisModule_Alloc / RedisModule_Free.
template <class T>
struct redis_allocator {
    using value_type = T;
    using is_always_equal = std::true_type;

    redis_allocator() noexcept = default;
    template <class U>
    redis_allocator(const redis_allocator<U>&) noexcept {}  // NOLINT: converting, as allocators are

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        module_stats::add(stats().bytes, static_cast<long long>(n * sizeof(T)));
        return static_cast<T*>(rmapi::Alloc(n * sizeof(T)));
    }
    /// What allocate_at_least() gives: the memory and the objects it holds.
    struct allocation {
        T* ptr;
        std::size_t count;
    };
    /// Memory for at least n objects, and how many the allocation's size class holds (a
    /// sorted set's blocks use them all; zset/detail/container/allocate_at_least.hpp).
    allocation allocate_at_least(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        void* p = rmapi::Alloc(n * sizeof(T));
        const std::size_t usable =
            rmapi::MallocUsableSize != nullptr ? rmapi::MallocUsableSize(p) : n * sizeof(T);
        const std::size_t count = usable / sizeof(T) < n ? n : usable / sizeof(T);
        module_stats::add(stats().bytes, static_cast<long long>(count * sizeof(T)));
        return {static_cast<T*>(p), count};
    }
    void deallocate(T* p, std::size_t n) noexcept {
        module_stats::add(stats().bytes, -static_cast<long long>(n * sizeof(T)));
        rmapi::Free(p);
    }

    template <class U>
    friend bool operator==(const redis_allocator&, const redis_allocator<U>&) noexcept {
        return true;
    }
    template <class U>
    friend bool operator!=(const redis_allocator&, const redis_allocator<U>&) noexcept {
        return false;
    }
};

/// The sorted set a module key holds.
using value = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                               std::less<>, redis_allocator<std::string>>;

/// A value on Redis's heap, as the server keeps module values (it frees them through the type's
/// free callback), counted in stats(). Throws what value's constructor throws; nothing is
/// leaked then.
template <class... Args>
value* new_value(Args&&... args) {
    void* raw = rmapi::Alloc(sizeof(value));
    value* v = nullptr;
    try {
        v = ::new (raw) value(std::forward<Args>(args)...);
    } catch (...) {
        rmapi::Free(raw);
        throw;
    }
    module_stats::add(stats().keys, 1);
    module_stats::add(stats().elements, static_cast<long long>(v->size()));
    module_stats::add(stats().bytes, static_cast<long long>(sizeof(value)));
    return v;
}

/// Destroys and frees a value made by new_value. Safe off the main thread.
inline void delete_value(value* v) noexcept {
    if (v == nullptr) return;
    module_stats::add(stats().keys, -1);
    module_stats::add(stats().elements, -static_cast<long long>(v->size()));
    module_stats::add(stats().bytes, -static_cast<long long>(sizeof(value)));
    v->~value();
    rmapi::Free(v);
}

}  // namespace zset::module

#endif  // ZSET_MODULE_VALUE_HPP
