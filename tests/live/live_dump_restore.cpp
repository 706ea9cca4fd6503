// Live test of zset::dump / zset::restore against a real redis-server (via hiredis).
//
//   zset_live_dump_restore [path/to/redis-server]
//
// Starts `redis-server --port <free port> --bind 127.0.0.1 --save '' --appendonly no` itself,
// then checks, for random sets of both encodings (+-inf, -0, denormals, ties, binary members with
// NUL / 0xFF, integer-like members, members of 64 / 65 bytes...):
//
//   zset -> redis: zset::dump(set) -> RESTORE -> ZRANGE ... WITHSCORES equals the set (-0 as Redis
//                  keeps it per encoding), OBJECT ENCODING is what Redis's loader gives, and when
//                  the encodings agree Redis's own DUMP of the key is byte-identical to ours;
//   redis -> zset: ZADD the same kind of data (server thresholds varied, rdbcompression yes / no)
//                  -> DUMP -> zset::restore -> equals ZRANGE ... WITHSCORES bit for bit, encoding
//                  equals what Redis's RESTORE of its own payload gives (and OBJECT ENCODING of the
//                  key unless it shrank), and zset::dump of the result equals Redis's DUMP when
//                  compression is off;
//
// plus the empty set, RDB versions 11 / 12, and a bad checksum (same RESTORE error text).
// Exit status: 0 pass, 1 failure, 77 skipped (no redis-server). Environment: ZSET_LIVE_SEED
// (default: random, printed), ZSET_LIVE_SETS (sets per direction, default 600),
// ZSET_REDIS_SERVER (server binary, if not given as the argument).
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include <zset/dump.hpp>

namespace {

constexpr int skip_code = 77;
namespace rdb = zset::rdb;
using set_t = zset::sorted_set<>;
using elements = std::vector<std::pair<std::string, double>>;

// ------------------------------------------------------------------------------------------------
// Process and connection plumbing
// ------------------------------------------------------------------------------------------------

bool executable(const std::string& p) {
    struct stat st {};
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(p.c_str(), X_OK) == 0;
}

std::string find_redis_server(int argc, char** argv) {
    if (argc > 1 && argv[1][0] != '\0') return executable(argv[1]) ? argv[1] : "";
    if (const char* e = std::getenv("ZSET_REDIS_SERVER"); e && *e) return executable(e) ? e : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string cand = (dir.empty() ? "." : dir) + "/redis-server";
        if (executable(cand)) return cand;
    }
    return "";
}

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot find a free port");
    }
    ::close(fd);
    return ntohs(a.sin_port);
}

struct reply_deleter {
    void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using reply_ptr = std::unique_ptr<redisReply, reply_deleter>;

struct context_deleter {
    void operator()(redisContext* c) const noexcept { redisFree(c); }
};

class redis {
public:
    explicit redis(std::unique_ptr<redisContext, context_deleter> c) : c_(std::move(c)) {}

    /// Runs a command (binary-safe arguments); throws on a connection error.
    reply_ptr run(const std::vector<std::string_view>& args) {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (auto a : args) {
            argv.push_back(a.data());
            lens.push_back(a.size());
        }
        auto* r = static_cast<redisReply*>(
            redisCommandArgv(c_.get(), static_cast<int>(argv.size()), argv.data(), lens.data()));
        if (r == nullptr) throw std::runtime_error(std::string("redis: ") + c_->errstr);
        return reply_ptr(r);
    }
    /// Runs a command that must not fail.
    reply_ptr ok(const std::vector<std::string_view>& args) {
        reply_ptr r = run(args);
        if (r->type == REDIS_REPLY_ERROR)
            throw std::runtime_error("redis: " + std::string(args[0]) + ": " + text(r.get()));
        return r;
    }
    static std::string text(const redisReply* r) { return std::string(r->str, r->len); }

private:
    std::unique_ptr<redisContext, context_deleter> c_;
};

/// A redis-server child process; stopped (SIGTERM, then SIGKILL) by the destructor.
class server {
public:
    server(const std::string& binary, const std::string& dir) {
        for (int attempt = 0; attempt < 5 && !conn_; ++attempt) start(binary, dir);
        if (!conn_) throw std::runtime_error("could not start redis-server (see " + dir + ")");
    }
    ~server() { stop(); }
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    redis& db() { return *conn_; }
    int port() const { return port_; }

