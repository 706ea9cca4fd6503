// Redis-server behaviour of zset::redis::keyspace beyond the sorted-set commands, on a fake
// clock: transactions (MULTI / EXEC / DISCARD / WATCH / UNWATCH), expiry (EXPIRE / PEXPIRE /
// EXPIREAT / PEXPIREAT with NX XX GT LT, TTL / PTTL / EXPIRETIME / PEXPIRETIME / PERSIST, lazy
// and active expiry, expired keys around blocked clients), and databases, introspection and
// access control (plain sets: test_sets.cpp). Expected replies are redis-server 7.0.15's
// (tests/differential compares them live); payloads marked "captured" were produced by
// redis-server 7.0.15's DUMP. One translation unit on purpose: each that includes the keyspace
// compiles all its handlers.
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"

using namespace redis_test;

// ---------------------------------------------------------------------------------------------
// Transactions
// ---------------------------------------------------------------------------------------------

TEST_CASE("transactions: MULTI queues, EXEC runs, a runtime error is one entry", "[redis][multi]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"ZADD", "k", "1", "a", "2", "b"}) == queued);
    CHECK(srv.run(c, {"ZINCRBY", "k", "x", "a"}) == queued);
    CHECK(srv.run(c, {"ZCARD", "k"}) == queued);
    CHECK(srv.run(c, {"ZSCORE", "k", "b"}) == queued);
    CHECK(srv.run(c, {"EXEC"}) ==
          "*4\r\n:2\r\n-ERR value is not a valid float\r\n:2\r\n$1\r\n2\r\n");
    CHECK(srv.run(c, {"EXEC"}) == error("ERR EXEC without MULTI"));
    CHECK(srv.run(c, {"DISCARD"}) == error("ERR DISCARD without MULTI"));
    // An empty transaction.
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"EXEC"}) == "*0\r\n");
}

TEST_CASE("transactions: queuing errors make EXEC fail with EXECABORT", "[redis][multi]") {
    server srv;
    auto& c = srv.client();
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"NOSUCH", "x"}, {"ZADD", "k"}, {"CONFIG", "NOSUCH"}}) {
        CHECK(srv.run(c, {"MULTI"}) == ok);
        CHECK(srv.run(c, {"ZADD", "k", "1", "a"}) == queued);
        CHECK(srv.run(c, bad).substr(0, 5) == "-ERR ");
        CHECK(srv.run(c, {"ZCARD", "k"}) == queued);
        CHECK(srv.run(c, {"EXEC"}) ==
              error("EXECABORT Transaction discarded because of previous errors."));
        CHECK(srv.run(c, {"EXISTS", "k"}) == integer(0));  // nothing ran
    }
    // Not queued, and not errors of the transaction: MULTI nested, WATCH inside MULTI.
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"MULTI"}) == error("ERR MULTI calls can not be nested"));
    CHECK(srv.run(c, {"WATCH", "k"}) == error("ERR WATCH inside MULTI is not allowed"));
    CHECK(srv.run(c, {"ZADD", "k", "1", "a"}) == queued);
    CHECK(srv.run(c, {"EXEC"}) == "*1\r\n:1\r\n");
    // EXEC itself refused: EXECABORT with the reason, in and out of MULTI.
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"EXEC", "x"}) ==
          error("EXECABORT Transaction discarded because of: wrong number of arguments for "
                "'exec' command"));
    CHECK(srv.run(c, {"EXEC"}) == error("ERR EXEC without MULTI"));
    CHECK(srv.run(c, {"EXEC", "x"}).substr(0, 10) == "-EXECABORT");
}

TEST_CASE("transactions: DISCARD drops the queue", "[redis][multi]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"ZADD", "k", "1", "a"}) == queued);
    CHECK(srv.run(c, {"DISCARD"}) == ok);
    CHECK(srv.run(c, {"EXISTS", "k"}) == integer(0));
}

TEST_CASE("transactions: blocking pops inside MULTI never block", "[redis][multi]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"MULTI"}) == ok);
    CHECK(srv.run(c, {"BZPOPMIN", "empty", "0"}) == queued);
    CHECK(srv.run(c, {"BZMPOP", "0", "1", "empty", "MIN"}) == queued);
    CHECK(srv.run(c, {"ZADD", "full", "1", "a"}) == queued);
    CHECK(srv.run(c, {"BZPOPMAX", "empty", "full", "0"}) == queued);
    CHECK(srv.run(c, {"EXEC"}) ==
          "*4\r\n*-1\r\n*-1\r\n:1\r\n*3\r\n$4\r\nfull\r\n$1\r\na\r\n$1\r\n1\r\n");
    CHECK_FALSE(c.blocked);
    CHECK(c.allow_blocking);  // restored after EXEC
}

