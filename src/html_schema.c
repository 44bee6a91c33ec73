/*
 * html_schema.c - one page per schema: its functions in a sortable table and
 * an overview graph of the schema (capped like every graph).
 *
 * In:  the html_ctx (read-only), a worker's graph scratch, a schema index.
 * Out: schemas/<page>.html and dot/schemas/<page>.dot; 0 or CGM_E*; or
 *      the key of that page (html_schema_page_key), so that rendering again
 *      skips a schema none of whose functions' neighbourhoods changed.
 */
#include "html_internal.h"

#include <stdio.h>
#include <string.h>

#include "cgmap/error.h"

/* Bumped when a schema page shows something its key below does not. */
#define SCHEMA_PAGE_FORMAT "schema-page 2"

/* Everything a schema page shows is the site's (site_key: options, the
 * source, the runtime window, the number of schemas) or its members' and
 * their direct edges' (the overview draws calls among members, to other
 * schemas and to builtins; its entry points' reach follows the schema's
 * own calls; the table lists each member's figures, degrees and status):
 * hood[f] holds each member as shown and, at depth 1 and more, each of its
 * edges with the other end as shown.  A superset, so a page is never kept
 * stale; it may be built again with the same bytes. */
uint64_t html_schema_page_key(const html_ctx *ctx, int schema)
{
	const html_schema *sc = &ctx->schemas[schema];
	uint64_t h = html_key_str(ctx->site_key, SCHEMA_PAGE_FORMAT);
	h = html_key_str(h, sc->name);
	h = html_key_str(h, sc->page);
	h = html_key_u64(h, (uint64_t)sc->nmembers);
	for (int i = 0; i < sc->nmembers; i++)
		h = html_key_u64(h, ctx->hood[sc->members[i]]);
	return h ? h : 1; /* 0 means no record */
}

static void figure_cell(cgm_strbuf *b, double value, bool ms)
{
	cgm_strbuf_printf(b, "<td class=\"num\" data-v=\"%.6f\">", value);
	if (ms)
		html_ms(b, value);
	else
		cgm_strbuf_printf(b, "%.0f", value);
}

