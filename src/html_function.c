/*
 * html_function.c - one page per function: signature, status, runtime
 * figures, callers and callees with their call-site lines and provenance,
 * the neighbourhood graph, and the source with line numbers where every
 * call site links to its target.
 *
 * In:  the html_ctx (read-only), a worker's graph scratch, a function index.
 * Out: functions/<page>.html and dot/functions/<page>.dot; 0 or CGM_E*.
 */
#include "html_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/runtime.h"

/* Possible targets of a dynamic site listed in its row; the rest counted. */
#define POSSIBLE_SHOWN 10

static void fact(cgm_strbuf *b, const char *term, const char *text)
{
	cgm_strbuf_printf(b, "<dt>%s</dt><dd>", term);
	html_text(b, text);
	cgm_strbuf_puts(b, "</dd>\n");
}

/* Names as a search_path setting lists them, each quoted when it must be. */
static void search_path_text(cgm_strbuf *b, const char *const *path, int n)
{
	cgm_strbuf text = CGM_STRBUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			cgm_strbuf_puts(&text, ", ");
		bool plain = path[i][0] != '\0' && strspn(path[i], "abcdefghijklmnopqrstuvwxyz"
								"0123456789_$") == strlen(path[i]) &&
			     !(path[i][0] >= '0' && path[i][0] <= '9');
		if (plain) {
			cgm_strbuf_puts(&text, path[i]);
			continue;
		}
		cgm_strbuf_putc(&text, '"');
		for (const char *c = path[i]; *c; c++) {
			if (*c == '"')
				cgm_strbuf_putc(&text, '"');
			cgm_strbuf_putc(&text, *c);
		}
		cgm_strbuf_putc(&text, '"');
	}
	html_text(b, cgm_strbuf_cstr(&text));
	cgm_strbuf_free(&text);
}

static void signature(cgm_strbuf *b, const cgm_function *f)
{
	static const char *const words[] = { "FUNCTION", "PROCEDURE", "AGGREGATE", "FUNCTION" };
	cgm_strbuf_printf(b, "<pre class=\"signature\">CREATE %s%s ",
			  f->kind == CGM_KIND_WINDOW ? "WINDOW " : "",
			  words[f->kind <= CGM_KIND_WINDOW ? f->kind : 0]);
	/* The id is the qualified name with argument types; the full argument
	 * list (names, modes, defaults) reads better when known. */
	if (f->arguments) {
		const char *paren = strrchr(f->id, '(');
		cgm_strbuf raw = CGM_STRBUF_INIT;
		cgm_strbuf_add(&raw, f->id, paren ? (size_t)(paren - f->id) : strlen(f->id));
		cgm_strbuf_printf(&raw, "(%s)", f->arguments);
		html_text(b, cgm_strbuf_cstr(&raw));
		cgm_strbuf_free(&raw);
	} else {
		html_text(b, f->id);
	}
	if (f->result && f->kind != CGM_KIND_PROCEDURE) {
		cgm_strbuf_puts(b, "\n  RETURNS ");
		html_text(b, f->result);
	}
	cgm_strbuf_puts(b, "\n  LANGUAGE ");
	html_text(b, f->language ? f->language : "?");
	if (f->npath >= 0 && f->search_path) {
		cgm_strbuf_puts(b, "\n  SET search_path = ");
		search_path_text(b, f->search_path, f->npath);
	}
	cgm_strbuf_puts(b, "</pre>\n");
}


static void runtime_figures(cgm_strbuf *b, const html_ctx *ctx, const cgm_function *f)
{
	const cgm_model *m = ctx->model;
	/* Without runtime data the status says so (status_section). */
	if (!m->has_runtime)
		return;
	cgm_strbuf_puts(b, "<h2 id=\"runtime\">Runtime</h2>\n");
	if (f->runtime.calls == 0) {
		cgm_strbuf_puts(b, "<p>Never called while runtime data was collected");
		if (m->runtime_window) {
			cgm_strbuf_puts(b, " (");
			html_text(b, m->runtime_window);
			cgm_strbuf_puts(b, ")");
		}
		cgm_strbuf_puts(b, ".</p>\n");
		return;
	}
	cgm_strbuf_printf(b, "<div class=\"cards\"><div class=\"card\"><span class=\"n\">%lld</span>"
			     "calls</div><div class=\"card\"><span class=\"n\">",
			  (long long)f->runtime.calls);
	html_ms(b, f->runtime.self_ms);
	cgm_strbuf_puts(b, " ms</span>self time</div><div class=\"card\"><span class=\"n\">");
	html_ms(b, f->runtime.total_ms);
	cgm_strbuf_puts(b, " ms</span>total time</div><div class=\"card\"><span class=\"n\">");
	html_ms(b, f->runtime.total_ms / (double)f->runtime.calls);
	cgm_strbuf_puts(b, " ms</span>total per call</div></div>\n");
	if (m->runtime_window) {
		cgm_strbuf_puts(b, "<p class=\"muted\">Observed: ");
		html_text(b, m->runtime_window);
		cgm_strbuf_puts(b, "</p>\n");
	}
}

/* Callers (up) or callees of fn: the table's head; its rows are in the
 * page's data (html_pagedata.c), which the page's script turns into rows. */
