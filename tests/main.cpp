// Test runner entry point.
// Catch2 v2: this translation unit provides main(). Catch2 v3: main() comes from
// Catch2::Catch2WithMain, so this file is intentionally empty.
#if !defined(ZSET_CATCH2_V3)
#define CATCH_CONFIG_MAIN
#include "zset_catch.hpp"
#endif
