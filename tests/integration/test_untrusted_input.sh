#!/usr/bin/env bash
# test_untrusted_input.sh - cgmap fed what a hostile pull request or a
# careless operator gives it: folder links that loop, psql includes of the
# machine's files and devices, files over the size limit, a --schema typo
# (SQL files and a live database, map and diff), runtime files whose counts
# add up past 2^63, a snapshot listing an edge twice.  Each must end in a
# clear message naming the place, never a hang, a leak of a foreign file
# into the snapshot, a silent pass or an unreadable cgmap.json.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
. "$src/tests/lib/pgtest.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-untrusted.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

# expect_rc EXPECTED_RC CMD...: the command's exit code must be EXPECTED_RC.
expect_rc() {
	local want=$1 got=0
	shift
	"$@" || got=$?
	[ "$got" = "$want" ] || pgtest_fail "exit $got, not $want: $*"
}

fn_sql='CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;'

# --- a folder whose links lead back to itself: each real folder once -------
mkdir -p "$work/loop/sub"
echo "$fn_sql" >"$work/loop/a.sql"
ln -s . "$work/loop/again"
ln -s .. "$work/loop/sub/up"
ln -s a.sql "$work/loop/b.sql"
"$cgmap" --sql "$work/loop" --out "$work/loop.out" --no-html -q 2>"$work/loop.err" ||
	pgtest_fail "the folder with links did not map: $(cat "$work/loop.err")"
[ "$(jq '[.functions[] | select(.id == "public.f()")] | length' "$work/loop.out/cgmap.json")" = 1 ] ||
	pgtest_fail "public.f() is not mapped once"
[ "$(jq '[.diagnostics[] | select(.message | test("walked once"))] | length' "$work/loop.out/cgmap.json")" = 2 ] ||
	pgtest_fail "the two links back are not each said once: $(cat "$work/loop.err")"
grep -q '"file":"[^"]*/loop/b.sql","message":"the same file as \\".*loop/a.sql\\", read already: not read again' "$work/loop.out/cgmap.json" ||
	pgtest_fail "the second name of a.sql is not diagnosed"

# --- \i of the machine's files: refused, and nothing of them in the map ----
mkdir -p "$work/pr"
echo 'cgmapsecret:x:0:0:root:/root:/bin/bash' >"$work/secret.sql"
cat >"$work/pr/schema.sql" <<EOF
$fn_sql
\\i /etc/passwd
\\i $work/secret.sql
\\ir ../secret.sql
\\i /dev/zero
EOF
"$cgmap" --sql "$work/pr" --out "$work/pr.out" --no-html -q 2>"$work/pr.err" ||
	pgtest_fail "mapping with refused includes failed: $(cat "$work/pr.err")"
snap=$work/pr.out/cgmap.json
for line in 2 3 4 5; do
	jq -e --argjson l "$line" '.diagnostics[] | select(.line == $l and (.file | endswith("pr/schema.sql"))
		and (.message | test("refused: it lies outside the paths given to --sql")))' "$snap" >/dev/null ||
		pgtest_fail "the include on line $line is not refused with file and line: $(cat "$work/pr.err")"
done
first_passwd_token=$(head -1 /etc/passwd | cut -d: -f1)
if jq -r '.diagnostics[].message' "$snap" | grep -q "near \"$first_passwd_token"; then
	pgtest_fail "a token of /etc/passwd reached the snapshot"
fi
if grep -q cgmapsecret "$snap" "$work/pr.err"; then
	pgtest_fail "a token of a file outside the paths given reached the snapshot"
fi

# Allowed: outside files are read (once), devices never.
"$cgmap" --sql "$work/pr" --allow-include-outside --out "$work/pr2.out" --no-html -q 2>"$work/pr2.err" ||
	pgtest_fail "mapping with --allow-include-outside failed: $(cat "$work/pr2.err")"
grep -q 'cgmapsecret' "$work/pr2.out/cgmap.json" ||
	pgtest_fail "--allow-include-outside did not read the file outside"
grep -q 'schema.sql:5: SQL file "/dev/zero" is not a regular file (a device): not read' \
	<(jq -r '.diagnostics[] | "\(.file):\(.line): \(.message)"' "$work/pr2.out/cgmap.json") ||
	pgtest_fail "/dev/zero is not refused as a device: $(cat "$work/pr2.err")"
grep -q 'skipped: read already as .*, by the include at .*:[0-9]' "$work/pr2.err" ||
	pgtest_fail "the second include of secret.sql was read again: $(cat "$work/pr2.err")"

# --- size limit, files that are no regular files ---------------------------
head -c 5000 /dev/zero | tr '\0' ' ' >"$work/big.sql"
echo "$fn_sql" >>"$work/big.sql"
expect_rc 4 "$cgmap" --sql "$work/big.sql" --max-file-size 4K --out "$work/big.out" -q 2>"$work/big.err"
grep -q 'SQL file ".*big.sql" is larger than the 4 KiB limit for an input file (raise it with --max-file-size)' \
	"$work/big.err" || pgtest_fail "no size message: $(cat "$work/big.err")"
