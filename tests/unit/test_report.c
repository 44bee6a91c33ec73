/*
 * test_report.c - every report kind in every format, from one hand-built,
 * analysed model with known dead, cold, unseen-dynamic, unexplained and
 * missing facts; plus the same model without runtime data, where nothing
 * may be called dead.  Outputs are compared byte for byte: the team's
 * tests rely on their shape (docs/reports.md).
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
#include "cgmap/runtime.h"


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

static void add_function(cgm_model *m, const char *id, const char *schema)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
	f->schema = schema;
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

static cgm_site *add_site(cgm_model *m, const char *id, cgm_site_kind kind, int line)
{
	cgm_function *f = &m->functions[idx(m, id)];
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = line;
	s->resolution = CGM_RES_RESOLVED;
	return s;
}

static cgm_edge *add_edge(cgm_model *m, const char *from, const char *to, cgm_via via,
			  unsigned provenance, int line, int64_t calls)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = via;
	e->provenance = provenance;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = line;
	e->nlines = 1;
	cgm_edge_rare_of(m->arena, e)->runtime.calls = calls;
	cgm_edge_rare_of(m->arena, e)->runtime.total_ms = (double)calls * 0.5;
	cgm_edge_rare_of(m->arena, e)->runtime.self_ms = (double)calls * 0.25;
	return e;
}

#define BOTH (CGM_EDGE_STATIC | CGM_EDGE_OBSERVED)

/*
 * With runtime data:
 * app.main()        observed entry; line 3 calls app.work (both, 6 calls);
 *                   line 5 EXECUTE observed -> app.dyn_a(); line 7 calls app.other() (static)
 * app.work(integer) line 4 -> app.hidden() observed only (unexplained);
 *                   line 6 calls app.nope(integer), which does not exist
 * app.other()       line 2 EXECUTE never observed: an unseen dynamic site; cold
 * app.old()         in "schema.sql" line 12, nobody calls it: dead; calls app.older()
 * Without: only the static edges; nothing is dead, the functions nobody
 * calls (main, old, and dyn_a and hidden, whose callers were only observed)
 * are listed as uncalled.
 */
static cgm_model *sample(bool runtime)
{
	cgm_model *m = cgm_model_new();
	add_function(m, "app.dyn_a()", "app");
	add_function(m, "app.hidden()", "app");
	add_function(m, "app.main()", "app");
	add_function(m, "app.old()", "app");
	add_function(m, "app.older()", "app");
	add_function(m, "app.other()", "app");
	add_function(m, "app.work(integer)", "app");
	cgm_model_index(m);
	cgm_function *old = &m->functions[idx(m, "app.old()")];
	old->file = "schema.sql";
	old->file_line = 12;

	add_site(m, "app.main()", CGM_SITE_CALL, 3);
	cgm_site *d = add_site(m, "app.main()", CGM_SITE_DYNAMIC, 5);
	d->resolution = CGM_RES_NONE;
	cgm_site_rare_of(m->arena, d)->text = "format('SELECT %I()', fname)";
	add_site(m, "app.main()", CGM_SITE_PERFORM, 7);
	cgm_site *miss = add_site(m, "app.work(integer)", CGM_SITE_CALL, 6);
	miss->resolution = CGM_RES_MISSING;
	miss->schema = "app";
	miss->name = "nope";
	miss->nargs = 1;
	cgm_site *d2 = add_site(m, "app.other()", CGM_SITE_DYNAMIC, 2);
	d2->resolution = CGM_RES_NONE;
	cgm_site_rare_of(m->arena, d2)->text = "'SELECT ' || x";
	add_site(m, "app.old()", CGM_SITE_CALL, 1);

	add_edge(m, "app.main()", "app.work(integer)", CGM_VIA_CALL,
		 runtime ? BOTH : CGM_EDGE_STATIC, 3, runtime ? 6 : 0);
	add_edge(m, "app.main()", "app.other()", CGM_VIA_CALL, CGM_EDGE_STATIC, 7, 0);
	add_edge(m, "app.old()", "app.older()", CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 0);
	if (runtime) {
		add_edge(m, "app.main()", "app.dyn_a()", CGM_VIA_DYNAMIC, CGM_EDGE_OBSERVED, 5, 2);
		add_edge(m, "app.work(integer)", "app.hidden()", CGM_VIA_CALL, CGM_EDGE_OBSERVED, 4, 3);
		m->has_runtime = true;
		hour_of_evidence(m);
		m->runtime_window = "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)";
		static const char *sources[] = { "database demo: cgmap_trace, pg_stat_user_functions" };
		m->runtime_sources = sources;
		m->nruntime_sources = 1;
		cgm_function *f = &m->functions[idx(m, "app.main()")];
		f->observed_entry = true;
		f->runtime = (cgm_runtime_stats){ 1, 4.0, 0.5 };
		m->functions[idx(m, "app.work(integer)")].runtime = (cgm_runtime_stats){ 6, 3.0, 1.5 };
		m->functions[idx(m, "app.dyn_a()")].runtime = (cgm_runtime_stats){ 2, 1.0, 0.5 };
		m->functions[idx(m, "app.hidden()")].runtime = (cgm_runtime_stats){ 3, 1.5, 0.75 };
	}
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	return m;
}

