/*
 * test_analyze.c - roots, reachability, dead and cold functions, recursive
 * components and entry patterns, on hand-built models whose answers are
 * known: every flag of every function is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/runtime.h"

/* A user function "schema.name(args)"; schema and name taken from the id. */

/* An hour of runtime evidence from one traced server (cgmap/verdict.h):
 * enough for dead with --min-calls 1 (the samples call little). */
static const cgm_analyze_options few_calls = { .has_min_calls = true, .min_calls = 1 };
static void hour_of_evidence(cgm_model *m)
{
	static const char *servers[] = { "demo" };
	static const char *databases[] = { "demo on demo" };
	m->evidence.since = "2026-11-29T10:00:00Z";
	m->evidence.until = "2026-11-29T11:00:00Z";
	m->evidence.window_seconds = 3600;
	m->evidence.servers = servers;
	m->evidence.nservers = 1;
	m->evidence.databases = databases;
	m->evidence.ndatabases = 1;
	m->evidence.trace_track = "plpgsql";
	m->evidence.track_functions = "all";
}

static void add_function(cgm_model *m, const char *id)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
	const char *dot = strchr(id, '.'), *paren = strchr(id, '(');
	f->schema = cgm_arena_strndup(m->arena, id, (size_t)(dot - id));
	f->name = cgm_arena_strndup(m->arena, dot + 1, (size_t)(paren - dot - 1));
	f->language = "plpgsql";
	f->analysed = true;
	f->scc = -1;
}

static int idx(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0)
		fail_msg("no function %s", id);
	return i;
}

static void add_edge(cgm_model *m, const char *from, const char *to, unsigned provenance,
		     int64_t calls)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = CGM_VIA_CALL;
	e->provenance = provenance;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = 3;
	e->nlines = 1;
	cgm_edge_rare_of(m->arena, e)->runtime.calls = calls;
}

static cgm_function *fn(cgm_model *m, const char *id)
{
	return &m->functions[idx(m, id)];
}

/*
 * app.main()   observed entry, calls app.work() (observed), app.spare() (static only)
 * app.work()   called
 * app.spare()  reachable, never called: cold
 * app.audit()  trigger function of a trigger, never fired: cold (a root)
 * app.priced() referenced by a view, never called: cold
 * app.old()    nobody calls it: dead; calls app.older(): dead too
 * app.ping() <-> app.pong()   a cycle nobody enters: both dead, one component
 * app.fact()   calls itself, called by app.main() statically: cold, own component
 */
static cgm_model *sample(bool runtime)
{
	cgm_model *m = cgm_model_new();
	const char *ids[] = { "app.audit()", "app.fact(integer)", "app.main()", "app.old()",
			      "app.older()", "app.ping()", "app.pong()", "app.priced(integer)",
			      "app.spare()", "app.work()" };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		add_function(m, ids[i]);
	cgm_model_index(m);
	add_edge(m, "app.main()", "app.work()", CGM_EDGE_STATIC | (runtime ? CGM_EDGE_OBSERVED : 0),
		 runtime ? 4 : 0);
	add_edge(m, "app.main()", "app.spare()", CGM_EDGE_STATIC, 0);
	add_edge(m, "app.main()", "app.fact(integer)", CGM_EDGE_STATIC, 0);
	add_edge(m, "app.fact(integer)", "app.fact(integer)", CGM_EDGE_STATIC, 0);
	add_edge(m, "app.old()", "app.older()", CGM_EDGE_STATIC, 0);
	add_edge(m, "app.ping()", "app.pong()", CGM_EDGE_STATIC, 0);
	add_edge(m, "app.pong()", "app.ping()", CGM_EDGE_STATIC, 0);
	cgm_trigger *t = cgm_model_add_trigger(m);
	t->table_schema = "app";
	t->table_name = "orders";
	t->name = "orders_audit";
	t->function = idx(m, "app.audit()");
	t->function_id = "app.audit()";
	cgm_reference *r = cgm_model_add_reference(m);
	r->function = idx(m, "app.priced(integer)");
	r->object_kind = "view";
	r->object = "view app.v_prices";
	if (runtime) {
		m->has_runtime = true;
		hour_of_evidence(m);
		m->runtime_window = "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)";
		static const char *sources[] = { "database demo: cgmap_trace, pg_stat_user_functions" };
		m->runtime_sources = sources;
		m->nruntime_sources = 1;
		fn(m, "app.main()")->observed_entry = true;
		fn(m, "app.main()")->runtime.calls = 2;
		fn(m, "app.work()")->runtime.calls = 4;
	}
	return m;
}

