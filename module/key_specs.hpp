// zset module — where each ZSET.* command's keys are, declared per command as Redis declares its
// native twin's (the key specs of its command table), and the two uses of that declaration: the
// key specs registered with the command (Redis Cluster's routing, -CROSSSLOT, ACL key patterns
// and their read / write permissions) and the answer to a key-position request (COMMAND GETKEYS,
// and Redis 7.0's routing of keys that follow a numkeys argument).
// SPDX-License-Identifier: MIT
#ifndef ZSET_MODULE_KEY_SPECS_HPP
#define ZSET_MODULE_KEY_SPECS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "redis_module_api.hpp"

namespace zset::module {

/// How a command's keys are laid out in its arguments.
enum class key_layout : std::uint8_t {
    one,            ///< argv[at]
    all_but_last,   ///< argv[at] .. argv[argc - 2] (the blocking pops: a timeout follows)
    numkeys,        ///< argv[at] is a count n, the keys follow it
    store_one,      ///< argv[1] is the destination, argv[2] the source
    store_numkeys,  ///< argv[1] is the destination, argv[2] a count n, the sources follow it
};

/// One command's declaration: its layout, where it starts, and its keys' flags (for the store
/// layouts, the sources'; a destination is always KEY_OW | KEY_UPDATE).
struct key_declaration {
    std::string_view name;
    key_layout layout;
    int at;
    std::uint64_t flags;
};

namespace key_flags {
inline constexpr std::uint64_t read = rmapi::KEY_RO | rmapi::KEY_ACCESS;
inline constexpr std::uint64_t read_no_access = rmapi::KEY_RO;
inline constexpr std::uint64_t insert = rmapi::KEY_RW | rmapi::KEY_UPDATE;
inline constexpr std::uint64_t increment = rmapi::KEY_RW | rmapi::KEY_ACCESS | rmapi::KEY_UPDATE;
inline constexpr std::uint64_t remove = rmapi::KEY_RW | rmapi::KEY_DELETE;
inline constexpr std::uint64_t pop = rmapi::KEY_RW | rmapi::KEY_ACCESS | rmapi::KEY_DELETE;
inline constexpr std::uint64_t overwrite = rmapi::KEY_OW | rmapi::KEY_UPDATE;
}  // namespace key_flags

/// Every ZSET.* command's keys, as Redis 7.0 declares its native twin's.
inline constexpr key_declaration key_declarations[] = {
    {"zadd", key_layout::one, 1, key_flags::insert},
    {"zincrby", key_layout::one, 1, key_flags::increment},
    {"zrem", key_layout::one, 1, key_flags::remove},
    {"zremrangebyrank", key_layout::one, 1, key_flags::remove},
    {"zremrangebyscore", key_layout::one, 1, key_flags::remove},
    {"zremrangebylex", key_layout::one, 1, key_flags::remove},
    {"zpopmin", key_layout::one, 1, key_flags::pop},
    {"zpopmax", key_layout::one, 1, key_flags::pop},
    {"bzpopmin", key_layout::all_but_last, 1, key_flags::pop},
    {"bzpopmax", key_layout::all_but_last, 1, key_flags::pop},
    {"zmpop", key_layout::numkeys, 1, key_flags::pop},
    {"bzmpop", key_layout::numkeys, 2, key_flags::pop},
    {"zcard", key_layout::one, 1, key_flags::read_no_access},
    {"zcount", key_layout::one, 1, key_flags::read},
    {"zlexcount", key_layout::one, 1, key_flags::read},
    {"zscore", key_layout::one, 1, key_flags::read},
    {"zmscore", key_layout::one, 1, key_flags::read},
    {"zrank", key_layout::one, 1, key_flags::read},
    {"zrevrank", key_layout::one, 1, key_flags::read},
    {"zrange", key_layout::one, 1, key_flags::read},
    {"zrangebyscore", key_layout::one, 1, key_flags::read},
    {"zrevrangebyscore", key_layout::one, 1, key_flags::read},
    {"zrangebylex", key_layout::one, 1, key_flags::read},
    {"zrevrangebylex", key_layout::one, 1, key_flags::read},
    {"zrevrange", key_layout::one, 1, key_flags::read},
    {"zrangestore", key_layout::store_one, 1, key_flags::read},
    {"zrandmember", key_layout::one, 1, key_flags::read},
    {"zscan", key_layout::one, 1, key_flags::read},
    {"zunion", key_layout::numkeys, 1, key_flags::read},
    {"zinter", key_layout::numkeys, 1, key_flags::read},
    {"zdiff", key_layout::numkeys, 1, key_flags::read},
    {"zintercard", key_layout::numkeys, 1, key_flags::read},
    {"zunionstore", key_layout::store_numkeys, 1, key_flags::read},
    {"zinterstore", key_layout::store_numkeys, 1, key_flags::read},
    {"zdiffstore", key_layout::store_numkeys, 1, key_flags::read},
    {"type", key_layout::one, 1, key_flags::read_no_access},
    {"object", key_layout::one, 2, key_flags::read_no_access},  // OBJECT ENCODING key
    {"dump", key_layout::one, 1, key_flags::read},
    {"restore", key_layout::one, 1, key_flags::overwrite},
    {"import", key_layout::one, 1, key_flags::insert},  // ZSET.IMPORT / EXPORT: rewrite in place
    {"export", key_layout::one, 1, key_flags::insert},
};

/// The declaration of `name`, or null.
constexpr const key_declaration* keys_of(std::string_view name) noexcept {
    for (const key_declaration& d : key_declarations)
        if (d.name == name) return &d;
    return nullptr;
}

/// Whether Redis must ask the command where its keys are (the getkeys-api flag): Redis 7.0
/// routes by first / last / step alone otherwise.
constexpr bool keys_need_asking(const key_declaration& d) noexcept {
    return d.layout != key_layout::one;
}

/// The key specs of a declaration (at most two, then the zeroed terminator).
inline std::array<rmapi::KeySpec, 3> key_specs(const key_declaration& d) {
    std::array<rmapi::KeySpec, 3> specs{};
    std::size_t n = 0;
    const auto at = [&](int pos, std::uint64_t flags) -> rmapi::KeySpec& {
        rmapi::KeySpec& s = specs[n++];
        s.flags = flags;
        s.begin_search_type = rmapi::BS_INDEX;
        s.bs.index.pos = pos;
        return s;
    };
    const auto range = [](rmapi::KeySpec& s, int lastkey) {
        s.find_keys_type = rmapi::FK_RANGE;
        s.fk.range = {lastkey, 1, 0};
    };
    const auto keynum = [](rmapi::KeySpec& s) {
        s.find_keys_type = rmapi::FK_KEYNUM;
        s.fk.keynum = {0, 1, 1};
    };
    switch (d.layout) {
    case key_layout::one:
        range(at(d.at, d.flags), 0);
        break;
    case key_layout::all_but_last:
        range(at(d.at, d.flags), -2);
        break;
    case key_layout::numkeys:
        keynum(at(d.at, d.flags));
        break;
    case key_layout::store_one:
        range(at(1, key_flags::overwrite), 0);
        range(at(2, d.flags), 0);
        break;
    case key_layout::store_numkeys:
        range(at(1, key_flags::overwrite), 0);
        keynum(at(2, d.flags));
        break;
    }
    return specs;
}

/// Answers a key-position request for a command laid out as `d`.
inline void report_keys(rmapi::Ctx* ctx, const key_declaration& d, rmapi::String** argv, int argc) {
    const auto numbered = [&](int count_at) {
        long long n = 0;
        if (count_at >= argc || rmapi::StringToLongLong(argv[count_at], &n) != rmapi::OK) return;
        for (long long i = 0; i < n && count_at + 1 + i < argc; ++i)
            rmapi::KeyAtPos(ctx, static_cast<int>(count_at + 1 + i));
    };
    switch (d.layout) {
    case key_layout::one:
        if (d.at < argc) rmapi::KeyAtPos(ctx, d.at);
        break;
    case key_layout::all_but_last:
        for (int i = d.at; i < argc - 1; ++i) rmapi::KeyAtPos(ctx, i);
        break;
    case key_layout::numkeys:
        numbered(d.at);
        break;
    case key_layout::store_one:
        for (int i = 1; i <= 2 && i < argc; ++i) rmapi::KeyAtPos(ctx, i);
        break;
    case key_layout::store_numkeys:
        if (argc > 1) rmapi::KeyAtPos(ctx, 1);
        numbered(2);
        break;
    }
}

}  // namespace zset::module

#endif  // ZSET_MODULE_KEY_SPECS_HPP
