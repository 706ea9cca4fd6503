// A delayed job queue: jobs are members, their due time is the score, and a worker pops
// whatever is due (ZADD, ZRANGEBYSCORE -inf now, ZPOPMIN). The clock is simulated: the
// worker is driven by a loop of ticks instead of sleeping.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include <zset/zset.hpp>

namespace {

using seconds = std::int64_t;
using queue_type = zset::sorted_set<std::string, seconds>;  // job -> due time
using bound = zset::score_bound<seconds>;

// ZADD queue LT due job: a new job is queued; a job asked for twice keeps the earlier time.
void schedule(queue_type& queue, const std::string& job, seconds due) {
    const zset::add_status st = queue.add(job, due, zset::add_flags::lt);
    const char* what = st == zset::add_status::added     ? "queued"
                       : st == zset::add_status::updated ? "moved earlier"
                                                         : "kept its earlier time";
    std::printf("  schedule %-14s at %3" PRId64 " s: %s\n", job.c_str(), due, what);
}

// Stand-in for real work: the daily report fails on its first attempt.
bool run(const std::string& job, std::set<std::string>& attempted) {
    const bool first_attempt = attempted.insert(job).second;
    return !(job == "report:daily" && first_attempt);
}

}  // namespace

int main() {
    queue_type queue;
    std::set<std::string> attempted;

    std::printf("t=0 s: producers\n");
    schedule(queue, "email:welcome", 5);
    schedule(queue, "report:daily", 20);
    schedule(queue, "cache:warm", 0);
    schedule(queue, "email:digest", 20);
    schedule(queue, "cleanup", 45);
    schedule(queue, "email:welcome", 15);  // later than queued: ignored
    schedule(queue, "report:daily", 10);   // earlier: moves up

    for (seconds now = 0; now <= 50; now += 10) {
        if (now == 30 && queue.erase("cleanup"))  // ZREM: cancelled before it ran
            std::printf("t=30 s: cancelled cleanup\n");

        // Everything due: ZCOUNT queue -inf now, then ZPOPMIN queue count. Popping is what
        // claims a job (oldest first), and the popped pairs are owned copies, so a failed job
        // can go straight back into the queue inside the loop.
        const std::size_t due = queue.count({bound::lowest(), bound::inclusive(now)});
        std::printf("t=%" PRId64 " s: %zu due\n", now, due);
        for (const auto& [job, due_at] : queue.pop_min(due)) {
            if (run(job, attempted)) {
                std::printf("  ran %-14s (due %" PRId64 " s, %" PRId64 " s late)\n", job.c_str(),
                            due_at, now - due_at);
            } else {
                std::printf("  %s failed: retry in 30 s\n", job.c_str());
                schedule(queue, job, now + 30);
            }
        }

        // ZRANGEBYSCORE queue (now now+30: a look ahead, without claiming anything.
        std::printf("  next 30 s:");
        for (const auto& e :
             queue.range_by_score({bound::exclusive_of(now), bound::inclusive(now + 30)}))
            std::printf(" %.*s@%" PRId64, static_cast<int>(e.member.size()), e.member.data(),
                        e.score);
        std::printf("%s\n", queue.empty() ? " (queue empty)" : "");
    }
    return 0;
}
