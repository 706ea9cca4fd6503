#!/usr/bin/env python3
"""Bytes per element of a Redis sorted set holding the benchmark's data (stdlib only).

Starts `redis-server --port <free> --save '' --appendonly no` on 127.0.0.1 (if installed), loads
members "member:<i>" with the same scores zset_bench uses (bench/bench_support.hpp: splitmix64
over the "main" stream, so the values are identical, not just identically distributed) with
pipelined ZADDs, reads `MEMORY USAGE key SAMPLES 0` at each size, then shuts the server down.

    python3 bench/redis_memory.py [--sizes 100,1000,100000,1000000] [--out FILE.json]

Exit status 0 also when redis-server is missing (the JSON then says "available": false).
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAIN_STREAM = 0x7A5E7B3E0001  # zbench::stream::main


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def score_of(i, seed=MAIN_STREAM):
    return (mix64((seed + (i + 1) * GOLDEN) & MASK) >> 11) * 2.0 ** -53


class Resp:
    """A minimal RESP2 client over one TCP connection."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.rfile = self.sock.makefile("rb")

    @staticmethod
    def encode(*args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            b = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        return b"".join(out)

    def read(self):
        line = self.rfile.readline()
        if not line:
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.rfile.read(n + 2)[:-2]
            return data.decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError("bad RESP reply: %r" % line)

    def call(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.read()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self.encode(*c) for c in commands))
        return [self.read() for _ in commands]

    def close(self):
        try:
            self.rfile.close()
            self.sock.close()
        except OSError:
            pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_sizes(text):
    return [int(float(t)) for t in text.replace(",", " ").split() if t]


def load(client, key, n, per_command=500, commands_per_batch=64):
    client.call("DEL", key)
    batch = []
    for start in range(0, n, per_command):
        args = ["ZADD", key]
        for i in range(start, min(n, start + per_command)):
            args.append(repr(score_of(i)))
            args.append("member:%d" % i)
        batch.append(args)
        if len(batch) == commands_per_batch:
            client.pipeline(batch)
            batch = []
    if batch:
        client.pipeline(batch)


def measure(sizes, redis_server):
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="zset-redis-")
    proc = subprocess.Popen(
        [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", workdir, "--logfile", ""],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = None
    try:
        deadline = time.time() + 10
        while True:
            try:
                client = Resp(port)
                if client.call("PING") == "PONG":
                    break
            except OSError:
                if client:
                    client.close()
                client = None
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
        info = client.call("INFO", "server")
        version = next((l.split(":", 1)[1].strip() for l in info.splitlines()
                        if l.startswith("redis_version:")), "?")
        results = []
        for n in sizes:
            key = "zset:%d" % n
            t0 = time.time()
            load(client, key, n)
            card = client.call("ZCARD", key)
            if card != n:
                raise RuntimeError("ZCARD %s = %s, expected %d" % (key, card, n))
            usage = client.call("MEMORY", "USAGE", key, "SAMPLES", "0")
            enc = client.call("OBJECT", "ENCODING", key)
            results.append({"size": n, "memory_usage": usage,
                            "bytes_per_elem": usage / n, "encoding": enc})
            print("redis %s n=%d: MEMORY USAGE %d bytes = %.1f bytes/element (%s, loaded in %.1f s)"
                  % (version, n, usage, usage / n, enc, time.time() - t0), file=sys.stderr)
            client.call("DEL", key)
        return {"available": True, "version": version, "results": results}
    finally:
        if client is not None:
            try:
                client.sock.sendall(Resp.encode("SHUTDOWN", "NOSAVE"))
            except OSError:
                pass
            client.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=os.environ.get("ZSET_BENCH_SIZES") or
                    "100,1000,100000,1000000")
    ap.add_argument("--out", help="write the results as JSON to this file")
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    args = ap.parse_args()
    sizes = parse_sizes(args.sizes)
    if not args.redis_server:
        print("redis_memory.py: redis-server not found, skipping", file=sys.stderr)
        data = {"available": False, "results": []}
    else:
        data = measure(sizes, args.redis_server)
        data["command"] = "MEMORY USAGE key SAMPLES 0"
    if args.out:
        with open(args.out, "w") as f:
            json.dump(data, f, indent=2)
    for r in data["results"]:
        print("%d\t%d\t%.2f\t%s" % (r["size"], r["memory_usage"], r["bytes_per_elem"], r["encoding"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
