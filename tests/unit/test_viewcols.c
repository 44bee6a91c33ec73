/*
 * test_viewcols.c - which of a view's functions a read of the view runs
 * (cgmap/viewcols.h): the view's query cut into its output columns and
 * the clauses evaluated on every read, the columns of each relation it
 * reads by the columns reading them, and the decisions on a read (the
 * columns a statement reads of each relation: test_extract.c's
 * test_read_columns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pg_query.h>

#include "cgmap/viewcols.h"
#include "jsondom.h"

static cgm_arena *arena;

static int setup(void **state)
{
	(void)state;
	arena = cgm_arena_new();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cgm_arena_free(arena);
	return 0;
}

/* random() and generate_series() force their column; nothing else. */
static bool forces(void *ctx, const char *schema, const char *name, int nargs)
{
	(void)ctx;
	(void)schema;
	(void)nargs;
	return strcmp(name, "random") == 0 || strcmp(name, "generate_series") == 0;
}

/* app.t has columns k, x, y; nothing else is known. */
static int star(void *ctx, const char *schema, const char *name, const char *const **columns)
{
	static const char *const t[] = { "k", "x", "y" };
	(void)ctx;
	if (strcmp(name, "t") != 0 || (schema && strcmp(schema, "app") != 0))
		return -1;
	*columns = t;
	return 3;
}

static bool cut(const char *sql, const char *const *columns, int ncolumns, cgm_viewcols *out)
{
	PgQueryParseResult r = pg_query_parse(sql);
	assert_null(r.error);
	jd_node *tree = jd_parse(arena, r.parse_tree, strlen(r.parse_tree));
	pg_query_free_parse_result(r);
	jd_node *select = jd_get(jd_get(jd_at(jd_get(tree, "stmts"), 0), "stmt"), "SelectStmt");
	return cgm_viewcols_of(arena, select, columns, ncolumns, forces, star, NULL, out);
}

/* The column (NULL: always) of the part calling `fn`; "-" when none does,
 * "*" when parts of different columns do. */
static const char *column_of(const cgm_viewcols *vc, const char *fn)
{
	const char *found = "-";
	for (int i = 0; i < vc->nparts; i++) {
		if (!cgm_viewcols_calls(vc->parts[i].node, NULL, fn))
			continue;
		const char *c = vc->parts[i].column;
		if (strcmp(found, "-") == 0)
			found = c;
		else if (found != c && (!found || !c || strcmp(found, c) != 0))
			found = "*";
	}
	return found;
}

/* The pairs of relation `name` as "read<by" text, in order: "x<a y<" ("*"
 * for every column, nothing after < for always). */
static const char *pairs_of(const cgm_viewcols *vc, const char *name)
{
	static char buf[512];
	buf[0] = 0;
	for (int k = 0; k < vc->nrels; k++) {
		if (strcmp(vc->rels[k].name, name) != 0)
			continue;
		for (int i = 0; i < vc->rels[k].nreads; i++) {
			const char *read = vc->rels[k].reads[i], *by = vc->rels[k].read_by[i];
			size_t n = strlen(buf);
			snprintf(buf + n, sizeof buf - n, "%s%s<%s", n ? " " : "", read ? read : "*",
				 by ? by : "");
		}
	}
	return buf;
}

static void test_flattened_columns(void **state)
{
	(void)state;
	const char *cols[] = { "id", "a", "b" };
	cgm_viewcols vc;
	assert_true(cut("SELECT t.id, app.fa(t.x) AS a, app.fb(app.fc(t.y)) AS b FROM app.t"
			" WHERE app.keep(t.id)",
			cols, 3, &vc));
	assert_string_equal(column_of(&vc, "fa"), "a");
	assert_string_equal(column_of(&vc, "fb"), "b");
	assert_string_equal(column_of(&vc, "fc"), "b");
	assert_null(column_of(&vc, "keep"));
	assert_string_equal(column_of(&vc, "nowhere"), "-");
	/* t read on every read (its rows), its columns by the columns. */
	assert_string_equal(pairs_of(&vc, "t"), "id<id x<a y<b id<");
	/* A function in a column and in the WHERE runs on every read. */
	const char *two[] = { "a", "b" };
	assert_true(cut("SELECT f(x) AS a, g(x) AS b FROM t WHERE f(x) > 0 ORDER BY g(y)", two, 2,
			&vc));
	assert_string_equal(column_of(&vc, "f"), "*");
	assert_string_equal(pairs_of(&vc, "t"), "x<a x<b x< y<");
}

