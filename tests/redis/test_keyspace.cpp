// Tests for zset::redis::keyspace (the command executor) and zset::redis::glob_match.
// Reply bytes were checked against redis-server 7.0.15 (with format_style::percent17g where a
// test says so); the randomized comparison with a live server is tests/differential.
#include <string>
#include <string_view>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"
#include <zset/redis.hpp>

using namespace std::string_literals;
using namespace std::string_view_literals;
namespace zr = zset::redis;

namespace {

using redis_test::exec;

std::string encoding_of(zr::keyspace& ks, const std::string& key) {
    return exec(ks, {"OBJECT", "ENCODING", key});
}

}  // namespace

TEST_CASE("glob_match follows Redis stringmatchlen", "[redis][keyspace]") {
    struct row {
        std::string_view pattern, text;
        bool nocase, match;
    };
    const row rows[] = {
        {"*", "anything", false, true},
        {"*", "", false, false},
        {"", "", false, true},
        {"a*", "abc", false, true},
        {"a*", "bac", false, false},
        {"*c", "abc", false, true},
        {"a?c", "abc", false, true},
        {"a?c", "ac", false, false},
        {"[abc]", "b", false, true},
        {"[^abc]", "b", false, false},
        {"[^abc]", "d", false, true},
        {"[a-c]x", "bx", false, true},
        {"[c-a]x", "bx", false, true},
        {"[a-c]", "d", false, false},
        {"\\*", "*", false, true},
        {"\\*", "a", false, false},
        {"[\\]]", "]", false, true},
        {"[a-", "-", false, true},
        {"[a-", "a", false, true},
        {"[", "x", false, false},
        {"ABC", "abc", true, true},
        {"ABC", "abc", false, false},
        {"[A-C]", "b", true, true},
        {"m?", "m1", false, true},
        {"*\0*"sv, "a\0b"sv, false, true},
        {"a*b*c", "aXbYc", false, true},
        {"a*b*c", "aXbY", false, false},
        {"**", "x", false, true},
        {"\\", "\\", false, true},
        {"?*?", "ab", false, true},
        {"?*?", "a", false, false},
        {"[a-\xff]", "\x80", false, false},
    };
    for (const row& r : rows) {
        INFO("pattern " << std::string(r.pattern) << " text " << std::string(r.text));
        CHECK(zr::glob_match(r.pattern, r.text, r.nocase) == r.match);
    }
    // Abusive patterns stop early instead of taking exponential time.
    const std::string many_stars(200, '*');
    CHECK_FALSE(zr::glob_match(many_stars + "b", std::string(5000, 'a')));
}

