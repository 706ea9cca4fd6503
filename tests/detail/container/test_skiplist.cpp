// zset::detail::skiplist (skiplist.hpp) on its own, against a std::set of (score, member) pairs:
// inserts placed as the set engine places them (block_for_score, else descend and locate), erases
// of single elements and of rank ranges, moves within a block and bulk appends, with small block
// limits so that blocks split (in halves, or a lone node at either end), compact, empty and
// unlink, and with enough nodes for tall towers (links kept outside the node) and a pool past
// far_pool. After each batch of operations every contract the header states is checked by brute
// force: the level-0 order and backward links, start ranks and nth() from the rank tree,
// rank_offset(), the cached first scores, the levels (every link skips forward to a node of at
// least its height, level() is the tallest node), descend() and descend_from() paths,
// predecessors(), block_for_score(), the moves reported to `moved` (an address map kept by them
// as the hash index is must find every member), memory_usage() against what the allocator
// holds, and that an erase never allocates.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/skiplist.hpp>

namespace {

/// Bytes an allocator holds: a stateful allocator counting into a tally the test case owns.
struct skiplist_tally {
    std::size_t bytes = 0;
    std::size_t allocations = 0;  // live
    std::size_t calls = 0;        // allocate() calls ever made
};

template <class T>
struct tallying_allocator {
    using value_type = T;
    skiplist_tally* tally;
    explicit tallying_allocator(skiplist_tally* t) noexcept : tally(t) {}
    template <class U>
    tallying_allocator(const tallying_allocator<U>& o) noexcept : tally(o.tally) {}
    T* allocate(std::size_t n) {
        tally->bytes += n * sizeof(T);
        ++tally->allocations;
        ++tally->calls;
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        tally->bytes -= n * sizeof(T);
        --tally->allocations;
        std::allocator<T>().deallocate(p, n);
    }
    template <class U>
    bool operator==(const tallying_allocator<U>& o) const noexcept {
        return tally == o.tally;
    }
    template <class U>
    bool operator!=(const tallying_allocator<U>& o) const noexcept {
        return tally != o.tally;
    }
};

using sl_list = zset::detail::skiplist<double, std::string, tallying_allocator<std::string>>;
using sl_node = sl_list::node;
using sl_id = sl_list::node_id;
using sl_block = sl_list::block_type;
using sl_address = zset::detail::record_address;
using sl_element = std::pair<double, std::string>;
constexpr sl_id sl_head = sl_list::head_id;

/// The predicate the set engine descends by: a node goes before key (s, m) when its first
/// element is below it.
struct sl_goes_before {
    const sl_list* list;
    double s;
    std::string_view m;
    bool operator()(const sl_node& n) const noexcept {
        if (n.first_score < s) return true;
        if (s < n.first_score) return false;
        return list->block_of(n).member(0) < m;
    }
};

/// A skiplist, the pairs it should hold, and where each member's record is (kept up to date
/// only by the moves the list reports, as the hash index is).
struct skiplist_fixture {
    using alloc_type = tallying_allocator<std::string>;
    skiplist_tally own_tally;
    skiplist_tally& tally;  // own_tally, or the caller's to look at after the list is gone
    sl_list list;
    sl_list::limits lim;
    std::set<sl_element> model;
    std::map<std::string, sl_address> where;
    std::set<std::string> announced;  // members whose moves were announced, not yet reported
    std::size_t moves = 0;

    explicit skiplist_fixture(sl_list::limits l, skiplist_tally* outside = nullptr)
        : tally(outside != nullptr ? *outside : own_tally), list(alloc_type(&tally)), lim(l) {}

    /// The `moved` callback: every move must start where the member's record was and must
    /// have been announced. (Called where nothing may throw: CHECK, not REQUIRE.)
    struct mover {
        skiplist_fixture* f;
        void operator()(std::string_view m, double s, sl_address from, sl_address to) const {
            const std::string key(m);
            const auto it = f->where.find(key);
            CHECK(f->announced.count(key) == 1);
            CHECK(f->model.count({s, key}) == 1);
            if (it == f->where.end()) {
                FAIL_CHECK("a move reported for " << key << ", which the list does not hold");
                return;
            }
            CHECK(it->second == from);
            it->second = to;
            ++f->moves;
        }
        void announce(sl_block b, std::size_t first, std::size_t last) const {
            for (std::size_t i = first; i < last; ++i)
                f->announced.insert(std::string(b.member(i)));
        }
    };

