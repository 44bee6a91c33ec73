/*
 * emit_dot.c - the whole call graph as Graphviz DOT (callgraph.dot).
 *
 * In:  a complete, indexed model (left untouched: orders are sorted copies).
 * Out: the DOT file, written to a temporary file in the same folder and
 *      renamed, so a reader never sees half a graph.  Every name goes
 *      through cgm_escape_dot(), so `dot -Tsvg` accepts the file whatever the
 *      catalog holds; the same model gives the same bytes.  Streamed: the
 *      text goes out in 256 KiB pieces, so memory stays at the sort indexes
 *      whatever the size of the graph; everything is freed before returning.
 *
 * Drawing (the legend cluster in the file says the same):
 *   - one cluster per schema, functions labelled name(args), the full id as
 *     tooltip; not-analysed functions (C, internal, ...) greyed, builtins as
 *     grey ellipses, functions whose body did not parse with a red border;
 *   - edges: static solid, observed-only dashed, static and observed bold;
 *     via trigger blue with the events, via constant EXECUTE SQL dotted and
 *     labelled EXECUTE, observed from a dynamic EXECUTE purple, one of
 *     several candidates of an ambiguous site labelled "?";
 *   - a dynamic EXECUTE site is a note "EXECUTE line N" hanging off its
 *     function (what it was seen to call at runtime hangs off the note);
 *   - a missing callee is a dashed red box with the name as written.
 */
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COLOR_TRIGGER "#1f6fb4"
#define COLOR_DYNAMIC "#7b3294"
#define COLOR_MISSING "#cc0000"
#define COLOR_AMBIGUOUS "#d97a00"
#define COLOR_GREY "#888888"

/* cgm_escape_dot() with a fast path: printable ASCII that DOT takes as it is
 * is copied in runs, and every other run of bytes goes through
 * cgm_escape_dot().  Cutting the text before a plain ASCII byte changes
 * nothing: an ASCII byte is always a character of its own, and a broken
 * multi-byte sequence before it is broken at the cut too. */
static bool dot_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '&';
}

static void escape_dot(cgm_strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char piece[64];
	cgm_strbuf_add(out, "", 0); /* reads as "" even when nothing is added */
	while (*p) {
		const unsigned char *run = p;
		while (dot_plain(*p))
			p++;
		if (p > run)
			cgm_strbuf_add(out, (const char *)run, (size_t)(p - run));
		run = p;
		while (*p && !dot_plain(*p))
			p++;
		size_t n = (size_t)(p - run);
		if (n == 0)
			continue;
		char *copy = n < sizeof(piece) ? piece : cgm_xcalloc(n + 1, 1);
		memcpy(copy, run, n);
		copy[n] = '\0';
		cgm_escape_dot(out, copy);
		if (copy != piece)
			free(copy);
	}
}

static void put_int(cgm_strbuf *out, int v)
{
	char buf[16];
	char *end = buf + sizeof(buf), *p = end;
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	cgm_strbuf_add(out, p, (size_t)(end - p));
}

/* "text" with the text escaped. */
static void put_quoted(cgm_strbuf *out, const char *s)
{
	cgm_strbuf_putc(out, '"');
	escape_dot(out, s);
	cgm_strbuf_putc(out, '"');
}

/* Node names: function ids end with ')' and the other node kinds never do,
 * so the name spaces cannot meet. */
static void put_function_node(cgm_strbuf *out, const cgm_function *f)
{
	put_quoted(out, f->id);
}

/* "<id> EXECUTE site N": the id escaped on its own is the same text, the
 * rest being plain ASCII. */
static void put_dynamic_node(cgm_strbuf *out, const cgm_function *f, int site_index)
{
	cgm_strbuf_putc(out, '"');
	escape_dot(out, f->id);
	cgm_strbuf_puts(out, " EXECUTE site ");
	put_int(out, site_index + 1);
	cgm_strbuf_putc(out, '"');
}

/* The callee as written: schema-qualified when it was. */
static void written_name(cgm_strbuf *out, const cgm_site *site)
{
	if (site->schema) {
		cgm_strbuf_puts(out, site->schema);
		cgm_strbuf_putc(out, '.');
	}
	cgm_strbuf_puts(out, site->name ? site->name : "?");
}

