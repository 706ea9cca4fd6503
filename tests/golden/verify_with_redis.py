#!/usr/bin/env python3
"""Checks the golden DUMP payloads in tests/golden/dump/ against a real redis-server.

For every payload listed in dump/manifest.txt it starts from an empty key and, with the server
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
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP_DIR = os.path.join(HERE, "dump")
LISTPACK_TYPES = {"12", "17"}


def encode_command(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("redis-server closed the connection")
        self.buf += chunk

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-"):
            return (kind.decode(), rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._fill()
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            return [self._reply() for _ in range(int(rest))]
        raise ValueError("unexpected reply %r" % line)

    def call(self, *args):
        self.sock.sendall(encode_command(args))
        return self._reply()


def start_server(redis_server, workdir):
    sock_path = os.path.join(workdir, "redis.sock")
    proc = subprocess.Popen(
        [redis_server, "--port", "0", "--unixsocket", sock_path, "--save", "",
         "--appendonly", "no", "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock_path):
            try:
                conn = Connection(sock_path)
                if conn.call("PING") == ("+", "PONG"):
                    return proc, conn
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("redis-server did not start")


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


def check_case(conn, case, types):
    """Returns a list of failure messages (empty when the case passes)."""
    failures = []
    conn.call("CONFIG", "SET", "zset-max-listpack-entries", case["entries"],
              "zset-max-listpack-value", case["value"], "rdbcompression", "no")
    conn.call("DEL", "k")
    reply = conn.call("RESTORE", "k", "0", payload(case["name"]))
    if reply != ("+", "OK"):
        return ["RESTORE replied %r" % (reply,)]
    card = conn.call("ZCARD", "k")
    if card != case["count"]:
        failures.append("ZCARD %r, want %d" % (card, case["count"]))
    want_encoding = b"listpack" if types[case["redump"]] in LISTPACK_TYPES else b"skiplist"
    encoding = conn.call("OBJECT", "ENCODING", "k")
    if encoding != want_encoding:
        failures.append("OBJECT ENCODING %r, want %r" % (encoding, want_encoding))
    dumped = conn.call("DUMP", "k")
    want = payload(case["redump"])
    if dumped != want:
        failures.append("DUMP gave %d bytes, not the %d bytes of %s.bin"
                        % (len(dumped or b""), len(want), case["redump"]))
    return failures


def main():
    redis_server = sys.argv[1] if len(sys.argv) > 1 else "redis-server"
    version = subprocess.run([redis_server, "--version"], capture_output=True, text=True).stdout
    print(version.strip())
    cases = read_manifest()
    types = {c["name"]: c["type"] for c in cases}
    failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        proc, conn = start_server(redis_server, workdir)
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
            proc.terminate()
            proc.wait()
    print("%d of %d payloads verified" % (len(cases) - failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
