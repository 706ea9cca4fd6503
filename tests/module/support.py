"""Shared by the module's tests: redis-server processes on loopback ports with zset.so loaded.

Every server gets its own temporary directory and a free port (never 6379), is waited for until
it answers PING, and is stopped when the test ends, also when it fails (`servers()` is a context
manager that stops everything it started). Tests exit with 77 (ctest's skip code) when
redis-server or Debian's python3-redis is missing.
"""

import argparse
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77

try:
    import redis  # Debian's python3-redis
except ImportError:  # pragma: no cover - reported as a skip
    redis = None


def require(redis_server):
    """Exits with the skip code when the test cannot run here."""
    if redis is None:
        print("SKIPPED: python3-redis is not installed")
        sys.exit(SKIP)
    if not redis_server or not os.path.exists(redis_server):
        print("SKIPPED: redis-server is not installed")
        sys.exit(SKIP)


def arguments(more=None):
    """The command line every module test takes: --module <zset.so> [--redis-server <path>]
    (and what `more(parser)` adds). The module's path comes back absolute (servers run in their
    own directories) and the server is checked (require)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--redis-server", default=shutil.which("redis-server"))
    if more is not None:
        more(ap)
    args = ap.parse_args()
    require(args.redis_server)
    args.module = os.path.abspath(args.module)
    return args


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(cluster=False):
    """A free loopback port (and, for a cluster node, its bus port + 10000)."""
    for _ in range(200):
        port = random.randint(20000, 29999) if cluster else 0
        if not cluster:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port != 6379 and port + 10000 < 65536:
                return port
            continue
        if port_free(port) and port_free(port + 10000):
            return port
    raise RuntimeError("no free port")


def server_env(module):
    """The environment of a redis-server: a module built with AddressSanitizer needs its runtime
    preloaded (ZSET_SERVER_PRELOAD, set by the tests' CMakeLists in sanitizer builds)."""
    env = dict(os.environ)
    preload = os.environ.get("ZSET_SERVER_PRELOAD")
    if module and preload:
        env["LD_PRELOAD"] = preload
        env["ASAN_OPTIONS"] = os.environ.get("ZSET_SERVER_ASAN_OPTIONS", "detect_leaks=0")
    return env


class PortTaken(RuntimeError):
    """What answered on a server's port was another process."""


class Server:
    """One redis-server with the module loaded (or not: module=None)."""

    def __init__(self, redis_server, module, root, name, args=(), module_args=(), cluster=False):
        self.binary = redis_server
        self.module = module
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.args = list(args)
        self.module_args = list(module_args)
        self.cluster = cluster
        self.port = free_port(cluster)
        self.proc = None

    def command_line(self):
        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                "--daemonize", "no", "--logfile", os.path.join(self.dir, "redis.log"),
                "--save", "", "--appendonly", "no", "--enable-debug-command", "yes"]
        if self.module:
            argv += ["--loadmodule", self.module] + self.module_args
        return argv + self.args

    def start(self, timeout=15.0):
        """Starts the server and waits for it. A first start whose port another process took
        meanwhile tries again on a new port; a restart keeps its port (replicas and cluster
        nodes know it)."""
        for _ in range(4 if self.proc is None else 0):
            try:
                return self.start_once(timeout)
            except PortTaken:
                self.port = free_port(self.cluster)
        return self.start_once(timeout)

    def start_once(self, timeout):
        self.proc = subprocess.Popen(self.command_line(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=server_env(self.module))
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                log = self.log_tail()
                kind = PortTaken if "Address already in use" in log else RuntimeError
                raise kind("redis-server exited (%s); log:\n%s" % (self.proc.returncode, log))
            try:
                if self.client().ping():
                    return self.check_identity()
            except (redis.exceptions.ConnectionError, redis.exceptions.BusyLoadingError):
                time.sleep(0.05)
        raise RuntimeError("redis-server on port %d did not answer; log:\n%s" %
                           (self.port, self.log_tail()))

    def check_identity(self):
        """Another process may have taken the port between free_port() and the server's bind
        (tests run side by side); what answers must be this server."""
        pid = self.client().info("server")["process_id"]
        if pid != self.proc.pid:
            self.proc.kill()
            self.proc.wait()
            raise PortTaken("port %d is answered by process %d, not by the redis-server "
                            "started for it (%d)" % (self.port, pid, self.proc.pid))
        return self

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def restart(self, extra_args=None):
        """Stops (SIGTERM: a server with `save` configured saves first) and starts again."""
        self.stop()
        if extra_args is not None:
            self.args = list(extra_args)
        return self.start()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def client(self, **kw):
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=30, **kw)

    def log_tail(self, lines=30):
        try:
            with open(os.path.join(self.dir, "redis.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"


@contextlib.contextmanager
def servers(prefix="zset-module-"):
    """Yields a function making Servers in one temporary root; stops them all at the end."""
    root = tempfile.mkdtemp(prefix=prefix)
    made = []

    def make(*args, **kw):
        s = Server(*args, root=root, name="node%d" % len(made), **kw)
        made.append(s)
        return s

    try:
        yield make
    finally:
        for s in made:
            s.stop()
        shutil.rmtree(root, ignore_errors=True)


class Checks:
    """Counts failed expectations and prints each; exit_code() is the test's status."""

    def __init__(self, name):
        self.name = name
        self.failures = 0
        self.passed = 0

    def expect(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures += 1
            print("FAIL: %s" % what)
        return ok

    def equal(self, got, want, what):
        return self.expect(got == want, "%s: got %r, want %r" % (what, got, want))

    def raises(self, fn, text, what):
        try:
            fn()
        except redis.exceptions.ResponseError as e:
            return self.expect(text in str(e), "%s: error %r lacks %r" % (what, str(e), text))
        return self.expect(False, "%s: no error (want %r)" % (what, text))

    def exit_code(self):
        print("%s: %d checks passed, %d failed" % (self.name, self.passed, self.failures))
        return 0 if self.failures == 0 else 1


def snapshot(client, keys):
    """{key: (type, members-with-scores, has-ttl)} through ZSET.ZRANGE for module keys."""
    out = {}
    for k in keys:
        t = client.type(k)
        if t == b"none":
            out[k] = None
            continue
        if t == b"zset":
            items = client.zrange(k, 0, -1, withscores=True)
        elif t == b"zsetmod--":
            raw = client.execute_command("ZSET.ZRANGE", k, 0, -1, "WITHSCORES")
            items = [(raw[i], float(raw[i + 1])) for i in range(0, len(raw), 2)]
        elif t == b"set":
            items = sorted(client.smembers(k))
        else:
            items = client.get(k)
        out[k] = (t, items, client.pttl(k) > 0)
    return out


def write_stream(client, seed, count=3000, prefix="k"):
    """A seeded stream of ZSET.* writes over a few keys (small ones in listpack mode, one past the
    thresholds in skiplist mode, TTLs, set operations over module and native inputs, pops,
    IMPORT / EXPORT), sent in pipelines. Returns the key names it may have written."""
    rnd = random.Random(seed)
    keys = ["%s:%d" % (prefix, i) for i in range(8)]
    big = "%s:big" % prefix
    native = "%s:native" % prefix
    plain = "%s:set" % prefix
    client.delete(native, plain)
    client.zadd(native, {"n%d" % i: i * 0.5 for i in range(50)})
    client.sadd(plain, *["m%d" % i for i in range(20)])
    pipe = client.pipeline(transaction=False)
    members = ["m%d" % i for i in range(300)]

    def score():
        return rnd.choice(["%d" % rnd.randint(-50, 50), "%.17g" % rnd.uniform(-1e6, 1e6),
                           "inf", "-inf", "0.1", "-0", "1e-300"])

    for i in range(count):
        k = rnd.choice(keys)
        r = rnd.random()
        if r < 0.40:
            pairs = []
            for _ in range(rnd.randint(1, 6)):
                pairs += [score(), rnd.choice(members)]
            opts = rnd.choice([[], [], ["CH"], ["NX"], ["XX"], ["GT", "CH"], ["LT"]])
            pipe.execute_command("ZSET.ZADD", k, *(opts + pairs))
        elif r < 0.50:
            pipe.execute_command("ZSET.ZINCRBY", k, rnd.choice(["1", "-2.5", "0.1"]),
                                 rnd.choice(members))
        elif r < 0.58:
            pipe.execute_command("ZSET.ZREM", k, *rnd.sample(members, 3))
        elif r < 0.62:
            pipe.execute_command(rnd.choice(["ZSET.ZPOPMIN", "ZSET.ZPOPMAX"]), k, rnd.randint(1, 3))
        elif r < 0.65:
            pipe.execute_command("ZSET.ZREMRANGEBYRANK", k, 0, rnd.randint(0, 2))
        elif r < 0.68:
            pipe.execute_command("ZSET.ZREMRANGEBYSCORE", k, "-inf", "(%d" % rnd.randint(-60, 0))
        elif r < 0.72:
            op = rnd.choice(["ZSET.ZUNIONSTORE", "ZSET.ZINTERSTORE", "ZSET.ZDIFFSTORE"])
            srcs = rnd.sample(keys, 2) + ([native] if rnd.random() < 0.5 else []) + \
                ([plain] if rnd.random() < 0.3 else [])
            pipe.execute_command(op, k, len(srcs), *srcs)
        elif r < 0.74:
            pipe.execute_command("ZSET.ZRANGESTORE", k, rnd.choice(keys), 0, rnd.randint(0, 20))
        elif r < 0.77:
            pipe.pexpire(k, rnd.randint(60000, 600000))
        elif r < 0.78:
            pipe.persist(k)
        elif r < 0.80:
            pipe.execute_command("ZSET.ZMPOP", 2, k, rnd.choice(keys), rnd.choice(["MIN", "MAX"]),
                                 "COUNT", rnd.randint(1, 4))
        elif r < 0.90:
            # the big key: past the listpack thresholds, so it is in skiplist mode
            pairs = []
            for _ in range(20):
                pairs += [score(), "big:%d" % rnd.randint(0, 5000)]
            pipe.execute_command("ZSET.ZADD", big, *pairs)
        elif r < 0.95:
            pipe.execute_command("ZSET.ZREM", big, *["big:%d" % rnd.randint(0, 5000) for _ in range(5)])
        else:
            pipe.delete(rnd.choice(keys))
        if i % 200 == 199:
            pipe.execute(raise_on_error=False)
    pipe.execute(raise_on_error=False)
    return keys + [big, native, plain]


def all_keys(client):
    return sorted(client.scan_iter(count=1000))
