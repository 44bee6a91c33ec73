/*
 * test_verdict.c - the verdicts on functions nobody was seen calling
 * (src/verdict.c), dynamic SQL read before it runs (src/dynsql.c), and the
 * merge rules that keep counts right: one observation counted once, two
 * servers summed, calls ending in an error counted, a call in an EXECUTE's
 * own arguments landing on its static edge, unexplained edges classified.
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

#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/runtime.h"
#include "cgmap/serverlog.h"
#include "cgmap/verdict.h"

static cgm_function *add_function(cgm_model *m, const char *schema, const char *name,
				  const char *language, int nargs)
{
	cgm_function *f = cgm_model_add_function(m);
	f->schema = schema;
	f->name = name;
	f->id = cgm_arena_printf(m->arena, "%s.%s(%s)", schema, name,
				 nargs == 0 ? "" : nargs == 1 ? "integer" : "integer, integer");
	f->language = language;
	f->nargs = nargs;
	f->scc = -1;
	f->analysed = true;
	return f;
}

static int idx(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0)
		fail_msg("no function %s", id);
	return i;
}

static cgm_site *add_site(cgm_model *m, const char *id, cgm_site_kind kind, int line,
			  const char *stmt, const char *text)
{
	cgm_function *f = &m->functions[idx(m, id)];
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->line = line;
	s->stmt = stmt;
	cgm_site_rare_of(m->arena, s)->text = text;
	s->name = kind == CGM_SITE_DYNAMIC ? "EXECUTE" : NULL;
	s->resolution = kind == CGM_SITE_DYNAMIC ? CGM_RES_NONE : CGM_RES_RESOLVED;
	return s;
}

static void add_static(cgm_model *m, const char *from, const char *to, int line)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = CGM_VIA_CALL;
	e->provenance = CGM_EDGE_STATIC;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = line;
	e->nlines = 1;
}

static int add_source(cgm_runtime *rt, const char *name, const char *sysid, const char *since,
		      const char *until)
{
	int s = rt->nsources;
	rt->sources = cgm_arena_grow(rt->arena, rt->sources, (size_t)rt->nsources,
				     (size_t)rt->nsources + 1, sizeof(cgm_runtime_source));
	cgm_runtime_source *src = &rt->sources[rt->nsources++];
	memset(src, 0, sizeof *src);
	src->kind = "database";
	src->name = name;
	src->database = "shop";
	src->system_id = sysid;
	src->port = "5432";
	src->since = since;
	src->until = until;
	src->has_trace = true;
	src->has_function_stats = true;
	src->track_functions = "all";
	src->trace_track = "plpgsql";
	return s;
}

static void add_row(cgm_runtime *rt, int source, const char *caller, const char *callee,
		    int line, bool dynamic, int64_t calls)
{
	rt->edges = cgm_arena_grow(rt->arena, rt->edges, (size_t)rt->nedges, (size_t)rt->nedges + 1,
				   sizeof(cgm_runtime_edge));
	cgm_runtime_edge *e = &rt->edges[rt->nedges++];
	memset(e, 0, sizeof *e);
	e->caller = caller;
	e->callee = callee;
	e->site_line = line;
	e->dynamic = dynamic;
	e->stats.calls = calls;
	e->source = source;
}

static void add_stat(cgm_runtime *rt, int source, const char *id, int64_t calls)
{
	rt->functions = cgm_arena_grow(rt->arena, rt->functions, (size_t)rt->nfunctions,
				       (size_t)rt->nfunctions + 1, sizeof(cgm_runtime_function));
	cgm_runtime_function *f = &rt->functions[rt->nfunctions++];
	memset(f, 0, sizeof *f);
	f->id = id;
	f->stats.calls = calls;
	f->source = source;
}

static const cgm_analyze_options few = { .has_min_calls = true, .min_calls = 1 };

/*
 * app.main()        PL/pgSQL, entry point, called 200 times
 * app.gone()        PL/pgSQL, nobody calls it
 * app.inl()         SQL, nobody calls it (inlined under track = plpgsql)
 * app.handler_a()   PL/pgSQL, only a dynamic site of app.disp() can name it
 * app.disp(integer) PL/pgSQL, EXECUTE 'SELECT app.handler_' || kind || '()'
 */
static cgm_model *sample(void)
{
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "main", "plpgsql", 0);
	add_function(m, "app", "gone", "plpgsql", 0);
	add_function(m, "app", "inl", "sql", 0);
	add_function(m, "app", "handler_a", "plpgsql", 0);
	add_function(m, "app", "disp", "plpgsql", 1);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	add_site(m, "app.disp(integer)", CGM_SITE_DYNAMIC, 3, "dynexecute",
		 "'SELECT app.handler_' || kind || '()'");
	return m;
}

static cgm_runtime *one_source(const char *since, const char *until, int64_t calls)
{
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "shop", "7300000000000000001", since, until);
	if (calls)
		add_row(rt, s, NULL, "app.main()", 0, false, calls);
	return rt;
}

static void merge_and_analyze(cgm_model *m, cgm_runtime *rt, const cgm_analyze_options *opts)
{
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(cgm_analyze(m, opts), 0);
}

static void test_week_of_evidence(void **state)
{
	(void)state;
	cgm_model *m = sample();
	merge_and_analyze(m, one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200), NULL);
	assert_true(m->evidence.enough);
	assert_int_equal(m->evidence.window_seconds, 8 * 86400);
	assert_int_equal(m->evidence.calls, 200);
	cgm_function *gone = &m->functions[idx(m, "app.gone()")];
	assert_true(gone->dead);
	assert_int_equal(gone->verdict, CGM_VERDICT_DEAD);
	assert_string_equal(gone->confidence, "high");
	/* SQL under track = plpgsql: inlined, nobody could have seen it. */
	assert_int_equal(m->functions[idx(m, "app.inl()")].verdict, CGM_VERDICT_UNTRACEABLE);
	assert_false(m->functions[idx(m, "app.inl()")].dead);
	/* Only the dynamic site can name it. */
	assert_int_equal(m->functions[idx(m, "app.handler_a()")].verdict,
			 CGM_VERDICT_DYNAMIC_REACHABLE);
	assert_int_equal(m->functions[idx(m, "app.main()")].verdict, CGM_VERDICT_NONE);
	cgm_model_free(m);
}

static void test_empty_window_is_never_dead(void **state)
{
	(void)state;
	cgm_model *m = sample();
	/* A week, but no call at all: even --min-calls 0 shows nothing dead. */
	cgm_analyze_options zero = { .has_min_calls = true, .min_calls = 0,
				     .has_min_window = true, .min_window_seconds = 0 };
	merge_and_analyze(m, one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 0), &zero);
	assert_true(m->has_runtime);
	assert_false(m->evidence.enough);
	for (int i = 0; i < m->nuser; i++)
		assert_false(m->functions[i].dead);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	cgm_model_free(m);
}

