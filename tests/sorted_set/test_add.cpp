// Adding and updating (docs/sorted_set/add.md): ZADD semantics (NX / XX / GT / LT / CH, NaN, -0,
// batch all-or-nothing, flag conflicts) and ZINCRBY / ZADD INCR semantics (increment).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

using zset::add_flags;
using zset::add_status;

TEST_CASE("add inserts new members and updates scores", "[add]") {
    zset::sorted_set<> s;
    REQUIRE(s.add("a", 1) == add_status::added);
    REQUIRE(s.add("a", 1) == add_status::unchanged);
    REQUIRE(s.add("a", 2) == add_status::updated);
    REQUIRE(s.score("a") == 2.0);
    REQUIRE(s.size() == 1);
}

TEST_CASE("NX adds only, XX updates only", "[add]") {
    zset::sorted_set<> s{{"a", 1}};
    REQUIRE(s.add("a", 5, add_flags::nx) == add_status::skipped);
    REQUIRE(s.score("a") == 1.0);
    REQUIRE(s.add("b", 5, add_flags::nx) == add_status::added);
    REQUIRE(s.add("c", 5, add_flags::xx) == add_status::skipped);
    REQUIRE_FALSE(s.contains("c"));
    REQUIRE(s.add("a", 7, add_flags::xx) == add_status::updated);
    REQUIRE(s.score("a") == 7.0);
}

TEST_CASE("GT and LT restrict updates but still add new members", "[add]") {
    zset::sorted_set<> s{{"a", 10}};
    REQUIRE(s.add("a", 5, add_flags::gt) == add_status::skipped);
    REQUIRE(s.add("a", 10, add_flags::gt) == add_status::skipped);  // equal is not greater
    REQUIRE(s.add("a", 11, add_flags::gt) == add_status::updated);
    REQUIRE(s.add("a", 20, add_flags::lt) == add_status::skipped);
    REQUIRE(s.add("a", 3, add_flags::lt) == add_status::updated);
    REQUIRE(s.add("new", 1, add_flags::gt) == add_status::added);
    REQUIRE(s.add("new2", 1, add_flags::lt) == add_status::added);
    REQUIRE(s.add("x", 1, add_flags::xx | add_flags::gt) == add_status::skipped);
    REQUIRE(s.score("a") == 3.0);
}

TEST_CASE("flag conflicts throw Redis's texts and change nothing", "[add]") {
    zset::sorted_set<> s{{"a", 1}};
    REQUIRE_THROWS_WITH(s.add("b", 1, add_flags::nx | add_flags::xx),
                        "ERR XX and NX options at the same time are not compatible");
    REQUIRE_THROWS_WITH(s.add("b", 1, add_flags::gt | add_flags::lt),
                        "ERR GT, LT, and/or NX options at the same time are not compatible");
    REQUIRE_THROWS_WITH(s.add("b", 1, add_flags::nx | add_flags::gt),
                        "ERR GT, LT, and/or NX options at the same time are not compatible");
    REQUIRE_THROWS_AS(s.add("b", 1, add_flags::nx | add_flags::lt), zset::error);
    REQUIRE(s.size() == 1);
    REQUIRE_FALSE(s.contains("b"));
}

TEST_CASE("NaN is never stored; infinities are", "[add]") {
    zset::sorted_set<> s{{"a", 1}};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    REQUIRE_THROWS_WITH(s.add("b", nan), "ERR value is not a valid float");
    REQUIRE_THROWS_AS(s.add("a", nan), zset::error);
    REQUIRE(s.score("a") == 1.0);
    REQUIRE(s.add("top", inf) == add_status::added);
    REQUIRE(s.add("bottom", -inf) == add_status::added);
    REQUIRE(s.rank("bottom") == 0u);
    REQUIRE(s.rank("top") == 2u);
    REQUIRE(s.validate());
}

