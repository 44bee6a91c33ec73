/*
 * html_graph.c - the graphs of the HTML site: a function's neighbourhood
 * (callers and callees to a depth) and a schema's overview, written as DOT
 * and laid out in-process by Graphviz (dot) to SVG.
 *
 * In:  the html_ctx (read-only) and a per-worker scratch that holds the
 *      Graphviz context and marking arrays (html_graph_scratch_new/free).
 * Out: DOT text and the bare <svg> element appended to caller-owned strbufs.
 *
 * A graph never draws more than node_cap functions: what the cap leaves out
 * is counted in explicit "+N more" nodes, so nothing vanishes silently and
 * no layout grows into a hairball that takes minutes.  Every node name is a
 * plain "nK"; names from the model only reach DOT through cgm_escape_dot, in
 * labels and tooltips, and Graphviz writes those XML-escaped into the SVG.
 *
 * The layout cache: a graph is laid out from its DOT with every tooltip
 * replaced by a placeholder ("T0", "T1", ...; tooltips never change a
 * layout), and the slimmed SVG of that is kept in .cgmap-cache/KEY.svg,
 * KEY the FNV-1a hash of cgmap's and Graphviz's versions and that DOT.
 * The real tooltips are then put in place of the placeholders, escaped as
 * Graphviz escapes them, so runtime figures in tooltips (calls, self and
 * total times) change no key.  A tooltip with a character whose escaping
 * is not reproduced here (a backslash, a control picture) stays in the
 * DOT, and in the key.  A node's penwidth (from its self time) is taken
 * out likewise and put back as its shapes' stroke-width, when a probe
 * shows this Graphviz lays out the same without it (pen_neutral).  An entry is a header line with the SVG's length
 * and hash, then the SVG: a truncated or altered entry is a miss.
 */
#include "html_internal.h"
#include "cgmap/scc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gvc.h>

#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/hash.h"
#include "cgmap/runtime.h"

/* Colours: shared with the legend in html_page.c. */
#define COL_STATIC "#495057"
#define COL_OBSERVED "#e8590c"
#define COL_BOTH "#1971c2"
#define COL_DYNAMIC "#7048e8"
#define COL_TRIGGER "#2b8a3e"
#define COL_MISSING "#c92a2a"
#define COL_MORE "#868e96"

/* Extra nodes (missing callees, dynamic sites) drawn for one function. */
#define EXTRA_CAP 12
/* Possible targets of the focal function's dynamic sites drawn as nodes
 * of their own (targets already in the graph only get the edge). */
#define POSSIBLE_CAP 12
/* Beyond the first ring, a function shows at most this many of its own
 * callers or callees (the busiest first); the rest go to its "+N more"
 * node. */
#define OUTER_FANOUT 6
/* The focal function's own callers, and its callees, drawn one by one (the
 * busiest first): a function called from hundreds of places would
 * otherwise be a column thousands of pixels tall above its tables, which
 * list them all. */
#define DIRECT_FANOUT 16
/* Per-function "+N more" nodes drawn per direction before they are summed
 * up in one. */
#define MARKS_SHOWN 8
/* Other schemas drawn one by one in a schema's overview; the rest share a
 * "+N more schemas" node. */
#define OTHERS_SHOWN 12
/* Labels longer than this are cut with an ellipsis (the tooltip keeps all). */
#define LABEL_MAX 44

struct html_graph_scratch {
	GVC_t *gvc;
	const html_ctx *ctx;
	int item;           /* graph item of the next html_graph_svg, -1 unknown */
	int nfn;
	unsigned stamp;
	unsigned *seen;     /* seen[f] == stamp: f is a node of the graph being built */
	int *node_of;       /* its node number, valid when seen */
	unsigned *seen2;    /* seen2[f] == stamp2: f counted (what a graph leaves out) */
	unsigned stamp2;
	int *list, *next;   /* BFS frontiers */
	int *kept;          /* function of each kept node */
	int *level;         /* a kept function's distance: -d callers' side, +d callees' */
	int nkept;
	int *order;         /* neighbour ordering */
	double *weight;
	cgm_dynsql_reader *dynsql; /* this worker's reader of dynamic sites, made on
	                            * first use */
};

html_graph_scratch *html_graph_scratch_new(const html_ctx *ctx)
{
	html_graph_scratch *s = cgm_xcalloc(sizeof(*s), 1);
	size_t n = (size_t)ctx->nfn + 1;
	s->nfn = ctx->nfn;
	s->ctx = ctx;
	s->item = -1;
	s->seen = cgm_xcalloc(n * sizeof(unsigned), 1);
	s->seen2 = cgm_xcalloc(n * sizeof(unsigned), 1);
	s->node_of = cgm_xcalloc(n * sizeof(int), 1);
	s->list = cgm_xcalloc(n * sizeof(int), 1);
	s->next = cgm_xcalloc(n * sizeof(int), 1);
	s->kept = cgm_xcalloc(n * sizeof(int), 1);
	s->level = cgm_xcalloc(n * sizeof(int), 1);
	s->order = cgm_xcalloc(n * sizeof(int), 1);
	s->weight = cgm_xcalloc(n * sizeof(double), 1);
	return s;
}

void html_graph_scratch_free(html_graph_scratch *s)
{
	if (!s)
		return;
	free(s->seen), free(s->seen2), free(s->node_of), free(s->list), free(s->next);
	free(s->kept), free(s->order), free(s->weight), free(s->level);
	cgm_dynsql_reader_free(s->dynsql);
	free(s);
}

cgm_dynsql_reader *html_graph_dynsql(html_graph_scratch *s, const html_ctx *ctx)
{
	if (!s->dynsql)
		s->dynsql = cgm_dynsql_reader_new(ctx->model);
	return s->dynsql;
}

int html_graph_mark_possible(unsigned char *seen, html_graph_scratch *s, const html_ctx *ctx,
			     int fn)
{
	const cgm_function *focal = &ctx->model->functions[fn];
	int marked = 0;
	for (int i = 0, d = 0; i < focal->nsites && d < EXTRA_CAP; i++) {
		const cgm_site *site = &focal->sites[i];
		if (site->kind != CGM_SITE_DYNAMIC || site->resolution == CGM_RES_MISSING)
			continue;
		marked += cgm_dynsql_mark_targets(seen, html_graph_dynsql(s, ctx), site);
		d++;
	}
	if (fn < ctx->model->nuser && seen[fn]) {
		seen[fn] = 0; /* a function reaching itself is no target of its graph */
		marked--;
	}
	return marked;
}

void html_graph_scratch_item(html_graph_scratch *s, int item)
{
	s->item = item;
}

static void new_graph(html_graph_scratch *s)
{
	s->stamp++;
	s->nkept = 0;
}

static bool is_kept(const html_graph_scratch *s, int fn)
{
	return s->seen[fn] == s->stamp;
}

static int keep(html_graph_scratch *s, int fn)
{
	s->seen[fn] = s->stamp;
	s->node_of[fn] = s->nkept;
	s->kept[s->nkept] = fn;
	return s->nkept++;
}

/* ---- DOT pieces ---- */

static void dot_text(cgm_strbuf *dot, const char *s)
{
	cgm_escape_dot(dot, s ? s : "");
}

/* s cut to at most `max` characters (UTF-8 aware), with an ellipsis. */
static void dot_text_cut(cgm_strbuf *dot, const char *s, int max)
{
	int chars = 0;
	const char *p = s;
	for (; *p; p++) {
		if (((unsigned char)*p & 0xC0) != 0x80) {
			if (chars == max)
				break;
			chars++;
		}
	}
	if (!*p) {
		dot_text(dot, s);
		return;
	}
	/* Back up one character to leave room for the ellipsis. */
	const char *end = p;
	do
		end--;
	while (end > s && ((unsigned char)*end & 0xC0) == 0x80);
	char *cut = strndup(s, (size_t)(end - s));
	dot_text(dot, cut);
	free(cut);
	cgm_strbuf_puts(dot, "\xE2\x80\xA6");
}

static void graph_header(cgm_strbuf *dot, int nedges_hint)
{
	cgm_strbuf_puts(dot, "digraph \"callgraph\" {\n"
			     "  graph [rankdir=LR, fontname=\"sans-serif\", fontsize=10, "
			     "bgcolor=\"transparent\", nodesep=0.25, ranksep=0.55, tooltip=\" \"");
	/* Dense graphs: bound the crossing minimisation so layout stays quick. */
	if (nedges_hint > 150)
		cgm_strbuf_puts(dot, ", mclimit=0.3, nslimit=3, nslimit1=3");
	/* Square boxes: Graphviz draws "rounded" with many Bezier points, which
	 * costs a quarter of the layout and SVG time of a graph. */
	cgm_strbuf_puts(dot, "];\n"
			     "  node [shape=box, style=filled, fontname=\"sans-serif\", "
			     "fontsize=10, height=0.3, margin=\"0.12,0.04\", fillcolor=\"#ffffff\", "
			     "color=\"" COL_STATIC "\"];\n"
			     "  edge [fontname=\"sans-serif\", fontsize=9, color=\"" COL_STATIC
			     "\", arrowsize=0.7];\n");
}

static void fn_label(cgm_strbuf *dot, const html_ctx *ctx, int fn, const char *context_schema)
{
	const cgm_function *f = &ctx->model->functions[fn];
	cgm_strbuf raw = CGM_STRBUF_INIT;
	if (!context_schema || !f->schema || strcmp(context_schema, f->schema) != 0) {
		cgm_strbuf_puts(&raw, f->schema ? f->schema : "");
		cgm_strbuf_putc(&raw, '.');
	}
	cgm_strbuf_puts(&raw, f->name ? f->name : f->id);
	cgm_strbuf_putc(&raw, '(');
	cgm_strbuf_puts(&raw, f->identity_args ? f->identity_args : "");
	cgm_strbuf_putc(&raw, ')');
	dot_text_cut(dot, cgm_strbuf_cstr(&raw), LABEL_MAX);
	cgm_strbuf_free(&raw);
}

