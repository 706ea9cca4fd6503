// zset::redis — the values a keyspace stores under its keys: sorted sets, plain sets, strings.
// SPDX-License-Identifier: MIT
//
// A sorted set is the library's zset::sorted_set<>. A plain set (Redis SET) is set_value: the
// members, plus the encoding Redis 7.0 would report (intset while every member is an integer
// and there are at most set-max-intset-entries of them, hashtable from then on, never back).
// Strings exist so that WRONGTYPE and the generic commands behave as in Redis.
//
// Thread safety: values; concurrent const use is safe.
#ifndef ZSET_REDIS_VALUES_HPP
#define ZSET_REDIS_VALUES_HPP

#include <algorithm>
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "../detail/redis_text.hpp"
#include "../sorted_set.hpp"

namespace zset::redis {

/// The sorted set type stored under a key.
using zset_value = zset::sorted_set<>;

/// A Redis SET: distinct byte strings, with Redis 7.0's encoding rule. Exception guarantee:
/// strong for every member function (one node is allocated per added member). Iterators of
/// members() are invalidated only by erasing the member they point to.
class set_value {
public:
    /// The members, ordered by bytes (lookups take a std::string_view).
    using members_type = std::set<std::string, std::less<>>;
    /// What OBJECT ENCODING reports in Redis 7.0.
    enum class encoding { intset, hashtable };

    /// An empty set in the encoding Redis picks for a set whose first member is `first`
    /// (setTypeCreate: intset when it is an integer). O(|first|). No-throw.
    static set_value for_first_member(std::string_view first) noexcept {
        set_value s;
        s.encoding_ = is_integer(first) ? encoding::intset : encoding::hashtable;
        return s;
    }

    /// SADD of one member; converts to hashtable when the member is not an integer or the set
    /// grows past `max_intset_entries` (set-max-intset-entries). O(log n).
    /// \returns whether the member was new.
    bool add(std::string_view member, std::size_t max_intset_entries) {
        if (members_.find(member) != members_.end()) return false;
        members_.emplace(member);
        if (encoding_ == encoding::intset &&
            (!is_integer(member) || members_.size() > max_intset_entries))
            encoding_ = encoding::hashtable;
        return true;
    }
    /// SREM of one member. O(log n). No-throw. \returns whether it was present.
    bool erase(std::string_view member) noexcept {
        const auto it = members_.find(member);
        if (it == members_.end()) return false;
        members_.erase(it);
        return true;
    }
    /// SISMEMBER. O(log n). No-throw.
    bool contains(std::string_view member) const noexcept {
        return members_.find(member) != members_.end();
    }
    /// SCARD. O(1). No-throw.
    std::size_t size() const noexcept { return members_.size(); }
    bool empty() const noexcept { return members_.empty(); }
    /// OBJECT ENCODING. O(1). No-throw.
    encoding object_encoding() const noexcept { return encoding_; }
    /// The members (as set-operation inputs: each weighs 1). O(1). No-throw.
    const members_type& members() const noexcept { return members_; }

    /// The members in the order SMEMBERS lists them: ascending integers for an intset (as
    /// Redis's intset is sorted), byte order otherwise. O(n log n) for an intset, O(n) else.
    std::vector<std::string_view> reply_order() const {
        std::vector<std::string_view> out(members_.begin(), members_.end());
        if (encoding_ == encoding::intset)
            std::sort(out.begin(), out.end(), [](std::string_view a, std::string_view b) {
                return *zset::detail::parse_int64(a) < *zset::detail::parse_int64(b);
            });
        return out;
    }

    /// Bytes allocated for the set: one tree node per member plus its heap text. O(n).
    std::size_t memory_usage() const noexcept {
        constexpr std::size_t node_overhead = 4 * sizeof(void*) + sizeof(std::string);
        std::size_t n = sizeof(*this);
        for (const std::string& m : members_)
            n += node_overhead + (m.capacity() > 15 ? m.capacity() + 1 : 0);
        return n;
    }

    /// Whether Redis would keep `member` in an intset (isSdsRepresentableAsLongLong).
    static bool is_integer(std::string_view member) noexcept {
        return zset::detail::parse_int64(member).has_value();
    }

private:
    members_type members_;
    encoding encoding_ = encoding::hashtable;
};

/// What a key holds.
using value = std::variant<zset_value, set_value, std::string>;

/// TYPE's answer for a value.
inline std::string_view type_name(const value& v) noexcept {
    switch (v.index()) {
    case 0:
        return "zset";
    case 1:
        return "set";
    default:
        return "string";
    }
}

}  // namespace zset::redis

#endif  // ZSET_REDIS_VALUES_HPP
