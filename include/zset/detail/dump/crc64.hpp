// zset::detail::rdb — CRC64 as Redis computes it for DUMP payloads and RDB files.
// SPDX-License-Identifier: MIT
//
// Jones polynomial 0xad93d23594c935a9, reflected, initial value 0, no final xor; slice-by-8 over
// tables computed at compile time. crc64(0, "123456789") == 0xe9c6d914c4b8d9ca.
//
// Thread safety: pure functions over constant tables. Exceptions: none.
#ifndef ZSET_DETAIL_DUMP_CRC64_HPP
#define ZSET_DETAIL_DUMP_CRC64_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace zset {
namespace detail {
namespace rdb {

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

/// Little-endian unsigned integer of the n bytes at p (n <= 8).
inline std::uint64_t load_le(const unsigned char* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

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

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_CRC64_HPP
