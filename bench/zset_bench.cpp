// zset_bench: zset::sorted_set against its peers, every structure in this one binary.
//
// Benchmark names are <operation>/<structure>/<size>; structures are zset, zset_skiplist (zset
// forced into skiplist mode, sizes <= 128 only), absl, redisskl (Redis's skiplist + hash design,
// built on absl's flat_hash_set), boost and std (peers only when found).
// Sizes come from ZSET_BENCH_SIZES (default 100,1000,100000,1000000; "1e7" notation accepted).
// Methods are described in docs/benchmarks.md; in short:
//   * data: members "member:<i>", scores uniform in [0, 1) from a fixed-seed stream;
//   * non-destructive operations run one operation per benchmark iteration over a pool of 65536
//     pre-generated random keys / bounds (CPU time of the loop);
//   * destructive operations (zadd_new, zrem, pop_min) time a batch of B operations with the
//     thread CPU clock (manual time, calibrated clock overhead subtracted) and restore the
//     structure untimed after each batch (B = clamp(n/4, 1, 1000), and n + B <= 128 when n <= 128);
//   * each built structure is verified (contents, order, ranks, ranges) before it is measured and
//     every timed operation checks its result; any mismatch makes the binary exit with status 1;
//   * memory/<structure>/<size> builds the structure once and reports bytes per element as
//     counters: zset through a counting Allocator, the peers through the counting global
//     operator new (bench/alloc_counter.cpp);
//   * building from empty: build_random / build_ascending/<structure>/<n> (n ZADDs into an empty
//     structure in random / ascending score order, time per add), build_reserved/<structure>/<n>
//     (build_random after reserve(n) where the structure takes one), batch_add/<structure>/1000
//     (one ZADD of 1,000 unsorted pairs; the peers add them one by one) and
//     many_sets_<m>/<structure>/<k> (k sets of m members each built from empty: time per add,
//     and bytes per element as counters). ZSET_BENCH_BUILDING=0 leaves out the last two.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "adapters.hpp"
#include "bench_support.hpp"

namespace zbench {
namespace {

constexpr std::size_t pool_size = std::size_t{1} << 16;           // keys, bounds, ...
constexpr std::size_t update_scores_size = std::size_t{1} << 18;  // new scores for updates
constexpr std::size_t range_length = 100;
constexpr std::size_t union_max_size = 100000;
constexpr std::size_t listpack_limit = 128;  // zset::options{}.max_listpack_entries

void report_failure(const std::string& what) {
    g_failed = true;
    std::fprintf(stderr, "[zset_bench] FAILED: %s\n", what.c_str());
}

void fail(benchmark::State& st, const std::string& what) {
    report_failure(what);
    st.SkipWithError(what.c_str());
}

std::uint64_t fold(std::uint64_t h, std::string_view m, double s) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &s, sizeof bits);
    return mix64(h ^ bits) + std::hash<std::string_view>{}(m);
}

// ---- the data of one size ---------------------------------------------------------------------

