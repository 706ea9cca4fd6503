#!/usr/bin/env bash
# The benchmark suite in one command (see docs/benchmarks.md):
#   1. builds zset_bench in Release (-O2, loops aligned to 32 bytes) in build/bench,
#   2. runs it -> bench/results/latest.json (Google Benchmark JSON, aggregates only),
#   3. measures Redis's MEMORY USAGE on the same data -> bench/results/redis_memory.json,
#   4. kept leads: builds 0.1.0's own zset_bench from git (ZSET_BENCH_KEPT_REV) and runs it and
#      ours alternately on the kept-lead rows -> bench/results/kept/{now,base}-<round>.json,
#   5. bench/report.py -> ratio table on stdout + bench/results/latest.md + bench/results/latest.svg.
#
# Usage: bench/run.sh [--with-1e7]
#   --with-1e7 adds a second pass at n = 10^7 for the operations with targets there (ZSCORE,
#   ZRANK, score updates, memory against absl, Boost and the Redis-style peer; building by
#   single adds against absl and the Redis-style peer), into bench/results/latest-1e7.json (the
#   report merges it); about 20 more minutes and 6 GB.
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
#   ZSET_BENCH_KEPT_REV  the commit whose leads are to be kept (default c54f65b, release 0.1.0);
#                        empty to skip the kept rounds (the report then compares against the
#                        committed bench/results/baseline-0.1.0.json)
#   ZSET_BENCH_KEPT_ROUNDS alternated rounds of the two binaries (default 2; about 4 minutes each)
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

# Loops start on 32-byte boundaries: left to the compiler's default, where a hot loop happened
# to land moved single rows by up to 20% between builds of the same code (range_by_rank at
# n = 100, the same 14-instruction loop as range_by_score's: 114 ns starting 24 bytes into a
# 32-byte line, 94 ns aligned; docs/benchmarks.md). Both binaries of the kept rounds get it.
release_flags="-O2 -DNDEBUG -falign-loops=32"
echo "== configure + build zset_bench (Release, $release_flags) in $build; code: $revision" >&2
cmake -S . -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="$release_flags" \
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
    filter_1e7='^((zscore_hit|zscore_miss|zrank|update|memory)/(zset|absl|boost|redisskl)|build_random/(zset|absl|redisskl))/'
    cmd_1e7="ZSET_BENCH_SIZES=10000000 $build/bench/zset_bench ${args[*]} --benchmark_filter=$filter_1e7"
    echo "== $cmd_1e7 > $results/latest-1e7.json" >&2
    ZSET_BENCH_SIZES=10000000 "$build/bench/zset_bench" "${args[@]}" \
        --benchmark_filter="$filter_1e7" >"$results/latest-1e7.json" || status=$?
    cmd="$cmd; $cmd_1e7"
fi

# Kept leads: 0.1.0's ratios to the same peers, measured now rather than on another day. Its
# own benchmark binary (its harness and headers, built as ours) and ours take turns on the
# kept-lead rows, so a change of load lands on both versions.
kept_rev="${ZSET_BENCH_KEPT_REV-c54f65b}"
kept_rounds="${ZSET_BENCH_KEPT_ROUNDS:-2}"
kept_dir="$results/kept"
kept_args=()
rm -rf "$kept_dir"
if [[ -n "$kept_rev" ]] && ((kept_rounds > 0)); then
    kept_build="$build-kept"
    if ! git rev-parse --verify -q "$kept_rev^{commit}" >/dev/null; then
        echo "!! $kept_rev is not in this clone's history: kept leads against the committed baseline" >&2
    else
        echo "== kept leads: zset_bench of $kept_rev in $kept_build" >&2
        rm -rf "$kept_build/src"
        mkdir -p "$kept_build/src" "$kept_dir"
        git archive "$kept_rev" | tar -x -C "$kept_build/src"
        cmake -S "$kept_build/src" -B "$kept_build/build" "${generator[@]}" \
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="$release_flags" \
            -DZSET_BUILD_BENCHMARKS=ON -DZSET_BUILD_TESTS=OFF -DZSET_BUILD_EXAMPLES=OFF \
            -DZSET_INSTALL=OFF -DZSET_WERROR=OFF >/dev/null
        cmake --build "$kept_build/build" --target zset_bench -j "$jobs"
        kept_filter='^(zadd_new|range_by_score|range_by_rank|iterate|zcount)/(zset|absl|boost)/'
        kept_sizes="${ZSET_BENCH_KEPT_SIZES:-$sizes}"
        for ((round = 1; round <= kept_rounds; round++)); do
            for side in now base; do
                bin="$build/bench/zset_bench"
                [[ $side == base ]] && bin="$kept_build/build/bench/zset_bench"
                echo "== kept round $round/$kept_rounds: $side ($bin)" >&2
                ZSET_BENCH_SIZES="$kept_sizes" "$bin" "${args[@]}" --benchmark_repetitions=3 \
                    --benchmark_filter="$kept_filter" >"$kept_dir/$side-$round.json" || status=$?
                kept_args+=("--kept-$side" "$kept_dir/$side-$round.json")
            done
        done
        kept_label="$kept_rev"
        [[ "$kept_rev" == c54f65b ]] && kept_label="0.1.0"
        kept_args+=(--kept-label "$kept_label")
        cmd="$cmd; kept leads: $kept_rounds alternated rounds of ZSET_BENCH_SIZES=$kept_sizes {$build/bench/zset_bench, $kept_build/build/bench/zset_bench} ${args[*]} --benchmark_repetitions=3 --benchmark_filter=$kept_filter"
    fi
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
python3 bench/report.py "${json_args[@]}" "${kept_args[@]}" --redis "$redis_json" \
    --md "$results/latest.md" --svg "$results/latest.svg" --command "bench/run.sh  # $cmd"
elapsed=$((SECONDS - start))
echo "== done in $((elapsed / 60))m$((elapsed % 60))s: $results/latest.{json,md,svg}" >&2
exit "$status"
