// The server commands clients, test harnesses and monitors rely on, in zset::redis::keyspace:
// INFO (every section and field of Redis 7.2's, the sections selected as Redis selects them,
// and values true for the keyspace), FUNCTION as a server without scripting engines, and DEBUG
// LOG. Field lists are Redis 7.2's src/server.c; replies and counters Redis 7.0 shares are
// redis-server 7.0.15's (tests/differential/info_test.py compares them live).
// One translation unit on purpose: each that includes the keyspace compiles all its handlers.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "redis_test_support.hpp"
#include "zset_catch.hpp"

using namespace redis_test;

namespace {

/// An INFO reply as (section title, [(field, value), ...]) in order.
using info_fields = std::vector<std::pair<std::string, std::string>>;
using info_sections = std::vector<std::pair<std::string, info_fields>>;

info_sections parse_info(const std::string& text) {
    info_sections out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find("\r\n", at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        at = end + 2;
        if (line.rfind("# ", 0) == 0) {
            out.emplace_back(line.substr(2), info_fields());
        } else if (!line.empty()) {
            const std::size_t colon = line.find(':');
            out.back().second.emplace_back(line.substr(0, colon), line.substr(colon + 1));
        }
    }
    return out;
}

/// INFO argv... as parsed sections.
info_sections info(server& srv, zr::session& c, std::vector<std::string> argv) {
    argv.insert(argv.begin(), "INFO");
    zr::reply r;
    srv.ks.execute(argv, c, r);
    return parse_info(r.text());
}

std::vector<std::string> titles(const info_sections& s) {
    std::vector<std::string> out;
    for (const auto& section : s) out.push_back(section.first);
    return out;
}

/// Every field of every section, by name (names are unique across sections).
std::map<std::string, std::string> fields_of(const info_sections& s) {
    std::map<std::string, std::string> out;
    for (const auto& section : s)
        for (const auto& f : section.second) out[f.first] = f.second;
    return out;
}

std::vector<std::string> names(const info_fields& fields) {
    std::vector<std::string> out;
    for (const auto& f : fields) out.push_back(f.first);
    return out;
}

}  // namespace

TEST_CASE("INFO: the sections, selected as Redis 7.2 selects them", "[redis][info]") {
    server srv;
    auto& c = srv.client();
    const std::vector<std::string> defaults{"Server",     "Clients",     "Memory",  "Persistence",
                                            "Stats",      "Replication", "CPU",     "Modules",
                                            "Errorstats", "Cluster",     "Keyspace"};
    const std::vector<std::string> all{
        "Server",  "Clients",      "Memory",     "Persistence",  "Stats",   "Replication", "CPU",
        "Modules", "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"};
    CHECK(titles(info(srv, c, {})) == defaults);
    CHECK(titles(info(srv, c, {"default"})) == defaults);
    CHECK(titles(info(srv, c, {"all"})) == all);
    CHECK(titles(info(srv, c, {"EVERYTHING"})) == all);
    CHECK(titles(info(srv, c, {"everything", "debug"})).back() == "Debug");
    CHECK(titles(info(srv, c, {"keyspace", "Server", "clients", "server"})) ==
          std::vector<std::string>{"Server", "Clients", "Keyspace"});
    CHECK(titles(info(srv, c, {"default", "commandstats"})).size() == defaults.size() + 1);
    CHECK(titles(info(srv, c, {"module_list"})) == std::vector<std::string>{"Modules"});
    CHECK(titles(info(srv, c, {"debug"})) == std::vector<std::string>{"Debug"});
    CHECK(titles(info(srv, c, {"nosuch"})).empty());
    CHECK(srv.run(c, {"INFO", "nosuch"}) == bulk(""));
    // Sections are separated by an empty line; RESP3 sends a verbatim string.
    CHECK(srv.run(c, {"INFO", "cluster", "replication"}).find("\r\n\r\n# Cluster\r\n") !=
          std::string::npos);
    auto& c3 = srv.client();
    srv.run(c3, {"HELLO", "3"});
    CHECK(srv.run(c3, {"INFO", "cluster"}) == "=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n");
}

