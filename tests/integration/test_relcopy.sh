#!/usr/bin/env bash
# test_relcopy.sh - what a table runs that it got from another one (LIKE
# ... INCLUDING, INHERITS, PARTITION OF, ATTACH PARTITION, an index created
# on a partitioned table) or kept through RENAME TO, SET SCHEMA and RENAME
# COLUMN: fixtures/relcopy.sql gives the edges of
# fixtures/expected/relcopy.edges from the live database and from the file
# (test_sql_parity compares the copies' objects and references, and those
# of a pg_dump); run with `cgmap_trace.track = all`, each is observed on
# its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case relcopy "edges through copied and renamed tables" <<'SQL'
SELECT app.work();
SQL
