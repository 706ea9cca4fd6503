// zset — the optional Redis layer: everything a Redis-compatible server needs on top of
// zset::sorted_set. This umbrella header includes all of it.
// SPDX-License-Identifier: MIT
//
// Layout (each file has one responsibility; docs/redis_layer.md walks through it):
//
//   Protocol and text rules
//     redis/errors.hpp          every error text the layer replies (plus zset::errors' own)
//     redis/numbers.hpp         Redis's number parsing (string2d, string2ll, range bounds) and
//                               double formatting (%.17g, Redis >= 7.2 shortest)
//     redis/glob.hpp            Redis glob matching (MATCH, KEYS, CONFIG GET)
//     redis/resp.hpp            RESP2 / RESP3 writers, the typed `reply` and its encoders
//     redis/request_parser.hpp  incremental parsing of client requests, with Redis's limits
//
//   Storage
//     redis/values.hpp          what a key holds: sorted set, plain set, string
//     redis/database.hpp        one numbered database: keys, values, expiry times
//     redis/value_codec.hpp     a value to and from a DUMP payload (DUMP, RESTORE, DEBUG RELOAD)
//     redis/config.hpp          keyspace_options and the CONFIG GET / SET parameter table
//     redis/session.hpp         one connection's state (protocol, database, auth, MULTI queue)
//     redis/watch_table.hpp     WATCH bookkeeping
//     redis/blocked_clients.hpp clients waiting in blocking pops
//     redis/keyspace_state.hpp  all of the above together, with the key-access rules (lazy
//                               expiry, "modified" and "ready" notices)
//
//   Commands
//     redis/command.hpp         what a handler receives (`command`), the command_spec shape
//     redis/reply_sink.hpp      where a handler writes its reply (RESP bytes or a reply tree)
//     redis/arguments.hpp       argument parsing shared by handlers (ZADD options, ranges, ...)
//     redis/commands_zset_write.hpp   ZADD ZINCRBY ZREM ZREMRANGEBY* ZPOP* ZMPOP BZPOP* BZMPOP
//     redis/commands_zset_read.hpp    ZSCORE ZMSCORE ZCARD ZCOUNT ZLEXCOUNT ZRANK ZREVRANK
//                                     ZRANGE* ZREVRANGE* ZRANGESTORE ZRANDMEMBER ZSCAN
//     redis/commands_zset_setops.hpp  ZUNION ZINTER ZDIFF (+STORE) ZINTERCARD (via set_ops.hpp)
//     redis/commands_set.hpp          SADD SREM SMEMBERS SCARD SISMEMBER (intset / listpack /
//                                     hashtable encodings)
//     redis/commands_keys.hpp         DEL UNLINK EXISTS TOUCH TYPE KEYS SCAN DUMP RESTORE
//                                     OBJECT MEMORY SET GET
//     redis/commands_expire.hpp       EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME
//                                     PEXPIRETIME PERSIST
//     redis/commands_transactions.hpp MULTI EXEC DISCARD WATCH UNWATCH
//     redis/commands_connection.hpp   PING ECHO SELECT HELLO AUTH CLIENT QUIT RESET
//     redis/commands_server.hpp       DBSIZE FLUSHDB FLUSHALL SWAPDB CONFIG COMMAND DEBUG
//     redis/commands_info.hpp         INFO (every section of Redis 7.2's)
//     redis/commands_scripting.hpp    FUNCTION (a server without scripting engines)
//     redis/command_table.hpp   every command's row: name, arity, flags, keys, handler
//     redis/keyspace.hpp        zset::redis::keyspace: dispatch and the public API
//
// To find a command's code: its row in command_table.hpp names the handler; the handler is in
// the commands_<family>.hpp header of its family.
#ifndef ZSET_REDIS_HPP
#define ZSET_REDIS_HPP

#include "redis/errors.hpp"
#include "redis/glob.hpp"
#include "redis/keyspace.hpp"
#include "redis/numbers.hpp"
#include "redis/request_parser.hpp"
#include "redis/resp.hpp"

#endif  // ZSET_REDIS_HPP
