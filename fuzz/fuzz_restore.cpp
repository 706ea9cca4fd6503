// DUMP payload reader fuzzer: zset::rdb::try_restore_payload over arbitrary bytes.
//
// Properties: never crashes, never throws (other than std::bad_alloc, which a small input must
// not cause: the runs use -malloc_limit_mb), agrees with the throwing restore_payload(), and an
// accepted payload holds a valid sorted set (ascending (score, member), no NaN, no duplicate)
// that round-trips: dump_payload() of the elements, in the same payload type, restores to the
// same elements (bit-identical scores, except that a listpack / ziplist stores -0.0 as 0), and
// builds a sorted_set that validate()s. zset::restore() (zset/dump.hpp) agrees: it throws the
// same error for a refused payload, and for an accepted one builds a set (in the encoding its
// thresholds give) holding the same elements, whose zset::dump() restores to the same again.
//
// Input layout: [options byte][payload...]. Options: bit 0 verify the CRC, bit 1 rewrite the
// CRC footer to match (so checksummed payloads reach the object parser), bit 2 allow empty
// sets, bits 3-4 the newest accepted RDB version.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include <zset/dump.hpp>
#include <zset/rdb.hpp>
#include <zset/zset.hpp>

namespace {

using zset::rdb::element_list;
using zset::rdb::payload_type;

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

void check_valid_set(const element_list& els) {
    for (std::size_t i = 0; i < els.size(); ++i) {
        ZSET_FUZZ_CHECK(!std::isnan(els[i].second));
        if (i > 0) {
            const auto& a = els[i - 1];
            const auto& b = els[i];
            ZSET_FUZZ_CHECK(a.second < b.second || (a.second == b.second && a.first < b.first));
        }
    }
    // duplicates: checked through the container, which indexes by member
    using Set = zset::sorted_set<>;
    Set s = Set::from_sorted(els.begin(), els.end());
    ZSET_FUZZ_CHECK(s.validate());
    ZSET_FUZZ_CHECK(s.size() == els.size());
    for (const auto& e : els) ZSET_FUZZ_CHECK(s.score(e.first).has_value());
}

void check_round_trip(const zset::rdb::restore_result& res,
                      const zset::rdb::restore_options& ropt) {
    zset::rdb::dump_options dopt;
    dopt.force_type = res.type;
    dopt.rdb_version = res.rdb_version;
    for (const bool compress : {false, true}) {
        dopt.compress = compress;
        std::string again;
        try {
            again = zset::rdb::dump_payload(res.elements, dopt);
        } catch (const std::length_error&) {
            return;  // a listpack over 4 GiB: not reachable from a small input
        }
        zset::rdb::restore_options ropt2 = ropt;
        ropt2.verify_checksum = true;
        const auto back = zset::rdb::try_restore_payload(again, ropt2);
        ZSET_FUZZ_CHECK(back.ok());
        ZSET_FUZZ_CHECK(back.type == res.type);
        ZSET_FUZZ_CHECK(back.rdb_version == res.rdb_version);
        ZSET_FUZZ_CHECK(back.elements.size() == res.elements.size());
        for (std::size_t i = 0; i < back.elements.size(); ++i) {
            const auto& a = res.elements[i];
            const auto& b = back.elements[i];
            ZSET_FUZZ_CHECK(a.first == b.first);
            // -0.0 is written as 0 everywhere but ZSET_2's binary doubles (Redis writes the
            // text of an integral score with ll2string, and listpacks hold integers)
            const bool zero_ok =
                res.type != payload_type::zset_2 && a.second == 0.0 && b.second == 0.0;
            ZSET_FUZZ_CHECK(same_bits(a.second, b.second) || zero_ok);
        }
        // a second dump of what came back is byte-identical
        if (!compress) ZSET_FUZZ_CHECK(zset::rdb::dump_payload(back.elements, dopt) == again);
    }
}

/// zset::restore / zset::dump (the container-level glue) against try_restore_payload.
void check_container_restore(const std::string& payload, const zset::rdb::restore_options& opt,
                             const zset::rdb::restore_result& res) {
    using Set = zset::sorted_set<>;
    const zset::options thresholds{3, 8};  // tiny: most payloads convert
    try {
        const Set s = zset::restore<Set>(payload, thresholds, opt);
        ZSET_FUZZ_CHECK(res.ok());
        ZSET_FUZZ_CHECK(s.validate());
        ZSET_FUZZ_CHECK(s.size() == res.elements.size());
        bool fits = s.size() <= thresholds.max_listpack_entries;
        for (const auto& e : s) fits = fits && e.member.size() <= thresholds.max_listpack_value;
        ZSET_FUZZ_CHECK(s.encoding() ==
                        (fits ? zset::encoding::listpack : zset::encoding::skiplist));
        std::size_t i = 0;
        for (const auto& e : s) {
            ZSET_FUZZ_CHECK(e.member == res.elements[i].first);
            // a listpack-mode set stores -0.0 as 0, as Redis converting a ZSET_2 payload does
            const bool zero_ok = fits && e.score == 0.0 && res.elements[i].second == 0.0;
            ZSET_FUZZ_CHECK(same_bits(e.score, res.elements[i].second) || zero_ok);
            ++i;
        }
        if (s.empty()) return;  // dump() of an empty set is refused by restore()
        const std::string again = zset::dump(s);
        const Set back = zset::restore<Set>(again, thresholds);
        ZSET_FUZZ_CHECK(back.validate() && back.size() == s.size());
        auto it = back.begin();
        for (const auto& e : s) {
            ZSET_FUZZ_CHECK(it->member == e.member);
            ZSET_FUZZ_CHECK(same_bits(it->score, e.score) || (it->score == 0.0 && e.score == 0.0));
            ++it;
        }
    } catch (const zset::rdb::format_error& e) {
        ZSET_FUZZ_CHECK(!res.ok());
        ZSET_FUZZ_CHECK(e.kind() == res.error);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    zset_fuzz::input in(data, size);
    const std::uint8_t flags = in.byte();
    std::string payload(in.rest());
    zset::rdb::restore_options opt;
    opt.verify_checksum = (flags & 1) != 0;
    opt.allow_empty = (flags & 4) != 0;
    static const std::uint16_t versions[] = {9, 10, 11, 0xffff};
    opt.max_rdb_version = versions[(flags >> 3) & 3];
    if ((flags & 2) != 0 && payload.size() >= 10) {
        const std::uint64_t crc =
            zset::rdb::crc64(std::string_view(payload).substr(0, payload.size() - 8));
        for (int i = 0; i < 8; ++i)
            payload[payload.size() - 8 + static_cast<std::size_t>(i)] =
                static_cast<char>((crc >> (8 * i)) & 0xff);
    }

    const zset::rdb::restore_result res = zset::rdb::try_restore_payload(payload, opt);
    bool threw = false;
    element_list thrown_els;
    zset::rdb::error_kind thrown_kind = zset::rdb::error_kind::none;
    try {
        thrown_els = zset::rdb::restore_payload(payload, opt);
    } catch (const zset::rdb::format_error& e) {
        threw = true;
        thrown_kind = e.kind();
        ZSET_FUZZ_CHECK(e.redis_error() == res.redis_error());
    }
    ZSET_FUZZ_CHECK(threw == !res.ok());
    check_container_restore(payload, opt, res);
    if (!res.ok()) {
        ZSET_FUZZ_CHECK(thrown_kind == res.error);
        ZSET_FUZZ_CHECK(res.elements.empty());
        ZSET_FUZZ_CHECK(res.redis_error() == zset::rdb::redis_error_version_or_checksum ||
                        res.redis_error() == zset::rdb::redis_error_bad_data_format);
        ZSET_FUZZ_CHECK(!res.message.empty());
        return 0;
    }
    ZSET_FUZZ_CHECK(res.redis_error().empty());
    ZSET_FUZZ_CHECK(thrown_els == res.elements);
    ZSET_FUZZ_CHECK(opt.allow_empty || !res.elements.empty());
    ZSET_FUZZ_CHECK(res.rdb_version <= opt.max_rdb_version);
    check_valid_set(res.elements);
    check_round_trip(res, opt);
    return 0;
}
