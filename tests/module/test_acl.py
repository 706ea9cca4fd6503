#!/usr/bin/env python3
"""ACL users: in drop-in mode every user gets what the same user gets from native Redis.

Two servers of the same binary: one plain, one with zset.so in drop-in mode. The same ACL users
are made on both, and each runs the same sorted-set commands on keys of its own (created by its
first ZADD), then on a key the admin wrote (a module key on the drop-in server). Replies are
compared whole, a refusal as "NOPERM" (the two servers word it in their own ways inside a
script). Users:
  * the rules of the issue that found the gap (+@sortedset; +zadd +zrange +zscore;
    +@read -@write; ~lb:* +@all) and more (+@all -zadd; +@write; +@fast);
  * the same users with the grant docs/module.md gives operators: @zset where the server has
    module ACL categories, every ZSET.* command by name where it does not.

Where the server lets the filter tell its client (Redis 7.2+, Valkey), users get native
replies without the grant, on their own keys (a rule naming a native command, such as +zadd,
reaches a module key only with the grant). On Redis 7.0 only the grant gives parity. Also
checked: COMMAND INFO's ACL categories of ZSET.* commands, and that a +@sortedset user runs
ZSET.ZADD outside drop-in mode where the server has module categories.
"""

import sys

import support

# In this order: "named" last, since without the grant its writes to the admin's module key fail
# (WRONGTYPE), which the users after it would see.
USERS = {
    "sortedset": "~* +@sortedset +@connection",
    "readonly": "~* +@read -@write +@connection",
    "lbkeys": "~lb:* +@all",
    "nozadd": "~* +@all -zadd",
    "writer": "~* +@write +@connection",
    "fast": "~* +@fast",
    "named": "~* +zadd +zrange +zscore",
}

SCRIPT = "return redis.call('ZREM', KEYS[1], 'c')"


def commands(user, shared):
    """The commands a user runs: on its own keys (lb:<user>, other:<user>), then on `shared`."""
    k, o, d = ("lb:%s" % user), ("other:%s" % user), ("lb:%s:dst" % user)
    return [
        ["ZADD", k, "1", "a", "2", "b", "3", "c", "4", "d"], ["ZADD", o, "1", "a"],
        ["ZSCORE", k, "a"], ["ZRANGE", k, "0", "-1", "WITHSCORES"],
        ["ZRANGEBYSCORE", k, "-inf", "+inf", "LIMIT", "0", "2"], ["ZCARD", k],
        ["ZINCRBY", k, "5", "a"], ["ZREM", k, "b"], ["ZRANGESTORE", d, k, "0", "-1"],
        ["ZUNIONSTORE", d, "2", k, o], ["ZSCAN", k, "0"], ["TYPE", k],
        ["OBJECT", "ENCODING", k], ["EVAL", SCRIPT, "1", k], ["ZPOPMIN", k],
        ["BZPOPMIN", k, "0.01"], ["ZMPOP", "1", k, "MAX"], ["ZSCORE", shared, "x"],
        ["ZRANGE", shared, "0", "-1"], ["ZADD", shared, "7", user], ["ZREM", shared, user],
    ]


def outcome(client, argv):
    try:
        return repr(client.execute_command(*argv))
    except support.redis.exceptions.NoPermissionError:
        return "NOPERM"
    except support.redis.exceptions.ResponseError as e:
        return "NOPERM" if "no permissions" in str(e) else "ERR " + str(e)


def raw(client):
    """The client with redis-py's parsing of COMMAND replies off (it expects COMMAND INFO's)."""
    client.response_callbacks.pop("COMMAND", None)
    return client


def server_traits(client):
    """(has module ACL categories, has @zset, the filter can tell its client) of a drop-in server
    as its INFO zset says."""
    info = client.info("zset")
    categories = info.get("zset_acl_categories") == "yes"
    zset_category = any(c == b"zset" for c in client.execute_command("ACL", "CAT"))
    return categories, zset_category, info.get("zset_dropin_acl_check") == "filter"


ADMIN = {b"zset.import", b"zset.export"}


def twin_grant(dropin_client, zset_category):
    """docs/module.md's grant: @zset, or every twin (each ZSET.* command but IMPORT / EXPORT)
    by name."""
    if zset_category:
        return "+@zset"
    names = raw(dropin_client).execute_command("COMMAND", "LIST", "FILTERBY", "MODULE", "zset")
    return " ".join("+" + n.decode() for n in sorted(set(names) - ADMIN))


def direct_calls(checks, dropin, zset_category):
    """With the grant, a twin sent by its own name grants no more than its native command, and
    the administration commands stay out of @zset."""
    c = dropin.client(username="readonly", password="pw")
    checks.equal(outcome(c, ["ZSET.ZADD", "lb:direct", "1", "a"]), "NOPERM",
                 "a +@read -@write user's ZSET.ZADD by name, in drop-in mode")
    checks.equal(outcome(c, ["ZSET.ZSCORE", "lb:shared", "x"]), "b'1'",
                 "its ZSET.ZSCORE by name")
    checks.equal(outcome(c, ["ZSET.EXPORT", "lb:shared"]), "NOPERM",
                 "its ZSET.EXPORT (not a twin, not granted)")
    if zset_category:
        members = set(dropin.client().execute_command("ACL", "CAT", "zset"))
        checks.expect(not (members & ADMIN) and b"zset.zadd" in members,
                      "@zset holds the twins, not IMPORT / EXPORT: %r" % sorted(members)[:5])


def make_users(client, extra):
    for user, rules in USERS.items():
        client.execute_command("ACL", "SETUSER", user, "reset", "on", ">pw", *rules.split(),
                               *extra.split())


