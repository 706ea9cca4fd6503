// zset::detail::uniform_below and detail::shuffle (include/zset/detail/container/random.hpp), which
// random_members (ZRANDMEMBER) draws with instead of <random>: uniform for any generator range,
// including ranges that are not a power of two and ranges smaller than the bound.
#include <cstdint>
#include <random>
#include <vector>

#include "zset_catch.hpp"
#include <zset/sorted_set.hpp>

namespace {

/// A generator of the seven values 3..9: fewer values than most bounds asked of it.
struct seven_values {
    using result_type = unsigned char;
    static constexpr result_type min() { return 3; }
    static constexpr result_type max() { return 9; }
    result_type operator()() {
        for (;;) {  // 7 * 2^29 < 2^32: reject the top to stay exactly uniform
            const auto r = static_cast<std::uint32_t>(source());
            if (r < 7u * (1u << 29)) return static_cast<result_type>(3 + r % 7);
        }
    }
    std::mt19937 source{12345};
};

/// Draws `draws` values below n; checks the bound and that every count is within 10% of the
/// expected draws / n.
template <class Generator>
void check_uniform(Generator gen, std::uint64_t n, std::size_t draws) {
    std::vector<std::size_t> hits(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < draws; ++i) {
        const std::uint64_t v = zset::detail::uniform_below(gen, n);
        REQUIRE(v < n);
        ++hits[static_cast<std::size_t>(v)];
    }
    const double expected = static_cast<double>(draws) / static_cast<double>(n);
    for (std::size_t c : hits) {
        CHECK(static_cast<double>(c) > 0.9 * expected);
        CHECK(static_cast<double>(c) < 1.1 * expected);
    }
}

}  // namespace

TEST_CASE("uniform_below is uniform whatever the generator's range", "[random]") {
    check_uniform(std::mt19937_64(1), 10, 200000);   // 2^64 values
    check_uniform(std::mt19937(2), 10, 200000);      // 2^32 values
    check_uniform(std::minstd_rand(3), 10, 200000);  // 2^31 - 2 values: not a power of two
    check_uniform(seven_values(), 5, 100000);        // bound below the range
    check_uniform(seven_values(), 1000, 2000000);    // bound beyond the range: three digits
    std::mt19937_64 gen(4);
    REQUIRE(zset::detail::uniform_below(gen, 1) == 0);
    const std::uint64_t huge = ~std::uint64_t{0} - 1;
    seven_values small;
    for (int i = 0; i < 100; ++i) REQUIRE(zset::detail::uniform_below(small, huge) < huge);
}

TEST_CASE("shuffle yields every permutation equally often", "[random]") {
    std::minstd_rand gen(5);
    std::vector<int> counts(27);  // index: a[0] * 9 + a[1] * 3 + a[2]
    for (int i = 0; i < 60000; ++i) {
        int a[3] = {0, 1, 2};
        zset::detail::shuffle(a, a + 3, gen);
        ++counts[static_cast<std::size_t>(a[0] * 9 + a[1] * 3 + a[2])];
    }
    int permutations = 0;
    for (int c : counts) {
        if (c == 0) continue;
        ++permutations;
        CHECK(c > 9000);  // 10000 expected for each of the 6
        CHECK(c < 11000);
    }
    REQUIRE(permutations == 6);
}
