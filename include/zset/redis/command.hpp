// zset::redis — what a command handler receives: the arguments, the session, a reply sink and
// the keyspace state, plus the shapes shared by the command table and dispatch.
// SPDX-License-Identifier: MIT
//
// A handler is `void handler(command& c)`: it validates c's arguments in Redis's order, reads or
// changes c.state, writes exactly one reply to c.out (see reply_sink.hpp), and sets c.result
// when the command blocks or closes the connection.
//
// Thread safety: a command context lives for one execution.
#ifndef ZSET_REDIS_COMMAND_HPP
#define ZSET_REDIS_COMMAND_HPP

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "../detail/redis_text.hpp"
#include "errors.hpp"
#include "keyspace_state.hpp"
#include "reply_sink.hpp"
#include "session.hpp"

namespace zset::redis {

/// What a blocked command waits for.
struct block_request {
    /// Keys the command waits on (any of them receiving elements may let it proceed).
    std::vector<std::string> keys;
    /// Timeout in milliseconds; 0 = wait forever (Redis's rules: seconds * 1000, truncated, so
    /// a timeout below 0.001 s also means forever).
    long long timeout_ms = 0;
};

/// Outcome of executing one command.
enum class exec_status : unsigned char {
    done,     ///< the reply was written
    blocked,  ///< nothing was written: the command waits (see keyspace::serve_blocked)
    quit,     ///< QUIT: the reply ("+OK") was written; close the connection after sending it
};

/// Result of keyspace::execute().
struct exec_result {
    exec_status status = exec_status::done;
    block_request block;  ///< set when status == blocked
};

struct command;

/// A command handler.
using command_handler = void (*)(command&);

/// Behaviour flags dispatch needs (the COMMAND INFO flag words are in command_spec::flags).
enum command_traits : unsigned {
    trait_none = 0,
    trait_no_auth = 1u << 0,     ///< runs before AUTH (AUTH, HELLO, QUIT, RESET)
    trait_not_queued = 1u << 1,  ///< runs at once inside MULTI (EXEC, DISCARD, MULTI, WATCH, ...)
    trait_write = 1u << 2,       ///< changes data
    trait_debug = 1u << 3,       ///< subject to enable-debug-command
};

/// One command as the table describes it (and COMMAND INFO reports it).
struct command_spec {
    std::string_view name;   ///< full lower-case name ("zadd", "config|get")
    int arity;               ///< Redis arity: n exact, -n at least n
    std::string_view flags;  ///< space-separated command flags, in Redis's order
    int first_key, last_key, step;
    std::string_view acl;  ///< space-separated ACL categories
    command_handler handler;
    unsigned traits = trait_none;
    const command_spec* subcommands = nullptr;
    std::size_t subcommand_count = 0;
};

/// The context of one command execution.
struct command {
    const std::string_view* argv;
    std::size_t argc;
    const command_spec* spec;
    session& sess;
    reply_sink& out;
    detail::keyspace_state& state;
    exec_result& result;

    std::string_view operator[](std::size_t i) const noexcept { return argv[i]; }
    /// The session's database index.
    int db() const noexcept { return sess.db; }

    /// The live value under `key` if it holds a T: {value, entry, wrongtype}. Lazy expiry.
    template <class T>
    struct typed {
        T* value = nullptr;
        database::entry* entry = nullptr;
        bool wrongtype = false;
        bool missing() const noexcept { return entry == nullptr; }
    };
    template <class T>
    typed<T> find(std::string_view key) const {
        typed<T> r;
        r.entry = state.lookup(sess.db, key);
        if (r.entry == nullptr) return r;
        r.value = std::get_if<T>(&r.entry->value);
        r.wrongtype = r.value == nullptr;
        return r;
    }

    /// Replies WRONGTYPE when `t` holds another type. \returns whether it did.
    template <class T>
    bool wrongtype(const typed<T>& t) const {
        if (t.wrongtype) out.error(errors::wrongtype);
        return t.wrongtype;
    }
    /// Whether argument i is the option `lower_name`, as Redis's strcasecmp sees it (bytes after
    /// a NUL are invisible).
    bool is(std::size_t i, std::string_view lower_name) const noexcept {
        return zset::detail::ascii_iequals(zset::detail::c_string_prefix(argv[i]), lower_name);
    }
};

/// The command handlers, one header per family (commands_*.hpp); their helpers are in
/// commands::detail, which sees zset::redis::detail.
namespace commands::detail {
using namespace zset::redis::detail;
}  // namespace commands::detail

}  // namespace zset::redis

#endif  // ZSET_REDIS_COMMAND_HPP
