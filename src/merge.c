/*
 * merge.c - runtime data joins the static graph.
 *
 * In:  an indexed model with its static edges (after resolve, or read from
 *      a snapshot) and a cgm_runtime (runtime_file.c).
 * Out: edges with provenance static / observed / both and their figures;
 *      new observed edges (via "dynamic" when a PL/pgSQL dynamic site made
 *      them, else unexplained); function figures and observed_entry;
 *      model->has_runtime, runtime_window, runtime_sources; cgmap_trace
 *      1.3's paths, shapes and timeline (src/runtime_paths.c); cgmap_trace
 *      1.4's runs of dynamic statements on the dynamic sites of their line
 *      (site->rare->runs, model->has_site_runs); cgmap_trace 1.5's calls of
 *      dropped functions in the figures of the function they count for
 *      now (no edge: the caller or the callee is gone); diagnostics for
 *      every observed function that is not in the model.  Everything kept
 *      is copied into model->arena; scratch tables are malloc'd and freed.
 *
 * An observed call seen against another body of the caller than the mapped
 * one (its caller_body version differs from the function's body_version:
 * the function was replaced since) has a line that means nothing in the
 * mapped body: it lands on a static edge caller -> callee of any line and
 * mechanism, else (made by EXECUTE, the caller has dynamic sites) on a
 * dynamic edge without a line, else on a new observed-only edge without a
 * line; each such edge is marked earlier_body (cause "changed body"),
 * except an observed-only edge that a call of the mapped body also landed
 * on unexplained (step 6): that stays a possible miss.
 * Otherwise (versions equal or one unknown) it lands, in order
 * (docs/runtime-data.md):
 *   1. the static edges caller -> callee with a call site at the observed
 *      line (each of them when mechanisms share the line: the data does
 *      not say which ran, observe_at_line);
 *   2. a dynamic site of the caller at the observed line ("dynamic, observed");
 *   3. any static edge caller -> callee (the data has no line, or PL/pgSQL
 *      counted the statement's line where cgmap counted the call's);
 *   4. when the call came from EXECUTE (or nothing says where it came from)
 *      and the caller has dynamic sites: the nearest of them, or all of them
 *      when no line is known;
 *   5. a static path caller -> y -> callee through exactly one SQL function
 *      y, which the planner inlined into the caller's query: both edges;
 *   6. otherwise a new observed-only edge: unexplained, a static miss.
 * A function's figures come, per source, from its per-function statistics
 * when the source has them (pg_stat_user_functions), else from the sum of
 * its observed incoming edges and entry calls.  Several sources are summed.
 * Last, an aggregate, which nothing calls through fmgr, is observed through
 * its support functions: a caller's static edges to it where that caller's
 * edges `via aggregate` to its support functions were observed, and its
 * figures from those (observe_aggregates).
 */
#include "cgmap/runtime.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/verdict.h"

/* (from, to) -> edges, chained; grows with the edges merge adds. */
typedef struct {
	int *head;   /* nslots, -1 empty: first edge of the chain */
	int *next;   /* per edge */
	int nslots, cap_next;
	int *out_start; /* static edges leaving function f: out_edge[out_start[f]..out_start[f+1]) */
	int *out_edge;
	/* Whose figures were held at the limit and said so (once each). */
	bool *said_fn;       /* per function */
	bool *said_edge;     /* per edge, grown as edges are added */
	int cap_said_edge;
	/* Observed-only call edges a call of the mapped body (or of an unknown
	 * one) landed on: an earlier body does not explain them away. */
	bool *current_miss;  /* per edge, grown as edges are added */
	int cap_current_miss;
} edge_index;

/* Add figures of several sources without overflow: a sum past the limit is
 * held there (cgm_runtime_stats_add), and said once per function or edge
 * (*said remembers it; `to_id` NULL: the figures of function `from_id`). */
static void add_stats(cgm_model *model, bool *said, cgm_runtime_stats *to,
		      const cgm_runtime_stats *from, const char *from_id, const char *to_id)
{
	if (!cgm_runtime_stats_add(to, from) || *said)
		return;
	*said = true;
	const char *subject = to_id ? cgm_arena_printf(model->arena, "edge \"%s\" -> \"%s\"", from_id, to_id)
				    : cgm_arena_printf(model->arena, "\"%s\"", from_id);
	cgm_diagnostic *d = cgm_model_add_diagnostic(model);
	d->message = cgm_arena_printf(model->arena,
				      "runtime figures of %s add up past what cgmap counts (%" PRId64
				      " calls, %.0f ms): held at that limit",
				      subject, INT64_MAX, CGM_STATS_MAX_MS);
}

static bool *edge_current_miss(edge_index *ix, int e)
{
	if (e >= ix->cap_current_miss) {
		int cap = e * 2 + 64;
		ix->current_miss = cgm_xrealloc(ix->current_miss, sizeof(bool) * (size_t)cap);
		memset(ix->current_miss + ix->cap_current_miss, 0,
		       sizeof(bool) * (size_t)(cap - ix->cap_current_miss));
		ix->cap_current_miss = cap;
	}
	return &ix->current_miss[e];
}

