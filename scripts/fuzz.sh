#!/usr/bin/env bash
# Builds the libFuzzer targets under fuzz/ (clang++, ASan + UBSan) and runs each for a bounded
# time, starting from the checked-in seeds (fuzz/corpus/<target>) plus the working corpus kept
# in the build tree between runs. Prints libFuzzer's statistics per target; exits non-zero if a
# target found a crash, a leak, a timeout or a failed property (the input is saved under
# <build>/artifacts/).
#
#   scripts/fuzz.sh [seconds per target] [target...]      (default: 300 s, every target)
#
#   ZSET_FUZZ_BUILD=build/fuzz   build tree     ZSET_JOBS=2   build jobs and targets run at once
#   ZSET_FUZZ_MAX_LEN=4096       largest input       ZSET_FUZZ_ARGS="..." extra libFuzzer flags
#
# Reproduce a failure:  build/fuzz/fuzz/zset_fuzz_<target> <artifact file>
# (for the operation fuzzer, ZSET_FUZZ_TRACE=1 prints every step). See docs/reliability.md.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${1:-300}"
shift || true
build="${ZSET_FUZZ_BUILD:-build/fuzz}"
jobs="${ZSET_JOBS:-2}"
max_len="${ZSET_FUZZ_MAX_LEN:-4096}"
read -r -a extra <<<"${ZSET_FUZZ_ARGS:-}"

all_targets=(ops resp restore)
if [[ -f include/zset/redis/keyspace.hpp ]]; then
    all_targets+=(argv)
fi
if [[ -f module/type.hpp ]]; then
    all_targets+=(module_rdb)
fi
if (($# > 0)); then
    targets=("$@")
else
    targets=("${all_targets[@]}")
fi

generator=(-G Ninja)
command -v ninja >/dev/null 2>&1 || generator=(-G "Unix Makefiles")

# -O1: fast enough to fuzz, quick to build; line tables only (a crash's stack names file and
# line; full -g took 6% longer to build). Tests, examples, benchmarks and install rules off.
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DZSET_BUILD_FUZZERS=ON -DZSET_BUILD_TESTS=OFF -DZSET_BUILD_EXAMPLES=OFF \
    -DZSET_BUILD_BENCHMARKS=OFF -DZSET_INSTALL=OFF -DZSET_WERROR=ON >/dev/null || exit 1
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "zset_fuzz_$t"); done
cmake --build "$build" -j "$jobs" "${build_targets[@]}" || exit 1

export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

mkdir -p "$build/artifacts" "$build/logs"

# run_target <target>: fuzzes one target; its output goes to <build>/logs/<target>.log and its
# exit status to <build>/logs/<target>.rc.
run_target() {
    local t="$1"
    local bin="$build/fuzz/zset_fuzz_$t" work="$build/corpus/$t" log="$build/logs/$t.log"
    local -a dict=()
    mkdir -p "$work"
    [[ -f "fuzz/$t.dict" ]] && dict=(-dict="fuzz/$t.dict")
    # -malloc_limit_mb: no single allocation from a small input may be huge (declared lengths
    # must not be trusted); -rss_limit_mb bounds the whole process; -timeout catches hangs.
    "$bin" -max_total_time="$seconds" -max_len="$max_len" -timeout=30 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
        ${dict[@]+"${dict[@]}"} ${extra[@]+"${extra[@]}"} "$work" "fuzz/corpus/$t" >"$log" 2>&1
    echo $? >"$build/logs/$t.rc"
}

# Up to $jobs targets at a time (each libFuzzer process uses one core).
running=0
for t in "${targets[@]}"; do
    echo "---- fuzzing $t for ${seconds}s"
    run_target "$t" &
    running=$((running + 1))
    if ((running >= jobs)); then
        wait -n
        running=$((running - 1))
    fi
done
wait

failed=()
summary=()
for t in "${targets[@]}"; do
    log="$build/logs/$t.log"
    rc=$(cat "$build/logs/$t.rc" 2>/dev/null || echo 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corpus=$(find "$build/corpus/$t" -type f | wc -l)
    if ((rc == 0)); then
        status=PASS
    else
        status=FAIL
        failed+=("$t")
        echo "fuzz target $t failed (exit $rc); log: $log" >&2
        grep -E "ERROR|fuzz check failed|SUMMARY|Test unit written|ParseDictionary" "$log" | head -20 >&2
    fi
    summary+=("$(printf '%-10s %s  execs %-10s exec/s %-7s cov %-6s new %-5s corpus %-5s rss %sMB' \
        "$t" "$status" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${added:-?}" "$corpus" "${rss:-?}")")
done

echo
echo "---- fuzz summary (${seconds}s per target, $jobs at a time)"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
    echo "FAILED fuzz targets: ${failed[*]} (inputs in $build/artifacts/)"
    exit 1
fi
