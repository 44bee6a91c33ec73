/*
 * query_out.c - the answers of callers, callees, path and impact
 * (cgmap/query.h) as an indented tree or aligned lines, Graphviz DOT, JSON,
 * CSV or Markdown (docs/query.md).
 *
 * In:  the model and an answer computed by src/query.c.  Out: text appended
 *      to a caller-owned cgm_strbuf.  Every name is escaped for its medium
 *      (cgmap/escape.h); nothing is kept.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/query.h"
#include "cgmap/runtime.h"
#include "cgmap/verdict.h"

int cgm_qformat_parse(cgm_qformat *out, const char *name)
{
	static const struct {
		const char *name;
		cgm_qformat format;
	} names[] = { { "text", CGM_QFMT_TEXT }, { "tree", CGM_QFMT_TEXT },
		      { "dot", CGM_QFMT_DOT },	 { "json", CGM_QFMT_JSON },
		      { "csv", CGM_QFMT_CSV },	 { "markdown", CGM_QFMT_MARKDOWN },
		      { "md", CGM_QFMT_MARKDOWN } };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (name && strcmp(name, names[i].name) == 0) {
			*out = names[i].format;
			return 0;
		}
	return cgm_error(CGM_EUSAGE, "unknown format '%s' (text, dot, json, csv, markdown)",
			 name ? name : "");
}

static const char *fn_id(const cgm_model *m, int f)
{
	return f >= 0 && f < m->nfunctions && m->functions[f].id ? m->functions[f].id : "?";
}

static void json_str(cgm_strbuf *o, const char *s)
{
	if (!s) {
		cgm_strbuf_puts(o, "null");
		return;
	}
	cgm_strbuf_putc(o, '"');
	cgm_escape_json(o, s);
	cgm_strbuf_putc(o, '"');
}

static void csv_field(cgm_strbuf *o, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
		cgm_strbuf_puts(o, s);
		return;
	}
	cgm_strbuf_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			cgm_strbuf_putc(o, '"');
		cgm_strbuf_putc(o, *s);
	}
	cgm_strbuf_putc(o, '"');
}

static void lines_list(cgm_strbuf *o, const cgm_edge *e, const char *sep)
{
	for (int l = 0; l < e->nlines; l++)
		cgm_strbuf_printf(o, "%s%d", l ? sep : "", e->lines[l]);
}

/* "call, static, line 3", "view app.v, both, possible, lines 2 5, 12 calls". */
static void edge_words(cgm_strbuf *o, const cgm_edge *e)
{
	cgm_strbuf_puts(o, cgm_via_name(e->via));
	if (e->object)
		cgm_strbuf_printf(o, " %s", cgm_via_object_tail(e->via, e->object));
	cgm_strbuf_printf(o, ", %s", cgm_qedge_provenance(e));
	if (e->ambiguous)
		cgm_strbuf_puts(o, ", possible");
	if (e->nlines) {
		cgm_strbuf_puts(o, e->nlines == 1 ? ", line " : ", lines ");
		lines_list(o, e, ", ");
	}
	if (e->provenance & CGM_EDGE_OBSERVED)
		cgm_strbuf_printf(o, ", %" PRId64 " call%s", cgm_edge_runtime(e)->calls,
				  cgm_edge_runtime(e)->calls == 1 ? "" : "s");
}

static void json_edge_fields(cgm_strbuf *o, const cgm_model *m, const cgm_edge *e)
{
	cgm_strbuf_puts(o, "\"caller\": ");
	json_str(o, fn_id(m, e->from));
	cgm_strbuf_puts(o, ", \"callee\": ");
	json_str(o, fn_id(m, e->to));
	cgm_strbuf_puts(o, ", \"via\": ");
	json_str(o, cgm_via_name(e->via));
	cgm_strbuf_puts(o, ", \"object\": ");
	json_str(o, e->object);
	cgm_strbuf_printf(o, ", \"provenance\": \"%s\", \"ambiguous\": %s, \"lines\": [",
			  cgm_qedge_provenance(e), e->ambiguous ? "true" : "false");
	lines_list(o, e, ", ");
	cgm_strbuf_printf(o, "], \"calls\": %" PRId64, cgm_edge_runtime(e)->calls);
}

