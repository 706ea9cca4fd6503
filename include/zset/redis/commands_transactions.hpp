// zset::redis::commands — transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's multi.c (checked against redis-server 7.0.15). Queuing happens in
// dispatch (keyspace.hpp): inside MULTI every command but EXEC, DISCARD, MULTI, WATCH, QUIT and
// RESET replies +QUEUED; an unknown command or a wrong argument count while queuing replies its
// error and makes EXEC fail with EXECABORT. EXEC runs the queue with blocking disabled (a
// blocking pop on an empty key replies as on a timeout), with the clock frozen at its start;
// a runtime error is one entry of EXEC's array and the other commands still run. A WATCHed key
// modified (or expired) before EXEC makes EXEC reply a null array.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_TRANSACTIONS_HPP
#define ZSET_REDIS_COMMANDS_TRANSACTIONS_HPP

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"

namespace zset::redis::commands {

namespace detail {

/// The session's id, assigned on first need (sessions that were never connected have none).
inline long long session_id(command& c) {
    if (c.sess.id == 0) c.sess.id = ++c.state.last_client_id;
    return c.sess.id;
}

/// Leaves MULTI and forgets WATCHed keys (Redis discardTransaction).
inline void discard_transaction(command& c) {
    c.sess.multi = session::transaction{};
    if (c.sess.id != 0) c.state.watches.forget(c.sess.id);
}

/// Whether a key that was live when WATCHed is now logically expired (isWatchedKeyExpired).
inline bool watched_key_expired(command& c) {
    bool expired = false;
    c.state.watches.for_each_watched(c.sess.id, [&](const db_key& k, bool was_expired) {
        if (was_expired) return;
        const database::entry* e = c.state.dbs[static_cast<std::size_t>(k.db)].find(k.key);
        expired = expired || (e != nullptr && c.state.expired(*e));
    });
    return expired;
}

}  // namespace detail

/// MULTI.
inline void multi(command& c) {
    if (c.sess.multi.active) return c.out.error(errors::multi_nested);
    c.sess.multi.active = true;
    c.out.ok();
}

/// DISCARD.
inline void discard(command& c) {
    if (!c.sess.multi.active) return c.out.error(errors::discard_without_multi);
    detail::discard_transaction(c);
    c.out.ok();
}

/// EXEC.
inline void exec(command& c) {
    if (!c.sess.multi.active) return c.out.error(errors::exec_without_multi);
    const bool failed = c.sess.multi.failed;
    const bool dirty =
        c.sess.id != 0 && (c.state.watches.dirty(c.sess.id) || detail::watched_key_expired(c));
    if (failed || dirty) {
        detail::discard_transaction(c);
        return failed ? c.out.error(errors::execabort) : c.out.null_array();
    }
    std::vector<std::vector<std::string>> queued = std::move(c.sess.multi.queued);
    detail::discard_transaction(c);  // unwatch at once, as Redis does
    const bool could_block = c.sess.allow_blocking;
    c.sess.allow_blocking = false;
    c.out.array(queued.size());
    for (const auto& argv : queued) c.state.dispatch(c.state, argv, c.sess, c.out);
    c.sess.allow_blocking = could_block;
}

/// WATCH key ...
inline void watch(command& c) {
    if (c.sess.multi.active) return c.out.error(errors::watch_inside_multi);
    const long long id = detail::session_id(c);
    if (c.state.watches.dirty(id)) return c.out.ok();  // no point watching more
    for (std::size_t j = 1; j < c.argc; ++j) {
        const database::entry* e = c.state.dbs[static_cast<std::size_t>(c.db())].find(c[j]);
        c.state.watches.watch(id, c.db(), c[j], e != nullptr && c.state.expired(*e));
    }
    c.out.ok();
}

/// UNWATCH.
inline void unwatch(command& c) {
    if (c.sess.id != 0) c.state.watches.forget(c.sess.id);
    c.out.ok();
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_TRANSACTIONS_HPP
