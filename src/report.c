/*
 * report.c - the reports of `cgmap report` (docs/reports.md): dead, cold,
 * dynamic, unexplained, missing, edges, functions, recursion; each as text,
 * CSV, Markdown or JSON.  The reports of call paths (profile, paths,
 * timeline, shapes) are built by src/report_profile.c into the same table
 * (src/report_internal.h) and rendered here.
 *
 * In:  an analysed model (cgm_analyze, or a snapshot, whose status flags
 *      are the analysis).  Out: text appended to a caller-owned cgm_strbuf.
 * Each report is first built as a table of typed cells plus one text line
 * per row, then rendered; the table is malloc'd here and freed here.
 * Rows come out in a fixed order (ids in byte order) so the output of the
 * same snapshot is always the same bytes: the team's tests compare it.
 */
#include "cgmap/runtime.h"
#include "cgmap/verdict.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/ops.h"
#include "report_internal.h"

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = cgm_xcalloc(n, 1);
	memcpy(p, s, n);
	return p;
}

static char *vxprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vxprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *p = cgm_xcalloc((size_t)n + 1, 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = vxprintf(fmt, ap);
	va_end(ap);
	return p;
}

static row *table_add(table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		row *rows = realloc(t->rows, sizeof(row) * (size_t)t->cap);
		if (!rows) {
			fprintf(stderr, "cgmap: out of memory\n");
			abort();
		}
		t->rows = rows;
	}
	row *r = &t->rows[t->nrows++];
	r->cells = cgm_xcalloc(sizeof(char *) * (size_t)t->ncols, 1);
	r->text = NULL;
	return r;
}

row *cgm_report_row_add(table *t)
{
	return table_add(t);
}

char *cgm_report_strdup(const char *s)
{
	return xstrdup(s);
}

char *cgm_report_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = vxprintf(fmt, ap);
	va_end(ap);
	return p;
}

static void table_free(table *t)
{
	for (int i = 0; i < t->nrows; i++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[i].cells[c]);
		free(t->rows[i].cells);
		free(t->rows[i].text);
	}
	free(t->rows);
	free(t->owned_note);
}

static char *int_cell(long long v)
{
	return xprintf("%lld", v);
}

static char *num_cell(double v)
{
	return xprintf("%.3f", v);
}

static char *bool_cell(bool v)
{
	return xstrdup(v ? "true" : "false");
}

static char *lines_text(const int *lines, int n, const char *sep)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (int i = 0; i < n; i++)
		cgm_strbuf_printf(&b, "%s%d", i ? sep : "", lines[i]);
	char *s = xstrdup(cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return s;
}

/* " (file.sql:12)" when the definition's place is known, else "". */
static char *place_suffix(const cgm_function *f)
{
	if (!f->file)
		return xstrdup("");
	if (f->file_line > 0)
		return xprintf(" (%s:%d)", f->file, f->file_line);
	return xprintf(" (%s)", f->file);
}

static void function_place_cells(char **cells, const cgm_function *f)
{
	cells[1] = xstrdup(f->schema);
	cells[2] = xstrdup(f->file);
	cells[3] = f->file && f->file_line > 0 ? int_cell(f->file_line) : NULL;
}

/* ---- why a function is a root, and which root reaches it ---- */

static char *root_reason(const cgm_model *model, int fn)
{
	const cgm_function *f = &model->functions[fn];
	if (f->observed_entry)
		return xstrdup("observed entry point");
	for (int i = 0; i < model->ntriggers; i++) {
		const cgm_trigger *t = &model->triggers[i];
		if (t->function == fn)
			return xprintf("trigger function of trigger %s on %s.%s", t->name,
				       t->table_schema ? t->table_schema : "?", t->table_name);
	}
	for (int i = 0; i < model->nreferences; i++) {
		const cgm_reference *r = &model->references[i];
		if (r->function == fn)
			return xprintf("referenced by %s", r->object);
	}
	if (f->root)
		return xstrdup("entry pattern");
	return xstrdup("called at runtime");
}

/* For every reachable user function, the root (or observed function) a
 * breadth-first walk from the seeds reached it from first. */
static int *reaching_seeds(const cgm_model *model)
{
	int n = model->nuser;
	int *seed = cgm_xcalloc(sizeof(int) * (size_t)(n ? n : 1), 1);
	int *queue = cgm_xcalloc(sizeof(int) * (size_t)(n ? n : 1), 1);
	int head = 0, tail = 0;
	for (int i = 0; i < n; i++) {
		const cgm_function *f = &model->functions[i];
		seed[i] = -1;
		if (f->root || f->runtime.calls > 0) {
			seed[i] = i;
			queue[tail++] = i;
		}
	}
	/* Edges grouped by caller, so the walk is linear. */
	int *start = cgm_xcalloc(sizeof(int) * (size_t)(n + 1), 1);
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from >= 0 && e->from < n && e->to >= 0 && e->to < n)
			start[e->from + 1]++;
	}
	for (int i = 0; i < n; i++)
		start[i + 1] += start[i];
	int *next = cgm_xcalloc(sizeof(int) * (size_t)(start[n] ? start[n] : 1), 1);
	int *fill = cgm_xcalloc(sizeof(int) * (size_t)(n ? n : 1), 1);
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from >= 0 && e->from < n && e->to >= 0 && e->to < n)
			next[start[e->from] + fill[e->from]++] = e->to;
	}
	while (head < tail) {
		int v = queue[head++];
		for (int p = start[v]; p < start[v + 1]; p++) {
			int w = next[p];
			if (seed[w] < 0) {
				seed[w] = seed[v];
				queue[tail++] = w;
			}
		}
	}
	free(queue);
	free(start);
	free(next);
	free(fill);
	return seed;
}

