// zset::detail::set_engine — the engine under zset::sorted_set: its state and every operation,
// declared here and defined in engine/*.hpp, one layer a file (engine.hpp includes them all).
// SPDX-License-Identifier: MIT
//
// Composition (each piece in its own header in this folder):
//   * block.hpp        — a slotted page of (score, member) records in one allocation, in order
//                        through a 16-bit array of record refs; in listpack mode also a member
//                        lookup (bucket_table.hpp up to 128 elements, 16-bit fingerprints beyond).
//   * skiplist.hpp     — skiplist of blocks (a pool of 40-byte nodes, their block pointers in an
//                        array beside it): order.
//   * rank_tree.hpp    — counted B+tree over the blocks: O(log n) rank and nth.
//   * hash_index.hpp   — open-addressing member -> (node, record) index (skiplist mode).
//   * set_iterator.hpp — the const_iterator.
//
// State: the conversion thresholds (opts_), a pointer to skiplist mode's state (sk_: the list and
// the index in one allocation; null in listpack mode) and the listpack block (lp_: null in skiplist
// mode and in an empty set). Exactly one of sk_ and lp_ is set while the set holds
// elements; an empty set holds neither, unless reserve() gave it room in one of them (an empty
// block, or an empty list with its index). Every operation branches once on skiplist_mode().
//
// Encodings. In listpack mode the whole set is one block with no index (as Redis's listpack): a
// member lookup compares its bucket of the block's bucket table (up to 128 elements, the default
// threshold), or scans the block's 16-bit fingerprints 16 at a time (larger listpack thresholds).
// Adding a member that would make the set longer than `max_listpack_entries`, or a member longer
// than `max_listpack_value` bytes, converts the set to skiplist mode: blocks of at most 128
// elements linked in the skiplist, plus the hash index. Score updates never convert; erasing
// never converts back, except that an emptied set starts over in listpack mode (an empty key does
// not exist in Redis); shrink_to_fit() converts back when the set fits again. A listpack-mode
// block addresses its records with 16-bit offsets: a set whose thresholds would let its single
// block pass 64 KiB of records or 65,535 elements converts to skiplist mode there (Redis's
// listpack converts at its own size limit too).
//
// Member lookups (ZSCORE, ZINCRBY, ZREM, ZRANK) in skiplist mode: the index entry is the exact
// address of the member's record, so a hit reads one index slot, the block pointer (an array
// small enough to stay cached) and one record; a score update that keeps the member in its
// block rewrites the score and shifts 2-byte order entries, and the index is untouched.
// docs/design-log.md, "The layout", gives the reasoning behind it.
//
// The member functions are defined in engine/, one file per layer, each layer built on the ones
// before it (engine.hpp includes them in this order):
//   engine/state.hpp          the state: construction, assignment, swap, clear; observers; size
//                             and memory; the cache policy (walks_cold, search_mode); checked
//                             mode's modification count
//   engine/keys.hpp           members and scores: hashing, probes, fingerprints, member equality,
//                             element order, score and flag checks
//   engine/member_index.hpp   member -> position in either encoding: find_score's paths, locate
//   engine/order.hpp          key -> place: where a score or lex bound falls, ranks, counts
//                             between places, rank clamping, LIMIT
//   engine/views.hpp          places -> iterators and range views (begin, end, nth, ranges)
//   engine/listpack_mode.hpp  listpack mode's insert and the block's growth
//   engine/skiplist_mode.hpp  skiplist mode's list: where an element goes, insert, erase
//   engine/conversion.hpp     building from sorted elements; listpack mode to skiplist mode
//   engine/changes.hpp        changes in either encoding: insert (converting when it must),
//                             score update, erase, erase of ranks, a planned batch add
//   engine/operations.hpp     the container's operations by Redis command family (ZADD, ZSCORE,
//                             ZRANK, ZCOUNT, ZRANGE, ZREMRANGEBY*, ZPOP*, building, ZRANDMEMBER,
//                             ZSCAN, validate), each composing the layers above
// Each of them includes only this header, and engine.hpp includes this header and them: includes
// run one way. This header declares every member, grouped by the file that defines it. Every
// definition is `inline` (as a member defined in the class would be) and carries the function's
// inlining attribute: ZSET_ALWAYS_INLINE on the declaration too, ZSET_NOINLINE on the definition
// only (g++ warns about an inline definition after a noinline declaration); the class body says
// "out of line" for those.
//
// sorted_set's members forward here in one call each, and g++ inlines that call away, so a
// caller of sorted_set::rank runs set_engine::rank directly: the facade costs no instructions
// (docs/design-log.md, "The facade"). One exception: a std::optional built in an engine
// function and passed up through sorted_set would take an extra trip through memory, so
// sorted_set::score builds its optional itself from find_score (engine/operations.hpp).
#ifndef ZSET_DETAIL_CONTAINER_SET_ENGINE_HPP
#define ZSET_DETAIL_CONTAINER_SET_ENGINE_HPP

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../common.hpp"
#include "../../element.hpp"
#include "allocator_holder.hpp"
#include "block.hpp"
#include "function_holder.hpp"
#include "hash.hpp"  // also std::equal_to<> and std::less<>
#include "hash_index.hpp"
#include "set_iterator.hpp"
#include "skiplist.hpp"

