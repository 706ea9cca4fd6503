// zset module — RedisModule_OnLoad: registers the data type, the ZSET.* commands, ZSET.IMPORT /
// ZSET.EXPORT, the module's configs and its INFO section. Load it with
//     redis-server --loadmodule /path/to/zset.so [--zset.dropin yes]
// See docs/module.md.
// SPDX-License-Identifier: MIT

#include "acl.hpp"
#include "commands.hpp"
#include "config.hpp"
#include "dropin.hpp"
#include "migrate.hpp"
#include "redis_module_api.hpp"
#include "state.hpp"
#include "stats.hpp"
#include "type.hpp"
#include <zset/version.hpp>

namespace {

/// ZSET.IMPORT / ZSET.EXPORT: one key, written in place. Administration, not a native
/// command's twin: in @admin, not in @zset.
bool register_migration(rmapi::Ctx* ctx) {
    using zset::module::keys_of;
    return zset::module::register_command(ctx,
                                          {"zset.import", zset::module::import_command,
                                           "write deny-oom", 2, 1, 1, 1, *keys_of("import"),
                                           "@admin @keyspace @write @slow"},
                                          false) &&
           zset::module::register_command(ctx,
                                          {"zset.export", zset::module::export_command,
                                           "write deny-oom", 2, 1, 1, 1, *keys_of("export"),
                                           "@admin @keyspace @write @slow"},
                                          false);
}

/// INFO zset (also in INFO modules and INFO everything): the module's version, its mode and
/// what its keys hold.
void info(rmapi::InfoCtx* ctx, int) {
    using zset::module::module_stats;
    const module_stats& s = zset::module::stats();
    if (rmapi::InfoAddSection(ctx, "") != rmapi::OK) return;
    rmapi::InfoAddFieldCString(ctx, "version", zset::version::string);
    rmapi::InfoAddFieldCString(ctx, "dropin", zset::module::state().dropin ? "yes" : "no");
    rmapi::InfoAddFieldCString(ctx, "acl_categories",
                               rmapi::SetCommandACLCategories != nullptr ? "yes" : "no");
    rmapi::InfoAddFieldCString(ctx, "dropin_acl_check",
                               rmapi::CommandFilterGetClientId != nullptr ? "filter" : "command");
    rmapi::InfoAddFieldULongLong(ctx, "keys", module_stats::read(s.keys));
    rmapi::InfoAddFieldULongLong(ctx, "elements", module_stats::read(s.elements));
    rmapi::InfoAddFieldULongLong(ctx, "memory_bytes", module_stats::read(s.bytes));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(rmapi::Ctx* ctx,
                                                                         rmapi::String**, int) {
    const char* missing = nullptr;
    if (rmapi::Init(ctx, "zset", zset::version::number, rmapi::APIVER_1, &missing) != rmapi::OK) {
        if (missing != nullptr && rmapi::Log != nullptr)
            rmapi::Log(ctx, rmapi::LOG_WARNING, "zset: this server lacks RedisModule_%s", missing);
        return rmapi::ERR;
    }
    // A short read of a damaged payload is reported to rdb_load instead of ending the server.
    rmapi::SetModuleOptions(ctx, rmapi::OPTIONS_HANDLE_IO_ERRORS |
                                     rmapi::OPTION_NO_IMPLICIT_SIGNAL_MODIFIED);
    zset::module::state().type = zset::module::register_type(ctx);
    if (zset::module::state().type == nullptr) return rmapi::ERR;
    const bool zset_category = zset::module::acl::declare_zset_category(ctx);
    if (!zset::module::register_commands(ctx, zset_category) || !register_migration(ctx) ||
        rmapi::RegisterInfoFunc(ctx, info) != rmapi::OK)
        return rmapi::ERR;
    if (!zset::module::configure(ctx, zset::module::apply_dropin) ||
        !zset::module::register_dropin(ctx))
        return rmapi::ERR;
    return rmapi::OK;
}
