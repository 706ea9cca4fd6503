// zset_bench adapters: zset and its peers behind one small interface, so that every benchmark is
// written once and instantiated per structure.
//
//   bool add(const std::string& m, double s)        ZADD (insert or update); true if m was new
//   reserve(n)                                      a size hint (optional: where one exists)
//   std::optional<double> score(m)                  ZSCORE
//   std::optional<std::size_t> rank(m)              ZRANK             (has_rank only)
//   range_by_score(lo, k, f)                        ZRANGEBYSCORE lo +inf LIMIT 0 k; f(m, s)
//   range_by_rank(start, k, f)                      ZRANGE start start+k-1 (has_rank only)
//   bool erase(m)                                   ZREM
//   pop_min()                                       ZPOPMIN (count 1): a vector of (member, score)
//   for_each(f)                                     every element in (score, member) order
//   count(lo, hi)                                   ZCOUNT [lo, hi]
//   unite(a, b) / intersect(a, b)                   ZUNION / ZINTER (weights 1, SUM) as a new set
//   size()
//
// The peers implement Redis's semantics with their own structures: an ordered structure of
// (score, member) pairs plus a hash of member -> score, as a Redis-like service would; and
// Redis's own design (bench/peers/redis_skiplist.hpp): a span skiplist of nodes holding their
// members inline plus a flat hash of node pointers.
//
// The lookups (score, rank) of every adapter are forced inline into the benchmark loop: an
// adapter is a forwarding shim, and one left out of line returns its std::optional through
// memory, where g++ writes the flag byte and reloads the whole word (a failed store forward,
// ~12 cycles: zset's ZSCORE miss at n = 100 read 3.4 -> 6.0 ns when its listpack lookup grew
// inline and the inliner stopped taking its shim). absl's and the others' were inlined already.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__GNUC__)
#define ZBENCH_LOOKUP __attribute__((always_inline)) inline
#else
#define ZBENCH_LOOKUP inline
#endif

#include <zset/zset.hpp>

#if defined(ZSET_BENCH_HAVE_ABSL)
#include <absl/container/btree_set.h>
#include <absl/container/flat_hash_map.h>

#include "peers/redis_skiplist.hpp"
#endif

#if defined(ZSET_BENCH_HAVE_BOOST)
#include <boost/functional/hash.hpp>
#include <boost/multi_index/hashed_index.hpp>
#include <boost/multi_index/identity.hpp>
#include <boost/multi_index/member.hpp>
#include <boost/multi_index/ranked_index.hpp>
#include <boost/multi_index_container.hpp>
#endif

namespace zbench {

using popped = std::vector<std::pair<std::string, double>>;

// ---- zset -----------------------------------------------------------------------------------

template <class Set>
class zset_adapter {
public:
    static constexpr bool has_rank = true;
    using set_type = Set;

    explicit zset_adapter(Set s) : s_(std::move(s)) {}

    bool add(const std::string& m, double sc) { return s_.add(m, sc) == zset::add_status::added; }
    void reserve(std::size_t n) { s_.reserve(n); }
    ZBENCH_LOOKUP std::optional<double> score(const std::string& m) const { return s_.score(m); }
    ZBENCH_LOOKUP std::optional<std::size_t> rank(const std::string& m) const { return s_.rank(m); }

    template <class F>
    std::size_t range_by_score(double lo, std::size_t k, F&& f) const {
        const auto view = s_.range_by_score(
            {zset::score_bound<double>::inclusive(lo), zset::score_bound<double>::highest()},
            zset::limit{0, static_cast<long long>(k)});
        std::size_t got = 0;
        for (const auto e : view) {
            f(e.member, e.score);
            ++got;
        }
        return got;
    }
    template <class F>
    std::size_t range_by_rank(std::size_t start, std::size_t k, F&& f) const {
        const auto view =
            s_.range_by_rank(static_cast<long long>(start), static_cast<long long>(start + k) - 1);
        std::size_t got = 0;
        for (const auto e : view) {
            f(e.member, e.score);
            ++got;
        }
        return got;
    }

    bool erase(const std::string& m) { return s_.erase(m); }
    popped pop_min() { return s_.pop_min(1); }

