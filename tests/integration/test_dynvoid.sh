#!/usr/bin/env bash
# test_dynvoid.sh - EXECUTE of a call of a function that returns void:
# fixtures/dynvoid.sql gives the edges of fixtures/expected/dynvoid.edges
# from the live database and from the file; run with
# `cgmap_trace.track = all`, the calls are observed on their static edge
# (cgmap_trace reports them made by the EXECUTE), nothing is left
# unexplained, and both dynamic sites are read as running no user
# function: void's output is the empty string, which EXECUTE runs as no
# statement.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case dynvoid "EXECUTE of a void call" <<'SQL'
INSERT INTO app.url VALUES (1), (2), (3);
SELECT app.remove(1);
SQL
"$CGMAP" report dynamic "$PGTEST_WORK/map" >"$PGTEST_WORK/dynamic"
for line in 3 4; do
	grep -q "^app\.remove(integer) line $line: dynamic site that can call no user function" \
		"$PGTEST_WORK/dynamic" ||
		pgtest_fail "EXECUTE of a void call at line $line not read as calling nothing: $(cat "$PGTEST_WORK/dynamic")"
done
