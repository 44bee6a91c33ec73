/*
 * test_query.c - callers, callees, paths and impact (src/query.c) on a
 * hand-built graph: overloads matched by one pattern, a name matching
 * nothing naming the closest ids, cycles and self loops shown once, depth
 * limits, unreachable functions, ambiguous (possible) edges, paths in order
 * of length, and the entry points reaching a function with the provenance
 * of their paths and their traffic.
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

#include "cgmap/error.h"
#include "cgmap/query.h"
#include "cgmap/runtime.h"

static void add_function(cgm_model *m, const char *schema, const char *name, const char *args)
{
	cgm_function *f = cgm_model_add_function(m);
	f->schema = schema;
	f->name = name;
	f->id = cgm_arena_printf(m->arena, "%s.%s(%s)", schema, name, args);
	f->scc = -1;
	f->language = "plpgsql";
	f->analysed = true;
}

static int idx(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0)
		fail_msg("no function %s", id);
	return i;
}

static cgm_edge *add_edge(cgm_model *m, const char *from, const char *to, unsigned provenance,
			  int line, int64_t calls)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = CGM_VIA_CALL;
	e->provenance = provenance;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = line;
	e->nlines = 1;
	cgm_edge_rare_of(m->arena, e)->runtime.calls = calls;
	return e;
}

#define BOTH (CGM_EDGE_STATIC | CGM_EDGE_OBSERVED)

/*
 * api.main()      root, 100 calls: line 3 -> app.a() (both, 90 calls)
 * api.job()       root, 5 calls:   line 2 -> app.d() observed only;
 *                                  line 7 -> app.a() observed only
 * app.a()         line 4 -> app.b(integer), and app.b(text) as a possible
 *                 (ambiguous) candidate of the same site
 * app.b(integer)  -> app.c()
 * app.c()         -> app.c() (self loop), -> app.d()
 * app.d()         -> app.c() (a cycle c -> d -> c)
 * app.e()         nothing calls it, it calls nothing
 * app.f()         dead, nobody calls it: -> app.b(integer)
 */
static cgm_model *sample(void)
{
	cgm_model *m = cgm_model_new();
	add_function(m, "api", "main", "");
	add_function(m, "api", "job", "");
	add_function(m, "app", "a", "");
	add_function(m, "app", "b", "integer");
	add_function(m, "app", "b", "text");
	add_function(m, "app", "c", "");
	add_function(m, "app", "d", "");
	add_function(m, "app", "e", "");
	add_function(m, "app", "f", "");
	cgm_model_index(m);
	m->has_runtime = true;
	cgm_function *main_fn = &m->functions[idx(m, "api.main()")];
	main_fn->root = main_fn->observed_entry = true;
	main_fn->runtime.calls = 100;
	cgm_function *job = &m->functions[idx(m, "api.job()")];
	job->root = job->observed_entry = true;
	job->runtime.calls = 5;
	cgm_function *f = &m->functions[idx(m, "app.f()")];
	f->dead = true;
	f->verdict = CGM_VERDICT_DEAD;
	f->confidence = "high";
	m->functions[idx(m, "app.c()")].cold = true;

	add_edge(m, "api.main()", "app.a()", BOTH, 3, 90);
	add_edge(m, "api.job()", "app.d()", CGM_EDGE_OBSERVED, 2, 5);
	add_edge(m, "api.job()", "app.a()", CGM_EDGE_OBSERVED, 7, 3);
	add_edge(m, "app.a()", "app.b(integer)", CGM_EDGE_STATIC, 4, 0)->ambiguous = true;
	add_edge(m, "app.a()", "app.b(text)", CGM_EDGE_STATIC, 4, 0)->ambiguous = true;
	add_edge(m, "app.b(integer)", "app.c()", CGM_EDGE_STATIC, 1, 0);
	add_edge(m, "app.c()", "app.c()", CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "app.c()", "app.d()", CGM_EDGE_STATIC, 3, 0);
	add_edge(m, "app.d()", "app.c()", CGM_EDGE_STATIC, 1, 0);
	add_edge(m, "app.f()", "app.b(integer)", CGM_EDGE_STATIC, 5, 0);
	return m;
}