    template <class F>
    void for_each(F&& f) const {
        for (const auto e : s_) f(e.member, e.score);
    }
    std::size_t count(double lo, double hi) const {
        return s_.count(zset::score_range<double>::closed(lo, hi));
    }
    static zset_adapter unite(const zset_adapter& a, const zset_adapter& b) {
        return zset_adapter(zset::set_union<Set>(std::vector<const Set*>{&a.s_, &b.s_}));
    }
    static zset_adapter intersect(const zset_adapter& a, const zset_adapter& b) {
        return zset_adapter(zset::set_intersection<Set>(std::vector<const Set*>{&a.s_, &b.s_}));
    }
    std::size_t size() const { return s_.size(); }
    const Set& set() const { return s_; }
    Set& set() { return s_; }

private:
    Set s_;
};

// ---- an ordered set of (score, member) pairs + a member -> score hash (absl, std) --------------

/// (score, member) order; transparent so that lookups take (double, std::string_view).
struct pair_less {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
        return a.first < b.first ||
               (!(b.first < a.first) && std::string_view(a.second) < std::string_view(b.second));
    }
};

using probe = std::pair<double, std::string_view>;

template <class Tree, class Map>
class tree_map_adapter {
public:
    static constexpr bool has_rank = false;

    void reserve(std::size_t n) { map_.reserve(n); }  // the hash map's; the tree takes none

    bool add(const std::string& m, double sc) {
        const auto [it, inserted] = map_.try_emplace(m, sc);
        if (inserted) {
            tree_.emplace(sc, m);
            return true;
        }
        if (it->second != sc) {
            auto node = tree_.extract(tree_.find(probe{it->second, m}));
            node.value().first = sc;
            tree_.insert(std::move(node));
            it->second = sc;
        }
        return false;
    }
    ZBENCH_LOOKUP std::optional<double> score(const std::string& m) const {
        const auto it = map_.find(m);
        if (it == map_.end()) return std::nullopt;
        return it->second;
    }
    ZBENCH_LOOKUP std::optional<std::size_t> rank(const std::string&) const { return std::nullopt; }

    template <class F>
    std::size_t range_by_score(double lo, std::size_t k, F&& f) const {
        std::size_t got = 0;
        for (auto it = tree_.lower_bound(probe{lo, std::string_view()});
             it != tree_.end() && got < k; ++it, ++got)
            f(std::string_view(it->second), it->first);
        return got;
    }
    template <class F>
    std::size_t range_by_rank(std::size_t, std::size_t, F&&) const {
        return 0;
    }

    bool erase(const std::string& m) {
        const auto it = map_.find(m);
        if (it == map_.end()) return false;
        tree_.erase(tree_.find(probe{it->second, m}));
        map_.erase(it);
        return true;
    }
    popped pop_min() {
        popped out;
        if (tree_.empty()) return out;
        auto node = tree_.extract(tree_.begin());
        map_.erase(node.value().second);
        out.emplace_back(std::move(node.value().second), node.value().first);
        return out;
    }

    template <class F>
    void for_each(F&& f) const {
        for (const auto& e : tree_) f(std::string_view(e.second), e.first);
    }
    /// O(log n + k): neither peer can count a range without walking it.
    std::size_t count(double lo, double hi) const {
        const auto first = tree_.lower_bound(probe{lo, std::string_view()});
        const auto last = tree_.lower_bound(
            probe{std::nextafter(hi, std::numeric_limits<double>::infinity()), std::string_view()});
        return static_cast<std::size_t>(std::distance(first, last));
    }

    static tree_map_adapter unite(const tree_map_adapter& a, const tree_map_adapter& b) {
        std::vector<probe> out;
        out.reserve(a.size() + b.size());
        for (const auto& e : a.tree_) {
            double acc = e.first;
            const auto it = b.map_.find(e.second);
            if (it != b.map_.end()) acc += it->second;
            out.emplace_back(acc, e.second);
        }
        for (const auto& e : b.tree_)
            if (a.map_.find(e.second) == a.map_.end()) out.emplace_back(e.first, e.second);
        return from_unsorted(out);
    }
    static tree_map_adapter intersect(const tree_map_adapter& a, const tree_map_adapter& b) {
        std::vector<probe> out;
        for (const auto& e : a.tree_) {
            const auto it = b.map_.find(e.second);
            if (it != b.map_.end()) out.emplace_back(e.first + it->second, e.second);
        }
        return from_unsorted(out);
    }
    std::size_t size() const { return map_.size(); }

private:
    static tree_map_adapter from_unsorted(std::vector<probe>& v) {
        std::sort(v.begin(), v.end(), pair_less{});
        tree_map_adapter r;
        r.map_.reserve(v.size());
        for (const auto& e : v) {
            r.tree_.emplace_hint(r.tree_.end(), e.first, std::string(e.second));
            r.map_.emplace(std::string(e.second), e.first);
        }
        return r;
    }

