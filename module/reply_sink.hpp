// zset module — a zset::redis::reply_sink that replies through the module API, so the Redis
// layer's handlers answer a module command's client directly.
// SPDX-License-Identifier: MIT
//
// Doubles are byte-identical to a native key's: to a RESP3 client they go out through
// RedisModule_ReplyWithDouble (the server writes its double type); to a RESP2 client Redis sends
// a bulk string of the server version's text (%.17g before 7.2, the shortest round trip from
// 7.2), which the Redis layer's format_double_chars writes as the zset server writes it, without
// the server's printf (a cost visible in a native ZSCORE's profile).
// A reply that needs no double never asks for the client's protocol (reply_sink's
// deferred_protocol). Errors carry their code ("ERR ...", "WRONGTYPE ..."), as the Redis
// layer's texts do.
//
// mark() / rollback() cannot take back what was sent to the server; the keyspace's dispatch
// is their only user and the module does not call them (a failing allocation ends Redis, as it
// does for Redis's own types).
#ifndef ZSET_MODULE_REPLY_SINK_HPP
#define ZSET_MODULE_REPLY_SINK_HPP

#include <cstddef>
#include <string>
#include <string_view>

#include "redis_module_api.hpp"
#include <zset/redis/numbers.hpp>
#include <zset/redis/reply_sink.hpp>

namespace zset::module {

class module_sink final : public zset::redis::reply_sink {
public:
    /// The calling client's protocol is asked of the server only if a reply's shape needs it.
    module_sink(rmapi::Ctx* ctx, zset::redis::format_style style)
        : reply_sink(deferred_protocol{}, style), ctx_(ctx) {}

    void simple(std::string_view t) override {
        rmapi::ReplyWithSimpleString(ctx_, std::string(t).c_str());
        ++written_;
    }
    void error(std::string_view t) override {
        rmapi::ReplyWithError(ctx_, std::string(t).c_str());
        ++written_;
    }
    void integer(long long v) override {
        rmapi::ReplyWithLongLong(ctx_, v);
        ++written_;
    }
    void bulk(std::string_view b) override {
        rmapi::ReplyWithStringBuffer(ctx_, b.data(), b.size());
        ++written_;
    }
    void null() override {
        rmapi::ReplyWithNull(ctx_);
        ++written_;
    }
    void null_array() override {
        rmapi::ReplyWithNullArray(ctx_);
        ++written_;
    }
    void dbl(double v) override {
        if (proto() == zset::redis::protocol::resp2) {
            const zset::redis::double_chars text = zset::redis::format_double_chars(v, style());
            rmapi::ReplyWithStringBuffer(ctx_, text.data, text.size);
        } else {
            rmapi::ReplyWithDouble(ctx_, v);
        }
        ++written_;
    }
    void verbatim(std::string_view t) override {
        rmapi::ReplyWithVerbatimString(ctx_, t.data(), t.size());
        ++written_;
    }
    void array(std::size_t n) override {
        rmapi::ReplyWithArray(ctx_, static_cast<long>(n));
        ++written_;
    }
    void map(std::size_t pairs) override {
        rmapi::ReplyWithMap(ctx_, static_cast<long>(pairs));
        ++written_;
    }
    void set(std::size_t n) override {
        rmapi::ReplyWithSet(ctx_, static_cast<long>(n));
        ++written_;
    }
    std::size_t mark() const noexcept override { return written_; }
    void rollback(std::size_t) override {}

    /// Whether anything has been replied (a command that fails before replying still owes one).
    bool replied() const noexcept { return written_ > 0; }

private:
    zset::redis::protocol find_protocol() const noexcept override {
        const bool resp3 = (rmapi::GetContextFlags(ctx_) & rmapi::CTX_FLAGS_RESP3) != 0;
        return resp3 ? zset::redis::protocol::resp3 : zset::redis::protocol::resp2;
    }

    rmapi::Ctx* ctx_;
    std::size_t written_ = 0;
};

}  // namespace zset::module

#endif  // ZSET_MODULE_REPLY_SINK_HPP
