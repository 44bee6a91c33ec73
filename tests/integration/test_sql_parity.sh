#!/usr/bin/env bash
# test_sql_parity.sh - `cgmap --sql` must see what `cgmap --dsn` sees.
#
# For every fixture schema (fixtures/*.sql, and both sides of the diff
# cases fixtures/diff/*/{base,head}.sql): load it into a throwaway
# database, map the database, map the file, and map a real
# `pg_dump --schema-only` of the database fed back through --sql.  The three
# snapshots must have the same functions (identity, signature, result, kind,
# language, body, body hash, body version, search_path), edges (with their mechanism,
# object and call-site lines),
# dynamic sites, missing callees, triggers and references.
#
# BEGIN ATOMIC bodies are the one known difference: the server keeps them
# deparsed (its own layout), the file keeps them as written, so their body,
# hash and the lines of their call sites are compared without layout.
#
# Then the command line on a migrations folder: name order, a statement that
# does not parse reported as file:line with the rest still mapped, standard
# input, and a pg_dump custom-format archive refused with the way out.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
# shellcheck source=../lib/pgtest.sh
source "$CGMAP_SOURCE_DIR/tests/lib/pgtest.sh"
pgtest_start

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-parity.XXXXXX")
trap 'rm -rf "$work"; pgtest_stop' EXIT

