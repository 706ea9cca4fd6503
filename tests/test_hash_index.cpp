// The member index on its own (detail/hash_index.hpp): where an erase leaves a tombstone and
// where it empties a slot, and a random run of inserts and erases against a model, checking
// the table's invariants (sorted runs, every entry at or after its home, the counts) after
// every step. The container's tests reach the index only through members and their hashes;
// here the tags, and so the homes, are chosen.
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/hash_index.hpp>

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

bool dead(std::uint32_t t) {
    return t != 0 && (t & 1u) == 0;
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
    CHECK(dead(index.tag_at(1)));
    CHECK(index.tag_at(1) == tag_at_home(1, 0) - 1);
    CHECK(index.first_match(tag_at_home(1, 0)) == index_type::npos);
    CHECK(index.first_match(tag_at_home(1, 4)) == 5);  // found across the tombstone
    CHECK(index.validate());

    // slot 5 ends the run: emptied, not a tombstone
    index.erase_slot(5);
    CHECK(index.tag_at(5) == 0);
    // slot 3: slot 4 is displaced too, a tombstone
    index.erase_slot(3);
    CHECK(dead(index.tag_at(3)));
    CHECK(index.validate());
    CHECK(index.size() == 2);

    // slot 4 now ends the run: emptied, and the tombstone before it goes with it
    index.erase_slot(4);
    CHECK(index.tag_at(4) == 0);
    CHECK(index.tag_at(3) == 0);
    CHECK(dead(index.tag_at(1)));  // slot 2 is still live and displaced
    CHECK(index.validate());

    // the last live entry: its slot and the tombstone before it are emptied
    index.erase_slot(2);
    for (std::uint32_t slot = 0; slot < 8; ++slot) CHECK(index.tag_at(slot) == 0);
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
    CHECK(index.tag_at(3) == 0);
    index.erase_slot(4);  // slot 5 is displaced: a tombstone
    CHECK(dead(index.tag_at(4)));
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
                // few distinct tags when tag_bits is small: entries share tags
                const auto tag = static_cast<std::uint32_t>(
                    ((rng() >> (32 - tag_bits)) << (32 - tag_bits)) | 1u | (rng() % 2 ? 2u : 0u));
                const std::uint32_t live = tag == 1 ? 3u : tag;
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
