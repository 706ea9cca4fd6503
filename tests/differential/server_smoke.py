#!/usr/bin/env python3
"""Smoke test of zset-server on its own: protocol handling, pipelining, RESP3, blocking pops,
protocol errors and output back-pressure. Needs only python3 (no redis-server)."""

import argparse
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from diff_test import Conn, encode, read_reply  # noqa: E402

checks = {"passed": 0, "failed": 0}


def check(cond, what):
    if cond:
        checks["passed"] += 1
    else:
        checks["failed"] += 1
        print("FAILED: %s" % what)


def raw(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def recv_until_closed(s, limit=1 << 20):
    data = b""
    while len(data) < limit:
        chunk = s.recv(65536)
        if not chunk:
            return data, True
        data += chunk
    return data, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zset-server", required=True)
    args = ap.parse_args()
    proc = subprocess.Popen([args.zset_server, "--port", "0"], stdout=subprocess.PIPE)
    line = proc.stdout.readline().decode()
    port = int(line.strip().rsplit(":", 1)[1])
    try:
        run(port)
        # The server survived everything: it still answers and stops cleanly on SIGTERM.
        c = Conn(port)
        check(c.call([b"PING"]) == ("simple", b"PONG"), "alive at the end")
        c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = -1
    check(code == 0, "exit status 0 on SIGTERM (got %s)" % code)
    print("server_smoke: %d passed, %d failed" % (checks["passed"], checks["failed"]))
    return 0 if checks["failed"] == 0 else 1


def run(port):
    c = Conn(port)
    # Basic commands, inline protocol.
    check(c.call([b"PING"]) == ("simple", b"PONG"), "PING")
    c.sock.sendall(b"ZADD k 1 a 2 b 3 c\r\nZCARD k\r\n")
    check(c.read() == ("int", 3) and c.read() == ("int", 3), "inline commands")

    # Pipelining: 2000 commands in one write, replies in order.
    c.sock.sendall(b"".join(encode([b"ZINCRBY", b"p", b"1", b"m%d" % (i % 10)]) for i in range(2000)))
    replies = [c.read() for _ in range(2000)]
    check(replies[-1] == ("bulk", b"200") and replies[0] == ("bulk", b"1"), "pipelined replies")

    # RESP3.
    c3 = Conn(port)
    hello = c3.call([b"HELLO", b"3"])
    check(hello[0] == "map", "HELLO 3 map")
    check(c3.call([b"ZSCORE", b"k", b"a"]) == ("double", b"1"), "RESP3 double")
    check(c3.call([b"ZRANGE", b"k", b"0", b"0", b"WITHSCORES"]) ==
          ("array", [("array", [("bulk", b"a"), ("double", b"1")])]), "RESP3 nested WITHSCORES")
    check(c3.call([b"BZPOPMIN", b"nothing", b"0.05"]) == ("null",), "RESP3 blocking timeout")

    # Blocking: timeout, then a client served by another's write, pipelined commands after it.
    t0 = time.time()
    check(c.call([b"BZPOPMIN", b"none", b"0.1"]) == ("nullarray",), "RESP2 blocking timeout")
    check(time.time() - t0 >= 0.09, "timeout honoured")
    b = Conn(port)
    b.sock.sendall(encode([b"BZPOPMAX", b"q1", b"q2", b"5"]) + encode([b"PING"]))
    time.sleep(0.05)
    check(c.call([b"ZADD", b"q2", b"7", b"x", b"8", b"y"]) == ("int", 2), "feed blocked key")
    check(b.read() == ("array", [("bulk", b"q2"), ("bulk", b"y"), ("bulk", b"8")]), "blocked client served")
    check(b.read() == ("simple", b"PONG"), "pipelined command after unblocking")
    # First come, first served; a disconnected blocked client is forgotten.
    w1, w2, gone = Conn(port), Conn(port), Conn(port)
    gone.send([b"BZPOPMIN", b"fifo", b"0"])
    time.sleep(0.02)
    gone.close()
    w1.send([b"BZPOPMIN", b"fifo", b"0"])
    time.sleep(0.02)
    w2.send([b"BZMPOP", b"0", b"1", b"fifo", b"MIN", b"COUNT", b"5"])
    time.sleep(0.05)
    check(c.call([b"ZADD", b"fifo", b"1", b"a", b"2", b"b", b"3", b"c"]) == ("int", 3), "feed fifo")
    check(w1.read() == ("array", [("bulk", b"fifo"), ("bulk", b"a"), ("bulk", b"1")]), "first waiter")
    check(w2.read() == ("array", [("bulk", b"fifo"), ("array", [("array", [("bulk", b"b"), ("bulk", b"2")]),
                                                               ("array", [("bulk", b"c"), ("bulk", b"3")])])]),
          "second waiter")

    # Protocol errors: the error, then the connection is closed.
    for bad, text in ((b"*1\r\n$x\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
                      (b"*1\r\n$536870913\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
                      (b"*2\r\n+x\r\n", b"-ERR Protocol error: expected '$', got '+'\r\n"),
                      (b"PING \"unbalanced\r\n", b"-ERR Protocol error: unbalanced quotes in request\r\n"),
                      (b"PING\r\n*abc\r\n", b"+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n")):
        s = raw(port)
        s.sendall(bad)
        data, closed = recv_until_closed(s)
        check(data == text and closed, "protocol error %r -> %r" % (bad, data))
        s.close()
    # An inline request over 64 KiB without a newline.
    s = raw(port)
    try:
        s.sendall(b"x" * (70 * 1024))
    except OSError:
        pass
    data, closed = recv_until_closed(s)
    check(data == b"-ERR Protocol error: too big inline request\r\n" and closed, "too big inline")
    s.close()

    # QUIT.
    s = raw(port)
    s.sendall(encode([b"QUIT"]) + encode([b"PING"]))
    data, closed = recv_until_closed(s)
    check(data == b"+OK\r\n" and closed, "QUIT")
    s.close()

    # Back-pressure: many large replies requested without reading, then read in full.
    big = [b"ZADD", b"big"]
    for i in range(2000):
        big += [b"%d" % i, b"member-%06d" % i]
    check(c.call(big) == ("int", 2000), "big set")
    s = raw(port)
    n = 400
    s.sendall(b"".join(encode([b"ZRANGE", b"big", b"0", b"-1", b"WITHSCORES"]) for _ in range(n)))
    time.sleep(0.3)
    f = s.makefile("rb")
    ok = True
    for _ in range(n):
        r = read_reply(f)
        ok = ok and r[0] == "array" and len(r[1]) == 4000
    check(ok, "all large pipelined replies arrive")
    s.close()

    # Many connections at once.
    conns = [Conn(port) for _ in range(50)]
    check(all(x.call([b"ECHO", b"hi"]) == ("bulk", b"hi") for x in conns), "50 connections")
    for x in conns:
        x.close()

    # Client errors do not affect the server.
    check(c.call([b"NOSUCH"])[0] == "error", "unknown command")
    check(c.call([b"ZADD", b"k"])[0] == "error", "arity error")


if __name__ == "__main__":
    sys.exit(main())
