/*
 * html_site.c - the site-level pages: index.html (source, totals, entry
 * points, top functions, schemas, reports, search box), search-index.js
 * (what the search box looks through) and the reports (dead, cold, unseen
 * dynamic sites, unexplained runtime edges, missing callees, parse errors,
 * cycles).
 *
 * In:  the html_ctx (read-only).  Out: files under ctx->outdir; 0 or CGM_E*.
 */
#include "html_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/runtime.h"
#include "cgmap/verdict.h"

typedef struct totals {
	int functions, analysed;
	int edges, static_only, observed_only, both;
	int via[CGM_VIA_COUNT];
	int dynamic_sites, dynamic_seen;
	int dynamic_silent; /* not seen, and their SQL can call no user function */
	int dynamic_ran; /* not seen, can call, ran (cgmap_trace 1.4) calling none */
	int missing, parse_errors, diagnostics;
	int dead, cold, entries, unexplained, cycles, cyclic_functions;
} totals;

/* Where a dynamic site stands, as cgmap's summary counts it
 * (cgm_dynamic_site_state; the site shows no declared calls). */
static cgm_dynamic_state dynamic_state(const html_ctx *ctx, cgm_dynsql_reader **reader, int fn,
				       const cgm_site *site)
{
	return cgm_dynamic_site_state(reader, ctx->model, site, html_dynamic_seen(ctx, fn, site), false);
}

static int dynamic_unseen(const totals *t)
{
	return t->dynamic_sites - t->dynamic_seen - t->dynamic_silent - t->dynamic_ran;
}

static void count_totals(totals *t, const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	cgm_dynsql_reader *reader = NULL;
	memset(t, 0, sizeof(*t));
	t->functions = ctx->nuser;
	for (int i = 0; i < ctx->nuser; i++) {
		const cgm_function *f = &m->functions[i];
		t->analysed += f->analysed;
		t->dead += f->dead;
		t->cold += f->cold;
		t->entries += html_fn_entry(f);
		t->parse_errors += f->nerrors;
		t->cyclic_functions += ctx->scc[i] >= 0;
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			t->missing += cgm_site_missing(site);
			if (site->kind == CGM_SITE_DYNAMIC) {
				t->dynamic_sites++;
				switch (dynamic_state(ctx, &reader, i, site)) {
				case CGM_DYN_OBSERVED: t->dynamic_seen++; break;
				case CGM_DYN_CALLS_NONE: t->dynamic_silent++; break;
				case CGM_DYN_RAN: t->dynamic_ran++; break;
				case CGM_DYN_DECLARED: /* the site passes no declared calls */
				case CGM_DYN_UNSEEN: break;
				}
			}
		}
	}
	t->diagnostics = m->ndiagnostics;
	for (int k = 0; k < m->nedges; k++) {
		const cgm_edge *e = &m->edges[k];
		bool st = e->provenance & CGM_EDGE_STATIC, ob = e->provenance & CGM_EDGE_OBSERVED;
		t->edges++;
		t->static_only += st && !ob;
		t->observed_only += ob && !st;
		t->both += st && ob;
		if ((unsigned)e->via < CGM_VIA_COUNT)
			t->via[e->via]++;
		t->unexplained += cgm_edge_unexplained(e);
	}
	t->cycles = ctx->nscc;
	cgm_dynsql_reader_free(reader);
}

/* ---- index.html ---- */

static void card(cgm_strbuf *b, int n, const char *what, const char *href)
{
	if (href)
		cgm_strbuf_printf(b, "<a class=\"card\" href=\"%s\"><span class=\"n\">%d</span>%s</a>\n",
				  href, n, what);
	else
		cgm_strbuf_printf(b, "<div class=\"card\"><span class=\"n\">%d</span>%s</div>\n", n,
				  what);
}

typedef struct {
	const cgm_model *model;
	bool by_calls;
} top_order;

static int compare_top(const void *a, const void *b, void *arg)
{
	const top_order *o = arg;
	const cgm_function *x = &o->model->functions[*(const int *)a];
	const cgm_function *y = &o->model->functions[*(const int *)b];
	if (o->by_calls) {
		if (x->runtime.calls != y->runtime.calls)
			return x->runtime.calls > y->runtime.calls ? -1 : 1;
	} else if (x->runtime.self_ms != y->runtime.self_ms) {
		return x->runtime.self_ms > y->runtime.self_ms ? -1 : 1;
	}
	return *(const int *)a - *(const int *)b;
}

#define TOP_N 20
#define ENTRY_LIST_MAX 200

