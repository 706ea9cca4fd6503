#!/usr/bin/env python3
"""The module's keys survive every way Redis persists and reloads data.

One redis-server with zset.so gets a seeded stream of ZSET.* writes (small keys in listpack
mode, a big one in skiplist mode, TTLs, set operations over module and native inputs, pops).
Then, each time comparing every key (type, members and scores, TTL presence) and DEBUG DIGEST
with what was there before:
  * DEBUG RELOAD (save and load the RDB in place);
  * SAVE, then a restart that loads dump.rdb;
  * BGREWRITEAOF with aof-use-rdb-preamble no (the type's aof_rewrite: ZSET.ZADD commands),
    more writes appended to the AOF, then a restart that replays it;
  * the same with an RDB preamble (the type's rdb_save inside the AOF).
"""

import sys
import time

import support


def wait_rewrite(client):
    deadline = time.time() + 60
    while time.time() < deadline:
        info = client.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return info["aof_last_bgrewrite_status"] == "ok"
        time.sleep(0.05)
    return False


def state(client):
    keys = support.all_keys(client)
    return support.snapshot(client, keys), client.execute_command("DEBUG", "DIGEST")


def main():
    args = support.arguments()
    checks = support.Checks("module persistence")
    with support.servers() as make:
        s = make(args.redis_server, args.module).start()
        c = s.client()
        support.write_stream(c, seed=11, count=4000)
        before = state(c)
        checks.expect(len(before[0]) >= 8, "the write stream left keys (%d)" % len(before[0]))
        checks.expect(any(v and v[0] == b"zsetmod--" and len(v[1]) > 128
                          for v in before[0].values()), "a key past the listpack thresholds")

        c.execute_command("DEBUG", "RELOAD")
        checks.equal(state(c), before, "after DEBUG RELOAD")

        c.save()
        s.restart()
        c = s.client()
        checks.equal(state(c), before, "after SAVE and a restart")

        for preamble in ("no", "yes"):
            c.config_set("aof-use-rdb-preamble", preamble)
            c.config_set("appendonly", "yes")
            checks.expect(wait_rewrite(c), "AOF rewrite (preamble %s) succeeded" % preamble)
            c.execute_command("BGREWRITEAOF")
            checks.expect(wait_rewrite(c), "BGREWRITEAOF (preamble %s) succeeded" % preamble)
            support.write_stream(c, seed=12 if preamble == "no" else 13, count=500)
            after = state(c)
            s.restart(["--appendonly", "yes", "--aof-use-rdb-preamble", preamble])
            c = s.client()
            checks.equal(state(c), after, "after an AOF replay (preamble %s)" % preamble)
            c.config_set("appendonly", "no")
        checks.expect(s.alive(), "the server is still running")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