static void test_short_window_and_thresholds(void **state)
{
	(void)state;
	cgm_model *m = sample();
	/* Ten minutes: under the default hour. */
	merge_and_analyze(m, one_source("2026-11-28T00:00:00Z", "2026-11-28T00:10:00Z", 200), NULL);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	/* --min-window 5m: enough, low confidence. */
	cgm_analyze_options five = { .has_min_window = true, .min_window_seconds = 300 };
	assert_int_equal(cgm_analyze(m, &five), 0);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_DEAD);
	assert_string_equal(m->functions[idx(m, "app.gone()")].confidence, "low");
	/* --min-calls above what was seen: not enough again. */
	cgm_analyze_options many = { .has_min_window = true, .min_window_seconds = 300,
				     .has_min_calls = true, .min_calls = 1000 };
	assert_int_equal(cgm_analyze(m, &many), 0);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	cgm_model_free(m);
}

static void test_window_within_one_second(void **state)
{
	(void)state;
	cgm_model *m = sample();
	/* Calls seen, start and end in the same second: not empty. */
	cgm_analyze_options zero = { .has_min_window = true, .min_window_seconds = 0,
				     .has_min_calls = true, .min_calls = 1 };
	merge_and_analyze(m, one_source("2026-11-28T00:00:00Z", "2026-11-28T00:00:00Z", 5), &zero);
	assert_int_equal(m->evidence.window_seconds, 0);
	assert_true(m->evidence.enough);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_DEAD);
	cgm_model_free(m);
}

/* cgmap_trace removed call records of dropped functions in the window: a
 * function that ran 200 times and was dropped and recreated (a new OID),
 * or one only a dropped function called, may show no call at all.  The
 * count names no function, so none is dead, and the evidence says why;
 * an unknown count (cgmap_trace 1.0, an older file) changes nothing. */
/* Edges a full trace table evicted are calls missing too: nothing dead
 * while statistics do not count every function; with track_functions =
 * all they do, and dead stands. */
static void test_full_table_is_not_dead(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
	rt->sources[0].trace_evictions = 5;
	rt->sources[0].track_functions = "pl";
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->evidence.lost_to_full_table, 5);
	assert_false(m->evidence.enough);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_evidence_text(&text, m);
	assert_non_null(strstr(cgm_strbuf_cstr(&text),
			       "5 trace records lost to a full table (cgmap_trace evicted or could not "
			       "record them; raise cgmap_trace.max_edges): any function may have run; "
			       "not enough for dead"));
	cgm_strbuf_free(&text);
	cgm_model_free(m);

	/* Calls a 1.0 extension could not record count the same. */
	m = sample();
	rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
	rt->sources[0].trace_dropped = 1;
	rt->sources[0].has_function_stats = false;
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	cgm_model_free(m);

	/* Statistics of every function: its calls are counted whatever the
	 * edges, and dead stands. */
	m = sample();
	rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
	rt->sources[0].trace_evictions = 5;
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->evidence.lost_to_full_table, 0);
	assert_true(m->functions[idx(m, "app.gone()")].dead);
	cgm_model_free(m);
}

static void test_lost_records_are_not_dead(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
	rt->sources[0].trace_stale_removed = 2;
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->evidence.lost_records, 2);
	assert_false(m->evidence.enough);
	cgm_function *gone = &m->functions[idx(m, "app.gone()")];
	assert_false(gone->dead);
	assert_int_equal(gone->verdict, CGM_VERDICT_UNOBSERVED);
	assert_null(gone->confidence);
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_evidence_text(&text, m);
	assert_non_null(strstr(cgm_strbuf_cstr(&text),
			       "150 calls observed; traced: plpgsql; statistics: track_functions all; "
			       "2 call records of dropped functions lost (cgmap_trace stale_removed): "
			       "any function may have run; not enough for dead (at least 1 h 0 min and "
			       "100 calls, none lost)"));
	cgm_strbuf_free(&text);
	/* Analysed again with lower thresholds: still not enough. */
	cgm_analyze_options zero = { .has_min_window = true, .min_window_seconds = 0,
				     .has_min_calls = true, .min_calls = 1 };
	assert_int_equal(cgm_analyze(m, &zero), 0);
	assert_int_equal(gone->verdict, CGM_VERDICT_UNOBSERVED);
	cgm_model_free(m);

	/* A second server that lost none does not make up for the first. */
	m = sample();
	rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
	rt->sources[0].trace_stale_removed = 1;
	int s = add_source(rt, "shop2", "7300000000000000002", "2026-11-20T00:00:00Z",
			   "2026-11-28T00:00:00Z");
	add_row(rt, s, NULL, "app.main()", 0, false, 500);
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->evidence.lost_records, 1);
	assert_int_equal(m->functions[idx(m, "app.gone()")].verdict, CGM_VERDICT_UNOBSERVED);
	cgm_model_free(m);

	/* Unknown, or none lost: dead as before. */
	for (int64_t lost = -1; lost <= 0; lost++) {
		m = sample();
		rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 150);
		rt->sources[0].trace_stale_removed = lost;
		merge_and_analyze(m, rt, NULL);
		assert_int_equal(m->evidence.lost_records, 0);
		assert_true(m->functions[idx(m, "app.gone()")].dead);
		cgm_model_free(m);
	}
}

static void test_track_all_traces_sql(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	rt->sources[0].trace_track = "all";
	merge_and_analyze(m, rt, NULL);
	assert_int_equal(m->functions[idx(m, "app.inl()")].verdict, CGM_VERDICT_DEAD);
	cgm_model_free(m);
}

static void test_aggregate_through_support(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "main", "plpgsql", 0);
	cgm_function *agg = add_function(m, "app", "total", "internal", 1);
	agg->kind = CGM_KIND_AGGREGATE;
	add_function(m, "app", "total_step", "plpgsql", 2);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	cgm_aggregate *a = cgm_model_add_aggregate(m);
	a->aggregate_id = "app.total(integer)";
	a->aggregate = idx(m, "app.total(integer)");
	a->nsupport = 1;
	a->support = cgm_arena_alloc(m->arena, sizeof(int));
	a->support[0] = idx(m, "app.total_step(integer, integer)");
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	add_row(rt, 0, NULL, "app.total_step(integer, integer)", 0, false, 7);
	merge_and_analyze(m, rt, NULL);
	/* The aggregate itself is never seen called; its transition is. */
	assert_int_equal(cgm_function_calls(m, idx(m, "app.total(integer)")), 7);
	assert_true(cgm_function_traceable(m, idx(m, "app.total(integer)")));
	assert_false(m->functions[idx(m, "app.total(integer)")].dead);
	assert_false(m->functions[idx(m, "app.total(integer)")].cold);
	cgm_model_free(m);
}

/* An aggregate whose support functions are all builtins (never traced:
 * cgmap_trace records functions above the initdb range only) cannot be
 * seen run: never called and unreachable, it is untraceable, not dead;
 * and an aggregate's calls, its support functions' seen again, add
 * nothing to the calls observed in all. */