static void put_missing_node(cgm_strbuf *out, const char *written)
{
	cgm_strbuf_puts(out, "\"missing: ");
	escape_dot(out, written);
	cgm_strbuf_putc(out, '"');
}

typedef struct {
	const char *k1, *k2, *k3;
	int index, sub;
} sort_rec;

static int compare_text(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int compare_recs(const void *a, const void *b)
{
	const sort_rec *x = a, *y = b;
	int c = compare_text(x->k1, y->k1);
	if (!c)
		c = compare_text(x->k2, y->k2);
	if (!c)
		c = compare_text(x->k3, y->k3);
	if (!c)
		c = (x->index > y->index) - (x->index < y->index);
	return c ? c : (x->sub > y->sub) - (x->sub < y->sub);
}

static bool has_line(const int *lines, int n, int line)
{
	for (int i = 0; i < n; i++)
		if (lines[i] == line)
			return true;
	return false;
}

static bool site_targets(const cgm_site *site, int fn)
{
	for (int t = 0; t < site->ntargets; t++)
		if (site->targets[t] == fn)
			return true;
	return false;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void put_lines(cgm_strbuf *out, const int *lines, int n)
{
	int stack[16];
	int *sorted = n <= 16 ? stack : cgm_xcalloc(sizeof(int) * (size_t)n, 1);
	if (n)
		memcpy(sorted, lines, sizeof(int) * (size_t)n);
	if (n > 16)
		qsort(sorted, (size_t)n, sizeof(int), compare_ints);
	else
		for (int i = 1; i < n; i++) /* insertion sort: lists are short */
			for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
				int tmp = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = tmp;
			}
	cgm_strbuf_puts(out, n == 1 ? "line " : "lines ");
	for (int i = 0; i < n; i++) {
		if (i)
			cgm_strbuf_add(out, ", ", 2);
		put_int(out, sorted[i]);
	}
	if (sorted != stack)
		free(sorted);
}

#define FLUSH_AT (256 * 1024)

typedef struct {
	const cgm_model *model;
	cgm_strbuf out;     /* pending text, written out past FLUSH_AT */
	cgm_outfile file;   /* where out is flushed to */
	bool *drawn;        /* per function index */
	sort_rec *nodes;    /* drawn functions by schema, id */
	int nnodes;
	unsigned *trigger_events; /* per function index: events of the triggers calling it */
	cgm_strbuf text, label, tip, tables, table; /* scratch, reused */
} dot_writer;

/* Write the pending text; after a failed write the rest is dropped and
 * the error reported once at the end. */
static void flush_out(dot_writer *w)
{
	cgm_outfile_write(&w->file, w->out.data, w->out.len);
	cgm_strbuf_reset(&w->out);
}

static void maybe_flush(dot_writer *w)
{
	if (w->out.len >= FLUSH_AT)
		flush_out(w);
}

static void emit_function_node(dot_writer *w, int fi)
{
	const cgm_function *f = &w->model->functions[fi];
	cgm_strbuf *out = &w->out;
	cgm_strbuf *text = &w->text;

	cgm_strbuf_puts(out, "    ");
	put_function_node(out, f);
	cgm_strbuf_puts(out, " [label=\"");
	escape_dot(out, f->name ? f->name : f->id);
	cgm_strbuf_putc(out, '(');
	escape_dot(out, f->identity_args ? f->identity_args : "");
	cgm_strbuf_putc(out, ')');
	if (f->kind == CGM_KIND_PROCEDURE)
		cgm_strbuf_puts(out, "\\nprocedure");
	if (f->is_trigger)
		cgm_strbuf_puts(out, "\\ntrigger function");
	if (!f->analysed && !f->builtin) {
		cgm_strbuf_puts(out, "\\n[");
		escape_dot(out, f->language ? f->language : "?");
		cgm_strbuf_puts(out, ", not analysed]");
	}
	if (f->nerrors > 0)
		cgm_strbuf_puts(out, "\\n[parse error]");
	cgm_strbuf_puts(out, "\", tooltip=\"");
	cgm_strbuf_reset(text);
	cgm_strbuf_puts(text, f->id);
	if (f->language) {
		cgm_strbuf_puts(text, "\nlanguage ");
		cgm_strbuf_puts(text, f->language);
	}
	for (int e = 0; e < f->nerrors; e++) {
		if (f->errors[e].line > 0)
			cgm_strbuf_printf(text, "\nparse error, line %d: %s", f->errors[e].line,
					  f->errors[e].message ? f->errors[e].message : "");
		else
			cgm_strbuf_printf(text, "\nparse error: %s",
					  f->errors[e].message ? f->errors[e].message : "");
	}
	if (w->model->has_runtime)
		cgm_strbuf_printf(text, "\n%lld calls observed", (long long)f->runtime.calls);
	escape_dot(out, cgm_strbuf_cstr(text));
	cgm_strbuf_putc(out, '"');

	if (f->builtin)
		cgm_strbuf_puts(out, ", shape=ellipse, style=filled, fillcolor=\"#eeeeee\", "
				     "color=\"" COLOR_GREY "\", fontcolor=\"#555555\"");
	else if (!f->analysed)
		cgm_strbuf_puts(out, ", style=\"rounded,filled\", fillcolor=\"#e6e6e6\", "
				     "color=\"" COLOR_GREY "\", fontcolor=\"#666666\"");
	if (f->nerrors > 0)
		cgm_strbuf_puts(out, ", color=\"" COLOR_MISSING "\", penwidth=2");
	cgm_strbuf_puts(out, "];\n");

	/* Its dynamic EXECUTE sites, in the same cluster. */
	for (int s = 0; s < f->nsites; s++) {
		const cgm_site *site = &f->sites[s];
		if (site->kind != CGM_SITE_DYNAMIC)
			continue;
		cgm_strbuf_puts(out, "    ");
		put_dynamic_node(out, f, s);
		cgm_strbuf_printf(out, " [shape=note, style=filled, fillcolor=\"#fff4c2\", "
				       "color=\"" COLOR_DYNAMIC "\", label=\"EXECUTE line %d\", tooltip=\"",
				  site->line);
		cgm_strbuf_reset(text);
		cgm_strbuf_printf(text, "dynamic EXECUTE in %s, line %d", f->id, site->line);
		if (site->text) {
			cgm_strbuf_putc(text, '\n');
			cgm_strbuf_puts(text, site->text);
		}
		escape_dot(out, cgm_strbuf_cstr(text));
		cgm_strbuf_puts(out, "\"];\n");
	}
	maybe_flush(w);
}

static void emit_clusters(dot_writer *w)
{
	cgm_strbuf *out = &w->out;
	for (int i = 0; i < w->nnodes;) {
		const char *schema = w->nodes[i].k1;
		cgm_strbuf_puts(out, "  subgraph ");
		cgm_strbuf name = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&name, "cluster_%s", schema ? schema : "");
		put_quoted(out, cgm_strbuf_cstr(&name));
		cgm_strbuf_free(&name);
		cgm_strbuf_puts(out, " {\n    label=\"schema ");
		escape_dot(out, schema ? schema : "(none)");
		cgm_strbuf_puts(out, "\";\n    style=\"rounded\";\n    color=\"#999999\";\n"
				     "    fontname=\"Helvetica-Bold\";\n");
		int j = i;
		while (j < w->nnodes && compare_text(w->nodes[j].k1, schema) == 0)
			emit_function_node(w, w->nodes[j++].index);
		cgm_strbuf_puts(out, "  }\n");
		i = j;
	}
}