static bool *edge_said(edge_index *ix, int e)
{
	if (e >= ix->cap_said_edge) {
		int cap = e * 2 + 64;
		ix->said_edge = cgm_xrealloc(ix->said_edge, sizeof(bool) * (size_t)cap);
		memset(ix->said_edge + ix->cap_said_edge, 0, sizeof(bool) * (size_t)(cap - ix->cap_said_edge));
		ix->cap_said_edge = cap;
	}
	return &ix->said_edge[e];
}

static size_t pair_slot(const edge_index *ix, int from, int to)
{
	uint64_t h = (uint64_t)(uint32_t)from * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)to;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return (size_t)(h >> 17) & ((size_t)ix->nslots - 1);
}

static void edge_index_add(edge_index *ix, const cgm_model *model, int e)
{
	if (e >= ix->cap_next) {
		int cap = ix->cap_next ? ix->cap_next * 2 : 256;
		while (cap <= e)
			cap *= 2;
		int *next = realloc(ix->next, sizeof(int) * (size_t)cap);
		if (!next) {
			fprintf(stderr, "cgmap: out of memory\n");
			abort();
		}
		ix->next = next;
		ix->cap_next = cap;
	}
	size_t s = pair_slot(ix, model->edges[e].from, model->edges[e].to);
	ix->next[e] = ix->head[s];
	ix->head[s] = e;
}

static void edge_index_build(edge_index *ix, const cgm_model *model, int room)
{
	ix->nslots = 256;
	while (ix->nslots < (model->nedges + room) * 2)
		ix->nslots *= 2;
	ix->head = cgm_xcalloc((size_t)ix->nslots, sizeof(int));
	for (int i = 0; i < ix->nslots; i++)
		ix->head[i] = -1;
	ix->next = NULL;
	ix->cap_next = 0;
	ix->said_fn = cgm_xcalloc((size_t)model->nfunctions + 1, sizeof(bool));
	ix->said_edge = NULL;
	ix->cap_said_edge = 0;
	ix->current_miss = NULL;
	ix->cap_current_miss = 0;
	for (int e = 0; e < model->nedges; e++)
		edge_index_add(ix, model, e);
	int n = model->nfunctions;
	ix->out_start = cgm_xcalloc((size_t)n + 1, sizeof(int));
	ix->out_edge = cgm_xcalloc((size_t)model->nedges + 1, sizeof(int));
	for (int e = 0; e < model->nedges; e++)
		if (model->edges[e].provenance & CGM_EDGE_STATIC)
			ix->out_start[model->edges[e].from + 1]++;
	for (int f = 0; f < n; f++)
		ix->out_start[f + 1] += ix->out_start[f];
	int *fill = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int e = 0; e < model->nedges; e++)
		if (model->edges[e].provenance & CGM_EDGE_STATIC) {
			int f = model->edges[e].from;
			ix->out_edge[ix->out_start[f] + fill[f]++] = e;
		}
	free(fill);
}

static void edge_index_free(edge_index *ix)
{
	free(ix->out_start);
	free(ix->out_edge);
	free(ix->head);
	free(ix->next);
	free(ix->said_fn);
	free(ix->said_edge);
	free(ix->current_miss);
}

static bool has_line(const cgm_edge *e, int line)
{
	for (int i = 0; i < e->nlines; i++)
		if (e->lines[i] == line)
			return true;
	return false;
}

static void add_line(cgm_model *model, cgm_edge *e, int line)
{
	if (line <= 0 || has_line(e, line))
		return;
	int *lines = cgm_arena_alloc(model->arena, sizeof(int) * (size_t)(e->nlines + 1));
	int k = 0, j = 0;
	while (k < e->nlines && e->lines[k] < line)
		lines[j++] = e->lines[k++];
	lines[j++] = line;
	while (k < e->nlines)
		lines[j++] = e->lines[k++];
	e->lines = lines;
	e->nlines++;
}

/* The edge (from, to, via), created observed-only when absent. */
static cgm_edge *edge_for(cgm_model *model, edge_index *ix, int from, int to, cgm_via via)
{
	for (int e = ix->head[pair_slot(ix, from, to)]; e >= 0; e = ix->next[e]) {
		cgm_edge *edge = &model->edges[e];
		if (edge->from == from && edge->to == to && edge->via == via)
			return edge;
	}
	cgm_edge *edge = cgm_model_add_edge(model);
	edge->from = from;
	edge->to = to;
	edge->via = via;
	edge_index_add(ix, model, model->nedges - 1);
	return edge;
}

static cgm_edge *static_edge(cgm_model *model, edge_index *ix, int from, int to, int line)
{
	cgm_edge *any = NULL;
	for (int e = ix->head[pair_slot(ix, from, to)]; e >= 0; e = ix->next[e]) {
		cgm_edge *edge = &model->edges[e];
		if (edge->from != from || edge->to != to || !(edge->provenance & CGM_EDGE_STATIC))
			continue;
		if (line > 0 && has_line(edge, line))
			return edge;
		/* The lowest edge index of the pair: the order resolve made. */
		if (line <= 0 && (!any || edge < any))
			any = edge;
	}
	return any;
}

