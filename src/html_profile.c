/*
 * html_profile.c - the execution profile of the HTML site (docs/html.md,
 * "Execution profile"), from cgmap_trace 1.3's call paths and shapes:
 * profile/<entry page> per entry point that has paths (its execution tree,
 * flame graph and call shapes), profile/all.html (every measured function,
 * the flame graph of everything), the index's resource profile table and a
 * function page's "appears in N paths" line.
 *
 * In:  the html_ctx and its read-only model.  html_profile_build() puts in
 *      the ctx, in malloc'd arrays that html_profile_free() releases, which
 *      functions are entry points with a page here and which entry points'
 *      paths pass through each function (the forked workers read them).
 *      The tree of paths is built, used and freed while the pages are
 *      written (malloc'd here, freed here).  Every name is escaped for HTML;
 *      the SVG is inline, so the same escaping holds.  Caps: a tree shows at
 *      most HTML_PROFILE_TREE_CAP nodes, a flame graph draws at most
 *      HTML_PROFILE_FLAME_CAP frames, the rest summed as "+K more".
 */
#include "html_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/runtime.h"

#define PROFILE_TOP 50
#define FLAME_WIDTH 1200
#define FLAME_ROW 17
#define SHAPES_MAX 50
#define SHAPE_EDGES_MAX 100
#define THRU_ENTRIES_MAX 20

/* ---- facts shared with the function pages ---- */

typedef struct {
	int fn, entry;
} thru_pair;