TEST_CASE("INFO: every field of Redis 7.2's sections, in its order", "[redis][info]") {
    server srv;
    auto& c = srv.client();
    const info_sections s = info(srv, c, {"everything"});
    const std::map<std::string, std::vector<std::string>> expected{
        {"Server",
         {"redis_version",
          "zset_version",
          "redis_git_sha1",
          "redis_git_dirty",
          "redis_build_id",
          "redis_mode",
          "os",
          "arch_bits",
          "monotonic_clock",
          "multiplexing_api",
          "atomicvar_api",
          "gcc_version",
          "process_id",
          "process_supervised",
          "run_id",
          "tcp_port",
          "server_time_usec",
          "uptime_in_seconds",
          "uptime_in_days",
          "hz",
          "configured_hz",
          "lru_clock",
          "executable",
          "config_file",
          "io_threads_active",
          "listener0"}},
        {"Clients",
         {"connected_clients", "cluster_connections", "maxclients",
          "client_recent_max_input_buffer", "client_recent_max_output_buffer", "blocked_clients",
          "tracking_clients", "clients_in_timeout_table", "total_blocking_keys",
          "total_blocking_keys_on_nokey"}},
        {"Memory",
         {"used_memory",
          "used_memory_human",
          "used_memory_rss",
          "used_memory_rss_human",
          "used_memory_peak",
          "used_memory_peak_human",
          "used_memory_peak_perc",
          "used_memory_overhead",
          "used_memory_startup",
          "used_memory_dataset",
          "used_memory_dataset_perc",
          "allocator_allocated",
          "allocator_active",
          "allocator_resident",
          "total_system_memory",
          "total_system_memory_human",
          "used_memory_lua",
          "used_memory_vm_eval",
          "used_memory_lua_human",
          "used_memory_scripts_eval",
          "number_of_cached_scripts",
          "number_of_functions",
          "number_of_libraries",
          "used_memory_vm_functions",
          "used_memory_vm_total",
          "used_memory_vm_total_human",
          "used_memory_functions",
          "used_memory_scripts",
          "used_memory_scripts_human",
          "maxmemory",
          "maxmemory_human",
          "maxmemory_policy",
          "allocator_frag_ratio",
          "allocator_frag_bytes",
          "allocator_rss_ratio",
          "allocator_rss_bytes",
          "rss_overhead_ratio",
          "rss_overhead_bytes",
          "mem_fragmentation_ratio",
          "mem_fragmentation_bytes",
          "mem_not_counted_for_evict",
          "mem_replication_backlog",
          "mem_total_replication_buffers",
          "mem_clients_slaves",
          "mem_clients_normal",
          "mem_cluster_links",
          "mem_aof_buffer",
          "mem_allocator",
          "active_defrag_running",
          "lazyfree_pending_objects",
          "lazyfreed_objects"}},
        {"Persistence",
         {"loading",
          "async_loading",
          "current_cow_peak",
          "current_cow_size",
          "current_cow_size_age",
          "current_fork_perc",
          "current_save_keys_processed",
          "current_save_keys_total",
          "rdb_changes_since_last_save",
          "rdb_bgsave_in_progress",
          "rdb_last_save_time",
          "rdb_last_bgsave_status",
          "rdb_last_bgsave_time_sec",
          "rdb_current_bgsave_time_sec",
          "rdb_saves",
          "rdb_last_cow_size",
          "rdb_last_load_keys_expired",
          "rdb_last_load_keys_loaded",
          "aof_enabled",
          "aof_rewrite_in_progress",
          "aof_rewrite_scheduled",
          "aof_last_rewrite_time_sec",
          "aof_current_rewrite_time_sec",
          "aof_last_bgrewrite_status",
          "aof_rewrites",
          "aof_rewrites_consecutive_failures",
          "aof_last_write_status",
          "aof_last_cow_size",
          "module_fork_in_progress",
          "module_fork_last_cow_size"}},
        {"Stats",
         {"total_connections_received",
          "total_commands_processed",
          "instantaneous_ops_per_sec",
          "total_net_input_bytes",
          "total_net_output_bytes",
          "total_net_repl_input_bytes",
          "total_net_repl_output_bytes",
          "instantaneous_input_kbps",
          "instantaneous_output_kbps",
          "instantaneous_input_repl_kbps",
          "instantaneous_output_repl_kbps",
          "rejected_connections",
          "sync_full",
          "sync_partial_ok",
          "sync_partial_err",
          "expired_keys",
          "expired_stale_perc",
          "expired_time_cap_reached_count",
          "expire_cycle_cpu_milliseconds",
          "evicted_keys",
          "evicted_clients",
          "total_eviction_exceeded_time",
          "current_eviction_exceeded_time",
          "keyspace_hits",
          "keyspace_misses",
          "pubsub_channels",
          "pubsub_patterns",
          "pubsubshard_channels",
          "latest_fork_usec",
          "total_forks",
          "migrate_cached_sockets",
          "slave_expires_tracked_keys",
          "active_defrag_hits",
          "active_defrag_misses",
          "active_defrag_key_hits",
          "active_defrag_key_misses",
          "total_active_defrag_time",
          "current_active_defrag_time",
          "tracking_total_keys",
          "tracking_total_items",
          "tracking_total_prefixes",
          "unexpected_error_replies",
          "total_error_replies",
          "dump_payload_sanitizations",
          "total_reads_processed",
          "total_writes_processed",
          "io_threaded_reads_processed",
          "io_threaded_writes_processed",
          "reply_buffer_shrinks",
          "reply_buffer_expands",
          "eventloop_cycles",
          "eventloop_duration_sum",
          "eventloop_duration_cmd_sum",
          "instantaneous_eventloop_cycles_per_sec",
          "instantaneous_eventloop_duration_usec",
          "acl_access_denied_auth",
          "acl_access_denied_cmd",
          "acl_access_denied_key",
          "acl_access_denied_channel"}},
        {"Replication",
         {"role", "connected_slaves", "master_failover_state", "master_replid", "master_replid2",
          "master_repl_offset", "second_repl_offset", "repl_backlog_active", "repl_backlog_size",
          "repl_backlog_first_byte_offset", "repl_backlog_histlen"}},
        {"CPU",
         {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children",
          "used_cpu_sys_main_thread", "used_cpu_user_main_thread"}},
        {"Cluster", {"cluster_enabled"}},
    };
    for (const auto& section : s) {
        const auto it = expected.find(section.first);
        if (it == expected.end()) continue;  // data sections: checked below
        INFO(section.first);
        CHECK(names(section.second) == it->second);
    }
    CHECK(info(srv, c, {"debug"}).front().second.size() == 4);
}

