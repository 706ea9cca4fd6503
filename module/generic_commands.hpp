// zset module — the generic commands whose answer depends on a key's type, made to see module
// keys as sorted sets: ZSET.TYPE, ZSET.OBJECT, ZSET.DUMP and ZSET.RESTORE. For any other key (or
// payload) they run Redis's own command and reply its reply unchanged.
// SPDX-License-Identifier: MIT
//
//   ZSET.TYPE key          "zset" for a module key
//   ZSET.OBJECT ENCODING   "listpack" or "skiplist" for a module key, by the container's encoding
//                          (converting at Redis's thresholds, so a module key reports what the
//                          same native key would)
//   ZSET.DUMP key          a module key as Redis's own sorted-set payload (ZSET_LISTPACK or
//                          ZSET_2, this server's RDB version): RESTORE on any Redis reads it
//   ZSET.RESTORE ...       a sorted-set payload (types ZSET, ZSET_2, ZSET_ZIPLIST, ZSET_LISTPACK)
//                          becomes a module key, with RESTORE's options, checks and errors in
//                          Redis's order; other payloads go to Redis's RESTORE, and so does a
//                          sorted set drop-in mode keeps as Redis's own (dropin_keys.hpp)
// In drop-in mode (dropin.hpp) the native names reach these. Each is a handler over the
// module's context, like the sorted-set commands.
#ifndef ZSET_MODULE_GENERIC_COMMANDS_HPP
#define ZSET_MODULE_GENERIC_COMMANDS_HPP

#include <cstdint>
#include <string_view>
#include <utility>

#include "command_context.hpp"
#include "redis_module_api.hpp"
#include "state.hpp"
#include <zset/redis/arguments.hpp>
#include <zset/redis/errors.hpp>
#include <zset/redis/value_codec.hpp>

namespace zset::module::generic {

namespace codec = zset::detail::rdb;

/// The RDB version this server writes (and the newest it reads): 7.0 10, 7.2 11, 7.4 on 12.
inline std::uint16_t server_rdb_version() {
    // Valkey 7.2 and 8.x write Redis 7.2's RDB version (their own version numbers say nothing)
    if (state().server == zset::redis::server_family::valkey) return codec::rdb_version_redis_7_2;
    const int v = rmapi::GetServerVersion();
    if (v >= 0x070400) return codec::rdb_version_redis_7_4;
    if (v >= 0x070200) return codec::rdb_version_redis_7_2;
    return codec::rdb_version_redis_7_0;
}

/// TYPE key
inline void type(module_command& c) {
    if (c.find_zset(c[1]).value != nullptr) return c.out.simple("zset");
    c.forward(false);
}

/// OBJECT subcommand [arguments ...]
inline void object(module_command& c) {
    if (c.argc == 3 && c.is(1, "encoding")) {
        if (const value* z = c.find_zset(c[2]).value)
            return c.out.bulk(z->encoding() == zset::encoding::listpack ? "listpack" : "skiplist");
    }
    c.forward(false);
}

/// DUMP key
inline void dump(module_command& c) {
    if (const value* z = c.find_zset(c[1]).value)
        return c.out.bulk(zset::redis::detail::dump_zset(*z, server_rdb_version()));
    c.forward(false);
}

/// Whether a payload holds a sorted set (its first byte is the RDB object type).
inline bool sorted_set_payload(std::string_view payload) noexcept {
    if (payload.empty()) return false;
    const auto type = static_cast<zset::rdb::payload_type>(static_cast<unsigned char>(payload[0]));
    return type == zset::rdb::payload_type::zset || type == zset::rdb::payload_type::zset_2 ||
           type == zset::rdb::payload_type::zset_ziplist ||
           type == zset::rdb::payload_type::zset_listpack;
}

/// RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
inline void restore(module_command& c) {
    if (!sorted_set_payload(c[3])) return c.forward(true);
    namespace rd = zset::redis::detail;
    rd::restore_options o;
    if (!rd::parse_restore_options(c, o)) return;
    const std::string_view key = c[1];
    if (!o.replace && c.key_exists(key)) return c.out.error(zset::redis::errors::busykey);
    long long ttl = 0;
    if (!rd::integer_arg(c, 2, ttl)) return;
    if (ttl < 0) return c.out.error(zset::redis::errors::invalid_ttl);
    codec::restore_options ro;
    ro.max_rdb_version = server_rdb_version();
    codec::object_payload obj;
    const codec::decode_status st = codec::decode_object(c[3], ro, obj);
    if (!st.ok()) return c.out.error(codec::redis_error_text(st.kind()));
    const long long now = c.now_ms();
    if (ttl != 0 && !o.absttl) ttl += now;
    value loaded = rd::load_zset<value>(obj, c.zset_options());
    if (c.stays_native(loaded)) return c.forward(true);  // Redis restores its own listpack
    if (o.replace) c.remove_key(key);
    if (ttl != 0 && ttl <= now) return c.out.ok();  // already expired: nothing is stored
    c.store_zset(key, std::move(loaded));
    if (ttl != 0) c.set_expire(key, ttl - now);
    c.out.ok();
}

}  // namespace zset::module::generic

#endif  // ZSET_MODULE_GENERIC_COMMANDS_HPP
