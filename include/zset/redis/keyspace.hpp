// zset::redis::keyspace — a Redis-compatible command executor: numbered databases of sorted sets,
// plain sets and strings, with expiry, transactions, blocking pops and the server commands
// clients expect. It owns the storage and dispatch; the commands live in commands_*.hpp (see
// command_table.hpp for the list and <zset/redis.hpp> for the layout).
// SPDX-License-Identifier: MIT
//
//   zset::redis::keyspace ks;
//   zset::redis::session s;                       // per connection
//   std::string out;
//   ks.execute(std::vector<std::string>{"ZADD", "k", "1", "a"}, s, out);   // out == ":1\r\n"
//   zset::redis::reply r = ks.run({"ZSCORE", "k", "a"});                  // reply::dbl(1)
//
// Semantics follow Redis 7.0 (checked against redis-server 7.0.15 by tests/differential), with
// the Redis >= 7.2 additions ZRANK / ZREVRANK ... WITHSCORE and shortest double formatting by
// default (percent17g gives 7.0's):
//  - argument validation happens in the same order as in Redis, so the same error wins;
//  - encodings follow Redis's rules with the thresholds in force (CONFIG SET): the container
//    converts a set when an add exceeds them, never back; *STORE, RESTORE and DEBUG RELOAD
//    results are built in the smallest encoding that fits;
//  - a key past its expiry time is gone for every command (deleted when touched, and by cron());
//  - MULTI queues, EXEC runs the queue atomically (nothing runs between its commands), WATCH
//    aborts EXEC when a watched key changed.
//
// A server (see examples/server) registers each connection's session with connect(), runs its
// commands with execute(), and after each one calls serve_blocked() so that clients blocked in
// BZPOPMIN / BZPOPMAX / BZMPOP get their replies; it calls cron() about hz times a second
// (active expiry, blocked-client timeouts) and closes the connections take_killed() returns.
//
// Deviations from Redis, by design of a library keyspace: no persistence, replication,
// scripting, ACL users (one "default" user with requirepass), pub/sub or keyspace
// notifications; SET takes no options; OBJECT supports ENCODING, MEMORY supports USAGE; COMMAND
// DOCS is empty; ZRANDMEMBER with a negative count is capped at max_random_draws draws.
//
// Exception guarantee: execute() catches std::bad_alloc and replies "ERR out of memory"; the
// keyspace keeps the basic guarantee (a multi-member command may be partly applied).
// Thread safety: as the standard containers. Const member functions (find, key_count, options,
// auth_required, next_timeout_ms) may run concurrently with each other; everything else needs
// exclusive access. Distinct keyspaces are independent.
#ifndef ZSET_REDIS_KEYSPACE_HPP
#define ZSET_REDIS_KEYSPACE_HPP

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command.hpp"
#include "command_table.hpp"
#include "config.hpp"
#include "keyspace_state.hpp"
#include "reply_sink.hpp"
#include "resp.hpp"
#include "session.hpp"

namespace zset::redis {

namespace detail {

/// The commandstats counters of a command (a row of the table, or a subcommand).
inline command_counters& counters_of(keyspace_state& st, const command_spec* spec) {
    const std::less<const command_spec*> before;
    if (!before(spec, st.commands) && before(spec, st.commands + st.command_count)) {
        if (st.stats.commands.size() < st.command_count) st.stats.commands.resize(st.command_count);
        return st.stats.commands[static_cast<std::size_t>(spec - st.commands)];
    }
    return st.stats.subcommands[spec];
}

/// Runs `update`, which changes INFO's statistics; if it runs out of memory the statistics miss
/// that update and the command goes on (they are not worth an error reply).
template <class Update>
void update_stats(Update&& update) noexcept {
#if ZSET_HAS_EXCEPTIONS
    try {
        update();
    } catch (...) {
    }
#else
    update();
#endif
}

/// Microseconds of the steady clock since `t`.
inline long long micros_since(std::chrono::steady_clock::time_point t) noexcept {
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t)
            .count());
}

