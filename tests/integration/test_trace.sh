#!/usr/bin/env bash
# Integration test of the cgmap_trace extension against a real PostgreSQL 15.
#
# Builds the extension into a temporary folder (build.sh), installs it into
# a private copy of the PostgreSQL installation tree (tests/lib/pgext.sh),
# starts a throwaway cluster with shared_preload_libraries = 'cgmap_trace',
# runs a scripted workload and asserts the EXACT edges and call counts.
#
# Exit: 0 pass, 1 fail, 77 skip.
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
command -v pgbench >/dev/null 2>&1 || skip "pgbench not found (install postgresql-client-15)"
command -v make >/dev/null 2>&1 || skip "make not found"

pkglibdir=$(pg_config --pkglibdir)

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

pgtest_start "shared_preload_libraries = 'cgmap_trace'"
trap 'pgtest_stop; rm -rf "$work"' EXIT

# Everything a client does in one session.
sql() { pgtest_psql "$@"; }

# The edges of the current database, one per line:
#   caller > callee @line [dyn] = calls      (caller '-' = entry point)
edges() {
	sql -c "SELECT coalesce(caller::text, '-') || ' > ' || callee::text
	               || ' @' || site_line
	               || CASE WHEN dynamic THEN ' dyn' ELSE '' END
	               || ' = ' || calls
	          FROM cgmap_trace_edges WHERE callee IS NOT NULL" | LC_ALL=C sort
}

# expect_edges WHAT <<EOF ... EOF: the edge list must be exactly that.
expect_edges() {
	local what=$1 exp act
	exp=$(mktemp) act=$(mktemp)
	LC_ALL=C sort >"$exp"
	edges >"$act"
	if ! diff -u "$exp" "$act" >&2; then
		rm -f "$exp" "$act"
		pgtest_fail "$what: edges differ (- expected, + actual)"
	fi
	rm -f "$exp" "$act"
	echo "ok: $what"
}

expect_eq() {
	local what=$1 exp=$2 act=$3
	[ "$exp" = "$act" ] || pgtest_fail "$what: expected '$exp', got '$act'"
	echo "ok: $what"
}

reset() { sql -c "SELECT cgmap_trace_reset()" >/dev/null; }

step "schema"
sql <<'SQL'
CREATE EXTENSION cgmap_trace;

-- nested calls
CREATE FUNCTION ab() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
END $$;
CREATE FUNCTION aca() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 2;
END $$;
CREATE FUNCTION acb() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 3;
END $$;
CREATE FUNCTION ac() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aca();
  RETURN acb();
END $$;
CREATE FUNCTION a() RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  r := ab();
  r := r + ac();
  FOR i IN 1..3 LOOP
    PERFORM ab();
  END LOOP;
  RETURN r;
END $$;