/* ---- the reports ---- */

static const column place_columns_dead[] = {
	{ "function", COL_STR }, { "schema", COL_STR }, { "file", COL_STR },
	{ "file_line", COL_INT }, { "reason", COL_STR },
};

static const char *window_text(const cgm_model *model)
{
	return model->runtime_window ? model->runtime_window : "an unknown window";
}

/* The evidence and what was not called dead (malloc'd). */
static char *dead_note(const cgm_model *model)
{
	int count[CGM_VERDICT_DYNAMIC_REACHABLE + 1] = { 0 };
	for (int i = 0; i < model->nuser; i++)
		if ((unsigned)model->functions[i].verdict <= CGM_VERDICT_DYNAMIC_REACHABLE)
			count[model->functions[i].verdict]++;
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&b, "evidence: ");
	cgm_evidence_text(&b, model);
	cgm_strbuf_printf(&b, "; not called dead though never called and unreachable: %d "
			      "unobserved, %d untraceable, %d dynamic-reachable",
			  count[CGM_VERDICT_UNOBSERVED], count[CGM_VERDICT_UNTRACEABLE],
			  count[CGM_VERDICT_DYNAMIC_REACHABLE]);
	char *note = xstrdup(cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return note;
}

static void build_dead(table *t, const cgm_model *model)
{
	t->title = "Dead functions";
	t->cols = place_columns_dead;
	t->ncols = 5;
	if (!model->has_runtime)
		t->note = "no runtime data: nothing is claimed dead; listed are the functions "
			  "with no callers that nothing refers to (clients may still call them)";
	else
		t->note = t->owned_note = dead_note(model);
	bool *uncalled = cgm_xcalloc(sizeof(bool) * (size_t)(model->nfunctions + 1), 1);
	cgm_functions_uncalled(uncalled, model);
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		cgm_strbuf why = CGM_STRBUF_INIT;
		if (model->has_runtime) {
			if (!f->dead)
				continue;
			cgm_strbuf_puts(&why, "not reachable from any root through static or "
					      "observed edges, never called in the window");
			cgm_strbuf_printf(&why, " (%s confidence: ", f->confidence ? f->confidence : "low");
			cgm_duration_text(&why, model->evidence.window_seconds);
			cgm_strbuf_printf(&why, ", %lld calls observed in all, %d server%s)",
					  (long long)model->evidence.calls, model->evidence.nservers,
					  model->evidence.nservers == 1 ? "" : "s");
		} else {
			if (!uncalled[i])
				continue;
			cgm_strbuf_puts(&why, "no callers and not referenced");
		}
		if (f->scc >= 0)
			cgm_strbuf_printf(&why, "; recursive component %d, called only from "
						"within it", f->scc);
		if (f->is_trigger && !f->referenced)
			cgm_strbuf_puts(&why, "; trigger function of no trigger");
		row *r = table_add(t);
		r->cells[0] = xstrdup(f->id);
		function_place_cells(r->cells, f);
		r->cells[4] = xstrdup(cgm_strbuf_cstr(&why));
		char *place = place_suffix(f);
		r->text = xprintf("%s: %s%s", f->id, r->cells[4], place);
		free(place);
		cgm_strbuf_free(&why);
	}
	free(uncalled);
}

static void build_cold(table *t, const cgm_model *model)
{
	t->title = "Cold functions";
	t->cols = place_columns_dead;
	t->ncols = 5;
	if (!model->has_runtime) {
		t->note = "no runtime data: coldness needs calls observed at runtime "
			  "(see docs/reports.md)";
		return;
	}
	int *seed = reaching_seeds(model);
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		if (!f->cold)
			continue;
		char *why;
		char *root_why = root_reason(model, seed[i] >= 0 ? seed[i] : i);
		if (seed[i] == i || seed[i] < 0)
			why = xprintf("%s; never called in the window", root_why);
		else
			why = xprintf("reachable from %s (%s); never called in the window",
				      model->functions[seed[i]].id, root_why);
		free(root_why);
		row *r = table_add(t);
		r->cells[0] = xstrdup(f->id);
		function_place_cells(r->cells, f);
		r->cells[4] = why;
		char *place = place_suffix(f);
		r->text = xprintf("%s: %s%s", f->id, why, place);
		free(place);
	}
	free(seed);
}

static const column dynamic_columns[] = {
	{ "function", COL_STR }, { "schema", COL_STR }, { "file", COL_STR },
	{ "file_line", COL_INT }, { "line", COL_INT }, { "status", COL_STR },
	{ "runs", COL_INT }, { "targets", COL_STR }, { "text", COL_STR },
};

static const char *node_id(const cgm_model *model, int fn);

