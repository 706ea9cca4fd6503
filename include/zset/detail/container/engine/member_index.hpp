// zset::detail::set_engine: finding a member — its score (find_score's paths) and its position
// (locate) in either encoding: the hash index in skiplist mode, the block's bucket table or
// fingerprints in listpack mode. locate() is where every single-element change starts. Part of
// engine.hpp.
// SPDX-License-Identifier: MIT
//
// Two paths per mode. score(), contains-like reads and rank() take short inline paths: in
// skiplist mode the index probe and the first candidate's record, in listpack mode one bucket
// of the block's bucket table and its first candidate; everything rarer (long members, further
// candidates, a bucket the table cannot settle, blocks without a table) is a call. locate()
// returns a full position (block, record, node, index slot or table entry) for the changes that
// need one.
//
// How the inline part is cut matters more than its instruction count: g++ sizes a function's
// frame and saved registers for its costliest path, so a rare path left inline (a hash of a long
// member, the listpack fingerprint scan) makes every lookup pay for it. Each split below names
// its section of docs/design-log.md ("Lookups inlined into their caller").
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_MEMBER_INDEX_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_MEMBER_INDEX_HPP

#include <cstdint>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

// ---- score ------------------------------------------------------------------------------------

/// A miss almost always ends at the index probe (no slot whose key matches), and a hit on a
/// member of 16 bytes or fewer at the first candidate, its record read in one load and the
/// member compared here without a call. Longer members (hashed by a call) and further candidates
/// go to functions of their own, reached by tail calls, so this part saves one register, not
/// five. With every compare out of line a hit would take markedly more instructions, and more
/// time still past the cache, where fewer lookups would fit in the reorder buffer to overlap
/// their misses (docs/design-log.md, "Lookups inlined into their caller").
template <class Params>
inline ZSET_NOINLINE bool set_engine<Params>::score_in_skiplist(key_view member,
                                                                Score& out) const noexcept {
    if constexpr (byte_equality) {
        if (!ZSET_LIKELY(member.size() <= 16)) return score_of_long_member(member, out);
    }
    const std::uint32_t tag = index_type::tag_of(hash_value(member));
    const size_type slot = sk_->index.first_candidate(tag);
    if (slot == index_type::npos) return false;
    if constexpr (byte_equality) {
        if (member.size() <= 16) {
            const std::uint64_t record = sk_->index.record(slot);
            if (ZSET_LIKELY(index_type::record_has_tag(record, tag))) {
                const address a = index_type::address_in(record);
                const block_type b = sk_->list.block_of(a.node);
                if (ZSET_LIKELY(b.short_bytes_equal(a.ref, member))) {
                    out = b.score_of(a.ref);
                    return true;
                }
            }
        }
    }
    return score_from_slot(member, tag, slot, out);
}

template <class Params>
inline ZSET_NOINLINE bool set_engine<Params>::score_of_long_member(key_view member,
                                                                   Score& out) const noexcept {
    const position pos = locate_in_skiplist(make_probe(member));
    if (!pos) return false;
    out = pos.b.score_of(pos.r);
    return true;
}

template <class Params>
inline ZSET_NOINLINE bool set_engine<Params>::score_from_slot(key_view member, std::uint32_t tag,
                                                              size_type slot,
                                                              Score& out) const noexcept {
    const position pos = locate_from_slot(member, tag, sk_->index.match_at_or_after(slot, tag));
    if (!pos) return false;
    out = pos.b.score_of(pos.r);
    return true;
}

/// Inlined into score()'s caller; the fingerprint scan, for the rare lookup the table cannot
/// settle, is a call.
template <class Params>
ZSET_ALWAYS_INLINE bool set_engine<Params>::score_in_listpack(key_view member,
                                                              Score& out) const noexcept {
    const size_type i = listpack_position_by_table(member);
    if (ZSET_LIKELY(i < needs_scan)) {
        out = lp_.score_of(lp_.ref(i));
        return true;
    }
    if (i == block_type::npos) return false;
    return score_in_listpack_scan(member, out);
}

template <class Params>
inline ZSET_NOINLINE bool set_engine<Params>::score_in_listpack_scan(key_view member,
                                                                     Score& out) const noexcept {
    const size_type i = position_in_listpack(make_probe(member));
    if (i == block_type::npos) return false;
    out = lp_.score_of(lp_.ref(i));
    return true;
}

// ---- locate -----------------------------------------------------------------------------------

