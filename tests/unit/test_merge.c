/*
 * test_merge.c - runtime data joining a hand-built static graph: where each
 * observed call lands (static edge, dynamic site, unexplained), figures of
 * edges and functions, entry points, several sources summed, unknown ids
 * reported, the window; and the runtime file written and read back, with
 * malformed files rejected by name.
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
#include <unistd.h>

#include "cgmap/bodyver.h"
#include "cgmap/error.h"
#include "cgmap/verdict.h"
#include "cgmap/pipeline.h"
#include "cgmap/runtime.h"

static void add_function(cgm_model *m, const char *id)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
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

static void add_site(cgm_model *m, const char *id, cgm_site_kind kind, int line)
{
	cgm_function *f = &m->functions[idx(m, id)];
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	s->kind = kind;
	s->line = line;
	s->resolution = kind == CGM_SITE_DYNAMIC ? CGM_RES_NONE : CGM_RES_RESOLVED;
	cgm_site_rare_of(m->arena, s)->text = kind == CGM_SITE_DYNAMIC ? "format('SELECT %I()', fname)" : NULL;
}

static void add_static(cgm_model *m, const char *from, const char *to, cgm_via via, int line)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = via;
	e->provenance = CGM_EDGE_STATIC;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = line;
	e->nlines = 1;
}

static const cgm_edge *find_edge(const cgm_model *m, const char *from, const char *to, cgm_via via)
{
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (e->from == idx(m, from) && e->to == idx(m, to) && e->via == via)
			return e;
	}
	return NULL;
}

/*
 * app.main()      line 3: PERFORM app.work(1); line 5: EXECUTE dynamic;
 *                 line 9: INSERT firing app.audit() (trigger edge at line 9)
 * app.work(integer), app.audit(), app.dyn_a(), app.dyn_b(), app.other()
 */
static cgm_model *sample(void)
{
	cgm_model *m = cgm_model_new();
	const char *ids[] = { "app.audit()", "app.dyn_a()", "app.dyn_b()",
			      "app.main()",  "app.other()", "app.work(integer)" };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		add_function(m, ids[i]);
	cgm_model_index(m);
	add_site(m, "app.main()", CGM_SITE_PERFORM, 3);
	add_site(m, "app.main()", CGM_SITE_DYNAMIC, 5);
	add_site(m, "app.main()", CGM_SITE_TRIGGER, 9);
	add_site(m, "app.other()", CGM_SITE_DYNAMIC, 2);
	add_site(m, "app.other()", CGM_SITE_DYNAMIC, 7);
	add_static(m, "app.main()", "app.work(integer)", CGM_VIA_CALL, 3);
	add_static(m, "app.main()", "app.audit()", CGM_VIA_TRIGGER, 9);
	return m;
}

static int add_source(cgm_runtime *rt, const char *name, bool trace, bool stats)
{
	rt->sources = cgm_arena_grow(rt->arena, rt->sources, (size_t)rt->nsources,
				     (size_t)rt->nsources + 1, sizeof(cgm_runtime_source));
	cgm_runtime_source *s = &rt->sources[rt->nsources];
	memset(s, 0, sizeof(*s));
	s->kind = "database";
	s->name = name;
	s->database = name;
	s->since = "2026-11-29T10:00:00Z";
	s->until = "2026-11-29T11:00:00Z";
	s->has_trace = trace;
	s->has_function_stats = stats;
	return rt->nsources++;
}

static void add_row(cgm_runtime *rt, int source, const char *caller, const char *callee, int line,
		    bool dynamic, int64_t calls, double total, double self)
{
	rt->edges = cgm_arena_grow(rt->arena, rt->edges, (size_t)rt->nedges, (size_t)rt->nedges + 1,
				   sizeof(cgm_runtime_edge));
	rt->edges[rt->nedges++] = (cgm_runtime_edge){
		caller, callee, line, dynamic, { calls, total, self }, source, NULL, false
	};
}

static void add_stat(cgm_runtime *rt, int source, const char *id, int64_t calls, double total,
		     double self)
{
	rt->functions = cgm_arena_grow(rt->arena, rt->functions, (size_t)rt->nfunctions,
				       (size_t)rt->nfunctions + 1, sizeof(cgm_runtime_function));
	rt->functions[rt->nfunctions++] = (cgm_runtime_function){ id, { calls, total, self }, source };
}

static void test_where_observed_calls_land(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, false);
	add_row(rt, s, NULL, "app.main()", 0, false, 2, 10.0, 1.0);
	add_row(rt, s, "app.main()", "app.work(integer)", 3, false, 6, 3.0, 3.0);
	add_row(rt, s, "app.main()", "app.audit()", 9, false, 2, 1.0, 1.0);
	add_row(rt, s, "app.main()", "app.dyn_a()", 5, true, 1, 0.5, 0.5);
	add_row(rt, s, "app.main()", "app.dyn_b()", 5, true, 1, 0.5, 0.5);
	/* app.work calls app.other: nothing static, no dynamic site. */
	add_row(rt, s, "app.work(integer)", "app.other()", 4, false, 3, 0.3, 0.3);
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);

	assert_true(m->has_runtime);
	assert_string_equal(m->runtime_window,
			    "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)");
	assert_int_equal(m->nruntime_sources, 1);
	assert_string_equal(m->runtime_sources[0], "database demo: cgmap_trace");

	const cgm_edge *work = find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL);
	assert_non_null(work);
	assert_int_equal(work->provenance, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(work)->calls, 6);
	assert_false(cgm_edge_unexplained(work));
	const cgm_edge *audit = find_edge(m, "app.main()", "app.audit()", CGM_VIA_TRIGGER);
	assert_int_equal(audit->provenance, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(audit)->calls, 2);

	const cgm_edge *dyn_a = find_edge(m, "app.main()", "app.dyn_a()", CGM_VIA_DYNAMIC);
	assert_non_null(dyn_a);
	assert_int_equal(dyn_a->provenance, CGM_EDGE_OBSERVED);
	assert_int_equal(dyn_a->nlines, 1);
	assert_int_equal(dyn_a->lines[0], 5);
	assert_false(cgm_edge_unexplained(dyn_a));
	assert_non_null(find_edge(m, "app.main()", "app.dyn_b()", CGM_VIA_DYNAMIC));
	const cgm_function *main_fn = &m->functions[idx(m, "app.main()")];
	assert_true(cgm_dynamic_site_observed(m, idx(m, "app.main()"), &main_fn->sites[1]));

	const cgm_edge *other = find_edge(m, "app.work(integer)", "app.other()", CGM_VIA_CALL);
	assert_non_null(other);
	assert_true(cgm_edge_unexplained(other));
	assert_int_equal(other->lines[0], 4);
	assert_int_equal(cgm_edge_runtime(other)->calls, 3);

	/* Function figures: sums of incoming observed calls (no pg_stat here). */
	assert_true(main_fn->observed_entry);
	assert_int_equal(main_fn->runtime.calls, 2);
	assert_true(main_fn->runtime.total_ms == 10.0);
	assert_int_equal(m->functions[idx(m, "app.work(integer)")].runtime.calls, 6);
	assert_int_equal(m->functions[idx(m, "app.other()")].runtime.calls, 3);
	assert_false(m->functions[idx(m, "app.other()")].observed_entry);

	/* Edges stay sorted by from, to, via. */
	for (int i = 1; i < m->nedges; i++) {
		const cgm_edge *a = &m->edges[i - 1], *b = &m->edges[i];
		int c = strcmp(m->functions[a->from].id, m->functions[b->from].id);
		if (!c)
			c = strcmp(m->functions[a->to].id, m->functions[b->to].id);
		assert_true(c <= 0);
	}
	cgm_model_free(m);
}

