#!/usr/bin/env bash
# test_map_stream.sh - functions stream from the catalog into the parsing
# threads while the rest is still read, and resolution runs on threads too:
# the outputs must not depend on the thread count (database and SQL files),
# --timing still names each stage, and a query that fails or a connection
# that drops in the middle of the stream stops the run with exit 2 and the
# source's message (under ASan, with nothing leaked: workers are joined).
# Function ids are assembled from their parts: they must stay exactly the
# regprocedure text PostgreSQL prints.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"
pgtest_start
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

# Enough functions that the stream lasts while workers parse.
bash "$src/bench/gen_schema.sh" 3000 7 >"$work/schema.sql"
pgtest_psql -c "CREATE DATABASE many" >/dev/null
pgtest_psql -d many -f "$work/schema.sql" >/dev/null
pgtest_psql -d many -c "VACUUM ANALYZE" >/dev/null

# --- the thread count changes nothing -----------------------------------------
for t in 1 2 5 0; do
	"$cgmap" --dsn dbname=many --out "$work/db$t" --no-runtime --no-html --quiet \
		--threads "$t" --timing 2>"$work/db$t.timing" ||
		pgtest_fail "--threads $t failed: $(cat "$work/db$t.timing")"
done
for t in 2 5 0; do
	cmp -s "$work/db1/cgmap.json" "$work/db$t/cgmap.json" ||
		pgtest_fail "--threads $t gives another snapshot than --threads 1"
	cmp -s "$work/db1/callgraph.dot" "$work/db$t/callgraph.dot" ||
		pgtest_fail "--threads $t gives another graph than --threads 1"
done
functions=$(jq '[.functions[]] | length' "$work/db1/cgmap.json")
[ "$functions" = 3002 ] || pgtest_fail "mapped $functions functions, not 3002"
for stage in catalog parse resolve analyze; do
	grep -q "^stage $stage " "$work/db0.timing" ||
		pgtest_fail "--timing lacks the $stage stage: $(cat "$work/db0.timing")"
done

for t in 1 3; do
	"$cgmap" --sql "$work/schema.sql" --out "$work/sql$t" --no-html --quiet --threads "$t" ||
		pgtest_fail "--sql with --threads $t failed"
done
cmp -s "$work/sql1/cgmap.json" "$work/sql3/cgmap.json" ||
	pgtest_fail "--sql: --threads 3 gives another snapshot than --threads 1"
jq -e '[.functions[] | select(.analysed)] | length == 3002' "$work/sql3/cgmap.json" >/dev/null ||
	pgtest_fail "--sql did not parse every function"

# --- identities are PostgreSQL's regprocedure text ----------------------------------
# Names that need quotes (keywords, capitals, quotes, spaces), user and
# array types, and calls to builtins whose names are keywords.
pgtest_psql -d many >/dev/null <<'SQL'
CREATE SCHEMA "Odd Schema";
CREATE TYPE "Odd Schema".mood AS ENUM ('ok');
CREATE FUNCTION "Odd Schema"."Weird ""Name"""(integer, "Odd Schema".mood[]) RETURNS text
	LANGUAGE sql AS $$ SELECT "left"('abc', $1) || "right"('abc', 1) || format('%s', $2) $$;
CREATE FUNCTION bench."select"(v character varying, VARIADIC n numeric[]) RETURNS integer
	LANGUAGE plpgsql AS $$ BEGIN RETURN coalesce(nullif(1, 2), "position"('a', 'b')); END $$;
CREATE FUNCTION bench."Upper"(timestamp with time zone, "char", bit varying) RETURNS void
	LANGUAGE sql AS $$ SELECT $$;
SQL
"$cgmap" --dsn dbname=many --out "$work/ids" --no-runtime --no-html --quiet --include-builtins --snapshot-format 1 ||
	pgtest_fail "mapping the odd names failed"
jq -r '.functions[] | select(.builtin | not) | .id' "$work/ids/cgmap.json" | LC_ALL=C sort >"$work/ids.cgmap"
pgtest_psql -d many -c "SET search_path = ''" -c "SELECT p.oid::regprocedure::text FROM pg_proc p
	JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')" | LC_ALL=C sort >"$work/ids.server"
pgtest_expect_file "$work/ids.server" "$work/ids.cgmap" "mapped function ids"
grep -q '^"Odd Schema"."Weird ""Name"""(integer,"Odd Schema".mood\[\])$' "$work/ids.cgmap" ||
	pgtest_fail "the odd function is missing: $(grep -i weird "$work/ids.cgmap")"
jq -r '.edges[] | select(.to | contains(".") | not) | .to' "$work/ids/cgmap.json" |
	LC_ALL=C sort -u >"$work/builtins.cgmap"