static void test_with_runtime(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	assert_int_equal(cgm_analyze(m, &few_calls), 0);

	cgm_function *main_fn = fn(m, "app.main()");
	assert_true(main_fn->root && main_fn->reachable && !main_fn->dead && !main_fn->cold);
	cgm_function *work = fn(m, "app.work()");
	assert_true(!work->root && work->reachable && !work->dead && !work->cold);
	cgm_function *spare = fn(m, "app.spare()");
	assert_true(spare->reachable && spare->cold && !spare->dead);
	cgm_function *audit = fn(m, "app.audit()");
	assert_true(audit->referenced && audit->root && audit->cold && !audit->dead);
	cgm_function *priced = fn(m, "app.priced(integer)");
	assert_true(priced->referenced && priced->root && priced->cold);
	assert_true(fn(m, "app.old()")->dead && !fn(m, "app.old()")->reachable);
	assert_true(fn(m, "app.older()")->dead);
	cgm_function *ping = fn(m, "app.ping()"), *pong = fn(m, "app.pong()");
	assert_true(ping->dead && pong->dead);
	assert_true(ping->scc >= 0 && ping->scc == pong->scc);
	cgm_function *fact = fn(m, "app.fact(integer)");
	assert_true(fact->cold && fact->scc >= 0 && fact->scc != ping->scc);
	/* Components are numbered in id order of their first function. */
	assert_int_equal(fact->scc, 0);
	assert_int_equal(ping->scc, 1);
	assert_int_equal(main_fn->scc, -1);
	assert_false(cgm_function_uncalled(m, idx(m, "app.work()")));
	cgm_model_free(m);
}

static void test_sql_functions_are_never_cold(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	/* app.spare() is cold as PL/pgSQL; as SQL the planner may inline it,
	 * so never seeing it called proves nothing. */
	fn(m, "app.spare()")->language = "sql";
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	cgm_function *spare = fn(m, "app.spare()");
	assert_true(spare->reachable && !spare->cold && !spare->dead);
	assert_true(fn(m, "app.audit()")->cold);
	cgm_model_free(m);
}

static void test_without_runtime_nothing_is_dead(void **state)
{
	(void)state;
	cgm_model *m = sample(false);
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	int uncalled = 0;
	for (int i = 0; i < m->nuser; i++) {
		assert_false(m->functions[i].dead);
		assert_false(m->functions[i].cold);
		uncalled += cgm_function_uncalled(m, i);
	}
	/* main and old have no callers; ping/pong only call each other; the
	 * trigger function and the view's function are referenced. */
	assert_true(cgm_function_uncalled(m, idx(m, "app.main()")));
	assert_true(cgm_function_uncalled(m, idx(m, "app.old()")));
	assert_true(cgm_function_uncalled(m, idx(m, "app.ping()")));
	assert_true(cgm_function_uncalled(m, idx(m, "app.pong()")));
	assert_false(cgm_function_uncalled(m, idx(m, "app.older()")));
	assert_false(cgm_function_uncalled(m, idx(m, "app.fact(integer)")));
	assert_false(cgm_function_uncalled(m, idx(m, "app.audit()")));
	assert_int_equal(uncalled, 4);
	/* The one-pass version agrees with the one-function one. */
	bool all[16];
	cgm_functions_uncalled(all, m);
	for (int i = 0; i < m->nfunctions; i++)
		assert_int_equal(all[i], cgm_function_uncalled(m, i));
	cgm_model_free(m);
}

