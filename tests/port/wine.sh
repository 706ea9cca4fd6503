#!/bin/sh
# Runs a Windows program under wine64, non-interactively: no display, no Mono/Gecko installer
# prompts, no debug chatter. The win64 toolchain's CMAKE_CROSSCOMPILING_EMULATOR.
#
#   tests/port/wine.sh program.exe [args...]
#   tests/port/wine.sh --stop          stops the prefix's wineserver
#
# WINEPREFIX: the environment's (scripts/test.sh's port leg makes a temporary one), else a
# per-user prefix under ${TMPDIR:-/tmp}. Wine's server socket directory goes inside the prefix,
# so deleting the prefix leaves nothing behind. A new prefix takes a few seconds to create;
# concurrent first runs wait for one creation under a lock.
set -eu
WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/zset-wine-$(id -u)}"
TMPDIR="$WINEPREFIX/.tmp"
export WINEPREFIX TMPDIR WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=d"
unset DISPLAY WAYLAND_DISPLAY
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
if [ "${1:-}" = --stop ]; then
    [ -d "$TMPDIR" ] || exit 0  # no server ever ran in this prefix
    exec "$(command -v wineserver || echo /usr/lib/wine/wineserver64)" -k
fi
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    mkdir -p "$TMPDIR"
    flock "$WINEPREFIX/.zset-init.lock" sh -c \
        '[ -f "$WINEPREFIX/system.reg" ] || "$1" wineboot --init >/dev/null 2>&1' sh "$wine"
fi
exec "$wine" "$@"