static void test_aggregate_of_builtins_untraceable(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "main", "plpgsql", 0);
	cgm_function *agg = add_function(m, "app", "merged", "internal", 1);
	agg->kind = CGM_KIND_AGGREGATE;
	agg = add_function(m, "app", "total", "internal", 1);
	agg->kind = CGM_KIND_AGGREGATE;
	add_function(m, "app", "total_step", "plpgsql", 2);
	cgm_function *b = add_function(m, "pg_catalog", "jsonb_concat", "internal", 2);
	b->builtin = true;
	cgm_model_index(m);
	m->nuser = m->nfunctions - 1;
	cgm_aggregate *a = cgm_model_add_aggregate(m);
	a->aggregate_id = "app.merged(integer)";
	a->aggregate = idx(m, "app.merged(integer)");
	a->nsupport = 1;
	a->support = cgm_arena_alloc(m->arena, sizeof(int));
	a->support[0] = idx(m, "pg_catalog.jsonb_concat(integer, integer)");
	a = cgm_model_add_aggregate(m);
	a->aggregate_id = "app.total(integer)";
	a->aggregate = idx(m, "app.total(integer)");
	a->nsupport = 1;
	a->support = cgm_arena_alloc(m->arena, sizeof(int));
	a->support[0] = idx(m, "app.total_step(integer, integer)");
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	rt->sources[0].trace_track = "all";
	add_row(rt, 0, NULL, "app.total_step(integer, integer)", 0, false, 7);
	merge_and_analyze(m, rt, NULL);
	const cgm_function *merged = &m->functions[idx(m, "app.merged(integer)")];
	assert_false(cgm_function_traceable(m, idx(m, "app.merged(integer)")));
	assert_int_equal(merged->verdict, CGM_VERDICT_UNTRACEABLE);
	assert_false(merged->dead);
	assert_int_equal(m->functions[idx(m, "app.total(integer)")].runtime.calls, 7);
	assert_int_equal(m->evidence.calls, 207);
	cgm_model_free(m);
}

static void test_same_observation_counted_once(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	/* A file collected from the same server earlier in the same window
	 * (--dsn X --runtime file-from-X). */
	int s = add_source(rt, "shop", "7300000000000000001", "2026-11-20T00:00:00Z",
			   "2026-11-27T00:00:00Z");
	rt->sources[s].kind = "file";
	add_row(rt, s, NULL, "app.main()", 0, false, 150);
	merge_and_analyze(m, rt, &few);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 200);
	assert_int_equal(m->evidence.nservers, 1);
	cgm_model_free(m);
}

static void test_two_servers_summed(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	int s = add_source(rt, "shop", "7300000000000000002", "2026-11-20T00:00:00Z",
			   "2026-11-28T00:00:00Z");
	add_row(rt, s, NULL, "app.main()", 0, false, 50);
	merge_and_analyze(m, rt, &few);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 250);
	assert_int_equal(m->evidence.nservers, 2);
	cgm_model_free(m);
}

static void test_consecutive_windows_summed(void **state)
{
	(void)state;
	cgm_model *m = sample();
	/* collect --reset each day: windows that touch, not overlap. */
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z", 200);
	int s = add_source(rt, "shop", "7300000000000000001", "2026-11-21T00:00:00Z",
			   "2026-11-22T00:00:00Z");
	add_row(rt, s, NULL, "app.main()", 0, false, 100);
	merge_and_analyze(m, rt, &few);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 300);
	assert_string_equal(m->evidence.since, "2026-11-20T00:00:00Z");
	assert_string_equal(m->evidence.until, "2026-11-22T00:00:00Z");
	cgm_model_free(m);
}

static void test_calls_ending_in_error(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	/* The tracer saw 3 calls of app.gone(); every one raised, so
	 * pg_stat_user_functions says 0. */
	add_row(rt, 0, NULL, "app.gone()", 0, false, 3);
	add_stat(rt, 0, "app.gone()", 0);
	add_stat(rt, 0, "app.main()", 200);
	merge_and_analyze(m, rt, &few);
	assert_int_equal(m->functions[idx(m, "app.gone()")].runtime.calls, 3);
	assert_false(m->functions[idx(m, "app.gone()")].cold);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 200);
	cgm_model_free(m);
}

static void test_call_in_execute_arguments(void **state)
{
	(void)state;
	cgm_model *m = sample();
	/* EXECUTE format('SELECT %s', <line 4> app.gone()) at line 3. */
	cgm_site *dyn = add_site(m, "app.main()", CGM_SITE_DYNAMIC, 3, "dynexecute",
				 "format('SELECT %s',\n app.gone())");
	(void)dyn;
	cgm_site *arg = add_site(m, "app.main()", CGM_SITE_CALL, 4, "dynexecute", NULL);
	arg->ntargets = 1;
	arg->targets = cgm_arena_alloc(m->arena, sizeof(int));
	arg->targets[0] = idx(m, "app.gone()");
	add_static(m, "app.main()", "app.gone()", 4);
	cgm_runtime *rt = one_source("2026-11-20T00:00:00Z", "2026-11-28T00:00:00Z", 200);
	add_row(rt, 0, "app.main()", "app.gone()", 3, true, 5);
	merge_and_analyze(m, rt, &few);
	int dynamic_edges = 0;
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (e->from == idx(m, "app.main()") && e->to == idx(m, "app.gone()")) {
			if (e->via == CGM_VIA_DYNAMIC)
				dynamic_edges++;
			else
				assert_true((e->provenance & CGM_EDGE_OBSERVED) &&
					    cgm_edge_runtime(e)->calls == 5);
		}
	}
	assert_int_equal(dynamic_edges, 0);
	cgm_model_free(m);
}

