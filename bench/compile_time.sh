#!/usr/bin/env bash
# Compile-time benchmark (docs/benchmarks.md, "Compile time"): the wall time to compile small
# translation units that use zset, next to the standard-library equivalent, the median of N runs
# per compiler, printed as a Markdown table.
#
#   (i)   six common operations (add, score, rank, range_by_score, erase, pop_min) through
#         <zset/zset.hpp>, the README's include; again with ZSET_EXTERN_TEMPLATES (the default
#         set instantiated once, in another TU), plus that instantiating TU itself (compiled once
#         per program); the two builds are linked and run, and must print the same
#   (ii)  the same program with std::set + std::unordered_map
#   (iii) <zset/redis.hpp> and one keyspace execute
#   (iv)  each public header alone, in an otherwise empty TU (<zset/ranges.hpp> as C++20)
#   plus a baseline: <string> and an empty main.
#
# Each TU is compiled to an object file (-c) with -std=c++17 and the flags below; no linking.
#
#   bench/compile_time.sh [--detail]
#     --detail   also time what (i) spends where: parsing only (-fsyntax-only), the headers
#                with no use, with NDEBUG (ZSET_DEBUG=0), at -O0, and the standard headers
#                zset includes, each alone; and (iii) parsing only and with
#                ZSET_EXTERN_TEMPLATES
#
# Environment: ZSET_COMPILE_RUNS (default 5), ZSET_COMPILE_CXX (default "g++ clang++", those
# found), ZSET_COMPILE_FLAGS (default -O2). The machine is shared: the load average is printed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${ZSET_COMPILE_RUNS:-5}"
flags="${ZSET_COMPILE_FLAGS:--O2}"
detail=0
if [[ "${1:-}" == "--detail" ]]; then
    detail=1
