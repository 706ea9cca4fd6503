// zset module — the module's process-wide state: its data type, the thresholds in force, the
// drop-in switch and the random generator, set up once by RedisModule_OnLoad.
// SPDX-License-Identifier: MIT
//
// Redis runs commands, type callbacks and command filters on its main thread; only a value's
// free callback may run on the lazy-free thread, and it reads none of this.
#ifndef ZSET_MODULE_STATE_HPP
#define ZSET_MODULE_STATE_HPP

#include <cstddef>
#include <cstdint>
#include <random>

#include "dropin_keys.hpp"
#include "redis_module_api.hpp"
#include <zset/common.hpp>
#include <zset/redis/config.hpp>
#include <zset/redis/numbers.hpp>

namespace zset::module {

struct module_state {
    /// The registered data type (RedisModule_CreateDataType).
    rmapi::Type* type = nullptr;
    /// zset-max-listpack-entries / -value as the server has them now (read at load and after
    /// every CONFIG SET: module keys convert exactly when Redis's own sorted sets would).
    zset::options thresholds{};
    /// zset.dropin: the native sorted-set commands are served by the module (dropin.hpp).
    bool dropin = false;
    /// zset.dropin-small-keys: where drop-in mode keeps a sorted set that fits Redis's listpack
    /// thresholds (dropin_keys.hpp).
    small_keys dropin_small_keys = small_keys::native;
    /// The server the module is loaded into (detected at load, config.hpp): Redis or
    /// Valkey, and its version as RedisModule_GetServerVersion gives it (0x00MMmmpp).
    zset::redis::server_family server = zset::redis::server_family::redis;
    unsigned server_version = 0;
    /// Where that server's answers differ from other versions': what the commands follow.
    zset::redis::server_rules rules{};
    /// How doubles are written where Redis writes them as text itself (ZSCAN, the AOF): %.17g
    /// before Redis 7.2, the shortest round-trip form from 7.2 on (every Valkey is 7.2 or later).
    zset::redis::format_style doubles = zset::redis::format_style::percent17g;
    /// ZRANDMEMBER's generator.
    std::mt19937_64 rng{0x7a736574u};
    /// ZRANDMEMBER with a negative count draws at most this many (as zset::redis's keyspace).
    std::size_t max_random_draws = zset::redis::keyspace_options{}.max_random_draws;
};

/// The one instance.
inline module_state& state() noexcept {
    static module_state s;
    return s;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_STATE_HPP
