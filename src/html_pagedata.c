/*
 * html_pagedata.c - the data a function page's script builds its callers
 * and callees tables and its graph's function nodes from.
 *
 * A busy page listed each neighbour three times (a table row, its call-site
 * line links, a graph node), each time with its page name and its id: two
 * thirds of the site's bytes.  The page now names each function it shows
 * once, by a name stable across renderings (below; an index into the model
 * would change with every function added); ids come from search-index.js,
 * which function and relation pages load and which holds every id once.
 * The page's script (html_page.c) turns the rows into the table markup
 * they were.
 *
 *   <script type="application/json" id="cgmap-page">
 *   {"rt": 1,                        runtime data was merged: calls and time columns
 *    "f": ["1a2b3c", ...],         the functions the page names; 0 is its own
 *    "c": [row, ...], "d": [row, ...],       callers, callees
 *    "r": [...],                     relations (html_relation.c says how)
 *    "a": [...], "w": [...],         a relation page's readers and writers (likewise)
 *    "fb": "../functions/"}          where function pages are, when not beside it
 *   row: [who, mechanism, provenance, [line, ...], flags, "object", calls, "ms"]
 *        [who, [line, ...]]  a static call, no more
 *        [[line, ...]]       the same, who the previous row's who + 1
 *   (a single line may stand for its list: 12 for [12])
 *
 * A function is named by the first HTML_PAGE_HASH_NAME (6) hex digits of the
 * hash its page name ends with ("1a2b3c" for "app.f-1a2b3c4d.html") when no
 * other page's hash starts with them, else by its whole page name without
 * .html (which holds a '-').
 *
 * who is an index into f, or the id of a function with no page (a builtin);
 * mechanism and provenance are numbers in the site script's NAMES
 * (html_pagedata_names: the mechanisms by cgm_via, then the provenances);
 * lines are the known call-site lines
 * (none: "unknown"); flags: 1 ambiguous, 2 unexplained, 4 observed against
 * an earlier body, 8 the lines link nowhere (the caller has no page);
 * object is what the call goes through (0 none); calls and ms are there
 * when runtime data was merged and the edge was observed.  Trailing
 * fields at their default (0, none) are left off.
 *
 * In:  the html_ctx (read-only) and function indexes.
 * Out: the JSON, appended to a caller's strbuf.  html_pagedata_free
 *      releases what the builder holds; nothing else is owned.
 */
#include "html_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/escape.h"
#include "cgmap/runtime.h"

void html_pagedata_init(html_pagedata *pd, const html_ctx *ctx, int fn)
{
	memset(pd, 0, sizeof(*pd));
	pd->ctx = ctx;
	pd->last_who[0] = pd->last_who[1] = -2;
	html_pagedata_fn(pd, fn);
}

void html_pagedata_free(html_pagedata *pd)
{
	free(pd->fns), free(pd->slots), free(pd->rowinfo);
	cgm_strbuf_free(&pd->rows[0]), cgm_strbuf_free(&pd->rows[1]);
	cgm_strbuf_free(&pd->tooltips), cgm_strbuf_free(&pd->relrows);
	cgm_strbuf_free(&pd->accessors[0]), cgm_strbuf_free(&pd->accessors[1]);
	memset(pd, 0, sizeof(*pd));
}

static unsigned slot_of(int fn, int mask)
{
	return ((unsigned)fn * 2654435761u) & (unsigned)mask;
}

/* An open-addressing set of the page's functions: a page names a few dozen
 * of them, a hub thousands; a table as long as the model per page would be
 * cleared 50,000 times at 50,000 functions. */
static void grow(html_pagedata *pd)
{
	int cap = pd->nslots ? pd->nslots * 2 : 64;
	int *slots = cgm_xcalloc((size_t)cap, sizeof(int));
	for (int i = 0; i < pd->nfns; i++) {
		unsigned s = slot_of(pd->fns[i], cap - 1);
		while (slots[s])
			s = (s + 1) & (unsigned)(cap - 1);
		slots[s] = i + 1;
	}
	free(pd->slots);
	pd->slots = slots, pd->nslots = cap;
}

int html_pagedata_fn(html_pagedata *pd, int fn)
{
	if (fn < 0 || fn >= pd->ctx->nuser || !pd->ctx->page[fn])
		return -1;
	if (2 * (pd->nfns + 1) > pd->nslots)
		grow(pd);
	unsigned s = slot_of(fn, pd->nslots - 1);
	while (pd->slots[s]) {
		if (pd->fns[pd->slots[s] - 1] == fn)
			return pd->slots[s] - 1;
		s = (s + 1) & (unsigned)(pd->nslots - 1);
	}
	if (pd->nfns == pd->capfns) {
		pd->capfns = pd->capfns ? pd->capfns * 2 : 32;
		pd->fns = cgm_xrealloc(pd->fns, (size_t)pd->capfns * sizeof(int));
	}
	pd->fns[pd->nfns] = fn;
	pd->slots[s] = ++pd->nfns;
	return pd->nfns - 1;
}

