// zset: vocabulary types shared by the container, the set operations and the Redis layer.
// SPDX-License-Identifier: MIT
#ifndef ZSET_COMMON_HPP
#define ZSET_COMMON_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define ZSET_HAS_EXCEPTIONS 1
#define ZSET_TRY try
#define ZSET_CATCH_ALL catch (...)
#define ZSET_RETHROW throw
#else
// Built with -fno-exceptions: errors print their text and abort (see README, "Exceptions").
#define ZSET_HAS_EXCEPTIONS 0
#define ZSET_TRY if (true)
#define ZSET_CATCH_ALL else
#define ZSET_RETHROW ((void)0)
#endif

/// Checked mode: iterators and views remember the set's generation and abort with a message
/// when used after the set changed. On by default when NDEBUG is not defined (or with
/// _GLIBCXX_ASSERTIONS); define ZSET_DEBUG to 0 or 1 to choose. It changes the iterator's
/// layout: every translation unit of a program must agree on it (as with _GLIBCXX_DEBUG).
#ifndef ZSET_DEBUG
#if !defined(NDEBUG) || defined(_GLIBCXX_ASSERTIONS)
#define ZSET_DEBUG 1
#else
#define ZSET_DEBUG 0
#endif
#endif

/// Forces inlining of the few functions on the member-lookup path: g++ otherwise keeps the
/// hash and the index probe out of line, which costs a third of a ZSCORE in cache.
#if defined(__GNUC__) || defined(__clang__)
#define ZSET_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ZSET_ALWAYS_INLINE __forceinline
#else
#define ZSET_ALWAYS_INLINE inline
#endif

/// The same for a lambda on the lookup path (after its parameter list): g++ calls a visitor
/// lambda out of line once the function it is passed to grows.
#if defined(__GNUC__) || defined(__clang__)
#define ZSET_LAMBDA_INLINE __attribute__((always_inline))
#else
#define ZSET_LAMBDA_INLINE
#endif

/// A branch the hot path expects to take: the hint keeps the rare side out of line.
#if defined(__GNUC__) || defined(__clang__)
#define ZSET_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define ZSET_LIKELY(x) (x)
#endif

/// Keeps a function out of line, so each caller carries a call instead of a copy of its body:
/// for the slow paths of an insertion (a conversion to skiplist mode, a block split, regrowth
/// or compaction, an index rehash, a node pool growth), which run once per many operations.
/// It saves compile time and code size (docs/benchmarks.md, "Compile time"), not run time. Not
/// __attribute__((cold)): that also optimizes for size paths whose speed counts in bulk (copies,
/// set operations' results, rehashes), for little compile time (docs/design-log.md, "Compile
/// time").
#if defined(__GNUC__) || defined(__clang__)
#define ZSET_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define ZSET_NOINLINE __declspec(noinline)
#else
#define ZSET_NOINLINE
#endif

