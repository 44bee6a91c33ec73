#!/usr/bin/env bash
# test_eventtrigalter.sh - DROP EVENT TRIGGER and ALTER EVENT TRIGGER ...
# DISABLE / ENABLE [ALWAYS] / RENAME TO / OWNER TO, in SQL files as in the
# catalog (pg_event_trigger): fixtures/eventtrigalter.sql gives the edges
# of fixtures/expected/eventtrigalter.edges from the live database and
# from the file (none to the dropped trigger's on_a() nor to the disabled
# one's on_b()); run with `cgmap_trace.track = all`, each is observed on
# its static edge and nothing is left unexplained, so an edge to a
# trigger that does not fire would fail as not observed.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case eventtrigalter "event triggers dropped, disabled, enabled and renamed" <<'SQL'
SELECT a.make_u();
SQL
! grep -E 'on_[ab]\(' "$PGTEST_WORK/map.edges" ||
	pgtest_fail "a dropped or disabled event trigger is mapped"
