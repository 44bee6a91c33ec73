/*
 * diff_impact.c - the blast radius of each finding of `cgmap diff`: which
 * entry points reach the function it is about, with the calls observed
 * through them, and the findings derived from it (touches-hot-path,
 * dead-code-changed).
 *
 * In:  the diff with its findings, and the two models it compared (only
 *      read).  Out: each finding's entries (HEAD's, BASE's when HEAD has no
 *      such function), diff->affected, derived findings added through
 *      `add`; everything kept lives in diff->arena, scratch is freed here.
 *
 * The entry points are cgm_query_impact's (src/query.c): roots, and
 * functions no other function calls, found by the same walk over callers
 * (every edge, static or observed).  One walk per distinct function, over
 * that function's callers only: the callers of each function are listed
 * once per side, which function is an entry point is decided once per side,
 * and the walk's marks are told apart by a stamp instead of being cleared,
 * so a diff of N changed functions costs what their callers add up to, not
 * N times the graph (cgm_query_impact, which also finds each path's length
 * and provenance, would clear and walk arrays of the whole graph three
 * times per function).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/diff.h"
#include "cgmap/verdict.h"

typedef struct radius {
	const char *function; /* the finding's function id */
	bool from_base;
	int fn;               /* its index in its side's model, -1 when in neither */
	int nentries;
	cgm_diff_entry *entries;
	int64_t calls;
	const char *file;
	int file_line;
} radius;

static int compare_radius(const void *a, const void *b)
{
	const radius *x = a, *y = b;
	return strcmp(x->function, y->function);
}

static int compare_affected(const void *a, const void *b)
{
	const cgm_diff_entry *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	/* Without traffic (or at equal traffic), the widest reach first. */
	if (x->nfunctions != y->nfunctions)
		return x->nfunctions > y->nfunctions ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* One side's graph for the walks: each function's callers (the caller of
 * every edge into it, once per edge), which functions are entry points, and
 * the walk's scratch. */
typedef struct side_graph {
	const cgm_model *m;
	int n;
	int *in_start;  /* n + 1: callers[in_start[f] .. in_start[f + 1]) call f */
	int *callers;
	bool *entry;    /* cgm_query_is_entry: a root, or called by no other function */
	int *seen;      /* the stamp of the last walk that reached f */
	int *queue;
	int stamp;
} side_graph;

static void side_build(side_graph *g, const cgm_model *m)
{
	int n = m->nfunctions;
	g->m = m;
	g->n = n;
	g->in_start = cgm_xcalloc((size_t)n + 2, sizeof(int));
	g->entry = cgm_xcalloc((size_t)n + 1, sizeof(bool));
	g->seen = cgm_xcalloc((size_t)n + 1, sizeof(int));
	g->queue = cgm_xcalloc((size_t)n + 1, sizeof(int));
	g->stamp = 0;
	int total = 0;
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (e->from < 0 || e->from >= n || e->to < 0 || e->to >= n)
			continue;
		g->in_start[e->to + 1]++;
		total++;
	}
	for (int f = 0; f < n; f++)
		g->in_start[f + 1] += g->in_start[f];
	g->callers = cgm_xcalloc((size_t)total + 1, sizeof(int));
	int *fill = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int f = 0; f < n; f++)
		g->entry[f] = m->functions[f].root;
	bool *called = cgm_xcalloc((size_t)n + 1, sizeof(bool)); /* by another function */
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (e->from < 0 || e->from >= n || e->to < 0 || e->to >= n)
			continue;
		g->callers[g->in_start[e->to] + fill[e->to]++] = e->from;
		if (e->from != e->to)
			called[e->to] = true;
	}
	for (int f = 0; f < n; f++)
		g->entry[f] = g->entry[f] || !called[f];
	free(called);
	free(fill);
}

static void side_free(side_graph *g)
{
	free(g->in_start);
	free(g->callers);
	free(g->entry);
	free(g->seen);
	free(g->queue);
}

