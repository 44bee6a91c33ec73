#!/usr/bin/env bash
# test_domdefault.sh - a domain's DEFAULT fills in a column of its type that
# an INSERT leaves out and that has no default of its own.
# fixtures/domdefault.sql gives the edges of fixtures/expected/domdefault.edges
# from the live database and from the file (none where a column's own
# default, a nearer domain default calling nothing or the INSERT's own value
# wins); run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case domdefault "domain defaults of columns left out" <<'SQL'
SELECT y.cd();
SELECT y.cd_given();
SELECT y.cneg();
SELECT y.cl1();
SELECT y.cl2();
SELECT y.cdrop();
SELECT y.cx();
SELECT y.clike();
SQL
