#!/usr/bin/env bash
# diff_bench.sh [N] [CGMAP] - time and memory of `cgmap diff` of two
# snapshots of N functions (default 50000) and of `cgmap report` of one.
#
# BASE is bench/gen_schema.sh N 42; HEAD is the same schema with 1% of the
# functions changed (every hundredth function returns one more: its body
# hash changes, its calls stay).  Both are mapped with --sql (no database
# needed), then `cgmap diff BASE HEAD` and `cgmap report dead BASE` run
# under /usr/bin/time -v.  CGMAP is the binary to measure (default:
# build/release/cgmap, built here): pass another build to compare.
# Snapshots of 50,000 functions pass the default input limit of 256 MiB:
# both commands run with --max-file-size 4G.
# Printed per command: wall time, CPU time (user + system: the figure to
# compare on a shared machine), peak RSS, and the command itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-50000}
cgmap=${2:-}
if [ -z "$cgmap" ]; then
	build=${CGMAP_BENCH_BUILD:-$root/build/release}
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null
	cgmap=$build/cgmap
fi
cgmap=$(cd "$(dirname "$cgmap")" && pwd)/$(basename "$cgmap")
work=${CGMAP_BENCH_DIR:-$(mktemp -d)}
[ -n "${CGMAP_BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

bash bench/gen_schema.sh "$n" 42 >"$work/base.sql"
# 1% changed: every hundredth function returns one more.
awk '
/^CREATE FUNCTION bench\.f[0-9]+\(/ { fn = substr($3, 8, 5) + 0 }
fn % 100 == 0 && /^  RETURN total;$/ { sub(/RETURN total;/, "RETURN total + 1;") }
fn % 100 == 0 && /^  SELECT coalesce\(max\(v\), 0\) \+ x$/ { sub(/\+ x$/, "+ x + 1") }
{ print }
' "$work/base.sql" >"$work/head.sql"

"$cgmap" --sql "$work/base.sql" --out "$work/base" --no-html --quiet
"$cgmap" --sql "$work/head.sql" --out "$work/head" --no-html --quiet
ls -l "$work"/base/cgmap.json* "$work"/head/cgmap.json* | awk '{ print "snapshot: " $5 " bytes " $NF }'

# measure LABEL OK_CODES COMMAND...: runs it once, its output discarded;
# an exit code outside OK_CODES stops the bench.
measure() {
	local label=$1 ok=$2
	shift 2
	local t="$work/time.txt"
	local rc=0
	/usr/bin/time -v -o "$t" "$@" >/dev/null 2>"$work/stderr.txt" || rc=$?
	if [[ " $ok " != *" $rc "* ]]; then
		cat "$work/stderr.txt" >&2
		echo "$label: exit code $rc" >&2
		exit 1
	fi
	awk -v label="$label" '
	/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
	/User time/ { user = $NF }
	/System time/ { sys = $NF }
	/Maximum resident/ { rss = $NF }
	END { printf "%-8s wall %6.2f s  cpu %6.2f s (user %.2f + sys %.2f)  peak RSS %7.1f MB\n", label, wall, user + sys, user, sys, rss / 1024 }
	' "$t"
	echo "         command: $*"
}

echo "cgmap: $cgmap, $n functions"
# diff exits 2 when it finds differences, as it does here.
measure diff "0 2" "$cgmap" diff "$work/base" "$work/head" --max-file-size 4G
measure report 0 "$cgmap" report dead "$work/base" --max-file-size 4G
