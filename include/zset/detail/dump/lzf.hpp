// zset::detail::rdb — LZF, the compression Redis uses for RDB strings (rdbcompression yes).
// SPDX-License-Identifier: MIT
//
// A stream of items. Control byte c:
//   c < 32         literal run: the next c + 1 bytes are copied to the output.
//   c >= 32        back reference: length L = c >> 5 (if 7, L += next byte), offset
//                  o = ((c & 31) << 8) + next byte; copies L + 2 bytes starting o + 1 bytes back
//                  in the output (overlap allowed: byte by byte).
// Written from that format description; no LZF code is used.
//
// Thread safety: pure functions. Exceptions: lzf_compress may throw std::bad_alloc.
#ifndef ZSET_DETAIL_DUMP_LZF_HPP
#define ZSET_DETAIL_DUMP_LZF_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zset {
namespace detail {
namespace rdb {

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
            continue;
        }
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
    return op == out_len;
}

/// Largest output an LZF stream of `in_len` bytes can produce (3 input bytes -> 264 output).
constexpr std::uint64_t lzf_max_expansion(std::uint64_t in_len) noexcept {
    return in_len / 3 * 264 + 264;
}

/// Greedy LZF compressor: a hash table of the last position of each 3-byte prefix.
class lzf_encoder {
public:
    explicit lzf_encoder(std::string_view input)
        : in_(reinterpret_cast<const unsigned char*>(input.data())), n_(input.size()) {
        while (hash_bits_ < 14 && (std::size_t{1} << hash_bits_) < n_) ++hash_bits_;
        last_.assign(std::size_t{1} << hash_bits_, none);
    }

    /// The compressed stream, or nullopt when it would exceed `max_out` bytes.
    std::optional<std::string> run(std::size_t max_out) {
        out_.reserve(std::min(n_, max_out) + 1);
        open_literals();
        std::size_t i = 0;
        while (i < n_) {
            if (out_.size() > max_out + 1) return std::nullopt;
            const std::size_t matched = try_match(i);
            if (matched != 0) {
                i += matched;
                continue;
            }
            out_.push_back(static_cast<char>(in_[i++]));
            if (++literals_ == 32) {
                out_[ctrl_pos_] = static_cast<char>(31);
                open_literals();
            }
        }
        close_literals();
        if (out_.size() > max_out) return std::nullopt;
        return std::move(out_);
    }

private:
    static constexpr std::size_t max_offset = 8192;  // o + 1 with o up to 8191
    static constexpr std::size_t max_length = 264;   // 7 + 255 + 2
    static constexpr std::uint32_t none = 0xFFFFFFFFu;

    std::size_t hash3(std::size_t i) const noexcept {
        const std::uint32_t v = (std::uint32_t{in_[i]} << 16) | (std::uint32_t{in_[i + 1]} << 8) |
                                std::uint32_t{in_[i + 2]};
        return static_cast<std::size_t>((v * 2654435761u) >> (32 - hash_bits_));
    }
    void open_literals() {
        ctrl_pos_ = out_.size();
        out_.push_back('\0');
        literals_ = 0;
    }
    void close_literals() {
        if (literals_ > 0)
            out_[ctrl_pos_] = static_cast<char>(static_cast<unsigned char>(literals_ - 1));
        else
            out_.pop_back();
    }
    void put(std::size_t byte) { out_.push_back(static_cast<char>(byte & 0xFFu)); }

    /// Emits a back reference when the bytes at i repeat earlier ones; returns its length or 0.
    std::size_t try_match(std::size_t i) {
        if (i + 2 >= n_) return 0;
        const std::size_t h = hash3(i);
        const std::uint32_t ref = last_[h];
        last_[h] = static_cast<std::uint32_t>(i);
        if (ref == none || i - ref > max_offset || std::memcmp(in_ + ref, in_ + i, 3) != 0)
            return 0;
        const std::size_t limit = std::min(max_length, n_ - i);
        std::size_t len = 3;
        while (len < limit && in_[ref + len] == in_[i + len]) ++len;
        close_literals();
        const std::size_t off = i - ref - 1;
        const std::size_t l = len - 2;
        put(((l < 7 ? l : 7) << 5) | (off >> 8));
        if (l >= 7) put(l - 7);
        put(off);
        // Index a couple of positions inside the match so later data can refer to it.
        for (std::size_t k = i + 1; k < i + len && k + 2 < n_ && k < i + 3; ++k)
            last_[hash3(k)] = static_cast<std::uint32_t>(k);
        open_literals();
        return len;
    }

    const unsigned char* in_;
    std::size_t n_;
    std::size_t hash_bits_ = 4;  // table scaled to the input: small strings stay cheap
    std::vector<std::uint32_t> last_;
    std::string out_;
    std::size_t ctrl_pos_ = 0;
    unsigned literals_ = 0;
};

/// Compresses `input`. Returns nullopt when the result would not fit in `max_out` bytes
/// (Redis only keeps a compressed string that saves at least 4 bytes) or the input is 4 GiB.
inline std::optional<std::string> lzf_compress(std::string_view input, std::size_t max_out) {
    if (input.size() >= 0xFFFFFFFFu) return std::nullopt;
    return lzf_encoder(input).run(max_out);
}

}  // namespace rdb
}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_DUMP_LZF_HPP
