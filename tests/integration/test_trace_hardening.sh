#!/usr/bin/env bash
# Integration test of cgmap_trace's defences against hostile roles and
# careless settings, against a real PostgreSQL 15:
#   - a role with only CONNECT and TEMP cannot fill the table (temporary
#     functions are not recorded), a full table evicts its least recently
#     seen edges so new edges are still recorded, and the counters say so;
#   - edges of dropped functions and databases are removed (at the drop's
#     commit, and when the view is read), so no junk survives a restart;
#   - a role sees only the edges of databases it may connect to;
#   - cgmap_trace.max_edges is capped;
#   - extension versions: fresh install (1.8) and upgrades from 1.0.
#
# Every check runs even after a failure (so that running it against an
# older cgmap_trace shows each defect); the exit code says whether any
# failed.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ext="$root/extension/cgmap_trace"

# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=tests/lib/pgext.sh
. "$root/tests/lib/pgext.sh"

skip() { echo "SKIP: $*" >&2; exit 77; }
step() { echo "--- $*"; }

command -v pg_config >/dev/null 2>&1 || skip "pg_config not found (install postgresql-server-dev-15)"
command -v make >/dev/null 2>&1 || skip "make not found"


# The extension is built into a temporary folder and installed into a
# private copy of the installation tree (tests/lib/pgext.sh): the system
# PostgreSQL is never written to, and parallel runs never meet.
work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-trace-test.XXXXXX")
chmod 755 "$work"   # the server runs as another user when we are root
trap 'rm -rf "$work"' EXIT
step "build cgmap_trace, install it into a private tree"
if ! "$ext/build.sh" "$work/build" >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	pgtest_fail "build.sh failed"
fi
if grep -i "warning" "$work/build.log" >&2; then
	pgtest_fail "compiler warnings"
fi
pgext_tree "$work/tree" "$work/build" || skip "could not make a private installation tree (see above)"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.max_edges = 100"
trap 'pgtest_stop; rm -rf "$work"' EXIT

sql() { pgtest_psql "$@"; }

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
expect_eq() {
	local what=$1 exp=$2 act=$3
	if [ "$exp" = "$act" ]; then
		echo "ok: $what"
	else
		fail "$what: expected '$exp', got '$act'"
	fi
}
# q SQL...: one value, or the error text (so a failing query fails the check)
q() { sql "$@" 2>&1 || true; }
reset() { sql -c "SELECT cgmap_trace_reset()" >/dev/null; }
# raw number of edges in the shared table (info does not validate anything)
used() { q -c "SELECT edges_used FROM cgmap_trace_info()"; }
info() { q -c "SELECT edges_used || '|' || dropped || '|' || evictions || '|' || evicted_calls || '|' || temp_skipped || '|' || stale_removed FROM cgmap_trace_info()"; }
# edges of the current database: caller > callee = calls, sorted
edges() {
	q -c "SELECT string_agg(coalesce(caller::text, '-') || ' > ' || callee::text || ' = ' || calls, ', '
	                        ORDER BY coalesce(caller::text, '-') COLLATE \"C\", callee::text COLLATE \"C\", site_line)
	        FROM cgmap_trace_edges WHERE callee IS NOT NULL"
}

step "schema"
sql <<'SQL'
CREATE EXTENSION cgmap_trace;
CREATE FUNCTION ab() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION a() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN ab();
END $$;
CREATE FUNCTION late() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION keep() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION old_one() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
DO $$
BEGIN
  FOR i IN 1..150 LOOP
    EXECUTE format('CREATE FUNCTION leaf_%s() RETURNS int LANGUAGE plpgsql AS $f$ BEGIN RETURN %s; END $f$', i, i);
  END LOOP;
