#!/usr/bin/env python3
"""Checks the golden DUMP payloads in tests/golden/dump/ against a real redis-server.

It starts its own redis-server (127.0.0.1, a free port, no persistence). For every payload
listed in dump/manifest.txt it starts from an empty key and, with the server
configured with the case's zset-max-listpack-entries / -value and rdbcompression off:

  * RESTORE key 0 <payload> must reply +OK;
  * ZCARD must be the case's element count;
  * OBJECT ENCODING must be listpack or skiplist, as the payload Redis should write back;
  * DUMP key must give back exactly the bytes of the case named in the last column (the payload
    itself for Redis 7.0's own types; for a ZSET_ZIPLIST or ZSET payload, the listpack or ZSET_2
    golden payload of the same set, which Redis 7.0 writes instead; for an LZF-compressed payload,
    the plain payload of the same set, as zset's LZF encoder is not Redis's byte for byte).

The last check means Redis read exactly the set zset wrote: re-encoding what it loaded gives
zset's bytes again.

Usage: tests/golden/verify_with_redis.py [path/to/redis-server]   (default: redis-server on PATH)
Exits 0 when every payload passes, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP_DIR = os.path.join(HERE, "dump")
LISTPACK_TYPES = {"12", "17"}

# The RESP client and server start-up of the differential test (binary-safe, RESP2).
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
from diff_test import Conn, start_redis  # noqa: E402


def read_manifest():
    cases = []
    with open(os.path.join(DUMP_DIR, "manifest.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, ptype, version, entries, value, strings, count, redump = line.split()
            cases.append(dict(name=name, type=ptype, version=version, entries=entries,
                              value=value, strings=strings, count=int(count), redump=redump))
    return cases


def payload(name):
    with open(os.path.join(DUMP_DIR, name + ".bin"), "rb") as f:
        return f.read()


def call(conn, *args):
    return conn.call([a if isinstance(a, bytes) else a.encode() for a in args])


def check_case(conn, case, types):
    """Returns a list of failure messages (empty when the case passes)."""
    failures = []
    call(conn, "CONFIG", "SET", "zset-max-listpack-entries", case["entries"],
         "zset-max-listpack-value", case["value"], "rdbcompression", "no")
    call(conn, "DEL", "k")
    reply = call(conn, "RESTORE", "k", "0", payload(case["name"]))
    if reply != ("simple", b"OK"):
        return ["RESTORE replied %r" % (reply,)]
    card = call(conn, "ZCARD", "k")
    if card != ("int", case["count"]):
        failures.append("ZCARD %r, want %d" % (card, case["count"]))
    want_encoding = b"listpack" if types[case["redump"]] in LISTPACK_TYPES else b"skiplist"
    encoding = call(conn, "OBJECT", "ENCODING", "k")
    if encoding != ("bulk", want_encoding):
        failures.append("OBJECT ENCODING %r, want %r" % (encoding, want_encoding))
    dumped = call(conn, "DUMP", "k")
    want = payload(case["redump"])
    if dumped != ("bulk", want):
        failures.append("DUMP did not give the %d bytes of %s.bin" % (len(want), case["redump"]))
    return failures


def main():
    redis_server = sys.argv[1] if len(sys.argv) > 1 else "redis-server"
    version = subprocess.run([redis_server, "--version"], capture_output=True, text=True).stdout
    print(version.strip())
    cases = read_manifest()
    types = {c["name"]: c["type"] for c in cases}
    failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        proc, port = start_redis(redis_server, workdir)
        conn = Conn(port)
        try:
            for case in cases:
                failures = check_case(conn, case, types)
                status = "FAIL" if failures else "ok"
                print("%-26s %-4s RESTORE, ZCARD %d, DUMP == %s.bin" %
                      (case["name"], status, case["count"], case["redump"]))
                for f in failures:
                    print("    " + f)
                failed += bool(failures)
        finally:
            conn.close()
            proc.terminate()
            proc.wait()
    print("%d of %d payloads verified" % (len(cases) - failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
