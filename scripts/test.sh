#!/usr/bin/env bash
# The project's one test command (also what CI runs).
#
# Runs a list of "legs"; each leg configures its own build tree under build/, builds it and runs
# ctest (or its own checks). Exits non-zero if any leg fails (all selected legs are still run).
#
#   ZSET_LEGS="..."         legs to run, in order (default: "gcc asan valgrind tsan port fuzz
#                           lint"; the clang and asan-gcc legs run on request: clang++ builds
#                           everything with -Werror, and with _GLIBCXX_ASSERTIONS, in the asan
#                           leg, so they are left out of the default to fit CI's budget); see the
#                           leg functions below and docs/reliability.md
#   ZSET_PORT_TARGETS="..." targets of the port leg (default: "win64 i686 ppc64 aarch64")
#   ZSET_JOBS=2             parallel build/test jobs (default: 2)
#   ZSET_CTEST_ARGS="..."   extra ctest arguments for every leg (e.g. "-L unit" or "-LE consumer")
#   ZSET_FUZZ_SECONDS=10    seconds per target in the fuzz leg (scripts/fuzz.sh runs longer)
#   ZSET_BUILD_ROOT=build   where the legs' build trees go (<root>/ci-gcc, <root>/ci-asan, ...)
#   ZSET_SERVER_TREES="..." the servers leg's Redis / Valkey source trees or git directories,
#                           colon-separated (the leg is not in the default list)
#
# Examples:  ZSET_LEGS=clang scripts/test.sh      ZSET_LEGS="asan lint" scripts/test.sh
#
# Budget: every default leg together must finish under 25 minutes on 2 cores. The summary
# prints each leg's wall time and CPU time; docs/reliability.md says what each leg covers within
# it, and a change that moves a leg's cost says what it measured in its commit message.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

ZSET_LEGS="${ZSET_LEGS:-gcc asan valgrind tsan port fuzz lint}"
ZSET_JOBS="${ZSET_JOBS:-2}"
b="${ZSET_BUILD_ROOT:-build}"
read -r -a ctest_extra <<<"${ZSET_CTEST_ARGS:-}"

generator=(-G Ninja)
if ! command -v ninja >/dev/null 2>&1; then
    generator=(-G "Unix Makefiles")
fi

# configure_build_test <build dir> <cmake configure args...>
# A leg may set a local array leg_ctest=(...) with extra ctest arguments for itself, and
# ctest_jobs to run more tests at once than it builds.
configure_build_test() {
    local dir="$1"
    shift
    cmake -S . -B "$dir" "${generator[@]}" "$@" &&
        cmake --build "$dir" -j "$ZSET_JOBS" &&
        ctest --test-dir "$dir" --output-on-failure -j "${ctest_jobs:-$ZSET_JOBS}" \
            ${leg_ctest[@]+"${leg_ctest[@]}"} ${ctest_extra[@]+"${ctest_extra[@]}"}
}

# ---------------------------------------------------------------------------------------------
# Legs. A leg is a function leg_<name>; return non-zero on failure.
# ---------------------------------------------------------------------------------------------

# Compiler legs: warnings are errors, full ctest suite (unit, examples, consumers, packaging).
# Each leg's build settings are a preset of CMakePresets.json (ci-<leg>), with the reasons. The
# gcc leg is a Release build (-O3, what a user's `-DCMAKE_BUILD_TYPE=Release` gets, where g++
# warns about things -O2 never shows it); the asan leg compiles the test files one by one, so a
# file that does not compile alone still fails a default run. Both legs' ctest runs one test
# more than ZSET_JOBS at once: the tests that start servers spend much of their time waiting for
# them. The Redis module's tests that the asan leg runs under the sanitizers are left to it; the
# gcc leg runs the rest on the Release module (the cluster tests and the drop-in differential,
# which send the differential test's streams to it). Then a sample of the unit test cases, each
# run alone (tools/run_cases_alone.py, seeded by the commit and printing its seed): none may
# depend on another case or make no assertion.
leg_gcc() {
    local ctest_jobs=$((ZSET_JOBS + 1))
    local -a leg_ctest=(-E "^module[.](persistence|replication|bad_input|dropin|dropin_keys|acl|info|differential)$")
    configure_build_test "$b"/ci-gcc --preset ci-gcc &&
        python3 tools/run_cases_alone.py "$b"/ci-gcc/tests/zset_tests --sample 100 -j "$ZSET_JOBS"
}

