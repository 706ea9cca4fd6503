// zset::detail::rdb — the Redis DUMP / RESTORE payload codec for sorted sets (internals).
// SPDX-License-Identifier: MIT
//
// Works on a neutral list of (member bytes, score) pairs; the public facade is <zset/rdb.hpp>.
//
// A DUMP payload is
//
//   [RDB object type: 1 byte][object body][RDB version: uint16 LE][CRC64 of all before: uint64 LE]
//
// with these sorted set object types:
//
//   3  ZSET           length, then (RDB string member, RDB "double value" score) pairs; the score
//                     is a 1-byte length + ASCII text, 253 = NaN, 254 = +inf, 255 = -inf.
//   5  ZSET_2         length, then (RDB string member, 8-byte little-endian binary double) pairs,
//                     written from the highest ranked element down to the lowest.
//   12 ZSET_ZIPLIST   one RDB string holding a ziplist: member, score, member, score, ...
//   17 ZSET_LISTPACK  one RDB string holding a listpack: member, score, member, score, ...
//
// RDB strings are a length (6/14/32/64-bit forms) and raw bytes, or an "encoded" form: an 8, 16
// or 32-bit integer (the string is its decimal text) or an LZF-compressed block.
//
// Everything here is written from the format descriptions; no Redis code is used.
#ifndef ZSET_DETAIL_RDB_HPP
#define ZSET_DETAIL_RDB_HPP

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

// Floating-point std::to_chars / std::from_chars (libstdc++ >= 11, MSVC). Without them the codec
// falls back to snprintf / strtod. Define ZSET_RDB_FP_CHARCONV to 0 or 1 to force a choice.
#ifndef ZSET_RDB_FP_CHARCONV
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
#define ZSET_RDB_FP_CHARCONV 1
#else
#define ZSET_RDB_FP_CHARCONV 0
#endif
#endif

