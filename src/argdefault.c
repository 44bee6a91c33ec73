/*
 * argdefault.c - the functions a parameter's default expression calls,
 * which run in the caller whenever a call leaves that parameter out.
 *
 * In:  an indexed model (each function's `arguments`, as
 *      pg_get_function_arguments prints them: "a integer, b integer
 *      DEFAULT app.next_id()"), and resolution's way to resolve one call
 *      site in the context of the function that owns the default.
 * Out: a table, per function and input parameter, of the user functions
 *      its default calls (malloc'd; cgm_argdefaults_free frees it) and the
 *      object naming the default ("default app.f(integer,integer)
 *      parameter b", in the model's arena, since edges keep it).
 *
 * Why: PostgreSQL plans a call f(1) of f(a int, b int DEFAULT g()) as
 * f(1, g()): g runs in the caller's query, and cgmap_trace sees the
 * caller call g.  Without these edges g looks uncalled.  The expression is
 * parsed as `SELECT expr` by the SQL extractor, in a scratch arena freed
 * before returning; only resolved calls count (PostgreSQL resolved the
 * default when the function was created, so it calls exactly one).
 */
#include "cgmap/argdefault.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"

struct cgm_argdefaults {
	cgm_argdefault_call *calls;
	int ncalls;
	int *first; /* per function: its first call, -1 when none */
	int nfunctions;
};

/* The end of the top-level item starting at p (a ',' or the NUL). */
static const char *item_end(const char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '\'' || *p == '"') {
			char q = *p;
			for (p++; *p && !(*p == q && p[1] != q); p++)
				if (*p == q)
					p++;
			if (!*p)
				return p;
		} else if (*p == '(' || *p == '[') {
			depth++;
		} else if (*p == ')' || *p == ']') {
			depth--;
		} else if (*p == ',' && depth <= 0) {
			return p;
		}
	}
	return p;
}

/* Where " DEFAULT " starts the default of the item [p, end), or NULL. */
static const char *default_at(const char *p, const char *end)
{
	int depth = 0;
	for (const char *s = p; s < end; s++) {
		if (*s == '\'' || *s == '"') {
			char q = *s;
			for (s++; s < end && !(*s == q && (s + 1 >= end || s[1] != q)); s++)
				if (*s == q)
					s++;
		} else if (*s == '(' || *s == '[') {
			depth++;
		} else if (*s == ')' || *s == ']') {
			depth--;
		} else if (depth == 0 && *s == ' ' && end - s > 9 && strncmp(s, " DEFAULT ", 9) == 0) {
			return s + 9;
		}
	}
	return NULL;
}

static bool starts_with_word(const char *p, const char *word)
{
	size_t n = strlen(word);
	return strncmp(p, word, n) == 0 && p[n] == ' ';
}

