// Allocation failure: every allocation an operation makes is made to fail in turn.
//
// A stateful test allocator throws std::bad_alloc at the k-th allocation after it is armed. For
// each workload (a set prepared with the allocator disarmed, then one operation) and for every
// k = 1, 2, ... until the operation completes without reaching its k-th allocation:
//   * the operation throws std::bad_alloc;
//   * the set still validate()s and holds exactly what it held before, in the same encoding
//     (the strong guarantee, which every workload here documents, batch add included);
//   * every live byte belongs to the set (live bytes == memory_usage() - sizeof(set)), and all
//     of them return to the allocator when the set is destroyed (no leak);
//   * the same operation, retried with the allocator disarmed, succeeds with the right result.
// A workload whose operation allocates nothing (a score update within its block) passes at k = 1;
// each test case checks that its workloads together failed at least one allocation, with the
// failure points per workload as that check's message (shown on failure, or with -s).
// Allocations that do not go through the set's allocator (result vectors of pop_min, the
// temporary member copy of a score update) are not injected here; ASan covers their leaks.
#include <algorithm>
#include <cstddef>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/zset.hpp>

namespace {

/// Shared by every arena of a workload: which allocation (counted from arm()) fails.
struct fail_control {
    bool armed = false;
    bool fired = false;
    std::size_t fail_at = 0;  // 1-based
    std::size_t attempts = 0;
    void arm(std::size_t k) {
        armed = true;
        fired = false;
        fail_at = k;
        attempts = 0;
    }
    void disarm() { armed = false; }
};

/// One memory arena: what is live in it.
struct arena {
    fail_control* control;
    std::size_t live_bytes = 0;
    std::size_t live_blocks = 0;
};

/// Where a default-constructed allocator draws from: never armed.
inline arena& unused_arena() {
    static fail_control never;
    static arena a{&never};
    return a;
}

template <class T, bool Propagate>
struct failing_allocator {
    using value_type = T;
    using propagate_on_container_copy_assignment = std::bool_constant<Propagate>;
    using propagate_on_container_move_assignment = std::bool_constant<Propagate>;
    using propagate_on_container_swap = std::bool_constant<Propagate>;
    using is_always_equal = std::false_type;
    template <class U>
    struct rebind {
        using other = failing_allocator<U, Propagate>;
    };

    arena* where;
    explicit failing_allocator(arena* a) noexcept : where(a) {}
    // zset's set operations default-construct the allocator for a result with no non-null
    // input (set_ops.hpp, empty_like), so they need this even when every input is present.
    failing_allocator() noexcept : where(&unused_arena()) {}
    template <class U>
    failing_allocator(const failing_allocator<U, Propagate>& o) noexcept : where(o.where) {}

