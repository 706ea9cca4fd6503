#!/usr/bin/env python3
"""INFO of zset-server against a real redis-server's: sections, field names and counters.

Starts redis-server (Debian's is 7.0.15) and zset-server on free loopback ports, as
diff_test.py does, and compares:
  * which sections INFO prints, and in which order, for every way of naming them (none,
    default, all, everything, several names in one call, any case, unknown names);
  * the field names of each section, in order: every field of redis-server's must be in
    zset-server's (which reports Redis 7.2.0), and zset-server's others must be the fields
    Redis 7.2 added (listed below from its server.c) or zset-server's own zset_version;
    sections whose lines are data (commandstats, errorstats, latencystats, keyspace) are
    compared by content instead;
  * the counters both servers keep, after CONFIG RESETSTAT and the same script of commands on
    both (errors of every kind, MULTI / EXEC, a served and a timed-out blocking pop): every
    commandstats line but its times, every errorstats line, the keyspace lines but avg_ttl,
    total_error_replies, keyspace_hits / _misses, expired_keys, connected and blocked
    clients, and the values that say what the server does not do (role:master,
    connected_slaves:0, loading:0, aof_enabled:0, cluster_enabled:0, ...).

Exit status: 0 when everything agrees, 1 otherwise, 77 when redis-server is not installed,
2 on a setup failure.
"""

import argparse
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diff_test import Conn, run_with_servers  # noqa: E402

