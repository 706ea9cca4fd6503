// Expiry on zset::redis::keyspace: EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT with NX XX GT LT,
// TTL / PTTL / EXPIRETIME / PEXPIRETIME / PERSIST, lazy and active expiry, and expired keys
// around blocked clients. Replies are redis-server 7.0.15's (tests/differential compares them
// live); the keyspace runs on a fake clock here.
#include <string>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"

using namespace redis_test;

TEST_CASE("expiry: setting, reading and removing a time to live", "[redis][expire]") {
    server srv;
    auto& c = srv.client();
    const long long now = *srv.clock;
    srv.run(c, {"ZADD", "k", "1", "a"});
    CHECK(srv.run(c, {"TTL", "k"}) == integer(-1));
    CHECK(srv.run(c, {"TTL", "none"}) == integer(-2));
    CHECK(srv.run(c, {"EXPIRE", "k", "100"}) == integer(1));
    CHECK(srv.run(c, {"TTL", "k"}) == integer(100));
    CHECK(srv.run(c, {"PTTL", "k"}) == integer(100000));
    CHECK(srv.run(c, {"EXPIRETIME", "k"}) == integer(now / 1000 + 100));
    CHECK(srv.run(c, {"PEXPIRETIME", "k"}) == integer(now + 100000));
    srv.advance(1499);
    CHECK(srv.run(c, {"TTL", "k"}) == integer(99));  // rounded: (98501 + 500) / 1000
    CHECK(srv.run(c, {"PEXPIRE", "k", "2500"}) == integer(1));
    CHECK(srv.run(c, {"TTL", "k"}) == integer(3));
    CHECK(srv.run(c, {"EXPIREAT", "k", std::to_string(now / 1000 + 50)}) == integer(1));
    CHECK(srv.run(c, {"PEXPIREAT", "k", std::to_string(now + 60000)}) == integer(1));
    CHECK(srv.run(c, {"PEXPIRETIME", "k"}) == integer(now + 60000));
    CHECK(srv.run(c, {"PERSIST", "k"}) == integer(1));
    CHECK(srv.run(c, {"PERSIST", "k"}) == integer(0));
    CHECK(srv.run(c, {"PERSIST", "none"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRE", "none", "100"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRETIME", "k"}) == integer(-1));
}

