#!/usr/bin/env bash
# test_aggforms.sh - calls of aggregates declared VARIADIC or with named
# arguments, of one whose polymorphic final function's result its argument
# types resolve, and of one renamed and moved to another schema:
# fixtures/aggforms.sql gives the edges of fixtures/expected/aggforms.edges
# from the live database and from the file (test_sql_parity compares the
# aggregates themselves, their comments and references); run with
# `cgmap_trace.track = all`, each support function's call is observed on
# its static edge and nothing is left unexplained (an aggregate is never
# called through fmgr itself: its own edges are static only).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case aggforms "calls of aggregates" '-> (app\.(dot|last_int|vsum)|other\.moved_dot)\(.* via call ' <<'SQL'
SELECT app.stats();
SQL