static void top_table(cgm_strbuf *b, const html_ctx *ctx, bool by_calls)
{
	const cgm_model *m = ctx->model;
	int *order = calloc((size_t)ctx->nuser + 1, sizeof(int));
	if (!order)
		abort();
	int n = 0;
	for (int i = 0; i < ctx->nuser; i++)
		if (m->functions[i].runtime.calls > 0)
			order[n++] = i;
	top_order o = { m, by_calls };
	qsort_r(order, (size_t)n, sizeof(int), compare_top, &o);
	cgm_strbuf_printf(b, "<h3>By %s</h3>\n", by_calls ? "calls" : "self time");
	if (n == 0) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No function was called while runtime data was "
				   "collected.</p>\n");
		free(order);
		return;
	}
	cgm_strbuf_puts(b, "<table><thead><tr><th>function</th><th class=\"num\">calls</th>"
			   "<th class=\"num\">self ms</th><th class=\"num\">total ms</th></tr></thead>"
			   "<tbody>\n");
	for (int k = 0; k < n && k < TOP_N; k++) {
		const cgm_function *f = &m->functions[order[k]];
		cgm_strbuf_puts(b, "<tr><td>");
		html_fn_link(b, ctx, order[k], "");
		cgm_strbuf_printf(b, "</td><td class=\"num\">%lld</td><td class=\"num\">",
				  (long long)f->runtime.calls);
		html_ms(b, f->runtime.self_ms);
		cgm_strbuf_puts(b, "</td><td class=\"num\">");
		html_ms(b, f->runtime.total_ms);
		cgm_strbuf_puts(b, "</td></tr>\n");
	}
	cgm_strbuf_puts(b, "</tbody></table>\n");
	free(order);
}

static void languages_table(cgm_strbuf *b, const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	/* Distinct languages, sorted; counts per kind. */
	const char **langs = calloc((size_t)ctx->nuser + 1, sizeof(char *));
	int (*counts)[4] = calloc((size_t)ctx->nuser + 1, sizeof(*counts));
	if (!langs || !counts)
		abort();
	int nlangs = 0;
	for (int i = 0; i < ctx->nuser; i++) {
		const cgm_function *f = &m->functions[i];
		const char *lang = f->language ? f->language : "?";
		int at = 0;
		while (at < nlangs && strcmp(langs[at], lang) < 0)
			at++;
		if (at == nlangs || strcmp(langs[at], lang) != 0) {
			memmove(langs + at + 1, langs + at, sizeof(char *) * (size_t)(nlangs - at));
			memmove(counts + at + 1, counts + at, sizeof(*counts) * (size_t)(nlangs - at));
			langs[at] = lang;
			memset(counts[at], 0, sizeof(*counts));
			nlangs++;
		}
		counts[at][(unsigned)f->kind < 4 ? f->kind : 0]++;
	}
	cgm_strbuf_puts(b, "<table><thead><tr><th>language</th>");
	for (int k = 0; k < 4; k++)
		cgm_strbuf_printf(b, "<th class=\"num\">%s</th>", cgm_kind_name((cgm_kind)k));
	cgm_strbuf_puts(b, "<th class=\"num\">all</th></tr></thead><tbody>\n");
	for (int l = 0; l < nlangs; l++) {
		cgm_strbuf_puts(b, "<tr><td>");
		html_text(b, langs[l]);
		cgm_strbuf_puts(b, "</td>");
		int all = 0;
		for (int k = 0; k < 4; k++) {
			cgm_strbuf_printf(b, "<td class=\"num\">%d</td>", counts[l][k]);
			all += counts[l][k];
		}
		cgm_strbuf_printf(b, "<td class=\"num\">%d</td></tr>\n", all);
	}
	cgm_strbuf_puts(b, "</tbody></table>\n");
	free(langs);
	free(counts);
}

/* " Evidence: window ..., enough for dead (...)." (src/verdict.c) */
static void evidence_paragraph(cgm_strbuf *b, const cgm_model *m)
{
	cgm_strbuf ev = CGM_STRBUF_INIT;
	cgm_evidence_text(&ev, m);
	cgm_strbuf_puts(b, " Evidence: ");
	html_text(b, cgm_strbuf_cstr(&ev));
	cgm_strbuf_puts(b, ".");
	cgm_strbuf_free(&ev);
}

static void entry_points(cgm_strbuf *b, const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf_puts(b, "<h2 id=\"entries\">Entry points</h2>\n");
	int n = 0;
	for (int i = 0; i < ctx->nuser; i++)
		n += html_fn_entry(&m->functions[i]);
	bool fallback = n == 0;
	if (fallback) {
		for (int i = 0; i < ctx->nuser; i++)
			n += ctx->ncallers[i] == 0;
		cgm_strbuf_printf(b, "<p class=\"note\">%s No function is marked as an entry point, "
				     "so these are the %d functions that no mapped function calls.</p>\n",
				  ctx->analysed ? "" : "Reachability was not analysed for this map.", n);
	} else {
		cgm_strbuf_printf(b, "<p>%d functions are roots of the call graph: called by clients "
				     "at runtime, fired by triggers, referenced by catalog objects, or "
				     "named as entry points.</p>\n",
				  n);
	}
	if (n == 0)
		return;
	cgm_strbuf_puts(b, "<table><thead><tr><th>function</th><th class=\"num\">callees</th>"
			   "<th>status</th></tr></thead><tbody>\n");
	int shown = 0;
	for (int i = 0; i < ctx->nuser && shown < ENTRY_LIST_MAX; i++) {
		bool is = fallback ? ctx->ncallers[i] == 0 : html_fn_entry(&m->functions[i]);
		if (!is)
			continue;
		shown++;
		cgm_strbuf_puts(b, "<tr><td>");
		html_fn_link(b, ctx, i, "");
		cgm_strbuf_printf(b, "</td><td class=\"num\">%d</td><td>", ctx->ncallees[i]);
		html_status_badges(b, ctx, i);
		cgm_strbuf_puts(b, "</td></tr>\n");
	}
	cgm_strbuf_puts(b, "</tbody></table>\n");
	if (n > shown)
		cgm_strbuf_printf(b, "<p class=\"note\">The first %d of %d are listed; every function "
				     "and its status is in its schema's table.</p>\n",
				  shown, n);
}

