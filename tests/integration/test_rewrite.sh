#!/usr/bin/env bash
# test_rewrite.sh - statements that build a table's indexes again run the
# functions of their expressions for every row: an ALTER TABLE that
# rewrites the table, REINDEX TABLE and CLUSTER (an ALTER TABLE that
# rewrites nothing runs none); ANALYZE runs them on the rows it samples,
# VALIDATE CONSTRAINT the check it names.  fixtures/rewrite.sql gives the edges of
# fixtures/expected/rewrite.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case rewrite "index rebuilds, ANALYZE and VALIDATE" <<'SQL'
INSERT INTO app.t VALUES (1, 1), (2, 2);
SELECT app.sample();
SELECT app.validate();
SELECT app.add_plain();
SELECT app.widen();
SELECT app.add_fresh();
SELECT app.rebuild();
SQL
