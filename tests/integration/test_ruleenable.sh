#!/usr/bin/env bash
# test_ruleenable.sh - ALTER TABLE ... DISABLE RULE stops a rule firing and
# ENABLE [ALWAYS | REPLICA] RULE starts it again, in SQL files as in the
# catalog (pg_rewrite.ev_enabled); a disabled DO INSTEAD rule replaces
# nothing.  fixtures/ruleenable.sql gives the edges of
# fixtures/expected/ruleenable.edges from the live database and from the
# file (none to the disabled rule's logit); run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained.  The REPLICA rule fires only under session_replication_role
# = replica: not in that map of an ordinary session, but in one made with
# --replication-role replica of replica_caller() run so, where the
# ordinary rules do not fire.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case ruleenable "rules disabled and enabled again" <<'SQL'
SELECT a.caller();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "a.logit5(integer)"

pgtest_replica_workload "$PGTEST_WORK" ruleenable <<'SQL'
SELECT a.replica_caller();
SELECT a.caller();
SQL
pgtest_expect_edge "$PGTEST_WORK/replica.edges" yes \
	"a.replica_caller() -> a.logit5(integer) via rule (rule r5 on a.t5)" \
	"a.caller() -> a.logit3(integer) via rule (rule r3 on a.t3)"
pgtest_expect_edge "$PGTEST_WORK/replica.edges" no "a.logit2(integer)" "a.trg()"
echo "ok: the REPLICA rule fires in a replica session alone"