/// Refuses a command before it runs (Redis rejectCommand): inside MULTI it also makes EXEC
/// fail, and a rejected EXEC always replies EXECABORT (and leaves MULTI). The error is counted,
/// and so is a rejected call of `spec` unless `spec` is only the parent of an unknown subcommand.
inline void reject(keyspace_state& st, session& s, const command_spec* spec, reply_sink& out,
                   std::string_view text, bool counted = true) {
    if (spec != nullptr && counted) update_stats([&] { ++counters_of(st, spec).rejected_calls; });
    if (spec != nullptr && spec->handler == commands::exec) {
        // EXECABORT, in or out of MULTI; Redis's own checks give their text without "ERR ".
        s.multi = session::transaction{};
        if (s.id != 0) st.watches.forget(s.id);
        if (text.substr(0, 4) == "ERR ") text.remove_prefix(4);
        const std::string abort = errors::execabort_because(text);
        update_stats([&] { st.count_errors(error_code(abort)); });
        return out.error(abort);
    }
    if (s.multi.active) s.multi.failed = true;
    update_stats([&] { st.count_errors(error_code(text)); });
    out.error(text);
}

/// The command argv names, with its subcommand, or nullptr after replying why not.
inline const command_spec* resolve(keyspace_state& st, const std::string_view* argv,
                                   std::size_t argc, session& s, reply_sink& out) {
    const command_spec* spec = find_command(argv[0]);
    if (spec == nullptr) {
        reject(st, s, nullptr, out,
               errors::unknown_command(std::vector<std::string_view>(argv, argv + argc)));
        return nullptr;
    }
    if (spec->subcommand_count > 0 && argc >= 2) {
        const command_spec* sub = find_subcommand(*spec, argv[1]);
        if (sub == nullptr) {
            reject(st, s, spec, out, errors::unknown_subcommand(spec->name, argv[1]), false);
            return nullptr;
        }
        spec = sub;
    }
    const auto need = static_cast<std::size_t>(spec->arity < 0 ? -spec->arity : spec->arity);
    if ((spec->arity > 0 && argc != need) || argc < need) {
        reject(st, s, spec, out, errors::wrong_arity(spec->name));
        return nullptr;
    }
    return spec;
}

/// Access checks of Redis processCommand: authentication, then DEBUG's protection.
inline bool admitted(keyspace_state& st, const command_spec* spec, session& s, reply_sink& out) {
    if (!st.opts.requirepass.empty() && !s.authenticated && !(spec->traits & trait_no_auth))
        return reject(st, s, spec, out, errors::noauth), false;
    const debug_access d = st.opts.enable_debug_command;
    if ((spec->traits & trait_debug) &&
        !(d == debug_access::yes || (d == debug_access::local && s.info.local)))
        return reject(st, s, spec, out, errors::debug_not_allowed), false;
    return true;
}

/// Runs the handler, turning an allocation failure into an error reply.
inline void run_handler(command& c) {
#if ZSET_HAS_EXCEPTIONS
    const std::size_t mark = c.out.mark();
    try {
        c.spec->handler(c);
    } catch (const std::bad_alloc&) {
        c.out.rollback(mark);
        c.result = exec_result();
        c.out.error(errors::out_of_memory);
    } catch (const std::length_error&) {
        c.out.rollback(mark);
        c.result = exec_result();
        c.out.error(errors::out_of_memory);
    }
#else
    c.spec->handler(c);
#endif
}