TEST_CASE("expiry: NX, XX, GT and LT", "[redis][expire]") {
    server srv;
    auto& c = srv.client();
    srv.run(c, {"ZADD", "k", "1", "a"});
    // No TTL counts as infinite: GT fails, LT and NX set it, XX does not.
    CHECK(srv.run(c, {"EXPIRE", "k", "100", "GT"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRE", "k", "100", "XX"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRE", "k", "100", "LT"}) == integer(1));
    CHECK(srv.run(c, {"EXPIRE", "k", "50", "NX"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRE", "k", "200", "gt"}) == integer(1));
    CHECK(srv.run(c, {"EXPIRE", "k", "150", "GT"}) == integer(0));
    CHECK(srv.run(c, {"EXPIRE", "k", "150", "LT", "XX"}) == integer(1));
    CHECK(srv.run(c, {"TTL", "k"}) == integer(150));
    CHECK(srv.run(c, {"EXPIRE", "k", "10", "NX", "XX"}) ==
          error("ERR NX and XX, GT or LT options at the same time are not compatible"));
    CHECK(srv.run(c, {"EXPIRE", "k", "10", "GT", "LT"}) ==
          error("ERR GT and LT options at the same time are not compatible"));
    CHECK(srv.run(c, {"EXPIRE", "k", "10", "foo"}) == error("ERR Unsupported option foo"));
    CHECK(srv.run(c, {"EXPIRE", "k", "x"}) == error("ERR value is not an integer or out of range"));
    CHECK(srv.run(c, {"EXPIRE", "k", "9223372036854775807"}) ==
          error("ERR invalid expire time in 'expire' command"));
    CHECK(srv.run(c, {"PEXPIRE", "k", "9223372036854775807"}) ==
          error("ERR invalid expire time in 'pexpire' command"));
    CHECK(srv.run(c, {"TTL", "k"}) == integer(150));  // errors changed nothing
}

TEST_CASE("expiry: a time in the past deletes the key at once", "[redis][expire]") {
    server srv;
    auto& c = srv.client();
    for (const std::vector<std::string>& argv : {std::vector<std::string>{"EXPIRE", "k", "0"},
                                                 {"EXPIRE", "k", "-5"},
                                                 {"PEXPIRE", "k", "-1"},
                                                 {"EXPIREAT", "k", "1"},
                                                 {"PEXPIREAT", "k", "1"}}) {
        srv.run(c, {"ZADD", "k", "1", "a"});
        CHECK(srv.run(c, argv) == integer(1));
        CHECK(srv.ks.key_count() == 0);  // not merely expired: gone
    }
}

TEST_CASE("expiry: lazy expiry on every access, DBSIZE counts what is not yet removed",
          "[redis][expire]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"DEBUG", "SET-ACTIVE-EXPIRE", "0"}).substr(0, 4) == "-ERR");  // protected
    srv.run(c, {"ZADD", "z", "1", "a"});
    srv.run(c, {"SADD", "s", "x"});
    srv.run(c, {"SET", "str", "v"});
    for (const char* k : {"z", "s", "str"}) srv.run(c, {"PEXPIRE", k, "100"});
    srv.advance(100);
    CHECK(srv.run(c, {"EXISTS", "z", "s", "str"}) == integer(3));  // now == expiry: still there
    srv.advance(1);
    CHECK(srv.ks.find("z") == nullptr);  // const view: expired
    CHECK(srv.run(c, {"DBSIZE"}) == integer(3));
    CHECK(srv.run(c, {"KEYS", "*"}) == "*0\r\n");  // KEYS skips them, deletes nothing
    CHECK(srv.run(c, {"DBSIZE"}) == integer(3));
    CHECK(srv.run(c, {"ZCARD", "z"}) == integer(0));
    CHECK(srv.run(c, {"DBSIZE"}) == integer(2));
    CHECK(srv.run(c, {"GET", "str"}) == nil);
    CHECK(srv.run(c, {"SADD", "s", "y"}) == integer(1));  // a new set, without a TTL
    CHECK(srv.run(c, {"TTL", "s"}) == integer(-1));
    CHECK(srv.run(c, {"SMEMBERS", "s"}) == "*1\r\n$1\r\ny\r\n");
    CHECK(srv.run(c, {"INFO", "keyspace"}).find("db0:keys=1,expires=0") != std::string::npos);
}

TEST_CASE("expiry: active expiry in cron(), switchable with DEBUG SET-ACTIVE-EXPIRE",
          "[redis][expire]") {
    zset::redis::keyspace_options o;
    o.enable_debug_command = zset::redis::debug_access::yes;
    server srv(o);
    auto& c = srv.client();
    for (int i = 0; i < 50; ++i) {
        srv.run(c, {"ZADD", "k" + std::to_string(i), "1", "a"});
        srv.run(c, {"PEXPIRE", "k" + std::to_string(i), std::to_string(10 + i)});
    }
    srv.run(c, {"ZADD", "forever", "1", "a"});
    CHECK(srv.ks.next_timeout_ms() == 100);  // expiring keys: cron at hz (10 per second)
    srv.advance(30);
    CHECK(srv.cron() == 20);  // keys 0..19 expired (expiry 10..29 < now)
    CHECK(srv.ks.key_count() == 31);
    CHECK(srv.run(c, {"DEBUG", "SET-ACTIVE-EXPIRE", "0"}) == ok);
    srv.advance(100);
    CHECK(srv.cron() == 0);
    CHECK(srv.ks.key_count() == 31);
    CHECK(srv.run(c, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"}) == ok);
    CHECK(srv.cron() == 30);
    CHECK(srv.ks.key_count() == 1);
    CHECK(srv.run(c, {"INFO", "stats"}).find("expired_keys:50") != std::string::npos);
    CHECK(srv.ks.next_timeout_ms() == -1);  // nothing left to expire
}

TEST_CASE("expiry: writes keep or drop the TTL as Redis does", "[redis][expire]") {
    server srv;
    auto& c = srv.client();
    srv.run(c, {"ZADD", "k", "1", "a"});
    srv.run(c, {"EXPIRE", "k", "100"});
    srv.run(c, {"ZADD", "k", "2", "b"});
    srv.run(c, {"ZINCRBY", "k", "1", "a"});
    srv.run(c, {"ZREM", "k", "b"});
    CHECK(srv.run(c, {"TTL", "k"}) == integer(100));  // changed in place: kept
    srv.run(c, {"ZUNIONSTORE", "k", "1", "k"});
    CHECK(srv.run(c, {"TTL", "k"}) == integer(-1));  // replaced: dropped
    srv.run(c, {"EXPIRE", "k", "100"});
    srv.run(c, {"ZRANGESTORE", "k", "k", "0", "-1"});
    CHECK(srv.run(c, {"TTL", "k"}) == integer(-1));
    srv.run(c, {"EXPIRE", "k", "100"});
    srv.run(c, {"SET", "k", "v"});
    CHECK(srv.run(c, {"TTL", "k"}) == integer(-1));
    srv.run(c, {"SADD", "s", "1"});
    srv.run(c, {"EXPIRE", "s", "100"});
    srv.run(c, {"SADD", "s", "2"});
    srv.run(c, {"SREM", "s", "1"});
    CHECK(srv.run(c, {"TTL", "s"}) == integer(100));
}

TEST_CASE("expiry: RESTORE with a TTL, ABSTTL, and DUMP / RESTORE round trips",
          "[redis][expire][restore]") {
    server srv;
    auto& c = srv.client();
    const long long now = *srv.clock;
    srv.run(c, {"ZADD", "k", "1", "a", "2", "b"});
    zset::redis::reply payload;
    srv.ks.execute(std::vector<std::string>{"DUMP", "k"}, c, payload);
    REQUIRE(payload.type() == zset::redis::reply::kind::bulk);
    CHECK(srv.run(c, {"RESTORE", "t1", "5000", payload.text()}) == ok);
    CHECK(srv.run(c, {"PTTL", "t1"}) == integer(5000));
    CHECK(srv.run(c, {"RESTORE", "t2", std::to_string(now + 7000), payload.text(), "ABSTTL"}) ==
          ok);
    CHECK(srv.run(c, {"PTTL", "t2"}) == integer(7000));
    // Already expired: OK, and nothing stored (a REPLACEd key is deleted).
    CHECK(srv.run(c, {"RESTORE", "t3", "1000", payload.text(), "ABSTTL"}) == ok);
    CHECK(srv.run(c, {"EXISTS", "t3"}) == integer(0));
    CHECK(srv.run(c, {"RESTORE", "k", "1000", payload.text(), "ABSTTL", "REPLACE"}) == ok);
    CHECK(srv.run(c, {"EXISTS", "k"}) == integer(0));
    CHECK(srv.run(c, {"RESTORE", "t1", "0", payload.text()}) ==
          error("BUSYKEY Target key name already exists."));
    CHECK(srv.run(c, {"RESTORE", "t4", "0", payload.text(), "IDLETIME", "1", "FREQ", "1"}) ==
          error("ERR syntax error"));
    srv.advance(5001);
    CHECK(srv.run(c, {"RESTORE", "t1", "0", payload.text()}) == ok);  // t1 had expired
}

TEST_CASE("expiry: an expired key never wakes a blocked client", "[redis][expire][blocking]") {
    zset::redis::keyspace_options o;
    o.enable_debug_command = zset::redis::debug_access::yes;
    server srv(o);
    auto& waiter = srv.client();
    auto& feeder = srv.client();
    CHECK(srv.run(waiter, {"BZPOPMIN", "q", "0"}).empty());
    REQUIRE(waiter.blocked);
    // Created and given a past expiry time in one transaction: gone before serving.
    srv.run(feeder, {"MULTI"});
    srv.run(feeder, {"ZADD", "q", "1", "gone"});
    srv.run(feeder, {"PEXPIREAT", "q", "1"});
    CHECK(srv.run(feeder, {"EXEC"}) == "*2\r\n:1\r\n:1\r\n");
    CHECK(srv.delivered.empty());
    CHECK(waiter.blocked);
    // Created with a short TTL that passes before the keyspace serves the waiters.
    std::string out;
    for (const std::vector<std::string>& argv : {std::vector<std::string>{"MULTI"},
                                                 {"ZADD", "q", "1", "gone"},
                                                 {"PEXPIRE", "q", "5"},
                                                 {"EXEC"}})
        srv.ks.execute(argv, feeder, out);
    srv.advance(6);
    CHECK(srv.ks.serve_blocked([](zset::redis::session&, std::string_view) {}) == 0);
    CHECK(waiter.blocked);
    CHECK(srv.run(feeder, {"ZADD", "q", "2", "kept"}) == integer(1));
    REQUIRE(srv.delivered.size() == 1);
    CHECK(srv.delivered[0].second == "*3\r\n$1\r\nq\r\n$4\r\nkept\r\n$1\r\n2\r\n");
}

TEST_CASE("expiry: blocked clients time out in cron()", "[redis][blocking]") {
    server srv;
    auto& waiter = srv.client();
    auto& other = srv.client();
    CHECK(srv.run(waiter, {"BZPOPMIN", "q", "0.5"}).empty());
    CHECK(srv.run(other, {"BZMPOP", "0", "1", "q", "MIN"}).empty());  // no timeout
    CHECK(srv.ks.next_timeout_ms() == 500);
    srv.advance(499);
    srv.cron();
    CHECK(srv.delivered.empty());
    srv.advance(1);
    srv.cron();
    REQUIRE(srv.delivered.size() == 1);
    CHECK(srv.delivered[0] == std::make_pair(waiter.id, nil_array));
    CHECK_FALSE(waiter.blocked);
    CHECK(other.blocked);
    CHECK(srv.run(waiter, {"INFO", "clients"}).find("blocked_clients:1") != std::string::npos);
}

TEST_CASE("expiry: the same expiry time set twice stays indexed", "[redis][expire]") {
    // Regression: setting an unchanged expiry time dropped the key from the expiry index
    // (INFO's expires count fell, and active expiry never removed the key).
    zset::redis::keyspace_options o;
    server srv(o);
    auto& c = srv.client();
    const std::string at = std::to_string(*srv.clock + 1000);
    srv.run(c, {"ZADD", "k", "1", "a"});
    CHECK(srv.run(c, {"PEXPIREAT", "k", at}) == integer(1));
    CHECK(srv.run(c, {"PEXPIREAT", "k", at}) == integer(1));
    CHECK(srv.run(c, {"INFO", "keyspace"}).find("db0:keys=1,expires=1") != std::string::npos);
    srv.advance(1001);
    CHECK(srv.cron() == 1);
    CHECK(srv.ks.key_count() == 0);
}
