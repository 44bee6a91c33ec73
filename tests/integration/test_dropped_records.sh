#!/usr/bin/env bash
# Calls of functions dropped and recreated in the window, against a real
# PostgreSQL 15 with cgmap_trace (built by this checkout, in a private
# installation tree: tests/lib/pgext.sh), cgmap_trace.track = all.
# cgmap_trace removes the edges of a dropped function (stale_removed), so
# f() and g(), which ran 200 times, then were dropped and recreated with
# the same text, show no call, and h()'s 150 calls made the window "enough":
# cgmap called f() and g() dead, never called in the window.  Now:
#  - the map warns how many call records were lost and why, its evidence
#    line says so, and f() and g() are unobserved, not dead;
#  - `cgmap collect` keeps the count (trace.stale_removed), and a map of
#    that file says the same;
#  - after a reset (nothing lost) the same silence is dead again.
# Env: CGMAP, CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"

skip() { echo "SKIP: $*" >&2; exit 77; }
[ -x "$CGMAP" ] || skip "no cgmap binary at $CGMAP"
command -v pg_config >/dev/null 2>&1 || skip "pg_config not found"
command -v make >/dev/null 2>&1 || skip "make not found"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-dropped.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
pgext_trace_tree "$work"


pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = 'all'" \
	"track_functions = 'all'"
trap 'pgtest_stop; rm -rf "$work"' EXIT
pgtest_psql -c "CREATE DATABASE dr" >/dev/null
pgtest_psql -d dr -c "CREATE EXTENSION cgmap_trace" >/dev/null

define() {
	pgtest_psql -d dr >/dev/null <<'SQL'
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN f(); END $$;
SQL
}
define
pgtest_psql -d dr -c "CREATE FUNCTION h() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" \
	-c "SELECT cgmap_trace_reset()" -c "SELECT pg_stat_reset()" >/dev/null
pgtest_psql -d dr -c "SELECT sum(g()) FROM generate_series(1, 200)" >/dev/null
pgtest_psql -d dr -c "DROP FUNCTION g()" -c "DROP FUNCTION f()" >/dev/null
define
pgtest_psql -d dr -c "SELECT sum(h()) FROM generate_series(1, 150)" >/dev/null
[ "$(pgtest_psql -d dr -c "SELECT stale_removed FROM cgmap_trace_info()")" = 2 ] ||
	pgtest_fail "the drops did not remove the 2 edges of g(): $(pgtest_psql -d dr -c "SELECT * FROM cgmap_trace_info()")"

# Live: said, and nothing dead.
"$CGMAP" --dsn "dbname=dr" --no-html --min-window 0 --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; pgtest_fail "map failed"; }
pgtest_expect_grep "lost records warned" "$work/live.err" \
	"cgmap_trace removed 2 call records of functions or databases dropped in the window (stale_removed, counted over the whole cluster), read in database 'dr': the calls they counted are missing, so no function is called dead or cold (unobserved instead)"
pgtest_expect_grep "evidence says why" "$work/live.err" \
	"150 calls observed; traced: all; statistics: track_functions all; 2 call records of dropped functions lost (cgmap_trace stale_removed): any function may have run; not enough for dead"
"$CGMAP" report functions "$work/live" >"$work/live-functions.txt"
pgtest_expect_line "f() ran: not dead" "$work/live-functions.txt" "public.f() unobserved calls 0"
pgtest_expect_line "g() ran: not dead" "$work/live-functions.txt" "public.g() unobserved calls 0"
pgtest_expect_line "h() called" "$work/live-functions.txt" "public.h() called root entry calls 150"
pgtest_expect_grep "snapshot keeps the count" "$work/live/cgmap.json" '"lost_records":2,'

# Collected: the file keeps the count, and its map says the same.
"$CGMAP" collect --dsn "dbname=dr" -o "$work/run.json" 2>"$work/collect.err"
pgtest_expect_grep "collect keeps the count" "$work/run.json" '"track": "all", "stale_removed": 2,'
"$CGMAP" --dsn "dbname=dr" --no-runtime --runtime "$work/run.json" --no-html --min-window 0 \
	--out "$work/file" 2>"$work/file.err" || { cat "$work/file.err" >&2; pgtest_fail "map --runtime failed"; }
pgtest_expect_grep "file: lost records warned" "$work/file.err" "runtime file: cgmap_trace removed 2 call records"
"$CGMAP" report functions "$work/file" >"$work/file-functions.txt"
pgtest_expect_line "file: f() not dead" "$work/file-functions.txt" "public.f() unobserved calls 0"

# After a reset nothing is lost: the same silence is dead.
pgtest_psql -d dr -c "SELECT cgmap_trace_reset()" -c "SELECT pg_stat_reset()" \
	-c "SELECT sum(h()) FROM generate_series(1, 150)" >/dev/null
"$CGMAP" --dsn "dbname=dr" --no-html --min-window 0 --out "$work/reset" 2>"$work/reset.err" ||
	{ cat "$work/reset.err" >&2; pgtest_fail "map failed"; }
if grep -qF "call records" "$work/reset.err"; then
	cat "$work/reset.err" >&2
	pgtest_fail "records said lost after a reset"
fi
"$CGMAP" report functions "$work/reset" >"$work/reset-functions.txt"
pgtest_expect_line "reset: f() dead" "$work/reset-functions.txt" "public.f() dead calls 0"
pgtest_expect_line "reset: g() dead" "$work/reset-functions.txt" "public.g() dead calls 0"
echo "PASS"
