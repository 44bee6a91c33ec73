#!/usr/bin/env bash
# test_real_extensions.sh - cgmap on large PL/pgSQL and SQL code nobody here
# wrote: pgTAP, pg_partman, periods, PostGIS with topology and the tiger
# geocoder, orafce, PgQ (Debian packages, installed by scripts/setup.sh; an extension that
# is not installed is left out with a message).  Every body must parse, and
# every missing callee must be a function of a component that is really not
# installed (pg_jobmon for pg_partman; SFCGAL, raster, address_standardizer
# for PostGIS) - a false missing callee or a parse error is a cgmap bug.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

sharedir=$(pg_config --sharedir 2>/dev/null || echo /usr/share/postgresql/15)
have() { [ -f "$sharedir/extension/$1.control" ]; }

pgtest_start
work=$(mktemp -d)
trap 'rm -rf "$work"; pgtest_stop' EXIT

mapped=0
check_map() {
	local db=$1 expected_missing=$2
	"$cgmap" --dsn "dbname=$db" --out "$work/$db" --include-extensions --no-html --no-runtime \
		2>"$work/$db.err" || pgtest_fail "$db: cgmap failed: $(cat "$work/$db.err")"
	grep -q ' 0 functions with parse errors' "$work/$db.err" ||
		pgtest_fail "$db: bodies that do not parse: $(grep -E 'line [0-9]+:' "$work/$db.err" | head -20)"
	"$cgmap" report missing "$work/$db" --format json | jq -r '.rows[].callee' | sort -u >"$work/$db.missing"
	local unexpected
	unexpected=$(grep -vxE "$expected_missing" "$work/$db.missing" || true)
	[ -z "$unexpected" ] || pgtest_fail "$db: missing callees that exist or are unexplained: $unexpected"
	grep -E 'functions \(' "$work/$db.err" | sed "s/^/$db: /"
	mapped=$((mapped + 1))
}

if have pgtap && have pg_partman && have periods; then
	pgtest_psql -c "CREATE DATABASE tools" >/dev/null
	pgtest_psql -d tools -c "SET client_min_messages = warning" -c "CREATE EXTENSION pgtap" \
		-c "CREATE SCHEMA partman" -c "CREATE EXTENSION pg_partman SCHEMA partman" \
		-c "CREATE EXTENSION periods CASCADE" >/dev/null
	# pg_partman calls pg_jobmon, an optional extension Debian does not ship.
	check_map tools 'add_job|add_step|close_job|fail_job|update_step'
	# ... each call under `IF v_jobmon_schema IS NOT NULL`, v_jobmon_schema
	# found in pg_extension: expected absent.  But for four, in
	# datetime_field_overflow handlers of create_parent() and
	# create_partition_time(), which call add_step() and update_step()
	# unguarded: without pg_jobmon those raise "function ... does not
	# exist" instead of their warning.
	"$cgmap" report missing "$work/tools" --format json |
		jq -r '.rows[] | select(.handled | not) | (.function | split("(")[0]) + " " + .callee' |
		sort | uniq -c | sed 's/^ *//' >"$work/tools.unhandled"
	partman_expected="1 partman.create_parent add_step
