#!/usr/bin/env bash
# test_opoperands.sh - an operator whose operands are calls runs the user
# operator the calls' result types select: resolution types the operands
# from the catalog; an untyped literal operand takes the string-category
# operator, and a trigger's TG_ARGV[n] is text.  fixtures/opoperands.sql gives the edges of
# fixtures/expected/opoperands.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case opoperands "operators on calls" <<'SQL'
SELECT app.both_calls();
SELECT app.variable_and_call();
SELECT app.both_calls_sql();
SELECT app.add_item();
SQL
