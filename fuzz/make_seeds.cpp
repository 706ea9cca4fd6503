// Writes the seed corpora under fuzz/corpus/<target>/ (checked in; rerun after changing an
// input format):  build/fuzz/fuzz/zset_fuzz_make_seeds fuzz/corpus
// Seeds are small valid inputs that reach deep states quickly: conversions and splits for the
// operation fuzzer, well-formed and broken requests for the RESP parser, DUMP payloads of every
// type for the restore fuzzer and typical commands for the keyspace fuzzer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include <zset/rdb.hpp>

namespace {

namespace fs = std::filesystem;

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
    fs::create_directories(dir);
    std::ofstream f(dir / name, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", (dir / name).string().c_str());
        std::exit(1);
    }
}

std::string bytes(std::initializer_list<int> v) {
    std::string out;
    for (int b : v) out += static_cast<char>(b);
    return out;
}

// ---- fuzz_ops programs (opcodes: see fuzz_ops.cpp run_op; +128 targets the second set) ------
enum op : int {
    add = 0,
    batch = 3,
    incr = 4,
    rem = 6,
    rem_many = 8,
    lookup = 9,
    score_range = 10,
    rank_range = 12,
    lex = 13,
    remrange = 14,
    pop = 15,
    randmember = 16,
    scan = 17,
    copy = 18,
    shrink = 19,
    clear = 20,
    setop = 21,
    from_sorted = 22,
    burst = 23
};
constexpr int second = 128;
// score bytes: 0 -> 0.0, 2 -> inf, 3 -> -inf, 4 -> NaN, 8 -> 0.1, >10 -> (b % 41) - 20
constexpr int zero = 20, one = 21, five = 25, minus3 = 17;

// The seed programs below are laid out by hand, one operation per group of bytes.
// clang-format off
void ops_seeds(const fs::path& dir) {
    // strings, 3 entries / 8 bytes: a burst converts, long members, updates that move elements
    write(dir, "conversions", bytes({0, 3, 3,
                                     burst, 50, zero,
                                     add, 19, one, 0,           // 65-byte member
                                     add, 5, five, 0,           // "a"
                                     incr, 5, 2, 0,             // a += inf
                                     incr, 5, 3, 0,             // inf + -inf: NaN error
                                     lookup, 5, lookup, 19,
                                     score_range, 2, 13, 1, 0x11, 5, 7,
                                     rank_range, 3, 0x45,
                                     pop, 3, 1, pop, 2, 0,
                                     rem, 19, remrange, 1, 2, 40,
                                     shrink, remrange, 0, 0, 1,
                                     shrink}));
    // many distinct short members with the default thresholds, then splits by moving scores
    write(dir, "splits", bytes({0, 7, 5,
                                burst, 63, minus3, burst + second, 63, five,
                                add, 230, five, 0, add, 231, one, 0, add, 232, zero, 0,
                                incr, 230, 2, 0, incr, 231, 3, 0,
                                batch, 5, 5, one, 6, one, 7, one, 21, one, 22, one, 7,
                                setop, 0x11, 0, 1, 30, 31, 1, 0,
                                setop, 0x44, 0, 1, 1, 1,
                                setop, 0x0d, 0, 1, 2,
                                copy, 3, copy, 1, copy, 0, from_sorted, 1,
                                scan, 3, 1, 5, one, 3, 0, 3, 0,
                                randmember, 30, 7, randmember, 5, 7}));
    // equal scores: lex ranges, lex removal
    write(dir, "lex", bytes({0, 2, 2,
                             add, 5, zero, 0, add, 6, zero, 0, add, 7, zero, 0, add, 8, zero, 0,
                             add, 9, zero, 0, add, 0, zero, 0, add, 1, zero, 0, add, 3, zero, 0,
                             lex, 2, 5, 3, 9, 1, 0,
                             lex, 0, 1, 0x11, 2, 3, 1,
                             lex, 3, 1, 2, 7, 0, 1}));
    // integer members and scores: overflow on increment, ZDIFF, ZINTERCARD
    write(dir, "integers", bytes({1, 1, 5,
                                  burst, 20, zero, add, 5, 0, 0, incr, 5, 0, 0,
                                  incr, 6, 1, 0, incr, 6, 1, 0,
                                  burst + second, 10, one,
                                  setop, 0x0a, 0, 1, 3,
                                  setop, 0x0d, 0, 1, 1, 0,
                                  pop, 255, 1, clear, 0}));
    // string members, int64 scores: set operations saturate at the limits
    write(dir, "int-scores", bytes({2, 3, 5,
                                    burst, 30, 0, burst + second, 20, 1,
                                    add, 5, 0, 0, add + second, 5, 0, 0,
                                    setop, 0x10, 0, 1, 0, 50,        // ZUNION WEIGHTS max 30
                                    setop, 0x14, 0, 1, 1, 0, 1,      // ZINTER WEIGHTS min max
                                    setop, 0x50, 0, 1, 2, 12, 1,     // ZUNION AGGREGATE MIN
                                    incr, 5, 0, 0}));
}

