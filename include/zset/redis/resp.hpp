// zset::redis — RESP2 / RESP3 replies: streaming writers, a typed reply and its encoders.
// SPDX-License-Identifier: MIT
//
//  - `append_*` functions write one reply element straight into an output buffer, for command
//    code that streams large replies without building a tree;
//  - `reply` is a typed reply value (a small tree), encoded with encode_resp2 / encode_resp3.
// The request side (parsing what clients send) is <zset/redis/request_parser.hpp>.
// Behaviour was checked against redis-server 7.0.15 (see tests/redis/test_protocol.cpp).
//
// Thread safety: a reply is a value (concurrent const use is safe); writers are pure functions
// over the caller's buffer.
#ifndef ZSET_REDIS_RESP_HPP
#define ZSET_REDIS_RESP_HPP

#include <charconv>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "numbers.hpp"

namespace zset::redis {

/// Wire protocol version chosen by the client (HELLO 2 / HELLO 3).
enum class protocol : unsigned char { resp2 = 2, resp3 = 3 };

// ---------------------------------------------------------------------------------------------
// Streaming writers
// ---------------------------------------------------------------------------------------------

namespace detail {

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
inline void append_integer(std::string& out, long long v) {
    detail::append_prefixed_number(out, ':', v);
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
/// format_double(v, style): `shortest` for Redis >= 7.2, `percent17g` for Redis <= 7.0.
/// Redis addReplyDouble. O(1). Strong guarantee (may throw std::bad_alloc).
inline void append_double(std::string& out, double v, protocol proto,
                          format_style style = format_style::shortest) {
    const double_chars text = format_double_chars(v, style);
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
inline void append_boolean(std::string& out, bool v, protocol proto) {
    if (proto == protocol::resp3) {
        out += v ? "#t\r\n" : "#f\r\n";
    } else {
        out += v ? ":1\r\n" : ":0\r\n";
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

/// Appends a set header: RESP3 "~count\r\n"; RESP2 an array "*count\r\n" (SMEMBERS).
/// Redis addReplySetLen. O(1). Strong guarantee.
inline void append_set_header(std::string& out, std::size_t count, protocol proto) {
    detail::append_prefixed_size(out, proto == protocol::resp3 ? '~' : '*', count);
}

/// Appends a verbatim text (INFO, CLIENT LIST): RESP3 "=<len+4>\r\ntxt:<text>\r\n"; RESP2 a
/// bulk string. Redis addReplyVerbatim(..., "txt"). O(|text|). Strong guarantee.
inline void append_verbatim(std::string& out, std::string_view text, protocol proto) {
    if (proto != protocol::resp3) return append_bulk(out, text);
    detail::append_prefixed_size(out, '=', text.size() + 4);
    out += "txt:";
    out.append(text.data(), text.size());
    out += "\r\n";
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
        set,         ///< RESP3 "~n" + elements; RESP2 array
        verbatim,    ///< RESP3 "=" text of format txt; RESP2 bulk string
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
    static reply dbl(double v) noexcept {
        reply r;
        r.kind_ = kind::dbl;
        r.double_ = v;
        return r;
    }
    /// Boolean. No-throw.
    static reply boolean(bool v) noexcept {
        reply r;
        r.kind_ = kind::boolean;
        r.integer_ = v ? 1 : 0;
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
    /// Set (RESP3 "~") of `elements` (moved in). No-throw.
    static reply set(std::vector<reply> elements) noexcept {
        return reply(kind::set, std::move(elements));
    }
    /// Verbatim text (RESP3 "=...txt:"; a bulk string in RESP2). Strong guarantee.
    static reply verbatim(std::string text) { return reply(kind::verbatim, std::move(text)); }
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
    /// Text of a simple, error, bulk or verbatim reply (empty for other kinds). No-throw.
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
    case reply::kind::set:
        append_set_header(out, r.elements().size(), proto);
        break;
    case reply::kind::verbatim:
        append_verbatim(out, r.text(), proto);
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

}  // namespace zset::redis

#endif  // ZSET_REDIS_RESP_HPP