    sl_goes_before before(double s, std::string_view m) const { return {&list, s, m}; }

    /// Inserts (s, m), placed as set_engine::place_of places it.
    void insert(double s, const std::string& m) {
        REQUIRE(where.count(m) == 0);
        sl_list::path p;
        sl_list::slot at{sl_head, 0};
        bool descended = false;
        const sl_id t = list.block_for_score(s);
        if (t != sl_head && !list.must_split(t, m, lim)) {
            at = {t, 0};
        } else {
            list.descend(before(s, m), p);
            at = list.locate(p);
            descended = true;
        }
        if (at.target != sl_head)
            at.pos =
                list.block_of(at.target).lower_bound(s, m, std::less<>(), sl_block::search::cold);
        model.insert({s, m});
        const auto placed = descended ? list.insert(p, at, s, m, 0, lim, false, mover{this})
                                      : list.insert_into(at, s, m, 0, mover{this});
        announced.clear();
        where[m] = sl_address{placed.first, placed.second};
        REQUIRE(list.block_of(placed.first).member_of(placed.second) == m);
        REQUIRE(list.block_of(placed.first).score_of(placed.second) == s);
    }

    /// Erases member m by its address; checks what erase() returns. (m by value: callers pass
    /// the model's own copy, which this erases.)
    void erase(const std::string m) {
        const sl_address a = where.at(m);
        const sl_block b = list.block_of(a.node);
        const std::size_t pos = b.position_of(a.ref);
        const double s = b.score_of(a.ref);
        const bool empties = b.size() == 1;
        const sl_id next = list.at(a.node).next(0);
        const std::size_t calls = tally.calls;
        const sl_id after = list.erase(a.node, pos, pos + 1);
        CHECK(after == (empties ? next : a.node));
        CHECK(tally.calls == calls);  // an erase never allocates
        model.erase({s, m});
        where.erase(m);
    }

    /// Erases ranks [lo, hi) block by block, as set_engine::erase_ranks does.
    void erase_ranks(std::size_t lo, std::size_t hi) {
        auto first = model.begin();
        std::advance(first, static_cast<std::ptrdiff_t>(lo));
        auto last = first;
        std::advance(last, static_cast<std::ptrdiff_t>(hi - lo));
        for (auto it = first; it != last; ++it) where.erase(it->second);
        model.erase(first, last);
        std::size_t remaining = hi - lo;
        const std::size_t calls = tally.calls;
        while (remaining > 0) {
            const auto [x, i] =
                lo == 0 ? std::pair<sl_id, std::size_t>{list.first(), 0} : list.nth(lo);
            const std::size_t here = std::min(remaining, list.block_of(x).size() - i);
            list.erase(x, i, i + here);
            remaining -= here;
        }
        CHECK(tally.calls == calls);
    }

    /// Gives the element at position i of node x a new score that keeps it inside its block,
    /// and moves it to its place there (move_position re-reads the block's first score).
    bool move_within(sl_id x, std::size_t i, double s) {
        sl_block b = list.block_of(x);
        const std::string m(b.member(i));
        const sl_element old{b.score(i), m};
        std::size_t to = b.lower_bound(s, m, std::less<>(), sl_block::search::cold);
        if (to > i) --to;
        b.set_score_of(b.ref(i), s);
        list.move_position(x, i, to);
        model.erase(old);
        model.insert({s, m});
        return list.block_of(x).member(to) == m;
    }

    /// Appends a node holding `elements` (above everything held), as a bulk build does.
    void append(const std::vector<sl_element>& elements) {
        std::size_t units = 0;
        for (const auto& e : elements) units += sl_block::units_for(e.second);
        const alloc_type alloc(&tally);
        const sl_id id =
            list.append_node(sl_block::grown(elements.size()), sl_block::grown_area(units),
                             lim.max_height, false, [&](sl_block b) {
                                 for (const auto& e : elements)
                                     b.link(b.size(), b.append_record(alloc, e.first, e.second), 0);
                             });
        const sl_block b = list.block_of(id);
        for (std::size_t i = 0; i < b.size(); ++i) {
            model.insert({b.score(i), std::string(b.member(i))});
            where[std::string(b.member(i))] = sl_address{id, b.ref(i)};
        }
    }
    /// The list's nodes in level-0 order, each checked against its neighbours.
    std::vector<sl_id> nodes() const {
        std::vector<sl_id> out;
        sl_id prev = sl_head;
        for (sl_id id = list.first(); id != sl_head; id = list.at(id).next(0)) {
            REQUIRE(list.at(id).prev == prev);
            out.push_back(id);
            prev = id;
            REQUIRE(out.size() <= list.node_count());
        }
        REQUIRE(list.last() == prev);
        return out;
    }

