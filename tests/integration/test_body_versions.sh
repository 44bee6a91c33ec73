#!/usr/bin/env bash
# Bodies that changed, against a real PostgreSQL 15 with cgmap_trace (built by
# this checkout, in a private installation tree: tests/lib/pgext.sh):
#  - cgmap_trace 1.2 records with each edge the version of the caller's body
#    (caller_body), the same hash cgmap computes of the mapped body, and
#    keeps the edges of one site seen against two bodies apart, also across
#    a restart;
#  - a function observed, then replaced with a line inserted above its call
#    (which moves to another line inside the body; a dynamic EXECUTE now
#    stands on the old line): the call lands on its static edge, marked as
#    observed against an earlier body, not on the EXECUTE and not
#    unexplained;
#  - a call the replaced body no longer makes: cause "changed body", never
#    "unknown" or "dynamic SQL"; the same from a `cgmap collect` file;
#  - an extension created at 1.1 still works with this library (no
#    caller_body: unknown, lines decide) and ALTER EXTENSION cgmap_trace
#    UPDATE takes it to 1.2;
#  - a table saved by a library before 1.2 (file format 2) loads, with
#    unknown versions.
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

step() { echo "--- $*"; }
pgext_trace_test bodyver jq

pgtest_start "shared_preload_libraries = 'cgmap_trace'"
trap 'pgtest_stop; rm -rf "$work"' EXIT

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
expect_eq() {
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}
q() { pgtest_psql "$@" 2>&1 || true; }
# The edge FROM -> TO of a snapshot as "via static observed earlier_body cause lines"
edge() {
	jq -r --arg f "$2" --arg t "$3" '
	  [.edges[] | select(.from == $f and .to == $t)
	   | "\(.via) \(.static) \(.observed) \(.earlier_body // false) \(.cause // "-") \(.lines | map(tostring) | join(","))"]
	  | join("; ")' "$1"
}

step "schema, observed with its first body"
pgtest_psql -c "CREATE DATABASE bv" >/dev/null
pgtest_psql -d bv <<'SQL' >/dev/null
CREATE EXTENSION cgmap_trace;
CREATE SCHEMA b;
CREATE FUNCTION b.leaf() RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE FUNCTION b.gone() RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE FUNCTION b.caller() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE DEBUG 'first body';
  PERFORM b.leaf();
  PERFORM b.gone();
END
$$;
SELECT cgmap_trace_reset();
SELECT b.caller();
SELECT b.caller();
SQL
first=$(q -d bv -c "SELECT caller_body FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure")
expect_eq "the edge holds a body version" "16" "${#first}"

step "replaced: a line above, the call moved, an EXECUTE on its old line, b.gone() no longer called"
pgtest_psql -d bv <<'SQL' >/dev/null
CREATE OR REPLACE FUNCTION b.caller() RETURNS void LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
  EXECUTE format('SELECT %s', 1) INTO n;
  n := n + 1;
  PERFORM b.leaf();
END
$$;
SELECT b.caller();
SQL
expect_eq "one site seen against two bodies: two edges (lines, calls)" "4 2|6 1" \
	"$(q -d bv -c "SELECT string_agg(site_line || ' ' || calls, '|' ORDER BY site_line)
	               FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure")"
expect_eq "the old edge keeps the first body's version" "$first" \
	"$(q -d bv -c "SELECT caller_body FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure AND site_line = 4")"
pgtest_restart
expect_eq "versions survive a restart" "2|2" \
	"$(q -d bv -c "SELECT count(*) || '|' || count(DISTINCT caller_body) FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure")"

step "map: by callee, not by line"
"$CGMAP" --dsn "dbname=bv" --no-html --snapshot-format 1 --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; pgtest_fail "map failed"; }
snap="$work/live/cgmap.json"
expect_eq "cgmap's version of the mapped body is the extension's" \
	"$(q -d bv -c "SELECT caller_body FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure AND site_line = 6")" \
	"$(jq -r '.functions[] | select(.id == "b.caller()") | .body_version' "$snap")"
expect_eq "the moved call is its static edge, observed against an earlier body (not the EXECUTE's)" \
	"call true true true - 6" "$(edge "$snap" "b.caller()" "b.leaf()")"
expect_eq "the edge keeps both versions it was seen against" "2" \
	"$(jq '.edges[] | select(.from == "b.caller()" and .to == "b.leaf()") | .caller_bodies | length' "$snap")"
expect_eq "the call no longer made: changed body, not unknown" \
	"call false true true changed body " "$(edge "$snap" "b.caller()" "b.gone()")"
"$CGMAP" report unexplained "$work/live" >"$work/unexplained.txt"
grep -qF "b.caller() -> b.gone() lines - calls 2: observed at runtime, not a static call: likely a body replaced since it was observed" "$work/unexplained.txt" ||
	{ cat "$work/unexplained.txt" >&2; fail "unexplained report does not say changed body"; }
if grep -qF "b.leaf()" "$work/unexplained.txt"; then
	fail "the moved call is reported unexplained"
