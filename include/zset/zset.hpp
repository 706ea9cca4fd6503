// zset — the Redis sorted set as a header-only C++17 container.
// SPDX-License-Identifier: MIT
//
// This umbrella header brings in the container and the set operations.
#ifndef ZSET_ZSET_HPP
#define ZSET_ZSET_HPP

#include "common.hpp"
#include "set_ops.hpp"
#include "sorted_set.hpp"
#if __has_include("version.hpp")
#include "version.hpp"
#endif

#endif  // ZSET_ZSET_HPP
