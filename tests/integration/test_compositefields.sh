#!/usr/bin/env bash
# test_compositefields.sh - a PL/pgSQL variable of a composite type with
# 30 fields assigned one by one: fixtures/compositefields.sql parses
# (before, each field took a retry of the parse and the body ran out of
# them: a parse error and no edges), and gives the edges of
# fixtures/expected/compositefields.edges from the live database and from
# the file; run with `cgmap_trace.track = all`, the call is observed on its
# static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case compositefields "fields of a composite variable assigned" <<'SQL'
SELECT app.diff(ROW(3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)::app.sample,
	ROW(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)::app.sample);
SQL
