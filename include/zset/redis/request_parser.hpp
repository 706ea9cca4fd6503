// zset::redis::request_parser — incremental parsing of what Redis clients send.
// SPDX-License-Identifier: MIT
//
// Multibulk ("*N\r\n$len\r\n...") and inline requests, with Redis's limits and protocol error
// texts (networking.c processInputBuffer; verified against redis-server 7.0.15, see
// tests/redis/test_protocol.cpp). Memory follows the bytes received, never a declared length.
//
// Thread safety: a request_parser is used by one connection; distinct parsers are independent
// (concurrent const calls on one parser are safe).
#ifndef ZSET_REDIS_REQUEST_PARSER_HPP
#define ZSET_REDIS_REQUEST_PARSER_HPP

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "numbers.hpp"

namespace zset::redis {

namespace detail {

constexpr bool is_hex_digit(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

constexpr int hex_digit_value(char c) noexcept {
    return c <= '9' ? c - '0' : (c >= 'a' ? c - 'a' + 10 : c - 'A' + 10);
}

/// Byte i of `line`, or '\0' past its end (the terminator Redis's C string has there).
constexpr char char_at(std::string_view line, std::size_t i) noexcept {
    return i < line.size() ? line[i] : '\0';
}

/// Where sdssplitargs is inside an argument.
enum class quoting { none, single_quotes, double_quotes };
/// What a character did to the argument being read.
enum class token_step { more, done, unbalanced };

/// A closing quote at `i` must be followed by a blank or the end of the line.
inline token_step close_quote(std::string_view line, std::size_t i) noexcept {
    const char next = char_at(line, i + 1);
    return next != '\0' && !is_c_space(next) ? token_step::unbalanced : token_step::done;
}

/// The escape after a backslash in double quotes: \n \r \t \b \a, or the character itself.
constexpr char unescape(char c) noexcept {
    switch (c) {
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    case 'b':
        return '\b';
    case 'a':
        return '\a';
    default:
        return c;
    }
}

/// One character inside "double quotes" at line[i] (an escape moves i on).
inline token_step double_quoted(std::string_view line, std::size_t& i, std::string& token) {
    const char c = char_at(line, i);
    if (c == '\\' && char_at(line, i + 1) == 'x' && is_hex_digit(char_at(line, i + 2)) &&
        is_hex_digit(char_at(line, i + 3))) {
        token +=
            static_cast<char>(hex_digit_value(line[i + 2]) * 16 + hex_digit_value(line[i + 3]));
        i += 3;
    } else if (c == '\\' && char_at(line, i + 1) != '\0') {
        token += unescape(line[++i]);
    } else if (c == '"') {
        return close_quote(line, i);
    } else if (c == '\0') {
        return token_step::unbalanced;  // unterminated
    } else {
        token += c;
    }
    return token_step::more;
}

/// One character inside 'single quotes' at line[i] (only \' is an escape).
inline token_step single_quoted(std::string_view line, std::size_t& i, std::string& token) {
    const char c = char_at(line, i);
    if (c == '\\' && char_at(line, i + 1) == '\'') {
        ++i;
        token += '\'';
    } else if (c == '\'') {
        return close_quote(line, i);
    } else if (c == '\0') {
        return token_step::unbalanced;
    } else {
        token += c;
    }
    return token_step::more;
}

/// One unquoted character: a blank ends the argument, a quote opens quoting.
inline token_step unquoted(char c, std::string& token, quoting& q) {
    switch (c) {
    case ' ':
    case '\n':
    case '\r':
    case '\t':
    case '\0':
        return token_step::done;
    case '"':
        q = quoting::double_quotes;
        break;
    case '\'':
        q = quoting::single_quotes;
        break;
    default:
        token += c;
        break;
    }
    return token_step::more;
}

/// Reads the argument starting at line[i]; false on unbalanced quotes.
inline bool read_inline_arg(std::string_view line, std::size_t& i, std::string& token) {
    quoting q = quoting::none;
    for (token_step st = token_step::more; st != token_step::done;) {
        if (q == quoting::double_quotes)
            st = double_quoted(line, i, token);
        else if (q == quoting::single_quotes)
            st = single_quoted(line, i, token);
        else
            st = unquoted(char_at(line, i), token, q);
        if (st == token_step::unbalanced) return false;
        if (i < line.size()) ++i;
    }
    return true;
}

}  // namespace detail

/// Splits an inline request line into arguments exactly like Redis's sdssplitargs: blanks
/// (C isspace) separate arguments, but an unquoted argument ends only at ' ', '\t', '\r' or
/// '\n' (so "a\vb" is one argument); "double quotes" understand \n \r \t \b \a, \xHH and
/// \<any char>; 'single quotes' understand only \'; a quote may start mid-argument (a"b c" is
/// "ab c"), but a closing quote must be followed by a blank or the end. `line` must not
/// contain NUL bytes or the final "\n" (request_parser guarantees both). Replaces the contents
/// of `argv`; returns false on unbalanced quotes (errors::proto_unbalanced_quotes).
/// Complexity O(|line|). Basic guarantee (may throw std::bad_alloc).
inline bool split_inline_args(std::string_view line, std::vector<std::string>& argv) {
    argv.clear();
    for (std::size_t i = 0;;) {
        while (i < line.size() && detail::is_c_space(line[i])) ++i;
        if (i == line.size()) return true;
        std::string token;
        if (!detail::read_inline_arg(line, i, token)) return false;
        argv.push_back(std::move(token));
    }
}

/// Limits enforced by request_parser; the defaults are Redis's.
struct request_limits {
    /// proto-max-bulk-len: largest accepted "$<len>" (512 MiB).
    std::size_t max_bulk_len = std::size_t{512} * 1024 * 1024;
    /// Largest accepted "*<count>": INT_MAX in Redis 7 (older versions used 1024 * 1024).
    std::size_t max_multibulk_len = 2147483647;
    /// PROTO_INLINE_MAX_SIZE: longest unterminated inline request or count line (64 KiB).
    std::size_t max_inline_len = std::size_t{64} * 1024;
};

/// Incremental parser for the requests a Redis server receives, fed with raw bytes as they are
/// read from a connection. Complete commands are queued as argv vectors; consume them with
/// next() (moves, no copy). Follows Redis's processInputBuffer:
///  - a request starting with '*' is a multibulk "*N\r\n" + N x "$len\r\n<bytes>\r\n"; N <= 0
///    is an empty request and is skipped;
///  - anything else is an inline request: one line ending in "\n" (an optional "\r" before it
///    is dropped), split like Redis's sdssplitargs (blanks separate arguments; "double quotes"
///    with \n \r \t \b \a \xHH \<char> escapes; 'single quotes' with \' only; a closing quote
///    must be followed by a blank or the end). Blank lines are skipped.
///  - like Redis, the byte after a count line's "\r" and the two bytes after a bulk payload are
///    skipped without checking that they are "\n" / "\r\n";
///  - like Redis (which scans with strchr), a NUL byte in a count line or an inline line hides
///    the terminator, so the line only ends with a "too big" error once it exceeds the limit.
/// On a protocol error the parser stops: commands queued before the error are still returned
/// by next(); after them the server should send error() and close the connection.
/// Memory: a declared length never allocates more than 64 KiB (or the argc cap 1024) before
/// the bytes actually arrive; count lines store at most 32 bytes; an unterminated inline line
/// at most max_inline_len bytes.
/// Limits are per line, independent of how the input is split into feed() calls (Redis checks
/// after each read(2); the result equals Redis fed one byte at a time).
class request_parser {
public:
    /// One command: argv[0] is the command name.
    using command = std::vector<std::string>;

