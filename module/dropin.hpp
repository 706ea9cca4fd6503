// zset module — drop-in mode (zset.dropin yes): applications keep their commands, and their
// sorted sets become module keys.
// SPDX-License-Identifier: MIT
//
// One route for every command: a command filter (RedisModule_RegisterCommandFilter, NOSELF)
// runs before each command — from clients, inside MULTI, from Lua's redis.call, and in the
// stream a replica receives — and renames the sorted-set commands (the Z* family and the BZ*
// pops) to their ZSET.<name>, and the generic commands whose answer depends on the type (TYPE,
// OBJECT ENCODING, DUMP, RESTORE) to the module's forms of them (generic_commands.hpp). The
// module's own RedisModule_Call()s are not filtered (NOSELF): that is how a command meeting one
// of Redis's own sorted sets (written before the switch, or by GEOADD) hands it to Redis's
// implementation (command_context.hpp, find_zset).
//
// A command whose argument count Redis would refuse is left as it is, so Redis's own error
// names it as the client wrote it. So is one the client's ACL user may not run as sent, or may
// not run as the twin, where the server tells the filter its client (acl.hpp): every user gets
// native Redis's answer. What is propagated to replicas and the AOF is the renamed
// command: a replica or an AOF replay without the module fails on the first one (unknown
// command), never silently.
#ifndef ZSET_MODULE_DROPIN_HPP
#define ZSET_MODULE_DROPIN_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "acl.hpp"
#include "commands.hpp"
#include "dropin_keys.hpp"
#include "redis_module_api.hpp"
#include "state.hpp"
#include <zset/detail/redis_text.hpp>

