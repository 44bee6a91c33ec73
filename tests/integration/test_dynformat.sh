#!/usr/bin/env bash
# test_dynformat.sh - EXECUTE format(...) over constant arguments:
# fixtures/dynformat.sql gives the edges of fixtures/expected/dynformat.edges
# (via dynamic_literal, identifiers quoted as quote_ident() quotes them,
# positions n$ followed) read as SQL files and live; a format() whose names
# are known only at run time stays a dynamic site whose possible targets
# are narrowed by the constant names it spells, and the calls it spells
# by constant names are static edges (app.runtime_parts), and so are the
# event triggers of the command its constant parts spell (app.runtime_ddl).
# Then, run with cgmap_trace
# (`track = all`), PostgreSQL is the judge: every static edge is observed
# from its caller, the dynamic sites' observed targets are among their
# possible ones, and nothing is left unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
. "$src/tests/lib/pgtest.sh"

skip() { echo "SKIP: $*" >&2; exit 77; }
command -v jq >/dev/null 2>&1 || skip "jq not found (scripts/setup.sh --tests installs it)"
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

# The possible targets of the dynamic site of function $2 in snapshot $1.
possible() {
	jq -r --arg f "$2" '[.functions[].id] as $ids
		| .dynamic_sites[] | select($ids[.function] == $f)
		| [.possible_targets[] | $ids[.]] | sort | join(" ")' "$1"
}
# The same for what was observed at runtime.
observed() {
	jq -r --arg f "$2" '[.functions[].id] as $ids
		| .dynamic_sites[] | select($ids[.function] == $f)
		| [.observed_targets[] | $ids[.]] | sort | join(" ")' "$1"
}
check_sites() { # $1 snapshot, $2 what
	local got
	got=$(possible "$1/cgmap.json" 'app.by_schema(text)')
	[ "$got" = "app.handler(integer) other.handler(integer)" ] ||
		pgtest_fail "by_schema's possible targets ($2): '$got', want both handlers only"
	got=$(possible "$1/cgmap.json" 'app.by_name(text)')
	[ "$got" = 'app."select"(text) app.by_name(text) app.by_schema(text) app.handler(integer) app.other(integer) app.runtime_ddl(text) app.target(integer)' ] ||
		pgtest_fail "by_name's possible targets ($2): '$got', want app's one-argument functions"
}

"$cgmap" --sql "$src/fixtures/dynformat.sql" --out "$work/sql" --no-html 2>"$work/sql.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
"$cgmap" report edges "$work/sql" >"$work/sql.edges"
pgtest_expect_file "$src/fixtures/expected/dynformat.edges" "$work/sql.edges" "edges of constant format() (SQL files)"
check_sites "$work/sql" "SQL files"

pgtest_install_trace "$work"

pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
pgtest_psql -c "CREATE DATABASE df" >/dev/null
pgtest_psql -d df -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION cgmap_trace" -f "$src/fixtures/dynformat.sql" >/dev/null

"$cgmap" --dsn "dbname=df" --out "$work/static" --no-html --no-runtime 2>"$work/static.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/static.err")"
"$cgmap" report edges "$work/static" >"$work/static.edges"
pgtest_expect_file "$src/fixtures/expected/dynformat.edges" "$work/static.edges" "edges of constant format() (live)"
check_sites "$work/static" "live"

# PostgreSQL's own format() gives the same value (one sum of every call).
got=$(pgtest_psql -d df -Atc "SELECT cgmap_trace_reset()" -c "SELECT app.workload()" | tail -1)
[ "$got" = 93 ] || pgtest_fail "app.workload() returned '$got', want 93 (1+6+2+4+18, 21, 8, 27+5, 1)"
"$cgmap" --dsn "dbname=df" --out "$work/traced" --no-html 2>"$work/traced.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
pgtest_expect_traced "$src/fixtures/expected/dynformat.edges" "$work/traced" "calls of constant format()"
got=$(observed "$work/traced/cgmap.json" 'app.by_schema(text)')
[ "$got" = "other.handler(integer)" ] || pgtest_fail "by_schema observed '$got', want other.handler(integer)"
got=$(observed "$work/traced/cgmap.json" 'app.by_name(text)')
[ "$got" = "app.target(integer)" ] || pgtest_fail "by_name observed '$got', want app.target(integer)"
echo "ok: $(wc -l <"$work/traced.both") edges static and observed, 2 dynamic sites observed among their possible targets"