// ---- fuzz_resp inputs: [limits][chunking][bytes] ---------------------------------------------

void resp_seeds(const fs::path& dir) {
    const std::string defaults = bytes({0, 0});
    write(dir, "multibulk", defaults + "*4\r\n$4\r\nZADD\r\n$1\r\nk\r\n$1\r\n1\r\n$1\r\na\r\n"
                                       "*3\r\n$6\r\nZSCORE\r\n$1\r\nk\r\n$1\r\na\r\n");
    write(dir, "inline", defaults + "ZADD k 1 a\r\nZRANGE k 0 -1 WITHSCORES\n\r\n  \n"
                                    "ZADD \"k\\x41\\n\" 'a \\' b' 2 \"q\"\n");
    write(dir, "empty-requests", defaults + "*0\r\n*-1\r\n\r\n*1\r\n$4\r\nPING\r\n");
    write(dir, "binary", defaults + std::string("*2\r\n$3\r\nSET\r\n$4\r\n\0\xff\r\n\r\n", 24));
    write(dir, "bad-dollar", defaults + "*2\r\n$3\r\nGET\r\n+k\r\n");
    write(dir, "bad-length", defaults + "*1\r\n$-5\r\n");
    write(dir, "unbalanced", defaults + "ZADD \"k 1 a\r\n");
    write(dir, "nul-inline", defaults + std::string("ZADD\0k 1 a\r\nPING\r\n", 19));
    // tiny limits: inline 8, bulk 10, multibulk 3; unauthenticated
    write(dir, "small-limits", bytes({0x0b | 0x30, 7}) + "*2\r\n$2\r\nab\r\n$11\r\nhello world\r\n");
    write(dir, "unauth", bytes({0x0f, 3}) + "*11\r\n");
}

// ---- fuzz_restore inputs: [flags][payload] ---------------------------------------------------

