#!/usr/bin/env bash
# cgmap_trace's call counts against PostgreSQL's own (pg_stat_user_functions),
# on a real PostgreSQL 15 with cgmap_trace (built by this checkout, in a
# private installation tree: tests/lib/pgext.sh), cgmap_trace.track = all
# and track_functions = all.
#  - Set-returning functions: a value-per-call SRF runs once per row and
#    once more for the end of its set; PostgreSQL counts one call per
#    evaluation, and so does cgmap_trace (until 1.6 it counted every
#    invocation): a SQL SRF and an internal (C) SRF in a select list, in
#    FROM, under a PL/pgSQL caller (the edge keeps its caller), and a
#    PL/pgSQL SRF (materialize mode).  An evaluation stopped early by a
#    LIMIT (also each rescan of a correlated subquery) ends with no
#    end-of-set call, so PostgreSQL counts none; cgmap_trace counts it once,
#    as it counts a call that ends in an error (also at an SRF's second
#    row): the function ran.
#  - A function created by a transaction that rolled back after calling
#    an existing function: the records naming it are removed when the view
#    is read, and kept (stale_kept): the existing callee keeps its calls
#    (cgmap_trace_gone), the records whose callee is gone hide no call of a
#    function that exists; so cgmap reports nothing lost and a function
#    never called is dead.  Their paths, shapes and timeline go with them.
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

pgext_trace_test counts

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = 'all'" \
	"track_functions = 'all'"
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE tc" >/dev/null
pgtest_psql -d tc >/dev/null <<'SQL'
CREATE EXTENSION cgmap_trace;
CREATE FUNCTION three() RETURNS SETOF int LANGUAGE sql
  AS $$ SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 $$;
CREATE FUNCTION gs(int, int) RETURNS SETOF int LANGUAGE internal STRICT
  AS 'generate_series_int4';
CREATE FUNCTION boom_srf() RETURNS SETOF int LANGUAGE sql
  AS $$ SELECT 1 / (2 - x) FROM generate_series(1, 3) x $$;
CREATE FUNCTION rn() RETURNS SETOF int LANGUAGE plpgsql
  AS $$ BEGIN RETURN NEXT 1; RETURN NEXT 2; RETURN QUERY SELECT three(); END $$;
CREATE FUNCTION use_srf() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM (SELECT three()) s)
       + (SELECT count(*) FROM gs(1, 4));
END $$;
SELECT cgmap_trace_reset();
SELECT pg_stat_reset();
SQL

[ "$(pgtest_psql -d tc -c "SELECT library_version FROM cgmap_trace_info()")" = 1.8 ] ||
	pgtest_fail "the library (1.8) does not say it counts as 1.6 began to"

# per function: the traced calls (every edge into it), PostgreSQL's calls
counts() {
	pgtest_psql -d tc -c "SELECT f.proname, coalesce(t.calls, 0), coalesce(s.calls, 0)
	FROM pg_proc f
	LEFT JOIN (SELECT callee_oid, sum(calls) AS calls FROM cgmap_trace_edges()
	           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
	           GROUP BY callee_oid) t ON t.callee_oid = f.oid
	LEFT JOIN pg_stat_user_functions s ON s.funcid = f.oid
	WHERE f.proname IN ('three', 'gs', 'rn', 'use_srf', 'boom_srf') ORDER BY 1"
}

