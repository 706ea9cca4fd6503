// Randomized model test: long random operation sequences applied to zset::sorted_set and to a
// brute-force reference (tests/reference_model.hpp), comparing every reply, with validate()
// and a full comparison at checkpoints. Runs over thresholds 0, 1, 2, small and Redis's
// defaults so that both encodings and every conversion path are exercised, and over string,
// integer and user-defined members.
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference_model.hpp"
#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {

using zset::add_flags;

}  // namespace

namespace model_types {
/// A user-defined member type: hashable, equality- and less-comparable.
struct point {
    int x = 0;
    int y = 0;
    friend bool operator==(const point& a, const point& b) { return a.x == b.x && a.y == b.y; }
    friend bool operator<(const point& a, const point& b) {
        return a.x < b.x || (a.x == b.x && a.y < b.y);
    }
};
struct point_hash {
    std::uint64_t operator()(const point& p) const noexcept {
        return zset::detail::mix_integer(
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.x)) << 32) ^
            static_cast<std::uint32_t>(p.y));
    }
};
}  // namespace model_types

namespace {
using model_types::point;
using model_types::point_hash;

template <class Member>
struct member_source;

template <>
struct member_source<std::string> {
    std::vector<std::string> pool;
    explicit member_source(std::size_t n) {
        pool.push_back("");
        pool.push_back(std::string("\0", 1));
        pool.push_back(std::string("a\0b", 3));
        pool.push_back("\xff");
        pool.push_back("\xff\xfe\x00\x01");
        pool.push_back(std::string(64, 'x'));   // at the listpack value limit
        pool.push_back(std::string(65, 'x'));   // one past it
        pool.push_back(std::string(255, 'L'));  // long-length records in a block
        pool.push_back(std::string(300, 'M'));
        for (std::size_t i = 0; pool.size() < n; ++i) {
            std::string m = "member:" + std::to_string(i);
            if (i % 97 == 0) m += std::string(70, 'q');
            pool.push_back(std::move(m));
        }
    }
    const std::string& pick(std::mt19937_64& rng) const {
        return pool[static_cast<std::size_t>(rng() % pool.size())];
    }
    static std::string_view view(const std::string& m) { return m; }
};

template <>
struct member_source<long long> {
    std::size_t n;
    explicit member_source(std::size_t count) : n(count) {}
    long long pick(std::mt19937_64& rng) const {
        return static_cast<long long>(rng() % n) - static_cast<long long>(n / 2);
    }
    static const long long& view(const long long& m) { return m; }
};

template <>
struct member_source<point> {
    std::size_t n;
    explicit member_source(std::size_t count) : n(count) {}
    point pick(std::mt19937_64& rng) const {
        const auto v = static_cast<int>(rng() % n);
        return point{v % 37, v / 37};
    }
    static const point& view(const point& m) { return m; }
};

template <class Score>
Score pick_score(std::mt19937_64& rng, bool equal_scores) {
    if (equal_scores) return Score{0};
    const auto r = rng() % 100;
    if constexpr (std::is_floating_point_v<Score>) {
        if (r == 0) return std::numeric_limits<Score>::infinity();
        if (r == 1) return -std::numeric_limits<Score>::infinity();
        if (r == 2) return Score(-0.0);
        if (r < 10) return static_cast<Score>(static_cast<double>(rng() % 1000) / 7.0);
    }
    return static_cast<Score>(static_cast<long long>(rng() % 40) - 20);
}

add_flags pick_flags(std::mt19937_64& rng) {
    return zset_test::pick_flags(static_cast<unsigned>(rng() & 0xff));
}

bool flags_invalid(add_flags f) {
    return (zset::has(f, add_flags::nx) && zset::has(f, add_flags::xx)) ||
           ((zset::has(f, add_flags::gt) ? 1 : 0) + (zset::has(f, add_flags::lt) ? 1 : 0) +
                (zset::has(f, add_flags::nx) ? 1 : 0) >
            1);
}

template <class Set, class Range>
std::vector<std::pair<typename Set::score_type, typename Set::member_type>>
collect(const Range& r) {
    std::vector<std::pair<typename Set::score_type, typename Set::member_type>> out;
    for (const auto& e : r) out.emplace_back(e.score, typename Set::member_type(e.member));
    return out;
}

template <class Set, class Ref>
void compare_all(const Set& s, const Ref& ref) {
    REQUIRE(s.size() == ref.size());
    REQUIRE(s.validate());
    std::vector<std::pair<typename Set::score_type, typename Set::member_type>> mine;
    for (const auto& e : s) mine.emplace_back(e.score, typename Set::member_type(e.member));
    REQUIRE(mine == ref.all());
    // reverse iteration agrees too
    std::vector<std::pair<typename Set::score_type, typename Set::member_type>> back;
    for (auto it = s.rbegin(); it != s.rend(); ++it)
        back.emplace_back(it->score, typename Set::member_type(it->member));
    std::reverse(back.begin(), back.end());
    REQUIRE(back == mine);
}

template <class Set>
void check_encoding(const Set& s, const zset::options& o, std::size_t largest_since_empty,
                    bool reserved_while_empty) {
    // Redis: listpack while it has never been larger than the entry limit (score updates and
    // erases never convert, an emptied set starts over). An empty set reserve()d past the limit
    // is in skiplist mode, as Redis creates a key from a size hint.
    if (s.empty()) {
        if (!reserved_while_empty) REQUIRE(s.encoding() == zset::encoding::listpack);
    } else if (largest_since_empty > o.max_listpack_entries) {
        REQUIRE(s.encoding() == zset::encoding::skiplist);
    }
}

struct model_config {
    zset::options opts;
    std::size_t pool;
    std::size_t operations;
    bool equal_scores;
    std::uint64_t seed;
};

template <class Member, class Score, class Hash = zset::hash<Member>>
void run_model(const model_config& cfg) {
    using Set = zset::sorted_set<Member, Score, Hash>;
    using Ref = zset_test::reference_model<Member, Score>;
    using lex_key = typename Set::lex_key;
    using vec = std::vector<std::pair<Score, Member>>;
    std::mt19937_64 rng(cfg.seed);
    member_source<Member> members(cfg.pool);
    Set s(cfg.opts);
    Ref ref;
    std::size_t largest = 0;
    bool reserved_while_empty = false;  // reserve() past the limit since the set last emptied
    std::vector<Set> parked;            // copies kept aside to check they are independent

    auto random_score_range = [&] {
        auto random_bound = [&] {
            zset::score_bound<Score> b =
                zset::score_bound<Score>::inclusive(pick_score<Score>(rng, false));
            b.exclusive = rng() % 3 == 0;
            if (rng() % 10 == 0)
                b = rng() % 2 ? zset::score_bound<Score>::lowest()
                              : zset::score_bound<Score>::highest();
            return b;
        };
        return zset::score_range<Score>{random_bound(), random_bound()};
    };
    // lex ranges over member values from the pool
    std::vector<Member> lex_values;
    auto random_lex_range = [&] {
        lex_values.clear();
        auto random_bound = [&]() -> zset::lex_bound<lex_key> {
            const auto r = rng() % 8;
            if (r == 0) return zset::lex_bound<lex_key>::minus_infinity();
            if (r == 1) return zset::lex_bound<lex_key>::plus_infinity();
            lex_values.push_back(members.pick(rng));
            const lex_key k = lex_key(members.view(lex_values.back()));
            return r % 2 ? zset::lex_bound<lex_key>::inclusive(k)
                         : zset::lex_bound<lex_key>::exclusive(k);
        };
        lex_values.reserve(2);
        auto lo = random_bound();
        auto hi = random_bound();
        return zset::lex_range<lex_key>{lo, hi};
    };
    auto random_limit = [&] {
        zset::limit l;
        if (rng() % 2) {
            l.offset = static_cast<long long>(rng() % 20) - 2;
            l.count = static_cast<long long>(rng() % 30) - 3;
        }
        return l;
    };

    for (std::size_t op = 0; op < cfg.operations; ++op) {
        const auto choice = rng() % 1000;
        const Member m = members.pick(rng);
        const auto mv = members.view(m);
        if (choice < 300) {  // ZADD
            const Score sc = pick_score<Score>(rng, cfg.equal_scores);
            const add_flags f = pick_flags(rng);
            if (flags_invalid(f)) {
                const std::size_t before = s.size();
                REQUIRE_THROWS_AS(s.add(mv, sc, f), zset::error);
                REQUIRE(s.size() == before);
            } else {
                REQUIRE(s.add(mv, sc, f) == ref.add(m, sc, f));
            }
        } else if (choice < 330) {  // batch ZADD, sometimes with a NaN that must reject all
            std::vector<std::pair<Member, Score>> batch;
            const auto n = rng() % 8;
            for (std::size_t i = 0; i < n; ++i)
                batch.emplace_back(members.pick(rng), pick_score<Score>(rng, cfg.equal_scores));
            add_flags f = pick_flags(rng);
            if (flags_invalid(f)) f = add_flags::ch;
            bool poison = false;
            if constexpr (std::is_floating_point_v<Score>) {
                if (!batch.empty() && rng() % 5 == 0) {
                    batch[static_cast<std::size_t>(rng() % batch.size())].second =
                        std::numeric_limits<Score>::quiet_NaN();
                    poison = true;
                }
            }
            if (poison) {
                REQUIRE_THROWS_AS(s.add(batch.begin(), batch.end(), f), zset::error);
            } else {
                std::size_t expect = 0;
                for (const auto& [bm, bs] : batch) {
                    const auto st = ref.add(bm, bs, f);
                    if (st == zset::add_status::added ||
                        (st == zset::add_status::updated && zset::has(f, add_flags::ch)))
                        ++expect;
                }
                REQUIRE(s.add(batch.begin(), batch.end(), f) == expect);
            }
        } else if (choice < 420) {  // ZINCRBY / ZADD INCR
            Score d = pick_score<Score>(rng, false);
            if (cfg.equal_scores) d = Score{0};
            add_flags f = pick_flags(rng);
            if (flags_invalid(f)) f = add_flags::none;
            const auto cur = ref.scores.find(m);
            bool nan_result = false;
            if constexpr (std::is_floating_point_v<Score>)
                nan_result = cur != ref.scores.end() && !zset::has(f, add_flags::nx) &&
                             std::isnan(cur->second + d);
            if (nan_result) {
                REQUIRE_THROWS_WITH(s.increment(mv, d, f), zset::errors::nan_result);
            } else {
                REQUIRE(s.increment(mv, d, f) == ref.increment(m, d, f));
            }
        } else if (choice < 560) {  // ZREM
            REQUIRE(s.erase(mv) == ref.erase(m));
        } else if (choice < 640) {  // point lookups
            const auto expected_score = [&]() -> std::optional<Score> {
                auto it = ref.scores.find(m);
                if (it == ref.scores.end()) return std::nullopt;
                return it->second;
            }();
            REQUIRE(s.score(mv) == expected_score);
            REQUIRE(s.contains(mv) == expected_score.has_value());
            const auto r = ref.rank(m);
            REQUIRE(s.rank(mv) == r);
            if (r) {
                REQUIRE(s.rev_rank(mv) == ref.size() - 1 - *r);
                const auto rw = s.rank_with_score(mv);
                REQUIRE(rw);
                REQUIRE(rw->first == *r);
                REQUIRE(rw->second == *expected_score);
                REQUIRE(s.rev_rank_with_score(mv)->first == ref.size() - 1 - *r);
                const auto it = s.find(mv);
                REQUIRE(it != s.end());
                REQUIRE(Member(it->member) == m);
                REQUIRE(s.nth(*r) == it);
            } else {
                REQUIRE(s.find(mv) == s.end());
            }
        } else if (choice < 720) {  // score ranges
            const auto range = random_score_range();
            const auto [lo, hi] = ref.run(zset_test::in_score_range<Member>(range));
            REQUIRE(s.count(range) == hi - lo);
            const auto lim = random_limit();
            const auto all = ref.all();
            const auto [a, b] = zset_test::apply_limit(lo, hi, lim);
            auto fwd = collect<Set>(s.range_by_score(range, lim));
            REQUIRE(fwd == vec(all.begin() + static_cast<std::ptrdiff_t>(a),
                               all.begin() + static_cast<std::ptrdiff_t>(b)));
            // reverse: offset from the top
            vec expect_rev(all.begin() + static_cast<std::ptrdiff_t>(lo),
                           all.begin() + static_cast<std::ptrdiff_t>(hi));
            std::reverse(expect_rev.begin(), expect_rev.end());
            const auto [ra, rb] = zset_test::apply_limit(0, expect_rev.size(), lim);
            const auto rv = s.rev_range_by_score(range, lim);
            REQUIRE(rv.size() == rb - ra);
            REQUIRE(collect<Set>(rv) == vec(expect_rev.begin() + static_cast<std::ptrdiff_t>(ra),
                                            expect_rev.begin() + static_cast<std::ptrdiff_t>(rb)));
        } else if (choice < 780) {  // rank ranges
            const long long n = static_cast<long long>(ref.size()) + 3;
            const long long start =
                static_cast<long long>(rng() % static_cast<std::uint64_t>(2 * n)) - n;
            const long long stop =
                static_cast<long long>(rng() % static_cast<std::uint64_t>(2 * n)) - n;
            const auto [lo, hi] = zset_test::clamp_ranks(start, stop, ref.size());
            const auto all = ref.all();
            vec expect(all.begin() + static_cast<std::ptrdiff_t>(lo),
                       all.begin() + static_cast<std::ptrdiff_t>(hi));
            const auto r = s.range_by_rank(start, stop);
            REQUIRE(r.size() == hi - lo);
            REQUIRE(collect<Set>(r) == expect);
            // ZREVRANGE: ranks counted from the top
            vec rev_all(all.rbegin(), all.rend());
            vec expect_rev(rev_all.begin() + static_cast<std::ptrdiff_t>(lo),
                           rev_all.begin() + static_cast<std::ptrdiff_t>(hi));
            REQUIRE(collect<Set>(s.rev_range_by_rank(start, stop)) == expect_rev);
        } else if (choice < 840) {  // lex ranges (defined only when all scores are equal)
            if (!cfg.equal_scores) continue;
            const auto range = random_lex_range();
            const auto [lo, hi] = ref.run(zset_test::in_lex_range<Member, Score>(range));
            REQUIRE(s.lex_count(range) == hi - lo);
            const auto lim = random_limit();
            const auto all = ref.all();
            const auto [a, b] = zset_test::apply_limit(lo, hi, lim);
            REQUIRE(collect<Set>(s.range_by_lex(range, lim)) ==
                    vec(all.begin() + static_cast<std::ptrdiff_t>(a),
                        all.begin() + static_cast<std::ptrdiff_t>(b)));
            vec expect_rev(all.begin() + static_cast<std::ptrdiff_t>(lo),
                           all.begin() + static_cast<std::ptrdiff_t>(hi));
            std::reverse(expect_rev.begin(), expect_rev.end());
            const auto [ra, rb] = zset_test::apply_limit(0, expect_rev.size(), lim);
            REQUIRE(collect<Set>(s.rev_range_by_lex(range, lim)) ==
                    vec(expect_rev.begin() + static_cast<std::ptrdiff_t>(ra),
                        expect_rev.begin() + static_cast<std::ptrdiff_t>(rb)));
            if (rng() % 8 == 0) {
                REQUIRE(s.erase_range_by_lex(range) == hi - lo);
                ref.erase_ranks(lo, hi);
            }
        } else if (choice < 870) {  // range removal
            const auto kind = rng() % 2;
            if (kind == 0) {
                const long long n = static_cast<long long>(ref.size()) + 2;
                const long long start =
                    static_cast<long long>(rng() % static_cast<std::uint64_t>(2 * n)) - n;
                const long long stop = start + static_cast<long long>(rng() % 40);
                const auto [lo, hi] = zset_test::clamp_ranks(start, stop, ref.size());
                REQUIRE(s.erase_range_by_rank(start, stop) == hi - lo);
                ref.erase_ranks(lo, hi);
            } else {
                auto range = random_score_range();
                if (rng() % 2) range.max = range.min;  // narrow ranges, often a single score
                const auto [lo, hi] = ref.run(zset_test::in_score_range<Member>(range));
                REQUIRE(s.erase_range_by_score(range) == hi - lo);
                ref.erase_ranks(lo, hi);
            }
        } else if (choice < 900) {  // ZPOPMIN / ZPOPMAX
            const auto count = static_cast<std::size_t>(rng() % 5);
            const auto all = ref.all();
            const std::size_t n = std::min(count, all.size());
            if (rng() % 2) {
                const auto got = s.pop_min(count);
                REQUIRE(got.size() == n);
                for (std::size_t i = 0; i < n; ++i) {
                    REQUIRE(got[i].first == all[i].second);
                    REQUIRE(got[i].second == all[i].first);
                }
                ref.erase_ranks(0, n);
            } else {
                const auto got = s.pop_max(count);
                REQUIRE(got.size() == n);
                for (std::size_t i = 0; i < n; ++i) {
                    REQUIRE(got[i].first == all[all.size() - 1 - i].second);
                    REQUIRE(got[i].second == all[all.size() - 1 - i].first);
                }
                ref.erase_ranks(all.size() - n, all.size());
            }
        } else if (choice < 930) {  // ZRANDMEMBER: properties
            const long long count = static_cast<long long>(rng() % 20) - 10;
            const auto got = s.random_members(count, rng);
            if (count >= 0) {
                REQUIRE(got.size() ==
                        std::min<std::size_t>(static_cast<std::size_t>(count), ref.size()));
                std::set<Member> distinct;
                for (const auto& [gm, gs] : got) distinct.insert(gm);
                REQUIRE(distinct.size() == got.size());
            } else {
                REQUIRE(got.size() == (ref.size() == 0 ? 0 : static_cast<std::size_t>(-count)));
            }
            for (const auto& [gm, gs] : got) REQUIRE(ref.scores.at(gm) == gs);
        } else if (choice < 945) {  // ZSCAN: a full walk with changes in between
            std::set<Member> seen;
            std::uint64_t cursor = 0;
            const auto before = ref.scores;
            std::size_t steps = 0;
            do {
                cursor = s.scan(cursor, static_cast<std::size_t>(1 + rng() % 20),
                                [&](const auto& e) { seen.insert(Member(e.member)); });
                // mutate between calls: members added now need not be seen; removed ones are
                // excluded from the requirement below
                if (rng() % 2) {
                    const Member extra = members.pick(rng);
                    const Score sc = pick_score<Score>(rng, cfg.equal_scores);
                    s.add(members.view(extra), sc);
                    ref.add(extra, sc, add_flags::none);
                }
                REQUIRE(++steps < 100000);
            } while (cursor != 0);
            for (const auto& [bm, bs] : before)
                if (ref.scores.count(bm)) REQUIRE(seen.count(bm) == 1);
        } else if (choice < 960) {  // copy, move, swap, ==
            Set copy(s);
            REQUIRE(copy == s);
            if (!s.empty()) REQUIRE(copy.encoding() == s.encoding());  // copies drop reservations
            Set moved(std::move(copy));
            REQUIRE(moved == s);
            REQUIRE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
            Set other(cfg.opts);
            other.swap(moved);
            REQUIRE(other == s);
            REQUIRE(moved.empty());
            if (parked.size() < 3) parked.push_back(other);
        } else if (choice < 965) {  // shrink_to_fit converts back when the set fits
            s.shrink_to_fit();
            bool fits = s.size() <= cfg.opts.max_listpack_entries;
            for (const auto& e : s)
                if (zset::detail::member_size<Member>(e.member) > cfg.opts.max_listpack_value)
                    fits = false;
            if (s.empty()) fits = true;
            REQUIRE(s.encoding() == (fits ? zset::encoding::listpack : zset::encoding::skiplist));
            largest = s.size();
            if (!fits) largest = std::max(largest, cfg.opts.max_listpack_entries + 1);
        } else if (choice < 967) {
            s.clear();
            ref = Ref();
        } else if (choice < 975) {  // reserve: room only; past the limit, skiplist mode at once
            const std::size_t n = static_cast<std::size_t>(rng() % (2 * cfg.pool + 2));
            const zset::encoding before = s.encoding();
            s.reserve(n);
            REQUIRE(s.validate());
            if (n > s.size() && n > cfg.opts.max_listpack_entries) {
                REQUIRE(s.encoding() == zset::encoding::skiplist);
                largest = std::max(largest, cfg.opts.max_listpack_entries + 1);
                if (s.empty()) reserved_while_empty = true;
            } else {
                REQUIRE(s.encoding() == before);
            }
        } else {  // erase batch
            std::vector<Member> ms;
            for (int i = 0; i < 4; ++i) ms.push_back(members.pick(rng));
            std::size_t expect = 0;
            for (const auto& x : ms) expect += ref.erase(x) ? 1 : 0;
            std::vector<typename Set::key_value> views;
            for (const auto& x : ms) views.push_back(typename Set::key_value(members.view(x)));
            REQUIRE(s.erase(views.begin(), views.end()) == expect);
        }
        // an empty set's next add converts only if it is (still) a reserved skiplist
        if (s.empty())
            largest = reserved_while_empty && s.encoding() == zset::encoding::skiplist
                          ? cfg.opts.max_listpack_entries + 1
                          : 0;
        if (!s.empty()) reserved_while_empty = false;
        largest = std::max(largest, s.size());
        for (const auto& e : s) {
            (void)e;
            break;
        }
        if (op % 2048 == 0 || op + 1 == cfg.operations) {
            compare_all(s, ref);
            check_encoding(s, cfg.opts, largest, reserved_while_empty);
        }
    }
    compare_all(s, ref);
    for (const auto& p : parked) REQUIRE(p.validate());
}

std::uint64_t env_scale() {
    const char* v = std::getenv("ZSET_MODEL_SCALE");
    return v ? std::strtoull(v, nullptr, 10) : 1;
}

// The runs of each test case below; ZSET_MODEL_SCALE multiplies the string members' operations.
const model_config string_configs[] = {
    {{0, 64}, 600, 120000, false, 1},
    {{1, 64}, 300, 80000, false, 2},
    {{2, 64}, 300, 80000, false, 3},
    {{16, 8}, 400, 100000, false, 4},
    {zset::options{}, 200, 120000, false, 5},  // hovers around the 128 threshold
    {zset::options{}, 3000, 200000, false, 6},
    {zset::options{}, 3000, 120000, true, 7},  // equal scores: lex ranges
    {{0, 64}, 1500, 100000, true, 8},
    // listpack blocks past the bucket table's 128 positions: parallel fingerprints, and the
    // switch to them as the block grows (block.hpp, sorted_set::refingerprint_listpack)
    {{300, 64}, 500, 100000, false, 9},
};
const model_config integer_configs[] = {
    {{0, 64}, 1000, 60000, false, 11},
    {{}, 150, 60000, false, 12},
    {{}, 2000, 60000, true, 13},
};
const model_config integer_double_config{{2, 64}, 800, 40000, false, 14};
const model_config point_configs[] = {
    {{4, 64}, 600, 60000, false, 21},
    {{}, 3000, 60000, true, 22},
};

}  // namespace

