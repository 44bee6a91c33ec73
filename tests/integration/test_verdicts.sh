#!/usr/bin/env bash
# Verdicts and counts against a real PostgreSQL 15 with cgmap_trace (built by
# this checkout, in a private installation tree: tests/lib/pgext.sh), in
# both cgmap_trace.track modes, on fixtures/verdicts:
#  - an empty window: collect warns, nothing is dead;
#  - calls that end in an error are counted (the tracer's figure wins);
#  - an SQL function is untraceable under track = plpgsql, dead under all;
#  - an aggregate is alive through its transition function;
#  - a call in a multi-line EXECUTE's arguments lands on its static edge;
#  - a function only a dynamic site can name is dynamic-reachable, a
#    DROP TABLE template is not an unseen dynamic site, and a site that ran
#    without calling a function (cgmap_trace 1.4) is not unseen either;
#  - the FETCH and MOVE of a cursor the function does not open (a refcursor
#    parameter, one a call returned) are dynamic sites, where the calls of
#    the query opened elsewhere are seen;
#  - collect --since: the calls after an earlier collect only.
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
fx="$root/fixtures/verdicts"
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

step() { echo "--- $*"; }
pgext_trace_test verdicts

LIVE="--min-window 0 --min-calls 1"

for track in plpgsql all; do
	step "track = $track"
	pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = '$track'" \
		"track_functions = 'all'"
	trap 'pgtest_stop; rm -rf "$work"' EXIT
	pgtest_psql -c "CREATE DATABASE vt" >/dev/null
	pgtest_psql -d vt -c "CREATE EXTENSION cgmap_trace" -f "$fx/schema.sql" >/dev/null
	pgtest_psql -d vt -c "SELECT cgmap_trace_reset()" -c "SELECT pg_stat_reset()" >/dev/null

	# Nothing has run: collect says so, and nothing is dead.
	"$CGMAP" collect --dsn "dbname=vt" -o "$work/empty.json" 2>"$work/empty.err"
	pgtest_expect_grep "empty window warned" "$work/empty.err" "the window holds no call at all"
	"$CGMAP" --dsn "dbname=vt" --no-html $LIVE --out "$work/empty" 2>"$work/empty-map.err"
	pgtest_expect_grep "empty window: nothing dead" "$work/empty-map.err" "roots, 0 dead, 0 cold;"
	"$CGMAP" report functions "$work/empty" >"$work/empty-functions.txt"
	pgtest_expect_line "empty window: unobserved" "$work/empty-functions.txt" "v.unused() unobserved calls 0"

	pgtest_psql -d vt -X -q -f "$fx/workload.sql" >/dev/null 2>&1 || true
	for _ in $(seq 1 50); do
		n=$(pgtest_psql -d vt -c "SELECT count(*) FROM pg_stat_user_functions")
		[ "$n" -ge 4 ] && break
		sleep 0.2
	done
	"$CGMAP" --dsn "dbname=vt" --no-html $LIVE --out "$work/$track" 2>"$work/$track.err" ||
		{ cat "$work/$track.err" >&2; pgtest_fail "map failed"; }
	"$CGMAP" report functions "$work/$track" >"$work/$track-functions.txt"
	f="$work/$track-functions.txt"
	# Every extension, but never cgmap_trace's own functions (the mapper's
	# reads are no calls of the schema, and nobody else calls them).
	"$CGMAP" --dsn "dbname=vt" --no-html $LIVE --include-extensions --out "$work/$track-ext" \
		2>"$work/$track-ext.err" || { cat "$work/$track-ext.err" >&2; pgtest_fail "map failed"; }
	if "$CGMAP" report functions "$work/$track-ext" | grep 'cgmap_trace'; then
		pgtest_fail "cgmap_trace's own functions mapped with --include-extensions ($track)"
	fi
	cmp -s <("$CGMAP" report functions "$work/$track-ext") "$f" ||
		pgtest_fail "--include-extensions changed the map of a database without other extensions ($track)"
	pgtest_expect_line "error-ending calls counted ($track)" "$f" "v.reject() called root entry referenced calls 2"
	pgtest_expect_line "never called: dead ($track)" "$f" "v.unused() dead calls 0"
	pgtest_expect_line "dynamic-reachable ($track)" "$f" "v.handler_b() dynamic-reachable calls 0"
	pgtest_expect_line "called through a dynamic site ($track)" "$f" "v.handler_a() called calls 3"
	pgtest_expect_line "aggregate alive through its transition ($track)" "$f" \
		"v.acc(integer,integer) called root entry referenced calls 3"
	if grep -q '^v.total(integer) dead' "$f"; then
		cat "$f" >&2
		pgtest_fail "an aggregate whose transition ran is called dead ($track)"
	fi
	if [ "$track" = plpgsql ]; then
		pgtest_expect_line "SQL function untraceable" "$f" "v.unused_sql(integer) untraceable calls 0"
	else
		pgtest_expect_line "SQL function traced" "$f" "v.unused_sql(integer) dead calls 0"
	fi
	"$CGMAP" report edges "$work/$track" >"$work/$track-edges.txt"
	pgtest_expect_line "multi-line EXECUTE: a static call ($track)" "$work/$track-edges.txt" \
		"v.main(text) -> v.arg() via call both lines 8 calls 3"
	if grep -q '^v.main(text) -> v.arg() via dynamic' "$work/$track-edges.txt"; then
		cat "$work/$track-edges.txt" >&2
		pgtest_fail "the EXECUTE's own argument counted as dynamic SQL ($track)"
	fi
	pgtest_expect_grep "DROP TABLE template not unseen, a site that ran told from one that never did ($track)" \
		"$work/$track.err" \
		"dynamic sites: 4 observed, 1 ran without a call, 1 unseen, 1 that can call no user function"
	pgtest_expect_grep "nothing unexplained ($track)" "$work/$track.err" "observed only (0 unexplained)"
	"$CGMAP" report dynamic "$work/$track" >"$work/$track-dynamic.txt"
	pgtest_expect_grep "a refcursor parameter's FETCH, observed ($track)" "$work/$track-dynamic.txt" \
		"v.first_of(refcursor) line 5: dynamic, observed -> v.val()"
	pgtest_expect_grep "and its MOVE ($track)" "$work/$track-dynamic.txt" \
		"v.first_of(refcursor) line 6: dynamic, observed -> v.val()"
	pgtest_expect_grep "a cursor a call opened ($track)" "$work/$track-dynamic.txt" \
		"v.reader() line 7: dynamic, observed -> v.val()"
	pgtest_expect_grep "the site that ran, with its runs ($track)" "$work/$track-dynamic.txt" \
		"v.count_of(text) line 5: dynamic, ran 2 times without calling a user function: EXECUTE 'SELECT count(*) FROM ' || tbl"
	pgtest_expect_grep "the site that never ran ($track)" "$work/$track-dynamic.txt" \
		"v.never_run(text) line 5: unseen dynamic site: EXECUTE"
	pgtest_expect_grep "the DROP TABLE template ($track)" "$work/$track-dynamic.txt" \
		"v.main(text) line 10: dynamic site that can call no user function: EXECUTE 'DROP TABLE IF EXISTS '"
	"$CGMAP" render "$work/$track" --out "$work/$track-site" --quiet
	pgtest_expect_grep "the site's dynamic report, in the summary's terms ($track)" \
		"$work/$track-site/index.html" \
		"7 dynamic EXECUTE sites: 4 seen at runtime, 1 that can call no user function, 1 ran without calling one, 1 never seen."
	pgtest_expect_grep "a function page says the site ran ($track)" \
		"$(grep -l 'v.count_of' "$work/$track-site"/functions/*.html | head -1)" \
		"ran 2 times, calling no user function"

	# A delta against an earlier collect: one more run of the workload.
	"$CGMAP" collect --dsn "dbname=vt" -o "$work/before.json" 2>/dev/null
	pgtest_psql -d vt -c "SELECT v.main('a')" -c "SELECT v.count_of('v.t')" >/dev/null
	"$CGMAP" collect --dsn "dbname=vt" --since "$work/before.json" -o "$work/delta.json" 2>/dev/null
	pgtest_expect_grep "delta: one call of v.main" "$work/delta.json" '"callee": "v.main(text)", "site_line": null, "dynamic": false, "calls": 1,'
	pgtest_expect_grep "before: the two runs of v.count_of's EXECUTE" "$work/before.json" '"function": "v.count_of(text)", "site_line": 5,'
	# The file's runs land on the SQL file's map as on the live one's.
	"$CGMAP" --sql "$fx/schema.sql" --runtime "$work/before.json" --no-html $LIVE --out "$work/$track-file" \
		2>"$work/$track-file.err" || { cat "$work/$track-file.err" >&2; pgtest_fail "map --runtime failed"; }
	pgtest_expect_grep "runs read from a runtime file ($track)" "$work/$track-file.err" \
		"dynamic sites: 4 observed, 1 ran without a call, 1 unseen, 1 that can call no user function"
	grep -F '"function": "v.count_of(text)", "site_line": 5,' "$work/delta.json" | grep -qF '"runs": 1}' ||
		{ cat "$work/delta.json" >&2; pgtest_fail "delta: one run of v.count_of's EXECUTE"; }
	if grep -qF '"callee": "v.reject()"' "$work/delta.json"; then
		pgtest_fail "delta holds calls made before the earlier collect"
	fi
	pgtest_stop
	trap 'rm -rf "$work"' EXIT
done
echo "PASS"
