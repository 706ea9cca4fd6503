// zset::detail::rdb — DUMP / RESTORE payloads of every value a Redis layer stores: strings, plain
// sets (hash table, intset and Redis 7.2 listpack forms) and sorted sets.
// SPDX-License-Identifier: MIT
//
// The sorted-set codec itself is detail/dump/codec.hpp; this adds the other object types and one
// decoder for any of them (what RESTORE needs when it does not know the type in advance).
//
// Thread safety: pure functions. Exceptions: writers may throw std::bad_alloc; decoding records
// problems in the result and never throws anything but std::bad_alloc.
#ifndef ZSET_DETAIL_DUMP_OBJECTS_HPP
#define ZSET_DETAIL_DUMP_OBJECTS_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec.hpp"

namespace zset {
namespace detail {
namespace rdb {

/// A decoded payload of any supported object type.
struct object_payload {
    /// What the payload holds.
    enum class kind : std::uint8_t { string, set, sorted_set };
    kind type = kind::string;
    std::uint8_t rdb_type = 0;         ///< the type byte as read
    std::uint16_t rdb_version = 0;     ///< footer RDB version
    std::string text;                  ///< kind::string
    std::vector<std::string> members;  ///< kind::set, in payload order, distinct
    element_list elements;             ///< kind::sorted_set, in sorted set order
};

/// DUMP payload of a string value (RDB_TYPE_STRING).
inline std::string dump_string_object(std::string_view value, std::uint16_t version) {
    std::string out;
    put_byte(out, static_cast<unsigned>(object_type::string));
    write_string(out, value, false);
    seal_payload(out, version);
    return out;
}

/// DUMP payload of an intset-encoded set (RDB_TYPE_SET_INTSET): ascending distinct integers.
inline std::string dump_intset_object(const std::vector<std::int64_t>& ascending,
                                      std::uint16_t version) {
    std::string out;
    put_byte(out, static_cast<unsigned>(object_type::set_intset));
    write_string(out, intset_encode(ascending), false);
    seal_payload(out, version);
    return out;
}

/// DUMP payload of a hash-table set (RDB_TYPE_SET): the members in the given order.
template <class Members>
std::string dump_set_object(const Members& members, std::uint16_t version) {
    std::string out;
    put_byte(out, static_cast<unsigned>(object_type::set));
    write_length(out, members.size());
    for (const auto& m : members) write_string(out, m, false);
    seal_payload(out, version);
    return out;
}

/// DUMP payload of a listpack-encoded set (RDB_TYPE_SET_LISTPACK, Redis >= 7.2): the members in
/// the given order, integers integer-encoded as Redis's lpAppend stores them.
template <class Members>
std::string dump_set_listpack_object(const Members& members, std::uint16_t version) {
    std::string out;
    put_byte(out, static_cast<unsigned>(object_type::set_listpack));
    write_string(out, listpack_encode_strings(members), false);
    seal_payload(out, version);
    return out;
}

/// Reads a set body of RDB type `t` (set, set_intset or set_listpack) into `members`.
inline void read_set_body(reader& r, object_type t, std::vector<std::string>& members) {
    if (t == object_type::set) {
        const std::uint64_t n = read_plain_length(r);
        if (n > r.remaining()) return r.fail("set length " + std::to_string(n) + " impossible");
        members.reserve(static_cast<std::size_t>(n));
        for (std::uint64_t i = 0; i < n && r.ok(); ++i) members.push_back(read_string(r));
        return;
    }
    std::string storage;
    const std::string_view blob = read_string_view(r, storage);
    if (!r.ok()) return;
    if (t == object_type::set_intset) {
        for (const std::int64_t v : intset_decode(blob, r.status()))
            members.push_back(int64_to_string(v));
        return;
    }
    listpack_for_each(blob, r.status(),
                      [&](const packed_entry& e) { members.push_back(e.to_string()); });
}

/// Reads the object after its type byte `t`.
inline void read_object_body(reader& r, unsigned t, object_payload& out) {
    out.rdb_type = static_cast<std::uint8_t>(t);
    switch (static_cast<object_type>(t)) {
    case object_type::string:
        out.type = object_payload::kind::string;
        out.text = read_string(r);
        return;
    case object_type::set:
    case object_type::set_intset:
    case object_type::set_listpack:
        out.type = object_payload::kind::set;
        read_set_body(r, static_cast<object_type>(t), out.members);
        if (!r.ok()) return;
        if (out.members.empty()) return r.fail("empty set");
        if (has_duplicate(out.members.size(),
                          [&](std::size_t i) { return std::string_view(out.members[i]); }))
            r.fail("duplicate set member");
        return;
    default:
        out.type = object_payload::kind::sorted_set;
        read_zset_body(r, t, out.elements);
    }
}

/// Decodes a payload of any supported type (footer checked as RESTORE does). On failure the
/// returned status says why and `out` holds nothing usable.
inline decode_status decode_object(std::string_view bytes, const restore_options& opt,
                                   object_payload& out) {
    decode_status st;
    const std::size_t body_len = check_footer(bytes, opt, out.rdb_version, st);
    if (!st.ok()) return st;
    reader r(bytes_of(bytes), body_len, "payload", st);
    if (r.at_end()) r.fail("empty object");
    const unsigned t = r.u8();
    if (r.ok()) read_object_body(r, t, out);
    if (r.ok() && !r.at_end())
        r.fail(std::to_string(r.remaining()) + " unexpected bytes after the object");
    if (st.ok() && out.type == object_payload::kind::sorted_set)
        settle_elements(out.elements, opt.allow_empty, st);
    return st;
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_OBJECTS_HPP
