// zset::redis::database — one numbered Redis database: key names to values and expiry times.
// SPDX-License-Identifier: MIT
//
// Storage only: no command semantics and no clock (expiry is decided by the keyspace, which
// passes "now" where it matters). Keys are kept ordered by (hash, bytes), which gives O(log n)
// lookups by std::string_view without building a std::string, and a SCAN cursor that is simply
// the next hash value to visit: every key present for a whole SCAN walk is returned exactly once,
// however the table grows or shrinks between calls (Redis guarantees "at least once"). Keys with
// an expiry time are also indexed by deadline, so expired keys are found without sampling.
//
// Exception guarantee: strong for every member function (std::bad_alloc only). Pointers to
// entries stay valid until the key is erased. Thread safety: const member functions may run
// concurrently; anything else needs exclusive access.
#ifndef ZSET_REDIS_DATABASE_HPP
#define ZSET_REDIS_DATABASE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "values.hpp"

namespace zset::redis {

/// One numbered database (SELECT n).
class database {
public:
    /// expire_at of a key without a time to live.
    static constexpr long long no_expiry = -1;

    /// What a key maps to.
    struct entry {
        redis::value value;
        long long expire_at = no_expiry;  ///< Unix time in ms, or no_expiry
    };

    database() = default;
    database(const database&) = delete;
    database& operator=(const database&) = delete;
    database(database&&) noexcept = default;
    database& operator=(database&&) noexcept = default;

    /// The entry of `name`, or nullptr (expired keys included: see the keyspace). O(log n).
    entry* find(std::string_view name) noexcept {
        const auto it = keys_.find(probe_of(name));
        return it == keys_.end() ? nullptr : &it->second;
    }
    const entry* find(std::string_view name) const noexcept {
        const auto it = keys_.find(probe_of(name));
        return it == keys_.end() ? nullptr : &it->second;
    }

    /// Adds a key that is not present; it has no expiry time. O(log n). Strong guarantee.
    entry& add(std::string_view name, redis::value v) {
        const std::size_t h = hash_of(name);
        return keys_.emplace(key{h, std::string(name)}, entry{std::move(v), no_expiry})
            .first->second;
    }

    /// Removes a key (and its expiry time). O(log n). No-throw. \returns whether it existed.
    bool erase(std::string_view name) noexcept {
        const auto it = keys_.find(probe_of(name));
        if (it == keys_.end()) return false;
        if (it->second.expire_at != no_expiry)
            expires_.erase({it->second.expire_at, it->first.name});
        keys_.erase(it);
        return true;
    }

    /// Sets the expiry time of an existing key. O(log n). Strong guarantee.
    void set_expire(std::string_view name, long long at) {
        const auto it = keys_.find(probe_of(name));
        if (it == keys_.end()) return;
        const std::string_view stored = it->first.name;
        const long long old = it->second.expire_at;
        if (old == at) return;          // re-inserting then erasing the old entry would drop it
        expires_.insert({at, stored});  // may throw: nothing changed yet
        if (old != no_expiry) expires_.erase({old, stored});
        it->second.expire_at = at;
    }

    /// Removes the expiry time of a key. O(log n). No-throw. \returns whether it had one.
    bool persist(std::string_view name) noexcept {
        const auto it = keys_.find(probe_of(name));
        if (it == keys_.end() || it->second.expire_at == no_expiry) return false;
        expires_.erase({it->second.expire_at, it->first.name});
        it->second.expire_at = no_expiry;
        return true;
    }

    /// Number of keys, logically expired ones not yet removed included (as Redis's DBSIZE).
    std::size_t size() const noexcept { return keys_.size(); }
    /// Number of keys with an expiry time.
    std::size_t expires_size() const noexcept { return expires_.size(); }
    bool empty() const noexcept { return keys_.empty(); }

