#!/usr/bin/env python3
"""Reads zset-server's INFO with redis-py, the way redis-py's own test harness and monitors do.

redis-py's tests/conftest.py (pytest_sessionstart, redis-py 4.x) connects, calls INFO, takes
info["redis_version"], info["arch_bits"] and info["cluster_enabled"] as plain keys (a missing
one stops the whole session with KeyError) and sends DPING, expecting a ResponseError from a
server that is not Redis Enterprise. This test does exactly that against a zset-server it
starts on a free loopback port, then reads what monitoring tools read (role, replicas,
persistence, CPU, memory, keyspace, per-command and per-error statistics) through redis-py's
INFO parser, section by section and all at once.

Needs the redis module (Debian: python3-redis); exit status 77 (skipped) without it, 0 when
every check passes, 1 otherwise.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_limits import check, results, start_zset, stop  # noqa: E402

SKIP = 77

try:
    import redis
except ImportError:
    redis = None


def conftest_session_start(url):
    """redis-py 4.3.4's tests/conftest.py: _get_info() and pytest_sessionstart(), verbatim."""
    client = redis.Redis.from_url(url)
    info = client.info()
    try:
        client.execute_command("DPING")
        info["enterprise"] = True
    except redis.ResponseError:
        info["enterprise"] = False
    client.connection_pool.disconnect()
    return {"version": info["redis_version"], "arch_bits": info["arch_bits"],
            "cluster_enabled": info["cluster_enabled"], "enterprise": info["enterprise"]}


def run(port):
    url = "redis://127.0.0.1:%d/9" % port
    session = conftest_session_start(url)
    check(session == {"version": "7.2.0", "arch_bits": 64, "cluster_enabled": 0,
                      "enterprise": False}, "session start: %r" % session)

    r = redis.Redis.from_url(url)
    r.zadd("board", {"alice": 10, "bob": 20})
    r.sadd("tags", "a", "b")
    r.expire("board", 1000)
    try:
        r.zadd("tags", {"x": 1})
    except redis.ResponseError:
        pass

    everything = r.info("everything")
    default = r.info()
    for name, info in (("default", default), ("everything", everything)):
        for field in ("redis_version", "redis_mode", "os", "arch_bits", "process_id", "run_id",
                      "tcp_port", "uptime_in_seconds", "connected_clients", "blocked_clients",
                      "used_memory", "used_memory_human", "used_memory_rss", "maxmemory",
                      "maxmemory_policy", "mem_fragmentation_ratio", "loading",
                      "rdb_changes_since_last_save", "rdb_last_save_time", "aof_enabled",
                      "total_connections_received", "total_commands_processed",
                      "instantaneous_ops_per_sec", "total_net_input_bytes", "keyspace_hits",
                      "keyspace_misses", "expired_keys", "evicted_keys", "total_error_replies",
                      "role", "connected_slaves", "master_repl_offset", "used_cpu_sys",
                      "used_cpu_user", "cluster_enabled", "db9"):
            check(field in info, "INFO %s has %s" % (name, field))
    info = everything
    check(info["role"] == "master" and info["connected_slaves"] == 0, "no replicas")
    check(info["loading"] == 0 and info["aof_enabled"] == 0 and info["rdb_bgsave_in_progress"] == 0,
          "no persistence")
    check(info["rdb_changes_since_last_save"] >= 3, "changes since the start are unsaved")
    check(info["cluster_enabled"] == 0 and info["redis_mode"] == "standalone", "no cluster")
    check(isinstance(info["used_cpu_sys"], float) and info["used_cpu_user"] + info["used_cpu_sys"] > 0,
          "CPU time: %r %r" % (info["used_cpu_sys"], info["used_cpu_user"]))
    check(info["used_memory_rss"] > 0 and info["used_memory"] > 0, "memory")
    check(info["db9"] == {"keys": 2, "expires": 1, "avg_ttl": info["db9"]["avg_ttl"]}
          and 0 < info["db9"]["avg_ttl"] <= 1000000, "keyspace db9: %r" % info["db9"])
    check(info["cmdstat_zadd"]["calls"] == 2 and info["cmdstat_zadd"]["failed_calls"] == 1,
          "commandstats zadd: %r" % info.get("cmdstat_zadd"))
    check(info["errorstat_WRONGTYPE"] == "count=1", "errorstats: %r" % info.get("errorstat_WRONGTYPE"))
    check(info["total_error_replies"] >= 2, "DPING and WRONGTYPE are error replies")
    check(info["listener0"]["port"] == port, "listener0: %r" % info.get("listener0"))
    check(r.info("cluster") == {"cluster_enabled": 0}, "INFO cluster")
    check(r.info("replication")["role"] == "master", "INFO replication")
    check(set(r.info("persistence")) >= {"loading", "rdb_changes_since_last_save"}, "INFO persistence")
    check(set(r.info("cpu")) == {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children",
                                 "used_cpu_user_children", "used_cpu_sys_main_thread",
                                 "used_cpu_user_main_thread"}, "INFO cpu")
    several = r.execute_command("INFO", "server", "clients")  # parsed by redis-py's INFO callback
    check("redis_version" in several and "connected_clients" in several and "role" not in several,
          "INFO server clients")
    r.connection_pool.disconnect()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zset-server", required=True)
    args = ap.parse_args()
    if redis is None:
        print("redispy_info: SKIPPED (%s has no redis module; Debian: python3-redis)" % sys.executable)
        return SKIP
    proc, port = start_zset(args.zset_server)
    try:
        run(port)
    finally:
        stop(proc)
    print("redispy_info: redis-py %s, %d passed, %d failed" %
          (redis.__version__, results["passed"], results["failed"]))
    return 0 if results["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
