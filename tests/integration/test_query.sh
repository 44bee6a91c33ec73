#!/usr/bin/env bash
# test_query.sh - `cgmap callers`, `callees`, `path` and `impact` on the demo
# schema (fixtures/demo.sql, mapped from the SQL file: no server needed):
# golden outputs in every format (fixtures/query/), the same answer from a
# snapshot and from the source mapped on the spot, runtime data merged into
# a snapshot with --runtime, the snapshot given before the functions,
# overloads used together, usage errors (a name matching nothing names the
# closest ids, arguments in the wrong order say the order) exiting 1 and
# unreadable input 4.
#
# CGMAP_UPDATE_GOLDEN=1 rewrites the golden files (review them with git diff).
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-query.XXXXXX")
trap 'rm -rf "$work"' EXIT
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }
golden_dir=$CGMAP_SOURCE_DIR/fixtures/query
demo=$CGMAP_SOURCE_DIR/fixtures/demo.sql

expect_rc() {
	local want=$1 got=0
	shift
	"$@" || got=$?
	[ "$got" = "$want" ] || fail "exit $got, not $want: $*"
}

check_golden() {
	local name=$1 actual=$2
	if [ -n "${CGMAP_UPDATE_GOLDEN:-}" ]; then
		cp "$actual" "$golden_dir/$name"
	elif ! diff -u "$golden_dir/$name" "$actual" >&3; then
		fail "$name differs from the golden output"
	fi
}

"$CGMAP" --sql "$demo" --out "$work/map" 2>/dev/null
snap=$work/map/cgmap.json

# Every query in every format, against its golden output.
for fmt in text dot json csv markdown; do
	"$CGMAP" callers app.ab "$snap" --format "$fmt" >"$work/callers.$fmt"
	check_golden "callers.$fmt" "$work/callers.$fmt"
	"$CGMAP" callees 'app.checkout(text,integer)' "$snap" --depth 2 --format "$fmt" \
		>"$work/callees.$fmt"
	check_golden "callees.$fmt" "$work/callees.$fmt"
	"$CGMAP" path app.checkout app.ab --snapshot "$snap" --format "$fmt" >"$work/path.$fmt"
	check_golden "path.$fmt" "$work/path.$fmt"
	"$CGMAP" impact app.ab app.aca --snapshot "$snap" --runtime "$golden_dir/runtime.json" \
		--format "$fmt" >"$work/impact.$fmt" 2>"$work/impact.err"
	check_golden "impact.$fmt" "$work/impact.$fmt"
done

# The source mapped on the spot gives the same answer as its snapshot.
"$CGMAP" callers app.ab --sql "$demo" >"$work/callers.live" 2>/dev/null
cmp -s "$work/callers.text" "$work/callers.live" || fail "callers from --sql differs from the snapshot"
# The folder holding the snapshot names it too.
"$CGMAP" callees 'app.checkout(text,integer)' "$work/map" --depth 2 >"$work/callees.dir"
cmp -s "$work/callees.text" "$work/callees.dir" || fail "callees from the folder differs"

# The snapshot given first, when it exists and the functions follow, is
# taken as the snapshot; otherwise the error says what is wrong.
"$CGMAP" callers "$snap" app.ab >"$work/callers.first"
cmp -s "$work/callers.text" "$work/callers.first" || fail "callers SNAPSHOT FUNC differs"
"$CGMAP" callees "$work/map" 'app.checkout(text,integer)' --depth 2 >"$work/callees.first"
cmp -s "$work/callees.text" "$work/callees.first" || fail "callees SNAPSHOT FUNC differs"
"$CGMAP" path "$snap" app.checkout app.ab >"$work/path.first"
cmp -s "$work/path.text" "$work/path.first" || fail "path SNAPSHOT FROM TO differs"
"$CGMAP" impact "$snap" app.ab app.aca --runtime "$golden_dir/runtime.json" >"$work/impact.first" 2>/dev/null
cmp -s "$work/impact.text" "$work/impact.first" || fail "impact SNAPSHOT FUNC... differs"
expect_rc 1 "$CGMAP" callers "$work/nothing.json" app.ab 2>"$work/err"
grep -qxF "cgmap: callers: give one FUNC, then the snapshot: cgmap callers FUNC [SNAPSHOT] ('$work/nothing.json' is no snapshot: no such .json file, nor a folder holding cgmap.json)" "$work/err" ||
	fail "a snapshot that is not there, given first: $(cat "$work/err")"
expect_rc 1 "$CGMAP" callees app.ab app.aca "$snap" 2>"$work/err"
grep -qF "('app.aca' is no snapshot" "$work/err" || fail "two functions to callees: $(cat "$work/err")"
expect_rc 1 "$CGMAP" path app.ab app.aca app.checkout 2>"$work/err"
grep -qF "cgmap: path: give FROM and TO, then the snapshot: cgmap path FROM TO [SNAPSHOT] ('app.checkout' is no snapshot" "$work/err" ||
	fail "three functions to path: $(cat "$work/err")"

# Overloads: one pattern names three, all used, and stderr says so.
"$CGMAP" callers app.price "$snap" >"$work/price.out" 2>"$work/price.err"
grep -q "'app.price' matches 3 functions; using all of them" "$work/price.err" ||
	fail "no note of the overloads: $(cat "$work/price.err")"
[ "$(grep -c '^app.price' "$work/price.out")" = 3 ] || fail "not three overloads queried"

# Without runtime data the entry points are the tops, calls unknown.
"$CGMAP" impact app.ab "$snap" --format json >"$work/impact.static"
grep -q '"runtime": false' "$work/impact.static" || fail "impact without runtime says runtime"
grep -q '"kind": "top"' "$work/impact.static" || fail "no top entry point without runtime"

# A name that matches nothing: exit 1, the closest ids named.
expect_rc 1 "$CGMAP" callers app.chekout "$snap" 2>"$work/err"
grep -q "function 'app.chekout' matches nothing; closest: 'app.checkout(text,integer)'" "$work/err" ||
	fail "no closest ids: $(cat "$work/err")"
# Usage errors.
expect_rc 1 "$CGMAP" callers app.ab "$snap" --depth 0 2>/dev/null
expect_rc 1 "$CGMAP" callers app.ab "$snap" --format svg 2>/dev/null
expect_rc 1 "$CGMAP" path app.ab "$snap" 2>/dev/null
expect_rc 4 "$CGMAP" callers "$snap" 2>/dev/null
expect_rc 1 "$CGMAP" callers app.ab "$snap" --max 3 2>/dev/null
expect_rc 4 "$CGMAP" callers app.ab "$work/nothing.json" 2>/dev/null
expect_rc 1 "$CGMAP" callers app.ab "$snap" --sql "$demo" 2>/dev/null
# A snapshot with runtime data refuses a second runtime file.
"$CGMAP" --sql "$demo" --runtime "$golden_dir/runtime.json" --out "$work/rt" 2>/dev/null
expect_rc 1 "$CGMAP" impact app.ab "$work/rt/cgmap.json" --runtime "$golden_dir/runtime.json" 2>/dev/null
# No path is an answer.
"$CGMAP" path app.ab app.checkout "$snap" >"$work/nopath"
grep -q "no call path" "$work/nopath" || fail "no 'no call path'"
# -o writes the file.
"$CGMAP" callers app.ab "$snap" -o "$work/out.txt"
cmp -s "$work/callers.text" "$work/out.txt" || fail "-o output differs"
echo "ok"