fi
"$CGMAP" report edges "$work/live" >"$work/edges.txt"
grep -qxF "b.caller() -> b.leaf() via call both lines 6 calls 3 (observed against an earlier body of the caller)" "$work/edges.txt" ||
	{ cat "$work/edges.txt" >&2; fail "edges report does not mark the earlier body"; }

step "the same from a collect file"
"$CGMAP" collect --dsn "dbname=bv" -o "$work/bv.json" 2>/dev/null
expect_eq "the file holds the versions" "$first" \
	"$(jq -r '.edges[] | select(.callee == "b.gone()") | .caller_body' "$work/bv.json")"
"$CGMAP" --dsn "dbname=bv" --no-runtime --runtime "$work/bv.json" --no-html --snapshot-format 1 --out "$work/file" \
	2>"$work/file.err" || { cat "$work/file.err" >&2; pgtest_fail "map with the file failed"; }
expect_eq "file: moved call on its static edge" "call true true true - 6" \
	"$(edge "$work/file/cgmap.json" "b.caller()" "b.leaf()")"
expect_eq "file: changed body" "call false true true changed body " \
	"$(edge "$work/file/cgmap.json" "b.caller()" "b.gone()")"

step "extension 1.1 with this library, then ALTER EXTENSION UPDATE to 1.2"
pgtest_psql -c "CREATE DATABASE old11" >/dev/null
pgtest_psql -d old11 <<'SQL' >/dev/null
CREATE EXTENSION cgmap_trace VERSION '1.1';
CREATE SCHEMA b;
CREATE FUNCTION b.leaf() RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE FUNCTION b.caller() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b.leaf();
END
$$;
SELECT b.caller();
SQL
expect_eq "1.1: the edges function has its 10 columns and works" "1.1|10|1" \
	"$(q -d old11 -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                        (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_edges') || '|' ||
	                        (SELECT sum(calls) FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure)")"
"$CGMAP" --dsn "dbname=old11" --no-html --snapshot-format 1 --out "$work/old11" 2>"$work/old11.err" ||
	{ cat "$work/old11.err" >&2; fail "map of a 1.1 server failed"; }
expect_eq "1.1: no version, the line decides" "call true true false - 3" \
	"$(edge "$work/old11/cgmap.json" "b.caller()" "b.leaf()")"
"$CGMAP" collect --dsn "dbname=old11" -o "$work/old11.json" 2>/dev/null
expect_eq "1.1: a collect file without versions" "0" \
	"$(jq '[.edges[] | select(has("caller_body"))] | length' "$work/old11.json")"
expect_eq "ALTER EXTENSION cgmap_trace UPDATE TO 1.2: caller_body" "1.2|11|1|true" \
	"$(q -d old11 -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.2'" \
	                -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                        (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_edges') || '|' ||
	                        (SELECT sum(calls) FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure) || '|' ||
	                        (SELECT bool_and(caller_body ~ '^[0-9a-f]{16}$') FROM cgmap_trace_edges WHERE callee = 'b.leaf()'::regprocedure)" | tail -n 1)"
expect_eq "1.2: the view is readable by any role" "t" \
	"$(q -d old11 -c "SELECT has_table_privilege('public', 'cgmap_trace_edges', 'SELECT')")"

step "a table saved before 1.2 (file format 2, keys without versions) still loads"
dbid=$(q -c "SELECT oid FROM pg_database WHERE datname = 'bv'")
caller=$(q -d bv -c "SELECT 'b.caller()'::regprocedure::oid")
leaf=$(q -d bv -c "SELECT 'b.leaf()'::regprocedure::oid")
pgtest_as_owner "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -m fast -w stop >/dev/null
# header (magic "CGMT", format 2), since, dropped, the four policy counters,
# one edge: key (dbid, caller, callee, line, dynamic, padding) and counters
# (calls, total_ms, self_ms, first_seen, last_seen), in the server's byte order
ts=$(( ($(date +%s) - 946684800) * 1000000 ))
perl -e 'print pack("LLqQQQQQl", 0x43474d54, 2, $ARGV[3], 0, 1, 2, 3, 4, 1),
               pack("LLLlCx3", $ARGV[0], $ARGV[1], $ARGV[2], 4, 0),
               pack("qddqq", 5, 1.5, 0.5, $ARGV[3], $ARGV[3])' \
	"$dbid" "$caller" "$leaf" "$ts" >"$work/v2.stat"
install -m 600 -o "$(stat -c %u "$PGTEST_DIR/data")" "$work/v2.stat" "$PGTEST_DIR/data/pg_stat/cgmap_trace.stat"
pgtest_server_start
expect_eq "format 2: its edge is back, version unknown" "4|5|true" \
	"$(q -d bv -c "SELECT site_line || '|' || calls || '|' || (caller_body IS NULL) FROM cgmap_trace_edges")"
expect_eq "format 2: its counters are back" "1|2|3|4" \
	"$(q -d bv -c "SELECT evictions || '|' || evicted_calls || '|' || temp_skipped || '|' || stale_removed FROM cgmap_trace_info()")"
if grep -q "cgmap_trace: ignoring invalid file" "$PGTEST_DIR/server.log"; then
	fail "the format 2 file was called invalid"
fi

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "PASS"
