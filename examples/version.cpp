// Prints the zset library version.
#include <cstdio>

#include <zset/version.hpp>

int main() {
    std::printf("zset %s\n", zset::version_string);
    return 0;
}
