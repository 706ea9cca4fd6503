#!/usr/bin/env bash
# Server instructions per command (callgrind), Redis's own sorted sets against module keys in
# one redis-server: 100 native keys and 100 module keys of 100 members each ("m:<12 digits>",
# scores 0-99), then `requests` pipelined commands (redis-benchmark -P 16 -c 50, random key and
# member) counted from the first to the last. Instruction counts do not depend on the host's
# load, which makes this the quiet-host check behind bench/module_bench.py --only smallkeys.
#
# Usage: bench/module_instructions.sh <zset.so> [redis-server] [requests]
# Prints one line a command: native and module instructions per command, and their ratio.
set -euo pipefail
module="$(realpath "$1")"
server="${2:-$(command -v redis-server)}"
requests="${3:-20000}"
python="${PYTHON:-/usr/bin/python3}"
work="$(mktemp -d /tmp/zset-instructions.XXXXXX)"
port=$((20000 + RANDOM % 20000))
pid=""
stop() {
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}
trap 'stop; rm -rf "$work"' EXIT

# count <label> <command...>: instructions of `requests` commands on a freshly filled server
count() {
    local label="$1"
    shift
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$label.out" \
        "$server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --loadmodule "$module" >"$work/$label.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.2
    done
    "$python" - "$port" <<'PY'
import sys, redis
c = redis.Redis(port=int(sys.argv[1]))
p = c.pipeline(transaction=False)
for k in range(100):
    args = []
    for j in range(100):
        args += [j, "m:%012d" % j]
    p.execute_command("ZADD", "n:%012d" % k, *args)
    p.execute_command("ZSET.ZADD", "z:%012d" % k, *args)
p.execute()
PY
    callgrind_control -i on "$pid" >/dev/null 2>&1
    redis-benchmark -p "$port" -P 16 -c 50 -n "$requests" -r 100 -q "$@" >/dev/null
    callgrind_control -i off "$pid" >/dev/null 2>&1
    stop
    pid=""
    callgrind_annotate "$work/$label.out" 2>/dev/null >"$work/$label.txt"
    awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$work/$label.txt"
}

printf '%-12s %14s %14s %8s\n' command native module ratio
for row in "ZADD|__rand_int__ x:__rand_int__" "ZSCORE|m:__rand_int__" "ZRANGE|0 9" \
           "ZREM|m:__rand_int__"; do
    name="${row%%|*}"
    rest="${row#*|}"
    # shellcheck disable=SC2086  # the arguments split on purpose
    native=$(count "native-$name" "$name" "n:__rand_int__" $rest)
    # shellcheck disable=SC2086
    module_ir=$(count "module-$name" "ZSET.$name" "z:__rand_int__" $rest)
    awk -v n="$native" -v m="$module_ir" -v r="$requests" -v c="$name" \
        'BEGIN { printf "%-12s %14.0f %14.0f %8.2f\n", c, n / r, m / r, m / n }'
done
