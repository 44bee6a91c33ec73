#!/usr/bin/env bash
# test_parse_cache.sh - a second map into the same folder parses only the
# bodies that changed (DIR/.cgmap-cache/bodies), and what it writes is
# byte for byte what a map without the cache writes:
#   - first run: every body parsed; second: every body from the cache, the
#     same snapshot and DOT;
#   - one body changed: that body parsed again, the others fetched, the
#     outputs those of a map with --no-cache;
#   - a damaged cache (garbage, cut short) is a miss, not an error;
#   - a .cgmap-cache that is a link is neither read nor written through;
#   - --no-cache writes no cache.
# SQL files only: no server.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-parse-cache.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$work/sql"
for f in demo exprtype coerce relations plpgsql_lines; do
	cp "$CGMAP_SOURCE_DIR/fixtures/$f.sql" "$work/sql/$f.sql"
done

# bodies DIR: "FETCHED TOTAL" of the resolve stage of a map of sql/ into DIR.
map_counts() {
	(cd "$work" && "$CGMAP" --sql sql --out "$1" --no-html --quiet --timing 2>"$work/timing") ||
		{ cat "$work/timing" >&2; fail "map into $1 failed"; }
	sed -n 's/^stage resolve .*(\([0-9]*\) of \([0-9]*\) bodies from the parse cache)$/\1 \2/p' \
		"$work/timing"
}
# same DIR REF: the snapshot and DOT of DIR are REF's.
same() {
	cmp -s "$work/$1/cgmap.json" "$work/$2/cgmap.json" || fail "$1/cgmap.json differs from $2's"
	cmp -s "$work/$1/callgraph.dot" "$work/$2/callgraph.dot" || fail "$1/callgraph.dot differs from $2's"
}
cold() {
	(cd "$work" && "$CGMAP" --sql sql --out "$1" --no-html --quiet --no-cache 2>"$work/cold.err") ||
		{ cat "$work/cold.err" >&2; fail "map --no-cache"; }
	[ ! -e "$work/$1/.cgmap-cache/bodies" ] || fail "--no-cache wrote a parse cache"
}

read -r fetched total <<<"$(map_counts out)"
[ "$total" -gt 20 ] || fail "only $total bodies in the fixtures"
[ "$fetched" = 0 ] || fail "first run fetched $fetched bodies from a cache it never had"
[ -f "$work/out/.cgmap-cache/bodies" ] || fail "no parse cache written"
cold ref
same out ref

read -r fetched total2 <<<"$(map_counts out)"
[ "$total2" = "$total" ] && [ "$fetched" = "$total" ] ||
	fail "second run fetched $fetched of $total2 bodies, expected all $total"
same out ref

# One body changed (a call to another function, a line added).
python3 - "$work/sql/demo.sql" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
m = re.search(r"\$\$\n", s)
assert m, "no dollar-quoted body in demo.sql"
s = s[:m.end()] + "-- changed\n" + s[m.end():]
open(p, "w").write(s)
EOF
read -r fetched total3 <<<"$(map_counts out)"
[ "$total3" = "$total" ] && [ "$fetched" = $((total - 1)) ] ||
	fail "after one body changed: $fetched of $total3 fetched, expected $((total - 1))"
cold ref2
same out ref2
cmp -s "$work/ref/cgmap.json" "$work/ref2/cgmap.json" && fail "the changed body did not change the snapshot"

# A damaged cache: a miss, the same outputs, a good cache written again.
head -c 1000 /dev/urandom >"$work/out/.cgmap-cache/bodies"
read -r fetched _ <<<"$(map_counts out)"
[ "$fetched" = 0 ] || fail "garbage gave $fetched bodies"
same out ref2
size=$(stat -c %s "$work/out/.cgmap-cache/bodies")
head -c $((size / 2)) "$work/out/.cgmap-cache/bodies" >"$work/half"
cp "$work/half" "$work/out/.cgmap-cache/bodies"
read -r fetched _ <<<"$(map_counts out)"
[ "$fetched" -lt "$total" ] || fail "a cache cut in half gave all $fetched bodies"
same out ref2
read -r fetched _ <<<"$(map_counts out)"
[ "$fetched" = "$total" ] || fail "the cache was not written whole again ($fetched of $total)"

# A .cgmap-cache that is a link: not read, not written through.
mkdir "$work/elsewhere" "$work/linked"
cp "$work/out/.cgmap-cache/bodies" "$work/elsewhere/bodies"
ln -s "$work/elsewhere" "$work/linked/.cgmap-cache"
read -r fetched _ <<<"$(map_counts linked)"
[ "$fetched" = 0 ] || fail "read $fetched bodies through a linked .cgmap-cache"
cmp -s "$work/elsewhere/bodies" "$work/out/.cgmap-cache/bodies" || fail "wrote through a linked .cgmap-cache"
same linked ref2

# --no-cache: no cache read or written.
rm -rf "$work/fresh"
cold fresh
echo "parse cache: $total bodies; all fetched on a second run, $((total - 1)) after one changed"
