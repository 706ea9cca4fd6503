# ARM64 Linux (no SSE2: the library's scalar code paths), static, run under qemu-aarch64.
# Debian: g++-aarch64-linux-gnu, qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(ZSET_PORT_TARGET aarch64)
