#!/usr/bin/env bash
# test_viewstarcte.sh - a view's `*` over a CTE (the UNION of two CTEs)
# under DISTINCT ON: fixtures/viewstarcte.sql gives the edges of
# fixtures/expected/viewstarcte.edges from the live database and from the
# file, and run with `cgmap_trace.track = all` each edge is observed on its
# static edge and nothing is left unexplained; the function reading only
# columns without calls runs nothing.  Before, the file's map gave the
# view two columns and every read of it both functions.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case viewstarcte "reads of a view whose * shows a CTE" <<'SQL'
SELECT app.columns_only();
SELECT app.untrusted();
SELECT app.labels();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "app.columns_only()"
