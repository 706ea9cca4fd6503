// Tests of zset::dump / zset::restore (zset/dump.hpp): a sorted_set to and from Redis DUMP
// payloads, offline. tests/live/ checks the same against a running redis-server.
//
// The two "redis 7.0.15 capture" payloads below come from `DUMP` on redis-server 7.0.15 (default
// configuration, rdbcompression yes; the second with zset-max-listpack-entries 2).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory_resource>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"
#include "zset_catch.hpp"
#include <zset/dump.hpp>

namespace {

namespace rdb = zset::rdb;
using set_t = zset::sorted_set<>;
using zset::encoding;

using zset_test::bits_of;
using zset_test::inf;
using zset_test::unhex;

/// Same members in the same order with bit-identical scores; when `zero_sign_lost`, a -0.0 in
/// `want` may read back as 0.0 (listpack / ziplist / ZSET payloads store it as 0).
template <class A, class B>
bool same_elements(const A& got, const B& want, bool zero_sign_lost) {
    if (got.size() != want.size()) return false;
    auto g = got.begin();
    for (const auto& w : want) {
        const auto e = *g++;
        if (e.member != w.member) return false;
        if (zero_sign_lost && w.score == 0 && e.score == 0) continue;
        if (bits_of(static_cast<double>(e.score)) != bits_of(static_cast<double>(w.score)))
            return false;
    }
    return true;
}

std::size_t longest_member(const set_t& s) {
    std::size_t m = 0;
    for (const auto& e : s) m = std::max(m, e.member.size());
    return m;
}

using zset_test::special_scores;

/// A random set: `n` tries at adding a member of up to `max_len` bytes (binary, integer-like,
/// 64 / 65 bytes long...) with a score from a mix of special values, integers and random bits.
set_t random_set(std::mt19937_64& rng, std::size_t n, std::size_t max_len,
                 const zset::options& o = {}) {
    set_t s(o);
    for (std::size_t i = 0; i < n; ++i) {
        std::string m;
        switch (rng() % 6) {
        case 0:
            m = std::to_string(static_cast<long long>(rng() % 2000000) - 1000000);
            break;
        case 1:
            m = std::string(rng() % 2 ? 64 : 65, static_cast<char>('a' + rng() % 26));
            m += std::to_string(i);
            m.resize(rng() % 2 ? 64 : 65, 'z');
            break;
        case 2:
            m = std::string("\0\xff", 2) + std::to_string(i);
            break;
        default: {
            m.resize(static_cast<std::size_t>(rng() % (max_len + 1)));
            for (char& c : m) c = static_cast<char>(static_cast<unsigned char>(rng() & 0xFFu));
        }
        }
        if (m.size() > max_len) m.resize(max_len);
        double sc = 0;
        switch (rng() % 5) {
        case 0:
            sc = special_scores[static_cast<std::size_t>(rng() % special_scores.size())];
            break;
        case 1:
            sc = static_cast<double>(static_cast<long long>(rng() % 1000) - 500);
            break;
        case 2:
            sc = static_cast<double>(rng() % 7);  // many ties: member order matters
            break;
        case 3: {
            const std::uint64_t u = rng();
            std::memcpy(&sc, &u, sizeof sc);
            if (std::isnan(sc)) sc = 1.25;
            break;
        }
        default:
            sc = std::ldexp(static_cast<double>(rng() % 100000), static_cast<int>(rng() % 40) - 20);
        }
        s.add(m, sc);
    }
    return s;
}

rdb::element_list elements_of(const set_t& s) {
    rdb::element_list e;
    for (const auto& x : s) e.emplace_back(std::string(x.member), x.score);
    return e;
}

unsigned type_of(const std::string& payload) {
    return static_cast<unsigned char>(payload.at(0));
}

unsigned version_of(const std::string& payload) {
    const std::size_t n = payload.size();
    return static_cast<unsigned char>(payload[n - 10]) |
           (static_cast<unsigned>(static_cast<unsigned char>(payload[n - 9])) << 8);
}

}  // namespace