int html_write_schema_page(uint64_t out_hash[2], const html_ctx *ctx, html_graph_scratch *scratch,
                           int schema)
{
	const cgm_model *m = ctx->model;
	const html_schema *sc = &ctx->schemas[schema];
	cgm_strbuf b = CGM_STRBUF_INIT, dot = CGM_STRBUF_INIT, svg = CGM_STRBUF_INIT;
	html_graph_info info = { 0 };
	html_graph_schema(&dot, &info, scratch, ctx, schema);
	int rc = html_graph_svg(&svg, scratch, cgm_strbuf_cstr(&dot), sc->name);

	cgm_strbuf title = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&title, "schema %s", sc->name);
	html_page_begin(&b, ctx, "../", cgm_strbuf_cstr(&title));
	cgm_strbuf_free(&title);
	cgm_strbuf_puts(&b, "<p class=\"muted\">schema</p>\n<h1>");
	html_text(&b, sc->name);
	cgm_strbuf_printf(&b, "</h1>\n<p>%d function%s", sc->nmembers, sc->nmembers == 1 ? "" : "s");
	if (ctx->analysed)
		cgm_strbuf_printf(&b, ", %d dead", sc->ndead);
	if (m->has_runtime)
		cgm_strbuf_printf(&b, ", %d cold", sc->ncold);
	cgm_strbuf_puts(&b, ".</p>\n");

	cgm_strbuf_puts(&b, "<h2 id=\"graph\">Overview</h2>\n<p class=\"muted\">Calls between the "
			    "functions of this schema; grey ellipses stand for other schemas.");
	if (info.omitted > 0)
		cgm_strbuf_printf(&b, " <b>The schema has %d functions, more than the graph's cap "
				      "of %d: the graph shows %d, first its entry points that reach "
				      "the most of it (labelled with how many of its functions they "
				      "reach), then the most connected, and a "
				      "\xE2\x80\x9C+%d more\xE2\x80\x9D node stands for the rest</b>, "
				      "all listed in the table below.",
				  sc->nmembers, ctx->opts.node_cap, info.shown, info.omitted);
	if (info.reduced)
		cgm_strbuf_printf(&b, " <b>Of the %d calls among the functions drawn, %d are left "
				      "out</b>: each pair of functions is joined once, a call is not "
				      "drawn when a longer drawn path already leads from its caller to "
				      "its callee (so what reaches what reads the same), and calls to "
				      "or from the functions not drawn are drawn only for a function "
				      "with no other call that way.",
				  info.calls, info.calls_left_out);
	cgm_strbuf_puts(&b, "</p>\n");
	html_legend(&b, "../");
	cgm_strbuf_puts(&b, "<div class=\"graph\">\n");
	if (rc == 0)
		cgm_strbuf_add(&b, svg.data ? svg.data : "", svg.len);
	cgm_strbuf_puts(&b, "</div>\n");
	if (ctx->opts.dot_sources)
		cgm_strbuf_printf(&b, "<p class=\"muted\">DOT source: <a href=\"../dot/schemas/"
				      "%.*s.dot\">dot/schemas/%.*s.dot</a></p>\n",
				  (int)(strlen(sc->page) - 5), sc->page, (int)(strlen(sc->page) - 5),
				  sc->page);

	cgm_strbuf_printf(&b, "<h2 id=\"functions\">Functions (%d)</h2>\n", sc->nmembers);
	if (!m->has_runtime)
		cgm_strbuf_puts(&b, "<p class=\"note\">No runtime data was merged: calls and times "
				    "are unknown.</p>\n");
	/* Without runtime data the calls and time columns would be dashes:
	 * they go; and a cell ends where the next begins (HTML lets </td> and
	 * </tr> go): two thirds of a 10,000-function schema's page. */
	bool figures = m->has_runtime;
	cgm_strbuf_printf(&b, "<p class=\"muted\">Click a column heading to sort.</p>\n"
			      "<table class=\"sortable\"><thead><tr><th>function</th><th>kind</th>"
			      "<th>language</th><th class=\"num\">callers</th><th class=\"num\">"
			      "callees</th>%s<th>status</th></tr></thead><tbody>\n",
			  figures ? "<th class=\"num\">calls</th><th class=\"num\">self ms</th>"
				    "<th class=\"num\">total ms</th>"
				  : "");
	for (int i = 0; i < sc->nmembers; i++) {
		int fn = sc->members[i];
		const cgm_function *f = &m->functions[fn];
		cgm_strbuf_puts(&b, "<tr><td>");
		html_fn_link(&b, ctx, fn, "../");
		cgm_strbuf_printf(&b, "<td>%s<td>", cgm_kind_name(f->kind));
		html_text(&b, f->language ? f->language : "?");
		cgm_strbuf_printf(&b, "<td class=\"num\">%d<td class=\"num\">%d", ctx->ncallers[fn],
				  ctx->ncallees[fn]);
		if (figures) {
			figure_cell(&b, (double)f->runtime.calls, false);
			figure_cell(&b, f->runtime.self_ms, true);
			figure_cell(&b, f->runtime.total_ms, true);
		}
		cgm_strbuf_puts(&b, "<td>");
		html_status_badges(&b, ctx, fn);
		cgm_strbuf_putc(&b, '\n');
	}
	cgm_strbuf_puts(&b, "</tbody></table>\n");
	html_page_end(&b, "../", false);

	if (rc == 0 && ctx->opts.dot_sources) {
		char rel[512];
		snprintf(rel, sizeof(rel), "dot/schemas/%.*s.dot", (int)(strlen(sc->page) - 5),
			 sc->page);
		rc = html_write_file(ctx, rel, &dot);
		out_hash[1] = html_page_bytes_hash(dot.data, dot.len);
	}
	if (rc == 0) {
		char rel[512];
		snprintf(rel, sizeof(rel), "schemas/%s", sc->page);
		rc = html_write_file(ctx, rel, &b);
		out_hash[0] = html_page_bytes_hash(b.data, b.len);
	}
	cgm_strbuf_free(&b), cgm_strbuf_free(&dot), cgm_strbuf_free(&svg);
	return rc;
}
