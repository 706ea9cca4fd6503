#!/usr/bin/env bash
# Runs the Redis module's tests (ctest -L module: persistence, replication, bad input, cluster,
# drop-in and the differential tests) against a redis-server or valkey-server built from a
# source tree, so that the module is checked on the servers users run, not only on the one on
# PATH. Nothing of the server is in this repository.
#
#   tests/external/run_module_tests.sh <source tree or git dir> [ctest arguments...]
#
#   <source>       a Redis or Valkey checkout, release tarball's folder, or bare git directory
#                  (its HEAD); built by scripts/build-server.sh into its cache outside the
#                  repository (ZSET_SERVER_CACHE), or taken from there when already built
#   ctest args     passed on (e.g. -R differential, --output-on-failure is always set)
#
#   ZSET_MODULE_BUILD  the module build tree (default: build/servers, shared by every server:
#                      each run configures it with -DZSET_REDIS_SERVER=<the built server>, which
#                      changes the tests' command lines only, and builds the module alone)
#   ZSET_JOBS          parallel build and make jobs (default: 2)
#
# Prints the server's name and version, then ctest's report. Exit status: ctest's (0 when every
# module test passed), 2 on a usage or build error.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${1:-}"
if [[ -z "$src" ]]; then
    sed -n '7,8p' "$0" | sed 's/^# *//' >&2
    exit 2
fi
shift
jobs="${ZSET_JOBS:-2}"

server="$(ZSET_JOBS="$jobs" "$root/scripts/build-server.sh" "$src" | tail -n 1)" || {
    echo "run_module_tests: building the server from $src failed" >&2
    exit 2
}
[[ -x "$server" ]] || { echo "run_module_tests: no server binary ($server)" >&2; exit 2; }
name="$(basename "$server")"
version="$("$server" --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')"
echo "run_module_tests: $name $version ($server)"

build="${ZSET_MODULE_BUILD:-$root/build/servers}"
mkdir -p "$(dirname "$build")"
generator=(-G Ninja)
command -v ninja >/dev/null 2>&1 || generator=(-G "Unix Makefiles")
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DZSET_BUILD_MODULE=ON -DZSET_REDIS_SERVER="$server" >"$build.configure.log" 2>&1 || {
    cat "$build.configure.log" >&2
    echo "run_module_tests: configuring $build failed" >&2
    exit 2
}
cmake --build "$build" -j "$jobs" --target zset_module || exit 2
ctest --test-dir "$build" -L module --output-on-failure "$@"