TEST_CASE("transactions: the sliding-window rate limiter, verbatim", "[redis][multi]") {
    server srv;
    auto& c = srv.client();
    const auto request = [&](long long now) {
        CHECK(srv.run(c, {"MULTI"}) == ok);
        CHECK(srv.run(c, {"ZREMRANGEBYSCORE", "rl", "-inf", std::to_string(now - 1000)}) == queued);
        CHECK(srv.run(c, {"ZADD", "rl", std::to_string(now), std::to_string(now)}) == queued);
        CHECK(srv.run(c, {"ZCARD", "rl"}) == queued);
        CHECK(srv.run(c, {"EXPIRE", "rl", "1"}) == queued);
        return srv.run(c, {"EXEC"});
    };
    CHECK(request(10000) == "*4\r\n:0\r\n:1\r\n:1\r\n:1\r\n");
    CHECK(request(10400) == "*4\r\n:0\r\n:1\r\n:2\r\n:1\r\n");
    CHECK(request(10800) == "*4\r\n:0\r\n:1\r\n:3\r\n:1\r\n");
    CHECK(request(11200) == "*4\r\n:1\r\n:1\r\n:3\r\n:1\r\n");  // 10000 left the window
    CHECK(srv.run(c, {"TTL", "rl"}) == integer(1));
    srv.advance(1001);
    CHECK(srv.run(c, {"EXISTS", "rl"}) == integer(0));  // idle clients' keys expire
}

TEST_CASE("transactions: WATCH aborts EXEC when a watched key changes", "[redis][multi]") {
    server srv;
    auto& a = srv.client();
    auto& b = srv.client();
    srv.run(b, {"ZADD", "k", "1", "x"});
    const auto watched_exec = [&](std::vector<std::string> other_write) {
        CHECK(srv.run(a, {"WATCH", "k"}) == ok);
        if (!other_write.empty()) srv.run(b, other_write);
        CHECK(srv.run(a, {"MULTI"}) == ok);
        CHECK(srv.run(a, {"ZCARD", "k"}) == queued);
        return srv.run(a, {"EXEC"});
    };
    CHECK(watched_exec({}) == "*1\r\n:1\r\n");
    CHECK(watched_exec({"ZADD", "k", "2", "y"}) == nil_array);
    CHECK(watched_exec({"ZADD", "k", "2", "y"}) == "*1\r\n:2\r\n");     // no change: 0 added
    CHECK(watched_exec({"ZINCRBY", "k", "0", "y"}) == "*1\r\n:2\r\n");  // same score
    CHECK(watched_exec({"ZINCRBY", "k", "1", "y"}) == nil_array);
    CHECK(watched_exec({"ZREM", "k", "nope"}) == "*1\r\n:2\r\n");
    CHECK(watched_exec({"EXPIRE", "k", "100"}) == nil_array);
    CHECK(watched_exec({"PERSIST", "k"}) == nil_array);
    CHECK(watched_exec({"ZADD", "other", "1", "x"}) == "*1\r\n:2\r\n");
    CHECK(watched_exec({"SELECT", "1"}) == "*1\r\n:2\r\n");
    srv.run(b, {"SELECT", "0"});
    CHECK(watched_exec({"DEL", "k"}) == nil_array);
    CHECK(watched_exec({"ZADD", "k", "1", "x"}) == nil_array);  // created again
    CHECK(watched_exec({"FLUSHDB"}) == nil_array);
    srv.run(b, {"ZADD", "k", "1", "x"});
    CHECK(watched_exec({"SWAPDB", "0", "1"}) == nil_array);
    CHECK(watched_exec({"FLUSHALL"}) == "*1\r\n:0\r\n");  // k exists in no database
    srv.run(b, {"ZADD", "k", "1", "x"});
    CHECK(watched_exec({"FLUSHALL"}) == nil_array);
    // The watcher's own write counts too; UNWATCH forgets.
    srv.run(a, {"WATCH", "k"});
    srv.run(a, {"ZADD", "k", "1", "x"});
    CHECK(srv.run(a, {"MULTI"}) == ok);
    CHECK(srv.run(a, {"EXEC"}) == nil_array);
    srv.run(a, {"WATCH", "k"});
    srv.run(b, {"ZADD", "k", "5", "x"});
    CHECK(srv.run(a, {"UNWATCH"}) == ok);
    CHECK(srv.run(a, {"MULTI"}) == ok);
    CHECK(srv.run(a, {"EXEC"}) == "*0\r\n");
    // DISCARD also unwatches.
    srv.run(a, {"WATCH", "k"});
    srv.run(a, {"MULTI"});
    srv.run(a, {"DISCARD"});
    srv.run(b, {"ZADD", "k", "6", "x"});
    srv.run(a, {"MULTI"});
    CHECK(srv.run(a, {"EXEC"}) == "*0\r\n");
}

TEST_CASE("transactions: WATCH and expiry", "[redis][multi][expire]") {
    server srv;
    auto& a = srv.client();
    auto& b = srv.client();
    // A key that expires between WATCH and EXEC aborts the transaction (even untouched).
    srv.run(b, {"ZADD", "k", "1", "x"});
    srv.run(b, {"PEXPIRE", "k", "100"});
    srv.run(a, {"WATCH", "k"});
    srv.advance(101);
    srv.run(a, {"MULTI"});
    CHECK(srv.run(a, {"EXEC"}) == nil_array);
    // A key already expired when WATCHed: deleting it (by expiry) is no change.
    srv.run(b, {"ZADD", "e", "1", "x"});
    srv.run(b, {"PEXPIRE", "e", "10"});
    srv.advance(11);
    srv.run(a, {"WATCH", "e"});
    CHECK(srv.run(b, {"EXISTS", "e"}) == integer(0));  // deleted lazily
    srv.run(a, {"MULTI"});
    CHECK(srv.run(a, {"EXEC"}) == "*0\r\n");
}