static void build_dynamic(table *t, const cgm_model *model)
{
	t->title = "Dynamic call sites";
	t->cols = dynamic_columns;
	t->ncols = 9;
	bool edges_known = cgm_runtime_has_edges(model);
	if (!model->has_runtime)
		t->note = "no runtime data: no dynamic site can be called unseen";
	else if (!edges_known)
		t->note = "the runtime data has no call edges (only per-function figures): no "
			  "dynamic site can be called unseen";
	int nhits;
	cgm_dynamic_hit *hits = cgm_dynamic_hits(&nhits, model);
	cgm_dynsql_reader *reader = NULL;
	/* The calls the project's configuration declares (few, or none). */
	int ndeclared = 0;
	int *declared = cgm_xcalloc(sizeof(int) * (size_t)(model->nedges + 1), 1);
	for (int k = 0; k < model->nedges; k++)
		if (model->edges[k].provenance & CGM_EDGE_DECLARED)
			declared[ndeclared++] = k;
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			if (site->kind != CGM_SITE_DYNAMIC)
				continue;
			cgm_strbuf declared_targets = CGM_STRBUF_INIT;
			int ndeclared_targets = 0;
			for (int k = 0; k < ndeclared; k++) {
				const cgm_edge *e = &model->edges[declared[k]];
				if (cgm_edge_declared_at(e, i, site->line))
					cgm_strbuf_printf(&declared_targets, "%s%s",
							  ndeclared_targets++ ? " " : "",
							  node_id(model, e->to));
			}
			/* Observed targets: hits of this function at this line, by id. */
			cgm_strbuf targets = CGM_STRBUF_INIT;
			int nids = 0;
			int h = cgm_dynamic_hit_find(hits, nhits, i, site->line);
			for (; h >= 0 && h < nhits && hits[h].from == i && hits[h].line == site->line;
			     h++, nids++)
				cgm_strbuf_printf(&targets, "%s%s", nids ? " " : "",
						  model->functions[hits[h].to].id);
			/* As the summary counts it: a DDL or utility statement calling
			 * no user function is not waiting to be seen. */
			cgm_dynamic_state state =
				cgm_dynamic_site_state(&reader, model, site, nids > 0, ndeclared_targets > 0);
			int64_t runs = cgm_site_get_rare(site)->runs;
			const char *status = state == CGM_DYN_OBSERVED	 ? "observed"
					     : state == CGM_DYN_DECLARED	 ? "declared"
					     : state == CGM_DYN_CALLS_NONE ? "calls none"
					     : state == CGM_DYN_RAN	 ? "ran"
					     : edges_known		 ? "unseen"
									 : "not observed";
			row *r = table_add(t);
			r->cells[0] = xstrdup(f->id);
			function_place_cells(r->cells, f);
			r->cells[4] = int_cell(site->line);
			r->cells[5] = xstrdup(status);
			r->cells[6] = model->has_site_runs ? int_cell(runs) : NULL;
			r->cells[7] = xstrdup(nids ? cgm_strbuf_cstr(&targets)
						   : cgm_strbuf_cstr(&declared_targets));
			r->cells[8] = xstrdup(cgm_site_get_rare(site)->text ? cgm_site_get_rare(site)->text : "");
			char *place = place_suffix(f);
			if (state == CGM_DYN_OBSERVED)
				r->text = xprintf("%s line %d: dynamic, observed -> %s%s", f->id,
						  site->line, cgm_strbuf_cstr(&targets), place);
			else if (state == CGM_DYN_DECLARED)
				r->text = xprintf("%s line %d: dynamic, declared -> %s%s", f->id,
						  site->line, cgm_strbuf_cstr(&declared_targets), place);
			else if (state == CGM_DYN_CALLS_NONE)
				r->text = xprintf("%s line %d: dynamic site that can call no user "
						  "function: %s %s%s",
						  f->id, site->line, cgm_dynamic_site_verb(site), r->cells[8], place);
			else if (state == CGM_DYN_RAN)
				r->text = xprintf("%s line %d: dynamic, ran %" PRId64 " time%s without "
						  "calling a user function%s: %s %s%s",
						  f->id, site->line, runs, runs == 1 ? "" : "s",
						  cgm_dynamic_site_has_static_calls(f, site)
							  ? " beyond its static calls"
							  : "",
						  cgm_dynamic_site_verb(site), r->cells[8], place);
			else if (edges_known)
				r->text = xprintf("%s line %d: unseen dynamic site: %s %s%s",
						  f->id, site->line, cgm_dynamic_site_verb(site), r->cells[8], place);
			else
				r->text = xprintf("%s line %d: dynamic site: %s %s%s", f->id,
						  site->line, cgm_dynamic_site_verb(site), r->cells[8], place);
			free(place);
			cgm_strbuf_free(&targets);
			cgm_strbuf_free(&declared_targets);
		}
	}
	free(hits);
	free(declared);
	cgm_dynsql_reader_free(reader);
}

/* Edges in (from, to, via) order by id: the model's own order is not
 * promised to anybody. */
typedef struct {
	const cgm_model *model;
	int index;
} edge_ref;

static const char *node_id(const cgm_model *model, int fn)
{
	return fn >= 0 && fn < model->nfunctions ? model->functions[fn].id : "?";
}

static int compare_edges(const void *a, const void *b)
{
	const edge_ref *x = a, *y = b;
	const cgm_edge *ex = &x->model->edges[x->index], *ey = &y->model->edges[y->index];
	int c = strcmp(node_id(x->model, ex->from), node_id(y->model, ey->from));
	if (!c)
		c = strcmp(node_id(x->model, ex->to), node_id(y->model, ey->to));
	if (!c)
		c = cgm_edge_compare_kind(ex, ey);
	return c ? c : x->index - y->index;
}

static edge_ref *sorted_edges(const cgm_model *model)
{
	edge_ref *refs = cgm_xcalloc(sizeof(edge_ref) * (size_t)(model->nedges + 1), 1);
	for (int i = 0; i < model->nedges; i++) {
		refs[i].model = model;
		refs[i].index = i;
	}
	qsort(refs, (size_t)model->nedges, sizeof(edge_ref), compare_edges);
	return refs;
}

static const char *provenance_name(unsigned p)
{
	if ((p & CGM_EDGE_STATIC) && (p & CGM_EDGE_OBSERVED))
		return "both";
	return (p & CGM_EDGE_OBSERVED) ? "observed" : "static";
}

