// zset::detail::rdb — the Redis DUMP / RESTORE payload codec (internals).
// SPDX-License-Identifier: MIT
//
// Works on neutral values: a list of (member bytes, score) pairs for sorted sets, a list of
// member strings for plain sets, bytes for strings. The public facade is <zset/rdb.hpp>.
//
// A DUMP payload is
//
//   [RDB object type: 1 byte][object body][RDB version: uint16 LE][CRC64 of all before: uint64 LE]
//
// with these object types:
//
//   0  STRING         one RDB string.
//   2  SET            length, then that many RDB strings.
//   3  ZSET           length, then (RDB string member, RDB "double value" score) pairs; the score
//                     is a 1-byte length + ASCII text, 253 = NaN, 254 = +inf, 255 = -inf.
//   5  ZSET_2         length, then (RDB string member, 8-byte little-endian binary double) pairs,
//                     written from the highest ranked element down to the lowest.
//   11 SET_INTSET     one RDB string holding an intset.
//   12 ZSET_ZIPLIST   one RDB string holding a ziplist: member, score, member, score, ...
//   17 ZSET_LISTPACK  one RDB string holding a listpack: member, score, member, score, ...
//   20 SET_LISTPACK   one RDB string holding a listpack of members (Redis >= 7.2).
//
// RDB strings are a length (6/14/32/64-bit forms) and raw bytes, or an "encoded" form: an 8, 16
// or 32-bit integer (the string is its decimal text) or an LZF-compressed block.
//
// Decoding records the first problem in a decode_status and never throws (so RESTORE works the
// same with -fno-exceptions); restore() raises format_error from it. Everything here is written
// from the format descriptions; no Redis code is used.
//
// Thread safety: pure functions; concurrent calls on distinct outputs are safe.
#ifndef ZSET_DETAIL_DUMP_CODEC_HPP
#define ZSET_DETAIL_DUMP_CODEC_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format.hpp"
#include "lzf.hpp"
#include "packed.hpp"

namespace zset {
namespace detail {
namespace rdb {

// ---- a bounds-checked reader --------------------------------------------------------------------

/// Sequential reader over a byte range. A read past the end records "truncated" in the status,
/// moves to the end and yields zeros / nullptr, so callers check ok() before using a result.
class reader {
public:
    reader(const unsigned char* p, std::size_t n, const char* what, decode_status& st) noexcept
        : begin_(p), p_(p), end_(p + n), what_(what), st_(&st) {}

    std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
    std::size_t offset() const noexcept { return static_cast<std::size_t>(p_ - begin_); }
    bool at_end() const noexcept { return p_ == end_; }
    bool ok() const noexcept { return st_->ok(); }
    decode_status& status() const noexcept { return *st_; }
    const char* what() const noexcept { return what_; }

    /// Records a malformed object, prefixed by what this reader reads; moves to the end.
    void fail(const std::string& why) {
        st_->bad_format(std::string(what_) + ": " + why);
        p_ = end_;
    }

