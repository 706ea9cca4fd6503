// zset::detail::set_engine, complete: the class (set_engine.hpp) and its definitions (engine/),
// one layer a file, each layer built on the ones before it. Part of <zset/sorted_set.hpp>.
// SPDX-License-Identifier: MIT
//
// Includes run one way: this header includes the class and the layers; each layer includes only
// the class. tools/check_include_graph.py fails on any header that includes its includer.
#ifndef ZSET_DETAIL_CONTAINER_ENGINE_HPP
#define ZSET_DETAIL_CONTAINER_ENGINE_HPP

#include "set_engine.hpp"

// The layers in order (clang-format would sort them).
// clang-format off
#include "engine/state.hpp"
#include "engine/keys.hpp"
#include "engine/member_index.hpp"
#include "engine/order.hpp"
#include "engine/views.hpp"
#include "engine/listpack_mode.hpp"
#include "engine/skiplist_mode.hpp"
#include "engine/conversion.hpp"
#include "engine/changes.hpp"
#include "engine/operations.hpp"
// clang-format on

#endif  // ZSET_DETAIL_CONTAINER_ENGINE_HPP
