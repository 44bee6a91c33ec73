#!/usr/bin/env bash
# test_owner_paths.sh - a function without a SET search_path of its own
# has its unqualified calls placed through its owner's sessions' path
# (ALTER ROLE ... [IN DATABASE ...] SET search_path, "$user" the owner):
# fixtures/roles/owner_paths.sql gives fixtures/expected/owner_paths.edges
# from the live database, from the file and from pg_dumpall --globals-only
# with pg_dump --create, no missing callee and the owners' paths in the snapshot
# (pg_dump alone: the missing callees, with a hint); --search-path still
# wins over them.
# Then the application's roles log in and run it under
# `cgmap_trace.track = all`: every edge is observed, nothing unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
expected=$src/fixtures/expected/owner_paths.edges
what="calls placed through their owners' paths"
# The database's name is the one the fixture's ALTER ROLE ... IN DATABASE
# names.
pgtest_traced_fixture "$work" owner_paths "$src/fixtures/roles/owner_paths.sql" "$expected" "$what"

for side in static sql; do
	missing=$(jq '.missing | length' "$work/$side/cgmap.json")
	[ "$missing" = 0 ] || pgtest_fail "$side: $missing missing callees"
	paths=$(jq -r '.functions[] | select(.id | test("^(app.total|reports.detail)"))
		| "\(.id) \(.owner) \(.owner_search_path | join(","))"' "$work/$side/cgmap.json")
	[ "$paths" = "app.total(integer) app_owner app,util,public
reports.detail() reports reports,app,util" ] || pgtest_fail "$side: owners' paths: $paths"
done

# pg_dump writes the owners but not their roles' settings: its map has
# missing callees, and says where they are and what would place them.
"$PGTEST_BIN/pg_dump" -d owner_paths --schema-only -f "$work/dump.sql"
"$CGMAP" --sql "$work/dump.sql" --out "$work/dump" --no-html 2>"$work/dump.err" ||
	pgtest_fail "cgmap --sql of the dump failed: $(cat "$work/dump.err")"
grep -q 'of the missing callees name a function of a schema not on the search_path ("app" most often)' \
	"$work/dump.err" || pgtest_fail "no hint for the missing callees: $(cat "$work/dump.err")"
# The roles' own settings are in pg_dumpall --globals-only, those for one
# database in pg_dump --create: both give every edge.
"$PGTEST_BIN/pg_dumpall" -g -f "$work/globals.sql"
"$PGTEST_BIN/pg_dump" -d owner_paths --schema-only --create -f "$work/create.sql"
"$CGMAP" --sql "$work/globals.sql" "$work/create.sql" --out "$work/dumpall" --no-html 2>/dev/null ||
	pgtest_fail "cgmap --sql of the globals and the dump failed"
"$CGMAP" report edges "$work/dumpall" >"$work/dumpall.edges"
pgtest_expect_file "$expected" "$work/dumpall.edges" "$what (pg_dumpall -g, pg_dump --create)"

# The application's path, given, places every call instead: public.score
# is the `score` of a path without app.
"$CGMAP" --dsn "dbname=owner_paths" --search-path public --out "$work/given" --no-html \
	--no-runtime 2>"$work/given.err" || pgtest_fail "cgmap failed: $(cat "$work/given.err")"
"$CGMAP" report edges "$work/given" >"$work/given.edges"
grep -q '^app.total(integer) -> public.score(integer) ' "$work/given.edges" ||
	pgtest_fail "--search-path did not win: $(cat "$work/given.edges")"
[ "$(jq .source.search_path_given "$work/given/cgmap.json")" = true ] ||
	pgtest_fail "the snapshot does not say the path was given"

# Each role logs in, so its own settings make its sessions' path.
pgtest_psql -d owner_paths -c "SELECT cgmap_trace_reset()" >/dev/null
pgtest_psql -d owner_paths -U app_owner -c "SELECT app.entry()" >"$work/run1" ||
	pgtest_fail "app.entry() failed"
pgtest_psql -d owner_paths -U reports -c "SELECT reports.summary()" >"$work/run2" ||
	pgtest_fail "reports.summary() failed"
"$CGMAP" --dsn "dbname=owner_paths" --out "$work/map" 2>"$work/map.err" ||
	pgtest_fail "cgmap failed: $(cat "$work/map.err")"
pgtest_expect_traced "$expected" "$work/map" "$what"
echo "ok: $(wc -l <"$work/map.both") $what observed and explained"
