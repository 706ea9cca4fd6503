#!/usr/bin/env python3
"""Writes to module keys reach a replica and leave it holding identical data.

A master and a replica (REPLICAOF), both with zset.so:
  * data written before the replica attaches arrives in the full sync's RDB (the type's
    rdb_save / rdb_load);
  * a seeded write stream afterwards arrives as propagated commands;
  * a blocking pop served by another client's write is propagated as the pop it amounts to
    (ZSET.ZPOPMIN), and one that timed out propagates nothing;
  * ZSET.IMPORT / ZSET.EXPORT convert the replica's copy the same way;
  * ZSET.ZRANDMEMBER (random, read-only) propagates nothing;
then every key (type, members and scores, TTL presence) and DEBUG DIGEST agree on both.
"""

import sys
import threading
import time

import support


def wait_synced(master, replica, timeout=30):
    """WAIT for the replica to acknowledge everything the master propagated."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if master.execute_command("WAIT", 1, 1000) >= 1:
            offset = master.info("replication")["master_repl_offset"]
            if replica.info("replication").get("slave_repl_offset", -1) >= offset:
                return True
        time.sleep(0.05)
    return False


def attach(replica, master_port):
    replica.execute_command("REPLICAOF", "127.0.0.1", master_port)
    deadline = time.time() + 30
    while time.time() < deadline:
        info = replica.info("replication")
        if info.get("master_link_status") == "up" and not info.get("master_sync_in_progress"):
            return True
        time.sleep(0.05)
    return False


def blocking_pop(master_server, key, results):
    c = master_server.client()
    results.append(c.execute_command("ZSET.BZPOPMIN", key, 10))


def main():
    args = support.arguments()
    checks = support.Checks("module replication")
    module = args.module
    with support.servers() as make:
        ms = make(args.redis_server, module).start()
        rs = make(args.redis_server, module).start()
        m, r = ms.client(), rs.client()
        support.write_stream(m, seed=21, count=2000, prefix="before")
        checks.expect(attach(r, ms.port), "the replica synced")
        support.write_stream(m, seed=22, count=3000, prefix="after")

        results = []
        t = threading.Thread(target=blocking_pop, args=(ms, "bpop", results))
        t.start()
        time.sleep(0.2)
        m.execute_command("ZSET.ZADD", "bpop", 1, "x", 2, "y")
        t.join()
        checks.equal(results, [[b"bpop", b"x", b"1"]], "the blocked client was served")
        checks.equal(m.execute_command("ZSET.BZPOPMIN", "nothing", 0.05), None, "a timeout")

        m.zadd("native:1", {"a": 1, "b": 2.5})
        m.pexpire("native:1", 100000)
        checks.equal(m.execute_command("ZSET.IMPORT", "native:1"), 2, "ZSET.IMPORT")
        m.execute_command("ZSET.ZADD", "exported", 3, "c")
        checks.equal(m.execute_command("ZSET.EXPORT", "exported"), 1, "ZSET.EXPORT")
        m.execute_command("ZSET.ZRANDMEMBER", "after:1", -5)

        checks.expect(wait_synced(m, r), "the replica caught up")
        keys = support.all_keys(m)
        checks.equal(support.all_keys(r), keys, "the same keys")
        checks.equal(support.snapshot(r, keys), support.snapshot(m, keys), "the same data")
        checks.equal(r.execute_command("DEBUG", "DIGEST"), m.execute_command("DEBUG", "DIGEST"),
                     "the same digest")
        checks.equal(r.type("native:1"), b"zsetmod--", "the replica imported too")
        checks.equal(r.type("exported"), b"zset", "the replica exported too")
        checks.expect(r.pttl("native:1") > 0, "the imported key kept its TTL on the replica")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
