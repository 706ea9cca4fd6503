#!/usr/bin/env python3
"""Memory per element at every key shape: Redis's own sorted sets against module keys (issue 64).

Each key shape (a number of keys, members per key, how members and scores look) is loaded three
ways into the same redis-server binary, one way at a time, the server flushed in between:

  native   ZADD on a server with the module loaded (Redis's own listpack / skiplist)
  module   ZSET.ZADD on the same server (module keys)
  dropin   ZADD on a second server started with `--zset.dropin yes` (module keys made by
           the native command, through the module's command filter)

and reports INFO memory's used_memory growth per element, the ratios module / native and
dropin / native, and `MEMORY USAGE <first key> SAMPLES 0` of one key of each.

How memory is read (no timing in what is measured): FLUSHALL SYNC; the loading connection is
opened, the whole shape is sent through it in pipelines (a chunk of commands, then their
replies), and it is closed; used_memory is then read on a separate, idle connection until two
reads 100 ms apart agree (the server has freed the loader's client and its buffers), both
before and after the load. The servers run with the slow log and latency tracking off (the
slow log keeps copies of the arguments of commands slower than 10 ms, and latency tracking a
histogram per command from its first call: both made the growth depend on timing). Memory is deterministic for given data, so one load a way suffices;
the data is seeded (same bytes on every run, every server).

Shapes (--shapes picks by name, comma-separated):
  k100k_m10_int      100,000 keys x 10 members u<j>, score j
  k100k_m100_x15     100,000 keys x 100 members m<j>, score j*1.5
  k100k_m100_unix    100,000 keys x 100 members user:%08d, unix-time integer scores
  k100k_m100_uuid    100,000 keys x 100 uuid-like 36-byte members, random doubles in [0, 1)
  k100k_m10_uuid     100,000 keys x 10 uuid-like 36-byte members, random doubles in [0, 1)
  k10k_m1000_unix    10,000 keys x 1,000 members user:%08d, unix-time integer scores
  k10_m100k_dbl      10 keys x 100,000 members user:%08d, random doubles in [0, 1e6)
--sweep measures instead 2,000 keys of every size in SWEEP_SIZES (1 to 200 members) for each
member kind in SWEEP_KINDS (2, 13, 36, 64 and 65 bytes). --quick takes a tenth of the keys of
every shape. Members of one key are distinct (user ids are
drawn without replacement). Each ZADD carries at most --pairs pairs (default 1,000: a small key
is made by one ZADD; --pairs 1 builds every key one member at a time).

Usage (the interpreter with Debian's python3-redis):
  /usr/bin/python3 bench/module_shapes.py --module build/module/zset.so \
      [--redis-server PATH] [--quick] [--shapes a,b] [--pairs N] [--out FILE.json] [--md FILE.md]
  /usr/bin/python3 bench/module_shapes.py --module build/module/zset.so --roundtrip \
      [--rounds 3] [--requests 500000] [--out FILE.json]   # see roundtrip()
  /usr/bin/python3 bench/module_shapes.py --table FILE.json [FILE.json ...]   # print tables
"""

import argparse
import datetime
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "module"))
import support  # noqa: E402  (the tests' server helper: free ports, never 6379; stops servers)

UNIX_BASE = 1_700_000_000  # Nov 2023; scores spread over a year after it


def uuid_like(rnd):
    h = "%032x" % rnd.getrandbits(128)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def members_u(rnd, n):
    return [("u%d" % j, "%d" % j) for j in range(n)]


def members_m15(rnd, n):
    return [("m%d" % j, repr(j * 1.5)) for j in range(n)]


def members_user_unix(rnd, n):
    ids = rnd.sample(range(100_000_000), n)
    return [("user:%08d" % i, "%d" % (UNIX_BASE + rnd.randrange(31_536_000))) for i in ids]


def members_uuid_double(rnd, n):
    return [(uuid_like(rnd), repr(rnd.random())) for _ in range(n)]


def members_user_double(rnd, n):
    ids = rnd.sample(range(100_000_000), n)
    return [("user:%08d" % i, repr(rnd.random() * 1e6)) for i in ids]


