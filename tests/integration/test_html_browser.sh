#!/usr/bin/env bash
# test_html_browser.sh - the HTML site in a real browser (headless Chromium):
# pages load from file:// without console errors, the search finds a
# function, graph nodes open the right pages, tables sort, the index reads
# without JavaScript; hostile names never run.  Twice:
#   1. the committed snapshot fixtures/html/demo.json (hostile names, runtime
#      data, every report non-empty), rendered offline by `cgmap render`;
#   2. a live map of fixtures/demo.sql in a throwaway PostgreSQL.
# Screenshots are kept in $CGMAP_BUILD_DIR/artifacts/html/.
#
# Needs chromium (installed here when run as root, else skipped: exit 77)
# and node (the DevTools driver tests/browser/check_site.js uses nothing else).
set -euo pipefail

: "${CGMAP:?set CGMAP to the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?set CGMAP_SOURCE_DIR}"
: "${CGMAP_BUILD_DIR:?set CGMAP_BUILD_DIR}"

chromium_bin=""
for c in chromium chromium-browser; do
	if command -v "$c" >/dev/null 2>&1; then chromium_bin=$(command -v "$c"); break; fi
done
if [ -z "$chromium_bin" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "test_html_browser: installing chromium" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null
		chromium_bin=$(command -v chromium)
	else
		echo "test_html_browser: SKIP: chromium is not installed and this is not root (apt-get install chromium)" >&2
		exit 77
	fi
fi
if ! command -v node >/dev/null 2>&1; then
	echo "test_html_browser: SKIP: node is not installed (apt-get install nodejs)" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-html-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT
artifacts="$CGMAP_BUILD_DIR/artifacts/html"
rm -rf "$artifacts"
mkdir -p "$artifacts"
driver="$CGMAP_SOURCE_DIR/tests/browser/check_site.js"

# 1. The fixture snapshot, offline.
site="$work/fixture"
"$CGMAP" render "$CGMAP_SOURCE_DIR/fixtures/html/demo.json" --out "$site" --quiet
# Same snapshot, same bytes (one worker and two).
"$CGMAP" render "$CGMAP_SOURCE_DIR/fixtures/html/demo.json" --out "$work/again" --threads 1 --quiet
if ! diff -r -x .cgmap-pages "$site" "$work/again" >/dev/null; then
	echo "FAIL: two renderings of the same snapshot differ" >&2
	diff -r -x .cgmap-pages "$site" "$work/again" | head -20 >&2
	exit 1
fi
node "$driver" --chromium "$chromium_bin" --site "$site" --artifacts "$artifacts/fixture" \
	--search fact --expect 'app.fact(integer)' \
	--search '<script>' --expect 'public."""<script>alert(1)</script>"""(text)' \
	--search 'été' --expect '"Odd Schema"."Weird ""Name""\ été"()' \
	--search orders --expect 'app.orders' \
	--graph-page 'app.work()' --graph-page 'app.dyn()' --expect-timeline \
	--graph-page 'public."""<script>alert(1)</script>"""(text)'

# 2. A live map of the demo schema.
if [ ! -f "$CGMAP_SOURCE_DIR/fixtures/demo.sql" ]; then
	echo "test_html_browser: fixtures/demo.sql is missing: live part skipped" >&2
	rm -rf "$work"
	exit 0
fi
# shellcheck source=../lib/pgtest.sh
source "$CGMAP_SOURCE_DIR/tests/lib/pgtest.sh"
cleanup() { pgtest_stop; rm -rf "$work"; }
pgtest_start
trap cleanup EXIT
pgtest_psql -f "$CGMAP_SOURCE_DIR/fixtures/demo.sql" >/dev/null
"$CGMAP" --dsn "dbname=$PGDATABASE" --out "$work/live" --dot-sources --quiet
node "$driver" --chromium "$chromium_bin" --site "$work/live" --artifacts "$artifacts/live" \
	--search acb --expect 'app.acb(integer)' \
	--search my_orders --expect 'app.my_orders' \
	--graph-page 'app.ac()' --graph-page 'app.checkout(text,integer)'
# `cgmap render` of the map's own snapshot gives the same site.
"$CGMAP" render "$work/live/cgmap.json" --out "$work/rerendered" --dot-sources --quiet
for d in index.html search-index.js functions schemas reports dot assets profile; do
	[ -e "$work/live/$d" ] || [ -e "$work/rerendered/$d" ] || continue
	if ! diff -r "$work/live/$d" "$work/rerendered/$d" >/dev/null; then
		echo "FAIL: 'cgmap render cgmap.json' differs from the mapped site in $d" >&2
		exit 1
	fi
done
echo "test_html_browser: screenshots in $artifacts" >&2
