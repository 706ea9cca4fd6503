// zset — the Redis sorted set as a header-only C++17 container.
// This umbrella header brings in the container and the set operations.
#pragma once

#include "common.hpp"
#include "set_ops.hpp"
#include "sorted_set.hpp"
#if __has_include("version.hpp")
#include "version.hpp"
#endif
