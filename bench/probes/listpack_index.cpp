// Probe: would a hashed index make listpack-mode ZSCORE as fast as skiplist mode at n = 100, and
// what would it cost in bytes? The listpack block keeps its records in arrival order, an order
// array of 2-byte refs in (score, member) order and one fingerprint byte per element, which a
// lookup scans (all n of them on a miss). This probe builds, beside the real containers, a
// model of the same block with a small Swiss-style table in place of the fingerprint array:
//
//   swiss_pos  16-slot groups of control bytes (7 hash bits, or empty) and one position byte
//              per slot (an index into the order array; positions shift on insert, which one
//              SIMD compare-and-add over the position bytes would absorb): 2 bytes a slot;
//   swiss_ref  the same groups with the record's 2-byte ref per slot instead (no order-array
//              read on a hit, and nothing shifts on insert): 3 bytes a slot;
//   two_choice a member sits in the less full of two groups picked by its hash and a lookup
//              reads both: no probe sequence and no "is there an empty slot" branch; 8-bit
//              control bytes (0 empty) and position bytes, 2 bytes a slot; two_wide has twice
//              the groups.
//
// Members of at most 15 bytes compare without a branch (see records_model::same_member).
// Each table has the fewest groups that keep the load at or under 7/8. Records, order array and
// hash function (zset::hash) are the container's; the lookups are timed in one process against
// zset in listpack mode (default options), zset in skiplist mode (thresholds 0, as the suite's
// zset_skiplist) and, when built with Abseil, absl::flat_hash_map and the suite's Redis-style
// skiplist (bench/peers/redis_skiplist.hpp). Five passes of 10^6 lookups
// each, structures interleaved in every pass; each line prints a structure's median and range:
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/listpack_index.cpp
//       bench/alloc_counter.cpp -o /tmp/listpack_index
//   /tmp/listpack_index 100
//   (add -DWITH_ABSL ... -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
//    for the Abseil column, -DTWO_CHOICE_BRANCH_FREE_MISS for the two-choice lookup without
//    its early return on a miss)
//
// Figures: docs/benchmarks.md, "A hashed index for listpack mode, measured".
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <emmintrin.h>

#include "bench_support.hpp"
#include <zset/zset.hpp>
#ifdef WITH_ABSL
#include <absl/container/flat_hash_map.h>

#include "peers/redis_skiplist.hpp"
#endif

namespace {

using namespace zbench;
constexpr std::size_t pool = 4096;  // keys cycled through, as the suite's pool
constexpr int passes = 5;
constexpr int rounds = 250;  // pool * rounds = ~10^6 lookups a pass
constexpr std::uint8_t empty_ctrl = 0x80;

/// The listpack block's data without its fingerprints: records [score][length][bytes] in
/// arrival order, and refs (byte offsets) in (score, member) order.
struct records_model {
    std::vector<unsigned char> area;
    std::vector<std::uint16_t> order;

    records_model(const std::vector<std::string>& members, const std::vector<double>& scores) {
        std::vector<std::size_t> by_score(members.size());
        for (std::size_t i = 0; i < by_score.size(); ++i) by_score[i] = i;
        std::sort(by_score.begin(), by_score.end(), [&](std::size_t a, std::size_t b) {
            return scores[a] != scores[b] ? scores[a] < scores[b] : members[a] < members[b];
        });
        std::vector<std::uint16_t> ref_of(members.size());
        for (std::size_t i = 0; i < members.size(); ++i) {
            ref_of[i] = static_cast<std::uint16_t>(area.size());
            unsigned char score_bytes[sizeof(double)];
            std::memcpy(score_bytes, &scores[i], sizeof(double));
            area.insert(area.end(), score_bytes, score_bytes + sizeof(double));
            area.push_back(static_cast<unsigned char>(members[i].size()));
            area.insert(area.end(), members[i].begin(), members[i].end());
        }
        area.resize(area.size() + 16);  // room for 16-byte member compares, as the block's slack
        for (const std::size_t i : by_score) order.push_back(ref_of[i]);
    }
    /// Without a branch: the length byte and 16 bytes from each side, masked to the length.
    /// Members here are at most 15 bytes, and the keys std::strings in their inline buffer, so
    /// 16 bytes can be read from both (the area has 16 bytes of slack). A branch on the length
    /// (as detail::equal_bytes) mispredicts whenever a miss meets candidates of its length.
    bool same_member(std::uint16_t ref, std::string_view m) const noexcept {
        const unsigned char* r = area.data() + ref;
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + sizeof(double) + 1));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m.data()));
        const auto equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
        const unsigned wanted = (1u << m.size()) - 1;
        return ((equal & wanted) == wanted) & (r[sizeof(double)] == m.size());
    }
    double score_at(std::uint16_t ref) const noexcept {
        double s;
        std::memcpy(&s, area.data() + ref, sizeof s);
        return s;
    }
};

