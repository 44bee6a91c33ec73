#!/usr/bin/env bash
# bench/suite_verdicts.sh - cgmap's map and runtime verdicts on a real code
# base with its own test suite as the workload, PostgreSQL as the truth.
#
# usage: bench/suite_verdicts.sh [options] TREE
#   TREE              the project's source tree (files are named relative to it)
#   --db NAME         the database's name (default: suite)
#   --extension NAME  CREATE EXTENSION NAME CASCADE before loading (repeatable)
#   --before SQL      a statement run before loading (repeatable), e.g.
#                     'CREATE ROLE app_owner' 
#   --load FILE       a SQL file (or a glob, in name order) loaded with psql
#                     into the database, in the order given (repeatable)
#   --workload GLOB   the test files run with psql after a reset of the
#                     traced figures and of the database's statistics
#                     counters, each in its own session (repeatable)
#   --setting 'k = v' one more server setting (repeatable), e.g.
#                     "plperl.on_init = 'use JSON::XS;'"
#   --psql-var k=v    a psql variable for the loading and the tests
#   --extension-code  the project is an extension: map with
#                     --include-extensions
#   --cgmap BIN       the cgmap binary (default: build/release/cgmap)
#   --keep DIR        keep the logs of loading and of the workload and the
#                     live map (DIR/live, with its cgmap.json) in DIR
#
# Starts a throwaway PostgreSQL 15 cluster (tests/lib/pgtest.sh) with
# cgmap_trace built by this checkout (tests/lib/pgext.sh) preloaded,
# cgmap_trace.track = all and track_functions = all; loads the schema,
# runs the workload (errors in it are counted, not fatal: a test suite is
# a workload, not a gate), then maps the database with --min-window 0 and
# (for an extension's own code) --include-extensions, and prints cgmap's summary, the TAP results, and
# the static map of the loaded files compared with the database's
# (the same functions and call edges, or the differences).
#
# Example: periods (its git tree; the Debian package postgresql-15-periods
# installed), its regression tests in their Makefile's order:
#   bench/suite_verdicts.sh --db periods --extension-code $(for t in install periods \
#     system_time_periods system_versioning excluded_columns unique_foreign \
#     for_portion_of predicates drop_protection rename_following \
#     health_checks acl issues beeswax; do echo --workload sql/$t.sql; done) TREE
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
given="$*"
db=suite cgmap=$root/build/release/cgmap keep=
include=() extensions=() befores=() loads=() workloads=() settings=() vars=()
while [ $# -gt 1 ]; do
	case $1 in
	--db) db=$2; shift 2 ;;
	--extension) extensions+=("$2"); shift 2 ;;
	--before) befores+=("$2"); shift 2 ;;
	--load) loads+=("$2"); shift 2 ;;
	--workload) workloads+=("$2"); shift 2 ;;
	--setting) settings+=("$2"); shift 2 ;;
	--psql-var) vars+=(-v "$2"); shift 2 ;;
	--extension-code) include=(--include-extensions); shift ;;
	--cgmap) cgmap=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "suite_verdicts: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -eq 1 ] && [ -d "$1" ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
tree=$(cd "$1" && pwd)
command -v jq >/dev/null || { echo "suite_verdicts: needs jq" >&2; exit 1; }
# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=tests/lib/pgext.sh
. "$root/tests/lib/pgext.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-suite.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
"$root/extension/cgmap_trace/build.sh" "$work/build" >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log" >&2; exit 1; }
pgext_tree "$work/tree" "$work/build"
pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = 'all'" \
	"track_functions = 'all'" "max_locks_per_transaction = 256" ${settings[@]+"${settings[@]}"}
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE \"$db\"" >/dev/null
# In a schema of its own: a project's script may drop and create public
# (PostgREST's fixtures do), which would drop the extension with it.
pgtest_psql -d "$db" -c "CREATE SCHEMA cgmap_trace" -c "CREATE EXTENSION cgmap_trace SCHEMA cgmap_trace" >/dev/null
for x in ${extensions[@]+"${extensions[@]}"}; do
	pgtest_psql -d "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION \"$x\" CASCADE" >/dev/null
done
for statement in ${befores[@]+"${befores[@]}"}; do
	pgtest_psql -d "$db" -c "$statement" >/dev/null
done
# The server's user reads the files.
cp -R "$tree" "$work/src"
chmod -R a+rX "$work/src"
cd "$work/src"
files=()
for pattern in ${loads[@]+"${loads[@]}"}; do
	for f in $pattern; do files+=("$f"); done
