#!/usr/bin/env bash
# test_map_demo.sh - `cgmap --dsn ... --out DIR` on a real PostgreSQL 15
# loaded with fixtures/demo.sql: the exact edge set, sites, missing callees,
# parse errors, references, determinism, valid DOT, exit codes, scope
# options, the libpq environment and a read-only role.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"
pgtest_start
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

pgtest_psql -c "CREATE DATABASE demo" >/dev/null
pgtest_psql -d demo -f "$src/fixtures/demo.sql" >/dev/null

# --- the map itself ---------------------------------------------------------
"$cgmap" --dsn "dbname=demo" --out "$work/a" --no-runtime --snapshot-format 1 2>"$work/a.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/a.err")"
"$cgmap" report edges "$work/a" >"$work/edges"
pgtest_expect_file "$src/fixtures/expected/demo.edges" "$work/edges" "edge set"

grep -q 'app.broken(): line 3: syntax error' "$work/a.err" ||
	pgtest_fail "the parse error of app.broken() is not reported with its line: $(cat "$work/a.err")"
grep -q '26 functions (26 analysed, 0 not analysed), 23 edges, 1 dynamic site, 1 missing callee, 0 ambiguous calls, 1 function with parse errors' "$work/a.err" ||
	pgtest_fail "unexpected summary: $(cat "$work/a.err")"

"$cgmap" report missing "$work/a" >"$work/missing"
grep -q 'app.legacy_sync() line 3: no function app.sync_to_legacy(integer) exists' "$work/missing" ||
	pgtest_fail "missing callee not reported: $(cat "$work/missing")"

# The snapshot of a/ is written in format 1 (--snapshot-format 1), whose
# text the greps below read: ids in full, "key": value.
snap=$work/a/cgmap.json
grep -q '"function": "app.run_report(text)",' "$snap" || pgtest_fail "no dynamic site of app.run_report(text)"
grep -q '"text": "format('"'"'SELECT app.%I()'"'"', report_name)"' "$snap" ||
	pgtest_fail "the dynamic site's expression is not recorded"
grep -q '"object": "rule _RETURN on view app.my_orders"' "$snap" || pgtest_fail "view reference missing"
grep -q '"object": "default value for column code of table app.tickets"' "$snap" ||
	pgtest_fail "default reference missing"
grep -q '"comment": "Price, discount and place an order."' "$snap" || pgtest_fail "comment missing"
grep -q '"id": "\\"Odd Schema\\".\\"Weird \\"\\"Name\\"\\"\\"(integer)"' "$snap" ||
	pgtest_fail "quoted identity missing"
if grep -q 'information_schema' "$snap"; then pgtest_fail "catalog functions leaked into the map"; fi

# --- deterministic, valid DOT ------------------------------------------------
"$cgmap" --dsn "dbname=demo" --out "$work/b" --no-runtime --snapshot-format 1 2>/dev/null
# The page records (.cgmap-pages) hold the files' inodes and times: no output.
diff -r -x .cgmap-pages "$work/a" "$work/b" >/dev/null || pgtest_fail "two runs on the same database differ"
dot -Tsvg "$work/a/callgraph.dot" >"$work/graph.svg" 2>"$work/dot.err" ||
	pgtest_fail "dot rejects callgraph.dot: $(cat "$work/dot.err")"

# --- the libpq environment instead of --dsn -----------------------------------
PGDATABASE=demo "$cgmap" --out "$work/env" --no-runtime --snapshot-format 1 2>/dev/null
cmp -s "$work/a/cgmap.json" "$work/env/cgmap.json" || pgtest_fail "PGDATABASE gives another map"

# --- scope ---------------------------------------------------------------------
"$cgmap" --dsn dbname=demo --out "$work/scoped" --no-runtime --schema app --exclude-schema 'aud*' 2>/dev/null
"$cgmap" report functions "$work/scoped" >"$work/scoped.functions"
if grep -q '^audit\.' "$work/scoped.functions"; then pgtest_fail "--exclude-schema kept audit"; fi
grep -q '^app.a()' "$work/scoped.functions" || pgtest_fail "--schema app lost app.a()"
# audit.write is out of scope but exists: no missing callee, no edge.
"$cgmap" report missing "$work/scoped" | grep -q 'audit.write' && pgtest_fail "an out-of-scope function became a missing callee"