/* reach >= 0: an entry point of a schema's overview, and how many of the
 * schema's functions it reaches (its second label line). */
static void fn_node(cgm_strbuf *dot, const html_ctx *ctx, int node, int fn,
		    const char *context_schema, bool focal, int reach)
{
	const cgm_function *f = &ctx->model->functions[fn];
	cgm_strbuf_puts(dot, "  n"), cgm_strbuf_add_int(dot, node), cgm_strbuf_puts(dot, " [label=\"");
	fn_label(dot, ctx, fn, context_schema);
	if (reach >= 0)
		cgm_strbuf_printf(dot, "\\nentry, reaches %d", reach);
	cgm_strbuf_puts(dot, "\", tooltip=\"");
	dot_text(dot, f->id);
	cgm_strbuf status = CGM_STRBUF_INIT;
	html_status_text(&status, ctx, fn);
	if (status.len) {
		cgm_strbuf_puts(dot, " (");
		dot_text(dot, cgm_strbuf_cstr(&status));
		cgm_strbuf_puts(dot, ")");
	}
	cgm_strbuf_free(&status);
	if (ctx->model->has_runtime)
		cgm_strbuf_printf(dot, "\\n%lld calls, self %.3f ms, total %.3f ms",
				  (long long)f->runtime.calls, f->runtime.self_ms, f->runtime.total_ms);
	cgm_strbuf_puts(dot, "\"");
	if (fn >= ctx->nuser || !ctx->page[fn]) {
		cgm_strbuf_puts(dot, ", shape=ellipse, style=filled, fillcolor=\"#f8f9fa\", "
				     "color=\"#adb5bd\", fontcolor=\"#495057\"];\n");
		return;
	}
	cgm_strbuf_puts(dot, ", URL=\"../functions/"), cgm_strbuf_puts(dot, ctx->page[fn]);
	cgm_strbuf_putc(dot, '"');
	const char *fill = NULL, *line = NULL;
	if (f->dead)
		fill = "#ffc9c9", line = "#c92a2a";
	else if (html_fn_entry(f))
		fill = "#d3f9d8", line = "#2b8a3e";
	else if (f->cold)
		fill = "#d0ebff", line = "#1864ab";
	if (focal) {
		if (!fill)
			fill = "#fff3bf";
		line = "#000000";
	}
	if (fill) {
		cgm_strbuf_puts(dot, ", fillcolor=\""), cgm_strbuf_puts(dot, fill);
		cgm_strbuf_puts(dot, "\", color=\""), cgm_strbuf_puts(dot, line), cgm_strbuf_putc(dot, '"');
	}
	double pen = focal ? 2.5 : 1.0;
	if (ctx->max_self_ms > 0 && f->runtime.self_ms > 0)
		pen += 3.0 * sqrt(f->runtime.self_ms / ctx->max_self_ms);
	if (pen != 1.0)
		cgm_strbuf_printf(dot, ", penwidth=%.2f", pen);
	if (focal)
		cgm_strbuf_puts(dot, ", fontsize=11");
	cgm_strbuf_puts(dot, "];\n");
}

/* tooltip: none (TOOLTIP_NONE), the mechanism, provenance and lines
 * (TOOLTIP_SHORT: an edge of a function graph's focal function, whose
 * ends are plain to see), or also both ends' ids (TOOLTIP_FULL). */
enum { TOOLTIP_NONE, TOOLTIP_SHORT, TOOLTIP_FULL };

void html_edge_tooltip(cgm_strbuf *t, const cgm_edge *e, bool calls)
{
	cgm_strbuf_puts(t, cgm_via_name(e->via));
	if (e->object) {
		cgm_strbuf_putc(t, ' ');
		cgm_strbuf_puts(t, cgm_via_object_tail(e->via, e->object));
	}
	cgm_strbuf_puts(t, ", "), cgm_strbuf_puts(t, html_provenance_name(e->provenance));
	if (e->ambiguous)
		cgm_strbuf_puts(t, ", ambiguous");
	int nknown = 0;
	for (int l = 0; l < e->nlines; l++)
		nknown += e->lines[l] > 0; /* <= 0: observed with no known site */
	for (int l = 0, k = 0; l < e->nlines; l++)
		if (e->lines[l] > 0) {
			cgm_strbuf_puts(t, k++ ? ", " : nknown > 1 ? ", lines " : ", line ");
			cgm_strbuf_add_int(t, e->lines[l]);
		}
	if (calls)
		cgm_strbuf_printf(t, ", %lld calls", (long long)cgm_edge_runtime(e)->calls);
}

static void edge_attrs(cgm_strbuf *dot, const html_ctx *ctx, const cgm_edge *e, int tooltip)
{
	const cgm_model *m = ctx->model;
	bool st = e->provenance & CGM_EDGE_STATIC, ob = e->provenance & CGM_EDGE_OBSERVED;
	const char *color = st && ob ? COL_BOTH : ob ? COL_OBSERVED : COL_STATIC;
	cgm_strbuf_puts(dot, " [");
	switch (e->via) {
	case CGM_VIA_DYNAMIC:
		cgm_strbuf_puts(dot, "color=\"" COL_DYNAMIC "\", style=dotted, penwidth=2.2, "
				     "arrowhead=vee");
		break;
	case CGM_VIA_TRIGGER:
		cgm_strbuf_puts(dot, "color=\"" COL_TRIGGER "\", style=dashed, arrowhead=diamond");
		break;
	case CGM_VIA_LITERAL:
		cgm_strbuf_printf(dot, "color=\"%s\", arrowhead=empty%s", color,
				  st && ob ? ", penwidth=2.2" : "");
		break;
	case CGM_VIA_CALL:
		cgm_strbuf_puts(dot, "color=\""), cgm_strbuf_puts(dot, color), cgm_strbuf_putc(dot, '"');
		cgm_strbuf_puts(dot, st && ob ? ", penwidth=2.2" : "");
		break;
	case CGM_VIA_OPERATOR:
	case CGM_VIA_CAST:
	case CGM_VIA_AGGREGATE:
		cgm_strbuf_printf(dot, "color=\"%s\", style=dashed, arrowhead=odiamond%s", color,
				  st && ob ? ", penwidth=2.2" : "");
		break;
	default: /* run on a relation's behalf: views, defaults, checks, ... */
		cgm_strbuf_printf(dot, "color=\"" COL_TRIGGER "\", style=dashed, arrowhead=box%s",
				  st && ob ? ", penwidth=2.2" : "");
		break;
	}
	if (ob && cgm_edge_runtime(e)->calls > 0)
		cgm_strbuf_printf(dot, ", label=\"%lld\xC3\x97\", fontcolor=\"%s\"",
				  (long long)cgm_edge_runtime(e)->calls,
				  e->via == CGM_VIA_DYNAMIC ? COL_DYNAMIC : color);
	if (e->ambiguous)
		cgm_strbuf_puts(dot, ", arrowtail=odot, dir=both");
	if (tooltip != TOOLTIP_NONE) {
		cgm_strbuf_puts(dot, ", tooltip=\"");
		if (tooltip == TOOLTIP_FULL) {
			dot_text(dot, m->functions[e->from].id);
			cgm_strbuf_puts(dot, " \xE2\x86\x92 ");
			dot_text(dot, m->functions[e->to].id);
			cgm_strbuf_puts(dot, "\\n");
		}
		cgm_strbuf text = CGM_STRBUF_INIT;
		html_edge_tooltip(&text, e, ob);
		dot_text(dot, cgm_strbuf_cstr(&text));
		cgm_strbuf_free(&text);
		cgm_strbuf_puts(dot, "\"");
	}
	cgm_strbuf_puts(dot, "];\n");
}

static void more_node(cgm_strbuf *dot, const char *id, int count, const char *what,
		      const char *url)
{
	cgm_strbuf_printf(dot,
			  "  %s [label=\"+%d more %s\", shape=box, style=\"dashed,filled\", "
			  "fillcolor=\"#f1f3f5\", color=\"" COL_MORE "\", fontcolor=\"#495057\", "
			  "tooltip=\"%d %s not drawn: the graph is capped at its node limit\"",
			  id, count, what, count, what);
	if (url)
		cgm_strbuf_printf(dot, ", URL=\"%s\"", url);
	cgm_strbuf_puts(dot, "];\n");
}

/* ---- a function's neighbourhood ---- */

int html_graph_outer_fanout(void)
{
	return OUTER_FANOUT;
}

typedef struct {
	const html_ctx *ctx;
	const double *weight;
} weight_order;

static int compare_weight(const void *a, const void *b, void *arg)
{
	const weight_order *o = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (o->weight[x] != o->weight[y])
		return o->weight[x] > o->weight[y] ? -1 : 1;
	return x - y;
}

/* Distinct neighbours of fn (callers when up), heaviest observed first,
 * into s->order; returns how many. */
static int neighbours(html_graph_scratch *s, const html_ctx *ctx, int fn, bool up)
{
	const int *start = up ? ctx->in_start : ctx->out_start;
	const int *list = up ? ctx->in_list : ctx->out_list;
	int n = 0;
	for (int k = start[fn]; k < start[fn + 1]; k++) {
		const cgm_edge *e = &ctx->model->edges[list[k]];
		int other = up ? e->from : e->to;
		if (n > 0 && s->order[n - 1] == other) {
			s->weight[other] += (double)cgm_edge_runtime(e)->calls;
			continue;
		}
		s->order[n++] = other;
		s->weight[other] = (double)cgm_edge_runtime(e)->calls;
	}
	weight_order o = { ctx, s->weight };
	qsort_r(s->order, (size_t)n, sizeof(int), compare_weight, &o);
	return n;
}