    Tree tree_;
    Map map_;
};

/// The naive peer: std::set<pair> + std::unordered_map.
using std_adapter = tree_map_adapter<std::set<std::pair<double, std::string>, pair_less>,
                                     std::unordered_map<std::string, double>>;

#if defined(ZSET_BENCH_HAVE_ABSL)
/// The fastest off-the-shelf pair: absl::btree_set<pair> + absl::flat_hash_map (no rank).
using absl_adapter = tree_map_adapter<absl::btree_set<std::pair<double, std::string>, pair_less>,
                                      absl::flat_hash_map<std::string, double>>;
#endif

// ---- Redis's design: span skiplist of nodes with inline members + flat hash of node pointers ---

#if defined(ZSET_BENCH_HAVE_ABSL)
class redis_skiplist_adapter {
public:
    static constexpr bool has_rank = true;

    bool add(const std::string& m, double sc) { return s_.add(m, sc); }
    ZBENCH_LOOKUP std::optional<double> score(const std::string& m) const {
        const auto* x = s_.find(m);
        if (x == nullptr) return std::nullopt;
        return x->score;
    }
    ZBENCH_LOOKUP std::optional<std::size_t> rank(const std::string& m) const { return s_.rank(m); }

    template <class F>
    std::size_t range_by_score(double lo, std::size_t k, F&& f) const {
        return walk(s_.first_at_least(lo), k, f);
    }
    template <class F>
    std::size_t range_by_rank(std::size_t start, std::size_t k, F&& f) const {
        return walk(s_.at_rank(start), k, f);
    }

    bool erase(const std::string& m) { return s_.erase(m); }
    popped pop_min() {
        popped out;
        s_.pop_min([&out](std::string_view m, double sc) { out.emplace_back(std::string(m), sc); });
        return out;
    }

    template <class F>
    void for_each(F&& f) const {
        s_.for_each(f);
    }
    /// O(log n): two rank descents by score.
    std::size_t count(double lo, double hi) const { return s_.count(lo, hi); }

    static redis_skiplist_adapter unite(const redis_skiplist_adapter& a,
                                        const redis_skiplist_adapter& b) {
        std::vector<probe> out;
        out.reserve(a.size() + b.size());
        a.s_.for_each([&](std::string_view m, double sc) {
            const auto* x = b.s_.find(m);
            out.emplace_back(x != nullptr ? sc + x->score : sc, m);
        });
        b.s_.for_each([&](std::string_view m, double sc) {
            if (a.s_.find(m) == nullptr) out.emplace_back(sc, m);
        });
        return from_unsorted(out);
    }
    static redis_skiplist_adapter intersect(const redis_skiplist_adapter& a,
                                            const redis_skiplist_adapter& b) {
        std::vector<probe> out;
        a.s_.for_each([&](std::string_view m, double sc) {
            if (const auto* x = b.s_.find(m)) out.emplace_back(sc + x->score, m);
        });
        return from_unsorted(out);
    }
    std::size_t size() const { return s_.size(); }

private:
    using node = peers::redis_skiplist::node;

    template <class F>
    static std::size_t walk(const node* x, std::size_t k, F& f) {
        std::size_t got = 0;
        for (; x != nullptr && got < k; x = x->next(), ++got) f(x->member(), x->score);
        return got;
    }
    static redis_skiplist_adapter from_unsorted(std::vector<probe>& v) {
        std::sort(v.begin(), v.end(), pair_less{});
        redis_skiplist_adapter r;
        r.s_.assign_sorted(v.begin(), v.end());
        return r;
    }

    peers::redis_skiplist s_;
};
#endif

// ---- Boost.MultiIndex: ranked_unique (score, member) + hashed_unique member --------------------

#if defined(ZSET_BENCH_HAVE_BOOST)
class boost_adapter {
    struct entry {
        double score;
        std::string member;
    };
    struct entry_less {
        static std::pair<double, std::string_view> key(const entry& e) noexcept {
            return {e.score, e.member};
        }
        static const probe& key(const probe& p) noexcept { return p; }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const noexcept {
            const auto ka = key(a);
            const auto kb = key(b);
            return ka.first < kb.first || (!(kb.first < ka.first) && ka.second < kb.second);
        }
    };
    struct by_order {};
    struct by_member {};
    using container = boost::multi_index_container<
        entry,
        boost::multi_index::indexed_by<
            boost::multi_index::ranked_unique<boost::multi_index::tag<by_order>,
                                              boost::multi_index::identity<entry>, entry_less>,
            boost::multi_index::hashed_unique<
                boost::multi_index::tag<by_member>,
                boost::multi_index::member<entry, std::string, &entry::member>,
                boost::hash<std::string>>>>;

public:
    static constexpr bool has_rank = true;