# Fields Redis 7.2 added to the sections INFO had in 7.0 (src/server.c and connection.c of
# 7.2.4; "listener" stands for listener0, listener1, ...), and the one zset-server adds.
ADDED_IN_7_2 = {
    "Server": {"listener"},
    "Clients": {"total_blocking_keys", "total_blocking_keys_on_nokey"},
    "Stats": {"eventloop_cycles", "eventloop_duration_sum", "eventloop_duration_cmd_sum",
              "instantaneous_eventloop_cycles_per_sec", "instantaneous_eventloop_duration_usec",
              "acl_access_denied_auth", "acl_access_denied_cmd", "acl_access_denied_key",
              "acl_access_denied_channel"},
}
ZSET_ONLY = {"Server": {"zset_version"}}
DATA_SECTIONS = {"Commandstats", "Errorstats", "Latencystats", "Keyspace"}
# Values that must agree: what neither server does, and the counters the script drives.
SAME_VALUES = {
    "Server": ["redis_mode", "arch_bits", "process_supervised", "io_threads_active"],
    "Clients": ["connected_clients", "cluster_connections", "blocked_clients",
                "tracking_clients"],
    "Memory": ["maxmemory", "maxmemory_policy", "number_of_functions", "number_of_libraries"],
    "Persistence": ["loading", "async_loading", "rdb_bgsave_in_progress", "rdb_last_bgsave_status",
                    "rdb_saves", "aof_enabled", "aof_rewrite_in_progress", "aof_rewrites",
                    "aof_last_write_status", "module_fork_in_progress"],
    "Stats": ["total_net_repl_input_bytes", "rejected_connections", "sync_full", "expired_keys",
              "evicted_keys", "keyspace_hits", "keyspace_misses", "pubsub_channels",
              "total_forks", "unexpected_error_replies", "total_error_replies"],
    "Replication": ["role", "connected_slaves", "master_failover_state", "master_replid2",
                    "master_repl_offset", "second_repl_offset", "repl_backlog_active"],
    "Cluster": ["cluster_enabled"],
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("MISMATCH: %s" % what)


def info(conn, *sections):
    rep = conn.call([b"INFO"] + [s.encode() for s in sections])
    assert rep[0] in ("bulk", "verbatim"), rep
    return rep[1].decode("latin-1")


def parse(text):
    """[(title, [(field, value), ...]), ...] in order."""
    out = []
    for line in text.split("\r\n"):
        if line.startswith("# "):
            out.append((line[2:], []))
        elif line:
            field, _, value = line.partition(":")
            out[-1][1].append((field, value))
    return out


def field_name(section, field):
    return "listener" if section == "Server" and field.startswith("listener") else field


def compare_fields(r_sections, z_sections):
    for (title, r_fields), (_, z_fields) in zip(r_sections, z_sections):
        if title in DATA_SECTIONS:
            continue
        r_names = [field_name(title, f) for f, _ in r_fields]
        z_names = [field_name(title, f) for f, _ in z_fields]
        extra = ADDED_IN_7_2.get(title, set()) | ZSET_ONLY.get(title, set())
        check([n for n in z_names if n not in extra] == r_names,
              "%s fields: redis %s, zset %s" % (title, r_names, z_names))
        for n in ADDED_IN_7_2.get(title, set()):
            check(n in z_names, "%s: zset-server lacks Redis 7.2's %s" % (title, n))


def compare_values(r_sections, z_sections):
    r, z = dict(r_sections), dict(z_sections)
    for title, fields in SAME_VALUES.items():
        rv, zv = dict(r[title]), dict(z[title])
        for f in fields:
            check(rv.get(f) == zv.get(f), "%s %s: redis %r, zset %r" % (title, f, rv.get(f), zv.get(f)))

    def stats_line(value):  # commandstats: calls, rejected_calls, failed_calls (not the times)
        kv = dict(p.split("=") for p in value.split(","))
        return (kv["calls"], kv["rejected_calls"], kv["failed_calls"])
    check({f: stats_line(v) for f, v in r["Commandstats"]} ==
          {f: stats_line(v) for f, v in z["Commandstats"]},
          "Commandstats: redis %s, zset %s" % (r["Commandstats"], z["Commandstats"]))
    check(r["Errorstats"] == z["Errorstats"],
          "Errorstats: redis %s, zset %s" % (r["Errorstats"], z["Errorstats"]))

    def keyspace(lines):
        return [(f, v.rsplit(",", 1)[0]) for f, v in lines]
    check(keyspace(r["Keyspace"]) == keyspace(z["Keyspace"]),
          "Keyspace: redis %s, zset %s" % (r["Keyspace"], z["Keyspace"]))


SCRIPT = [
    [b"SELECT", b"1"], [b"ZADD", b"z", b"1", b"a", b"2", b"b"], [b"ZADD", b"z"],
    [b"ZADD", b"z", b"x", b"a"], [b"ZSCORE", b"z", b"a"], [b"ZSCORE", b"nokey", b"a"],
    [b"ZRANGE", b"z", b"0", b"-1", b"WITHSCORES"], [b"ZCARD", b"z"], [b"ZRANK", b"z", b"b"],
    [b"SADD", b"s", b"1", b"2", b"x"], [b"SISMEMBER", b"s", b"x"], [b"SCARD", b"nokey"],
    [b"SMEMBERS", b"z"], [b"SET", b"str", b"v"], [b"GET", b"str"], [b"GET", b"z"],
    [b"ZUNIONSTORE", b"d", b"3", b"z", b"s", b"nokey"], [b"ZINTER", b"2", b"z", b"nokey"],
    [b"ZRANGESTORE", b"d2", b"z", b"0", b"-1"], [b"EXISTS", b"z", b"nokey", b"s"],
    [b"TYPE", b"z"], [b"TYPE", b"nokey"], [b"OBJECT", b"ENCODING", b"z"], [b"DUMP", b"nokey"],
    [b"TTL", b"z"], [b"EXPIRE", b"z", b"1000"], [b"NOSUCH", b"x"],
    [b"CONFIG", b"NOSUCH"], [b"CONFIG", b"GET", b"zset-max-listpack-entries"],
    [b"MULTI"], [b"ZADD", b"z", b"3", b"c"], [b"ZINCRBY", b"z", b"x", b"a"], [b"EXEC"],
    [b"MULTI"], [b"ZADD", b"z"], [b"EXEC"], [b"EXEC"], [b"DISCARD"],
    [b"ZPOPMIN", b"z", b"-1"], [b"ZMPOP", b"1", b"z", b"MIN"], [b"BZPOPMIN", b"z", b"0"],
    [b"SCAN", b"0"], [b"SCAN", b"0", b"TYPE", b"zset"], [b"KEYS", b"*"], [b"DBSIZE"],
    [b"FUNCTION", b"FLUSH"], [b"FUNCTION", b"LIST"], [b"FUNCTION", b"DELETE", b"nolib"],
    [b"FUNCTION", b"LOAD", b"no shebang"], [b"FUNCTION", b"KILL"], [b"DEBUG", b"LOG", b"hi"],
    [b"HELLO", b"4"], [b"AUTH", b"x"], [b"PING"], [b"ECHO", b"e"], [b"WATCH", b"z"],
    [b"UNWATCH"], [b"DEL", b"d"], [b"ZREM", b"z", b"b"], [b"INFO", b"nosuch"],
]


def run_script(port):
    c = Conn(port)
    for argv in SCRIPT:
        c.call(argv)
    # A blocking pop served by another client's write, and one that times out.
    waiter = Conn(port)
    waiter.call([b"SELECT", b"1"])
    waiter.send([b"BZPOPMAX", b"q", b"5"])
    time.sleep(0.2)
    c.call([b"ZADD", b"q", b"1", b"m"])
    waiter.read()
    waiter.call([b"BZPOPMIN", b"q", b"0.05"])
    c.call([b"PEXPIRE", b"d2", b"1"])
    time.sleep(0.1)
    c.call([b"ZCARD", b"d2"])  # expired: a miss, and expired_keys:1
    return c, waiter  # both stay connected until INFO is compared


def blocked_client_view(port, key):
    """INFO clients while a third client is blocked on `key` (then it is released)."""
    b = Conn(port)
    b.send([b"BZPOPMIN", key, b"0"])
    time.sleep(0.2)
    c = Conn(port)
    text = info(c, "clients")
    c.call([b"ZADD", key, b"1", b"x"])
    b.read()
    b.close()
    c.close()
    return parse(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zset-server", required=True)
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    args = ap.parse_args()
    return run_with_servers("info_test", args.redis_server, args.zset_server,
                            lambda rport, zport, procs: run(rport, zport))


def run(rport, zport):
    r, z = Conn(rport), Conn(zport)
    version = dict(parse(info(r, "server"))[0][1])["redis_version"]
    print("info_test: redis-server %s on port %d, zset-server on port %d" % (version, rport, zport))

    # Which sections, in which order.
    for names in ([], ["default"], ["all"], ["everything"], ["server", "clients"],
                  ["CLIENTS", "Keyspace", "clients"], ["nosuch"], ["default", "commandstats"],
                  ["modules"], ["module_list"], ["everything", "nosuch"], ["all", "server"],
                  ["errorstats", "latencystats", "cpu"]):
        rt = [t for t, _ in parse(info(r, *names))]
        zt = [t for t, _ in parse(info(z, *names))]
        check(rt == zt, "INFO %s sections: redis %s, zset %s" % (" ".join(names), rt, zt))

    # Field names, then the counters after the same script on both.
    for c in (r, z):
        c.call([b"DEBUG", b"SET-ACTIVE-EXPIRE", b"0"])
        c.call([b"FLUSHALL"])
        c.call([b"CONFIG", b"RESETSTAT"])
    r.close()
    z.close()
    threads = []
    done = {}
    for port in (rport, zport):
        t = threading.Thread(target=lambda p=port: done.__setitem__(p, run_script(p)))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    r_all, z_all = parse(info(done[rport][0], "everything")), parse(info(done[zport][0], "everything"))
    compare_fields(r_all, z_all)
    compare_values(r_all, z_all)
    r_block, z_block = blocked_client_view(rport, b"w"), blocked_client_view(zport, b"w")
    check(dict(r_block[0][1])["blocked_clients"] == dict(z_block[0][1])["blocked_clients"] == "1",
          "blocked_clients while one waits: redis %s, zset %s" % (r_block, z_block))
    for conns in done.values():
        for c in conns:
            c.close()
    fields = sum(len(f) for _, f in z_all)
    print("info_test: %d sections, %d fields compared, %d mismatches" %
          (len(z_all), fields, len(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