struct dataset {
    explicit dataset(std::size_t size) : n(size) {
        const double t0 = thread_cpu_seconds();
        k = std::min(range_length, n);
        batch = std::clamp<std::size_t>(n / 4, 1, 1000);
        if (n < listpack_limit) batch = std::min(batch, listpack_limit - n);

        members.reserve(n);
        scores.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            members.push_back(member_name(i));
            scores.push_back(score_of(stream::main, i));
        }
        order.resize(n);
        std::iota(order.begin(), order.end(), 0u);
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return scores[a] < scores[b] || (scores[a] == scores[b] && members[a] < members[b]);
        });
        sorted_scores.reserve(n);
        for (const std::uint32_t i : order) {
            sorted_scores.push_back(scores[i]);
            checksum = fold(checksum, members[i], scores[i]);
        }

        rng r(static_cast<std::uint64_t>(stream::keys) ^ n);
        const std::size_t pool_new = batch * std::max<std::size_t>(16, pool_size / batch);
        for (std::size_t q = 0; q < pool_size; ++q) {
            const auto i = static_cast<std::uint32_t>(r.below(n));
            hit_idx.push_back(i);
            hit_keys.push_back(members[i]);
            miss_keys.push_back(member_name(n + pool_new + r.below(n)));
            const auto lo_rank = static_cast<std::uint32_t>(r.below(n - k + 1));
            range_lo_rank.push_back(lo_rank);
            range_lo.push_back(sorted_scores[lo_rank]);
            range_start.push_back(static_cast<std::uint32_t>(r.below(n - k + 1)));
            const double lo = r.unit() * 0.99;
            count_lo.push_back(lo);
            count_hi.push_back(lo + 0.01);
            const auto first = std::lower_bound(sorted_scores.begin(), sorted_scores.end(), lo);
            const auto last =
                std::upper_bound(sorted_scores.begin(), sorted_scores.end(), lo + 0.01);
            count_expected.push_back(static_cast<std::size_t>(last - first));
            upd_idx.push_back(static_cast<std::uint32_t>(r.below(n)));
        }
        for (std::size_t q = 0; q < update_scores_size; ++q)
            upd_scores.push_back(score_of(stream::updates, q));
        for (std::size_t j = 0; j < pool_new; ++j) {
            new_members.push_back(member_name(n + j));
            new_scores.push_back(score_of(stream::added, j));
        }
        perm.resize(n);
        std::iota(perm.begin(), perm.end(), 0u);
        for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[r.below(i)]);
        std::fprintf(stderr, "[zset_bench] data n=%zu ready (%.1f s)\n", n,
                     thread_cpu_seconds() - t0);
    }

    /// The order of the adds of the building rows' iteration `i` (random orders: build_random,
    /// build_reserved, batch_add): one of build_orders_for(n) permutations of [0, n), taken in
    /// turn. One order replayed in every iteration let the branch predictor learn the whole
    /// build (a set of 100 members built ~2x as fast as from orders it had not seen, zset and
    /// the peers alike), where the other rows draw from pools of pool_size operations.
    const std::vector<std::uint32_t>& build_order(std::size_t i) {
        if (build_orders.empty()) {
            rng r(static_cast<std::uint64_t>(stream::keys) ^ (n * 31 + 7));
            build_orders.resize(build_orders_for(n), perm);
            for (auto& o : build_orders)
                for (std::size_t j = n; j > 1; --j) std::swap(o[j - 1], o[r.below(j)]);
        }
        return build_orders[i % build_orders.size()];
    }
    /// Enough orders that the adds of one pass over them fill a pool (1 from 2^16 members on).
    static std::size_t build_orders_for(std::size_t n) {
        return std::max<std::size_t>(1, pool_size / n);
    }

    /// The second input of union / intersection: members [n/2, n/2 + n), its own scores.
    void make_union_input() {
        if (!b_members.empty()) return;
        for (std::size_t j = 0; j < n; ++j) {
            b_members.push_back(member_name(n / 2 + j));
            b_scores.push_back(score_of(stream::union_b, j));
        }
    }

    std::size_t n;
    std::size_t k = 0;      // range length
    std::size_t batch = 1;  // destructive batch size
    std::vector<std::string> members;
    std::vector<double> scores;
    std::vector<std::uint32_t> order;  // member indices in (score, member) order
    std::vector<double> sorted_scores;
    std::uint64_t checksum = 0;

    std::vector<std::uint32_t> hit_idx;
    std::vector<std::string> hit_keys, miss_keys;
    std::vector<double> range_lo;
    std::vector<std::uint32_t> range_lo_rank, range_start;
    std::vector<double> count_lo, count_hi;
    std::vector<std::size_t> count_expected;
    std::vector<std::uint32_t> upd_idx;
    std::vector<double> upd_scores;
    std::vector<std::string> new_members;
    std::vector<double> new_scores;
    std::size_t new_pos = 0;
    std::vector<std::uint32_t> perm;  // ZREM order
    std::size_t perm_pos = 0;
    std::vector<std::vector<std::uint32_t>> build_orders;  // see build_order()
    std::vector<std::string> b_members;
    std::vector<double> b_scores;
};

// ---- cache: the structures of the current size, built once and shared by its benchmarks --------

struct cache {
    std::size_t n = 0;
    std::unique_ptr<dataset> data;
    std::map<std::string, std::shared_ptr<void>> items;
};

cache& the_cache() {
    static cache c;
    return c;
}

dataset& data_for(std::size_t n) {
    cache& c = the_cache();
    if (c.n != n) {
        c.items.clear();  // one size at a time keeps the peak memory down
        c.data.reset();
        c.n = n;
    }
    if (!c.data) c.data = std::make_unique<dataset>(n);
    return *c.data;
}

template <class T, class Make>
T& cached(const std::string& key, std::size_t n, Make&& make) {
    data_for(n);
    std::shared_ptr<void>& slot = the_cache().items[key];
    if (!slot) slot = std::shared_ptr<T>(make());
    return *static_cast<T*>(slot.get());
}

// ---- structures -------------------------------------------------------------------------------

using zset_set = zset::sorted_set<>;
using counted_zset = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                                      std::less<>, counting_allocator<std::string>>;

struct zset_spec {
    using adapter = zset_adapter<zset_set>;
    static constexpr const char* name = "zset";
    static constexpr bool is_zset = true;
    static constexpr std::size_t max_size = static_cast<std::size_t>(-1);
    static zset::options options() { return zset::options{}; }
    static adapter make() { return adapter(zset_set(options())); }
    static zset::encoding expected_encoding(std::size_t n) {
        return n <= listpack_limit ? zset::encoding::listpack : zset::encoding::skiplist;
    }
};

/// zset with max_listpack_entries = 0: skiplist mode at every size (compared at sizes <= 128).
struct zset_skiplist_spec {
    using adapter = zset_adapter<zset_set>;
    static constexpr const char* name = "zset_skiplist";
    static constexpr bool is_zset = true;
    static constexpr std::size_t max_size = listpack_limit;
    static zset::options options() { return zset::options{0, 64}; }
    static adapter make() { return adapter(zset_set(options())); }
    static zset::encoding expected_encoding(std::size_t) { return zset::encoding::skiplist; }
};

#if defined(ZSET_BENCH_HAVE_ABSL)
struct absl_spec {
    using adapter = absl_adapter;
    static constexpr const char* name = "absl";
    static constexpr bool is_zset = false;
    static constexpr std::size_t max_size = static_cast<std::size_t>(-1);
    static adapter make() { return adapter(); }
};

