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
ext="$src/extension/cgmap_trace"
. "$src/tests/lib/pgtest.sh"

skip() { echo "SKIP: $*" >&2; exit 77; }
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

"$cgmap" --sql "$src/fixtures/domainchecks.sql" --out "$work/sql" --no-html 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/domainchecks.edges" "$work/sql.edges" "edges through domain checks (SQL files)"

command -v pg_config >/dev/null 2>&1 || skip "pg_config not found (install postgresql-server-dev-15)"
command -v make >/dev/null 2>&1 || skip "make not found"
pkglibdir=$(pg_config --pkglibdir)
sharedir=$(pg_config --sharedir)
if [ "$(id -u)" != 0 ] && { [ ! -w "$pkglibdir" ] || [ ! -w "$sharedir/extension" ]; }; then
	skip "cannot install the extension: not root and no write access to $pkglibdir"
fi
"$ext/build.sh" "$work/ext" >"$work/ext.log" 2>&1 || { cat "$work/ext.log" >&2; pgtest_fail "build.sh failed"; }
"$ext/install.sh" "$work/ext" >>"$work/ext.log" 2>&1 || skip "install.sh could not install the extension"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE dc" >/dev/null
pgtest_psql -d dc -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/domainchecks.sql" >/dev/null

"$cgmap" --dsn "dbname=dc" --out "$work/static" --no-html --no-runtime 2>"$work/static.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/static.err")"
"$cgmap" report edges "$work/static" >"$work/static.edges"
pgtest_expect_file "$src/fixtures/expected/domainchecks.edges" "$work/static.edges" "edges through domain checks (live)"

got=$(pgtest_psql -d dc -Atc "SELECT cgmap_trace_reset()" -c "SELECT app.workload()" | tail -1)
[ "$got" = ABCXYZDEFGHI ] || pgtest_fail "app.workload() returned '$got', want ABCXYZDEFGHI"
"$cgmap" --dsn "dbname=dc" --out "$work/traced" --no-html 2>"$work/traced.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
"$cgmap" report unexplained "$work/traced" | grep -v '^#' >"$work/unexplained" || true
[ ! -s "$work/unexplained" ] || pgtest_fail "calls left unexplained: $(cat "$work/unexplained")"
"$cgmap" report edges "$work/traced" >"$work/traced.edges"
sed -E 's/ static lines .*//' "$src/fixtures/expected/domainchecks.edges" | LC_ALL=C sort >"$work/want"
grep ' both ' "$work/traced.edges" | sed -E 's/ both lines .*//' | LC_ALL=C sort >"$work/both"
missing=$(comm -23 "$work/want" "$work/both")
[ -z "$missing" ] || pgtest_fail "edges not observed at runtime (or observed elsewhere): $missing
$(cat "$work/traced.edges")"
if grep -q '^app\.already_typed(app\.code) -> app\.valid_code' "$work/traced.edges"; then
	pgtest_fail "a value of the domain already has a check edge"
fi
echo "ok: $(wc -l <"$work/both") edges static and observed, $(grep -c 'via domain' "$work/both") of them through domain checks"
