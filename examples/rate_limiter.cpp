// A sliding-window rate limiter: at most `limit` requests per client in any `window` ms.
//
// Each client has a sorted set of its recent requests scored by their timestamp, the Redis
// pattern ZREMRANGEBYSCORE + ZCARD + ZADD. Unlike a fixed window (a counter reset every
// second), it never lets a burst straddling a window boundary through at twice the rate.
// Time is passed in, so the limiter is testable with a simulated clock.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include <zset/zset.hpp>

namespace {

class sliding_window_limiter {
public:
    using log_type = zset::sorted_set<std::string, std::int64_t>;  // request id -> time (ms)
    using bound = zset::score_bound<std::int64_t>;

    struct decision {
        bool allowed;
        std::size_t used;          // requests in the window, this one included if allowed
        std::int64_t retry_in_ms;  // when denied: until the oldest request leaves the window
    };

    sliding_window_limiter(std::size_t limit, std::int64_t window_ms)
        : limit_(limit), window_ms_(window_ms) {}

    decision request(const std::string& client, std::int64_t now_ms) {
        log_type& log = logs_[client];
        // ZREMRANGEBYSCORE log -inf now-window: a request exactly `window` old has expired.
        log.erase_range_by_score({bound::lowest(), bound::inclusive(now_ms - window_ms_)});
        if (log.size() >= limit_) {
            const std::int64_t oldest = log.begin()->score;
            return {false, log.size(), oldest + window_ms_ - now_ms};
        }
        // Two requests can share a millisecond, so the member is a unique id, not the time.
        log.add("req-" + std::to_string(next_id_++), now_ms);
        return {true, log.size(), 0};
    }

    // ZCOUNT log (now-window now: a read-only look that leaves expired entries in place.
    std::size_t usage(const std::string& client, std::int64_t now_ms) const {
        const auto it = logs_.find(client);
        if (it == logs_.end()) return 0;
        return it->second.count(
            {bound::exclusive_of(now_ms - window_ms_), bound::inclusive(now_ms)});
    }

private:
    std::size_t limit_;
    std::int64_t window_ms_;
    std::uint64_t next_id_ = 0;
    std::map<std::string, log_type> logs_;
};

}  // namespace

int main() {
    sliding_window_limiter limiter(3, 1000);  // 3 requests per second per client

    struct event {
        std::int64_t at_ms;
        const char* client;
    };
    const event timeline[] = {
        {0, "alice"},    {100, "alice"}, {200, "bob"},    {250, "alice"},
        {300, "alice"},  {900, "alice"}, {1000, "alice"}, {1050, "alice"},
        {1100, "alice"}, {1150, "bob"},  {1251, "alice"}, {1300, "alice"},
    };
    for (const event& e : timeline) {
        const auto d = limiter.request(e.client, e.at_ms);
        std::printf("t=%5" PRId64 " ms  %-5s  %s  (%zu/3 in window", e.at_ms, e.client,
                    d.allowed ? "allowed" : "denied ", d.used);
        if (!d.allowed) std::printf(", retry in %" PRId64 " ms", d.retry_in_ms);
        std::printf(")\n");
    }
    std::printf("alice's usage at t=2000 ms: %zu, at t=2200 ms: %zu\n",
                limiter.usage("alice", 2000), limiter.usage("alice", 2200));
    return 0;
}