TEST_CASE("INFO: what the keyspace does not do, it reports as absent", "[redis][info]") {
    server srv;
    auto& c = srv.client();
    srv.run(c, {"ZADD", "z", "1", "a"});
    const auto f = fields_of(info(srv, c, {"everything"}));
    const std::map<std::string, std::string> absent{{"redis_mode", "standalone"},
                                                    {"role", "master"},
                                                    {"connected_slaves", "0"},
                                                    {"master_repl_offset", "0"},
                                                    {"second_repl_offset", "-1"},
                                                    {"loading", "0"},
                                                    {"rdb_bgsave_in_progress", "0"},
                                                    {"rdb_saves", "0"},
                                                    {"aof_enabled", "0"},
                                                    {"aof_rewrites", "0"},
                                                    {"rdb_last_bgsave_status", "ok"},
                                                    {"cluster_enabled", "0"},
                                                    {"maxmemory", "0"},
                                                    {"maxmemory_policy", "noeviction"},
                                                    {"number_of_functions", "0"},
                                                    {"used_memory_lua", "0"},
                                                    {"evicted_keys", "0"},
                                                    {"pubsub_channels", "0"},
                                                    {"total_forks", "0"},
                                                    {"tracking_clients", "0"},
                                                    {"master_replid2", std::string(40, '0')}};
    for (const auto& [field, value] : absent) {
        INFO(field);
        CHECK(f.at(field) == value);
    }
    CHECK(f.at("rdb_changes_since_last_save") == "1");  // unsaved: nothing is ever saved
    CHECK(f.at("rdb_last_save_time") == std::to_string(*srv.clock / 1000));  // the start
    CHECK(f.at("run_id").size() == 40);
    CHECK(f.at("master_replid").size() == 40);
    CHECK(f.at("run_id") != f.at("master_replid"));
    CHECK(f.at("listener0") == "name=tcp,bind=127.0.0.1,port=6379");
    // What only the hosting server knows is empty or 0 without it.
    CHECK(f.at("os").empty());
    CHECK(f.at("process_id") == "0");
    CHECK(f.at("used_cpu_sys") == "0.000000");
    CHECK(f.at("used_memory_rss") == "0");
}

