// zset::redis::glob_match — glob-style pattern matching with Redis's exact rules (util.c
// stringmatchlen), as used by ZSCAN ... MATCH, SCAN, KEYS and CONFIG GET.
// SPDX-License-Identifier: MIT
//
// Thread safety: a pure function.
#ifndef ZSET_REDIS_GLOB_HPP
#define ZSET_REDIS_GLOB_HPP

#include <cstddef>
#include <string_view>

#include "../detail/redis_text.hpp"

namespace zset::redis {

namespace detail {

/// ASCII tolower on the value C's tolower() sees for a (signed) char in the "C" locale.
constexpr int glob_lower(int c) noexcept {
    return zset::detail::ascii_lower(static_cast<char>(c));
}

/// Byte `i` of `s` as C code reading a NUL-terminated buffer would see it: past the end is the
/// terminator. Returned as a (signed) char value, exactly what Redis's `int c = pattern[0]` is
/// on the platforms Redis targets.
constexpr int glob_at(std::string_view s, std::size_t i) noexcept {
    return i < s.size() ? static_cast<int>(static_cast<signed char>(s[i])) : 0;
}

/// Whether byte `c` lies in the range [a, b] of a class ("[a-z]"; reversed ranges swapped).
constexpr bool glob_in_range(int a, int b, int c, bool nocase) noexcept {
    if (a > b) {
        const int t = a;
        a = b;
        b = t;
    }
    if (nocase) {
        a = glob_lower(a);
        b = glob_lower(b);
        c = glob_lower(c);
    }
    return c >= a && c <= b;
}

/// Matches the character class that starts after the '[' at `p` against byte `c`; leaves `p`
/// on the class's closing ']' (or, for an unterminated class, on the last pattern byte, as
/// Redis steps back so that the caller's shared "pattern++" ends the pattern).
inline bool glob_class(std::string_view pat, std::size_t& p, int c, bool nocase) noexcept {
    const bool negate = glob_at(pat, p) == '^';
    if (negate) ++p;
    bool match = false;
    for (;; ++p) {
        if (glob_at(pat, p) == '\\' && pat.size() - p >= 2) {
            ++p;
            match = match || glob_at(pat, p) == c;
        } else if (glob_at(pat, p) == ']') {
            break;
        } else if (p >= pat.size()) {
            --p;
            break;
        } else if (pat.size() - p >= 3 && glob_at(pat, p + 1) == '-') {
            match = match || glob_in_range(glob_at(pat, p), glob_at(pat, p + 2), c, nocase);
            p += 2;
        } else if (!nocase) {
            match = match || glob_at(pat, p) == c;
        } else {
            match = match || glob_lower(glob_at(pat, p)) == glob_lower(c);
        }
    }
    return negate ? !match : match;
}

/// One step of the recursive matcher. `skip_longer` is Redis's skipLongerMatches flag: once
/// the rest of a pattern after a '*' failed to match at every position, no earlier '*' can
/// help, so the whole search stops (an optimisation that never changes the result).
inline bool glob_match_impl(std::string_view pat, std::string_view str, bool nocase,
                            bool& skip_longer, int nesting) noexcept {
    if (nesting > 1000) return false;  // protection against abusive patterns, as Redis
    std::size_t p = 0;
    std::size_t s = 0;
    while (p < pat.size() && s < str.size()) {
        switch (pat[p]) {
        case '*': {
            while (p + 1 < pat.size() && pat[p + 1] == '*') ++p;
            if (p + 1 == pat.size()) return true;
            for (; s < str.size(); ++s) {
                if (glob_match_impl(pat.substr(p + 1), str.substr(s), nocase, skip_longer,
                                    nesting + 1))
                    return true;
                if (skip_longer) return false;
            }
            skip_longer = true;
            return false;
        }
        case '?':
            ++s;
            break;
        case '[':
            ++p;
            if (!glob_class(pat, p, glob_at(str, s), nocase)) return false;
            ++s;
            break;
        case '\\':
            if (pat.size() - p >= 2) ++p;
            [[fallthrough]];
        default:
            if (nocase ? glob_lower(glob_at(pat, p)) != glob_lower(glob_at(str, s))
                       : pat[p] != str[s])
                return false;
            ++s;
            break;
        }
        ++p;
        if (s == str.size()) {
            while (p < pat.size() && pat[p] == '*') ++p;
            break;
        }
    }
    return p >= pat.size() && s == str.size();
}

}  // namespace detail

/// Whether `str` matches the glob `pattern`, with the rules of Redis's stringmatchlen():
///  - `*` any run of bytes (also empty), `?` exactly one byte;
///  - `[abc]` one of the listed bytes, `[^abc]` none of them, `[a-z]` a range (reversed ranges
///    such as `[z-a]` are swapped; bytes compare as signed chars, as in Redis on x86/ARM Linux),
///    `\x` inside a class is a literal x; an unterminated class ends at the end of the pattern;
///  - `\x` outside a class matches x literally (a trailing `\` matches a `\`);
///  - `nocase` folds ASCII letters only;
///  - both strings are binary safe; the pattern nesting limit (1000 '*' levels) fails the match,
///    as Redis does;
///  - like Redis, an empty string matches only the empty pattern (not even "*": Redis callers
///    skip matching altogether for the pattern "*").
/// Complexity: worst case O(|pattern| * |str|) thanks to Redis's early-stop rule. No-throw.
inline bool glob_match(std::string_view pattern, std::string_view str,
                       bool nocase = false) noexcept {
    bool skip_longer = false;
    return detail::glob_match_impl(pattern, str, nocase, skip_longer, 0);
}

}  // namespace zset::redis

#endif  // ZSET_REDIS_GLOB_HPP