/* Whether "on a, b, c" holds item exactly. */
static bool list_has(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; (p = strstr(p, item)) != NULL; p++) {
		bool starts = p >= list + 3 && (strncmp(p - 3, "on ", 3) == 0 || strncmp(p - 2, ", ", 2) == 0);
		bool ends = p[n] == '\0' || p[n] == ',';
		if (starts && ends)
			return true;
	}
	return false;
}

/* Sites of `from` at the edge's lines that fire the trigger function `to`:
 * the events and the tables, for the edge label. */
static void trigger_label(dot_writer *w, const cgm_edge *e, cgm_strbuf *label)
{
	const cgm_function *f = &w->model->functions[e->from];
	unsigned events = 0;
	cgm_strbuf *tables = &w->tables, *table = &w->table;
	cgm_strbuf_reset(tables);
	for (int s = 0; s < f->nsites; s++) {
		const cgm_site *site = &f->sites[s];
		if (site->kind != CGM_SITE_TRIGGER || !site_targets(site, e->to))
			continue;
		if (e->nlines > 0 && !has_line(e->lines, e->nlines, site->line))
			continue;
		events |= site->events;
		cgm_strbuf_reset(table);
		written_name(table, site);
		if (!list_has(cgm_strbuf_cstr(tables), cgm_strbuf_cstr(table))) {
			cgm_strbuf_puts(tables, tables->len ? ", " : "on ");
			cgm_strbuf_puts(tables, cgm_strbuf_cstr(table));
		}
	}
	if (events == 0) /* observed only: the events the triggers fire on */
		events = w->trigger_events[e->to];
	char buf[64];
	cgm_strbuf_puts(label, events ? cgm_events_text(buf, sizeof(buf), events) : "trigger");
	if (tables->len) {
		cgm_strbuf_putc(label, '\n');
		cgm_strbuf_puts(label, cgm_strbuf_cstr(tables));
	}
}

