#!/usr/bin/env bash
# test_outcolumns.sh - a column of a function's rows is typed from its OUT
# parameters or RETURNS TABLE (in FROM, renamed, in a subquery, as
# (g()).x, through a record), and a %ROWTYPE variable's assigned field
# keeps its type: each call goes to f(numeric), never f(integer), as
# PostgreSQL calls it.  fixtures/outcolumns.sql gives the edges of
# fixtures/expected/outcolumns.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case outcolumns "columns of OUT parameters and RETURNS TABLE" <<'SQL'
SELECT app.from_subquery();
SELECT app.from_alias();
SELECT app.from_field();
SELECT app.from_record();
SELECT app.from_table();
SELECT app.from_renamed();
SELECT app.from_rowtype();
SQL
