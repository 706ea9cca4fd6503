// The member index on its own (detail/container/hash_index.hpp): where an erase leaves a tombstone
// and where it empties a slot, and a random run of inserts and erases against a model, checking the
// table's invariants (sorted runs, every entry at or after its home, the counts) after every step.
// The container's tests reach the index only through members and their hashes; here the tags, and
// so the homes, are chosen.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/hash_index.hpp>

namespace {

using index_type = zset::detail::hash_index<std::allocator<char>>;
using zset::detail::record_address;

/// A live tag whose home is `home` in a table of 16 home slots (the first table an insert
/// makes): the home is the tag's top four bits.
std::uint32_t tag_at_home(std::uint32_t home, std::uint32_t k) {
    return (home << 28) | (k << 1) | 1u;
}

record_address address_of(std::uint32_t k) {
    return record_address{k + 1, static_cast<std::uint16_t>(k)};
}

}  // namespace

TEST_CASE("hash_index: an erase leaves a tombstone only where a displaced entry follows",
          "[hash_index]") {
    index_type index;
    // five entries with home 1 fill slots 1..5, in tag order
    for (std::uint32_t k = 0; k < 5; ++k) index.insert(tag_at_home(1, k), address_of(k));
    REQUIRE(index.capacity() == 16);
    for (std::uint32_t k = 0; k < 5; ++k) REQUIRE(index.first_match(tag_at_home(1, k)) == k + 1);

    // slot 1: slot 2 holds an entry displaced from home 1, so the run must stay unbroken
    index.erase_slot(1);
    CHECK(index.tombstone_at(1));
    CHECK(index.tag_at(1) == tag_at_home(1, 0));
    CHECK(index.first_match(tag_at_home(1, 0)) == index_type::npos);
    CHECK(index.first_match(tag_at_home(1, 4)) == 5);  // found across the tombstone
    CHECK(index.validate());

    // slot 5 ends the run: emptied, not a tombstone
    index.erase_slot(5);
    CHECK(index.empty_at(5));
    // slot 3: slot 4 is displaced too, a tombstone
    index.erase_slot(3);
    CHECK(index.tombstone_at(3));
    CHECK(index.validate());
    CHECK(index.size() == 2);

    // slot 4 now ends the run: emptied, and the tombstone before it goes with it
    index.erase_slot(4);
    CHECK(index.empty_at(4));
    CHECK(index.empty_at(3));
    CHECK(index.tombstone_at(1));  // slot 2 is still live and displaced
    CHECK(index.validate());

    // the last live entry: its slot and the tombstone before it are emptied
    index.erase_slot(2);
    for (std::uint32_t slot = 0; slot < 8; ++slot) CHECK(index.empty_at(slot));
    CHECK(index.size() == 0);
    CHECK(index.validate());
}

TEST_CASE("hash_index: a lookup passes tombstones of its key and stops at its first live entry",
          "[hash_index]") {
    index_type index;
    // an index without slots answers from its shared empty keys
    CHECK(index.first_candidate(tag_at_home(1, 0)) == index_type::npos);
    CHECK(index.first_match(0xffffffffu) == index_type::npos);
    // five entries with home 1 and one key (their tags differ below the key's bits): slots 1..5
    for (std::uint32_t k = 0; k < 5; ++k) index.insert(tag_at_home(1, k), address_of(k));
    // a tag with home 1 and another key (one more 7-bit fraction step): no candidate at all
    const std::uint32_t other_key = tag_at_home(1, 0) | (1u << 21);
    CHECK(index.first_candidate(other_key) == index_type::npos);
    CHECK(index.first_candidate(tag_at_home(1, 3)) == 1);  // the stretch's first live entry
    index.erase_slot(1);
    index.erase_slot(2);
    REQUIRE(index.tombstone_at(1));
    REQUIRE(index.tombstone_at(2));
    // the tombstones sort below the key: the candidate is the first live entry after them
    CHECK(index.first_candidate(tag_at_home(1, 0)) == 3);
    CHECK(index.first_match(tag_at_home(1, 0)) == index_type::npos);  // its low bits differ
    CHECK(index.first_match(tag_at_home(1, 3)) == 4);
    CHECK(index.match_at_or_after(3, tag_at_home(1, 4)) == 5);
    // an insert still sees the whole stretch: the erased tag takes its own tombstone back
    index.insert(tag_at_home(1, 1), address_of(9));
    CHECK(index.find_exact(tag_at_home(1, 1), address_of(9)) == 2);
    CHECK(index.validate());
    for (const std::size_t slot : {std::size_t{2}, std::size_t{3}, std::size_t{4}})
        index.erase_slot(slot);
    // only tombstones and one entry of the key left, then none
    CHECK(index.first_candidate(tag_at_home(1, 0)) == 5);
    index.erase_slot(5);
    CHECK(index.first_candidate(tag_at_home(1, 0)) == index_type::npos);
    CHECK(index.size() == 0);
    CHECK(index.validate());
}