def matrix(server, shared):
    """{(user, command): outcome} of every user's commands."""
    out = {}
    for user in USERS:
        c = server.client(username=user, password="pw")
        c.response_callbacks.clear()  # replies as the server sent them
        for argv in commands(user, shared):
            out[(user, " ".join(argv[:1] + argv[1:3]))] = outcome(c, argv)
        c.close()
    return out


def compare(checks, native, dropin, what):
    differ = [(k, native[k], dropin[k]) for k in native if native[k] != dropin[k]]
    for key, n, d in differ[:12]:
        print("  %s: %s: native %s, drop-in %s" % (what, key, n, d))
    checks.equal(len(differ), 0, "%s: %d commands, replies that differ" % (what, len(native)))


def run_matrix(native, dropin, grant, shared):
    """Both matrices; `grant` is added to every user's rules on the drop-in server (the native
    server has no ZSET.* commands to grant)."""
    for s, extra in ((native, ""), (dropin, grant)):
        admin = s.client()
        admin.flushall()
        admin.zadd(shared, {"x": 1, "y": 2})
        make_users(admin, extra)
    return matrix(native, shared), matrix(dropin, shared)


GETKEYS = [  # invocations whose keys COMMAND GETKEYS finds, native and twin alike
    ["ZADD", "k", "1", "a"], ["ZREM", "k", "a"], ["ZRANGESTORE", "d", "k", "0", "-1"],
    ["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"], ["ZINTER", "3", "a", "b", "c"],
    ["ZMPOP", "2", "a", "b", "MIN"], ["BZMPOP", "0", "2", "a", "b", "MAX"],
    ["BZPOPMIN", "a", "b", "0"], ["ZINTERCARD", "2", "a", "b", "LIMIT", "1"],
    ["OBJECT", "ENCODING", "k"], ["RESTORE", "k", "0", "x"], ["ZSCORE", "k", "a"],
]


def declared_keys(checks, server):
    """Each twin declares the keys its native command declares (the key specs in COMMAND INFO:
    flags, search, find), and COMMAND GETKEYS finds the same keys: ACL key patterns and their
    read / write permissions, and cluster routing, treat the two alike."""
    c = raw(server.client())
    names = c.execute_command("COMMAND", "LIST", "FILTERBY", "MODULE", "zset")
    for twin in sorted(set(names) - ADMIN):
        native = twin[5:] + (b"|encoding" if twin == b"zset.object" else b"")
        specs = [c.execute_command("COMMAND", "INFO", n)[0][8] for n in (native, twin)]
        checks.equal(specs[1], specs[0], "%s's key specs" % twin.decode())
    for argv in GETKEYS:
        native = c.execute_command("COMMAND", "GETKEYS", *argv)
        twin = c.execute_command("COMMAND", "GETKEYS", "ZSET." + argv[0], *argv[1:])
        checks.equal(twin, native, "COMMAND GETKEYS %s" % " ".join(argv))


def categories_outside_dropin(checks, make, args, categories, zset_category):
    plain = make(args.redis_server, args.module).start()
    declared_keys(checks, plain)
    c = raw(plain.client())
    info = c.execute_command("COMMAND", "INFO", "zset.zadd")[0]
    cats = sorted(x.decode() for x in info[6])
    want = ["@fast", "@sortedset", "@write"] + (["@zset"] if zset_category else [])
    checks.equal(cats, sorted(want) if categories else [], "COMMAND INFO zset.zadd categories")
    c.execute_command("ACL", "SETUSER", "sorted", "on", ">pw", "~*", "+@sortedset")
    user = plain.client(username="sorted", password="pw")
    want_reply = "1" if categories else "NOPERM"
    checks.equal(outcome(user, ["ZSET.ZADD", "k", "1", "a"]).strip("'"), want_reply,
                 "a +@sortedset user's ZSET.ZADD outside drop-in mode")
    plain.stop()


def main():
    args = support.arguments()
    checks = support.Checks("module ACL")
    with support.servers(prefix="zset-acl-") as make:
        native = make(args.redis_server, None).start()
        dropin = make(args.redis_server, args.module, module_args=["--zset.dropin", "yes"]).start()
        categories, zset_category, filter_check = server_traits(dropin.client())
        print("server: module ACL categories %s, @zset %s, drop-in check in the %s" %
              (categories, zset_category, "filter" if filter_check else "command"))
        shared = "lb:shared"
        grant = twin_grant(dropin.client(), zset_category)
        n, d = run_matrix(native, dropin, grant, shared)
        checks.equal(dropin.client().type(shared), b"zset", "the shared key's TYPE (drop-in)")
        compare(checks, n, d, "users with the documented grant")
        direct_calls(checks, dropin, zset_category)
        n, d = run_matrix(native, dropin, "", shared)
        if filter_check:
            own = [k for k in n if "shared" not in k[1]]
            compare(checks, {k: n[k] for k in own}, {k: d[k] for k in own},
                    "users without the grant, on their own keys")
            shared_keys = [k for k in n if "shared" in k[1] and k[0] != "named"]
            compare(checks, {k: n[k] for k in shared_keys}, {k: d[k] for k in shared_keys},
                    "users without the grant (but a rule naming commands), on the admin's key")
        else:
            refused = sum(1 for k in n if n[k] != "NOPERM" and d[k] == "NOPERM")
            checks.expect(refused > 0, "7.0 without the grant refuses commands native serves "
                          "(the case docs/module.md's grant is for): %d" % refused)
        categories_outside_dropin(checks, make, args, categories, zset_category)
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
