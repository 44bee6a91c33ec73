#!/usr/bin/env bash
# test_diff.sh - `cgmap diff` on the fixture pairs fixtures/diff/<case>/
# {base,head}.sql: golden outputs in the three formats, exit codes, the same
# findings when the sides are mapped on the fly (--sql, --dsn), no finding
# when a graph is compared with itself, and usage/input errors exit 1.
# A case folder may hold `args`: more options for each diff of the case (its
# runtime files named relative to the case folder).
#
# CGMAP_UPDATE_GOLDEN=1 rewrites the golden files (review them with git diff).
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
# shellcheck source=../lib/pgtest.sh
source "$CGMAP_SOURCE_DIR/tests/lib/pgtest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-diff.XXXXXX")
trap 'rm -rf "$work"; pgtest_stop' EXIT
policy=missing-callee,removed-called-function,new-dynamic-site,new-unreferenced,new-parse-error

# Failures go to the test's own stderr (fd 3), even from a call whose
# stderr is silenced.
exec 3>&2

# expect_rc EXPECTED_RC CMD...: the command's exit code must be EXPECTED_RC.
expect_rc() {
	local want=$1 got=0
	shift
	"$@" || got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: exit $got, not $want: $*" >&3
		exit 1
	fi
}

check_golden() {
	local golden=$1 actual=$2
	if [ -n "${CGMAP_UPDATE_GOLDEN:-}" ]; then
		cp "$actual" "$golden"
	else
		pgtest_expect_file "$golden" "$actual" "output"
	fi
}

cases=0
for dir in "$CGMAP_SOURCE_DIR"/fixtures/diff/*/; do
	name=$(basename "$dir")
	cases=$((cases + 1))
	mkdir -p "$work/$name"
	# Mapped from the case folder: findings name the files base.sql, head.sql.
	(cd "$dir" && "$CGMAP" --sql base.sql --no-html --quiet --out "$work/$name/base" 2>/dev/null)
	(cd "$dir" && "$CGMAP" --sql head.sql --no-html --quiet --out "$work/$name/head" 2>/dev/null)
	extra=()
	if [ -f "$dir/args" ]; then
		read -r -a extra <"$dir/args"
		cp "$dir"/*.json "$work/$name/"
	fi

	# Golden outputs, run from the case folder so the names are base/head.
	if [ -n "${CGMAP_UPDATE_GOLDEN:-}" ]; then
		rc=0
		(cd "$work/$name" && "$CGMAP" diff base head "${extra[@]}" --fail-on "$policy" >/dev/null) || rc=$?
		echo "$rc" >"$dir/expected.exit"
	fi
	want=$(cat "$dir/expected.exit")
	for fmt in text:txt markdown:md json:json; do
		(cd "$work/$name" && expect_rc "$want" "$CGMAP" diff base head "${extra[@]}" --format "${fmt%%:*}" \
			--fail-on "$policy" >"$work/$name/out.${fmt##*:}")
		check_golden "$dir/expected.${fmt##*:}" "$work/$name/out.${fmt##*:}"
	done
	# Without a policy: 2 for any difference, 0 for none.
	plain=$([ "$(jq '.findings | length' "$work/$name/out.json")" = 0 ] && echo 0 || echo 2)
	(cd "$work/$name" && expect_rc "$plain" "$CGMAP" diff "$work/$name/base/cgmap.json" "$work/$name/head" \
		"${extra[@]}" >/dev/null)
	# --fail-on any fails on any difference.
	[ "$plain" = 0 ] || (cd "$work/$name" && expect_rc 3 "$CGMAP" diff "$work/$name/base" "$work/$name/head" \
		"${extra[@]}" --fail-on any >/dev/null)

	# A graph against itself: nothing, exit 0.
	for side in base head; do
		expect_rc 0 "$CGMAP" diff "$work/$name/$side" "$work/$name/$side" --fail-on any >"$work/$name/self.txt"
		grep -qx "no difference" "$work/$name/self.txt" || pgtest_fail "$name/$side against itself: $(cat "$work/$name/self.txt")"
	done

	# The same findings when both sides are SQL mapped on the fly.
	(cd "$dir" && expect_rc "$plain" "$CGMAP" diff --sql base.sql --sql head.sql \
		"${extra[@]}" --format json --output "$work/$name/fly.json" 2>/dev/null)
	diff -u <(jq '.findings' "$work/$name/out.json") <(jq '.findings' "$work/$name/fly.json") >&2 ||
		pgtest_fail "$name: --sql on the fly differs from the snapshots"
done
[ "$cases" -gt 0 ] || pgtest_fail "no case in fixtures/diff"
# Every finding code is covered by at least one case.
for code in $("$CGMAP" diff --help | sed -n '/^findings:/,/^$/p' | tail -n +2 | tr ',' ' '); do
	grep -qh "\"code\": \"$code\"" "$CGMAP_SOURCE_DIR"/fixtures/diff/*/expected.json ||
		pgtest_fail "no fixture case shows the finding $code"
done

# The blast radius: runtime for one side, the hot threshold, the labels.
br=$CGMAP_SOURCE_DIR/fixtures/diff/blast-radius
expect_rc 3 "$CGMAP" diff --sql "$br/base.sql" --sql "$br/head.sql" --runtime "$br/runtime.json" \
	--fail-on touches-hot-path >/dev/null
