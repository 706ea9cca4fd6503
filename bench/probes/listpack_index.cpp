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
//              the groups;
//   bucket16/32  the entries sorted by bucket (16 or 32 buckets, from the hash's high bits)
//              with no empty slots: a control byte (8 hash bits) and a position byte an entry,
//              and one-byte bucket starts; a lookup masks one 16-byte load of its bucket's
//              control bytes to the bucket's length. Nothing depends on the table's size, so
//              it is never rebuilt: an insert moves the entries after its bucket up a byte;
//   nibble32/16  bucket32/16 with 4-bit control values, two to a byte;
//   bare64_K   the same with 64 buckets and no control bytes (a position byte an entry, the
//              fingerprints' own bytes): a lookup compares the members of its bucket's first
//              K entries without a branch;
//   scan       the container's own lookup (fingerprints in position order, the block's scan
//              functions) as a model, so that its column differs from the tables' by the
//              table alone ("listpack" also adds the container's call and wrapper).
//
// Members of at most 15 bytes compare without a branch (see records_model::same_member).
// Each table has the fewest groups that keep the load at or under 7/8. Records, order array and
// hash function (zset::hash) are the container's; the lookups are timed in one process against
// zset in listpack mode (default options), zset in skiplist mode (thresholds 0, as the suite's
// zset_skiplist) and, when built with Abseil, absl::flat_hash_map and the suite's Redis-style
// skiplist (bench/peers/redis_skiplist.hpp). Five passes of 10^6 lookups each, structures
// interleaved in every pass; each line prints a structure's median and range. `insert` times
// instead what keeping the fingerprints, a two-choice table or a bucketed table costs an insert
// (insert_model).
//
//   g++ -std=c++17 -O2 -DNDEBUG -Iinclude -Ibench bench/probes/listpack_index.cpp
//       bench/alloc_counter.cpp -o /tmp/listpack_index
//   /tmp/listpack_index 100          (hit, miss or insert after the n: that part only)
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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

/// The container's listpack lookup as a model, for a fair baseline: the fingerprint array in
/// position order (hash bits 24-39, as the block's), scanned with the block's own functions
/// (detail::match_u16x128, then a branch on whether there is a candidate), the member compared
/// as the other models do. So the models' columns differ from this one by their table only,
/// where they differ from "listpack" also by the container's call and wrapper.
class scan_model {
public:
    scan_model(const records_model& rec, const std::vector<std::string>& by_position) : rec_(rec) {
        fp_.assign(by_position.size() + 16, 0);
        for (std::size_t p = 0; p < by_position.size(); ++p)
            fp_[p] = static_cast<std::uint16_t>(zset::hash<std::string>{}(by_position[p]) >> 24);
        n_ = by_position.size();
    }
    bool score(std::string_view m, double& out) const noexcept {
        namespace zd = zset::detail;
        const std::uint64_t h = zset::hash<std::string>{}(m);
        const zd::byte_matches found =
            zd::match_u16x128(fp_.data(), n_, static_cast<std::uint16_t>(h >> 24));
        if (!found.any()) return false;
        const std::uint16_t ref = rec_.order[zd::first_match(found)];
        if (__builtin_expect(rec_.same_member(ref, m), 1)) {
            out = rec_.score_at(ref);
            return true;
        }
        const zd::byte_matches rest = zd::without_first_match(found);
        if (__builtin_expect(!rest.any(), 1)) return false;
        const std::size_t at = zd::first_accepted(
            rest, 0, [&](std::size_t i) { return rec_.same_member(rec_.order[i], m); });
        if (at == zd::no_match) return false;
        out = rec_.score_at(rec_.order[at]);
        return true;
    }

private:
    const records_model& rec_;
    std::size_t n_ = 0;
    std::vector<std::uint16_t> fp_;
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

/// What both bucketed models share: the position bytes sorted by bucket (B buckets picked by
/// the hash's high 32 bits), with no empty slots, and the B + 1 one-byte bucket starts.
template <std::size_t Buckets>
class bucket_entries {
public:
    bucket_entries(const records_model& rec, const std::vector<std::string>& by_position,
                   std::size_t padding)
        : rec_(rec) {
        const std::size_t n = by_position.size();
        for (std::size_t p = 0; p < n; ++p)
            hashes_.push_back(zset::hash<std::string>{}(by_position[p]));
        std::vector<std::size_t> entries(n);  // positions, by bucket
        for (std::size_t p = 0; p < n; ++p) entries[p] = p;
        std::stable_sort(entries.begin(), entries.end(), [&](std::size_t a, std::size_t b) {
            return bucket_of(hashes_[a]) < bucket_of(hashes_[b]);
        });
        pos_.assign(n + padding, 0);
        for (std::size_t i = 0; i < n; ++i) {
            pos_[i] = static_cast<std::uint8_t>(entries[i]);
            ++start_[bucket_of(hashes_[entries[i]]) + 1];
        }
        for (std::size_t b = 1; b <= Buckets; ++b) {
            start_[b] = static_cast<std::uint8_t>(start_[b] + start_[b - 1]);
            longest_ = std::max<std::size_t>(longest_, start_[b] - start_[b - 1]);
        }
    }
    static std::size_t bucket_of(std::uint64_t h) noexcept {
        return static_cast<std::size_t>(((h >> 32) * Buckets) >> 32);
    }
    std::size_t entries() const noexcept { return hashes_.size(); }
    std::size_t longest_bucket() const noexcept { return longest_; }
    /// The hash of the member in entry i (for building control bytes).
    std::uint64_t hash_of_entry(std::size_t i) const noexcept { return hashes_[pos_[i]]; }
    std::size_t first(std::size_t b) const noexcept { return start_[b]; }
    std::size_t length(std::size_t b) const noexcept {
        return static_cast<std::size_t>(start_[b + 1]) - start_[b];
    }
    std::uint16_t ref(std::size_t entry) const noexcept { return rec_.order[pos_[entry]]; }
    const records_model& records() const noexcept { return rec_; }