int html_write_index(const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	const cgm_source_info *src = &m->source;
	totals t;
	count_totals(&t, ctx);
	cgm_strbuf b = CGM_STRBUF_INIT;
	bool db = src->kind && strcmp(src->kind, "database") == 0;
	cgm_strbuf title = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&title, "%s %s", db ? "database" : "SQL files",
			  src->name ? src->name : "(unnamed)");
	html_page_begin(&b, ctx, "", cgm_strbuf_cstr(&title));
	cgm_strbuf_free(&title);

	cgm_strbuf_printf(&b, "<h1>Call graph of %s <code>", db ? "database" : "SQL files");
	html_text(&b, src->name ? src->name : "(unnamed)");
	cgm_strbuf_puts(&b, "</code></h1>\n<p>");
	if (src->server_version) {
		cgm_strbuf_puts(&b, "PostgreSQL ");
		html_text(&b, src->server_version);
		cgm_strbuf_puts(&b, ". ");
	}
	if (src->mapped_at) {
		cgm_strbuf_puts(&b, "Mapped at <time>");
		html_text(&b, src->mapped_at);
		cgm_strbuf_puts(&b, "</time>.");
	} else {
		cgm_strbuf_puts(&b, "Mapping time not recorded (map with <code>--stamp</code> to "
				    "record it; without it the output stays byte-identical).");
	}
	cgm_strbuf_puts(&b, "</p>\n<p>");
	if (m->has_runtime) {
		cgm_strbuf_puts(&b, "Runtime data merged");
		if (m->runtime_window) {
			cgm_strbuf_puts(&b, ": ");
			html_text(&b, m->runtime_window);
		}
		cgm_strbuf_puts(&b, ".");
		evidence_paragraph(&b, m);
	} else {
		cgm_strbuf_puts(&b, "<span class=\"warn\">No runtime data was merged: calls, times, "
				    "observed edges, cold functions and the targets of dynamic SQL "
				    "are unknown.</span>");
	}
	cgm_strbuf_puts(&b, "</p>\n");

	cgm_strbuf_puts(&b, "<noscript><p class=\"muted\">The search box (at the top of every "
			    "page) needs JavaScript; every function is listed on its schema's page "
			    "below.</p></noscript>\n");

	cgm_strbuf_puts(&b, "<h2 id=\"totals\">Totals</h2>\n<div class=\"cards\">\n");
	card(&b, t.functions, "functions", "#schemas");
	card(&b, t.edges, "call edges", NULL);
	card(&b, dynamic_unseen(&t), "unseen dynamic sites", "reports/dynamic.html");
	card(&b, t.missing, "missing callees", "reports/missing.html");
	card(&b, t.parse_errors + t.diagnostics, "parse errors", "reports/errors.html");
	card(&b, t.dead, "dead functions", "reports/dead.html");
	card(&b, t.cold, "cold functions", "reports/cold.html");
	card(&b, t.unexplained, "unexplained runtime edges", "reports/unexplained.html");
	card(&b, t.cycles, "cycles", "reports/cycles.html");
	cgm_strbuf_puts(&b, "</div>\n");
	cgm_strbuf_printf(&b, "<h3>Functions by language and kind</h3>\n<p>%d functions, %d of them "
			      "analysed (PL/pgSQL and SQL bodies parsed for calls).</p>\n",
			  t.functions, t.analysed);
	languages_table(&b, ctx);
	cgm_strbuf_printf(&b, "<h3>Edges</h3>\n<table><thead><tr><th>provenance</th>"
			      "<th class=\"num\">edges</th></tr></thead><tbody>\n"
			      "<tr><td>static only (in the source, not observed)</td><td class=\"num\">"
			      "%d</td></tr>\n<tr><td>observed only (at runtime, not in the source)"
			      "</td><td class=\"num\">%d</td></tr>\n<tr><td>static and observed</td>"
			      "<td class=\"num\">%d</td></tr>\n<tr><th>all</th><th class=\"num\">%d"
			      "</th></tr>\n</tbody></table>\n",
			  t.static_only, t.observed_only, t.both, t.edges);
	cgm_strbuf_printf(&b, "<table><thead><tr><th>made by</th><th class=\"num\">edges</th></tr>"
			      "</thead><tbody>\n<tr><td>direct call, PERFORM, CALL</td><td "
			      "class=\"num\">%d</td></tr>\n<tr><td>constant SQL of an EXECUTE</td>"
			      "<td class=\"num\">%d</td></tr>\n<tr><td>trigger fired by DML</td><td "
			      "class=\"num\">%d</td></tr>\n<tr><td>dynamic EXECUTE (observed)</td><td "
			      "class=\"num\">%d</td></tr>\n",
			  t.via[CGM_VIA_CALL], t.via[CGM_VIA_LITERAL], t.via[CGM_VIA_TRIGGER],
			  t.via[CGM_VIA_DYNAMIC]);
	/* The other mechanisms (views, defaults, operators, ...) when present:
	 * the rows add up to every edge, as the provenance table's do. */
	for (int v = CGM_VIA_DYNAMIC + 1; v < CGM_VIA_COUNT; v++)
		if (t.via[v])
			cgm_strbuf_printf(&b, "<tr><td>%s</td><td class=\"num\">%d</td></tr>\n",
					  cgm_via_name((cgm_via)v), t.via[v]);
	cgm_strbuf_printf(&b, "<tr><th>all</th><th class=\"num\">%d</th></tr>\n</tbody></table>\n",
			  t.edges);
	char ran[96] = "";
	if (m->has_site_runs)
		snprintf(ran, sizeof ran, "%d ran without calling one, ", t.dynamic_ran);
	cgm_strbuf_printf(&b, "<h3>Dynamic SQL</h3>\n<p>%d dynamic EXECUTE sites: %d seen at "
			      "runtime, %d that can call no user function, %s%d never seen%s.</p>\n",
			  t.dynamic_sites, t.dynamic_seen, t.dynamic_silent, ran, dynamic_unseen(&t),
			  m->has_runtime ? "" : " (no runtime data, so none could be seen)");

	entry_points(&b, ctx);

	cgm_strbuf_puts(&b, "<h2 id=\"top\">Where time is spent</h2>\n");
	if (m->has_runtime) {
		top_table(&b, ctx, false);
		top_table(&b, ctx, true);
		html_timeline_index(&b, ctx);
		html_profile_index(&b, ctx);
	} else {
		cgm_strbuf_puts(&b, "<p class=\"note\">No runtime data: run cgmap with runtime "
				    "collection (the cgmap_trace extension or "
				    "pg_stat_user_functions) to see calls and times.</p>\n");
	}

	cgm_strbuf_puts(&b, "<h2 id=\"schemas\">Schemas</h2>\n<table class=\"sortable\"><thead><tr>"
			    "<th>schema</th><th class=\"num\">functions</th><th class=\"num\">dead</th>"
			    "<th class=\"num\">cold</th></tr></thead><tbody>\n");
	for (int s = 0; s < ctx->nschemas; s++) {
		const html_schema *sc = &ctx->schemas[s];
		cgm_strbuf_printf(&b, "<tr><td><a href=\"schemas/%s\">", sc->page);
		html_text(&b, sc->name);
		cgm_strbuf_printf(&b, "</a></td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
				      "<td class=\"num\">%d</td></tr>\n",
				  sc->nmembers, sc->ndead, sc->ncold);
	}
	cgm_strbuf_puts(&b, "</tbody></table>\n");
	html_relations_index(&b, ctx);

	cgm_strbuf_printf(&b, "<h2 id=\"reports\">Reports</h2>\n<ul>\n"
			      "<li><a href=\"reports/dead.html\">Dead functions</a> (%d)</li>\n"
			      "<li><a href=\"reports/cold.html\">Cold functions</a> (%d)</li>\n"
			      "<li><a href=\"reports/dynamic.html\">Dynamic SQL sites</a> (%d unseen of "
			      "%d)</li>\n<li><a href=\"reports/unexplained.html\">Unexplained runtime "
			      "edges</a> (%d)</li>\n<li><a href=\"reports/missing.html\">Missing "
			      "callees</a> (%d)</li>\n<li><a href=\"reports/errors.html\">Parse "
			      "errors</a> (%d)</li>\n<li><a href=\"reports/cycles.html\">Cycles</a> (%d, "
			      "%d functions)</li>\n</ul>\n",
			  t.dead, t.cold, dynamic_unseen(&t), t.dynamic_sites,
			  t.unexplained, t.missing, t.parse_errors + t.diagnostics, t.cycles,
			  t.cyclic_functions);
	html_page_end(&b, "", true);
	int rc = html_write_file(ctx, "index.html", &b);
	cgm_strbuf_free(&b);
	return rc;
}

