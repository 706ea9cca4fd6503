// Behaviour that must not depend on the platform's integer widths: counts, offsets and ranks
// given as long long (as Redis parses them) beyond what a 32-bit size_t holds. On x86-64 these
// pass trivially; the port leg runs them on 32-bit x86 and Windows x64 (LLP64) too.
// Replies were checked against redis-server 7.0.15.
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"
#include <zset/redis.hpp>
#include <zset/zset.hpp>

namespace {

constexpr long long beyond_32_bits = 4294967296LL;  // 2^32: 0 once truncated to 32 bits

zset::sorted_set<> ten_members() {
    zset::sorted_set<> s;
    for (int i = 0; i < 10; ++i) s.add("m" + std::to_string(i), i);
    return s;
}

using redis_test::exec;

const std::string abc_popped_min =
    "*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n";

}  // namespace

TEST_CASE("portability: random_members counts beyond 32 bits", "[portability]") {
    const auto s = ten_members();
    std::mt19937_64 rng(1);
    // ZRANDMEMBER k 4294967299: every member once, as for any count >= size()
    const auto all = s.random_members(beyond_32_bits + 3, rng);
    CHECK(all.size() == 10);
    std::set<std::string> distinct;
    for (const auto& e : all) distinct.insert(e.first);
    CHECK(distinct.size() == 10);
    if (sizeof(std::size_t) < sizeof(long long)) {
        // 2^32 + 3 draws cannot be held: an error, not 3 draws (nor none, for LLONG_MIN)
        CHECK_THROWS_AS(s.random_members(-(beyond_32_bits + 3), rng), std::length_error);
        CHECK_THROWS_AS(s.random_members(-beyond_32_bits, rng), std::length_error);
    }
}

TEST_CASE("portability: LIMIT offsets and counts beyond 32 bits", "[portability]") {
    const auto s = ten_members();
    const auto all = zset::score_range<double>::all();
    zset::limit lim;
    lim.offset = beyond_32_bits;
    lim.count = 1;
    CHECK(s.range_by_score(all, lim).size() == 0);
    CHECK(s.rev_range_by_score(all, lim).size() == 0);
    lim.offset = 1;
    lim.count = beyond_32_bits;
    CHECK(s.range_by_score(all, lim).size() == 9);
    CHECK(s.rev_range_by_score(all, lim).size() == 9);
    CHECK(s.range_by_rank(0, beyond_32_bits).size() == 10);
    CHECK(s.range_by_rank(-beyond_32_bits, 0).size() == 1);
    CHECK(s.rev_range_by_rank(beyond_32_bits, beyond_32_bits + 1).size() == 0);
}

TEST_CASE("portability: keyspace pop counts beyond 32 bits", "[portability][redis]") {
    zset::redis::keyspace ks;
    const std::string count = std::to_string(beyond_32_bits + 1);
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZPOPMIN", "k", count}) == abc_popped_min);
    CHECK(exec(ks, {"EXISTS", "k"}) == ":0\r\n");
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZPOPMAX", "k", count}) ==
          "*6\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n");
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZMPOP", "1", "k", "MIN", "COUNT", count}) ==
          "*2\r\n$1\r\nk\r\n*3\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n"
          "*2\r\n$1\r\nc\r\n$1\r\n3\r\n");
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "1", count}) ==
          "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
}

TEST_CASE("portability: SCAN and ZSCAN counts beyond 32 bits", "[portability][redis]") {
    // COUNT 2^32 (0 once truncated to 32 bits) visits everything in one call, cursor 0 back.
    zset::redis::keyspace ks;
    const std::string count = std::to_string(beyond_32_bits);
    std::vector<std::string> zadd{"ZADD", "big"};
    for (int i = 0; i < 300; ++i) {  // skiplist mode: ZSCAN walks by cursor
        zadd.push_back(std::to_string(i));
        zadd.push_back("m" + std::to_string(i));
    }
    exec(ks, zadd);
    const std::string zscan = exec(ks, {"ZSCAN", "big", "0", "COUNT", count});
    CHECK(zscan.rfind("*2\r\n$1\r\n0\r\n*600\r\n", 0) == 0);
    for (int i = 0; i < 20; ++i) exec(ks, {"SADD", "key" + std::to_string(i), "v"});
    const std::string scan = exec(ks, {"SCAN", "0", "COUNT", count});
    CHECK(scan.rfind("*2\r\n$1\r\n0\r\n*21\r\n", 0) == 0);
}
