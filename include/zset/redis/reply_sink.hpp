// zset::redis::reply_sink — where a command writes its reply.
// SPDX-License-Identifier: MIT
//
// Command handlers write through one interface with two implementations:
//   resp_sink   streams RESP2 / RESP3 bytes into a std::string (what a server sends);
//   tree_sink   builds a zset::redis::reply (what a program embedding the keyspace inspects).
// So the same handler code serves both, and each handler is compiled once.
//
// Contract of a sink, for anyone writing a handler:
//   * a reply is one value: simple / error / integer / bulk / null / null_array / dbl /
//     verbatim, or an aggregate announced with its exact size and followed by exactly that many
//     values: array(n) -> n values, map(pairs) -> 2 * pairs values (key, value, ...),
//     set(n) -> n values. Aggregates nest (EXEC's reply is an array of the queued replies);
//   * proto() is the connection's protocol: RESP2 and RESP3 differ in shape (WITHSCORES pairs are
//     nested arrays in RESP3), which scored_header / scored_element take care of;
//   * mark() / rollback(m) drop everything written since mark() (only used at the outermost
//     level: a command that runs out of memory part-way replies "ERR out of memory" instead).
//
// Thread safety: a sink belongs to one command execution.
#ifndef ZSET_REDIS_REPLY_SINK_HPP
#define ZSET_REDIS_REPLY_SINK_HPP

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "numbers.hpp"
#include "resp.hpp"

namespace zset::redis {

/// The code INFO's error statistics file an error reply under (Redis afterErrorReply): its first
/// word when a space ends it within the first 31 bytes, "ERR" otherwise.
inline std::string_view error_code(std::string_view text) noexcept {
    const std::size_t space = text.substr(0, 31).find(' ');
    return space == std::string_view::npos ? std::string_view("ERR") : text.substr(0, space);
}

/// The interface command handlers write replies to (see the file comment for the contract).
class reply_sink {
public:
    reply_sink(protocol proto, format_style style) noexcept : proto_(proto), style_(style) {}
    reply_sink(const reply_sink&) = delete;
    reply_sink& operator=(const reply_sink&) = delete;
    virtual ~reply_sink() = default;

    /// The protocol replies are shaped for; HELLO switches it for the rest of its own reply.
    protocol proto() const noexcept {
        if (!proto_known_) {
            proto_ = find_protocol();
            proto_known_ = true;
        }
        return proto_;
    }
    void set_proto(protocol p) noexcept {
        proto_ = p;
        proto_known_ = true;
    }
    /// How doubles are written (Redis >= 7.2 shortest, or Redis 7.0 %.17g).
    format_style style() const noexcept { return style_; }

    virtual void simple(std::string_view text) = 0;
    virtual void error(std::string_view text) = 0;
    virtual void integer(long long v) = 0;
    virtual void bulk(std::string_view bytes) = 0;
    virtual void null() = 0;
    virtual void null_array() = 0;
    virtual void dbl(double v) = 0;
    virtual void verbatim(std::string_view text) = 0;
    virtual void array(std::size_t n) = 0;
    virtual void map(std::size_t pairs) = 0;
    virtual void set(std::size_t n) = 0;
    virtual std::size_t mark() const noexcept = 0;
    virtual void rollback(std::size_t m) = 0;

    /// "+OK".
    void ok() { simple("OK"); }
    /// Header of n (member, score) elements: flat pairs in RESP2, nested pairs in RESP3.
    void scored_header(std::size_t n, bool withscores) {
        array(withscores && proto() == protocol::resp2 ? n * 2 : n);
    }
    /// One element after scored_header.
    void scored_element(std::string_view member, double score, bool withscores) {
        if (withscores && proto() == protocol::resp3) array(2);
        bulk(member);
        if (withscores) dbl(score);
    }
    /// A HELP reply: one status line per text line.
    void help(std::initializer_list<std::string_view> lines) {
        array(lines.size());
        for (const std::string_view l : lines) simple(l);
    }