-- dynamic SQL with computed names
CREATE FUNCTION tgt_1() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
END $$;
CREATE FUNCTION tgt_2() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 2;
END $$;
CREATE FUNCTION dyn(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int; rec record;
BEGIN
  EXECUTE format('SELECT %I()', 'tgt_' || n) INTO r;
  FOR rec IN EXECUTE 'SELECT tgt_' || n || '() AS v' LOOP
    r := r + rec.v;
  END LOOP;
  RETURN r;
END $$;
CREATE FUNCTION dynq(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'SELECT tgt_' || n || '()';
  RETURN QUERY SELECT tgt_1();
END $$;
-- cursors: the query runs at FETCH; the site is where the query text is
CREATE FUNCTION dyncur(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE c refcursor; v int; s int := 0;
BEGIN
  OPEN c FOR EXECUTE 'SELECT tgt_' || n || '() FROM generate_series(1, 3)';
  LOOP
    FETCH c INTO v;
    EXIT WHEN NOT FOUND;
    s := s + v;
  END LOOP;
  CLOSE c;
  OPEN c FOR SELECT tgt_1() FROM generate_series(1, 2);
  MOVE FORWARD ALL IN c;
  CLOSE c;
  RETURN s;
END $$;
CREATE FUNCTION boundcur() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  c CURSOR FOR SELECT tgt_2() AS v FROM generate_series(1, 2);
  v int; s int := 0;
BEGIN
  OPEN c;
  FETCH c INTO v;
  FETCH c INTO v;
  CLOSE c;
  FOR r IN c LOOP
    s := s + r.v;
  END LOOP;
  RETURN s;
END $$;
-- a FOR over a query fetches rows in batches: calls made by the query after
-- the loop body ran belong to the FOR line, not to the body's last statement
CREATE FUNCTION forq() RETURNS int LANGUAGE plpgsql AS $$
DECLARE rec record;
BEGIN
  FOR rec IN SELECT tgt_1() + i AS v FROM generate_series(1, 25) AS i LOOP
    PERFORM ab();
  END LOOP;
  RETURN 0;
END $$;

-- triggers fired by DML inside a function and by a client statement
CREATE TABLE t (x int);
CREATE FUNCTION trg_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ab();
  RETURN NEW;
END $$;
CREATE FUNCTION trg_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END $$;
CREATE TRIGGER t_row BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trg_row();
CREATE TRIGGER t_stmt AFTER INSERT ON t FOR EACH STATEMENT EXECUTE FUNCTION trg_stmt();
CREATE FUNCTION ins(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO t SELECT generate_series(1, n);
  RETURN n;
END $$;

-- errors: caught, raised again inside a handler, uncaught
CREATE FUNCTION boom() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'boom';
END $$;
CREATE FUNCTION mid() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM boom();
  RETURN 0;
END $$;
CREATE FUNCTION after() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
END $$;
CREATE FUNCTION catcher() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM boom();
  EXCEPTION WHEN others THEN
    BEGIN
      PERFORM mid();
    EXCEPTION WHEN others THEN
      PERFORM after();
    END;
  END;
  FOR i IN 1..2 LOOP
    BEGIN
      PERFORM mid();
    EXCEPTION WHEN others THEN
    END;
  END LOOP;
  RETURN after();
END $$;
CREATE FUNCTION outer_catcher() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM catcher();
    PERFORM boom();
  EXCEPTION WHEN others THEN
    RETURN after();
  END;
END $$;

-- recursion
CREATE FUNCTION fact(n int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  IF n <= 1 THEN RETURN 1; END IF;
  RETURN n * fact(n - 1);
END $$;

-- procedures that COMMIT and ROLLBACK inside a loop
CREATE TABLE log (i int);
CREATE PROCEDURE loop_tx(n int) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO log VALUES (ab());
    IF i % 2 = 0 THEN
      COMMIT;
    ELSE
      ROLLBACK;
    END IF;
    PERFORM aca();
  END LOOP;
END $$;
CREATE PROCEDURE outer_proc() LANGUAGE plpgsql AS $$
BEGIN
  CALL loop_tx(2);
  PERFORM acb();
  COMMIT;
  PERFORM acb();
END $$;
SQL

step "nested calls"
reset
sql -c "SELECT a()" -c "SELECT a()" >/dev/null
expect_edges "nested calls" <<'EOF'
- > a() @0 = 2
a() > ab() @4 = 2
a() > ac() @5 = 2
a() > ab() @7 = 6
ac() > aca() @3 = 2
ac() > acb() @4 = 2
EOF

step "dynamic EXECUTE with computed names"
reset
sql -c "SELECT dyn(1)" -c "SELECT dyn(2)" -c "SELECT dyn(2)" -c "SELECT count(*) FROM dynq(2)" >/dev/null
expect_edges "EXECUTE, FOR IN EXECUTE, RETURN QUERY EXECUTE" <<'EOF'
- > dyn(integer) @0 = 3
- > dynq(integer) @0 = 1
dyn(integer) > tgt_1() @4 dyn = 1
dyn(integer) > tgt_1() @5 dyn = 1
dyn(integer) > tgt_2() @4 dyn = 2
dyn(integer) > tgt_2() @5 dyn = 2
dynq(integer) > tgt_2() @3 dyn = 1
dynq(integer) > tgt_1() @4 = 1
EOF

step "cursors: calls at FETCH belong to the OPEN (or the bound cursor's DECLARE)"
reset
sql -c "SELECT dyncur(2)" -c "SELECT boundcur()" >/dev/null
expect_edges "cursors" <<'EOF'
- > boundcur() @0 = 1
- > dyncur(integer) @0 = 1
boundcur() > tgt_2() @3 = 4
dyncur(integer) > tgt_1() @11 = 2
dyncur(integer) > tgt_2() @4 dyn = 3
EOF

step "FOR over a query: calls attributed to the FOR line"
reset
sql -c "SELECT forq()" >/dev/null
expect_edges "FOR query" <<'EOF'
- > forq() @0 = 1
forq() > tgt_1() @4 = 25
forq() > ab() @5 = 25
EOF

step "triggers"
reset
sql -c "SELECT ins(3)" -c "INSERT INTO t VALUES (0)" >/dev/null
expect_edges "triggers" <<'EOF'
- > ins(integer) @0 = 1
- > trg_row() @0 = 1
- > trg_stmt() @0 = 1
ins(integer) > trg_row() @3 = 3
ins(integer) > trg_stmt() @3 = 1
trg_row() > ab() @3 = 4
EOF

step "event trigger"
sql <<'SQL'
CREATE FUNCTION evt() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ab();
END $$;
CREATE EVENT TRIGGER cgt_evt ON ddl_command_end EXECUTE FUNCTION evt();
SQL
reset
sql -c "CREATE TABLE evt_probe (i int)" >/dev/null
sql -c "DROP EVENT TRIGGER cgt_evt" >/dev/null
expect_edges "event trigger" <<'EOF'
- > evt() @0 = 1
evt() > ab() @3 = 1
EOF

step "errors: caught, raised inside a handler, uncaught"
reset
sql -c "SELECT catcher()" -c "SELECT outer_catcher()" >/dev/null
# one session: an uncaught error aborts the statement, the next statement
# of the same session must start from an empty stack
"$PGTEST_BIN/psql" -X -q -At -v ON_ERROR_STOP=0 >/dev/null 2>&1 <<'SQL'
SELECT mid();
SELECT after();
BEGIN;
SELECT 1;
SELECT mid();
ROLLBACK;
SELECT after();
SQL
expect_edges "errors" <<'EOF'
- > after() @0 = 2
- > catcher() @0 = 1
- > mid() @0 = 2
- > outer_catcher() @0 = 1
catcher() > after() @18 = 2
catcher() > after() @9 = 2
catcher() > boom() @4 = 2
catcher() > mid() @14 = 4
catcher() > mid() @7 = 2
mid() > boom() @3 = 8
outer_catcher() > after() @7 = 1
outer_catcher() > boom() @5 = 1
outer_catcher() > catcher() @4 = 1
EOF

step "recursion"
reset
expect_eq "fact(6)" 720 "$(sql -c "SELECT fact(6)")"
expect_edges "recursion" <<'EOF'
- > fact(integer) @0 = 1
fact(integer) > fact(integer) @4 = 5
EOF

step "procedures with COMMIT/ROLLBACK in a loop"
reset
sql -c "CALL loop_tx(6)" -c "CALL outer_proc()" >/dev/null
expect_edges "procedures" <<'EOF'
- > loop_tx(integer) @0 = 1
- > outer_proc() @0 = 1
loop_tx(integer) > ab() @4 = 8
loop_tx(integer) > aca() @10 = 8
outer_proc() > acb() @4 = 1
outer_proc() > acb() @6 = 1
outer_proc() > loop_tx(integer) @3 = 1
EOF
expect_eq "rows kept by the COMMITs" 4 "$(sql -c "SELECT count(*) FROM log")"

step "self time = inclusive time minus the callees' inclusive time"
reset
sql -c "SELECT a()" -c "SELECT catcher()" -c "SELECT fact(8)" -c "CALL loop_tx(4)" -c "SELECT ins(5)" >/dev/null
bad=$(sql <<'SQL'
WITH f AS (SELECT DISTINCT callee_oid AS oid FROM cgmap_trace_edges WHERE callee IS NOT NULL),
     inb AS (SELECT callee_oid AS oid, sum(total_ms - self_ms) AS children
               FROM cgmap_trace_edges GROUP BY 1),
     outb AS (SELECT caller_oid AS oid, sum(total_ms) AS callees
                FROM cgmap_trace_edges GROUP BY 1)
SELECT f.oid::regprocedure || ': ' || coalesce(inb.children, 0) || ' vs ' || coalesce(outb.callees, 0)
  FROM f LEFT JOIN inb USING (oid) LEFT JOIN outb USING (oid)
 WHERE abs(coalesce(inb.children, 0) - coalesce(outb.callees, 0)) > 1e-6 + 1e-9 * coalesce(outb.callees, 0)
UNION ALL
SELECT 'negative or too large self time: ' || callee::text
  FROM cgmap_trace_edges WHERE self_ms < 0 OR self_ms > total_ms OR total_ms <= 0
UNION ALL
SELECT 'bad timestamps: ' || callee::text
  FROM cgmap_trace_edges WHERE first_seen > last_seen OR last_seen > now() + interval '1 minute'
SQL
)
[ -z "$bad" ] || pgtest_fail "time accounting: $bad"
echo "ok: self/inclusive time identity"

step "times are wall-clock milliseconds"
sql <<'SQL'
CREATE FUNCTION sleeper() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_sleep(0.2);
END $$;
CREATE FUNCTION sleepy() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sleeper();
END $$;
SQL
reset
sql -c "SELECT sleepy()" >/dev/null
expect_eq "sleeper() inclusive time in [195, 3000] ms, self = inclusive" "true|true" \
	"$(sql -c "SELECT (total_ms BETWEEN 195 AND 3000) || '|' || (abs(total_ms - self_ms) < 1e-6) FROM cgmap_trace_edges WHERE callee = 'sleeper()'::regprocedure")"
expect_eq "sleepy() self time small, inclusive time covers the callee" "true|true" \
	"$(sql -c "SELECT (self_ms < 100) || '|' || (total_ms >= 195) FROM cgmap_trace_edges WHERE callee = 'sleepy()'::regprocedure")"

step "stack overflow caught by a handler, statement timeout"
sql <<'SQL'
CREATE FUNCTION inf(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN inf(n + 1);
END $$;
CREATE FUNCTION guard() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM inf(1);
  EXCEPTION WHEN others THEN
    RETURN after();
  END;
END $$;
CREATE FUNCTION slow_loop() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..5 LOOP
    PERFORM sleeper();
  END LOOP;
END $$;
SQL
reset
expect_eq "guard() survives a stack overflow" 1 "$(sql -c "SELECT guard()")"
"$PGTEST_BIN/psql" -X -q -At -v ON_ERROR_STOP=0 >/dev/null 2>&1 <<'SQL'
SET statement_timeout = '500ms';
SELECT slow_loop();
RESET statement_timeout;
SELECT after();
SQL
expect_eq "edges after stack overflow and timeout" "-|after()|1 -|guard()|1 -|slow_loop()|1 guard()|after()|1 guard()|inf(integer)|1" \
	"$(sql -c "SELECT string_agg(coalesce(caller::text, '-') || '|' || callee::text || '|' || calls, ' '
	                               ORDER BY coalesce(caller::text, '-') COLLATE \"C\", callee::text COLLATE \"C\")
	             FROM (SELECT * FROM cgmap_trace_edges WHERE callee IS NOT NULL
	                      AND callee NOT IN ('inf(integer)'::regprocedure, 'sleeper()'::regprocedure)
	                   UNION ALL
	                   SELECT * FROM cgmap_trace_edges WHERE caller = 'guard()'::regprocedure
	                      AND callee = 'inf(integer)'::regprocedure) e")"
expect_eq "deep recursion counted" "t" \
	"$(sql -c "SELECT calls > 100 FROM cgmap_trace_edges WHERE caller = 'inf(integer)'::regprocedure AND callee = 'inf(integer)'::regprocedure")"
expect_eq "timeout: calls before and at the cancel" "t" \
	"$(sql -c "SELECT calls BETWEEN 2 AND 4 FROM cgmap_trace_edges WHERE caller = 'slow_loop()'::regprocedure AND callee = 'sleeper()'::regprocedure")"

step "disabled per session, only a superuser may change it"
reset
sql -c "SET cgmap_trace.enabled = off" -c "SELECT a()" >/dev/null
expect_edges "disabled session" </dev/null
sql -c "CREATE ROLE plain LOGIN" >/dev/null
if sql -U plain -c "SET cgmap_trace.enabled = off" >/dev/null 2>&1; then
	pgtest_fail "a plain user could change cgmap_trace.enabled"
fi
echo "ok: plain user cannot change cgmap_trace.enabled"
sql -U plain -c "SELECT a()" >/dev/null
expect_edges "plain user is traced" <<'EOF'
- > a() @0 = 1
a() > ab() @4 = 1
a() > ac() @5 = 1
a() > ab() @7 = 3
ac() > aca() @3 = 1
ac() > acb() @4 = 1
EOF
if sql -U plain -c "SELECT cgmap_trace_reset()" >/dev/null 2>&1; then
	pgtest_fail "a plain user could reset"
fi
echo "ok: reset is superuser-only"
expect_eq "plain user reads the view" 6 "$(sql -U plain -c "SELECT count(*) FROM cgmap_trace_edges")"

step "concurrent sessions count exactly"
reset
bench=$(mktemp "${TMPDIR:-/tmp}/cgmap-trace-bench.XXXXXX")
cat >"$bench" <<'EOF'
SELECT a();
SELECT catcher();
EOF
chmod 644 "$bench"
pgbench -n -c 4 -j 2 -t 150 -f "$bench" >/dev/null 2>&1 || { rm -f "$bench"; pgtest_fail "pgbench failed"; }
rm -f "$bench"
expect_edges "pgbench -c 4 -t 150" <<'EOF'
- > a() @0 = 600
- > catcher() @0 = 600
a() > ab() @4 = 600
a() > ac() @5 = 600
a() > ab() @7 = 1800
ac() > aca() @3 = 600
ac() > acb() @4 = 600
catcher() > after() @18 = 600
catcher() > after() @9 = 600
catcher() > boom() @4 = 600
catcher() > mid() @14 = 1200
catcher() > mid() @7 = 600
mid() > boom() @3 = 1800
EOF
expect_eq "nothing dropped" 0 "$(sql -c "SELECT dropped FROM cgmap_trace_info()")"

step "a long transaction publishes its calls after a second"
reset
# A call ending in the next timeline bucket (cgmap_trace.bucket_seconds,
# 60: minutes of the clock) flushes the batch before it is recorded, and
# then waits for a later call: start well inside a minute.
while [ "$(date +%S | sed 's/^0//')" -ge 45 ]; do sleep 1; done
sql -c "BEGIN" -c "SELECT a()" -c "SELECT pg_sleep(1.2)" -c "SELECT ab()" -c "SELECT pg_sleep(8)" -c "COMMIT" >/dev/null &
long=$!
sleep 4
expect_eq "calls of an open transaction visible" "1|5" \
	"$(sql -c "SELECT count(*) FILTER (WHERE caller_oid = 0 AND callee = 'a()'::regprocedure) || '|' || sum(calls) FILTER (WHERE callee = 'ab()'::regprocedure) FROM cgmap_trace_edges")"
wait "$long"

step "edges of another database are kept apart"
reset
sql -c "CREATE DATABASE otherdb" >/dev/null
sql -d otherdb <<'SQL' >/dev/null
CREATE FUNCTION only_here() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
END $$;
SELECT only_here();
SQL
other_oid=$(sql -d otherdb -c "SELECT 'only_here()'::regprocedure::oid")
expect_eq "other database's edge listed without names" "1|$other_oid|true" \
	"$(sql -c "SELECT count(*) || '|' || max(callee_oid) || '|' || bool_and(callee IS NULL AND caller IS NULL) FROM cgmap_trace_edges WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'otherdb')")"
expect_edges "current database unaffected" </dev/null
expect_eq "named in its own database" "only_here()" \
	"$(sql -d otherdb -c "CREATE EXTENSION cgmap_trace" -c "SELECT callee FROM cgmap_trace_edges WHERE callee IS NOT NULL")"

step "dynamic statements that ran, with or without a call (1.4)"
reset
sql <<'SQL' >/dev/null
CREATE FUNCTION dyn_sites(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE v int := 0; r record;
BEGIN
  EXECUTE 'CREATE TEMP TABLE IF NOT EXISTS dyn_t (x int)';
  IF n > 1 THEN
    EXECUTE 'SELECT ab()' INTO v;
  END IF;
  IF n > 5 THEN
    EXECUTE 'SELECT 2' INTO v;
  END IF;
  IF n < 0 THEN
    EXECUTE 'SELECT 1 / 0' INTO v;
  END IF;
  FOR r IN EXECUTE 'SELECT g FROM generate_series(1, 2) g' LOOP
    v := v + r.g;
  END LOOP;
  RETURN v;
END $$;
SELECT dyn_sites(1);
SELECT dyn_sites(2);
SELECT dyn_sites(3);
SQL
sql -c "SELECT dyn_sites(-1)" >/dev/null 2>&1 && pgtest_fail "dyn_sites(-1) did not fail"
# The DDL at line 4 and the FOR ... IN EXECUTE at line 14 ran and called no
# function, line 6 called ab() twice, line 9 never ran, and line 12 raised
# its error (not counted; the call stopped before line 14).
expect_eq "runs per dynamic statement line" "4=4 6=2 14=3" \
	"$(sql -c "SELECT string_agg(site_line || '=' || runs, ' ' ORDER BY site_line) FROM cgmap_trace_sites WHERE fn = 'dyn_sites(integer)'::regprocedure")"
expect_eq "the body version is the edges'" "1" \
	"$(sql -c "SELECT count(DISTINCT s.caller_body) FROM cgmap_trace_sites s JOIN cgmap_trace_edges e ON e.caller_oid = s.fn_oid AND e.caller_body = s.caller_body")"
expect_eq "site runs are no edges" "0" "$(sql -c "SELECT count(*) FROM cgmap_trace_edges WHERE callee_oid = 0")"
expect_eq "a plain user reads the sites" "3" "$(sql -U plain -c "SELECT count(*) FROM cgmap_trace_sites WHERE fn IS NOT NULL")"
sql -c "DROP FUNCTION dyn_sites(integer)" >/dev/null
expect_eq "the runs of a dropped function go with it" "0" "$(sql -c "SELECT count(*) FROM cgmap_trace_sites()")"

step "reset"
reset
expect_eq "no edges after reset" 0 "$(sql -c "SELECT count(*) FROM cgmap_trace_edges()")"
expect_eq "info after reset" "0|10000|0" "$(sql -c "SELECT edges_used || '|' || edges_max || '|' || dropped FROM cgmap_trace_info()")"

step "persistence across a clean restart"
sql -c "SELECT a()" -c "SELECT fact(3)" >/dev/null
before=$(edges)
since=$(sql -c "SELECT since FROM cgmap_trace_info()")
pgtest_restart
expect_eq "edges survive a restart" "$before" "$(edges)"
expect_eq "since survives a restart" "$since" "$(sql -c "SELECT since FROM cgmap_trace_info()")"
[ ! -e "$PGTEST_DIR/data/pg_stat/cgmap_trace.stat" ] || pgtest_fail "stats file left behind after loading"
echo "ok: stats file consumed at start"

step "save = off: nothing kept; a damaged file is ignored"
sql -c "ALTER SYSTEM SET cgmap_trace.save = off" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
pgtest_restart
expect_eq "no edges after a restart with save = off" 0 "$(sql -c "SELECT count(*) FROM cgmap_trace_edges()")"
sql -c "ALTER SYSTEM RESET cgmap_trace.save" -c "SELECT pg_reload_conf()" >/dev/null
pgtest_as_owner "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -m fast -w stop >/dev/null
pgtest_as_owner sh -c "printf 'not a cgmap_trace file' > '$PGTEST_DIR/data/pg_stat/cgmap_trace.stat'"
pgtest_server_start
expect_eq "no edges from a damaged file" 0 "$(sql -c "SELECT count(*) FROM cgmap_trace_edges()")"
grep -q 'cgmap_trace: ignoring invalid file' "$PGTEST_DIR/server.log" || pgtest_fail "damaged file not reported in the log"
echo "ok: damaged file reported and ignored"

step "track = all: SQL-language functions"
sql -c "ALTER SYSTEM SET cgmap_trace.track = 'all'" >/dev/null
pgtest_restart
sql <<'SQL'
CREATE FUNCTION sq_leaf() RETURNS int LANGUAGE sql AS $$ SELECT 7 $$;
CREATE FUNCTION sq_mid() RETURNS int LANGUAGE sql AS $$ SELECT ab() + sq_leaf() $$;
CREATE FUNCTION pl_top() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN sq_mid();
END $$;
CREATE FUNCTION sq_boom() RETURNS int LANGUAGE sql AS $$ SELECT boom() $$;
CREATE FUNCTION catcher_sql() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM sq_boom();
  EXCEPTION WHEN others THEN
    PERFORM after();
  END;
  RETURN sq_leaf();
END $$;
-- fmgr_security_definer already wraps this one: it must count once
CREATE FUNCTION sec_def() RETURNS int LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  RETURN ab();
END $$;
CREATE FUNCTION my_abs(int) RETURNS int LANGUAGE internal IMMUTABLE STRICT AS 'int4abs';
CREATE FUNCTION pl_c(x int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN my_abs(x) + sec_def();
END $$;
-- value-per-call set-returning function: invoked once per row + the end
-- call, counted once per evaluation (as pg_stat_user_functions counts it)
CREATE FUNCTION sq_srf(n int) RETURNS SETOF int LANGUAGE sql AS $$ SELECT generate_series(1, n) $$;
SQL
reset
sql -c "SELECT pl_top()" -c "SELECT sum(sq_leaf()) FROM generate_series(1, 5)" -c "SELECT catcher_sql()" -c "SELECT a()" >/dev/null
"$PGTEST_BIN/psql" -X -q -At -v ON_ERROR_STOP=0 -c "SELECT sq_boom()" >/dev/null 2>&1 || true
sql -c "SELECT sq_leaf()" -c "SELECT pl_c(-3)" -c "SELECT sq_srf(3)" >/dev/null
expect_edges "track=all" <<'EOF'
- > pl_c(integer) @0 = 1
- > sq_srf(integer) @0 = 1
pl_c(integer) > my_abs(integer) @3 = 1
pl_c(integer) > sec_def() @3 = 1
sec_def() > ab() @3 = 1
- > a() @0 = 1
- > catcher_sql() @0 = 1
- > pl_top() @0 = 1
- > sq_boom() @0 = 1
- > sq_leaf() @0 = 6
a() > ab() @4 = 1
a() > ac() @5 = 1
a() > ab() @7 = 3
ac() > aca() @3 = 1
ac() > acb() @4 = 1
catcher_sql() > after() @6 = 1
catcher_sql() > sq_boom() @4 = 1
catcher_sql() > sq_leaf() @8 = 1
pl_top() > sq_mid() @3 = 1
sq_boom() > boom() @0 = 2
sq_mid() > ab() @0 = 1
sq_mid() > sq_leaf() @0 = 1
EOF

step "table full: least recently seen edges evicted, no error"
sql -c "ALTER SYSTEM SET cgmap_trace.max_edges = 10" -c "ALTER SYSTEM SET cgmap_trace.track = 'plpgsql'" >/dev/null
pgtest_restart
expect_eq "max_edges" 10 "$(sql -c "SELECT edges_max FROM cgmap_trace_info()")"
reset
sql <<'SQL'
DO $$
BEGIN
  FOR i IN 1..15 LOOP
    EXECUTE format('CREATE FUNCTION leaf_%s() RETURNS int LANGUAGE plpgsql AS $f$ BEGIN RETURN %s; END $f$', i, i);
  END LOOP;
END $$;
CREATE FUNCTION fan() RETURNS int LANGUAGE plpgsql AS $$
DECLARE s int := 0; v int;
BEGIN
  FOR i IN 1..15 LOOP
    EXECUTE format('SELECT leaf_%s()', i) INTO STRICT v;
    s := s + v;
  END LOOP;
  RETURN s;
END $$;
SQL
expect_eq "fan() works with a full table" 120 "$(sql -c "SELECT fan()")"
expect_eq "fan() again" 120 "$(sql -c "SELECT fan()")"
# 16 edges (fan() and its 15 leaves) of 2 calls each into 10 places: every
# call is either on a kept edge or counted with the edge that was evicted
expect_eq "info when full (used|max|dropped|evictions >= 6)" "10|10|0|true" \
	"$(sql -c "SELECT edges_used || '|' || edges_max || '|' || dropped || '|' || (evictions >= 6) FROM cgmap_trace_info()")"
expect_eq "kept and evicted calls add up exactly" "32" \
	"$(sql -c "SELECT sum(calls) + (SELECT evicted_calls FROM cgmap_trace_info()) FROM cgmap_trace_edges WHERE callee IS NOT NULL")"

# ---- chaining with another PL/pgSQL plugin ----
ensure_pkg() {
	local pkg=$1 lib=$2
	[ -e "$pkglibdir/$lib.so" ] && { pgext_link_missing; return 0; }
	[ "$(id -u)" = 0 ] || return 1
	command -v apt-get >/dev/null 2>&1 || return 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >/dev/null 2>&1; } ||
		return 1
	[ -e "$pkglibdir/$lib.so" ] || return 1
	pgext_link_missing
}

chained=0
if ensure_pkg postgresql-15-plprofiler plprofiler; then
	step "chained after plprofiler"
	sql -c "ALTER SYSTEM SET shared_preload_libraries = 'plprofiler', 'cgmap_trace'" \
		-c "ALTER SYSTEM RESET cgmap_trace.max_edges" >/dev/null
	pgtest_restart
	sql -c "CREATE EXTENSION plprofiler" >/dev/null
	reset
	sql <<'SQL' >/dev/null
SELECT pl_profiler_set_enabled_local(true);
SELECT a();
SELECT a();
SELECT catcher();
SELECT a();
SELECT pl_profiler_set_enabled_local(false);
CREATE TABLE prof AS SELECT * FROM pl_profiler_linestats_local();
SQL
	expect_eq "plprofiler still counts (a() line 4)" 3 \
		"$(sql -c "SELECT exec_count FROM prof WHERE func_oid = 'a()'::regprocedure AND line_number = 4")"
	expect_edges "edges with plprofiler chained" <<'EOF'
- > a() @0 = 3
- > catcher() @0 = 1
a() > ab() @4 = 3
a() > ac() @5 = 3
a() > ab() @7 = 9
ac() > aca() @3 = 3
ac() > acb() @4 = 3
catcher() > after() @18 = 1
catcher() > after() @9 = 1
catcher() > boom() @4 = 1
catcher() > mid() @14 = 2
catcher() > mid() @7 = 1
mid() > boom() @3 = 3
EOF
	chained=1
else
	echo "SKIP part: postgresql-15-plprofiler not installable here"
fi

if ensure_pkg postgresql-15-plpgsql-check plpgsql_check; then
	step "chained after plpgsql_check"
	sql -c "ALTER SYSTEM SET shared_preload_libraries = 'plpgsql_check', 'cgmap_trace'" \
		-c "ALTER SYSTEM RESET cgmap_trace.max_edges" >/dev/null
	pgtest_restart
	sql -c "CREATE EXTENSION plpgsql_check" >/dev/null
	reset
	sql <<'SQL' >/dev/null
SET plpgsql_check.profiler = on;
SELECT plpgsql_profiler_reset_all();
SELECT a();
SELECT a();
SELECT catcher();
SQL
	expect_eq "plpgsql_check profiler still counts (a() line 7)" 6 \
		"$(sql -c "SELECT exec_stmts FROM plpgsql_profiler_function_tb('a()') WHERE lineno = 7")"
	expect_edges "edges with plpgsql_check chained" <<'EOF'
- > a() @0 = 2
- > catcher() @0 = 1
a() > ab() @4 = 2
a() > ac() @5 = 2
a() > ab() @7 = 6
ac() > aca() @3 = 2
ac() > acb() @4 = 2
catcher() > after() @18 = 1
catcher() > after() @9 = 1
catcher() > boom() @4 = 1
catcher() > mid() @14 = 2
catcher() > mid() @7 = 1
mid() > boom() @3 = 3
EOF
	chained=$((chained + 1))

	step "plpgsql_check loaded after cgmap_trace (it chains to us)"
	sql -c "ALTER SYSTEM SET shared_preload_libraries = 'cgmap_trace', 'plpgsql_check'" >/dev/null
	pgtest_restart
	reset
	sql <<'SQL' >/dev/null
SET plpgsql_check.profiler = on;
SELECT plpgsql_profiler_reset_all();
SELECT a();
SELECT catcher();
SELECT catcher();
SQL
	expect_eq "plpgsql_check profiler counts (catcher() line 14)" 4 \
		"$(sql -c "SELECT exec_stmts FROM plpgsql_profiler_function_tb('catcher()') WHERE lineno = 14")"
	expect_edges "edges with plpgsql_check in front" <<'EOF'
- > a() @0 = 1
- > catcher() @0 = 2
a() > ab() @4 = 1
a() > ac() @5 = 1
a() > ab() @7 = 3
ac() > aca() @3 = 1
ac() > acb() @4 = 1
catcher() > after() @18 = 2
catcher() > after() @9 = 2
catcher() > boom() @4 = 2
catcher() > mid() @14 = 4
catcher() > mid() @7 = 2
mid() > boom() @3 = 6
EOF
else
	echo "SKIP part: postgresql-15-plpgsql-check not installable here"
fi

grep -E "PANIC|TRAP|server process .* was terminated" "$PGTEST_DIR/server.log" >&2 &&
	pgtest_fail "server log shows a crash"

echo "PASS: cgmap_trace ($chained chained plugin(s) checked)"
