// Golden DUMP payloads: the bytes zset::dump writes for a fixed collection of sets are checked
// in under tests/golden/dump/ and must come out identical on every platform the port leg runs
// (x86-64, Windows x64, 32-bit x86, big-endian ppc64, ARM64), and every platform must restore
// every checked-in payload to the same set. The payloads were written once on x86-64 Linux by the
// hidden test case below and accepted by a real redis-server 7.0.15, whose own DUMP of each
// restored key gives back the same bytes (tests/golden/verify_with_redis.py; see
// tests/golden/README.md).
//
// The cases cover every payload type (ZSET_LISTPACK, ZSET_ZIPLIST, ZSET_2 and ZSET with text
// scores), every integer encoding of listpack and ziplist entries (integer-looking members and
// integral scores), special scores (infinities, -0, denormals, the extremes), the 6/14/32-bit
// RDB string lengths and listpack string encodings, and LZF compression.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"
#include "zset_catch.hpp"
#include <zset/dump.hpp>

namespace {

namespace rdb = zset::rdb;
using set_t = zset::sorted_set<>;
using element_list = std::vector<std::pair<std::string, double>>;

/// One golden payload: the set, the thresholds it is built and dumped with (Redis's
/// zset-max-listpack-entries / -value when verifying), the RDB version written (10: Redis 7.0's
/// types; 9: ZSET_ZIPLIST for small sets; 7: ZSET with text scores for large ones) and whether
/// strings are LZF-compressed (Redis: rdbcompression yes).
struct golden_case {
    std::string name;  // file stem under tests/golden/dump/
    std::size_t max_listpack_entries = 128;
    std::size_t max_listpack_value = 64;
    std::uint16_t rdb_version = rdb::rdb_version_redis_7_0;
    bool compress = false;
    rdb::payload_type type = rdb::payload_type::zset_listpack;  // what the payload must hold
    std::string redis_redump;  // the case whose bytes Redis 7.0's DUMP of the restored key gives
    element_list elements;
};

// Platform-independent pseudo-random bytes (not <random>'s distributions, whose algorithms differ
// between standard libraries): printable, so the members stay readable in a hex dump.
std::string noise(std::size_t length, std::uint32_t seed) {
    std::string s(length, '\0');
    std::uint32_t x = seed * 2654435761u + 1u;
    for (auto& c : s) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c = static_cast<char>('!' + x % 94u);
    }
    return s;
}

element_list small_elements() {
    return {{"a", 1.0},
            {"b", 2.5},
            {"c", -3.25},
            {"", 0.0},
            {std::string("\0\xff\x01", 3), 1e-5},
            {"hello world", 42.0},
            {"z", 1e10}};
}

// Members that look like integers in every width a listpack (7/13/16/24/32/64-bit) and a
// ziplist (4-bit immediate, 8/16/24/32/64-bit) encodes as a number, their neighbours just out of
// range, and strings that are not canonical integers; scores integral in the same widths (Redis
// stores an integral score as an integer entry) plus a few that are not.
element_list integer_elements() {
    const char* const members[] = {"0",
                                   "1",
                                   "-1",
                                   "12",
                                   "13",
                                   "127",
                                   "128",
                                   "-128",
                                   "-129",
                                   "4095",
                                   "4096",
                                   "-4096",
                                   "-4097",
                                   "32767",
                                   "32768",
                                   "-32768",
                                   "-32769",
                                   "8388607",
                                   "8388608",
                                   "-8388608",
                                   "-8388609",
                                   "2147483647",
                                   "2147483648",
                                   "-2147483648",
                                   "-2147483649",
                                   "007",
                                   "-0",
                                   "+1",
                                   " 1",
                                   "1.0",
                                   "9223372036854775807",
                                   "-9223372036854775808",
                                   "9223372036854775808",
                                   "-9223372036854775809",
                                   "12345678901234567890"};
    const double scores[] = {0.0,
                             1.0,
                             -1.0,
                             12.0,
                             127.0,
                             128.0,
                             -4096.0,
                             4095.0,
                             32767.0,
                             -32768.0,
                             8388607.0,
                             -8388608.0,
                             2147483647.0,
                             -2147483648.0,
                             4294967296.0,
                             1e15,
                             -9007199254740992.0,
                             1e20,
                             0.5,
                             -2.75};
    element_list out;
    std::size_t i = 0;
    for (const char* m : members) out.emplace_back(m, scores[i++ % std::size(scores)]);
    return out;
}