# name: (keys, members per key, generator, description)
SHAPES = {
    "k100k_m10_int": (100_000, 10, members_u, "`u<j>`, score j (integer)"),
    "k100k_m100_x15": (100_000, 100, members_m15, "`m<j>`, score j×1.5"),
    "k100k_m100_unix": (100_000, 100, members_user_unix, "`user:%08d` (13 B), unix-time scores"),
    "k100k_m100_uuid": (100_000, 100, members_uuid_double, "36-byte uuid, random doubles"),
    "k100k_m10_uuid": (100_000, 10, members_uuid_double, "36-byte uuid, random doubles"),
    "k10k_m1000_unix": (10_000, 1_000, members_user_unix, "`user:%08d`, unix-time scores"),
    "k10_m100k_dbl": (10, 100_000, members_user_double, "`user:%08d`, random doubles"),
}


def members_long(length):
    """Members of exactly `length` bytes ("x...x<j>"), integer scores j."""
    def gen(rnd, n):
        return [(("%d" % j).rjust(length, "x"), "%d" % j) for j in range(n)]
    return gen


# --sweep: 2,000 keys of every size in SWEEP_SIZES, for each member kind (drop-in mode must
# cost exactly what Redis does below its thresholds, and the module's big-key figure above)
SWEEP_SIZES = (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 128, 129, 200)
SWEEP_KINDS = {
    "u": (members_u, "`u<j>`, score j"),
    "unix": (members_user_unix, "`user:%08d`, unix-time scores"),
    "uuid": (members_uuid_double, "36-byte uuid, random doubles"),
    "x64": (members_long(64), "64-byte members, score j"),
    "x65": (members_long(65), "65-byte members (past zset-max-listpack-value), score j"),
}


def sweep_shapes():
    return {"sweep_%s_%d" % (kind, n): (2_000, n, gen, desc)
            for kind, (gen, desc) in SWEEP_KINDS.items() for n in SWEEP_SIZES}


def bulk(s):
    b = s.encode()
    return b"$%d\r\n%s\r\n" % (len(b), b)


def generate(name, keys, per_key, gen, max_pairs, seed):
    """The shape's commands as chunks of (count, [argument bytes after the command name]),
    deterministic for (name, seed)."""
    rnd = random.Random("%s/%d" % (name, seed))
    chunks, cur, cur_pairs = [], [], 0
    for k in range(keys):
        key = bulk("k:%d" % k)
        elems = gen(rnd, per_key)
        for start in range(0, per_key, max_pairs):
            part = elems[start:start + max_pairs]
            body = b"".join(bulk(score) + bulk(member) for member, score in part)
            cur.append((2 + 2 * len(part), key + body))
            cur_pairs += len(part)
            if cur_pairs >= 20_000 or len(cur) >= 2_000:
                chunks.append(cur)
                cur, cur_pairs = [], 0
    if cur:
        chunks.append(cur)
    return chunks


def load(port, chunks, command):
    """Sends every chunk on one connection, reads its replies, closes the connection."""
    head = bulk(command)
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        for chunk in chunks:
            s.sendall(b"".join(b"*%d\r\n%s%s" % (argc, head, rest) for argc, rest in chunk))
            want, got, buf = len(chunk), 0, b""
            while got < want:
                data = s.recv(1 << 16)
                if not data:
                    raise RuntimeError("server closed the connection")
                buf += data
                got = buf.count(b"\r\n")
            if b"-" in buf:
                bad = [ln for ln in buf.split(b"\r\n") if ln.startswith(b"-")]
                if bad:
                    raise RuntimeError("%s failed: %r" % (command, bad[0]))
    finally:
        s.close()


def used_memory(client):
    """used_memory once two reads 100 ms apart agree (at most 5 s)."""
    last = client.info("memory")["used_memory"]
    for _ in range(50):
        time.sleep(0.1)
        now = client.info("memory")["used_memory"]
        if now == last:
            return now
        last = now
    return last


def measure(server, chunks, command, keys, per_key):
    c = server.client()
    c.execute_command("FLUSHALL", "SYNC")
    base = used_memory(c)
    t = time.perf_counter()
    load(server.port, chunks, command)
    took = time.perf_counter() - t
    after = used_memory(c)
    first, last = b"k:0", b"k:%d" % (keys - 1)
    kind = c.type(first).decode()
    card_cmd = "ZCARD" if kind == "zset" else "ZSET.ZCARD"
    cards = [c.execute_command(card_cmd, k) for k in (first, last)]
    if cards != [per_key, per_key] or c.dbsize() != keys:
        raise RuntimeError("loaded %r keys, cards %r (want %d x %d)" % (c.dbsize(), cards, keys,
                                                                         per_key))
    out = {"used_memory_delta": after - base, "per_elem": (after - base) / (keys * per_key),
           "per_key": (after - base) / keys, "type": kind,
           "memory_usage_first_key": c.memory_usage(first, samples=0),
           "encoding": c.object("encoding", first).decode(), "load_s": round(took, 2)}
    c.execute_command("FLUSHALL", "SYNC")
    c.close()
    return out