static void test_entry_patterns(void **state)
{
	(void)state;
	cgm_model *m = sample(false);
	add_function(m, "app.log(text[])");
	cgm_model_index(m);
	const char *patterns[] = { "app.ma*", "app.log(text[])", "nothing.here*" };
	cgm_analyze_options opts = { .entry_patterns = patterns, .nentry = 3 };
	int before = m->ndiagnostics;
	assert_int_equal(cgm_analyze(m, &opts), 0);
	assert_true(fn(m, "app.main()")->root);
	assert_true(fn(m, "app.log(text[])")->root);
	assert_true(fn(m, "app.spare()")->reachable);
	assert_false(fn(m, "app.old()")->reachable);
	assert_false(fn(m, "app.old()")->root);
	assert_int_equal(m->ndiagnostics, before + 1);
	assert_string_equal(m->diagnostics[before].message,
			    "entry pattern 'nothing.here*' matches no function");
	/* keep_roots: an analysed snapshot keeps its roots on a new analysis. */
	cgm_analyze_options again = { .keep_roots = true };
	assert_int_equal(cgm_analyze(m, &again), 0);
	assert_true(fn(m, "app.main()")->root);
	cgm_analyze_options fresh = { 0 };
	assert_int_equal(cgm_analyze(m, &fresh), 0);
	assert_false(fn(m, "app.main()")->root);
	cgm_model_free(m);
}

/* pg_stat_user_functions says a function ran but not who called it: its
 * callees are reachable (cold when unseen), not dead. */
static void test_called_function_seeds_reachability(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "s.a()");
	add_function(m, "s.b()");
	add_function(m, "s.c()");
	cgm_model_index(m);
	add_edge(m, "s.a()", "s.b()", CGM_EDGE_STATIC, 0);
	m->has_runtime = true;
	hour_of_evidence(m);
	fn(m, "s.a()")->runtime.calls = 1;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	assert_false(fn(m, "s.a()")->dead);
	assert_false(fn(m, "s.a()")->cold);
	assert_true(fn(m, "s.b()")->cold);
	assert_true(fn(m, "s.c()")->dead);
	cgm_model_free(m);
}

/* An ambiguous candidate is a call PostgreSQL may never make: no recursion
 * through it unless it was observed, while it still makes its callee
 * reachable. */
static void test_ambiguous_edges_make_no_recursion(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "s.a()");
	add_function(m, "s.b()");
	cgm_model_index(m);
	add_edge(m, "s.a()", "s.b()", CGM_EDGE_STATIC, 0);
	add_edge(m, "s.b()", "s.a()", CGM_EDGE_STATIC, 0);
	m->edges[1].ambiguous = true;
	add_edge(m, "s.b()", "s.b()", CGM_EDGE_STATIC, 0);
	m->edges[2].ambiguous = true;
	assert_int_equal(cgm_analyze(m, NULL), 0);
	assert_int_equal(fn(m, "s.a()")->scc, -1);
	assert_int_equal(fn(m, "s.b()")->scc, -1);
	/* Observed at runtime, the call is real. */
	m->edges[1].provenance |= CGM_EDGE_OBSERVED;
	assert_int_equal(cgm_analyze(m, NULL), 0);
	assert_int_equal(fn(m, "s.a()")->scc, 0);
	assert_int_equal(fn(m, "s.b()")->scc, 0);
	cgm_model_free(m);
}

/* A long chain: the walk and Tarjan's algorithm must not recurse. */
static void test_long_chain(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	enum { N = 20000 };
	char id[64];
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof(id), "s.f%05d()", i);
		add_function(m, id);
	}
	cgm_model_index(m);
	for (int i = 0; i + 1 < N; i++) {
		cgm_edge *e = cgm_model_add_edge(m);
		e->from = i;
		e->to = i + 1;
		e->provenance = CGM_EDGE_STATIC;
	}
	cgm_edge *back = cgm_model_add_edge(m);
	back->from = N - 1;
	back->to = 0;
	back->provenance = CGM_EDGE_STATIC;
	m->has_runtime = true;
	hour_of_evidence(m);
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	/* Nothing was called in the window: an empty window shows nothing
	 * dead, however long it is. */
	for (int i = 0; i < N; i++) {
		assert_int_equal(m->functions[i].scc, 0);
		assert_false(m->functions[i].dead);
		assert_int_equal(m->functions[i].verdict, CGM_VERDICT_UNOBSERVED);
	}
	cgm_model_free(m);
}

