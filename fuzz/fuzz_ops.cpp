// Operation-sequence fuzzer: the input is a program of sorted set operations, run on two
// zset::sorted_set instances and on the brute-force reference (tests/reference_model.hpp); every
// reply is compared, and after every step both sets are validate()d and compared element by
// element with their references. The first bytes choose the member/score types and tiny
// listpack thresholds, so listpack <-> skiplist conversions and block splits happen constantly.
//
// Input layout: [mode][max_listpack_entries][max_listpack_value] then operations, each an
// opcode byte followed by its operands (see run_op). Running out of input yields zeros.
// Modes (mode % 3): string members / double scores, integer members / int64 scores, string
// members / int64 scores (integral scores saturate in set operations).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "reference_model.hpp"
#include <zset/zset.hpp>

namespace {

using zset::add_flags;
using zset::add_status;
using zset_fuzz::input;

// ---- member and score sources ----------------------------------------------------------------

template <class Member>
struct members;

template <>
struct members<std::string> {
    std::vector<std::string> pool;
    members() {
        pool = {"",
                std::string("\0", 1),
                std::string("a\0b", 3),
                "\xff",
                "\xff\xfe",
                "a",
                "b",
                "c",
                "aa",
                "ab",
                "abc",
                "m1",
                "m2",
                "m10",
                "zzz",
                std::string(8, 'q'),
                std::string(16, 'r'),
                std::string(63, 'x'),
                std::string(64, 'x'),
                std::string(65, 'x'),
                std::string(200, 'L'),
                std::string(300, 'M'),
                std::string(2100, 'H')};  // larger than a block's soft byte limit
    }
    std::string pick(input& in) const {
        const std::uint8_t b = in.byte();
        if (b < 224) return pool[b % pool.size()];
        if (b < 240) return "k" + std::to_string(in.byte());  // many distinct short members
        return std::string(in.bytes(in.byte() % 40));         // arbitrary bytes
    }
    static std::string_view view(const std::string& m) { return m; }
};

template <>
struct members<long long> {
    long long pick(input& in) const {
        const std::uint8_t b = in.byte();
        if (b == 255) return in.raw<long long>();
        return static_cast<long long>(static_cast<std::int8_t>(b));
    }
    static const long long& view(const long long& m) { return m; }
};

double pick_score(input& in, double) {
    const std::uint8_t b = in.byte();
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (b) {
    case 0:
        return 0.0;
    case 1:
        return -0.0;
    case 2:
        return inf;
    case 3:
        return -inf;
    case 4:
        return std::numeric_limits<double>::quiet_NaN();
    case 5:
        return std::numeric_limits<double>::max();
    case 6:
        return -std::numeric_limits<double>::max();
    case 7:
        return std::numeric_limits<double>::denorm_min();
    case 8:
        return 0.1;
    case 9:
        return 1e-300;
    case 10:
        return in.raw<double>();
    default:
        return static_cast<double>(static_cast<int>(b % 41) - 20);
    }
}

std::int64_t pick_score(input& in, std::int64_t) {
    const std::uint8_t b = in.byte();
    switch (b) {
    case 0:
        return std::numeric_limits<std::int64_t>::max();
    case 1:
        return std::numeric_limits<std::int64_t>::min();
    case 2:
        return in.raw<std::int64_t>();
    default:
        return static_cast<std::int64_t>(b % 41) - 20;
    }
}

add_flags pick_flags(input& in) {
    return zset_test::pick_flags(in.byte());
}

const char* flags_error(add_flags f) {
    if (zset::has(f, add_flags::nx) && zset::has(f, add_flags::xx)) return zset::errors::xx_and_nx;
    const int n = (zset::has(f, add_flags::gt) ? 1 : 0) + (zset::has(f, add_flags::lt) ? 1 : 0) +
                  (zset::has(f, add_flags::nx) ? 1 : 0);
    return n > 1 ? zset::errors::gt_lt_nx : nullptr;
}

template <class Score>
bool is_nan(Score s) {
    if constexpr (std::is_floating_point_v<Score>)
        return std::isnan(s);
    else
        return false;
}

/// Runs f, which must throw zset::error with exactly `text`.
template <class F>
void expect_error(F&& f, const char* text) {
    bool thrown = false;
    try {
        f();
    } catch (const zset::error& e) {
        thrown = true;
        ZSET_FUZZ_CHECK(std::string(e.what()) == text);
    }
    ZSET_FUZZ_CHECK(thrown);
}

// ---- the harness ---------------------------------------------------------------------------

template <class Member, class Score>
struct harness {
    using Set = zset::sorted_set<Member, Score>;
    using Ref = zset_test::reference_model<Member, Score>;
    using lex_key = typename Set::lex_key;
    using vec = std::vector<std::pair<Score, Member>>;

