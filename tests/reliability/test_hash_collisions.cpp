// A hash with eight values: every member shares its index tag and its listpack fingerprint with
// an eighth of the set. Lookups, erases and pops must then compare records, never trust a tag:
// the erase path's shortcut (hash_index::find_present: a tag that only one live entry has is
// that entry) and the fingerprint scan's many-match path run against a std::map model. Listpack
// mode fingerprints members of at most 16 bytes from their bytes, not from the Hash, so the
// members are named twice: short (tags shared) and longer than 16 bytes (fingerprints shared).
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "zset_catch.hpp"
#include <zset/sorted_set.hpp>

namespace {

struct eight_values_hash {
    std::uint64_t operator()(std::string_view s) const noexcept {
        return s.empty() ? 0 : static_cast<std::uint64_t>(s.back() % 8);
    }
};
using colliding_set = zset::sorted_set<std::string, double, eight_values_hash>;

bool same_as(const colliding_set& s, const std::map<std::string, double>& model) {
    if (s.size() != model.size() || !s.validate()) return false;
    for (const auto& [member, score] : model)
        if (s.score(member) != score) return false;
    return true;
}

}  // namespace

TEST_CASE("members sharing tags and fingerprints: every operation against a model",
          "[collisions]") {
    for (const std::size_t limit : {std::size_t{40}, std::size_t{600}}) {  // both encodings
        for (const std::string prefix : {"m", "a-member-named-past-16-bytes-"}) {
            INFO("limit " << limit << ", prefix " << prefix);
            std::mt19937 rng(static_cast<unsigned>(limit));
            colliding_set s;
            std::map<std::string, double> model;
            const auto name = [&](unsigned i) { return prefix + std::to_string(i); };
            for (unsigned i = 0; i < limit; ++i) {
                s.add(name(i), static_cast<double>(i % 50));
                model[name(i)] = static_cast<double>(i % 50);
            }
            REQUIRE(s.encoding() ==
                    (limit > 128 ? zset::encoding::skiplist : zset::encoding::listpack));
            for (int step = 0; step < 3000; ++step) {
                const unsigned pick = static_cast<unsigned>(rng() % limit);
                const double score = static_cast<double>(rng() % 50);
                switch (rng() % 8) {
                case 0:
                case 6:
                case 7:
                    s.add(name(pick), score);
                    model[name(pick)] = score;
                    break;
                case 2:
                    REQUIRE(s.erase(name(pick)) == (model.erase(name(pick)) == 1));
                    break;
                case 3: {
                    // one element (pop_one: its entry found by address) or two (erase_ranks)
                    const auto popped = pick % 3 == 0   ? s.pop_min(2)
                                        : pick % 3 == 1 ? s.pop_min()
                                                        : s.pop_max();
                    for (const auto& [member, sc] : popped) {
                        REQUIRE(model.at(member) == sc);
                        model.erase(member);
                    }
                    break;
                }
                case 4: {
                    REQUIRE(s.contains(name(pick)) == (model.count(name(pick)) == 1));
                    REQUIRE_FALSE(s.contains(name(pick) + "x"));  // same tag as other members
                    REQUIRE_FALSE(s.score(name(pick) + "x"));     // ZSCORE's own path
                    break;
                }
                default: {
                    // erase the ranks [1, 3]: erase_ranks finds each entry by (tag, address)
                    const auto view = s.range_by_rank(1, 3);
                    std::vector<std::string> gone;
                    for (const auto e : view) gone.emplace_back(e.member);
                    REQUIRE(s.erase_range_by_rank(1, 3) == gone.size());
                    for (const auto& m : gone) model.erase(m);
                    break;
                }
                }
                if (step % 97 == 0) REQUIRE(same_as(s, model));
            }
            REQUIRE(same_as(s, model));
        }
    }
}
