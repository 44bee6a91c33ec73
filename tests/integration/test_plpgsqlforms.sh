#!/usr/bin/env bash
# test_plpgsqlforms.sh - forms of PostgreSQL 15's own PL/pgSQL regression
# tests: fixtures/plpgsqlforms.sql gives fixtures/expected/plpgsqlforms.edges
# from the live database and from the file, and run with `cgmap_trace.track
# = all` every edge is observed, nothing unexplained.  Before, a CALL in the
# constant SQL of an EXECUTE looked for functions only (a missing callee
# and an unexplained call), a line comment before a simple CASE's THEN was
# a parse error (libpg_query keeps the comment inside the `IN (...)` it
# builds) and so was a DO statement in a body, or a CREATE FUNCTION ...
# BEGIN ATOMIC in one (libpg_query's PL/pgSQL parser ends it at the
# first `;` of its atomic body): in a DO block of a file, the function
# it creates was not mapped.  The DO block's call is the
# block's own: cgmap_trace sees it as an entry point, and the map has no
# edge from the body holding it.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

pgtest_traced_case plpgsqlforms "forms of PostgreSQL's PL/pgSQL tests" <<'SQL'
CALL r.by_execute();
SELECT r.case_comment(1), r.case_comment(2);
CALL r.with_do();
SELECT r.made(), r.maker();
SQL
for side in static sql; do
	errors=$(jq -r '.functions[] | select(.errors) | "\(.id): \(.errors)"' "$PGTEST_WORK/$side/cgmap.json")
	[ -z "$errors" ] || pgtest_fail "$side: parse errors: $errors"
done
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "r.with_do() -> r.record_it(integer,text) via dynamic"
echo "ok: no parse error, the DO block's call not the body's"
