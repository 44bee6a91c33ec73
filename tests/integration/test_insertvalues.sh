#!/usr/bin/env bash
# test_insertvalues.sh - an INSERT without a column list gives the table's
# first columns, as many as its VALUES or SELECT have: only the defaults of
# the columns after those run (through a view too).
# fixtures/insertvalues.sql gives the edges of
# fixtures/expected/insertvalues.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case insertvalues "INSERT without a column list" <<'SQL'
SELECT app.add_two();
SELECT app.add_one_of_each();
SELECT app.copy_source();
SELECT app.add_all();
SELECT app.add_defaults();
SELECT app.add_through_view();
SQL
