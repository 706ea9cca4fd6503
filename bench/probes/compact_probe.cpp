// Issue 64's compact small-set encoding, measured before anything is built into the library: one
// candidate design as a self-contained set (compact_set below, NOT used by include/ or module/),
// its bytes and its speed against today's zset::sorted_set<std::string, double> in listpack
// mode on the same data, and Redis 7.0's listpack bytes for the same elements (computed as
// bench/shapes_estimate.py computes them). Results: bench/results/compact-encoding.md.
//
// The design: one allocation, no per-set object besides the pointer to it.
//
//   [header: u16 bytes (header + records), u8 count, u8 capacity class]
//   [records in (score, member) order][free room][checkpoints][fingerprints: u8 x count]
//
// * A record is [tag][length byte, only if the member is 31 bytes or longer][score][member].
//   The tag's top 3 bits are the score's kind, its low 5 bits the member's length (31: the
//   length is 31 + the next byte; members up to 286 bytes, longer ones are out of the probe's
//   scope: the library converts at 64 bytes by default).
// * Score kinds: an integral value in 1 (0..255), 2, 3, 4, 6 or 8 bytes (two's complement,
//   little-endian), a double that is exactly a float in 4 bytes, any other double in 8. -0.0 is
//   kept as a float (an integer would lose its sign). A score is decoded to a double to compare.
// * Fingerprints (template parameter Fp): one byte a member (the top byte of zset's
//   short_bytes_fingerprint, or of hash_bytes above 16 bytes), kept at the allocation's end in
//   rank order, compared 16 at a time with SSE2. A match at rank i is confirmed by reaching the
//   i-th record and comparing the member. Without them a lookup walks the records and compares
//   every member of the same length.
// * A sparse rank index (template parameter Idx, needs Fp): a checkpoint [u16 offset][u8 rank]
//   for every 8 ranks after the first 8, between the records' free room and the fingerprints,
//   each within 7 ranks of its place. The i-th record is reached from the checkpoint below it
//   (at most 22 steps, tags only; without the index, from the first record), and an insert
//   position by binary search over the checkpoints and a short walk.
// * Growth (template parameter Exact): to the next jemalloc size class that fits (16-byte steps
//   to 128, then four classes a doubling), or exactly to the bytes needed on every insert (what
//   Redis's listpack does: a realloc an insert). Under jemalloc both end in the same class (the
//   bytes mode checks it). With class growth an erase never shrinks the allocation; exact growth
//   reallocs on every erase too, as Redis's listpack does.
//
// Build (no CMake target, a measurement aid):
//   g++ -std=c++17 -O2 -DNDEBUG -I include bench/probes/compact_probe.cpp -o build/compact_probe
// Run:
//   build/compact_probe bytes               # bytes per element at the shapes
//   build/compact_probe verify [ops]        # every variant against zset::sorted_set, random ops
//   PROBE_NO_WARM_UP=1 leaves out the untimed build that precedes every measured op
//   build/compact_probe time [rounds] [sets] [lookup_sets] [op,op,...]
//       thread CPU time per op: median and range over rounds, implementations alternated
//   valgrind --tool=callgrind --collect-atstart=no build/compact_probe one <op> <impl> <sets>
//       one op of one implementation; only the op itself is collected (CALLGRIND_TOGGLE_COLLECT)
//       and the probe prints how many operations it made: instructions / op = Ir / that count.
//   ops: build_rand build_int score_hit score_miss rank range10 erase
//   impls: today compact compact_fp compact_fp_idx compact_exact compact_fp_exact
//          compact_fp_idx_exact
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROBE_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#else
#define PROBE_TOGGLE() ((void)0)
#endif

#include "../bench_support.hpp"  // the bench's data: score_of, member_name, rng (inline parts)
#include "counting_allocator.hpp"
#include <zset/sorted_set.hpp>

namespace {

using u8 = std::uint8_t;
using std::size_t;

using probe::jemalloc_class;

// ---- score packing ----------------------------------------------------------------------------

enum kind : u8 { k_u8, k_i16, k_i24, k_i32, k_i48, k_i64, k_f32, k_f64 };
constexpr u8 kind_width[8] = {1, 2, 3, 4, 6, 8, 4, 8};

/// The kind a score is stored as (F32: whether a double that is exactly a float takes 4 bytes).
template <bool F32>
u8 kind_of(double x, std::int64_t& iv) {
    if (x == std::trunc(x) && std::fabs(x) < 9223372036854775808.0 &&
        !(x == 0 && std::signbit(x))) {
        iv = static_cast<std::int64_t>(x);
        if (iv >= 0 && iv <= 255) return k_u8;
        if (iv >= -32768 && iv <= 32767) return k_i16;
        if (iv >= -(std::int64_t{1} << 23) && iv < (std::int64_t{1} << 23)) return k_i24;
        if (iv >= -(std::int64_t{1} << 31) && iv < (std::int64_t{1} << 31)) return k_i32;
        if (iv >= -(std::int64_t{1} << 47) && iv < (std::int64_t{1} << 47)) return k_i48;
        return k_i64;
    }
    if (F32 && static_cast<double>(static_cast<float>(x)) == x) return k_f32;
    return k_f64;
}

void put_int(u8* p, std::int64_t v, unsigned width) {
    const auto u = static_cast<std::uint64_t>(v);
    for (unsigned i = 0; i < width; ++i) p[i] = static_cast<u8>(u >> (8 * i));
}

std::int64_t get_int(const u8* p, unsigned width) {
    std::uint64_t u = 0;
    for (unsigned i = 0; i < width; ++i) u |= std::uint64_t{p[i]} << (8 * i);
    const unsigned shift = 64 - 8 * width;
    return static_cast<std::int64_t>(u << shift) >> shift;  // sign-extend
}

void put_score(u8* p, u8 k, double x, std::int64_t iv) {
    if (k == k_f32) {
        const float f = static_cast<float>(x);
        std::memcpy(p, &f, 4);
    } else if (k == k_f64) {
        std::memcpy(p, &x, 8);
    } else {
        put_int(p, iv, kind_width[k]);
    }
}

inline double get_score(u8 k, const u8* p) {
    switch (k) {
    case k_u8:
        return p[0];
    case k_i16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case k_i24:
        return static_cast<double>(get_int(p, 3));
    case k_i32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case k_i48:
        return static_cast<double>(get_int(p, 6));
    case k_i64: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        return static_cast<double>(v);
    }
    case k_f32: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    default: {
        double d;
        std::memcpy(&d, p, 8);
        return d;
    }
    }
}