TEST_CASE("transactions: EXEC runs its commands at one instant", "[redis][multi][expire]") {
    // A clock that moves 3 ms every time it is read: only EXEC's start reads it.
    auto t = std::make_shared<long long>(1700000000000LL);
    zset::redis::keyspace_options o;
    o.clock = [t] { return *t += 3; };
    server srv(o);
    auto& c = srv.client();
    srv.run(c, {"ZADD", "t", "1", "x"});
    srv.run(c, {"PEXPIRE", "t", "25"});  // alive at EXEC's start (18 ms later), not 30 ms later
    srv.run(c, {"MULTI"});
    for (int i = 0; i < 4; ++i) srv.run(c, {"ZCARD", "t"});
    CHECK(srv.run(c, {"EXEC"}) == "*4\r\n:1\r\n:1\r\n:1\r\n:1\r\n");
    *t += 10;
    CHECK(srv.run(c, {"ZCARD", "t"}) == integer(0));  // a later command sees it expired
}

TEST_CASE("transactions: a disconnected client's WATCH and MULTI are forgotten", "[redis][multi]") {
    server srv;
    auto& a = srv.client();
    srv.run(a, {"WATCH", "k"});
    srv.run(a, {"MULTI"});
    srv.run(a, {"ZADD", "k", "1", "x"});
    srv.ks.disconnect(a);
    CHECK_FALSE(a.multi.active);
    auto& b = srv.client();
    CHECK(srv.run(b, {"ZADD", "k", "1", "x"}) == integer(1));
    CHECK(srv.run(b, {"CLIENT", "LIST"}).find("id=" + std::to_string(a.id) + " ") ==
          std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Expiry
// ---------------------------------------------------------------------------------------------

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

TEST_CASE("expiry: a deadline at the end of time reads back rounded as Redis rounds it",
          "[redis][expire]") {
    // (t + 500) / 1000 must not overflow at t = LLONG_MAX: Redis 7.0.15 answers the rounded
    // quotient, 9223372036854776.
    server srv;
    auto& c = srv.client();
    srv.run(c, {"ZADD", "k", "1", "a"});
    CHECK(srv.run(c, {"PEXPIREAT", "k", "9223372036854775807"}) == integer(1));
    CHECK(srv.run(c, {"EXPIRETIME", "k"}) == integer(9223372036854776LL));
    CHECK(srv.run(c, {"PEXPIRETIME", "k"}) == integer(9223372036854775807LL));
    CHECK(srv.run(c, {"PEXPIREAT", "k", "9223372036854775000"}) == integer(1));
    CHECK(srv.run(c, {"EXPIRETIME", "k"}) == integer(9223372036854775LL));
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

// ---------------------------------------------------------------------------------------------
// Databases, introspection, access
// ---------------------------------------------------------------------------------------------

namespace {

/// Every key a full SCAN walk returns (cursor by cursor, `count` at a time).
std::set<std::string> scan_all(server& srv, zset::redis::session& c, const char* count) {
    std::set<std::string> keys;
    std::string cursor = "0";
    do {
        zset::redis::reply r;
        srv.ks.execute(std::vector<std::string>{"SCAN", cursor, "COUNT", count}, c, r);
        cursor = r.elements().at(0).text();
        for (const auto& k : r.elements().at(1).elements()) keys.insert(k.text());
    } while (cursor != "0");
    return keys;
}

}  // namespace

TEST_CASE("databases: SELECT, isolation, DBSIZE, FLUSHDB, FLUSHALL", "[redis][db]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"SELECT", "16"}) == error("ERR DB index is out of range"));
    CHECK(srv.run(c, {"SELECT", "-1"}) == error("ERR DB index is out of range"));
    CHECK(srv.run(c, {"SELECT", "x"}) == error("ERR value is not an integer or out of range"));
    CHECK(srv.run(c, {"SELECT", "4294967296"}) ==
          error("ERR value is out of range, value must between -2147483648 and 2147483647"));
    srv.run(c, {"ZADD", "k", "1", "zero"});
    CHECK(srv.run(c, {"SELECT", "15"}) == ok);
    CHECK(srv.run(c, {"ZSCORE", "k", "zero"}) == nil);
    srv.run(c, {"ZADD", "k", "2", "fifteen"});
    srv.run(c, {"SADD", "s", "x"});
    CHECK(srv.run(c, {"DBSIZE"}) == integer(2));
    CHECK(srv.ks.key_count(15) == 2);
    CHECK(srv.ks.find("k", 15)->score("fifteen") == 2.0);
    CHECK(srv.run(c, {"FLUSHDB"}) == ok);
    CHECK(srv.run(c, {"DBSIZE"}) == integer(0));
    CHECK(srv.ks.key_count(0) == 1);
    CHECK(srv.run(c, {"FLUSHDB", "ASYNC", "x"}) == error("ERR syntax error"));
    CHECK(srv.run(c, {"FLUSHALL", "SYNC"}) == ok);
    CHECK(srv.ks.key_count(0) == 0);
    // A configurable count.
    zset::redis::keyspace_options o;
    o.databases = 2;
    server small(o);
    auto& d = small.client();
    CHECK(small.run(d, {"SELECT", "1"}) == ok);
    CHECK(small.run(d, {"SELECT", "2"}) == error("ERR DB index is out of range"));
    CHECK(small.run(d, {"CONFIG", "GET", "databases"}) == "*2\r\n$9\r\ndatabases\r\n$1\r\n2\r\n");
    CHECK(small.run(d, {"CONFIG", "SET", "databases", "4"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                "immutable config"));
}

TEST_CASE("databases: SWAPDB, and blocked clients woken across it", "[redis][db][blocking]") {
    server srv;
    auto& c = srv.client();
    auto& waiter = srv.client();
    srv.run(c, {"ZADD", "a", "1", "in0"});
    CHECK(srv.run(c, {"SWAPDB", "0", "1"}) == ok);
    CHECK(srv.run(c, {"EXISTS", "a"}) == integer(0));
    CHECK(srv.ks.find("a", 1) != nullptr);
    CHECK(srv.run(c, {"SWAPDB", "0", "16"}) == error("ERR DB index is out of range"));
    CHECK(srv.run(c, {"SWAPDB", "x", "1"}) == error("ERR invalid first DB index"));
    CHECK(srv.run(c, {"SWAPDB", "1", "y"}) == error("ERR invalid second DB index"));
    CHECK(srv.run(c, {"SWAPDB", "3", "3"}) == ok);
    // A client blocked on q in database 0; q appears in database 1 and the databases swap.
    CHECK(srv.run(waiter, {"BZPOPMIN", "q", "0"}).empty());
    srv.run(c, {"SELECT", "1"});
    srv.run(c, {"SET", "q", "a string"});  // another type: wakes nobody, even when swapped in
    srv.run(c, {"SWAPDB", "0", "1"});
    CHECK(srv.delivered.empty());
    srv.run(c, {"SWAPDB", "0", "1"});
    srv.run(c, {"DEL", "q"});
    srv.run(c, {"ZADD", "q", "5", "m"});
    CHECK(srv.delivered.empty());  // database 1: not what it waits on
    srv.run(c, {"SWAPDB", "1", "0"});
    REQUIRE(srv.delivered.size() == 1);
    CHECK(srv.delivered[0] ==
          std::make_pair(waiter.id, std::string("*3\r\n$1\r\nq\r\n$1\r\nm\r\n$1\r\n5\r\n")));
}

TEST_CASE("databases: KEYS and SCAN", "[redis][db]") {
    server srv;
    auto& c = srv.client();
    std::set<std::string> all;
    for (int i = 0; i < 300; ++i) {
        const std::string k = "key:" + std::to_string(i);
        srv.run(c, {"SET", k, "v"});
        all.insert(k);
    }
    srv.run(c, {"ZADD", "zs", "1", "a"});
    srv.run(c, {"SADD", "st", "a"});
    all.insert("zs");
    all.insert("st");
    CHECK(scan_all(srv, c, "7") == all);
    CHECK(scan_all(srv, c, "1000") == all);
    CHECK(srv.run(c, {"KEYS", "key:1?"}).substr(0, 5) == "*10\r\n");
    CHECK(srv.run(c, {"SCAN", "0", "TYPE", "zset", "COUNT", "1000"}) ==
          "*2\r\n$1\r\n0\r\n*1\r\n$2\r\nzs\r\n");
    CHECK(srv.run(c, {"SCAN", "0", "MATCH", "s*", "COUNT", "1000"}) ==
          "*2\r\n$1\r\n0\r\n*1\r\n$2\r\nst\r\n");
    CHECK(srv.run(c, {"SCAN", "x"}) == error("ERR invalid cursor"));
    CHECK(srv.run(c, {"SCAN", "0", "COUNT", "0"}) == error("ERR syntax error"));
    // Every key present for the whole walk is returned, while others come and go.
    std::set<std::string> seen;
    std::string cursor = "0";
    int round = 0;
    do {
        zset::redis::reply r;
        srv.ks.execute(std::vector<std::string>{"SCAN", cursor, "COUNT", "5"}, c, r);
        cursor = r.elements().at(0).text();
        for (const auto& k : r.elements().at(1).elements()) seen.insert(k.text());
        srv.run(c, {"SET", "churn:" + std::to_string(round++), "v"});
        srv.run(c, {"DEL", "churn:" + std::to_string(round / 2)});
    } while (cursor != "0");
    for (const std::string& k : all) CHECK(seen.count(k) == 1);
}

TEST_CASE("introspection: INFO, MEMORY USAGE, CONFIG GET *, DEBUG RELOAD", "[redis][info]") {
    zset::redis::keyspace_options o;
    o.enable_debug_command = zset::redis::debug_access::yes;
    server srv(o);
    auto& c = srv.client();
    auto& blocked = srv.client();
    srv.run(blocked, {"BZPOPMIN", "nothing", "0"});
    srv.run(c, {"ZADD", "z", "1", "a", "2", "b"});
    srv.run(c, {"EXPIRE", "z", "100"});
    const std::string info = srv.run(c, {"INFO"});
    for (const char* field :
         {"# Server\r\n", "redis_version:7.2.0\r\n", "redis_mode:standalone\r\n", "# Clients\r\n",
          "connected_clients:2\r\n", "blocked_clients:1\r\n", "# Memory\r\n",
          "used_memory:", "# Stats\r\n", "total_commands_processed:", "# Keyspace\r\n",
          "db0:keys=1,expires=1,avg_ttl=100000\r\n"})
        CHECK(info.find(field) != std::string::npos);
    CHECK(srv.run(c, {"INFO", "clients", "KEYSPACE"}).find("# Server") == std::string::npos);
    CHECK(srv.run(c, {"INFO", "nosuch"}) == bulk(""));
    // MEMORY USAGE: the container's own accounting plus the key.
    zset::redis::reply mem;
    srv.ks.execute(std::vector<std::string>{"MEMORY", "USAGE", "z"}, c, mem);
    CHECK(mem.as_integer() > static_cast<long long>(srv.ks.find("z")->memory_usage()));
    CHECK(srv.run(c, {"MEMORY", "USAGE", "none"}) == nil);
    CHECK(srv.run(c, {"MEMORY", "USAGE", "z", "SAMPLES", "-1"}) == error("ERR syntax error"));
    // CONFIG GET * lists every parameter CONFIG SET knows.
    zset::redis::reply all;
    srv.ks.execute(std::vector<std::string>{"CONFIG", "GET", "*"}, c, all);
    std::set<std::string> names;
    for (std::size_t i = 0; i < all.elements().size(); i += 2)
        names.insert(all.elements()[i].text());
    for (const char* p :
         {"zset-max-listpack-entries", "zset-max-ziplist-entries", "zset-max-listpack-value",
          "zset-max-ziplist-value", "set-max-intset-entries", "databases", "requirepass",
          "protected-mode", "enable-debug-command", "save", "appendonly", "hz", "maxclients",
          "port", "bind"})
        CHECK(names.count(p) == 1);
    CHECK(srv.run(c, {"CONFIG", "SET", "a", "b", "c"}) == error("ERR syntax error"));
    CHECK(srv.run(c, {"CONFIG", "SET", "ZSET-MAX-ZIPLIST-ENTRIES", "x"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'zset-max-ziplist-entries') "
                "- argument couldn't be parsed into an integer"));
    // DEBUG RELOAD: every key through the DUMP codec; encodings follow the loading rules.
    srv.run(c, {"CONFIG", "SET", "zset-max-listpack-entries", "0"});
    srv.run(c, {"ZADD", "big", "-0", "a"});  // created as a skiplist: keeps -0
    srv.run(c, {"CONFIG", "SET", "zset-max-listpack-entries", "128"});
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "big"}) == bulk("skiplist"));
    CHECK(srv.run(c, {"ZSCORE", "big", "a"}) == bulk("-0"));
    CHECK(srv.run(c, {"DEBUG", "RELOAD"}) == ok);
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "big"}) == bulk("listpack"));
    CHECK(srv.run(c, {"ZSCORE", "big", "a"}) == bulk("0"));
    CHECK(srv.run(c, {"TTL", "z"}) == integer(100));
    CHECK(srv.run(c, {"DEBUG", "RELOAD", "junk"}) ==
          error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."));
    CHECK(srv.run(c, {"DEBUG", "nosuch"}) ==
          error("ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG "
                "HELP."));
}

