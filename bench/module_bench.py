#!/usr/bin/env python3
"""The Redis module against Redis's own sorted sets, in the same redis-server.

  memory       INFO memory's used_memory grows by this much for the same data: one key of
               1,000,000 members "member:<i>", and 100,000 keys of 100 members "member:0" to
               "member:99"; the scores are the benchmark suite's (bench/redis_memory.py's
               score_of: uniform doubles in [0, 1), the same values zset_bench uses); native keys
               (ZADD) against module keys (ZSET.ZADD), one server.
  throughput   redis-benchmark, pipelined (-P 16, 50 clients), against a key of 1,000,000
               members: ZADD of new members, ZSCORE, ZRANK, ZRANGEBYSCORE ... LIMIT 0 10 and
               ZINCRBY, each as Redis's command on a native key and as ZSET.<name> on a module
               key holding the same elements, alternated, medians of --rounds.
  unlink       how long the main thread spends in UNLINK of a 2,000,000-member module key (the
               command's own time, INFO commandstats; the value is freed on Redis's lazy-free
               thread), and the longest a concurrent PING waits meanwhile against the longest
               wait without it; DEL of the same native key for reference.
  dropin       drop-in mode against a server without the module: redis-benchmark's own `zadd`
               and `zpopmin` tests and pipelined ZSCORE / ZRANK / ZRANGEBYSCORE, the two servers
               run one after the other, alternated, medians of --rounds.
  smallkeys    100 keys of 100 members (random key and member: ZADD, ZSCORE, ZRANGE 0 9,
               ZREM), each way a server can hold them: Redis without the module, ZSET.* on
               module keys, and drop-in mode with zset.dropin-small-keys native and module;
               ratios to Redis without the module, medians of --rounds.

Writes a Markdown table (--out) and JSON (--json). Ratios are module / native: below 1 is
smaller memory, above 1 is more requests per second. The host is shared and noisy: compare the
ratios measured in one run, and read the spread (min-max of the rounds) beside each median.

Usage: bench/module_bench.py --module build/module/zset.so [--rounds 5] [--quick]
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "module"))
sys.path.insert(0, HERE)
import support  # noqa: E402  (the tests' server helper)
from redis_memory import score_of  # noqa: E402  (the suite's scores)


def fill(client, key, n, command, seed, batch=1000, name="member:%d"):
    """n members "member:<i>" with the suite's scores (scaled by 10^6), in batches."""
    pipe = client.pipeline(transaction=False)
    for start in range(0, n, batch):
        args = []
        for i in range(start, min(n, start + batch)):
            args += [repr(score_of(i, seed) * 1e6), name % i]
        pipe.execute_command(command, key, *args)
        if start % (batch * 50) == 0:
            pipe.execute()
    pipe.execute()


def used_memory(client):
    return client.info("memory")["used_memory"]


def memory(server, quick):
    c = server.client()
    out = {}
    big = 200_000 if quick else 1_000_000
    keys = 10_000 if quick else 100_000
    for label, command in (("native", "ZADD"), ("module", "ZSET.ZADD")):
        c.flushall()
        base = used_memory(c)
        fill(c, "big:" + label, big, command, seed=1)
        out[label + "_big"] = (used_memory(c) - base) / big
        c.flushall()
        base = used_memory(c)
        pipe = c.pipeline(transaction=False)
        for k in range(keys):
            args = []
            for i in range(100):
                args += [repr(score_of(k * 100 + i)), "member:%d" % i]
            pipe.execute_command(command, "small:%s:%d" % (label, k), *args)
            if k % 1000 == 999:
                pipe.execute()
        pipe.execute()
        out[label + "_small"] = (used_memory(c) - base) / (keys * 100)
    c.flushall()
    return {"members_big": big, "keys_small": keys, **out}


def benchmark(port, args, n, extra=()):
    """Requests per second of one redis-benchmark run."""
    cmd = ["redis-benchmark", "-p", str(port), "-P", "16", "-c", "50", "-n", str(n), "-q",
           "--csv"] + list(extra) + list(args)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    for line in out.splitlines():
        fields = [f.strip('"') for f in line.split(",")]
        if len(fields) >= 2 and fields[0] != "test":
            try:
                return float(fields[1])
            except ValueError:
                continue
    raise RuntimeError("redis-benchmark printed nothing usable:\n" + out)


