// The lint leg's instantiations (scripts/test.sh, leg lint): the generated translation unit
// includes every header under include/zset, then this file, so clang-tidy and cppcheck analyse
// the templates a typical user instantiates, not only their declarations.
// SPDX-License-Identifier: MIT
#ifndef ZSET_TOOLS_LINT_USE_EVERYTHING_HPP
#define ZSET_TOOLS_LINT_USE_EVERYTHING_HPP

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zset/zset.hpp>
#if __has_include(<zset/dump.hpp>)
#include <zset/dump.hpp>
#endif
#if __has_include(<zset/redis.hpp>)
#include <zset/redis.hpp>
#endif

template class zset::sorted_set<std::string, double>;
template class zset::sorted_set<long long, std::int64_t>;

// Instantiates the member and function templates a typical user calls.
void zset_lint_use_everything();
void zset_lint_use_everything() {
    using set = zset::sorted_set<>;
    set a{{"a", 1.0}, {"b", 2.0}}, b;
    const std::vector<std::pair<std::string, double>> batch{{"x", 2.0}, {"y", 3.0}};
    a.add(batch.begin(), batch.end(), zset::add_flags::ch);
    const std::vector<std::string> gone{"x"};
    a.erase(gone.begin(), gone.end());
    std::mt19937_64 rng(1);
    (void)a.random_members(-3, rng);
    (void)a.scan(0, 10, [](const set::reference&) {});
    const std::vector<const set*> in{&a, &b};
    (void)zset::set_union<set>(in, {1.0, 2.0}, zset::aggregate::max);
    (void)zset::set_intersection<set>(in);
    (void)zset::set_difference<set>(in);
    (void)zset::intersection_cardinality<set>(in, 1);
#if __has_include(<zset/dump.hpp>)
    (void)zset::restore<set>(zset::dump(a));
#endif
#if __has_include(<zset/redis.hpp>)
    zset::redis::keyspace ks;
    zset::redis::session s;
    std::string out;
    ks.execute(std::vector<std::string>{"ZADD", "k", "1", "a"}, s, out);
    zset::redis::reply r;
    ks.execute(std::vector<std::string_view>{"ZRANGE", "k", "0", "-1"}, s, r);
    zset::redis::request_parser parser;
    parser.feed(out);
#endif
}

#endif  // ZSET_TOOLS_LINT_USE_EVERYTHING_HPP