static void test_match(void **state)
{
	(void)state;
	cgm_model *m = sample();
	int *found, n;
	/* A pattern naming overloads matches them all. */
	assert_int_equal(cgm_query_match(&found, &n, m, "app.b"), 0);
	assert_int_equal(n, 2);
	assert_string_equal(m->functions[found[0]].id, "app.b(integer)");
	assert_string_equal(m->functions[found[1]].id, "app.b(text)");
	free(found);
	/* A full id names one. */
	assert_int_equal(cgm_query_match(&found, &n, m, "app.b(text)"), 0);
	assert_int_equal(n, 1);
	free(found);
	/* A glob. */
	assert_int_equal(cgm_query_match(&found, &n, m, "api.*"), 0);
	assert_int_equal(n, 2);
	free(found);
	/* Nothing: an error naming the closest ids. */
	assert_int_equal(cgm_query_match(&found, &n, m, "app.mian"), CGM_EUSAGE);
	assert_null(found);
	assert_non_null(strstr(cgm_error_message(), "'app.mian' matches nothing"));
	assert_non_null(strstr(cgm_error_message(), "'api.main()'"));
	assert_int_equal(cgm_query_match(&found, &n, m, "app.bb"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "closest: 'app.b(integer)', 'app.b(text)'"));
	cgm_model_free(m);
}

static const char *row_id(const cgm_model *m, const cgm_qtree *t, int i)
{
	return m->functions[t->rows[i].fn].id;
}