    T* allocate(std::size_t n) {
        fail_control& c = *where->control;
        if (c.armed && ++c.attempts == c.fail_at) {
            c.fired = true;
            throw std::bad_alloc();
        }
        T* p = static_cast<T*>(::operator new(n * sizeof(T)));
        where->live_bytes += n * sizeof(T);
        ++where->live_blocks;
        return p;
    }
    void deallocate(T* p, std::size_t n) noexcept {
        where->live_bytes -= n * sizeof(T);
        --where->live_blocks;
        ::operator delete(p);
    }
    failing_allocator select_on_container_copy_construction() const { return *this; }
    template <class U>
    bool operator==(const failing_allocator<U, Propagate>& o) const noexcept {
        return where == o.where;
    }
    template <class U>
    bool operator!=(const failing_allocator<U, Propagate>& o) const noexcept {
        return where != o.where;
    }
};

template <class Member = std::string, bool Propagate = true>
using fset = zset::sorted_set<Member, double, zset::hash<Member>, std::equal_to<>, std::less<>,
                              failing_allocator<Member, Propagate>>;
using sset = fset<std::string, true>;

template <class Set>
using snapshot = std::vector<std::pair<typename Set::member_type, double>>;

template <class Set>
snapshot<Set> snapshot_of(const Set& s) {
    snapshot<Set> out;
    for (const auto& e : s) out.emplace_back(typename Set::member_type(e.member), e.score);
    return out;
}

template <class Set>
void require_unchanged(const Set& s, const snapshot<Set>& before, zset::encoding enc) {
    REQUIRE(s.validate());
    REQUIRE(snapshot_of(s) == before);
    // The encoding is observable state too (OBJECT ENCODING): a failed add must not leave the
    // set converted. Non-fatal, so the sweep goes on and reports every such point.
    CHECK(s.encoding() == enc);
}

template <class Set>
void require_owned(const Set& s, const arena& a) {
    REQUIRE(a.live_bytes + sizeof(s) == s.memory_usage());
}

/// Failure points covered per workload of one test case. Each case keeps its own: report()
/// checks that they add up to at least one, with the table as the check's message.
class coverage {
public:
    coverage& operator()(const std::string& workload, std::size_t points) {
        table_[workload] += points;
        return *this;
    }
    void report() const {
        std::ostringstream out;
        std::size_t total = 0;
        for (const auto& [name, points] : table_) {
            out << "\n  " << name << ": " << points;
            total += points;
        }
        INFO("allocation failure points covered (" << total << " in all):" << out.str());
        CHECK(total > 0);
    }

private:
    std::map<std::string, std::size_t> table_;
};

std::string key(std::size_t i) {
    return "m" + std::to_string(i);
}

/// A set of string members key(0..n-1) with scores 0..n-1 (ascending inserts: full blocks).
sset make_set(arena& a, std::size_t n, zset::options opts = {}, std::size_t member_pad = 0) {
    sset s(opts, failing_allocator<std::string, true>(&a));
    for (std::size_t i = 0; i < n; ++i)
        s.add(key(i) + std::string(member_pad, 'p'), static_cast<double>(i));
    return s;
}

/// The sweep for one single-set workload with the strong guarantee.
///   make(arena&)  -> Set   builds the starting set (allocator disarmed)
///   op(Set&)               the operation under test
///   done(Set&, before)     checks the result of a successful run
template <class Make, class Op, class Done>
void strong_workload(coverage& covered, const std::string& name, Make make, Op op, Done done) {
    fail_control control;
    std::size_t k = 1;
    for (;; ++k) {
        arena a{&control};
        {
            auto s = make(a);
            using Set = decltype(s);
            const snapshot<Set> before = snapshot_of(s);
            const zset::encoding enc = s.encoding();
            control.arm(k);
            bool threw = false;
            try {
                op(s);
            } catch (const std::bad_alloc&) {
                threw = true;
            }
            control.disarm();
            if (!threw) {  // the operation makes fewer than k allocations
                REQUIRE_FALSE(control.fired);
                REQUIRE(s.validate());
                done(s, before);
                require_owned(s, a);
                break;
            }
            INFO(name << ": allocation " << k << " failed");
            REQUIRE(control.fired);
            require_unchanged(s, before, enc);
            require_owned(s, a);
            op(s);  // retried without failures: succeeds
            REQUIRE(s.validate());
            done(s, before);
        }
        REQUIRE(a.live_bytes == 0);
        REQUIRE(a.live_blocks == 0);
    }
    covered(name, k - 1);
}

template <class Set>
void require_added(const Set& s, const snapshot<Set>& before, std::string_view m, double score) {
    REQUIRE(s.size() == before.size() + 1);
    REQUIRE(s.score(m) == score);
}

}  // namespace

TEST_CASE("allocation failure: single add", "[alloc-failure]") {
    coverage covered;
    const auto add_new = [](const std::string& m, double score) {
        return [m, score](sset& s) { s.add(m, score); };
    };
    const auto added = [](const std::string& m, double score) {
        return [m, score](const sset& s, const snapshot<sset>& before) {
            require_added(s, before, m, score);
        };
    };
    strong_workload(
        covered, "add into an empty set", [](arena& a) { return make_set(a, 0); }, add_new("x", 1),
        added("x", 1));
    // every listpack size up to 40: some adds fit the block, others regrow it
    for (std::size_t n = 1; n <= 40; ++n)
        strong_workload(
            covered, "add into listpack mode (sizes 1..40)",
            [n](arena& a) { return make_set(a, n); }, add_new("x", -1), added("x", -1));
    strong_workload(
        covered, "add into skiplist mode", [](arena& a) { return make_set(a, 1000); },
        add_new("x", 500.5), added("x", 500.5));
    strong_workload(
        covered, "add: listpack -> skiplist conversion (entries)",
        [](arena& a) { return make_set(a, 128); }, add_new("x", 64.5), added("x", 64.5));
    strong_workload(
        covered, "add: listpack -> skiplist conversion (value length)",
        [](arena& a) { return make_set(a, 20); }, add_new(std::string(65, 'L'), 3.5),
        added(std::string(65, 'L'), 3.5));
    strong_workload(
        covered, "add: conversion with thresholds 0",
        [](arena& a) {
            return make_set(a, 0, {0, 0});
        },
        add_new("x", 1), added("x", 1));
    // hash index growth: every size from the conversion to well past several table growths,
    // and from an empty set with thresholds 0 (index from 16 slots up)
    for (std::size_t n = 129; n <= 700; ++n)
        strong_workload(
            covered, "add: hash index growth (sizes 129..700)",
            [n](arena& a) { return make_set(a, n); }, add_new("x", 0.5), added("x", 0.5));
    for (std::size_t n = 1; n <= 200; ++n)
        strong_workload(
            covered, "add: hash index growth (thresholds 0, sizes 1..200)",
            [n](arena& a) {
                return make_set(a, n, {0, 64});
            },
            add_new("x", 0.5), added("x", 0.5));
    covered.report();
}

