#!/usr/bin/env bash
# test_verbranch.sh - a branch of a body written for another server version
# never runs: fixtures/verbranch.sql tests the version directly, through a
# variable assigned by `:=`, by SELECT ... INTO and by a declaration's
# default, and through a SQL function returning it (pgTAP's), around calls
# of functions PostgreSQL 15 does not have.  The live database and the file
# give the edges of fixtures/expected/verbranch.edges and no missing
# callee, each function's left-out lines are kept in the snapshot and said
# on its page, and, with `cgmap_trace.track = all`, every static edge is
# observed and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case verbranch "calls of branches for this server version" <<'SQL'
SELECT app.wal_name();
SELECT app.snapshot(0);
SELECT app.running();
SELECT app.by_default();
SELECT app.type_string('integer');
SELECT app.undecided(2);
SQL

for map in static sql; do
	missing=$(jq -r '.missing[] | .name' "$PGTEST_WORK/$map/cgmap.json")
	[ -z "$missing" ] || pgtest_fail "the $map map has missing callees: $missing"
	jq -c '.functions[] | select(.other_version_branches) | [.id, .other_version_branches]' \
		"$PGTEST_WORK/$map/cgmap.json" >"$PGTEST_WORK/$map.branches"
	cat >"$PGTEST_WORK/want.branches" <<'TXT'
["app.by_default()",[[6,7]]]
["app.running()",[[9,10]]]
["app.snapshot(integer)",[[8,8],[12,14]]]
["app.type_string(text)",[[4,5]]]
["app.wal_name()",[[6,8]]]
TXT
	diff -u "$PGTEST_WORK/want.branches" "$PGTEST_WORK/$map.branches" ||
		pgtest_fail "the $map map's branches for another server version differ"
done
page=$(ls "$PGTEST_WORK"/map/functions/app.snapshot-*.html)
grep -q 'The branches on lines 8 and 12-14 are for another server version' "$page" ||
	pgtest_fail "app.snapshot's page does not say which lines are left out"
echo "ok: no missing callee, the same branches left out live and from the file"