    zset::options opts;
    members<Member> src;
    Set sets[2];
    Ref refs[2];
    bool trace = std::getenv("ZSET_FUZZ_TRACE") != nullptr;  // print every step (debugging)
    bool reserved = false;  // reserve() ran: an empty set may be in skiplist mode

    explicit harness(zset::options o) : opts(o), sets{Set(o), Set(o)} {}

    /// The elements of a set, a view or any range of elements, as reference pairs.
    template <class Elements>
    static vec collect_range(const Elements& r) {
        vec out;
        for (const auto& e : r) out.emplace_back(e.score, Member(e.member));
        return out;
    }
    static vec contents(const Set& s) { return collect_range(s); }
    static vec slice(const vec& v, std::size_t lo, std::size_t hi) {
        return vec(v.begin() + static_cast<std::ptrdiff_t>(lo),
                   v.begin() + static_cast<std::ptrdiff_t>(hi));
    }
    /// A range query with LIMIT: the forward view holds ranks [lo, hi) of `all` cut by `lim`,
    /// the reverse view the same run reversed, then cut by `lim`.
    template <class Forward, class Reverse>
    static void check_limited(const vec& all, std::size_t lo, std::size_t hi, zset::limit lim,
                              const Forward& forward, const Reverse& reverse) {
        const auto [a, b] = zset_test::apply_limit(lo, hi, lim);
        ZSET_FUZZ_CHECK(same(collect_range(forward), slice(all, a, b)));
        vec rev = slice(all, lo, hi);
        std::reverse(rev.begin(), rev.end());
        const auto [ra, rb] = zset_test::apply_limit(0, rev.size(), lim);
        ZSET_FUZZ_CHECK(reverse.size() == rb - ra);
        ZSET_FUZZ_CHECK(same(collect_range(reverse), slice(rev, ra, rb)));
    }
    static bool same(const vec& a, const vec& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!(a[i].first == b[i].first) || !(a[i].second == b[i].second)) return false;
        return true;
    }

    static void print(const char* what, const vec& v) {
        std::fprintf(stderr, "  %s (%zu):", what, v.size());
        for (const auto& [sc, m] : v) {
            if constexpr (std::is_same_v<Member, std::string>)
                std::fprintf(stderr, " [%s]=%.17g", printable(m).c_str(), static_cast<double>(sc));
            else
                std::fprintf(stderr, " %lld=%lld", static_cast<long long>(m),
                             static_cast<long long>(sc));
        }
        std::fprintf(stderr, "\n");
    }
    static std::string printable(const std::string& m) {
        std::string out;
        for (const char ch : m.substr(0, 24)) {
            const auto c = static_cast<unsigned char>(ch);
            if (c >= 0x20 && c < 0x7f) {
                out += static_cast<char>(c);
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
            }
        }
        if (m.size() > 24) out += "...(" + std::to_string(m.size()) + ")";
        return out;
    }

    void check(int which) {
        const Set& s = sets[which];
        const Ref& ref = refs[which];
        if (trace) {
            std::fprintf(stderr, " set %d: %s, validate=%d\n", which,
                         s.encoding() == zset::encoding::listpack ? "listpack" : "skiplist",
                         s.validate() ? 1 : 0);
            print("set", contents(s));
            print("ref", ref.all());
        }
        ZSET_FUZZ_CHECK(s.validate());
        ZSET_FUZZ_CHECK(s.size() == ref.size());
        ZSET_FUZZ_CHECK(same(contents(s), ref.all()));
        vec back;
        for (auto it = s.rbegin(); it != s.rend(); ++it)
            back.emplace_back(it->score, Member(it->member));
        std::reverse(back.begin(), back.end());
        ZSET_FUZZ_CHECK(same(back, ref.all()));
        // an empty set is in listpack mode unless reserve() put it in skiplist mode
        if (s.empty() && !reserved) ZSET_FUZZ_CHECK(s.encoding() == zset::encoding::listpack);
        if (s.size() > opts.max_listpack_entries)
            ZSET_FUZZ_CHECK(s.encoding() == zset::encoding::skiplist);
    }

