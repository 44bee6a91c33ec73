#!/usr/bin/env bash
# test_rules.sh - rules that replace a statement and rules that add to it:
# an unconditional DO INSTEAD rule runs its action and not the table's own
# triggers (nor a view's automatic update; DO INSTEAD NOTHING drops the
# statement), a conditional one and a DO ALSO rule run both.
# fixtures/rules.sql gives the edges of fixtures/expected/rules.edges from
# the live database and from the file; run with `cgmap_trace.track = all`,
# each is observed on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case rules "rules" <<'SQL'
SELECT app.add_event(5);
SELECT app.add_line(5);
SELECT app.add_line(500);
INSERT INTO app.item VALUES (1, 1), (2, 2);
SELECT app.drop_item(1);
SELECT app.set_qty_v(3);
SELECT app.keep_items();
SQL