/* A name for the search index, which the page's script shows as text: a
 * control, bidi control or bad byte goes in already shown escaped
 * (cgm_escape_text), as the pages show it. */
static void visible_json(cgm_strbuf *b, cgm_strbuf *scratch, const char *s)
{
	if (cgm_escape_is_plain(s)) {
		cgm_escape_json(b, s);
		return;
	}
	cgm_strbuf_reset(scratch);
	cgm_escape_text(scratch, s);
	cgm_escape_json(b, cgm_strbuf_cstr(scratch));
}

/* search-index.js: a script, not JSON, so it loads from file:// where a
 * fetch() of a local file is refused.  Entries: [id, page, status, name],
 * the functions then the relations (status: their kind and accessors). */
int html_write_search_index(const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf b = CGM_STRBUF_INIT, status = CGM_STRBUF_INIT, shown = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&b, "/* cgmap search index: [id, page, status, name] per function "
			    "and relation. */\nwindow.CGMAP_INDEX = [\n");
	int entries = ctx->nuser + ctx->nrels;
	for (int i = 0; i < ctx->nuser; i++) {
		const cgm_function *f = &m->functions[i];
		cgm_strbuf_puts(&b, "[\"");
		visible_json(&b, &shown, f->id);
		cgm_strbuf_printf(&b, "\",\"functions/%s\",\"", ctx->page[i]);
		cgm_strbuf_reset(&status);
		html_status_text(&status, ctx, i);
		cgm_escape_json(&b, cgm_strbuf_cstr(&status));
		cgm_strbuf_puts(&b, "\",\"");
		visible_json(&b, &shown, f->name ? f->name : f->id);
		cgm_strbuf_puts(&b, i + 1 < entries ? "\"],\n" : "\"]\n");
	}
	for (int r = 0; r < ctx->nrels; r++) {
		const html_relation *rel = &ctx->rels[r];
		cgm_strbuf_puts(&b, "[\"");
		visible_json(&b, &shown, rel->display);
		cgm_strbuf_puts(&b, "\",\"relations/");
		cgm_escape_json(&b, rel->page);
		cgm_strbuf_printf(&b, "\",\"%s, read by %d, written by %d\",\"",
				  html_relkind_word(rel->relkind), rel->nreaders, rel->nwriters);
		visible_json(&b, &shown, rel->name);
		cgm_strbuf_puts(&b, ctx->nuser + r + 1 < entries ? "\"],\n" : "\"]\n");
	}
	cgm_strbuf_puts(&b, "];\n");
	int rc = html_write_file(ctx, "search-index.js", &b);
	cgm_strbuf_free(&b), cgm_strbuf_free(&status), cgm_strbuf_free(&shown);
	return rc;
}