    /// Every path descend(before(s, m)) must give, by brute force over the nodes.
    sl_list::path brute_path(const std::vector<sl_id>& order, double s, std::string_view m) const {
        sl_list::path p;
        for (int i = 0; i < sl_list::max_level; ++i) p.at[i] = sl_head;
        const sl_goes_before goes(before(s, m));
        for (const sl_id id : order) {
            if (!goes(list.at(id))) break;
            for (int i = 0; i < list.at(id).height; ++i) p.at[i] = id;
        }
        return p;
    }

    void check_paths(const std::vector<sl_id>& order, std::mt19937_64& rng) {
        const std::vector<sl_element> all(model.begin(), model.end());
        // keys on elements, just before and after them, and beyond both ends
        std::vector<sl_element> keys{{-1e9, ""}, {1e9, "~"}};
        for (int k = 0; k < 40 && !all.empty(); ++k) {
            const sl_element& e = all[static_cast<std::size_t>(rng() % all.size())];
            keys.push_back(e);
            keys.emplace_back(e.first, e.second + "+");
            keys.emplace_back(e.first, "");
            keys.emplace_back(e.first + 0.5, e.second);
        }
        for (const sl_element& key : keys) {
            sl_list::path p;
            list.descend(before(key.first, key.second), p);
            const sl_list::path expected = brute_path(order, key.first, key.second);
            for (int i = 0; i < list.level(); ++i) REQUIRE(p.at[i] == expected.at[i]);
            if (list.level() == 0) REQUIRE(p.at[0] == sl_head);
            // a range's end from its start's path: any key not below the start, and, for an
            // empty range, the start's own node (a search of a list with nodes, or a reserved
            // head, as the set's counts search)
            const sl_element& end = keys[static_cast<std::size_t>(rng() % keys.size())];
            if (list.memory_usage() != 0) {
                const sl_id from_start = list.descend_from(p, before(end.first, end.second));
                if (!(end < key))
                    REQUIRE(from_start == brute_path(order, end.first, end.second).at[0]);
                else
                    REQUIRE(from_start == p.at[0]);
            }
            // block_for_score: the last block whose first score is below s, else the first
            // block; head_id only when a block's first score equals s (the caller descends)
            const sl_id b = list.block_for_score(key.first);
            if (order.empty()) {
                REQUIRE(b == sl_head);
            } else if (order.size() == 1) {
                REQUIRE(b == order.front());
            } else if (b == sl_head) {
                REQUIRE(std::any_of(order.begin(), order.end(), [&](sl_id id) {
                    return list.at(id).first_score == key.first;
                }));
            } else {
                sl_id last_below = order.front();
                for (const sl_id id : order)
                    if (list.at(id).first_score < key.first) last_below = id;
                REQUIRE(b == last_below);
            }
        }
    }

    void check_predecessors(const std::vector<sl_id>& order) {
        std::vector<sl_id> last_at(static_cast<std::size_t>(list.level()), sl_head);
        for (const sl_id id : order) {
            sl_list::path p;
            list.predecessors(id, p);
            for (int i = 0; i < list.level(); ++i)
                REQUIRE(p.at[i] == last_at[static_cast<std::size_t>(i)]);
            for (int i = 0; i < list.at(id).height; ++i) last_at[static_cast<std::size_t>(i)] = id;
        }
    }