static char *render(const cgm_model *m, const char *kind, const char *format)
{
	cgm_report_kind k;
	cgm_report_format f;
	assert_int_equal(cgm_report_kind_parse(&k, kind), 0);
	assert_int_equal(cgm_report_format_parse(&f, format), 0);
	cgm_strbuf out = CGM_STRBUF_INIT;
	assert_int_equal(cgm_report_write(&out, m, k, f), 0);
	char *s = strdup(cgm_strbuf_cstr(&out));
	cgm_strbuf_free(&out);
	return s;
}

static void expect(const cgm_model *m, const char *kind, const char *format, const char *want)
{
	char *got = render(m, kind, format);
	if (strcmp(got, want) != 0) {
		print_error("report %s --format %s:\n--- got ---\n%s--- want ---\n%s", kind, format,
			    got, want);
		free(got);
		fail();
	}
	free(got);
}

#define WINDOW "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
#define DEAD_NOTE "# evidence: window 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (1 h 0 min), 1 server, 1 database, " \
	       "12 calls observed; traced: plpgsql; statistics: track_functions all; enough for dead (at least " \
	       "1 h 0 min and 1 call); not called dead though never called and unreachable: 0 unobserved, " \
	       "0 untraceable, 0 dynamic-reachable\n"


static void test_text_reports(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	expect(m, "edges", "text",
	       "app.main() -> app.dyn_a() via dynamic observed lines 5 calls 2\n"
	       "app.main() -> app.other() via call static lines 7\n"
	       "app.main() -> app.work(integer) via call both lines 3 calls 6\n"
	       "app.old() -> app.older() via call static lines 1\n"
	       "app.work(integer) -> app.hidden() via call observed lines 4 calls 3\n");
	expect(m, "functions", "text",
	       "app.dyn_a() called calls 2\n"
	       "app.hidden() called calls 3\n"
	       "app.main() called root entry calls 1\n"
	       "app.old() dead calls 0\n"
	       "app.older() dead calls 0\n"
	       "app.other() cold calls 0\n"
	       "app.work(integer) called calls 6\n");
	expect(m, "dead", "text",
	       "# Dead functions: 2\n" WINDOW DEAD_NOTE
	       "app.old(): not reachable from any root through static or observed edges, never "
	       "called in the window (low confidence: 1 h 0 min, 12 calls observed in all, 1 server) (schema.sql:12)\n"
	       "app.older(): not reachable from any root through static or observed edges, never "
	       "called in the window (low confidence: 1 h 0 min, 12 calls observed in all, 1 server)\n");
	expect(m, "cold", "text",
	       "# Cold functions: 1\n" WINDOW
	       "app.other(): reachable from app.main() (observed entry point); never called in "
	       "the window\n");
	expect(m, "dynamic", "text",
	       "# Dynamic call sites: 2\n" WINDOW
	       "app.main() line 5: dynamic, observed -> app.dyn_a()\n"
	       "app.other() line 2: unseen dynamic site: EXECUTE 'SELECT ' || x\n");
	expect(m, "unexplained", "text",
	       "# Unexplained runtime edges: 1\n" WINDOW
	       "app.work(integer) -> app.hidden() lines 4 calls 3: observed at runtime, but the "
	       "caller has no static call of it and no dynamic site, and no known mechanism "
	       "explains it (a possible miss of cgmap: worth a bug report)\n");
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function app.nope taking 1 argument exists\n");
	expect(m, "recursion", "text", "# Recursive components: 0\n" WINDOW);
	cgm_model_free(m);
}

