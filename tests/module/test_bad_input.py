#!/usr/bin/env python3
"""Bad input to the module gets a clear error, the server keeps running and nothing is lost.

  * RESTORE of damaged DUMP payloads of a module key: every truncation and a sample of byte
    flips (with the checksum recomputed, so the payload reaches the type's rdb_load), a newer
    encoding version of the type, the checksum left wrong, an unknown RDB version: each is an
    error (or, for a flip the format cannot see, a valid set), never a crash or a half-built key;
  * crafted payloads in the type's own encoding (built from a real DUMP's header): a member
    twice, a NaN score, counts that disagree with the elements, an unknown encoding flag, a
    string cut short, an empty set: each `ERR Bad data format`, no key made and none replaced;
    a listpack-mode payload past the server's thresholds loads converted, as Redis loads its own;
  * an RDB file holding a module value with a member twice: the server refuses to load it and
    says why in its log (a valid crafted file loads);
  * a seeded campaign of damaged DUMPs of a listpack-mode and a skiplist-mode key (truncations,
    1-4 bytes changed, checksum recomputed): every payload RESTORE accepts is a consistent set
    (ZCARD = distinct members listed, ZSCORE = listed score, ascending order);
  * wrong types: ZSET.* on strings, lists, hashes and native keys where Redis gives WRONGTYPE;
    plain sets and native sorted sets accepted where Redis accepts them (set operations);
  * huge counts and ranges: the same replies or errors as Redis, the server alive;
and afterwards every other key is as it was.
"""

import os
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


# The type's RDB encoding (module/type.hpp) inside a DUMP payload: the RDB type and module
# id, then opcode-tagged values (RDB_MODULE_OPCODE_UINT 2, DOUBLE 4, STRING 5), the EOF opcode 0,
# the 2-byte RDB version and the CRC64.
_UINT, _DOUBLE, _STRING, _EOF = 2, 4, 5, 0


def rdb_len(n):
    """Redis's length encoding (rdbSaveLen)."""
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def module_payload(head, version, elements, packed, count=None, tail=None, flag=None):
    """A payload of the type's encoding: `head` (RDB type and module id) and `version` (the RDB
    version bytes) from a real DUMP, then `elements` [(member bytes, score)]. `count`, `tail`
    (the count written before and after the elements) and `flag` (the encoding) default to the
    consistent values."""
    n = len(elements)
    out = bytearray(head)
    out += bytes([_UINT]) + rdb_len(n if count is None else count)
    out += bytes([_UINT]) + rdb_len((1 if packed else 0) if flag is None else flag)
    for member, score in elements:
        out += bytes([_STRING]) + rdb_len(len(member)) + member
        out += bytes([_DOUBLE]) + struct.pack("<d", score)
    out += bytes([_UINT]) + rdb_len(n if tail is None else tail) + bytes([_EOF])
    return with_crc(bytes(out) + version)


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


