#!/usr/bin/env bash
# test_relations.sh - edges through relations: fixtures/relations.sql loaded
# into PostgreSQL 15 and read as SQL files gives the exact edges of
# fixtures/expected/relations.edges (mechanism, object, lines) both ways,
# and the snapshot records the relations' effects and the event trigger.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"
pgtest_start
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

pgtest_psql -c "CREATE DATABASE rel" >/dev/null
pgtest_psql -d rel -v ON_ERROR_STOP=1 -f "$src/fixtures/relations.sql" >/dev/null

"$cgmap" --dsn "dbname=rel" --out "$work/live" --no-runtime --snapshot-format 1 2>"$work/live.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/live.err")"
"$cgmap" report edges "$work/live" >"$work/live.edges"
pgtest_expect_file "$src/fixtures/expected/relations.edges" "$work/live.edges" "edges through relations (live)"

"$cgmap" --sql "$src/fixtures/relations.sql" --out "$work/sql" 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/relations.edges" "$work/sql.edges" "edges through relations (SQL files)"

# Every statement on a relation is a site of its own, with its line, even
# when it runs nothing (the relations a function reads and writes).
grep -q '{"line": 5, "kind": "relation", .*"name": "orders", .*"events": \["SELECT"\]' "$work/live/cgmap.json" ||
	pgtest_fail "the read of app.orders by app.read_orders() is not a relation site"
echo "ok"