namespace zset {
namespace detail {

/// The template arguments of a zset::sorted_set, as one type: the engine's parameter.
template <class Member, class Score, class Hash, class KeyEqual, class Compare, class Allocator>
struct set_params {
    using member_type = Member;
    using score_type = Score;
    using hasher = Hash;
    using key_equal = KeyEqual;
    using member_compare = Compare;
    using allocator_type = Allocator;
};

/// The engine of zset::sorted_set<Member, Score, Hash, KeyEqual, Compare, Allocator>, given as
/// set_params. A value type of its own (copy, move, swap), so that whole-set operations can
/// build a new engine and take it. The allocator and the function objects are empty bases for
/// the defaults.
template <class Params>
class set_engine : private allocator_holder<typename Params::allocator_type>,
                   private function_holder<typename Params::hasher, typename Params::key_equal,
                                           typename Params::member_compare> {
public:
    // The template arguments, under the names the definitions use.
    using Member = typename Params::member_type;
    using Score = typename Params::score_type;
    using Hash = typename Params::hasher;
    using KeyEqual = typename Params::key_equal;
    using Compare = typename Params::member_compare;
    using Allocator = typename Params::allocator_type;

private:
    using list_type = skiplist<Score, Member, Allocator>;
    using node = typename list_type::node;
    using node_id = typename list_type::node_id;
    using block_type = typename list_type::block_type;
    using ref_type = typename block_type::ref_type;
    using path = typename list_type::path;
    using index_type = hash_index<Allocator>;
    using address = record_address;
    using alloc_traits = std::allocator_traits<Allocator>;
    using allocator_holder_type = allocator_holder<Allocator>;
    using function_holder_type = function_holder<Hash, KeyEqual, Compare>;
    template <class T>
    using rebound = typename alloc_traits::template rebind_alloc<T>;

    static constexpr bool byte_members = is_byte_string_v<Member>;

public:
    using size_type = std::size_t;
    using key_view = member_view_t<Member>;
    using key_value = std::conditional_t<byte_members, std::string_view, Member>;
    using lex_key = key_value;
    using value_type = std::pair<Member, Score>;
    using value_vector = std::vector<value_type, rebound<value_type>>;
    using score_vector = std::vector<std::optional<Score>, rebound<std::optional<Score>>>;
    using reference = element<key_view, Score>;
    using const_iterator = set_iterator<Score, Member, Allocator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using rank_range = range_view<const_iterator>;
    using reverse_range = range_view<const_reverse_iterator>;

    /// Elements beyond this many per block split (skiplist mode).
    static constexpr size_type block_max_entries = 128;
    /// Record bytes (score, length and member) beyond this many per block split (skiplist
    /// mode; soft: a block always takes at least one element).
    static constexpr size_type block_max_bytes = 8192;

    /// Which end of the set a pop takes from.
    enum class end_of_set { low, high };

    // ---- lifetime, observers, size (engine/state.hpp) ------------------------------------------

    explicit set_engine(const options& opts, const Allocator& alloc);
    set_engine(const options& opts, const Hash& hash, const KeyEqual& equal, const Compare& compare,
               const Allocator& alloc);
    set_engine(const set_engine& other);
    set_engine(const set_engine& other, const Allocator& alloc);
    set_engine(set_engine&& other) noexcept;
    ~set_engine();
    set_engine& operator=(const set_engine& other);
    set_engine& operator=(set_engine&& other) noexcept(
        alloc_traits::propagate_on_container_move_assignment::value ||
        alloc_traits::is_always_equal::value);
    void swap(set_engine& other) noexcept;
    void clear() noexcept;

    Allocator get_allocator() const noexcept;
    options get_options() const noexcept;
    void set_options(const options& opts) noexcept;
    Hash hash_function() const;
    KeyEqual key_eq() const;
    Compare member_comp() const;

    size_type size() const noexcept;
    bool empty() const noexcept;
    size_type max_size() const noexcept;
    zset::encoding encoding() const noexcept;
    size_type memory_usage() const noexcept;

    // ---- iterators (engine/views.hpp) ----------------------------------------------------------

    const_iterator begin() const noexcept;
    const_iterator end() const noexcept;
    const_reverse_iterator rbegin() const noexcept;
    const_reverse_iterator rend() const noexcept;
    const_iterator nth(size_type r) const noexcept;

    // ---- ZADD, ZINCRBY, ZREM (engine/operations.hpp) -------------------------------------------

    add_status add(key_view member, score_arg<Score> score, add_flags flags);
    std::optional<Score> increment(key_view member, score_arg<Score> delta_arg, add_flags flags);
    bool erase(key_view member) noexcept;
    template <class InputIt>
    size_type erase_members(InputIt first, InputIt last);
    template <class ForwardIt>
    size_type add(ForwardIt first, ForwardIt last, add_flags flags);

    // ---- ZSCORE, ZMSCORE, ZRANK (engine/operations.hpp) ----------------------------------------

    ZSET_ALWAYS_INLINE std::optional<Score> score(key_view member) const noexcept;
    /// score()'s lookup: the member's score into `out` and true, or false.
    ZSET_ALWAYS_INLINE bool find_score(key_view member, Score& out) const noexcept;
    template <class InputIt>
    score_vector scores(InputIt first, InputIt last) const;
    bool contains(key_view member) const noexcept;
    const_iterator find(key_view member) const noexcept;
    std::optional<size_type> rank(key_view member) const noexcept;
    std::optional<std::pair<size_type, Score>> rank_with_score(key_view member) const noexcept;

    // ---- ZCOUNT, ZLEXCOUNT (engine/operations.hpp) ---------------------------------------------

    size_type count(const score_range<Score>& range) const noexcept;
    size_type lex_count(const lex_range<lex_key>& range) const noexcept;

    // ---- ZRANGE (engine/operations.hpp) --------------------------------------------------------

    rank_range range_by_rank(long long start, long long stop) const noexcept;
    reverse_range rev_range_by_rank(long long start, long long stop) const noexcept;
    rank_range range_by_score(const score_range<Score>& range, limit lim) const noexcept;
    reverse_range rev_range_by_score(const score_range<Score>& range, limit lim) const noexcept;
    rank_range range_by_lex(const lex_range<lex_key>& range, limit lim) const noexcept;
    reverse_range rev_range_by_lex(const lex_range<lex_key>& range, limit lim) const noexcept;

    // ---- ZREMRANGEBY*, ZPOPMIN, ZPOPMAX (engine/operations.hpp) --------------------------------

    const_iterator erase(const_iterator first, const_iterator last) noexcept;
    size_type erase_range_by_rank(long long start, long long stop) noexcept;
    size_type erase_range_by_score(const score_range<Score>& range) noexcept;
    size_type erase_range_by_lex(const lex_range<lex_key>& range) noexcept;
    value_vector pop(size_type count, end_of_set from);

    // ---- building (engine/operations.hpp) ------------------------------------------------------

    void shrink_to_fit();
    void reserve(size_type n);
    template <class ForwardIt>
    void assign_sorted(ForwardIt first, ForwardIt last);

    // ---- ZRANDMEMBER, ZSCAN (engine/operations.hpp) --------------------------------------------

    template <class URBG>
    value_vector random_members(long long count, URBG& gen) const;
    template <class Visit>
    std::uint64_t scan(std::uint64_t cursor, size_type count, Visit&& visit) const;

    // ---- validation (engine/operations.hpp) ----------------------------------------------------

    bool validate() const;

private:
    // ---- state and its types -------------------------------------------------------------------

    /// Skiplist mode's state: one allocation the set points to, so that a set is three words and
    /// a set in listpack mode does not pay for skiplist mode (see engine/state.hpp).
    struct skiplist_state {
        list_type list;
        index_type index;
        explicit skiplist_state(const Allocator& a) noexcept : list(a), index(a) {}
    };
    /// An allocated skiplist_state, freed unless released (engine/state.hpp).
    class owned_state;

    /// A member and, in skiplist mode, its hash.
    struct probe {
        key_view member;
        std::uint64_t hash;
    };
    /// Where a member was found: its block and record; in skiplist mode also its node and
    /// index slot, in listpack mode its position.
    struct position {
        block_type b{};
        ref_type r = 0;
        node_id node = 0;
        size_type slot = index_type::npos;   // skiplist mode
        size_type pos = block_type::npos;    // listpack mode
        size_type entry = block_type::npos;  // listpack mode: the bucket table's entry, if any
        explicit operator bool() const noexcept { return bool(b); }
    };
    /// A place between elements: position `pos` of block `node` (skiplist mode; 0 when the set
    /// is empty), or `pos` alone in listpack mode.
    struct rank_point {
        node_id node = 0;
        size_type pos = 0;
    };
    /// Whether a built set's blocks keep room to grow (copies, set-operation results, so the
    /// next inserts do not copy a block at once), none (shrink_to_fit: at n = 100 in listpack
    /// mode the growth room is about 1.5 bytes a member), or room for the growth a conversion
    /// announces (skiplist_copy: the set is passing its listpack threshold by adds): blocks half
    /// full, so that the next inserts split none of them, and an index with room for as many
    /// members again.
    enum class build_room { growth, none, conversion };
    /// A planned batch add (engine/changes.hpp).
    struct batch_plan;

    detail::compact_options opts_;
    skiplist_state* sk_ = nullptr;  // skiplist mode (null in listpack mode)
    block_type lp_{};               // listpack mode (null while empty)
#if ZSET_DEBUG
    std::uint64_t generation_ = 0;  // counts modifications (checked iterators)
#endif

    // ---- the state (engine/state.hpp) ----------------------------------------------------------

    /// From this many blocks (~20 MB) a walk requests one block further ahead.
    static constexpr std::uint32_t far_blocks = 8192;

    const Allocator& allocator() const noexcept;
    const function_holder_type& functions() const noexcept;
    /// Frees the listpack block, if any. Never throws.
    void release_listpack() noexcept;
    /// Frees skiplist mode's state, if any (the set is then in listpack mode). Never throws.
    void release_skiplist() noexcept;
    /// Replaces the allocator of an empty set. Never throws.
    void set_allocators(const Allocator& a) noexcept;
    /// Exchanges elements and encoding with other (same allocator). Never throws.
    void swap_contents(set_engine& other) noexcept;
    /// Takes other's contents, options and function objects (same allocator). Never throws.
    void take(set_engine& other) noexcept;

    bool skiplist_mode() const noexcept;
    const Hash& hash_() const noexcept;
    const KeyEqual& eq_() const noexcept;
    const Compare& less_() const noexcept;

    /// Do walks over the set request each block's records as they enter it?
    bool walks_cold() const noexcept;
    /// What an iterator requests ahead of its walk.
    block_requests block_requests_for() const noexcept;
    /// How a block search should treat the cache.
    typename block_type::search search_mode() const noexcept;
    /// Position of record r in block b.
    size_type position_in(block_type b, ref_type r) const noexcept;

    /// Every change that may invalidate iterators (checked mode counts them).
    void modified() noexcept;
    /// Checked mode: `it` is a valid iterator of this set.
    void check_own(const const_iterator& it) const noexcept;

    // ---- keys (engine/keys.hpp) ----------------------------------------------------------------

    /// KeyEqual compares the bytes of strings: members may be compared inline.
    static constexpr bool byte_equality =
        byte_members && (std::is_same_v<KeyEqual, std::equal_to<>> ||
                         std::is_same_v<KeyEqual, std::equal_to<std::string_view>> ||
                         std::is_same_v<KeyEqual, std::equal_to<std::string>>);

    /// The member's 64-bit hash, mixed unless Hash declares is_avalanching.
    ZSET_ALWAYS_INLINE std::uint64_t hash_value(key_view m) const noexcept;
    /// The 16-bit fingerprint a listpack-mode block keeps of member m.
    ZSET_ALWAYS_INLINE typename block_type::fingerprint_type
    listpack_fingerprint(key_view m) const noexcept;
    ZSET_ALWAYS_INLINE probe make_probe(key_view m) const noexcept;
    /// Is the member of record r in block b equal to m?
    ZSET_ALWAYS_INLINE bool same_member(block_type b, ref_type r, key_view m) const noexcept;
    /// Does (as, am) order before (bs, bm)?
    bool element_less(Score as, key_view am, Score bs, key_view bm) const noexcept;
    /// Does node n's first element order before (s, m)? Reads the block only on a score tie.
    bool node_before(const node& n, Score s, key_view m) const noexcept;

    /// Throws zset::error for incompatible ZADD flags.
    static void check_flags(add_flags f);
    /// The checked score of an input pair's second member (a number or a score_arg).
    template <class S>
    static Score score_of_pair(const S& s);
    /// a + b, or zset::error for a NaN or (integral scores) overflowing result.
    static Score checked_sum(Score a, Score b);
    /// The score as stored in the given encoding (listpack mode stores -0.0 as 0).
    static Score stored_score(Score s, zset::encoding mode) noexcept;

    // ---- member index (engine/member_index.hpp) ------------------------------------------------

    /// listpack_position_by_table()'s answer when the block's fingerprint scan must decide.
    static constexpr size_type needs_scan = block_type::npos - 1;

    /// find_score() in skiplist mode (out of line, as are the next two: its rare paths, members
    /// over 16 bytes and candidates after the first).
    bool score_in_skiplist(key_view member, Score& out) const noexcept;
    bool score_of_long_member(key_view member, Score& out) const noexcept;
    bool score_from_slot(key_view member, std::uint32_t tag, size_type slot,
                         Score& out) const noexcept;
    /// find_score() in listpack mode, inlined into score()'s caller.
    ZSET_ALWAYS_INLINE bool score_in_listpack(key_view member, Score& out) const noexcept;
    /// Its rare path: the block's full search (out of line).
    bool score_in_listpack_scan(key_view member, Score& out) const noexcept;
    /// Where the member is, or an empty position.
    ZSET_ALWAYS_INLINE position locate(const probe& k) const noexcept;
    ZSET_ALWAYS_INLINE position locate_in_skiplist(const probe& k) const noexcept;
    /// Where the member is, from `slot`, the first index slot that may hold its tag (or npos).
    ZSET_ALWAYS_INLINE position locate_from_slot(key_view member, std::uint32_t tag,
                                                 size_type slot) const noexcept;
    /// locate() in listpack mode (out of line).
    position locate_in_listpack(const probe& k) const noexcept;
    /// The member's position (its rank) in listpack mode, or npos.
    ZSET_ALWAYS_INLINE size_type listpack_position(key_view member) const noexcept;
    /// Its rare path: the block's full search (out of line).
    size_type listpack_position_scan(key_view member) const noexcept;
    /// The member's position in listpack mode from the bucket table: npos, or needs_scan.
    ZSET_ALWAYS_INLINE size_type listpack_position_by_table(key_view member) const noexcept;
    /// The member's position in listpack mode by the block's full search, or npos.
    ZSET_ALWAYS_INLINE size_type position_in_listpack(const probe& k) const noexcept;
    /// The located element's position in its block.
    size_type position_in_block(const position& p) const noexcept;

    // ---- order and ranks (engine/order.hpp) ----------------------------------------------------

    /// score_points() / lex_points(): search the end from the start's search path.
    static constexpr int climb_from_start = -1;

    /// Rank of the element an iterator points at (size() for end()).
    size_type rank_of_iterator(const const_iterator& it) const noexcept;
    /// Rank of a located element.
    size_type rank_of(const position& p) const noexcept;
    /// The rank of the element at point p.
    size_type rank_at(const rank_point& p) const noexcept;
    /// Elements from point a up to point b (0 when b is not after a).
    size_type points_between(const rank_point& a, const rank_point& b, int hops = 0) const noexcept;
    /// Where the first element for which goes_before does not hold lies.
    template <class GoesBefore>
    rank_point point_before(const GoesBefore& goes_before) const noexcept;
    /// {point_before(before_min), point_before(before_max)}, searched together.
    template <class GoesBefore>
    std::pair<rank_point, rank_point> both_points(const GoesBefore& before_min,
                                                  const GoesBefore& before_max) const noexcept;
    /// goes_before on a node's first element.
    template <class GoesBefore>
    auto node_goes_before(const GoesBefore& goes_before) const noexcept;
    /// The point in the block of node x, the level-0 node a descent ended on.
    template <class GoesBefore>
    rank_point point_in_node(node_id x, const GoesBefore& goes_before) const noexcept;
    /// point_before() for the end of a range that starts at `from`, searched forward.
    template <class GoesBefore>
    rank_point point_before_from(const rank_point& from, const GoesBefore& goes_before,
                                 int hops) const noexcept;
    /// Does the element at position j of block b go before?
    template <class GoesBefore>
    ZSET_ALWAYS_INLINE static bool element_goes_before(block_type b, size_type j,
                                                       const GoesBefore& goes_before) noexcept;
    /// point_before() in listpack mode.
    template <class GoesBefore>
    size_type point_in_listpack(const GoesBefore& goes_before) const noexcept;
    /// The position in block b where goes_before stops holding.
    template <class GoesBefore>
    size_type point_in_block(block_type b, const GoesBefore& goes_before) const noexcept;
    /// The places before the first element and after the last.
    rank_point begin_point() const noexcept;
    rank_point end_point() const noexcept;
    /// Where a score range starts and ends (the end may lie before the start: then it is empty).
    std::pair<rank_point, rank_point> score_points(const score_range<Score>& r,
                                                   int hops = climb_from_start) const noexcept;
    /// Where a lex range starts and ends.
    std::pair<rank_point, rank_point> lex_points(const lex_range<lex_key>& r,
                                                 int hops = climb_from_start) const noexcept;
    /// Does member m order before the start (lower) or the end of a lex range at bound b?
    bool before_lex_bound(key_view m, const lex_bound<lex_key>& b, bool lower) const noexcept;
    /// The ranks [lo, hi) between two points, of a score range, of a lex range.
    std::pair<size_type, size_type>
    ranks_of(const std::pair<rank_point, rank_point>& points) const noexcept;
    std::pair<size_type, size_type> score_ranks(const score_range<Score>& r) const noexcept;
    std::pair<size_type, size_type> lex_ranks(const lex_range<lex_key>& r) const noexcept;
    /// Redis's rank arguments (negative from the end) as ranks [lo, hi), clamped.
    std::pair<size_type, size_type> clamp_ranks(long long start, long long stop) const noexcept;
    /// LIMIT applied to ranks [lo, hi), counting from the low end or from the high end.
    static std::pair<size_type, size_type> apply_limit(size_type lo, size_type hi,
                                                       limit lim) noexcept;
    static std::pair<size_type, size_type> apply_limit_reverse(size_type lo, size_type hi,
                                                               limit lim) noexcept;

    // ---- iterators and ranges (engine/views.hpp) -----------------------------------------------

    /// A range of at most this many elements finds its end by hopping blocks.
    static constexpr size_type hop_limit = 512;
    /// Blocks a short range's count may hop (hop_limit elements in blocks at least half full).
    static constexpr int walk_hops = 8;

    /// An iterator of this set, built in the caller.
    ZSET_ALWAYS_INLINE const_iterator make_iterator(const list_type* list, block_type b, node_id id,
                                                    size_type pos) const noexcept;
    /// The listpack-mode iterator at position pos (end() from size()).
    ZSET_ALWAYS_INLINE const_iterator listpack_iterator(size_type pos) const noexcept;
    /// The iterator at position pos of block b (node id in skiplist mode).
    const_iterator iterator_at(node_id id, block_type b, size_type pos) const noexcept;
    /// The iterator `steps` elements after position pos of block id, by hopping blocks.
    const_iterator iterator_after(node_id id, size_type pos, size_type steps) const noexcept;
    /// The iterator `steps` elements before point p, by hopping blocks back.
    const_iterator iterator_before(const rank_point& p, size_type steps) const noexcept;
    /// The elements between two points, LIMIT applied.
    rank_range forward_range_between(const std::pair<rank_point, rank_point>& points,
                                     limit lim) const noexcept;
    /// Ranks [lo, hi).
    rank_range forward_range(size_type lo, size_type hi) const noexcept;
    /// forward_range(lo, hi) when the search for rank lo ended at `at`.
    rank_range forward_range_from(const rank_point& at, size_type lo, size_type hi) const noexcept;
    /// The range [lo, hi) whose first element is at position pos of block id.
    rank_range forward_range_at(node_id id, size_type pos, size_type lo,
                                size_type hi) const noexcept;
    /// The elements between two points walked highest first, LIMIT applied from the highest.
    reverse_range reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                        limit lim) const noexcept;
    reverse_range reverse_range_between(const std::pair<rank_point, rank_point>& points,
                                        size_type count, limit lim) const noexcept;
    /// Is lim a page of at most hop_limit elements from the range's top?
    static bool short_page(limit lim) noexcept;
    /// Does the score range hold no score at all?
    static bool inverted(const score_range<Score>& r) noexcept;
    /// reverse_range_between() for a short page, walking back from the end.
    reverse_range reverse_page(const std::pair<rank_point, rank_point>& points,
                               limit lim) const noexcept;
    /// The n elements from `first` on (skiplist mode), walked highest first.
    reverse_range reverse_from(const const_iterator& first, size_type n) const noexcept;
    /// Ranks [lo, hi) walked from hi - 1 down to lo.
    reverse_range reverse_view(size_type lo, size_type hi) const noexcept;

