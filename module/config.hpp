// zset module — configuration: the server the module is loaded into (Redis or Valkey, and its
// version) decides the rules its commands follow where servers differ; Redis's own
// zset-max-listpack-entries / -value steer the module's sorted sets (read at load and after
// every CONFIG SET), and the module's configs (zset.dropin, zset.dropin-small-keys) are
// registered with Redis, so they are set with `--zset.dropin yes` after --loadmodule, in
// redis.conf, or with CONFIG SET.
// SPDX-License-Identifier: MIT
#ifndef ZSET_MODULE_CONFIG_HPP
#define ZSET_MODULE_CONFIG_HPP

#include <cstddef>
#include <string_view>

#include "redis_module_api.hpp"
#include "state.hpp"
#include <zset/detail/redis_text.hpp>
#include <zset/redis/numbers.hpp>

namespace zset::module {

/// Reads zset-max-listpack-entries / -value from the server into state().thresholds.
inline void read_thresholds(rmapi::Ctx* ctx) {
    rmapi::CallReply* r = rmapi::Call(ctx, "CONFIG", "cc", "GET", "zset-max-listpack-*");
    if (r == nullptr) return;
    const std::size_t n = rmapi::CallReplyLength(r);
    for (std::size_t i = 0; i + 1 < n; i += 2) {
        std::size_t name_len = 0, value_len = 0;
        const char* name = rmapi::CallReplyStringPtr(rmapi::CallReplyArrayElement(r, i), &name_len);
        const char* text =
            rmapi::CallReplyStringPtr(rmapi::CallReplyArrayElement(r, i + 1), &value_len);
        const auto v = zset::redis::parse_integer(std::string_view(text, value_len));
        if (!v || *v < 0) continue;
        const std::string_view key(name, name_len);
        if (key == "zset-max-listpack-entries")
            state().thresholds.max_listpack_entries = static_cast<std::size_t>(*v);
        else if (key == "zset-max-listpack-value")
            state().thresholds.max_listpack_value = static_cast<std::size_t>(*v);
    }
    rmapi::FreeCallReply(r);
}

/// Whether INFO server's text names Valkey ("server_name:valkey"; Redis has no such field).
inline bool info_names_valkey(std::string_view info) noexcept {
    constexpr std::string_view field = "server_name:valkey";
    for (std::size_t at = info.find(field); at != std::string_view::npos;
         at = info.find(field, at + 1)) {
        const std::size_t end = at + field.size();
        if ((at == 0 || info[at - 1] == '\n') && (end == info.size() || info[end] == '\r'))
            return true;
    }
    return false;
}

/// Finds out which server the module is loaded into (INFO server names Valkey; the version is
/// RedisModule_GetServerVersion's, Valkey's own) and sets the rules and the double format
/// the commands follow there.
inline void detect_server(rmapi::Ctx* ctx) {
    module_state& s = state();
    s.server = zset::redis::server_family::redis;
    if (rmapi::CallReply* r = rmapi::Call(ctx, "INFO", "c", "server")) {
        std::size_t len = 0;
        const char* text = rmapi::CallReplyStringPtr(r, &len);
        if (text != nullptr && info_names_valkey(std::string_view(text, len)))
            s.server = zset::redis::server_family::valkey;
        rmapi::FreeCallReply(r);
    }
    s.server_version = static_cast<unsigned>(rmapi::GetServerVersion());
    s.rules = zset::redis::server_rules::of(s.server, s.server_version);
    s.doubles = s.server_version >= 0x070200u ? zset::redis::format_style::shortest
                                              : zset::redis::format_style::percent17g;
}

/// After CONFIG SET: re-reads the thresholds when one of them (or its ziplist alias) changed.
inline void on_config_change(rmapi::Ctx* ctx, rmapi::Event, std::uint64_t subevent, void* data) {
    if (subevent != rmapi::SUBEVENT_CONFIG_CHANGE || data == nullptr) return;
    const auto* change = static_cast<const rmapi::ConfigChangeV1*>(data);
    for (std::uint32_t i = 0; i < change->num_changes; ++i) {
        const std::string_view name = change->config_names[i];
        if (zset::detail::ascii_iequals(name.substr(0, 9), "zset-max-"))
            return read_thresholds(ctx);
    }
}

inline int get_dropin(const char*, void*) {
    return state().dropin ? 1 : 0;
}
inline int set_dropin(const char*, int on, void*, rmapi::String**) {
    state().dropin = on != 0;
    return rmapi::OK;
}

inline int get_small_keys(const char*, void*) {
    return static_cast<int>(state().dropin_small_keys);
}
inline int set_small_keys(const char*, int v, void*, rmapi::String**) {
    state().dropin_small_keys = static_cast<small_keys>(v);
    return rmapi::OK;
}

/// Registers the module's configs and takes their values from the command line / config file;
/// subscribes to CONFIG SET. `on_dropin` runs after zset.dropin changes. \returns false when
/// Redis refused.
inline bool configure(rmapi::Ctx* ctx, rmapi::ConfigApplyFunc on_dropin) {
    if (rmapi::RegisterBoolConfig(ctx, "dropin", 0, rmapi::CONFIG_DEFAULT, get_dropin, set_dropin,
                                  on_dropin, nullptr) != rmapi::OK)
        return false;
    const char* small_key_names[] = {"native", "module"};
    const int small_key_values[] = {static_cast<int>(small_keys::native),
                                    static_cast<int>(small_keys::module)};
    if (rmapi::RegisterEnumConfig(ctx, "dropin-small-keys", small_key_values[0],
                                  rmapi::CONFIG_DEFAULT, small_key_names, small_key_values, 2,
                                  get_small_keys, set_small_keys, nullptr, nullptr) != rmapi::OK)
        return false;
    if (rmapi::LoadConfigs(ctx) != rmapi::OK) return false;
    read_thresholds(ctx);
    detect_server(ctx);
    return rmapi::SubscribeToServerEvent(ctx, rmapi::EventConfig, on_config_change) == rmapi::OK;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_CONFIG_HPP
