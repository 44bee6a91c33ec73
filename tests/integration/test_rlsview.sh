#!/usr/bin/env bash
# test_rlsview.sh - a view reads and writes its tables with its owner's
# rights: a table's policies run through another role's view, and through
# a view of the table's owner only when the table is FORCE ROW LEVEL
# SECURITY, and never through a superuser's; a view WITH (security_invoker)
# reads with the invoking role's rights; a rule's action runs with its
# relation's owner's rights the same way: fixtures/roles/rlsview.sql (its own roles, so apart from
# fixtures/*.sql) gives the edges of fixtures/expected/rlsview.edges from
# the live database, from the file and from its pg_dump with pg_dumpall -g
# (before, no policy was ever linked through a view or a rule); run as a
# client role with `cgmap_trace.track = all`, each is observed on its
# static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

PGTEST_WORK=$(mktemp -d)
chmod 755 "$PGTEST_WORK"
trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
expected=$src/fixtures/expected/rlsview.edges
what="policies through views and rules"
pgtest_traced_fixture "$PGTEST_WORK" rlsview "$src/fixtures/roles/rlsview.sql" "$expected" "$what"

"$PGTEST_BIN/pg_dumpall" -g -f "$PGTEST_WORK/globals.sql"
pgtest_expect_dump_edges "$PGTEST_WORK" rlsview "$expected" "$what (pg_dumpall -g, pg_dump)" \
	"$PGTEST_WORK/globals.sql"

pgtest_traced_workload "$PGTEST_WORK" rlsview "$expected" "$what" <<'SQL'
SET ROLE rlsv_client;
SELECT app.read_own(), app.write_own(), app.insert_own_ruled(), app.read_forced(), app.read_admin_forced(),
       app.read_invoker(), app.read_altered(), app.read_reset(),
       app.read_theirs(), app.write_theirs(), app.insert_theirs(), app.insert_their_ruled();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no \
	"app.read_own() -> " "app.write_own() -> " "app.insert_own_ruled() -> " "app.read_admin_forced() -> " \
	"app.read_reset() -> "
pgtest_expect_edge "$PGTEST_WORK/map.edges" yes \
	"app.read_theirs() -> app.allowed() via policy (policy visible on app.t)" \
	"app.insert_their_ruled() -> app.allowed() via rule (rule their_ruled_insert on app.their_ruled)" \
	"app.read_forced() -> app.allowed() via policy (policy visible on app.forced)" \
	"app.read_invoker() -> app.allowed() via policy (policy visible on app.t)" \
	"app.read_altered() -> app.allowed() via policy (policy visible on app.t)"