/// Redis processCommand + call(): lookup, arity, access, MULTI queuing, then the handler.
inline exec_result dispatch(keyspace_state& st, const std::string_view* argv, std::size_t argc,
                            session& s, reply_sink& out) {
    exec_result result;
    if (argc == 0) return result;
    const command_spec* spec = resolve(st, argv, argc, s, out);
    if (spec == nullptr || !admitted(st, spec, s, out)) return result;
    if (s.multi.active && !(spec->traits & trait_not_queued)) {
        const bool dirty = s.id != 0 && st.watches.dirty(s.id);
        if (!s.multi.failed && !dirty) s.multi.queued.emplace_back(argv, argv + argc);
        out.simple("QUEUED");
        return result;
    }
    s.last_command.assign(spec->name.data(), spec->name.size());
    s.last_command_ms = st.now;
    command c{argv, argc, spec, s, out, st, result};
    const long long counted_before = st.errors_counted;  // grows with nested commands'
    const std::size_t written_before = out.errors_written();
    const auto start = std::chrono::steady_clock::now();
    const bool reads =
        spec->flags.substr(0, 8) == "readonly" || spec->handler == commands::zrangestore<command>;
    const bool counted_reads = std::exchange(st.count_reads, reads);
    ++st.depth;
    run_handler(c);
    --st.depth;
    st.count_reads = counted_reads;
    const long long usec = micros_since(start);
    ++st.stats.commands_processed;
    ++st.stats.commands_in_cycle;
    if (st.depth == 0) {
        st.stats.command_duration_us += usec;
        st.sample_metrics();
    }
    // Redis call(): a blocked command is counted when it is served or times out; a command
    // failed when it replied an error itself (not one of EXEC's queued commands).
    const long long own = static_cast<long long>(out.errors_written() - written_before) -
                          (st.errors_counted - counted_before);
    update_stats([&] {
        command_counters& counters = counters_of(st, spec);
        if (own > 0) {
            st.count_errors(out.last_error_code(), own);
            ++counters.failed_calls;
        }
        if (result.status != exec_status::blocked) {
            ++counters.calls;
            counters.usec += usec;
        }
    });
    return result;
}

/// EXEC's way back into dispatch for each queued command.
inline void dispatch_queued(keyspace_state& st, const std::vector<std::string>& argv, session& s,
                            reply_sink& out) {
    const std::vector<std::string_view> views(argv.begin(), argv.end());
    dispatch(st, views.data(), views.size(), s, out);
}

}  // namespace detail

/// Numbered databases executing Redis commands. See the file comment.
class keyspace {
public:
    /// The sorted set type stored under a key.
    using set_type = zset_value;

    /// An empty keyspace with the given options (opts.databases databases). Strong guarantee.
    /// Redis counterpart: a server started with that configuration.
    explicit keyspace(keyspace_options opts = {}) : state_(std::move(opts)) {
        state_.dispatch = &detail::dispatch_queued;
        state_.commands = detail::command_table.data();
        state_.command_count = std::size(detail::command_table);
        state_.find_command = &detail::find_command;
    }

    keyspace(const keyspace&) = delete;
    keyspace& operator=(const keyspace&) = delete;

    // ---- executing commands ---------------------------------------------------------------

    /// Executes one command and appends its RESP reply (in s.proto) to `out`. `argv` is any range
    /// of string-like values; argv[0] is the command name (any case). An empty argv does nothing.
    /// \returns done, quit (QUIT or CLIENT KILL of itself: close after sending), or blocked
    /// (nothing appended: the keyspace keeps the command until serve_blocked() answers it or
    /// cron() times it out; exec_result::block says what it waits for).
    /// Complexity: that of the Redis command. Redis counterpart: processCommand + call().
    template <class Argv>
    exec_result execute(const Argv& argv, session& s, std::string& out) {
        resp_sink sink(out, s.proto, state_.opts.double_format);
        return run_top_level(argv, s, sink);
    }

    /// As execute() but stores the reply as a typed reply, shaped as Redis sends it in s.proto
    /// (encode(out, s.proto, bytes, options().double_format) gives the exact bytes). A blocked
    /// command leaves `out` null.
    template <class Argv>
    exec_result execute(const Argv& argv, session& s, reply& out) {
        tree_sink sink(s.proto, state_.opts.double_format);
        exec_result r = run_top_level(argv, s, sink);
        out = sink.take();
        return r;
    }

