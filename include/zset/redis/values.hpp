// zset::redis — the values a keyspace stores under its keys: sorted sets, plain sets, strings.
// SPDX-License-Identifier: MIT
//
// A sorted set is the library's zset::sorted_set<>. A plain set (Redis SET) is set_value: the
// members, plus the encoding Redis 7.2 would give it (t_set.c): intset while every member is an
// integer and there are at most set-max-intset-entries of them, listpack while there are at most
// set-max-listpack-entries members of at most set-max-listpack-value bytes, hashtable from then
// on; a set converts intset -> listpack -> hashtable (or intset -> hashtable), never back.
// Redis 7.0's rules (no listpack sets, no size hints) are set_value::limits::redis_7_0().
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

/// A Redis SET: distinct byte strings, with Redis 7.2's encoding rules (see the file comment).
/// Exception guarantee: strong for every member function. Iterators of members() are
/// invalidated only by erasing the member they point to.
class set_value {
public:
    /// The members, ordered by bytes (lookups take a std::string_view).
    using members_type = std::set<std::string, std::less<>>;
    /// What OBJECT ENCODING reports.
    enum class encoding { intset, listpack, hashtable };

    /// The thresholds a set converts by (CONFIG set-max-intset-entries, set-max-listpack-entries,
    /// set-max-listpack-value) and whether SADD's argument count sizes the set (Redis 7.2).
    struct limits {
        std::size_t max_intset_entries = 512;
        std::size_t max_listpack_entries = 128;
        std::size_t max_listpack_value = 64;
        bool size_hints = true;
        /// Redis 7.0's rules: intset or hashtable, converted one member at a time.
        static limits redis_7_0(std::size_t max_intset_entries) noexcept {
            return limits{max_intset_entries, 0, 0, false};
        }
    };

    /// How a DUMP payload stored the set (RDB_TYPE_SET, _SET_INTSET, _SET_LISTPACK).
    enum class payload_form { plain, intset, listpack };

    set_value() = default;
    set_value(set_value&&) noexcept = default;
    set_value& operator=(set_value&&) noexcept = default;
    set_value(const set_value& o) : members_(o.members_), encoding_(o.encoding_) {
        order_.reserve(o.order_.size());
        for (const std::string* m : o.order_) order_.push_back(&*members_.find(*m));
    }
    set_value& operator=(const set_value& o) {
        if (this != &o) *this = set_value(o);
        return *this;
    }

    /// The empty set SADD creates for its first member `first` when it will add `size_hint`
    /// members (Redis 7.2 setTypeCreate: intset for an integer if the hint allows, else listpack
    /// if the hint allows, else hashtable; Redis 7.0: intset for an integer, else hashtable).
    /// O(|first|). No-throw.
    static set_value created(std::string_view first, std::size_t size_hint,
                             const limits& l) noexcept {
        set_value s;
        const std::size_t hint = l.size_hints ? size_hint : 1;
        if (is_integer(first) && (!l.size_hints || hint <= l.max_intset_entries))
            s.encoding_ = encoding::intset;
        else
            s.encoding_ = hint <= l.max_listpack_entries ? encoding::listpack : encoding::hashtable;
        return s;
    }

    /// SADD to an existing set of `size_hint` members: converts to hashtable first when the hint
    /// exceeds the set's encoding limit (Redis 7.2 setTypeMaybeConvert). No-throw.
    void reserve_for(std::size_t size_hint, const limits& l) noexcept {
        if (!l.size_hints) return;
        if ((encoding_ == encoding::listpack && size_hint > l.max_listpack_entries) ||
            (encoding_ == encoding::intset && size_hint > l.max_intset_entries))
            to_hashtable();
    }

    /// SADD of one member, converting as Redis 7.2's setTypeAddAux does: an intset that gets a
    /// non-integer becomes a listpack when the result fits the listpack limits (its members
    /// ascending, then the new one), a hashtable otherwise; an intset past set-max-intset-entries
    /// and a listpack past either listpack limit become hashtables. (Redis also refuses listpacks
    /// over 1 GiB, a size the limits keep sets far from.) O(log n); O(n log n) when an intset
    /// becomes a listpack. \returns whether the member was new.
    bool add(std::string_view member, const limits& l) {
        if (members_.find(member) != members_.end()) return false;
        switch (encoding_) {
        case encoding::hashtable:
            members_.emplace(member);
            return true;
        case encoding::listpack:
            if (members_.size() < l.max_listpack_entries && member.size() <= l.max_listpack_value) {
                order_.reserve(order_.size() + 1);
                order_.push_back(&*members_.emplace(member).first);
            } else {
                members_.emplace(member);
                to_hashtable();
            }
            return true;
        case encoding::intset:
            break;
        }
        if (is_integer(member)) {
            members_.emplace(member);
            if (members_.size() > intset_capacity(l)) to_hashtable();
            return true;
        }
        std::size_t longest = 0;  // Redis: the digits of the intset's min and max
        for (const std::string& m : members_) longest = std::max(longest, m.size());
        if (members_.size() < l.max_listpack_entries && member.size() <= l.max_listpack_value &&
            longest <= l.max_listpack_value) {
            std::vector<const std::string*> order = ascending_integers();
            order.reserve(order.size() + 1);
            order.push_back(&*members_.emplace(member).first);
            order_ = std::move(order);
            encoding_ = encoding::listpack;
        } else {
            members_.emplace(member);
            to_hashtable();
        }
        return true;
    }

