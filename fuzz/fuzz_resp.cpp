// RESP request parser fuzzer: zset::redis::request_parser over arbitrary client bytes.
//
// Properties:
//  * never crashes (ASan/UBSan);
//  * the split into feed() calls does not matter: all at once, byte by byte and in chunks
//    chosen by the input give the same commands, the same error and the same idle() state;
//  * memory follows the bytes actually received: pending_bytes() stays within a bound derived
//    from the bytes fed so far, whatever lengths the input declares;
//  * nothing malformed is accepted silently: the result equals an independent model of Redis's
//    request framing (below, written from Redis's networking.c rules rather than from the
//    parser), which says exactly which prefix forms whole commands and which error ends the
//    stream;
//  * every command re-encoded as a multibulk request parses back to itself.
//
// Input layout: [limits byte][chunking byte][bytes fed to the parser...].
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include <zset/redis/request_parser.hpp>
#include <zset/redis/resp.hpp>

namespace {

namespace redis = zset::redis;
using command = redis::request_parser::command;

struct outcome {
    std::vector<command> commands;
    std::string error;
    bool idle = true;
    bool operator==(const outcome& o) const {
        return commands == o.commands && error == o.error && idle == o.idle;
    }
};

// ---- the independent model ---------------------------------------------------------------------

/// Redis string2ll: optional '-', digits without a leading zero (except "0"), no '+', no
/// blanks, at most 20 bytes, within the range of long long.
std::optional<long long> model_string2ll(std::string_view s) {
    if (s.empty() || s.size() > 20) return std::nullopt;
    if (s == "0") return 0;
    std::size_t i = 0;
    const bool negative = s[0] == '-';
    if (negative) i = 1;
    if (i == s.size() || s[i] < '1' || s[i] > '9') return std::nullopt;
    unsigned long long v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
        const unsigned d = static_cast<unsigned>(s[i] - '0');
        if (v > (~0ull - d) / 10) return std::nullopt;
        v = v * 10 + d;
    }
    if (negative) {
        if (v > 9223372036854775808ull) return std::nullopt;
        return v == 9223372036854775808ull ? std::numeric_limits<long long>::min()
                                           : -static_cast<long long>(v);
    }
    if (v > 9223372036854775807ull) return std::nullopt;
    return static_cast<long long>(v);
}

/// Where strchr(buf + from, c) would stop on the NUL-terminated buffer: the offset of the first
/// `c`, or npos when a NUL byte or the end comes first.
std::size_t c_strchr(std::string_view buf, std::size_t from, char c) {
    for (std::size_t i = from; i < buf.size(); ++i) {
        if (buf[i] == c) return i;
        if (buf[i] == '\0') return std::string_view::npos;
    }
    return std::string_view::npos;
}

/// Redis fed one byte at a time (so the "too big" checks see every prefix of a line). The
/// inline split itself is redis::split_inline_args (tested on its own); this checks framing.
outcome model(std::string_view buf, const redis::request_limits& lim, bool authenticated) {
    outcome out;
    std::size_t pos = 0;
    const std::size_t max_inline = lim.max_inline_len;
    auto fail = [&](std::string text) {
        out.error = std::move(text);
        out.idle = true;  // not compared once failed (see equal_outcomes)
        return out;
    };
    while (pos < buf.size()) {
        if (buf[pos] != '*') {  // inline request
            const std::size_t nl = c_strchr(buf, pos, '\n');
            if (nl == std::string_view::npos) {
                if (buf.size() - pos > max_inline)
                    return fail(std::string(redis::errors::proto_inline_too_big));
                out.idle = false;
                return out;
            }
            if (nl - pos > max_inline)
                return fail(std::string(redis::errors::proto_inline_too_big));
            std::string_view line = buf.substr(pos, nl - pos);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            command argv;
            if (!redis::split_inline_args(line, argv))
                return fail(std::string(redis::errors::proto_unbalanced_quotes));
            if (!argv.empty()) out.commands.push_back(std::move(argv));
            pos = nl + 1;
            continue;
        }
        // multibulk: "*<count>\r" + one more byte, then count x ("$<len>\r" + byte,
        // payload, 2 bytes)
        std::size_t p = pos;
        const std::size_t cr = c_strchr(buf, p, '\r');
        if (cr == std::string_view::npos) {
            if (buf.size() - p > max_inline)
                return fail(std::string(redis::errors::proto_mbulk_count_too_big));
            out.idle = false;
            return out;
        }
        if (cr - p > max_inline) return fail(std::string(redis::errors::proto_mbulk_count_too_big));
        if (cr + 1 >= buf.size()) {
            out.idle = false;
            return out;
        }
        const auto count = model_string2ll(buf.substr(p + 1, cr - p - 1));
        if (!count ||
            (*count > 0 && static_cast<unsigned long long>(*count) > lim.max_multibulk_len))
            return fail(std::string(redis::errors::proto_invalid_mbulk_len));
        if (!authenticated && *count > 10)
            return fail(std::string(redis::errors::proto_unauth_mbulk_len));
        p = cr + 2;
        if (*count <= 0) {
            pos = p;
            continue;
        }
        command argv;
        for (long long k = 0; k < *count; ++k) {
            const std::size_t bcr = c_strchr(buf, p, '\r');
            if (bcr == std::string_view::npos) {
                if (buf.size() - p > max_inline)
                    return fail(std::string(redis::errors::proto_bulk_count_too_big));
                out.idle = false;
                return out;
            }
            if (bcr - p > max_inline)
                return fail(std::string(redis::errors::proto_bulk_count_too_big));
            if (bcr + 1 >= buf.size()) {
                out.idle = false;
                return out;
            }
            if (buf[p] != '$') {
                const char got = buf[p];
                std::string text = "ERR Protocol error: expected '$', got '";
                text += (got == '\r' || got == '\n') ? ' ' : got;
                text += "'";
                return fail(text);
            }
            const auto len = model_string2ll(buf.substr(p + 1, bcr - p - 1));
            if (!len || *len < 0 || static_cast<unsigned long long>(*len) > lim.max_bulk_len)
                return fail(std::string(redis::errors::proto_invalid_bulk_len));
            if (!authenticated && *len > 16384)
                return fail(std::string(redis::errors::proto_unauth_bulk_len));
            p = bcr + 2;
            const auto n = static_cast<std::size_t>(*len);
            if (buf.size() - p < n + 2) {
                out.idle = false;
                return out;
            }
            argv.emplace_back(buf.substr(p, n));
            p += n + 2;
        }
        out.commands.push_back(std::move(argv));
        pos = p;
    }
    return out;
}