// ---- member bytes -----------------------------------------------------------------------------

inline std::uint64_t ld8(const u8* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint32_t ld4(const u8* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

/// Whether len bytes at a and b are equal: two overlapping loads up to 16 bytes.
inline bool bytes_equal(const u8* a, const u8* b, size_t len) {
    if (len >= 8) {
        if (len > 16) return std::memcmp(a, b, len) == 0;
        return ((ld8(a) ^ ld8(b)) | (ld8(a + len - 8) ^ ld8(b + len - 8))) == 0;
    }
    if (len >= 4) return ((ld4(a) ^ ld4(b)) | (ld4(a + len - 4) ^ ld4(b + len - 4))) == 0;
    for (size_t i = 0; i < len; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

inline u8 fingerprint(std::string_view m) {
    if (m.size() <= 16)
        return static_cast<u8>(zset::detail::short_bytes_fingerprint(m.data(), m.size()) >> 8);
    return static_cast<u8>(zset::detail::hash_bytes(m.data(), m.size()) >> 56);
}

// ---- the compact set --------------------------------------------------------------------------

constexpr size_t header_bytes = 4;
constexpr size_t max_member = 31 + 255;

/// The jemalloc classes up to 64 KiB, for the capacity byte.
struct class_table {
    std::uint32_t size[256];
    int count = 0;
    class_table() {
        size_t n = 16;
        while (n <= 65536 && count < 256) {
            size[count++] = static_cast<std::uint32_t>(n);
            n = jemalloc_class(n + 1);
        }
    }
    u8 index_for(size_t bytes) const {
        int i = 0;
        while (size[i] < bytes) ++i;
        return static_cast<u8>(i);
    }
};
const class_table g_classes;

/// A record's size from its tag, less the length byte's value when the member is 31+ bytes.
struct record_size_table {
    u8 fixed[256];
    record_size_table() {
        for (unsigned t = 0; t < 256; ++t) {
            const unsigned l = t & 31;
            fixed[t] = static_cast<u8>(1 + kind_width[t >> 5] + (l < 31 ? l : 1 + 31));
        }
    }
};
const record_size_table g_record_size;

template <bool Fp, bool Exact, bool F32 = true, bool Idx = false>
class compact_set {
    static_assert(!Idx || Fp, "the rank index serves the fingerprints' candidates");

public:
    struct element {
        std::string_view member;
        double score;
    };

    compact_set() = default;
    compact_set(const compact_set&) = delete;
    compact_set& operator=(const compact_set&) = delete;
    compact_set(compact_set&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    compact_set& operator=(compact_set&& o) noexcept {
        std::swap(p_, o.p_);
        return *this;
    }
    ~compact_set() { std::free(p_); }

    size_t size() const { return p_ ? p_[2] : 0; }
    /// The allocation's size: what the allocator was asked for.
    size_t allocated() const { return p_ ? capacity() : 0; }

    /// ZADD: 1 if added, 0 if the member was there (its score set to s).
    int add(std::string_view m, double s) {
        std::int64_t iv = 0;
        const u8 k = kind_of<F32>(s, iv);
        if (!p_) {
            grow(header_bytes);
            set_bytes(header_bytes);
            p_[2] = 0;
        }
        size_t rank = 0;
        u8* at = nullptr;  // insert position
        u8* old = nullptr;
        size_t old_rank = 0;
        const u8 fp = Fp ? fingerprint(m) : 0;
        if constexpr (Fp) {
            old = find_fp(m, fp, &old_rank);
            at = lower_bound(s, m, &rank);
        } else {
            // one pass: the member anywhere, and the first record not below (s, m)
            u8* r = p_ + header_bytes;
            u8* const end = p_ + bytes();
            size_t i = 0;
            for (; r < end; ++i) {
                const u8 tag = r[0];
                const size_t len = member_length(r);
                u8* const score = r + 1 + ((tag & 31) == 31);
                u8* const mem = score + kind_width[tag >> 5];
                if (!at &&
                    !record_below(get_score(static_cast<u8>(tag >> 5), score), mem, len, s, m)) {
                    at = r;
                    rank = i;
                }
                if (len == m.size() &&
                    bytes_equal(mem, reinterpret_cast<const u8*>(m.data()), len)) {
                    old = r;
                    old_rank = i;
                    if (at) break;
                }
                r = mem + len;
            }
            if (!at) {
                at = r;
                rank = i;
            }
        }
        if (old) {
            if (score_of_record(old) == s) return 0;
            // erase then insert; the insert position moves back by the erased record if after it
            const size_t old_size = record_size(old);
            if (at > old) {
                at -= old_size;
                --rank;
            }
            const std::ptrdiff_t at_off = at - p_;
            erase_at(old, old_rank);  // (Exact: reallocs)
            at = p_ + at_off;
        }
        const size_t len = m.size();
        const size_t rec = 1 + (len >= 31) + kind_width[k] + len;
        const size_t n = size();
        const size_t c = checkpoints(n), c2 = checkpoints(n + 1);
        const size_t need = bytes() + rec + (Fp ? n + 1 : 0) + 3 * c2;
        size_t cap = capacity();
        if (need > cap) {
            const std::ptrdiff_t off = at - p_;
            cap = grow(need);
            at = p_ + off;
        }
        u8* const end = p_ + bytes();
        std::memmove(at + rec, at, static_cast<size_t>(end - at));
        u8* w = at;
        if (len >= 31) {
            *w++ = static_cast<u8>((k << 5) | 31);
            *w++ = static_cast<u8>(len - 31);
        } else {
            *w++ = static_cast<u8>((k << 5) | len);
        }
        put_score(w, k, s, iv);
        w += kind_width[k];
        std::memcpy(w, m.data(), len);
        set_bytes(bytes() + rec);
        if constexpr (Fp) {
            // the tail [checkpoints][fingerprints] ends at cap: ranks below `rank` move down a
            // byte, the checkpoints down by that byte and 3 more if one is added
            u8* const f = p_ + cap - n;
            u8* const f2 = f - 1;
            if (Idx && c) std::memmove(f2 - 3 * c2, f - 3 * c, 3 * c);
            std::memmove(f2, f, rank);
            f2[rank] = fp;
        }
        p_[2] = static_cast<u8>(n + 1);
        if constexpr (Idx) {
            u8* const cp = p_ + cap - (n + 1) - 3 * c2;
            // checkpoints at or after the new record: 1 rank and rec bytes further; one that
            // drifted 8 ranks past its place, and a new one, walk from the one before
            for (size_t i = 0; i < c; ++i) {
                u8* e = cp + 3 * i;
                if (e[2] >= rank) {
                    const size_t o = cp_off(e) + rec;
                    e[0] = static_cast<u8>(o);
                    e[1] = static_cast<u8>(o >> 8);
                    if (++e[2] > 8 * (i + 1) + 7) anchor(cp, i);
                }
            }
            if (c2 > c) anchor(cp, c);
        }
        return old ? 0 : 1;
    }

    bool score(std::string_view m, double& out) const {
        if (!p_) return false;
        size_t rank;
        const u8* r = find(m, &rank);
        if (!r) return false;
        out = score_of_record(r);
        return true;
    }

    std::optional<size_t> rank(std::string_view m) const {
        if (!p_) return std::nullopt;
        size_t rank;
        if (!find(m, &rank)) return std::nullopt;
        return rank;
    }

    bool erase(std::string_view m) {
        if (!p_) return false;
        size_t rank;
        u8* r = find(m, &rank);
        if (!r) return false;
        erase_at(r, rank);
        return true;
    }

    /// Calls f(element) for the first k elements in order.
    template <class F>
    void first(size_t k, F&& f) const {
        if (!p_) return;
        const u8* r = p_ + header_bytes;
        const u8* const end = p_ + bytes();
        for (size_t i = 0; i < k && r < end; ++i) {
            const u8 tag = r[0];
            const size_t len = member_length(r);
            const u8* score = r + 1 + ((tag & 31) == 31);
            const u8* mem = score + kind_width[tag >> 5];
            f(element{std::string_view(reinterpret_cast<const char*>(mem), len),
                      get_score(static_cast<u8>(tag >> 5), score)});
            r = mem + len;
        }
    }

    /// The structure's invariants; returns an empty string or what is wrong.
    std::string check() const {
        if (!p_) return {};
        const size_t n = size();
        const size_t tail = tail_size(n);
        if (bytes() < header_bytes || bytes() + tail > capacity()) return "bytes > capacity";
        if (!Exact && capacity() != g_classes.size[p_[3]]) return "capacity not a class";
        const u8* r = p_ + header_bytes;
        const u8* const end = p_ + bytes();
        std::vector<std::pair<double, std::string>> seen;
        std::vector<size_t> offsets;
        while (r < end) {
            const u8 tag = r[0];
            const size_t len = member_length(r);
            const u8* score = r + 1 + ((tag & 31) == 31);
            const u8* mem = score + kind_width[tag >> 5];
            if (mem + len > end) return "record past the end";
            const double s = get_score(static_cast<u8>(tag >> 5), score);
            std::int64_t iv = 0;
            if (kind_of<F32>(s, iv) != (tag >> 5)) return "score not in its shortest kind";
            seen.emplace_back(s, std::string(reinterpret_cast<const char*>(mem), len));
            offsets.push_back(static_cast<size_t>(r - p_));
            r = mem + len;
        }
        if (r != end) return "records do not end at bytes";
        if (seen.size() != n) return "count wrong";
        for (size_t i = 1; i < n; ++i)
            if (!(seen[i - 1].first < seen[i].first ||
                  (seen[i - 1].first == seen[i].first && seen[i - 1].second < seen[i].second)))
                return "out of order";
        std::vector<std::string> names;
        for (const auto& e : seen) names.push_back(e.second);
        std::sort(names.begin(), names.end());
        if (std::adjacent_find(names.begin(), names.end()) != names.end())
            return "duplicate member";
        if constexpr (Fp) {
            const u8* f = p_ + capacity() - n;
            for (size_t i = 0; i < n; ++i)
                if (f[i] != fingerprint(seen[i].second)) return "fingerprint wrong";
        }
        if constexpr (Idx) {
            const u8* cp = p_ + capacity() - n - 3 * checkpoints(n);
            for (size_t i = 0; i < checkpoints(n); ++i) {
                const size_t rk = cp[3 * i + 2];
                if (rk + 7 < 8 * (i + 1) || rk > 8 * (i + 1) + 7 || rk >= n)
                    return "checkpoint rank";
                if (cp_off(cp + 3 * i) != offsets[rk]) return "checkpoint offset";
            }
        }
        return {};
    }

private:
    u8* p_ = nullptr;

    size_t bytes() const { return size_t{p_[0]} | size_t{p_[1]} << 8; }
    void set_bytes(size_t b) {
        p_[0] = static_cast<u8>(b);
        p_[1] = static_cast<u8>(b >> 8);
    }
    /// Checkpoints (Idx): one for every 8 ranks after the first 8: [u16 offset][u8 rank], the
    /// i-th at a rank within 7 of 8(i+1). Inserts and erases before a checkpoint shift it a rank;
    /// one that drifts further is set back to 8(i+1) by walking from the one before it.
    static size_t checkpoints(size_t n) { return Idx && n > 0 ? (n - 1) / 8 : 0; }
    static size_t tail_size(size_t n) { return (Fp ? n : 0) + 3 * checkpoints(n); }
    static size_t cp_off(const u8* e) { return size_t{e[0]} | size_t{e[1]} << 8; }
    size_t capacity() const {
        if constexpr (Exact)
            return bytes() + tail_size(size());
        else
            return g_classes.size[p_[3]];
    }
    static size_t member_length(const u8* r) {
        const size_t l = r[0] & 31u;
        return l < 31 ? l : 31 + size_t{r[1]};
    }
    static size_t record_size(const u8* r) {
        const u8 tag = r[0];
        return g_record_size.fixed[tag] + ((tag & 31) == 31 ? size_t{r[1]} : 0);
    }
    static double score_of_record(const u8* r) {
        return get_score(static_cast<u8>(r[0] >> 5), r + 1 + ((r[0] & 31) == 31));
    }
    /// Whether the record (score rs, member rm) orders before (s, m).
    static bool record_below(double rs, const u8* rm, size_t rlen, double s, std::string_view m) {
        if (rs != s) return rs < s;
        const int c = std::memcmp(rm, m.data(), std::min(rlen, m.size()));
        return c < 0 || (c == 0 && rlen < m.size());
    }
    static bool record_below(const u8* r, double s, std::string_view m) {
        const size_t len = member_length(r);
        const u8* score = r + 1 + ((r[0] & 31) == 31);
        return record_below(get_score(static_cast<u8>(r[0] >> 5), score),
                            score + kind_width[r[0] >> 5], len, s, m);
    }

    /// Regrows to hold `need` bytes (header, records and the tail), keeping the tail at the end.
    size_t grow(size_t need) {
        const size_t old_cap = p_ ? capacity() : 0;
        const size_t tail = p_ ? tail_size(size()) : 0;
        size_t cap = need;
        u8 cls = 0;
        if constexpr (!Exact) {
            cls = g_classes.index_for(need);
            cap = g_classes.size[cls];
        }
        u8* q = static_cast<u8*>(std::realloc(p_, cap));
        if (!q) std::abort();
        p_ = q;
        p_[3] = cls;
        if (tail > 0) std::memmove(p_ + cap - tail, p_ + old_cap - tail, tail);
        return cap;
    }

    /// Sets checkpoint i (in the table at cp) to rank 8(i+1), walking from the one before it.
    void anchor(u8* cp, size_t i) {
        size_t rk = 0, off = header_bytes;
        if (i > 0) {
            rk = cp[3 * (i - 1) + 2];
            off = cp_off(cp + 3 * (i - 1));
        }
        const u8* r = p_ + off;
        for (; rk < 8 * (i + 1); ++rk) r += record_size(r);
        off = static_cast<size_t>(r - p_);
        cp[3 * i] = static_cast<u8>(off);
        cp[3 * i + 1] = static_cast<u8>(off >> 8);
        cp[3 * i + 2] = static_cast<u8>(rk);
    }

    /// The record of rank j: from the nearest checkpoint at or below it.
    u8* at_rank(size_t j) const {
        const size_t n = size();
        const u8* cp = p_ + capacity() - n - 3 * checkpoints(n);
        size_t rk = 0, off = header_bytes;
        size_t i = j / 8;  // checkpoint i - 1 is within 7 ranks of 8i; i - 2 is below 8i
        if (i >= 1 && cp[3 * (i - 1) + 2] > j) --i;
        if (i >= 1) {
            rk = cp[3 * (i - 1) + 2];
            off = cp_off(cp + 3 * (i - 1));
        }
        u8* r = p_ + off;
        for (; rk < j; ++rk) r += record_size(r);
        return r;
    }

    void erase_at(u8* r, size_t rank) {
        const size_t rec = record_size(r);
        const size_t n = size();
        const size_t cap = capacity();
        const size_t c = checkpoints(n), c2 = checkpoints(n - 1);
        u8* const end = p_ + bytes();
        std::memmove(r, r + rec, static_cast<size_t>(end - r) - rec);
        set_bytes(bytes() - rec);
        if constexpr (Fp) {
            u8* const f = p_ + cap - n;
            if constexpr (Idx) {
                u8* const cp = f - 3 * c;
                for (size_t i = 0; i < c; ++i) {
                    u8* e = cp + 3 * i;
                    if (e[2] > rank) {
                        const size_t o = cp_off(e) - rec;
                        e[0] = static_cast<u8>(o);
                        e[1] = static_cast<u8>(o >> 8);
                        --e[2];
                    }  // e[2] == rank: the next record moved into its offset and its rank
                }
            }
            std::memmove(f + 1, f, rank);  // ranks below move up one byte
            if (Idx && c2) std::memmove(f + 1 - 3 * c2, f - 3 * c, 3 * c2);
        }
        p_[2] = static_cast<u8>(n - 1);
        if constexpr (Idx) {
            u8* const cp = p_ + cap - (n - 1) - 3 * c2;
            for (size_t i = 0; i < c2; ++i) {
                const size_t rk = cp[3 * i + 2];
                if (rk + 7 < 8 * (i + 1) || rk >= n - 1) anchor(cp, i);
            }
        }
        if constexpr (Exact) {  // Redis's listpack reallocs to the exact size on every erase
            const size_t tail = tail_size(n - 1);
            std::memmove(p_ + capacity() - tail, p_ + cap - tail, tail);
            u8* q = static_cast<u8*>(std::realloc(p_, capacity()));
            if (!q) std::abort();
            p_ = q;
        }
    }

    /// The first record not below (s, m), and its rank.
    u8* lower_bound(double s, std::string_view m, size_t* rank) const {
        u8* r = p_ + header_bytes;
        u8* const end = p_ + bytes();
        size_t i = 0;
        if constexpr (Idx) {
            // the last checkpoint below (s, m), by binary search; the walk starts there
            const size_t n = size(), c = checkpoints(n);
            const u8* cp = p_ + capacity() - n - 3 * c;
            size_t lo = 0, hi = c;  // checkpoints [0, lo) are below
            while (lo < hi) {
                const size_t mid = (lo + hi) / 2;
                if (record_below(p_ + cp_off(cp + 3 * mid), s, m))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > 0) {
                r = p_ + cp_off(cp + 3 * (lo - 1));
                i = cp[3 * (lo - 1) + 2];
            }
        }
        while (r < end) {
            const u8 tag = r[0];
            const size_t len = member_length(r);
            u8* const score = r + 1 + ((tag & 31) == 31);
            u8* const mem = score + kind_width[tag >> 5];
            const double rs = get_score(static_cast<u8>(tag >> 5), score);
            if (!(rs < s) && !record_below(rs, mem, len, s, m)) break;
            r = mem + len;
            ++i;
        }
        *rank = i;
        return r;
    }

    u8* find(std::string_view m, size_t* rank) const {
        if constexpr (Fp)
            return find_fp(m, fingerprint(m), rank);
        else
            return find_scan(m, rank);
    }

    u8* find_scan(std::string_view m, size_t* rank) const {
        u8* r = p_ + header_bytes;
        u8* const end = p_ + bytes();
        const auto* key = reinterpret_cast<const u8*>(m.data());
        for (size_t i = 0; r < end; ++i) {
            const u8 tag = r[0];
            const size_t len = member_length(r);
            u8* const mem = r + 1 + ((tag & 31) == 31) + kind_width[tag >> 5];
            if (len == m.size() && bytes_equal(mem, key, len)) {
                *rank = i;
                return r;
            }
            r = mem + len;
        }
        return nullptr;
    }

    /// Candidates by fingerprint, confirmed by reaching the record (from a checkpoint with Idx,
    /// else by walking the records, tags only) and comparing the member.
    u8* find_fp(std::string_view m, u8 fp, size_t* rank) const {
        const size_t n = size();
        if (n == 0) return nullptr;
        const u8* f = p_ + capacity() - n;
        u8* r = p_ + header_bytes;  // the walk: record of rank `at`
        size_t at = 0;
        const auto* key = reinterpret_cast<const u8*>(m.data());
        const auto try_rank = [&](size_t i) -> bool {
            if constexpr (Idx) {
                r = at_rank(i);
            } else {
                while (at < i) {
                    r += record_size(r);
                    ++at;
                }
            }
            const size_t len = member_length(r);
            if (len != m.size()) return false;
            const u8* mem = r + 1 + ((r[0] & 31) == 31) + kind_width[r[0] >> 5];
            return bytes_equal(mem, key, len);
        };
#if defined(__SSE2__)
        const __m128i want = _mm_set1_epi8(static_cast<char>(fp));
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(f + i));
            auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)));
            while (mask) {
                const size_t j = i + static_cast<size_t>(__builtin_ctz(mask));
                if (try_rank(j)) {
                    *rank = j;
                    return r;
                }
                mask &= mask - 1;
            }
        }
        if (i < n) {
            // the last 16 bytes of the allocation (capacity >= 16): the tail's ranks are its top
            const u8* last = p_ + capacity() - 16;
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(last));
            auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)));
            mask >>= 16 - (n - i);
            while (mask) {
                const size_t j = i + static_cast<size_t>(__builtin_ctz(mask));
                if (try_rank(j)) {
                    *rank = j;
                    return r;
                }
                mask &= mask - 1;
            }
        }
