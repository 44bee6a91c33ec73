/*
 * runtime_paths.c - cgmap_trace 1.3's call paths, shapes of top-level calls
 * and timeline buckets, summed from the runtime sources into the model.
 *
 * In:  the model (possibly holding rows from a snapshot already) and a
 *      cgm_runtime whose duplicate sources merge has marked.
 * Out: model->paths, shapes, buckets: the model's rows and those of every
 *      source that is not a duplicate, one row per identity (a path's
 *      frames and lines; a shape's entry and edges; a bucket's function
 *      and start), sorted; counts and times summed and held at their
 *      limits, a path's least and greatest time of one call the least and
 *      greatest of its rows.  Everything kept is copied into model->arena;
 *      the scratch arrays are malloc'd and freed here.
 */
#include "cgmap/runtime.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"

static int line_cmp(int a, int b)
{
	return a < b ? -1 : a > b;
}

static int path_cmp(const void *a, const void *b)
{
	const cgm_call_path *x = a, *y = b;
	for (int i = 0; i < x->nframes && i < y->nframes; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);
		if (!c)
			c = line_cmp(x->lines[i], y->lines[i]);
		if (c)
			return c;
	}
	return line_cmp(x->nframes, y->nframes);
}

static int shape_edge_cmp(const cgm_shape_edge *x, const cgm_shape_edge *y)
{
	int c = strcmp(x->caller, y->caller);
	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = line_cmp(x->site_line, y->site_line);
	if (!c)
		c = (int)x->dynamic - (int)y->dynamic;
	return c;
}

static int shape_cmp(const void *a, const void *b)
{
	const cgm_call_shape *x = a, *y = b;
	int c = strcmp(x->entry, y->entry);
	for (int i = 0; !c && i < x->nedges && i < y->nedges; i++)
		c = shape_edge_cmp(&x->edges[i], &y->edges[i]);
	return c ? c : line_cmp(x->nedges, y->nedges);
}

static int bucket_cmp(const void *a, const void *b)
{
	const cgm_time_bucket *x = a, *y = b;
	int c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->start, y->start);
}

static double time_add(double a, double b, bool *held)
{
	double s = a + b;
	if (!(s <= CGM_STATS_MAX_MS)) {
		*held = true;
		return CGM_STATS_MAX_MS;
	}
	return s;
}

static void merge_paths(cgm_model *m, const cgm_runtime *rt, bool *held)
{
	size_t n = (size_t)m->npaths;
	for (int i = 0; i < rt->npaths; i++)
		n += !rt->sources[rt->paths[i].source].duplicate;
	if (n == (size_t)m->npaths)
		return;
	cgm_call_path *all = cgm_xcalloc(n, sizeof(*all));
	if (m->npaths)
		memcpy(all, m->paths, sizeof(*all) * (size_t)m->npaths);
	size_t k = (size_t)m->npaths;
	for (int i = 0; i < rt->npaths; i++) {
		const cgm_runtime_path *p = &rt->paths[i];
		if (rt->sources[p->source].duplicate)
			continue;
		cgm_call_path *q = &all[k++];
		q->nframes = p->nframes;
		q->frames = cgm_arena_alloc(m->arena, sizeof(char *) * (size_t)p->nframes);
		q->lines = cgm_arena_alloc(m->arena, sizeof(int) * (size_t)p->nframes);
		for (int f = 0; f < p->nframes; f++) {
			q->frames[f] = cgm_arena_strdup(m->arena, p->frames[f]);
			q->lines[f] = p->lines[f];
		}
		q->stats = p->stats;
		q->min_ms = p->min_ms;
		q->max_ms = p->max_ms;
	}
	qsort(all, n, sizeof(*all), path_cmp);
	cgm_call_path *out = cgm_arena_alloc(m->arena, sizeof(*out) * n);
	int nout = 0;
	for (size_t i = 0; i < n; i++) {
		if (nout && path_cmp(&out[nout - 1], &all[i]) == 0) {
			cgm_call_path *q = &out[nout - 1];
			/* a row of no calls has no least time */
			if (all[i].stats.calls > 0 && (q->stats.calls == 0 || all[i].min_ms < q->min_ms))
				q->min_ms = all[i].min_ms;
			if (all[i].max_ms > q->max_ms)
				q->max_ms = all[i].max_ms;
			*held |= cgm_runtime_stats_add(&q->stats, &all[i].stats);
			continue;
		}
		out[nout++] = all[i];
	}
	free(all);
	m->paths = out;
	m->npaths = nout;
}