/* With the arguments' types known the missing call is named as PostgreSQL
 * names it ("function f(cstring) does not exist"): saying that no f takes
 * that many arguments is false when one does, of other types. */
static void test_missing_typed(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	cgm_site *miss = NULL;
	cgm_function *work = &m->functions[idx(m, "app.work(integer)")];
	for (int s = 0; s < work->nsites; s++)
		if (work->sites[s].resolution == CGM_RES_MISSING)
			miss = &work->sites[s];
	assert_non_null(miss);
	static const char *one[] = { "cstring" };
	miss->argtypes = one;
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function app.nope(cstring) exists\n");
	/* Named and VARIADIC arguments as they were written. */
	static const char *two[] = { "text", "integer[]" };
	static const char *names[] = { NULL, "xs" };
	miss->nargs = 2;
	miss->argtypes = two;
	miss->variadic_call = true;
	cgm_site_rare_of(m->arena, miss)->argnames = names;
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function app.nope(text, VARIADIC xs => integer[]) exists\n");
	/* One type not known: only the count can be said. */
	static const char *unknown[] = { "text", NULL };
	miss->argtypes = unknown;
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function app.nope taking 2 arguments exists\n");
	/* Unqualified: a function of that name taking one argument, in a
	 * schema off the caller's path, may be what was meant; one on the
	 * path takes other types (no hint of a path then). */
	static const char *cstring[] = { "cstring" };
	work->name = "work";
	work->nargs = 1;
	work->npath = -1; /* no SET search_path of its own */
	miss->schema = NULL;
	miss->name = "work";
	miss->nargs = 1;
	miss->argtypes = cstring;
	miss->variadic_call = false;
	cgm_site_rare_of(m->arena, miss)->argnames = NULL;
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function work(cstring) exists; app.work(integer) is "
	       "in a schema not on the search_path (--search-path)\n");
	static const char *app_path[] = { "app" };
	m->source.default_search_path = app_path;
	m->source.npath = 1;
	expect(m, "missing", "text",
	       "# Missing callees: 1\n" WINDOW
	       "app.work(integer) line 6: no function work(cstring) exists; app.work(integer) takes "
	       "other argument types\n");
	cgm_model_free(m);
}

static void test_other_formats(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	expect(m, "dead", "csv",
	       "function,schema,file,file_line,reason\r\n"
	       "app.old(),app,schema.sql,12,\"not reachable from any root through static or "
	       "observed edges, never called in the window (low confidence: 1 h 0 min, 12 calls observed in all, 1 server)\"\r\n"
	       "app.older(),app,,,\"not reachable from any root through static or observed "
	       "edges, never called in the window (low confidence: 1 h 0 min, 12 calls observed in all, 1 server)\"\r\n");
	expect(m, "dynamic", "csv",
	       "function,schema,file,file_line,line,status,runs,targets,text\r\n"
	       "app.main(),app,,,5,observed,,app.dyn_a(),\"format('SELECT %I()', fname)\"\r\n"
	       "app.other(),app,,,2,unseen,,,'SELECT ' || x\r\n");
	expect(m, "cold", "markdown",
	       "## Cold functions (1)\n\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database "
	       "demo\\).\n\n"
	       "| function | schema | file | file_line | reason |\n"
	       "|---|---|---|--:|---|\n"
	       "| app.other\\(\\) | app |  |  | reachable from app.main\\(\\) \\(observed entry "
	       "point\\); never called in the window |\n");
	expect(m, "unexplained", "json",
	       "{\n"
	       "  \"report\": \"unexplained\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 1,\n"
	       "  \"rows\": [\n"
	       "    {\"from\": \"app.work(integer)\", \"to\": \"app.hidden()\", \"schema\": \"app\", "
	       "\"file\": null, \"file_line\": null, \"lines\": \"4\", \"calls\": 3, "
	       "\"total_ms\": 1.500, \"self_ms\": 0.750, \"reason\": \"observed at runtime, but the "
	       "caller has no static call of it and no dynamic site, and no known mechanism "
	       "explains it (a possible miss of cgmap: worth a bug report)\"}\n"
	       "  ]\n"
	       "}\n");
	expect(m, "missing", "json",
	       "{\n"
	       "  \"report\": \"missing\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 1,\n"
	       "  \"rows\": [\n"
	       "    {\"function\": \"app.work(integer)\", \"schema\": \"app\", \"file\": null, "
	       "\"file_line\": null, \"line\": 6, \"callee\": \"app.nope\", \"nargs\": 1, "
	       "\"reason\": \"no function app.nope taking 1 argument exists\", \"handled\": false}\n"
	       "  ]\n"
	       "}\n");
	/* Every kind renders in every format, and JSON always parses. */
	const char *kinds[] = { "dead", "cold", "dynamic", "unexplained", "missing", "edges",
				"functions", "recursion" };
	const char *formats[] = { "text", "csv", "markdown", "json" };
	for (size_t k = 0; k < 8; k++)
		for (size_t f = 0; f < 4; f++) {
			char *s = render(m, kinds[k], formats[f]);
			assert_true(strlen(s) > 0);
			free(s);
		}
	cgm_model_free(m);
}