    void reserve(std::size_t n) { c_.get<by_member>().reserve(n); }  // the hashed index's

    bool add(const std::string& m, double sc) {
        auto& h = c_.get<by_member>();
        const auto it = h.find(m);
        if (it == h.end()) {
            c_.insert(entry{sc, m});
            return true;
        }
        if (it->score != sc) h.modify(it, [sc](entry& e) { e.score = sc; });
        return false;
    }
    ZBENCH_LOOKUP std::optional<double> score(const std::string& m) const {
        const auto& h = c_.get<by_member>();
        const auto it = h.find(m);
        if (it == h.end()) return std::nullopt;
        return it->score;
    }
    /// The member's hashed-index node projected onto the ranked index, then rank(it): O(log n)
    /// with no key comparisons (cheaper than find() by (score, member) then rank()).
    ZBENCH_LOOKUP std::optional<std::size_t> rank(const std::string& m) const {
        const auto& h = c_.get<by_member>();
        const auto it = h.find(m);
        if (it == h.end()) return std::nullopt;
        const auto& o = c_.get<by_order>();
        return o.rank(c_.project<by_order>(it));
    }

    template <class F>
    std::size_t range_by_score(double lo, std::size_t k, F&& f) const {
        const auto& o = c_.get<by_order>();
        std::size_t got = 0;
        for (auto it = o.lower_bound(probe{lo, std::string_view()}); it != o.end() && got < k;
             ++it, ++got)
            f(std::string_view(it->member), it->score);
        return got;
    }
    template <class F>
    std::size_t range_by_rank(std::size_t start, std::size_t k, F&& f) const {
        const auto& o = c_.get<by_order>();
        std::size_t got = 0;
        for (auto it = o.nth(start); it != o.end() && got < k; ++it, ++got)
            f(std::string_view(it->member), it->score);
        return got;
    }

    bool erase(const std::string& m) { return c_.get<by_member>().erase(m) != 0; }
    popped pop_min() {
        popped out;
        auto& o = c_.get<by_order>();
        if (o.empty()) return out;
        const auto it = o.begin();
        out.emplace_back(it->member, it->score);
        o.erase(it);
        return out;
    }

    template <class F>
    void for_each(F&& f) const {
        for (const auto& e : c_.get<by_order>()) f(std::string_view(e.member), e.score);
    }
    /// O(log n) through the ranked index.
    std::size_t count(double lo, double hi) const {
        const auto r =
            c_.get<by_order>().range_rank([lo](const entry& e) { return e.score >= lo; },
                                          [hi](const entry& e) { return e.score <= hi; });
        return r.second - r.first;
    }

    static boost_adapter unite(const boost_adapter& a, const boost_adapter& b) {
        std::vector<probe> out;
        out.reserve(a.size() + b.size());
        const auto& bh = b.c_.get<by_member>();
        const auto& ah = a.c_.get<by_member>();
        for (const auto& e : a.c_.get<by_order>()) {
            double acc = e.score;
            const auto it = bh.find(e.member);
            if (it != bh.end()) acc += it->score;
            out.emplace_back(acc, e.member);
        }
        for (const auto& e : b.c_.get<by_order>())
            if (ah.find(e.member) == ah.end()) out.emplace_back(e.score, e.member);
        return from_unsorted(out);
    }
    static boost_adapter intersect(const boost_adapter& a, const boost_adapter& b) {
        std::vector<probe> out;
        const auto& bh = b.c_.get<by_member>();
        for (const auto& e : a.c_.get<by_order>()) {
            const auto it = bh.find(e.member);
            if (it != bh.end()) out.emplace_back(e.score + it->score, e.member);
        }
        return from_unsorted(out);
    }
    std::size_t size() const { return c_.size(); }

private:
    static boost_adapter from_unsorted(std::vector<probe>& v) {
        std::sort(v.begin(), v.end(), pair_less{});
        boost_adapter r;
        r.c_.get<by_member>().reserve(v.size());
        auto& o = r.c_.get<by_order>();
        for (const auto& e : v) o.insert(o.end(), entry{e.first, std::string(e.second)});
        return r;
    }

    container c_;
};
#endif

}  // namespace zbench