static void merge_shapes(cgm_model *m, const cgm_runtime *rt, bool *held)
{
	size_t n = (size_t)m->nshapes;
	for (int i = 0; i < rt->nshapes; i++)
		n += !rt->sources[rt->shapes[i].source].duplicate;
	if (n == (size_t)m->nshapes)
		return;
	cgm_call_shape *all = cgm_xcalloc(n, sizeof(*all));
	if (m->nshapes)
		memcpy(all, m->shapes, sizeof(*all) * (size_t)m->nshapes);
	size_t k = (size_t)m->nshapes;
	for (int i = 0; i < rt->nshapes; i++) {
		const cgm_runtime_shape *s = &rt->shapes[i];
		if (rt->sources[s->source].duplicate)
			continue;
		cgm_call_shape *q = &all[k++];
		q->entry = cgm_arena_strdup(m->arena, s->entry);
		q->nedges = s->nedges;
		q->edges = cgm_arena_alloc(m->arena,
					   sizeof(cgm_shape_edge) * (size_t)(s->nedges ? s->nedges : 1));
		for (int e = 0; e < s->nedges; e++) {
			q->edges[e].caller = cgm_arena_strdup(m->arena, s->edges[e].caller);
			q->edges[e].callee = cgm_arena_strdup(m->arena, s->edges[e].callee);
			q->edges[e].site_line = s->edges[e].site_line;
			q->edges[e].dynamic = s->edges[e].dynamic;
		}
		q->calls = s->calls;
	}
	qsort(all, n, sizeof(*all), shape_cmp);
	cgm_call_shape *out = cgm_arena_alloc(m->arena, sizeof(*out) * n);
	int nout = 0;
	for (size_t i = 0; i < n; i++) {
		if (nout && shape_cmp(&out[nout - 1], &all[i]) == 0) {
			out[nout - 1].calls = cgm_count_add(out[nout - 1].calls, all[i].calls, held);
			continue;
		}
		out[nout++] = all[i];
	}
	free(all);
	m->shapes = out;
	m->nshapes = nout;
}

static void merge_buckets(cgm_model *m, const cgm_runtime *rt, bool *held)
{
	size_t n = (size_t)m->nbuckets;
	for (int i = 0; i < rt->nbuckets; i++)
		n += !rt->sources[rt->buckets[i].source].duplicate;
	if (n == (size_t)m->nbuckets)
		return;
	cgm_time_bucket *all = cgm_xcalloc(n, sizeof(*all));
	if (m->nbuckets)
		memcpy(all, m->buckets, sizeof(*all) * (size_t)m->nbuckets);
	size_t k = (size_t)m->nbuckets;
	for (int i = 0; i < rt->nbuckets; i++) {
		const cgm_runtime_bucket *b = &rt->buckets[i];
		if (rt->sources[b->source].duplicate)
			continue;
		cgm_time_bucket *q = &all[k++];
		q->function = cgm_arena_strdup(m->arena, b->function);
		q->start = cgm_arena_strdup(m->arena, b->start);
		q->calls = b->calls;
		q->self_ms = b->self_ms;
	}
	qsort(all, n, sizeof(*all), bucket_cmp);
	cgm_time_bucket *out = cgm_arena_alloc(m->arena, sizeof(*out) * n);
	int nout = 0;
	for (size_t i = 0; i < n; i++) {
		if (nout && bucket_cmp(&out[nout - 1], &all[i]) == 0) {
			out[nout - 1].calls = cgm_count_add(out[nout - 1].calls, all[i].calls, held);
			out[nout - 1].self_ms = time_add(out[nout - 1].self_ms, all[i].self_ms, held);
			continue;
		}
		out[nout++] = all[i];
	}
	free(all);
	m->buckets = out;
	m->nbuckets = nout;
}

bool cgm_merge_paths(cgm_model *model, const cgm_runtime *rt)
{
	bool held = false;
	merge_paths(model, rt, &held);
	merge_shapes(model, rt, &held);
	merge_buckets(model, rt, &held);
	return held;
}