/// Redis's design: span skiplist of nodes with inline members + flat hash of node pointers.
struct redisskl_spec {
    using adapter = redis_skiplist_adapter;
    static constexpr const char* name = "redisskl";
    static constexpr bool is_zset = false;
    static constexpr std::size_t max_size = static_cast<std::size_t>(-1);
    static adapter make() { return adapter(); }
};
#endif

#if defined(ZSET_BENCH_HAVE_BOOST)
struct boost_spec {
    using adapter = boost_adapter;
    static constexpr const char* name = "boost";
    static constexpr bool is_zset = false;
    static constexpr std::size_t max_size = static_cast<std::size_t>(-1);
    static adapter make() { return adapter(); }
};
#endif

struct std_spec {
    using adapter = std_adapter;
    static constexpr const char* name = "std";
    static constexpr bool is_zset = false;
    static constexpr std::size_t max_size = static_cast<std::size_t>(-1);
    static adapter make() { return adapter(); }
};

/// Checks contents, order, ranks and ranges of a freshly built structure against the data.
template <class Spec>
void verify(const typename Spec::adapter& a, const dataset& d, const char* what) {
    const std::string where = std::string(Spec::name) + " " + what + " n=" + std::to_string(d.n);
    if constexpr (Spec::is_zset) {
        if (a.set().encoding() != Spec::expected_encoding(d.n))
            report_failure(where + ": unexpected encoding");
    }
    if (a.size() != d.n) return report_failure(where + ": wrong size");
    std::uint64_t h = 0;
    a.for_each([&](std::string_view m, double s) { h = fold(h, m, s); });
    if (h != d.checksum) return report_failure(where + ": contents or order differ");
    for (std::size_t q = 0; q < 64; ++q) {
        std::size_t r = d.range_lo_rank[q], bad = 0;
        a.range_by_score(d.range_lo[q], d.k, [&](std::string_view m, double) {
            bad += m != d.members[d.order[r++]] ? 1 : 0;
        });
        if (bad != 0 || r != d.range_lo_rank[q] + d.k)
            return report_failure(where + ": range_by_score differs");
        if constexpr (Spec::adapter::has_rank) {
            r = d.range_start[q];
            a.range_by_rank(d.range_start[q], d.k, [&](std::string_view m, double) {
                bad += m != d.members[d.order[r++]] ? 1 : 0;
            });
            if (bad != 0 || r != d.range_start[q] + d.k)
                return report_failure(where + ": range_by_rank differs");
        }
    }
    if constexpr (Spec::adapter::has_rank) {
        std::vector<std::uint32_t> rank_of(d.n);
        for (std::size_t r = 0; r < d.n; ++r) rank_of[d.order[r]] = static_cast<std::uint32_t>(r);
        for (std::size_t q = 0; q < 1024; ++q) {
            const auto got = a.rank(d.hit_keys[q]);
            if (!got || *got != rank_of[d.hit_idx[q]])
                return report_failure(where + ": rank differs");
        }
    }
}

template <class Spec>
typename Spec::adapter& structure(std::size_t n) {
    using adapter = typename Spec::adapter;
    return cached<adapter>(std::string(Spec::name) + "/main", n, [n] {
        const dataset& d = data_for(n);
        const double t0 = thread_cpu_seconds();
        auto a = std::make_unique<adapter>(Spec::make());
        for (std::size_t i = 0; i < n; ++i) a->add(d.members[i], d.scores[i]);
        std::fprintf(stderr, "[zset_bench] built %s n=%zu (%.2f s)\n", Spec::name, n,
                     thread_cpu_seconds() - t0);
        verify<Spec>(*a, d, "build");
        return a;
    });
}

/// The second union / intersection input (members [n/2, n/2 + n)).
template <class Spec>
typename Spec::adapter& union_input(std::size_t n) {
    using adapter = typename Spec::adapter;
    return cached<adapter>(std::string(Spec::name) + "/union_b", n, [n] {
        dataset& d = data_for(n);
        d.make_union_input();
        auto a = std::make_unique<adapter>(Spec::make());
        for (std::size_t j = 0; j < n; ++j) a->add(d.b_members[j], d.b_scores[j]);
        return a;
    });
}

// ---- helpers ----------------------------------------------------------------------------------

/// Items processed and the "ops" counter (operations per benchmark iteration; the report divides
/// the time per iteration by it).
void finish(benchmark::State& st, std::size_t ops_per_iteration) {
    st.SetItemsProcessed(st.iterations() *
                         static_cast<benchmark::IterationCount>(ops_per_iteration));
    st.counters["ops"] = static_cast<double>(ops_per_iteration);
}

double batch_seconds(double t0, double t1) {
    return std::max(t1 - t0 - timer_overhead_seconds(), 1e-9);
}

// ---- benchmarks -------------------------------------------------------------------------------

/// ZADD of members not in the set; the batch is removed again untimed.
template <class Spec>
void bm_zadd_new(benchmark::State& st, std::size_t n) {
    auto& a = structure<Spec>(n);
    dataset& d = data_for(n);
    const std::size_t b = d.batch;
    for (auto _ : st) {
        const std::size_t p = d.new_pos;
        std::size_t added = 0;
        const double t0 = thread_cpu_seconds();
        for (std::size_t j = 0; j < b; ++j)
            added += a.add(d.new_members[p + j], d.new_scores[p + j]) ? 1 : 0;
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        for (std::size_t j = 0; j < b; ++j) a.erase(d.new_members[p + j]);
        d.new_pos = (p + b) % d.new_members.size();
        if (added != b) {
            fail(st, "zadd_new: a member was not added");
            break;
        }
    }
    if constexpr (Spec::is_zset) {
        if (a.set().encoding() != Spec::expected_encoding(n))
            fail(st, "zadd_new: the set changed encoding");
    }
    finish(st, b);
}

