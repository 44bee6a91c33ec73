/*
 * html_relation.c - one page per relation that a mapped function reads or
 * writes, or that runs something on a statement's behalf (effects, table
 * triggers): who reads it, who writes it (function, events, line), and what
 * it runs (events, mechanism, object, function); the relations table of
 * the index and the "Relations" section of a function page.
 *
 * In:  the html_ctx (read-only model: relation sites of the mapped
 *      functions, model->effects, model->triggers).
 * Out: html_relations_build fills ctx->rels (malloc'd, released by
 *      html_relations_free); html_write_relation_pages writes
 *      relations/<page>.html; 0 or CGM_E*.
 */
#include "html_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/types.h"

/* One mention of a relation, before grouping. */
typedef struct mention {
	const char *schema; /* NULL when unknown */
	const char *name;
	int kind;           /* 0 site, 1 effect, 2 trigger */
	int a, b;           /* site: function, site index; effect / trigger: index */
	int seq;            /* order of discovery, which is the model's */
} mention;

static int compare_key(const char *s1, const char *n1, const char *s2, const char *n2)
{
	if (!s1 != !s2)
		return !s1 ? -1 : 1;
	int c = s1 ? strcmp(s1, s2) : 0;
	return c ? c : strcmp(n1, n2);
}

static int compare_opt(const char *x, const char *y)
{
	if (!x || !y)
		return !x && !y ? 0 : !x ? -1 : 1;
	return strcmp(x, y);
}

static int compare_uint(unsigned x, unsigned y)
{
	return x < y ? -1 : x > y ? 1 : 0;
}

/* Effects and triggers in an order of their own content, not the model's:
 * a snapshot stores them sorted, a live map in catalog order, and the page
 * must be the same after `cgmap render`. */
static int compare_effects(const cgm_effect *x, const cgm_effect *y)
{
	int c = compare_uint(x->reach, y->reach);
	if (!c)
		c = strcmp(cgm_via_name(x->via), cgm_via_name(y->via));
	if (!c)
		c = compare_opt(x->object, y->object);
	if (!c)
		c = compare_opt(x->function_id, y->function_id);
	if (!c)
		c = compare_opt(x->target_schema, y->target_schema);
	if (!c)
		c = compare_opt(x->target_relation, y->target_relation);
	if (!c)
		c = compare_uint(x->events, y->events);
	if (!c)
		c = compare_uint(x->target_events, y->target_events);
	if (!c)
		c = compare_opt(x->note, y->note);
	return c;
}

static int compare_triggers(const cgm_trigger *x, const cgm_trigger *y)
{
	int c = compare_opt(x->name, y->name);
	if (!c)
		c = compare_opt(x->function_id, y->function_id);
	if (!c)
		c = compare_uint(x->events, y->events);
	if (!c)
		c = compare_uint(x->enabled, y->enabled);
	return c;
}

static int compare_mentions(const void *p, const void *q, void *arg)
{
	const cgm_model *m = arg;
	const mention *a = p, *b = q;
	int c = compare_key(a->schema, a->name, b->schema, b->name);
	if (!c && a->kind != b->kind)
		c = a->kind - b->kind;
	if (!c && a->kind == 1)
		c = compare_effects(&m->effects[a->a], &m->effects[b->a]);
	if (!c && a->kind == 2)
		c = compare_triggers(&m->triggers[a->a], &m->triggers[b->a]);
	return c ? c : a->seq - b->seq;
}

static void quoted(cgm_strbuf *b, const char *ident)
{
	if (!cgm_ident_needs_quotes(ident)) {
		cgm_strbuf_puts(b, ident);
		return;
	}
	cgm_strbuf_putc(b, '"');
	for (const char *p = ident; *p; p++) {
		if (*p == '"')
			cgm_strbuf_putc(b, '"');
		cgm_strbuf_putc(b, *p);
	}
	cgm_strbuf_putc(b, '"');
}

/* The relation's name as SQL writes it (quoted as needed): one text per
 * relation, so the page names made from it never collide. */
static char *display_name(const char *schema, const char *name)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	if (schema) {
		quoted(&b, schema);
		cgm_strbuf_putc(&b, '.');
	}
	quoted(&b, name);
	cgm_strbuf_cstr(&b);
	return b.data;
}

static void push(mention **list, int *n, int *cap, mention m)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*list = cgm_xrealloc(*list, sizeof(mention) * (size_t)*cap);
	}
	m.seq = *n;
	(*list)[(*n)++] = m;
}

