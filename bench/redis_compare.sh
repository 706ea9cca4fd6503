#!/usr/bin/env bash
# Side-by-side redis-benchmark of redis-server and zset-server on one sorted set of 1e6 members.
#
#   bench/redis_compare.sh [--zset-server PATH] [--requests N] [--members N] [--pipeline P]
#                          [--clients C] [--rounds R]
#
# Both servers get the same key `big` holding members m:000000000000 .. m:<members-1> (the
# 12-digit form redis-benchmark gives __rand_int__) with score = index, loaded through
# `redis-cli --pipe`. Then, for each command, `redis-benchmark -P <pipeline> -r <members>` runs
# against each server in turn (R rounds, best round kept), and the requests per second and the
# zset/redis ratio are printed. ZREM runs last (it removes members).
#
# Without --zset-server, the script builds zset-server (Release) in build/redis-compare.
# Needs redis-server, redis-cli, redis-benchmark and python3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
zset_server=""
requests=1000000
members=1000000
pipeline=32
clients=50
rounds=2

while (($#)); do
    case "$1" in
    --zset-server) zset_server="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --members) members="$2"; shift 2 ;;
    --pipeline) pipeline="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "redis_compare.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

for tool in redis-server redis-cli redis-benchmark python3; do
    command -v "$tool" >/dev/null || { echo "redis_compare.sh: $tool not found" >&2; exit 2; }
done

if [[ -z "$zset_server" ]]; then
    build="$root/build/redis-compare"
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DZSET_BUILD_TESTS=OFF -DZSET_BUILD_BENCHMARKS=OFF -DZSET_BUILD_EXAMPLES=ON \
        -DZSET_INSTALL=OFF >/dev/null
    cmake --build "$build" --target zset-server -j 2 >/dev/null
    zset_server="$build/examples/server/zset-server"
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_ping() {
    for _ in $(seq 100); do
        [[ "$(redis-cli -p "$1" PING 2>/dev/null)" == PONG ]] && return 0
        sleep 0.05
    done
    echo "redis_compare.sh: server on port $1 does not answer" >&2
    exit 1
}

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    --logfile "$work/redis.log" &
pids+=($!)
wait_ping "$redis_port"

"$zset_server" --port 0 >"$work/zset.out" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/zset.out" 2>/dev/null && break; sleep 0.05; done
zset_port="$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/zset.out")"
wait_ping "$zset_port"

# Pre-load: ZADD big <i> m:<i as 12 digits>, 1000 pairs per command, as RESP for redis-cli --pipe.
python3 - "$members" >"$work/load.resp" <<'EOF'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
for start in range(0, n, 1000):
    argv = [b"ZADD", b"big"]
    for i in range(start, min(n, start + 1000)):
        argv += [b"%d" % i, b"m:%012d" % i]
    out.write(b"*%d\r\n" % len(argv))
    out.write(b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv))
EOF
for port in "$redis_port" "$zset_port"; do
    redis-cli -p "$port" --pipe <"$work/load.resp" >/dev/null
    [[ "$(redis-cli -p "$port" ZCARD big)" == "$members" ]] ||
        { echo "redis_compare.sh: pre-load failed on port $port" >&2; exit 1; }
done

commands=(
    "ZADD big __rand_int__ m:__rand_int__"
    "ZSCORE big m:__rand_int__"
    "ZRANK big m:__rand_int__"
    "ZRANGEBYSCORE big __rand_int__ +inf LIMIT 0 100"
    "ZINCRBY big 1 m:__rand_int__"
    "ZREM big m:__rand_int__"
)

rps() {  # rps <port> <command words...>
    local port="$1"
    shift
    redis-benchmark -p "$port" -P "$pipeline" -c "$clients" -n "$requests" -r "$members" -q "$@" \
        2>/dev/null | tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}

echo "redis-server $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') port $redis_port," \
    "zset-server ($zset_server) port $zset_port"
echo "key: 'big' with $members members; redis-benchmark -P $pipeline -c $clients -n $requests" \
    "-r $members -q <command>; best of $rounds rounds"
printf '\n%-48s %14s %14s %8s\n' "command" "redis rps" "zset rps" "ratio"
for cmd in "${commands[@]}"; do
    best_r=0
    best_z=0
    for _ in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        r="$(rps "$redis_port" $cmd)"
        # shellcheck disable=SC2086
        z="$(rps "$zset_port" $cmd)"
        best_r="$(python3 -c "print(max($best_r, ${r:-0}))")"
        best_z="$(python3 -c "print(max($best_z, ${z:-0}))")"
    done
    ratio="$(python3 -c "print('%.2f' % ($best_z / $best_r) if $best_r else 'n/a')")"
    printf '%-48s %14.0f %14.0f %8s\n' "$cmd" "$best_r" "$best_z" "$ratio"
done
echo
rss() { ps -o rss= -p "$1" | awk '{printf "%.1f MiB", $1/1024}'; }
echo "after the run: ZCARD big = $(redis-cli -p "$redis_port" ZCARD big) (redis)," \
    "$(redis-cli -p "$zset_port" ZCARD big) (zset); RSS redis-server $(rss "${pids[0]}")," \
    "zset-server $(rss "${pids[1]}")"