/* ---- reports ---- */

static void report_begin(cgm_strbuf *b, const html_ctx *ctx, const char *title, int count,
			 const char *what)
{
	html_page_begin(b, ctx, "../", title);
	cgm_strbuf_puts(b, "<p class=\"muted\">report</p>\n<h1>");
	html_text(b, title);
	cgm_strbuf_printf(b, " (%d)</h1>\n<p>%s</p>\n", count, what);
}

static int report_end(cgm_strbuf *b, const html_ctx *ctx, const char *file)
{
	html_page_end(b, "../", false);
	char rel[128];
	snprintf(rel, sizeof(rel), "reports/%s", file);
	int rc = html_write_file(ctx, rel, b);
	cgm_strbuf_free(b);
	return rc;
}

static void function_rows_begin(cgm_strbuf *b)
{
	cgm_strbuf_puts(b, "<table class=\"sortable\"><thead><tr><th>function</th><th>language</th>"
			   "<th class=\"num\">callers</th><th class=\"num\">callees</th>"
			   "<th class=\"num\">lines</th><th>status</th></tr></thead><tbody>\n");
}

static void function_row(cgm_strbuf *b, const html_ctx *ctx, int fn)
{
	const cgm_function *f = &ctx->model->functions[fn];
	cgm_strbuf_puts(b, "<tr><td>");
	html_fn_link(b, ctx, fn, "../");
	cgm_strbuf_puts(b, "</td><td>");
	html_text(b, f->language ? f->language : "?");
	cgm_strbuf_printf(b, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
			     "<td class=\"num\">%d</td><td>",
			  ctx->ncallers[fn], ctx->ncallees[fn], f->line_count);
	html_status_badges(b, ctx, fn);
	cgm_strbuf_puts(b, "</td></tr>\n");
}

/* No caller outside its own recursive component, not a root, never called
 * at runtime: cgm_function_uncalled()'s rule, on this page's adjacency (and
 * a trigger or referenced function counts as used even without analysis). */
static bool uncalled(const html_ctx *ctx, int fn)
{
	const cgm_function *f = &ctx->model->functions[fn];
	if (f->root || f->runtime.calls > 0 || f->observed_entry || f->referenced || f->is_trigger)
		return false;
	for (int k = ctx->in_start[fn]; k < ctx->in_start[fn + 1]; k++) {
		int from = ctx->model->edges[ctx->in_list[k]].from;
		if (from == fn)
			continue;
		if (ctx->scc[fn] >= 0 && ctx->scc[from] == ctx->scc[fn])
			continue;
		return false;
	}
	return true;
}

