// zset module — where a sorted set lives in drop-in mode: the rule that decides between one of
// Redis's own sorted sets and a module key.
// SPDX-License-Identifier: MIT
//
// Redis keeps a small sorted set in a listpack of a few bytes an element, less than any
// structure with a lookup index can take, and a module key also pays Redis's 16-byte wrapper of
// every module value. So with zset.dropin-small-keys `native` (the default), a sorted set stays
// Redis's own while it fits Redis's listpack thresholds (zset-max-listpack-entries / -value),
// and becomes a module key at the write that would make Redis convert it to its skiplist:
//
//   * ZADD / ZINCRBY creating a key: Redis's own command runs (module_command::forward) when
//     the result stays a listpack; otherwise the module creates a module key.
//   * ZADD / ZINCRBY on one of Redis's sorted sets: Redis's own command runs unless it would
//     convert the key; then the module adopts it (the same elements and TTL, as a module key)
//     and runs the command on it. A native key already past the thresholds is adopted at its
//     next ZADD.
//   * *STORE: a result that fits, computed from Redis's own keys only, is Redis's own
//     command's to store (it stores a listpack); a result past the thresholds, or one read
//     from a module key, is stored as a module key.
//   * every other command on one of Redis's sorted sets runs as Redis's own.
//
// The prediction follows each server's rules (zset::redis::zadd_encoding_hint): Redis 7.0
// converts as members are added; 7.2 and Valkey 7.2 also by the pair count; Valkey 8 also by
// the longest member of all pairs. A module key is never turned back into a native one: Redis
// never turns its own skiplist back into a listpack as it shrinks either, and a key that grew
// past the thresholds once tends to grow again (a conversion each way at every crossing would
// copy the key back and forth).
//
// With `module`, every sorted set a command creates is a module key (Redis's own sorted sets
// written before drop-in mode are still served by Redis, and adopted when they outgrow the
// thresholds).
#ifndef ZSET_MODULE_DROPIN_KEYS_HPP
#define ZSET_MODULE_DROPIN_KEYS_HPP

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include <zset/common.hpp>
#include <zset/detail/redis_text.hpp>
#include <zset/redis/config.hpp>

namespace zset::module {

/// zset.dropin-small-keys: where drop-in mode keeps a sorted set that fits Redis's listpack.
enum class small_keys : int { native = 0, module = 1 };

namespace dropin_keys {

/// The commands whose one key is their first argument and which neither block nor store: on a
/// key that is not a module key, Redis's own command gives the answer the module would hand
/// it (the generic TYPE, OBJECT ENCODING and DUMP too, OBJECT's key being its second argument).
inline constexpr std::string_view single_key_commands[] = {"zadd",
                                                           "zincrby",
                                                           "zrem",
                                                           "zscore",
                                                           "zmscore",
                                                           "zcard",
                                                           "zcount",
                                                           "zlexcount",
                                                           "zrange",
                                                           "zrangebyscore",
                                                           "zrevrangebyscore",
                                                           "zrangebylex",
                                                           "zrevrangebylex",
                                                           "zrevrange",
                                                           "zrank",
                                                           "zrevrank",
                                                           "zremrangebyrank",
                                                           "zremrangebyscore",
                                                           "zremrangebylex",
                                                           "zpopmin",
                                                           "zpopmax",
                                                           "zrandmember",
                                                           "zscan",
                                                           "type",
                                                           "object",
                                                           "dump"};

constexpr bool single_key_command(std::string_view name) noexcept {
    for (std::string_view c : single_key_commands)
        if (c == name) return true;
    return false;
}

/// The score-member pairs of a ZADD or ZINCRBY: argv[first], argv[first + 1] is the first pair.
struct pairs {
    std::size_t first = 0;
    std::size_t count = 0;
    bool xx = false;

