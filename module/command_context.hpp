// zset module — the context a sorted-set handler runs in when Redis calls a module command: the
// same members as the keyspace's `command` (include/zset/redis/command.hpp lists them), over
// keys opened through the module API.
// SPDX-License-Identifier: MIT
//
// Keys: a key holding this module's type is a sorted set; an empty key is missing; any other
// type is WRONGTYPE, but for set-operation inputs, where Redis's own sorted sets and sets are
// read as Redis reads them (each set member weighing 1). Keys are opened once per command (for
// writing when the command writes) and closed when the context ends.
//
// What a command changed decides what is propagated to replicas and the AOF (module_commands
// .hpp): changed() after the handler. Keyspace events are those Redis sends for its own sorted
// sets ("zadd", "zrem", ..., then "del" when a command empties a key).
#ifndef ZSET_MODULE_COMMAND_CONTEXT_HPP
#define ZSET_MODULE_COMMAND_CONTEXT_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <list>
#include <memory_resource>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dropin_keys.hpp"
#include "redis_module_api.hpp"
#include "state.hpp"
#include "value.hpp"
#include <zset/redis/command.hpp>
#include <zset/redis/errors.hpp>
#include <zset/redis/reply_sink.hpp>
#include <zset/redis/values.hpp>
#include <zset/set_ops.hpp>

namespace zset::module {

class module_command;
using module_spec = zset::redis::basic_command_spec<module_command>;

/// Thrown by find_zset in drop-in mode when a command meets one of Redis's own sorted sets:
/// the command is then run as Redis's own (module_command::forward), before it changed or
/// replied anything.
struct native_key {};

/// What a blocking command asked for when nothing could be popped.
struct block_request {
    std::vector<rmapi::String*> keys;
    long long timeout_ms = 0;
};

class module_command {
public:
    using zset_type = value;
    using setop_input = zset::set_input<value, zset::redis::set_value::members_type>;

    /// Where the command is and what it is: `args` are views of `raw`'s strings; `row` is the
    /// command's row of the Redis layer's table and `shown` the same row named as errors name
    /// the command ("zset.zrank", or "zrank" in drop-in mode); `writes`: the row is a write
    /// command; `ready_key`: the key a blocked client is served from (null otherwise).
    struct call {
        rmapi::Ctx* ctx;
        rmapi::String** raw;
        const std::string_view* args;
        std::size_t argc;
        const module_spec* row;
        const module_spec* shown;
        bool writes;
        rmapi::String* ready_key;
    };

    /// `scratch` holds the context's bookkeeping (open keys, changed keys): a command's
    /// usually fit in the caller's stack buffer, without a heap allocation.
    module_command(const call& k, zset::redis::reply_sink& sink, std::pmr::memory_resource* scratch)
        : argv(k.args), argc(k.argc), spec(k.shown), out(sink), ctx_(k.ctx), raw_(k.raw),
          row_(k.row), writes_(k.writes), ready_(k.ready_key), keys_(scratch), made_(scratch),
          changed_(scratch), sized_(scratch) {
        keys_.reserve(4);  // from the caller's buffer: most commands open one to three keys
        changed_.reserve(4);
    }
    module_command(const module_command&) = delete;
    module_command& operator=(const module_command&) = delete;
    ~module_command() {
        count_elements();
        close_keys();
        for (rmapi::String* s : made_) rmapi::FreeString(ctx_, s);
    }

    const std::string_view* argv;
    std::size_t argc;
    const module_spec* spec;
    zset::redis::reply_sink& out;

    std::string_view operator[](std::size_t i) const noexcept { return argv[i]; }
    bool is(std::size_t i, std::string_view lower_name) const noexcept {
        return zset::detail::ascii_iequals(zset::detail::c_string_prefix(argv[i]), lower_name);
    }
    template <class T>
    bool wrongtype(const zset::redis::typed_value<T>& t) const {
        if (t.wrongtype) out.error(zset::redis::errors::wrongtype);
        return t.wrongtype;
    }

    // ---- the sorted-set context (include/zset/redis/command.hpp) ----------------------------

