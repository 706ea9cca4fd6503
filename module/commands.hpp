// zset module — the ZSET.* commands: every sorted-set command of the Redis layer's table
// (zset::redis::detail::zset_command_table), registered as ZSET.<name> with Redis's arity, flags
// and key specs, and run by the Redis layer's own handlers in a module_command context.
// SPDX-License-Identifier: MIT
//
// Propagation: a command that changed something is propagated as received (verbatim), which is
// deterministic for every sorted-set write; the blocking pops are propagated as their effect
// (ZSET.ZPOPMIN / ZSET.ZPOPMAX key, ZSET.ZMPOP 1 key ...), as Redis propagates its own blocking
// pops, since a replica never blocks. Blocking pops that find nothing block the client on its
// keys (RedisModule_BlockClientOnKeys): a command that creates a module key signals it, and the
// client's command runs again, served from that key alone (Redis 7.0's rule), or keeps waiting.
//
// Key specs make Redis Cluster route every command by its keys (-MOVED / -ASK) and refuse
// multi-key calls across slots (-CROSSSLOT), exactly as for the native commands.
#ifndef ZSET_MODULE_COMMANDS_HPP
#define ZSET_MODULE_COMMANDS_HPP

#include <array>
#include <cstddef>
#include <exception>
#include <memory_resource>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acl.hpp"
#include "command_context.hpp"
#include "generic_commands.hpp"
#include "key_specs.hpp"
#include "redis_module_api.hpp"
#include "reply_sink.hpp"
#include "state.hpp"
#include <zset/redis/command_table.hpp>

