#!/usr/bin/env bash
# test_relations_trace.sh - every call PostgreSQL makes through a relation
# (view, policy, default, generated column, check, domain check, trigger and
# its WHEN, rule, index expression and predicate, partition trigger,
# cascade, event trigger) is observed by cgmap_trace with
# `cgmap_trace.track = all` and merged onto the static edge that explains
# it: fixtures/relations.sql run by a role under row-level security leaves
# no unexplained edge, and each expected edge is both static and observed.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_install_trace "$work"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE rel" >/dev/null
pgtest_psql -d rel -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/relations.sql" >/dev/null
# A role without BYPASSRLS, so that the policies run.
pgtest_psql -d rel -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE ROLE clerk LOGIN NOBYPASSRLS;
GRANT USAGE, CREATE ON SCHEMA app TO clerk;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA app TO clerk;
INSERT INTO app.orders (id, amount, code) VALUES (1, 500, 'B2'), (0, 5, 'C3');
INSERT INTO app.order_lines VALUES (1, 1), (2, 1);
INSERT INTO app.shipments VALUES (1, 1);
SELECT cgmap_trace_reset();
SQL
pgtest_psql -d rel -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 <<'SQL' || { cat "$work/workload.log" >&2; pgtest_fail "the workload failed"; }
SET client_min_messages = warning;
SET ROLE clerk;
SELECT app.read_orders();
SELECT app.add_order(7);
SELECT app.touch_order(1);
SELECT app.drop_order(1);
SELECT app.log_it();
SELECT app.add_event();
SELECT app.add_event_2024();
SELECT app.make_tables();
SQL

"$cgmap" --dsn "dbname=rel" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
# Every edge of the fixture, observed on its static edge.
pgtest_expect_traced "$src/fixtures/expected/relations.edges" "$work/map" "calls through relations"
echo "ok: $(wc -l <"$work/map.both") edges through relations observed and explained"