/* The dynamic site an observed dynamic edge starts from, or -1. */
static int dynamic_site_of(const cgm_function *f, const cgm_edge *e)
{
	int only = -1, count = 0;
	for (int s = 0; s < f->nsites; s++) {
		if (f->sites[s].kind != CGM_SITE_DYNAMIC)
			continue;
		if (has_line(e->lines, e->nlines, f->sites[s].line))
			return s;
		only = s;
		count++;
	}
	return e->nlines == 0 && count == 1 ? only : -1;
}

static void emit_edge(dot_writer *w, const cgm_edge *e)
{
	const cgm_model *m = w->model;
	const cgm_function *from = &m->functions[e->from], *to = &m->functions[e->to];
	cgm_strbuf *out = &w->out;
	bool is_static = e->provenance & CGM_EDGE_STATIC;
	bool observed = e->provenance & CGM_EDGE_OBSERVED;
	cgm_strbuf *label = &w->label, *tip = &w->tip;
	const char *color = NULL;
	cgm_strbuf_reset(label);
	cgm_strbuf_reset(tip);

	const char *style = e->via == CGM_VIA_LITERAL ? "dotted" : observed && !is_static ? "dashed" : "solid";

	switch (e->via) {
	case CGM_VIA_TRIGGER:
		trigger_label(w, e, label);
		color = COLOR_TRIGGER;
		break;
	case CGM_VIA_LITERAL:
		cgm_strbuf_puts(label, "EXECUTE");
		break;
	case CGM_VIA_DYNAMIC:
		color = COLOR_DYNAMIC;
		break;
	case CGM_VIA_CALL:
		break;
	}
	if (e->ambiguous) {
		cgm_strbuf_puts(label, label->len ? " ?" : "?");
		if (!color)
			color = COLOR_AMBIGUOUS;
	}

	int site = e->via == CGM_VIA_DYNAMIC ? dynamic_site_of(from, e) : -1;
	cgm_strbuf_puts(out, "  ");
	if (site >= 0)
		put_dynamic_node(out, from, site);
	else
		put_function_node(out, from);
	cgm_strbuf_puts(out, " -> ");
	put_function_node(out, to);
	cgm_strbuf_puts(out, " [style=\"");
	cgm_strbuf_puts(out, style);
	if (is_static && observed)
		cgm_strbuf_puts(out, ",bold");
	cgm_strbuf_putc(out, '"');
	if (color) {
		cgm_strbuf_puts(out, ", color=\"");
		cgm_strbuf_puts(out, color);
		cgm_strbuf_puts(out, "\", fontcolor=\"");
		cgm_strbuf_puts(out, color);
		cgm_strbuf_putc(out, '"');
	}
	if (label->len) {
		cgm_strbuf_puts(out, ", label=\"");
		escape_dot(out, cgm_strbuf_cstr(label));
		cgm_strbuf_putc(out, '"');
	}

	/* "<from> -> <to> (<via>, static and observed), lines ..." */
	cgm_strbuf_puts(tip, from->id);
	cgm_strbuf_puts(tip, " -> ");
	cgm_strbuf_puts(tip, to->id);
	cgm_strbuf_puts(tip, " (");
	cgm_strbuf_puts(tip, cgm_via_name(e->via));
	cgm_strbuf_puts(tip, ", ");
	if (is_static)
		cgm_strbuf_puts(tip, "static");
	if (is_static && observed)
		cgm_strbuf_puts(tip, " and ");
	if (observed)
		cgm_strbuf_puts(tip, "observed");
	cgm_strbuf_putc(tip, ')');
	if (e->nlines > 0) {
		cgm_strbuf_puts(tip, ", ");
		put_lines(tip, e->lines, e->nlines);
	}
	if (e->ambiguous)
		cgm_strbuf_puts(tip, ", one of several candidates");
	if (observed)
		cgm_strbuf_printf(tip, ", %lld calls", (long long)e->runtime.calls);
	cgm_strbuf_puts(out, ", tooltip=\"");
	escape_dot(out, cgm_strbuf_cstr(tip));
	cgm_strbuf_puts(out, "\"];\n");
	maybe_flush(w);
}

