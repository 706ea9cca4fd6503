#!/usr/bin/env python3
"""Drop-in mode's key rule (module/dropin_keys.hpp): a sorted set is one of Redis's own exactly
while Redis would keep it as a listpack, and a module key from the write that would make Redis
convert it to its skiplist.

Every scenario runs the same commands on a plain redis-server and on a drop-in server of the
same binary. After each command the key must hold the same elements (and TTL) on both, and be
a native sorted set on the drop-in server exactly when the plain server's OBJECT ENCODING is
"listpack". Scenarios: growth one member at a time across zset-max-listpack-entries, updates of
existing members at the threshold, XX, a long member, big and duplicated ZADDs on new keys,
ZINCRBY, *STORE results on both sides of the thresholds (a result read from a module key stays
a module key whatever its size), a TTL kept across the adoption,
thresholds changed by CONFIG SET, a replica and DEBUG RELOAD keeping every key's kind, and
zset.dropin-small-keys `module` making every new key a module key. Where the command filter knows
its client (Redis 7.2+, Valkey), a single-key command on Redis's own sorted set never reaches the
module, and one queued in MULTI does.
"""

import sys

import support

MODULE_TYPE = "zsetmod--"


class Pair:
    """The plain server and the drop-in server, run side by side."""

    def __init__(self, checks, plain, dropin):
        self.checks = checks
        self.plain = plain.client()
        self.dropin = dropin.client()
        self.clients = (self.plain, self.dropin)

    def both(self, *command):
        replies = [c.execute_command(*command) for c in self.clients]
        self.checks.equal(replies[1], replies[0], "reply to %s" % " ".join(map(str, command[:4])))
        return replies[0]

    def kind(self, client, key):
        t = client.type(key)
        return {b"zset": "native", MODULE_TYPE.encode(): "module", b"none": "none"}.get(t, t)

    def check_key(self, key, what, read_module_key=False):
        """`read_module_key`: the key is a *STORE's result read from a module key, which stays
        a module key whatever its size."""
        # the scores as Redis writes them: -0 and 0 differ (a listpack stores -0 as 0)
        want = self.plain.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
        got = self.dropin.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
        self.checks.equal(got, want, "%s: the elements" % what)
        if not want:
            return
        encoding = self.plain.object("encoding", key)
        expected = "native" if encoding == b"listpack" and not read_module_key else "module"
        # TYPE is renamed in drop-in mode (it answers "zset" for both kinds): SCAN's TYPE filter
        # tells the kinds apart.
        module_keys = set(self.dropin.scan_iter(match=key, _type=MODULE_TYPE))
        native_keys = set(self.dropin.scan_iter(match=key, _type="zset"))
        got_kind = "module" if key.encode() in module_keys else (
            "native" if key.encode() in native_keys else "none")
        self.checks.equal(got_kind, expected,
                          "%s: a %s key where Redis's encoding is %s" % (what, expected, encoding))


def growth(p, key):
    for i in range(130):
        p.both("ZADD", key, i, "m%d" % i)
        if i in (0, 126, 127, 128, 129):
            p.check_key(key, "growth to %d members" % (i + 1))


def updates_at_threshold(p, key):
    for i in range(128):
        p.both("ZADD", key, i, "m%d" % i)
    p.both("ZADD", key, "GT", "CH", 500, "m5", 600, "m6")
    p.check_key(key, "128 members, two updated")
    p.both("ZADD", key, "XX", 1, "absent")
    p.check_key(key, "128 members, XX of an absent member")
    p.both("ZINCRBY", key, 2, "m7")
    p.check_key(key, "128 members, ZINCRBY of a member")
    p.both("ZINCRBY", key, 2, "new")
    p.check_key(key, "ZINCRBY adding the 129th member")


def long_member(p, key):
    p.both("ZADD", key, 1, "a", 2, "b")
    p.check_key(key, "two short members")
    p.both("ZADD", key, 3, "x" * 64)
    p.check_key(key, "a member of 64 bytes")
    p.both("ZADD", key, 4, "y" * 65)
    p.check_key(key, "a member of 65 bytes")
    p.both("ZADD", key + "new", 1, "z" * 65)
    p.check_key(key + "new", "a new key with a member of 65 bytes")