    /// The next n bytes, or nullptr (and a recorded error) when fewer remain.
    const unsigned char* take(std::size_t n) {
        if (!ok()) return nullptr;
        if (n > remaining()) {
            fail("truncated at offset " + std::to_string(offset()) + " (need " + std::to_string(n) +
                 " bytes, have " + std::to_string(remaining()) + ")");
            return nullptr;
        }
        const unsigned char* r = p_;
        p_ += n;
        return r;
    }
    unsigned char u8() {
        const unsigned char* p = take(1);
        return p ? *p : 0;
    }
    /// Little-endian (or big-endian) unsigned integer of n <= 8 bytes; 0 after a failure.
    std::uint64_t le(std::size_t n) {
        const unsigned char* p = take(n);
        return p ? load_le(p, n) : 0;
    }
    std::uint64_t be(std::size_t n) {
        const unsigned char* p = take(n);
        return p ? load_be(p, n) : 0;
    }

private:
    const unsigned char* begin_;
    const unsigned char* p_;
    const unsigned char* end_;
    const char* what_;
    decode_status* st_;
};

// ---- RDB lengths and strings --------------------------------------------------------------------

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
    if (b == rdb_32bitlen) return {r.be(4), false};
    if (b == rdb_64bitlen) return {r.be(8), false};
    r.fail("unknown length encoding byte " + std::to_string(b) + " at offset " +
           std::to_string(r.offset() - 1));
    return {};
}

/// Reads a plain length (an encoded-string marker is an error here).
inline std::uint64_t read_plain_length(reader& r) {
    const auto l = read_length(r);
    if (l.encoded) r.fail("expected a length, found a string encoding");
    return r.ok() ? l.value : 0;
}

/// Reads the bytes of an LZF-compressed RDB string (after its encoding marker).
inline std::string read_lzf_string(reader& r) {
    const std::uint64_t clen = read_plain_length(r);
    const std::uint64_t len = read_plain_length(r);
    if (!r.ok()) return {};
    if (clen > r.remaining()) {
        r.fail("LZF block of " + std::to_string(clen) + " bytes exceeds the " +
               std::to_string(r.remaining()) + " bytes left");
        return {};
    }
    if (len > lzf_max_expansion(clen) || len > std::numeric_limits<std::size_t>::max() / 2) {
        r.fail("LZF uncompressed length " + std::to_string(len) + " impossible for " +
               std::to_string(clen) + " compressed bytes");
        return {};
    }
    const unsigned char* c = r.take(static_cast<std::size_t>(clen));
    std::string s(static_cast<std::size_t>(len), '\0');
    if (!lzf_decompress(c, static_cast<std::size_t>(clen), reinterpret_cast<unsigned char*>(&s[0]),
                        s.size())) {
        r.fail("invalid LZF compressed string");
        return {};
    }
    return s;
}

/// Reads an RDB string as a view: into the payload for a raw string, else into `storage`.
inline std::string_view read_string_view(reader& r, std::string& storage) {
    const auto l = read_length(r);
    if (!r.ok()) return {};
    if (!l.encoded) {
        if (l.value > r.remaining()) {
            r.fail("string length " + std::to_string(l.value) + " exceeds the " +
                   std::to_string(r.remaining()) + " bytes left");
            return {};
        }
        const unsigned char* p = r.take(static_cast<std::size_t>(l.value));
        return std::string_view(reinterpret_cast<const char*>(p),
                                static_cast<std::size_t>(l.value));
    }
    switch (l.value) {
    case rdb_enc_int8:
        storage = int64_to_string(static_cast<std::int8_t>(r.u8()));
        break;
    case rdb_enc_int16:
        storage = int64_to_string(static_cast<std::int16_t>(r.le(2)));
        break;
    case rdb_enc_int32:
        storage = int64_to_string(static_cast<std::int32_t>(r.le(4)));
        break;
    case rdb_enc_lzf:
        storage = read_lzf_string(r);
        break;
    default:
        r.fail("unknown string encoding " + std::to_string(l.value));
        return {};
    }
    return r.ok() ? std::string_view(storage) : std::string_view();
}

/// Reads an RDB string: raw, integer encoded or LZF compressed ("" after a failure).
inline std::string read_string(reader& r) {
    std::string storage;
    const std::string_view v = read_string_view(r, storage);
    if (v.data() == storage.data()) return storage;
    return std::string(v);
}

/// Writes an RDB string the way Redis's rdbSaveRawString does: a canonical integer of up to 11
/// characters in the int32 range is integer encoded; with `compress`, a string longer than 20
/// bytes is LZF compressed when that saves at least 4 bytes; otherwise length + raw bytes.
inline void write_string(std::string& out, std::string_view s, bool compress) {
    static constexpr int_rung ladder[] = {{8, (rdb_encval << 6) | rdb_enc_int8},
                                          {16, (rdb_encval << 6) | rdb_enc_int16},
                                          {32, (rdb_encval << 6) | rdb_enc_int32}};
    std::int64_t v = 0;
    if (s.size() <= 11 && string_to_int64(s, v) && put_tagged_int(out, v, ladder)) return;
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
    if (p != nullptr && !parse_double(std::string_view(reinterpret_cast<const char*>(p), len), d))
        r.fail("invalid double value");
    return d;
}

/// Writes an RDB "double value" as Redis's rdbSaveDoubleValue (integers within +-2^52 in
/// decimal, else %.17g).
inline void write_double_value(std::string& out, double v) {
    if (std::isnan(v)) return put_byte(out, 253);
    if (std::isinf(v)) return put_byte(out, v < 0 ? 255u : 254u);
    // Redis tests value > -(2^52 - 1) && value < 2^52: the same integers as |v| <= 2^52 - 1.
    constexpr double bound = 4503599627370495.0;
    const auto ll = integral_within(v, bound);
    const std::string s = ll ? int64_to_string(*ll) : format_g17(v);
    put_byte(out, static_cast<unsigned>(s.size()));
    out += s;
}

// ---- element order and input checks -------------------------------------------------------------

/// Sorted set order: by score, then by member bytes (std::string compares as unsigned bytes).
inline bool element_less(const element& a, const element& b) noexcept {
    if (a.second < b.second) return true;
    if (b.second < a.second) return false;
    return a.first < b.first;
}

/// True if two of the n strings key(0..n-1) are equal. O(n) expected: open addressing over
/// indexes (one allocation, no per-element nodes).
template <class Key>
bool has_duplicate(std::size_t n, Key&& key) {
    if (n < 2) return false;
    std::size_t cap = 4;
    while (cap < n * 2) cap <<= 1;
    std::vector<std::size_t> slot(cap, 0);  // index + 1; 0 = empty
    const std::hash<std::string_view> hash;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string_view m = key(i);
        std::size_t j = hash(m) & (cap - 1);
        for (; slot[j] != 0; j = (j + 1) & (cap - 1))
            if (key(slot[j] - 1) == m) return true;
        slot[j] = i + 1;
    }
    return false;
}

inline bool has_duplicate_member(const element_list& els) {
    return has_duplicate(els.size(), [&](std::size_t i) { return std::string_view(els[i].first); });
}

/// Raises zset::error (a std::invalid_argument) on a NaN score, order not strictly ascending or
/// a duplicate member.
inline void check_elements(const element_list& els) {
    for (std::size_t i = 0; i < els.size(); ++i) {
        if (std::isnan(els[i].second))
            raise_error(("zset::rdb: NaN score for element " + std::to_string(i)).c_str());
        if (i > 0 && !element_less(els[i - 1], els[i]))
            raise_error(("zset::rdb: elements not in strictly ascending (score, member) order "
                         "at index " +
                         std::to_string(i))
                            .c_str());
    }
    if (has_duplicate_member(els)) raise_error("zset::rdb: duplicate member in input");
}

// ---- sorted set payloads ------------------------------------------------------------------------

/// The type Redis would hold these elements in, given the thresholds and the RDB version.
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

/// Appends the footer: RDB version and the CRC64 of everything before it.
inline void seal_payload(std::string& out, std::uint16_t rdb_version) {
    put_le(out, rdb_version, 2);
    put_le(out, crc64(0, bytes_of(out), out.size()), 8);
}

/// Writes ZSET / ZSET_2 bodies: highest ranked element first, as Redis walks its skiplist from
/// the tail.
template <class Range>
void write_scored_pairs(std::string& out, const Range& els, bool binary, bool compress) {
    write_length(out, els.size());
    for (auto it = els.end(); it != els.begin();) {
        --it;
        const element_ref e = els.get(it);
        write_string(out, e.first, compress);
        if (binary)
            put_le(out, double_bits(e.second), 8);
        else
            write_double_value(out, e.second);
    }
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
    case payload_type::zset:
        write_scored_pairs(out, els, type == payload_type::zset_2, opt.compress);
        break;
    default:
        raise_error("zset::rdb: force_type is not a sorted set payload type");
    }
    seal_payload(out, opt.rdb_version);
    return out;
}