/* The FNV-1a 64-bit reference values, and the text form the extension
 * writes. */
static void test_body_version_hash(void **state)
{
	(void)state;
	assert_true(cgm_body_version_hash("", 0) == 0xcbf29ce484222325ULL);
	assert_true(cgm_body_version_hash("a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(cgm_body_version_hash("foobar", 6) == 0x85944171f73967e8ULL);
	cgm_arena *a = cgm_arena_new();
	assert_string_equal(cgm_body_version(a, "foobar"), "85944171f73967e8");
	assert_string_equal(cgm_body_version(a, ""), "cbf29ce484222325");
	assert_null(cgm_body_version(a, NULL));
	/* every byte counts, layout too (unlike the layout-blind body_hash) */
	assert_string_not_equal(cgm_body_version(a, "BEGIN\n  PERFORM f();\nEND"),
				cgm_body_version(a, "BEGIN\n\n  PERFORM f();\nEND"));
	assert_true(cgm_body_version_valid("0123456789abcdef"));
	assert_false(cgm_body_version_valid("0123456789ABCDEF"));
	assert_false(cgm_body_version_valid("0123456789abcde"));
	assert_false(cgm_body_version_valid("0123456789abcdef0"));
	assert_false(cgm_body_version_valid(NULL));
	cgm_arena_free(a);
}

/* A call seen against an earlier body of the caller lands by callee, not
 * by line: on the static edge of the pair whatever its line, or, when the
 * mapped body no longer calls it, on an observed edge whose cause is
 * "changed body", never "unknown".  The same versions keep line matching. */
static void test_earlier_body(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_function *main_fn = &m->functions[idx(m, "app.main()")];
	main_fn->body_version = "00000000000000aa";
	main_fn->line_count = 12;
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, false);
	/* old body: PERFORM app.work(1) was on line 7 (a dynamic site is
	 * nearby at 5 in the new body), app.other() was called on line 4 */
	add_row(rt, s, "app.main()", "app.work(integer)", 7, false, 4, 1.0, 1.0);
	rt->edges[rt->nedges - 1].caller_body = "00000000000000bb";
	add_row(rt, s, "app.main()", "app.other()", 4, false, 2, 1.0, 1.0);
	rt->edges[rt->nedges - 1].caller_body = "00000000000000bb";
	/* the current body, line 3: matched by line as always */
	add_row(rt, s, "app.main()", "app.work(integer)", 3, false, 5, 1.0, 1.0);
	rt->edges[rt->nedges - 1].caller_body = "00000000000000aa";
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);

	const cgm_edge *work = find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL);
	assert_non_null(work);
	assert_int_equal(work->provenance, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(work)->calls, 9);
	assert_true(cgm_edge_get_rare(work)->earlier_body);
	assert_int_equal(cgm_edge_get_rare(work)->ncaller_bodies, 2);
	assert_string_equal(cgm_edge_get_rare(work)->caller_bodies[0], "00000000000000aa");
	assert_string_equal(cgm_edge_get_rare(work)->caller_bodies[1], "00000000000000bb");
	assert_int_equal(work->nlines, 1); /* the old line 7 is not added */
	assert_int_equal(work->lines[0], 3);
	assert_null(find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_DYNAMIC));

	const cgm_edge *other = find_edge(m, "app.main()", "app.other()", CGM_VIA_CALL);
	assert_non_null(other);
	assert_true(cgm_edge_unexplained(other));
	assert_true(cgm_edge_get_rare(other)->earlier_body);
	assert_int_equal(other->nlines, 0);
	assert_string_equal(cgm_edge_cause(m, other), "changed body");
	cgm_model_free(m);

	/* Equal versions, or one unknown: the line decides, as before. */
	m = sample();
	m->functions[idx(m, "app.main()")].body_version = "00000000000000aa";
	rt = cgm_runtime_new();
	s = add_source(rt, "demo", true, false);
	add_row(rt, s, "app.main()", "app.other()", 4, false, 2, 1.0, 1.0);
	rt->edges[rt->nedges - 1].caller_body = "00000000000000aa";
	add_row(rt, s, "app.main()", "app.work(integer)", 3, false, 1, 1.0, 1.0);
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	other = find_edge(m, "app.main()", "app.other()", CGM_VIA_CALL);
	assert_false(cgm_edge_get_rare(other)->earlier_body);
	assert_int_equal(other->lines[0], 4);
	assert_false(cgm_edge_get_rare(find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL))->earlier_body);
	cgm_model_free(m);

	/* The mapped body calls it too, at a line cgmap has no site for: the
	 * earlier body does not hide that miss, whichever row comes first. */
	for (int order = 0; order < 2; order++) {
		m = sample();
		m->functions[idx(m, "app.main()")].body_version = "00000000000000aa";
		rt = cgm_runtime_new();
		s = add_source(rt, "demo", true, false);
		for (int k = 0; k < 2; k++) {
			bool old = (k == 0) == (order == 0);
			add_row(rt, s, "app.main()", "app.other()", old ? 2 : 11, false, 1, 1.0, 1.0);
			rt->edges[rt->nedges - 1].caller_body = old ? "00000000000000bb"
								    : "00000000000000aa";
		}
		assert_int_equal(cgm_merge(m, rt), 0);
		cgm_runtime_free(rt);
		other = find_edge(m, "app.main()", "app.other()", CGM_VIA_CALL);
		assert_int_equal(cgm_edge_runtime(other)->calls, 2);
		assert_false(cgm_edge_get_rare(other)->earlier_body);
		assert_int_equal(other->nlines, 1);
		assert_int_equal(other->lines[0], 11);
		assert_string_not_equal(cgm_edge_cause(m, other), "changed body");
		cgm_model_free(m);
	}
}

static void test_lines_unknown(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, false);
	/* Log data: no line.  A static pair takes it; otherwise every dynamic
	 * site of the caller does. */
	add_row(rt, s, "app.main()", "app.work(integer)", 0, false, 1, 0, 0);
	add_row(rt, s, "app.other()", "app.dyn_a()", 0, false, 1, 0, 0);
	/* PL/pgSQL counted another line than cgmap: the pair still matches. */
	add_row(rt, s, "app.main()", "app.audit()", 8, false, 1, 0, 0);
	/* Made by EXECUTE at a line cgmap does not have: the nearest site. */
	add_row(rt, s, "app.other()", "app.dyn_b()", 6, true, 1, 0, 0);
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL)->provenance,
			 CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	const cgm_edge *dyn = find_edge(m, "app.other()", "app.dyn_a()", CGM_VIA_DYNAMIC);
	assert_non_null(dyn);
	assert_int_equal(dyn->nlines, 2);
	assert_int_equal(dyn->lines[0], 2);
	assert_int_equal(dyn->lines[1], 7);
	const cgm_edge *audit = find_edge(m, "app.main()", "app.audit()", CGM_VIA_TRIGGER);
	assert_int_equal(cgm_edge_runtime(audit)->calls, 1);
	assert_int_equal(audit->nlines, 1);
	const cgm_edge *near = find_edge(m, "app.other()", "app.dyn_b()", CGM_VIA_DYNAMIC);
	assert_non_null(near);
	assert_int_equal(near->nlines, 1);
	assert_int_equal(near->lines[0], 7);
	cgm_model_free(m);
}