typedef struct more_mark {
	int fn;     /* function whose neighbours were cut */
	bool up;    /* its callers (else its callees) */
	int count;
} more_mark;

/* How many distinct functions lie within depth of fn (either direction),
 * besides fn: what an uncapped graph would draw. */
static int count_within(html_graph_scratch *s, const html_ctx *ctx, int fn, int depth)
{
	int total = 0;
	s->stamp2++;
	s->seen2[fn] = s->stamp2;
	for (int dir = 0; dir < 2; dir++) {
		bool up = dir == 0;
		const int *start = up ? ctx->in_start : ctx->out_start;
		const int *list = up ? ctx->in_list : ctx->out_list;
		int nfront = 1;
		s->list[0] = fn;
		for (int d = 0; d < depth && nfront > 0; d++) {
			int nnext = 0;
			for (int i = 0; i < nfront; i++) {
				int u = s->list[i];
				for (int k = start[u]; k < start[u + 1]; k++) {
					const cgm_edge *e = &ctx->model->edges[list[k]];
					int v = up ? e->from : e->to;
					if (s->seen2[v] == s->stamp2)
						continue;
					s->seen2[v] = s->stamp2;
					s->next[nnext++] = v;
					total++;
				}
			}
			memcpy(s->list, s->next, sizeof(int) * (size_t)nnext);
			nfront = nnext;
		}
	}
	return total;
}