    void stop() noexcept {
        conn_.reset();
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

private:
    void start(const std::string& binary, const std::string& dir) {
        port_ = free_port();
        const std::string port = std::to_string(port_);
        const std::string log = dir + "/redis.log";
        std::vector<std::string> args = {
            binary, "--port", port, "--bind",    "127.0.0.1", "--save",      "",  "--appendonly",
            "no",   "--dir",  dir,  "--logfile", log,         "--daemonize", "no"};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error("fork() failed");
        if (pid == 0) {
#ifdef __linux__
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the test
#endif
            const int devnull = ::open("/dev/null", O_RDWR);
            if (devnull >= 0) {
                ::dup2(devnull, 0);
                ::dup2(devnull, 1);
            }
            ::execv(binary.c_str(), argv.data());
            ::_exit(127);
        }
        pid_ = pid;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {  // exited: port taken, bad binary
                pid_ = -1;
                return;
            }
            const timeval tv{1, 0};
            std::unique_ptr<redisContext, context_deleter> c(
                redisConnectWithTimeout("127.0.0.1", port_, tv));
            if (c && c->err == 0) {
                redisSetTimeout(c.get(), timeval{20, 0});
                conn_ = std::make_unique<redis>(std::move(c));
                try {
                    if (redis::text(conn_->ok({"PING"}).get()) == "PONG") return;
                } catch (const std::exception&) {
                }
                conn_.reset();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        stop();
    }

    pid_t pid_ = -1;
    int port_ = 0;
    std::unique_ptr<redis> conn_;
};

// ------------------------------------------------------------------------------------------------
// Random data
// ------------------------------------------------------------------------------------------------

std::uint64_t bits_of(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

std::string score_text(double d) {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%.17g", d);  // "inf", "-inf", "-0" included
    return std::string(buf, static_cast<std::size_t>(n));
}

double parse_score(const std::string& s) {
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) throw std::runtime_error("bad score reply: " + s);
    return d;
}

const double inf = std::numeric_limits<double>::infinity();
const std::vector<double> special_scores = {0.0,
                                            -0.0,
                                            inf,
                                            -inf,
                                            1.0,
                                            -1.0,
                                            0.1,
                                            -2.75,
                                            5e-324,
                                            -5e-324,
                                            1e-310,
                                            2.2250738585072009e-308,
                                            2.2250738585072014e-308,
                                            std::numeric_limits<double>::max(),
                                            std::numeric_limits<double>::lowest(),
                                            9007199254740993.0,
                                            4611686018427387904.0,
                                            4611686018427387903.0,
                                            -4611686018427387904.0,
                                            9223372036854775807.0,
                                            1e17,
                                            123456789012.0,
                                            -8388608.0,
                                            2147483648.0};

struct generator {
    std::mt19937_64 rng;

    std::uint64_t below(std::uint64_t n) { return rng() % n; }

    std::string member(std::size_t i, std::size_t max_len) {
        std::string m;
        switch (below(8)) {
        case 0:  // integer-like: stored as an integer inside a listpack
            m = std::to_string(static_cast<long long>(below(20000000)) - 10000000);
            break;
        case 1:
            m = std::to_string(static_cast<long long>(rng() >> 1) - (1LL << 62));
            break;
        case 2: {  // exactly 64 or 65 bytes (the default value threshold and one over)
            const std::size_t len =
                max_len >= 65 ? 64 + below(2) : std::min<std::size_t>(64, max_len);
            m = std::to_string(i) + "-";
            while (m.size() < len) m.push_back(static_cast<char>('a' + below(26)));
            m.resize(len);
            break;
        }
        case 3:
            m = std::string("\0\xff", 2) + std::to_string(i) + std::string("\0", 1);
            break;
        case 4:
            m = "";
            break;
        default: {
            m.resize(below(std::min<std::size_t>(max_len, 40) + 1));
            for (char& c : m) c = static_cast<char>(static_cast<unsigned char>(rng() & 0xFFu));
            if (below(10) == 0) m.resize(below(max_len + 1), 'r');  // long, compressible
        }
        }
        if (m.size() > max_len) m.resize(max_len);
        return m;
    }

    double score() {
        double d = 0;
        switch (below(6)) {
        case 0:
            return special_scores[below(special_scores.size())];
        case 1:
            return static_cast<double>(static_cast<long long>(below(2000)) - 1000);
        case 2:
            return static_cast<double>(below(4));  // ties: member order decides
        case 3: {
            const std::uint64_t u = rng();
            std::memcpy(&d, &u, sizeof d);
            return std::isnan(d) ? -0.0 : d;
        }
        case 4:
            return std::ldexp(static_cast<double>(below(1u << 20)),
                              static_cast<int>(below(80)) - 40);
        default:
            return static_cast<double>(static_cast<long long>(below(1u << 30))) / 1000.0;
        }
    }

    /// Unique members with scores (insertion order, not sorted).
    elements random_elements() {
        std::size_t n = 0;
        const auto r = below(100);
        if (r < 30)
            n = 1 + below(20);
        else if (r < 55)
            n = 110 + below(40);  // around 128
        else if (r < 85)
            n = 1 + below(300);
        else if (r < 93)
            n = 300 + below(700);
        else
            n = 1 + below(4);
        const std::size_t max_len = below(100) < 35 ? 200 : 64;
        elements out;
        std::unordered_set<std::string> seen;
        for (std::size_t i = 0; out.size() < n && i < 4 * n + 10; ++i) {
            std::string m = member(i, max_len);
            if (!seen.insert(m).second) continue;
            out.emplace_back(std::move(m), score());
        }
        return out;
    }
};

// ------------------------------------------------------------------------------------------------
// The checks
// ------------------------------------------------------------------------------------------------

struct failures {
    int count = 0;
    void add(const std::string& what) {
        if (++count <= 15) std::printf("FAIL: %s\n", what.c_str());
    }
};

struct redis_element {
    std::string member;
    double score;
};

std::vector<redis_element> zrange(redis& db, std::string_view key) {
    reply_ptr r = db.ok({"ZRANGE", key, "0", "-1", "WITHSCORES"});
    if (r->type != REDIS_REPLY_ARRAY || r->elements % 2 != 0)
        throw std::runtime_error("ZRANGE: unexpected reply");
    std::vector<redis_element> out;
    for (std::size_t i = 0; i < r->elements; i += 2)
        out.push_back({redis::text(r->element[i]), parse_score(redis::text(r->element[i + 1]))});
    return out;
}

std::string object_encoding(redis& db, std::string_view key) {
    return redis::text(db.ok({"OBJECT", "ENCODING", key}).get());
}

const char* name(zset::encoding e) {
    return e == zset::encoding::listpack ? "listpack" : "skiplist";
}

/// ZADD key with all elements (in chunks).
void zadd(redis& db, std::string_view key, const elements& els) {
    for (std::size_t i = 0; i < els.size();) {
        std::vector<std::string> scores;
        std::vector<std::string_view> args = {"ZADD", key};
        const std::size_t end = std::min(els.size(), i + 200);
        scores.reserve(end - i);
        for (std::size_t j = i; j < end; ++j) scores.push_back(score_text(els[j].second));
        for (std::size_t j = i; j < end; ++j) {
            args.push_back(scores[j - i]);
            args.push_back(els[j].first);
        }
        db.ok(args);
        i = end;
    }
}

std::string describe(const std::string& where, std::size_t set_no, std::size_t n) {
    return where + " set #" + std::to_string(set_no) + " (" + std::to_string(n) + " elements)";
}

/// Redis 7.0's loader: a listpack / ziplist payload stays a listpack unless it has more than
/// zset-max-listpack-entries elements (member lengths are not looked at); a ZSET / ZSET_2 payload
/// becomes a listpack when it fits both thresholds.
std::string redis_load_encoding(unsigned type, std::size_t n, std::size_t longest,
                                std::size_t entries, std::size_t value) {
    if (type == 17 || type == 12) return n > entries ? "skiplist" : "listpack";
    return n <= entries && longest <= value ? "listpack" : "skiplist";
}

struct tally {
    std::map<std::pair<unsigned, unsigned>, int> version_type;  // (rdb version, type) -> sets
    std::map<std::string, int> notes;
    int sets = 0;
};

void print_tally(const char* title, const tally& t) {
    std::printf("%s: %d sets\n", title, t.sets);
    std::printf("  payloads by RDB version / type:");
    for (const auto& [vt, n] : t.version_type)
        std::printf("  v%u/type %u: %d", vt.first, vt.second, n);
    std::printf("\n");
    for (const auto& [k, n] : t.notes) std::printf("  %s: %d\n", k.c_str(), n);
}

/// zset::dump -> RESTORE -> ZRANGE / OBJECT ENCODING / DUMP.
void zset_to_redis(redis& db, generator& gen, std::size_t sets, tally& t, failures& fail) {
    db.ok({"CONFIG", "SET", "zset-max-listpack-entries", "128"});
    db.ok({"CONFIG", "SET", "zset-max-listpack-value", "64"});
    db.ok({"CONFIG", "SET", "rdbcompression", "no"});
    const std::uint16_t versions[] = {10, 10, 10, 10, 9, 8, 7};
    for (std::size_t k = 0; k < sets; ++k) {
        const elements els = gen.random_elements();
        // The set's own thresholds: mostly Redis's defaults, sometimes smaller or larger.
        zset::options so;
        const auto pick = gen.below(10);
        if (pick == 0) so = zset::options{8, 16};
        if (pick == 1) so = zset::options{400, 250};
        set_t s(so);
        for (const auto& e : els) s.add(e.first, e.second);

        rdb::dump_options o = zset::dump_options_for(s);
        o.rdb_version = versions[gen.below(std::size(versions))];
        o.compress = gen.below(3) == 0;
        const std::string p = gen.below(4) == 0 && o.rdb_version == 10 && !o.compress
                                  ? zset::dump(s)
                                  : zset::dump(s, o);
        const unsigned type = static_cast<unsigned char>(p[0]);
        ++t.sets;
        ++t.version_type[{o.rdb_version, type}];
        if (o.compress) ++t.notes["written with compress (LZF)"];
        const std::string where = describe("zset->redis", k, s.size());

        reply_ptr r = db.run({"RESTORE", "k", "0", p, "REPLACE"});
        if (r->type == REDIS_REPLY_ERROR) {
            fail.add(where + ": RESTORE refused: " + redis::text(r.get()));
            continue;
        }
        std::size_t longest = 0;
        for (const auto& e : s) longest = std::max(longest, e.member.size());
        const std::string enc = object_encoding(db, "k");
        const std::string want_enc = redis_load_encoding(type, s.size(), longest, 128, 64);
        if (enc != want_enc)
            fail.add(where + ": OBJECT ENCODING " + enc + ", expected " + want_enc + " (type " +
                     std::to_string(type) + ")");
        ++t.notes["redis encoding after RESTORE: " + enc];

        // ZRANGE equals the set. -0.0 survives only a ZSET_2 payload loaded as a skiplist.
        const bool zero_sign_kept = type == 5 && enc == "skiplist";
        const auto got = zrange(db, "k");
        bool equal = got.size() == s.size();
        auto it = s.begin();
        for (std::size_t i = 0; equal && i < got.size(); ++i, ++it) {
            const auto e = *it;
            double want = e.score;
            if (want == 0 && !zero_sign_kept) want = 0.0;
            equal = got[i].member == e.member && bits_of(got[i].score) == bits_of(want);
            if (!equal)
                fail.add(where + ": ZRANGE differs at rank " + std::to_string(i) + ": score " +
                         score_text(got[i].score) + " vs " + score_text(want));
        }
        if (got.size() != s.size())
            fail.add(where + ": ZRANGE has " + std::to_string(got.size()) + " elements");
        if (equal) ++t.notes["ZRANGE WITHSCORES equal"];
        for (const auto& e : s)
            if (e.score == 0 && std::signbit(e.score)) {
                ++t.notes[zero_sign_kept ? "-0 kept (ZSET_2 -> skiplist)" : "-0 read back as 0"];
                break;
            }

        // Our restore of the same payload, with the server's thresholds.
        const set_t ours = zset::restore<set_t>(p);
        if (name(ours.encoding()) != enc) {
            // Expected only for a listpack payload with a member over 64 bytes: Redis keeps it
            // a listpack, restore() takes the smallest encoding that fits (skiplist).
            if (!((type == 17 || type == 12) && longest > 64 && enc == "listpack"))
                fail.add(where + ": restore() gave " + name(ours.encoding()) + ", Redis " + enc);
            else
                ++t.notes["listpack payload with a >64-byte member: Redis keeps listpack, "
                          "restore() gives skiplist"];
        }

        // Redis's own DUMP of the key is byte-identical to ours when the encoding did not change.
        const bool same_encoding =
            (type == 17 && enc == "listpack") || (type == 5 && enc == "skiplist");
        if (same_encoding && o.rdb_version == 10 && !o.compress) {
            const std::string theirs = redis::text(db.ok({"DUMP", "k"}).get());
            if (theirs != p)
                fail.add(where + ": Redis's DUMP differs from zset::dump");
            else
                ++t.notes["Redis's re-DUMP byte-identical to zset::dump"];
        }
    }
}

/// ZADD -> DUMP -> zset::restore, with varied server thresholds and rdbcompression.
void redis_to_zset(redis& db, generator& gen, std::size_t sets, tally& t, failures& fail) {
    struct config {
        std::size_t entries, value;
    };
    const config configs[] = {{128, 64}, {128, 64}, {128, 64}, {16, 16}, {300, 100}, {0, 64}};
    for (std::size_t k = 0; k < sets; ++k) {
        if (k % 25 == 0) {  // a new server configuration every 25 sets
            const config c = configs[(k / 25) % std::size(configs)];
            db.ok({"CONFIG", "SET", "zset-max-listpack-entries", std::to_string(c.entries)});
            db.ok({"CONFIG", "SET", "zset-max-listpack-value", std::to_string(c.value)});
            db.ok({"CONFIG", "SET", "rdbcompression", (k / 25) % 2 == 0 ? "yes" : "no"});
        }
        const config c = configs[(k / 25) % std::size(configs)];
        const bool compression = (k / 25) % 2 == 0;
        const zset::options zo{c.entries, c.value};

        const elements els = gen.random_elements();
        db.ok({"DEL", "r"});
        zadd(db, "r", els);
        bool shrunk = false;
        if (els.size() > 20 && gen.below(8) == 0) {  // a skiplist that shrank: ZSET_2, small
            db.ok({"ZREMRANGEBYRANK", "r", std::to_string(gen.below(5) + 1), "-1"});
            shrunk = true;
        }
        const std::string p = redis::text(db.ok({"DUMP", "r"}).get());
        const std::string enc = object_encoding(db, "r");
        const auto want = zrange(db, "r");
        const unsigned type = static_cast<unsigned char>(p.at(0));
        const std::string where = describe("redis->zset", k, want.size()) + " (thresholds " +
                                  std::to_string(c.entries) + "/" + std::to_string(c.value) + ")";
        ++t.sets;
        const unsigned version =
            static_cast<unsigned char>(p[p.size() - 10]) |
            (static_cast<unsigned>(static_cast<unsigned char>(p[p.size() - 9])) << 8);
        ++t.version_type[{version, type}];
        ++t.notes[std::string("rdbcompression ") + (compression ? "yes" : "no")];
        ++t.notes["redis encoding: " + enc];
        if (shrunk) ++t.notes["shrunk by ZREMRANGEBYRANK"];
        if ((enc == "listpack") != (type == 17)) fail.add(where + ": type vs encoding " + enc);

        set_t ours;
        try {
            ours = zset::restore<set_t>(p, zo);
        } catch (const std::exception& e) {
            fail.add(where + ": restore() threw: " + e.what());
            continue;
        }
        if (!ours.validate()) fail.add(where + ": restored set fails validate()");

        bool equal = ours.size() == want.size();
        auto it = ours.begin();
        for (std::size_t i = 0; equal && i < want.size(); ++i, ++it) {
            const auto e = *it;
            equal = e.member == want[i].member && bits_of(e.score) == bits_of(want[i].score);
            if (!equal)
                fail.add(where + ": element " + std::to_string(i) + " differs: score " +
                         score_text(e.score) + " vs Redis " + score_text(want[i].score));
        }
        if (ours.size() != want.size())
            fail.add(where + ": " + std::to_string(ours.size()) + " elements, Redis " +
                     std::to_string(want.size()));
        if (equal) ++t.notes["restore() equal to ZRANGE WITHSCORES (bit-exact)"];
        for (const auto& e : want)
            if (e.score == 0 && std::signbit(e.score)) {
                ++t.notes["-0 present in Redis (skiplist) and restored"];
                break;
            }

        // Encoding: what Redis's RESTORE of its own payload gives (same thresholds), and the
        // key's own encoding unless it shrank (erasing never converts back, in either).
        db.ok({"RESTORE", "r2", "0", p, "REPLACE"});
        const std::string enc2 = object_encoding(db, "r2");
        if (name(ours.encoding()) != enc2)
            fail.add(where + ": restore() gave " + name(ours.encoding()) + ", Redis RESTORE " +
                     enc2);
        else
            ++t.notes["encoding equal to Redis RESTORE's"];
        if (!shrunk && name(ours.encoding()) != enc)
            fail.add(where + ": restore() gave " + name(ours.encoding()) + ", OBJECT ENCODING " +
                     enc);

        // Compressed or not, our dump with the same thresholds reproduces Redis's payload
        // (compression: only the content, as our LZF bytes differ from liblzf's).
        const std::string again = zset::dump(ours);
        if (!compression && !shrunk && again != p)
            fail.add(where + ": zset::dump differs from DUMP");
        if (compression) {
            if (again != p) ++t.notes["Redis payload LZF-compressed (differs from uncompressed)"];
            if (zset::restore<set_t>(again, zo) != ours) fail.add(where + ": re-dump round trip");
        } else if (!shrunk && again == p) {
            ++t.notes["zset::dump byte-identical to Redis's DUMP"];
        }
    }
}

/// Edge cases: empty set, newer RDB versions, bad checksum. Redis's errors equal ours.
void edge_cases(redis& db, std::map<std::string, int>& notes, failures& fail) {
    db.ok({"CONFIG", "SET", "zset-max-listpack-entries", "128"});
    db.ok({"CONFIG", "SET", "zset-max-listpack-value", "64"});
    auto expect_same_error = [&](const std::string& what, const std::string& payload,
                                 const rdb::restore_options& ro) {
        reply_ptr r = db.run({"RESTORE", "e", "0", payload, "REPLACE"});
        std::string ours = "(accepted)";
        try {
            (void)zset::restore<set_t>(payload, {}, ro);
        } catch (const rdb::format_error& e) {
            ours = std::string(e.redis_error());
        }
        const std::string theirs =
            r->type == REDIS_REPLY_ERROR ? redis::text(r.get()) : "(accepted)";
        if (theirs != ours)
            fail.add(what + ": Redis says \"" + theirs + "\", zset::restore \"" + ours + "\"");
        else
            ++notes[what + ": both \"" + ours + "\""];
    };
    rdb::restore_options redis70;
    redis70.max_rdb_version = 10;

    // Empty: Redis cannot DUMP it (no key) and RESTORE refuses a zero-element payload.
    const set_t empty;
    reply_ptr missing = db.ok({"DUMP", "no-such-key"});
    if (missing->type != REDIS_REPLY_NIL) fail.add("DUMP of a missing key is not nil");
    for (auto type : {rdb::payload_type::zset_listpack, rdb::payload_type::zset_2}) {
        rdb::dump_options o;
        o.force_type = type;
        expect_same_error("empty set, type " + std::to_string(static_cast<unsigned>(type)),
                          zset::dump(empty, o), {});
    }
    expect_same_error("empty set, zset::dump default", zset::dump(empty), {});

    // RDB versions 11 / 12 (Redis 7.2 / 7.4+): refused by 7.0 like by restore(max_rdb_version 10).
    const set_t s{{"a", 1}, {"b", 2}};
    for (std::uint16_t v : {std::uint16_t{11}, std::uint16_t{12}}) {
        rdb::dump_options o;
        o.rdb_version = v;
        expect_same_error("RDB version " + std::to_string(v), zset::dump(s, o), redis70);
        if (zset::restore<set_t>(zset::dump(s, o)) != s) fail.add("RDB version 11/12 by default");
    }
    // Bad checksum / truncated footer.
    std::string bad = zset::dump(s);
    bad[2] = static_cast<char>(bad[2] ^ 1);
    expect_same_error("flipped byte", bad, {});
    expect_same_error("truncated", zset::dump(s).substr(0, 8), {});
    // A valid payload of a string, not a sorted set.
    db.ok({"SET", "str", "hello"});
    const std::string str_payload = redis::text(db.ok({"DUMP", "str"}).get());
    try {
        (void)zset::restore<set_t>(str_payload);
        fail.add("a string payload was accepted");
    } catch (const rdb::format_error& e) {
        if (e.redis_error() != "ERR Bad data format")
            fail.add("string payload: wrong error kind");
        else
            ++notes["Redis string payload refused: \"ERR Bad data format\""];
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string binary = find_redis_server(argc, argv);
    if (binary.empty()) {
        std::printf("SKIP: redis-server not found (pass its path or set ZSET_REDIS_SERVER)\n");
        return skip_code;
    }
    std::uint64_t seed = std::random_device{}();
    if (const char* e = std::getenv("ZSET_LIVE_SEED"); e && *e) seed = std::strtoull(e, nullptr, 0);
    std::size_t sets = 600;
    if (const char* e = std::getenv("ZSET_LIVE_SETS"); e && *e) sets = std::strtoull(e, nullptr, 0);

    char dir_template[] = "/tmp/zset-live-XXXXXX";
    const char* dir = ::mkdtemp(dir_template);
    if (dir == nullptr) {
        std::printf("FAIL: mkdtemp\n");
        return 1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    failures fail;
    int status = 0;
    try {
        server srv(binary, dir);
        redis& db = srv.db();
        const std::string info = redis::text(db.ok({"INFO", "server"}).get());
        std::string version = "?";
        if (const auto pos = info.find("redis_version:"); pos != std::string::npos)
            version = info.substr(pos + 14, info.find_first_of("\r\n", pos) - pos - 14);
        std::printf("zset live DUMP/RESTORE test: redis-server %s on port %d, seed %llu "
                    "(ZSET_LIVE_SEED=%llu to repeat), %zu sets each way\n",
                    version.c_str(), srv.port(), static_cast<unsigned long long>(seed),
                    static_cast<unsigned long long>(seed), sets);

        generator gen{std::mt19937_64(seed)};
        tally a, b;
        zset_to_redis(db, gen, sets, a, fail);
        redis_to_zset(db, gen, sets, b, fail);
        std::map<std::string, int> edge;
        edge_cases(db, edge, fail);

        print_tally("zset -> redis (zset::dump, RESTORE, ZRANGE WITHSCORES)", a);
        print_tally("redis -> zset (ZADD, DUMP, zset::restore)", b);
        std::printf("edge cases:\n");
        for (const auto& [k, n] : edge) std::printf("  %s\n", k.c_str());
        srv.stop();
    } catch (const std::exception& e) {
        std::printf("FAIL: %s\n", e.what());
        status = 1;
    }
    const std::string log = std::string(dir) + "/redis.log";
    if (fail.count == 0 && status == 0) {
        ::unlink(log.c_str());
        ::rmdir(dir);
    } else {
        std::printf("redis-server log kept in %s\n", log.c_str());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %d failure(s), %.1f s\n", fail.count == 0 && status == 0 ? "PASS" : "FAIL",
                fail.count, secs);
    return fail.count == 0 && status == 0 ? 0 : 1;
}
