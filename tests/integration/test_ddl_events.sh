#!/usr/bin/env bash
# test_ddl_events.sh - the event triggers an ALTER TABLE fires, by what its
# subcommands do: fixtures/ddlevents.sql (sql_drop, table_rewrite and
# ddl_command_end triggers; functions that toggle a trigger, drop a column,
# change a column's type) gives the edges of fixtures/expected/ddlevents.edges
# from the live database and from the file; run with
# `cgmap_trace.track = all`, each is observed on its static edge, and
# nothing is left unexplained: no sql_drop edge for a statement that drops
# nothing, no table_rewrite edge for one that rewrites nothing.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_install_trace "$work"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE ddl" >/dev/null
pgtest_psql -d ddl -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/ddlevents.sql" >/dev/null

"$cgmap" --dsn "dbname=ddl" --out "$work/static" --no-runtime 2>"$work/static.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/static.err")"
"$cgmap" report edges "$work/static" >"$work/static.edges"
pgtest_expect_file "$src/fixtures/expected/ddlevents.edges" "$work/static.edges" "event trigger edges (live)"
"$cgmap" --sql "$src/fixtures/ddlevents.sql" --out "$work/sql" 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/ddlevents.edges" "$work/sql.edges" "event trigger edges (SQL files)"

pgtest_psql -d ddl -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 <<'SQL' || { cat "$work/workload.log" >&2; pgtest_fail "the workload failed"; }
SELECT cgmap_trace_reset();
SELECT app.toggle();
SELECT app.drop_b();
SELECT app.widen();
SQL
"$cgmap" --dsn "dbname=ddl" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
pgtest_expect_traced "$src/fixtures/expected/ddlevents.edges" "$work/map" "event triggers fired by ALTER TABLE"
"$cgmap" report edges "$work/map" | grep -v ' both ' >"$work/not_both" || true
[ ! -s "$work/not_both" ] || pgtest_fail "edges not both static and observed: $(cat "$work/not_both")"
echo "ok: $(wc -l <"$work/map.both") event trigger edges observed, none static only"
