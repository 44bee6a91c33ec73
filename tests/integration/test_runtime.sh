#!/usr/bin/env bash
# Runtime data end to end: merge, analysis and reports against a real
# PostgreSQL 15 and the fixture in fixtures/runtime (schema, scripted
# workload, hand-written runtime file, expected reports).
#
#  1. offline: --sql + --runtime observed.json: every report in every format
#     is compared byte for byte with fixtures/runtime/expected/;
#  2. pg_stat_user_functions (track_functions = all): exact call counts,
#     --no-runtime, track_functions off said, `cgmap collect` files summed;
#  3. `digraph {oid->oid;...}` log lines mapped through the real catalog,
#     unknown OIDs and bad items reported;
#  4. the cgmap_trace extension, built by this checkout and installed into
#     a private copy of the installation tree (tests/lib/pgext.sh; skipped
#     with a message when that cannot be made): exact edges and call counts
#     of the workload, live and through `cgmap collect`.
#
# Env: CGMAP (binary), CGMAP_SOURCE_DIR.  Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail

root=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CGMAP=${CGMAP:-$root/build/cgmap}
cd "$root" # reports name fixture files by the relative path they were given
fx=fixtures/runtime

# shellcheck source=../lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"

step() { echo "--- $*"; }
# Live windows last seconds and see few calls: thresholds that let the
# verdicts of these small workloads show (the defaults are an hour, 100 calls).
LIVE="--min-window 0 --min-calls 1"
[ -x "$CGMAP" ] || { echo "SKIP: no cgmap binary at $CGMAP" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-runtime.XXXXXX")
chmod 755 "$work" # the server (another user) runs from the private tree inside
cleanup() {
	pgtest_stop
	rm -rf "$work"
}
trap cleanup EXIT

# expect_same WHAT EXPECTED_FILE ACTUAL_FILE
expect_same() { pgtest_expect_file "$2" "$3" "$1"; }

# expect_text WHAT ACTUAL_FILE <<EOF ... EOF
expect_text() {
	cat >"$work/expected.txt"
	pgtest_expect_file "$work/expected.txt" "$2" "$1"
}

# pgtest_expect_grep WHAT FILE PATTERN: a fixed string must be in FILE.

# Timestamps of live servers differ between runs.
no_times() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIME/g'; }

# ---------------------------------------------------------------------------
step "1. SQL files + runtime file: every report, every format"
"$CGMAP" --sql "$fx/schema.sql" --runtime "$fx/observed.json" --min-calls 1 --out "$work/fx" \
	2>"$work/fx.err" || { cat "$work/fx.err" >&2; pgtest_fail "map with --runtime failed"; }
pgtest_expect_grep "unknown observed function" "$work/fx.err" \
	"function 'old.gone(integer)' was observed at runtime but is not in the mapped model (1 runtime row ignored)"
pgtest_expect_grep "summary on stderr" "$work/fx.err" "cgmap: 12 edges: 5 static only, 6 static and observed, 1 observed only (0 unexplained)"
pgtest_expect_grep "summary on stderr" "$work/fx.err" "cgmap: 2 dynamic sites: 1 observed, 1 unseen, 0 that can call no user function"
pgtest_expect_grep "summary on stderr" "$work/fx.err" \
	"cgmap: of 17 functions, 6 are roots, 4 dead, 4 cold; 2 recursive components (3 functions)"
pgtest_expect_grep "verdicts on stderr" "$work/fx.err" \
	"cgmap: never called and unreachable: 4 dead, 0 unobserved, 0 untraceable, 1 dynamic-reachable"
for kind in edges functions dead cold dynamic unexplained missing recursion; do
	for format in text csv markdown json; do
		case $format in text) ext=txt ;; markdown) ext=md ;; *) ext=$format ;; esac
		"$CGMAP" report "$kind" "$work/fx" --format "$format" >"$work/$kind.$ext"
		expect_same "report $kind --format $format" "$fx/expected/$kind.$ext" "$work/$kind.$ext"
	done
done
# The same, mapped on the spot by the report command.
"$CGMAP" report dead --sql "$fx/schema.sql" --runtime "$fx/observed.json" --min-calls 1 >"$work/dead-src.txt" 2>/dev/null
expect_same "report dead --sql --runtime" "$fx/expected/dead.txt" "$work/dead-src.txt"
# A snapshot without runtime data takes a runtime file at report time.
"$CGMAP" --sql "$fx/schema.sql" --out "$work/static" 2>"$work/static.err"
pgtest_expect_grep "no runtime: nothing dead" "$work/static.err" \
	"cgmap: no runtime data: no function is called dead; 7 have no callers and are not referenced"
