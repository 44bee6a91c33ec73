#!/usr/bin/env bash
# test_domainchecks.sh - a domain's CHECK runs where a value becomes of the
# domain: fixtures/domainchecks.sql gives the edges of
# fixtures/expected/domainchecks.edges (via domain, from the caller passing
# a text to a parameter of the domain, from the function assigning,
# declaring, casting to or returning it; both checks for a domain over a
# domain; none for a value of the domain already), read as SQL files and
# live.  Then, run with cgmap_trace (`track = all`), PostgreSQL is the
# judge: every edge is observed from its caller, nothing is left
# unexplained, and the value of the domain already runs no check.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

"$cgmap" --sql "$src/fixtures/domainchecks.sql" --out "$work/sql" --no-html 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/domainchecks.edges" "$work/sql.edges" "edges through domain checks (SQL files)"

pgtest_install_trace "$work"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE dc" >/dev/null
pgtest_psql -d dc -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/domainchecks.sql" >/dev/null

"$cgmap" --dsn "dbname=dc" --out "$work/static" --no-html --no-runtime 2>"$work/static.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/static.err")"
"$cgmap" report edges "$work/static" >"$work/static.edges"
pgtest_expect_file "$src/fixtures/expected/domainchecks.edges" "$work/static.edges" "edges through domain checks (live)"

got=$(pgtest_psql -d dc -Atc "SELECT cgmap_trace_reset()" -c "SELECT app.workload()" | tail -1)
[ "$got" = ABCXYZDEFGHIJKLMNO ] || pgtest_fail "app.workload() returned '$got', want ABCXYZDEFGHIJKLMNO"
"$cgmap" --dsn "dbname=dc" --out "$work/traced" --no-html 2>"$work/traced.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
pgtest_expect_traced "$src/fixtures/expected/domainchecks.edges" "$work/traced" "calls through domain checks"
if grep -q '^app\.already_typed(app\.code) -> app\.valid_code' "$work/traced.edges"; then
	pgtest_fail "a value of the domain already has a check edge"
fi
echo "ok: $(wc -l <"$work/traced.both") edges static and observed, $(grep -c 'via domain' "$work/traced.both") of them through domain checks"
