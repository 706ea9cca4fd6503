// The registry behind the header check: each generated translation unit adds the smoke test
// of its header; header_check_main.cpp runs them all. Included after the header under test.
#ifndef ZSET_TESTS_HEADER_CHECK_HPP
#define ZSET_TESTS_HEADER_CHECK_HPP

#include <cstdio>
#include <vector>

namespace zset_header_check {

using smoke_fn = void (*)();

struct entry {
    const char* header;
    smoke_fn run;
};

inline std::vector<entry>& registry() {
    static std::vector<entry> all;
    return all;
}

inline bool add(const char* header, smoke_fn run) {
    registry().push_back(entry{header, run});
    return true;
}

inline int& failures() {
    static int count = 0;
    return count;
}

inline void fail(const char* file, int line, const char* condition) {
    std::fprintf(stderr, "%s:%d: smoke check failed: %s\n", file, line, condition);
    ++failures();
}

}  // namespace zset_header_check

/// A check that works without exceptions: reports and counts a failure, then goes on.
#define SMOKE_CHECK(cond) ((cond) ? (void)0 : zset_header_check::fail(__FILE__, __LINE__, #cond))

#endif  // ZSET_TESTS_HEADER_CHECK_HPP