static void edge_table(cgm_strbuf *b, const html_ctx *ctx, int fn, bool up)
{
	const int *start = up ? ctx->in_start : ctx->out_start;
	int n = start[fn + 1] - start[fn];
	cgm_strbuf_printf(b, "<h2 id=\"%s\">%s (%d)</h2>\n", up ? "callers" : "callees",
			  up ? "Callers" : "Callees", up ? ctx->ncallers[fn] : ctx->ncallees[fn]);
	if (n == 0) {
		cgm_strbuf_printf(b, "<p class=\"muted\">%s</p>\n",
				  up ? "No mapped function calls it."
				     : "It calls no mapped function.");
		return;
	}
	/* The head and rows are the script's (the calls and time columns only
	 * with runtime data). */
	cgm_strbuf_printf(b, "<table class=\"sortable\" data-rows=\"%c\"></table>\n", up ? 'c' : 'd');
}

static void site_callee_text(cgm_strbuf *raw, const cgm_site *site)
{
	if (site->schema)
		cgm_strbuf_printf(raw, "%s.", site->schema);
	cgm_strbuf_puts(raw, site->name ? site->name : "?");
}

/* What a dynamic site may call, read from its template before it runs
 * (src/dynsql.c): its statement kind, and the functions it may name.
 * key, for the page's key: what the graph draws of them besides (they are
 * drawn as callees, and deeper graphs draw their edges too), so that the
 * template is read once for both. */
static void possible_targets_cell(cgm_strbuf *b, const html_ctx *ctx, html_pagedata *pd,
				  html_graph_scratch *scratch, const cgm_site *site, uint64_t *key)
{
	cgm_dynsql_info info;
	cgm_dynsql_read_with(&info, html_graph_dynsql(scratch, ctx), site);
	if (key) {
		const uint64_t *of = ctx->opts.depth > 1 ? ctx->hood : ctx->shown;
		*key = html_key_u64(*key, (uint64_t)info.total);
		for (int t = 0; t < info.ntargets; t++) {
			int target = info.targets[t];
			*key = html_key_u64(*key, target >= 0 && target < ctx->nfn ? of[target] : 0);
		}
	}
	if (!info.can_call) {
		cgm_strbuf_puts(b, "<span class=\"muted\">none: ");
		html_text(b, info.statement ? info.statement : "this statement");
		cgm_strbuf_puts(b, " calls no user function</span>");
	} else if (info.total == 0) {
		cgm_strbuf_puts(b, "<span class=\"muted\">not known before it runs</span>");
	} else {
		int shown = info.ntargets < POSSIBLE_SHOWN ? info.ntargets : POSSIBLE_SHOWN;
		for (int t = 0; t < shown; t++) {
			cgm_strbuf_puts(b, t ? "<br>" : "");
			html_fn_ref(b, ctx, pd, info.targets[t]);
		}
		if (info.total > shown)
			cgm_strbuf_printf(b, "<br><span class=\"muted\">+%d more</span>",
					  info.total - shown);
	}
	cgm_dynsql_info_free(&info);
}

/* pd NULL: for the page's key (into *key), function links written whole. */
/* Why a missing callee's absence is expected (cgm_site_missing_handled),
 * as text safe in an element and in an attribute. */
static void html_expected_why(cgm_strbuf *b, const cgm_site *site)
{
	const char *needs = cgm_site_get_rare(site)->requires_extension;
	if (needs) {
		cgm_strbuf_puts(b, "it runs only when extension ");
		html_text(b, needs);
		cgm_strbuf_puts(b, " is installed, and it is not");
	} else {
		cgm_strbuf_puts(b, "the block around the call catches undefined_function");
	}
}

