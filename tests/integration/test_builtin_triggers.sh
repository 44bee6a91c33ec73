#!/usr/bin/env bash
# test_builtin_triggers.sh - triggers running pg_catalog's trigger functions
# (tsvector_update_trigger, suppress_redundant_updates_trigger):
# fixtures/builtin_triggers.sql gives the edges of
# fixtures/expected/builtin_triggers.edges from the live database and from
# the file (test_sql_parity compares the triggers themselves); run with
# `cgmap_trace.track = all`, the WHEN calls are observed on their static
# edges, and the builtins really ran (the tsvector is filled, the redundant
# update suppressed).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case builtin_triggers "edges through builtin-function triggers" <<'SQL'
SELECT app.add_doc(1, 'a quick brown fox');
SELECT app.edit_doc(1, 'the lazy dog');
DO $$
BEGIN
	IF (SELECT tsv FROM app.doc WHERE id = 1) IS DISTINCT FROM to_tsvector('english', 'the lazy dog') THEN
		RAISE 'tsvector_update_trigger did not run';
	END IF;
END $$;
SQL
[ "$(pgtest_psql -d builtin_triggers -c "SELECT xmin::text FROM app.doc WHERE id = 1")" = \
	"$(pgtest_psql -d builtin_triggers -c "SELECT app.edit_doc(1, 'the lazy dog'); SELECT xmin::text FROM app.doc WHERE id = 1" | tail -1)" ] ||
	pgtest_fail "suppress_redundant_updates_trigger did not suppress the same update"
