/*
 * test_resolve.c - resolution of call sites with PostgreSQL's rules:
 * search_path and pg_catalog placement, masking, arity with defaults and
 * VARIADIC, named arguments, literal types, procedures, triggers, missing
 * callees and ambiguity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "cgmap/relfx.h"

static cgm_model *model;

static const char **list(cgm_arena *a, int n, const char *const *items)
{
	const char **out = cgm_arena_alloc(a, sizeof(char *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		out[i] = items[i];
	return out;
}

/* A function with argument types given as a NULL-terminated list. */
static cgm_function *fn(const char *schema, const char *name, const char *id, int ndefaults,
			bool variadic, bool builtin, const char *const *types, const char *const *names)
{
	cgm_function *f = cgm_model_add_function(model);
	f->schema = schema;
	f->name = name;
	f->id = id;
	int n = 0;
	while (types && types[n])
		n++;
	f->nargs = n;
	f->argtypes = list(model->arena, n, types);
	f->argnames = names ? list(model->arena, n, names) : NULL;
	f->identity_args = id + strlen(schema) + strlen(name) + 1;
	f->ndefaults = ndefaults;
	f->variadic = variadic;
	f->builtin = builtin;
	f->npath = -1;
	f->kind = CGM_KIND_FUNCTION;
	return f;
}

static cgm_site *add_site(cgm_function *caller, const char *schema, const char *name,
			  int nargs, const char *const *types, const char *const *names)
{
	caller->sites = cgm_arena_grow(model->arena, caller->sites, (size_t)caller->nsites,
				       (size_t)caller->nsites + 1, sizeof(cgm_site));
	cgm_site *s = &caller->sites[caller->nsites++];
	memset(s, 0, sizeof *s);
	s->line = caller->nsites;
	s->kind = CGM_SITE_CALL;
	s->schema = schema;
	s->name = name;
	s->nargs = nargs;
	s->argtypes = list(model->arena, nargs, types);
	cgm_site_rare_of(model->arena, s)->argnames = list(model->arena, nargs, names ? names : (const char *const[]){ NULL, NULL, NULL, NULL });
	return s;
}

#define T(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int setup(void **state)
{
	model = cgm_model_new();
	static const char *path[] = { "pg_catalog", "public" };
	model->source.default_search_path = path;
	model->source.npath = 2;
	fn("public", "caller", "public.caller()", 0, false, false, NULL, NULL);
	fn("app", "price", "app.price(integer)", 0, false, false, T("integer"), NULL);
	fn("app", "price", "app.price(numeric)", 0, false, false, T("numeric"), NULL);
	fn("app", "price", "app.price(numeric, numeric)", 0, false, false, T("numeric", "numeric"), NULL);
	fn("app", "discount", "app.discount(numeric, numeric, numeric)", 2, false, false,
	   T("numeric", "numeric", "numeric"), T("amount", "percent", "floor"));
	fn("app", "label", "app.label(text[])", 0, true, false, T("text[]"), NULL);
	fn("app", "pick", "app.pick(text)", 0, false, false, T("text"), NULL);
	fn("app", "pick", "app.pick(integer)", 0, false, false, T("integer"), NULL);
	fn("app", "pick", "app.pick(name)", 0, false, false, T("name"), NULL);
	fn("app", "diag", "app.diag(text)", 0, false, false, T("text"), NULL);
	fn("app", "diag", "app.diag(text[])", 0, true, false, T("text[]"), NULL);
	fn("pg_catalog", "unnest", "unnest(anyarray)", 0, false, true, T("anyarray"), NULL);
	fn("app", "both", "app.both(bigint)", 0, false, false, T("bigint"), NULL);
	fn("app", "both", "app.both(numeric)", 0, false, false, T("numeric"), NULL);
	fn("app", "arr", "app.arr(text,bigint)", 0, false, false, T("text", "bigint"), NULL);
	fn("app", "arr", "app.arr(text,anyarray)", 0, false, false, T("text", "anyarray"), NULL);
	fn("public", "lower", "public.lower(text)", 0, false, false, T("text"), NULL);
	fn("pg_catalog", "lower", "lower(text)", 0, false, true, T("text"), NULL);
	fn("pg_catalog", "now", "now()", 0, false, true, NULL, NULL);
	cgm_function *p = fn("app", "proc", "app.proc(integer)", 0, false, false, T("integer"), NULL);
	p->kind = CGM_KIND_PROCEDURE;
	fn("app", "audit", "app.audit()", 0, false, false, NULL, NULL);
	cgm_trigger *t = cgm_model_add_trigger(model);
	t->table_schema = "app";
	t->table_name = "orders";
	t->name = "orders_audit";
	t->events = CGM_EV_INSERT | CGM_EV_UPDATE;
	t->function_id = "app.audit()";
	t->enabled = true;
	cgm_relation *r = cgm_model_add_relation(model);
	r->schema = "app";
	r->name = "orders";
	return 0;
}

