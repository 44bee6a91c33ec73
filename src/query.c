/*
 * query.c - callers, callees, paths and impact on one call graph
 * (cgmap/query.h).
 *
 * In:  an indexed, analysed model, only read.  Out: arrays of indexes into
 *      it, malloc'd here, freed by the cgm_q*_free functions.  Scratch
 *      arrays live and die in each call.
 *
 * Every walk is iterative (a chain of ten thousand calls needs no stack)
 * and visits each function and edge a bounded number of times; only the
 * path search can grow with the number of paths, and it stops at a work
 * bound and says so.
 */
#include "cgmap/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"
#include "cgmap/runtime.h"
#include "cgmap/verdict.h"

const char *cgm_qedge_provenance(const cgm_edge *e)
{
	bool s = e->provenance & CGM_EDGE_STATIC, o = e->provenance & CGM_EDGE_OBSERVED;
	return s && o ? "both" : o ? "observed" : "static";
}

const char *cgm_qprov_name(cgm_qprov prov)
{
	switch (prov) {
	case CGM_QPROV_STATIC:
		return "static";
	case CGM_QPROV_OBSERVED:
		return "observed";
	case CGM_QPROV_BOTH:
		return "both";
	default:
		return "mixed";
	}
}

/* ---- the graph both ways ---- */

void cgm_qgraph_build(cgm_qgraph *g, const cgm_model *model)
{
	int n = model->nfunctions, ne = model->nedges;
	g->model = model;
	g->n = n;
	g->out_start = cgm_xcalloc((size_t)n + 1, sizeof(int));
	g->in_start = cgm_xcalloc((size_t)n + 1, sizeof(int));
	g->out_edges = cgm_xcalloc((size_t)ne, sizeof(int));
	g->in_edges = cgm_xcalloc((size_t)ne, sizeof(int));
	int *order = cgm_model_edge_order(model);
	for (int i = 0; i < ne; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from < 0 || e->from >= n || e->to < 0 || e->to >= n)
			continue;
		g->out_start[e->from + 1]++;
		g->in_start[e->to + 1]++;
	}
	for (int f = 0; f < n; f++) {
		g->out_start[f + 1] += g->out_start[f];
		g->in_start[f + 1] += g->in_start[f];
	}
	int *out_fill = cgm_xcalloc((size_t)n, sizeof(int)), *in_fill = cgm_xcalloc((size_t)n, sizeof(int));
	for (int k = 0; k < ne; k++) {
		int i = order ? order[k] : k;
		const cgm_edge *e = &model->edges[i];
		if (e->from < 0 || e->from >= n || e->to < 0 || e->to >= n)
			continue;
		g->out_edges[g->out_start[e->from] + out_fill[e->from]++] = i;
		g->in_edges[g->in_start[e->to] + in_fill[e->to]++] = i;
	}
	free(out_fill);
	free(in_fill);
	free(order);
}

void cgm_qgraph_free(cgm_qgraph *g)
{
	free(g->out_start);
	free(g->out_edges);
	free(g->in_start);
	free(g->in_edges);
	memset(g, 0, sizeof *g);
}

/* Edges of f in direction dir, and the function at their other end. */
static void neighbours(const cgm_qgraph *g, int f, cgm_qdir dir, const int **edges, int *n)
{
	if (dir == CGM_Q_CALLERS) {
		*edges = g->in_edges + g->in_start[f];
		*n = g->in_start[f + 1] - g->in_start[f];
	} else {
		*edges = g->out_edges + g->out_start[f];
		*n = g->out_start[f + 1] - g->out_start[f];
	}
}

static int other_end(const cgm_qgraph *g, int edge, cgm_qdir dir)
{
	const cgm_edge *e = &g->model->edges[edge];
	return dir == CGM_Q_CALLERS ? e->from : e->to;
}

/* ---- matching ---- */