    /// Creates a parser with the given limits. No-throw.
    explicit request_parser(const request_limits& limits = {}) noexcept : limits_(limits) {}

    /// Parses `size` bytes at `data`. Bytes after a protocol error are ignored.
    /// Complexity O(size) amortised. Basic guarantee: on std::bad_alloc the parser is left in a
    /// valid but unspecified state (treat the connection as failed).
    void feed(const char* data, std::size_t size) {
        const char* p = data;
        const char* const end = data + size;
        while (p != end && error_.empty()) {
            switch (state_) {
            case state::idle:
                begin_request(*p);
                break;
            case state::multibulk_count:
            case state::bulk_count:
                p = scan_count_line(p, end);
                break;
            case state::bulk_data:
                p = copy_bulk(p, end);
                break;
            case state::bulk_trailer:
                p = skip_trailer(p, end);
                break;
            case state::inline_line:
                p = scan_inline(p, end);
                break;
            }
        }
    }

    /// Parses the bytes of `bytes`. See feed(const char*, std::size_t).
    void feed(std::string_view bytes) { feed(bytes.data(), bytes.size()); }

    /// True when at least one complete command is queued. No-throw.
    bool has_command() const noexcept { return !ready_.empty(); }

    /// Number of complete commands queued. No-throw.
    std::size_t queued() const noexcept { return ready_.size(); }

    /// Moves the oldest queued command into `out` (replacing its contents) and returns true, or
    /// returns false when none is queued. O(1); no argument bytes are copied. No-throw.
    bool next(command& out) noexcept {
        if (ready_.empty()) {
            return false;
        }
        out = std::move(ready_.front());
        ready_.pop_front();
        return true;
    }

