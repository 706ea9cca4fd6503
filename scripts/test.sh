#!/usr/bin/env bash
# The project's one test command (also what CI runs).
#
# Runs a list of "legs"; each leg configures its own build tree under build/, builds it and runs
# ctest. Exits non-zero if any leg fails (all selected legs are still run).
#
#   ZSET_LEGS="gcc clang"   legs to run, in order (default: "gcc clang")
#   ZSET_JOBS=2             parallel build/test jobs (default: 2)
#   ZSET_CTEST_ARGS="..."   extra ctest arguments for every leg (e.g. "-L unit" or "-LE consumer")
#
# Examples:  ZSET_LEGS=clang scripts/test.sh      ZSET_LEGS=asan scripts/test.sh
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

ZSET_LEGS="${ZSET_LEGS:-gcc clang}"
ZSET_JOBS="${ZSET_JOBS:-2}"
read -r -a ctest_extra <<<"${ZSET_CTEST_ARGS:-}"

generator=(-G Ninja)
if ! command -v ninja >/dev/null 2>&1; then
    generator=(-G "Unix Makefiles")
fi

# configure_build_test <build dir> <cmake configure args...>
# A leg may set a local array leg_ctest=(...) with extra ctest arguments for itself.
configure_build_test() {
    local dir="$1"
    shift
    cmake -S . -B "$dir" "${generator[@]}" "$@" &&
        cmake --build "$dir" -j "$ZSET_JOBS" &&
        ctest --test-dir "$dir" --output-on-failure -j "$ZSET_JOBS" \
            ${leg_ctest[@]+"${leg_ctest[@]}"} ${ctest_extra[@]+"${ctest_extra[@]}"}
}

# ---------------------------------------------------------------------------------------------
# Legs. A leg is a function leg_<name>; return non-zero on failure.
# ---------------------------------------------------------------------------------------------

# Compiler legs: warnings are errors, full ctest suite (unit, examples, consumers, packaging).
leg_gcc() {
    configure_build_test build/ci-gcc -DCMAKE_CXX_COMPILER=g++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZSET_WERROR=ON
}

leg_clang() {
    configure_build_test build/ci-clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZSET_WERROR=ON
}

# ---- HOOK: sanitizer legs -------------------------------------------------------------------
# ASan + UBSan over the unit tests and examples (consumer/packaging tests add nothing here).
# Not in the default leg list yet; run with ZSET_LEGS=asan.
leg_asan() {
    local -a leg_ctest=(-LE "consumer|packaging")
    configure_build_test build/ci-asan -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=Debug -DZSET_WERROR=ON -DZSET_SANITIZE=address,undefined \
        -DZSET_BUILD_BENCHMARKS=OFF
}

# ---- HOOK: fuzz leg -------------------------------------------------------------------------
# To be implemented (e.g. libFuzzer targets under fuzz/, run for a bounded time).
leg_fuzz() {
    echo "leg 'fuzz' is not implemented yet (hook in scripts/test.sh)" >&2
    return 1
}

# ---- HOOK: differential leg -----------------------------------------------------------------
# To be implemented (e.g. compare zset against a live redis-server on random command streams).
leg_diff() {
    echo "leg 'diff' is not implemented yet (hook in scripts/test.sh)" >&2
    return 1
}

# ---------------------------------------------------------------------------------------------
failed=()
summary=()
total_start=$SECONDS
for leg in $ZSET_LEGS; do
    if ! declare -F "leg_$leg" >/dev/null; then
        echo "scripts/test.sh: unknown leg '$leg'" >&2
        failed+=("$leg")
        summary+=("$(printf '%-8s UNKNOWN' "$leg")")
        continue
    fi
    echo "================ leg: $leg ================"
    start=$SECONDS
    if "leg_$leg"; then
        status=PASS
    else
        status=FAIL
        failed+=("$leg")
    fi
    elapsed=$((SECONDS - start))
    line="$(printf '%-8s %s  %dm%02ds' "$leg" "$status" $((elapsed / 60)) $((elapsed % 60)))"
    summary+=("$line")
    echo "================ leg: $line ================"
done

total=$((SECONDS - total_start))
echo
echo "---------------- summary ----------------"
printf '%s\n' "${summary[@]}"
printf 'total    %dm%02ds\n' $((total / 60)) $((total % 60))
if ((${#failed[@]})); then
    echo "FAILED legs: ${failed[*]}"
    exit 1
fi
echo "all legs passed"