// ---- running the parser ------------------------------------------------------------------------

redis::request_parser make_parser(const redis::request_limits& lim, bool authenticated) {
    redis::request_parser p(lim);
    p.set_authenticated(authenticated);
    return p;
}

outcome finish(redis::request_parser& p, std::vector<command>& got) {
    command c;
    while (p.next(c)) got.push_back(std::move(c));
    outcome o;
    o.commands = std::move(got);
    o.error = std::string(p.error());
    o.idle = p.idle();
    return o;
}

/// After an error the parser's idle() is unspecified; compare it only while healthy.
bool equal_outcomes(const outcome& a, const outcome& b) {
    if (a.commands != b.commands || a.error != b.error) return false;
    return !a.error.empty() || a.idle == b.idle;
}

std::size_t memory_bound(std::size_t fed, const redis::request_limits& lim) {
    // Received bytes (with std::string growth slack), one up-front bulk reservation (64 KiB at
    // most), the argv vector (1024 entries reserved at most) and a count / inline line.
    return 3 * fed + 65536 + 1024 * sizeof(std::string) + 2 * lim.max_inline_len + 4096;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    zset_fuzz::input in(data, size);
    const std::uint8_t l = in.byte();
    const std::uint8_t chunking = in.byte();
    const std::string_view bytes = in.rest();

    // Limits: Redis's defaults, or tiny ones so every "too big" path is reachable.
    redis::request_limits lim;
    if (l & 1) {
        static const std::size_t inline_lens[] = {0, 1, 2, 3, 5, 8, 16, 40};
        static const std::size_t bulk_lens[] = {0, 1, 3, 10, 100, 16385, 1u << 20, 512u << 20};
        lim.max_inline_len = inline_lens[(l >> 1) & 7];
        lim.max_bulk_len = bulk_lens[(l >> 4) & 7];
        lim.max_multibulk_len = (l & 0x80) ? 3 : 2147483647;
    }
    const bool authenticated = (l & 2) == 0 || (l & 1) == 0;

    // 1. all at once
    redis::request_parser whole = make_parser(lim, authenticated);
    whole.feed(bytes);
    std::vector<command> got_whole;
    const outcome a = finish(whole, got_whole);

    // 2. byte by byte, checking memory after every byte
    redis::request_parser single = make_parser(lim, authenticated);
    std::vector<command> got_single;
    std::size_t fed_in_request = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        single.feed(bytes.data() + i, 1);
        ++fed_in_request;
        ZSET_FUZZ_CHECK(single.pending_bytes() <= memory_bound(fed_in_request, lim));
        command c;
        while (single.next(c)) {
            got_single.push_back(std::move(c));
            fed_in_request = 0;
        }
        if (single.idle()) fed_in_request = 0;
    }
    const outcome b = finish(single, got_single);

    // 3. chunks whose sizes come from the chunking byte
    redis::request_parser chunked = make_parser(lim, authenticated);
    std::vector<command> got_chunked;
    std::size_t state = chunking | 1u;
    for (std::size_t i = 0; i < bytes.size();) {
        state = state * 1103515245u + 12345u;
        const std::size_t n = std::min<std::size_t>(bytes.size() - i, 1 + (state >> 16) % 17);
        chunked.feed(bytes.substr(i, n));
        i += n;
        command c;
        while (chunked.next(c)) got_chunked.push_back(std::move(c));
    }
    const outcome c = finish(chunked, got_chunked);

    ZSET_FUZZ_CHECK(equal_outcomes(a, b));
    ZSET_FUZZ_CHECK(equal_outcomes(a, c));

    // 4. the independent model
    const outcome m = model(bytes, lim, authenticated);
    ZSET_FUZZ_CHECK(equal_outcomes(a, m));
    ZSET_FUZZ_CHECK(a.error.empty() || a.error.rfind("ERR Protocol error: ", 0) == 0);

    // 5. re-encoding every command as a multibulk request parses back to itself
    if (!a.commands.empty()) {
        std::string again;
        for (const auto& cmd : a.commands) {
            redis::append_array_header(again, cmd.size());
            for (const auto& arg : cmd) redis::append_bulk(again, arg);
        }
        redis::request_parser p2;  // default limits: the commands came through smaller ones
        p2.feed(again);
        std::vector<command> got2;
        const outcome r = finish(p2, got2);
        ZSET_FUZZ_CHECK(r.error.empty() && r.idle && r.commands == a.commands);
    }

    // 6. reset() returns the parser to a clean state
    whole.reset();
    ZSET_FUZZ_CHECK(!whole.failed() && whole.idle() && !whole.has_command());
    return 0;
}
