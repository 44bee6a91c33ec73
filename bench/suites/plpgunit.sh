#!/usr/bin/env bash
# bench/suites/plpgunit.sh - plpgunit under the three examples of its
# readme.md (it has no tests of its own), through bench/suite_verdicts.sh.
#
# usage: bench/suites/plpgunit.sh [suite_verdicts options] TREE
#   TREE  its git tree (git HEAD of 2016-02)
#
# Loads install/1.install-unit-test.sql and runs each example's SQL (the
# indented lines of its "## Example" section) as one file, in its own
# session.  Example #2 ends its DROP FUNCTION line without a semicolon,
# which would make its CREATE FUNCTION a syntax error: the semicolon is
# added.  Works in a copy of TREE; fetches nothing.
set -euo pipefail
[ $# -ge 1 ] && [ -d "${!#}" ] || { sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
given="$*"
tree=${!#}
opts=("${@:1:$#-1}")
work=$(mktemp -d -t cgmap-plpgunit.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -R "$tree" "$work/src"
mkdir "$work/src/examples"
awk -v dir="$work/src/examples" '
	/^## Example/ { n++; on = 1; next }
	/^\*\*Will Result in\*\*/ { on = 0; next }
	on && /^\t/ { sub(/^\t/, ""); print > (dir "/example" n ".sql") }' "$work/src/readme.md"
sed -i 's/^\(DROP FUNCTION IF EXISTS unit_tests\.example2()\)$/\1;/' "$work/src/examples/example2.sql"
cd "$root"
bash bench/suite_verdicts.sh --db plpgunit ${opts[@]+"${opts[@]}"} --load install/1.install-unit-test.sql \
	--workload 'examples/*.sql' "$work/src" | grep -v '^reproduce:'
echo "reproduce: bash bench/suites/plpgunit.sh $given"
