#!/usr/bin/env python3
"""Issue 64's candidate designs, estimated per key shape from the measured breakdown.

For each small key shape of bench/module_shapes.py (the first --sample keys of the same seeded
data, so the very keys the benchmark loads) this computes, per key:
  lp      the bytes of Redis's listpack for the key (entry sizes as listpack.c: a member string
          is 1 + len + 1 backlen bytes; an integral score an integer entry of 2-10 bytes; any
          other score the text d2string makes, "%.17g" on 7.0 or the shortest round trip on
          newer servers, as a string entry), and its jemalloc size class
  block   the bytes of zset's listpack-mode block for the key, built as the module builds it
          (build/shapes_probe --keys: one add a pair), and its class
  blob    the bytes of a compact encoding (the issue's first candidate): a 4-byte header
          (count, bytes) and, per element in order, a length byte, the member, and the score
          as Redis sizes an integer entry without its backlen (0..127: 1 byte; 13-bit: 2;
          16-bit: 3; 24-bit: 4; 32-bit: 5; 64-bit: 9) or a double as a tag and 8 bytes (9),
          or, in variant "f32", a tag and 4 bytes when the double is exactly a float (5); no
          order array, no lookup table, realloc'd to the exact size on every insert
and, with F = the measured native bytes per key less the listpack's class (Redis's per-key
costs: dictEntry, robj, key sds, the key table's slots), the bytes per element of:
  today        measured module keys
  check        F + 16 (moduleValue) + 32 (the value object: 24 bytes, class 32) + class(block)
               (the breakdown; should equal today)
  one-alloc    F + 16 + class(block + 8): the value object folded into the block's allocation
               (its thresholds in the header: 8 bytes more)
  compact      F + 16 + 32 + class(blob)
  compact+one  F + 16 + class(blob): the module value points at the blob itself
  ...+f32      the same with float-exact doubles in 5 bytes
  native-small the drop-in policy leaving small keys in Redis's listpack: exactly native

Usage: /usr/bin/python3 bench/shapes_estimate.py --probe build/shapes_probe \
           --measured bench/results/module-shapes-7.0.15.json [--measured other.json] [--md F]
"""

import argparse
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from module_shapes import SHAPES  # noqa: E402


def jemalloc_class(n):
    if n <= 8:
        return 8
    if n <= 128:
        return (n + 15) // 16 * 16
    p = 128
    while p * 2 < n:
        p *= 2
    step = p // 4
    return (n + step - 1) // step * step


def lp_backlen(n):
    return 1 if n <= 127 else 2 if n < 16383 else 3 if n < 2097151 else 4 if n < 268435455 else 5


def lp_int(v):
    if 0 <= v <= 127:
        e = 1
    elif -4096 <= v <= 4095:
        e = 2
    elif -2**15 <= v < 2**15:
        e = 3
    elif -2**23 <= v < 2**23:
        e = 4
    elif -2**31 <= v < 2**31:
        e = 5
    else:
        e = 9
    return e + 1


def lp_str(s):
    n = len(s)
    e = (1 if n < 64 else 2 if n < 4096 else 5) + n
    return e + lp_backlen(e)


def score_text(x, shortest):
    if x == int(x) and -4503599627370495 < x < 4503599627370496:
        return None  # an integer entry
    return repr(x) if shortest else "%.17g" % x


def lp_bytes(elems, shortest):
    total = 6 + 1  # header, end byte
    for member, score in elems:
        total += lp_str(member)
        x = float(score)
        t = score_text(x, shortest)
        total += lp_int(int(x)) if t is None else lp_str(t)
    return total


def blob_bytes(elems, f32):
    total = 4
    for member, score in elems:
        total += 1 + len(member)
        x = float(score)
        if x == int(x) and -2**63 <= x < 2**63:
            total += lp_int(int(x)) - 1
        elif f32 and struct.unpack("f", struct.pack("f", x))[0] == x:
            total += 5
        else:
            total += 9
    return total


