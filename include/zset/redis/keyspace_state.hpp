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
#include <cstdint>
#include <functional>
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

/// One command's counters (INFO commandstats): executions, their total time, and how many
/// were refused before running (rejected) or replied an error (failed).
struct command_counters {
    long long calls = 0;
    long long usec = 0;
    long long rejected_calls = 0;
    long long failed_calls = 0;
};

/// One of Redis's instantaneous metrics (serverCron's trackInstantaneousMetric every 100 ms):
/// each sample is a counter's growth over a period, times `factor`, divided by the growth of the
/// period's base (its length, or another counter); the metric is the mean of the last 16.
/// Sampled when the keyspace runs rather than on a timer: the keyspace samples at its first
/// command 100 ms or more after the last sample, so the growth since then happened in the first
/// 100 ms of the gap; the periods after it were idle and count as zero samples.
class instantaneous_metric {
public:
    static constexpr std::size_t samples = 16;

    /// A sample after `periods` periods (>= 1). A time-based metric's base is the clock; another
    /// base (a counter) grows only in the first period.
    void track(long long value, long long base, long long factor, long long periods,
               bool time_based) noexcept {
        if (last_base_ > 0) {
            const long long db = time_based ? (base - last_base_) / periods : base - last_base_;
            push(db > 0 ? (value - last_value_) * factor / db : 0);
            for (long long i = 1; i < periods && i < static_cast<long long>(samples); ++i) push(0);
        }
        last_base_ = base;
        last_value_ = value;
    }
    long long mean() const noexcept {
        long long sum = 0;
        for (const long long v : samples_) sum += v;
        return sum / static_cast<long long>(samples);
    }

private:
    void push(long long v) noexcept {
        samples_[next_] = v;
        next_ = (next_ + 1) % samples;
    }

    long long last_value_ = 0, last_base_ = 0;
    long long samples_[samples] = {};
    std::size_t next_ = 0;
};

/// Counters INFO reports (CONFIG RESETSTAT clears them, start_ms aside).
struct server_stats {
    long long start_ms = 0;
    long long connections_received = 0;
    long long commands_processed = 0;
    long long expired_keys = 0;
    long long keyspace_hits = 0;
    long long keyspace_misses = 0;
    long long rejected_connections = 0;
    long long error_replies = 0;  ///< total_error_replies
    long long auth_failures = 0;  ///< acl_access_denied_auth
    /// What the server reports (keyspace::record_read / record_write / record_event_loop).
    long long net_input_bytes = 0, net_output_bytes = 0;
    long long reads_processed = 0, writes_processed = 0;
    long long eventloop_cycles = 0, eventloop_duration_us = 0, eventloop_duration_max_us = 0;
    long long commands_in_cycle = 0, commands_per_cycle_max = 0;
    /// Time spent in commands (top level), in cron(), and in its active expiry, in µs.
    long long command_duration_us = 0, cron_duration_us = 0, expire_cycle_us = 0;
    std::size_t peak_memory = 0;  ///< largest used_memory INFO has seen
    long long last_load_keys_loaded = 0, last_load_keys_expired = 0;  ///< DEBUG RELOAD
    /// INFO errorstats: replies per error code ("ERR", "WRONGTYPE", ...), at most 128 codes.
    std::map<std::string, long long, std::less<>> errors;
    /// INFO commandstats of the command table's rows (by index), and of subcommands.
    std::vector<command_counters> commands;
    std::map<const command_spec*, command_counters, std::less<>> subcommands;
    /// The instantaneous metrics and when they were last sampled (ms).
    instantaneous_metric ops, net_input, net_output, eventloop_cycle_rate, eventloop_duration;
    long long sampled_ms = 0;
};