# Complete evaluations: the same counts as PostgreSQL.  (PostgreSQL never
# counts functions of language internal, gs(): 7 evaluations, 0.)
pgtest_psql -d tc >/dev/null <<'SQL'
SELECT three();
SELECT three();
SELECT * FROM three();
SELECT gs(1, 5);
SELECT * FROM gs(1, 4);
SELECT x, gs(1, x) FROM generate_series(1, 3) x;
SELECT use_srf();
SELECT use_srf();
SELECT * FROM rn();
SELECT rn();
SQL
got=$(counts)
expected="boom_srf|0|0
gs|7|0
rn|2|2
three|7|7
use_srf|2|2"
[ "$got" = "$expected" ] || pgtest_fail "traced|pg_stat calls of complete evaluations: got
$got
expected
$expected"
edge=$(pgtest_psql -d tc -c "SELECT nullif(caller_oid, 0)::regproc, calls FROM cgmap_trace_edges()
	WHERE callee_oid = 'three'::regproc ORDER BY 1 NULLS FIRST")
[ "$edge" = "|3
rn|2
use_srf|2" ] || pgtest_fail "edges into three(): $edge"
self=$(pgtest_psql -d tc -c "SELECT count(*) FROM cgmap_trace_edges()
	WHERE callee_oid = 'three'::regproc AND (total_ms <= 0 OR self_ms < 0 OR self_ms > total_ms)")
[ "$self" = 0 ] || pgtest_fail "three()'s times are not those of its calls"
[ "$(pgtest_psql -d tc -c "SELECT sum(calls) FROM cgmap_trace_paths WHERE frame_oids[array_upper(frame_oids, 1)] = 'three'::regproc")" = 7 ] ||
	pgtest_fail "paths of three(): $(pgtest_psql -d tc -c "SELECT * FROM cgmap_trace_paths")"

# Stopped early: no end-of-set call, so PostgreSQL counts nothing; the
# trace counts each evaluation once (the rescans of the subquery too).
# The same for an evaluation that fails.
pgtest_psql -d tc >/dev/null <<'SQL'
SELECT three() LIMIT 1;
SELECT gs(1, 10) LIMIT 2;
SELECT (SELECT y FROM (SELECT gs(1, 10 + x) AS y) s LIMIT 1) FROM generate_series(1, 4) x;
SQL
# An error at the second row: PostgreSQL counts a call when it returns,
# so not this one; the trace counts it once (it ran).
if pgtest_psql -d tc -c "SELECT boom_srf()" >/dev/null 2>"$work/boom.err"; then
	pgtest_fail "boom_srf() did not fail"
fi
pgtest_expect_grep "boom_srf() failed at its second row" "$work/boom.err" "division by zero"
got=$(counts)
expected="boom_srf|1|0
gs|12|0
rn|2|2
three|8|7
use_srf|2|2"
[ "$got" = "$expected" ] || pgtest_fail "traced|pg_stat calls after early stops: got
$got
expected
$expected"

# A function created by a transaction that rolled back after calling one
# that exists; its own callee rolled back with it.
pgtest_psql -d tc >/dev/null <<'SQL'
CREATE FUNCTION existing() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION never() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
SELECT cgmap_trace_reset();
BEGIN;
CREATE FUNCTION inner_rb() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION outer_rb() RETURNS int LANGUAGE plpgsql
  AS $$ BEGIN RETURN existing() + inner_rb(); END $$;
SELECT sum(outer_rb()) FROM generate_series(1, 150);
ROLLBACK;
SQL
# Read first, before any other view: the callee's calls are there already.
first=$(pgtest_psql -d tc -c "SELECT coalesce(fn::text, '-'), coalesce(identity, '-'), calls
	FROM cgmap_trace_gone ORDER BY 1")
[ "$first" = "existing()|-|150" ] || pgtest_fail "cgmap_trace_gone read first after the rollback: $first"
"$CGMAP" --dsn "dbname=tc" --no-html --min-window 0 --out "$work/rb" 2>"$work/rb.err" ||
	{ cat "$work/rb.err" >&2; pgtest_fail "map failed"; }
info=$(pgtest_psql -d tc -c "SELECT stale_removed, stale_kept FROM cgmap_trace_info()")
[ "$info" = "3|3" ] || pgtest_fail "stale_removed|stale_kept after the rollback: $info, expected 3|3"
gone=$(pgtest_psql -d tc -c "SELECT coalesce(fn::text, '-'), coalesce(identity, '-'), calls
	FROM cgmap_trace_gone ORDER BY 1")
[ "$gone" = "existing()|-|150" ] || pgtest_fail "cgmap_trace_gone after the rollback: $gone"
if grep -qF "call records" "$work/rb.err"; then
	cat "$work/rb.err" >&2
	pgtest_fail "records said lost after a rollback"
fi
# the paths, shapes and timeline of the rolled-back functions went with
# their edges, as at a drop's commit
if grep -qF "no longer exist" "$work/rb.err"; then
	cat "$work/rb.err" >&2
	pgtest_fail "rows of the rolled-back functions left behind"
fi
"$CGMAP" report functions "$work/rb" >"$work/rb-functions.txt"
pgtest_expect_line "existing() keeps the rolled-back caller's calls" "$work/rb-functions.txt" \
	"public.existing() called calls 150"
pgtest_expect_line "never() dead" "$work/rb-functions.txt" "public.never() dead calls 0"
! grep -qF '"lost_records"' "$work/rb/cgmap.json" || pgtest_fail "snapshot: records lost"
echo "PASS"
