#!/usr/bin/env bash
# test_genupdate.sh - a stored generated column's expression runs on every
# INSERT, on an UPDATE only when it sets a column the expression reads.
# fixtures/genupdate.sql gives the edges of fixtures/expected/genupdate.edges
# from the live database and from the file (none for upd_d(), which sets a
# column no expression reads); run with `cgmap_trace.track = all`, each is
# observed on its static edge and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case genupdate "generated columns computed again by UPDATE" <<'SQL'
SELECT gen.ins();
INSERT INTO gen.r (y, d) VALUES (1, 1);
INSERT INTO gen.l (y, d) VALUES (1, 1);
SELECT gen.upd_d();
SELECT gen.upd_a();
SELECT gen.upd_b();
SELECT gen.upd_renamed();
SQL
