// The version (include/zset/version.hpp): ZSET_VERSION_MAJOR / MINOR / PATCH and
// ZSET_VERSION_STRING agree with zset::version and the zset::version_* constants.
#include <string>

#include "zset_catch.hpp"
#include <zset/version.hpp>

TEST_CASE("version macros agree with zset::version constants", "[version]") {
    STATIC_REQUIRE(zset::version::major == ZSET_VERSION_MAJOR);
    STATIC_REQUIRE(zset::version::minor == ZSET_VERSION_MINOR);
    STATIC_REQUIRE(zset::version::patch == ZSET_VERSION_PATCH);
    STATIC_REQUIRE(zset::version_major == ZSET_VERSION_MAJOR);
    STATIC_REQUIRE(zset::version_minor == ZSET_VERSION_MINOR);
    STATIC_REQUIRE(zset::version_patch == ZSET_VERSION_PATCH);
    STATIC_REQUIRE(zset::version::number ==
                   ZSET_VERSION_MAJOR * 10000 + ZSET_VERSION_MINOR * 100 + ZSET_VERSION_PATCH);

    const std::string expected = std::to_string(ZSET_VERSION_MAJOR) + "." +
                                 std::to_string(ZSET_VERSION_MINOR) + "." +
                                 std::to_string(ZSET_VERSION_PATCH);
    CHECK(std::string(ZSET_VERSION_STRING) == expected);
    CHECK(std::string(zset::version::string) == expected);
    CHECK(std::string(zset::version_string) == expected);
}