static void test_unexplained_causes(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "a", "plpgsql", 0);
	add_function(m, "app", "b", "plpgsql", 0);
	add_function(m, "app", "s1", "sql", 0);
	add_function(m, "app", "s2", "sql", 0);
	add_function(m, "app", "c", "plpgsql", 0);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	m->functions[idx(m, "app.a()")].line_count = 10;
	/* a -> s1 -> s2 -> c, all static: a -> c seen directly when inlined */
	add_static(m, "app.a()", "app.s1()", 2);
	add_static(m, "app.s1()", "app.s2()", 1);
	add_static(m, "app.s2()", "app.c()", 1);
	cgm_edge e = { .from = idx(m, "app.a()"), .to = idx(m, "app.c()"),
		       .provenance = CGM_EDGE_OBSERVED };
	assert_true(cgm_edge_unexplained(&e));
	assert_string_equal(cgm_edge_cause(m, &e), "inlined SQL function");
	e.to = idx(m, "app.b()");
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	/* A callee taking `internal` (a planner estimator, a GiST support
	 * function): only PostgreSQL calls it. */
	static const char *internal_args[] = { "internal", "oid", "internal", "integer" };
	cgm_function *b = &m->functions[idx(m, "app.b()")];
	b->nargs = 4;
	b->argtypes = internal_args;
	assert_string_equal(cgm_edge_cause(m, &e), "internal machinery");
	/* A type's input function (it reads a cstring) or output function (it
	 * returns one): PostgreSQL calls them for literals and conversions. */
	static const char *input_args[] = { "cstring" };
	b->nargs = 1;
	b->argtypes = input_args;
	assert_string_equal(cgm_edge_cause(m, &e), "type input/output");
	b->nargs = 0;
	b->argtypes = NULL;
	b->result = "cstring";
	assert_string_equal(cgm_edge_cause(m, &e), "type input/output");
	b->result = NULL;
	/* Seen at the lines of a branch for another server version: the
	 * runtime data came from a server of that version. */
	static const int other_lines[] = { 2, 3, 4, 7, 8 };
	m->functions[idx(m, "app.a()")].other_version_lines = other_lines;
	int seen[2] = { 4, 8 };
	e.lines = seen;
	e.nlines = 2;
	assert_string_equal(cgm_edge_cause(m, &e), "other server version");
	seen[1] = 9; /* and at a line that runs here: not that */
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	m->functions[idx(m, "app.a()")].other_version_lines = NULL;
	int line = 14; /* past the body's 10 lines: observed against an older body */
	e.lines = &line;
	e.nlines = 1;
	assert_string_equal(cgm_edge_cause(m, &e), "changed body");
	/* A dynamic site explains a call seen at its own line, not one seen
	 * at a static statement of the same body (E-Maj's INSERTs into tables
	 * whose index support functions ran were put down to an EXECUTE
	 * elsewhere in the function); without lines, any site may have. */
	add_site(m, "app.a()", CGM_SITE_DYNAMIC, 7, "dynexecute", "'SELECT ' || x");
	line = 3;
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	line = 7;
	assert_string_equal(cgm_edge_cause(m, &e), "dynamic SQL");
	e.nlines = 0;
	assert_string_equal(cgm_edge_cause(m, &e), "dynamic SQL");
	m->functions[idx(m, "app.a()")].nsites = 0;
	/* An unqualified call of the callee's name at that line: the session's
	 * search_path chose this one (orafce's oracle.substr over pg_catalog's). */
	cgm_site *by_name = add_site(m, "app.a()", CGM_SITE_CALL, 5, "assign", NULL);
	by_name->name = "b";
	line = 5;
	e.nlines = 1;
	assert_string_equal(cgm_edge_cause(m, &e), "search_path");
	line = 6; /* seen at another line: not that call */
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	/* Seen without a line (a SQL function's call: PostgreSQL's
	 * regression test voidtest2 calls voidtest1 of temp_func_test, on the
	 * path of the session that ran it, not of the database's). */
	e.nlines = 0;
	assert_string_equal(cgm_edge_cause(m, &e), "search_path");
	e.nlines = 1;
	line = 5;
	by_name->schema = "lib"; /* written qualified: not the path's doing */
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	e.nlines = 0;
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	e.nlines = 1;
	line = 14;
	m->functions[idx(m, "app.a()")].nsites = 0;
	e.nlines = 0;
	/* A mapped relation effect runs b for another caller: through a view
	 * (static edge c -> b via view, object named), with no catalog
	 * reference at all; then a column default. */
	add_static(m, "app.c()", "app.b()", 3);
	cgm_edge *rel = &m->edges[m->nedges - 1];
	rel->via = CGM_VIA_VIEW;
	rel->object = "view app.v_orders";
	assert_string_equal(cgm_edge_cause(m, &e), "view");
	rel->via = CGM_VIA_DEFAULT;
	rel->object = "default app.orders.code";
	assert_string_equal(cgm_edge_cause(m, &e), "default");
	rel->provenance = CGM_EDGE_OBSERVED; /* observed only: no static effect */
	assert_string_equal(cgm_edge_cause(m, &e), "unknown");
	m->functions[idx(m, "app.b()")].is_trigger = true;
	assert_string_equal(cgm_edge_cause(m, &e), "trigger");
	/* A caller cgmap could not read explains it first: one whose body did
	 * not parse, one in a language cgmap does not read (C, PL/Perl). */
	cgm_function *a = &m->functions[idx(m, "app.a()")];
	a->nerrors = 1;
	assert_string_equal(cgm_edge_cause(m, &e), "caller has a parse error");
	a->analysed = false;
	assert_string_equal(cgm_edge_cause(m, &e), "caller not analysed");
	cgm_model_free(m);
}

/* ---- dynamic SQL ---- */

static cgm_model *dyn_model(void)
{
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "handler_a", "plpgsql", 0);
	add_function(m, "app", "handler_b", "plpgsql", 1);
	add_function(m, "util", "check", "plpgsql", 1);
	add_function(m, "util", "other", "plpgsql", 2);
	cgm_function *t = add_function(m, "app", "audit", "plpgsql", 0);
	t->is_trigger = true;
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	cgm_trigger *tg = cgm_model_add_trigger(m);
	tg->table_schema = "app";
	tg->table_name = "orders";
	tg->name = "orders_audit";
	tg->function = idx(m, "app.audit()");
	return m;
}

static void read_text(cgm_dynsql_info *info, const cgm_model *m, const char *text)
{
	cgm_site_rare x = { .text = text };
	cgm_site site = { .kind = CGM_SITE_DYNAMIC, .line = 1, .rare = &x };
	cgm_dynsql_read(info, m, &site);
}

static bool has_target(const cgm_dynsql_info *info, const cgm_model *m, const char *id)
{
	for (int i = 0; i < info->ntargets; i++)
		if (strcmp(m->functions[info->targets[i]].id, id) == 0)
			return true;
	return false;
}

static void test_template_kinds(void **state)
{
	(void)state;
	cgm_model *m = dyn_model();
	cgm_dynsql_info info;
	read_text(&info, m, "'DROP TABLE ' || have");
	assert_string_equal(info.statement, "DROP TABLE");
	assert_false(info.can_call);
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('ALTER SEQUENCE %I RESTART', seq)");
	assert_string_equal(info.statement, "ALTER SEQUENCE");
	assert_false(info.can_call);
	cgm_dynsql_info_free(&info);
	/* UPDATE of a table without triggers, values from variables */
	read_text(&info, m, "'UPDATE __tcache__ SET value = ' || v || ' WHERE id = ' || id");
	assert_string_equal(info.statement, "UPDATE");
	assert_string_equal(info.table, "__tcache__");
	assert_false(info.can_call);
	cgm_dynsql_info_free(&info);
	/* UPDATE of a table with a trigger: its function */
	read_text(&info, m, "E'UPDATE app.orders SET n = ' || n");
	assert_true(info.can_call);
	assert_true(has_target(&info, m, "app.audit()"));
	cgm_dynsql_info_free(&info);
	/* no constant part at all: anything */
	read_text(&info, m, "v_sql");
	assert_null(info.statement);
	assert_true(info.can_call);
	assert_int_equal(info.ntargets, 0);
	cgm_dynsql_info_free(&info);
	cgm_model_free(m);
}