namespace zset {

/// The exception thrown for invalid input. what() is Redis's error text where Redis has one
/// (e.g. "ERR resulting score is not a number (NaN)"), so a server can reply it verbatim.
/// Every operation that throws it leaves the set unchanged.
class error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

namespace detail {
/// Throws zset::error(text); without exceptions, prints the text and aborts.
[[noreturn]] inline void raise_error(const char* text) {
#if ZSET_HAS_EXCEPTIONS
    throw error(text);
#else
    std::fprintf(stderr, "zset: %s\n", text);
    std::abort();
#endif
}
/// A failed checked-mode assertion: prints the text and aborts (not an exception: the program
/// has a bug, and the set may be mid-operation).
[[noreturn]] inline void fail_check(const char* text) noexcept {
    std::fprintf(stderr, "%s\n", text);
    std::abort();
}
/// Throws std::length_error(text); without exceptions, prints the text and aborts.
[[noreturn]] inline void raise_length_error(const char* text) {
#if ZSET_HAS_EXCEPTIONS
    throw std::length_error(text);
#else
    std::fprintf(stderr, "zset: %s\n", text);
    std::abort();
#endif
}

/// Whether the integer v is representable as the integer type To (no sign-compare pitfalls).
template <class To, class From>
constexpr bool in_range_of(From v) noexcept {
    static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
    if constexpr (std::is_signed_v<From> == std::is_signed_v<To>) {
        return v >= std::numeric_limits<To>::lowest() && v <= std::numeric_limits<To>::max();
    } else if constexpr (std::is_signed_v<From>) {  // signed to unsigned
        return v >= 0 &&
               static_cast<std::make_unsigned_t<From>>(v) <= std::numeric_limits<To>::max();
    } else {  // unsigned to signed
        return v <= static_cast<std::make_unsigned_t<To>>(std::numeric_limits<To>::max());
    }
}
}  // namespace detail

/// Redis's error texts for the errors the container itself can raise.
namespace errors {
inline constexpr const char* not_a_float = "ERR value is not a valid float";
inline constexpr const char* nan_result = "ERR resulting score is not a number (NaN)";
inline constexpr const char* xx_and_nx =
    "ERR XX and NX options at the same time are not compatible";
inline constexpr const char* gt_lt_nx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
inline constexpr const char* syntax = "ERR syntax error";
inline constexpr const char* out_of_range_positive = "ERR value is out of range, must be positive";
inline constexpr const char* integer_overflow = "ERR increment or decrement would overflow";
inline constexpr const char* limit_negative = "ERR LIMIT can't be negative";
/// A score given as another arithmetic type that the set's Score cannot hold exactly.
inline constexpr const char* score_out_of_range = "ERR value is out of range for the score type";
}  // namespace errors

/// The two internal representations, as OBJECT ENCODING reports them.
enum class encoding { listpack, skiplist };

/// Conversion thresholds (Redis's zset-max-listpack-entries / zset-max-listpack-value).
struct options {
    /// A set converts to skiplist mode when adding a member would make it larger than this.
    std::size_t max_listpack_entries = 128;
    /// ...or when an added member is longer than this many bytes (sizeof for non-strings).
    std::size_t max_listpack_value = 64;
};

namespace detail {
/// options in 32-bit fields, as a set keeps them (8 bytes of its 32). Larger values saturate:
/// a listpack block holds at most 65535 elements and 4 GiB members are stored out of line.
struct compact_options {
    std::uint32_t max_listpack_entries = 128;
    std::uint32_t max_listpack_value = 64;
    compact_options() = default;
    compact_options(const options& o) noexcept  // NOLINT(google-explicit-constructor)
        : max_listpack_entries(saturate(o.max_listpack_entries)),
          max_listpack_value(saturate(o.max_listpack_value)) {}
    operator options() const noexcept {  // NOLINT(google-explicit-constructor)
        return options{max_listpack_entries, max_listpack_value};
    }
    static std::uint32_t saturate(std::size_t v) noexcept {
        return v > 0xffffffffu ? 0xffffffffu : static_cast<std::uint32_t>(v);
    }
};
}  // namespace detail

/// ZADD's NX / XX / GT / LT / CH options; combine with |.
enum class add_flags : unsigned {
    none = 0,
    nx = 1u << 0,  ///< only add new members
    xx = 1u << 1,  ///< only update existing members
    gt = 1u << 2,  ///< update only when the new score is greater (new members still added)
    lt = 1u << 3,  ///< update only when the new score is less (new members still added)
    ch = 1u << 4,  ///< batch add: count changed members, not only added ones
};
constexpr add_flags operator|(add_flags a, add_flags b) noexcept {
    return static_cast<add_flags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr add_flags operator&(add_flags a, add_flags b) noexcept {
    return static_cast<add_flags>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
constexpr add_flags& operator|=(add_flags& a, add_flags b) noexcept {
    return a = a | b;
}
constexpr add_flags& operator&=(add_flags& a, add_flags b) noexcept {
    return a = a & b;
}
/// Whether `flag` is set in `set`.
[[nodiscard]] constexpr bool has(add_flags set, add_flags flag) noexcept {
    return (static_cast<unsigned>(set) & static_cast<unsigned>(flag)) != 0;
}

/// What a single add did (ZADD's per-element outcome).
enum class add_status {
    added,      ///< the member was new and was inserted
    updated,    ///< the member existed and its score changed
    unchanged,  ///< the member existed with an equal score (0 and -0 are equal)
    skipped,    ///< NX, XX, GT or LT prevented the operation
};

/// Whether a range end includes its value (Redis's "[x" or a plain score) or excludes it
/// (Redis's "(").
enum class endpoint { inclusive, exclusive };

/// One end of a score range. A plain score converts to an inclusive end, so
/// `score_range<double>{0, 1}` is the closed range [0, 1]; the other forms are named:
/// `score_bound<double>::exclusive_of(1)` or `score_bound<double>(1, endpoint::exclusive)`.
template <class Score>
struct score_bound {
    Score value;
    bool exclusive;

    /// An inclusive end at v (implicit: a score is a closed end).
    constexpr score_bound(Score v) noexcept : value(v), exclusive(false) {}  // NOLINT
    constexpr score_bound(Score v, endpoint e) noexcept
        : value(v), exclusive(e == endpoint::exclusive) {}

    [[nodiscard]] static constexpr score_bound inclusive(Score v) noexcept { return {v}; }
    [[nodiscard]] static constexpr score_bound exclusive_of(Score v) noexcept {
        return {v, endpoint::exclusive};
    }
    /// -inf for floating scores, the lowest value otherwise.
    [[nodiscard]] static constexpr score_bound lowest() noexcept {
        if constexpr (std::numeric_limits<Score>::has_infinity)
            return {-std::numeric_limits<Score>::infinity()};
        else
            return {std::numeric_limits<Score>::lowest()};
    }
    /// +inf for floating scores, the highest value otherwise.
    [[nodiscard]] static constexpr score_bound highest() noexcept {
        if constexpr (std::numeric_limits<Score>::has_infinity)
            return {std::numeric_limits<Score>::infinity()};
        else
            return {std::numeric_limits<Score>::max()};
    }
};

/// A score interval (ZRANGEBYSCORE min max); either end may be exclusive. `{}` is every score,
/// `{lo, hi}` the closed interval [lo, hi] (a constructor, not an aggregate: a brace pair can
/// never land in `min.exclusive`).
template <class Score>
struct score_range {
    score_bound<Score> min;
    score_bound<Score> max;

    constexpr score_range() noexcept
        : min(score_bound<Score>::lowest()), max(score_bound<Score>::highest()) {}
    constexpr score_range(score_bound<Score> lo, score_bound<Score> hi) noexcept
        : min(lo), max(hi) {}

    [[nodiscard]] static constexpr score_range all() noexcept { return {}; }
    [[nodiscard]] static constexpr score_range closed(Score lo, Score hi) noexcept {
        return {lo, hi};
    }
};

/// One end of a lex range: Redis's "[x", "(x", "-" and "+". A bound over std::string converts
/// to one over std::string_view (what a set of strings takes), viewing the same bytes.
template <class Key>
struct lex_bound {
    enum class kind { inclusive, exclusive, minus_infinity, plus_infinity };
    kind type;
    Key value;

    /// No default: `{}` could mean "-" or "+" depending on the end, so a bound is always named
    /// (inclusive, exclusive, minus_infinity, plus_infinity).
    lex_bound() = delete;
    lex_bound(kind k, Key v) : type(k), value(std::move(v)) {}
    template <class Other, std::enable_if_t<!std::is_same_v<Other, Key> &&
                                                std::is_constructible_v<Key, const Other&>,
                                            int> = 0>
    lex_bound(const lex_bound<Other>& other)  // NOLINT: a view of the same bound
        : type(static_cast<kind>(static_cast<int>(other.type))), value(other.value) {}

    [[nodiscard]] static lex_bound inclusive(Key v) { return {kind::inclusive, std::move(v)}; }
    [[nodiscard]] static lex_bound exclusive(Key v) { return {kind::exclusive, std::move(v)}; }
    [[nodiscard]] static lex_bound minus_infinity() { return {kind::minus_infinity, Key{}}; }
    [[nodiscard]] static lex_bound plus_infinity() { return {kind::plus_infinity, Key{}}; }
};

/// A lex interval (ZRANGEBYLEX min max). Meaningful when all scores are equal, as in Redis.
/// `{}` is every member ("-" to "+").
template <class Key>
struct lex_range {
    lex_bound<Key> min;
    lex_bound<Key> max;

    lex_range() : min(lex_bound<Key>::minus_infinity()), max(lex_bound<Key>::plus_infinity()) {}
    lex_range(lex_bound<Key> lo, lex_bound<Key> hi) : min(std::move(lo)), max(std::move(hi)) {}
    template <class Other, std::enable_if_t<!std::is_same_v<Other, Key> &&
                                                std::is_constructible_v<Key, const Other&>,
                                            int> = 0>
    lex_range(const lex_range<Other>& other)  // NOLINT: a view of the same range
        : min(other.min), max(other.max) {}
};

/// LIMIT offset count: a negative count means "all", a negative offset selects nothing.
/// `{}` is no limit; both numbers are required otherwise (`limit{10}` would be ambiguous).
struct limit {
    long long offset;
    long long count;

    constexpr limit() noexcept : offset(0), count(-1) {}
    constexpr limit(long long offset_, long long count_) noexcept
        : offset(offset_), count(count_) {}
};

namespace detail {
/// Why the arithmetic value v cannot be a score of type Score (Redis's error text), or nullptr
/// when it can: NaN, a non-integral or out-of-range value for an integral Score, an overflow
/// to infinity for a narrower floating Score. Integers convert to floating scores with
/// rounding, as Redis's ZADD converts them.
template <class Score, class From>
const char* score_cast_error(From v) noexcept {
    static_assert(std::is_arithmetic_v<From>, "zset: a score must be an arithmetic value");
    if constexpr (std::is_floating_point_v<From>) {
        if (std::isnan(v)) return errors::not_a_float;
        if constexpr (std::is_integral_v<Score>) {
            // [lowest, max + 1) as exact powers of two in From
            const From lo = static_cast<From>(std::numeric_limits<Score>::lowest());
            const From hi = static_cast<From>(std::numeric_limits<Score>::max() / 2 + 1) * 2;
            if (!(v >= lo && v < hi) || std::trunc(v) != v) return errors::score_out_of_range;
        } else if constexpr (!std::is_same_v<Score, From>) {
            if (std::isinf(static_cast<Score>(v)) && !std::isinf(v))
                return errors::score_out_of_range;
        }
    } else if constexpr (std::is_integral_v<Score>) {
        if (!in_range_of<Score>(v)) return errors::score_out_of_range;
    }
    return nullptr;
}

/// v as a Score, or zset::error (see score_cast_error).
template <class Score, class From>
Score checked_score_cast(From v) {
    if (const char* why = score_cast_error<Score>(v)) raise_error(why);
    return static_cast<Score>(v);
}
}  // namespace detail

/// A score argument of a set whose scores are `Score`: any arithmetic value (not bool). The
/// set checks it (checked()) after its other arguments, as Redis checks ZADD's flags before its
/// scores: Score must hold the value exactly (an integral Score takes no fraction; NaN is never
/// a score), otherwise zset::error and nothing changes. So `s.add("a", 1.5)` on a set of
/// integral scores fails loudly instead of storing 1.
template <class Score>
class score_arg {
public:
    template <class T,
              std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
    score_arg(T v) noexcept  // NOLINT: implicit, as a plain Score would be
        : error_(detail::score_cast_error<Score>(v)),
          value_(error_ == nullptr ? static_cast<Score>(v) : Score()) {}
    /// The score; throws zset::error when Score cannot hold the value given.
    [[nodiscard]] Score checked() const {
        if (error_ != nullptr) detail::raise_error(error_);
        return value_;
    }

private:
    const char* error_;
    Score value_;
};

/// ZUNION / ZINTER AGGREGATE.
enum class aggregate { sum, min, max };

}  // namespace zset

#endif  // ZSET_COMMON_HPP