static const column unexplained_columns[] = {
	{ "from", COL_STR }, { "to", COL_STR }, { "schema", COL_STR }, { "file", COL_STR },
	{ "file_line", COL_INT }, { "lines", COL_STR }, { "calls", COL_INT },
	{ "total_ms", COL_NUM }, { "self_ms", COL_NUM }, { "reason", COL_STR },
};

static void build_unexplained(table *t, const cgm_model *model)
{
	t->title = "Unexplained runtime edges";
	t->cols = unexplained_columns;
	t->ncols = 10;
	if (!model->has_runtime)
		t->note = "no runtime data: every edge is static";
	else if (!cgm_runtime_has_edges(model))
		t->note = "the runtime data has no call edges (only per-function figures)";
	edge_ref *refs = sorted_edges(model);
	for (int k = 0; k < model->nedges; k++) {
		const cgm_edge *e = &model->edges[refs[k].index];
		if (!cgm_edge_unexplained(e) || e->from < 0 || e->to < 0)
			continue;
		const cgm_function *from = &model->functions[e->from];
		const char *cause = cgm_edge_cause(model, e);
		const char *how = strcmp(cause, "inlined SQL function") == 0
					  ? "a call through an SQL function the planner inlined"
				  : strcmp(cause, "view") == 0	   ? "a view the caller reads"
				  : strcmp(cause, "default") == 0	   ? "a column default"
				  : strcmp(cause, "trigger") == 0	   ? "a trigger"
				  : strcmp(cause, "event trigger") == 0 ? "an event trigger"
				  : strcmp(cause, "dynamic SQL") == 0   ? "dynamic SQL of the caller"
				  : strcmp(cause, "search_path") == 0
					  ? "an unqualified call the session's search_path sent to this "
					    "function of its name"
				  : strcmp(cause, "internal machinery") == 0
					  ? "a call PostgreSQL made itself while running the caller's "
					    "statements (the callee takes `internal`: a planner estimator "
					    "or SUPPORT function, an index's support function)"
				  : strcmp(cause, "type input/output") == 0
					  ? "PostgreSQL reading a literal of the callee's type or turning a "
					    "value of it into text (the callee is a type's input or output "
					    "function)"
				  : strcmp(cause, "caller not analysed") == 0
					  ? "a call the caller's code makes where cgmap does not read it "
					    "(its language is not PL/pgSQL or SQL)"
				  : strcmp(cause, "caller has a parse error") == 0
					  ? "a call in the caller's body, which did not parse"
				  : strcmp(cause, "changed body") == 0 && cgm_edge_get_rare(e)->earlier_body
					  ? "a body replaced since it was observed (seen against an "
					    "earlier version of the caller's body, which called it)"
				  : strcmp(cause, "changed body") == 0
					  ? "a body replaced since it was observed (the line is past its end)"
				  : strcmp(cause, "other server version") == 0
					  ? "a call in a branch for another server version than the map's, "
					    "which the server the runtime data came from ran"
					  : NULL;
		char *why_text =
			how ? xprintf("observed at runtime, not a static call: likely %s (%s)", how,
				      cause)
			    : xstrdup("observed at runtime, but the caller has no static call of it "
				      "and no dynamic site, and no known mechanism explains it (a "
				      "possible miss of cgmap: worth a bug report)");
		const char *why = why_text;
		row *r = table_add(t);
		r->cells[0] = xstrdup(from->id);
		r->cells[1] = xstrdup(model->functions[e->to].id);
		r->cells[2] = xstrdup(from->schema);
		r->cells[3] = xstrdup(from->file);
		r->cells[4] = from->file && from->file_line > 0 ? int_cell(from->file_line) : NULL;
		r->cells[5] = lines_text(e->lines, e->nlines, ",");
		r->cells[6] = int_cell(cgm_edge_runtime(e)->calls);
		r->cells[7] = num_cell(cgm_edge_runtime(e)->total_ms);
		r->cells[8] = num_cell(cgm_edge_runtime(e)->self_ms);
		r->cells[9] = why_text;
		char *place = place_suffix(from);
		r->text = xprintf("%s -> %s lines %s calls %lld: %s%s", from->id, r->cells[1],
				  e->nlines ? r->cells[5] : "-", (long long)cgm_edge_runtime(e)->calls, why,
				  place);
		free(place);
	}
	free(refs);
}

static const column missing_columns[] = {
	{ "function", COL_STR }, { "schema", COL_STR }, { "file", COL_STR },
	{ "file_line", COL_INT }, { "line", COL_INT }, { "callee", COL_STR },
	{ "nargs", COL_INT }, { "reason", COL_STR }, { "handled", COL_BOOL },
};

/* For an unqualified missing callee of `caller`: the functions of that
 * name taking its number of arguments, up to three of each kind, then how
 * many more: those in a schema the caller's search_path does not hold
 * ("; app.f(integer) is in a schema not on the search_path"), and those it
 * does hold, whose argument types the call's do not fit ("; public.f(bigint)
 * takes other argument types").  NULL when there are none. */
#define HINT_PATH_MAX 64