static void test_forced_columns(void **state)
{
	(void)state;
	const char *cols[] = { "a", "b", "c", "d" };
	cgm_viewcols vc;
	/* GROUP BY 1 and ORDER BY c name outputs: evaluated always, as are
	 * a volatile and a set-returning call's columns. */
	assert_true(cut("SELECT fa(x) AS a, fb(x) * random() AS b, fc(y) AS c, fd(y) AS d FROM t"
			" GROUP BY 1, 3 ORDER BY c",
			cols, 4, &vc));
	assert_null(column_of(&vc, "fa"));
	assert_null(column_of(&vc, "fb"));
	assert_null(column_of(&vc, "fc"));
	assert_string_equal(column_of(&vc, "fd"), "d");
	assert_true(cut("SELECT fa(x) AS a, generate_series(1, x) AS b FROM t", cols, 2, &vc));
	assert_string_equal(column_of(&vc, "fa"), "a");
	/* DISTINCT ON names its column, or runs its expression on every
	 * read (a part of its own: the effect, merged, is always); the
	 * others stay per column. */
	assert_true(cut("SELECT DISTINCT ON (a) fa(x) AS a, fb(x) AS b FROM t", cols, 2, &vc));
	assert_null(column_of(&vc, "fa"));
	assert_string_equal(column_of(&vc, "fb"), "b");
	assert_true(cut("SELECT DISTINCT ON (fa(x)) fa(x) AS a, fb(x) AS b FROM t", cols, 2, &vc));
	assert_string_equal(column_of(&vc, "fa"), "*");
	assert_string_equal(column_of(&vc, "fb"), "b");
}

static void test_not_told_apart(void **state)
{
	(void)state;
	const char *cols[] = { "a", "b" };
	cgm_viewcols vc;
	assert_false(cut("SELECT DISTINCT fa(x) AS a, fb(x) AS b FROM t", cols, 2, &vc));
	assert_false(cut("SELECT fa(x) AS a, 1 AS b FROM t UNION SELECT 1, fb(y) FROM u", cols, 2, &vc));
	assert_false(cut("SELECT * FROM t", cols, 2, &vc));
	assert_false(cut("SELECT t.*, fa(x) AS b FROM t", cols, 2, &vc));
	assert_false(cut("SELECT fa(x) AS a FROM t", cols, 2, &vc)); /* 1 target, 2 columns */
	assert_false(cut("VALUES (1, 2)", cols, 2, &vc));
}

static void test_relations_read(void **state)
{
	(void)state;
	const char *cols[] = { "a", "b", "c", "d" };
	cgm_viewcols vc;
	assert_true(cut("SELECT t.a, u.b, (SELECT max(w.z) FROM app.w) AS c, t AS d"
			" FROM app.t JOIN app.u u USING (k) NATURAL JOIN app.n",
			cols, 4, &vc));
	/* USING's columns always; a whole row (d) reads every column of t;
	 * a NATURAL join reads what cannot be told. */
	assert_string_equal(pairs_of(&vc, "t"), "*<");
	assert_true(cut("SELECT t.a, u.b, (SELECT max(w.z) FROM app.w) AS c, t AS d"
			" FROM app.t JOIN app.u u USING (k)",
			cols, 4, &vc));
	/* `u.b` may be column u's field b too: u counts for t (a name that
	 * is no column of t reads nothing). */
	assert_string_equal(pairs_of(&vc, "t"), "k< a<a u<b w<c *<d");
	assert_string_equal(pairs_of(&vc, "u"), "k< t<a b<b w<c t<d");
	/* A subquery's relation is read whole, only when its column is. */
	assert_string_equal(pairs_of(&vc, "w"), "*<c");
	for (int k = 0; k < vc.nrels; k++)
		if (strcmp(vc.rels[k].name, "w") == 0) {
			assert_int_equal(vc.rels[k].ncolumns, 1);
			assert_string_equal(vc.rels[k].columns[0], "c");
		} else {
			assert_int_equal(vc.rels[k].ncolumns, 0);
		}
	/* A relation read for no column is still read. */
	const char *one[] = { "n" };
	assert_true(cut("SELECT count(*) AS n FROM app.t", one, 1, &vc));
	assert_int_equal(vc.nrels, 1);
	assert_non_null(vc.rels[0].reads);
	assert_int_equal(vc.rels[0].nreads, 0);
}

static void test_stars(void **state)
{
	(void)state;
	cgm_viewcols vc;
	/* `*` of the one relation shows its columns, read as they are. */
	const char *kxy[] = { "k", "x", "y" };
	assert_true(cut("SELECT * FROM app.t WHERE keep(k)", kxy, 3, &vc));
	assert_null(column_of(&vc, "keep"));
	assert_string_equal(pairs_of(&vc, "t"), "k< k<k x<x y<y");
	/* `alias.*` beside an expression; the view's own names. */
	const char *named[] = { "a", "b", "c", "z" };
	assert_true(cut("SELECT s.*, f(s.x) AS z FROM app.t s", named, 4, &vc));
	assert_string_equal(column_of(&vc, "f"), "z");
	assert_string_equal(pairs_of(&vc, "t"), "x<z k<a x<b y<c");
	/* A relation whose columns are not known, a join: not told apart. */
	assert_false(cut("SELECT * FROM app.u", kxy, 3, &vc));
	assert_false(cut("SELECT * FROM app.t JOIN app.u USING (k)", kxy, 3, &vc));
}

static bool fn_named(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "full_name") == 0;
}

