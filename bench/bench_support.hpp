// zset_bench support: deterministic data, the thread-CPU clock used for batch timing, heap
// accounting (a counting allocator for zset, a counting global operator new for the peers) and
// the failure flag that makes the binary exit non-zero when a benchmark detects a wrong result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace zbench {

// ---- deterministic data ---------------------------------------------------------------------
// Scores are a pure function of (stream, index), so bench/redis_memory.py can produce exactly
// the same values: splitmix64's finaliser over stream_seed + (index + 1) * golden, top 53 bits
// as a double in [0, 1).

inline constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;

inline std::uint64_t mix64(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline double unit_double(std::uint64_t bits) noexcept {
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// Seeds of the independent score streams (keep in sync with bench/redis_memory.py).
enum class stream : std::uint64_t {
    main = 0x7a5e7b3e0001ull,     // the scores of member:<i>, i < n
    union_b = 0x7a5e7b3e0002ull,  // the second input of union / intersection
    added = 0x7a5e7b3e0003ull,    // members added by the ZADD-new benchmark
    updates = 0x7a5e7b3e0004ull,  // new scores of the score-update benchmark
    keys = 0x7a5e7b3e0005ull,     // key / bound / permutation choices
};

inline double score_of(stream s, std::uint64_t i) noexcept {
    return unit_double(mix64(static_cast<std::uint64_t>(s) + (i + 1) * golden));
}

inline std::string member_name(std::uint64_t i) {
    return "member:" + std::to_string(i);
}

/// A small deterministic generator (splitmix64).
class rng {
public:
    explicit rng(std::uint64_t seed) noexcept : state_(seed) {}
    std::uint64_t next() noexcept { return mix64(state_ += golden); }
    /// Uniform in [0, n) (modulo bias < 2^-40 for the sizes used here).
    std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
    double unit() noexcept { return unit_double(next()); }

private:
    std::uint64_t state_;
};

// ---- timing -----------------------------------------------------------------------------------

/// CPU time of the calling thread in seconds (CLOCK_THREAD_CPUTIME_ID): the machine is shared,
/// so wall time would charge other processes' time slices to us.
double thread_cpu_seconds() noexcept;

/// The CPU time one back-to-back pair of thread_cpu_seconds() calls adds to a measured interval
/// (median of many samples; measured once). Batch timings subtract it.
double timer_overhead_seconds() noexcept;

// ---- failure flag -----------------------------------------------------------------------------

/// Set when any benchmark detects a wrong result; main() then exits with status 1.
extern bool g_failed;

// ---- heap accounting --------------------------------------------------------------------------

/// glibc's footprint of one allocation: the chunk size, malloc_usable_size(p) + 8.
std::size_t chunk_bytes(void* p) noexcept;

struct heap_counts {
    std::size_t requested = 0;  ///< live bytes requested by the program
    std::size_t chunk = 0;      ///< live bytes including glibc's per-chunk overhead
    std::size_t blocks = 0;     ///< live allocations
};

/// The counting global operator new (bench/alloc_counter.cpp). While counting is on, every
/// allocation through operator new is recorded; frees of recorded blocks are subtracted, frees
/// of blocks allocated while counting was off are ignored.
namespace global_heap {
void start() noexcept;  ///< resets the counts and starts counting
heap_counts now() noexcept;
void stop() noexcept;  ///< stops counting and forgets the recorded blocks
}  // namespace global_heap

/// An allocator that counts through `counts` (used to measure zset through its Allocator
/// parameter). Allocates with malloc, so the global counter does not see these bytes.
template <class T>
class counting_allocator {
public:
    using value_type = T;

    explicit counting_allocator(heap_counts* counts) noexcept : counts_(counts) {}
    template <class U>
    counting_allocator(const counting_allocator<U>& other) noexcept : counts_(other.counts()) {}

    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        void* p = std::malloc(bytes == 0 ? 1 : bytes);
        if (p == nullptr) throw std::bad_alloc();
        counts_->requested += bytes;
        counts_->chunk += chunk_bytes(p);
        ++counts_->blocks;
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        counts_->requested -= n * sizeof(T);
        counts_->chunk -= chunk_bytes(p);
        --counts_->blocks;
        std::free(p);
    }
    heap_counts* counts() const noexcept { return counts_; }

    template <class U>
    bool operator==(const counting_allocator<U>& o) const noexcept {
        return counts_ == o.counts();
    }
    template <class U>
    bool operator!=(const counting_allocator<U>& o) const noexcept {
        return counts_ != o.counts();
    }

private:
    heap_counts* counts_;
};

}  // namespace zbench