/* Each drawn function to each of its dynamic-site notes. */
static void emit_dynamic_links(dot_writer *w)
{
	cgm_strbuf *out = &w->out;
	for (int i = 0; i < w->nnodes; i++) {
		const cgm_function *f = &w->model->functions[w->nodes[i].index];
		for (int s = 0; s < f->nsites; s++) {
			if (f->sites[s].kind != CGM_SITE_DYNAMIC)
				continue;
			cgm_strbuf_puts(out, "  ");
			put_function_node(out, f);
			cgm_strbuf_puts(out, " -> ");
			put_dynamic_node(out, f, s);
			cgm_strbuf_puts(out, " [style=dotted, arrowhead=none, color=\"" COLOR_DYNAMIC "\"];\n");
		}
		maybe_flush(w);
	}
}

/* Missing callees: one node per name as written, one edge per calling
 * function, both in sorted order. */
static void emit_missing(dot_writer *w)
{
	const cgm_model *m = w->model;
	cgm_strbuf *out = &w->out;
	int n = 0, cap = 16;
	sort_rec *recs = cgm_xcalloc(sizeof(sort_rec) * (size_t)cap, 1);
	cgm_strbuf names = CGM_STRBUF_INIT; /* written names, NUL-separated */
	size_t *offsets = cgm_xcalloc(sizeof(size_t) * (size_t)cap, 1);
	for (int i = 0; i < w->nnodes; i++) {
		const cgm_function *f = &m->functions[w->nodes[i].index];
		for (int s = 0; s < f->nsites; s++) {
			if (f->sites[s].resolution != CGM_RES_MISSING)
				continue;
			if (n == cap) {
				cap *= 2;
				recs = realloc(recs, sizeof(sort_rec) * (size_t)cap);
				offsets = realloc(offsets, sizeof(size_t) * (size_t)cap);
				if (!recs || !offsets) {
					fprintf(stderr, "cgmap: out of memory\n");
					abort();
				}
			}
			offsets[n] = names.len;
			written_name(&names, &f->sites[s]);
			cgm_strbuf_add(&names, "", 1); /* keep the NUL as separator */
			recs[n] = (sort_rec){ NULL, f->id, NULL, w->nodes[i].index, s };
			n++;
		}
	}
	for (int i = 0; i < n; i++)
		recs[i].k1 = names.data + offsets[i];
	qsort(recs, (size_t)n, sizeof(sort_rec), compare_recs);

	for (int i = 0; i < n; i++) {
		if (i > 0 && strcmp(recs[i].k1, recs[i - 1].k1) == 0)
			continue;
		cgm_strbuf_puts(out, "  ");
		put_missing_node(out, recs[i].k1);
		cgm_strbuf_puts(out, " [shape=box, style=\"dashed\", color=\"" COLOR_MISSING "\", "
				     "fontcolor=\"" COLOR_MISSING "\", label=\"");
		escape_dot(out, recs[i].k1);
		cgm_strbuf_puts(out, "\", tooltip=\"");
		cgm_strbuf tip = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&tip, "missing callee: no function %s exists", recs[i].k1);
		escape_dot(out, cgm_strbuf_cstr(&tip));
		cgm_strbuf_free(&tip);
		cgm_strbuf_puts(out, "\"];\n");
		maybe_flush(w);
	}
	/* Lines of one (name, function) group: one buffer for all groups. */
	int *lines = cgm_xcalloc(sizeof(int) * (size_t)n, 1);
	for (int i = 0; i < n;) {
		int j = i;
		int nlines = 0;
		while (j < n && strcmp(recs[j].k1, recs[i].k1) == 0 && recs[j].index == recs[i].index) {
			const cgm_site *site = &m->functions[recs[j].index].sites[recs[j].sub];
			if (!has_line(lines, nlines, site->line))
				lines[nlines++] = site->line;
			j++;
		}
		const cgm_function *f = &m->functions[recs[i].index];
		cgm_strbuf_puts(out, "  ");
		put_function_node(out, f);
		cgm_strbuf_puts(out, " -> ");
		put_missing_node(out, recs[i].k1);
		cgm_strbuf_puts(out, " [style=dashed, color=\"" COLOR_MISSING "\", tooltip=\"");
		cgm_strbuf tip = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&tip, "%s calls missing %s, ", f->id, recs[i].k1);
		put_lines(&tip, lines, nlines);
		escape_dot(out, cgm_strbuf_cstr(&tip));
		cgm_strbuf_free(&tip);
		cgm_strbuf_puts(out, "\"];\n");
		maybe_flush(w);
		i = j;
	}
	free(lines);
	cgm_strbuf_free(&names);
	free(offsets);
	free(recs);
}