static int teardown(void **state)
{
	cgm_model_free(model);
	return 0;
}

static cgm_function *caller(void)
{
	cgm_model_index(model);
	cgm_model_link(model);
	return &model->functions[cgm_model_find(model, "public.caller()")];
}

static void expect_targets(const cgm_site *s, cgm_resolution res, const char *first, const char *second)
{
	if (s->resolution != res)
		fail_msg("site '%s' line %d resolved as %s, expected %s", s->name, s->line,
			 cgm_resolution_name(s->resolution), cgm_resolution_name(res));
	int n = first ? (second ? 2 : 1) : 0;
	assert_int_equal(s->ntargets, n);
	if (first)
		assert_string_equal(model->functions[s->targets[0]].id, first);
	if (second)
		assert_string_equal(model->functions[s->targets[1]].id, second);
}

static cgm_site *site_at(int line)
{
	cgm_function *c = &model->functions[cgm_model_find(model, "public.caller()")];
	for (int i = 0; i < c->nsites; i++)
		if (c->sites[i].line == line)
			return &c->sites[i];
	fail_msg("no site at line %d", line);
	return NULL;
}

static void test_overloads_and_types(void **state)
{
	cgm_function *c = caller();
	add_site(c, "app", "price", 1, T("integer"), NULL);               /* 1 */
	add_site(c, "app", "price", 1, T("numeric"), NULL);               /* 2 */
	add_site(c, "app", "price", 2, T("numeric", "numeric"), NULL);    /* 3 */
	add_site(c, "app", "price", 1, (const char *const[]){ NULL }, NULL); /* 4: unknown type */
	add_site(c, "app", "pick", 1, T("unknown"), NULL);                /* 5: 'x' prefers text */
	add_site(c, "app", "both", 1, T("integer"), NULL);                /* 6: both coerce, a tie */
	add_site(c, "app", "price", 1, T("text"), NULL);                  /* 7: no implicit cast */
	add_site(c, "app", "diag", 1, T("text"), NULL);                   /* 8: not the VARIADIC one */
	add_site(c, "app", "diag", 2, T("text", "unknown"), NULL);        /* 9: only the VARIADIC one */
	add_site(c, NULL, "unnest", 2, T(NULL, NULL), NULL);              /* 10: ROWS FROM form */
	add_site(c, "app", "arr", 2, T("unknown", "unknown"), NULL);      /* 11: categories clash */
	add_site(c, "app", "arr", 2, T("unknown", "integer"), NULL);      /* 12: only bigint takes it */
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "app.price(integer)", NULL);
	expect_targets(site_at(2), CGM_RES_RESOLVED, "app.price(numeric)", NULL);
	expect_targets(site_at(3), CGM_RES_RESOLVED, "app.price(numeric, numeric)", NULL);
	expect_targets(site_at(4), CGM_RES_AMBIGUOUS, "app.price(integer)", "app.price(numeric)");
	expect_targets(site_at(5), CGM_RES_RESOLVED, "app.pick(text)", NULL);
	/* PostgreSQL 15: "function app.both(integer) is not unique". */
	expect_targets(site_at(6), CGM_RES_NOT_UNIQUE, "app.both(bigint)", "app.both(numeric)");
	expect_targets(site_at(7), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(8), CGM_RES_RESOLVED, "app.diag(text)", NULL);
	expect_targets(site_at(9), CGM_RES_RESOLVED, "app.diag(text[])", NULL);
	expect_targets(site_at(10), CGM_RES_BUILTIN, "unnest(anyarray)", NULL);
	/* PostgreSQL 15: "function app.arr(unknown, unknown) is not unique". */
	expect_targets(site_at(11), CGM_RES_NOT_UNIQUE, "app.arr(text,anyarray)", "app.arr(text,bigint)");
	expect_targets(site_at(12), CGM_RES_RESOLVED, "app.arr(text,bigint)", NULL);
	/* Ambiguous sites link every candidate, flagged. */
	int ambiguous_edges = 0;
	for (int i = 0; i < model->nedges; i++)
		ambiguous_edges += model->edges[i].ambiguous;
	assert_int_equal(ambiguous_edges, 2); /* site 4's: a refused call makes none */
}

