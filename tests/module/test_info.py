#!/usr/bin/env python3
"""The module's identity and INFO section: MODULE LIST and INFO modules give its version, and
INFO zset counts what its keys hold.

After a seeded stream of writes (every kind of change: adds, removes, pops, stores over other
keys, deletions, TTLs), then after COPY, RESTORE, RENAME over a key, DEBUG RELOAD, an expired
key and FLUSHALL SYNC, zset_keys and zset_elements equal what the keyspace holds (SCAN, then
ZSET.ZCARD of every module key), and zset_memory_bytes goes back to 0 when no module key is
left.
"""

import sys
import time

import support


def counted(client):
    info = client.info("zset")
    return info["zset_keys"], info["zset_elements"]


def held(client):
    """(module keys, their members) as the keyspace says."""
    keys = list(client.scan_iter(count=1000, _type="zsetmod--"))
    return len(keys), sum(client.execute_command("ZSET.ZCARD", k) for k in keys)


def main():
    args = support.arguments()
    checks = support.Checks("module INFO")
    with support.servers(prefix="zset-info-") as make:
        s = make(args.redis_server, args.module).start()
        c = s.client()
        c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
        version = c.execute_command("ZSET.ZCARD", "nothing")  # the module answers
        checks.equal(version, 0, "ZSET.ZCARD of a missing key")
        listed = [dict(zip(m[::2], m[1::2])) for m in c.execute_command("MODULE", "LIST")]
        modules = {m[b"name"]: m[b"ver"] for m in listed}
        info = c.info("zset")
        major, minor, patch = (int(x) for x in info["zset_version"].split("."))
        checks.equal(modules.get(b"zset"), major * 10000 + minor * 100 + patch,
                     "MODULE LIST's version is INFO zset's")
        checks.expect("zset_version" in c.info("modules") or "zset" in str(c.info("modules")),
                      "INFO modules names the module")
        for name in ("zset_dropin", "zset_acl_categories", "zset_dropin_acl_check",
                     "zset_memory_bytes"):
            checks.expect(name in info, "INFO zset has %s" % name)

        support.write_stream(c, seed=5, count=4000)
        checks.equal(counted(c), held(c), "after a write stream: (keys, elements)")
        some = next(iter(c.scan_iter(_type="zsetmod--")))
        c.execute_command("COPY", some, "copied")
        c.execute_command("RESTORE", "restored", 0, c.dump(some))
        c.rename("copied", some)  # RENAME over a module key frees the old value
        checks.equal(counted(c), held(c), "after COPY, RESTORE and RENAME")
        # An expired key is freed when touched (active expiry is off): past its TTL, EXISTS
        # deletes it, before the counts are read.
        c.pexpire("restored", 1)
        time.sleep(0.01)
        checks.equal(c.exists("restored"), 0, "the expired key is gone once touched")
        checks.equal(counted(c), held(c), "after a key expired")
        c.execute_command("DEBUG", "RELOAD")
        checks.equal(counted(c), held(c), "after DEBUG RELOAD")
        # SYNC: a server with lazyfree-lazy-user-flush (Valkey 8's default) frees the values on
        # its lazy-free thread after FLUSHALL has replied, and the counts follow the frees
        c.execute_command("FLUSHALL", "SYNC")
        checks.equal(counted(c), (0, 0), "after FLUSHALL")
        checks.equal(c.info("zset")["zset_memory_bytes"], 0, "memory after FLUSHALL")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
