// Helpers shared by the Redis-layer tests (tests/redis/test_server_behaviour.cpp and
// test_keyspace.cpp, tests/reliability/test_portability.cpp): a keyspace on a fake clock,
// sessions, and commands run as RESP2 bytes.
#ifndef ZSET_TESTS_REDIS_TEST_SUPPORT_HPP
#define ZSET_TESTS_REDIS_TEST_SUPPORT_HPP

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zset/redis.hpp>

namespace redis_test {

namespace zr = zset::redis;

/// A keyspace whose clock only moves when the test says so, with connected sessions.
struct server {
    std::shared_ptr<long long> clock = std::make_shared<long long>(1700000000000LL);
    zr::keyspace ks;
    std::vector<std::unique_ptr<zr::session>> sessions;
    /// Replies delivered to blocked clients: (session id, bytes).
    std::vector<std::pair<long long, std::string>> delivered;

    explicit server(zr::keyspace_options o = {}) : ks(with_clock(std::move(o), clock)) {}

    static zr::keyspace_options with_clock(zr::keyspace_options o, std::shared_ptr<long long> t) {
        if (!o.clock) o.clock = [t] { return *t; };
        return o;
    }

    /// A new connected session (a client), RESP2, loopback.
    zr::session& client(zr::client_info info = {"127.0.0.1:50000", "127.0.0.1:6379", 7, true}) {
        sessions.push_back(std::make_unique<zr::session>());
        ks.connect(*sessions.back(), std::move(info));
        return *sessions.back();
    }

    /// Runs argv in session s; returns the RESP2/RESP3 bytes (empty when it blocked).
    std::string run(zr::session& s, std::vector<std::string> argv) {
        std::string out;
        ks.execute(argv, s, out);
        ks.serve_blocked([this](zr::session& who, std::string_view bytes) {
            delivered.emplace_back(who.id, std::string(bytes));
        });
        return out;
    }

    /// Moves the clock by ms milliseconds.
    void advance(long long ms) { *clock += ms; }

    /// Runs cron (active expiry, blocked timeouts), delivering into `delivered`.
    std::size_t cron() {
        return ks.cron([this](zr::session& who, std::string_view bytes) {
            delivered.emplace_back(who.id, std::string(bytes));
        });
    }
};

/// Executes argv in session s and returns the RESP bytes.
inline std::string exec(zr::keyspace& ks, zr::session& s, std::vector<std::string> argv) {
    std::string out;
    ks.execute(argv, s, out);
    return out;
}
/// Executes argv in a fresh RESP2 session that may not block.
inline std::string exec(zr::keyspace& ks, std::vector<std::string> argv) {
    zr::session s;
    s.allow_blocking = false;
    return exec(ks, s, std::move(argv));
}

inline std::string integer(long long v) {
    return ":" + std::to_string(v) + "\r\n";
}
inline std::string bulk(std::string_view s) {
    return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
inline std::string error(std::string_view s) {
    return "-" + std::string(s) + "\r\n";
}
inline const std::string ok = "+OK\r\n";
inline const std::string queued = "+QUEUED\r\n";
inline const std::string nil = "$-1\r\n";
inline const std::string nil_array = "*-1\r\n";

}  // namespace redis_test

#endif  // ZSET_TESTS_REDIS_TEST_SUPPORT_HPP
