#!/usr/bin/env bash
# map_bench.sh [N] - end-to-end speed and memory of mapping a live database:
# generate a synthetic schema of N functions (default 10000, bench/gen_schema.sh),
# load it into a throwaway PostgreSQL 15 cluster, map it with cgmap and print
# functions per second, the wall time of each stage (catalog, parse, resolve,
# analyze, write) and peak memory, the median of RUNS runs (default 5).
# Target: >= 10,000 functions/s and < 200 MB peak at 10,000 functions.
# Then the whole default run once, `cgmap --dsn ... --out DIR` (map,
# snapshot, DOT and the HTML site), with its wall time, peak memory and the
# size of what it wrote (target at 10,000 functions: 3 s), and again into
# the same folder after 1% of the functions changed (target: 5x faster).
# Both with their CPU time, user and system: on a disk that is slow to
# create files, the system time of the site's 10,000 new files is most of
# the first run (ext4 without a journal, for one, skips inodes freed in
# the last minutes one by one, so a run just after deleting an earlier
# site's folder pays for that deletion).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

bash scripts/setup.sh --tests >/dev/null
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

# Warm the server's caches once, then measure $runs times (default 5): on a
# shared machine one run measures the neighbours as much as cgmap, so the
# throughput is that of the median run, and every run is printed.
runs=${RUNS:-5}
"$build/cgmap" --dsn dbname=bench --out "$work/warm" --no-html --no-runtime --quiet
walls=()
for i in $(seq 1 "$runs"); do
	/usr/bin/time -v "$build/cgmap" --dsn dbname=bench --out "$work/out$i" --no-html --no-runtime \
		--quiet --timing 2>"$work/time$i.txt"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time$i.txt")
	walls+=("$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')")
done
functions=$(jq '.summary.functions' "$work/out1/cgmap.json")
[ "$functions" -ge "$n" ] || { echo "map_bench: only $functions of $n functions mapped" >&2; exit 1; }
median_run=$(for i in "${!walls[@]}"; do echo "${walls[$i]} $((i + 1))"; done | sort -n |
	awk -v n="$runs" 'NR == int((n + 1) / 2) {print $2}')
seconds=${walls[$((median_run - 1))]}
peak_kb=$(cat "$work"/time*.txt | awk -F': ' '/Maximum resident set size/ {if ($2 > m) m = $2} END {print m}')
echo "cgmap map benchmark: $n generated functions ($(nproc) cores)"
echo "median of $runs runs (run $median_run):"
grep '^stage' "$work/time$median_run.txt"
printf 'total wall         %8.3f s (runs: %s)\n' "$seconds" "${walls[*]}"
awk -v n="$n" -v s="$seconds" 'BEGIN { printf "throughput         %8.0f functions/s (target >= 10000: %s)\n", n / s, ((n / s) >= 10000 ? "met" : "NOT met") }'
awk -v kb="$peak_kb" 'BEGIN { printf "peak memory        %8.1f MB (highest run)\n", kb / 1024 }'

/usr/bin/time -v "$build/cgmap" --dsn dbname=bench --out "$work/full" --quiet --timing 2>"$work/full.txt"
full_wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/full.txt" |
	awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
full_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/full.txt")
mb() { du -sb "$@" 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s / 1e6 }'; }
site_mb=$(cd "$work/full" && mb index.html search-index.js assets functions schemas relations reports profile)
printf 'default run        %8.3f s wall, peak %.1f MB (cgmap --dsn DSN --out DIR; target at 10,000 functions: 3 s)\n' \
	"$full_wall" "$(echo "$full_kb / 1024" | bc -l)"
# What a run publishes; the caches (.cgmap-cache: layouts and parsed
# bodies, .cgmap-pages) only speed up the next run into the folder.
echo "  output:          $(($(mb "$work/full") - $(mb "$work/full/.cgmap-cache" "$work/full/.cgmap-pages"))) MB: snapshot $(mb "$work/full/cgmap.json") MB, callgraph.dot $(mb "$work/full/callgraph.dot") MB, site $site_mb MB; caches $(mb "$work/full/.cgmap-cache" "$work/full/.cgmap-pages") MB beside it"
# The nightly job: 1% of the functions changed (every hundredth PL/pgSQL
# one calls bench.f00001 where its body made its first call), then the
# default run again into the same folder: the bodies that did not change
# come from the parse cache, the pages and layouts whose inputs did not
# change are kept.
changed=$(pgtest_psql -d bench -At <<'SQL'
DO $$
DECLARE
  r record;
  head text;
  changed integer := 0;
BEGIN
  FOR r IN SELECT p.oid, pg_get_functiondef(p.oid) AS def
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           JOIN pg_language l ON l.oid = p.prolang
           WHERE n.nspname = 'bench' AND p.proname ~ '^f[0-9]{5}$' AND l.lanname = 'plpgsql'
             AND substr(p.proname, 2)::integer % 100 = 0
  LOOP
    head := left(r.def, strpos(r.def, 'BEGIN'));
    EXECUTE head || regexp_replace(substr(r.def, length(head) + 1),
                                   'bench\.f[0-9]{5}\(', 'bench.f00001(');
    changed := changed + 1;
  END LOOP;
  PERFORM set_config('bench.changed', changed::text, false);
END $$;
SELECT current_setting('bench.changed');
SQL
)
/usr/bin/time -v "$build/cgmap" --dsn dbname=bench --out "$work/full" --quiet --timing 2>"$work/again.txt"
again_wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/again.txt" |
	awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
cpu() { awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f s user, %.2f s system", u, s }' "$1"; }
stages() { awk '/^stage / { if ($2 == "html") h = $3; else m += $3 } END { printf "map stages %.2f s, site %.2f s", m, h }' "$1"; }
echo "  stages:          $(stages "$work/full.txt")"
echo "  CPU:             $(cpu "$work/full.txt")"
printf 'default run again %8.3f s wall, after %s of the functions changed a callee, same folder (%.1fx faster; target 5x)\n' \
	"$again_wall" "$changed" "$(echo "$full_wall / $again_wall" | bc -l)"
echo "  stages:          $(stages "$work/again.txt")"
echo "  CPU:             $(cpu "$work/again.txt")"
echo "  bodies:          $(sed -n 's/^stage resolve.*(\([0-9]* of [0-9]*\) bodies.*/\1 from the parse cache/p' "$work/again.txt")"
echo "  pages:           $(sed -n 's/^stage html.*(\([0-9]* of [0-9]*\) function pages.*/\1 function pages unchanged/p' "$work/again.txt")"
echo "reproduce: bash bench/map_bench.sh $n"