/* The static edge caller -> callee of a call written in the expression of
 * dynamic site `dyn` (same statement, on its line or a later one before any
 * other statement), or NULL. */
static cgm_edge *argument_call(cgm_model *model, edge_index *ix, int caller, int callee, int dyn)
{
	const cgm_function *f = &model->functions[caller];
	const cgm_site *d = &f->sites[dyn];
	int next_stmt = 0; /* first line of a later statement's site, 0 none */
	for (int s = 0; s < f->nsites; s++) {
		const cgm_site *o = &f->sites[s];
		bool same = o->stmt && d->stmt && strcmp(o->stmt, d->stmt) == 0;
		if (o->line > d->line && (!same || o->kind == CGM_SITE_DYNAMIC) &&
		    (!next_stmt || o->line < next_stmt))
			next_stmt = o->line;
	}
	for (int s = 0; s < f->nsites; s++) {
		const cgm_site *o = &f->sites[s];
		if (o->kind == CGM_SITE_DYNAMIC || o->line < d->line ||
		    (next_stmt && o->line >= next_stmt) || !o->stmt || !d->stmt ||
		    strcmp(o->stmt, d->stmt) != 0)
			continue;
		bool targets = false;
		for (int t = 0; t < o->ntargets; t++)
			targets |= o->targets[t] == callee;
		cgm_edge *edge;
		if (targets && (edge = static_edge(model, ix, caller, callee, o->line)))
			return edge;
	}
	return NULL;
}

/* Keep the caller body version a call was seen against (sorted, distinct). */
static void add_caller_body(cgm_model *model, cgm_edge *e, const char *version)
{
	cgm_edge_rare *x = cgm_edge_rare_of(model->arena, e);
	int k = 0;
	while (k < x->ncaller_bodies && strcmp(x->caller_bodies[k], version) < 0)
		k++;
	if (k < x->ncaller_bodies && strcmp(x->caller_bodies[k], version) == 0)
		return;
	const char **list = cgm_arena_alloc(model->arena,
					    sizeof(char *) * (size_t)(x->ncaller_bodies + 1));
	for (int i = 0; i < k; i++)
		list[i] = x->caller_bodies[i];
	list[k] = cgm_arena_strdup(model->arena, version);
	for (int i = k; i < x->ncaller_bodies; i++)
		list[i + 1] = x->caller_bodies[i];
	x->caller_bodies = list;
	x->ncaller_bodies++;
}

static void observe(cgm_model *model, edge_index *ix, cgm_edge *edge, const cgm_runtime_edge *row)
{
	edge->provenance |= CGM_EDGE_OBSERVED;
	if (row->caller_body)
		add_caller_body(model, edge, row->caller_body);
	add_stats(model, edge_said(ix, (int)(edge - model->edges)),
		  &cgm_edge_rare_of(model->arena, edge)->runtime, &row->stats,
		  model->functions[edge->from].id, model->functions[edge->to].id);
}

/* Every static edge caller -> callee with a call site at the row's line:
 * the call data names no mechanism, so two of them at one line (two
 * indexes, or two triggers, running the same function for one INSERT)
 * cannot be told apart, and each is observed with the line's calls; the
 * callee's own figures count the row once.  How many there were. */
static int observe_at_line(cgm_model *model, edge_index *ix, int caller, int callee,
			   const cgm_runtime_edge *row)
{
	int n = 0;
	for (int e = ix->head[pair_slot(ix, caller, callee)]; e >= 0; e = ix->next[e]) {
		cgm_edge *edge = &model->edges[e];
		if (edge->from == caller && edge->to == callee &&
		    (edge->provenance & CGM_EDGE_STATIC) && has_line(edge, row->site_line)) {
			observe(model, ix, edge, row);
			n++;
		}
	}
	return n;
}

/* The call was seen against an earlier body than the mapped one: match
 * by callee only (see the opening comment). */
static void attach_earlier_body(cgm_model *model, edge_index *ix, int caller, int callee,
				const cgm_runtime_edge *row)
{
	const cgm_function *f = &model->functions[caller];
	cgm_edge *edge = static_edge(model, ix, caller, callee, 0);
	if (!edge) {
		bool dynamic_sites = false;
		for (int s = 0; s < f->nsites; s++)
			dynamic_sites |= f->sites[s].kind == CGM_SITE_DYNAMIC;
		edge = edge_for(model, ix, caller, callee,
				row->dynamic && dynamic_sites ? CGM_VIA_DYNAMIC : CGM_VIA_CALL);
	}
	cgm_edge_rare_of(model->arena, edge)->earlier_body = true;
	observe(model, ix, edge, row);
}

