// zset::redis — what a command handler receives: the arguments, the session, a reply sink and
// the keyspace state, plus the shapes shared by the command table and dispatch.
// SPDX-License-Identifier: MIT
//
// A handler is `void handler(command& c)`: it validates c's arguments in Redis's order, reads or
// changes c.state, writes exactly one reply to c.out (see reply_sink.hpp), and sets c.result
// when the command blocks or closes the connection.
//
// The sorted-set handlers (commands_zset_*.hpp) are templates over their context, so that one
// implementation of each command serves both this keyspace and the Redis module
// (module/command_context.hpp). They reach keys only through these members of the context (the
// "sorted-set context" requirements; `command` below and the module's context provide them):
//
//   argv, argc, c[i], c.is(i, "name"), c.spec->name   the arguments and the command's row
//   c.out                                             the reply_sink
//   zset_type                                         the sorted-set type stored under keys
//   find_zset(key) -> typed_value<zset_type>          the live value, missing, or wrong type
//   create_zset(key) -> zset_type&                    a new, empty key (may wake blocked clients)
//   store_zset(key, zset_type&&)                      replaces the key's value and its TTL
//   remove_key(key), key_modified(key)                deletion; a change (WATCH, propagation)
//   setop_input_of(key) -> optional<setop_input>      a set-operation input (sorted or plain
//                                                     set, or missing); nullopt: wrong type
//   zset_options(), rng(), max_random_draws()         thresholds, ZRANDMEMBER's generator and cap
//   rules()                                           the server_rules in force (config.hpp)
//   now_ms()                                          the command's time (blocking deadlines)
//   may_block(), serving_other_than(key),             blocking pops: whether the caller may
//   block_on(keys, n, timeout_ms)                     block, which key is being served, block
//
// Thread safety: a command context lives for one execution.
#ifndef ZSET_REDIS_COMMAND_HPP
#define ZSET_REDIS_COMMAND_HPP

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "../detail/redis_text.hpp"
#include "../set_ops.hpp"
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

/// One command as the table describes it (and COMMAND INFO reports it), for handlers taking a
/// `Ctx&`: the keyspace's rows are command_spec (Ctx = command); the sorted-set rows are also
/// instantiated for the Redis module's context.
template <class Ctx>
struct basic_command_spec {
    std::string_view name;   ///< full lower-case name ("zadd", "config|get")
    int arity;               ///< Redis arity: n exact, -n at least n
    std::string_view flags;  ///< space-separated command flags, in Redis's order
    int first_key, last_key, step;
    std::string_view acl;  ///< space-separated ACL categories
    void (*handler)(Ctx&);
    unsigned traits = trait_none;
    const basic_command_spec* subcommands = nullptr;
    std::size_t subcommand_count = 0;
};
using command_spec = basic_command_spec<command>;

/// What a context's key lookup finds: the value when the key holds a T, or that the key is
/// missing, or that it holds another type.
template <class T>
struct typed_value {
    T* value = nullptr;
    bool present = false;
    bool wrongtype = false;
    bool missing() const noexcept { return !present; }
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

    /// The live value under `key` if it holds a T, and its entry. Lazy expiry.
    template <class T>
    struct typed : typed_value<T> {
        database::entry* entry = nullptr;
    };
    template <class T>
    typed<T> find(std::string_view key) const {
        typed<T> r;
        r.entry = state.lookup(sess.db, key);
        if (r.entry == nullptr) return r;
        r.present = true;
        r.value = std::get_if<T>(&r.entry->value);
        r.wrongtype = r.value == nullptr;
        return r;
    }

    /// Replies WRONGTYPE when `t` holds another type. \returns whether it did.
    template <class T>
    bool wrongtype(const typed_value<T>& t) const {
        if (t.wrongtype) out.error(errors::wrongtype);
        return t.wrongtype;
    }
    /// Whether argument i is the option `lower_name`, as Redis's strcasecmp sees it (bytes after
    /// a NUL are invisible).
    bool is(std::size_t i, std::string_view lower_name) const noexcept {
        return zset::detail::ascii_iequals(zset::detail::c_string_prefix(argv[i]), lower_name);
    }

    // ---- the sorted-set context (see the file comment) ------------------------------------

    using zset_type = zset_value;
    using setop_input = zset::set_input<zset_value, set_value::members_type>;

    typed_value<zset_value> find_zset(std::string_view key) const {
        const typed<zset_value> t = find<zset_value>(key);
        return {t.value, t.present, t.wrongtype};  // without the entry
    }
    /// A new sorted set under `key` (absent), with the thresholds in force.
    zset_value& create_zset(std::string_view key) {
        return std::get<zset_value>(state.add(db(), key, zset_value(zset_options())).value);
    }
    void store_zset(std::string_view key, zset_value&& v) {
        state.set(db(), key, value(std::move(v)));
    }
    void remove_key(std::string_view key) { state.remove(db(), key); }
    void key_modified(std::string_view key) { state.modified(db(), key); }
    /// A sorted set or a plain set (each member weighing 1), or nullptr for a missing key.
    std::optional<setop_input> setop_input_of(std::string_view key) {
        const database::entry* e = state.lookup(db(), key);
        // Redis reads set-operation inputs with lookupKeyRead, for the *STORE forms too.
        if (!state.count_reads) state.count_read(e != nullptr);
        if (e == nullptr) return setop_input(static_cast<const zset_value*>(nullptr));
        if (const auto* z = std::get_if<zset_value>(&e->value)) return setop_input(z);
        if (const auto* s = std::get_if<set_value>(&e->value))
            return setop_input(zset::as_members(s->members()));
        return std::nullopt;
    }
    zset::options zset_options() const noexcept { return state.zset_options(); }
    std::mt19937_64& rng() noexcept { return state.rng; }
    std::size_t max_random_draws() const noexcept { return state.opts.max_random_draws; }
    const server_rules& rules() const noexcept { return state.opts.rules; }
    long long now_ms() const noexcept { return state.now; }
    bool may_block() const noexcept { return sess.allow_blocking; }
    /// While a blocked client is served: whether `key` is not the key that became ready (its
    /// pop takes from that key alone, as Redis 7.0 serves it).
    bool serving_other_than(std::string_view key) const noexcept {
        return state.serving != nullptr && state.serving->key != key;
    }
    void block_on(const std::string_view* keys, std::size_t n, long long timeout_ms) {
        result.status = exec_status::blocked;
        result.block.keys.assign(keys, keys + n);
        result.block.timeout_ms = timeout_ms;
    }
};

/// The command handlers, one header per family (commands_*.hpp); their helpers are in
/// commands::detail, which sees zset::redis::detail.
namespace commands::detail {
using namespace zset::redis::detail;
}  // namespace commands::detail

}  // namespace zset::redis

#endif  // ZSET_REDIS_COMMAND_HPP