1 partman.create_partition_time add_step
1 partman.create_parent update_step
1 partman.create_partition_time update_step"
	[ "$(sort "$work/tools.unhandled" | grep partman)" = "$(echo "$partman_expected" | sort)" ] ||
		pgtest_fail "tools: pg_partman's missing callees not expected absent: $(cat "$work/tools.unhandled")"
	handled=$("$cgmap" report missing "$work/tools" --format json | jq '[.rows[] | select(.handled)] | length')
	[ "$handled" -ge 100 ] || pgtest_fail "tools: only $handled of pg_partman's pg_jobmon calls expected absent"
	echo "tools: pg_partman: $handled calls of pg_jobmon expected absent, 4 not guarded"
	# What PostgreSQL runs through pgTAP's views: _type_func() reads
	# tap_funky's kind, which calls _prokind(oid) (can() reads its name,
	# schema and oid alone: no _prokind(), as a traced run shows);
	# col_is_fk() reads pg_all_foreign_keys' fk_columns, which calls
	# _pg_sv_column_array, and the view's WHERE _pg_sv_table_accessible.
	"$cgmap" report edges "$work/tools" >"$work/tools.edges"
	! grep -qF 'public.can(name,name[],text) -> public._prokind(oid)' "$work/tools.edges" ||
		pgtest_fail "tools: can() linked to _prokind(), a column of tap_funky it does not read"
	for want in \
		'public._type_func("char",name,name) -> public._prokind(oid) via view (view public.tap_funky) static' \
		'public.col_is_fk(name,name,name[],text) -> public._pg_sv_column_array(oid,smallint[]) via view (view public.pg_all_foreign_keys) static' \
		'public.col_is_fk(name,name,name[],text) -> public._pg_sv_table_accessible(oid,oid) via view (view public.pg_all_foreign_keys) static'; do
		grep -qF -- "$want" "$work/tools.edges" ||
			pgtest_fail "tools: no edge '$want' (edges of _type_func/col_is_fk: $(grep -E '^public\.(_type_func|col_is_fk)\(' "$work/tools.edges" | grep -v ' via call ' | head -5))"
	done
	echo "tools: edges by mechanism: $(sed -E 's/.* via ([a-z_]+).*/\1/' "$work/tools.edges" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
	# pg_partman's install script as a file (345 @extschema@, filled in as
	# CREATE EXTENSION does; no schema in its control file: public here, so
	# the ids are the database's with partman. as public.): the same
	# functions, every body parsed, only pg_jobmon's functions missing.
	partman=$(ls "$sharedir/extension/pg_partman"--[0-9]*.sql | grep -v -- '--.*--' | sort -V | tail -1)
	"$cgmap" --sql "$partman" --out "$work/partman-file" --no-html 2>"$work/partman-file.err" ||
		pgtest_fail "pg_partman file: cgmap failed: $(cat "$work/partman-file.err")"
	grep -q ' 0 functions with parse errors' "$work/partman-file.err" ||
		pgtest_fail "pg_partman file: bodies that do not parse: $(grep -E 'line [0-9]+:' "$work/partman-file.err" | head -5)"
	jq -r '.functions[].id' "$work/partman-file/cgmap.json" | sed 's/^public\./partman./' | LC_ALL=C sort >"$work/partman-file.ids"
	jq -r '.functions[].id | select(startswith("partman."))' "$work/tools/cgmap.json" | LC_ALL=C sort >"$work/partman-db.ids"
	diff -u "$work/partman-db.ids" "$work/partman-file.ids" >&2 ||
		pgtest_fail "pg_partman file: not the functions CREATE EXTENSION made"
	"$cgmap" report missing "$work/partman-file" --format json | jq -r '.rows[].callee' |
		sort -u | grep -vxE 'add_job|add_step|close_job|fail_job|update_step' &&
		pgtest_fail "pg_partman file: missing callees besides pg_jobmon's"
	echo "pg_partman file: $(wc -l <"$work/partman-file.ids") functions, as CREATE EXTENSION made them"
	# Overloads: arguments are typed from their expressions, so the only
	# call left ambiguous is one PostgreSQL itself resolves per call, by the
	# actual type of the caller's anyelement argument (text or not).
	jq -r '.functions[] | .id as $id | .sites[]? | select(.resolution == "ambiguous")
	       | "\($id) line \(.line) \(.name)"' "$work/tools/cgmap.json" >"$work/tools.ambiguous"
	printf '%s\n' 'public._cdi(name,name,anyelement) line 2 col_default_is' >"$work/tools.ambiguous.expected"
	diff -u "$work/tools.ambiguous.expected" "$work/tools.ambiguous" >&2 ||
		pgtest_fail "tools: ambiguous calls PostgreSQL resolves (pgTAP, pg_partman, periods)"
else
	echo "test_real_extensions: pgTAP, pg_partman or periods not installed: skipped that part" >&2
fi