TEST_CASE("allocation failure: block splits", "[alloc-failure]") {
    coverage covered;
    const auto add_at = [](double score) { return [score](sset& s) { s.add("split", score); }; };
    const auto added = [](double score) {
        return [score](const sset& s, const snapshot<sset>& before) {
            require_added(s, before, "split", score);
        };
    };
    // ascending inserts leave full 128-element blocks: inserting inside one splits it
    for (const double score : {300.5, 127.5, 128.5, 0.5, -1.0, 1e9})
        strong_workload(
            covered, "block split (entry limit)", [](arena& a) { return make_set(a, 1000); },
            add_at(score), added(score));
    // 100-byte members: blocks split by the 2048-byte soft limit
    const std::string long_member = "split" + std::string(100, 'p');
    for (const double score : {50.5, 10.5, -1.0, 1e9})
        strong_workload(
            covered, "block split (byte limit)", [](arena& a) { return make_set(a, 200, {}, 100); },
            [&](sset& s) { s.add(long_member, score); },
            [&](const sset& s, const snapshot<sset>& before) {
                require_added(s, before, long_member, score);
            });
    // a member longer than a whole block
    strong_workload(
        covered, "block split (2100-byte member)", [](arena& a) { return make_set(a, 500); },
        [](sset& s) { s.add(std::string(2100, 'H'), 250.5); },
        [](const sset& s, const snapshot<sset>& before) {
            require_added(s, before, std::string(2100, 'H'), 250.5);
        });
    covered.report();
}

TEST_CASE("allocation failure: score updates and increments", "[alloc-failure]") {
    coverage covered;
    const auto moved = [](std::string m, double score) {
        return [m, score](const sset& s, const snapshot<sset>& before) {
            REQUIRE(s.size() == before.size());
            REQUIRE(s.score(m) == score);
        };
    };
    // skiplist mode: to another block (the new copy may split its target block), to the ends
    for (const double score : {900.5, 300.5, -5.0, 1e9})
        strong_workload(
            covered, "score update moving between blocks",
            [](arena& a) { return make_set(a, 1000); }, [score](sset& s) { s.add("m10", score); },
            moved("m10", score));
    strong_workload(
        covered, "score update inside a block", [](arena& a) { return make_set(a, 1000); },
        [](sset& s) { s.add("m10", 20.5); }, moved("m10", 20.5));
    // listpack mode: to the front, the end and the middle (the record stays where it is and
    // its position moves: no allocation)
    for (const double score : {1e9, -5.0, 20.5})
        strong_workload(
            covered, "score update in listpack mode", [](arena& a) { return make_set(a, 100); },
            [score](sset& s) { s.add("m10", score); }, moved("m10", score));
    strong_workload(
        covered, "increment moving between blocks", [](arena& a) { return make_set(a, 1000); },
        [](sset& s) { s.increment("m10", 700); }, moved("m10", 710));
    for (std::size_t n = 11; n <= 50; ++n)  // to the end of the block: no allocation either
        strong_workload(
            covered, "increment in listpack mode (sizes 11..50)",
            [n](arena& a) { return make_set(a, n); }, [](sset& s) { s.increment("m10", 100); },
            moved("m10", 110));
    strong_workload(
        covered, "increment of a new member (converts)", [](arena& a) { return make_set(a, 128); },
        [](sset& s) { s.increment("fresh", 3); },
        [](const sset& s, const snapshot<sset>& before) { require_added(s, before, "fresh", 3); });
    covered.report();
}

