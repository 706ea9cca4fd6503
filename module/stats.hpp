// zset module — what the module's sorted sets hold, for its INFO section (INFO zset): how many
// keys, elements and bytes.
// SPDX-License-Identifier: MIT
//
// The counters change where values are made and freed (value.hpp), where the allocator
// gives and takes memory (redis_allocator), and where a command changes a set's size
// (command_context.hpp). A value may be freed on Redis's lazy-free thread: the counters are
// atomic, updated with relaxed order (each is a tally, read alone).
#ifndef ZSET_MODULE_STATS_HPP
#define ZSET_MODULE_STATS_HPP

#include <atomic>
#include <cstddef>

namespace zset::module {

struct module_stats {
    std::atomic<long long> keys{0};      ///< values alive (one per module key)
    std::atomic<long long> elements{0};  ///< their members, all together
    std::atomic<long long> bytes{0};     ///< bytes allocated for them through Redis's allocator

    static void add(std::atomic<long long>& counter, long long delta) noexcept {
        counter.fetch_add(delta, std::memory_order_relaxed);
    }
    static unsigned long long read(const std::atomic<long long>& counter) noexcept {
        const long long v = counter.load(std::memory_order_relaxed);
        return v < 0 ? 0 : static_cast<unsigned long long>(v);
    }
};

/// The one instance.
inline module_stats& stats() noexcept {
    static module_stats s;
    return s;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_STATS_HPP
