// zset::redis::commands — INFO [section ...]: every section and field of Redis 7.2's INFO, with
// the values true for a keyspace.
// SPDX-License-Identifier: MIT
//
// Sections, in Redis's order: server, clients, memory, persistence, stats, replication, cpu,
// modules, commandstats, errorstats, latencystats, cluster, keyspace, and debug (only when
// named). No argument, or "default", gives Redis's default set (all but commandstats,
// latencystats and debug); "all" and "everything" give every section but debug (a keyspace
// loads no modules, so the two agree); names are case-insensitive and may be combined
// (INFO clients memory); unknown names are ignored, as Redis ignores them.
//
// What the keyspace does not do, it reports as absent, with the values Redis gives a server
// that does not do it: no replicas (role:master, connected_slaves:0), no persistence (loading:0,
// no save or rewrite ever, aof_enabled:0; rdb_changes_since_last_save counts key changes since
// the start, none of which is saved), no scripts or functions, no modules, no cluster, no
// eviction (maxmemory:0), no latency tracking (an empty latencystats section), no pub/sub or
// client tracking. Memory is the dataset's own accounting (used_memory is what MEMORY USAGE
// counts over every key; allocator statistics are 0, as std::allocator keeps none). What only
// the hosting server knows (the process: os, process_id, executable, CPU times, RSS; its
// sockets and event loop: network bytes, reads, writes, event-loop cycles) comes from
// keyspace_options::host and keyspace::record_read / record_write / record_event_loop, and is
// 0 or empty without them. Everything else is counted by the keyspace: commands (per command
// in commandstats, with Redis 7's rules for rejected and failed calls), error replies by code,
// keyspace hits and misses, expired keys, connections, blocked clients.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_INFO_HPP
#define ZSET_REDIS_COMMANDS_INFO_HPP

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "../version.hpp"
#include "command.hpp"
#include "commands_keys.hpp"