END $$;
CREATE FUNCTION fan(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE s int := 0; v int;
BEGIN
  FOR i IN 1..n LOOP
    EXECUTE format('SELECT leaf_%s()', i) INTO STRICT v;
    s := s + v;
  END LOOP;
  RETURN s;
END $$;
CREATE ROLE intruder LOGIN;
CREATE ROLE plain LOGIN;
CREATE ROLE watcher LOGIN IN ROLE pg_read_all_stats;
SQL

step "extension versions: fresh install and upgrades from 1.0"
expect_eq "fresh install is 1.8" "1.8" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace'")"
sql -c "CREATE DATABASE upg" >/dev/null
sql -d upg -c "CREATE EXTENSION cgmap_trace VERSION '1.0'" >/dev/null
expect_eq "1.0 (4 columns of info) still works with this library" "1.0|4|100" \
	"$(q -d upg -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                       (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_info') || '|' ||
	                       edges_max FROM cgmap_trace_info()")"
expect_eq "1.0 -> 1.1 update adds the counters" "1.1|0|0|0|0" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.1'" -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' || evictions || '|' || evicted_calls || '|' || temp_skipped || '|' || stale_removed FROM cgmap_trace_info()" | tail -n 1)"

expect_eq "1.1 -> 1.2 update adds the caller's body version" "1.2|caller_body" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.2'" -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                (SELECT attname FROM pg_attribute WHERE attrelid = 'cgmap_trace_edges'::regclass AND attnum = 13)" | tail -n 1)"
expect_eq "1.2 -> 1.3 -> 1.4 update adds the runs of dynamic sites" "1.4|runs" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.3'" -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.4'" \
	     -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                (SELECT attname FROM pg_attribute WHERE attrelid = 'cgmap_trace_sites'::regclass AND attnum = 6)" | tail -n 1)"
expect_eq "1.4 -> 1.5 update adds the calls of dropped functions" "1.5|0|0" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.5'" \
	     -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                stale_kept || '|' || (SELECT count(*) FROM cgmap_trace_gone) FROM cgmap_trace_info()" | tail -n 1)"
expect_eq "1.5 (20 columns of info) still works with this library" "1.5|20|0" \
	"$(q -d upg -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                       (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_info') || '|' ||
	                       stale_kept FROM cgmap_trace_info()")"
expect_eq "1.5 -> 1.6 update says which library runs" "1.6|1.8" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.6'" \
	     -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                library_version FROM cgmap_trace_info()" | tail -n 1)"
expect_eq "1.6 -> 1.7 update: the view of dropped functions kept readable" "1.7|1.8|true" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.7'" \
	     -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                library_version || '|' || has_table_privilege('public', 'cgmap_trace_gone', 'SELECT')
	           FROM cgmap_trace_info()" | tail -n 1)"
expect_eq "1.7 -> 1.8 update adds the edges of dropped functions" "1.8|0|0" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE TO '1.8'" \
	     -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                gone_edges_lost || '|' || (SELECT count(*) FROM cgmap_trace_gone_edges())
	           FROM cgmap_trace_info()" | tail -n 1)"

step "a role with only CONNECT and TEMP cannot fill the table"
if sql -U intruder -c "CREATE FUNCTION public.x() RETURNS int LANGUAGE sql AS 'SELECT 1'" >/dev/null 2>&1; then
	fail "the intruder role can create functions in public: the test does not model CONNECT + TEMP only"
fi
reset
# 150 temporary functions called from a DO block (150 entry-point edges),
# and 20 temporary functions that call a(): 150 + 20 calls of a temporary
# callee and 20 of a temporary caller, 190 calls not recorded
sql -U intruder <<'SQL' >/dev/null
DO $$
BEGIN
  FOR i IN 1..150 LOOP
    EXECUTE format('CREATE FUNCTION pg_temp.junk_%s() RETURNS int LANGUAGE plpgsql AS $f$ BEGIN RETURN %s; END $f$', i, i);
  END LOOP;
  FOR i IN 1..20 LOOP
    EXECUTE format('CREATE FUNCTION pg_temp.jcall_%s() RETURNS int LANGUAGE plpgsql AS $f$ BEGIN RETURN public.a(); END $f$', i);
  END LOOP;
END $$;
DO $$
DECLARE v int;
BEGIN
  FOR i IN 1..150 LOOP
    EXECUTE format('SELECT pg_temp.junk_%s()', i) INTO v;
  END LOOP;
  FOR i IN 1..20 LOOP
    EXECUTE format('SELECT pg_temp.jcall_%s()', i) INTO v;
  END LOOP;
END $$;
SQL
expect_eq "only a() > ab() recorded, 190 calls skipped (used|dropped|evictions|evicted_calls|temp_skipped|stale_removed)" \
	"1|0|0|0|190|0" "$(info)"
sql -c "SELECT late()" >/dev/null
expect_eq "a normal function's new edge is recorded" "- > late() = 1, a() > ab() = 20" "$(edges)"
pgtest_restart
expect_eq "no junk after a restart" "2" "$(used)"
expect_eq "temp_skipped survives a restart" "190" "$(q -c "SELECT temp_skipped FROM cgmap_trace_info()")"

