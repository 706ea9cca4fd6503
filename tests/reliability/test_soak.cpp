// Soak test: 10^7 distinct members pass through one set in cycles of inserts, score updates,
// erases and pops, with validate() and a full comparison against a reference at the end of
// every cycle. Tagged [soak]: excluded from the `unit` ctest test; the `soak` ctest test runs it
// when configured with -DZSET_SOAK=ON (see docs/reliability.md):
//
//   cmake -S . -B build/soak -DCMAKE_BUILD_TYPE=Release -DZSET_SOAK=ON
//   cmake --build build/soak --target zset_tests && ctest --test-dir build/soak -L soak -V
//
// ZSET_SOAK_MEMBERS overrides the member count (e.g. 1000000 for a quicker run). The reference
// is a score per member id (NaN = absent), i.e. a member -> score map indexed by number; member
// strings are "soak:<id>".
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {

std::string name_of(std::size_t id) {
    return "soak:" + std::to_string(id);
}

std::size_t id_of(std::string_view member) {
    REQUIRE(member.substr(0, 5) == "soak:");
    std::size_t v = 0;
    for (const char c : member.substr(5)) v = v * 10 + static_cast<std::size_t>(c - '0');
    return v;
}

std::size_t soak_members() {
    const char* v = std::getenv("ZSET_SOAK_MEMBERS");
    return v != nullptr ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : 10'000'000;
}

struct reference {
    std::vector<double> score;  // by id; NaN = absent
    std::size_t alive = 0;
    bool present(std::size_t id) const { return id < score.size() && !std::isnan(score[id]); }
};

/// Full comparison: same size, every element's score matches, strictly ascending order.
template <class Set>
void compare(const Set& s, const reference& ref) {
    REQUIRE(s.size() == ref.alive);
    bool first = true;
    double prev_score = 0;
    std::string prev_member;
    std::size_t seen = 0;
    for (const auto& e : s) {
        const std::size_t id = id_of(e.member);
        if (!ref.present(id) || ref.score[id] != e.score) FAIL("element mismatch at " << e.member);
        if (!first && !(prev_score < e.score || (prev_score == e.score && prev_member < e.member)))
            FAIL("order broken at " << e.member);
        first = false;
        prev_score = e.score;
        prev_member.assign(e.member);
        ++seen;
    }
    REQUIRE(seen == ref.alive);
}

}  // namespace

TEST_CASE("soak: 10^7 members through insert / update / erase / pop cycles", "[soak]") {
    using clock = std::chrono::steady_clock;
    const auto started = clock::now();
    const std::size_t total = soak_members();
    const std::size_t cycles = 10;
    const std::size_t per_cycle = (total + cycles - 1) / cycles;
    std::mt19937_64 rng(20240611);
    zset::sorted_set<> s;
    reference ref;
    ref.score.reserve(static_cast<std::size_t>(total));
    std::size_t next_id = 0, updates = 0, erases = 0, pops = 0;

    auto random_alive = [&]() -> std::size_t {  // a present id (next_id > 0, ref.alive > 0)
        for (;;) {
            const auto id = static_cast<std::size_t>(rng() % next_id);
            if (ref.present(id)) return id;
        }
    };
    auto random_score = [&] {
        // many ties (integers) so member order matters, plus fractions and a few extremes
        const auto r = rng() % 100;
        if (r == 0) return -std::numeric_limits<double>::infinity();
        if (r == 1) return std::numeric_limits<double>::infinity();
        if (r < 50) return static_cast<double>(rng() % 100000);
        return static_cast<double>(rng() % 1000000000) / 1024.0;
    };

    for (std::size_t cycle = 0; cycle < cycles && next_id < total; ++cycle) {
        // inserts: per_cycle new members, single and batched
        const std::size_t end_id = std::min(total, next_id + per_cycle);
        std::vector<std::pair<std::string, double>> batch;
        while (next_id < end_id) {
            const double sc = random_score();
            if (next_id % 7 == 0) {
                batch.emplace_back(name_of(next_id), sc);
                if (batch.size() == 64) {
                    REQUIRE(s.add(batch.begin(), batch.end()) == 64);
                    batch.clear();
                }
            } else {
                REQUIRE(s.add(name_of(next_id), sc) == zset::add_status::added);
            }
            ref.score.push_back(sc);
            ++ref.alive;
            ++next_id;
        }
        REQUIRE(s.add(batch.begin(), batch.end()) == batch.size());
        // updates: half of a cycle's worth, as ZADD and as ZINCRBY (moves between blocks)
        for (std::size_t i = 0; i < per_cycle / 2 && ref.alive > 0; ++i) {
            const std::size_t id = random_alive();
            if (i % 2 == 0) {
                const double sc = random_score();
                const auto st = s.add(name_of(id), sc);
                REQUIRE(st == (sc == ref.score[id] ? zset::add_status::unchanged
                                                   : zset::add_status::updated));
                ref.score[id] = sc;
            } else {
                const double delta = static_cast<double>(rng() % 2001) - 1000.0;
                const double expect = ref.score[id] + delta;
                if (std::isnan(expect)) continue;  // inf - inf: not tested here
                REQUIRE(s.increment(name_of(id), delta) == expect);
                ref.score[id] = expect;
            }
            ++updates;
        }
        // erases: a fifth of a cycle's worth
        for (std::size_t i = 0; i < per_cycle / 5 && ref.alive > 0; ++i) {
            const std::size_t id = random_alive();
            REQUIRE(s.erase(name_of(id)));
            ref.score[id] = std::numeric_limits<double>::quiet_NaN();
            --ref.alive;
            ++erases;
        }
        // pops from both ends: a tenth of a cycle's worth, in chunks
        for (std::size_t done = 0; done < per_cycle / 10 && ref.alive > 0;) {
            const auto k = static_cast<std::size_t>(1 + rng() % 500);
            const bool min = rng() % 2 == 0;
            const auto got = min ? s.pop_min(k) : s.pop_max(k);
            REQUIRE(got.size() == std::min<std::size_t>(k, ref.alive));
            for (std::size_t j = 0; j < got.size(); ++j) {
                const std::size_t id = id_of(got[j].first);
                REQUIRE(ref.present(id));
                REQUIRE(ref.score[id] == got[j].second);
                if (j > 0)
                    REQUIRE((min ? !(got[j].second < got[j - 1].second)
                                 : !(got[j - 1].second < got[j].second)));
                ref.score[id] = std::numeric_limits<double>::quiet_NaN();
                --ref.alive;
            }
            if (!s.empty() && !got.empty()) {  // nothing left beyond what was popped
                const double edge = min ? s.begin()->score : s.rbegin()->score;
                REQUIRE((min ? !(edge < got.back().second) : !(got.back().second < edge)));
            }
            done += got.size();
            pops += got.size();
        }
        // checkpoint
        REQUIRE(s.validate());
        compare(s, ref);
        for (int probe = 0; probe < 1000 && ref.alive > 0; ++probe) {
            const std::size_t id = random_alive();
            const auto r = s.rank(name_of(id));
            REQUIRE(r.has_value());
            REQUIRE(s.nth(*r)->member == name_of(id));
        }
    }
    REQUIRE(next_id == total);
    s.shrink_to_fit();
    REQUIRE(s.validate());
    compare(s, ref);
    const double seconds = std::chrono::duration<double>(clock::now() - started).count();
    WARN("soak: " << next_id << " members inserted, " << updates << " updates, " << erases
                  << " erases, " << pops << " popped; " << s.size() << " left, "
                  << s.memory_usage() / (1024 * 1024) << " MiB; " << seconds << " s");
}