static void test_sources_summed_and_stats_preferred(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	int a = add_source(rt, "primary", true, true);
	int b = add_source(rt, "replica", true, false);
	add_row(rt, a, NULL, "app.main()", 0, false, 2, 4.0, 1.0);
	add_row(rt, a, "app.main()", "app.work(integer)", 3, false, 5, 2.0, 2.0);
	add_stat(rt, a, "app.main()", 3, 6.0, 1.5); /* pg_stat wins within its source */
	add_stat(rt, a, "app.work(integer)", 5, 2.0, 2.0);
	add_row(rt, b, NULL, "app.main()", 0, false, 1, 2.0, 0.5);
	add_row(rt, b, "app.main()", "app.work(integer)", 3, false, 7, 1.0, 1.0);
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	const cgm_function *main_fn = &m->functions[idx(m, "app.main()")];
	assert_int_equal(main_fn->runtime.calls, 3 + 1);
	assert_true(main_fn->runtime.total_ms == 8.0);
	assert_true(main_fn->runtime.self_ms == 2.0);
	assert_int_equal(m->functions[idx(m, "app.work(integer)")].runtime.calls, 5 + 7);
	assert_int_equal(cgm_edge_runtime(find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL))->calls,
			 12);
	assert_string_equal(m->runtime_window,
			    "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database primary); "
			    "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database replica)");
	assert_int_equal(m->nruntime_sources, 2);
	assert_string_equal(m->runtime_sources[0],
			    "database primary: cgmap_trace, pg_stat_user_functions");
	cgm_model_free(m);
}

static void test_unknown_functions_reported(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, true);
	add_row(rt, s, "app.main()", "ext.hidden()", 4, false, 1, 0, 0);
	add_row(rt, s, "ext.hidden()", "app.work(integer)", 2, false, 2, 0, 0);
	add_row(rt, s, NULL, "ext.hidden()", 0, false, 1, 0, 0);
	add_stat(rt, s, "gone.f()", 0, 0, 0);    /* never called: nothing lost */
	add_stat(rt, s, "gone.g()", 3, 1.0, 1.0); /* called: said */
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(m->ndiagnostics, 2);
	assert_string_equal(m->diagnostics[0].message,
			    "function 'ext.hidden()' was observed at runtime but is not in the "
			    "mapped model (3 runtime rows ignored)");
	assert_string_equal(m->diagnostics[1].message,
			    "function 'gone.g()' was observed at runtime but is not in the mapped "
			    "model (1 runtime row ignored)");
	/* The known callee still counts its calls. */
	assert_int_equal(m->functions[idx(m, "app.work(integer)")].runtime.calls, 2);
	cgm_model_free(m);
}

/* app.main() -> app.work(integer) -> app.dyn_a() statically, app.work a
 * SQL function the planner inlined: the tracer sees main -> audit. */
static void test_through_inlined_sql_function(void **state)
{
	(void)state;
	cgm_model *m = sample();
	m->functions[idx(m, "app.work(integer)")].language = "sql";
	add_static(m, "app.work(integer)", "app.dyn_a()", CGM_VIA_CALL, 1);
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, false);
	add_row(rt, s, "app.main()", "app.dyn_a()", 4, false, 2, 1.0, 0.5);
	assert_int_equal(cgm_merge(m, rt), 0);
	const cgm_edge *e1 = find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL);
	const cgm_edge *e2 = find_edge(m, "app.work(integer)", "app.dyn_a()", CGM_VIA_CALL);
	assert_true(e1->provenance & CGM_EDGE_OBSERVED);
	assert_true(e2->provenance & CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(e2)->calls, 2);
	assert_null(find_edge(m, "app.main()", "app.dyn_a()", CGM_VIA_CALL)); /* not unexplained */

	/* As PL/pgSQL, app.work would have been seen itself: a static miss. */
	cgm_model *p = sample();
	add_static(p, "app.work(integer)", "app.dyn_a()", CGM_VIA_CALL, 1);
	assert_int_equal(cgm_merge(p, rt), 0);
	const cgm_edge *miss = find_edge(p, "app.main()", "app.dyn_a()", CGM_VIA_CALL);
	assert_non_null(miss);
	assert_true(cgm_edge_unexplained(miss));
	cgm_runtime_free(rt);
	cgm_model_free(m);
	cgm_model_free(p);
}

static void test_no_data_is_no_runtime(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	add_source(rt, "demo", false, false); /* track_functions none, no extension */
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_false(m->has_runtime);
	assert_null(m->runtime_window);
	assert_int_equal(m->nruntime_sources, 1);
	assert_string_equal(m->runtime_sources[0],
			    "database demo: no data (track_functions is none)");
	cgm_model *empty = sample();
	rt = cgm_runtime_new();
	assert_int_equal(cgm_merge(empty, rt), 0);
	cgm_runtime_free(rt);
	assert_false(empty->has_runtime);
	assert_int_equal(empty->nruntime_sources, 0);
	cgm_model_free(m);
	cgm_model_free(empty);
}

static char *temp_path(const char *name)
{
	const char *base = getenv("TMPDIR");
	char *p = malloc(512);
	snprintf(p, 512, "%s/cgmap-test-merge-%d-%s", base && *base ? base : "/tmp", (int)getpid(),
		 name);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_runtime_file_round_trip(void **state)
{
	(void)state;
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, true);
	rt->sources[s].server_version = "15.20";
	rt->sources[s].system_id = "7312345678901234567";
	rt->sources[s].port = "5432";
	rt->sources[s].trace_track = "all";
	rt->sources[s].track_functions = "all";
	rt->sources[s].trace_edges_used = 3;
	rt->sources[s].trace_edges_max = 1000;
	add_row(rt, s, "app.main()", "app.work(integer)", 3, false, 6, 3.0, 2.5);
	rt->edges[rt->nedges - 1].caller_body = "0123456789abcdef";
	add_row(rt, s, NULL, "app.main()", 0, false, 2, 10.0, 1.0);
	add_row(rt, s, "app.main()", "\"Odd Schema\".\"Weird \"\"Name\"\"\"()", 5, true, 1, 0.25, 0.25);
	add_stat(rt, s, "app.work(integer)", 6, 3.0, 2.5);
	char *path = temp_path("rt.json");
	assert_int_equal(cgm_runtime_write_file(rt, path), 0);
	cgm_runtime_free(rt);

	FILE *f = fopen(path, "r");
	char text[4096];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_string_equal(text,
		"{\n"
		"  \"format\": \"cgmap-runtime\",\n"
		"  \"format_version\": 1,\n"
		"  \"generator\": \"cgmap " CGMAP_VERSION "\",\n"
		"  \"server\": {\"name\": \"demo\", \"database\": \"demo\", \"server_version\": \"15.20\", "
		"\"system_identifier\": \"7312345678901234567\", \"port\": \"5432\"},\n"
		"  \"window\": {\"since\": \"2026-11-29T10:00:00Z\", \"until\": \"2026-11-29T11:00:00Z\"},\n"
		"  \"track_functions\": \"all\",\n"
		"  \"trace\": {\"edges_used\": 3, \"edges_max\": 1000, \"dropped\": 0, \"evictions\": 0, "
		"\"track\": \"all\", \"stale_removed\": 0},\n"
		"  \"function_stats\": true,\n"
		"  \"edges\": [\n"
		"    {\"caller\": null, \"callee\": \"app.main()\", \"site_line\": null, \"dynamic\": false, \"calls\": 2, \"total_ms\": 10.000000, \"self_ms\": 1.000000},\n"
		"    {\"caller\": \"app.main()\", \"callee\": \"\\\"Odd Schema\\\".\\\"Weird \\\"\\\"Name\\\"\\\"\\\"()\", \"site_line\": 5, \"dynamic\": true, \"calls\": 1, \"total_ms\": 0.250000, \"self_ms\": 0.250000},\n"
		"    {\"caller\": \"app.main()\", \"callee\": \"app.work(integer)\", \"site_line\": 3, \"caller_body\": \"0123456789abcdef\", \"dynamic\": false, \"calls\": 6, \"total_ms\": 3.000000, \"self_ms\": 2.500000}\n"
		"  ],\n"
		"  \"functions\": [\n"
		"    {\"id\": \"app.work(integer)\", \"calls\": 6, \"total_ms\": 3.000000, \"self_ms\": 2.500000}\n"
		"  ]\n"
		"}\n");

	rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(cgm_runtime_load_file(rt, path), 0); /* the same file again */
	assert_int_equal(rt->nsources, 2);
	assert_int_equal(rt->nedges, 6);
	assert_int_equal(rt->nfunctions, 2);
	assert_int_equal(rt->ndiagnostics, 0);
	assert_string_equal(rt->edges[1].callee, "\"Odd Schema\".\"Weird \"\"Name\"\"\"()");
	assert_true(rt->edges[1].dynamic);
	assert_int_equal(rt->edges[1].site_line, 5);
	assert_null(rt->edges[0].caller);
	assert_null(rt->edges[1].caller_body);
	assert_string_equal(rt->edges[2].caller_body, "0123456789abcdef");
	assert_true(rt->sources[1].has_trace && rt->sources[1].has_function_stats);
	assert_string_equal(rt->sources[0].since, "2026-11-29T10:00:00Z");

	cgm_model *m = sample();
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	/* The same server and window twice is one observation: counted once. */
	assert_int_equal(cgm_edge_runtime(find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL))->calls,
			 6);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 2);
	assert_int_equal(m->ndiagnostics, 2); /* the odd function is not in this model */
	bool said = false;
	for (int i = 0; i < m->ndiagnostics; i++)
		said |= strstr(m->diagnostics[i].message, "counted once") != NULL;
	assert_true(said);
	assert_int_equal(m->evidence.nservers, 1);
	assert_int_equal(m->evidence.window_seconds, 3600);
	assert_string_equal(m->evidence.trace_track, "all");
	unlink(path);
	free(path);
	cgm_model_free(m);
}