TEST_CASE("scores -0 and +0 are equal; changing one to the other is not an update", "[add]") {
    zset::sorted_set<> s;
    REQUIRE(s.add("z", -0.0) == add_status::added);
    REQUIRE_FALSE(std::signbit(*s.score("z")));  // a listpack stores -0 as 0, like Redis
    zset::sorted_set<> big(zset::options{0, 64});
    REQUIRE(big.add("z", -0.0) == add_status::added);
    REQUIRE(std::signbit(*big.score("z")));  // skiplist mode stores it as given, like Redis
    REQUIRE(big.add("z", 0.0) == add_status::unchanged);
    REQUIRE(std::signbit(*big.score("z")));
    s.add("a", 0.0);
    // equal scores tie-break by member bytes
    REQUIRE(s.rank("a") == 0u);
    REQUIRE(s.rank("z") == 1u);
}

TEST_CASE("ties order by member bytes, unsigned, shorter prefix first", "[add]") {
    zset::sorted_set<> s;
    for (const char* m : {"\xff", "ab", "a", "B", ""}) s.add(m, 0);
    s.add(std::string("a\0", 2), 0);
    std::vector<std::string> order;
    for (const auto& e : s) order.emplace_back(e.member);
    REQUIRE(order == std::vector<std::string>{"", "B", "a", std::string("a\0", 2), "ab", "\xff"});
}

TEST_CASE("batch add counts added, or added + changed with CH", "[add]") {
    zset::sorted_set<> s{{"a", 1}, {"b", 2}};
    std::vector<std::pair<std::string, double>> batch{{"a", 1}, {"b", 3}, {"c", 4}};
    REQUIRE(s.add(batch.begin(), batch.end()) == 1);
    zset::sorted_set<> t{{"a", 1}, {"b", 2}};
    REQUIRE(t.add(batch.begin(), batch.end(), add_flags::ch) == 2);  // b changed, c added
    // later pairs for the same member see the earlier ones, as in Redis
    zset::sorted_set<> u;
    REQUIRE(u.add({{"m", 5}, {"m", 3}}, add_flags::gt) == 1);
    REQUIRE(u.score("m") == 5.0);
}

TEST_CASE("batch add is all-or-nothing for invalid input", "[add]") {
    zset::sorted_set<> s{{"a", 1}};
    std::vector<std::pair<std::string, double>> batch{
        {"x", 1}, {"a", 9}, {"y", std::numeric_limits<double>::quiet_NaN()}};
    REQUIRE_THROWS_WITH(s.add(batch.begin(), batch.end()), "ERR value is not a valid float");
    REQUIRE(s.size() == 1);
    REQUIRE(s.score("a") == 1.0);
    REQUIRE_THROWS_AS(s.add(batch.begin(), batch.begin() + 2, add_flags::nx | add_flags::xx),
                      zset::error);
    REQUIRE(s.size() == 1);
}

TEST_CASE("members may be any bytes, including NUL and 0xFF, and long", "[add]") {
    zset::sorted_set<> s;
    const std::string nul("a\0b\0", 4);
    const std::string big(1 << 20, '\xff');
    s.add(nul, 1);
    s.add(big, 2);
    s.add("", 3);
    REQUIRE(s.score(nul) == 1.0);
    REQUIRE(s.score(std::string_view("a\0b", 3)) == std::nullopt);
    REQUIRE(s.score(big) == 2.0);
    REQUIRE(s.score("") == 3.0);
    REQUIRE(s.encoding() == zset::encoding::skiplist);  // a 1 MiB member is over the 64-byte limit
    REQUIRE(s.validate());
}

