#!/usr/bin/env bash
# test_aggtrace.sh - an aggregate seen at runtime through its support
# functions: PostgreSQL never calls an aggregate through fmgr, it runs its
# transition (once per row) and final (once per group) functions, which
# cgmap_trace (`track = all`) sees called by the caller.
# fixtures/aggtrace.sql gives the edges of fixtures/expected/aggtrace.edges
# from the live database and from the file; traced, each is observed but
# app.use_bi() -> app.jm_bi(jsonb): jm_bi's transition is jsonb_concat, a
# builtin, which cgmap_trace never records (it traces functions above the
# initdb range only), so nothing shows that aggregate ran.  Then:
#  - a caller's edge to an aggregate carries the most calls of its support
#    edges (the transition's: 3 rows aggregated, the final ran once), and
#    the aggregate those calls;
#  - an aggregate of builtins stays static only, and never called, it is
#    untraceable, not dead; one of user functions never called is dead
#    (though it shares its transition with an aggregate that ran).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case aggtrace "calls of aggregates" '^app\.use_bi\(\) -> app\.jm_bi\(' <<'SQL'
SELECT app.use_pl();
SELECT app.use_fin();
SELECT app.use_bi();
SQL

"$CGMAP" --dsn "dbname=aggtrace" --out "$PGTEST_WORK/live" --no-html --min-window 0 \
	--min-calls 1 2>"$PGTEST_WORK/live.err" || pgtest_fail "cgmap failed: $(cat "$PGTEST_WORK/live.err")"
"$CGMAP" report edges "$PGTEST_WORK/live" >"$PGTEST_WORK/edges"
"$CGMAP" report functions "$PGTEST_WORK/live" >"$PGTEST_WORK/functions"
cat >"$PGTEST_WORK/want.edges" <<'EDGES'
app.use_bi() -> app.jm_bi(jsonb) via call static lines 4
app.use_fin() -> app.fin(jsonb) via aggregate (aggregate app.jm_fin(jsonb)) both lines 4 calls 1
app.use_fin() -> app.jm_fin(jsonb) via call both lines 4 calls 3
app.use_fin() -> app.sf(jsonb,jsonb) via aggregate (aggregate app.jm_fin(jsonb)) both lines 4 calls 3
app.use_pl() -> app.jm_pl(jsonb) via call both lines 4 calls 1
app.use_pl() -> app.sf(jsonb,jsonb) via aggregate (aggregate app.jm_pl(jsonb)) both lines 4 calls 1
EDGES
pgtest_expect_file "$PGTEST_WORK/want.edges" "$PGTEST_WORK/edges" "edges of aggregates"
cat >"$PGTEST_WORK/want.functions" <<'FUNCTIONS'
app.fin(jsonb) called root referenced calls 1
app.jm_bi(jsonb) reachable calls 0
app.jm_fin(jsonb) called calls 3
app.jm_pl(jsonb) called calls 1
app.sf(jsonb,jsonb) called root referenced calls 4
app.unused_bi(jsonb) untraceable calls 0
app.unused_pl(jsonb) dead calls 0
app.use_bi() called root entry calls 1
app.use_fin() called root entry calls 1
app.use_pl() called root entry calls 1
FUNCTIONS
pgtest_expect_file "$PGTEST_WORK/want.functions" "$PGTEST_WORK/functions" "verdicts of aggregates"
# The aggregates' calls are their support functions' seen again: the
# calls observed in all are the 4 + 1 of sf and fin and the 3 entries.
grep -q ', 8 calls observed;' "$PGTEST_WORK/live.err" ||
	pgtest_fail "calls observed in all: $(grep 'evidence' "$PGTEST_WORK/live.err")"
echo "ok: aggregates observed through their support functions, builtin ones untraceable"