    zset::score_bound<Score> bound(input& in) {
        const std::uint8_t b = in.byte();
        if (b % 8 == 0) return zset::score_bound<Score>::lowest();
        if (b % 8 == 1) return zset::score_bound<Score>::highest();
        zset::score_bound<Score> r{pick_score(in, Score{}), (b & 0x10) != 0
                                                                ? zset::endpoint::exclusive
                                                                : zset::endpoint::inclusive};
        if (is_nan(r.value)) r.value = Score{};  // NaN bounds are rejected by the Redis layer
        return r;
    }
    /// A lex bound; `storage` keeps the bytes a string_view bound refers to.
    zset::lex_bound<lex_key> lbound(input& in, Member& storage) {
        const std::uint8_t b = in.byte();
        if (b % 4 == 0) return zset::lex_bound<lex_key>::minus_infinity();
        if (b % 4 == 1) return zset::lex_bound<lex_key>::plus_infinity();
        storage = src.pick(in);
        const lex_key k = lex_key(src.view(storage));
        return b % 4 == 2 ? zset::lex_bound<lex_key>::inclusive(k)
                          : zset::lex_bound<lex_key>::exclusive(k);
    }
    static zset::limit pick_limit(input& in) {
        zset::limit l;
        const std::uint8_t b = in.byte();
        if (b & 1) {
            l.offset = static_cast<long long>(in.byte() % 24) - 3;
            l.count = static_cast<long long>(in.byte() % 32) - 3;
        }
        if (b == 0xff) {
            l.offset = std::numeric_limits<long long>::max();
            l.count = std::numeric_limits<long long>::min();
        }
        return l;
    }
    static long long pick_rank(input& in, std::size_t n) {
        const std::uint8_t b = in.byte();
        if (b == 255) return std::numeric_limits<long long>::max();
        if (b == 254) return std::numeric_limits<long long>::min();
        return static_cast<long long>(b % 64) - 32 + (b & 0x40 ? static_cast<long long>(n) : 0);
    }

    bool all_scores_equal(const Ref& ref) const {
        if (ref.order.empty()) return true;
        return ref.order.begin()->first == ref.order.rbegin()->first;
    }

    // ---- set operations: Redis's algorithm written out over the references ------------------

    struct weighted_input {
        int which;  // -1: missing key
        Score weight;
    };
    /// Integral scores saturate at the type's limits (documented in set_ops.hpp).
    static Score mul(Score a, Score b) {
        if constexpr (std::is_floating_point_v<Score>) {
            return a * b;
        } else {
            Score r{};
            if (!__builtin_mul_overflow(a, b, &r)) return r;
            return (a < 0) != (b < 0) ? std::numeric_limits<Score>::min()
                                      : std::numeric_limits<Score>::max();
        }
    }
    static Score sum(Score a, Score b) {
        if constexpr (std::is_floating_point_v<Score>) {
            return a + b;
        } else {
            Score r{};
            if (!__builtin_add_overflow(a, b, &r)) return r;
            return a < 0 ? std::numeric_limits<Score>::min() : std::numeric_limits<Score>::max();
        }
    }
    static Score weighted(Score s, Score w) {
        const Score v = mul(s, w);
        if (is_nan(v)) return Score{0};
        return v;
    }
    static void combine(Score& acc, Score v, zset::aggregate agg) {
        switch (agg) {
        case zset::aggregate::sum:
            acc = sum(acc, v);
            if (is_nan(acc)) acc = Score{0};
            break;
        case zset::aggregate::min:
            acc = v < acc ? v : acc;
            break;
        case zset::aggregate::max:
            acc = v > acc ? v : acc;
            break;
        }
    }
    const Ref* ref_of(int which) const { return which < 0 ? nullptr : &refs[which]; }
    std::size_t size_of(int which) const { return which < 0 ? 0 : refs[which].size(); }

