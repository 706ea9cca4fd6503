// zset module — moving keys between Redis's own sorted sets and the module's, in place:
//   ZSET.IMPORT key   a native sorted set becomes a module key (same members, scores, TTL);
//   ZSET.EXPORT key   a module key becomes a native sorted set again.
// SPDX-License-Identifier: MIT
//
// Both reply the number of members the key holds in its new form; a key already in that form
// is left as it is (the reply is its size, nothing is propagated), so a migration script can be
// run again. A missing key is "ERR no such key"; any other type is WRONGTYPE. Each runs in one
// step of the event loop, as any O(n) command does (a 10^6-member key: see docs/module.md), and
// is propagated as received: a replica holding the same key converts it the same way.
#ifndef ZSET_MODULE_MIGRATE_HPP
#define ZSET_MODULE_MIGRATE_HPP

#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "redis_module_api.hpp"
#include "state.hpp"
#include "value.hpp"
#include <zset/redis/errors.hpp>

namespace zset::module {

namespace migrate_detail {

/// The elements of a native sorted set, in order.
inline std::vector<std::pair<std::string, double>> native_elements(rmapi::Ctx* ctx, rmapi::Key* k) {
    std::vector<std::pair<std::string, double>> out;
    const double inf = std::numeric_limits<double>::infinity();
    if (rmapi::ZsetFirstInScoreRange(k, -inf, inf, 0, 0) != rmapi::OK) return out;
    while (!rmapi::ZsetRangeEndReached(k)) {
        double score = 0;
        rmapi::String* member = rmapi::ZsetRangeCurrentElement(k, &score);
        std::size_t len = 0;
        const char* p = rmapi::StringPtrLen(member, &len);
        out.emplace_back(std::string(p, len), score);
        rmapi::FreeString(ctx, member);
        rmapi::ZsetRangeNext(k);
    }
    rmapi::ZsetRangeStop(k);
    return out;
}

/// The key's value replaced by `v`, its TTL kept.
inline void replace_keeping_ttl(rmapi::Key* k, value* v) {
    const rmapi::mstime_t ttl = rmapi::GetExpire(k);
    rmapi::ModuleTypeSetValue(k, state().type, v);
    if (ttl != rmapi::NO_EXPIRE) rmapi::SetExpire(k, ttl);
}

/// Opens argv[1] for writing; replies and returns null when the command cannot go on.
inline rmapi::Key* open_key(rmapi::Ctx* ctx, rmapi::String** argv, int argc) {
    if (argc != 2) {
        rmapi::WrongArity(ctx);
        return nullptr;
    }
    rmapi::Key* k = rmapi::OpenKey(ctx, argv[1], rmapi::OPEN_READ | rmapi::OPEN_WRITE);
    if (rmapi::KeyType(k) == rmapi::KEYTYPE_EMPTY) {
        rmapi::ReplyWithError(ctx, "ERR no such key");
        rmapi::CloseKey(k);
        return nullptr;
    }
    return k;
}

inline bool ours(rmapi::Key* k) {
    return rmapi::KeyType(k) == rmapi::KEYTYPE_MODULE &&
           rmapi::ModuleTypeGetType(k) == state().type;
}

/// The common tail of a conversion: the change signalled, replied and propagated.
inline int converted(rmapi::Ctx* ctx, rmapi::String* key, std::size_t n, const char* event) {
    rmapi::SignalModifiedKey(ctx, key);
    rmapi::NotifyKeyspaceEvent(ctx, rmapi::NOTIFY_GENERIC, event, key);
    rmapi::ReplicateVerbatim(ctx);
    return rmapi::ReplyWithLongLong(ctx, static_cast<long long>(n));
}

}  // namespace migrate_detail

/// ZSET.IMPORT key
inline int import_command(rmapi::Ctx* ctx, rmapi::String** argv, int argc) {
    using namespace migrate_detail;
    rmapi::Key* k = open_key(ctx, argv, argc);
    if (k == nullptr) return rmapi::OK;
    int rc = rmapi::OK;
    if (ours(k)) {
        rc = rmapi::ReplyWithLongLong(
            ctx, static_cast<long long>(static_cast<value*>(rmapi::ModuleTypeGetValue(k))->size()));
    } else if (rmapi::KeyType(k) != rmapi::KEYTYPE_ZSET) {
        rc = rmapi::ReplyWithError(ctx, zset::redis::errors::wrongtype.data());
    } else {
        const auto elements = native_elements(ctx, k);
        replace_keeping_ttl(
            k, new_value(value::from_sorted(elements.begin(), elements.end(), state().thresholds)));
        rc = converted(ctx, argv[1], elements.size(), "zset.import");
    }
    rmapi::CloseKey(k);
    return rc;
}

/// ZSET.EXPORT key
inline int export_command(rmapi::Ctx* ctx, rmapi::String** argv, int argc) {
    using namespace migrate_detail;
    rmapi::Key* k = open_key(ctx, argv, argc);
    if (k == nullptr) return rmapi::OK;
    int rc = rmapi::OK;
    if (rmapi::KeyType(k) == rmapi::KEYTYPE_ZSET) {
        rc = rmapi::ReplyWithLongLong(ctx, static_cast<long long>(rmapi::ValueLength(k)));
    } else if (!ours(k)) {
        rc = rmapi::ReplyWithError(ctx, zset::redis::errors::wrongtype.data());
    } else {
        // The value is freed when the key is deleted: copy the elements out first.
        const value& v = *static_cast<value*>(rmapi::ModuleTypeGetValue(k));
        std::vector<std::pair<std::string, double>> elements;
        elements.reserve(v.size());
        for (const auto& e : v) elements.emplace_back(std::string(e.member), e.score);
        const rmapi::mstime_t ttl = rmapi::GetExpire(k);
        rmapi::DeleteKey(k);
        for (const auto& [member, score] : elements) {
            rmapi::String* m = rmapi::CreateString(ctx, member.data(), member.size());
            rmapi::ZsetAdd(k, score, m, nullptr);
            rmapi::FreeString(ctx, m);
        }
        if (ttl != rmapi::NO_EXPIRE) rmapi::SetExpire(k, ttl);
        rc = converted(ctx, argv[1], elements.size(), "zset.export");
    }
    rmapi::CloseKey(k);
    return rc;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_MIGRATE_HPP
