// Plain sets (Redis SET) in zset::redis::keyspace: SADD / SREM / SMEMBERS / SCARD / SISMEMBER,
// their encodings and thresholds, CONFIG, DUMP / RESTORE / DEBUG RELOAD, and plain sets as inputs
// of the set operations. Encodings are Redis 7.2's, written from its t_set.c, rdb.c and
// tests/unit/type/set.tcl (Debian's redis-server is 7.0, which has no listpack sets to compare
// with); replies the two versions share are redis-server 7.0.15's (tests/differential compares
// them live, with --set-encodings 7.0), and so is every payload marked "captured".
// One translation unit on purpose: each that includes the keyspace compiles all its handlers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "redis_test_support.hpp"
#include "test_support.hpp"
#include "zset_catch.hpp"

using namespace redis_test;

namespace {

using zset_test::unhex;

/// The encoding OBJECT ENCODING reports for `key`.
std::string set_encoding(server& srv, zr::session& c, const std::string& key) {
    zr::reply r;
    srv.ks.execute(std::vector<std::string>{"OBJECT", "ENCODING", key}, c, r);
    return r.text();
}

/// SMEMBERS as a list of members, in reply order.
std::vector<std::string> members_of(server& srv, zr::session& c, const std::string& key) {
    zr::reply r;
    srv.ks.execute(std::vector<std::string>{"SMEMBERS", key}, c, r);
    std::vector<std::string> out;
    for (const zr::reply& e : r.elements()) out.push_back(e.text());
    return out;
}

/// "SADD key first..last" as decimal integers, one command (`one_call`) or one per member.
void sadd_range(server& srv, zr::session& c, const std::string& key, int first, int last,
                bool one_call) {
    std::vector<std::string> argv{"SADD", key};
    for (int i = first; i <= last; ++i) {
        if (!one_call) argv.resize(2);
        argv.push_back(std::to_string(i));
        if (!one_call) srv.run(c, argv);
    }
    if (one_call) srv.run(c, argv);
}

}  // namespace

TEST_CASE("plain sets: commands, encodings, WRONGTYPE", "[redis][set]") {
    server srv;
    auto& c = srv.client();
    CHECK(srv.run(c, {"SADD", "s", "3", "1", "-2", "1"}) == integer(3));
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "s"}) == bulk("intset"));
    CHECK(srv.run(c, {"SMEMBERS", "s"}) == "*3\r\n$2\r\n-2\r\n$1\r\n1\r\n$1\r\n3\r\n");
    CHECK(srv.run(c, {"SCARD", "s"}) == integer(3));
    CHECK(srv.run(c, {"SISMEMBER", "s", "1"}) == integer(1));
    CHECK(srv.run(c, {"SISMEMBER", "s", "01"}) == integer(0));
    CHECK(srv.run(c, {"SADD", "s", "007"}) == integer(1));  // not canonical: a string
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "s"}) == bulk("listpack"));
    CHECK(srv.run(c, {"SREM", "s", "007", "x"}) == integer(1));
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "s"}) == bulk("listpack"));  // never back
    CHECK(srv.run(c, {"SREM", "s", "3", "1", "-2", "more"}) == integer(3));
    CHECK(srv.run(c, {"EXISTS", "s"}) == integer(0));  // emptied: deleted
    CHECK(srv.run(c, {"TYPE", "nope"}) == "+none\r\n");
    CHECK(srv.run(c, {"SMEMBERS", "nope"}) == "*0\r\n");
    // set-max-intset-entries.
    CHECK(srv.run(c, {"CONFIG", "SET", "set-max-intset-entries", "2"}) == ok);
    srv.run(c, {"SADD", "n", "1", "2"});
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "n"}) == bulk("intset"));
    srv.run(c, {"SADD", "n", "3"});
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "n"}) == bulk("hashtable"));
    // WRONGTYPE both ways.
    const std::string wrong =
        error("WRONGTYPE Operation against a key holding the wrong kind of value");
    srv.run(c, {"ZADD", "z", "1", "a"});
    CHECK(srv.run(c, {"SADD", "z", "x"}) == wrong);
    CHECK(srv.run(c, {"SCARD", "z"}) == wrong);
    CHECK(srv.run(c, {"SMEMBERS", "z"}) == wrong);
    CHECK(srv.run(c, {"ZADD", "n", "1", "x"}) == wrong);
    CHECK(srv.run(c, {"ZRANGE", "n", "0", "-1"}) == wrong);
    CHECK(srv.run(c, {"TYPE", "n"}) == "+set\r\n");
    srv.run(c, {"SET", "str", "v"});
    CHECK(srv.run(c, {"ZUNION", "2", "z", "str"}) == wrong);
    CHECK(srv.run(c, {"SISMEMBER", "str", "v"}) == wrong);
    // RESP3 replies a set type.
    auto& c3 = srv.client();
    srv.run(c3, {"HELLO", "3"});
    CHECK(srv.run(c3, {"SMEMBERS", "n"}).substr(0, 4) == "~3\r\n");
}