static void test_possible_targets(void **state)
{
	(void)state;
	cgm_model *m = dyn_model();
	cgm_dynsql_info info;
	read_text(&info, m, "'SELECT app.handler_' || kind || '()'");
	assert_int_equal(info.ntargets, 1);
	assert_true(has_target(&info, m, "app.handler_a()"));
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('SELECT %I.%I($1)', s, f)");
	assert_true(has_target(&info, m, "app.handler_b(integer)"));
	assert_true(has_target(&info, m, "util.check(integer)"));
	assert_false(has_target(&info, m, "util.other(integer, integer)"));
	assert_false(has_target(&info, m, "app.handler_a()"));
	assert_false(has_target(&info, m, "app.audit()")); /* a trigger function is never called */
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('SELECT %s()', p)");
	assert_int_equal(info.ntargets, 1);
	assert_true(has_target(&info, m, "app.handler_a()"));
	cgm_dynsql_info_free(&info);
	/* %L is a literal, never a name */
	read_text(&info, m, "format('SELECT util.check(%L)', x)");
	assert_int_equal(info.ntargets, 1);
	assert_true(has_target(&info, m, "util.check(integer)"));
	cgm_dynsql_info_free(&info);
	/* INSERT INTO t(cols) is no call */
	read_text(&info, m, "'INSERT INTO ' || t || '(a, b) VALUES (1, 2)'");
	assert_int_equal(info.ntargets, 0);
	cgm_dynsql_info_free(&info);
	cgm_model_free(m);
}

/* EXECUTE of one call of a function every overload of which returns void
 * runs void's output, the empty string: no statement, no user function
 * (the call itself is a static edge).  One overload returning text, no
 * function of that name, or more than the call: anything. */
static void test_void_call(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "purge", "plpgsql", 1)->result = "void";
	add_function(m, "app", "stmt", "plpgsql", 0)->result = "void";
	add_function(m, "app", "stmt", "plpgsql", 1)->result = "text";
	add_function(m, "util", "purge", "plpgsql", 0)->result = "void";
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	const char *none[] = { "app.purge(ARRAY[k])", " Purge (x, ')' || y) ", "APP . purge()",
			       "util.purge()" };
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		cgm_dynsql_info info;
		read_text(&info, m, none[i]);
		if (info.can_call || info.statement || info.total)
			fail_msg("%s: read as able to call a user function", none[i]);
		cgm_dynsql_info_free(&info);
	}
	const char *any[] = { "app.stmt(k)", "other.purge(k)", "missing(k)", "app.purge(k) || ''",
			      "app.purge(k) || f(x)", "app.purge(k), 1", "\"app\".purge(k)" };
	for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) {
		cgm_dynsql_info info;
		read_text(&info, m, any[i]);
		if (!info.can_call)
			fail_msg("%s: read as calling no user function", any[i]);
		cgm_dynsql_info_free(&info);
	}
	cgm_model_free(m);
}

/* A parenthesised list after a relation's name in DDL (and COPY, INSERT)
 * is its columns, not a call; DDL runs only what it evaluates now: CREATE
 * INDEX its expressions, ALTER TABLE its new defaults, checks and USING, a
 * partition its bounds; CREATE TABLE's defaults and checks run later. */
static void expect_none(const cgm_model *m, const char *text, const char *statement)
{
	cgm_dynsql_info info;
	read_text(&info, m, text);
	if (!info.statement || strcmp(info.statement, statement) != 0 || info.can_call ||
	    info.total != 0)
		fail_msg("%s: statement %s, can_call %d, %d targets (want %s, none)", text,
			 info.statement ? info.statement : "(null)", info.can_call, info.total,
			 statement);
	cgm_dynsql_info_free(&info);
}

static void expect_only(const cgm_model *m, const char *text, const char *statement,
			const char *target)
{
	cgm_dynsql_info info;
	read_text(&info, m, text);
	if (!info.statement || strcmp(info.statement, statement) != 0 || !info.can_call ||
	    info.total != (target ? 1 : 0) || (target && !has_target(&info, m, target)))
		fail_msg("%s: statement %s, can_call %d, %d targets (want %s, %s)", text,
			 info.statement ? info.statement : "(null)", info.can_call, info.total,
			 statement, target ? target : "none");
	cgm_dynsql_info_free(&info);
}

