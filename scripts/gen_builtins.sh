#!/usr/bin/env bash
# gen_builtins.sh - write data/pg15_builtins.tsv, the pg_catalog functions of
# a real PostgreSQL 15 server, which cgmap loads in SQL-file mode to tell a
# builtin from a missing callee; and data/pg15_extensions.tsv, the functions
# and types each extension available on that server creates, which cgmap
# adds when a file says CREATE EXTENSION.
#
# It also writes data/pg15_operators.tsv and data/pg15_casts.tsv, the
# pg_catalog operators and the casts of a new database, which typing and
# operator and cast resolution need offline.
#
# usage: scripts/gen_builtins.sh [--dsn CONNINFO] [OUTPUT [EXTENSIONS_OUTPUT]]
#   Without --dsn a throwaway cluster is started with tests/lib/pgtest.sh
#   (needs the PostgreSQL 15 server binaries).  OUTPUT defaults to
#   data/pg15_builtins.tsv in the source tree, EXTENSIONS_OUTPUT to
#   data/pg15_extensions.tsv.  Each extension is created inside a
#   transaction that is rolled back, so a --dsn database keeps nothing.
#
# Columns of pg15_builtins.tsv (tab-separated, one function a line, sorted by
# name then arguments in byte order; lines starting with # are comments):
#   name  argtypes  ndefaults  variadic  kind  result  argnames  language  outname
# argtypes: input argument types as format_type prints them, ", " between;
# variadic: element type of the VARIADIC argument, or "-";
# kind: function, procedure, aggregate, window;
# result: pg_get_function_result; argnames: input argument names, "," between,
# "-" for an unnamed one (empty when none is named); outname: the name of
# its one OUT, INOUT or TABLE argument (get_func_result_name), which names
# its column when it is called in FROM (empty when it has none, several, or
# an unnamed one).
#
# pg15_extensions.tsv: extension, object ("type", "function", "cast" or
# "operator"), schema ("@extschema@" for the schema the extension is
# created in), then
# for a function its name and the columns above from argtypes on; for a
# type its name, pg_type.typtype, typcategory, typispreferred (t or f) and a
# domain's base type ("-" for none); (a function row written before outname
# was listed ends at language: cgmap reads it as having none); for a cast
# "-" as the schema, then
# source, target, context, method and function as in pg15_casts.tsv; for an
# operator its schema, name, left ("-" for a prefix operator), right and
# result types and function ("-" for none) as in pg15_operators.tsv; for
# "requires", "-" then an extension its default version requires, one a
# row, in the control file's order; for a relation (its tables, views and
# composite types) its schema, name, relkind and columns as in
# pg15_relations.tsv, then a view's query (pg_get_viewdef, its white space
# runs one space each; "-" for another relation); for "aggsupport", "-",
# an aggregate's id, then the roles of its support functions and their
# ids, ";" between; for
# "dbpath", "-", the schemas its script adds to the database's search_path
# (ALTER DATABASE ... SET), ";" between; for "opclass" (an operator class)
# its schema, name, access method, input type, whether it is the default
# for that type (t or f), then the support numbers and functions of its
# family whose left and right types are its type (those an index of the
# class calls), ";" between.
# Types are qualified with "@extschema@." where they are the extension's.
#
# pg15_relations.tsv: "relation", schema, name, relkind, column names and
# their types (format_type with typmod, ";" between), for pg_catalog and
# information_schema; then "type", schema, name, typtype, typcategory,
# typispreferred, base type of information_schema's domains.  Typing a
# query of the catalog offline needs its columns' types.
# pg15_operators.tsv: name  left  right  result  function, one operator a
# line sorted by name, left, right; types as format_type prints them, "-"
# for the missing left operand of a prefix operator and for no function;
# function is the regprocedure text with an empty search_path.
# pg15_casts.tsv: source  target  context  method  function (context i, a, e;
# method f, b, i as pg_cast has them), sorted by source then target.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dsn=
out=
ext_out=
while [ $# -gt 0 ]; do
	case $1 in
	--dsn) dsn=$2; shift 2 ;;
	-h|--help) sed -n '2,67p' "$0"; exit 0 ;;
	*) if [ -z "$out" ]; then out=$1; else ext_out=$1; fi; shift ;;
	esac