step "track = all: temporary SQL functions are not recorded either"
sql -c "ALTER SYSTEM SET cgmap_trace.track = 'all'" >/dev/null
pgtest_restart
reset
sql -U intruder -c "CREATE FUNCTION pg_temp.sj() RETURNS int LANGUAGE sql AS 'SELECT public.ab()'" \
	-c "SELECT pg_temp.sj()" -c "SELECT pg_temp.sj()" >/dev/null
sql -c "SELECT a()" >/dev/null
expect_eq "2 calls of sj() and 2 of ab() from it skipped, a()'s edges recorded" "2|0|0|0|4|0" "$(info)"
sql -c "ALTER SYSTEM RESET cgmap_trace.track" >/dev/null
pgtest_restart

step "a full table evicts its least recently seen edges"
reset
sql -c "SELECT old_one()" >/dev/null
sql -c "SELECT keep()" >/dev/null
# old_one(), keep(), fan() and 96 leaves: 99 edges, and the runs of fan()'s
# EXECUTE (cgmap_trace_sites) in the same table
sql -c "SELECT fan(96)" >/dev/null
expect_eq "table full: 99 edges and 1 site" "100|0|0|0|0|0" "$(info)"
sql -c "SELECT keep()" >/dev/null
sql -c "SELECT late()" >/dev/null
expect_eq "one eviction round of 5% (used|dropped|evictions|evicted_calls|...)" "96|0|5|5|0|0" "$(info)"
expect_eq "the least recently seen edge went, the refreshed one stayed, the new one is in" "0|2|1" \
	"$(q -c "SELECT count(*) FILTER (WHERE callee = 'old_one()'::regprocedure) || '|' ||
	              coalesce(sum(calls) FILTER (WHERE callee = 'keep()'::regprocedure), 0) || '|' ||
	              coalesce(sum(calls) FILTER (WHERE callee = 'late()'::regprocedure), 0)
	         FROM cgmap_trace_edges")"
reset
sql -c "SELECT fan(150)" -c "SELECT a()" >/dev/null
# 150 leaves, fan(), the runs of its EXECUTE, a() and ab()
expect_eq "fan(150) then a(): every entry inserted, kept or evicted, none dropped" "154|0|true|true" \
	"$(q -c "SELECT edges_used + evictions || '|' || dropped || '|' || (edges_used <= 100) || '|' || (evicted_calls = evictions) FROM cgmap_trace_info()")"
expect_eq "the newest edges are kept" "- > a() = 1, a() > ab() = 1" \
	"$(q -c "SELECT string_agg(coalesce(caller::text, '-') || ' > ' || callee::text || ' = ' || calls, ', ' ORDER BY caller_oid)
	          FROM cgmap_trace_edges WHERE callee IN ('a()'::regprocedure, 'ab()'::regprocedure)")"
expect_eq "the eviction counters survive a restart" \
	"$(q -c "SELECT evictions || '|' || evicted_calls FROM cgmap_trace_info()")" \
	"$(pgtest_restart; q -c "SELECT evictions || '|' || evicted_calls FROM cgmap_trace_info()")"

step "edges of dropped functions are removed"
reset
sql <<'SQL' >/dev/null
CREATE FUNCTION gone1() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE FUNCTION gone2() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN gone1();
END $$;
SELECT gone2();
SELECT gone1();
SQL
expect_eq "three edges" "3" "$(used)"
sql -c "DROP FUNCTION gone2()" >/dev/null
expect_eq "DROP FUNCTION removes its edges at commit" "1|2" "$(q -c "SELECT edges_used || '|' || stale_removed FROM cgmap_trace_info()")"
sql -c "BEGIN" -c "DROP FUNCTION gone1()" -c "ROLLBACK" >/dev/null
sql -c "DO \$\$ BEGIN DROP FUNCTION gone1(); RAISE EXCEPTION 'undo'; EXCEPTION WHEN others THEN NULL; END \$\$" >/dev/null
expect_eq "a rolled-back drop (transaction, subtransaction) keeps them" "1" "$(used)"
sql -c "BEGIN" -c "CREATE FUNCTION ghost() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" \
	-c "SELECT ghost()" -c "ROLLBACK" >/dev/null
