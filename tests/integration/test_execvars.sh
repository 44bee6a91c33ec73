#!/usr/bin/env bash
# test_execvars.sh - EXECUTE of a variable: fixtures/execvars.sql gives
# fixtures/expected/execvars.edges from the live database and from the
# file, and run with `cgmap_trace.track = all` every edge is observed,
# nothing unexplained.  Before, `q := 'SELECT ...'; EXECUTE q;` was a
# dynamic site whose calls only runtime data showed.  An assignment that
# surely reaches the EXECUTE gives its calls alone, at the EXECUTE's line;
# branches and loops give every constant the variable is given before the
# EXECUTE or after it in a loop around it; constant pieces appended under
# IFs give each value that parses (x.appended).  A variable given SQL
# built at run time there (a variable concatenated, selected INTO, a
# parameter, an array element) stays a dynamic site with no static edge.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

pgtest_traced_case execvars "EXECUTE of a variable" <<'SQL'
SELECT x.constants(1);
SELECT x.runtime_only(1, 'SELECT x.k(''b'')');
SELECT x.branches(1), x.branches(0);
SELECT * FROM x.appended(1, 'a');
SELECT * FROM x.appended(2, NULL);
SQL
for side in static sql; do
	pgtest_expect_edge "$PGTEST_WORK/$side.edges" no "x.runtime_only(integer,text)"
	dynamic=$(jq -r '[.functions[] | select(.id == "x.runtime_only(integer,text)") | .sites[] |
		select(.kind == "dynamic") | .line] | join(",")' "$PGTEST_WORK/$side/cgmap.json")
	[ "$dynamic" = "9,11,12,14" ] || pgtest_fail "$side: dynamic sites of x.runtime_only at lines '$dynamic', expected 9,11,12,14"
done
echo "ok: SQL built at run time stays four dynamic sites"
for side in static sql; do
	dynamic=$(jq -r '[.functions[] | select(.id == "x.branches(integer)") | .sites[] |
		select(.kind == "dynamic") | .line] | join(",")' "$PGTEST_WORK/$side/cgmap.json")
	[ "$dynamic" = "20" ] || pgtest_fail "$side: dynamic sites of x.branches at lines '$dynamic', expected 20"
done
echo "ok: a value built after the EXECUTEs of constants, outside their loop, leaves them their constants"
observed=$(grep -c -E '^x\.runtime_only\(integer,text\) -> x\.(h|n|k|m)\(.*\) via dynamic observed ' "$PGTEST_WORK/map.edges" || true)
[ "$observed" = 4 ] || pgtest_fail "the four calls of x.runtime_only observed through its dynamic sites: $observed
$(cat "$PGTEST_WORK/map.edges")"
echo "ok: and their calls observed there"