static void csv_edge_fields(cgm_strbuf *o, const cgm_model *m, const cgm_edge *e)
{
	csv_field(o, fn_id(m, e->from));
	cgm_strbuf_putc(o, ',');
	csv_field(o, fn_id(m, e->to));
	cgm_strbuf_printf(o, ",%s,", cgm_via_name(e->via));
	csv_field(o, e->object);
	cgm_strbuf_printf(o, ",%s,%s,", cgm_qedge_provenance(e), e->ambiguous ? "true" : "false");
	lines_list(o, e, " ");
	cgm_strbuf_printf(o, ",%" PRId64, cgm_edge_runtime(e)->calls);
}

/* ---- DOT: the functions and edges an answer touches ---- */

typedef struct dot_graph {
	bool *node;   /* nfunctions */
	bool *stress; /* queried functions, drawn bold */
	bool *edge;   /* nedges */
} dot_graph;

static void dot_init(dot_graph *d, const cgm_model *m)
{
	d->node = calloc((size_t)m->nfunctions + 1, sizeof(bool));
	d->stress = calloc((size_t)m->nfunctions + 1, sizeof(bool));
	d->edge = calloc((size_t)m->nedges + 1, sizeof(bool));
	if (!d->node || !d->stress || !d->edge) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
}

static void dot_write(cgm_strbuf *o, const cgm_model *m, dot_graph *d, const char *name)
{
	cgm_strbuf_printf(o, "digraph \"%s\" {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
			  name);
	for (int f = 0; f < m->nfunctions; f++) {
		if (!d->node[f])
			continue;
		cgm_strbuf_puts(o, "  \"");
		cgm_escape_dot_id(o, fn_id(m, f));
		cgm_strbuf_puts(o, "\" [label=\"");
		cgm_escape_dot(o, fn_id(m, f));
		cgm_strbuf_puts(o, "\"");
		if (d->stress[f])
			cgm_strbuf_puts(o, ", style=bold");
		else if (m->functions[f].root)
			cgm_strbuf_puts(o, ", peripheries=2");
		cgm_strbuf_puts(o, "];\n");
	}
	int *order = cgm_model_edge_order(m);
	for (int k = 0; k < m->nedges; k++) {
		int i = order ? order[k] : k;
		if (!d->edge[i])
			continue;
		const cgm_edge *e = &m->edges[i];
		cgm_strbuf label = CGM_STRBUF_INIT;
		edge_words(&label, e);
		cgm_strbuf_puts(o, "  \"");
		cgm_escape_dot_id(o, fn_id(m, e->from));
		cgm_strbuf_puts(o, "\" -> \"");
		cgm_escape_dot_id(o, fn_id(m, e->to));
		cgm_strbuf_puts(o, "\" [label=\"");
		cgm_escape_dot(o, cgm_strbuf_cstr(&label));
		cgm_strbuf_puts(o, "\"");
		if (!(e->provenance & CGM_EDGE_STATIC))
			cgm_strbuf_puts(o, ", style=dashed");
		else if (e->ambiguous)
			cgm_strbuf_puts(o, ", style=dotted");
		cgm_strbuf_puts(o, "];\n");
		cgm_strbuf_free(&label);
	}
	cgm_strbuf_puts(o, "}\n");
	free(order);
	free(d->node);
	free(d->stress);
	free(d->edge);
}

/* ---- callers, callees ---- */

static const char *mark_name(cgm_qmark mark)
{
	switch (mark) {
	case CGM_QROW_SEEN:
		return "repeated";
	case CGM_QROW_CYCLE:
		return "cycle";
	case CGM_QROW_LIMIT:
		return "depth-limit";
	default:
		return "expanded";
	}
}

static const char *mark_text(cgm_qmark mark)
{
	switch (mark) {
	case CGM_QROW_SEEN:
		return "  [expanded on another row]";
	case CGM_QROW_CYCLE:
		return "  [cycle]";
	case CGM_QROW_LIMIT:
		return "  [more beyond --depth]";
	default:
		return "";
	}
}

/* The count's note: how many of the functions listed are queried ones
 * (the overloads a pattern matched, calling each other). */