# Nothing that keeps memory depending on timing: the slow log copies the arguments of commands
# slower than 10 ms (a loaded host makes some ZADDs so; FLUSHALL keeps them) and latency
# tracking allocates a command's histogram on its first call.
QUIET = ["--slowlog-log-slower-than", "-1", "--latency-tracking", "no"]


def run(args):
    module = os.path.abspath(args.module)
    support.require(args.redis_server)
    if args.sweep:
        SHAPES.update(sweep_shapes())
    names = args.shapes.split(",") if args.shapes else [
        n for n in SHAPES if n.startswith("sweep_") == args.sweep]
    for n in names:
        if n not in SHAPES:
            raise SystemExit("unknown shape %r (known: %s)" % (n, ", ".join(SHAPES)))
    res = {"server_binary": args.redis_server, "module": module, "quick": args.quick,
           "pairs_per_zadd": args.pairs, "seed": args.seed,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": git_head(), "shapes": []}
    with support.servers(prefix="zset-shapes-") as make:
        plain = make(args.redis_server, module, args=QUIET).start()
        dropin = make(args.redis_server, module, args=QUIET,
                      module_args=["--zset.dropin", "yes"]).start()
        info = plain.client().info("server")
        res["server"] = info["redis_version"]
        res["allocator"] = plain.client().info("memory").get("mem_allocator")
        res["config"] = {k: v for k, v in plain.client().config_get("zset-max-*").items()}
        for name in names:
            keys, per_key, gen, desc = SHAPES[name]
            if args.quick:
                keys = max(1, keys // 10)
            chunks = generate(name, keys, per_key, gen, args.pairs, args.seed)
            row = {"name": name, "keys": keys, "members": per_key, "desc": desc}
            row["native"] = measure(plain, chunks, "ZADD", keys, per_key)
            row["module"] = measure(plain, chunks, "ZSET.ZADD", keys, per_key)
            row["dropin"] = measure(dropin, chunks, "ZADD", keys, per_key)
            del chunks
            res["shapes"].append(row)
            print(table_row(row), flush=True)
        plain.stop()
        dropin.stop()
    return res


ROUNDTRIP = [("ZSCORE", "ZSCORE {k}:__rand_int__ m:__rand_int__"),
             ("ZADD (score update)", "ZADD {k}:__rand_int__ __rand_int__ m:__rand_int__")]


def rps(port, argv, n):
    cmd = ["redis-benchmark", "-p", str(port), "-P", "16", "-c", "50", "-n", str(n), "-r", "100",
           "-q", "--csv"] + argv
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    for line in out.splitlines():
        fields = [f.strip('"') for f in line.split(",")]
        if len(fields) >= 2 and fields[0] != "test":
            return float(fields[1])
    raise RuntimeError("redis-benchmark printed nothing usable:\n" + out)


def roundtrip(args):
    """What serving a small native key through the module costs in drop-in mode (the policy that
    leaves small keys in Redis's listpack serves them through RedisModule_Call). 100 native
    keys nat:<i> and 100 module keys mod:<i> of 100 members m:<j> (redis-benchmark's
    __rand_int__ names, -r 100: every lookup hits); requests/s of redis-benchmark -P 16 -c 50:
      native        drop-in off: Redis's own command on a native key
      via module    drop-in on: the same command on the same native key, renamed by the filter
                    to ZSET.<name>, which hands the native key to Redis through RedisModule_Call
      module key    drop-in on: the same command on a module key
    alternated, --rounds rounds, medians and the rounds' range."""
    import statistics
    module = os.path.abspath(args.module)
    support.require(args.redis_server)
    res = {"server_binary": args.redis_server, "rounds": args.rounds, "requests": args.requests,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": git_head(), "loadavg_start": os.getloadavg(), "rows": []}
    with support.servers(prefix="zset-shapes-rt-") as make:
        s = make(args.redis_server, module, args=QUIET).start()
        c = s.client()
        res["server"] = c.info("server")["redis_version"]
        pairs = []
        for j in range(100):
            pairs += [j, "m:%012d" % j]
        for i in range(100):
            c.execute_command("ZADD", "nat:%012d" % i, *pairs)
        c.config_set("zset.dropin", "yes")
        for i in range(100):
            c.execute_command("ZADD", "mod:%012d" % i, *pairs)
        c.config_set("zset.dropin", "no")  # TYPE answers "zset" for both in drop-in mode
        kinds = (c.type("nat:%012d" % 0), c.type("mod:%012d" % 0))
        if kinds != (b"zset", b"zsetmod--"):
            raise RuntimeError("the keys are of types %r" % (kinds,))
        for name, template in ROUNDTRIP:
            got = {"native": [], "via module": [], "module key": []}
            for _ in range(args.rounds):
                for label, key, dropin in (("native", "nat", "no"), ("via module", "nat", "yes"),
                                           ("module key", "mod", "yes")):
                    c.config_set("zset.dropin", dropin)
                    got[label].append(rps(s.port, template.format(k=key).split(),
                                          args.requests))
            row = {"name": name}
            for label, xs in got.items():
                row[label] = {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
                              "all": xs}
            res["rows"].append(row)
            print(json.dumps(row), flush=True)
        res["loadavg_end"] = os.getloadavg()
        s.stop()
    return res


def roundtrip_table(res):
    lines = ["redis-server %s, commit %s, %s, redis-benchmark -P 16 -c 50 -n %d -r 100, %d "
             "rounds alternated (median, min-max); load average %.1f at the start, %.1f at the "
             "end (2 cores, shared)." % (res["server"], res["commit"], res["date"],
                                         res["requests"], res["rounds"], res["loadavg_start"][0],
                                         res["loadavg_end"][0]), "",
             "| command | native key, drop-in off | native key through the module "
             "(RedisModule_Call) | module key | via module / native, per round: median (range) "
             "| module key / native, per round |", "|---|---|---|---|---|---|"]

    def paired(a, b):  # the ratio within each round (its variants ran back to back)
        rs = sorted(x / y for x, y in zip(a["all"], b["all"]))
        return "%.2f (%.2f-%.2f)" % (rs[len(rs) // 2], rs[0], rs[-1])

    for r in res["rows"]:
        n, v, m = r["native"], r["via module"], r["module key"]
        lines.append("| %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %s | %s |"
                     % (r["name"], n["median"], n["min"], n["max"], v["median"], v["min"],
                        v["max"], m["median"], m["min"], m["max"], paired(v, n), paired(m, n)))
    return "\n".join(lines) + "\n"


def git_head():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def table_row(r):
    n, m, d = r["native"], r["module"], r["dropin"]
    return "| %s keys × %s, %s | %.1f | %.1f | %.1f | **%.2f** | **%.2f** | %d / %d / %d |" % (
        "{:,}".format(r["keys"]), "{:,}".format(r["members"]), r["desc"], n["per_elem"],
        m["per_elem"], d["per_elem"], m["per_elem"] / n["per_elem"],
        d["per_elem"] / n["per_elem"], n["memory_usage_first_key"],
        m["memory_usage_first_key"], d["memory_usage_first_key"])


def table(res):
    lines = ["redis-server %s (%s), module commit %s, %s%s, at most %d pairs a ZADD." % (
        res["server"], res["server_binary"], res["commit"], res["date"],
        ", --quick (a tenth of the keys)" if res["quick"] else "", res["pairs_per_zadd"]), "",
        "| key shape | native B/elem | module B/elem | drop-in B/elem | module / native | "
        "drop-in / native | MEMORY USAGE of one key: native / module / drop-in |",
        "|---|---|---|---|---|---|---|"]
    lines += [table_row(r) for r in res["shapes"]]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module")
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    ap.add_argument("--quick", action="store_true", help="a tenth of the keys of every shape")
    ap.add_argument("--shapes", help="comma-separated shape names (default: all)")
    ap.add_argument("--sweep", action="store_true",
                    help="instead of the shapes: 2,000 keys of each size 1-200 and member kind")
    ap.add_argument("--pairs", type=int, default=1000, help="most pairs in one ZADD")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="JSON results")
    ap.add_argument("--md", help="Markdown table")
    ap.add_argument("--roundtrip", action="store_true",
                    help="instead of memory: a native key served through the module (drop-in)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=500_000)
    ap.add_argument("--table", nargs="+", metavar="JSON", help="print the tables of saved runs")
    args = ap.parse_args()
    if args.table:
        for path in args.table:
            with open(path) as f:
                res = json.load(f)
            print(roundtrip_table(res) if "rows" in res else table(res))
        return 0
    if not args.module:
        ap.error("--module is required")
    res = roundtrip(args) if args.roundtrip else run(args)
    text = roundtrip_table(res) if args.roundtrip else table(res)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