    // ---- listpack mode (engine/listpack_mode.hpp) ----------------------------------------------

    /// The member length reserve() assumes in an empty listpack-mode set, whose records it
    /// cannot average: a short key ("user:1234567890").
    static constexpr size_type reserve_member_bytes = 16;

    /// Would the listpack block still be addressable with `count` more elements of `units`
    /// more area units?
    bool listpack_can_take(size_type count, size_type units) const noexcept;
    /// Must adding member m convert the set to skiplist mode?
    bool must_convert_for(key_view m) const noexcept;
    /// Inserts (s, m) into the listpack block. Strong guarantee.
    void listpack_insert(const probe& k, Score given);
    /// Replaces the listpack block by one with room for one more record of `units` units (out
    /// of line).
    void make_listpack_room(size_type units);
    /// Replaces the listpack block by one of `cap` positions and `area` units holding the same
    /// elements (compacted when it holds garbage). Strong guarantee.
    void resize_listpack(size_type cap, size_type area);
    /// reserve() in listpack mode: room for n elements, records the size of the set's average
    /// (of a reserve_member_bytes member in an empty set).
    void reserve_listpack(size_type n);
    static size_type listpack_grown_positions(size_type n) noexcept;
    static size_type listpack_grown_area(size_type units) noexcept;
    /// Positions for a listpack block that wants `wanted`, capped by the thresholds.
    size_type listpack_positions(size_type wanted) const noexcept;
    /// Gives every element of a block that left its bucket table its whole fingerprint (out of
    /// line).
    void refingerprint_listpack() noexcept;