    /// The set a DUMP payload's members load as (Redis 7.2 rdbLoadObject): a plain SET payload
    /// of more than set-max-intset-entries members is a hashtable, else it starts as an intset
    /// and converts member by member as SADD would (a non-integer makes it a listpack while
    /// every member so far fits the listpack limits); an intset payload stays an intset up to
    /// set-max-intset-entries members; a listpack payload stays a listpack up to
    /// set-max-listpack-entries members (member lengths are not checked). Members are distinct.
    static set_value loaded(payload_form form, const std::vector<std::string>& members,
                            const limits& l) {
        set_value s;
        const std::size_t n = members.size();
        switch (form) {
        case payload_form::intset:
            s.encoding_ = n > l.max_intset_entries ? encoding::hashtable : encoding::intset;
            break;
        case payload_form::listpack:
            s.encoding_ = n > l.max_listpack_entries ? encoding::hashtable : encoding::listpack;
            break;
        case payload_form::plain:
            s.encoding_ = n > intset_capacity(l) ? encoding::hashtable : encoding::intset;
            std::size_t longest = 0;
            for (const std::string& m : members) {
                longest = std::max(longest, m.size());
                if (s.encoding_ == encoding::intset && !is_integer(m)) {
                    if (s.size() < l.max_listpack_entries && longest <= l.max_listpack_value) {
                        s.order_ = s.ascending_integers();
                        s.encoding_ = encoding::listpack;
                    } else {
                        s.encoding_ = encoding::hashtable;
                    }
                }
                if (s.encoding_ == encoding::listpack &&
                    (s.size() >= l.max_listpack_entries || m.size() > l.max_listpack_value))
                    s.to_hashtable();
                const auto it = s.members_.emplace(m).first;
                if (s.encoding_ == encoding::listpack) s.order_.push_back(&*it);
            }
            return s;
        }
        for (const std::string& m : members) s.members_.emplace(m);
        if (s.encoding_ == encoding::listpack)
            for (const std::string& m : members) s.order_.push_back(&*s.members_.find(m));
        return s;
    }

    /// SREM of one member. O(log n), O(n) for a listpack. No-throw. \returns whether it was
    /// present.
    bool erase(std::string_view member) noexcept {
        const auto it = members_.find(member);
        if (it == members_.end()) return false;
        if (encoding_ == encoding::listpack)
            order_.erase(std::find(order_.begin(), order_.end(), &*it));
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

    /// The members in the order Redis lists them (SMEMBERS, DUMP): ascending integers for an
    /// intset, insertion order for a listpack, byte order for a hashtable (whose order Redis
    /// leaves unspecified). O(n log n) for an intset, O(n) else.
    std::vector<std::string_view> reply_order() const {
        std::vector<std::string_view> out;
        out.reserve(members_.size());
        if (encoding_ == encoding::hashtable) {
            for (const std::string& m : members_) out.emplace_back(m);
        } else {
            for (const std::string* m :
                 encoding_ == encoding::intset ? ascending_integers() : order_)
                out.emplace_back(*m);
        }
        return out;
    }

    /// Bytes allocated for the set: one tree node per member plus its heap text, and a
    /// listpack's order. O(n).
    std::size_t memory_usage() const noexcept {
        constexpr std::size_t node_overhead = 4 * sizeof(void*) + sizeof(std::string);
        std::size_t n = sizeof(*this) + order_.capacity() * sizeof(const std::string*);
        for (const std::string& m : members_)
            n += node_overhead + (m.capacity() > 15 ? m.capacity() + 1 : 0);
        return n;
    }

    /// Whether Redis would keep `member` in an intset (isSdsRepresentableAsLongLong).
    static bool is_integer(std::string_view member) noexcept {
        return zset::detail::parse_int64(member).has_value();
    }

private:
    /// set-max-intset-entries, at most 2^30 (intsetMaxEntries).
    static std::size_t intset_capacity(const limits& l) noexcept {
        return std::min(l.max_intset_entries, std::size_t{1} << 30);
    }
    /// The members of an intset, ascending.
    std::vector<const std::string*> ascending_integers() const {
        std::vector<const std::string*> out;
        out.reserve(members_.size());
        for (const std::string& m : members_) out.push_back(&m);
        std::sort(out.begin(), out.end(), [](const std::string* a, const std::string* b) {
            return *zset::detail::parse_int64(*a) < *zset::detail::parse_int64(*b);
        });
        return out;
    }
    void to_hashtable() noexcept {
        std::vector<const std::string*>().swap(order_);
        encoding_ = encoding::hashtable;
    }

    members_type members_;
    /// A listpack's members in insertion order (pointers into members_); empty otherwise.
    std::vector<const std::string*> order_;
    encoding encoding_ = encoding::hashtable;
};

/// OBJECT ENCODING's name of a plain set's encoding.
inline std::string_view encoding_name(set_value::encoding e) noexcept {
    switch (e) {
    case set_value::encoding::intset:
        return "intset";
    case set_value::encoding::listpack:
        return "listpack";
    default:
        return "hashtable";
    }
}

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
