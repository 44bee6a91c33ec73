#!/usr/bin/env bash
# bench/suites/pgl_ddl_deploy.sh - pgl_ddl_deploy 2.1.0 (Debian's
# postgresql-15-pgl-ddl-deploy, with postgresql-15-pglogical) under the
# regression files of its git tree, through bench/suite_verdicts.sh.
#
# usage: bench/suites/pgl_ddl_deploy.sh PART [suite_verdicts options] TREE
#   PART  first: the files 01 to 23 (pglogical driver); second: 29 to 51
#         (native driver); all: the 56 files of the Makefile's REGRESS
#   TREE  its git tree at tag v2.1.0; needs make and pg_config
#         (postgresql-server-dev-15)
#
# Runs the files in the Makefile's order in contrib_regression, each in its
# own session, with pglogical preloaded and wal_level = logical, after
# GRANT CREATE ON SCHEMA public TO PUBLIC (its tests assume the public
# schema of PostgreSQL before 15), and maps the extensions' own code
# (--extension-code).  Fetches nothing.
set -euo pipefail
[ $# -ge 2 ] && [ -d "${!#}" ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
given="$*"
part=$1
shift
tree=${!#}
opts=("${@:1:$#-1}")
# shellcheck disable=SC2016 # $(REGRESS) is make's
tests=$(make -s --no-print-directory -C "$tree" --eval 'cgmap-print-tests: ; @echo $(REGRESS)' cgmap-print-tests |
	tr ' ' '\n')
case $part in
first) tests=$(echo "$tests" | sed -n '1,/^23_/p') ;;
second) tests=$(echo "$tests" | sed -n '/^29_/,/^51_/p') ;;
all) ;;
*) echo "pgl_ddl_deploy.sh: PART is first, second or all" >&2; exit 2 ;;
esac
workloads=()
for t in $tests; do workloads+=(--workload "sql/$t.sql"); done
cd "$root"
bash bench/suite_verdicts.sh --db contrib_regression --extension-code \
	--setting "shared_preload_libraries = 'cgmap_trace,pglogical'" --setting "wal_level = logical" \
	--before "GRANT CREATE ON SCHEMA public TO PUBLIC" ${opts[@]+"${opts[@]}"} "${workloads[@]}" "$tree" |
	grep -v '^reproduce:'
echo "reproduce: bash bench/suites/pgl_ddl_deploy.sh $given"
