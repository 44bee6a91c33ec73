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
 * functions no other function calls, reaching the function over callers
 * (every edge, static or observed).  The callers of each function are
 * listed once per side, which function is an entry point is decided once
 * per side, and all of a side's changed functions are walked together
 * (side_reach_all: a bit per changed function, carried from callee to
 * caller), so a diff of N changed functions costs about one pass over
 * their callers, not N (cgm_query_impact, which also finds each path's
 * length and provenance, would clear and walk arrays of the whole graph
 * three times per function).  The entry points' order (most calls, then
 * id) is also made once per side, and the entry points are merged into
 * diff->affected by index: 500 changed
 * functions each reached from 3,357 entry points had been sorted by id
 * 500 times, then 1.7 million times over.
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
	int *entry_fns;       /* their indexes in the side's model (malloc'd) */
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

/* One side's graph for the walk: each function's callers (the caller of
 * every edge into it, once per edge) and which functions are entry points.
 * The entry points are also listed once in the order every finding shows
 * them (most calls first, then by id: entry_order), so each finding's are
 * dealt out of that list in order, and each one's id is copied into the
 * diff's arena once (copied), however many findings name it. */
typedef struct side_graph {
	const cgm_model *m;
	int n;
	int *in_start;  /* n + 1: callers[in_start[f] .. in_start[f + 1]) call f */
	int *callers;
	bool *entry;    /* cgm_query_is_entry: a root, or called by no other function */
	int64_t *calls; /* per entry point: its observed calls */
	int *entry_order;
	int nentry_order;
	const char **copied;
} side_graph;

/* Most observed calls first, then by id (cgm_query_impact's order). */
static int compare_entry_order(const void *a, const void *b, void *graph)
{
	const side_graph *g = graph;
	int x = *(const int *)a, y = *(const int *)b;
	if (g->calls[x] != g->calls[y])
		return g->calls[x] > g->calls[y] ? -1 : 1;
	return strcmp(g->m->functions[x].id, g->m->functions[y].id);
}

static void sort_entries(const side_graph *g, int *items, int n)
{
	qsort_r(items, (size_t)n, sizeof(int), compare_entry_order, (void *)g);
}

static void side_build(side_graph *g, const cgm_model *m)
{
	int n = m->nfunctions;
	g->m = m;
	g->n = n;
	g->in_start = cgm_xcalloc((size_t)n + 2, sizeof(int));
	g->entry = cgm_xcalloc((size_t)n + 1, sizeof(bool));
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

	g->calls = cgm_xcalloc((size_t)n + 1, sizeof(int64_t));
	g->entry_order = cgm_xcalloc((size_t)n + 1, sizeof(int));
	g->copied = cgm_xcalloc((size_t)n + 1, sizeof(char *));
	g->nentry_order = 0;
	for (int f = 0; f < n; f++) {
		if (!g->entry[f])
			continue;
		g->calls[f] = f < m->nuser ? cgm_function_calls(m, f) : m->functions[f].runtime.calls;
		g->entry_order[g->nentry_order++] = f;
	}
	sort_entries(g, g->entry_order, g->nentry_order);
}

static void side_free(side_graph *g)
{
	free(g->in_start);
	free(g->callers);
	free(g->entry);
	free(g->calls);
	free(g->entry_order);
	free(g->copied);
}

/* The id of f in the diff's arena, copied once. */
static const char *side_id(side_graph *g, int f, cgm_arena *arena)
{
	if (!g->copied[f])
		g->copied[f] = cgm_arena_strdup(arena, g->m->functions[f].id);
	return g->copied[f];
}

/* The entry points reaching each of the radii `which` (functions of this
 * side, itself included when it is one) into their entries (diff's arena),
 * in the side's order, with their calls added up (held at INT64_MAX).
 *
 * All at once rather than a walk per function: each function gets a bit
 * per radius it reaches, OR-ed from callee to caller until nothing changes
 * (a worklist: a function is queued again only when its bits grew), then
 * the entry points, in order, are dealt to the radii whose bits they hold.
 * The walks had been a quarter of a diff's own work when 500 changed
 * functions shared their callers; radii go 512 at a time, so the bits take
 * 64 bytes per function whatever the number of findings. */
#define RADII_AT_ONCE 512

