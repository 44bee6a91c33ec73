/*
 * diff.c - compare two call graphs and print the findings (cgmap/diff.h).
 *
 * In:  two indexed models, BASE and HEAD, only read (the bodies of the
 *      changed functions loaded first when the models were read without
 *      them: cgm_diff_options.load_sources).  Out: a cgm_diff in
 *      its own arena, every string copied, findings sorted; the writers
 *      print it as text and Markdown for a pull-request comment, both one
 *      block per function (its findings, where it is defined, what reaches
 *      it, its body's excerpt), or JSON, one finding after another
 *      (docs/diff.md).  The writers' scratch tables are freed before they
 *      return.
 *
 * Only what the code says counts: static edges (an edge observed at
 * runtime only follows the traffic of the observation window) and mapped
 * functions (not builtins).
 *
 * Functions are matched by id.  A BASE function whose id is gone and a HEAD
 * function that is new, with the same schema and name, are one function
 * whose signature changed: its BASE id is translated to the HEAD id before
 * edges, sites and references are compared, so an unchanged body does not
 * show up as a removed and an added set of calls.
 */
#include "cgmap/diff.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/bodyhash.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/strbuf.h"

static const char *const finding_names[CGM_FIND_COUNT] = {
	"removed-called-function", "missing-callee", "new-parse-error", "new-dynamic-site",
	"new-unreferenced", "removed-function", "added-function", "signature-changed",
	"body-changed", "definition-changed", "removed-edge", "added-edge", "became-ambiguous",
	"resolved-dynamic-site", "touches-hot-path", "dead-code-changed",
};

const char *cgm_finding_name(cgm_finding_code code)
{
	return (int)code >= 0 && code < CGM_FIND_COUNT ? finding_names[code] : "unknown";
}

int cgm_finding_parse(const char *name)
{
	for (int i = 0; i < CGM_FIND_COUNT; i++)
		if (strcmp(finding_names[i], name) == 0)
			return i;
	return -1;
}

/* ---- keyed lists: sorted arrays of (key, value), searched by bsearch ---- */

typedef struct keyed {
	const char *key;
	const void *value;
	int used; /* matched against the other side */
} keyed;

typedef struct keyed_list {
	keyed *items;
	int n, cap;
} keyed_list;

static void kl_add(keyed_list *l, const char *key, const void *value)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->items = realloc(l->items, sizeof(keyed) * (size_t)l->cap);
		if (!l->items) {
			fprintf(stderr, "cgmap: out of memory\n");
			abort();
		}
	}
	l->items[l->n].key = key;
	l->items[l->n].value = value;
	l->items[l->n].used = 0;
	l->n++;
}

