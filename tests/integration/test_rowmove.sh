#!/usr/bin/env bash
# test_rowmove.sh - an UPDATE of a partitioned table that sets a key column
# may move rows between partitions, firing the row DELETE triggers of one
# and the row INSERT triggers of the other; one that sets no key column
# moves nothing.  fixtures/rowmove.sql gives the edges of
# fixtures/expected/rowmove.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case rowmove "row movement between partitions" <<'SQL'
INSERT INTO app.task VALUES (1, 'open', NULL), (2, 'open', NULL);
SELECT app.annotate(2);
SELECT app.finish(1);
SQL