TEST_CASE("plain sets: intset, listpack and hashtable as Redis 7.2 converts them", "[redis][set]") {
    server srv;
    auto& c = srv.client();
    // An intset that gets a non-integer becomes a listpack when it fits: its integers ascending,
    // then the new members in insertion order (SMEMBERS lists a listpack in its order).
    srv.run(c, {"SADD", "small", "3", "1", "2"});
    CHECK(set_encoding(srv, c, "small") == "intset");
    CHECK(srv.run(c, {"SADD", "small", "b", "a"}) == integer(2));
    CHECK(set_encoding(srv, c, "small") == "listpack");
    CHECK(members_of(srv, c, "small") == std::vector<std::string>{"1", "2", "3", "b", "a"});
    srv.run(c, {"SREM", "small", "2"});
    srv.run(c, {"SADD", "small", "2"});  // deletion keeps the order, an addition goes last
    CHECK(members_of(srv, c, "small") == std::vector<std::string>{"1", "3", "b", "a", "2"});
    // ... and a hashtable when it has set-max-listpack-entries (128) members already.
    sadd_range(srv, c, "large", 0, 129, false);
    CHECK(set_encoding(srv, c, "large") == "intset");
    CHECK(srv.run(c, {"SADD", "large", "a"}) == integer(1));
    CHECK(set_encoding(srv, c, "large") == "hashtable");
    // A new set of a non-integer (an integer beyond 64 bits is one) is a listpack.
    srv.run(c, {"SADD", "huge", "213244124402402314402033402"});
    CHECK(set_encoding(srv, c, "huge") == "listpack");
    CHECK(srv.run(c, {"SISMEMBER", "huge", "213244124402402314402033402"}) == integer(1));
    // A member longer than set-max-listpack-value (64): a hashtable, at creation or later.
    const std::string m64(64, 'm'), m65(65, 'm');
    srv.run(c, {"SADD", "v64", m64});
    CHECK(set_encoding(srv, c, "v64") == "listpack");
    srv.run(c, {"SADD", "v64", m65});
    CHECK(set_encoding(srv, c, "v64") == "hashtable");
    srv.run(c, {"SADD", "v65", m65});
    CHECK(set_encoding(srv, c, "v65") == "hashtable");
    srv.run(c, {"SADD", "iv", "1", "2"});
    srv.run(c, {"SADD", "iv", m65});
    CHECK(set_encoding(srv, c, "iv") == "hashtable");
    // Never back: emptied down to one small member, a hashtable stays one.
    for (int i = 0; i <= 129; ++i) srv.run(c, {"SREM", "large", std::to_string(i)});
    CHECK(srv.run(c, {"SCARD", "large"}) == integer(1));
    CHECK(set_encoding(srv, c, "large") == "hashtable");
}