/* The names rows give by number (the site script's NAMES): the mechanisms
 * (cgm_via_name, by cgm_via), then the provenances html_provenance_name
 * gives. */
static const char *const provenance_names[] = { "static", "observed", "static+observed",
						"declared", "declared+observed", "none" };
#define NPROVENANCES (int)(sizeof(provenance_names) / sizeof(provenance_names[0]))

static int provenance_number(unsigned provenance)
{
	const char *name = html_provenance_name(provenance);
	for (int k = 0; k < NPROVENANCES; k++)
		if (strcmp(provenance_names[k], name) == 0)
			return CGM_VIA_COUNT + k;
	return -1;
}

void html_pagedata_names(cgm_strbuf *js)
{
	cgm_strbuf_puts(js, "  var NAMES = [");
	for (int v = 0; v < CGM_VIA_COUNT; v++)
		cgm_strbuf_printf(js, "'%s', ", cgm_via_name((cgm_via)v));
	for (int k = 0; k < NPROVENANCES; k++)
		cgm_strbuf_printf(js, "%s'%s'", k ? ", " : "", provenance_names[k]);
	cgm_strbuf_puts(js, "];\n");
}


void html_pagedata_edge(html_pagedata *pd, int edge, bool up)
{
	const html_ctx *ctx = pd->ctx;
	const cgm_model *m = ctx->model;
	const cgm_edge *e = &m->edges[edge];
	cgm_strbuf *b = &pd->rows[up ? 0 : 1];
	int other = up ? e->from : e->to;
	int local = html_pagedata_fn(pd, other);
	bool next = local >= 0 && local == pd->last_who[up ? 0 : 1] + 1;
	pd->last_who[up ? 0 : 1] = local >= 0 ? local : -2; /* a name: no next */
	int flags = (e->ambiguous ? 1 : 0) | (cgm_edge_unexplained(e) ? 2 : 0) |
		    (cgm_edge_get_rare(e)->earlier_body ? 4 : 0) | (e->from >= ctx->nuser ? 8 : 0);
	bool observed = m->has_runtime && (e->provenance & CGM_EDGE_OBSERVED);
	const char *object = e->object ? cgm_via_object_tail(e->via, e->object) : NULL;
	int provenance = provenance_number(e->provenance);
	/* The usual row (a static call, nothing else to say) is [who, lines];
	 * and [lines] when who is the function after the previous row's (as
	 * rows name functions, mostly). */
	bool usual = e->via == CGM_VIA_CALL && provenance == CGM_VIA_COUNT && !flags && !object &&
		     !observed;
	cgm_strbuf_puts(b, b->len ? ",\n[" : "[");
	if (!(usual && next)) {
		if (local >= 0) {
			cgm_strbuf_add_int(b, local);
		} else {
			cgm_strbuf_putc(b, '"');
			cgm_escape_json_visible(b, other >= 0 && other < ctx->nfn ? m->functions[other].id
										   : "?");
			cgm_strbuf_putc(b, '"');
		}
		cgm_strbuf_putc(b, ',');
	}
	if (!usual) {
		cgm_strbuf_add_int(b, (int)e->via);
		cgm_strbuf_putc(b, ',');
		if (provenance >= 0) {
			cgm_strbuf_add_int(b, provenance);
		} else { /* a name NAMES lacks: itself */
			cgm_strbuf_putc(b, '"');
			cgm_escape_json_visible(b, html_provenance_name(e->provenance));
			cgm_strbuf_putc(b, '"');
		}
		cgm_strbuf_putc(b, ',');
	}
	int nknown = 0;
	for (int l = 0; l < e->nlines; l++)
		nknown += e->lines[l] > 0; /* <= 0: observed with no known site */
	if (nknown != 1)
		cgm_strbuf_putc(b, '[');
	for (int l = 0, k = 0; l < e->nlines; l++) {
		if (e->lines[l] <= 0)
			continue;
		if (k++)
			cgm_strbuf_putc(b, ',');
		cgm_strbuf_add_int(b, e->lines[l]);
	}
	if (nknown != 1)
		cgm_strbuf_putc(b, ']');
	if (flags || object || observed)
		cgm_strbuf_putc(b, ','), cgm_strbuf_add_int(b, flags);
	if (object || observed) {
		cgm_strbuf_putc(b, ',');
		if (object) {
			cgm_strbuf_putc(b, '"');
			cgm_escape_json_visible(b, object);
			cgm_strbuf_putc(b, '"');
		} else {
			cgm_strbuf_putc(b, '0');
		}
	}
	if (observed) {
		cgm_strbuf_printf(b, ",%lld,\"", (long long)cgm_edge_runtime(e)->calls);
		html_ms(b, cgm_edge_runtime(e)->total_ms);
		cgm_strbuf_putc(b, '"');
	}
	cgm_strbuf_putc(b, ']');
	if (pd->nrows == pd->caprows) {
		pd->caprows = pd->caprows ? pd->caprows * 2 : 64;
		pd->rowinfo = cgm_xrealloc(pd->rowinfo, (size_t)pd->caprows * sizeof(*pd->rowinfo));
	}
	pd->rowinfo[pd->nrows++] = (html_pagedata_row){ local, up, pd->tooltips.len };
	/* The tooltip the graph gives the row's edge (html_graph.c, without
	 * the calls when there is no runtime data to show them), as the page's
	 * script writes it from the row: a graph edge with this tooltip is
	 * written as the row's number instead. */
	html_edge_tooltip(&pd->tooltips, e, observed);
	cgm_strbuf_putc(&pd->tooltips, '\0');
}

