# Known portability problems of the test suite, per target, each with its reason. They stay
# visible: the configure step lists them, and a known failing test case runs on its own and must
# still fail (port.known_failure.<n>), so a fix turns the port leg red until its entry goes.
#
#   ZSET_PORT_SKIPPED_SOURCES   tests/test_*.cpp that do not compile for the target
#   ZSET_PORT_KNOWN_FAILURES    Catch2 test case names that fail on the target
#   ZSET_PORT_NONFATAL_WARNINGS flags keeping warnings in test code from failing the build
#                               (warnings in include/zset always fail the port leg)
set(ZSET_PORT_SKIPPED_SOURCES "")
set(ZSET_PORT_KNOWN_FAILURES "")
set(ZSET_PORT_NONFATAL_WARNINGS "")

if(ZSET_PORT_TARGET STREQUAL "i686")
    # tests/test_set_ops.cpp:179 spells __int128, which 32-bit targets lack (reported to the
    # file's owner; guard with __SIZEOF_INT128__ or compare without a wider type).
    list(APPEND ZSET_PORT_SKIPPED_SOURCES test_set_ops.cpp)
    # include/zset/redis/keyspace.hpp:1481: generic_pop casts the count to size_t: ZPOPMIN k
    # 4294967297 pops 1 element where Redis pops them all.
    list(APPEND ZSET_PORT_KNOWN_FAILURES "portability: keyspace pop counts beyond 32 bits")
    # -Wconversion: rng() % n narrowed into a 32-bit size_t in test_model.cpp, test_soak.cpp,
    # test_dump_restore.cpp and test_rdb_codec.cpp (test code only).
    list(APPEND ZSET_PORT_NONFATAL_WARNINGS -Wno-error=conversion)
endif()