void restore_seeds(const fs::path& dir) {
    namespace rdb = zset::rdb;
    const std::string verify = bytes({0x19});  // verify CRC, accept every RDB version
    rdb::element_list small = {{"c", -0.0}, {"a", 1.0}, {"b", 2.5}, {"d", 1e300}};
    rdb::element_list ints;
    for (long long v : {-70000LL, -200LL, -1LL, 0LL, 1LL, 12LL, 13LL, 127LL, 128LL, 4000LL,
                        40000LL, 70000LL, 10000000LL, 5000000000LL})
        ints.emplace_back("i" + std::to_string(v), static_cast<double>(v));
    rdb::element_list specials = {{"", -std::numeric_limits<double>::infinity()},
                                  {std::string("\0\xff", 2), 4.9e-324},
                                  {"x", 0.1},
                                  {std::string(70, 'L'), std::numeric_limits<double>::infinity()}};
    rdb::element_list large;
    for (int i = 0; i < 140; ++i) large.emplace_back("member:" + std::to_string(1000 + i), i * 0.5);
    rdb::element_list repetitive = {{std::string(300, 'r'), 1.0}, {std::string(300, 's'), 2.0}};

    rdb::dump_options lp;
    write(dir, "listpack", verify + rdb::dump_payload(small, lp));
    write(dir, "listpack-ints", verify + rdb::dump_payload(ints, lp));
    rdb::dump_options zl;
    zl.rdb_version = 9;
    write(dir, "ziplist", verify + rdb::dump_payload(ints, zl));
    write(dir, "zset2", verify + rdb::dump_payload(specials, lp));
    write(dir, "zset2-large", verify + rdb::dump_payload(large, lp));
    rdb::dump_options old;
    old.rdb_version = 7;
    write(dir, "zset-text", verify + rdb::dump_payload(specials, old));
    rdb::dump_options lzf;
    lzf.compress = true;
    lzf.force_type = rdb::payload_type::zset_listpack;
    write(dir, "listpack-lzf", verify + rdb::dump_payload(repetitive, lzf));
    lzf.force_type = rdb::payload_type::zset_2;
    write(dir, "zset2-lzf", verify + rdb::dump_payload(repetitive, lzf));
    // without CRC verification (the mutator then needs no CRC fix-up), and an empty set
    write(dir, "listpack-nocrc", bytes({0x18}) + rdb::dump_payload(small, lp));
    rdb::dump_options empty;
    empty.check_input = true;
    write(dir, "empty", bytes({0x1d}) + rdb::dump_payload({}, empty));
}

// ---- fuzz_argv inputs: see fuzz_argv.cpp -------------------------------------------------------

void argv_seeds(const fs::path& dir) {
    // [flags] then commands as inline lines
    const std::string p = bytes({0});
    write(dir, "zadd-range", p + "ZADD k 1 a 2 b 3 c\nZRANGE k 0 -1 WITHSCORES\nZRANGEBYSCORE k (1 +inf LIMIT 0 1\n"
                                 "ZREVRANGE k 0 -1\nZCARD k\nZSCORE k a\nZMSCORE k a x\n");
    write(dir, "zadd-flags", p + "ZADD k NX CH 1 a\nZADD k XX GT INCR 5 a\nZADD k LT 1 a 2\nZADD k nan a\n"
                                 "ZINCRBY k inf a\nZINCRBY k -inf a\n");
    write(dir, "lex", p + "ZADD k 0 a 0 b 0 c\nZRANGEBYLEX k [a (c\nZLEXCOUNT k - +\nZREMRANGEBYLEX k [b +\n"
                          "ZRANGE k [a + BYLEX REV LIMIT 0 2\n");
    write(dir, "setops", p + "ZADD a 1 x 2 y\nZADD b 3 y 4 z\nZUNION 2 a b WEIGHTS 1 2 AGGREGATE MAX WITHSCORES\n"
                             "ZINTERSTORE d 2 a b\nZDIFF 2 a b\nZINTERCARD 2 a b LIMIT 1\nZUNIONSTORE e 1 missing\n");
    write(dir, "pops", p + "ZADD k 1 a 2 b 3 c\nZPOPMIN k 2\nZPOPMAX k -1\nZRANDMEMBER k -5 WITHSCORES\n"
                           "ZMPOP 1 k MIN COUNT 2\nZSCAN k 0 COUNT 1\nZREMRANGEBYRANK k 0 -1\nDEL k\n");
}

// clang-format on

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus root, e.g. fuzz/corpus>\n", argv[0]);
        return 2;
    }
    const fs::path root(argv[1]);
    ops_seeds(root / "ops");
    resp_seeds(root / "resp");
    restore_seeds(root / "restore");
    argv_seeds(root / "argv");
    std::printf("seeds written under %s\n", root.string().c_str());
    return 0;
}
