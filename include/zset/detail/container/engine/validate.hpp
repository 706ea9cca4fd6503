// zset::detail::set_engine: validate() — every internal invariant checked, for tests and
// debugging. Part of set_engine.hpp.
// SPDX-License-Identifier: MIT
//
// Checked: each mode's own structure (the listpack block and its fingerprints, no -0.0 stored
// in listpack mode; the skiplist's links, rank counts and node pool, the blocks' sizes, index <->
// records agreement and tags), then for both modes the order of all elements, no NaN score, and
// that every element is found by its member with its score. O(n log n).
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_VALIDATE_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_VALIDATE_HPP

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../set_engine.hpp"

namespace zset {
namespace detail {

template <class Params>
inline bool set_engine<Params>::validate() const {
    if (skiplist_mode() ? !validate_skiplist() : !validate_listpack()) return false;
    bool have_prev = false;
    Score prev_score{};
    Member prev_member{};
    for (const auto& e : *this) {
        if constexpr (std::is_floating_point_v<Score>)
            if (std::isnan(e.score)) return false;
        if (have_prev && !element_less(prev_score, key_view(prev_member), e.score, e.member))
            return false;
        prev_score = e.score;
        prev_member = Member(e.member);
        have_prev = true;
        const position pos = locate(make_probe(e.member));
        if (!pos || !eq_()(pos.b.member_of(pos.r), e.member) || !(pos.b.score_of(pos.r) == e.score))
            return false;
    }
    return true;
}

template <class Params>
inline bool set_engine<Params>::validate_listpack() const {
    if (!lp_) return true;
    if (!lp_.validate() || !lp_.fingerprinted()) return false;  // empty when reserved
    for (size_type i = 0; i < lp_.size(); ++i) {
        if (lp_.fingerprint(i) != lp_.kept_fingerprint(listpack_fingerprint(lp_.member(i))))
            return false;
        if constexpr (std::is_floating_point_v<Score>)
            if (lp_.score(i) == Score(0) && std::signbit(lp_.score(i))) return false;
    }
    return true;
}

template <class Params>
inline bool set_engine<Params>::validate_skiplist() const {
    if (lp_ || !sk_->list.validate()) return false;  // empty when reserved
    if (sk_->index.size() != size() || !sk_->index.validate()) return false;
    bool ok = true;
    sk_->index.for_each([&](std::uint32_t tag, address a) {
        const block_type b = sk_->list.block_of(a.node);
        if (sk_->list.at(a.node).height == 0 || !b) {
            ok = false;
            return;
        }
        const size_type i = b.position_of(a.ref);
        ok = ok && i < b.size() && index_type::tag_of(hash_value(b.member_of(a.ref))) == tag;
    });
    for (node_id x = sk_->list.first(); ok && x != list_type::head_id; x = sk_->list.at(x).next(0))
        ok = sk_->list.block_of(x).size() <= block_max_entries &&
             !sk_->list.block_of(x).fingerprinted();
    return ok;
}

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_VALIDATE_HPP