    /// Every contract by brute force.
    void check(std::mt19937_64& rng) {
        REQUIRE(list.validate());
        REQUIRE(list.size() == model.size());
        REQUIRE(list.empty() == model.empty());
        const std::vector<sl_id> order = nodes();
        REQUIRE(order.size() == list.node_count());
        std::vector<sl_element> seen;
        std::vector<std::size_t> starts;
        int tallest = 0;
        for (const sl_id id : order) {
            const sl_block b = list.block_of(id);
            INFO("node " << id);
            REQUIRE(b.size() >= 1);
            REQUIRE(b.size() <= std::max<std::size_t>(lim.entries, 1));
            REQUIRE(list.size_of(id) == b.size());
            REQUIRE(list.at(id).first_score == b.score(0));
            REQUIRE(list.at(id).height >= 1);
            REQUIRE(list.at(id).height <= lim.max_height);
            REQUIRE(list.start_rank(id) == seen.size());
            tallest = std::max(tallest, int{list.at(id).height});
            starts.push_back(seen.size());
            for (std::size_t i = 0; i < b.size(); ++i)
                seen.emplace_back(b.score(i), std::string(b.member(i)));
        }
        REQUIRE(list.level() == tallest);
        REQUIRE(seen == std::vector<sl_element>(model.begin(), model.end()));
        // nth: rank -> (node, position), for every rank of a small list, a sample of a large one
        std::size_t k = 0;
        for (std::size_t r = 0; r < seen.size(); r += 1 + seen.size() / 500) {
            while (k + 1 < order.size() && starts[k + 1] <= r) ++k;
            const auto at = list.nth(r);
            REQUIRE(at.first == order[k]);
            REQUIRE(at.second == r - starts[k]);
        }
        // rank_offset between nodes near and far apart, both ways
        for (std::size_t i = 0; i < order.size(); i += 1 + order.size() / 30) {
            for (const std::size_t j : {i, i + 1, i + 40, order.size() - 1 - i}) {
                if (j >= order.size()) continue;
                const auto d =
                    static_cast<std::ptrdiff_t>(starts[j]) - static_cast<std::ptrdiff_t>(starts[i]);
                REQUIRE(list.rank_offset(order[i], order[j]) == d);
                REQUIRE(list.rank_offset(order[j], order[i]) == -d);
            }
        }
        // the addresses the reported moves kept: each finds its member and score
        REQUIRE(where.size() == model.size());
        for (const sl_element& e : model) {
            const sl_address a = where.at(e.second);
            REQUIRE(list.block_of(a.node).member_of(a.ref) == e.second);
            REQUIRE(list.block_of(a.node).score_of(a.ref) == e.first);
        }
        check_paths(order, rng);
        if (order.size() <= 3000) check_predecessors(order);
        REQUIRE(list.memory_usage() == tally.bytes);
    }
};

/// A member of `length` bytes (at least the digits) distinct for each i.
std::string sl_member(std::size_t i, std::size_t length = 0) {
    std::string m = "m" + std::to_string(i);
    if (m.size() < length) m.append(length - m.size(), static_cast<char>('a' + i % 26));
    return m;
}

/// Random inserts, erases, range erases and moves within blocks, checked every `check_every`
/// operations. Scores are few (ties between blocks' first scores), members sometimes long
/// (255 bytes and more: out-of-line records).
void skiplist_random_operations(skiplist_fixture& f, std::uint64_t seed, int operations,
                                int check_every, std::size_t target_size) {
    std::mt19937_64 rng(seed);
    std::size_t next_member = 0;
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    for (int op = 0; op < operations; ++op) {
        const std::size_t n = f.model.size();
        const std::size_t what = pick(100);
        if (n == 0 || what < (n < target_size ? 60u : 35u)) {
            const std::size_t length = pick(50) == 0 ? 255 + pick(100) : pick(20);
            f.insert(static_cast<double>(pick(40)), sl_member(next_member++, length));
        } else if (what < 85) {
            auto it = f.model.begin();
            std::advance(it, static_cast<std::ptrdiff_t>(pick(n)));
            f.erase(it->second);
        } else if (what < 90) {
            const std::size_t lo = pick(n);
            f.erase_ranks(lo, std::min(n, lo + 1 + pick(20)));
        } else {
            // a new score strictly inside its block's score range keeps it in the block
            const auto [x, i] = f.list.nth(pick(n));
            const sl_block b = f.list.block_of(x);
            const double lo = b.score(0), hi = b.score(b.size() - 1);
            if (lo < hi) REQUIRE(f.move_within(x, i, lo + (hi - lo) * 0.5));
        }
        if (op % check_every == 0) f.check(rng);
    }
    f.check(rng);
}

}  // namespace

