#!/usr/bin/env bash
# test_audithelper.sh - tables put under audit by a helper the migration
# calls (audit-trigger's pattern: a SQL wrapper over a PL/pgSQL function
# that EXECUTEs the CREATE TRIGGER it builds): fixtures/audithelper.sql
# gives the edges of fixtures/expected/audithelper.edges from the live
# database and from the file (before, the files ran no call, so their
# map had no audit trigger and none of these edges); run with
# `cgmap_trace.track = all`, each trigger edge is observed and nothing is
# left unexplained (the helper's own calls ran while the fixture loaded,
# before the trace's reset: not in the workload).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case audithelper "the triggers an audit helper makes" '^audit\.watch\(' <<'SQL'
SELECT public.place_order(10);
SELECT public.clear_lines();
SQL
