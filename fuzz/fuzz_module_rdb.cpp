// The Redis module's RDB decoder fuzzer: zset::module::type_callbacks::rdb_load (the loader of
// every RESTORE, RDB file, full sync, MIGRATE and AOF preamble holding a module key) over
// arbitrary bytes, through stand-ins for the module API's load functions.
//
// Properties: rdb_load never crashes, never throws and never leaks; a value it returns is a
// valid sorted set (validate(), every member distinct and found with its score, scores ascending
// with members ascending within a score, no NaN, listpack mode only within the entry threshold),
// and saved again through rdb_save it loads again as the same elements. A refused payload has
// been reported through LogIOError.
//
// Input layout: [options byte][module value body...]. The body is what Redis hands rdb_load: a
// module value after the RDB type and the module id, in the module API's opcode-tagged form
// (each LoadUnsigned reads opcode 2 and an RDB length, each LoadStringBuffer opcode 5 and an
// RDB string (raw, integer encoded or LZF), each LoadDouble opcode 4 and 8 little-endian bytes);
// a missing value or another opcode is an I/O error, as Redis reports it to a module that
// handles I/O errors, and every load after it yields 0. Options: bits 0-1 choose
// zset-max-listpack-entries (128, 0, 4, 512), bits 2-3 zset-max-listpack-value (64, 0, 4,
// 1024), bit 4 asks for encoding version 2 (which rdb_load refuses).
//
// Seeds (fuzz/corpus/module_rdb/): DUMP payloads of module keys made on redis-server 7.0.15
// with zset.so loaded (ZSET.ZADD, then DUMP), each cut to its body (the payload minus its first
// 10 bytes (the RDB type and the module id) and its last 11 (the EOF opcode, the RDB version
// and the CRC64)) behind an options byte of 0: a small set in listpack mode, one with integer
// and LZF-compressed members, one in skiplist mode past the thresholds, and an empty set.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "type.hpp"
#include <zset/detail/dump/codec.hpp>

namespace {

namespace rdb = zset::detail::rdb;

constexpr std::uint64_t opcode_uint = 2;
constexpr std::uint64_t opcode_double = 4;
constexpr std::uint64_t opcode_string = 5;

/// The stand-in for Redis's RedisModuleIO: a reader over the body (loading) or the bytes
/// written (saving), and whether an I/O error was reported.
struct fake_io {
    rdb::decode_status status;
    rdb::reader in;
    std::string out;
    bool error = false;
    bool logged = false;