#else
        for (size_t i = 0; i < n; ++i)
            if (f[i] == fp && try_rank(i)) {
                *rank = i;
                return r;
            }
#endif
        return nullptr;
    }
};

// ---- Redis 7.0's listpack, computed -----------------------------------------------------------

size_t lp_backlen(size_t n) {
    return n <= 127 ? 1 : n < 16383 ? 2 : n < 2097151 ? 3 : n < 268435455 ? 4 : 5;
}
size_t lp_int(long long v) {
    size_t e;
    if (v >= 0 && v <= 127)
        e = 1;
    else if (v >= -4096 && v <= 4095)
        e = 2;
    else if (v >= -32768 && v < 32768)
        e = 3;
    else if (v >= -(1LL << 23) && v < (1LL << 23))
        e = 4;
    else if (v >= -(1LL << 31) && v < (1LL << 31))
        e = 5;
    else
        e = 9;
    return e + 1;
}
size_t lp_str(size_t n) {
    const size_t e = (n < 64 ? 1 : n < 4096 ? 2 : 5) + n;
    return e + lp_backlen(e);
}
/// Redis 7.0: an integral score within +-2^52 is an integer entry; any other is "%.17g" text.
size_t lp_bytes(const std::vector<std::pair<std::string, double>>& elems) {
    size_t total = 6 + 1;
    for (const auto& [m, s] : elems) {
        total += lp_str(m.size());
        if (s == std::trunc(s) && s > -4503599627370495.0 && s < 4503599627370496.0) {
            total += lp_int(static_cast<long long>(s));
        } else {
            char buf[64];
            const int len = std::snprintf(buf, sizeof buf, "%.17g", s);
            total += lp_str(static_cast<size_t>(len));
        }
    }
    return total;
}