static int by_pair(const void *a, const void *b)
{
	const thru_pair *x = a, *y = b;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

/* The function with a page a frame names, or -1. */
static int frame_fn(const html_ctx *ctx, const char *frame)
{
	if (!frame || strcmp(frame, "...") == 0)
		return -1;
	int f = cgm_model_find(ctx->model, frame);
	return f >= 0 && f < ctx->nuser && ctx->page[f] ? f : -1;
}

void html_profile_build(html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	ctx->prof_entry = cgm_xcalloc((size_t)ctx->nfn + 1, sizeof(bool));
	ctx->thru_start = cgm_xcalloc((size_t)ctx->nfn + 1, sizeof(int));
	size_t npairs = 0, cap = 0;
	thru_pair *pairs = NULL;
	/* stamp[f] == p + 1: f already counted for path p (a recursive path
	 * names a function more than once). */
	int *stamp = cgm_xcalloc((size_t)ctx->nfn + 1, sizeof(int));
	for (int p = 0; p < m->npaths; p++) {
		const cgm_call_path *path = &m->paths[p];
		int e = path->nframes > 0 ? frame_fn(ctx, path->frames[0]) : -1;
		if (e < 0)
			continue;
		ctx->prof_entry[e] = true;
		for (int k = 0; k < path->nframes; k++) {
			int f = frame_fn(ctx, path->frames[k]);
			if (f < 0 || stamp[f] == p + 1)
				continue;
			stamp[f] = p + 1;
			if (npairs == cap) {
				cap = cap ? cap * 2 : 256;
				pairs = cgm_xrealloc(pairs, cap * sizeof(*pairs));
			}
			pairs[npairs++] = (thru_pair){ f, e };
		}
	}
	if (npairs)
		qsort(pairs, npairs, sizeof(*pairs), by_pair);
	/* Distinct (function, entry) with the number of paths. */
	ctx->thru_entry = cgm_xcalloc(npairs + 1, sizeof(int));
	ctx->thru_npaths = cgm_xcalloc(npairs + 1, sizeof(int));
	int *count = cgm_xcalloc((size_t)ctx->nfn + 1, sizeof(int));
	size_t n = 0;
	for (size_t i = 0; i < npairs; i++) {
		if (i > 0 && pairs[i].fn == pairs[i - 1].fn && pairs[i].entry == pairs[i - 1].entry) {
			ctx->thru_npaths[n - 1]++;
			continue;
		}
		ctx->thru_entry[n] = pairs[i].entry;
		ctx->thru_npaths[n] = 1;
		count[pairs[i].fn]++;
		n++;
	}
	for (int f = 0; f < ctx->nfn; f++)
		ctx->thru_start[f + 1] = ctx->thru_start[f] + count[f];
	free(count);
	free(pairs);
	free(stamp);
}

void html_profile_free(html_ctx *ctx)
{
	free(ctx->prof_entry);
	free(ctx->thru_start);
	free(ctx->thru_entry);
	free(ctx->thru_npaths);
}

static void profile_href(cgm_strbuf *b, const html_ctx *ctx, int entry, const char *root)
{
	cgm_strbuf_printf(b, "%sprofile/%s", root, ctx->page[entry]);
}

/* ---- the tree of paths ---- */

typedef struct pnode {
	const char *name; /* the frame */
	int fn;           /* function with a page, or -1 */
	int line;         /* line of the parent's function that called it; 0 none */
	int parent, first, next;
	int depth;
	bool own;         /* a path ends here */
	int64_t calls;
	double incl, excl, min, max;
	int size;         /* nodes of its subtree, itself included */
} pnode;

typedef struct ptree {
	pnode *n;
	int count, cap;
} ptree;

static int tree_add(ptree *t, const char *name, int fn, int line, int parent)
{
	if (t->count == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->n = cgm_xrealloc(t->n, sizeof(pnode) * (size_t)t->cap);
	}
	pnode *x = &t->n[t->count];
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->fn = fn;
	x->line = line;
	x->parent = parent;
	x->first = x->next = -1;
	x->depth = parent >= 0 ? t->n[parent].depth + 1 : 0;
	x->size = 1;
	if (parent >= 0) {
		/* Appended at the head; children are sorted when shown. */
		x->next = t->n[parent].first;
		t->n[parent].first = t->count;
	}
	return t->count++;
}

/* Every path merged into one tree under a root standing for everything
 * (node 0): node 0's children are the entry points.  Children are created
 * after their parent, so a walk from the last node to the first sees every
 * child before its parent. */
static void tree_build(ptree *t, const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	memset(t, 0, sizeof(*t));
	tree_add(t, "all", -1, 0, -1);
	for (int p = 0; p < m->npaths; p++) {
		const cgm_call_path *path = &m->paths[p];
		if (path->nframes < 1 || frame_fn(ctx, path->frames[0]) < 0)
			continue;
		int at = 0;
		for (int k = 0; k < path->nframes; k++) {
			const char *name = path->frames[k] ? path->frames[k] : "?";
			int line = k > 0 && path->lines ? path->lines[k] : 0;
			int c = t->n[at].first;
			while (c >= 0 && (t->n[c].line != line || strcmp(t->n[c].name, name) != 0))
				c = t->n[c].next;
			if (c < 0)
				c = tree_add(t, name, frame_fn(ctx, name), line, at);
			at = c;
		}
		pnode *x = &t->n[at];
		if (x->own && x->calls > 0) {
			if (path->min_ms < x->min)
				x->min = path->min_ms;
			if (path->max_ms > x->max)
				x->max = path->max_ms;
		} else {
			x->min = path->min_ms;
			x->max = path->max_ms;
		}
		x->own = true;
		x->calls += path->stats.calls;
		x->incl += path->stats.total_ms;
		x->excl += path->stats.self_ms;
	}
	/* A node no path ends in (only when a snapshot lacks a prefix path)
	 * takes its children's time; sizes add up the same way. */
	double *sum = cgm_xcalloc((size_t)t->count, sizeof(double));
	for (int i = t->count - 1; i > 0; i--) {
		pnode *x = &t->n[i];
		if (!x->own)
			x->incl = sum[i];
		sum[x->parent] += x->incl;
		t->n[x->parent].size += x->size;
	}
	t->n[0].incl = sum[0];
	free(sum);
}

static int by_incl_desc(const void *a, const void *b, void *arg)
{
	const ptree *t = arg;
	const pnode *x = &t->n[*(const int *)a], *y = &t->n[*(const int *)b];
	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

/* The children of node, most inclusive time first (malloc'd). */
static int *children(const ptree *t, int node, int *n)
{
	*n = 0;
	for (int c = t->n[node].first; c >= 0; c = t->n[c].next)
		(*n)++;
	int *v = cgm_xcalloc((size_t)*n + 1, sizeof(int));
	int k = 0;
	for (int c = t->n[node].first; c >= 0; c = t->n[c].next)
		v[k++] = c;
	qsort_r(v, (size_t)*n, sizeof(int), by_incl_desc, (void *)t);
	return v;
}

static void pct(cgm_strbuf *b, double part, double whole)
{
	if (whole > 0)
		cgm_strbuf_printf(b, "%.1f%%", 100.0 * part / whole);
	else
		cgm_strbuf_puts(b, "-");
}

/* A frame's name: a link to its function's page, "..." for the depth cut. */
static void frame_name(cgm_strbuf *b, const html_ctx *ctx, const pnode *x)
{
	if (strcmp(x->name, "...") == 0)
		cgm_strbuf_puts(b, "<span class=\"depthcut\" title=\"frames cut for depth by "
				   "cgmap_trace\">...</span>");
	else if (x->fn >= 0)
		html_fn_link(b, ctx, x->fn, "../");
	else {
		cgm_strbuf_puts(b, "<span class=\"builtin\">");
		html_text(b, x->name);
		cgm_strbuf_puts(b, "</span>");
	}
}

static void tree_node(cgm_strbuf *b, const html_ctx *ctx, const ptree *t, int node, double root,
		      int *left)
{
	const pnode *x = &t->n[node];
	(*left)--;
	bool leaf = x->first < 0;
	cgm_strbuf_printf(b, "<li data-node=\"%d\">", node);
	if (!leaf)
		cgm_strbuf_printf(b, "<details%s><summary>", x->depth <= 1 ? " open" : "");
	frame_name(b, ctx, x);
	if (x->line > 0) {
		const pnode *p = &t->n[x->parent];
		cgm_strbuf_puts(b, " <span class=\"muted\">from line</span> ");
		if (p->fn >= 0) {
			cgm_strbuf_puts(b, "<a class=\"line\" href=\"");
			html_fn_href(b, ctx, p->fn, "../");
			cgm_strbuf_printf(b, "#L%d\">%d</a>", x->line, x->line);
		} else {
			cgm_strbuf_printf(b, "%d", x->line);
		}
	}
	cgm_strbuf_printf(b, " <span class=\"pf\"><span class=\"calls\">%lld calls</span>, "
			     "<span class=\"incl\">",
			  (long long)x->calls);
	html_ms(b, x->incl);
	cgm_strbuf_puts(b, " ms</span> incl, <span class=\"excl\">");
	html_ms(b, x->excl);
	cgm_strbuf_puts(b, " ms</span> excl, ");
	if (x->depth > 1) { /* the entry point's parent is the root of all */
		cgm_strbuf_puts(b, "<span class=\"ofparent\">");
		pct(b, x->incl, t->n[x->parent].incl);
		cgm_strbuf_puts(b, "</span> of parent, ");
	}
	cgm_strbuf_puts(b, "<span class=\"ofroot\">");
	pct(b, x->incl, root);
	cgm_strbuf_puts(b, "</span> of root");
	if (x->calls > 0) {
		cgm_strbuf_puts(b, ", avg ");
		html_ms(b, x->incl / (double)x->calls);
		cgm_strbuf_puts(b, " min ");
		html_ms(b, x->min);
		cgm_strbuf_puts(b, " max ");
		html_ms(b, x->max);
		cgm_strbuf_puts(b, " ms");
	}
	cgm_strbuf_puts(b, "</span>");
	if (leaf) {
		cgm_strbuf_puts(b, "</li>\n");
		return;
	}
	cgm_strbuf_puts(b, "</summary>\n<ul>\n");
	int nc;
	int *kids = children(t, node, &nc);
	int skipped = 0;
	double skipped_ms = 0;
	for (int k = 0; k < nc; k++) {
		if (*left > 0) {
			tree_node(b, ctx, t, kids[k], root, left);
		} else {
			skipped += t->n[kids[k]].size;
			skipped_ms += t->n[kids[k]].incl;
		}
	}
	if (skipped) {
		cgm_strbuf_printf(b, "<li class=\"more\">+%d more frames (", skipped);
		html_ms(b, skipped_ms);
		cgm_strbuf_puts(b, " ms inclusive)</li>\n");
	}
	free(kids);
	cgm_strbuf_puts(b, "</ul></details></li>\n");
}

/* ---- flame graph ---- */

/* A colour of the warm range, from the name (so a function keeps its colour
 * across graphs). */
static void frame_colour(cgm_strbuf *b, const pnode *x)
{
	if (strcmp(x->name, "...") == 0 || x->fn < 0) {
		cgm_strbuf_puts(b, "#ced4da");
		return;
	}
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)x->name; *p; p++)
		h = (h ^ *p) * 16777619u;
	cgm_strbuf_printf(b, "rgb(%u,%u,%u)", 205 + (h & 31), 90 + ((h >> 5) & 127),
			  40 + ((h >> 12) & 31));
}