TEST_CASE("allocation failure: erasing never allocates", "[alloc-failure]") {
    const auto zero_allocations = [](const std::string& name, auto op) {
        fail_control control;
        arena a{&control};
        {
            sset s = make_set(a, 1000);
            control.arm(1);
            op(s);
            control.disarm();
            INFO(name);
            REQUIRE_FALSE(control.fired);
            REQUIRE(s.validate());
            require_owned(s, a);
        }
        REQUIRE(a.live_bytes == 0);
    };
    zero_allocations("erase range by score (0 allocations)", [](sset& s) {
        s.erase_range_by_score(zset::score_range<double>::closed(100, 700));
    });
    zero_allocations("erase range by rank (0 allocations)",
                     [](sset& s) { s.erase_range_by_rank(5, -5); });
    zero_allocations("erase members (0 allocations)", [](sset& s) {
        for (std::size_t i = 0; i < 1000; i += 3) s.erase(key(i));
    });
    zero_allocations("clear (0 allocations)", [](sset& s) { s.clear(); });
}

TEST_CASE("allocation failure: pops allocate only their result", "[alloc-failure]") {
    coverage covered;
    // The result vector comes from the set's allocator (so a pmr set's pops stay in its
    // resource); when it cannot be allocated nothing is removed.
    for (const bool max : {false, true}) {
        strong_workload(
            covered, max ? "pop_max (its result)" : "pop_min (its result)",
            [](arena& a) { return make_set(a, 1000); },
            [max](sset& s) { (void)(max ? s.pop_max(300) : s.pop_min(300)); },
            [](const sset& s, const snapshot<sset>& before) {
                REQUIRE(s.size() == before.size() - 300);
            });
        for (const std::size_t n : {std::size_t{50}, std::size_t{1000}})  // both encodings
            strong_workload(
                covered, max ? "pop_max of one (its result)" : "pop_min of one (its result)",
                [n](arena& a) { return make_set(a, n); },
                [max](sset& s) { (void)(max ? s.pop_max() : s.pop_min()); },
                [](const sset& s, const snapshot<sset>& before) {
                    REQUIRE(s.size() == before.size() - 1);
                });
    }
    covered.report();
}

