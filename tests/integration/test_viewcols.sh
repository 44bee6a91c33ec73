#!/usr/bin/env bash
# test_viewcols.sh - a read of a view runs the functions of the output
# columns the statement reads and of the view's clauses, not those of the
# columns it leaves alone (viewcols.h): fixtures/viewcols.sql gives the
# edges of fixtures/expected/viewcols.edges from the live database, from
# the file and from its pg_dump; run with `cgmap_trace.track = all`, each
# is observed on its static edge and nothing is left unexplained.  A view
# PostgreSQL pulls up evaluates only the columns read (and its WHERE on
# every read), `SELECT *` and a whole-row reference read them all; a
# grouped view's unused column is replaced by NULL unless it calls a
# volatile function, a volatile column keeps a simple view from being
# pulled up and is evaluated unread, a plain DISTINCT evaluates every
# column, and a view over a view (`*` of one too) reads there what its
# columns read read.  Of overloads of one name in a view, each column runs
# the one its arguments' types take (exprcall.h): a read of `who` runs
# vc.sym(name), not the vc.sym(date) of the column beside it, which the
# live map linked too, and the files linked vc.sym(integer) for all.
# Before, every function of a view was linked to every read of it: edges
# to col_b(), col_a() and col_d() that never ran.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

PGTEST_WORK=$(mktemp -d)
chmod 755 "$PGTEST_WORK"
trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
expected=$src/fixtures/expected/viewcols.edges
what="reads of view columns"
pgtest_traced_fixture "$PGTEST_WORK" viewcols "$src/fixtures/viewcols.sql" "$expected" "$what"

pgtest_expect_dump_edges "$PGTEST_WORK" viewcols "$expected" "$what (pg_dump)"

pgtest_traced_workload "$PGTEST_WORK" viewcols "$expected" "$what" <<'SQL'
SELECT vc.read_a();
SELECT vc.read_star();
SELECT vc.read_row();
SELECT vc.count_flat();
SELECT vc.sum_b();
SELECT vc.read_grouped();
SELECT vc.read_volv();
SELECT vc.read_dist();
SELECT vc.read_outer();
SELECT vc.read_star_v();
SELECT vc.read_label();
SELECT vc.read_who();
SELECT vc.read_born();
SELECT vc.read_first();
SELECT vc.read_shout();
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" yes \
	"vc.read_a() -> vc.col_a(integer) via view (view vc.flat)" \
	"vc.count_flat() -> vc.keep(integer) via view (view vc.flat)" \
	"vc.read_grouped() -> vc.vol_c(integer) via view (view vc.grouped)" \
	"vc.read_outer() -> vc.col_a(integer) via view (view vc.flat)" \
	"vc.read_label() -> vc.col_b(integer) via view (view vc.flat)"
pgtest_expect_edge "$PGTEST_WORK/map.edges" no \
	"vc.read_a() -> vc.col_b(" "vc.count_flat() -> vc.col_" "vc.sum_b() -> vc.col_a(" \
	"vc.read_grouped() -> vc.col_a(" "vc.read_volv() -> vc.col_b(" \
	"vc.read_outer() -> vc.col_b(" "vc.read_outer() -> vc.col_d(" \
	"vc.read_star_v() -> vc.col_a(" \
	"vc.read_who() -> vc.sym(date)" "vc.read_born() -> vc.sym(name)" \
	"vc.read_born() -> vc.sym(integer)" "vc.read_first() -> vc.sym(date)" \
	"vc.read_shout() -> vc.sym(date)" "vc.read_shout() -> vc.sym(integer)"