// ---- today's set over a counting allocator ----------------------------------------------------

using probe::counting_allocator;
using probe::g_live;
using counted_today =
    zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>, std::less<>,
                     counting_allocator<std::string>>;
using today = zset::sorted_set<std::string, double>;

// ---- bytes ------------------------------------------------------------------------------------

using pairs = std::vector<std::pair<std::string, double>>;

struct shape {
    const char* name;
    pairs elems;
};

std::vector<shape> shapes() {
    std::vector<shape> out;
    pairs a, b, c, d, e, f;
    for (int j = 0; j < 10; ++j) a.emplace_back("u" + std::to_string(j), j);
    for (int j = 0; j < 100; ++j) b.emplace_back("m" + std::to_string(j), j);
    for (int j = 0; j < 100; ++j) c.emplace_back("m" + std::to_string(j), j * 1.5);
    zbench::rng r(64);
    for (int j = 0; j < 100; ++j) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "user:%08d", static_cast<int>(r.below(100000000)));
        d.emplace_back(buf, 1.7e9 + j);
    }
    for (std::uint64_t j = 0; j < 100; ++j)
        e.emplace_back(zbench::member_name(j), zbench::score_of(zbench::stream::main, j));
    for (int j = 0; j < 10; ++j) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                      static_cast<unsigned long long>(r.next() & 0xffffffffu),
                      static_cast<unsigned long long>(r.next() & 0xffffu),
                      static_cast<unsigned long long>(r.next() & 0xffffu),
                      static_cast<unsigned long long>(r.next() & 0xffffu),
                      static_cast<unsigned long long>(r.next() & 0xffffffffffffu));
        f.emplace_back(buf, r.unit());
    }
    out.push_back({"10 x u<j>, score j", a});
    out.push_back({"100 x m<j>, score j", b});
    out.push_back({"100 x m<j>, score j*1.5", c});
    out.push_back({"100 x user:%08d, score 1.7e9+j", d});
    out.push_back({"100 x member:<i>, random doubles", e});
    out.push_back({"10 x 36-byte uuid, random doubles", f});
    return out;
}

