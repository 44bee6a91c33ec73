/*
 * emit_dot.c - the whole call graph as Graphviz DOT (callgraph.dot).
 *
 * In:  a complete, indexed model (left untouched: orders are sorted copies).
 * Out: the DOT file, written to a temporary file in the same folder and
 *      renamed, so a reader never sees half a graph.  Every name goes
 *      through cgm_escape_dot(), so `dot -Tsvg` accepts the file whatever the
 *      catalog holds; the same model gives the same bytes.  Streamed through
 *      the outfile buffer (outfile.h), so memory stays at the sort indexes
 *      and the ids escaped once, whatever the size of the graph; everything
 *      is freed before returning.  Reads the model only and keeps no static
 *      state, so it may run beside the snapshot writer on another thread.
 *
 * Drawing (the legend cluster in the file says the same):
 *   - one cluster per schema, functions labelled name(args), the full id as
 *     tooltip; not-analysed functions (C, internal, ...) greyed, builtins as
 *     grey ellipses, functions whose body did not parse with a red border;
 *   - edges: static solid, observed-only dashed, static and observed bold;
 *     via trigger blue with the events, via constant EXECUTE SQL dotted and
 *     labelled EXECUTE, observed from a dynamic EXECUTE purple, one of
 *     several candidates of an ambiguous site labelled "?";
 *   - edges that look alike (line and colour) are written together in an
 *     anonymous subgraph under one `edge [...]` default, each edge with
 *     only its label and tooltip;
 *   - a dynamic EXECUTE site is a note "EXECUTE line N" hanging off its
 *     function (what it was seen to call at runtime hangs off the note);
 *   - a missing callee is a dashed red box with the name as written;
 *   - with runtime data, a function called at runtime carries its calls,
 *     total and self time in its label and is filled by its share of the
 *     largest self time (five steps, white to red); an observed edge is
 *     labelled with its calls.
 */
#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"
#include "outfile.h"

#include <errno.h>
#include <stdint.h>
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
#define COLOR_RELATION "#2b8a3e" /* run on a relation's behalf: views, defaults, ... */
#define COLOR_IMPLICIT "#5c7cfa" /* behind an operator, a cast or an aggregate */

/* cgm_escape_dot() with a fast path: printable ASCII that DOT takes as it is
 * is copied in runs, and every other run of bytes goes through
 * cgm_escape_dot().  Cutting the text before a plain ASCII byte changes
 * nothing: an ASCII byte is always a character of its own, and a broken
 * multi-byte sequence before it is broken at the cut too.  For the same
 * reason a text made of pieces joined by ASCII (a tooltip) is escaped piece
 * by piece straight into the output. */
static bool dot_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '&';
}

#define BYTES8(c) (0x0101010101010101ULL * (unsigned char)(c))

/* Whether any of 8 bytes is not plain.  With every byte below 0x80 (else
 * the last term says so), a subtraction sets a byte's high bit only when
 * that byte is below what is subtracted, or a lower one was (itself a
 * hit); adding 1 sets it only for 0x7F (DEL). */
static inline bool has_unplain8(const unsigned char *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	uint64_t hits = (x - BYTES8(0x20)) | ((x ^ BYTES8('"')) - BYTES8(1)) |
			((x ^ BYTES8('\\')) - BYTES8(1)) | ((x ^ BYTES8('&')) - BYTES8(1)) |
			(x + BYTES8(1)) | x;
	return (hits & BYTES8(0x80)) != 0;
}

typedef struct {
	const char *k1, *k2, *k3;
	int index, sub;
} sort_rec;

/* The drawn functions' ids escaped one way, by function index: where each
 * starts in `text` and its length, escaped once (escape_ids) since edges
 * and tooltips repeat them. */
typedef struct escaped_ids {
	void (*escape)(cgm_strbuf *out, const char *s);
	char *text;         /* one block */
	uint32_t *at;       /* or ID_AS_IS, ESCAPE_LATE */
	uint32_t *len;
} escaped_ids;

