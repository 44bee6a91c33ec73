#!/usr/bin/env bash
# test_dropcascade.sh - DROP VIEW, DROP TABLE or DROP SCHEMA ... CASCADE
# takes with it the views and materialized views reading the relation,
# those reading them, and the functions of its row type; DROP FUNCTION ...
# CASCADE the views calling the function, as pg_depend has it:
# fixtures/dropcascade.sql gives the edges of
# fixtures/expected/dropcascade.edges from the live database, from the
# file and from its pg_dump.  A migration that drops its base view CASCADE
# makes the materialized view again with another function; a function
# reading a view that went with the cascade reads nothing.  Run with
# `cgmap_trace.track = all`, the REFRESH's and the view's calls are
# observed on their static edges.  Before, the files kept the dropped
# views (the new ones "already exist") and their edges: `app.report() ->
# app.double`, `app.old_count() -> app.double`, `app.batch_count() ->
# app.double`, and `app.old_label`, which PostgreSQL dropped with its table.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case dropcascade "drops that cascade to views" <<'SQL'
INSERT INTO app.item VALUES (1, 2), (2, 5);
SELECT app.refresh();
SELECT app.first_label();
SQL
"$CGMAP" --sql "$src/fixtures/dropcascade.sql" --out "$PGTEST_WORK/diag" --no-html 2>"$PGTEST_WORK/diag.err"
if grep -q "already exists" "$PGTEST_WORK/diag.err"; then
	pgtest_fail "the files reported what PostgreSQL made without error: $(cat "$PGTEST_WORK/diag.err")"
fi
pgtest_psql -d dropcascade -Atc "SELECT count(*) FROM pg_proc WHERE proname = 'old_label'" |
	grep -qx 0 || pgtest_fail "PostgreSQL kept app.old_label"
pgtest_expect_dump_edges "$PGTEST_WORK" dropcascade "$src/fixtures/expected/dropcascade.edges" \
	"drops that cascade to views (pg_dump)"
