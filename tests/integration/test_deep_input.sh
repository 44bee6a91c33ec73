#!/usr/bin/env bash
# test_deep_input.sh - input nested far past what cgmap reads (200,000-term
# operator chains, about 400 KB each, which PostgreSQL stores; 32,000 nested
# comments; 2 MB of nested '[' as a snapshot) is an error naming the
# function or file, the place and the limit, through cgmap --sql, --dsn and
# diff; every other function is mapped, and a string continued after a
# comment is read as PostgreSQL reads it.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
# shellcheck source=../lib/pgtest.sh
source "$CGMAP_SOURCE_DIR/tests/lib/pgtest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-deep.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"; pgtest_stop' EXIT

# chain N TERM OP: TERM repeated N times, joined by OP.
chain() {
	awk -v n="$1" -v t="$2" -v op="$3" 'BEGIN { printf "%s", t; for (i = 1; i < n; i++) printf "%s%s", op, t }'
}
repeat() {
	awk -v n="$1" -v t="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'
}

n=200000
{
	echo "CREATE FUNCTION public.ok() RETURNS int LANGUAGE sql AS \$\$ SELECT 1 \$\$;"
	printf 'CREATE FUNCTION public.deep_plus() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM public.ok();\n  RETURN public.ok() + '
	chain "$n" 1 +
	printf ';\nEND\n$$;\n'
	printf "CREATE FUNCTION public.deep_concat() RETURNS text LANGUAGE plpgsql AS \$\$\nBEGIN\n  PERFORM public.ok();\n  RETURN public.ok()::text || "
	chain "$n" "'a'" "||"
	printf ';\nEND\n$$;\n'
	printf 'CREATE FUNCTION public.deep_sql() RETURNS int LANGUAGE sql AS $$\nSELECT public.ok();\nSELECT public.ok() + '
	chain "$n" 1 +
	printf '\n$$;\n'
	printf 'CREATE FUNCTION public.comments() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM public.ok();\n  '
	repeat 32000 '/*'
	repeat 32000 '*/'
	printf '\n  RETURN 1;\nEND\n$$;\n'
	printf "CREATE FUNCTION public.continued() RETURNS text LANGUAGE plpgsql AS \$\$\nBEGIN\n  RETURN 'a' -- first part\n    'b' || public.ok()::text;\nEND\n\$\$;\n"
	echo "CREATE FUNCTION public.after_it() RETURNS int LANGUAGE sql AS \$\$ SELECT public.ok() \$\$;"
} >"$work/deep.sql"
echo "CREATE FUNCTION public.ok() RETURNS int LANGUAGE sql AS \$\$ SELECT 1 \$\$;" >"$work/base.sql"

# check SNAPSHOT: the errors and sites every source must give.
check() {
	local snap=$1 what=$2
	local got
	got=$(jq -r '.functions[] | select(.builtin | not) |
		"\(.id) \([(.errors // [])[] | "\(.line):\(.message)"] | join(",")) \([(.sites // [])[] | "\(.name)@\(.line)"] | join(","))"' "$snap")
	local want="public.after_it()  ok@1
public.comments() 4:comments nested deeper than 256 levels 
public.continued()  ok@4
public.deep_concat() 4:cannot parse expression: expression nested deeper than 10000 levels ok@3
public.deep_plus() 4:cannot parse expression: expression nested deeper than 10000 levels ok@3
public.deep_sql() 3:expression nested deeper than 10000 levels 
public.ok()  "
	if [ "$got" != "$want" ]; then
		diff -u <(echo "$want") <(echo "$got") >&2 || true
		pgtest_fail "$what: functions, errors and sites differ"
	fi
}

"$CGMAP" --sql "$work/deep.sql" --no-html --quiet --out "$work/files" 2>"$work/files.err" ||
	pgtest_fail "cgmap --sql exited $? on deep input: $(tail -3 "$work/files.err")"
check "$work/files/cgmap.json" "cgmap --sql"
grep -q 'deep.sql:2: public.deep_plus(): line 4: cannot parse expression: expression nested deeper than 10000 levels' "$work/files.err" ||
	pgtest_fail "the error on stderr does not name the file, function, line and limit: $(cat "$work/files.err")"

pgtest_start
trap 'rm -rf "$work"; pgtest_stop' EXIT # pgtest_start set its own
pgtest_psql -c "CREATE DATABASE deep" >/dev/null
# PostgreSQL checks SQL bodies by running its analyser, which stops at its
# own stack limit: pg_dump output loads them without the check, as here.
{ echo "SET check_function_bodies = off;"; cat "$work/deep.sql"; } | pgtest_psql -d deep >/dev/null
"$CGMAP" --dsn "dbname=deep" --no-runtime --no-html --quiet --out "$work/db" 2>"$work/db.err" ||
	pgtest_fail "cgmap --dsn exited $? on deep input: $(tail -3 "$work/db.err")"
check "$work/db/cgmap.json" "cgmap --dsn"

rc=0
"$CGMAP" diff --sql "$work/base.sql" --sql "$work/deep.sql" --format json >"$work/diff.json" 2>"$work/diff.err" || rc=$?
[ "$rc" = 2 ] || pgtest_fail "cgmap diff --sql exited $rc, not 2 (differences): $(tail -3 "$work/diff.err")"
errors=$(jq -r '[.findings[] | select(.code == "new-parse-error") | .function] | sort | join(" ")' "$work/diff.json" 2>/dev/null ||
	jq -c . "$work/diff.json" | head -c 300)
[ "$errors" = "public.comments() public.deep_concat() public.deep_plus() public.deep_sql()" ] ||
	pgtest_fail "cgmap diff lists new parse errors: $errors"

# A snapshot of 2 MB of nested '[' is refused at once, naming file and depth.
repeat 1000000 '[' >"$work/brackets.json"
repeat 1000000 ']' >>"$work/brackets.json"
rc=0
"$CGMAP" report dead "$work/brackets.json" >/dev/null 2>"$work/report.err" || rc=$?
[ "$rc" = 4 ] || pgtest_fail "cgmap report exited $rc on nested brackets, not 4"
grep -q "snapshot \"$work/brackets.json\": line 1 column 2049: nesting deeper than 2048 levels" "$work/report.err" ||
	pgtest_fail "the refusal does not name the file and depth: $(cat "$work/report.err")"
rc=0
"$CGMAP" diff "$work/files/cgmap.json" "$work/brackets.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || pgtest_fail "cgmap diff exited $rc on a nested-bracket snapshot, not 4"
echo "ok: deep input is refused per function, per file and per snapshot"