static void attach(cgm_model *model, edge_index *ix, int caller, int callee,
		   const cgm_runtime_edge *row)
{
	int line = row->site_line;
	const cgm_function *f = &model->functions[caller];
	cgm_edge *edge;

	if (row->caller_body && f->body_version && strcmp(row->caller_body, f->body_version) != 0) {
		attach_earlier_body(model, ix, caller, callee, row);
		return;
	}

	if (line > 0 && observe_at_line(model, ix, caller, callee, row))
		return;
	int ndynamic = 0, nearest = -1;
	for (int s = 0; s < f->nsites; s++) {
		if (f->sites[s].kind != CGM_SITE_DYNAMIC)
			continue;
		ndynamic++;
		int d = abs(f->sites[s].line - line);
		if (nearest < 0 || d < abs(f->sites[nearest].line - line))
			nearest = s;
	}
	/* A call in the EXECUTE's own arguments (`EXECUTE format('...',\n f())`)
	 * runs before the dynamic SQL does, but PL/pgSQL reports the EXECUTE's
	 * line: it is the static call of that statement, wherever it stands. */
	if (line > 0 && nearest >= 0 && f->sites[nearest].line == line &&
	    (edge = argument_call(model, ix, caller, callee, nearest))) {
		observe(model, ix, edge, row);
		return;
	}
	if (line > 0 && nearest >= 0 && f->sites[nearest].line == line) {
		edge = edge_for(model, ix, caller, callee, CGM_VIA_DYNAMIC);
		add_line(model, edge, line);
		observe(model, ix, edge, row);
		return;
	}
	if ((edge = static_edge(model, ix, caller, callee, 0))) {
		observe(model, ix, edge, row);
		return;
	}
	if (ndynamic && (row->dynamic || line <= 0)) {
		f = &model->functions[caller];
		edge = edge_for(model, ix, caller, callee, CGM_VIA_DYNAMIC);
		if (line > 0) {
			add_line(model, edge, f->sites[nearest].line);
		} else {
			for (int s = 0; s < f->nsites; s++)
				if (f->sites[s].kind == CGM_SITE_DYNAMIC)
					add_line(model, edge, f->sites[s].line);
		}
		observe(model, ix, edge, row);
		return;
	}
	/* Through an inlined SQL function: statically caller -> y -> callee
	 * with y in SQL, which the planner may inline into the caller's query;
	 * then the call of the callee is seen as the caller's.  Only when one
	 * such y exists. */
	int through = -1, count = 0;
	int first = -1, second = -1;
	for (int k = ix->out_start[caller]; k < ix->out_start[caller + 1]; k++) {
		const cgm_edge *e1 = &model->edges[ix->out_edge[k]];
		const cgm_function *y = &model->functions[e1->to];
		if (e1->to == through || !y->language || strcmp(y->language, "sql") != 0)
			continue;
		cgm_edge *e2 = static_edge(model, ix, e1->to, callee, 0);
		if (!e2)
			continue;
		through = e1->to;
		count++;
		first = ix->out_edge[k];
		second = (int)(e2 - model->edges);
	}
	if (count == 1) {
		observe(model, ix, &model->edges[first], row);
		observe(model, ix, &model->edges[second], row);
		return;
	}
	edge = edge_for(model, ix, caller, callee, CGM_VIA_CALL);
	add_line(model, edge, line);
	*edge_current_miss(ix, (int)(edge - model->edges)) = true;
	observe(model, ix, edge, row);
}

/* An aggregate is never called through fmgr: PostgreSQL runs its support
 * functions (transition per row, final per group, ...) from the executor,
 * and cgmap_trace sees those called by the caller.  So when a caller's
 * static edge `via aggregate` to a support function of aggregate A was
 * observed, A ran from that caller: its static edges caller -> A are
 * observed too, with the most calls of that caller's observed support edges
 * of A (the transition's, once per row aggregated: the same figure
 * cgm_function_calls gives the aggregate) and their summed total time (the
 * time in A's functions), no self time (A runs nothing of its own that
 * fmgr times).  A gets those figures, once per caller, and the most of
 * its support functions' entry calls (`entry`: called by a client
 * statement, no caller) for the support functions of A alone: a shared
 * one's entry calls name no aggregate.  An aggregate whose support
 * functions are builtins (never traced: cgmap_trace records functions
 * above the initdb range only) gets nothing here and stays as the verdict
 * code judges it (untraceable). */
