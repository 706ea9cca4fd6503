#!/usr/bin/env python3
"""Bad input to the module gets a clear error, the server keeps running and nothing is lost.

  * RESTORE of damaged DUMP payloads of a module key: every truncation and a sample of byte
    flips (with the checksum recomputed, so the payload reaches the type's rdb_load), a newer
    encoding version of the type, the checksum left wrong, an unknown RDB version: each is an
    error (or, for a flip the format cannot see, a valid set), never a crash or a half-built key;
  * wrong types: ZSET.* on strings, lists, hashes and native keys where Redis gives WRONGTYPE;
    plain sets and native sorted sets accepted where Redis accepts them (set operations);
  * huge counts and ranges: the same replies or errors as Redis, the server alive;
and afterwards every other key is as it was.
"""

import random
import struct
import sys

import support

# CRC-64/Jones as Redis computes it for DUMP payloads (reflected, polynomial 0xad93d23594c935a9).
_POLY = 0x95AC9329AC4BC9B5


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        t.append(c)
    return t


_TABLE = _table()


def crc64(data):
    c = 0
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def with_crc(body):
    """A payload (type, value, RDB version) with its checksum recomputed."""
    return body + struct.pack("<Q", crc64(body))


def try_restore(c, key, payload):
    """RESTORE's outcome: 'ok' or the error text."""
    c.delete(key)
    try:
        c.restore(key, 0, payload)
        return "ok"
    except support.redis.exceptions.ResponseError as e:
        return str(e)


def check_payloads(checks, c, good):
    body = good[:-8]
    checks.equal(crc64(body), struct.unpack("<Q", good[-8:])[0], "our CRC64 agrees with Redis's")
    checks.equal(try_restore(c, "r", good), "ok", "the undamaged payload restores")
    for cut in range(1, len(body) - 2):  # every truncation of the value, checksum recomputed
        out = try_restore(c, "r", with_crc(body[:cut] + body[-2:]))
        if out == "ok":  # a shorter payload restoring means the format missed the damage
            checks.expect(False, "truncation at %d restored a value" % cut)
        elif "Bad data format" not in out:
            checks.expect(False, "truncation at %d: unexpected error %r" % (cut, out))
    rnd = random.Random(5)
    for _ in range(300):  # flipped bytes, checksum recomputed
        b = bytearray(body)
        i = rnd.randrange(1, len(b) - 2)
        b[i] ^= 1 << rnd.randrange(8)
        out = try_restore(c, "r", with_crc(bytes(b)))
        if out == "ok":  # a flip inside a member or a score can leave a valid set
            items = c.execute_command("ZSET.ZRANGE", "r", 0, -1, "WITHSCORES")
            checks.expect(c.type("r") in (b"zsetmod--",), "a restored flip is a module key")
            checks.expect(len(items) % 2 == 0, "a restored flip is a whole set")
        elif "Bad data format" not in out and "checksum" not in out:
            checks.expect(False, "flip at %d: unexpected error %r" % (i, out))
    # the module id holds the encoding version in its low 10 bits: version 2 is newer
    module_id = struct.unpack(">Q", body[2:10])[0]
    newer = body[:2] + struct.pack(">Q", (module_id & ~0x3FF) | 2) + body[10:]
    checks.expect("Bad data format" in try_restore(c, "r", with_crc(newer)),
                  "a newer encoding version is refused")
    checks.expect("checksum" in try_restore(c, "r", body + b"\0" * 8), "a wrong checksum")
    future = body[:-2] + struct.pack("<H", 99)
    checks.expect("checksum" in try_restore(c, "r", with_crc(future)), "an unknown RDB version")
    checks.equal(c.exists("r"), 0, "no key is left by a failed RESTORE")


