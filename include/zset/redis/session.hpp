// zset::redis::session — the state of one client connection that commands read and change.
// SPDX-License-Identifier: MIT
//
// A server keeps one session per connection and passes it to every keyspace::execute() of that
// connection. It holds the reply protocol, the selected database, authentication, the client
// name, the MULTI queue, and what CLIENT LIST / INFO report. A program that embeds the keyspace
// may use plain default-constructed sessions; a server registers each with keyspace::connect()
// (so that CLIENT LIST, CLIENT KILL, INFO clients and blocked-client serving see it) and
// calls keyspace::disconnect() before destroying it. A connected session must not move.
//
// Thread safety: a session belongs to one connection; use it from one thread at a time.
#ifndef ZSET_REDIS_SESSION_HPP
#define ZSET_REDIS_SESSION_HPP

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "resp.hpp"

namespace zset::redis {

/// Where a connection comes from, as CLIENT LIST shows it (given to keyspace::connect()).
struct client_info {
    std::string addr;   ///< "ip:port" of the peer
    std::string laddr;  ///< "ip:port" of the local end
    int fd = -1;        ///< socket descriptor, or -1
    bool local = true;  ///< the peer is on the loopback interface (protected mode)
};

/// Per-connection state a command may read or change.
struct session {
    /// Reply protocol, switched by HELLO 2 / HELLO 3.
    protocol proto = protocol::resp2;
    /// When false, blocking commands that would block reply at once as on a timeout (what Redis
    /// does inside MULTI or scripts).
    bool allow_blocking = true;
    /// Client id (CLIENT ID, HELLO); assigned by keyspace::make_session() / connect().
    long long id = 0;
    /// The selected database (SELECT).
    int db = 0;
    /// Whether AUTH succeeded (only checked when a password is configured).
    bool authenticated = false;
    /// CLIENT SETNAME.
    std::string name;
    /// Where the client connects from.
    client_info info;

    /// MULTI state: queued commands, and whether queuing failed (EXEC then aborts).
    struct transaction {
        bool active = false;
        bool failed = false;
        std::vector<std::vector<std::string>> queued;
    };
    transaction multi;

    // Bookkeeping the keyspace keeps for CLIENT LIST / INFO (read-only for servers).
    long long created_ms = 0;       ///< when connect() ran
    long long last_command_ms = 0;  ///< when the last command started
    std::string last_command;       ///< its full name ("zadd", "client|list")
    bool blocked = false;           ///< waiting in a blocking command
    bool connected = false;         ///< registered with connect()
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_SESSION_HPP