/// ZADD of an existing member with a new random score (moves it to a random place).
template <class Spec>
void bm_update(benchmark::State& st, std::size_t n) {
    auto& a = structure<Spec>(n);
    const dataset& d = data_for(n);
    std::size_t t = 0, added = 0;
    for (auto _ : st) {
        const std::uint32_t i = d.upd_idx[t & (pool_size - 1)];
        added += a.add(d.members[i], d.upd_scores[t & (update_scores_size - 1)]) ? 1 : 0;
        ++t;
    }
    // restore the original scores (untimed: after the loop)
    for (std::size_t j = 0; j < std::min(t, pool_size); ++j)
        a.add(d.members[d.upd_idx[j]], d.scores[d.upd_idx[j]]);
    if (added != 0) fail(st, "update: a member was missing");
    finish(st, 1);
}

// The read-only rows (lookups, ranges, iteration, ZCOUNT) run in functions templated on the
// adapter, not the spec: zset and zset_skiplist (listpack and skiplist mode) are one adapter
// type, so both rows run one compiled loop, and their ratio compares the modes, not where the
// linker put two copies of the same loop (run 32: full iteration at 100 read 1.28, listpack
// against skiplist mode, with identical loops at different offsets of their cache lines;
// docs/benchmarks.md, "One loop for both modes").
//
// use_result: lookups fold their result into a scalar a user would compute (a sum of scores or
// ranks, a count of hits) and keep that scalar, not the std::optional, from the optimiser.
// DoNotOptimize on a returned std::optional<double> (16 bytes, returned in two registers) made
// g++ store both halves and reload them as one 16-byte vector: a failed store forward, ~12
// cycles per iteration, charged only to structures whose lookup is not inlined into the loop
// (perf annotate of zscore_miss/zset/1000: 61% of the loop's samples on that reload; the
// benchmark read 18.2 ns a miss against 9.3 ns in a plain loop).
template <class Adapter>
void zscore_hit_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, missing = 0;
    double sum = 0;
    for (auto _ : st) {
        const auto s = a.score(d.hit_keys[q]);
        missing += s ? 0 : 1;
        sum += s ? *s : 0.0;
        benchmark::DoNotOptimize(sum);  // see use_result
        q = (q + 1) & (pool_size - 1);
    }
    if (missing != 0) fail(st, "zscore_hit: a member was missing");
    finish(st, 1);
}
template <class Spec>
void bm_zscore_hit(benchmark::State& st, std::size_t n) {
    zscore_hit_rows(st, structure<Spec>(n), n);
}

template <class Adapter>
void zscore_miss_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, found = 0;
    for (auto _ : st) {
        const auto s = a.score(d.miss_keys[q]);
        found += s ? 1 : 0;
        benchmark::DoNotOptimize(found);  // see use_result
        q = (q + 1) & (pool_size - 1);
    }
    if (found != 0) fail(st, "zscore_miss: an absent member was found");
    finish(st, 1);
}
template <class Spec>
void bm_zscore_miss(benchmark::State& st, std::size_t n) {
    zscore_miss_rows(st, structure<Spec>(n), n);
}

template <class Adapter>
void zrank_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, missing = 0, rank_sum = 0;
    for (auto _ : st) {
        const auto r = a.rank(d.hit_keys[q]);
        missing += r ? 0 : 1;
        rank_sum += r ? *r : 0;
        benchmark::DoNotOptimize(rank_sum);  // see use_result
        q = (q + 1) & (pool_size - 1);
    }
    if (missing != 0) fail(st, "zrank: a member was missing");
    finish(st, 1);
}
template <class Spec>
void bm_zrank(benchmark::State& st, std::size_t n) {
    zrank_rows(st, structure<Spec>(n), n);
}

/// ZRANGEBYSCORE lo +inf LIMIT 0 100 from a random lower bound (always 100 results), reading
/// every member and score.
template <class Adapter>
void range_by_score_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, short_ranges = 0;
    double acc = 0;
    std::size_t bytes = 0;
    for (auto _ : st) {
        const std::size_t got =
            a.range_by_score(d.range_lo[q], d.k, [&](std::string_view m, double s) {
                acc += s;
                bytes += m.size();
            });
        short_ranges += got != d.k ? 1 : 0;
        benchmark::DoNotOptimize(acc);
        benchmark::DoNotOptimize(bytes);
        q = (q + 1) & (pool_size - 1);
    }
    if (short_ranges != 0) fail(st, "range_by_score: wrong number of elements");
    finish(st, 1);
}
template <class Spec>
void bm_range_by_score(benchmark::State& st, std::size_t n) {
    range_by_score_rows(st, structure<Spec>(n), n);
}

