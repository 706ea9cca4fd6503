// zset::redis::commands — expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (NX / XX / GT / LT),
// TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST.
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's expire.c (checked against redis-server 7.0.15): a key without a time
// to live counts as infinite (GT fails, NX sets), a time already past deletes the key at once,
// and expired keys disappear lazily on access and actively (keyspace::cron).
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_EXPIRE_HPP
#define ZSET_REDIS_COMMANDS_EXPIRE_HPP

#include <climits>
#include <cstddef>

#include "arguments.hpp"
#include "command.hpp"

namespace zset::redis::commands {

namespace detail {

/// The unit of an expiry argument.
enum class time_unit { seconds, milliseconds };
/// What an expiry argument is measured from.
enum class time_base { now, unix_epoch };

/// NX | XX | GT | LT.
struct expire_conditions {
    bool nx = false, xx = false, gt = false, lt = false;
};

inline bool parse_expire_conditions(command& c, expire_conditions& f) {
    for (std::size_t j = 3; j < c.argc; ++j) {
        if (c.is(j, "nx"))
            f.nx = true;
        else if (c.is(j, "xx"))
            f.xx = true;
        else if (c.is(j, "gt"))
            f.gt = true;
        else if (c.is(j, "lt"))
            f.lt = true;
        else
            return c.out.error(errors::unsupported_option(c[j])), false;
    }
    if (f.nx && (f.xx || f.gt || f.lt)) return c.out.error(errors::expire_nx_xx_gt_lt), false;
    if (f.gt && f.lt) return c.out.error(errors::expire_gt_lt), false;
    return true;
}

/// Whether the conditions allow moving the expiry time from `current` (-1: none) to `when`.
inline bool expire_allowed(const expire_conditions& f, long long current, long long when) {
    if (f.nx && current != database::no_expiry) return false;
    if (f.xx && current == database::no_expiry) return false;
    if (f.gt && (current == database::no_expiry || when <= current)) return false;
    if (f.lt && current != database::no_expiry && when >= current) return false;
    return true;
}

/// Redis expireGenericCommand.
inline void expire_generic(command& c, time_unit unit, time_base base) {
    expire_conditions f;
    if (!parse_expire_conditions(c, f)) return;
    long long when = 0;
    if (!integer_arg(c, 2, when)) return;
    if (unit == time_unit::seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000)
            return c.out.error(errors::invalid_expire(c.spec->name));
        when *= 1000;
    }
    const long long basetime = base == time_base::now ? c.state.now : 0;
    if (when > LLONG_MAX - basetime) return c.out.error(errors::invalid_expire(c.spec->name));
    when += basetime;
    database::entry* e = c.state.lookup(c.db(), c[1]);
    if (e == nullptr || !expire_allowed(f, e->expire_at, when)) return c.out.integer(0);
    if (when <= c.state.now) {
        c.state.remove(c.db(), c[1]);  // already expired: deleted now
    } else {
        c.state.dbs[static_cast<std::size_t>(c.db())].set_expire(c[1], when);
        c.state.modified(c.db(), c[1]);
    }
    c.out.integer(1);
}

/// What TTL-family commands print.
enum class ttl_output { relative, absolute };

/// Redis ttlGenericCommand: -2 missing, -1 no expiry, else the time left (or the deadline).
inline void ttl_generic(command& c, time_unit unit, ttl_output output) {
    const database::entry* e = c.state.lookup(c.db(), c[1]);
    if (e == nullptr) return c.out.integer(-2);
    if (e->expire_at == database::no_expiry) return c.out.integer(-1);
    long long t = output == ttl_output::absolute ? e->expire_at : e->expire_at - c.state.now;
    if (t < 0) t = 0;
    // Seconds round to nearest as Redis's (t + 500) / 1000, written so that t near LLONG_MAX
    // (PEXPIREAT k 9223372036854775807) does not overflow.
    c.out.integer(unit == time_unit::milliseconds ? t : t / 1000 + (t % 1000 + 500) / 1000);
}

}  // namespace detail

inline void expire(command& c) {
    detail::expire_generic(c, detail::time_unit::seconds, detail::time_base::now);
}
inline void pexpire(command& c) {
    detail::expire_generic(c, detail::time_unit::milliseconds, detail::time_base::now);
}
inline void expireat(command& c) {
    detail::expire_generic(c, detail::time_unit::seconds, detail::time_base::unix_epoch);
}
inline void pexpireat(command& c) {
    detail::expire_generic(c, detail::time_unit::milliseconds, detail::time_base::unix_epoch);
}
inline void ttl(command& c) {
    detail::ttl_generic(c, detail::time_unit::seconds, detail::ttl_output::relative);
}
inline void pttl(command& c) {
    detail::ttl_generic(c, detail::time_unit::milliseconds, detail::ttl_output::relative);
}
inline void expiretime(command& c) {
    detail::ttl_generic(c, detail::time_unit::seconds, detail::ttl_output::absolute);
}
inline void pexpiretime(command& c) {
    detail::ttl_generic(c, detail::time_unit::milliseconds, detail::ttl_output::absolute);
}

/// PERSIST key.
inline void persist(command& c) {
    if (c.state.lookup(c.db(), c[1]) == nullptr) return c.out.integer(0);
    if (!c.state.dbs[static_cast<std::size_t>(c.db())].persist(c[1])) return c.out.integer(0);
    c.state.modified(c.db(), c[1]);
    c.out.integer(1);
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_EXPIRE_HPP