static void test_summary(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cgm_analyze_print_summary(m, f);
	fclose(f);
	assert_string_equal(text,
			    "cgmap: runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z "
			    "(database demo)\n"
			    "cgmap: evidence: window 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z "
			    "(1 h 0 min), 1 server, 1 database, 6 calls observed; traced: plpgsql; "
			    "statistics: track_functions all; enough for dead (at least 1 h 0 min and "
			    "1 call)\n"
			    "cgmap: 7 edges: 6 static only, 1 static and observed, 0 observed only "
			    "(0 unexplained)\n"
			    "cgmap: 0 dynamic sites: 0 observed, 0 unseen, 0 that can call no user "
			    "function\n"
			    "cgmap: of 10 functions, 3 are roots, 4 dead, 4 cold; 2 recursive "
			    "components (3 functions)\n"
			    "cgmap: never called and unreachable: 4 dead, 0 unobserved, 0 untraceable, "
			    "0 dynamic-reachable\n");
	free(text);
	cgm_model_free(m);
}

/* The sorted (caller, line, callee) hits answer every dynamic site. */
static void test_dynamic_hits(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "s.a()");
	add_function(m, "s.b()");
	add_function(m, "s.c()");
	cgm_model_index(m);
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, "s.a()");
	e->to = idx(m, "s.c()");
	e->via = CGM_VIA_DYNAMIC;
	e->provenance = CGM_EDGE_OBSERVED;
	e->lines = cgm_arena_alloc(m->arena, 2 * sizeof(int));
	e->lines[0] = 4;
	e->lines[1] = 9;
	e->nlines = 2;
	e = cgm_model_add_edge(m);
	e->from = idx(m, "s.a()");
	e->to = idx(m, "s.b()");
	e->via = CGM_VIA_DYNAMIC;
	e->provenance = CGM_EDGE_OBSERVED;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = 4;
	e->nlines = 1;
	add_edge(m, "s.b()", "s.c()", CGM_EDGE_STATIC, 0); /* not dynamic: no hit */
	int n;
	cgm_dynamic_hit *hits = cgm_dynamic_hits(&n, m);
	assert_int_equal(n, 3);
	int first = cgm_dynamic_hit_find(hits, n, idx(m, "s.a()"), 4);
	assert_int_equal(first, 0);
	assert_int_equal(hits[0].to, idx(m, "s.b()"));
	assert_int_equal(hits[1].to, idx(m, "s.c()"));
	assert_int_equal(hits[1].line, 4);
	assert_int_equal(cgm_dynamic_hit_find(hits, n, idx(m, "s.a()"), 9), 2);
	assert_int_equal(cgm_dynamic_hit_find(hits, n, idx(m, "s.a()"), 5), -1);
	assert_int_equal(cgm_dynamic_hit_find(hits, n, idx(m, "s.b()"), 3), -1);
	cgm_site site = { .line = 9, .kind = CGM_SITE_DYNAMIC };
	assert_true(cgm_dynamic_site_observed(m, idx(m, "s.a()"), &site));
	site.line = 5;
	assert_false(cgm_dynamic_site_observed(m, idx(m, "s.a()"), &site));
	free(hits);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_with_runtime),
		cmocka_unit_test(test_sql_functions_are_never_cold),
		cmocka_unit_test(test_without_runtime_nothing_is_dead),
		cmocka_unit_test(test_entry_patterns),
		cmocka_unit_test(test_called_function_seeds_reachability),
		cmocka_unit_test(test_ambiguous_edges_make_no_recursion),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_dynamic_hits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
