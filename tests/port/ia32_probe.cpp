// Configure-time probe of the i686 port build (tests/port/CMakeLists.txt): prints a marker when
// the host kernel runs 32-bit x86 programs itself.
#include <cstdio>

int main() {
    std::puts("zset-ia32-probe");
    return 0;
}
