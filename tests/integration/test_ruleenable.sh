#!/usr/bin/env bash
# test_ruleenable.sh - ALTER TABLE ... DISABLE RULE stops a rule firing and
# ENABLE [ALWAYS | REPLICA] RULE starts it again, in SQL files as in the
# catalog (pg_rewrite.ev_enabled); a disabled DO INSTEAD rule replaces
# nothing.  fixtures/ruleenable.sql gives the edges of
# fixtures/expected/ruleenable.edges from the live database and from the
# file (none to the disabled rule's logit); run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained.  The REPLICA rule fires under session_replication_role =
# replica, which the workload sets for its caller.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case ruleenable "rules disabled and enabled again" <<'SQL'
SELECT a.caller();
SET session_replication_role = replica;
SELECT a.replica_caller();
RESET session_replication_role;
SQL