    /// The score of m among the entries first + i for the bits i of candidates (not 0), the
    /// lowest first: a hit is nearly always the first.
    bool score_at_candidates(std::size_t first, unsigned candidates, std::string_view m,
                             double& out) const noexcept {
        const std::uint16_t r0 = ref(first + static_cast<std::size_t>(__builtin_ctz(candidates)));
        if (__builtin_expect(rec_.same_member(r0, m), 1)) {
            out = rec_.score_at(r0);
            return true;
        }
        for (candidates &= candidates - 1; candidates != 0; candidates &= candidates - 1) {
            const std::uint16_t r =
                ref(first + static_cast<std::size_t>(__builtin_ctz(candidates)));
            if (rec_.same_member(r, m)) {
                out = rec_.score_at(r);
                return true;
            }
        }
        return false;
    }

    /// The score of m among entries [first, first + length) that wanted(entry) lets through:
    /// a plain loop, for the rare long buckets.
    template <class Wanted>
    __attribute__((noinline)) bool score_in(std::size_t first, std::size_t length,
                                            std::string_view m, double& out,
                                            const Wanted& wanted) const noexcept {
        for (std::size_t i = first; i < first + length; ++i) {
            if (!wanted(i) || !rec_.same_member(ref(i), m)) continue;
            out = rec_.score_at(ref(i));
            return true;
        }
        return false;
    }

private:
    const records_model& rec_;
    std::vector<std::uint64_t> hashes_;  // by position
    std::uint8_t start_[Buckets + 1] = {};
    std::size_t longest_ = 0;
    std::vector<std::uint8_t> pos_;
};

/// Bucketed: a control byte (the hash's low 8 bits) beside each entry's position byte. A
/// lookup reads its bucket's control bytes with one 16-byte load, masked to the bucket's
/// length (a bucket of more than 16 takes a loop). An insert shifts the entries after its
/// bucket by one and adds one to the later bucket starts: no rebuild, ever, since nothing
/// depends on the table's size.
template <std::size_t Buckets>
class bucketed_model {
public:
    bucketed_model(const records_model& rec, const std::vector<std::string>& by_position)
        : table_(rec, by_position, 16) {
        ctrl_.assign(table_.entries() + 16, 0);
        for (std::size_t i = 0; i < table_.entries(); ++i)
            ctrl_[i] = static_cast<std::uint8_t>(table_.hash_of_entry(i));
    }
    /// Control and position bytes for n entries, plus the bucket starts.
    std::size_t bytes() const noexcept { return 2 * table_.entries() + Buckets + 1; }
    std::size_t longest_bucket() const noexcept { return table_.longest_bucket(); }