static void test_defaults_named_variadic(void **state)
{
	cgm_function *c = caller();
	add_site(c, "app", "discount", 1, T("numeric"), NULL);                          /* 1 */
	add_site(c, "app", "discount", 2, T("numeric", "integer"), T(NULL, "floor"));    /* 2 */
	add_site(c, "app", "discount", 2, T("numeric", "integer"), T(NULL, "nosuch"));   /* 3 */
	add_site(c, "app", "label", 3, T("unknown", "text", "unknown"), NULL);           /* 4 */
	add_site(c, "app", "discount", 0, NULL, NULL);                                   /* 5 */
	cgm_site *v = add_site(c, "app", "label", 1, T("text[]"), NULL);                 /* 6 */
	v->variadic_call = true;
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "app.discount(numeric, numeric, numeric)", NULL);
	expect_targets(site_at(2), CGM_RES_RESOLVED, "app.discount(numeric, numeric, numeric)", NULL);
	expect_targets(site_at(3), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(4), CGM_RES_RESOLVED, "app.label(text[])", NULL);
	expect_targets(site_at(5), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(6), CGM_RES_RESOLVED, "app.label(text[])", NULL);
}

/* VARIADIC anyarray takes its arguments as anyelement: all of one type
 * (PostgreSQL 15: run('%s %s', a, b::text) resolves, run('%s', a, b) with
 * text and integer is "function does not exist"); anycompatiblearray takes
 * them as anycompatible, of a common type. */
static void test_polymorphic_variadic(void **state)
{
	(void)state;
	fn("app", "run", "app.run(text)", 0, false, false, T("text"), NULL);
	fn("app", "run", "app.run(text,anyarray)", 0, true, false, T("text", "anyarray"), NULL);
	fn("app", "first", "app.first(anycompatiblearray)", 0, true, false, T("anycompatiblearray"), NULL);
	cgm_function *c = caller();
	add_site(c, "app", "run", 3, T("unknown", "text", "text"), NULL);    /* 1 */
	add_site(c, "app", "run", 3, T("unknown", "text", "integer"), NULL); /* 2 */
	add_site(c, "app", "run", 1, T("unknown"), NULL);                    /* 3 */
	add_site(c, "app", "first", 2, T("integer", "numeric"), NULL);        /* 4 */
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "app.run(text,anyarray)", NULL);
	expect_targets(site_at(2), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(3), CGM_RES_RESOLVED, "app.run(text)", NULL);
	expect_targets(site_at(4), CGM_RES_RESOLVED, "app.first(anycompatiblearray)", NULL);
}