expect_rc 2 "$CGMAP" diff --sql "$br/base.sql" --sql "$br/head.sql" --runtime "$br/runtime.json" \
	--hot-threshold 100000 --fail-on touches-hot-path >/dev/null
expect_rc 3 "$CGMAP" diff --sql "$br/base.sql" --sql "$br/head.sql" --runtime "$br/runtime.json" \
	--fail-on dead-code-changed >/dev/null
"$CGMAP" diff "$work/blast-radius/base" "$work/blast-radius/head" --head-runtime "$br/runtime.json" \
	--base-label main --head-label "PR 7" --format json >"$work/one-side.json" || true
jq -e '.runtime and .base == "main" and .head == "PR 7"' "$work/one-side.json" >/dev/null ||
	pgtest_fail "--head-runtime or the labels not taken: $(cat "$work/one-side.json")"
jq -e '[.findings[] | select(.code == "body-changed" and .function == "shop.tax(numeric)")][0].entry_calls == 5003' \
	"$work/one-side.json" >/dev/null || pgtest_fail "the entry points' calls are not HEAD's runtime"
"$CGMAP" diff "$work/blast-radius/base" "$work/blast-radius/head" --base-runtime "$br/runtime.json" \
	--format json >"$work/base-side.json" || true
jq -e '[.findings[] | select(.code == "body-changed" and .function == "shop.tax(numeric)")][0].entry_calls == 0' \
	"$work/base-side.json" >/dev/null || pgtest_fail "BASE's runtime reached HEAD's entry points"
"$CGMAP" --sql "$br/head.sql" --runtime "$br/runtime.json" --no-html --quiet --out "$work/rt-head" 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/blast-radius/base" "$work/rt-head" --runtime "$br/runtime.json" 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/blast-radius/base" "$work/rt-head" --hot-threshold 0 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/blast-radius/base" "$work/rt-head" --head-label 2>/dev/null

# Every fixture schema against itself.
for fixture in "$CGMAP_SOURCE_DIR"/fixtures/*.sql; do
	"$CGMAP" --sql "$fixture" --no-html --quiet --out "$work/self" 2>/dev/null
	expect_rc 0 "$CGMAP" diff "$work/self" "$work/self" --fail-on any >/dev/null
	expect_rc 0 "$CGMAP" diff "$work/self" --sql "$fixture" --fail-on any >/dev/null 2>&1
done

# Bad usage and unreadable inputs: exit 1.
expect_rc 1 "$CGMAP" diff "$work/self" 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/self" "$work/self" --fail-on no-such-finding 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/self" "$work/self" --format yaml 2>/dev/null
expect_rc 4 "$CGMAP" diff "$work/self" "$work/nowhere" 2>/dev/null
expect_rc 1 "$CGMAP" diff "$work/self" "$work/self" "$work/self" 2>/dev/null
# Two snapshots are read at once (HEAD on a thread): each side's error is
# named, with its own message, and BASE's comes first when both fail.
printf '{"format": "cgmap-snapshot", "functions": [' >"$work/cut.json"
expect_rc 4 "$CGMAP" diff "$work/self" "$work/cut.json" 2>"$work/head.err"
grep -q '^cgmap diff: HEAD: snapshot ".*cut.json": line 1' "$work/head.err" ||
	pgtest_fail "a bad HEAD snapshot is not named: $(cat "$work/head.err")"
expect_rc 4 "$CGMAP" diff "$work/cut.json" "$work/self" 2>"$work/base.err"
grep -q '^cgmap diff: BASE: snapshot ".*cut.json"' "$work/base.err" ||
	pgtest_fail "a bad BASE snapshot is not named: $(cat "$work/base.err")"
expect_rc 4 "$CGMAP" diff "$work/nowhere" "$work/cut.json" 2>"$work/both.err"
[ "$(wc -l <"$work/both.err")" = 1 ] && grep -q '^cgmap diff: BASE: cannot read snapshot ".*nowhere"' "$work/both.err" ||
	pgtest_fail "with both sides bad, BASE's error is not the one told: $(cat "$work/both.err")"
printf 'PGDMP\001' >"$work/archive.dump"
expect_rc 4 "$CGMAP" diff "$work/self" --sql "$work/archive.dump" 2>"$work/archive.err"
grep -q "pg_restore" "$work/archive.err" || pgtest_fail "a custom-format archive is not explained: $(cat "$work/archive.err")"

# A live database as BASE: the same findings as from its file.
pgtest_start
case_dir="$CGMAP_SOURCE_DIR/fixtures/diff/removed-called"
pgtest_psql -c "CREATE DATABASE diff_base"
pgtest_psql -d diff_base -f "$case_dir/base.sql" >/dev/null
expect_rc 3 "$CGMAP" diff --dsn "dbname=diff_base" --sql "$case_dir/head.sql" --format json \
	--fail-on "$policy" --output "$work/live.json" 2>/dev/null
# (A database has no files: the findings' file and file_line are left out.)
diff -u <(jq '.findings | map(del(.file, .file_line))' "$work/removed-called/out.json") \
	<(jq '.findings | map(del(.file, .file_line))' "$work/live.json") >&2 ||
	pgtest_fail "a live BASE gives other findings than its SQL file"
jq -e '.base == "database diff_base"' "$work/live.json" >/dev/null ||
	pgtest_fail "the live side is not named by its database"
echo "ok: $cases diff cases, golden outputs, exit codes, on-the-fly sources" >&2