/// ZRANGE start start+99 from a random start.
template <class Adapter>
void range_by_rank_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, short_ranges = 0;
    double acc = 0;
    std::size_t bytes = 0;
    for (auto _ : st) {
        const std::size_t got =
            a.range_by_rank(d.range_start[q], d.k, [&](std::string_view m, double s) {
                acc += s;
                bytes += m.size();
            });
        short_ranges += got != d.k ? 1 : 0;
        benchmark::DoNotOptimize(acc);
        benchmark::DoNotOptimize(bytes);
        q = (q + 1) & (pool_size - 1);
    }
    if (short_ranges != 0) fail(st, "range_by_rank: wrong number of elements");
    finish(st, 1);
}
template <class Spec>
void bm_range_by_rank(benchmark::State& st, std::size_t n) {
    range_by_rank_rows(st, structure<Spec>(n), n);
}

/// ZREM of random existing members; the batch is re-added (same scores) untimed.
template <class Spec>
void bm_zrem(benchmark::State& st, std::size_t n) {
    auto& a = structure<Spec>(n);
    dataset& d = data_for(n);
    const std::size_t b = d.batch;
    for (auto _ : st) {
        if (d.perm_pos + b > n) d.perm_pos = 0;
        const std::uint32_t* idx = d.perm.data() + d.perm_pos;
        std::size_t removed = 0;
        const double t0 = thread_cpu_seconds();
        for (std::size_t j = 0; j < b; ++j) removed += a.erase(d.members[idx[j]]) ? 1 : 0;
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        for (std::size_t j = 0; j < b; ++j) a.add(d.members[idx[j]], d.scores[idx[j]]);
        d.perm_pos += b;
        if (removed != b) {
            fail(st, "zrem: a member was missing");
            break;
        }
    }
    finish(st, b);
}

/// ZPOPMIN (count 1), the result moved into a buffer; the batch is re-added untimed.
template <class Spec>
void bm_pop_min(benchmark::State& st, std::size_t n) {
    auto& a = structure<Spec>(n);
    const dataset& d = data_for(n);
    const std::size_t b = d.batch;
    std::vector<popped> out;
    out.reserve(b);
    for (auto _ : st) {
        const double t0 = thread_cpu_seconds();
        for (std::size_t j = 0; j < b; ++j) out.push_back(a.pop_min());
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        bool ok = true;
        double last = -1;
        for (const popped& p : out) {
            ok = ok && p.size() == 1 && p[0].second >= last;
            if (!p.empty()) {
                last = p[0].second;
                a.add(p[0].first, p[0].second);
            }
        }
        out.clear();
        if (!ok) {
            fail(st, "pop_min: wrong element");
            break;
        }
    }
    finish(st, b);
}

/// Full iteration in order, reading every member and score; reported per element.
template <class Adapter>
void iterate_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    std::size_t wrong = 0;
    for (auto _ : st) {
        double acc = 0;
        std::size_t bytes = 0, seen = 0;
        a.for_each([&](std::string_view m, double s) {
            acc += s;
            bytes += m.size();
            ++seen;
        });
        wrong += seen != n ? 1 : 0;
        benchmark::DoNotOptimize(acc);
        benchmark::DoNotOptimize(bytes);
    }
    if (wrong != 0) fail(st, "iterate: wrong number of elements");
    finish(st, n);
}
template <class Spec>
void bm_iterate(benchmark::State& st, std::size_t n) {
    iterate_rows(st, structure<Spec>(n), n);
}

/// ZCOUNT over a random score interval of width 0.01 (about 1% of the elements).
template <class Adapter>
void zcount_rows(benchmark::State& st, const Adapter& a, std::size_t n) {
    const dataset& d = data_for(n);
    std::size_t q = 0, wrong = 0;
    for (auto _ : st) {
        const std::size_t c = a.count(d.count_lo[q], d.count_hi[q]);
        wrong += c != d.count_expected[q] ? 1 : 0;
        benchmark::DoNotOptimize(c);
        q = (q + 1) & (pool_size - 1);
    }
    if (wrong != 0) fail(st, "zcount: wrong count");
    finish(st, 1);
}
template <class Spec>
void bm_zcount(benchmark::State& st, std::size_t n) {
    zcount_rows(st, structure<Spec>(n), n);
}

/// ZUNION (SUM) of the set (members [0, n)) and a second set (members [n/2, n/2 + n)); the
/// result is built and destroyed inside the timing.
template <class Spec>
void bm_union(benchmark::State& st, std::size_t n) {
    const auto& a = structure<Spec>(n);
    const auto& b = union_input<Spec>(n);
    std::size_t wrong = 0;
    for (auto _ : st) {
        auto r = Spec::adapter::unite(a, b);
        wrong += r.size() != n + n / 2 ? 1 : 0;
        benchmark::DoNotOptimize(r);
    }
    if (wrong != 0) fail(st, "union: wrong size");
    finish(st, 1);
}

template <class Spec>
void bm_inter(benchmark::State& st, std::size_t n) {
    const auto& a = structure<Spec>(n);
    const auto& b = union_input<Spec>(n);
    std::size_t wrong = 0;
    for (auto _ : st) {
        auto r = Spec::adapter::intersect(a, b);
        wrong += r.size() != n - n / 2 ? 1 : 0;
        benchmark::DoNotOptimize(r);
    }
    if (wrong != 0) fail(st, "inter: wrong size");
    finish(st, 1);
}

// ---- building from empty ---------------------------------------------------------------------

