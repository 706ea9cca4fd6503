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
// Every load path (RESTORE, an RDB file at startup or DEBUG RELOAD, a full sync, MIGRATE, the
// RDB preamble of an AOF) goes through rdb_load, and rdb_load trusts nothing in the payload. It
// refuses, by returning null (which Redis turns into an error: RESTORE's `ERR Bad data format`,
// a refused RDB file), a payload
//   * that ends early, or holds a value of another type where one is expected (a short read:
//     the module sets REDISMODULE_OPTIONS_HANDLE_IO_ERRORS, so Redis reports it to rdb_load
//     instead of ending the server);
//   * whose two counts disagree, or disagree with the elements there are;
//   * of no element: a key is deleted when it is emptied, so rdb_save never writes an empty
//     set, and Redis keeps no empty key (it refuses to RESTORE an empty payload of its own);
//   * with an encoding flag other than 0 or 1;
//   * with a NaN score, or an element not strictly after the one before it in (score, member)
//     order;
//   * with a member that occurs twice, wherever the copies are (a hash table over the members
//     read, has_repeated_member: O(n), as Redis's own check of a sorted-set payload is);
//   * or that the set cannot be built from (more elements than a set holds, memory): no
//     exception leaves rdb_load.
// These are exactly the preconditions of sorted_set::from_sorted (sorted, unique, no NaN), so a
// loaded set passes validate(). The set is built only from a complete, valid payload: nothing
// half-built is stored. All of it is checked on every load, whatever Redis's
// sanitize-dump-payload says (that config chooses whether Redis validates its own compact
// encodings deeply; this check is linear and a small part of a load).
//
// The set is built as Redis loads its own sorted sets (zset::redis::detail::load_options): a set
// saved in listpack mode stays in listpack mode unless it has more elements than
// zset-max-listpack-entries allows; one saved in skiplist mode becomes a listpack when it fits
// both thresholds. A payload in listpack mode past the server's thresholds is therefore
// converted, not refused: Redis converts its own listpack payloads the same way, since a replica
// or a restarted server with smaller zset-max-listpack-* must still load the data. The encoding
// flag is only a hint: from_sorted puts a set in listpack mode only when its elements fit one
// listpack block, so no payload makes a listpack-mode set the container considers invalid.
//
// AOF rewrite emits ZSET.ZADD commands of up to 64 pairs (Redis's own batch for sorted sets),
// scores in %.17g text, which parses back to the same double.
#ifndef ZSET_MODULE_TYPE_HPP
#define ZSET_MODULE_TYPE_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redis_module_api.hpp"
#include "state.hpp"
#include "value.hpp"
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

/// The elements a payload holds, in payload order.
using element_vector = std::vector<std::pair<std::string, double>>;

/// Whether two of `els` have the same member: open addressing over (tag, element index) slots,
/// at most half full, the tag being the top 32 bits of the member's hash. A repeated member
/// meets its first copy's slot before an empty one; a tag shared by distinct members costs a
/// member comparison. The table is sized once from the element count and filled in batches: the
/// tags of a batch are computed and their slots prefetched before any is probed, so the misses
/// of a table larger than the caches overlap instead of following one another. O(n).
inline bool has_repeated_member(const element_vector& els) {
    struct slot {
        std::uint32_t tag;
        std::uint32_t element;  // index + 1; 0: empty
    };
    std::size_t capacity = 64;
    while (capacity < 2 * els.size()) capacity *= 2;
    std::vector<slot> slots(capacity, slot{0, 0});
    const std::size_t mask = capacity - 1;
    const zset::hash<std::string> hash;
    constexpr std::size_t batch = 32;
    std::uint32_t tags[batch];
    for (std::size_t first = 0; first < els.size(); first += batch) {
        const std::size_t last = std::min(els.size(), first + batch);
        for (std::size_t i = first; i < last; ++i) {
            tags[i - first] = static_cast<std::uint32_t>(hash(els[i].first) >> 32);
#if defined(__GNUC__) || defined(__clang__)
            __builtin_prefetch(&slots[tags[i - first] & mask], 1);
#endif
        }
        for (std::size_t i = first; i < last; ++i) {
            const std::uint32_t tag = tags[i - first];
            for (std::size_t at = tag & mask;; at = (at + 1) & mask) {
                slot& s = slots[at];
                if (s.element == 0) {
                    s = slot{tag, static_cast<std::uint32_t>(i + 1)};
                    break;
                }
                if (s.tag == tag && els[s.element - 1].first == els[i].first) return true;
            }
        }
    }
    return false;
}

