#!/bin/sh
# Runs gdb on gdb_target with tools/gdb/zset_printers.py loaded and checks what it prints.
#
#   check_gdb.sh <gdb> <gdb_target> <zset_printers.py> <work dir>
#
# Exit status: 0 pass, 1 fail, 77 skip (no gdb, gdb without Python, or ptrace not permitted);
# ctest maps 77 to "skipped" through the test's SKIP_RETURN_CODE property.
set -u

gdb=$1
target=$2
printers=$3
workdir=$4

skip() {
    echo "SKIP: $*"
    exit 77
}

command -v "$gdb" >/dev/null 2>&1 || skip "gdb not found ('$gdb')"
[ -x "$target" ] || { echo "FAIL: no target program '$target'"; exit 1; }
[ -f "$printers" ] || { echo "FAIL: no printer script '$printers'"; exit 1; }
"$gdb" -batch -nx -ex 'python print("zset-python-" + "ok")' 2>/dev/null | grep -q zset-python-ok ||
    skip "gdb has no Python support"

mkdir -p "$workdir"
script="$workdir/check_gdb.gdb"
output="$workdir/check_gdb.out"

cat >"$script" <<GDB
set pagination off
set confirm off
set width 0
set print elements 400
set disable-randomization off
python
try:
    gdb.execute("set debuginfod enabled off")
except gdb.error:
    pass
end
source $printers
break zset_gdb_break
run
up
print listpack_set
print skiplist_set
print empty_set
print integer_set
print alice
print past_end
print player
print skiplist_end
set print zset-elements 3
print skiplist_set
set print zset-elements 0
print skiplist_set
kill
GDB

"$gdb" -batch -nx -x "$script" "$target" >"$output" 2>&1
status=$?

if ! grep -q '^Breakpoint 1, ' "$output"; then
    if grep -q -i -e 'ptrace: Operation not permitted' -e 'not permitted' \
        -e "Couldn't get registers" "$output"; then
        cat "$output"
        skip "gdb cannot run programs here (ptrace not permitted)"
    fi
    cat "$output"
    echo "FAIL: gdb did not stop at zset_gdb_break (exit status $status)"
    exit 1
fi

failures=0
expect() {
    if grep -q -F -e "$1" "$output"; then
        echo "ok: $1" | cut -c1-160
    else
        echo "MISSING: $1"
        failures=$((failures + 1))
    fi
}

first_ten='{["player:000"] = 0, ["player:001"] = 1, ["player:002"] = 2, '"['x' <repeats 300 times>]"' = 2.5, ["player:003"] = 3, ["player:004"] = 4, ["player:128"] = 128, ["player:129"] = 129, ["player:130"] = 130, ["player:131"] = 131}'

expect '= zset::sorted_set with 3 elements (listpack) = {["bob"] = 950, ["alice"] = 1200, ["carol"] = 1310.5}'
expect "= zset::sorted_set with 178 elements (skiplist), showing first 10 = $first_ten"
expect '= zset::sorted_set with 0 elements (listpack)'
expect '= zset::sorted_set with 2 elements (listpack) = {[3] = 30, [7] = 70}'
expect '= zset iterator = {member = "alice", score = 1200}'
expect '= zset iterator (end)'
expect '= zset iterator = {member = "player:200", score = 200}'
expect '$8 = zset iterator (end)'
expect '= zset::sorted_set with 178 elements (skiplist), showing first 3 = {["player:000"] = 0, ["player:001"] = 1, ["player:002"] = 2}'
# Unlimited: every element, the last one included, and no "showing first".
expect '= zset::sorted_set with 178 elements (skiplist) = {["player:000"] = 0, '
expect '["player:298"] = 298, ["player:299"] = 299}'

if grep -q -e 'Python Exception' -e 'Traceback' "$output"; then
    echo "FAIL: the printers raised a Python exception"
    failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
    echo "---- gdb output ($output) ----"
    cat "$output"
    echo "FAIL: $failures check(s) failed"
    exit 1
fi
echo "PASS: zset gdb printers"
exit 0