TEST_CASE("hash_index: an entry followed by one at its own home is emptied", "[hash_index]") {
    index_type index;
    index.insert(tag_at_home(3, 0), address_of(0));  // slot 3, its home
    index.insert(tag_at_home(4, 0), address_of(1));  // slot 4, its home
    index.insert(tag_at_home(4, 1), address_of(2));  // slot 5, displaced from 4
    REQUIRE(index.first_match(tag_at_home(4, 1)) == 5);
    index.erase_slot(3);
    CHECK(index.empty_at(3));
    index.erase_slot(4);  // slot 5 is displaced: a tombstone
    CHECK(index.tombstone_at(4));
    CHECK(index.find_exact(tag_at_home(4, 1), address_of(2)) == 5);
    // the same tag inserted again takes its tombstone back
    index.insert(tag_at_home(4, 0), address_of(7));
    CHECK(index.tag_at(4) == tag_at_home(4, 0));
    CHECK(index.find_exact(tag_at_home(4, 0), address_of(7)) == 4);
    CHECK(index.validate());
}

TEST_CASE("hash_index: random inserts and erases against a model", "[hash_index]") {
    std::mt19937 rng(20261124);
    for (const std::uint32_t tag_bits : {4u, 12u, 31u}) {  // crowded, clustered, spread tags
        index_type index;
        std::vector<std::pair<std::uint32_t, record_address>> model;  // (tag, address)
        std::uint32_t next_id = 0;
        for (int step = 0; step < 20000; ++step) {
            const bool add = model.empty() || rng() % 100 < (step < 10000 ? 60u : 40u);
            if (add) {
                // few distinct tags when tag_bits is small: entries share tags (0 and 1 too)
                const auto live = static_cast<std::uint32_t>(
                    ((rng() >> (32 - tag_bits)) << (32 - tag_bits)) | (rng() % 4));
                const record_address a = address_of(next_id++ % index_type::max_node);
                index.insert(live, a);
                model.emplace_back(live, a);
            } else {
                const std::size_t victim = rng() % model.size();
                const auto [tag, a] = model[victim];
                const std::size_t slot = index.find_exact(tag, a);
                REQUIRE(slot != index_type::npos);
                index.erase_slot(slot);
                model[victim] = model.back();
                model.pop_back();
                REQUIRE(index.find_exact(tag, a) == index_type::npos);
            }
            REQUIRE(index.size() == model.size());
            if (step % 16 == 0) REQUIRE(index.validate());
        }
        REQUIRE(index.validate());
        for (const auto& [tag, a] : model) REQUIRE(index.find_exact(tag, a) != index_type::npos);
    }
}

