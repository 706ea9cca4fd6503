// zset::dump / zset::restore — a zset::sorted_set to and from Redis DUMP / RESTORE payloads.
// SPDX-License-Identifier: MIT
//
//   zset::sorted_set<> s{{"a", 1.0}, {"b", 2.5}};
//   std::string p = zset::dump(s);                    // what `DUMP key` returns; RESTORE-able
//   auto t = zset::restore<zset::sorted_set<>>(p);    // what `RESTORE key 0 p` stores
//
// The payload codec itself (element lists, options, errors, CRC64) is <zset/rdb.hpp>; this header
// only connects it to the container. See docs/dump_restore.md.
#ifndef ZSET_DUMP_HPP
#define ZSET_DUMP_HPP

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rdb.hpp"
#include "sorted_set.hpp"

namespace zset {
namespace detail {
namespace dump_restore {

template <class T>
struct is_sorted_set : std::false_type {};
template <class M, class S, class H, class E, class C, class A>
struct is_sorted_set<zset::sorted_set<M, S, H, E, C, A>> : std::true_type {};

/// Compile-time checks shared by dump() and restore().
template <class Set>
constexpr bool check_set() {
    static_assert(is_sorted_set<Set>::value,
                  "zset::dump / zset::restore: Set must be a zset::sorted_set specialization");
    static_assert(std::is_same_v<typename Set::member_type, std::string>,
                  "zset::dump / zset::restore: Redis members are byte strings; the set's Member "
                  "must be std::string");
    static_assert(std::is_floating_point_v<typename Set::score_type>,
                  "zset::dump / zset::restore: Redis scores are doubles; the set's Score must be "
                  "a floating-point type (double, or float / long double converted)");
    return true;
}

/// True when the set's member order is Redis's (unsigned byte, memcmp) order.
template <class Compare>
inline constexpr bool byte_order_v =
    std::is_same_v<Compare, std::less<>> || std::is_same_v<Compare, std::less<std::string_view>>;

/// True when the set iterates exactly in the order the codec reads and writes, with double
/// scores: it can then be streamed to the writer and built straight from the reader's output.
template <class Set>
inline constexpr bool codec_order_v =
    std::is_same_v<typename Set::score_type, double>&& byte_order_v<typename Set::member_compare>;

}  // namespace dump_restore
}  // namespace detail

/// Writer options whose listpack thresholds are the set's own (get_options()); every other field
/// keeps the zset::rdb::dump_options default. Modify and pass to dump(s, options) to change, say,
/// compression while keeping the set's thresholds.
/// Complexity: O(1). Exceptions: none.
template <class Set, std::enable_if_t<detail::dump_restore::is_sorted_set<Set>::value, int> = 0>
rdb::dump_options dump_options_for(const Set& s) noexcept {
    rdb::dump_options o;
    o.max_listpack_entries = s.get_options().max_listpack_entries;
    o.max_listpack_value = s.get_options().max_listpack_value;
    return o;
}

/// Redis DUMP payload of the set: ZSET_LISTPACK (17) holding a real listpack when the set fits
/// options' listpack thresholds (at most max_listpack_entries elements, no member longer than
/// max_listpack_value bytes), else ZSET_2 (5); ZSET_ZIPLIST (12) / ZSET (3) instead for an
/// options.rdb_version below 10 / 8. RDB version from options (default 10, accepted by
/// Redis >= 7.0). Byte-identical to Redis 7.0's DUMP of the same set held in that encoding
/// (with rdbcompression no, unless options.compress).
///
/// Thresholds: with this overload they are options' (all fields of options are used as given).
/// dump(s) without options uses the set's own get_options() instead (see the overload below).
/// The type depends on the content, not on the set's current encoding(): a skiplist-mode set
/// that shrank below the thresholds is written as a listpack (Redis would write ZSET_2 until the
/// key is reloaded; both restore to the same set).
///
/// A listpack payload stores -0.0 as 0, as Redis 7.0 does; ZSET_2 keeps it.
/// An empty set gives a well-formed payload of zero elements that Redis's RESTORE (and
/// restore() by default) refuses with "ERR Bad data format": Redis has no empty sorted sets (an
/// emptied key is deleted, and DUMP of a missing key replies nil).
///
/// For a set with double scores and the default member order the payload is written straight
/// from the set's iteration (no element copies; options.check_input is not needed and ignored,
/// the container guarantees the order, uniqueness and no NaN). Otherwise (float / long double
/// scores, a custom member Compare) the elements are copied, converted to double and sorted into
/// Redis's order first.
/// Complexity: O(n + member bytes) (O(n log n) for the copying case).
/// Exceptions: std::length_error for a listpack over 4 GiB; std::invalid_argument for a
/// force_type that is not a sorted set type; std::bad_alloc. Strong guarantee (s is const).
/// Redis counterpart: DUMP key.
template <class Set, std::enable_if_t<detail::dump_restore::is_sorted_set<Set>::value, int> = 0>
std::string dump(const Set& s, const rdb::dump_options& options) {
    static_assert(detail::dump_restore::check_set<Set>());
    if constexpr (detail::dump_restore::codec_order_v<Set>) {
        const auto elements = detail::rdb::make_element_range(
            s.begin(), s.end(), s.size(), [](const typename Set::reference& e) noexcept {
                return detail::rdb::element_ref(e.member, e.score);
            });
        return detail::rdb::dump_range(elements, options);
    } else {
        rdb::element_list elements;
        elements.reserve(s.size());
        for (const auto& e : s)
            elements.emplace_back(std::string(e.member), static_cast<double>(e.score));
        std::sort(elements.begin(), elements.end(), detail::rdb::element_less);
        return detail::rdb::dump_range(detail::rdb::element_range_of(elements), options);
    }
}

/// dump(s, dump_options_for(s)): the listpack thresholds are the set's own options, so the
/// payload type matches the encoding the set's conversion rules give its content.
template <class Set, std::enable_if_t<detail::dump_restore::is_sorted_set<Set>::value, int> = 0>
std::string dump(const Set& s) {
    return zset::dump(s, zset::dump_options_for(s));
}

/// Builds a set from a DUMP payload: types ZSET_LISTPACK (17), ZSET_ZIPLIST (12), ZSET_2 (5) and
/// ZSET (3), RDB versions up to options.max_rdb_version (default 12: Redis 7.0 to 8.x). The set
/// gets options `opts` and the smallest encoding that fits them (listpack when it has at most
/// opts.max_listpack_entries elements and no member longer than opts.max_listpack_value bytes,
/// else skiplist), whatever the payload type.
///
/// The payload is fully validated first (see zset::rdb::restore_payload): a bad footer throws
/// format_error with kind() version_or_checksum, a malformed object — including one of zero
/// elements, unless restore_options.allow_empty — bad_data_format; redis_error() is the exact
/// RESTORE error text. Scores read back bit-identical, except that -0.0 in a listpack / ziplist /
/// ZSET payload is 0 (it was stored as 0). Scores convert to a float / long double Score with
/// static_cast (a custom member Compare re-sorts).
/// Complexity: O(payload bytes + n) (+ O(n log n) for a ZSET payload or a non-default Score /
/// Compare).
/// Exceptions: rdb::format_error; std::bad_alloc. Nothing partial: to replace an existing set,
/// `s = zset::restore<Set>(payload, s.get_options());` leaves s untouched on error.
/// Redis counterpart: RESTORE key 0 payload.
template <class Set = sorted_set<>>
Set restore(std::string_view payload, const zset::options& opts = {},
            const rdb::restore_options& restore_opts = {},
            const typename Set::allocator_type& alloc = typename Set::allocator_type()) {
    static_assert(detail::dump_restore::check_set<Set>());
    rdb::element_list elements = rdb::restore_payload(payload, restore_opts);
    if constexpr (detail::dump_restore::codec_order_v<Set>) {
        // Already in (score, memcmp member) order with unique members: from_sorted's precondition.
        return Set::from_sorted(elements.begin(), elements.end(), opts, alloc);
    } else {
        using score_type = typename Set::score_type;
        using converted = std::pair<std::string, score_type>;
        std::vector<converted> items;
        items.reserve(elements.size());
        for (auto& e : elements)
            items.emplace_back(std::move(e.first), static_cast<score_type>(e.second));
        const typename Set::member_compare less{};
        std::stable_sort(items.begin(), items.end(), [&](const converted& a, const converted& b) {
            if (a.second < b.second) return true;
            if (b.second < a.second) return false;
            return less(std::string_view(a.first), std::string_view(b.first));
        });
        return Set::from_sorted(items.begin(), items.end(), opts, alloc);
    }
}

}  // namespace zset

#endif  // ZSET_DUMP_HPP
