// zset::detail::bucket_table (a listpack-mode block's member lookup) against a plain model: the
// fingerprint of every position, through random inserts, erases (one, with and without the
// entry's index, and ranges) and moves, at capacities around the 8-entry steps and up to 128,
// with buckets of every length (one bucket holding every entry included). The bytes around the
// table (the entry before it, which an insert's pass reads, and the slack after the starts,
// which the passes store back) must keep their values. Also: the 13 fingerprint bits a table
// compares, and the one-multiply fingerprint listpack mode gives short byte-string members.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/bucket_table.hpp>
#include <zset/detail/container/hash.hpp>

namespace {

using zset::detail::bucket_table;

constexpr std::uint16_t canary = 0xa5c3;
constexpr std::size_t slack_entries = zset::detail::scan_slack / 2 + 1;

/// A table of `capacity` entries inside a buffer with guard entries on both sides, and the
/// model: the kept fingerprint of each position.
struct checked_table {
    std::size_t capacity;
    std::vector<std::uint16_t> buffer;
    std::vector<std::uint16_t> model;

    explicit checked_table(std::size_t cap)
        : capacity(cap),
          buffer(1 + cap + (bucket_table::starts_bytes + 1) / 2 + slack_entries, canary) {
        table().clear();
    }
    bucket_table table() { return bucket_table(buffer.data() + 1, capacity); }
    std::size_t size() const { return model.size(); }

    void insert(std::size_t pos, std::uint16_t fp) {
        table().insert(size(), pos, fp);
        model.insert(model.begin() + static_cast<std::ptrdiff_t>(pos),
                     bucket_table::kept_fingerprint(fp));
    }
    /// The entry holding pos, found as a lookup finds it.
    std::size_t entry_of(std::size_t pos) {
        return table().find_entry(model[pos], [&](std::size_t p) { return p == pos; });
    }
    void erase(std::size_t pos, bool with_entry) {
        const std::size_t at = with_entry ? entry_of(pos) : zset::detail::no_match;
        table().erase_one(size(), pos, at);
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(pos));
    }
    void erase(std::size_t first, std::size_t last) {
        table().erase_range(first, last);
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(first),
                    model.begin() + static_cast<std::ptrdiff_t>(last));
    }
    void move(std::size_t from, std::size_t to, bool with_entry) {
        const std::size_t at = with_entry ? entry_of(from) : zset::detail::no_match;
        table().move(size(), from, to, at);
        const std::uint16_t fp = model[from];
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(from));
        model.insert(model.begin() + static_cast<std::ptrdiff_t>(to), fp);
    }

    /// Everything the table answers agrees with the model, and the guards are intact.
    void check() {
        const std::size_t n = size();
        REQUIRE(table().validate(n));
        std::vector<std::uint16_t> by_position(n, 0);
        table().fingerprints_by_position(by_position.data());
        REQUIRE(by_position == model);
        for (std::size_t pos = 0; pos < n; ++pos) {
            REQUIRE(table().fingerprint_of_position(n, pos) == model[pos]);
            // every position with this fingerprint is a candidate, and only those
            std::vector<std::size_t> seen;
            const std::size_t none = table().find_entry(model[pos], [&](std::size_t p) {
                seen.push_back(p);
                return false;
            });
            REQUIRE(none == zset::detail::no_match);
            std::sort(seen.begin(), seen.end());
            std::vector<std::size_t> expected;
            for (std::size_t q = 0; q < n; ++q)
                if (model[q] == model[pos]) expected.push_back(q);
            REQUIRE(seen == expected);
        }
        REQUIRE(buffer.front() == canary);
        const std::size_t guard = 1 + capacity + (bucket_table::starts_bytes + 1) / 2;
        for (std::size_t i = guard; i < buffer.size(); ++i) REQUIRE(buffer[i] == canary);
    }
};

/// Fingerprints from a few buckets and check values, so that buckets grow long and entries
/// share their check bits; `spread` 1 puts every entry in one bucket with one check value.
std::uint16_t some_fingerprint(std::mt19937& rng, unsigned spread) {
    const auto bucket = static_cast<unsigned>(rng() % spread);
    const auto check = static_cast<unsigned>(rng() % (spread * 2));
    return static_cast<std::uint16_t>(bucket << 12 | check << 4 | (rng() % 16));
}

}  // namespace