static void test_effect_pairs(void **state)
{
	(void)state;
	/* A relation's reads added to the view's effect: names that are no
	 * column dropped, but a function's (attribute notation: the whole
	 * row), each pair once, sorted. */
	const char *reads[] = { "x", "zz", "full_name", NULL, "x" };
	const char *by[] = { "b", NULL, "a", "c", "b" };
	cgm_viewcols_rel rel = { .name = "t", .nreads = 5, .reads = reads, .read_by = by };
	const cgm_column cols[] = { { "k", NULL }, { "x", NULL } };
	cgm_effect e = { .reach = CGM_REACH_VIEW };
	cgm_viewcols_add_rel(arena, &e, true, &rel, cols, 2, fn_named, NULL);
	assert_int_equal(e.nreads, 3);
	assert_null(e.reads[0]);
	assert_string_equal(e.read_by[0], "a");
	assert_string_equal(e.reads[1], "x");
	assert_string_equal(e.read_by[1], "b");
	assert_null(e.reads[2]);
	assert_string_equal(e.read_by[2], "c");
	assert_int_equal(e.ncolumns, 0); /* read on every read */
	/* A second reading of it, only for column d: still every read. */
	const char *r2[] = { "k" }, *b2[] = { "d" }, *c2[] = { "d" };
	cgm_viewcols_rel sub = { .name = "t", .ncolumns = 1, .columns = c2, .nreads = 1,
				 .reads = r2, .read_by = b2 };
	cgm_viewcols_add_rel(arena, &e, false, &sub, cols, 2, fn_named, NULL);
	assert_int_equal(e.nreads, 4);
	assert_string_equal(e.read_by[3], "d");
	assert_int_equal(e.ncolumns, 0);
	/* Only in a column's subquery: read when that column is. */
	cgm_effect only = { .reach = CGM_REACH_VIEW };
	cgm_viewcols_add_rel(arena, &only, true, &sub, cols, 2, fn_named, NULL);
	assert_int_equal(only.ncolumns, 1);
	assert_string_equal(only.columns[0], "d");
}

static void test_decisions(void **state)
{
	(void)state;
	const char *a[] = { "a" }, *b[] = { "b" }, *ab[] = { "a", "b" }, *none[1] = { NULL };
	/* A clause's function (no columns) runs on every read. */
	assert_true(cgm_viewcols_runs(none, 0, NULL, 0, NULL, 0));
	/* A column's runs when it is read, forced, or all are. */
	assert_true(cgm_viewcols_runs(a, 1, NULL, 0, a, 1));
	assert_false(cgm_viewcols_runs(a, 1, NULL, 0, b, 1));
	assert_false(cgm_viewcols_runs(none, 0, NULL, 0, b, 1));
	assert_true(cgm_viewcols_runs(NULL, 0, NULL, 0, b, 1));
	assert_true(cgm_viewcols_runs(a, 1, b, 1, b, 1));
	assert_true(cgm_viewcols_runs(b, 1, NULL, 0, ab, 2));
	/* The inner columns of pairs x<a, y<b, k<(always). */
	const char *reads[] = { "x", "y", "k" }, *by[] = { "a", "b", NULL };
	const char *out[8];
	int n = cgm_viewcols_inner(reads, by, 3, a, 1, NULL, 0, out, 8);
	assert_int_equal(n, 2);
	assert_string_equal(out[0], "x");
	assert_string_equal(out[1], "k");
	assert_int_equal(cgm_viewcols_inner(reads, by, 3, none, 0, NULL, 0, out, 8), 1);
	assert_int_equal(cgm_viewcols_inner(reads, by, 3, none, 0, b, 1, out, 8), 2);
	assert_int_equal(cgm_viewcols_inner(reads, by, 3, NULL, 0, NULL, 0, out, 8), 3);
	/* A pair reading every column, when it applies. */
	const char *whole[] = { NULL, "x" }, *wby[] = { "b", "a" };
	assert_int_equal(cgm_viewcols_inner(whole, wby, 2, a, 1, NULL, 0, out, 8), 1);
	assert_int_equal(cgm_viewcols_inner(whole, wby, 2, b, 1, NULL, 0, out, 8), -1);
	/* Effects' columns merged: a clause makes it always. */
	const char **cols = NULL;
	int ncols = 0;
	cgm_viewcols_add_column(arena, &cols, &ncols, true, "a");
	cgm_viewcols_add_column(arena, &cols, &ncols, false, "b");
	cgm_viewcols_add_column(arena, &cols, &ncols, false, "a");
	assert_int_equal(ncols, 2);
	cgm_viewcols_add_column(arena, &cols, &ncols, false, NULL);
	assert_int_equal(ncols, 0);
	cgm_viewcols_add_column(arena, &cols, &ncols, false, "c");
	assert_int_equal(ncols, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flattened_columns),
		cmocka_unit_test(test_forced_columns),
		cmocka_unit_test(test_not_told_apart),
		cmocka_unit_test(test_relations_read),
		cmocka_unit_test(test_stars),
		cmocka_unit_test(test_effect_pairs),
		cmocka_unit_test(test_decisions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
