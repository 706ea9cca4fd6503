// Concurrent use of the Redis layer, for ThreadSanitizer (issue 10, item 5).
//
// The contract (stated in each header): const member functions may run concurrently with each
// other (like the standard containers); distinct objects are independent; non-const calls need
// exclusive access. These tests run const calls on shared objects, and whole keyspaces,
// parsers and codecs per thread, from several threads at once. Built into a separate binary
// with -fsanitize=thread (tests/threads/CMakeLists.txt, the `tsan` leg).
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "zset_catch.hpp"
#include <zset/dump.hpp>
#include <zset/rdb.hpp>
#include <zset/redis.hpp>

namespace {

constexpr int thread_count = 4;

/// Runs body(thread index) on thread_count threads at once and joins them.
template <class Body>
void in_parallel(Body body) {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t) {
        threads.emplace_back([&, t] {
            ++ready;
            while (ready.load() < thread_count) std::this_thread::yield();
            body(t);
        });
    }
    for (auto& th : threads) th.join();
}

std::string key_name(int i) {
    // Longer than any small-string buffer, so a shared lookup buffer would be reallocated.
    return "a-key-name-long-enough-to-need-the-heap:" + std::to_string(i);
}

/// A keyspace holding 200 keys (built once, then only read).
const zset::redis::keyspace& filled_keyspace() {
    static zset::redis::keyspace ks;
    static const bool filled = [] {
        zset::redis::session s;
        std::string out;
        for (int i = 0; i < 200; ++i)
            ks.execute(std::vector<std::string>{"ZADD", key_name(i), std::to_string(i), "m"}, s,
                       out);
        return true;
    }();
    (void)filled;
    return ks;
}

}  // namespace

TEST_CASE("keyspace: concurrent const calls on one keyspace", "[threads]") {
    const zset::redis::keyspace& ks = filled_keyspace();
    std::atomic<long> found{0};
    in_parallel([&](int t) {
        long local = 0;
        for (int round = 0; round < 50; ++round) {
            for (int i = 0; i < 200; ++i) {
                const auto* set = ks.find(key_name((i + t * 37) % 200));
                if (set != nullptr && set->score("m") == static_cast<double>((i + t * 37) % 200))
                    ++local;
            }
            local -= ks.find("missing") == nullptr ? 0 : 1000000;
            local -= ks.key_count() == 200 ? 0 : 1000000;
            local -= ks.options().zset_max_listpack_entries == 128 ? 0 : 1000000;
        }
        found += local;
    });
    CHECK(found.load() == 200L * 50 * thread_count);
}

TEST_CASE("keyspace: one keyspace per thread needs no locking", "[threads]") {
    std::atomic<int> ok{0};
    in_parallel([&](int t) {
        zset::redis::keyspace ks;
        zset::redis::session s;
        std::string out;
        for (int i = 0; i < 300; ++i) {
            out.clear();
            ks.execute(std::vector<std::string>{"ZADD", "k", std::to_string(i + t), key_name(i)}, s,
                       out);
        }
        zset::redis::reply r;
        ks.execute(std::vector<std::string>{"ZRANGE", "k", "0", "2", "WITHSCORES"}, s, r);
        ks.execute(std::vector<std::string>{"DUMP", "k"}, s, r);
        zset::redis::reply restored;
        ks.execute(std::vector<std::string>{"RESTORE", "copy", "0", r.text()}, s, restored);
        if (restored == zset::redis::reply::simple("OK") && ks.find("copy")->size() == 300) ++ok;
    });
    CHECK(ok.load() == thread_count);
}

TEST_CASE("RESP: parsers per thread, one shared reply encoded concurrently", "[threads]") {
    using zset::redis::reply;
    const reply shared = reply::array({reply::bulk("member"), reply::dbl(0.1), reply::integer(7)});
    std::atomic<int> ok{0};
    in_parallel([&](int t) {
        zset::redis::request_parser parser;
        std::string wire;
        for (int i = 0; i < 100; ++i)
            wire += "*2\r\n$4\r\nECHO\r\n$3\r\n" + std::to_string(100 + t) + "\r\n";
        parser.feed(wire);
        int commands = 0;
        zset::redis::request_parser::command cmd;
        while (parser.next(cmd)) commands += cmd.size() == 2 ? 1 : 0;
        std::string a, b;
        zset::redis::encode_resp2(shared, a);
        zset::redis::encode_resp3(shared, b);
        if (commands == 100 && a == "*3\r\n$6\r\nmember\r\n$3\r\n0.1\r\n:7\r\n" &&
            b == "*3\r\n$6\r\nmember\r\n,0.1\r\n:7\r\n")
            ++ok;
    });
    CHECK(ok.load() == thread_count);
}

TEST_CASE("DUMP codec: concurrent dumps and restores of shared inputs", "[threads]") {
    zset::sorted_set<> set;
    for (int i = 0; i < 500; ++i) set.add(key_name(i), i * 0.5);
    const zset::sorted_set<>& shared = set;
    const std::string payload = zset::dump(shared);
    std::atomic<int> ok{0};
    in_parallel([&](int) {
        bool good = true;
        for (int round = 0; round < 10; ++round) {
            good = good && zset::dump(shared) == payload;
            good = good && zset::restore<zset::sorted_set<>>(payload) == shared;
            const auto r = zset::rdb::try_restore_payload(payload);
            good = good && r.ok() && r.elements.size() == 500;
            good = good && !zset::rdb::try_restore_payload(payload.substr(1)).ok();
        }
        if (good) ++ok;
    });
    CHECK(ok.load() == thread_count);
}
