#!/usr/bin/env bash
# test_plpgsql_lines.sh - call-site lines PL/pgSQL's stored text of a
# statement does not tell (an INTO clause blanked, newlines and all, a
# simple CASE's WHEN values behind a prefix), calls in cursor statements
# (OPEN arguments, FETCH and MOVE counts) that a catalog-less parse
# rewrites, and assignments to numbered parameters: fixtures/plpgsql_lines.sql gives
# exactly the edges and lines of fixtures/expected/plpgsql_lines.edges
# from the live database and from the file (each line checked by hand:
# the line the callee's name stands on).  Run with `cgmap_trace.track =
# all`, each edge is observed on its static edge, nothing is unexplained,
# and PostgreSQL's own line for each call, the line of the statement it
# ran in, is the line where the statement holding the static site starts.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

expected=$src/fixtures/expected/plpgsql_lines.edges
pgtest_traced_case plpgsql_lines "call-site lines after INTO and numbered parameters" <<'SQL'
INSERT INTO app.t VALUES (0, 1, 5);
SELECT app.ex();
DELETE FROM app.t;
SELECT app.kinds();
SELECT app.g();
SELECT app.g2(3);
SELECT app.o2('abc', 1);
CALL app.pr(1, NULL);
SELECT * FROM app.rows(1);
SELECT app.cursors();
SELECT app.cases(0);
SQL

# PostgreSQL as the judge of each static line: in the body as the server
# stores it (prosrc, lines counted from its first, as PL/pgSQL counts
# them), the callee's name stands on that line.
checked=0
while read -r from _ to _ _ _ _ lines; do
	callee=${to%%(*}
	for line in ${lines//,/ }; do
		text=$(pgtest_psql -d plpgsql_lines -c "SELECT split_part(prosrc, E'\\n', $line)
			FROM pg_proc WHERE oid = '$from'::regprocedure")
		case $text in
		*"$callee("*) checked=$((checked + 1)) ;;
		*) pgtest_fail "$from: $callee is not on line $line of the stored body: '$text'" ;;
		esac
	done
done <"$expected"

# And cgmap_trace's line of each call, the line of the statement it ran in
# (PostgreSQL's current statement, as its CONTEXT lines give it), is the
# static line or one above it in the same statement: never below.
pgtest_psql -d plpgsql_lines -F ' ' -c "SELECT caller, callee, site_line FROM cgmap_trace_edges
	WHERE caller IS NOT NULL ORDER BY 1, 2, 3" >"$PGTEST_WORK/observed"
[ "$(wc -l <"$PGTEST_WORK/observed")" -eq "$(wc -l <"$expected")" ] ||
	pgtest_fail "observed edges differ from the static ones: $(cat "$PGTEST_WORK/observed")"
while read -r from to observed; do
	static=$(grep -F "$from -> $to via " "$expected" | sed -E 's/.* static lines ([0-9]+).*/\1/')
	[ -n "$static" ] && [ "$observed" -le "$static" ] ||
		pgtest_fail "$from -> $to observed at line $observed, static at '$static'"
done <"$PGTEST_WORK/observed"
echo "ok: $checked call-site lines found in the stored bodies, $(wc -l <"$PGTEST_WORK/observed") calls observed at or above them"