    /// A module key; in drop-in mode, one of Redis's own sorted sets is read as a copy by
    /// ZRANGESTORE, adopted as a module key by a ZADD / ZINCRBY that would make Redis convert
    /// it (dropin_keys.hpp), and handed to Redis's command by any other command (native_key).
    zset::redis::typed_value<value> find_zset(std::string_view key) {
        zset::redis::typed_value<value> r;
        rmapi::Key* k = open(key);
        const int type = rmapi::KeyType(k);
        if (type == rmapi::KEYTYPE_EMPTY) return r;
        r.present = true;
        if (type == rmapi::KEYTYPE_MODULE && rmapi::ModuleTypeGetType(k) == state().type) {
            r.value = sized(static_cast<value*>(rmapi::ModuleTypeGetValue(k)));
            read_module_key_ = true;
        }
        if (type == rmapi::KEYTYPE_ZSET && state().dropin) {
            if (row_->name == "zrangestore")
                r.value = native_zset(k);
            else if (native_outgrows(k))
                r.value = adopt_native(key, k);
            else
                throw native_key{};
        }
        r.wrongtype = r.value == nullptr;
        return r;
    }
    /// A new module key. (In drop-in mode a ZADD / ZINCRBY whose new key Redis keeps as a
    /// listpack never gets here: runs_natively() hands it to Redis first.)
    value& create_zset(std::string_view key) {
        value* v = new_value(zset_options());
        rmapi::ModuleTypeSetValue(open(key), state().type, v);
        rmapi::SignalKeyAsReady(ctx_, key_string(key));
        return *sized(v);
    }
    /// *STORE: the value and its TTL replaced (the old value is freed by the server). In
    /// drop-in mode with zset.dropin-small-keys `native`, a result that fits Redis's listpack,
    /// read from Redis's own keys only, is Redis's command's to store (native_key): Redis
    /// computes it again and stores it as its own sorted set.
    void store_zset(std::string_view key, value&& v) {
        if (stays_native(v)) throw native_key{};
        forget_sized(open(key));  // the value replaced is freed
        rmapi::ModuleTypeSetValue(open(key), state().type, new_value(std::move(v)));
        rmapi::SignalKeyAsReady(ctx_, key_string(key));
        changed(key, row_->name);
    }
    void remove_key(std::string_view key) {
        rmapi::Key* k = open(key);
        if (rmapi::KeyType(k) == rmapi::KEYTYPE_EMPTY) return;
        if (!is_store()) notify(key, event_name());
        forget_sized(k);  // its value is freed
        rmapi::DeleteKey(k);
        changed(key, "del");
    }
    void key_modified(std::string_view key) { changed(key, event_name()); }
    std::optional<setop_input> setop_input_of(std::string_view key);
    zset::options zset_options() const noexcept { return state().thresholds; }
    std::mt19937_64& rng() noexcept { return state().rng; }
    std::size_t max_random_draws() const noexcept { return state().max_random_draws; }
    const zset::redis::server_rules& rules() const noexcept { return state().rules; }
    long long now_ms() const noexcept { return rmapi::Milliseconds(); }
    bool may_block() const noexcept {
        return ready_ != nullptr ||
               (rmapi::GetContextFlags(ctx_) & rmapi::CTX_FLAGS_DENY_BLOCKING) == 0;
    }
    bool serving_other_than(std::string_view key) const noexcept {
        return ready_ != nullptr && view_of(ready_) != key;
    }
    void block_on(const std::string_view* keys, std::size_t n, long long timeout_ms) {
        block_.emplace();
        for (std::size_t i = 0; i < n; ++i) block_->keys.push_back(key_string(keys[i]));
        block_->timeout_ms = timeout_ms;
    }

    // ---- for the module's own commands (generic_commands.hpp) ----------------------------------

    /// Whether a set this command would store as a module key is Redis's own to store instead
    /// (store_zset: drop-in mode, zset.dropin-small-keys `native`, a set Redis keeps as a
    /// listpack, read from no module key).
    bool stays_native(const value& v) const {
        return small_keys_native() && !read_module_key_ && fits_listpack(v);
    }

    /// Whether the key exists (whatever its type).
    bool key_exists(std::string_view key) {
        return rmapi::KeyType(open(key)) != rmapi::KEYTYPE_EMPTY;
    }
    /// Sets a key's time to live (relative, in milliseconds).
    void set_expire(std::string_view key, long long ttl_ms) { rmapi::SetExpire(open(key), ttl_ms); }
    /// Runs the command as Redis's own (the row's name, the same arguments) and replies its
    /// reply unchanged, in the caller's protocol. `propagate`: the native command is what
    /// replicas and the AOF receive. The keys this context opened are closed first, so Redis's
    /// command sees them as they are.
    void forward(bool propagate);
    /// forward() as the command's row says: a write is propagated as Redis's command.
    void forward() { forward(writes_); }

