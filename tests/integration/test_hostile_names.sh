#!/usr/bin/env bash
# test_hostile_names.sh - function names holding a terminal escape sequence,
# a right-to-left override, a C1 control and a TAB, mapped from SQL (no
# database): no byte of them reaches a terminal raw, whether from the
# problems cgmap lists on stderr, a text or Markdown report, or a text or
# Markdown diff; and callgraph.dot keeps "a<TAB>b" and "a b" two nodes.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

esc=$'\x1b' rlo=$'\xe2\x80\xae' csi=$'\xc2\x9b' tab=$'\t'
{
	echo "CREATE SCHEMA app;"
	echo "CREATE FUNCTION app.\"evil${esc}]0;owned${esc}\\\\${rlo}txt.exe${csi}\"() RETURNS integer LANGUAGE plpgsql AS \$\$"
	echo "BEGIN RETURN app.\"a${tab}b\"() + app.\"a b\"() + app.gone(); END \$\$;"
	echo "CREATE FUNCTION app.\"a${tab}b\"() RETURNS integer LANGUAGE sql AS 'SELECT 1';"
	echo "CREATE FUNCTION app.\"a b\"() RETURNS integer LANGUAGE sql AS 'SELECT 2';"
	echo "CREATE FUNCTION app.\"broken${esc}[2J\"() RETURNS integer LANGUAGE plpgsql AS \$\$ BEGIN RETURN ( ; END \$\$;"
} >"$work/head.sql"
echo "CREATE SCHEMA app;" >"$work/base.sql"

# No ESC, no C1 control, no right-to-left override, raw, in a file.
inert() {
	if LC_ALL=C grep -q $'\x1b\|\xc2\x9b\|\xe2\x80\xae' "$1"; then
		fail "$2 holds a raw escape or bidi control: $(LC_ALL=C cat -v "$1" | head -n 5)"
	fi
}

"$CGMAP" --sql "$work/head.sql" --out "$work/head" --no-html 2>"$work/map.err" ||
	{ cat "$work/map.err" >&2; fail "map failed"; }
inert "$work/map.err" "cgmap's stderr"
grep -qF 'broken\x1B[2J' "$work/map.err" || fail "the parse error does not name the function escaped"
"$CGMAP" --sql "$work/base.sql" --out "$work/base" --no-html --quiet

for fmt in text markdown; do
	for kind in functions missing; do
		"$CGMAP" report "$kind" "$work/head" --format "$fmt" >"$work/report.$kind.$fmt"
		inert "$work/report.$kind.$fmt" "report $kind --format $fmt"
	done
	rc=0
	"$CGMAP" diff "$work/base" "$work/head" --format "$fmt" >"$work/diff.$fmt" || rc=$?
	[ "$rc" = 2 ] || fail "diff exit $rc, not 2"
	inert "$work/diff.$fmt" "diff --format $fmt"
done
grep -qF 'evil\x1B]0;owned\x1B\\\u202Etxt.exe\u009B' "$work/report.functions.text" ||
	fail "the text report does not show the name escaped: $(cat -v "$work/report.functions.text")"
grep -qF 'evil␛\]0;owned␛\\\\\u202Etxt.exe\u009B' "$work/diff.markdown" ||
	fail "the Markdown diff does not show the name escaped: $(cat -v "$work/diff.markdown")"

# Two nodes, not one: ids are escaped one to one in callgraph.dot.
grep -qF '"app.\"a\tb\"()" [label=' "$work/head/callgraph.dot" || fail "no node for a<TAB>b"
grep -qF '"app.\"a b\"()" [label=' "$work/head/callgraph.dot" || fail "no node for a b"
if command -v dot >/dev/null; then
	n=$(dot -Tplain "$work/head/callgraph.dot" 2>/dev/null | grep -c '^node "\?app\.\\\?"a[ \\]t\?b' || true)
	[ "$n" -ge 2 ] || fail "Graphviz sees $n nodes for a<TAB>b and a b"
fi
echo "ok: hostile names shown escaped on stderr, in reports and diffs; TAB and space stay two nodes"