TEST_CASE("plain sets: the thresholds, one member or many at a time", "[redis][set]") {
    // Redis 7.2's set.tcl: "SADD overflows the maximum allowed integers in an intset" and "...
    // elements in a listpack", each for single, multiple and single-then-multiple SADDs.
    for (const int style : {0, 1, 2}) {
        server srv;
        auto& c = srv.client();
        if (style == 2) srv.run(c, {"SADD", "ints", "1"});
        sadd_range(srv, c, "ints", 0, 511, style != 0);
        CHECK(set_encoding(srv, c, "ints") == "intset");
        CHECK(srv.run(c, {"SCARD", "ints"}) == integer(512));
        CHECK(srv.run(c, {"SADD", "ints", "512"}) == integer(1));
        CHECK(set_encoding(srv, c, "ints") == "hashtable");

        srv.run(c, {"SADD", "mixed", "a"});
        if (style == 0) {
            sadd_range(srv, c, "mixed", 0, 126, false);
        } else {
            std::vector<std::string> argv{"SADD", "mixed", "a"};
            for (int i = 0; i <= 126; ++i) argv.push_back(std::to_string(i));
            if (style == 1) srv.run(c, {"DEL", "mixed"});
            srv.run(c, argv);
        }
        CHECK(set_encoding(srv, c, "mixed") == "listpack");
        CHECK(srv.run(c, {"SCARD", "mixed"}) == integer(128));
        CHECK(srv.run(c, {"SADD", "mixed", "b"}) == integer(1));
        CHECK(set_encoding(srv, c, "mixed") == "hashtable");
    }
    // SADD's argument count sizes the set before it adds (setTypeCreate / setTypeMaybeConvert):
    // repeated or present members count too.
    server srv;
    auto& c = srv.client();
    srv.run(c, {"CONFIG", "SET", "set-max-intset-entries", "2"});
    CHECK(srv.run(c, {"SADD", "hint", "1", "1", "1"}) == integer(1));
    CHECK(set_encoding(srv, c, "hint") == "listpack");
    srv.run(c, {"SADD", "grown", "1"});
    CHECK(set_encoding(srv, c, "grown") == "intset");
    CHECK(srv.run(c, {"SADD", "grown", "1", "1", "2"}) == integer(1));
    CHECK(set_encoding(srv, c, "grown") == "hashtable");
    srv.run(c, {"CONFIG", "SET", "set-max-listpack-entries", "2"});
    srv.run(c, {"SADD", "lp", "a"});
    CHECK(srv.run(c, {"SADD", "lp", "a", "a", "a"}) == integer(0));
    CHECK(set_encoding(srv, c, "lp") == "hashtable");
    // An intset converts to a listpack only when its longest integer fits set-max-listpack-value.
    srv.run(c, {"CONFIG", "SET", "set-max-intset-entries", "512", "set-max-listpack-entries", "128",
                "set-max-listpack-value", "3"});
    srv.run(c, {"SADD", "wide", "1", "-10"});
    srv.run(c, {"SADD", "wide", "x"});
    CHECK(set_encoding(srv, c, "wide") == "listpack");
    srv.run(c, {"SADD", "wider", "1", "-100"});
    srv.run(c, {"SADD", "wider", "x"});
    CHECK(set_encoding(srv, c, "wider") == "hashtable");
    // 0 entries: no intset, no listpack.
    srv.run(c, {"CONFIG", "SET", "set-max-intset-entries", "0", "set-max-listpack-entries", "0"});
    srv.run(c, {"SADD", "none", "1", "2", "3"});
    CHECK(set_encoding(srv, c, "none") == "hashtable");
}

TEST_CASE("plain sets: CONFIG GET and SET of the set thresholds", "[redis][set][config]") {
    server srv;
    auto& c = srv.client();
    zr::reply r;
    srv.ks.execute(std::vector<std::string>{"CONFIG", "GET", "set-max-*"}, c, r);
    CHECK(r == zr::reply::map({zr::reply::bulk("set-max-intset-entries"), zr::reply::bulk("512"),
                               zr::reply::bulk("set-max-listpack-entries"), zr::reply::bulk("128"),
                               zr::reply::bulk("set-max-listpack-value"), zr::reply::bulk("64")}));
    CHECK(srv.run(c, {"CONFIG", "SET", "SET-MAX-LISTPACK-ENTRIES", "7", "set-max-listpack-value",
                      "9"}) == ok);
    CHECK(srv.run(c, {"CONFIG", "GET", "set-max-listpack-entries"}) ==
          "*2\r\n" + bulk("set-max-listpack-entries") + bulk("7"));
    CHECK(srv.ks.options().set_max_listpack_value == 9);
    // Integers (not memory values, unlike zset-max-listpack-value), 0..LONG_MAX.
    CHECK(srv.run(c, {"CONFIG", "SET", "set-max-listpack-value", "1kb"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'set-max-listpack-value') - "
                "argument couldn't be parsed into an integer"));
    CHECK(srv.run(c, {"CONFIG", "SET", "set-max-listpack-entries", "-1"}) ==
          error("ERR CONFIG SET failed (possibly related to argument 'set-max-listpack-entries') "
                "- argument must be between 0 and 9223372036854775807 inclusive"));
    CHECK(srv.ks.options().set_max_listpack_entries == 7);
}

TEST_CASE("plain sets: Redis 7.0's encodings on request", "[redis][set]") {
    zr::keyspace_options o;
    o.set_encodings = zr::set_encoding_rules::redis_7_0;
    server srv(o);
    auto& c = srv.client();
    srv.run(c, {"SADD", "s", "1", "2", "3"});
    srv.run(c, {"SADD", "s", "a"});
    CHECK(set_encoding(srv, c, "s") == "hashtable");
    srv.run(c, {"SADD", "t", "a"});
    CHECK(set_encoding(srv, c, "t") == "hashtable");
    srv.run(c, {"CONFIG", "SET", "set-max-intset-entries", "2"});
    srv.run(c, {"SADD", "hint", "1", "1", "1"});  // no size hint in 7.0
    CHECK(set_encoding(srv, c, "hint") == "intset");
    srv.run(c, {"SADD", "hint", "2", "2", "2"});
    CHECK(set_encoding(srv, c, "hint") == "intset");
    srv.run(c, {"SADD", "hint", "3"});
    CHECK(set_encoding(srv, c, "hint") == "hashtable");
}