inline std::string dump(const element_list& els, const dump_options& opt) {
    if (opt.check_input) check_elements(els);
    return dump_range(element_range_of(els), opt);
}

/// Score of a listpack / ziplist entry.
inline double packed_score(const packed_entry& e, const char* what, decode_status& st) {
    if (e.is_int) return static_cast<double>(e.ival);
    double d = 0;
    if (!parse_double(e.sval, d)) st.bad_format(std::string(what) + ": score is not a number");
    return d;
}

/// Reads member, score pairs of a listpack / ziplist blob into `out`.
inline void read_packed_pairs(std::string_view blob, element_list& out, payload_type type,
                              decode_status& st) {
    const bool lp = type == payload_type::zset_listpack;
    const char* what = lp ? "listpack" : "ziplist";
    bool member_turn = true;
    auto pair_up = [&](const packed_entry& e) {
        if (member_turn)
            out.emplace_back(e.to_string(), 0.0);
        else
            out.back().second = packed_score(e, what, st);
        member_turn = !member_turn;
    };
    if (lp)
        listpack_for_each(blob, st, pair_up);
    else
        ziplist_for_each(blob, st, pair_up);
    if (st.ok() && !member_turn)
        st.bad_format(std::string(what) + ": odd number of entries (a member without a score)");
}