/* The label that fits w units: the name, cut with ".." (at a character's
 * start), or nothing. */
static void frame_label(cgm_strbuf *b, const char *name, double w)
{
	int fit = (int)((w - 6) / 7);
	if (fit < 3)
		return;
	size_t len = strlen(name);
	if (len <= (size_t)fit) {
		html_text(b, name);
		return;
	}
	size_t cut = (size_t)fit - 2;
	while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
		cut--;
	char *s = cgm_xcalloc(cut + 3, 1);
	memcpy(s, name, cut);
	memcpy(s + cut, "..", 2);
	html_text(b, s);
	free(s);
}

/* The flame graph (root at the top) of node's subtree: a rect per frame at
 * least a 1,000th of the root wide, HTML_PROFILE_FLAME_CAP at most, the
 * widest first. */
static void flame(cgm_strbuf *b, const html_ctx *ctx, const ptree *t, int top, const char *title)
{
	double whole = t->n[top].incl;
	if (!(whole > 0)) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No time was measured on these paths, so there "
				   "is no flame graph.</p>\n");
		return;
	}
	/* Breadth-first by node, so the cap keeps the widest frames near the
	 * top: a queue of (node, x). */
	int *queue = cgm_xcalloc((size_t)t->count + 1, sizeof(int));
	double *qx = cgm_xcalloc((size_t)t->count + 1, sizeof(double));
	int head = 0, tail = 0, drawn = 0, maxdepth = 0, left_out = 0;
	queue[tail] = top, qx[tail++] = 0;
	cgm_strbuf body = CGM_STRBUF_INIT;
	int base = t->n[top].depth;
	while (head < tail) {
		int node = queue[head];
		double x = qx[head++];
		const pnode *p = &t->n[node];
		double w = p->incl / whole;
		if (drawn >= HTML_PROFILE_FLAME_CAP || w * FLAME_WIDTH < 1.2) {
			left_out += p->size;
			continue;
		}
		drawn++;
		int d = p->depth - base;
		if (d > maxdepth)
			maxdepth = d;
		cgm_strbuf_printf(&body, "<g class=\"fr\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%d\" "
					 "data-n=\"",
				  x, w, d);
		html_text(&body, p->name);
		cgm_strbuf_puts(&body, "\">");
		bool link = p->fn >= 0;
		if (link) {
			cgm_strbuf_puts(&body, "<a href=\"");
			html_fn_href(&body, ctx, p->fn, "../");
			cgm_strbuf_puts(&body, "\">");
		}
		cgm_strbuf_puts(&body, "<title>");
		html_text(&body, p->name);
		cgm_strbuf_puts(&body, ": ");
		html_ms(&body, p->incl);
		cgm_strbuf_puts(&body, " ms (");
		pct(&body, p->incl, whole);
		cgm_strbuf_printf(&body, "), %lld calls</title>", (long long)p->calls);
		double px = x * FLAME_WIDTH, pw = w * FLAME_WIDTH;
		cgm_strbuf_printf(&body, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"",
				  px, d * FLAME_ROW, pw, FLAME_ROW - 1);
		frame_colour(&body, p);
		cgm_strbuf_printf(&body, "\"/><text x=\"%.2f\" y=\"%d\">", px + 3, d * FLAME_ROW + 12);
		frame_label(&body, p->name, pw);
		cgm_strbuf_printf(&body, "</text>%s</g>\n", link ? "</a>" : "");
		int nc;
		int *kids = children(t, node, &nc);
		double cx = x;
		for (int k = 0; k < nc; k++) {
			queue[tail] = kids[k];
			qx[tail++] = cx;
			cx += t->n[kids[k]].incl / whole;
		}
		free(kids);
	}
	int height = (maxdepth + 1) * FLAME_ROW;
	cgm_strbuf_puts(b, "<div class=\"flame\"><p class=\"flame-tools\" hidden><input "
			   "type=\"search\" class=\"flame-search\" placeholder=\"highlight frames\" "
			   "aria-label=\"highlight frames\"> <button type=\"button\" "
			   "class=\"flame-reset\">reset zoom</button> <span class=\"muted "
			   "flame-found\"></span></p>\n");
	cgm_strbuf_printf(b, "<svg class=\"flamegraph\" xmlns=\"http://www.w3.org/2000/svg\" "
			     "width=\"100%%\" viewBox=\"0 0 %d %d\" preserveAspectRatio=\"xMinYMin "
			     "meet\" data-width=\"%d\" role=\"img\" aria-label=\"",
			  FLAME_WIDTH, height, FLAME_WIDTH);
	html_text(b, title);
	cgm_strbuf_puts(b, "\">\n");
	cgm_strbuf_add(b, body.data ? body.data : "", body.len);
	cgm_strbuf_puts(b, "</svg>\n");
	cgm_strbuf_printf(b, "<p class=\"muted\">%d frames drawn, width by inclusive time, "
			     "callees below their caller",
			  drawn);
	if (left_out)
		cgm_strbuf_printf(b, "; +%d more frames too narrow to draw or past the cap of %d",
				  left_out, HTML_PROFILE_FLAME_CAP);
	cgm_strbuf_puts(b, ". A click on a frame zooms to it, a click on the zoomed frame opens "
			   "its function.</p></div>\n");
	cgm_strbuf_free(&body);
	free(queue);
	free(qx);
}