elif [[ $# -gt 0 ]]; then
    echo "usage: bench/compile_time.sh [--detail]" >&2
    exit 2
fi
compilers=()
for cxx in ${ZSET_COMPILE_CXX:-g++ clang++}; do
    command -v "$cxx" >/dev/null 2>&1 && compilers+=("$cxx")
done
if ((${#compilers[@]} == 0)); then
    echo "compile_time.sh: no compiler found" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---- the translation units ------------------------------------------------------------------

cat >"$work/zset_ops.cpp" <<'EOF'
#include <cstdio>

#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    s.add("alice", 1200);
    s.add("bob", 950);
    const auto score = s.score("alice");
    const auto rank = s.rank("bob");
    double total = 0;
    for (auto e : s.range_by_score({1000, 2000})) total += e.score;
    s.erase("bob");
    const auto lowest = s.pop_min();
    std::printf("%g %zu %g %zu\n", score.value_or(0), rank.value_or(0), total, lowest.size());
}
EOF

cat >"$work/std_ops.cpp" <<'EOF'
#include <cstdio>
#include <iterator>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct board {
    std::set<std::pair<double, std::string>> order;
    std::unordered_map<std::string, double> scores;
    void add(const std::string& m, double s) {
        auto [it, added] = scores.try_emplace(m, s);
        if (!added) {
            order.erase({it->second, m});
            it->second = s;
        }
        order.emplace(s, m);
    }
    bool erase(const std::string& m) {
        const auto it = scores.find(m);
        if (it == scores.end()) return false;
        order.erase({it->second, m});
        scores.erase(it);
        return true;
    }
};

int main() {
    board b;
    b.add("alice", 1200);
    b.add("bob", 950);
    const auto found = b.scores.find("alice");
    const double score = found == b.scores.end() ? 0 : found->second;
    const auto bob = b.order.find({b.scores.at("bob"), "bob"});
    const auto rank = static_cast<std::size_t>(std::distance(b.order.begin(), bob));
    double total = 0;
    for (auto it = b.order.lower_bound({1000, std::string()});
         it != b.order.end() && it->first <= 2000; ++it)
        total += it->first;
    b.erase("bob");
    std::vector<std::pair<std::string, double>> lowest;
    if (!b.order.empty()) {
        lowest.emplace_back(b.order.begin()->second, b.order.begin()->first);
        b.erase(lowest.back().first);
    }
    std::printf("%g %zu %g %zu\n", score, rank, total, lowest.size());
}
EOF

cat >"$work/redis_execute.cpp" <<'EOF'
#include <cstdio>
#include <string>
#include <vector>

#include <zset/redis.hpp>

int main() {
    zset::redis::keyspace ks;
    zset::redis::session session;
    std::string out;
    ks.execute(std::vector<std::string>{"ZADD", "board", "1200", "alice"}, session, out);
    std::printf("%s", out.c_str());
}
EOF

printf '#include <string>\nint main() { return static_cast<int>(std::string().size()); }\n' \
    >"$work/baseline.cpp"

# ZSET_EXTERN_TEMPLATES: the same program, and the one TU that instantiates the default set
sed 's|^#include <zset/zset.hpp>|#define ZSET_EXTERN_TEMPLATES\n&|' "$work/zset_ops.cpp" \
    >"$work/extern_ops.cpp"
printf '#define ZSET_INSTANTIATE\n#include <zset/sorted_set.hpp>\n' >"$work/instance.cpp"

# ---- timing ---------------------------------------------------------------------------------

# median_seconds <cxx> <std> <source> [extra flags...]: median wall time of $runs compiles,
# or "fails" when the TU does not compile.
median_seconds() {
    local cxx="$1" std="$2" src="$3"
    shift 3
    local -a times=()
    local i start end
    for ((i = 0; i < runs; ++i)); do
        start=$(date +%s%N)
        if ! "$cxx" "-std=$std" $flags "$@" -I"$root/include" -c "$src" -o "$work/out.o" \
            2>"$work/errors.txt"; then
            echo "fails"
            return
        fi
        end=$(date +%s%N)
        times+=($(((end - start) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n |
        awk '{ t[NR] = $1 } END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
                                  printf "%.2f\n", m / 1000 }'
}

# row <label> <std> <source> [extra flags...]: one table row, a column per compiler.
row() {
    local label="$1" std="$2" src="$3"
    shift 3
    local line="| $label |"
    for cxx in "${compilers[@]}"; do
        line+=" $(median_seconds "$cxx" "$std" "$src" "$@") |"
    done
    echo "$line"
}

header() {
    local line="| $1 |" rule="|---|"
    for cxx in "${compilers[@]}"; do
        line+=" $cxx $flags (s) |"
        rule+="---|"
    done
    printf '%s\n%s\n' "$line" "$rule"
}

versions=""
for cxx in "${compilers[@]}"; do versions+="$("$cxx" --version | head -n 1); "; done
echo "compile_time.sh: median wall time of $runs compiles (-c, -std=c++17 $flags), code" \
    "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), ${versions%; }," \
    "load average $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo
# check_extern <cxx>: the extern-template build of (i), linked with the instantiating TU alone,
# prints what the default build prints.
check_extern() {
    local cxx="$1" opts=(-std=c++17 $flags -I"$root/include")
    "$cxx" "${opts[@]}" "$work/zset_ops.cpp" -o "$work/default_ops" &&
        "$cxx" "${opts[@]}" -c "$work/extern_ops.cpp" -o "$work/extern_ops.o" &&
        "$cxx" "${opts[@]}" -c "$work/instance.cpp" -o "$work/instance.o" &&
        "$cxx" "$work/extern_ops.o" "$work/instance.o" -o "$work/extern_ops" &&
        [[ "$("$work/default_ops")" == "$("$work/extern_ops")" ]]
}
for cxx in "${compilers[@]}"; do
    if ! check_extern "$cxx"; then
        echo "compile_time.sh: $cxx: the ZSET_EXTERN_TEMPLATES build does not link or differs" >&2
        exit 1
    fi
done

header "translation unit"
row "(i) 6 operations, \`<zset/zset.hpp>\`" c++17 "$work/zset_ops.cpp"
row "(i) with \`ZSET_EXTERN_TEMPLATES\` (the default set instantiated in another TU)" c++17 \
    "$work/extern_ops.cpp"
row "the instantiating TU (\`ZSET_INSTANTIATE\`, once per program)" c++17 "$work/instance.cpp"
row "(ii) the same with \`std::set\` + \`std::unordered_map\`" c++17 "$work/std_ops.cpp"
row "(iii) \`<zset/redis.hpp>\`, one \`keyspace::execute\`" c++17 "$work/redis_execute.cpp"
row "baseline: \`<string>\`, empty \`main\`" c++17 "$work/baseline.cpp"
for header_path in "$root"/include/zset/*.hpp "$root"/include/zset/redis/*.hpp; do
    name="${header_path#"$root"/include/}"
    std=c++17
    [[ "$name" == zset/ranges.hpp ]] && std=c++20
    printf '#include <%s>\nint main() {}\n' "$name" >"$work/header.cpp"
    label="(iv) \`<$name>\` alone"
    [[ $std == c++20 ]] && label+=" (C++20)"
    row "$label" "$std" "$work/header.cpp"
done

if ((detail)); then
    echo
    header "where (i) spends its time"
    printf '#include <zset/zset.hpp>\nint main() {}\n' >"$work/umbrella.cpp"
    printf '#include <zset/sorted_set.hpp>\nint main() {}\n' >"$work/container.cpp"
    sed 's|<zset/zset.hpp>|<zset/sorted_set.hpp>|' "$work/zset_ops.cpp" >"$work/container_ops.cpp"
    row "(i) as measured above" c++17 "$work/zset_ops.cpp"
    row "(i) parsing only (\`-fsyntax-only\`)" c++17 "$work/zset_ops.cpp" -fsyntax-only
    row "(i) with \`-DNDEBUG\` (ZSET_DEBUG=0)" c++17 "$work/zset_ops.cpp" -DNDEBUG
    row "(i) including \`<zset/sorted_set.hpp>\` only" c++17 "$work/container_ops.cpp"
    row "(i) at -O0" c++17 "$work/zset_ops.cpp" -O0
    row "\`<zset/zset.hpp>\` with no use" c++17 "$work/umbrella.cpp"
    row "\`<zset/sorted_set.hpp>\` with no use" c++17 "$work/container.cpp"
    # standard headers, each alone: those the container includes, and <functional>, <random>
    # and <bitset>, which it left out (docs/benchmarks.md, "Compile time")
    for std_header in algorithm cmath functional memory memory_resource optional random string \
        tuple vector stdexcept iterator bitset emmintrin.h; do
        printf '#include <%s>\nint main() {}\n' "$std_header" >"$work/std_header.cpp"
        row "\`<$std_header>\` alone" c++17 "$work/std_header.cpp"
    done
    row "(iii) parsing only (\`-fsyntax-only\`)" c++17 "$work/redis_execute.cpp" -fsyntax-only
    row "(iii) with \`ZSET_EXTERN_TEMPLATES\`" c++17 "$work/redis_execute.cpp" -DZSET_EXTERN_TEMPLATES
fi
