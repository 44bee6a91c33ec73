#!/usr/bin/env bash
# test_fromscope.sh - a function in FROM sees the items to its left, never
# its own output columns or the items after it, and a subquery without
# LATERAL only the enclosing queries: fixtures/fromscope.sql gives the
# edges of fixtures/expected/fromscope.edges from the live database and
# from the file (before, `FROM rd(flow, vt)` with rd returning a column vt
# called the overload of that column's type, which PostgreSQL never ran;
# and `SELECT id FROM app.top()`, top returning a row type, took the
# function's name for the row's first column, so `id` was the outer
# table's bigint one and below(bigint) was called; and `(g).geom` of
# `FROM app.dump(n) g`, dump returning a row type, had no type, so every
# isect overload was linked);
# run with `cgmap_trace.track = all`, each call is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case fromscope "names seen in FROM items" <<'SQL'
SELECT app.read_sql('a');
SELECT app.read_plpgsql('a');
SELECT app.lateral_left(now());
SELECT app.subquery(DATE '2026-01-01');
SELECT app.holdable();
SELECT app.by_row(5);
SQL