/* Levenshtein distance of a and b, each cut at 255 bytes. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 255)
		la = 255;
	if (lb > 255)
		lb = 255;
	int row[256];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int cgm_query_closest(int *out, int k, const cgm_model *model, const char *text)
{
	int n = model->nuser > 0 ? model->nuser : model->nfunctions;
	int *dist = cgm_xcalloc((size_t)k, sizeof(int));
	int found = 0;
	char scratch[1024];
	for (int i = 0; i < n && k > 0; i++) {
		const cgm_function *f = &model->functions[i];
		if (!f->id)
			continue;
		int d = edit_distance(text, f->id);
		if (f->schema && f->name) {
			snprintf(scratch, sizeof scratch, "%s.%s", f->schema, f->name);
			int d2 = edit_distance(text, scratch);
			if (d2 < d)
				d = d2;
		}
		/* Insert into the k best, ties kept in id order (functions are). */
		int pos = found;
		while (pos > 0 && dist[pos - 1] > d)
			pos--;
		if (pos >= k)
			continue;
		int last = found < k ? found : k - 1;
		for (int j = last; j > pos; j--) {
			out[j] = out[j - 1];
			dist[j] = dist[j - 1];
		}
		out[pos] = i;
		dist[pos] = d;
		if (found < k)
			found++;
	}
	free(dist);
	return found;
}

int cgm_query_match(int **out, int *n, const cgm_model *model, const char *pattern)
{
	*out = NULL;
	*n = 0;
	int *found = cgm_xcalloc((size_t)model->nfunctions, sizeof(int));
	int nfound = 0;
	char scratch[1024];
	/* The mapped functions first; a builtin only when none matches. */
	for (int pass = 0; pass < 2 && nfound == 0; pass++) {
		int lo = pass == 0 ? 0 : model->nuser, hi = pass == 0 ? model->nuser : model->nfunctions;
		for (int i = lo; i < hi; i++)
			if (model->functions[i].id &&
			    cgm_entry_matches(&model->functions[i], pattern, scratch, sizeof scratch))
				found[nfound++] = i;
	}
	if (nfound) {
		*out = found;
		*n = nfound;
		return 0;
	}
	free(found);
	int close[3];
	int nclose = cgm_query_closest(close, 3, model, pattern);
	cgm_strbuf msg = CGM_STRBUF_INIT;
	for (int i = 0; i < nclose; i++)
		cgm_strbuf_printf(&msg, "%s'%s'", i ? ", " : "", model->functions[close[i]].id);
	int rc;
	if (nclose)
		rc = cgm_error(CGM_EUSAGE, "function '%s' matches nothing; closest: %s", pattern,
			       msg.data);
	else
		rc = cgm_error(CGM_EUSAGE, "function '%s' matches nothing: the graph has no functions",
			       pattern);
	cgm_strbuf_free(&msg);
	return rc;
}

/* ---- breadth-first distances ---- */

/* Distance of every function from `start` walking dir (-1: not reached);
 * with `origin`, the start each shortest walk began at.  `keep` filters
 * edges (NULL: all). */
static void bfs(int *dist, int *origin, const cgm_qgraph *g, const int *start, int nstart,
		cgm_qdir dir, bool (*keep)(const cgm_edge *))
{
	int *queue = cgm_xcalloc((size_t)g->n, sizeof(int));
	int head = 0, tail = 0;
	for (int i = 0; i < g->n; i++)
		dist[i] = -1;
	for (int s = 0; s < nstart; s++) {
		int f = start[s];
		if (f < 0 || f >= g->n || dist[f] == 0)
			continue;
		dist[f] = 0;
		if (origin)
			origin[f] = f;
		queue[tail++] = f;
	}
	while (head < tail) {
		int v = queue[head++];
		const int *edges;
		int ne;
		neighbours(g, v, dir, &edges, &ne);
		for (int k = 0; k < ne; k++) {
			if (keep && !keep(&g->model->edges[edges[k]]))
				continue;
			int w = other_end(g, edges[k], dir);
			if (dist[w] >= 0)
				continue;
			dist[w] = dist[v] + 1;
			if (origin)
				origin[w] = origin[v];
			queue[tail++] = w;
		}
	}
	free(queue);
}

/* ---- callers, callees ---- */

static void add_row(cgm_qtree *t, int *cap, int depth, int fn, int parent, int edge, cgm_qmark mark)
{
	if (t->nrows == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		t->rows = cgm_xrealloc(t->rows, sizeof(cgm_qrow) * (size_t)*cap);
	}
	t->rows[t->nrows++] = (cgm_qrow){ depth, fn, parent, edge, mark };
}