done
out=${out:-$here/data/pg15_builtins.tsv}
ext_out=${ext_out:-$here/data/pg15_extensions.tsv}
ops_out=$(dirname "$out")/pg15_operators.tsv
casts_out=$(dirname "$out")/pg15_casts.tsv
rels_out=$(dirname "$out")/pg15_relations.tsv

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
# The function columns (name ... language) of pg_proc rows p joined with
# their language l.
function_columns="p.proname,
       pg_catalog.oidvectortypes(p.proargtypes),
       p.pronargdefaults,
       CASE WHEN p.provariadic <> 0 THEN pg_catalog.format_type(p.provariadic, NULL) ELSE '-' END,
       CASE p.prokind WHEN 'f' THEN 'function' WHEN 'p' THEN 'procedure'
                      WHEN 'a' THEN 'aggregate' ELSE 'window' END,
       coalesce(pg_catalog.pg_get_function_result(p.oid), ''),
       CASE WHEN p.proargnames IS NULL THEN '' ELSE coalesce((SELECT pg_catalog.string_agg(coalesce(nullif(a.n, ''), '-'), ',' ORDER BY a.o)
                 FROM unnest(p.proargnames,
                             coalesce(p.proargmodes,
                                      pg_catalog.array_fill('i'::\"char\",
                                          ARRAY[pg_catalog.cardinality(p.proargnames)])))
                      WITH ORDINALITY AS a(n, m, o)
                 WHERE a.m IN ('i', 'b', 'v')), '') END,
       l.lanname,
       coalesce((SELECT CASE WHEN pg_catalog.count(*) = 1 THEN pg_catalog.max(a.n) END
                 FROM unnest(p.proargnames, p.proargmodes) AS a(n, m)
                 WHERE a.m IN ('o', 'b', 't')), '')"

"${psql_cmd[@]}" -F $'\t' >"$tmp" <<SQL
SET search_path = '';
SELECT $function_columns
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace
ORDER BY p.proname COLLATE "C", pg_catalog.oidvectortypes(p.proargtypes) COLLATE "C";
SQL

full=$("${psql_cmd[@]}" -c "SHOW server_version"); full=${full%% *}
{
	echo "# pg_catalog functions of PostgreSQL $full, written by scripts/gen_builtins.sh"
	echo "# name	argtypes	ndefaults	variadic	kind	result	argnames	language	outname"
	cat "$tmp"
} >"$out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$out") functions to $out" >&2

{
	echo "# pg_catalog operators of PostgreSQL $full, written by scripts/gen_builtins.sh"
	echo "# name	left	right	result	function"
	"${psql_cmd[@]}" -F $'\t' <<SQL
SET search_path = '';
SELECT * FROM (
  SELECT o.oprname AS n,
         CASE WHEN o.oprleft = 0 THEN '-' ELSE pg_catalog.format_type(o.oprleft, NULL) END AS l,
         CASE WHEN o.oprright = 0 THEN '-' ELSE pg_catalog.format_type(o.oprright, NULL) END AS r,
         CASE WHEN o.oprresult = 0 THEN '-' ELSE pg_catalog.format_type(o.oprresult, NULL) END,
         CASE WHEN o.oprcode = 0 THEN '-' ELSE o.oprcode::pg_catalog.regprocedure::text END
  FROM pg_catalog.pg_operator o
  WHERE o.oprnamespace = 'pg_catalog'::pg_catalog.regnamespace) AS ops
ORDER BY n COLLATE "C", l COLLATE "C", r COLLATE "C";
SQL
} >"$ops_out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$ops_out") operators to $ops_out" >&2

{
	echo "# casts of a new PostgreSQL $full database, written by scripts/gen_builtins.sh"
	echo "# source	target	context	method	function"
	"${psql_cmd[@]}" -F $'\t' <<SQL
SET search_path = '';
SELECT * FROM (
  SELECT pg_catalog.format_type(c.castsource, NULL) AS s, pg_catalog.format_type(c.casttarget, NULL) AS t,
         c.castcontext, c.castmethod,
         CASE WHEN c.castfunc = 0 THEN '-' ELSE c.castfunc::pg_catalog.regprocedure::text END
  FROM pg_catalog.pg_cast c
  WHERE c.oid < 16384) AS casts
ORDER BY s COLLATE "C", t COLLATE "C";
SQL
} >"$casts_out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$casts_out") casts to $casts_out" >&2

{
	echo "# pg_catalog and information_schema relations and information_schema's domains of a new"
	echo "# PostgreSQL $full database, written by scripts/gen_builtins.sh"
	echo "# relation	schema	name	relkind	columns	types"
	echo "# type	schema	name	typtype	typcategory	typispreferred	base"
	"${psql_cmd[@]}" -F $'\t' <<SQL
SET search_path = pg_catalog;
SELECT 'relation', n.nspname, c.relname, c.relkind,
       (SELECT string_agg(a.attname, ';' ORDER BY a.attnum) FROM pg_attribute a
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       (SELECT string_agg(format_type(a.atttypid, a.atttypmod), ';' ORDER BY a.attnum) FROM pg_attribute a
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'p', 'v', 'f', 'm', 'c')
ORDER BY n.nspname COLLATE "C", c.relname COLLATE "C";
SELECT 'type', n.nspname, t.typname, t.typtype, t.typcategory,
       CASE WHEN t.typispreferred THEN 't' ELSE 'f' END,
       CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, NULL) ELSE '-' END
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname = 'information_schema' AND t.typtype = 'd'
ORDER BY t.typname COLLATE "C";
SQL
} >"$rels_out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$rels_out") relations and types to $rels_out" >&2