    /// Convenience for tests and embedding: executes `argv` in a fresh RESP2 session that may not
    /// block (a blocking command with nothing to pop replies as on a timeout) and returns the
    /// reply. Redis counterpart: a command sent inside MULTI (blocking pops) or alone.
    reply run(std::initializer_list<std::string_view> argv) {
        session s;
        s.allow_blocking = false;
        return run(argv, s);
    }
    /// As run(argv) with the caller's session. A command that blocks returns a null reply.
    reply run(std::initializer_list<std::string_view> argv, session& s) {
        reply r;
        execute(argv, s, r);
        return r;
    }

    /// The reply a blocked client gets when its timeout expires: a null array.
    static reply timeout_reply() noexcept { return reply::null_array(); }
    /// Appends the timeout reply's bytes for `proto`.
    static void append_timeout_reply(std::string& out, protocol proto) {
        append_null_array(out, proto);
    }

    // ---- connections ------------------------------------------------------------------------

    /// A session with a fresh id (authenticated unless a password is set). O(1).
    session make_session() {
        session s;
        s.id = ++state_.last_client_id;
        s.authenticated = state_.opts.requirepass.empty();
        s.created_ms = s.last_command_ms = state_.clock();
        return s;
    }

    /// Protected mode (Redis acceptCommonHandler): with no password set, a client that is not on
    /// the loopback interface is refused. Returns the error text to send before closing (without
    /// '-' and CRLF), or "" when the client is admitted.
    std::string_view refusal(const client_info& info) {
        if (!state_.opts.protected_mode || !state_.opts.requirepass.empty() || info.local)
            return {};
        ++state_.stats.rejected_connections;
        return errors::denied;
    }

    /// Registers a connection: CLIENT LIST / KILL and INFO see it, and blocked-client serving can
    /// reach it. `s` must stay at its address until disconnect(s). O(log n).
    void connect(session& s, client_info info = {}) {
        if (s.id == 0) s.id = ++state_.last_client_id;
        s.info = std::move(info);
        s.authenticated = state_.opts.requirepass.empty();
        s.created_ms = s.last_command_ms = state_.clock();
        s.connected = true;
        state_.clients[s.id] = &s;
        ++state_.stats.connections_received;
    }

    /// Forgets a connection: unblocks it, drops its WATCHes and MULTI state. No-throw.
    void disconnect(session& s) noexcept {
        state_.blocked.unblock(s.id);
        state_.watches.forget(s.id);
        state_.clients.erase(s.id);
        s.multi = session::transaction{};
        s.connected = false;
    }

    /// Cancels the blocked command of `s` without a reply (the server answers as it sees fit, e.g.
    /// with timeout_reply()). No-throw. Redis counterpart: CLIENT UNBLOCK ... TIMEOUT.
    void unblock(session& s) noexcept { state_.blocked.unblock(s.id); }

    /// Ids of the sessions CLIENT KILL asked to close since the last call.
    std::vector<long long> take_killed() noexcept { return std::exchange(state_.killed, {}); }

    /// Whether `s` must AUTH before running commands (a password is set and it has not).
    bool auth_required(const session& s) const noexcept {
        return !state_.opts.requirepass.empty() && !s.authenticated;
    }

    // ---- blocked clients and housekeeping ---------------------------------------------------

