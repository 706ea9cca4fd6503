// zset::redis::commands — the key rules the sorted-set command families share: a set opened for
// writing with the thresholds in force, what follows a write (an emptied key is deleted, a
// change is reported), and how a *STORE command stores its result.
// SPDX-License-Identifier: MIT
//
// Templates over the sorted-set context (command.hpp's file comment lists what they use).
//
// Thread safety: need exclusive access to the keys they write.
#ifndef ZSET_REDIS_COMMANDS_ZSET_COMMON_HPP
#define ZSET_REDIS_COMMANDS_ZSET_COMMON_HPP

#include <string_view>
#include <utility>

#include "errors.hpp"

namespace zset::redis::commands::detail {

/// The sorted set under `key` for writing (creating it when `create`), with the thresholds in
/// force. Replies WRONGTYPE and returns nullptr for another type; nullptr when missing.
template <class Ctx>
typename Ctx::zset_type* zset_for_write(Ctx& c, std::string_view key, bool create) {
    auto z = c.find_zset(key);
    if (c.wrongtype(z)) return nullptr;
    if (z.missing()) return create ? &c.create_zset(key) : nullptr;
    z.value->set_options(c.zset_options());
    return z.value;
}

/// After a write to `key`: deletes it when emptied, and reports a change.
template <class Ctx, class Set>
void after_write(Ctx& c, std::string_view key, const Set& s, bool changed) {
    if (s.empty())
        c.remove_key(key);
    else if (changed)
        c.key_modified(key);
}

/// *STORE with an empty result: deletes the destination, replies 0.
template <class Ctx>
void store_nothing(Ctx& c, std::string_view dst) {
    c.remove_key(dst);
    c.out.integer(0);
}

/// Stores a finished result set under `dst` (replacing any value and its TTL); replies its size.
template <class Ctx>
void store_set(Ctx& c, std::string_view dst, typename Ctx::zset_type&& built) {
    if (built.empty()) return store_nothing(c, dst);
    const auto n = static_cast<long long>(built.size());
    built.set_options(c.zset_options());
    c.store_zset(dst, std::move(built));
    c.out.integer(n);
}

}  // namespace zset::redis::commands::detail

#endif  // ZSET_REDIS_COMMANDS_ZSET_COMMON_HPP
