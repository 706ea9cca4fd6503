#!/usr/bin/env python3
"""Drop-in mode: applications' own sorted-set code, unchanged, against the module.

A plain redis-server and one with zset.so in drop-in mode (--zset.dropin yes) run the same
unchanged client code, and every result is compared:
  * redis-py's sorted-set API (Debian's python3-redis), call by call, RESP2 and RESP3-free;
  * a BullMQ-like delayed-job queue: jobs scheduled in a sorted set by due time, moved to a
    list by a Lua script (redis.call('ZRANGEBYSCORE' ...), ZREM, RPUSH) when due;
  * a leaderboard updated in MULTI / EXEC (redis-py's transactional pipeline);
  * the keyspace events the commands send (notify-keyspace-events KEA);
and the sorted sets Redis keeps as skiplists are module keys on the drop-in server, the ones it
keeps as listpacks its own (module/dropin_keys.hpp; test_dropin_keys.py tests the rule). Then:
  * a replica without the module cannot take the master's data once it holds a module key (the
    full sync's RDB holds module values): its link stays down and its log names the module type;
  * an AOF written in drop-in mode with a module key, replayed by a server without the module,
    stops that server (the AOF holds ZSET.* commands), never silently.
"""

import sys
import time

import support

DELAYED_JOBS = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, job in ipairs(due) do
    redis.call('ZREM', KEYS[1], job)
    redis.call('RPUSH', KEYS[2], job)
end
return #due
"""


# More members than zset-max-listpack-entries: a module key in drop-in mode.
BIG = {"m%d" % i: i for i in range(200)}


def redis_py_calls(c):
    """redis-py's sorted-set methods; returns what each call returned."""
    out = []
    r = out.append
    r(c.zadd("board", {"alice": 10, "bob": 20, "carol": 15}))
    r(c.zadd("board", {"alice": 12}, xx=True, ch=True))
    r(c.zadd("board", {"dave": 5}, nx=True))
    r(c.zadd("board", {"bob": 18}, gt=True, ch=True))
    r(c.zadd("board", {"bob": 3}, incr=True))
    r(c.zincrby("board", 2.5, "carol"))
    r(c.zscore("board", "carol"))
    r(c.zmscore("board", ["alice", "nobody", "bob"]))
    r(c.zrank("board", "bob"))
    r(c.zrevrank("board", "bob"))
    r(c.zcard("board"))
    r(c.zcount("board", 10, "+inf"))
    r(c.zrange("board", 0, -1, withscores=True))
    r(c.zrange("board", 0, 1, desc=True, withscores=True))
    r(c.zrange("board", 10, 20, byscore=True, offset=0, num=2))
    r(c.zrangebyscore("board", "(10", "+inf", withscores=True))
    r(c.zrevrangebyscore("board", "+inf", "-inf", start=0, num=2))
    r(c.zrevrange("board", 0, 2))
    r(c.zadd("words", {"apple": 0, "apricot": 0, "banana": 0, "cherry": 0}))
    r(c.zrangebylex("words", "[ap", "(b"))
    r(c.zrevrangebylex("words", "+", "[b"))
    r(c.zlexcount("words", "-", "+"))
    r(c.zremrangebylex("words", "[cherry", "+"))
    r(c.zunionstore("u", {"board": 1, "words": 2}, aggregate="MAX"))
    r(c.zinterstore("i", ["board", "u"]))
    r(c.zdiffstore("d", ["u", "board"]))
    r(c.zunion(["board", "words"], withscores=True))
    r(c.zinter(["board", "u"], aggregate="MIN"))
    r(c.zdiff(["u", "board"], withscores=True))
    r(c.zintercard(2, ["board", "u"]))
    r(c.zrangestore("top", "board", 0, 1, desc=True))
    r(c.zrange("top", 0, -1, withscores=True))
    r(c.zrem("board", "dave", "nobody"))
    r(c.zremrangebyrank("u", 0, 0))
    r(c.zremrangebyscore("u", "-inf", 0))
    r(c.zpopmin("board"))
    r(c.zpopmax("board", 2))
    r(c.bzpopmin(["empty", "top"], timeout=1))
    r(c.bzpopmax(["top"], timeout=1))
    r(c.bzpopmin(["empty"], timeout=0.05))
    r(c.zmpop(1, ["u"], min=True, count=2))
    r(sorted(c.zscan_iter("words")))
    r(len(c.zrandmember("u", 5) or []))
    r(c.type("u"))
    r(c.object("encoding", "u"))
    c.zadd("big", {"m%d" % i: i for i in range(200)})
    r(c.object("encoding", "big"))
    r(c.restore("copy", 0, c.dump("big")))
    r(c.zrange("copy", 0, 4, withscores=True))
    r(c.exists("board", "words", "u", "i", "d", "top", "big", "copy"))
    return out