static int report_dead(const html_ctx *ctx, const totals *t)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Dead functions", t->dead,
		     "Functions that no entry point reaches, through static or observed calls.");
	if (!ctx->analysed)
		cgm_strbuf_puts(&b, "<p class=\"warn\">Reachability was not analysed for this map, "
				    "so no function is known to be dead.</p>\n");
	else if (!ctx->model->has_runtime)
		cgm_strbuf_puts(&b, "<p class=\"warn\">No runtime data was merged: clients may call "
				    "any function, so cgmap calls none dead on the source alone.</p>\n");
	else {
		cgm_strbuf_puts(&b, "<p>");
		evidence_paragraph(&b, ctx->model);
		cgm_strbuf_puts(&b, "</p>\n");
	}
	if (t->dead) {
		function_rows_begin(&b);
		for (int i = 0; i < ctx->nuser; i++)
			if (ctx->model->functions[i].dead)
				function_row(&b, ctx, i);
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	/* Never called and unreachable, but not called dead: why not. */
	static const struct {
		cgm_verdict verdict;
		const char *title, *why;
	} others[] = {
		{ CGM_VERDICT_UNOBSERVED, "Unobserved",
		  "the window or the calls observed are too few to tell (--min-window, --min-calls)" },
		{ CGM_VERDICT_UNTRACEABLE, "Untraceable",
		  "their calls cannot be seen in the mode the data was taken in (an SQL function "
		  "under cgmap_trace.track = plpgsql is inlined)" },
		{ CGM_VERDICT_DYNAMIC_REACHABLE, "Dynamic-reachable",
		  "a dynamic SQL site may call them (possible targets of its template)" },
	};
	for (size_t k = 0; ctx->model->has_runtime && k < sizeof others / sizeof others[0]; k++) {
		int count = 0;
		for (int i = 0; i < ctx->nuser; i++)
			count += ctx->model->functions[i].verdict == others[k].verdict;
		if (!count)
			continue;
		cgm_strbuf_printf(&b, "<h2>%s (%d)</h2>\n<p>Never called and unreachable, but not "
				      "called dead: %s.</p>\n",
				  others[k].title, count, others[k].why);
		function_rows_begin(&b);
		for (int i = 0; i < ctx->nuser; i++)
			if (ctx->model->functions[i].verdict == others[k].verdict)
				function_row(&b, ctx, i);
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	int nuncalled = 0;
	for (int i = 0; i < ctx->nuser; i++)
		nuncalled += !ctx->model->functions[i].dead && uncalled(ctx, i);
	cgm_strbuf_printf(&b, "<h2>Not called by any mapped function (%d)</h2>\n<p>Functions that "
			      "are not marked dead but that no other mapped function calls and no "
			      "trigger, catalog object or entry point uses: candidates, if no client "
			      "calls them either.</p>\n",
			  nuncalled);
	if (nuncalled) {
		function_rows_begin(&b);
		for (int i = 0; i < ctx->nuser; i++)
			if (!ctx->model->functions[i].dead && uncalled(ctx, i))
				function_row(&b, ctx, i);
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	return report_end(&b, ctx, "dead.html");
}

static int report_cold(const html_ctx *ctx, const totals *t)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Cold functions", t->cold,
		     "Functions that are reachable but were never called while runtime data was "
		     "collected.");
	if (!ctx->model->has_runtime)
		cgm_strbuf_puts(&b, "<p class=\"warn\">No runtime data was merged, so no function "
				    "can be cold.</p>\n");
	if (t->cold) {
		function_rows_begin(&b);
		for (int i = 0; i < ctx->nuser; i++)
			if (ctx->model->functions[i].cold)
				function_row(&b, ctx, i);
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	return report_end(&b, ctx, "cold.html");
}

static void site_cell(cgm_strbuf *b, const html_ctx *ctx, int fn, int line)
{
	cgm_strbuf_puts(b, "<td>");
	html_fn_link(b, ctx, fn, "../");
	cgm_strbuf_puts(b, "</td><td class=\"num\">");
	if (line > 0) {
		cgm_strbuf_puts(b, "<a href=\"");
		html_fn_href(b, ctx, fn, "../");
		cgm_strbuf_printf(b, "#L%d\">%d</a>", line, line);
	} else {
		cgm_strbuf_puts(b, "\xE2\x80\x94");
	}
	cgm_strbuf_puts(b, "</td>");
}

static int report_dynamic(const html_ctx *ctx, const totals *t)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Unseen dynamic SQL sites", dynamic_unseen(t),
		     "EXECUTE statements whose SQL is built at runtime, so only runtime "
		     "observation tells which functions they call. A site is seen when a call "
		     "made from its line was observed; one whose SQL can call no user function "
		     "(a DDL or utility statement) has nothing to be seen; with cgmap_trace 1.4, "
		     "a site that ran without calling a user function is told apart from one "
		     "that never ran.");
	if (!m->has_runtime)
		cgm_strbuf_puts(&b, "<p class=\"warn\">No runtime data was merged, so no dynamic "
				    "site could be seen.</p>\n");
	cgm_dynsql_reader *reader = NULL;
	/* Unseen, ran without a call (when runs were counted), can call none, seen. */
	static const cgm_dynamic_state order[] = { CGM_DYN_UNSEEN, CGM_DYN_RAN, CGM_DYN_CALLS_NONE,
						    CGM_DYN_OBSERVED };
	for (int pass = 0; pass < 4; pass++) {
		cgm_dynamic_state want = order[pass];
		if (want == CGM_DYN_RAN && !m->has_site_runs)
			continue;
		int n = want == CGM_DYN_OBSERVED     ? t->dynamic_seen
			: want == CGM_DYN_RAN    ? t->dynamic_ran
			: want == CGM_DYN_CALLS_NONE ? t->dynamic_silent
					     : dynamic_unseen(t);
		if (want == CGM_DYN_RAN)
			cgm_strbuf_printf(&b, "<h2>Dynamic sites that ran without calling a user "
					      "function (%d)</h2>\n", n);
		if (want == CGM_DYN_CALLS_NONE)
			cgm_strbuf_printf(&b, "<h2>Dynamic sites whose SQL can call no user function "
					      "(%d)</h2>\n", n);
		if (want == CGM_DYN_OBSERVED)
			cgm_strbuf_printf(&b, "<h2>Seen dynamic sites and where they went (%d)</h2>\n",
					  n);
		if (n == 0) {
			cgm_strbuf_puts(&b, "<p class=\"muted\">None.</p>\n");
			continue;
		}
		bool with_runs = m->has_site_runs && want != CGM_DYN_UNSEEN;
		cgm_strbuf_printf(&b, "<table class=\"sortable\"><thead><tr><th>function</th>"
				      "<th class=\"num\">line</th><th>statement</th><th>EXECUTE "
				      "expression</th>%s%s</tr></thead><tbody>\n",
				  with_runs ? "<th class=\"num\">runs</th>" : "",
				  want == CGM_DYN_OBSERVED ? "<th>observed targets</th>" : "");
		for (int i = 0; i < ctx->nuser; i++) {
			const cgm_function *f = &m->functions[i];
			for (int s = 0; s < f->nsites; s++) {
				const cgm_site *site = &f->sites[s];
				if (site->kind != CGM_SITE_DYNAMIC ||
				    dynamic_state(ctx, &reader, i, site) != want)
					continue;
				cgm_strbuf_puts(&b, "<tr>");
				site_cell(&b, ctx, i, site->line);
				cgm_strbuf_puts(&b, "<td>");
				html_text(&b, site->stmt ? site->stmt : "");
				cgm_strbuf_puts(&b, "</td><td><code>");
				html_text(&b, cgm_site_get_rare(site)->text ? cgm_site_get_rare(site)->text : "");
				cgm_strbuf_puts(&b, "</code></td>");
				if (with_runs)
					cgm_strbuf_printf(&b, "<td class=\"num\">%lld</td>",
							  (long long)cgm_site_get_rare(site)->runs);
				if (want == CGM_DYN_OBSERVED) {
					cgm_strbuf_puts(&b, "<td>");
					int shown = 0;
					for (int k = ctx->out_start[i]; k < ctx->out_start[i + 1]; k++) {
						const cgm_edge *e = &m->edges[ctx->out_list[k]];
						if (e->via != CGM_VIA_DYNAMIC ||
						    !(e->provenance & CGM_EDGE_OBSERVED))
							continue;
						for (int l = 0; l < e->nlines; l++)
							if (e->lines[l] == site->line) {
								cgm_strbuf_puts(&b, shown++ ? "<br>" : "");
								html_fn_link(&b, ctx, e->to, "../");
								cgm_strbuf_printf(&b, " <span class=\"muted\">"
										      "%lld calls</span>",
										  (long long)cgm_edge_runtime(e)->calls);
								break;
							}
					}
					cgm_strbuf_puts(&b, "</td>");
				}
				cgm_strbuf_puts(&b, "</tr>\n");
			}
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	cgm_dynsql_reader_free(reader);
	return report_end(&b, ctx, "dynamic.html");
}

static int report_unexplained(const html_ctx *ctx, const totals *t)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Unexplained runtime edges", t->unexplained,
		     "Calls observed at runtime that the static analysis did not find and that "
		     "did not come from a dynamic EXECUTE: each is a miss of the static side "
		     "worth a look.");
	if (!m->has_runtime)
		cgm_strbuf_puts(&b, "<p class=\"warn\">No runtime data was merged, so there is "
				    "nothing to explain.</p>\n");
	if (t->unexplained) {
		cgm_strbuf_puts(&b, "<table class=\"sortable\"><thead><tr><th>caller</th>"
				    "<th>callee</th><th>via</th><th>lines</th><th class=\"num\">calls"
				    "</th><th class=\"num\">total ms</th></tr></thead><tbody>\n");
		for (int i = 0; i < ctx->nuser; i++)
			for (int k = ctx->out_start[i]; k < ctx->out_start[i + 1]; k++) {
				const cgm_edge *e = &m->edges[ctx->out_list[k]];
				if (!cgm_edge_unexplained(e))
					continue;
				cgm_strbuf_puts(&b, "<tr><td>");
				html_fn_link(&b, ctx, e->from, "../");
				cgm_strbuf_puts(&b, "</td><td>");
				html_fn_link(&b, ctx, e->to, "../");
				cgm_strbuf_printf(&b, "</td><td>%s</td><td>", cgm_via_name(e->via));
				for (int l = 0, nknown = 0; l < e->nlines; l++) {
					if (e->lines[l] <= 0)
						continue;
					cgm_strbuf_puts(&b, nknown++ ? ", " : "");
					cgm_strbuf_puts(&b, "<a href=\"");
					html_fn_href(&b, ctx, e->from, "../");
					cgm_strbuf_printf(&b, "#L%d\">%d</a>", e->lines[l], e->lines[l]);
				}
				cgm_strbuf_printf(&b, "</td><td class=\"num\">%lld</td><td class=\"num\">",
						  (long long)cgm_edge_runtime(e)->calls);
				html_ms(&b, cgm_edge_runtime(e)->total_ms);
				cgm_strbuf_puts(&b, "</td></tr>\n");
			}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	return report_end(&b, ctx, "unexplained.html");
}