/* ---- shapes ---- */

static int by_shape_calls(const void *a, const void *b, void *arg)
{
	const cgm_model *m = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (m->shapes[x].calls != m->shapes[y].calls)
		return m->shapes[x].calls > m->shapes[y].calls ? -1 : 1;
	return (x > y) - (x < y);
}

static void shape_fn(cgm_strbuf *b, const html_ctx *ctx, const char *id)
{
	int f = frame_fn(ctx, id);
	if (f >= 0) {
		html_fn_link(b, ctx, f, "../");
	} else {
		cgm_strbuf_puts(b, "<span class=\"builtin\">");
		html_text(b, id);
		cgm_strbuf_puts(b, "</span>");
	}
}

static void shapes_list(cgm_strbuf *b, const html_ctx *ctx, int entry)
{
	const cgm_model *m = ctx->model;
	const char *id = m->functions[entry].id;
	int *ix = cgm_xcalloc((size_t)m->nshapes + 1, sizeof(int));
	int n = 0;
	int64_t total = 0;
	for (int s = 0; s < m->nshapes; s++)
		if (m->shapes[s].entry && strcmp(m->shapes[s].entry, id) == 0) {
			ix[n++] = s;
			total += m->shapes[s].calls;
		}
	cgm_strbuf_printf(b, "<h2 id=\"shapes\">Call shapes (%d)</h2>\n", n);
	if (!n) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No call shape was recorded for this entry "
				   "point.</p>\n");
		free(ix);
		return;
	}
	qsort_r(ix, (size_t)n, sizeof(int), by_shape_calls, (void *)m);
	cgm_strbuf_puts(b, "<p>Each shape is the set of calls one top-level call of it made.</p>\n"
			   "<ol class=\"shapes\">\n");
	for (int k = 0; k < n && k < SHAPES_MAX; k++) {
		const cgm_call_shape *s = &m->shapes[ix[k]];
		cgm_strbuf_printf(b, "<li class=\"shape\"><span class=\"count\">%lld call%s</span> "
				     "(<span class=\"share\">",
				  (long long)s->calls, s->calls == 1 ? "" : "s");
		pct(b, (double)s->calls, (double)total);
		cgm_strbuf_printf(b, "</span>), %d edge%s", s->nedges, s->nedges == 1 ? "" : "s");
		if (s->nedges == 0) {
			cgm_strbuf_puts(b, ": no call</li>\n");
			continue;
		}
		cgm_strbuf_puts(b, "<ul>\n");
		for (int e = 0; e < s->nedges && e < SHAPE_EDGES_MAX; e++) {
			const cgm_shape_edge *ed = &s->edges[e];
			cgm_strbuf_puts(b, "<li>");
			shape_fn(b, ctx, ed->caller);
			cgm_strbuf_puts(b, " &rarr; ");
			shape_fn(b, ctx, ed->callee);
			if (ed->site_line > 0) {
				int c = frame_fn(ctx, ed->caller);
				cgm_strbuf_puts(b, " <span class=\"muted\">line</span> ");
				if (c >= 0) {
					cgm_strbuf_puts(b, "<a class=\"line\" href=\"");
					html_fn_href(b, ctx, c, "../");
					cgm_strbuf_printf(b, "#L%d\">%d</a>", ed->site_line,
							  ed->site_line);
				} else {
					cgm_strbuf_printf(b, "%d", ed->site_line);
				}
			}
			if (ed->dynamic)
				cgm_strbuf_puts(b, " <span class=\"badge\">dynamic</span>");
			cgm_strbuf_puts(b, "</li>\n");
		}
		if (s->nedges > SHAPE_EDGES_MAX)
			cgm_strbuf_printf(b, "<li class=\"more\">+%d more edges</li>\n",
					  s->nedges - SHAPE_EDGES_MAX);
		cgm_strbuf_puts(b, "</ul></li>\n");
	}
	cgm_strbuf_puts(b, "</ol>\n");
	if (n > SHAPES_MAX)
		cgm_strbuf_printf(b, "<p class=\"more\">+%d more shapes (<code>cgmap report "
				     "shapes</code> lists them all).</p>\n",
				  n - SHAPES_MAX);
	free(ix);
}