static int compare_keyed(const void *a, const void *b)
{
	return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

static void kl_sort(keyed_list *l)
{
	if (l->n > 1)
		qsort(l->items, (size_t)l->n, sizeof(keyed), compare_keyed);
}

/* The first unused item with `key` (duplicates are kept: multisets), or NULL. */
static keyed *kl_take(keyed_list *l, const char *key)
{
	int lo = 0, hi = l->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(l->items[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < l->n && strcmp(l->items[i].key, key) == 0; i++)
		if (!l->items[i].used)
			return &l->items[i];
	return NULL;
}

static const keyed *kl_find(const keyed_list *l, const char *key)
{
	keyed probe = { key, NULL, 0 };
	return l->n ? bsearch(&probe, l->items, (size_t)l->n, sizeof(keyed), compare_keyed) : NULL;
}

static void kl_free(keyed_list *l)
{
	free(l->items);
	memset(l, 0, sizeof *l);
}

/* ---- building the diff ---- */

/* A finding whose excerpt is made once the bodies are known: the finding's
 * index, the BASE and HEAD functions. */
typedef struct excerpt_job {
	int finding;
	int b, h;
} excerpt_job;

typedef struct diff_ctx {
	cgm_diff *diff;
	cgm_arena *a;
	const cgm_model *base, *head;
	keyed_list renamed; /* BASE id -> HEAD id of a signature change */
	int cap;
	const cgm_diff_options *opts;
	excerpt_job *jobs;
	int njobs, jobs_cap;
} diff_ctx;

/* The finding added, or NULL when the options ignore it. */
static cgm_finding *add_finding(diff_ctx *c, cgm_finding_code code, const char *function,
				const char *other, int line, const char *detail)
{
	cgm_diff *d = c->diff;
	if (c->opts && c->opts->ignored && c->opts->ignored(c->opts->ignore_ctx, code, function)) {
		d->nignored++;
		return NULL;
	}
	if (d->nfindings == c->cap) {
		int cap = c->cap ? c->cap * 2 : 64;
		d->findings = cgm_arena_grow(c->a, d->findings, (size_t)d->nfindings, (size_t)cap,
					     sizeof(cgm_finding));
		c->cap = cap;
	}
	cgm_finding *f = &d->findings[d->nfindings++];
	f->code = code;
	f->function = cgm_arena_strdup(c->a, function);
	f->other = cgm_arena_strdup(c->a, other);
	f->line = line;
	f->detail = cgm_arena_strdup(c->a, detail);
	d->counts[code]++;
	return f;
}

/* The HEAD id a BASE id stands for. */
static const char *translate(const diff_ctx *c, const char *base_id)
{
	const keyed *k = kl_find(&c->renamed, base_id);
	return k ? k->value : base_id;
}

static bool same_text(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static const char *path_text(cgm_arena *a, const cgm_function *f)
{
	if (f->npath < 0 || !f->search_path)
		return "(default)";
	cgm_strbuf buf = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&buf, "");
	for (int i = 0; i < f->npath; i++) {
		if (i)
			cgm_strbuf_puts(&buf, ", ");
		cgm_strbuf_puts(&buf, f->search_path[i]);
	}
	const char *s = cgm_arena_strdup(a, cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return s;
}

/* Lines of a body-changed excerpt. */
#define EXCERPT_LINES 12

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

/* The excerpt of finding f, of BASE's and HEAD's bodies of b and h, made
 * by make_excerpts. */
static void want_excerpt(diff_ctx *c, const cgm_finding *f, const cgm_function *b,
			 const cgm_function *h)
{
	if (c->njobs == c->jobs_cap) {
		c->jobs_cap = c->jobs_cap ? c->jobs_cap * 2 : 64;
		c->jobs = cgm_xrealloc(c->jobs, sizeof(excerpt_job) * (size_t)c->jobs_cap);
	}
	c->jobs[c->njobs++] = (excerpt_job){ (int)(f - c->diff->findings),
					     (int)(b - c->base->functions), (int)(h - c->head->functions) };
}

/* body-changed / definition-changed of one function present on both sides. */
static void compare_function(diff_ctx *c, const cgm_function *b, const cgm_function *h,
			     bool renamed)
{
	cgm_arena *a = c->a;
	bool body = !same_text(b->body_hash, h->body_hash);
	if (renamed) {
		cgm_finding *f = add_finding(c, CGM_FIND_SIGNATURE_CHANGED, h->id, b->id, 0,
					     cgm_arena_printf(a, "was %s%s", b->id,
							      body ? "; its body changed too" : ""));
		if (f && body)
			want_excerpt(c, f, b, h);
	} else if (body) {
		cgm_finding *f = add_finding(c, CGM_FIND_BODY_CHANGED, h->id, NULL, 0, "body changed");
		if (f)
			want_excerpt(c, f, b, h);
	}
	cgm_strbuf what = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&what, "");
#define CHANGED(label, x, y)                                                              \
	do {                                                                              \
		if (!same_text((x), (y)))                                                 \
			cgm_strbuf_printf(&what, "%s%s: %s -> %s", what.len ? "; " : "", label, \
					  or_none(x), or_none(y));                        \
	} while (0)
	CHANGED("kind", cgm_kind_name(b->kind), cgm_kind_name(h->kind));
	CHANGED("language", b->language, h->language);
	CHANGED("result", b->result, h->result);
	if (!renamed)
		CHANGED("arguments", b->arguments, h->arguments);
	CHANGED("search_path", path_text(a, b), path_text(a, h));
#undef CHANGED
	if (what.len)
		add_finding(c, CGM_FIND_DEFINITION_CHANGED, h->id, NULL, 0, cgm_strbuf_cstr(&what));
	cgm_strbuf_free(&what);
	if (h->nerrors > 0 && b->nerrors == 0)
		add_finding(c, CGM_FIND_NEW_PARSE_ERROR, h->id, NULL, h->errors[0].line,
			    h->errors[0].message);
}

/* The excerpts compare_function asked for, the bodies the models were read
 * without first loaded (cgm_diff_options.load_sources): 0, or its error. */
static int make_excerpts(diff_ctx *c)
{
	const cgm_model *models[2] = { c->base, c->head };
	for (int side = 0; c->opts && c->opts->load_sources && side < 2; side++) {
		int *fns = cgm_xcalloc((size_t)c->njobs + 1, sizeof(int));
		int n = 0;
		for (int i = 0; i < c->njobs; i++) {
			int fn = side == 0 ? c->jobs[i].b : c->jobs[i].h;
			if (!models[side]->functions[fn].source)
				fns[n++] = fn;
		}
		int rc = n ? c->opts->load_sources(c->opts->sources_ctx, side, fns, n) : 0;
		free(fns);
		if (rc < 0)
			return rc;
	}
	for (int i = 0; i < c->njobs; i++) {
		const excerpt_job *j = &c->jobs[i];
		c->diff->findings[j->finding].excerpt =
			cgm_body_excerpt(c->a, c->base->functions[j->b].source,
					 c->head->functions[j->h].source, EXCERPT_LINES);
	}
	return 0;
}

static void compare_functions(diff_ctx *c, keyed_list *only_base)
{
	const cgm_model *base = c->base, *head = c->head;
	keyed_list gone = { 0 }, fresh = { 0 };
	for (int i = 0; i < base->nuser; i++) {
		const cgm_function *b = &base->functions[i];
		int j = cgm_model_find(head, b->id);
		if (j >= 0 && j < head->nuser)
			compare_function(c, b, &head->functions[j], false);
		else
			kl_add(&gone, cgm_arena_printf(c->a, "%s\x1f%s", b->schema, b->name), b);
	}
	for (int i = 0; i < head->nuser; i++) {
		const cgm_function *h = &head->functions[i];
		int j = cgm_model_find(base, h->id);
		if (j < 0 || j >= base->nuser)
			kl_add(&fresh, cgm_arena_printf(c->a, "%s\x1f%s", h->schema, h->name), h);
	}
	/* Same schema and name on both sides: a signature change, paired in
	 * id order when there are several. */
	kl_sort(&gone);
	kl_sort(&fresh);
	for (int i = 0; i < gone.n; i++) {
		keyed *match = kl_take(&fresh, gone.items[i].key);
		if (!match)
			continue;
		match->used = gone.items[i].used = 1;
		const cgm_function *b = gone.items[i].value, *h = match->value;
		kl_add(&c->renamed, b->id, h->id);
		compare_function(c, b, h, true);
	}
	kl_sort(&c->renamed);
	for (int i = 0; i < gone.n; i++)
		if (!gone.items[i].used) {
			const cgm_function *b = gone.items[i].value;
			add_finding(c, CGM_FIND_REMOVED_FUNCTION, b->id, NULL, 0, "removed");
			kl_add(only_base, b->id, b);
		}
	for (int i = 0; i < fresh.n; i++)
		if (!fresh.items[i].used) {
			const cgm_function *h = fresh.items[i].value;
			add_finding(c, CGM_FIND_ADDED_FUNCTION, h->id, NULL, 0, "added");
			if (h->nerrors > 0)
				add_finding(c, CGM_FIND_NEW_PARSE_ERROR, h->id, NULL, h->errors[0].line,
					    h->errors[0].message);
		}
	kl_sort(only_base);
	kl_free(&gone);
	kl_free(&fresh);
}

static bool in_head(const diff_ctx *c, const char *head_id)
{
	int j = cgm_model_find(c->head, head_id);
	return j >= 0 && j < c->head->nuser;
}

static const char *lines_text(cgm_arena *a, const cgm_edge *e)
{
	if (e->nlines == 0)
		return "";
	cgm_strbuf buf = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&buf, e->nlines == 1 ? " at line " : " at lines ");
	for (int i = 0; i < e->nlines; i++)
		cgm_strbuf_printf(&buf, "%s%d", i ? ", " : "", e->lines[i]);
	const char *s = cgm_arena_strdup(a, cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return s;
}

/* How the edge runs its callee, for a finding's text: nothing for a plain
 * call, the mechanism and its object otherwise ("through view app.v"). */
static const char *via_text(cgm_arena *a, const cgm_edge *e)
{
	switch (e->via) {
	case CGM_VIA_CALL:
		return "";
	case CGM_VIA_LITERAL:
		return " (in constant EXECUTE SQL)";
	case CGM_VIA_TRIGGER:
		return " (fires its trigger)";
	case CGM_VIA_DYNAMIC:
		return " (observed from a dynamic EXECUTE)";
	default:
		return e->object ? cgm_arena_printf(a, " (through %s)", e->object)
				 : cgm_arena_printf(a, " (through a %s)", cgm_via_name(e->via));
	}
}

/* Edges are the same across the two sides when from, to, mechanism and
 * object are (no object and an empty one are the same).  Both sides' edges
 * are keyed by HEAD's function indexes: a BASE function is its HEAD
 * counterpart (by id, or by signature change), else one past HEAD's
 * functions at its own BASE index, which no HEAD edge names. */
typedef struct edge_ref {
	int from, to; /* in HEAD's numbering */
	int via;
	const char *object;
	int line;     /* call_refs: the call's line */
	int edge;     /* its index in its model's edges */
	int used;     /* matched against the other side */
} edge_ref;

static int compare_objects(const char *x, const char *y)
{
	return x == y ? 0 : strcmp(x ? x : "", y ? y : "");
}

static int compare_edge_refs(const void *a, const void *b)
{
	const edge_ref *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->via != y->via)
		return x->via < y->via ? -1 : 1;
	int r = compare_objects(x->object, y->object);
	/* Equal keys keep the order they were listed in: the first unused
	 * is taken. */
	return r ? r : x->edge - y->edge;
}

/* One call of a function: caller, mechanism, object and line. */
static int compare_call_refs(const void *a, const void *b)
{
	const edge_ref *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->via != y->via)
		return x->via < y->via ? -1 : 1;
	int r = compare_objects(x->object, y->object);
	if (r)
		return r;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->edge - y->edge;
}

/* The first of refs[0, n) whose key equals probe's under `cmp` with the
 * tie-break on edge left out (probe->edge is -1: before every edge), or n. */