    fake_io(const unsigned char* p, std::size_t n) : in(p, n, "module value", status) {}
};

fake_io& io_of(rmapi::IO* io) {
    return *reinterpret_cast<fake_io*>(io);
}

/// Reads the opcode a load expects; false (and the I/O error) on a short read or another one.
bool expect_opcode(fake_io& f, std::uint64_t opcode) {
    if (f.error) return false;
    const std::uint64_t got = rdb::read_plain_length(f.in);
    if (!f.in.ok() || got != opcode) f.error = true;
    return !f.error;
}

std::uint64_t load_unsigned(rmapi::IO* io) {
    fake_io& f = io_of(io);
    if (!expect_opcode(f, opcode_uint)) return 0;
    const std::uint64_t v = rdb::read_plain_length(f.in);
    if (!f.in.ok()) f.error = true;
    return f.error ? 0 : v;
}

char* load_string_buffer(rmapi::IO* io, std::size_t* len) {
    fake_io& f = io_of(io);
    *len = 0;
    if (!expect_opcode(f, opcode_string)) return nullptr;
    const std::string s = rdb::read_string(f.in);
    if (!f.in.ok()) {
        f.error = true;
        return nullptr;
    }
    // as Redis's: a buffer of the string's length from the module allocator, freed with Free
    char* buf = static_cast<char*>(std::malloc(s.empty() ? 1 : s.size()));
    if (!s.empty()) std::memcpy(buf, s.data(), s.size());
    *len = s.size();
    return buf;
}

double load_double(rmapi::IO* io) {
    fake_io& f = io_of(io);
    if (!expect_opcode(f, opcode_double)) return 0;
    const std::uint64_t bits = f.in.le(8);
    if (!f.in.ok()) {
        f.error = true;
        return 0;
    }
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

int is_io_error(rmapi::IO* io) {
    return io_of(io).error ? 1 : 0;
}

void save_unsigned(rmapi::IO* io, std::uint64_t v) {
    std::string& out = io_of(io).out;
    rdb::write_length(out, opcode_uint);
    rdb::write_length(out, v);
}

void save_string_buffer(rmapi::IO* io, const char* s, std::size_t len) {
    std::string& out = io_of(io).out;
    rdb::write_length(out, opcode_string);
    rdb::write_string(out, std::string_view(s, len), true);
}

void save_double(rmapi::IO* io, double v) {
    std::string& out = io_of(io).out;
    rdb::write_length(out, opcode_double);
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFFu);
}

void log_io_error(rmapi::IO* io, const char*, const char* fmt, ...) {
    char buf[256];
    std::va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    io_of(io).logged = true;
}

void* alloc(std::size_t n) {
    void* p = std::malloc(n == 0 ? 1 : n);
    if (p == nullptr) std::abort();  // RedisModule_Alloc never returns null
    return p;
}

void install_api() {
    rmapi::LoadUnsigned = load_unsigned;
    rmapi::LoadStringBuffer = load_string_buffer;
    rmapi::LoadDouble = load_double;
    rmapi::IsIOError = is_io_error;
    rmapi::SaveUnsigned = save_unsigned;
    rmapi::SaveStringBuffer = save_string_buffer;
    rmapi::SaveDouble = save_double;
    rmapi::LogIOError = log_io_error;
    rmapi::Alloc = alloc;
    rmapi::Free = [](void* p) { std::free(p); };
}

using elements = std::vector<std::pair<std::string, double>>;

/// Checks a value rdb_load returned and returns its elements.
elements check_value(const zset::module::value& v, const zset::options& thresholds) {
    ZSET_FUZZ_CHECK(v.validate());
    if (v.encoding() == zset::encoding::listpack)
        ZSET_FUZZ_CHECK(v.size() <= thresholds.max_listpack_entries);
    elements els;
    std::unordered_set<std::string> members;
    for (const auto& e : v) {
        ZSET_FUZZ_CHECK(!std::isnan(e.score));
        if (!els.empty()) {
            const auto& [pm, ps] = els.back();
            ZSET_FUZZ_CHECK(ps < e.score || (ps == e.score && std::string_view(pm) < e.member));
        }
        ZSET_FUZZ_CHECK(members.emplace(e.member).second);
        const auto found = v.score(e.member);
        ZSET_FUZZ_CHECK(found.has_value() && *found == e.score);
        els.emplace_back(std::string(e.member), e.score);
    }
    ZSET_FUZZ_CHECK(els.size() == v.size());
    return els;
}

/// rdb_load over `body`: the value (null when refused); a refusal was logged.
zset::module::value* load(const unsigned char* body, std::size_t size, int encver) {
    fake_io f(body, size);
    void* v = zset::module::type_callbacks::rdb_load(reinterpret_cast<rmapi::IO*>(&f), encver);
    if (v == nullptr) ZSET_FUZZ_CHECK(f.logged);
    return static_cast<zset::module::value*>(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    install_api();
    zset_fuzz::input in(data, size);
    const unsigned options = in.byte();
    static constexpr std::size_t entries[] = {128, 0, 4, 512};
    static constexpr std::size_t lengths[] = {64, 0, 4, 1024};
    zset::options thresholds;
    thresholds.max_listpack_entries = entries[options & 3u];
    thresholds.max_listpack_value = lengths[(options >> 2) & 3u];
    zset::module::state().thresholds = thresholds;
    const int encver = (options & 16u) ? 2 : zset::module::encoding_version;
    const std::string_view body = in.rest();

    zset::module::value* v =
        load(reinterpret_cast<const unsigned char*>(body.data()), body.size(), encver);
    if (v == nullptr) return 0;
    ZSET_FUZZ_CHECK(encver == zset::module::encoding_version);
    const elements els = check_value(*v, thresholds);

    // saved again, it loads again as the same elements
    fake_io saved(nullptr, 0);
    zset::module::type_callbacks::rdb_save(reinterpret_cast<rmapi::IO*>(&saved), v);
    zset::module::type_callbacks::free_value(v);
    zset::module::value* again =
        load(reinterpret_cast<const unsigned char*>(saved.out.data()), saved.out.size(), encver);
    ZSET_FUZZ_CHECK(again != nullptr);
    const elements els2 = check_value(*again, thresholds);
    zset::module::type_callbacks::free_value(again);
    ZSET_FUZZ_CHECK(els2.size() == els.size());
    for (std::size_t i = 0; i < els.size(); ++i) {
        ZSET_FUZZ_CHECK(els2[i].first == els[i].first);
        ZSET_FUZZ_CHECK(els2[i].second == els[i].second);
    }
    return 0;
}
