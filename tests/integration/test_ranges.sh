#!/usr/bin/env bash
# test_ranges.sh - calls of the constructors CREATE TYPE ... AS RANGE makes
# (the range's and its multirange's, named as PostgreSQL names them):
# fixtures/ranges.sql gives the edges of fixtures/expected/ranges.edges
# from the live database and from the file (test_sql_parity compares the
# constructors themselves and the type's references); run with
# `cgmap_trace.track = all`, each is observed on its static edge and
# nothing is left unexplained.  app.days() stays out of the workload: its
# constructor calls the range's canonical function, a call made inside an
# internal function that neither source maps.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case ranges "calls of range constructors" '^app\.days\(\)' <<'SQL'
SELECT app.work();
SQL