TEST_CASE("allocation failure: copies, assignment, shrink_to_fit", "[alloc-failure]") {
    coverage covered;
    const auto same_size = [](const sset& s, const snapshot<sset>& before) {
        REQUIRE(snapshot_of(s) == before);
    };
    for (const std::size_t n : {std::size_t{50}, std::size_t{1000}})
        strong_workload(
            covered, "copy construction (" + std::to_string(n) + " elements)",
            [n](arena& a) { return make_set(a, n); },
            [](sset& s) {
                sset copy(s);
                REQUIRE(copy == s);
            },
            same_size);
    // copy assignment: the target keeps its contents when the copy fails (copy, then swap in)
    for (const std::size_t n : {std::size_t{50}, std::size_t{1000}}) {
        const std::string name = "copy assignment (" + std::to_string(n) + " elements)";
        fail_control control;
        std::size_t k = 1;
        for (;; ++k) {
            arena a{&control};
            {
                sset source = make_set(a, n);
                sset target = make_set(a, 30);
                target.add("only-in-target", -1);
                const auto src_before = snapshot_of(source);
                const auto tgt_before = snapshot_of(target);
                control.arm(k);
                bool threw = false;
                try {
                    target = source;
                } catch (const std::bad_alloc&) {
                    threw = true;
                }
                control.disarm();
                REQUIRE(source.validate());
                REQUIRE(snapshot_of(source) == src_before);
                REQUIRE(target.validate());
                REQUIRE(a.live_bytes + sizeof(source) + sizeof(target) ==
                        source.memory_usage() + target.memory_usage());
                if (!threw) {
                    REQUIRE(target == source);
                    break;
                }
                INFO(name << ": allocation " << k << " failed");
                REQUIRE(snapshot_of(target) == tgt_before);
            }
            REQUIRE(a.live_bytes == 0);
        }
        covered(name, k - 1);
    }
    // move assignment between unequal, non-propagating allocators is a copy
    {
        using nset = fset<std::string, false>;
        const std::string name = "move assignment, unequal allocators (copies)";
        fail_control control;
        std::size_t k = 1;
        for (;; ++k) {
            arena a{&control}, b{&control};
            {
                nset source(zset::options{}, failing_allocator<std::string, false>(&a));
                nset target(zset::options{}, failing_allocator<std::string, false>(&b));
                for (std::size_t i = 0; i < 300; ++i) source.add(key(i), static_cast<double>(i));
                target.add("t", 1);
                const auto src_before = snapshot_of(source);
                const auto tgt_before = snapshot_of(target);
                control.arm(k);
                bool threw = false;
                try {
                    target = std::move(source);
                } catch (const std::bad_alloc&) {
                    threw = true;
                }
                control.disarm();
                REQUIRE(target.validate());
                REQUIRE(source.validate());  // NOLINT(bugprone-use-after-move)
                REQUIRE(a.live_bytes + sizeof(source) == source.memory_usage());
                REQUIRE(b.live_bytes + sizeof(target) == target.memory_usage());
                if (!threw) {
                    REQUIRE(snapshot_of(target) == src_before);
                    break;
                }
                INFO(name << ": allocation " << k << " failed");
                REQUIRE(snapshot_of(target) == tgt_before);
                REQUIRE(snapshot_of(source) == src_before);
            }
            REQUIRE(a.live_bytes == 0);
            REQUIRE(b.live_bytes == 0);
        }
        covered(name, k - 1);
    }
    // shrink_to_fit: back to listpack mode, and a compacting rebuild that stays skiplist
    strong_workload(
        covered, "shrink_to_fit (converts back to listpack)",
        [](arena& a) {
            sset s = make_set(a, 1000);
            s.erase_range_by_rank(50, -1);
            return s;
        },
        [](sset& s) { s.shrink_to_fit(); }, same_size);
    strong_workload(
        covered, "shrink_to_fit (stays skiplist)",
        [](arena& a) {
            sset s = make_set(a, 1000);
            for (std::size_t i = 0; i < 1000; i += 2) s.erase(key(i));
            return s;
        },
        [](sset& s) { s.shrink_to_fit(); }, same_size);
    covered.report();
}

TEST_CASE("allocation failure: set operations leave their inputs alone", "[alloc-failure]") {
    coverage covered;
    const auto run = [&covered](const std::string& name, auto op) {
        fail_control control;
        std::size_t k = 1;
        for (;; ++k) {
            arena a{&control};
            {
                sset x = make_set(a, 300);
                sset y(zset::options{}, failing_allocator<std::string, true>(&a));
                for (std::size_t i = 200; i < 260; ++i) y.add(key(i), 1.5);
                const auto x_before = snapshot_of(x);
                const auto y_before = snapshot_of(y);
                const std::vector<const sset*> in{&x, &y};
                control.arm(k);
                bool threw = false;
                try {
                    sset result = op(in);
                    REQUIRE(result.validate());
                } catch (const std::bad_alloc&) {
                    threw = true;
                }
                control.disarm();
                REQUIRE(snapshot_of(x) == x_before);
                REQUIRE(snapshot_of(y) == y_before);
                REQUIRE(a.live_bytes + sizeof(x) + sizeof(y) ==
                        x.memory_usage() + y.memory_usage());
                if (!threw) break;
                REQUIRE(control.fired);
            }
            REQUIRE(a.live_bytes == 0);
        }
        covered(name, k - 1);
    };
    run("set_union", [](const std::vector<const sset*>& in) {
        return zset::set_union<sset>(in, {1.0, 2.0}, zset::aggregate::sum);
    });
    run("set_intersection",
        [](const std::vector<const sset*>& in) { return zset::set_intersection<sset>(in); });
    run("set_difference",
        [](const std::vector<const sset*>& in) { return zset::set_difference<sset>(in); });
    covered.report();
}

