#!/usr/bin/env bash
# test_returningcte.sh - a data-modifying CTE's columns are its RETURNING
# list, typed over its target (by the target's alias), an UPDATE's FROM
# and a DELETE's USING: fixtures/returningcte.sql gives the edges of
# fixtures/expected/returningcte.edges from the live database and from the
# file (before, such a column had no type, and a call passing it was
# ambiguous among every overload, with a static edge to the one PostgreSQL
# never calls); run with `cgmap_trace.track = all`, each call is observed
# on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case returningcte "RETURNING columns of data-modifying CTEs" <<'SQL'
SELECT app.reapply('a');
SELECT app.touch('b');
SELECT app.add('d');
SELECT app.drop_owned();
SQL
