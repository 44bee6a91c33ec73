#!/usr/bin/env bash
# test_paramlist.sh - defaults read from the written parameter list:
# fixtures/paramlist.sql (an ARRAY[...] default, whose commas are not the
# list's, and a comment after the last default) gives the edges of
# fixtures/expected/paramlist.edges from the live database and from the
# file (the body's call, and the default the caller's call leaves out);
# run with `cgmap_trace.track = all`, each is observed on its static edge
# and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case paramlist "calls of a function with an ARRAY default" <<'SQL'
SELECT pl.caller();
SQL
