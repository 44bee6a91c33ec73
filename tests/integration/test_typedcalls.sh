#!/usr/bin/env bash
# test_typedcalls.sh - overloads decided by types the catalog gives: a
# trigger's NEW is its table's row, array_agg of an untyped value is an
# array, and typename('literal') is a cast that calls nothing but a
# domain's checks.
# fixtures/typedcalls.sql gives the edges of fixtures/expected/typedcalls.edges
# from the live database and from the file; run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case typedcalls "overloads decided by catalog types" <<'SQL'
SELECT app.use_tag();
SELECT app.add(1);
SELECT app.use_code();
SELECT app.code(ARRAY['a']);
SQL