expect_rc 0 "$cgmap" --sql "$work/big.sql" --max-file-size 8K --out "$work/big.out" --no-html -q
expect_rc 1 "$cgmap" --sql "$work/big.sql" --max-file-size 4X --out "$work/big.out" -q 2>/dev/null
expect_rc 4 "$cgmap" --sql /dev/zero --out "$work/zero.out" -q 2>"$work/zero.err"
grep -q 'SQL file "/dev/zero" is not a regular file' "$work/zero.err" || pgtest_fail "$(cat "$work/zero.err")"
expect_rc 4 "$cgmap" --sql "$work/big.sql" --runtime /dev/zero --out "$work/zero.out" -q 2>"$work/zero.err"
grep -q 'runtime file "/dev/zero" is not a regular file' "$work/zero.err" || pgtest_fail "$(cat "$work/zero.err")"
expect_rc 4 "$cgmap" report dead /dev/zero 2>"$work/zero.err"
grep -q 'snapshot "/dev/zero" is not a regular file' "$work/zero.err" || pgtest_fail "$(cat "$work/zero.err")"
expect_rc 4 "$cgmap" report dead "$work/big.out" --max-file-size 100 2>"$work/zero.err"
grep -q 'snapshot ".*cgmap.json" is larger than the 100 bytes limit' "$work/zero.err" ||
	pgtest_fail "$(cat "$work/zero.err")"

# --- a gzipped snapshot (--compress): every reader takes it, told by its
# magic bytes; a cut or corrupt one is refused naming it, and so is one that
# inflates past --max-file-size (a gzip bomb) ------------------------------
expect_rc 0 "$cgmap" --sql "$work/big.sql" --max-file-size 8K --out "$work/gz.out" --no-html -q --compress
[ -f "$work/gz.out/cgmap.json.gz" ] && [ ! -e "$work/gz.out/cgmap.json" ] ||
	pgtest_fail "--compress did not write cgmap.json.gz alone: $(ls "$work/gz.out")"
gzip -dc "$work/gz.out/cgmap.json.gz" | cmp -s - "$work/big.out/cgmap.json" ||
	pgtest_fail "cgmap.json.gz does not hold the bytes of cgmap.json"
"$cgmap" report functions "$work/big.out" >"$work/plain.functions"
for snap in "$work/gz.out" "$work/gz.out/cgmap.json.gz"; do
	"$cgmap" report functions "$snap" >"$work/gz.functions" || pgtest_fail "report cannot read $snap"
	cmp -s "$work/plain.functions" "$work/gz.functions" || pgtest_fail "report of $snap differs"
done
cp "$work/gz.out/cgmap.json.gz" "$work/renamed.json"
expect_rc 0 "$cgmap" diff "$work/big.out" "$work/renamed.json"
expect_rc 0 "$cgmap" render "$work/gz.out" --out "$work/gz.site" -q
[ -f "$work/gz.site/index.html" ] || pgtest_fail "render of a gzipped snapshot wrote no site"
# Mapped again without --compress: the gzipped one is replaced, not left stale.
expect_rc 0 "$cgmap" --sql "$work/big.sql" --max-file-size 8K --out "$work/gz.out" --no-html -q
[ -f "$work/gz.out/cgmap.json" ] && [ ! -e "$work/gz.out/cgmap.json.gz" ] ||
	pgtest_fail "a map without --compress left cgmap.json.gz: $(ls "$work/gz.out")"
size=$(stat -c %s "$work/renamed.json")
head -c $((size - 5)) "$work/renamed.json" >"$work/cut.json.gz"
expect_rc 4 "$cgmap" report dead "$work/cut.json.gz" 2>"$work/cut.err"
grep -q 'snapshot ".*cut.json.gz": the gzip data ends early' "$work/cut.err" || pgtest_fail "$(cat "$work/cut.err")"
head -c 64M /dev/zero | gzip -c >"$work/bomb.json.gz"
expect_rc 4 "$cgmap" report dead "$work/bomb.json.gz" --max-file-size 1M 2>"$work/bomb.err"
grep -q 'snapshot ".*bomb.json.gz": uncompressed, it is larger than the 1048576 bytes limit' "$work/bomb.err" ||
	pgtest_fail "$(cat "$work/bomb.err")"

# --- --schema typo: an error, never an empty map that passes ---------------
echo "CREATE SCHEMA app; CREATE FUNCTION app.g() RETURNS int LANGUAGE sql AS 'SELECT 1';" >"$work/app.sql"
expect_rc 1 "$cgmap" --sql "$work/app.sql" --schema ap --out "$work/typo.out" -q 2>"$work/typo.err"
grep -q -- '--schema pattern "ap" matches no schema in the SQL files' "$work/typo.err" ||
	pgtest_fail "$(cat "$work/typo.err")"