def refused(checks, c, payload, what):
    """RESTORE of `payload` is `ERR Bad data format`; no key is made, and a key already there
    stays as it was (RESTORE ... REPLACE)."""
    out = try_restore(c, "r", payload)
    checks.expect("Bad data format" in out, "%s: RESTORE answered %r" % (what, out))
    checks.equal(c.exists("r"), 0, "%s: no key is left" % what)
    c.delete("kept")
    c.execute_command("ZSET.ZADD", "kept", 1, "x", 2, "y")
    try:
        c.restore("kept", 0, payload, replace=True)
        checks.expect(False, "%s: RESTORE REPLACE accepted it" % what)
    except support.redis.exceptions.ResponseError:
        pass
    got = c.execute_command("ZSET.ZRANGE", "kept", 0, -1, "WITHSCORES")
    checks.expect(got == [b"x", b"1", b"y", b"2"],
                  "%s: the key RESTORE REPLACE named changed (%d items)" % (what, len(got) // 2))


def check_crafted(checks, c):
    c.execute_command("ZSET.ZADD", "model", 1, "a", 2, "bb", 3, "ccc")
    real = c.dump("model")
    head, version = real[:10], real[-10:-8]
    els = [(b"a", 1.0), (b"bb", 2.0), (b"ccc", 3.0)]
    checks.equal(module_payload(head, version, els, packed=True), real,
                 "the payload encoder writes what DUMP writes")
    checks.equal(try_restore(c, "r", module_payload(head, version, els, packed=False)), "ok",
                 "a skiplist-mode payload of a small set restores")
    # a member twice: at a higher score (each element in order after the one before it), and
    # in a payload too large for listpack mode, the copies far apart
    twice = module_payload(head, version, els + [(b"a", 4.0)], packed=True)
    for sanitize in ("yes", "clients", "no"):  # the module checks whatever Redis's config says
        c.config_set("sanitize-dump-payload", sanitize)
        refused(checks, c, twice, "a member twice (listpack mode, sanitize-dump-payload %s)" %
                sanitize)
    c.delete("r")
    checks.raises(lambda: c.execute_command("ZSET.RESTORE", "r", 0, twice), "Bad data format",
                  "ZSET.RESTORE of a member twice")
    checks.equal(c.exists("r"), 0, "ZSET.RESTORE of a member twice: no key is left")
    big = [(b"member:%04d" % i, float(i)) for i in range(300)]
    refused(checks, c, module_payload(head, version, big + [(b"member:0007", 400.0)], packed=False),
            "a member twice (skiplist mode)")
    refused(checks, c, module_payload(head, version, [(b"a", 1.0), (b"a", 1.0)], packed=True),
            "one element twice")
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000))[0]
    refused(checks, c, module_payload(head, version, [(b"a", 1.0), (b"b", nan)], packed=True),
            "a NaN score")
    refused(checks, c, module_payload(head, version, [(b"b", 2.0), (b"a", 1.0)], packed=True),
            "elements out of order")
    refused(checks, c, module_payload(head, version, els, packed=True, count=4),
            "a count above the elements")
    refused(checks, c, module_payload(head, version, els, packed=True, count=2),
            "a count below the elements")
    refused(checks, c, module_payload(head, version, els, packed=True, tail=2),
            "the closing count differs")
    refused(checks, c, module_payload(head, version, els, packed=True, count=2 ** 40, tail=2 ** 40),
            "a huge count")
    refused(checks, c, module_payload(head, version, els, packed=True, flag=2),
            "an unknown encoding flag")
    # an empty set: Redis keeps no empty key, and the commands rely on that
    refused(checks, c, module_payload(head, version, [], packed=True), "an empty set")
    cut = module_payload(head, version, els, packed=True)[:-10]
    cut = cut.replace(b"\x05\x03ccc", b"\x05\x09ccc")  # a member longer than its bytes
    refused(checks, c, with_crc(cut + version), "a member length past the payload")
    # -0.0 and 0.0 are one score: both members kept, in member order
    zeros = [(b"a", -0.0), (b"b", 0.0)]
    checks.equal(try_restore(c, "r", module_payload(head, version, zeros, packed=True)), "ok",
                 "scores -0 and 0")
    checks.equal(c.execute_command("ZSET.ZCARD", "r"), 2, "scores -0 and 0: both members")
    # a listpack-mode payload past the thresholds loads in skiplist mode (as Redis loads its
    # own: a replica with smaller zset-max-listpack-* must load its master's data)
    checks.equal(try_restore(c, "r", module_payload(head, version, big, packed=True)), "ok",
                 "a listpack-mode payload past zset-max-listpack-entries")
    checks.equal(c.execute_command("ZSET.OBJECT", "ENCODING", "r"), b"skiplist",
                 "a listpack-mode payload past the thresholds is converted")
    checks.equal(c.execute_command("ZSET.ZCARD", "r"), 300, "converted: every member")
    c.delete("r", "kept", "model")
    return head, version


def rdb_file(payload, key):
    """An RDB file (version 10) holding one key whose value is a DUMP `payload`'s."""
    body = payload[:-10]  # the RDB type, the module id and the value (with its EOF opcode)
    out = b"REDIS0010" + b"\xfe\x00" + body[:1] + rdb_len(len(key)) + key + body[1:] + b"\xff"
    return out + struct.pack("<Q", crc64(out))


def check_rdb_file(checks, make, args, head, version):
    """The RDB file path: a server starting from a file with a valid module value loads it; one
    from a file whose module value holds a member twice refuses the file (Redis's handling of a
    damaged RDB file: it logs why and exits) and names the cause in its log."""
    els = [(b"a", 1.0), (b"bb", 2.0), (b"ccc", 3.0)]
    good = make(args.redis_server, args.module)
    with open(os.path.join(good.dir, "dump.rdb"), "wb") as f:
        f.write(rdb_file(module_payload(head, version, els, packed=True), b"k"))
    good.start()
    checks.equal(good.client().execute_command("ZSET.ZRANGE", "k", 0, -1, "WITHSCORES"),
                 [b"a", b"1", b"bb", b"2", b"ccc", b"3"], "a crafted RDB file loads")
    good.stop()
    bad = make(args.redis_server, args.module)
    with open(os.path.join(bad.dir, "dump.rdb"), "wb") as f:
        f.write(rdb_file(module_payload(head, version, els + [(b"a", 4.0)], packed=True), b"k"))
    try:
        bad.start()
        checks.expect(False, "a server loaded an RDB file holding a member twice")
    except RuntimeError:
        log = bad.log_tail(200)
        checks.expect("payload is refused: a member twice" in log,
                      "an RDB file holding a member twice: the log names the cause")


