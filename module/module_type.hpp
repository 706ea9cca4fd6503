// zset module — the native data type: how Redis persists (RDB, AOF), measures, digests, copies
// and frees a module key's sorted set.
// SPDX-License-Identifier: MIT
//
// RDB encoding, version 1 (the type's encver; a later format bumps it and keeps loading this
// one):
//     unsigned  n                      the number of elements
//     unsigned  encoding               0: skiplist mode, 1: listpack mode
//     n times:  string  member         in (score, member) order
//               double  score          binary (RedisModule_SaveDouble)
//     unsigned  n                      again: a payload cut short, or read past its end (RESTORE
//                                      does not check that a value used its whole payload),
//                                      fails here rather than as a shorter set
// Loading checks every element against the one before it (scores ascending, members ascending
// within a score, no NaN) and builds the set only from a complete, valid payload: a truncated or
// damaged payload (RESTORE, a damaged RDB file, a MIGRATE in flight) makes rdb_load return null,
// which Redis turns into an error (the module sets REDISMODULE_OPTIONS_HANDLE_IO_ERRORS so that
// a short read is reported to it instead of ending the server). Nothing half-built is stored.
// The set is built as Redis loads its own sorted sets (zset::redis::detail::load_options): a set
// saved in listpack mode stays in listpack mode unless it has more elements than
// zset-max-listpack-entries allows; one saved in skiplist mode becomes a listpack when it fits
// both thresholds.
//
// AOF rewrite emits ZSET.ZADD commands of up to 64 pairs (Redis's own batch for sorted sets),
// scores in %.17g text, which parses back to the same double.
#ifndef ZSET_MODULE_MODULE_TYPE_HPP
#define ZSET_MODULE_MODULE_TYPE_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "module_state.hpp"
#include "module_value.hpp"
#include "redis_module_api.hpp"
#include <zset/redis/numbers.hpp>
#include <zset/redis/value_codec.hpp>

namespace zset::module {

/// The type's name in RDB files and TYPE replies (exactly 9 characters, Redis's rule) and its
/// current encoding version.
inline constexpr const char* type_name = "zsetmod--";
inline constexpr int encoding_version = 1;

namespace type_callbacks {

inline void rdb_save(rmapi::IO* io, void* v) {
    const value& s = *static_cast<const value*>(v);
    rmapi::SaveUnsigned(io, s.size());
    rmapi::SaveUnsigned(io, s.encoding() == zset::encoding::listpack ? 1 : 0);
    for (const auto& e : s) {
        rmapi::SaveStringBuffer(io, e.member.data(), e.member.size());
        rmapi::SaveDouble(io, e.score);
    }
    rmapi::SaveUnsigned(io, s.size());
}

/// Reads the n elements of an encoding-1 payload into `out`, checking their order. \returns
/// false on a short read or an element out of order.
inline bool read_elements(rmapi::IO* io, std::uint64_t n,
                          std::vector<std::pair<std::string, double>>& out) {
    // A damaged count must not allocate: reserve what a sane payload could hold, grow after.
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 16)));
    for (std::uint64_t i = 0; i < n; ++i) {
        std::size_t len = 0;
        char* bytes = rmapi::LoadStringBuffer(io, &len);
        if (rmapi::IsIOError(io) || bytes == nullptr) return false;
        std::string member(bytes, len);
        rmapi::Free(bytes);
        const double score = rmapi::LoadDouble(io);
        if (rmapi::IsIOError(io) || std::isnan(score)) return false;
        if (!out.empty()) {
            const auto& [pm, ps] = out.back();
            if (score < ps || (score == ps && !(std::string_view(pm) < std::string_view(member))))
                return false;
        }
        out.emplace_back(std::move(member), score);
    }
    return true;
}

