#!/usr/bin/env bash
# test_partfk.sh - the foreign keys a partitioned table's partitions get
# from it (the key before or after the partition: inline, ADD CONSTRAINT,
# PARTITION OF, ATTACH PARTITION, two levels down): fixtures/partfk.sql
# gives the edges of fixtures/expected/partfk.edges from the live database
# and from the file (test_sql_parity compares the cascades themselves);
# run with `cgmap_trace.track = all`, the cascades' calls are observed and
# nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case partfk "calls through partitions' foreign keys" <<'SQL'
INSERT INTO app.customer VALUES (1, 'a'), (2, 'b');
INSERT INTO app.region VALUES ('eu');
INSERT INTO app.orders VALUES (1, 1, 'eu', 'web'), (2, 1, 'eu', 'shop'), (3, 1, 'eu', 'mail'),
	(4, 2, 'eu', 'phone');
INSERT INTO app.notes_old VALUES (1, 1);
SELECT app.rename_region('eu', 'europe');
SELECT app.drop_region('europe');
SELECT app.forget(1);
SQL