    bool score(std::string_view m, double& out) const noexcept {
        const std::uint64_t h = zset::hash<std::string>{}(m);
        const std::size_t b = table_.bucket_of(h);
        const std::size_t first = table_.first(b), length = table_.length(b);
        const auto tag = static_cast<std::uint8_t>(h);
        if (__builtin_expect(length > 16, 0))
            return table_.score_in(first, length, m, out,
                                   [&](std::size_t i) { return ctrl_[i] == tag; });
        const __m128i all =
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ctrl_.data() + first)),
                           _mm_set1_epi8(static_cast<char>(tag)));
        unsigned hits = static_cast<unsigned>(_mm_movemask_epi8(all)) & ((1u << length) - 1);
        if (hits == 0) return false;
        return table_.score_at_candidates(first, hits, m, out);
    }

private:
    bucket_entries<Buckets> table_;
    std::vector<std::uint8_t> ctrl_;
};

/// Bucketed with 4-bit control values, two to a byte (entry 2j in byte j's low half): half a
/// byte an entry less than bucketed_model. A lookup loads the 32 values from its bucket's
/// first pair on, spreads them to a byte each, compares, and shifts the mask by the bucket's
/// parity; a miss meets a false candidate ~n/B/16 of the time instead of n/B/256.
template <std::size_t Buckets>
class nibble_bucketed_model {
public:
    nibble_bucketed_model(const records_model& rec, const std::vector<std::string>& by_position)
        : table_(rec, by_position, 16) {
        ctrl_.assign(table_.entries() / 2 + 17, 0);
        for (std::size_t i = 0; i < table_.entries(); ++i)
            ctrl_[i / 2] = static_cast<std::uint8_t>(
                ctrl_[i / 2] | (tag_of(table_.hash_of_entry(i)) << (i % 2 == 0 ? 0 : 4)));
    }
    std::size_t bytes() const noexcept {
        return table_.entries() + (table_.entries() + 1) / 2 + Buckets + 1;
    }

    bool score(std::string_view m, double& out) const noexcept {
        const std::uint64_t h = zset::hash<std::string>{}(m);
        const std::size_t b = table_.bucket_of(h);
        const std::size_t first = table_.first(b), length = table_.length(b);
        const std::uint8_t tag = tag_of(h);
        if (__builtin_expect(length > 16, 0))
            return table_.score_in(first, length, m, out, [&](std::size_t i) {
                return ((ctrl_[i / 2] >> (i % 2 == 0 ? 0 : 4)) & 15u) == tag;
            });
        const __m128i packed =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctrl_.data() + first / 2));
        const __m128i low_nibbles = _mm_set1_epi8(0x0f);
        const __m128i lo = _mm_and_si128(packed, low_nibbles);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles);
        const __m128i want = _mm_set1_epi8(static_cast<char>(tag));
        const auto first16 = static_cast<std::uint32_t>(
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_unpacklo_epi8(lo, hi), want)));
        const auto next16 = static_cast<std::uint32_t>(
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_unpackhi_epi8(lo, hi), want)));
        unsigned hits =
            static_cast<unsigned>(((next16 << 16 | first16) >> (first % 2)) & ((1u << length) - 1));
        // a miss stops here unless it meets a candidate (~19% of misses at n = 100 with 32
        // buckets); comparing a stand-in entry without this branch, as the container's scan
        // does, made every miss read a record (n = 100: 11.5 -> 14.9 ns)
        if (hits == 0) return false;
        return table_.score_at_candidates(first, hits, m, out);
    }

private:
    static std::uint8_t tag_of(std::uint64_t h) noexcept {
        return static_cast<std::uint8_t>(h & 15u);
    }
    bucket_entries<Buckets> table_;
    std::vector<std::uint8_t> ctrl_;
};

