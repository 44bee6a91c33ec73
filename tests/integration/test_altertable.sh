#!/usr/bin/env bash
# test_altertable.sh - what ALTER TABLE and ALTER DOMAIN change in what a
# table runs: a check or default added to a table reaching the tables
# inheriting from it and its partitions (not ONLY, not NO INHERIT), DROP
# DEFAULT, DROP EXPRESSION and DROP COLUMN taking theirs away, DETACH
# PARTITION, a domain's constraints added and dropped.
# fixtures/altertable.sql gives the edges of
# fixtures/expected/altertable.edges from the live database and from the
# file (test_sql_parity compares objects and references, and those of a
# pg_dump); run with `cgmap_trace.track = all`, each is observed on its
# static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case altertable "edges after ALTER TABLE and ALTER DOMAIN" <<'SQL'
SELECT app.work();
SQL
