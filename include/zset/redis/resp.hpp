// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// RESP (REdis Serialization Protocol) for the optional Redis command layer:
//  - `reply`, a typed reply value, and encoders for RESP2 and RESP3;
//  - `append_*` functions that write one reply element straight into an output buffer, for
//    command code that streams large replies without building a `reply` tree;
//  - `request_parser`, an incremental server-side parser for client requests (multibulk and
//    inline), with Redis's limits and protocol error texts.
// Behaviour was checked against redis-server 7.0.15 (see tests/test_redis_protocol.cpp).
#ifndef ZSET_REDIS_RESP_HPP
#define ZSET_REDIS_RESP_HPP

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zset/redis/numbers.hpp>

namespace zset::redis {

/// Wire protocol version chosen by the client (HELLO 2 / HELLO 3).
enum class protocol : unsigned char { resp2 = 2, resp3 = 3 };

// ---------------------------------------------------------------------------------------------
// Streaming writers
// ---------------------------------------------------------------------------------------------

namespace detail {

/// Appends `text` with CR and LF replaced by spaces: a status or error line must not break the
/// framing (Redis does the same for errors that embed user input).
inline void append_line_safe(std::string& out, std::string_view text) {
    const std::size_t start = out.size();
    out.append(text.data(), text.size());
    for (std::size_t i = start; i < out.size(); ++i) {
        if (out[i] == '\r' || out[i] == '\n') {
            out[i] = ' ';
        }
    }
}

/// Appends `prefix`, the decimal value and CRLF (":12\r\n", "*3\r\n", "$-1\r\n").
inline void append_prefixed_number(std::string& out, char prefix, long long value) {
    char buf[24];
    buf[0] = prefix;
    const auto r = std::to_chars(buf + 1, buf + sizeof buf - 2, value);
    char* p = r.ptr;
    *p++ = '\r';
    *p++ = '\n';
    out.append(buf, static_cast<std::size_t>(p - buf));
}

/// Same as append_prefixed_number for a size (reply lengths never exceed LLONG_MAX).
inline void append_prefixed_size(std::string& out, char prefix, std::size_t value) {
    char buf[32];
    buf[0] = prefix;
    const auto r = std::to_chars(buf + 1, buf + sizeof buf - 2, value);
    char* p = r.ptr;
    *p++ = '\r';
    *p++ = '\n';
    out.append(buf, static_cast<std::size_t>(p - buf));
}

}  // namespace detail

/// Appends a simple string "+text\r\n" (CR/LF in `text` become spaces). Redis addReplyStatus.
/// Complexity O(|text|). Strong guarantee (may throw std::bad_alloc).
inline void append_simple(std::string& out, std::string_view text) {
    out += '+';
    detail::append_line_safe(out, text);
    out += "\r\n";
}

/// Appends an error "-text\r\n". `text` is the whole message including its code, e.g.
/// err_syntax ("ERR syntax error"); CR/LF become spaces, and an empty text becomes "ERR" as
/// Redis would prefix it. Redis addReplyError. Complexity O(|text|). Strong guarantee.
inline void append_error(std::string& out, std::string_view text) {
    out += '-';
    detail::append_line_safe(out, text.empty() ? std::string_view("ERR") : text);
    out += "\r\n";
}

/// Appends an integer ":n\r\n". Redis addReplyLongLong. O(1). Strong guarantee.
inline void append_integer(std::string& out, long long value) {
    detail::append_prefixed_number(out, ':', value);
}

/// Appends a binary-safe bulk string "$len\r\n<bytes>\r\n". Redis addReplyBulk.
/// Complexity O(|bytes|). Strong guarantee (may throw std::bad_alloc).
inline void append_bulk(std::string& out, std::string_view bytes) {
    detail::append_prefixed_size(out, '$', bytes.size());
    out.append(bytes.data(), bytes.size());
    out += "\r\n";
}

/// Appends a null: RESP2 null bulk "$-1\r\n", RESP3 "_\r\n" (ZSCORE of a missing member,
/// ZRANK of a missing member, ZADD INCR that was blocked). Redis addReplyNull. O(1).
inline void append_null(std::string& out, protocol proto) {
    out += proto == protocol::resp3 ? "_\r\n" : "$-1\r\n";
}

/// Appends a null array: RESP2 "*-1\r\n", RESP3 "_\r\n" (ZMPOP / BZPOPMIN / BZMPOP with nothing
/// to pop). Redis addReplyNullArray. O(1). Strong guarantee.
inline void append_null_array(std::string& out, protocol proto) {
    out += proto == protocol::resp3 ? "_\r\n" : "*-1\r\n";
}

/// Appends a double: RESP3 ",text\r\n"; RESP2 a bulk string of the same text. The text is
/// format_double(value, style): `shortest` for Redis >= 7.2, `percent17g` for Redis <= 7.0.
/// Redis addReplyDouble. O(1). Strong guarantee (may throw std::bad_alloc).
inline void append_double(std::string& out, double value, protocol proto,
                          format_style style = format_style::shortest) {
    const double_chars text = format_double_chars(value, style);
    if (proto == protocol::resp3) {
        out += ',';
        out.append(text.data, text.size);
        out += "\r\n";
    } else {
        append_bulk(out, text.view());
    }
}

/// Appends a boolean: RESP3 "#t\r\n" / "#f\r\n"; RESP2 the integer 1 / 0 (Redis addReplyBool).
/// O(1). Strong guarantee.
inline void append_boolean(std::string& out, bool value, protocol proto) {
    if (proto == protocol::resp3) {
        out += value ? "#t\r\n" : "#f\r\n";
    } else {
        out += value ? ":1\r\n" : ":0\r\n";
    }
}

/// Appends an array header "*n\r\n"; the caller then appends the n elements.
/// Redis addReplyArrayLen. O(1). Strong guarantee.
inline void append_array_header(std::string& out, std::size_t count) {
    detail::append_prefixed_size(out, '*', count);
}

/// Appends a map header: RESP3 "%pairs\r\n"; RESP2 a flat array "*<2*pairs>\r\n". The caller
/// then appends key, value, key, value... Redis addReplyMapLen. O(1). Strong guarantee.
inline void append_map_header(std::string& out, std::size_t pairs, protocol proto) {
    if (proto == protocol::resp3) {
        detail::append_prefixed_size(out, '%', pairs);
    } else {
        detail::append_prefixed_size(out, '*', pairs * 2);
    }
}

// ---------------------------------------------------------------------------------------------
// Typed reply
// ---------------------------------------------------------------------------------------------

/// A reply value as a command produces it, independent of the protocol version it is sent in.
/// A small tree: arrays and maps own their elements. Build with the named factories, e.g.
/// `reply::array({reply::bulk("a"), reply::dbl(1.5)})`; encode with encode_resp2/encode_resp3.
class reply {
public:
    /// What a reply is. RESP2 has no map, double, boolean or distinct null types; the encoders
    /// map those to what Redis sends a RESP2 client.
    enum class kind : unsigned char {
        simple,      ///< status line, "+OK"
        error,       ///< error line, "-ERR ..."
        integer,     ///< ":n"
        bulk,        ///< binary-safe string
        null,        ///< missing value (RESP2 "$-1")
        dbl,         ///< double (RESP3 ","; RESP2 bulk string)
        boolean,     ///< RESP3 "#t"/"#f"; RESP2 ":1"/":0"
        array,       ///< "*n" + elements
        map,         ///< RESP3 "%n" + key/value pairs; RESP2 flat array
        null_array,  ///< missing array (RESP2 "*-1")
    };