if have postgis && have postgis_topology && have postgis_tiger_geocoder; then
	pgtest_psql -c "CREATE DATABASE gis" >/dev/null
	pgtest_psql -d gis -c "SET client_min_messages = warning" -c "CREATE EXTENSION postgis" \
		-c "CREATE EXTENSION postgis_topology" \
		-c "CREATE EXTENSION postgis_tiger_geocoder CASCADE" >/dev/null
	# SFCGAL, raster and address_standardizer are separate, not installed.
	check_map gis 'public\.postgis_(gdal_version|raster_lib_version|sfcgal_full_version|sfcgal_scripts_installed)|postgis_raster_scripts_installed|parse_address|standardize_address'
	# The same extensions' install scripts mapped as files, read as CREATE
	# EXTENSION runs them (@extschema@ filled in, topology's own schema):
	# every body parses, and each function they define calls what it calls
	# in the database.  postgis_topology's script adds topology to the
	# database's search_path through EXECUTE (AddToSearchPath), which a file
	# cannot run: a file saying so stands in for it.
	script() { ls "$sharedir/extension/$1"--[0-9]*.sql | grep -v -- '--.*--' | sort -V | tail -1; }
	printf '%s\n' 'ALTER DATABASE gis SET search_path = "$user", public, topology;' >"$work/topology-path.sql"
	"$cgmap" --sql "$(script postgis)" "$(script postgis_topology)" "$work/topology-path.sql" \
		--out "$work/gis-files" --include-extensions --no-html 2>"$work/gis-files.err" ||
		pgtest_fail "gis files: cgmap failed: $(cat "$work/gis-files.err")"
	grep -q ' 0 functions with parse errors' "$work/gis-files.err" ||
		pgtest_fail "gis files: bodies that do not parse: $(grep -E 'line [0-9]+:' "$work/gis-files.err" | head -5)"
	jq -r '.functions[].id' "$work/gis-files/cgmap.json" | LC_ALL=C sort -u >"$work/gis-files.functions"
	[ "$(grep -c '^topology\.' "$work/gis-files.functions")" -gt 50 ] ||
		pgtest_fail "gis files: postgis_topology's functions are not in schema topology"
	"$cgmap" report edges "$work/gis-files" | LC_ALL=C sort >"$work/gis-files.edges"
	"$cgmap" report edges "$work/gis" | LC_ALL=C sort >"$work/gis.edges"
	# An edge line starts with its caller's id and " -> " (ids hold spaces).
	awk 'NR == FNR { mine[$0] = 1; next } { split($0, a, " -> ") } (a[1] in mine)' \
		"$work/gis-files.functions" "$work/gis.edges" >"$work/gis.edges.same"
	LC_ALL=C comm -23 "$work/gis.edges.same" "$work/gis-files.edges" >"$work/gis.only-live"
	LC_ALL=C comm -13 "$work/gis.edges.same" "$work/gis-files.edges" >"$work/gis.only-files"
	[ ! -s "$work/gis.only-live" ] ||
		pgtest_fail "gis files: edges of the database the scripts do not give: $(head -5 "$work/gis.only-live")"
	# Offline, pg_catalog's tables have their typed columns too
	# (data/pg15_relations.tsv): text(nspname) is text(name), not any
	# text() overload, PostGIS's text(geometry) among them.
	[ ! -s "$work/gis.only-files" ] ||
		pgtest_fail "gis files: edges the database does not have: $(head -5 "$work/gis.only-files")"
	echo "gis files: $(wc -l <"$work/gis-files.functions") functions, $(wc -l <"$work/gis-files.edges") edges:" \
		"exactly the database's"
else
	echo "test_real_extensions: PostGIS not installed: skipped that part" >&2
fi

# orafce (hundreds of overloaded SQL wrappers of C functions) and PgQ
# (PL/pgSQL with dynamic SQL): their install scripts mapped as files give
# the database's functions and exactly its call edges.
if have orafce && have pgq; then
	pgtest_psql -c "CREATE DATABASE queues" >/dev/null
	pgtest_psql -d queues -c "SET client_min_messages = warning" -c "CREATE EXTENSION orafce" \
		-c "CREATE EXTENSION pgq" >/dev/null
	check_map queues 'x^'
	for ext in orafce pgq; do
		file=$(ls "$sharedir/extension/$ext"--[0-9]*.sql | grep -v -- '--.*--' | sort -V | tail -1)
		"$cgmap" --sql "$file" --out "$work/$ext-file" --include-extensions --no-html \
			2>"$work/$ext-file.err" || pgtest_fail "$ext file: cgmap failed: $(cat "$work/$ext-file.err")"
		grep -q ' 0 functions with parse errors' "$work/$ext-file.err" ||
			pgtest_fail "$ext file: bodies that do not parse: $(grep -E 'line [0-9]+:' "$work/$ext-file.err" | head -5)"
		jq -r '.functions[].id' "$work/$ext-file/cgmap.json" | LC_ALL=C sort -u >"$work/$ext-file.functions"
		"$cgmap" report edges "$work/$ext-file" | LC_ALL=C sort >"$work/$ext-file.edges"
		"$cgmap" report edges "$work/queues" | LC_ALL=C sort |
			awk 'NR == FNR { mine[$0] = 1; next } { split($0, a, " -> ") } (a[1] in mine)' \
				"$work/$ext-file.functions" - >"$work/$ext-db.edges"
		diff -u "$work/$ext-db.edges" "$work/$ext-file.edges" >&2 ||
			pgtest_fail "$ext file: not the call edges of the database"
		[ -s "$work/$ext-file.edges" ] || pgtest_fail "$ext file: no edges at all"
		echo "$ext file: $(wc -l <"$work/$ext-file.functions") functions, $(wc -l <"$work/$ext-file.edges") edges, as in the database"
	done
else
	echo "test_real_extensions: orafce or PgQ not installed: skipped that part" >&2
fi

if [ "$mapped" = 0 ]; then
	echo "test_real_extensions: none of the extensions is installed (run scripts/setup.sh as root)" >&2
	exit 77
fi
echo "test_real_extensions: ok"