    /// Serves the clients blocked on keys that received a sorted set since the last call, oldest
    /// first per key, each popping from that key (as Redis 7.0), and gives each reply to
    /// deliver(session&, std::string_view bytes). A key that expired or holds another type
    /// wakes nobody. Call after each command.
    /// \returns how many clients were served. Redis counterpart: handleClientsBlockedOnKeys.
    template <class Deliver>
    std::size_t serve_blocked(Deliver&& deliver) {
        std::size_t served = 0;
        while (state_.blocked.has_ready()) {
            for (const detail::db_key& k : state_.blocked.take_ready())
                for (const long long id : state_.blocked.waiting_on(k))
                    if (serve_one(id, k, deliver)) ++served;
        }
        return served;
    }

    /// Housekeeping a server runs about opts.hz times a second: active expiry (unless DEBUG
    /// SET-ACTIVE-EXPIRE 0) and blocked clients whose timeout passed, which get the timeout
    /// reply through deliver(session&, bytes). \returns the number of keys expired.
    /// Redis counterpart: serverCron's activeExpireCycle + clientsCronHandleTimeout.
    template <class Deliver>
    std::size_t cron(Deliver&& deliver) {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        state_.now = state_.clock();
        state_.sample_metrics();
        for (const long long id : state_.blocked.timed_out(state_.now)) {
            detail::blocked_clients::waiter* w = state_.blocked.find(id);
            session& s = *w->sess;
            if (const command_spec* spec = state_.find_command(w->argv.front()))  // a call
                detail::update_stats([&] { ++detail::counters_of(state_, spec).calls; });
            state_.blocked.unblock(id);
            std::string bytes;
            append_timeout_reply(bytes, s.proto);
            deliver(s, std::string_view(bytes));
        }
        std::size_t expired = 0;
        if (state_.active_expire) {
            const auto expire_start = clock::now();
            expired = state_.expire_cycle(expire_budget);
            state_.stats.expire_cycle_us += detail::micros_since(expire_start);
        }
        state_.stats.cron_duration_us += detail::micros_since(start);
        return expired;
    }

    // ---- what a server measures, for INFO ---------------------------------------------------

    /// A server reports each read from a client socket: INFO total_net_input_bytes,
    /// total_reads_processed and instantaneous_input_kbps. No-throw.
    void record_read(std::size_t bytes) noexcept {
        state_.stats.net_input_bytes += static_cast<long long>(bytes);
        ++state_.stats.reads_processed;
    }
    /// ... and each write to one: total_net_output_bytes, total_writes_processed. No-throw.
    void record_write(std::size_t bytes) noexcept {
        state_.stats.net_output_bytes += static_cast<long long>(bytes);
        ++state_.stats.writes_processed;
    }
    /// ... and each run of its event loop (one wait for events and the work it brought), with its
    /// duration: eventloop_cycles, eventloop_duration_sum and the instantaneous eventloop
    /// metrics, and INFO debug's maxima. No-throw.
    void record_event_loop(long long duration_us) noexcept {
        detail::server_stats& st = state_.stats;
        ++st.eventloop_cycles;
        st.eventloop_duration_us += duration_us;
        st.eventloop_duration_max_us = std::max(st.eventloop_duration_max_us, duration_us);
        st.commands_per_cycle_max = std::max(st.commands_per_cycle_max, st.commands_in_cycle);
        st.commands_in_cycle = 0;
    }

    /// Milliseconds until cron() has something to do (a blocked client's deadline, or the next
    /// active-expiry run when keys have an expiry time); -1 when nothing is pending.
    long long next_timeout_ms() const {
        const long long now = state_.clock();
        long long best = -1;
        if (const long long d = state_.blocked.next_deadline(); d != 0)
            best = d > now ? d - now : 0;
        bool expiring = false;
        for (const database& db : state_.dbs) expiring = expiring || db.expires_size() != 0;
        if (expiring && state_.active_expire) {
            const long long period =
                1000 / static_cast<long long>(state_.opts.hz == 0 ? 1 : state_.opts.hz);
            best = best < 0 ? period : std::min(best, period);
        }
        return best;
    }

    // ---- direct access ------------------------------------------------------------------------

