#!/usr/bin/env bash
# Calls of functions dropped and recreated in the window, against a real
# PostgreSQL 15 with cgmap_trace (built by this checkout, in a private
# installation tree: tests/lib/pgext.sh), cgmap_trace.track = all.
# Test suites create and drop their functions by the hundred.  cgmap_trace
# removes the edges of a dropped function; until 1.5 their calls went with
# them (stale_removed), so cgmap could call nothing dead (any function
# might have run).  1.5 keeps those calls per callee, under its identity
# when the callee was dropped (cgmap_trace_gone()), and counts the records
# whose removal hides no call of a function that exists (stale_kept):
#  - f() and g(), which ran 200 times, then were dropped and created again
#    with the same identity, are called (200 calls each), not dead; h()'s
#    150 calls make the window enough, and never() is dead;
#  - h2(), whose only caller k() was dropped, keeps k()'s 10 calls;
#  - a function dropped and not created again, and a dropped database's
#    records, cost nothing;
#  - `cgmap collect` keeps the calls ("gone"), and a map of that file says
#    the same; a restart keeps them (cgmap_trace.stat format 5);
#  - a dropped function whose identity is too long for cgmap_trace's table
#    (255 bytes) loses its calls: then the map warns how many records were
#    lost, its evidence line says so, and nothing is dead (unobserved);
#  - after a reset (nothing lost) the same silence is dead again;
#  - a function dropped with its argument's type does not fail the read.
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

pgext_trace_test dropped


pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = 'all'" \
	"track_functions = 'all'"
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE dr" -c "CREATE DATABASE other" >/dev/null
pgtest_psql -d dr -c "CREATE EXTENSION cgmap_trace" >/dev/null

define() {
	pgtest_psql -d dr >/dev/null <<'SQL'
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN f(); END $$;
SQL
}
define
pgtest_psql -d dr >/dev/null <<'SQL'
CREATE FUNCTION h() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION never() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION h2() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION k() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN h2(); END $$;
CREATE FUNCTION once() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
SELECT cgmap_trace_reset();
SELECT pg_stat_reset();
SQL
pgtest_psql -d other -c "CREATE FUNCTION o() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" \
	-c "SELECT sum(o()) FROM generate_series(1, 7)" >/dev/null
pgtest_psql -d dr -c "SELECT sum(g()) FROM generate_series(1, 200)" \
	-c "SELECT sum(k()) FROM generate_series(1, 10)" -c "SELECT sum(once()) FROM generate_series(1, 5)" >/dev/null
pgtest_psql -d dr -c "DROP FUNCTION g()" -c "DROP FUNCTION f()" -c "DROP FUNCTION k()" \
	-c "DROP FUNCTION once()" >/dev/null
pgtest_psql -c "DROP DATABASE other" >/dev/null
define
pgtest_psql -d dr -c "SELECT sum(h()) FROM generate_series(1, 150)" >/dev/null

# g -> f, (entry) -> g, k -> h2, (entry) -> k, (entry) -> once and the
# other database's (entry) -> o were removed; none of them lost.
info=$(pgtest_psql -d dr -c "SELECT stale_removed, stale_kept FROM cgmap_trace_info()")
[ "$info" = "6|6" ] || pgtest_fail "stale_removed|stale_kept: $info, expected 6|6"
gone=$(pgtest_psql -d dr -c "SELECT coalesce(fn::text, '-'), coalesce(identity, '-'), calls
	FROM cgmap_trace_gone ORDER BY 2, 1")
expected_gone="h2()|-|10
f()|public.f()|200
g()|public.g()|200
-|public.k()|10
-|public.once()|5"
[ "$gone" = "$expected_gone" ] || pgtest_fail "cgmap_trace_gone: got
$gone
expected
$expected_gone"

# Live: nothing lost, the dropped functions' calls counted for their
# namesakes, and the silence of never() is dead.
"$CGMAP" --dsn "dbname=dr" --no-html --min-window 0 --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; pgtest_fail "map failed"; }
if grep -qF "call records" "$work/live.err"; then
	cat "$work/live.err" >&2
	pgtest_fail "records said lost when cgmap_trace kept their calls"
