#!/usr/bin/env bash
# Integration test of what cgmap_trace 1.3 records beside the edges, against
# a real PostgreSQL 15:
#   - call paths: exact frames, lines and counts on fixtures (nested calls,
#     EXECUTE, triggers, errors caught and raised again, recursion cut at
#     the depth cap with its marker frame, procedures that COMMIT), time
#     invariants (exclusive <= inclusive, min <= max, a path's inclusive
#     time covers its children's), exact counts under concurrent pgbench
#     clients, a full table counting its drops;
#   - shapes: the distinct edge sets of top-level calls with their counts,
#     a call with too many edges counted as dropped;
#   - timeline: calls per function and bucket, equal to the edges' calls,
#     buckets aligned to cgmap_trace.bucket_seconds, old buckets leaving
#     the ring;
#   - reset, a clean restart (all of it saved and loaded), DROP FUNCTION,
#     and ALTER EXTENSION UPDATE from 1.2 to 1.3;
#   - cgmap collect carrying them, the snapshot keeping them, and what reads
#     the snapshot: report profile, paths, shapes, timeline and the site's
#     stacks.folded for the known call tree (exclusive <= inclusive, the
#     folded values summing to the total exclusive time), and the notes of
#     a snapshot of older runtime data.
#
# Every check runs even after a failure; the exit code says whether any
# failed.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ext="$root/extension/cgmap_trace"

# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=tests/lib/pgext.sh
. "$root/tests/lib/pgext.sh"

CGMAP=${CGMAP:-$root/build/cgmap}

skip() { echo "SKIP: $*" >&2; exit 77; }
step() { echo "--- $*"; }

command -v pg_config >/dev/null 2>&1 || skip "pg_config not found (install postgresql-server-dev-15)"
command -v pgbench >/dev/null 2>&1 || skip "pgbench not found (install postgresql-client-15)"
command -v make >/dev/null 2>&1 || skip "make not found"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-trace-test.XXXXXX")
chmod 755 "$work"   # the server runs as another user when we are root
trap 'rm -rf "$work"' EXIT
step "build cgmap_trace, install it into a private tree"
if ! "$ext/build.sh" "$work/build" >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	pgtest_fail "build.sh failed"
fi
if grep -i "warning:" "$work/build.log" >&2; then
	pgtest_fail "compiler warnings"
fi
pgext_tree "$work/tree" "$work/build" || skip "could not make a private installation tree (see above)"

# 2-second buckets, 5 of them: the ring spans 10 seconds
pgtest_start "shared_preload_libraries = 'cgmap_trace'" \
	"cgmap_trace.bucket_seconds = 2" "cgmap_trace.buckets = 5"
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
# expect_lines WHAT ACTUAL <<EOF ... EOF: the lines must be exactly those
expect_lines() {
	local what=$1 act=$2 exp
	exp=$(LC_ALL=C sort)
	if [ "$exp" = "$act" ]; then
		echo "ok: $what"
	else
		fail "$what: lines differ (- expected, + actual)"
		diff -u <(echo "$exp") <(echo "$act") >&2 || true
	fi
}
# q SQL...: the result, or the error text (so a failing query fails the check)
q() { sql "$@" 2>&1 || true; }
reset() { sql -c "SELECT cgmap_trace_reset()" >/dev/null; }

# paths of the current database: f() > g()@line > ... = calls, sorted
paths() {
	q -c "SELECT array_to_string(ARRAY(
	               SELECT u.f || CASE WHEN u.n > 1 THEN '@' || u.l ELSE '' END
	                 FROM unnest(frames, lines) WITH ORDINALITY AS u(f, l, n) ORDER BY u.n), ' > ')
	             || ' = ' || calls
	        FROM cgmap_trace_paths WHERE frames IS NOT NULL" | LC_ALL=C sort
}
# shapes of the current database: entry: edge, edge, ... = calls, sorted
shapes() {
	q -c "SELECT entry || ': ' || coalesce((SELECT string_agg(x, ', ' ORDER BY x COLLATE \"C\") FROM unnest(edges) AS x), '(no calls)')
	             || ' = ' || calls
	        FROM cgmap_trace_shapes WHERE entry IS NOT NULL" | LC_ALL=C sort
}

step "schema"
sql <<'SQL'
CREATE EXTENSION cgmap_trace;
CREATE FUNCTION leaf() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 1;
END $$;
CREATE FUNCTION mid() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM leaf();
  RETURN leaf();
END $$;
CREATE FUNCTION top() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mid();
  PERFORM leaf();
  RETURN 0;