    // ---- for the module's entry points ------------------------------------------------------

    /// Drop-in mode: whether this command is Redis's own to run, decided before its handler
    /// starts: a sorted-set command whose one key is one of Redis's own sorted sets (and no
    /// ZADD that would convert it), or a ZADD that creates a key Redis keeps as a listpack.
    /// The caller then forward()s it; the handler would come to the same through native_key.
    bool runs_natively();

    /// Whether the command was handed to Redis's own implementation (forward()).
    bool forwarded() const noexcept { return forwarded_; }
    /// The keys the command changed, in order (a key changed twice is listed twice).
    const std::pmr::vector<std::string_view>& changed_keys() const noexcept { return changed_; }
    /// Set when the handler asked to block.
    const std::optional<block_request>& block() const noexcept { return block_; }
    /// The module string of a key argument (one of the command's own where it is one).
    rmapi::String* key_string(std::string_view key) {
        for (std::size_t i = 0; i < argc; ++i)
            if (argv[i].data() == key.data() && argv[i].size() == key.size()) return raw_[i];
        if (ready_ != nullptr && view_of(ready_) == key) return ready_;
        made_.push_back(rmapi::CreateString(ctx_, key.data(), key.size()));
        return made_.back();
    }
    static std::string_view view_of(const rmapi::String* s) noexcept {
        std::size_t len = 0;
        const char* p = rmapi::StringPtrLen(s, &len);
        return {p, len};
    }

private:
    struct opened {
        const char* data;
        std::size_t size;
        rmapi::Key* key;
    };

    rmapi::Key* open(std::string_view key) {
        for (const opened& k : keys_)
            if (k.data == key.data() && k.size == key.size()) return k.key;
        const int mode = rmapi::OPEN_READ | (writes_ ? rmapi::OPEN_WRITE : 0);
        rmapi::Key* k = rmapi::OpenKey(ctx_, key_string(key), mode);
        keys_.push_back({key.data(), key.size(), k});
        return k;
    }
    bool is_store() const noexcept {
        const std::string_view n = row_->name;
        return n.size() > 5 && n.substr(n.size() - 5) == "store";
    }
    /// The keyspace event Redis sends for this command's change.
    std::string_view event_name() const noexcept;
    void close_keys() {
        for (const opened& k : keys_) rmapi::CloseKey(k.key);
        keys_.clear();
    }
    /// A module value this command may change: its size is noted, so that stats().elements
    /// follows what the command adds or removes (count_elements).
    value* sized(value* v) {
        if (!writes_) return v;
        for (const sized_value& s : sized_)
            if (s.v == v) return v;
        sized_.push_back({v, v->size()});
        return v;
    }
    /// Adds what the noted values gained or lost to stats().elements, while they are alive:
    /// at the end of the command, and before a value may be freed.
    void count_elements() noexcept {
        for (const sized_value& s : sized_)
            module_stats::add(stats().elements,
                              static_cast<long long>(s.v->size()) - static_cast<long long>(s.size));
        sized_.clear();
    }
    /// Before the value at `k` is freed (deleted or replaced): it is counted and no longer
    /// noted; the others are counted and noted again at their present sizes.
    void forget_sized(rmapi::Key* k) {
        if (sized_.empty()) return;
        const value* gone = rmapi::KeyType(k) == rmapi::KEYTYPE_MODULE
                                ? static_cast<const value*>(rmapi::ModuleTypeGetValue(k))
                                : nullptr;
        std::pmr::vector<sized_value> kept(sized_.get_allocator());
        for (const sized_value& s : sized_)
            if (s.v != gone) kept.push_back({s.v, s.v->size()});
        count_elements();
        sized_ = std::move(kept);
    }
    void notify(std::string_view key, std::string_view event) {
        const std::string text(event);
        rmapi::NotifyKeyspaceEvent(ctx_,
                                   event == "del" ? rmapi::NOTIFY_GENERIC : rmapi::NOTIFY_ZSET,
                                   text.c_str(), key_string(key));
    }
    void changed(std::string_view key, std::string_view event) {
        rmapi::SignalModifiedKey(ctx_, key_string(key));
        notify(key, event);
        changed_.push_back(key);
    }
    /// A copy of a native sorted set, read as an input (ZUNION over Redis's own keys).
    value* native_zset(rmapi::Key* k);
    /// A native sorted set's elements as a set with the thresholds in force.
    value read_native(rmapi::Key* k);
    /// Drop-in mode with zset.dropin-small-keys `native`.
    static bool small_keys_native() noexcept {
        return state().dropin && state().dropin_small_keys == small_keys::native;
    }
    /// Whether this ZADD / ZINCRBY leaves the key it creates a listpack in Redis's hands.
    bool new_key_stays_listpack() const;
    /// Whether this command, a ZADD / ZINCRBY, would make Redis convert its sorted set `k`.
    bool native_outgrows(rmapi::Key* k);
    /// Makes Redis's sorted set `k` (named `key`) a module key of the same elements, TTL and
    /// encoding.
    value* adopt_native(std::string_view key, rmapi::Key* k);
    /// OBJECT ENCODING of a native key, as Redis answers it.
    std::string native_encoding(std::string_view key);
    /// Whether Redis keeps `v` as a listpack when a *STORE command writes it.
    static bool fits_listpack(const value& v);
    /// A native set's members (each weighing 1).
    const zset::redis::set_value::members_type* native_set(std::string_view key);