element_list special_score_elements() {
    using limits = std::numeric_limits<double>;
    return {{"inf", limits::infinity()},
            {"-inf", -limits::infinity()},
            {"zero", 0.0},
            {"denorm min", limits::denorm_min()},
            {"denormal", 1e-310},
            {"dbl min", limits::min()},
            {"dbl max", limits::max()},
            {"-dbl max", -limits::max()},
            {"tenth", 0.1},
            {"third", 1.0 / 3.0},
            {"2^53 + 2", 9007199254740994.0},
            {"2^63", 9223372036854775808.0},
            {"below 2^63", 9223372036854774784.0},
            {"1e20", 1e20},
            {"-1e-300", -1e-300},
            {"pi", 3.141592653589793}};
}

// Member lengths at every boundary of the RDB string length (6/14/32-bit) and of the listpack
// string encodings (6/12/32-bit lengths, 1/2/3-byte backlens).
element_list long_member_elements() {
    const std::size_t lengths[] = {1,   20,  21,   63,   64,    65,    127,
                                   128, 129, 4095, 4096, 16383, 16384, 16400};
    element_list out;
    std::uint32_t seed = 1;
    for (std::size_t n : lengths) out.emplace_back(noise(n, seed++), static_cast<double>(n) / 4);
    return out;
}

// Repetitive members that LZF shrinks; `count` of them.
element_list compressible_elements(std::size_t count) {
    element_list out;
    for (std::size_t i = 0; i < count; ++i) {
        std::string m = "user:" + std::to_string(100000 + i) + ":" + std::string(24, 'x') + "/" +
                        std::string(8, static_cast<char>('a' + i % 26));
        out.emplace_back(std::move(m), static_cast<double>(i % 17) * 0.25);
    }
    return out;
}

golden_case make_case(std::string name, rdb::payload_type type, element_list elements) {
    golden_case c;
    c.redis_redump = name;
    c.name = std::move(name);
    c.type = type;
    c.elements = std::move(elements);
    return c;
}

// -0.0 keeps its sign only in a ZSET_2 payload (the other types store it as 0, as Redis does).
element_list zero_elements() {
    return {{"negative zero", -0.0}, {"zero", 0.0}, {"one", 1.0}};
}

golden_case& add_case(std::vector<golden_case>& cases, std::string name, rdb::payload_type type,
                      element_list elements) {
    cases.push_back(make_case(std::move(name), type, std::move(elements)));
    return cases.back();
}

// <prefix>_compressible (plain) and <prefix>_lzf (LZF-compressed) payloads of one set. zset's
// LZF encoder is not Redis's byte for byte (both are valid LZF), so Redis's DUMP of the
// compressed payload, made with rdbcompression off, is checked against the plain one.
void add_compressed_pair(std::vector<golden_case>& cases, const std::string& prefix,
                         rdb::payload_type type, const element_list& elements) {
    add_case(cases, prefix + "_compressible", type, elements);
    auto& lzf = add_case(cases, prefix + "_lzf", type, elements);
    lzf.compress = true;
    lzf.redis_redump = prefix + "_compressible";
}

std::vector<golden_case> golden_cases() {
    using type = rdb::payload_type;
    std::vector<golden_case> cases;
    add_case(cases, "listpack_small", type::zset_listpack, small_elements());
    auto& ziplist_small = add_case(cases, "ziplist_small", type::zset_ziplist, small_elements());
    ziplist_small.rdb_version = 9;
    ziplist_small.redis_redump = "listpack_small";
    add_case(cases, "listpack_integers", type::zset_listpack, integer_elements());
    auto& ziplist_ints =
        add_case(cases, "ziplist_integers", type::zset_ziplist, integer_elements());
    ziplist_ints.rdb_version = 9;
    ziplist_ints.redis_redump = "listpack_integers";
    element_list specials = special_score_elements();
    specials.push_back(zero_elements().front());
    add_case(cases, "listpack_special_scores", type::zset_listpack, specials);
    add_case(cases, "zset2_special_scores", type::zset_2, special_score_elements())
        .max_listpack_entries = 0;
    auto& text = add_case(cases, "zset_text_scores", type::zset, special_score_elements());
    text.max_listpack_entries = 0;
    text.rdb_version = 7;
    text.redis_redump = "zset2_special_scores";
    add_case(cases, "zset2_negative_zero", type::zset_2, zero_elements()).max_listpack_entries = 0;
    add_case(cases, "zset2_long_members", type::zset_2, long_member_elements());
    add_case(cases, "listpack_long_members", type::zset_listpack, long_member_elements())
        .max_listpack_value = 20000;
    add_compressed_pair(cases, "listpack", type::zset_listpack, compressible_elements(100));
    add_compressed_pair(cases, "zset2", type::zset_2, compressible_elements(300));
    return cases;
}

zset::options set_options(const golden_case& c) {
    zset::options o;
    o.max_listpack_entries = c.max_listpack_entries;
    o.max_listpack_value = c.max_listpack_value;
    return o;
}

set_t build(const golden_case& c) {
    set_t s(set_options(c));
    for (const auto& [member, score] : c.elements) s.add(member, score);
    return s;
}