TEST_CASE("allocation failure: batch add", "[alloc-failure]") {
    coverage covered;
    // Documented guarantee: strong, also when allocation fails part-way (the batch is planned,
    // new elements are inserted beside the old ones, and a final no-fail step commits).
    // 100 listpack elements; the batch updates some, adds new ones and crosses the conversion.
    std::vector<std::pair<std::string, double>> batch;
    for (std::size_t i = 90; i < 190; ++i)
        batch.emplace_back(key(i), static_cast<double>(i) + 0.25);
    batch.emplace_back(std::string(80, 'L'), 1);
    batch.emplace_back(key(95), -3);  // a later pair for a member the batch already changed
    const auto applied = [&](const sset& s, const snapshot<sset>&) {
        REQUIRE(s.size() == 191);
        REQUIRE(s.score(key(95)) == -3.0);
        REQUIRE(s.score(key(150)) == 150.25);
        REQUIRE(s.score(std::string(80, 'L')) == 1.0);
    };
    strong_workload(
        covered, "batch add (102 pairs across the conversion)",
        [](arena& a) { return make_set(a, 100); },
        [&](sset& s) { s.add(batch.begin(), batch.end()); }, applied);
    // in skiplist mode: updates that move members between blocks, inserts that split blocks
    std::vector<std::pair<std::string, double>> moves;
    for (std::size_t i = 0; i < 1000; i += 37)
        moves.emplace_back(key(i), 1000.0 - static_cast<double>(i));
    for (std::size_t i = 0; i < 40; ++i)
        moves.emplace_back("new" + std::to_string(i), static_cast<double>(i) * 25 + 0.5);
    strong_workload(
        covered, "batch add (skiplist mode: moves and splits)",
        [](arena& a) { return make_set(a, 1000); },
        [&](sset& s) { s.add(moves.begin(), moves.end()); },
        [&](const sset& s, const snapshot<sset>&) {
            REQUIRE(s.size() == 1040);
            REQUIRE(s.score(key(37)) == 963.0);
            REQUIRE(s.score("new39") == 39 * 25 + 0.5);
        });
    covered.report();
}

TEST_CASE("allocation failure: integer members", "[alloc-failure]") {
    coverage covered;
    using iset = fset<long long, true>;
    const auto make = [](std::size_t n, zset::options o = {}) {
        return [n, o](arena& a) {
            iset s(o, failing_allocator<long long, true>(&a));
            for (std::size_t i = 0; i < n; ++i)
                s.add(static_cast<long long>(i), static_cast<double>(i));
            return s;
        };
    };
    const auto added = [](long long m, double sc) {
        return [m, sc](const iset& s, const snapshot<iset>& before) {
            REQUIRE(s.size() == before.size() + 1);
            REQUIRE(s.score(m) == sc);
        };
    };
    for (std::size_t n = 1; n <= 40; ++n)
        strong_workload(
            covered, "integer members: add into listpack mode (sizes 1..40)", make(n),
            [](iset& s) { s.add(-7, 3.5); }, added(-7, 3.5));
    strong_workload(
        covered, "integer members: conversion", make(128), [](iset& s) { s.add(-7, 3.5); },
        added(-7, 3.5));
    strong_workload(
        covered, "integer members: block split", make(1000), [](iset& s) { s.add(-7, 300.5); },
        added(-7, 300.5));
    for (const double score : {900.5, 300.5, 127.5, -5.0, 1e9})
        strong_workload(
            covered, "integer members: score update between blocks", make(1000),
            [score](iset& s) { s.add(10, score); },
            [score](const iset& s, const snapshot<iset>& before) {
                REQUIRE(s.size() == before.size());
                REQUIRE(s.score(10) == score);
            });
    covered.report();
}

TEST_CASE("allocation failure: constructors", "[alloc-failure]") {
    coverage covered;
    const auto build = [&covered](const std::string& name, std::size_t n) {
        std::vector<std::pair<std::string, double>> sorted;
        for (std::size_t i = 0; i < n; ++i) sorted.emplace_back(key(i), static_cast<double>(i));
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& x, const auto& y) { return x.second < y.second; });
        fail_control control;
        std::size_t k = 1;
        for (;; ++k) {
            arena a{&control};
            control.arm(k);
            bool threw = false;
            try {
                const sset s = sset::from_sorted(sorted.begin(), sorted.end(), zset::options{},
                                                 failing_allocator<std::string, true>(&a));
                control.disarm();
                REQUIRE(s.validate());
                REQUIRE(s.size() == n);
            } catch (const std::bad_alloc&) {
                threw = true;
            }
            control.disarm();
            REQUIRE(a.live_bytes == 0);
            REQUIRE(a.live_blocks == 0);
            if (!threw) break;
        }
        covered(name, k - 1);
    };
    build("from_sorted (100 elements, listpack)", 100);
    build("from_sorted (1000 elements, skiplist)", 1000);
    covered.report();
}
