#!/usr/bin/env bash
# test_config.sh - the project configuration (.cgmap.yml, docs/config.md)
# as map, report and diff use it, from SQL files (no server needed):
#   - found in the working folder, or given with --config, or none with
#     --no-config;
#   - a declared dynamic call is an edge `via dynamic`, static and declared,
#     at the site's line; the site is "declared", not unseen;
#   - a kept function is a root with its reason; config entry patterns are
#     roots too;
#   - applied to a snapshot mapped without it, by report;
#   - diff leaves out the findings it ignores, says how many, and exits on
#     what is left;
#   - --schema on the command line wins over the file's schemas;
#   - the application's search_path (--search-path, search_path:) places
#     unqualified calls as PostgreSQL does under it;
#   - a bad file exits 4 naming FILE:LINE, and nothing is written.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-config.XXXXXX")
trap 'rm -rf "$work"' EXIT
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }
fx=$CGMAP_SOURCE_DIR/fixtures/config
demo=$CGMAP_SOURCE_DIR/fixtures/demo.sql

expect_rc() {
	local want=$1 got=0
	shift
	"$@" || got=$?
	[ "$got" = "$want" ] || fail "exit $got, not $want: $*"
}
expect_line() { # FILE LINE: the file holds the exact line
	grep -qxF -- "$2" "$1" || { cat "$1" >&3; fail "no line '$2' in $1"; }
}

# --- found in the working folder ------------------------------------------------
mkdir "$work/project"
cp "$fx/cgmap.yml" "$work/project/.cgmap.yml"
(cd "$work/project" && "$CGMAP" --sql "$demo" --out out 2>"$work/map.err")
expect_line "$work/map.err" "cgmap: 1 dynamic site: 1 declared in the configuration (none observed: no call edges in the runtime data)"
(cd "$work/project" && "$CGMAP" report edges out) >"$work/edges.txt"
expect_line "$work/edges.txt" "app.run_report(text) -> app.a() via dynamic static lines 6 declared: report names come from the reports table"
expect_line "$work/edges.txt" "app.run_report(text) -> app.ab() via dynamic static lines 6 declared: report names come from the reports table"
(cd "$work/project" && "$CGMAP" report dynamic out) >"$work/dynamic.txt"
grep -qF "app.run_report(text) line 6: dynamic, declared -> app.a() app.ab()" "$work/dynamic.txt" ||
	fail "dynamic report: $(cat "$work/dynamic.txt")"
(cd "$work/project" && "$CGMAP" report functions out) >"$work/functions.txt"
grep -qF "app.legacy_sync() reachable root kept: called by the nightly cron job through psql" \
	"$work/functions.txt" || fail "kept: $(grep legacy "$work/functions.txt")"
grep -q '^app.checkout(text,integer) reachable root' "$work/functions.txt" || fail "config entry is no root"
# app.a() was a root only because nothing called it: now the declared call reaches it.
grep -q '^app.a() reachable root' "$work/functions.txt" && fail "app.a() still a root"
[ "$(jq -r '.functions[] | select(.id == "app.legacy_sync()") | .status.kept' "$work/project/out/cgmap.json")" = \
	"called by the nightly cron job through psql" ] || fail "snapshot: no kept reason"
[ "$(jq '[.edges[] | select(.declared)] | length' "$work/project/out/cgmap.json")" = 2 ] ||
	fail "snapshot: not 2 declared edges"
grep -q 'title="kept by the project configuration: called by the nightly cron job through psql"' \
	"$work"/project/out/functions/app.legacy_sync*.html || fail "HTML: no kept badge"

# --- --no-config, --config FILE --------------------------------------------------
(cd "$work/project" && "$CGMAP" --sql "$demo" --out plain --no-html --no-config 2>/dev/null)
[ "$(jq '[.edges[] | select(.declared)] | length' "$work/project/plain/cgmap.json")" = 0 ] ||
	fail "--no-config still declared edges"