static int report_missing(const html_ctx *ctx, const totals *t)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Missing callees", t->missing,
		     "Calls to functions that do not exist with that name and those arguments: "
		     "they fail when the line runs.");
	if (t->missing) {
		cgm_strbuf_puts(&b, "<table class=\"sortable\"><thead><tr><th>function</th>"
				    "<th class=\"num\">line</th><th>callee as written</th>"
				    "<th class=\"num\">arguments</th></tr></thead><tbody>\n");
		for (int i = 0; i < ctx->nuser; i++) {
			const cgm_function *f = &m->functions[i];
			for (int s = 0; s < f->nsites; s++) {
				const cgm_site *site = &f->sites[s];
				if (!cgm_site_missing(site)) /* a handled one is on its function's page */
					continue;
				cgm_strbuf_puts(&b, "<tr>");
				site_cell(&b, ctx, i, site->line);
				cgm_strbuf_puts(&b, "<td><code>");
				if (site->schema) {
					html_text(&b, site->schema);
					cgm_strbuf_puts(&b, ".");
				}
				html_text(&b, site->name ? site->name : "?");
				cgm_strbuf_printf(&b, "</code></td><td class=\"num\">%d</td></tr>\n",
						  site->nargs);
			}
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	return report_end(&b, ctx, "missing.html");
}

static int report_errors(const html_ctx *ctx, const totals *t)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Parse errors", t->parse_errors + t->diagnostics,
		     "Function bodies that did not parse (their calls may be incomplete) and "
		     "problems that belong to no single function.");
	if (t->parse_errors) {
		cgm_strbuf_puts(&b, "<h2>Function bodies</h2>\n<table class=\"sortable\"><thead><tr>"
				    "<th>function</th><th class=\"num\">line</th><th>message</th></tr>"
				    "</thead><tbody>\n");
		for (int i = 0; i < ctx->nuser; i++) {
			const cgm_function *f = &m->functions[i];
			for (int e = 0; e < f->nerrors; e++) {
				cgm_strbuf_puts(&b, "<tr>");
				site_cell(&b, ctx, i, f->errors[e].line);
				cgm_strbuf_puts(&b, "<td>");
				html_text(&b, f->errors[e].message);
				cgm_strbuf_puts(&b, "</td></tr>\n");
			}
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	if (t->diagnostics) {
		cgm_strbuf_puts(&b, "<h2>Other problems</h2>\n<table><thead><tr><th>file</th>"
				    "<th class=\"num\">line</th><th>message</th></tr></thead><tbody>\n");
		for (int d = 0; d < m->ndiagnostics; d++) {
			const cgm_diagnostic *dg = &m->diagnostics[d];
			cgm_strbuf_puts(&b, "<tr><td>");
			html_text(&b, dg->file ? dg->file : "\xE2\x80\x94");
			/* Line 0: of the whole file, no place in it. */
			if (dg->line > 0)
				cgm_strbuf_printf(&b, "</td><td class=\"num\">%d</td><td>", dg->line);
			else
				cgm_strbuf_puts(&b, "</td><td class=\"num\"></td><td>");
			html_text(&b, dg->message);
			cgm_strbuf_puts(&b, "</td></tr>\n");
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	return report_end(&b, ctx, "errors.html");
}

static int report_cycles(const html_ctx *ctx, const totals *t)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	report_begin(&b, ctx, "Cycles", t->cycles,
		     "Groups of functions that call each other in a circle (recursion), found as "
		     "strongly connected components of the call graph.");
	if (!ctx->scc_from_model && t->cycles)
		cgm_strbuf_puts(&b, "<p class=\"muted\">The map carries no recursion analysis; "
				    "these components were computed from its edges.</p>\n");
	if (t->cycles) {
		/* Components are numbered by their first member, so one pass over
		 * the functions per component lists them in order. */
		int *first = calloc((size_t)t->cycles + 1, sizeof(int));
		int *size = calloc((size_t)t->cycles + 1, sizeof(int));
		if (!first || !size)
			abort();
		for (int c = 0; c < t->cycles; c++)
			first[c] = -1;
		for (int i = 0; i < ctx->nfn; i++)
			if (ctx->scc[i] >= 0) {
				if (first[ctx->scc[i]] < 0)
					first[ctx->scc[i]] = i;
				size[ctx->scc[i]]++;
			}
		cgm_strbuf_puts(&b, "<table><thead><tr><th class=\"num\">cycle</th><th class=\"num\">"
				    "functions</th><th>members</th></tr></thead><tbody>\n");
		for (int c = 0; c < t->cycles; c++) {
			cgm_strbuf_printf(&b, "<tr><td class=\"num\" id=\"cycle%d\">%d</td><td "
					      "class=\"num\">%d</td><td>",
					  c + 1, c + 1, size[c]);
			int shown = 0;
			for (int i = first[c] < 0 ? ctx->nfn : first[c]; i < ctx->nfn; i++)
				if (ctx->scc[i] == c) {
					cgm_strbuf_puts(&b, shown++ ? "<br>" : "");
					html_fn_link(&b, ctx, i, "../");
				}
			cgm_strbuf_puts(&b, "</td></tr>\n");
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
		free(first), free(size);
	}
	return report_end(&b, ctx, "cycles.html");
}

int html_write_reports(const html_ctx *ctx)
{
	totals t;
	count_totals(&t, ctx);
	int rc = report_dead(ctx, &t);
	if (!rc)
		rc = report_cold(ctx, &t);
	if (!rc)
		rc = report_dynamic(ctx, &t);
	if (!rc)
		rc = report_unexplained(ctx, &t);
	if (!rc)
		rc = report_missing(ctx, &t);
	if (!rc)
		rc = report_errors(ctx, &t);
	if (!rc)
		rc = report_cycles(ctx, &t);
	return rc;
}