TEST_CASE("skiplist: random inserts and erases match a std::set, every contract checked",
          "[skiplist]") {
    struct limits_case {
        const char* name;
        sl_list::limits lim;
        std::size_t target;
    };
    const limits_case c = GENERATE(limits_case{"blocks of 4", {4, 8192, 32}, 600},
                                   limits_case{"blocks of 128 (the set's)", {128, 8192, 32}, 3000},
                                   limits_case{"blocks of 2, one level", {2, 8192, 1}, 300},
                                   limits_case{"blocks of 8, at most 3 levels", {8, 8192, 3}, 800});
    INFO(c.name);
    skiplist_fixture f(c.lim);
    skiplist_random_operations(f, 20261207, 6000, 397, c.target);
    CHECK(f.moves > 0);  // splits and compactions moved records
    if (c.lim.max_height == 1) CHECK(f.list.level() <= 1);
    // and emptied element by element, then used again
    std::mt19937_64 rng(7);
    while (!f.model.empty()) {
        f.erase(f.model.begin()->second);
        if (f.model.size() % 101 == 0) f.check(rng);
    }
    f.check(rng);
    CHECK(f.list.level() == 0);
    f.insert(1.0, "again");
    f.check(rng);
}

TEST_CASE("skiplist: blocks split in halves inside, and start a lone node at either end",
          "[skiplist]") {
    std::mt19937_64 rng(3);
    skiplist_fixture f({8, 8192, 32});
    // ascending: every insert goes after the last element; a full last block starts a new node
    for (std::size_t i = 0; i < 80; ++i) f.insert(static_cast<double>(i), sl_member(i));
    f.check(rng);
    REQUIRE(f.list.node_count() == 10);
    for (sl_id id = f.list.first(); id != sl_head; id = f.list.at(id).next(0))
        CHECK(f.list.size_of(id) == 8);
    CHECK(f.moves == 0);  // a lone node moves nothing
    // before the very first element: a lone node in front
    f.insert(-1.0, "front");
    f.check(rng);
    REQUIRE(f.list.node_count() == 11);
    CHECK(f.list.size_of(f.list.first()) == 1);
    // inside a full block: it splits in two halves, 4 + 5
    const sl_id third = f.list.nth(20).first;
    f.insert(20.5, "inside");
    f.check(rng);
    REQUIRE(f.list.node_count() == 12);
    const sl_id upper = f.list.at(third).next(0);
    CHECK(f.list.size_of(third) + f.list.size_of(upper) == 9);
    CHECK(f.list.size_of(third) == 4);
    CHECK(f.list.size_of(upper) == 5);
    CHECK(f.moves == 8);  // every record of the split block moved
    // a block emptied by erases is unlinked, its successor keeps its elements
    for (std::size_t i = 16; i < 20; ++i) f.erase(sl_member(i));
    f.check(rng);
    CHECK(f.list.node_count() == 11);
}

TEST_CASE("skiplist: the byte limit splits blocks before the entry limit", "[skiplist]") {
    std::mt19937_64 rng(11);
    // 40-byte members: 49-unit records (score, length byte, bytes); at most 4 in 200 units
    skiplist_fixture f({128, 200, 32});
    std::vector<std::size_t> ids(300);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), rng);
    for (const std::size_t i : ids) f.insert(static_cast<double>(i % 50), sl_member(i, 40));
    f.check(rng);
    for (sl_id id = f.list.first(); id != sl_head; id = f.list.at(id).next(0)) {
        const sl_block b = f.list.block_of(id);
        CHECK(b.used() - b.garbage() <= 200);
        CHECK(b.size() <= 4);
    }
    // a record larger than the limit (263 units, kept inline) still goes in, and the next
    // insert into its block splits it
    const std::string large(254, 'L');
    f.insert(25.5, large);
    f.insert(25.5, "A");
    f.insert(25.5, "Z");
    f.check(rng);
}

TEST_CASE("skiplist: erases leave garbage that a later insert compacts, records reported",
          "[skiplist]") {
    std::mt19937_64 rng(5);
    skiplist_fixture f({64, 8192, 32});
    for (std::size_t i = 0; i < 60; ++i) f.insert(static_cast<double>(i), sl_member(i, 30));
    f.check(rng);
    REQUIRE(f.list.node_count() == 1);
    const sl_id only = f.list.first();
    // erase most of them: holes, then garbage too fragmented to reuse for longer members
    for (std::size_t i = 0; i < 60; i += 4)
        for (std::size_t j = i; j < i + 3; ++j) f.erase(sl_member(j, 30));
    f.check(rng);
    const std::size_t garbage = f.list.block_of(only).garbage();
    REQUIRE(garbage * 4 >= f.list.block_of(only).area());
    const std::size_t moves = f.moves;
    // longer members fit no hole: the block is compacted (every record moves) or regrown
    for (std::size_t i = 100; i < 140; ++i) {
        f.insert(static_cast<double>(i), sl_member(i, 60));
        f.check(rng);
    }
    CHECK(f.moves > moves);
    CHECK(f.list.block_of(f.list.first()).garbage() < garbage);
}

