#!/usr/bin/env bash
# bench/suites/pgq.sh - PgQ 3.5 (Debian's postgresql-15-pgq3) under the
# regression files of its git tree, through bench/suite_verdicts.sh.
#
# usage: bench/suites/pgq.sh [suite_verdicts options] TREE
#   TREE  its git tree at tag v3.5; needs make and pg_config
#         (postgresql-server-dev-15)
#
# Runs the files of the Makefile's Extension_regress in its order (its
# tests twice, around clean_ext, which drops and creates the extension
# again), each in its own session, and maps the extension's own code
# (--extension-code).  Fetches nothing.
set -euo pipefail
[ $# -ge 1 ] && [ -d "${!#}" ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
given="$*"
tree=${!#}
opts=("${@:1:$#-1}")
# shellcheck disable=SC2016 # $(Extension_regress) is make's
tests=$(make -s --no-print-directory -C "$tree" \
	--eval 'cgmap-print-tests: ; @echo $(Extension_regress)' cgmap-print-tests)
workloads=()
for t in $tests; do workloads+=(--workload "sql/$t.sql"); done
cd "$root"
bash bench/suite_verdicts.sh --db pgq --extension-code ${opts[@]+"${opts[@]}"} "${workloads[@]}" "$tree" |
	grep -v '^reproduce:'
echo "reproduce: bash bench/suites/pgq.sh $given"