/* A window of no second (counters read in the second they were reset)
 * inside a longer window of the same server is the same observation; one
 * starting where the other ended is not (a --since delta); two such
 * instants of the same second are one. */
static void test_instant_windows(void **state)
{
	(void)state;
	static const struct {
		const char *since_a, *until_a, *since_b, *until_b;
		int64_t calls; /* app.main()'s calls merged: 2 once, 4 twice */
	} cases[] = {
		{ "2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z",
		  "2026-11-29T10:00:05Z", 2 },
		{ "2026-11-29T10:00:03Z", "2026-11-29T10:00:03Z", "2026-11-29T10:00:00Z",
		  "2026-11-29T10:00:05Z", 2 },
		{ "2026-11-29T10:00:05Z", "2026-11-29T10:00:05Z", "2026-11-29T10:00:00Z",
		  "2026-11-29T10:00:05Z", 4 },
		{ "2026-11-29T10:00:05Z", "2026-11-29T10:00:05Z", "2026-11-29T10:00:05Z",
		  "2026-11-29T10:00:05Z", 2 },
		{ "2026-11-29T10:00:06Z", "2026-11-29T10:00:06Z", "2026-11-29T10:00:00Z",
		  "2026-11-29T10:00:05Z", 4 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		cgm_runtime *rt = cgm_runtime_new();
		for (int k = 0; k < 2; k++) {
			int s = add_source(rt, "demo", false, true);
			rt->sources[s].system_id = "7312345678901234567";
			rt->sources[s].port = "5432";
			rt->sources[s].since = k == 0 ? cases[c].since_a : cases[c].since_b;
			rt->sources[s].until = k == 0 ? cases[c].until_a : cases[c].until_b;
			add_stat(rt, s, "app.main()", 2, 1.0, 1.0);
		}
		cgm_model *m = sample();
		assert_int_equal(cgm_merge(m, rt), 0);
		cgm_runtime_free(rt);
		if (m->functions[idx(m, "app.main()")].runtime.calls != cases[c].calls)
			fail_msg("case %zu: %lld calls, not %lld", c,
				 (long long)m->functions[idx(m, "app.main()")].runtime.calls,
				 (long long)cases[c].calls);
		cgm_model_free(m);
	}
}

static void test_bad_runtime_files(void **state)
{
	(void)state;
	char *path = temp_path("bad.json");
	cgm_runtime *rt = cgm_runtime_new();

	write_text(path, "{\"format\": \"cgmap-runtime\", \"format_version\": 1, \"edges\": [");
	assert_int_equal(cgm_runtime_load_file(rt, path), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), path));
	assert_non_null(strstr(cgm_error_message(), "line 1"));

	write_text(path, "{\"format\": \"cgmap-snapshot\", \"format_version\": 1}");
	assert_int_equal(cgm_runtime_load_file(rt, path), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "is not a cgmap runtime file"));

	write_text(path, "{\"format\": \"cgmap-runtime\", \"format_version\": 9}");
	assert_int_equal(cgm_runtime_load_file(rt, path), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "format_version"));

	/* One bad row is said and skipped; the good ones stay. */
	write_text(path, "{\"format\": \"cgmap-runtime\", \"format_version\": 1, \"edges\": ["
			 "{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 1},"
			 "{\"caller\": 7, \"callee\": \"app.main()\", \"calls\": 1},"
			 "{\"caller\": null, \"callee\": \"app.main()\", \"calls\": -1}],"
			 "\"functions\": [{\"id\": \"app.main()\"}]}");
	assert_int_equal(rt->nsources, 0);
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(rt->nedges, 1);
	assert_int_equal(rt->nfunctions, 0);
	assert_int_equal(rt->ndiagnostics, 3);
	assert_string_equal(rt->diagnostics[0].file, path);
	assert_string_equal(rt->diagnostics[0].message,
			    "runtime file: edges[1] is not {caller, callee, site_line, dynamic, "
			    "caller_body, kept, calls, total_ms, self_ms}: skipped");
	assert_string_equal(rt->diagnostics[2].message,
			    "runtime file: functions[0] is not {id, calls, total_ms, self_ms}: "
			    "skipped");

	/* A caller_body that is no version is unknown (said); one of another
	 * type makes the row no row. */
	write_text(path, "{\"format\": \"cgmap-runtime\", \"format_version\": 1, \"edges\": ["
			 "{\"caller\": \"app.main()\", \"callee\": \"app.work(integer)\", "
			 "\"caller_body\": \"NOT-A-VERSION\", \"calls\": 1},"
			 "{\"caller\": \"app.main()\", \"callee\": \"app.work(integer)\", "
			 "\"caller_body\": 17, \"calls\": 1},"
			 "{\"caller\": \"app.main()\", \"callee\": \"app.work(integer)\", "
			 "\"caller_body\": \"00000000000000ff\", \"calls\": 1}]}");
	int before = rt->nedges, said = rt->ndiagnostics;
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(rt->nedges, before + 2);
	assert_null(rt->edges[before].caller_body);
	assert_string_equal(rt->edges[before + 1].caller_body, "00000000000000ff");
	assert_int_equal(rt->ndiagnostics, said + 2);
	assert_string_equal(rt->diagnostics[said].message,
			    "runtime file: edges[0] has a caller_body that is not 16 lowercase "
			    "hex digits of a caller: taken as unknown");
	assert_non_null(strstr(rt->diagnostics[said + 1].message, "edges[1] is not"));

	assert_int_equal(cgm_runtime_load_file(rt, "/nonexistent/cgmap/rt.json"), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "/nonexistent/cgmap/rt.json"));
	/* OIDs without a database to map them through. */
	assert_int_equal(cgm_runtime_load_log(rt, path, NULL), CGM_EUSAGE);
	cgm_runtime_free(rt);
	unlink(path);
	free(path);
}

