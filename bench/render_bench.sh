#!/usr/bin/env bash
# render_bench.sh [N | SNAPSHOT] - speed and memory of `cgmap render`: the
# HTML site (index, reports, one page and one Graphviz graph per schema and
# per function) of the synthetic schema of N functions (default 10000,
# bench/gen_schema.sh, mapped offline with `cgmap --sql`), or of a given
# snapshot.  Prints the wall time, CPU time, peak memory, the size of the
# site and the command that reproduces it.  Target: under 60 s for 10,000
# functions on a 2-core machine (both cores lay out graphs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${CGMAP_BENCH_BUILD:-$root/build/release}

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-render-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
arg=${1:-10000}
if [ -f "$arg" ] || [ -d "$arg" ]; then
	snapshot=$arg
	what="snapshot $arg"
else
	bash bench/gen_schema.sh "$arg" >"$work/schema.sql"
	"$build/cgmap" --sql "$work/schema.sql" --out "$work/map" --no-html --quiet
	snapshot=$work/map/cgmap.json
	what="synthetic schema of $arg functions (bench/gen_schema.sh)"
fi

load_before=$(cut -d' ' -f1 /proc/loadavg)
/usr/bin/time -v "$build/cgmap" render "$snapshot" --out "$work/site" --quiet 2>"$work/time.txt" || {
	cat "$work/time.txt" >&2
	exit 1
}
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
	for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }' "$work/time.txt")
user=$(awk -F': ' '/User time/ { print $2 }' "$work/time.txt")
sys=$(awk -F': ' '/System time/ { print $2 }' "$work/time.txt")
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time.txt")
pages=$(find "$work/site" -name '*.html' | wc -l)
graphs=$(find "$work/site/dot" -name '*.dot' | wc -l)
size=$(du -sm "$work/site" | cut -f1)
functions=$(find "$work/site/functions" -name '*.html' | wc -l)

echo "render_bench: $what"
echo "  functions:    $functions"
echo "  pages:        $pages ($graphs graphs laid out), ${size} MB"
echo "  wall time:    ${wall} s (target < 60 s)"
echo "  cpu time:     ${user} s user + ${sys} s system, on $(nproc) cores"
echo "  peak memory:  ${rss} MB (largest process: reading the snapshot is shared by the workers)"
echo "  load average: $load_before before the run (other work on the machine slows the wall time)"
echo "  reproduce:    bash bench/render_bench.sh $arg"