TEST_CASE("bucket_table keeps every position's fingerprint through random changes",
          "[bucket_table]") {
    std::mt19937 rng(7);
    const std::size_t capacities[] = {1, 2, 7, 8, 9, 15, 16, 17, 24, 63, 64, 65, 100, 127, 128};
    for (const std::size_t cap : capacities) {
        for (const unsigned spread : {1u, 3u, 16u}) {
            INFO("capacity " << cap << ", spread " << spread);
            checked_table t(cap);
            t.check();
            for (int step = 0; step < 400; ++step) {
                const std::size_t n = t.size();
                const unsigned what = static_cast<unsigned>(rng() % 10);
                if (n < cap && (what < 4 || n == 0)) {
                    t.insert(rng() % (n + 1), some_fingerprint(rng, spread));
                } else if (what < 6) {
                    t.erase(rng() % n, what == 5);
                } else if (what < 7 && n >= 2) {
                    const std::size_t first = rng() % n;
                    t.erase(first, first + 1 + rng() % (n - first));
                } else {
                    t.move(rng() % n, rng() % n, what == 8);
                }
                t.check();
            }
        }
    }
}

TEST_CASE("bucket_table fills to 128 at either end and empties from either end", "[bucket_table]") {
    std::mt19937 rng(11);
    for (const bool at_front : {false, true}) {
        checked_table t(128);
        for (std::size_t i = 0; i < 128; ++i) {
            t.insert(at_front ? 0 : t.size(), some_fingerprint(rng, 16));
            t.check();
        }
        for (std::size_t i = 0; i < 128; ++i) {
            t.erase(at_front ? 0 : t.size() - 1, i % 2 == 0);
            t.check();
        }
    }
}

TEST_CASE("bucket_table compares 13 fingerprint bits: a bit-3 difference is no candidate",
          "[bucket_table]") {
    // the bucket (bits 12-15) and the check (bits 3-11) are kept; bits 0-2 are not
    const std::uint16_t near[] = {0x5a38, 0x5a30, 0x5a28, 0x5a18, 0x5b38, 0x4a38, 0x5a3f};
    checked_table t(16);
    for (const std::uint16_t fp : near) t.insert(t.size(), fp);
    t.check();
    const auto candidates = [&](std::uint16_t fp) {
        std::vector<std::size_t> seen;
        t.table().find_entry(fp, [&](std::size_t p) {
            seen.push_back(p);
            return false;
        });
        std::sort(seen.begin(), seen.end());
        return seen;
    };
    REQUIRE(candidates(0x5a38) == std::vector<std::size_t>{0, 6});  // 0x5a3f keeps 0x5a38
    REQUIRE(candidates(0x5a30) == std::vector<std::size_t>{1});
    REQUIRE(candidates(0x5a28) == std::vector<std::size_t>{2});
    REQUIRE(candidates(0x5a1f) == std::vector<std::size_t>{3});
    REQUIRE(candidates(0x5a40).empty());
    REQUIRE(bucket_table::kept_fingerprint(0x5a3f) == 0x5a38);
}

TEST_CASE("short_bytes_fingerprint spreads members over the 16 buckets and tells lengths apart",
          "[bucket_table]") {
    using zset::detail::short_bytes_fingerprint;
    const auto fingerprint = [](const std::string& s) {
        return short_bytes_fingerprint(s.data(), s.size());
    };
    // 1,600 members of each kind: 100 a bucket expected, sd 9.7; the bounds are 4 sd
    std::mt19937 rng(5);
    std::vector<std::string> sequential, random_text;
    for (unsigned i = 0; i < 1600; ++i) {
        sequential.push_back("member:" + std::to_string(i));
        std::string s(1 + rng() % 16, ' ');
        for (char& c : s) c = static_cast<char>('a' + rng() % 26);
        random_text.push_back(s);
    }
    for (const auto* members : {&sequential, &random_text}) {
        std::size_t per_bucket[16] = {};
        for (const std::string& m : *members) ++per_bucket[fingerprint(m) >> 12];
        for (const std::size_t count : per_bucket) {
            REQUIRE(count >= 61);
            REQUIRE(count <= 139);
        }
    }
    // strings of zero bytes differ only in their length
    std::vector<std::uint16_t> zeros;
    for (std::size_t n = 0; n <= 16; ++n) zeros.push_back(fingerprint(std::string(n, '\0')));
    std::sort(zeros.begin(), zeros.end());
    REQUIRE(std::unique(zeros.begin(), zeros.end()) == zeros.end());
}
