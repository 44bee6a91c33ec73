#!/usr/bin/env bash
# test_rlsdefiner.sh - a SECURITY DEFINER function's statements on a table
# of its owner never run the table's policies, unless the table is FORCE
# ROW LEVEL SECURITY; a function that is not SECURITY DEFINER, or reads
# another role's table, runs them: fixtures/roles/rlsdefiner.sql (its own
# roles, so apart from fixtures/*.sql) gives the edges of
# fixtures/expected/rlsdefiner.edges from the live database, from the file
# and from its pg_dump with pg_dumpall -g (before, every read of a table
# with policies was an edge to their functions); run as a client role with
# `cgmap_trace.track = all`, each is observed on its static edge and
# nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

PGTEST_WORK=$(mktemp -d)
chmod 755 "$PGTEST_WORK"
trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
expected=$src/fixtures/expected/rlsdefiner.edges
what="policies under SECURITY DEFINER"
pgtest_traced_fixture "$PGTEST_WORK" rlsdefiner "$src/fixtures/roles/rlsdefiner.sql" "$expected" "$what"

"$PGTEST_BIN/pg_dumpall" -g -f "$PGTEST_WORK/globals.sql"
pgtest_expect_dump_edges "$PGTEST_WORK" rlsdefiner "$expected" "$what (pg_dumpall -g, pg_dump)" \
	"$PGTEST_WORK/globals.sql"

pgtest_traced_workload "$PGTEST_WORK" rlsdefiner "$expected" "$what" <<'SQL'
SET ROLE rls_client;
SELECT app.definer(), app.made_definer(), app.invoker(), app.definer_forced(), app.definer_theirs();
SQL
! grep -E '^app\.(definer|made_definer)\(\) -> ' "$PGTEST_WORK/map.edges" ||
	pgtest_fail "a policy is mapped for a SECURITY DEFINER function on its owner's table"
