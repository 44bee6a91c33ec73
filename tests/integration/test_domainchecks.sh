#!/usr/bin/env bash
# test_domainchecks.sh - a domain's CHECK runs where a value becomes of the
# domain: fixtures/domainchecks.sql gives the edges of
# fixtures/expected/domainchecks.edges (via domain, from the caller passing
# a text to a parameter of the domain, from the function assigning,
# declaring, casting to or returning it, or storing it into a column of
# it; both checks for a domain over a domain; none for a value of the
# domain already, passed on or stored), read as SQL files and
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

pgtest_traced_fixture "$work" dc "$src/fixtures/domainchecks.sql" "$src/fixtures/expected/domainchecks.edges" \
	"edges through domain checks"

got=$(pgtest_psql -d dc -Atc "SELECT cgmap_trace_reset()" -c "SELECT app.workload()" | tail -1)
[ "$got" = ABCXYZDEFGHIJKLMNO ] || pgtest_fail "app.workload() returned '$got', want ABCXYZDEFGHIJKLMNO"
"$cgmap" --dsn "dbname=dc" --out "$work/traced" --no-html 2>"$work/traced.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
pgtest_expect_traced "$src/fixtures/expected/domainchecks.edges" "$work/traced" "calls through domain checks"
if grep -q '^app\.already_typed(app\.code) -> app\.valid_code' "$work/traced.edges"; then
	pgtest_fail "a value of the domain already has a check edge"
fi
if grep -q '^app\.store_typed(app\.code) -> app\.valid_code' "$work/traced.edges"; then
	pgtest_fail "a value of the domain already, stored into a column of it, has a check edge"
fi
echo "ok: $(wc -l <"$work/traced.both") edges static and observed, $(grep -c 'via domain' "$work/traced.both") of them through domain checks"
