// zset::detail::rdb — the packed blobs inside DUMP payloads: listpack, ziplist and intset.
// SPDX-License-Identifier: MIT
//
//   listpack [total bytes: u32 LE][entry count: u16 LE, 65535 = unknown][entries...][0xFF]
//            entry = [encoding + data][backlen: entry length, 1..5 bytes]
//   ziplist  [zlbytes: u32 LE][zltail: u32 LE offset of last entry][zllen: u16 LE][entries][0xFF]
//            entry = [prevlen: 1 byte < 254, or 0xFE + u32 LE][encoding][data]
//   intset   [width: u32 LE, 2/4/8][count: u32 LE][count ascending integers of that width, LE]
// Written from the format descriptions; no Redis code is used. Decoders validate everything and
// record the first problem in a decode_status (no exceptions).
//
// Thread safety: pure functions. Exceptions: encoders may throw std::bad_alloc, and
// std::length_error (raise_length_error) for a blob over 4 GiB.
#ifndef ZSET_DETAIL_DUMP_PACKED_HPP
#define ZSET_DETAIL_DUMP_PACKED_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format.hpp"

namespace zset {
namespace detail {
namespace rdb {

// ---- element ranges -----------------------------------------------------------------------------
// What the writers read: an element_list, or any container iterated in sorted set order (e.g. a
// zset::sorted_set, streamed without copying its members), seen through
//   begin(), end()  bidirectional iterators (the ZSET / ZSET_2 writers walk backwards),
//   size()          the element count,
//   get(it)         the element at `it` as an element_ref (member bytes, score).

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

// ---- integer encodings --------------------------------------------------------------------------

/// One rung of a "smallest integer encoding" ladder: values that fit `bits` are written as the
/// tag byte then bits / 8 little-endian bytes.
struct int_rung {
    unsigned bits;
    unsigned tag;
};

/// Writes v with the first rung it fits; false when none does.
template <std::size_t N>
bool put_tagged_int(std::string& out, std::int64_t v, const int_rung (&ladder)[N]) {
    for (const int_rung& r : ladder) {
        if (!fits_signed(v, r.bits)) continue;
        put_byte(out, r.tag);
        put_le(out, static_cast<std::uint64_t>(v), r.bits / 8);
        return true;
    }
    return false;
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

/// Checks the frame shared by listpacks and ziplists: at least `header` bytes plus the 0xFF
/// terminator as the last byte, and a leading u32 LE total size equal to the blob's. False
/// (recorded in `st`) when malformed; `what` names the blob in the message.
inline bool check_blob_frame(std::string_view blob, std::size_t header, const char* what,
                             decode_status& st) {
    const unsigned char* p = bytes_of(blob);
    const std::string name(what);
    if (blob.size() < header + 1) {
        st.bad_format(name + ": " + std::to_string(blob.size()) +
                      " bytes is shorter than header + end");
    } else if (load_le(p, 4) != blob.size()) {
        st.bad_format(name + ": header total bytes " + std::to_string(load_le(p, 4)) +
                      " != blob size " + std::to_string(blob.size()));
    } else if (p[blob.size() - 1] != 0xFF) {
        st.bad_format(name + ": last byte is not the 0xFF terminator");
    }
    return st.ok();
}

// ---- listpack -----------------------------------------------------------------------------------

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

/// Writes the encoding and data of a listpack string entry.
inline void lp_put_string(std::string& lp, std::string_view s) {
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

/// Appends one listpack entry holding `s`; canonical integers are integer encoded, as Redis does.
inline void lp_append(std::string& lp, std::string_view s) {
    static constexpr int_rung ladder[] = {{16, 0xF1}, {24, 0xF2}, {32, 0xF3}, {64, 0xF4}};
    const std::size_t start = lp.size();
    std::int64_t v = 0;
    if (!string_to_int64(s, v)) {
        lp_put_string(lp, s);
    } else if (v >= 0 && v <= 127) {
        put_byte(lp, static_cast<unsigned>(v));
    } else if (fits_signed(v, 13)) {
        const auto e = static_cast<std::uint64_t>(v) & 0x1FFFu;
        put_byte(lp, static_cast<unsigned>((e >> 8) | 0xC0u));
        put_byte(lp, static_cast<unsigned>(e & 0xFFu));
    } else {
        put_tagged_int(lp, v, ladder);
    }
    lp_put_backlen(lp, lp.size() - start);
}

/// Writes the listpack header over the first lp_header_size bytes and the terminator.
inline void lp_seal(std::string& lp, std::uint64_t entries) {
    put_byte(lp, lp_eof);
    if (lp.size() > 0xFFFFFFFFu) raise_length_error("zset::rdb: listpack larger than 4 GiB");
    std::string header;
    put_le(header, lp.size(), 4);
    put_le(header, entries < lp_numele_unknown ? entries : lp_numele_unknown, 2);
    lp.replace(0, lp_header_size, header);
}

/// Listpack blob of the elements: member, score, member, score, ... (scores as score_to_string).
template <class Range>
std::string listpack_encode_range(const Range& els) {
    std::string lp(lp_header_size, '\0');
    for (auto it = els.begin(); it != els.end(); ++it) {
        const element_ref e = els.get(it);
        lp_append(lp, e.first);
        lp_append(lp, score_to_string(e.second));
    }
    lp_seal(lp, 2 * static_cast<std::uint64_t>(els.size()));
    return lp;
}

inline std::string listpack_encode(const element_list& els) {
    return listpack_encode_range(element_range_of(els));
}

/// Listpack blob of plain strings (a Redis >= 7.2 set's members), in the order given.
template <class Strings>
std::string listpack_encode_strings(const Strings& items) {
    std::string lp(lp_header_size, '\0');
    for (const auto& s : items) lp_append(lp, s);
    lp_seal(lp, items.size());
    return lp;
}

/// Decodes the encoding of the listpack entry at `pos`: its header and data sizes and value.
/// `avail` is the number of bytes before the terminator. Returns false on a malformed entry.
inline bool lp_decode_head(const unsigned char* lp, std::size_t pos, std::size_t avail,
                           std::size_t& hdr, std::size_t& len, packed_entry& e) {
    const unsigned b = lp[pos];
    hdr = 1;
    len = 0;
    if ((b & 0x80u) == 0) {
        e.is_int = true;
        e.ival = static_cast<std::int64_t>(b & 0x7Fu);
    } else if ((b & 0xC0u) == 0x80u) {
        len = b & 0x3Fu;
    } else if ((b & 0xE0u) == 0xC0u) {
        hdr = 2;
        if (avail < 2) return false;
        const std::uint64_t u = (static_cast<std::uint64_t>(b & 0x1Fu) << 8) | lp[pos + 1];
        e.is_int = true;
        e.ival = u >= 4096 ? static_cast<std::int64_t>(u) - 8192 : static_cast<std::int64_t>(u);
    } else if ((b & 0xF0u) == 0xE0u) {
        hdr = 2;
        if (avail < 2) return false;
        len = (static_cast<std::size_t>(b & 0x0Fu) << 8) | lp[pos + 1];
    } else if (b >= 0xF1 && b <= 0xF4) {
        const std::size_t nb = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
        hdr = 1 + nb;
        if (avail < hdr) return false;
        e.is_int = true;
        e.ival = sign_extend(load_le(lp + pos + 1, nb), nb);
    } else if (b == 0xF0) {
        hdr = 5;
        if (avail < 5) return false;
        len = static_cast<std::size_t>(load_le(lp + pos + 1, 4));
    } else {
        return false;
    }
    return true;
}

/// Validates the whole listpack (header size and count, every entry's encoding, bounds and
/// backlen, terminator as the last byte) and calls f(entry) for each entry in order; stops at
/// the first problem, recorded in `st`.
template <class F>
void listpack_for_each(std::string_view blob, decode_status& st, F&& f) {
    const unsigned char* lp = bytes_of(blob);
    if (!check_blob_frame(blob, lp_header_size, "listpack", st)) return;
    const std::size_t eof_pos = blob.size() - 1;
    std::uint64_t count = 0;
    for (std::size_t pos = lp_header_size; pos < eof_pos && st.ok(); ++count) {
        const std::size_t avail = eof_pos - pos;
        std::size_t hdr = 0, len = 0;
        packed_entry e;
        if (!lp_decode_head(lp, pos, avail, hdr, len, e))
            return st.bad_format("listpack: invalid or truncated entry" + offset_text(pos));
        if (len > avail - hdr)
            return st.bad_format("listpack: entry overruns the listpack" + offset_text(pos));
        const std::size_t entry_len = hdr + len;
        const std::size_t bl = lp_backlen_size(entry_len);
        std::string expect;
        lp_put_backlen(expect, entry_len);
        if (bl > avail - entry_len || std::memcmp(expect.data(), lp + pos + entry_len, bl) != 0)
            return st.bad_format("listpack: backlen does not match the entry" + offset_text(pos));
        if (!e.is_int)
            e.sval = std::string_view(reinterpret_cast<const char*>(lp + pos + hdr), len);
        f(e);
        pos += entry_len + bl;
    }
    const auto numele = static_cast<std::uint32_t>(load_le(lp + 4, 2));
    if (st.ok() && numele != lp_numele_unknown && numele != count)
        st.bad_format("listpack: header element count " + std::to_string(numele) +
                      " != actual count " + std::to_string(count));
}

// ---- ziplist (Redis < 7.0) ----------------------------------------------------------------------

inline constexpr std::size_t zl_header_size = 10;

/// Appends one ziplist entry holding `s` after an entry of `prevlen` bytes; canonical integers
/// shorter than 32 characters are integer encoded, as Redis does. Returns the entry size.
inline std::size_t zl_append(std::string& zl, std::string_view s, std::size_t prevlen) {
    static constexpr int_rung ladder[] = {
        {8, 0xFE}, {16, 0xC0}, {24, 0xF0}, {32, 0xD0}, {64, 0xE0}};
    const std::size_t start = zl.size();
    if (prevlen < 254) {
        put_byte(zl, static_cast<unsigned>(prevlen));
    } else {
        put_byte(zl, 0xFE);
        put_le(zl, prevlen, 4);
    }
    std::int64_t v = 0;
    if (!s.empty() && s.size() < 32 && string_to_int64(s, v)) {
        if (v >= 0 && v <= 12)
            put_byte(zl, 0xF1u + static_cast<unsigned>(v));
        else
            put_tagged_int(zl, v, ladder);
        return zl.size() - start;
    }
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
    return zl.size() - start;
}

/// Ziplist blob of the elements: member, score, member, score, ...
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
    if (zl.size() > 0xFFFFFFFFu) raise_length_error("zset::rdb: ziplist larger than 4 GiB");
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

/// Width in bytes of a ziplist integer encoding byte (0 for the immediates 0xF1..0xFD), or -1
/// for a byte that is no integer encoding.
inline int zl_int_width(unsigned b) noexcept {
    switch (b) {
    case 0xC0:
        return 2;
    case 0xD0:
        return 4;
    case 0xE0:
        return 8;
    case 0xF0:
        return 3;
    case 0xFE:
        return 1;
    default:
        return b >= 0xF1 && b <= 0xFD ? 0 : -1;
    }
}

/// Decodes the encoding of a ziplist entry whose encoding byte is at `p` (`avail` bytes from p
/// on): encoding size, data size and value. False on a malformed or truncated encoding.
inline bool zl_decode_encoding(const unsigned char* p, std::size_t avail, std::size_t& enc,
                               std::size_t& len, packed_entry& e) {
    const unsigned b = p[0];
    enc = 1;
    len = 0;
    if (b < 0xC0) {
        const unsigned kind = b >> 6;
        enc = kind == 0 ? 1 : kind == 1 ? 2 : 5;
        if (avail < enc) return false;
        len = kind == 0   ? (b & 0x3Fu)
              : kind == 1 ? (static_cast<std::size_t>(b & 0x3Fu) << 8) | p[1]
                          : static_cast<std::size_t>(load_be(p + 1, 4));
        return true;
    }
    const int width = zl_int_width(b);
    if (width < 0) return false;
    e.is_int = true;
    if (width == 0) {
        e.ival = static_cast<std::int64_t>(b & 0x0Fu) - 1;
        return true;
    }
    len = static_cast<std::size_t>(width);
    if (avail < 1 + len) return false;
    e.ival = sign_extend(load_le(p + 1, len), len);
    return true;
}

/// Reads the prevlen field at `pos`; returns its size (1 or 5), or 0 when malformed.
inline std::size_t zl_prevlen(const unsigned char* zl, std::size_t pos, std::size_t avail,
                              std::uint64_t& prevlen) {
    prevlen = zl[pos];
    if (prevlen == 0xFF) return 0;
    if (prevlen != 0xFE) return 1;
    if (avail < 5) return 0;
    prevlen = load_le(zl + pos + 1, 4);
    return 5;
}

/// Validates the whole ziplist (header bytes / tail / count, every entry's prevlen, encoding and
/// bounds, terminator as the last byte) and calls f(entry) for each entry in order; stops at the
/// first problem, recorded in `st`.
template <class F>
void ziplist_for_each(std::string_view blob, decode_status& st, F&& f) {
    const unsigned char* zl = bytes_of(blob);
    if (!check_blob_frame(blob, zl_header_size, "ziplist", st)) return;
    const std::size_t eof_pos = blob.size() - 1;
    std::uint64_t count = 0;
    std::size_t pos = zl_header_size, prev_len = 0, last = zl_header_size;
    for (; pos < eof_pos && st.ok(); ++count) {
        const std::size_t avail = eof_pos - pos;
        std::uint64_t prevlen = 0;
        const std::size_t h = zl_prevlen(zl, pos, avail, prevlen);
        if (h == 0 || prevlen != prev_len)
            return st.bad_format("ziplist: bad prevlen" + offset_text(pos));
        packed_entry e;
        std::size_t enc = 0, len = 0;
        if (avail < h + 1 || !zl_decode_encoding(zl + pos + h, avail - h, enc, len, e))
            return st.bad_format("ziplist: invalid or truncated entry" + offset_text(pos));
        if (len > avail - h - enc)
            return st.bad_format("ziplist: entry overruns the ziplist" + offset_text(pos));
        if (!e.is_int)
            e.sval = std::string_view(reinterpret_cast<const char*>(zl + pos + h + enc), len);
        f(e);
        last = pos;
        prev_len = h + enc + len;
        pos += prev_len;
    }
    if (!st.ok()) return;
    if (load_le(zl + 4, 4) != last)
        return st.bad_format("ziplist: header tail offset != last entry offset " +
                             std::to_string(last));
    const auto zllen = static_cast<std::uint32_t>(load_le(zl + 8, 2));
    if (zllen != 0xFFFF && zllen != count)
        st.bad_format("ziplist: header entry count " + std::to_string(zllen) + " != actual count " +
                      std::to_string(count));
}

// ---- intset -------------------------------------------------------------------------------------

/// Intset blob of ascending, distinct integers, in the narrowest width that holds them all.
inline std::string intset_encode(const std::vector<std::int64_t>& ascending) {
    std::size_t width = 2;
    for (const std::int64_t v : ascending)
        width = std::max<std::size_t>(width, fits_signed(v, 16) ? 2 : fits_signed(v, 32) ? 4 : 8);
    std::string out;
    put_le(out, width, 4);
    put_le(out, ascending.size(), 4);
    for (const std::int64_t v : ascending) put_le(out, static_cast<std::uint64_t>(v), width);
    return out;
}

/// Decodes an intset blob: width 2, 4 or 8, exact size, strictly ascending values.
inline std::vector<std::int64_t> intset_decode(std::string_view blob, decode_status& st) {
    std::vector<std::int64_t> out;
    const unsigned char* p = bytes_of(blob);
    if (blob.size() < 8) {
        st.bad_format("intset: shorter than its header");
        return out;
    }
    const std::uint64_t width = load_le(p, 4), count = load_le(p + 4, 4);
    if ((width != 2 && width != 4 && width != 8) || count == 0 ||
        (blob.size() - 8) / width != count || (blob.size() - 8) % width != 0) {
        st.bad_format("intset: bad width or length");
        return out;
    }
    out.reserve(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < count; ++i) {
        const auto w = static_cast<std::size_t>(width);
        out.push_back(sign_extend(load_le(p + 8 + i * w, w), w));
        if (i > 0 && out[i - 1] >= out[i]) {
            st.bad_format("intset: values not strictly ascending");
            out.clear();
            return out;
        }
    }
    return out;
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_PACKED_HPP
