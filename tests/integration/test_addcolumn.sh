#!/usr/bin/env bash
# test_addcolumn.sh - an ALTER TABLE ... ADD COLUMN rewrites the table (a
# table_rewrite event trigger fires, the indexes are built again) only for
# a volatile default, serial, an identity or stored generated column, or a
# domain with constraints: fixtures/addcolumn.sql gives the edges of
# fixtures/expected/addcolumn.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained.  No edge of add_plain(),
# add_const() or add_now() reaches on_rewrite() or key_of(): an ADD COLUMN
# PostgreSQL does not rewrite for must not say it does.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case addcolumn "event triggers and indexes of ADD COLUMN" <<'SQL'
SELECT a.add_plain();
SELECT a.add_const();
SELECT a.add_now();
SELECT a.add_random();
SELECT a.add_serial();
SELECT a.add_identity();
SELECT a.add_generated();
SELECT a.add_domain();
SELECT a.retype();
SQL
! grep -E '^a\.add_(plain|const|now)\(\) -> a\.(on_rewrite|key_of)\(' "$PGTEST_WORK/map.edges" ||
	pgtest_fail "an ADD COLUMN that rewrites nothing is mapped as a rewrite"
for f in add_random add_serial add_identity add_generated add_domain retype; do
	grep -q "^a\.$f() -> a\.on_rewrite() via event_trigger (event trigger rewrites) both" \
		"$PGTEST_WORK/map.edges" || pgtest_fail "$f() rewrites the table, not mapped and observed so"
done