static void problem_sites(cgm_strbuf *b, const html_ctx *ctx, html_pagedata *pd,
			  html_graph_scratch *scratch, int fn, uint64_t *key)
{
	const cgm_model *m = ctx->model;
	const cgm_function *f = &m->functions[fn];
	int nmissing = 0, ndyn = 0;
	for (int i = 0; i < f->nsites; i++) {
		nmissing += f->sites[i].resolution == CGM_RES_MISSING;
		ndyn += f->sites[i].kind == CGM_SITE_DYNAMIC;
	}
	if (nmissing) {
		cgm_strbuf_printf(b, "<h2 id=\"missing\">Missing callees (%d)</h2>\n"
				     "<p>Calls to functions that do not exist with that name and "
				     "those arguments.</p>\n<table><thead><tr><th class=\"num\">line</th>"
				     "<th>callee as written</th><th class=\"num\">arguments</th></tr>"
				     "</thead><tbody>\n",
				  nmissing);
		for (int i = 0; i < f->nsites; i++) {
			const cgm_site *site = &f->sites[i];
			if (site->resolution != CGM_RES_MISSING)
				continue;
			cgm_strbuf raw = CGM_STRBUF_INIT;
			site_callee_text(&raw, site);
			cgm_strbuf_printf(b, "<tr><td class=\"num\"><a href=\"#L%d\">%d</a></td><td><code>",
					  site->line, site->line);
			html_text(b, cgm_strbuf_cstr(&raw));
			cgm_strbuf_puts(b, "</code>");
			if (site->handles_missing) {
				cgm_strbuf_puts(b, " <span class=\"muted\">expected: ");
				html_expected_why(b, site);
				cgm_strbuf_puts(b, "</span>");
			}
			cgm_strbuf_printf(b, "</td><td class=\"num\">%d</td></tr>\n", site->nargs);
			cgm_strbuf_free(&raw);
		}
		cgm_strbuf_puts(b, "</tbody></table>\n");
	}
	if (ndyn) {
		cgm_strbuf_printf(b, "<h2 id=\"dynamic\">Dynamic EXECUTE sites (%d)</h2>\n", ndyn);
		if (!m->has_runtime)
			cgm_strbuf_puts(b, "<p class=\"note\">No runtime data was merged, so where "
					   "these statements go is unknown.</p>\n");
		cgm_strbuf_puts(b, "<table><thead><tr><th class=\"num\">line</th><th>statement</th>"
				   "<th>EXECUTE expression</th><th>observed targets</th>"
				   "<th>possible targets</th></tr></thead>"
				   "<tbody>\n");
		for (int i = 0; i < f->nsites; i++) {
			const cgm_site *site = &f->sites[i];
			if (site->kind != CGM_SITE_DYNAMIC)
				continue;
			cgm_strbuf_printf(b, "<tr><td class=\"num\"><a href=\"#L%d\">%d</a></td><td>",
					  site->line, site->line);
			html_text(b, site->stmt ? site->stmt : "");
			cgm_strbuf_puts(b, "</td><td><code>");
			html_text(b, cgm_site_get_rare(site)->text ? cgm_site_get_rare(site)->text : "");
			cgm_strbuf_puts(b, "</code></td><td>");
			int shown = 0;
			for (int k = ctx->out_start[fn]; k < ctx->out_start[fn + 1]; k++) {
				const cgm_edge *e = &m->edges[ctx->out_list[k]];
				if (e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
					continue;
				bool match = false;
				for (int l = 0; l < e->nlines && !match; l++)
					match = e->lines[l] == site->line;
				if (!match)
					continue;
				cgm_strbuf_puts(b, shown++ ? "<br>" : "");
				html_fn_ref(b, ctx, pd, e->to);
				cgm_strbuf_printf(b, " <span class=\"muted\">%lld calls</span>",
						  (long long)cgm_edge_runtime(e)->calls);
			}
			if (!shown)
				cgm_strbuf_printf(b, "<span class=\"badge error\">%s</span>",
						  m->has_runtime ? "never observed" : "unknown");
			cgm_strbuf_puts(b, "</td><td>");
			possible_targets_cell(b, ctx, pd, scratch, site, key);
			cgm_strbuf_puts(b, "</td></tr>\n");
		}
		cgm_strbuf_puts(b, "</tbody></table>\n");
	}
}

/* ---- source with linked call sites ---- */

typedef struct span {
	size_t start, end; /* byte range in the line */
	const cgm_site *site;
} span;

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* First occurrence of name in line[from..len) as a whole identifier,
 * ignoring case (PostgreSQL folds unquoted names); SIZE_MAX when none. */
static size_t find_token(const char *line, size_t len, size_t from, const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > len)
		return (size_t)-1;
	for (size_t i = from; i + n <= len; i++) {
		if (strncasecmp(line + i, name, n) != 0)
			continue;
		if (i > 0 && ident_char((unsigned char)line[i - 1]))
			continue;
		if (i + n < len && ident_char((unsigned char)line[i + n]))
			continue;
		return i;
	}
	return (size_t)-1;
}

static void link_open(cgm_strbuf *b, html_pagedata *pd, const cgm_site *site)
{
	const html_ctx *ctx = pd->ctx;
	const cgm_model *m = ctx->model;
	switch (site->resolution) {
	case CGM_RES_MISSING:
		cgm_strbuf_printf(b, "<span class=\"missing\" title=\"missing callee: no such "
				     "function with %d argument%s",
				  site->nargs, site->nargs == 1 ? "" : "s");
		if (site->handles_missing) {
			cgm_strbuf_puts(b, " (expected: ");
			html_expected_why(b, site);
			cgm_strbuf_puts(b, ")");
		}
		cgm_strbuf_puts(b, "\">");
		return;
	case CGM_RES_NOT_UNIQUE:
		cgm_strbuf_puts(b, "<span class=\"missing\" title=\"not unique: ");
		for (int k = 0; k < site->ntargets; k++) {
			if (k)
				cgm_strbuf_puts(b, " and ");
			if (site->targets[k] >= 0 && site->targets[k] < m->nfunctions)
				html_text(b, m->functions[site->targets[k]].id);
		}
		cgm_strbuf_puts(b, site->kind == CGM_SITE_OPERATOR
					   ? " fit these operands equally well; PostgreSQL refuses the "
					     "operator\">"
					   : " take these arguments as the same types; PostgreSQL "
					     "refuses the call\">");
		return;
	case CGM_RES_RESOLVED:
	case CGM_RES_AMBIGUOUS:
		if (site->ntargets > 0 && site->targets[0] >= 0 && site->targets[0] < ctx->nuser) {
			/* The target by its index in the page's data: the script
			 * makes the link, and a plain call's title, its target's
			 * id (links were a third of a busy body's source view). */
			cgm_strbuf_printf(b, "<a data-f=\"%d\"", html_pagedata_fn(pd, site->targets[0]));
			bool plain = cgm_site_target_via(site, 0) != CGM_VIA_TRIGGER &&
				     !cgm_site_target_object(site, 0) &&
				     site->resolution != CGM_RES_AMBIGUOUS;
			if (plain) {
				cgm_strbuf_putc(b, '>');
				return;
			}
			cgm_strbuf_puts(b, " title=\"");
			if (cgm_site_target_via(site, 0) == CGM_VIA_TRIGGER)
				cgm_strbuf_puts(b, "fires trigger function ");
			else if (cgm_site_target_object(site, 0)) {
				/* Run on a statement's behalf: "through view app.v: ..." */
				cgm_strbuf_puts(b, "through ");
				html_text(b, cgm_site_target_object(site, 0));
				cgm_strbuf_puts(b, ": ");
			}
			html_text(b, m->functions[site->targets[0]].id);
			if (site->resolution == CGM_RES_AMBIGUOUS)
				cgm_strbuf_printf(b, " (one of %d candidates)", site->ntargets);
			cgm_strbuf_puts(b, "\">");
			return;
		}
		break;
	default:
		break;
	}
	cgm_strbuf_puts(b, "<span>");
}

