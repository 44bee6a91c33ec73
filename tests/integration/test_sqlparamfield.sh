#!/usr/bin/env bash
# test_sqlparamfield.sh - `p.field` of a record-typed parameter in a SQL
# function's body, after function_name.parameter: fixtures/sqlparamfield.sql
# gives the edges of fixtures/expected/sqlparamfield.edges from the live
# database and from the file, and run with `cgmap_trace.track = all` each
# is observed on its static edge and nothing is left unexplained.  Before,
# the field was typed unknown and each call ambiguous between two overloads.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case sqlparamfield "calls typed by a record parameter's field" <<'SQL'
SELECT app.key_of_row(ROW('a', 'b', '{x,y}', '{1,2}'));
SELECT app.key_of_named('k', ROW('a', 'b', '{x}', '{1}'));
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "ambiguous"