namespace zset {
namespace detail {
namespace rdb {

// ------------------------------------------------------------------------------------------------
// Public vocabulary (re-exported by <zset/rdb.hpp>)
// ------------------------------------------------------------------------------------------------

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

/// Thrown for a payload that cannot be restored.
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

// ------------------------------------------------------------------------------------------------
// Little-endian helpers
// ------------------------------------------------------------------------------------------------

inline std::uint64_t load_le(const unsigned char* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

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

// ------------------------------------------------------------------------------------------------
// CRC64 — Jones polynomial 0xad93d23594c935a9, reflected, init 0, no final xor (Redis crc64).
// Slice-by-8 with tables computed at compile time.
// ------------------------------------------------------------------------------------------------

struct crc64_tables {
    std::uint64_t t[8][256];
};

constexpr crc64_tables make_crc64_tables() noexcept {
    // 0x95ac9329ac4bc9b5 is 0xad93d23594c935a9 bit-reversed (the reflected form).
    constexpr std::uint64_t poly = 0x95ac9329ac4bc9b5ull;
    crc64_tables r{};
    for (std::uint64_t n = 0; n < 256; ++n) {
        std::uint64_t c = n;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ poly : c >> 1;
        r.t[0][n] = c;
    }
    for (std::size_t n = 0; n < 256; ++n)
        for (std::size_t k = 1; k < 8; ++k)
            r.t[k][n] = (r.t[k - 1][n] >> 8) ^ r.t[0][r.t[k - 1][n] & 0xFFu];
    return r;
}

inline constexpr crc64_tables crc64_table = make_crc64_tables();

/// CRC64 of [p, p+n) continuing from `crc` (0 to start).
inline std::uint64_t crc64(std::uint64_t crc, const unsigned char* p, std::size_t n) noexcept {
    const auto& t = crc64_table.t;
    while (n >= 8) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        std::uint64_t word;
        std::memcpy(&word, p, sizeof word);
        crc ^= word;
#else
        crc ^= load_le(p, 8);
#endif
        crc = t[7][crc & 0xFFu] ^ t[6][(crc >> 8) & 0xFFu] ^ t[5][(crc >> 16) & 0xFFu] ^
              t[4][(crc >> 24) & 0xFFu] ^ t[3][(crc >> 32) & 0xFFu] ^ t[2][(crc >> 40) & 0xFFu] ^
              t[1][(crc >> 48) & 0xFFu] ^ t[0][crc >> 56];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) crc = t[0][(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return crc;
}

// ------------------------------------------------------------------------------------------------
// Errors and a bounds-checked reader
// ------------------------------------------------------------------------------------------------

[[noreturn]] inline void bad_format(const std::string& what) {
    throw format_error(error_kind::bad_data_format, "zset::rdb: bad data format: " + what);
}

[[noreturn]] inline void bad_footer(const std::string& what) {
    throw format_error(error_kind::version_or_checksum, "zset::rdb: " + what);
}

/// Sequential reader over a byte range; every read is bounds checked (throws bad data format).
class reader {
public:
    reader(const unsigned char* p, std::size_t n, const char* what) noexcept
        : begin_(p), p_(p), end_(p + n), what_(what) {}

    std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
    std::size_t offset() const noexcept { return static_cast<std::size_t>(p_ - begin_); }
    bool at_end() const noexcept { return p_ == end_; }

    unsigned char u8() { return *take(1); }

    const unsigned char* take(std::size_t n) {
        if (n > remaining())
            bad_format(std::string(what_) + ": truncated at offset " + std::to_string(offset()) +
                       " (need " + std::to_string(n) + " bytes, have " +
                       std::to_string(remaining()) + ")");
        const unsigned char* r = p_;
        p_ += n;
        return r;
    }

    const char* what() const noexcept { return what_; }

private:
    const unsigned char* begin_;
    const unsigned char* p_;
    const unsigned char* end_;
    const char* what_;
};

// ------------------------------------------------------------------------------------------------
// Integers as strings (Redis string2ll / lpStringToInt64 rules) and doubles as strings
// ------------------------------------------------------------------------------------------------

/// Parses `s` as a canonical int64: optional '-', no leading zeros (except "0" itself), no
/// spaces, no '+', in range. Exactly the strings that print back identically.
inline bool string_to_int64(std::string_view s, std::int64_t& out) noexcept {
    if (s.empty() || s.size() > 20) return false;
    std::size_t i = 0;
    bool neg = false;
    if (s[0] == '-') {
        neg = true;
        i = 1;
        if (s.size() == 1) return false;
    }
    if (s[i] == '0') {
        if (s.size() == 1) {
            out = 0;
            return true;
        }
        return false;  // "-0", "007", ...
    }
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c < '0' || c > '9') return false;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1u)
            return false;
        out = v == 0 ? 0 : -static_cast<std::int64_t>(v - 1) - 1;
    } else {
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
        out = static_cast<std::int64_t>(v);
    }
    return true;
}

inline std::string int64_to_string(std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/// printf("%.17g") of a finite double, independent of the C locale.
inline std::string format_g17(double v) {
    char buf[64];
#if ZSET_RDB_FP_CHARCONV
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
    return std::string(buf, r.ptr);
#else
    const int n = std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s(buf, static_cast<std::size_t>(n > 0 ? n : 0));
    for (char& c : s)
        if (c == ',') c = '.';
    return s;
#endif
}

/// The text Redis 7.0 stores for a score inside a listpack / ziplist (its d2string): integral
/// values within +-2^62 as integers (so -0.0 becomes "0", as Redis does), infinities as
/// "inf" / "-inf", everything else with %.17g, which reads back to the identical double.
inline std::string score_to_string(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    constexpr double limit = 4611686018427387904.0;  // 2^62 == (double)(LLONG_MAX / 2)
    if (v >= -limit && v <= limit) {
        const auto ll = static_cast<std::int64_t>(v);
        if (static_cast<double>(ll) == v) return int64_to_string(ll);
    }
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
#if ZSET_RDB_FP_CHARCONV
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

// ------------------------------------------------------------------------------------------------
// LZF (the compression Redis uses for RDB strings)
//
// A stream of items. Control byte c:
//   c < 32         literal run: the next c + 1 bytes are copied to the output.
//   c >= 32        back reference: length L = c >> 5 (if 7, L += next byte), offset
//                  o = ((c & 31) << 8) + next byte; copies L + 2 bytes starting o + 1 bytes back
//                  in the output (overlap allowed: byte by byte).
// ------------------------------------------------------------------------------------------------

/// Decompresses `in` into exactly `out_len` bytes at `out`. False if the stream is malformed,
/// references before the start, or does not produce exactly out_len bytes.
inline bool lzf_decompress(const unsigned char* in, std::size_t in_len, unsigned char* out,
                           std::size_t out_len) noexcept {
    const unsigned char* ip = in;
    const unsigned char* const ip_end = in + in_len;
    std::size_t op = 0;
    while (ip < ip_end) {
        const unsigned ctrl = *ip++;
        if (ctrl < 32) {
            const std::size_t run = ctrl + 1u;
            if (static_cast<std::size_t>(ip_end - ip) < run || out_len - op < run) return false;
            std::memcpy(out + op, ip, run);
            ip += run;
            op += run;
        } else {
            std::size_t len = ctrl >> 5;
            if (len == 7) {
                if (ip == ip_end) return false;
                len += *ip++;
            }
            if (ip == ip_end) return false;
            const std::size_t back = (static_cast<std::size_t>(ctrl & 31u) << 8) + *ip++ + 1u;
            len += 2;
            if (back > op || out_len - op < len) return false;
            const unsigned char* ref = out + (op - back);
            for (std::size_t i = 0; i < len; ++i) out[op + i] = ref[i];
            op += len;
        }
    }
    return op == out_len;
}

/// Largest output an LZF stream of `in_len` bytes can produce (3 input bytes -> 264 output).
constexpr std::uint64_t lzf_max_expansion(std::uint64_t in_len) noexcept {
    return in_len / 3 * 264 + 264;
}

/// Compresses `in`. Returns an empty optional when the result would not fit in `max_out`
/// bytes (Redis only keeps a compressed string that saves at least 4 bytes).
inline std::optional<std::string> lzf_compress(std::string_view input, std::size_t max_out) {
    const unsigned char* in = bytes_of(input);
    const std::size_t n = input.size();
    if (n >= 0xFFFFFFFFu) return std::nullopt;
    std::size_t hash_bits = 4;  // table scaled to the input: small strings stay cheap
    while (hash_bits < 14 && (std::size_t{1} << hash_bits) < n) ++hash_bits;
    constexpr std::size_t max_off = 8192;  // o + 1 with o up to 8191
    constexpr std::size_t max_len = 264;   // 7 + 255 + 2
    constexpr std::uint32_t none = 0xFFFFFFFFu;
    std::vector<std::uint32_t> last(std::size_t{1} << hash_bits, none);
    std::string out;
    out.reserve(std::min(n, max_out) + 1);

    std::size_t ctrl_pos = out.size();
    out.push_back('\0');
    unsigned lit = 0;
    auto close_literals = [&] {
        if (lit > 0)
            out[ctrl_pos] = static_cast<char>(static_cast<unsigned char>(lit - 1));
        else
            out.pop_back();
    };
    auto open_literals = [&] {
        ctrl_pos = out.size();
        out.push_back('\0');
        lit = 0;
    };
    auto hash3 = [&](std::size_t i) -> std::size_t {
        const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) |
                                std::uint32_t{in[i + 2]};
        return static_cast<std::size_t>((v * 2654435761u) >> (32 - hash_bits));
    };

    std::size_t i = 0;
    while (i < n) {
        if (out.size() > max_out + 1) return std::nullopt;
        if (i + 2 < n) {
            const std::size_t h = hash3(i);
            const std::uint32_t ref = last[h];
            last[h] = static_cast<std::uint32_t>(i);
            if (ref != none && i - ref <= max_off && in[ref] == in[i] && in[ref + 1] == in[i + 1] &&
                in[ref + 2] == in[i + 2]) {
                const std::size_t limit = std::min(max_len, n - i);
                std::size_t len = 3;
                while (len < limit && in[ref + len] == in[i + len]) ++len;
                close_literals();
                const std::size_t off = i - ref - 1;
                const std::size_t l = len - 2;
                if (l < 7) {
                    put_byte(out, static_cast<unsigned>((l << 5) | (off >> 8)));
                } else {
                    put_byte(out, static_cast<unsigned>((7u << 5) | (off >> 8)));
                    put_byte(out, static_cast<unsigned>(l - 7));
                }
                put_byte(out, static_cast<unsigned>(off & 0xFFu));
                // Index a couple of positions inside the match so later data can refer to it.
                for (std::size_t k = i + 1; k < i + len && k + 2 < n && k < i + 3; ++k)
                    last[hash3(k)] = static_cast<std::uint32_t>(k);
                i += len;
                open_literals();
                continue;
            }
        }
        out.push_back(static_cast<char>(in[i]));
        ++i;
        if (++lit == 32) {
            out[ctrl_pos] = static_cast<char>(31);
            open_literals();
        }
    }
    close_literals();
    if (out.size() > max_out) return std::nullopt;
    return out;
}

// ------------------------------------------------------------------------------------------------
// RDB lengths and strings
// ------------------------------------------------------------------------------------------------

inline constexpr unsigned rdb_6bitlen = 0;
inline constexpr unsigned rdb_14bitlen = 1;
inline constexpr unsigned rdb_encval = 3;
inline constexpr unsigned rdb_32bitlen = 0x80;
inline constexpr unsigned rdb_64bitlen = 0x81;
inline constexpr unsigned rdb_enc_int8 = 0;
inline constexpr unsigned rdb_enc_int16 = 1;
inline constexpr unsigned rdb_enc_int32 = 2;
inline constexpr unsigned rdb_enc_lzf = 3;

/// Writes `len` in the shortest RDB length form (as Redis's rdbSaveLen).
inline void write_length(std::string& out, std::uint64_t len) {
    if (len < (1u << 6)) {
        put_byte(out, static_cast<unsigned>(len) | (rdb_6bitlen << 6));
    } else if (len < (1u << 14)) {
        put_byte(out, static_cast<unsigned>(len >> 8) | (rdb_14bitlen << 6));
        put_byte(out, static_cast<unsigned>(len & 0xFFu));
    } else if (len <= 0xFFFFFFFFu) {
        put_byte(out, rdb_32bitlen);
        put_be(out, len, 4);
    } else {
        put_byte(out, rdb_64bitlen);
        put_be(out, len, 8);
    }
}

struct length_or_encoding {
    std::uint64_t value = 0;  ///< the length, or the encoding number when `encoded`
    bool encoded = false;
};

/// Reads an RDB length (or the special-encoding marker of an encoded string).
inline length_or_encoding read_length(reader& r) {
    const unsigned b = r.u8();
    const unsigned type = (b & 0xC0u) >> 6;
    if (type == rdb_encval) return {b & 0x3Fu, true};
    if (type == rdb_6bitlen) return {b & 0x3Fu, false};
    if (type == rdb_14bitlen) return {(static_cast<std::uint64_t>(b & 0x3Fu) << 8) | r.u8(), false};
    if (b == rdb_32bitlen) return {load_be(r.take(4), 4), false};
    if (b == rdb_64bitlen) return {load_be(r.take(8), 8), false};
    bad_format(std::string(r.what()) + ": unknown length encoding byte " + std::to_string(b) +
               " at offset " + std::to_string(r.offset() - 1));
}

/// Reads a plain length (an encoded-string marker is an error here).
inline std::uint64_t read_plain_length(reader& r) {
    const auto l = read_length(r);
    if (l.encoded)
        bad_format(std::string(r.what()) + ": expected a length, found a string encoding");
    return l.value;
}

/// Reads an RDB string: raw, integer encoded or LZF compressed.
inline std::string read_string(reader& r) {
    const auto l = read_length(r);
    if (!l.encoded) {
        const std::uint64_t n = l.value;
        if (n > r.remaining())
            bad_format(std::string(r.what()) + ": string length " + std::to_string(n) +
                       " exceeds the " + std::to_string(r.remaining()) + " bytes left");
        const unsigned char* p = r.take(static_cast<std::size_t>(n));
        return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
    }
    switch (l.value) {
    case rdb_enc_int8:
        return int64_to_string(static_cast<std::int8_t>(r.u8()));
    case rdb_enc_int16:
        return int64_to_string(static_cast<std::int16_t>(load_le(r.take(2), 2)));
    case rdb_enc_int32:
        return int64_to_string(static_cast<std::int32_t>(load_le(r.take(4), 4)));
    case rdb_enc_lzf: {
        const std::uint64_t clen = read_plain_length(r);
        const std::uint64_t len = read_plain_length(r);
        if (clen > r.remaining())
            bad_format(std::string(r.what()) + ": LZF block of " + std::to_string(clen) +
                       " bytes exceeds the " + std::to_string(r.remaining()) + " bytes left");
        if (len > lzf_max_expansion(clen) || len > std::numeric_limits<std::size_t>::max() / 2)
            bad_format(std::string(r.what()) + ": LZF uncompressed length " + std::to_string(len) +
                       " impossible for " + std::to_string(clen) + " compressed bytes");
        const unsigned char* c = r.take(static_cast<std::size_t>(clen));
        std::string s(static_cast<std::size_t>(len), '\0');
        if (!lzf_decompress(c, static_cast<std::size_t>(clen),
                            reinterpret_cast<unsigned char*>(&s[0]), s.size()))
            bad_format(std::string(r.what()) + ": invalid LZF compressed string");
        return s;
    }
    default:
        bad_format(std::string(r.what()) + ": unknown string encoding " + std::to_string(l.value));
    }
}

/// Reads an RDB string as a view: into the payload for a raw string, else into `storage`.
inline std::string_view read_string_view(reader& r, std::string& storage) {
    reader probe = r;
    const auto l = read_length(probe);
    if (!l.encoded) {
        if (l.value > probe.remaining())
            bad_format(std::string(r.what()) + ": string length " + std::to_string(l.value) +
                       " exceeds the " + std::to_string(probe.remaining()) + " bytes left");
        const unsigned char* p = probe.take(static_cast<std::size_t>(l.value));
        r = probe;
        return std::string_view(reinterpret_cast<const char*>(p),
                                static_cast<std::size_t>(l.value));
    }
    storage = read_string(r);
    return storage;
}

/// Writes an RDB string the way Redis's rdbSaveRawString does: a canonical integer of up to 11
/// characters in the int32 range is integer encoded; with `compress`, a string longer than 20
/// bytes is LZF compressed when that saves at least 4 bytes; otherwise length + raw bytes.
inline void write_string(std::string& out, std::string_view s, bool compress) {
    std::int64_t v = 0;
    if (s.size() <= 11 && string_to_int64(s, v)) {
        if (v >= -128 && v <= 127) {
            put_byte(out, (rdb_encval << 6) | rdb_enc_int8);
            put_le(out, static_cast<std::uint64_t>(v), 1);
            return;
        }
        if (v >= -32768 && v <= 32767) {
            put_byte(out, (rdb_encval << 6) | rdb_enc_int16);
            put_le(out, static_cast<std::uint64_t>(v), 2);
            return;
        }
        if (v >= -2147483648LL && v <= 2147483647LL) {
            put_byte(out, (rdb_encval << 6) | rdb_enc_int32);
            put_le(out, static_cast<std::uint64_t>(v), 4);
            return;
        }
    }
    if (compress && s.size() > 20) {
        if (auto c = lzf_compress(s, s.size() - 4)) {
            put_byte(out, (rdb_encval << 6) | rdb_enc_lzf);
            write_length(out, c->size());
            write_length(out, s.size());
            out += *c;
            return;
        }
    }
    write_length(out, s.size());
    out.append(s.data(), s.size());
}

/// Reads an RDB "double value" (ZSET type): 1 length byte + ASCII, 253 NaN, 254 +inf, 255 -inf.
inline double read_double_value(reader& r) {
    const unsigned len = r.u8();
    switch (len) {
    case 255:
        return -std::numeric_limits<double>::infinity();
    case 254:
        return std::numeric_limits<double>::infinity();
    case 253:
        return std::numeric_limits<double>::quiet_NaN();
    default:
        break;
    }
    const unsigned char* p = r.take(len);
    double d = 0;
    if (!parse_double(std::string_view(reinterpret_cast<const char*>(p), len), d))
        bad_format(std::string(r.what()) + ": invalid double value");
    return d;
}

/// Writes an RDB "double value" as Redis's rdbSaveDoubleValue (integers within +-2^52 in
/// decimal, else %.17g).
inline void write_double_value(std::string& out, double v) {
    if (std::isnan(v)) {
        put_byte(out, 253);
        return;
    }
    if (std::isinf(v)) {
        put_byte(out, v < 0 ? 255u : 254u);
        return;
    }
    std::string s;
    constexpr double lo = -4503599627370495.0, hi = 4503599627370496.0;
    if (v > lo && v < hi && static_cast<double>(static_cast<std::int64_t>(v)) == v)
        s = int64_to_string(static_cast<std::int64_t>(v));
    else
        s = format_g17(v);
    put_byte(out, static_cast<unsigned>(s.size()));
    out += s;
}

// ------------------------------------------------------------------------------------------------
// Element ranges: what the writer reads. An element_list, or any container iterated in sorted set
// order (e.g. a zset::sorted_set, streamed without copying its members), is seen through
//   begin(), end()  bidirectional iterators (the ZSET / ZSET_2 writers walk backwards),
//   size()          the element count,
//   get(it)         the element at `it` as an element_ref (member bytes, score).
// ------------------------------------------------------------------------------------------------

/// One element as the writer sees it: a view of the member bytes and the score.
using element_ref = std::pair<std::string_view, double>;

/// [first, last) of n elements; proj(*it) gives something convertible to element_ref.
template <class It, class Proj>
class element_range {
public:
    element_range(It first, It last, std::size_t n, Proj proj)
        : first_(first), last_(last), n_(n), proj_(std::move(proj)) {}
    It begin() const { return first_; }
    It end() const { return last_; }
    std::size_t size() const noexcept { return n_; }
    element_ref get(const It& it) const { return proj_(*it); }

private:
    It first_, last_;
    std::size_t n_;
    Proj proj_;
};

template <class It, class Proj>
element_range<It, Proj> make_element_range(It first, It last, std::size_t n, Proj proj) {
    return element_range<It, Proj>(first, last, n, std::move(proj));
}

struct element_list_proj {
    element_ref operator()(const element& e) const noexcept { return {e.first, e.second}; }
};

inline element_range<element_list::const_iterator, element_list_proj>
element_range_of(const element_list& els) {
    return make_element_range(els.begin(), els.end(), els.size(), element_list_proj{});
}

// ------------------------------------------------------------------------------------------------
// Listpack
//
//   [total bytes: uint32 LE][element count: uint16 LE, 65535 = unknown][entries...][0xFF]
//   entry = [encoding + data][backlen: entry length (encoding + data), 1..5 bytes]
// ------------------------------------------------------------------------------------------------

inline constexpr std::size_t lp_header_size = 6;
inline constexpr unsigned lp_eof = 0xFF;
inline constexpr std::uint32_t lp_numele_unknown = 0xFFFF;

/// Number of bytes of the backlen of an entry `l` bytes long (with the listpack's thresholds).
constexpr std::size_t lp_backlen_size(std::uint64_t l) noexcept {
    return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

/// Appends the backlen of an entry `l` bytes long: big-endian groups of 7 bits, every byte but
/// the first (most significant) with bit 7 set, so it can be parsed from its last byte.
inline void lp_put_backlen(std::string& out, std::uint64_t l) {
    const std::size_t n = lp_backlen_size(l);
    for (std::size_t i = n; i-- > 0;) {
        const auto group = static_cast<unsigned>((l >> (7 * i)) & 127u);
        put_byte(out, i + 1 == n ? group : (group | 128u));
    }
}

/// Appends one listpack entry holding `s`; canonical integers are integer encoded, as Redis does.
inline void lp_append(std::string& lp, std::string_view s) {
    const std::size_t start = lp.size();
    std::int64_t v = 0;
    if (string_to_int64(s, v)) {
        const auto u = static_cast<std::uint64_t>(v);
        if (v >= 0 && v <= 127) {
            put_byte(lp, static_cast<unsigned>(v));
        } else if (v >= -4096 && v <= 4095) {
            const std::uint64_t e = v < 0 ? (std::uint64_t{1} << 13) + u : u;
            put_byte(lp, static_cast<unsigned>((e >> 8) | 0xC0u));
            put_byte(lp, static_cast<unsigned>(e & 0xFFu));
        } else if (v >= -32768 && v <= 32767) {
            put_byte(lp, 0xF1);
            put_le(lp, u, 2);
        } else if (v >= -8388608 && v <= 8388607) {
            put_byte(lp, 0xF2);
            put_le(lp, u, 3);
        } else if (v >= -2147483648LL && v <= 2147483647LL) {
            put_byte(lp, 0xF3);
            put_le(lp, u, 4);
        } else {
            put_byte(lp, 0xF4);
            put_le(lp, u, 8);
        }
    } else {
        const std::size_t n = s.size();
        if (n < 64) {
            put_byte(lp, 0x80u | static_cast<unsigned>(n));
        } else if (n < 4096) {
            put_byte(lp, 0xE0u | static_cast<unsigned>(n >> 8));
            put_byte(lp, static_cast<unsigned>(n & 0xFFu));
        } else {
            put_byte(lp, 0xF0);
            put_le(lp, n, 4);
        }
        lp.append(s.data(), n);
    }
    lp_put_backlen(lp, lp.size() - start);
}

/// Listpack blob of the elements: member, score, member, score, ... (scores as score_to_string).
/// `els` is an element_list or an element_range (see below).
template <class Range>
std::string listpack_encode_range(const Range& els) {
    std::string lp(lp_header_size, '\0');
    for (auto it = els.begin(); it != els.end(); ++it) {
        const element_ref e = els.get(it);
        lp_append(lp, e.first);
        lp_append(lp, score_to_string(e.second));
    }
    put_byte(lp, lp_eof);
    if (lp.size() > 0xFFFFFFFFu) throw std::length_error("zset::rdb: listpack larger than 4 GiB");
    const std::uint64_t count = 2 * static_cast<std::uint64_t>(els.size());
    std::string header;
    put_le(header, lp.size(), 4);
    put_le(header, count < lp_numele_unknown ? count : lp_numele_unknown, 2);
    lp.replace(0, lp_header_size, header);
    return lp;
}

inline std::string listpack_encode(const element_list& els) {
    return listpack_encode_range(element_range_of(els));
}

/// One decoded listpack / ziplist entry: an integer or a view of bytes inside the blob.
struct packed_entry {
    bool is_int = false;
    std::int64_t ival = 0;
    std::string_view sval;

    std::string to_string() const { return is_int ? int64_to_string(ival) : std::string(sval); }
};

inline std::string offset_text(std::size_t off) {
    return " at offset " + std::to_string(off);
}

/// Validates the whole listpack (header size and count, every entry's encoding, bounds and
/// backlen, terminator as the last byte) and calls f(entry) for each entry in order.
template <class F>
void listpack_for_each(std::string_view blob, F&& f) {
    const unsigned char* lp = bytes_of(blob);
    const std::size_t size = blob.size();
    if (size < lp_header_size + 1)
        bad_format("listpack: " + std::to_string(size) + " bytes is shorter than header + end");
    if (load_le(lp, 4) != size)
        bad_format("listpack: header total bytes " + std::to_string(load_le(lp, 4)) +
                   " != blob size " + std::to_string(size));
    if (lp[size - 1] != lp_eof) bad_format("listpack: last byte is not the 0xFF terminator");
    const auto numele = static_cast<std::uint32_t>(load_le(lp + 4, 2));
    std::uint64_t count = 0;
    std::size_t pos = lp_header_size;
    const std::size_t eof_pos = size - 1;
    while (pos < eof_pos) {
        const unsigned b = lp[pos];
        const std::size_t avail = eof_pos - pos;  // bytes before the terminator
        std::size_t hdr = 1, len = 0;             // encoding bytes, data bytes
        packed_entry e;
        auto need = [&](std::size_t n) {
            if (n > avail) bad_format("listpack: entry overruns the listpack" + offset_text(pos));
        };
        if ((b & 0x80u) == 0) {
            e.is_int = true;
            e.ival = static_cast<std::int64_t>(b & 0x7Fu);
        } else if ((b & 0xC0u) == 0x80u) {
            len = b & 0x3Fu;
        } else if ((b & 0xE0u) == 0xC0u) {
            hdr = 2;
            need(2);
            std::uint64_t u = (static_cast<std::uint64_t>(b & 0x1Fu) << 8) | lp[pos + 1];
            e.is_int = true;
            e.ival = u >= 4096 ? static_cast<std::int64_t>(u) - 8192 : static_cast<std::int64_t>(u);
        } else if ((b & 0xF0u) == 0xE0u) {
            hdr = 2;
            need(2);
            len = (static_cast<std::size_t>(b & 0x0Fu) << 8) | lp[pos + 1];
        } else if (b >= 0xF1 && b <= 0xF4) {
            const std::size_t nb = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
            hdr = 1 + nb;
            need(hdr);
            e.is_int = true;
            e.ival = sign_extend(load_le(lp + pos + 1, nb), nb);
        } else if (b == 0xF0) {
            hdr = 5;
            need(5);
            len = static_cast<std::size_t>(load_le(lp + pos + 1, 4));
        } else {
            bad_format("listpack: invalid entry encoding byte" + offset_text(pos));
        }
        need(hdr);
        if (len > avail - hdr)
            bad_format("listpack: entry overruns the listpack" + offset_text(pos));
        const std::size_t entry_len = hdr + len;
        const std::size_t bl = lp_backlen_size(entry_len);
        if (bl > avail - entry_len)
            bad_format("listpack: entry backlen overruns the listpack" + offset_text(pos));
        std::string expect;
        lp_put_backlen(expect, entry_len);
        if (std::memcmp(expect.data(), lp + pos + entry_len, bl) != 0)
            bad_format("listpack: backlen does not match the entry length" + offset_text(pos));
        if (!e.is_int)
            e.sval = std::string_view(reinterpret_cast<const char*>(lp + pos + hdr), len);
        f(e);
        ++count;
        pos += entry_len + bl;
    }
    if (numele != lp_numele_unknown && numele != count)
        bad_format("listpack: header element count " + std::to_string(numele) +
                   " != actual count " + std::to_string(count));
}

// ------------------------------------------------------------------------------------------------
// Ziplist (Redis < 7.0)
//
//   [zlbytes: uint32 LE][zltail: uint32 LE offset of last entry][zllen: uint16 LE, 65535 = unknown]
//   [entries...][0xFF]
//   entry = [prevlen: 1 byte < 254, or 0xFE + uint32 LE][encoding][data]
//   encoding: 00llllll str; 01llllll llllllll str (14-bit BE); 10xxxxxx + uint32 BE str;
//             0xC0 int16, 0xD0 int32, 0xE0 int64, 0xF0 int24, 0xFE int8 (all LE);
//             0xF1..0xFD the integer 0..12 itself.
// ------------------------------------------------------------------------------------------------

inline constexpr std::size_t zl_header_size = 10;

/// Appends one ziplist entry holding `s` after an entry of `prevlen` bytes; canonical integers
/// shorter than 32 characters are integer encoded, as Redis does. Returns the entry size.
inline std::size_t zl_append(std::string& zl, std::string_view s, std::size_t prevlen) {
    const std::size_t start = zl.size();
    if (prevlen < 254) {
        put_byte(zl, static_cast<unsigned>(prevlen));
    } else {
        put_byte(zl, 0xFE);
        put_le(zl, prevlen, 4);
    }
    std::int64_t v = 0;
    if (!s.empty() && s.size() < 32 && string_to_int64(s, v)) {
        const auto u = static_cast<std::uint64_t>(v);
        if (v >= 0 && v <= 12) {
            put_byte(zl, 0xF1u + static_cast<unsigned>(v));
        } else if (v >= -128 && v <= 127) {
            put_byte(zl, 0xFE);
            put_le(zl, u, 1);
        } else if (v >= -32768 && v <= 32767) {
            put_byte(zl, 0xC0);
            put_le(zl, u, 2);
        } else if (v >= -8388608 && v <= 8388607) {
            put_byte(zl, 0xF0);
            put_le(zl, u, 3);
        } else if (v >= -2147483648LL && v <= 2147483647LL) {
            put_byte(zl, 0xD0);
            put_le(zl, u, 4);
        } else {
            put_byte(zl, 0xE0);
            put_le(zl, u, 8);
        }
    } else {
        const std::size_t n = s.size();
        if (n <= 0x3F) {
            put_byte(zl, static_cast<unsigned>(n));
        } else if (n <= 0x3FFF) {
            put_byte(zl, 0x40u | static_cast<unsigned>(n >> 8));
            put_byte(zl, static_cast<unsigned>(n & 0xFFu));
        } else {
            put_byte(zl, 0x80);
            put_be(zl, n, 4);
        }
        zl.append(s.data(), n);
    }
    return zl.size() - start;
}

/// Ziplist blob of the elements: member, score, member, score, ...
/// `els` is an element_list or an element_range (see below).
template <class Range>
std::string ziplist_encode_range(const Range& els) {
    std::string zl(zl_header_size, '\0');
    std::size_t prev = 0, tail = zl_header_size;
    for (auto it = els.begin(); it != els.end(); ++it) {
        const element_ref e = els.get(it);
        prev = zl_append(zl, e.first, prev);
        tail = zl.size();
        prev = zl_append(zl, score_to_string(e.second), prev);
    }
    put_byte(zl, lp_eof);
    if (zl.size() > 0xFFFFFFFFu) throw std::length_error("zset::rdb: ziplist larger than 4 GiB");
    const std::uint64_t count = 2 * static_cast<std::uint64_t>(els.size());
    std::string header;
    put_le(header, zl.size(), 4);
    put_le(header, tail, 4);
    put_le(header, count < 0xFFFF ? count : 0xFFFF, 2);
    zl.replace(0, zl_header_size, header);
    return zl;
}

inline std::string ziplist_encode(const element_list& els) {
    return ziplist_encode_range(element_range_of(els));
}

/// Validates the whole ziplist (header bytes / tail / count, every entry's prevlen, encoding and
/// bounds, terminator as the last byte) and calls f(entry) for each entry in order.
template <class F>
void ziplist_for_each(std::string_view blob, F&& f) {
    const unsigned char* zl = bytes_of(blob);
    const std::size_t size = blob.size();
    if (size < zl_header_size + 1)
        bad_format("ziplist: " + std::to_string(size) + " bytes is shorter than header + end");
    if (load_le(zl, 4) != size)
        bad_format("ziplist: header zlbytes " + std::to_string(load_le(zl, 4)) + " != blob size " +
                   std::to_string(size));
    if (zl[size - 1] != lp_eof) bad_format("ziplist: last byte is not the 0xFF terminator");
    const std::uint64_t zltail = load_le(zl + 4, 4);
    const auto zllen = static_cast<std::uint32_t>(load_le(zl + 8, 2));
    std::uint64_t count = 0;
    std::size_t pos = zl_header_size, prev_len = 0, last = zl_header_size;
    const std::size_t eof_pos = size - 1;
    while (pos < eof_pos) {
        const std::size_t avail = eof_pos - pos;
        std::size_t h = 0;  // prevlen + encoding bytes
        std::uint64_t prevlen = zl[pos];
        if (prevlen == 0xFF) bad_format("ziplist: unexpected terminator" + offset_text(pos));
        if (prevlen == 0xFE) {
            if (avail < 5) bad_format("ziplist: entry overruns the ziplist" + offset_text(pos));
            prevlen = load_le(zl + pos + 1, 4);
            h = 5;
        } else {
            h = 1;
        }
        if (prevlen != prev_len)
            bad_format("ziplist: prevlen " + std::to_string(prevlen) + " != previous entry size " +
                       std::to_string(prev_len) + offset_text(pos));
        if (avail < h + 1) bad_format("ziplist: entry overruns the ziplist" + offset_text(pos));
        const unsigned b = zl[pos + h];
        packed_entry e;
        std::size_t enc = 1, len = 0;
        auto need = [&](std::size_t n) {
            if (n > avail) bad_format("ziplist: entry overruns the ziplist" + offset_text(pos));
        };
        if (b < 0xC0) {
            const unsigned kind = b >> 6;
            if (kind == 0) {
                len = b & 0x3Fu;
            } else if (kind == 1) {
                enc = 2;
                need(h + 2);
                len = (static_cast<std::size_t>(b & 0x3Fu) << 8) | zl[pos + h + 1];
            } else {
                enc = 5;
                need(h + 5);
                len = static_cast<std::size_t>(load_be(zl + pos + h + 1, 4));
            }
        } else {
            std::size_t nb = 0;
            switch (b) {
            case 0xC0:
                nb = 2;
                break;
            case 0xD0:
                nb = 4;
                break;
            case 0xE0:
                nb = 8;
                break;
            case 0xF0:
                nb = 3;
                break;
            case 0xFE:
                nb = 1;
                break;
            default:
                if (b >= 0xF1 && b <= 0xFD) {
                    nb = 0;
                } else {
                    bad_format("ziplist: invalid entry encoding byte" + offset_text(pos + h));
                }
            }
            e.is_int = true;
            if (nb == 0) {
                e.ival = static_cast<std::int64_t>(b & 0x0Fu) - 1;
            } else {
                need(h + 1 + nb);
                e.ival = sign_extend(load_le(zl + pos + h + 1, nb), nb);
                len = nb;
            }
        }
        need(h + enc);
        if (len > avail - h - enc)
            bad_format("ziplist: entry overruns the ziplist" + offset_text(pos));
        if (!e.is_int)
            e.sval = std::string_view(reinterpret_cast<const char*>(zl + pos + h + enc), len);
        f(e);
        ++count;
        last = pos;
        prev_len = h + enc + len;
        pos += prev_len;
    }
    if (zltail != last)
        bad_format("ziplist: header tail offset " + std::to_string(zltail) +
                   " != last entry offset " + std::to_string(last));
    if (zllen != 0xFFFF && zllen != count)
        bad_format("ziplist: header entry count " + std::to_string(zllen) + " != actual count " +
                   std::to_string(count));
}

// ------------------------------------------------------------------------------------------------
// Element order and input checks
// ------------------------------------------------------------------------------------------------

/// Sorted set order: by score, then by member bytes (std::string compares as unsigned bytes).
inline bool element_less(const element& a, const element& b) noexcept {
    if (a.second < b.second) return true;
    if (b.second < a.second) return false;
    return a.first < b.first;
}

/// True if two elements share a member. O(n) expected: open addressing over element indexes
/// (one allocation, no per-element nodes).
inline bool has_duplicate_member(const element_list& els) {
    if (els.size() < 2) return false;
    std::size_t cap = 4;
    while (cap < els.size() * 2) cap <<= 1;
    std::vector<std::size_t> slot(cap, 0);  // element index + 1; 0 = empty
    const std::hash<std::string_view> hash;
    for (std::size_t i = 0; i < els.size(); ++i) {
        const std::string_view m = els[i].first;
        std::size_t j = hash(m) & (cap - 1);
        while (slot[j] != 0) {
            if (els[slot[j] - 1].first == m) return true;
            j = (j + 1) & (cap - 1);
        }
        slot[j] = i + 1;
    }
    return false;
}

/// Throws std::invalid_argument on a NaN score, order not strictly ascending or duplicate member.
inline void check_elements(const element_list& els) {
    for (std::size_t i = 0; i < els.size(); ++i) {
        if (std::isnan(els[i].second))
            throw std::invalid_argument("zset::rdb: NaN score for element " + std::to_string(i));
        if (i > 0 && !element_less(els[i - 1], els[i]))
            throw std::invalid_argument("zset::rdb: elements not in strictly ascending "
                                        "(score, member) order at index " +
                                        std::to_string(i));
    }
    if (has_duplicate_member(els))
        throw std::invalid_argument("zset::rdb: duplicate member in input");
}

/// The type Redis would hold these elements in, given the thresholds and the RDB version.
/// `els` is an element_list or an element_range.
template <class Range>
payload_type choose_type_range(const Range& els, const dump_options& opt) {
    if (opt.force_type) return *opt.force_type;
    bool compact = els.size() <= opt.max_listpack_entries;
    std::uint64_t total = 0;
    for (auto it = els.begin(); compact && it != els.end(); ++it) {
        const std::size_t len = els.get(it).first.size();
        compact = len <= opt.max_listpack_value;
        total += len;
    }
    compact = compact && total <= (std::uint64_t{1} << 30);  // Redis's listpack safety limit
    if (compact)
        return opt.rdb_version >= 10 ? payload_type::zset_listpack : payload_type::zset_ziplist;
    return opt.rdb_version >= 8 ? payload_type::zset_2 : payload_type::zset;
}

inline payload_type choose_type(const element_list& els, const dump_options& opt) noexcept {
    return choose_type_range(element_range_of(els), opt);
}

// ------------------------------------------------------------------------------------------------
// Payload writer and reader
// ------------------------------------------------------------------------------------------------

inline void seal_payload(std::string& out, std::uint16_t rdb_version) {
    put_le(out, rdb_version, 2);
    put_le(out, crc64(0, bytes_of(out), out.size()), 8);
}

/// Writes the payload of an element range already known to be valid input (sorted set order,
/// no NaN, unique members): opt.check_input is not looked at.
template <class Range>
std::string dump_range(const Range& els, const dump_options& opt) {
    const payload_type type = choose_type_range(els, opt);
    std::string out;
    put_byte(out, static_cast<unsigned>(type));
    switch (type) {
    case payload_type::zset_listpack:
        write_string(out, listpack_encode_range(els), opt.compress);
        break;
    case payload_type::zset_ziplist:
        write_string(out, ziplist_encode_range(els), opt.compress);
        break;
    case payload_type::zset_2:
    case payload_type::zset: {
        const bool binary = type == payload_type::zset_2;
        write_length(out, els.size());
        // Highest ranked element first, as Redis walks its skiplist from the tail.
        for (auto it = els.end(); it != els.begin();) {
            --it;
            const element_ref e = els.get(it);
            write_string(out, e.first, opt.compress);
            if (binary)
                put_le(out, double_bits(e.second), 8);
            else
                write_double_value(out, e.second);
        }
        break;
    }
    default:
        throw std::invalid_argument("zset::rdb: force_type is not a sorted set payload type");
    }
    seal_payload(out, opt.rdb_version);
    return out;
}

inline std::string dump(const element_list& els, const dump_options& opt) {
    if (opt.check_input) check_elements(els);
    return dump_range(element_range_of(els), opt);
}

/// Score of a listpack / ziplist entry.
inline double packed_score(const packed_entry& e, const char* what) {
    if (e.is_int) return static_cast<double>(e.ival);
    double d = 0;
    if (!parse_double(e.sval, d)) bad_format(std::string(what) + ": score is not a number");
    return d;
}

/// Reads member, score pairs of a listpack / ziplist blob into `out`.
template <class ForEach>
void read_packed_pairs(std::string_view blob, element_list& out, const char* what,
                       ForEach&& for_each) {
    bool member_turn = true;
    for_each(blob, [&](const packed_entry& e) {
        if (member_turn) {
            out.emplace_back(e.to_string(), 0.0);
        } else {
            out.back().second = packed_score(e, what);
        }
        member_turn = !member_turn;
    });
    if (!member_turn)
        bad_format(std::string(what) + ": odd number of entries (a member without a score)");
}

/// Decodes and validates a payload. Throws format_error.
inline element_list restore(std::string_view bytes, const restore_options& opt,
                            payload_type* type_out = nullptr,
                            std::uint16_t* version_out = nullptr) {
    if (bytes.size() < 10)
        bad_footer("payload of " + std::to_string(bytes.size()) +
                   " bytes is too short for the version and checksum footer");
    const unsigned char* p = bytes_of(bytes);
    const std::size_t body_len = bytes.size() - 10;
    const auto version = static_cast<std::uint16_t>(load_le(p + body_len, 2));
    if (version > opt.max_rdb_version)
        bad_footer("RDB version " + std::to_string(version) + " is newer than the accepted " +
                   std::to_string(opt.max_rdb_version));
    if (opt.verify_checksum) {
        const std::uint64_t stored = load_le(p + body_len + 2, 8);
        const std::uint64_t actual = crc64(0, p, body_len + 2);
        if (stored != actual) bad_footer("CRC64 mismatch");
    }
    reader r(p, body_len, "payload");
    if (r.at_end()) bad_format("empty object");
    const unsigned t = r.u8();
    element_list els;
    payload_type type{};
    switch (t) {
    case static_cast<unsigned>(payload_type::zset):
    case static_cast<unsigned>(payload_type::zset_2): {
        type = static_cast<payload_type>(t);
        const bool binary = type == payload_type::zset_2;
        const std::uint64_t n = read_plain_length(r);
        const std::size_t min_size = binary ? 9 : 2;  // smallest possible element
        if (n > r.remaining() / min_size)
            bad_format("element count " + std::to_string(n) + " impossible in the " +
                       std::to_string(r.remaining()) + " bytes left");
        els.reserve(static_cast<std::size_t>(n));
        for (std::uint64_t i = 0; i < n; ++i) {
            std::string member = read_string(r);
            const double score = binary ? bits_double(load_le(r.take(8), 8)) : read_double_value(r);
            if (std::isnan(score)) bad_format("NaN score");
            els.emplace_back(std::move(member), score);
        }
        break;
    }
    case static_cast<unsigned>(payload_type::zset_ziplist): {
        type = payload_type::zset_ziplist;
        std::string storage;
        const std::string_view blob = read_string_view(r, storage);
        read_packed_pairs(blob, els, "ziplist",
                          [](std::string_view b, auto&& f) { ziplist_for_each(b, f); });
        break;
    }
    case static_cast<unsigned>(payload_type::zset_listpack): {
        type = payload_type::zset_listpack;
        std::string storage;
        const std::string_view blob = read_string_view(r, storage);
        read_packed_pairs(blob, els, "listpack",
                          [](std::string_view b, auto&& f) { listpack_for_each(b, f); });
        break;
    }
    default:
        bad_format("RDB object type " + std::to_string(t) + " is not a sorted set");
    }
    if (!r.at_end())
        bad_format(std::to_string(r.remaining()) + " unexpected bytes after the object");
    for (const auto& e : els)
        if (std::isnan(e.second)) bad_format("NaN score");
    if (els.empty() && !opt.allow_empty) bad_format("empty sorted set");
    // Listpack / ziplist payloads are ascending, ZSET_2 ones descending (written tail to head);
    // anything else (old ZSET payloads were written in hash table order) gets sorted.
    auto greater = [](const element& a, const element& b) { return element_less(b, a); };
    if (std::is_sorted(els.begin(), els.end(), greater))
        std::reverse(els.begin(), els.end());
    else if (!std::is_sorted(els.begin(), els.end(), element_less))
        std::sort(els.begin(), els.end(), element_less);
    if (has_duplicate_member(els)) bad_format("duplicate member");
    if (type_out) *type_out = type;
    if (version_out) *version_out = version;
    return els;
}

inline restore_result try_restore(std::string_view bytes, const restore_options& opt) {
    restore_result res;
    try {
        res.elements = restore(bytes, opt, &res.type, &res.rdb_version);
    } catch (const format_error& e) {
        res.elements.clear();
        res.error = e.kind();
        res.message = e.what();
    }
    return res;
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_RDB_HPP
