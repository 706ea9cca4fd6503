// zset module — a zset::redis::reply_sink that replies through the module API, so the Redis
// layer's handlers answer a module command's client directly.
// SPDX-License-Identifier: MIT
//
// Doubles go out through RedisModule_ReplyWithDouble: the server formats them as it formats its
// own sorted sets' scores (a RESP3 double, or a RESP2 bulk string in the server version's text),
// so a module key's replies are byte-identical to a native key's. Errors carry their code
// ("ERR ...", "WRONGTYPE ..."), as the Redis layer's texts do.
//
// mark() / rollback() cannot take back what was sent to the server; the keyspace's dispatch
// is their only user and the module does not call them (a failing allocation ends Redis, as it
// does for Redis's own types).
#ifndef ZSET_MODULE_MODULE_SINK_HPP
#define ZSET_MODULE_MODULE_SINK_HPP

#include <cstddef>
#include <string>
#include <string_view>

#include "redis_module_api.hpp"
#include <zset/redis/reply_sink.hpp>

namespace zset::module {

class module_sink final : public zset::redis::reply_sink {
public:
    module_sink(rmapi::Ctx* ctx, zset::redis::protocol proto, zset::redis::format_style style)
        : reply_sink(proto, style), ctx_(ctx) {}

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
        rmapi::ReplyWithDouble(ctx_, v);
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
    rmapi::Ctx* ctx_;
    std::size_t written_ = 0;
};

}  // namespace zset::module

#endif  // ZSET_MODULE_MODULE_SINK_HPP
