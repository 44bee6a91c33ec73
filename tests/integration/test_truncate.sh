#!/usr/bin/env bash
# test_truncate.sh - how a statement names its table decides what it
# reaches: TRUNCATE ... CASCADE truncates (and fires the TRUNCATE triggers
# of) every table referencing the truncated ones by a foreign key, down the
# keys and into partitions, not the tables inheriting from them; UPDATE,
# DELETE and TRUNCATE ONLY leave the inheriting tables out.
# fixtures/truncate.sql gives the edges of fixtures/expected/truncate.edges
# from the live database and from the file; run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case truncate "TRUNCATE CASCADE and ONLY" <<'SQL'
INSERT INTO app.account VALUES (1);
INSERT INTO app.entry VALUES (1, 1);
INSERT INTO app.entry_note VALUES (1);
INSERT INTO app.entry_old VALUES (2, NULL);
INSERT INTO app.audit VALUES (1, 1);
SELECT app.touch_entries();
SELECT app.touch_all_entries();
SELECT app.wipe_notes();
SELECT app.wipe_accounts();
SQL
