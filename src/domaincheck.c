/*
 * domaincheck.c - the CHECKs of domains that run where a value becomes of
 * a domain (cgmap/domaincheck.h).
 *
 * In:  the linked model's domain checks and type infos.
 * Out: targets via domain on the sites resolve_ops.c asks about (arena of
 *      the caller); the index (sorted copies of the checks and of the
 *      domains' base types) is malloc'd and freed by cgm_domain_index_free.
 *
 * Why: PostgreSQL coerces a value to a domain with CoerceToDomain, which
 * evaluates each CHECK in the statement doing the coercion: the function
 * a check calls is called by the caller of f(app.code), by the function
 * whose variable of app.code is assigned, by the one returning app.code,
 * and cgmap_trace sees those callers call it.  A value of the domain
 * already (a parameter of app.code passed on) is only relabelled: no
 * check runs, and no edge is made for it.
 */
#include "cgmap/domaincheck.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "resolve_ops.h"

typedef struct check_entry {
	const char *type;
	const char *object;
	int function;
} check_entry;

typedef struct base_entry {
	const char *type;
	const char *base;
} base_entry;

struct cgm_domain_index {
	check_entry *checks; /* by type */
	int nchecks;
	base_entry *bases;   /* each domain's base type, by domain */
	int nbases;
};

static int compare_checks(const void *a, const void *b)
{
	const check_entry *x = a, *y = b;
	int c = strcmp(x->type, y->type);
	return c ? c : strcmp(x->object, y->object);
}

static int compare_bases(const void *a, const void *b)
{
	return strcmp(((const base_entry *)a)->type, ((const base_entry *)b)->type);
}

cgm_domain_index *cgm_domain_index_new(const cgm_model *model, bool include_builtins)
{
	cgm_domain_index *ix = cgm_xcalloc(1, sizeof *ix);
	ix->checks = cgm_xcalloc((size_t)model->ndomain_checks + 1, sizeof(check_entry));
	for (int i = 0; i < model->ndomain_checks; i++) {
		const cgm_domain_check *dc = &model->domain_checks[i];
		int fn = dc->function;
		if (fn < 0 || fn >= model->nfunctions || !dc->type || !dc->object ||
		    (model->functions[fn].builtin && !include_builtins))
			continue;
		ix->checks[ix->nchecks++] = (check_entry){ dc->type, dc->object, fn };
	}
	qsort(ix->checks, (size_t)ix->nchecks, sizeof(check_entry), compare_checks);
	ix->bases = cgm_xcalloc((size_t)model->ntype_infos + 1, sizeof(base_entry));
	for (int i = 0; ix->nchecks > 0 && i < model->ntype_infos; i++) {
		const cgm_type_info *t = &model->type_infos[i];
		if (t->kind == 'd' && t->name && t->base)
			ix->bases[ix->nbases++] = (base_entry){ t->name, t->base };
	}
	qsort(ix->bases, (size_t)ix->nbases, sizeof(base_entry), compare_bases);
	return ix;
}

void cgm_domain_index_free(cgm_domain_index *ix)
{
	if (!ix)
		return;
	free(ix->checks);
	free(ix->bases);
	free(ix);
}

/* The first check of `type`, or NULL. */
static const check_entry *first_check(const cgm_domain_index *ix, const char *type)
{
	if (!ix || ix->nchecks == 0 || !type)
		return NULL;
	size_t lo = 0, hi = (size_t)ix->nchecks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(ix->checks[mid].type, type) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)ix->nchecks && strcmp(ix->checks[lo].type, type) == 0 ? &ix->checks[lo]
										   : NULL;
}

bool cgm_domain_checked(const cgm_domain_index *ix, const char *type)
{
	return first_check(ix, type) != NULL;
}

/* Whether a value of `from` is of `to` already: `to` itself, or a domain
 * over it (through domains over domains, as deep as PostgreSQL allows
 * chains to be written, with a bound against a cycle in bad input). */
static bool already_of(const cgm_domain_index *ix, const char *from, const char *to)
{
	for (int depth = 0; from && depth < 64; depth++) {
		if (strcmp(from, to) == 0)
			return true;
		base_entry key = { from, NULL };
		const base_entry *b = bsearch(&key, ix->bases, (size_t)ix->nbases, sizeof(base_entry),
					      compare_bases);
		from = b ? b->base : NULL;
	}
	return false;
}

int cgm_domain_check_targets(const cgm_domain_index *ix, cgm_arena *arena, cgm_site *s,
			     const char *from, const char *to)
{
	const check_entry *c = first_check(ix, to);
	if (!c || already_of(ix, from, to))
		return 0;
	int added = 0;
	for (const check_entry *end = ix->checks + ix->nchecks; c < end && strcmp(c->type, to) == 0;
	     c++, added++)
		cgm_site_add_target(arena, s, c->function, CGM_VIA_DOMAIN, c->object);
	return added;
}