    std::string_view member(const std::string_view* argv, std::size_t j) const noexcept {
        return argv[first + 2 * j + 1];
    }
};

/// The pairs of `command` (a row name) as written, or none for another command or arguments
/// Redis refuses (its own command then answers them).
inline std::optional<pairs> pairs_of(std::string_view command, const std::string_view* argv,
                                     std::size_t argc) {
    using zset::detail::ascii_iequals;
    if (command == "zincrby") {
        if (argc != 4) return std::nullopt;
        return pairs{2, 1, false};
    }
    if (command != "zadd") return std::nullopt;
    pairs p;
    std::size_t i = 2;
    for (; i < argc; ++i) {
        const std::string_view word = argv[i];
        if (ascii_iequals(word, "xx"))
            p.xx = true;
        else if (!ascii_iequals(word, "nx") && !ascii_iequals(word, "gt") &&
                 !ascii_iequals(word, "lt") && !ascii_iequals(word, "ch") &&
                 !ascii_iequals(word, "incr"))
            break;
    }
    if (i >= argc || (argc - i) % 2 != 0) return std::nullopt;
    p.first = i;
    p.count = (argc - i) / 2;
    return p;
}

/// The longest member of the pairs.
inline std::size_t longest_member(const pairs& p, const std::string_view* argv) noexcept {
    std::size_t longest = 0;
    for (std::size_t j = 0; j < p.count; ++j) longest = std::max(longest, p.member(argv, j).size());
    return longest;
}

/// How many members of `members` differ, when more than `limit`; else `limit` or fewer.
inline std::size_t distinct_past(std::vector<std::string_view> members, std::size_t limit) {
    if (members.size() <= limit) return members.size();
    std::sort(members.begin(), members.end());
    return static_cast<std::size_t>(std::unique(members.begin(), members.end()) - members.begin());
}

/// Whether Redis's ZADD / ZINCRBY creating a key from `p` leaves it a listpack.
inline bool new_key_stays_listpack(const pairs& p, const std::string_view* argv,
                                   const zset::options& limits,
                                   zset::redis::zadd_encoding_hint hint) {
    if (limits.max_listpack_entries == 0 || longest_member(p, argv) > limits.max_listpack_value)
        return false;
    if (hint != zset::redis::zadd_encoding_hint::none)
        return p.count <= limits.max_listpack_entries;  // the pairs, duplicates and all
    std::vector<std::string_view> members;
    for (std::size_t j = 0; j < p.count; ++j) members.push_back(p.member(argv, j));
    return distinct_past(std::move(members), limits.max_listpack_entries) <=
           limits.max_listpack_entries;
}

/// Whether Redis's ZADD / ZINCRBY of `p` on its own sorted set of `card` elements would convert
/// it to a skiplist (or finds it one already: more elements than the thresholds allow).
/// `is_member(m)` answers whether the set holds m.
template <class IsMember>
bool native_key_outgrows(std::size_t card, const pairs& p, const std::string_view* argv,
                         const zset::options& limits, zset::redis::zadd_encoding_hint hint,
                         IsMember is_member) {
    using zset::redis::zadd_encoding_hint;
    const std::size_t entries = limits.max_listpack_entries;
    if (card > entries) return true;
    const std::size_t longest = longest_member(p, argv);
    if (hint != zadd_encoding_hint::none && p.count > entries) return true;
    if (hint == zadd_encoding_hint::pair_count_and_length && longest > limits.max_listpack_value)
        return true;
    if (p.xx) return false;  // adds nothing
    if (card + p.count <= entries && longest <= limits.max_listpack_value) return false;
    std::vector<std::string_view> added;
    for (std::size_t j = 0; j < p.count; ++j) {
        const std::string_view m = p.member(argv, j);
        if (is_member(m)) continue;
        if (m.size() > limits.max_listpack_value) return true;
        added.push_back(m);
    }
    return card + distinct_past(std::move(added), entries - card) > entries;
}

/// Whether a set of `size` elements, the longest `longest` bytes, is one Redis keeps as a
/// listpack when a *STORE command writes it.
inline bool store_fits_listpack(std::size_t size, std::size_t longest,
                                const zset::options& limits) noexcept {
    return size <= limits.max_listpack_entries && longest <= limits.max_listpack_value;
}

}  // namespace dropin_keys
}  // namespace zset::module

#endif  // ZSET_MODULE_DROPIN_KEYS_HPP