static void emit_legend(cgm_strbuf *out)
{
	cgm_strbuf_puts(
		out,
		"  subgraph \"cluster_legend\" {\n"
		"    label=\"legend\";\n"
		"    style=\"rounded,dashed\";\n"
		"    color=\"#bbbbbb\";\n"
		"    fontname=\"Helvetica-Bold\";\n"
		"    node [fontsize=9];\n"
		"    edge [fontsize=8];\n"
		"    \"legend: function\" [label=\"analysed function\"];\n"
		"    \"legend: not analysed\" [label=\"not analysed\\n(other language)\", "
		"style=\"rounded,filled\", fillcolor=\"#e6e6e6\", color=\"" COLOR_GREY "\", "
		"fontcolor=\"#666666\"];\n"
		"    \"legend: builtin\" [label=\"pg_catalog builtin\", shape=ellipse, style=filled, "
		"fillcolor=\"#eeeeee\", color=\"" COLOR_GREY "\", fontcolor=\"#555555\"];\n"
		"    \"legend: parse error\" [label=\"body does not parse\\n[parse error]\", "
		"color=\"" COLOR_MISSING "\", penwidth=2];\n"
		"    \"legend: dynamic\" [label=\"EXECUTE line N\\n(dynamic SQL)\", shape=note, "
		"style=filled, fillcolor=\"#fff4c2\", color=\"" COLOR_DYNAMIC "\"];\n"
		"    \"legend: missing\" [label=\"missing callee\", shape=box, style=\"dashed\", "
		"color=\"" COLOR_MISSING "\", fontcolor=\"" COLOR_MISSING "\"];\n"
		"    \"legend: a\" [label=\"caller\"];\n"
		"    \"legend: b\" [label=\"static call\"];\n"
		"    \"legend: c\" [label=\"observed only\"];\n"
		"    \"legend: d\" [label=\"static and observed\"];\n"
		"    \"legend: e\" [label=\"trigger fired by DML\"];\n"
		"    \"legend: f\" [label=\"call in constant EXECUTE SQL\"];\n"
		"    \"legend: g\" [label=\"one of several candidates\"];\n"
		"    \"legend: h\" [label=\"called by dynamic SQL\"];\n"
		"    \"legend: a\" -> \"legend: b\" [style=\"solid\"];\n"
		"    \"legend: a\" -> \"legend: c\" [style=\"dashed\"];\n"
		"    \"legend: a\" -> \"legend: d\" [style=\"solid,bold\"];\n"
		"    \"legend: a\" -> \"legend: e\" [style=\"solid\", color=\"" COLOR_TRIGGER "\", "
		"fontcolor=\"" COLOR_TRIGGER "\", label=\"INSERT|UPDATE\"];\n"
		"    \"legend: a\" -> \"legend: f\" [style=\"dotted\", label=\"EXECUTE\"];\n"
		"    \"legend: a\" -> \"legend: g\" [style=\"solid\", color=\"" COLOR_AMBIGUOUS "\", "
		"fontcolor=\"" COLOR_AMBIGUOUS "\", label=\"?\"];\n"
		"    \"legend: dynamic\" -> \"legend: h\" [style=\"dashed\", color=\"" COLOR_DYNAMIC "\"];\n"
		"  }\n");
}