typedef struct tree_frame {
	int row;  /* the row being expanded */
	int fn;
	int next; /* next neighbour edge to look at */
} tree_frame;

void cgm_query_tree(cgm_qtree *out, const cgm_qgraph *g, const int *start, int nstart,
		    cgm_qdir dir, int max_depth)
{
	memset(out, 0, sizeof *out);
	out->max_depth = max_depth;
	int n = g->n, cap = 0;
	int *dist = cgm_xcalloc((size_t)n, sizeof(int));
	bfs(dist, NULL, g, start, nstart, dir, NULL);
	bool *expanded = cgm_xcalloc((size_t)n, sizeof(bool));
	bool *on_path = cgm_xcalloc((size_t)n, sizeof(bool));
	bool *is_start = cgm_xcalloc((size_t)n, sizeof(bool));
	tree_frame *stack = cgm_xcalloc((size_t)n + 1, sizeof(tree_frame));
	for (int s = 0; s < nstart; s++)
		if (start[s] >= 0 && start[s] < n)
			is_start[start[s]] = true;

	for (int s = 0; s < nstart; s++) {
		int f = start[s];
		if (f < 0 || f >= n || expanded[f])
			continue;
		expanded[f] = true;
		add_row(out, &cap, 0, f, -1, -1, CGM_QROW_EXPANDED);
		int sp = 0;
		stack[sp++] = (tree_frame){ out->nrows - 1, f, 0 };
		on_path[f] = true;
		while (sp > 0) {
			tree_frame *top = &stack[sp - 1];
			const int *edges;
			int ne;
			neighbours(g, top->fn, dir, &edges, &ne);
			int depth = out->rows[top->row].depth + 1;
			if (top->next >= ne) {
				on_path[top->fn] = false;
				sp--;
				continue;
			}
			int edge = edges[top->next++];
			int w = other_end(g, edge, dir);
			const int *wedges;
			int wne;
			neighbours(g, w, dir, &wedges, &wne);
			cgm_qmark mark;
			if (on_path[w])
				mark = CGM_QROW_CYCLE;
			else if (expanded[w] || depth > dist[w])
				mark = CGM_QROW_SEEN;
			else if (max_depth > 0 && depth >= max_depth)
				mark = wne > 0 ? CGM_QROW_LIMIT : CGM_QROW_EXPANDED;
			else
				mark = CGM_QROW_EXPANDED;
			int parent = top->row;
			add_row(out, &cap, depth, w, parent, edge, mark);
			if (mark == CGM_QROW_EXPANDED && !expanded[w]) {
				expanded[w] = true;
				if (!(max_depth > 0 && depth >= max_depth)) {
					on_path[w] = true;
					stack[sp++] = (tree_frame){ out->nrows - 1, w, 0 };
				}
			}
		}
	}
	/* The count is of what the rows list: each function on a row below
	 * the queried ones once, a queried one too when it is a caller (or
	 * callee) of another (overloads calling each other), said apart. */
	bool *listed = cgm_xcalloc((size_t)n + 1, sizeof(bool));
	for (int i = 0; i < out->nrows; i++) {
		const cgm_qrow *r = &out->rows[i];
		if (r->depth == 0 || listed[r->fn])
			continue;
		listed[r->fn] = true;
		out->nfunctions++;
		if (is_start[r->fn])
			out->nqueried++;
	}
	free(listed);
	free(dist);
	free(expanded);
	free(on_path);
	free(is_start);
	free(stack);
}

void cgm_qtree_free(cgm_qtree *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}

/* ---- paths ---- */

typedef struct path_search {
	const cgm_qgraph *g;
	const int *dist_to; /* calls from each function to the nearest target */
	const bool *is_to;
	bool *on_path;
	int *path;
	tree_frame *stack;
	cgm_qpaths *out;
	int cap, max_paths;
	long budget;
	bool length_cut; /* a branch was left out for being too long: longer paths may exist */
} path_search;

