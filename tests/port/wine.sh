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
#
# Once, under ctest -j2, a program failed at once (0.02 s, no output) with "wine client
# error:0: recvmsg: Connection reset by peer": the wineserver closed its connection as it
# started, while other programs were running. The cause was not pinned down, so both ends are
# covered: one wineserver serves the whole run, kept for a minute after its last program (-p60;
# --stop ends it), so none starts while a previous one exits; and a program that still fails
# with that wine error, which it never got to run past, is started once more (noted on stderr).
set -eu
WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/zset-wine-$(id -u)}"
TMPDIR="$WINEPREFIX/.tmp"
export WINEPREFIX TMPDIR WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=d"
unset DISPLAY WAYLAND_DISPLAY
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
if [ "${1:-}" = --stop ]; then
    [ -d "$TMPDIR" ] || exit 0  # no server ever ran in this prefix
    exec "$wineserver" -k
fi
mkdir -p "$TMPDIR"
# The prefix is ready once wineboot has run: a marker of ours, since a server that stays up
# writes the registry files (system.reg ...) only when it exits.
if [ ! -f "$WINEPREFIX/.zset-ready" ]; then
    flock "$WINEPREFIX/.zset-init.lock" sh -c '[ -f "$WINEPREFIX/.zset-ready" ] ||
        { "$1" wineboot --init >/dev/null 2>&1; touch "$WINEPREFIX/.zset-ready"; }' sh "$wine"
fi
# Only on a ready prefix: a server started before wineboot made concurrent first programs
# wait ~90 s.
"$wineserver" -p60 2>/dev/null || true  # starts the server; exits 2 when one runs
errors="$TMPDIR/stderr.$$"
for attempt in 1 2; do
    rc=0
    "$wine" "$@" 2>"$errors" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$attempt" = 1 ] && grep -q '^wine client error' "$errors"; then
        echo "wine.sh: $(head -n 1 "$errors"); starting $1 once more" >&2
        continue
    fi
    cat "$errors" >&2
    rm -f "$errors"
    exit "$rc"
done