static void test_without_runtime(void **state)
{
	(void)state;
	cgm_model *m = sample(false);
	expect(m, "dead", "text",
	       "# Dead functions: 4\n"
	       "# no runtime data: nothing is claimed dead; listed are the functions with no "
	       "callers that nothing refers to (clients may still call them)\n"
	       "app.dyn_a(): no callers and not referenced\n"
	       "app.hidden(): no callers and not referenced\n"
	       "app.main(): no callers and not referenced\n"
	       "app.old(): no callers and not referenced (schema.sql:12)\n");
	expect(m, "cold", "text",
	       "# Cold functions: 0\n"
	       "# no runtime data: coldness needs calls observed at runtime (see "
	       "docs/reports.md)\n");
	expect(m, "dynamic", "text",
	       "# Dynamic call sites: 2\n"
	       "# no runtime data: no dynamic site can be called unseen\n"
	       "app.main() line 5: dynamic site: EXECUTE format('SELECT %I()', fname)\n"
	       "app.other() line 2: dynamic site: EXECUTE 'SELECT ' || x\n");
	expect(m, "functions", "text",
	       "app.dyn_a() uncalled\n"
	       "app.hidden() uncalled\n"
	       "app.main() uncalled\n"
	       "app.old() uncalled\n"
	       "app.older() unreachable\n"
	       "app.other() unreachable\n"
	       "app.work(integer) unreachable\n");
	expect(m, "dead", "json",
	       "{\n"
	       "  \"report\": \"dead\",\n"
	       "  \"runtime\": false,\n"
	       "  \"window\": null,\n"
	       "  \"note\": \"no runtime data: nothing is claimed dead; listed are the functions "
	       "with no callers that nothing refers to (clients may still call them)\",\n"
	       "  \"count\": 4,\n"
	       "  \"rows\": [\n"
	       "    {\"function\": \"app.dyn_a()\", \"schema\": \"app\", \"file\": null, "
	       "\"file_line\": null, \"reason\": \"no callers and not referenced\"},\n"
	       "    {\"function\": \"app.hidden()\", \"schema\": \"app\", \"file\": null, "
	       "\"file_line\": null, \"reason\": \"no callers and not referenced\"},\n"
	       "    {\"function\": \"app.main()\", \"schema\": \"app\", \"file\": null, "
	       "\"file_line\": null, \"reason\": \"no callers and not referenced\"},\n"
	       "    {\"function\": \"app.old()\", \"schema\": \"app\", \"file\": \"schema.sql\", "
	       "\"file_line\": 12, \"reason\": \"no callers and not referenced\"}\n"
	       "  ]\n"
	       "}\n");
	cgm_model_free(m);
}

/* pg_stat_user_functions alone: figures, no edges; a dynamic site whose
 * calls nobody recorded is not "unseen". */
