// Where a small module key's bytes go: the allocations a listpack-mode zset::sorted_set makes
// for a set of n short members with integral scores, as the module builds it (one add per pair:
// ZADD runs s.add(member, score) for each pair), with the set type the module stores
// (module/value.hpp's `value`, here over a counting allocator instead of
// RedisModule_Alloc). For each live allocation: the bytes asked, jemalloc's size class (what
// redis-server's used_memory counts: zmalloc adds the usable size), and for the block its
// header fields (capacity, area, used) read from the block itself.
//
// Build and run (no CMake target: a measurement aid for issue 64):
//   g++ -std=c++17 -O2 -DNDEBUG -I include bench/probes/shapes_probe.cpp -o build/shapes_probe
//   (-DNDEBUG as the module: without it the set carries checked mode's counter, 8 bytes)
//   build/shapes_probe            # the breakdown of 10 and 100 members
//   build/shapes_probe --keys < keys.tsv   # block bytes of each key (shapes_estimate.py)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "counting_allocator.hpp"
#include <zset/sorted_set.hpp>

namespace {

using probe::counting_allocator;
using probe::g_allocations;
using probe::g_live;
using probe::jemalloc_class;

using value = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                               std::less<>, counting_allocator<std::string>>;

struct header_fields {
    std::uint32_t node, units;
    std::uint16_t size, capacity, used, area, garbage, holes;
};

void report(const char* what, const value& s) {
    std::size_t asked = 0, classed = 0;
    std::printf("%s: size %zu, sizeof(value) %zu (class %zu), memory_usage() %zu\n", what, s.size(),
                sizeof(value), jemalloc_class(sizeof(value)), s.memory_usage());
    for (const auto& [p, n] : g_live) {
        header_fields h{};
        std::memcpy(&h, p, sizeof h);
        asked += n;
        classed += jemalloc_class(n);
        std::printf("  live allocation %zu bytes (jemalloc class %zu): block header says size %u, "
                    "capacity %u, area %u, used %u, garbage %u\n",
                    n, jemalloc_class(n), h.size, h.capacity, h.area, h.used, h.garbage);
    }
    std::printf("  total asked %zu, in classes %zu; with the value object: %zu\n", asked, classed,
                classed + jemalloc_class(sizeof(value)));
}

void one_by_one(int n, const char* prefix, bool integral) {
    g_live.clear();
    g_allocations.clear();
    {
        value s;
        for (int j = 0; j < n; ++j)
            s.add(std::string(prefix) + std::to_string(j), integral ? double(j) : j * 1.5);
        char what[128];
        std::snprintf(what, sizeof what, "%d members %s<j>, one add each", n, prefix);
        report(what, s);
        std::printf("  allocations in order:");
        for (std::size_t a : g_allocations) std::printf(" %zu", a);
        std::printf("\n");
        s.shrink_to_fit();
        report("  after shrink_to_fit", s);
        value t;
        std::vector<std::pair<std::string, double>> pairs;
        for (int j = 0; j < n; ++j) pairs.emplace_back(std::string(prefix) + std::to_string(j), j);
        g_live.clear();
        t.add(pairs.begin(), pairs.end());
        report("  the same pairs in one batch add (the C++ API; the module adds one by one)", t);
    }
}

/// --keys: reads keys from stdin, one "member<TAB>score" line an element and an empty line after
/// each key, builds each as the module does (one add a pair) and prints a line a key: the
/// block's bytes asked and their jemalloc class (bench/shapes_estimate.py feeds it).
int keys_from_stdin() {
    std::string line;
    value s;
    const auto flush = [&] {
        if (s.empty()) return;
        std::size_t asked = 0;
        for (const auto& [p, n] : g_live) asked += n;
        std::printf("%zu %zu\n", asked, jemalloc_class(asked));
        s.clear();
        g_live.clear();
    };
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            flush();
            continue;
        }
        const auto tab = line.find('\t');
        s.add(line.substr(0, tab), std::stod(line.substr(tab + 1)));
    }
    flush();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--keys") return keys_from_stdin();
    one_by_one(10, "u", true);
    one_by_one(100, "m", true);
    one_by_one(100, "user:1234567", true);  // 13-14 byte members
    return 0;
}