typedef struct {
	const cgm_model *model;
	cgm_outfile file;   /* the output, buffered */
	bool *drawn;        /* per function index */
	sort_rec *nodes;    /* drawn functions by schema, id */
	int nnodes;
	int *rank;          /* per function index: rank of its id (outfile.h) */
	unsigned *trigger_events; /* per function index: events of the triggers calling it */
	int *ndynamic;      /* per drawn function index: its dynamic EXECUTE sites */
	int *nmissing;      /* per drawn function index: its sites with a missing callee */
	escaped_ids ids;    /* the drawn functions' ids escaped as text */
	escaped_ids names;  /* the same ids escaped as node names */
	cgm_strbuf late;    /* an id escaped where it is written (ESCAPE_LATE) */
	cgm_strbuf raw, piece, label, tables, table; /* scratch, reused */
	double max_self_ms; /* the largest self time of a mapped function */
} dot_writer;

/* A time in milliseconds as the labels print it: "12.3 ms", "0.04 ms". */
static void put_ms(cgm_outfile *o, double ms)
{
	char buf[48];
	int n = snprintf(buf, sizeof buf, ms >= 10 ? "%.0f ms" : ms >= 0.1 ? "%.1f ms" : "%.2f ms",
			 ms);
	if (n > 0)
		cgm_outfile_add(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The fill of a function by its share of the largest self time: a heat
 * scale in five steps, so a drawing of thousands of nodes shows where the
 * time goes at a glance.  NULL: no fill (not called, or no runtime data). */
static const char *self_time_fill(const dot_writer *w, const cgm_function *f)
{
	if (!w->model->has_runtime || f->runtime.calls <= 0 || w->max_self_ms <= 0)
		return NULL;
	double share = f->runtime.self_ms / w->max_self_ms;
	return share > 0.5 ? "#ff8787" : share > 0.2 ? "#ffc078" : share > 0.05 ? "#ffe8cc"
	       : share > 0 ? "#fff4e6" : "#ffffff";
}

static void escape_runs(dot_writer *w, const char *s, void (*escape)(cgm_strbuf *, const char *))
{
	cgm_outfile *o = &w->file;
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *end = p + strlen((const char *)p);
	while (p < end) {
		const unsigned char *run = p;
		while (end - p >= 8 && !has_unplain8(p))
			p += 8;
		while (dot_plain(*p))
			p++;
		if (p > run)
			cgm_outfile_add(o, run, (size_t)(p - run));
		run = p;
		while (*p && !dot_plain(*p))
			p++;
		if (p == run)
			continue;
		cgm_strbuf_reset(&w->raw);
		cgm_strbuf_add(&w->raw, (const char *)run, (size_t)(p - run));
		cgm_strbuf_reset(&w->piece);
		escape(&w->piece, w->raw.data);
		cgm_outfile_add(o, w->piece.data, w->piece.len);
	}
}

/* Label and tooltip text. */
static void escape_dot(dot_writer *w, const char *s)
{
	escape_runs(w, s, cgm_escape_dot);
}

/* A node or cluster name: escaped one to one (cgm_escape_dot_id), which
 * differs from label text only in what is not plain. */
static void escape_dot_id(dot_writer *w, const char *s)
{
	escape_runs(w, s, cgm_escape_dot_id);
}

#define lit(w, literal) cgm_outfile_lit(&(w)->file, literal)

/* Text that needs no escaping: the fixed names and colours of this file.
 * Kept out of line: inlined, the copy would be specialised for each
 * literal it may be. */
static __attribute__((noinline)) void put_fixed(dot_writer *w, const char *s)
{
	cgm_outfile_add(&w->file, s, strlen(s));
}

/* A drawn function's id escaped, as written once in the plan. */
/* An escaped id the same as the id is not copied (escape_ids): its text
 * is the function's own.  One past what 32-bit offsets hold is escaped
 * again where it is written. */
#define ID_AS_IS UINT32_MAX
#define ESCAPE_LATE (UINT32_MAX - 1)

static void put_escaped(dot_writer *w, const escaped_ids *e, int fi)
{
	const char *id = w->model->functions[fi].id;
	if (e->at[fi] == ID_AS_IS) {
		cgm_outfile_add(&w->file, id, e->len[fi]);
	} else if (e->at[fi] == ESCAPE_LATE) {
		cgm_strbuf_reset(&w->late);
		e->escape(&w->late, id);
		cgm_outfile_add(&w->file, w->late.data, w->late.len);
	} else {
		cgm_outfile_add(&w->file, e->text + e->at[fi], e->len[fi]);
	}
}

static void put_id_text(dot_writer *w, int fi)
{
	put_escaped(w, &w->ids, fi);
}

/* A drawn function's id escaped as a node name. */
static void put_node_text(dot_writer *w, int fi)
{
	put_escaped(w, &w->names, fi);
}

/* Node names: function ids end with ')' and the other node kinds never do,
 * so the name spaces cannot meet. */
static void put_function_node(dot_writer *w, int fi)
{
	cgm_outfile_putc(&w->file, '"');
	put_node_text(w, fi);
	cgm_outfile_putc(&w->file, '"');
}

/* "<id> EXECUTE site N": the id escaped on its own is the same text, the
 * rest being plain ASCII. */
static void put_dynamic_node(dot_writer *w, int fi, int site_index)
{
	cgm_outfile_putc(&w->file, '"');
	put_node_text(w, fi);
	lit(w, " EXECUTE site ");
	cgm_outfile_int(&w->file, site_index + 1);
	cgm_outfile_putc(&w->file, '"');
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

static void put_missing_node(dot_writer *w, const char *written)
{
	lit(w, "\"missing: ");
	escape_dot_id(w, written);
	cgm_outfile_putc(&w->file, '"');
}

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

/* Does the statement of `site` fire trigger function `fn`? */
static bool site_fires(const cgm_site *site, int fn)
{
	for (int t = 0; t < site->ntargets; t++)
		if (site->targets[t] == fn && cgm_site_target_via(site, t) == CGM_VIA_TRIGGER)
			return true;
	return false;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* "line 3" or "lines 3, 7": plain ASCII, so written as it is. */
static void put_lines(dot_writer *w, const int *lines, int n)
{
	int stack[16];
	int *sorted = n <= 16 ? stack : cgm_xcalloc((size_t)n, sizeof(int));
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
	if (n == 1)
		lit(w, "line ");
	else
		lit(w, "lines ");
	for (int i = 0; i < n; i++) {
		if (i)
			lit(w, ", ");
		cgm_outfile_int(&w->file, sorted[i]);
	}
	if (sorted != stack)
		free(sorted);
}

static void emit_function_node(dot_writer *w, int fi)
{
	const cgm_function *f = &w->model->functions[fi];

	lit(w, "    ");
	put_function_node(w, fi);
	lit(w, " [label=\"");
	escape_dot(w, f->name ? f->name : f->id);
	cgm_outfile_putc(&w->file, '(');
	escape_dot(w, f->identity_args ? f->identity_args : "");
	cgm_outfile_putc(&w->file, ')');
	if (f->kind == CGM_KIND_PROCEDURE)
		lit(w, "\\nprocedure");
	if (f->is_trigger)
		lit(w, "\\ntrigger function");
	if (!f->analysed && !f->builtin) {
		lit(w, "\\n[");
		escape_dot(w, f->language ? f->language : "?");
		lit(w, ", not analysed]");
	}
	if (f->nerrors > 0)
		lit(w, "\\n[parse error]");
	if (w->model->has_runtime && f->runtime.calls > 0) {
		lit(w, "\\n");
		cgm_outfile_int(&w->file, f->runtime.calls);
		if (f->runtime.calls == 1)
			lit(w, " call, ");
		else
			lit(w, " calls, ");
		put_ms(&w->file, f->runtime.total_ms);
		lit(w, " total, ");
		put_ms(&w->file, f->runtime.self_ms);
		lit(w, " self");
	}
	/* Tooltip: the id, the language, each parse error, the calls seen. */
	lit(w, "\", tooltip=\"");
	put_id_text(w, fi);
	if (f->language) {
		lit(w, "\\nlanguage ");
		escape_dot(w, f->language);
	}
	for (int e = 0; e < f->nerrors; e++) {
		if (f->errors[e].line > 0) {
			lit(w, "\\nparse error, line ");
			cgm_outfile_int(&w->file, f->errors[e].line);
			lit(w, ": ");
		} else {
			lit(w, "\\nparse error: ");
		}
		escape_dot(w, f->errors[e].message ? f->errors[e].message : "");
	}
	if (w->model->has_runtime) {
		lit(w, "\\n");
		cgm_outfile_int(&w->file, f->runtime.calls);
		lit(w, " calls observed");
	}
	cgm_outfile_putc(&w->file, '"');

	if (f->builtin)
		lit(w, ", shape=ellipse, style=filled, fillcolor=\"#eeeeee\", "
		       "color=\"" COLOR_GREY "\", fontcolor=\"#555555\"");
	else if (!f->analysed)
		lit(w, ", style=\"rounded,filled\", fillcolor=\"#e6e6e6\", "
		       "color=\"" COLOR_GREY "\", fontcolor=\"#666666\"");
	const char *fill = f->builtin || !f->analysed ? NULL : self_time_fill(w, f);
	if (fill) {
		lit(w, ", style=filled, fillcolor=\"");
		put_fixed(w, fill);
		cgm_outfile_putc(&w->file, '"');
	}
	if (f->nerrors > 0)
		lit(w, ", color=\"" COLOR_MISSING "\", penwidth=2");
	lit(w, "];\n");

	/* Its dynamic EXECUTE sites, in the same cluster. */
	for (int s = 0; w->ndynamic[fi] && s < f->nsites; s++) {
		const cgm_site *site = &f->sites[s];
		if (site->kind != CGM_SITE_DYNAMIC)
			continue;
		lit(w, "    ");
		put_dynamic_node(w, fi, s);
		lit(w, " [shape=note, style=filled, fillcolor=\"#fff4c2\", "
		       "color=\"" COLOR_DYNAMIC "\", label=\"EXECUTE line ");
		cgm_outfile_int(&w->file, site->line);
		lit(w, "\", tooltip=\"dynamic EXECUTE in ");
		put_id_text(w, fi);
		lit(w, ", line ");
		cgm_outfile_int(&w->file, site->line);
		if (cgm_site_get_rare(site)->text) {
			lit(w, "\\n");
			escape_dot(w, cgm_site_get_rare(site)->text);
		}
		lit(w, "\"];\n");
	}
}

static void emit_clusters(dot_writer *w)
{
	for (int i = 0; i < w->nnodes;) {
		const char *schema = w->nodes[i].k1;
		/* "cluster_<schema>": the prefix is plain ASCII. */
		lit(w, "  subgraph \"cluster_");
		escape_dot_id(w, schema ? schema : "");
		lit(w, "\" {\n    label=\"schema ");
		escape_dot(w, schema ? schema : "(none)");
		lit(w, "\";\n    style=\"rounded\";\n    color=\"#999999\";\n"
		       "    fontname=\"Helvetica-Bold\";\n");
		int j = i;
		while (j < w->nnodes && compare_text(w->nodes[j].k1, schema) == 0)
			emit_function_node(w, w->nodes[j++].index);
		lit(w, "  }\n");
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
		if ((site->kind != CGM_SITE_TRIGGER && site->kind != CGM_SITE_RELATION) ||
		    !site_fires(site, e->to))
			continue;
		if (e->nlines > 0 && !has_line(e->lines, e->nlines, site->line))
			continue;
		events |= cgm_site_get_rare(site)->events;
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

/* What an edge looks like apart from its label and tooltip: its line and
 * its colour.  Edges that look alike are written together under one
 * `edge [...]` default (below), so a graph of 200,000 edges does not repeat
 * the same style and colours 200,000 times. */
enum { LOOK_DOTTED, LOOK_DASHED, LOOK_SOLID, LOOK_SOLID_BOLD, LOOK_DOTTED_BOLD, LOOK_LINES };
enum { HUE_NONE, HUE_TRIGGER, HUE_DYNAMIC, HUE_IMPLICIT, HUE_RELATION, HUE_AMBIGUOUS, HUES };
#define EDGE_LOOKS (LOOK_LINES * HUES)

static const char *const look_style[LOOK_LINES] = { "dotted", "dashed", "solid", "solid,bold",
						    "dotted,bold" };
static const char *const hue_color[HUES] = { NULL, COLOR_TRIGGER, COLOR_DYNAMIC, COLOR_IMPLICIT,
					     COLOR_RELATION, COLOR_AMBIGUOUS };

static int edge_look(const cgm_edge *e)
{
	bool is_static = e->provenance & CGM_EDGE_STATIC;
	bool observed = e->provenance & CGM_EDGE_OBSERVED;
	int line = e->via == CGM_VIA_LITERAL ? (is_static && observed ? LOOK_DOTTED_BOLD : LOOK_DOTTED)
		   : observed && !is_static ? LOOK_DASHED
		   : is_static && observed ? LOOK_SOLID_BOLD
					    : LOOK_SOLID;
	int hue;
	switch (e->via) {
	case CGM_VIA_TRIGGER:
		hue = HUE_TRIGGER;
		break;
	case CGM_VIA_LITERAL:
	case CGM_VIA_CALL:
		hue = e->ambiguous ? HUE_AMBIGUOUS : HUE_NONE;
		break;
	case CGM_VIA_DYNAMIC:
		hue = HUE_DYNAMIC;
		break;
	case CGM_VIA_OPERATOR:
	case CGM_VIA_CAST:
	case CGM_VIA_AGGREGATE:
		hue = HUE_IMPLICIT;
		break;
	default: /* the relation mechanisms: view, default, check, policy, ... */
		hue = HUE_RELATION;
		break;
	}
	return line * HUES + hue;
}

static void emit_look(dot_writer *w, int look)
{
	const char *color = hue_color[look % HUES];
	lit(w, "    edge [style=\"");
	put_fixed(w, look_style[look / HUES]);
	cgm_outfile_putc(&w->file, '"');
	if (color) {
		lit(w, ", color=\"");
		put_fixed(w, color);
		lit(w, "\", fontcolor=\"");
		put_fixed(w, color);
		cgm_outfile_putc(&w->file, '"');
	}
	lit(w, "];\n");
}

/* One edge, its look given by the `edge` default it is written under. */
static void emit_edge(dot_writer *w, const cgm_edge *e)
{
	const cgm_model *m = w->model;
	const cgm_function *from = &m->functions[e->from];
	bool is_static = e->provenance & CGM_EDGE_STATIC;
	bool observed = e->provenance & CGM_EDGE_OBSERVED;
	/* The label: fixed text for most edges, gathered for a trigger's. */
	const char *label = NULL;
	cgm_strbuf *gathered = &w->label;

	switch (e->via) {
	case CGM_VIA_TRIGGER:
		cgm_strbuf_reset(gathered);
		trigger_label(w, e, gathered);
		if (e->ambiguous)
			cgm_strbuf_puts(gathered, " ?");
		label = cgm_strbuf_cstr(gathered);
		break;
	case CGM_VIA_LITERAL:
		label = e->ambiguous ? "EXECUTE ?" : "EXECUTE";
		break;
	case CGM_VIA_DYNAMIC:
	case CGM_VIA_CALL:
		break;
	default: /* operators, casts, aggregates and the relation mechanisms */
		label = e->object ? e->object : cgm_via_name(e->via);
		break;
	}
	if (e->ambiguous && !label)
		label = "?";

	int site = e->via == CGM_VIA_DYNAMIC ? dynamic_site_of(from, e) : -1;
	lit(w, "    ");
	if (site >= 0)
		put_dynamic_node(w, e->from, site);
	else
		put_function_node(w, e->from);
	lit(w, " -> ");
	put_function_node(w, e->to);
	lit(w, " [");
	if (label || observed) {
		lit(w, "label=\"");
		if (label)
			escape_dot(w, label);
		if (observed) { /* how often it ran, on the edge itself */
			if (label)
				lit(w, "\\n");
			cgm_outfile_int(&w->file, cgm_edge_runtime(e)->calls);
			if (cgm_edge_runtime(e)->calls == 1)
				lit(w, " call");
			else
				lit(w, " calls");
		}
		lit(w, "\", ");
	}

	/* "<from> -> <to> (<via>, static and observed), lines ...": the
	 * names in full, since Graphviz (2.42) puts nothing for \E there. */
	lit(w, "tooltip=\"");
	put_id_text(w, e->from);
	lit(w, " -> ");
	put_id_text(w, e->to);
	lit(w, " (");
	put_fixed(w, cgm_via_name(e->via));
	if (e->object && label != e->object) { /* else the label names it */
		cgm_outfile_putc(&w->file, ' ');
		escape_dot(w, cgm_via_object_tail(e->via, e->object));
	}
	lit(w, ", ");
	if (is_static)
		lit(w, "static");
	if (is_static && observed)
		lit(w, " and ");
	if (observed)
		lit(w, "observed");
	cgm_outfile_putc(&w->file, ')');
	if (e->nlines > 0) {
		lit(w, ", ");
		put_lines(w, e->lines, e->nlines);
	}
	if (e->ambiguous)
		lit(w, ", one of several candidates");
	if (observed) {
		lit(w, ", ");
		cgm_outfile_int(&w->file, cgm_edge_runtime(e)->calls);
		lit(w, " calls");
	}
	lit(w, "\"];\n");
}

/* The edges in `edge_order`, those that look alike together in an
 * anonymous subgraph under their `edge` default (a subgraph that is not a
 * cluster changes no drawing), in order within each. */
static void emit_edges(dot_writer *w, const int *edge_order)
{
	const cgm_model *m = w->model;
	/* Each look's edges by a pass of their own over the order, instead
	 * of a grouped copy of it: a copy was 8 MB at 100,000 functions, at
	 * the map's peak, and a pass costs a byte's test per edge. */
	int count[EDGE_LOOKS] = { 0 };
	for (int i = 0; i < m->nedges; i++)
		count[edge_look(&m->edges[edge_order[i]])]++;
	for (int k = 0; k < EDGE_LOOKS; k++) {
		if (count[k] == 0)
			continue;
		lit(w, "  {\n");
		emit_look(w, k);
		for (int i = 0; i < m->nedges; i++)
			if (edge_look(&m->edges[edge_order[i]]) == k)
				emit_edge(w, &m->edges[edge_order[i]]);
		lit(w, "  }\n");
	}
}

/* Each drawn function to each of its dynamic-site notes. */
static void emit_dynamic_links(dot_writer *w)
{
	cgm_dynsql_reader *reader = NULL;
	for (int i = 0; i < w->nnodes; i++) {
		int fi = w->nodes[i].index;
		const cgm_function *f = &w->model->functions[fi];
		for (int s = 0; w->ndynamic[fi] && s < f->nsites; s++) {
			if (f->sites[s].kind != CGM_SITE_DYNAMIC)
				continue;
			lit(w, "  ");
			put_function_node(w, fi);
			lit(w, " -> ");
			put_dynamic_node(w, fi, s);
			lit(w, " [style=dotted, arrowhead=none, color=\"" COLOR_DYNAMIC "\"];\n");
			/* What the site may call, read from its constant parts
			 * (src/dynsql.c): possible, not observed. */
			cgm_dynsql_info info;
			if (!reader)
				reader = cgm_dynsql_reader_new(w->model);
			cgm_dynsql_read_with(&info, reader, &f->sites[s]);
			/* One statement for all of them ("site" -> {"a" "b"}: an
			 * edge to each, the same attributes): a pattern may match
			 * a hundred functions, and each edge written out with its
			 * own attributes made these edges a third of the file. */
			int written = 0;
			for (int t = 0; t < info.ntargets; t++) {
				int to = info.targets[t];
				if (to < 0 || to >= w->model->nfunctions || !w->drawn[to])
					continue;
				if (written++ == 0) {
					lit(w, "  ");
					put_dynamic_node(w, fi, s);
					lit(w, " -> {");
				} else {
					cgm_outfile_putc(&w->file, ' ');
				}
				put_function_node(w, to);
			}
			if (written > 0)
				lit(w, "} [style=dashed, color=\"" COLOR_DYNAMIC "\", arrowhead=empty, "
				       "tooltip=\"possible target of the dynamic SQL\"];\n");
			cgm_dynsql_info_free(&info);
		}
	}
	cgm_dynsql_reader_free(reader);
}

/* Missing callees: one node per name as written, one edge per calling
 * function, both in sorted order. */
static void emit_missing(dot_writer *w)
{
	const cgm_model *m = w->model;
	int n = 0, cap = 16;
	sort_rec *recs = cgm_xcalloc((size_t)cap, sizeof(sort_rec));
	cgm_strbuf names = CGM_STRBUF_INIT; /* written names, NUL-separated */
	size_t *offsets = cgm_xcalloc((size_t)cap, sizeof(size_t));
	for (int i = 0; i < w->nnodes; i++) {
		const cgm_function *f = &m->functions[w->nodes[i].index];
		for (int s = 0; w->nmissing[w->nodes[i].index] && s < f->nsites; s++) {
			if (f->sites[s].resolution != CGM_RES_MISSING)
				continue;
			if (n == cap) {
				cap *= 2;
				recs = cgm_xrealloc(recs, sizeof(sort_rec) * (size_t)cap);
				offsets = cgm_xrealloc(offsets, sizeof(size_t) * (size_t)cap);
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
		lit(w, "  ");
		put_missing_node(w, recs[i].k1);
		lit(w, " [shape=box, style=\"dashed\", color=\"" COLOR_MISSING "\", "
		       "fontcolor=\"" COLOR_MISSING "\", label=\"");
		escape_dot(w, recs[i].k1);
		lit(w, "\", tooltip=\"missing callee: no function ");
		escape_dot(w, recs[i].k1);
		lit(w, " exists\"];\n");
	}
	/* Lines of one (name, function) group: one buffer for all groups. */
	int *lines = cgm_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n;) {
		int j = i;
		int nlines = 0;
		bool expected = true; /* every such call expects its callee may be absent */
		while (j < n && strcmp(recs[j].k1, recs[i].k1) == 0 && recs[j].index == recs[i].index) {
			const cgm_site *site = &m->functions[recs[j].index].sites[recs[j].sub];
			if (!has_line(lines, nlines, site->line))
				lines[nlines++] = site->line;
			expected &= site->handles_missing;
			j++;
		}
		lit(w, "  ");
		put_function_node(w, recs[i].index);
		lit(w, " -> ");
		put_missing_node(w, recs[i].k1);
		lit(w, " [style=dashed, color=\"" COLOR_MISSING "\", tooltip=\"");
		put_id_text(w, recs[i].index);
		lit(w, " calls missing ");
		escape_dot(w, recs[i].k1);
		lit(w, ", ");
		put_lines(w, lines, nlines);
		if (expected)
			lit(w, " (expected absent: the caller is ready for it)");
		lit(w, "\"];\n");
		i = j;
	}
	free(lines);
	cgm_strbuf_free(&names);
	free(offsets);
	free(recs);
}

static void emit_legend(dot_writer *w)
{
	lit(
		w,
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
	cgm_strbuf_free(&w->raw);
	cgm_strbuf_free(&w->piece);
	cgm_strbuf_free(&w->label);
	cgm_strbuf_free(&w->tables);
	cgm_strbuf_free(&w->table);
	free(w->nodes);
	free(w->drawn);
	free(w->rank);
	free(w->trigger_events);
	free(w->ndynamic);
	free(w->nmissing);
	escaped_ids *both[2] = { &w->ids, &w->names };
	for (int k = 0; k < 2; k++) {
		free(both[k]->text);
		free(both[k]->at);
		free(both[k]->len);
	}
	cgm_strbuf_free(&w->late);
}

static void emit_graph(dot_writer *w, const int *edge_order)
{
	const cgm_model *m = w->model;
	lit(w, "digraph \"cgmap\" {\n");
	lit(w, "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, "
	       "nodesep=0.25, ranksep=0.6, label=\"call graph of ");
	escape_dot(w, m->source.kind ? m->source.kind : "source");
	cgm_outfile_putc(&w->file, ' ');
	escape_dot(w, m->source.name ? m->source.name : "");
	lit(w, "\", labelloc=t];\n");
	lit(w, "  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", "
	       "fontsize=10];\n");
	lit(w, "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n");

	emit_clusters(w);
	emit_missing(w);
	emit_dynamic_links(w);
	emit_edges(w, edge_order);
	emit_legend(w);
	lit(w, "}\n");
}

/* Every drawn id escaped one way (`e->escape`) once.  Most ids escape to
 * themselves: only the others are copied (8 MB of copies at 100,000
 * functions otherwise, at the map's memory peak). */
static void escape_ids_with(dot_writer *w, escaped_ids *e)
{
	const cgm_model *m = w->model;
	cgm_strbuf text = CGM_STRBUF_INIT, one = CGM_STRBUF_INIT;
	e->at = cgm_xcalloc((size_t)m->nfunctions, sizeof(uint32_t));
	e->len = cgm_xcalloc((size_t)m->nfunctions, sizeof(uint32_t));
	for (int i = 0; i < w->nnodes; i++) {
		int fi = w->nodes[i].index;
		const char *id = m->functions[fi].id;
		size_t len = strlen(id);
		cgm_strbuf_reset(&one);
		e->escape(&one, id);
		e->len[fi] = one.len < ESCAPE_LATE ? (uint32_t)one.len : 0;
		if (one.len == len && len < ESCAPE_LATE && memcmp(one.data, id, len) == 0) {
			e->at[fi] = ID_AS_IS;
		} else if (text.len + one.len >= ESCAPE_LATE) {
			e->at[fi] = ESCAPE_LATE;
		} else {
			e->at[fi] = (uint32_t)text.len;
			cgm_strbuf_add(&text, one.data, one.len);
		}
	}
	cgm_strbuf_free(&one);
	/* Kept to the end of the file: without the room doubling left. */
	e->text = text.data ? cgm_xrealloc(text.data, text.len + 1) : NULL;
}

/* As tooltip text and as node names (escape_dot() appends to the file:
 * cgm_escape_dot() here). */
static void escape_ids(dot_writer *w)
{
	w->ids.escape = cgm_escape_dot;
	w->names.escape = cgm_escape_dot_id;
	escape_ids_with(w, &w->ids);
	escape_ids_with(w, &w->names);
}

int cgm_emit_dot(const cgm_model *model, const char *path)
{
	const cgm_model *m = model;
	dot_writer w = { .model = m };
	for (int i = 0; i < m->nuser; i++)
		if (!m->functions[i].builtin && m->functions[i].runtime.self_ms > w.max_self_ms)
			w.max_self_ms = m->functions[i].runtime.self_ms;

	/* Drawn: every mapped function, and the builtins an edge reaches. */
	w.drawn = cgm_xcalloc((size_t)m->nfunctions, sizeof(bool));
	for (int i = 0; i < m->nfunctions; i++) {
		if (!m->functions[i].id) {
			dot_writer_free(&w);
			return cgm_error(CGM_EIO, "cannot write \"%s\": function %d has no id", path, i);
		}
		w.drawn[i] = !m->functions[i].builtin;
	}
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (!valid_function(m, e->from) || !valid_function(m, e->to)) {
			dot_writer_free(&w);
			return cgm_error(CGM_EIO,
					 "cannot write \"%s\": edge %d points outside the function "
					 "list (%d -> %d)",
					 path, i, e->from, e->to);
		}
		w.drawn[e->from] = w.drawn[e->to] = true;
	}
	/* By schema, then id: the model keeps functions by id, so this is
	 * often the order already, checked before sorting. */
	w.nodes = cgm_xcalloc((size_t)m->nfunctions, sizeof(sort_rec));
	bool sorted = true;
	for (int i = 0; i < m->nfunctions; i++)
		if (w.drawn[i]) {
			w.nodes[w.nnodes] =
				(sort_rec){ m->functions[i].schema, m->functions[i].id, NULL, i, 0 };
			if (w.nnodes > 0 && compare_recs(&w.nodes[w.nnodes - 1], &w.nodes[w.nnodes]) > 0)
				sorted = false;
			w.nnodes++;
		}
	if (!sorted)
		qsort(w.nodes, (size_t)w.nnodes, sizeof(sort_rec), compare_recs);
	escape_ids(&w);

	/* The sites are walked once here: the notes and the missing callees
	 * then visit only the functions that have some. */
	w.ndynamic = cgm_xcalloc((size_t)m->nfunctions, sizeof(int));
	w.nmissing = cgm_xcalloc((size_t)m->nfunctions, sizeof(int));
	for (int i = 0; i < w.nnodes; i++) {
		int fi = w.nodes[i].index;
		const cgm_function *f = &m->functions[fi];
		for (int s = 0; s < f->nsites; s++) {
			w.ndynamic[fi] += f->sites[s].kind == CGM_SITE_DYNAMIC;
			w.nmissing[fi] += f->sites[s].resolution == CGM_RES_MISSING;
		}
	}

	/* An observed-only trigger edge is labelled with the events of the
	 * triggers that call its target: gathered once, not per edge. */
	w.trigger_events = cgm_xcalloc((size_t)m->nfunctions, sizeof(unsigned));
	for (int t = 0; t < m->ntriggers; t++)
		if (valid_function(m, m->triggers[t].function))
			w.trigger_events[m->triggers[t].function] |= m->triggers[t].events;

	w.rank = cgm_xcalloc((size_t)m->nfunctions, sizeof(int));
	cgm_model_id_ranks(w.rank, m);
	int *own_edges;
	const int *edges = cgm_output_edge_order_get(m, w.rank, &own_edges);

	/* Streamed into a temporary file beside the target, then renamed. */
	int rc = cgm_outfile_open(&w.file, path, NULL, 0);
	if (rc == 0) {
		emit_graph(&w, edges);
		rc = cgm_outfile_commit(&w.file);
	}
	free(own_edges);
	dot_writer_free(&w);
	return rc;
}
