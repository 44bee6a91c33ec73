#!/usr/bin/env bash
# test_aggforms.sh - calls of aggregates declared VARIADIC or with named
# arguments, of one whose polymorphic final function's result its argument
# types resolve, and of one renamed and moved to another schema:
# fixtures/aggforms.sql gives the edges of fixtures/expected/aggforms.edges
# from the live database and from the file (test_sql_parity compares the
# aggregates themselves, their comments and references); run with
# `cgmap_trace.track = all`, each support function's call is observed on
# its static edge, and the caller's edge to the aggregate with it (an
# aggregate is never called through fmgr itself: it is seen through its
# support functions), and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case aggforms "calls of aggregates" <<'SQL'
SELECT app.stats();
SQL