/* cgmap_trace 1.4 counted the runs of dynamic statements: a site that ran
 * without a call is "ran", not "unseen", and every site has its runs. */
static void test_dynamic_site_runs(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	m->has_site_runs = true;
	cgm_function *other = &m->functions[cgm_model_find(m, "app.other()")];
	cgm_site_rare_of(m->arena, &other->sites[0])->runs = 3;
	expect(m, "dynamic", "csv",
	       "function,schema,file,file_line,line,status,runs,targets,text\r\n"
	       "app.main(),app,,,5,observed,0,app.dyn_a(),\"format('SELECT %I()', fname)\"\r\n"
	       "app.other(),app,,,2,ran,3,,'SELECT ' || x\r\n");
	char *text = render(m, "dynamic", "text");
	assert_non_null(strstr(text, "app.other() line 2: dynamic, ran 3 times without calling a "
				     "user function: EXECUTE 'SELECT ' || x\n"));
	free(text);
	cgm_model_free(m);
}

static void test_function_figures_only(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	static const char *sources[] = { "database demo: pg_stat_user_functions" };
	m->runtime_sources = sources;
	assert_false(cgm_runtime_has_edges(m));
	expect(m, "dynamic", "csv",
	       "function,schema,file,file_line,line,status,runs,targets,text\r\n"
	       "app.main(),app,,,5,observed,,app.dyn_a(),\"format('SELECT %I()', fname)\"\r\n"
	       "app.other(),app,,,2,not observed,,,'SELECT ' || x\r\n");
	char *text = render(m, "dynamic", "text");
	assert_non_null(strstr(text, "# the runtime data has no call edges (only per-function "
				     "figures): no dynamic site can be called unseen\n"));
	assert_non_null(strstr(text, "app.other() line 2: dynamic site: EXECUTE"));
	free(text);
	cgm_model_free(m);
}

static void test_recursion(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "s.a()", "s");
	add_function(m, "s.b()", "s");
	add_function(m, "s.c(integer)", "s");
	add_function(m, "s.d()", "s");
	cgm_model_index(m);
	add_edge(m, "s.a()", "s.b()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "s.b()", "s.a()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "s.c(integer)", "s.c(integer)", CGM_VIA_CALL, BOTH, 4, 9);
	add_edge(m, "s.d()", "s.c(integer)", CGM_VIA_CALL, BOTH, 3, 1);
	cgm_edge *amb = add_edge(m, "s.d()", "s.a()", CGM_VIA_CALL, CGM_EDGE_STATIC, 5, 0);
	amb->ambiguous = true;
	amb->nlines = 0;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	expect(m, "edges", "text",
	       "s.a() -> s.b() via call static lines 2\n"
	       "s.b() -> s.a() via call static lines 2\n"
	       "s.c(integer) -> s.c(integer) via call both lines 4 calls 9\n"
	       "s.d() -> s.a() via call static lines - ambiguous\n"
	       "s.d() -> s.c(integer) via call both lines 3 calls 1\n");
	expect(m, "recursion", "text",
	       "# Recursive components: 2\n"
	       "# no runtime data\n"
	       "component 0: s.a() s.b() has callers\n"
	       "component 1: s.c(integer) has callers\n");
	m->has_runtime = true;
	hour_of_evidence(m);
	m->runtime_window = "w";
	m->functions[idx(m, "s.c(integer)")].runtime.calls = 10;
	m->functions[idx(m, "s.d()")].observed_entry = true;
	m->functions[idx(m, "s.d()")].runtime.calls = 1;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	expect(m, "recursion", "csv",
	       "component,size,functions,status,calls\r\n"
	       "0,2,s.a() s.b(),cold,0\r\n"
	       "1,1,s.c(integer),called,10\r\n");
	cgm_model_free(m);
}

