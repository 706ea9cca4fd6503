#!/bin/bash
# Runs the sorted-set tests of Redis's own test suite and of redis-py's, unmodified, against
# zset-server or against redis-server with zset's module, and prints the counts. Nothing of
# either suite is in this repository: give their source trees (a Redis checkout or release
# tarball; a redis-py checkout). Builds nothing.
#
#   tests/external/run_redis_suites.sh (--zset-server build/examples/server/zset-server |
#       --module build/module/zset.so [--dropin] [--redis-server redis-server])
#       --redis-src ~/src/redis-7.2.4 [--redis-py-src ~/src/redis-py-4.3.4] [--port 7402]
#       [--double-format shortest|17g] [--tcl-args ARG...]
#
# Each suite runs against a server started here on 127.0.0.1:<port> (never 6379) with
# --enable-debug-command local, and stopped afterwards, also on failure or interruption: either
# zset-server, or (--module) redis-server with the module loaded, persistence off, and with
# --dropin in drop-in mode (--zset.dropin yes), where the suite's own ZADD / ZRANGE ... reach
# module keys. Without --dropin the suite meets Redis's own sorted sets (a baseline for the same
# server). --double-format applies to zset-server only; redis-server answers as its version does.
#  * Redis: `./runtest --host 127.0.0.1 --port <port> --single unit/type/zset --tags
#    -needs:repl`, from a copy of the tree's runtest and tests/ (the harness writes below
#    tests/). The two needs:repl tests read a replication stream, which zset-server does not
#    produce. Redis 7.0's tests expect 7.0's "%.17g" double replies, 7.2's the shortest form
#    zset-server writes by default: for a tree older than 7.2 (src/version.h) the server runs
#    with --double-format 17g unless --double-format says otherwise. Arguments after
#    --tcl-args go to runtest (e.g. --accurate, --tags -slow).
#  * redis-py: the sorted-set tests (-k "test_z or test_bz") of tests/test_commands.py, and of
#    tests/test_asyncio/test_commands.py when pytest-asyncio is installed, run inside the tree
#    with its own conftest.py and markers, -m "not onlycluster and not redismod" as its tox.ini
#    does. The interpreter ($PYTHON, default python3) needs pytest and redis-py's test
#    dependencies. No bytecode or pytest cache is written into the tree.
# The Redis suite needs tclsh 8.5 or newer (Debian: tcl).
#
# Exit status: 0 when every selected test passed, 1 when one did not, 2 on a usage or setup
# error.
set -u

usage() {
    sed -n '7,10p' "$0" | sed 's/^# *//' >&2
    exit 2
}

zset_server="" module="" dropin=no redis_server=redis-server redis_src="" py_src="" port=7402
double_format=auto tcl_args=()
python=${PYTHON:-python3}
while [ $# -gt 0 ]; do
    case "$1" in
    --zset-server) zset_server=${2:-}; shift 2 ;;
    --module) module=${2:-}; shift 2 ;;
    --dropin) dropin=yes; shift ;;
    --redis-server) redis_server=${2:-}; shift 2 ;;
    --redis-src) redis_src=${2:-}; shift 2 ;;
    --redis-py-src) py_src=${2:-}; shift 2 ;;
    --port) port=${2:-}; shift 2 ;;
    --double-format) double_format=${2:-}; shift 2 ;;
    --tcl-args) shift; tcl_args=("$@"); break ;;
    *) usage ;;
    esac
done
if [ -n "$module" ]; then
    [ -z "$zset_server" ] || { echo "run_redis_suites: --zset-server or --module, not both" >&2; usage; }
    [ -f "$module" ] || { echo "run_redis_suites: --module must name zset.so" >&2; usage; }
    module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
    command -v "$redis_server" >/dev/null || { echo "run_redis_suites: no $redis_server" >&2; exit 2; }
else
    [ -x "$zset_server" ] || { echo "run_redis_suites: --zset-server must name the binary" >&2; usage; }
fi
[ -n "$redis_src$py_src" ] || { echo "run_redis_suites: give --redis-src and/or --redis-py-src" >&2; usage; }
case "$port" in '' | *[!0-9]* | 6379) echo "run_redis_suites: bad --port '$port' (not 6379)" >&2; exit 2 ;; esac
case "$double_format" in auto | shortest | 17g) ;; *) usage ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/zset-suites.XXXXXX") || exit 2
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
        server_pid=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# start_server [zset-server arguments...]: returns once the server answers PING. With --module,