/// Bucketed without control bytes: a position byte only, so it takes the fingerprints' bytes
/// (one per position) plus B + 1 bucket starts. With B near n/2 a bucket holds ~2 entries; a
/// lookup compares the members of its bucket's first K entries, always, without a branch (a
/// shorter bucket's missing entries are masked out), and a bucket longer than K takes a loop.
template <std::size_t Buckets, std::size_t K>
class bare_bucketed_model {
public:
    bare_bucketed_model(const records_model& rec, const std::vector<std::string>& by_position)
        : table_(rec, by_position, K) {}
    std::size_t bytes() const noexcept { return table_.entries() + Buckets + 1; }
    std::size_t longest_bucket() const noexcept { return table_.longest_bucket(); }

    bool score(std::string_view m, double& out) const noexcept {
        const std::size_t b = table_.bucket_of(zset::hash<std::string>{}(m));
        const std::size_t first = table_.first(b), length = table_.length(b);
        if (__builtin_expect(length > K, 0))
            return table_.score_in(first, length, m, out, [](std::size_t) { return true; });
        unsigned found = 0;
        std::uint16_t refs[K];
        for (std::size_t i = 0; i < K; ++i) {
            refs[i] = table_.ref(first + i);
            found |= static_cast<unsigned>(table_.records().same_member(refs[i], m) & (i < length))
                     << i;
        }
        if (found == 0) return false;
        out = table_.records().score_at(refs[__builtin_ctz(found)]);
        return true;
    }

private:
    bucket_entries<Buckets> table_;
};

void report(const char* name, std::vector<double> t) {
    if (t.empty()) return;
    std::sort(t.begin(), t.end());
    std::printf("  %-12s %6.2f ns  (%.2f - %.2f)\n", name, t[t.size() / 2], t.front(), t.back());
}

/// What a listpack insert pays to keep its lookup structure, building a block of n members
/// from empty in the suite's order (positions by score), the records and their area left
/// out (both designs write them alike):
///   fingerprints  the order array and the fingerprint array each open a gap at the position;
///   two_choice    the order array opens its gap, the position bytes at and after the position
///                 grow by one (one SSE2 compare-and-add a group), the entry goes to the less
///                 full of its two groups; when n passes 14 a group the table doubles its groups
///                 and every member is hashed and placed again (the 8 stored bits cannot pick the
///                 groups: see docs/benchmarks.md).
/// Both hash the new member (the block stores 8 bits of it either way) and grow their arrays
/// as the block does (n + n/16 + 2 positions).
class insert_model {
public:
    insert_model(const std::vector<std::string>& members, const std::vector<double>& scores)
        : members_(members) {
        std::vector<double> sorted;
        for (const double sc : scores) {  // the position each insert lands at
            const auto at = std::lower_bound(sorted.begin(), sorted.end(), sc);
            positions_.push_back(static_cast<std::size_t>(at - sorted.begin()));
            sorted.insert(at, sc);
        }
    }

    __attribute__((noinline)) std::size_t build_fingerprints() const {
        std::vector<std::uint16_t> order;
        std::vector<std::uint8_t> fp;
        for (std::size_t i = 0; i < members_.size(); ++i) {
            const auto [h, p] = insert_order(order, fp, i);
            fp.insert(fp.begin() + static_cast<std::ptrdiff_t>(p),
                      static_cast<std::uint8_t>(h >> 24));
        }
        return order.size() + fp[0];
    }

    /// With presized, the table has its final group count from the start: no rebuilds (what
    /// the maintenance costs without them).
    __attribute__((noinline)) std::size_t build_two_choice(std::size_t& rebuilds,
                                                           bool presized) const {
        std::vector<std::uint16_t> order;
        std::vector<std::uint8_t> ctrl, pos, unused;
        std::size_t groups = 0;
        if (presized) {
            while (groups * 14 < members_.size()) groups = groups == 0 ? 1 : 2 * groups;
            ctrl.assign(groups * 16, 0);
            pos.assign(groups * 16, 0);
        }
        for (std::size_t i = 0; i < members_.size(); ++i) {
            const auto [h, p] = insert_order(order, unused, i);
            if (order.size() > groups * 14) {  // doubling: rebuilt at 15, 29, 57, 113 members
                groups = groups == 0 ? 1 : 2 * groups;
                ctrl.assign(groups * 16, 0);
                pos.assign(groups * 16, 0);
                for (std::size_t q = 0; q < order.size(); ++q)  // read each member, hash it
                    place(ctrl, pos, groups, zset::hash<std::string>{}(members_[order[q]]), q);
                ++rebuilds;
                continue;
            }
            shift_positions(ctrl, pos, p);
            place(ctrl, pos, groups, h, p);
        }
        return order.size() + pos[0];
    }

