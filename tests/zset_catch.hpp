// Catch2 include shim for the zset tests: include this, never a Catch2 header directly.
// Works with Catch2 v3 (ZSET_CATCH2_V3 defined by tests/CMakeLists.txt) and v2 (single header).
#ifndef ZSET_TESTS_ZSET_CATCH_HPP
#define ZSET_TESTS_ZSET_CATCH_HPP

#if defined(ZSET_CATCH2_V3)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#endif  // ZSET_TESTS_ZSET_CATCH_HPP