TEST_CASE("plain sets are inputs of the set operations, each member scoring 1", "[redis][set]") {
    server srv;
    auto& c = srv.client();
    srv.run(c, {"SADD", "st", "a", "b"});
    srv.run(c, {"ZADD", "s", "1", "a"});
    CHECK(srv.run(c, {"ZUNIONSTORE", "d", "2", "s", "st", "WEIGHTS", "2", "3"}) == integer(2));
    CHECK(srv.run(c, {"ZRANGE", "d", "0", "-1", "WITHSCORES"}) ==
          "*4\r\n$1\r\nb\r\n$1\r\n3\r\n$1\r\na\r\n$1\r\n5\r\n");
    CHECK(srv.run(c, {"ZINTER", "2", "st", "s", "WITHSCORES"}) == "*2\r\n$1\r\na\r\n$1\r\n2\r\n");
    CHECK(srv.run(c, {"ZDIFF", "2", "st", "s", "WITHSCORES"}) == "*2\r\n$1\r\nb\r\n$1\r\n1\r\n");
    CHECK(srv.run(c, {"ZINTERCARD", "2", "st", "s"}) == integer(1));
    CHECK(srv.run(c, {"ZUNION", "1", "st", "AGGREGATE", "MAX"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    CHECK(srv.run(c, {"ZDIFFSTORE", "d2", "1", "st"}) == integer(2));
    CHECK(srv.run(c, {"TYPE", "d2"}) == "+zset\r\n");
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "d2"}) == bulk("listpack"));
    // Every encoding of a plain set reads the same.
    srv.run(c, {"SADD", "si", "1", "2"});
    srv.run(c, {"CONFIG", "SET", "set-max-listpack-entries", "0"});
    srv.run(c, {"SADD", "sh", "2", "x"});
    CHECK(set_encoding(srv, c, "st") == "listpack");
    CHECK(set_encoding(srv, c, "si") == "intset");
    CHECK(set_encoding(srv, c, "sh") == "hashtable");
    CHECK(srv.run(c, {"ZUNION", "3", "st", "si", "sh", "WITHSCORES"}) ==
          "*10\r\n" + bulk("1") + bulk("1") + bulk("a") + bulk("1") + bulk("b") + bulk("1") +
              bulk("x") + bulk("1") + bulk("2") + bulk("2"));
}

TEST_CASE("plain sets and strings through DUMP / RESTORE", "[redis][set][restore]") {
    server srv;
    auto& c = srv.client();
    // Captured from redis-server 7.0.15: SADD si 3 1 -2; SADD sh a b 10; SET str hello;
    // SET num 12345.
    const std::string si = unhex("0b0e0200000003000000feff010003000a001b18460ee16f04bb");
    const std::string sh = unhex("0203c00a016101620a00f420e4b4be4916fc");
    const std::string str = unhex("000568656c6c6f0a006372df766534200a");
    const std::string num = unhex("00c139300a009d94ea2793fc08b9");
    CHECK(srv.run(c, {"RESTORE", "si", "0", si}) == ok);
    CHECK(srv.run(c, {"RESTORE", "sh", "0", sh}) == ok);
    CHECK(srv.run(c, {"RESTORE", "str", "0", str}) == ok);
    CHECK(srv.run(c, {"RESTORE", "num", "0", num}) == ok);
    CHECK(srv.run(c, {"SMEMBERS", "si"}) == "*3\r\n$2\r\n-2\r\n$1\r\n1\r\n$1\r\n3\r\n");
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "si"}) == bulk("intset"));
    CHECK(srv.run(c, {"SCARD", "sh"}) == integer(3));
    // A plain SET payload loads as SADD would build it: 10 (an intset), then a, b (a listpack).
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "sh"}) == bulk("listpack"));
    CHECK(members_of(srv, c, "sh") == std::vector<std::string>{"10", "a", "b"});
    CHECK(srv.run(c, {"GET", "str"}) == bulk("hello"));
    CHECK(srv.run(c, {"GET", "num"}) == bulk("12345"));
    // An intset is written exactly as Redis writes it; the others read back.
    CHECK(srv.run(c, {"DUMP", "si"}) == bulk(si));
    CHECK(srv.run(c, {"DUMP", "str"}) == bulk(str));
    CHECK(srv.run(c, {"DUMP", "num"}) == bulk(num));
    zset::redis::reply p;
    srv.ks.execute(std::vector<std::string>{"DUMP", "sh"}, c, p);
    CHECK(srv.run(c, {"RESTORE", "sh2", "0", p.text()}) == ok);
    CHECK(srv.run(c, {"SISMEMBER", "sh2", "10"}) == integer(1));
    CHECK(srv.run(c, {"OBJECT", "ENCODING", "sh2"}) == bulk("listpack"));
    // A corrupt set payload (a duplicate member, with a valid footer) is refused.
    std::string payload = unhex("020201610161") + std::string("\x0a\x00", 2);  // SET: a, a
    const std::uint64_t crc = zset::rdb::crc64(payload);
    for (int i = 0; i < 8; ++i) payload += static_cast<char>((crc >> (8 * i)) & 0xFF);
    CHECK(srv.run(c, {"RESTORE", "bad", "0", payload}) == error("ERR Bad data format"));
    payload.back() = static_cast<char>(payload.back() ^ 1);
    CHECK(srv.run(c, {"RESTORE", "bad", "0", payload}) ==
          error("ERR DUMP payload version or checksum are wrong"));
}