/// Control-byte groups over a records_model; Slot is the position byte or the 2-byte ref.
template <class Slot>
class swiss_model {
public:
    swiss_model(const records_model& rec, const std::vector<std::string>& by_position) : rec_(rec) {
        groups_ = (by_position.size() * 8 + 7 * 16 - 1) / (7 * 16);
        ctrl_.assign(groups_ * 16, empty_ctrl);
        slots_.assign(groups_ * 16 + 16, Slot{});  // 16 padding slots: see score()
        std::size_t spilled = 0;
        for (std::size_t p = 0; p < by_position.size(); ++p) {
            const std::uint64_t h = zset::hash<std::string>{}(by_position[p]);
            for (std::size_t g = group_of(h);; g = g + 1 == groups_ ? 0 : g + 1) {
                auto* free = std::find(&ctrl_[g * 16], &ctrl_[g * 16] + 16, empty_ctrl);
                if (free == &ctrl_[g * 16] + 16) {
                    ++spilled;
                    continue;
                }
                *free = control_of(h);
                slots_[static_cast<std::size_t>(free - ctrl_.data())] =
                    static_cast<Slot>(sizeof(Slot) == 1 ? p : rec.order[p]);
                break;
            }
        }
        spilled_ = static_cast<double>(spilled) / static_cast<double>(by_position.size());
    }
    std::size_t bytes() const noexcept { return groups_ * 16 * (1 + sizeof(Slot)); }

    /// A hit compares the first candidate of the home group without a branch on whether
    /// there is one (a padding slot stands in), as the container's listpack path does; the
    /// rare further candidates and full groups take the loop.
    bool score(std::string_view m, double& out) const noexcept {
        const std::uint64_t h = zset::hash<std::string>{}(m);
        const __m128i want = _mm_set1_epi8(static_cast<char>(control_of(h)));
        const __m128i empty = _mm_set1_epi8(static_cast<char>(empty_ctrl));
        for (std::size_t g = group_of(h);; g = g + 1 == groups_ ? 0 : g + 1) {
            const __m128i c =
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctrl_.data() + g * 16));
            const auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(c, want)));
            const std::uint16_t first =
                ref_at(g * 16 + static_cast<std::size_t>(__builtin_ctz(hits | 0x10000u)));
            if (__builtin_expect(rec_.same_member(first, m) & (hits != 0), 1)) {
                out = rec_.score_at(first);
                return true;
            }
            for (unsigned rest = hits & (hits - 1); rest != 0; rest &= rest - 1) {
                const std::uint16_t ref =
                    ref_at(g * 16 + static_cast<std::size_t>(__builtin_ctz(rest)));
                if (rec_.same_member(ref, m)) {
                    out = rec_.score_at(ref);
                    return true;
                }
            }
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(c, empty)) != 0) return false;
        }
    }
    /// Lookups that left their home group, per lookup of every member (the table's spill).
    double spill() const noexcept { return spilled_; }

private:
    std::uint16_t ref_at(std::size_t slot) const noexcept {
        return sizeof(Slot) == 1 ? rec_.order[slots_[slot]]
                                 : static_cast<std::uint16_t>(slots_[slot]);
    }
    std::size_t group_of(std::uint64_t h) const noexcept {
        return static_cast<std::size_t>(((h >> 32) * groups_) >> 32);
    }
    static std::uint8_t control_of(std::uint64_t h) noexcept {
        return static_cast<std::uint8_t>(h & 0x7f);
    }
    const records_model& rec_;
    std::size_t groups_ = 0;
    double spilled_ = 0;
    std::vector<std::uint8_t> ctrl_;
    std::vector<Slot> slots_;
};

/// Two-choice groups: a member sits in the less full of two 16-slot groups picked by its hash,
/// so a lookup reads both groups, always, and needs no "is there an empty slot" branch; control
/// bytes hold 8 hash bits (0 is empty), slots the position byte.
class two_choice_model {
public:
    two_choice_model(const records_model& rec, const std::vector<std::string>& by_position,
                     std::size_t groups)
        : rec_(rec), groups_(groups) {
        ctrl_.assign(groups_ * 16, 0);
        slots_.assign(groups_ * 16 + 32, 0);  // padding slots: see score()
        std::vector<std::size_t> fill(groups_, 0);
        for (std::size_t p = 0; p < by_position.size(); ++p) {
            const std::uint64_t h = zset::hash<std::string>{}(by_position[p]);
            const std::size_t a = first_group(h), b = second_group(h);
            const std::size_t g = fill[b] < fill[a] ? b : a;
            if (fill[g] == 16) {
                overflow_ = true;  // a full model would move an entry to its other group
                continue;
            }
            ctrl_[g * 16 + fill[g]] = control_of(h);
            slots_[g * 16 + fill[g]] = static_cast<std::uint8_t>(p);
            ++fill[g];
        }
    }
    std::size_t bytes() const noexcept { return groups_ * 16 * 2; }
    bool overflowed() const noexcept { return overflow_; }