/* fn's observed dynamic edge to `to` from the site at `line`. */
static bool observed_from_site(const html_ctx *ctx, int fn, int to, int line)
{
	for (int k = ctx->out_start[fn]; k < ctx->out_start[fn + 1]; k++) {
		const cgm_edge *e = &ctx->model->edges[ctx->out_list[k]];
		if (e->to != to || e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
			continue;
		for (int l = 0; l < e->nlines; l++)
			if (e->lines[l] == line)
				return true;
	}
	return false;
}

void html_graph_function(cgm_strbuf *dot, html_graph_info *info, html_graph_scratch *s,
			 const html_ctx *ctx, int fn)
{
	const cgm_model *m = ctx->model;
	const cgm_function *focal = &m->functions[fn];
	int cap = ctx->opts.node_cap;
	new_graph(s);
	keep(s, fn);
	s->level[fn] = 0;
	more_mark *marks = NULL;
	int nmarks = 0;

	/* Breadth first, callers and callees in turn, level by level; each
	 * direction keeps its own frontier.  Frontiers live in a local array
	 * since s->list/next are shared by both directions. */
	int *front[2], nfront[2];
	for (int dir = 0; dir < 2; dir++) {
		front[dir] = cgm_xcalloc(sizeof(int) * ((size_t)cap + 1), 1);
		front[dir][0] = fn;
		nfront[dir] = 1;
	}
	int *next = cgm_xcalloc(sizeof(int) * ((size_t)cap + 1), 1);
	for (int d = 0; d < ctx->opts.depth; d++) {
		for (int dir = 0; dir < 2; dir++) {
			bool up = dir == 0;
			int nnext = 0;
			for (int i = 0; i < nfront[dir]; i++) {
				int u = front[dir][i];
				int n = neighbours(s, ctx, u, up);
				int left = 0, added = 0;
				for (int k = 0; k < n; k++) {
					int v = s->order[k];
					if (is_kept(s, v))
						continue;
					if (s->nkept >= cap || added == (d > 0 ? OUTER_FANOUT : DIRECT_FANOUT)) {
						left++;
						continue;
					}
					added++;
					keep(s, v);
					s->level[v] = up ? -(d + 1) : d + 1;
					next[nnext++] = v;
				}
				if (left) {
					marks = realloc(marks, sizeof(more_mark) * (size_t)(nmarks + 1));
					if (!marks)
						abort();
					marks[nmarks++] = (more_mark){ u, up, left };
				}
			}
			memcpy(front[dir], next, sizeof(int) * (size_t)nnext);
			nfront[dir] = nnext;
		}
	}
	free(front[0]), free(front[1]), free(next);

	/* What the focal function's drawn dynamic sites may call (read from
	 * their templates): kept as callees, up to POSSIBLE_CAP new nodes. */
	int *poss = NULL, *poss_start = cgm_xcalloc(EXTRA_CAP + 2, sizeof(int));
	int nposs = 0, poss_left = 0, poss_sites = 0, poss_new = 0;
	bool poss_beyond = false; /* a site has possible targets not drawn */
	for (int i = 0; i < focal->nsites && poss_sites < EXTRA_CAP; i++) {
		const cgm_site *site = &focal->sites[i];
		if (site->kind != CGM_SITE_DYNAMIC || site->resolution == CGM_RES_MISSING)
			continue;
		poss_start[poss_sites] = nposs;
		cgm_dynsql_info dinfo;
		cgm_dynsql_read_with(&dinfo, html_graph_dynsql(s, ctx), site);
		if (dinfo.total > dinfo.ntargets)
			poss_beyond = true;
		for (int t = 0; t < dinfo.ntargets; t++) {
			int v = dinfo.targets[t];
			if (v == fn || v < 0 || v >= ctx->nfn)
				continue;
			if (!is_kept(s, v)) {
				if (poss_new == POSSIBLE_CAP) {
					poss_beyond = true;
					continue;
				}
				poss_new++;
				keep(s, v);
				s->level[v] = 1;
			}
			poss = cgm_xrealloc(poss, sizeof(int) * (size_t)(nposs + 1));
			poss[nposs++] = v;
		}
		cgm_dynsql_info_free(&dinfo);
		poss_sites++;
	}
	poss_start[poss_sites] = nposs;
	/* "+N more possible targets": N distinct functions no drawn edge
	 * reaches, though several sites may call one (a sum over the sites
	 * said 1,200 of PoWA's 417 functions). */
	if (poss_beyond && ctx->model->nuser > 0) {
		unsigned char *seen = cgm_xcalloc((size_t)ctx->model->nuser, 1);
		poss_left = html_graph_mark_possible(seen, s, ctx, fn);
		for (int k = 0; k < nposs; k++)
			if (poss[k] < ctx->model->nuser && seen[poss[k]] == 1) {
				seen[poss[k]] = 2; /* drawn */
				poss_left--;
			}
		free(seen);
	}

	/* The edges the graph may draw: the focal function's, and those of
	 * each caller (callee) short of the depth on its own side.  Only
	 * these: the page then depends on nothing further out (a function's
	 * page key, html_pagekey.c, hashes just that neighbourhood). */
	int nedges = ctx->out_start[fn + 1] - ctx->out_start[fn] + ctx->in_start[fn + 1] -
		     ctx->in_start[fn];
	for (int i = 0; i < s->nkept; i++) {
		int u = s->kept[i], lu = s->level[u];
		if (u == fn || lu == 0 || lu >= ctx->opts.depth || -lu >= ctx->opts.depth)
			continue;
		nedges += lu > 0 ? ctx->out_start[u + 1] - ctx->out_start[u]
				 : ctx->in_start[u + 1] - ctx->in_start[u];
	}
	graph_header(dot, nedges);
	const char *schema = focal->schema;
	for (int i = 0; i < s->nkept; i++)
		fn_node(dot, ctx, i, s->kept[i], schema, s->kept[i] == fn, -1);

	/* The focal function's missing callees and dynamic sites, as nodes of
	 * their own shapes. */
	int nmissing = 0, ndynamic = 0, missing_left = 0, dynamic_left = 0;
	int *dyn_line = cgm_xcalloc(sizeof(int) * (EXTRA_CAP + 1), 1);
	for (int i = 0; i < focal->nsites; i++) {
		const cgm_site *site = &focal->sites[i];
		if (site->resolution == CGM_RES_MISSING) {
			bool repeat = false;
			for (int j = 0; j < i && !repeat; j++) {
				const cgm_site *o = &focal->sites[j];
				repeat = o->resolution == CGM_RES_MISSING && o->nargs == site->nargs &&
					 strcmp(o->name ? o->name : "", site->name ? site->name : "") ==
						 0 &&
					 strcmp(o->schema ? o->schema : "", site->schema ? site->schema : "") ==
						 0;
			}
			if (repeat)
				continue;
			if (nmissing == EXTRA_CAP) {
				missing_left++;
				continue;
			}
			cgm_strbuf_printf(dot, "  m%d [label=\"", nmissing);
			cgm_strbuf raw = CGM_STRBUF_INIT;
			if (site->schema)
				cgm_strbuf_printf(&raw, "%s.", site->schema);
			cgm_strbuf_printf(&raw, "%s(%d arg%s)", site->name ? site->name : "?",
					  site->nargs, site->nargs == 1 ? "" : "s");
			dot_text_cut(dot, cgm_strbuf_cstr(&raw), LABEL_MAX);
			/* One the caller expects absent (cgm_site_missing_handled) in
			 * grey, a defect in red. */
			bool expected = cgm_site_missing_handled(site);
			const char *color = expected ? COL_MORE : COL_MISSING;
			cgm_strbuf_printf(dot, "\\n%s\", tooltip=\"missing callee: no function ",
					  expected ? "expected absent" : "missing");
			dot_text(dot, cgm_strbuf_cstr(&raw));
			cgm_strbuf_free(&raw);
			cgm_strbuf_printf(dot, " (line %d)%s\", shape=box, style=\"dashed,filled\", "
					       "fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\"];\n",
					  site->line,
					  expected ? "; the caller is ready for its absence" : "",
					  expected ? "#f8f9fa" : "#fff5f5", color, color);
			cgm_strbuf_printf(dot,
					  "  n%d -> m%d [color=\"%s\", style=dashed, "
					  "label=\"line %d\", fontcolor=\"%s\"];\n",
					  s->node_of[fn], nmissing, color, site->line, color);
			nmissing++;
		} else if (site->kind == CGM_SITE_DYNAMIC) {
			if (ndynamic == EXTRA_CAP) {
				dynamic_left++;
				continue;
			}
			bool seen = html_dynamic_seen(ctx, fn, site);
			bool ran = !seen && cgm_site_get_rare(site)->runs > 0;
			bool fetch = cgm_dynamic_site_verb(site)[0] == 'F';
			cgm_strbuf_printf(dot, "  d%d [label=\"%s\\nline %d\", shape=diamond, "
					       "style=filled, fillcolor=\"#f3f0ff\", color=\"%s\", "
					       "fontcolor=\"" COL_DYNAMIC "\", margin=\"0.02,0.02\", "
					       "tooltip=\"dynamic %s at line %d: %s\\n",
					  ndynamic, fetch ? "FETCH" : "EXECUTE", site->line,
					  seen || ran ? COL_DYNAMIC : COL_MISSING, cgm_dynamic_site_verb(site),
					  site->line,
					  seen ? "targets observed at runtime"
					  : ran && cgm_dynamic_site_has_static_calls(focal, site)
						  ? "ran at runtime, calling no user function beyond its static calls"
					  : ran ? "ran at runtime, calling no user function"
					  : m->has_runtime ? "never observed at runtime"
							   : "no runtime data");
			dot_text(dot, cgm_site_get_rare(site)->text ? cgm_site_get_rare(site)->text : "");
			cgm_strbuf_printf(dot, "\", URL=\"#L%d\"];\n", site->line);
			cgm_strbuf_printf(dot,
					  "  n%d -> d%d [color=\"" COL_DYNAMIC "\", style=dotted, "
					  "arrowhead=none];\n",
					  s->node_of[fn], ndynamic);
			/* A possible edge does not rank the layout (constraint=false):
			 * the picture stays callers, function, callees, and one back
			 * to a caller makes no cycle for dot to break, which in
			 * Graphviz 2.42 leaks the virtual edges it makes. */
			for (int k = poss_start[ndynamic]; k < poss_start[ndynamic + 1]; k++) {
				if (observed_from_site(ctx, fn, poss[k], site->line))
					continue; /* drawn as the observed edge */
				cgm_strbuf_printf(dot,
						  "  d%d -> n%d [color=\"" COL_DYNAMIC "\", style=dashed, constraint=false, "
						  "arrowhead=empty, tooltip=\"possible target of the "
						  "dynamic SQL at line %d (read from its template)\"];\n",
						  ndynamic, s->node_of[poss[k]], site->line);
			}
			dyn_line[ndynamic++] = site->line;
		}
	}
	if (missing_left)
		more_node(dot, "mmore", missing_left, "missing callees", "#missing");
	if (missing_left)
		cgm_strbuf_printf(dot, "  n%d -> mmore [color=\"" COL_MISSING "\", style=dashed];\n",
				  s->node_of[fn]);
	if (poss_left && ndynamic) {
		more_node(dot, "pmore", poss_left, "possible targets", "#dynamic");
		cgm_strbuf_puts(dot, "  d0 -> pmore [color=\"" COL_DYNAMIC "\", style=dashed, "
				     "arrowhead=empty];\n");
	}
	free(poss), free(poss_start);
	if (dynamic_left) {
		more_node(dot, "dmore", dynamic_left, "dynamic sites", "#dynamic");
		cgm_strbuf_printf(dot, "  n%d -> dmore [color=\"" COL_DYNAMIC "\", style=dotted];\n",
				  s->node_of[fn]);
	}

	/* The edges that make the picture a tree read left to right: every edge
	 * of the focal function, and each caller's or callee's edge one step
	 * further out.  Edges between functions at the same distance would
	 * turn a busy neighbourhood into a hairball (and slow its layout); the
	 * tables list them all.  An observed dynamic edge of the focal function
	 * leaves from the EXECUTE site it came from. */
	for (int i = 0; i < s->nkept; i++) {
		int u = s->kept[i];
		for (int k = ctx->out_start[u]; k < ctx->out_start[u + 1]; k++) {
			const cgm_edge *e = &m->edges[ctx->out_list[k]];
			if (!is_kept(s, e->to))
				continue;
			int lu = s->level[u], lv = s->level[e->to];
			bool outward = u == fn || e->to == fn || (lu < 0 && lv == lu + 1) ||
				       (lu > 0 && lv == lu + 1);
			if (!outward)
				continue;
			bool from_site = false;
			if (u == fn && e->via == CGM_VIA_DYNAMIC) {
				for (int dsite = 0; dsite < ndynamic; dsite++) {
					bool match = false;
					for (int l = 0; l < e->nlines && !match; l++)
						match = e->lines[l] == dyn_line[dsite];
					if (!match)
						continue;
					from_site = true;
					cgm_strbuf_puts(dot, "  d"), cgm_strbuf_add_int(dot, dsite);
					cgm_strbuf_puts(dot, " -> n"), cgm_strbuf_add_int(dot, s->node_of[e->to]);
					edge_attrs(dot, ctx, e, TOOLTIP_FULL);
				}
			}
			if (from_site)
				continue;
			cgm_strbuf_puts(dot, "  n"), cgm_strbuf_add_int(dot, i);
			cgm_strbuf_puts(dot, " -> n"), cgm_strbuf_add_int(dot, s->node_of[e->to]);
			edge_attrs(dot, ctx, e,
				   u == fn || e->to == fn ? TOOLTIP_SHORT : TOOLTIP_FULL);
		}
	}
	free(dyn_line);

	/* A "+N more" node per cut function, up to MARKS_SHOWN per direction;
	 * past that one node per direction sums up (distinct functions) what
	 * the other cut functions leave out, so the markers never outnumber
	 * the functions. */
	int omitted = 0;
	int shown_marks[2] = { 0, 0 };
	for (int dir = 0; dir < 2; dir++) {
		bool up = dir == 0;
		int rest = 0, nfns = 0;
		s->stamp2++;
		for (int i = 0, seen_dir = 0; i < nmarks; i++) {
			if (marks[i].up != up || seen_dir++ < MARKS_SHOWN)
				continue;
			nfns++;
			int u = marks[i].fn;
			const int *start = up ? ctx->in_start : ctx->out_start;
			const int *list = up ? ctx->in_list : ctx->out_list;
			for (int k = start[u]; k < start[u + 1]; k++) {
				const cgm_edge *e = &m->edges[list[k]];
				int v = up ? e->from : e->to;
				if (is_kept(s, v) || s->seen2[v] == s->stamp2)
					continue;
				s->seen2[v] = s->stamp2;
				rest++;
			}
		}
		if (!nfns)
			continue;
		char id[32], what[96];
		snprintf(id, sizeof(id), "moreall%d", dir);
		snprintf(what, sizeof(what), "%s of %d other functions drawn", up ? "callers" : "callees",
			 nfns);
		more_node(dot, id, rest, what, up ? "#callers" : "#callees");
		if (up)
			cgm_strbuf_printf(dot, "  %s -> n0 [color=\"" COL_MORE "\", style=dashed];\n", id);
		else
			cgm_strbuf_printf(dot, "  n0 -> %s [color=\"" COL_MORE "\", style=dashed];\n", id);
	}
	for (int i = 0; i < nmarks; i++) {
		const more_mark *mk = &marks[i];
		if (shown_marks[mk->up ? 0 : 1]++ >= MARKS_SHOWN)
			continue;
		char id[32], url[64];
		snprintf(id, sizeof(id), "more%d", i);
		bool self = mk->fn == fn;
		snprintf(url, sizeof(url), "%s", mk->up ? "#callers" : "#callees");
		cgm_strbuf url_buf = CGM_STRBUF_INIT;
		if (!self && mk->fn < ctx->nuser)
			cgm_strbuf_printf(&url_buf, "../functions/%s%s", ctx->page[mk->fn], url);
		else
			cgm_strbuf_puts(&url_buf, url);
		more_node(dot, id, mk->count, mk->up ? "callers" : "callees", cgm_strbuf_cstr(&url_buf));
		cgm_strbuf_free(&url_buf);
		if (mk->up)
			cgm_strbuf_printf(dot, "  %s -> n%d [color=\"" COL_MORE "\", style=dashed];\n",
					  id, s->node_of[mk->fn]);
		else
			cgm_strbuf_printf(dot, "  n%d -> %s [color=\"" COL_MORE "\", style=dashed];\n",
					  s->node_of[mk->fn], id);
	}
	free(marks);
	cgm_strbuf_puts(dot, "}\n");
	if (nmarks > 0) {
		omitted = count_within(s, ctx, fn, ctx->opts.depth) + 1 - s->nkept;
		if (omitted < 0)
			omitted = 0;
	}
	info->shown = s->nkept;
	info->omitted = omitted;
}

/* ---- a schema's overview ---- */

typedef struct {
	const html_ctx *ctx;
} degree_order;

static int compare_degree(const void *a, const void *b, void *arg)
{
	const html_ctx *ctx = ((const degree_order *)arg)->ctx;
	int x = *(const int *)a, y = *(const int *)b;
	int dx = ctx->ncallers[x] + ctx->ncallees[x], dy = ctx->ncallers[y] + ctx->ncallees[y];
	if (dx != dy)
		return dx > dy ? -1 : 1;
	int64_t cx = ctx->model->functions[x].runtime.calls, cy = ctx->model->functions[y].runtime.calls;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x - y;
}

/* A large schema's overview shows first its entry points that reach the
 * most of it: the functions the schema is entered by (roots, or called
 * from no function of the schema), ranked by how many of its functions
 * they reach.  Reach is counted for at most ENTRY_CANDIDATES entry points
 * (the widest first), all at once over the schema's components: a bit per
 * entry point carried along each call once, however far each reaches
 * (walks of each entry point, even bounded to 5,000 functions, were a
 * fifth of a re-render's worker time). */
#define ENTRY_CANDIDATES 200

typedef struct reach_rank {
	int fn, reach;
} reach_rank;

static int compare_reach(const void *a, const void *b)
{
	const reach_rank *x = a, *y = b;
	if (x->reach != y->reach)
		return x->reach > y->reach ? -1 : 1;
	return x->fn - y->fn;
}

/* Entry points of schema `schema` into ranks (at most `most`), widest
 * reach first; returns how many. */
static int schema_entries(reach_rank *ranks, int most, const html_ctx *ctx, int schema)
{
	const html_schema *sc = &ctx->schemas[schema];
	int n = 0;
	reach_rank *cand = cgm_xcalloc((size_t)sc->nmembers + 1, sizeof(reach_rank));
	for (int i = 0; i < sc->nmembers; i++) {
		int f = sc->members[i];
		bool called_inside = false;
		for (int k = ctx->in_start[f]; k < ctx->in_start[f + 1] && !called_inside; k++) {
			int from = ctx->model->edges[ctx->in_list[k]].from;
			called_inside = from != f && from < ctx->nuser && ctx->fn_schema[from] == schema;
		}
		if ((html_fn_entry(&ctx->model->functions[f]) || !called_inside) &&
		    ctx->ncallees[f] > 0)
			cand[n++] = (reach_rank){ f, ctx->ncallees[f] };
	}
	qsort(cand, (size_t)n, sizeof(reach_rank), compare_reach);
	if (n > ENTRY_CANDIDATES)
		n = ENTRY_CANDIDATES;
	/* Reach is counted over the schema's own calls, numbered within it:
	 * the model's edges are far apart in memory. */
	int nf = ctx->model->nfunctions, nm = sc->nmembers;
	int *local = cgm_xcalloc((size_t)nf + 1, sizeof(int)); /* function -> member + 1 */
	for (int i = 0; i < nm; i++)
		local[sc->members[i]] = i + 1;
	int *start = cgm_xcalloc((size_t)nm + 2, sizeof(int));
	for (int i = 0; i < nm; i++) {
		int u = sc->members[i];
		for (int k = ctx->out_start[u]; k < ctx->out_start[u + 1]; k++)
			start[i + 1] += local[ctx->model->edges[ctx->out_list[k]].to] != 0;
	}
	for (int i = 0; i < nm; i++)
		start[i + 1] += start[i];
	int *to = cgm_xcalloc((size_t)start[nm] + 1, sizeof(int));
	for (int i = 0, at = 0; i < nm; i++) {
		int u = sc->members[i];
		for (int k = ctx->out_start[u]; k < ctx->out_start[u + 1]; k++) {
			int v = local[ctx->model->edges[ctx->out_list[k]].to];
			if (v)
				to[at++] = v - 1;
		}
	}
	/* Reach, exactly: the schema's calls condensed into their components,
	 * each candidate a bit carried from caller to callee component
	 * (numbers downwards: cgm_scc's order), 64 candidates a word; what a
	 * candidate reaches is the members of the components with its bit,
	 * itself left out. */
	int *comp = cgm_xcalloc((size_t)nm + 1, sizeof(int));
	int ncomp = cgm_scc(comp, nm, start, to);
	int words = (n + 63) / 64;
	uint64_t *bits = cgm_xcalloc((size_t)ncomp * (size_t)(words ? words : 1) + 1, sizeof(uint64_t));
	int *members_of = cgm_xcalloc((size_t)ncomp + 2, sizeof(int)); /* counting sort */
	int *by_comp = cgm_xcalloc((size_t)nm + 1, sizeof(int));
	for (int u = 0; u < nm; u++)
		members_of[comp[u] + 1]++;
	for (int k = 0; k < ncomp; k++)
		members_of[k + 1] += members_of[k];
	int *fill = cgm_xcalloc((size_t)ncomp + 1, sizeof(int));
	for (int u = 0; u < nm; u++)
		by_comp[members_of[comp[u]] + fill[comp[u]]++] = u;
	free(fill);
	for (int c = 0; c < n; c++)
		bits[(size_t)comp[local[cand[c].fn] - 1] * (size_t)words + (size_t)(c / 64)] |=
			(uint64_t)1 << (c % 64);
	for (int k = ncomp - 1; k >= 0; k--) {
		const uint64_t *from = &bits[(size_t)k * (size_t)words];
		for (int at = members_of[k]; at < members_of[k + 1]; at++) {
			int u = by_comp[at];
			for (int e = start[u]; e < start[u + 1]; e++) {
				int callee = comp[to[e]];
				if (callee == k)
					continue;
				uint64_t *into = &bits[(size_t)callee * (size_t)words];
				for (int w = 0; w < words; w++)
					into[w] |= from[w];
			}
		}
	}
	for (int c = 0; c < n; c++)
		cand[c].reach = -1; /* itself not counted */
	for (int k = 0; k < ncomp; k++) {
		int size = members_of[k + 1] - members_of[k];
		for (int w = 0; w < words; w++)
			for (uint64_t word = bits[(size_t)k * (size_t)words + (size_t)w]; word;
			     word &= word - 1)
				cand[w * 64 + __builtin_ctzll(word)].reach += size;
	}
	free(by_comp);
	free(members_of);
	free(bits);
	free(comp);
	free(to);
	free(start);
	free(local);
	qsort(cand, (size_t)n, sizeof(reach_rank), compare_reach);
	int kept = 0;
	for (int c = 0; c < n && kept < most; c++)
		if (cand[c].reach > 0)
			ranks[kept++] = cand[c];
	free(cand);
	return kept;
}

/* A node standing for another schema (or the builtins). */
typedef struct other_node {
	int schema;   /* -1: builtins */
	int id;
} other_node;

typedef struct agg_edge {
	int from, to; /* node numbers; negative: "other" nodes (-1 - k); cap_more: OMITTED */
} agg_edge;

#define NODE_MORE (-1000000000)

/* A schema overview drawing more calls than SCHEMA_CALLS_PER_NODE per
 * function is a hairball (10,000 synthetic functions: 578 calls among its
 * 50 boxes), slow for Graphviz and read by nobody.  There each pair of
 * functions gets one edge (a call first, else the first mechanism), and a
 * call whose ends a longer drawn path already joins is left out, as
 * Graphviz's tred does: what reaches what still reads the same.  Each call
 * is tested on the graph as left by the earlier ones, so reachability holds
 * through cycles too; past REDUCTION_WORK_MAX steps the rest are kept. */
#define SCHEMA_CALLS_PER_NODE 2
#define REDUCTION_WORK_MAX 20000000L

typedef struct drawn_call {
	int from, to; /* node numbers */
	const cgm_edge *e;
	bool gone;
} drawn_call;

/* Leaves the calls to draw in calls[] (gone = false), in their order;
 * returns how many are drawn.  calls[] comes grouped by `from`. */
static int reduce_calls(drawn_call *calls, int n, int nnodes)
{
	/* One edge per pair: a pair's calls are contiguous within a `from`. */
	for (int i = 0; i < n; i++) {
		for (int j = i - 1; j >= 0 && calls[j].from == calls[i].from; j--) {
			if (calls[j].gone || calls[j].to != calls[i].to)
				continue;
			if (calls[i].e->via == CGM_VIA_CALL && calls[j].e->via != CGM_VIA_CALL)
				calls[j].e = calls[i].e;
			calls[i].gone = true;
			break;
		}
	}
	int *start = cgm_xcalloc((size_t)nnodes + 2, sizeof(int));
	for (int i = 0; i < n; i++)
		start[calls[i].from + 1]++;
	for (int v = 0; v < nnodes; v++)
		start[v + 1] += start[v];
	int *queue = cgm_xcalloc((size_t)nnodes + 1, sizeof(int));
	int *mark = cgm_xcalloc((size_t)nnodes + 1, sizeof(int));
	long work = 0;
	for (int c = 0; c < n && work < REDUCTION_WORK_MAX; c++) {
		if (calls[c].gone || calls[c].from == calls[c].to)
			continue;
		/* Is calls[c].to reached from calls[c].from without calls[c]? */
		int head = 0, tail = 0, stamp = c + 1;
		queue[tail++] = calls[c].from;
		mark[calls[c].from] = stamp;
		bool reached = false;
		while (head < tail && !reached && work < REDUCTION_WORK_MAX) {
			int u = queue[head++];
			for (int k = start[u]; k < start[u + 1]; k++, work++) {
				if (k == c || calls[k].gone)
					continue;
				int v = calls[k].to;
				if (v == calls[c].to) {
					reached = true;
					break;
				}
				if (mark[v] != stamp) {
					mark[v] = stamp;
					queue[tail++] = v;
				}
			}
		}
		calls[c].gone = reached;
	}
	free(mark);
	free(queue);
	free(start);
	int drawn = 0;
	for (int i = 0; i < n; i++)
		drawn += !calls[i].gone;
	return drawn;
}

void html_graph_schema(cgm_strbuf *dot, html_graph_info *info, html_graph_scratch *s,
		       const html_ctx *ctx, int schema)
{
	const cgm_model *m = ctx->model;
	const html_schema *sc = &ctx->schemas[schema];
	int cap = ctx->opts.node_cap;
	new_graph(s);
	int *members = cgm_xcalloc(sizeof(int) * ((size_t)sc->nmembers + 1), 1);
	memcpy(members, sc->members, sizeof(int) * (size_t)sc->nmembers);
	int nshow = sc->nmembers;
	reach_rank *entries = NULL;
	int nentries = 0;
	if (nshow > cap) {
		/* Half the cap for the entry points reaching the most of the
		 * schema, then the most connected of the rest. */
		entries = cgm_xcalloc((size_t)cap + 1, sizeof(reach_rank));
		nentries = schema_entries(entries, cap / 2, ctx, schema);
		degree_order o = { ctx };
		qsort_r(members, (size_t)sc->nmembers, sizeof(int), compare_degree, &o);
		int *picked = cgm_xcalloc((size_t)cap + 1, sizeof(int));
		int npicked = 0;
		for (int e = 0; e < nentries; e++) {
			picked[npicked++] = entries[e].fn;
			keep(s, entries[e].fn);
		}
		for (int i = 0; i < sc->nmembers && npicked < cap; i++)
			if (!is_kept(s, members[i])) {
				picked[npicked++] = members[i];
				keep(s, members[i]);
			}
		memcpy(members, picked, sizeof(int) * (size_t)npicked);
		free(picked);
		new_graph(s); /* kept again below, in drawing order */
		nshow = npicked;
		/* Draw the chosen ones in id order, so the DOT reads in order. */
		int *chosen = members;
		for (int i = 1; i < nshow; i++)
			for (int j = i; j > 0 && chosen[j - 1] > chosen[j]; j--) {
				int t = chosen[j];
				chosen[j] = chosen[j - 1];
				chosen[j - 1] = t;
			}
	}
	for (int i = 0; i < nshow; i++)
		keep(s, members[i]);
	int omitted = sc->nmembers - nshow;

	/* Other schemas touched, in schema order; builtins last. */
	int *other_of = cgm_xcalloc(sizeof(int) * ((size_t)ctx->nschemas + 1), 1); /* schema -> k+1 */
	other_node *others = cgm_xcalloc(sizeof(other_node) * ((size_t)ctx->nschemas + 1), 1);
	int nothers = 0;
	agg_edge *aggs = NULL;
	int naggs = 0, cap_aggs = 0;
	int nedges_direct = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < nshow; i++) {
			int u = members[i];
			for (int dir = 0; dir < 2; dir++) {
				bool out = dir == 0;
				const int *start = out ? ctx->out_start : ctx->in_start;
				const int *list = out ? ctx->out_list : ctx->in_list;
				for (int k = start[u]; k < start[u + 1]; k++) {
					const cgm_edge *e = &m->edges[list[k]];
					int v = out ? e->to : e->from;
					if (is_kept(s, v)) {
						if (out && pass == 0)
							nedges_direct++;
						continue;
					}
					int target;
					int vs = v < ctx->nuser ? ctx->fn_schema[v] : -1;
					if (vs == schema) {
						target = NODE_MORE;
					} else {
						int slot = vs < 0 ? ctx->nschemas : vs;
						if (pass == 0) {
							if (!other_of[slot]) {
								others[nothers] = (other_node){ vs, nothers };
								other_of[slot] = ++nothers;
							}
							continue;
						}
						target = -other_of[slot];
					}
					if (pass == 0)
						continue;
					agg_edge a = out ? (agg_edge){ s->node_of[u], target }
							 : (agg_edge){ target, s->node_of[u] };
					bool dup = false;
					for (int j = naggs - 1; j >= 0 && !dup; j--)
						dup = aggs[j].from == a.from && aggs[j].to == a.to;
					if (dup)
						continue;
					if (naggs == cap_aggs) {
						cap_aggs = cap_aggs ? cap_aggs * 2 : 64;
						aggs = realloc(aggs, sizeof(agg_edge) * (size_t)cap_aggs);
						if (!aggs)
							abort();
					}
					aggs[naggs++] = a;
				}
			}
		}
	}
	/* Other schemas get numbers in schema order for a stable drawing. */
	int k2 = 0;
	for (int slot = 0; slot <= ctx->nschemas; slot++)
		if (other_of[slot])
			others[other_of[slot] - 1].id = k2++;

	/* The calls among the drawn functions, reduced when they are too many. */
	drawn_call *calls = cgm_xcalloc((size_t)nedges_direct + 1, sizeof(drawn_call));
	int ncalls = 0;
	for (int i = 0; i < nshow; i++) {
		int u = members[i];
		for (int k = ctx->out_start[u]; k < ctx->out_start[u + 1]; k++) {
			const cgm_edge *e = &m->edges[ctx->out_list[k]];
			if (is_kept(s, e->to) && ncalls < nedges_direct)
				calls[ncalls++] = (drawn_call){ i, s->node_of[e->to], e, false };
		}
	}
	int ndrawn_calls = ncalls;
	bool reduced = ncalls > SCHEMA_CALLS_PER_NODE * nshow;
	if (reduced)
		ndrawn_calls = reduce_calls(calls, ncalls, nshow);
	info->calls = ncalls;
	info->calls_left_out = ncalls - ndrawn_calls;
	info->reduced = reduced;

	graph_header(dot, ndrawn_calls + naggs);
	for (int i = 0; i < nshow; i++) {
		int reach = -1;
		for (int e = 0; e < nentries && reach < 0; e++)
			if (entries[e].fn == members[i])
				reach = entries[e].reach;
		fn_node(dot, ctx, i, members[i], sc->name, false, reach);
	}
	if (omitted)
		more_node(dot, "more", omitted, "functions in this schema", "#functions");
	for (int k = 0; k < nothers; k++) {
		const other_node *o = &others[k];
		if (o->id >= OTHERS_SHOWN)
			continue;
		cgm_strbuf_printf(dot, "  s%d [shape=ellipse, style=filled, fillcolor=\"#f8f9fa\", "
				       "color=\"#adb5bd\", fontcolor=\"#495057\", label=\"",
				  o->id);
		if (o->schema < 0) {
			cgm_strbuf_puts(dot, "built-in functions\"];\n");
			continue;
		}
		cgm_strbuf_puts(dot, "schema ");
		dot_text_cut(dot, ctx->schemas[o->schema].name, LABEL_MAX);
		cgm_strbuf_puts(dot, "\", tooltip=\"other schema: ");
		dot_text(dot, ctx->schemas[o->schema].name);
		cgm_strbuf_printf(dot, "\", URL=\"%s\"];\n", ctx->schemas[o->schema].page);
	}
	if (nothers > OTHERS_SHOWN)
		cgm_strbuf_printf(dot, "  sothers [shape=ellipse, style=\"dashed,filled\", "
				       "fillcolor=\"#f8f9fa\", color=\"" COL_MORE "\", "
				       "fontcolor=\"#495057\", label=\"+%d more schemas\", "
				       "tooltip=\"%d other schemas, not drawn one by one\", "
				       "URL=\"../index.html#schemas\"];\n",
				  nothers - OTHERS_SHOWN, nothers - OTHERS_SHOWN);
	for (int c = 0; c < ncalls; c++) {
		if (calls[c].gone)
			continue;
		cgm_strbuf_printf(dot, "  n%d -> n%d", calls[c].from, calls[c].to);
		edge_attrs(dot, ctx, calls[c].e, TOOLTIP_FULL);
	}
	bool *has_out = cgm_xcalloc((size_t)nshow + 1, sizeof(bool));
	bool *has_in = cgm_xcalloc((size_t)nshow + 1, sizeof(bool));
	for (int c = 0; c < ncalls; c++)
		if (!calls[c].gone && calls[c].from != calls[c].to)
			has_out[calls[c].from] = has_in[calls[c].to] = true;
	free(calls);
	/* Ends as drawn: schemas past OTHERS_SHOWN share one node, so their
	 * edges may coincide; each is drawn once. */
	int *drawn = cgm_xcalloc(sizeof(int) * 2 * ((size_t)naggs + 1), 1);
	int ndrawn = 0;
	for (int j = 0; j < naggs; j++) {
		char a[32], b[32];
		int ends[2] = { aggs[j].from, aggs[j].to }, code[2];
		char *names[2] = { a, b };
		for (int t = 0; t < 2; t++) {
			if (ends[t] == NODE_MORE) {
				snprintf(names[t], 32, "more");
				code[t] = -1;
			} else if (ends[t] < 0 && others[-ends[t] - 1].id >= OTHERS_SHOWN) {
				snprintf(names[t], 32, "sothers");
				code[t] = -2;
			} else if (ends[t] < 0) {
				snprintf(names[t], 32, "s%d", others[-ends[t] - 1].id);
				code[t] = -3 - others[-ends[t] - 1].id;
			} else {
				snprintf(names[t], 32, "n%d", ends[t]);
				code[t] = ends[t];
			}
		}
		/* Reduced, the overview draws calls to or from "+N more" only for
		 * a box with no other call that way (an entry point whose callees
		 * are not drawn): from every box, they made a second hairball. */
		if (reduced && ((code[1] == -1 && code[0] >= 0 && has_out[code[0]]) ||
				(code[0] == -1 && code[1] >= 0 && has_in[code[1]])))
			continue;
		bool dup = false;
		for (int q = 0; q < ndrawn && !dup; q++)
			dup = drawn[2 * q] == code[0] && drawn[2 * q + 1] == code[1];
		if (dup)
			continue;
		drawn[2 * ndrawn] = code[0], drawn[2 * ndrawn + 1] = code[1], ndrawn++;
		cgm_strbuf_printf(dot, "  %s -> %s [color=\"" COL_MORE "\", style=dashed];\n", a, b);
	}
	free(drawn);
	free(has_out);
	free(has_in);
	cgm_strbuf_puts(dot, "}\n");
	free(aggs), free(others), free(other_of), free(members), free(entries);
	info->shown = nshow;
	info->omitted = omitted;
}

