#!/usr/bin/env bash
# test_unreadcte.sh - a SELECT CTE that nothing reads never runs, nor one
# read only by such a CTE, while a data-modifying CTE and what it reads
# always run: fixtures/unreadcte.sql gives the edges of
# fixtures/expected/unreadcte.edges from the live database and from the
# file (before, every call in every CTE was an edge, six of them calls
# PostgreSQL never makes); run with `cgmap_trace.track = all`, each call is
# observed on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case unreadcte "CTEs nothing reads" <<'SQL'
SELECT app.unread(), app.unread_plpgsql(), app.chain(), app.recursive();
SELECT app.read(), app.modifying(), app.nested();
SQL
! grep -q ' -> app\.g(text) ' "$PGTEST_WORK/map.edges" ||
	pgtest_fail "a call in a CTE nothing reads is mapped"