template <class C>
size_t compact_bytes(const pairs& elems) {
    C s;
    for (const auto& [m, x] : elems) s.add(m, x);
    const std::string err = s.check();
    if (!err.empty()) {
        std::printf("check failed: %s\n", err.c_str());
        std::exit(1);
    }
    return s.allocated();
}

/// One variant's cell: exact bytes asked / the class its class growth ends in (+ the 8-byte
/// object) and B/elem; checks that exact growth ends in the same class.
template <bool Fp, bool F32, bool Idx>
std::string cell(const pairs& elems) {
    const size_t cls = compact_bytes<compact_set<Fp, false, F32, Idx>>(elems);
    const size_t exact = compact_bytes<compact_set<Fp, true, F32, Idx>>(elems);
    if (jemalloc_class(exact) != cls) std::printf("(class and exact growth end apart)\n");
    char buf[96];
    std::snprintf(buf, sizeof buf, "%zu / %zu (%.1f)", exact, cls,
                  static_cast<double>(cls + 8) / static_cast<double>(elems.size()));
    return buf;
}

int run_bytes() {
    std::printf("Each cell: bytes asked (exact size) / jemalloc class (B/elem: the class plus the "
                "set object, 24 bytes for today's sorted_set, 8 for a compact set's pointer; the "
                "listpack without an object)\n\n");
    std::printf("| set | Redis 7.0 listpack | today (block) | compact | + fingerprints | + "
                "fingerprints + rank index | compact, no f32 form | + fingerprints, no f32 | + "
                "fingerprints + index, no f32 |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const shape& sh : shapes()) {
        const size_t n = sh.elems.size();
        const auto per = [n](size_t b) { return static_cast<double>(b) / static_cast<double>(n); };
        const size_t lp = lp_bytes(sh.elems);
        size_t block = 0;
        {
            g_live.clear();
            counted_today t;
            for (const auto& [m, x] : sh.elems) t.add(m, x);
            for (const auto& [p, b] : g_live) block += b;
        }
        std::printf(
            "| %s | %zu / %zu (%.1f) | %zu / %zu (%.1f) | %s | %s | %s | %s | %s | %s |\n", sh.name,
            lp, jemalloc_class(lp), per(jemalloc_class(lp)), block, jemalloc_class(block),
            per(jemalloc_class(block) + 24), cell<false, true, false>(sh.elems).c_str(),
            cell<true, true, false>(sh.elems).c_str(), cell<true, true, true>(sh.elems).c_str(),
            cell<false, false, false>(sh.elems).c_str(), cell<true, false, false>(sh.elems).c_str(),
            cell<true, false, true>(sh.elems).c_str());
    }
    return 0;
}

