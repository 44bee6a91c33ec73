#!/usr/bin/env bash
# test_signatures.sh - the arguments and result the live map gives each
# function are the text PostgreSQL prints (pg_get_function_arguments and
# pg_get_function_result, under the empty search_path cgmap reads with):
# asked of the server for arguments with modes or defaults, joined by cgmap
# from the names and types for the others (quoted names, types of other
# schemas, typmods, procedures' IN, OUT and TABLE results, SETOF).  Every
# function of fixtures/signatures.sql, and of orafce's and pgTAP's scripts
# when installed (procedures and hundreds of real signatures).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

command -v jq >/dev/null 2>&1 || { echo "SKIP: jq not found" >&2; exit 77; }
sharedir=$(pg_config --sharedir 2>/dev/null || echo /usr/share/postgresql/15)
work=$(mktemp -d)
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_start
pgtest_psql -c "CREATE DATABASE sig" >/dev/null
for ext in orafce pgtap; do
	if [ -f "$sharedir/extension/$ext.control" ]; then
		pgtest_psql -d sig -c "SET client_min_messages = warning" -c "CREATE EXTENSION $ext" >/dev/null
	else
		echo "note: $ext is not installed, left out" >&2
	fi
done
pgtest_psql -d sig -v ON_ERROR_STOP=1 -f "$src/fixtures/signatures.sql" >/dev/null

"$cgmap" --dsn dbname=sig --out "$work/map" --include-extensions --no-html --no-runtime --quiet \
	2>"$work/map.err" || pgtest_fail "cgmap failed: $(cat "$work/map.err")"
jq -r '.functions[] | select(.builtin | not) | [.id, .arguments // "", .result // ""] | @tsv' \
	"$work/map/cgmap.json" | LC_ALL=C sort >"$work/cgmap.tsv"
pgtest_psql -d sig -At -F "$(printf '\t')" -c "SET search_path = ''" -c "
	SELECT p.oid::regprocedure::text, pg_get_function_arguments(p.oid),
	       coalesce(pg_get_function_result(p.oid), '')
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
	  AND n.nspname !~ '^pg_(toast|temp_)'" | LC_ALL=C sort >"$work/server.tsv"
[ "$(wc -l <"$work/server.tsv")" -gt 20 ] || pgtest_fail "only $(wc -l <"$work/server.tsv") functions in the database"
diff -u "$work/server.tsv" "$work/cgmap.tsv" >&2 ||
	pgtest_fail "arguments or results differ from PostgreSQL's (- server, + cgmap)"
echo "ok: $(wc -l <"$work/cgmap.tsv") functions, arguments and results as PostgreSQL prints them"