static void test_ddl_column_lists(void **state)
{
	(void)state;
	cgm_model *m = dyn_model();
	/* column lists after the relation, whatever the arity */
	expect_none(m, "format('CREATE TABLE IF NOT EXISTS util.%I (a int, b text)', t)",
		    "CREATE TABLE");
	expect_none(m, "format('CREATE INDEX ON util.%I (created_at)', t)", "CREATE INDEX");
	expect_none(m, "format('CREATE INDEX IF NOT EXISTS %I ON util.%I (%I)', i, t, c)",
		    "CREATE INDEX");
	expect_none(m, "'create index ' || i || ' on ' || t || ' (ev_txid)'", "CREATE INDEX");
	expect_none(m,
		    "format('CREATE UNIQUE INDEX CONCURRENTLY %I ON ONLY util.%I USING btree (a) "
		    "INCLUDE (b) WITH (fillfactor = 70)', i, t)",
		    "CREATE INDEX");
	expect_none(m, "format('CREATE INDEX ON %I USING %s (%I)', t, method, c)", "CREATE INDEX");
	/* CREATE [UNLOGGED|TEMP] TABLE is a CREATE TABLE; its defaults, checks
	 * and generated columns are stored, not run */
	expect_none(m,
		    "format('CREATE UNLOGGED TABLE util.%I (a int DEFAULT util.check(1) CHECK "
		    "(util.other(a, 1)), b numeric(10,2) GENERATED ALWAYS AS (util.check(a)) "
		    "STORED, PRIMARY KEY (a, b)) PARTITION BY RANGE (a)', t)",
		    "CREATE TABLE");
	expect_none(m, "'CREATE TEMPORARY TABLE ' || t || ' (x int, y int)'", "CREATE TABLE");
	expect_none(m, "format('CREATE TABLE %I (LIKE util.%I INCLUDING ALL)', a, b)",
		    "CREATE TABLE");
	expect_none(m, "format('CREATE TABLE %I PARTITION OF util.%I (a) FOR VALUES FROM (%L) TO (%L)', p, t, lo, hi)",
		    "CREATE TABLE");
	expect_none(m, "format('CREATE OR REPLACE VIEW %I (a, b) AS SELECT util.check(1), 2', v)",
		    "CREATE VIEW");
	expect_none(m, "format('CREATE MATERIALIZED VIEW %I (a) AS SELECT 1 WITH NO DATA', v)",
		    "CREATE MATERIALIZED VIEW");
	/* ALTER TABLE: key and reference lists, renames, ownership */
	expect_none(m,
		    "format('ALTER TABLE util.%I ADD PRIMARY KEY (a, b), ADD FOREIGN KEY (b) "
		    "REFERENCES util.%I (c), ADD CONSTRAINT %I UNIQUE (a), ADD EXCLUDE USING gist "
		    "(r WITH &&)', t, u, k)",
		    "ALTER TABLE");
	expect_none(m, "'ALTER TABLE ' || t || ' RENAME TO ' || u", "ALTER TABLE");
	expect_none(m, "format('ALTER TABLE IF EXISTS ONLY %I SET (fillfactor = 70)', t)",
		    "ALTER TABLE");
	expect_none(m, "'ALTER INDEX util.i_' || t || ' RENAME TO i_' || t || '_old'", "ALTER INDEX");
	expect_none(m, "format('ALTER EXTENSION pgmq ADD TABLE util.%I', t)", "ALTER EXTENSION");
	expect_none(m, "format('ALTER EXTENSION pgmq DROP SEQUENCE util.%I', t)", "ALTER EXTENSION");
	expect_none(m, "format('CREATE SEQUENCE IF NOT EXISTS %I', s)", "CREATE SEQUENCE");
	expect_none(m, "format('CREATE OR REPLACE FUNCTION %I.%I(a int) RETURNS int AS %L "
			  "LANGUAGE sql', s, f, body)",
		    "CREATE FUNCTION");
	expect_none(m, "format('CREATE ROLE %I', r)", "CREATE ROLE");
	expect_none(m, "format('DROP TABLE IF EXISTS util.%I', t)", "DROP TABLE");
	/* INSERT and COPY name columns too */
	cgm_dynsql_info info;
	read_text(&info, m, "format('COPY util.%I (a, b) FROM STDIN', t)");
	assert_string_equal(info.statement, "COPY");
	assert_int_equal(info.total, 0);
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('INSERT INTO util.%I (a) VALUES ($1)', t)");
	assert_int_equal(info.total, 0);
	cgm_dynsql_info_free(&info);
	/* what DDL evaluates now: index expressions and predicates, a new
	 * column's default, a check validated, a USING, a partition's bounds */
	expect_only(m, "format('CREATE INDEX ON util.%I (util.check(x))', t)", "CREATE INDEX",
		    "util.check(integer)");
	expect_only(m, "format('CREATE INDEX %I ON util.%I (a) WHERE util.check(a)', i, t)",
		    "CREATE INDEX", "util.check(integer)");
	expect_only(m, "format('ALTER TABLE util.%I ADD COLUMN c int DEFAULT util.check(2)', t)",
		    "ALTER TABLE", "util.check(integer)");
	expect_only(m, "format('ALTER TABLE util.%I ADD CONSTRAINT %I CHECK (util.check(a))', t, c)",
		    "ALTER TABLE", "util.check(integer)");
	expect_only(m,
		    "format('ALTER TABLE %I ALTER COLUMN a TYPE numeric(10,2) USING util.check(a)', t)",
		    "ALTER TABLE", "util.check(integer)");
	expect_only(m, "format('CREATE TABLE %I PARTITION OF util.%I FOR VALUES IN (util.check(1))', p, t)",
		    "CREATE TABLE", "util.check(integer)");
	/* a query runs: CREATE TABLE AS, CREATE MATERIALIZED VIEW */
	expect_only(m, "format('CREATE TEMP TABLE %I AS SELECT util.check(1)', t)", "CREATE TABLE AS",
		    "util.check(integer)");
	expect_only(m, "'CREATE TEMP TABLE ' || t || ' AS ' || q", "CREATE TABLE AS", NULL);
	/* scripts run: CREATE EXTENSION, ALTER EXTENSION ... UPDATE */
	expect_only(m, "format('ALTER EXTENSION %I UPDATE', e)", "ALTER EXTENSION", NULL);
	/* several statements: what any of them runs (the first names the
	 * site), a `;` inside a literal or a dollar-quoted body none */
	expect_none(m, "format('DROP VIEW IF EXISTS %I; CREATE VIEW %I AS SELECT util.check(1)', v, v)",
		    "DROP VIEW");
	expect_only(m, "format('DROP VIEW IF EXISTS %I; SELECT util.check(%s)', v, x)", "DROP VIEW",
		    "util.check(integer)");
	expect_none(m, "format($q$CREATE FUNCTION %I() RETURNS int AS $b$ SELECT util.check(1); $b$ "
			  "LANGUAGE sql; GRANT ALL ON %I TO PUBLIC$q$, v, v)",
		    "CREATE FUNCTION");
	cgm_model_free(m);
}

/* The functions a DDL template names as columns are no possible targets, so
 * the verdicts may call them dead: q.never(text, integer) was one of
 * CREATE TABLE q.%I (a int, b text)'s "two arguments". */
static void test_ddl_possible_targets_marked(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "q", "never", "plpgsql", 2);
	add_function(m, "q", "never1", "plpgsql", 1);
	add_function(m, "q", "mk_index", "plpgsql", 2);
	add_function(m, "q", "mk_table", "plpgsql", 1);
	add_function(m, "q", "mk_index2", "plpgsql", 1);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	add_site(m, "q.mk_index(integer, integer)", CGM_SITE_DYNAMIC, 2, "dynexecute",
		 "format('CREATE INDEX IF NOT EXISTS %I ON q.%I (%I)', t||'_idx', t, c)");
	add_site(m, "q.mk_table(integer)", CGM_SITE_DYNAMIC, 2, "dynexecute",
		 "format('CREATE TABLE IF NOT EXISTS q.%I (a int, b text)', t)");
	add_site(m, "q.mk_index2(integer)", CGM_SITE_DYNAMIC, 2, "dynexecute",
		 "format('CREATE INDEX ON q.%I (created_at)', t)");
	bool possible[5] = { false };
	cgm_dynsql_possible_targets(possible, m);
	for (int i = 0; i < 5; i++)
		if (possible[i])
			fail_msg("%s is a possible target", m->functions[i].id);
	cgm_model_free(m);
}

/* DDL calls the functions of the event triggers that fire for its command
 * tag (ddl_command_start/end with their WHEN TAG IN, sql_drop for DROP and
 * ALTER, table_rewrite for ALTER TABLE), never a function returning
 * event_trigger that no event trigger uses; roles and SET fire none. */
