#!/usr/bin/env bash
# test_opoperands.sh - an operator whose operands are calls runs the user
# operator the calls' result types select: resolution types the operands
# from the catalog; an untyped literal operand takes the string-category
# operator, a trigger's TG_ARGV[n] is text, a simple CASE compares with
# the `=` its types select, row constructors compare field by field, and
# an operator PostgreSQL refuses as not unique is listed with the missing
# callees.  fixtures/opoperands.sql gives the edges of
# fixtures/expected/opoperands.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case opoperands "operators on calls" <<'SQL'
SELECT app.both_calls();
SELECT app.variable_and_call();
SELECT app.both_calls_sql();
SELECT app.add_item();
SELECT app.case_sql(app.mk(1));
SELECT app.case_plpgsql(app.mk(1));
SELECT app.case_statement(app.mk(2));
SELECT app.rows_distinct();
SELECT app.values_distinct();
SQL

# app.refused()'s '1' ### '2' ties: PostgreSQL refuses it, and the live
# map and the file's both list it with the missing callees, naming the two
# operators, with no edge.
err=$(pgtest_psql -d opoperands -c 'SELECT app.refused()' 2>&1 >/dev/null || true)
case $err in
*"operator is not unique: unknown ### unknown"*) ;;
*) pgtest_fail "PostgreSQL did not refuse app.refused(): $err" ;;
esac
for map in static sql; do
	"$CGMAP" report missing "$PGTEST_WORK/$map" >"$PGTEST_WORK/missing.$map"
	grep -qF "app.refused() line 1: the operator unknown ### unknown is not unique: operator app.###(integer,integer) and operator app.###(numeric,numeric) fit its operand types equally well (PostgreSQL refuses it)" \
		"$PGTEST_WORK/missing.$map" ||
		pgtest_fail "report missing ($map) does not name the refused operator: $(cat "$PGTEST_WORK/missing.$map")"
done
echo "ok - the refused operator is reported, with no edge"

# The second ### is what makes the operator refused: `cgmap diff` from a
# schema without it says so, and loses the edge.
grep -v hash_num "$src/fixtures/opoperands.sql" >"$PGTEST_WORK/base.sql"
"$CGMAP" --sql "$PGTEST_WORK/base.sql" --out "$PGTEST_WORK/base" --no-html --quiet
rc=0
"$CGMAP" diff "$PGTEST_WORK/base" "$PGTEST_WORK/sql" >"$PGTEST_WORK/diff.txt" || rc=$?
[ "$rc" = 2 ] || pgtest_fail "cgmap diff exited $rc, not 2: $(cat "$PGTEST_WORK/diff.txt")"
grep -qF "missing-callee  line 1     uses the operator unknown ### unknown: not unique, app.hash_int(integer,integer) and app.hash_num(numeric,numeric) fit its operand types equally well" \
	"$PGTEST_WORK/diff.txt" || pgtest_fail "cgmap diff does not name the refused operator: $(cat "$PGTEST_WORK/diff.txt")"
echo "ok - cgmap diff names the operator the change made not unique"
