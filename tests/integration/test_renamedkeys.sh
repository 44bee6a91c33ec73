#!/usr/bin/env bash
# test_renamedkeys.sh - a foreign key's ON UPDATE CASCADE runs for an
# UPDATE that sets the key it references, not for one of another column,
# after the referenced table and the key's columns are renamed:
# fixtures/renamedkeys.sql gives the edge of
# fixtures/expected/renamedkeys.edges from the live database and from the
# file (before, the file's map lost the primary key with the table's
# rename and had app.bump(integer) cascading too); run with
# `cgmap_trace.track = all`, the cascade is observed from rekey, and
# bump's call observes nothing.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case renamedkeys "a renamed key's ON UPDATE action" <<'SQL'
INSERT INTO app.person (name) VALUES ('a');
INSERT INTO app.report (author_id) SELECT person_id FROM app.person;
SELECT app.bump(person_id) FROM app.person;
SELECT app.rekey(person_id) FROM app.person;
SQL