/* ---- pages ---- */

static int entry_page(const html_ctx *ctx, const ptree *t, int node)
{
	const pnode *e = &t->n[node];
	const cgm_function *f = &ctx->model->functions[e->fn];
	cgm_strbuf title = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&title, "profile of %s", f->id);
	cgm_strbuf b = CGM_STRBUF_INIT;
	html_page_begin(&b, ctx, "../", cgm_strbuf_cstr(&title));
	cgm_strbuf_puts(&b, "<p class=\"muted\">execution profile of an entry point</p>\n<h1>");
	html_fn_link(&b, ctx, e->fn, "../");
	cgm_strbuf_puts(&b, "</h1>\n<p>Built from the call paths cgmap_trace recorded from this "
			    "entry point (<a href=\"all.html\">every entry point</a>). ");
	cgm_strbuf_printf(&b, "%lld calls, ", (long long)e->calls);
	html_ms(&b, e->incl);
	cgm_strbuf_printf(&b, " ms in all, %d frames.</p>\n", e->size);
	cgm_strbuf_puts(&b, "<h2 id=\"flame\">Flame graph</h2>\n");
	flame(&b, ctx, t, node, cgm_strbuf_cstr(&title));
	cgm_strbuf_puts(&b, "<h2 id=\"tree\">Execution tree</h2>\n<p class=\"muted\">Each frame: "
			    "calls, inclusive and exclusive time, share of its caller's and of "
			    "the entry point's inclusive time, average, least and greatest time of "
			    "one call; the line of the caller that made the call. <code>...</code> "
			    "stands for frames cut for depth.</p>\n<ul class=\"ptree\">\n");
	int left = HTML_PROFILE_TREE_CAP;
	tree_node(&b, ctx, t, node, e->incl, &left);
	cgm_strbuf_puts(&b, "</ul>\n");
	if (e->size > HTML_PROFILE_TREE_CAP)
		cgm_strbuf_printf(&b, "<p class=\"note\">%d of %d frames are shown, the busiest "
				      "first.</p>\n",
				  HTML_PROFILE_TREE_CAP, e->size);
	shapes_list(&b, ctx, e->fn);
	html_page_end(&b, "../", false);
	cgm_strbuf rel = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&rel, "profile/");
	cgm_strbuf_puts(&rel, ctx->page[e->fn]);
	int rc = html_write_file(ctx, cgm_strbuf_cstr(&rel), &b);
	cgm_strbuf_free(&rel);
	cgm_strbuf_free(&b);
	cgm_strbuf_free(&title);
	return rc;
}