TEST_CASE("dump: round trip set -> dump -> restore, both encodings", "[dump]") {
    std::mt19937_64 rng(0x2d756d70);
    for (std::size_t n : {1u, 2u, 5u, 64u, 127u, 128u, 129u, 200u, 700u}) {
        for (int rep = 0; rep < 6; ++rep) {
            const set_t s = random_set(rng, n, rep % 3 == 2 ? 70 : 64);
            const std::string p = zset::dump(s);
            const bool compact = s.size() <= 128 && longest_member(s) <= 64;
            INFO("n=" << n << " rep=" << rep << " size=" << s.size());
            CHECK(type_of(p) == (compact ? 17u : 5u));
            CHECK(version_of(p) == 10u);
            // A set built by adding is in the smallest encoding: the payload type says which.
            CHECK((s.encoding() == encoding::listpack) == compact);

            const set_t r = zset::restore<set_t>(p);
            REQUIRE(r.validate());
            CHECK(r == s);  // -0 == 0 here
            CHECK(same_elements(r, s, compact));
            CHECK(r.encoding() == s.encoding());
            CHECK(r.get_options().max_listpack_entries == 128u);
        }
    }
}

TEST_CASE("dump: bytes equal the codec's dump of the same element list", "[dump]") {
    std::mt19937_64 rng(77);
    for (int rep = 0; rep < 30; ++rep) {
        const set_t s =
            random_set(rng, static_cast<std::size_t>(rng() % 300 + 1), rng() % 2 ? 64 : 90);
        const auto els = elements_of(s);
        for (const std::uint16_t version : {std::uint16_t{10}, std::uint16_t{9}, std::uint16_t{7},
                                            std::uint16_t{11}, std::uint16_t{12}}) {
            for (bool compress : {false, true}) {
                rdb::dump_options o;
                o.rdb_version = version;
                o.compress = compress;
                const std::string p = zset::dump(s, o);
                CHECK(p == rdb::dump_payload(els, o));
                CHECK(version_of(p) == version);
                const set_t r = zset::restore<set_t>(p);
                CHECK(r == s);
                CHECK(r.encoding() == s.encoding());
            }
        }
    }
}

TEST_CASE("dump: payload types by RDB version", "[dump]") {
    const set_t small{{"a", 1}, {"b", 2}};
    set_t big;
    for (int i = 0; i < 200; ++i) big.add("m" + std::to_string(i), i * 0.5);
    struct row {
        std::uint16_t version;
        unsigned small_type, big_type;
    };
    for (const row& r : {row{12, 17, 5}, row{10, 17, 5}, row{9, 12, 5}, row{8, 12, 5},
                         row{7, 12, 3}, row{6, 12, 3}}) {
        rdb::dump_options o;
        o.rdb_version = r.version;
        CHECK(type_of(zset::dump(small, o)) == r.small_type);
        CHECK(type_of(zset::dump(big, o)) == r.big_type);
        CHECK(zset::restore<set_t>(zset::dump(small, o)) == small);
        CHECK(zset::restore<set_t>(zset::dump(big, o)) == big);
    }
    rdb::dump_options forced;
    forced.force_type = rdb::payload_type::zset_2;
    CHECK(type_of(zset::dump(small, forced)) == 5u);
    CHECK(zset::restore<set_t>(zset::dump(small, forced)).encoding() == encoding::listpack);
    forced.force_type = rdb::payload_type::zset_listpack;
    CHECK(type_of(zset::dump(big, forced)) == 17u);
    CHECK(zset::restore<set_t>(zset::dump(big, forced)).encoding() == encoding::skiplist);
}

