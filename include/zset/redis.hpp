// zset - the Redis sorted set as a C++17 container.
// SPDX-License-Identifier: MIT
//
// Umbrella header of the optional Redis layer:
//   zset/redis/numbers.hpp  — Redis-exact number parsing/formatting and error texts;
//   zset/redis/resp.hpp     — typed replies, RESP2/RESP3 writers, the request parser;
//   zset/redis/glob.hpp     — Redis glob matching (ZSCAN MATCH, CONFIG GET);
//   zset/redis/keyspace.hpp — named sorted sets executing Redis commands.
#ifndef ZSET_REDIS_HPP
#define ZSET_REDIS_HPP

#include <zset/redis/glob.hpp>
#include <zset/redis/keyspace.hpp>
#include <zset/redis/numbers.hpp>
#include <zset/redis/resp.hpp>

#endif  // ZSET_REDIS_HPP
