#!/usr/bin/env bash
# Edges and dynamic statement runs of functions dropped and created again
# in the window, against a real PostgreSQL 15 with cgmap_trace (built by
# this checkout, in a private installation tree: tests/lib/pgext.sh),
# cgmap_trace.track = all.
# A test suite that drops its schema (or extension) and loads it again ran
# the edges of the functions it dropped; until 1.8 cgmap_trace kept only
# the calls they counted (per callee), so the map said "static only" of an
# edge that ran and "unseen" of a dynamic statement that ran.  1.8 keeps
# the edges and site runs themselves under the OIDs they had
# (cgmap_trace_gone_edges()), each dropped function named by its identity
# in cgmap_trace_gone():
#  - app.f() -> app.g() ran, then DROP SCHEMA app CASCADE and the same
#    definitions again: the edge is static and observed, with its calls,
#    and the functions' calls are counted once (not again through it);
#  - app.dyn()'s EXECUTE of a table query ran: "ran without a call", not
#    unseen; app.disp()'s EXECUTE of SQL built at run time called app.t():
#    an observed dynamic site and an observed edge;
#  - app.moved() was made again with a longer body: its kept edge was of
#    an earlier body (earlier_body), not placed at a line of the new one;
#  - a function only the caller of which was dropped, and that is dropped
#    itself later, is named then (app.late());
#  - `cgmap collect` keeps the edges ("kept": true), and a map of that
#    file says the same; a restart keeps them (cgmap_trace.stat format 6);
#  - a reset empties them;
#  - 17,100 edges dropped at once overflow the table of 16,384: the rest
#    counts in gone_edges_lost, and the map says so (their calls are kept).
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

pgext_trace_test dropped_edges

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = 'all'" \
	"track_functions = 'all'" "cgmap_trace.max_edges = 40000"
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE de" >/dev/null
pgtest_psql -d de -c "CREATE EXTENSION cgmap_trace" >/dev/null

