// A brute-force reference for zset::sorted_set: a member -> score map plus an ordered set of
// (score, member) pairs, with Redis's ZADD/ZINCRBY rules written out longhand. Shared by the
// model test, the fuzzers and the soak test.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <zset/zset.hpp>

namespace zset_test {

template <class Member, class Score>
struct reference_model {
    std::map<Member, Score> scores;
    std::set<std::pair<Score, Member>> order;

    std::size_t size() const { return scores.size(); }

    zset::add_status add(const Member& m, Score s, zset::add_flags f) {
        using zset::add_flags;
        auto it = scores.find(m);
        if (it == scores.end()) {
            if (zset::has(f, add_flags::xx)) return zset::add_status::skipped;
            scores.emplace(m, s);
            order.emplace(s, m);
            return zset::add_status::added;
        }
        if (zset::has(f, add_flags::nx)) return zset::add_status::skipped;
        const Score cur = it->second;
        if (zset::has(f, add_flags::lt) && !(s < cur)) return zset::add_status::skipped;
        if (zset::has(f, add_flags::gt) && !(s > cur)) return zset::add_status::skipped;
        if (s == cur) return zset::add_status::unchanged;
        order.erase({cur, m});
        order.emplace(s, m);
        it->second = s;
        return zset::add_status::updated;
    }

    /// nullopt = blocked; throws zset::error on NaN like the real thing (checked by the caller).
    std::optional<Score> increment(const Member& m, Score d, zset::add_flags f) {
        using zset::add_flags;
        auto it = scores.find(m);
        if (it == scores.end()) {
            if (zset::has(f, add_flags::xx)) return std::nullopt;
            add(m, d, add_flags::none);
            return d;
        }
        if (zset::has(f, add_flags::nx)) return std::nullopt;
        const Score cur = it->second;
        const Score next = cur + d;
        if (zset::has(f, add_flags::lt) && !(next < cur)) return std::nullopt;
        if (zset::has(f, add_flags::gt) && !(next > cur)) return std::nullopt;
        if (next != cur) add(m, next, add_flags::none);
        return next;
    }

    bool erase(const Member& m) {
        auto it = scores.find(m);
        if (it == scores.end()) return false;
        order.erase({it->second, m});
        scores.erase(it);
        return true;
    }

    std::optional<std::size_t> rank(const Member& m) const {
        auto it = scores.find(m);
        if (it == scores.end()) return std::nullopt;
        return static_cast<std::size_t>(std::distance(order.begin(), order.find({it->second, m})));
    }

    std::vector<std::pair<Score, Member>> all() const { return {order.begin(), order.end()}; }

    /// Ranks [lo, hi) of the elements satisfying in(score, member), which must select a
    /// contiguous run (true for score and lex ranges over equal scores).
    template <class In>
    std::pair<std::size_t, std::size_t> run(In in) const {
        std::size_t i = 0, lo = 0, hi = 0;
        bool found = false;
        for (const auto& e : order) {
            if (in(e.first, e.second)) {
                if (!found) lo = i;
                found = true;
                hi = i + 1;
            }
            ++i;
        }
        return found ? std::pair<std::size_t, std::size_t>{lo, hi}
                     : std::pair<std::size_t, std::size_t>{0, 0};
    }

    void erase_ranks(std::size_t lo, std::size_t hi) {
        auto v = all();
        for (std::size_t i = lo; i < hi; ++i) erase(v[i].second);
    }
};

/// ZADD flag combinations worth drawing in random tests: each valid one, and the invalid
/// NX+XX, GT+LT and NX+GT/LT that must raise Redis's errors.
inline constexpr zset::add_flags flag_choices[] = {
    zset::add_flags::none,
    zset::add_flags::nx,
    zset::add_flags::xx,
    zset::add_flags::gt,
    zset::add_flags::lt,
    zset::add_flags::xx | zset::add_flags::gt,
    zset::add_flags::xx | zset::add_flags::lt,
    zset::add_flags::ch,
    zset::add_flags::ch | zset::add_flags::gt,
    zset::add_flags::ch | zset::add_flags::xx,
    zset::add_flags::nx | zset::add_flags::xx,
    zset::add_flags::gt | zset::add_flags::lt,
    zset::add_flags::nx | zset::add_flags::gt,
    zset::add_flags::nx | zset::add_flags::lt,
};

/// Draws a flag combination from one random byte: none half of the time (plain ZADD is the
/// common case), otherwise one of flag_choices.
inline zset::add_flags pick_flags(unsigned byte) {
    constexpr unsigned n = sizeof flag_choices / sizeof flag_choices[0];
    return (byte & 1u) == 0 ? zset::add_flags::none : flag_choices[(byte >> 1) % n];
}

/// The reference's predicate for a score range: run(in_score_range<Member>(r)).
template <class Member, class Score>
auto in_score_range(const zset::score_range<Score>& r) {
    return [r](Score v, const Member&) {
        const bool above = r.min.exclusive ? v > r.min.value : v >= r.min.value;
        const bool below = r.max.exclusive ? v < r.max.value : v <= r.max.value;
        return above && below;
    };
}

/// The reference's predicate for a lex range, comparing members with operator<.
template <class Member, class Score, class LexKey>
auto in_lex_range(const zset::lex_range<LexKey>& r) {
    using kind = typename zset::lex_bound<LexKey>::kind;
    return [r](Score, const Member& m) {
        bool above = false, below = false;
        switch (r.min.type) {
        case kind::minus_infinity:
            above = true;
            break;
        case kind::plus_infinity:
            above = false;
            break;
        case kind::inclusive:
            above = !(m < Member(r.min.value));
            break;
        case kind::exclusive:
            above = Member(r.min.value) < m;
            break;
        }
        switch (r.max.type) {
        case kind::minus_infinity:
            below = false;
            break;
        case kind::plus_infinity:
            below = true;
            break;
        case kind::inclusive:
            below = !(Member(r.max.value) < m);
            break;
        case kind::exclusive:
            below = m < Member(r.max.value);
            break;
        }
        return above && below;
    };
}

/// Redis's rank clamping for ZRANGE start stop.
inline std::pair<std::size_t, std::size_t> clamp_ranks(long long start, long long stop,
                                                       std::size_t size) {
    const auto n = static_cast<long long>(size);
    if (start < 0) start += n;
    if (stop < 0) stop += n;
    if (start < 0) start = 0;
    if (start > stop || start >= n) return {0, 0};
    if (stop >= n) stop = n - 1;
    return {static_cast<std::size_t>(start), static_cast<std::size_t>(stop + 1)};
}

/// LIMIT applied to ranks [lo, hi), ascending.
inline std::pair<std::size_t, std::size_t> apply_limit(std::size_t lo, std::size_t hi,
                                                       zset::limit l) {
    if (l.offset < 0) return {lo, lo};
    std::size_t a = lo;
    for (long long k = 0; k < l.offset && a < hi; ++k) ++a;
    std::size_t b = a;
    for (long long k = 0; (l.count < 0 || k < l.count) && b < hi; ++k) ++b;
    return {a, b};
}

}  // namespace zset_test