/* cgmap_trace 1.3's paths, shapes and timeline: read, written back in
 * order, bad rows said and skipped, and subtracted by --since. */
static void test_runtime_file_paths(void **state)
{
	(void)state;
	char *path = temp_path("paths.json");
	char *out = temp_path("paths-out.json");
	write_text(path,
		   "{\"format\": \"cgmap-runtime\", \"format_version\": 1,"
		   " \"server\": {\"name\": \"demo\"},"
		   " \"window\": {\"since\": \"2026-11-29T10:00:00Z\", \"until\": \"2026-11-29T11:00:00Z\"},"
		   " \"trace\": {\"edges_used\": 1, \"edges_max\": 10, \"dropped\": 0, \"evictions\": 0,"
		   "  \"paths_dropped\": 4, \"shapes_dropped\": 5, \"timeline_dropped\": 6, \"bucket_seconds\": 60},"
		   " \"edges\": [],"
		   " \"paths\": ["
		   "  {\"frames\": [\"app.main()\", \"app.work(integer)\"], \"lines\": [0, 3], \"calls\": 2,"
		   "   \"total_ms\": 1.5, \"self_ms\": 1.0, \"min_ms\": 0.5, \"max_ms\": 1.0},"
		   "  {\"frames\": [\"app.main()\"], \"lines\": [0], \"calls\": 1, \"total_ms\": 2, \"self_ms\": 0.5},"
		   "  {\"frames\": [\"app.main()\", \"...\"], \"lines\": [0], \"calls\": 1},"
		   "  {\"frames\": [\"app.main()\", \"16412\"], \"lines\": [0, 4], \"calls\": 1}],"
		   " \"shapes\": ["
		   "  {\"entry\": \"app.main()\", \"calls\": 3, \"edges\": ["
		   "   {\"caller\": \"app.main()\", \"callee\": \"app.work(integer)\", \"site_line\": 3, \"dynamic\": false},"
		   "   {\"caller\": \"app.main()\", \"callee\": \"app.a()\", \"site_line\": 9, \"dynamic\": true}]},"
		   "  {\"entry\": \"app.main()\", \"calls\": 1, \"edges\": null},"
		   "  {\"entry\": \"app.main()\", \"calls\": -1, \"edges\": []}],"
		   " \"timeline\": ["
		   "  {\"function\": \"app.work(integer)\", \"start\": \"2026-11-29T10:01:00Z\", \"calls\": 2, \"self_ms\": 1.0},"
		   "  {\"function\": \"app.main()\", \"start\": \"yesterday\", \"calls\": 2}]}");
	cgm_runtime *rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_true(rt->sources[0].has_paths);
	assert_int_equal(rt->sources[0].paths_dropped, 4);
	assert_int_equal(rt->sources[0].shapes_dropped, 5);
	assert_int_equal(rt->sources[0].timeline_dropped, 6);
	assert_int_equal(rt->sources[0].bucket_seconds, 60);
	assert_int_equal(rt->npaths, 2);
	assert_int_equal(rt->paths[0].nframes, 2);
	assert_string_equal(rt->paths[0].frames[1], "app.work(integer)");
	assert_int_equal(rt->paths[0].lines[1], 3);
	assert_true(rt->paths[0].min_ms == 0.5 && rt->paths[0].max_ms == 1.0);
	assert_int_equal(rt->nshapes, 2);
	/* edges sorted by name, whatever the order they came in */
	assert_string_equal(rt->shapes[0].edges[0].callee, "app.a()");
	assert_true(rt->shapes[0].edges[0].dynamic);
	assert_int_equal(rt->shapes[1].nedges, 0);
	assert_int_equal(rt->nbuckets, 1);
	assert_int_equal(rt->ndiagnostics, 4);
	assert_string_equal(rt->diagnostics[0].message,
			    "runtime file: paths[2] is not {frames, lines, calls, total_ms, self_ms, "
			    "min_ms, max_ms} with figures in range: skipped");
	assert_string_equal(rt->diagnostics[1].message,
			    "runtime file: paths[3] names a function by a number (dropped before "
			    "it was collected): skipped");
	assert_non_null(strstr(rt->diagnostics[2].message, "shapes[2] is not"));
	assert_non_null(strstr(rt->diagnostics[3].message, "timeline[1] is not"));

	assert_int_equal(cgm_runtime_write_file(rt, out), 0);
	FILE *f = fopen(out, "r");
	char text[8192];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text,
		"\"track\": null, \"paths_dropped\": 4, \"shapes_dropped\": 5, \"timeline_dropped\": 6, "
		"\"bucket_seconds\": 60},\n"));
	assert_non_null(strstr(text,
		"  \"paths\": [\n"
		"    {\"frames\": [\"app.main()\"], \"lines\": [0], \"calls\": 1, \"total_ms\": 2.000000, "
		"\"self_ms\": 0.500000, \"min_ms\": 0.000000, \"max_ms\": 0.000000},\n"
		"    {\"frames\": [\"app.main()\", \"app.work(integer)\"], \"lines\": [0, 3], \"calls\": 2, "
		"\"total_ms\": 1.500000, \"self_ms\": 1.000000, \"min_ms\": 0.500000, \"max_ms\": 1.000000}\n"
		"  ],\n"
		"  \"shapes\": [\n"
		"    {\"entry\": \"app.main()\", \"calls\": 1, \"edges\": []},\n"
		"    {\"entry\": \"app.main()\", \"calls\": 3, \"edges\": [{\"caller\": \"app.main()\", "
		"\"callee\": \"app.a()\", \"site_line\": 9, \"dynamic\": true}, {\"caller\": \"app.main()\", "
		"\"callee\": \"app.work(integer)\", \"site_line\": 3, \"dynamic\": false}]}\n"
		"  ],\n"
		"  \"timeline\": [\n"
		"    {\"function\": \"app.work(integer)\", \"start\": \"2026-11-29T10:01:00Z\", "
		"\"calls\": 2, \"self_ms\": 1.000000}\n"
		"  ]\n"
		"}\n"));

	/* merged: two servers summed, the same file twice counted once */
	cgm_runtime *both = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(both, path), 0);
	assert_int_equal(cgm_runtime_load_file(both, out), 0); /* names another server */
	assert_int_equal(cgm_runtime_load_file(both, path), 0);
	cgm_model *m = sample();
	assert_int_equal(cgm_merge(m, both), 0);
	cgm_runtime_free(both);
	assert_int_equal(m->npaths, 2);
	assert_int_equal(m->paths[0].nframes, 1);
	assert_int_equal(m->paths[0].stats.calls, 2);
	assert_int_equal(m->paths[1].stats.calls, 4);
	assert_true(m->paths[1].stats.total_ms == 3.0);
	assert_true(m->paths[1].min_ms == 0.5 && m->paths[1].max_ms == 1.0);
	assert_int_equal(m->nshapes, 2);
	assert_int_equal(m->shapes[0].nedges, 0);
	assert_int_equal(m->shapes[0].calls, 2);
	assert_int_equal(m->shapes[1].calls, 6);
	assert_int_equal(m->nbuckets, 1);
	assert_int_equal(m->buckets[0].calls, 4);
	cgm_model_free(m);

	/* --since: the same rows later, with more calls */
	cgm_runtime *now = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(now, out), 0);
	now->sources[0].since = rt->sources[0].since;
	now->paths[1].stats.calls = 5;
	now->shapes[1].calls = 7;
	now->buckets[0].calls = 2; /* unchanged: gone from the difference */
	now->sources[0].paths_dropped = 10;
	now->sources[0].name = "demo"; /* as collect names the server it reads */
	assert_int_equal(cgm_runtime_subtract(now, rt, path), 0);
	assert_int_equal(now->npaths, 1);
	assert_int_equal(now->paths[0].stats.calls, 3);
	assert_int_equal(now->nshapes, 1);
	assert_int_equal(now->shapes[0].calls, 4);
	assert_int_equal(now->nbuckets, 0);
	assert_int_equal(now->sources[0].paths_dropped, 6);
	cgm_runtime_free(now);

	/* --since a file of before 1.3: nothing to subtract, and said */
	now = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(now, out), 0);
	now->sources[0].name = "demo";
	now->sources[0].since = rt->sources[0].since;
	rt->sources[0].has_paths = false; /* as a file of before 1.3 reads */
	rt->npaths = rt->nshapes = rt->nbuckets = 0;
	assert_int_equal(cgm_runtime_subtract(now, rt, path), 0);
	assert_int_equal(now->npaths, 2);
	assert_int_equal(now->ndiagnostics, 1);
	assert_non_null(strstr(now->diagnostics[0].message, "collected before cgmap_trace 1.3"));
	cgm_runtime_free(now);
	cgm_runtime_free(rt);
	unlink(path);
	unlink(out);
	free(path);
	free(out);
}