    void set_operation(input& in) {
        const std::uint8_t b = in.byte();
        std::vector<weighted_input> inputs;
        const int n = 1 + b % 3;  // 1..3 inputs
        for (int i = 0; i < n; ++i) {
            const std::uint8_t c = in.byte();
            inputs.push_back({c % 5 == 4 ? -1 : static_cast<int>(c % 2), Score{1}});
        }
        const bool use_weights = (b & 0x10) != 0;
        std::vector<Score> weights;
        if (use_weights) {
            for (auto& w : inputs) {
                const std::uint8_t c = in.byte();
                w.weight = c < 8 ? pick_score(in, Score{})
                                 : static_cast<Score>(static_cast<int>(c % 7) - 3);
                if (is_nan(w.weight)) w.weight = Score{1};
                weights.push_back(w.weight);
            }
            if (b & 0x20) weights.push_back(Score{1});  // too many: syntax error
        }
        const auto agg = static_cast<zset::aggregate>((b >> 6) % 3);
        std::vector<const Set*> ptrs;
        for (const auto& w : inputs) ptrs.push_back(w.which < 0 ? nullptr : &sets[w.which]);
        const int kind = (b >> 2) % 4;
        if (use_weights && (b & 0x20) && kind < 2) {
            if (kind == 0)
                expect_error([&] { (void)zset::set_union<Set>(ptrs, weights, agg); },
                             zset::errors::syntax);
            else
                expect_error([&] { (void)zset::set_intersection<Set>(ptrs, weights, agg); },
                             zset::errors::syntax);
            return;
        }
        std::vector<weighted_input> order = inputs;
        std::stable_sort(order.begin(), order.end(),
                         [&](const weighted_input& x, const weighted_input& y) {
                             return size_of(x.which) < size_of(y.which);
                         });
        vec expect;
        if (kind == 0) {  // ZUNION
            std::set<Member> done;
            for (std::size_t i = 0; i < order.size(); ++i) {
                const Ref* r = ref_of(order[i].which);
                if (!r) continue;
                for (const auto& [m, sc] : r->scores) {
                    if (!done.insert(m).second) continue;
                    Score acc = weighted(sc, order[i].weight);
                    for (std::size_t j = i + 1; j < order.size(); ++j) {
                        const Ref* o = ref_of(order[j].which);
                        if (!o) continue;
                        const auto it = o->scores.find(m);
                        if (it != o->scores.end())
                            combine(acc, weighted(it->second, order[j].weight), agg);
                    }
                    expect.emplace_back(acc, m);
                }
            }
        } else if (kind == 1 || kind == 3) {  // ZINTER, ZINTERCARD
            const Ref* first = ref_of(order.front().which);
            if (first) {
                for (const auto& [m, sc] : first->scores) {
                    Score acc = weighted(sc, order.front().weight);
                    bool everywhere = true;
                    for (std::size_t j = 1; j < order.size() && everywhere; ++j) {
                        const Ref* o = ref_of(order[j].which);
                        const auto it = o ? o->scores.find(m) : decltype(o->scores.find(m))();
                        // Redis cleans a NaN product (inf * 0) only for the first input of
                        // ZINTER; later products aggregate raw (SUM then turns NaN into 0).
                        if (!o || it == o->scores.end())
                            everywhere = false;
                        else
                            combine(acc, mul(it->second, order[j].weight), agg);
                    }
                    if (everywhere) expect.emplace_back(acc, m);
                }
            }
        } else {  // ZDIFF: the first input (as given) minus the others
            const Ref* first = ref_of(inputs.front().which);
            if (first) {
                for (const auto& [m, sc] : first->scores) {
                    bool elsewhere = false;
                    for (std::size_t j = 1; j < inputs.size(); ++j) {
                        const Ref* o = ref_of(inputs[j].which);
                        if (o && o->scores.count(m)) elsewhere = true;
                    }
                    if (!elsewhere) expect.emplace_back(sc, m);
                }
            }
        }
        std::sort(expect.begin(), expect.end());
        if (kind == 3) {
            const std::size_t limit = in.byte() % 8;
            const std::size_t got = zset::intersection_cardinality<Set>(ptrs, limit);
            ZSET_FUZZ_CHECK(got == (limit == 0 ? expect.size() : std::min(limit, expect.size())));
            return;
        }
        Set result = [&] {
            const std::vector<Score> w = use_weights ? weights : std::vector<Score>{};
            if (kind == 0) return zset::set_union<Set>(ptrs, w, agg);
            if (kind == 1) return zset::set_intersection<Set>(ptrs, w, agg);
            return zset::set_difference<Set>(ptrs);
        }();
        if (trace) {
            std::fprintf(stderr, " set operation %d, aggregate %d, inputs:", kind,
                         static_cast<int>(agg));
            for (const auto& w : inputs)
                std::fprintf(stderr, " %d*%.17g", w.which, static_cast<double>(w.weight));
            std::fprintf(stderr, "%s\n", use_weights ? " (WEIGHTS)" : "");
            print("result", contents(result));
            print("expect", expect);
        }
        ZSET_FUZZ_CHECK(result.validate());
        ZSET_FUZZ_CHECK(same(contents(result), expect));
        // *STORE: the result replaces a set (smallest encoding that fits)
        if (in.byte() & 1) {
            const int target = in.byte() % 2;
            // An empty result deletes the key in Redis; with only missing inputs the result
            // has default options (there is no input to take them from), so keep the target's.
            if (result.empty())
                sets[target].clear();
            else
                sets[target] = std::move(result);
            refs[target] = Ref();
            for (const auto& [sc, m] : expect) refs[target].add(m, sc, add_flags::none);
            if (!sets[target].empty())
                ZSET_FUZZ_CHECK(sets[target].get_options().max_listpack_entries ==
                                opts.max_listpack_entries);
        }
    }