static void queried_note(cgm_strbuf *o, const cgm_qtree *t)
{
	if (t->nqueried == t->nfunctions && t->nqueried > 0)
		cgm_strbuf_printf(o, ", %s queried", t->nqueried == 1 ? "the one" : "all");
	else if (t->nqueried > 0)
		cgm_strbuf_printf(o, ", %d of them queried", t->nqueried);
}

void cgm_query_write_tree(cgm_strbuf *o, const cgm_model *m, const cgm_qtree *t, cgm_qdir dir,
			  cgm_qformat format)
{
	const char *what = dir == CGM_Q_CALLERS ? "callers" : "callees";
	const char *arrow = dir == CGM_Q_CALLERS ? "<-" : "->";
	cgm_strbuf words = CGM_STRBUF_INIT;
	char depth[32];
	if (t->max_depth > 0)
		snprintf(depth, sizeof depth, "depth %d", t->max_depth);
	else
		snprintf(depth, sizeof depth, "any depth");
	switch (format) {
	case CGM_QFMT_TEXT:
		cgm_strbuf_printf(o, "%s (%s): %d function%s", what, depth, t->nfunctions,
				  t->nfunctions == 1 ? "" : "s");
		queried_note(o, t);
		cgm_strbuf_putc(o, '\n');
		for (int i = 0; i < t->nrows; i++) {
			const cgm_qrow *r = &t->rows[i];
			for (int d = 0; d < r->depth; d++)
				cgm_strbuf_puts(o, "  ");
			if (r->depth > 0)
				cgm_strbuf_printf(o, "%s ", arrow);
			cgm_escape_text(o, fn_id(m, r->fn));
			if (r->edge >= 0) {
				cgm_strbuf_reset(&words);
				edge_words(&words, &m->edges[r->edge]);
				cgm_strbuf_puts(o, "  (");
				cgm_escape_text(o, cgm_strbuf_cstr(&words));
				cgm_strbuf_putc(o, ')');
			}
			cgm_strbuf_printf(o, "%s\n", mark_text(r->mark));
		}
		break;
	case CGM_QFMT_MARKDOWN:
		cgm_strbuf_printf(o, "### %s (%s): %d function%s", what, depth, t->nfunctions,
				  t->nfunctions == 1 ? "" : "s");
		queried_note(o, t);
		cgm_strbuf_puts(o, "\n\n");
		for (int i = 0; i < t->nrows; i++) {
			const cgm_qrow *r = &t->rows[i];
			if (r->depth == 0 && i > 0)
				cgm_strbuf_putc(o, '\n');
			for (int d = 0; d < r->depth; d++)
				cgm_strbuf_puts(o, "  ");
			cgm_strbuf_puts(o, "- ");
			cgm_escape_markdown_code(o, fn_id(m, r->fn));
			if (r->edge >= 0) {
				cgm_strbuf_reset(&words);
				edge_words(&words, &m->edges[r->edge]);
				cgm_strbuf_puts(o, " — ");
				cgm_escape_markdown(o, cgm_strbuf_cstr(&words));
			}
			if (r->mark != CGM_QROW_EXPANDED)
				cgm_strbuf_printf(o, " *(%s)*", mark_name(r->mark));
			cgm_strbuf_putc(o, '\n');
		}
		break;
	case CGM_QFMT_CSV:
		cgm_strbuf_puts(o, "depth,function,caller,callee,via,object,provenance,ambiguous,"
				   "lines,calls,mark\r\n");
		for (int i = 0; i < t->nrows; i++) {
			const cgm_qrow *r = &t->rows[i];
			cgm_strbuf_printf(o, "%d,", r->depth);
			csv_field(o, fn_id(m, r->fn));
			cgm_strbuf_putc(o, ',');
			if (r->edge >= 0)
				csv_edge_fields(o, m, &m->edges[r->edge]);
			else
				cgm_strbuf_puts(o, ",,,,,,,");
			cgm_strbuf_printf(o, ",%s\r\n", mark_name(r->mark));
		}
		break;
	case CGM_QFMT_JSON:
		cgm_strbuf_printf(o, "{\n  \"query\": \"%s\",\n  \"depth\": ", what);
		if (t->max_depth > 0)
			cgm_strbuf_printf(o, "%d", t->max_depth);
		else
			cgm_strbuf_puts(o, "null");
		cgm_strbuf_puts(o, ",\n  \"functions\": [");
		for (int i = 0, first = 1; i < t->nrows; i++)
			if (t->rows[i].depth == 0) {
				cgm_strbuf_puts(o, first ? "" : ", ");
				json_str(o, fn_id(m, t->rows[i].fn));
				first = 0;
			}
		cgm_strbuf_printf(o,
				  "],\n  \"reached\": %d,\n  \"reached_queried\": %d,\n  \"runtime\": "
				  "%s,\n  \"rows\": [",
				  t->nfunctions, t->nqueried, m->has_runtime ? "true" : "false");
		for (int i = 0; i < t->nrows; i++) {
			const cgm_qrow *r = &t->rows[i];
			cgm_strbuf_printf(o, "%s\n    {\"depth\": %d, \"function\": ", i ? "," : "",
					  r->depth);
			json_str(o, fn_id(m, r->fn));
			cgm_strbuf_printf(o, ", \"parent\": %d, \"mark\": \"%s\"", r->parent,
					  mark_name(r->mark));
			if (r->edge >= 0) {
				cgm_strbuf_puts(o, ", ");
				json_edge_fields(o, m, &m->edges[r->edge]);
			}
			cgm_strbuf_putc(o, '}');
		}
		cgm_strbuf_puts(o, t->nrows ? "\n  ]\n}\n" : "]\n}\n");
		break;
	case CGM_QFMT_DOT: {
		dot_graph d;
		dot_init(&d, m);
		for (int i = 0; i < t->nrows; i++) {
			const cgm_qrow *r = &t->rows[i];
			d.node[r->fn] = true;
			if (r->depth == 0)
				d.stress[r->fn] = true;
			if (r->edge >= 0)
				d.edge[r->edge] = true;
		}
		dot_write(o, m, &d, what);
		break;
	}
	}
	cgm_strbuf_free(&words);
}