/// A structure built from empty by ZADDs of the dataset's n elements one at a time, in random
/// order (`ascending` false: a permutation of its own each iteration, dataset::build_order) or in
/// ascending score order (a time series): time per add. The structure is destroyed untimed after
/// each iteration.
/// Does the adapter take a size hint (reserve(n))?
template <class A, class = void>
struct takes_reserve : std::false_type {};
template <class A>
struct takes_reserve<A, std::void_t<decltype(std::declval<A&>().reserve(std::size_t{}))>>
    : std::true_type {};

enum class size_hint { none, reserved };

template <class Spec>
void bm_build(benchmark::State& st, std::size_t n, bool ascending,
              size_hint hint = size_hint::none) {
    dataset& d = data_for(n);
    std::size_t iteration = 0;
    for (auto _ : st) {
        const std::vector<std::uint32_t>& order = ascending ? d.order : d.build_order(iteration++);
        auto a = std::make_unique<typename Spec::adapter>(Spec::make());
        std::size_t added = 0;
        const double t0 = thread_cpu_seconds();
        if constexpr (takes_reserve<typename Spec::adapter>::value)
            if (hint == size_hint::reserved) a->reserve(n);
        for (const std::uint32_t i : order) added += a->add(d.members[i], d.scores[i]) ? 1 : 0;
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        if (added != n || a->size() != n) {
            fail(st, "build: wrong size");
            break;
        }
    }
    finish(st, n);
}

template <class Spec>
void bm_build_random(benchmark::State& st, std::size_t n) {
    bm_build<Spec>(st, n, false);
}
template <class Spec>
void bm_build_ascending(benchmark::State& st, std::size_t n) {
    bm_build<Spec>(st, n, true);
}
/// build_random after reserve(n), for the structures that take a size hint (zset: sorted_set::
/// reserve; absl and std: the hash map's; Boost: the hashed index's; the Redis-style peer and
/// the trees alone take none and build as in build_random).
template <class Spec>
void bm_build_reserved(benchmark::State& st, std::size_t n) {
    bm_build<Spec>(st, n, false, size_hint::reserved);
}

/// One ZADD of `batch_pairs` pairs in random order (each iteration another, as build_random's)
/// into an empty set (zset's batch add; the peers add the pairs one by one, which is how they
/// take a batch): time per pair.
constexpr std::size_t batch_pairs = 1000;

template <class Spec>
void bm_batch_add(benchmark::State& st, std::size_t) {
    dataset& d = data_for(batch_pairs);
    std::vector<std::vector<std::pair<std::string, double>>> batches;
    for (std::size_t b = 0; b < dataset::build_orders_for(batch_pairs); ++b) {
        batches.emplace_back();
        for (const std::uint32_t i : d.build_order(b))
            batches.back().emplace_back(d.members[i], d.scores[i]);
    }
    std::size_t iteration = 0;
    for (auto _ : st) {
        const auto& pairs = batches[iteration++ % batches.size()];
        auto a = std::make_unique<typename Spec::adapter>(Spec::make());
        const double t0 = thread_cpu_seconds();
        if constexpr (Spec::is_zset) {
            a->set().add(pairs.begin(), pairs.end());
        } else {
            for (const auto& [m, s] : pairs) a->add(m, s);
        }
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        if (a->size() != batch_pairs) {
            fail(st, "batch_add: wrong size");
            break;
        }
    }
    finish(st, batch_pairs);
}

/// Many keys, each built from empty: `sets` sets of `per_set` members ("member:0" on, the
/// suite's scores), added one by one. Time per add over all of them, and bytes per element
/// with every set alive (counted as memory/ counts).
///
/// Each repetition first builds and frees the same sets untimed, so that the timed build finds
/// the memory it needs in the heap already, as in a server that has built keys before. Without
/// it a repetition's time depended on what the benchmark before it had left in the heap: absl's
/// 1.4 GB of 10,000 sets of 1,000 took 4.0 s to build into fresh pages and 1.8 s into reused
/// ones (zset's 370 MB: 1.7 s and 1.5 s), and the same code's ratio read 0.66 in one run and
/// 0.86 in the next.
template <class Spec>
void bm_many_sets(benchmark::State& st, std::size_t sets, std::size_t per_set) {
    const std::size_t total = sets * per_set;
    std::vector<std::string> names;
    for (std::size_t j = 0; j < per_set; ++j) names.push_back(member_name(j));
    std::vector<double> scores(total);
    for (std::size_t i = 0; i < total; ++i) scores[i] = score_of(stream::main, i);
    const auto build = [&](std::vector<typename Spec::adapter>& all) {
        for (std::size_t k = 0; k < sets; ++k) {
            all.push_back(Spec::make());
            for (std::size_t j = 0; j < per_set; ++j)
                all.back().add(names[j], scores[k * per_set + j]);
        }
    };
    {
        std::vector<typename Spec::adapter> warm_up;
        warm_up.reserve(sets);
        build(warm_up);
    }
    for (auto _ : st) {
        std::vector<typename Spec::adapter> all;
        all.reserve(sets);
        const double t0 = thread_cpu_seconds();
        build(all);
        const double t1 = thread_cpu_seconds();
        st.SetIterationTime(batch_seconds(t0, t1));
        if (all.back().size() != per_set) fail(st, "many_sets: wrong size");
    }
    // bytes, once, outside the timed loop
    const auto per = [total](std::size_t bytes) {
        return static_cast<double>(bytes) / static_cast<double>(total);
    };
    if constexpr (Spec::is_zset) {
        heap_counts hc;
        std::vector<counted_zset> all;
        all.reserve(sets);
        for (std::size_t k = 0; k < sets; ++k) {
            all.emplace_back(Spec::options(), counting_allocator<std::string>(&hc));
            for (std::size_t j = 0; j < per_set; ++j)
                all.back().add(names[j], scores[k * per_set + j]);
        }
        st.counters["bytes_per_elem"] = per(hc.requested + sets * sizeof(counted_zset));
        st.counters["chunk_bytes_per_elem"] = per(hc.chunk + sets * sizeof(counted_zset));
    } else {
        global_heap::start();
        {
            std::vector<typename Spec::adapter> all;
            all.reserve(sets);
            for (std::size_t k = 0; k < sets; ++k) {
                all.push_back(Spec::make());
                for (std::size_t j = 0; j < per_set; ++j)
                    all.back().add(names[j], scores[k * per_set + j]);
            }
            const heap_counts hc = global_heap::now();
            st.counters["bytes_per_elem"] = per(hc.requested);
            st.counters["chunk_bytes_per_elem"] = per(hc.chunk);
        }
        global_heap::stop();
    }
    finish(st, total);
}

