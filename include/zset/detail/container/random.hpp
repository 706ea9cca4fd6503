// zset::detail random draws for ZRANDMEMBER: a uniform integer below n and a shuffle, from any
// uniform random bit generator (std::mt19937_64, std::minstd_rand, a user's own).
// SPDX-License-Identifier: MIT
//
// Why not <random> (std::uniform_int_distribution) and std::shuffle: <random> is one of the
// largest standard headers (a noticeable share of the time g++ takes to parse a TU using the
// container), which every translation unit would parse for one function that most programs
// never call (docs/benchmarks.md, "Compile time"). A caller of random_members already has its
// generator's header.
#ifndef ZSET_DETAIL_CONTAINER_RANDOM_HPP
#define ZSET_DETAIL_CONTAINER_RANDOM_HPP

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace zset {
namespace detail {

/// A value drawn uniformly from [0, n), n >= 1, by rejection (no modulo bias) from any uniform
/// random bit generator, whatever its range: a generator yielding fewer values than n is drawn
/// as digits of a larger number. O(1) expected draws.
template <class URBG>
std::uint64_t uniform_below(URBG& gen, std::uint64_t n) {
    using generator = std::remove_cv_t<URBG>;
    constexpr auto lowest = static_cast<std::uint64_t>(generator::min());
    constexpr std::uint64_t range = static_cast<std::uint64_t>(generator::max()) - lowest;
    static_assert(range > 0, "zset: the random generator must yield at least two values");
    const auto draw = [&gen] { return static_cast<std::uint64_t>(gen()) - lowest; };
    constexpr std::uint64_t all = std::numeric_limits<std::uint64_t>::max();
    if constexpr (range == all) {
        const std::uint64_t rejected = (0 - n) % n;  // 2^64 mod n: the draws below it
        for (;;) {
            const std::uint64_t r = draw();
            if (r >= rejected) return r % n;
        }
    } else {
        constexpr std::uint64_t span = range + 1;  // values per draw
        if (n <= span) {
            const std::uint64_t accepted = span - span % n;
            for (;;) {
                const std::uint64_t r = draw();
                if (r < accepted) return r % n;
            }
        }
        // high * span + low, uniform over [0, highs * span); values from n on are redrawn
        const std::uint64_t highs = (n - 1) / span + 1;
        for (;;) {
            const std::uint64_t high = uniform_below(gen, highs);
            const std::uint64_t low = draw();
            if (high > (all - low) / span) continue;
            const std::uint64_t r = high * span + low;
            if (r < n) return r;
        }
    }
}

/// Shuffles [first, last) (random-access iterators) uniformly: Fisher-Yates.
template <class RandomIt, class URBG>
void shuffle(RandomIt first, RandomIt last, URBG& gen) {
    using std::swap;
    const auto n = static_cast<std::uint64_t>(last - first);
    for (std::uint64_t i = n; i > 1; --i) {
        const std::uint64_t j = uniform_below(gen, i);
        using difference = decltype(last - first);
        swap(first[static_cast<difference>(i - 1)], first[static_cast<difference>(j)]);
    }
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_RANDOM_HPP