static bool link_is_anchor(const html_ctx *ctx, const cgm_site *site)
{
	return (site->resolution == CGM_RES_RESOLVED || site->resolution == CGM_RES_AMBIGUOUS) &&
	       site->ntargets > 0 && site->targets[0] >= 0 && site->targets[0] < ctx->nuser;
}

/* The marks after a line: targets of sites whose name was not found in the
 * text, every candidate of an ambiguous site, dynamic sites. */
static void line_marks(cgm_strbuf *b, html_pagedata *pd, int fn, const cgm_site *site,
		       bool placed)
{
	const html_ctx *ctx = pd->ctx;
	const cgm_model *m = ctx->model;
	if (site->kind == CGM_SITE_DYNAMIC) {
		bool seen = html_dynamic_seen(ctx, fn, site);
		cgm_strbuf_printf(b, "<span class=\"mark%s\">\xE2\x97\x86 dynamic %s: ",
				  seen ? "" : " unseen", cgm_dynamic_site_verb(site));
		if (!m->has_runtime) {
			cgm_strbuf_puts(b, "target unknown (no runtime data)</span>");
			return;
		}
		int64_t runs = cgm_site_get_rare(site)->runs;
		if (!seen && runs > 0) {
			cgm_strbuf_printf(b, "ran %lld time%s, calling no user function%s</span>",
					  (long long)runs, runs == 1 ? "" : "s",
					  cgm_dynamic_site_has_static_calls(&m->functions[fn], site)
						  ? " beyond its static calls"
						  : "");
			return;
		}
		if (!seen) {
			cgm_strbuf_puts(b, m->has_site_runs ? "never ran</span>" : "never observed</span>");
			return;
		}
		cgm_strbuf_puts(b, "observed \xE2\x86\x92 ");
		int shown = 0;
		for (int k = ctx->out_start[fn]; k < ctx->out_start[fn + 1]; k++) {
			const cgm_edge *e = &m->edges[ctx->out_list[k]];
			if (e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
				continue;
			for (int l = 0; l < e->nlines; l++)
				if (e->lines[l] == site->line) {
					cgm_strbuf_puts(b, shown++ ? ", " : "");
					html_fn_ref(b, ctx, pd, e->to);
					break;
				}
		}
		cgm_strbuf_puts(b, "</span>");
		return;
	}
	/* pg_catalog calls: their targets live in the model only while mapping
	 * (a snapshot keeps them only with --include-builtins); nothing to say. */
	if (site->resolution == CGM_RES_BUILTIN)
		return;
	bool ambiguous = site->resolution == CGM_RES_AMBIGUOUS && site->ntargets > 1;
	if (placed && !ambiguous)
		return;
	if (site->resolution == CGM_RES_MISSING) {
		cgm_strbuf_puts(b, "<span class=\"mark unseen\">missing callee ");
		cgm_strbuf raw = CGM_STRBUF_INIT;
		site_callee_text(&raw, site);
		html_text(b, cgm_strbuf_cstr(&raw));
		cgm_strbuf_free(&raw);
		if (site->handles_missing) {
			cgm_strbuf_puts(b, " (expected: ");
			html_expected_why(b, site);
			cgm_strbuf_puts(b, ")");
		}
		cgm_strbuf_puts(b, "</span>");
		return;
	}
	if (site->ntargets == 0)
		return;
	cgm_strbuf_printf(b, "<span class=\"mark\">%s\xE2\x86\x92 ",
			  ambiguous ? "ambiguous: "
			  : site->kind == CGM_SITE_TRIGGER ? "trigger "
			  : site->kind == CGM_SITE_RELATION ? "through the relation "
			  : site->kind == CGM_SITE_DDL ? "event trigger "
							: "");
	for (int t = 0; t < site->ntargets; t++) {
		cgm_strbuf_puts(b, t ? ", " : "");
		html_fn_ref(b, ctx, pd, site->targets[t]);
	}
	cgm_strbuf_puts(b, "</span>");
}

static int compare_spans(const void *a, const void *b)
{
	const span *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

static void source_view(cgm_strbuf *b, html_pagedata *pd, int fn)
{
	const html_ctx *ctx = pd->ctx;
	const cgm_function *f = &ctx->model->functions[fn];
	cgm_strbuf_puts(b, "<h2 id=\"source\">Source</h2>\n");
	if (!f->source) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No source text: ");
		html_text(b, f->language ? f->language : "this");
		cgm_strbuf_puts(b, " functions have no body to show.</p>\n");
		return;
	}
	cgm_strbuf_puts(b, "<p class=\"muted\">");
	if (f->file) {
		cgm_strbuf_puts(b, "Defined in <code>");
		html_text(b, f->file);
		cgm_strbuf_printf(b, "</code> at line %d. ", f->file_line);
	}
	cgm_strbuf_puts(b, "Line 1 is the body's first, as in PostgreSQL's errors.");
	if (f->other_version_lines) {
		/* why a call shown here has no link */
		int n = f->other_version_lines[0];
		cgm_strbuf_puts(b, n == 1 ? " The branch on " : " The branches on ");
		for (int k = 0; k < n; k++) {
			int first = f->other_version_lines[1 + 2 * k], last = f->other_version_lines[2 + 2 * k];
			cgm_strbuf_puts(b, k == 0 ? "" : k == n - 1 ? " and " : ", ");
			if (k == 0)
				cgm_strbuf_puts(b, n == 1 && first == last ? "line " : "lines ");
			if (first == last)
				cgm_strbuf_printf(b, "%d", first);
			else
				cgm_strbuf_printf(b, "%d-%d", first, last);
		}
		cgm_strbuf_puts(b, n == 1 ? " is" : " are");
		cgm_strbuf_puts(b, " for another server version, never run on the one mapped: "
				   "their calls are not in the map.");
	}
	cgm_strbuf_puts(b, "</p>\n");
	/* Sites by line: a sorted copy of pointers (sites are in source order,
	 * but nothing downstream should depend on it). */
	int nsites = f->nsites;
	const cgm_site **by_line = calloc((size_t)nsites + 1, sizeof(*by_line));
	span *spans = calloc((size_t)nsites + 1, sizeof(span));
	bool *placed = calloc((size_t)nsites + 1, sizeof(bool));
	if (!by_line || !spans || !placed)
		abort();
	for (int i = 0; i < nsites; i++)
		by_line[i] = &f->sites[i];
	for (int i = 1; i < nsites; i++) /* insertion sort: stable, sites mostly sorted */
		for (int j = i; j > 0 && by_line[j - 1]->line > by_line[j]->line; j--) {
			const cgm_site *t = by_line[j];
			by_line[j] = by_line[j - 1];
			by_line[j - 1] = t;
		}
	/* Lines as text, one per line: the script makes each a span that the
	 * CSS numbers and #L<n> anchors (a fifth of a source view's bytes
	 * were those spans); data-dyn and data-miss name the lines with a
	 * dynamic site or a missing callee. */
	cgm_strbuf body = CGM_STRBUF_INIT, dyn_lines = CGM_STRBUF_INIT, miss_lines = CGM_STRBUF_INIT;
	cgm_strbuf *whole = b;
	b = &body;
	const char *p = f->source;
	int lineno = 0, si = 0;
	while (*p || lineno == 0) {
		lineno++;
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		size_t shown_len = len > 0 && p[len - 1] == '\r' ? len - 1 : len;
		while (si < nsites && by_line[si]->line < lineno)
			si++;
		int first = si, last = si;
		while (last < nsites && by_line[last]->line == lineno)
			last++;
		bool dyn = false, miss = false;
		int nspans = 0;
		for (int k = first; k < last; k++) {
			const cgm_site *site = by_line[k];
			placed[k] = false;
			dyn |= site->kind == CGM_SITE_DYNAMIC;
			bool refused = site->resolution == CGM_RES_MISSING ||
				       site->resolution == CGM_RES_NOT_UNIQUE;
			miss |= refused;
			if (site->kind == CGM_SITE_DYNAMIC || !site->name)
				continue;
			if (!refused && !link_is_anchor(ctx, site))
				continue;
			/* The first free occurrence of the name on the line. */
			size_t from = 0, at;
			for (;;) {
				at = find_token(p, shown_len, from, site->name);
				if (at == (size_t)-1)
					break;
				bool overlap = false;
				for (int s2 = 0; s2 < nspans && !overlap; s2++)
					overlap = at < spans[s2].end &&
						  at + strlen(site->name) > spans[s2].start;
				if (!overlap)
					break;
				from = at + 1;
			}
			if (at == (size_t)-1)
				continue;
			spans[nspans++] = (span){ at, at + strlen(site->name), site };
			placed[k] = true;
		}
		qsort(spans, (size_t)nspans, sizeof(span), compare_spans);
		if (lineno > 1)
			cgm_strbuf_putc(b, '\n');
		if (dyn)
			cgm_strbuf_printf(&dyn_lines, "%s%d", dyn_lines.len ? " " : "", lineno);
		if (miss)
			cgm_strbuf_printf(&miss_lines, "%s%d", miss_lines.len ? " " : "", lineno);
		size_t pos = 0;
		for (int s2 = 0; s2 < nspans; s2++) {
			char *seg = strndup(p + pos, spans[s2].start - pos);
			cgm_escape_html_content(b, seg);
			free(seg);
			link_open(b, pd, spans[s2].site);
			seg = strndup(p + spans[s2].start, spans[s2].end - spans[s2].start);
			cgm_escape_html_content(b, seg);
			free(seg);
			cgm_strbuf_puts(b, link_is_anchor(ctx, spans[s2].site) ? "</a>" : "</span>");
			pos = spans[s2].end;
		}
		char *rest = strndup(p + pos, shown_len - pos);
		cgm_escape_html_content(b, rest);
		free(rest);
		for (int k = first; k < last; k++)
			line_marks(b, pd, fn, by_line[k], placed[k]);
		if (!eol)
			break;
		p = eol + 1;
	}
	cgm_strbuf_puts(whole, "<pre class=\"source\"");
	if (dyn_lines.len)
		cgm_strbuf_printf(whole, " data-dyn=\"%s\"", cgm_strbuf_cstr(&dyn_lines));
	if (miss_lines.len)
		cgm_strbuf_printf(whole, " data-miss=\"%s\"", cgm_strbuf_cstr(&miss_lines));
	cgm_strbuf_putc(whole, '>');
	cgm_strbuf_add(whole, body.data ? body.data : "", body.len);
	cgm_strbuf_puts(whole, "</pre>\n");
	cgm_strbuf_free(&body), cgm_strbuf_free(&dyn_lines), cgm_strbuf_free(&miss_lines);
	free(by_line), free(spans), free(placed);
}

/* ---- the page ---- */

static void status_section(cgm_strbuf *b, const html_ctx *ctx, int fn)
{
	const cgm_model *m = ctx->model;
	cgm_strbuf_puts(b, "<dl class=\"facts\">\n<dt>status</dt><dd>");
	cgm_strbuf status = CGM_STRBUF_INIT;
	html_status_text(&status, ctx, fn);
	if (status.len)
		html_status_badges(b, ctx, fn);
	else
		cgm_strbuf_puts(b, "<span class=\"muted\">none</span>");
	cgm_strbuf_free(&status);
	if (!ctx->analysed)
		cgm_strbuf_puts(b, " <span class=\"muted\">(reachability was not analysed: no "
				   "entry, dead or cold status is known)</span>");
	cgm_strbuf_puts(b, "</dd>\n");
	if (!m->has_runtime)
		cgm_strbuf_puts(b, "<dt>runtime</dt><dd class=\"note\">no runtime data merged</dd>\n");
	const cgm_function *f = &m->functions[fn];
	if (f->owner) {
		cgm_strbuf_puts(b, "<dt>owner</dt><dd>");
		html_text(b, f->owner);
		/* Which path placed its unqualified calls, when it was the
		 * owner's (cgm_function_path): a reader would assume the
		 * database's. */
		if (f->npath < 0 && f->owner_path && !m->source.search_path_given) {
			cgm_strbuf_puts(b, "; calls placed through its sessions' search_path <code>");
			search_path_text(b, f->owner_path, f->nowner_path);
			cgm_strbuf_puts(b, "</code>");
		}
		cgm_strbuf_puts(b, "</dd>\n");
	}
	int nrefs = 0;
	for (int r = 0; r < m->nreferences; r++)
		nrefs += m->references[r].function == fn;
	if (nrefs) {
		cgm_strbuf_puts(b, "<dt>referenced by</dt><dd><ul class=\"plain\">");
		for (int r = 0; r < m->nreferences; r++) {
			const cgm_reference *ref = &m->references[r];
			if (ref->function != fn)
				continue;
			cgm_strbuf_puts(b, "<li>");
			html_text(b, ref->object_kind);
			cgm_strbuf_puts(b, ": <code>");
			html_text(b, ref->object);
			cgm_strbuf_puts(b, "</code></li>");
		}
		cgm_strbuf_puts(b, "</ul></dd>\n");
	}
	int ntrig = 0;
	for (int t = 0; t < m->ntriggers; t++)
		ntrig += m->triggers[t].function == fn;
	if (ntrig) {
		cgm_strbuf_puts(b, "<dt>fired by triggers</dt><dd><ul class=\"plain\">");
		for (int t = 0; t < m->ntriggers; t++) {
			const cgm_trigger *tr = &m->triggers[t];
			if (tr->function != fn)
				continue;
			char events[64];
			cgm_strbuf_puts(b, "<li><code>");
			html_text(b, tr->name);
			cgm_strbuf_puts(b, "</code> on <code>");
			html_text(b, tr->table_schema);
			cgm_strbuf_puts(b, ".");
			html_text(b, tr->table_name);
			cgm_strbuf_puts(b, "</code> (");
			html_text(b, cgm_events_text(events, sizeof(events), tr->events));
			cgm_strbuf_printf(b, ")%s</li>", tr->enabled ? "" : " <b>disabled</b>");
		}
		cgm_strbuf_puts(b, "</ul></dd>\n");
	}
	if (ctx->scc[fn] >= 0) {
		cgm_strbuf_puts(b, "<dt>recursive with</dt><dd>");
		int shown = 0;
		for (int i = 0; i < ctx->nfn; i++) {
			if (ctx->scc[i] != ctx->scc[fn] || i == fn)
				continue;
			if (shown == 50) {
				cgm_strbuf_puts(b, ", \xE2\x80\xA6 (<a href=\"../reports/cycles.html\">all "
						   "cycles</a>)");
				break;
			}
			cgm_strbuf_puts(b, shown++ ? ", " : "");
			html_fn_link(b, ctx, i, HTML_FN_SIBLING);
		}
		if (!shown)
			cgm_strbuf_puts(b, "itself (it calls itself)");
		cgm_strbuf_puts(b, "</dd>\n");
	}
	cgm_strbuf_puts(b, "</dl>\n");
}

/* The page down to its graph: frame, names, signature, facts, status,
 * runtime figures, profile links, timeline.  Without the frame (the head
 * and the bar every page has, which the site key and the id hash) for the
 * page's key. */
static void page_head(cgm_strbuf *b, const html_ctx *ctx, int fn, bool frame)
{
	const cgm_model *m = ctx->model;
	const cgm_function *f = &m->functions[fn];
	if (frame)
		html_page_begin(b, ctx, "../", f->id);
	const html_schema *sc = &ctx->schemas[ctx->fn_schema[fn]];
	cgm_strbuf_printf(b, "<p class=\"muted\">%s in schema <a href=\"../schemas/%s\">",
			  cgm_kind_name(f->kind), sc->page);
	html_text(b, sc->name);
	cgm_strbuf_puts(b, "</a></p>\n<h1 class=\"fn\">");
	html_text(b, f->id);
	cgm_strbuf_puts(b, "</h1>\n");
	/* The signature says its kind and language; the absence of a comment
	 * goes unsaid (a line on every page of an undocumented schema). */
	signature(b, f);
	if (f->from_extension) {
		cgm_strbuf_puts(b, "<dl class=\"facts\">\n");
		fact(b, "extension", "belongs to an extension");
		cgm_strbuf_puts(b, "</dl>\n");
	}
	if (f->comment) {
		cgm_strbuf_puts(b, "<blockquote class=\"comment\" style=\"white-space:pre-wrap\">");
		html_text(b, f->comment);
		cgm_strbuf_puts(b, "</blockquote>\n");
	}
	status_section(b, ctx, fn);
	if (f->nerrors > 0) {
		cgm_strbuf_puts(b, "<div class=\"warn\"><b>The body did not parse</b>; its calls "
				    "may be incomplete:<ul>");
		for (int i = 0; i < f->nerrors; i++) {
			cgm_strbuf_puts(b, "<li>");
			if (f->errors[i].line > 0)
				cgm_strbuf_printf(b, "<a href=\"#L%d\">line %d</a>: ", f->errors[i].line,
						  f->errors[i].line);
			html_text(b, f->errors[i].message);
			cgm_strbuf_puts(b, "</li>");
		}
		cgm_strbuf_puts(b, "</ul></div>\n");
	}
	runtime_figures(b, ctx, f);
	html_profile_function(b, ctx, fn);
	if (m->has_runtime && f->runtime.calls > 0)
		html_timeline_function(b, ctx, fn);
}

int html_write_function_page(uint64_t out_hash[2], const html_ctx *ctx, html_graph_scratch *scratch,
                             int fn)
{
	const cgm_model *m = ctx->model;
	const cgm_function *f = &m->functions[fn];
	cgm_strbuf b = CGM_STRBUF_INIT, dot = CGM_STRBUF_INIT, svg = CGM_STRBUF_INIT;
	html_graph_info info = { 0 };
	html_graph_function(&dot, &info, scratch, ctx, fn);
	html_pagedata pd;
	html_pagedata_init(&pd, ctx, fn);
	html_pagedata_edges(&pd, fn);
	int rc = CGM_EINPUT;
	if (!ctx->opts.graphviz_neighbourhoods) {
		rc = html_layout_graph(&svg, cgm_strbuf_cstr(&dot), f->id, "../functions/", &pd);
		if (rc != 0)
			cgm_error_clear(); /* a graph it does not draw: Graphviz does */
	}
	bool layered = rc == 0;
	if (rc != 0) {
		cgm_strbuf_reset(&svg);
		rc = html_graph_svg(&svg, scratch, cgm_strbuf_cstr(&dot), f->id);
	}

	page_head(&b, ctx, fn, true);
	cgm_strbuf_puts(&b, "<noscript><p class=\"note\">The graph, tables and links are the "
			    "page's script's.</p></noscript>\n");

	cgm_strbuf_puts(&b, "<h2 id=\"graph\">Neighbourhood</h2>\n");
	cgm_strbuf_printf(&b, "<p class=\"muted\">Callers left, callees right, up to %d call%s "
			      "away.",
			  ctx->opts.depth, ctx->opts.depth == 1 ? "" : "s");
	if (info.omitted > 0)
		cgm_strbuf_printf(&b, " <b>%d of %d shown, %d in \xE2\x80\x9C+N more\xE2\x80\x9D "
				      "nodes</b> (at most %d, %d per function past the first ring, the "
				      "busiest first).",
				  info.shown, info.shown + info.omitted, info.omitted, ctx->opts.node_cap,
				  html_graph_outer_fanout());
	cgm_strbuf_puts(&b, "</p>\n");
	/* cgmap's own layout is drawn by the script, which gives it its legend. */
	if (!layered)
		html_legend(&b, "../");
	cgm_strbuf_puts(&b, "<div class=\"graph\">\n");
	if (rc == 0)
		cgm_strbuf_add(&b, svg.data ? svg.data : "", svg.len);
	cgm_strbuf_puts(&b, "</div>\n");
	if (ctx->opts.dot_sources)
		cgm_strbuf_printf(&b, "<p class=\"muted\">DOT source: <a href=\"../dot/functions/"
				      "%.*s.dot\">dot/functions/%.*s.dot</a></p>\n",
				  (int)(strlen(ctx->page[fn]) - 5), ctx->page[fn],
				  (int)(strlen(ctx->page[fn]) - 5), ctx->page[fn]);
	edge_table(&b, ctx, fn, true);
	edge_table(&b, ctx, fn, false);
	html_function_relations(&b, &pd.relrows, ctx, fn);
	problem_sites(&b, ctx, &pd, scratch, fn, NULL);
	source_view(&b, &pd, fn);
	html_pagedata_write(&b, &pd);
	html_pagedata_free(&pd);
	html_page_end(&b, "../", true);

	if (rc == 0 && ctx->opts.dot_sources) {
		char rel[512];
		snprintf(rel, sizeof(rel), "dot/functions/%.*s.dot", (int)(strlen(ctx->page[fn]) - 5),
			 ctx->page[fn]);
		rc = html_write_file(ctx, rel, &dot);
		out_hash[1] = html_page_bytes_hash(dot.data, dot.len);
	}
	if (rc == 0) {
		char rel[512];
		snprintf(rel, sizeof(rel), "functions/%s", ctx->page[fn]);
		rc = html_write_file(ctx, rel, &b);
		out_hash[0] = html_page_bytes_hash(b.data, b.len);
	}
	cgm_strbuf_free(&b), cgm_strbuf_free(&dot), cgm_strbuf_free(&svg);
	return rc;
}

/* What the page of fn is built from, hashed (html_pagekey.c): the site's
 * part and fn's neighbourhood (graph, callers and callees tables) as
 * hashed there; the sections that show fn alone, rendered here and hashed
 * (they are small); and the inputs of the source view.  Equal keys, equal
 * pages: what the page shows is all in here. */
uint64_t html_function_page_key(const html_ctx *ctx, html_graph_scratch *scratch, int fn)
{
	const cgm_model *m = ctx->model;
	const cgm_function *f = &m->functions[fn];
	uint64_t h = html_key_u64(ctx->site_key, ctx->hood[fn]);
	cgm_strbuf b = CGM_STRBUF_INIT;
	page_head(&b, ctx, fn, false);
	html_function_relations(&b, &b, ctx, fn);
	problem_sites(&b, ctx, NULL, scratch, fn, &h);
	h = html_key_bytes(h, b.data ? b.data : "", b.len);
	cgm_strbuf_free(&b);
	/* How many distinct functions the dynamic sites may call, which the
	 * graph's "+N more possible targets" counts; which ones it draws
	 * problem_sites put in already. */
	bool dynamic = false;
	for (int i = 0; i < f->nsites && !dynamic; i++)
		dynamic = f->sites[i].kind == CGM_SITE_DYNAMIC;
	if (dynamic && ctx->model->nuser > 0) {
		unsigned char *seen = cgm_xcalloc((size_t)ctx->model->nuser, 1);
		h = html_key_u64(h, (uint64_t)html_graph_mark_possible(seen, scratch, ctx, fn));
		free(seen);
	}
	/* The source view and its sites. */
	h = html_key_source(h, f);
	h = html_key_str(h, f->file);
	h = html_key_u64(h, (uint64_t)(int64_t)f->file_line);
	h = html_key_u64(h, (uint64_t)f->nsites);
	for (int i = 0; i < f->nsites; i++) {
		const cgm_site *site = &f->sites[i];
		h = html_key_u64(h, (uint64_t)(int64_t)site->line);
		h = html_key_u64(h, (uint64_t)site->kind);
		h = html_key_u64(h, (uint64_t)site->resolution);
		h = html_key_str(h, site->schema);
		h = html_key_str(h, site->name);
		h = html_key_u64(h, (uint64_t)(int64_t)site->nargs);
		h = html_key_str(h, site->stmt);
		h = html_key_str(h, cgm_site_get_rare(site)->text);
		h = html_key_u64(h, cgm_site_get_rare(site)->events);
		h = html_key_u64(h, (uint64_t)cgm_site_get_rare(site)->runs);
		h = html_key_u64(h, (uint64_t)site->ntargets);
		for (int t = 0; t < site->ntargets; t++) {
			int target = site->targets[t];
			h = html_key_u64(h, target >= 0 && target < ctx->nfn ? ctx->shown[target] : 0);
			h = html_key_u64(h, (uint64_t)cgm_site_target_via(site, t));
			h = html_key_str(h, cgm_site_target_object(site, t));
		}
	}
	return h ? h : 1; /* 0 means no record */
}
