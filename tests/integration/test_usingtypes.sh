#!/usr/bin/env bash
# test_usingtypes.sh - EXECUTE ... USING: fixtures/usingtypes.sql gives
# fixtures/expected/usingtypes.edges from the live database and from the
# file, and run with `cgmap_trace.track = all` every edge is observed,
# nothing unexplained.  Before, a $n in the constant SQL of an EXECUTE was
# untyped: each call of the overloaded u.f was ambiguous among its four
# overloads, where PostgreSQL types $n by the USING value (a parameter, a
# variable, a literal as text, a cast, an expression, a row's field) and
# calls one.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

pgtest_traced_case usingtypes "EXECUTE ... USING" <<'SQL'
INSERT INTO u.item VALUES (1, DATE '2026-01-01', 2.5);
SELECT u.by_value(1), u.by_expression(2);
SELECT * FROM u.by_query(3);
SELECT u.by_utility(4);
SQL
for side in static sql; do
	ambiguous=$(jq -r '[.edges[] | select(.ambiguous)] | length' "$PGTEST_WORK/$side/cgmap.json")
	[ "$ambiguous" = 0 ] || pgtest_fail "$side: $ambiguous ambiguous edges"
done
echo "ok: no ambiguous edge"