"$CGMAP" report dead "$work/static" >"$work/static-dead.txt"
expect_text "dead without runtime data" "$work/static-dead.txt" <<'EOF'
# Dead functions: 7
# no runtime data: nothing is claimed dead; listed are the functions with no callers that nothing refers to (clients may still call them)
app.fact(integer): no callers and not referenced; recursive component 0, called only from within it (fixtures/runtime/schema.sql:113)
app.legacy_total(): no callers and not referenced (fixtures/runtime/schema.sql:128)
app.ping(integer): no callers and not referenced; recursive component 1, called only from within it (fixtures/runtime/schema.sql:134)
app.place_order(integer,numeric): no callers and not referenced (fixtures/runtime/schema.sql:98)
app.pong(integer): no callers and not referenced; recursive component 1, called only from within it (fixtures/runtime/schema.sql:140)
app.send_email(integer): no callers and not referenced (fixtures/runtime/schema.sql:66)
app.send_sms(integer): no callers and not referenced (fixtures/runtime/schema.sql:72)
EOF
"$CGMAP" report cold "$work/static" --runtime "$fx/observed.json" --min-calls 1 >"$work/late-cold.txt" 2>/dev/null
expect_same "report cold --runtime on a static snapshot" "$fx/expected/cold.txt" "$work/late-cold.txt"
# --entry makes roots: the legacy pair is no longer dead.
"$CGMAP" report dead "$work/fx" --entry 'app.legacy_*' >"$work/entry-dead.txt"
expect_text "dead with --entry" "$work/entry-dead.txt" <<'EOF'
# Dead functions: 2
# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (file fixtures/runtime/observed.json, database shop@db1:5432)
# evidence: window 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (1 h 0 min), 1 server, 1 database, 26 calls observed; traced: plpgsql; statistics: track_functions none read; enough for dead (at least 1 h 0 min and 1 call); not called dead though never called and unreachable: 0 unobserved, 0 untraceable, 1 dynamic-reachable
app.ping(integer): not reachable from any root through static or observed edges, never called in the window (low confidence: 1 h 0 min, 26 calls observed in all, 1 server); recursive component 1, called only from within it (fixtures/runtime/schema.sql:134)
app.pong(integer): not reachable from any root through static or observed edges, never called in the window (low confidence: 1 h 0 min, 26 calls observed in all, 1 server); recursive component 1, called only from within it (fixtures/runtime/schema.sql:140)
EOF
# Bad input: named, exit 1.
printf '{"format": "cgmap-runtime", "format_version": 1, "edges": [' >"$work/broken.json"
if "$CGMAP" --sql "$fx/schema.sql" --runtime "$work/broken.json" --out "$work/broken" 2>"$work/broken.err"; then
	pgtest_fail "a broken runtime file was accepted"
fi
pgtest_expect_grep "broken runtime file named" "$work/broken.err" "runtime file '$work/broken.json' line 1"
set +e
"$CGMAP" report nonsense "$work/fx" 2>"$work/usage.err"
rc=$?
set -e
[ "$rc" = 1 ] || pgtest_fail "report nonsense: exit $rc, expected 1"
pgtest_expect_grep "unknown report" "$work/usage.err" "unknown report 'nonsense'"

# ---------------------------------------------------------------------------
step "2. pg_stat_user_functions with track_functions = all"
pgtest_start "track_functions = all"
pgtest_psql -c "CREATE DATABASE shop"
pgtest_psql -d shop -f "$fx/schema.sql" >/dev/null
pgtest_psql -d shop -f "$fx/workload.sql" >/dev/null
# Statistics reach the shared counters when the session ends; wait for them.
for _ in $(seq 1 50); do
	n=$(pgtest_psql -d shop -c "SELECT count(*) FROM pg_stat_user_functions")
	[ "$n" -ge 8 ] && break
	sleep 0.2
done
"$CGMAP" --dsn "dbname=shop" $LIVE --out "$work/live" 2>"$work/live.err" ||
	{ cat "$work/live.err" >&2; pgtest_fail "map --dsn failed"; }