expect_eq "a function whose creation rolled back after a call left an edge" "2" "$(used)"
expect_eq "reading lists no edge of a function that does not exist" "0" \
	"$(q -c "SELECT count(*) FROM cgmap_trace_edges() e WHERE e.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND NOT EXISTS (SELECT FROM pg_proc p WHERE p.oid = e.callee_oid)")"
expect_eq "... and removes it from the table" "1|3" "$(q -c "SELECT edges_used || '|' || stale_removed FROM cgmap_trace_info()")"

# a function created by a transaction still in progress is not removed
sql -c "BEGIN" \
	-c "CREATE FUNCTION fresh() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" \
	-c "SELECT fresh()" -c "SELECT pg_sleep(1.2)" -c "SELECT ab()" -c "SELECT pg_sleep(6)" -c "COMMIT" >/dev/null &
long=$!
sleep 3.5
q -c "SELECT count(*) FROM cgmap_trace_edges" >/dev/null
wait "$long"
expect_eq "edges of a function created by an open transaction survive a read" "1" \
	"$(q -c "SELECT calls FROM cgmap_trace_edges WHERE callee = 'fresh()'::regprocedure")"

sql -c "CREATE DATABASE dropme" >/dev/null
sql -d dropme -c "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" -c "SELECT f()" >/dev/null
before=$(used)
sql -c "DROP DATABASE dropme" >/dev/null
expect_eq "DROP DATABASE removes its edges" "$((before - 1))" "$(used)"
pgtest_restart
expect_eq "after a restart, the table holds only live edges" "$(q -c "SELECT count(*) FROM cgmap_trace_edges()")" "$(used)"

step "a role sees only the edges of databases it may connect to"
sql -c "CREATE DATABASE secretdb" -c "REVOKE CONNECT ON DATABASE secretdb FROM PUBLIC" -c "CREATE DATABASE opendb" >/dev/null
for db in secretdb opendb; do
	sql -d "$db" -c "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" -c "SELECT f()" >/dev/null
done
count_db() {
	q "$@" -c "SELECT count(*) FROM cgmap_trace_edges() WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db')"
}
db=secretdb; expect_eq "superuser sees secretdb" 1 "$(count_db)"
db=secretdb; expect_eq "pg_read_all_stats member sees secretdb" 1 "$(count_db -U watcher)"
db=secretdb; expect_eq "a role without CONNECT does not see secretdb" 0 "$(count_db -U plain)"
db=secretdb; expect_eq "... not through the view either" 0 \
	"$(q -U plain -c "SELECT count(*) FROM cgmap_trace_edges WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'secretdb')")"
db=opendb; expect_eq "a role with CONNECT sees opendb" 1 "$(count_db -U plain)"
expect_eq "and its own database" "- > fresh() = 1" "$(q -U plain -c "SELECT string_agg(coalesce(caller::text, '-') || ' > ' || callee::text || ' = ' || calls, ', ') FROM cgmap_trace_edges WHERE callee = 'fresh()'::regprocedure")"

step "cgmap_trace.max_edges is capped"
expect_eq "beyond the cap refused" \
	'ERROR:  1000001 is outside the valid range for parameter "cgmap_trace.max_edges" (10 .. 1000000)' \
	"$(q -c "ALTER SYSTEM SET cgmap_trace.max_edges = 1000001")"
expect_eq "the cap itself accepted" "" "$(q -c "ALTER SYSTEM SET cgmap_trace.max_edges = 1000000" -c "ALTER SYSTEM RESET cgmap_trace.max_edges")"
pgtest_as_owner sh -c "echo 'cgmap_trace.max_edges = 1073741823' >> '$PGTEST_DIR/data/postgresql.conf'"
if pgtest_restart >/dev/null 2>&1; then
	expect_eq "a configuration file beyond the cap: the default is used" "10000" "$(q -c "SELECT edges_max FROM cgmap_trace_info()")"
	grep -q 'WARNING:  1073741823 is outside the valid range for parameter "cgmap_trace.max_edges" (10 .. 1000000)' "$PGTEST_DIR/server.log" ||
		fail "the refused max_edges is not reported in the server log"
else
	fail "the server did not start with cgmap_trace.max_edges = 1073741823 in its configuration"
fi

if grep -E "PANIC|TRAP|server process .* was terminated" "$PGTEST_DIR/server.log" >&2; then
	fail "server log shows a crash"
fi
[ "$failures" = 0 ] || pgtest_fail "$failures check(s) failed"
echo "PASS: cgmap_trace hardening"
