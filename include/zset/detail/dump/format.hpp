// zset::detail::rdb — vocabulary of the DUMP / RESTORE codec: object types, options, errors,
// byte helpers and the score texts Redis writes.
// SPDX-License-Identifier: MIT
//
// The public names are re-exported by <zset/rdb.hpp>. Decoding never throws: the first problem
// met is recorded in a decode_status and decoding stops (so the codec works the same with and
// without exceptions); the throwing facade raises format_error from that status.
//
// Thread safety: values and pure functions; a decode_status belongs to one decoding.
#ifndef ZSET_DETAIL_DUMP_FORMAT_HPP
#define ZSET_DETAIL_DUMP_FORMAT_HPP

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../../common.hpp"
#include "../redis_text.hpp"
#include "crc64.hpp"

namespace zset {
namespace detail {
namespace rdb {

/// One sorted set element: member bytes and score.
using element = std::pair<std::string, double>;
/// Elements in sorted set order: ascending score, ties by member bytes (unsigned, memcmp order).
using element_list = std::vector<element>;

/// RDB object types of a sorted set.
enum class payload_type : std::uint8_t {
    zset = 3,            ///< RDB_TYPE_ZSET: text scores (RDB version < 8 writers).
    zset_2 = 5,          ///< RDB_TYPE_ZSET_2: binary double scores (skiplist encoded sets).
    zset_ziplist = 12,   ///< RDB_TYPE_ZSET_ZIPLIST: ziplist blob (Redis < 7.0 small sets).
    zset_listpack = 17,  ///< RDB_TYPE_ZSET_LISTPACK: listpack blob (Redis >= 7.0 small sets).
};

/// RDB object types of the other values a Redis layer stores (strings and plain sets).
enum class object_type : std::uint8_t {
    string = 0,         ///< RDB_TYPE_STRING: one RDB string.
    set = 2,            ///< RDB_TYPE_SET: length, then that many RDB strings.
    set_intset = 11,    ///< RDB_TYPE_SET_INTSET: an intset blob (Redis's all-integer sets).
    set_listpack = 20,  ///< RDB_TYPE_SET_LISTPACK: a listpack of members (Redis >= 7.2).
};

/// Why a payload was refused.
enum class error_kind : std::uint8_t {
    none = 0,                 ///< no error
    version_or_checksum = 1,  ///< footer missing, RDB version too new or CRC64 mismatch
    bad_data_format = 2,      ///< footer fine but the object is malformed / not a sorted set
};

/// Redis's RESTORE reply for a payload whose footer (version, CRC64) is wrong.
inline constexpr std::string_view redis_error_version_or_checksum =
    "ERR DUMP payload version or checksum are wrong";
/// Redis's RESTORE reply for a payload whose footer is fine but whose object is malformed.
inline constexpr std::string_view redis_error_bad_data_format = "ERR Bad data format";

/// The RDB version Redis 7.0 writes and the newest it accepts.
inline constexpr std::uint16_t rdb_version_redis_7_0 = 10;
/// RDB versions of later servers: 7.2 writes 11, 7.4 and 8.x write 12.
inline constexpr std::uint16_t rdb_version_redis_7_2 = 11;
inline constexpr std::uint16_t rdb_version_redis_7_4 = 12;

/// Redis text for an error kind (empty for error_kind::none).
constexpr std::string_view redis_error_text(error_kind k) noexcept {
    switch (k) {
    case error_kind::version_or_checksum:
        return redis_error_version_or_checksum;
    case error_kind::bad_data_format:
        return redis_error_bad_data_format;
    case error_kind::none:
        break;
    }
    return {};
}

/// Thrown for a payload that cannot be restored (by the throwing facade only).
class format_error : public std::runtime_error {
public:
    format_error(error_kind kind, const std::string& detail)
        : std::runtime_error(detail), kind_(kind) {}
    /// Which of Redis's two RESTORE errors this corresponds to.
    error_kind kind() const noexcept { return kind_; }
    /// The exact error text Redis's RESTORE would reply with.
    std::string_view redis_error() const noexcept { return redis_error_text(kind_); }

private:
    error_kind kind_;
};

/// Throws format_error(kind, message); without exceptions prints the message and aborts.
[[noreturn]] inline void raise_format_error(error_kind kind, const std::string& message) {
#if ZSET_HAS_EXCEPTIONS
    throw format_error(kind, message);
#else
    (void)kind;
    zset::detail::raise_error(message.c_str());
#endif
}

/// The first problem met while decoding. Decoders stop at it; later failures are ignored, so
/// the message names the real cause.
class decode_status {
public:
    bool ok() const noexcept { return kind_ == error_kind::none; }
    error_kind kind() const noexcept { return kind_; }
    const std::string& message() const noexcept { return message_; }