    // ---- one operation -----------------------------------------------------------------------

    void run_op(input& in) {
        const std::uint8_t op = in.byte();
        const int which = op >> 7;
        if (trace) std::fprintf(stderr, "op %d on set %d\n", (op & 0x7f) % 24, which);
        Set& s = sets[which];
        Ref& ref = refs[which];
        switch ((op & 0x7f) % 24) {
        case 0:
        case 1:
        case 2: {  // ZADD
            const Member m = src.pick(in);
            const Score sc = pick_score(in, Score{});
            const add_flags f = pick_flags(in);
            if (const char* err = flags_error(f)) {
                expect_error([&] { s.add(src.view(m), sc, f); }, err);
            } else if (is_nan(sc)) {
                expect_error([&] { s.add(src.view(m), sc, f); }, zset::errors::not_a_float);
            } else {
                ZSET_FUZZ_CHECK(s.add(src.view(m), sc, f) == ref.add(m, sc, f));
            }
            break;
        }
        case 3: {  // ZADD with many pairs: all-or-nothing on invalid input
            std::vector<std::pair<Member, Score>> batch;
            const int n = in.byte() % 12;
            for (int i = 0; i < n; ++i) {
                Member m = src.pick(in);
                batch.emplace_back(std::move(m), pick_score(in, Score{}));
            }
            const add_flags f = pick_flags(in);
            bool nan = false;
            for (const auto& p : batch) nan = nan || is_nan(p.second);
            if (const char* err = flags_error(f)) {
                expect_error([&] { s.add(batch.begin(), batch.end(), f); }, err);
            } else if (nan) {
                expect_error([&] { s.add(batch.begin(), batch.end(), f); },
                             zset::errors::not_a_float);
            } else {
                std::size_t expect = 0;
                for (const auto& [bm, bs] : batch) {
                    const auto st = ref.add(bm, bs, f);
                    if (st == add_status::added ||
                        (st == add_status::updated && zset::has(f, add_flags::ch)))
                        ++expect;
                }
                ZSET_FUZZ_CHECK(s.add(batch.begin(), batch.end(), f) == expect);
            }
            break;
        }
        case 4:
        case 5: {  // ZINCRBY / ZADD INCR
            const Member m = src.pick(in);
            const Score d = pick_score(in, Score{});
            const add_flags f = pick_flags(in);
            const auto cur = ref.scores.find(m);
            const bool applies = cur != ref.scores.end() && !zset::has(f, add_flags::nx);
            if (const char* err = flags_error(f)) {
                expect_error([&] { s.increment(src.view(m), d, f); }, err);
            } else if (is_nan(d)) {
                expect_error([&] { s.increment(src.view(m), d, f); }, zset::errors::not_a_float);
            } else if (applies && [&] {
                           if constexpr (std::is_floating_point_v<Score>) {
                               return std::isnan(cur->second + d);
                           } else {
                               Score r;
                               return __builtin_add_overflow(cur->second, d, &r);
                           }
                       }()) {
                expect_error([&] { s.increment(src.view(m), d, f); },
                             std::is_floating_point_v<Score> ? zset::errors::nan_result
                                                             : zset::errors::integer_overflow);
            } else {
                ZSET_FUZZ_CHECK(s.increment(src.view(m), d, f) == ref.increment(m, d, f));
            }
            break;
        }
        case 6:
        case 7: {  // ZREM
            const Member m = src.pick(in);
            ZSET_FUZZ_CHECK(s.erase(src.view(m)) == ref.erase(m));
            break;
        }
        case 8: {  // ZREM with several members (duplicates allowed)
            std::vector<Member> ms;
            const int n = in.byte() % 6;
            for (int i = 0; i < n; ++i) ms.push_back(src.pick(in));
            std::size_t expect = 0;
            for (const auto& m : ms) expect += ref.erase(m) ? 1 : 0;
            std::vector<typename Set::key_value> views;
            for (const auto& m : ms) views.push_back(typename Set::key_value(src.view(m)));
            ZSET_FUZZ_CHECK(s.erase(views.begin(), views.end()) == expect);
            break;
        }
        case 9: {  // point lookups
            const Member m = src.pick(in);
            const auto it = ref.scores.find(m);
            const std::optional<Score> expect =
                it == ref.scores.end() ? std::nullopt : std::optional<Score>(it->second);
            ZSET_FUZZ_CHECK(s.score(src.view(m)) == expect);
            ZSET_FUZZ_CHECK(s.contains(src.view(m)) == expect.has_value());
            const auto r = ref.rank(m);
            ZSET_FUZZ_CHECK(s.rank(src.view(m)) == r);
            if (r) {
                ZSET_FUZZ_CHECK(s.rev_rank(src.view(m)) == ref.size() - 1 - *r);
                const auto rw = s.rank_with_score(src.view(m));
                ZSET_FUZZ_CHECK(rw && rw->first == *r && rw->second == *expect);
                const auto rrw = s.rev_rank_with_score(src.view(m));
                ZSET_FUZZ_CHECK(rrw && rrw->first == ref.size() - 1 - *r);
                const auto f = s.find(src.view(m));
                ZSET_FUZZ_CHECK(f != s.end() && Member(f->member) == m && s.nth(*r) == f);
            } else {
                ZSET_FUZZ_CHECK(s.find(src.view(m)) == s.end());
                ZSET_FUZZ_CHECK(!s.rev_rank(src.view(m)) && !s.rank_with_score(src.view(m)));
            }
            std::vector<typename Set::key_value> views{typename Set::key_value(src.view(m))};
            const auto ms = s.scores(views.begin(), views.end());
            ZSET_FUZZ_CHECK(ms.size() == 1 && ms[0] == expect);
            break;
        }
        case 10:
        case 11: {  // score ranges: ZCOUNT, ZRANGEBYSCORE, ZREVRANGEBYSCORE
            const zset::score_range<Score> range{bound(in), bound(in)};
            const auto [lo, hi] = ref.run(zset_test::in_score_range<Member>(range));
            ZSET_FUZZ_CHECK(s.count(range) == hi - lo);
            const auto lim = pick_limit(in);
            check_limited(ref.all(), lo, hi, lim, s.range_by_score(range, lim),
                          s.rev_range_by_score(range, lim));
            break;
        }
        case 12: {  // rank ranges: ZRANGE, ZREVRANGE
            const long long start = pick_rank(in, ref.size());
            const long long stop = pick_rank(in, ref.size());
            const auto [lo, hi] = zset_test::clamp_ranks(start, stop, ref.size());
            const auto all = ref.all();
            const auto r = s.range_by_rank(start, stop);
            ZSET_FUZZ_CHECK(r.size() == hi - lo);
            ZSET_FUZZ_CHECK(same(collect_range(r), slice(all, lo, hi)));
            const vec rev_all(all.rbegin(), all.rend());
            ZSET_FUZZ_CHECK(
                same(collect_range(s.rev_range_by_rank(start, stop)), slice(rev_all, lo, hi)));
            break;
        }
        case 13: {  // lex ranges (defined when all scores are equal, as in Redis)
            Member s1{}, s2{};
            const zset::lex_range<lex_key> range{lbound(in, s1), lbound(in, s2)};
            const auto lim = pick_limit(in);
            const std::uint8_t erase = in.byte();
            if (!all_scores_equal(ref)) break;
            const auto [lo, hi] = ref.run(zset_test::in_lex_range<Member, Score>(range));
            ZSET_FUZZ_CHECK(s.lex_count(range) == hi - lo);
            check_limited(ref.all(), lo, hi, lim, s.range_by_lex(range, lim),
                          s.rev_range_by_lex(range, lim));
            if (erase & 1) {
                ZSET_FUZZ_CHECK(s.erase_range_by_lex(range) == hi - lo);
                ref.erase_ranks(lo, hi);
            }
            break;
        }
        case 14: {  // ZREMRANGEBYRANK / ZREMRANGEBYSCORE
            if (in.byte() & 1) {
                const long long start = pick_rank(in, ref.size());
                const long long stop = pick_rank(in, ref.size());
                const auto [lo, hi] = zset_test::clamp_ranks(start, stop, ref.size());
                ZSET_FUZZ_CHECK(s.erase_range_by_rank(start, stop) == hi - lo);
                ref.erase_ranks(lo, hi);
            } else {
                const zset::score_range<Score> range{bound(in), bound(in)};
                const auto [lo, hi] = ref.run(zset_test::in_score_range<Member>(range));
                ZSET_FUZZ_CHECK(s.erase_range_by_score(range) == hi - lo);
                ref.erase_ranks(lo, hi);
            }
            break;
        }
        case 15: {  // ZPOPMIN / ZPOPMAX
            const std::uint8_t b = in.byte();
            const std::size_t count = b == 255 ? std::numeric_limits<std::size_t>::max() : b % 8;
            const auto all = ref.all();
            const std::size_t n = std::min(count, all.size());
            const bool min = (in.byte() & 1) != 0;
            const auto got = min ? s.pop_min(count) : s.pop_max(count);
            ZSET_FUZZ_CHECK(got.size() == n);
            for (std::size_t i = 0; i < n; ++i) {
                const auto& e = min ? all[i] : all[all.size() - 1 - i];
                ZSET_FUZZ_CHECK(got[i].first == e.second && got[i].second == e.first);
            }
            if (min)
                ref.erase_ranks(0, n);
            else
                ref.erase_ranks(all.size() - n, all.size());
            break;
        }
        case 16: {  // ZRANDMEMBER: properties
            const long long count = static_cast<long long>(in.byte() % 41) - 20;
            std::mt19937_64 rng(in.byte());
            const auto got = s.random_members(count, rng);
            if (count >= 0) {
                ZSET_FUZZ_CHECK(got.size() ==
                                std::min<std::size_t>(static_cast<std::size_t>(count), ref.size()));
                std::set<Member> distinct;
                for (const auto& g : got) distinct.insert(g.first);
                ZSET_FUZZ_CHECK(distinct.size() == got.size());
            } else {
                ZSET_FUZZ_CHECK(got.size() ==
                                (ref.size() == 0 ? 0 : static_cast<std::size_t>(-count)));
            }
            for (const auto& g : got) {
                const auto it = ref.scores.find(g.first);
                ZSET_FUZZ_CHECK(it != ref.scores.end() && it->second == g.second);
            }
            break;
        }
        case 17: {  // ZSCAN: a full walk, adding members between calls
            const auto before = ref.scores;
            std::set<Member> seen;
            std::uint64_t cursor = 0;
            std::size_t steps = 0;
            do {
                const std::size_t count = 1 + in.byte() % 16;
                cursor = s.scan(cursor, count, [&](const auto& e) {
                    const auto it = ref.scores.find(Member(e.member));
                    ZSET_FUZZ_CHECK(it != ref.scores.end() && it->second == e.score);
                    seen.insert(Member(e.member));
                });
                if (in.byte() & 1) {
                    const Member m = src.pick(in);
                    const Score sc = pick_score(in, Score{});
                    if (!is_nan(sc)) {
                        s.add(src.view(m), sc);
                        ref.add(m, sc, add_flags::none);
                    }
                }
                ZSET_FUZZ_CHECK(++steps < 100000);
            } while (cursor != 0);
            for (const auto& b : before) ZSET_FUZZ_CHECK(seen.count(b.first) == 1);
            break;
        }
        case 18: {  // copy, move, swap, assignment between the two sets
            const std::uint8_t b = in.byte();
            Set& other = sets[1 - which];
            Ref& other_ref = refs[1 - which];
            switch (b % 5) {
            case 0: {
                Set copy(s);
                ZSET_FUZZ_CHECK(copy == s && copy.validate());
                ZSET_FUZZ_CHECK(s.empty() || copy.encoding() == s.encoding());  // no reservation
                Set moved(std::move(copy));
                ZSET_FUZZ_CHECK(moved == s && copy.empty());  // NOLINT(bugprone-use-after-move)
                break;
            }
            case 1:
                other = s;
                other_ref = ref;
                ZSET_FUZZ_CHECK(other == s);
                break;
            case 2:
                other = std::move(s);
                other_ref = std::move(ref);
                ref = Ref();
                s.clear();  // moved-from: valid but unspecified; make it empty
                break;
            case 3:
                s.swap(other);
                std::swap(ref, other_ref);
                break;
            default: {
                const Set* self = &s;
                s = *self;  // self-assignment
                break;
            }
            }
            ZSET_FUZZ_CHECK((sets[0] == sets[1]) == (refs[0].all() == refs[1].all()));
            break;
        }
        case 19: {  // shrink_to_fit
            s.shrink_to_fit();
            bool fits = s.size() <= opts.max_listpack_entries;
            for (const auto& e : s)
                if (zset::detail::member_size<Member>(e.member) > opts.max_listpack_value)
                    fits = false;
            if (s.empty()) fits = true;
            ZSET_FUZZ_CHECK(s.encoding() ==
                            (fits ? zset::encoding::listpack : zset::encoding::skiplist));
            break;
        }
        case 20: {
            const std::uint8_t b = in.byte();
            if (b % 4 == 0) {
                s.clear();
                ref = Ref();
            } else if (b % 4 == 1) {  // reserve: room only; past the threshold, skiplist mode
                const std::size_t n = in.byte() * std::size_t{4};
                const std::size_t before = s.size();
                s.reserve(n);
                reserved = true;
                ZSET_FUZZ_CHECK(s.size() == before);
                if (n > before && n > opts.max_listpack_entries)
                    ZSET_FUZZ_CHECK(s.encoding() == zset::encoding::skiplist);
            }
            break;
        }
        case 21:
            set_operation(in);
            break;
        case 22: {  // from_sorted of the reference's contents
            const auto all = ref.all();
            std::vector<std::pair<Member, Score>> pairs;
            for (const auto& [sc, m] : all) pairs.emplace_back(m, sc);
            Set built = Set::from_sorted(pairs.begin(), pairs.end(), opts);
            ZSET_FUZZ_CHECK(built.validate() && built == s);
            if (in.byte() & 1) s = std::move(built);
            break;
        }
        default: {  // a burst of adds of distinct members: grows past thresholds, splits blocks
            const int n = 1 + in.byte() % 64;
            const Score base = pick_score(in, Score{});
            if (is_nan(base)) break;
            for (int i = 0; i < n; ++i) {
                Member m;
                if constexpr (std::is_same_v<Member, std::string>)
                    m = "burst" + std::to_string(i);
                else
                    m = 1000 + i;
                const Score sc = (i % 3 == 0) ? base : static_cast<Score>(i);
                ZSET_FUZZ_CHECK(s.add(src.view(m), sc) == ref.add(m, sc, add_flags::none));
            }
            break;
        }
        }
        check(0);
        check(1);
    }
};

template <class Member, class Score>
void run(input& in, zset::options opts) {
    harness<Member, Score> h(opts);
    for (int steps = 0; !in.empty() && steps < 2000; ++steps) h.run_op(in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    static const std::size_t entries[] = {0, 1, 2, 3, 4, 8, 16, 128};
    static const std::size_t values[] = {0, 1, 4, 8, 16, 64};
    const std::uint8_t mode = in.byte();
    zset::options opts;
    opts.max_listpack_entries = entries[in.byte() % 8];
    opts.max_listpack_value = values[in.byte() % 6];
    switch (mode % 3) {
    case 0:
        run<std::string, double>(in, opts);
        break;
    case 1:
        run<long long, std::int64_t>(in, opts);
        break;
    default:
        run<std::string, std::int64_t>(in, opts);
        break;  // saturating set operations
    }
    return 0;
}
