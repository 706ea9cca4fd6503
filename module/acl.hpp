// zset module — ACL: ZSET.* commands in their native twins' ACL categories, and in drop-in mode
// the same rights for every user as native Redis gives.
// SPDX-License-Identifier: MIT
//
// Categories. Each ZSET.<name> carries its native command's categories (@sortedset, @read or
// @write, @fast or @slow, @blocking, @dangerous ...) where the server lets a module set them
// (RedisModule_SetCommandACLCategories: Redis 7.2+, Valkey), and the module's own @zset where
// the server lets a module declare a category (RedisModule_AddACLCategory: Redis 7.4+, Valkey
// 8). On Redis 7.0 a module command is in no category: a rule grants it by name
// (docs/module.md, "ACL users").
//
// Drop-in parity. The command filter renames ZADD to ZSET.ZADD before Redis checks the client's
// rights, so Redis checks ZSET.ZADD. For every user to get what native Redis gives, the module
// checks the native command as well:
//  * Where the filter can tell its client (RedisModule_CommandFilterGetClientId: 7.2+), it
//    renames only when that client's user may run both the native command and its twin with
//    these arguments, keys included. Otherwise the command runs as Redis's own: Redis refuses it
//    with its own NOPERM where the user may not run it, and serves it where only the twin is
//    denied (a rule naming +zadd but not +zset.zadd): that user is served on Redis's own sorted
//    sets, and a module key answers WRONGTYPE.
//  * Where it cannot (7.0, and a script's calls, whose client the filter cannot look up), the
//    twin runs, and refuses with native Redis's NOPERM text and an ACL LOG entry when the user
//    may not run the native command. A user whose rules deny the twin gets Redis's NOPERM
//    naming the twin.
//  * A ZSET.* command a client sends by that name makes the same check when it runs: in drop-in
//    mode a twin never grants more than its native command, so granting every user the twins
//    (@zset) is safe.
// Clients without an ACL user (the master link, AOF loading, other modules' calls) are never
// checked, as Redis never checks them.
#ifndef ZSET_MODULE_ACL_HPP
#define ZSET_MODULE_ACL_HPP

#include <array>
#include <cerrno>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "redis_module_api.hpp"

namespace zset::module::acl {

/// The ACL categories a command is registered in: `native` ("@write @sortedset @fast") without
/// the '@'s, then "zset" when the module's own category exists.
inline std::string categories(std::string_view native, bool with_zset) {
    std::string out;
    for (const char c : native)
        if (c != '@') out += c;
    if (with_zset) out += out.empty() ? "zset" : " zset";
    return out;
}

/// Declares @zset (in RedisModule_OnLoad). \returns whether the category exists now: false on a
/// server without RedisModule_AddACLCategory.
inline bool declare_zset_category(rmapi::Ctx* ctx) {
    if (rmapi::AddACLCategory == nullptr) return false;
    // EBUSY: declared already, by a previous load of the module (a category outlives it).
    return rmapi::AddACLCategory(ctx, "zset") == rmapi::OK || errno == EBUSY;
}

/// Puts a registered command in `native`'s categories (and @zset). \returns false when the
/// server refused; true when it has no categories for module commands (Redis 7.0).
inline bool set_categories(rmapi::Ctx* ctx, const char* name, std::string_view native,
                           bool with_zset) {
    if (rmapi::SetCommandACLCategories == nullptr) return true;
    const std::string list = categories(native, with_zset);
    return rmapi::SetCommandACLCategories(rmapi::GetCommand(ctx, name), list.c_str()) == rmapi::OK;
}

/// The ACL user of a connected client, held for one check; empty for a client without one.
class client_user {
public:
    client_user(rmapi::Ctx* ctx, unsigned long long client_id) {
        rmapi::String* name = rmapi::GetClientUserNameById(ctx, client_id);
        if (name == nullptr) return;
        user_ = rmapi::GetModuleUserFromUserName(name);
        rmapi::FreeString(ctx, name);
    }
    client_user(const client_user&) = delete;
    client_user& operator=(const client_user&) = delete;
    ~client_user() {
        if (user_ != nullptr) rmapi::FreeModuleUser(user_);
    }