static void observe_aggregates(cgm_model *model, edge_index *ix, const cgm_runtime_stats *entry)
{
	static const char prefix[] = "aggregate ";
	const size_t plen = sizeof(prefix) - 1;
	for (int f = 0; f < model->nfunctions; f++) {
		for (int k = ix->out_start[f]; k < ix->out_start[f + 1]; k++) {
			const cgm_edge *e = &model->edges[ix->out_edge[k]];
			if (e->via != CGM_VIA_AGGREGATE || !(e->provenance & CGM_EDGE_OBSERVED) ||
			    !e->object || strncmp(e->object, prefix, plen) != 0)
				continue;
			/* Once per (caller, aggregate): at its first observed
			 * support edge. */
			bool seen = false;
			for (int j = ix->out_start[f]; j < k && !seen; j++) {
				const cgm_edge *o = &model->edges[ix->out_edge[j]];
				seen = o->via == CGM_VIA_AGGREGATE && (o->provenance & CGM_EDGE_OBSERVED) &&
				       o->object && strcmp(o->object, e->object) == 0;
			}
			int agg = cgm_model_find(model, e->object + plen);
			if (seen || agg < 0)
				continue;
			cgm_runtime_stats ran = { 0 };
			for (int j = k; j < ix->out_start[f + 1]; j++) {
				const cgm_edge *o = &model->edges[ix->out_edge[j]];
				if (o->via != CGM_VIA_AGGREGATE || !(o->provenance & CGM_EDGE_OBSERVED) ||
				    !o->object || strcmp(o->object, e->object) != 0)
					continue;
				const cgm_runtime_stats *r = cgm_edge_runtime(o);
				if (r->calls > ran.calls)
					ran.calls = r->calls;
				cgm_runtime_stats time = { .total_ms = r->total_ms };
				cgm_runtime_stats_add(&ran, &time);
			}
			bool any = false;
			for (int x = ix->head[pair_slot(ix, f, agg)]; x >= 0; x = ix->next[x]) {
				cgm_edge *to = &model->edges[x];
				if (to->from != f || to->to != agg || !(to->provenance & CGM_EDGE_STATIC))
					continue;
				to->provenance |= CGM_EDGE_OBSERVED;
				add_stats(model, edge_said(ix, x), &cgm_edge_rare_of(model->arena, to)->runtime,
					  &ran, model->functions[f].id, model->functions[agg].id);
				any = true;
			}
			if (any)
				add_stats(model, &ix->said_fn[agg], &model->functions[agg].runtime, &ran,
					  model->functions[agg].id, NULL);
		}
	}
	for (int a = 0; a < model->naggregates; a++) {
		const cgm_aggregate *agg = &model->aggregates[a];
		if (agg->aggregate < 0 || agg->aggregate >= model->nfunctions || !agg->support)
			continue;
		cgm_runtime_stats ran = { 0 };
		for (int s = 0; s < agg->nsupport; s++) {
			int sf = agg->support[s];
			if (sf < 0 || sf >= model->nfunctions || sf == agg->aggregate || !entry[sf].calls)
				continue;
			bool shared = false;
			for (int b = 0; b < model->naggregates && !shared; b++) {
				const cgm_aggregate *other = &model->aggregates[b];
				if (b == a || other->aggregate == agg->aggregate || !other->support)
					continue;
				for (int t = 0; t < other->nsupport && !shared; t++)
					shared = other->support[t] == sf;
			}
			if (shared)
				continue;
			if (entry[sf].calls > ran.calls)
				ran.calls = entry[sf].calls;
			cgm_runtime_stats time = { .total_ms = entry[sf].total_ms };
			cgm_runtime_stats_add(&ran, &time);
		}
		if (ran.calls > 0)
			add_stats(model, &ix->said_fn[agg->aggregate],
				  &model->functions[agg->aggregate].runtime, &ran,
				  model->functions[agg->aggregate].id, NULL);
	}
}

/* Observed ids the model does not know, counted, reported once each. */
typedef struct {
	const char *id;
	int rows;
} unknown_id;

typedef struct {
	unknown_id *items;
	int n, cap;
} unknown_list;

static void unknown_add(unknown_list *list, const char *id)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 32;
		unknown_id *items = realloc(list->items, sizeof(unknown_id) * (size_t)list->cap);
		if (!items) {
			fprintf(stderr, "cgmap: out of memory\n");
			abort();
		}
		list->items = items;
	}
	list->items[list->n++] = (unknown_id){ id, 1 };
}

static int compare_unknown(const void *a, const void *b)
{
	return strcmp(((const unknown_id *)a)->id, ((const unknown_id *)b)->id);
}

static void unknown_report(cgm_model *model, unknown_list *list)
{
	if (list->n)
		qsort(list->items, (size_t)list->n, sizeof(unknown_id), compare_unknown);
	for (int i = 0; i < list->n;) {
		int j = i, rows = 0;
		while (j < list->n && strcmp(list->items[j].id, list->items[i].id) == 0)
			rows += list->items[j++].rows;
		cgm_diagnostic *d = cgm_model_add_diagnostic(model);
		d->message = cgm_arena_printf(model->arena,
					      "function '%s' was observed at runtime but is not in "
					      "the mapped model (%d runtime row%s ignored)",
					      list->items[i].id, rows, rows == 1 ? "" : "s");
		i = j;
	}
	free(list->items);
}

/* "database shop", "file run.json, database shop@db1:5432", "log server.log, database shop" */
static void source_label(cgm_strbuf *out, const cgm_runtime_source *src)
{
	cgm_strbuf_printf(out, "%s %s", src->kind, src->name);
	if (src->database && strcmp(src->kind, "database") != 0)
		cgm_strbuf_printf(out, ", database %s", src->database);
}

