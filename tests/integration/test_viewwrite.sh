#!/usr/bin/env bash
# test_viewwrite.sh - writes through views: an INSERT, UPDATE or DELETE on
# a view that selects from one relation runs that relation's triggers and
# defaults (the view's own defaults first), through a view on a view too,
# unless an INSTEAD OF trigger or a DO INSTEAD rule takes it over.
# fixtures/viewwrite.sql gives the edges of fixtures/expected/viewwrite.edges
# from the live database and from the file; run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case viewwrite "writes through views" <<'SQL'
SELECT app.add_item(5);
SELECT app.set_qty(6);
SELECT app.add_by_trigger(1);
SELECT app.drop_by_rule();
SELECT app.drop_item();
SQL