"$CGMAP" report functions "$work/live" >"$work/live-functions.txt"
expect_text "functions from pg_stat_user_functions" "$work/live-functions.txt" <<'EOF'
app.archive_guard() cold root referenced calls 0
app.audit() called root referenced calls 3
app.big_discount(numeric) cold calls 0
app.dispatch(text,integer) called calls 3
app.fact(integer) called scc 0 calls 5
app.fmt_amount(numeric) cold root referenced calls 0
app.legacy_helper() dead calls 0
app.legacy_total() dead calls 0
app.next_code() called root referenced calls 3
app.notify(integer) called calls 3
app.ping(integer) dead scc 1 calls 0
app.place_order(integer,numeric) called calls 3
app.pong(integer) dead scc 1 calls 0
app.price(numeric) called calls 3
app.report_by(text) cold calls 0
app.send_email(integer) called calls 3
app.send_sms(integer) dynamic-reachable calls 0
EOF
"$CGMAP" report dynamic "$work/live" | no_times >"$work/live-dynamic.txt"
expect_text "no edges, no unseen dynamic site" "$work/live-dynamic.txt" <<'EOF'
# Dynamic call sites: 2
# runtime data covers TIME to TIME (database shop)
# the runtime data has no call edges (only per-function figures): no dynamic site can be called unseen
app.dispatch(text,integer) line 3: dynamic site: EXECUTE format('SELECT app.send_%s($1)', p_channel)
app.report_by(text) line 4: dynamic site: EXECUTE 'SELECT app.report_' || p_kind || '()'
EOF
"$CGMAP" --dsn "dbname=shop" --no-runtime --out "$work/noruntime" 2>"$work/noruntime.err"
"$CGMAP" report functions "$work/noruntime" >"$work/noruntime-functions.txt"
if grep -q "calls\|dead\|cold" "$work/noruntime-functions.txt"; then
	cat "$work/noruntime-functions.txt" >&2
	pgtest_fail "--no-runtime still merged runtime figures"
fi
pgtest_expect_grep "--no-runtime summary" "$work/noruntime.err" "cgmap: no runtime data"

# collect: one file per server.  The same file twice is one observation
# (the same server and window): counted once, and said.
"$CGMAP" collect --dsn "dbname=shop" -o "$work/a.json" 2>"$work/collect.err" ||
	{ cat "$work/collect.err" >&2; pgtest_fail "collect failed"; }
pgtest_expect_grep "collect without the extension" "$work/collect.err" \
	"cgmap_trace is not installed in database 'shop': only per-function statistics were collected"
pgtest_expect_grep "collect summary" "$work/collect.err" "collected 0 call edges, 0 entry-point rows and 8 function figures from shop"
pgtest_expect_grep "collect file" "$work/a.json" '{"id": "app.fact(integer)", "calls": 5,'
pgtest_expect_grep "collect file" "$work/a.json" '"track_functions": "all"'
pgtest_expect_grep "collect file: server identity" "$work/a.json" '"system_identifier": "'
"$CGMAP" --sql "$fx/schema.sql" --runtime "$work/a.json" --runtime "$work/a.json" --out "$work/summed" 2>"$work/summed.err"
pgtest_expect_grep "same observation said" "$work/summed.err" "saw the same server and window as file $work/a.json"
"$CGMAP" report functions "$work/summed" | grep ' called ' >"$work/summed.txt"
expect_text "the same runtime file twice counted once" "$work/summed.txt" <<'EOF'
app.audit() called root referenced calls 3
app.dispatch(text,integer) called calls 3
app.fact(integer) called scc 0 calls 5
app.next_code() called root referenced calls 3
app.notify(integer) called calls 3
app.place_order(integer,numeric) called calls 3
app.price(numeric) called calls 3
app.send_email(integer) called calls 3
EOF
# --dsn X --runtime file-collected-from-X: the live server is the same one.
"$CGMAP" --dsn "dbname=shop" --runtime "$work/a.json" --out "$work/twice" 2>"$work/twice.err"
"$CGMAP" report functions "$work/twice" | grep ' called ' >"$work/twice.txt"
expect_same "--dsn X --runtime file-from-X counted once" "$work/summed.txt" "$work/twice.txt"

pgtest_psql -c "ALTER SYSTEM SET track_functions = 'none'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
"$CGMAP" --dsn "dbname=shop" $LIVE --out "$work/off" 2>"$work/off.err"
pgtest_expect_grep "track_functions off is said" "$work/off.err" \
	"track_functions is 'none' in database 'shop': pg_stat_user_functions counts no calls (set track_functions = 'pl' or 'all'); older figures were read"
pgtest_psql -c "ALTER SYSTEM RESET track_functions" -c "SELECT pg_reload_conf()" >/dev/null

