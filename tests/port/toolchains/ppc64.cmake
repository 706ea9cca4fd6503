# Big-endian 64-bit POWER Linux, static, run under qemu-ppc64.
# Debian: g++-powerpc64-linux-gnu, qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64)
set(CMAKE_CXX_COMPILER powerpc64-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-ppc64)
set(ZSET_PORT_TARGET ppc64)
