#!/usr/bin/env bash
# gen_pg15_types.sh - write src/exprtype_pg15.c, what expression typing
# (src/exprtype.c) knows of PostgreSQL 15's own types without a catalog:
# each pg_catalog base, pseudo, range and multirange type's category and
# preferred flag (pg_type.typcategory, typispreferred), and the implicit
# casts between pg_catalog types (pg_cast, castcontext 'i'), which stand in
# when a model carries no builtin casts.
#
# usage: scripts/gen_pg15_types.sh [--dsn CONNINFO] [OUTPUT]
#   Without --dsn a throwaway cluster is started with tests/lib/pgtest.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dsn=
if [ "${1:-}" = --dsn ]; then dsn=$2; shift 2; fi
out=${1:-$here/src/exprtype_pg15.c}

if [ -z "$dsn" ]; then
	. "$here/tests/lib/pgtest.sh"
	pgtest_start
	trap 'pgtest_stop' EXIT
	q() { pgtest_psql -AtF $'\t' -c "$1"; }
else
	q() { psql "$dsn" -X -AtF $'\t' -c "$1"; }
fi

types=$(q "SELECT format_type(t.oid, NULL), t.typcategory, t.typispreferred FROM pg_type t
	WHERE t.typnamespace = 'pg_catalog'::regnamespace
	AND (t.typtype IN ('p', 'r', 'm') OR (t.typtype = 'b' AND t.typcategory <> 'A'))
	ORDER BY format_type(t.oid, NULL) COLLATE \"C\"")
casts=$(q "SELECT format_type(c.castsource, NULL), format_type(c.casttarget, NULL) FROM pg_cast c
	JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
	WHERE c.castcontext = 'i' AND c.castsource <> c.casttarget
	AND s.typnamespace = 'pg_catalog'::regnamespace AND t.typnamespace = 'pg_catalog'::regnamespace
	ORDER BY format_type(c.castsource, NULL) COLLATE \"C\", format_type(c.casttarget, NULL) COLLATE \"C\"")
version=$(q "SELECT split_part(current_setting('server_version'), ' ', 1)")

{
	echo "/*"
	echo " * exprtype_pg15.c - PostgreSQL $version's own types as expression typing"
	echo " * needs them: category and preferred flag of each pg_catalog type, and"
	echo " * the implicit casts between them.  Written by scripts/gen_pg15_types.sh"
	echo " * from a real server; do not edit."
	echo " */"
	echo '#include "exprtype_pg15.h"'
	echo
	echo "const cgm_pg15_type cgm_pg15_types[] = {"
	printf '%s\n' "$types" | while IFS=$'\t' read -r name cat pref; do
		n=${name//\"/\\\"}
		echo "	{ \"$n\", '$cat', $([ "$pref" = t ] && echo true || echo false) },"
	done
	echo "};"
	echo "const int cgm_pg15_ntypes = (int)(sizeof cgm_pg15_types / sizeof cgm_pg15_types[0]);"
	echo
	echo "const cgm_pg15_cast cgm_pg15_implicit_casts[] = {"
	printf '%s\n' "$casts" | while IFS=$'\t' read -r s t; do
		echo "	{ \"${s//\"/\\\"}\", \"${t//\"/\\\"}\" },"
	done
	echo "};"
	echo "const int cgm_pg15_nimplicit_casts ="
	echo "	(int)(sizeof cgm_pg15_implicit_casts / sizeof cgm_pg15_implicit_casts[0]);"
} >"$out"
echo "wrote $out" >&2