TEST_CASE("model: string members, every threshold", "[model]") {
    const std::uint64_t scale = env_scale();
    for (const auto& cfg : string_configs) {
        model_config scaled = cfg;
        scaled.operations *= static_cast<std::size_t>(scale);
        CAPTURE(cfg.seed, cfg.opts.max_listpack_entries, cfg.opts.max_listpack_value);
        run_model<std::string, double>(scaled);
    }
}

TEST_CASE("model: integer members and integral scores", "[model]") {
    for (const auto& cfg : integer_configs) run_model<long long, std::int64_t>(cfg);
    run_model<long long, double>(integer_double_config);
}

TEST_CASE("model: user-defined members", "[model]") {
    for (const auto& cfg : point_configs) run_model<point, double, point_hash>(cfg);
}

TEST_CASE("model: operation count", "[model]") {
    // The model's size: the cases above run at least 10^6 operations together at the default
    // scale. Summed from their tables, so that this case needs no other case to have run.
    const std::uint64_t scale = env_scale();
    std::uint64_t total = integer_double_config.operations;
    for (const auto& cfg : string_configs) total += cfg.operations * scale;
    for (const auto& cfg : integer_configs) total += cfg.operations;
    for (const auto& cfg : point_configs) total += cfg.operations;
    CAPTURE(scale, total);
    REQUIRE(total >= 1000000);
}