    bool score(std::string_view m, double& out) const noexcept {
        const std::uint64_t h = zset::hash<std::string>{}(m);
        const __m128i want = _mm_set1_epi8(static_cast<char>(control_of(h)));
        const std::size_t a = first_group(h) * 16, b = second_group(h) * 16;
        const auto match = [&](std::size_t at) {
            return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctrl_.data() + at)), want)));
        };
        const unsigned in_a = match(a), in_b = match(b);
#ifndef TWO_CHOICE_BRANCH_FREE_MISS
        // a miss has no candidate ~90% of the time (8-bit control bytes, ~25 of the 32 slots
        // read in use): stopping here costs a mispredict on the other 10%, and saves the
        // candidate compare below on the 90%
        if ((in_a | in_b) == 0) return false;
#endif
        // the first candidate, or a padding slot when there is none
        const std::size_t first =
            in_a != 0 ? a + static_cast<std::size_t>(__builtin_ctz(in_a))
                      : b + static_cast<std::size_t>(__builtin_ctz(in_b | 0x10000u));
        const std::uint16_t ref = rec_.order[slots_[first]];
        if (__builtin_expect(rec_.same_member(ref, m) & ((in_a | in_b) != 0), 1)) {
            out = rec_.score_at(ref);
            return true;
        }
        const std::uint64_t all = (std::uint64_t{in_b} << 16 | in_a);
        for (std::uint64_t rest = all & (all - 1); rest != 0; rest &= rest - 1) {
            const auto bit = static_cast<std::size_t>(__builtin_ctzll(rest));
            const std::uint16_t r = rec_.order[slots_[bit < 16 ? a + bit : b + bit - 16]];
            if (rec_.same_member(r, m)) {
                out = rec_.score_at(r);
                return true;
            }
        }
        return false;
    }

private:
    std::size_t first_group(std::uint64_t h) const noexcept {
        return static_cast<std::size_t>(((h >> 32) * groups_) >> 32);
    }
    std::size_t second_group(std::uint64_t h) const noexcept {
        return static_cast<std::size_t>(((h & 0xffffff00u) * groups_) >> 32);
    }
    static std::uint8_t control_of(std::uint64_t h) noexcept {
        const auto c = static_cast<std::uint8_t>(h);
        return c == 0 ? 1 : c;
    }
    const records_model& rec_;
    std::size_t groups_;
    bool overflow_ = false;
    std::vector<std::uint8_t> ctrl_;
    std::vector<std::uint8_t> slots_;
};

template <class Lookup>
__attribute__((noinline)) double time_lookups(const std::vector<std::string>& keys,
                                              const Lookup& lookup, std::size_t& found) {
    const auto t0 = std::chrono::steady_clock::now();
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (const auto& k : keys) {
            double s = 0;
            const bool hit = lookup(k, s);
            found += hit ? 1 : 0;
            sum += s;
        }
    const auto t1 = std::chrono::steady_clock::now();
    asm volatile("" : : "r"(&sum) : "memory");
    return std::chrono::duration<double, std::nano>(t1 - t0).count() /
           static_cast<double>(rounds * keys.size());
}