/* "LABEL: WHAT"; cgm_runtime_has_edges() reads WHAT back. */
static const char *source_line(cgm_arena *arena, const cgm_runtime_source *src)
{
	bool db = strcmp(src->kind, "database") == 0;
	const char *what = src->has_trace && src->has_function_stats
				   ? (db ? "cgmap_trace, pg_stat_user_functions"
					 : "call edges and function statistics")
			   : src->has_trace ? (db ? "cgmap_trace" : "call edges")
			   : src->has_function_stats
				   ? (db ? "pg_stat_user_functions" : "function statistics")
				   : (db ? "no data (track_functions is none)" : "no data");
	cgm_strbuf b = CGM_STRBUF_INIT;
	source_label(&b, src);
	cgm_strbuf_printf(&b, ": %s", what);
	const char *line = cgm_arena_strdup(arena, cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return line;
}

static bool source_has_data(const cgm_runtime_source *src)
{
	return src->has_trace || src->has_function_stats;
}

static const char *node_id(const cgm_model *model, int fn)
{
	return fn >= 0 && fn < model->nfunctions ? model->functions[fn].id : "";
}

static int compare_edges_by_id(const void *a, const void *b, void *arg)
{
	const cgm_model *model = arg;
	const cgm_edge *x = a, *y = b;
	int c = strcmp(node_id(model, x->from), node_id(model, y->from));
	if (!c)
		c = strcmp(node_id(model, x->to), node_id(model, y->to));
	if (!c)
		c = cgm_edge_compare_kind(x, y);
	return c;
}

/* Who observed it: a server's system identifier, port and database when
 * known, else the name it was reached by (a file names the server collect
 * read).  Written into buf. */
static void source_identity(char *buf, size_t len, const cgm_runtime_source *src)
{
	const char *db = src->database ? src->database : "";
	size_t at = strcspn(db, "@");
	if (src->system_id)
		snprintf(buf, len, "%s:%s/%.*s", src->system_id, src->port ? src->port : "", (int)at,
			 db);
	else
		snprintf(buf, len, "name:%s",
			 strcmp(src->kind, "database") == 0 ? (src->name ? src->name : "") : db);
}

/* Counters are cumulative since `since`: two sources of one server whose
 * windows overlap saw the same calls, and the one that ends later holds
 * all the other has.  Marks the others duplicate (rt is the caller's, its
 * flag is scratch for this merge), with a diagnostic each. */
static void mark_duplicates(cgm_model *model, const cgm_runtime *rt)
{
	for (int a = 0; a < rt->nsources; a++) {
		cgm_runtime_source *x = &rt->sources[a];
		if (x->duplicate || strcmp(x->kind, "log") == 0 || (!x->has_trace && !x->has_function_stats))
			continue;
		char kx[512], ky[512];
		source_identity(kx, sizeof kx, x);
		for (int b = 0; b < rt->nsources; b++) {
			cgm_runtime_source *y = &rt->sources[b];
			if (b == a || y->duplicate || strcmp(y->kind, "log") == 0 ||
			    (!y->has_trace && !y->has_function_stats))
				continue;
			source_identity(ky, sizeof ky, y);
			if (strcmp(kx, ky) != 0)
				continue;
			/* Without a system identifier a name is all there is:
			 * then only the same start counts as the same window. */
			int64_t xs = cgm_time_parse(x->since), xu = cgm_time_parse(x->until);
			int64_t ys = cgm_time_parse(y->since), yu = cgm_time_parse(y->until);
			/* A window that took no second (counters read in the
			 * second they were reset) is the instant it names: the
			 * same observation as a window of that server holding
			 * it, not as one that starts where an earlier one ended
			 * (a --since delta). */
			bool x_in_y = xs == xu && ys <= xs && (xs < yu || (ys == yu && xs == ys));
			bool y_in_x = ys == yu && xs <= ys && (ys < xu || (xs == xu && xs == ys));
			bool overlap = x->system_id
					       ? (xs < 0 || ys < 0 || xu < 0 || yu < 0 || (xs < yu && ys < xu) ||
						  x_in_y || y_in_x)
					       : (x->since && y->since && strcmp(x->since, y->since) == 0);
			if (!overlap)
				continue;
			/* Keep the later end (then the earlier start, then the first). */
			bool keep_x = xu > yu || (xu == yu && (xs < ys || (xs == ys && a < b)));
			cgm_runtime_source *drop = keep_x ? y : x, *kept = keep_x ? x : y;
			drop->duplicate = true;
			cgm_diagnostic *d = cgm_model_add_diagnostic(model);
			cgm_strbuf b1 = CGM_STRBUF_INIT, b2 = CGM_STRBUF_INIT;
			source_label(&b1, drop);
			source_label(&b2, kept);
			d->message = cgm_arena_printf(model->arena,
						      "runtime %s saw the same server and window as %s: "
						      "counted once",
						      cgm_strbuf_cstr(&b1), cgm_strbuf_cstr(&b2));
			cgm_strbuf_free(&b1);
			cgm_strbuf_free(&b2);
			if (drop == x)
				break;
		}
	}
}

/* A dynamic statement's runs (cgmap_trace 1.4), on the dynamic sites of
 * its line, when they were counted against the body mapped (or a body
 * nobody versioned): an earlier body's line may be another statement. */
static void add_site_runs(cgm_model *model, int fn, const cgm_runtime_site_run *row, bool *held)
{
	cgm_function *f = &model->functions[fn];
	if (row->body && f->body_version && strcmp(row->body, f->body_version) != 0)
		return;
	for (int s = 0; s < f->nsites; s++) {
		cgm_site *site = &f->sites[s];
		if (site->kind != CGM_SITE_DYNAMIC || site->line != row->site_line)
			continue;
		/* Sites of a resolved body share equal rare records (resolve.c's
		 * keep_rare): this one gets its own before it is written. */
		cgm_site_rare *own = cgm_arena_alloc(model->arena, sizeof(*own));
		*own = *cgm_site_get_rare(site);
		own->runs = cgm_count_add(own->runs, row->runs, held);
		site->rare = own;
	}
}

int cgm_merge(cgm_model *model, const cgm_runtime *rt)
{
	for (int i = 0; i < rt->ndiagnostics; i++) {
		cgm_diagnostic *d = cgm_model_add_diagnostic(model);
		d->file = cgm_arena_strdup(model->arena, rt->diagnostics[i].file);
		d->line = rt->diagnostics[i].line;
		d->message = cgm_arena_strdup(model->arena, rt->diagnostics[i].message);
		d->detail = rt->diagnostics[i].detail;
	}
	if (!rt->nsources)
		return 0;

	/* Sources and window, appended to what the model already had. */
	int nsources = model->nruntime_sources + rt->nsources;
	const char **lines = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)nsources);
	for (int i = 0; i < model->nruntime_sources; i++)
		lines[i] = model->runtime_sources[i];
	cgm_strbuf window = CGM_STRBUF_INIT;
	if (model->runtime_window)
		cgm_strbuf_puts(&window, model->runtime_window);
	bool any = false;
	mark_duplicates(model, rt);
	for (int s = 0; s < rt->nsources; s++) {
		const cgm_runtime_source *src = &rt->sources[s];
		lines[model->nruntime_sources + s] = source_line(model->arena, src);
		if (!source_has_data(src) || src->duplicate)
			continue;
		any = true;
		model->has_site_runs |= src->has_site_runs;
		cgm_evidence_add_source(model, src);
		cgm_strbuf_printf(&window, "%s%s to %s (", window.len ? "; " : "",
				  src->since ? src->since : "an unknown start",
				  src->until ? src->until : "an unknown end");
		source_label(&window, src);
		cgm_strbuf_putc(&window, ')');
	}
	model->runtime_sources = lines;
	model->nruntime_sources = nsources;
	if (window.len)
		model->runtime_window = cgm_arena_strdup(model->arena, cgm_strbuf_cstr(&window));
	cgm_strbuf_free(&window);
	if (!any)
		return 0;
	model->has_runtime = true;
	if (cgm_merge_paths(model, rt))
		cgm_model_add_diagnostic(model)->message =
			"runtime call paths, shapes or timeline buckets add up past what cgmap "
			"counts (9223372036854775807 calls, 1000000000000000 ms): held at that limit";

	int n = model->nfunctions;
	int *stats_from = cgm_xcalloc((size_t)n, sizeof(int)); /* source + 1 with figures for it */
	int64_t *stat_calls = cgm_xcalloc((size_t)n + 1, sizeof(int64_t));  /* this source's */
	int64_t *trace_calls = cgm_xcalloc((size_t)n + 1, sizeof(int64_t)); /* this source's */
	/* Per function, its calls by client statements (no caller), all sources:
	 * an aggregate's from its support functions' (observe_aggregates). */
	cgm_runtime_stats *entry = cgm_xcalloc((size_t)n + 1, sizeof(cgm_runtime_stats));
	edge_index ix;
	edge_index_build(&ix, model, rt->nedges);
	unknown_list unknown = { 0 };
	bool held = false; /* a per-source count held at its limit: compared, never shown */
	for (int s = 0; s < rt->nsources; s++) {
		if (rt->sources[s].duplicate)
			continue;
		for (int i = 0; i < rt->nfunctions; i++) {
			const cgm_runtime_function *row = &rt->functions[i];
			if (row->source != s)
				continue;
			int fn = cgm_model_find(model, row->id);
			if (fn < 0) {
				/* Never called in the window: nothing lost. */
				if (row->stats.calls > 0)
					unknown_add(&unknown, row->id);
				continue;
			}
			add_stats(model, &ix.said_fn[fn], &model->functions[fn].runtime, &row->stats,
				  model->functions[fn].id, NULL);
			if (stats_from[fn] != s + 1)
				stat_calls[fn] = 0;
			stat_calls[fn] = cgm_count_add(stat_calls[fn], row->stats.calls, &held);
			trace_calls[fn] = 0;
			stats_from[fn] = s + 1;
		}
		for (int i = 0; i < rt->nedges; i++) {
			const cgm_runtime_edge *row = &rt->edges[i];
			if (row->source != s)
				continue;
			int callee = cgm_model_find(model, row->callee);
			int caller = row->caller ? cgm_model_find(model, row->caller) : -1;
			if (callee < 0)
				unknown_add(&unknown, row->callee);
			if (row->caller && caller < 0)
				unknown_add(&unknown, row->caller);
			if (callee < 0)
				continue;
			cgm_function *to = &model->functions[callee];
			/* A kept edge's calls are the callee's already, in its
			 * kept calls (rt->gone): it only says the edge ran. */
			if (row->kept)
				;
			else if (stats_from[callee] != s + 1)
				add_stats(model, &ix.said_fn[callee], &to->runtime, &row->stats, to->id, NULL);
			else
				trace_calls[callee] = cgm_count_add(trace_calls[callee], row->stats.calls, &held);
			if (!row->caller) {
				to->observed_entry = true;
				cgm_runtime_stats_add(&entry[callee], &row->stats);
				continue;
			}
			if (caller < 0)
				continue;
			/* pg_catalog functions only have edges when the map kept
			 * them (--include-builtins), like static ones. */
			bool builtin = model->functions[caller].builtin || to->builtin;
			if (builtin && !static_edge(model, &ix, caller, callee, 0))
				continue;
			attach(model, &ix, caller, callee, row);
		}
		/* cgmap_trace 1.5 kept the calls of the edges it removed with a
		 * dropped function: calls of an earlier function of the same
		 * identity (not in the statistics of the one created again), or
		 * of this one by callers dropped since (in its statistics too). */
		for (int i = 0; i < rt->ngone; i++) {
			const cgm_runtime_gone *row = &rt->gone[i];
			if (row->source != s)
				continue;
			int fn = cgm_model_find(model, row->function);
			if (fn < 0) {
				unknown_add(&unknown, row->function);
				continue;
			}
			cgm_function *to = &model->functions[fn];
			if (!row->identity && stats_from[fn] == s + 1)
				trace_calls[fn] = cgm_count_add(trace_calls[fn], row->stats.calls, &held);
			else
				add_stats(model, &ix.said_fn[fn], &to->runtime, &row->stats, to->id, NULL);
		}
		for (int i = 0; i < rt->nsite_runs; i++) {
			const cgm_runtime_site_run *row = &rt->site_runs[i];
			if (row->source != s)
				continue;
			int fn = cgm_model_find(model, row->function);
			if (fn < 0)
				unknown_add(&unknown, row->function);
			else
				add_site_runs(model, fn, row, &held);
		}
		/* pg_stat_user_functions does not count a call that ended in an
		 * error; the tracer does: the source's figure is the larger. */
		for (int fn = 0; fn < n; fn++)
			if (stats_from[fn] == s + 1 && trace_calls[fn] > stat_calls[fn]) {
				cgm_runtime_stats more = { .calls = trace_calls[fn] - stat_calls[fn] };
				add_stats(model, &ix.said_fn[fn], &model->functions[fn].runtime, &more,
					  model->functions[fn].id, NULL);
				trace_calls[fn] = 0;
				stat_calls[fn] = 0;
			}
	}
	observe_aggregates(model, &ix, entry);
	/* A call the mapped body makes that cgmap did not find stays
	 * unexplained on its own merits, whatever earlier bodies did. */
	for (int e = 0; e < model->nedges && e < ix.cap_current_miss; e++)
		if (ix.current_miss[e] && model->edges[e].rare)
			model->edges[e].rare->earlier_body = false;
	edge_index_free(&ix);
	free(stats_from);
	free(stat_calls);
	free(trace_calls);
	free(entry);
	unknown_report(model, &unknown);
	if (model->nedges > 1) /* none: edges may be NULL, which qsort_r must not get */
		qsort_r(model->edges, (size_t)model->nedges, sizeof(cgm_edge), compare_edges_by_id,
			model);
	return 0;
}