/* cgmap_trace removes the call records of dropped functions (stale_removed):
 * a runtime file keeps the count, a file written before it reads as unknown,
 * --since subtracts it, and merged it leaves nothing enough for dead: the
 * calls it counted may have been any function's. */
static void test_runtime_file_lost_records(void **state)
{
	(void)state;
	char *path = temp_path("lost.json");
	char *out = temp_path("lost-out.json");
	const char *head = "{\"format\": \"cgmap-runtime\", \"format_version\": 1,"
			   " \"server\": {\"name\": \"demo\", \"system_identifier\": \"7312345678901234567\","
			   "  \"port\": \"5432\"},"
			   " \"window\": {\"since\": \"2026-11-20T10:00:00Z\", \"until\": \"2026-11-29T11:00:00Z\"},"
			   " \"track_functions\": \"all\", \"function_stats\": true,"
			   " \"trace\": {\"edges_used\": 1, \"edges_max\": 10, \"dropped\": 0, \"evictions\": 0,"
			   "  \"track\": \"all\"%s},"
			   " \"edges\": [{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 500}]}";
	char text[1024];
	/* Written before cgmap read the counter: unknown, nothing said. */
	snprintf(text, sizeof text, head, "");
	write_text(path, text);
	cgm_runtime *rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(rt->sources[0].trace_stale_removed, -1);
	assert_int_equal(rt->ndiagnostics, 0);
	cgm_runtime_free(rt);

	snprintf(text, sizeof text, head, ", \"stale_removed\": 2");
	write_text(path, text);
	rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(rt->sources[0].trace_stale_removed, 2);
	assert_int_equal(rt->ndiagnostics, 1);
	assert_string_equal(rt->diagnostics[0].file, path);
	assert_string_equal(rt->diagnostics[0].message,
			    "runtime file: cgmap_trace removed 2 call records of functions or "
			    "databases dropped in the window (stale_removed, counted over the whole "
			    "cluster), read in database 'demo': the calls they counted are missing, so "
			    "no function is called dead or cold (unobserved instead); reset the trace "
			    "after a workload that drops and recreates functions (SELECT "
			    "cgmap_trace_reset())");
	assert_int_equal(cgm_runtime_write_file(rt, out), 0);
	FILE *f = fopen(out, "r");
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "\"track\": \"all\", \"stale_removed\": 2}"));

	/* --since: only those lost after the earlier file count. */
	cgm_runtime *now = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(now, out), 0);
	now->sources[0].trace_stale_removed = 5;
	now->edges[0].stats.calls = 700;
	now->sources[0].until = "2026-11-29T12:00:00Z";
	now->sources[0].database = "demo";
	assert_int_equal(cgm_runtime_subtract(now, rt, path), 0);
	assert_int_equal(now->sources[0].trace_stale_removed, 3);
	cgm_runtime_free(now);

	/* Merged: a week and 500 calls, yet nothing is dead, and the same
	 * file twice loses its records once. */
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	cgm_model *m = sample();
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(m->evidence.lost_records, 2);
	assert_int_equal(cgm_analyze(m, NULL), 0);
	assert_false(m->evidence.enough);
	assert_int_equal(m->functions[idx(m, "app.other()")].verdict, CGM_VERDICT_UNOBSERVED);
	assert_false(m->functions[idx(m, "app.other()")].dead);
	cgm_model_free(m);
	unlink(path);
	unlink(out);
	free(path);
	free(out);
}

/* cgmap_trace 1.5 keeps the calls of the edges it removes with a dropped
 * function ("gone"): those of an earlier function of the same identity
 * count for the one created again, on top of its statistics; those of a
 * callee whose caller was dropped are in its statistics already.  With
 * nothing lost the window is enough, and the function never called is
 * dead.  A file keeps the rows; --since subtracts them. */
static void test_runtime_file_gone_calls(void **state)
{
	(void)state;
	char *path = temp_path("gone.json");
	char *out = temp_path("gone-out.json");
	write_text(path,
		   "{\"format\": \"cgmap-runtime\", \"format_version\": 1,"
		   " \"server\": {\"name\": \"demo\"},"
		   " \"window\": {\"since\": \"2026-11-20T10:00:00Z\", \"until\": \"2026-11-29T11:00:00Z\"},"
		   " \"track_functions\": \"all\", \"function_stats\": true,"
		   " \"trace\": {\"edges_used\": 1, \"edges_max\": 10, \"dropped\": 0, \"evictions\": 0,"
		   "  \"track\": \"all\", \"stale_removed\": 0},"
		   " \"edges\": [{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 500}],"
		   " \"functions\": [{\"id\": \"app.main()\", \"calls\": 500},"
		   "  {\"id\": \"app.work(integer)\", \"calls\": 10}],"
		   " \"gone\": [{\"function\": \"app.dyn_a()\", \"identity\": \"app.dyn_a()\", \"calls\": 7,"
		   "   \"total_ms\": 1, \"self_ms\": 1},"
		   "  {\"function\": \"app.work(integer)\", \"identity\": null, \"calls\": 10,"
		   "   \"total_ms\": 2, \"self_ms\": 2},"
		   "  {\"function\": \"12345\", \"identity\": null, \"calls\": 1}]}");
	cgm_runtime *rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_true(rt->sources[0].has_gone);
	assert_int_equal(rt->ngone, 2);
	assert_int_equal(rt->ndiagnostics, 1); /* the row naming a number */
	assert_non_null(strstr(rt->diagnostics[0].message, "gone[2] names a function by a number"));

	assert_int_equal(cgm_runtime_write_file(rt, out), 0);
	cgm_runtime *again = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(again, out), 0);
	assert_int_equal(again->ngone, 2);
	assert_string_equal(again->gone[0].function, "app.dyn_a()");
	assert_string_equal(again->gone[0].identity, "app.dyn_a()");
	assert_null(again->gone[1].identity);
	/* --since: the calls after the earlier file. */
	again->gone[0].stats.calls = 9;
	again->sources[0].until = "2026-11-29T12:00:00Z";
	again->sources[0].name = "demo";
	assert_int_equal(cgm_runtime_subtract(again, rt, path), 0);
	assert_int_equal(again->ngone, 1);
	assert_int_equal(again->gone[0].stats.calls, 2);
	cgm_runtime_free(again);

	cgm_model *m = sample();
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(m->functions[idx(m, "app.dyn_a()")].runtime.calls, 7);
	assert_int_equal(m->functions[idx(m, "app.work(integer)")].runtime.calls, 10);
	assert_int_equal(m->evidence.lost_records, 0);
	assert_int_equal(cgm_analyze(m, NULL), 0);
	assert_true(m->evidence.enough);
	assert_int_equal(m->functions[idx(m, "app.dyn_a()")].verdict, CGM_VERDICT_NONE);
	assert_true(m->functions[idx(m, "app.other()")].dead);
	cgm_model_free(m);
	unlink(path);
	unlink(out);
	free(path);
	free(out);
}