// ---- verify -----------------------------------------------------------------------------------

double random_score(zbench::rng& r) {
    switch (r.below(8)) {
    case 0:
        return static_cast<double>(r.below(300));
    case 1:
        return -static_cast<double>(r.below(70000));
    case 2:
        return 1.7e9 + static_cast<double>(r.below(1000));
    case 3:
        return static_cast<double>(r.below(1ull << 50)) * (r.below(2) ? 1 : -1);
    case 4:
        return static_cast<double>(r.below(1000)) * 0.25;
    case 5:
        return r.unit();
    case 6:
        return r.below(2) ? 1e300 : -0.0;
    default:
        return std::ldexp(static_cast<double>(r.below(1ull << 52)), 20);  // > 2^63
    }
}

template <class C>
bool verify_one(const char* name, std::uint64_t ops) {
    zbench::rng r(7);
    std::vector<std::string> names;
    for (int j = 0; j < 150; ++j) {
        std::string m = "x" + std::to_string(j);
        if (j % 10 == 3) m = std::string(static_cast<size_t>(20 + j), 'a') + m;  // 31+ bytes
        if (j % 17 == 5) m = std::string(static_cast<size_t>(j % 4), 'b');       // 0-3 bytes
        names.push_back(m);
    }
    std::vector<C> cs(8);
    std::vector<today> ts(8);
    for (std::uint64_t i = 0; i < ops; ++i) {
        const size_t k = r.below(8);
        C& c = cs[k];
        today& t = ts[k];
        const std::string& m = names[r.below(names.size())];
        const auto op = r.below(10);
        bool ok = true;
        if (op < 5) {
            const double s = random_score(r);
            const int a = c.add(m, s);
            const auto st = t.add(m, s);
            ok = (a == 1) == (st == zset::add_status::added);
        } else if (op < 7) {
            ok = c.erase(m) == t.erase(m);
        } else if (op == 7) {
            double x = 0;
            const bool f = c.score(m, x);
            const auto y = t.score(m);
            ok = f == y.has_value() && (!f || x == *y);
        } else if (op == 8) {
            ok = c.rank(m) == t.rank(m);
        } else {
            std::vector<std::pair<std::string, double>> a, b;
            c.first(10, [&](auto e) { a.emplace_back(std::string(e.member), e.score); });
            for (const auto& e : t.range_by_rank(0, 9))
                b.emplace_back(std::string(e.member), e.score);
            ok = a == b;
        }
        ok = ok && c.size() == t.size();
        if (i % 97 == 0 || !ok) {
            const std::string err = c.check();
            if (!ok || !err.empty()) {
                std::printf("%s: FAILED at op %llu (op kind %llu): %s\n", name,
                            static_cast<unsigned long long>(i), static_cast<unsigned long long>(op),
                            err.c_str());
                return false;
            }
        }
    }
    std::printf("%s: %llu random ops agree with zset::sorted_set, check() passed\n", name,
                static_cast<unsigned long long>(ops));
    return true;
}