TEST_CASE("introspection: DEBUG is protected as in Redis 7.0", "[redis][info]") {
    server srv;  // enable-debug-command no (the default)
    auto& c = srv.client();
    CHECK(srv.run(c, {"DEBUG", "RELOAD"}) ==
          error("ERR DEBUG command not allowed. If the enable-debug-command option is set to "
                "\"local\", you can run it from a local connection, otherwise you need to set "
                "this option in the configuration file, and then restart the server."));
    zset::redis::keyspace_options o;
    o.enable_debug_command = zset::redis::debug_access::local;
    server local(o);
    auto& near = local.client();
    auto& far = local.client({"10.0.0.2:4000", "10.0.0.1:6379", 9, false});
    CHECK(local.run(near, {"DEBUG", "SLEEP", "0"}) == ok);
    CHECK(local.run(far, {"DEBUG", "SLEEP", "0"}).substr(0, 31) ==
          "-ERR DEBUG command not allowed.");
}

TEST_CASE("clients: ID, SETNAME, GETNAME, INFO, LIST, KILL", "[redis][client]") {
    server srv;
    auto& a = srv.client({"127.0.0.1:1111", "127.0.0.1:6379", 5, true});
    auto& b = srv.client({"127.0.0.1:2222", "127.0.0.1:6379", 6, true});
    CHECK(srv.run(a, {"CLIENT", "ID"}) == integer(a.id));
    CHECK(srv.run(a, {"CLIENT", "GETNAME"}) == nil);
    CHECK(srv.run(a, {"CLIENT", "SETNAME", "worker-1"}) == ok);
    CHECK(srv.run(a, {"CLIENT", "GETNAME"}) == bulk("worker-1"));
    CHECK(srv.run(a, {"CLIENT", "SETNAME", "a b"}) ==
          error("ERR Client names cannot contain spaces, newlines or special characters."));
    CHECK(srv.run(a, {"CLIENT", "SETNAME"}) ==
          error("ERR wrong number of arguments for 'client|setname' command"));
    const std::string list = srv.run(b, {"CLIENT", "LIST"});
    CHECK(list.find("id=" + std::to_string(a.id) +
                    " addr=127.0.0.1:1111 laddr=127.0.0.1:6379 "
                    "fd=5 name=worker-1 ") != std::string::npos);
    CHECK(list.find("name= ") != std::string::npos);  // b has no name
    CHECK(list.find("cmd=client|list") != std::string::npos);
    srv.run(a, {"MULTI"});
    srv.run(a, {"PING"});
    CHECK(srv.run(b, {"CLIENT", "INFO"}).find("flags=N") != std::string::npos);
    CHECK(srv.run(b, {"CLIENT", "LIST", "ID", std::to_string(a.id)})
              .find("flags=x db=0 "
                    "sub=0 psub=0 "
                    "ssub=0 multi=1") != std::string::npos);
    CHECK(srv.run(b, {"CLIENT", "LIST", "TYPE", "foo"}) == error("ERR Unknown client type 'foo'"));
    CHECK(srv.run(b, {"CLIENT", "KILL", "ID", "0"}) ==
          error("ERR client-id should be greater than 0"));
    CHECK(srv.run(b, {"CLIENT", "KILL", "9.9.9.9:9"}) == error("ERR No such client"));
    CHECK(srv.run(b, {"CLIENT", "KILL", "ID", std::to_string(b.id)}) == integer(0));  // SKIPME
    CHECK(srv.run(b, {"CLIENT", "KILL", "ADDR", "127.0.0.1:1111"}) == integer(1));
    CHECK(srv.ks.take_killed() == std::vector<long long>{a.id});
    CHECK(srv.ks.take_killed().empty());
    // The old form may kill the caller: it gets its reply, then the server closes it.
    std::string out;
    const auto r =
        srv.ks.execute(std::vector<std::string>{"CLIENT", "KILL", "127.0.0.1:2222"}, b, out);
    CHECK(out == ok);
    CHECK(r.status == zset::redis::exec_status::quit);
    CHECK(srv.run(b, {"CLIENT", "NOSUCH"}) ==
          error("ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP."));
}