/* ---- path ---- */

/* Every edge from a to b, in edge order. */
static void hop_edges(const cgm_qgraph *g, int a, int b, int **out, int *n)
{
	*n = 0;
	for (int k = g->out_start[a]; k < g->out_start[a + 1]; k++)
		if (g->model->edges[g->out_edges[k]].to == b)
			(*out)[(*n)++] = g->out_edges[k];
}

static void list_ids(cgm_strbuf *o, const cgm_model *m, const int *fns, int n, cgm_qformat f)
{
	for (int i = 0; i < n; i++) {
		cgm_strbuf_puts(o, i ? ", " : "");
		if (f == CGM_QFMT_JSON)
			json_str(o, fn_id(m, fns[i]));
		else if (f == CGM_QFMT_MARKDOWN)
			cgm_escape_markdown_code(o, fn_id(m, fns[i]));
		else
			cgm_escape_text(o, fn_id(m, fns[i]));
	}
}

void cgm_query_write_paths(cgm_strbuf *o, const cgm_model *m, const cgm_qgraph *g,
			   const cgm_qpaths *p, const int *from, int nfrom, const int *to, int nto,
			   cgm_qformat format)
{
	int *edges = calloc((size_t)m->nedges + 1, sizeof(int));
	if (!edges) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	int nedges = 0;
	cgm_strbuf words = CGM_STRBUF_INIT;
	const char *more = p->cut ? " (the search stopped at its work bound: more may exist)" : "";
	switch (format) {
	case CGM_QFMT_TEXT:
	case CGM_QFMT_MARKDOWN: {
		bool md = format == CGM_QFMT_MARKDOWN;
		cgm_strbuf_puts(o, md ? "### paths from " : "paths from ");
		list_ids(o, m, from, nfrom, format);
		cgm_strbuf_puts(o, " to ");
		list_ids(o, m, to, nto, format);
		cgm_strbuf_printf(o, ": %d%s\n", p->npaths, more);
		if (md)
			cgm_strbuf_putc(o, '\n');
		if (!p->npaths)
			cgm_strbuf_puts(o, md ? "No call path.\n" : "no call path\n");
		for (int i = 0; i < p->npaths; i++) {
			const cgm_qpath *path = &p->paths[i];
			cgm_strbuf_printf(o, "%d. ", i + 1);
			list_ids(o, m, path->fns, 1, format);
			for (int h = 1; h < path->nfns; h++) {
				cgm_strbuf_puts(o, " -> ");
				list_ids(o, m, path->fns + h, 1, format);
			}
			cgm_strbuf_printf(o, "  (%d call%s)\n", path->nfns - 1,
					  path->nfns == 2 ? "" : "s");
			for (int h = 1; h < path->nfns; h++) {
				hop_edges(g, path->fns[h - 1], path->fns[h], &edges, &nedges);
				for (int k = 0; k < nedges; k++) {
					const cgm_edge *e = &m->edges[edges[k]];
					cgm_strbuf_puts(o, md ? "   - " : "     ");
					list_ids(o, m, &e->from, 1, format);
					cgm_strbuf_puts(o, " -> ");
					list_ids(o, m, &e->to, 1, format);
					cgm_strbuf_reset(&words);
					edge_words(&words, e);
					cgm_strbuf_puts(o, md ? " — " : "  (");
					if (md)
						cgm_escape_markdown(o, cgm_strbuf_cstr(&words));
					else
						cgm_escape_text(o, cgm_strbuf_cstr(&words));
					cgm_strbuf_puts(o, md ? "\n" : ")\n");
				}
			}
		}
		break;
	}
	case CGM_QFMT_CSV:
		cgm_strbuf_puts(o, "path,hop,caller,callee,via,object,provenance,ambiguous,lines,calls\r\n");
		for (int i = 0; i < p->npaths; i++) {
			const cgm_qpath *path = &p->paths[i];
			for (int h = 1; h < path->nfns; h++) {
				hop_edges(g, path->fns[h - 1], path->fns[h], &edges, &nedges);
				for (int k = 0; k < nedges; k++) {
					cgm_strbuf_printf(o, "%d,%d,", i + 1, h);
					csv_edge_fields(o, m, &m->edges[edges[k]]);
					cgm_strbuf_puts(o, "\r\n");
				}
			}
		}
		break;
	case CGM_QFMT_JSON:
		cgm_strbuf_puts(o, "{\n  \"query\": \"path\",\n  \"from\": [");
		list_ids(o, m, from, nfrom, format);
		cgm_strbuf_puts(o, "],\n  \"to\": [");
		list_ids(o, m, to, nto, format);
		cgm_strbuf_printf(o, "],\n  \"complete\": %s,\n  \"paths\": [", p->cut ? "false" : "true");
		for (int i = 0; i < p->npaths; i++) {
			const cgm_qpath *path = &p->paths[i];
			cgm_strbuf_printf(o, "%s\n    {\"length\": %d, \"functions\": [", i ? "," : "",
					  path->nfns - 1);
			list_ids(o, m, path->fns, path->nfns, format);
			cgm_strbuf_puts(o, "], \"hops\": [");
			for (int h = 1; h < path->nfns; h++) {
				hop_edges(g, path->fns[h - 1], path->fns[h], &edges, &nedges);
				for (int k = 0; k < nedges; k++) {
					cgm_strbuf_printf(o, "%s\n      {\"hop\": %d, ",
							  h > 1 || k ? "," : "", h);
					json_edge_fields(o, m, &m->edges[edges[k]]);
					cgm_strbuf_putc(o, '}');
				}
			}
			cgm_strbuf_puts(o, path->nfns > 1 ? "\n    ]}" : "]}");
		}
		cgm_strbuf_puts(o, p->npaths ? "\n  ]\n}\n" : "]\n}\n");
		break;
	case CGM_QFMT_DOT: {
		dot_graph d;
		dot_init(&d, m);
		for (int i = 0; i < nfrom; i++)
			d.node[from[i]] = d.stress[from[i]] = true;
		for (int i = 0; i < nto; i++)
			d.node[to[i]] = d.stress[to[i]] = true;
		for (int i = 0; i < p->npaths; i++) {
			const cgm_qpath *path = &p->paths[i];
			for (int h = 1; h < path->nfns; h++) {
				d.node[path->fns[h]] = true;
				hop_edges(g, path->fns[h - 1], path->fns[h], &edges, &nedges);
				for (int k = 0; k < nedges; k++)
					d.edge[edges[k]] = true;
			}
		}
		dot_write(o, m, &d, "path");
		break;
	}
	}
	free(edges);
	cgm_strbuf_free(&words);
}