# ---------------------------------------------------------------------------
step "3. digraph log lines mapped through the catalog"
oid() { pgtest_psql -d shop -c "SELECT '$1'::regprocedure::oid"; }
order=$(oid 'app.place_order(integer,numeric)')
price=$(oid 'app.price(numeric)')
legacy=$(oid 'app.legacy_helper()')
dispatch=$(oid 'app.dispatch(text,integer)')
email=$(oid 'app.send_email(integer)')
notify=$(oid 'app.notify(integer)')
{
	echo "2026-11-29 10:00:00.000 UTC [4242] LOG:  statement: SELECT app.place_order(1, 10);"
	echo "2026-11-29 10:00:00.010 UTC [4242] LOG:  digraph {0->$order;$order->$price;$order->$notify;$notify->$dispatch;$dispatch->$email}"
	echo "2026-11-29 10:00:01.000 UTC [4242] LOG:  digraph {0->$order;$order->$price;$order->$legacy}"
	echo "2026-11-29 10:00:02.000 UTC [4243] LOG:  digraph {$order->4000000000;4000000000->$price}"
	echo "2026-11-29 10:00:03.500 UTC [4243] LOG:  digraph {$order->$price;$order->oops}"
	echo "an unrelated line"
} >"$work/server.log"
"$CGMAP" --dsn "dbname=shop" --no-runtime --runtime-log "$work/server.log" $LIVE --out "$work/log" \
	2>"$work/log.err" || { cat "$work/log.err" >&2; pgtest_fail "map --runtime-log failed"; }
pgtest_expect_grep "a log has no paths, and says so" "$work/log.err" \
	"runtime log lines carry calls between functions only: no call paths, shapes or timeline"
"$CGMAP" report edges "$work/log" | grep -v ' static ' >"$work/log-edges.txt"
expect_text "edges from the log" "$work/log-edges.txt" <<'EOF'
app.dispatch(text,integer) -> app.send_email(integer) via dynamic observed lines 3 calls 1
app.notify(integer) -> app.dispatch(text,integer) via call both lines 3 calls 1
app.place_order(integer,numeric) -> app.legacy_helper() via call observed lines - calls 1
app.place_order(integer,numeric) -> app.notify(integer) via call both lines 10 calls 1
app.place_order(integer,numeric) -> app.price(numeric) via call both lines 3 calls 3
EOF
pgtest_expect_grep "unknown OID said" "$work/log.err" \
	"unknown function OID 4000000000 in runtime log (no such function in the mapped database; 2 calls skipped)"
pgtest_expect_grep "bad item said" "$work/log.err" "cannot read '$order->oops' as OID->OID: rest of the line skipped"
"$CGMAP" report unexplained "$work/log" >"$work/log-unexplained.txt"
expect_text "log: unexplained edge and window" "$work/log-unexplained.txt" <<EOF
# Unexplained runtime edges: 1
# runtime data covers 2026-11-29 10:00:00.010 UTC to 2026-11-29 10:00:03.500 UTC (log $work/server.log, database shop)
app.place_order(integer,numeric) -> app.legacy_helper() lines - calls 1: observed at runtime, but the caller has no static call of it and no dynamic site, and no known mechanism explains it (a possible miss of cgmap: worth a bug report)
EOF
"$CGMAP" report functions "$work/log" | grep ' entry' >"$work/log-entry.txt"
expect_text "log: entry points" "$work/log-entry.txt" <<'EOF'
app.place_order(integer,numeric) called root entry calls 2
EOF
if "$CGMAP" --sql "$fx/schema.sql" --runtime-log "$work/server.log" --out "$work/nolog" 2>"$work/nolog.err"; then
	pgtest_fail "--runtime-log without a database was accepted"
fi
pgtest_expect_grep "--runtime-log needs --dsn" "$work/nolog.err" "OIDs are only meaningful in the database they come from"

# ---------------------------------------------------------------------------
step "4. the cgmap_trace extension"
ext="$root/extension/cgmap_trace"
trace_skip() { echo "SKIP (part 4 only): $*" >&2; }
if [ ! -x "$ext/build.sh" ]; then
	trace_skip "extension/cgmap_trace/build.sh is not there"
	exit 0
fi
if ! command -v pg_config >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
	trace_skip "pg_config or make missing"
	exit 0
fi
if ! "$ext/build.sh" "$work/ext" >"$work/ext.log" 2>&1; then
	tail -20 "$work/ext.log" >&2
	trace_skip "extension/cgmap_trace/build.sh failed"
	exit 0
fi
# Into a private copy of the installation tree (tests/lib/pgext.sh): the
# system PostgreSQL is never written to, and parallel runs never meet.
# shellcheck source=../lib/pgext.sh
. "$root/tests/lib/pgext.sh"
if ! pgext_tree "$work/tree" "$work/ext"; then
	trace_skip "could not make a private installation tree (see above)"
	exit 0