    /// Records a malformed object ("zset::rdb: bad data format: <what>").
    void bad_format(const std::string& what) {
        fail(error_kind::bad_data_format, "zset::rdb: bad data format: " + what);
    }
    /// Records a bad footer ("zset::rdb: <what>").
    void bad_footer(const std::string& what) {
        fail(error_kind::version_or_checksum, "zset::rdb: " + what);
    }
    /// Raises format_error when a problem was recorded.
    void raise_if_failed() const {
        if (!ok()) raise_format_error(kind_, message_);
    }

private:
    void fail(error_kind k, std::string message) {
        if (!ok()) return;
        kind_ = k;
        message_ = std::move(message);
    }

    error_kind kind_ = error_kind::none;
    std::string message_;
};

/// Options for writing a payload.
struct dump_options {
    /// Largest element count written as a compact (listpack / ziplist) payload
    /// (Redis: zset-max-listpack-entries, default 128).
    std::size_t max_listpack_entries = 128;
    /// Largest member length in bytes written as a compact payload
    /// (Redis: zset-max-listpack-value, default 64).
    std::size_t max_listpack_value = 64;
    /// RDB version written in the footer. 10 is accepted by Redis >= 7.0. With a version below
    /// 10 the compact type is ZSET_ZIPLIST (as Redis 6.x writes), below 8 the large type is ZSET.
    std::uint16_t rdb_version = rdb_version_redis_7_0;
    /// Write this type regardless of size and version.
    std::optional<payload_type> force_type;
    /// LZF-compress RDB strings longer than 20 bytes when that saves at least 4 bytes (Redis:
    /// rdbcompression). Off by default: the output is then byte-identical to Redis 7.0 with
    /// rdbcompression off. Either way Redis reads it.
    bool compress = false;
    /// Check the input: no NaN score, strictly ascending (score, member) order, no duplicate
    /// member. Throws std::invalid_argument otherwise. Turn off only for input known good.
    bool check_input = true;
};

/// Options for reading a payload.
struct restore_options {
    /// Newest RDB version accepted in the footer (Redis 7.0: 10, 7.2: 11, 7.4 / 8: 12).
    std::uint16_t max_rdb_version = rdb_version_redis_7_4;
    /// Verify the CRC64. Redis always does for RESTORE (a stored CRC of 0 is *not* skipped, unlike
    /// when loading an RDB file); turning this off is Redis's skip-checksum-validation.
    bool verify_checksum = true;
    /// Accept a payload with zero elements. Redis never stores an empty sorted set and its
    /// RESTORE refuses one with "ERR Bad data format", which is the default here too.
    bool allow_empty = false;
};

/// Outcome of the non-throwing reader.
struct restore_result {
    element_list elements;                     ///< empty unless ok
    error_kind error = error_kind::none;       ///< error_kind::none on success
    std::string message;                       ///< human readable detail of the error
    payload_type type = payload_type::zset_2;  ///< object type read (valid when ok)
    std::uint16_t rdb_version = 0;             ///< footer RDB version (valid when ok)

    explicit operator bool() const noexcept { return error == error_kind::none; }
    bool ok() const noexcept { return error == error_kind::none; }
    /// The exact error text Redis's RESTORE would reply with (empty when ok).
    std::string_view redis_error() const noexcept { return redis_error_text(error); }
};

// ---- bytes --------------------------------------------------------------------------------------

inline std::uint64_t load_be(const unsigned char* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
    return v;
}

inline void put_le(std::string& out, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(static_cast<char>(static_cast<unsigned char>((v >> (8 * i)) & 0xFFu)));
}

inline void put_be(std::string& out, std::uint64_t v, std::size_t n) {
    for (std::size_t i = n; i-- > 0;)
        out.push_back(static_cast<char>(static_cast<unsigned char>((v >> (8 * i)) & 0xFFu)));
}

inline void put_byte(std::string& out, unsigned v) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(v & 0xFFu)));
}