/* The resource profile: top rows (all when top <= 0), sortable. */
static void profile_table(cgm_strbuf *b, const html_ctx *ctx, const char *root, int top,
			  int *total)
{
	const cgm_model *m = ctx->model;
	cgm_profile_row *rows;
	int n = cgm_profile_rows(&rows, NULL, m);
	*total = n;
	if (!n) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No function was measured.</p>\n");
		free(rows);
		return;
	}
	cgm_strbuf_puts(b, "<table class=\"sortable profile\"><thead><tr><th>function</th>"
			   "<th class=\"num\">exclusive ms</th><th class=\"num\">%</th>"
			   "<th class=\"num\">calls</th><th class=\"num\">avg ms</th>"
			   "<th class=\"num\">min ms</th><th class=\"num\">max ms</th></tr></thead>"
			   "<tbody>\n");
	for (int k = 0; k < n && (top <= 0 || k < top); k++) {
		const cgm_runtime_stats *s = &rows[k].stats;
		cgm_strbuf_puts(b, "<tr><td>");
		html_fn_link(b, ctx, rows[k].fn, root);
		cgm_strbuf_printf(b, "</td><td class=\"num\" data-v=\"%.6f\">", s->self_ms);
		html_ms(b, s->self_ms);
		cgm_strbuf_printf(b, "</td><td class=\"num\" data-v=\"%.6f\">", rows[k].share_pct);
		if (rows[k].share_pct >= 0)
			cgm_strbuf_printf(b, "%.1f", rows[k].share_pct);
		cgm_strbuf_printf(b, "</td><td class=\"num\">%lld</td>", (long long)s->calls);
		if (rows[k].avg_ms >= 0) {
			double avg = rows[k].avg_ms;
			cgm_strbuf_printf(b, "<td class=\"num\" data-v=\"%.6f\">", avg);
			html_ms(b, avg);
			cgm_strbuf_puts(b, "</td>");
		} else {
			cgm_strbuf_puts(b, "<td class=\"num\" data-v=\"-1\"></td>");
		}
		if (rows[k].has_minmax) {
			cgm_strbuf_printf(b, "<td class=\"num\" data-v=\"%.6f\">", rows[k].min_ms);
			html_ms(b, rows[k].min_ms);
			cgm_strbuf_printf(b, "</td><td class=\"num\" data-v=\"%.6f\">", rows[k].max_ms);
			html_ms(b, rows[k].max_ms);
			cgm_strbuf_puts(b, "</td>");
		} else {
			cgm_strbuf_puts(b, "<td class=\"num\" data-v=\"-1\"></td>"
					   "<td class=\"num\" data-v=\"-1\"></td>");
		}
		cgm_strbuf_puts(b, "</tr>\n");
	}
	cgm_strbuf_puts(b, "</tbody></table>\n");
	free(rows);
}