    /// A null reply (same as reply::null()). No-throw.
    reply() noexcept = default;

    /// "+text". Strong guarantee (may throw std::bad_alloc).
    static reply simple(std::string text) { return reply(kind::simple, std::move(text)); }
    /// "-text"; `text` includes the error code ("ERR syntax error"). Strong guarantee.
    static reply error(std::string text) { return reply(kind::error, std::move(text)); }
    /// ":n". No-throw.
    static reply integer(long long n) noexcept {
        reply r;
        r.kind_ = kind::integer;
        r.integer_ = n;
        return r;
    }
    /// Bulk string with arbitrary bytes. Strong guarantee.
    static reply bulk(std::string bytes) { return reply(kind::bulk, std::move(bytes)); }
    /// Null bulk / RESP3 null. No-throw.
    static reply null() noexcept { return reply(); }
    /// Null array / RESP3 null. No-throw.
    static reply null_array() noexcept {
        reply r;
        r.kind_ = kind::null_array;
        return r;
    }
    /// Double, formatted at encoding time with the encoder's format_style. No-throw.
    static reply dbl(double value) noexcept {
        reply r;
        r.kind_ = kind::dbl;
        r.double_ = value;
        return r;
    }
    /// Boolean. No-throw.
    static reply boolean(bool value) noexcept {
        reply r;
        r.kind_ = kind::boolean;
        r.integer_ = value ? 1 : 0;
        return r;
    }
    /// Array of `elements` (moved in). No-throw.
    static reply array(std::vector<reply> elements) noexcept {
        return reply(kind::array, std::move(elements));
    }
    /// Array from a brace list (elements are copied). Strong guarantee.
    static reply array(std::initializer_list<reply> elements) {
        return reply(kind::array, std::vector<reply>(elements));
    }
    /// Map from a flat key, value, key, value... list (size must be even; an odd trailing key is
    /// dropped). No-throw.
    static reply map(std::vector<reply> flat_pairs) noexcept {
        if (flat_pairs.size() % 2 != 0) {
            flat_pairs.pop_back();
        }
        return reply(kind::map, std::move(flat_pairs));
    }

