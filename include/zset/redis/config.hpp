// zset::redis::keyspace_options — the Redis configuration a keyspace emulates, and the table of
// parameters CONFIG GET / CONFIG SET see.
// SPDX-License-Identifier: MIT
//
// Each parameter has one row in config_parameters(): its name (aliases are separate rows, as in
// Redis 7.0), its kind (how a value is parsed and printed), and the option it reads and writes.
// CONFIG SET validates every value before changing anything (all or nothing).
//
// Thread safety: values and pure functions.
#ifndef ZSET_REDIS_CONFIG_HPP
#define ZSET_REDIS_CONFIG_HPP

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "../common.hpp"
#include "../detail/redis_text.hpp"
#include "numbers.hpp"
#include "values.hpp"

namespace zset::redis {

/// Who may run DEBUG (Redis's enable-debug-command).
enum class debug_access { no, yes, local };

/// The plain-set encoding rules of a Redis version (keyspace_options::set_encodings).
enum class set_encoding_rules { redis_7_2, redis_7_0 };

/// A server family whose answers a keyspace or the module follows (server_rules::of).
enum class server_family : unsigned char { redis, valkey };

/// How ZADD / ZINCRBY choose a key's encoding before adding (server_rules::zadd_hint).
enum class zadd_encoding_hint : unsigned char {
    /// Redis 7.0: a new key starts in the encoding its first member needs; a key converts only
    /// as members are added.
    none,
    /// Redis 7.2 and later, Valkey 7.2: a new key starts in skiplist encoding when the pairs
    /// outnumber zset-max-listpack-entries or the first member is longer than
    /// zset-max-listpack-value; a listpack key converts first when the pairs outnumber it.
    pair_count,
    /// Valkey 8.0 and later: as pair_count, but for new and existing keys alike, and with the
    /// longest member of all pairs against zset-max-listpack-value.
    pair_count_and_length,
};

/// Where Redis versions and Valkey answer the commands this layer serves differently: the
/// answers of one server. Handlers read them through their context (command.hpp, rules()):
/// the keyspace's from keyspace_options::rules, the module's from what it detects at load.
/// (Double replies and plain-set encodings differ too: keyspace_options::double_format and
/// set_encodings, which the reply sink and the set values read.)
struct server_rules {
    /// How scores (ZADD, ZINCRBY, WEIGHTS) and score-range bounds are read: strtod(3) before
    /// Redis 8.0 and in Valkey; fast_float from Redis 8.0 on (numbers.hpp, score_syntax).
    score_syntax scores = score_syntax::strtod;
    /// LIMIT with a negative offset (ZRANGEBYSCORE, ZRANGEBYLEX and their REV and ZRANGE /
    /// ZRANGESTORE forms). false: nothing is selected (Redis before 7.4, Valkey before 8.0).
    /// true (Redis 7.4 and later, Valkey 8.0 and later): on a skiplist-encoded key the offset
    /// counts back from the end of the range in the walking order (-1: its last element), so
    /// the command selects from that element on; on a listpack-encoded key nothing is selected
    /// still. (Those servers find the first element of a skiplist range by rank, taking a
    /// negative rank from the range's end, while their listpack walk steps past the end.)
    bool negative_offset_from_end = false;
    /// BZPOPMIN / BZPOPMAX / BZMPOP: a timeout of more than LLONG_MAX milliseconds is "ERR
    /// timeout is out of range" (Redis 7.2 and later, Valkey); before 7.2 the conversion
    /// overflows and the reply is "ERR timeout is negative".
    bool timeout_overflow_is_range_error = true;
    /// SCAN / ZSCAN cursors: strtoul(3) with no leading blank ("" is 0, "-1" wraps around) before
    /// Redis 7.4 and Valkey 8.0; string2ull from then on (arguments.hpp, parse_scan_cursor).
    bool scan_cursor_string2ull = false;
    /// ZRANK / ZREVRANK ... WITHSCORE (Redis 7.2 and later, Valkey); off, the commands take
    /// exactly key and member, and more is "ERR wrong number of arguments" (Redis 7.0).
    bool rank_withscore = true;
    /// ZADD's encoding choice before it adds. Visible in OBJECT ENCODING, and in scores: a
    /// listpack stores an integral score as an integer, so -0 added to a listpack reads back 0.
    zadd_encoding_hint zadd_hint = zadd_encoding_hint::pair_count;