    // ---- skiplist mode (engine/skiplist_mode.hpp) ----------------------------------------------

    /// Inserts (s, m) into the list only (not the index). Strong guarantee.
    address insert_element(const probe& k, Score s);
    /// Where a new element goes in the list, and whether a descent found it (its path filled)
    /// or skiplist::block_for_score did (the block takes it without splitting).
    struct placement {
        typename list_type::slot where;
        enum { found_directly, descended } how;
    };
    ZSET_ALWAYS_INLINE placement place_of(Score s, key_view m, path& p) const noexcept;
    /// Inserts (s, m) at `at` (the list only, not the index). Strong guarantee.
    ZSET_ALWAYS_INLINE address insert_placed(placement at, path& p, Score s, key_view m);
    /// Removes position `pos` of node x from the list only (not the index). Never throws.
    void erase_from_list(node_id x, size_type pos) noexcept;
    /// Does (s, m), the new key of the element at position i of node x, still belong in x?
    bool stays_in_node(node_id x, size_type i, Score s, key_view m) const noexcept;
    /// The skiplist's block limits (block_max_entries, block_max_bytes).
    typename list_type::limits skiplist_limits() const noexcept;
    /// The `moved` callback of skiplist-mode inserts: re-points the index entry of a record that
    /// moved (a split or compaction), and is told of a block's moves before they start.
    class repointer;
    repointer repoint() noexcept;
    /// The element (s, m), found by descending the skiplist: its node and position.
    std::pair<node_id, size_type> find_element(Score s, key_view m) const noexcept;