[ ! -e "$work/typo.out/cgmap.json" ] || pgtest_fail "a map was written for a --schema typo"
expect_rc 0 "$cgmap" --sql "$work/app.sql" --schema 'a*' --out "$work/typo.out" --no-html -q
expect_rc 1 "$cgmap" --sql "$work/app.sql" --exclude-schema nope --out "$work/typo.out" -q 2>/dev/null
expect_rc 1 "$cgmap" diff --sql "$work/app.sql" --sql "$work/app.sql" --schema ap 2>"$work/typo.err"
grep -q -- 'BASE: --schema pattern "ap" matches no schema' "$work/typo.err" || pgtest_fail "$(cat "$work/typo.err")"
expect_rc 1 "$cgmap" diff "$work/typo.out" --sql "$work/app.sql" --schema ap 2>"$work/typo.err"
grep -q -- 'HEAD: --schema pattern "ap" matches no schema' "$work/typo.err" || pgtest_fail "$(cat "$work/typo.err")"
expect_rc 1 "$cgmap" report dead --sql "$work/app.sql" --schema ap 2>/dev/null

# --- counts that add up past 2^63, times past the limit --------------------
for n in 1 2; do
	cat >"$work/rt$n.json" <<'EOF'
{"format": "cgmap-runtime", "format_version": 1, "function_stats": true,
 "edges": [{"caller": null, "callee": "app.g()", "site_line": null, "dynamic": false,
            "calls": 9223372036854775807, "total_ms": 6e14, "self_ms": 6e14}],
 "functions": [{"id": "app.g()", "calls": 9223372036854775807, "total_ms": 6e14, "self_ms": 6e14}]}
EOF
done
"$cgmap" --sql "$work/app.sql" --runtime "$work/rt1.json" --runtime "$work/rt2.json" \
	--out "$work/held.out" -q 2>"$work/held.err" || pgtest_fail "the held sums failed the map: $(cat "$work/held.err")"
grep -q '"calls": *9223372036854775807, *"total_ms": *1e15, *"self_ms": *1e15\|"calls": *9223372036854775807,' \
	"$work/held.out/cgmap.json" || pgtest_fail "the count is not held at INT64_MAX"
grep -q 'runtime figures of \\"app.g()\\" add up past what cgmap counts' "$work/held.out/cgmap.json" ||
	pgtest_fail "the held sum is not diagnosed"
"$cgmap" report functions "$work/held.out" >"$work/held.functions" ||
	pgtest_fail "cgmap does not read its own cgmap.json back"
grep -q '^app.g() called root entry calls 9223372036854775807' "$work/held.functions" ||
	pgtest_fail "app.g() is not called: $(cat "$work/held.functions")"
expect_rc 0 "$cgmap" render "$work/held.out" --out "$work/held.site" -q
"$cgmap" diff "$work/held.out" "$work/held.out" >/dev/null || pgtest_fail "diff of the held map with itself"

# --- a snapshot listing an edge twice ---------------------------------------
cat >"$work/edges.sql" <<'EOF'
CREATE FUNCTION public.a() RETURNS int LANGUAGE sql AS 'SELECT public.b()';
CREATE FUNCTION public.b() RETURNS int LANGUAGE sql AS 'SELECT 1';
EOF
# Function a() is defined before b() exists: SQL functions are checked late.
"$cgmap" --sql "$work/edges.sql" --out "$work/edges.out" --no-html -q 2>/dev/null
jq '.edges += [.edges[0]]' "$work/edges.out/cgmap.json" >"$work/dup.json"
expect_rc 4 "$cgmap" report edges "$work/dup.json" 2>"$work/dup.err"
grep -q 'edges\[1\]: duplicate edge "public.a()" -> "public.b()" via call (as edges\[0\])' "$work/dup.err" ||
	pgtest_fail "the repeated edge is not named: $(cat "$work/dup.err")"

# --- a live database: --schema typo ----------------------------------------
pgtest_start
pgtest_psql -c "CREATE DATABASE shop" >/dev/null
pgtest_psql -d shop -c "CREATE SCHEMA app; CREATE SCHEMA empty;
	CREATE FUNCTION app.g() RETURNS int LANGUAGE sql AS 'SELECT 1'" >/dev/null
expect_rc 1 "$cgmap" --dsn dbname=shop --schema ap --out "$work/live.out" -q 2>"$work/live.err"
grep -q -- '--schema pattern "ap" matches no schema in database "shop"' "$work/live.err" ||
	pgtest_fail "$(cat "$work/live.err")"
expect_rc 1 "$cgmap" --dsn dbname=shop --exclude-schema 'nothing*' --out "$work/live.out" -q 2>/dev/null
# A schema that exists but holds no function is no typo.
expect_rc 0 "$cgmap" --dsn dbname=shop --schema empty --schema app --out "$work/live.out" --no-html -q
expect_rc 1 "$cgmap" diff --dsn dbname=shop --sql "$work/app.sql" --schema ap 2>"$work/live.err"
grep -q -- 'BASE: --schema pattern "ap" matches no schema in database "shop"' "$work/live.err" ||
	pgtest_fail "$(cat "$work/live.err")"
echo "ok"