load() {
	pgtest_psql -d de >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE SCHEMA app;
CREATE TABLE app.items (id int);
CREATE FUNCTION app.g() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION app.f() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN app.g();
END $$;
CREATE FUNCTION app.t() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 2; END $$;
CREATE FUNCTION app.dyn(tab text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM app.%I', tab) INTO n;
  RETURN n;
END $$;
CREATE FUNCTION app.disp(fn text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  EXECUTE format('SELECT app.%I()', fn) INTO r;
  RETURN r;
END $$;
CREATE FUNCTION app.late() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 3; END $$;
CREATE FUNCTION app.first() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN app.late();
END $$;
SQL
}
moved() {
	pgtest_psql -d de >/dev/null -c "CREATE OR REPLACE FUNCTION app.moved() RETURNS int
	LANGUAGE plpgsql AS \$\$
BEGIN
$1  RETURN app.g();
END \$\$"
}
load
moved ""
pgtest_psql -d de >/dev/null <<'SQL'
SELECT cgmap_trace_reset();
SELECT pg_stat_reset();
SELECT sum(app.f()) FROM generate_series(1, 30);
SELECT sum(app.dyn('items')) FROM generate_series(1, 4);
SELECT sum(app.disp('t')) FROM generate_series(1, 5);
SELECT sum(app.moved()) FROM generate_series(1, 2);
SELECT sum(app.first()) FROM generate_series(1, 6);
SQL
# The test suite reloads its schema; nothing of it runs again, but
# app.first() is dropped alone and made again, and only then app.late():
# the kept edge first -> late named late by its OID until that drop.
pgtest_psql -d de -c "SET client_min_messages = warning" -c "DROP SCHEMA app CASCADE" >/dev/null
load
moved "  -- a line more: the call is on line 4 now
"
pgtest_psql -d de >/dev/null <<'SQL'
DROP FUNCTION app.first();
CREATE FUNCTION app.first() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN app.late();
END $$;
SELECT sum(app.first()) FROM generate_series(1, 2);
DROP FUNCTION app.first();
DROP FUNCTION app.late();
CREATE FUNCTION app.late() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 3; END $$;
CREATE FUNCTION app.first() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN app.late();
END $$;
SQL

[ "$(pgtest_psql -d de -c "SELECT gone_edges_lost || '|' || library_version FROM cgmap_trace_info()")" = "0|1.8" ] ||
	pgtest_fail "cgmap_trace_info: $(pgtest_psql -d de -c "SELECT gone_edges_lost, library_version FROM cgmap_trace_info()")"
# f -> g (30), (entry) -> f (30), dyn's site run (4), (entry) -> dyn (4),
# disp -> t (5, dynamic), disp's site run (5), (entry) -> disp (5),
# moved -> g (2), (entry) -> moved (2), first -> late (6, then 2 more of
# the first one made again), (entry) -> first (6 and 2)
kept=$(pgtest_psql -d de -c "SELECT count(*) || '|' || sum(calls) FROM cgmap_trace_gone_edges()")
[ "$kept" = "13|103" ] || pgtest_fail "cgmap_trace_gone_edges: $kept, expected 13|103
$(pgtest_psql -d de -c "SELECT * FROM cgmap_trace_gone_edges()")"

check_map() { # $1: the map's folder, $2: what it is
	local dir=$1 what=$2
	"$CGMAP" report edges "$dir" >"$dir-edges.txt"
	"$CGMAP" report dynamic "$dir" >"$dir-dynamic.txt"
	"$CGMAP" report functions "$dir" >"$dir-functions.txt"
	pgtest_expect_line "$what: f -> g observed, with the calls it made" "$dir-edges.txt" \
		"app.f() -> app.g() via call both lines 3 calls 30"
	pgtest_expect_line "$what: first -> late observed through both drops" "$dir-edges.txt" \
		"app.first() -> app.late() via call both lines 3 calls 8"
	pgtest_expect_line "$what: disp -> t observed through its EXECUTE" "$dir-edges.txt" \
		"app.disp(text) -> app.t() via dynamic observed lines 4 calls 5"
	pgtest_expect_grep "$what: moved -> g ran in an earlier body" "$dir-edges.txt" \
		"app.moved() -> app.g() via call both lines 4 calls 2 (observed against an earlier body of the caller)"
	pgtest_expect_grep "$what: dyn's EXECUTE ran" "$dir-dynamic.txt" \
		"app.dyn(text) line 4: dynamic, ran 4 times without calling a user function"
	pgtest_expect_grep "$what: disp's EXECUTE observed" "$dir-dynamic.txt" \
		"app.disp(text) line 4: dynamic, observed -> app.t()"
	pgtest_expect_line "$what: g's calls counted once" "$dir-functions.txt" "app.g() called calls 32"
	pgtest_expect_line "$what: late's calls" "$dir-functions.txt" "app.late() called calls 8"
	if grep -F "static only" "$dir-edges.txt" | grep -qv 'app.moved'; then
		cat "$dir-edges.txt" >&2
		pgtest_fail "$what: an edge that ran is said static only"
	fi
}

"$CGMAP" --dsn "dbname=de" --no-html --min-window 0 --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; pgtest_fail "map failed"; }
check_map "$work/live" live
pgtest_expect_grep "live: moved -> g is of an earlier body" "$work/live/cgmap.json" \
	'"earlier_body":true'

"$CGMAP" collect --dsn "dbname=de" -o "$work/run.json" 2>"$work/collect.err" ||
	{ cat "$work/collect.err" >&2; pgtest_fail "collect failed"; }
pgtest_expect_grep "collect keeps the edges" "$work/run.json" '"kept": true'
"$CGMAP" --dsn "dbname=de" --no-runtime --runtime "$work/run.json" --no-html --min-window 0 \
	--out "$work/file" 2>"$work/file.err" || { cat "$work/file.err" >&2; pgtest_fail "map --runtime failed"; }
check_map "$work/file" file

pgtest_restart
[ "$(pgtest_psql -d de -c "SELECT count(*) || '|' || sum(calls) FROM cgmap_trace_gone_edges()")" = "13|103" ] ||
	pgtest_fail "after a restart, cgmap_trace_gone_edges: $(pgtest_psql -d de -c "SELECT count(*), sum(calls) FROM cgmap_trace_gone_edges()")"
"$CGMAP" --dsn "dbname=de" --no-html --min-window 0 --out "$work/restarted" 2>"$work/restarted.err" ||
	{ cat "$work/restarted.err" >&2; pgtest_fail "map after a restart failed"; }
check_map "$work/restarted" restarted

pgtest_psql -d de -c "SELECT cgmap_trace_reset()" >/dev/null
[ "$(pgtest_psql -d de -c "SELECT count(*) FROM cgmap_trace_gone_edges()")" = 0 ] ||
	pgtest_fail "cgmap_trace_gone_edges not emptied by the reset"

# 171 callers of 100 callees each (17,100 edges), and their 171 entry
# points, dropped in one transaction: 16,384 records kept, the rest lost.
pgtest_psql -d de >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE SCHEMA wide;
DO $$
DECLARE body text;
BEGIN
  FOR i IN 1..100 LOOP
    EXECUTE format('CREATE FUNCTION wide.c%s() RETURNS int LANGUAGE plpgsql AS $b$ BEGIN RETURN %s; END $b$', i, i);
  END LOOP;
  SELECT string_agg(format('  s := s + wide.c%s();', i), E'\n') INTO body FROM generate_series(1, 100) i;
  FOR i IN 1..171 LOOP
    EXECUTE format('CREATE FUNCTION wide.p%s() RETURNS int LANGUAGE plpgsql AS $b$ DECLARE s int := 0; BEGIN
%s
  RETURN s; END $b$', i, body);
  END LOOP;
END $$;
DO $$ BEGIN FOR i IN 1..171 LOOP EXECUTE format('SELECT wide.p%s()', i); END LOOP; END $$;
SQL
pgtest_psql -d de -c "SET client_min_messages = warning" -c "DROP SCHEMA wide CASCADE" >/dev/null
over=$(pgtest_psql -d de -c "SELECT (SELECT count(*) FROM cgmap_trace_gone_edges()) || '|' || gone_edges_lost
	FROM cgmap_trace_info()")
[ "$over" = "16384|887" ] || pgtest_fail "a full table of dropped edges: kept|lost $over, expected 16384|887"
"$CGMAP" --dsn "dbname=de" --no-html --min-window 0 --out "$work/over" 2>"$work/over.err" ||
	{ cat "$work/over.err" >&2; pgtest_fail "map failed"; }
pgtest_expect_grep "a full table is said" "$work/over.err" \
	"cgmap_trace of database 'de' could not keep 887 edges and dynamic statement runs of dropped functions (gone_edges_lost"
echo "PASS"
