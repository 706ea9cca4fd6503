// Probe: what the width of the probed array costs a random miss once the array outgrows the
// caches, outside the suite and without any index logic. Each lookup hashes a pooled member
// name and reads one SIMD step at its home slot in an array of random bytes: 16 bytes from a
// 1-byte-a-slot array of 2^24 slots (absl::flat_hash_map's control bytes at 10^7 members),
// 32 bytes from a 2-byte-a-slot array of 1.15 * 10^7 slots (zset's keys at 10^7), 16 bytes from
// the same, and 64 bytes from a 4-byte-a-slot array of as many slots (zset's former tags).
// Prints ns per lookup, four rounds:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/probe_width.cpp
//       -o /tmp/probe_width
//   /tmp/probe_width
//
// Figures: docs/benchmarks.md and detail/hash_index.hpp, "Why 2-byte keys".
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"

namespace {

/// ns per lookup reading `bytes_read` bytes at the home slot of an array of `slots` slots of
/// `slot_bytes` bytes each.
double probe(const std::vector<std::string>& names, std::size_t slots, std::size_t slot_bytes,
             std::size_t bytes_read) {
    std::vector<unsigned char> table(slots * slot_bytes + 64);
    zbench::rng draw(7);
    for (auto& c : table) c = static_cast<unsigned char>(draw.next());
    constexpr std::size_t lookups = 10000000;
    std::uint64_t found = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t q = 0; q < lookups; ++q) {
        const std::string& name = names[q % names.size()];
        const std::uint64_t hash = std::hash<std::string_view>{}(name);
        const std::size_t home = static_cast<std::size_t>(((hash >> 32) * slots) >> 32);
        const unsigned char* at = table.data() + home * slot_bytes;
        for (std::size_t i = 0; i < bytes_read; i += 16) {
            std::uint64_t word[2];
            std::memcpy(word, at + i, sizeof word);
            found += (word[0] ^ hash) == 0 || (word[1] ^ hash) == 0 ? 1 : 0;
        }
    }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    if (found == 12345) std::puts("");
    return took.count() / lookups;
}

}  // namespace

int main() {
    std::vector<std::string> names;
    for (std::uint64_t i = 0; i < 65536; ++i)
        names.push_back(zbench::member_name(20000000 + i * 97));
    for (int round = 0; round < 4; ++round)
        std::printf("1 B/slot x16: %5.1f   2 B/slot x16: %5.1f   2 B/slot x8: %5.1f   "
                    "4 B/slot x16: %5.1f ns\n",
                    probe(names, std::size_t{1} << 24, 1, 16), probe(names, 11500000, 2, 32),
                    probe(names, 11500000, 2, 16), probe(names, 11500000, 4, 64));
}