TEST_CASE("hash_index: every tag is rebuilt from its key and low bits, in small and large tables",
          "[hash_index]") {
    // 250 entries: a table under 512 slots (24 stored tag bits); 20000: 16 stored bits
    for (const std::size_t entries : {std::size_t{250}, std::size_t{20000}}) {
        std::mt19937 rng(static_cast<unsigned>(entries));
        index_type index;
        std::vector<std::pair<std::uint32_t, record_address>> model;
        // the extremes of the tag range, then random tags, past several growths
        for (const std::uint32_t tag : {3u, 5u, 0xffffffffu, 0xfffffffdu, 0x80000001u}) {
            model.emplace_back(tag, address_of(static_cast<std::uint32_t>(model.size())));
            index.insert(tag, model.back().second);
        }
        while (model.size() < entries) {
            const std::uint32_t tag = static_cast<std::uint32_t>(rng()) | 1u;
            if (tag == 1) continue;
            model.emplace_back(tag, address_of(static_cast<std::uint32_t>(model.size())));
            index.insert(tag, model.back().second);
        }
        REQUIRE((index.capacity() >= 512) == (entries > 1000));
        REQUIRE(index.validate());
        std::vector<std::pair<std::uint32_t, record_address>> seen;
        index.for_each([&](std::uint32_t tag, record_address a) { seen.emplace_back(tag, a); });
        const auto by_address = [](const auto& x, const auto& y) {
            return x.second.node < y.second.node;
        };
        std::sort(seen.begin(), seen.end(), by_address);
        std::sort(model.begin(), model.end(), by_address);
        REQUIRE(seen.size() == model.size());
        for (std::size_t i = 0; i < model.size(); ++i) {
            REQUIRE(seen[i].first == model[i].first);
            REQUIRE(seen[i].second == model[i].second);
        }
        // a tag range visits exactly the entries whose tags lie in it
        const std::uint32_t first = 0x40000000u, last = 0x4fffffffu;
        std::size_t in_range = 0, visited = 0;
        for (const auto& [tag, a] : model) in_range += tag >= first && tag <= last ? 1 : 0;
        index.for_each_in_tag_range(first, last, [&](std::uint32_t tag, record_address) {
            CHECK(tag >= first);
            CHECK(tag <= last);
            ++visited;
        });
        CHECK(visited == in_range);
    }
}

TEST_CASE("hash_index: 255 entries of one tag cannot be placed; the failed insert changes nothing",
          "[hash_index]") {
    index_type index;
    const std::uint32_t tag = 0x12345679u;
    std::uint32_t placed = 0;
    bool refused = false;
    // an entry sits at most 253 slots past its home, and entries of one tag share a home
    for (std::uint32_t k = 0; k < 300 && !refused; ++k) {
        try {
            index.insert(tag, address_of(k));
            ++placed;
        } catch (const std::length_error&) {
            refused = true;
        }
    }
    REQUIRE(refused);
    CHECK(placed == 254);
    CHECK(index.size() == placed);
    CHECK(index.validate());
    for (std::uint32_t k = 0; k < placed; ++k)
        CHECK(index.find_exact(tag, address_of(k)) != index_type::npos);
}

TEST_CASE("hash_index: churn at a steady size drops tombstones in place, every entry kept",
          "[hash_index]") {
    // 200 entries: a table under 512 slots (its third tag bytes move with the entries); 3000:
    // one past it. Erases and inserts alternate at a steady size, so tombstones pile up until an
    // insert finds no room and drops them, without growing the table once it has grown enough
    // to leave room for them.
    for (const std::uint32_t entries : {200u, 3000u}) {
        std::mt19937 rng(entries);
        index_type index;
        std::vector<std::pair<std::uint32_t, record_address>> model;
        std::uint32_t next_id = 0;
        const auto add = [&] {
            const std::uint32_t tag = static_cast<std::uint32_t>(rng()) | 1u;
            model.emplace_back(tag, address_of(next_id++));
            index.insert(tag, model.back().second);
        };
        while (model.size() < entries) add();
        const auto tombstones = [&] {
            std::size_t count = 0;
            for (std::size_t slot = 0; slot < index.capacity(); ++slot)
                count += index.tombstone_at(slot) ? 1 : 0;
            return count;
        };
        std::size_t drops = 0;
        for (std::uint32_t step = 0; step < 4 * entries; ++step) {
            const std::size_t victim = rng() % model.size();
            index.erase_slot(index.find_exact(model[victim].first, model[victim].second));
            model[victim] = model.back();
            model.pop_back();
            const std::size_t before = tombstones(), capacity = index.capacity();
            add();
            // dropped without a rehash to a larger table (which drops them too)
            if (before > 1 && tombstones() == 0 && index.capacity() == capacity) ++drops;
            REQUIRE(index.validate());
        }
        CHECK(drops > 0);
        for (const auto& [tag, a] : model) {
            const std::size_t slot = index.find_exact(tag, a);
            REQUIRE(slot != index_type::npos);
            REQUIRE(index.tag_at(slot) == tag);
        }
    }
}