static char *elsewhere_hint(const cgm_model *model, const cgm_function *caller,
			    const cgm_site *site)
{
	if (site->schema || !site->name || site->nargs < 0)
		return NULL;
	const char *path[HINT_PATH_MAX];
	int npath = cgm_function_path(model, caller, path, HINT_PATH_MAX);
	cgm_strbuf off = CGM_STRBUF_INIT, on = CGM_STRBUF_INIT;
	int noff = 0, non = 0;
	for (int i = 0; i < model->nfunctions; i++) {
		const cgm_function *g = &model->functions[i];
		if (!g->name || !g->id || strcmp(g->name, site->name) != 0 ||
		    !cgm_function_takes(g, site->nargs))
			continue;
		bool on_path = false;
		for (int p = 0; p < npath && !on_path; p++)
			on_path = g->schema && strcmp(path[p], g->schema) == 0;
		cgm_strbuf *ids = on_path ? &on : &off;
		int *found = on_path ? &non : &noff;
		if (*found < 3) {
			if (*found)
				cgm_strbuf_puts(ids, ", ");
			cgm_strbuf_puts(ids, g->id);
		}
		(*found)++;
	}
	char *hint = NULL;
	if (noff || non) {
		cgm_strbuf b = CGM_STRBUF_INIT;
		if (non)
			cgm_strbuf_printf(&b, "; %s%s %s other argument types", cgm_strbuf_cstr(&on),
					  non > 3 ? " and more" : "", non == 1 ? "takes" : "take");
		if (noff)
			cgm_strbuf_printf(&b, "; %s%s %s in a schema not on the search_path (--search-path)",
					  cgm_strbuf_cstr(&off), noff > 3 ? " and more" : "",
					  noff == 1 ? "is" : "are");
		hint = xstrdup(cgm_strbuf_cstr(&b));
		cgm_strbuf_free(&b);
	}
	cgm_strbuf_free(&off);
	cgm_strbuf_free(&on);
	return hint;
}

/* The call as PostgreSQL names it in "function f(integer) does not exist":
 * the callee with the types its arguments were taken as ("name => type"
 * for a named one, VARIADIC before an array written so), or NULL when a
 * type is not known: then only the count can be said. */
static char *typed_call(const cgm_site *site, const char *callee)
{
	if (!site->argtypes || site->nargs < 0)
		return NULL;
	for (int a = 0; a < site->nargs; a++)
		if (!site->argtypes[a])
			return NULL;
	const char **names = cgm_site_get_rare(site)->argnames;
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&b, "%s(", callee);
	for (int a = 0; a < site->nargs; a++) {
		if (a)
			cgm_strbuf_puts(&b, ", ");
		if (site->variadic_call && a == site->nargs - 1)
			cgm_strbuf_puts(&b, "VARIADIC ");
		if (names && names[a])
			cgm_strbuf_printf(&b, "%s => ", names[a]);
		cgm_strbuf_puts(&b, site->argtypes[a]);
	}
	cgm_strbuf_putc(&b, ')');
	char *call = xstrdup(cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return call;
}

static void build_missing(table *t, const cgm_model *model)
{
	t->title = "Missing callees";
	t->cols = missing_columns;
	t->ncols = 9;
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			if (site->resolution != CGM_RES_MISSING && site->resolution != CGM_RES_NOT_UNIQUE)
				continue;
			row *r = table_add(t);
			r->cells[0] = xstrdup(f->id);
			function_place_cells(r->cells, f);
			r->cells[4] = int_cell(site->line);
			r->cells[5] = site->schema ? xprintf("%s.%s", site->schema, site->name)
						   : xstrdup(site->name ? site->name : "?");
			r->cells[6] = int_cell(site->nargs);
			if (site->resolution == CGM_RES_NOT_UNIQUE) {
				/* PostgreSQL's "function (operator) ... is not unique":
				 * nothing runs.  The tied operators by their objects. */
				cgm_strbuf tied = CGM_STRBUF_INIT;
				const char **objects = cgm_site_get_rare(site)->target_object;
				for (int k = 0; k < site->ntargets; k++)
					cgm_strbuf_printf(&tied, "%s%s", k ? " and " : "",
							  objects && objects[k] ? objects[k]
									       : node_id(model, site->targets[k]));
				char *call = site->kind == CGM_SITE_OPERATOR ? NULL : typed_call(site, r->cells[5]);
				if (site->kind == CGM_SITE_OPERATOR) {
					char text[512];
					r->cells[7] = xprintf("the operator %s is not unique: %s fit its operand "
							      "types equally well (PostgreSQL refuses it)",
							      cgm_site_operator_text(text, sizeof text, site),
							      cgm_strbuf_cstr(&tied));
				} else if (cgm_site_tie_same_types(model, site) || !call) {
					r->cells[7] = xprintf("the call of %s with %d argument%s is not unique: %s "
							      "take them as the same types (PostgreSQL refuses it)",
							      r->cells[5], site->nargs, site->nargs == 1 ? "" : "s",
							      cgm_strbuf_cstr(&tied));
				} else {
					r->cells[7] = xprintf("the call %s is not unique: %s fit its argument "
							      "types equally well (PostgreSQL refuses it)",
							      call, cgm_strbuf_cstr(&tied));
				}
				free(call);
				cgm_strbuf_free(&tied);
			} else {
				char *hint = elsewhere_hint(model, f, site);
				char *call = typed_call(site, r->cells[5]);
				if (call)
					r->cells[7] = xprintf("no function %s exists%s", call,
							      hint ? hint : "");
				else
					r->cells[7] = xprintf("no function %s taking %d argument%s exists%s",
							      r->cells[5], site->nargs,
							      site->nargs == 1 ? "" : "s", hint ? hint : "");
				free(call);
				free(hint);
			}
			/* Not a defect: the function is ready for the callee's absence
			 * (PostGIS's postgis_full_version() and optional raster). */
			r->cells[8] = bool_cell(cgm_site_missing_handled(site));
			if (cgm_site_missing_handled(site)) {
				char *said = r->cells[7];
				const char *needs = cgm_site_get_rare(site)->requires_extension;
				r->cells[7] = needs ? xprintf("%s; expected: it runs only when extension %s "
							      "is installed, and it is not",
							      said, needs)
						    : xprintf("%s; expected: the block around the call catches "
							      "undefined_function",
							      said);
				free(said);
			}
			char *place = place_suffix(f);
			r->text = xprintf("%s line %d: %s%s", f->id, site->line, r->cells[7], place);
			free(place);
		}
	}
}

