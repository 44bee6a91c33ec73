#!/usr/bin/env bash
# bench/dependency_oracle.sh - the functions PostgreSQL itself resolves in
# each PL/pgSQL function's statements, held against cgmap's static edges.
#
# usage: bench/dependency_oracle.sh [--cgmap BIN] [--map DIR] [--extension-code] DBNAME
#   DBNAME        a database of the server the PG* environment names
#   --cgmap BIN   the cgmap binary (default: build/release/cgmap)
#   --extension-code  check extensions' functions too (cgmap
#                 --include-extensions): an extension's own code
#   --map DIR     a live map of that database already made (cgmap.json);
#                 default: made here with --no-runtime
# ORACLE_KEEP=DIR keeps the work files (the dependencies, the map's edges)
# in DIR.
#
# plpgsql_check's plpgsql_show_dependency_tb() (Debian's
# postgresql-15-plpgsql-check; created in the database if missing)
# prepares every statement of a function as PostgreSQL would run it and
# lists the functions the prepared statements name: overloads resolved,
# views expanded, by PostgreSQL's own parser and catalog.  A trigger
# function is checked against its first trigger's table.  Each function is
# checked in a session of its own: plpgsql_check 2.3 takes the server down
# on some bodies (the server restarts; those functions are listed).
# Builtins and extension members are left out, as cgmap leaves them out.
#
# plpgsql_check lists what a statement names, not what runs: a call the
# planner folds away (`CASE WHEN false THEN f() END`), one in a CTE no
# one reads, one in a branch for another server version, one of a view
# column the statement does not read; the map leaves those out on
# purpose (each is held to a trace by a test: fixtures/constfold.sql,
# unreadcte.sql, verbranch.sql, viewcols.sql).  A dependency missing from
# the map is then to be judged with a trace (bench/suite_verdicts.sh).
#
# Prints each dependency missing from the map's static edges (any
# mechanism: a call, or a view, default or trigger the statement runs
# through), then a summary line.  plpgsql_check does not see a SQL
# function the planner inlines, dynamic SQL, or a call in a statement it
# cannot prepare (a temporary table made by the function): edges only the
# map has are not errors, and are counted only.
# Exit: 0 when every dependency is an edge of the map and the map links no
# other overload of one (a caller calling both aside), 1 otherwise, 2 on a
# usage or setup error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cgmap=$root/build/release/cgmap map= include=()
while [ $# -gt 1 ]; do
	case $1 in
	--extension-code) include=(--include-extensions); shift ;;
	--cgmap) cgmap=$2; shift 2 ;;
	--map) map=$2; shift 2 ;;
	*) echo "dependency_oracle: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -eq 1 ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
db=$1
command -v jq >/dev/null || { echo "dependency_oracle: needs jq" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-oracle.XXXXXX")
trap '[ -n "${ORACLE_KEEP:-}" ] && cp -R "$work" "$ORACLE_KEEP"; rm -rf "$work"' EXIT
q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS plpgsql_check" >/dev/null ||
	{ echo "dependency_oracle: cannot create plpgsql_check in '$db' (install postgresql-15-plpgsql-check)" >&2; exit 2; }
schema=$(q -c "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'plpgsql_check'")
quoted=$(q -c "SELECT quote_ident('$schema')")
user_function="p.pronamespace NOT IN ('pg_catalog'::pg_catalog.regnamespace, 'information_schema'::pg_catalog.regnamespace)"
# plpgsql_check's own functions are never the code checked.
user_function="$user_function AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
  JOIN pg_catalog.pg_extension x ON x.oid = d.refobjid
  WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid AND d.deptype = 'e'
    AND ${include[0]:+x.extname = 'plpgsql_check' AND} true)"
q -F ' ' -c "SELECT p.oid, COALESCE((SELECT t.tgrelid FROM pg_catalog.pg_trigger t WHERE t.tgfoid = p.oid
                                      ORDER BY t.oid LIMIT 1), 0),
                    p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype
               FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
              WHERE l.lanname = 'plpgsql' AND $user_function ORDER BY 1" >"$work/functions"

checked=0 skipped=0 failed=0
: >"$work/oids"
while read -r oid rel trigger; do
	if [ "$trigger" = t ] && [ "$rel" = 0 ]; then
		skipped=$((skipped + 1)) # a trigger function of no trigger: no table to check it against
		continue
	fi
	# Under the session's own search_path, as the function's statements
	# run when it sets none; named below.
	if q -F ' ' -c "
		SELECT $oid, d.oid
		  FROM $quoted.plpgsql_show_dependency_tb($oid::pg_catalog.regprocedure, $rel) d
		  JOIN pg_catalog.pg_proc p ON p.oid = d.oid
		 WHERE d.type = 'FUNCTION' AND $user_function" >>"$work/oids" 2>"$work/error"; then
		checked=$((checked + 1))
	else
		failed=$((failed + 1))
		# A crash restarts the server: wait for it.
		for _ in $(seq 1 30); do q -c "SELECT 1" >/dev/null 2>&1 && break; sleep 1; done
		echo "not checked: $(q -c "SELECT $oid::pg_catalog.regprocedure" 2>/dev/null || echo "oid $oid")" \
			"($(grep -m1 -E 'ERROR|lost|terminated' "$work/error" | sed 's/^[[:space:]]*//' || head -1 "$work/error"))"
	fi