/* ---- layout ---- */

/* One Graphviz context for the life of the process, never freed: Graphviz
 * 2.43's pango text layout keeps a static pointer to the last font name,
 * owned by the context that measured it, so a second context after
 * gvFreeContext() reads freed memory.  A forked worker inherits the
 * parent's context (or makes its own) and uses it alone. */
static GVC_t *process_gvc(void)
{
	static GVC_t *gvc;
	if (!gvc) {
		/* Warnings (a font not found, ...) would only clutter the run. */
		agseterr(AGERR);
		gvc = gvContext();
	}
	return gvc;
}

/* Graphviz's SVG without what no reader of the page uses: its comments
 * (each node's and edge's name again), the <title> of every group (the
 * "n4" a browser would show as a tooltip where the link's own title does
 * not reach) and the id attributes (nothing refers to them).  Names inside
 * arrive XML-escaped, so `<!--`, `<title>` and ` id="` only ever start
 * markup; a line left empty goes too.  A fifth of the bytes of a dense
 * graph. */
static void append_slim_svg(cgm_strbuf *out, const char *p, const char *end)
{
	const char *span = p; /* kept bytes not yet appended */
	while (p < end) {
		const char *next = p;
		if (*p == '<' && end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			const char *close = strstr(p + 4, "-->");
			next = close ? close + 3 : end;
		} else if (*p == '<' && end - p >= 7 && memcmp(p, "<title>", 7) == 0) {
			const char *close = strstr(p + 7, "</title>");
			next = close ? close + 8 : end;
		} else if (*p == ' ' && end - p >= 5 && memcmp(p, " id=\"", 5) == 0) {
			const char *close = memchr(p + 5, '"', (size_t)(end - p - 5));
			next = close ? close + 1 : end;
		}
		if (next == p) {
			p++;
			continue;
		}
		cgm_strbuf_add(out, span, (size_t)(p - span));
		/* A line that held only the removed markup goes whole. */
		bool line_start = out->len == 0 || out->data[out->len - 1] == '\n';
		if (line_start && next < end && *next == '\n')
			next++;
		p = span = next;
	}
	cgm_strbuf_add(out, span, (size_t)(p - span));
}