static void test_escaping_and_parsing(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, "\"Odd, Schema\".\"a|b\"()", "Odd, Schema");
	add_function(m, "s.busy()", "s");
	cgm_model_index(m);
	m->has_runtime = true;
	hour_of_evidence(m);
	m->runtime_window = "w";
	m->functions[idx(m, "s.busy()")].runtime.calls = 5;
	m->functions[idx(m, "s.busy()")].observed_entry = true;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	expect(m, "dead", "csv",
	       "function,schema,file,file_line,reason\r\n"
	       "\"\"\"Odd, Schema\"\".\"\"a|b\"\"()\",\"Odd, Schema\",,,\"not reachable from any "
	       "root through static or observed edges, never called in the window (low confidence: "
	       "1 h 0 min, 5 calls observed in all, 1 server)\"\r\n");
	/* A trigger function no trigger uses is said to be one. */
	add_function(m, "app.orphan_trg()", "app");
	cgm_model_index(m);
	m->functions[idx(m, "app.orphan_trg()")].is_trigger = true;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	char *dead = render(m, "dead", "text");
	assert_non_null(strstr(dead, "app.orphan_trg(): not reachable from any root through static "
				     "or observed edges, never called in the window (low confidence: "
				     "1 h 0 min, 5 calls observed in all, 1 server); trigger "
				     "function of no trigger\n"));
	free(dead);
	char *md = render(m, "functions", "markdown");
	assert_non_null(strstr(md, "a\\|b"));
	free(md);
	char *json = render(m, "functions", "json");
	assert_non_null(strstr(json, "\"function\": \"\\\"Odd, Schema\\\".\\\"a|b\\\"()\""));
	free(json);
	cgm_report_kind k;
	cgm_report_format f;
	assert_int_equal(cgm_report_kind_parse(&k, "deadish"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "'deadish'"));
	assert_int_equal(cgm_report_format_parse(&f, "xml"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "'xml'"));
	cgm_model_free(m);
}

/* No report a person reads passes a terminal escape sequence, a line
 * break, a bidi override or a bad byte from a name: each is shown
 * escaped.  `s` holds no byte below 0x20 but the line ends (and tabs when
 * allowed), no DEL, no C1 or bidi control and no invalid UTF-8. */
static void assert_inert(const char *s, bool tabs, const char *what)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++) {
		if (*p == '\n' || (tabs && *p == '\t'))
			continue;
		if (*p < 0x20 || *p == 0x7F || *p == 0xFF || *p == 0x80)
			fail_msg("%s: raw byte 0x%02X in:\n%s", what, *p, s);
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
			fail_msg("%s: raw C1 control in:\n%s", what, s);
		if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xAE || p[2] == 0x8F))
			fail_msg("%s: raw bidi control in:\n%s", what, s);
	}
}

static void test_hostile_names_shown_escaped(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	/* ESC [2J clears a screen; U+202E turns the rest around; a newline
	 * would fake a second row; 0xFF is no UTF-8; U+009B is CSI. */
	add_function(m, "app.\"x\x1B[2J\xE2\x80\xAE" "evil\nfake: dead\xFF\xC2\x9B\"()", "app");
	/* Called dead on evidence: an hour with calls (cgmap/verdict.h). */
	add_function(m, "app.busy()", "app");
	cgm_model_index(m);
	m->has_runtime = true;
	hour_of_evidence(m);
	m->runtime_window = "w\x1B]0;t\x07";
	m->functions[idx(m, "app.busy()")].runtime.calls = 5;
	m->functions[idx(m, "app.busy()")].observed_entry = true;
	assert_int_equal(cgm_analyze(m, &few_calls), 0);
	char *text = render(m, "dead", "text");
	assert_inert(text, false, "text");
	assert_non_null(strstr(text, "app.\"x\\x1B[2J\\u202Eevil\\nfake: dead\\xFF\\u009B\"(): "));
	assert_non_null(strstr(text, "# runtime data covers w\\x1B]0;t\\x07\n"));
	free(text);
	char *md = render(m, "functions", "markdown");
	assert_inert(md, false, "markdown");
	assert_non_null(strstr(md, "\\u202Eevil<br>fake: dead\\xFF\\u009B"));
	free(md);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_reports),
		cmocka_unit_test(test_missing_typed),
		cmocka_unit_test(test_other_formats),
		cmocka_unit_test(test_without_runtime),
		cmocka_unit_test(test_function_figures_only),
		cmocka_unit_test(test_dynamic_site_runs),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_escaping_and_parsing),
		cmocka_unit_test(test_hostile_names_shown_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
