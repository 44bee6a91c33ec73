/*
 * test_exprcall.c - the overload a call in a DDL expression runs
 * (cgmap/exprcall.h): operand types from constants, casts, the relation's
 * columns or a view query's FROM items at the right query level, and the
 * choice among the candidates a source lists, as PostgreSQL makes it.
 * The sources here are hand-made: app.players (id integer, username
 * name, born date), app.events (player_id integer, at timestamp(3) with
 * time zone), and functions the tests list.
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

#include "cgmap/exprcall.h"
#include "cgmap/types.h"
#include "jsondom.h"

static cgm_arena *arena;
static cgm_model *model;

/* The candidates every test's source lists: name, schema, rank, types. */
typedef struct fake_fn {
	cgm_function f;
	int rank;
} fake_fn;

static fake_fn fns[16];
static int nfns;

static int setup(void **state)
{
	(void)state;
	arena = cgm_arena_new();
	model = cgm_model_new();
	nfns = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cgm_model_free(model);
	cgm_arena_free(arena);
	return 0;
}

static const cgm_function *add_fn(const char *schema, const char *name, int rank, const char *result,
				  int ndefaults, bool variadic, int nargs, ...)
{
	fake_fn *x = &fns[nfns++];
	memset(x, 0, sizeof *x);
	const char **types = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(nargs + 1));
	va_list ap;
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++)
		types[i] = va_arg(ap, const char *);
	va_end(ap);
	x->f.schema = schema;
	x->f.name = name;
	x->f.result = result;
	x->f.nargs = nargs;
	x->f.ndefaults = ndefaults;
	x->f.variadic = variadic;
	x->f.argtypes = types;
	x->f.kind = CGM_KIND_FUNCTION;
	x->rank = rank;
	return &x->f;
}

static const char *type_name(void *ctx, const jd_node *tn)
{
	(void)ctx;
	return cgm_type_canonical_json(arena, tn, NULL);
}

static const cgm_column players[] = { { "id", "integer" }, { "username", "name" }, { "born", "date" } };
static const cgm_column events[] = { { "player_id", "integer" },
				     { "at", "timestamp(3) with time zone" } };

static const cgm_column *relation(void *ctx, const char *schema, const char *name, int *ncolumns)
{
	(void)ctx;
	if (schema && strcmp(schema, "app") != 0)
		return NULL;
	if (strcmp(name, "players") == 0) {
		*ncolumns = 3;
		return players;
	}
	if (strcmp(name, "events") == 0) {
		*ncolumns = 2;
		return events;
	}
	return NULL;
}

static int candidates(void *ctx, const char *schema, const char *name, int nargs,
		      cgm_exprcall_candidate *out, int max)
{
	(void)ctx;
	int n = 0;
	for (int i = 0; i < nfns; i++) {
		const cgm_function *f = &fns[i].f;
		if (strcmp(f->name, name) != 0 || (schema && strcmp(f->schema, schema) != 0))
			continue;
		if (!(nargs <= f->nargs && nargs >= f->nargs - f->ndefaults) &&
		    !(f->variadic && nargs >= f->nargs - 1))
			continue;
		if (n == max)
			return -1;
		out[n++] = (cgm_exprcall_candidate){ f, fns[i].rank };
	}
	return n;
}

static cgm_exprcall_source source(const jd_node *query, const char *rel)
{
	return (cgm_exprcall_source){ .arena = arena,
				      .type_name = type_name,
				      .relation = relation,
				      .candidates = candidates,
				      .model = model,
				      .query = query,
				      .schema = rel ? "app" : NULL,
				      .rel = rel };
}

static const jd_node *parse_select(const char *sql)
{
	PgQueryParseResult r = pg_query_parse(sql);
	assert_null(r.error);
	jd_node *tree = jd_parse(arena, r.parse_tree, strlen(r.parse_tree));
	pg_query_free_parse_result(r);
	return jd_get(jd_get(jd_at(jd_get(tree, "stmts"), 0), "stmt"), "SelectStmt");
}