# Extensions: each created in a scratch schema inside a rolled-back
# transaction; what it made is listed with that schema as @extschema@.
ext_tmp=$(mktemp)
trap 'rm -f "$tmp" "$ext_tmp"; declare -F pgtest_stop >/dev/null && pgtest_stop' EXIT
extensions=$("${psql_cmd[@]}" -c "SELECT name FROM pg_catalog.pg_available_extensions
	WHERE name <> 'plpgsql' AND name NOT LIKE 'cgmap%' ORDER BY name COLLATE \"C\"")
listed=0
for ext in $extensions; do
	listing="SET search_path = '';
SELECT '$ext', 'type',
       CASE n.nspname WHEN 'cgmap_ext' THEN '@extschema@' ELSE n.nspname END, t.typname,
       t.typtype, t.typcategory, CASE WHEN t.typispreferred THEN 't' ELSE 'f' END,
       CASE WHEN t.typtype = 'd' THEN pg_catalog.format_type(t.typbasetype, NULL) ELSE '-' END
FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE t.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
ORDER BY t.typname COLLATE \"C\";
SELECT '$ext', 'cast', '-', pg_catalog.format_type(c.castsource, NULL), pg_catalog.format_type(c.casttarget, NULL),
       c.castcontext, c.castmethod,
       CASE WHEN c.castfunc = 0 THEN '-' ELSE c.castfunc::pg_catalog.regprocedure::text END
FROM pg_catalog.pg_cast c
WHERE c.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_cast'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
ORDER BY pg_catalog.format_type(c.castsource, NULL) COLLATE \"C\",
         pg_catalog.format_type(c.casttarget, NULL) COLLATE \"C\";