namespace zset::module {

/// The generic commands the module serves for its keys (generic_commands.hpp).
inline constexpr module_spec generic_rows[] = {
    {"type", 2, "readonly fast", 1, 1, 1, "@keyspace @read @fast", generic::type},
    {"object", -2, "readonly", 2, 2, 1, "@keyspace @read @slow", generic::object},
    {"dump", 2, "readonly", 1, 1, 1, "@keyspace @read @slow", generic::dump},
    {"restore", -4, "write denyoom", 1, 1, 1, "@keyspace @write @slow @dangerous",
     generic::restore},
};

/// Every ZSET.<name> command: the Redis layer's sorted-set rows, with their handlers
/// instantiated for the module's context, then the generic ones.
inline constexpr auto zset_rows = zset::redis::detail::concat_rows(
    zset::redis::detail::zset_command_table<module_command>, generic_rows);
inline constexpr std::size_t zset_row_count = zset_rows.size();

/// The rows as the module registers them ("zset.zadd"): errors name the command so, but in
/// drop-in mode, where they name it as Redis does ("zadd").
inline const module_spec& shown_row(std::size_t i) {
    static const auto rows = [] {
        static std::array<std::string, zset_row_count> names;
        std::array<module_spec, zset_row_count> out{};
        for (std::size_t j = 0; j < zset_row_count; ++j) {
            names[j] = "zset." + std::string(zset_rows[j].name);
            out[j] = zset_rows[j];
            out[j].name = names[j];
        }
        return out;
    }();
    return state().dropin ? zset_rows[i] : rows[i];
}

/// The native name of every row ("zadd"), as server strings: the name a drop-in ACL check asks
/// about (acl.hpp). Made by register_commands.
inline std::array<rmapi::String*, zset_row_count>& native_names() {
    static std::array<rmapi::String*, zset_row_count> names{};
    return names;
}

/// The module's name of every row ("zset.zadd"), made once: the drop-in filter renames a command
/// to this very string, which is how a command knows that the filter renamed it.
inline std::array<rmapi::String*, zset_row_count>& module_names() {
    static std::array<rmapi::String*, zset_row_count> names{};
    return names;
}

/// Whether a row's COMMAND INFO flags have `word`.
constexpr bool has_flag(std::string_view flags, std::string_view word) noexcept {
    for (std::size_t at = 0; at < flags.size();) {
        std::size_t end = flags.find(' ', at);
        if (end == std::string_view::npos) end = flags.size();
        if (flags.substr(at, end - at) == word) return true;
        at = end + 1;
    }
    return false;
}

/// Which rows write, computed once (a command asks for every call).
template <std::size_t... I>
constexpr std::array<bool, sizeof...(I)> writing_rows(std::index_sequence<I...>) {
    return {has_flag(zset_rows[I].flags, "write")...};
}
inline constexpr auto row_writes = writing_rows(std::make_index_sequence<zset_row_count>());

/// Runs a handler, turning an exception into the reply it owes (zset::error's text is Redis's).
inline void run_handler(const module_spec& row, module_command& c, module_sink& sink) {
    try {
        row.handler(c);
    } catch (const native_key&) {
        c.forward();
    } catch (const std::bad_alloc&) {
        if (!sink.replied()) sink.error("ERR out of memory");
    } catch (const std::exception& e) {
        if (!sink.replied()) sink.error(std::string("ERR ") + e.what());
    }
}

/// After a blocking pop popped from `key`: propagates the pop it amounts to.
inline void replicate_pop(rmapi::Ctx* ctx, const module_spec& row, module_command& c,
                          std::string_view key) {
    rmapi::String* k = c.key_string(key);
    if (row.name == "bzpopmin") return void(rmapi::Replicate(ctx, "ZSET.ZPOPMIN", "s", k));
    if (row.name == "bzpopmax") return void(rmapi::Replicate(ctx, "ZSET.ZPOPMAX", "s", k));
    // BZMPOP timeout numkeys key ... MIN|MAX [COUNT n] -> ZMPOP 1 key MIN|MAX [COUNT n]
    std::size_t tail = 3;
    while (tail < c.argc && !c.is(tail, "min") && !c.is(tail, "max")) ++tail;
    std::vector<rmapi::String*> rest;
    for (std::size_t i = tail; i < c.argc; ++i) rest.push_back(c.key_string(c[i]));
    rmapi::Replicate(ctx, "ZSET.ZMPOP", "csv", "1", k, rest.data(), rest.size());
}

/// Propagates what the command changed: its effect for blocking pops, else itself.
inline void propagate(rmapi::Ctx* ctx, const module_spec& row, module_command& c) {
    if (c.changed_keys().empty()) return;
    if (has_flag(row.flags, "blocking"))
        return replicate_pop(ctx, row, c, c.changed_keys().front());
    rmapi::ReplicateVerbatim(ctx);
}

int blocked_reply(rmapi::Ctx* ctx, rmapi::String** argv, int argc);
int blocked_timeout(rmapi::Ctx* ctx, rmapi::String** argv, int argc);

/// Runs row's command; `ready` is the key a blocked client is served from (or null). \returns
/// false when the command must (go on) waiting.
inline bool execute(const module_spec& row, rmapi::Ctx* ctx, rmapi::String** argv, int argc,
                    rmapi::String* ready) {
    const auto index = static_cast<std::size_t>(&row - zset_rows.data());
    if (state().dropin && ready == nullptr &&
        !acl::twin_may_run(ctx, native_names()[index], argv, static_cast<std::size_t>(argc),
                           row.name, argv[0] == module_names()[index]))
        return true;
    alignas(std::max_align_t) std::byte buffer[2048];
    std::pmr::monotonic_buffer_resource scratch(buffer, sizeof buffer);
    std::pmr::vector<std::string_view> args(static_cast<std::size_t>(argc), &scratch);
    for (std::size_t i = 0; i < args.size(); ++i) args[i] = module_command::view_of(argv[i]);
    module_sink sink(ctx, state().doubles);
    module_command c(
        {ctx, argv, args.data(), args.size(), &row, &shown_row(index), row_writes[index], ready},
        sink, &scratch);
    if (c.runs_natively()) {
        c.forward();
        return true;
    }
    run_handler(row, c, sink);
    if (c.block()) {
        if (ready == nullptr) {
            const block_request& b = *c.block();
            rmapi::BlockClientOnKeys(ctx, blocked_reply, blocked_timeout, nullptr, b.timeout_ms,
                                     const_cast<rmapi::String**>(b.keys.data()),
                                     static_cast<int>(b.keys.size()), nullptr);
        }
        return false;
    }
    propagate(ctx, row, c);
    return true;
}

/// The row of a module command name ("ZSET.ZADD" -> "zadd"), or null.
inline const module_spec* row_named(std::string_view module_name) noexcept {
    if (module_name.size() <= 5) return nullptr;
    const std::string_view name = module_name.substr(5);
    for (const module_spec& row : zset_rows)
        if (zset::detail::ascii_iequals(name, row.name)) return &row;
    return nullptr;
}

/// Whether a key that became ready holds a sorted set a blocked pop can take from: a module
/// key, or (in drop-in mode) one of Redis's own. Any other type leaves the client waiting, as
/// Redis leaves its own blocked pops (a key written and replaced in one transaction).
inline bool poppable(rmapi::Ctx* ctx, rmapi::String* key) {
    rmapi::Key* k = rmapi::OpenKey(ctx, key, rmapi::OPEN_READ);
    const int type = rmapi::KeyType(k);
    const bool ok =
        (type == rmapi::KEYTYPE_MODULE && rmapi::ModuleTypeGetType(k) == state().type) ||
        (type == rmapi::KEYTYPE_ZSET && state().dropin);
    rmapi::CloseKey(k);
    return ok;
}

/// A blocked client's key received data: its command runs again, served from that key.
inline int blocked_reply(rmapi::Ctx* ctx, rmapi::String** argv, int argc) {
    const module_spec* row = row_named(module_command::view_of(argv[0]));
    rmapi::String* ready = rmapi::GetBlockedClientReadyKey(ctx);
    if (row == nullptr || !poppable(ctx, ready)) return rmapi::ERR;
    return execute(*row, ctx, argv, argc, ready) ? rmapi::OK : rmapi::ERR;
}

/// A blocked client's timeout passed: the null reply Redis gives.
inline int blocked_timeout(rmapi::Ctx* ctx, rmapi::String**, int) {
    return rmapi::ReplyWithNullArray(ctx);
}

/// The key declaration of every row, in row order (key_specs.hpp declares one for each).
template <std::size_t... I>
constexpr std::array<const key_declaration*, sizeof...(I)> row_keys(std::index_sequence<I...>) {
    return {keys_of(zset_rows[I].name)...};
}
inline constexpr auto row_key_declarations = row_keys(std::make_index_sequence<zset_row_count>());

template <std::size_t... I>
constexpr bool every_row_declared(std::index_sequence<I...>) {
    return ((row_key_declarations[I] != nullptr) && ...);
}
static_assert(every_row_declared(std::make_index_sequence<zset_row_count>()),
              "every ZSET.* command declares its keys in key_specs.hpp");

/// The command function Redis calls for row I.
template <std::size_t I>
int command_entry(rmapi::Ctx* ctx, rmapi::String** argv, int argc) {
    if (rmapi::IsKeysPositionRequest(ctx)) {
        report_keys(ctx, *row_key_declarations[I], argv, argc);
        return rmapi::OK;
    }
    execute(zset_rows[I], ctx, argv, argc, nullptr);
    return rmapi::OK;
}

template <std::size_t... I>
constexpr std::array<rmapi::CmdFunc, sizeof...(I)> entries(std::index_sequence<I...>) {
    return {command_entry<I>...};
}
/// command_entries[i] runs zset_rows[i].
inline constexpr auto command_entries = entries(std::make_index_sequence<zset_row_count>());

// ---- registration ---------------------------------------------------------------------------

/// The module API's flag words for a row's COMMAND INFO flags.
inline std::string module_flags(std::string_view flags) {
    static constexpr std::pair<std::string_view, std::string_view> words[] = {
        {"write", "write"}, {"readonly", "readonly"},    {"denyoom", "deny-oom"},
        {"fast", "fast"},   {"noscript", "deny-script"}, {"blocking", "blocking"}};
    std::string out;
    for (const auto& [native, module] : words) {
        if (!has_flag(flags, native)) continue;
        out += out.empty() ? "" : " ";
        out += module;
    }
    return out;
}

/// What registering one command takes.
struct registration {
    const char* name;               ///< "zset.zadd"
    rmapi::CmdFunc function;        ///< what Redis calls
    std::string flags;              ///< the module API's flag words
    int arity;                      ///< Redis's arity
    int first_key, last_key, step;  ///< Redis's legacy key positions (COMMAND's first / last)
    const key_declaration& keys;
    std::string_view acl;  ///< ACL categories, as "@write @sortedset @fast"
};

/// Registers one command: the command, its key specs and arity (COMMAND INFO, cluster routing,
/// ACL key patterns) and its ACL categories (acl.hpp). \returns false when Redis refused.
inline bool register_command(rmapi::Ctx* ctx, const registration& r, bool zset_category) {
    const std::string flags = r.flags + (keys_need_asking(r.keys) ? " getkeys-api" : "");
    if (rmapi::CreateCommand(ctx, r.name, r.function, flags.c_str(), r.first_key, r.last_key,
                             r.step) != rmapi::OK)
        return false;
    std::array<rmapi::KeySpec, 3> specs = key_specs(r.keys);
    rmapi::CommandInfo info{};
    info.version = &rmapi::kCommandInfoV1;
    info.arity = r.arity;
    info.key_specs = specs.data();
    rmapi::Command* command = rmapi::GetCommand(ctx, r.name);
    return rmapi::SetCommandInfo(command, &info) == rmapi::OK &&
           acl::set_categories(ctx, r.name, r.acl, zset_category);
}

/// Registers ZSET.<name> for every sorted-set row, in its native twin's ACL categories (and
/// @zset when `zset_category`: acl.hpp). \returns false when Redis refused one.
inline bool register_commands(rmapi::Ctx* ctx, bool zset_category) {
    for (std::size_t i = 0; i < zset_row_count; ++i) {
        const module_spec& row = zset_rows[i];
        const std::string name = "zset." + std::string(row.name);
        if (!register_command(ctx,
                              {name.c_str(), command_entries[i], module_flags(row.flags), row.arity,
                               row.first_key, row.last_key, row.step, *row_key_declarations[i],
                               row.acl},
                              zset_category))
            return false;
        native_names()[i] = rmapi::CreateString(nullptr, row.name.data(), row.name.size());
        module_names()[i] = rmapi::CreateString(nullptr, name.data(), name.size());
    }
    return true;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_COMMANDS_HPP
