#!/usr/bin/env bash
# test_tabledefault.sh - a RETURNS TABLE function with a parameter default
# that is not a constant: fixtures/tabledefault.sql gives the edges of
# fixtures/expected/tabledefault.edges from the live database and from the
# file (the body's call, and the default the caller's call leaves out);
# run with `cgmap_trace.track = all`, each is observed on its static edge
# and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case tabledefault "calls of a RETURNS TABLE function with defaults" <<'SQL'
SELECT td.caller();
SQL