def big_and_duplicated(p, key):
    pairs = []
    for i in range(200):
        pairs += [i, "m%d" % (i % 100)]  # 200 pairs, 100 members
    p.both("ZADD", key, *pairs)
    p.check_key(key, "a new key from 200 pairs of 100 members")
    pairs = []
    for i in range(129):
        pairs += [i, "n%d" % i]
    p.both("ZADD", key + "big", *pairs)
    p.check_key(key + "big", "a new key from 129 pairs")
    p.both("ZINCRBY", key + "incr", 1.5, "only")
    p.check_key(key + "incr", "a new key from ZINCRBY")


def stores(p, key):
    p.both("ZADD", key + ":s1", 1, "a", 2, "b", 3, "c")
    p.both("ZADD", key + ":s2", *[x for i in range(100) for x in (i, "m%d" % i)])
    p.both("ZADD", key + ":s3", *[x for i in range(100) for x in (i, "n%d" % i)])
    p.both("ZUNIONSTORE", key + ":small", 2, key + ":s1", key + ":s2")
    p.check_key(key + ":small", "ZUNIONSTORE of 103 members")
    p.both("ZUNIONSTORE", key + ":big", 2, key + ":s2", key + ":s3")
    p.check_key(key + ":big", "ZUNIONSTORE of 200 members")
    p.both("ZRANGESTORE", key + ":range", key + ":big", 0, 9)
    p.check_key(key + ":range", "ZRANGESTORE of 10 from a module key", read_module_key=True)
    p.both("ZRANGESTORE", key + ":range2", key + ":s2", 0, 9)
    p.check_key(key + ":range2", "ZRANGESTORE of 10 from a native key")
    p.both("ZINTERSTORE", key + ":big", 2, key + ":s1", key + ":s1")
    p.check_key(key + ":big", "ZINTERSTORE of 3 over a module key")
    p.both("ZDIFFSTORE", key + ":diff", 2, key + ":big", key + ":s2")
    p.check_key(key + ":diff", "ZDIFFSTORE")


def ttl_kept(p, key):
    for i in range(128):
        p.both("ZADD", key, i, "m%d" % i)
    for c in p.clients:
        c.pexpire(key, 600000)
    p.both("ZADD", key, 1, "one more")
    p.check_key(key, "the 129th member of a key with a TTL")
    ttl = p.dropin.pttl(key)
    p.checks.expect(590000 < ttl <= 600001, "the adopted key keeps its TTL (%d ms)" % ttl)


def thresholds_changed(p, key):
    for c in p.clients:
        c.config_set("zset-max-listpack-entries", 4)
    for i in range(6):
        p.both("ZADD", key, i, "m%d" % i)
        p.check_key(key, "zset-max-listpack-entries 4, %d members" % (i + 1))
    for c in p.clients:
        c.config_set("zset-max-listpack-entries", 128)
    # a listpack holding a member past a value threshold lowered since: Redis converts it at
    # the next insert of a long member only, after inserting the short ones into the listpack
    p.both("ZADD", key + ":v", 0, "a", 0, "12345678901234567890")
    for c in p.clients:
        c.config_set("zset-max-listpack-value", 10)
    p.both("ZADD", key + ":v", "-0", "g")
    p.check_key(key + ":v", "a short member beside one past the lowered value threshold")
    p.both("ZADD", key + ":v", "-0", "h", "-0", "9223372036854775807")
    p.check_key(key + ":v", "then a long member: converted after the short one's insert")
    for c in p.clients:
        c.config_set("zset-max-listpack-value", 64)


def module_calls(client, name):
    stats = client.info("commandstats").get("cmdstat_zset." + name)
    return stats["calls"] if stats else 0