/* The n-th FuncCall named `name` below node, in document order. */
static const jd_node *nth_call(const jd_node *node, const char *name, int *n)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++) {
			const jd_node *c = nth_call(jd_at(node, i), name, n);
			if (c)
				return c;
		}
		return NULL;
	}
	if (!jd_is_object(node))
		return NULL;
	const jd_node *call = jd_get(node, "FuncCall");
	if (call) {
		const jd_node *names = jd_get(call, "funcname");
		const char *last = jd_string_node(jd_at(names, jd_size(names) - 1));
		if (last && strcmp(last, name) == 0 && (*n)-- == 0)
			return call;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value) {
		const jd_node *c = nth_call(value, name, n);
		if (c)
			return c;
	}
	(void)key;
	return NULL;
}

static const cgm_function *chosen(cgm_exprcall_source *src, const jd_node *query, const char *name,
				  int which)
{
	int n = which;
	const jd_node *call = nth_call(query, name, &n);
	assert_non_null(call);
	return cgm_exprcall_choose(src, call);
}

static void test_base_type(void **state)
{
	(void)state;
	assert_string_equal(cgm_exprcall_base_type(arena, "character varying(20)"), "character varying");
	assert_string_equal(cgm_exprcall_base_type(arena, "timestamp(3) with time zone"),
			    "timestamp with time zone");
	assert_string_equal(cgm_exprcall_base_type(arena, "numeric(10,2)[]"), "numeric[]");
	assert_string_equal(cgm_exprcall_base_type(arena, "integer"), "integer");
	assert_null(cgm_exprcall_base_type(arena, NULL));
}

/* A joined item's column by its alias, an unqualified one of the only
 * relation that has it, a subquery's own FROM item, a typmod dropped. */
static void test_view_columns(void **state)
{
	(void)state;
	const cgm_function *by_int = add_fn("app", "sym", 0, "text", 0, false, 1, "integer");
	const cgm_function *by_name = add_fn("app", "sym", 0, "text", 0, false, 1, "name");
	const cgm_function *by_date = add_fn("app", "sym", 0, "text", 0, false, 1, "date");
	const cgm_function *by_ts =
		add_fn("app", "sym", 0, "text", 0, false, 1, "timestamp with time zone");
	const jd_node *q = parse_select(
		"SELECT app.sym(p.username), app.sym(e.at), app.sym(born),"
		" (SELECT app.sym(x.player_id) FROM app.events x), app.sym(id)"
		" FROM app.players p JOIN app.events e ON e.player_id = p.id");
	cgm_exprcall_source src = source(q, NULL);
	assert_ptr_equal(chosen(&src, q, "sym", 0), by_name);
	assert_ptr_equal(chosen(&src, q, "sym", 1), by_ts);
	assert_ptr_equal(chosen(&src, q, "sym", 2), by_date);
	assert_ptr_equal(chosen(&src, q, "sym", 3), by_int);
	assert_ptr_equal(chosen(&src, q, "sym", 4), by_int);
	cgm_exprcall_source_done(&src);
}

/* Where cgmap cannot tell, no choice: a subquery item that may hold the
 * column, a CTE, an alias of no relation it knows. */
static void test_unknown_items(void **state)
{
	(void)state;
	add_fn("app", "sym", 0, "text", 0, false, 1, "integer");
	add_fn("app", "sym", 0, "text", 0, false, 1, "date");
	const jd_node *q = parse_select(
		"WITH c AS (SELECT 1 AS born) SELECT app.sym(born), app.sym(s.v), app.sym(c.born),"
		" app.sym(k.born) FROM (SELECT 1 AS v) s, c, app.players");
	cgm_exprcall_source src = source(q, NULL);
	assert_null(chosen(&src, q, "sym", 1));
	assert_null(chosen(&src, q, "sym", 2));
	assert_null(chosen(&src, q, "sym", 3));
	cgm_exprcall_source_done(&src);
}

/* Untyped literals and NULL take a string overload; the earlier schema
 * masks the same argument types; two of one schema, or a variadic
 * candidate, leave the call unchosen; defaults make a candidate. */
