#!/usr/bin/env bash
# test_familyfirst.sh - support functions added to an operator family by
# ALTER OPERATOR FAMILY before CREATE OPERATOR CLASS ... FAMILY, pg_dump's
# order for the members no class declares: fixtures/familyfirst.sql gives
# the edges of fixtures/expected/familyfirst.edges from the live database
# and from the file (before, the file's map lost compress, decompress and
# fetch: the family had no class yet to give them to).  Run with
# `cgmap_trace.track = all`, each is observed on its static edge and
# nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

# Sequential scans off so that the read uses the index (an index-only
# scan: fetch); 2,000 rows split the index's pages.
pgtest_traced_case familyfirst "support functions a family got before its class" <<'SQL'
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT app.fill(2000);
SELECT app.has(17);
SQL