fi
"$CGMAP" report functions "$work/live" >"$work/live-functions.txt"
pgtest_expect_line "f() ran before its drop" "$work/live-functions.txt" "public.f() called calls 200"
pgtest_expect_line "g() ran before its drop, called by a client (1.8 keeps that edge)" \
	"$work/live-functions.txt" "public.g() called root entry calls 200"
pgtest_expect_line "h2()'s calls by the dropped k()" "$work/live-functions.txt" "public.h2() called calls 10"
pgtest_expect_line "h() called" "$work/live-functions.txt" "public.h() called root entry calls 150"
pgtest_expect_line "never() dead" "$work/live-functions.txt" "public.never() dead calls 0"
! grep -qF '"lost_records"' "$work/live/cgmap.json" || pgtest_fail "snapshot: records lost"
pgtest_expect_grep "snapshot: enough for dead" "$work/live/cgmap.json" '"min_calls":100,"enough":true}'

# Collected: the file keeps the calls, and its map says the same.
"$CGMAP" collect --dsn "dbname=dr" -o "$work/run.json" 2>"$work/collect.err"
pgtest_expect_grep "collect: nothing lost" "$work/run.json" '"track": "all", "stale_removed": 0,'
pgtest_expect_grep "collect keeps the calls" "$work/run.json" \
	'{"function": "public.f()", "identity": "public.f()", "calls": 200,'
"$CGMAP" --dsn "dbname=dr" --no-runtime --runtime "$work/run.json" --no-html --min-window 0 \
	--out "$work/file" 2>"$work/file.err" || { cat "$work/file.err" >&2; pgtest_fail "map --runtime failed"; }
"$CGMAP" report functions "$work/file" >"$work/file-functions.txt"
pgtest_expect_line "file: f() called" "$work/file-functions.txt" "public.f() called calls 200"
pgtest_expect_line "file: never() dead" "$work/file-functions.txt" "public.never() dead calls 0"