static const column edge_columns[] = {
	{ "from", COL_STR },	  { "to", COL_STR },	     { "via", COL_STR },
	{ "provenance", COL_STR }, { "lines", COL_STR },     { "ambiguous", COL_BOOL },
	{ "calls", COL_INT },	  { "total_ms", COL_NUM },  { "self_ms", COL_NUM },
	{ "object", COL_STR },	  { "earlier_body", COL_BOOL }, { "declared", COL_STR },
};

static void build_edges(table *t, const cgm_model *model)
{
	t->title = "Edges";
	t->cols = edge_columns;
	t->ncols = 12;
	edge_ref *refs = sorted_edges(model);
	for (int k = 0; k < model->nedges; k++) {
		const cgm_edge *e = &model->edges[refs[k].index];
		bool observed = e->provenance & CGM_EDGE_OBSERVED;
		row *r = table_add(t);
		r->cells[0] = xstrdup(node_id(model, e->from));
		r->cells[1] = xstrdup(node_id(model, e->to));
		r->cells[2] = xstrdup(cgm_via_name(e->via));
		r->cells[3] = xstrdup(provenance_name(e->provenance));
		r->cells[4] = lines_text(e->lines, e->nlines, ",");
		r->cells[5] = bool_cell(e->ambiguous);
		if (observed) {
			r->cells[6] = int_cell(cgm_edge_runtime(e)->calls);
			r->cells[7] = num_cell(cgm_edge_runtime(e)->total_ms);
			r->cells[8] = num_cell(cgm_edge_runtime(e)->self_ms);
		}
		cgm_strbuf line = CGM_STRBUF_INIT;
		if (e->object)
			r->cells[9] = xstrdup(e->object);
		r->cells[10] = bool_cell(cgm_edge_get_rare(e)->earlier_body);
		if (e->provenance & CGM_EDGE_DECLARED)
			r->cells[11] = xstrdup(cgm_edge_get_rare(e)->declared ? cgm_edge_get_rare(e)->declared : "");
		cgm_strbuf_printf(&line, "%s -> %s via %s", r->cells[0], r->cells[1], r->cells[2]);
		if (e->object)
			cgm_strbuf_printf(&line, " (%s)", e->object);
		cgm_strbuf_printf(&line, " %s lines %s", r->cells[3], e->nlines ? r->cells[4] : "-");
		if (e->ambiguous)
			cgm_strbuf_puts(&line, " ambiguous");
		if (observed)
			cgm_strbuf_printf(&line, " calls %lld", (long long)cgm_edge_runtime(e)->calls);
		if (cgm_edge_get_rare(e)->earlier_body)
			cgm_strbuf_puts(&line, " (observed against an earlier body of the caller)");
		if (e->provenance & CGM_EDGE_DECLARED)
			cgm_strbuf_printf(&line, " declared%s%s", cgm_edge_get_rare(e)->declared && *cgm_edge_get_rare(e)->declared ? ": " : "",
					  cgm_edge_get_rare(e)->declared ? cgm_edge_get_rare(e)->declared : "");
		r->text = xstrdup(cgm_strbuf_cstr(&line));
		cgm_strbuf_free(&line);
	}
	free(refs);
}

static const column function_columns[] = {
	{ "function", COL_STR }, { "schema", COL_STR }, { "file", COL_STR },
	{ "file_line", COL_INT }, { "status", COL_STR }, { "root", COL_BOOL },
	{ "observed_entry", COL_BOOL }, { "referenced", COL_BOOL }, { "scc", COL_INT },
	{ "calls", COL_INT }, { "total_ms", COL_NUM }, { "self_ms", COL_NUM },
	{ "kept", COL_STR },
};

/* One word for what the analysis concluded (docs/reports.md). */
static const char *function_status(const cgm_model *model, int i, const bool *uncalled)
{
	const cgm_function *f = &model->functions[i];
	if (f->runtime.calls > 0)
		return "called";
	if (model->has_runtime)
		return f->dead ? "dead"
		       : f->cold ? "cold"
		       : f->verdict != CGM_VERDICT_NONE ? cgm_verdict_name(f->verdict)
		       : f->reachable ? "reachable"
		       : "unobserved";
	if (uncalled[i])
		return "uncalled";
	return f->reachable ? "reachable" : "unreachable";
}

static void build_functions(table *t, const cgm_model *model)
{
	t->title = "Functions";
	t->cols = function_columns;
	t->ncols = 13;
	bool *uncalled = cgm_xcalloc(sizeof(bool) * (size_t)(model->nfunctions + 1), 1);
	cgm_functions_uncalled(uncalled, model);
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		bool observed = model->has_runtime;
		row *r = table_add(t);
		r->cells[0] = xstrdup(f->id);
		function_place_cells(r->cells, f);
		r->cells[4] = xstrdup(function_status(model, i, uncalled));
		r->cells[5] = bool_cell(f->root);
		r->cells[6] = bool_cell(f->observed_entry);
		r->cells[7] = bool_cell(f->referenced);
		r->cells[8] = f->scc >= 0 ? int_cell(f->scc) : NULL;
		if (observed) {
			r->cells[9] = int_cell(f->runtime.calls);
			r->cells[10] = num_cell(f->runtime.total_ms);
			r->cells[11] = num_cell(f->runtime.self_ms);
		}
		if (f->kept)
			r->cells[12] = xstrdup(f->kept);
		cgm_strbuf line = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&line, "%s %s", f->id, r->cells[4]);
		if (f->root)
			cgm_strbuf_puts(&line, " root");
		if (f->observed_entry)
			cgm_strbuf_puts(&line, " entry");
		if (f->referenced)
			cgm_strbuf_puts(&line, " referenced");
		if (f->scc >= 0)
			cgm_strbuf_printf(&line, " scc %d", f->scc);
		if (observed)
			cgm_strbuf_printf(&line, " calls %lld", (long long)f->runtime.calls);
		if (f->kept)
			cgm_strbuf_printf(&line, " kept: %s", f->kept);
		r->text = xstrdup(cgm_strbuf_cstr(&line));
		cgm_strbuf_free(&line);
	}
	free(uncalled);
}

