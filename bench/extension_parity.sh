#!/usr/bin/env bash
# bench/extension_parity.sh - the files' map of each extension's install
# script against the database's map of the same extension, for every
# extension this server can create: what `cgmap --sql` reads offline
# (the script as CREATE EXTENSION runs it, what it requires made from
# cgmap's extensions list) must give what `cgmap --dsn` reads from the
# catalog after CREATE EXTENSION ... CASCADE.
#
# usage: bench/extension_parity.sh [--cgmap BIN] [--keep DIR] [EXTENSION...]
#   EXTENSION   only these (default: every one with a control file whose
#               default version has an install script of its own)
#   --cgmap BIN the cgmap binary (default: build/release/cgmap)
#   --keep DIR  keep each extension's two maps and the difference in DIR/NAME
#
# Both maps use --include-extensions; the call edges of the functions the
# script defines are compared, one a line (`cgmap report edges`).  Prints
# one line per extension ("same", or how many edges only one side has) and
# a count.  An extension whose default version is built from an older
# install script and update scripts (hstore 1.8 from 1.4 and seven
# updates) is listed as such and not compared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cgmap=$root/build/release/cgmap
keep=
only=()
while [ $# -gt 0 ]; do
	case $1 in
	--cgmap) cgmap=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
	--keep) mkdir -p "$2"; keep=$(cd "$2" && pwd); shift 2 ;;
	-h|--help) sed -n "2,/^set -euo/p" "$0" | sed "$ d"; exit 0 ;;
	*) only+=("$1"); shift ;;
	esac
done
command -v jq >/dev/null || { echo "extension_parity: needs jq" >&2; exit 1; }
[ -x "$cgmap" ] || { echo "extension_parity: no cgmap binary at $cgmap (cmake --build build/release)" >&2; exit 1; }
share=$(pg_config --sharedir 2>/dev/null || echo /usr/share/postgresql/15)/extension
[ -d "$share" ] || share=/usr/share/postgresql/15/extension

# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-extparity.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
pgtest_start
trap 'pgtest_stop; rm -rf "$work"' EXIT

control_value() { sed -n "s/^ *$2 *= *'*\([^'#]*\)'*.*/\1/p" "$share/$1.control" | tr -d ' '; }
same=0 differ=0 compared=0
for control in "$share"/*.control; do
	ext=$(basename "$control" .control)
	case $ext in plpgsql | cgmap_trace*) continue ;; esac
	if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx -- "$ext"; then
		continue
	fi
	version=$(control_value "$ext" default_version)
	script=$share/$ext--$version.sql
	if [ ! -f "$script" ]; then
		echo "$ext: $version is built by update scripts, not compared"
		continue
	fi
	d=$work/$ext
	mkdir -p "$d"
	pgtest_psql -c "DROP DATABASE IF EXISTS parity" -c "CREATE DATABASE parity" >/dev/null 2>&1
	if ! pgtest_psql -d parity -c "SET client_min_messages = warning" \
		-c "CREATE EXTENSION \"$ext\" CASCADE" >"$d/create.log" 2>&1; then
		echo "$ext: cannot be created here ($(grep -m1 ERROR "$d/create.log" | sed 's/.*ERROR: *//'))"
		continue
	fi
	"$cgmap" --dsn dbname=parity --include-extensions --no-html --no-runtime \
		--no-cache --quiet --out "$d/db" >"$d/db.err" 2>&1 || { echo "$ext: the database's map failed"; continue; }
	# What the script requires, made as CASCADE would make it.
	{
		for r in $(control_value "$ext" requires | tr ',' ' '); do
			echo "CREATE EXTENSION IF NOT EXISTS \"$r\" CASCADE;"
		done
	} >"$d/requires.sql"
	"$cgmap" --sql "$d/requires.sql" "$script" --include-extensions --no-html --no-cache \
		--out "$d/files" >"$d/files.err" 2>&1 || { echo "$ext: the files' map failed"; continue; }
	jq -r '.functions[] | select(.analysed) | .id' "$d/files/cgmap.json" | LC_ALL=C sort >"$d/ids"
	own() { awk 'NR == FNR { mine[$0] = 1; next } { split($0, a, " -> ") } (a[1] in mine)' "$d/ids" -; }
	"$cgmap" report edges "$d/db" | LC_ALL=C sort | own >"$d/db.edges"
	"$cgmap" report edges "$d/files" | LC_ALL=C sort | own >"$d/files.edges"
	compared=$((compared + 1))
	if diff "$d/db.edges" "$d/files.edges" >"$d/edges.diff"; then
		same=$((same + 1))
		echo "$ext: same ($(wc -l <"$d/ids") functions with bodies, $(wc -l <"$d/db.edges") edges)"
	else
		differ=$((differ + 1))
		echo "$ext: differs ($(wc -l <"$d/ids") functions with bodies, $(wc -l <"$d/db.edges") edges in the" \
			"database): $(grep -c '^<' "$d/edges.diff" || true) only in the database's map," \
			"$(grep -c '^>' "$d/edges.diff" || true) only in the files'"
	fi
	[ -n "$keep" ] && { rm -rf "${keep:?}/$ext"; cp -R "$d" "$keep/$ext"; }
done
echo "extension scripts compared: $compared; the same edges: $same; different: $differ"
echo "reproduce: bash bench/extension_parity.sh${only[*]:+ ${only[*]}}"