END $$;
CREATE FUNCTION branchy(b boolean) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF b THEN
    RETURN leaf();
  ELSE
    RETURN mid();
  END IF;
END $$;
CREATE FUNCTION dyn(name text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  EXECUTE format('SELECT %I()', name) INTO r;
  RETURN r;
END $$;
CREATE FUNCTION thrower() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'boom';
END $$;
CREATE FUNCTION catcher() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM thrower();
  EXCEPTION WHEN others THEN
    PERFORM leaf();
  END;
  RETURN 1;
END $$;
CREATE FUNCTION reraiser() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM thrower();
  RETURN 1;
EXCEPTION WHEN others THEN
  PERFORM leaf();
  RAISE;
END $$;
CREATE FUNCTION rec(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF n <= 1 THEN RETURN 1; END IF;
  RETURN rec(n - 1);
END $$;
CREATE TABLE t (x int);
CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM leaf();
  RETURN NEW;
END $$;
CREATE TRIGGER t_ins BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trg();
CREATE FUNCTION writer() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO t VALUES (1), (2);
END $$;
CREATE PROCEDURE committer() LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..3 LOOP
    PERFORM leaf();
    COMMIT;
  END LOOP;
END $$;
DO $$
BEGIN
  FOR i IN 1..70 LOOP
    EXECUTE format('CREATE FUNCTION w_%s() RETURNS int LANGUAGE plpgsql AS $f$ BEGIN RETURN %s; END $f$', i, i);
  END LOOP;
END $$;
CREATE FUNCTION wide(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE s int := 0; v int;
BEGIN
  FOR i IN 1..n LOOP
    EXECUTE format('SELECT w_%s()', i) INTO v;
    s := s + v;
  END LOOP;
  RETURN s;
END $$;
SQL

step "fresh install is 1.8"
expect_eq "extension version" "1.8" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace'")"

step "nested calls: exact paths"
reset
sql -c "SELECT top()" -c "SELECT top()" >/dev/null
expect_lines "top() twice" "$(paths)" <<'EOF'
top() = 2
top() > mid()@3 = 2
top() > mid()@3 > leaf()@3 = 2
top() > mid()@3 > leaf()@4 = 2
top() > leaf()@4 = 2
EOF
expect_lines "top() twice: one shape" "$(shapes)" <<'EOF'
top(): mid() > leaf() @3, mid() > leaf() @4, top() > leaf() @4, top() > mid() @3 = 2
EOF

step "shapes: branch A three times, branch B once"
reset
sql -c "SELECT branchy(true) FROM generate_series(1, 3)" -c "SELECT branchy(false)" >/dev/null
expect_lines "two shapes of branchy(), 3 and 1" "$(shapes)" <<'EOF'
branchy(boolean): branchy(boolean) > leaf() @4 = 3
branchy(boolean): branchy(boolean) > mid() @6, mid() > leaf() @3, mid() > leaf() @4 = 1
EOF
expect_lines "paths of both branches" "$(paths)" <<'EOF'
branchy(boolean) = 4
branchy(boolean) > leaf()@4 = 3
branchy(boolean) > mid()@6 = 1
branchy(boolean) > mid()@6 > leaf()@3 = 1
branchy(boolean) > mid()@6 > leaf()@4 = 1
EOF
sql -c "SELECT leaf()" >/dev/null
expect_eq "a top-level call that calls nothing has the empty shape" "leaf(): (no calls) = 1" \
	"$(shapes | grep '^leaf()')"

step "EXECUTE: dynamic paths and shapes"
reset
sql -c "SELECT dyn('leaf')" -c "SELECT dyn('mid')" -c "SELECT dyn('mid')" >/dev/null
expect_lines "paths through EXECUTE" "$(paths)" <<'EOF'
dyn(text) = 3
dyn(text) > leaf()@4 = 1
dyn(text) > mid()@4 = 2
dyn(text) > mid()@4 > leaf()@3 = 2
dyn(text) > mid()@4 > leaf()@4 = 2
EOF
expect_lines "dynamic edges in shapes" "$(shapes)" <<'EOF'
dyn(text): dyn(text) > leaf() @4 dyn = 1
dyn(text): dyn(text) > mid() @4 dyn, mid() > leaf() @3, mid() > leaf() @4 = 2
EOF

step "errors caught, and caught then raised again"
reset
sql -c "SELECT catcher()" >/dev/null
sql -c "SELECT reraiser()" >/dev/null 2>&1 && fail "reraiser() did not raise"
expect_lines "paths of erroring calls" "$(paths)" <<'EOF'
catcher() = 1
catcher() > leaf()@6 = 1
catcher() > thrower()@4 = 1
reraiser() = 1
reraiser() > leaf()@6 = 1
reraiser() > thrower()@3 = 1
EOF
expect_lines "shapes of erroring calls" "$(shapes)" <<'EOF'
catcher(): catcher() > leaf() @6, catcher() > thrower() @4 = 1
reraiser(): reraiser() > leaf() @6, reraiser() > thrower() @3 = 1
EOF

step "triggers"
reset
sql -c "SELECT writer()" -c "INSERT INTO t VALUES (3)" >/dev/null
expect_lines "a trigger under its DML's function, and as an entry point" "$(paths)" <<'EOF'
trg() = 1
trg() > leaf()@3 = 1
writer() = 1
writer() > trg()@3 = 2
writer() > trg()@3 > leaf()@3 = 2
EOF

step "procedure that COMMITs"
reset
sql -c "CALL committer()" >/dev/null
expect_lines "calls after each COMMIT keep their path" "$(paths)" <<'EOF'
committer() = 1
committer() > leaf()@4 = 3
EOF
expect_lines "one shape for the procedure" "$(shapes)" <<'EOF'
committer(): committer() > leaf() @4 = 1
EOF

step "recursion: paths cut at 32 frames with a marker"
reset
sql -c "SELECT rec(40)" >/dev/null
expect_eq "33 paths, 40 calls" "33|40" "$(q -c "SELECT count(*) || '|' || sum(calls) FROM cgmap_trace_paths")"
expect_eq "the cut path: 30 frames, the marker, the last; 8 calls (depths 33 to 40)" \
	"32|...|0|rec(integer)|4|8" \
	"$(q -c "SELECT depth || '|' || frames[31] || '|' || lines[31] || '|' || frames[32] || '|' || lines[32] || '|' || calls
	           FROM cgmap_trace_paths WHERE frame_oids[31] = 0")"
expect_eq "the uncut paths: one per depth 1..32, one call each" "32|1|32|true" \
	"$(q -c "SELECT count(*) || '|' || min(depth) || '|' || max(depth) || '|' || bool_and(calls = 1)
	           FROM cgmap_trace_paths WHERE NOT (0 = ANY(frame_oids))")"
expect_lines "recursion is one shape: the self edge" "$(shapes)" <<'EOF'
rec(integer): rec(integer) > rec(integer) @4 = 1
EOF

step "time invariants"
reset
sql -c "SELECT top() FROM generate_series(1, 20)" -c "SELECT branchy(i % 2 = 0) FROM generate_series(1, 20) i" \
	-c "SELECT dyn('mid') FROM generate_series(1, 5)" -c "SELECT rec(40)" >/dev/null
expect_eq "exclusive <= inclusive, min <= max, min x calls <= inclusive <= max x calls" "0" \
	"$(q -c "SELECT count(*) FROM cgmap_trace_paths
	          WHERE self_ms > total_ms * (1 + 1e-9) + 1e-9 OR min_ms > max_ms
	             OR min_ms * calls > total_ms * (1 + 1e-9) + 1e-9
	             OR total_ms > max_ms * calls * (1 + 1e-9) + 1e-9
	             OR min_ms <= 0 OR first_seen > last_seen")"
expect_eq "a path's inclusive time covers its children's" "0" \
	"$(q -c "SELECT count(*) FROM cgmap_trace_paths p
	          WHERE NOT (0 = ANY(p.frame_oids)) AND p.total_ms + 1e-6 < (
	                SELECT coalesce(sum(c.total_ms), 0) FROM cgmap_trace_paths c
	                 WHERE c.depth = p.depth + 1 AND c.frame_oids[1:p.depth] = p.frame_oids
	                   AND c.lines[1:p.depth] = p.lines)")"
expect_eq "inclusive - exclusive of a path = its children's inclusive" "0" \
	"$(q -c "SELECT count(*) FROM cgmap_trace_paths p
	          WHERE p.depth < 31 AND abs((p.total_ms - p.self_ms) - (
	                SELECT coalesce(sum(c.total_ms), 0) FROM cgmap_trace_paths c
	                 WHERE c.depth = p.depth + 1 AND c.frame_oids[1:p.depth] = p.frame_oids
	                   AND c.lines[1:p.depth] = p.lines)) > 1e-6 + 1e-9 * p.total_ms")"
expect_eq "paths and edges agree: calls and exclusive time per function" "0" \
	"$(q -c "WITH p AS (SELECT frame_oids[depth] AS f, sum(calls) AS calls, sum(self_ms) AS self_ms
	                      FROM cgmap_trace_paths WHERE NOT (0 = ANY(frame_oids)) OR frame_oids[depth] <> 0
	                     GROUP BY 1),
	              e AS (SELECT callee_oid AS f, sum(calls) AS calls, sum(self_ms) AS self_ms
	                      FROM cgmap_trace_edges GROUP BY 1)
	         SELECT count(*) FROM p FULL JOIN e USING (f)
	          WHERE p.calls IS DISTINCT FROM e.calls OR abs(p.self_ms - e.self_ms) > 1e-6")"

step "timeline: buckets"
reset
# start right after a bucket boundary, so that the two batches below fall
# into two consecutive 2-second buckets
sql -c "SELECT pg_sleep(2.05 - extract(epoch FROM clock_timestamp())::numeric % 2)" >/dev/null
sql -c "SELECT top() FROM generate_series(1, 5)" >/dev/null
sleep 2
sql -c "SELECT top() FROM generate_series(1, 3)" >/dev/null
expect_eq "two buckets: 5 then 3 calls of top(), 15 then 9 of leaf()" "top():5,3 leaf():15,9" \
	"$(q -c "SELECT string_agg(function::text || ':' || c, ' ' ORDER BY function::text DESC)
	           FROM (SELECT function, string_agg(calls::text, ',' ORDER BY bucket_start) AS c
	                   FROM cgmap_trace_timeline WHERE function IN ('top()'::regprocedure, 'leaf()'::regprocedure)
	                  GROUP BY function) s")"
expect_eq "buckets start on multiples of 2 s, 2 s apart" "true|2" \
	"$(q -c "SELECT bool_and(extract(epoch FROM bucket_start)::numeric % 2 = 0) || '|' ||
	                extract(epoch FROM max(bucket_start) - min(bucket_start))::int
	           FROM cgmap_trace_timeline")"
expect_eq "timeline and edges agree: calls and exclusive time per function" "0" \
	"$(q -c "WITH t AS (SELECT fn_oid AS f, sum(calls) AS calls, sum(self_ms) AS self_ms FROM cgmap_trace_timeline GROUP BY 1),
	              e AS (SELECT callee_oid AS f, sum(calls) AS calls, sum(self_ms) AS self_ms FROM cgmap_trace_edges GROUP BY 1)
	         SELECT count(*) FROM t FULL JOIN e USING (f)
	          WHERE t.calls IS DISTINCT FROM e.calls OR abs(t.self_ms - e.self_ms) > 1e-6")"
sleep 10
expect_eq "10 s later the ring of 5 x 2 s no longer shows them" "0" \
	"$(q -c "SELECT count(*) FROM cgmap_trace_timeline")"
sql -c "SELECT leaf()" >/dev/null
expect_eq "a new call takes a slot over" "1|1" \
	"$(q -c "SELECT count(*) || '|' || sum(calls) FROM cgmap_trace_timeline")"

step "concurrent pgbench clients: exact counts"
reset
echo "SELECT top();" >"$work/bench.sql"
echo "SELECT branchy(random() < 2);" >>"$work/bench.sql"
pgbench -n -c 4 -j 2 -t 150 -f "$work/bench.sql" >"$work/bench.log" 2>&1 || { cat "$work/bench.log" >&2; fail "pgbench failed"; }
expect_lines "paths under 4 clients x 150 transactions" "$(paths)" <<'EOF'
branchy(boolean) = 600
branchy(boolean) > leaf()@4 = 600
top() = 600
top() > mid()@3 = 600
top() > mid()@3 > leaf()@3 = 600
top() > mid()@3 > leaf()@4 = 600
top() > leaf()@4 = 600
EOF
expect_lines "shapes under 4 clients" "$(shapes)" <<'EOF'
branchy(boolean): branchy(boolean) > leaf() @4 = 600
top(): mid() > leaf() @3, mid() > leaf() @4, top() > leaf() @4, top() > mid() @3 = 600
EOF
expect_eq "timeline: all the calls of top() and leaf()" "600|2400" \
	"$(q -c "SELECT sum(calls) FILTER (WHERE function = 'top()'::regprocedure) || '|' ||
	                sum(calls) FILTER (WHERE function = 'leaf()'::regprocedure) FROM cgmap_trace_timeline")"

step "a top-level call with more than 64 distinct edges: its shape is dropped"
reset
sql -c "SELECT wide(70)" -c "SELECT wide(3)" >/dev/null
expect_eq "shapes_dropped 1, the small one kept" "1|1" \
	"$(q -c "SELECT shapes_dropped || '|' || (SELECT count(*) FROM cgmap_trace_shapes WHERE entry = 'wide(integer)'::regprocedure) FROM cgmap_trace_info()")"

step "reset"
sql -c "SELECT top()" >/dev/null
reset
expect_eq "paths, shapes, timeline and their counters are empty after reset" "0|0|0|0|0|0|0|0|0" \
	"$(q -c "SELECT (SELECT count(*) FROM cgmap_trace_paths) || '|' || (SELECT count(*) FROM cgmap_trace_shapes) || '|' ||
	                (SELECT count(*) FROM cgmap_trace_timeline) || '|' || paths_used || '|' || shapes_used || '|' ||
	                timeline_functions || '|' || paths_dropped || '|' || shapes_dropped || '|' || timeline_dropped
	           FROM cgmap_trace_info()")"

step "persistence across a clean restart"
reset
sql -c "SELECT top()" -c "SELECT branchy(true)" -c "SELECT rec(35)" -c "SELECT wide(66)" >/dev/null
snapshot() {
	q -c "SELECT md5(string_agg(path_hash || frame_oids::text || lines::text || calls || total_ms || self_ms || min_ms || max_ms || first_seen || last_seen, ';' ORDER BY path_hash)) FROM cgmap_trace_paths" \
	  -c "SELECT md5(string_agg(shape_hash || entry_oid || edges::text || calls || first_seen || last_seen, ';' ORDER BY shape_hash)) FROM cgmap_trace_shapes" \
	  -c "SELECT md5(string_agg(fn_oid || '@' || bucket_start || calls || self_ms, ';' ORDER BY fn_oid, bucket_start)) FROM cgmap_trace_timeline" \
	  -c "SELECT paths_used || '|' || shapes_used || '|' || timeline_functions || '|' || shapes_dropped FROM cgmap_trace_info()"
}
before=$(snapshot)
pgtest_restart
expect_eq "paths, shapes, timeline and counters are back, unchanged" "$before" "$(snapshot)"
expect_eq "and they are not empty" "t" "$(q -c "SELECT paths_used > 40 AND shapes_used = 3 AND shapes_dropped = 1 FROM cgmap_trace_info()")"
if grep -q "cgmap_trace: ignoring invalid file" "$PGTEST_DIR/server.log"; then
	fail "the saved file was called invalid"
fi

step "DROP FUNCTION removes its paths, shapes and timeline"
sql -c "DROP FUNCTION branchy(boolean)" >/dev/null
expect_eq "nothing of branchy() left" "0|0|0" \
	"$(q -c "SELECT (SELECT count(*) FROM cgmap_trace_paths p WHERE p.frame_oids[1] NOT IN (SELECT oid FROM pg_proc) ) || '|' ||
	                (SELECT count(*) FROM cgmap_trace_shapes s WHERE s.entry IS NULL AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())) || '|' ||
	                (SELECT count(*) FROM cgmap_trace_timeline t WHERE t.fn_oid NOT IN (SELECT oid FROM pg_proc))")"

step "a full path table counts its drops"
sql -c "ALTER SYSTEM SET cgmap_trace.max_paths = 10" >/dev/null
pgtest_restart
reset
sql -c "SELECT rec(40)" >/dev/null
expect_eq "10 paths kept, the calls of the others dropped" "10|10|40" \
	"$(q -c "SELECT paths_used || '|' || paths_max || '|' || (paths_dropped + (SELECT sum(calls) FROM cgmap_trace_paths)) FROM cgmap_trace_info()")"
expect_eq "edges are still all there" "40" "$(q -c "SELECT sum(calls) FROM cgmap_trace_edges")"
sql -c "ALTER SYSTEM RESET cgmap_trace.max_paths" >/dev/null
pgtest_restart

step "track_paths / track_shapes / track_timeline off"
reset
sql -c "SET cgmap_trace.track_paths = off" -c "SET cgmap_trace.track_shapes = off" -c "SET cgmap_trace.track_timeline = off" \
	-c "SELECT top()" >/dev/null
expect_eq "only the edges are recorded" "5|0|0|0" \
	"$(q -c "SELECT (SELECT count(*) FROM cgmap_trace_edges) || '|' || (SELECT count(*) FROM cgmap_trace_paths) || '|' ||
	                (SELECT count(*) FROM cgmap_trace_shapes) || '|' || (SELECT count(*) FROM cgmap_trace_timeline)")"
expect_eq "a plain role cannot turn them off" "denied" \
	"$(sql -c "CREATE ROLE plain LOGIN" >/dev/null; sql -U plain -c "SET cgmap_trace.track_paths = off" >/dev/null 2>&1 && echo allowed || echo denied)"

step "ALTER EXTENSION UPDATE from 1.2 to 1.8"
sql -c "CREATE DATABASE upg" >/dev/null
sql -d upg -c "CREATE EXTENSION cgmap_trace VERSION '1.2'" \
	-c "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RETURN 1; END \$\$" >/dev/null
expect_eq "1.2 with this library: info has its 8 columns" "1.2|8" \
	"$(q -d upg -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                       (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_info')")"
sql -d upg -c "SELECT f()" >/dev/null
expect_eq "updated: 1.8, 22 columns of info, the path recorded before the update" "1.8|22|f() = 1" \
	"$(q -d upg -c "ALTER EXTENSION cgmap_trace UPDATE" \
	              -c "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace') || '|' ||
	                         (SELECT array_length(proallargtypes, 1) FROM pg_proc WHERE proname = 'cgmap_trace_info') || '|' ||
	                         (SELECT string_agg(frames[1] || ' = ' || calls, ',') FROM cgmap_trace_paths WHERE frames IS NOT NULL)" | tail -n 1)"
expect_eq "1.8: the views are readable by any role" "true|true|true|true|true" \
	"$(q -d upg -c "SELECT has_table_privilege('public', 'cgmap_trace_paths', 'SELECT') || '|' ||
	                       has_table_privilege('public', 'cgmap_trace_shapes', 'SELECT') || '|' ||
	                       has_table_privilege('public', 'cgmap_trace_timeline', 'SELECT') || '|' ||
	                       has_table_privilege('public', 'cgmap_trace_sites', 'SELECT') || '|' ||
	                       has_table_privilege('public', 'cgmap_trace_gone', 'SELECT')")"

step "cgmap collect carries paths, shapes and timeline"
if [ -x "$CGMAP" ] && command -v jq >/dev/null 2>&1; then
	reset
	sql -c "SELECT top()" -c "SELECT top()" -c "SELECT dyn('mid')" >/dev/null
	"$CGMAP" collect -o "$work/c1.json" 2>"$work/c1.err" || { cat "$work/c1.err" >&2; fail "collect failed"; }
	expect_eq "collect: the paths of top() with frames and lines" \
		'public.top()|0|2 public.top()>public.leaf()|0,4|2 public.top()>public.mid()|0,3|2 public.top()>public.mid()>public.leaf()|0,3,3|2 public.top()>public.mid()>public.leaf()|0,3,4|2' \
		"$(jq -r '[.paths[] | select(.frames[0] == "public.top()") | (.frames | join(">")) + "|" + (.lines | map(tostring) | join(",")) + "|" + (.calls | tostring)] | join(" ")' "$work/c1.json")"
	expect_eq "collect: min <= max, times in every path" "true" \
		"$(jq '[.paths[] | .min_ms <= .max_ms and .self_ms <= .total_ms and .min_ms > 0] | all' "$work/c1.json")"
	expect_eq "collect: the shapes, with their edges by name" \
		'public.dyn(text) 1 public.dyn(text)>public.mid()@4 dyn,public.mid()>public.leaf()@3,public.mid()>public.leaf()@4;public.top() 2 public.mid()>public.leaf()@3,public.mid()>public.leaf()@4,public.top()>public.leaf()@4,public.top()>public.mid()@3' \
		"$(jq -r '[.shapes[] | .entry + " " + (.calls | tostring) + " " + ([.edges[] | .caller + ">" + .callee + "@" + (.site_line | tostring) + (if .dynamic then " dyn" else "" end)] | join(","))] | join(";")' "$work/c1.json")"
	expect_eq "collect: timeline calls of public.leaf() and the bucket length" "8|2" \
		"$(jq -r '([.timeline[] | select(.function == "public.leaf()") | .calls] | add | tostring) + "|" + (.trace.bucket_seconds | tostring)' "$work/c1.json")"
	sql -c "SELECT top()" >/dev/null
	"$CGMAP" collect --since "$work/c1.json" -o "$work/c2.json" 2>"$work/c2.err" || { cat "$work/c2.err" >&2; fail "collect --since failed"; }
	expect_eq "collect --since: only the paths called since, by the difference" \
		'public.top()=1 public.top()>public.leaf()=1 public.top()>public.mid()=1 public.top()>public.mid()>public.leaf()=1 public.top()>public.mid()>public.leaf()=1' \
		"$(jq -r '[.paths[] | (.frames | join(">")) + "=" + (.calls | tostring)] | join(" ")' "$work/c2.json")"
	expect_eq "collect --since: shapes and timeline by the difference (top, mid, 3 x leaf)" "public.top()=1|5" \
		"$(jq -r '([.shapes[] | .entry + "=" + (.calls | tostring)] | join(" ")) + "|" + ([.timeline[] | .calls] | add | tostring)' "$work/c2.json")"
	"$CGMAP" --dsn "dbname=postgres" --no-runtime --runtime "$work/c1.json" --no-html --out "$work/map" \
		2>"$work/map.err" || { cat "$work/map.err" >&2; fail "map with the collected file failed"; }
	expect_eq "snapshot: runtime.paths, shapes and timeline as the file had them" \
		"$(jq -c '[[.paths[] | [.frames, .lines, .calls]], [.shapes[] | [.entry, .calls, .edges]], [.timeline[] | [.function, .start, .calls]]]' "$work/c1.json")" \
		"$(jq -c '[[.runtime.paths[] | [.frames, .lines, .runtime.calls]], [.runtime.shapes[] | [.entry, .calls, .edges]], [.runtime.timeline[] | [.function, .start, .calls]]]' "$work/map/cgmap.json")"

	step "reports and stacks.folded from the snapshot of the collected file"
	# c1 holds top() twice (top > mid@3 > leaf@3, leaf@4; top > leaf@4) and
	# dyn('mid') once (dyn > mid@4 > leaf@3, leaf@4); no pg_stat_user_functions
	# (track_functions is off), so each function's figures are the edges'.
	"$CGMAP" report profile "$work/map" --format csv >"$work/profile.csv" 2>"$work/profile.err" ||
		{ cat "$work/profile.err" >&2; fail "report profile failed"; }
	expect_lines "profile: the four functions with their calls" \
		"$(tail -n +2 "$work/profile.csv" | tr -d '\r' | cut -d, -f1,5 | LC_ALL=C sort)" <<'EOF'
public.dyn(text),1
public.leaf(),8
public.mid(),3
public.top(),2
EOF
	expect_eq "profile: by exclusive time, exclusive <= inclusive, min <= avg <= max, shares summing to 100" "ok" \
		"$(tail -n +2 "$work/profile.csv" | tr -d '\r' | awk -F, '
			{ if (NR > 1 && $3 + 0 > prev + 1e-9) bad = bad " order:" $1; prev = $3 + 0
			  if ($3 > $6 + 0.0015) bad = bad " self>total:" $1
			  if ($8 == "" || $9 == "" || $8 > $7 + 0.0015 || $7 > $9 + 0.0015) bad = bad " min/avg/max:" $1
			  pct += $4 }
			END { if (pct < 99.7 || pct > 100.3) bad = bad " pct:" pct; print bad == "" ? "ok" : bad }')"
	"$CGMAP" report paths "$work/map" >"$work/paths.txt" 2>"$work/paths.err" ||
		{ cat "$work/paths.err" >&2; fail "report paths failed"; }
	expect_lines "paths: each path from its entry point, with its lines" \
		"$(grep -v '^#' "$work/paths.txt" | sed 's/ calls \([0-9]*\) .*/ = \1/' | LC_ALL=C sort)" <<'EOF'
public.dyn(text) = 1
public.dyn(text) > public.mid() (line 4) = 1
public.dyn(text) > public.mid() (line 4) > public.leaf() (line 3) = 1
public.dyn(text) > public.mid() (line 4) > public.leaf() (line 4) = 1
public.top() = 2
public.top() > public.leaf() (line 4) = 2
public.top() > public.mid() (line 3) = 2
public.top() > public.mid() (line 3) > public.leaf() (line 3) = 2
public.top() > public.mid() (line 3) > public.leaf() (line 4) = 2
EOF
	expect_eq "paths: by inclusive time, an entry point first" "ok" \
		"$(grep -v '^#' "$work/paths.txt" | awk '
			{ t = $0; sub(/.* total /, "", t); sub(/ ms.*/, "", t)
			  if (NR > 1 && t + 0 > prev + 1e-9) bad = 1; prev = t + 0 }
			NR == 1 && / > / { bad = 1 }
			END { print bad ? "bad" : "ok" }')"
	expect_eq "shapes: one shape per entry point, all its calls" \
		"public.dyn(text) shape 1: calls 1 (100.0%), 3 edges: public.dyn(text) -> public.mid() line 4 dynamic; public.mid() -> public.leaf() line 3; public.mid() -> public.leaf() line 4|public.top() shape 1: calls 2 (100.0%), 4 edges: public.mid() -> public.leaf() line 3; public.mid() -> public.leaf() line 4; public.top() -> public.leaf() line 4; public.top() -> public.mid() line 3" \
		"$("$CGMAP" report shapes "$work/map" 2>&1 | grep -v '^#' | paste -sd'|')"
	expect_eq "timeline (json, every row): the calls of each function" "public.dyn(text)=1 public.leaf()=8 public.mid()=3 public.top()=2" \
		"$("$CGMAP" report timeline "$work/map" --format json 2>&1 | jq -r '[.rows | group_by(.function)[] | .[0].function + "=" + ([.[].calls] | add | tostring)] | join(" ")')"

	"$CGMAP" render "$work/map" --out "$work/site" --quiet 2>"$work/render.err" ||
		{ cat "$work/render.err" >&2; fail "render failed"; }
	expect_lines "stacks.folded: one stack per path, the lines of a call merged" \
		"$(cut -d' ' -f1 "$work/site/stacks.folded")" <<'EOF'
public.dyn(text)
public.dyn(text);public.mid()
public.dyn(text);public.mid();public.leaf()
public.top()
public.top();public.leaf()
public.top();public.mid()
public.top();public.mid();public.leaf()
EOF
	expect_eq "stacks.folded: listed in the site's manifest" "stacks.folded" \
		"$(grep -x 'stacks.folded' "$work/site/.cgmap-manifest")"
	# half a microsecond per line, and the profile's three decimals per function
	expect_eq "stacks.folded: integer microseconds summing to the total exclusive time (profile) within rounding" "ok" \
		"$(awk -v prof="$(tail -n +2 "$work/profile.csv" | tr -d '\r' | awk -F, '{ s += $3 } END { printf "%.3f", s }')" '
			$NF !~ /^[0-9]+$/ { bad = bad " value:" $0 }
			{ sum += $NF; n++ }
			END { d = sum - prof * 1000; if (d < 0) d = -d
			      if (d > n * 0.5 + 4 * 0.5) bad = bad " sum " sum " us vs " prof " ms"
			      print bad == "" ? "ok" : bad }' "$work/site/stacks.folded")"

	step "older runtime data: the reports say there are no paths"
	jq 'del(.paths, .shapes, .timeline)' "$work/c1.json" >"$work/old.json"
	"$CGMAP" --dsn "dbname=postgres" --no-runtime --runtime "$work/old.json" --out "$work/old" --quiet \
		2>"$work/old.err" || { cat "$work/old.err" >&2; fail "map with an older runtime file failed"; }
	expect_eq "paths of a snapshot without them: a note, exit 0" \
		"# no call paths: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded|0" \
		"$("$CGMAP" report paths "$work/old" >"$work/old-paths.txt" 2>&1; rc=$?; echo "$(grep '^# no' "$work/old-paths.txt")|$rc")"
	expect_eq "profile of a snapshot without paths: the functions, no min or max" "public.leaf(),8,," \
		"$("$CGMAP" report profile "$work/old" --format csv | tr -d '\r' | grep '^public.leaf()' | cut -d, -f1,5,8,9)"
	expect_eq "no stacks.folded without paths" "absent" "$([ -e "$work/old/stacks.folded" ] && echo present || echo absent)"
	"$CGMAP" render "$work/old" --out "$work/site" --quiet 2>"$work/render2.err" ||
		{ cat "$work/render2.err" >&2; fail "render of the older snapshot failed"; }
	expect_eq "rendering it into the site removes the earlier stacks.folded" "absent" \
		"$([ -e "$work/site/stacks.folded" ] && echo present || echo absent)"

	step "map of the live server"
	"$CGMAP" --dsn "dbname=postgres" --out "$work/live" --quiet 2>"$work/live.err" ||
		{ cat "$work/live.err" >&2; fail "map of the live server failed"; }
	expect_eq "snapshot of the live server: the paths of top() since c1 and c2, all calls" "3" \
		"$(jq '[.runtime.paths[] | select(.frames == ["public.top()"]) | .runtime.calls] | add' "$work/live/cgmap.json")"
	"$CGMAP" render "$work/live" --out "$work/live-site" --quiet 2>"$work/render3.err" ||
		{ cat "$work/render3.err" >&2; fail "render of the live snapshot failed"; }
	expect_eq "map writes stacks.folded, the same bytes as render of its snapshot" "same" \
		"$(cmp -s "$work/live/stacks.folded" "$work/live-site/stacks.folded" && echo same || echo differ)"
	expect_eq "stacks.folded of the live server: top() as an entry point" "1" \
		"$(grep -c '^public.top() [0-9]*$' "$work/live/stacks.folded")"
else
	echo "SKIP part: no cgmap binary (CGMAP) or no jq"
fi

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "PASS"
