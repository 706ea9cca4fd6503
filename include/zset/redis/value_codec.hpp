// zset::redis — a stored value to and from a DUMP payload (DUMP, RESTORE and DEBUG RELOAD).
// SPDX-License-Identifier: MIT
//
// DUMP writes a value in its current encoding, as Redis does: a sorted set as ZSET_LISTPACK or
// ZSET_2, a plain set as SET_INTSET or SET, a string as STRING, all at RDB version 10 (Redis 7.0,
// which every Redis >= 7.0 restores), and a listpack set as SET_LISTPACK at RDB version 11, as
// Redis 7.2 writes it (the type has no older form). Loading follows rdbLoadObject: a listpack /
// ziplist sorted set stays a listpack unless it has more than zset-max-listpack-entries elements
// (member lengths are not checked), a ZSET_2 / ZSET payload becomes a listpack when it fits both
// thresholds (Redis 7.0 and 7.2 agree), and a plain set loads by Redis 7.2's rules
// (set_value::loaded, values.hpp) with the set thresholds and rules in force.
//
// Thread safety: pure functions. Exceptions: std::bad_alloc.
#ifndef ZSET_REDIS_VALUE_CODEC_HPP
#define ZSET_REDIS_VALUE_CODEC_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../detail/dump/objects.hpp"
#include "../dump.hpp"
#include "config.hpp"
#include "values.hpp"

namespace zset::redis::detail {

namespace codec = zset::detail::rdb;

/// The DUMP payload of a sorted set in its current encoding (ZSET_LISTPACK or ZSET_2) and the
/// given RDB version. A template for the set type: the Redis module dumps its own.
template <class Set>
std::string dump_zset(const Set& z, std::uint16_t rdb_version = codec::rdb_version_redis_7_0) {
    zset::rdb::dump_options opt;
    opt.rdb_version = rdb_version;
    opt.force_type = z.encoding() == zset::encoding::listpack
                         ? zset::rdb::payload_type::zset_listpack
                         : zset::rdb::payload_type::zset_2;
    return zset::dump(z, opt);
}

/// The DUMP payload of a value, in its current encoding (see the file comment).
inline std::string dump_value(const value& v) {
    constexpr std::uint16_t version = codec::rdb_version_redis_7_0;
    if (const auto* z = std::get_if<zset_value>(&v)) return dump_zset(*z, version);
    if (const auto* s = std::get_if<set_value>(&v)) {
        switch (s->object_encoding()) {
        case set_value::encoding::hashtable:
            return codec::dump_set_object(s->members(), version);
        case set_value::encoding::listpack:
            return codec::dump_set_listpack_object(s->reply_order(), codec::rdb_version_redis_7_2);
        case set_value::encoding::intset:
            break;
        }
        std::vector<std::int64_t> ints;
        ints.reserve(s->size());
        for (const std::string_view m : s->reply_order())
            ints.push_back(*zset::detail::parse_int64(m));
        return codec::dump_intset_object(ints, version);
    }
    return codec::dump_string_object(std::get<std::string>(v), version);
}

/// The options a loaded sorted set is built with (see the file comment): one that was packed
/// (listpack, ziplist) stays packed unless it has too many elements; member lengths count only
/// for one that was not.
inline zset::options load_options(const zset::options& thresholds, bool packed) noexcept {
    zset::options build = thresholds;
    if (packed) build.max_listpack_value = std::numeric_limits<std::size_t>::max();
    return build;
}

/// The sorted set a payload's elements load as, with the thresholds in force. A template for
/// the set type: the Redis module loads payloads into its own.
template <class Set = zset_value>
Set load_zset(codec::object_payload& obj, const zset::options& thresholds) {
    const auto type = static_cast<zset::rdb::payload_type>(obj.rdb_type);
    const bool packed = type == zset::rdb::payload_type::zset_listpack ||
                        type == zset::rdb::payload_type::zset_ziplist;
    Set z = Set::from_sorted(obj.elements.begin(), obj.elements.end(),
                             load_options(thresholds, packed));
    z.set_options(thresholds);
    return z;
}

/// The plain set a payload's members load as.
inline set_value load_set(const codec::object_payload& obj, const keyspace_options& o) {
    const auto type = static_cast<codec::object_type>(obj.rdb_type);
    const auto form = type == codec::object_type::set_intset     ? set_value::payload_form::intset
                      : type == codec::object_type::set_listpack ? set_value::payload_form::listpack
                                                                 : set_value::payload_form::plain;
    return set_value::loaded(form, obj.members, set_limits_of(o));
}

/// Decodes a payload into a value, or returns nullopt with Redis's RESTORE error in `error`.
inline std::optional<value> restore_value(std::string_view payload, const keyspace_options& o,
                                          std::string_view& error) {
    codec::object_payload obj;
    const codec::decode_status st = codec::decode_object(payload, {}, obj);
    if (!st.ok()) {
        error = codec::redis_error_text(st.kind());
        return std::nullopt;
    }
    switch (obj.type) {
    case codec::object_payload::kind::string:
        return value(std::move(obj.text));
    case codec::object_payload::kind::set:
        return value(load_set(obj, o));
    default:
        return value(load_zset(obj, zset_options_of(o)));
    }
}

}  // namespace zset::redis::detail

#endif  // ZSET_REDIS_VALUE_CODEC_HPP