template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::locate(const probe& k) const noexcept -> position {
    if (!skiplist_mode()) return locate_in_listpack(k);
    return locate_in_skiplist(k);
}

template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::locate_in_skiplist(const probe& k) const noexcept
    -> position {
    const std::uint32_t tag = index_type::tag_of(k.hash);
    return locate_from_slot(k.member, tag, sk_->index.first_match(tag));
}

template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::locate_from_slot(key_view member, std::uint32_t tag,
                                                             size_type slot) const noexcept
    -> position {
    position out;
    for (; slot != index_type::npos; slot = sk_->index.next_match(slot, tag)) {
        const address a = sk_->index.address(slot);
        const block_type b = sk_->list.block_of(a.node);
        if (!same_member(b, a.ref, member)) continue;
        out.b = b;
        out.r = a.ref;
        out.node = a.node;
        out.slot = slot;
        return out;
    }
    return out;
}

/// Out of line: inlined, its fingerprint scan's registers and stack frame would slow every
/// skiplist-mode lookup markedly; a listpack lookup pays a call instead (docs/design-log.md,
/// "Lookups inlined into their caller").
template <class Params>
inline ZSET_NOINLINE auto set_engine<Params>::locate_in_listpack(const probe& k) const noexcept
    -> position {
    position out;
    if (!lp_) return out;
    const auto found = lp_.find_with_entry(
        listpack_fingerprint(k.member), [&](ref_type r) { return same_member(lp_, r, k.member); });
    if (found.pos == block_type::npos) return out;
    out.b = lp_;
    out.r = lp_.ref(found.pos);
    out.pos = found.pos;
    out.entry = found.entry;
    return out;
}

// ---- positions in listpack mode ---------------------------------------------------------------

template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::listpack_position(key_view member) const noexcept
    -> size_type {
    const size_type i = listpack_position_by_table(member);
    if (ZSET_LIKELY(i != needs_scan)) return i;
    return listpack_position_scan(member);
}

template <class Params>
inline ZSET_NOINLINE auto set_engine<Params>::listpack_position_scan(key_view member) const noexcept
    -> size_type {
    return position_in_listpack(make_probe(member));
}

/// For a member of at most 16 bytes in a block with a bucket table (at most 128 positions: the
/// default thresholds). A miss ends at its bucket's compare (a false candidate for about one
/// miss in 80 at n = 100), or at its only candidate's record, not hashing again in the scan; a
/// hit compares its first candidate here, as in skiplist mode. Further candidates, longer
/// buckets, other members and blocks need the scan. Inlined into find_score: the lookup is short
/// enough that skiplist mode's lookups keep their instruction counts while listpack mode's lose
/// the call; a fingerprint scan could not be inlined (its registers and frame, see
/// locate_in_listpack). rank() and rank_with_score() take it too: through locate() (a call, and
/// a position built) a listpack input's lookup in ZUNION would cost far more than a
/// skiplist-mode ZSCORE (docs/design-log.md, "Listpack mode's bucket table"; bench rows
/// zrank/zset/100, union/zset/100).
template <class Params>
ZSET_ALWAYS_INLINE auto
set_engine<Params>::listpack_position_by_table(key_view member) const noexcept -> size_type {
    if constexpr (byte_equality) {
        if (lp_ && lp_.has_table() && member.size() <= 16) {
            const detail::bucket_table t = lp_.table();
            const auto c = t.first_candidates(listpack_fingerprint(member));
            if (c.mask == 0 && ZSET_LIKELY(c.whole())) return block_type::npos;
            if (ZSET_LIKELY(c.mask != 0)) {
                const size_type i = t.position_at(c.first + detail::lowest_bit(c.mask));
                if (ZSET_LIKELY(lp_.short_bytes_equal(lp_.ref(i), member))) return i;
                if ((c.mask & (c.mask - 1)) == 0 && c.whole())  // the only candidate
                    return block_type::npos;
            }
        }
    }
    return needs_scan;
}

template <class Params>
ZSET_ALWAYS_INLINE auto set_engine<Params>::position_in_listpack(const probe& k) const noexcept
    -> size_type {
    if (!lp_) return block_type::npos;
    return lp_.find(listpack_fingerprint(k.member),
                    [&](ref_type r) ZSET_LAMBDA_INLINE { return same_member(lp_, r, k.member); });
}

template <class Params>
inline auto set_engine<Params>::position_in_block(const position& p) const noexcept -> size_type {
    return p.pos != block_type::npos ? p.pos : position_in(p.b, p.r);
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_MEMBER_INDEX_HPP