    /// The rules of `family` at `version`, written as RedisModule_GetServerVersion gives it
    /// (0x00MMmmpp; Valkey gives its own version, an unstable build 255.255.255).
    static constexpr server_rules of(server_family family, unsigned version) noexcept {
        server_rules r;
        const bool valkey = family == server_family::valkey;
        r.scores =
            !valkey && version >= 0x080000u ? score_syntax::fast_float : score_syntax::strtod;
        r.negative_offset_from_end = version >= (valkey ? 0x080000u : 0x070400u);
        r.scan_cursor_string2ull = r.negative_offset_from_end;
        r.rank_withscore = valkey || version >= 0x070200u;
        r.timeout_overflow_is_range_error = valkey || version >= 0x070200u;
        r.zadd_hint = valkey && version >= 0x080000u   ? zadd_encoding_hint::pair_count_and_length
                      : valkey || version >= 0x070200u ? zadd_encoding_hint::pair_count
                                                       : zadd_encoding_hint::none;
        return r;
    }
};

/// CPU time and memory of the process hosting a keyspace, as its server measures them (the
/// library itself uses standard C++ only): INFO's cpu section and used_memory_rss.
struct process_usage {
    long long cpu_sys_us = 0;           ///< system CPU time of the process
    long long cpu_user_us = 0;          ///< user CPU time of the process
    long long cpu_sys_children_us = 0;  ///< ... of its terminated, waited-for children
    long long cpu_user_children_us = 0;
    long long cpu_sys_main_thread_us = 0;  ///< ... of the thread that runs the commands
    long long cpu_user_main_thread_us = 0;
    unsigned long long rss_bytes = 0;  ///< resident set size
};

/// What INFO reports about the process hosting a keyspace, which only its server knows. Each
/// field is optional: left empty or 0 it is reported as Redis reports what it does not have
/// (an empty text, 0).
struct host_info {
    std::string os;                ///< server: os ("Linux 6.1.0-18-amd64 x86_64", from uname)
    long long process_id = 0;      ///< server: process_id
    std::string executable;        ///< server: executable (absolute path)
    std::string config_file;       ///< server: config_file
    std::string multiplexing_api;  ///< server: multiplexing_api ("epoll")
    unsigned long long total_system_memory = 0;  ///< memory: total_system_memory (bytes)
    /// Read each time INFO reports the cpu section or used_memory_rss; empty: all 0.
    std::function<process_usage()> usage;
};

/// Settings of a keyspace (the Redis configuration it emulates). CONFIG SET changes the
/// modifiable ones at run time; see config_parameters().
struct keyspace_options {
    /// zset-max-listpack-entries: a set with more members is skiplist encoded (default 128).
    std::size_t zset_max_listpack_entries = 128;
    /// zset-max-listpack-value: a set with a longer member is skiplist encoded (default 64).
    std::size_t zset_max_listpack_value = 64;
    /// set-max-intset-entries: a plain set of integers with more members is not an intset.
    std::size_t set_max_intset_entries = 512;
    /// set-max-listpack-entries: a plain set with more members is a hash table (default 128).
    std::size_t set_max_listpack_entries = 128;
    /// set-max-listpack-value: a plain set with a longer member is a hash table (default 64).
    std::size_t set_max_listpack_value = 64;
    /// Which Redis's plain-set encodings to follow: 7.2's (intset, listpack, hashtable, the
    /// default) or 7.0's (intset, hashtable; the set-max-listpack-* parameters are then ignored).
    set_encoding_rules set_encodings = set_encoding_rules::redis_7_2;
    /// databases: how many numbered databases SELECT may choose from (fixed; default 16).
    std::size_t databases = 16;
    /// requirepass: the default user's password; empty = none (every client is authenticated).
    std::string requirepass;
    /// protected-mode: with no password, refuse clients that are not on the loopback interface.
    bool protected_mode = true;
    /// enable-debug-command (fixed): no (default, as Redis 7.0), yes, or local connections only.
    debug_access enable_debug_command = debug_access::no;
    /// save / appendonly: accepted and reported, nothing is persisted.
    std::string save;
    bool appendonly = false;
    /// hz: how often per second a server runs active expiry (keyspace::cron).
    std::size_t hz = 10;
    /// maxclients: reported; a server enforces it.
    std::size_t maxclients = 10000;
    /// port / bind (fixed): what the server listens on, as CONFIG GET and INFO report it.
    std::size_t port = 6379;
    std::string bind = "127.0.0.1";
    /// How doubles are written: `shortest` (Redis >= 7.2) or `percent17g` (Redis <= 7.0).
    format_style double_format = format_style::shortest;
    /// Seed of the generator behind ZRANDMEMBER.
    std::uint64_t random_seed = 0x7a7365745f6b73ull;
    /// Version reported by HELLO and INFO.
    std::string server_version = "7.2.0";
    /// Whose answers the commands give where servers differ (default: Redis 7.2's, the
    /// version reported).
    server_rules rules = server_rules::of(server_family::redis, 0x070200u);
    /// Largest number of draws ZRANDMEMBER with a negative count may make (its reply size is
    /// otherwise unbounded); above it the command fails with "ERR value is out of range".
    std::size_t max_random_draws = std::size_t{1} << 24;
    /// The clock, in Unix milliseconds (expiry, TTL, blocking timeouts); empty = the system
    /// clock. Tests install a fake one.
    std::function<long long()> clock;
    /// The process hosting the keyspace, for INFO (a server fills it in).
    host_info host;
};

namespace detail {

/// The container options the thresholds in force give: set on a sorted set before a write, so
/// the container applies Redis's conversion rules itself.
inline zset::options zset_options_of(const keyspace_options& o) noexcept {
    zset::options z;
    z.max_listpack_entries = o.zset_max_listpack_entries;
    z.max_listpack_value = o.zset_max_listpack_value;
    return z;
}

/// The plain-set thresholds and rules in force.
inline set_value::limits set_limits_of(const keyspace_options& o) noexcept {
    if (o.set_encodings == set_encoding_rules::redis_7_0)
        return set_value::limits::redis_7_0(o.set_max_intset_entries);
    return set_value::limits{o.set_max_intset_entries, o.set_max_listpack_entries,
                             o.set_max_listpack_value, true};
}

/// How a parameter's value is parsed and printed.
enum class config_kind {
    integer,  ///< string2ll, 0..LLONG_MAX (Redis size_t configs)
    memory,   ///< memtoull: digits and an optional unit (b, k, kb, m, mb, g, gb)
    boolean,  ///< yes / no
    text,     ///< any bytes
    debug,    ///< no / yes / local
};

/// One CONFIG parameter.
struct config_parameter {
    std::string_view name;
    config_kind kind;
    bool modifiable;
    std::size_t keyspace_options::*size_field = nullptr;
    bool keyspace_options::*bool_field = nullptr;
    std::string keyspace_options::*text_field = nullptr;
    unsigned long long min = 0;  ///< integer / memory range, inclusive
    unsigned long long max = LLONG_MAX;
};

/// Every parameter CONFIG GET and CONFIG SET know (aliases as their own rows, as Redis 7.0 and
/// 7.2). Those of Redis 7.2 that change a sorted-set or set command's answer are all here.
inline const config_parameter* config_parameters(std::size_t& count) noexcept {
    using o = keyspace_options;
    static const config_parameter table[] = {
        {"zset-max-listpack-entries", config_kind::integer, true, &o::zset_max_listpack_entries},
        {"zset-max-ziplist-entries", config_kind::integer, true, &o::zset_max_listpack_entries},
        {"zset-max-listpack-value", config_kind::memory, true, &o::zset_max_listpack_value},
        {"zset-max-ziplist-value", config_kind::memory, true, &o::zset_max_listpack_value},
        {"set-max-intset-entries", config_kind::integer, true, &o::set_max_intset_entries},
        {"set-max-listpack-entries", config_kind::integer, true, &o::set_max_listpack_entries},
        {"set-max-listpack-value", config_kind::integer, true, &o::set_max_listpack_value},
        {"databases", config_kind::integer, false, &o::databases, nullptr, nullptr, 1, INT_MAX},
        {"hz", config_kind::integer, true, &o::hz, nullptr, nullptr, 0, INT_MAX},
        {"maxclients", config_kind::integer, true, &o::maxclients, nullptr, nullptr, 1, UINT_MAX},
        {"port", config_kind::integer, false, &o::port, nullptr, nullptr, 0, 65535},
        {"requirepass", config_kind::text, true, nullptr, nullptr, &o::requirepass},
        {"save", config_kind::text, true, nullptr, nullptr, &o::save},
        {"bind", config_kind::text, false, nullptr, nullptr, &o::bind},
        {"protected-mode", config_kind::boolean, true, nullptr, &o::protected_mode},
        {"appendonly", config_kind::boolean, true, nullptr, &o::appendonly},
        {"enable-debug-command", config_kind::debug, false},
    };
    count = sizeof table / sizeof table[0];
    return table;
}

/// The parameter called `name` (ASCII case-insensitive, as Redis's config dictionary), or null.
inline const config_parameter* find_config_parameter(std::string_view name) noexcept {
    std::size_t n = 0;
    const config_parameter* table = config_parameters(n);
    for (std::size_t i = 0; i < n; ++i)
        if (zset::detail::ascii_iequals(zset::detail::c_string_prefix(name), table[i].name))
            return &table[i];
    return nullptr;
}

/// Redis memtoull(): decimal digits, then nothing, "b", "k", "kb", "m", "mb", "g" or "gb"
/// (case-insensitive); "" is 0; the value wraps like Redis's unsigned arithmetic.
inline std::optional<unsigned long long> parse_memory(std::string_view arg) noexcept {
    const std::string_view s = zset::detail::c_string_prefix(arg);
    if (!s.empty() && s[0] == '-') return std::nullopt;
    std::size_t digits = 0;
    while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
    const std::string_view unit = s.substr(digits);
    struct scale {
        std::string_view unit;
        unsigned long long factor;
    };
    static constexpr scale units[] = {{"", 1},           {"b", 1},
                                      {"k", 1000},       {"kb", 1024},
                                      {"m", 1000000},    {"mb", 1024 * 1024},
                                      {"g", 1000000000}, {"gb", 1024ull * 1024 * 1024}};
    unsigned long long mul = 0;
    for (const scale& u : units)
        if (zset::detail::ascii_iequals(unit, u.unit)) mul = u.factor;
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

/// The value CONFIG GET prints for a parameter.
inline std::string config_value(const config_parameter& p, const keyspace_options& o) {
    switch (p.kind) {
    case config_kind::integer:
    case config_kind::memory:
        return std::to_string(o.*p.size_field);
    case config_kind::boolean:
        return o.*p.bool_field ? "yes" : "no";
    case config_kind::text:
        return o.*p.text_field;
    case config_kind::debug:
        break;
    }
    const debug_access d = o.enable_debug_command;
    return d == debug_access::yes ? "yes" : d == debug_access::local ? "local" : "no";
}

/// Parses `arg` into the parameter's field of `o`; returns Redis's reason on failure (empty on
/// success), e.g. "argument must be 'yes' or 'no'".
inline std::string set_config_value(const config_parameter& p, keyspace_options& o,
                                    std::string_view arg) {
    using zset::detail::ascii_iequals;
    switch (p.kind) {
    case config_kind::integer:
    case config_kind::memory: {
        unsigned long long v = 0;
        if (p.kind == config_kind::integer) {
            const auto n = zset::detail::parse_int64(arg);
            if (!n) return "argument couldn't be parsed into an integer";
            v = static_cast<unsigned long long>(*n);
        } else {
            const auto n = parse_memory(arg);
            if (!n) return "argument must be a memory value";
            v = *n;
        }
        if (v < p.min || v > p.max)
            return "argument must be between " + std::to_string(p.min) + " and " +
                   std::to_string(p.max) + " inclusive";
        o.*p.size_field = static_cast<std::size_t>(v);
        return {};
    }
    case config_kind::boolean: {
        const std::string_view s = zset::detail::c_string_prefix(arg);
        if (!ascii_iequals(s, "yes") && !ascii_iequals(s, "no"))
            return "argument must be 'yes' or 'no'";
        o.*p.bool_field = ascii_iequals(s, "yes");
        return {};
    }
    case config_kind::text:
        (o.*p.text_field).assign(arg.data(), arg.size());
        return {};
    case config_kind::debug:
        break;
    }
    return "can't set immutable config";
}

}  // namespace detail
}  // namespace zset::redis

#endif  // ZSET_REDIS_CONFIG_HPP