inline void* rdb_load(rmapi::IO* io, int encver) {
    if (encver != encoding_version) {
        rmapi::LogIOError(io, rmapi::LOG_WARNING,
                          "zset: cannot load encoding version %d of type %s (this module "
                          "reads version %d)",
                          encver, type_name, encoding_version);
        return nullptr;
    }
    const std::uint64_t n = rmapi::LoadUnsigned(io);
    const std::uint64_t packed = rmapi::LoadUnsigned(io);
    if (rmapi::IsIOError(io) || packed > 1) return nullptr;
    std::vector<std::pair<std::string, double>> elements;
    if (!read_elements(io, n, elements) || rmapi::LoadUnsigned(io) != n || rmapi::IsIOError(io)) {
        rmapi::LogIOError(io, rmapi::LOG_WARNING, "zset: a %s payload is truncated or out of order",
                          type_name);
        return nullptr;
    }
    const zset::options& thresholds = state().thresholds;
    value* v = new_value(value::from_sorted(elements.begin(), elements.end(),
                                            zset::redis::detail::load_options(thresholds, packed)));
    v->set_options(thresholds);
    return v;
}

inline void aof_rewrite(rmapi::IO* aof, rmapi::String* key, void* v) {
    constexpr std::size_t pairs_per_command = 64;
    const value& s = *static_cast<const value*>(v);
    std::vector<rmapi::String*> args;
    args.reserve(2 * pairs_per_command);
    const auto flush = [&] {
        if (args.empty()) return;
        rmapi::EmitAOF(aof, "ZSET.ZADD", "sv", key, args.data(), args.size());
        for (rmapi::String* a : args) rmapi::FreeString(nullptr, a);
        args.clear();
    };
    for (const auto& e : s) {
        const auto score =
            zset::redis::format_double_chars(e.score, zset::redis::format_style::percent17g);
        args.push_back(rmapi::CreateString(nullptr, score.data, score.size));
        args.push_back(rmapi::CreateString(nullptr, e.member.data(), e.member.size()));
        if (args.size() == 2 * pairs_per_command) flush();
    }
    flush();
}

inline std::size_t mem_usage(const void* v) {
    return static_cast<const value*>(v)->memory_usage();
}

/// DEBUG DIGEST-VALUE: each element's member and score text as one ordered sequence, so equal
/// sets digest equally on every server (a replica, a reloaded server).
inline void digest(rmapi::Digest* md, void* v) {
    for (const auto& e : *static_cast<const value*>(v)) {
        const auto score =
            zset::redis::format_double_chars(e.score, zset::redis::format_style::percent17g);
        rmapi::DigestAddStringBuffer(md, e.member.data(), e.member.size());
        rmapi::DigestAddStringBuffer(md, score.data, score.size);
        rmapi::DigestEndSequence(md);
    }
}

inline void free_value(void* v) {
    delete_value(static_cast<value*>(v));
}

/// What freeing costs, as Redis rates its own sorted sets: one unit a member in skiplist mode,
/// one for a listpack. Above Redis's lazy-free threshold (64), UNLINK, FLUSHALL ASYNC and the
/// lazyfree-lazy-* configs free the value on the lazy-free thread, and the main thread only
/// unlinks the key.
inline std::size_t free_effort(rmapi::String*, const void* v) {
    const value& s = *static_cast<const value*>(v);
    return s.encoding() == zset::encoding::skiplist ? s.size() : 1;
}

/// COPY: an independent copy (its encoding and thresholds kept).
inline void* copy(rmapi::String*, rmapi::String*, const void* v) {
    return new_value(*static_cast<const value*>(v));
}

}  // namespace type_callbacks

/// Registers the data type (in RedisModule_OnLoad). \returns it, or null when Redis refused.
inline rmapi::Type* register_type(rmapi::Ctx* ctx) {
    rmapi::TypeMethods methods{};
    methods.version = rmapi::TYPE_METHOD_VERSION;
    methods.rdb_load = type_callbacks::rdb_load;
    methods.rdb_save = type_callbacks::rdb_save;
    methods.aof_rewrite = type_callbacks::aof_rewrite;
    methods.mem_usage = type_callbacks::mem_usage;
    methods.digest = type_callbacks::digest;
    methods.free = type_callbacks::free_value;
    methods.free_effort = type_callbacks::free_effort;
    methods.copy = type_callbacks::copy;
    return rmapi::CreateDataType(ctx, type_name, encoding_version, &methods);
}

}  // namespace zset::module

#endif  // ZSET_MODULE_MODULE_TYPE_HPP