TEST_CASE("dump: thresholds come from the set unless dump_options are given", "[dump]") {
    const zset::options tiny{4, 8};
    set_t s(tiny);
    s.add({{"a", 1}, {"b", 2}, {"c", 3}});
    CHECK(s.encoding() == encoding::listpack);
    CHECK(type_of(zset::dump(s)) == 17u);
    s.add("d", 4);
    s.add("e", 5);  // 5 > 4 entries
    CHECK(s.encoding() == encoding::skiplist);
    CHECK(type_of(zset::dump(s)) == 5u);                        // the set's thresholds (4, 8)
    CHECK(type_of(zset::dump(s, rdb::dump_options{})) == 17u);  // explicit: 128, 64
    CHECK(type_of(zset::dump(s, zset::dump_options_for(s))) == 5u);

    auto o = zset::dump_options_for(s);
    CHECK(o.max_listpack_entries == 4u);
    CHECK(o.max_listpack_value == 8u);
    CHECK(o.rdb_version == 10u);
    CHECK_FALSE(o.compress);

    // A long member: over the set's value threshold, under the default one.
    set_t v(tiny);
    v.add("0123456789", 1);
    CHECK(v.encoding() == encoding::skiplist);
    CHECK(type_of(zset::dump(v)) == 5u);
    CHECK(type_of(zset::dump(v, rdb::dump_options{})) == 17u);

    // restore: the new set's options decide its encoding, whatever the payload type.
    const std::string lp = zset::dump(s, rdb::dump_options{});
    const std::string z2 = zset::dump(s);
    for (const std::string* p : {&lp, &z2}) {
        const set_t big_opts = zset::restore<set_t>(*p);
        const set_t small_opts = zset::restore<set_t>(*p, tiny);
        CHECK(big_opts.encoding() == encoding::listpack);
        CHECK(small_opts.encoding() == encoding::skiplist);
        CHECK(small_opts.get_options().max_listpack_entries == 4u);
        CHECK(big_opts == s);
        CHECK(small_opts == s);
        CHECK(small_opts.validate());
    }
    // max_listpack_entries 0: always skiplist, as Redis with zset-max-listpack-entries 0.
    const set_t zero = zset::restore<set_t>(lp, zset::options{0, 64});
    CHECK(zero.encoding() == encoding::skiplist);
    CHECK(zero == s);

    // At and beyond the value limit, exactly.
    set_t edge;
    edge.add(std::string(64, 'x'), 1);
    CHECK(type_of(zset::dump(edge)) == 17u);
    CHECK(zset::restore<set_t>(zset::dump(edge)).encoding() == encoding::listpack);
    edge.add(std::string(65, 'y'), 2);
    CHECK(type_of(zset::dump(edge)) == 5u);
    CHECK(zset::restore<set_t>(zset::dump(edge)).encoding() == encoding::skiplist);
}

TEST_CASE("dump: a shrunk skiplist set dumps and restores compact", "[dump]") {
    set_t s;
    for (int i = 0; i < 300; ++i) s.add("m" + std::to_string(i), i);
    s.erase_range_by_rank(10, -1);
    REQUIRE(s.size() == 10u);
    CHECK(s.encoding() == encoding::skiplist);  // erasing never converts back
    const std::string p = zset::dump(s);
    CHECK(type_of(p) == 17u);  // by content, not by the current encoding
    const set_t r = zset::restore<set_t>(p);
    CHECK(r == s);
    CHECK(r.encoding() == encoding::listpack);
}

TEST_CASE("dump: special scores and members", "[dump]") {
    set_t s;
    for (std::size_t i = 0; i < special_scores.size(); ++i)
        s.add("s" + std::to_string(i), special_scores[i]);
    s.add(std::string("\0", 1), 3);
    s.add(std::string("\xff\xff\0\x01", 4), 3);
    s.add("", -7);
    s.add("12345", 1.5);
    s.add("-9", 1.5);
    s.add("007", 1.5);
    s.add(std::string(64, 'L'), 2.5);
    REQUIRE(s.encoding() == encoding::listpack);

    const set_t from_lp = zset::restore<set_t>(zset::dump(s));
    CHECK(from_lp == s);
    CHECK(same_elements(from_lp, s, true));
    CHECK_FALSE(std::signbit(*from_lp.score("s1")));  // -0.0 became 0 in the listpack

    rdb::dump_options z2;
    z2.force_type = rdb::payload_type::zset_2;
    const set_t from_z2 = zset::restore<set_t>(zset::dump(s, z2));
    CHECK(same_elements(from_z2, s, false));
    // A small ZSET_2 payload restores into a listpack, which stores -0.0 as 0 (checked against
    // redis-server 7.0.15: RESTORE of a ZSET_2 {a: -0} then ZSCORE replies "0")...
    CHECK_FALSE(std::signbit(*from_z2.score("s1")));
    // ...while a skiplist-mode set keeps it, and so does its ZSET_2 payload restored in
    // skiplist mode.
    set_t big(zset::options{0, 64});
    big.add("neg0", -0.0);
    REQUIRE(std::signbit(*big.score("neg0")));
    const set_t z2_skiplist = zset::restore<set_t>(zset::dump(big, z2), zset::options{0, 64});
    CHECK(std::signbit(*z2_skiplist.score("neg0")));

    s.add(std::string(65, 'L'), 2.5);  // now skiplist
    REQUIRE(s.encoding() == encoding::skiplist);
    const std::string p = zset::dump(s);
    CHECK(type_of(p) == 5u);
    const set_t r = zset::restore<set_t>(p);
    CHECK(same_elements(r, s, false));
    CHECK(r.encoding() == encoding::skiplist);
    CHECK(r.validate());
}