SELECT '$ext', 'function',
       CASE n.nspname WHEN 'cgmap_ext' THEN '@extschema@' ELSE n.nspname END, $function_columns
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE p.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
ORDER BY p.proname COLLATE \"C\", pg_catalog.oidvectortypes(p.proargtypes) COLLATE \"C\";
SELECT '$ext', 'relation',
       CASE n.nspname WHEN 'cgmap_ext' THEN '@extschema@' ELSE n.nspname END, c.relname, c.relkind,
       (SELECT string_agg(a.attname, ';' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       (SELECT string_agg(pg_catalog.format_type(a.atttypid, a.atttypmod), ';' ORDER BY a.attnum)
          FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       CASE WHEN c.relkind = 'v' THEN pg_catalog.regexp_replace(pg_catalog.pg_get_viewdef(c.oid), '\s+', ' ', 'g')
            ELSE '-' END
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
  AND (c.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                 AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
       OR c.reltype IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                 AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext')))
ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\";
SELECT '$ext', 'aggsupport', '-', a.aggfnoid::pg_catalog.regprocedure::text,
       pg_catalog.concat_ws(';', CASE WHEN a.aggtransfn <> 0 THEN 'transition' END,
         CASE WHEN a.aggfinalfn <> 0 THEN 'final' END, CASE WHEN a.aggcombinefn <> 0 THEN 'combine' END,
         CASE WHEN a.aggserialfn <> 0 THEN 'serialize' END, CASE WHEN a.aggdeserialfn <> 0 THEN 'deserialize' END,
         CASE WHEN a.aggmtransfn <> 0 THEN 'moving transition' END,
         CASE WHEN a.aggminvtransfn <> 0 THEN 'moving inverse' END,
         CASE WHEN a.aggmfinalfn <> 0 THEN 'moving final' END),
       pg_catalog.concat_ws(';', NULLIF(a.aggtransfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggfinalfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggcombinefn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggserialfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggdeserialfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggmtransfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggminvtransfn, 0)::pg_catalog.regprocedure::text,
         NULLIF(a.aggmfinalfn, 0)::pg_catalog.regprocedure::text)
FROM pg_catalog.pg_aggregate a
WHERE a.aggfnoid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
ORDER BY a.aggfnoid::pg_catalog.regprocedure::text COLLATE \"C\";
SELECT '$ext', 'dbpath', '-', pg_catalog.string_agg(p.schema, ';' ORDER BY p.k)
FROM pg_catalog.pg_db_role_setting d, unnest(d.setconfig) AS c(config),
     unnest(pg_catalog.string_to_array(pg_catalog.regexp_replace(c.config, '^search_path=', ''), ', '))
       WITH ORDINALITY AS p(schema, k)
WHERE d.setrole = 0 AND d.setdatabase = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
  AND c.config LIKE 'search_path=%' AND p.schema NOT IN ('\"\$user\"', 'public')
HAVING pg_catalog.count(*) > 0;
SELECT '$ext', 'requires', '-', r.name
FROM pg_catalog.pg_available_extension_versions v, unnest(v.requires) WITH ORDINALITY AS r(name, k)
WHERE v.name = '$ext' AND v.version = (SELECT default_version FROM pg_catalog.pg_available_extensions
                                       WHERE name = '$ext')
ORDER BY r.k;
SELECT '$ext', 'operator',
       CASE n.nspname WHEN 'cgmap_ext' THEN '@extschema@' ELSE n.nspname END, o.oprname,
       CASE WHEN o.oprleft = 0 THEN '-' ELSE pg_catalog.format_type(o.oprleft, NULL) END,
       pg_catalog.format_type(o.oprright, NULL), pg_catalog.format_type(o.oprresult, NULL),
       CASE WHEN o.oprcode = 0 THEN '-' ELSE o.oprcode::pg_catalog.regprocedure::text END
FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
WHERE o.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_operator'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
  AND o.oprright <> 0
ORDER BY o.oprname COLLATE \"C\", pg_catalog.format_type(o.oprleft, NULL) COLLATE \"C\",
         pg_catalog.format_type(o.oprright, NULL) COLLATE \"C\";
SELECT '$ext', 'opclass',
       CASE n.nspname WHEN 'cgmap_ext' THEN '@extschema@' ELSE n.nspname END, c.opcname, m.amname,
       pg_catalog.format_type(c.opcintype, NULL), CASE WHEN c.opcdefault THEN 't' ELSE 'f' END,
       pg_catalog.string_agg(p.amprocnum::text, ';' ORDER BY p.amprocnum),
       pg_catalog.string_agg(p.amproc::pg_catalog.regprocedure::text, ';' ORDER BY p.amprocnum)
FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_namespace n ON n.oid = c.opcnamespace
JOIN pg_catalog.pg_am m ON m.oid = c.opcmethod
JOIN pg_catalog.pg_amproc p ON p.amprocfamily = c.opcfamily AND p.amproclefttype = c.opcintype
                           AND p.amprocrighttype = c.opcintype
WHERE c.oid IN (SELECT objid FROM pg_catalog.pg_depend WHERE classid = 'pg_catalog.pg_opclass'::pg_catalog.regclass
                AND deptype = 'e' AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = '$ext'))
GROUP BY n.nspname, c.opcname, m.amname, c.opcintype, c.opcdefault
ORDER BY m.amname COLLATE \"C\", c.opcname COLLATE \"C\", n.nspname COLLATE \"C\";"
	# Relocatable ones go to the scratch schema; the others where they must.
	if ! { echo "BEGIN; CREATE SCHEMA cgmap_ext; CREATE EXTENSION \"$ext\" WITH SCHEMA cgmap_ext CASCADE;"
	       echo "$listing"; echo "ROLLBACK;"; } | "${psql_cmd[@]}" -F $'\t' >>"$ext_tmp" 2>/dev/null &&
	   ! { echo "BEGIN; CREATE SCHEMA cgmap_ext; CREATE EXTENSION \"$ext\" CASCADE;"
	       echo "$listing"; echo "ROLLBACK;"; } | "${psql_cmd[@]}" -F $'\t' >>"$ext_tmp" 2>/dev/null; then
		echo "gen_builtins.sh: skipped extension $ext (it cannot be created here)" >&2
		continue
	fi
	listed=$((listed + 1))
done
{
	echo "# functions and types of the extensions available to PostgreSQL $full, written by scripts/gen_builtins.sh"
	echo "# extension	object	schema	name	argtypes	ndefaults	variadic	kind	result	argnames	language"
	echo "# extension	type	schema	name	typtype	typcategory	typispreferred	base"
	echo "# extension	cast	-	source	target	context	method	function"
	echo "# extension	operator	schema	name	left	right	result	function"
	echo "# extension	requires	-	extension"
	echo "# extension	relation	schema	name	relkind	columns	types	query"
	echo "# extension	aggsupport	-	aggregate	roles	functions"
	echo "# extension	dbpath	-	schemas"
	echo "# extension	opclass	schema	name	am	type	default	numbers	functions"
	sed 's/cgmap_ext\./@extschema@./g' "$ext_tmp"
} >"$ext_out"
echo "gen_builtins.sh: wrote $(grep -vc '^#' "$ext_out") objects of $listed extensions to $ext_out" >&2