/* The model's relations ordered by (schema, name), to find each page's
 * relation kind by binary search. */
static int compare_relation_at(const void *p, const void *q, void *arg)
{
	const cgm_relation *rels = arg;
	const cgm_relation *x = &rels[*(const int *)p], *y = &rels[*(const int *)q];
	int c = compare_opt(x->schema, y->schema);
	return c ? c : compare_opt(x->name, y->name);
}

/* The relation's kind from the catalog (or the SQL files' DDL) when the
 * model knows it; 0 when the site's schema was not found. */
static char model_relkind(const cgm_model *m, const int *order, const char *schema,
			  const char *name)
{
	if (!schema || !name)
		return 0;
	int lo = 0, hi = m->nrelations;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const cgm_relation *r = &m->relations[order[mid]];
		int c = compare_opt(r->schema, schema);
		c = c ? c : compare_opt(r->name, name);
		if (c == 0)
			return r->relkind;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

const char *html_relkind_word(char relkind)
{
	switch (relkind) {
	case 'r': return "table";
	case 'p': return "partitioned table";
	case 'v': return "view";
	case 'm': return "materialized view";
	case 'f': return "foreign table";
	case 'c': return "composite type";
	default: return "relation";
	}
}

void html_relations_build(html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	mention *list = NULL;
	int n = 0, cap = 0;
	for (int f = 0; f < ctx->nuser; f++) {
		const cgm_function *fn = &m->functions[f];
		for (int s = 0; s < fn->nsites; s++)
			if (fn->sites[s].kind == CGM_SITE_RELATION && fn->sites[s].name)
				push(&list, &n, &cap,
				     (mention){ fn->sites[s].schema, fn->sites[s].name, 0, f, s, 0 });
	}
	for (int e = 0; e < m->neffects; e++)
		if (m->effects[e].relation)
			push(&list, &n, &cap,
			     (mention){ m->effects[e].schema, m->effects[e].relation, 1, e, 0, 0 });
	for (int t = 0; t < m->ntriggers; t++)
		if (m->triggers[t].table_name)
			push(&list, &n, &cap,
			     (mention){ m->triggers[t].table_schema, m->triggers[t].table_name, 2, t,
					0, 0 });
	if (n)
		qsort_r(list, (size_t)n, sizeof(mention), compare_mentions, (void *)m);
	int *order = cgm_xcalloc((size_t)m->nrelations + 1, sizeof(int));
	for (int i = 0; i < m->nrelations; i++)
		order[i] = i;
	if (m->nrelations)
		qsort_r(order, (size_t)m->nrelations, sizeof(int), compare_relation_at,
			(void *)m->relations);
	int nrels = 0;
	for (int i = 0; i < n; i++)
		if (i == 0 || compare_key(list[i - 1].schema, list[i - 1].name, list[i].schema,
					  list[i].name) != 0)
			nrels++;
	ctx->nrels = nrels;
	ctx->rels = cgm_xcalloc((size_t)nrels + 1, sizeof(html_relation));
	ctx->rel_mentions = cgm_xcalloc((size_t)n + 1, sizeof(html_rel_mention));
	int r = -1;
	for (int i = 0; i < n; i++) {
		if (i == 0 || compare_key(list[i - 1].schema, list[i - 1].name, list[i].schema,
					  list[i].name) != 0) {
			html_relation *rel = &ctx->rels[++r];
			rel->schema = list[i].schema;
			rel->name = list[i].name;
			rel->display = display_name(rel->schema, rel->name);
			cgm_strbuf b = CGM_STRBUF_INIT;
			cgm_escape_filename(&b, rel->display);
			cgm_strbuf_puts(&b, ".html");
			cgm_strbuf_cstr(&b);
			rel->page = b.data;
			rel->first = i;
			rel->relkind = model_relkind(m, order, rel->schema, rel->name);
		}
		html_relation *rel = &ctx->rels[r];
		rel->count = i + 1 - rel->first;
		ctx->rel_mentions[i] = (html_rel_mention){ list[i].kind, list[i].a, list[i].b };
		if (list[i].kind == 0) {
			unsigned ev = cgm_site_get_rare(&m->functions[list[i].a].sites[list[i].b])->events;
			rel->nreaders += (ev & CGM_EV_SELECT) != 0;
			rel->nwriters += (ev & ~(unsigned)CGM_EV_SELECT) != 0;
		} else {
			rel->nruns++;
		}
	}
	char **pages = cgm_xcalloc((size_t)nrels + 1, sizeof(char *));
	const char **names = cgm_xcalloc((size_t)nrels + 1, sizeof(char *));
	for (int k = 0; k < nrels; k++)
		pages[k] = ctx->rels[k].page, names[k] = ctx->rels[k].display;
	html_unique_pages(pages, names, nrels);
	for (int k = 0; k < nrels; k++)
		ctx->rels[k].page = pages[k];
	free(pages);
	free(names);
	free(order);
	free(list);
}

void html_relations_free(html_ctx *ctx)
{
	for (int r = 0; r < ctx->nrels; r++) {
		free(ctx->rels[r].display);
		free(ctx->rels[r].page);
	}
	free(ctx->rels);
	free(ctx->rel_mentions);
	ctx->rels = NULL;
	ctx->rel_mentions = NULL;
	ctx->nrels = 0;
}

int html_relation_find(const html_ctx *ctx, const char *schema, const char *name)
{
	if (!name)
		return -1;
	int lo = 0, hi = ctx->nrels;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		int c = compare_key(ctx->rels[mid].schema, ctx->rels[mid].name, schema, name);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void html_relation_link(cgm_strbuf *b, const html_ctx *ctx, int rel, const char *root)
{
	cgm_strbuf_printf(b, "<a class=\"rel\" href=\"%srelations/%s\">", root, ctx->rels[rel].page);
	html_text(b, ctx->rels[rel].display);
	cgm_strbuf_puts(b, "</a>");
}

static void events_cell(cgm_strbuf *b, unsigned events)
{
	char text[64];
	cgm_strbuf_puts(b, "<td>");
	html_text(b, cgm_events_text(text, sizeof(text), events));
	cgm_strbuf_puts(b, "</td>");
}

/* Who reads (or writes) the relation: the table's head; its rows go into
 * the page's data (html_pagedata.c: "a" readers, "w" writers), each
 * [function, "events", line, flags] with the function an index into the
 * data's list, line 0 unknown, flags 1 when the line links nowhere (no
 * source shown). */
static void accessors(cgm_strbuf *b, html_pagedata *pd, const html_relation *rel, bool reads)
{
	const html_ctx *ctx = pd->ctx;
	const cgm_model *m = ctx->model;
	int count = reads ? rel->nreaders : rel->nwriters;
	cgm_strbuf_printf(b, "<h2 id=\"%s\">%s (%d)</h2>\n", reads ? "readers" : "writers",
			  reads ? "Read by" : "Written by", count);
	if (count == 0) {
		cgm_strbuf_printf(b, "<p class=\"muted\">No mapped function %s it.</p>\n",
				  reads ? "reads" : "writes");
		return;
	}
	cgm_strbuf_printf(b, "<table class=\"sortable\" data-rows=\"%c\"></table>\n",
			  reads ? 'a' : 'w');
	cgm_strbuf *rows = &pd->accessors[reads ? 0 : 1];
	for (int k = rel->first; k < rel->first + rel->count; k++) {
		const html_rel_mention *mn = &ctx->rel_mentions[k];
		if (mn->kind != 0)
			continue;
		const cgm_site *site = &m->functions[mn->a].sites[mn->b];
		unsigned ev = reads ? cgm_site_get_rare(site)->events & CGM_EV_SELECT
				    : cgm_site_get_rare(site)->events & ~(unsigned)CGM_EV_SELECT;
		if (!ev)
			continue;
		char text[64];
		cgm_strbuf_printf(rows, "%s[%d,\"", rows->len ? ",\n" : "", html_pagedata_fn(pd, mn->a));
		cgm_escape_json_visible(rows, cgm_events_text(text, sizeof(text), ev));
		cgm_strbuf_printf(rows, "\",%d%s]", site->line > 0 ? site->line : 0,
				  site->line > 0 && !m->functions[mn->a].source ? ",1" : "");
	}
}

static const char *reach_word(cgm_reach reach)
{
	switch (reach) {
	case CGM_REACH_VIEW:
		return "reads";
	case CGM_REACH_PARTITION:
		return "partition";
	case CGM_REACH_CASCADE:
		return "cascades to";
	case CGM_REACH_RULE:
		return "acts on";
	default:
		return "runs";
	}
}

static void effect_row(cgm_strbuf *b, const html_ctx *ctx, const cgm_effect *e)
{
	cgm_strbuf_puts(b, "<tr>");
	events_cell(b, e->events);
	cgm_strbuf_printf(b, "<td>%s</td><td>", cgm_via_name(e->via));
	if (e->object)
		html_text(b, e->object);
	if (e->reach == CGM_REACH_RULE && !e->target_relation)
		cgm_strbuf_puts(b, "</td><td>does nothing");
	else
		cgm_strbuf_printf(b, "</td><td>%s ", reach_word(e->reach));
	if (e->reach == CGM_REACH_RULE && !e->target_relation) {
		/* DO INSTEAD NOTHING: the statement is dropped. */
	} else if (e->reach == CGM_REACH_FUNCTION) {
		if (e->function >= 0 && e->function < ctx->nfn)
			html_fn_link(b, ctx, e->function, "../");
		else {
			cgm_strbuf_puts(b, "<span class=\"builtin\">");
			html_text(b, e->function_id ? e->function_id : "?");
			cgm_strbuf_puts(b, "</span> <span class=\"muted\">(not in the map)</span>");
		}
	} else {
		int target = html_relation_find(ctx, e->target_schema, e->target_relation);
		if (target >= 0) {
			html_relation_link(b, ctx, target, "../");
		} else {
			char *shown = display_name(e->target_schema,
						   e->target_relation ? e->target_relation : "?");
			html_text(b, shown);
			free(shown);
		}
		if ((e->reach == CGM_REACH_CASCADE || e->reach == CGM_REACH_RULE) && e->target_events) {
			char text[64];
			cgm_strbuf_puts(b, " (");
			html_text(b, cgm_events_text(text, sizeof(text), e->target_events));
			cgm_strbuf_puts(b, ")");
		}
	}
	if (e->instead)
		cgm_strbuf_puts(b, " <span class=\"muted\">instead of the statement</span>");
	if (e->note) {
		cgm_strbuf_puts(b, " <span class=\"muted\">");
		html_text(b, e->note);
		cgm_strbuf_puts(b, "</span>");
	}
	cgm_strbuf_puts(b, "</td></tr>\n");
}

static void trigger_row(cgm_strbuf *b, const html_ctx *ctx, const cgm_trigger *t)
{
	cgm_strbuf_puts(b, "<tr>");
	events_cell(b, t->events);
	cgm_strbuf_puts(b, "<td>trigger</td><td>trigger ");
	html_text(b, t->name ? t->name : "?");
	cgm_strbuf_printf(b, "%s</td><td>runs ", t->enabled ? "" : " <b>disabled</b>");
	if (t->function >= 0 && t->function < ctx->nfn)
		html_fn_link(b, ctx, t->function, "../");
	else {
		cgm_strbuf_puts(b, "<span class=\"builtin\">");
		html_text(b, t->function_id ? t->function_id : "?");
		cgm_strbuf_puts(b, "</span> <span class=\"muted\">(not in the map)</span>");
	}
	cgm_strbuf_puts(b, "</td></tr>\n");
}

static int write_relation_page(const html_ctx *ctx, int r)
{
	const cgm_model *m = ctx->model;
	const html_relation *rel = &ctx->rels[r];
	cgm_strbuf b = CGM_STRBUF_INIT, title = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&title, "relation %s", rel->display);
	html_page_begin(&b, ctx, "../", cgm_strbuf_cstr(&title));
	cgm_strbuf_free(&title);
	cgm_strbuf_printf(&b, "<p class=\"muted\">%s", html_relkind_word(rel->relkind));
	if (!rel->schema)
		cgm_strbuf_puts(&b, " (its schema was not found)");
	cgm_strbuf_puts(&b, "</p>\n<h1>");
	html_text(&b, rel->display);
	cgm_strbuf_puts(&b, "</h1>\n");
	html_pagedata pd;
	html_pagedata_init(&pd, ctx, -1);
	pd.fn_base = "../functions/";
	accessors(&b, &pd, rel, true);
	accessors(&b, &pd, rel, false);
	cgm_strbuf_printf(&b, "<h2 id=\"runs\">What it runs (%d)</h2>\n", rel->nruns);
	if (rel->nruns == 0) {
		cgm_strbuf_puts(&b, "<p class=\"muted\">Nothing known: no view function, default, "
				    "check, policy, trigger, rule, index or cascade of it runs a "
				    "function.</p>\n");
	} else {
		cgm_strbuf_puts(&b, "<p class=\"muted\">What PostgreSQL runs on behalf of a "
				    "statement on this relation, by the statement's events.</p>\n"
				    "<table class=\"sortable\"><thead><tr><th>events</th><th>via</th>"
				    "<th>object</th><th>runs</th></tr></thead><tbody>\n");
		for (int k = rel->first; k < rel->first + rel->count; k++) {
			const html_rel_mention *mn = &ctx->rel_mentions[k];
			if (mn->kind == 1)
				effect_row(&b, ctx, &m->effects[mn->a]);
			else if (mn->kind == 2)
				trigger_row(&b, ctx, &m->triggers[mn->a]);
		}
		cgm_strbuf_puts(&b, "</tbody></table>\n");
	}
	html_pagedata_write(&b, &pd);
	html_pagedata_free(&pd);
	html_page_end(&b, "../", true);
	char rel_path[600];
	snprintf(rel_path, sizeof(rel_path), "relations/%s", rel->page);
	int rc = html_write_file(ctx, rel_path, &b);
	cgm_strbuf_free(&b);
	return rc;
}

int html_write_relation_pages(const html_ctx *ctx)
{
	int rc = 0;
	for (int r = 0; r < ctx->nrels && rc == 0; r++)
		rc = write_relation_page(ctx, r);
	return rc;
}

void html_relations_index(cgm_strbuf *b, const html_ctx *ctx)
{
	cgm_strbuf_printf(b, "<h2 id=\"relations\">Relations (%d)</h2>\n", ctx->nrels);
	if (ctx->nrels == 0) {
		cgm_strbuf_puts(b, "<p class=\"muted\">No mapped function reads or writes a "
				   "relation, and no relation runs a function.</p>\n");
		return;
	}
	cgm_strbuf_puts(b, "<table class=\"sortable\"><thead><tr><th>relation</th>"
			   "<th class=\"num\">read by</th><th class=\"num\">written by</th>"
			   "<th class=\"num\">runs</th></tr></thead><tbody>\n");
	for (int r = 0; r < ctx->nrels; r++) {
		const html_relation *rel = &ctx->rels[r];
		cgm_strbuf_puts(b, "<tr><td>");
		html_relation_link(b, ctx, r, "");
		cgm_strbuf_printf(b, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
				     "<td class=\"num\">%d</td></tr>\n",
				  rel->nreaders, rel->nwriters, rel->nruns);
	}
	cgm_strbuf_puts(b, "</tbody></table>\n");
}

void html_function_relations(cgm_strbuf *b, cgm_strbuf *rows, const html_ctx *ctx, int fn)
{
	const cgm_function *f = &ctx->model->functions[fn];
	int n = 0;
	for (int s = 0; s < f->nsites; s++)
		n += f->sites[s].kind == CGM_SITE_RELATION && f->sites[s].name;
	if (n == 0)
		return;
	cgm_strbuf_printf(b, "<h2 id=\"relations\">Relations (%d)</h2>\n<table class=\"sortable\" "
			     "data-rows=\"r\"></table>\n",
			  n);
	/* The rows, for the page's script (html_pagedata.c): [relation,
	 * events, line, flags]; the relation by its page name without .html,
	 * or {"n": name} when it has no page; line 0 unknown; flags 1: the
	 * line links nowhere (no source shown). */
	for (int s = 0; s < f->nsites; s++) {
		const cgm_site *site = &f->sites[s];
		if (site->kind != CGM_SITE_RELATION || !site->name)
			continue;
		int r = html_relation_find(ctx, site->schema, site->name);
		cgm_strbuf_puts(rows, rows->len ? ",\n[" : "[");
		if (r >= 0) {
			/* cgm_escape_filename's: nothing JSON escapes */
			const char *page = ctx->rels[r].page;
			size_t len = strlen(page);
			cgm_strbuf_putc(rows, '"');
			cgm_strbuf_add(rows, page, len > 5 ? len - 5 : len);
			cgm_strbuf_putc(rows, '"');
		} else {
			cgm_strbuf_puts(rows, "{\"n\":\"");
			cgm_escape_json_visible(rows, site->name);
			cgm_strbuf_puts(rows, "\"}");
		}
		char text[64];
		cgm_strbuf_puts(rows, ",\"");
		cgm_escape_json_visible(rows, cgm_events_text(text, sizeof(text),
							      cgm_site_get_rare(site)->events));
		cgm_strbuf_printf(rows, "\",%d%s]", site->line > 0 ? site->line : 0,
				  site->line > 0 && !f->source ? ",1" : "");
	}
}
