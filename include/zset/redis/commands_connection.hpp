// zset::redis::commands — the connection: PING, ECHO, SELECT, HELLO, AUTH, CLIENT (ID, GETNAME,
// SETNAME, LIST, INFO, KILL, HELP), QUIT and RESET.
// SPDX-License-Identifier: MIT
//
// Semantics of Redis 7.0's networking.c, acl.c and db.c for these commands (checked against
// redis-server 7.0.15). There is one user, "default", whose password is requirepass.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_CONNECTION_HPP
#define ZSET_REDIS_COMMANDS_CONNECTION_HPP

#include <climits>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "commands_transactions.hpp"

namespace zset::redis::commands {

/// PING [message].
inline void ping(command& c) {
    if (c.argc > 2) return c.out.error(errors::wrong_arity("ping"));
    if (c.argc == 1) return c.out.simple("PONG");
    c.out.bulk(c[1]);
}

/// ECHO message.
inline void echo(command& c) {
    c.out.bulk(c[1]);
}

/// SELECT index.
inline void select(command& c) {
    long long id = 0;
    if (!detail::integer_arg(c, 1, id)) return;
    if (id < INT_MIN || id > INT_MAX) return c.out.error(errors::int_range);
    if (id < 0 || static_cast<std::size_t>(id) >= c.state.dbs.size())
        return c.out.error(errors::db_index_out_of_range);
    c.sess.db = static_cast<int>(id);
    c.out.ok();
}

namespace detail {

/// Whether (user, password) are the default user's credentials (any password when none is set).
inline bool credentials_ok(command& c, std::string_view user, std::string_view password) {
    const bool ok = user == "default" &&
                    (c.state.opts.requirepass.empty() || password == c.state.opts.requirepass);
    if (!ok) ++c.state.stats.auth_failures;  // INFO acl_access_denied_auth
    return ok;
}

/// Redis clientSetName: printable ASCII without spaces; "" removes the name.
inline bool set_client_name(command& c, std::string_view name) {
    for (const char ch : name)
        if (ch < '!' || ch > '~') return c.out.error(errors::client_name_spaces), false;
    c.sess.name.assign(name.data(), name.size());
    return true;
}

/// HELLO's reply (a map, in the possibly new protocol).
inline void hello_reply(command& c) {
    c.out.set_proto(c.sess.proto);
    c.out.map(7);
    c.out.bulk("server");
    c.out.bulk("redis");
    c.out.bulk("version");
    c.out.bulk(c.state.opts.server_version);
    c.out.bulk("proto");
    c.out.integer(c.sess.proto == protocol::resp3 ? 3 : 2);
    c.out.bulk("id");
    c.out.integer(session_id(c));
    c.out.bulk("mode");
    c.out.bulk("standalone");
    c.out.bulk("role");
    c.out.bulk("master");
    c.out.bulk("modules");
    c.out.array(0);
}

}  // namespace detail

/// HELLO [protover [AUTH username password] [SETNAME clientname]].
inline void hello(command& c) {
    long long ver = 0;
    if (c.argc >= 2) {
        const auto v = parse_integer(c[1]);
        if (!v) return c.out.error(errors::protocol_not_integer);
        if (*v < 2 || *v > 3) return c.out.error(errors::noproto);
        ver = *v;
    }
    for (std::size_t j = 2; j < c.argc; ++j) {
        const std::size_t more = c.argc - 1 - j;
        if (c.is(j, "auth") && more >= 2) {
            if (!detail::credentials_ok(c, c[j + 1], c[j + 2]))
                return c.out.error(errors::wrongpass);
            c.sess.authenticated = true;
            j += 2;
        } else if (c.is(j, "setname") && more >= 1) {
            if (!detail::set_client_name(c, c[++j])) return;
        } else {
            return c.out.error(
                detail::with_argument("ERR Syntax error in HELLO option '", c[j], "'"));
        }
    }
    if (!c.state.opts.requirepass.empty() && !c.sess.authenticated)
        return c.out.error(errors::hello_noauth);
    if (ver != 0) c.sess.proto = ver == 3 ? protocol::resp3 : protocol::resp2;
    detail::hello_reply(c);
}

/// AUTH [username] password.
inline void auth(command& c) {
    if (c.argc > 3) return c.out.error(errors::syntax);
    if (c.argc == 2 && c.state.opts.requirepass.empty())
        return c.out.error(errors::auth_without_password);
    const std::string_view user = c.argc == 2 ? std::string_view("default") : c[1];
    if (!detail::credentials_ok(c, user, c[c.argc - 1])) return c.out.error(errors::wrongpass);
    c.sess.authenticated = true;
    c.out.ok();
}

/// QUIT: +OK, then the server closes the connection.
inline void quit(command& c) {
    c.result.status = exec_status::quit;
    c.out.ok();
}

/// RESET: back to a fresh connection's state (RESP2, database 0, no MULTI / WATCH / name,
/// unauthenticated when a password is set). Replies +RESET.
inline void reset(command& c) {
    detail::discard_transaction(c);
    c.sess.proto = protocol::resp2;
    c.out.set_proto(protocol::resp2);
    c.sess.db = 0;
    c.sess.name.clear();
    c.sess.authenticated = c.state.opts.requirepass.empty();
    c.out.simple("RESET");
}

// ---- CLIENT ---------------------------------------------------------------------------------

namespace detail {

/// One CLIENT LIST line (Redis catClientInfoString's fields; buffer sizes are not tracked).
inline std::string client_line(const command& c, const session& s) {
    std::string flags;
    if (s.multi.active) flags += 'x';
    if (s.blocked) flags += 'b';
    if (s.id != 0 && c.state.watches.dirty(s.id)) flags += 'd';
    if (flags.empty()) flags = "N";
    const long long now_s = c.state.now / 1000;
    std::string line =
        "id=" + std::to_string(s.id) + " addr=" + s.info.addr + " laddr=" + s.info.laddr +
        " fd=" + std::to_string(s.info.fd) + " name=" + s.name +
        " age=" + std::to_string(now_s - s.created_ms / 1000) +
        " idle=" + std::to_string(now_s - s.last_command_ms / 1000) + " flags=" + flags +
        " db=" + std::to_string(s.db) + " sub=0 psub=0 ssub=0 multi=" +
        std::to_string(s.multi.active ? static_cast<long long>(s.multi.queued.size()) : -1);
    line += " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0"
            " events=r cmd=" +
            (s.last_command.empty() ? std::string("NULL") : s.last_command) +
            " user=default redir=-1 resp=" + (s.proto == protocol::resp3 ? "3" : "2") + "\n";
    return line;
}

/// Whether `type` names a client type Redis knows; ours are all "normal".
inline bool client_type_matches(command& c, std::string_view type, bool& normal) {
    static constexpr std::string_view known[] = {"normal", "master", "replica", "slave", "pubsub"};
    for (const std::string_view k : known)
        if (zset::detail::ascii_iequals(zset::detail::c_string_prefix(type), k)) {
            normal = k == "normal";
            return true;
        }
    c.out.error(with_argument("ERR Unknown client type '", type, "'"));
    return false;
}

/// CLIENT KILL's filters.
struct kill_filter {
    std::string_view addr, laddr;
    long long id = 0;
    bool normal = true;
    bool skipme = true;
};

inline bool parse_kill_filter(command& c, kill_filter& f) {
    if (c.argc == 3) {  // old form: CLIENT KILL addr, which may kill the caller
        f.addr = c[2];
        f.skipme = false;
        return true;
    }
    for (std::size_t i = 2; i < c.argc; i += 2) {
        if (i + 1 >= c.argc) return c.out.error(errors::syntax), false;
        if (c.is(i, "id")) {
            const auto v = parse_integer(c[i + 1]);
            if (!v || *v < 1) return c.out.error(errors::client_id_positive), false;
            f.id = *v;
        } else if (c.is(i, "type")) {
            if (!client_type_matches(c, c[i + 1], f.normal)) return false;
        } else if (c.is(i, "addr") || c.is(i, "laddr")) {
            (c.is(i, "addr") ? f.addr : f.laddr) = c[i + 1];
        } else if (c.is(i, "user")) {
            if (c[i + 1] != "default")
                return c.out.error(with_argument("ERR No such user '", c[i + 1], "'")), false;
        } else if (c.is(i, "skipme") && (c.is(i + 1, "yes") || c.is(i + 1, "no"))) {
            f.skipme = c.is(i + 1, "yes");
        } else {
            return c.out.error(errors::syntax), false;
        }
    }
    return true;
}

}  // namespace detail

inline void client_id(command& c) {
    c.out.integer(detail::session_id(c));
}

inline void client_getname(command& c) {
    return c.sess.name.empty() ? c.out.null() : c.out.bulk(c.sess.name);
}

inline void client_setname(command& c) {
    if (detail::set_client_name(c, c[2])) c.out.ok();
}

inline void client_info(command& c) {
    c.out.verbatim(detail::client_line(c, c.sess));
}

/// CLIENT LIST [TYPE type] | [ID id ...].
inline void client_list(command& c) {
    std::string text;
    if (c.argc == 4 && c.is(2, "type")) {
        bool normal = true;
        if (!detail::client_type_matches(c, c[3], normal)) return;
        if (normal)
            for (const auto& kv : c.state.clients) text += detail::client_line(c, *kv.second);
    } else if (c.argc > 3 && c.is(2, "id")) {
        for (std::size_t j = 3; j < c.argc; ++j) {
            const auto id = parse_integer(c[j]);
            if (!id) return c.out.error(errors::invalid_client_id);
            const auto it = c.state.clients.find(*id);
            if (it != c.state.clients.end()) text += detail::client_line(c, *it->second);
        }
    } else if (c.argc != 2) {
        return c.out.error(errors::syntax);
    } else {
        for (const auto& kv : c.state.clients) text += detail::client_line(c, *kv.second);
    }
    c.out.verbatim(text);
}

/// CLIENT KILL addr | CLIENT KILL [ID id] [TYPE t] [ADDR a] [LADDR a] [USER u] [SKIPME yes|no].
inline void client_kill(command& c) {
    detail::kill_filter f;
    if (!detail::parse_kill_filter(c, f)) return;
    long long killed = 0;
    bool self = false;
    for (const auto& kv : c.state.clients) {
        const session& s = *kv.second;
        if ((!f.addr.empty() && s.info.addr != f.addr) ||
            (!f.laddr.empty() && s.info.laddr != f.laddr) || !f.normal ||
            (f.id != 0 && s.id != f.id) || (f.skipme && &s == &c.sess))
            continue;
        if (&s == &c.sess)
            self = true;
        else
            c.state.killed.push_back(s.id);
        ++killed;
    }
    if (c.argc == 3) {
        if (killed == 0) return c.out.error(errors::no_such_client);
        c.out.ok();
    } else {
        c.out.integer(killed);
    }
    if (self) c.result.status = exec_status::quit;
}

inline void client_help(command& c) {
    c.out.help({"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GETNAME",
                "    Return the name of the current connection.", "ID",
                "    Return the ID of the current connection.", "INFO",
                "    Return information about the current client connection.", "KILL <ip:port>",
                "    Kill connection made from <ip:port>.",
                "KILL <option> <value> [<option> <value> [...]]",
                "    Kill connections. Options are: ID, ADDR, LADDR, TYPE, USER, SKIPME.",
                "LIST [options ...]", "    Return information about client connections.",
                "SETNAME <name>", "    Assign the name <name> to the current connection.", "HELP",
                "    Print this help."});
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_CONNECTION_HPP
