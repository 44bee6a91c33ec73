#!/usr/bin/env bash
# demo.sh - the main job on an embedded default: build cgmap, start a
# throwaway PostgreSQL 15 cluster in a temporary folder, load
# fixtures/demo.sql, run a small workload, map it, and leave the
# documentation in a folder whose path is printed (default: out/demo in the
# checkout; or give a folder).  As root, the cgmap_trace extension is built,
# installed and preloaded, so the documentation shows the calls observed at
# runtime (EXECUTE targets included) next to the static ones.  The cluster is
# stopped and removed at the end, even on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-$root/out/demo}

bash scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc 2>/dev/null || echo 2)" --target cgmap

conf=("track_functions = 'all'")
if [ "$(id -u)" = 0 ] && bash extension/cgmap_trace/build.sh build/release/cgmap_trace >/dev/null 2>&1 &&
	bash extension/cgmap_trace/install.sh build/release/cgmap_trace >/dev/null 2>&1; then
	conf+=("shared_preload_libraries = 'cgmap_trace'")
	trace=1
else
	echo "demo: the cgmap_trace extension is not installed (needs root); runtime data comes from pg_stat_user_functions only"
	trace=0
fi

# shellcheck source=../tests/lib/pgtest.sh
. tests/lib/pgtest.sh
pgtest_start "${conf[@]}"
pgtest_psql -c "CREATE DATABASE demo" >/dev/null
pgtest_psql -d demo -f fixtures/demo.sql >/dev/null
if [ "$trace" = 1 ]; then
	pgtest_psql -d demo -c "CREATE EXTENSION cgmap_trace" >/dev/null
fi
# A little workload, so the runtime figures show.
pgtest_psql -d demo -c "SET client_min_messages = warning" \
	-c "SELECT app.checkout('alice', 10)" -c "SELECT app.run_report('ab')" \
	-c "SELECT app.order_total('alice')" -c "CALL app.nightly_batch(2)" >/dev/null

rm -rf "$out"
"$root/build/release/cgmap" --dsn "dbname=demo" --out "$out"
echo
echo "cgmap demo: documentation of the demo database is in $out"
echo "            open $out/index.html in a browser"
