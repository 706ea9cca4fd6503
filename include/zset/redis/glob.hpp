// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// Glob-style pattern matching with Redis's exact rules (util.c stringmatchlen), as used by
// ZSCAN ... MATCH, SCAN, KEYS and CONFIG GET.
#ifndef ZSET_REDIS_GLOB_HPP
#define ZSET_REDIS_GLOB_HPP

#include <cstddef>
#include <string_view>

namespace zset::redis {

namespace detail {

/// ASCII tolower on the value C's tolower() sees for a (signed) char in the "C" locale.
constexpr int glob_lower(int c) noexcept {
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/// Byte `i` of `s` as C code reading a NUL-terminated buffer would see it: past the end is the
/// terminator. Returned as a (signed) char value, exactly what Redis's `int c = pattern[0]` is
/// on the platforms Redis targets.
constexpr int glob_at(std::string_view s, std::size_t i) noexcept {
    return i < s.size() ? static_cast<int>(static_cast<signed char>(s[i])) : 0;
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
            while (s < str.size()) {
                if (glob_match_impl(pat.substr(p + 1), str.substr(s), nocase, skip_longer,
                                    nesting + 1))
                    return true;
                if (skip_longer) return false;
                ++s;
            }
            skip_longer = true;
            return false;
        }
        case '?':
            ++s;
            break;
        case '[': {
            ++p;
            const bool negate = glob_at(pat, p) == '^';
            if (negate) ++p;
            bool match = false;
            const int c = glob_at(str, s);
            for (;;) {
                if (glob_at(pat, p) == '\\' && pat.size() - p >= 2) {
                    ++p;
                    if (glob_at(pat, p) == c) match = true;
                } else if (glob_at(pat, p) == ']') {
                    break;
                } else if (p >= pat.size()) {
                    --p;  // Redis steps back so the shared "pattern++" below ends the pattern
                    break;
                } else if (pat.size() - p >= 3 && glob_at(pat, p + 1) == '-') {
                    int start = glob_at(pat, p);
                    int end = glob_at(pat, p + 2);
                    int ch = c;
                    if (start > end) {
                        const int t = start;
                        start = end;
                        end = t;
                    }
                    if (nocase) {
                        start = glob_lower(start);
                        end = glob_lower(end);
                        ch = glob_lower(ch);
                    }
                    p += 2;
                    if (ch >= start && ch <= end) match = true;
                } else if (!nocase) {
                    if (glob_at(pat, p) == c) match = true;
                } else if (glob_lower(glob_at(pat, p)) == glob_lower(c)) {
                    match = true;
                }
                ++p;
            }
            if (negate) match = !match;
            if (!match) return false;
            ++s;
            break;
        }
        case '\\':
            if (pat.size() - p >= 2) ++p;
            [[fallthrough]];
        default:
            if (!nocase) {
                if (pat[p] != str[s]) return false;
            } else if (glob_lower(glob_at(pat, p)) != glob_lower(glob_at(str, s))) {
                return false;
            }
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