    /// Names of up to `limit` keys whose expiry time is <= now, soonest first. O(k log n).
    std::vector<std::string> expired(long long now, std::size_t limit) const {
        std::vector<std::string> out;
        for (auto it = expires_.begin(); it != expires_.end() && it->first <= now; ++it) {
            if (out.size() == limit) break;
            out.emplace_back(it->second);
        }
        return out;
    }

    /// The soonest expiry time, or no_expiry. O(1).
    long long next_expiry() const noexcept {
        return expires_.empty() ? no_expiry : expires_.begin()->first;
    }

    /// The mean time to live in ms of the keys whose expiry time is after `now` (0 when there
    /// are none): INFO keyspace's avg_ttl, exact where Redis estimates it by sampling. O(n).
    long long average_ttl(long long now) const noexcept {
        long double sum = 0;
        long long n = 0;
        for (auto it = expires_.lower_bound({now + 1, std::string_view()}); it != expires_.end();
             ++it) {
            sum += static_cast<long double>(it->first - now);
            ++n;
        }
        return n == 0 ? 0 : static_cast<long long>(sum / static_cast<long double>(n));
    }

    /// Visits up to `count` keys from `cursor` on (0 starts a walk) and returns the cursor of
    /// the next call (0 when the walk is over). visit(name, entry) may not modify the database.
    /// O(count + log n).
    template <class Visit>
    std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit&& visit) const {
        auto it = keys_.lower_bound(hash_only{static_cast<std::size_t>(cursor)});
        for (std::size_t n = 0; it != keys_.end() && n < count; ++n, ++it)
            visit(std::string_view(it->first.name), it->second);
        // Keys sharing a hash are visited together, so the cursor can move past that hash.
        while (it != keys_.end() && it != keys_.begin() &&
               std::prev(it)->first.hash == it->first.hash) {
            visit(std::string_view(it->first.name), it->second);
            ++it;
        }
        return it == keys_.end() ? 0 : static_cast<std::uint64_t>(it->first.hash);
    }

    /// Visits every key: visit(name, entry). O(n).
    template <class Visit>
    void for_each(Visit&& visit) const {
        for (const auto& kv : keys_) visit(std::string_view(kv.first.name), kv.second);
    }

    /// FLUSHDB. O(n). No-throw.
    void clear() noexcept {
        expires_.clear();
        keys_.clear();
    }
    /// SWAPDB. O(1). No-throw.
    void swap(database& other) noexcept {
        keys_.swap(other.keys_);
        expires_.swap(other.expires_);
    }

private:
    struct key {
        std::size_t hash;
        std::string name;
    };
    struct probe {
        std::size_t hash;
        std::string_view name;
    };
    struct hash_only {
        std::size_t hash;
    };
    /// (hash, bytes) order, comparable with a probe (lookups) or a bare hash (SCAN cursors).
    struct order {
        using is_transparent = void;
        static bool less(std::size_t ha, std::string_view a, std::size_t hb, std::string_view b) {
            return ha != hb ? ha < hb : a < b;
        }
        bool operator()(const key& a, const key& b) const noexcept {
            return less(a.hash, a.name, b.hash, b.name);
        }
        bool operator()(const key& a, const probe& b) const noexcept {
            return less(a.hash, a.name, b.hash, b.name);
        }
        bool operator()(const probe& a, const key& b) const noexcept {
            return less(a.hash, a.name, b.hash, b.name);
        }
        bool operator()(const key& a, hash_only b) const noexcept { return a.hash < b.hash; }
        bool operator()(hash_only a, const key& b) const noexcept { return a.hash < b.hash; }
    };

    static std::size_t hash_of(std::string_view name) noexcept {
        return std::hash<std::string_view>()(name);
    }
    static probe probe_of(std::string_view name) noexcept { return probe{hash_of(name), name}; }

    std::map<key, entry, order> keys_;
    /// (expiry time, name viewing the key in keys_), soonest first.
    std::set<std::pair<long long, std::string_view>> expires_;
};

}  // namespace zset::redis

#endif  // ZSET_REDIS_DATABASE_HPP
