// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// This header is the single source of truth for the library version: the build system
// (CMakeLists.txt), the vcpkg port check and conanfile.py all parse the three
// ZSET_VERSION_* component macros below. Keep their "#define NAME <number>" form.
#ifndef ZSET_VERSION_HPP
#define ZSET_VERSION_HPP

#define ZSET_VERSION_MAJOR 0
#define ZSET_VERSION_MINOR 3
#define ZSET_VERSION_PATCH 0

#define ZSET_VERSION_STRINGIFY_IMPL(x) #x
#define ZSET_VERSION_STRINGIFY(x) ZSET_VERSION_STRINGIFY_IMPL(x)

/// "MAJOR.MINOR.PATCH", e.g. "0.3.0".
#define ZSET_VERSION_STRING                                                                        \
    ZSET_VERSION_STRINGIFY(ZSET_VERSION_MAJOR)                                                     \
    "." ZSET_VERSION_STRINGIFY(ZSET_VERSION_MINOR) "." ZSET_VERSION_STRINGIFY(ZSET_VERSION_PATCH)

/// Single integer for preprocessor comparisons: MAJOR * 10000 + MINOR * 100 + PATCH.
#define ZSET_VERSION (ZSET_VERSION_MAJOR * 10000 + ZSET_VERSION_MINOR * 100 + ZSET_VERSION_PATCH)

namespace zset {

/// Library version as compile-time constants (mirrors the ZSET_VERSION_* macros).
struct version {
    static constexpr int major = ZSET_VERSION_MAJOR;
    static constexpr int minor = ZSET_VERSION_MINOR;
    static constexpr int patch = ZSET_VERSION_PATCH;
    static constexpr int number = ZSET_VERSION;
    static constexpr const char* string = ZSET_VERSION_STRING;
};

inline constexpr int version_major = ZSET_VERSION_MAJOR;
inline constexpr int version_minor = ZSET_VERSION_MINOR;
inline constexpr int version_patch = ZSET_VERSION_PATCH;
inline constexpr const char* version_string = ZSET_VERSION_STRING;

}  // namespace zset

#endif  // ZSET_VERSION_HPP