bool cgm_argument_default(const char *arguments, int param, const char **expr, size_t *len)
{
	int input = 0;
	for (const char *p = arguments ? arguments : ""; *p;) {
		while (*p == ' ')
			p++;
		const char *end = item_end(p);
		if (!starts_with_word(p, "OUT") && !starts_with_word(p, "TABLE")) {
			if (input++ == param) {
				const char *d = default_at(p, end);
				if (!d)
					return false;
				*expr = d;
				*len = (size_t)(end - d);
				return true;
			}
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

static int compare_calls(const void *a, const void *b)
{
	const cgm_argdefault_call *x = a, *y = b;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->param != y->param)
		return x->param < y->param ? -1 : 1;
	return (x->target > y->target) - (x->target < y->target);
}

/* The calls of one default expression `expr` of parameter `param` of
 * function `fi`, appended to *calls. */
static void calls_of_default(cgm_model *model, int fi, int param, const char *pname,
			     const char *expr, size_t len, bool include_builtins,
			     cgm_argdefault_resolve_fn resolve, void *ctx, cgm_argdefault_call **calls,
			     int *ncalls, int *cap)
{
	const cgm_function *g = &model->functions[fi];
	cgm_arena *scratch = cgm_arena_new();
	cgm_function tmp = { 0 };
	tmp.id = g->id;
	tmp.schema = g->schema;
	tmp.name = g->name;
	tmp.language = "sql";
	tmp.npath = g->npath;
	tmp.search_path = g->search_path;
	tmp.nowner_path = g->nowner_path;
	tmp.owner_path = g->owner_path;
	tmp.scc = -1;
	tmp.source = cgm_arena_printf(scratch, "SELECT %.*s", (int)len, expr);
	tmp.line_count = 1;
	cgm_extract_function(scratch, &tmp);
	const char *object = NULL;
	for (int s = 0; tmp.nerrors == 0 && s < tmp.nsites; s++) {
		cgm_site *site = &tmp.sites[s];
		if (site->kind != CGM_SITE_CALL)
			continue;
		resolve(ctx, scratch, g, &tmp, site, tmp.site_exprs ? &tmp.site_exprs[s] : NULL);
		if (site->resolution != CGM_RES_RESOLVED &&
		    !(include_builtins && site->resolution == CGM_RES_BUILTIN))
			continue;
		for (int t = 0; t < site->ntargets; t++) {
			int target = site->targets[t];
			if (target < 0 || target >= model->nfunctions ||
			    (model->functions[target].builtin && !include_builtins))
				continue;
			if (!object)
				object = pname ? cgm_arena_printf(model->arena, "default %s parameter %s",
								  g->id, pname)
					       : cgm_arena_printf(model->arena, "default %s parameter %d",
								  g->id, param + 1);
			if (*ncalls == *cap) {
				*cap = *cap ? *cap * 2 : 16;
				*calls = cgm_xrealloc(*calls, sizeof(cgm_argdefault_call) * (size_t)*cap);
			}
			(*calls)[(*ncalls)++] = (cgm_argdefault_call){ fi, param, target, object };
		}
	}
	cgm_arena_free(scratch);
}

cgm_argdefaults *cgm_argdefaults_build(cgm_model *model, bool include_builtins,
				       cgm_argdefault_resolve_fn resolve, void *ctx)
{
	cgm_argdefaults *d = cgm_xcalloc(1, sizeof(*d));
	d->nfunctions = model->nfunctions;
	d->first = cgm_xcalloc((size_t)(model->nfunctions ? model->nfunctions : 1), sizeof(int));
	int cap = 0;
	for (int fi = 0; fi < model->nfunctions; fi++) {
		d->first[fi] = -1;
		const cgm_function *g = &model->functions[fi];
		/* Builtins' defaults call builtins. */
		if (g->ndefaults <= 0 || !g->arguments || g->builtin || !strchr(g->arguments, '('))
			continue;
		int param = 0;
		for (const char *p = g->arguments; *p;) {
			while (*p == ' ')
				p++;
			const char *end = item_end(p);
			bool input = !starts_with_word(p, "OUT") && !starts_with_word(p, "TABLE");
			const char *expr = input ? default_at(p, end) : NULL;
			if (expr && param >= g->nargs - g->ndefaults && param < g->nargs &&
			    memchr(expr, '(', (size_t)(end - expr)))
				calls_of_default(model, fi, param, g->argnames ? g->argnames[param] : NULL,
						 expr, (size_t)(end - expr), include_builtins, resolve, ctx,
						 &d->calls, &d->ncalls, &cap);
			param += input;
			p = *end ? end + 1 : end;
		}
	}
	if (d->ncalls > 1)
		qsort(d->calls, (size_t)d->ncalls, sizeof(cgm_argdefault_call), compare_calls);
	for (int i = d->ncalls - 1; i >= 0; i--)
		d->first[d->calls[i].fn] = i;
	return d;
}

bool cgm_argdefaults_any(const cgm_argdefaults *d, int fn)
{
	return d && fn >= 0 && fn < d->nfunctions && d->first[fn] >= 0;
}

int cgm_argdefaults_of(const cgm_argdefaults *d, int fn, int param,
		       const cgm_argdefault_call **calls)
{
	*calls = NULL;
	if (!cgm_argdefaults_any(d, fn))
		return 0;
	int i = d->first[fn];
	while (i < d->ncalls && d->calls[i].fn == fn && d->calls[i].param < param)
		i++;
	int n = 0;
	while (i + n < d->ncalls && d->calls[i + n].fn == fn && d->calls[i + n].param == param)
		n++;
	*calls = n ? &d->calls[i] : NULL;
	return n;
}

void cgm_argdefaults_free(cgm_argdefaults *d)
{
	if (!d)
		return;
	free(d->calls);
	free(d->first);
	free(d);
}