TEST_CASE("dump: restoring payloads of each type", "[dump]") {
    const rdb::element_list els = {{"low", -inf}, {"neg", -2.5},   {"zero", 0},    {"a", 1},
                                   {"b", 1},      {"pi", 3.14159}, {"big", 1e300}, {"top", inf}};
    for (auto t : {rdb::payload_type::zset, rdb::payload_type::zset_2,
                   rdb::payload_type::zset_ziplist, rdb::payload_type::zset_listpack}) {
        for (bool compress : {false, true}) {
            rdb::dump_options o;
            o.force_type = t;
            o.compress = compress;
            const std::string p = rdb::dump_payload(els, o);
            REQUIRE(type_of(p) == static_cast<unsigned>(t));
            const set_t s = zset::restore<set_t>(p);
            REQUIRE(s.size() == els.size());
            CHECK(s.encoding() == encoding::listpack);
            std::size_t i = 0;
            for (const auto& e : s) {
                CHECK(e.member == els[i].first);
                CHECK(e.score == els[i].second);
                ++i;
            }
        }
    }
}

TEST_CASE("dump: restoring payloads captured from redis-server 7.0.15", "[dump]") {
    // ZADD k 0 member-00-<abcdefgh x4> 1.5 member-01-... ... 13.5 member-09-...: listpack, LZF.
    const std::string lzf_listpack = unhex(
        "11c3408c41e418e40100001400aa6d656d6265722d30302d6162636465666768e00f07022b0001e0002d0031"
        "e0192d0483312e3504e000300032e019300003e0015e0033e0192d018334e0035e0034e019300006e0015e00"
        "35e0192d018337e0035e0036e019300009e0015e0037e0192d058431302e3505e1001d0038e01931000ce001"
        "5f0039e0192d02843133205f00ff0a00836d3f54de4053e6");
    const set_t a = zset::restore<set_t>(lzf_listpack);
    REQUIRE(a.size() == 10u);
    CHECK(a.encoding() == encoding::listpack);
    int i = 0;
    for (const auto& e : a) {
        std::string m = "member-0" + std::to_string(i) + "-";
        for (int k = 0; k < 4; ++k) m += "abcdefgh";
        CHECK(e.member == m);
        CHECK(e.score == i * 1.5);
        ++i;
    }
    // Our LZF output differs from Redis's liblzf (both valid), so compare by content.
    rdb::dump_options lzf;
    lzf.compress = true;
    CHECK(type_of(zset::dump(a, lzf)) == 17u);
    CHECK(zset::dump(a, lzf).size() < zset::dump(a).size());
    CHECK(zset::restore<set_t>(zset::dump(a, lzf)) == a);

    // zset-max-listpack-entries 2: ZADD k3 -0 negzero -inf low 4.9406564584124654e-324 denorm
    // 2.5 "a\0\xffb" 7 <40 x>: ZSET_2 (skiplist; negzero's -0 already became 0 while the key
    // was still a listpack), the 40-byte member LZF-compressed.
    const std::string zset2 = unhex(
        "0505c30928017878e01b000178780000000000001c40046100ff6200000000000004400664656e6f726d0100"
        "000000000000076e65677a65726f0000000000000000036c6f77000000000000f0ff0a003d3f4db466bbbd3d");
    const set_t b = zset::restore<set_t>(zset2);
    CHECK(b.encoding() == encoding::listpack);  // 5 <= 128: what RESTORE in a default server does
    const set_t b2 = zset::restore<set_t>(zset2, zset::options{2, 64});
    CHECK(b2.encoding() == encoding::skiplist);  // the capturing server's thresholds
    const rdb::element_list want = {{"low", -inf},
                                    {"negzero", 0.0},
                                    {"denorm", 4.9406564584124654e-324},
                                    {std::string("a\0\xff"
                                                 "b",
                                                 4),
                                     2.5},
                                    {std::string(40, 'x'), 7}};
    for (const set_t* s : {&b, &b2}) {
        REQUIRE(s->size() == want.size());
        std::size_t j = 0;
        for (const auto& e : *s) {
            CHECK(e.member == want[j].first);
            CHECK(bits_of(e.score) == bits_of(want[j].second));
            ++j;
        }
    }
    rdb::dump_options o2;
    o2.max_listpack_entries = 2;
    CHECK(type_of(zset::dump(b, o2)) == 5u);
    CHECK(zset::restore<set_t>(zset::dump(b, o2), zset::options{2, 64}) == b2);
    CHECK(zset::dump(b2) == zset::dump(b, zset::dump_options_for(b2)));
}