TEST_CASE("keyspace: ZADD options, errors and replies", "[redis][keyspace]") {
    zr::keyspace ks;
    CHECK(exec(ks, {"ZADD", "k", "1", "a", "2", "b"}) == ":2\r\n");
    CHECK(exec(ks, {"zadd", "k", "CH", "3", "a", "2", "b", "4", "c"}) == ":2\r\n");
    CHECK(exec(ks, {"ZADD", "k", "NX", "9", "a", "5", "d"}) == ":1\r\n");
    CHECK(exec(ks, {"ZADD", "k", "XX", "CH", "9", "a", "6", "e"}) == ":1\r\n");
    CHECK(exec(ks, {"ZADD", "k", "GT", "CH", "1", "a", "10", "b"}) == ":1\r\n");
    CHECK(exec(ks, {"ZADD", "k", "INCR", "1", "a"}) == "$2\r\n10\r\n");
    CHECK(exec(ks, {"ZADD", "k", "INCR", "NX", "1", "a"}) == "$-1\r\n");
    CHECK(exec(ks, {"ZINCRBY", "k", "0.5", "c"}) == "$3\r\n4.5\r\n");
    CHECK(exec(ks, {"ZADD", "k", "XX", "1", "zz"}) == ":0\r\n");
    CHECK(exec(ks, {"ZADD", "nokey", "XX", "1", "zz"}) == ":0\r\n");
    CHECK(exec(ks, {"EXISTS", "nokey"}) == ":0\r\n");
    CHECK(exec(ks, {"ZADD", "nokey", "XX", "INCR", "1", "zz"}) == "$-1\r\n");

    // Validation order: pair count, XX+NX, GT/LT/NX, INCR pairs, scores, then the key type.
    CHECK(exec(ks, {"ZADD", "k", "NX", "XX", "1"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZADD", "k", "NX", "XX", "1", "a"}) ==
          "-ERR XX and NX options at the same time are not compatible\r\n");
    CHECK(exec(ks, {"ZADD", "k", "GT", "LT", "1", "a"}) ==
          "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n");
    CHECK(exec(ks, {"ZADD", "k", "INCR", "1", "a", "2", "b"}) ==
          "-ERR INCR option supports a single increment-element pair\r\n");
    CHECK(exec(ks, {"ZADD", "k", "1", "a", "nan", "b"}) == "-ERR value is not a valid float\r\n");
    CHECK(exec(ks, {"SET", "str", "v"}) == "+OK\r\n");
    CHECK(exec(ks, {"ZADD", "str", "x", "a"}) == "-ERR value is not a valid float\r\n");
    CHECK(exec(ks, {"ZADD", "str", "1", "a"}) ==
          "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    CHECK(exec(ks, {"ZADD", "k"}) == "-ERR wrong number of arguments for 'zadd' command\r\n");
    // ZINCRBY goes through the same option parser (Redis zaddGenericCommand).
    CHECK(exec(ks, {"ZINCRBY", "k", "xx", "a"}) == "-ERR syntax error\r\n");
    // inf + -inf.
    CHECK(exec(ks, {"ZADD", "inf", "inf", "a"}) == ":1\r\n");
    CHECK(exec(ks, {"ZINCRBY", "inf", "-inf", "a"}) ==
          "-ERR resulting score is not a number (NaN)\r\n");
    CHECK(exec(ks, {"ZSCORE", "inf", "a"}) == "$3\r\ninf\r\n");
    // NX stops ZADD INCR before the sum (nil), GT and XX after it (the NaN error): as 7.0.15.
    CHECK(exec(ks, {"ZADD", "inf", "NX", "INCR", "-inf", "a"}) == "$-1\r\n");
    CHECK(exec(ks, {"ZADD", "inf", "GT", "INCR", "-inf", "a"}) ==
          "-ERR resulting score is not a number (NaN)\r\n");
    CHECK(exec(ks, {"ZADD", "inf", "XX", "INCR", "-inf", "a"}) ==
          "-ERR resulting score is not a number (NaN)\r\n");
}

TEST_CASE("keyspace: lookups, ranks and counts", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c", "3", "d"});
    CHECK(exec(ks, {"ZCARD", "k"}) == ":4\r\n");
    CHECK(exec(ks, {"ZCARD", "none"}) == ":0\r\n");
    CHECK(exec(ks, {"ZSCORE", "k", "b"}) == "$1\r\n2\r\n");
    CHECK(exec(ks, {"ZSCORE", "k", "x"}) == "$-1\r\n");
    CHECK(exec(ks, {"ZMSCORE", "k", "a", "x"}) == "*2\r\n$1\r\n1\r\n$-1\r\n");
    CHECK(exec(ks, {"ZMSCORE", "none", "a"}) == "*1\r\n$-1\r\n");
    CHECK(exec(ks, {"ZRANK", "k", "c"}) == ":2\r\n");
    CHECK(exec(ks, {"ZREVRANK", "k", "c"}) == ":1\r\n");
    CHECK(exec(ks, {"ZRANK", "k", "c", "WITHSCORE"}) == "*2\r\n:2\r\n$1\r\n3\r\n");
    CHECK(exec(ks, {"ZRANK", "k", "x", "WITHSCORE"}) == "*-1\r\n");
    CHECK(exec(ks, {"ZRANK", "k", "c", "junk"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZCOUNT", "k", "(1", "3"}) == ":3\r\n");
    CHECK(exec(ks, {"ZCOUNT", "k", "x", "3"}) == "-ERR min or max is not a float\r\n");
    CHECK(exec(ks, {"ZCOUNT", "none", "-inf", "+inf"}) == ":0\r\n");
    CHECK(exec(ks, {"ZLEXCOUNT", "k", "-", "+"}) == ":4\r\n");
    CHECK(exec(ks, {"ZLEXCOUNT", "k", "a", "+"}) ==
          "-ERR min or max not valid string range item\r\n");
}

TEST_CASE("keyspace: ZRANGE family", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d"});
    CHECK(exec(ks, {"ZRANGE", "k", "0", "1"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "-1", "-1", "WITHSCORES"}) == "*2\r\n$1\r\nd\r\n$1\r\n4\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "(1", "3", "BYSCORE", "LIMIT", "1", "5"}) ==
          "*1\r\n$1\r\nc\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "3", "(1", "BYSCORE", "REV"}) == "*2\r\n$1\r\nc\r\n$1\r\nb\r\n");
    CHECK(exec(ks, {"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "0", "1"}) ==
          "*1\r\n$1\r\na\r\n");
    CHECK(exec(ks, {"ZREVRANGEBYSCORE", "k", "+inf", "-inf", "LIMIT", "1", "2"}) ==
          "*2\r\n$1\r\nc\r\n$1\r\nb\r\n");
    CHECK(exec(ks, {"ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "-1", "2"}) == "*0\r\n");
    CHECK(exec(ks, {"ZREVRANGE", "k", "0", "0"}) == "*1\r\n$1\r\nd\r\n");
    // Errors in Redis's order: options first (left to right), then conflicts, then the range.
    CHECK(exec(ks, {"ZRANGE", "k", "0", "1", "LIMIT", "0", "1"}) ==
          "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
          "BYLEX\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "0", "1", "LIMIT", "5", "-1"}) ==
          "*2\r\n$1\r\na\r\n$1\r\nb\r\n");  // count -1 is "no limit": accepted
    CHECK(exec(ks, {"ZRANGE", "k", "[a", "[b", "BYLEX", "WITHSCORES"}) ==
          "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "x", "1", "BYSCORE", "junk"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "x", "1", "BYSCORE"}) == "-ERR min or max is not a float\r\n");
    CHECK(exec(ks, {"ZRANGE", "k", "x", "1"}) ==
          "-ERR value is not an integer or out of range\r\n");
    CHECK(exec(ks, {"ZRANGEBYSCORE", "k", "0", "1", "BYSCORE"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZREVRANGE", "k", "0", "1", "REV"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZRANGE", "none", "0", "-1"}) == "*0\r\n");
    CHECK(exec(ks, {"SET", "s", "v"}) == "+OK\r\n");
    CHECK(exec(ks, {"ZRANGE", "s", "x", "1"}) ==
          "-ERR value is not an integer or out of range\r\n");
    CHECK(exec(ks, {"ZRANGE", "s", "0", "1"}) ==
          "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");

    zr::session s3;
    s3.proto = zr::protocol::resp3;
    CHECK(exec(ks, s3, {"ZRANGE", "k", "0", "0", "WITHSCORES"}) == "*1\r\n*2\r\n$1\r\na\r\n,1\r\n");
}

TEST_CASE("keyspace: lex ranges over equal scores", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "\xff", "0", ""});
    CHECK(exec(ks, {"ZRANGEBYLEX", "l", "[b", "+"}) ==
          "*3\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\n\xff\r\n");
    CHECK(exec(ks, {"ZREVRANGEBYLEX", "l", "(c", "-", "LIMIT", "1", "1"}) == "*1\r\n$1\r\na\r\n");
    CHECK(exec(ks, {"ZRANGE", "l", "(", "[a", "BYLEX"}) == "*1\r\n$1\r\na\r\n");
    CHECK(exec(ks, {"ZREMRANGEBYLEX", "l", "[a", "(c"}) == ":2\r\n");
    CHECK(exec(ks, {"ZLEXCOUNT", "l", "-", "+"}) == ":3\r\n");
}

TEST_CASE("keyspace: removal commands delete emptied keys", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZREM", "k", "a", "x"}) == ":1\r\n");
    CHECK(exec(ks, {"ZREMRANGEBYRANK", "k", "0", "0"}) == ":1\r\n");
    CHECK(exec(ks, {"ZREMRANGEBYSCORE", "k", "x", "0"}) == "-ERR min or max is not a float\r\n");
    CHECK(exec(ks, {"ZREMRANGEBYSCORE", "k", "-inf", "+inf"}) == ":1\r\n");
    CHECK(exec(ks, {"EXISTS", "k"}) == ":0\r\n");
    CHECK(exec(ks, {"ZREM", "k", "a"}) == ":0\r\n");
    CHECK(ks.key_count() == 0);
}

TEST_CASE("keyspace: ZPOPMIN, ZPOPMAX, ZMPOP", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    CHECK(exec(ks, {"ZPOPMIN", "k"}) == "*2\r\n$1\r\na\r\n$1\r\n1\r\n");
    CHECK(exec(ks, {"ZPOPMAX", "k", "0"}) == "*0\r\n");
    CHECK(exec(ks, {"ZPOPMAX", "k", "-1"}) == "-ERR value is out of range, must be positive\r\n");
    CHECK(exec(ks, {"ZPOPMAX", "k", "x"}) == "-ERR value is out of range, must be positive\r\n");
    CHECK(exec(ks, {"ZPOPMAX", "k", "1", "2"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZPOPMIN", "none"}) == "*0\r\n");
    CHECK(exec(ks, {"ZMPOP", "2", "none", "k", "MAX", "COUNT", "5"}) ==
          "*2\r\n$1\r\nk\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
    CHECK(exec(ks, {"EXISTS", "k"}) == ":0\r\n");
    CHECK(exec(ks, {"ZMPOP", "1", "k", "MIN"}) == "*-1\r\n");
    CHECK(exec(ks, {"ZMPOP", "0", "k", "MIN"}) == "-ERR numkeys should be greater than 0\r\n");
    CHECK(exec(ks, {"ZMPOP", "2", "k", "MIN"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZMPOP", "1", "k", "MID"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZMPOP", "1", "k", "MIN", "COUNT", "0"}) ==
          "-ERR count should be greater than 0\r\n");
    CHECK(exec(ks, {"ZMPOP", "1", "k", "MIN", "COUNT", "1", "COUNT", "1"}) ==
          "-ERR syntax error\r\n");

    zr::session s3;
    s3.proto = zr::protocol::resp3;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b"});
    CHECK(exec(ks, s3, {"ZPOPMIN", "k"}) == "*2\r\n$1\r\na\r\n,1\r\n");
    CHECK(exec(ks, s3, {"ZPOPMIN", "k", "1"}) == "*1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
    CHECK(exec(ks, s3, {"ZMPOP", "1", "k", "MIN"}) == "_\r\n");
}

TEST_CASE("keyspace: blocking pops report what they wait for", "[redis][keyspace]") {
    zr::keyspace ks;
    zr::session s = ks.make_session();
    std::string out;
    zr::exec_result r = ks.execute(std::vector<std::string>{"BZPOPMIN", "q1", "q2", "1.5"}, s, out);
    CHECK(r.status == zr::exec_status::blocked);
    CHECK(out.empty());
    CHECK(r.block.keys == std::vector<std::string>{"q1", "q2"});
    CHECK(r.block.timeout_ms == 1500);

    // The keyspace keeps the blocked command; a write to one of its keys lets
    // serve_blocked() run it again and deliver the reply.
    std::vector<std::pair<long long, std::string>> delivered;
    const auto deliver = [&](zr::session& who, std::string_view bytes) {
        delivered.emplace_back(who.id, std::string(bytes));
    };
    CHECK(s.blocked);
    exec(ks, {"ZADD", "other", "1", "x"});
    CHECK(ks.serve_blocked(deliver) == 0);
    exec(ks, {"SET", "q1", "string"});  // another type wakes nobody
    CHECK(ks.serve_blocked(deliver) == 0);
    // Served from the key that became ready, as Redis 7.0 (q1, first in the command, now
    // holds a string: a re-run of the whole command would reply WRONGTYPE).
    exec(ks, {"ZADD", "q2", "1", "x", "2", "y"});
    CHECK(ks.serve_blocked(deliver) == 1);
    REQUIRE(delivered.size() == 1);
    CHECK(delivered[0].first == s.id);
    CHECK(delivered[0].second == "*3\r\n$2\r\nq2\r\n$1\r\nx\r\n$1\r\n1\r\n");
    CHECK_FALSE(s.blocked);
    exec(ks, {"ZADD", "q2", "3", "z"});
    CHECK(ks.serve_blocked(deliver) == 0);  // served clients wait no more

    // Timeouts parse as Redis's (seconds as a long double, rounded up to milliseconds).
    out.clear();
    r = ks.execute(std::vector<std::string>{"BZMPOP", "0.0001", "1", "none", "MIN"}, s, out);
    CHECK(r.status == zr::exec_status::blocked);
    CHECK(r.block.timeout_ms == 1);  // < 1 ms: 1 ms, as in Redis 7.0.11 and later
    CHECK(exec(ks, {"BZPOPMIN", "k", "-1"}) == "-ERR timeout is negative\r\n");
    // past LLONG_MAX ms: Redis 7.2's answer (the keyspace's default rules; 7.0's is "negative")
    CHECK(exec(ks, {"BZPOPMIN", "k", "inf"}) == "-ERR timeout is out of range\r\n");
    CHECK(exec(ks, {"BZPOPMIN", "k", "x"}) == "-ERR timeout is not a float or out of range\r\n");
    CHECK(exec(ks, {"BZPOPMIN", "k", " 1"}) == "-ERR timeout is not a float or out of range\r\n");
    // A session that may not block gets the timeout reply at once (as inside MULTI).
    CHECK(exec(ks, {"BZPOPMAX", "none", "0"}) == "*-1\r\n");
    std::string t;
    zr::keyspace::append_timeout_reply(t, zr::protocol::resp3);
    CHECK(t == "_\r\n");
}

TEST_CASE("keyspace: ZRANDMEMBER", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2", "b", "3", "c"});
    const zr::reply one = ks.run({"ZRANDMEMBER", "k"});
    REQUIRE(one.type() == zr::reply::kind::bulk);
    CHECK((one.text() == "a" || one.text() == "b" || one.text() == "c"));
    const zr::reply distinct = ks.run({"ZRANDMEMBER", "k", "2"});
    REQUIRE(distinct.elements().size() == 2);
    CHECK(distinct.elements()[0] != distinct.elements()[1]);
    CHECK(ks.run({"ZRANDMEMBER", "k", "10", "WITHSCORES"}).elements().size() == 6);
    CHECK(ks.run({"ZRANDMEMBER", "k", "-7"}).elements().size() == 7);
    CHECK(exec(ks, {"ZRANDMEMBER", "k", "0"}) == "*0\r\n");
    CHECK(exec(ks, {"ZRANDMEMBER", "none", "5"}) == "*0\r\n");
    CHECK(exec(ks, {"ZRANDMEMBER", "none"}) == "$-1\r\n");
    CHECK(exec(ks, {"ZRANDMEMBER", "k", "1", "junk"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZRANDMEMBER", "k", "9223372036854775807", "WITHSCORES"}) ==
          "-ERR value is out of range\r\n");
    CHECK(exec(ks, {"ZRANDMEMBER", "k", "-9223372036854775808"}) ==
          "-ERR value is out of range, value must between -9223372036854775807 and "
          "9223372036854775807\r\n");
}

TEST_CASE("keyspace: ZSCAN walks every member once the cursor returns to 0", "[redis][keyspace]") {
    zr::keyspace ks;
    std::vector<std::string> add{"ZADD", "big"};
    for (int i = 0; i < 500; ++i) {
        add.push_back(std::to_string(i));
        add.push_back("m" + std::to_string(i));
    }
    exec(ks, add);
    CHECK(encoding_of(ks, "big") == "$8\r\nskiplist\r\n");
    std::vector<bool> seen(500, false);
    std::string cursor = "0";
    int calls = 0;
    do {
        const zr::reply r = ks.run({"ZSCAN", "big", cursor, "MATCH", "m1*", "COUNT", "20"});
        REQUIRE(r.elements().size() == 2);
        cursor = r.elements()[0].text();
        const auto& items = r.elements()[1].elements();
        for (std::size_t i = 0; i < items.size(); i += 2) {
            const std::string& m = items[i].text();
            REQUIRE(m[0] == 'm');
            REQUIRE(m[1] == '1');
            seen[static_cast<std::size_t>(std::stoi(m.substr(1)))] = true;
            CHECK(items[i + 1].text() == m.substr(1));  // score == number
        }
        ++calls;
    } while (cursor != "0" && calls < 10000);
    CHECK(cursor == "0");
    CHECK(calls > 1);
    for (int i = 0; i < 500; ++i)
        if (std::to_string(i)[0] == '1') CHECK(seen[static_cast<std::size_t>(i)]);
    CHECK(exec(ks, {"ZSCAN", "big", "x"}) == "-ERR invalid cursor\r\n");
    CHECK(exec(ks, {"ZSCAN", "none", "0", "COUNT", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
    CHECK(exec(ks, {"ZSCAN", "big", "0", "COUNT", "0"}) == "-ERR syntax error\r\n");
    exec(ks, {"ZADD", "small", "1.5", "a"});
    CHECK(exec(ks, {"ZSCAN", "small", ""}) == "*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n");
}

TEST_CASE("keyspace: set operations", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "a", "1", "x", "2", "y"});
    exec(ks, {"ZADD", "b", "10", "y", "20", "z"});
    CHECK(exec(ks, {"ZUNION", "2", "a", "b", "WITHSCORES"}) ==
          "*6\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\ny\r\n$2\r\n12\r\n$1\r\nz\r\n$2\r\n20\r\n");
    CHECK(exec(ks, {"ZINTER", "2", "a", "b", "WEIGHTS", "2", "1", "AGGREGATE", "MAX",
                    "WITHSCORES"}) == "*2\r\n$1\r\ny\r\n$2\r\n10\r\n");
    CHECK(exec(ks, {"ZDIFF", "2", "a", "b"}) == "*1\r\n$1\r\nx\r\n");
    CHECK(exec(ks, {"ZINTERCARD", "2", "a", "b", "LIMIT", "0"}) == ":1\r\n");
    CHECK(exec(ks, {"ZINTERCARD", "2", "a", "b", "LIMIT", "-1"}) ==
          "-ERR LIMIT can't be negative\r\n");
    CHECK(exec(ks, {"ZUNIONSTORE", "d", "2", "a", "b"}) == ":3\r\n");
    CHECK(exec(ks, {"ZINTERSTORE", "d", "2", "a", "none"}) == ":0\r\n");
    CHECK(exec(ks, {"EXISTS", "d"}) == ":0\r\n");  // an empty result deletes the destination
    CHECK(exec(ks, {"ZUNIONSTORE", "d", "0", "a"}) ==
          "-ERR at least 1 input key is needed for 'zunionstore' command\r\n");
    CHECK(exec(ks, {"ZUNION", "3", "a", "b"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"}) ==
          "-ERR weight value is not a float\r\n");
    CHECK(exec(ks, {"ZUNION", "2", "a", "b", "WEIGHTS", "1"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"ZDIFF", "1", "a", "WEIGHTS", "1"}) == "-ERR syntax error\r\n");
    exec(ks, {"SET", "s", "v"});
    // The key types are checked before the options.
    CHECK(exec(ks, {"ZUNION", "2", "a", "s", "WEIGHTS", "x", "y"}) ==
          "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    // NaN products: 0 * inf is 0 for the first input of ZINTER and in ZUNION, but a NaN for the
    // other inputs of ZINTER, which MIN / MAX then ignore (verified against Redis 7.0.15).
    exec(ks, {"ZADD", "inf", "inf", "x"});
    exec(ks, {"ZADD", "five", "5", "x"});
    CHECK(exec(ks, {"ZINTER", "2", "five", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "MIN",
                    "WITHSCORES"}) == "*2\r\n$1\r\nx\r\n$1\r\n5\r\n");
    CHECK(exec(ks, {"ZINTER", "2", "inf", "five", "WEIGHTS", "0", "1", "AGGREGATE", "MIN",
                    "WITHSCORES"}) == "*2\r\n$1\r\nx\r\n$1\r\n0\r\n");
    CHECK(exec(ks, {"ZUNION", "2", "five", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "MIN",
                    "WITHSCORES"}) == "*2\r\n$1\r\nx\r\n$1\r\n0\r\n");
}

TEST_CASE("keyspace: encodings follow the thresholds in force", "[redis][keyspace]") {
    zr::keyspace ks;
    CHECK(exec(ks, {"CONFIG", "SET", "zset-max-listpack-entries", "2"}) == "+OK\r\n");
    exec(ks, {"ZADD", "k", "1", "a", "2", "b"});
    CHECK(encoding_of(ks, "k") == "$8\r\nlistpack\r\n");
    exec(ks, {"ZADD", "k", "5", "a"});  // updates never convert
    CHECK(encoding_of(ks, "k") == "$8\r\nlistpack\r\n");
    exec(ks, {"ZADD", "k", "3", "c"});
    CHECK(encoding_of(ks, "k") == "$8\r\nskiplist\r\n");
    exec(ks, {"ZREM", "k", "c", "b"});  // never converts back
    CHECK(encoding_of(ks, "k") == "$8\r\nskiplist\r\n");
    // Raising the limit later does not touch existing sets; new ones use it.
    CHECK(exec(ks, {"CONFIG", "SET", "zset-max-listpack-entries", "128", "zset-max-listpack-value",
                    "4"}) == "+OK\r\n");
    exec(ks, {"ZADD", "v", "1", "abcd"});
    CHECK(encoding_of(ks, "v") == "$8\r\nlistpack\r\n");
    exec(ks, {"ZADD", "v", "1", "abcde"});
    CHECK(encoding_of(ks, "v") == "$8\r\nskiplist\r\n");
    // A listpack stores -0 as 0; a skiplist keeps it.
    exec(ks, {"ZADD", "z", "-0", "a"});
    CHECK(exec(ks, {"ZSCORE", "z", "a"}) == "$1\r\n0\r\n");
    exec(ks, {"ZADD", "v", "-0", "m"});
    CHECK(exec(ks, {"ZSCORE", "v", "m"}) == "$2\r\n-0\r\n");
    // ZINCRBY replies the increment as given even when the listpack stores 0.
    CHECK(exec(ks, {"ZINCRBY", "z", "-0", "new"}) == "$2\r\n-0\r\n");
    CHECK(exec(ks, {"ZSCORE", "z", "new"}) == "$1\r\n0\r\n");
    // *STORE results take the smallest encoding that fits.
    CHECK(exec(ks, {"ZUNIONSTORE", "u", "1", "v"}) == ":3\r\n");
    CHECK(encoding_of(ks, "u") == "$8\r\nskiplist\r\n");
    CHECK(exec(ks, {"ZRANGESTORE", "r", "v", "0", "0"}) == ":1\r\n");
    CHECK(encoding_of(ks, "r") == "$8\r\nlistpack\r\n");
    CHECK(exec(ks, {"CONFIG", "GET", "zset-max-*-value"}) ==
          "*4\r\n$23\r\nzset-max-listpack-value\r\n$1\r\n4\r\n$22\r\nzset-max-ziplist-value\r\n"
          "$1\r\n4\r\n");
    CHECK(exec(ks, {"CONFIG", "SET", "zset-max-listpack-value", "1kb"}) == "+OK\r\n");
    CHECK(ks.options().zset_max_listpack_value == 1024);
    CHECK(exec(ks, {"CONFIG", "SET", "zset-max-listpack-entries", "x"}) ==
          "-ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-entries') - "
          "argument couldn't be parsed into an integer\r\n");
    CHECK(exec(ks, {"CONFIG", "SET", "nosuch", "1"}) ==
          "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n");
    CHECK(exec(ks, {"CONFIG", "SET", "zset-max-listpack-entries"}) ==
          "-ERR wrong number of arguments for 'config|set' command\r\n");
}

TEST_CASE("keyspace: DUMP and RESTORE", "[redis][keyspace]") {
    zr::keyspace ks;
    exec(ks, {"ZADD", "k", "1", "a", "2.5", "b"});
    const zr::reply dumped = ks.run({"DUMP", "k"});
    REQUIRE(dumped.type() == zr::reply::kind::bulk);
    const std::string payload = dumped.text();
    CHECK(static_cast<unsigned char>(payload[0]) == 17);  // ZSET_LISTPACK, as the key is
    CHECK(exec(ks, {"RESTORE", "k", "0", payload}) ==
          "-BUSYKEY Target key name already exists.\r\n");
    CHECK(exec(ks, {"RESTORE", "k2", "0", payload}) == "+OK\r\n");
    CHECK(exec(ks, {"ZRANGE", "k2", "0", "-1", "WITHSCORES"}) ==
          exec(ks, {"ZRANGE", "k", "0", "-1", "WITHSCORES"}));
    CHECK(exec(ks, {"RESTORE", "k2", "0", payload, "REPLACE"}) == "+OK\r\n");
    std::string bad = payload;
    bad[1] = static_cast<char>(bad[1] ^ 1);
    CHECK(exec(ks, {"RESTORE", "k3", "0", bad}) ==
          "-ERR DUMP payload version or checksum are wrong\r\n");
    CHECK(exec(ks, {"RESTORE", "k3", "-1", payload}) == "-ERR Invalid TTL value, must be >= 0\r\n");
    CHECK(exec(ks, {"RESTORE", "k3", "0", payload, "junk"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, {"DUMP", "none"}) == "$-1\r\n");
    // Strings round-trip too.
    exec(ks, {"SET", "s", "hello"});
    const std::string sp = ks.run({"DUMP", "s"}).text();
    CHECK(exec(ks, {"RESTORE", "s2", "0", sp}) == "+OK\r\n");
    CHECK(exec(ks, {"GET", "s2"}) == "$5\r\nhello\r\n");
    // A skiplist set dumps as ZSET_2.
    exec(ks, {"CONFIG", "SET", "zset-max-listpack-entries", "1"});
    exec(ks, {"ZADD", "sk", "1", "a", "2", "b"});
    CHECK(static_cast<unsigned char>(ks.run({"DUMP", "sk"}).text()[0]) == 5);
}

TEST_CASE("keyspace: generic commands, dispatch errors and RESP3", "[redis][keyspace]") {
    zr::keyspace ks;
    zr::session s = ks.make_session();
    CHECK(exec(ks, s, {"PING"}) == "+PONG\r\n");
    CHECK(exec(ks, s, {"PING", "x"}) == "$1\r\nx\r\n");
    CHECK(exec(ks, s, {"PING", "x", "y"}) ==
          "-ERR wrong number of arguments for 'ping' command\r\n");
    CHECK(exec(ks, s, {"ECHO", "hi"}) == "$2\r\nhi\r\n");
    CHECK(exec(ks, s, {"SELECT", "16"}) == "-ERR DB index is out of range\r\n");
    CHECK(exec(ks, s, {"SELECT", "0"}) == "+OK\r\n");
    CHECK(exec(ks, s, {"SET", "s", "123"}) == "+OK\r\n");
    CHECK(exec(ks, s, {"OBJECT", "ENCODING", "s"}) == "$3\r\nint\r\n");
    CHECK(exec(ks, s, {"GET", "s"}) == "$3\r\n123\r\n");
    exec(ks, s, {"ZADD", "z", "1", "a"});
    CHECK(exec(ks, s, {"GET", "z"}) ==
          "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    CHECK(exec(ks, s, {"TYPE", "z"}) == "+zset\r\n");
    CHECK(exec(ks, s, {"TYPE", "s"}) == "+string\r\n");
    CHECK(exec(ks, s, {"TYPE", "none"}) == "+none\r\n");
    CHECK(exec(ks, s, {"EXISTS", "z", "z", "none"}) == ":2\r\n");
    CHECK(exec(ks, s, {"DBSIZE"}) == ":2\r\n");
    CHECK(exec(ks, s, {"DEL", "z", "none"}) == ":1\r\n");
    CHECK(exec(ks, s, {"FLUSHALL", "x"}) == "-ERR syntax error\r\n");
    CHECK(exec(ks, s, {"FLUSHDB", "ASYNC"}) == "+OK\r\n");
    CHECK(exec(ks, s, {"DBSIZE"}) == ":0\r\n");
    CHECK(exec(ks, s, {"NOSUCH", "a", "b"}) ==
          "-ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' \r\n");
    CHECK(exec(ks, s, {"CONFIG", "nosuch"}) ==
          "-ERR unknown subcommand 'nosuch'. Try CONFIG HELP.\r\n");
    CHECK(exec(ks, s, {"CONFIG"}) == "-ERR wrong number of arguments for 'config' command\r\n");
    CHECK(exec(ks, s, {"OBJECT", "ENCODING"}) ==
          "-ERR wrong number of arguments for 'object|encoding' command\r\n");
    CHECK(exec(ks, s, {"HELLO", "4"}) == "-NOPROTO unsupported protocol version\r\n");
    CHECK(exec(ks, s, {"HELLO", "x"}) ==
          "-ERR Protocol version is not an integer or out of range\r\n");
    CHECK(exec(ks, s, {"HELLO", "3", "foo"}) == "-ERR Syntax error in HELLO option 'foo'\r\n");
    const std::string hello = exec(ks, s, {"HELLO", "3"});
    CHECK(hello.rfind("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n", 0) == 0);
    CHECK(s.proto == zr::protocol::resp3);
    exec(ks, s, {"ZADD", "z", "1.5", "a"});
    CHECK(exec(ks, s, {"ZSCORE", "z", "a"}) == ",1.5\r\n");
    CHECK(exec(ks, s, {"ZSCORE", "z", "b"}) == "_\r\n");
    CHECK(exec(ks, s, {"CONFIG", "GET", "appendonly"}) ==
          "%1\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
    CHECK(exec(ks, s, {"COMMAND", "COUNT"}) ==
          ":" + std::to_string(std::size(zr::detail::command_table)) + "\r\n");
    const zr::reply info = ks.run({"COMMAND", "INFO", "zadd", "nosuch"});
    REQUIRE(info.elements().size() == 2);
    CHECK(info.elements()[0].elements()[0] == zr::reply::bulk("zadd"));
    CHECK(info.elements()[0].elements()[1] == zr::reply::integer(-4));
    CHECK(info.elements()[1] == zr::reply::null());
    std::string quit;
    CHECK(ks.execute(std::vector<std::string>{"QUIT"}, s, quit).status == zr::exec_status::quit);
    CHECK(quit == "+OK\r\n");
}

TEST_CASE("keyspace: typed replies encode to the streamed bytes", "[redis][keyspace]") {
    const std::vector<std::vector<std::string>> script = {
        {"ZADD", "k", "1", "a", "2", "b", "0.1", "c"},
        {"ZRANGE", "k", "0", "-1", "WITHSCORES"},
        {"ZPOPMIN", "k", "2"},
        {"ZMSCORE", "k", "a", "b", "zz"},
        {"ZUNION", "1", "k", "WITHSCORES"},
        {"CONFIG", "GET", "zset-*"},
        {"ZMPOP", "1", "nokey", "MIN"},
        {"HELLO", "3"},
        {"ZRANGE", "k", "0", "-1", "WITHSCORES"},
        {"ZRANK", "k", "b", "WITHSCORE"},
        {"COMMAND", "INFO", "config"},
        {"NOSUCH"},
    };
    for (const auto style : {zr::format_style::shortest, zr::format_style::percent17g}) {
        zr::keyspace_options opts;
        opts.double_format = style;
        zr::keyspace streamed(opts), typed(opts);
        zr::session s1, s2;
        for (const auto& argv : script) {
            std::string bytes;
            streamed.execute(argv, s1, bytes);
            zr::reply r;
            typed.execute(argv, s2, r);
            std::string encoded;
            zr::encode(r, s2.proto, encoded, style);
            INFO(argv[0]);
            CHECK(encoded == bytes);
        }
    }
}
