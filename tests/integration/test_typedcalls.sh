#!/usr/bin/env bash
# test_typedcalls.sh - overloads decided by types the catalog gives: a
# trigger's NEW is its table's row, array_agg of an untyped value is an
# array, typename('literal') is a cast that calls nothing but a
# domain's checks, and a view's columns have their table's types (and a
# cast's), in the files too, where they had none (every overload of
# app.symbol was a candidate).
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
SELECT app.read_events();
SQL