static void test_ddl_event_triggers(void **state)
{
	(void)state;
	cgm_model *m = dyn_model();
	const char *const names[] = { "on_ddl", "on_drop", "on_index", "unused" };
	for (int i = 0; i < 4; i++) {
		cgm_function *f = add_function(m, "util", names[i], "plpgsql", 0);
		f->result = "event_trigger";
		f->is_trigger = true;
	}
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	static const char *index_tags[] = { "CREATE INDEX" };
	const char *const events[] = { "ddl_command_end", "sql_drop", "ddl_command_start" };
	for (int i = 0; i < 3; i++) {
		cgm_event_trigger *et = cgm_model_add_event_trigger(m);
		et->name = names[i];
		et->event = events[i];
		et->enabled = true;
		et->function_id = cgm_arena_printf(m->arena, "util.%s()", names[i]);
		et->function = idx(m, et->function_id);
		if (i == 2) {
			et->ntags = 1;
			et->tags = index_tags;
		}
	}
	cgm_dynsql_info info;
	read_text(&info, m, "'ALTER TABLE ' || t || ' RENAME TO ' || u");
	assert_true(info.can_call);
	assert_int_equal(info.total, 2);
	assert_true(has_target(&info, m, "util.on_ddl()"));
	assert_true(has_target(&info, m, "util.on_drop()"));
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('CREATE TABLE util.%I (a int DEFAULT util.check(1))', t)");
	assert_true(info.can_call);
	assert_int_equal(info.total, 1);
	assert_true(has_target(&info, m, "util.on_ddl()"));
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('CREATE INDEX ON util.%I (util.check(a))', t)");
	assert_int_equal(info.total, 3);
	assert_true(has_target(&info, m, "util.on_ddl()"));
	assert_true(has_target(&info, m, "util.on_index()"));
	assert_true(has_target(&info, m, "util.check(integer)"));
	cgm_dynsql_info_free(&info);
	/* the object a variable: any tag of the verb */
	read_text(&info, m, "'DROP ' || kind || ' ' || name");
	assert_string_equal(info.statement, "DROP");
	assert_int_equal(info.total, 2);
	assert_true(has_target(&info, m, "util.on_drop()"));
	assert_false(has_target(&info, m, "util.unused()"));
	cgm_dynsql_info_free(&info);
	read_text(&info, m, "format('GRANT SELECT ON util.%I TO %I', t, r)");
	assert_int_equal(info.total, 1);
	assert_true(has_target(&info, m, "util.on_ddl()"));
	cgm_dynsql_info_free(&info);
	expect_none(m, "format('CREATE ROLE %I', r)", "CREATE ROLE");
	expect_none(m, "format('ALTER ROLE %I SET search_path = %I', r, s)", "ALTER ROLE");
	/* Nor does a COMMENT, SECURITY LABEL, GRANT or REVOKE on a shared
	 * object (EventTriggerSupportsObjectType), or a role's membership. */
	expect_none(m, "format('COMMENT ON ROLE %I IS NULL', r)", "COMMENT");
	expect_none(m, "format('SECURITY LABEL FOR anon ON ROLE %I IS NULL', r)", "SECURITY LABEL");
	expect_none(m, "'GRANT CONNECT ON DATABASE ' || d || ' TO ' || r", "GRANT");
	expect_none(m, "format('REVOKE ALL ON TABLESPACE %I FROM %I', t, r)", "REVOKE");
	expect_none(m, "format('GRANT %I TO %I', g, r)", "GRANT");
	read_text(&info, m, "format('SECURITY LABEL FOR anon ON COLUMN %I.%I IS NULL', t, c)");
	assert_int_equal(info.total, 1);
	assert_true(has_target(&info, m, "util.on_ddl()"));
	cgm_dynsql_info_free(&info);
	cgm_model_free(m);
}

/* A template may fit thousands of functions: the site lists the first
 * CGM_DYNSQL_TARGETS_KEPT in model order and counts them all, and the
 * same pattern read through one reader gives the same answer. */
static void test_possible_targets_capped(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	int n = CGM_DYNSQL_TARGETS_KEPT + 25;
	for (int i = 0; i < n; i++)
		add_function(m, "app", cgm_arena_printf(m->arena, "h%03d", i), "plpgsql", 1);
	add_function(m, "app", "other", "plpgsql", 1);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	cgm_dynsql_reader *r = cgm_dynsql_reader_new(m);
	cgm_site_rare sx = { .text = "format('SELECT app.h%s(%L)', k, x)" };
	cgm_site site = { .kind = CGM_SITE_DYNAMIC, .line = 1, .rare = &sx };
	for (int round = 0; round < 2; round++) {
		cgm_dynsql_info info;
		cgm_dynsql_read_with(&info, r, &site);
		assert_int_equal(info.total, n);
		assert_int_equal(info.ntargets, CGM_DYNSQL_TARGETS_KEPT);
		for (int k = 1; k < info.ntargets; k++)
			assert_true(info.targets[k - 1] < info.targets[k]);
		assert_false(has_target(&info, m, "app.other(integer)"));
		cgm_dynsql_info_free(&info);
	}
	/* Two call shapes: their union, each function once. */
	cgm_site_rare tx = { .text = "format('SELECT app.h00%s(1) + app.h0%s(2)', a, b)" };
	cgm_site two = { .kind = CGM_SITE_DYNAMIC, .line = 2, .rare = &tx };
	cgm_dynsql_info info;
	cgm_dynsql_read_with(&info, r, &two);
	assert_int_equal(info.total, n);
	cgm_dynsql_info_free(&info);
	cgm_dynsql_reader_free(r);
	cgm_model_free(m);
}

/* A pattern named by the sites of two functions reaches both of them; named
 * by one function only, it does not reach that function itself. */
static void test_possible_targets_marked(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app", "h1", "plpgsql", 0);
	add_function(m, "app", "h2", "plpgsql", 0);
	add_function(m, "app", "h3", "plpgsql", 0);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	add_site(m, "app.h1()", CGM_SITE_DYNAMIC, 3, "dynexecute", "'SELECT app.h' || n || '()'");
	bool possible[3] = { false, false, false };
	cgm_dynsql_possible_targets(possible, m);
	assert_false(possible[idx(m, "app.h1()")]);
	assert_true(possible[idx(m, "app.h2()")]);
	assert_true(possible[idx(m, "app.h3()")]);
	add_site(m, "app.h2()", CGM_SITE_DYNAMIC, 3, "dynexecute", "'SELECT app.h' || n || '()'");
	memset(possible, 0, sizeof possible);
	cgm_dynsql_possible_targets(possible, m);
	assert_true(possible[idx(m, "app.h1()")]);
	assert_true(possible[idx(m, "app.h2()")]);
	assert_true(possible[idx(m, "app.h3()")]);
	cgm_model_free(m);
}

/* SQL text a body builds in pieces (code that generates SQL): a call it
 * names in a literal may run, in the schema named, never the body itself;
 * a name outside literals or without a bracket is none. */
static void test_possible_targets_named_in_text(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	cgm_function *gen = add_function(m, "app", "gen", "plpgsql", 0);
	gen->source = "BEGIN\n  v := v || ' = '' || app.quote_it(o.' || col || ') || ''';\n"
		      "  v := v || ' || shared(x)'; PERFORM app.gen();\n  RAISE NOTICE 'app.plain';\nEND";
	add_function(m, "app", "quote_it", "plpgsql", 0);
	add_function(m, "other", "quote_it", "plpgsql", 0);
	add_function(m, "app", "shared", "sql", 0);
	add_function(m, "other", "shared", "sql", 0);
	add_function(m, "app", "plain", "sql", 0);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	bool possible[6] = { false };
	cgm_dynsql_possible_targets(possible, m);
	assert_true(possible[idx(m, "app.quote_it()")]);
	assert_false(possible[idx(m, "other.quote_it()")]);
	assert_true(possible[idx(m, "app.shared()")]);
	assert_true(possible[idx(m, "other.shared()")]);
	assert_false(possible[idx(m, "app.plain()")]);
	assert_false(possible[idx(m, "app.gen()")]);
	/* a body that was not analysed names nothing */
	m->functions[idx(m, "app.gen()")].analysed = false;
	memset(possible, 0, sizeof possible);
	cgm_dynsql_possible_targets(possible, m);
	assert_false(possible[idx(m, "app.quote_it()")]);
	cgm_model_free(m);
}