static void test_choice(void **state)
{
	(void)state;
	add_fn("a", "g", 0, "integer", 0, false, 1, "integer");
	const cgm_function *g_text = add_fn("b", "g", 1, "integer", 0, false, 1, "text");
	const cgm_function *m_early = add_fn("a", "m", 0, "integer", 1, false, 2, "text", "integer");
	add_fn("b", "m", 1, "integer", 0, false, 1, "text");
	add_fn("a", "v", 0, "integer", 0, true, 1, "integer[]");
	add_fn("a", "v", 0, "integer", 0, false, 1, "text");
	add_fn("a", "twice", 0, "integer", 0, false, 1, "integer");
	add_fn("a", "twice", 0, "integer", 0, false, 1, "integer");
	const cgm_function *k_text = add_fn("a", "k", 0, "integer", 0, false, 2, "integer", "text");
	add_fn("a", "k", 0, "integer", 0, false, 2, "integer", "integer");
	const jd_node *q = parse_select(
		"SELECT g('x'), m('y'), v(1), twice(1), k(id, NULL), g(1::text) FROM app.players");
	cgm_exprcall_source src = source(q, NULL);
	assert_ptr_equal(chosen(&src, q, "g", 0), g_text);
	assert_ptr_equal(chosen(&src, q, "m", 0), m_early);
	assert_null(chosen(&src, q, "v", 0));
	assert_null(chosen(&src, q, "twice", 0));
	assert_ptr_equal(chosen(&src, q, "k", 0), k_text);
	assert_ptr_equal(chosen(&src, q, "g", 1), g_text);
	cgm_exprcall_source_done(&src);
}

/* A constant too large for integer is bigint while it fits, then
 * numeric, as is one with a point (make_const). */
static void test_constants(void **state)
{
	(void)state;
	const cgm_function *big = add_fn("a", "n", 0, "text", 0, false, 1, "bigint");
	const cgm_function *num = add_fn("a", "n", 0, "text", 0, false, 1, "numeric");
	const cgm_function *i4 = add_fn("a", "n", 0, "text", 0, false, 1, "integer");
	const jd_node *q = parse_select("SELECT n(10000000000), n(9223372036854775807),"
					" n(9223372036854775808), n(1.5), n(7),"
					" n(-9223372036854775808), n(-9223372036854775809)");
	cgm_exprcall_source src = source(q, NULL);
	assert_ptr_equal(chosen(&src, q, "n", 0), big);
	assert_ptr_equal(chosen(&src, q, "n", 1), big);
	assert_ptr_equal(chosen(&src, q, "n", 2), num);
	assert_ptr_equal(chosen(&src, q, "n", 3), num);
	assert_ptr_equal(chosen(&src, q, "n", 4), i4);
	assert_ptr_equal(chosen(&src, q, "n", 5), big);
	assert_ptr_equal(chosen(&src, q, "n", 6), num);
	cgm_exprcall_source_done(&src);
}

/* A call's result types the call around it; a check's columns are its
 * table's. */
static void test_nested_and_relation(void **state)
{
	(void)state;
	add_fn("app", "up", 0, "name", 0, false, 1, "text");
	const cgm_function *by_name = add_fn("app", "sym", 0, "text", 0, false, 1, "name");
	add_fn("app", "sym", 0, "text", 0, false, 1, "integer");
	const cgm_function *by_date = add_fn("app", "sym", 0, "text", 0, false, 1, "date");
	const jd_node *q = parse_select("SELECT app.sym(app.up('x')), app.sym(born)");
	cgm_exprcall_source src = source(NULL, "players");
	assert_ptr_equal(chosen(&src, q, "sym", 0), by_name);
	assert_ptr_equal(chosen(&src, q, "sym", 1), by_date);
	assert_true(cgm_exprcall_may_run(&src, q, "app", "sym", by_date));
	cgm_exprcall_source_done(&src);
	/* Without the relation, born is unknown: no choice, so any may run. */
	cgm_exprcall_source none = source(NULL, NULL);
	assert_null(chosen(&none, q, "sym", 1));
	cgm_exprcall_source_done(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_base_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_items, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_and_relation, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
