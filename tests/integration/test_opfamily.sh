#!/usr/bin/env bash
# test_opfamily.sh - index support functions an operator class gets from
# its family (ALTER OPERATOR FAMILY ... ADD FUNCTION): fixtures/opfamily.sql
# gives the edges of fixtures/expected/opfamily.edges from the live
# database and from the file (test_sql_parity compares the family's
# references); run with `cgmap_trace.track = all`, each is observed on its
# static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case opfamily "index support functions of operator families" <<'SQL'
SELECT app.put(1);
SELECT app.put(2);
SQL
