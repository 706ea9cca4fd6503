// zset: vocabulary types shared by the container, the set operations and the Redis layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

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
constexpr bool has(add_flags set, add_flags flag) noexcept {
    return (static_cast<unsigned>(set) & static_cast<unsigned>(flag)) != 0;
}

/// What a single add did (ZADD's per-element outcome).
enum class add_status {
    added,      ///< the member was new and was inserted
    updated,    ///< the member existed and its score changed
    unchanged,  ///< the member existed with an equal score (0 and -0 are equal)
    skipped,    ///< NX, XX, GT or LT prevented the operation
};

/// One end of a score range: `exclusive` is Redis's "(" prefix.
template <class Score>
struct score_bound {
    Score value;
    bool exclusive = false;

    static constexpr score_bound inclusive(Score v) noexcept { return {v, false}; }
    static constexpr score_bound exclusive_of(Score v) noexcept { return {v, true}; }
    /// -inf for floating scores, the lowest value otherwise.
    static constexpr score_bound lowest() noexcept {
        if constexpr (std::numeric_limits<Score>::has_infinity)
            return {-std::numeric_limits<Score>::infinity(), false};
        else
            return {std::numeric_limits<Score>::lowest(), false};
    }
    /// +inf for floating scores, the highest value otherwise.
    static constexpr score_bound highest() noexcept {
        if constexpr (std::numeric_limits<Score>::has_infinity)
            return {std::numeric_limits<Score>::infinity(), false};
        else
            return {std::numeric_limits<Score>::max(), false};
    }
};

/// A score interval [min, max] (ZRANGEBYSCORE min max); either end may be exclusive.
template <class Score>
struct score_range {
    score_bound<Score> min = score_bound<Score>::lowest();
    score_bound<Score> max = score_bound<Score>::highest();

    static constexpr score_range all() noexcept { return {}; }
    static constexpr score_range closed(Score lo, Score hi) noexcept {
        return {score_bound<Score>::inclusive(lo), score_bound<Score>::inclusive(hi)};
    }
};

/// One end of a lex range: Redis's "[x", "(x", "-" and "+".
template <class Key>
struct lex_bound {
    enum class kind { inclusive, exclusive, minus_infinity, plus_infinity };
    kind type = kind::minus_infinity;
    Key value{};

    static lex_bound inclusive(Key v) { return {kind::inclusive, std::move(v)}; }
    static lex_bound exclusive(Key v) { return {kind::exclusive, std::move(v)}; }
    static lex_bound minus_infinity() { return {kind::minus_infinity, Key{}}; }
    static lex_bound plus_infinity() { return {kind::plus_infinity, Key{}}; }
};

/// A lex interval (ZRANGEBYLEX min max). Meaningful when all scores are equal, as in Redis.
template <class Key>
struct lex_range {
    lex_bound<Key> min = lex_bound<Key>::minus_infinity();
    lex_bound<Key> max = lex_bound<Key>::plus_infinity();
};

/// LIMIT offset count: a negative count means "all", a negative offset selects nothing.
struct limit {
    long long offset = 0;
    long long count = -1;
};

/// ZUNION / ZINTER AGGREGATE.
enum class aggregate { sum, min, max };

}  // namespace zset
