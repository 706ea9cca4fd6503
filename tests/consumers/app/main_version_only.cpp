// Interim consumer program, used only while include/zset/zset.hpp does not exist yet.
#include <cstdio>
#include <cstring>

#include <zset/version.hpp>

int main() {
    if (zset::version::major != ZSET_VERSION_MAJOR ||
        std::strcmp(zset::version_string, ZSET_VERSION_STRING) != 0)
        return 1;
    std::puts("ok");
    return 0;
}
