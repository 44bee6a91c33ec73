#!/usr/bin/env bash
# test_addcolumnfn.sh - an ALTER TABLE ... ADD COLUMN whose default calls a
# user function rewrites the table (a table_rewrite event trigger fires,
# the indexes are built again) only when the function is VOLATILE:
# fixtures/addcolumnfn.sql gives the edges of
# fixtures/expected/addcolumnfn.edges from the live database, from the
# file and from its pg_dump (pg_proc.provolatile, or the CREATE FUNCTION's
# STABLE/IMMUTABLE, VOLATILE by default); run with `cgmap_trace.track =
# all`, each is observed on its static edge and nothing is left
# unexplained.  A STABLE or IMMUTABLE default is called once, at the
# ALTER, and stored as the missing value: before, such a default was taken
# as rewriting the table, edges to on_rewrite() and key_of() that never ran.
# A column of a user type rewrites the table only for a domain with
# constraints (its own or its base domain's, CREATE or ALTER DOMAIN), whose
# checks then run on every row (pg_type.typnotnull and pg_constraint live,
# the statements in files): before, every user type was taken as rewriting.
# A column added without a DEFAULT takes its domain's, whose functions run
# (pg_depend of the type live), and rewrites the table if one is volatile.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

PGTEST_WORK=$(mktemp -d)
chmod 755 "$PGTEST_WORK"
trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
expected=$src/fixtures/expected/addcolumnfn.edges
what="ADD COLUMN defaults calling user functions"
pgtest_traced_fixture "$PGTEST_WORK" addcolumnfn "$src/fixtures/addcolumnfn.sql" "$expected" "$what"

pgtest_expect_dump_edges "$PGTEST_WORK" addcolumnfn "$expected" "$what (pg_dump)"

pgtest_traced_workload "$PGTEST_WORK" addcolumnfn "$expected" "$what" <<'SQL'
SELECT a.add_stable();
SELECT a.add_immutable();
SELECT a.add_volatile();
SELECT a.add_both();
SELECT a.add_checked();
SELECT a.add_over();
SELECT a.add_not_null();
SELECT a.add_later();
SELECT a.add_plain();
SELECT a.add_plain_on_path();
SELECT a.add_enum();
SELECT a.add_composite();
SELECT a.add_stable_domain();
SELECT a.add_over_stable_domain();
SELECT a.add_volatile_domain();
SELECT a.add_own_default();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no \
	"a.add_stable() -> a.on_rewrite()" "a.add_stable() -> a.key_of(" \
	"a.add_immutable() -> a.on_rewrite()" "a.add_immutable() -> a.key_of("
pgtest_expect_edge "$PGTEST_WORK/map.edges" no \
	"a.add_plain() -> " "a.add_plain_on_path() -> " "a.add_enum() -> " "a.add_composite() -> " \
	"a.add_own_default() -> " "a.add_stable_domain() -> a.on_rewrite()"
pgtest_expect_edge "$PGTEST_WORK/map.edges" yes \
	"a.add_checked() -> a.is_pos(integer) via domain (domain a.checked.checked_check)" \
	"a.add_over() -> a.on_rewrite() via event_trigger (event trigger rewrites)" \
	"a.add_later() -> a.key_of(integer) via index (index a.t_key)" \
	"a.add_over_stable_domain() -> a.steady() via default (default of domain a.over_stable_domain)" \
	"a.add_volatile_domain() -> a.fresh() via default (default of domain a.volatile_domain)" \
	"a.add_volatile() -> a.on_rewrite() via event_trigger (event trigger rewrites)" \
	"a.add_both() -> a.key_of(integer) via index (index a.t_key)"
