// Keyspace fuzzer: arbitrary commands (argv vectors) executed by zset::redis::keyspace.
//
// Properties, checked after every command:
//  * never crashes, never throws (execute() reports even std::bad_alloc as an error reply);
//  * the reply is exactly one well-formed RESP value in the session's protocol (RESP2: only
//    + - : $ *; RESP3 never sends $-1 / *-1), error lines start with an upper-case code and
//    contain no CR/LF; a blocked command writes nothing;
//  * the streaming reply and the typed reply (execute(..., reply&) on a twin keyspace fed the
//    same commands) encode to the same bytes;
//  * every sorted set the command named validate()s, is never empty, and equals its twin.
//
// Input layout: [flags] then commands. flags bit 0: binary commands ([argc][len][bytes]...),
// else text lines split like redis-cli inline commands; bit 1: start in RESP3; bit 2: tiny
// listpack thresholds; bit 3: %.17g doubles (Redis <= 7.0); bit 4: blocking allowed (a blocked
// command is then cancelled, as on a timeout); bit 5: DEBUG enabled (not DEBUG SLEEP).
// Both keyspaces share a fake clock that advances 1 ms per command, so expiry is deterministic.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include <zset/redis/keyspace.hpp>
#include <zset/redis/request_parser.hpp>

namespace {

namespace redis = zset::redis;

long long fake_now = 0;

/// Reads a CRLF-terminated line starting at pos (no CR or LF inside); advances pos.
bool read_line(std::string_view s, std::size_t& pos, std::string_view& line) {
    const std::size_t end = s.find("\r\n", pos);
    if (end == std::string_view::npos) return false;
    line = s.substr(pos, end - pos);
    if (line.find('\r') != std::string_view::npos || line.find('\n') != std::string_view::npos)
        return false;
    pos = end + 2;
    return true;
}

bool is_integer(std::string_view t) {
    if (!t.empty() && t[0] == '-') t.remove_prefix(1);
    if (t.empty()) return false;
    for (const char c : t)
        if (c < '0' || c > '9') return false;
    return true;
}

bool parse_count(std::string_view t, long long& n) {
    if (!is_integer(t) || t.size() > 19) return false;
    n = std::stoll(std::string(t));
    return true;
}

/// Parses one RESP value at pos; false if malformed.
bool parse_value(std::string_view s, std::size_t& pos, redis::protocol proto, int depth) {
    if (depth > 64 || pos >= s.size()) return false;
    const bool resp3 = proto == redis::protocol::resp3;
    const char type = s[pos++];
    std::string_view line;
    if (!read_line(s, pos, line)) return false;
    long long n = 0;
    switch (type) {
    case '+':
        return true;
    case '-':
        return !line.empty() && std::isupper(static_cast<unsigned char>(line[0]));
    case ':':
        return is_integer(line);
    case '=':  // RESP3 verbatim text: "txt:" and the text
        if (!resp3 || !parse_count(line, n) || n < 4) return false;
        if (s.size() - pos < static_cast<std::size_t>(n) + 2 || s.substr(pos, 4) != "txt:")
            return false;
        pos += static_cast<std::size_t>(n);
        if (s.substr(pos, 2) != "\r\n") return false;
        pos += 2;
        return true;
    case '$':
        if (!parse_count(line, n)) return false;
        if (n == -1) return !resp3;
        if (n < 0 || s.size() - pos < static_cast<std::size_t>(n) + 2) return false;
        pos += static_cast<std::size_t>(n);
        if (s.substr(pos, 2) != "\r\n") return false;
        pos += 2;
        return true;
    case '*':
    case '%':
    case '~':
        if (type != '*' && !resp3) return false;
        if (!parse_count(line, n)) return false;
        if (n == -1) return type == '*' && !resp3;
        if (n < 0) return false;
        if (type == '%') n *= 2;
        for (long long i = 0; i < n; ++i)
            if (!parse_value(s, pos, proto, depth + 1)) return false;
        return true;
    case '_':
        return resp3 && line.empty();
    case '#':
        return resp3 && (line == "t" || line == "f");
    case ',':
        return resp3 && !line.empty();
    default:
        return false;
    }
}

bool well_formed(std::string_view reply, redis::protocol proto) {
    std::size_t pos = 0;
    return parse_value(reply, pos, proto, 0) && pos == reply.size();
}

std::vector<std::string> next_command(zset_fuzz::input& in, bool binary, bool& ok) {
    std::vector<std::string> argv;
    ok = true;
    if (binary) {
        const int argc = 1 + in.byte() % 8;
        for (int i = 0; i < argc; ++i) argv.emplace_back(in.bytes(in.byte()));
        return argv;
    }
    std::string line;
    while (!in.empty()) {
        const char c = static_cast<char>(in.byte());
        if (c == '\n') break;
        line += c;
    }
    if (line.find('\0') != std::string::npos) line.resize(line.find('\0'));  // inline rule
    ok = redis::split_inline_args(line, argv);
    return argv;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    zset_fuzz::input in(data, size);
    const std::uint8_t flags = in.byte();
    redis::keyspace_options opts;
    opts.max_random_draws = 4096;  // keeps ZRANDMEMBER -N replies small
    fake_now = 1700000000000;
    opts.clock = [] { return fake_now; };
    if (flags & 32) opts.enable_debug_command = redis::debug_access::yes;
    if (flags & 8) opts.double_format = redis::format_style::percent17g;
    redis::keyspace streaming(opts), typed(opts);
    if (flags & 4) {
        streaming.set_listpack_limits(2, 4);
        typed.set_listpack_limits(2, 4);
    }
    redis::session s1, s2;
    s1.allow_blocking = s2.allow_blocking = (flags & 16) != 0;
    if (flags & 2) s1.proto = s2.proto = redis::protocol::resp3;
    const bool binary = (flags & 1) != 0;

    for (int commands = 0; !in.empty() && commands < 256; ++commands) {
        bool ok = true;
        const std::vector<std::string> argv = next_command(in, binary, ok);
        if (!ok || argv.empty()) continue;
        if (argv.size() >= 2 && zset::detail::ascii_iequals(argv[0], "debug") &&
            zset::detail::ascii_iequals(argv[1], "sleep"))
            continue;  // would stall the fuzzer
        ++fake_now;

        std::string bytes;
        const redis::exec_result r1 = streaming.execute(argv, s1, bytes);
        redis::reply tree;
        const redis::exec_result r2 = typed.execute(argv, s2, tree);
        ZSET_FUZZ_CHECK(r1.status == r2.status);
        ZSET_FUZZ_CHECK(s1.proto == s2.proto);
        if (r1.status == redis::exec_status::blocked) {
            ZSET_FUZZ_CHECK(bytes.empty());
            ZSET_FUZZ_CHECK(r1.block.keys == r2.block.keys &&
                            r1.block.timeout_ms == r2.block.timeout_ms);
            ZSET_FUZZ_CHECK(!r1.block.keys.empty() && r1.block.timeout_ms >= 0);
            redis::keyspace::append_timeout_reply(bytes, s1.proto);
            streaming.unblock(s1);
            typed.unblock(s2);
        } else {
            std::string encoded;
            redis::encode(tree, s2.proto, encoded, opts.double_format);
            ZSET_FUZZ_CHECK(encoded == bytes);
        }
        ZSET_FUZZ_CHECK(well_formed(bytes, s1.proto));

        ZSET_FUZZ_CHECK(s1.db == s2.db);
        for (std::size_t i = 1; i < argv.size(); ++i) {
            const auto* a = streaming.find(argv[i], s1.db);
            const auto* b = typed.find(argv[i], s2.db);
            ZSET_FUZZ_CHECK((a == nullptr) == (b == nullptr));
            if (a == nullptr) continue;
            ZSET_FUZZ_CHECK(!a->empty());
            ZSET_FUZZ_CHECK(a->validate());
            ZSET_FUZZ_CHECK(*a == *b);
            ZSET_FUZZ_CHECK(a->encoding() == b->encoding());
        }
        ZSET_FUZZ_CHECK(streaming.key_count(s1.db) == typed.key_count(s2.db));
        if (r1.status == redis::exec_status::quit) break;
    }
    return 0;
}