int cgm_runtime_apply(cgm_model *model, const cgm_runtime_options *opts)
{
	cgm_runtime *rt = cgm_runtime_new();
	int rc = 0;
	/* "" is libpq's "everything from the environment"; NULL: no database. */
	const char *dsn = opts->dsn                                 ? opts->dsn
			  : opts->from_database || !opts->no_runtime ? ""
								     : NULL;
	if (!opts->no_runtime && dsn)
		rc = cgm_runtime_load_pg(NULL, rt, dsn);
	for (int i = 0; rc == 0 && i < opts->nfiles; i++)
		rc = cgm_runtime_load_file(rt, opts->files[i]);
	rt->log_line_prefix = opts->log_line_prefix;
	for (int i = 0; rc == 0 && i < opts->nlogs; i++)
		rc = cgm_runtime_load_log(rt, opts->logs[i], dsn);
	if (rc == 0)
		rc = cgm_merge(model, rt);
	if (rc == 0 && opts->nlogs > 0 && model->npaths == 0) {
		/* Said once, so that an empty profile is not read as "nothing ran". */
		cgm_diagnostic *d = cgm_model_add_diagnostic(model);
		d->message = "runtime log lines carry calls between functions only: no call paths, "
			     "shapes or timeline (cgmap_trace 1.3 records them; read them with "
			     "--dsn or a cgmap collect file)";
	}
	cgm_runtime_free(rt);
	return rc;
}
