#!/usr/bin/env bash
# test_opclass.sh - the support functions of an index's operator classes
# run on a statement's behalf: fixtures/opclass.sql (btree and hash classes
# of a type, written in PL/pgSQL; a PRIMARY KEY, a UNIQUE constraint named
# by PostgreSQL, a hash index naming its class) gives the edges of
# fixtures/expected/opclass.edges from the live database and from the file;
# run with `cgmap_trace.track = all`, each is observed on its static edge
# and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_traced_fixture "$work" opc "$src/fixtures/opclass.sql" "$src/fixtures/expected/opclass.edges" \
	"operator class edges"

# Enough rows that each index compares and hashes keys; releases of one
# major version, so that the comparison reads both fields.
pgtest_psql -d opc -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 <<'SQL' || { cat "$work/workload.log" >&2; pgtest_fail "the workload failed"; }
SELECT cgmap_trace_reset();
SELECT app.release(1, g) FROM generate_series(1, 40) g;
SELECT app.release(2, 0);
SELECT app.newer(ROW(2, 0)::app.ver, ROW(1, 7)::app.ver);
SQL
"$cgmap" --dsn "dbname=opc" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
pgtest_expect_traced "$src/fixtures/expected/opclass.edges" "$work/map" "calls of operator classes' support functions"
echo "ok: $(wc -l <"$work/map.both") edges through operator classes observed and explained"

# DROP OPERATOR CLASS ... CASCADE takes the index with it: the file and the
# database then agree on the edges and references left.
{ cat "$src/fixtures/opclass.sql"; echo "DROP OPERATOR CLASS app.ver_hash_ops USING hash CASCADE;"; } >"$work/drop.sql"
pgtest_psql -d opc -v ON_ERROR_STOP=1 -c "DROP OPERATOR CLASS app.ver_hash_ops USING hash CASCADE" >/dev/null
"$cgmap" --dsn "dbname=opc" --out "$work/dropped-live" --no-html --no-runtime 2>/dev/null ||
	pgtest_fail "cgmap failed after the drop"
"$cgmap" --sql "$work/drop.sql" --out "$work/dropped-sql" --no-html 2>/dev/null ||
	pgtest_fail "cgmap --sql failed on the drop"
for side in live sql; do
	"$cgmap" report edges "$work/dropped-$side" >"$work/dropped-$side.edges"
	jq -r '.references[] | "\(.function) \(.object)"' "$work/dropped-$side/cgmap.json" | sort >"$work/dropped-$side.refs"
done
grep -v ver_hash_ops "$src/fixtures/expected/opclass.edges" >"$work/dropped.want"
pgtest_expect_file "$work/dropped.want" "$work/dropped-live.edges" "edges after DROP OPERATOR CLASS (live)"
pgtest_expect_file "$work/dropped.want" "$work/dropped-sql.edges" "edges after DROP OPERATOR CLASS (SQL files)"
pgtest_expect_file "$work/dropped-live.refs" "$work/dropped-sql.refs" "references after DROP OPERATOR CLASS"
echo "ok: DROP OPERATOR CLASS drops what its index ran, from the file as in the database"