/// Reads the n elements of an encoding-1 payload into `out`. \returns null, or why the payload
/// is refused: a short read (the payload ends, or a value has the wrong type), a NaN score, an
/// element not after the one before it, a member that occurs twice (checked once all are read,
/// has_repeated_member).
inline const char* read_elements(rmapi::IO* io, std::uint64_t n, element_vector& out) {
    // Element indexes are 32-bit, as the container's ranks are: no set holds more.
    if (n >= std::uint64_t{0xffffffff}) return "more elements than a set holds";
    // A damaged count must not allocate: reserve what a sane payload could hold, grow after.
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 16)));
    for (std::uint64_t i = 0; i < n; ++i) {
        std::size_t len = 0;
        char* bytes = rmapi::LoadStringBuffer(io, &len);
        if (rmapi::IsIOError(io) || bytes == nullptr) return "truncated";
        std::string member(bytes, len);
        rmapi::Free(bytes);
        const double score = rmapi::LoadDouble(io);
        if (rmapi::IsIOError(io)) return "truncated";
        if (std::isnan(score)) return "a NaN score";
        if (!out.empty()) {
            const auto& [pm, ps] = out.back();
            if (score < ps || (score == ps && !(std::string_view(pm) < std::string_view(member))))
                return "elements out of order";
        }
        out.emplace_back(std::move(member), score);
    }
    return has_repeated_member(out) ? "a member twice" : nullptr;
}

/// rdb_load's work; may throw (std::bad_alloc, std::length_error), which rdb_load turns into a
/// refused payload.
inline void* load_value(rmapi::IO* io) {
    const std::uint64_t n = rmapi::LoadUnsigned(io);
    const std::uint64_t packed = rmapi::LoadUnsigned(io);
    const char* refused = rmapi::IsIOError(io) ? "truncated"
                          : packed > 1         ? "an unknown encoding flag"
                          : n == 0             ? "an empty set"
                                               : nullptr;
    element_vector elements;
    if (refused == nullptr) refused = read_elements(io, n, elements);
    if (refused == nullptr) {
        const std::uint64_t closing = rmapi::LoadUnsigned(io);
        if (rmapi::IsIOError(io))
            refused = "truncated";
        else if (closing != n)
            refused = "element counts disagree";
    }
    if (refused != nullptr) {
        rmapi::LogIOError(io, rmapi::LOG_WARNING, "zset: a %s payload is refused: %s", type_name,
                          refused);
        return nullptr;
    }
    const zset::options& thresholds = state().thresholds;
    value* v = new_value(value::from_sorted(elements.begin(), elements.end(),
                                            zset::redis::detail::load_options(thresholds, packed)));
    v->set_options(thresholds);
    return v;
}

inline void* rdb_load(rmapi::IO* io, int encver) {
    if (encver != encoding_version) {
        rmapi::LogIOError(io, rmapi::LOG_WARNING,
                          "zset: cannot load encoding version %d of type %s (this module "
                          "reads version %d)",
                          encver, type_name, encoding_version);
        return nullptr;
    }
    try {
        return load_value(io);
    } catch (const std::exception& e) {
        rmapi::LogIOError(io, rmapi::LOG_WARNING, "zset: a %s payload is refused: %s", type_name,
                          e.what());
        return nullptr;
    }
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

#endif  // ZSET_MODULE_TYPE_HPP