    /// The sorted set stored under `key` in database `db`, or nullptr if the key is missing,
    /// expired or holds another type. Valid until the next non-const call. O(log n). Writes
    /// nothing: safe from several threads at once. Redis counterpart: lookupKeyRead + checkType.
    const set_type* find(std::string_view key, int db = 0) const {
        if (db < 0 || static_cast<std::size_t>(db) >= state_.dbs.size()) return nullptr;
        const database::entry* e = state_.peek(db, key, state_.clock());
        return e == nullptr ? nullptr : std::get_if<set_type>(&e->value);
    }

    /// Number of keys in database `db` (as DBSIZE). O(1). No-throw.
    std::size_t key_count(int db = 0) const noexcept {
        if (db < 0 || static_cast<std::size_t>(db) >= state_.dbs.size()) return 0;
        return state_.dbs[static_cast<std::size_t>(db)].size();
    }

    /// Removes every key of every database (FLUSHALL without the WATCH bookkeeping). No-throw.
    void clear() noexcept {
        for (database& d : state_.dbs) d.clear();
    }

    /// The options in force (CONFIG SET changes them). O(1). No-throw.
    const keyspace_options& options() const noexcept { return state_.opts; }

    /// Sets the listpack thresholds (CONFIG SET zset-max-listpack-entries / -value). Existing
    /// sets keep their encoding; later insertions and later built sets use the new limits.
    void set_listpack_limits(std::size_t max_entries, std::size_t max_value) noexcept {
        state_.opts.zset_max_listpack_entries = max_entries;
        state_.opts.zset_max_listpack_value = max_value;
    }

    /// Chooses the double format of later replies (Redis >= 7.2 shortest, or 7.0 %.17g).
    void set_double_format(format_style style) noexcept { state_.opts.double_format = style; }

private:
    static constexpr std::size_t expire_budget = 1000;  ///< keys per cron() run at most

    template <class Argv>
    exec_result run_top_level(const Argv& argv, session& s, reply_sink& sink) {
        std::vector<std::string_view> views;
        views.reserve(argv.size());
        for (const auto& a : argv) views.emplace_back(std::string_view(a));
        state_.now = state_.clock();
        exec_result r = detail::dispatch(state_, views.data(), views.size(), s, sink);
        if (r.status == exec_status::blocked) block(s, views, r.block);
        return r;
    }

    void block(session& s, const std::vector<std::string_view>& argv, const block_request& req) {
        if (s.id == 0) s.id = ++state_.last_client_id;
        std::vector<detail::db_key> keys;
        for (const std::string& k : req.keys) keys.push_back(detail::db_key{s.db, k});
        const long long deadline = req.timeout_ms > 0 ? state_.now + req.timeout_ms : 0;
        state_.blocked.block(s, std::vector<std::string>(argv.begin(), argv.end()), std::move(keys),
                             deadline);
    }

    /// Re-runs blocked client `id` for ready key `k`; delivers and unblocks it when it finished.
    template <class Deliver>
    bool serve_one(long long id, const detail::db_key& k, Deliver& deliver) {
        state_.now = state_.clock();
        if (detail::keyspace_state::as_zset(state_.lookup(k.db, k.key)) == nullptr) return false;
        detail::blocked_clients::waiter* w = state_.blocked.find(id);
        if (w == nullptr) return false;
        session& s = *w->sess;
        std::string bytes;
        resp_sink sink(bytes, s.proto, state_.opts.double_format);
        const std::vector<std::string_view> views(w->argv.begin(), w->argv.end());
        state_.serving = &k;
        const exec_result r = detail::dispatch(state_, views.data(), views.size(), s, sink);
        state_.serving = nullptr;
        if (r.status == exec_status::blocked) return false;  // nothing for it yet: keeps its place
        state_.blocked.unblock(id);
        deliver(s, std::string_view(bytes));
        return true;
    }

    detail::keyspace_state state_;
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_KEYSPACE_HPP
