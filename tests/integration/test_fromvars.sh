#!/usr/bin/env bash
# test_fromvars.sh - PL/pgSQL variables in a FROM item's expressions (a
# function's arguments in FROM, a subquery's and a CTE's columns) have
# their types: fixtures/fromvars.sql gives the edges of
# fixtures/expected/fromvars.edges from the live database and from the
# file (before, a call passing such a column was ambiguous among every
# overload); run with `cgmap_trace.track = all`, each call is observed on
# its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case fromvars "variables in FROM items" <<'SQL'
SELECT app.read_until(now());
SELECT app.columns(DATE '2026-01-01');
SQL