leg_clang() {
    configure_build_test "$b"/ci-clang --preset ci-clang
}

# ---- sanitizer legs -------------------------------------------------------------------------
# The tests under ASan + UBSan, stopping at the first error, with line tables only (enough for
# symbolized reports, cheaper to build); benchmarks are off.
#  * asan: clang++ with libstdc++'s _GLIBCXX_ASSERTIONS (checked operator[], front(),
#    back(), iterator ranges, ...), the unit tests plus everything else that runs code
#    (examples, the server and its differential and smoke tests, the live DUMP/RESTORE test when
#    hiredis is installed); consumer and packaging tests, and the tests of what the compiler or
#    the debugger make of the headers (compile_fail, codegen, gdb), add nothing under
#    sanitizers and are skipped (the gcc leg runs them). Stack-use-after-return detection is on
#    here (views into dead locals). Built at -O0 but for the unit-test files where the run time
#    goes (the ci-asan preset). The concurrency tests are left to the tsan leg, and the gdb
#    printers' target is not built.
#  * asan-gcc (on request, not in the default): the same instrumentation by g++, the unit tests
#    only, at -O0 (g++'s sanitizer instrumentation compiles slowly at -O1). g++'s
#    -Wmaybe-uninitialized is off there: with -fsanitize it misfires inside libstdc++ (std::regex
#    in Catch2's main); the gcc leg keeps it.
# ASAN_OPTIONS / UBSAN_OPTIONS already set in the environment win over these defaults.
asan_defaults="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1"
ubsan_defaults="halt_on_error=1:print_stacktrace=1"

leg_asan() {
    # The module's cluster tests and its drop-in differential run the module code that
    # module.persistence, module.differential and module.dropin already run under the
    # sanitizers here; the gcc leg runs them.
    local ctest_jobs=$((ZSET_JOBS + 1))
    local -a leg_ctest=(-LE "consumer|packaging|bench|compile_fail|codegen|gdb"
        -E "^module[.](cluster|cluster_dropin|differential_dropin)$")
    local -x ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_defaults:detect_stack_use_after_return=1}"
    local -x UBSAN_OPTIONS="${UBSAN_OPTIONS:-$ubsan_defaults}"
    configure_build_test "$b"/ci-asan --preset ci-asan
}

leg_asan-gcc() {
    local dir="$b"/ci-asan-gcc
    local -x ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_defaults}"
    local -x UBSAN_OPTIONS="${UBSAN_OPTIONS:-$ubsan_defaults}"
    cmake -S . -B "$dir" "${generator[@]}" --preset ci-asan-gcc &&
        cmake --build "$dir" -j "$ZSET_JOBS" --target zset_tests &&
        ctest --test-dir "$dir" --output-on-failure -L unit ${ctest_extra[@]+"${ctest_extra[@]}"}
}

# ---- valgrind leg ---------------------------------------------------------------------------
# The unit tests once under valgrind memcheck (no sanitizer runtime: uninitialised reads in
# optimised code, leaks), on the gcc leg's Release build (reused when present, built otherwise;
# only zset_tests). The model runs reduced: ZSET_MODEL_SCALE=0 skips its string-member passes
# (the integer and user-type passes remain). Valgrind runs a program on one core, so the tests
# are split by file (Catch2's -#: [#test_ranges] is every test case of
# tests/sorted_set/test_ranges.cpp) into shards, run ZSET_JOBS at a time in the order listed
# (the longest first): a list of files, "[model]" (the reduced model) or "*" (every other file).
# [far] test cases (sets of more than 8,192 blocks) run in the other legs only. Each shard's log
# follows, with its time.
valgrind_shards=(
    "*"
    "test_hash_index test_rank_tree"
    "[model]"
    "test_random_draws test_dump_restore"
    "test_alloc_failure"
    "test_keyspace test_server_behaviour test_server_commands test_sets test_protocol test_bad_input test_portability"
)