static void test_times_and_durations(void **state)
{
	(void)state;
	assert_int_equal(cgm_time_parse("1970-01-02T00:00:00Z"), 86400);
	assert_int_equal(cgm_time_parse("2026-11-29 19:40:00.123 UTC") -
				 cgm_time_parse("2026-11-29T19:00:00Z"),
			 2400);
	assert_int_equal(cgm_time_parse("2026-11-29 20:40:00+01") -
				 cgm_time_parse("2026-11-29T19:40:00Z"),
			 0);
	assert_int_equal(cgm_time_parse("yesterday"), -1);
	assert_int_equal(cgm_time_parse(NULL), -1);
	/* The statistics' reset and the trace's: one window when a moment
	 * apart, two when the trace was reset later (or earlier). */
	assert_int_equal(cgm_window_skew("2026-11-29T19:00:00Z", "2026-11-29T19:00:02Z"), 0);
	assert_int_equal(cgm_window_skew("2026-11-29T19:00:00Z", "2026-11-29T19:05:00Z"), 1);
	assert_int_equal(cgm_window_skew("2026-11-29T19:05:00Z", "2026-11-29T19:00:00Z"), -1);
	assert_int_equal(cgm_window_skew(NULL, "2026-11-29T19:00:00Z"), 0);
	int64_t s;
	assert_int_equal(cgm_duration_parse(&s, "90", "--min-window"), 0);
	assert_int_equal(s, 90);
	assert_int_equal(cgm_duration_parse(&s, "2h30m", "--min-window"), 0);
	assert_int_equal(s, 9000);
	assert_int_equal(cgm_duration_parse(&s, "1w", "--min-window"), 0);
	assert_int_equal(s, 7 * 86400);
	assert_int_equal(cgm_duration_parse(&s, "3 days", "--min-window"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "--min-window"));
	assert_int_equal(cgm_duration_parse(&s, "", "--min-window"), CGM_EUSAGE);
	assert_int_equal(cgm_duration_parse(&s, "99999999999999d", "--min-window"), CGM_EUSAGE);
}

static void test_server_log_lines(void **state)
{
	(void)state;
	char t[64], d[64];
	/* csvlog: the timestamp is the first field, not the text up to a quote */
	const char *csv = "2012-01-09 19:08:30.983 CET,\"joel\",\"test\",28461,\"[local]\","
			  "4f0b2e4e.6f2d,1,\"SELECT\",2012-01-09 19:08:30 CET,2/0,0,LOG,00000,"
			  "\"digraph {37615->37616;37615->37617}\",,,,,,,,,\"psql\"";
	assert_int_equal(cgm_serverlog_format(csv), CGM_LOG_CSV);
	assert_true(cgm_serverlog_timestamp(t, sizeof t, csv));
	assert_string_equal(t, "2012-01-09 19:08:30.983 CET");
	assert_true(cgm_serverlog_database(d, sizeof d, csv));
	assert_string_equal(d, "test");
	/* a quoted field holding commas and quotes */
	const char *csv2 = "2012-01-10 08:00:00.000 CET,\"a,\"\"b\",\"shop\",1";
	assert_true(cgm_serverlog_database(d, sizeof d, csv2));
	assert_string_equal(d, "shop");
	/* jsonlog */
	const char *json = "{\"timestamp\":\"2026-11-29 19:40:00.123 UTC\",\"user\":\"joel\","
			   "\"dbname\":\"shop\",\"message\":\"digraph {1->2}\"}";
	assert_int_equal(cgm_serverlog_format(json), CGM_LOG_JSON);
	assert_true(cgm_serverlog_timestamp(t, sizeof t, json));
	assert_string_equal(t, "2026-11-29 19:40:00.123 UTC");
	assert_true(cgm_serverlog_database(d, sizeof d, json));
	assert_string_equal(d, "shop");
	/* stderr with the default prefix '%m [%p] ' */
	const char *plain = "2026-11-29 10:00:00.010 UTC [4242] LOG:  digraph {0->1}";
	assert_int_equal(cgm_serverlog_format(plain), CGM_LOG_STDERR);
	assert_true(cgm_serverlog_timestamp(t, sizeof t, plain));
	assert_string_equal(t, "2026-11-29 10:00:00.010 UTC");
	assert_false(cgm_serverlog_database(d, sizeof d, plain));
	assert_false(cgm_serverlog_timestamp(t, sizeof t, "LOG:  digraph {0->1}"));
	/* stderr with another log_line_prefix (--log-line-prefix) */
	const char *custom = "db=shop,user=joel 2026-11-29 19:40:00 UTC [77]: LOG:  digraph {0->1}";
	assert_false(cgm_serverlog_timestamp(t, sizeof t, custom));
	assert_true(cgm_serverlog_timestamp_prefixed(t, sizeof t, custom, "db=%d,user=%u %t [%p]: "));
	assert_string_equal(t, "2026-11-29 19:40:00 UTC");
	assert_false(cgm_serverlog_timestamp_prefixed(t, sizeof t, plain, "db=%d,user=%u %t [%p]: "));
	assert_true(cgm_serverlog_timestamp_prefixed(t, sizeof t, "1764445200 [9] LOG:  x", "%n [%p] "));
	assert_string_equal(t, "2025-11-29T19:40:00Z");
	/* csvlog lines are read by their fields whatever the prefix */
	assert_true(cgm_serverlog_timestamp_prefixed(t, sizeof t, csv, "%n [%p] "));
	assert_string_equal(t, "2012-01-09 19:08:30.983 CET");
	/* a log spanning days: a window of days */
	assert_int_equal(cgm_time_parse("2012-01-11 19:08:30.983 CET") -
				 cgm_time_parse("2012-01-09 19:08:30.983 CET"),
			 2 * 86400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_week_of_evidence),
		cmocka_unit_test(test_empty_window_is_never_dead),
		cmocka_unit_test(test_short_window_and_thresholds),
		cmocka_unit_test(test_window_within_one_second),
		cmocka_unit_test(test_lost_records_are_not_dead),
		cmocka_unit_test(test_full_table_is_not_dead),
		cmocka_unit_test(test_track_all_traces_sql),
		cmocka_unit_test(test_aggregate_through_support),
		cmocka_unit_test(test_aggregate_of_builtins_untraceable),
		cmocka_unit_test(test_same_observation_counted_once),
		cmocka_unit_test(test_two_servers_summed),
		cmocka_unit_test(test_consecutive_windows_summed),
		cmocka_unit_test(test_calls_ending_in_error),
		cmocka_unit_test(test_call_in_execute_arguments),
		cmocka_unit_test(test_unexplained_causes),
		cmocka_unit_test(test_template_kinds),
		cmocka_unit_test(test_possible_targets),
		cmocka_unit_test(test_void_call),
		cmocka_unit_test(test_ddl_column_lists),
		cmocka_unit_test(test_ddl_event_triggers),
		cmocka_unit_test(test_ddl_possible_targets_marked),
		cmocka_unit_test(test_possible_targets_capped),
		cmocka_unit_test(test_possible_targets_marked),
		cmocka_unit_test(test_possible_targets_named_in_text),
		cmocka_unit_test(test_times_and_durations),
		cmocka_unit_test(test_server_log_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
