#!/usr/bin/env bash
# test_replicarole.sh - which triggers, rules and event triggers fire by
# session_replication_role, in SQL files as in the catalog:
# fixtures/replicarole.sql gives the edges of
# fixtures/expected/replicarole.edges (an ordinary session: origin and
# ALWAYS ones) from the live database and from the file, and run with
# `cgmap_trace.track = all` in an ordinary session each is observed on
# its static edge and nothing is left unexplained.  Then the same work
# under `SET session_replication_role = replica`, mapped with
# `--replication-role replica`: the REPLICA and ALWAYS ones fire, the
# origin ones, their WHEN conditions and foreign keys' actions do not,
# each checked below one by one, and the snapshot says the role.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case replicarole "triggers, rules and event triggers of an ordinary session" <<'SQL'
SELECT a.work();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "a.trg_r()" "a.trg_d()" "a.log_r(integer)" \
	"a.ddl_r()" "a.ddl_d()"

pgtest_replica_workload "$PGTEST_WORK" replicarole <<'SQL'
SELECT a.work();
SQL
edges=$PGTEST_WORK/replica.edges
pgtest_expect_edge "$edges" yes \
	"a.work() -> a.trg_r() via trigger" \
	"a.work() -> a.trg_a() via trigger" \
	"a.work() -> a.log_r(integer) via rule (rule r_r on a.t2)" \
	"a.work() -> a.log_a(integer) via rule (rule r_a on a.t2)" \
	"a.work() -> a.ddl_r() via event_trigger (event trigger e_r)" \
	"a.work() -> a.ddl_a() via event_trigger (event trigger e_a)" \
	"a.work() -> a.child_a() via trigger"
pgtest_expect_edge "$edges" no "a.trg_o()" "a.trg_d()" "a.cond_o(integer)" "a.log_o(integer)" \
	"a.ddl_o()" "a.ddl_d()" "via cascade"
[ "$(jq -r .options.replication_role "$PGTEST_WORK/replica/cgmap.json")" = replica ] ||
	pgtest_fail "the snapshot does not record --replication-role replica"
[ "$(jq -r '.options.replication_role // "origin"' "$PGTEST_WORK/map/cgmap.json")" = origin ] ||
	pgtest_fail "an ordinary session's snapshot records a replication role"

# The SQL files mapped as a replica session give the same edges.
"$CGMAP" --sql "$src/fixtures/replicarole.sql" --replication-role replica --no-html \
	--out "$PGTEST_WORK/replica_sql" 2>"$PGTEST_WORK/replica_sql.err" ||
	pgtest_fail "cgmap --sql --replication-role replica failed: $(cat "$PGTEST_WORK/replica_sql.err")"
"$CGMAP" --dsn "dbname=replicarole" --replication-role replica --no-runtime --no-html \
	--out "$PGTEST_WORK/replica_static" 2>"$PGTEST_WORK/replica_static.err" ||
	pgtest_fail "cgmap --replication-role replica failed: $(cat "$PGTEST_WORK/replica_static.err")"
"$CGMAP" report edges "$PGTEST_WORK/replica_static" >"$PGTEST_WORK/replica_static.edges"
"$CGMAP" report edges "$PGTEST_WORK/replica_sql" >"$PGTEST_WORK/replica_sql.edges"
pgtest_expect_file "$PGTEST_WORK/replica_static.edges" "$PGTEST_WORK/replica_sql.edges" \
	"the replica session's edges (SQL files)"
echo "ok: a replica session's triggers, rules and event triggers"