    // ---- building and conversion (engine/conversion.hpp) ---------------------------------------

    /// Sets of up to this many members get their index laid out in one pass (build_skiplist).
    static constexpr size_type index_laid_out_up_to = 8192;

    /// Do the elements [first, last), n of them, fit listpack mode?
    template <class It>
    bool fits_listpack(It first, It last, size_type n) const;
    /// An input element's member and score (a reference or a pair).
    template <class E>
    static decltype(auto) element_member(const E& e);
    template <class E>
    static Score element_score(const E& e);
    /// Fills this (empty) set from sorted unique elements, in the given encoding.
    template <class It>
    void build_from(It first, It last, size_type n, bool as_skiplist,
                    build_room room = build_room::growth);
    /// Replaces the contents with sorted unique elements, in the smallest encoding that fits.
    template <class It>
    void rebuild_from(It first, It last, build_room room);
    /// The positions and area units of a built block for `count` elements of `units` units.
    static size_type built_positions(size_type count, build_room room) noexcept;
    static size_type built_area(size_type units, build_room room) noexcept;
    template <class It>
    void build_listpack(It first, It last, size_type n, build_room room);
    /// Appends the elements [first, last) to block b in order.
    template <class It>
    void fill_block(block_type b, It first, It last, zset::encoding mode) const;
    /// Fills this (empty) set in skiplist mode (out of line, as is the next).
    template <class It>
    void build_skiplist(It first, It last, size_type n, build_room room = build_room::growth);
    /// A copy of this set in skiplist mode (same allocator, options and functors).
    set_engine skiplist_copy() const;

