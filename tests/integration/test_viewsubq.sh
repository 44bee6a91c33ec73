#!/usr/bin/env bash
# test_viewsubq.sh - a write through a view whose WHERE reads a second
# relation in a subquery is PostgreSQL's automatic update of the one
# relation in its FROM (rewriteHandler.c's view_query_is_auto_updatable):
# fixtures/viewsubq.sql gives the edges of fixtures/expected/viewsubq.edges
# from the live database, from the file and from its pg_dump (the view as
# pg_get_viewdef prints it): the base table's triggers, check, index
# expression and default, a view column under another name being the base
# column it shows; a view that aggregates or joins runs only its INSTEAD
# OF trigger.  Run with `cgmap_trace.track = all`, each edge is observed
# on its static edge and nothing is left unexplained.  Before, the view
# was taken as reading two relations and not updatable: no edge reached
# app.item's triggers.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

PGTEST_WORK=$(mktemp -d)
chmod 755 "$PGTEST_WORK"
trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
expected=$src/fixtures/expected/viewsubq.edges
what="writes through a view with a subquery"
pgtest_traced_fixture "$PGTEST_WORK" viewsubq "$src/fixtures/viewsubq.sql" "$expected" "$what"

pgtest_expect_dump_edges "$PGTEST_WORK" viewsubq "$expected" "$what (pg_dump)"

pgtest_traced_workload "$PGTEST_WORK" viewsubq "$expected" "$what" <<'SQL'
SELECT app.open(1);
SELECT app.open(2);
SELECT app.recount(2);
SELECT app.close(1);
SELECT app.add_counted();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" yes \
	"app.recount(integer) -> app.qty_changed() via trigger" \
	"app.open(integer) -> app.note_default() via default (default app.item.note)"
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "app.note_changed()"