namespace {
/// Function objects with state: fold == true compares members case-insensitively.
char folded(char c, bool fold) {
    return fold && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
struct folding_hash {
    bool fold = false;
    std::size_t operator()(std::string_view m) const noexcept {
        std::string f(m);
        for (char& c : f) c = folded(c, fold);
        return std::hash<std::string>{}(f);
    }
};
struct folding_equal {
    using is_transparent = void;
    bool fold = false;
    bool operator()(std::string_view a, std::string_view b) const noexcept {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (folded(a[i], fold) != folded(b[i], fold)) return false;
        return true;
    }
};
struct folding_less {
    using is_transparent = void;
    bool fold = false;
    bool operator()(std::string_view a, std::string_view b) const noexcept {
        return std::lexicographical_compare(
            a.begin(), a.end(), b.begin(), b.end(),
            [this](char x, char y) { return folded(x, fold) < folded(y, fold); });
    }
};
}  // namespace

TEST_CASE("batch add into an empty set builds what adding the pairs one by one builds", "[add]") {
    // An empty set builds a batch from its sorted members (engine/changes.hpp); every size, flag
    // and threshold must give the same elements, encoding and reply as single adds.
    std::mt19937_64 rng(54);
    for (const std::size_t n : {1u, 2u, 100u, 128u, 129u, 1000u, 5000u}) {
        std::vector<std::pair<std::string, double>> batch;
        for (std::size_t i = 0; i < n; ++i) {
            // repeated members (a later pair wins) and tied scores (member order decides)
            const auto id = static_cast<unsigned>(rng() % (n + n / 4 + 1));
            batch.emplace_back("m" + std::to_string(id), static_cast<double>(rng() % 50));
        }
        for (const add_flags flags : {add_flags::none, add_flags::ch, add_flags::nx, add_flags::xx,
                                      add_flags::gt, add_flags::lt | add_flags::ch}) {
            for (const std::size_t entries : {std::size_t{128}, std::size_t{0}}) {
                zset::options opts;
                opts.max_listpack_entries = entries;
                zset::sorted_set<> built(opts), one_by_one(opts);
                std::size_t counted = 0;
                for (const auto& [m, sc] : batch) {
                    const add_status st = one_by_one.add(m, sc, flags);
                    counted += st == add_status::added ||
                                       (st == add_status::updated && has(flags, add_flags::ch))
                                   ? 1
                                   : 0;
                }
                CAPTURE(n, entries);
                REQUIRE(built.add(batch.begin(), batch.end(), flags) == counted);
                REQUIRE(built.validate());
                REQUIRE(built.encoding() == one_by_one.encoding());
                REQUIRE(std::equal(built.begin(), built.end(), one_by_one.begin(), one_by_one.end(),
                                   [](const auto& a, const auto& b) {
                                       return a.member == b.member && a.score == b.score;
                                   }));
                built.add("late", 0.5);  // the built set takes further adds
                REQUIRE(built.validate());
            }
        }
    }
}

TEST_CASE("batch add finds duplicates with the set's own function objects", "[add]") {
    using folding_set =
        zset::sorted_set<std::string, double, folding_hash, folding_equal, folding_less>;
    folding_set s(zset::options{}, folding_hash{true}, folding_equal{true}, folding_less{true});
    s.add("Bob", 5);
    const std::vector<std::pair<std::string, double>> batch{
        {"ALICE", 1}, {"alice", 2}, {"bob", 7}, {"Carol", 3}};
    // CH counts per pair, as ZADD does: ALICE added, alice updated, bob updated, Carol added
    REQUIRE(s.add(batch.begin(), batch.end(), zset::add_flags::ch) == 4);
    REQUIRE(s.size() == 3);
    REQUIRE(s.score("Alice") == 2.0);  // the later pair for the same member wins, as in ZADD
    REQUIRE(s.score("BOB") == 7.0);
    REQUIRE(s.validate());
}

TEST_CASE("increment adds to the score or creates the member", "[increment]") {
    zset::sorted_set<> s;
    REQUIRE(s.increment("a", 2.5) == 2.5);
    REQUIRE(s.increment("a", 2.5) == 5.0);
    REQUIRE(s.increment("a", 0) == 5.0);  // no change still replies the score
    REQUIRE(s.increment("a", -10) == -5.0);
    REQUIRE(s.score("a") == -5.0);
}

TEST_CASE("increment with flags replies nothing when blocked", "[increment]") {
    zset::sorted_set<> s{{"a", 10}};
    REQUIRE(s.increment("a", 1, add_flags::nx) == std::nullopt);
    REQUIRE(s.increment("b", 1, add_flags::xx) == std::nullopt);
    REQUIRE_FALSE(s.contains("b"));
    REQUIRE(s.increment("a", -1, add_flags::gt) == std::nullopt);  // GT compares the result
    REQUIRE(s.increment("a", 1, add_flags::gt) == 11.0);
    REQUIRE(s.increment("a", 1, add_flags::lt) == std::nullopt);
    REQUIRE(s.increment("a", -2, add_flags::lt) == 9.0);
    REQUIRE(s.increment("a", 0, add_flags::gt) == std::nullopt);  // equal is not greater
    REQUIRE(s.increment("c", 4, add_flags::gt) == 4.0);           // new members still added
}

TEST_CASE("inf + -inf is an error and changes nothing", "[increment]") {
    const double inf = std::numeric_limits<double>::infinity();
    zset::sorted_set<> s{{"a", inf}};
    REQUIRE_THROWS_WITH(s.increment("a", -inf), "ERR resulting score is not a number (NaN)");
    REQUIRE(s.score("a") == inf);
    REQUIRE_THROWS_WITH(s.increment("a", std::numeric_limits<double>::quiet_NaN()),
                        "ERR value is not a valid float");
    REQUIRE(s.increment("a", inf) == inf);
    REQUIRE(s.size() == 1);
}

TEST_CASE("integral scores detect overflow", "[increment]") {
    zset::sorted_set<std::string, std::int64_t> s;
    s.add("a", std::numeric_limits<std::int64_t>::max() - 1);
    REQUIRE(s.increment("a", 1) == std::numeric_limits<std::int64_t>::max());
    REQUIRE_THROWS_WITH(s.increment("a", 1), "ERR increment or decrement would overflow");
    REQUIRE(s.score("a") == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("increments move elements across blocks and keep ranks right", "[increment]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 2000; ++i) s.add("m" + std::to_string(i), i);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    for (int i = 0; i < 2000; i += 7) s.increment("m" + std::to_string(i), 5000);
    REQUIRE(s.validate());
    REQUIRE(s.rank("m0") == 2000u - 286u);  // 286 members were moved past everyone else
    REQUIRE(s.rev_rank("m1995") == 0u);
}

TEST_CASE("adds and updates find their block in lists of one to forty blocks, ties included",
          "[add]") {
    // Up to 32 blocks an insert or a score update that leaves its block finds its block by the
    // blocks' first scores at once (skiplist::block_for_score), descending only on a tie with a
    // first score; from 33 blocks on it descends. Scores from a few values tie often, so first
    // scores equal the new one; the order is checked against a model after every step.
    for (const double distinct : {7.0, 1e9}) {
        std::mt19937_64 gen(static_cast<std::uint64_t>(distinct));
        zset::sorted_set<> s;
        std::vector<std::pair<double, std::string>> model;
        const auto score_of = [&] {
            return std::floor(std::uniform_real_distribution<double>(0, distinct)(gen));
        };
        const auto in_order = [&] {
            std::sort(model.begin(), model.end());
            std::size_t at = 0;
            for (const auto& e : s)
                if (at >= model.size() || e.score != model[at].first ||
                    e.member != model[at++].second)
                    return false;
            return at == model.size() && s.validate();
        };
        for (std::size_t i = 0; i < 3600; ++i) {  // 40 blocks of about 90
            const std::string m = "k" + std::to_string(gen() % 100000);
            const double sc = score_of();
            const auto old = s.score(m);
            s.add(m, sc);
            if (old) {
                const auto it = std::find(model.begin(), model.end(), std::make_pair(*old, m));
                it->first = sc;
            } else {
                model.emplace_back(sc, m);
            }
            if (i % 97 == 0) {
                INFO("distinct scores " << distinct << ", " << s.size() << " members");
                REQUIRE(in_order());
            }
        }
        REQUIRE(in_order());
    }
}