/* Two sources whose counts summed past 2^63 overflowed (undefined; in a
 * release build negative, so the function was called cold and the snapshot
 * would not read back); times summed to infinity were written as 0.  Sums
 * are held at the limit, said once per function and edge, and the result
 * is a snapshot cgmap reads back exactly. */
static void test_sums_held_at_the_limit(void **state)
{
	(void)state;
	cgm_model *m = sample();
	cgm_runtime *rt = cgm_runtime_new();
	int a = add_source(rt, "primary", true, true);
	int b = add_source(rt, "replica", true, true);
	int c = add_source(rt, "third", true, true);
	for (int s = a; s <= c; s++) {
		add_row(rt, s, "app.main()", "app.work(integer)", 3, false, INT64_MAX - 1, 6e14,
			1e308);
		add_stat(rt, s, "app.work(integer)", INT64_MAX / 2 + 1, 1e308, 1e308);
		add_stat(rt, s, "app.main()", 1, 0.5, 0.25);
	}
	(void)b;
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	const cgm_function *work = &m->functions[idx(m, "app.work(integer)")];
	assert_true(work->runtime.calls == INT64_MAX);
	assert_true(work->runtime.total_ms == CGM_STATS_MAX_MS);
	const cgm_edge *e = find_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL);
	assert_true(cgm_edge_runtime(e)->calls == INT64_MAX);
	assert_true(cgm_edge_runtime(e)->total_ms == CGM_STATS_MAX_MS);
	assert_true(cgm_edge_runtime(e)->self_ms == CGM_STATS_MAX_MS);
	assert_int_equal(m->functions[idx(m, "app.main()")].runtime.calls, 3);
	assert_int_equal(m->ndiagnostics, 2);
	assert_string_equal(m->diagnostics[0].message,
			    "runtime figures of \"app.work(integer)\" add up past what cgmap counts "
			    "(9223372036854775807 calls, 1000000000000000 ms): held at that limit");
	assert_non_null(strstr(m->diagnostics[1].message,
			       "edge \"app.main()\" -> \"app.work(integer)\" add up past"));
	assert_int_equal(cgm_analyze(m, &(cgm_analyze_options){ 0 }), 0);
	assert_false(work->cold || work->dead);

	for (int i = 0; i < m->nfunctions; i++) {
		/* What a source fills and a snapshot requires. */
		cgm_function *f = &m->functions[i];
		f->schema = "app";
		f->name = cgm_arena_strndup(m->arena, f->id + 4, strcspn(f->id + 4, "("));
	}
	char *path = temp_path("held.json");
	assert_int_equal(cgm_snapshot_write(m, path), 0);
	cgm_model *back = NULL;
	if (cgm_snapshot_read(&back, path) != 0)
		fail_msg("the snapshot does not read back: %s", cgm_error_message());
	const cgm_function *again = &back->functions[idx(back, "app.work(integer)")];
	assert_true(again->runtime.calls == INT64_MAX);
	assert_true(again->runtime.total_ms == CGM_STATS_MAX_MS);
	cgm_model_free(back);
	unlink(path);
	free(path);
	cgm_model_free(m);
}

/* Figures for a model without a single edge (one function called by
 * clients): nothing to sort, and no null array handed to qsort_r (UBSan). */
static void test_no_edges(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "app.only()");
	cgm_model_index(m);
	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "primary", true, true);
	add_row(rt, s, NULL, "app.only()", 0, false, 3, 1.0, 1.0);
	add_stat(rt, s, "app.only()", 3, 1.0, 1.0);
	assert_int_equal(cgm_merge(m, rt), 0);
	cgm_runtime_free(rt);
	assert_int_equal(m->nedges, 0);
	assert_int_equal(m->functions[0].runtime.calls, 3);
	assert_true(m->functions[0].observed_entry);
	cgm_model_free(m);
}

/* A time no snapshot could hold (negative, beyond the limit) is no
 * measurement: the row is said and skipped, the rest read. */
static void test_runtime_file_times_out_of_range(void **state)
{
	(void)state;
	char *path = temp_path("range.json");
	write_text(path, "{\"format\": \"cgmap-runtime\", \"format_version\": 1, \"edges\": ["
			 "{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 9223372036854775807,"
			 " \"total_ms\": 1e15, \"self_ms\": 0},"
			 "{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 1, \"total_ms\": 1.7e308},"
			 "{\"caller\": null, \"callee\": \"app.main()\", \"calls\": 1, \"self_ms\": -1},"
			 "{\"caller\": \"app.other()\", \"callee\": \"app.main()\", \"calls\": 1,"
			 " \"site_line\": -2147483648},"
			 "{\"caller\": \"app.other()\", \"callee\": \"app.main()\", \"calls\": 1,"
			 " \"site_line\": 4294967298}],"
			 "\"functions\": [{\"id\": \"app.main()\", \"calls\": 1, \"total_ms\": 2e15}]}");
	cgm_runtime *rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, path), 0);
	assert_int_equal(rt->nedges, 1);
	assert_true(rt->edges[0].stats.calls == INT64_MAX);
	assert_int_equal(rt->nfunctions, 0);
	assert_int_equal(rt->ndiagnostics, 5);
	/* A line no body has (it reached the merge's line arithmetic). */
	assert_non_null(strstr(rt->diagnostics[2].message, "edges[3] is not {caller"));
	assert_non_null(strstr(rt->diagnostics[3].message, "edges[4] is not {caller"));
	assert_non_null(strstr(rt->diagnostics[0].message,
			       "edges[1] has a time (1.7e+308, 0) that is not milliseconds from 0 to "
			       "1000000000000000: skipped"));
	assert_non_null(strstr(rt->diagnostics[1].message, "edges[2] has a time"));
	assert_non_null(strstr(rt->diagnostics[4].message, "functions[0] has a time"));
	cgm_runtime_free(rt);

	/* Only regular files: a device is refused by name before reading. */
	rt = cgm_runtime_new();
	assert_int_equal(cgm_runtime_load_file(rt, "/dev/null"), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "\"/dev/null\" is not a regular file"));
	assert_int_equal(cgm_runtime_load_log(rt, "/dev/null", "dbname=none"), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "\"/dev/null\" is not a regular file"));
	cgm_runtime_free(rt);
	unlink(path);
	free(path);
}

/* Log lines that hold no OID pair need no database: parsing is checked here,
 * the OID lookup in tests/integration/test_runtime.sh. */
static cgm_edge *add_support(cgm_model *m, const char *from, const char *to, const char *agg,
			     int line)
{
	add_static(m, from, to, CGM_VIA_AGGREGATE, line);
	cgm_edge *e = &m->edges[m->nedges - 1];
	e->object = cgm_arena_printf(m->arena, "aggregate %s", agg);
	return e;
}