# The comparable part of a snapshot, one fact a line, sorted.
facts() {
	jq -r '
	  def atomic_ids: [.functions[] | select(.atomic_body) | .id];
	  atomic_ids as $atomic
	  | (.functions[] | "function \(.id) kind=\(.kind) lang=\(.language) args=\(.arguments|tojson) "
	      + "result=\(.result|tojson) nargs=\(.nargs) types=\(.argtypes|tojson) "
	      + "names=\(.argnames|tojson) defaults=\(.ndefaults) variadic=\(.variadic) "
	      + "trigger=\(.trigger) path=\(.search_path|tojson) analysed=\(.analysed) "
	      + "atomic=\(.atomic_body) lines=\(if .atomic_body then "-" else .line_count end) "
	      + "hash=\(if .atomic_body then "-" else .body_hash end) "
	      + "version=\(if .atomic_body then "-" else .body_version end) "
	      + "source=\(if .atomic_body then "-" else (.source|tojson) end) "
	      + "comment=\(.comment|tojson) errors=\([.errors[]|.line]|tojson)"),
	    (.edges[] | "edge \(.from) -> \(.to) via=\(.via) object=\(.object|tojson) ambiguous=\(.ambiguous) "
	      + "lines=\(if (.from as $f | $atomic | index($f)) then "-" else (.lines|tojson) end)"),
	    (.dynamic_sites[] | "dynamic \(.function) line=\(.line) text=\(.text|tojson)"),
	    (.missing[] | "missing \(.function) line=\(.line) name=\(.name) nargs=\(.nargs)"),
	    (.triggers[] | "trigger \(.table) \(.name) \(.events|join("|")) -> \(.function) enabled=\(.enabled)"),
	    (.references[] | "reference \(.function) \(.kind) \(.object)"),
	    ((.relations // [])[] | . as $r | "relation \($r.schema).\($r.name) kind=\($r.kind)",
	      ($r.effects[] | "effect \($r.schema).\($r.name) \(.reach) \(.via) \(.object|tojson) "
	        + "\(.events|join("|")) \(.columns|tojson) -> \(.function|tojson) \(.target|tojson) instead=\(.instead // false)")),
	    ((.event_triggers // [])[] | "event_trigger \(.name) \(.event) \(.tags|join("|")) \(.enabled) -> \(.function)")
	' "$1" | LC_ALL=C sort
}

failed=0
n=0
for fixture in "$CGMAP_SOURCE_DIR"/fixtures/*.sql "$CGMAP_SOURCE_DIR"/fixtures/diff/*/*.sql; do
	n=$((n + 1))
	name=$(basename "$fixture" .sql)
	case $fixture in */fixtures/diff/*) name="diff-$(basename "$(dirname "$fixture")")-$name" ;; esac
	db="parity_$n"
	pgtest_psql -c "CREATE DATABASE $db"
	pgtest_psql -d "$db" -f "$fixture" >/dev/null 2>"$work/$name.load.log" ||
		pgtest_fail "$name: the fixture does not load: $(cat "$work/$name.load.log")"

	"$CGMAP" --dsn "dbname=$db" --no-runtime --no-html --quiet --snapshot-format 1 --out "$work/$name.live" ||
		pgtest_fail "$name: cgmap --dsn failed"
	"$CGMAP" --sql "$fixture" --no-html --quiet --snapshot-format 1 --out "$work/$name.sql" 2>"$work/$name.sql.log" ||
		pgtest_fail "$name: cgmap --sql failed: $(cat "$work/$name.sql.log")"
	"$PGTEST_BIN/pg_dump" --schema-only -d "$db" >"$work/$name.dump.sql"
	"$CGMAP" --sql "$work/$name.dump.sql" --no-html --quiet --snapshot-format 1 --out "$work/$name.dump" \
		2>"$work/$name.dump.log" || pgtest_fail "$name: cgmap --sql on its pg_dump failed"

	facts "$work/$name.live/cgmap.json" >"$work/$name.live.facts"
	facts "$work/$name.sql/cgmap.json" >"$work/$name.sql.facts"
	facts "$work/$name.dump/cgmap.json" >"$work/$name.dump.facts"
	[ "$(grep -c '^function ' "$work/$name.live.facts")" -gt 0 ] ||
		pgtest_fail "$name: the live snapshot has no function"
	for kind in sql dump; do
		if ! diff -u "$work/$name.live.facts" "$work/$name.$kind.facts" >"$work/$name.$kind.diff"; then
			echo "FAIL: $name: --sql ($kind) differs from --dsn (- live, + offline):" >&2
			grep '^[-+][^-+]' "$work/$name.$kind.diff" >&2 || true
			failed=1
		fi
	done
	# A pg_dump of a loaded schema holds nothing the offline source
	# cannot read: any diagnostic there is a gap.
	if [ "$(jq '.diagnostics | length' "$work/$name.dump/cgmap.json")" != 0 ]; then
		echo "FAIL: $name: diagnostics on its pg_dump:" >&2
		jq -r '.diagnostics[] | "\(.file):\(.line): \(.message)"' "$work/$name.dump/cgmap.json" >&2
		failed=1
	fi
	echo "$name: $(grep -c '^function ' "$work/$name.live.facts") functions," \
		"$(grep -c '^edge ' "$work/$name.live.facts") edges compared" >&2
done
[ "$n" -gt 0 ] || pgtest_fail "no fixture found in $CGMAP_SOURCE_DIR/fixtures"
[ "$failed" = 0 ] || exit 1
echo "ok: $n fixtures map the same from a database, their files and their pg_dump" >&2
# The schema's own types resolve as PostgreSQL resolves them (the same on
# both sides is not enough: both could be ambiguous).
"$CGMAP" report edges "$work/usertypes.live" >"$work/usertypes.edges"
for want in 'u.short_json(u.short_label) -> u.to_json(text) via call static lines 1' \
	'u.amount_json(u.amount) -> u.to_json(numeric) via call static lines 1' \
	'u.label_text(u.label) -> u.show(text) via call static lines 1' \
	'u.mood_text(u.mood) -> u.show(u.mood) via call static lines 1' \
	'u.pair_text(u.pair) -> u.show(u.pair) via call static lines 3' \
	'u.nick_json(u.nick) -> u.to_json(text) via call static lines 1' \
	'u.ci_json(u.citext) -> u.to_json(text) via call static lines 1'; do
	grep -qxF -- "$want" "$work/usertypes.edges" ||
		pgtest_fail "usertypes: no edge '$want': $(cat "$work/usertypes.edges")"
done
[ "$(grep -c ambiguous "$work/usertypes.edges")" = 0 ] ||
	pgtest_fail "usertypes: ambiguous calls PostgreSQL resolves: $(grep ambiguous "$work/usertypes.edges")"

# The command line on migrations: a folder in name order, a statement that
# does not parse reported as file:line while the rest is still mapped,
# standard input, and a custom-format archive refused with the way out.
mig="$work/migrations"
mkdir -p "$mig"
cat >"$mig/0001_init.sql" <<'SQL'
CREATE SCHEMA app;
CREATE FUNCTION app.f() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;
SQL
cat >"$mig/0002_orders.sql" <<'SQL'
CREATE FUNCTION app.g() RETURNS integer LANGUAGE sql AS $$ SELECT app.f() $$;

CREATE FUNCTION app.broken( RETURNS integer;
CREATE OR REPLACE FUNCTION app.f() RETURNS integer LANGUAGE sql AS $$ SELECT 2 $$;
SQL
"$CGMAP" --sql "$mig" --no-html --snapshot-format 1 --out "$work/mig" 2>"$work/mig.log" ||
	pgtest_fail "cgmap --sql on a folder failed: $(cat "$work/mig.log")"
grep -q "0002_orders.sql:3: syntax error at or near \";\"" "$work/mig.log" ||
	pgtest_fail "the syntax error is not reported with file and line: $(cat "$work/mig.log")"
[ "$(jq -r '[.functions[].id] | join(" ")' "$work/mig/cgmap.json")" = "app.f() app.g()" ] ||
	pgtest_fail "the folder did not map app.f() and app.g()"
[ "$(jq -r '.functions[] | select(.id == "app.f()") | .source' "$work/mig/cgmap.json")" = " SELECT 2 " ] ||
	pgtest_fail "the later CREATE OR REPLACE did not win"
jq -e '.edges | map("\(.from) -> \(.to)") == ["app.g() -> app.f()"]' "$work/mig/cgmap.json" >/dev/null ||
	pgtest_fail "the edge app.g() -> app.f() is missing"
cat "$mig"/*.sql | "$CGMAP" --sql - --no-html --quiet --out "$work/stdin" 2>/dev/null
[ "$(jq '.summary.functions' "$work/stdin/cgmap.json")" = 2 ] || pgtest_fail "--sql - did not read standard input"
pgtest_psql -c "CREATE DATABASE archive"
pgtest_psql -d archive -f "$mig/0001_init.sql" >/dev/null
"$PGTEST_BIN/pg_dump" -Fc -d archive -f "$work/archive.dump"
rc=0
"$CGMAP" --sql "$work/archive.dump" --no-html --out "$work/archive" 2>"$work/archive.log" || rc=$?
[ "$rc" = 4 ] || pgtest_fail "a custom-format archive exits $rc, not 4"
grep -q "pg_restore -f - --schema-only" "$work/archive.log" ||
	pgtest_fail "the archive error does not name pg_restore: $(cat "$work/archive.log")"
"$PGTEST_BIN/pg_restore" -f - --schema-only "$work/archive.dump" |
	"$CGMAP" --sql - --no-html --quiet --out "$work/restored" 2>/dev/null
[ "$(jq -r '[.functions[].id] | join(" ")' "$work/restored/cgmap.json")" = "app.f()" ] ||
	pgtest_fail "pg_restore output through --sql - lost app.f()"
echo "ok: migrations folder, errors with file and line, standard input, archives" >&2