/* Candidates that take the call's arguments as the same types, as
 * PostgreSQL 15 settles them before looking at types: with search_path
 * sa, sb, f(1) runs sa.f(integer) over sb.f(integer, text DEFAULT ''),
 * v(1) runs sa.v(integer) over sa.v(VARIADIC integer[]), and with both
 * f overloads in one schema, "function tie(integer) is not unique". */
static void test_same_arguments_taken(void **state)
{
	(void)state;
	static const char *path[] = { "pg_catalog", "sa", "sb" };
	model->source.default_search_path = path;
	model->source.npath = 3;
	fn("sa", "f", "sa.f(integer)", 0, false, false, T("integer"), NULL);
	fn("sb", "f", "sb.f(integer,text)", 1, false, false, T("integer", "text"), NULL);
	fn("sa", "v", "sa.v(integer)", 0, false, false, T("integer"), NULL);
	fn("sa", "v", "sa.v(integer[])", 0, true, false, T("integer[]"), NULL);
	fn("sa", "tie", "sa.tie(integer)", 0, false, false, T("integer"), NULL);
	fn("sa", "tie", "sa.tie(integer,text)", 1, false, false, T("integer", "text"), NULL);
	cgm_function *c = caller();
	add_site(c, NULL, "f", 1, T("integer"), NULL);            /* 1 */
	add_site(c, NULL, "v", 1, T("integer"), NULL);            /* 2 */
	add_site(c, NULL, "tie", 1, T("integer"), NULL);          /* 3 */
	add_site(c, NULL, "tie", 2, T("integer", "unknown"), NULL); /* 4 */
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "sa.f(integer)", NULL);
	expect_targets(site_at(2), CGM_RES_RESOLVED, "sa.v(integer)", NULL);
	expect_targets(site_at(3), CGM_RES_NOT_UNIQUE, "sa.tie(integer)", "sa.tie(integer,text)");
	expect_targets(site_at(4), CGM_RES_RESOLVED, "sa.tie(integer,text)", NULL);
	int tie_edges = 0; /* site 4's only: a call refused makes none */
	for (int i = 0; i < model->nedges; i++)
		tie_edges += strcmp(model->functions[model->edges[i].to].name, "tie") == 0;
	assert_int_equal(tie_edges, 1);
}

static void test_search_path_and_builtins(void **state)
{
	cgm_function *c = caller();
	add_site(c, NULL, "lower", 1, T("unknown"), NULL); /* 1: pg_catalog first */
	add_site(c, NULL, "now", 0, NULL, NULL);           /* 2: builtin */
	add_site(c, NULL, "price", 1, T("integer"), NULL); /* 3: app not on the path */
	add_site(c, NULL, "nosuch", 0, NULL, NULL);        /* 4 */
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_BUILTIN, "lower(text)", NULL);
	expect_targets(site_at(2), CGM_RES_BUILTIN, "now()", NULL);
	expect_targets(site_at(3), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(4), CGM_RES_MISSING, NULL, NULL);
	assert_int_equal(model->nedges, 0); /* builtins are no edges by default */

	/* The function's own search_path puts public before pg_catalog. */
	static const char *own[] = { "public", "pg_catalog", "app" };
	c = &model->functions[cgm_model_find(model, "public.caller()")];
	c->search_path = own;
	c->npath = 3;
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "public.lower(text)", NULL);
	expect_targets(site_at(3), CGM_RES_RESOLVED, "app.price(integer)", NULL);

	cgm_resolve_options with_builtins = { .include_builtins = true };
	c->npath = -1;
	assert_int_equal(cgm_resolve(model, &with_builtins), 0);
	assert_int_equal(model->nedges, 2); /* lower(text), now() */
}