    rmapi::Ctx* ctx_;
    rmapi::String** raw_;
    const module_spec* row_;
    bool writes_;
    rmapi::String* ready_;
    std::pmr::vector<opened> keys_;
    std::pmr::vector<rmapi::String*> made_;
    std::pmr::vector<std::string_view> changed_;
    /// The module values a write command holds, with their sizes when it first met them.
    struct sized_value {
        value* v;
        std::size_t size;
    };
    std::pmr::vector<sized_value> sized_;
    std::optional<block_request> block_;
    bool forwarded_ = false;
    /// Whether the command read one of the module's keys (a *STORE's result then stays one).
    bool read_module_key_ = false;
    // std::list: stable addresses, and nothing allocated until the first (std::deque allocates
    // when it is made, on every command)
    std::list<value> native_zsets_;
    std::list<zset::redis::set_value::members_type> native_sets_;
};

inline std::string_view module_command::event_name() const noexcept {
    const std::string_view n = row_->name;
    if (n == "zincrby") return "zincr";
    if (n == "zadd") {
        for (std::size_t i = 2; i < argc; ++i)
            if (is(i, "incr")) return "zincr";
        return "zadd";
    }
    if (n == "bzpopmin") return "zpopmin";
    if (n == "bzpopmax") return "zpopmax";
    if (n == "zmpop" || n == "bzmpop") {
        for (std::size_t i = 1; i < argc; ++i)
            if (is(i, "max")) return "zpopmax";
        return "zpopmin";
    }
    return n;
}

inline void module_command::forward(bool propagate) {
    count_elements();  // Redis's command may free a value this command met
    close_keys();
    const std::string name(row_->name);
    rmapi::CallReply* r =
        rmapi::Call(ctx_, name.c_str(), propagate ? "!0Ev" : "0Ev", raw_ + 1, argc - 1);
    if (r == nullptr) return out.error("ERR " + name + " could not be run");
    rmapi::ReplyWithCallReply(ctx_, r);
    rmapi::FreeCallReply(r);
    forwarded_ = true;
}

inline std::optional<module_command::setop_input>
module_command::setop_input_of(std::string_view key) {
    rmapi::Key* k = open(key);
    switch (rmapi::KeyType(k)) {
    case rmapi::KEYTYPE_EMPTY:
        return setop_input(static_cast<const value*>(nullptr));
    case rmapi::KEYTYPE_MODULE:
        if (rmapi::ModuleTypeGetType(k) != state().type) return std::nullopt;
        read_module_key_ = true;
        return setop_input(static_cast<const value*>(rmapi::ModuleTypeGetValue(k)));
    case rmapi::KEYTYPE_ZSET:
        return setop_input(native_zset(k));
    case rmapi::KEYTYPE_SET:
        return setop_input(zset::as_members(*native_set(key)));
    default:
        return std::nullopt;
    }
}

inline bool module_command::new_key_stays_listpack() const {
    const auto p = dropin_keys::pairs_of(row_->name, argv, argc);
    return p && dropin_keys::new_key_stays_listpack(*p, argv, state().thresholds,
                                                    state().rules.zadd_hint);
}

inline bool module_command::native_outgrows(rmapi::Key* k) {
    const auto p = dropin_keys::pairs_of(row_->name, argv, argc);
    if (!p) return false;
    return dropin_keys::native_key_outgrows(rmapi::ValueLength(k), *p, argv, state().thresholds,
                                            state().rules.zadd_hint, [&](std::string_view m) {
                                                double score = 0;
                                                return rmapi::ZsetScore(k, key_string(m), &score) ==
                                                       rmapi::OK;
                                            });
}

/// The set keeps Redis's encoding of the key: a listpack may hold members past thresholds
/// lowered since they were added, and Redis converts it only at its next insert, as the
/// container does (set_options changes no encoding).
inline value* module_command::adopt_native(std::string_view key, rmapi::Key* k) {
    const rmapi::mstime_t ttl = rmapi::GetExpire(k);
    value read = read_native(k);
    const bool listpack = native_encoding(key) == "listpack";
    zset::options held = zset_options();
    if (listpack) {
        held.max_listpack_entries = std::max(held.max_listpack_entries, read.size());
        for (const auto& e : read)
            held.max_listpack_value = std::max(held.max_listpack_value, e.member.size());
    } else {
        held.max_listpack_entries = 0;
    }
    value kept = value::from_sorted(read.begin(), read.end(), held);
    kept.set_options(zset_options());
    value* v = new_value(std::move(kept));
    rmapi::ModuleTypeSetValue(k, state().type, v);
    if (ttl != rmapi::NO_EXPIRE) rmapi::SetExpire(k, ttl);
    return sized(v);
}

inline bool module_command::runs_natively() {
    const std::string_view name = row_->name;
    if (!state().dropin || ready_ != nullptr || !dropin_keys::single_key_command(name) ||
        name == "type" || name == "object" || name == "dump")
        return false;
    rmapi::Key* k = open(argv[1]);
    switch (rmapi::KeyType(k)) {
    case rmapi::KEYTYPE_ZSET:
        return !native_outgrows(k);
    case rmapi::KEYTYPE_EMPTY:
        return small_keys_native() && new_key_stays_listpack();
    default:
        return false;
    }
}

inline std::string module_command::native_encoding(std::string_view key) {
    rmapi::CallReply* r = rmapi::Call(ctx_, "OBJECT", "cs", "ENCODING", key_string(key));
    if (r == nullptr) return {};
    std::size_t len = 0;
    const char* p = rmapi::CallReplyStringPtr(r, &len);
    std::string encoding = p != nullptr ? std::string(p, len) : std::string();
    rmapi::FreeCallReply(r);
    return encoding;
}

inline bool module_command::fits_listpack(const value& v) {
    const zset::options& limits = state().thresholds;
    if (v.size() > limits.max_listpack_entries) return false;
    std::size_t longest = 0;
    for (const auto& e : v) longest = std::max(longest, e.member.size());
    return dropin_keys::store_fits_listpack(v.size(), longest, limits);
}

inline value module_command::read_native(rmapi::Key* k) {
    std::vector<std::pair<std::string, double>> elements;
    const double inf = std::numeric_limits<double>::infinity();
    if (rmapi::ZsetFirstInScoreRange(k, -inf, inf, 0, 0) == rmapi::OK) {
        while (!rmapi::ZsetRangeEndReached(k)) {
            double score = 0;
            rmapi::String* member = rmapi::ZsetRangeCurrentElement(k, &score);
            elements.emplace_back(std::string(view_of(member)), score);
            rmapi::FreeString(ctx_, member);
            rmapi::ZsetRangeNext(k);
        }
        rmapi::ZsetRangeStop(k);
    }
    return value::from_sorted(elements.begin(), elements.end(), zset_options());
}

inline value* module_command::native_zset(rmapi::Key* k) {
    return &native_zsets_.emplace_back(read_native(k));
}

inline const zset::redis::set_value::members_type*
module_command::native_set(std::string_view key) {
    auto& members = native_sets_.emplace_back();
    rmapi::CallReply* r = rmapi::Call(ctx_, "SMEMBERS", "s", key_string(key));
    const std::size_t n = r != nullptr ? rmapi::CallReplyLength(r) : 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t len = 0;
        const char* p = rmapi::CallReplyStringPtr(rmapi::CallReplyArrayElement(r, i), &len);
        members.emplace(p, len);
    }
    if (r != nullptr) rmapi::FreeCallReply(r);
    return &members;
}

}  // namespace zset::module

#endif  // ZSET_MODULE_COMMAND_CONTEXT_HPP