    explicit operator bool() const noexcept { return user_ != nullptr; }
    rmapi::User* get() const noexcept { return user_; }

    /// Whether the user may run argv[0] with these arguments (and their keys).
    bool may_run(rmapi::String** argv, std::size_t argc) const {
        return rmapi::ACLCheckCommandPermissions(user_, argv, static_cast<int>(argc)) == rmapi::OK;
    }

private:
    rmapi::User* user_ = nullptr;
};

/// A command's arguments, copied for permission checks under another name (argv[0]): on the
/// stack for up to 16 arguments.
class argv_copy {
public:
    template <class Get>
    argv_copy(std::size_t argc, Get&& get) : argc_(argc) {
        data_ = argc <= inline_args ? small_.data() : (large_.resize(argc), large_.data());
        for (std::size_t i = 0; i < argc; ++i) data_[i] = get(i);
    }
    argv_copy(const argv_copy&) = delete;
    argv_copy& operator=(const argv_copy&) = delete;

    /// The arguments, named `name`.
    rmapi::String** named(rmapi::String* name) noexcept {
        data_[0] = name;
        return data_;
    }
    std::size_t size() const noexcept { return argc_; }

private:
    static constexpr std::size_t inline_args = 16;
    std::array<rmapi::String*, inline_args> small_{};
    std::vector<rmapi::String*> large_;
    rmapi::String** data_ = nullptr;
    std::size_t argc_;
};

/// The filter's decision, where it can tell the client: rename to the twin only when the user
/// may run both the native command (`native_name`) and the twin (`twin_name`) with `args`. A
/// client without an ACL user renames.
inline bool filter_may_rename(rmapi::Ctx* own_ctx, unsigned long long client_id, argv_copy& args,
                              rmapi::String* native_name, rmapi::String* twin_name) {
    const client_user user(own_ctx, client_id);
    if (!user) return true;
    return user.may_run(args.named(native_name), args.size()) &&
           user.may_run(args.named(twin_name), args.size());
}

/// The check a running twin makes in drop-in mode, unless the filter made it (`renamed`: the
/// filter renamed this command, on a server that tells it the client). \returns true when the
/// command may go on; false after replying native Redis's refusal (and logging it in ACL LOG).
inline bool twin_may_run(rmapi::Ctx* ctx, rmapi::String* native_name, rmapi::String** argv,
                         std::size_t argc, std::string_view shown_name, bool renamed) {
    const int flags = rmapi::GetContextFlags(ctx);
    if ((flags & (rmapi::CTX_FLAGS_REPLICATED | rmapi::CTX_FLAGS_LOADING)) != 0) return true;
    const bool in_script = (flags & rmapi::CTX_FLAGS_LUA) != 0;
    if (renamed && rmapi::CommandFilterGetClientId != nullptr && !in_script) return true;
    // A script's client holds its caller's user but is not a connected client: ask the context.
    rmapi::String* name = in_script ? rmapi::GetCurrentUserName(ctx)
                                    : rmapi::GetClientUserNameById(ctx, rmapi::GetClientId(ctx));
    if (name == nullptr) return true;
    rmapi::User* user = rmapi::GetModuleUserFromUserName(name);
    rmapi::FreeString(ctx, name);
    if (user == nullptr) return true;
    argv_copy native(argc, [argv](std::size_t i) { return argv[i]; });
    const bool ok = rmapi::ACLCheckCommandPermissions(user, native.named(native_name),
                                                      static_cast<int>(argc)) == rmapi::OK;
    if (!ok) {
        rmapi::ACLAddLogEntry(ctx, user, native_name, rmapi::ACL_LOG_CMD);
        const std::string text = "NOPERM this user has no permissions to run the '" +
                                 std::string(shown_name) + "' command";
        rmapi::ReplyWithError(ctx, text.c_str());
    }
    rmapi::FreeModuleUser(user);
    return ok;
}

}  // namespace zset::module::acl

#endif  // ZSET_MODULE_ACL_HPP
