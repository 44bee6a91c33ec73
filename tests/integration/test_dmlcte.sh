#!/usr/bin/env bash
# test_dmlcte.sh - the CTEs of an INSERT and of a MERGE type the columns
# their queries read, and a MERGE's WHEN clauses see its source:
# fixtures/dmlcte.sql gives the edges of fixtures/expected/dmlcte.edges
# from the live database and from the file (before, a CTE's column read in
# an INSERT's or MERGE's query had no type, and a call passing it was
# ambiguous among every overload); run with `cgmap_trace.track = all`,
# each call is observed on its static edge and nothing is left
# unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case dmlcte "CTEs of INSERT and MERGE" <<'SQL'
SELECT app.start_steps();
SELECT app.insert_tagged();
SELECT app.merge_tagged();
SQL