/// Bytes per element of a structure built by n ZADDs (requested bytes, and glibc chunk bytes =
/// malloc_usable_size + 8 per block), including sizeof the container object(s).
template <class Spec>
void bm_memory(benchmark::State& st, std::size_t n) {
    const dataset& d = data_for(n);
    const auto per = [n](std::size_t bytes) {
        return static_cast<double>(bytes) / static_cast<double>(n);
    };
    for (auto _ : st) {
        if constexpr (Spec::is_zset) {
            heap_counts hc;
            counted_zset s(Spec::options(), counting_allocator<std::string>(&hc));
            for (std::size_t i = 0; i < n; ++i) s.add(d.members[i], d.scores[i]);
            if (s.encoding() != Spec::expected_encoding(n)) fail(st, "memory: unexpected encoding");
            st.counters["bytes_per_elem"] = per(hc.requested + sizeof(s));
            st.counters["chunk_bytes_per_elem"] = per(hc.chunk + sizeof(s));
            st.counters["blocks_per_elem"] = per(hc.blocks);
            st.counters["self_reported_per_elem"] = per(s.memory_usage());
            s.shrink_to_fit();
            st.counters["compact_bytes_per_elem"] = per(hc.requested + sizeof(s));
        } else {
            global_heap::start();
            {
                auto a = std::make_unique<typename Spec::adapter>(Spec::make());
                for (std::size_t i = 0; i < n; ++i) a->add(d.members[i], d.scores[i]);
                const heap_counts hc = global_heap::now();
                st.counters["bytes_per_elem"] = per(hc.requested);
                st.counters["chunk_bytes_per_elem"] = per(hc.chunk);
                st.counters["blocks_per_elem"] = per(hc.blocks);
            }
            global_heap::stop();
        }
    }
}

// ---- registration -----------------------------------------------------------------------------

using bench_fn = void (*)(benchmark::State&, std::size_t);

struct op_entry {
    const char* name;
    bool needs_rank;   // only for structures with O(log n) rank (zset, redisskl, boost)
    bool manual_time;  // batch-timed destructive operation
    std::size_t max_size;
};

constexpr std::size_t any_size = static_cast<std::size_t>(-1);
constexpr std::size_t op_count = 17;
constexpr op_entry ops[op_count] = {
    {"build_random", false, true, any_size},
    {"build_ascending", false, true, any_size},
    {"build_reserved", false, true, any_size},
    {"zadd_new", false, true, any_size},
    {"update", false, false, any_size},
    {"zscore_hit", false, false, any_size},
    {"zscore_miss", false, false, any_size},
    {"zrank", true, false, any_size},
    {"range_by_score", false, false, any_size},
    {"range_by_rank", true, false, any_size},
    {"zrem", false, true, any_size},
    {"pop_min", false, true, any_size},
    {"iterate", false, false, any_size},
    {"zcount", false, false, any_size},
    {"union", false, false, union_max_size},
    {"inter", false, false, union_max_size},
    {"memory", false, false, any_size},
};

/// Registers operation `w` of `ops` for one structure at size n (if it applies).
template <class Spec>
void register_op(std::size_t w, std::size_t n) {
    static constexpr bench_fn fns[op_count] = {&bm_build_random<Spec>,   &bm_build_ascending<Spec>,
                                               &bm_build_reserved<Spec>, &bm_zadd_new<Spec>,
                                               &bm_update<Spec>,         &bm_zscore_hit<Spec>,
                                               &bm_zscore_miss<Spec>,    &bm_zrank<Spec>,
                                               &bm_range_by_score<Spec>, &bm_range_by_rank<Spec>,
                                               &bm_zrem<Spec>,           &bm_pop_min<Spec>,
                                               &bm_iterate<Spec>,        &bm_zcount<Spec>,
                                               &bm_union<Spec>,          &bm_inter<Spec>,
                                               &bm_memory<Spec>};
    const op_entry& op = ops[w];
    if (n > Spec::max_size || n > op.max_size) return;
    if (op.needs_rank && !Spec::adapter::has_rank) return;
    const bench_fn fn = fns[w];
    const std::string name = std::string(op.name) + "/" + Spec::name + "/" + std::to_string(n);
    auto* b =
        benchmark::RegisterBenchmark(name.c_str(), [fn, n](benchmark::State& st) { fn(st, n); });
    if (op.manual_time) b->UseManualTime();
    if (std::string_view(op.name) == "memory") b->Iterations(1)->Repetitions(1);
}

