#!/usr/bin/env bash
# map_bench.sh [N] - end-to-end speed and memory of mapping a live database:
# generate a synthetic schema of N functions (default 10000, bench/gen_schema.sh),
# load it into a throwaway PostgreSQL 15 cluster, map it with cgmap and print
# functions per second, the wall time of each stage (catalog, parse, resolve,
# analyze, write) and peak memory.  Target: >= 10,000 functions/s and
# < 200 MB peak at 10,000 functions.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

bash scripts/setup.sh >/dev/null
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null

. tests/lib/pgtest.sh
pgtest_start
work=$(mktemp -d)
trap 'rm -rf "$work"; pgtest_stop' EXIT
bash bench/gen_schema.sh "$n" >"$work/schema.sql"
pgtest_psql -c "CREATE DATABASE bench" >/dev/null
pgtest_psql -d bench -f "$work/schema.sql" >/dev/null
# A database in use has been vacuumed: without it every catalog row read
# still checks its inserting transaction (no hint bits), which doubles the
# catalog stage on a freshly loaded schema only.
pgtest_psql -d bench -c "VACUUM ANALYZE" >/dev/null

# Warm the server's caches once, then measure.
"$build/cgmap" --dsn dbname=bench --out "$work/warm" --no-html --no-runtime --quiet
/usr/bin/time -v "$build/cgmap" --dsn dbname=bench --out "$work/out" --no-html --no-runtime \
	--quiet --timing 2>"$work/time.txt"
functions=$(grep -c '"id":' "$work/out/cgmap.json" || true)
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
seconds=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
echo "cgmap map benchmark: $n generated functions ($(nproc) cores)"
grep '^stage' "$work/time.txt"
printf 'total wall         %8.3f s\n' "$seconds"
awk -v n="$n" -v s="$seconds" 'BEGIN { printf "throughput         %8.0f functions/s\n", n / s }'
awk -v kb="$peak_kb" 'BEGIN { printf "peak memory        %8.1f MB\n", kb / 1024 }'
echo "reproduce: bash bench/map_bench.sh $n"
