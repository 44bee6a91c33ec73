#!/usr/bin/env bash
# test_gistscan.sh - a GiST index's support functions by the statements
# that call them: fixtures/gistscan.sql gives the edges of
# fixtures/expected/gistscan.edges from the live database and from the
# file, with the distance and fetch functions on the read ordered by
# distance alone, not on the UPDATE, the DELETE or the foreign key's ON
# DELETE CASCADE (before, all three had them: calls PostgreSQL cannot make
# there, since an index-only or ordered scan gives no row to change).
# Run with `cgmap_trace.track = all`, each is observed on its static edge
# and nothing is left unexplained; the UPDATE's entry insertion is left
# out: it changes no indexed column, so whether it is a HOT update (no
# entry) depends on the room on the row's page.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

# Sequential scans off: the plans must use the index for PostgreSQL to call
# its functions; 2,000 rows split the index's pages.
pgtest_traced_case gistscan "calls of GiST support functions" \
	'^app\.touch\(integer\) -> app\.i4_(compress|penalty|picksplit|same|union)' <<'SQL'
SET enable_seqscan = off;
SELECT app.fill(2000);
SELECT app.nearest(17);
SELECT app.remove(5);
SELECT app.touch(6);
SELECT app.drop_parent(7);
SELECT count(*) FROM app.item WHERE id = 7;
SQL
