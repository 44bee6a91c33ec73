#!/usr/bin/env bash
# bench/pgtap_verdicts.sh - the runtime verdicts of cgmap on pgTAP with its
# own test suite as the workload.
#
# usage: bench/pgtap_verdicts.sh PGTAP_TREE TRACK CGMAP [CGMAP...]
#   PGTAP_TREE  a pgTAP source tree (its test/sql/*.sql are the workload);
#               the pgtap extension must be installed in PostgreSQL 15
#   TRACK       cgmap_trace.track: plpgsql or all
#   CGMAP       one or more cgmap binaries (e.g. an older build, then this
#               one): each maps the same database after the same workload
#
# Starts its own throwaway PostgreSQL 15 cluster (tests/lib/pgtest.sh) with
# cgmap_trace built by this checkout in a private installation tree
# (tests/lib/pgext.sh), track_functions = 'all', runs every test file through
# psql, then prints for each binary the summary lines of a mapping run
# (evidence, edges, dynamic sites, verdicts) with the default thresholds and
# with --min-window 0 (a test run lasts minutes, not the default hour), and
# the unexplained edges by cause.  Environment: KEEP=DIR keeps the outputs.
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 PGTAP_TREE TRACK CGMAP [CGMAP...]" >&2
	exit 2
fi
tree=$(cd "$1" && pwd)
track=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=tests/lib/pgext.sh
. "$root/tests/lib/pgext.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-pgtap.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
"$root/extension/cgmap_trace/build.sh" "$work/build" >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log" >&2; exit 1; }
pgext_tree "$work/tree" "$work/build"
pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = '$track'" \
	"track_functions = 'all'" "max_locks_per_transaction = 256"
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE tap" >/dev/null
pgtest_psql -d tap -c "CREATE EXTENSION cgmap_trace" -c "CREATE EXTENSION pgtap" >/dev/null
# The window starts after the install: calls CREATE EXTENSION made are no
# part of the workload.
pgtest_psql -d tap -c "SELECT cgmap_trace_reset(), pg_stat_reset()" >/dev/null
# the server's user reads the test files
copy="$work/pgtap"
mkdir -p "$copy"
cp -R "$tree/test" "$copy/"
chmod -R a+rX "$copy"
start=$(date +%s)
(cd "$copy" && for f in test/sql/*.sql; do pgtest_psql -d tap -X -q -f "$f" >/dev/null 2>&1 || true; done)
echo "track = $track; workload: $(($(date +%s) - start)) s"
n=0
for cgmap in "$@"; do
	n=$((n + 1))
	for min in default 0; do
		out="$work/out-$n-$min"
		extra=()
		[ "$min" = 0 ] && extra=(--min-window 0)
		"$cgmap" --dsn "dbname=tap" --include-extensions --no-html --out "$out" \
			"${extra[@]}" 2>"$out.err" || true
		echo "== $cgmap ($([ "$min" = 0 ] && echo "--min-window 0" || echo "default thresholds"))"
		grep -E '^cgmap: (evidence|[0-9]+ (edges|dynamic|functions)|never called|runtime edges|[0-9]+ runtime edges)' "$out.err" || true
		if [ -f "$out/cgmap.json" ] && command -v jq >/dev/null; then
			jq -r '[.edges[] | select(.observed and (.static | not) and .via != "dynamic")
			        | (.cause // "unclassified")] | group_by(.) | map("\(.[0]): \(length)")
			        | "unexplained by cause: " + (if length == 0 then "none" else join(", ") end)' \
				"$out/cgmap.json"
		fi
	done
done
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	cp -R "$work"/out-* "$KEEP"/
fi
