// Small helpers shared by the unit-test files: scores that stress the encodings, bytes from hex
// text, a double's bits, exact double comparison, a member order other than std::less. One
// definition each, so the files also compile together (the unity batches of ZSET_TEST_UNITY).
#ifndef ZSET_TESTS_TEST_SUPPORT_HPP
#define ZSET_TESTS_TEST_SUPPORT_HPP

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace zset_test {

inline constexpr double inf = std::numeric_limits<double>::infinity();

/// Scores that stress encodings: signed zeros, integers at every encoding width's edge, values
/// just past the exactly representable integers, extremes, subnormals and infinities.
inline const std::vector<double> special_scores = {0.0,
                                                   -0.0,
                                                   1.0,
                                                   -1.0,
                                                   0.1,
                                                   1.5,
                                                   -2.75,
                                                   1e17,
                                                   4611686018427387904.0 /* 2^62 */,
                                                   9223372036854775808.0 /* 2^63 */,
                                                   -4611686018427387904.0,
                                                   -9223372036854775808.0,
                                                   9007199254740994.0,
                                                   1e300,
                                                   -1e300,
                                                   5e-324,
                                                   -5e-324,
                                                   2.2250738585072009e-308,
                                                   1e-310,
                                                   inf,
                                                   -inf,
                                                   127,
                                                   128,
                                                   -4096,
                                                   4095,
                                                   4096,
                                                   32767,
                                                   32768,
                                                   -8388608,
                                                   2147483647,
                                                   2147483648.0,
                                                   123456789.123,
                                                   1.0 / 3,
                                                   std::numeric_limits<double>::max(),
                                                   std::numeric_limits<double>::lowest(),
                                                   std::numeric_limits<double>::min(),
                                                   std::numeric_limits<double>::denorm_min()};

/// The bytes written as hex digit pairs in h ("0a1f" -> "\x0a\x1f").
inline std::string unhex(std::string_view h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    return out;
}

/// The IEEE-754 bits of x (tells -0.0 from 0.0, and NaN payloads apart).
inline std::uint64_t bits_of(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

/// Whether a and b are the same double: -0.0 differs from 0.0, and NaN equals NaN.
inline bool same_double(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

/// A member order other than std::less (descending bytes): results must keep it.
struct reverse_bytes {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const noexcept { return b < a; }
};

}  // namespace zset_test

#endif  // ZSET_TESTS_TEST_SUPPORT_HPP