TEST_CASE("dump: empty set", "[dump]") {
    const set_t empty;
    const std::string p = zset::dump(empty);
    // A well-formed ZSET_LISTPACK payload of zero elements: 7-byte listpack, version 10.
    CHECK(p.size() == 1 + 1 + 7 + 10);
    CHECK(type_of(p) == 17u);
    CHECK(version_of(p) == 10u);
    try {
        (void)zset::restore<set_t>(p);
        FAIL("an empty payload was accepted");
    } catch (const rdb::format_error& e) {
        CHECK(e.kind() == rdb::error_kind::bad_data_format);
        CHECK(e.redis_error() == "ERR Bad data format");  // as Redis's RESTORE replies
    }
    rdb::dump_options z2;
    z2.force_type = rdb::payload_type::zset_2;
    CHECK_THROWS_AS(zset::restore<set_t>(zset::dump(empty, z2)), rdb::format_error);

    rdb::restore_options allow;
    allow.allow_empty = true;
    const set_t r = zset::restore<set_t>(p, {}, allow);
    CHECK(r.empty());
    CHECK(r.encoding() == encoding::listpack);
    CHECK(r.validate());
}

TEST_CASE("dump: corrupted payloads are refused and the target is untouched", "[dump]") {
    std::mt19937_64 rng(4242);
    const set_t src = random_set(rng, 40, 20);
    const set_t big = random_set(rng, 300, 80);
    set_t target = random_set(rng, 10, 10, zset::options{5, 16});
    const set_t before = target;

    auto try_assign = [&](std::string_view bad, const rdb::restore_options& ro) {
        try {
            target = zset::restore<set_t>(bad, target.get_options(), ro);
            return true;
        } catch (const rdb::format_error& e) {
            CHECK(!e.redis_error().empty());
            return false;
        }
    };

    for (const set_t* s : {&src, &big}) {
        const std::string good = zset::dump(*s);
        rdb::restore_options unchecked;
        unchecked.verify_checksum = false;
        std::size_t refused = 0, tried = 0;
        // Every truncation: the footer moves, so the version / CRC check refuses it.
        for (std::size_t n = 0; n < good.size(); n += (good.size() > 600 ? 7 : 1)) {
            CHECK_FALSE(try_assign(std::string_view(good).substr(0, n), {}));
            CHECK(target == before);
        }
        // Byte flips: always refused with the checksum on; without it, either refused or a
        // different valid set (never a crash, never a half-built target).
        for (std::size_t i = 0; i < good.size(); i += (good.size() > 600 ? 5 : 1)) {
            std::string bad = good;
            bad[i] = static_cast<char>(bad[i] ^ static_cast<char>(1u << (rng() % 8)));
            try {
                (void)zset::restore<set_t>(bad);
                FAIL("corrupted payload accepted with the checksum on");
            } catch (const rdb::format_error& e) {
                CHECK(e.kind() == rdb::error_kind::version_or_checksum);
                CHECK(e.redis_error() == "ERR DUMP payload version or checksum are wrong");
            }
            if (i + 10 >= bad.size()) continue;  // footer bytes: nothing more to learn
            ++tried;
            if (!try_assign(bad, unchecked)) {
                ++refused;
                CHECK(target == before);
            } else {
                CHECK(target.validate());
                target = before;
            }
        }
        INFO("refused " << refused << " of " << tried);
        CHECK(refused > 0);
    }

    // A payload of another type, a too new RDB version, trailing bytes.
    rdb::dump_options v13;
    v13.rdb_version = 13;
    CHECK_FALSE(try_assign(zset::dump(src, v13), {}));
    std::string other = zset::dump(src);
    other[0] = 0;  // RDB_TYPE_STRING
    std::string body = other.substr(0, other.size() - 10);
    zset::detail::rdb::seal_payload(body, 10);
    try {
        target = zset::restore<set_t>(body, target.get_options());
        FAIL("a non-zset payload was accepted");
    } catch (const rdb::format_error& e) {
        CHECK(e.kind() == rdb::error_kind::bad_data_format);
    }
    CHECK(target == before);
    CHECK(target.get_options().max_listpack_entries == 5u);
    CHECK(target.validate());
}

