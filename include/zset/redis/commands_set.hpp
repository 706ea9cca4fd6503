// zset::redis::commands — plain sets: SADD, SREM, SMEMBERS, SCARD, SISMEMBER.
// SPDX-License-Identifier: MIT
//
// Enough of Redis's SET type for sets to be inputs of ZUNION / ZINTER / ZDIFF / ZINTERCARD, with
// the t_set.c semantics Redis 7.0 and 7.2 share and 7.2's encodings (intset / listpack /
// hashtable, see values.hpp; keyspace_options::set_encodings picks 7.0's).
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_SET_HPP
#define ZSET_REDIS_COMMANDS_SET_HPP

#include <cstddef>
#include <string_view>

#include "command.hpp"

namespace zset::redis::commands {

/// SADD key member ...
inline void sadd(command& c) {
    auto s = c.find<set_value>(c[1]);
    if (c.wrongtype(s)) return;
    const set_value::limits limits = redis::detail::set_limits_of(c.state.opts);
    if (s.missing()) {
        s.entry = &c.state.add(c.db(), c[1], set_value::created(c[2], c.argc - 2, limits));
        s.value = std::get_if<set_value>(&s.entry->value);
    } else {
        s.value->reserve_for(c.argc - 2, limits);
    }
    long long added = 0;
    for (std::size_t j = 2; j < c.argc; ++j) added += s.value->add(c[j], limits) ? 1 : 0;
    if (added > 0) c.state.modified(c.db(), c[1]);
    c.out.integer(added);
}

/// SREM key member ...
inline void srem(command& c) {
    auto s = c.find<set_value>(c[1]);
    if (s.missing()) return c.out.integer(0);
    if (c.wrongtype(s)) return;
    long long deleted = 0;
    for (std::size_t j = 2; j < c.argc && !s.value->empty(); ++j)
        deleted += s.value->erase(c[j]) ? 1 : 0;
    if (s.value->empty())
        c.state.remove(c.db(), c[1]);
    else if (deleted > 0)
        c.state.modified(c.db(), c[1]);
    c.out.integer(deleted);
}

/// SMEMBERS key: a set reply (RESP3 "~"), in the set's order (values.hpp reply_order).
inline void smembers(command& c) {
    const auto s = c.find<set_value>(c[1]);
    if (c.wrongtype(s)) return;
    if (s.missing()) return c.out.set(0);
    const auto members = s.value->reply_order();
    c.out.set(members.size());
    for (const std::string_view m : members) c.out.bulk(m);
}

/// SCARD key.
inline void scard(command& c) {
    const auto s = c.find<set_value>(c[1]);
    if (s.missing()) return c.out.integer(0);
    if (c.wrongtype(s)) return;
    c.out.integer(static_cast<long long>(s.value->size()));
}

/// SISMEMBER key member.
inline void sismember(command& c) {
    const auto s = c.find<set_value>(c[1]);
    if (s.missing()) return c.out.integer(0);
    if (c.wrongtype(s)) return;
    c.out.integer(s.value->contains(c[2]) ? 1 : 0);
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_SET_HPP