void html_pagedata_edges(html_pagedata *pd, int fn)
{
	const html_ctx *ctx = pd->ctx;
	for (int k = ctx->in_start[fn]; k < ctx->in_start[fn + 1]; k++)
		html_pagedata_edge(pd, ctx->in_list[k], true);
	for (int k = ctx->out_start[fn]; k < ctx->out_start[fn + 1]; k++)
		html_pagedata_edge(pd, ctx->out_list[k], false);
}

int html_pagedata_row_of(const html_pagedata *pd, int from, int to, const char *tooltip)
{
	if (!tooltip || (from != 0 && to != 0))
		return -1;
	/* Callers' rows come first, numbered from 0; the callees' after. */
	for (int r = 0; r < pd->nrows; r++) {
		const html_pagedata_row *row = &pd->rowinfo[r];
		int other = row->up ? from : to, self = row->up ? to : from;
		if (self != 0 || other != row->who)
			continue;
		if (strcmp(pd->tooltips.data + row->tooltip, tooltip) == 0)
			return r;
	}
	return -1;
}

void html_fn_ref(cgm_strbuf *b, const html_ctx *ctx, html_pagedata *pd, int fn)
{
	int local = pd ? html_pagedata_fn(pd, fn) : -1;
	if (local < 0) {
		html_fn_link(b, ctx, fn, HTML_FN_SIBLING);
		return;
	}
	cgm_strbuf_printf(b, "<a data-f=\"%d\"></a>", local); /* the script: class fn */
}

void html_pagedata_write(cgm_strbuf *b, const html_pagedata *pd)
{
	cgm_strbuf_puts(b, "<script type=\"application/json\" id=\"cgmap-page\">{");
	if (pd->ctx->model->has_runtime)
		cgm_strbuf_puts(b, "\"rt\":1,");
	if (pd->fn_base) /* cgmap's own "../functions/": nothing to escape */
		cgm_strbuf_printf(b, "\"fb\":\"%s\",", pd->fn_base);
	cgm_strbuf_puts(b, "\"f\":[");
	for (int i = 0; i < pd->nfns; i++) {
		const char *page = pd->ctx->page[pd->fns[i]];
		size_t len = strlen(page);
		len -= len > 5 && strcmp(page + len - 5, ".html") == 0 ? 5 : 0;
		/* By the first digits of its hash when no other page's hash
		 * starts with them. */
		const char *dash = strrchr(page, '-');
		if (dash && pd->ctx->page_hash_unique[pd->fns[i]]) {
			page = dash + 1;
			len = HTML_PAGE_HASH_NAME;
		}
		cgm_strbuf_puts(b, i ? ",\"" : "\"");
		/* Page names are cgm_escape_filename's: no quote or backslash,
		 * nothing JSON escapes. */
		cgm_strbuf_add(b, page, len);
		cgm_strbuf_putc(b, '"');
		if (i % 8 == 7)
			cgm_strbuf_putc(b, '\n');
	}
	cgm_strbuf_puts(b, "],\n\"c\":[");
	cgm_strbuf_add(b, pd->rows[0].data ? pd->rows[0].data : "", pd->rows[0].len);
	cgm_strbuf_puts(b, "],\n\"d\":[");
	cgm_strbuf_add(b, pd->rows[1].data ? pd->rows[1].data : "", pd->rows[1].len);
	const struct {
		const char *key;
		const cgm_strbuf *rows;
	} more[] = { { "r", &pd->relrows }, { "a", &pd->accessors[0] }, { "w", &pd->accessors[1] } };
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (more[i].rows->len) {
			cgm_strbuf_printf(b, "],\n\"%s\":[", more[i].key);
			cgm_strbuf_add(b, more[i].rows->data, more[i].rows->len);
		}
	cgm_strbuf_puts(b, "]}</script>\n");
}