leg_valgrind() {
    local dir="$b"/ci-gcc
    if [[ ! -f "$dir/CMakeCache.txt" ]]; then
        cmake -S . -B "$dir" "${generator[@]}" --preset ci-gcc || return 1
    fi
    cmake --build "$dir" -j "$ZSET_JOBS" --target zset_tests || return 1
    local -a vg=(valgrind -q --error-exitcode=99 --leak-check=full
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect)
    local tests="$dir/tests/zset_tests" shard f spec rest="~[soak]~[model]~[far]" rc=0 i
    local -a order=() pids=()
    for shard in "${valgrind_shards[@]}"; do
        case "$shard" in
        "[model]" | "*") order+=("$shard") ;;
        *)
            spec=""
            for f in $shard; do
                spec+="${spec:+,}[#$f]~[soak]~[far]"
                rest+="~[#$f]"
            done
            order+=("$spec")
            ;;
        esac
    done
    for i in "${!order[@]}"; do
        [[ "${order[$i]}" == "*" ]] && order[$i]="$rest"
    done
    # run_shard <index> <spec>: one valgrind run into its log, then its status and seconds
    run_shard() {
        local log="$dir/valgrind-$1.log" start=$SECONDS status=0
        if [[ "$2" == "[model]" ]]; then
            ZSET_MODEL_SCALE=0 "${vg[@]}" "$tests" "[model]~model: operation count" >"$log" 2>&1 ||
                status=$?
        else
            "${vg[@]}" "$tests" -# "$2" >"$log" 2>&1 || status=$?
        fi
        echo "$status $((SECONDS - start))" >"$log.result"
    }
    for i in "${!order[@]}"; do
        while (($(jobs -rp | wc -l) >= ZSET_JOBS)); do wait -n; done
        rm -f "$dir/valgrind-$i.log.result"
        run_shard "$i" "${order[$i]}" &
        pids+=($!)
    done
    wait "${pids[@]}"
    local status seconds
    for i in "${!order[@]}"; do
        read -r status seconds <"$dir/valgrind-$i.log.result" 2>/dev/null || status=1
        echo "---------------- valgrind shard $i: ${order[$i]}: status ${status} (${seconds:-?}s) ----------------"
        cat "$dir/valgrind-$i.log"
        [[ "$status" == 0 ]] || rc=1
    done
    return $rc
}

# ---- tsan leg -------------------------------------------------------------------------------
# The concurrency tests (tests/threads/, binary zset_thread_tests: several threads using shared
# objects the way the thread-safety contract allows) under ThreadSanitizer, clang++ -O1, every
# race a failure. ASLR is off for the run when setarch allows it: the TSan runtime of LLVM 14 /
# GCC 12 aborts ("unexpected memory mapping") on kernels that randomise with more than 28 bits.
leg_tsan() {
    local dir="$b"/ci-tsan
    local -x TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
    local -a no_aslr=()
    if setarch "$(uname -m)" -R true 2>/dev/null; then
        no_aslr=(setarch "$(uname -m)" -R)
    fi
    cmake -S . -B "$dir" "${generator[@]}" --preset ci-tsan &&
        cmake --build "$dir" -j "$ZSET_JOBS" --target zset_thread_tests &&
        ${no_aslr[@]+"${no_aslr[@]}"} ctest --test-dir "$dir" --output-on-failure -L threads \
            ${ctest_extra[@]+"${ctest_extra[@]}"}
}

# ---- port leg -------------------------------------------------------------------------------
# The unit tests (golden DUMP payloads included) and the examples with expected output,
# cross-compiled with g++ 12 (-Og, static; tests/port/) and run on other platforms, one step per
# target (build/port-<target>); a failing step names its target:
#   ppc64    big-endian 64-bit POWER Linux (under qemu-ppc64): every unit test, the model
#   i686     32-bit x86 Linux (run directly, or under qemu-i386 if the kernel refuses them):
#            every unit test, the model
#   win64    Windows x64, LLP64 (MinGW-w64, under wine64): the tests of the code that reads the
#            C runtime or `long` (port_tests_win64)
#   aarch64  ARM64 Linux, the scalar code paths (under qemu-aarch64): the container's primitives
#            and the golden payloads (port_tests_aarch64)
# Every target builds and runs the examples, and fails on a warning located in include/zset.
# Known problems per target are listed, with reasons, in tests/port/known_issues.cmake. See
# docs/portability.md, which says why each target runs what it runs.
#
# A target's tests run in the background while the next target builds (their reports are printed
# when the last build is done, in target order). Targets build in this order: ppc64 first, whose
# emulated run is the longest and overlaps the later builds; i686 last, whose native run is short.
port_targets_all="ppc64 aarch64 win64 i686"