def block_classes(probe, keys):
    text = "".join("".join("%s\t%s\n" % (m, s) for m, s in elems) + "\n" for elems in keys)
    out = subprocess.run([probe, "--keys"], input=text, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return [int(line.split()[0]) for line in out if line.strip()]


def mean(xs):
    return sum(xs) / len(xs)


def estimate(probe, measured, sample):
    import random
    rows = []
    for run in measured:
        shortest = not run["server"].startswith("7.0")
        for r in run["shapes"]:
            name, keys, per_key = r["name"], r["keys"], r["members"]
            nat, mod = r["native"]["per_key"], r["module"]["per_key"]
            row = {"server": run["server"], "name": name, "keys": keys, "members": per_key,
                   "desc": r["desc"], "native": nat / per_key, "today": mod / per_key,
                   "dropin": r["dropin"]["per_key"] / per_key}
            if per_key <= 128:
                gen = SHAPES[name][2]
                rnd = random.Random("%s/%d" % (name, run.get("seed", 1)))
                data = [gen(rnd, per_key) for _ in range(min(sample, keys))]
                lp = [jemalloc_class(lp_bytes(e, shortest)) for e in data]
                blocks = block_classes(probe, data)
                blob = [blob_bytes(e, False) for e in data]
                blob32 = [blob_bytes(e, True) for e in data]
                F = nat - mean(lp)
                row.update({
                    "F": F, "lp_bytes": mean([lp_bytes(e, shortest) for e in data]),
                    "lp_class": mean(lp), "block_bytes": mean(blocks),
                    "block_class": mean([jemalloc_class(b) for b in blocks]),
                    "blob_bytes": mean(blob), "blob_class": mean([jemalloc_class(b) for b in blob]),
                    "blob32_class": mean([jemalloc_class(b) for b in blob32]),
                    "check": (F + 16 + 32 + mean([jemalloc_class(b) for b in blocks])) / per_key,
                    "one_alloc": (F + 16 + mean([jemalloc_class(b + 8) for b in blocks])) / per_key,
                    "compact": (F + 48 + mean([jemalloc_class(b) for b in blob])) / per_key,
                    "compact_one": (F + 16 + mean([jemalloc_class(b) for b in blob])) / per_key,
                    "compact_one_f32": (F + 16 + mean([jemalloc_class(b) for b in blob32])) / per_key,
                    "native_small": nat / per_key})
            else:  # big keys: the container's skiplist mode; only the 32-byte value object goes
                row.update({"check": None, "one_alloc": (mod - 32) / per_key,
                            "compact": mod / per_key, "compact_one": (mod - 32) / per_key,
                            "compact_one_f32": (mod - 32) / per_key, "native_small": mod / per_key})
            rows.append(row)
    return rows


COLUMNS = [("today", "today (measured)"), ("one_alloc", "one allocation"),
           ("compact", "compact encoding"), ("compact_one", "compact + one allocation"),
           ("compact_one_f32", "compact + one alloc + f32 doubles"),
           ("native_small", "drop-in: small keys stay native")]


def markdown(rows):
    out = []
    server = None
    for r in rows:
        if r["server"] != server:
            server = r["server"]
            out += ["", "redis-server %s: B/elem (ratio to native)" % server, "",
                    "| key shape | native | " + " | ".join(c[1] for c in COLUMNS) + " |",
                    "|---|---|" + "---|" * len(COLUMNS)]
        cells = ["%.1f (%.2f)" % (r[k], r[k] / r["native"]) for k, _ in COLUMNS]
        out.append("| %s × %s, %s | %.1f | %s |" % ("{:,}".format(r["keys"]),
                                                   "{:,}".format(r["members"]), r["desc"],
                                                   r["native"], " | ".join(cells)))
    out += ["", "Per key, small shapes (bytes; classes are jemalloc's):", "",
            "| server | key shape | F (Redis per key) | listpack / class | block / class | "
            "module today: F+16+32+block class = B/elem (measured) | blob / class (f32 class) |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("check") is None:
            continue
        out.append("| %s | %s × %s, %s | %.1f | %.1f / %.1f | %.1f / %.1f | %.2f (%.2f) | %.1f / %.1f"
                   " (%.1f) |" % (r["server"], "{:,}".format(r["keys"]), r["members"], r["desc"],
                                  r["F"],
                                  r["lp_bytes"], r["lp_class"], r["block_bytes"],
                                  r["block_class"], r["check"], r["today"], r["blob_bytes"],
                                  r["blob_class"], r["blob32_class"]))
    return "\n".join(out) + "\n"


def sweep(F=73.7):
    """Beyond the issue's shapes: every size 1..128 at a few member lengths and score kinds,
    redis-server 7.0's listpack against the best estimated design (compact + one allocation +
    f32 doubles), both with Redis's per-key cost F (it cancels but for the ratio). Seeded."""
    import random
    rnd = random.Random(5)
    kinds = [("integers 0..99", lambda j: str(j % 100)),
             ("unix times", lambda j: str(1_700_000_000 + rnd.randrange(31_536_000))),
             ("j×1.5", lambda j: repr(j * 1.5)), ("random doubles", lambda j: repr(rnd.random()))]
    out = ["| scores | member bytes | worst ratio (n) | sizes n in 1..128 above 1.0x |",
           "|---|---|---|---|"]
    for kind, score in kinds:
        for length in (2, 8, 13, 20, 36, 60):
            above, worst = 0, (0.0, 0)
            for n in range(1, 129):
                elems = [(("m%d" % j) if length <= 3 else
                          "x" * (length - len(str(j))) + str(j), score(j)) for j in range(n)]
                r = (F + 16 + jemalloc_class(blob_bytes(elems, True))) / \
                    (F + jemalloc_class(lp_bytes(elems, False)))
                above += r > 1.0
                worst = max(worst, (r, n))
            out.append("| %s | %d | %.3f (n=%d) | %d of 128 |" % (kind, length, worst[0], worst[1],
                                                                 above))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probe", required=True)
    ap.add_argument("--measured", action="append", required=True)
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--md")
    ap.add_argument("--sweep", action="store_true", help="also the sizes 1..128 (sweep())")
    ap.add_argument("--json")
    args = ap.parse_args()
    measured = []
    for p in args.measured:
        with open(p) as f:
            measured.append(json.load(f))
    rows = estimate(args.probe, measured, args.sample)
    text = markdown(rows)
    if args.sweep:
        text += "\nCompact + one allocation + f32 doubles against 7.0's listpack, every size:\n\n"
        text += sweep()
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
