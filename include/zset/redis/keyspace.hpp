// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// zset::redis::keyspace — a Redis-compatible command executor over named sorted sets.
//
// A keyspace maps key names (binary strings) to zset::sorted_set<> values (plus plain strings,
// so that WRONGTYPE and redis-benchmark's defaults can be exercised) and executes a command
// given as an argv — every sorted-set command of Redis 7.x, the blocking pops as far as a
// library can take them, and the handful of generic commands a server needs to work with
// redis-cli and redis-benchmark. Replies are streamed as RESP2/RESP3 bytes into a std::string,
// or built as a typed zset::redis::reply.
//
//   zset::redis::keyspace ks;
//   zset::redis::session s;                       // per connection: protocol, blocking allowed
//   std::string out;
//   ks.execute(std::vector<std::string>{"ZADD", "k", "1", "a"}, s, out);   // out == ":1\r\n"
//   zset::redis::reply r = ks.run({"ZSCORE", "k", "a"});                  // reply::dbl(1)
//
// Semantics follow Redis's t_zset.c (7.0 source, checked against redis-server 7.0.15), with the
// Redis >= 7.2 additions (ZRANK/ZREVRANK ... WITHSCORE, shortest double formatting by
// default, blocked commands re-executed from scratch when a key they wait on changes):
//  - argument validation happens in the same order as in Redis, so the same error wins;
//  - encodings follow Redis's rules with the *current* thresholds (CONFIG SET
//    zset-max-listpack-entries / -value): a set converts to skiplist only when a new member
//    would exceed them, never converts back, *STORE / ZRANGESTORE / RESTORE results are built
//    in the smallest encoding that fits, and a listpack-encoded set stores -0 as 0 (as Redis's
//    listpack does), which is visible in replies;
//  - empty results of *STORE delete the destination; a set emptied by a command is deleted.
//
// Blocking commands (BZPOPMIN, BZPOPMAX, BZMPOP): when every key is missing, execute() writes
// no reply and returns exec_status::blocked with the keys and the timeout. A server keeps the
// argv, calls watch() for each key, and after later commands asks take_ready_keys() which
// watched keys were written; it then re-executes the blocked command (Redis >= 7.2 does the
// same), which either replies or blocks again. On timeout it sends timeout_reply().
//
// Deviations from Redis, by design of a library keyspace: one database (SELECT 0 only), no
// expiry (RESTORE with a TTL > 0 is refused), no MULTI/EXEC, scripts, ACLs or keyspace
// notifications, SET takes no options, OBJECT supports ENCODING and HELP only, COMMAND DOCS
// is empty, and ZRANDMEMBER with a negative count is capped at keyspace_options::
// max_random_draws draws (Redis would try to build an unbounded reply).
//
// Thread safety: as the standard containers. Const member functions (find, key_count,
// options, has_ready_keys) may run concurrently with each other; every other call (execute,
// run, watch, ...) needs exclusive access to the keyspace. Distinct keyspaces are independent.
#ifndef ZSET_REDIS_KEYSPACE_HPP
#define ZSET_REDIS_KEYSPACE_HPP

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include <zset/common.hpp>
#include <zset/detail/hash.hpp>
#include <zset/detail/rdb_object.hpp>
#include <zset/dump.hpp>
#include <zset/rdb.hpp>
#include <zset/redis/glob.hpp>
#include <zset/redis/numbers.hpp>
#include <zset/redis/resp.hpp>
#include <zset/sorted_set.hpp>

namespace zset::redis {

// ---------------------------------------------------------------------------------------------
// Public vocabulary
// ---------------------------------------------------------------------------------------------

/// Settings of a keyspace (the Redis configuration it emulates).
struct keyspace_options {
    /// zset-max-listpack-entries: a set with more members is skiplist encoded (default 128).
    std::size_t zset_max_listpack_entries = 128;
    /// zset-max-listpack-value: a set with a longer member is skiplist encoded (default 64).
    std::size_t zset_max_listpack_value = 64;
    /// How doubles are written: `shortest` (Redis >= 7.2) or `percent17g` (Redis <= 7.0).
    format_style double_format = format_style::shortest;
    /// Seed of the generator behind ZRANDMEMBER.
    std::uint64_t random_seed = 0x7a7365745f6b73ull;
    /// Version reported by HELLO.
    std::string server_version = "7.2.0";
    /// Largest number of draws ZRANDMEMBER with a negative count may make (its reply size is
    /// otherwise unbounded); above it the command fails with "ERR value is out of range".
    std::size_t max_random_draws = std::size_t{1} << 24;
};

/// Per-connection state a command may read or change.
struct session {
    /// Reply protocol, switched by HELLO 2 / HELLO 3.
    protocol proto = protocol::resp2;
    /// When false, blocking commands that would block reply with a null array at once (what
    /// Redis does inside MULTI or scripts).
    bool allow_blocking = true;
    /// Client id reported by HELLO.
    long long id = 0;
};

/// What a blocked command waits for.
struct block_request {
    /// Keys the command waits on (any of them receiving elements may let it proceed).
    std::vector<std::string> keys;
    /// Timeout in milliseconds; 0 = wait forever (Redis's rules: seconds * 1000, truncated, so
    /// a timeout below 0.001 s also means forever).
    long long timeout_ms = 0;
};

/// Outcome of executing one command.
enum class exec_status : unsigned char {
    done,     ///< the reply was written
    blocked,  ///< nothing was written: the command waits on exec_result::block
    quit,     ///< QUIT: the reply ("+OK") was written; close the connection after sending it
};

/// Result of keyspace::execute().
struct exec_result {
    exec_status status = exec_status::done;
    block_request block;  ///< set when status == blocked
};

// ---------------------------------------------------------------------------------------------
// Reply sinks (internal): the same command code streams RESP bytes or builds a reply tree.
// ---------------------------------------------------------------------------------------------

namespace detail {

/// Writes replies as RESP2/RESP3 bytes.
class resp_sink {
public:
    resp_sink(std::string& out, protocol proto, format_style style) noexcept
        : out_(out), proto_(proto), style_(style) {}
    protocol proto() const noexcept { return proto_; }
    void set_proto(protocol p) noexcept { proto_ = p; }
    format_style style() const noexcept { return style_; }
    void simple(std::string_view t) { append_simple(out_, t); }
    void error(std::string_view t) { append_error(out_, t); }
    void integer(long long v) { append_integer(out_, v); }
    void bulk(std::string_view b) { append_bulk(out_, b); }
    void null() { append_null(out_, proto_); }
    void null_array() { append_null_array(out_, proto_); }
    void dbl(double v) { append_double(out_, v, proto_, style_); }
    void array(std::size_t n) { append_array_header(out_, n); }
    void map(std::size_t pairs) { append_map_header(out_, pairs, proto_); }
    std::size_t mark() const noexcept { return out_.size(); }
    void rollback(std::size_t m) { out_.resize(m); }

private:
    std::string& out_;
    protocol proto_;
    format_style style_;
};

/// Builds a zset::redis::reply tree. Aggregates are announced with their size, then filled.
class tree_sink {
public:
    tree_sink(protocol proto, format_style style) noexcept : proto_(proto), style_(style) {}
    protocol proto() const noexcept { return proto_; }
    void set_proto(protocol p) noexcept { proto_ = p; }
    format_style style() const noexcept { return style_; }
    void simple(std::string_view t) { put(reply::simple(std::string(t))); }
    void error(std::string_view t) { put(reply::error(std::string(t))); }
    void integer(long long v) { put(reply::integer(v)); }
    void bulk(std::string_view b) { put(reply::bulk(std::string(b))); }
    void null() { put(reply::null()); }
    void null_array() { put(reply::null_array()); }
    void dbl(double v) { put(reply::dbl(v)); }
    void array(std::size_t n) { open(reply::array(std::vector<reply>()), n); }
    void map(std::size_t pairs) { open(reply::map(std::vector<reply>()), pairs * 2); }
    std::size_t mark() const noexcept { return 0; }
    void rollback(std::size_t) noexcept {
        root_ = reply();
        stack_.clear();
    }
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
        if (n > 0) {
            // The exact size is reserved, so children never move while they are being filled.
            node->elements().reserve(n);
            stack_.push_back(frame{node, n});
        } else {
            settle();
        }
    }

    protocol proto_;
    format_style style_;
    reply root_;
    std::vector<frame> stack_;
};

/// Case-insensitive ASCII comparison of an argument with an option name, as Redis's
/// strcasecmp() on the NUL-terminated argument sees it (bytes after a NUL are invisible).
inline bool opt_eq(std::string_view arg, std::string_view lower_name) noexcept {
    const std::string_view a = c_string_prefix(arg);
    if (a.size() != lower_name.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lower_name[i]) return false;
    }
    return true;
}

/// Hash of key names.
struct key_hash {
    std::size_t operator()(const std::string& s) const noexcept {
        return static_cast<std::size_t>(zset::detail::hash_bytes(s.data(), s.size()));
    }
};

// ---- command table --------------------------------------------------------------------------

enum class cmd_id : unsigned char {
    zadd,
    zincrby,
    zrem,
    zscore,
    zmscore,
    zcard,
    zcount,
    zlexcount,
    zrank,
    zrevrank,
    zrange,
    zrangebyscore,
    zrevrangebyscore,
    zrangebylex,
    zrevrangebylex,
    zrevrange,
    zrangestore,
    zremrangebyrank,
    zremrangebyscore,
    zremrangebylex,
    zpopmin,
    zpopmax,
    zmpop,
    bzpopmin,
    bzpopmax,
    bzmpop,
    zrandmember,
    zscan,
    zunion,
    zinter,
    zdiff,
    zunionstore,
    zinterstore,
    zdiffstore,
    zintercard,
    del,
    exists,
    type,
    flushall,
    flushdb,
    dbsize,
    ping,
    echo,
    dump,
    restore,
    select,
    set,
    get,
    hello,
    quit,
    command,
    command_count,
    command_info,
    command_docs,
    command_list,
    command_help,
    config,
    config_get,
    config_set,
    config_resetstat,
    config_help,
    object,
    object_encoding,
    object_help,
};

/// One command as COMMAND describes it.
struct command_spec {
    std::string_view name;   ///< full lower-case name ("zadd", "config|get")
    int arity;               ///< Redis arity: n exact, -n at least n
    std::string_view flags;  ///< space-separated command flags
    int first_key, last_key, step;
    std::string_view acl;  ///< space-separated ACL categories
    cmd_id id;
    const command_spec* subcommands = nullptr;
    std::size_t subcommand_count = 0;
};

