// zset::redis::commands — the server: SWAPDB, FLUSHDB, FLUSHALL, DBSIZE, CONFIG (GET, SET,
// RESETSTAT, HELP), COMMAND (COUNT, INFO, DOCS, LIST, HELP) and DEBUG (RELOAD, LOG,
// SET-ACTIVE-EXPIRE, SLEEP, HELP).
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's db.c, server.c, config.c and debug.c for these commands (checked
// against redis-server 7.0.15). INFO is in commands_info.hpp.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_SERVER_HPP
#define ZSET_REDIS_COMMANDS_SERVER_HPP

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "commands_keys.hpp"
#include "glob.hpp"
#include "value_codec.hpp"

namespace zset::redis::commands {

namespace detail {

/// Redis touchAllWatchedKeysInDb for `emptied` (replaced by `replaced_with`, -1 for none).
inline void touch_db(command& c, int emptied, int replaced_with) {
    if (c.state.watches.empty()) return;
    const auto& dbs = c.state.dbs;
    c.state.watches.touch_all_in_db(
        emptied, replaced_with,
        [&](int db, const std::string& k) { return dbs[std::size_t(db)].find(k) != nullptr; },
        [&](int db, const std::string& k) {
            const database::entry* e = dbs[std::size_t(db)].find(k);
            return e != nullptr && c.state.expired(*e);
        });
}

/// FLUSHDB / FLUSHALL's optional ASYNC | SYNC.
inline bool flush_mode_ok(command& c) {
    if (c.argc == 1 || (c.argc == 2 && (c.is(1, "async") || c.is(1, "sync")))) return true;
    c.out.error(errors::syntax);
    return false;
}

}  // namespace detail

/// FLUSHDB [ASYNC|SYNC].
inline void flushdb(command& c) {
    if (!detail::flush_mode_ok(c)) return;
    detail::touch_db(c, c.db(), -1);
    c.state.dbs[static_cast<std::size_t>(c.db())].clear();
    c.out.ok();
}

/// FLUSHALL [ASYNC|SYNC].
inline void flushall(command& c) {
    if (!detail::flush_mode_ok(c)) return;
    for (std::size_t i = 0; i < c.state.dbs.size(); ++i) {
        detail::touch_db(c, static_cast<int>(i), -1);
        c.state.dbs[i].clear();
    }
    c.out.ok();
}

/// DBSIZE: keys in the selected database, logically expired ones not yet removed included.
inline void dbsize(command& c) {
    c.out.integer(static_cast<long long>(c.state.dbs[static_cast<std::size_t>(c.db())].size()));
}

/// SWAPDB index1 index2: clients blocked on a key of either database are woken when it now
/// holds a sorted set; WATCHed keys existing in either database are touched.
inline void swapdb(command& c) {
    const auto a = parse_integer(c[1]), b = parse_integer(c[2]);
    if (!a || *a < INT_MIN || *a > INT_MAX) return c.out.error(errors::invalid_first_db_index);
    if (!b || *b < INT_MIN || *b > INT_MAX) return c.out.error(errors::invalid_second_db_index);
    const long long n = static_cast<long long>(c.state.dbs.size());
    if (*a < 0 || *a >= n || *b < 0 || *b >= n) return c.out.error(errors::db_index_out_of_range);
    const int x = static_cast<int>(*a), y = static_cast<int>(*b);
    if (x != y) {
        detail::touch_db(c, x, y);
        detail::touch_db(c, y, x);
        c.state.dbs[std::size_t(x)].swap(c.state.dbs[std::size_t(y)]);
        for (const int db : {x, y})
            for (const std::string& k : c.state.blocked.keys_in(db))
                if (c.state.dbs[std::size_t(db)].find(k) != nullptr) c.state.blocked.signal(db, k);
    }
    c.out.ok();
}

// ---- CONFIG -----------------------------------------------------------------------------------

/// CONFIG GET pattern ...: a pattern without glob characters names one parameter (any case) and
/// is echoed as typed; a glob lists the canonical names it matches. Each parameter once.
inline void config_get(command& c) {
    std::size_t n = 0;
    const auto* table = redis::detail::config_parameters(n);
    std::vector<std::pair<std::string_view, const redis::detail::config_parameter*>> hits;
    const auto listed = [&](const redis::detail::config_parameter* p) {
        for (const auto& h : hits)
            if (h.second == p) return true;
        return false;
    };
    for (std::size_t j = 2; j < c.argc; ++j) {
        const std::string_view pattern = zset::detail::c_string_prefix(c[j]);
        const bool glob = pattern.find_first_of("*?[") != std::string_view::npos;
        for (std::size_t i = 0; i < n; ++i) {
            const auto* p = &table[i];
            if (listed(p)) continue;
            if (glob ? glob_match(pattern, p->name, true)
                     : zset::detail::ascii_iequals(pattern, p->name))
                hits.emplace_back(glob ? p->name : pattern, p);
        }
    }
    c.out.map(hits.size());
    for (const auto& h : hits) {
        c.out.bulk(h.first);
        c.out.bulk(redis::detail::config_value(*h.second, c.state.opts));
    }
}

namespace detail {

/// CONFIG SET's checks before any value is parsed (Redis configSetCommand's first loop).
inline bool config_set_targets(command& c, std::vector<const config_parameter*>& targets) {
    std::string_view unknown, failed_name, reason;
    for (std::size_t i = 2; i < c.argc; i += 2) {
        const config_parameter* p = find_config_parameter(c[i]);
        if (p == nullptr) {
            if (unknown.empty() && failed_name.empty()) unknown = c[i];
            continue;
        }
        if (!unknown.empty() || !failed_name.empty()) continue;
        if (!p->modifiable) failed_name = c[i], reason = "can't set immutable config";
        for (const config_parameter* q : targets)
            if (q == p && failed_name.empty()) failed_name = c[i], reason = "duplicate parameter";
        targets.push_back(p);
    }
    if (!unknown.empty())
        return c.out.error(with_argument(
                   "ERR Unknown option or number of arguments for CONFIG SET - '", unknown, "'")),
               false;
    if (!failed_name.empty())
        return c.out.error(with_argument("ERR CONFIG SET failed (possibly related to argument '",
                                         failed_name, "') - " + std::string(reason))),
               false;
    return true;
}

}  // namespace detail

/// CONFIG SET parameter value [parameter value ...]: all values or none.
inline void config_set(command& c) {
    if (c.argc % 2 != 0) return c.out.error(errors::syntax);
    std::vector<const redis::detail::config_parameter*> targets;
    if (!detail::config_set_targets(c, targets)) return;
    keyspace_options next = c.state.opts;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const std::string why = redis::detail::set_config_value(*targets[i], next, c[3 + 2 * i]);
        if (!why.empty())
            return c.out.error("ERR CONFIG SET failed (possibly related to argument '" +
                               std::string(targets[i]->name) + "') - " + why);
    }
    c.state.opts = std::move(next);
    c.out.ok();
}

