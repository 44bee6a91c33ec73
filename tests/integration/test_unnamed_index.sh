#!/usr/bin/env bash
# test_unnamed_index.sh - indexes created without a name, on expressions
# and with predicates calling our functions: fixtures/unnamed_index.sql
# gives the edges of fixtures/expected/unnamed_index.edges from the live
# database (index names as the server chose them) and from the file (the
# names cgmap chooses as PostgreSQL does); run with
# `cgmap_trace.track = all`, each is observed on its static edge and
# nothing is left unexplained.  Last, the server's own index names are the
# ones the file's map gives.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

# Rows enough that every index is written; the UPDATE changes an indexed
# column, so it is not HOT and every index gets a new entry.
pgtest_traced_case unnamed_index "edges through unnamed indexes" <<'SQL'
SELECT app.add_person(g, 'Person ' || g, g) FROM generate_series(1, 20) g;
SELECT app.rescore(3);
SQL

# The names: those the server gave, those the file's map gives.
pgtest_psql -d unnamed_index -Atc "SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'app.people'::regclass
	AND (indexprs IS NOT NULL OR indpred IS NOT NULL)" | sort >"$PGTEST_WORK/server.names"
sed -n 's/.* via index (index \([^ )]*\).*/\1/p' "$PGTEST_WORK/sql.edges" | sort -u >"$PGTEST_WORK/file.names"
pgtest_expect_file "$PGTEST_WORK/server.names" "$PGTEST_WORK/file.names" "index names PostgreSQL chose"
echo "ok: $(wc -l <"$PGTEST_WORK/file.names") index names chosen as PostgreSQL chooses them"
