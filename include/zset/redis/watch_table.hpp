// zset::redis::detail::watch_table — WATCH bookkeeping for MULTI / EXEC (optimistic locking).
// SPDX-License-Identifier: MIT
//
// Which sessions watch which (database, key), and which sessions' transactions must abort
// because a watched key changed. State is keyed by session id (no pointers to sessions), so a
// session that goes away without UNWATCH leaves no dangling reference. Semantics follow Redis
// 7.0's multi.c: a key already logically expired when WATCHed does not abort the transaction
// when it is then deleted (the "expired" flag), FLUSHDB / FLUSHALL / SWAPDB touch every watched
// key that exists in an affected database, and a session marked dirty stops watching.
//
// Exception guarantee: strong (std::bad_alloc only). Thread safety: needs exclusive access.
#ifndef ZSET_REDIS_WATCH_TABLE_HPP
#define ZSET_REDIS_WATCH_TABLE_HPP

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zset::redis::detail {

/// A key of one numbered database.
struct db_key {
    int db = 0;
    std::string key;

    friend bool operator<(const db_key& a, const db_key& b) noexcept {
        return a.db != b.db ? a.db < b.db : a.key < b.key;
    }
    friend bool operator==(const db_key& a, const db_key& b) noexcept {
        return a.db == b.db && a.key == b.key;
    }
};

/// Removes every element equal-by-`matches` from the list `index[key]`, and the entry itself
/// when that leaves it empty (both WATCH and blocked-client indexes are kept this way).
template <class Index, class Key, class Matches>
void remove_from_index(Index& index, const Key& key, Matches&& matches) noexcept {
    const auto it = index.find(key);
    if (it == index.end()) return;
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(), matches), list.end());
    if (list.empty()) index.erase(it);
}

class watch_table {
public:
    /// WATCH key: `expired` tells whether the key is logically expired right now.
    void watch(long long session, int db, std::string_view key, bool expired) {
        auto& mine = sessions_[session];
        for (const db_key& k : mine.keys)
            if (k.db == db && k.key == key) return;  // already watched
        db_key k{db, std::string(key)};
        keys_[k].push_back(watcher{session, expired});
        mine.keys.push_back(std::move(k));
    }

    /// UNWATCH (also EXEC, DISCARD, disconnect): forgets the session's keys and dirty flag.
    void forget(long long session) noexcept {
        unwatch_keys(session);
        sessions_.erase(session);
    }

    /// Whether a watched key changed since WATCH (EXEC then replies a null array).
    bool dirty(long long session) const noexcept {
        const auto it = sessions_.find(session);
        return it != sessions_.end() && it->second.dirty;
    }

    /// The keys the session watches with their "expired when watched" flag (for EXEC's check
    /// that no watched key expired since).
    template <class Visit>
    void for_each_watched(long long session, Visit&& visit) const {
        const auto it = sessions_.find(session);
        if (it == sessions_.end()) return;
        for (const db_key& k : it->second.keys)
            for (const watcher& w : keys_.at(k))
                if (w.session == session) visit(k, w.expired);
    }

    bool empty() const noexcept { return keys_.empty(); }

    /// A key was modified (Redis's touchWatchedKey). `exists_now`: the key is in its database
    /// after the change (a deletion of an already-expired key is then no change).
    void touch(int db, std::string_view key, bool exists_now) {
        if (keys_.empty()) return;
        const auto it = keys_.find(db_key{db, std::string(key)});
        if (it == keys_.end()) return;
        std::vector<long long> hit;
        for (watcher& w : it->second) {
            if (w.expired) {
                if (!exists_now) w.expired = false;  // the expired key is gone: no change
                continue;
            }
            hit.push_back(w.session);
        }
        for (const long long s : hit) mark_dirty(s);
    }

    /// FLUSHDB / FLUSHALL / SWAPDB (touchAllWatchedKeysInDb): database `emptied` loses its keys,
    /// replaced by those of `replaced_with` (-1 for none). exists(db, key) / expired(db, key)
    /// describe the databases before the change.
    template <class Exists, class Expired>
    void touch_all_in_db(int emptied, int replaced_with, Exists&& exists, Expired&& expired) {
        std::vector<long long> hit;
        for (auto& kv : keys_) {
            if (kv.first.db != emptied) continue;
            const std::string& key = kv.first.key;
            const bool in_emptied = exists(emptied, key);
            const bool in_other = replaced_with >= 0 && exists(replaced_with, key);
            if (!in_emptied && !in_other) continue;
            const bool other_expired = in_other && expired(replaced_with, key);
            for (watcher& w : kv.second) {
                if (w.expired && !in_other) {
                    w.expired = false;  // expired key now deleted: no logical change
                } else if (w.expired && other_expired) {
                    // expired key remains expired
                } else if (!w.expired && !in_emptied && other_expired) {
                    w.expired = true;  // a missing key replaced by an expired one
                } else {
                    hit.push_back(w.session);
                }
            }
        }
        for (const long long s : hit) sessions_[s].dirty = true;
    }

private:
    struct watcher {
        long long session;
        bool expired;
    };
    struct session_state {
        std::vector<db_key> keys;
        bool dirty = false;
    };

    void unwatch_keys(long long session) noexcept {
        const auto it = sessions_.find(session);
        if (it == sessions_.end()) return;
        for (const db_key& k : it->second.keys)
            remove_from_index(keys_, k, [&](const watcher& x) { return x.session == session; });
        it->second.keys.clear();
    }

    /// Dirty sessions stop watching (nothing can make them clean again but UNWATCH / EXEC).
    void mark_dirty(long long session) {
        unwatch_keys(session);
        sessions_[session].dirty = true;
    }

    std::map<db_key, std::vector<watcher>> keys_;
    std::map<long long, session_state> sessions_;
};

}  // namespace zset::redis::detail

#endif  // ZSET_REDIS_WATCH_TABLE_HPP