done
for f in ${files[@]+"${files[@]}"}; do
	pgtest_psql -d "$db" -v ON_ERROR_STOP=0 ${vars[@]+"${vars[@]}"} -f "$f" >>"$work/load.log" 2>&1 || true
done
touch "$work/load.log"
echo "loaded: ${#files[@]} files, $(grep -c ERROR "$work/load.log" || true) errors"
# Both windows start here, as `cgmap collect --reset` starts them: calls
# made while loading (an extension's upgrade function run by CREATE
# EXTENSION) would otherwise count as calls in pg_stat_user_functions.
pgtest_psql -d "$db" -c "SELECT cgmap_trace.cgmap_trace_reset(), pg_stat_reset()" >/dev/null
start=$(date +%s)
ntests=0
for pattern in ${workloads[@]+"${workloads[@]}"}; do
	for t in $pattern; do
		ntests=$((ntests + 1))
		pgtest_psql -d "$db" -v ON_ERROR_STOP=0 ${vars[@]+"${vars[@]}"} -f "$t" >>"$work/tests.log" 2>&1 || true
	done
done
touch "$work/tests.log"
echo "workload: $ntests files in $(($(date +%s) - start)) s; TAP: $(grep -c '^ok' "$work/tests.log" || true) ok," \
	"$(grep -c '^not ok' "$work/tests.log" || true) not ok; $(grep -c 'ERROR' "$work/tests.log" || true) errors"
"$cgmap" --dsn "dbname=$db" ${include[@]+"${include[@]}"} --no-html --min-window 0 --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; exit 1; }
grep -E '^cgmap: ([0-9]+ (functions?|edges?|dynamic)|evidence|never called)' "$work/live.err" || true
jq -r '[.edges[] | select(.observed and (.static | not) and .via != "dynamic")
        | (.cause // "unclassified")] | group_by(.) | map("\(.[0]): \(length)")
        | "unexplained by cause: " + (if length == 0 then "none" else join(", ") end)' "$work/live/cgmap.json"
if [ ${#files[@]} -gt 0 ]; then
	# psql reads the files' includes wherever they lie: so does the map.
	"$cgmap" --sql "${files[@]}" --allow-include-outside ${include[@]+"${include[@]}"} --no-html \
		--out "$work/files" 2>"$work/files.err" || true
	if [ -f "$work/files/cgmap.json" ]; then
		"$cgmap" report edges "$work/files" | LC_ALL=C sort >"$work/files.edges"
		jq -r '.functions[].id' "$work/files/cgmap.json" | LC_ALL=C sort >"$work/files.ids"
		# The database's static edges of the functions the files define.
		"$cgmap" --dsn "dbname=$db" ${include[@]+"${include[@]}"} --no-html --no-runtime --out "$work/static" \
			2>/dev/null
		"$cgmap" report edges "$work/static" | LC_ALL=C sort |
			awk 'NR == FNR { mine[$0] = 1; next } { split($0, a, " -> ") } (a[1] in mine)' \
				"$work/files.ids" - >"$work/db.edges"
		# The database's functions the files do not define (an include
		# not read, a statement the map refused): their edges would be
		# compared with nothing.
		jq -r '.functions[].id' "$work/static/cgmap.json" | LC_ALL=C sort >"$work/db.ids"
		absent=$(LC_ALL=C comm -23 "$work/db.ids" "$work/files.ids" | wc -l)
		if [ "$absent" -gt 0 ]; then
			echo "files: $(wc -l <"$work/files.ids") functions; $absent of the database's $(wc -l <"$work/db.ids") are not in them:"
			LC_ALL=C comm -23 "$work/db.ids" "$work/files.ids" | head -20
		fi
		if diff "$work/db.edges" "$work/files.edges" >"$work/edges.diff"; then
			echo "files: $(wc -l <"$work/files.ids") functions, $(wc -l <"$work/files.edges") edges, as in the database"
		else
			echo "files: $(wc -l <"$work/files.ids") functions; edges differ from the database's (< database, > files):"
			head -20 "$work/edges.diff"
		fi
	fi
fi
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp -R "$work/load.log" "$work/tests.log" "$work/live" "$keep/"
	echo "kept: the logs and the live map in $keep"
fi
echo "reproduce: bash bench/suite_verdicts.sh $given"
