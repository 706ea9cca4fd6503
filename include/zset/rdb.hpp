// zset::rdb — Redis DUMP / RESTORE payloads for sorted sets.
// SPDX-License-Identifier: MIT
//
// Converts between a list of (member bytes, score) pairs and the binary payload of Redis's
// `DUMP key` / `RESTORE key ttl payload` commands, so a zset can be shipped to and from a live
// Redis server byte for byte:
//
//   std::string p = zset::rdb::dump_payload({{"a", 1.0}, {"b", 2.5}});  // RESTORE-able by Redis
//   auto els = zset::rdb::restore_payload(p);                              // what DUMP returned
//
// Payload: [type][object][RDB version uint16 LE][CRC64 uint64 LE]. Written types: ZSET_LISTPACK
// (17) for small sets, ZSET_2 (5) for large ones (ZSET_ZIPLIST (12) / ZSET (3) for RDB versions
// below 10 / 8). Read types: 3, 5, 12 and 17.
//
// Differences from Redis's own RESTORE, all stricter, none affecting a payload Redis produced:
//   * a listpack is always deep-checked (Redis only with sanitize-dump-payload yes): every entry,
//     an even entry count, no duplicate member;
//   * bytes between the object and the footer are refused (Redis ignores them);
//   * a score text must parse completely ("1.5x" is refused; Redis's strtod reads "1.5").
// One Redis behaviour kept on purpose: a listpack stores -0.0 as the integer 0 (Redis 7.0 does
// the same), so -0.0 survives only a ZSET_2 payload.
#ifndef ZSET_RDB_HPP
#define ZSET_RDB_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "detail/dump/codec.hpp"