TEST_CASE("INFO: counters the keyspace keeps", "[redis][info]") {
    zr::keyspace_options o;
    o.enable_debug_command = zr::debug_access::yes;
    server srv(o);
    auto& c = srv.client();
    auto& waiter = srv.client();
    srv.run(waiter, {"BZPOPMIN", "q1", "q2", "5"});
    auto f = fields_of(info(srv, c, {}));
    CHECK(f.at("connected_clients") == "2");
    CHECK(f.at("blocked_clients") == "1");
    CHECK(f.at("clients_in_timeout_table") == "1");
    CHECK(f.at("total_blocking_keys") == "2");
    srv.run(c, {"ZADD", "q2", "1", "m"});  // serves the waiter
    srv.run(c, {"CONFIG", "RESETSTAT"});
    // Keyspace hits and misses: lookups of commands that read (as Redis's lookupKeyRead), and
    // the inputs of *STORE set operations; not writes.
    srv.run(c, {"ZADD", "z", "1", "a", "2", "b"});
    srv.run(c, {"ZSCORE", "z", "a"});
    srv.run(c, {"ZSCORE", "none", "a"});
    srv.run(c, {"EXISTS", "z", "none"});
    srv.run(c, {"ZUNIONSTORE", "d", "2", "z", "none"});
    srv.run(c, {"SCAN", "0"});
    // Errors, by code; rejected (before running) and failed (replied an error) calls.
    srv.run(c, {"SET", "s", "v"});
    srv.run(c, {"ZADD", "s", "1", "x"});
    srv.run(c, {"ZADD", "z"});
    srv.run(c, {"NOSUCH"});
    srv.run(c, {"CONFIG", "NOSUCH"});
    srv.run(c, {"MULTI"});
    srv.run(c, {"ZINCRBY", "z", "x", "a"});
    srv.run(c, {"ZADD", "z", "3", "c"});
    srv.run(c, {"EXEC"});
    srv.run(c, {"AUTH", "nobody", "wrong"});
    const auto s = info(srv, c, {"all"});
    f = fields_of(s);
    CHECK(f.at("keyspace_hits") == "3");
    CHECK(f.at("keyspace_misses") == "3");
    CHECK(f.at("total_error_replies") == "6");
    CHECK(f.at("errorstat_ERR") == "count=4");
    CHECK(f.at("errorstat_WRONGPASS") == "count=1");
    CHECK(f.at("errorstat_WRONGTYPE") == "count=1");
    CHECK(f.at("acl_access_denied_auth") == "1");
    const auto calls = [&](const std::string& name) {
        const std::string v = f.at("cmdstat_" + name);
        const std::string rejected = v.substr(v.find(",rejected_calls="));
        return v.substr(0, v.find(',')) + rejected;
    };
    CHECK(calls("zadd") == "calls=3,rejected_calls=1,failed_calls=1");
    CHECK(calls("zincrby") == "calls=1,rejected_calls=0,failed_calls=1");
    CHECK(calls("exec") == "calls=1,rejected_calls=0,failed_calls=0");
    CHECK(calls("config|resetstat") == "calls=1,rejected_calls=0,failed_calls=0");
    CHECK(f.count("cmdstat_config") == 0);  // an unknown subcommand counts for no command
    CHECK(f.count("cmdstat_nosuch") == 0);
    CHECK(calls("auth") == "calls=1,rejected_calls=0,failed_calls=1");
    // A blocked command is counted once, when it is served or times out.
    srv.run(waiter, {"BZPOPMIN", "q3", "1"});
    srv.advance(1001);
    srv.cron();
    f = fields_of(info(srv, c, {"commandstats"}));
    CHECK(f.at("cmdstat_bzpopmin").substr(0, 8) == "calls=1,");
    // Persistence: key changes since the start; DEBUG RELOAD's loaded and expired keys.
    srv.run(c, {"PEXPIRE", "d", "1"});
    srv.advance(2);
    CHECK(srv.run(c, {"DEBUG", "RELOAD"}) == ok);
    f = fields_of(info(srv, c, {"persistence", "keyspace", "stats"}));
    CHECK(f.at("rdb_last_load_keys_loaded") == "2");
    CHECK(f.at("rdb_last_load_keys_expired") == "1");
    CHECK(std::stoll(f.at("rdb_changes_since_last_save")) >= 4);
    // Keyspace: keys, keys with a TTL, and their mean remaining TTL in ms.
    srv.run(c, {"EXPIRE", "z", "100"});
    srv.run(c, {"PEXPIRE", "s", "50000"});
    f = fields_of(info(srv, c, {"keyspace"}));
    CHECK(f.at("db0") == "keys=2,expires=2,avg_ttl=75000");
    // CONFIG RESETSTAT clears the statistics.
    srv.run(c, {"CONFIG", "RESETSTAT"});
    f = fields_of(info(srv, c, {"everything"}));
    CHECK(f.at("total_error_replies") == "0");
    CHECK(f.count("errorstat_ERR") == 0);
    CHECK(f.count("cmdstat_zadd") == 0);
    CHECK(f.at("keyspace_hits") == "0");
}