    // ---- changes (engine/changes.hpp) ----------------------------------------------------------

    /// Inserts a new member (list and index). Strong guarantee.
    void insert_new(const probe& k, Score s, bool may_convert = true);
    /// Converts to skiplist mode and inserts the new member (out of line). Strong guarantee.
    void convert_and_insert(const probe& k, Score s);
    /// Removes a located element (index entry included). Never throws.
    void erase_found(const position& pos) noexcept;
    /// Changes the score of the located element (present, score differs). Strong guarantee.
    void update_score(const probe& k, const position& pos, Score given);
    /// Gives the element at position i (record r) of block b the score s and moves it within b.
    void move_within(block_type b, size_type i, ref_type r, Score s, key_view m,
                     size_type entry = block_type::npos) noexcept;
    /// Removes ranks [lo, hi) (index entries included). Never throws.
    size_type erase_ranks(size_type lo, size_type hi) noexcept;

    /// Applies a planned batch (strong guarantee).
    void apply_batch(const batch_plan& plan);
    void build_from_batch(const batch_plan& plan);
    /// The plan's new members.
    static size_type count_adds(const batch_plan& plan) noexcept;
    /// Would applying the plan to this listpack-mode set convert it?
    bool needs_conversion(const batch_plan& plan) const noexcept;
    /// Applies one planned change with the single-element operations (on a copy).
    void apply_change_in_place(const typename batch_plan::change& c);
    /// Applies one planned change in skiplist mode, beside the old copy of an updated member.
    void apply_change_beside(const typename batch_plan::change& c);
    /// Takes back the first `done` changes of a batch that failed (skiplist mode).
    void undo_changes(const batch_plan& plan, size_type done) noexcept;
    /// Drops the old copy of a member the batch moved and points the index at the new one.
    void commit_move(const typename batch_plan::change& c) noexcept;

    // ---- operations' helpers (engine/operations.hpp) -------------------------------------------

    /// add() once its arguments are checked.
    add_status add_checked(key_view member, Score score, add_flags flags);
    /// pop() of one element, read directly from the end block.
    void pop_one(value_vector& out, end_of_set from);
    /// Appends an owning copy of e, its member built in place.
    static void append_owned(value_vector& out, const reference& e);
    /// A rank drawn uniformly from [0, n), n >= 1.
    template <class URBG>
    static size_type random_rank(URBG& gen, size_type n);
    /// validate() of each mode's own structure.
    bool validate_listpack() const;
    bool validate_skiplist() const;
};

}  // namespace detail
}  // namespace zset

#endif  // ZSET_DETAIL_CONTAINER_SET_ENGINE_HPP