# A restart keeps them (cgmap_trace.save is on by default).
pgtest_restart
gone_after=$(pgtest_psql -d dr -c "SELECT coalesce(fn::text, '-'), coalesce(identity, '-'), calls
	FROM cgmap_trace_gone ORDER BY 2, 1")
[ "$gone_after" = "$expected_gone" ] || pgtest_fail "after a restart, cgmap_trace_gone: $gone_after"
[ "$(pgtest_psql -d dr -c "SELECT stale_kept FROM cgmap_trace_info()")" = 6 ] ||
	pgtest_fail "stale_kept not kept over a restart"

# An identity past 255 bytes cannot be kept: its calls are lost, and said.
long=$(printf 'd%.0s' $(seq 1 60))
pgtest_psql -d dr >/dev/null <<SQL
CREATE DOMAIN $long AS int;
CREATE FUNCTION wide(a $long, b $long, c $long, d $long, e $long) RETURNS int
  LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$;
SELECT wide(1, 2, 3, 4, 5);
DROP FUNCTION wide($long, $long, $long, $long, $long);
SQL
info=$(pgtest_psql -d dr -c "SELECT stale_removed, stale_kept FROM cgmap_trace_info()")
[ "$info" = "7|6" ] || pgtest_fail "after the wide drop, stale_removed|stale_kept: $info, expected 7|6"
"$CGMAP" --dsn "dbname=dr" --no-html --min-window 0 --out "$work/lost" 2>"$work/lost.err" ||
	{ cat "$work/lost.err" >&2; pgtest_fail "map failed"; }
pgtest_expect_grep "lost records warned" "$work/lost.err" \
	"cgmap_trace removed 1 call record of functions or databases dropped in the window (stale_removed, counted over the whole cluster), read in database 'dr': the calls they counted are missing, so no function is called dead or cold (unobserved instead)"
pgtest_expect_grep "evidence says why" "$work/lost.err" \
	"1 call record of dropped functions lost (cgmap_trace stale_removed): any function may have run; not enough for dead"
"$CGMAP" report functions "$work/lost" >"$work/lost-functions.txt"
pgtest_expect_line "lost: never() unobserved" "$work/lost-functions.txt" "public.never() unobserved calls 0"
pgtest_expect_line "lost: f() still called" "$work/lost-functions.txt" "public.f() called calls 200"
pgtest_expect_grep "snapshot keeps the count" "$work/lost/cgmap.json" '"lost_records":1,'
"$CGMAP" collect --dsn "dbname=dr" -o "$work/lost.json" 2>/dev/null
pgtest_expect_grep "collect keeps the lost count" "$work/lost.json" '"track": "all", "stale_removed": 1,'

# After a reset nothing is kept or lost: the same silence is dead.
pgtest_psql -d dr -c "SELECT cgmap_trace_reset()" -c "SELECT pg_stat_reset()" \
	-c "SELECT sum(h()) FROM generate_series(1, 150)" >/dev/null
[ "$(pgtest_psql -d dr -c "SELECT count(*) FROM cgmap_trace_gone")" = 0 ] ||
	pgtest_fail "cgmap_trace_gone not emptied by the reset"
"$CGMAP" --dsn "dbname=dr" --no-html --min-window 0 --out "$work/reset" 2>"$work/reset.err" ||
	{ cat "$work/reset.err" >&2; pgtest_fail "map failed"; }
if grep -qF "call records" "$work/reset.err"; then
	cat "$work/reset.err" >&2
	pgtest_fail "records said lost after a reset"
fi
"$CGMAP" report functions "$work/reset" >"$work/reset-functions.txt"
pgtest_expect_line "reset: f() dead" "$work/reset-functions.txt" "public.f() dead calls 0"
pgtest_expect_line "reset: g() dead" "$work/reset-functions.txt" "public.g() dead calls 0"

# A function dropped with its argument's type (DROP TYPE ... CASCADE):
# its identity names a type that no longer exists, which to_regprocedure()
# refuses with an error rather than NULL; the map reads every other record
# all the same, and a function made again with a type of that name gets
# its calls.
pgtest_psql -c "CREATE DATABASE dt" >/dev/null
pgtest_psql -d dt >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION cgmap_trace;
CREATE TYPE pair AS (a int, b int);
CREATE TYPE duo AS (a int, b int);
CREATE FUNCTION usep(pair) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN ($1).a; END $$;
CREATE FUNCTION used(duo) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN ($1).b; END $$;
CREATE FUNCTION caller() RETURNS int LANGUAGE plpgsql
AS $$ BEGIN RETURN usep(ROW(1, 2)::pair) + used(ROW(1, 2)::duo); END $$;
SELECT cgmap_trace_reset();
SELECT sum(caller()) FROM generate_series(1, 3);
DROP TYPE pair CASCADE;
DROP TYPE duo CASCADE;
CREATE TYPE duo AS (a int, b int);
CREATE FUNCTION used(duo) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN ($1).b; END $$;
SQL
"$CGMAP" --dsn "dbname=dt" --no-html --min-window 0 --out "$work/types" 2>"$work/types.err" ||
	{ cat "$work/types.err" >&2; pgtest_fail "map failed on a function dropped with its argument's type"; }
gone=$(pgtest_psql -d dt -c "SELECT coalesce(fn::text, '-') || '|' || identity || '|' || calls
	FROM cgmap_trace_gone WHERE identity IS NOT NULL ORDER BY 1")
[ "$gone" = "-|public.usep(public.pair)|3
used(duo)|public.used(public.duo)|3" ] || pgtest_fail "cgmap_trace_gone after DROP TYPE ... CASCADE: $gone"
"$CGMAP" report functions "$work/types" >"$work/types-functions.txt"
pgtest_expect_line "made again: used(duo) keeps its calls" "$work/types-functions.txt" \
	"public.used(public.duo) called calls 3"
"$CGMAP" collect --dsn "dbname=dt" -o "$work/types.json" 2>"$work/types-collect.err" ||
	{ cat "$work/types-collect.err" >&2; pgtest_fail "collect failed on a function dropped with its argument's type"; }
echo "PASS"
