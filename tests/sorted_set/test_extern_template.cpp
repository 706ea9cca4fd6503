// ZSET_INSTANTIATE / ZSET_EXTERN_TEMPLATES (include/zset/sorted_set.hpp, docs/benchmarks.md
// "Compile time"): this translation unit is the one that provides the explicit instantiation of
// zset::sorted_set<> and of its parts. Compiling it checks that every member of the default set
// instantiates (warning-free under the project's flags, with g++ and clang); the test runs the
// instantiated code through every encoding change. That a TU built with ZSET_EXTERN_TEMPLATES
// links against this instantiation alone is checked by bench/compile_time.sh, which builds and
// runs its six-operation program both ways.
#define ZSET_INSTANTIATE
#include <cstdint>
#include <string>

#include "zset_catch.hpp"
#include <zset/sorted_set.hpp>

// A user may instantiate a set of other member types explicitly too, which compiles every
// member function, also those only called for byte-string members (a listpack lookup helper
// once compared members as bytes and failed to compile for integers; only the lint leg's
// generated TU caught it).
template class zset::sorted_set<long long, std::int64_t>;

TEST_CASE("the explicitly instantiated default set works in both encodings", "[extern]") {
    zset::sorted_set<> s;
    for (int i = 0; i < 300; ++i) s.add("m" + std::to_string(i), i % 17);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    REQUIRE(s.size() == 300);
    REQUIRE(s.score("m20") == 3.0);
    REQUIRE(s.erase("m20"));
    REQUIRE(s.count({0, 1}) == 36);  // scores 0 and 1: 18 members each
    REQUIRE(s.range_by_score({16, 16}).size() == 17);
    REQUIRE(s.pop_min(5).size() == 5);
    REQUIRE(s.erase_range_by_score({0, 10}) == 192);
    REQUIRE(s.validate());
    s.shrink_to_fit();  // 102 left: back to listpack mode
    REQUIRE(s.encoding() == zset::encoding::listpack);
    REQUIRE(s.size() == 102);
    REQUIRE(s.validate());
}

TEST_CASE("an explicitly instantiated set of integers works in both encodings", "[extern]") {
    zset::sorted_set<long long, std::int64_t> s;
    for (long long i = 0; i < 100; ++i) s.add(i * 7, i % 5);
    REQUIRE(s.encoding() == zset::encoding::listpack);
    REQUIRE(s.score(21) == 3);
    REQUIRE(!s.score(22));
    for (long long i = 100; i < 300; ++i) s.add(i * 7, i % 5);
    REQUIRE(s.encoding() == zset::encoding::skiplist);
    REQUIRE(s.score(2093) == 4);  // 299 * 7
    REQUIRE(s.validate());
}