std::string dump_of(const golden_case& c) {
    const set_t s = build(c);
    rdb::dump_options o = zset::dump_options_for(s);  // the set's thresholds
    o.rdb_version = c.rdb_version;
    o.compress = c.compress;
    return zset::dump(s, o);
}

// tests/golden/dump, beside this file's folder (tests/dump), unless the build says otherwise.
std::string golden_path(const std::string& file) {
#if defined(ZSET_GOLDEN_DIR)
    const std::string dir = ZSET_GOLDEN_DIR;
#else
    std::string dir = __FILE__;
    dir = dir.substr(0, dir.find_last_of("/\\") + 1) + "../golden/dump";
#endif
    return dir + "/" + file;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

using zset_test::bits_of;

/// The elements a payload of case `c` must restore to, in set order: c's elements, except that
/// a listpack, ziplist or ZSET payload stores -0.0 as 0 (as Redis does).
element_list expected_after_restore(const golden_case& c) {
    element_list want;
    for (const auto& e : build(c)) {
        const bool zero_sign_lost = c.type != rdb::payload_type::zset_2 && e.score == 0;
        want.emplace_back(std::string(e.member), zero_sign_lost ? 0.0 : e.score);
    }
    return want;
}

/// True when both hold the same members in the same order with bit-identical scores.
bool same_elements(const set_t& got, const element_list& want) {
    if (got.size() != want.size()) return false;
    auto w = want.begin();
    for (const auto& e : got) {
        if (e.member != w->first || bits_of(e.score) != bits_of(w->second)) return false;
        ++w;
    }
    return true;
}

/// Offset of the first byte where a and b differ (or the shorter length); npos if equal.
std::size_t first_difference(const std::string& a, const std::string& b) {
    if (a == b) return std::string::npos;
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return i;
}

/// tests/golden/dump/manifest.txt: what tests/golden/verify_with_redis.py needs to know of each
/// payload (the server settings to restore it under and the DUMP to expect back).
std::string manifest(const std::vector<golden_case>& cases) {
    std::ostringstream out;
    out << "# Written by tests/dump/test_golden_dump.cpp (\"[.golden-write]\"); read by "
           "verify_with_redis.py.\n"
        << "# name type rdb_version zset-max-listpack-entries zset-max-listpack-value "
           "strings elements redis_redump\n";
    for (const auto& c : cases)
        out << c.name << ' ' << static_cast<unsigned>(c.type) << ' ' << c.rdb_version << ' '
            << c.max_listpack_entries << ' ' << c.max_listpack_value << ' '
            << (c.compress ? "lzf" : "plain") << ' ' << c.elements.size() << ' ' << c.redis_redump
            << '\n';
    return out.str();
}

bool write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

}  // namespace

TEST_CASE("golden DUMP payloads: zset::dump writes the checked-in bytes", "[golden][dump]") {
    for (const auto& c : golden_cases()) {
        CAPTURE(c.name);
        const std::string golden = read_file(golden_path(c.name + ".bin"));
        REQUIRE_FALSE(golden.empty());  // missing or unreadable file
        const std::string mine = dump_of(c);
        CAPTURE(mine.size(), golden.size());
        CHECK(first_difference(mine, golden) == std::string::npos);
        const rdb::restore_result read = rdb::try_restore_payload(golden);
        CHECK(read.error == rdb::error_kind::none);
        CHECK(read.type == c.type);
        CHECK(read.rdb_version == c.rdb_version);
    }
}

TEST_CASE("golden DUMP payloads: each restores to its set", "[golden][dump]") {
    for (const auto& c : golden_cases()) {
        CAPTURE(c.name);
        const std::string golden = read_file(golden_path(c.name + ".bin"));
        REQUIRE_FALSE(golden.empty());
        const set_t restored = zset::restore<set_t>(golden, set_options(c));
        CHECK(restored.validate());
        CHECK(same_elements(restored, expected_after_restore(c)));
        CHECK(restored.encoding() == build(c).encoding());
    }
}

TEST_CASE("golden DUMP payloads: the manifest lists every case", "[golden][dump]") {
    CHECK(read_file(golden_path("manifest.txt")) == manifest(golden_cases()));
}

// Regenerates tests/golden/dump/ (hidden: runs only when named). Run it on x86-64 Linux, then
// verify the payloads against redis-server (tests/golden/README.md) before committing them.
TEST_CASE("golden DUMP payloads: write the files", "[.golden-write]") {
    const auto cases = golden_cases();
    for (const auto& c : cases) {
        CAPTURE(c.name);
        REQUIRE(write_file(golden_path(c.name + ".bin"), dump_of(c)));
    }
    REQUIRE(write_file(golden_path("manifest.txt"), manifest(cases)));
}