static int lower_bound(const edge_ref *refs, int n, const edge_ref *probe,
		       int (*cmp)(const void *, const void *))
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (cmp(&refs[mid], probe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool same_edge_key(const edge_ref *x, const edge_ref *y)
{
	return x->from == y->from && x->to == y->to && x->via == y->via &&
	       compare_objects(x->object, y->object) == 0;
}

static bool same_call_key(const edge_ref *x, const edge_ref *y)
{
	return x->from == y->from && x->via == y->via && x->line == y->line &&
	       compare_objects(x->object, y->object) == 0;
}

/* Per BASE function: its HEAD index (by id, or its signature change), else
 * head->nuser + its BASE index. */
static int *base_in_head(const diff_ctx *c)
{
	int *map = cgm_xcalloc((size_t)c->base->nuser + 1, sizeof(int));
	for (int i = 0; i < c->base->nuser; i++) {
		int j = cgm_model_find(c->head, translate(c, c->base->functions[i].id));
		map[i] = j >= 0 && j < c->head->nuser ? j : c->head->nuser + i;
	}
	return map;
}

/* Does a function of this HEAD index also exist (maybe renamed) in BASE? */
static bool *head_in_base(const diff_ctx *c, const int *map)
{
	bool *in = cgm_xcalloc((size_t)c->head->nuser + 1, sizeof(bool));
	for (int i = 0; i < c->base->nuser; i++)
		if (map[i] < c->head->nuser)
			in[map[i]] = true;
	return in;
}

static void compare_edges(diff_ctx *c)
{
	const cgm_model *base = c->base, *head = c->head;
	int *map = base_in_head(c);
	bool *was_there = head_in_base(c, map);
	edge_ref *base_edges = cgm_xcalloc((size_t)base->nedges + 1, sizeof(edge_ref));
	int nbase = 0;
	for (int i = 0; i < base->nedges; i++) {
		const cgm_edge *e = &base->edges[i];
		if (e->from < 0 || e->to < 0 || e->from >= base->nuser || e->to >= base->nuser)
			continue; /* edges to builtins come and go with --include-builtins */
		if (!(e->provenance & CGM_EDGE_STATIC))
			continue; /* observed-only edges follow traffic, not code */
		base_edges[nbase++] = (edge_ref){ map[e->from], map[e->to], (int)e->via, e->object, 0, i, 0 };
	}
	if (nbase > 1)
		qsort(base_edges, (size_t)nbase, sizeof(edge_ref), compare_edge_refs);
	/* First the HEAD edges BASE has; an ambiguous one among them, by each
	 * of its lines, tells a new candidate of the same call apart from a
	 * new call. */
	int *matched = cgm_xcalloc((size_t)head->nedges + 1, sizeof(int)); /* BASE edge + 1, 0: none */
	edge_ref *known_calls = NULL;
	int nknown = 0, known_cap = 0;
	for (int i = 0; i < head->nedges; i++) {
		const cgm_edge *e = &head->edges[i];
		if (e->from < 0 || e->to < 0 || e->from >= head->nuser || e->to >= head->nuser ||
		    !(e->provenance & CGM_EDGE_STATIC))
			continue;
		edge_ref probe = { e->from, e->to, (int)e->via, e->object, 0, -1, 0 };
		int k = lower_bound(base_edges, nbase, &probe, compare_edge_refs);
		while (k < nbase && same_edge_key(&base_edges[k], &probe) && base_edges[k].used)
			k++;
		if (k >= nbase || !same_edge_key(&base_edges[k], &probe))
			continue;
		base_edges[k].used = 1;
		matched[i] = base_edges[k].edge + 1;
		if (e->ambiguous)
			for (int l = 0; l < e->nlines; l++) {
				if (nknown == known_cap) {
					known_cap = known_cap ? known_cap * 2 : 64;
					known_calls = cgm_xrealloc(known_calls, sizeof(edge_ref) * (size_t)known_cap);
				}
				known_calls[nknown++] = (edge_ref){ e->from, 0, (int)e->via, e->object,
								    e->lines[l], base_edges[k].edge, 0 };
			}
	}
	if (nknown > 1)
		qsort(known_calls, (size_t)nknown, sizeof(edge_ref), compare_call_refs);
	for (int i = 0; i < head->nedges; i++) {
		const cgm_edge *e = &head->edges[i];
		if (matched[i] || e->from < 0 || e->to < 0 || e->from >= head->nuser ||
		    e->to >= head->nuser || !(e->provenance & CGM_EDGE_STATIC))
			continue;
		const char *from = head->functions[e->from].id;
		const char *to = head->functions[e->to].id;
		/* The calls of a new function are the function itself. */
		if (!was_there[e->from])
			continue;
		const cgm_edge *was = NULL;
		for (int l = 0; e->ambiguous && l < e->nlines && !was; l++) {
			edge_ref probe = { e->from, 0, (int)e->via, e->object, e->lines[l], -1, 0 };
			int k = lower_bound(known_calls, nknown, &probe, compare_call_refs);
			if (k < nknown && same_call_key(&known_calls[k], &probe))
				was = &base->edges[known_calls[k].edge];
		}
		if (was) {
			const char *before = translate(c, base->functions[was->to].id);
			add_finding(c, CGM_FIND_BECAME_AMBIGUOUS, from, to, e->nlines ? e->lines[0] : 0,
				    was->ambiguous
					    ? cgm_arena_printf(c->a, "an ambiguous call%s gained a candidate, "
								     "%s%s, besides %s",
							       lines_text(c->a, e), to, via_text(c->a, e),
							       before)
					    : cgm_arena_printf(c->a, "the call of %s%s became ambiguous: "
								     "it may now run %s%s instead",
							       before, lines_text(c->a, e), to,
							       via_text(c->a, e)));
			continue;
		}
		add_finding(c, CGM_FIND_ADDED_EDGE, from, to, e->nlines ? e->lines[0] : 0,
			    cgm_arena_printf(c->a, "now calls %s%s%s", to, via_text(c->a, e),
					     lines_text(c->a, e)));
	}
	free(matched);
	free(known_calls);
	for (int i = 0; i < nbase; i++) {
		if (base_edges[i].used)
			continue;
		const cgm_edge *e = &base->edges[base_edges[i].edge];
		if (base_edges[i].from >= head->nuser)
			continue; /* a removed function's calls went with it */
		const char *to = translate(c, base->functions[e->to].id);
		add_finding(c, CGM_FIND_REMOVED_EDGE, head->functions[base_edges[i].from].id, to, 0,
			    cgm_arena_printf(c->a, "no longer calls %s%s (in BASE%s)", to, via_text(c->a, e),
					     lines_text(c->a, e)));
	}
	free(base_edges);
	free(was_there);
	free(map);
}

/* Dynamic sites and missing callees, as multisets keyed per function. */
typedef struct site_ref {
	const cgm_function *fn;
	const cgm_site *site;
} site_ref;

static const char *site_name(cgm_arena *a, const cgm_site *s)
{
	return s->schema ? cgm_arena_printf(a, "%s.%s", s->schema, s->name) : s->name;
}

static void collect_sites(diff_ctx *c, const cgm_model *m, bool is_base, keyed_list *dynamic,
			  keyed_list *missing, site_ref **refs, int *nrefs)
{
	int n = 0;
	for (int i = 0; i < m->nuser; i++)
		n += m->functions[i].nsites;
	*refs = malloc(sizeof(site_ref) * (size_t)(n ? n : 1));
	*nrefs = 0;
	for (int i = 0; i < m->nuser; i++) {
		const cgm_function *f = &m->functions[i];
		const char *id = is_base ? translate(c, f->id) : f->id;
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			site_ref *r = &(*refs)[(*nrefs)++];
			r->fn = f;
			r->site = site;
			if (site->kind == CGM_SITE_DYNAMIC)
				/* By its text with layout and comments folded: an
				 * EXECUTE only re-indented is the same site. */
				kl_add(dynamic, cgm_arena_printf(c->a, "%s\x1f%s", id,
								 cgm_site_get_rare(site)->text ? cgm_body_normalise(c->a, cgm_site_get_rare(site)->text)
									    : "-"),
				       r);
			else if (cgm_site_missing(site) ||
				 site->resolution == CGM_RES_NOT_UNIQUE) /* both refused; a
				  * callee a block catching undefined_function expects
				  * to be absent is no finding */
				kl_add(missing, cgm_arena_printf(c->a, "%s\x1f%s\x1f%d\x1f%s", id,
								 site_name(c->a, site), site->nargs,
								 cgm_resolution_name(site->resolution)),
				       r);
		}
	}
	kl_sort(dynamic);
	kl_sort(missing);
}

/* A BASE function that HEAD no longer has and that a call named `site`
 * may have meant, or NULL. */
static const cgm_function *removed_target(const keyed_list *only_base, const cgm_site *site)
{
	for (int i = 0; i < only_base->n; i++) {
		const cgm_function *b = only_base->items[i].value;
		if (strcmp(b->name, site->name) == 0 && (!site->schema || strcmp(b->schema, site->schema) == 0) &&
		    (site->nargs <= b->nargs || b->variadic) && site->nargs >= b->nargs - b->ndefaults - (b->variadic ? 1 : 0))
			return b;
	}
	return NULL;
}

static void compare_sites(diff_ctx *c, const keyed_list *only_base)
{
	keyed_list bdyn = { 0 }, bmiss = { 0 }, hdyn = { 0 }, hmiss = { 0 };
	site_ref *brefs, *hrefs;
	int nb, nh;
	collect_sites(c, c->base, true, &bdyn, &bmiss, &brefs, &nb);
	collect_sites(c, c->head, false, &hdyn, &hmiss, &hrefs, &nh);
	for (int i = 0; i < hdyn.n; i++) {
		keyed *k = kl_take(&bdyn, hdyn.items[i].key);
		if (k) {
			k->used = 1;
			continue;
		}
		const site_ref *r = hdyn.items[i].value;
		cgm_finding *f = add_finding(c, CGM_FIND_NEW_DYNAMIC, r->fn->id, NULL, r->site->line,
					     cgm_arena_printf(c->a, "%s %s", cgm_dynamic_site_verb(r->site),
							      or_none(cgm_site_get_rare(r->site)->text)));
		if (f)
			f->sql = cgm_arena_printf(c->a, "%s %s", cgm_dynamic_site_verb(r->site),
						  or_none(cgm_site_get_rare(r->site)->text));
	}
	for (int i = 0; i < bdyn.n; i++) {
		if (bdyn.items[i].used)
			continue;
		const site_ref *r = bdyn.items[i].value;
		const char *id = translate(c, r->fn->id);
		if (!in_head(c, id))
			continue;
		cgm_finding *f = add_finding(c, CGM_FIND_RESOLVED_DYNAMIC, id, NULL, 0,
					     cgm_arena_printf(c->a, "%s %s is gone (BASE line %d)",
							      cgm_dynamic_site_verb(r->site),
							      or_none(cgm_site_get_rare(r->site)->text), r->site->line));
		if (f)
			f->sql = cgm_arena_printf(c->a, "%s %s", cgm_dynamic_site_verb(r->site),
						  or_none(cgm_site_get_rare(r->site)->text));
	}
	for (int i = 0; i < hmiss.n; i++) {
		keyed *k = kl_take(&bmiss, hmiss.items[i].key);
		if (k) {
			k->used = 1;
			continue;
		}
		const site_ref *r = hmiss.items[i].value;
		const char *name = site_name(c->a, r->site);
		if (r->site->resolution == CGM_RES_NOT_UNIQUE && r->site->kind == CGM_SITE_OPERATOR) {
			/* an operator added beside one the operands fit as well */
			char text[512];
			const cgm_site *t = r->site;
			add_finding(c, CGM_FIND_MISSING_CALLEE, r->fn->id, NULL, t->line,
				    cgm_arena_printf(c->a, "uses the operator %s: not unique, %s and %s "
							   "fit its operand types equally well",
						     cgm_site_operator_text(text, sizeof text, t),
						     t->ntargets > 0 ? c->head->functions[t->targets[0]].id : "?",
						     t->ntargets > 1 ? c->head->functions[t->targets[1]].id : "?"));
			continue;
		}
		if (r->site->resolution == CGM_RES_NOT_UNIQUE) {
			/* an overload added beside one that takes the same arguments */
			const cgm_site *t = r->site;
			add_finding(c, CGM_FIND_MISSING_CALLEE, r->fn->id, NULL, t->line,
				    cgm_arena_printf(c->a, "calls %s with %d argument%s: not unique, %s "
							   "and %s %s",
						     name, t->nargs, t->nargs == 1 ? "" : "s",
						     t->ntargets > 0 ? c->head->functions[t->targets[0]].id : "?",
						     t->ntargets > 1 ? c->head->functions[t->targets[1]].id : "?",
						     cgm_site_tie_same_types(c->head, t)
							     ? "take them as the same types"
							     : "fit their types equally well"));
			continue;
		}
		const cgm_function *gone = removed_target(only_base, r->site);
		if (gone)
			add_finding(c, CGM_FIND_REMOVED_CALLED, r->fn->id, gone->id, r->site->line,
				    cgm_arena_printf(c->a, "calls %s, which was removed", gone->id));
		else
			add_finding(c, CGM_FIND_MISSING_CALLEE, r->fn->id, NULL, r->site->line,
				    cgm_arena_printf(c->a, "calls %s with %d argument%s: no such function",
						     name, r->site->nargs, r->site->nargs == 1 ? "" : "s"));
	}
	free(brefs);
	free(hrefs);
	kl_free(&bdyn);
	kl_free(&bmiss);
	kl_free(&hdyn);
	kl_free(&hmiss);
}

/* Who keeps a function alive: callers (other functions, static edges),
 * triggers and catalog references, per function index of `m`. */
typedef struct keepers {
	int callers, triggers, references;
} keepers;

static keepers *keepers_of(const cgm_model *m)
{
	keepers *k = calloc((size_t)(m->nfunctions ? m->nfunctions : 1), sizeof(keepers));
	if (!k) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	for (int i = 0; i < m->nedges; i++)
		if (m->edges[i].from != m->edges[i].to && m->edges[i].to >= 0 &&
		    (m->edges[i].provenance & CGM_EDGE_STATIC))
			k[m->edges[i].to].callers++;
	for (int i = 0; i < m->ntriggers; i++)
		if (m->triggers[i].function >= 0)
			k[m->triggers[i].function].triggers++;
	for (int i = 0; i < m->nreferences; i++)
		if (m->references[i].function >= 0)
			k[m->references[i].function].references++;
	return k;
}

static int kept(const keepers *k)
{
	return k->callers + k->triggers + k->references;
}

static void compare_references(diff_ctx *c)
{
	keepers *bk = keepers_of(c->base);
	keepers *hk = keepers_of(c->head);
	for (int i = 0; i < c->base->nuser; i++) {
		if (kept(&bk[i]) == 0)
			continue;
		const char *id = translate(c, c->base->functions[i].id);
		int j = cgm_model_find(c->head, id);
		if (j < 0 || j >= c->head->nuser || kept(&hk[j]) > 0)
			continue;
		const keepers *b = &bk[i];
		add_finding(c, CGM_FIND_NEW_UNREFERENCED, id, NULL, 0,
			    cgm_arena_printf(c->a,
					     "no caller, trigger or reference left (BASE: %d caller%s, "
					     "%d trigger%s, %d reference%s)",
					     b->callers, b->callers == 1 ? "" : "s", b->triggers,
					     b->triggers == 1 ? "" : "s", b->references,
					     b->references == 1 ? "" : "s"));
	}
	free(bk);
	free(hk);
}

static int compare_findings(const void *x, const void *y)
{
	const cgm_finding *a = x, *b = y;
	if (a->code != b->code)
		return (int)a->code - (int)b->code;
	int r = strcmp(a->function, b->function);
	if (r)
		return r;
	if (a->line != b->line)
		return a->line - b->line;
	r = strcmp(a->other ? a->other : "", b->other ? b->other : "");
	return r ? r : strcmp(a->detail ? a->detail : "", b->detail ? b->detail : "");
}

static void add_derived(void *ctx, cgm_finding_code code, const char *function, const char *other,
			int line, const char *detail)
{
	add_finding(ctx, code, function, other, line, detail);
}

int cgm_diff_compute(cgm_diff **out, const cgm_model *base, const cgm_model *head,
		     const char *base_name, const char *head_name)
{
	return cgm_diff_compute_opts(out, base, head, base_name, head_name, NULL);
}

int cgm_diff_compute_opts(cgm_diff **out, const cgm_model *base, const cgm_model *head,
			  const char *base_name, const char *head_name,
			  const cgm_diff_options *opts)
{
	cgm_arena *arena = cgm_arena_new();
	cgm_diff *d = cgm_arena_alloc(arena, sizeof(cgm_diff));
	d->arena = arena;
	d->base_name = cgm_arena_strdup(arena, base_name);
	d->head_name = cgm_arena_strdup(arena, head_name);
	diff_ctx c = { .diff = d, .a = arena, .base = base, .head = head, .opts = opts };
	keyed_list only_base = { 0 };
	compare_functions(&c, &only_base);
	int rc = make_excerpts(&c);
	free(c.jobs);
	if (rc < 0) {
		kl_free(&only_base);
		kl_free(&c.renamed);
		cgm_arena_free(arena);
		*out = NULL;
		return rc;
	}
	compare_edges(&c);
	compare_sites(&c, &only_base);
	compare_references(&c);
	kl_free(&only_base);
	kl_free(&c.renamed);
	d->hot_threshold = opts && opts->hot_threshold > 0 ? opts->hot_threshold
							   : CGM_DIFF_DEFAULT_HOT_THRESHOLD;
	cgm_diff_blast_radius(d, base, head, add_derived, &c);
	if (d->nfindings > 1)
		qsort(d->findings, (size_t)d->nfindings, sizeof(cgm_finding), compare_findings);
	*out = d;
	return 0;
}

void cgm_diff_free(cgm_diff *diff)
{
	if (diff)
		cgm_arena_free(diff->arena);
}

/* ---- writers ---- */

/* How many entry points a comment names before "+N more": the whole diff's,
 * and each finding's. */
#define AFFECTED_CAP 10
#define ENTRY_CAP 5

/* ---- findings grouped by function ---- */

/* The function a finding is shown under: a removed-called-function under
 * the removed function (its other), with every caller left; any other
 * finding under its own function. */
static const char *group_key(const cgm_finding *f)
{
	return f->code == CGM_FIND_REMOVED_CALLED && f->other ? f->other : f->function;
}

/* One function's findings: order[first .. first + n), in report order. */
typedef struct fgroup {
	int first, n;
	const char *key;
	const cgm_finding *home; /* a finding about the function itself: its file, entry points; or NULL */
	bool failing;            /* one of its findings is named by --fail-on */
} fgroup;

static int compare_by_key(const void *a, const void *b, void *arg)
{
	const cgm_diff *d = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int r = strcmp(group_key(&d->findings[x]), group_key(&d->findings[y]));
	return r ? r : x - y;
}

/* Groups by their most important finding (the findings are sorted by code,
 * so a group's first), then by function. */
static int compare_groups(const void *a, const void *b, void *arg)
{
	const cgm_diff *d = arg;
	const fgroup *x = a, *y = b;
	int cx = (int)d->findings[x->first].code, cy = (int)d->findings[y->first].code;
	return cx != cy ? cx - cy : strcmp(x->key, y->key);
}

typedef struct grouping {
	int *order;     /* finding indexes, grouped */
	fgroup *groups;
	int ngroups;
} grouping;

static void group_findings(grouping *g, const cgm_diff *d, const bool *failing)
{
	int n = d->nfindings;
	int *by_key = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		by_key[i] = i;
	qsort_r(by_key, (size_t)n, sizeof(int), compare_by_key, (void *)d);
	g->groups = cgm_xcalloc((size_t)n + 1, sizeof(fgroup));
	g->ngroups = 0;
	for (int i = 0; i < n;) {
		const char *key = group_key(&d->findings[by_key[i]]);
		int end = i;
		fgroup *gr = &g->groups[g->ngroups++];
		gr->key = key;
		gr->first = by_key[i]; /* for now: its most important finding */
		while (end < n && strcmp(group_key(&d->findings[by_key[end]]), key) == 0) {
			const cgm_finding *f = &d->findings[by_key[end]];
			if (!gr->home && strcmp(f->function, key) == 0)
				gr->home = f;
			gr->failing = gr->failing || (failing && failing[f->code]);
			end++;
		}
		gr->n = end - i;
		i = end;
	}
	/* Most important first, then by function. */
	qsort_r(g->groups, (size_t)g->ngroups, sizeof(fgroup), compare_groups, (void *)d);
	/* Lay the findings out group after group, each group in report order. */
	g->order = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int at = 0;
	for (int k = 0; k < g->ngroups; k++) {
		fgroup *gr = &g->groups[k];
		int lo = 0, hi = n; /* the group's run in by_key */
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (strcmp(group_key(&d->findings[by_key[mid]]), gr->key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memcpy(g->order + at, by_key + lo, sizeof(int) * (size_t)gr->n);
		gr->first = at;
		at += gr->n;
	}
	free(by_key);
}

static void grouping_free(grouping *g)
{
	free(g->order);
	free(g->groups);
}

/* The codes of a group's findings, each once, with their count when more
 * than one: "removed-function, removed-called-function (3)". */
static void group_codes(cgm_strbuf *o, const cgm_diff *d, const grouping *g, const fgroup *gr)
{
	for (int j = 0; j < gr->n;) {
		cgm_finding_code code = d->findings[g->order[gr->first + j]].code;
		int end = j;
		while (end < gr->n && d->findings[g->order[gr->first + end]].code == code)
			end++;
		cgm_strbuf_printf(o, "%s%s", j ? ", " : "", finding_names[code]);
		if (end - j > 1)
			cgm_strbuf_printf(o, " (%d)", end - j);
		j = end;
	}
}

/* "reached from 2 entry points of HEAD (5003 calls): a 5000, b 3" of a
 * function, on its own line after indent. */
static void text_entries(cgm_strbuf *o, const cgm_diff *d, const cgm_finding *f, const char *indent)
{
	if (!f || !f->nentries)
		return;
	if (f->nentries == 1 && strcmp(f->entries[0].id, f->function) == 0) {
		cgm_strbuf_printf(o, "%sits own entry point: no other entry point of %s reaches it", indent,
				  f->from_base ? "BASE" : "HEAD");
		if (d->has_runtime)
			cgm_strbuf_printf(o, " (%" PRId64 " calls)", f->entry_calls);
		cgm_strbuf_putc(o, '\n');
		return;
	}
	cgm_strbuf_printf(o, "%sreached from %d entry point%s of %s", indent, f->nentries,
			  f->nentries == 1 ? "" : "s", f->from_base ? "BASE" : "HEAD");
	if (d->has_runtime)
		cgm_strbuf_printf(o, " (%" PRId64 " calls)", f->entry_calls);
	for (int k = 0; k < f->nentries && k < ENTRY_CAP; k++) {
		cgm_strbuf_puts(o, k ? ", " : ": ");
		cgm_escape_text(o, f->entries[k].id);
		if (d->has_runtime)
			cgm_strbuf_printf(o, " %" PRId64, f->entries[k].calls);
	}
	if (f->nentries > ENTRY_CAP)
		cgm_strbuf_printf(o, ", +%d more", f->nentries - ENTRY_CAP);
	cgm_strbuf_putc(o, '\n');
}

/* "3 findings in 2 functions: 1 removed-called-function, ..." */
static void summary_line(cgm_strbuf *o, const cgm_diff *d, int nfunctions)
{
	cgm_strbuf_printf(o, "%d finding%s in %d function%s:", d->nfindings, d->nfindings == 1 ? "" : "s",
			  nfunctions, nfunctions == 1 ? "" : "s");
	for (int k = 0, first = 1; k < CGM_FIND_COUNT; k++)
		if (d->counts[k]) {
			cgm_strbuf_printf(o, "%s %d %s", first ? "" : ",", d->counts[k], finding_names[k]);
			first = 0;
		}
	if (d->nignored)
		cgm_strbuf_printf(o, "; %d more ignored by the project configuration (diff.ignore)",
				  d->nignored);
}

static void write_text(cgm_strbuf *o, const cgm_diff *d, const bool *failing)
{
	cgm_strbuf_puts(o, "cgmap diff: ");
	cgm_escape_text(o, d->base_name);
	cgm_strbuf_puts(o, " -> ");
	cgm_escape_text(o, d->head_name);
	cgm_strbuf_putc(o, '\n');
	if (d->nfindings == 0) {
		cgm_strbuf_puts(o, "no difference");
		if (d->nignored)
			cgm_strbuf_printf(o, " (%d finding%s ignored by the project configuration)",
					  d->nignored, d->nignored == 1 ? "" : "s");
		cgm_strbuf_putc(o, '\n');
		return;
	}
	grouping g;
	group_findings(&g, d, failing);
	summary_line(o, d, g.ngroups);
	cgm_strbuf_puts(o, "\n");
	if (d->naffected) {
		cgm_strbuf_printf(o, "affected entry points (%d)", d->naffected);
		for (int i = 0; i < d->naffected && i < AFFECTED_CAP; i++) {
			cgm_strbuf_puts(o, i ? ", " : ": ");
			cgm_escape_text(o, d->affected[i].id);
			if (d->has_runtime)
				cgm_strbuf_printf(o, " (%" PRId64 " calls)", d->affected[i].calls);
		}
		if (d->naffected > AFFECTED_CAP)
			cgm_strbuf_printf(o, ", +%d more", d->naffected - AFFECTED_CAP);
		cgm_strbuf_putc(o, '\n');
	}
	int wcode = 0;
	for (int i = 0; i < d->nfindings; i++) {
		int lc = (int)strlen(finding_names[d->findings[i].code]);
		wcode = lc > wcode ? lc : wcode;
	}
	bool any_failing = false;
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		any_failing = any_failing || (failing && failing[k] && d->counts[k]);
	const char *pad = any_failing ? "         " : "    "; /* under the sentence's column start */
	for (int k = 0; k < g.ngroups; k++) {
		const fgroup *gr = &g.groups[k];
		cgm_strbuf_putc(o, '\n');
		cgm_escape_text(o, gr->key);
		if (gr->home && gr->home->file) {
			cgm_strbuf_puts(o, "  defined at ");
			cgm_escape_text(o, gr->home->file);
			cgm_strbuf_printf(o, ":%d%s", gr->home->file_line, gr->home->from_base ? " (BASE)" : "");
		}
		cgm_strbuf_putc(o, '\n');
		for (int j = 0; j < gr->n; j++) {
			const cgm_finding *f = &d->findings[g.order[gr->first + j]];
			char line[32] = "";
			if (f->line > 0 && f->code != CGM_FIND_REMOVED_CALLED)
				snprintf(line, sizeof line, "line %d", f->line);
			cgm_strbuf_printf(o, "    %s%-*s  %-10s ",
					  !any_failing ? "" : failing[f->code] ? "FAIL " : "     ", wcode,
					  finding_names[f->code], line);
			if (f->code == CGM_FIND_REMOVED_CALLED && strcmp(f->function, gr->key) != 0) {
				/* Under the removed function: who still calls it. */
				cgm_strbuf_puts(o, "still called by ");
				cgm_escape_text(o, f->function);
				if (f->line > 0)
					cgm_strbuf_printf(o, " at line %d", f->line);
				if (f->nentries)
					cgm_strbuf_printf(o, " (%d entry point%s)", f->nentries,
							  f->nentries == 1 ? "" : "s");
			} else {
				cgm_escape_text(o, f->detail ? f->detail : "");
			}
			cgm_strbuf_putc(o, '\n');
			for (const char *l = f->excerpt; l && *l;) {
				const char *end = strchr(l, '\n');
				size_t len = end ? (size_t)(end - l) : strlen(l);
				char *text = strndup(l, len);
				if (text) {
					cgm_strbuf_printf(o, "%s      ", pad);
					cgm_escape_text(o, text);
					cgm_strbuf_putc(o, '\n');
					free(text);
				}
				l = end ? end + 1 : l + len;
			}
		}
		text_entries(o, d, gr->home, "    ");
	}
	grouping_free(&g);
	bool any = false;
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		if (failing && failing[k] && d->counts[k]) {
			cgm_strbuf_printf(o, "%s%s", any ? ", " : "\nfailing (--fail-on): ", finding_names[k]);
			any = true;
		}
	if (any)
		cgm_strbuf_putc(o, '\n');
}

/* SQL text as inline code in a table cell: its runs of whitespace folded
 * to one space (an EXECUTE laid out over lines reads as one), a '|'
 * escaped (the table would split there; GitHub and GitLab show `\|` in
 * code as '|'); text with a backquote, a control or a bad byte as escaped
 * text instead. */
static void md_sql(cgm_strbuf *o, const char *s)
{
	cgm_strbuf folded = CGM_STRBUF_INIT;
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
			while (p[1] == ' ' || p[1] == '\n' || p[1] == '\t' || p[1] == '\r')
				p++;
			cgm_strbuf_putc(&folded, ' ');
		} else {
			cgm_strbuf_putc(&folded, *p);
		}
	}
	s = cgm_strbuf_cstr(&folded);
	if (strchr(s, '`') || !cgm_escape_is_plain(s)) {
		cgm_escape_markdown(o, s);
	} else {
		cgm_strbuf_putc(o, '`');
		for (; *s; s++) {
			if (*s == '|')
				cgm_strbuf_putc(o, '\\');
			cgm_strbuf_putc(o, *s);
		}
		cgm_strbuf_putc(o, '`');
	}
	cgm_strbuf_free(&folded);
}

/* The detail sentence, with the other function's id and the SQL text it
 * quotes as inline code. */
static void md_detail(cgm_strbuf *o, const cgm_finding *f)
{
	const char *d = f->detail ? f->detail : "";
	while (*d) {
		const char *at_other = f->other && *f->other ? strstr(d, f->other) : NULL;
		const char *at_sql = f->sql && *f->sql ? strstr(d, f->sql) : NULL;
		const char *at = at_other && (!at_sql || at_other < at_sql) ? at_other : at_sql;
		if (!at) {
			cgm_escape_markdown(o, d);
			return;
		}
		char *before = strndup(d, (size_t)(at - d));
		if (before) {
			cgm_escape_markdown(o, before);
			free(before);
		}
		if (at == at_other) {
			cgm_escape_markdown_code(o, f->other);
			d = at + strlen(f->other);
		} else {
			md_sql(o, f->sql);
			d = at + strlen(f->sql);
		}
	}
}

/* Callers a removed-called-function row names before "+N more". */
#define CALLERS_CAP 20

/* A body-changed excerpt as a diff block (after the function's table: a
 * table cell cannot hold one); a line a code block would show raw
 * (controls, bidi controls, bad bytes) is shown escaped. */
static void md_excerpt(cgm_strbuf *o, const cgm_finding *f)
{
	if (!f->excerpt)
		return;
	int run = 0, longest = 0;
	for (const char *p = f->excerpt; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	int fence = longest >= 3 ? longest + 1 : 3;
	cgm_strbuf_putc(o, '\n');
	for (int i = 0; i < fence; i++)
		cgm_strbuf_putc(o, '`');
	cgm_strbuf_puts(o, "diff\n");
	for (const char *l = f->excerpt; *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char *line = strndup(l, len);
		if (line) {
			if (cgm_escape_is_plain(line))
				cgm_strbuf_puts(o, line);
			else
				cgm_escape_text(o, line);
			cgm_strbuf_putc(o, '\n');
			free(line);
		}
		l = end ? end + 1 : l + len;
	}
	for (int i = 0; i < fence; i++)
		cgm_strbuf_putc(o, '`');
	cgm_strbuf_putc(o, '\n');
}

/* "Reached from 2 entry points (5003 calls): `api.main()`, `api.job()`,
 * +1 more." of a function. */
static void md_entries(cgm_strbuf *o, const cgm_diff *d, const cgm_finding *f)
{
	if (f->nentries == 1 && strcmp(f->entries[0].id, f->function) == 0) {
		cgm_strbuf_printf(o, "Its own entry point: no other entry point%s reaches it",
				  f->from_base ? " of BASE" : "");
		if (d->has_runtime)
			cgm_strbuf_printf(o, " (%" PRId64 " calls)", f->entry_calls);
		cgm_strbuf_puts(o, ".");
		return;
	}
	cgm_strbuf_printf(o, "Reached from %d entry point%s", f->nentries, f->nentries == 1 ? "" : "s");
	if (f->from_base)
		cgm_strbuf_puts(o, " of BASE");
	if (d->has_runtime)
		cgm_strbuf_printf(o, " (%" PRId64 " calls)", f->entry_calls);
	for (int k = 0; k < f->nentries && k < ENTRY_CAP; k++) {
		cgm_strbuf_puts(o, k ? ", " : ": ");
		cgm_escape_markdown_code(o, f->entries[k].id);
		if (d->has_runtime)
			cgm_strbuf_printf(o, " %" PRId64, f->entries[k].calls);
	}
	if (f->nentries > ENTRY_CAP)
		cgm_strbuf_printf(o, ", +%d more", f->nentries - ENTRY_CAP);
	cgm_strbuf_puts(o, ".");
}

/* One function's block: what changed in it, where it is defined, what
 * reaches it, its findings (a removed function's callers left in one row),
 * its body's excerpt. */
static void md_group(cgm_strbuf *o, const cgm_diff *d, const grouping *g, const fgroup *gr,
		     const bool *failing)
{
	cgm_strbuf_printf(o, "\n<details%s><summary>", gr->failing ? " open" : "");
	cgm_escape_markdown_code(o, gr->key);
	cgm_strbuf_puts(o, ": ");
	group_codes(o, d, g, gr);
	cgm_strbuf_puts(o, "</summary>\n\n");
	const cgm_finding *home = gr->home;
	if (home && (home->file || home->nentries)) {
		if (home->file) {
			cgm_strbuf_puts(o, "Defined at ");
			cgm_escape_markdown_code(o, cgm_arena_printf(d->arena, "%s:%d", home->file, home->file_line));
			cgm_strbuf_puts(o, home->from_base ? " in BASE." : ".");
		}
		if (home->nentries) {
			cgm_strbuf_puts(o, home->file ? " " : "");
			md_entries(o, d, home);
		}
		cgm_strbuf_puts(o, "\n\n");
	}
	cgm_strbuf_puts(o, "| finding | line | detail |\n|---|---:|---|\n");
	const cgm_finding *excerpt = NULL;
	for (int j = 0; j < gr->n;) {
		const cgm_finding *f = &d->findings[g->order[gr->first + j]];
		cgm_strbuf_printf(o, "| %s%s | ", finding_names[f->code],
				  failing && failing[f->code] ? " **fails**" : "");
		if (f->code == CGM_FIND_REMOVED_CALLED && strcmp(f->function, gr->key) != 0) {
			/* Every caller left, in one row. */
			int end = j;
			while (end < gr->n && d->findings[g->order[gr->first + end]].code == CGM_FIND_REMOVED_CALLED)
				end++;
			cgm_strbuf_printf(o, " | still called by %d: ", end - j);
			for (int c = j; c < end && c < j + CALLERS_CAP; c++) {
				const cgm_finding *caller = &d->findings[g->order[gr->first + c]];
				cgm_strbuf_puts(o, c > j ? "<br>" : "");
				cgm_escape_markdown_code(o, caller->function);
				if (caller->line > 0)
					cgm_strbuf_printf(o, " line %d", caller->line);
				if (caller->nentries) {
					cgm_strbuf_printf(o, " (%d entry point%s", caller->nentries,
							  caller->nentries == 1 ? "" : "s");
					if (d->has_runtime)
						cgm_strbuf_printf(o, ", %" PRId64 " calls", caller->entry_calls);
					cgm_strbuf_putc(o, ')');
				}
			}
			if (end - j > CALLERS_CAP)
				cgm_strbuf_printf(o, "<br>+%d more", end - j - CALLERS_CAP);
			cgm_strbuf_puts(o, " |\n");
			j = end;
			continue;
		}
		if (f->line > 0)
			cgm_strbuf_printf(o, "%d", f->line);
		cgm_strbuf_puts(o, " | ");
		md_detail(o, f);
		cgm_strbuf_puts(o, " |\n");
		if (f->excerpt && !excerpt)
			excerpt = f;
		j++;
	}
	if (excerpt)
		md_excerpt(o, excerpt);
	cgm_strbuf_puts(o, "\n</details>\n");
}

static void write_markdown(cgm_strbuf *o, const cgm_diff *d, const bool *failing)
{
	/* A bot finds its own comment by this line and edits it. */
	cgm_strbuf_puts(o, "<!-- cgmap-diff -->\n### cgmap diff\n\n");
	cgm_strbuf_puts(o, "Comparing ");
	cgm_escape_markdown_code(o, d->base_name);
	cgm_strbuf_puts(o, " (base) with ");
	cgm_escape_markdown_code(o, d->head_name);
	cgm_strbuf_puts(o, " (head).\n\n");
	if (d->nfindings == 0) {
		cgm_strbuf_puts(o, "No difference in the call graph");
		if (d->nignored)
			cgm_strbuf_printf(o, " (%d finding%s ignored by the project configuration)",
					  d->nignored, d->nignored == 1 ? "" : "s");
		cgm_strbuf_puts(o, ".\n");
		return;
	}
	grouping g;
	group_findings(&g, d, failing);
	cgm_strbuf_printf(o, "%d finding%s in %d function%s", d->nfindings,
			  d->nfindings == 1 ? "" : "s", g.ngroups, g.ngroups == 1 ? "" : "s");
	if (d->nignored)
		cgm_strbuf_printf(o, "; %d more ignored by the project configuration "
				     "(`diff.ignore`)", d->nignored);
	cgm_strbuf_puts(o, ".\n\n");
	cgm_strbuf_puts(o, "| finding | count | policy |\n|---|---:|---|\n");
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		if (d->counts[k])
			cgm_strbuf_printf(o, "| %s | %d | %s |\n", finding_names[k], d->counts[k],
					  failing && failing[k] ? "**fails**" : "");
	if (d->naffected) {
		cgm_strbuf_printf(o, "\n#### Affected entry points (%d)\n\n", d->naffected);
		cgm_strbuf_puts(o, d->has_runtime ? "| entry point | observed calls | changed functions reached |\n"
						    "|---|---:|---:|\n"
						  : "| entry point | changed functions reached |\n|---|---:|\n");
		for (int i = 0; i < d->naffected && i < AFFECTED_CAP; i++) {
			cgm_strbuf_puts(o, "| ");
			cgm_escape_markdown_code(o, d->affected[i].id);
			if (d->has_runtime)
				cgm_strbuf_printf(o, " | %" PRId64, d->affected[i].calls);
			cgm_strbuf_printf(o, " | %d |\n", d->affected[i].nfunctions);
		}
		if (d->naffected > AFFECTED_CAP)
			cgm_strbuf_printf(o, "\n+%d more\n", d->naffected - AFFECTED_CAP);
	}
	cgm_strbuf_printf(o, "\n#### Changed functions (%d)\n", g.ngroups);
	/* The comment stays within the forges' limits (GitHub takes 65,536
	 * characters): functions past the budget are counted, not shown. */
	size_t budget = d->comment_max > 0 ? (size_t)d->comment_max : CGM_DIFF_COMMENT_MAX;
	const size_t reserve = 300; /* the "+N more" line */
	int shown = 0, shown_groups = 0;
	cgm_strbuf block = CGM_STRBUF_INIT;
	for (int k = 0; k < g.ngroups; k++) {
		cgm_strbuf_reset(&block);
		md_group(&block, d, &g, &g.groups[k], failing);
		if (o->len + block.len + reserve > budget)
			break;
		cgm_strbuf_add(o, block.data, block.len);
		shown += g.groups[k].n;
		shown_groups++;
	}
	cgm_strbuf_free(&block);
	if (shown < d->nfindings)
		cgm_strbuf_printf(o, "\n+%d more finding%s in %d function%s not shown: the comment is kept "
				     "under %zu bytes (`cgmap diff --format text` or `--format json` lists them all).\n",
				  d->nfindings - shown, d->nfindings - shown == 1 ? "" : "s",
				  g.ngroups - shown_groups, g.ngroups - shown_groups == 1 ? "" : "s", budget);
	grouping_free(&g);
}

static int write_json(cgm_strbuf *o, const cgm_diff *d, const bool *failing)
{
	json_t *root = json_object();
	json_object_set_new(root, "format", json_string("cgmap-diff"));
	json_object_set_new(root, "format_version", json_integer(1));
	json_object_set_new(root, "base", json_string(d->base_name));
	json_object_set_new(root, "head", json_string(d->head_name));
	json_t *summary = json_object();
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		json_object_set_new(summary, finding_names[k], json_integer(d->counts[k]));
	json_object_set_new(root, "summary", summary);
	json_t *fails = json_array();
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		if (failing && failing[k] && d->counts[k])
			json_array_append_new(fails, json_string(finding_names[k]));
	json_object_set_new(root, "failing", fails);
	json_t *list = json_array();
	for (int i = 0; i < d->nfindings; i++) {
		const cgm_finding *f = &d->findings[i];
		json_t *item = json_object();
		json_object_set_new(item, "code", json_string(finding_names[f->code]));
		json_object_set_new(item, "function", json_string(f->function));
		json_object_set_new(item, "other", f->other ? json_string(f->other) : json_null());
		json_object_set_new(item, "line", f->line > 0 ? json_integer(f->line) : json_null());
		json_object_set_new(item, "detail", json_string(f->detail ? f->detail : ""));
		json_object_set_new(item, "excerpt", f->excerpt ? json_string(f->excerpt) : json_null());
		json_object_set_new(item, "file", f->file ? json_string(f->file) : json_null());
		json_object_set_new(item, "file_line", f->file ? json_integer(f->file_line) : json_null());
		json_object_set_new(item, "entry_side", json_string(f->from_base ? "base" : "head"));
		json_object_set_new(item, "entry_point_count", json_integer(f->nentries));
		json_object_set_new(item, "entry_calls",
				    d->has_runtime ? json_integer(f->entry_calls) : json_null());
		json_t *entries = json_array();
		for (int k = 0; k < f->nentries; k++) {
			json_t *e = json_object();
			json_object_set_new(e, "function", json_string(f->entries[k].id));
			json_object_set_new(e, "calls", d->has_runtime ? json_integer(f->entries[k].calls)
								       : json_null());
			json_array_append_new(entries, e);
		}
		json_object_set_new(item, "entry_points", entries);
		json_array_append_new(list, item);
	}
	json_object_set_new(root, "findings", list);
	json_object_set_new(root, "runtime", json_boolean(d->has_runtime));
	json_object_set_new(root, "hot_threshold", json_integer(d->hot_threshold));
	json_object_set_new(root, "ignored", json_integer(d->nignored));
	json_t *affected = json_array();
	for (int i = 0; i < d->naffected; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "function", json_string(d->affected[i].id));
		json_object_set_new(e, "calls", d->has_runtime ? json_integer(d->affected[i].calls)
							       : json_null());
		json_object_set_new(e, "functions", json_integer(d->affected[i].nfunctions));
		json_array_append_new(affected, e);
	}
	json_object_set_new(root, "affected_entry_points", affected);
	char *text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	json_decref(root);
	if (!text)
		return cgm_error(CGM_EIO, "cannot write the diff as JSON (a name is not valid UTF-8)");
	cgm_strbuf_puts(o, text);
	cgm_strbuf_putc(o, '\n');
	free(text);
	return 0;
}

int cgm_diff_write(FILE *out, const cgm_diff *diff, cgm_diff_format format,
		   const bool failing[CGM_FIND_COUNT])
{
	cgm_strbuf o = CGM_STRBUF_INIT;
	int rc = 0;
	if (format == CGM_DIFF_MARKDOWN)
		write_markdown(&o, diff, failing);
	else if (format == CGM_DIFF_JSON)
		rc = write_json(&o, diff, failing);
	else
		write_text(&o, diff, failing);
	if (rc == 0 && (fwrite(o.data ? o.data : "", 1, o.len, out) != o.len || fflush(out) != 0))
		rc = cgm_error(CGM_EIO, "cannot write the diff");
	cgm_strbuf_free(&o);
	return rc;
}
