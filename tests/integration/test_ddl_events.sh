#!/usr/bin/env bash
# test_ddl_events.sh - the event triggers an ALTER TABLE fires, by what its
# subcommands do: fixtures/ddlevents.sql (sql_drop, table_rewrite and
# ddl_command_end triggers; functions that toggle a trigger, drop a column,
# change a column's type, comment on shared objects and on a table) gives the edges of fixtures/expected/ddlevents.edges
# from the live database and from the file; run with
# `cgmap_trace.track = all`, each is observed on its static edge, and
# nothing is left unexplained: no sql_drop edge for a statement that drops
# nothing, no table_rewrite edge for one that rewrites nothing, no edge for
# a COMMENT or GRANT on a shared object (a tablespace, a database), and one
# for an EXECUTE'd COMMENT on a table named at run time.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_traced_fixture "$work" ddl "$src/fixtures/ddlevents.sql" "$src/fixtures/expected/ddlevents.edges" \
	"event trigger edges"

pgtest_psql -d ddl -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 <<'SQL' || { cat "$work/workload.log" >&2; pgtest_fail "the workload failed"; }
SELECT cgmap_trace_reset();
SELECT app.toggle();
SELECT app.drop_b();
SELECT app.widen();
SELECT app.on_shared('pg_default');
SELECT app.on_table('p');
SELECT app.other_commands();
SELECT app.make_and_refresh('made_at_run_time');
SELECT app.atomic_count();
SELECT app.define_things();
SQL
"$cgmap" --dsn "dbname=ddl" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
pgtest_expect_traced "$src/fixtures/expected/ddlevents.edges" "$work/map" "event triggers fired by ALTER TABLE"
"$cgmap" report edges "$work/map" | grep -v ' both ' >"$work/not_both" || true
[ ! -s "$work/not_both" ] || pgtest_fail "edges not both static and observed: $(cat "$work/not_both")"
echo "ok: $(wc -l <"$work/map.both") event trigger edges observed, none static only"