/* Most observed calls first, then by id (cgm_query_impact's order). */
static int compare_walk_entries(const void *a, const void *b)
{
	const cgm_diff_entry *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The entry points reaching fn (itself included when it is one) into
 * r->entries (diff's arena), most calls first, and their calls added up
 * (held at INT64_MAX). */
static void side_reach(side_graph *g, int fn, radius *r, cgm_arena *arena)
{
	const cgm_model *m = g->m;
	int stamp = ++g->stamp;
	int head = 0, tail = 0, nentries = 0;
	g->seen[fn] = stamp;
	g->queue[tail++] = fn;
	while (head < tail) {
		int v = g->queue[head++];
		nentries += g->entry[v];
		for (int k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
			int w = g->callers[k];
			if (g->seen[w] == stamp)
				continue;
			g->seen[w] = stamp;
			g->queue[tail++] = w;
		}
	}
	r->nentries = nentries;
	r->entries = cgm_arena_alloc(arena, sizeof(cgm_diff_entry) * (size_t)(nentries + 1));
	r->calls = 0;
	int k = 0;
	for (int q = 0; q < tail; q++) {
		int f = g->queue[q];
		if (!g->entry[f])
			continue;
		int64_t calls = f < m->nuser ? cgm_function_calls(m, f) : m->functions[f].runtime.calls;
		/* The ids stay the model's until the entries are sorted, then are copied. */
		r->entries[k].id = m->functions[f].id;
		r->entries[k].calls = calls;
		r->entries[k].nfunctions = 0;
		k++;
		if (calls > 0 && r->calls <= INT64_MAX - calls)
			r->calls += calls;
		else if (calls > 0)
			r->calls = INT64_MAX;
	}
	if (nentries > 1)
		qsort(r->entries, (size_t)nentries, sizeof(cgm_diff_entry), compare_walk_entries);
	for (k = 0; k < nentries; k++)
		r->entries[k].id = cgm_arena_strdup(arena, r->entries[k].id);
}

static int compare_entry_ids(const void *a, const void *b)
{
	return strcmp(((const cgm_diff_entry *)a)->id, ((const cgm_diff_entry *)b)->id);
}

void cgm_diff_blast_radius(cgm_diff *d, const cgm_model *base, const cgm_model *head,
			   void (*add)(void *ctx, cgm_finding_code code, const char *function,
				       const char *other, int line, const char *detail),
			   void *ctx)
{
	d->has_runtime = (base && base->has_runtime) || (head && head->has_runtime);
	if (d->nfindings == 0)
		return;
	/* The distinct functions of the findings, each once. */
	radius *r = cgm_xcalloc((size_t)d->nfindings, sizeof(radius));
	int nr = 0;
	for (int i = 0; i < d->nfindings; i++)
		r[nr++].function = d->findings[i].function;
	qsort(r, (size_t)nr, sizeof(radius), compare_radius);
	int w = 0;
	for (int i = 0; i < nr; i++)
		if (w == 0 || strcmp(r[w - 1].function, r[i].function) != 0)
			r[w++] = r[i];
	nr = w;

	side_graph graphs[2];
	const cgm_model *models[2] = { head, base };
	bool built[2] = { false, false };
	for (int i = 0; i < nr; i++) {
		int side = 0, fn = cgm_model_find(head, r[i].function);
		if (fn < 0) {
			side = 1;
			fn = cgm_model_find(base, r[i].function);
		}
		r[i].fn = fn;
		r[i].from_base = side == 1;
		if (fn < 0)
			continue;
		const cgm_function *def = &models[side]->functions[fn];
		if (def->file) {
			r[i].file = cgm_arena_strdup(d->arena, def->file);
			r[i].file_line = def->file_line;
		}
		if (!built[side]) {
			side_build(&graphs[side], models[side]);
			built[side] = true;
		}
		side_reach(&graphs[side], fn, &r[i], d->arena);
	}

	/* Derived findings, one per changed function. */
	for (int i = 0; i < nr; i++) {
		if (r[i].fn < 0)
			continue;
		const cgm_model *m = r[i].from_base ? base : head;
		const cgm_function *f = &m->functions[r[i].fn];
		const char *side = r[i].from_base ? "BASE" : "HEAD";
		char detail[512];
		if (m->has_runtime && r[i].nentries > 0 && r[i].entries[0].calls >= d->hot_threshold) {
			int hot = 0;
			while (hot < r[i].nentries && r[i].entries[hot].calls >= d->hot_threshold)
				hot++;
			snprintf(detail, sizeof detail,
				 "%d entry point%s of %s with at least %" PRId64
				 " observed calls reach%s it; the busiest, %s, has %" PRId64,
				 hot, hot == 1 ? "" : "s", side, d->hot_threshold, hot == 1 ? "es" : "",
				 r[i].entries[0].id, r[i].entries[0].calls);
			add(ctx, CGM_FIND_TOUCHES_HOT, r[i].function, r[i].entries[0].id, 0, detail);
		}
		if (f->dead) {
			snprintf(detail, sizeof detail, "dead in %s (%s confidence): nothing was seen calling it",
				 side, f->confidence ? f->confidence : "low");
			add(ctx, CGM_FIND_DEAD_CHANGED, r[i].function, NULL, 0, detail);
		}
	}

	/* Each finding gets its function's radius. */
	for (int i = 0; i < d->nfindings; i++) {
		cgm_finding *f = &d->findings[i];
		radius key = { .function = f->function };
		const radius *hit = bsearch(&key, r, (size_t)nr, sizeof(radius), compare_radius);
		if (!hit)
			continue;
		f->from_base = hit->from_base;
		f->file = hit->file;
		f->file_line = hit->file_line;
		f->nentries = hit->nentries;
		f->entries = hit->entries;
		f->entry_calls = hit->calls;
	}

	/* Every entry point once: its calls, the changed functions it reaches. */
	int total = 0;
	for (int i = 0; i < nr; i++)
		total += r[i].nentries;
	cgm_diff_entry *all = cgm_xcalloc((size_t)total, sizeof(cgm_diff_entry));
	int nall = 0;
	for (int i = 0; i < nr; i++)
		for (int k = 0; k < r[i].nentries; k++)
			all[nall++] = r[i].entries[k];
	/* By id, merging the same entry point (its calls: the larger side). */
	qsort(all, (size_t)nall, sizeof(cgm_diff_entry), compare_entry_ids);
	d->affected = cgm_arena_alloc(d->arena, sizeof(cgm_diff_entry) * (size_t)(nall + 1));
	for (int i = 0; i < nall; i++) {
		if (d->naffected && strcmp(d->affected[d->naffected - 1].id, all[i].id) == 0) {
			cgm_diff_entry *e = &d->affected[d->naffected - 1];
			e->nfunctions++;
			if (all[i].calls > e->calls)
				e->calls = all[i].calls;
			continue;
		}
		d->affected[d->naffected] = all[i];
		d->affected[d->naffected].nfunctions = 1;
		d->naffected++;
	}
	qsort(d->affected, (size_t)d->naffected, sizeof(cgm_diff_entry), compare_affected);
	free(all);
	free(r);
	for (int s = 0; s < 2; s++)
		if (built[s])
			side_free(&graphs[s]);
}
