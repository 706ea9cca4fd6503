#!/usr/bin/env bash
# Builds a redis-server (or valkey-server) from a source tree into a cache outside the
# repository and prints the path of the built server binary on its last line.
#
#   scripts/build-server.sh <source>     a source tree (a checkout or a release tarball's
#                                        folder) or a bare git directory (its HEAD is built)
#
#   ZSET_SERVER_CACHE   the cache (default: ${XDG_CACHE_HOME:-$HOME/.cache}/zset/servers)
#   ZSET_JOBS           parallel make jobs (default: 2)
#
# A build is keyed by the tree's content: a git HEAD's commit, or for a plain folder the hash of
# its src/version.h and file list. A cached build is reused; a failed one is removed. The build
# is `make BUILD_TLS=no USE_SYSTEMD=no` (the servers' own defaults otherwise).
set -euo pipefail

src="${1:?usage: scripts/build-server.sh <source tree or git dir>}"
cache="${ZSET_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zset/servers}"
jobs="${ZSET_JOBS:-2}"

if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    key=$(git -C "$src" rev-parse HEAD)
    export_tree() { git -C "$src" archive HEAD | tar -x -C "$1"; }
elif [ -f "$src/src/version.h" ]; then
    key=$( (cat "$src/src/version.h"; cd "$src" && find . -type f -newer src/version.h | sort) |
        sha256sum | cut -c1-40)
    export_tree() { cp -a "$src"/. "$1"/; }
else
    echo "build-server: $src is neither a git directory nor a Redis/Valkey source tree" >&2
    exit 2
fi

dir="$cache/$key"
server() {
    for name in valkey-server redis-server; do
        [ -x "$dir/src/$name" ] && { echo "$dir/src/$name"; return 0; }
    done
    return 1
}
if [ -f "$dir/.built" ] && server >/dev/null; then
    server
    exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' ERR
export_tree "$dir"
echo "build-server: building $src into $dir" >&2
make -C "$dir" -j "$jobs" BUILD_TLS=no USE_SYSTEMD=no >"$dir/build.log" 2>&1 ||
    { tail -30 "$dir/build.log" >&2; exit 1; }
touch "$dir/.built"
trap - ERR
server