static const column recursion_columns[] = {
	{ "component", COL_INT }, { "size", COL_INT }, { "functions", COL_STR },
	{ "status", COL_STR }, { "calls", COL_INT },
};

/* One row per recursive component, members in id order; the status says
 * whether the cycle was entered at runtime. */
static void build_recursion(table *t, const cgm_model *model)
{
	t->title = "Recursive components";
	t->cols = recursion_columns;
	t->ncols = 5;
	int ncomponents = 0;
	for (int i = 0; i < model->nuser; i++)
		if (model->functions[i].scc + 1 > ncomponents)
			ncomponents = model->functions[i].scc + 1;
	bool *uncalled = cgm_xcalloc(sizeof(bool) * (size_t)(model->nfunctions + 1), 1);
	cgm_functions_uncalled(uncalled, model);
	for (int c = 0; c < ncomponents; c++) {
		cgm_strbuf members = CGM_STRBUF_INIT;
		int size = 0, ndead = 0, nuncalled = 0;
		int64_t calls = 0;
		for (int i = 0; i < model->nuser; i++) {
			const cgm_function *f = &model->functions[i];
			if (f->scc != c)
				continue;
			cgm_strbuf_printf(&members, "%s%s", size ? " " : "", f->id);
			size++;
			bool held = false;
			calls = cgm_count_add(calls, f->runtime.calls, &held);
			ndead += f->dead;
			nuncalled += uncalled[i];
		}
		if (!size)
			continue;
		const char *status = calls > 0			? "called"
				     : !model->has_runtime	? (nuncalled == size ? "uncalled" : "has callers")
				     : ndead == size		? "dead"
							: "cold";
		row *r = table_add(t);
		r->cells[0] = int_cell(c);
		r->cells[1] = int_cell(size);
		r->cells[2] = xstrdup(cgm_strbuf_cstr(&members));
		r->cells[3] = xstrdup(status);
		r->cells[4] = model->has_runtime ? int_cell(calls) : NULL;
		if (model->has_runtime)
			r->text = xprintf("component %d: %s %s calls %lld", c, r->cells[2], status,
					  (long long)calls);
		else
			r->text = xprintf("component %d: %s %s", c, r->cells[2], status);
		cgm_strbuf_free(&members);
	}
	free(uncalled);
}

/* ---- rendering ---- */

static bool is_analysis(cgm_report_kind kind)
{
	return kind != CGM_REPORT_EDGES && kind != CGM_REPORT_FUNCTIONS;
}

/* A note that begins by saying there is no runtime data says it once. */
static bool note_says_no_runtime(const table *t)
{
	return t->note && strncmp(t->note, "no runtime data", 15) == 0;
}

static void render_text(cgm_strbuf *out, const table *t, const cgm_model *model,
			cgm_report_kind kind)
{
	if (is_analysis(kind)) {
		cgm_strbuf_printf(out, "# %s: %d\n", t->title, t->nrows);
		if (model->has_runtime) {
			cgm_strbuf_puts(out, "# runtime data covers ");
			cgm_escape_text(out, window_text(model));
			cgm_strbuf_putc(out, '\n');
		} else if (!note_says_no_runtime(t)) {
			cgm_strbuf_puts(out, "# no runtime data\n");
		}
		if (t->note) {
			cgm_strbuf_puts(out, "# ");
			cgm_escape_text(out, t->note);
			cgm_strbuf_putc(out, '\n');
		}
	}
	/* A row is one line: names in it cannot break it, move the cursor or
	 * turn the text around (cgm_escape_text). */
	for (int i = 0; i < t->nrows; i++) {
		cgm_escape_text(out, t->rows[i].text);
		cgm_strbuf_putc(out, '\n');
	}
}

static void csv_field(cgm_strbuf *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
		cgm_strbuf_puts(out, s);
		return;
	}
	cgm_strbuf_putc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			cgm_strbuf_putc(out, '"');
		cgm_strbuf_putc(out, *s);
	}
	cgm_strbuf_putc(out, '"');
}

static void render_csv(cgm_strbuf *out, const table *t)
{
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			cgm_strbuf_putc(out, ',');
		cgm_strbuf_puts(out, t->cols[c].name);
	}
	cgm_strbuf_puts(out, "\r\n");
	for (int i = 0; i < t->nrows; i++) {
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				cgm_strbuf_putc(out, ',');
			csv_field(out, t->rows[i].cells[c]);
		}
		cgm_strbuf_puts(out, "\r\n");
	}
}