def consistent(c, key):
    """'' when `key` holds a consistent set (ZCARD = distinct members listed, each ZSCORE the
    listed score, ascending (score, member) order, a module key), else what is wrong."""
    if c.type(key) != b"zsetmod--":
        return "type %r" % c.type(key)
    items = c.execute_command("ZSET.ZRANGE", key, 0, -1, "WITHSCORES")
    members, scores = items[0::2], [float(x) for x in items[1::2]]
    card = c.execute_command("ZSET.ZCARD", key)
    if card != len(set(members)) or card != len(members):
        return "ZCARD %d, %d listed, %d distinct" % (card, len(members), len(set(members)))
    pipe = c.pipeline(transaction=False)
    for m in members:
        pipe.execute_command("ZSET.ZSCORE", key, m)
    for m, s, got in zip(members, scores, pipe.execute()):
        if got is None or float(got) != s:
            return "ZSCORE %r is %r, listed %r" % (m, got, s)
    for i in range(1, len(members)):
        if (scores[i - 1], members[i - 1]) >= (scores[i], members[i]):
            return "out of order at %d" % i
    return ""


def campaign(checks, c, key, rnd, counts):
    """150 truncations and 300 payloads with 1-4 bytes changed of `key`'s DUMP (checksum
    recomputed): each refused with `ERR Bad data format`, or restored as a consistent set."""
    body = c.dump(key)[:-8]
    variants = []  # (payload without its checksum, what was done to it)
    for k in range(150):
        cut = 1 + k * (len(body) - 3) // 150
        variants.append((body[:cut] + body[-2:], "cut at %d" % cut))
    for _ in range(300):
        b = bytearray(body)
        changes = []
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randrange(1, len(b) - 2)
            # a digit makes one numbered member another (a duplicate); any byte elsewhere
            b[i] = rnd.choice(b"0123456789") if rnd.random() < 0.5 else rnd.randrange(256)
            changes.append("[%d]=0x%02x" % (i, b[i]))
        variants.append((bytes(b), " ".join(changes)))
    for v, what in variants:
        out = try_restore(c, "r", with_crc(v))
        if out != "ok":
            counts["rejected"] += 1
            checks.expect("Bad data format" in out,
                          "%s, %s: unexpected error %r" % (key, what, out))
            checks.expect(c.exists("r") == 0, "%s, %s: a refused payload left a key" % (key, what))
            continue
        counts["accepted"] += 1
        wrong = consistent(c, "r")
        if wrong:
            counts["inconsistent"] += 1
            checks.expect(False, "%s, %s: restored an inconsistent set: %s" % (key, what, wrong))
    c.delete("r")


def check_campaign(checks, make, args):
    """A server whose thresholds keep 300 members in listpack mode: one key in listpack mode,
    one (a member past zset-max-listpack-value) in skiplist mode."""
    s = make(args.redis_server, args.module, args=["--zset-max-listpack-entries", "512"]).start()
    c = s.client()
    rnd = random.Random(65)
    order = list(range(300))
    rnd.shuffle(order)
    for key, long_member in (("lp", False), ("sk", True)):
        pairs = []
        for i, m in enumerate(order):
            pairs += [(i - 150) / 4.0, "m%03d" % m]
        if long_member:
            pairs += [1000, "x" * 80]
        c.execute_command("ZSET.ZADD", key, *pairs)
    checks.equal(c.execute_command("ZSET.OBJECT", "ENCODING", "lp"), b"listpack", "lp's encoding")
    checks.equal(c.execute_command("ZSET.OBJECT", "ENCODING", "sk"), b"skiplist", "sk's encoding")
    counts = {"accepted": 0, "rejected": 0, "inconsistent": 0}
    for key in ("lp", "sk"):
        campaign(checks, c, key, rnd, counts)
    print("campaign: %d variants, %d accepted, %d rejected, %d inconsistent" %
          (counts["accepted"] + counts["rejected"], counts["accepted"], counts["rejected"],
           counts["inconsistent"]))
    checks.expect(c.ping(), "the campaign's server answers PING")
    checks.expect(s.alive(), "the campaign's server is still running")


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
        head, version = check_crafted(checks, c)
        c.execute_command("ZSET.ZADD", "mod", 1, "a", 5, "m")
        check_types(checks, c)
        check_counts(checks, c)
        checks.expect(s.alive(), "the server is still running")
        checks.equal(support.snapshot(c, keep), kept, "every other key is as it was")
        check_campaign(checks, make, args)
        check_rdb_file(checks, make, args, head, version)
    return checks.exit_code()


if __name__ == "__main__":
    sys.exit(main())