# The unit-test files (paths under tests/, folders ending in /) of the targets that build a part
# of them (-DZSET_PORT_TESTS; the others build every file). win64's differences from x86-64
# Linux, where the other legs run everything, are `long` (32 bits) and the C runtime, which only
# the Redis layer and the DUMP codec use (number text, strtod); its container code is the x86-64
# SSE2 code. aarch64's traits (scalar paths, unsigned char) are ppc64's too, where every test
# runs; it keeps the tests of the primitives those traits select code in, and the golden payloads.
port_tests_win64="redis/ reliability/test_bad_input.cpp reliability/test_portability.cpp dump/"
port_tests_aarch64="detail/container/ dump/test_golden_dump.cpp"

# port_build <target>: configures and builds build/port-<target>; fails on a warning located in
# include/zset. Under qemu's whole-CPU emulation (ppc64: 10-20 times slower than native) the model
# test runs its integer and user-type passes (ZSET_MODEL_SCALE=0), the bulk of its run time being
# the string-member passes, which run natively and on i686.
port_build() {
    local target="$1" dir="$b/port-$1"
    local toolchain="$root/tests/port/toolchains/$target.cmake"
    local -a target_options=()
    local tests_var="port_tests_$target"
    if [[ ! -f "$toolchain" ]]; then
        echo "port: unknown target '$target' (known: $port_targets_all)" >&2
        return 1
    fi
    case "$target" in ppc64 | aarch64) target_options=(-DZSET_PORT_MODEL_SCALE=0) ;; esac
    local tests="${!tests_var:-}"
    target_options+=("-DZSET_PORT_TESTS=${tests// /;}")
    cmake -S tests/port -B "$dir" "${generator[@]}" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        "${target_options[@]}" || return 1
    cmake --build "$dir" -j "$ZSET_JOBS" 2>&1 | tee "$dir/build.log" || return 1
    if grep -E '(^|/)include/zset/[^:]*:[0-9]+:[0-9]+: warning:' "$dir/build.log"; then
        echo "port: $target: warnings in include/zset (above)" >&2
        return 1
    fi
}

# port_test <target>: runs the target's ctest into build/port-<target>/ctest.log and writes the
# step's result line to build/port-<target>/result (meant to run in the background).
port_test() {
    local dir="$b/port-$1" start=$SECONDS status=PASS
    ctest --test-dir "$dir" --output-on-failure -j "$ZSET_JOBS" \
        ${ctest_extra[@]+"${ctest_extra[@]}"} >"$dir/ctest.log" 2>&1 || status=FAILED
    echo "$status $((SECONDS - start))" >"$dir/result"
}