void report(const char* name, std::vector<double> t) {
    std::sort(t.begin(), t.end());
    std::printf("  %-12s %6.2f ns  (%.2f - %.2f)\n", name, t[t.size() / 2], t.front(), t.back());
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc >= 2 ? std::strtoul(argv[1], nullptr, 10) : 0;
    static_assert(sizeof(std::string) >= 32, "keys must keep 15 bytes inline (see same_member)");
    const char* only = argc == 3 ? argv[2] : "";
    if (n == 0 || n > 255 || argc > 3) {
        std::fprintf(stderr, "usage: listpack_index <n, at most 255> [hit|miss]\n");
        return 2;
    }
    std::vector<std::string> members;
    std::vector<double> scores;
    zset::sorted_set<> listpack;
    zset::sorted_set<> skiplist(zset::options{0, 64});
#ifdef WITH_ABSL
    absl::flat_hash_map<std::string, double> absl_map;
    peers::redis_skiplist redisskl;
#endif
    for (std::size_t i = 0; i < n; ++i) {
        members.push_back(member_name(i));
        scores.push_back(score_of(stream::main, i));
        listpack.add(members.back(), scores.back());
        skiplist.add(members.back(), scores.back());
#ifdef WITH_ABSL
        absl_map.emplace(members.back(), scores.back());
        redisskl.add(members.back(), scores.back());
#endif
    }
    const records_model rec(members, scores);
    std::vector<std::string> by_position;
    for (const auto e : listpack) by_position.emplace_back(e.member);
    const swiss_model<std::uint8_t> swiss_pos(rec, by_position);
    const swiss_model<std::uint16_t> swiss_ref(rec, by_position);
    // as many groups as swiss_pos (7/8 load) and twice as many
    const std::size_t base_groups = swiss_pos.bytes() / 32;
    const two_choice_model two_choice(rec, by_position, base_groups);
    const two_choice_model two_choice_wide(rec, by_position, 2 * base_groups);
    if (two_choice.overflowed() || two_choice_wide.overflowed()) {
        std::fprintf(stderr, "listpack_index: a two-choice group overflowed at this n\n");
        return 1;
    }

    std::printf("n = %zu: listpack block %zu B, fingerprints %zu B + spare; swiss_pos table %zu B, "
                "swiss_ref table %zu B; %.0f%% of members outside their home group\n",
                n, listpack.memory_usage() - sizeof(listpack), n, swiss_pos.bytes(),
                swiss_ref.bytes(), 100 * swiss_pos.spill());
    std::printf("two_choice table %zu B, two_choice_wide %zu B\n", two_choice.bytes(),
                two_choice_wide.bytes());
    for (const bool hits : {true, false}) {
        if (std::strcmp(only, hits ? "miss" : "hit") == 0) continue;
        std::vector<std::string> keys;
        rng draw(hits ? 42 : 43);
        for (std::size_t i = 0; i < pool; ++i)
            keys.push_back(member_name(draw.below(n) + (hits ? 0 : n)));
        for (const auto& k : keys) {  // every structure answers as the container does
            const auto want = listpack.score(k);
            double a = 0, b = 0;
            double c = 0, d = 0;
            const bool in_pos = swiss_pos.score(k, a), in_ref = swiss_ref.score(k, b);
            const bool in_two = two_choice.score(k, c), in_wide = two_choice_wide.score(k, d);
            if (want.has_value() != hits || skiplist.score(k) != want ||
                in_pos != want.has_value() || in_ref != want.has_value() ||
                in_two != want.has_value() || in_wide != want.has_value() ||
                (want && (a != *want || b != *want || c != *want || d != *want))) {
                std::fprintf(stderr, "listpack_index: wrong answer for %s\n", k.c_str());
                return 1;
            }
        }
        std::vector<double> t_lp, t_sk, t_pos, t_ref, t_two, t_wide, t_absl, t_redisskl;
        std::size_t found = 0;
        const auto zscore = [](const zset::sorted_set<>& s) {
            return [&s](const std::string& k, double& out) {
                const auto v = s.score(k);
                out = v ? *v : 0.0;
                return v.has_value();
            };
        };
        for (int p = 0; p < passes; ++p) {
            t_lp.push_back(time_lookups(keys, zscore(listpack), found));
            t_sk.push_back(time_lookups(keys, zscore(skiplist), found));
            t_pos.push_back(time_lookups(
                keys, [&](const std::string& k, double& out) { return swiss_pos.score(k, out); },
                found));
            t_ref.push_back(time_lookups(
                keys, [&](const std::string& k, double& out) { return swiss_ref.score(k, out); },
                found));
            t_two.push_back(time_lookups(
                keys, [&](const std::string& k, double& out) { return two_choice.score(k, out); },
                found));
            t_wide.push_back(time_lookups(
                keys,
                [&](const std::string& k, double& out) { return two_choice_wide.score(k, out); },
                found));
#ifdef WITH_ABSL
            t_absl.push_back(time_lookups(
                keys,
                [&](const std::string& k, double& out) {
                    const auto it = absl_map.find(k);
                    out = it == absl_map.end() ? 0.0 : it->second;
                    return it != absl_map.end();
                },
                found));
            t_redisskl.push_back(time_lookups(
                keys,
                [&](const std::string& k, double& out) {
                    const auto* x = redisskl.find(k);
                    out = x == nullptr ? 0.0 : x->score;
                    return x != nullptr;
                },
                found));
#endif
        }
        const std::size_t expected =
            hits ? static_cast<std::size_t>(passes) * rounds * pool * (t_absl.empty() ? 6 : 8) : 0;
        std::printf("ZSCORE %s%s:\n", hits ? "hit" : "miss",
                    found == expected ? "" : " (WRONG COUNT)");
        report("listpack", t_lp);
        report("skiplist", t_sk);
        report("swiss_pos", t_pos);
        report("swiss_ref", t_ref);
        report("two_choice", t_two);
        report("two_wide", t_wide);
        if (!t_absl.empty()) report("absl", t_absl);
        if (!t_redisskl.empty()) report("redisskl", t_redisskl);
        if (found != expected) return 1;
    }
}