    /// True once a protocol error was detected. No-throw.
    bool failed() const noexcept { return !error_.empty(); }

    /// The protocol error reply text (e.g. "ERR Protocol error: invalid bulk length"), or empty.
    /// No-throw.
    std::string_view error() const noexcept { return error_; }

    /// True when no partial request is buffered (all fed bytes formed whole commands).
    /// No-throw.
    bool idle() const noexcept { return state_ == state::idle; }

    /// Approximate heap bytes held for the request being assembled (capacities of the argv
    /// vector, its strings and the line buffer); queued complete commands are not counted.
    /// Lets a server enforce its own query-buffer limit. O(argc). No-throw.
    std::size_t pending_bytes() const noexcept {
        std::size_t n = line_.capacity() + argv_.capacity() * sizeof(std::string);
        for (const std::string& a : argv_) {
            n += a.capacity();
        }
        return n;
    }

    /// Whether the client is authenticated. When false, Redis >= 7.0 limits requests to 10
    /// arguments of at most 16384 bytes (servers with requirepass/ACL users). Default true.
    void set_authenticated(bool authenticated) noexcept { authenticated_ = authenticated; }

    /// Discards buffered input, queued commands and any error. No-throw.
    void reset() noexcept {
        state_ = state::idle;
        ready_.clear();
        argv_.clear();
        line_.clear();
        error_.clear();
        line_len_ = 0;
        line_has_nul_ = false;
        line_has_cr_ = false;
        args_left_ = 0;
        bytes_left_ = 0;
    }

private:
    enum class state : unsigned char {
        idle,             ///< at a request boundary
        multibulk_count,  ///< reading "*N\r?"
        bulk_count,       ///< reading "$len\r?"
        bulk_data,        ///< copying payload bytes
        bulk_trailer,     ///< skipping the 2 bytes after a payload
        inline_line,      ///< reading an inline line up to '\n'
    };

    static constexpr std::size_t count_line_keep = 32;      ///< bytes of a count line kept
    static constexpr std::size_t max_bulk_reserve = 65536;  ///< up-front reservation cap
    static constexpr std::size_t max_argv_reserve = 1024;   ///< Redis's argv_len cap
    static constexpr std::size_t unauth_max_args = 10;
    static constexpr std::size_t unauth_max_bulk = 16384;

    void fail(std::string_view text) {
        error_.assign(text.data(), text.size());
        argv_.clear();
        line_.clear();
    }

    void start_line(state s) {
        state_ = s;
        line_.clear();
        line_len_ = 0;
        line_has_nul_ = false;
        line_has_cr_ = false;
    }

    void begin_request(char first) {
        argv_.clear();
        start_line(first == '*' ? state::multibulk_count : state::inline_line);
    }

    void finish_command() {
        ready_.push_back(std::move(argv_));
        argv_ = command();
        state_ = state::idle;
    }

    // Count lines ("*N" / "$len"): Redis finds the first '\r' (strchr, so a NUL hides it), then
    // waits for one more byte, whatever it is, before parsing.
    const char* scan_count_line(const char* p, const char* end) {
        while (p != end) {
            const char c = *p++;
            if (line_has_cr_) {
                return finish_count_line(p);
            }
            if (c == '\r' && !line_has_nul_) {
                line_has_cr_ = true;
                continue;
            }
            line_has_nul_ = line_has_nul_ || c == '\0';
            if (line_.size() < count_line_keep) {
                line_ += c;
            }
            if (++line_len_ > limits_.max_inline_len) {
                fail(state_ == state::multibulk_count ? errors::proto_mbulk_count_too_big
                                                      : errors::proto_bulk_count_too_big);
                return end;
            }
        }
        return p;
    }