TEST_CASE("hash_index: assign lays out what one insert after another builds, in any input order",
          "[hash_index]") {
    std::mt19937 rng(20261128);
    // spread tags; pairs of tags sharing their top 16 bits (a home and a key: the whole tags
    // order them); groups of 8 equal tags
    for (const int shape : {0, 1, 2}) {
        for (const std::uint32_t entries : {1u, 15u, 300u, 5000u}) {
            std::vector<index_type::tagged_address> input;
            std::uint32_t group_tag = 1;
            for (std::uint32_t k = 0; k < entries; ++k) {
                std::uint32_t tag = static_cast<std::uint32_t>(rng()) | 1u;
                if (shape == 1 && k % 2 == 1)  // the previous entry's home and key
                    tag = (input.back().tag & 0xffff0000u) | (tag & 0xffffu);
                if (shape == 2) {
                    if (k % 8 == 0) group_tag = tag;
                    tag = group_tag;
                }
                input.push_back({tag, address_of(k)});
            }
            std::shuffle(input.begin(), input.end(), rng);
            index_type laid_out, inserted;
            laid_out.assign(input.data(), input.data() + input.size());
            inserted.reserve(entries);  // the capacity assign takes (inserts alone double)
            for (const auto& e : input) inserted.insert(e.tag, e.a);
            REQUIRE(laid_out.validate());
            REQUIRE(laid_out.size() == entries);
            CHECK(laid_out.capacity() == inserted.capacity());
            for (const auto& e : input)
                REQUIRE(laid_out.find_exact(e.tag, e.a) != index_type::npos);
            const auto contents = [](const index_type& index) {
                std::vector<std::pair<std::uint32_t, std::uint32_t>> out;  // (tag, node)
                index.for_each(
                    [&](std::uint32_t tag, record_address a) { out.emplace_back(tag, a.node); });
                std::sort(out.begin(), out.end());
                return out;
            };
            REQUIRE(contents(laid_out) == contents(inserted));
        }
    }
}

TEST_CASE("hash_index: assign of 255 entries of one tag throws and leaves the index empty",
          "[hash_index]") {
    std::vector<index_type::tagged_address> input;
    for (std::uint32_t k = 0; k < 255; ++k) input.push_back({0x12345679u, address_of(k)});
    index_type index;
    CHECK_THROWS_AS(index.assign(input.data(), input.data() + input.size()), std::length_error);
    CHECK(index.size() == 0);
    CHECK(index.validate());
    input.pop_back();  // 254 fit: an entry may sit 253 slots past its home
    index.assign(input.data(), input.data() + input.size());
    CHECK(index.size() == 254);
    CHECK(index.validate());
    for (const auto& e : input) CHECK(index.find_exact(e.tag, e.a) != index_type::npos);
}

TEST_CASE("hash_index: inserts at least double a table below 8,192 slots, grow it by 1/8 beyond",
          "[hash_index]") {
    index_type index;
    std::mt19937 rng(54);
    std::size_t before = 0, doublings = 0, steps = 0;
    for (std::uint32_t k = 0; k < 40000; ++k) {
        index.insert(static_cast<std::uint32_t>(rng()) | 1u, address_of(k));
        if (index.capacity() == before) continue;
        if (before != 0 && before < 8192) {
            REQUIRE(index.capacity() >= 2 * before);
            ++doublings;
        } else if (before != 0) {
            REQUIRE(index.capacity() == before + before / 8);
            ++steps;
        }
        before = index.capacity();
    }
    REQUIRE(index.validate());
    CHECK(doublings >= 8);  // 16 -> 8,192 and past
    CHECK(steps >= 3);      // 8,192+ -> 45,000+
}