# redis-server with the module (the arguments are zset-server's and not passed on).
start_server() {
    if [ -n "$module" ]; then
        "$redis_server" --bind 127.0.0.1 --port "$port" --enable-debug-command local \
            --save '' --appendonly no --dir "$work" --loadmodule "$module" \
            --zset.dropin "$dropin" >"$work/server.log" 2>&1 &
    else
        "$zset_server" --bind 127.0.0.1 --port "$port" --enable-debug-command local "$@" \
            >"$work/server.log" 2>&1 &
    fi
    server_pid=$!
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 &&
            head -c 5 <&3 | grep -q PONG) 2>/dev/null; then
            return 0
        fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "run_redis_suites: zset-server did not start:" >&2
    cat "$work/server.log" >&2
    exit 2
}

status=0

if [ -n "$redis_src" ]; then
    if [ ! -f "$redis_src/runtest" ] || [ ! -f "$redis_src/tests/unit/type/zset.tcl" ]; then
        echo "run_redis_suites: $redis_src has no runtest or tests/unit/type/zset.tcl" >&2
        exit 2
    fi
    version=$(sed -n 's/^#define REDIS_VERSION "\(.*\)"/\1/p' "$redis_src/src/version.h" 2>/dev/null)
    if [ "$double_format" = auto ]; then
        case "$version" in
        [0-6].* | 7.[01].*) double_format=17g ;;
        *) double_format=shortest ;;
        esac
    fi
    if [ -n "$module" ]; then
        target="$("$redis_server" --version | cut -d' ' -f1-3) with zset.so, dropin $dropin"
    else
        target="zset-server --double-format $double_format"
    fi
    echo "== Redis ${version:-(version unknown)} tests/unit/type/zset.tcl, $target"
    mkdir "$work/redis" && cp -R "$redis_src/runtest" "$redis_src/tests" "$work/redis/" || exit 2
    start_server --double-format "$double_format"
    (cd "$work/redis" && sh runtest --host 127.0.0.1 --port "$port" --single unit/type/zset \
        --tags -needs:repl "${tcl_args[@]}") >"$work/redis.out" 2>&1
    rc=$?
    stop_server
    sed -r 's/\x1b\[[0-9;]*m//g' "$work/redis.out" >"$work/redis.txt"
    grep -E '^\[(err|exception)\]' -A3 "$work/redis.txt" | head -40
    count() { grep -c "^\[$1\]" "$work/redis.txt"; }
    echo "Redis unit/type/zset: ok=$(count ok) err=$(count err) exception=$(count exception)" \
        "ignore=$(count ignore) skip=$(count skip) (runtest exit status $rc)"
    [ "$rc" = 0 ] || status=1
fi

if [ -n "$py_src" ]; then
    if [ ! -f "$py_src/tests/conftest.py" ] || [ ! -f "$py_src/tests/test_commands.py" ]; then
        echo "run_redis_suites: $py_src has no tests/conftest.py or tests/test_commands.py" >&2
        exit 2
    fi
    "$python" -c "import pytest" 2>/dev/null ||
        { echo "run_redis_suites: $python has no pytest (set PYTHON)" >&2; exit 2; }
    files=(tests/test_commands.py)
    if [ -f "$py_src/tests/test_asyncio/test_commands.py" ] &&
        "$python" -c "import pytest_asyncio" 2>/dev/null; then
        files+=(tests/test_asyncio/test_commands.py)
    fi
    echo "== redis-py $(git -C "$py_src" describe --tags 2>/dev/null || basename "$py_src"):" \
        "${files[*]} -k 'test_z or test_bz'"
    start_server
    (cd "$py_src" && PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -p no:cacheprovider \
        --redis-url="redis://127.0.0.1:$port/9" --redismod-url=redis://127.0.0.1:1 \
        -m "not onlycluster and not redismod" -k "test_z or test_bz" -q -rfE "${files[@]}") \
        >"$work/py.out" 2>&1
    rc=$?
    stop_server
    grep -E '^(FAILED|ERROR) ' "$work/py.out" | head -40
    grep -E '^INTERNALERROR> [A-Za-z]*(Error|Exception)' "$work/py.out" | tail -1
    echo "redis-py: $(tail -1 "$work/py.out") (pytest exit status $rc)"
    [ "$rc" = 0 ] || status=1
fi
exit $status