inline void config_resetstat(command& c) {
    const long long start = c.state.stats.start_ms;
    c.state.stats = redis::detail::server_stats{};
    c.state.stats.start_ms = start;
    c.out.ok();
}

inline void config_help(command& c) {
    c.out.help({"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
                "RESETSTAT", "    Reset statistics reported by the INFO command.", "HELP",
                "    Print this help."});
}

// ---- COMMAND ----------------------------------------------------------------------------------

namespace detail {

/// A space-separated word list as an array of status replies.
inline void words(command& c, std::string_view list) {
    std::vector<std::string_view> w;
    for (std::size_t i = 0; i < list.size();) {
        const std::size_t e = std::min(list.find(' ', i), list.size());
        if (e > i) w.push_back(list.substr(i, e - i));
        i = e + 1;
    }
    c.out.array(w.size());
    for (const std::string_view x : w) c.out.simple(x);
}

inline void command_entry(command& c, const command_spec& s) {
    c.out.array(10);
    c.out.bulk(s.name);
    c.out.integer(s.arity);
    words(c, s.flags);
    c.out.integer(s.first_key);
    c.out.integer(s.last_key);
    c.out.integer(s.step);
    words(c, s.acl);
    c.out.array(0);  // tips
    c.out.array(0);  // key specifications
    c.out.array(s.subcommand_count);
    for (std::size_t i = 0; i < s.subcommand_count; ++i) command_entry(c, s.subcommands[i]);
}

}  // namespace detail

/// COMMAND (every command's description).
inline void command_all(command& c) {
    c.out.array(c.state.command_count);
    for (std::size_t i = 0; i < c.state.command_count; ++i)
        detail::command_entry(c, c.state.commands[i]);
}

inline void command_count(command& c) {
    c.out.integer(static_cast<long long>(c.state.command_count));
}

