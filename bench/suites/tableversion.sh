#!/usr/bin/env bash
# bench/suites/tableversion.sh - postgresql-tableversion (table_version)
# under its own pgTAP tests, through bench/suite_verdicts.sh.
#
# usage: bench/suites/tableversion.sh [suite_verdicts options] TREE
#   TREE  its git tree (1.10.3, git HEAD of 2023-10); needs make, jq,
#         pg_config (postgresql-server-dev-15) and pgTAP (postgresql-15-pgtap)
#
# Loads the no-extension script as `make check` does (`make` builds the
# template and the loader, `table_version-loader --no-extension` fills it
# in) and runs test/sql/*.pg, as pg_prove does, each in its own session.
# Works in a copy of TREE; fetches nothing.
set -euo pipefail
[ $# -ge 1 ] && [ -d "${!#}" ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
given="$*"
tree=${!#}
opts=("${@:1:$#-1}")
work=$(mktemp -d -t cgmap-tableversion.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -R "$tree" "$work/src"
cd "$work/src"
version=$(sed -n 's/^EXTVERSION *= *//p' Makefile)
make -s table_version-loader "table_version-$version.sql.tpl" test/sql/version.pg >"$work/make.log" 2>&1 ||
	{ cat "$work/make.log" >&2; exit 1; }
PREPAREDB_NOEXTENSION=1 make -s test/sql/preparedb >>"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
TABLE_VERSION_EXT_DIR=. ./table_version-loader --no-extension - >table_version-noext.sql 2>>"$work/make.log"
cd "$root"
bash bench/suite_verdicts.sh --db tableversion ${opts[@]+"${opts[@]}"} --load table_version-noext.sql \
	--workload 'test/sql/*.pg' "$work/src" | grep -v '^reproduce:'
echo "reproduce: bash bench/suites/tableversion.sh $given"
