#!/usr/bin/env bash
# test_output_links.sh - every output cgmap writes is safe from links
# planted where it writes, and mapping again into a folder leaves no old
# page behind:
#   - `cgmap --out`, `cgmap render --out`: a link at a page's name is
#     replaced by the page (the file it pointed to is untouched); a link at
#     a subfolder's name (functions/, dot/schemas/) is refused with a
#     message naming it, and nothing is written through it;
#   - `report -o`, `diff -o`, `collect -o`: a link is refused, its target
#     untouched; a device (/dev/null) is written in place; a regular file
#     is replaced whole;
#   - a second map of fewer functions removes the first map's pages that it
#     does not write (listed in .cgmap-manifest), and no file a person put
#     in the folder.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"
# shellcheck source=../lib/pgtest.sh
source "$CGMAP_SOURCE_DIR/tests/lib/pgtest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-links.XXXXXX")
trap 'rm -rf "$work"; pgtest_stop' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'precious\n' >"$work/victim"
mkdir "$work/elsewhere"
victim_intact() {
	[ "$(cat "$work/victim")" = precious ] || fail "$1 wrote through a link into the file it points to"
	[ -z "$(ls -A "$work/elsewhere")" ] || fail "$1 wrote through a folder link: $(ls -A "$work/elsewhere")"
}
# expect_refused WHAT PATTERN CMD...: exit 5 (an output cannot be written) with PATTERN in the message.
expect_refused() {
	local what=$1 pattern=$2 rc=0
	shift 2
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" = 5 ] || { cat "$work/err" >&2; fail "$what: exit $rc, not 5"; }
	grep -qF -- "$pattern" "$work/err" || { cat "$work/err" >&2; fail "$what: no '$pattern' in the message"; }
}

# A map with planted links at page names: replaced, never followed.
mkdir -p "$work/map/functions"
ln -s "$work/victim" "$work/map/index.html"
ln -s "$work/victim" "$work/map/search-index.js"
ln -s "$work/victim" "$work/map/cgmap.json"
"$CGMAP" --sql "$CGMAP_SOURCE_DIR/fixtures/demo.sql" --out "$work/map" --dot-sources --quiet 2>"$work/err" ||
	{ cat "$work/err" >&2; fail "map failed"; }
victim_intact "cgmap --out"
for f in index.html search-index.js cgmap.json; do
	[ -f "$work/map/$f" ] && [ ! -L "$work/map/$f" ] || fail "$f is not a regular file"
done
page=$(ls "$work/map/functions" | head -n 1)
ln -sf "$work/victim" "$work/map/functions/$page"
"$CGMAP" render "$work/map/cgmap.json" --out "$work/map" --dot-sources --quiet ||
	fail "render into the map's folder failed"
victim_intact "cgmap render --out"
[ ! -L "$work/map/functions/$page" ] || fail "the planted page link is still there"

# Folder links: refused by name, before anything is written.
for sub in functions dot/schemas assets; do
	rm -rf "$work/site"
	mkdir -p "$work/site/$(dirname "$sub")"
	ln -s "$work/elsewhere" "$work/site/$sub"
	expect_refused "render with $sub a link" "site/$sub\": it is a symbolic link" \
		"$CGMAP" render "$work/map/cgmap.json" --out "$work/site" --quiet
	victim_intact "cgmap render --out (link at $sub)"
	[ ! -e "$work/site/index.html" ] || fail "pages were written before the link at $sub was refused"
done
rm -rf "$work/site"
mkdir -p "$work/site"
ln -s "$work/elsewhere" "$work/site/functions"
expect_refused "map with functions/ a link" "site/functions\": it is a symbolic link" \
	"$CGMAP" --sql "$CGMAP_SOURCE_DIR/fixtures/demo.sql" --out "$work/site" --quiet
victim_intact "cgmap --out (link at functions)"

# Single output files.
ln -s "$work/victim" "$work/report.txt"
expect_refused "report -o a link" "report.txt\": it is a symbolic link" \
	"$CGMAP" report dead "$work/map/cgmap.json" -o "$work/report.txt"
victim_intact "cgmap report -o"
"$CGMAP" report functions "$work/map/cgmap.json" -o /dev/null || fail "report -o /dev/null failed"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
printf 'old\n' >"$work/plain.txt"
"$CGMAP" report functions "$work/map/cgmap.json" -o "$work/plain.txt"
"$CGMAP" report functions "$work/map/cgmap.json" >"$work/plain.want"
cmp -s "$work/plain.txt" "$work/plain.want" || fail "report -o FILE differs from the report on stdout"
ln -s "$work/victim" "$work/diff.md"
expect_refused "diff -o a link" "diff.md\": it is a symbolic link" \
	"$CGMAP" diff "$work/map/cgmap.json" "$work/map/cgmap.json" --format markdown -o "$work/diff.md"
victim_intact "cgmap diff -o"
if ls -A "$work" | grep -q '\.tmp\.'; then fail "a temporary file was left: $(ls -A "$work")"; fi

# Mapping again into the folder: the old pages go, the person's files stay.
printf 'mine\n' >"$work/map/NOTES.md"
printf 'mine\n' >"$work/map/functions/mine.html"
before=$(find "$work/map/functions" -name '*.html' | wc -l)
cat >"$work/small.sql" <<'SQL'
CREATE SCHEMA app;
CREATE FUNCTION app.solo() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;
SQL
"$CGMAP" --sql "$work/small.sql" --out "$work/map" --quiet
after=$(find "$work/map/functions" -name '*.html' | wc -l)
[ "$before" -gt 3 ] || fail "the first map wrote only $before function pages"
[ "$after" = 2 ] || fail "after the second map $after function pages remain, not 2 (app.solo() and mine.html): $(ls "$work/map/functions")"
[ -f "$work/map/NOTES.md" ] && [ -f "$work/map/functions/mine.html" ] || fail "a person's file was removed"
[ "$(find "$work/map/schemas" -name '*.html' | wc -l)" = 1 ] || fail "old schema pages remain"
# Mapped again without --dot-sources: the earlier run's DOT files go too.
[ "$(find "$work/map/dot" -name '*.dot' | wc -l)" = 0 ] || fail "old DOT files remain"
grep -qx 'functions/app.solo-[0-9a-f]\{8\}\.html' "$work/map/.cgmap-manifest" ||
	fail "the manifest does not list the new page"

# collect -o needs a server.
pgtest_start
pgtest_psql -c "CREATE FUNCTION public.f() RETURNS integer LANGUAGE sql AS 'SELECT 1'" postgres
ln -s "$work/victim" "$work/runtime.json"
expect_refused "collect -o a link" "runtime.json\": it is a symbolic link" \
	"$CGMAP" collect -o "$work/runtime.json"
victim_intact "cgmap collect -o"
"$CGMAP" collect -o "$work/runtime2.json" || fail "collect -o FILE failed"
grep -q '"functions"' "$work/runtime2.json" || fail "collect wrote no runtime file"
echo "ok: links refused or replaced, never followed; old pages removed, a person's files kept"
