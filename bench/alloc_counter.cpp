// A counting replacement of the global operator new / delete (for the peers' bytes per element)
// and the thread-CPU clock used by the batch benchmarks.
//
// Every form of operator new allocates with malloc (or aligned_alloc) and every form of delete
// frees with free, whether counting is on or not, so blocks may cross the on/off boundary. While
// counting is on, each allocation is recorded in a side table (pointer -> requested size) that
// itself lives in malloc'ed memory, so sized and unsized deletes are both accounted exactly.
// When counting is off the only extra cost is one predictable branch per call, the same for
// every structure in the binary.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <new>
#include <unordered_map>
#include <vector>

#include "bench_support.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace zbench {

bool g_failed = false;

std::size_t chunk_bytes(void* p) noexcept {
#if defined(__GLIBC__)
    return malloc_usable_size(p) + sizeof(std::size_t);
#else
    (void)p;
    return 0;
#endif
}

double thread_cpu_seconds() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double timer_overhead_seconds() noexcept {
    static const double overhead = [] {
        std::vector<double> samples;
        samples.reserve(2001);
        for (int i = 0; i < 2001; ++i) {
            const double t0 = thread_cpu_seconds();
            const double t1 = thread_cpu_seconds();
            samples.push_back(t1 - t0);
        }
        std::nth_element(samples.begin(), samples.begin() + 1000, samples.end());
        return samples[1000];
    }();
    return overhead;
}

namespace {

template <class T>
struct malloc_allocator {
    using value_type = T;
    malloc_allocator() = default;
    template <class U>
    malloc_allocator(const malloc_allocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        void* p = std::malloc(n * sizeof(T));
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }
    template <class U>
    bool operator==(const malloc_allocator<U>&) const noexcept {
        return true;
    }
    template <class U>
    bool operator!=(const malloc_allocator<U>&) const noexcept {
        return false;
    }
};

using block_table = std::unordered_map<void*, std::size_t, std::hash<void*>, std::equal_to<void*>,
                                       malloc_allocator<std::pair<void* const, std::size_t>>>;

struct counter_state {
    bool counting = false;
    bool inside = false;  // re-entrancy guard (the table never uses operator new, but be safe)
    heap_counts counts;
    block_table* table = nullptr;
};

counter_state& state() noexcept {
    static counter_state s;  // trivially destructible members only: safe at exit
    return s;
}

void record(void* p, std::size_t n) noexcept {
    counter_state& s = state();
    if (!s.counting || s.inside || p == nullptr) return;
    s.inside = true;
    try {
        s.table->emplace(p, n);
        s.counts.requested += n;
        s.counts.chunk += chunk_bytes(p);
        ++s.counts.blocks;
    } catch (...) {
    }
    s.inside = false;
}

void forget(void* p) noexcept {
    counter_state& s = state();
    if (!s.counting || s.inside || p == nullptr) return;
    const auto it = s.table->find(p);
    if (it == s.table->end()) return;
    s.counts.requested -= it->second;
    s.counts.chunk -= chunk_bytes(p);
    --s.counts.blocks;
    s.table->erase(it);
}

void* allocate(std::size_t n) {
    for (;;) {
        if (void* p = std::malloc(n == 0 ? 1 : n)) {
            record(p, n);
            return p;
        }
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}

void* allocate_aligned(std::size_t n, std::align_val_t al) {
    const auto align = std::max(static_cast<std::size_t>(al), sizeof(void*));
    for (;;) {
        void* p = nullptr;
        if (posix_memalign(&p, align, n == 0 ? 1 : n) == 0) {
            record(p, n);
            return p;
        }
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}

void release(void* p) noexcept {
    forget(p);
    std::free(p);
}

}  // namespace

namespace global_heap {

void start() noexcept {
    counter_state& s = state();
    s.counting = false;
    if (s.table == nullptr) {
        void* mem = std::malloc(sizeof(block_table));
        if (mem == nullptr) std::abort();
        s.table = ::new (mem) block_table();
    }
    s.table->clear();
    s.counts = heap_counts{};
    s.counting = true;
}

heap_counts now() noexcept {
    return state().counts;
}

void stop() noexcept {
    counter_state& s = state();
    s.counting = false;
    if (s.table != nullptr) {
        s.table->~block_table();
        std::free(s.table);
        s.table = nullptr;
    }
}

}  // namespace global_heap
}  // namespace zbench

// ---- the replaceable global allocation functions ----------------------------------------------

void* operator new(std::size_t n) {
    return zbench::allocate(n);
}
void* operator new[](std::size_t n) {
    return zbench::allocate(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return zbench::allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return zbench::allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t n, std::align_val_t al) {
    return zbench::allocate_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al) {
    return zbench::allocate_aligned(n, al);
}
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
    try {
        return zbench::allocate_aligned(n, al);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
    try {
        return zbench::allocate_aligned(n, al);
    } catch (...) {
        return nullptr;
    }
}

void operator delete(void* p) noexcept {
    zbench::release(p);
}
void operator delete[](void* p) noexcept {
    zbench::release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    zbench::release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    zbench::release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    zbench::release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    zbench::release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    zbench::release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    zbench::release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    zbench::release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    zbench::release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    zbench::release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    zbench::release(p);
}