static void add_aggregate(cgm_model *m, const char *agg, const char *support1, const char *support2)
{
	m->functions[idx(m, agg)].kind = CGM_KIND_AGGREGATE;
	cgm_aggregate *a = cgm_model_add_aggregate(m);
	a->aggregate_id = agg;
	a->aggregate = idx(m, agg);
	a->nsupport = support2 ? 2 : 1;
	a->support = cgm_arena_alloc(m->arena, sizeof(int) * 2);
	a->support[0] = idx(m, support1);
	if (support2)
		a->support[1] = idx(m, support2);
}

/*
 * An aggregate is never called through fmgr: a caller's edge to it is
 * observed when that caller's edges to its support functions are, with
 * their most calls (the transition's, per row) and summed total time; the
 * aggregate's figures come from those, and from its own support functions'
 * calls by client statements, but not from a support function two
 * aggregates share.
 *
 * app.main()  line 4: SELECT app.agg(x) (transition app.step, final app.fin);
 *             line 6: SELECT app.agg_b(x) (builtin support, no edge)
 * app.other() line 2: SELECT app.agg(x), nothing observed of it
 * app.agg2(integer) transition app.step2, called by a client statement;
 * app.agg3, app.agg4 share app.step3, called by a client statement.
 */
static void test_aggregate_seen_through_support(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	const char *ids[] = { "app.agg(integer)",  "app.agg2(integer)", "app.agg3(integer)",
			      "app.agg4(integer)", "app.agg_b(integer)", "app.fin(integer)",
			      "app.main()",	   "app.other()",	"app.step(integer,integer)",
			      "app.step2(integer,integer)", "app.step3(integer,integer)" };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		add_function(m, ids[i]);
	cgm_model_index(m);
	m->nuser = m->nfunctions;
	add_aggregate(m, "app.agg(integer)", "app.step(integer,integer)", "app.fin(integer)");
	add_aggregate(m, "app.agg2(integer)", "app.step2(integer,integer)", NULL);
	add_aggregate(m, "app.agg3(integer)", "app.step3(integer,integer)", NULL);
	add_aggregate(m, "app.agg4(integer)", "app.step3(integer,integer)", NULL);
	m->functions[idx(m, "app.agg_b(integer)")].kind = CGM_KIND_AGGREGATE;
	add_static(m, "app.main()", "app.agg(integer)", CGM_VIA_CALL, 4);
	add_support(m, "app.main()", "app.step(integer,integer)", "app.agg(integer)", 4);
	add_support(m, "app.main()", "app.fin(integer)", "app.agg(integer)", 4);
	add_static(m, "app.main()", "app.agg_b(integer)", CGM_VIA_CALL, 6);
	add_static(m, "app.other()", "app.agg(integer)", CGM_VIA_CALL, 2);
	add_support(m, "app.other()", "app.step(integer,integer)", "app.agg(integer)", 2);

	cgm_runtime *rt = cgm_runtime_new();
	int s = add_source(rt, "demo", true, false);
	add_row(rt, s, NULL, "app.main()", 0, false, 1, 10.0, 5.0);
	add_row(rt, s, "app.main()", "app.step(integer,integer)", 4, false, 5, 2.0, 2.0);
	add_row(rt, s, "app.main()", "app.fin(integer)", 4, false, 1, 0.5, 0.5);
	add_row(rt, s, NULL, "app.step2(integer,integer)", 0, false, 3, 1.0, 1.0);
	add_row(rt, s, NULL, "app.step3(integer,integer)", 4, false, 9, 1.0, 1.0);
	assert_int_equal(cgm_merge(m, rt), 0);

	const cgm_edge *e = find_edge(m, "app.main()", "app.agg(integer)", CGM_VIA_CALL);
	assert_non_null(e);
	assert_int_equal(e->provenance, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(e)->calls, 5);
	assert_true(cgm_edge_runtime(e)->total_ms > 2.49 && cgm_edge_runtime(e)->total_ms < 2.51);
	assert_true(cgm_edge_runtime(e)->self_ms == 0.0);
	/* Nothing of the aggregate was seen from this caller. */
	e = find_edge(m, "app.other()", "app.agg(integer)", CGM_VIA_CALL);
	assert_int_equal(e->provenance, CGM_EDGE_STATIC);
	/* Builtin support functions are never traced: no claim. */
	e = find_edge(m, "app.main()", "app.agg_b(integer)", CGM_VIA_CALL);
	assert_int_equal(e->provenance, CGM_EDGE_STATIC);
	assert_int_equal(m->functions[idx(m, "app.agg_b(integer)")].runtime.calls, 0);
	assert_int_equal(m->functions[idx(m, "app.agg(integer)")].runtime.calls, 5);
	assert_false(m->functions[idx(m, "app.agg(integer)")].observed_entry);
	assert_int_equal(m->functions[idx(m, "app.agg2(integer)")].runtime.calls, 3);
	assert_int_equal(m->functions[idx(m, "app.agg3(integer)")].runtime.calls, 0);
	assert_int_equal(m->functions[idx(m, "app.agg4(integer)")].runtime.calls, 0);
	/* No edge was added for it: the support edges carry the calls. */
	assert_int_equal(m->nedges, 6);
	cgm_runtime_free(rt);
	cgm_model_free(m);
}

static void test_log_without_pairs(void **state)
{
	(void)state;
	char *path = temp_path("server.log");
	cgm_runtime *rt = cgm_runtime_new();
	write_text(path, "2026-11-29 10:00:00 UTC LOG:  checkpoint starting\n");
	assert_int_equal(cgm_runtime_load_log(rt, path, "dbname=cgmap_never_used"), 0);
	assert_int_equal(rt->ndiagnostics, 1);
	assert_string_equal(rt->diagnostics[0].message,
			    "no 'digraph {oid->oid;...}' line in runtime log (1 lines read)");
	assert_false(rt->sources[0].has_trace);

	write_text(path, "x\n2026-11-29 10:00:01.5 CET [7] LOG:  digraph {12->x;13->14}\n"
			 "y digraph {1->2;\n");
	assert_int_equal(cgm_runtime_load_log(rt, path, "dbname=cgmap_never_used"), 0);
	assert_int_equal(rt->nsources, 2);
	assert_int_equal(rt->ndiagnostics, 3);
	assert_string_equal(rt->diagnostics[1].message,
			    "cannot read '12->x' as OID->OID: rest of the line skipped");
	assert_int_equal(rt->diagnostics[1].line, 2);
	assert_string_equal(rt->diagnostics[2].message,
			    "digraph without its closing brace: skipped");
	assert_int_equal(rt->diagnostics[2].line, 3);
	assert_string_equal(rt->sources[1].since, "2026-11-29 10:00:01.5 CET");
	assert_int_equal(rt->nedges, 0);
	cgm_runtime_free(rt);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_observed_calls_land),
		cmocka_unit_test(test_lines_unknown),
		cmocka_unit_test(test_body_version_hash),
		cmocka_unit_test(test_earlier_body),
		cmocka_unit_test(test_sources_summed_and_stats_preferred),
		cmocka_unit_test(test_unknown_functions_reported),
		cmocka_unit_test(test_no_data_is_no_runtime),
		cmocka_unit_test(test_through_inlined_sql_function),
		cmocka_unit_test(test_runtime_file_round_trip),
		cmocka_unit_test(test_instant_windows),
		cmocka_unit_test(test_bad_runtime_files),
		cmocka_unit_test(test_runtime_file_paths),
		cmocka_unit_test(test_log_without_pairs),
		cmocka_unit_test(test_aggregate_seen_through_support),
		cmocka_unit_test(test_runtime_file_lost_records),
		cmocka_unit_test(test_runtime_file_gone_calls),
		cmocka_unit_test(test_sums_held_at_the_limit),
		cmocka_unit_test(test_no_edges),
		cmocka_unit_test(test_runtime_file_times_out_of_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
