#!/usr/bin/env bash
# test_doshowpath.sh - a DO block that reads the session's search_path
# (SHOW, current_setting()) and EXECUTEs a SET built from it sets that
# path for the rest of the file: fixtures/doshowpath.sql gives the edges of
# fixtures/expected/doshowpath.edges from the live database and from the
# file (before, the SET was not constant and never applied: the functions
# were made in public in the file's map, and the calls to them missing);
# run with `cgmap_trace.track = all`, each call is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case doshowpath "a search_path SET from the one a DO block reads" <<'SQL'
SELECT "Odd".run();
SQL