TEST_CASE("access: requirepass, AUTH, HELLO AUTH, RESET", "[redis][auth]") {
    server srv;
    auto& admin = srv.client();
    CHECK(srv.run(admin, {"AUTH", "x"}) ==
          error("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
    CHECK(srv.run(admin, {"AUTH", "default", "anything"}) == ok);  // no password: any works
    CHECK(srv.run(admin, {"CONFIG", "SET", "requirepass", "s3cret"}) == ok);
    CHECK(srv.run(admin, {"ZADD", "k", "1", "a"}) == integer(1));  // connected before: stays in
    auto& c = srv.client();
    CHECK(srv.ks.auth_required(c));
    const std::string noauth = error("NOAUTH Authentication required.");
    CHECK(srv.run(c, {"ZCARD", "k"}) == noauth);
    CHECK(srv.run(c, {"NOSUCH"}) == error("ERR unknown command 'NOSUCH', with args beginning "
                                          "with: "));  // lookup comes first
    CHECK(srv.run(c, {"HELLO", "3"}) ==
          error("NOAUTH HELLO must be called with the client already authenticated, otherwise "
                "the HELLO AUTH <user> <pass> option can be used to authenticate the client and "
                "select the RESP protocol version at the same time"));
    CHECK(c.proto == zset::redis::protocol::resp2);
    CHECK(srv.run(c, {"AUTH", "wrong"}) ==
          error("WRONGPASS invalid username-password pair or user is disabled."));
    CHECK(srv.run(c, {"AUTH", "admin", "s3cret"}) ==
          error("WRONGPASS invalid username-password pair or user is disabled."));
    CHECK(srv.run(c, {"AUTH", "a", "b", "c"}) == error("ERR syntax error"));
    CHECK(srv.run(c, {"MULTI"}) == noauth);
    CHECK(srv.run(c, {"AUTH", "s3cret"}) == ok);
    CHECK(srv.run(c, {"ZCARD", "k"}) == integer(1));
    auto& d = srv.client();
    CHECK(srv.run(d, {"HELLO", "3", "AUTH", "default", "nope"}) ==
          error("WRONGPASS invalid username-password pair or user is disabled."));
    CHECK(srv.run(d, {"HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "n1"}).substr(0, 2) ==
          "%7");
    CHECK(d.proto == zset::redis::protocol::resp3);
    CHECK(d.name == "n1");
    CHECK(srv.run(d, {"RESET"}) == "+RESET\r\n");
    CHECK(d.proto == zset::redis::protocol::resp2);
    CHECK(srv.run(d, {"ZCARD", "k"}) == noauth);  // RESET signs out
    CHECK(srv.run(d, {"QUIT"}) == ok);
}

TEST_CASE("access: protected mode refuses non-loopback clients without a password",
          "[redis][auth]") {
    server srv;
    const zset::redis::client_info local{"127.0.0.1:1", "127.0.0.1:6379", 3, true};
    const zset::redis::client_info remote{"192.0.2.9:1", "192.0.2.2:6379", 4, false};
    CHECK(srv.ks.refusal(local).empty());
    CHECK(srv.ks.refusal(remote).substr(0, 50) ==
          "DENIED Redis is running in protected mode because ");
    auto& c = srv.client();
    CHECK(srv.run(c, {"CONFIG", "SET", "protected-mode", "no"}) == ok);
    CHECK(srv.ks.refusal(remote).empty());
    srv.run(c, {"CONFIG", "SET", "protected-mode", "yes"});
    srv.run(c, {"CONFIG", "SET", "requirepass", "pw"});
    CHECK(srv.ks.refusal(remote).empty());  // a password is set: AUTH protects instead
    CHECK(srv.run(c, {"INFO", "stats"}).find("rejected_connections:1") != std::string::npos);
}

// ---- server_rules: the answers of the server a keyspace follows ---------------------------------
// Expectations from redis-server 7.0.15 (Debian) and from redis-server / valkey-server built from
// their unstable trees (255.255.255), each against its own native sorted sets.

namespace {
zr::keyspace_options rules_of(zr::server_family family, unsigned version) {
    zr::keyspace_options o;
    o.rules = zr::server_rules::of(family, version);
    return o;
}
}  // namespace

TEST_CASE("server_rules::of: which server has which rule", "[redis][rules]") {
    const auto redis = zr::server_family::redis, valkey = zr::server_family::valkey;
    const auto r70 = zr::server_rules::of(redis, 0x07000f),
               r72 = zr::server_rules::of(redis, 0x070200);
    const auto r74 = zr::server_rules::of(redis, 0x070400),
               r8 = zr::server_rules::of(redis, 0xffffff);
    const auto v72 = zr::server_rules::of(valkey, 0x070204),
               v8 = zr::server_rules::of(valkey, 0x080001);
    CHECK(r70.scores == zr::score_syntax::strtod);
    CHECK(r74.scores == zr::score_syntax::strtod);
    CHECK(r8.scores == zr::score_syntax::fast_float);
    CHECK(v8.scores == zr::score_syntax::strtod);
    CHECK_FALSE(r72.negative_offset_from_end);
    CHECK(r74.negative_offset_from_end);
    CHECK_FALSE(v72.negative_offset_from_end);
    CHECK(v8.negative_offset_from_end);
    CHECK_FALSE(r70.timeout_overflow_is_range_error);
    CHECK(r72.timeout_overflow_is_range_error);
    CHECK(r70.zadd_hint == zr::zadd_encoding_hint::none);
    CHECK(r8.zadd_hint == zr::zadd_encoding_hint::pair_count);
    CHECK(v72.zadd_hint == zr::zadd_encoding_hint::pair_count);
    CHECK(v8.zadd_hint == zr::zadd_encoding_hint::pair_count_and_length);
    CHECK_FALSE(r72.scan_cursor_string2ull);
    CHECK(r74.scan_cursor_string2ull);
    CHECK(v8.scan_cursor_string2ull);
    CHECK_FALSE(r70.rank_withscore);
    CHECK(r72.rank_withscore);
    CHECK(v72.rank_withscore);
}

TEST_CASE("server_rules: a negative LIMIT offset counts from the range's end on a skiplist",
          "[redis][rules]") {
    for (const bool newer : {false, true}) {
        server srv(rules_of(zr::server_family::redis, newer ? 0x070400 : 0x07000f));
        auto& c = srv.client();
        srv.run(c, {"ZADD", "lp", "1", "a", "2", "b", "3", "c", "4", "d"});
        srv.run(c, {"CONFIG", "SET", "zset-max-listpack-entries", "0"});
        srv.run(c, {"ZADD", "sk", "1", "a", "2", "b", "3", "c", "4", "d"});
        REQUIRE(srv.run(c, {"OBJECT", "ENCODING", "sk"}) == bulk("skiplist"));
        REQUIRE(srv.run(c, {"OBJECT", "ENCODING", "lp"}) == bulk("listpack"));
        const std::string none = "*0\r\n";
        // a listpack walk steps past the end on every server
        CHECK(srv.run(c, {"ZRANGEBYSCORE", "lp", "1", "3", "LIMIT", "-1", "5"}) == none);
        const std::string fwd = srv.run(c, {"ZRANGEBYSCORE", "sk", "1", "3", "LIMIT", "-2", "5"});
        const std::string rev =
            srv.run(c, {"ZREVRANGEBYSCORE", "sk", "3", "1", "LIMIT", "-1", "5"});
        const std::string lex =
            srv.run(c, {"ZRANGE", "sk", "[a", "[d", "BYLEX", "LIMIT", "-3", "1"});
        const std::string past = srv.run(c, {"ZRANGEBYSCORE", "sk", "1", "3", "LIMIT", "-4", "5"});
        if (newer) {
            CHECK(fwd == "*2\r\n" + bulk("b") + bulk("c"));
            CHECK(rev == "*1\r\n" + bulk("a"));
            CHECK(lex == "*1\r\n" + bulk("b"));
        } else {
            CHECK(fwd == none);
            CHECK(rev == none);
            CHECK(lex == none);
        }
        CHECK(past == none);
    }
}

TEST_CASE("server_rules: fast_float scores, cursors, timeouts and ZADD's encoding choice",
          "[redis][rules]") {
    server r70(rules_of(zr::server_family::redis, 0x07000f));
    server r8(rules_of(zr::server_family::redis, 0xffffff));
    server v8(rules_of(zr::server_family::valkey, 0x080000));
    auto& a = r70.client();
    auto& b = r8.client();
    auto& v = v8.client();
    CHECK(r70.run(a, {"ZADD", "k", "0x10", "m"}) == integer(1));
    CHECK(r70.run(a, {"ZRANK", "k", "m"}) == integer(0));
    CHECK(r8.run(b, {"ZADD", "k", "0x10", "m"}) == "-ERR value is not a valid float\r\n");
    CHECK(r8.run(b, {"ZADD", "k", "1e400", "m"}) == integer(1));
    CHECK(r8.run(b, {"ZCOUNT", "k", " 1", "2"}) == "-ERR min or max is not a float\r\n");
    // ZSCAN cursors
    CHECK(r70.run(a, {"ZSCAN", "k", ""}).rfind("*2\r\n$1\r\n0\r\n", 0) == 0);
    CHECK(r8.run(b, {"ZSCAN", "k", ""}) == "-ERR invalid cursor\r\n");
    CHECK(r70.run(a, {"ZSCAN", "k", "-1"}).rfind("*2\r\n", 0) == 0);
    CHECK(r8.run(b, {"ZSCAN", "k", "-1"}) == "-ERR invalid cursor\r\n");
    CHECK(r70.run(a, {"ZSCAN", "k", " 1"}) == "-ERR invalid cursor\r\n");
    CHECK(r8.run(b, {"ZSCAN", "k", " 1"}).rfind("*2\r\n", 0) == 0);
    // a timeout past LLONG_MAX milliseconds (1e300 s: within every platform's long double,
    // unlike 1e400, which overflows ppc64's double-double as it overflows a double)
    CHECK(r70.run(a, {"BZPOPMIN", "k", "1e300"}) == "-ERR timeout is negative\r\n");
    CHECK(r8.run(b, {"BZPOPMIN", "k", "1e300"}) == "-ERR timeout is out of range\r\n");
    // ZRANK ... WITHSCORE is 7.2's
    CHECK(r70.run(a, {"ZRANK", "k", "m", "WITHSCORE"}) ==
          "-ERR wrong number of arguments for 'zrank' command\r\n");
    CHECK(r8.run(b, {"ZRANK", "k", "m", "WITHSCORE"}) == "*2\r\n:0\r\n" + bulk("inf"));
    // ZADD's encoding choice: -0 passes through a listpack (an integer there) on 7.0 only
    for (server* s : {&r70, &r8, &v8})
        s->run(s == &r70  ? a
               : s == &r8 ? b
                          : v,
               {"CONFIG", "SET", "zset-max-listpack-entries", "1"});
    const std::vector<std::string> add = {"ZADD", "n", "-0", "x", "1", "y"};
    r70.run(a, add);
    r8.run(b, add);
    CHECK(r70.run(a, {"ZSCORE", "n", "x"}) == bulk("0"));
    CHECK(r8.run(b, {"ZSCORE", "n", "x"}) == bulk("-0"));
    // Valkey 8 also weighs every member's length: a long second member makes a new key skiplist
    for (server* s : {&r8, &v8})
        s->run(s == &r8 ? b : v, {"CONFIG", "SET", "zset-max-listpack-value", "3"});
    const std::vector<std::string> longer = {"ZADD", "w", "-0", "x", "1", "long"};
    r8.run(b, {"CONFIG", "SET", "zset-max-listpack-entries", "5"});
    v8.run(v, {"CONFIG", "SET", "zset-max-listpack-entries", "5"});
    r8.run(b, longer);
    v8.run(v, longer);
    CHECK(r8.run(b, {"ZSCORE", "w", "x"}) == bulk("0"));
    CHECK(v8.run(v, {"ZSCORE", "w", "x"}) == bulk("-0"));
}