# redis-benchmark writes __rand_int__ as 12 digits, zero-padded: the keys' members are named so.
PADDED = "member:%012d"

THROUGHPUT = [
    ("ZADD new member", "ZADD {k} __rand_int__ new:__rand_int__"),
    ("ZSCORE", "ZSCORE {k} member:__rand_int__"),
    ("ZRANK", "ZRANK {k} member:__rand_int__"),
    ("ZRANGEBYSCORE LIMIT 0 10", "ZRANGEBYSCORE {k} __rand_int__ +inf LIMIT 0 10"),
    ("ZINCRBY", "ZINCRBY {k} 1 member:__rand_int__"),
]


def throughput(server, rounds, quick):
    c = server.client()
    c.flushall()
    n_members = 200_000 if quick else 1_000_000
    fill(c, "nat", n_members, "ZADD", seed=3, name=PADDED)
    fill(c, "mod", n_members, "ZSET.ZADD", seed=3, name=PADDED)
    requests = 200_000 if quick else 1_000_000
    rows = []
    for name, template in THROUGHPUT:
        native, module = [], []
        # new members: drawn from 10^11 names, so nearly every ZADD adds one
        spread = 10**11 if name.startswith("ZADD") else n_members
        for _ in range(rounds):
            for label, key, prefix in (("native", "nat", ""), ("module", "mod", "ZSET.")):
                argv = (prefix + template.format(k=key)).split()
                rps = benchmark(server.port, argv, requests, ["-r", str(spread)])
                (native if label == "native" else module).append(rps)
        rows.append(summary(name, native, module))
    c.flushall()
    return rows


def summary(name, native, module):
    ratios = sorted(m / n for m, n in zip(module, native))
    return {"name": name, "native": statistics.median(native), "module": statistics.median(module),
            "ratio": statistics.median(ratios), "spread": [ratios[0], ratios[-1]]}


def ping_worst(port, stop, out):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    worst = 0.0
    while not stop.is_set():
        t = time.perf_counter()
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        s.recv(64)
        worst = max(worst, time.perf_counter() - t)
    out.append(worst)
    s.close()


def while_pinging(port, action):
    stop, out = threading.Event(), []
    t = threading.Thread(target=ping_worst, args=(port, stop, out))
    t.start()
    time.sleep(0.3)
    started = time.perf_counter()
    action()
    took = time.perf_counter() - started
    time.sleep(0.3)
    stop.set()
    t.join()
    return out[0] * 1000, took * 1000


def command_usec(client, name):
    """Microseconds the server spent in `name` since CONFIG RESETSTAT (INFO commandstats)."""
    return client.info("commandstats").get("cmdstat_" + name, {}).get("usec", 0)


def unlink(server, quick):
    c = server.client()
    c.flushall()
    n = 400_000 if quick else 2_000_000
    base, _ = while_pinging(server.port, lambda: time.sleep(0.5))
    fill(c, "mod", n, "ZSET.ZADD", seed=4)
    c.config_resetstat()
    mod_worst, _ = while_pinging(server.port, lambda: c.unlink("mod"))
    mod_usec = command_usec(c, "unlink")
    fill(c, "nat", n, "ZADD", seed=4)
    c.config_resetstat()
    nat_worst, _ = while_pinging(server.port, lambda: c.delete("nat"))
    nat_usec = command_usec(c, "del")
    return {"members": n, "ping_worst_idle_ms": base, "module_unlink_ms": mod_usec / 1000,
            "module_unlink_ping_worst_ms": mod_worst, "native_del_ms": nat_usec / 1000,
            "native_del_ping_worst_ms": nat_worst}