done <"$work/functions"
# Both named as cgmap names functions: qualified, as with an empty path.
{
	echo "SET search_path = '';"
	echo "CREATE TEMP TABLE oracle_pairs (caller oid, callee oid);"
	echo "COPY oracle_pairs FROM STDIN (DELIMITER ' ');"
	cat "$work/oids"
	echo '\.'
	echo "SELECT caller::pg_catalog.regprocedure::text || ' -> ' || callee::pg_catalog.regprocedure::text FROM oracle_pairs;"
} | q >"$work/oracle"
sort -u "$work/oracle" >"$work/oracle.sorted"

if [ -z "$map" ]; then
	map=$work/map
	"$cgmap" --dsn "dbname=$db" ${include[@]+"${include[@]}"} --no-html --no-runtime --out "$map" 2>"$work/map.err" ||
		{ cat "$work/map.err" >&2; exit 2; }
fi
"$cgmap" report edges "$map" | sed 's/ via .*//' | sort -u >"$work/map.edges"
comm -23 "$work/oracle.sorted" "$work/map.edges" >"$work/absent"
# plpgsql_check lists every function of a view a statement reads; only
# those of the columns it reads run (the planner drops the others), and
# the map links those only: a function of a view the caller reads, of
# columns the map found no read of, is no miss.
jq -r '.relations[] | select(.effects) | .schema as $s | .name as $n | .effects[]
       | select(.via == "view" and .function and (.columns | length) > 0)
       | "\($s).\($n)\t\(.function)"' "$map/cgmap.json" | sort -u >"$work/view_functions"
jq -r '.functions[] | .id as $id | (.sites // [])[] | select(.kind == "relation" and .schema)
       | "\($id)\t\(.schema).\(.name)"' "$map/cgmap.json" | sort -u >"$work/reads"
awk -F'\t' 'FILENAME == ARGV[1] { fns[$1] = fns[$1] "\n" $2; next }
            FILENAME == ARGV[2] { reads[$1] = reads[$1] "\n" $2; next }
            { split($0, e, " -> "); n = split(reads[e[1]], vs, "\n"); unread = 0
              for (i = 1; i <= n; i++) if (vs[i] != "" && index(fns[vs[i]] "\n", "\n" e[2] "\n")) unread = 1
              print (unread ? "U " : "M ") $0 }' \
	"$work/view_functions" "$work/reads" "$work/absent" >"$work/classified"
missing=$(grep -c '^M ' "$work/classified" || true)
unread=$(grep -c '^U ' "$work/classified" || true)
sed -n 's/^M /missing from the map: /p' "$work/classified"
sed -n 's/^U /in a view column not read: /p' "$work/classified"
deps=$(wc -l <"$work/oracle.sorted")
# An edge of the map only, to a function of the same name as one that
# plpgsql_check found for the same caller: another overload the map
# linked too or instead, unless the caller calls both (one of them in a
# statement plpgsql_check does not read: OPEN ... FOR EXECUTE).
awk '{ split($0, e, " -> "); sub(/\(.*/, "", e[2]); print e[1] " -> " e[2] }' "$work/oracle.sorted" |
	sort -u >"$work/oracle.names"
# plpgsql_check lists no aggregate: those are not judged.  An edge the
# map marks ambiguous (a record's field from dynamic SQL or a temporary
# table the function makes, whose types only the run tells) is counted
# apart: the map says it could not choose.
jq -r '.functions[] | select(.kind == "aggregate") | .id' "$map/cgmap.json" | sort -u >"$work/aggregates"
{ "$cgmap" report edges "$map" | grep ' ambiguous$' || true; } | sed 's/ via .*//' | sort -u >"$work/ambiguous"
comm -13 "$work/oracle.sorted" "$work/map.edges" |
	awk 'FILENAME == ARGV[1] { n[$0] = 1; next } { split($0, e, " -> "); c = e[2]; sub(/\(.*/, "", c) }
	     ((e[1] " -> " c) in n)' "$work/oracle.names" - |
	awk 'FILENAME == ARGV[1] { agg[$0] = 1; next } { split($0, e, " -> ") } !(e[2] in agg)' "$work/aggregates" - |
	awk 'FILENAME == ARGV[1] { amb[$0] = 1; next } { print (($0 in amb) ? "A " : "O ") $0 }' "$work/ambiguous" - \
	>"$work/other_overloads"
others=$(grep -c '^O ' "$work/other_overloads" || true)
undecided=$(grep -c '^A ' "$work/other_overloads" || true)
sed -n 's/^O /another overload in the map: /p' "$work/other_overloads"
sed -n 's/^A /among the ambiguous candidates: /p' "$work/other_overloads"
# The map's edges out of the functions plpgsql_check read, which it does
# not list (dynamic SQL, inlined SQL functions, statements it cannot
# prepare): counted, not judged.
sed 's/ -> .*//' "$work/oracle.sorted" | sort -u >"$work/callers"
map_only=$(comm -13 "$work/oracle.sorted" "$work/map.edges" |
	awk 'FILENAME == ARGV[1] { c[$0] = 1; next } { split($0, a, " -> ") } (a[1] in c)' "$work/callers" - | wc -l)
echo "plpgsql_check: $checked PL/pgSQL functions checked ($skipped trigger functions of no trigger, $failed not checked):" \
	"$deps dependencies on user functions, $missing missing from the map's static edges" \
	"($unread more of view columns the statements do not read), $others edges of the map to another overload of a dependency" \
	"($undecided more among an ambiguous call's candidates);" \
	"$map_only more edges of the same callers in the map only"
echo "reproduce: bash bench/dependency_oracle.sh ${include[0]:+--extension-code }$db"
[ "$missing" -eq 0 ] && [ "$others" -eq 0 ]
