#!/usr/bin/env bash
# render_bench.sh [N | SNAPSHOT] - speed and memory of `cgmap render`: the
# HTML site (index, reports, one page and one graph per schema and per
# function) of the synthetic schema of N functions (default 10000,
# bench/gen_schema.sh, mapped offline with `cgmap --sql`), or of a given
# snapshot.  Prints the wall time, CPU time, peak memory, the size of the
# site (the bytes written, and the disk they take in whole blocks) and the
# command that reproduces it.  Target at 10,000 functions on a
# 2-core machine: at most 3 s and 60 MB (at 50,000: 20 s, 1 GB of memory).
# CGMAP_BENCH_LAYOUT=graphviz lays function graphs out with Graphviz
# (`--layout graphviz`) instead of cgmap's own layered layout.
#
# Then a second render into the same folder (the same snapshot bytes into
# an untouched site: nothing read or written, DIR/.cgmap-pages), and, for a
# synthetic schema, a render after 1% of the functions changed one of their
# callees (mapped again: only the function pages whose inputs changed are
# built, Graphviz graphs come from the layout cache, DIR/.cgmap-cache, and
# files whose bytes did not change are left alone), then the same into a
# copy of the site (new inodes and times, as a CI cache restores a folder:
# pages recognised by their bytes), each with its wall and
# CPU times, how many graphs Graphviz laid out, how many function pages it
# built again and how many files it rewrote.  Target: the second render at
# least 5 times faster than the first.  Renders read snapshots of any size
# (--max-file-size 0: the snapshot of 50,000 functions passes the default
# 256 MiB).
#
# For a synthetic schema, last, the whole default run `cgmap --sql FILE
# --out DIR` (map, snapshot, DOT and site) with the size of each part and
# the time of its stages, then the same run over the 1%-changed SQL into
# that folder, as a nightly job runs: the map parses again only the bodies
# that changed (DIR/.cgmap-cache/bodies, the parse cache), the site keeps
# what did not change (the model is at hand: no snapshot is read).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${CGMAP_BENCH_BUILD:-$root/build/release}
layout=${CGMAP_BENCH_LAYOUT:-cgmap}

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
	# Mapped from inside their folders: the source's name (the path as
	# given) is on every page, and a nightly run maps the same database.
	(cd "$work" && "$build/cgmap" --sql schema.sql --out "$work/map" --no-html --quiet)
	snapshot=$work/map/cgmap.json
	# 1% of the functions (every 100th, fN) call bench.f(N-1) instead of
	# their first callee.
	awk '/^CREATE FUNCTION bench\.f[0-9]+\(/ {
		n = substr($3, 8, 5) + 0; change = n > 1 && n % 100 == 0; print; next }
	     change && /bench\.f[0-9][0-9][0-9][0-9][0-9]\(/ {
		sub(/bench\.f[0-9][0-9][0-9][0-9][0-9]\(/, sprintf("bench.f%05d(", n - 1)); change = 0 }
	     { print }' "$work/schema.sql" >"$work/changed-schema.sql"
	mkdir "$work/changed"
	mv "$work/changed-schema.sql" "$work/changed/schema.sql"
	(cd "$work/changed" && "$build/cgmap" --sql schema.sql --out "$work/map2" --no-html --quiet)
	changed=$work/map2/cgmap.json
	what="synthetic schema of $arg functions (bench/gen_schema.sh)"
fi

load_before=$(cut -d' ' -f1 /proc/loadavg)
/usr/bin/time -v "$build/cgmap" render "$snapshot" --out "$work/site" --layout "$layout" --max-file-size 0 --quiet 2>"$work/time.txt" || {
	cat "$work/time.txt" >&2
	exit 1
}
# Wall times to the hundredth, as time(1) gives them: a ratio of rounded
# tenths said 0.0x for a 0.04 s render.
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
	for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$work/time.txt")
user=$(awk -F': ' '/User time/ { print $2 }' "$work/time.txt")
sys=$(awk -F': ' '/System time/ { print $2 }' "$work/time.txt")
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time.txt")
pages=$(find "$work/site" -name '*.html' | wc -l)
graphs=$(find "$work/site/schemas" "$work/site/functions" -name '*.html' | wc -l)
# Bytes written (MB of 10^6), and the disk space they take (MiB of whole
# blocks: a 6 KB page takes 8 KiB on most file systems).
bytes_mb() { du -sb --apparent-size "$@" | awk '{ s += $1 } END { printf "%.1f", s / 1e6 }'; }
size=$(bytes_mb --exclude=.cgmap-cache --exclude=.cgmap-pages "$work/site")
disk=$(du -sm --exclude=.cgmap-cache "$work/site" | cut -f1)
functions=$(find "$work/site/functions" -name '*.html' | wc -l)

echo "render_bench: $what"
echo "  functions:    $functions"
echo "  layout:       function graphs by $layout, schema overviews by Graphviz"
echo "  pages:        $pages ($graphs with a graph), ${size} MB written (target at 10,000 functions: 60 MB), ${disk} MiB on disk"
echo "  wall time:    ${wall} s (target at 10,000 functions: 3 s)"
echo "  cpu time:     ${user} s user + ${sys} s system, on $(nproc) cores"
echo "  peak memory:  ${rss} MB (largest process: reading the snapshot is shared by the workers)"
echo "  load average: $load_before before the run (other work on the machine slows the wall time)"

# One more render into a folder ($3, default the first render's): $1 the
# snapshot, $2 its name.
again() {
	local dir=${3:-$work/site}
	touch "$work/mark"
	sleep 0.01
	# Not quiet: render's own line says how many function pages it kept.
	/usr/bin/time -v "$build/cgmap" render "$1" --out "$dir" --layout "$layout" --max-file-size 0 2>"$work/time2.txt" || {
		cat "$work/time2.txt" >&2
		exit 1
	}
	local w u s laid
	w=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$work/time2.txt")
	u=$(awk -F': ' '/User time/ { print $2 }' "$work/time2.txt")
	s=$(awk -F': ' '/System time/ { print $2 }' "$work/time2.txt")
	laid=$(find "$dir/.cgmap-cache" -name '*.svg' -newer "$work/mark" | wc -l)
	rewritten=$(find "$dir" -path "$dir/.cgmap-cache" -prune -o -type f -newer "$work/mark" -print | wc -l)
	echo "  $2"
	echo "    wall time:  ${w} s ($(awk -v a="$wall" -v b="$w" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x faster than the first)"
	echo "    cpu time:   ${u} s user + ${s} s system ($(awk -v a="$user" -v b="$sys" -v c="$u" -v d="$s" 'BEGIN { printf "%.1f", (c + d > 0 ? (a + b) / (c + d) : 0) }')x less)"
	echo "    laid out:   $laid graphs by Graphviz (cache entries written)"
	echo "    rewritten:  $rewritten files (the others already held their bytes)"
	local kept
	kept=$(sed -n 's/.*; \([0-9]* of [0-9]* function pages unchanged, [0-9]* rebuilt\)$/\1/p' "$work/time2.txt")
	if grep -q 'nothing to write' "$work/time2.txt"; then
		kept="none built: the folder already held this snapshot's site"
	fi
	echo "    pages:      ${kept:-every function page built again (no page records were of use)}"
}
echo "  layout cache: $(find "$work/site/.cgmap-cache" -name '*.svg' | wc -l) entries, $(du -sm "$work/site/.cgmap-cache" | cut -f1) MB"
again "$snapshot" "second render, same snapshot, same folder (target: at least 5x faster)"
if [ -n "${changed:-}" ]; then
	# The folder as a CI cache or an archive gives it back: every file
	# with a new inode and time (pages are then recognised by their bytes).
	cp -R "$work/site" "$work/site-restored"
	again "$changed" "render after 1% of the functions changed a callee"
	again "$changed" "the same, into a copy of the first site (as a CI cache restores it)" "$work/site-restored"
fi
if [ -f "$work/schema.sql" ]; then
	rm -rf "$work/full"
	(cd "$work" && /usr/bin/time -v "$build/cgmap" --sql schema.sql --out "$work/full" --layout "$layout" \
		--timing --quiet 2>"$work/time3.txt") || {
		cat "$work/time3.txt" >&2
		exit 1
	}
	fw=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$work/time3.txt")
	fu=$(awk -F': ' '/User time/ { print $2 }' "$work/time3.txt")
	fs=$(awk -F': ' '/System time/ { print $2 }' "$work/time3.txt")
	frss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time3.txt")
	snap=$(bytes_mb "$work/full"/cgmap.json*)
	dotsize=$(bytes_mb "$work/full/callgraph.dot")
	all=$(bytes_mb --exclude=.cgmap-cache --exclude=.cgmap-pages "$work/full")
	sitesize=$(awk -v a="$all" -v b="$snap" -v c="$dotsize" 'BEGIN { printf "%.1f", a - b - c }')
	echo "  whole default run, cgmap --sql FILE --out DIR (SQL files, no server)"
	echo "    wall time:  ${fw} s, cpu ${fu} s user + ${fs} s system, peak memory ${frss} MB"
	echo "    output:     ${all} MB written: snapshot ${snap} MB, callgraph.dot ${dotsize} MB, site ${sitesize} MB"
	# Stage times from --timing: the map's (catalog, parse, resolve, ...)
	# and the site's.
	stages() {
		awk '/^stage / { if ($2 == "html") h = $3; else m += $3 }
		     END { printf "map stages %.2f s, site %.2f s", m, h }' "$1"
	}
	echo "      stages:   $(stages "$work/time3.txt")"
	# The nightly job: the whole run again into the same folder, over the
	# SQL with 1% of the functions changed.  The map parses the changed
	# bodies only (the parse cache); the site's pages come from its page
	# records and layout cache.
	(cd "$work/changed" && /usr/bin/time -v "$build/cgmap" --sql schema.sql --out "$work/full" \
		--layout "$layout" --timing --quiet 2>"$work/time4.txt") || {
		cat "$work/time4.txt" >&2
		exit 1
	}
	nw=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$work/time4.txt")
	site1=$(awk '/^stage html/ { print $3 }' "$work/time3.txt")
	site2=$(awk '/^stage html/ { print $3 }' "$work/time4.txt")
	echo "  whole default run again, same folder, after 1% of the functions changed a callee"
	echo "    wall time:  ${nw} s ($(awk -v a="$fw" -v b="$nw" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x faster than the first run)"
	echo "      stages:   $(stages "$work/time4.txt") ($(awk -v a="$site1" -v b="$site2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x faster than the first run's site)"
	echo "      pages:    $(sed -n 's/^stage html.*(\([0-9]* of [0-9]*\) function pages.*/\1 function pages unchanged/p' "$work/time4.txt")"
	echo "      bodies:   $(sed -n 's/^stage resolve.*(\([0-9]* of [0-9]*\) bodies.*/\1 from the parse cache/p' "$work/time4.txt")"
fi
echo "  reproduce:    bash bench/render_bench.sh $arg"