static bool valid_function(const cgm_model *m, int idx)
{
	return idx >= 0 && idx < m->nfunctions;
}

static void dot_writer_free(dot_writer *w)
{
	cgm_strbuf_free(&w->out);
	cgm_strbuf_free(&w->text);
	cgm_strbuf_free(&w->label);
	cgm_strbuf_free(&w->tip);
	cgm_strbuf_free(&w->tables);
	cgm_strbuf_free(&w->table);
	free(w->nodes);
	free(w->drawn);
	free(w->trigger_events);
}

static void emit_graph(dot_writer *w, const int *edge_order)
{
	const cgm_model *m = w->model;
	cgm_strbuf *out = &w->out;
	cgm_strbuf_puts(out, "digraph \"cgmap\" {\n");
	cgm_strbuf_puts(out, "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, "
			     "nodesep=0.25, ranksep=0.6, label=\"");
	cgm_strbuf label = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&label, "call graph of %s %s", m->source.kind ? m->source.kind : "source",
			  m->source.name ? m->source.name : "");
	escape_dot(out, cgm_strbuf_cstr(&label));
	cgm_strbuf_free(&label);
	cgm_strbuf_puts(out, "\", labelloc=t];\n");
	cgm_strbuf_puts(out, "  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", "
			     "fontsize=10];\n");
	cgm_strbuf_puts(out, "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n");

	emit_clusters(w);
	emit_missing(w);
	emit_dynamic_links(w);
	for (int i = 0; i < m->nedges; i++)
		emit_edge(w, &m->edges[edge_order[i]]);
	emit_legend(out);
	cgm_strbuf_puts(out, "}\n");
	flush_out(w);
}

int cgm_emit_dot(const cgm_model *model, const char *path)
{
	const cgm_model *m = model;
	dot_writer w = { .model = m, .out = CGM_STRBUF_INIT };

	/* Drawn: every mapped function, and the builtins an edge reaches. */
	w.drawn = cgm_xcalloc(sizeof(bool) * (size_t)m->nfunctions, 1);
	for (int i = 0; i < m->nfunctions; i++) {
		if (!m->functions[i].id) {
			free(w.drawn);
			return cgm_error(CGM_EIO, "cannot write \"%s\": function %d has no id", path, i);
		}
		w.drawn[i] = !m->functions[i].builtin;
	}
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (!valid_function(m, e->from) || !valid_function(m, e->to)) {
			free(w.drawn);
			return cgm_error(CGM_EIO,
					 "cannot write \"%s\": edge %d points outside the function "
					 "list (%d -> %d)",
					 path, i, e->from, e->to);
		}
		w.drawn[e->from] = w.drawn[e->to] = true;
	}
	w.nodes = cgm_xcalloc(sizeof(sort_rec) * (size_t)m->nfunctions, 1);
	for (int i = 0; i < m->nfunctions; i++)
		if (w.drawn[i])
			w.nodes[w.nnodes++] =
				(sort_rec){ m->functions[i].schema, m->functions[i].id, NULL, i, 0 };
	qsort(w.nodes, (size_t)w.nnodes, sizeof(sort_rec), compare_recs);

	/* An observed-only trigger edge is labelled with the events of the
	 * triggers that call its target: gathered once, not per edge. */
	w.trigger_events = cgm_xcalloc(sizeof(unsigned) * (size_t)m->nfunctions, 1);
	for (int t = 0; t < m->ntriggers; t++)
		if (valid_function(m, m->triggers[t].function))
			w.trigger_events[m->triggers[t].function] |= m->triggers[t].events;

	int *edges = cgm_model_edge_order(m);

	/* Streamed into a temporary file beside the target, then renamed. */
	int rc = cgm_outfile_open(&w.file, path, NULL);
	if (rc == 0) {
		emit_graph(&w, edges);
		rc = cgm_outfile_commit(&w.file, false);
	}
	free(edges);
	dot_writer_free(&w);
	return rc;
}
