#!/usr/bin/env bash
# gen_builtins.sh - write data/pg15_builtins.tsv, the pg_catalog functions of
# a real PostgreSQL 15 server, which cgmap loads in SQL-file mode to tell a
# builtin from a missing callee.
#
# usage: scripts/gen_builtins.sh [--dsn CONNINFO] [OUTPUT]
#   Without --dsn a throwaway cluster is started with tests/lib/pgtest.sh
#   (needs the PostgreSQL 15 server binaries).  OUTPUT defaults to
#   data/pg15_builtins.tsv in the source tree.
#
# Columns (tab-separated, one function a line, sorted by name then
# arguments in byte order; lines starting with # are comments):
#   name  argtypes  ndefaults  variadic  kind  result  argnames  language
# argtypes: input argument types as format_type prints them, ", " between;
# variadic: element type of the VARIADIC argument, or "-";
# kind: function, procedure, aggregate, window;
# result: pg_get_function_result; argnames: input argument names, "," between,
# "-" for an unnamed one (empty when none is named).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dsn=
out=$here/data/pg15_builtins.tsv
while [ $# -gt 0 ]; do
	case $1 in
	--dsn) dsn=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) out=$1; shift ;;
	esac
done

if [ -z "$dsn" ]; then
	# shellcheck source=../tests/lib/pgtest.sh
	source "$here/tests/lib/pgtest.sh"
	pgtest_start >/dev/null
	psql_cmd=("$PGTEST_BIN/psql" -X -q -v ON_ERROR_STOP=1 -At)
else
	psql_cmd=(psql -X -q -v ON_ERROR_STOP=1 -At "$dsn")
fi

version=$("${psql_cmd[@]}" -c "SHOW server_version_num")
case $version in
15*) ;;
*) echo "gen_builtins.sh: the server is version $version, not PostgreSQL 15" >&2; exit 1 ;;
esac

tmp=$(mktemp)
trap 'rm -f "$tmp"; declare -F pgtest_stop >/dev/null && pgtest_stop' EXIT
"${psql_cmd[@]}" -F $'\t' >"$tmp" <<'SQL'
SET search_path = '';
SELECT p.proname,
       pg_catalog.oidvectortypes(p.proargtypes),
       p.pronargdefaults,
       CASE WHEN p.provariadic <> 0 THEN pg_catalog.format_type(p.provariadic, NULL) ELSE '-' END,
       CASE p.prokind WHEN 'f' THEN 'function' WHEN 'p' THEN 'procedure'
                      WHEN 'a' THEN 'aggregate' ELSE 'window' END,
       coalesce(pg_catalog.pg_get_function_result(p.oid), ''),
       CASE WHEN p.proargnames IS NULL THEN '' ELSE coalesce((SELECT pg_catalog.string_agg(coalesce(nullif(a.n, ''), '-'), ',' ORDER BY a.o)
                 FROM unnest(p.proargnames,
                             coalesce(p.proargmodes,
                                      pg_catalog.array_fill('i'::"char",
                                          ARRAY[pg_catalog.cardinality(p.proargnames)])))
                      WITH ORDINALITY AS a(n, m, o)
                 WHERE a.m IN ('i', 'b', 'v')), '') END,
       l.lanname
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace
ORDER BY p.proname COLLATE "C", pg_catalog.oidvectortypes(p.proargtypes) COLLATE "C";
SQL

full=$("${psql_cmd[@]}" -c "SHOW server_version"); full=${full%% *}
{
	echo "# pg_catalog functions of PostgreSQL $full, written by scripts/gen_builtins.sh"
	echo "# name	argtypes	ndefaults	variadic	kind	result	argnames	language"
	cat "$tmp"
} >"$out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$out") functions to $out" >&2
