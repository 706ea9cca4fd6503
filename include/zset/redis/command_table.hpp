// zset::redis — the command table: every command a keyspace runs, its Redis metadata (arity,
// flags, key positions, ACL categories, as redis-server 7.0.15's COMMAND INFO reports them) and
// its handler. To find the code of a command, find its row: the handler is named after it and
// lives in the commands_<family>.hpp header included below.
// SPDX-License-Identifier: MIT
//
// Thread safety: constant data; find_command is safe to call concurrently.
#ifndef ZSET_REDIS_COMMAND_TABLE_HPP
#define ZSET_REDIS_COMMAND_TABLE_HPP

#include <array>
#include <cstddef>
#include <iterator>
#include <string_view>
#include <unordered_map>

#include "../detail/redis_text.hpp"
#include "command.hpp"
#include "commands_connection.hpp"
#include "commands_expire.hpp"
#include "commands_info.hpp"
#include "commands_keys.hpp"
#include "commands_scripting.hpp"
#include "commands_server.hpp"
#include "commands_set.hpp"
#include "commands_transactions.hpp"
#include "commands_zset_read.hpp"
#include "commands_zset_setops.hpp"
#include "commands_zset_write.hpp"

namespace zset::redis::detail {

/// The parent of container commands (CONFIG, OBJECT, CLIENT, MEMORY, FUNCTION): reached only
/// without a subcommand, which their arity already refuses.
inline void container_without_subcommand(command& c) {
    c.out.error(errors::wrong_arity(c.spec->name));
}

namespace cmd = zset::redis::commands;

/// Two arrays of rows as one std::array (at compile time).
template <class Row, std::size_t A, std::size_t B>
constexpr std::array<Row, A + B> concat_rows(const Row (&a)[A], const Row (&b)[B]) {
    std::array<Row, A + B> all{};
    for (std::size_t i = 0; i < A; ++i) all[i] = a[i];
    for (std::size_t i = 0; i < B; ++i) all[A + i] = b[i];
    return all;
}

// ACL category lists shared by many rows.
#define ZSET_RW_FAST "@write @sortedset @fast"
#define ZSET_RD_FAST "@read @sortedset @fast"
#define ZSET_RD_SLOW "@read @sortedset @slow"
#define ZSET_WR_SLOW "@write @sortedset @slow"
#define ZSET_KEY_RD_FAST "@keyspace @read @fast"
#define ZSET_KEY_WR_FAST "@keyspace @write @fast"
#define ZSET_TX_FLAGS "noscript loading stale fast allow_busy"
#define ZSET_CONN_FLAGS "noscript loading stale fast no_auth allow_busy"

inline constexpr command_spec command_subcommands[] = {
    {"command|count", 2, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_count},
    {"command|docs", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_docs},
    {"command|help", 2, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_help},
    {"command|info", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_info},
    {"command|list", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_list},
};
inline constexpr command_spec config_subcommands[] = {
    {"config|get", -3, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd::config_get},
    {"config|help", 2, "loading stale", 0, 0, 0, "@slow", cmd::config_help},
    {"config|resetstat", 2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd::config_resetstat},
    {"config|set", -4, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd::config_set},
};
inline constexpr command_spec function_subcommands[] = {
    {"function|delete", 3, "write noscript", 0, 0, 0, "@write @slow @scripting",
     cmd::function_delete},
    {"function|flush", -2, "write noscript", 0, 0, 0, "@write @slow @scripting",
     cmd::function_flush},
    {"function|help", 2, "loading stale", 0, 0, 0, "@slow @scripting", cmd::function_help},
    {"function|kill", 2, "noscript allow_busy", 0, 0, 0, "@slow @scripting", cmd::function_kill},
    {"function|list", -2, "noscript", 0, 0, 0, "@slow @scripting", cmd::function_list},
    {"function|load", -3, "write denyoom noscript", 0, 0, 0, "@write @slow @scripting",
     cmd::function_load},
    {"function|stats", 2, "noscript allow_busy", 0, 0, 0, "@slow @scripting", cmd::function_stats},
};
inline constexpr command_spec object_subcommands[] = {
    {"object|encoding", 3, "readonly", 2, 2, 1, "@keyspace @read @slow", cmd::object_encoding},
    {"object|help", 2, "loading stale", 0, 0, 0, "@keyspace @slow", cmd::object_help},
};
inline constexpr command_spec memory_subcommands[] = {
    {"memory|help", 2, "loading stale", 0, 0, 0, "@slow", cmd::memory_help},
    {"memory|usage", -3, "readonly", 2, 2, 1, "@read @slow", cmd::memory_usage},
};
inline constexpr command_spec client_subcommands[] = {
    {"client|getname", 2, "noscript loading stale", 0, 0, 0, "@slow @connection",
     cmd::client_getname},
    {"client|help", 2, "loading stale", 0, 0, 0, "@slow @connection", cmd::client_help},
    {"client|id", 2, "noscript loading stale", 0, 0, 0, "@slow @connection", cmd::client_id},
    {"client|info", 2, "noscript loading stale", 0, 0, 0, "@slow @connection", cmd::client_info},
    {"client|kill", -3, "admin noscript loading stale", 0, 0, 0,
     "@admin @slow @dangerous @connection", cmd::client_kill},
    {"client|list", -2, "admin noscript loading stale", 0, 0, 0,
     "@admin @slow @dangerous @connection", cmd::client_list},
    {"client|setname", 3, "noscript loading stale", 0, 0, 0, "@slow @connection",
     cmd::client_setname},
};

/// The sorted-set commands (commands_zset_*.hpp), for any sorted-set context (command.hpp): the
/// keyspace runs them with `command`, the Redis module (module/) with its own context.
template <class Ctx>
inline constexpr basic_command_spec<Ctx> zset_command_table[] = {
    // ---- sorted sets: writes (commands_zset_write.hpp)
    {"zadd", -4, "write denyoom fast", 1, 1, 1, ZSET_RW_FAST, cmd::zadd<Ctx>},
    {"zincrby", 4, "write denyoom fast", 1, 1, 1, ZSET_RW_FAST, cmd::zincrby<Ctx>},
    {"zrem", -3, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd::zrem<Ctx>},
    {"zremrangebyrank", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd::zremrangebyrank<Ctx>},
    {"zremrangebyscore", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd::zremrangebyscore<Ctx>},
    {"zremrangebylex", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd::zremrangebylex<Ctx>},
    {"zpopmin", -2, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd::zpopmin<Ctx>},
    {"zpopmax", -2, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd::zpopmax<Ctx>},
    {"zmpop", -4, "write movablekeys", 0, 0, 0, ZSET_WR_SLOW, cmd::zmpop<Ctx>},
    {"bzpopmin", -3, "write noscript blocking fast", 1, -2, 1, ZSET_RW_FAST " @blocking",
     cmd::bzpopmin<Ctx>},
    {"bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, ZSET_RW_FAST " @blocking",
     cmd::bzpopmax<Ctx>},
    {"bzmpop", -5, "write blocking movablekeys", 0, 0, 0, ZSET_WR_SLOW " @blocking",
     cmd::bzmpop<Ctx>},
    // ---- sorted sets: reads (commands_zset_read.hpp)
    {"zscore", 3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zscore<Ctx>},
    {"zmscore", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zmscore<Ctx>},
    {"zcard", 2, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zcard<Ctx>},
    {"zcount", 4, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zcount<Ctx>},
    {"zlexcount", 4, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zlexcount<Ctx>},
    {"zrank", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zrank<Ctx>},
    {"zrevrank", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd::zrevrank<Ctx>},
    {"zrange", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrange<Ctx>},
    {"zrangebyscore", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrangebyscore<Ctx>},
    {"zrevrangebyscore", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrevrangebyscore<Ctx>},
    {"zrangebylex", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrangebylex<Ctx>},
    {"zrevrangebylex", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrevrangebylex<Ctx>},
    {"zrevrange", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrevrange<Ctx>},
    {"zrangestore", -5, "write denyoom", 1, 2, 1, ZSET_WR_SLOW, cmd::zrangestore<Ctx>},
    {"zrandmember", -2, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zrandmember<Ctx>},
    {"zscan", -3, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd::zscan<Ctx>},
    // ---- sorted sets: set operations (commands_zset_setops.hpp)
    {"zunion", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd::zunion<Ctx>},
    {"zinter", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd::zinter<Ctx>},
    {"zdiff", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd::zdiff<Ctx>},
    {"zunionstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd::zunionstore<Ctx>},
    {"zinterstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd::zinterstore<Ctx>},
    {"zdiffstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd::zdiffstore<Ctx>},
    {"zintercard", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd::zintercard<Ctx>},
};

/// The keyspace's other commands.
inline constexpr command_spec keyspace_command_table[] = {
    // ---- plain sets (commands_set.hpp)
    {"sadd", -3, "write denyoom fast", 1, 1, 1, "@write @set @fast", cmd::sadd},
    {"srem", -3, "write fast", 1, 1, 1, "@write @set @fast", cmd::srem},
    {"smembers", 2, "readonly", 1, 1, 1, "@read @set @slow", cmd::smembers},
    {"scard", 2, "readonly fast", 1, 1, 1, "@read @set @fast", cmd::scard},
    {"sismember", 3, "readonly fast", 1, 1, 1, "@read @set @fast", cmd::sismember},
    // ---- keys (commands_keys.hpp)
    {"del", -2, "write", 1, -1, 1, "@keyspace @write @slow", cmd::del},
    {"unlink", -2, "write fast", 1, -1, 1, ZSET_KEY_WR_FAST, cmd::del},
    {"exists", -2, "readonly fast", 1, -1, 1, ZSET_KEY_RD_FAST, cmd::exists},
    {"touch", -2, "readonly fast", 1, -1, 1, ZSET_KEY_RD_FAST, cmd::exists},
    {"type", 2, "readonly fast", 1, 1, 1, ZSET_KEY_RD_FAST, cmd::type},
    {"keys", 2, "readonly", 0, 0, 0, "@keyspace @read @slow @dangerous", cmd::keys},
    {"scan", -2, "readonly", 0, 0, 0, "@keyspace @read @slow", cmd::scan},
    {"dump", 2, "readonly", 1, 1, 1, "@keyspace @read @slow", cmd::dump},
    {"restore", -4, "write denyoom", 1, 1, 1, "@keyspace @write @slow @dangerous", cmd::restore},
    {"set", -3, "write denyoom", 1, 1, 1, "@write @string @slow", cmd::set},
    {"get", 2, "readonly fast", 1, 1, 1, "@read @string @fast", cmd::get},
    {"object", -2, "", 0, 0, 0, "@slow", container_without_subcommand, trait_none,
     object_subcommands, std::size(object_subcommands)},
    {"memory", -2, "", 0, 0, 0, "@slow", container_without_subcommand, trait_none,
     memory_subcommands, std::size(memory_subcommands)},
    // ---- expiry (commands_expire.hpp)
    {"expire", -3, "write fast", 1, 1, 1, ZSET_KEY_WR_FAST, cmd::expire},
    {"pexpire", -3, "write fast", 1, 1, 1, ZSET_KEY_WR_FAST, cmd::pexpire},
    {"expireat", -3, "write fast", 1, 1, 1, ZSET_KEY_WR_FAST, cmd::expireat},
    {"pexpireat", -3, "write fast", 1, 1, 1, ZSET_KEY_WR_FAST, cmd::pexpireat},
    {"ttl", 2, "readonly fast", 1, 1, 1, ZSET_KEY_RD_FAST, cmd::ttl},
    {"pttl", 2, "readonly fast", 1, 1, 1, ZSET_KEY_RD_FAST, cmd::pttl},
    {"expiretime", 2, "readonly fast", 1, 1, 1, ZSET_KEY_RD_FAST, cmd::expiretime},
    {"pexpiretime", 2, "readonly fast", 1, 1, 1, ZSET_KEY_RD_FAST, cmd::pexpiretime},
    {"persist", 2, "write fast", 1, 1, 1, ZSET_KEY_WR_FAST, cmd::persist},
    // ---- transactions (commands_transactions.hpp)
    {"multi", 1, ZSET_TX_FLAGS, 0, 0, 0, "@fast @transaction", cmd::multi, trait_not_queued},
    {"exec", 1, "noscript loading stale skip_slowlog", 0, 0, 0, "@slow @transaction", cmd::exec,
     trait_not_queued},
    {"discard", 1, ZSET_TX_FLAGS, 0, 0, 0, "@fast @transaction", cmd::discard, trait_not_queued},
    {"watch", -2, ZSET_TX_FLAGS, 1, -1, 1, "@fast @transaction", cmd::watch, trait_not_queued},
    {"unwatch", 1, ZSET_TX_FLAGS, 0, 0, 0, "@fast @transaction", cmd::unwatch},
    // ---- connection (commands_connection.hpp)
    {"ping", -1, "fast", 0, 0, 0, "@fast @connection", cmd::ping},
    {"echo", 2, "loading stale fast", 0, 0, 0, "@fast @connection", cmd::echo},
    {"select", 2, "loading stale fast", 0, 0, 0, "@fast @connection", cmd::select},
    {"hello", -1, ZSET_CONN_FLAGS, 0, 0, 0, "@fast @connection", cmd::hello, trait_no_auth},
    {"auth", -2, ZSET_CONN_FLAGS, 0, 0, 0, "@fast @connection", cmd::auth, trait_no_auth},
    {"quit", -1, ZSET_CONN_FLAGS, 0, 0, 0, "@fast @connection", cmd::quit,
     trait_no_auth | trait_not_queued},
    {"reset", 1, ZSET_CONN_FLAGS, 0, 0, 0, "@fast @connection", cmd::reset,
     trait_no_auth | trait_not_queued},
    {"client", -2, "", 0, 0, 0, "@slow", container_without_subcommand, trait_none,
     client_subcommands, std::size(client_subcommands)},
    // ---- server (commands_server.hpp)
    {"dbsize", 1, "readonly fast", 0, 0, 0, ZSET_KEY_RD_FAST, cmd::dbsize},
    {"flushdb", -1, "write", 0, 0, 0, "@keyspace @write @slow @dangerous", cmd::flushdb},
    {"flushall", -1, "write", 0, 0, 0, "@keyspace @write @slow @dangerous", cmd::flushall},
    {"swapdb", 3, "write fast", 0, 0, 0, "@keyspace @write @fast @dangerous", cmd::swapdb},
    {"info", -1, "loading stale", 0, 0, 0, "@slow @dangerous", cmd::info},
    {"debug", -2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", cmd::debug,
     trait_debug},
    {"command", -1, "loading stale", 0, 0, 0, "@slow @connection", cmd::command_all, trait_none,
     command_subcommands, std::size(command_subcommands)},
    {"config", -2, "", 0, 0, 0, "@slow", container_without_subcommand, trait_none,
     config_subcommands, std::size(config_subcommands)},
    // ---- scripting (commands_scripting.hpp)
    {"function", -2, "", 0, 0, 0, "@slow", container_without_subcommand, trait_none,
     function_subcommands, std::size(function_subcommands)},
};

/// Every command of the keyspace: the sorted-set rows, then the others.
inline constexpr auto command_table =
    concat_rows(zset_command_table<command>, keyspace_command_table);

#undef ZSET_RW_FAST
#undef ZSET_RD_FAST
#undef ZSET_RD_SLOW
#undef ZSET_WR_SLOW
#undef ZSET_KEY_RD_FAST
#undef ZSET_KEY_WR_FAST
#undef ZSET_TX_FLAGS
#undef ZSET_CONN_FLAGS

/// Finds a command by name, case-insensitively (names are compared as whole binary strings,
/// as Redis's command dictionary does). O(1) expected.
inline const command_spec* find_command(std::string_view name) noexcept {
    static const auto table = [] {
        std::unordered_map<std::string_view, const command_spec*> m;
        for (const command_spec& c : command_table) m.emplace(c.name, &c);
        return m;
    }();
    char buf[24];
    if (name.size() > sizeof buf) return nullptr;
    for (std::size_t i = 0; i < name.size(); ++i) buf[i] = zset::detail::ascii_lower(name[i]);
    const auto it = table.find(std::string_view(buf, name.size()));
    return it == table.end() ? nullptr : it->second;
}

/// Finds a subcommand of a container command ("config" + "get"), case-insensitively.
inline const command_spec* find_subcommand(const command_spec& parent,
                                           std::string_view name) noexcept {
    for (std::size_t i = 0; i < parent.subcommand_count; ++i) {
        const command_spec& s = parent.subcommands[i];
        if (zset::detail::ascii_iequals(name, s.name.substr(s.name.find('|') + 1))) return &s;
    }
    return nullptr;
}

}  // namespace zset::redis::detail

#endif  // ZSET_REDIS_COMMAND_TABLE_HPP