static void test_casts_and_attribute_notation(void **state)
{
	cgm_function *c = caller();
	cgm_relation *t = cgm_model_add_type(model);
	t->schema = "public";
	t->name = "money_code";
	cgm_model_add_column(model, "topology_id");
	add_site(c, NULL, "money_code", 1, T("unknown"), NULL);  /* 1: function-style cast */
	add_site(c, NULL, "topology_id", 1, T(NULL), NULL);      /* 2: r.topology_id */
	add_site(c, NULL, "topology_id", 1, T("integer"), NULL); /* 3: no column of an integer */
	add_site(c, NULL, "no_such", 1, T(NULL), NULL);          /* 4: missing */
	cgm_resolve_options o = { 0 };
	assert_int_equal(cgm_resolve(model, &o), 0);
	expect_targets(site_at(1), CGM_RES_NONE, NULL, NULL);
	expect_targets(site_at(2), CGM_RES_NONE, NULL, NULL);
	expect_targets(site_at(3), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(4), CGM_RES_MISSING, NULL, NULL);
}

static void test_procedures_and_triggers(void **state)
{
	cgm_function *c = caller();
	cgm_site *call = add_site(c, "app", "proc", 1, T("integer"), NULL); /* 1 */
	call->kind = CGM_SITE_CALL_STMT;
	add_site(c, "app", "proc", 1, T("integer"), NULL); /* 2: a procedure is not callable in SELECT */
	cgm_site *ins = add_site(c, "app", "orders", 0, NULL, NULL); /* 3 */
	ins->kind = CGM_SITE_TRIGGER;
	cgm_site_rare_of(model->arena, ins)->events = CGM_EV_INSERT;
	cgm_site *del = add_site(c, "app", "orders", 0, NULL, NULL); /* 4: no DELETE trigger */
	del->kind = CGM_SITE_TRIGGER;
	cgm_site_rare_of(model->arena, del)->events = CGM_EV_DELETE;
	cgm_relfx *fx = cgm_relfx_build(model);
	cgm_resolve_options o = { .relfx = fx };
	assert_int_equal(cgm_resolve(model, &o), 0);
	cgm_relfx_free(fx);
	expect_targets(site_at(1), CGM_RES_RESOLVED, "app.proc(integer)", NULL);
	expect_targets(site_at(2), CGM_RES_MISSING, NULL, NULL);
	expect_targets(site_at(3), CGM_RES_RESOLVED, "app.audit()", NULL);
	c = &model->functions[cgm_model_find(model, "public.caller()")];
	assert_int_equal(c->nsites, 3); /* the DELETE fires nothing: no site */
	bool trigger_edge = false;
	for (int i = 0; i < model->nedges; i++)
		if (model->edges[i].via == CGM_VIA_TRIGGER &&
		    strcmp(model->functions[model->edges[i].to].id, "app.audit()") == 0)
			trigger_edge = true;
	assert_true(trigger_edge);
}

/* The setup model plus many callers with every kind of site: a call that
 * resolves, an ambiguous one, a missing one, a builtin, one inside EXECUTE
 * text, DML that fires a trigger and DML that fires none. */
static cgm_model *many_callers(int ncallers)
{
	setup(NULL);
	for (int i = 0; i < ncallers; i++) {
		char id[32];
		snprintf(id, sizeof id, "public.c%04d()", i);
		cgm_function *c = fn("public", cgm_arena_printf(model->arena, "c%04d", i),
				     cgm_arena_strdup(model->arena, id), 0, false, false, NULL, NULL);
		for (int k = 0; k <= i % 5; k++)
			add_site(c, "app", "price", 1, T("integer"), NULL);
		if (i % 3 == 0)
			add_site(c, "app", "price", 1, (const char *const[]){ NULL }, NULL);
		if (i % 7 == 0)
			add_site(c, "app", "nosuch", 0, NULL, NULL);
		add_site(c, NULL, "lower", 1, T("unknown"), NULL);
		add_site(c, "app", "pick", 1, T("unknown"), NULL)->via_literal = i % 2 == 0;
		cgm_site *ins = add_site(c, "app", "orders", 0, NULL, NULL);
		ins->kind = CGM_SITE_TRIGGER;
		cgm_site_rare_of(model->arena, ins)->events = i % 4 == 0 ? CGM_EV_DELETE : CGM_EV_INSERT;
	}
	cgm_model_index(model);
	cgm_model_link(model);
	return model;
}

