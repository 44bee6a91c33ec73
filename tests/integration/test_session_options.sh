#!/usr/bin/env bash
# test_session_options.sh - a schema loaded by sessions whose options set
# the search_path (PGOPTIONS='-c search_path=app,public', as MusicBrainz's
# loader sets it): fixtures/session_options.sql creates its functions
# unqualified, so the database has them in app, one in public under a
# SET, and RESET returns to app.  Mapped with the same environment, the
# database and the file give fixtures/expected/session_options.edges and
# the same default path; without it the file's functions are public's, as
# psql would have made them.  The application's sessions, with the same
# options, run every edge under `cgmap_trace.track = all`: all observed,
# nothing unexplained.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT
fixture=$src/fixtures/session_options.sql
expected=$src/fixtures/expected/session_options.edges
PGTEST_SESSION_OPTIONS='-c search_path=app,\ public'
pgtest_traced_fixture "$work" session_options "$fixture" "$expected" \
	"functions created under the session options' search_path"

for side in static sql; do
	path=$(jq -c .source.default_search_path "$work/$side/cgmap.json")
	[ "$path" = '["pg_catalog","app","public"]' ] || pgtest_fail "$side: default path $path"
	[ "$(jq '.missing | length' "$work/$side/cgmap.json")" = 0 ] || pgtest_fail "$side: missing callees"
done

# Without the options, psql would have made them in public.
PGOPTIONS= "$CGMAP" --sql "$fixture" --out "$work/plain" --no-html 2>"$work/plain.err" ||
	pgtest_fail "cgmap --sql failed: $(cat "$work/plain.err")"
ids=$(jq -r '[.functions[].id] | sort | join(" ")' "$work/plain/cgmap.json")
[ "$ids" = "public.base(integer) public.later(integer) public.score(integer) public.total(integer)" ] ||
	pgtest_fail "without PGOPTIONS the file's functions are $ids"

# A path too long to be a search_path is said, not cut.
long=$(printf 'a%.0s' $(seq 1 1100))
if PGOPTIONS="-c search_path=$long" "$CGMAP" --sql "$fixture" --out "$work/long" --no-html \
	2>"$work/long.err"; then
	pgtest_fail "a search_path of 1,100 bytes in PGOPTIONS was taken"
fi
grep -q 'search_path in the session options (PGOPTIONS) is longer than' "$work/long.err" ||
	pgtest_fail "no clear error for a long PGOPTIONS path: $(cat "$work/long.err")"

pgtest_psql -d session_options -c "SELECT cgmap_trace_reset()" -c "SELECT later(3)" >/dev/null
"$CGMAP" --dsn dbname=session_options --out "$work/traced" --no-html --min-window 0 \
	2>"$work/traced.err" || pgtest_fail "cgmap failed: $(cat "$work/traced.err")"
"$CGMAP" report edges "$work/traced" >"$work/traced.edges"
pgtest_expect_edge "$work/traced.edges" yes \
	"app.later(integer) -> app.score(integer) via call" \
	"app.later(integer) -> app.total(integer) via call" \
	"app.total(integer) -> app.score(integer) via call" \
	"app.total(integer) -> public.base(integer) via call"
"$CGMAP" report unexplained "$work/traced" | grep -v '^#' >"$work/unexplained" || true
[ ! -s "$work/unexplained" ] || pgtest_fail "unexplained: $(cat "$work/unexplained")"
echo "ok: the session options' path places the file's functions as it placed the database's"