int run_verify(std::uint64_t ops) {
    bool ok = verify_one<compact_set<false, false>>("compact", ops);
    ok = verify_one<compact_set<true, false>>("compact_fp", ops) && ok;
    ok = verify_one<compact_set<false, true>>("compact_exact", ops) && ok;
    ok = verify_one<compact_set<true, true>>("compact_fp_exact", ops) && ok;
    ok = verify_one<compact_set<true, false, false>>("compact_fp_nof32", ops) && ok;
    ok = verify_one<compact_set<true, false, true, true>>("compact_fp_idx", ops) && ok;
    ok = verify_one<compact_set<true, true, true, true>>("compact_fp_idx_exact", ops) && ok;
    return ok ? 0 : 1;
}

// ---- speed ------------------------------------------------------------------------------------

double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr size_t per_set = 100;

struct workload {
    std::vector<std::string> names, misses;
    std::vector<double> rand_scores, int_scores;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> queries;  // (set, member)
    std::vector<std::uint32_t> erase_order;                        // a permutation of 0..99
    explicit workload(size_t sets, size_t lookup_sets, size_t nq) {
        for (size_t j = 0; j < per_set; ++j) names.push_back(zbench::member_name(j));
        for (size_t j = 0; j < per_set; ++j) misses.push_back(zbench::member_name(per_set + j));
        const size_t total = sets * per_set;
        rand_scores.resize(total);
        int_scores.resize(total);
        for (size_t i = 0; i < total; ++i) {
            rand_scores[i] = zbench::score_of(zbench::stream::main, i);
            int_scores[i] = 1.7e9 + std::floor(rand_scores[i] * 1e6);  // unix-time-like
        }
        zbench::rng r(0x64);
        for (size_t i = 0; i < nq; ++i)
            queries.emplace_back(static_cast<std::uint32_t>(r.below(lookup_sets)),
                                 static_cast<std::uint32_t>(r.below(per_set)));
        for (std::uint32_t j = 0; j < per_set; ++j) erase_order.push_back(j);
        for (size_t j = per_set - 1; j > 0; --j)
            std::swap(erase_order[j], erase_order[r.below(j + 1)]);
    }
};

template <class S>
void build(std::vector<S>& all, size_t sets, const workload& w, const std::vector<double>& scores) {
    for (size_t k = 0; k < sets; ++k) {
        all.emplace_back();
        for (size_t j = 0; j < per_set; ++j) all.back().add(w.names[j], scores[k * per_set + j]);
    }
}

// adapters: today's set and the compact ones through the same calls
inline bool lookup(const today& t, std::string_view m, double& out) {
    const auto s = t.score(m);
    if (!s) return false;
    out = *s;
    return true;
}
template <bool A, bool B, bool C, bool D>
inline bool lookup(const compact_set<A, B, C, D>& c, std::string_view m, double& out) {
    return c.score(m, out);
}
template <class F>
inline void first10(const today& t, F&& f) {
    for (const auto& e : t.range_by_rank(0, 9)) f(e.member, e.score);
}
template <bool A, bool B, bool C, bool D, class F>
inline void first10(const compact_set<A, B, C, D>& c, F&& f) {
    c.first(10, [&](auto e) { f(e.member, e.score); });
}

volatile double g_sink;