inline void command_list(command& c) {
    c.out.array(c.state.command_count);
    for (std::size_t i = 0; i < c.state.command_count; ++i) c.out.bulk(c.state.commands[i].name);
}

/// COMMAND INFO [name ...].
inline void command_info(command& c) {
    if (c.argc == 2) return command_all(c);
    c.out.array(c.argc - 2);
    for (std::size_t j = 2; j < c.argc; ++j) {
        const command_spec* s = c.state.find_command(c[j]);
        if (s == nullptr)
            c.out.null();
        else
            detail::command_entry(c, *s);
    }
}

/// COMMAND DOCS: no documentation is carried (an empty map).
inline void command_docs(command& c) {
    c.out.map(0);
}

inline void command_help(command& c) {
    c.out.help({"COMMAND [<subcommand> [<arg> [value] [opt] ...]]. Subcommands are:",
                "(no subcommand)", "    Return details about all Redis commands.", "COUNT",
                "    Return the total number of commands in this server.", "LIST",
                "    Return a list of all commands in this server.", "INFO [<command-name> ...]",
                "    Return details about multiple commands.", "DOCS [<command-name> ...]",
                "    Return documentation details about multiple commands (none here).", "HELP",
                "    Print this help."});
}

// ---- DEBUG ------------------------------------------------------------------------------------

namespace detail {

/// DEBUG RELOAD: every key through the DUMP codec and back (as Redis round-trips through an RDB
/// file): encodings are rebuilt by the loading rules, expired keys are dropped, TTLs kept.
inline void reload_all(command& c) {
    std::vector<database> fresh(c.state.dbs.size());
    long long loaded = 0, expired = 0;
    for (std::size_t i = 0; i < c.state.dbs.size(); ++i) {
        c.state.dbs[i].for_each([&](std::string_view name, const database::entry& e) {
            if (c.state.expired(e)) return void(++expired);
            ++loaded;
            std::string_view error;
            auto v = restore_value(dump_value(e.value), c.state.opts, error);
            if (!v) return;  // cannot happen: the codec reads back what it writes
            fresh[i].add(name, std::move(*v));
            if (e.expire_at != database::no_expiry) fresh[i].set_expire(name, e.expire_at);
        });
    }
    for (std::size_t i = 0; i < c.state.dbs.size(); ++i) touch_db(c, static_cast<int>(i), -1);
    c.state.dbs.swap(fresh);
    c.state.stats.last_load_keys_loaded = loaded;  // INFO rdb_last_load_keys_loaded / _expired
    c.state.stats.last_load_keys_expired = expired;
}

}  // namespace detail

/// DEBUG RELOAD [MERGE|NOFLUSH|NOSAVE ...] | LOG message | SET-ACTIVE-EXPIRE 0|1 |
/// SLEEP seconds | HELP.
inline void debug(command& c) {
    if (c.is(1, "help") && c.argc == 2)
        return c.out.help({"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                           "RELOAD [option ...]",
                           "    Dump every key and load it back (rebuilding encodings).",
                           "LOG <message>", "    Write <message> to the server log (none here).",
                           "SET-ACTIVE-EXPIRE <0|1>",
                           "    Setting it to 0 disables expiring keys when they are not accessed.",
                           "SLEEP <seconds>", "    Stop the server for <seconds>.", "HELP",
                           "    Print this help."});
    if (c.is(1, "reload")) {
        for (std::size_t j = 2; j < c.argc; ++j)
            if (!c.is(j, "merge") && !c.is(j, "noflush") && !c.is(j, "nosave"))
                return c.out.error(errors::debug_reload_options);
        detail::reload_all(c);
        return c.out.ok();
    }
    if (c.is(1, "log") && c.argc == 3) return c.out.ok();  // a keyspace keeps no log
    if (c.is(1, "set-active-expire") && c.argc == 3) {
        c.state.active_expire = std::atoi(std::string(c[2]).c_str()) != 0;
        return c.out.ok();
    }
    if (c.is(1, "sleep") && c.argc == 3) {
        const double seconds = std::strtod(std::string(c[2]).c_str(), nullptr);
        if (seconds > 0)
            std::this_thread::sleep_for(
                std::chrono::microseconds(static_cast<long long>(seconds * 1e6)));
        return c.out.ok();
    }
    c.out.error(errors::subcommand_syntax(c[0], c[1]));
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_SERVER_HPP