TEST_CASE("skiplist: tall towers and a pool past far_pool", "[skiplist]") {
    std::mt19937_64 rng(17);
    skiplist_fixture f({2, 8192, 32});
    // blocks of at most 2: one node per one or two elements, so > far_pool nodes
    std::vector<std::size_t> ids(20000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), rng);
    for (const std::size_t i : ids) f.insert(static_cast<double>(i % 1000), sl_member(i));
    f.check(rng);
    REQUIRE(f.list.node_count() > sl_list::far_pool);
    // towers above the inline levels (1 node in 256) exist among 10^4 nodes
    CHECK(f.list.level() > sl_list::inline_levels);
    std::size_t tall = 0;
    for (sl_id id = f.list.first(); id != sl_head; id = f.list.at(id).next(0))
        tall += f.list.at(id).tall() ? 1 : 0;
    CHECK(tall > 0);
    // erasing the towers' elements unlinks them from every level
    std::size_t erased = 0;
    for (sl_id id = f.list.first(); id != sl_head;) {
        const sl_id next = f.list.at(id).next(0);
        if (f.list.at(id).tall()) {
            const sl_block b = f.list.block_of(id);
            std::vector<std::string> members;
            for (std::size_t i = 0; i < b.size(); ++i) members.emplace_back(b.member(i));
            for (const auto& m : members) f.erase(m);
            ++erased;
        }
        id = next;
    }
    CHECK(erased == tall);
    f.check(rng);
    for (sl_id id = f.list.first(); id != sl_head; id = f.list.at(id).next(0))
        CHECK_FALSE(f.list.at(id).tall());
    CHECK(f.list.level() <= sl_list::inline_levels);
    // the rest in random rank ranges
    while (!f.model.empty()) {
        const std::size_t lo = static_cast<std::size_t>(rng() % f.model.size());
        f.erase_ranks(lo, std::min(f.model.size(), lo + 1 + static_cast<std::size_t>(rng() % 500)));
    }
    f.check(rng);
    CHECK(f.list.node_count() == 0);
}

TEST_CASE("skiplist: bulk appends, reserve_head, clear and the allocator's bytes", "[skiplist]") {
    std::mt19937_64 rng(23);
    skiplist_fixture f({16, 8192, 32});
    // an empty list with its head allocated is walkable: first() and last() are the head
    f.list.reserve_head();
    CHECK(f.list.first() == sl_head);
    CHECK(f.list.last() == sl_head);
    CHECK(f.list.level() == 0);
    f.check(rng);
    CHECK(f.tally.bytes > 0);
    // appended blocks of every size up to the limit, then random inserts among them
    std::size_t member = 0;
    for (std::size_t size = 1; size <= 16; ++size) {
        std::vector<sl_element> elements;
        for (std::size_t i = 0; i < size; ++i, ++member)
            elements.emplace_back(static_cast<double>(member), sl_member(member));
        f.append(elements);
    }
    f.check(rng);
    CHECK(f.list.node_count() == 16);
    for (std::size_t i = 0; i < 200; ++i)
        f.insert(static_cast<double>(rng() % member), sl_member(1000 + i, i % 3 == 0 ? 300 : 5));
    f.check(rng);
    // clear frees everything the allocator gave, and the list builds again
    f.list.clear();
    f.model.clear();
    f.where.clear();
    CHECK(f.tally.bytes == 0);
    CHECK(f.tally.allocations == 0);
    f.check(rng);
    for (std::size_t i = 0; i < 100; ++i) f.insert(static_cast<double>(i % 7), sl_member(i));
    f.check(rng);
}

TEST_CASE("skiplist: destruction returns every byte", "[skiplist]") {
    skiplist_tally tally;
    {
        skiplist_fixture f({4, 8192, 32}, &tally);
        std::mt19937_64 rng(29);
        for (std::size_t i = 0; i < 500; ++i)
            f.insert(static_cast<double>(rng() % 50), sl_member(i, i % 10 == 0 ? 400 : 8));
        f.check(rng);
        REQUIRE(tally.bytes > 0);
    }
    CHECK(tally.bytes == 0);
    CHECK(tally.allocations == 0);
}
