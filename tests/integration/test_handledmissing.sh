#!/usr/bin/env bash
# test_handledmissing.sh - missing callees a function expects:
# fixtures/handledmissing.sql calls two functions that do not exist in
# blocks that catch undefined_function (by name and by SQLSTATE '42883',
# one through constant EXECUTE SQL), and two in app.broken(), whose block
# catches only OTHERS and whose handler is no block of its own; one,
# pg_jobmon's add_job, under an IF that finds pg_jobmon in pg_extension
# first (the database has none), and one under an IF that finds plpgsql
# (which it has).  PostgreSQL runs app.version() and app.log_job() without
# an error and only app.base() is called; the map, live and from the
# file, counts 3 missing callees and 3 expected ones, the missing report
# says which are expected and why (`handled`), and a diff that adds them
# reports no missing-callee finding for the expected ones.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case handledmissing "calls of functions a handler expects to be absent" <<'SQL'
SELECT app.version();
SELECT app.log_job('nightly');
SQL
[ "$(pgtest_psql -d handledmissing -c "SELECT app.version()")" = "1.0 geo none raster none" ] ||
	pgtest_fail "app.version() did not run past its absent plug-ins"
for map in static sql; do
	pgtest_expect_grep "$map: the summary counts them apart" "$PGTEST_WORK/$map.err" \
		"3 missing callees (and 3 callees expected absent)"
	"$CGMAP" report missing "$PGTEST_WORK/$map" --format csv >"$PGTEST_WORK/$map.missing"
	pgtest_expect_grep "$map: geo_version expected" "$PGTEST_WORK/$map.missing" \
		",app.geo_version,0,no function app.geo_version() exists; expected: the block around the call catches undefined_function,true"
	pgtest_expect_grep "$map: raster_version expected (constant EXECUTE SQL)" "$PGTEST_WORK/$map.missing" \
		",app.raster_version,0,no function app.raster_version() exists; expected: the block around the call catches undefined_function,true"
	pgtest_expect_grep "$map: only OTHERS is no expectation" "$PGTEST_WORK/$map.missing" \
		",app.typo_version,0,no function app.typo_version() exists,false"
	pgtest_expect_grep "$map: the handler's own call is not guarded by it" "$PGTEST_WORK/$map.missing" \
		",app.fallback_version,0,no function app.fallback_version() exists,false"
	pgtest_expect_grep "$map: add_job runs only with pg_jobmon" "$PGTEST_WORK/$map.missing" \
		',add_job,1,"no function add_job(text) exists; expected: it runs only when extension pg_jobmon is installed, and it is not",true'
	pgtest_expect_grep "$map: under an extension the database has, a defect" "$PGTEST_WORK/$map.missing" \
		",app.plpgsql_helper,0,no function app.plpgsql_helper() exists,false"
	pgtest_expect_grep "$map: the snapshot's summary" "$PGTEST_WORK/$map/cgmap.json" '"missing_handled":3'
done

# The site: the function page draws an expected absent callee in grey,
# says why, and the missing report page lists only the defects.
"$CGMAP" render "$PGTEST_WORK/sql" --out "$PGTEST_WORK/site" 2>"$PGTEST_WORK/render.err" ||
	pgtest_fail "render failed: $(cat "$PGTEST_WORK/render.err")"
page=$(grep -l '<h1 class="fn">app.version()</h1>' "$PGTEST_WORK"/site/functions/*.html)
pgtest_expect_grep "site: the graph says expected absent" "$page" 'expected absent'
pgtest_expect_grep "site: the page says why" "$page" \
	'expected: the block around the call catches undefined_function'
missing_page=$(ls "$PGTEST_WORK"/site/reports/missing*.html)
pgtest_expect_grep "site: the report page lists the defects" "$missing_page" 'typo_version'
if grep -q 'geo_version\|add_job' "$missing_page"; then
	pgtest_fail "site: the missing report page lists an expected absent callee"
fi

# A diff that adds app.version() finds no missing callee in it.
printf 'CREATE SCHEMA app;\nCREATE FUNCTION app.base() RETURNS text LANGUAGE sql AS $$ SELECT $q$1.0$q$ $$;\n' \
	>"$PGTEST_WORK/base.sql"
"$CGMAP" --sql "$PGTEST_WORK/base.sql" --out "$PGTEST_WORK/base" --no-html 2>/dev/null
set +e
"$CGMAP" diff "$PGTEST_WORK/base" "$PGTEST_WORK/sql" >"$PGTEST_WORK/diff.txt" 2>&1
set -e
pgtest_expect_grep "diff: the defects are findings" "$PGTEST_WORK/diff.txt" \
	"calls app.typo_version with 0 arguments: no such function"
pgtest_expect_grep "diff: a call under an installed extension is a finding" "$PGTEST_WORK/diff.txt" \
	"calls app.plpgsql_helper with 0 arguments: no such function"
if grep -q 'geo_version\|raster_version\|add_job' "$PGTEST_WORK/diff.txt"; then
	cat "$PGTEST_WORK/diff.txt" >&2
	pgtest_fail "diff: an expected missing callee reported as a finding"
fi
echo "PASS"