/* ---- the layout cache ---- */

/* A tooltip of the DOT text: its DOT-escaped value at dot[at, at + len). */
typedef struct tooltip_ref {
	size_t at, len;
	size_t pen_at, pen_len; /* its node's penwidth value, taken out of the
	                         * layout (pen_len 0: none) */
} tooltip_ref;

/* Whether Graphviz's rendering of this DOT-escaped tooltip value is the
 * one tooltip_svg() writes: plain characters, UTF-8, the escapes \" and
 * \n and the entity &amp; (cgm_escape_dot writes & so). */
static bool tooltip_plain(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c == '\\') {
			if (i + 1 < len && (v[i + 1] == '"' || v[i + 1] == 'n')) {
				i++;
				continue;
			}
			return false;
		}
		if (c == '&') {
			if (len - i >= 5 && memcmp(v + i, "&amp;", 5) == 0) {
				i += 4;
				continue;
			}
			return false;
		}
		if (c < 0x20 || c == 0x7F)
			return false;
	}
	return true;
}

/* The value of xlink:title Graphviz writes for a plain tooltip (checked
 * against Graphviz by the unit tests: pages are the same with the cache
 * or without). */
static void tooltip_svg(cgm_strbuf *out, const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = v[i];
		if (c == '\\') {
			c = v[++i];
			cgm_strbuf_puts(out, c == 'n' ? "&#10;" : "&quot;");
			continue;
		}
		switch (c) {
		case '"':
			cgm_strbuf_puts(out, "&quot;");
			break;
		case '<':
			cgm_strbuf_puts(out, "&lt;");
			break;
		case '>':
			cgm_strbuf_puts(out, "&gt;");
			break;
		case '\'':
			cgm_strbuf_puts(out, "&#39;");
			break;
		case '-':
			cgm_strbuf_puts(out, "&#45;");
			break;
		default:
			cgm_strbuf_putc(out, c);
		}
	}
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool starts_attr(const char *dot, const char *p, const char *attr, size_t alen)
{
	return strncmp(p, attr, alen) == 0 && (p == dot || !word_char(p[-1]));
}

