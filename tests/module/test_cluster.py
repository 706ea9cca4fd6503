#!/usr/bin/env python3
"""Module keys in Redis Cluster: routing, CROSSSLOT, resharding and a failover.

Six redis-servers with zset.so on loopback ports form a cluster of 3 masters and 3 replicas
(`redis-cli --cluster create ... --cluster-replicas 1`). Then:
  * 10,000 keys (a few hundred members each for some, a few for most) are written through
    redis-py's RedisCluster client, which routes each command by the key positions the module
    declares (COMMAND INFO / COMMAND GETKEYS);
  * a multi-key command over two slots answers CROSSSLOT, and one over keys of one slot (a hash
    tag) runs; a key of another node answers MOVED;
  * half of the slots move (`redis-cli --cluster reshard`: MIGRATE carries module keys through
    the type's rdb_save / rdb_load);
  * a replica takes over its master (CLUSTER FAILOVER);
after each step every member and score of every key is read back through the cluster and
compared with what was written. With --dropin the module runs in drop-in mode and the same test
uses the native command names (ZADD, ZRANGE, ...).
"""

import random
import re
import shutil
import subprocess
import sys
import time

import support


class Cluster:
    def __init__(self, make, redis_server, module, dropin):
        module_args = ["--zset.dropin", "yes"] if dropin else []
        self.nodes = [make(redis_server, module, cluster=True, module_args=module_args,
                           args=["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", "3000"]) for _ in range(6)]
        self.cli = shutil.which("redis-cli")

    def start(self):
        for n in self.nodes:
            n.start()
        addresses = ["127.0.0.1:%d" % n.port for n in self.nodes]
        self.run_cli(["--cluster", "create"] + addresses + ["--cluster-replicas", "1",
                                                            "--cluster-yes"])
        self.wait_ok()

    def run_cli(self, args, timeout=300):
        out = subprocess.run([self.cli] + args, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError("redis-cli %s failed:\n%s%s" % (" ".join(args[:3]), out.stdout,
                                                                out.stderr))
        return out.stdout

    def wait_ok(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            states = [n.client().cluster("info")["cluster_state"] for n in self.nodes]
            if all(s == "ok" for s in states):
                return
            time.sleep(0.2)
        raise RuntimeError("the cluster did not become ok")

    def wait_agreed(self, timeout=60):
        """Until every node agrees on the slots (`redis-cli --cluster check` finds no error)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            out = subprocess.run([self.cli, "--cluster", "check",
                                  "127.0.0.1:%d" % self.nodes[0].port],
                                 capture_output=True, text=True, timeout=60)
            if out.returncode == 0 and "[ERR]" not in out.stdout:
                return
            time.sleep(0.3)
        raise RuntimeError("the nodes do not agree on the configuration")

    def masters(self):
        """[(node id, port)] of the masters, as the first node sees them."""
        out = []
        for line in self.nodes[0].client().execute_command("CLUSTER", "NODES").decode().splitlines():
            f = line.split()
            if "master" in f[2] and "fail" not in f[2]:
                out.append((f[0], int(f[1].split(":")[1].split("@")[0])))
        return sorted(out, key=lambda m: m[1])

    def client(self):
        return support.redis.cluster.RedisCluster(host="127.0.0.1", port=self.nodes[0].port,
                                                 socket_timeout=30)


def names(dropin):
    def name(command):
        return command if dropin else "ZSET." + command
    return name


def write_keys(rc, cmd, count, rnd):
    """count keys through the cluster client; returns {key: {member: score}}."""
    expected = {}
    for i in range(count):
        key = "key:%d" % i
        size = 300 if i % 500 == 0 else rnd.randint(1, 8)
        members = {"m%d" % j: float(rnd.randint(-1000, 1000)) / 4 for j in range(size)}
        args = []
        for m, s in members.items():
            args += [repr(s), m]
        rc.execute_command(cmd("ZADD"), key, *args)
        expected[key] = members
    return expected


def check_keys(checks, rc, cmd, expected, when):
    bad = 0
    for key, members in expected.items():
        raw = rc.execute_command(cmd("ZRANGE"), key, 0, -1, "WITHSCORES")
        got = {raw[i].decode(): float(raw[i + 1]) for i in range(0, len(raw), 2)}
        if got != members:
            bad += 1
            if bad <= 3:
                print("  %s: %s: %d members read, %d written" % (when, key, len(got), len(members)))
    checks.equal(bad, 0, "keys that differ %s" % when)


def check_routing(checks, cluster, cmd):
    c = cluster.nodes[0].client()
    checks.raises(lambda: c.execute_command(cmd("ZUNIONSTORE"), "{a}dst", 2, "{a}x", "{b}y"),
                  "CROSSSLOT", "a multi-key command over two slots")
    checks.raises(lambda: c.execute_command(cmd("ZINTERCARD"), 2, "{a}x", "{b}y"),
                  "CROSSSLOT", "a numkeys read over two slots")
    rc = cluster.client()
    rc.execute_command(cmd("ZADD"), "{t}src", 1, "a", 2, "b")
    checks.equal(rc.execute_command(cmd("ZUNIONSTORE"), "{t}dst", 2, "{t}src", "{t}nokey"), 2,
                 "a multi-key command within one slot")
    # a key that hashes to another node's slot: MOVED from a node that does not own it
    slot_owner = {}
    for line in c.execute_command("CLUSTER", "NODES").decode().splitlines():
        f = line.split()
        if "myself" in f[2]:
            slot_owner = f
    mine = " ".join(slot_owner[8:])
    for i in range(1000):
        key = "probe:%d" % i
        slot = c.execute_command("CLUSTER", "KEYSLOT", key)
        owned = any(int(r.split("-")[0]) <= slot <= int(r.split("-")[-1])
                    for r in mine.split() if re.match(r"^\d+(-\d+)?$", r))
        if not owned:
            checks.raises(lambda: c.execute_command(cmd("ZSCORE"), key, "a"), "MOVED",
                          "a key of another node")
            break


def reshard(cluster, half):
    masters = cluster.masters()
    target = masters[1][0]
    for source, _ in (masters[0], masters[2]):
        cluster.wait_agreed()
        cluster.run_cli(["--cluster", "reshard", "127.0.0.1:%d" % cluster.nodes[0].port,
                         "--cluster-from", source, "--cluster-to", target, "--cluster-slots",
                         str(half // 2), "--cluster-yes", "--cluster-pipeline", "100"])
    cluster.wait_ok()
    cluster.wait_agreed()


def failover(cluster):
    """The replica of the first master takes over; waits until it is master and all is ok."""
    master_id, _ = cluster.masters()[0]
    for n in cluster.nodes:
        info = n.client().execute_command("CLUSTER", "NODES").decode()
        me = [l for l in info.splitlines() if "myself" in l][0].split()
        if "slave" in me[2] and me[3] == master_id:
            n.client().execute_command("CLUSTER", "FAILOVER")
            deadline = time.time() + 60
            while time.time() < deadline:
                if n.client().info("replication")["role"] == "master":
                    cluster.wait_ok()
                    cluster.wait_agreed()
                    return n.port
                time.sleep(0.2)
    raise RuntimeError("no failover")


def main():
    def more(ap):
        ap.add_argument("--dropin", action="store_true")
        ap.add_argument("--keys", type=int, default=10000)

    args = support.arguments(more)
    if shutil.which("redis-cli") is None:
        print("SKIPPED: redis-cli is not installed")
        return support.SKIP
    checks = support.Checks("module cluster%s" % (" (drop-in)" if args.dropin else ""))
    cmd = names(args.dropin)
    with support.servers(prefix="zset-cluster-") as make:
        cluster = Cluster(make, args.redis_server, args.module, args.dropin)
        cluster.start()
        rc = cluster.client()
        start = time.time()
        expected = write_keys(rc, cmd, args.keys, random.Random(7))
        print("wrote %d keys in %.1fs" % (len(expected), time.time() - start))
        check_keys(checks, rc, cmd, expected, "after writing")
        # the keys are the module's type (SCAN's TYPE filter asks no module: it sees the type);
        # in drop-in mode only those past the listpack thresholds (module/dropin_keys.hpp)
        big = sum(1 for members in expected.values() if len(members) > 128)
        masters = [n for n in cluster.nodes if n.port in {p for _, p in cluster.masters()}]

        def counted(type_name):
            return sum(len(n.client().scan(0, count=100000, _type=type_name)[1])
                       for n in masters)
        if args.dropin:
            checks.equal(counted("zsetmod--"), big, "the keys past the thresholds are module keys")
            checks.equal(counted("zset"), len(expected) - big,
                         "the small keys are Redis's own (zset.dropin-small-keys native)")
        else:
            checks.equal(counted("zsetmod--"), len(expected), "every key is a module key")
        check_routing(checks, cluster, cmd)
        start = time.time()
        reshard(cluster, 8192)
        print("resharded 8192 slots in %.1fs" % (time.time() - start))
        moved = cluster.masters()
        checks.expect(len(moved) == 3, "three masters after resharding")
        check_keys(checks, cluster.client(), cmd, expected, "after resharding")
        new_master = failover(cluster)
        checks.expect(any(p == new_master for _, p in cluster.masters()),
                      "the replica became a master")
        rc = cluster.client()
        check_keys(checks, rc, cmd, expected, "after the failover")
        check_routing(checks, cluster, cmd)
        checks.expect(all(n.alive() for n in cluster.nodes), "every node is still running")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