"$cgmap" --dsn dbname=demo --out "$work/builtins" --no-runtime --include-builtins 2>/dev/null
"$cgmap" report edges "$work/builtins" | grep -q '^app.new_ticket_code() -> md5(text) via call static lines 1' ||
	pgtest_fail "--include-builtins shows no edge to md5(text)"

pgtest_psql -d demo -c "CREATE EXTENSION pgcrypto" >/dev/null
"$cgmap" --dsn dbname=demo --out "$work/noext" --no-runtime --snapshot-format 1 2>/dev/null
cmp -s "$work/a/cgmap.json" "$work/noext/cgmap.json" || pgtest_fail "extension functions were mapped without --include-extensions"
"$cgmap" --dsn dbname=demo --out "$work/ext" --no-runtime --include-extensions --snapshot-format 1 2>/dev/null
grep -q '"id": "public.digest(text,text)"' "$work/ext/cgmap.json" || pgtest_fail "--include-extensions did not map pgcrypto"

# --- a read-only role with USAGE only ------------------------------------------
pgtest_psql -d demo -c "CREATE ROLE reader LOGIN" \
	-c 'GRANT USAGE ON SCHEMA app, audit, "Odd Schema" TO reader' >/dev/null
"$cgmap" --dsn "dbname=demo user=reader" --out "$work/reader" --no-runtime --no-html 2>"$work/reader.err" ||
	pgtest_fail "a USAGE-only role cannot map: $(cat "$work/reader.err")"
"$cgmap" report edges "$work/reader" >"$work/reader.edges"
pgtest_expect_file "$src/fixtures/expected/demo.edges" "$work/reader.edges" "edge set as a read-only role"

# --- statement forms that trip catalog-less parsers ------------------------------
pgtest_psql -c "CREATE DATABASE forms" >/dev/null
pgtest_psql -d forms -f "$src/fixtures/forms.sql" >/dev/null
"$cgmap" --dsn dbname=forms --out "$work/forms" --no-runtime --no-html 2>"$work/forms.err"
grep -q ' 0 functions with parse errors' "$work/forms.err" || pgtest_fail "forms: $(cat "$work/forms.err")"
"$cgmap" report edges "$work/forms" >"$work/forms.edges"
pgtest_expect_file "$src/fixtures/expected/forms.edges" "$work/forms.edges" "edges of fixtures/forms.sql"

# --- exit codes -----------------------------------------------------------------
set +e
"$cgmap" --dsn "postgresql://someone:sekret@127.0.0.1:1/nodb" --out "$work/x" 2>"$work/conn.err"
rc=$?
set -e
[ "$rc" = 4 ] || pgtest_fail "connection failure exits $rc, not 4 (an input cannot be read)"
grep -q 'cannot connect' "$work/conn.err" || pgtest_fail "no connection message: $(cat "$work/conn.err")"
if grep -q sekret "$work/conn.err"; then pgtest_fail "the password was printed"; fi
set +e
"$cgmap" --dsn dbname=demo 2>/dev/null; rc1=$?
"$cgmap" --bogus 2>/dev/null; rc2=$?
set -e
[ "$rc1" = 1 ] || pgtest_fail "no --out exits $rc1, not 1"
[ "$rc2" = 1 ] || pgtest_fail "an unknown option exits $rc2, not 1"
# Bare cgmap lists the commands, as git does; -o is an output file in every
# command, so map and render refuse it and name --out.
set +e
"$cgmap" >"$work/bare.out" 2>&1; rc1=$?
"$cgmap" --sql "$src/fixtures/demo.sql" -o "$work/short" 2>"$work/short.err"; rc2=$?
"$cgmap" render "$work/a" -o "$work/short" 2>>"$work/short.err"; rc3=$?
set -e
[ "$rc1" = 1 ] || pgtest_fail "bare cgmap exits $rc1, not 1"
grep -q '^  impact ' "$work/bare.out" || pgtest_fail "bare cgmap lists no commands: $(cat "$work/bare.out")"
[ "$rc2" = 1 ] && [ "$rc3" = 1 ] || pgtest_fail "map/render -o exit $rc2/$rc3, not 1"
[ "$(grep -c -- "give the output folder with --out DIR" "$work/short.err")" = 2 ] ||
	pgtest_fail "map/render -o: $(cat "$work/short.err")"
[ ! -e "$work/short" ] || pgtest_fail "map/render -o wrote something"
"$cgmap" --version | grep -q '^cgmap ' || pgtest_fail "--version"
"$cgmap" --help | grep -q -- '--dsn' || pgtest_fail "--help lists no --dsn"
echo "test_map_demo: ok"