    /// The reply's kind. No-throw.
    kind type() const noexcept { return kind_; }
    /// Text of a simple, error or bulk reply (empty for other kinds). No-throw.
    const std::string& text() const noexcept { return text_; }
    /// Value of an integer reply (1/0 for a boolean, 0 for other kinds). No-throw.
    long long as_integer() const noexcept { return integer_; }
    /// Value of a double reply (0 for other kinds). No-throw.
    double as_double() const noexcept { return double_; }
    /// Value of a boolean reply. No-throw.
    bool as_bool() const noexcept { return integer_ != 0; }
    /// Elements of an array, or the flat key/value list of a map (empty for other kinds).
    const std::vector<reply>& elements() const noexcept { return elements_; }
    /// Mutable elements, to build an array incrementally (push_back on an array reply).
    std::vector<reply>& elements() noexcept { return elements_; }

    /// Structural equality. Doubles compare by value except that NaN equals NaN and 0 differs
    /// from -0 (they are sent differently), so tests can compare replies exactly. O(size).
    friend bool operator==(const reply& a, const reply& b) noexcept {
        if (a.kind_ != b.kind_ || a.integer_ != b.integer_ || a.text_ != b.text_) {
            return false;
        }
        if (a.kind_ == kind::dbl) {
            const bool a_nan = a.double_ != a.double_;
            const bool b_nan = b.double_ != b.double_;
            if (a_nan || b_nan) {
                return a_nan && b_nan;
            }
            if (a.double_ != b.double_ || std::signbit(a.double_) != std::signbit(b.double_)) {
                return false;
            }
        }
        return a.elements_ == b.elements_;
    }
    /// Negation of operator==.
    friend bool operator!=(const reply& a, const reply& b) noexcept { return !(a == b); }

private:
    reply(kind k, std::string text) noexcept : kind_(k), text_(std::move(text)) {}
    reply(kind k, std::vector<reply> elements) noexcept
        : kind_(k), elements_(std::move(elements)) {}