static void side_reach_all(side_graph *g, radius *r, const int *which, int nwhich, cgm_arena *arena)
{
	int n = g->n;
	uint64_t *bits = cgm_xcalloc((size_t)n * (RADII_AT_ONCE / 64) + 1, sizeof(uint64_t));
	bool *queued = cgm_xcalloc((size_t)n + 1, sizeof(bool));
	int *work = cgm_xcalloc((size_t)n + 1, sizeof(int)); /* a ring: each function in it once */
	int *count = cgm_xcalloc(RADII_AT_ONCE, sizeof(int));
	for (int first = 0; first < nwhich; first += RADII_AT_ONCE) {
		int batch = nwhich - first < RADII_AT_ONCE ? nwhich - first : RADII_AT_ONCE;
		int words = (batch + 63) / 64;
		memset(bits, 0, sizeof(uint64_t) * (size_t)n * (size_t)words);
		int head = 0, size = 0;
		for (int j = 0; j < batch; j++) {
			int f = r[which[first + j]].fn;
			bits[(size_t)f * (size_t)words + (size_t)(j / 64)] |= (uint64_t)1 << (j % 64);
			if (!queued[f]) {
				queued[f] = true;
				work[(head + size++) % n] = f;
			}
		}
		while (size > 0) {
			int w = work[head];
			head = (head + 1) % n;
			size--;
			queued[w] = false;
			const uint64_t *from = &bits[(size_t)w * (size_t)words];
			for (int k = g->in_start[w]; k < g->in_start[w + 1]; k++) {
				int v = g->callers[k];
				uint64_t *to = &bits[(size_t)v * (size_t)words];
				bool grew = false;
				for (int x = 0; x < words; x++) {
					uint64_t more = from[x] & ~to[x];
					if (more) {
						to[x] |= more;
						grew = true;
					}
				}
				if (grew && !queued[v]) {
					queued[v] = true;
					work[(head + size++) % n] = v;
				}
			}
		}
		/* Dealt out in the side's order: first counted, then placed. */
		memset(count, 0, sizeof(int) * RADII_AT_ONCE);
		for (int i = 0; i < g->nentry_order; i++) {
			const uint64_t *b = &bits[(size_t)g->entry_order[i] * (size_t)words];
			for (int x = 0; x < words; x++)
				for (uint64_t m = b[x]; m; m &= m - 1)
					count[x * 64 + __builtin_ctzll(m)]++;
		}
		for (int j = 0; j < batch; j++) {
			radius *rj = &r[which[first + j]];
			rj->nentries = 0;
			rj->calls = 0;
			rj->entries = cgm_arena_alloc(arena, sizeof(cgm_diff_entry) * (size_t)(count[j] + 1));
			rj->entry_fns = cgm_xcalloc((size_t)count[j] + 1, sizeof(int));
		}
		for (int i = 0; i < g->nentry_order; i++) {
			int f = g->entry_order[i];
			const uint64_t *b = &bits[(size_t)f * (size_t)words];
			for (int x = 0; x < words; x++) {
				for (uint64_t m = b[x]; m; m &= m - 1) {
					radius *rj = &r[which[first + x * 64 + __builtin_ctzll(m)]];
					int64_t calls = g->calls[f];
					cgm_diff_entry *e = &rj->entries[rj->nentries];
					rj->entry_fns[rj->nentries++] = f;
					e->id = side_id(g, f, arena);
					e->calls = calls;
					e->nfunctions = 0;
					if (calls > 0 && rj->calls <= INT64_MAX - calls)
						rj->calls += calls;
					else if (calls > 0)
						rj->calls = INT64_MAX;
				}
			}
		}
	}
	free(count);
	free(work);
	free(queued);
	free(bits);
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
	}
	/* Each side's radii, walked together. */
	int *which = cgm_xcalloc((size_t)nr + 1, sizeof(int));
	for (int side = 0; side < 2; side++) {
		int nwhich = 0;
		for (int i = 0; i < nr; i++)
			if (r[i].fn >= 0 && r[i].from_base == (side == 1))
				which[nwhich++] = i;
		if (nwhich)
			side_reach_all(&graphs[side], r, which, nwhich, d->arena);
	}
	free(which);

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

	/* Every entry point once: its calls (the larger side's), the changed
	 * functions it reaches.  Told apart by HEAD's index, a BASE entry
	 * point by the HEAD function of its id, or past HEAD's when gone. */
	int nhead = head ? head->nfunctions : 0, nbase = base ? base->nfunctions : 0;
	size_t nslots = (size_t)nhead + (size_t)nbase + 1;
	int *reached = cgm_xcalloc(nslots, sizeof(int));
	cgm_diff_entry *slot = cgm_xcalloc(nslots, sizeof(cgm_diff_entry));
	int *base_slot = cgm_xcalloc((size_t)nbase + 1, sizeof(int)); /* 0: not looked up, else slot + 1 */
	int *order = cgm_xcalloc(nslots, sizeof(int));
	int nordered = 0;
	for (int i = 0; i < nr; i++) {
		for (int k = 0; k < r[i].nentries; k++) {
			int f = r[i].entry_fns[k], at = f;
			if (r[i].from_base) {
				if (!base_slot[f]) {
					int h = cgm_model_find(head, base->functions[f].id);
					base_slot[f] = (h >= 0 ? h : nhead + f) + 1;
				}
				at = base_slot[f] - 1;
			}
			const cgm_diff_entry *e = &r[i].entries[k];
			if (reached[at]++ == 0) {
				slot[at] = *e;
				order[nordered++] = at;
			} else if (e->calls > slot[at].calls) {
				slot[at].calls = e->calls;
			}
		}
	}
	d->affected = cgm_arena_alloc(d->arena, sizeof(cgm_diff_entry) * (size_t)(nordered + 1));
	for (int i = 0; i < nordered; i++) {
		d->affected[i] = slot[order[i]];
		d->affected[i].nfunctions = reached[order[i]];
	}
	d->naffected = nordered;
	free(order);
	free(base_slot);
	free(slot);
	free(reached);
	qsort(d->affected, (size_t)d->naffected, sizeof(cgm_diff_entry), compare_affected);
	for (int i = 0; i < nr; i++)
		free(r[i].entry_fns);
	free(r);
	for (int s = 0; s < 2; s++)
		if (built[s])
			side_free(&graphs[s]);
}