def delayed_jobs(c):
    for i in range(50):
        c.zadd("delayed", {"job:%d" % i: 1000 + i * 10})
    script = c.register_script(DELAYED_JOBS)
    moved = [script(keys=["delayed", "wait"], args=[now, 7]) for now in (900, 1100, 1300, 2000)]
    return moved, c.lrange("wait", 0, -1), c.zrange("delayed", 0, -1, withscores=True)


def leaderboard(c):
    results = []
    for round_ in range(20):
        with c.pipeline(transaction=True) as p:
            p.zincrby("lb", round_ % 7, "player:%d" % (round_ % 5))
            p.zrevrange("lb", 0, 2, withscores=True)
            p.zremrangebyrank("lb", 0, -4)
            results.append(p.execute())
    return results


def keyspace_events(c):
    """The keyspace events (notify-keyspace-events KEA) a few sorted-set commands send."""
    c.config_set("notify-keyspace-events", "KEA")
    p = c.pubsub()
    p.psubscribe("__keyevent@0__:*", "sentinel")
    for _ in range(2):
        p.get_message(timeout=5)
    c.zadd("ev", {"a": 1, "b": 2})
    c.zadd("ev", {"a": 5}, incr=True)
    c.zincrby("ev", 1, "b")
    c.zrem("ev", "nobody")
    c.zrem("ev", "a")
    c.zunionstore("ev2", ["ev"])
    c.zpopmin("ev")
    c.zpopmax("ev2", 5)
    c.publish("sentinel", "end")  # after every event, on the same connection's stream
    events = []
    deadline = time.time() + 20
    while time.time() < deadline:
        m = p.get_message(timeout=1)
        if m is None or m["type"] != "pmessage":
            continue
        if m["channel"] == b"sentinel":
            break
        events.append((m["channel"], m["data"]))
    p.close()
    c.config_set("notify-keyspace-events", "")
    return events


def replica_without_module(checks, make, redis_server, module):
    master = make(redis_server, module, module_args=["--zset.dropin", "yes"]).start()
    master.client().zadd("lb", BIG)  # past the listpack thresholds: a module key
    plain = make(redis_server, None).start()
    plain.client().execute_command("REPLICAOF", "127.0.0.1", master.port)
    deadline = time.time() + 20
    while time.time() < deadline and "module" not in plain.log_tail(60).lower():
        time.sleep(0.2)
    # The replica either stays up with its link down or stops (Redis 7.0 ends a server that
    # meets module data it cannot load), at any moment after logging why: either way it did not
    # come up.
    try:
        info = plain.client().info("replication")
    except support.redis.exceptions.ConnectionError:
        info = {}
    checks.expect(info.get("master_link_status") != "up",
                  "a replica without the module does not come up (%s)" % info.get("master_link_status"))
    checks.expect("module" in plain.log_tail(60).lower(),
                  "its log says why:\n%s" % plain.log_tail(8))


def aof_without_module(checks, make, redis_server, module):
    s = make(redis_server, module, module_args=["--zset.dropin", "yes"],
             args=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]).start()
    s.client().zadd("lb", BIG)
    s.stop()
    s.module = None
    try:
        s.start(timeout=10)
        checks.expect(False, "a server without the module replayed the drop-in AOF")
    except RuntimeError as e:
        checks.expect("ZSET" in str(e) or "zset" in str(e), "the replay stops on ZSET.*: %s" % e)


def main():
    args = support.arguments()
    checks = support.Checks("module drop-in")
    module = args.module
    with support.servers(prefix="zset-dropin-") as make:
        native = make(args.redis_server, None).start()
        dropin = make(args.redis_server, module, module_args=["--zset.dropin", "yes"]).start()
        n, d = native.client(), dropin.client()
        for name, scenario in (("redis-py's API", redis_py_calls), ("delayed jobs", delayed_jobs),
                               ("a MULTI/EXEC leaderboard", leaderboard),
                               ("keyspace events", keyspace_events)):
            want, got = scenario(n), scenario(d)
            checks.equal(got, want, name)
        module_keys = sorted(d.scan(0, count=1000, _type="zsetmod--")[1])
        checks.equal(module_keys, sorted(k for k in n.keys() if n.type(k) == b"zset" and
                                         n.object("encoding", k) != b"listpack"),
                     "the sorted sets Redis keeps as skiplists are module keys")
        native_keys = sorted(d.scan(0, count=1000, _type="zset")[1])
        checks.equal(native_keys, sorted(k for k in n.keys() if n.type(k) == b"zset" and
                                         n.object("encoding", k) == b"listpack"),
                     "the ones Redis keeps as listpacks are Redis's own "
                     "(zset.dropin-small-keys native)")
        replica_without_module(checks, make, args.redis_server, module)
        aof_without_module(checks, make, args.redis_server, module)
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
