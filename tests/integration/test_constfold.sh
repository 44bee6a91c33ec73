#!/usr/bin/env bash
# test_constfold.sh - what the planner folds to a constant never runs:
# `false AND x`, `true OR x`, a CASE's WHEN false arm and the arms after a
# WHEN true one call nothing, while `true AND x` still calls x.
# fixtures/constfold.sql gives the edges of fixtures/expected/constfold.edges
# from the live database and from the file; run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained (a call the map dropped but PostgreSQL made would be).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case constfold "calls the planner folds away" <<'SQL'
INSERT INTO app.t VALUES (1);
SELECT app.folded();
SELECT app.folded_sql();
SQL