leg_port() {
    local -a failed_targets=() tested=() test_pids=()
    local target start i status seconds
    # A private Wine prefix for this run, deleted afterwards (tests/port/wine.sh uses it).
    local -x WINEPREFIX
    WINEPREFIX="$(mktemp -d "${TMPDIR:-/tmp}/zset-wine.XXXXXX")"
    for target in ${ZSET_PORT_TARGETS:-$port_targets_all}; do
        echo "---------------- port: $target: build ----------------"
        start=$SECONDS
        rm -f "$b/port-$target/result"
        if port_build "$target"; then
            echo "---------------- port: $target: built ($((SECONDS - start))s); tests start ----------------"
            port_test "$target" &
            test_pids+=($!)
            tested+=("$target")
        else
            echo "---------------- port: $target FAILED to build ($((SECONDS - start))s) ----------------"
            failed_targets+=("$target")
        fi
    done
    for i in "${!tested[@]}"; do
        target="${tested[$i]}"
        wait "${test_pids[$i]}"
        echo "---------------- port: $target: tests ----------------"
        cat "$b/port-$target/ctest.log"
        read -r status seconds <"$b/port-$target/result" 2>/dev/null || status=FAILED
        echo "---------------- port: $target $status (tests ${seconds:-?}s) ----------------"
        [[ "$status" == PASS ]] || failed_targets+=("$target")
    done
    tests/port/wine.sh --stop 2>/dev/null
    rm -rf "$WINEPREFIX"
    if ((${#failed_targets[@]})); then
        leg_note="failed on: ${failed_targets[*]}"
        return 1
    fi
}

# ---- servers leg ----------------------------------------------------------------------------
# The Redis module's tests (ctest -L module) against each server in ZSET_SERVER_TREES (Redis or
# Valkey source trees, colon-separated), each built by scripts/build-server.sh into its cache
# outside the repository (tests/external/run_module_tests.sh; one build tree, <root>/servers).
# Without any it does nothing and says so: the other legs run the module tests against the
# redis-server on PATH (CI's Debian 7.0.15), and building a server needs its sources.
leg_servers() {
    local -a trees=() failed_trees=()
    local tree
    IFS=: read -r -a trees <<<"${ZSET_SERVER_TREES:-}"
    if ((${#trees[@]} == 0)); then
        echo "servers: ZSET_SERVER_TREES names no server source tree; nothing to run"
        leg_note="no ZSET_SERVER_TREES"
        return 0
    fi
    for tree in "${trees[@]}"; do
        [[ -n "$tree" ]] || continue
        echo "---------------- servers: $tree ----------------"
        ZSET_JOBS="$ZSET_JOBS" ZSET_MODULE_BUILD="$b/servers" \
            tests/external/run_module_tests.sh "$tree" -j "$ZSET_JOBS" \
            ${ctest_extra[@]+"${ctest_extra[@]}"} || failed_trees+=("$tree")
    done
    if ((${#failed_trees[@]})); then
        leg_note="failed on: ${failed_trees[*]}"
        return 1
    fi
}

# ---- fuzz leg -------------------------------------------------------------------------------
# Every libFuzzer target under fuzz/ for ZSET_FUZZ_SECONDS (default 10) each, from the
# checked-in seeds. scripts/fuzz.sh [seconds] runs them longer.
leg_fuzz() {
    ZSET_FUZZ_BUILD="$b"/ci-fuzz ZSET_JOBS="$ZSET_JOBS" scripts/fuzz.sh "${ZSET_FUZZ_SECONDS:-10}"
}

# ---- lint leg -------------------------------------------------------------------------------
# clang-tidy (the checked-in .clang-tidy, every warning an error) and cppcheck (suppressions in
# .cppcheck, each with its reason) over one generated translation unit that includes every
# header under include/zset and instantiates the main templates, so template code is analysed,
# and clang-tidy over the Redis module (module/zset_module.cpp);
# clang-format --dry-run over every tracked C++ file, so the style stays mechanical; and every
# example in docs/ compiled warning-free and run (tools/check_doc_examples.py).
leg_lint() {
    local dir="$b"/ci-lint rc=0
    mkdir -p "$dir"
    local tu="$dir/all_headers.cpp"
    {
        echo "// Generated by scripts/test.sh (leg lint): every header under include/zset."
        # ranges.hpp is C++20-only (tests/cxx20 compiles it); this TU is C++17.
        (cd include && find zset -name '*.hpp' ! -path zset/ranges.hpp | LC_ALL=C sort) |
            sed 's|.*|#include <&>|'
        echo "#include \"$root/tools/lint/use_everything.hpp\""
    } >"$tu"
    # cppcheck in two configurations, one after the other, beside the other checks (reports last).
    # Left to itself cppcheck samples 12 of the headers' #if combinations (slowly, one thread);
    # these two name the ones that matter: no compiler macros (the portable paths: no SSE2, no
    # __int128, no __builtin) and g++ on x86-64 (what CI's and most users' builds compile).
    local -a cppcheck_cmd=(cppcheck --std=c++17 --language=c++ --inline-suppr
        --enable=warning,performance,portability --suppressions-list=.cppcheck
        --error-exitcode=1 -q -I "$root/include")
    local -a gcc_x86_64=(-D__GNUC__=12 -D__x86_64__=1 -D__SSE2__=1 -D__SIZEOF_INT128__=16
        -D__cpp_exceptions=199711 -D__BYTE_ORDER__=1234 -D__ORDER_LITTLE_ENDIAN__=1234
        -D__ORDER_BIG_ENDIAN__=4321 -D__cplusplus=201703L)
    echo "lint: cppcheck (two configurations, in the background; their reports come last)"
    {
        "${cppcheck_cmd[@]}" --max-configs=1 "$tu" && "${cppcheck_cmd[@]}" "${gcc_x86_64[@]}" "$tu"
    } >"$dir/cppcheck.log" 2>&1 &
    local cppcheck_pid=$!
    # the two clang-tidy runs side by side; the module's report follows the other's
    echo "lint: clang-tidy (the headers; the Redis module's in the background)"
    clang-tidy --quiet --warnings-as-errors='*' "$root/module/zset_module.cpp" -- -std=c++17 \
        -I"$root/include" >"$dir/clang-tidy-module.log" 2>&1 &
    local tidy_module_pid=$!
    clang-tidy --quiet --warnings-as-errors='*' "$tu" -- -std=c++17 -I"$root/include" || rc=1
    wait "$tidy_module_pid" || rc=1
    echo "lint: clang-tidy report (the Redis module)"
    cat "$dir/clang-tidy-module.log"
    echo "lint: clang-format (every tracked C++ file against .clang-format)"
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$root" ls-files -z '*.hpp' '*.cpp' '*.h' |
            (cd "$root" && xargs -0 clang-format --dry-run -Werror) || rc=1
    else
        echo "lint: not a git checkout; clang-format check skipped"
    fi
    echo "lint: comments without history or measured figures (tools/check_comments.py)"
    python3 tools/check_comments.py include module || rc=1
    python3 tools/check_include_graph.py include module || rc=1  # no header includes its includer
    echo "lint: documentation examples (tools/check_doc_examples.py, g++)"
    python3 tools/check_doc_examples.py --cxx g++ --jobs "$ZSET_JOBS" || rc=1
    echo "lint: cppcheck report"
    wait "$cppcheck_pid" || rc=1
    cat "$dir/cppcheck.log"
    return $rc
}

# ---------------------------------------------------------------------------------------------
# Sets cpu_now to the CPU seconds (user + sys) used so far by the finished child processes of
# this shell (`times` must run in this shell, not in a command substitution).
cpu_file="$(mktemp)"
trap 'rm -f "$cpu_file"' EXIT
read_cpu() {
    times >"$cpu_file"
    cpu_now=$(tail -n 1 "$cpu_file" | awk '{
        total = 0
        for (i = 1; i <= 2; ++i) { split($i, p, "m"); sub("s", "", p[2]); total += p[1] * 60 + p[2] }
        printf "%d\n", total }')
}

failed=()
summary=()
total_start=$SECONDS
read_cpu
total_cpu_start=$cpu_now
for leg in $ZSET_LEGS; do
    if ! declare -F "leg_$leg" >/dev/null; then
        echo "scripts/test.sh: unknown leg '$leg'" >&2
        failed+=("$leg")
        summary+=("$(printf '%-8s UNKNOWN' "$leg")")
        continue
    fi
    echo "================ leg: $leg ================"
    leg_note=""
    start=$SECONDS
    read_cpu
    cpu_start=$cpu_now
    if "leg_$leg"; then
        status=PASS
    else
        status=FAIL
        failed+=("$leg")
    fi
    elapsed=$((SECONDS - start))
    read_cpu
    cpu=$((cpu_now - cpu_start))
    line="$(printf '%-8s %s  %dm%02ds  (cpu %dm%02ds)%s' "$leg" "$status" $((elapsed / 60)) \
        $((elapsed % 60)) $((cpu / 60)) $((cpu % 60)) "${leg_note:+  $leg_note}")"
    summary+=("$line")
    echo "================ leg: $line ================"
done

total=$((SECONDS - total_start))
read_cpu
total_cpu=$((cpu_now - total_cpu_start))
echo
echo "---------------- summary ----------------"
printf '%s\n' "${summary[@]}"
printf 'total    %dm%02ds  (cpu %dm%02ds)\n' $((total / 60)) $((total % 60)) $((total_cpu / 60)) \
    $((total_cpu % 60))
if ((${#failed[@]})); then
    echo "FAILED legs: ${failed[*]}"
    exit 1
fi
echo "all legs passed"