TEST_CASE("INFO: what the hosting server measures", "[redis][info]") {
    zr::keyspace_options o;
    o.port = 7402;
    o.bind = "127.0.0.1 ::1";
    o.host.os = "Linux 6.1.0 x86_64";
    o.host.process_id = 4242;
    o.host.executable = "/usr/bin/zset-server";
    o.host.multiplexing_api = "epoll";
    o.host.total_system_memory = 3ull << 30;
    o.host.usage = [] {
        zr::process_usage u;
        u.cpu_sys_us = 1500000;
        u.cpu_user_us = 2000042;
        u.cpu_user_main_thread_us = 7;
        u.rss_bytes = 5 << 20;
        return u;
    };
    server srv(o);
    auto& c = srv.client();
    // 50 commands and 100 KiB in each direction every 100 ms for two seconds.
    for (int period = 0; period < 20; ++period) {
        if (period > 0) srv.advance(100);
        for (int i = 0; i < 50; ++i) srv.run(c, {"PING"});
        srv.ks.record_read(100 * 1024);
        srv.ks.record_write(100 * 1024);
        srv.ks.record_event_loop(250);
    }
    const auto f = fields_of(info(srv, c, {"everything", "debug"}));
    CHECK(f.at("os") == "Linux 6.1.0 x86_64");
    CHECK(f.at("process_id") == "4242");
    CHECK(f.at("executable") == "/usr/bin/zset-server");
    CHECK(f.at("multiplexing_api") == "epoll");
    CHECK(f.at("tcp_port") == "7402");
    CHECK(f.at("listener0") == "name=tcp,bind=127.0.0.1,bind=::1,port=7402");
    CHECK(f.at("total_system_memory_human") == "3.00G");
    CHECK(f.at("used_memory_rss") == std::to_string(5 << 20));
    CHECK(f.at("used_memory_rss_human") == "5.00M");
    CHECK(f.at("used_cpu_sys") == "1.500000");
    CHECK(f.at("used_cpu_user") == "2.000042");
    CHECK(f.at("used_cpu_user_main_thread") == "0.000007");
    CHECK(f.at("total_net_input_bytes") == std::to_string(20 * 100 * 1024));
    CHECK(f.at("total_reads_processed") == "20");
    CHECK(f.at("total_writes_processed") == "20");
    CHECK(f.at("eventloop_cycles") == "20");
    CHECK(f.at("eventloop_duration_sum") == "5000");
    CHECK(f.at("eventloop_duration_max") == "250");
    CHECK(f.at("eventloop_cmd_per_cycle_max") == "50");
    // Rates over the last 16 periods of 100 ms.
    CHECK(f.at("instantaneous_ops_per_sec") == "500");
    CHECK(f.at("instantaneous_input_kbps") == "1000.00");
    CHECK(f.at("instantaneous_output_kbps") == "1000.00");
    CHECK(f.at("instantaneous_eventloop_cycles_per_sec") == "10");
    CHECK(f.at("instantaneous_eventloop_duration_usec") == "250");
    // An idle gap counts as idle periods: one sample of the growth since the last, then zeros.
    srv.advance(5000);
    CHECK(std::stoll(fields_of(info(srv, c, {"stats"})).at("instantaneous_ops_per_sec")) < 50);
}