/* The entry points with a profile page, by id (the first max; all when
 * max <= 0). */
static void entry_list(cgm_strbuf *b, const html_ctx *ctx, const char *root, int max)
{
	int n = 0;
	for (int i = 0; i < ctx->nuser; i++)
		n += ctx->prof_entry[i];
	if (!n)
		return;
	cgm_strbuf_printf(b, "<p class=\"profiles\">Execution trees and flame graphs of the %d "
			     "entry points with call paths:",
			  n);
	int k = 0;
	for (int i = 0; i < ctx->nuser && (max <= 0 || k < max); i++) {
		if (!ctx->prof_entry[i])
			continue;
		cgm_strbuf_printf(b, "%s <a class=\"profile\" href=\"", k++ ? "," : "");
		profile_href(b, ctx, i, root);
		cgm_strbuf_puts(b, "\">");
		html_text(b, ctx->model->functions[i].id);
		cgm_strbuf_puts(b, "</a>");
	}
	if (k < n)
		cgm_strbuf_printf(b, " and <a href=\"%sprofile/all.html\">%d more</a>", root, n - k);
	cgm_strbuf_puts(b, ".</p>\n");
}

static int all_page(const html_ctx *ctx, const ptree *t)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	html_page_begin(&b, ctx, "../", "execution profile");
	cgm_strbuf_puts(&b, "<h1>Execution profile</h1>\n");
	entry_list(&b, ctx, "../", 0);
	if (ctx->model->npaths) {
		cgm_strbuf_puts(&b, "<h2 id=\"flame\">Flame graph of every entry point</h2>\n");
		flame(&b, ctx, t, 0, "flame graph of every entry point");
	} else {
		cgm_strbuf_puts(&b, "<p class=\"note\">No call paths were recorded (they come from "
				    "cgmap_trace 1.3), so there are no execution trees or flame "
				    "graphs.</p>\n");
	}
	int total;
	cgm_strbuf puts_table = CGM_STRBUF_INIT;
	profile_table(&puts_table, ctx, "../", 0, &total);
	cgm_strbuf_printf(&b, "<h2 id=\"profile\">Resource profile (%d functions)</h2>\n", total);
	cgm_strbuf_add(&b, puts_table.data ? puts_table.data : "", puts_table.len);
	cgm_strbuf_free(&puts_table);
	html_page_end(&b, "../", false);
	int rc = html_write_file(ctx, "profile/all.html", &b);
	cgm_strbuf_free(&b);
	return rc;
}