    /// The bucketed table (bucketed_model<32>): the position bytes at and after p grow by one,
    /// the entries after the new one's bucket move up a byte, the later bucket starts grow by
    /// one. Nothing is ever rebuilt.
    /// The fingerprints again, in a fixed array as the bucketed table below (its growth is the
    /// block's regrow, which copies both alike): the baseline for build_bucketed.
    __attribute__((noinline)) std::size_t build_fingerprints_fixed() const {
        std::vector<std::uint16_t> order;
        std::vector<std::uint8_t> unused;
        std::uint8_t fp[256 + 16] = {};
        for (std::size_t i = 0; i < members_.size(); ++i) {
            const auto [h, p] = insert_order(order, unused, i);
            const std::size_t n = order.size() - 1;
            std::memmove(fp + p + 1, fp + p, n - p);
            fp[p] = static_cast<std::uint8_t>(h >> 24);
        }
        return order.size() + fp[0];
    }

    /// The bucketed table (bucketed_model<32>) in fixed arrays: the position bytes at and after
    /// p grow by one, the entries after the new one's bucket move up a byte, the later bucket
    /// starts grow by one. Nothing is ever rebuilt.
    __attribute__((noinline)) std::size_t build_bucketed() const {
        constexpr std::size_t buckets = 32;
        std::vector<std::uint16_t> order;
        std::vector<std::uint8_t> unused;
        std::uint8_t ctrl[256 + 16] = {}, pos[256 + 16] = {};
        alignas(16) std::uint8_t start[buckets + 16] = {};  // start[b]: first entry of bucket b
        const __m128i lanes_lo =
            _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m128i lanes_hi = _mm_add_epi8(lanes_lo, _mm_set1_epi8(16));
        for (std::size_t i = 0; i < members_.size(); ++i) {
            const auto [h, p] = insert_order(order, unused, i);
            const std::size_t n = order.size() - 1;  // entries before this one
            shift_bytes(pos, n, p);
            const std::size_t b = static_cast<std::size_t>(((h >> 32) * buckets) >> 32);
            const std::size_t at = start[b + 1];
            std::memmove(ctrl + at + 1, ctrl + at, n - at);
            std::memmove(pos + at + 1, pos + at, n - at);
            ctrl[at] = static_cast<std::uint8_t>(h);
            pos[at] = static_cast<std::uint8_t>(p);
            // the starts of buckets b + 1 and later (lanes above b) grow by one
            const __m128i above = _mm_set1_epi8(static_cast<char>(b));
            auto* lo = reinterpret_cast<__m128i*>(start);
            auto* hi = reinterpret_cast<__m128i*>(start + 16);
            _mm_store_si128(lo, _mm_sub_epi8(_mm_load_si128(lo), _mm_cmpgt_epi8(lanes_lo, above)));
            _mm_store_si128(hi, _mm_sub_epi8(_mm_load_si128(hi), _mm_cmpgt_epi8(lanes_hi, above)));
            start[buckets] = static_cast<std::uint8_t>(order.size());
        }
        return order.size() + pos[0] + ctrl[0];
    }

private:
    /// bytes[0, n) at or above p grow by one, 16 at a time (one SSE2 compare-and-subtract).
    static void shift_bytes(std::uint8_t* bytes, std::size_t n, std::size_t p) {
        const __m128i from = _mm_set1_epi8(static_cast<char>(p));
        for (std::size_t at = 0; at < n; at += 16) {  // may touch 15 bytes past n
            auto* v = reinterpret_cast<__m128i*>(bytes + at);
            const __m128i x = _mm_loadu_si128(v);
            const __m128i at_or_after = _mm_cmpeq_epi8(_mm_max_epu8(x, from), x);
            _mm_storeu_si128(v, _mm_sub_epi8(x, at_or_after));
        }
    }
    /// Hashes member i and opens its gap in the order array (growing it as the block does);
    /// returns the hash and the position.
    std::pair<std::uint64_t, std::size_t> insert_order(std::vector<std::uint16_t>& order,
                                                       std::vector<std::uint8_t>& bytes,
                                                       std::size_t i) const {
        const std::uint64_t h = zset::hash<std::string>{}(members_[i]);
        const std::size_t p = positions_[i];
        if (order.size() == order.capacity()) grow(order, bytes);
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(p), static_cast<std::uint16_t>(i));
        return {h, p};
    }
    template <class Order, class Bytes>
    static void grow(Order& order, Bytes& bytes) {
        const std::size_t n = order.size();
        order.reserve(n + n / 16 + 2);
        bytes.reserve(n + n / 16 + 2);
    }
    /// Position bytes at or after p grow by one (empty slots' bytes change too, harmlessly).
    static void shift_positions(std::vector<std::uint8_t>& ctrl, std::vector<std::uint8_t>& pos,
                                std::size_t p) {
        const __m128i from = _mm_set1_epi8(static_cast<char>(p));
        for (std::size_t at = 0; at < ctrl.size(); at += 16) {
            auto* v = reinterpret_cast<__m128i*>(pos.data() + at);
            const __m128i x = _mm_loadu_si128(v);
            const __m128i at_or_after = _mm_cmpeq_epi8(_mm_max_epu8(x, from), x);
            _mm_storeu_si128(v, _mm_sub_epi8(x, at_or_after));
        }
    }
    static void place(std::vector<std::uint8_t>& ctrl, std::vector<std::uint8_t>& pos,
                      std::size_t groups, std::uint64_t h, std::size_t p) {
        const auto free_in = [&](std::size_t g) {
            const __m128i c =
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctrl.data() + g * 16));
            return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(c, _mm_setzero_si128())));
        };
        const std::size_t a = static_cast<std::size_t>(((h >> 32) * groups) >> 32);
        const std::size_t b = static_cast<std::size_t>(((h & 0xffffff00u) * groups) >> 32);
        const unsigned fa = free_in(a), fb = free_in(b);
        const bool into_b = __builtin_popcount(fb) > __builtin_popcount(fa);
        const unsigned f = into_b ? fb : fa;
        if (f == 0) return;  // both full: a full model would move an entry; rare at 14 a group
        const std::size_t slot = (into_b ? b : a) * 16 + static_cast<std::size_t>(__builtin_ctz(f));
        const auto c = static_cast<std::uint8_t>(h);
        ctrl[slot] = c == 0 ? 1 : c;
        pos[slot] = static_cast<std::uint8_t>(p);
    }

    const std::vector<std::string>& members_;
    std::vector<std::size_t> positions_;
};