TEST_CASE("FUNCTION: a server without scripting engines or libraries", "[redis][function]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"FUNCTION", "FLUSH"}) == ok);
    CHECK(srv.run(c, {"function", "flush", "async"}) == ok);
    CHECK(srv.run(c, {"FUNCTION", "FLUSH", "SYNC"}) == ok);
    CHECK(srv.run(c, {"FUNCTION", "FLUSH", "x"}) ==
          error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
    CHECK(srv.run(c, {"function", "flush", "SYNC", "x"}) ==
          error("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION "
                "HELP."));
    CHECK(srv.run(c, {"FUNCTION", "LIST"}) == "*0\r\n");
    CHECK(srv.run(c, {"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "*"}) == "*0\r\n");
    CHECK(srv.run(c, {"FUNCTION", "LIST", "LIBRARYNAME"}) ==
          error("ERR library name argument was not given"));
    CHECK(srv.run(c, {"FUNCTION", "LIST", "WITHCODE", "WITHCODE"}) ==
          error("ERR Unknown argument WITHCODE"));
    CHECK(srv.run(c, {"FUNCTION", "DELETE", "lib"}) == error("ERR Library not found"));
    CHECK(srv.run(c, {"FUNCTION", "KILL"}) == error("NOTBUSY No scripts in execution right now."));
    CHECK(srv.run(c, {"FUNCTION", "STATS"}) ==
          "*4\r\n" + bulk("running_script") + nil + bulk("engines") + "*0\r\n");
    // LOAD: the metadata line is checked as Redis checks it, then no engine is found.
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function(...)"}) ==
          error("ERR Engine 'lua' not found"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "REPLACE", "#!LUA name=x\n"}) ==
          error("ERR Engine 'LUA' not found"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "return 1"}) == error("ERR Missing library metadata"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua name=x"}) ==
          error("ERR Invalid library metadata"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua \"name=x\n"}) ==
          error("ERR Invalid library metadata"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua\n"}) == error("ERR Library name was not given"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua name=a name=b\n"}) ==
          error("ERR Invalid metadata value, name argument was given multiple times"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua foo=bar\n"}) ==
          error("ERR Invalid metadata value given: foo=bar"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "#!lua name=a-b\n"}) ==
          error("ERR Library names can only contain letters, numbers, or underscores(_) and "
                "must be at least one character long"));
    CHECK(srv.run(c, {"FUNCTION", "LOAD", "NOW", "#!lua name=x\n"}) ==
          error("ERR Unknown option given: NOW"));
    CHECK(srv.run(c, {"FUNCTION", "DUMP"}) ==
          error("ERR unknown subcommand 'DUMP'. Try FUNCTION HELP."));
    CHECK(srv.run(c, {"FUNCTION", "HELP"}).substr(0, 3) == "*15");
    CHECK(srv.run(c, {"COMMAND", "INFO", "function"}).find("function|flush") != std::string::npos);
}

TEST_CASE("DEBUG LOG: accepted, and nothing is kept", "[redis][debug]") {
    zr::keyspace_options o;
    o.enable_debug_command = zr::debug_access::yes;
    server srv(o);
    auto& c = srv.client();
    CHECK(srv.run(c, {"DEBUG", "LOG", "### Starting test"}) == ok);
    CHECK(srv.run(c, {"DEBUG", "LOG"}) ==
          error("ERR unknown subcommand or wrong number of arguments for 'LOG'. Try DEBUG HELP."));
    server locked;  // enable-debug-command no
    auto& d = locked.client();
    CHECK(locked.run(d, {"DEBUG", "LOG", "x"}).substr(0, 31) == "-ERR DEBUG command not allowed.");
}