DROPIN = [
    ("redis-benchmark -t zadd", ["-t", "zadd"]),
    ("redis-benchmark -t zpopmin", ["-t", "zpopmin"]),
    ("ZSCORE (pipelined)", "ZSCORE big member:__rand_int__".split()),
    ("ZRANK (pipelined)", "ZRANK big member:__rand_int__".split()),
    ("ZRANGEBYSCORE LIMIT 0 10 (pipelined)",
     "ZRANGEBYSCORE big __rand_int__ +inf LIMIT 0 10".split()),
]


def dropin(make, redis_server, module, rounds, quick):
    n_members = 100_000 if quick else 1_000_000
    requests = 200_000 if quick else 1_000_000
    results = {name: ([], []) for name, _ in DROPIN}
    for _ in range(rounds):
        for label in ("native", "module"):
            s = make(redis_server, module if label == "module" else None,
                     module_args=["--zset.dropin", "yes"]).start()
            c = s.client()
            fill(c, "big", n_members, "ZADD", seed=5, name=PADDED)
            for name, argv in DROPIN:
                if name.endswith("zpopmin"):  # zpopmin pops what the zadd test added
                    c.delete("myzset")
                    benchmark(s.port, ["-t", "zadd"], requests, ["-r", "100000000"])
                rps = benchmark(s.port, argv, requests, ["-r", str(n_members)])
                results[name][0 if label == "native" else 1].append(rps)
            s.stop()
    return [summary(name, *results[name]) for name, _ in DROPIN]


# 100 keys of 100 members, as redis-benchmark names them (-r 100: every __rand_int__ in a command
# is drawn on its own, so one command picks a random key and a random member).
SMALL_KEYS = [
    ("ZADD", "ZADD k:__rand_int__ __rand_int__ m:__rand_int__"),
    ("ZSCORE", "ZSCORE k:__rand_int__ m:__rand_int__"),
    ("ZRANGE 0 9", "ZRANGE k:__rand_int__ 0 9"),
    ("ZREM", "ZREM k:__rand_int__ m:__rand_int__"),
]

# How each server serves the small keys: (label, zset.so loaded, drop-in small-keys policy or
# None outside drop-in mode, command prefix, the ZADD the keys are filled with).
SMALL_KEY_SERVERS = [
    ("native", False, None, "", "ZADD"),
    ("ZSET.* on module keys", True, None, "ZSET.", "ZSET.ZADD"),
    ("drop-in, small keys native", True, "native", "", "ZADD"),
    ("drop-in, small keys module", True, "module", "", "ZADD"),
]


def fill_small_keys(c, zadd):
    p = c.pipeline(transaction=False)
    for k in range(100):
        args = []
        for j in range(100):
            args += [j, "m:%012d" % j]
        p.execute_command(zadd, "k:%012d" % k, *args)
    p.execute()


def smallkeys(make, redis_server, module, rounds, quick):
    """redis-benchmark on 100 keys of 100 members, random key and member, each way a server
    can serve them; every row refills the keys first (ZREM empties them)."""
    requests = 100_000 if quick else 400_000
    results = {(label, name): [] for label, *_ in SMALL_KEY_SERVERS for name, _ in SMALL_KEYS}
    for _ in range(rounds):
        for label, loaded, policy, prefix, zadd in SMALL_KEY_SERVERS:
            extra = [] if policy is None else ["--zset.dropin", "yes",
                                                "--zset.dropin-small-keys", policy]
            s = make(redis_server, module if loaded else None, module_args=extra).start()
            c = s.client()
            for name, template in SMALL_KEYS:
                c.flushall()
                fill_small_keys(c, zadd)
                argv = (prefix + template).split()
                results[(label, name)].append(benchmark(s.port, argv, requests, ["-r", "100"]))
            s.stop()
    rows = []
    for name, _ in SMALL_KEYS:
        native = results[("native", name)]
        for label, *_ in SMALL_KEY_SERVERS[1:]:
            row = summary(name, native, results[(label, name)])
            row["way"] = label
            rows.append(row)
    return rows