/* dot with each plain tooltip="..." (outside strings) replaced by
 * tooltip="Tk", k its index in *refs (malloc'd, *nrefs of them); with
 * strip_pen, the penwidth=X of a node statement after its placeholder
 * tooltip is taken out too (kept in the ref), the SVG's stroke width being
 * put back by substitute_tooltips. */
static void placeholder_dot(cgm_strbuf *out, tooltip_ref **refs, int *nrefs, const char *dot,
			    bool strip_pen)
{
	static const char attr[] = "tooltip=\"", pen[] = "penwidth=";
	const size_t alen = sizeof(attr) - 1, plen = sizeof(pen) - 1;
	int cap = 0, stmt_tip = -1;
	bool stmt_edge = false;
	*refs = NULL;
	*nrefs = 0;
	const char *p = dot, *span = dot;
	bool in_string = false;
	while (*p) {
		if (in_string) {
			if (*p == '\\' && p[1])
				p += 2;
			else {
				if (*p == '"')
					in_string = false;
				p++;
			}
			continue;
		}
		if (*p == ';' || *p == '\n' || *p == '{' || *p == '}') {
			stmt_tip = -1;
			stmt_edge = false;
		} else if (*p == '-' && p[1] == '>') {
			stmt_edge = true;
		} else if (*p == 't' && starts_attr(dot, p, attr, alen)) {
			const char *v = p + alen, *e = v;
			while (*e && *e != '"')
				e += *e == '\\' && e[1] ? 2 : 1;
			if (!*e)
				break; /* unterminated: Graphviz will say so */
			if (tooltip_plain(v, (size_t)(e - v))) {
				if (*nrefs == cap) {
					cap = cap ? cap * 2 : 64;
					*refs = cgm_xrealloc(*refs, sizeof(tooltip_ref) * (size_t)cap);
				}
				(*refs)[*nrefs] = (tooltip_ref){ (size_t)(v - dot), (size_t)(e - v), 0, 0 };
				cgm_strbuf_add(out, span, (size_t)(v - span));
				stmt_tip = *nrefs;
				cgm_strbuf_printf(out, "T%d", (*nrefs)++);
				span = e;
			}
			p = e + 1;
			continue;
		} else if (*p == 'p' && strip_pen && stmt_tip >= 0 && !stmt_edge &&
			   starts_attr(dot, p, pen, plen)) {
			const char *v = p + plen, *e = v;
			while ((*e >= '0' && *e <= '9') || *e == '.')
				e++;
			const char *from = p - dot >= 2 && p[-2] == ',' && p[-1] == ' ' ? p - 2 : p;
			if (e > v && from >= span && (*e == ',' || *e == ']')) {
				cgm_strbuf_add(out, span, (size_t)(from - span));
				(*refs)[stmt_tip].pen_at = (size_t)(v - dot);
				(*refs)[stmt_tip].pen_len = (size_t)(e - v);
				span = p = e;
				continue;
			}
		}
		if (*p == '"')
			in_string = true;
		p++;
	}
	cgm_strbuf_puts(out, span);
}

/* The stroke width Graphviz writes for a penwidth: two decimals, trailing
 * zeros dropped. */
static void stroke_width(cgm_strbuf *out, const char *v, size_t len)
{
	char num[32], buf[40];
	if (len >= sizeof(num))
		len = sizeof(num) - 1;
	memcpy(num, v, len);
	num[len] = '\0';
	snprintf(buf, sizeof(buf), "%.2f", strtod(num, NULL));
	char *end = buf + strlen(buf);
	while (end > buf && end[-1] == '0')
		end--;
	if (end > buf && end[-1] == '.')
		end--;
	*end = '\0';
	cgm_strbuf_printf(out, " stroke-width=\"%s\"", buf);
}

/* svg with every xlink:title="Tk" replaced by tooltip k rendered, and the
 * stroke width of its node's shapes put back. */
static void substitute_tooltips(cgm_strbuf *out, const char *svg, size_t len, const char *dot,
				const tooltip_ref *refs, int nrefs)
{
	static const char attr[] = "xlink:title=\"T";
	const size_t alen = sizeof(attr) - 1;
	const char *p = svg, *end = svg + len;
	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), attr, alen);
		if (!hit)
			break;
		const char *d = hit + alen;
		long k = 0;
		const char *q = d;
		while (q < end && *q >= '0' && *q <= '9' && k <= nrefs)
			k = k * 10 + (*q++ - '0');
		if (q == d || q >= end || *q != '"' || k >= nrefs) {
			cgm_strbuf_add(out, p, (size_t)(d - p));
			p = d;
			continue;
		}
		cgm_strbuf_add(out, p, (size_t)(hit + alen - 1 - p));
		tooltip_svg(out, dot + refs[k].at, refs[k].len);
		p = q;
		if (!refs[k].pen_len)
			continue;
		/* The node's shapes, up to the end of its link. */
		const char *close = memmem(p, (size_t)(end - p), "</a>", 4);
		if (!close)
			close = end;
		for (;;) {
			const char *st = memmem(p, (size_t)(close - p), " stroke=\"", 9);
			const char *sq = st ? memchr(st + 9, '"', (size_t)(close - st - 9)) : NULL;
			if (!sq)
				break;
			cgm_strbuf_add(out, p, (size_t)(sq + 1 - p));
			stroke_width(out, dot + refs[k].pen_at, refs[k].pen_len);
			p = sq + 1;
		}
	}
	cgm_strbuf_add(out, p, (size_t)(end - p));
}

#define CACHE_MAGIC "cgmap-layout-cache 1 "
/* An entry larger than this is not read (a graph's SVG is far smaller). */
#define CACHE_ENTRY_MAX (64L << 20)

static void entry_name(char *name, size_t cap, uint64_t key)
{
	snprintf(name, cap, "%016llx.svg", (unsigned long long)key);
}

/* The SVG kept under key, appended to svg: false when there is none, or
 * it is not a regular file, or its header does not match it. */
