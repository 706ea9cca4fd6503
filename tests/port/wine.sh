#!/bin/sh
# Runs a Windows program under wine64, non-interactively: no display, no Mono/Gecko installer
# prompts, no debug chatter. The win64 toolchain's CMAKE_CROSSCOMPILING_EMULATOR.
#
# WINEPREFIX: the environment's (scripts/test.sh's port leg makes a temporary one), else a
# per-user prefix under ${TMPDIR:-/tmp}. A new prefix takes a few seconds to create; concurrent
# first runs wait for one creation under a lock.
set -eu
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=d"
WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/zset-wine-$(id -u)}"
export WINEPREFIX
unset DISPLAY WAYLAND_DISPLAY
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    mkdir -p "$WINEPREFIX"
    flock "$WINEPREFIX/.zset-init.lock" sh -c \
        '[ -f "$WINEPREFIX/system.reg" ] || "$1" wineboot --init >/dev/null 2>&1' sh "$wine"
fi
exec "$wine" "$@"