/// ns per insert of each design, five passes of 2000 builds each.
int time_inserts(const std::vector<std::string>& members, const std::vector<double>& scores) {
    const insert_model model(members, scores);
    std::vector<double> fingerprints, two_choice, presized, fixed, bucketed;
    std::size_t sink = 0, rebuilds = 0;
    constexpr int builds = 2000;
    const auto per_insert = [&](auto&& build) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int b = 0; b < builds; ++b) sink += build();
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::nano>(t1 - t0).count() /
               static_cast<double>(builds * members.size());
    };
    for (int p = 0; p < passes; ++p) {
        fingerprints.push_back(per_insert([&] { return model.build_fingerprints(); }));
        two_choice.push_back(per_insert([&] { return model.build_two_choice(rebuilds, false); }));
        std::size_t none = 0;
        presized.push_back(per_insert([&] { return model.build_two_choice(none, true); }));
        fixed.push_back(per_insert([&] { return model.build_fingerprints_fixed(); }));
        bucketed.push_back(per_insert([&] { return model.build_bucketed(); }));
    }
    std::printf("insert (building %zu members from empty; %zu table rebuilds a build):\n",
                members.size(), rebuilds / (static_cast<std::size_t>(passes) * builds));
    report("fingerprints", fingerprints);
    report("two_choice", two_choice);
    report("(presized)", presized);
    report("fp (fixed)", fixed);
    report("bucket32", bucketed);
    asm volatile("" : : "r"(sink) : "memory");
    return 0;
}

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

