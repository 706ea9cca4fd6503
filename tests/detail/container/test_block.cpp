// zset::detail::block (block.hpp) on its own: its search by (score, member) against
// std::lower_bound at every size from 1 to 33 positions and around the search's step boundaries
// up to 130, with runs of equal scores and keys before, between and after the elements, in
// cached and cold blocks; and transfer(), which moves records into another block (short records
// in one fixed-size copy that may overrun them), with members of every length around that copy's
// width and past the out-of-line length, in blocks whose area ends exactly where their last
// record does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/block.hpp>

namespace {

using string_block = zset::detail::block<double, std::string, std::allocator<std::string>>;
using element = std::pair<double, std::string>;

/// An empty block (no member lookup, as in skiplist mode) with room for `elements` exactly: its
/// area ends where the last of their records would.
string_block empty_block(const std::vector<element>& elements) {
    std::size_t units = 0;
    for (const element& e : elements) units += string_block::units_for(e.second);
    return string_block::create(std::allocator<std::string>(),
                                std::max<std::size_t>(elements.size(), 1), units, false);
}

/// empty_block(elements), holding them in order.
string_block make_block(const std::vector<element>& elements) {
    const std::allocator<std::string> alloc;
    string_block b = empty_block(elements);
    for (const element& e : elements)
        b.link(b.size(), b.append_record(alloc, e.first, e.second), 0);
    return b;
}

std::vector<element> contents(string_block b) {
    std::vector<element> out;
    for (std::size_t i = 0; i < b.size(); ++i)
        out.emplace_back(b.score(i), std::string(b.member(i)));
    return out;
}

}  // namespace

TEST_CASE("block lower_bound finds the first element not below a key at every size", "[block]") {
    const std::allocator<std::string> alloc;
    // every size through the four-way steps' first cases, then sizes around their boundaries
    std::vector<std::size_t> sizes;
    for (std::size_t n = 1; n <= 33; ++n) sizes.push_back(n);
    for (const std::size_t n : {47u, 63u, 64u, 65u, 90u, 100u, 127u, 128u, 129u, 130u})
        sizes.push_back(n);
    for (const std::size_t n : sizes) {
        // scores in runs of equal ones (every third score repeats), members ascending within
        std::vector<element> elements;
        for (std::size_t i = 0; i < n; ++i)
            elements.emplace_back(static_cast<double>(i / 3 * 2), "m" + std::to_string(100 + i));
        std::sort(elements.begin(), elements.end());
        const string_block b = make_block(elements);
        std::size_t wrong = 0;
        for (const auto mode : {string_block::search::cached, string_block::search::cold}) {
            // keys below, on and between every score, with members before, among and after
            for (long twice = -2; twice <= static_cast<long>(n / 3 * 4 + 4); ++twice) {
                const double s = static_cast<double>(twice) / 2;
                for (const std::string m : {"", "m100", "m150", "m229", "z"}) {
                    const element key{s, m};
                    const auto expected = static_cast<std::size_t>(
                        std::lower_bound(elements.begin(), elements.end(), key) - elements.begin());
                    const std::size_t got = b.lower_bound(s, m, std::less<>(), mode);
                    if (got != expected && wrong++ == 0)
                        FAIL_CHECK("n " << n << ", key (" << s << ", " << m << "): " << got
                                        << " instead of " << expected);
                }
            }
        }
        CHECK(wrong == 0);
        string_block::destroy(alloc, b);
    }
}

TEST_CASE("block transfer moves every record, and discard_moved frees the source alone",
          "[block]") {
    const std::allocator<std::string> alloc;
    // member lengths around the fixed copy's 32 bytes (a record is 9 bytes plus the member),
    // and past the out-of-line length (255)
    std::vector<element> elements;
    const std::size_t lengths[] = {0, 1, 7, 22, 23, 24, 25, 40, 254, 255, 300, 23, 0, 24};
    for (std::size_t i = 0; i < std::size(lengths); ++i)
        elements.emplace_back(static_cast<double>(i),
                              std::string(lengths[i], static_cast<char>('a' + i)));
    // every split point, and each record last in its block (its copy at the area's end)
    for (std::size_t k = 0; k <= elements.size(); ++k) {
        const string_block src = make_block(elements);
        const auto split = elements.begin() + static_cast<std::ptrdiff_t>(k);
        const std::vector<element> low(elements.begin(), split), high(split, elements.end());
        const string_block to_low = empty_block(low), to_high = empty_block(high);
        std::vector<std::pair<std::uint16_t, std::uint16_t>> moves;
        const auto record_move = [&](std::string_view m, double s, std::uint16_t from,
                                     std::uint16_t to) {
            CHECK(src.score_of(from) == s);  // the source's record is still readable
            CHECK(src.member_of(from) == m);
            moves.emplace_back(from, to);
        };
        string_block::transfer(src, k, elements.size(), to_high, record_move);
        string_block::transfer(src, 0, k, to_low, record_move);
        INFO("split at " << k);
        REQUIRE(contents(to_low) == low);
        REQUIRE(contents(to_high) == high);
        REQUIRE(moves.size() == elements.size());
        REQUIRE(to_low.validate());
        REQUIRE(to_high.validate());
        string_block::discard_moved(alloc, src);  // releases no record: the others own them
        string_block::destroy(alloc, to_low);
        string_block::destroy(alloc, to_high);
    }
}