/// Runs one op over `sets` sets; returns (seconds, operations). `toggle` brackets the op for
/// callgrind.
template <class S>
std::pair<double, size_t> run_op(const std::string& op, const workload& w, size_t sets,
                                 size_t lookup_sets, bool toggle) {
    const bool is_build = op == "build_rand" || op == "build_int";
    const std::vector<double>& scores = op == "build_int" ? w.int_scores : w.rand_scores;
    if (!std::getenv("PROBE_NO_WARM_UP")) {
        std::vector<S> warm;  // the heap holds the memory once, as bench/zset_bench does
        warm.reserve(sets);
        build(warm, is_build ? sets : lookup_sets, w, scores);
    }
    std::vector<S> all;
    all.reserve(sets);
    double t0, t1;
    size_t ops = 0;
    if (is_build) {
        if (toggle) PROBE_TOGGLE();
        t0 = cpu_now();
        build(all, sets, w, scores);
        t1 = cpu_now();
        if (toggle) PROBE_TOGGLE();
        ops = sets * per_set;
        if (all.back().size() != per_set) std::abort();
        return {t1 - t0, ops};
    }
    build(all, lookup_sets, w, w.rand_scores);
    double acc = 0;
    if (op == "erase") {
        if (toggle) PROBE_TOGGLE();
        t0 = cpu_now();
        for (size_t k = 0; k < lookup_sets; ++k)
            for (size_t j = 0; j < per_set / 2; ++j) acc += all[k].erase(w.names[w.erase_order[j]]);
        t1 = cpu_now();
        if (toggle) PROBE_TOGGLE();
        ops = lookup_sets * (per_set / 2);
        if (acc != static_cast<double>(ops)) std::abort();
    } else {
        const bool hit = op != "score_miss";
        const std::vector<std::string>& ms = hit ? w.names : w.misses;
        if (toggle) PROBE_TOGGLE();
        t0 = cpu_now();
        if (op == "score_hit" || op == "score_miss") {
            for (const auto& [k, j] : w.queries) {
                double x = 0;
                acc += lookup(all[k], ms[j], x) ? x : 1.0;
            }
        } else if (op == "rank") {
            for (const auto& [k, j] : w.queries) acc += static_cast<double>(*all[k].rank(ms[j]));
        } else if (op == "range10") {
            for (const auto& [k, j] : w.queries)
                first10(all[k], [&](std::string_view m, double s) {
                    acc += s + static_cast<double>(m.size());
                });
        } else {
            std::fprintf(stderr, "unknown op %s\n", op.c_str());
            std::exit(2);
        }
        t1 = cpu_now();
        if (toggle) PROBE_TOGGLE();
        ops = w.queries.size();
    }
    g_sink = acc;
    return {t1 - t0, ops};
}

const char* const impl_names[] = {
    "today",         "compact",          "compact_fp",          "compact_fp_idx",
    "compact_exact", "compact_fp_exact", "compact_fp_idx_exact"};
const char* const op_names[] = {"build_rand", "build_int", "score_hit", "score_miss",
                                "rank",       "range10",   "erase"};

std::pair<double, size_t> dispatch(const std::string& impl, const std::string& op,
                                   const workload& w, size_t sets, size_t lookup_sets,
                                   bool toggle) {
    if (impl == "today") return run_op<today>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact")
        return run_op<compact_set<false, false>>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact_fp")
        return run_op<compact_set<true, false>>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact_fp_idx")
        return run_op<compact_set<true, false, true, true>>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact_fp_idx_exact")
        return run_op<compact_set<true, true, true, true>>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact_exact")
        return run_op<compact_set<false, true>>(op, w, sets, lookup_sets, toggle);
    if (impl == "compact_fp_exact")
        return run_op<compact_set<true, true>>(op, w, sets, lookup_sets, toggle);
    std::fprintf(stderr, "unknown impl %s\n", impl.c_str());
    std::exit(2);
}

constexpr size_t n_queries = 1000000;

int run_one(const std::string& op, const std::string& impl, size_t sets) {
    const size_t lookup_sets = std::min<size_t>(sets, 1000);
    const workload w(sets, lookup_sets, sets * per_set);  // as many lookups as adds
    const auto [sec, ops] = dispatch(impl, op, w, sets, lookup_sets, true);
    std::printf("%s %s: %zu operations, %.1f ns/op\n", op.c_str(), impl.c_str(), ops,
                sec * 1e9 / static_cast<double>(ops));
    return 0;
}

int run_time(int rounds, size_t sets, size_t lookup_sets, const std::string& only) {
    const workload w(sets, lookup_sets, n_queries);
    std::map<std::pair<std::string, std::string>, std::vector<double>> ns;
    const auto wanted = [&](const char* op) {
        return only.empty() ||
               ("," + only + ",").find("," + std::string(op) + ",") != std::string::npos;
    };
    for (int round = 0; round < rounds; ++round)
        for (const char* op : op_names)
            for (const char* impl : impl_names) {
                if (!wanted(op)) continue;
                const auto [sec, ops] = dispatch(impl, op, w, sets, lookup_sets, false);
                ns[{op, impl}].push_back(sec * 1e9 / static_cast<double>(ops));
            }
    std::printf("ns per operation, thread CPU time: median (min-max) of %d rounds, the "
                "implementations alternated within each round; %zu sets built, lookups over %zu "
                "sets\n\n| op |",
                rounds, sets, lookup_sets);
    for (const char* impl : impl_names) std::printf(" %s |", impl);
    std::printf("\n|---|");
    for (size_t i = 0; i < std::size(impl_names); ++i) std::printf("---|");
    std::printf("\n");
    for (const char* op : op_names) {
        if (!wanted(op)) continue;
        std::printf("| %s |", op);
        for (const char* impl : impl_names) {
            std::vector<double> v = ns[{op, impl}];
            std::sort(v.begin(), v.end());
            std::printf(" %.1f (%.1f-%.1f) |", v[v.size() / 2], v.front(), v.back());
        }
        std::printf("\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "bytes";
    if (mode == "bytes") return run_bytes();
    if (mode == "verify")
        return run_verify(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 300000);
    if (mode == "one" && argc > 4)
        return run_one(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10));
    if (mode == "time")
        return run_time(argc > 2 ? std::atoi(argv[2]) : 5,
                        argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100000,
                        argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1000,
                        argc > 5 ? argv[5] : "");
    std::fprintf(stderr, "usage: see the comment at the top of bench/probes/compact_probe.cpp\n");
    return 2;
}