using zset_test::reverse_bytes;

TEST_CASE("dump: float scores and a custom member order", "[dump]") {
    using fset = zset::sorted_set<std::string, float>;
    fset f;
    f.add({{"b", 1.5f},
           {"a", 1.5f},
           {"c", -0.0f},
           {"d", std::numeric_limits<float>::infinity()},
           {"e", 1e-40f}});
    const std::string p = zset::dump(f);
    set_t asd;
    for (const auto& e : f) asd.add(e.member, static_cast<double>(e.score));
    CHECK(p == zset::dump(asd));
    const fset g = zset::restore<fset>(p);
    CHECK(g == f);
    CHECK(g.validate());

    // Doubles that collapse to the same float: restore re-sorts by member.
    const rdb::element_list close = {{"z", 1.0000000001}, {"y", 1.0000000002}};
    const fset h = zset::restore<fset>(rdb::dump_payload(close));
    CHECK(h.validate());
    CHECK((*h.begin()).member == "y");

    using rset = zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>,
                                  reverse_bytes>;
    rset r;
    r.add({{"a", 1}, {"b", 1}, {"c", 0}, {"d", 2}});
    CHECK((*r.begin()).member == "c");
    CHECK((*std::next(r.begin())).member == "b");  // ties in reverse byte order
    const std::string rp = zset::dump(r);
    const set_t plain = zset::restore<set_t>(rp);
    CHECK((*std::next(plain.begin())).member == "a");
    CHECK(rp == zset::dump(plain));
    const rset back = zset::restore<rset>(rp);
    CHECK(back == r);
    CHECK(back.validate());
}

TEST_CASE("dump: restore with an allocator", "[dump]") {
    std::pmr::monotonic_buffer_resource pool;
    using pset = zset::pmr::sorted_set<>;
    const std::pmr::polymorphic_allocator<std::string> alloc(&pool);
    pset s(alloc);
    for (int i = 0; i < 300; ++i) s.add("k" + std::to_string(i), i % 17);
    const std::string p = zset::dump(s);
    CHECK(type_of(p) == 5u);
    const pset r = zset::restore<pset>(p, {}, {}, alloc);
    CHECK(r.get_allocator().resource() == &pool);
    CHECK(r == s);
    CHECK(r.encoding() == encoding::skiplist);
    const pset d = zset::restore<pset>(p);
    CHECK(d.get_allocator().resource() == std::pmr::get_default_resource());
}

TEST_CASE("dump: restore defaults to zset::sorted_set<>", "[dump]") {
    const set_t s{{"x", 1}, {"y", 2}};
    const auto r = zset::restore(zset::dump(s));
    static_assert(std::is_same_v<std::remove_const_t<decltype(r)>, set_t>);
    CHECK(r == s);
}
