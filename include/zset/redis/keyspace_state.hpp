// zset::redis::detail::keyspace_state — everything a keyspace holds, and the rules for reaching
// keys: lazy expiry, "key modified" notices (WATCH) and "key ready" notices (blocked clients).
// SPDX-License-Identifier: MIT
//
// The command handlers (commands_*.hpp) work on this state through a `command` context; the
// public class zset::redis::keyspace (keyspace.hpp) owns one and adds dispatch and the API.
//
// Key access follows Redis's db.c:
//   lookup()  finds a key and deletes it first when it is logically expired (now > expire_at,
//             with "now" frozen for the whole command, and for the whole of EXEC);
//   peek()    the same without deleting, at a given time (const: keyspace::find() uses it);
//   add() / set() / remove() / modified() keep WATCH and blocked clients informed.
//
// Exception guarantee: strong for single-key operations (std::bad_alloc only). Thread safety:
// const member functions may run concurrently; everything else needs exclusive access.
#ifndef ZSET_REDIS_KEYSPACE_STATE_HPP
#define ZSET_REDIS_KEYSPACE_STATE_HPP

#include <chrono>
#include <cstddef>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.hpp"
#include "blocked_clients.hpp"
#include "config.hpp"
#include "database.hpp"
#include "session.hpp"
#include "values.hpp"
#include "watch_table.hpp"

namespace zset::redis {

class reply_sink;
struct command;
template <class Ctx>
struct basic_command_spec;
using command_spec = basic_command_spec<command>;

namespace detail {

/// Counters INFO reports (stats section).
struct server_stats {
    long long start_ms = 0;
    long long connections_received = 0;
    long long commands_processed = 0;
    long long expired_keys = 0;
    long long keyspace_hits = 0;
    long long keyspace_misses = 0;
    long long rejected_connections = 0;
};

class keyspace_state {
public:
    explicit keyspace_state(keyspace_options o)
        : opts(std::move(o)), dbs(opts.databases == 0 ? 1 : opts.databases), rng(opts.random_seed) {
        now = clock();
        stats.start_ms = now;
    }

    keyspace_options opts;
    std::vector<database> dbs;
    std::mt19937_64 rng;
    server_stats stats;
    /// Connected sessions by id (keyspace::connect / disconnect).
    std::map<long long, session*> clients;
    long long last_client_id = 0;
    /// Sessions CLIENT KILL asked to close; the server takes them with take_killed().
    std::vector<long long> killed;
    watch_table watches;
    blocked_clients blocked;
    bool active_expire = true;  ///< DEBUG SET-ACTIVE-EXPIRE
    /// The time of the command being executed (Unix ms), frozen during EXEC.
    long long now = 0;
    /// While a blocked client is served: the key that became ready (blocking pops take from it
    /// alone, as Redis 7.0's serveClientsBlockedOnSortedSetKey); null otherwise.
    const db_key* serving = nullptr;
    /// Runs one queued command (set by the keyspace: EXEC's way back into dispatch).
    void (*dispatch)(keyspace_state&, const std::vector<std::string>&, session&,
                     reply_sink&) = nullptr;
    /// The command table (set by the keyspace; COMMAND reports it).
    const command_spec* commands = nullptr;
    std::size_t command_count = 0;
    /// Finds a command by name, case-insensitively, or nullptr (set by the keyspace).
    const command_spec* (*find_command)(std::string_view) noexcept = nullptr;

    /// The clock in Unix milliseconds (opts.clock when set).
    long long clock() const {
        if (opts.clock) return opts.clock();
        return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
    }

    /// The container options the thresholds in force give (set on a sorted set before a write,
    /// so the container applies Redis's conversion rules itself).
    zset::options zset_options() const noexcept { return zset_options_of(opts); }

    // ---- expiry ---------------------------------------------------------------------------

    /// Redis's keyIsExpired: the key has an expiry time and now is past it.
    bool expired(const database::entry& e) const noexcept {
        return e.expire_at != database::no_expiry && now > e.expire_at;
    }

    /// The key's entry, or nullptr; a logically expired key is deleted first (lazy expiry).
    database::entry* lookup(int db, std::string_view key) {
        database::entry* e = dbs[static_cast<std::size_t>(db)].find(key);
        if (e == nullptr || !expired(*e)) return e;
        expire_now(db, key);
        return nullptr;
    }

    /// As lookup() without deleting, at time `at`: an expired key reads as missing.
    const database::entry* peek(int db, std::string_view key, long long at) const {
        const database::entry* e = dbs[static_cast<std::size_t>(db)].find(key);
        const bool gone = e != nullptr && e->expire_at != database::no_expiry && at > e->expire_at;
        return e == nullptr || gone ? nullptr : e;
    }

    /// Deletes an expired key (lazy or active expiry): a modification for WATCH.
    void expire_now(int db, std::string_view key) {
        dbs[static_cast<std::size_t>(db)].erase(key);
        ++stats.expired_keys;
        watches.touch(db, key, false);
    }

    /// Active expiry: deletes up to `budget` expired keys across databases. \returns how many.
    std::size_t expire_cycle(std::size_t budget) {
        std::size_t done = 0;
        for (std::size_t i = 0; i < dbs.size() && done < budget; ++i) {
            // expired() (now > expire_at) is stricter than the index's <=: skip exact ties.
            for (const std::string& k : dbs[i].expired(now - 1, budget - done)) {
                expire_now(static_cast<int>(i), k);
                ++done;
            }
        }
        return done;
    }

    // ---- writes ---------------------------------------------------------------------------

    /// Adds a new key (Redis dbAdd): it may wake clients blocked on it.
    database::entry& add(int db, std::string_view key, redis::value v) {
        database::entry& e = dbs[static_cast<std::size_t>(db)].add(key, std::move(v));
        blocked.signal(db, key);
        return e;
    }

    /// Stores `v` under `key`, replacing any value and its expiry time (Redis setKey).
    void set(int db, std::string_view key, redis::value v) {
        database& d = dbs[static_cast<std::size_t>(db)];
        if (database::entry* e = lookup(db, key)) {
            e->value = std::move(v);
            d.persist(key);
        } else {
            add(db, key, std::move(v));
        }
        modified(db, key);
    }

    /// Deletes a key (Redis dbDelete + signalModifiedKey). \returns whether it existed.
    bool remove(int db, std::string_view key) {
        if (!dbs[static_cast<std::size_t>(db)].erase(key)) return false;
        modified(db, key);
        return true;
    }

    /// A key's value changed (Redis signalModifiedKey): WATCHers of it abort.
    void modified(int db, std::string_view key) {
        if (watches.empty()) return;
        watches.touch(db, key, dbs[static_cast<std::size_t>(db)].find(key) != nullptr);
    }

    /// The sorted-set value of an entry, or nullptr.
    static zset_value* as_zset(database::entry* e) noexcept {
        return e == nullptr ? nullptr : std::get_if<zset_value>(&e->value);
    }
};

}  // namespace detail
}  // namespace zset::redis

#endif  // ZSET_REDIS_KEYSPACE_STATE_HPP
