#!/usr/bin/env bash
# demo.sh - the main job on an embedded default: build cgmap, start a
# throwaway PostgreSQL 15 cluster in a temporary folder, load
# fixtures/demo.sql, map it, and leave the documentation in a folder whose
# path is printed (default: out/demo in the checkout; or give a folder).
# The cluster is stopped and removed at the end, even on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-$root/out/demo}

bash scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc 2>/dev/null || echo 2)" --target cgmap

# shellcheck source=../tests/lib/pgtest.sh
. tests/lib/pgtest.sh
pgtest_start "track_functions = 'all'"
pgtest_psql -c "CREATE DATABASE demo" >/dev/null
pgtest_psql -d demo -f fixtures/demo.sql >/dev/null
# A little workload, so the runtime figures (pg_stat_user_functions) show.
pgtest_psql -d demo -c "SET client_min_messages = warning" -c "SELECT app.checkout('alice', 10)" -c "SELECT app.run_report('ab')" \
	-c "SELECT app.order_total('alice')" >/dev/null

rm -rf "$out"
"$root/build/release/cgmap" --dsn "dbname=demo" --out "$out"
echo
echo "cgmap demo: documentation of the demo database is in $out"
echo "            open $out/index.html in a browser"