int html_write_profile_pages(const html_ctx *ctx)
{
	if (!ctx->model->has_runtime)
		return 0;
	ptree t;
	tree_build(&t, ctx);
	int rc = all_page(ctx, &t);
	for (int c = t.n[0].first; c >= 0 && !rc; c = t.n[c].next)
		rc = entry_page(ctx, &t, c);
	free(t.n);
	return rc;
}

void html_profile_index(cgm_strbuf *b, const html_ctx *ctx)
{
	int total;
	cgm_strbuf table = CGM_STRBUF_INIT;
	profile_table(&table, ctx, "", PROFILE_TOP, &total);
	cgm_strbuf_puts(b, "<h3 id=\"profile\">Resource profile</h3>\n");
	entry_list(b, ctx, "", PROFILE_TOP);
	cgm_strbuf_add(b, table.data ? table.data : "", table.len);
	cgm_strbuf_free(&table);
	cgm_strbuf_puts(b, "<p>");
	if (total > PROFILE_TOP)
		cgm_strbuf_printf(b, "The %d of %d functions of most exclusive time. ", PROFILE_TOP,
				  total);
	cgm_strbuf_puts(b, "<a href=\"profile/all.html\">The full profile");
	if (ctx->model->npaths)
		cgm_strbuf_puts(b, " and the flame graph of every entry point");
	cgm_strbuf_puts(b, "</a>.</p>\n");
}

void html_profile_function(cgm_strbuf *b, const html_ctx *ctx, int fn)
{
	if (!ctx->model->has_runtime)
		return;
	int first = ctx->thru_start[fn], n = ctx->thru_start[fn + 1] - first;
	if (ctx->prof_entry[fn]) {
		cgm_strbuf_puts(b, "<p class=\"profiles\">An entry point: <a class=\"profile\" "
				   "href=\"");
		profile_href(b, ctx, fn, "../");
		cgm_strbuf_puts(b, "\">its execution tree, flame graph and call shapes</a>.</p>\n");
	}
	if (!n)
		return;
	int paths = 0;
	for (int k = 0; k < n; k++)
		paths += ctx->thru_npaths[first + k];
	cgm_strbuf_printf(b, "<p class=\"profiles\">Appears in %d call path%s of %d entry point%s:",
			  paths, paths == 1 ? "" : "s", n, n == 1 ? "" : "s");
	for (int k = 0; k < n && k < THRU_ENTRIES_MAX; k++) {
		int e = ctx->thru_entry[first + k];
		cgm_strbuf_printf(b, "%s <a class=\"profile\" href=\"", k ? "," : "");
		profile_href(b, ctx, e, "../");
		cgm_strbuf_puts(b, "\">");
		html_text(b, ctx->model->functions[e].id);
		cgm_strbuf_printf(b, "</a> (%d)", ctx->thru_npaths[first + k]);
	}
	if (n > THRU_ENTRIES_MAX)
		cgm_strbuf_printf(b, " and %d more", n - THRU_ENTRIES_MAX);
	cgm_strbuf_puts(b, ".</p>\n");
}

/* Every file html_write_profile_pages() writes, for the manifest. */
int html_profile_files(const html_ctx *ctx, void (*add)(void *arg, const char *page), void *arg)
{
	if (!ctx->model->has_runtime)
		return 0;
	add(arg, "all.html");
	int n = 1;
	for (int i = 0; i < ctx->nuser; i++)
		if (ctx->prof_entry[i]) {
			add(arg, ctx->page[i]);
			n++;
		}
	return n;
}