    kind kind_ = kind::null;
    long long integer_ = 0;
    double double_ = 0.0;
    std::string text_;
    std::vector<reply> elements_;
};

namespace detail {

/// Encodes one node (aggregates: only their header).
inline void encode_node(const reply& r, std::string& out, protocol proto, format_style style) {
    switch (r.type()) {
    case reply::kind::simple:
        append_simple(out, r.text());
        break;
    case reply::kind::error:
        append_error(out, r.text());
        break;
    case reply::kind::integer:
        append_integer(out, r.as_integer());
        break;
    case reply::kind::bulk:
        append_bulk(out, r.text());
        break;
    case reply::kind::null:
        append_null(out, proto);
        break;
    case reply::kind::dbl:
        append_double(out, r.as_double(), proto, style);
        break;
    case reply::kind::boolean:
        append_boolean(out, r.as_bool(), proto);
        break;
    case reply::kind::array:
        append_array_header(out, r.elements().size());
        break;
    case reply::kind::map:
        append_map_header(out, r.elements().size() / 2, proto);
        break;
    case reply::kind::null_array:
        append_null_array(out, proto);
        break;
    }
}

/// Depth-first encoding with an explicit stack, so a deeply nested reply cannot overflow the
/// call stack.
inline void encode(const reply& root, std::string& out, protocol proto, format_style style) {
    struct frame {
        const reply* node;
        std::size_t next;
    };
    std::vector<frame> stack;
    encode_node(root, out, proto, style);
    if (!root.elements().empty()) {
        stack.push_back(frame{&root, 0});
    }
    while (!stack.empty()) {
        frame& top = stack.back();
        if (top.next == top.node->elements().size()) {
            stack.pop_back();
            continue;
        }
        const reply& child = top.node->elements()[top.next++];
        encode_node(child, out, proto, style);
        if (!child.elements().empty()) {
            stack.push_back(frame{&child, 0});  // `top` is not used after this point
        }
    }
}

}  // namespace detail

/// Appends the RESP2 encoding of `r` to `out`: doubles as bulk strings (formatted with `style`),
/// maps as flat arrays, booleans as integers, null as "$-1", null_array as "*-1".
/// Complexity O(size of the encoding). Basic guarantee: on std::bad_alloc `out` may hold a
/// partial encoding.
inline void encode_resp2(const reply& r, std::string& out,
                         format_style style = format_style::shortest) {
    detail::encode(r, out, protocol::resp2, style);
}

/// Appends the RESP3 encoding of `r` to `out`: ",<double>", "%" maps, "#t"/"#f", "_" nulls.
/// Complexity O(size of the encoding). Basic guarantee (see encode_resp2).
inline void encode_resp3(const reply& r, std::string& out,
                         format_style style = format_style::shortest) {
    detail::encode(r, out, protocol::resp3, style);
}

/// Appends the encoding of `r` in protocol `proto`. Basic guarantee (see encode_resp2).
inline void encode(const reply& r, protocol proto, std::string& out,
                   format_style style = format_style::shortest) {
    detail::encode(r, out, proto, style);
}

// ---------------------------------------------------------------------------------------------
// Request parser
// ---------------------------------------------------------------------------------------------

/// Protocol error texts the request parser produces (Redis networking.c, verified on 7.0.15).
/// After any of them Redis replies with the error and closes the connection.
inline constexpr std::string_view err_proto_inline_too_big =
    "ERR Protocol error: too big inline request";
/// An inline request with an unterminated quote, or a closing quote not followed by a space.
inline constexpr std::string_view err_proto_unbalanced_quotes =
    "ERR Protocol error: unbalanced quotes in request";
/// A "*<count>" line longer than the inline limit.
inline constexpr std::string_view err_proto_mbulk_count_too_big =
    "ERR Protocol error: too big mbulk count string";
/// A "*<count>" that is not an integer or exceeds the multibulk limit.
inline constexpr std::string_view err_proto_invalid_mbulk_len =
    "ERR Protocol error: invalid multibulk length";
/// A "$<len>" line longer than the inline limit.
inline constexpr std::string_view err_proto_bulk_count_too_big =
    "ERR Protocol error: too big bulk count string";
/// A "$<len>" that is not an integer, is negative or exceeds proto-max-bulk-len.
inline constexpr std::string_view err_proto_invalid_bulk_len =
    "ERR Protocol error: invalid bulk length";
/// Redis >= 7.0 when authentication is required but missing: more than 10 arguments.
inline constexpr std::string_view err_proto_unauth_mbulk_len =
    "ERR Protocol error: unauthenticated multibulk length";
/// Redis >= 7.0 when authentication is required but missing: an argument over 16384 bytes.
inline constexpr std::string_view err_proto_unauth_bulk_len =
    "ERR Protocol error: unauthenticated bulk length";

/// Builds "ERR Protocol error: expected '$', got '<c>'" (CR and LF shown as a space, as the
/// Redis reply sanitiser does). Strong guarantee (may throw std::bad_alloc).
inline std::string err_proto_expected_dollar(char got) {
    std::string out = "ERR Protocol error: expected '$', got '";
    out += (got == '\r' || got == '\n') ? ' ' : got;
    out += '\'';
    return out;
}

namespace detail {

constexpr bool is_hex_digit(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

constexpr int hex_digit_value(char c) noexcept {
    return c <= '9' ? c - '0' : (c >= 'a' ? c - 'a' + 10 : c - 'A' + 10);
}

}  // namespace detail

/// Splits an inline request line into arguments exactly like Redis's sdssplitargs: blanks
/// (C isspace) separate arguments, but an unquoted argument ends only at ' ', '\t', '\r' or
/// '\n' (so "a\vb" is one argument); "double quotes" understand \n \r \t \b \a, \xHH and
/// \<any char>; 'single quotes' understand only \'; a quote may start mid-argument (a"b c" is
/// "ab c"), but a closing quote must be followed by a blank or the end. `line` must not
/// contain NUL bytes or the final "\n" (request_parser guarantees both). Replaces the contents
/// of `argv`; returns false on unbalanced quotes (err_proto_unbalanced_quotes).
/// Complexity O(|line|). Basic guarantee (may throw std::bad_alloc).
inline bool split_inline_args(std::string_view line, std::vector<std::string>& argv) {
    argv.clear();
    const std::size_t n = line.size();
    // Reading past the end yields '\0', the terminator Redis's C string has there.
    auto at = [line, n](std::size_t i) { return i < n ? line[i] : '\0'; };
    std::size_t i = 0;
    for (;;) {
        while (i < n && detail::is_c_space(line[i])) {
            ++i;
        }
        if (i == n) {
            return true;
        }
        std::string token;
        bool in_double = false;
        bool in_single = false;
        bool done = false;
        while (!done) {
            const char c = at(i);
            if (in_double) {
                if (c == '\\' && at(i + 1) == 'x' && detail::is_hex_digit(at(i + 2)) &&
                    detail::is_hex_digit(at(i + 3))) {
                    token += static_cast<char>(detail::hex_digit_value(at(i + 2)) * 16 +
                                               detail::hex_digit_value(at(i + 3)));
                    i += 3;
                } else if (c == '\\' && at(i + 1) != '\0') {
                    ++i;
                    switch (line[i]) {
                    case 'n':
                        token += '\n';
                        break;
                    case 'r':
                        token += '\r';
                        break;
                    case 't':
                        token += '\t';
                        break;
                    case 'b':
                        token += '\b';
                        break;
                    case 'a':
                        token += '\a';
                        break;
                    default:
                        token += line[i];
                        break;
                    }
                } else if (c == '"') {
                    if (at(i + 1) != '\0' && !detail::is_c_space(at(i + 1))) {
                        return false;  // closing quote glued to more text
                    }
                    done = true;
                } else if (c == '\0') {
                    return false;  // unterminated
                } else {
                    token += c;
                }
            } else if (in_single) {
                if (c == '\\' && at(i + 1) == '\'') {
                    ++i;
                    token += '\'';
                } else if (c == '\'') {
                    if (at(i + 1) != '\0' && !detail::is_c_space(at(i + 1))) {
                        return false;
                    }
                    done = true;
                } else if (c == '\0') {
                    return false;
                } else {
                    token += c;
                }
            } else {
                switch (c) {
                case ' ':
                case '\n':
                case '\r':
                case '\t':
                case '\0':
                    done = true;
                    break;
                case '"':
                    in_double = true;
                    break;
                case '\'':
                    in_single = true;
                    break;
                default:
                    token += c;
                    break;
                }
            }
            if (i < n) {
                ++i;
            }
        }
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
    explicit request_parser(request_limits limits = {}) noexcept : limits_(limits) {}

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
                fail(state_ == state::multibulk_count ? err_proto_mbulk_count_too_big
                                                      : err_proto_bulk_count_too_big);
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
                fail(err_proto_invalid_mbulk_len);
                return p;
            }
            if (*n <= 0) {
                state_ = state::idle;  // "*0" / "*-1": empty request, nothing to run
                return p;
            }
            const auto count = static_cast<std::size_t>(*n);
            if (!authenticated_ && count > unauth_max_args) {
                fail(err_proto_unauth_mbulk_len);
                return p;
            }
            args_left_ = count;
            argv_.reserve(std::min(count, max_argv_reserve));
            start_line(state::bulk_count);
            return p;
        }
        if (first != '$') {
            fail(err_proto_expected_dollar(first));
            return p;
        }
        const std::optional<long long> n = parse_integer(digits);
        if (!n || *n < 0 || static_cast<unsigned long long>(*n) > limits_.max_bulk_len) {
            fail(err_proto_invalid_bulk_len);
            return p;
        }
        const auto len = static_cast<std::size_t>(*n);
        if (!authenticated_ && len > unauth_max_bulk) {
            fail(err_proto_unauth_bulk_len);
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
                fail(err_proto_inline_too_big);
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
                fail(err_proto_inline_too_big);
                return end;
            }
            line_len_ += avail;
            return end;
        }
        if (seg > limits_.max_inline_len - line_len_) {
            fail(err_proto_inline_too_big);
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
        command argv;
        if (!split_inline_args(line, argv)) {
            fail(err_proto_unbalanced_quotes);
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

#endif  // ZSET_REDIS_RESP_HPP