class keyspace_state {
public:
    explicit keyspace_state(keyspace_options o)
        : opts(std::move(o)), dbs(opts.databases == 0 ? 1 : opts.databases), rng(opts.random_seed) {
        now = clock();
        stats.start_ms = now;
        std::mt19937_64 ids(random_seed());
        run_id = random_hex_id(ids);
        replid = random_hex_id(ids);
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
    /// INFO's run_id and master_replid: 40 random hex digits each, new for every keyspace.
    std::string run_id, replid;
    /// How deep dispatch is (EXEC runs its queue one level down).
    int depth = 0;
    /// Error replies counted since the start (CONFIG RESETSTAT leaves it alone): dispatch tells
    /// a command's own errors from those of the commands it ran (EXEC) by it.
    long long errors_counted = 0;
    /// Key changes since the start (INFO rdb_changes_since_last_save: nothing is ever saved;
    /// CONFIG RESETSTAT leaves it alone, as Redis leaves its dirty counter).
    long long dirty = 0;
    /// Whether the command running reads its keys (a read-only command, or ZRANGESTORE, which
    /// reads its source as Redis's lookupKeyRead does): lookups count as keyspace hits / misses.
    bool count_reads = false;

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
    /// While a read-only command runs (count_reads), a keyspace hit or miss is counted, as
    /// Redis's lookupKeyRead counts it, unless `counted` is false.
    database::entry* lookup(int db, std::string_view key, bool counted = true) {
        database::entry* e = dbs[static_cast<std::size_t>(db)].find(key);
        if (e != nullptr && expired(*e)) {
            expire_now(db, key);
            e = nullptr;
        }
        if (count_reads && counted) count_read(e != nullptr);
        return e;
    }

    /// Counts a keyspace hit (the key was found) or miss (INFO keyspace_hits / _misses).
    void count_read(bool hit) noexcept { ++(hit ? stats.keyspace_hits : stats.keyspace_misses); }

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
        if (database::entry* e = lookup(db, key, false)) {
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
        ++dirty;
        if (watches.empty()) return;
        watches.touch(db, key, dbs[static_cast<std::size_t>(db)].find(key) != nullptr);
    }

    /// The sorted-set value of an entry, or nullptr.
    static zset_value* as_zset(database::entry* e) noexcept {
        return e == nullptr ? nullptr : std::get_if<zset_value>(&e->value);
    }

    // ---- statistics (INFO) ----------------------------------------------------------------

    /// Counts `n` error replies with `code` (INFO total_error_replies and errorstats; new codes
    /// stop being added at 128, as Redis's ERROR_STATS_NUMBER).
    void count_errors(std::string_view code, long long n = 1) {
        stats.error_replies += n;
        errors_counted += n;
        const auto it = stats.errors.find(code);
        if (it != stats.errors.end())
            it->second += n;
        else if (stats.errors.size() < 128)
            stats.errors.emplace(std::string(code), n);
    }

    /// Samples the instantaneous metrics when 100 ms or more passed since the last sample.
    void sample_metrics() noexcept {
        if (stats.sampled_ms != 0 && now - stats.sampled_ms < 100) return;
        const long long periods = stats.sampled_ms == 0 ? 1 : (now - stats.sampled_ms) / 100;
        stats.sampled_ms = now;
        server_stats& s = stats;
        s.ops.track(s.commands_processed, now, 1000, periods, true);
        s.net_input.track(s.net_input_bytes, now, 1000, periods, true);
        s.net_output.track(s.net_output_bytes, now, 1000, periods, true);
        s.eventloop_cycle_rate.track(s.eventloop_cycles, now, 1000, periods, true);
        s.eventloop_duration.track(s.eventloop_duration_us, s.eventloop_cycles, 1, periods, false);
    }

private:
    /// A seed that differs between runs: std::random_device, or the clocks where it fails.
    static std::uint64_t random_seed() noexcept {
        const auto ticks =
            static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#if ZSET_HAS_EXCEPTIONS
        try {
            std::random_device rd;
            return (std::uint64_t{rd()} << 32 | rd()) ^ ticks;
        } catch (...) {
        }
#endif
        return ticks ^ static_cast<std::uint64_t>(
                           std::chrono::system_clock::now().time_since_epoch().count());
    }
    static std::string random_hex_id(std::mt19937_64& g) {
        static constexpr char digits[] = "0123456789abcdef";
        std::string id(40, '0');
        for (char& ch : id) ch = digits[g() & 15u];
        return id;
    }
};

}  // namespace detail
}  // namespace zset::redis

#endif  // ZSET_REDIS_KEYSPACE_STATE_HPP
