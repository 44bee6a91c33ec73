#!/usr/bin/env bash
# test_relcopy.sh - what a table runs that it got from another one (LIKE
# ... INCLUDING, INHERITS, PARTITION OF, ATTACH PARTITION, an index created
# on a partitioned table) or kept through RENAME TO, SET SCHEMA and RENAME
# COLUMN: fixtures/relcopy.sql gives the edges of
# fixtures/expected/relcopy.edges from the live database and from the file
# (test_sql_parity compares the copies' objects and references, and those
# of a pg_dump); run with `cgmap_trace.track = all`, each is observed on
# its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_traced_fixture "$work" relcopy "$src/fixtures/relcopy.sql" \
	"$src/fixtures/expected/relcopy.edges" "edges through copied and renamed tables"

pgtest_psql -d relcopy -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 <<'SQL' || { cat "$work/workload.log" >&2; pgtest_fail "the workload failed"; }
SELECT cgmap_trace_reset();
SELECT app.work();
SQL
"$cgmap" --dsn "dbname=relcopy" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
pgtest_expect_traced "$src/fixtures/expected/relcopy.edges" "$work/map" "calls of what copied and renamed tables run"
echo "ok: $(wc -l <"$work/map.both") edges through copied and renamed tables observed and explained"
