#!/usr/bin/env bash
# offline_bench.sh [N] - speed and memory of mapping SQL files, no database:
# generate a synthetic schema file of N functions (default 10000,
# bench/gen_schema.sh), map it with `cgmap --sql`, and print the time of the
# SQL-file source (reading, parsing and applying every statement, the
# definitions extracted meanwhile), the time
# of each later stage, functions per second and peak memory.
# Target (the same as live mode): >= 10,000 functions/s, for the source stage
# and end to end.
# Also times `cgmap diff` of the mapped snapshot against itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash bench/gen_schema.sh "$n" >"$work/schema.sql"

# Once to warm the page cache, then measured $runs times (default 5): on a
# shared machine one run measures the neighbours as much as cgmap, so the
# source stage is the best run's and the end-to-end figure the median run's.
runs=${RUNS:-5}
"$build/cgmap" --sql "$work/schema.sql" --out "$work/warm" --no-html --quiet
walls=()
for i in $(seq 1 "$runs"); do
	/usr/bin/time -v "$build/cgmap" --sql "$work/schema.sql" --out "$work/out" --no-html \
		--quiet --timing 2>"$work/time$i.txt"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time$i.txt")
	walls+=("$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')")
done
functions=$(jq '.summary.functions' "$work/out/cgmap.json")
[ "$functions" -ge "$n" ] || { echo "offline_bench: only $functions of $n functions mapped" >&2; exit 1; }
source_s=$(cat "$work"/time*.txt | awk '/^stage catalog/ {if (best == "" || $3 < best) best = $3} END {print best}')
median_run=$(for i in "${!walls[@]}"; do echo "${walls[$i]} $((i + 1))"; done | sort -n |
	awk -v n="$runs" 'NR == int((n + 1) / 2) {print $2}')
seconds=${walls[$((median_run - 1))]}
cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$work/time$median_run.txt")
peak_kb=$(cat "$work"/time*.txt | awk -F': ' '/Maximum resident set size/ {if ($2 > m) m = $2} END {print m}')
/usr/bin/time -f '%e' "$build/cgmap" diff "$work/out" "$work/out" >/dev/null 2>"$work/diff_time.txt"

echo "cgmap offline (--sql) benchmark: $n generated functions, $(du -h "$work/schema.sql" | cut -f1) of SQL ($(nproc) cores)"
echo "median of $runs runs (run $median_run):"
grep '^stage' "$work/time$median_run.txt" | sed 's/^stage catalog /stage sql-files/'
printf 'total wall         %8.3f s (cpu %.3f s; runs: %s)\n' "$seconds" "$cpu" "${walls[*]}"
awk -v n="$n" -v s="$source_s" -v r="$runs" 'BEGIN { printf "source (best of %d) %7.3f s\n", r, s; printf "source throughput  %8.0f functions/s (target >= 10000: %s)\n", n / s, ((n / s) >= 10000 ? "met" : "NOT met") }'
awk -v n="$n" -v s="$seconds" 'BEGIN { printf "end-to-end         %8.0f functions/s (target >= 10000: %s)\n", n / s, ((n / s) >= 10000 ? "met" : "NOT met") }'
awk -v kb="$peak_kb" 'BEGIN { printf "peak memory        %8.1f MB (highest run)\n", kb / 1024 }'
printf 'diff (self)        %8.3f s\n' "$(cat "$work/diff_time.txt")"
echo "reproduce: bash bench/offline_bench.sh $n"
