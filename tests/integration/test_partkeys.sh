#!/usr/bin/env bash
# test_partkeys.sh - what a partitioned table's key expressions run: the
# routing of an INSERT, and the check of every row an INSERT or UPDATE of a
# partition writes against the keys above it (sub-partitions, a partition
# attached, one detached): fixtures/partkeys.sql gives the edges of
# fixtures/expected/partkeys.edges from the live database and from the
# file (test_sql_parity compares the effects and references, and those of
# a pg_dump); run with `cgmap_trace.track = all`, each is observed on its
# static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case partkeys "edges through partition keys" <<'SQL'
SELECT app.work();
SELECT app.attach_negative();
SQL