fi
pgtest_stop
pgtest_start "track_functions = all"
# Installed but not preloaded: said, and the statistics are still read.
pgtest_psql -c "CREATE DATABASE notloaded"
pgtest_psql -d notloaded -c "CREATE EXTENSION cgmap_trace"
"$CGMAP" collect --dsn "dbname=notloaded" -o "$work/notloaded.json" 2>"$work/notloaded.err" ||
	{ cat "$work/notloaded.err" >&2; pgtest_fail "collect with an unloaded cgmap_trace failed"; }
pgtest_expect_grep "unloaded extension said" "$work/notloaded.err" \
	"cgmap_trace is installed in database 'notloaded' but cannot be read"
pgtest_expect_grep "unloaded extension: statistics still read" "$work/notloaded.json" '"function_stats": true'
pgtest_stop
pgtest_start "track_functions = all" "shared_preload_libraries = 'cgmap_trace'"
pgtest_psql -c "CREATE DATABASE shop"
pgtest_psql -d shop -c "CREATE EXTENSION cgmap_trace" -f "$fx/schema.sql" >/dev/null
pgtest_psql -d shop -c "SELECT cgmap_trace_reset()" >/dev/null
pgtest_psql -d shop -f "$fx/workload.sql" >/dev/null
for _ in $(seq 1 50); do
	n=$(pgtest_psql -d shop -c "SELECT count(*) FROM pg_stat_user_functions")
	[ "$n" -ge 8 ] && break
	sleep 0.2
done
"$CGMAP" --dsn "dbname=shop" $LIVE --out "$work/trace" 2>"$work/trace.err" ||
	{ cat "$work/trace.err" >&2; pgtest_fail "map --dsn with cgmap_trace failed"; }
"$CGMAP" report edges "$work/trace" >"$work/trace-edges.txt"
expect_text "edges observed by cgmap_trace" "$work/trace-edges.txt" <<'EOF'
app.dispatch(text,integer) -> app.send_email(integer) via dynamic observed lines 3 calls 3
app.fact(integer) -> app.fact(integer) via call both lines 6 calls 4
app.legacy_total() -> app.legacy_helper() via call static lines 3
app.notify(integer) -> app.dispatch(text,integer) via call both lines 3 calls 3
app.ping(integer) -> app.pong(integer) via call static lines 3
app.place_order(integer,numeric) -> app.audit() via trigger both lines 9 calls 3
app.place_order(integer,numeric) -> app.big_discount(numeric) via call static lines 6
app.place_order(integer,numeric) -> app.next_code() via default (default app.orders.code) both lines 9 calls 3
app.place_order(integer,numeric) -> app.notify(integer) via call both lines 10 calls 3
app.place_order(integer,numeric) -> app.price(numeric) via call both lines 3 calls 3
app.place_order(integer,numeric) -> app.report_by(text) via call static lines 7
app.pong(integer) -> app.ping(integer) via call static lines 3
EOF
"$CGMAP" report functions "$work/trace" >"$work/trace-functions.txt"
expect_same "functions with cgmap_trace" "$fx/expected/functions.txt" "$work/trace-functions.txt"
for kind in dead cold dynamic unexplained; do
	"$CGMAP" report "$kind" "$work/trace" | no_times | sed -e 's/ (database shop)$//' \
		-e 's/ (fixtures[^)]*)$//' >"$work/trace-$kind.txt"
	no_times <"$fx/expected/$kind.txt" | sed -e 's/ (fixtures[^)]*)$//' \
		-e 's/^# runtime data covers .*/# runtime data covers TIME to TIME/' >"$work/want-$kind.txt"
	sed -i -e 's/^# runtime data covers .*/# runtime data covers TIME to TIME/' "$work/trace-$kind.txt"
	# the evidence of a live window (its length, the calls) is its own
	sed -i -e 's/^# evidence: .*/# evidence: EVIDENCE/' -e 's/ ([a-z]* confidence: [^)]*)//' \
		"$work/trace-$kind.txt" "$work/want-$kind.txt"
	expect_same "report $kind with cgmap_trace" "$work/want-$kind.txt" "$work/trace-$kind.txt"
done
# Exported and merged elsewhere: the same edges.
"$CGMAP" collect --dsn "dbname=shop" -o "$work/trace.json" 2>"$work/trace-collect.err"
pgtest_expect_grep "collect with the extension" "$work/trace-collect.err" "collected 7 call edges, 2 entry-point rows and 8 function figures from shop"
"$CGMAP" --sql "$fx/schema.sql" --runtime "$work/trace.json" $LIVE --out "$work/trace-file" 2>/dev/null
"$CGMAP" report edges "$work/trace-file" >"$work/trace-file-edges.txt"
expect_same "edges through a collected file" "$work/trace-edges.txt" "$work/trace-file-edges.txt"
echo "PASS"