static bool cache_read(cgm_strbuf *svg, int dirfd, uint64_t key)
{
	char name[32];
	entry_name(name, sizeof(name), key);
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		  st.st_size <= CACHE_ENTRY_MAX;
	char *data = NULL;
	size_t got = 0;
	if (ok) {
		data = cgm_xcalloc((size_t)st.st_size + 1, 1);
		ssize_t n;
		while (got < (size_t)st.st_size &&
		       ((n = read(fd, data + got, (size_t)st.st_size - got)) > 0 ||
			(n < 0 && errno == EINTR)))
			if (n > 0)
				got += (size_t)n;
		ok = got == (size_t)st.st_size;
	}
	close(fd);
	const char *body = NULL;
	unsigned long long want_len = 0, want_hash = 0;
	if (ok) {
		size_t mlen = strlen(CACHE_MAGIC);
		char *nl = memchr(data, '\n', got);
		ok = nl && got > mlen && memcmp(data, CACHE_MAGIC, mlen) == 0 &&
		     sscanf(data + mlen, "%llu %16llx\n", &want_len, &want_hash) == 2;
		body = nl ? nl + 1 : NULL;
	}
	if (ok) {
		size_t blen = got - (size_t)(body - data);
		ok = blen == want_len && cgm_fnv1a_bytes(body, blen) == want_hash &&
		     blen >= 4 && memcmp(body, "<svg", 4) == 0;
		if (ok)
			cgm_strbuf_add(svg, body, blen);
	}
	free(data);
	return ok;
}

static int cache_write(const html_ctx *ctx, uint64_t key, const cgm_strbuf *svg)
{
	char name[64];
	entry_name(name, sizeof(name), key);
	char rel[96];
	snprintf(rel, sizeof(rel), HTML_CACHE_DIR "/%s", name);
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&b, CACHE_MAGIC "%zu %016llx\n", svg->len,
			  (unsigned long long)cgm_fnv1a_bytes(svg->data ? svg->data : "", svg->len));
	cgm_strbuf_add(&b, svg->data ? svg->data : "", svg->len);
	int rc = cgm_outdir_write(ctx->dir, rel, b.data, b.len);
	cgm_strbuf_free(&b);
	return rc;
}

static bool entry_shaped(const char *name, uint64_t *key)
{
	size_t n = strlen(name);
	if (n != 20 || strcmp(name + 16, ".svg") != 0)
		return false;
	uint64_t k = 0;
	for (int i = 0; i < 16; i++) {
		char c = name[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		k = k << 4 | (uint64_t)d;
	}
	*key = k;
	return true;
}

static int compare_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int html_layout_cache_prune(int fd, const html_layout_shared *shared)
{
	uint64_t *keys = cgm_xcalloc((size_t)shared->nkeys + 1, sizeof(uint64_t));
	memcpy(keys, shared->keys, sizeof(uint64_t) * (size_t)shared->nkeys);
	qsort(keys, (size_t)shared->nkeys, sizeof(uint64_t), compare_keys);
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = dup >= 0 ? fdopendir(dup) : NULL;
	if (!dir) {
		if (dup >= 0)
			close(dup);
		free(keys);
		return cgm_error(CGM_EIO, "cannot list the layout cache \"" HTML_CACHE_DIR "\": %s",
				 strerror(errno));
	}
	int removed = 0, rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(dir)) != NULL) {
		uint64_t key;
		struct stat st;
		if (!entry_shaped(de->d_name, &key) ||
		    bsearch(&key, keys, (size_t)shared->nkeys, sizeof(uint64_t), compare_keys) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			removed++;
		else if (errno != ENOENT)
			rc = cgm_error(CGM_EIO, "cannot remove \"" HTML_CACHE_DIR "/%s\": %s",
				       de->d_name, strerror(errno));
	}
	closedir(dir);
	free(keys);
	return rc ? rc : removed;
}

/* Lay dot out and append its slimmed SVG to svg; counted in the shared
 * counters unless a probe. */
static int lay_out_counted(cgm_strbuf *svg, html_graph_scratch *s, const char *dot,
			   const char *what, bool counted)
{
	Agraph_t *g = agmemread(dot);
	if (!g)
		return cgm_error(CGM_EIO, "Graphviz cannot read the DOT of the graph of '%s'", what);
	if (gvLayout(s->gvc, g, "dot") != 0) {
		agclose(g);
		return cgm_error(CGM_EIO, "Graphviz cannot lay out the graph of '%s'", what);
	}
	char *data = NULL;
	unsigned int len = 0;
	int rc = 0;
	if (gvRenderData(s->gvc, g, "svg", &data, &len) != 0 || !data) {
		rc = cgm_error(CGM_EIO, "Graphviz cannot draw the graph of '%s'", what);
	} else {
		/* Only the <svg> element: the XML prolog, DOCTYPE and generator
		 * comment have no place inside an HTML page. */
		const char *start = strstr(data, "<svg");
		if (!start)
			rc = cgm_error(CGM_EIO, "Graphviz drew no SVG for the graph of '%s'", what);
		else
			append_slim_svg(svg, start, data + len);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(s->gvc, g);
	agclose(g);
	if (counted && s->ctx && s->ctx->shared)
		__atomic_fetch_add(&s->ctx->shared->layouts, 1, __ATOMIC_RELAXED);
	return rc;
}

static int lay_out(cgm_strbuf *svg, html_graph_scratch *s, const char *dot, const char *what)
{
	return lay_out_counted(svg, s, dot, what, true);
}

/* Whether this Graphviz lays a graph out the same whatever its nodes'
 * penwidth, and writes the stroke width as stroke_width() does: a probe
 * graph laid out with penwidths, and without them and with the widths put
 * back, must give the same SVG.  Once per process. */
static bool pen_neutral(html_graph_scratch *s)
{
	static int neutral = -1;
	if (neutral >= 0)
		return neutral;
	static const char probe[] =
		"digraph \"p\" {\n  graph [rankdir=LR];\n"
		"  node [shape=box, style=filled, fontsize=10, height=0.3];\n"
		"  n0 [label=\"first()\", tooltip=\"a\", URL=\"a.html\", penwidth=3.75, fontsize=11];\n"
		"  n1 [label=\"second(integer)\", tooltip=\"b\", penwidth=1.05];\n"
		"  n2 [label=\"x\", tooltip=\"c\", shape=ellipse, penwidth=5.50];\n"
		"  n0 -> n1 [tooltip=\"e\", penwidth=2.2];\n  n1 -> n2;\n  n0 -> n2;\n}\n";
	cgm_strbuf with = CGM_STRBUF_INIT, without = CGM_STRBUF_INIT, put = CGM_STRBUF_INIT;
	cgm_strbuf a = CGM_STRBUF_INIT, b = CGM_STRBUF_INIT;
	tooltip_ref *ra = NULL, *rb = NULL;
	int na = 0, nb = 0;
	placeholder_dot(&a, &ra, &na, probe, false);
	placeholder_dot(&b, &rb, &nb, probe, true);
	bool ok = nb == 4 && rb[0].pen_len && rb[1].pen_len && rb[2].pen_len && !rb[3].pen_len &&
		  lay_out_counted(&with, s, cgm_strbuf_cstr(&a), "probe", false) == 0 &&
		  lay_out_counted(&without, s, cgm_strbuf_cstr(&b), "probe", false) == 0;
	if (ok) {
		cgm_strbuf ta = CGM_STRBUF_INIT;
		substitute_tooltips(&ta, with.data, with.len, probe, ra, na);
		substitute_tooltips(&put, without.data, without.len, probe, rb, nb);
		ok = ta.len == put.len && memcmp(ta.data, put.data, ta.len) == 0 &&
		     strstr(cgm_strbuf_cstr(&put), "stroke-width=\"3.75\"") &&
		     strstr(cgm_strbuf_cstr(&put), "stroke-width=\"5.5\"");
		cgm_strbuf_free(&ta);
	}
	cgm_error_clear();
	free(ra), free(rb);
	cgm_strbuf_free(&with), cgm_strbuf_free(&without), cgm_strbuf_free(&put);
	cgm_strbuf_free(&a), cgm_strbuf_free(&b);
	neutral = ok;
	return ok;
}

int html_graph_svg(cgm_strbuf *svg, html_graph_scratch *s, const char *dot, const char *what)
{
	if (!s->gvc) {
		s->gvc = process_gvc();
		if (!s->gvc)
			return cgm_error(CGM_EIO, "cannot start Graphviz for the graph of '%s'", what);
	}
	const html_ctx *ctx = s->ctx;
	if (!ctx || ctx->cache_fd < 0 || !ctx->shared)
		return lay_out(svg, s, dot, what);

	cgm_strbuf layout_dot = CGM_STRBUF_INIT, laid = CGM_STRBUF_INIT;
	tooltip_ref *refs = NULL;
	int nrefs = 0;
	placeholder_dot(&layout_dot, &refs, &nrefs, dot, pen_neutral(s));
	uint64_t key = cgm_fnv1a_more(CGM_FNV1A_OFFSET, "cgmap " CGMAP_VERSION "\n");
	key = cgm_fnv1a_more(key, "graphviz ");
	key = cgm_fnv1a_more(key, gvcVersion(s->gvc));
	key = cgm_fnv1a_byte(key, '\n');
	key = cgm_fnv1a_more(key, cgm_strbuf_cstr(&layout_dot));
	if (!key)
		key = 1; /* 0 marks an item without a key */
	if (s->item >= 0 && s->item < ctx->shared->nkeys)
		ctx->shared->keys[s->item] = key;
	int rc = 0;
	if (cache_read(&laid, ctx->cache_fd, key)) {
		__atomic_fetch_add(&ctx->shared->hits, 1, __ATOMIC_RELAXED);
	} else {
		rc = lay_out(&laid, s, cgm_strbuf_cstr(&layout_dot), what);
		if (!rc)
			rc = cache_write(ctx, key, &laid);
	}
	if (!rc)
		substitute_tooltips(svg, laid.data ? laid.data : "", laid.len, dot, refs, nrefs);
	free(refs);
	cgm_strbuf_free(&layout_dot);
	cgm_strbuf_free(&laid);
	return rc;
}