/* ---- impact ---- */

/* The verdict word of a caller worth a reviewer's eye, or NULL. */
static const char *caller_verdict(const cgm_function *f)
{
	if (f->dead)
		return "dead";
	if (f->cold)
		return "cold";
	if (f->verdict != CGM_VERDICT_NONE)
		return cgm_verdict_name(f->verdict);
	return NULL;
}

void cgm_query_write_impact(cgm_strbuf *o, const cgm_model *m, const cgm_qgraph *g,
			    const cgm_qimpact *im, const int *targets, int ntargets,
			    cgm_qformat format)
{
	int nflagged = 0;
	for (int i = 0; i < im->ncallers; i++)
		if (caller_verdict(&m->functions[im->callers[i]]))
			nflagged++;
	char calls[32];
	switch (format) {
	case CGM_QFMT_TEXT:
	case CGM_QFMT_MARKDOWN: {
		bool md = format == CGM_QFMT_MARKDOWN;
		cgm_strbuf_puts(o, md ? "### impact of " : "impact of ");
		list_ids(o, m, targets, ntargets, format);
		cgm_strbuf_printf(o, ": %d entry point%s", im->nentries, im->nentries == 1 ? "" : "s");
		if (m->has_runtime)
			cgm_strbuf_printf(o, ", %" PRId64 " observed call%s through them", im->calls,
					  im->calls == 1 ? "" : "s");
		else
			cgm_strbuf_puts(o, " (no runtime data)");
		cgm_strbuf_printf(o, "; %d caller%s in all\n", im->ncallers, im->ncallers == 1 ? "" : "s");
		if (md) {
			cgm_strbuf_puts(o, "\n| entry point | kind | calls | length | path | reaches |\n"
					   "|---|---|--:|--:|---|---|\n");
		} else if (im->nentries) {
			cgm_strbuf_puts(o, "\n  kind  calls     length  path      entry point -> reaches\n");
		}
		for (int i = 0; i < im->nentries; i++) {
			const cgm_qentry *e = &im->entries[i];
			if (m->has_runtime)
				snprintf(calls, sizeof calls, "%" PRId64, e->calls);
			else
				snprintf(calls, sizeof calls, "-");
			if (md) {
				cgm_strbuf_puts(o, "| ");
				cgm_escape_markdown_code(o, fn_id(m, e->fn));
				cgm_strbuf_printf(o, " | %s | %s | %d | %s | ", e->root ? "root" : "top",
						  calls, e->length,
						  cgm_qprov_name(e->prov));
				cgm_escape_markdown_code(o, fn_id(m, e->target));
				cgm_strbuf_puts(o, " |\n");
			} else {
				cgm_strbuf_printf(o, "  %-5s %-9s %-7d %-9s ", e->root ? "root" : "top",
						  calls, e->length,
						  cgm_qprov_name(e->prov));
				cgm_escape_text(o, fn_id(m, e->fn));
				cgm_strbuf_puts(o, " -> ");
				cgm_escape_text(o, fn_id(m, e->target));
				cgm_strbuf_putc(o, '\n');
			}
		}
		if (nflagged) {
			cgm_strbuf_printf(o, md ? "\n#### dead or cold among the callers (%d)\n\n"
						: "\ndead or cold among the callers (%d):\n",
					  nflagged);
			for (int i = 0; i < im->ncallers; i++) {
				const cgm_function *f = &m->functions[im->callers[i]];
				const char *v = caller_verdict(f);
				if (!v)
					continue;
				cgm_strbuf_puts(o, md ? "- " : "  ");
				list_ids(o, m, &im->callers[i], 1, format);
				cgm_strbuf_printf(o, "  %s", v);
				if (f->dead && f->confidence)
					cgm_strbuf_printf(o, " (%s confidence)", f->confidence);
				cgm_strbuf_putc(o, '\n');
			}
		}
		break;
	}
	case CGM_QFMT_CSV:
		cgm_strbuf_puts(o, "kind,function,calls,length,provenance,reaches,verdict\r\n");
		/* kind: root or top (an entry point), or caller (dead or cold). */
		for (int i = 0; i < im->nentries; i++) {
			const cgm_qentry *e = &im->entries[i];
			cgm_strbuf_puts(o, e->root ? "root," : "top,");
			csv_field(o, fn_id(m, e->fn));
			if (m->has_runtime)
				cgm_strbuf_printf(o, ",%" PRId64, e->calls);
			else
				cgm_strbuf_putc(o, ',');
			cgm_strbuf_printf(o, ",%d,%s,", e->length, cgm_qprov_name(e->prov));
			csv_field(o, fn_id(m, e->target));
			cgm_strbuf_putc(o, ',');
			csv_field(o, caller_verdict(&m->functions[e->fn]));
			cgm_strbuf_puts(o, "\r\n");
		}
		for (int i = 0; i < im->ncallers; i++) {
			const char *v = caller_verdict(&m->functions[im->callers[i]]);
			if (!v)
				continue;
			cgm_strbuf_puts(o, "caller,");
			csv_field(o, fn_id(m, im->callers[i]));
			cgm_strbuf_printf(o, ",,,,,%s\r\n", v);
		}
		break;
	case CGM_QFMT_JSON:
		cgm_strbuf_puts(o, "{\n  \"query\": \"impact\",\n  \"functions\": [");
		list_ids(o, m, targets, ntargets, format);
		cgm_strbuf_printf(o, "],\n  \"runtime\": %s,\n  \"calls\": ", m->has_runtime ? "true" : "false");
		if (m->has_runtime)
			cgm_strbuf_printf(o, "%" PRId64, im->calls);
		else
			cgm_strbuf_puts(o, "null");
		cgm_strbuf_printf(o, ",\n  \"callers\": %d,\n  \"entry_points\": [", im->ncallers);
		for (int i = 0; i < im->nentries; i++) {
			const cgm_qentry *e = &im->entries[i];
			cgm_strbuf_puts(o, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
			json_str(o, fn_id(m, e->fn));
			cgm_strbuf_puts(o, ", \"calls\": ");
			if (m->has_runtime)
				cgm_strbuf_printf(o, "%" PRId64, e->calls);
			else
				cgm_strbuf_puts(o, "null");
			cgm_strbuf_printf(o, ", \"kind\": \"%s\", \"length\": %d, \"provenance\": \"%s\", "
					     "\"reaches\": ",
					  e->root ? "root" : "top", e->length, cgm_qprov_name(e->prov));
			json_str(o, fn_id(m, e->target));
			cgm_strbuf_putc(o, '}');
		}
		cgm_strbuf_puts(o, im->nentries ? "\n  ],\n  \"dead_or_cold\": [" : "],\n  \"dead_or_cold\": [");
		for (int i = 0, first = 1; i < im->ncallers; i++) {
			const cgm_function *f = &m->functions[im->callers[i]];
			const char *v = caller_verdict(f);
			if (!v)
				continue;
			cgm_strbuf_puts(o, first ? "\n    {\"function\": " : ",\n    {\"function\": ");
			json_str(o, f->id);
			cgm_strbuf_printf(o, ", \"verdict\": \"%s\", \"confidence\": ", v);
			json_str(o, f->dead ? f->confidence : NULL);
			cgm_strbuf_putc(o, '}');
			first = 0;
		}
		cgm_strbuf_puts(o, nflagged ? "\n  ]\n}\n" : "]\n}\n");
		break;
	case CGM_QFMT_DOT: {
		dot_graph d;
		dot_init(&d, m);
		for (int i = 0; i < ntargets; i++)
			d.node[targets[i]] = d.stress[targets[i]] = true;
		for (int i = 0; i < im->ncallers; i++)
			d.node[im->callers[i]] = true;
		for (int i = 0; i < m->nedges; i++) {
			const cgm_edge *e = &m->edges[i];
			if (e->from >= 0 && e->from < m->nfunctions && e->to >= 0 &&
			    e->to < m->nfunctions && d.node[e->from] && d.node[e->to] &&
			    !d.stress[e->from])
				d.edge[i] = true;
		}
		dot_write(o, m, &d, "impact");
		break;
	}
	}
	(void)g;
}
