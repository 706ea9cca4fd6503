# Windows x64 (LLP64: long is 32 bits): MinGW-w64 g++ 12 with POSIX threads (as MSYS2 ships it),
# static, run under wine64 (tests/port/wine.sh). Debian: g++-mingw-w64-x86-64-posix, wine64.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../wine.sh")
set(ZSET_PORT_TARGET win64)
