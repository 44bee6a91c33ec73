#!/usr/bin/env bash
# test_argdefaults.sh - a call that leaves a parameter out runs the
# parameter's default in the caller: fixtures/argdefaults.sql gives the
# edges of fixtures/expected/argdefaults.edges (via default, the object
# naming function and parameter, the lines of the calls that leave it out)
# read live and as SQL files; and run with cgmap_trace (`track = all`)
# every one of them is observed from the caller, none left unexplained,
# and the default no call leaves out is never called.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

# SQL files: no server needed.
"$cgmap" --sql "$src/fixtures/argdefaults.sql" --out "$work/sql" --no-html 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/argdefaults.edges" "$work/sql.edges" "edges through parameter defaults (SQL files)"
# A call inside a larger default expression, and a default of a parameter
# without a name.
cat >"$work/more.sql" <<'SQL'
CREATE SCHEMA more;
CREATE FUNCTION more.base() RETURNS numeric LANGUAGE sql AS $$ SELECT 2.0 $$;
CREATE FUNCTION more.f(numeric, numeric DEFAULT more.base() * 2 + 1) RETURNS numeric
LANGUAGE sql AS $$ SELECT $1 * $2 $$;
CREATE FUNCTION more.g() RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  RETURN more.f(1);
END $$;
SQL
more_edge='more.g() -> more.base() via default (default more.f(numeric,numeric) parameter 2) static lines 3'
"$cgmap" --sql "$work/more.sql" --out "$work/more-sql" --no-html --quiet ||
	pgtest_fail "cgmap --sql failed on more.sql"
"$cgmap" report edges "$work/more-sql" | grep -qxF "$more_edge" ||
	pgtest_fail "no '$more_edge' (SQL files): $("$cgmap" report edges "$work/more-sql")"

pgtest_install_trace "$work"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE ad" >/dev/null
pgtest_psql -d ad -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/argdefaults.sql" -f "$work/more.sql" >/dev/null

"$cgmap" --dsn "dbname=ad" --out "$work/static" --no-html --no-runtime 2>"$work/static.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/static.err")"
"$cgmap" report edges "$work/static" | { grep '^app\.' || true; } >"$work/static.edges"
"$cgmap" report edges "$work/static" | grep -qxF "$more_edge" ||
	pgtest_fail "no '$more_edge' (live): $("$cgmap" report edges "$work/static")"
pgtest_expect_file "$src/fixtures/expected/argdefaults.edges" "$work/static.edges" "edges through parameter defaults (live)"

pgtest_psql -d ad -v ON_ERROR_STOP=1 -c "SELECT cgmap_trace_reset()" -c "SELECT app.caller()" -c "SELECT more.g()" >/dev/null
"$cgmap" --dsn "dbname=ad" --out "$work/traced" --no-html 2>"$work/traced.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
pgtest_expect_traced "$src/fixtures/expected/argdefaults.edges" "$work/traced" "calls of defaults"
grep -qF "${more_edge% static lines*} both lines 3 " "$work/traced.edges" ||
	pgtest_fail "the default's call in an expression not observed: $(grep '^more' "$work/traced.edges")"
if grep -q 'unused_default' "$work/traced.edges"; then
	pgtest_fail "a default no call leaves out has an edge"
fi
echo "ok: $(wc -l <"$work/traced.both") edges, those through parameter defaults included, static and observed"