/// Every structure, built from the same n members and scores.
struct structures {
    std::vector<std::string> members, by_position;
    std::vector<double> scores;
    zset::sorted_set<> listpack;
    zset::sorted_set<> skiplist{zset::options{0, 64}};
#ifdef WITH_ABSL
    absl::flat_hash_map<std::string, double> absl_map;
    peers::redis_skiplist redisskl;
#endif
    std::optional<records_model> rec;
    std::optional<scan_model> scan;
    std::optional<swiss_model<std::uint8_t>> swiss_pos;
    std::optional<swiss_model<std::uint16_t>> swiss_ref;
    std::optional<two_choice_model> two_choice, two_wide;
    std::optional<bucketed_model<16>> bucket16;
    std::optional<bucketed_model<32>> bucket32;
    std::optional<nibble_bucketed_model<32>> nibble32;
    std::optional<nibble_bucketed_model<16>> nibble16;
    std::optional<bare_bucketed_model<64, 3>> bare64_3;
    std::optional<bare_bucketed_model<64, 4>> bare64_4;

    explicit structures(std::size_t n) {
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
        for (const auto e : listpack) by_position.emplace_back(e.member);
        rec.emplace(members, scores);
        scan.emplace(*rec, by_position);
        swiss_pos.emplace(*rec, by_position);
        swiss_ref.emplace(*rec, by_position);
        // as many groups as swiss_pos (7/8 load), and twice as many
        two_choice.emplace(*rec, by_position, swiss_pos->bytes() / 32);
        two_wide.emplace(*rec, by_position, swiss_pos->bytes() / 16);
        bucket16.emplace(*rec, by_position);
        bucket32.emplace(*rec, by_position);
        nibble32.emplace(*rec, by_position);
        nibble16.emplace(*rec, by_position);
        bare64_3.emplace(*rec, by_position);
        bare64_4.emplace(*rec, by_position);
    }

    template <class Model>
    static auto lookup(const Model& m) {
        return [&m](const std::string& k, double& out) { return m.score(k, out); };
    }
    static auto lookup(const zset::sorted_set<>& s) {
        return [&s](const std::string& k, double& out) {
            const auto v = s.score(k);
            out = v ? *v : 0.0;
            return v.has_value();
        };
    }

    /// Whether every model answers every key as the container does.
    bool agree(const std::vector<std::string>& keys, bool hits) const {
        for (const auto& k : keys) {
            const auto want = listpack.score(k);
            const auto same = [&](const auto& model) {
                double got = 0;
                return model.score(k, got) == want.has_value() && (!want || got == *want);
            };
            if (want.has_value() != hits || skiplist.score(k) != want || !same(*scan) ||
                !same(*swiss_pos) || !same(*swiss_ref) || !same(*two_choice) || !same(*two_wide) ||
                !same(*bucket16) || !same(*bucket32) || !same(*bare64_3) || !same(*bare64_4) ||
                !same(*nibble32) || !same(*nibble16))
                return false;
        }
        return true;
    }
};

constexpr const char* names[] = {"listpack", "skiplist", "swiss_pos", "swiss_ref", "two_choice",
                                 "two_wide", "bucket16", "bucket32",  "bare64_3",  "bare64_4",
                                 "absl",     "redisskl", "scan",      "nibble32",  "nibble16"};
constexpr std::size_t structure_count = sizeof(names) / sizeof(names[0]);

