#!/usr/bin/env bash
# test_exprtype.sh - overloads resolved by the types of argument
# expressions (fixtures/exprtype.sql): the exact edge set mapped from a live
# PostgreSQL 15 and from the SQL file, and PostgreSQL's own answer: each
# app.by_* function returns the name of the app.pick overload the server
# called, which must be the one edge cgmap drew.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"
pgtest_start
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

pgtest_psql -c "CREATE DATABASE exprtype" >/dev/null
pgtest_psql -d exprtype -f "$src/fixtures/exprtype.sql" >/dev/null
pgtest_psql -d exprtype -c "INSERT INTO app.todo VALUES (1, 'a', current_date, '{x}', 'c')" >/dev/null

"$cgmap" --dsn dbname=exprtype --out "$work/live" --no-runtime --no-html 2>"$work/live.err" ||
	pgtest_fail "live: cgmap failed: $(cat "$work/live.err")"
"$cgmap" report edges "$work/live" >"$work/live.edges"
pgtest_expect_file "$src/fixtures/expected/exprtype.edges" "$work/live.edges" "live edges of fixtures/exprtype.sql"

"$cgmap" --sql "$src/fixtures/exprtype.sql" --out "$work/sql" --no-html 2>"$work/sql.err" ||
	pgtest_fail "sql: cgmap failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/exprtype.edges" "$work/sql.edges" "SQL-file edges of fixtures/exprtype.sql"

# PostgreSQL's own choice: the overload each caller really ran.
checked=0
while read -r caller call; do
	[ -n "$caller" ] || continue
	ran=$(pgtest_psql -d exprtype -Atc "SELECT $call" | head -1)
	edge=$(grep -F "$caller -> app.pick(" "$work/live.edges" | sed 's/.*app\.pick(\([^)]*\)).*/\1/')
	[ "$ran" = "$edge" ] || pgtest_fail "$caller: PostgreSQL called app.pick($ran), cgmap drew app.pick($edge)"
	checked=$((checked + 1))
done <<'CALLS'
app.by_subscript() app.by_subscript()
app.by_column() app.by_column()
app.by_rowtype(integer) app.by_rowtype(1)
app.by_pcttype() app.by_pcttype()
app.by_result(text) app.by_result('abc')
app.by_nested() app.by_nested()
app.by_operator(integer) app.by_operator(1)
app.by_coalesce(integer) app.by_coalesce(NULL)
app.by_case(boolean) app.by_case(true)
app.by_array(integer) app.by_array(1)
app.by_sublink() app.by_sublink()
app.by_test(integer) app.by_test(1)
app.by_field(app.pair) app.by_field(ROW(1, 'a')::app.pair)
app.by_srf() app.by_srf()
app.by_cte() app.by_cte()
app.by_cte_scope(boolean) app.by_cte_scope(true)
app.by_cte_update(integer) app.by_cte_update(5)
CALLS
[ "$checked" = 17 ] || pgtest_fail "checked $checked calls, not 17"

# A call PostgreSQL refuses as not unique: no edge, and the missing report
# says why, as the server does.
err=$(pgtest_psql -d exprtype -Atc "SELECT app.by_tie(1)" 2>&1 || true)
case $err in
*"function app.tie(integer) is not unique"*) ;;
*) pgtest_fail "app.by_tie(1): PostgreSQL said '$err', not that app.tie(integer) is not unique" ;;
esac
"$cgmap" report missing "$work/live" >"$work/live.missing"
grep -qF "app.by_tie(integer) line 3: the call of app.tie with 1 argument is not unique: app.tie(integer) and app.tie(integer,text) take them as the same types" "$work/live.missing" ||
	{ cat "$work/live.missing" >&2; pgtest_fail "the not-unique call is not reported"; }
echo "test_exprtype: ok"