namespace zset::redis::commands {

namespace detail {

/// A non-negative value with two decimals, as printf's "%.2f" in the C locale.
inline std::string fixed2(double v) {
    const auto hundredths = static_cast<unsigned long long>(v < 0 ? 0 : v * 100 + 0.5);
    const unsigned long long frac = hundredths % 100;
    return std::to_string(hundredths / 100) + (frac < 10 ? ".0" : ".") + std::to_string(frac);
}

/// Redis bytesToHuman: "512B", "1.50K", "2.00M", ...
inline std::string human_bytes(unsigned long long bytes) {
    static constexpr const char* units[] = {"K", "M", "G", "T", "P"};
    if (bytes < 1024) return std::to_string(bytes) + "B";
    double n = static_cast<double>(bytes) / 1024;
    std::size_t u = 0;
    while (n >= 1024 && u + 1 < std::size(units)) {
        n /= 1024;
        ++u;
    }
    return fixed2(n) + units[u];
}

/// Seconds with microseconds, as Redis prints CPU times ("%ld.%06ld").
inline std::string seconds_us(long long us) {
    const std::string frac = std::to_string(us % 1000000);
    return std::to_string(us / 1000000) + "." + std::string(6 - frac.size(), '0') + frac;
}

inline std::size_t dataset_bytes(const command& c) {
    std::size_t total = 0;
    for (const database& d : c.state.dbs)
        d.for_each(
            [&](std::string_view name, const database::entry& e) { total += key_memory(name, e); });
    return total;
}

/// The "field:value\r\n" lines of a section.
class info_lines {
public:
    explicit info_lines(std::string& out) : out_(out) {}
    info_lines& operator()(std::string_view field, std::string_view value) {
        out_.append(field.data(), field.size());
        out_ += ':';
        out_.append(value.data(), value.size());
        out_ += "\r\n";
        return *this;
    }
    info_lines& operator()(std::string_view field, const std::string& value) {
        return (*this)(field, std::string_view(value));
    }
    info_lines& operator()(std::string_view field, const char* value) {
        return (*this)(field, std::string_view(value));
    }
    template <class Integer>
    info_lines& operator()(std::string_view field, Integer value) {
        return (*this)(field, std::to_string(value));
    }

private:
    std::string& out_;
};

inline void info_server(command& c, info_lines& f) {
    const auto& st = c.state;
    const host_info& host = st.opts.host;
    const long long up = (st.now - st.stats.start_ms) / 1000;
#if defined(__GNUC__)
    const std::string gcc = std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                            std::to_string(__GNUC_PATCHLEVEL__);
#else
    const std::string gcc = "0.0.0";
#endif
    const long long time_us =
        st.opts.clock
            ? st.now * 1000
            : static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
    f("redis_version", st.opts.server_version)("zset_version", ZSET_VERSION_STRING);
    f("redis_git_sha1", "00000000")("redis_git_dirty", 0)("redis_build_id", "0");
    f("redis_mode", "standalone")("os", host.os)("arch_bits", sizeof(void*) * 8);
    f("monotonic_clock", "std::chrono::steady_clock")("multiplexing_api", host.multiplexing_api);
    f("atomicvar_api", "none")("gcc_version", gcc)("process_id", host.process_id);
    f("process_supervised", "no")("run_id", st.run_id)("tcp_port", st.opts.port);
    f("server_time_usec", time_us)("uptime_in_seconds", up)("uptime_in_days", up / 86400);
    f("hz", st.opts.hz)("configured_hz", st.opts.hz)("lru_clock", (st.now / 1000) & 0xFFFFFF);
    f("executable", host.executable)("config_file", host.config_file)("io_threads_active", 0);
    std::string listener = "name=tcp";
    for (std::size_t i = 0; i < st.opts.bind.size();) {
        const std::size_t end = std::min(st.opts.bind.find(' ', i), st.opts.bind.size());
        if (end > i) listener += ",bind=" + st.opts.bind.substr(i, end - i);
        i = end + 1;
    }
    f("listener0", listener + ",port=" + std::to_string(st.opts.port));
}

inline void info_clients(command& c, info_lines& f) {
    const auto& st = c.state;
    f("connected_clients", st.clients.size())("cluster_connections", 0);
    f("maxclients", st.opts.maxclients)("client_recent_max_input_buffer", 0);
    f("client_recent_max_output_buffer", 0)("blocked_clients", st.blocked.size());
    f("tracking_clients", 0)("clients_in_timeout_table", st.blocked.with_timeout());
    f("total_blocking_keys", st.blocked.key_count())("total_blocking_keys_on_nokey", 0);
}

inline void info_memory(command& c, info_lines& f) {
    auto& st = c.state;
    const std::size_t used = dataset_bytes(c);
    st.stats.peak_memory = std::max(st.stats.peak_memory, used);
    const std::size_t peak = st.stats.peak_memory;
    const unsigned long long rss = st.opts.host.usage ? st.opts.host.usage().rss_bytes : 0;
    const unsigned long long system = st.opts.host.total_system_memory;
    const auto percent = [](std::size_t part, std::size_t whole) {
        return fixed2(whole == 0 ? 0
                                 : static_cast<double>(part) * 100 / static_cast<double>(whole)) +
               "%";
    };
    f("used_memory", used)("used_memory_human", human_bytes(used));
    f("used_memory_rss", rss)("used_memory_rss_human", human_bytes(rss));
    f("used_memory_peak", peak)("used_memory_peak_human", human_bytes(peak));
    f("used_memory_peak_perc", percent(used, peak))("used_memory_overhead", 0);
    f("used_memory_startup", 0)("used_memory_dataset", used);
    f("used_memory_dataset_perc", percent(used, used));
    f("allocator_allocated", 0)("allocator_active", 0)("allocator_resident", 0);
    f("total_system_memory", system)("total_system_memory_human", human_bytes(system));
    f("used_memory_lua", 0)("used_memory_vm_eval", 0)("used_memory_lua_human", "0B");
    f("used_memory_scripts_eval", 0)("number_of_cached_scripts", 0)("number_of_functions", 0);
    f("number_of_libraries", 0)("used_memory_vm_functions", 0)("used_memory_vm_total", 0);
    f("used_memory_vm_total_human", "0B")("used_memory_functions", 0)("used_memory_scripts", 0);
    f("used_memory_scripts_human", "0B")("maxmemory", 0)("maxmemory_human", "0B");
    f("maxmemory_policy", "noeviction")("allocator_frag_ratio", "0.00");
    f("allocator_frag_bytes", 0)("allocator_rss_ratio", "0.00")("allocator_rss_bytes", 0);
    f("rss_overhead_ratio", "0.00")("rss_overhead_bytes", 0)("mem_fragmentation_ratio", "0.00");
    f("mem_fragmentation_bytes", 0)("mem_not_counted_for_evict", 0);
    f("mem_replication_backlog", 0)("mem_total_replication_buffers", 0);
    f("mem_clients_slaves", 0)("mem_clients_normal", 0)("mem_cluster_links", 0);
    f("mem_aof_buffer", 0)("mem_allocator", "libc")("active_defrag_running", 0);
    f("lazyfree_pending_objects", 0)("lazyfreed_objects", 0);
}

inline void info_persistence(command& c, info_lines& f) {
    const auto& st = c.state;
    f("loading", 0)("async_loading", 0)("current_cow_peak", 0)("current_cow_size", 0);
    f("current_cow_size_age", 0)("current_fork_perc", "0.00");
    f("current_save_keys_processed", 0)("current_save_keys_total", 0);
    f("rdb_changes_since_last_save", st.dirty)("rdb_bgsave_in_progress", 0);
    f("rdb_last_save_time", st.stats.start_ms / 1000)("rdb_last_bgsave_status", "ok");
    f("rdb_last_bgsave_time_sec", -1)("rdb_current_bgsave_time_sec", -1)("rdb_saves", 0);
    f("rdb_last_cow_size", 0)("rdb_last_load_keys_expired", st.stats.last_load_keys_expired);
    f("rdb_last_load_keys_loaded", st.stats.last_load_keys_loaded)("aof_enabled", 0);
    f("aof_rewrite_in_progress", 0)("aof_rewrite_scheduled", 0);
    f("aof_last_rewrite_time_sec", -1)("aof_current_rewrite_time_sec", -1);
    f("aof_last_bgrewrite_status", "ok")("aof_rewrites", 0);
    f("aof_rewrites_consecutive_failures", 0)("aof_last_write_status", "ok");
    f("aof_last_cow_size", 0)("module_fork_in_progress", 0)("module_fork_last_cow_size", 0);
}

inline void info_stats(command& c, info_lines& f) {
    c.state.sample_metrics();
    const redis::detail::server_stats& s = c.state.stats;
    const auto kbps = [](long long bytes_per_second) {
        return fixed2(static_cast<double>(bytes_per_second) / 1024);
    };
    f("total_connections_received", s.connections_received);
    f("total_commands_processed", s.commands_processed)("instantaneous_ops_per_sec", s.ops.mean());
    f("total_net_input_bytes", s.net_input_bytes)("total_net_output_bytes", s.net_output_bytes);
    f("total_net_repl_input_bytes", 0)("total_net_repl_output_bytes", 0);
    f("instantaneous_input_kbps", kbps(s.net_input.mean()));
    f("instantaneous_output_kbps", kbps(s.net_output.mean()));
    f("instantaneous_input_repl_kbps", "0.00")("instantaneous_output_repl_kbps", "0.00");
    f("rejected_connections", s.rejected_connections)("sync_full", 0)("sync_partial_ok", 0);
    f("sync_partial_err", 0)("expired_keys", s.expired_keys)("expired_stale_perc", "0.00");
    f("expired_time_cap_reached_count", 0)("expire_cycle_cpu_milliseconds",
                                           s.expire_cycle_us / 1000);
    f("evicted_keys", 0)("evicted_clients", 0)("total_eviction_exceeded_time", 0);
    f("current_eviction_exceeded_time", 0)("keyspace_hits", s.keyspace_hits);
    f("keyspace_misses", s.keyspace_misses)("pubsub_channels", 0)("pubsub_patterns", 0);
    f("pubsubshard_channels", 0)("latest_fork_usec", 0)("total_forks", 0);
    f("migrate_cached_sockets", 0)("slave_expires_tracked_keys", 0)("active_defrag_hits", 0);
    f("active_defrag_misses", 0)("active_defrag_key_hits", 0)("active_defrag_key_misses", 0);
    f("total_active_defrag_time", 0)("current_active_defrag_time", 0);
    f("tracking_total_keys", 0)("tracking_total_items", 0)("tracking_total_prefixes", 0);
    f("unexpected_error_replies", 0)("total_error_replies", s.error_replies);
    f("dump_payload_sanitizations", 0)("total_reads_processed", s.reads_processed);
    f("total_writes_processed", s.writes_processed)("io_threaded_reads_processed", 0);
    f("io_threaded_writes_processed", 0)("reply_buffer_shrinks", 0)("reply_buffer_expands", 0);
    f("eventloop_cycles", s.eventloop_cycles)("eventloop_duration_sum", s.eventloop_duration_us);
    f("eventloop_duration_cmd_sum", s.command_duration_us);
    f("instantaneous_eventloop_cycles_per_sec", s.eventloop_cycle_rate.mean());
    f("instantaneous_eventloop_duration_usec", s.eventloop_duration.mean());
    f("acl_access_denied_auth", s.auth_failures)("acl_access_denied_cmd", 0);
    f("acl_access_denied_key", 0)("acl_access_denied_channel", 0);
}

inline void info_replication(command& c, info_lines& f) {
    f("role", "master")("connected_slaves", 0)("master_failover_state", "no-failover");
    f("master_replid", c.state.replid)("master_replid2", std::string(40, '0'));
    f("master_repl_offset", 0)("second_repl_offset", -1)("repl_backlog_active", 0);
    f("repl_backlog_size", 0)("repl_backlog_first_byte_offset", 0)("repl_backlog_histlen", 0);
}

inline void info_cpu(command& c, info_lines& f) {
    const process_usage u = c.state.opts.host.usage ? c.state.opts.host.usage() : process_usage{};
    f("used_cpu_sys", seconds_us(u.cpu_sys_us))("used_cpu_user", seconds_us(u.cpu_user_us));
    f("used_cpu_sys_children", seconds_us(u.cpu_sys_children_us));
    f("used_cpu_user_children", seconds_us(u.cpu_user_children_us));
    f("used_cpu_sys_main_thread", seconds_us(u.cpu_sys_main_thread_us));
    f("used_cpu_user_main_thread", seconds_us(u.cpu_user_main_thread_us));
}

inline void info_modules(command&, info_lines&) {}

inline void info_commandstats(command& c, info_lines& f) {
    const auto& st = c.state;
    const auto line = [&](const command_spec& spec, const command_counters& k) {
        if (k.calls == 0 && k.failed_calls == 0 && k.rejected_calls == 0) return;
        const double per_call =
            k.calls == 0 ? 0 : static_cast<double>(k.usec) / static_cast<double>(k.calls);
        f("cmdstat_" + std::string(spec.name),
          "calls=" + std::to_string(k.calls) + ",usec=" + std::to_string(k.usec) +
              ",usec_per_call=" + fixed2(per_call) + ",rejected_calls=" +
              std::to_string(k.rejected_calls) + ",failed_calls=" + std::to_string(k.failed_calls));
    };
    for (std::size_t i = 0; i < st.command_count; ++i) {
        const command_spec& spec = st.commands[i];
        if (i < st.stats.commands.size()) line(spec, st.stats.commands[i]);
        for (std::size_t j = 0; j < spec.subcommand_count; ++j) {
            const auto it = st.stats.subcommands.find(&spec.subcommands[j]);
            if (it != st.stats.subcommands.end()) line(spec.subcommands[j], it->second);
        }
    }
}

inline void info_errorstats(command& c, info_lines& f) {
    for (const auto& e : c.state.stats.errors)
        f("errorstat_" + e.first, "count=" + std::to_string(e.second));
}

inline void info_latencystats(command&, info_lines&) {}

inline void info_cluster(command&, info_lines& f) {
    f("cluster_enabled", 0);
}

inline void info_keyspace(command& c, info_lines& f) {
    const auto& st = c.state;
    for (std::size_t i = 0; i < st.dbs.size(); ++i)
        if (!st.dbs[i].empty())
            f("db" + std::to_string(i),
              "keys=" + std::to_string(st.dbs[i].size()) +
                  ",expires=" + std::to_string(st.dbs[i].expires_size()) +
                  ",avg_ttl=" + std::to_string(st.dbs[i].average_ttl(st.now)));
}

inline void info_debug(command& c, info_lines& f) {
    const redis::detail::server_stats& s = c.state.stats;
    f("eventloop_duration_aof_sum", 0)("eventloop_duration_cron_sum", s.cron_duration_us);
    f("eventloop_duration_max", s.eventloop_duration_max_us);
    f("eventloop_cmd_per_cycle_max", s.commands_per_cycle_max);
}

/// One INFO section: its name (as requested and, capitalized, as its title), whether INFO with
/// no argument or "default" shows it, and whether "all" does.
struct info_section {
    std::string_view name;
    std::string_view title;
    bool in_default;
    bool in_all;
    void (*write)(command&, info_lines&);
};

inline constexpr info_section info_sections[] = {
    {"server", "Server", true, true, info_server},
    {"clients", "Clients", true, true, info_clients},
    {"memory", "Memory", true, true, info_memory},
    {"persistence", "Persistence", true, true, info_persistence},
    {"stats", "Stats", true, true, info_stats},
    {"replication", "Replication", true, true, info_replication},
    {"cpu", "CPU", true, true, info_cpu},
    {"modules", "Modules", true, true, info_modules},
    {"commandstats", "Commandstats", false, true, info_commandstats},
    {"errorstats", "Errorstats", true, true, info_errorstats},
    {"latencystats", "Latencystats", false, true, info_latencystats},
    {"cluster", "Cluster", true, true, info_cluster},
    {"keyspace", "Keyspace", true, true, info_keyspace},
    {"debug", "Debug", false, false, info_debug},
};

}  // namespace detail

/// INFO [section ...]: see the file comment.
inline void info(command& c) {
    bool all = false, defaults = c.argc == 1;
    std::vector<bool> named(std::size(detail::info_sections), false);
    for (std::size_t j = 1; j < c.argc; ++j) {
        defaults = defaults || c.is(j, "default");
        all = all || c.is(j, "all") || c.is(j, "everything");
        for (std::size_t i = 0; i < named.size(); ++i)
            if (c.is(j, detail::info_sections[i].name) ||
                (detail::info_sections[i].name == "modules" && c.is(j, "module_list")))
                named[i] = true;
    }
    std::string text;
    detail::info_lines lines(text);
    for (std::size_t i = 0; i < named.size(); ++i) {
        const detail::info_section& s = detail::info_sections[i];
        if (!named[i] && !(all && s.in_all) && !(defaults && s.in_default)) continue;
        if (!text.empty()) text += "\r\n";
        text += "# ";
        text += s.title;
        text += "\r\n";
        s.write(c, lines);
    }
    c.out.verbatim(text);
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_INFO_HPP