inline constexpr command_spec command_subcommands[] = {
    {"command|count", 2, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command_count},
    {"command|docs", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command_docs},
    {"command|help", 2, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command_help},
    {"command|info", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command_info},
    {"command|list", -2, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command_list},
};
inline constexpr command_spec config_subcommands[] = {
    {"config|get", -3, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd_id::config_get},
    {"config|help", 2, "loading stale", 0, 0, 0, "@slow", cmd_id::config_help},
    {"config|resetstat", 2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd_id::config_resetstat},
    {"config|set", -4, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous",
     cmd_id::config_set},
};
inline constexpr command_spec object_subcommands[] = {
    {"object|encoding", 3, "readonly", 2, 2, 1, "@keyspace @read @slow", cmd_id::object_encoding},
    {"object|help", 2, "loading stale", 0, 0, 0, "@keyspace @slow", cmd_id::object_help},
};

#define ZSET_RW_FAST "@write @sortedset @fast"
#define ZSET_RD_FAST "@read @sortedset @fast"
#define ZSET_RD_SLOW "@read @sortedset @slow"
#define ZSET_WR_SLOW "@write @sortedset @slow"
inline constexpr command_spec command_table[] = {
    {"zadd", -4, "write denyoom fast", 1, 1, 1, ZSET_RW_FAST, cmd_id::zadd},
    {"zincrby", 4, "write denyoom fast", 1, 1, 1, ZSET_RW_FAST, cmd_id::zincrby},
    {"zrem", -3, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd_id::zrem},
    {"zscore", 3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zscore},
    {"zmscore", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zmscore},
    {"zcard", 2, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zcard},
    {"zcount", 4, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zcount},
    {"zlexcount", 4, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zlexcount},
    {"zrank", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zrank},
    {"zrevrank", -3, "readonly fast", 1, 1, 1, ZSET_RD_FAST, cmd_id::zrevrank},
    {"zrange", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrange},
    {"zrangebyscore", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrangebyscore},
    {"zrevrangebyscore", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrevrangebyscore},
    {"zrangebylex", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrangebylex},
    {"zrevrangebylex", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrevrangebylex},
    {"zrevrange", -4, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrevrange},
    {"zrangestore", -5, "write denyoom", 1, 2, 1, ZSET_WR_SLOW, cmd_id::zrangestore},
    {"zremrangebyrank", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zremrangebyrank},
    {"zremrangebyscore", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zremrangebyscore},
    {"zremrangebylex", 4, "write", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zremrangebylex},
    {"zpopmin", -2, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd_id::zpopmin},
    {"zpopmax", -2, "write fast", 1, 1, 1, ZSET_RW_FAST, cmd_id::zpopmax},
    {"zmpop", -4, "write movablekeys", 0, 0, 0, ZSET_WR_SLOW, cmd_id::zmpop},
    {"bzpopmin", -3, "write noscript blocking fast", 1, -2, 1, ZSET_RW_FAST " @blocking",
     cmd_id::bzpopmin},
    {"bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, ZSET_RW_FAST " @blocking",
     cmd_id::bzpopmax},
    {"bzmpop", -5, "write blocking movablekeys", 0, 0, 0, ZSET_WR_SLOW " @blocking",
     cmd_id::bzmpop},
    {"zrandmember", -2, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zrandmember},
    {"zscan", -3, "readonly", 1, 1, 1, ZSET_RD_SLOW, cmd_id::zscan},
    {"zunion", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd_id::zunion},
    {"zinter", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd_id::zinter},
    {"zdiff", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd_id::zdiff},
    {"zunionstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zunionstore},
    {"zinterstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zinterstore},
    {"zdiffstore", -4, "write denyoom movablekeys", 1, 1, 1, ZSET_WR_SLOW, cmd_id::zdiffstore},
    {"zintercard", -3, "readonly movablekeys", 0, 0, 0, ZSET_RD_SLOW, cmd_id::zintercard},
    {"del", -2, "write", 1, -1, 1, "@keyspace @write @slow", cmd_id::del},
    {"exists", -2, "readonly fast", 1, -1, 1, "@keyspace @read @fast", cmd_id::exists},
    {"type", 2, "readonly fast", 1, 1, 1, "@keyspace @read @fast", cmd_id::type},
    {"flushall", -1, "write", 0, 0, 0, "@keyspace @write @slow @dangerous", cmd_id::flushall},
    {"flushdb", -1, "write", 0, 0, 0, "@keyspace @write @slow @dangerous", cmd_id::flushdb},
    {"dbsize", 1, "readonly fast", 0, 0, 0, "@keyspace @read @fast", cmd_id::dbsize},
    {"ping", -1, "fast", 0, 0, 0, "@fast @connection", cmd_id::ping},
    {"echo", 2, "loading stale fast", 0, 0, 0, "@fast @connection", cmd_id::echo},
    {"dump", 2, "readonly", 1, 1, 1, "@keyspace @read @slow", cmd_id::dump},
    {"restore", -4, "write denyoom", 1, 1, 1, "@keyspace @write @slow @dangerous", cmd_id::restore},
    {"select", 2, "loading stale fast", 0, 0, 0, "@fast @connection", cmd_id::select},
    {"set", -3, "write denyoom", 1, 1, 1, "@write @string @slow", cmd_id::set},
    {"get", 2, "readonly fast", 1, 1, 1, "@read @string @fast", cmd_id::get},
    {"hello", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection",
     cmd_id::hello},
    {"quit", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@fast @connection",
     cmd_id::quit},
    {"command", -1, "loading stale", 0, 0, 0, "@slow @connection", cmd_id::command,
     command_subcommands, std::size(command_subcommands)},
    {"config", -2, "", 0, 0, 0, "@slow", cmd_id::config, config_subcommands,
     std::size(config_subcommands)},
    {"object", -2, "", 0, 0, 0, "@slow", cmd_id::object, object_subcommands,
     std::size(object_subcommands)},
};
#undef ZSET_RW_FAST
#undef ZSET_RD_FAST
#undef ZSET_RD_SLOW
#undef ZSET_WR_SLOW

/// Finds a command by name, case-insensitively (names are compared as whole binary strings,
/// as Redis's command dictionary does). O(1) expected.
inline const command_spec* find_command(std::string_view name) noexcept {
    static const auto table = [] {
        std::unordered_map<std::string_view, const command_spec*> m;
        for (const command_spec& c : command_table) m.emplace(c.name, &c);
        return m;
    }();
    char buf[24];
    if (name.size() > sizeof buf) return nullptr;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    const auto it = table.find(std::string_view(buf, name.size()));
    return it == table.end() ? nullptr : it->second;
}

/// Finds a subcommand of a container command ("config" + "get"), case-insensitively.
inline const command_spec* find_subcommand(const command_spec& parent,
                                           std::string_view name) noexcept {
    for (std::size_t i = 0; i < parent.subcommand_count; ++i) {
        const command_spec& s = parent.subcommands[i];
        const std::string_view sub = s.name.substr(s.name.find('|') + 1);
        if (sub.size() != name.size()) continue;
        bool same = true;
        for (std::size_t j = 0; j < name.size() && same; ++j) {
            char c = name[j];
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            same = c == sub[j];
        }
        if (same) return &s;
    }
    return nullptr;
}

/// Parses a ZSCAN cursor as Redis 7.0's parseScanCursorOrReply (strtoul(3), base 10): no
/// leading blank, an optional sign ("-1" wraps around), digits, nothing after (bytes after a NUL
/// are invisible, so "" is cursor 0), no overflow.
inline std::optional<std::uint64_t> parse_scan_cursor(std::string_view arg) noexcept {
    const std::string_view s = c_string_prefix(arg);
    if (s.empty()) return 0;
    if (is_c_space(s[0])) return std::nullopt;
    std::size_t i = 0;
    bool negative = false;
    if (s[0] == '+' || s[0] == '-') {
        negative = s[0] == '-';
        ++i;
    }
    if (i == s.size()) return std::nullopt;
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
        const auto d = static_cast<std::uint64_t>(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return std::nullopt;  // ERANGE
        v = v * 10 + d;
    }
    return negative ? (~v + 1) : v;
}

/// Outcome of parse_timeout_ms.
struct timeout_parse {
    long long ms = 0;
    std::string_view error;  ///< empty on success
};

/// Parses a blocking timeout in seconds as Redis's getTimeoutFromObjectOrReply: strtold(3)
/// over the whole argument (no leading blank, no junk, no NaN, no overflow/underflow to
/// HUGE_VALL/0), then (long long)(seconds * 1000) where an unrepresentable product acts as
/// LLONG_MIN (what the x86 conversion yields), negative -> "timeout is negative", and a
/// deadline that would overflow -> "timeout is out of range". Uses the C library's strtold,
/// so LC_NUMERIC must be "C" (Redis's own assumption).
inline timeout_parse parse_timeout_ms(std::string_view arg) {
    timeout_parse r;
    constexpr std::size_t max_chars = 5 * 1024;  // MAX_LONG_DOUBLE_CHARS
    if (arg.empty() || arg.size() >= max_chars) {
        r.error = err_timeout_not_float;
        return r;
    }
    const std::string buf(arg);
    char* end = nullptr;
    const int saved = errno;
    errno = 0;
    const long double v = std::strtold(buf.c_str(), &end);
    const int e = errno;
    errno = saved;
    if (is_c_space(buf[0]) || *end != '\0' ||
        (e == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0.0L)) || e == EINVAL ||
        std::isnan(v)) {
        r.error = err_timeout_not_float;
        return r;
    }
    const long double product = v * 1000.0;
    long long tval = LLONG_MIN;
    if (product >= -9223372036854775808.0L && product < 9223372036854775808.0L)
        tval = static_cast<long long>(product);
    if (tval < 0) {
        r.error = err_timeout_negative;
        return r;
    }
    if (tval > 0) {
        const long long now =
            static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count());
        if (tval > LLONG_MAX - now) {
            r.error = "ERR timeout is out of range";
            return r;
        }
    }
    r.ms = tval;
    return r;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// keyspace
// ---------------------------------------------------------------------------------------------

/// Named sorted sets executing Redis commands. See the file comment for the command list,
/// semantics, deviations and thread safety.
class keyspace {
public:
    /// The sorted set type stored under each key.
    using set_type = zset::sorted_set<>;

    /// An empty keyspace with the given options. O(1). Strong guarantee (may throw
    /// std::bad_alloc). Redis counterpart: an empty database 0 with that configuration.
    explicit keyspace(keyspace_options opts = {})
        : opts_(std::move(opts)), rng_(opts_.random_seed) {}

    keyspace(const keyspace&) = delete;
    keyspace& operator=(const keyspace&) = delete;

    // ---- executing commands --------------------------------------------------------------

    /// Executes one command and appends its RESP reply (in s.proto, doubles formatted with
    /// options().double_format) to `out`. `argv` is any range of string-like values
    /// (std::vector<std::string>, std::vector<std::string_view>, ...); argv[0] is the command
    /// name (case-insensitive). An empty argv does nothing.
    /// \returns done, quit (QUIT: close after sending), or blocked (nothing appended; see
    /// exec_result::block and the file comment).
    /// Complexity: that of the Redis command. Exceptions: std::bad_alloc is caught and reported
    /// as an error reply; the keyspace keeps the basic guarantee (a multi-member command may be
    /// partly applied if memory runs out). Redis counterpart: processCommand + call().
    template <class Argv>
    exec_result execute(const Argv& argv, session& s, std::string& out) {
        load_argv(argv);
        detail::resp_sink sink(out, s.proto, opts_.double_format);
        return dispatch(argv_.data(), argv_.size(), s, sink);
    }

    /// Executes one command and stores its reply in `out` as a typed reply, shaped as Redis
    /// sends it in s.proto (e.g. WITHSCORES pairs are flat in RESP2 and nested in RESP3), so
    /// that encode(out, s.proto, bytes, options().double_format) gives the exact bytes.
    /// Otherwise as the streaming overload (a blocked command leaves `out` null).
    /// Complexity: that of the Redis command, plus O(reply size) allocations for the tree.
    /// Exceptions: as the streaming overload. Redis counterpart: processCommand + call().
    template <class Argv>
    exec_result execute(const Argv& argv, session& s, reply& out) {
        load_argv(argv);
        detail::tree_sink sink(s.proto, opts_.double_format);
        exec_result r = dispatch(argv_.data(), argv_.size(), s, sink);
        out = sink.take();
        return r;
    }

    /// Convenience for tests and embedding: executes `argv` in a RESP2 session that may not
    /// block (a blocking command with nothing to pop replies null, as in MULTI) and returns the
    /// reply. Complexity and exceptions: as execute(). Redis counterpart: a command sent by a
    /// RESP2 client inside MULTI (for the blocking pops) or outside it (everything else).
    reply run(std::initializer_list<std::string_view> argv) {
        session s;
        s.allow_blocking = false;
        return run(argv, s);
    }
    /// As run(argv) with the caller's session (protocol, blocking). A command that blocks
    /// returns a null reply and leaves the session unchanged. Complexity and exceptions: as
    /// execute().
    reply run(std::initializer_list<std::string_view> argv, session& s) {
        reply r;
        execute(argv, s, r);
        return r;
    }

    /// The reply a server sends a blocked client whose timeout expired: a null array (RESP2
    /// "*-1", RESP3 "_"), as Redis's replyToBlockedClientTimedOut for the sorted-set pops.
    /// O(1). No-throw.
    static reply timeout_reply() noexcept { return reply::null_array(); }
    /// Appends the timeout reply's bytes for `proto`. O(1). Strong guarantee (may throw
    /// std::bad_alloc). Redis counterpart: replyToBlockedClientTimedOut.
    static void append_timeout_reply(std::string& out, protocol proto) {
        append_null_array(out, proto);
    }

    // ---- blocking support -----------------------------------------------------------------

    /// Registers interest in `key`: writes to it are then reported by take_ready_keys().
    /// Reference counted (call unwatch once per watch). O(1) expected. Strong guarantee (may
    /// throw std::bad_alloc). Redis counterpart: blockForKeys (the key -> clients map).
    void watch(std::string_view key) { ++watched_[std::string(key)]; }

    /// Drops one registration made by watch(); a key not watched is ignored. O(1) expected.
    /// Strong guarantee (builds a temporary key string: may throw std::bad_alloc).
    /// Redis counterpart: unblockClientWaitingData.
    void unwatch(std::string_view key) {
        const auto it = watched_.find(std::string(key));
        if (it != watched_.end() && --it->second == 0) watched_.erase(it);
    }

    /// Whether some watched key was written since the last take_ready_keys(). O(1). No-throw.
    /// Redis counterpart: listLength(server.ready_keys) != 0.
    bool has_ready_keys() const noexcept { return !ready_.empty(); }

    /// Returns the watched keys that received elements (or were otherwise written) since the
    /// last call, each once, in the order they were first written, and forgets them. A server
    /// re-executes the commands blocked on them, oldest first. O(number of keys). No-throw.
    /// Redis counterpart: signalKeyAsReady + handleClientsBlockedOnKeys.
    std::vector<std::string> take_ready_keys() noexcept {
        ready_set_.clear();
        return std::exchange(ready_, {});
    }

    // ---- direct access ----------------------------------------------------------------------

    /// The sorted set stored under `key`, or nullptr if the key is missing or holds another
    /// type. The pointer is valid until the next non-const call. O(1) expected. Strong
    /// guarantee (may throw std::bad_alloc). Writes nothing: safe to call from several threads
    /// at once. Redis counterpart: lookupKeyRead + checkType.
    const set_type* find(std::string_view key) const {
        const auto it = lookup(key);
        if (it == db_.end()) return nullptr;
        return std::get_if<set_type>(&it->second);
    }

    /// Number of keys. O(1). No-throw. Redis counterpart: DBSIZE.
    std::size_t key_count() const noexcept { return db_.size(); }

    /// Removes every key. O(n). No-throw. Redis counterpart: FLUSHALL.
    void clear() noexcept { db_.clear(); }

    /// The options in force (listpack thresholds change with CONFIG SET). O(1). No-throw.
    /// Redis counterpart: CONFIG GET.
    const keyspace_options& options() const noexcept { return opts_; }

    /// Sets the listpack thresholds. Existing sets keep their encoding; the new limits apply to
    /// later insertions and to sets built later. O(1). No-throw. Redis counterpart: CONFIG SET
    /// zset-max-listpack-entries / zset-max-listpack-value.
    void set_listpack_limits(std::size_t max_entries, std::size_t max_value) noexcept {
        opts_.zset_max_listpack_entries = max_entries;
        opts_.zset_max_listpack_value = max_value;
    }

    /// Chooses the double format of later replies: shortest (Redis >= 7.2) or percent17g
    /// (Redis <= 7.0). O(1). No-throw. Redis counterpart: none (the server version).
    void set_double_format(format_style style) noexcept { opts_.double_format = style; }

    /// A fresh session (RESP2, blocking allowed) with a unique id, which HELLO reports. O(1).
    /// No-throw. Redis counterpart: createClient.
    session make_session() noexcept {
        session s;
        s.id = ++last_session_id_;
        return s;
    }

private:
    using value = std::variant<set_type, std::string>;
    using table = std::unordered_map<std::string, value, detail::key_hash>;

    struct call {
        const std::string_view* argv;
        std::size_t argc;
        session& sess;
        exec_result& result;
        const detail::command_spec* spec;
    };

    enum class range_kind { any, rank, score, lex };
    enum class range_dir { any, forward, reverse };
    enum class setop { set_union, set_inter, set_diff };
    using scored_view = std::pair<std::string_view, double>;

    // ---- plumbing -----------------------------------------------------------------------------

    template <class Argv>
    void load_argv(const Argv& argv) {
        argv_.clear();
        for (const auto& a : argv) argv_.emplace_back(std::string_view(a));
    }

    // A const lookup builds its own key string: a shared buffer would make concurrent const
    // calls race (find() is documented safe to call from several threads at once).
    table::const_iterator lookup(std::string_view key) const { return db_.find(std::string(key)); }
    table::iterator lookup(std::string_view key) {
        key_buf_.assign(key.data(), key.size());
        return db_.find(key_buf_);
    }

    /// Result of looking a key up for a sorted-set command.
    struct zlookup {
        set_type* set = nullptr;  ///< the set, or nullptr
        bool wrongtype = false;   ///< the key holds another type
        table::iterator it;
    };
    zlookup zfind(std::string_view key) {
        zlookup r;
        r.it = lookup(key);
        if (r.it == db_.end()) return r;
        r.set = std::get_if<set_type>(&r.it->second);
        r.wrongtype = r.set == nullptr;
        return r;
    }

    bool erase_key(std::string_view key) {
        const auto it = lookup(key);
        if (it == db_.end()) return false;
        db_.erase(it);
        return true;
    }

    void signal(std::string_view key) {
        if (watched_.empty()) return;
        std::string k(key);
        if (watched_.count(k) == 0) return;
        if (ready_set_.insert(k).second) ready_.push_back(std::move(k));
    }

    void store(std::string_view key, value v) {
        key_buf_.assign(key.data(), key.size());
        db_.insert_or_assign(key_buf_, std::move(v));
        signal(key);
    }

    // Encodings. A listpack-mode set is kept with thresholds that never trigger, so that the
    // keyspace alone decides conversions from the thresholds in force at each insertion (Redis
    // reads them from its global config); a skiplist-mode set never converts back.
    static zset::options hold_listpack() noexcept {
        zset::options o;
        o.max_listpack_entries = std::numeric_limits<std::size_t>::max();
        o.max_listpack_value = std::numeric_limits<std::size_t>::max();
        return o;
    }
    static zset::options force_skiplist() noexcept {
        zset::options o;
        o.max_listpack_entries = 0;
        o.max_listpack_value = 0;
        return o;
    }
    static bool is_listpack(const set_type& s) noexcept {
        return s.encoding() == zset::encoding::listpack;
    }
    /// A listpack stores an integral score as an integer, so -0 comes back as 0.
    static double listpack_score(double v) noexcept { return v == 0.0 ? 0.0 : v; }

    static void convert_to_skiplist(set_type& s) {
        s = set_type::from_sorted(s.begin(), s.end(), force_skiplist());
    }

    /// Before inserting `member` (not present) into `s`: converts as Redis's zsetAdd would.
    /// \returns whether the member goes into a listpack (and so stores -0 as 0).
    bool prepare_insert(set_type& s, std::string_view member) const {
        if (!is_listpack(s)) return false;
        if (s.size() + 1 <= opts_.zset_max_listpack_entries &&
            member.size() <= opts_.zset_max_listpack_value)
            return true;
        if (s.empty())
            s = set_type(force_skiplist());  // converts itself on this first insertion
        else
            convert_to_skiplist(s);
        return false;
    }

    /// Builds a set from sorted, unique elements in the smallest encoding that fits.
    template <class Elements>
    set_type build_set(Elements& els) const {
        bool fits = els.size() <= opts_.zset_max_listpack_entries;
        for (std::size_t i = 0; fits && i < els.size(); ++i)
            fits = std::string_view(els[i].first).size() <= opts_.zset_max_listpack_value;
        return build_set(els, fits);
    }
    template <class Elements>
    static set_type build_set(Elements& els, bool as_listpack) {
        if (!as_listpack) return set_type::from_sorted(els.begin(), els.end(), force_skiplist());
        for (auto& e : els) e.second = listpack_score(e.second);
        return set_type::from_sorted(els.begin(), els.end(), hold_listpack());
    }

    static void sort_elements(std::vector<scored_view>& els) {
        std::sort(els.begin(), els.end(), [](const scored_view& a, const scored_view& b) {
            return a.second < b.second || (a.second == b.second && a.first < b.first);
        });
    }

    // ---- reply helpers ------------------------------------------------------------------------

    template <class Out>
    static void scored_header(Out& o, std::size_t n, bool withscores) {
        o.array(withscores && o.proto() == protocol::resp2 ? n * 2 : n);
    }
    template <class Out>
    static void scored_element(Out& o, std::string_view m, double s, bool withscores) {
        if (withscores && o.proto() == protocol::resp3) o.array(2);
        o.bulk(m);
        if (withscores) o.dbl(s);
    }
    template <class Out, class Range>
    static void emit_range(Out& o, const Range& r, bool withscores) {
        scored_header(o, r.size(), withscores);
        for (const auto& e : r) scored_element(o, e.member, e.score, withscores);
    }

    // ---- dispatch -----------------------------------------------------------------------------

    template <class Out>
    exec_result dispatch(const std::string_view* argv, std::size_t argc, session& s, Out& o) {
        exec_result result;
        if (argc == 0) return result;
        const detail::command_spec* spec = detail::find_command(argv[0]);
        if (spec == nullptr) {
            o.error(err_unknown_command(std::vector<std::string_view>(argv, argv + argc)));
            return result;
        }
        if (spec->subcommand_count > 0 && argc >= 2) {
            const detail::command_spec* sub = detail::find_subcommand(*spec, argv[1]);
            if (sub == nullptr) {
                std::string text = "ERR unknown subcommand '";
                const std::string_view name = detail::c_string_prefix(argv[1]);
                text.append(name.substr(0, 128));
                text += "'. Try ";
                for (char c : spec->name)
                    text += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
                text += " HELP.";
                o.error(text);
                return result;
            }
            spec = sub;
        }
        if ((spec->arity > 0 && argc != static_cast<std::size_t>(spec->arity)) ||
            argc < static_cast<std::size_t>(spec->arity < 0 ? -spec->arity : spec->arity)) {
            o.error(err_wrong_arity(spec->name));
            return result;
        }
        call c{argv, argc, s, result, spec};
        const std::size_t mark = o.mark();
#if ZSET_HAS_EXCEPTIONS
        try {
            run(c, o);
        } catch (const std::bad_alloc&) {
            o.rollback(mark);
            result = exec_result();
            o.error("ERR out of memory");
        } catch (const std::length_error&) {
            o.rollback(mark);
            result = exec_result();
            o.error("ERR out of memory");
        }
#else
        (void)mark;
        run(c, o);
#endif
        return result;
    }

    template <class Out>
    void run(call& c, Out& o) {
        using detail::cmd_id;
        switch (c.spec->id) {
        case cmd_id::zadd:
            return z_add(c, o);
        case cmd_id::zincrby:
            return z_add(c, o, true);
        case cmd_id::zrem:
            return z_rem(c, o);
        case cmd_id::zscore:
            return z_score(c, o);
        case cmd_id::zmscore:
            return z_mscore(c, o);
        case cmd_id::zcard:
            return z_card(c, o);
        case cmd_id::zcount:
            return z_count(c, o);
        case cmd_id::zlexcount:
            return z_lexcount(c, o);
        case cmd_id::zrank:
            return z_rank(c, o, false);
        case cmd_id::zrevrank:
            return z_rank(c, o, true);
        case cmd_id::zrange:
            return z_range(c, o, 1, false, range_kind::any, range_dir::any);
        case cmd_id::zrangebyscore:
            return z_range(c, o, 1, false, range_kind::score, range_dir::forward);
        case cmd_id::zrevrangebyscore:
            return z_range(c, o, 1, false, range_kind::score, range_dir::reverse);
        case cmd_id::zrangebylex:
            return z_range(c, o, 1, false, range_kind::lex, range_dir::forward);
        case cmd_id::zrevrangebylex:
            return z_range(c, o, 1, false, range_kind::lex, range_dir::reverse);
        case cmd_id::zrevrange:
            return z_range(c, o, 1, false, range_kind::rank, range_dir::reverse);
        case cmd_id::zrangestore:
            return z_range(c, o, 2, true, range_kind::any, range_dir::any);
        case cmd_id::zremrangebyrank:
            return z_remrange(c, o, range_kind::rank);
        case cmd_id::zremrangebyscore:
            return z_remrange(c, o, range_kind::score);
        case cmd_id::zremrangebylex:
            return z_remrange(c, o, range_kind::lex);
        case cmd_id::zpopmin:
            return z_popminmax(c, o, false);
        case cmd_id::zpopmax:
            return z_popminmax(c, o, true);
        case cmd_id::zmpop:
            return z_mpop(c, o, false);
        case cmd_id::bzmpop:
            return z_mpop(c, o, true);
        case cmd_id::bzpopmin:
            return bz_pop(c, o, false);
        case cmd_id::bzpopmax:
            return bz_pop(c, o, true);
        case cmd_id::zrandmember:
            return z_randmember(c, o);
        case cmd_id::zscan:
            return z_scan(c, o);
        case cmd_id::zunion:
            return z_setop(c, o, 0, 1, setop::set_union, false);
        case cmd_id::zinter:
            return z_setop(c, o, 0, 1, setop::set_inter, false);
        case cmd_id::zdiff:
            return z_setop(c, o, 0, 1, setop::set_diff, false);
        case cmd_id::zunionstore:
            return z_setop(c, o, 1, 2, setop::set_union, false);
        case cmd_id::zinterstore:
            return z_setop(c, o, 1, 2, setop::set_inter, false);
        case cmd_id::zdiffstore:
            return z_setop(c, o, 1, 2, setop::set_diff, false);
        case cmd_id::zintercard:
            return z_setop(c, o, 0, 1, setop::set_inter, true);
        case cmd_id::del:
            return g_del(c, o);
        case cmd_id::exists:
            return g_exists(c, o);
        case cmd_id::type:
            return g_type(c, o);
        case cmd_id::flushall:
        case cmd_id::flushdb:
            return g_flush(c, o);
        case cmd_id::dbsize:
            return o.integer(static_cast<long long>(db_.size()));
        case cmd_id::ping:
            return g_ping(c, o);
        case cmd_id::echo:
            return o.bulk(c.argv[1]);
        case cmd_id::dump:
            return g_dump(c, o);
        case cmd_id::restore:
            return g_restore(c, o);
        case cmd_id::select:
            return g_select(c, o);
        case cmd_id::set:
            return g_set(c, o);
        case cmd_id::get:
            return g_get(c, o);
        case cmd_id::hello:
            return g_hello(c, o);
        case cmd_id::quit:
            c.result.status = exec_status::quit;
            return o.simple("OK");
        case cmd_id::command:
            return g_command_list(o, false);
        case cmd_id::command_count:
            return o.integer(static_cast<long long>(std::size(detail::command_table)));
        case cmd_id::command_info:
            return g_command_info(c, o);
        case cmd_id::command_docs:
            return o.map(0);
        case cmd_id::command_list:
            return g_command_list(o, true);
        case cmd_id::command_help:
            return help(o,
                        {"COMMAND [<subcommand> [<arg> [value] [opt] ...]]. Subcommands are:",
                         "(no subcommand)", "    Return details about all Redis commands.", "COUNT",
                         "    Return the total number of commands in this server.", "LIST",
                         "    Return a list of all commands in this server.",
                         "INFO [<command-name> ...]", "    Return details about multiple commands.",
                         "DOCS [<command-name> ...]",
                         "    Return documentation details about multiple commands (none here).",
                         "HELP", "    Print this help."});
        case cmd_id::config_get:
            return g_config_get(c, o);
        case cmd_id::config_set:
            return g_config_set(c, o);
        case cmd_id::config_resetstat:
            return o.simple("OK");
        case cmd_id::config_help:
            return help(
                o,
                {"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GET <pattern>",
                 "    Return parameters matching the glob-like <pattern> and their values.",
                 "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
                 "RESETSTAT", "    Reset statistics reported by the INFO command.", "HELP",
                 "    Print this help."});
        case cmd_id::object_encoding:
            return g_object_encoding(c, o);
        case cmd_id::object_help:
            return help(
                o,
                {"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                 "ENCODING <key>",
                 "    Return the kind of internal representation used in order to store the value",
                 "    associated with a <key>.", "HELP", "    Print this help."});
        case cmd_id::config:
        case cmd_id::object:
            return o.error(err_wrong_arity(c.spec->name));
        }
    }

    template <class Out>
    static void help(Out& o, std::initializer_list<std::string_view> lines) {
        o.array(lines.size());
        for (std::string_view l : lines) o.simple(l);
    }

    // ---- ZADD / ZINCRBY -------------------------------------------------------------------------

    template <class Out>
    void z_add(call& c, Out& o, bool incr_command = false) {
        const std::string_view* a = c.argv;
        bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = incr_command;
        std::size_t scoreidx = 2;
        for (; scoreidx < c.argc; ++scoreidx) {
            const std::string_view opt = a[scoreidx];
            if (detail::opt_eq(opt, "nx"))
                nx = true;
            else if (detail::opt_eq(opt, "xx"))
                xx = true;
            else if (detail::opt_eq(opt, "ch"))
                ch = true;
            else if (detail::opt_eq(opt, "incr"))
                incr = true;
            else if (detail::opt_eq(opt, "gt"))
                gt = true;
            else if (detail::opt_eq(opt, "lt"))
                lt = true;
            else
                break;
        }
        const std::size_t elements2 = c.argc - scoreidx;
        if (elements2 % 2 != 0 || elements2 == 0) return o.error(err_syntax);
        const std::size_t elements = elements2 / 2;
        if (nx && xx) return o.error(err_xx_and_nx);
        if ((gt && nx) || (lt && nx) || (gt && lt)) return o.error(err_gt_lt_nx);
        if (incr && elements > 1) return o.error(err_incr_single_pair);
        scores_.clear();
        for (std::size_t j = 0; j < elements; ++j) {
            const auto v = parse_score(a[scoreidx + j * 2]);
            if (!v) return o.error(err_not_float);
            scores_.push_back(*v);
        }
        const std::string_view key = a[1];
        zlookup z = zfind(key);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) {
            if (xx) return incr ? o.null() : o.integer(0);
            z.it = db_.emplace(std::string(key), value(set_type(hold_listpack()))).first;
            z.set = &std::get<set_type>(z.it->second);
        }
        set_type& s = *z.set;
        // If an insertion throws (std::bad_alloc), a key created here must not stay empty.
        struct empty_key_guard {
            keyspace& ks;
            std::string_view key;
            const set_type& set;
            ~empty_key_guard() {
                if (set.empty()) ks.erase_key(key);  // key_buf_ already fits: no allocation
            }
        } guard{*this, key, s};
        zset::add_flags flags = zset::add_flags::none;
        if (nx) flags = flags | zset::add_flags::nx;
        if (xx) flags = flags | zset::add_flags::xx;
        if (gt) flags = flags | zset::add_flags::gt;
        if (lt) flags = flags | zset::add_flags::lt;
        long long added = 0, updated = 0;
        std::optional<double> incr_reply;
        for (std::size_t j = 0; j < elements; ++j) {
            const std::string_view member = a[scoreidx + 1 + j * 2];
            double score = scores_[j];
            bool exists = true;
            bool lp = false;
            if (is_listpack(s)) {
                exists = s.contains(member);
                lp = exists || xx || prepare_insert(s, member);
            }
            if (incr) {
                const std::size_t before = s.size();
                std::optional<double> r;
                if (lp && !exists) {
                    // A new member: Redis replies the increment as given (even -0) and its
                    // listpack stores it as an integer when it is one.
                    if (!xx) {
                        s.add(member, listpack_score(score), flags);
                        r = score;
                    }
                } else {
                    const auto current = s.score(member);
                    if (current && !nx && std::isnan(*current + score))
                        return o.error(err_nan_result);  // NX blocks before the sum, as Redis
                    r = s.increment(member, score, flags);
                }
                if (r) {
                    if (s.size() > before)
                        ++added;
                    else
                        ++updated;
                }
                incr_reply = r;
                continue;
            }
            const zset::add_status st = s.add(member, lp ? listpack_score(score) : score, flags);
            if (st == zset::add_status::added)
                ++added;
            else if (st == zset::add_status::updated)
                ++updated;
        }
        if (added > 0 || updated > 0) signal(key);
        if (incr) return incr_reply ? o.dbl(*incr_reply) : o.null();
        o.integer(ch ? added + updated : added);
    }

    // ---- ZREM ---------------------------------------------------------------------------------

    template <class Out>
    void z_rem(call& c, Out& o) {
        zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) return o.integer(0);
        long long deleted = 0;
        for (std::size_t j = 2; j < c.argc; ++j) {
            if (z.set->erase(c.argv[j])) ++deleted;
            if (z.set->empty()) {
                db_.erase(z.it);
                break;
            }
        }
        o.integer(deleted);
    }

    // ---- lookups --------------------------------------------------------------------------------

    template <class Out>
    void z_score(call& c, Out& o) {
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) return o.null();
        const auto sc = z.set->score(c.argv[2]);
        if (sc) return o.dbl(*sc);
        o.null();
    }

    template <class Out>
    void z_mscore(call& c, Out& o) {
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        o.array(c.argc - 2);
        for (std::size_t j = 2; j < c.argc; ++j) {
            const auto sc = z.set ? z.set->score(c.argv[j]) : std::nullopt;
            if (sc)
                o.dbl(*sc);
            else
                o.null();
        }
    }

    template <class Out>
    void z_card(call& c, Out& o) {
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        o.integer(z.set ? static_cast<long long>(z.set->size()) : 0);
    }

    static std::optional<zset::score_range<double>> score_range_of(std::string_view min,
                                                                   std::string_view max) {
        const auto lo = parse_score_bound(min);
        if (!lo) return std::nullopt;
        const auto hi = parse_score_bound(max);
        if (!hi) return std::nullopt;
        zset::score_range<double> r;
        r.min = {lo->value, lo->exclusive};
        r.max = {hi->value, hi->exclusive};
        return r;
    }

    static zset::lex_bound<std::string_view> lex_of(const lex_bound& b) {
        switch (b.kind) {
        case lex_bound::inclusive:
            return zset::lex_bound<std::string_view>::inclusive(b.value);
        case lex_bound::exclusive:
            return zset::lex_bound<std::string_view>::exclusive(b.value);
        case lex_bound::neg_inf:
            return zset::lex_bound<std::string_view>::minus_infinity();
        case lex_bound::pos_inf:
            break;
        }
        return zset::lex_bound<std::string_view>::plus_infinity();
    }

    static std::optional<zset::lex_range<std::string_view>> lex_range_of(std::string_view min,
                                                                         std::string_view max) {
        const auto lo = parse_lex_bound(min);
        if (!lo) return std::nullopt;
        const auto hi = parse_lex_bound(max);
        if (!hi) return std::nullopt;
        zset::lex_range<std::string_view> r;
        r.min = lex_of(*lo);
        r.max = lex_of(*hi);
        return r;
    }

    template <class Out>
    void z_count(call& c, Out& o) {
        const auto range = score_range_of(c.argv[2], c.argv[3]);
        if (!range) return o.error(err_minmax_not_float);
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        o.integer(z.set ? static_cast<long long>(z.set->count(*range)) : 0);
    }

    template <class Out>
    void z_lexcount(call& c, Out& o) {
        const auto range = lex_range_of(c.argv[2], c.argv[3]);
        if (!range) return o.error(err_lex_range);
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        o.integer(z.set ? static_cast<long long>(z.set->lex_count(*range)) : 0);
    }

    template <class Out>
    void z_rank(call& c, Out& o, bool reverse) {
        if (c.argc > 4) return o.error(err_wrong_arity(c.spec->name));
        bool withscore = false;
        if (c.argc == 4) {
            if (!detail::opt_eq(c.argv[3], "withscore")) return o.error(err_syntax);
            withscore = true;
        }
        const zlookup z = zfind(c.argv[1]);
        if (z.set == nullptr && !z.wrongtype) return withscore ? o.null_array() : o.null();
        if (z.wrongtype) return o.error(err_wrongtype);
        const auto r =
            reverse ? z.set->rev_rank_with_score(c.argv[2]) : z.set->rank_with_score(c.argv[2]);
        if (!r) return withscore ? o.null_array() : o.null();
        if (withscore) o.array(2);
        o.integer(static_cast<long long>(r->first));
        if (withscore) o.dbl(r->second);
    }

    // ---- ZRANGE family ----------------------------------------------------------------------

    template <class Out>
    void z_range(call& c, Out& o, std::size_t src, bool to_store, range_kind kind, range_dir dir) {
        const std::string_view* a = c.argv;
        std::size_t minidx = src + 1, maxidx = src + 2;
        bool withscores = false;
        long long offset = 0, limit = -1;
        for (std::size_t j = src + 3; j < c.argc; ++j) {
            const std::size_t left = c.argc - j - 1;
            if (!to_store && detail::opt_eq(a[j], "withscores")) {
                withscores = true;
            } else if (detail::opt_eq(a[j], "limit") && left >= 2) {
                const auto off = parse_integer(a[j + 1]);
                if (!off) return o.error(err_not_integer);
                const auto cnt = parse_integer(a[j + 2]);
                if (!cnt) return o.error(err_not_integer);
                offset = *off;
                limit = *cnt;
                j += 2;
            } else if (dir == range_dir::any && detail::opt_eq(a[j], "rev")) {
                dir = range_dir::reverse;
            } else if (kind == range_kind::any && detail::opt_eq(a[j], "bylex")) {
                kind = range_kind::lex;
            } else if (kind == range_kind::any && detail::opt_eq(a[j], "byscore")) {
                kind = range_kind::score;
            } else {
                return o.error(err_syntax);
            }
        }
        if (dir == range_dir::any) dir = range_dir::forward;
        if (kind == range_kind::any) kind = range_kind::rank;
        if (limit != -1 && kind == range_kind::rank) return o.error(err_limit_needs_by);
        if (withscores && kind == range_kind::lex) return o.error(err_withscores_bylex);
        const bool reverse = dir == range_dir::reverse;
        if (reverse && kind != range_kind::rank) std::swap(minidx, maxidx);

        long long start = 0, end = 0;
        std::optional<zset::score_range<double>> srange;
        std::optional<zset::lex_range<std::string_view>> lrange;
        switch (kind) {
        case range_kind::score:
            srange = score_range_of(a[minidx], a[maxidx]);
            if (!srange) return o.error(err_minmax_not_float);
            break;
        case range_kind::lex:
            lrange = lex_range_of(a[minidx], a[maxidx]);
            if (!lrange) return o.error(err_lex_range);
            break;
        default: {
            const auto s = parse_integer(a[minidx]);
            if (!s) return o.error(err_not_integer);
            const auto e = parse_integer(a[maxidx]);
            if (!e) return o.error(err_not_integer);
            start = *s;
            end = *e;
            break;
        }
        }
        const zlookup z = zfind(a[src]);
        if (z.set == nullptr && !z.wrongtype) {
            if (to_store) return store_result_empty(a[1], o);
            return o.array(0);
        }
        if (z.wrongtype) return o.error(err_wrongtype);
        const set_type& s = *z.set;
        const zset::limit lim{offset, limit};
        if (!to_store) {
            switch (kind) {
            case range_kind::score:
                return reverse ? emit_range(o, s.rev_range_by_score(*srange, lim), withscores)
                               : emit_range(o, s.range_by_score(*srange, lim), withscores);
            case range_kind::lex:
                return reverse ? emit_range(o, s.rev_range_by_lex(*lrange, lim), false)
                               : emit_range(o, s.range_by_lex(*lrange, lim), false);
            default:
                return reverse ? emit_range(o, s.rev_range_by_rank(start, end), withscores)
                               : emit_range(o, s.range_by_rank(start, end), withscores);
            }
        }
        std::vector<scored_view> els;
        auto collect = [&els](const auto& r) {
            els.reserve(r.size());
            for (const auto& e : r) els.emplace_back(e.member, e.score);
        };
        switch (kind) {
        case range_kind::score:
            if (reverse)
                collect(s.rev_range_by_score(*srange, lim));
            else
                collect(s.range_by_score(*srange, lim));
            break;
        case range_kind::lex:
            if (reverse)
                collect(s.rev_range_by_lex(*lrange, lim));
            else
                collect(s.range_by_lex(*lrange, lim));
            break;
        default:
            if (reverse)
                collect(s.rev_range_by_rank(start, end));
            else
                collect(s.range_by_rank(start, end));
            break;
        }
        if (els.empty()) return store_result_empty(a[1], o);
        // Redis creates the destination from a size hint (the exact length for a rank range,
        // none for score and lex ranges): a skiplist when the hint exceeds the entries limit,
        // else a listpack. It then adds the elements one by one in range order, converting at
        // the first one that exceeds the thresholds; those added before went through the
        // listpack (-0 became 0).
        std::size_t fit = 0;
        if (kind != range_kind::rank || els.size() <= opts_.zset_max_listpack_entries) {
            while (fit < els.size() && fit + 1 <= opts_.zset_max_listpack_entries &&
                   els[fit].first.size() <= opts_.zset_max_listpack_value)
                ++fit;
        }
        for (std::size_t i = 0; i < fit; ++i) els[i].second = listpack_score(els[i].second);
        if (reverse) std::reverse(els.begin(), els.end());
        set_type built = build_set(els, fit == els.size());
        const auto count = static_cast<long long>(built.size());
        store(a[1], value(std::move(built)));
        o.integer(count);
    }

    /// *STORE with an empty result: deletes the destination, replies 0.
    template <class Out>
    void store_result_empty(std::string_view dst, Out& o) {
        erase_key(dst);
        o.integer(0);
    }

    /// *STORE: builds the result (views may point into any stored set, even the destination)
    /// before replacing the destination.
    template <class Out>
    void store_result(std::string_view dst, std::vector<scored_view>& els, Out& o) {
        if (els.empty()) return store_result_empty(dst, o);
        set_type built = build_set(els);
        const auto n = static_cast<long long>(built.size());
        store(dst, value(std::move(built)));
        o.integer(n);
    }

    // ---- ZREMRANGEBY* ---------------------------------------------------------------------------

    template <class Out>
    void z_remrange(call& c, Out& o, range_kind kind) {
        long long start = 0, end = 0;
        std::optional<zset::score_range<double>> srange;
        std::optional<zset::lex_range<std::string_view>> lrange;
        if (kind == range_kind::rank) {
            const auto s = parse_integer(c.argv[2]);
            if (!s) return o.error(err_not_integer);
            const auto e = parse_integer(c.argv[3]);
            if (!e) return o.error(err_not_integer);
            start = *s;
            end = *e;
        } else if (kind == range_kind::score) {
            srange = score_range_of(c.argv[2], c.argv[3]);
            if (!srange) return o.error(err_minmax_not_float);
        } else {
            lrange = lex_range_of(c.argv[2], c.argv[3]);
            if (!lrange) return o.error(err_lex_range);
        }
        zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) return o.integer(0);
        std::size_t removed = 0;
        if (kind == range_kind::rank)
            removed = z.set->erase_range_by_rank(start, end);
        else if (kind == range_kind::score)
            removed = z.set->erase_range_by_score(*srange);
        else
            removed = z.set->erase_range_by_lex(*lrange);
        if (z.set->empty()) db_.erase(z.it);
        o.integer(static_cast<long long>(removed));
    }

    // ---- popping --------------------------------------------------------------------------------

    /// Redis genericZpopCommand. `count` -1 means a single pop without COUNT.
    template <class Out>
    void generic_pop(Out& o, const std::string_view* keys, std::size_t nkeys, bool max,
                     bool emitkey, long long count, bool nested, bool nil_when_empty) {
        zlookup z;
        std::string_view key;
        for (std::size_t i = 0; i < nkeys; ++i) {
            z = zfind(keys[i]);
            if (z.wrongtype) return o.error(err_wrongtype);
            if (z.set != nullptr) {
                key = keys[i];
                break;
            }
        }
        if (z.set == nullptr) return nil_when_empty ? o.null_array() : o.array(0);
        if (count == 0) return o.array(0);
        if (count == -1) count = 1;
        const std::size_t n = std::min(static_cast<std::size_t>(count), z.set->size());
        std::vector<set_type::value_type> popped = max ? z.set->pop_max(n) : z.set->pop_min(n);
        if (!nested && !emitkey) {
            o.array(n * 2);
        } else if (nested && !emitkey) {
            o.array(n);
        } else if (!nested && emitkey) {
            o.array(n * 2 + 1);
            o.bulk(key);
        } else {
            o.array(2);
            o.bulk(key);
            o.array(n);
        }
        for (const auto& e : popped) {
            if (nested) o.array(2);
            o.bulk(e.first);
            o.dbl(e.second);
        }
        if (z.set->empty()) db_.erase(z.it);
    }

    template <class Out>
    void z_popminmax(call& c, Out& o, bool max) {
        if (c.argc > 3) return o.error(err_syntax);
        long long count = -1;
        if (c.argc == 3) {
            const auto v = parse_integer(c.argv[2]);
            if (!v || *v < 0) return o.error(err_out_of_range_positive);
            count = *v;
        }
        const bool nested = o.proto() == protocol::resp3 && count != -1;
        generic_pop(o, c.argv + 1, 1, max, false, count, nested, false);
    }

    /// Redis blockingGenericZpopCommand after the timeout was parsed.
    template <class Out>
    void blocking_pop(call& c, Out& o, const std::string_view* keys, std::size_t nkeys, bool max,
                      long long count, bool nested, bool nil_when_empty, long long timeout_ms) {
        for (std::size_t i = 0; i < nkeys; ++i) {
            const zlookup z = zfind(keys[i]);
            if (z.wrongtype) return o.error(err_wrongtype);
            if (z.set == nullptr) continue;
            return generic_pop(o, keys + i, 1, max, true, count, nested, nil_when_empty);
        }
        if (!c.sess.allow_blocking) return o.null_array();
        c.result.status = exec_status::blocked;
        c.result.block.keys.assign(keys, keys + nkeys);
        c.result.block.timeout_ms = timeout_ms;
    }

    template <class Out>
    void bz_pop(call& c, Out& o, bool max) {
        const detail::timeout_parse t = detail::parse_timeout_ms(c.argv[c.argc - 1]);
        if (!t.error.empty()) return o.error(t.error);
        blocking_pop(c, o, c.argv + 1, c.argc - 2, max, -1, false, false, t.ms);
    }

    template <class Out>
    void z_mpop(call& c, Out& o, bool blocking) {
        const std::size_t numkeys_idx = blocking ? 2 : 1;
        const auto numkeys = parse_integer(c.argv[numkeys_idx]);
        if (!numkeys || *numkeys < 1) return o.error(err_numkeys_positive);
        if (static_cast<unsigned long long>(*numkeys) >= c.argc - numkeys_idx - 1)
            return o.error(err_syntax);
        const std::size_t where_idx = numkeys_idx + static_cast<std::size_t>(*numkeys) + 1;
        bool max = false;
        if (detail::opt_eq(c.argv[where_idx], "min"))
            max = false;
        else if (detail::opt_eq(c.argv[where_idx], "max"))
            max = true;
        else
            return o.error(err_syntax);
        long long count = -1;
        for (std::size_t j = where_idx + 1; j < c.argc; ++j) {
            const bool more = c.argc - 1 > j;
            if (count == -1 && detail::opt_eq(c.argv[j], "count") && more) {
                ++j;
                const auto v = parse_integer(c.argv[j]);
                if (!v || *v < 1) return o.error(err_count_positive);
                count = *v;
            } else {
                return o.error(err_syntax);
            }
        }
        if (count == -1) count = 1;
        const auto nkeys = static_cast<std::size_t>(*numkeys);
        if (!blocking)
            return generic_pop(o, c.argv + numkeys_idx + 1, nkeys, max, true, count, true, true);
        const detail::timeout_parse t = detail::parse_timeout_ms(c.argv[1]);
        if (!t.error.empty()) return o.error(t.error);
        blocking_pop(c, o, c.argv + numkeys_idx + 1, nkeys, max, count, true, true, t.ms);
    }

    // ---- ZRANDMEMBER ----------------------------------------------------------------------------

    template <class Out>
    void z_randmember(call& c, Out& o) {
        if (c.argc >= 3) {
            const auto l = parse_integer(c.argv[2]);
            if (!l) return o.error(err_not_integer);
            if (*l == LLONG_MIN)
                return o.error("ERR value is out of range, value must between "
                               "-9223372036854775807 and 9223372036854775807");
            if (c.argc > 4 || (c.argc == 4 && !detail::opt_eq(c.argv[3], "withscores")))
                return o.error(err_syntax);
            const bool withscores = c.argc == 4;
            if (withscores && (*l < -LLONG_MAX / 2 || *l > LLONG_MAX / 2))
                return o.error(err_out_of_range);
            return randmember_count(c, o, *l, withscores);
        }
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) return o.null();
        o.bulk((*z.set->nth(pick(z.set->size()))).member);
    }

    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }

    template <class Out>
    void randmember_count(call& c, Out& o, long long l, bool withscores) {
        const zlookup z = zfind(c.argv[1]);
        if (z.wrongtype) return o.error(err_wrongtype);
        if (z.set == nullptr) return o.array(0);
        const set_type& s = *z.set;
        const bool uniq = l >= 0;
        const auto count = static_cast<unsigned long long>(uniq ? l : -l);
        if (count == 0) return o.array(0);
        if (!uniq || count == 1) {
            if (count > opts_.max_random_draws) return o.error(err_out_of_range);
            const auto n = static_cast<std::size_t>(count);
            scored_header(o, n, withscores);
            for (std::size_t i = 0; i < n; ++i) {
                const auto e = *s.nth(pick(s.size()));
                scored_element(o, e.member, e.score, withscores);
            }
            return;
        }
        if (count >= s.size()) return emit_range(o, s.range_by_rank(0, -1), withscores);
        const auto picked = s.random_members(static_cast<long long>(count), rng_);
        scored_header(o, picked.size(), withscores);
        for (const auto& e : picked) scored_element(o, e.first, e.second, withscores);
    }

    // ---- ZSCAN --------------------------------------------------------------------------------

    template <class Out>
    void z_scan(call& c, Out& o) {
        const auto cursor = detail::parse_scan_cursor(c.argv[2]);
        if (!cursor) return o.error(err_invalid_cursor);
        const zlookup z = zfind(c.argv[1]);
        if (z.set == nullptr && !z.wrongtype) {
            o.array(2);
            o.bulk("0");
            return o.array(0);
        }
        if (z.wrongtype) return o.error(err_wrongtype);
        long long count = 10;
        std::string_view pattern;
        bool use_pattern = false;
        for (std::size_t i = 3; i < c.argc;) {
            const std::size_t j = c.argc - i;
            if (detail::opt_eq(c.argv[i], "count") && j >= 2) {
                const auto v = parse_integer(c.argv[i + 1]);
                if (!v) return o.error(err_not_integer);
                if (*v < 1) return o.error(err_syntax);
                count = *v;
                i += 2;
            } else if (detail::opt_eq(c.argv[i], "match") && j >= 2) {
                pattern = c.argv[i + 1];
                use_pattern = !(pattern.size() == 1 && pattern[0] == '*');
                i += 2;
            } else {
                return o.error(err_syntax);
            }
        }
        std::vector<scored_view> found;
        const std::uint64_t next = z.set->scan(
            *cursor, static_cast<std::size_t>(count), [&](const set_type::reference& e) {
                if (!use_pattern || glob_match(pattern, e.member))
                    found.emplace_back(e.member, e.score);
            });
        const std::string next_text = std::to_string(next);
        o.array(2);
        o.bulk(next_text);
        o.array(found.size() * 2);
        for (const auto& e : found) {
            o.bulk(e.first);
            o.bulk(format_double_chars(e.second, o.style()).view());
        }
    }

    // ---- set operations -----------------------------------------------------------------------

    static void aggregate_into(double& target, double v, zset::aggregate agg) noexcept {
        switch (agg) {
        case zset::aggregate::sum:
            target = target + v;
            if (std::isnan(target)) target = 0.0;
            break;
        case zset::aggregate::min:
            target = v < target ? v : target;
            break;
        case zset::aggregate::max:
            target = v > target ? v : target;
            break;
        }
    }

    /// ZUNION / ZINTER / ZDIFF (+STORE) / ZINTERCARD: Redis zunionInterDiffGenericCommand.
    template <class Out>
    void z_setop(call& c, Out& o, std::size_t dst_idx, std::size_t numkeys_idx, setop op,
                 bool cardinality_only) {
        const std::string_view* a = c.argv;
        const auto setnum = parse_integer(a[numkeys_idx]);
        if (!setnum) return o.error(err_not_integer);
        if (*setnum < 1) return o.error(err_at_least_one_key(c.spec->name));
        if (static_cast<unsigned long long>(*setnum) > c.argc - (numkeys_idx + 1))
            return o.error(err_syntax);
        const auto n = static_cast<std::size_t>(*setnum);
        struct source {
            const set_type* set;
            double weight;
            std::size_t size() const noexcept { return set ? set->size() : 0; }
        };
        std::vector<source> src;
        src.reserve(n);
        std::size_t j = numkeys_idx + 1;
        for (std::size_t i = 0; i < n; ++i, ++j) {
            const zlookup z = zfind(a[j]);
            if (z.wrongtype) return o.error(err_wrongtype);
            src.push_back(source{z.set, 1.0});
        }
        zset::aggregate agg = zset::aggregate::sum;
        bool withscores = false;
        long long limit = 0;
        const bool store = dst_idx != 0;
        while (j < c.argc) {
            const std::size_t remaining = c.argc - j;
            if (op != setop::set_diff && !cardinality_only && remaining >= n + 1 &&
                detail::opt_eq(a[j], "weights")) {
                ++j;
                for (std::size_t i = 0; i < n; ++i, ++j) {
                    const auto w = parse_score(a[j]);
                    if (!w) return o.error(err_weight_not_float);
                    src[i].weight = *w;
                }
            } else if (op != setop::set_diff && !cardinality_only && remaining >= 2 &&
                       detail::opt_eq(a[j], "aggregate")) {
                ++j;
                if (detail::opt_eq(a[j], "sum"))
                    agg = zset::aggregate::sum;
                else if (detail::opt_eq(a[j], "min"))
                    agg = zset::aggregate::min;
                else if (detail::opt_eq(a[j], "max"))
                    agg = zset::aggregate::max;
                else
                    return o.error(err_syntax);
                ++j;
            } else if (remaining >= 1 && !store && !cardinality_only &&
                       detail::opt_eq(a[j], "withscores")) {
                ++j;
                withscores = true;
            } else if (cardinality_only && remaining >= 2 && detail::opt_eq(a[j], "limit")) {
                ++j;
                const auto v = parse_integer(a[j]);
                if (!v || *v < 0) return o.error(err_limit_negative);
                limit = *v;
                ++j;
            } else {
                return o.error(err_syntax);
            }
        }
        if (op != setop::set_diff) {
            // Redis qsorts by cardinality; glibc's qsort is a stable merge sort.
            std::stable_sort(src.begin(), src.end(),
                             [](const source& x, const source& y) { return x.size() < y.size(); });
        }
        std::vector<scored_view> out;
        unsigned long long cardinality = 0;
        if (op == setop::set_inter) {
            if (src[0].size() > 0) {
                for (const auto& e : *src[0].set) {
                    double score = src[0].weight * e.score;
                    if (std::isnan(score)) score = 0;
                    std::size_t k = 1;
                    for (; k < n; ++k) {
                        if (src[k].set == src[0].set) {
                            aggregate_into(score, e.score * src[k].weight, agg);
                        } else if (const auto v = src[k].set->score(e.member)) {
                            aggregate_into(score, *v * src[k].weight, agg);
                        } else {
                            break;
                        }
                    }
                    if (k != n) continue;
                    if (cardinality_only) {
                        ++cardinality;
                        if (limit != 0 && cardinality >= static_cast<unsigned long long>(limit))
                            break;
                    } else {
                        out.emplace_back(e.member, score);
                    }
                }
            }
        } else if (op == setop::set_union) {
            std::unordered_map<std::string_view, double> acc;
            acc.reserve(src[n - 1].size());
            for (const source& in : src) {
                if (in.size() == 0) continue;
                for (const auto& e : *in.set) {
                    double score = in.weight * e.score;
                    if (std::isnan(score)) score = 0;
                    const auto ins = acc.emplace(e.member, score);
                    if (!ins.second) aggregate_into(ins.first->second, score, agg);
                }
            }
            out.assign(acc.begin(), acc.end());
        } else if (src[0].size() > 0) {
            bool same_as_first = false;
            for (std::size_t k = 1; k < n; ++k)
                same_as_first = same_as_first || src[k].set == src[0].set;
            if (!same_as_first) {
                for (const auto& e : *src[0].set) {
                    bool elsewhere = false;
                    for (std::size_t k = 1; k < n && !elsewhere; ++k)
                        elsewhere = src[k].set != nullptr && src[k].set->contains(e.member);
                    if (!elsewhere) out.emplace_back(e.member, e.score);
                }
            }
        }
        if (cardinality_only) return o.integer(static_cast<long long>(cardinality));
        if (op != setop::set_diff) sort_elements(out);
        if (store) return store_result(a[dst_idx], out, o);
        scored_header(o, out.size(), withscores);
        for (const auto& e : out) scored_element(o, e.first, e.second, withscores);
    }

    // ---- generic commands -----------------------------------------------------------------------

    template <class Out>
    void g_del(call& c, Out& o) {
        long long n = 0;
        for (std::size_t j = 1; j < c.argc; ++j) n += erase_key(c.argv[j]) ? 1 : 0;
        o.integer(n);
    }

    template <class Out>
    void g_exists(call& c, Out& o) {
        long long n = 0;
        for (std::size_t j = 1; j < c.argc; ++j) n += lookup(c.argv[j]) != db_.end() ? 1 : 0;
        o.integer(n);
    }

    template <class Out>
    void g_type(call& c, Out& o) {
        const auto it = lookup(c.argv[1]);
        if (it == db_.end()) return o.simple("none");
        o.simple(std::holds_alternative<set_type>(it->second) ? "zset" : "string");
    }

    template <class Out>
    void g_flush(call& c, Out& o) {
        if (c.argc > 2) return o.error(err_syntax);
        if (c.argc == 2 && !detail::opt_eq(c.argv[1], "async") &&
            !detail::opt_eq(c.argv[1], "sync"))
            return o.error(err_syntax);
        db_.clear();
        o.simple("OK");
    }

    template <class Out>
    void g_ping(call& c, Out& o) {
        if (c.argc > 2) return o.error(err_wrong_arity("ping"));
        if (c.argc == 1) return o.simple("PONG");
        o.bulk(c.argv[1]);
    }

    template <class Out>
    void g_select(call& c, Out& o) {
        const auto id = parse_integer(c.argv[1]);
        if (!id) return o.error(err_not_integer);
        if (*id < INT_MIN || *id > INT_MAX)
            return o.error("ERR value is out of range, value must between -2147483648 and "
                           "2147483647");
        if (*id != 0) return o.error("ERR DB index is out of range");
        o.simple("OK");
    }

    template <class Out>
    void g_set(call& c, Out& o) {
        if (c.argc != 3) return o.error(err_syntax);
        store(c.argv[1], value(std::string(c.argv[2])));
        o.simple("OK");
    }

    template <class Out>
    void g_get(call& c, Out& o) {
        const auto it = lookup(c.argv[1]);
        if (it == db_.end()) return o.null();
        const std::string* s = std::get_if<std::string>(&it->second);
        if (s == nullptr) return o.error(err_wrongtype);
        o.bulk(*s);
    }

    template <class Out>
    void g_hello(call& c, Out& o) {
        std::size_t next = 1;
        long long ver = 0;
        if (c.argc >= 2) {
            const auto v = parse_integer(c.argv[next++]);
            if (!v) return o.error("ERR Protocol version is not an integer or out of range");
            if (*v < 2 || *v > 3) return o.error("NOPROTO unsupported protocol version");
            ver = *v;
        }
        for (std::size_t j = next; j < c.argc; ++j) {
            const std::size_t more = c.argc - 1 - j;
            if (detail::opt_eq(c.argv[j], "auth") && more >= 2) {
                if (detail::c_string_prefix(c.argv[j + 1]) != "default")
                    return o.error("WRONGPASS invalid username-password pair or user is disabled.");
                j += 2;
            } else if (detail::opt_eq(c.argv[j], "setname") && more >= 1) {
                ++j;
            } else {
                std::string text = "ERR Syntax error in HELLO option '";
                text += detail::c_string_prefix(c.argv[j]);
                text += '\'';
                return o.error(text);
            }
        }
        if (ver != 0) c.sess.proto = ver == 3 ? protocol::resp3 : protocol::resp2;
        // The map is written in the (possibly new) protocol, as Redis does.
        reply_hello(c, o);
    }

    template <class Out>
    void reply_hello(call& c, Out& o) {
        const bool resp3 = c.sess.proto == protocol::resp3;
        o.set_proto(c.sess.proto);
        o.map(7);
        o.bulk("server");
        o.bulk("redis");
        o.bulk("version");
        o.bulk(opts_.server_version);
        o.bulk("proto");
        o.integer(resp3 ? 3 : 2);
        o.bulk("id");
        o.integer(c.sess.id);
        o.bulk("mode");
        o.bulk("standalone");
        o.bulk("role");
        o.bulk("master");
        o.bulk("modules");
        o.array(0);
    }

    // ---- CONFIG / OBJECT / COMMAND --------------------------------------------------------------

    struct config_param {
        std::string_view name;
        int which;  // 0 entries, 1 value, 2 save, 3 appendonly
    };
    static constexpr config_param config_params[] = {
        {"zset-max-listpack-entries", 0},
        {"zset-max-ziplist-entries", 0},
        {"zset-max-listpack-value", 1},
        {"zset-max-ziplist-value", 1},
        {"save", 2},
        {"appendonly", 3},
    };

    std::string config_value(int which) const {
        switch (which) {
        case 0:
            return std::to_string(opts_.zset_max_listpack_entries);
        case 1:
            return std::to_string(opts_.zset_max_listpack_value);
        case 2:
            return save_;
        default:
            return appendonly_;
        }
    }

    /// CONFIG GET pattern...: a pattern without glob characters names one parameter
    /// (case-insensitively) and is echoed as typed; a glob lists the canonical names it matches.
    /// Each parameter is listed once.
    template <class Out>
    void g_config_get(call& c, Out& o) {
        std::vector<std::pair<std::string_view, const config_param*>> hits;
        const auto listed = [&hits](const config_param* p) {
            for (const auto& h : hits)
                if (h.second == p) return true;
            return false;
        };
        for (std::size_t j = 2; j < c.argc; ++j) {
            const std::string_view pattern = detail::c_string_prefix(c.argv[j]);
            if (pattern.find_first_of("*?[") == std::string_view::npos) {
                for (const config_param& p : config_params)
                    if (detail::opt_eq(pattern, p.name) && !listed(&p))
                        hits.emplace_back(pattern, &p);
                continue;
            }
            for (const config_param& p : config_params)
                if (!listed(&p) && glob_match(pattern, p.name, true)) hits.emplace_back(p.name, &p);
        }
        o.map(hits.size());
        for (const auto& h : hits) {
            o.bulk(h.first);
            o.bulk(config_value(h.second->which));
        }
    }

    template <class Out>
    void g_config_set(call& c, Out& o) {
        if (c.argc % 2 != 0) return o.error(err_wrong_arity("config|set"));
        const std::size_t pairs = (c.argc - 2) / 2;
        std::vector<int> which(pairs);
        for (std::size_t i = 0; i < pairs; ++i) {
            const std::string_view name = c.argv[2 + i * 2];
            const config_param* found = nullptr;
            for (const config_param& p : config_params)
                if (detail::opt_eq(name, p.name)) found = &p;
            if (found == nullptr) {
                std::string text = "ERR Unknown option or number of arguments for CONFIG SET - '";
                text += detail::c_string_prefix(name);
                text += '\'';
                return o.error(text);
            }
            for (std::size_t k = 0; k < i; ++k) {
                if (detail::opt_eq(c.argv[2 + k * 2], found->name) &&
                    detail::opt_eq(name, found->name)) {
                    std::string text = "ERR CONFIG SET failed (possibly related to argument '";
                    text += detail::c_string_prefix(name);
                    text += "') - duplicate parameter";
                    return o.error(text);
                }
            }
            which[i] = found->which;
        }
        std::size_t entries = opts_.zset_max_listpack_entries;
        std::size_t value_len = opts_.zset_max_listpack_value;
        std::string save = save_, appendonly = appendonly_;
        for (std::size_t i = 0; i < pairs; ++i) {
            const std::string_view arg = c.argv[3 + i * 2];
            const auto fail = [&](std::string_view why) {
                std::string text = "ERR CONFIG SET failed (possibly related to argument '";
                text += detail::c_string_prefix(c.argv[2 + i * 2]);
                text += "') - ";
                text += why;
                o.error(text);
            };
            if (which[i] <= 1) {
                // zset-max-listpack-entries is an integer config (string2ll); -value is a memory
                // config (memtoull: digits and an optional unit, "" is 0).
                unsigned long long v = 0;
                if (which[i] == 0) {
                    const auto n = parse_integer(arg);
                    if (!n) return fail("argument couldn't be parsed into an integer");
                    v = static_cast<unsigned long long>(*n);
                } else {
                    const auto n = parse_memory(arg);
                    if (!n) return fail("argument must be a memory value");
                    v = *n;
                }
                if (v > static_cast<unsigned long long>(LLONG_MAX))
                    return fail("argument must be between 0 and 9223372036854775807 inclusive");
                (which[i] == 0 ? entries : value_len) = static_cast<std::size_t>(v);
            } else if (which[i] == 2) {
                save.assign(arg.data(), arg.size());
            } else {
                if (!detail::opt_eq(arg, "yes") && !detail::opt_eq(arg, "no"))
                    return fail("argument must be 'yes' or 'no'");
                appendonly = detail::opt_eq(arg, "yes") ? "yes" : "no";
            }
        }
        set_listpack_limits(entries, value_len);
        save_ = std::move(save);
        appendonly_ = std::move(appendonly);
        o.simple("OK");
    }

    /// Redis memtoull(): decimal digits, then nothing, "b", "k", "kb", "m", "mb", "g" or "gb"
    /// (case-insensitive); "" is 0; the value wraps like Redis's unsigned arithmetic.
    static std::optional<unsigned long long> parse_memory(std::string_view arg) {
        const std::string_view s = detail::c_string_prefix(arg);
        if (!s.empty() && s[0] == '-') return std::nullopt;
        std::size_t digits = 0;
        while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
        const std::string_view unit = s.substr(digits);
        unsigned long long mul = 0;
        const std::pair<std::string_view, unsigned long long> units[] = {
            {"", 1},           {"b", 1},
            {"k", 1000},       {"kb", 1024},
            {"m", 1000000},    {"mb", 1024 * 1024},
            {"g", 1000000000}, {"gb", 1024ull * 1024 * 1024}};
        for (const auto& u : units)
            if (detail::opt_eq(unit, u.first)) mul = u.second;
        if (mul == 0 || digits >= 128) return std::nullopt;
        unsigned long long v = 0;
        for (std::size_t i = 0; i < digits; ++i) {
            const auto d = static_cast<unsigned long long>(s[i] - '0');
            if (v > (ULLONG_MAX - d) / 10) {
                v = ULLONG_MAX;  // strtoull saturates (ERANGE is not checked by Redis)
                break;
            }
            v = v * 10 + d;
        }
        return v * mul;
    }

    template <class Out>
    void g_object_encoding(call& c, Out& o) {
        const auto it = lookup(c.argv[2]);
        if (it == db_.end()) return o.null();
        if (const set_type* s = std::get_if<set_type>(&it->second))
            return o.bulk(is_listpack(*s) ? "listpack" : "skiplist");
        const std::string& str = std::get<std::string>(it->second);
        if (str.size() <= 20 && parse_integer(str)) return o.bulk("int");
        o.bulk(str.size() <= 44 ? "embstr" : "raw");
    }

    template <class Out>
    static void words(Out& o, std::string_view list) {
        std::size_t n = 0;
        for (std::size_t i = 0; i < list.size();) {
            const std::size_t e = std::min(list.find(' ', i), list.size());
            if (e > i) ++n;
            i = e + 1;
        }
        o.array(n);
        for (std::size_t i = 0; i < list.size();) {
            const std::size_t e = std::min(list.find(' ', i), list.size());
            if (e > i) o.simple(list.substr(i, e - i));
            i = e + 1;
        }
    }

    template <class Out>
    static void command_info(Out& o, const detail::command_spec& s) {
        o.array(10);
        o.bulk(s.name);
        o.integer(s.arity);
        words(o, s.flags);
        o.integer(s.first_key);
        o.integer(s.last_key);
        o.integer(s.step);
        words(o, s.acl);
        o.array(0);  // tips
        o.array(0);  // key specifications
        o.array(s.subcommand_count);
        for (std::size_t i = 0; i < s.subcommand_count; ++i) command_info(o, s.subcommands[i]);
    }

    template <class Out>
    void g_command_list(Out& o, bool names_only) {
        o.array(std::size(detail::command_table));
        for (const detail::command_spec& s : detail::command_table) {
            if (names_only)
                o.bulk(s.name);
            else
                command_info(o, s);
        }
    }

    template <class Out>
    void g_command_info(call& c, Out& o) {
        if (c.argc == 2) return g_command_list(o, false);
        o.array(c.argc - 2);
        for (std::size_t j = 2; j < c.argc; ++j) {
            const detail::command_spec* s = detail::find_command(c.argv[j]);
            if (s == nullptr)
                o.null();
            else
                command_info(o, *s);
        }
    }

    // ---- DUMP / RESTORE -------------------------------------------------------------------------

    /// DUMP writes the key's current encoding, as Redis does: ZSET_LISTPACK or ZSET_2.
    static std::string dump_set(const set_type& s) {
        zset::rdb::dump_options opt;
        opt.force_type = is_listpack(s) ? zset::rdb::payload_type::zset_listpack
                                        : zset::rdb::payload_type::zset_2;
        return zset::dump(s, opt);
    }

    template <class Out>
    void g_dump(call& c, Out& o) {
        const auto it = lookup(c.argv[1]);
        if (it == db_.end()) return o.null();
        if (const set_type* s = std::get_if<set_type>(&it->second)) return o.bulk(dump_set(*s));
        o.bulk(zset::detail::rdb::dump_string_object(std::get<std::string>(it->second),
                                                     zset::rdb::rdb_version_redis_7_0));
    }

    template <class Out>
    void g_restore(call& c, Out& o) {
        bool replace = false;
        for (std::size_t j = 4; j < c.argc; ++j) {
            const std::size_t additional = c.argc - j - 1;
            if (detail::opt_eq(c.argv[j], "replace")) {
                replace = true;
            } else if (detail::opt_eq(c.argv[j], "absttl")) {
                // accepted; only TTL 0 is supported
            } else if (detail::opt_eq(c.argv[j], "idletime") && additional >= 1) {
                const auto v = parse_integer(c.argv[j + 1]);
                if (!v) return o.error(err_not_integer);
                if (*v < 0) return o.error("ERR Invalid IDLETIME value, must be >= 0");
                ++j;
            } else if (detail::opt_eq(c.argv[j], "freq") && additional >= 1) {
                const auto v = parse_integer(c.argv[j + 1]);
                if (!v) return o.error(err_not_integer);
                if (*v < 0 || *v > 255)
                    return o.error("ERR Invalid FREQ value, must be >= 0 and <= 255");
                ++j;
            } else {
                return o.error(err_syntax);
            }
        }
        const std::string_view key = c.argv[1];
        if (!replace && lookup(key) != db_.end())
            return o.error("BUSYKEY Target key name already exists.");
        const auto ttl = parse_integer(c.argv[2]);
        if (!ttl) return o.error(err_not_integer);
        if (*ttl < 0) return o.error("ERR Invalid TTL value, must be >= 0");
        // No expiry here: a TTL is refused once the payload is known to be good (the errors
        // Redis would give come first).
        constexpr std::string_view ttl_unsupported = "ERR TTL is not supported by this keyspace";
        namespace codec = zset::detail::rdb;
        codec::object_payload obj;
        const codec::decode_status st = codec::decode_object(c.argv[3], {}, obj);
        if (!st.ok() || obj.type == codec::object_payload::kind::set)
            return o.error(
                codec::redis_error_text(st.ok() ? codec::error_kind::bad_data_format : st.kind()));
        if (*ttl > 0) return o.error(ttl_unsupported);
        if (obj.type == codec::object_payload::kind::string) {
            store(key, value(std::move(obj.text)));
            return o.simple("OK");
        }
        std::size_t longest = 0;
        for (const auto& e : obj.elements) longest = std::max(longest, e.first.size());
        const auto type = static_cast<zset::rdb::payload_type>(obj.rdb_type);
        const bool packed = type == zset::rdb::payload_type::zset_listpack ||
                            type == zset::rdb::payload_type::zset_ziplist;
        const bool listpack = obj.elements.size() <= opts_.zset_max_listpack_entries &&
                              (packed || longest <= opts_.zset_max_listpack_value);
        set_type built = build_set(obj.elements, listpack);
        store(key, value(std::move(built)));
        o.simple("OK");
    }

    // ---- state --------------------------------------------------------------------------------

    keyspace_options opts_;
    table db_;
    std::mt19937_64 rng_;
    std::unordered_map<std::string, std::size_t> watched_;
    std::vector<std::string> ready_;
    std::unordered_set<std::string> ready_set_;
    std::string save_;
    std::string appendonly_ = "no";
    long long last_session_id_ = 0;
    std::string key_buf_;  ///< lookup key of non-const operations (no allocation per call)
    std::vector<std::string_view> argv_;
    std::vector<double> scores_;
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_KEYSPACE_HPP
