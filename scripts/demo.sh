#!/usr/bin/env bash
# demo.sh - the main job on an embedded default: build cgmap, start a
# throwaway PostgreSQL 15 cluster in a temporary folder, load
# fixtures/demo.sql, run a small workload, map it, and leave the
# documentation in a folder whose path is printed (default: out/demo in the
# checkout; or give a folder).  The cgmap_trace extension is built and
# installed into a private copy of the PostgreSQL installation tree
# (tests/lib/pgext.sh: the system installation is never written to) and
# preloaded, so the documentation shows the calls observed at runtime
# (EXECUTE targets included) next to the static ones.  The cluster and the
# tree are removed at the end, even on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-$root/out/demo}

bash scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCGMAP_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc 2>/dev/null || echo 2)" --target cgmap

# shellcheck source=../tests/lib/pgtest.sh
. tests/lib/pgtest.sh
# shellcheck source=../tests/lib/pgext.sh
. tests/lib/pgext.sh
tree=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-demo.XXXXXX")
chmod 755 "$tree"
trap 'rm -rf "$tree"' EXIT
conf=("track_functions = 'all'")
echo "demo: building cgmap_trace into a private copy of PostgreSQL's installation tree (the system PostgreSQL is not changed)"
if bash extension/cgmap_trace/build.sh "$tree/build" >/dev/null 2>&1 &&
	pgext_tree "$tree/tree" "$tree/build" >/dev/null 2>&1; then
	# One-second timeline buckets, so the few seconds of the workload below
	# show as a timeline, not one bar.
	conf+=("shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.bucket_seconds = 1")
	trace=1
else
	echo "demo: the cgmap_trace extension could not be built into a private tree; runtime data comes from pg_stat_user_functions only"
	trace=0
fi

pgtest_start "${conf[@]}"
trap 'pgtest_stop; rm -rf "$tree"' EXIT
pgtest_psql -c "CREATE DATABASE demo" >/dev/null
pgtest_psql -d demo -f fixtures/demo.sql >/dev/null
if [ "$trace" = 1 ]; then
	pgtest_psql -d demo -c "CREATE EXTENSION cgmap_trace" >/dev/null
fi
# A little workload, so the runtime figures show.
# A small workload over a few seconds: checkouts and reports of varying
# size, a pause, then the nightly batch, so the docs show an execution
# tree, a resource profile and a timeline with a gap in it.
echo "demo: running a workload for about 6 seconds"
for round in 1 2 3 4 5 6; do
	if [ "$round" = 4 ]; then
		sleep 1.2 # the pause: an empty interval in the timeline
		continue
	fi
	statements=(-c "SET client_min_messages = warning")
	for i in $(seq 1 "$round"); do
		statements+=(-c "SELECT app.checkout('alice', $((round * 10 + i)))")
	done
	statements+=(-c "SELECT app.run_report('ab')" -c "SELECT app.order_total('alice')")
	pgtest_psql -d demo "${statements[@]}" >/dev/null
	sleep 1.05
done
pgtest_psql -d demo -c "SET client_min_messages = warning" -c "CALL app.nightly_batch(3)" >/dev/null

rm -rf "$out"
# The demo's window lasts seconds and sees a few calls: below the default
# thresholds for calling a function dead (an hour, 100 calls).
"$root/build/release/cgmap" --dsn "dbname=demo" --min-window 0 --min-calls 1 --out "$out"
echo
echo "cgmap demo: documentation of the demo database is in $out"
echo "            open $out/index.html in a browser"
if [ "$trace" = 1 ]; then
	echo
	echo "where the time went (cgmap report profile $out/cgmap.json, the first lines):"
	"$root/build/release/cgmap" report profile "$out/cgmap.json" | head -n 8
fi