namespace zset {
namespace rdb {

/// One element: member bytes and score.
using element = detail::rdb::element;
/// Elements in sorted set order: ascending score, equal scores by member bytes (memcmp order).
using element_list = detail::rdb::element_list;
/// RDB object types of a sorted set: zset (3), zset_2 (5), zset_ziplist (12), zset_listpack (17).
using payload_type = detail::rdb::payload_type;
/// Why a payload was refused: none, version_or_checksum, bad_data_format.
using error_kind = detail::rdb::error_kind;
/// Exception for a payload that cannot be restored (derives from std::runtime_error); kind() and
/// redis_error() give the matching Redis RESTORE error.
using format_error = detail::rdb::format_error;
/// Writer options: listpack thresholds, RDB version, forced type, compression, input checks.
using dump_options = detail::rdb::dump_options;
/// Reader options: newest RDB version accepted, checksum verification, empty sets.
using restore_options = detail::rdb::restore_options;
/// Result of try_restore_payload(): elements or an error kind + message.
using restore_result = detail::rdb::restore_result;

/// "ERR DUMP payload version or checksum are wrong": Redis's RESTORE reply for a bad footer.
inline constexpr std::string_view redis_error_version_or_checksum =
    detail::rdb::redis_error_version_or_checksum;
/// "ERR Bad data format": Redis's RESTORE reply for a payload with a good footer but bad object.
inline constexpr std::string_view redis_error_bad_data_format =
    detail::rdb::redis_error_bad_data_format;

/// RDB versions written / accepted by Redis 7.0 (10), 7.2 (11) and 7.4 / 8.x (12).
inline constexpr std::uint16_t rdb_version_redis_7_0 = detail::rdb::rdb_version_redis_7_0;
inline constexpr std::uint16_t rdb_version_redis_7_2 = detail::rdb::rdb_version_redis_7_2;
inline constexpr std::uint16_t rdb_version_redis_7_4 = detail::rdb::rdb_version_redis_7_4;

/// CRC64 as Redis computes it for payload footers and RDB files (Jones polynomial
/// 0xad93d23594c935a9, reflected, initial value 0, no final xor). Pass a previous result as
/// `crc` to continue over more data. crc64("123456789") == 0xe9c6d914c4b8d9ca.
/// Complexity: O(n), slice-by-8 over compile-time tables. Exceptions: none.
/// Redis counterpart: crc64() in src/crc64.c.
inline std::uint64_t crc64(std::string_view data, std::uint64_t crc = 0) noexcept {
    return detail::rdb::crc64(crc, detail::rdb::bytes_of(data), data.size());
}

/// The payload type dump_payload() writes for these elements: options.force_type if set;
/// otherwise ZSET_LISTPACK when size() <= max_listpack_entries and every member is at most
/// max_listpack_value bytes (as Redis encodes such a set), else ZSET_2; with rdb_version < 10
/// ZSET_ZIPLIST replaces ZSET_LISTPACK and with rdb_version < 8 ZSET replaces ZSET_2.
/// Complexity: O(n). Exceptions: none.
/// Redis counterpart: the listpack / skiplist encoding choice (zsetTypeCreate, zsetConvert).
inline payload_type dump_type(const element_list& elements,
                              const dump_options& options = {}) noexcept {
    return detail::rdb::choose_type(elements, options);
}

/// Serializes a sorted set into a DUMP payload that Redis's RESTORE accepts.
/// `elements_in_order` must be in sorted set order (ascending score, then member bytes) without
/// NaN scores or duplicate members (checked unless options.check_input is false; the result is
/// unspecified for bad input when unchecked). The payload's type is dump_type(); its bytes equal
/// Redis 7.0's DUMP of the same set (with rdbcompression off, unless options.compress). Scores
/// in a listpack are stored as Redis stores them (integers as integers, others as %.17g text);
/// every score reads back bit-identical except -0.0, which a listpack turns into 0 like Redis.
/// An empty list gives a well-formed payload that Redis (and restore_payload by default)
/// refuses, since Redis never stores an empty sorted set.
/// Complexity: O(n + total member bytes) (plus O(n) hashing for the duplicate check).
/// Exceptions: std::invalid_argument for bad input or a force_type that is not a sorted set type;
/// std::length_error for a listpack / ziplist over 4 GiB; std::bad_alloc. Strong guarantee
/// (no state is modified).
/// Redis counterpart: DUMP (createDumpPayload + rdbSaveObject).
inline std::string dump_payload(const element_list& elements_in_order,
                                const dump_options& options = {}) {
    return detail::rdb::dump(elements_in_order, options);
}

/// Parses and fully validates a DUMP payload of a sorted set (types ZSET, ZSET_2, ZSET_ZIPLIST,
/// ZSET_LISTPACK) and returns its elements in sorted set order.
/// Checks: footer present, RDB version <= options.max_rdb_version, CRC64 (unless
/// options.verify_checksum is false; a stored CRC of 0 is not special, as in Redis's RESTORE),
/// every length and offset within bounds (allocation never exceeds what the remaining bytes can
/// encode), LZF streams, listpack / ziplist headers, entries and terminators, an even entry
/// count, score text, no NaN score, no duplicate member, nothing after the object, not empty
/// (unless options.allow_empty).
/// Complexity: O(bytes + n log n) (the sort is skipped when the payload is already ordered, as
/// every Redis-written listpack / ziplist / ZSET_2 payload is).
/// Exceptions: format_error (kind() version_or_checksum or bad_data_format, what() says where);
/// std::bad_alloc. Strong guarantee: no partial result is ever returned.
/// Redis counterpart: RESTORE (verifyDumpPayload + rdbLoadObject).
inline element_list restore_payload(std::string_view payload, const restore_options& options = {}) {
    return detail::rdb::restore(payload, options);
}

/// Like restore_payload() but reports a bad payload in the result instead of throwing:
/// result.ok() / bool(result), result.error, result.message, result.redis_error() (the exact
/// RESTORE error text), plus result.type and result.rdb_version on success. result.elements is
/// empty on error.
/// Complexity: as restore_payload(). Exceptions: only std::bad_alloc.
/// Redis counterpart: RESTORE.
inline restore_result try_restore_payload(std::string_view payload,
                                          const restore_options& options = {}) {
    return detail::rdb::try_restore(payload, options);
}

}  // namespace rdb
}  // namespace zset

#endif  // ZSET_RDB_HPP