"$CGMAP" --sql "$demo" --out "$work/given" --no-html --config "$fx/cgmap.yml" 2>/dev/null
[ "$(jq '[.edges[] | select(.declared)] | length' "$work/given/cgmap.json")" = 2 ] ||
	fail "--config FILE: not 2 declared edges"
expect_rc 1 "$CGMAP" --sql "$demo" --out "$work/both" --config "$fx/cgmap.yml" --no-config 2>/dev/null

# --- a snapshot mapped without it, reported with it ------------------------------
"$CGMAP" report edges "$work/project/plain" --config "$fx/cgmap.yml" >"$work/late.txt"
cmp -s "$work/late.txt" "$work/edges.txt" || { diff "$work/edges.txt" "$work/late.txt" >&3; fail "late config differs"; }

# --- diff ignores -----------------------------------------------------------------
cd "$work/project"
expect_rc 2 "$CGMAP" diff --sql "$fx/base.sql" --sql "$fx/head.sql" --format text >"$work/diff.txt" 2>"$work/diff.err"
grep -q 'app.pay(numeric)' "$work/diff.txt" || fail "diff: the pay change is gone: $(cat "$work/diff.txt")"
grep -q '^body-changed  *app.log_event' "$work/diff.txt" && fail "diff: the ignored log_event change is reported"
expect_line "$work/diff.err" "cgmap diff: 1 finding ignored by .cgmap.yml (diff.ignore)"
grep -qF "1 finding in 1 function: 1 body-changed; 1 more ignored by the project configuration (diff.ignore)" \
	"$work/diff.txt" || fail "the text does not count the ignored finding: $(head -3 "$work/diff.txt")"
{ "$CGMAP" diff --sql "$fx/base.sql" --sql "$fx/head.sql" --format json 2>/dev/null || true; } |
	jq -e '.ignored == 1' >/dev/null ||
	fail "JSON: no ignored count"
# Only ignored findings: no difference left.
sed -e 's/RETURN round(amount, 2);/RETURN amount;/' "$fx/head.sql" >"$work/head-log-only.sql"
expect_rc 0 "$CGMAP" diff --sql "$fx/base.sql" --sql "$work/head-log-only.sql" >/dev/null 2>&1
expect_rc 2 "$CGMAP" diff --sql "$fx/base.sql" --sql "$work/head-log-only.sql" --no-config >/dev/null 2>&1
cd "$work"

# --- the command line's schemas win ------------------------------------------------
printf 'schemas: [nothere]\n' >"$work/schemas.yml"
expect_rc 1 "$CGMAP" --sql "$demo" --out "$work/s1" --no-html --config "$work/schemas.yml" 2>"$work/s1.err"
grep -q 'pattern "nothere" matches no schema' "$work/s1.err" || fail "config schemas unused: $(cat "$work/s1.err")"
"$CGMAP" --sql "$demo" --out "$work/s2" --no-html --config "$work/schemas.yml" --schema app 2>/dev/null ||
	fail "--schema did not replace the file's schemas"

# --- the application's search_path ---------------------------------------------------
# What PostgreSQL does (checked against a server): with search_path
# "api, util", lower('A') is pg_catalog's (searched first when not named)
# and helper(x) util's; with "api, pg_catalog, util", api.lower hides
# pg_catalog.lower; a function's own SET search_path wins; without the
# path, helper does not exist.
sp=$CGMAP_SOURCE_DIR/fixtures/config/search_path.sql
edges_with() { # OUT ARGS...: the edges and missing callees of a map of $sp
	local out=$1
	shift
	"$CGMAP" --sql "$sp" --out "$work/$out" --no-html --quiet "$@" || fail "map $out: $*"
	{ "$CGMAP" report edges "$work/$out"; "$CGMAP" report missing "$work/$out" | grep -v '^#'; } |
		sed 's/ ([^()]*search_path\.sql:[0-9]*)$//' >"$work/$out.txt"
}
edges_with sp0 --no-config
# The missing callee says where a function of that name is.
expect_line "$work/sp0.txt" "api.entry(integer) line 4: no function helper(integer) exists; util.helper(integer) is in a schema not on the search_path (--search-path)"
edges_with sp1 --no-config --search-path 'api, util'
expect_line "$work/sp1.txt" "api.entry(integer) -> util.helper(integer) via call static lines 4"
grep -q 'api.lower' "$work/sp1.txt" && fail "api.lower chosen over pg_catalog.lower: $(cat "$work/sp1.txt")"
expect_line "$work/sp1.txt" "api.own() line 3: no function helper(integer) exists; util.helper(integer) is in a schema not on the search_path (--search-path)"
[ "$(jq -c .source.default_search_path "$work/sp1/cgmap.json")" = '["pg_catalog","api","util"]' ] ||
	fail "snapshot path: $(jq -c .source.default_search_path "$work/sp1/cgmap.json")"
