#!/usr/bin/env bash
# query_bench.sh [N] - end-to-end time of `cgmap callers`, `callees`, `path`
# and `impact` on a snapshot of a synthetic schema of N functions (default
# 10000, bench/gen_schema.sh), mapped from its SQL file (no server needed).
#
# Each query is one whole process: reading cgmap.json, matching FUNC,
# walking the graph and writing the answer.  Printed per query: the median
# wall time and user+system CPU of RUNS runs (default 5), the size of the
# answer, and the command that reproduces it; first the same for `cgmap
# report missing` (reading the snapshot and a near-empty report), the floor
# every query stands on.  Target at 10,000 functions: well under a second
# each.  CPU time is the figure to compare on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
runs=${RUNS:-5}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

if [ ! -x "$build/cgmap" ] || [ -z "${CGMAP_BENCH_NO_BUILD:-}" ]; then
	bash scripts/setup.sh >/dev/null
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null
fi
cgmap=$build/cgmap

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash bench/gen_schema.sh "$n" >"$work/schema.sql"
"$cgmap" --sql "$work/schema.sql" --no-html --quiet --out "$work/map" 2>/dev/null
snap=$work/map/cgmap.json
nfn=$(jq '.functions | length' "$snap" 2>/dev/null || echo "?")
ned=$(jq '.edges | length' "$snap" 2>/dev/null || echo "?")
printf 'snapshot: %s functions, %s edges, %s bytes (%s)\n' "$nfn" "$ned" "$(stat -c %s "$snap")" "$build"

# Functions of gen_schema.sh call only lower-numbered ones: f00001 has the
# most callers, the last function the most callees.
first=bench.f00001
last=$(printf 'bench.f%05d' "$n")
mid=$(printf 'bench.f%05d' $((n / 2)))

# measure LABEL CMD...: median wall and CPU seconds of $runs runs.
measure() {
	local label=$1
	shift
	local walls=() cpus=() out=$work/out
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$out" 2>/dev/null
		read -r wall user sys <"$work/time"
		walls+=("$wall")
		cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
	done
	local mw mc
	mw=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	mc=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '%-28s wall %5.2f s  cpu %5.2f s  answer %7d lines\n' "$label" "$mw" "$mc" "$(wc -l <"$out")"
	printf '    %s\n' "$(printf '%q ' "$@" | sed "s|$work|\$WORK|g; s|$build|\$BUILD|g")"
}

measure "read (report missing)" "$cgmap" report missing "$snap"
measure "callers (all)" "$cgmap" callers "$first" "$snap"
measure "callers --depth 3" "$cgmap" callers "$first" "$snap" --depth 3
measure "callees (all)" "$cgmap" callees "$last" "$snap"
measure "callees --format json" "$cgmap" callees "$last" "$snap" --format json
measure "path --max 10" "$cgmap" path "$last" "$first" "$snap" --max 10
measure "impact" "$cgmap" impact "$first" "$mid" --snapshot "$snap"
measure "impact --format dot" "$cgmap" impact "$mid" --snapshot "$snap" --format dot
measure "no match (closest ids)" "$cgmap" callers bench.f0000x "$snap" || true
echo "reproduce: bash bench/query_bench.sh $n  (RUNS=$runs; \$WORK is a temporary folder," \
	"\$BUILD the build folder, CGMAP_BENCH_BUILD to choose it)"