def filter_fast_path(checks, client):
    """Where the filter knows its client (INFO zset's dropin_acl_check: filter), a single-key
    command on Redis's own sorted set is not renamed at all; queued in MULTI, or on a module
    key, it is."""
    if client.info("zset")["zset_dropin_acl_check"] != "filter":
        return
    client.zadd("fast:small", {"a": 1})
    client.zadd("fast:big", {"m%d" % i: i for i in range(200)})
    before = module_calls(client, "zscore")
    client.zscore("fast:small", "a")
    checks.equal(module_calls(client, "zscore"), before, "ZSCORE of a native key stays Redis's")
    client.zscore("fast:big", "m1")
    checks.equal(module_calls(client, "zscore"), before + 1, "ZSCORE of a module key is renamed")
    with client.pipeline(transaction=True) as p:
        p.zscore("fast:small", "a")
        p.execute()
    checks.equal(module_calls(client, "zscore"), before + 2, "ZSCORE queued in MULTI is renamed")


def same_kinds(checks, a, b, what):
    kinds = []
    for c in (a, b):
        kinds.append((sorted(c.scan_iter(count=1000, _type=MODULE_TYPE)),
                      sorted(c.scan_iter(count=1000, _type="zset"))))
    checks.equal(kinds[1], kinds[0], what)


def main():
    args = support.arguments()
    checks = support.Checks("module drop-in key kinds")
    module = args.module
    with support.servers(prefix="zset-dropin-keys-") as make:
        plain = make(args.redis_server, None).start()
        dropin = make(args.redis_server, module, module_args=["--zset.dropin", "yes"]).start()
        p = Pair(checks, plain, dropin)
        for name, scenario in (("growth", growth), ("updates", updates_at_threshold),
                               ("long", long_member), ("big", big_and_duplicated),
                               ("stores", stores), ("ttl", ttl_kept),
                               ("thresholds", thresholds_changed)):
            scenario(p, name)
        filter_fast_path(checks, p.dropin)
        direct = p.dropin.execute_command("ZSET.ZADD", "direct", 1, "a")
        checks.equal(direct, 1, "ZSET.ZADD by name in drop-in mode")
        checks.equal(sorted(p.dropin.scan_iter(match="direct", _type="zset")), [b"direct"],
                     "ZSET.ZADD by name makes a small key Redis's own in drop-in mode")
        p.plain.zadd("direct", {"a": 1})

        replica = make(args.redis_server, module, module_args=["--zset.dropin", "yes"]).start()
        r = replica.client()
        r.replicaof("127.0.0.1", dropin.port)
        p.dropin.execute_command("WAIT", 1, 60000)
        for i in range(130):  # a stream, after the full sync: forwarded, then adopted
            p.dropin.zadd("streamed", {"m%d" % i: i})
        checks.equal(p.dropin.execute_command("WAIT", 1, 60000), 1, "the replica acknowledged")
        same_kinds(checks, p.dropin, r, "the replica holds every key in the master's kind")
        checks.equal(r.zrange("streamed", 0, -1, withscores=True),
                     p.dropin.zrange("streamed", 0, -1, withscores=True), "the streamed key")
        before = (sorted(p.dropin.scan_iter(count=1000, _type=MODULE_TYPE)),
                  sorted(p.dropin.scan_iter(count=1000, _type="zset")))
        r.replicaof("no", "one")
        p.dropin.execute_command("DEBUG", "RELOAD")
        same_kinds(checks, p.dropin, r, "DEBUG RELOAD keeps every key's kind")
        after = (sorted(p.dropin.scan_iter(count=1000, _type=MODULE_TYPE)),
                 sorted(p.dropin.scan_iter(count=1000, _type="zset")))
        checks.equal(after, before, "the keys after DEBUG RELOAD")

        p.dropin.config_set("zset.dropin-small-keys", "module")
        p.dropin.zadd("policy", {"a": 1})
        p.dropin.zunionstore("policy:store", ["policy"])
        checks.equal(sorted(p.dropin.scan_iter(match="policy*", _type=MODULE_TYPE)),
                     [b"policy", b"policy:store"],
                     "zset.dropin-small-keys module: new keys are module keys")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