edges_with sp2 --no-config --search-path 'API, pg_catalog, "util", "$user"'
expect_line "$work/sp2.txt" "api.entry(integer) -> api.lower(text) via call static lines 3"
expect_line "$work/sp2.txt" "api.entry(integer) -> util.helper(integer) via call static lines 4"
# From the file, as a list or as PostgreSQL's setting; the command line wins.
printf 'search_path: [api, pg_catalog, util]\n' >"$work/sp.yml"
edges_with sp3 --config "$work/sp.yml"
cmp -s "$work/sp2.txt" "$work/sp3.txt" || fail "file's list: $(cat "$work/sp3.txt")"
printf 'search_path: "api, pg_catalog, util"\n' >"$work/sp-text.yml"
edges_with sp4 --config "$work/sp-text.yml"
cmp -s "$work/sp2.txt" "$work/sp4.txt" || fail "file's setting: $(cat "$work/sp4.txt")"
edges_with sp5 --config "$work/sp.yml" --search-path 'api, util'
cmp -s "$work/sp1.txt" "$work/sp5.txt" || fail "--search-path did not win: $(cat "$work/sp5.txt")"
printf 'search_path: [api, ""]\n' >"$work/sp-bad.yml"
expect_rc 4 "$CGMAP" --sql "$sp" --out "$work/sp-bad" --config "$work/sp-bad.yml" 2>"$work/sp-bad.err"
grep -qF "sp-bad.yml:1: 'search_path' holds an empty schema name" "$work/sp-bad.err" ||
	fail "empty schema name: $(cat "$work/sp-bad.err")"
# diff maps both sides with it: no finding between the same files.
expect_rc 0 "$CGMAP" diff --sql "$sp" --sql "$sp" --no-config --search-path 'api, util' >/dev/null 2>&1

# --- a bad file: exit 4, FILE:LINE, nothing written --------------------------------
printf 'entry: [app.*]\nkeep:\n  - function: app.x\n' >"$work/bad.yml"
expect_rc 4 "$CGMAP" --sql "$demo" --out "$work/bad" --config "$work/bad.yml" 2>"$work/bad.err"
grep -qF "bad.yml:3: a keep item needs 'reason'" "$work/bad.err" || fail "bad file: $(cat "$work/bad.err")"
[ ! -e "$work/bad" ] || fail "a bad configuration still wrote output"
expect_rc 4 "$CGMAP" report dead --sql "$demo" --config "$work/bad.yml" 2>/dev/null
expect_rc 4 "$CGMAP" diff --sql "$fx/base.sql" --sql "$fx/head.sql" --config "$work/bad.yml" 2>/dev/null
# A declaration that matches nothing is said with its line, and the map goes on.
printf 'keep:\n  - function: app.gone\n    reason: r\n' >"$work/gone.yml"
"$CGMAP" --sql "$demo" --out "$work/gone" --no-html --config "$work/gone.yml" 2>"$work/gone.err"
grep -qF "gone.yml:2: keep: 'app.gone' matches no function" "$work/gone.err" || fail "no match not said: $(cat "$work/gone.err")"

echo "ok: configuration found, given or refused; declared calls, kept functions, entry patterns, diff ignores, search_path"
