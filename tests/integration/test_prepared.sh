#!/usr/bin/env bash
# test_prepared.sh - PREPARE calls nothing; EXECUTE of a prepared statement
# is a dynamic site, which explains the calls seen there.
# fixtures/prepared.sql gives no static edge (fixtures/expected/prepared.edges)
# from the live database nor from the file; run with `cgmap_trace.track =
# all`, the one observed edge, app.run_it() -> app.g(), is explained by
# the dynamic site.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case prepared "prepared statements" <<'SQL'
SELECT app.prepare_it();
SELECT app.run_it();
SQL
# The call was seen, at the dynamic site: the verdict above was not vacuous.
grep -q '^app.run_it() -> app.g() via dynamic observed' "$PGTEST_WORK/map.edges" ||
	pgtest_fail "app.run_it() -> app.g() not observed through its dynamic site: $(cat "$PGTEST_WORK/map.edges")"