    /// Error replies written so far, and the code of the last one (error_code()): what INFO's
    /// error statistics count. resp_sink and tree_sink keep them; another sink may not.
    std::size_t errors_written() const noexcept { return errors_; }
    std::string_view last_error_code() const noexcept { return {code_, code_len_}; }

protected:
    /// A sink whose protocol is looked up (find_protocol()) only when a reply's shape first
    /// depends on it: most replies (a score, a count, a member) do not, and asking the server
    /// costs a module command more than it costs a connection that knows it.
    struct deferred_protocol {};
    reply_sink(deferred_protocol, format_style style) noexcept
        : proto_(protocol::resp2), style_(style), proto_known_(false) {}
    /// The protocol of a deferred_protocol sink, asked for at most once.
    virtual protocol find_protocol() const noexcept { return protocol::resp2; }

    /// Counts an error reply (call from error()).
    void note_error(std::string_view text) noexcept {
        const std::string_view code = error_code(text);
        ++errors_;
        code_len_ = code.size();
        for (std::size_t i = 0; i < code_len_; ++i) code_[i] = code[i];
    }

private:
    mutable protocol proto_;
    format_style style_;
    mutable bool proto_known_ = true;
    std::size_t errors_ = 0;
    char code_[32] = {};
    std::size_t code_len_ = 0;
};

/// Streams replies as RESP bytes into a caller's std::string.
class resp_sink final : public reply_sink {
public:
    resp_sink(std::string& out, protocol proto, format_style style) noexcept
        : reply_sink(proto, style), out_(out) {}

    void simple(std::string_view t) override { append_simple(out_, t); }
    void error(std::string_view t) override {
        note_error(t);
        append_error(out_, t);
    }
    void integer(long long v) override { append_integer(out_, v); }
    void bulk(std::string_view b) override { append_bulk(out_, b); }
    void null() override { append_null(out_, proto()); }
    void null_array() override { append_null_array(out_, proto()); }
    void dbl(double v) override { append_double(out_, v, proto(), style()); }
    void verbatim(std::string_view t) override { append_verbatim(out_, t, proto()); }
    void array(std::size_t n) override { append_array_header(out_, n); }
    void map(std::size_t pairs) override { append_map_header(out_, pairs, proto()); }
    void set(std::size_t n) override { append_set_header(out_, n, proto()); }
    std::size_t mark() const noexcept override { return out_.size(); }
    void rollback(std::size_t m) override { out_.resize(m); }

private:
    std::string& out_;
};

/// Builds a zset::redis::reply tree; aggregates are announced with their size, then filled.
class tree_sink final : public reply_sink {
public:
    using reply_sink::reply_sink;

    void simple(std::string_view t) override { put(reply::simple(std::string(t))); }
    void error(std::string_view t) override {
        note_error(t);
        put(reply::error(std::string(t)));
    }
    void integer(long long v) override { put(reply::integer(v)); }
    void bulk(std::string_view b) override { put(reply::bulk(std::string(b))); }
    void null() override { put(reply::null()); }
    void null_array() override { put(reply::null_array()); }
    void dbl(double v) override { put(reply::dbl(v)); }
    void verbatim(std::string_view t) override { put(reply::verbatim(std::string(t))); }
    void array(std::size_t n) override { open(reply::array(std::vector<reply>()), n); }
    void map(std::size_t pairs) override { open(reply::map(std::vector<reply>()), pairs * 2); }
    void set(std::size_t n) override { open(reply::set(std::vector<reply>()), n); }
    std::size_t mark() const noexcept override { return 0; }
    void rollback(std::size_t) noexcept override {
        root_ = reply();
        stack_.clear();
    }
    /// The finished reply (the sink is empty afterwards).
    reply take() noexcept { return std::move(root_); }

private:
    struct frame {
        reply* node;
        std::size_t left;
    };
    reply* add(reply r) {
        if (stack_.empty()) {
            root_ = std::move(r);
            return &root_;
        }
        frame& f = stack_.back();
        f.node->elements().push_back(std::move(r));
        --f.left;
        return &f.node->elements().back();
    }
    void settle() noexcept {
        while (!stack_.empty() && stack_.back().left == 0) stack_.pop_back();
    }
    void put(reply r) {
        add(std::move(r));
        settle();
    }
    void open(reply r, std::size_t n) {
        reply* node = add(std::move(r));
        if (n == 0) return settle();
        // The exact size is reserved, so children never move while they are being filled.
        node->elements().reserve(n);
        stack_.push_back(frame{node, n});
    }

    reply root_;
    std::vector<frame> stack_;
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_REPLY_SINK_HPP