namespace zset::module {

/// Whether argc arguments fit a row's arity (n exact, -n at least n).
inline bool arity_fits(int arity, int argc) noexcept {
    return arity >= 0 ? argc == arity : argc >= -arity;
}

/// The rows by the length of their name: a name is compared only with rows of its length.
struct rows_by_length {
    static constexpr std::size_t longest = 16;
    std::array<std::array<std::uint8_t, 8>, longest + 1> rows{};
    std::array<std::uint8_t, longest + 1> count{};
    constexpr rows_by_length() {
        for (std::size_t i = 0; i < zset_row_count; ++i) {
            const std::size_t n = zset_rows[i].name.size();
            rows[n][count[n]++] = static_cast<std::uint8_t>(i);
        }
    }
};
inline constexpr rows_by_length rows_of_length{};

/// The row a native command name is served by in drop-in mode, or null.
inline const module_spec* dropin_row(std::string_view name, rmapi::CommandFilterCtx* f) {
    if (name.size() > rows_by_length::longest) return nullptr;
    const std::size_t n = name.size();
    for (std::size_t j = 0; j < rows_of_length.count[n]; ++j) {
        const module_spec& row = zset_rows[rows_of_length.rows[n][j]];
        if (!zset::detail::ascii_iequals(name, row.name)) continue;
        if (row.name == "object") {  // only OBJECT ENCODING key depends on the type
            if (rmapi::CommandFilterArgsCount(f) != 3) return nullptr;
            std::size_t len = 0;
            const char* sub = rmapi::StringPtrLen(rmapi::CommandFilterArgGet(f, 1), &len);
            if (!zset::detail::ascii_iequals(std::string_view(sub, len), "encoding"))
                return nullptr;
        }
        return &row;
    }
    return nullptr;
}

/// The module's own context, for the filter's ACL checks (made in register_dropin).
inline rmapi::Ctx*& filter_context() {
    static rmapi::Ctx* ctx = nullptr;
    return ctx;
}

/// Where the server tells the filter its client: whether that client's user may run both the
/// command as sent and `twin` (acl.hpp). Elsewhere true: the twin checks when it runs.
inline bool rename_permitted(rmapi::CommandFilterCtx* f, int argc, rmapi::String* twin) {
    if (rmapi::CommandFilterGetClientId == nullptr) return true;
    acl::argv_copy args(static_cast<std::size_t>(argc), [f](std::size_t i) {
        return rmapi::CommandFilterArgGet(f, static_cast<int>(i));
    });
    return acl::filter_may_rename(filter_context(), rmapi::CommandFilterGetClientId(f), args,
                                  rmapi::CommandFilterArgGet(f, 0), twin);
}

/// The filter's view of a command's arguments.
struct filter_args {
    std::vector<std::string_view> views;
    explicit filter_args(rmapi::CommandFilterCtx* f, int argc) {
        views.reserve(static_cast<std::size_t>(argc));
        for (int i = 0; i < argc; ++i) {
            std::size_t len = 0;
            const char* p = rmapi::StringPtrLen(rmapi::CommandFilterArgGet(f, i), &len);
            views.emplace_back(p, len);
        }
    }
};

/// Whether a command on Redis's own sorted set `k` (or on a missing key) stays Redis's: all but
/// a ZADD / ZINCRBY that would make the key outgrow Redis's listpack (dropin_keys.hpp).
inline bool native_answers(rmapi::CommandFilterCtx* f, const module_spec& row, int argc,
                           rmapi::Key* k, int type) {
    if (row.name != "zadd" && row.name != "zincrby") return true;
    const filter_args args(f, argc);
    const auto pairs = dropin_keys::pairs_of(row.name, args.views.data(), args.views.size());
    if (!pairs) return true;
    const module_state& s = state();
    if (type == rmapi::KEYTYPE_EMPTY)
        return dropin_keys::new_key_stays_listpack(*pairs, args.views.data(), s.thresholds,
                                                   s.rules.zadd_hint);
    return !dropin_keys::native_key_outgrows(
        rmapi::ValueLength(k), *pairs, args.views.data(), s.thresholds, s.rules.zadd_hint,
        [&](std::string_view m) {  // m views one of the arguments: its string is asked about
            double score = 0;
            for (std::size_t j = pairs->first + 1; j < args.views.size(); j += 2)
                if (args.views[j].data() == m.data())
                    return rmapi::ZsetScore(k, rmapi::CommandFilterArgGet(f, static_cast<int>(j)),
                                            &score) == rmapi::OK;
            return false;
        });
}

/// Where the server tells the filter its client (Redis 7.2+, Valkey), with
/// zset.dropin-small-keys `native`: whether the command is Redis's own to run — one key, not a
/// module key, and no ZADD that makes Redis convert it. Then Redis serves its own sorted sets at
/// its own speed; elsewhere the module hands them over (module_command::forward). A client
/// queuing a transaction is renamed always: its keys may change before EXEC.
inline bool filter_leaves_native(rmapi::CommandFilterCtx* f, const module_spec& row, int argc) {
    if (rmapi::CommandFilterGetClientId == nullptr || !dropin_keys::single_key_command(row.name) ||
        state().dropin_small_keys != small_keys::native)
        return false;
    rmapi::ClientInfo info{};
    info.version = 1;
    if (rmapi::GetClientInfoById(&info, rmapi::CommandFilterGetClientId(f)) != rmapi::OK ||
        (info.flags & rmapi::CLIENTINFO_FLAG_MULTI) != 0)
        return false;
    rmapi::Ctx* ctx = filter_context();
    if (rmapi::SelectDb(ctx, info.db) != rmapi::OK) return false;
    const int key_at = row.name == "object" ? 2 : 1;
    rmapi::Key* k =
        rmapi::OpenKey(ctx, rmapi::CommandFilterArgGet(f, key_at),
                       rmapi::OPEN_READ | rmapi::OPEN_KEY_NOTOUCH | rmapi::OPEN_KEY_NONOTIFY |
                           rmapi::OPEN_KEY_NOSTATS | rmapi::OPEN_KEY_NOEXPIRE);
    const int type = rmapi::KeyType(k);
    bool native = true;
    if (type == rmapi::KEYTYPE_MODULE)
        native = rmapi::ModuleTypeGetType(k) != state().type;
    else if (type == rmapi::KEYTYPE_EMPTY || type == rmapi::KEYTYPE_ZSET)
        native = native_answers(f, row, argc, k, type);
    rmapi::CloseKey(k);
    return native;
}

/// The command filter.
inline void dropin_filter(rmapi::CommandFilterCtx* f) {
    std::size_t len = 0;
    const char* p = rmapi::StringPtrLen(rmapi::CommandFilterArgGet(f, 0), &len);
    const module_spec* row = dropin_row(std::string_view(p, len), f);
    const int argc = rmapi::CommandFilterArgsCount(f);
    if (row == nullptr || !arity_fits(row->arity, argc)) return;
    if (filter_leaves_native(f, *row, argc)) return;
    rmapi::String* name = module_names()[static_cast<std::size_t>(row - zset_rows.data())];
    if (!rename_permitted(f, argc, name)) return;
    rmapi::RetainString(nullptr, name);
    rmapi::CommandFilterArgReplace(f, 0, name);
}

/// Where the server has no ACL categories for module commands, a user reaches module keys only
/// through rules naming the twins: the log says so when drop-in mode starts.
inline void log_acl_grant(rmapi::Ctx* ctx) {
    if (rmapi::SetCommandACLCategories != nullptr) return;
    rmapi::Log(ctx, rmapi::LOG_NOTICE,
               "zset: drop-in mode on a server without ACL categories for module commands: a "
               "user other than +@all needs the ZSET.* twins granted by name (docs/module.md, "
               "\"ACL users\"); its native rules still apply");
}

/// The filter is registered only while drop-in mode is on: off, Redis runs no filter at all.
inline int apply_dropin(rmapi::Ctx* ctx, void*, rmapi::String**) {
    static rmapi::CommandFilter* filter = nullptr;
    if (state().dropin && filter == nullptr) {
        filter = rmapi::RegisterCommandFilter(ctx, dropin_filter, rmapi::CMDFILTER_NOSELF);
        if (filter == nullptr) return rmapi::ERR;
        log_acl_grant(ctx);
    } else if (!state().dropin && filter != nullptr) {
        rmapi::UnregisterCommandFilter(ctx, filter);
        filter = nullptr;
    }
    return rmapi::OK;
}

/// Makes the shared names and, when drop-in mode is on at load, registers the filter (in
/// RedisModule_OnLoad, after the configs are read).
inline bool register_dropin(rmapi::Ctx* ctx) {
    filter_context() = rmapi::GetDetachedThreadSafeContext(ctx);
    return apply_dropin(ctx, nullptr, nullptr) == rmapi::OK;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_DROPIN_HPP
