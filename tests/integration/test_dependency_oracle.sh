#!/usr/bin/env bash
# test_dependency_oracle.sh - every fixture's static map held to
# PostgreSQL's own resolution: each fixture is loaded into a database of
# its own, and bench/dependency_oracle.sh checks that every function
# plpgsql_check's plpgsql_show_dependency_tb() finds a PL/pgSQL function's
# statements resolve to (PostgreSQL's parser and catalog: overloads,
# casts, views) is an edge of the live map, and that the map links no
# other overload of it, nor leaves the choice ambiguous.  The fixtures whose calls PostgreSQL names but never
# runs (a folded CASE, an unread CTE, a branch for another server version,
# a view column not read: each held to a trace by its own test) must
# differ, and by just those calls.
#
# Exit: 0 pass, 1 fail, 77 skip (no plpgsql_check).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
[ -f "$(pg_config --sharedir 2>/dev/null)/extension/plpgsql_check.control" ] ||
	[ -f /usr/share/postgresql/15/extension/plpgsql_check.control ] ||
	{ echo "skip: plpgsql_check is not installed (postgresql-15-plpgsql-check)" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-oracle-test.XXXXXX")
trap 'rm -rf "$work"; pgtest_stop' EXIT
pgtest_start

# What PostgreSQL names and the map leaves out on purpose, per fixture.
declare -A expected_missing=(
	[constfold]="app.folded() -> app.rows()
app.folded() -> app.three()
app.folded() -> app.yes()"
	[unreadcte]="app.modifying() -> app.g(text)
app.unread_plpgsql() -> app.g(text)"
	[verbranch]="app.snapshot(integer) -> app.c()"
	[viewcols]="vc.read_outer() -> vc.col_b(integer)
vc.read_star_v() -> vc.col_a(integer)"
)
# What the map links besides PostgreSQL's choice, on purpose: a call
# plpgsql_check does not read (OPEN ... FOR EXECUTE, the other overload,
# held to a trace by its test).
declare -A expected_other=(
	[usingtypes]="another overload in the map: u.by_query(integer) -> u.f(integer)"
)
checked=0 dependencies=0
for fixture in "$src"/fixtures/*.sql; do
	name=$(basename "$fixture" .sql)
	db="oracle_$name"
	pgtest_psql -c "CREATE DATABASE \"$db\"" >/dev/null
	pgtest_psql -d "$db" -c "SET client_min_messages = warning" -f "$fixture" >/dev/null 2>&1 ||
		pgtest_fail "fixture $name does not load"
	rc=0
	bash "$src/bench/dependency_oracle.sh" --cgmap "$CGMAP" "$db" >"$work/$name.out" 2>&1 || rc=$?
	summary=$(grep '^plpgsql_check:' "$work/$name.out") ||
		{ cat "$work/$name.out" >&2; pgtest_fail "$name: the oracle did not run"; }
	other=$(grep -E '^(another overload in the map|among the ambiguous candidates): ' "$work/$name.out" || true)
	if [ "$other" != "${expected_other[$name]:-}" ]; then
		cat "$work/$name.out" >&2
		pgtest_fail "$name: the map links another overload than PostgreSQL, or leaves its choice ambiguous"
	fi
	got=$(sed -n 's/^missing from the map: //p' "$work/$name.out")
	want=${expected_missing[$name]:-}
	if [ "$got" != "$want" ]; then
		cat "$work/$name.out" >&2
		pgtest_fail "$name: missing from the map: '$got', expected '$want'"
	fi
	if [ -z "$want" ] && [ -z "${expected_other[$name]:-}" ] && [ "$rc" -ne 0 ]; then
		cat "$work/$name.out" >&2
		pgtest_fail "$name: the oracle failed (exit $rc)"
	fi
	checked=$((checked + 1))
	dependencies=$((dependencies + $(sed -n 's/.*: \([0-9]*\) dependencies on user functions.*/\1/p' <<<"$summary")))
done
[ "$dependencies" -gt 100 ] || pgtest_fail "only $dependencies dependencies in all: the oracle saw too little"
echo "ok: $checked fixtures, $dependencies dependencies PostgreSQL resolves, each an edge of the map"