/// One timed pass over every structure, in a fixed order; adds each one's ns per lookup.
void time_pass(const structures& s, const std::vector<std::string>& keys,
               std::vector<double> (&times)[structure_count], std::size_t& found) {
    times[0].push_back(time_lookups(keys, structures::lookup(s.listpack), found));
    times[1].push_back(time_lookups(keys, structures::lookup(s.skiplist), found));
    times[2].push_back(time_lookups(keys, structures::lookup(*s.swiss_pos), found));
    times[3].push_back(time_lookups(keys, structures::lookup(*s.swiss_ref), found));
    times[4].push_back(time_lookups(keys, structures::lookup(*s.two_choice), found));
    times[5].push_back(time_lookups(keys, structures::lookup(*s.two_wide), found));
    times[6].push_back(time_lookups(keys, structures::lookup(*s.bucket16), found));
    times[7].push_back(time_lookups(keys, structures::lookup(*s.bucket32), found));
    times[8].push_back(time_lookups(keys, structures::lookup(*s.bare64_3), found));
    times[9].push_back(time_lookups(keys, structures::lookup(*s.bare64_4), found));
    times[12].push_back(time_lookups(keys, structures::lookup(*s.scan), found));
    times[13].push_back(time_lookups(keys, structures::lookup(*s.nibble32), found));
    times[14].push_back(time_lookups(keys, structures::lookup(*s.nibble16), found));
#ifdef WITH_ABSL
    const auto absl_find = [&](const std::string& k, double& out) {
        const auto it = s.absl_map.find(k);
        out = it == s.absl_map.end() ? 0.0 : it->second;
        return it != s.absl_map.end();
    };
    const auto redisskl_find = [&](const std::string& k, double& out) {
        const auto* x = s.redisskl.find(k);
        out = x == nullptr ? 0.0 : x->score;
        return x != nullptr;
    };
    times[10].push_back(time_lookups(keys, absl_find, found));
    times[11].push_back(time_lookups(keys, redisskl_find, found));
#endif
}

}  // namespace

int main(int argc, char** argv) {
    static_assert(sizeof(std::string) >= 32, "keys must keep 15 bytes inline (see same_member)");
    const std::size_t n = argc >= 2 ? std::strtoul(argv[1], nullptr, 10) : 0;
    const char* only = argc == 3 ? argv[2] : "";
    if (n == 0 || n > 255 || argc > 3) {
        std::fprintf(stderr, "usage: listpack_index <n, at most 255> [hit|miss|insert]\n");
        return 2;
    }
    const structures s(n);
    if (std::strcmp(only, "insert") == 0) return time_inserts(s.members, s.scores);
    if (s.two_choice->overflowed() || s.two_wide->overflowed()) {
        std::fprintf(stderr, "listpack_index: a two-choice group overflowed at this n\n");
        return 1;
    }
    std::printf("n = %zu: listpack block %zu B, fingerprints %zu B + spare; swiss_pos table %zu B, "
                "swiss_ref %zu B (%.0f%% of members outside their home group); two_choice %zu B, "
                "two_wide %zu B; bucket16 %zu B (longest bucket %zu), bucket32 %zu B (%zu); bare64 "
                "%zu B (%zu); nibble32 %zu B, nibble16 %zu B\n",
                n, s.listpack.memory_usage() - sizeof(s.listpack), n, s.swiss_pos->bytes(),
                s.swiss_ref->bytes(), 100 * s.swiss_pos->spill(), s.two_choice->bytes(),
                s.two_wide->bytes(), s.bucket16->bytes(), s.bucket16->longest_bucket(),
                s.bucket32->bytes(), s.bucket32->longest_bucket(), s.bare64_3->bytes(),
                s.bare64_3->longest_bucket(), s.nibble32->bytes(), s.nibble16->bytes());
    for (const bool hits : {true, false}) {
        if (std::strcmp(only, hits ? "miss" : "hit") == 0) continue;
        std::vector<std::string> keys;
        rng draw(hits ? 42 : 43);
        for (std::size_t i = 0; i < pool; ++i)
            keys.push_back(member_name(draw.below(n) + (hits ? 0 : n)));
        if (!s.agree(keys, hits)) {
            std::fprintf(stderr, "listpack_index: a model answered differently from zset\n");
            return 1;
        }
        std::vector<double> times[structure_count];
        std::size_t found = 0;
        for (int p = 0; p < passes; ++p) time_pass(s, keys, times, found);
        std::size_t timed = 0;
        for (const auto& t : times) timed += t.size();
        std::printf("ZSCORE %s:\n", hits ? "hit" : "miss");
        for (std::size_t i = 0; i < structure_count; ++i) report(names[i], times[i]);
        if (found != (hits ? timed * rounds * pool : 0)) return 1;
    }
}
