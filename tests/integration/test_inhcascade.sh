#!/usr/bin/env bash
# test_inhcascade.sh - a foreign key's referential actions run ONLY on a
# referencing table that is not partitioned: fixtures/inhcascade.sql gives
# the edges of fixtures/expected/inhcascade.edges from the live database
# and from the file (no edge to the trigger of a table inheriting from the
# referencing one; the triggers of a partitioned referencing table's
# partitions, once); run with `cgmap_trace.track = all`, each is observed
# on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case inhcascade "referential actions on inheritance and partitions" <<'SQL'
SELECT app.drop_parents();
SELECT app.clear_refs();
SQL
