// The 16-bit scanning primitives of include/zset/detail/container/scan.hpp against plain loops:
// every length around the 8-, 16-, 64- and 128-value step boundaries, matches anywhere, early
// stops.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/scan.hpp>

namespace {

/// A find_u16_match predicate: accepts the indexes in `accepted`, records every call.
struct acceptor {
    std::vector<bool> accepted;
    std::vector<std::size_t> calls;
    bool operator()(std::size_t i) {
        calls.push_back(i);
        return i < accepted.size() && accepted[i];
    }
};

/// n fingerprints around the needle 5 (`kinds` values from 4, some with a high byte set, which
/// must not match), then scan_slack bytes of needles: a scan must not report those.
std::vector<std::uint16_t> fingerprints_around_five(std::mt19937& rng, std::size_t n,
                                                    unsigned kinds) {
    std::vector<std::uint16_t> values(n + zset::detail::scan_slack / 2, 5);
    for (std::size_t i = 0; i < n; ++i)
        values[i] = static_cast<std::uint16_t>((rng() % 4 == 0 ? 0x100u : 0u) + rng() % kinds + 4);
    return values;
}

}  // namespace

TEST_CASE("find_u16_match returns the first accepted match or no_match", "[scan_primitives]") {
    std::mt19937 rng(7);
    for (std::size_t n = 0; n <= 300; ++n) {
        for (int round = 0; round < 6; ++round) {
            const std::vector<std::uint16_t> values =
                fingerprints_around_five(rng, n, round < 2 ? 2 : 64);
            // accepted: a random part of the indexes (none in rounds 0 and 2)
            acceptor accept;
            accept.accepted.assign(n, false);
            for (std::size_t i = 0; i < n; ++i)
                accept.accepted[i] = round % 2 == 1 && rng() % 3 == 0;
            std::size_t expected = zset::detail::no_match;
            for (std::size_t i = 0; i < n && expected == zset::detail::no_match; ++i)
                if (values[i] == 5 && accept.accepted[i]) expected = i;
            INFO("n = " << n << ", round " << round);
            REQUIRE(zset::detail::find_u16_match(values.data(), n, 5, accept) == expected);
            for (const std::size_t i : accept.calls) {  // asked only about matches
                REQUIRE(i < n);
                REQUIRE(values[i] == 5);
            }
            // every match before the result was asked about
            for (std::size_t i = 0; i < std::min(n, expected); ++i)
                if (values[i] == 5)
                    REQUIRE(std::find(accept.calls.begin(), accept.calls.end(), i) !=
                            accept.calls.end());
        }
    }
}

TEST_CASE("match_u16x128 marks every equal value; the first match and the rest split it",
          "[scan_primitives]") {
    std::mt19937 rng(5);
    for (std::size_t n = 0; n <= 128; ++n) {
        for (int round = 0; round < 4; ++round) {
            const std::vector<std::uint16_t> values =
                fingerprints_around_five(rng, n, round == 0 ? 2 : 40);
            INFO("n = " << n << ", round " << round);
            const zset::detail::byte_matches m = zset::detail::match_u16x128(values.data(), n, 5);
            std::vector<std::size_t> expected;
            for (std::size_t i = 0; i < n; ++i)
                if (values[i] == 5) expected.push_back(i);
            std::vector<std::size_t> marked;
            for (std::size_t i = 0; i < 128; ++i)
                if (((i < 64 ? m.low >> i : m.high >> (i - 64)) & 1u) != 0) marked.push_back(i);
            REQUIRE(marked == expected);
            REQUIRE(m.any() == !expected.empty());
            if (expected.empty()) continue;
            REQUIRE(zset::detail::first_match(m) == expected[0]);
            // dropping the first match leaves the others, which first_accepted visits in order
            const zset::detail::byte_matches rest = zset::detail::without_first_match(m);
            acceptor none;
            REQUIRE(zset::detail::first_accepted(rest, 1000, none) == zset::detail::no_match);
            std::vector<std::size_t> others(expected.begin() + 1, expected.end());
            for (std::size_t& i : others) i += 1000;
            REQUIRE(none.calls == others);
        }
    }
}

// For 64 < n <= 128 match_u16x128 reads no value past n (its last four loads end at n): the
// array has no slack there, so an overread shows under ASan and valgrind, and a miscounted
// overlap between its two halves shows as a missing or doubled match.
TEST_CASE("match_u16x128 reads exactly [0, n) above 64 values", "[scan_primitives]") {
    std::mt19937 rng(9);
    for (std::size_t n = 65; n <= 128; ++n) {
        std::vector<std::uint16_t> values(n);
        for (std::uint16_t& v : values) v = static_cast<std::uint16_t>(rng() % 8 + 0x300);
        for (std::uint16_t v = 0x300; v <= 0x308; ++v) {  // 0x308: never present
            INFO("n = " << n << ", value " << v);
            const zset::detail::byte_matches m = zset::detail::match_u16x128(values.data(), n, v);
            for (std::size_t i = 0; i < 128; ++i) {
                const bool marked = ((i < 64 ? m.low >> i : m.high >> (i - 64)) & 1u) != 0;
                REQUIRE(marked == (i < n && values[i] == v));
            }
        }
    }
}

// find_u16_fixed_work reads no value past n for 8 <= n <= 128 (its loads are clamped or, above
// 64 values, end at n), so there its array has no slack: an overread shows under ASan and
// valgrind. Other n go to find_u16, which needs the slack.
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

TEST_CASE("move_bytes moves like memmove, overlapping either way, and touches nothing else",
          "[scan_primitives]") {
    std::mt19937 rng(11);
    for (std::size_t n = 0; n <= 48; ++n) {
        for (std::ptrdiff_t shift : {-9, -7, -1, 0, 1, 7, 9, 64}) {
            std::vector<unsigned char> buffer(160), expected;
            for (auto& b : buffer) b = static_cast<unsigned char>(rng());
            expected = buffer;
            const std::size_t from = 40;
            const auto to = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(from) + shift);
            std::memmove(expected.data() + to, expected.data() + from, n);
            zset::detail::move_bytes(buffer.data() + to, buffer.data() + from, n);
            INFO("n " << n << " shift " << shift);
            CHECK(buffer == expected);
        }
    }
}

TEST_CASE("shift_u16_up moves [from, to) up one slot, adds to each, keeps every other value",
          "[scan_primitives]") {
    std::mt19937 rng(13);
    for (std::size_t from = 0; from <= 9; ++from) {
        for (std::size_t to = from; to <= from + 40; ++to) {
            for (std::uint16_t add : {std::uint16_t{0}, std::uint16_t{0xff00}}) {
                // 16 readable bytes after p[to], as callers keep
                std::vector<std::uint16_t> values(to + 1 + 8), expected;
                for (auto& v : values) v = static_cast<std::uint16_t>(rng());
                expected = values;
                for (std::size_t i = to; i != from; --i)
                    expected[i] = static_cast<std::uint16_t>(expected[i - 1] + add);
                zset::detail::shift_u16_up(values.data(), from, to, add);
                INFO("from " << from << " to " << to << " add " << add);
                CHECK(values == expected);
            }
        }
    }
}
