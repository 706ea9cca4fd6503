# 32-bit x86 Linux (ILP32: size_t and pointers are 32 bits), static, run directly by the x86-64
# kernel. Debian: g++-i686-linux-gnu (not g++-multilib, which the other cross compilers remove).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(ZSET_PORT_TARGET i686)