static void test_callers_cycles(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int c = idx(m, "app.c()");
	cgm_qtree t;
	cgm_query_tree(&t, &g, &c, 1, CGM_Q_CALLERS, 0);
	/* c; <- b(integer) <- a <- job, main; <- f; <- c (self loop); <- d <- c, job */
	static const struct {
		int depth;
		const char *id;
		cgm_qmark mark;
	} want[] = {
		{ 0, "app.c()", CGM_QROW_EXPANDED },	    { 1, "app.b(integer)", CGM_QROW_EXPANDED },
		{ 2, "app.a()", CGM_QROW_EXPANDED },	    { 3, "api.job()", CGM_QROW_SEEN },
		{ 3, "api.main()", CGM_QROW_EXPANDED },   { 2, "app.f()", CGM_QROW_EXPANDED },
		{ 1, "app.c()", CGM_QROW_CYCLE },	    { 1, "app.d()", CGM_QROW_EXPANDED },
		{ 2, "api.job()", CGM_QROW_EXPANDED },    { 2, "app.c()", CGM_QROW_CYCLE },
	};
	assert_int_equal(t.nrows, (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < t.nrows; i++) {
		assert_int_equal(t.rows[i].depth, want[i].depth);
		assert_string_equal(row_id(m, &t, i), want[i].id);
		assert_int_equal(t.rows[i].mark, want[i].mark);
	}
	/* job is expanded at its shortest distance (2, through d), not at 3. */
	/* b(integer), a, job, main, f, d, and c itself: it calls itself. */
	assert_int_equal(t.nfunctions, 7);
	assert_int_equal(t.nqueried, 1);
	/* Every row but the first hangs from an edge ending at its parent. */
	for (int i = 1; i < t.nrows; i++) {
		const cgm_edge *e = &m->edges[t.rows[i].edge];
		assert_int_equal(e->from, t.rows[i].fn);
		assert_int_equal(e->to, t.rows[t.rows[i].parent].fn);
	}
	cgm_qtree_free(&t);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

static void test_depth_limit(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int c = idx(m, "app.c()");
	cgm_qtree t;
	cgm_query_tree(&t, &g, &c, 1, CGM_Q_CALLERS, 1);
	assert_int_equal(t.nrows, 4);
	assert_string_equal(row_id(m, &t, 1), "app.b(integer)");
	assert_int_equal(t.rows[1].mark, CGM_QROW_LIMIT);
	assert_int_equal(t.rows[2].mark, CGM_QROW_CYCLE);
	assert_string_equal(row_id(m, &t, 3), "app.d()");
	assert_int_equal(t.rows[3].mark, CGM_QROW_LIMIT);
	assert_int_equal(t.nfunctions, 3); /* b(integer), d, c on its self loop */
	assert_int_equal(t.nqueried, 1);
	cgm_qtree_free(&t);
	/* A function with nothing beyond the limit is no LIMIT row. */
	int a = idx(m, "app.a()");
	cgm_query_tree(&t, &g, &a, 1, CGM_Q_CALLEES, 1);
	assert_int_equal(t.nrows, 3);
	assert_string_equal(row_id(m, &t, 2), "app.b(text)");
	assert_int_equal(t.rows[2].mark, CGM_QROW_EXPANDED);
	assert_int_equal(t.rows[1].mark, CGM_QROW_LIMIT);
	cgm_qtree_free(&t);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

static void test_callees_ambiguous_and_unreachable(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int main_fn = idx(m, "api.main()");
	cgm_qtree t;
	cgm_query_tree(&t, &g, &main_fn, 1, CGM_Q_CALLEES, 0);
	assert_int_equal(t.nfunctions, 5); /* a, b(integer), b(text), c, d */
	cgm_strbuf o = CGM_STRBUF_INIT;
	cgm_query_write_tree(&o, m, &t, CGM_Q_CALLEES, CGM_QFMT_TEXT);
	const char *want = "callees (any depth): 5 functions\n"
			   "api.main()\n"
			   "  -> app.a()  (call, both, line 3, 90 calls)\n"
			   "    -> app.b(integer)  (call, static, possible, line 4)\n"
			   "      -> app.c()  (call, static, line 1)\n"
			   "        -> app.c()  (call, static, line 2)  [cycle]\n"
			   "        -> app.d()  (call, static, line 3)\n"
			   "          -> app.c()  (call, static, line 1)  [cycle]\n"
			   "    -> app.b(text)  (call, static, possible, line 4)\n";
	assert_string_equal(cgm_strbuf_cstr(&o), want);
	cgm_qtree_free(&t);
	/* Nobody calls e and it calls nothing: only itself. */
	int e = idx(m, "app.e()");
	cgm_query_tree(&t, &g, &e, 1, CGM_Q_CALLERS, 0);
	assert_int_equal(t.nrows, 1);
	assert_int_equal(t.nfunctions, 0);
	cgm_qtree_free(&t);
	/* Two starts (overloads): each is a root of the tree. */
	int both[2] = { idx(m, "app.b(integer)"), idx(m, "app.b(text)") };
	cgm_query_tree(&t, &g, both, 2, CGM_Q_CALLERS, 1);
	int roots = 0;
	for (int i = 0; i < t.nrows; i++)
		roots += t.rows[i].depth == 0;
	assert_int_equal(roots, 2);
	/* The count is of what is listed: a and f, their callers. */
	assert_int_equal(t.nfunctions, 2);
	assert_int_equal(t.nqueried, 0);
	cgm_qtree_free(&t);
	/* Queried functions calling each other (overloads a pattern matched,
	 * the report's `londiste.local_add_table`): listed, so counted, and
	 * said to be queried. */
	int cd[2] = { idx(m, "app.c()"), idx(m, "app.d()") };
	cgm_query_tree(&t, &g, cd, 2, CGM_Q_CALLERS, 1);
	assert_int_equal(t.nfunctions, 4); /* b(integer), c (itself, d's), d (c's), job */
	assert_int_equal(t.nqueried, 2);
	cgm_strbuf_reset(&o);
	cgm_query_write_tree(&o, m, &t, CGM_Q_CALLERS, CGM_QFMT_TEXT);
	assert_non_null(strstr(cgm_strbuf_cstr(&o), "callers (depth 1): 4 functions, 2 of them queried\n"));
	cgm_qtree_free(&t);
	cgm_strbuf_free(&o);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

static void test_paths(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int main_fn = idx(m, "api.main()"), d = idx(m, "app.d()"), c = idx(m, "app.c()");
	int e = idx(m, "app.e()"), job = idx(m, "api.job()");
	cgm_qpaths p;
	cgm_query_paths(&p, &g, &main_fn, 1, &d, 1, 10, 0);
	assert_int_equal(p.npaths, 1);
	assert_false(p.cut);
	assert_int_equal(p.paths[0].nfns, 5); /* main a b(integer) c d */
	assert_int_equal(p.paths[0].fns[2], idx(m, "app.b(integer)"));
	cgm_qpaths_free(&p);
	/* From a function to itself: the self loop, then the cycle through d. */
	cgm_query_paths(&p, &g, &c, 1, &c, 1, 10, 0);
	assert_int_equal(p.npaths, 2);
	assert_int_equal(p.paths[0].nfns, 2);
	assert_int_equal(p.paths[1].nfns, 3);
	assert_int_equal(p.paths[1].fns[1], d);
	cgm_qpaths_free(&p);
	/* Shortest first: job -> d (1 call), then job -> a -> b -> c -> d (4). */
	cgm_query_paths(&p, &g, &job, 1, &d, 1, 10, 0);
	assert_int_equal(p.npaths, 2);
	assert_int_equal(p.paths[0].nfns, 2);
	assert_int_equal(p.paths[1].nfns, 5);
	cgm_qpaths_free(&p);
	/* --max 1 keeps the shortest. */
	cgm_query_paths(&p, &g, &job, 1, &d, 1, 1, 0);
	assert_int_equal(p.npaths, 1);
	assert_int_equal(p.paths[0].nfns, 2);
	cgm_qpaths_free(&p);
	/* Unreachable: no path, and the search says it is complete. */
	cgm_query_paths(&p, &g, &e, 1, &d, 1, 10, 0);
	assert_int_equal(p.npaths, 0);
	assert_false(p.cut);
	cgm_qpaths_free(&p);
	/* A work bound too small to finish says so. */
	cgm_query_paths(&p, &g, &main_fn, 1, &d, 1, 10, 2);
	assert_true(p.cut);
	cgm_qpaths_free(&p);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

/* A chain of many functions: the walks need no deep stack. */
static void test_long_chain(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	enum { N = 20000 };
	char name[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "f%05d", i);
		add_function(m, "s", cgm_arena_strdup(m->arena, name), "");
	}
	cgm_model_index(m);
	for (int i = 0; i + 1 < N; i++) {
		cgm_edge *e = cgm_model_add_edge(m);
		e->from = i;
		e->to = i + 1;
		e->provenance = CGM_EDGE_STATIC;
	}
	m->functions[0].root = true;
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int last = N - 1, first = 0;
	cgm_qtree t;
	cgm_query_tree(&t, &g, &last, 1, CGM_Q_CALLERS, 0);
	assert_int_equal(t.nrows, N);
	assert_int_equal(t.rows[N - 1].depth, N - 1);
	cgm_qtree_free(&t);
	cgm_qpaths p;
	cgm_query_paths(&p, &g, &first, 1, &last, 1, 3, 0);
	assert_int_equal(p.npaths, 1);
	assert_int_equal(p.paths[0].nfns, N);
	cgm_qpaths_free(&p);
	cgm_qimpact im;
	cgm_query_impact(&im, &g, &last, 1);
	assert_int_equal(im.nentries, 1);
	assert_int_equal(im.entries[0].length, N - 1);
	cgm_qimpact_free(&im);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

static void test_impact(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	int d = idx(m, "app.d()");
	cgm_qimpact im;
	cgm_query_impact(&im, &g, &d, 1);
	/* main (100 calls) first, then job (5), then f (a top, dead). */
	assert_int_equal(im.nentries, 3);
	assert_string_equal(m->functions[im.entries[0].fn].id, "api.main()");
	assert_int_equal(im.entries[0].length, 4);
	assert_int_equal(im.entries[0].prov, CGM_QPROV_STATIC);
	assert_int_equal(im.entries[0].calls, 100);
	assert_true(im.entries[0].root);
	assert_string_equal(m->functions[im.entries[1].fn].id, "api.job()");
	assert_int_equal(im.entries[1].length, 1);
	/* job -> d observed; job -> a -> ... -> d needs an observed hop too. */
	assert_int_equal(im.entries[1].prov, CGM_QPROV_OBSERVED);
	assert_string_equal(m->functions[im.entries[2].fn].id, "app.f()");
	assert_false(im.entries[2].root);
	assert_int_equal(im.calls, 105);
	/* Callers: main, job, a, b(integer), c, f; not d itself, not b(text). */
	assert_int_equal(im.ncallers, 6);
	cgm_strbuf o = CGM_STRBUF_INIT;
	cgm_query_write_impact(&o, m, &g, &im, &d, 1, CGM_QFMT_TEXT);
	const char *want = "impact of app.d(): 3 entry points, 105 observed calls through them; "
			   "6 callers in all\n"
			   "\n"
			   "  kind  calls     length  path      entry point -> reaches\n"
			   "  root  100       4       static    api.main() -> app.d()\n"
			   "  root  5         1       observed  api.job() -> app.d()\n"
			   "  top   0         3       static    app.f() -> app.d()\n"
			   "\n"
			   "dead or cold among the callers (2):\n"
			   "  app.c()  cold\n"
			   "  app.f()  dead (high confidence)\n";
	assert_string_equal(cgm_strbuf_cstr(&o), want);
	cgm_strbuf_free(&o);
	cgm_qimpact_free(&im);
	/* b(integer): job's path needs its observed call to a and a's static
	 * call: mixed. */
	int b = idx(m, "app.b(integer)");
	cgm_query_impact(&im, &g, &b, 1);
	assert_int_equal(im.nentries, 3);
	assert_string_equal(m->functions[im.entries[1].fn].id, "api.job()");
	assert_int_equal(im.entries[1].prov, CGM_QPROV_MIXED);
	assert_int_equal(im.entries[0].prov, CGM_QPROV_STATIC);
	cgm_qimpact_free(&im);
	/* Nothing reaches e; e is an entry point itself (a top, length 0). */
	int e = idx(m, "app.e()");
	cgm_query_impact(&im, &g, &e, 1);
	assert_int_equal(im.nentries, 1);
	assert_int_equal(im.entries[0].length, 0);
	assert_int_equal(im.ncallers, 0);
	cgm_qimpact_free(&im);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
}

/* An edge's words name its mechanism once: "check app.t.positive", not
 * "check check app.t.positive"; an object of another shape is kept. */
static void test_via_object_tail(void **state)
{
	(void)state;
	assert_string_equal(cgm_via_object_tail(CGM_VIA_CHECK, "check app.t.positive"),
			    "app.t.positive");
	assert_string_equal(cgm_via_object_tail(CGM_VIA_CAST, "cast (text AS app.money)"),
			    "(text AS app.money)");
	assert_string_equal(cgm_via_object_tail(CGM_VIA_VIEW, "app.v"), "app.v");
	assert_string_equal(cgm_via_object_tail(CGM_VIA_CHECK, "checker app.x"), "checker app.x");
	assert_string_equal(cgm_via_object_tail(CGM_VIA_CHECK, "check "), "check ");
	assert_null(cgm_via_object_tail(CGM_VIA_CHECK, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_via_object_tail),
		cmocka_unit_test(test_callers_cycles),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_callees_ambiguous_and_unreachable),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_impact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
