#!/usr/bin/env bash
# test_objects.sh - a table's triggers, policies, rules, constraints and
# indexes changed after they were made (renamed, altered, replaced,
# dropped with the function they call, a trigger cloned onto a partition
# made later): fixtures/objects.sql gives the edges of
# fixtures/expected/objects.edges from the live database and from the file
# (test_sql_parity compares objects and references, and those of a
# pg_dump); its workload, run by a role without BYPASSRLS so that the
# policy's clauses run, observes each static edge and leaves nothing
# unexplained.  Last, a DROP FUNCTION that PostgreSQL refuses for its
# dependents, followed by CREATE OR REPLACE, keeps them in the file's map.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case objects "edges through altered table objects" <<'SQL'
CREATE ROLE objects_worker;
GRANT USAGE ON SCHEMA app TO objects_worker;
GRANT ALL ON ALL TABLES IN SCHEMA app TO objects_worker;
ALTER MATERIALIZED VIEW app.mv OWNER TO objects_worker; -- REFRESH needs its owner
SET ROLE objects_worker;
SELECT app.work();
SQL

# psql goes on past the refused DROP; the default still calls app.kept().
cat >"$PGTEST_WORK/refused.sql" <<'SQL'
CREATE SCHEMA app;
CREATE FUNCTION app.kept() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RETURN 2; END $$;
CREATE TABLE app.k (id integer DEFAULT app.kept());
DROP FUNCTION app.kept();
CREATE OR REPLACE FUNCTION app.kept() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RETURN 3; END $$;
CREATE FUNCTION app.add() RETURNS void LANGUAGE plpgsql AS $$ BEGIN INSERT INTO app.k DEFAULT VALUES; END $$;
SQL
"$cgmap" --sql "$PGTEST_WORK/refused.sql" --out "$PGTEST_WORK/refused" --no-html 2>/dev/null || pgtest_fail "cgmap --sql failed on the refused drop"
"$cgmap" report edges "$PGTEST_WORK/refused" >"$PGTEST_WORK/refused.edges"
grep -q '^app.add() -> app.kept() via default (default app.k.id) static' "$PGTEST_WORK/refused.edges" ||
	pgtest_fail "a DROP FUNCTION without CASCADE took the default with it: $(cat "$PGTEST_WORK/refused.edges")"
echo "ok: a refused DROP FUNCTION keeps what calls the function"