    const char* finish_count_line(const char* p) {
        // line_ holds the first byte ('*', or what should be '$') and the digits; only the
        // first 32 bytes are kept, and a longer line cannot be a valid number anyway. A bulk
        // header line that starts with its own '\r' is empty here.
        const char first = line_.empty() ? '\r' : line_[0];
        const std::string_view digits = (line_.empty() || line_len_ > count_line_keep)
                                            ? std::string_view("-")
                                            : std::string_view(line_).substr(1);
        if (state_ == state::multibulk_count) {
            const std::optional<long long> n = parse_integer(digits);
            if (!n || (*n > 0 && static_cast<unsigned long long>(*n) > limits_.max_multibulk_len)) {
                fail(errors::proto_invalid_mbulk_len);
                return p;
            }
            if (*n <= 0) {
                state_ = state::idle;  // "*0" / "*-1": empty request, nothing to run
                return p;
            }
            const auto count = static_cast<std::size_t>(*n);
            if (!authenticated_ && count > unauth_max_args) {
                fail(errors::proto_unauth_mbulk_len);
                return p;
            }
            args_left_ = count;
            argv_.reserve(std::min(count, max_argv_reserve));
            start_line(state::bulk_count);
            return p;
        }
        if (first != '$') {
            fail(errors::proto_expected_dollar(first));
            return p;
        }
        const std::optional<long long> n = parse_integer(digits);
        if (!n || *n < 0 || static_cast<unsigned long long>(*n) > limits_.max_bulk_len) {
            fail(errors::proto_invalid_bulk_len);
            return p;
        }
        const auto len = static_cast<std::size_t>(*n);
        if (!authenticated_ && len > unauth_max_bulk) {
            fail(errors::proto_unauth_bulk_len);
            return p;
        }
        argv_.emplace_back();
        // Reserve what a typical argument needs, never the whole declared length: memory must
        // follow the bytes actually received.
        argv_.back().reserve(std::min(len, max_bulk_reserve));
        bytes_left_ = len;
        trailer_left_ = 2;
        state_ = len == 0 ? state::bulk_trailer : state::bulk_data;
        return p;
    }

    const char* copy_bulk(const char* p, const char* end) {
        const std::size_t avail = static_cast<std::size_t>(end - p);
        const std::size_t n = std::min(avail, bytes_left_);
        argv_.back().append(p, n);
        bytes_left_ -= n;
        if (bytes_left_ == 0) {
            state_ = state::bulk_trailer;
            trailer_left_ = 2;
        }
        return p + n;
    }

    const char* skip_trailer(const char* p, const char* end) {
        const std::size_t avail = static_cast<std::size_t>(end - p);
        const std::size_t n = std::min(avail, trailer_left_);
        trailer_left_ -= n;
        if (trailer_left_ == 0) {
            if (--args_left_ == 0) {
                finish_command();
            } else {
                start_line(state::bulk_count);
            }
        }
        return p + n;
    }

    // Inline line: Redis finds the first '\n' with strchr, so a NUL hides it.
    const char* scan_inline(const char* p, const char* end) {
        if (line_has_nul_) {
            const std::size_t avail = static_cast<std::size_t>(end - p);
            if (avail > limits_.max_inline_len - line_len_) {
                fail(errors::proto_inline_too_big);
                return end;
            }
            line_len_ += avail;
            return end;
        }
        const std::size_t avail = static_cast<std::size_t>(end - p);
        const void* nl = std::memchr(p, '\n', avail);
        const std::size_t seg =
            nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) : avail;
        const void* nul = std::memchr(p, '\0', seg);
        if (nul != nullptr) {
            // Everything from here on is invisible to Redis's strchr: count bytes only.
            line_has_nul_ = true;
            line_.clear();
            line_.shrink_to_fit();
            if (avail > limits_.max_inline_len - line_len_) {
                fail(errors::proto_inline_too_big);
                return end;
            }
            line_len_ += avail;
            return end;
        }
        if (seg > limits_.max_inline_len - line_len_) {
            fail(errors::proto_inline_too_big);
            return end;
        }
        line_.append(p, seg);
        line_len_ += seg;
        if (nl == nullptr) {
            return end;
        }
        finish_inline();
        return p + seg + 1;
    }

    void finish_inline() {
        std::string_view line = line_;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        command argv{};
        if (!split_inline_args(line, argv)) {
            fail(errors::proto_unbalanced_quotes);
            return;
        }
        line_.clear();
        if (line_.capacity() > max_bulk_reserve) {
            line_.shrink_to_fit();
        }
        if (argv.empty()) {
            state_ = state::idle;  // blank line
            return;
        }
        argv_ = std::move(argv);
        finish_command();
    }

private:
    request_limits limits_;
    state state_ = state::idle;
    bool authenticated_ = true;
    bool line_has_nul_ = false;
    bool line_has_cr_ = false;
    std::size_t line_len_ = 0;      ///< bytes of the current line seen (without terminator)
    std::size_t args_left_ = 0;     ///< bulk arguments still expected
    std::size_t bytes_left_ = 0;    ///< payload bytes still expected
    std::size_t trailer_left_ = 0;  ///< bytes after the payload still to skip
    std::string line_;              ///< current line (count lines: first 32 bytes)
    command argv_;                  ///< command being assembled
    std::deque<command> ready_;     ///< complete commands
    std::string error_;             ///< protocol error text, empty while healthy
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_REQUEST_PARSER_HPP
