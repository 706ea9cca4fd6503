// The byte and 16-bit scanning primitives of include/zset/detail/scan.hpp against plain loops:
// every length around the 16-, 64- and 128-byte step boundaries, matches anywhere, early stops.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/scan.hpp>

namespace {

/// Positions a visitor saw, stopping (returning true) at the k-th match when stop_at >= 0.
struct recorder {
    std::vector<std::size_t> seen;
    long stop_at = -1;
    bool operator()(std::size_t i) {
        seen.push_back(i);
        return stop_at >= 0 && seen.size() == static_cast<std::size_t>(stop_at) + 1;
    }
};

}  // namespace

TEST_CASE("for_each_byte_match visits every match in order, up to a stop", "[scan_primitives]") {
    std::mt19937 rng(7);
    for (std::size_t n = 0; n <= 300; ++n) {
        for (int round = 0; round < 4; ++round) {
            // readable slack past n, filled with the needle: a scan must not report it
            std::vector<std::uint8_t> bytes(n + zset::detail::scan_slack, 5);
            for (std::size_t i = 0; i < n; ++i)
                bytes[i] = static_cast<std::uint8_t>(rng() % (round == 0 ? 2 : 16) + 4);
            std::vector<std::size_t> expected;
            for (std::size_t i = 0; i < n; ++i)
                if (bytes[i] == 5) expected.push_back(i);
            recorder all;
            REQUIRE_FALSE(zset::detail::for_each_byte_match(bytes.data(), n, 5, all));
            REQUIRE(all.seen == expected);
            if (expected.empty()) continue;
            recorder some;
            some.stop_at = static_cast<long>(rng() % expected.size());
            REQUIRE(zset::detail::for_each_byte_match(bytes.data(), n, 5, some));
            REQUIRE(some.seen.size() == static_cast<std::size_t>(some.stop_at) + 1);
            REQUIRE(std::equal(some.seen.begin(), some.seen.end(), expected.begin()));
        }
    }
}

// find_u16_fixed_work reads no value past n for 8 <= n <= 128 (its loads are clamped), so there
// its array has no slack: an overread shows under ASan and valgrind. Other n go to find_u16,
// which needs the slack.
TEST_CASE("find_u16 and find_u16_fixed_work find the first equal value or return n",
          "[scan_primitives]") {
    std::mt19937 rng(11);
    for (std::size_t n = 0; n <= 200; ++n) {
        std::vector<std::uint16_t> values(n + zset::detail::scan_slack / 2, 9);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint16_t>(rng() % 12);
        for (std::uint16_t v = 0; v <= 12; ++v) {  // 12: never present
            std::size_t first = n;
            for (std::size_t i = 0; i < n; ++i)
                if (values[i] == v) {
                    first = i;
                    break;
                }
            REQUIRE(zset::detail::find_u16(values.data(), n, v) == first);
            const bool clamped = n >= 8 && n <= 128;
            const std::vector<std::uint16_t> exact(values.begin(),
                                                   values.begin() + static_cast<std::ptrdiff_t>(n));
            REQUIRE(zset::detail::find_u16_fixed_work(clamped ? exact.data() : values.data(), n,
                                                      v) == first);
        }
    }
}