static void render_markdown(cgm_strbuf *out, const table *t, const cgm_model *model)
{
	cgm_strbuf_printf(out, "## %s (%d)\n\n", t->title, t->nrows);
	if (model->has_runtime) {
		cgm_strbuf_puts(out, "Runtime data covers ");
		cgm_escape_markdown(out, window_text(model));
		cgm_strbuf_puts(out, ".\n\n");
	} else if (note_says_no_runtime(t)) {
		cgm_strbuf_puts(out, "No runtime data");
		cgm_escape_markdown(out, t->note + 15);
		cgm_strbuf_puts(out, ".\n\n");
	} else {
		cgm_strbuf_puts(out, "No runtime data.\n\n");
	}
	if (t->note && !note_says_no_runtime(t)) {
		cgm_escape_markdown(out, t->note);
		cgm_strbuf_puts(out, ".\n\n");
	}
	if (!t->nrows) {
		cgm_strbuf_puts(out, "None.\n");
		return;
	}
	cgm_strbuf_puts(out, "|");
	for (int c = 0; c < t->ncols; c++)
		cgm_strbuf_printf(out, " %s |", t->cols[c].name);
	cgm_strbuf_puts(out, "\n|");
	for (int c = 0; c < t->ncols; c++)
		cgm_strbuf_puts(out, t->cols[c].type == COL_STR ? "---|" : "--:|");
	cgm_strbuf_puts(out, "\n");
	for (int i = 0; i < t->nrows; i++) {
		cgm_strbuf_puts(out, "|");
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = t->rows[i].cells[c];
			cgm_strbuf_putc(out, ' ');
			if (cell)
				cgm_escape_markdown(out, cell);
			cgm_strbuf_puts(out, " |");
		}
		cgm_strbuf_puts(out, "\n");
	}
}

static void json_string(cgm_strbuf *out, const char *s)
{
	if (!s) {
		cgm_strbuf_puts(out, "null");
		return;
	}
	cgm_strbuf_putc(out, '"');
	cgm_escape_json(out, s);
	cgm_strbuf_putc(out, '"');
}

static void render_json(cgm_strbuf *out, const table *t, const cgm_model *model,
			cgm_report_kind kind, const char *kind_name)
{
	cgm_strbuf_puts(out, "{\n  \"report\": ");
	json_string(out, kind_name);
	cgm_strbuf_printf(out, ",\n  \"runtime\": %s,\n  \"window\": ",
			  model->has_runtime ? "true" : "false");
	json_string(out, model->has_runtime ? window_text(model) : NULL);
	cgm_strbuf_puts(out, ",\n  \"note\": ");
	json_string(out, t->note);
	cgm_strbuf_printf(out, ",\n  \"count\": %d,\n  \"rows\": [", t->nrows);
	for (int i = 0; i < t->nrows; i++) {
		cgm_strbuf_puts(out, i ? ",\n    {" : "\n    {");
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = t->rows[i].cells[c];
			cgm_strbuf_printf(out, "%s\"%s\": ", c ? ", " : "", t->cols[c].name);
			if (!cell)
				cgm_strbuf_puts(out, "null");
			else if (t->cols[c].type == COL_STR)
				json_string(out, cell);
			else
				cgm_strbuf_puts(out, cell);
		}
		cgm_strbuf_puts(out, "}");
	}
	cgm_strbuf_puts(out, t->nrows ? "\n  ]\n}\n" : "]\n}\n");
	(void)kind;
}

static const char *const kind_names[] = { "dead",	    "cold",	 "dynamic",
					  "unexplained", "missing",	 "edges",
					  "functions",   "recursion", "profile",
					  "paths",	    "timeline",	 "shapes" };
static const char *const format_names[] = { "text", "csv", "markdown", "json" };

int cgm_report_kind_parse(cgm_report_kind *out, const char *name)
{
	for (size_t i = 0; name && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*out = (cgm_report_kind)i;
			return 0;
		}
	return cgm_error(CGM_EUSAGE, "unknown report '%s' (dead, cold, dynamic, unexplained, "
				     "missing, edges, functions, recursion, profile, paths, "
				     "timeline, shapes)", name ? name : "");
}

int cgm_report_format_parse(cgm_report_format *out, const char *name)
{
	for (size_t i = 0; name && i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(name, format_names[i]) == 0) {
			*out = (cgm_report_format)i;
			return 0;
		}
	return cgm_error(CGM_EUSAGE, "unknown report format '%s' (text, csv, markdown, json)",
			 name ? name : "");
}

int cgm_report_write(cgm_strbuf *out, const cgm_model *model, cgm_report_kind kind,
		     cgm_report_format format)
{
	table t;
	memset(&t, 0, sizeof(t));
	switch (kind) {
	case CGM_REPORT_DEAD: build_dead(&t, model); break;
	case CGM_REPORT_COLD: build_cold(&t, model); break;
	case CGM_REPORT_DYNAMIC: build_dynamic(&t, model); break;
	case CGM_REPORT_UNEXPLAINED: build_unexplained(&t, model); break;
	case CGM_REPORT_MISSING: build_missing(&t, model); break;
	case CGM_REPORT_EDGES: build_edges(&t, model); break;
	case CGM_REPORT_FUNCTIONS: build_functions(&t, model); break;
	case CGM_REPORT_RECURSION: build_recursion(&t, model); break;
	case CGM_REPORT_PROFILE:
	case CGM_REPORT_PATHS:
	case CGM_REPORT_TIMELINE:
	case CGM_REPORT_SHAPES: cgm_report_build_profile(&t, model, kind, format); break;
	default: return cgm_error(CGM_EUSAGE, "unknown report kind %d", (int)kind);
	}
	switch (format) {
	case CGM_FORMAT_TEXT: render_text(out, &t, model, kind); break;
	case CGM_FORMAT_CSV: render_csv(out, &t); break;
	case CGM_FORMAT_MARKDOWN: render_markdown(out, &t, model); break;
	case CGM_FORMAT_JSON: render_json(out, &t, model, kind, kind_names[kind]); break;
	default:
		table_free(&t);
		return cgm_error(CGM_EUSAGE, "unknown report format %d", (int)format);
	}
	table_free(&t);
	return 0;
}
