// zset::redis::commands — generic key commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, KEYS, SCAN,
// DUMP, RESTORE, OBJECT ENCODING, MEMORY USAGE, SET and GET (strings exist so that WRONGTYPE
// behaves as in Redis).
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's db.c, cluster.c (RESTORE) and object.c, checked against
// redis-server 7.0.15. Expiry commands are in commands_expire.hpp.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_KEYS_HPP
#define ZSET_REDIS_COMMANDS_KEYS_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "glob.hpp"
#include "value_codec.hpp"

namespace zset::redis::commands {

/// DEL / UNLINK key ...
inline void del(command& c) {
    long long n = 0;
    for (std::size_t j = 1; j < c.argc; ++j)
        if (c.state.lookup(c.db(), c[j]) != nullptr && c.state.remove(c.db(), c[j])) ++n;
    c.out.integer(n);
}

/// EXISTS / TOUCH key ...: how many of the keys exist (a key named twice counts twice).
inline void exists(command& c) {
    long long n = 0;
    for (std::size_t j = 1; j < c.argc; ++j) n += c.state.lookup(c.db(), c[j]) != nullptr ? 1 : 0;
    c.out.integer(n);
}

/// TYPE key.
inline void type(command& c) {
    const database::entry* e = c.state.lookup(c.db(), c[1]);
    c.out.simple(e == nullptr ? "none" : type_name(e->value));
}

/// KEYS pattern: live keys matching the glob (expired ones are skipped, not deleted).
inline void keys(command& c) {
    const std::string_view pattern = c[1];
    const bool all = pattern == "*";
    std::vector<std::string_view> found;
    c.state.dbs[static_cast<std::size_t>(c.db())].for_each(
        [&](std::string_view name, const database::entry& e) {
            if ((all || glob_match(pattern, name)) && !c.state.expired(e)) found.push_back(name);
        });
    c.out.array(found.size());
    for (const std::string_view k : found) c.out.bulk(k);
}

/// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
inline void scan(command& c) {
    const auto cursor = detail::parse_scan_cursor(c[1], c.rules().scan_cursor_string2ull);
    if (!cursor) return c.out.error(errors::invalid_cursor);
    detail::scan_options o;
    if (!detail::parse_scan_options(c, 2, true, o)) return;
    std::vector<std::string> names;
    const std::uint64_t next = c.state.dbs[static_cast<std::size_t>(c.db())].scan(
        *cursor, redis::detail::count_as_size(o.count),
        [&](std::string_view name, const database::entry&) { names.emplace_back(name); });
    std::vector<std::string> out;
    for (std::string& name : names) {
        if (o.use_pattern && !glob_match(o.pattern, name)) continue;
        // Expires lazily; only the type check counts as a read (Redis 7.0's scanGenericCommand).
        const database::entry* e = c.state.lookup(c.db(), name, !o.type.empty());
        // As Redis 7.0: with TYPE the type is read first (an expired key reads as "none" and
        // is deleted), and a key of the asked type is listed even when that deleted it.
        if (!o.type.empty()) {
            const std::string_view t = e == nullptr ? "none" : type_name(e->value);
            if (!zset::detail::ascii_iequals(zset::detail::c_string_prefix(o.type), t)) continue;
        } else if (e == nullptr) {
            continue;
        }
        out.push_back(std::move(name));
    }
    c.out.array(2);
    c.out.bulk(std::to_string(next));
    c.out.array(out.size());
    for (const std::string& k : out) c.out.bulk(k);
}

/// DUMP key.
inline void dump(command& c) {
    const database::entry* e = c.state.lookup(c.db(), c[1]);
    if (e == nullptr) return c.out.null();
    c.out.bulk(detail::dump_value(e->value));
}

/// RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f].
inline void restore(command& c) {
    detail::restore_options o;
    if (!detail::parse_restore_options(c, o)) return;
    const std::string_view key = c[1];
    if (!o.replace && c.state.lookup(c.db(), key) != nullptr) return c.out.error(errors::busykey);
    long long ttl = 0;
    if (!detail::integer_arg(c, 2, ttl)) return;
    if (ttl < 0) return c.out.error(errors::invalid_ttl);
    std::string_view error;
    auto v = detail::restore_value(c[3], c.state.opts, error);
    if (!v) return c.out.error(error);
    const bool deleted = o.replace && c.state.dbs[static_cast<std::size_t>(c.db())].erase(key);
    if (ttl != 0 && !o.absttl) ttl += c.state.now;
    if (ttl != 0 && ttl <= c.state.now) {  // already expired: nothing is stored
        if (deleted) c.state.modified(c.db(), key);
        return c.out.ok();
    }
    c.state.add(c.db(), key, std::move(*v));
    if (ttl != 0) c.state.dbs[static_cast<std::size_t>(c.db())].set_expire(key, ttl);
    c.state.modified(c.db(), key);
    c.out.ok();
}

/// OBJECT ENCODING key.
inline void object_encoding(command& c) {
    const database::entry* e = c.state.lookup(c.db(), c[2]);
    if (e == nullptr) return c.out.null();
    if (const auto* z = std::get_if<zset_value>(&e->value))
        return c.out.bulk(z->encoding() == zset::encoding::listpack ? "listpack" : "skiplist");
    if (const auto* s = std::get_if<set_value>(&e->value))
        return c.out.bulk(encoding_name(s->object_encoding()));
    const std::string& str = std::get<std::string>(e->value);
    if (str.size() <= 20 && parse_integer(str)) return c.out.bulk("int");
    c.out.bulk(str.size() <= 44 ? "embstr" : "raw");
}

inline void object_help(command& c) {
    c.out.help({"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "ENCODING <key>",
                "    Return the kind of internal representation used in order to store the value",
                "    associated with a <key>.", "HELP", "    Print this help."});
}

namespace detail {

/// Bytes a value takes, as MEMORY USAGE reports it (the container's own accounting for sorted
/// sets, node and text sizes for plain sets and strings).
inline std::size_t value_memory(const value& v) noexcept {
    if (const auto* z = std::get_if<zset_value>(&v)) return z->memory_usage();
    if (const auto* s = std::get_if<set_value>(&v)) return s->memory_usage();
    const std::string& str = std::get<std::string>(v);
    return sizeof(std::string) + (str.capacity() > 15 ? str.capacity() + 1 : 0);
}

/// Bytes of a whole key: its name, its table node and its value.
inline std::size_t key_memory(std::string_view name, const database::entry& e) noexcept {
    constexpr std::size_t node =
        4 * sizeof(void*) + sizeof(std::size_t) + sizeof(std::string) + sizeof(database::entry);
    return node + (name.size() > 15 ? name.size() + 1 : 0) + value_memory(e.value);
}

}  // namespace detail

/// MEMORY USAGE key [SAMPLES count] (every element is counted: SAMPLES is accepted).
inline void memory_usage(command& c) {
    for (std::size_t j = 3; j < c.argc; ++j) {
        long long samples = 0;
        if (!c.is(j, "samples") || j + 1 >= c.argc) return c.out.error(errors::syntax);
        if (!detail::integer_arg(c, ++j, samples)) return;
        if (samples < 0) return c.out.error(errors::syntax);
    }
    const database::entry* e = c.state.dbs[static_cast<std::size_t>(c.db())].find(c[2]);
    if (e == nullptr) return c.out.null();
    c.out.integer(static_cast<long long>(detail::key_memory(c[2], *e)));
}

inline void memory_help(command& c) {
    c.out.help({"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "USAGE <key> [SAMPLES <count>]",
                "    Return memory in bytes used by <key> and its value.", "HELP",
                "    Print this help."});
}

/// SET key value (no options).
inline void set(command& c) {
    if (c.argc != 3) return c.out.error(errors::syntax);
    c.state.set(c.db(), c[1], value(std::string(c[2])));
    c.out.ok();
}

/// GET key.
inline void get(command& c) {
    const auto s = c.find<std::string>(c[1]);
    if (s.missing()) return c.out.null();
    if (c.wrongtype(s)) return;
    c.out.bulk(*s.value);
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_KEYS_HPP