static void record(path_search *ps, int len)
{
	cgm_qpaths *o = ps->out;
	if (o->npaths == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 8;
		o->paths = cgm_xrealloc(o->paths, sizeof(cgm_qpath) * (size_t)ps->cap);
	}
	cgm_qpath *p = &o->paths[o->npaths++];
	p->nfns = len + 1;
	p->fns = cgm_xcalloc((size_t)len + 1, sizeof(int));
	memcpy(p->fns, ps->path, sizeof(int) * ((size_t)len + 1));
}

/* Every simple path of exactly `len` calls from `from` to a target, in edge
 * order, until max_paths are known or the budget is spent. */
static void paths_of_length(path_search *ps, int from, int len)
{
	const cgm_qgraph *g = ps->g;
	int sp = 0;
	ps->path[0] = from;
	ps->on_path[from] = true;
	ps->stack[sp++] = (tree_frame){ 0, from, 0 };
	while (sp > 0 && ps->out->npaths < ps->max_paths) {
		if (--ps->budget < 0) {
			ps->out->cut = true;
			break;
		}
		tree_frame *top = &ps->stack[sp - 1];
		int v = top->fn, depth = sp - 1;
		int begin = g->out_start[v], end = g->out_start[v + 1];
		int k = begin + top->next;
		/* Several edges to one callee (other mechanisms) are one hop. */
		while (k < end && k > begin &&
		       g->model->edges[g->out_edges[k]].to == g->model->edges[g->out_edges[k - 1]].to)
			k++;
		if (k >= end) {
			if (sp > 1)
				ps->on_path[v] = false;
			sp--;
			continue;
		}
		top->next = k - begin + 1;
		int w = g->model->edges[g->out_edges[k]].to;
		int remaining = len - depth - 1;
		if (remaining == 0) {
			if (ps->is_to[w] && (!ps->on_path[w] || w == from)) {
				ps->path[depth + 1] = w;
				record(ps, len);
			} else if (!ps->on_path[w] && ps->dist_to[w] > 0) {
				ps->length_cut = true;
			}
			continue;
		}
		if (ps->on_path[w] || ps->dist_to[w] < 0)
			continue;
		if (ps->dist_to[w] > remaining) {
			ps->length_cut = true;
			continue;
		}
		ps->path[depth + 1] = w;
		ps->on_path[w] = true;
		ps->stack[sp++] = (tree_frame){ 0, w, 0 };
	}
	while (sp > 0)
		ps->on_path[ps->stack[--sp].fn] = false;
	ps->on_path[from] = false;
}

void cgm_query_paths(cgm_qpaths *out, const cgm_qgraph *g, const int *from, int nfrom,
		     const int *to, int nto, int max_paths, long budget)
{
	memset(out, 0, sizeof *out);
	int n = g->n;
	if (max_paths <= 0 || n == 0)
		return;
	int *dist_to = cgm_xcalloc((size_t)n, sizeof(int));
	bfs(dist_to, NULL, g, to, nto, CGM_Q_CALLERS, NULL);
	bool *is_to = cgm_xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < nto; i++)
		if (to[i] >= 0 && to[i] < n)
			is_to[to[i]] = true;
	/* The shortest length worth trying: a start that is a target needs a
	 * cycle, at least one call. */
	int shortest = -1;
	for (int i = 0; i < nfrom; i++) {
		int f = from[i];
		if (f < 0 || f >= n)
			continue;
		int d = dist_to[f];
		if (d == 0) {
			d = -1;
			const int *edges;
			int ne;
			neighbours(g, f, CGM_Q_CALLEES, &edges, &ne);
			for (int k = 0; k < ne; k++) {
				int w = other_end(g, edges[k], CGM_Q_CALLEES);
				if (dist_to[w] >= 0 && (d < 0 || dist_to[w] + 1 < d))
					d = dist_to[w] + 1;
			}
		}
		if (d >= 1 && (shortest < 0 || d < shortest))
			shortest = d;
	}
	path_search ps = { .g = g, .dist_to = dist_to, .is_to = is_to, .out = out,
			   .max_paths = max_paths, .budget = budget > 0 ? budget : 4000000L };
	ps.on_path = cgm_xcalloc((size_t)n, sizeof(bool));
	ps.path = cgm_xcalloc((size_t)n + 1, sizeof(int));
	ps.stack = cgm_xcalloc((size_t)n + 1, sizeof(tree_frame));
	for (int len = shortest; shortest >= 1 && len <= n && out->npaths < max_paths && !out->cut;
	     len++) {
		ps.length_cut = false;
		for (int i = 0; i < nfrom && out->npaths < max_paths && !out->cut; i++)
			if (from[i] >= 0 && from[i] < n && (dist_to[from[i]] >= 0))
				paths_of_length(&ps, from[i], len);
		/* Nothing was left out for its length: every path is known. */
		if (!ps.length_cut)
			break;
	}
	free(ps.on_path);
	free(ps.path);
	free(ps.stack);
	free(dist_to);
	free(is_to);
}