/// Reads ZSET / ZSET_2 bodies.
inline void read_scored_pairs(reader& r, element_list& els, bool binary) {
    const std::uint64_t n = read_plain_length(r);
    const std::size_t min_size = binary ? 9 : 2;  // smallest possible element
    if (n > r.remaining() / min_size)
        return r.fail("element count " + std::to_string(n) + " impossible in the " +
                      std::to_string(r.remaining()) + " bytes left");
    els.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
        std::string member = read_string(r);
        const double score = binary ? bits_double(r.le(8)) : read_double_value(r);
        els.emplace_back(std::move(member), score);
    }
}

/// Puts decoded elements in sorted set order and checks them (no NaN, no duplicate, not empty
/// unless allowed). Listpack / ziplist payloads are ascending, ZSET_2 ones descending (written
/// tail to head); anything else (old ZSET payloads were written in hash table order) is sorted.
inline void settle_elements(element_list& els, bool allow_empty, decode_status& st) {
    for (const auto& e : els)
        if (std::isnan(e.second)) return st.bad_format("NaN score");
    if (els.empty() && !allow_empty) return st.bad_format("empty sorted set");
    auto greater = [](const element& a, const element& b) { return element_less(b, a); };
    if (std::is_sorted(els.begin(), els.end(), greater))
        std::reverse(els.begin(), els.end());
    else if (!std::is_sorted(els.begin(), els.end(), element_less))
        std::sort(els.begin(), els.end(), element_less);
    if (has_duplicate_member(els)) st.bad_format("duplicate member");
}

/// Checks the footer as Redis's verifyDumpPayload: present, RDB version accepted, CRC64.
/// Returns the body length (payload minus footer); `version` gets the footer's RDB version.
inline std::size_t check_footer(std::string_view bytes, const restore_options& opt,
                                std::uint16_t& version, decode_status& st) {
    if (bytes.size() < 10) {
        st.bad_footer("payload of " + std::to_string(bytes.size()) +
                      " bytes is too short for the version and checksum footer");
        return 0;
    }
    const unsigned char* p = bytes_of(bytes);
    const std::size_t body_len = bytes.size() - 10;
    version = static_cast<std::uint16_t>(load_le(p + body_len, 2));
    if (version > opt.max_rdb_version) {
        st.bad_footer("RDB version " + std::to_string(version) + " is newer than the accepted " +
                      std::to_string(opt.max_rdb_version));
    } else if (opt.verify_checksum && load_le(p + body_len + 2, 8) != crc64(0, p, body_len + 2)) {
        st.bad_footer("CRC64 mismatch");
    }
    return body_len;
}

/// Reads the body of a sorted set object of RDB type t (the type byte already read).
inline payload_type read_zset_body(reader& r, unsigned t, element_list& els) {
    const auto type = static_cast<payload_type>(t);
    switch (type) {
    case payload_type::zset:
    case payload_type::zset_2:
        read_scored_pairs(r, els, type == payload_type::zset_2);
        break;
    case payload_type::zset_ziplist:
    case payload_type::zset_listpack: {
        std::string storage;
        const std::string_view blob = read_string_view(r, storage);
        if (r.ok()) read_packed_pairs(blob, els, type, r.status());
        break;
    }
    default:
        r.fail("RDB object type " + std::to_string(t) + " is not a sorted set");
    }
    return type;
}

/// Decodes and validates a sorted set payload into `res` (elements, or the error).
inline void decode_zset(std::string_view bytes, const restore_options& opt, restore_result& res) {
    decode_status st;
    const std::size_t body_len = check_footer(bytes, opt, res.rdb_version, st);
    element_list els;
    if (st.ok()) {
        reader r(bytes_of(bytes), body_len, "payload", st);
        if (r.at_end()) r.fail("empty object");
        const unsigned t = r.u8();
        if (r.ok()) res.type = read_zset_body(r, t, els);
        if (r.ok() && !r.at_end())
            r.fail(std::to_string(r.remaining()) + " unexpected bytes after the object");
        if (st.ok()) settle_elements(els, opt.allow_empty, st);
    }
    res.error = st.kind();
    res.message = st.message();
    if (st.ok()) res.elements = std::move(els);
}

inline restore_result try_restore(std::string_view bytes, const restore_options& opt) {
    restore_result res;
    decode_zset(bytes, opt, res);
    return res;
}

/// Decodes a sorted set payload; raises format_error when it is refused.
inline element_list restore(std::string_view bytes, const restore_options& opt,
                            payload_type* type_out = nullptr,
                            std::uint16_t* version_out = nullptr) {
    restore_result res = try_restore(bytes, opt);
    if (!res.ok()) raise_format_error(res.error, res.message);
    if (type_out) *type_out = res.type;
    if (version_out) *version_out = res.rdb_version;
    return std::move(res.elements);
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_CODEC_HPP