TEST_CASE("plain sets: a listpack set's DUMP payload and the loading rules",
          "[redis][set][restore]") {
    server srv;
    auto& c = srv.client();
    srv.run(c, {"SADD", "lp", "b", "300", "a"});
    REQUIRE(set_encoding(srv, c, "lp") == "listpack");
    zr::reply p;
    srv.ks.execute(std::vector<std::string>{"DUMP", "lp"}, c, p);
    const std::string& payload = p.text();
    // RDB_TYPE_SET_LISTPACK (20) at RDB version 11, as Redis 7.2 writes it: one RDB string
    // holding a 16-byte listpack (header, b, 300 as a 13-bit integer, a, end).
    REQUIRE(payload.size() == 1 + 1 + 16 + 2 + 8);
    CHECK(payload.substr(0, 18) == unhex("1410"
                                         "10000000"
                                         "0300"
                                         "816202"
                                         "c12c02"
                                         "816102"
                                         "ff"));
    CHECK(payload.substr(18, 2) == unhex("0b00"));
    CHECK(srv.run(c, {"RESTORE", "lp2", "0", payload}) == ok);
    CHECK(set_encoding(srv, c, "lp2") == "listpack");
    CHECK(members_of(srv, c, "lp2") == std::vector<std::string>{"b", "300", "a"});
    // A listpack payload stays a listpack up to set-max-listpack-entries members.
    srv.run(c, {"CONFIG", "SET", "set-max-listpack-entries", "2"});
    CHECK(srv.run(c, {"RESTORE", "lp3", "0", payload}) == ok);
    CHECK(set_encoding(srv, c, "lp3") == "hashtable");
    srv.run(c, {"CONFIG", "SET", "set-max-listpack-entries", "128"});
    // Redis 7.2's set.tcl "Set encoding after DEBUG RELOAD".
    zr::keyspace_options o;
    o.enable_debug_command = zr::debug_access::yes;
    server rel(o);
    auto& d = rel.client();
    sadd_range(rel, d, "myintset", 0, 99, true);
    sadd_range(rel, d, "mylargeintset", 0, 1279, true);
    std::vector<std::string> small{"SADD", "mysmallset"}, hash{"SADD", "myhashset"};
    for (int i = 0; i < 256; ++i) {
        const std::string m = "i" +
                              std::string(i < 10    ? "00"
                                          : i < 100 ? "0"
                                                    : "") +
                              std::to_string(i);
        if (i < 50) small.push_back(m);
        hash.push_back(m);
    }
    rel.run(d, small);
    rel.run(d, hash);
    for (int round = 0; round < 2; ++round) {
        CHECK(set_encoding(rel, d, "myintset") == "intset");
        CHECK(set_encoding(rel, d, "mylargeintset") == "hashtable");
        CHECK(set_encoding(rel, d, "mysmallset") == "listpack");
        CHECK(set_encoding(rel, d, "myhashset") == "hashtable");
        CHECK(rel.run(d, {"DEBUG", "RELOAD"}) == ok);
    }
    CHECK(members_of(rel, d, "mysmallset").front() == "i000");
}