/* Any number of threads gives the same sites and the same edges, in the
 * same order, as one. */
static void test_threads_change_nothing(void **state)
{
	cgm_model_free(model); /* the setup's own, unused here */
	cgm_model *one = many_callers(1000);
	cgm_relfx *fx_one = cgm_relfx_build(one);
	cgm_resolve_options serial = { .include_builtins = true, .threads = 1, .relfx = fx_one };
	assert_int_equal(cgm_resolve(one, &serial), 0);
	cgm_relfx_free(fx_one);
	const int counts[] = { 2, 3, 7, 0 };
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
		cgm_model *many = many_callers(1000);
		cgm_relfx *fx = cgm_relfx_build(many);
		cgm_resolve_options o = { .include_builtins = true, .threads = counts[k], .relfx = fx };
		assert_int_equal(cgm_resolve(many, &o), 0);
		cgm_relfx_free(fx);
		assert_int_equal(many->nuser, one->nuser);
		for (int f = 0; f < one->nuser; f++) {
			const cgm_function *a = &one->functions[f], *b = &many->functions[f];
			assert_int_equal(b->nsites, a->nsites);
			for (int i = 0; i < a->nsites; i++) {
				assert_int_equal(b->sites[i].resolution, a->sites[i].resolution);
				assert_int_equal(b->sites[i].ntargets, a->sites[i].ntargets);
				for (int t = 0; t < a->sites[i].ntargets; t++)
					assert_int_equal(b->sites[i].targets[t], a->sites[i].targets[t]);
			}
		}
		assert_int_equal(many->nedges, one->nedges);
		for (int e = 0; e < one->nedges; e++) {
			const cgm_edge *a = &one->edges[e], *b = &many->edges[e];
			assert_int_equal(b->from, a->from);
			assert_int_equal(b->to, a->to);
			assert_int_equal(b->via, a->via);
			assert_int_equal(b->ambiguous, a->ambiguous);
			assert_int_equal(b->nlines, a->nlines);
			assert_memory_equal(b->lines, a->lines, sizeof(int) * (size_t)a->nlines);
		}
		cgm_model_free(many);
	}
	/* The fixture reaches every kind of edge, ambiguity and dropped DML. */
	int ambiguous = 0, literal = 0, trigger = 0, builtin = 0;
	for (int e = 0; e < one->nedges; e++) {
		ambiguous += one->edges[e].ambiguous;
		literal += one->edges[e].via == CGM_VIA_LITERAL;
		trigger += one->edges[e].via == CGM_VIA_TRIGGER;
		builtin += one->functions[one->edges[e].to].builtin;
	}
	assert_true(ambiguous > 0 && literal > 0 && trigger > 0 && builtin > 0);
	const cgm_function *c0 = &one->functions[cgm_model_find(one, "public.c0000()")];
	for (int i = 0; i < c0->nsites; i++)
		assert_int_not_equal(c0->sites[i].kind, CGM_SITE_TRIGGER); /* DELETE fires nothing */
	/* A caller with five price calls has one edge holding all five lines. */
	int c4 = cgm_model_find(one, "public.c0004()");
	int price = cgm_model_find(one, "app.price(integer)");
	bool found = false;
	for (int e = 0; e < one->nedges; e++)
		if (one->edges[e].from == c4 && one->edges[e].to == price) {
			assert_int_equal(one->edges[e].nlines, 5);
			found = true;
		}
	assert_true(found);
	model = one; /* freed by the teardown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overloads_and_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_defaults_named_variadic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polymorphic_variadic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_arguments_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_path_and_builtins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procedures_and_triggers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_casts_and_attribute_notation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_change_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