def check_types(checks, c):
    c.set("str", "x")
    c.rpush("list", "a")
    c.hset("hash", "f", "v")
    c.zadd("native", {"a": 1, "b": 2})
    c.sadd("plain", "a", "c")
    wt = "WRONGTYPE"
    for cmd in (["ZSET.ZADD", "str", 1, "a"], ["ZSET.ZSCORE", "list", "a"], ["ZSET.ZCARD", "hash"],
                ["ZSET.ZRANGE", "native", 0, -1], ["ZSET.ZPOPMIN", "plain"],
                ["ZSET.ZUNION", 2, "mod", "str"], ["ZSET.ZINTERSTORE", "d", 2, "mod", "list"],
                ["ZSET.IMPORT", "plain"], ["ZSET.EXPORT", "str"], ["ZSET.BZPOPMIN", "hash", 0]):
        checks.raises(lambda: c.execute_command(*cmd), wt, " ".join(map(str, cmd)))
    checks.equal(c.execute_command("ZSET.ZUNION", 3, "mod", "native", "plain", "WITHSCORES"),
                 [b"c", b"1", b"b", b"2", b"a", b"3", b"m", b"5"],
                 "ZSET.ZUNION over module, native and plain sets")
    checks.raises(lambda: c.execute_command("ZSET.IMPORT", "nokey"), "no such key", "IMPORT missing")


def check_counts(checks, c):
    big = 2 ** 63 - 1
    checks.raises(lambda: c.execute_command("ZSET.ZRANDMEMBER", "mod", -big), "out of range",
                  "ZRANDMEMBER with a huge negative count")
    checks.raises(lambda: c.execute_command("ZSET.ZRANDMEMBER", "mod", -big, "WITHSCORES"),
                  "out of range", "ZRANDMEMBER WITHSCORES")
    checks.equal(len(c.execute_command("ZSET.ZRANDMEMBER", "mod", big)), 2, "ZRANDMEMBER huge count")
    checks.equal(c.execute_command("ZSET.ZRANGE", "mod", 0, big), [b"a", b"m"], "ZRANGE 0 2^63-1")
    checks.equal(c.execute_command("ZSET.ZRANGEBYSCORE", "mod", "-inf", "+inf", "LIMIT", big, big),
                 [], "LIMIT huge offset")
    checks.raises(lambda: c.execute_command("ZSET.ZUNIONSTORE", "d", big, "mod"), "syntax",
                  "ZUNIONSTORE with a huge numkeys")
    checks.raises(lambda: c.execute_command("ZSET.ZMPOP", 2 ** 31, "mod", "MIN"), "syntax",
                  "ZMPOP with a huge numkeys")
    checks.raises(lambda: c.execute_command("ZSET.ZADD", "mod", "nan", "x"), "not a valid float",
                  "ZADD NaN")
    c.execute_command("ZSET.ZADD", "infinite", "inf", "x")
    checks.raises(lambda: c.execute_command("ZSET.ZINCRBY", "infinite", "-inf", "x"), "NaN",
                  "ZINCRBY inf + -inf")
    checks.equal(c.execute_command("ZSET.ZSCORE", "infinite", "x"), b"inf", "unchanged by the NaN")
    checks.equal(c.execute_command("ZSET.ZPOPMIN", "mod", big),
                 [b"a", b"1", b"m", b"5"], "ZPOPMIN with a huge count empties the key")
    checks.equal(c.exists("mod"), 0, "an emptied key is deleted")


def main():
    args = support.arguments()
    checks = support.Checks("module bad input")
    with support.servers() as make:
        s = make(args.redis_server, args.module).start()
        c = s.client()
        keep = support.write_stream(c, seed=31, count=1000)
        kept = support.snapshot(c, keep)
        c.execute_command("ZSET.ZADD", "small", 1, "a", 2.5, "bb", -3, "ccc")
        check_payloads(checks, c, c.dump("small"))
        c.execute_command("ZSET.ZADD", "mod", 1, "a", 5, "m")
        check_types(checks, c)
        check_counts(checks, c)
        checks.expect(s.alive(), "the server is still running")
        checks.equal(support.snapshot(c, keep), kept, "every other key is as it was")
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