pgtest_psql -d many -c "SET search_path = ''" -c "SELECT p.oid::regprocedure::text FROM pg_proc p
	WHERE p.pronamespace = 'pg_catalog'::regnamespace" | LC_ALL=C sort >"$work/builtins.server"
for id in '"left"(text,integer)' '"right"(text,integer)' '"position"(text,text)' 'format(text,"any")'; do
	grep -qxF "$id" "$work/builtins.cgmap" || pgtest_fail "no edge to the builtin $id: $(cat "$work/builtins.cgmap")"
done
missing=$(LC_ALL=C comm -23 "$work/builtins.cgmap" "$work/builtins.server")
[ -z "$missing" ] || pgtest_fail "builtin ids that PostgreSQL does not print: $missing"

# --- a query failing mid-stream ---------------------------------------------------
# The last function created is the last row the scan finds; an argument type
# that does not exist makes the server fail on that row (printing its
# arguments, which it does for a function with defaults), after thousands
# of rows went to the parsing threads.
pgtest_psql -d many -c "CREATE FUNCTION bench.zz_last(integer) RETURNS integer LANGUAGE sql AS 'SELECT 1'" \
	-c "UPDATE pg_catalog.pg_proc SET proargtypes = '999999'::oidvector, pronargdefaults = 1 WHERE proname = 'zz_last'" >/dev/null
set +e
"$cgmap" --dsn dbname=many --out "$work/broken" --no-runtime --no-html --quiet 2>"$work/broken.err"
rc=$?
set -e
[ "$rc" = 4 ] || pgtest_fail "a query failing mid-stream exits $rc, not 4: $(cat "$work/broken.err")"
grep -q 'cannot read functions from "pg_proc": ERROR: *cache lookup failed for type 999999' \
	"$work/broken.err" || pgtest_fail "unexpected message: $(cat "$work/broken.err")"
[ ! -e "$work/broken/cgmap.json" ] || pgtest_fail "a failed run wrote a snapshot"
pgtest_psql -d many -c "DROP FUNCTION bench.zz_last" 2>/dev/null ||
	pgtest_psql -d many -c "DELETE FROM pg_catalog.pg_proc WHERE proname = 'zz_last'" >/dev/null

# --- the connection dropping mid-stream ---------------------------------------------
# A watcher inside the server polls every millisecond for cgmap's backend
# running the function query (the only one that deparses arguments) and
# terminates it; retried when a run was too quick to catch.
watch_and_terminate() {
	pgtest_psql -d many -c "DO \$\$
	DECLARE deadline timestamptz := clock_timestamp() + interval '30 s'; hit boolean := false;
	BEGIN
		WHILE NOT hit AND clock_timestamp() < deadline LOOP
			PERFORM pg_stat_clear_snapshot();
			SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) INTO hit
			  FROM pg_stat_activity
			 WHERE application_name = 'cgmap' AND state = 'active'
			   AND query LIKE '%pg_get_function_arguments%';
			IF NOT hit THEN PERFORM pg_sleep(0.001); END IF;
		END LOOP;
		RAISE NOTICE 'terminated: %', hit;
	END \$\$" 2>&1
}
caught=0
for attempt in 1 2 3 4 5; do
	watch_and_terminate >"$work/watch.out" &
	watcher=$!
	sleep 0.2 # the watcher is polling
	set +e
	"$cgmap" --dsn dbname=many --out "$work/lost" --no-runtime --no-html --quiet 2>"$work/lost.err"
	rc=$?
	set -e
	if [ "$rc" = 0 ]; then
		# Too quick: stop the watcher and try again.
		pgtest_psql -d many -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
			WHERE query LIKE '%pg_stat_clear_snapshot%' AND pid <> pg_backend_pid()" >/dev/null
		wait "$watcher" || true
		continue
	fi
	wait "$watcher" || true
	grep -q 'terminated: t' "$work/watch.out" ||
		pgtest_fail "cgmap failed on its own (exit $rc): $(cat "$work/lost.err")"
	[ "$rc" = 4 ] || pgtest_fail "a connection lost mid-stream exits $rc, not 4: $(cat "$work/lost.err")"
	# libpq reports the server's FATAL when it read it before the socket closed.
	grep -Eq 'cannot read functions from "pg_proc": .*(terminating connection|server closed the connection)' \
		"$work/lost.err" || pgtest_fail "unexpected message: $(cat "$work/lost.err")"
	caught=1
	break
done
[ "$caught" = 1 ] || pgtest_fail "never caught the function query running in 5 attempts"
echo "test_map_stream: ok"