/// Two's complement value of the low `nbytes` bytes of `u` (1 <= nbytes <= 8).
inline std::int64_t sign_extend(std::uint64_t u, std::size_t nbytes) noexcept {
    const std::uint64_t sign = std::uint64_t{1} << (8 * nbytes - 1);
    if ((u & sign) == 0) return static_cast<std::int64_t>(u);
    // Negative: -(2^(8n) - u) computed without overflow as -(int64)(((2^(8n) - 1) - u)) - 1.
    const std::uint64_t mask = nbytes == 8 ? ~std::uint64_t{0} : (sign << 1) - 1;
    return -static_cast<std::int64_t>((mask - u) & mask) - 1;
}

inline const unsigned char* bytes_of(std::string_view s) noexcept {
    return reinterpret_cast<const unsigned char*>(s.data());
}

inline std::uint64_t double_bits(double d) noexcept {
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

inline double bits_double(std::uint64_t u) noexcept {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
}

// ---- numbers as text ----------------------------------------------------------------------------

/// Parses `s` as a canonical int64 (Redis string2ll / lpStringToInt64).
inline bool string_to_int64(std::string_view s, std::int64_t& out) noexcept {
    const auto v = parse_int64(s);
    if (!v) return false;
    out = *v;
    return true;
}

inline std::string int64_to_string(std::int64_t v) {
    char buf[number_text_capacity];
    return std::string(buf, write_int64(buf, v));
}

/// printf("%.17g") of a finite double, independent of the C locale.
inline std::string format_g17(double v) {
    char buf[number_text_capacity];
    return std::string(buf, detail::format_g17(buf, v));
}

/// The text Redis 7.0 stores for a score inside a listpack / ziplist (its d2string): integral
/// values within +-2^62 as integers (so -0.0 becomes "0", as Redis does), infinities as
/// "inf" / "-inf", everything else with %.17g, which reads back to the identical double.
inline std::string score_to_string(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    if (const auto ll = integral_within(v, d2string_integer_bound)) return int64_to_string(*ll);
    return format_g17(v);
}

/// Parses a score written as text (ASCII decimal / exponent form, "inf", "-inf", "infinity",
/// optional leading sign). The whole string must be consumed. Overflow gives +-inf and underflow
/// +-0 (as strtod does). Returns false on anything else; NaN is returned as NaN.
inline bool parse_double(std::string_view s, double& out) {
    if (s.empty()) return false;
    bool neg = false;
    std::string_view body = s;
    if (body[0] == '+' || body[0] == '-') {
        neg = body[0] == '-';
        body.remove_prefix(1);
        if (body.empty() || body[0] == '+' || body[0] == '-') return false;
    }
#if ZSET_FP_CHARCONV
    double v = 0;
    const auto r =
        std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
    if (r.ptr != body.data() + body.size()) return false;
    if (r.ec == std::errc::result_out_of_range) {
        // Overflow or underflow: decide by the sign of the exponent.
        const auto e = body.find_first_of("eE");
        const bool negative_exponent =
            e != std::string_view::npos && e + 1 < body.size() && body[e + 1] == '-';
        v = negative_exponent ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (r.ec != std::errc()) {
        return false;
    }
#else
    // No floating-point from_chars: strtod on a copy, refusing what from_chars would refuse
    // (spaces, a second sign, hex). Assumes the C locale's '.' decimal point.
    if (body.find_first_of(" \t\n\r\f\vxX") != std::string_view::npos || body[0] == '+' ||
        body[0] == '-')
        return false;
    const std::string tmp(body);
    char* endp = nullptr;
    const double v = std::strtod(tmp.c_str(), &endp);
    if (endp != tmp.c_str() + tmp.size()) return false;
#endif
    out = neg ? -v : v;
    return true;
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_FORMAT_HPP
