#!/usr/bin/env bash
# test_schemahelpers.sh - a migration that changes its schema through the
# functions it calls with constant arguments (xTuple's dropIfExists), and
# a DO block whose IF its own variables decide: fixtures/schemahelpers.sql
# gives the edges of fixtures/expected/schemahelpers.edges from the live
# database and from the file (before, the files kept the function and
# view the helper dropped, refused the new rate(integer) as existing
# already, and took the DO block's first branch: rate(integer) and
# total(integer) called rate(integer) in the files' map, and
# old_total(integer) was there); a helper called without the parameters
# that have defaults runs with their values, and makes the rule through
# which remove(integer) calls stamp() (before, the files did not know
# the rule's SQL), as an argument concatenating constants does for
# remove2(integer); run with `cgmap_trace.track = all`, each
# call is observed on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case schemahelpers "the schema a migration's helper functions change" <<'SQL'
SELECT helpers.total(2);
SELECT helpers.rate(4);
SELECT helpers.drop_if_exists('FUNCTION', 'not_there()');
SELECT helpers.remove(1);
SELECT helpers.remove2(1);
SQL
