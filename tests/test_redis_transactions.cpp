// MULTI / EXEC / DISCARD / WATCH / UNWATCH on zset::redis::keyspace. Expected replies are
// redis-server 7.0.15's (also compared live by tests/differential).
#include <memory>
#include <string>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"

using namespace redis_test;

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
