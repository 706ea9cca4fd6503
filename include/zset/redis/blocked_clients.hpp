// zset::redis::detail::blocked_clients — the clients waiting in BZPOPMIN / BZPOPMAX / BZMPOP.
// SPDX-License-Identifier: MIT
//
// For each blocked session: the command to run again, the (database, key) pairs it waits on and
// its deadline. For each waited key: the sessions in arrival order (first come, first served).
// Keys that may let a waiter proceed are queued as "ready" (Redis's signalKeyAsReady); the
// keyspace re-runs the waiters of each ready key that holds a sorted set when it is served.
//
// Exception guarantee: strong (std::bad_alloc only). Thread safety: needs exclusive access.
#ifndef ZSET_REDIS_BLOCKED_CLIENTS_HPP
#define ZSET_REDIS_BLOCKED_CLIENTS_HPP

#include <algorithm>
#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "session.hpp"
#include "watch_table.hpp"

namespace zset::redis::detail {

class blocked_clients {
public:
    /// What a blocked session waits in.
    struct waiter {
        session* sess = nullptr;
        std::vector<std::string> argv;  ///< the command, run again when a key is ready
        std::vector<db_key> keys;       ///< distinct keys waited on
        long long deadline = 0;         ///< Unix ms; 0 = no timeout
    };

    /// Registers `s` as blocked (replaces a previous registration of the same session).
    void block(session& s, std::vector<std::string> argv, std::vector<db_key> keys,
               long long deadline) {
        unblock(s.id);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (const db_key& k : keys) queues_[k].push_back(s.id);
        waiters_[s.id] = waiter{&s, std::move(argv), std::move(keys), deadline};
        s.blocked = true;
    }

    /// Forgets a blocked session (served, timed out, disconnected). No-throw.
    void unblock(long long id) noexcept {
        const auto it = waiters_.find(id);
        if (it == waiters_.end()) return;
        for (const db_key& k : it->second.keys)
            remove_from_index(queues_, k, [id](long long x) { return x == id; });
        it->second.sess->blocked = false;
        waiters_.erase(it);
    }

    waiter* find(long long id) noexcept {
        const auto it = waiters_.find(id);
        return it == waiters_.end() ? nullptr : &it->second;
    }
    std::size_t size() const noexcept { return waiters_.size(); }
    /// How many distinct keys are waited on (INFO total_blocking_keys). O(1).
    std::size_t key_count() const noexcept { return queues_.size(); }
    /// How many waiters have a timeout (INFO clients_in_timeout_table). O(n).
    std::size_t with_timeout() const noexcept {
        std::size_t n = 0;
        for (const auto& kv : waiters_) n += kv.second.deadline != 0 ? 1 : 0;
        return n;
    }

    /// A key received a value: queue it as ready when someone waits on it.
    void signal(int db, std::string_view key) {
        if (queues_.empty()) return;
        db_key k{db, std::string(key)};
        if (queues_.count(k) == 0 || ready_set_.count(k) != 0) return;
        ready_set_.insert(k);
        ready_.push_back(std::move(k));
    }

    bool has_ready() const noexcept { return !ready_.empty(); }

    /// The ready keys in the order they became ready, forgotten afterwards.
    std::vector<db_key> take_ready() noexcept {
        ready_set_.clear();
        return std::exchange(ready_, {});
    }

    /// Ids of the sessions waiting on `k`, oldest first (a copy: serving changes the queue).
    std::vector<long long> waiting_on(const db_key& k) const {
        const auto q = queues_.find(k);
        if (q == queues_.end()) return {};
        return std::vector<long long>(q->second.begin(), q->second.end());
    }

    /// Every key waited on in database `db` (SWAPDB re-checks them).
    std::vector<std::string> keys_in(int db) const {
        std::vector<std::string> out;
        for (const auto& kv : queues_)
            if (kv.first.db == db) out.push_back(kv.first.key);
        return out;
    }

    /// Sessions whose deadline is <= now.
    std::vector<long long> timed_out(long long now) const {
        std::vector<long long> out;
        for (const auto& kv : waiters_)
            if (kv.second.deadline != 0 && kv.second.deadline <= now) out.push_back(kv.first);
        return out;
    }

    /// The soonest deadline, or 0 when no waiter has one.
    long long next_deadline() const noexcept {
        long long best = 0;
        for (const auto& kv : waiters_)
            if (kv.second.deadline != 0 && (best == 0 || kv.second.deadline < best))
                best = kv.second.deadline;
        return best;
    }

private:
    std::map<long long, waiter> waiters_;
    std::map<db_key, std::deque<long long>> queues_;
    std::vector<db_key> ready_;
    std::set<db_key> ready_set_;
};

}  // namespace zset::redis::detail

#endif  // ZSET_REDIS_BLOCKED_CLIENTS_HPP