void cgm_qpaths_free(cgm_qpaths *p)
{
	for (int i = 0; i < p->npaths; i++)
		free(p->paths[i].fns);
	free(p->paths);
	memset(p, 0, sizeof *p);
}

/* ---- impact ---- */

bool cgm_query_is_entry(const cgm_qgraph *g, int f)
{
	if (f < 0 || f >= g->n)
		return false;
	if (g->model->functions[f].root)
		return true;
	for (int k = g->in_start[f]; k < g->in_start[f + 1]; k++)
		if (g->model->edges[g->in_edges[k]].from != f)
			return false;
	return true;
}

static bool edge_static(const cgm_edge *e)
{
	return e->provenance & CGM_EDGE_STATIC;
}

static bool edge_observed(const cgm_edge *e)
{
	return e->provenance & CGM_EDGE_OBSERVED;
}

static int compare_entries(const void *a, const void *b, void *arg)
{
	const cgm_model *sort_model = arg;
	const cgm_qentry *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(sort_model->functions[x->fn].id, sort_model->functions[y->fn].id);
}

void cgm_query_impact(cgm_qimpact *out, const cgm_qgraph *g, const int *targets, int ntargets)
{
	memset(out, 0, sizeof *out);
	int n = g->n;
	const cgm_model *m = g->model;
	int *dist = cgm_xcalloc((size_t)n, sizeof(int)), *origin = cgm_xcalloc((size_t)n, sizeof(int));
	int *dist_s = cgm_xcalloc((size_t)n, sizeof(int)), *dist_o = cgm_xcalloc((size_t)n, sizeof(int));
	bfs(dist, origin, g, targets, ntargets, CGM_Q_CALLERS, NULL);
	bfs(dist_s, NULL, g, targets, ntargets, CGM_Q_CALLERS, edge_static);
	bfs(dist_o, NULL, g, targets, ntargets, CGM_Q_CALLERS, edge_observed);
	out->entries = cgm_xcalloc((size_t)n, sizeof(cgm_qentry));
	out->callers = cgm_xcalloc((size_t)n, sizeof(int));
	for (int f = 0; f < n; f++) {
		if (dist[f] < 0)
			continue;
		if (dist[f] > 0)
			out->callers[out->ncallers++] = f;
		if (!cgm_query_is_entry(g, f))
			continue;
		cgm_qentry *e = &out->entries[out->nentries++];
		e->fn = f;
		e->root = m->functions[f].root;
		e->length = dist[f];
		e->target = origin[f];
		bool s = dist_s[f] >= 0, o = dist_o[f] >= 0;
		e->prov = s && o ? CGM_QPROV_BOTH : s ? CGM_QPROV_STATIC : o ? CGM_QPROV_OBSERVED
								 : CGM_QPROV_MIXED;
		e->calls = f < m->nuser ? cgm_function_calls(m, f) : m->functions[f].runtime.calls;
		if (e->calls > 0 && out->calls <= INT64_MAX - e->calls)
			out->calls += e->calls;
		else if (e->calls > 0)
			out->calls = INT64_MAX;
	}
	qsort_r(out->entries, (size_t)out->nentries, sizeof(cgm_qentry), compare_entries, (void *)m);
	free(dist);
	free(origin);
	free(dist_s);
	free(dist_o);
}

void cgm_qimpact_free(cgm_qimpact *im)
{
	free(im->entries);
	free(im->callers);
	memset(im, 0, sizeof *im);
}