def markdown(res, command):
    m, u = res["memory"], res["unlink"]
    lines = ["# The Redis module against Redis's own sorted sets", "",
             "Made by `%s` (redis-server %s, %d rounds, medians; ratio = module / native, "
             "spread = the rounds' lowest and highest ratio)." % (command, res["server"], res["rounds"]),
             "", "## Memory (INFO used_memory growth, bytes per element)", "",
             "| data | native | module | module / native | target |", "|---|---|---|---|---|",
             "| one key of %s members | %.1f | %.1f | %.2f | <= 0.45 |" % (
                 "{:,}".format(m["members_big"]), m["native_big"], m["module_big"],
                 m["module_big"] / m["native_big"]),
             "| %s keys of 100 members | %.1f | %.1f | %.2f | <= 0.80 |" % (
                 "{:,}".format(m["keys_small"]), m["native_small"], m["module_small"],
                 m["module_small"] / m["native_small"]),
             "", "## Throughput on a 1,000,000-member key (redis-benchmark -P 16 -c 50, requests/s)",
             "", "| command | native | module (ZSET.*) | module / native | spread | target |",
             "|---|---|---|---|---|---|"]
    for r in res["throughput"]:
        lines.append("| %s | %.0f | %.0f | %.2f | %.2f-%.2f | >= 1.0 |" % (
            r["name"], r["native"], r["module"], r["ratio"], r["spread"][0], r["spread"][1]))
    lines += ["", "## UNLINK of a %s-member key" % "{:,}".format(u["members"]), "",
              "| | main thread in the command | the longest concurrent PING wait |",
              "|---|---|---|",
              "| idle server | | %.2f ms |" % u["ping_worst_idle_ms"],
              "| UNLINK of a module key (target < 1 ms) | %.3f ms | %.2f ms |" % (
                  u["module_unlink_ms"], u["module_unlink_ping_worst_ms"]),
              "| DEL of the same native key (for reference) | %.1f ms | %.1f ms |" % (
                  u["native_del_ms"], u["native_del_ping_worst_ms"])]
    if res.get("dropin"):
        lines += ["", "## Drop-in mode against a server without the module (requests/s)", "",
                  "| test | without the module | drop-in | ratio | spread | target |",
                  "|---|---|---|---|---|---|"]
        for r in res["dropin"]:
            lines.append("| %s | %.0f | %.0f | %.2f | %.2f-%.2f | >= 0.95 |" % (
                r["name"], r["native"], r["module"], r["ratio"], r["spread"][0], r["spread"][1]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smaller data, for a smoke run")
    ap.add_argument("--only", help="comma-separated: memory,throughput,unlink,dropin,smallkeys")
    ap.add_argument("--out", help="Markdown report")
    ap.add_argument("--json", help="JSON results")
    args = ap.parse_args()
    support.require(args.redis_server)
    module = os.path.abspath(args.module)
    parts = (args.only or "memory,throughput,unlink,dropin,smallkeys").split(",")
    res = {"rounds": args.rounds}
    with support.servers(prefix="zset-bench-") as make:
        s = make(args.redis_server, module).start()
        res["server"] = s.client().info("server")["redis_version"]
        if "memory" in parts:
            res["memory"] = memory(s, args.quick)
            print(json.dumps(res["memory"]))
        if "throughput" in parts:
            res["throughput"] = throughput(s, args.rounds, args.quick)
            print(json.dumps(res["throughput"]))
        if "unlink" in parts:
            res["unlink"] = unlink(s, args.quick)
            print(json.dumps(res["unlink"]))
        s.stop()
        if "dropin" in parts:
            res["dropin"] = dropin(make, args.redis_server, module, args.rounds, args.quick)
            print(json.dumps(res["dropin"]))
        if "smallkeys" in parts:
            res["smallkeys"] = smallkeys(make, args.redis_server, module, args.rounds, args.quick)
            for r in res["smallkeys"]:
                print("%-28s %-12s native %9.0f  this way %9.0f  ratio %.2f (%.2f-%.2f)" % (
                    r["way"], r["name"], r["native"], r["module"], r["ratio"], r["spread"][0],
                    r["spread"][1]))
    command = "python3 bench/module_bench.py --module <zset.so> --rounds %d%s" % (
        args.rounds, " --quick" if args.quick else "")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.out and all(k in res for k in ("memory", "throughput", "unlink")):
        with open(args.out, "w") as f:
            f.write(markdown(res, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