/// Registers the rows that do not follow ZSET_BENCH_SIZES for one structure: the batch add of
/// 1,000 pairs and the many-keys builds (100,000 sets of 100, 10,000 sets of 1,000).
template <class Spec>
void register_building() {
    if constexpr (!std::is_same_v<Spec, zset_skiplist_spec>) {
        const std::string s = Spec::name;
        benchmark::RegisterBenchmark(("batch_add/" + s + "/1000").c_str(),
                                     [](benchmark::State& st) { bm_batch_add<Spec>(st, 0); })
            ->UseManualTime();
        for (const auto& [sets, per_set] : {std::pair<std::size_t, std::size_t>{100000, 100},
                                            std::pair<std::size_t, std::size_t>{10000, 1000}}) {
            const std::string name =
                "many_sets_" + std::to_string(per_set) + "/" + s + "/" + std::to_string(sets);
            benchmark::RegisterBenchmark(name.c_str(),
                                         [sets = sets, per_set = per_set](benchmark::State& st) {
                                             bm_many_sets<Spec>(st, sets, per_set);
                                         })
                ->UseManualTime()
                ->Iterations(1);
        }
    }
}

/// Registration order = run order: size by size (the structures of one size are cached, then
/// freed), then operation by operation, all structures side by side (ratios measured close in
/// time).
void register_all(const std::vector<std::size_t>& sizes) {
    if (std::getenv("ZSET_BENCH_BUILDING") == nullptr ||
        *std::getenv("ZSET_BENCH_BUILDING") != '0') {
        register_building<zset_spec>();
#if defined(ZSET_BENCH_HAVE_ABSL)
        register_building<absl_spec>();
        register_building<redisskl_spec>();
#endif
#if defined(ZSET_BENCH_HAVE_BOOST)
        register_building<boost_spec>();
#endif
        register_building<std_spec>();
    }
    for (const std::size_t n : sizes) {
        for (std::size_t w = 0; w < op_count; ++w) {
            register_op<zset_spec>(w, n);
            register_op<zset_skiplist_spec>(w, n);
#if defined(ZSET_BENCH_HAVE_ABSL)
            register_op<absl_spec>(w, n);
            register_op<redisskl_spec>(w, n);
#endif
#if defined(ZSET_BENCH_HAVE_BOOST)
            register_op<boost_spec>(w, n);
#endif
            register_op<std_spec>(w, n);
        }
    }
}

std::vector<std::size_t> parse_sizes(const char* text) {
    std::vector<std::size_t> out;
    std::string s(text);
    std::replace(s.begin(), s.end(), ',', ' ');
    const char* p = s.c_str();
    for (;;) {
        char* end = nullptr;
        const double v = std::strtod(p, &end);
        if (end == p) break;
        if (!(v >= 4 && v <= 2e9)) {
            std::fprintf(stderr, "[zset_bench] ignoring size %g (must be in [4, 2e9])\n", v);
        } else {
            out.push_back(static_cast<std::size_t>(v));
        }
        p = end;
    }
    return out;
}

}  // namespace
}  // namespace zbench

int main(int argc, char** argv) {
    const char* env_sizes = std::getenv("ZSET_BENCH_SIZES");
    const std::vector<std::size_t> sizes = zbench::parse_sizes(
        env_sizes != nullptr && *env_sizes != '\0' ? env_sizes : "100,1000,100000,1000000");
    if (sizes.empty()) {
        std::fprintf(stderr, "zset_bench: no valid size in ZSET_BENCH_SIZES\n");
        return 2;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

    std::string size_list;
    for (const std::size_t n : sizes)
        size_list += (size_list.empty() ? "" : ",") + std::to_string(n);
    std::string peers = "std";
#if defined(ZSET_BENCH_HAVE_ABSL)
    peers += ",absl,redisskl";
#endif
#if defined(ZSET_BENCH_HAVE_BOOST)
    peers += ",boost";
#endif
    benchmark::AddCustomContext("zset_version", ZSET_VERSION_STRING);
    if (const char* rev = std::getenv("ZSET_BENCH_REVISION"); rev != nullptr && *rev != '\0')
        benchmark::AddCustomContext("zset_revision", rev);
    benchmark::AddCustomContext("zset_bench_sizes", size_list);
    benchmark::AddCustomContext("zset_bench_peers", peers);
    benchmark::AddCustomContext("zset_bench_compiler", __VERSION__);
    benchmark::AddCustomContext("zset_bench_timer_overhead_ns",
                                std::to_string(zbench::timer_overhead_seconds() * 1e9));
    benchmark::AddCustomContext("zset_bench_time",
                                "cpu_time; */manual_time: batch CPU time (thread clock)");

    zbench::register_all(sizes);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (zbench::g_failed) {
        std::fprintf(stderr, "zset_bench: some benchmarks detected wrong results\n");
        return 1;
    }
    return 0;
}
