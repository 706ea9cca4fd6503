#!/usr/bin/env bash
# Installs everything needed to build, test, benchmark and lint zset (Debian/Ubuntu, apt).
# Uses sudo only when not already root.
set -euo pipefail

ZSET_APT_PACKAGES=(
    g++ clang cmake ninja-build make
    catch2 libbenchmark-dev libabsl-dev libboost-dev
    redis-server redis-tools libhiredis-dev
    gdb valgrind python3 python3-redis pkg-config
    clang-tidy cppcheck clang-format libclang-rt-14-dev
    # the port leg: cross compilers (static C/C++ runtimes come with them), wine64 and qemu-user
    g++-mingw-w64-x86-64-posix wine64 g++-i686-linux-gnu g++-powerpc64-linux-gnu
    g++-aarch64-linux-gnu qemu-user
)

if [[ "$(id -u)" -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-deps.sh: not root and sudo is not available" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${ZSET_APT_PACKAGES[@]}"
