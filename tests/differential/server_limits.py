#!/usr/bin/env python3
"""zset-server under bad input and at the edge of access rules (ctest label "server").

Each check watches the server's resident memory (/proc/<pid>/status VmRSS) and keeps a second,
well-behaved client talking to it throughout:
  * malformed RESP: the error reply, the connection closed, nothing retained;
  * an oversized bulk length (a 500 MB argument announced, 40 MB sent): memory follows the bytes
    sent, not the length announced, and the client is dropped when it disconnects;
  * a client that pipelines large replies and stops reading: the server stops reading it
    (memory stays bounded) while others are served, and it catches up once it reads;
  * protected mode: with no password, a client connecting through a non-loopback address gets
    Redis's DENIED error and is closed, byte for byte what redis-server 7.0 sends (when
    redis-server is installed); a loopback client is served. The non-loopback address is this
    host's own address on another interface; without one the check is skipped.
Exit status 0 when every check passes.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diff_test import Conn, encode, read_reply, wait_ping, free_port  # noqa: E402

results = {"passed": 0, "failed": 0}


def check(cond, what):
    if cond:
        results["passed"] += 1
    else:
        results["failed"] += 1
        print("FAILED: %s" % what)


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def start_zset(binary, extra=()):
    # Under AddressSanitizer freed blocks wait in a quarantine (256 MB by default) before their
    # memory is reused or unmapped, so RSS would count buffers the server already released;
    # without the quarantine the measurements mean the same in every build.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(o for o in (env.get("ASAN_OPTIONS", ""),
                                               "quarantine_size_mb=0") if o)
    proc = subprocess.Popen([binary, "--port", "0"] + list(extra), stdout=subprocess.PIPE,
                            env=env)
    line = proc.stdout.readline().decode()
    port = int(line.strip().rsplit(":", 1)[1])
    return proc, port


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def alive(port, what):
    c = Conn(port)
    check(c.call([b"PING"]) == ("simple", b"PONG"), "another client is served " + what)
    c.close()


def malformed(port, pid):
    before = rss_mb(pid)
    for bad in (b"*2\r\n$1\r\na\r\n+x\r\n", b"*-5\r\n*3\r\n$x\r\n", b"*99999999999\r\n",
                b"*1\r\n$-2\r\n", b"\x00\xff" * 40000 + b"\n"):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(bad)
        except OSError:
            pass
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        s.close()
        check(data.startswith(b"-ERR Protocol error") or data.startswith(b"-ERR unknown command"),
              "malformed request %r answered (%r)" % (bad[:20], data[:60]))
    alive(port, "after malformed requests")
    check(rss_mb(pid) - before < 8, "malformed requests leave no memory behind")


def oversized_bulk(port, pid):
    before = rss_mb(pid)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"*2\r\n$4\r\nECHO\r\n$524288000\r\n")  # announces 500 MB
    chunk = b"x" * (1 << 20)
    for i in range(40):
        s.sendall(chunk)
        if i % 10 == 0:
            alive(port, "while a 500 MB argument arrives")
    time.sleep(0.2)
    grown = rss_mb(pid) - before
    check(grown < 100, "memory follows the 40 MB sent, not the 500 MB announced (%.0f MB)" % grown)
    s.close()
    time.sleep(0.3)
    alive(port, "after the oversized argument's client left")
    check(rss_mb(pid) - before < 100, "its buffer is released with it")


def slow_reader(port, pid):
    c = Conn(port)
    big = [b"ZADD", b"big"]
    for i in range(5000):
        big += [b"%d" % i, b"member-%06d" % i]
    c.call(big)
    before = rss_mb(pid)
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    request = encode([b"ZRANGE", b"big", b"0", b"-1", b"WITHSCORES"])
    # ~100 MB of replies if all were produced at once: past the 64 MB bound checked below, and a
    # bounded amount of work to drain, however slow the server (a sanitizer build, a busy host)
    wire = request * 1000
    pos = 0
    s.setblocking(False)
    deadline = time.time() + 3
    while pos < len(wire) and time.time() < deadline:
        try:
            pos += s.send(wire[pos:pos + 65536])
        except BlockingIOError:
            time.sleep(0.01)  # the server stopped reading us: our send buffer filled
    s.setblocking(True)
    if pos % len(request):
        s.sendall(wire[pos:pos + len(request) - pos % len(request)])  # complete the last one
    sent = (pos + len(request) - 1) // len(request)
    time.sleep(0.3)
    alive(port, "while a client does not read its replies")
    grown = rss_mb(pid) - before
    check(grown < 64, "a client that stops reading costs bounded memory (%.0f MB for %d "
                      "pipelined 100 KB replies)" % (grown, sent))
    # One reply's bytes, read from another connection, tell how much the slow client is owed.
    probe = socket.create_connection(("127.0.0.1", port), timeout=20)
    probe.sendall(request)
    one = b""
    while not one.endswith(b"member-004999\r\n$4\r\n4999\r\n"):
        one += probe.recv(1 << 20)
    probe.close()
    owed, got = sent * len(one), 0
    while got < owed:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        got += len(chunk)
    check(got == owed, "it gets every reply once it reads (%d of %d bytes)" % (got, owed))
    s.close()
    c.call([b"DEL", b"big"])
    c.close()


def local_address():
    """An address of this host that is not loopback (the source of a UDP 'connection')."""
    for probe in ("192.0.2.1", "10.255.255.255", "8.8.8.8"):
        try:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.connect((probe, 9))
            addr = u.getsockname()[0]
            u.close()
            if not addr.startswith("127."):
                return addr
        except OSError:
            pass
    return None


def denied_text(port, addr):
    """What a server sends a new connection from `addr` before closing it (sent at accept:
    nothing is written first, so the close is a clean end of stream)."""
    s = socket.create_connection((addr, port), timeout=10)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return data


def protected_mode(zset_binary, redis_binary):
    addr = local_address()
    if addr is None:
        print("protected mode: SKIPPED (no non-loopback address on this host)")
        return
    proc, port = start_zset(zset_binary, ["--bind", "0.0.0.0"])
    try:
        got = denied_text(port, addr)
        check(got.startswith(b"-DENIED Redis is running in protected mode") and got.endswith(b"\r\n"),
              "a client from %s is refused (%r)" % (addr, got[:60]))
        alive(port, "on loopback while protected")
        c = Conn(port)
        c.call([b"CONFIG", b"SET", b"requirepass", b"pw"])
        s = socket.create_connection((addr, port), timeout=10)
        s.sendall(encode([b"PING"]))
        check(read_reply(s.makefile("rb")) == ("error", b"NOAUTH Authentication required."),
              "with a password, a remote client gets in and must AUTH")
        s.close()
        c.close()
    finally:
        stop(proc)
    if not redis_binary or not os.path.exists(redis_binary):
        print("protected mode: redis-server not installed, its text not compared")
        return
    work = tempfile.mkdtemp(prefix="zset-limits-")
    rport = free_port()
    rproc = subprocess.Popen([redis_binary, "--port", str(rport), "--bind", "0.0.0.0",
                              "--save", "", "--dir", work, "--logfile", os.path.join(work, "log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if wait_ping(rport, rproc):
            check(denied_text(rport, addr) == got, "the DENIED text is redis-server's, byte for byte")
    finally:
        stop(rproc)
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zset-server", required=True)
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    args = ap.parse_args()
    proc, port = start_zset(args.zset_server)
    try:
        malformed(port, proc.pid)
        oversized_bulk(port, proc.pid)
        slow_reader(port, proc.pid)
    finally:
        stop(proc)
    check(proc.returncode == 0, "clean exit (%s)" % proc.returncode)
    protected_mode(args.zset_server, args.redis_server)
    print("server_limits: %d passed, %d failed" % (results["passed"], results["failed"]))
    return 0 if results["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
