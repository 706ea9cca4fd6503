#!/usr/bin/env bash
# The benchmark suite in one command (see docs/benchmarks.md):
#   1. builds zset_bench in Release (-O2) in build/bench,
#   2. runs it -> bench/results/latest.json (Google Benchmark JSON, aggregates only),
#   3. measures Redis's MEMORY USAGE on the same data -> bench/results/redis_memory.json,
#   4. bench/report.py -> ratio table on stdout + bench/results/latest.md + bench/results/latest.svg.
#
# Usage: bench/run.sh [--with-1e7]
#   --with-1e7 adds a second pass at n = 10^7 for the operations with targets there (ZSCORE,
#   ZRANK, score updates, memory) against absl, Boost and the Redis-style peer, into
#   bench/results/latest-1e7.json (the report merges it); about 10 more minutes and 6 GB.
# Environment knobs:
#   ZSET_BENCH_SIZES     sizes, comma separated, 1e6 notation ok (default 100,1000,100000,1000000)
#   ZSET_BENCH_REPS      repetitions per benchmark; figures are medians (default 5)
#   ZSET_BENCH_FILTER    Google Benchmark regex over <operation>/<structure>/<size> (default: all)
#   ZSET_BENCH_MIN_TIME  seconds of CPU time per repetition (default 0.2)
#   ZSET_BENCH_JOBS      build parallelism (default 1: the machine is shared)
#   ZSET_BENCH_INTERLEAVE 0 to run each benchmark's repetitions back to back (default 1: random
#                        interleaving across benchmarks)
#   ZSET_BENCH_REDIS     0 to skip the Redis memory measurement (default 1)
#   ZSET_BENCH_BUILD_DIR build tree (default build/bench); CXX picks the compiler on first configure
#   ZSET_BENCH_REVISION  label of the measured code (default: git HEAD, "+dirty" when include/ has
#                        uncommitted changes); recorded in the JSON context and the report
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

sizes="${ZSET_BENCH_SIZES:-100,1000,100000,1000000}"
with_1e7=0
if [[ "${1:-}" == "--with-1e7" ]]; then
    with_1e7=1
elif [[ $# -gt 0 ]]; then
    echo "usage: bench/run.sh [--with-1e7]" >&2
    exit 2
fi
reps="${ZSET_BENCH_REPS:-5}"
filter="${ZSET_BENCH_FILTER:-}"
min_time="${ZSET_BENCH_MIN_TIME:-0.2}"
jobs="${ZSET_BENCH_JOBS:-1}"
build="${ZSET_BENCH_BUILD_DIR:-build/bench}"
results="bench/results"
start=$SECONDS

generator=(-G Ninja)
command -v ninja >/dev/null 2>&1 || generator=(-G "Unix Makefiles")

revision="${ZSET_BENCH_REVISION:-}"
if [[ -z "$revision" ]]; then
    revision="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    if [[ "$revision" != unknown ]] && ! git diff --quiet HEAD -- include 2>/dev/null; then
        revision="$revision+dirty"
    fi
fi
export ZSET_BENCH_REVISION="$revision"

echo "== configure + build zset_bench (Release, -O2) in $build; code: $revision" >&2
cmake -S . -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DZSET_BUILD_BENCHMARKS=ON -DZSET_BUILD_TESTS=OFF -DZSET_BUILD_EXAMPLES=OFF \
    -DZSET_INSTALL=OFF -DZSET_WERROR=OFF >/dev/null
cmake --build "$build" --target zset_bench -j "$jobs"

mkdir -p "$results"
args=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true
      --benchmark_format=json --benchmark_min_time="$min_time")
# Repetitions run in random order across benchmarks, so a neighbour's burst of load spreads over
# zset and its peers alike instead of landing on one row (the ratios are what is quoted).
[[ "${ZSET_BENCH_INTERLEAVE:-1}" != "0" ]] && args+=(--benchmark_enable_random_interleaving=true)
[[ -n "$filter" ]] && args+=(--benchmark_filter="$filter")
cmd="ZSET_BENCH_SIZES=$sizes $build/bench/zset_bench ${args[*]}"
echo "== $cmd > $results/latest.json" >&2
status=0
ZSET_BENCH_SIZES="$sizes" "$build/bench/zset_bench" "${args[@]}" >"$results/latest.json" || status=$?
if ((status != 0)); then
    echo "!! zset_bench exited with status $status (see the FAILED lines above)" >&2
fi

rm -f "$results/latest-1e7.json"
if ((with_1e7)); then
    filter_1e7='^(zscore_hit|zscore_miss|zrank|update|memory)/(zset|absl|boost|redisskl)/'
    cmd_1e7="ZSET_BENCH_SIZES=10000000 $build/bench/zset_bench ${args[*]} --benchmark_filter=$filter_1e7"
    echo "== $cmd_1e7 > $results/latest-1e7.json" >&2
    ZSET_BENCH_SIZES=10000000 "$build/bench/zset_bench" "${args[@]}" \
        --benchmark_filter="$filter_1e7" >"$results/latest-1e7.json" || status=$?
    cmd="$cmd; $cmd_1e7"
fi

redis_json="$results/redis_memory.json"
if [[ "${ZSET_BENCH_REDIS:-1}" != "0" ]]; then
    echo "== Redis MEMORY USAGE at $sizes" >&2
    python3 bench/redis_memory.py --sizes "$sizes" --out "$redis_json" >/dev/null ||
        echo "!! redis_memory.py failed; the report omits Redis" >&2
fi

echo "== report" >&2
json_args=(--json "$results/latest.json")
[[ -f "$results/latest-1e7.json" ]] && json_args+=(--json "$results/latest-1e7.json")
python3 bench/report.py "${json_args[@]}" --redis "$redis_json" \
    --md "$results/latest.md" --svg "$results/latest.svg" --command "bench/run.sh  # $cmd"
elapsed=$((SECONDS - start))
echo "== done in $((elapsed / 60))m$((elapsed % 60))s: $results/latest.{json,md,svg}" >&2
exit "$status"
