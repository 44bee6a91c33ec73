/*
 * exprtype.c - the types of call arguments and PostgreSQL's choice among
 * overloads (see cgmap/exprtype.h for what comes in and goes out).
 *
 * In:  argument expressions recorded by extraction (cgm_site_exprs.argexprs,
 *      beside the sites), the model's relations, functions, operators and casts (through a
 *      cgm_catalog built once per resolution and only read after).
 * Out: canonical type names interned in the typer's arena; candidate
 *      lists reordered in place.  The catalog is heap memory, freed by
 *      cgm_catalog_free; nothing else here owns memory.
 *
 * The rules follow PostgreSQL 15's parse analysis (parse_func.c,
 * parse_coerce.c, parse_oper.c), written anew for type names instead of
 * OIDs: what cannot be known (a type nobody recorded, a domain whose base
 * type was not read) is never guessed into a match or a mismatch; the
 * model's type infos (cgm_type_info: kinds, categories and domains' base
 * types, read from the database or from CREATE DOMAIN) let a user type be
 * judged as PostgreSQL judges it.
 */
#include "cgmap/exprtype.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/strbuf.h"
#include "cgmap/types.h"
#include "exprtype_pg15.h"

/* ---- PostgreSQL 15's own types ---------------------------------------- */

static int compare_type_entry(const void *key, const void *entry)
{
	return strcmp((const char *)key, ((const cgm_pg15_type *)entry)->name);
}

static const cgm_pg15_type *pg15_type(const char *t)
{
	return t ? bsearch(t, cgm_pg15_types, (size_t)cgm_pg15_ntypes, sizeof(cgm_pg15_type),
			   compare_type_entry)
		 : NULL;
}

static bool is_array(const char *t)
{
	size_t n = t ? strlen(t) : 0;
	return n > 2 && t[n - 2] == '[' && t[n - 1] == ']';
}

/* The part after the schema of a canonical type name ("app.t" -> "t"). */
static const char *unqualified(const char *t)
{
	const char *dot = NULL;
	bool quoted = false;
	for (const char *p = t; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '.' && !quoted)
			dot = p;
	}
	return dot ? dot + 1 : t;
}

/* Equal type names, one perhaps written without its schema (a type cgmap
 * could not place: the same name is taken as the same type). */
static bool types_equal(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	const char *ua = unqualified(a), *ub = unqualified(b);
	return (ua == a || ub == b) && strcmp(ua, ub) == 0;
}

char cgm_type_category(const char *t)
{
	if (!t)
		return 'U';
	if (is_array(t))
		return 'A';
	const cgm_pg15_type *k = pg15_type(t);
	return k ? k->category : 'U';
}

bool cgm_type_preferred(const char *t)
{
	const cgm_pg15_type *k = is_array(t) ? NULL : pg15_type(t);
	return k && k->preferred;
}

bool cgm_type_is_builtin(const char *t)
{
	if (!t)
		return false;
	if (!is_array(t))
		return pg15_type(t) != NULL;
	char buf[128];
	size_t n = strlen(t) - 2;
	if (n >= sizeof buf)
		return false;
	memcpy(buf, t, n);
	buf[n] = '\0';
	return pg15_type(buf) != NULL;
}

bool cgm_type_is_polymorphic(const char *t)
{
	return t && (strncmp(t, "any", 3) == 0 || strcmp(t, "\"any\"") == 0);
}

const char *cgm_type_element(cgm_arena *arena, const char *t)
{
	if (!is_array(t))
		return NULL;
	return cgm_arena_strndup(arena, t, strlen(t) - 2);
}

const char *cgm_type_array_of(cgm_arena *arena, const char *t)
{
	if (!t)
		return NULL;
	if (is_array(t))
		return t; /* format_type prints any number of dimensions as one [] */
	return cgm_arena_printf(arena, "%s[]", t);
}

/* ---- the catalog -------------------------------------------------------- */

typedef struct cast_pair {
	const char *source, *target;
} cast_pair;

typedef struct rel_entry {
	const char *name;
	int index;
} rel_entry;

struct cgm_catalog {
	const cgm_model *model;
	cast_pair *casts;   /* implicit casts, by source then target */
	int ncasts;
	const cgm_type_info **infos; /* the model's type infos, by name */
	int ninfos;
	rel_entry *rels;    /* relations by name */
	int nrels;
	int *ops;           /* operator indexes, by name */
	int nops;
};

static int compare_casts(const void *a, const void *b)
{
	const cast_pair *x = a, *y = b;
	int c = strcmp(x->source, y->source);
	return c ? c : strcmp(x->target, y->target);
}

static int compare_rels(const void *a, const void *b)
{
	const rel_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->index - y->index;
}

static int compare_infos(const void *a, const void *b)
{
	const cgm_type_info *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

typedef struct op_key {
	const char *name;
	int index;
} op_key;

static int compare_op_keys(const void *a, const void *b)
{
	const op_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->index - y->index;
}

cgm_catalog *cgm_catalog_new(const cgm_model *model)
{
	cgm_catalog *c = cgm_xcalloc(1, sizeof *c);
	c->model = model;
	bool model_builtin_casts = false;
	for (int i = 0; i < model->ncasts; i++)
		if (model->casts[i].builtin)
			model_builtin_casts = true;
	int cap = model->ncasts + (model_builtin_casts ? 0 : cgm_pg15_nimplicit_casts);
	c->casts = cgm_xcalloc((size_t)(cap ? cap : 1), sizeof(cast_pair));
	for (int i = 0; i < model->ncasts; i++) {
		const cgm_cast *k = &model->casts[i];
		if (k->context == 'i' && k->source && k->target && strcmp(k->source, k->target) != 0)
			c->casts[c->ncasts++] = (cast_pair){ k->source, k->target };
	}
	if (!model_builtin_casts)
		for (int i = 0; i < cgm_pg15_nimplicit_casts; i++)
			c->casts[c->ncasts++] = (cast_pair){ cgm_pg15_implicit_casts[i].source,
							    cgm_pg15_implicit_casts[i].target };
	qsort(c->casts, (size_t)c->ncasts, sizeof(cast_pair), compare_casts);

	c->infos = cgm_xcalloc((size_t)(model->ntype_infos ? model->ntype_infos : 1),
			       sizeof(cgm_type_info *));
	for (int i = 0; i < model->ntype_infos; i++)
		if (model->type_infos[i].name && model->type_infos[i].kind)
			c->infos[c->ninfos++] = &model->type_infos[i];
	qsort(c->infos, (size_t)c->ninfos, sizeof(cgm_type_info *), compare_infos);

	c->rels = cgm_xcalloc((size_t)(model->nrelations ? model->nrelations : 1), sizeof(rel_entry));
	for (int i = 0; i < model->nrelations; i++)
		if (model->relations[i].name)
			c->rels[c->nrels++] = (rel_entry){ model->relations[i].name, i };
	qsort(c->rels, (size_t)c->nrels, sizeof(rel_entry), compare_rels);

	op_key *keys = cgm_xcalloc((size_t)(model->noperators ? model->noperators : 1), sizeof(op_key));
	int n = 0;
	for (int i = 0; i < model->noperators; i++)
		if (model->operators[i].name && model->operators[i].right)
			keys[n++] = (op_key){ model->operators[i].name, i };
	qsort(keys, (size_t)n, sizeof(op_key), compare_op_keys);
	c->ops = cgm_xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++)
		c->ops[i] = keys[i].index;
	c->nops = n;
	free(keys);
	return c;
}

void cgm_catalog_free(cgm_catalog *c)
{
	if (!c)
		return;
	free(c->casts);
	free(c->infos);
	free(c->rels);
	free(c->ops);
	free(c);
}

/* What the catalog knows of a type outside pg_catalog, or NULL. */
static const cgm_type_info *type_info(const cgm_catalog *c, const char *t)
{
	if (!c || !t || c->ninfos == 0)
		return NULL;
	int lo = 0, hi = c->ninfos;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		int cmp = strcmp(c->infos[mid]->name, t);
		if (cmp == 0)
			return c->infos[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The type a value of t is coerced as: a domain's base type (through
 * domains over domains), else t. */
static const char *domain_base(const cgm_catalog *c, const char *t)
{
	for (int depth = 0; t && depth < 32; depth++) {
		const cgm_type_info *info = type_info(c, t);
		if (!info || info->kind != 'd' || !info->base)
			break;
		t = info->base;
	}
	return t;
}

int cgm_type_domain_constrained(const cgm_catalog *c, const char *t)
{
	for (int depth = 0; t && depth < 32; depth++) {
		const cgm_type_info *info = type_info(c, t);
		if (!info)
			return cgm_type_is_builtin(t) ? 0 : -1;
		if (info->kind != 'd')
			return 0;
		if (info->constrained == 'y')
			return 1;
		if (info->constrained != 'n' || !info->base)
			return -1;
		t = info->base;
	}
	return -1;
}

/* pg_type.typcategory and typispreferred, for types outside pg_catalog
 * too when the catalog knows them. */
static char category_of(const cgm_catalog *c, const char *t)
{
	char cat = cgm_type_category(t);
	const cgm_type_info *info = cat == 'U' ? type_info(c, t) : NULL;
	return info && info->category ? info->category : cat;
}

static bool preferred_of(const cgm_catalog *c, const char *t)
{
	if (cgm_type_preferred(t))
		return true;
	const cgm_type_info *info = cgm_type_category(t) == 'U' ? type_info(c, t) : NULL;
	return info && info->preferred;
}

static bool implicit_cast(const cgm_catalog *c, const char *from, const char *to)
{
	cast_pair key = { from, to };
	return bsearch(&key, c->casts, (size_t)c->ncasts, sizeof(cast_pair), compare_casts) != NULL;
}

/* The relations named `name`: entries [*first, *first + count). */
static int relations_named(const cgm_catalog *c, const char *name, int *first)
{
	int lo = 0, hi = c->nrels;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(c->rels[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	int n = 0;
	while (lo + n < c->nrels && strcmp(c->rels[lo + n].name, name) == 0)
		n++;
	*first = lo;
	return n;
}

/* The relation schema.name, or name through the path; NULL when none. */
static const cgm_relation *find_relation(const cgm_catalog *c, const char *schema, const char *name,
					 const char *const *path, int npath)
{
	int first;
	int n = name ? relations_named(c, name, &first) : 0;
	if (n == 0)
		return NULL;
	const cgm_relation *best = NULL;
	int best_rank = 1 << 30;
	for (int i = 0; i < n; i++) {
		const cgm_relation *r = &c->model->relations[c->rels[first + i].index];
		if (schema) {
			if (r->schema && strcmp(r->schema, schema) == 0)
				return r;
			continue;
		}
		for (int p = 0; p < npath && p < best_rank; p++)
			if (r->schema && strcmp(r->schema, path[p]) == 0) {
				best = r;
				best_rank = p;
			}
	}
	return best;
}

/* ---- coercion ----------------------------------------------------------- */

typedef enum { POLY_NONE, POLY_ELEM, POLY_ARRAY, POLY_RANGE, POLY_COMPAT, POLY_COMPAT_ARRAY } poly_kind;
static poly_kind poly_of(const char *t);

static bool is_composite_name(const cgm_catalog *c, const char *t);

cgm_coercion cgm_can_coerce(const cgm_catalog *c, const char *from, const char *to)
{
	if (!from || !to)
		return CGM_COERCE_MAYBE;
	if (types_equal(from, to) || strcmp(from, "unknown") == 0 || strcmp(to, "\"any\"") == 0)
		return CGM_COERCE_YES;
	char fc = cgm_type_category(from), tc = cgm_type_category(to);
	bool fb = cgm_type_is_builtin(from), tb = cgm_type_is_builtin(to);
	if (cgm_type_is_polymorphic(from)) {
		/* A value of the caller's own polymorphic type: each call's actual
		 * type, known only as an array or not. */
		poly_kind fk = poly_of(from), tk = poly_of(to);
		bool from_array = fk == POLY_ARRAY || fk == POLY_COMPAT_ARRAY;
		bool from_scalar = strcmp(from, "anynonarray") == 0 || strcmp(from, "anycompatiblenonarray") == 0 ||
				   strcmp(from, "anyenum") == 0 || fk == POLY_RANGE;
		if (from_array) {
			if (tk == POLY_ARRAY || tk == POLY_COMPAT_ARRAY || strcmp(to, "anyelement") == 0 ||
			    strcmp(to, "anycompatible") == 0)
				return CGM_COERCE_YES;
			if (strcmp(to, "anynonarray") == 0 || strcmp(to, "anycompatiblenonarray") == 0 ||
			    (tb && tc != 'A') || tk == POLY_RANGE)
				return CGM_COERCE_NO;
			return CGM_COERCE_MAYBE;
		}
		if (from_scalar && (tk == POLY_ARRAY || tk == POLY_COMPAT_ARRAY || tc == 'A'))
			return CGM_COERCE_NO;
		return CGM_COERCE_MAYBE;
	}
	if (cgm_type_is_polymorphic(to)) {
		bool farr = fc == 'A';
		if (strcmp(to, "anyelement") == 0 || strcmp(to, "anycompatible") == 0)
			return CGM_COERCE_YES;
		if (strcmp(to, "anyarray") == 0 || strcmp(to, "anycompatiblearray") == 0)
			return farr ? CGM_COERCE_YES : fb ? CGM_COERCE_NO : CGM_COERCE_MAYBE;
		if (strcmp(to, "anynonarray") == 0 || strcmp(to, "anycompatiblenonarray") == 0)
			return farr ? CGM_COERCE_NO : CGM_COERCE_YES;
		if (strcmp(to, "anyenum") == 0)
			return fb ? CGM_COERCE_NO : CGM_COERCE_MAYBE;
		if (strcmp(to, "anyrange") == 0 || strcmp(to, "anycompatiblerange") == 0)
			return fc == 'R' && strstr(from, "multirange") == NULL ? CGM_COERCE_YES
			       : fb || farr					 ? CGM_COERCE_NO
										 : CGM_COERCE_MAYBE;
		if (strcmp(to, "anymultirange") == 0 || strcmp(to, "anycompatiblemultirange") == 0)
			return strstr(from, "multirange") ? CGM_COERCE_YES
			       : fb || farr		  ? CGM_COERCE_NO
							  : CGM_COERCE_MAYBE;
		return CGM_COERCE_NO;
	}
	if (strcmp(to, "record") == 0) {
		if (strcmp(from, "record") == 0 || is_composite_name(c, from))
			return CGM_COERCE_YES;
		return fb || fc == 'A' ? CGM_COERCE_NO : CGM_COERCE_MAYBE;
	}
	if (strcmp(from, "record") == 0)
		return is_composite_name(c, to) ? CGM_COERCE_YES : tb || tc == 'A' ? CGM_COERCE_NO
											: CGM_COERCE_MAYBE;
	/* Domains coerce as their base types, to and from (as
	 * find_coercion_pathway looks at base types before pg_cast). */
	const char *fbase = fb ? from : domain_base(c, from), *tbase = tb ? to : domain_base(c, to);
	if (fbase != from || tbase != to)
		return cgm_can_coerce(c, fbase, tbase);
	if (implicit_cast(c, from, to))
		return CGM_COERCE_YES;
	/* A table's row type is no other type (but record, above). */
	if ((!fb && fc != 'A' && is_composite_name(c, from) && (tb || tc == 'A')) ||
	    (!tb && tc != 'A' && is_composite_name(c, to) && (fb || fc == 'A')))
		return CGM_COERCE_NO;
	if (fc == 'A' && tc == 'A') {
		char fe[256], te[256];
		size_t fl = strlen(from) - 2, tl = strlen(to) - 2;
		if (fl >= sizeof fe || tl >= sizeof te)
			return CGM_COERCE_MAYBE;
		memcpy(fe, from, fl);
		fe[fl] = '\0';
		memcpy(te, to, tl);
		te[tl] = '\0';
		return cgm_can_coerce(c, fe, te);
	}
	/* Types whose kind the catalog knows (PostgreSQL's, or read from the
	 * database) take no implicit cast pg_cast does not list. */
	const cgm_type_info *fi = fb ? NULL : type_info(c, from), *ti = tb ? NULL : type_info(c, to);
	if ((fb || (fi && fi->kind != 'p')) && (tb || (ti && ti->kind != 'p')))
		return CGM_COERCE_NO;
	if ((fc == 'A') != (tc == 'A') && (fb || tb))
		return CGM_COERCE_NO; /* an array and a scalar of PostgreSQL's own */
	/* A domain over one of them, an enum, a user type: cgmap cannot tell. */
	return CGM_COERCE_MAYBE;
}

/* ---- polymorphism ------------------------------------------------------- */

static poly_kind poly_of(const char *t)
{
	if (!t || strncmp(t, "any", 3) != 0)
		return POLY_NONE;
	if (strcmp(t, "anyelement") == 0 || strcmp(t, "anynonarray") == 0 || strcmp(t, "anyenum") == 0)
		return POLY_ELEM;
	if (strcmp(t, "anyarray") == 0)
		return POLY_ARRAY;
	if (strcmp(t, "anyrange") == 0 || strcmp(t, "anymultirange") == 0)
		return POLY_RANGE;
	if (strcmp(t, "anycompatible") == 0 || strcmp(t, "anycompatiblenonarray") == 0)
		return POLY_COMPAT;
	if (strcmp(t, "anycompatiblearray") == 0)
		return POLY_COMPAT_ARRAY;
	return POLY_NONE;
}

/* The element type anyelement stands for, from the arguments: NULL when no
 * argument tells (or they disagree: *conflict set). */
static const char *poly_binding(cgm_arena *arena, int nargs, const char *const *params,
				const char *const *argtypes, bool *conflict)
{
	const char *bound = NULL;
	*conflict = false;
	for (int i = 0; i < nargs; i++) {
		const char *t = argtypes[i];
		if (!t || strcmp(t, "unknown") == 0 || cgm_type_is_polymorphic(t))
			continue;
		const char *elem = NULL;
		switch (poly_of(params[i])) {
		case POLY_ELEM:
			elem = t;
			break;
		case POLY_ARRAY:
			elem = is_array(t) ? cgm_arena_strndup(arena, t, strlen(t) - 2) : NULL;
			break;
		default:
			continue;
		}
		if (!elem)
			continue;
		if (bound && strcmp(bound, elem) != 0)
			*conflict = true;
		bound = elem;
	}
	return bound;
}

/* Do the arguments bind anyelement (and the element of anyarray) to one
 * type? */
static bool poly_consistent(int nargs, const char *const *params, const char *const *argtypes)
{
	const char *bound = NULL;
	size_t bound_len = 0;
	for (int i = 0; i < nargs; i++) {
		const char *t = argtypes[i];
		if (!t || strcmp(t, "unknown") == 0 || cgm_type_is_polymorphic(t))
			continue;
		poly_kind k = poly_of(params[i]);
		size_t len;
		if (k == POLY_ELEM)
			len = strlen(t);
		else if (k == POLY_ARRAY && is_array(t))
			len = strlen(t) - 2;
		else
			continue;
		if (bound && (len != bound_len || strncmp(bound, t, len) != 0))
			return false;
		bound = t;
		bound_len = len;
	}
	return true;
}

/* ---- the common type ---------------------------------------------------- */

const char *cgm_common_type(const cgm_catalog *c, int n, const char *const *types)
{
	const char *chosen = NULL;
	for (int i = 0; i < n; i++) {
		const char *t = types[i];
		if (!t)
			return NULL;
		if (strcmp(t, "unknown") == 0)
			continue;
		if (!chosen) {
			chosen = t;
			continue;
		}
		if (strcmp(t, chosen) == 0)
			continue;
		char cc = cgm_type_category(chosen), tc = cgm_type_category(t);
		if (cc != tc)
			return NULL; /* PostgreSQL refuses: types of different categories */
		if (!cgm_type_is_builtin(chosen) || !cgm_type_is_builtin(t))
			return NULL; /* domains and user types: not known here */
		/* The later type wins when it is preferred, or when the chosen one
		 * casts to it implicitly and not back. */
		if (!cgm_type_preferred(chosen) &&
		    (cgm_type_preferred(t) ||
		     (cgm_can_coerce(c, chosen, t) == CGM_COERCE_YES && cgm_can_coerce(c, t, chosen) != CGM_COERCE_YES)))
			chosen = t;
	}
	return chosen ? chosen : "text";
}

/* ---- result types ------------------------------------------------------- */

const char *cgm_result_type(const cgm_catalog *c, cgm_arena *arena, const char *result, int nargs,
			    const char *const *params, const char *const *argtypes)
{
	if (!result)
		return NULL;
	if (strncmp(result, "SETOF ", 6) == 0)
		result += 6;
	if (strncmp(result, "TABLE(", 6) == 0)
		return NULL;
	poly_kind k = poly_of(result);
	if (k == POLY_NONE)
		return cgm_type_is_polymorphic(result) ? NULL : result;
	if (k == POLY_ELEM || k == POLY_ARRAY) {
		/* anyarray result taken from an anyarray argument as it is. */
		if (k == POLY_ARRAY)
			for (int i = 0; i < nargs; i++)
				if (poly_of(params[i]) == POLY_ARRAY && argtypes[i] && is_array(argtypes[i]))
					return argtypes[i];
		bool conflict;
		const char *elem = poly_binding(arena, nargs, params, argtypes, &conflict);
		if (conflict)
			return NULL;
		/* array_agg(x) of an x cgmap cannot type is still some array:
		 * as the caller's own anyarray value, it narrows the overloads
		 * it is passed to (f(text[]) over f(text)). */
		if (!elem)
			return k == POLY_ARRAY ? "anyarray" : NULL;
		return k == POLY_ARRAY ? cgm_type_array_of(arena, elem) : elem;
	}
	if (k == POLY_RANGE) {
		for (int i = 0; i < nargs; i++)
			if (params[i] && strcmp(params[i], result) == 0 && argtypes[i])
				return argtypes[i];
		return NULL;
	}
	/* anycompatible: the common type of those arguments (elements of the
	 * anycompatiblearray ones). */
	const char *types[64];
	int n = 0;
	for (int i = 0; i < nargs && n < 64; i++) {
		poly_kind p = poly_of(params[i]);
		if (p == POLY_COMPAT)
			types[n++] = argtypes[i];
		else if (p == POLY_COMPAT_ARRAY)
			types[n++] = argtypes[i] && is_array(argtypes[i])
					     ? cgm_arena_strndup(arena, argtypes[i], strlen(argtypes[i]) - 2)
					     : NULL;
	}
	const char *common = n ? cgm_common_type(c, n, types) : NULL;
	if (!common)
		return NULL;
	return k == POLY_COMPAT_ARRAY ? cgm_type_array_of(arena, common) : common;
}

/* ---- choosing among candidates ------------------------------------------ */

static bool is_unknown(const char *t)
{
	return t && strcmp(t, "unknown") == 0;
}

/* Keep the candidates whose score is the best; returns how many. */
static int keep_best(cgm_candidate *cands, int n, const int *score)
{
	int best = -1;
	for (int i = 0; i < n; i++)
		if (score[i] > best)
			best = score[i];
	int k = 0;
	for (int i = 0; i < n; i++)
		if (score[i] == best)
			cands[k++] = cands[i];
	return k;
}

/* The most candidates and arguments cgm_select_candidates ranks. */
enum { SELECT_MAX_CANDIDATES = 256, SELECT_MAX_ARGS = 100 };

int cgm_select_candidates(const cgm_catalog *c, int nargs, const char *const *given,
			  cgm_candidate *cands, int n)
{
	if (n <= 0)
		return 0;
	if (nargs > SELECT_MAX_ARGS)
		return n;
	/* The caller's own polymorphic values narrow the candidates (an
	 * anyarray is some array) but are otherwise of unknown type. */
	const char *argtypes[SELECT_MAX_ARGS + 1];
	for (int a = 0; a < nargs; a++)
		argtypes[a] = given[a] && cgm_type_is_polymorphic(given[a]) ? NULL : given[a];
	/* Those that take the arguments by implicit coercion (func_match_argtypes),
	 * anyelement bound one way. */
	int k = 0;
	for (int i = 0; i < n; i++) {
		bool fits = true;
		for (int a = 0; a < nargs && fits; a++)
			if (given[a] && cgm_can_coerce(c, given[a], cands[i].params[a]) == CGM_COERCE_NO)
				fits = false;
		if (fits && !poly_consistent(nargs, cands[i].params, argtypes))
			fits = false;
		if (fits)
			cands[k++] = cands[i];
	}
	n = k;
	if (n <= 1)
		return n;
	/* An exact match of every argument is taken at once. */
	for (int i = 0; i < n; i++) {
		bool exact = true;
		for (int a = 0; a < nargs && exact; a++)
			exact = argtypes[a] && types_equal(argtypes[a], cands[i].params[a]);
		if (exact) {
			cgm_candidate chosen = cands[i];
			cands[0] = chosen;
			return 1;
		}
	}
	/* The ranking looks at a domain argument's base type
	 * (func_select_candidate's input_base_typeids). */
	for (int a = 0; a < nargs; a++)
		argtypes[a] = domain_base(c, argtypes[a]);
	/* An argument cgmap cannot type, where the candidates declare different
	 * types: PostgreSQL's choice depends on it. */
	for (int a = 0; a < nargs; a++) {
		if (argtypes[a])
			continue;
		for (int i = 1; i < n; i++)
			if (strcmp(cands[i].params[a], cands[0].params[a]) != 0)
				return n;
	}
	if (n > SELECT_MAX_CANDIDATES)
		return n;
	int score[SELECT_MAX_CANDIDATES];
	int nunknown = 0;
	for (int a = 0; a < nargs; a++)
		nunknown += is_unknown(argtypes[a]);
	/* Most exact matches. */
	for (int i = 0; i < n; i++) {
		score[i] = 0;
		for (int a = 0; a < nargs; a++)
			if (argtypes[a] && !is_unknown(argtypes[a]) && types_equal(argtypes[a], cands[i].params[a]))
				score[i]++;
	}
	n = keep_best(cands, n, score);
	if (n == 1)
		return 1;
	/* Most exact matches or preferred types of the argument's category. */
	for (int i = 0; i < n; i++) {
		score[i] = 0;
		for (int a = 0; a < nargs; a++) {
			const char *t = argtypes[a];
			if (!t || is_unknown(t))
				continue;
			const char *p = cands[i].params[a];
			if (types_equal(t, p) || (preferred_of(c, p) && category_of(c, p) == category_of(c, t)))
				score[i]++;
		}
	}
	n = keep_best(cands, n, score);
	if (n == 1 || nunknown == 0)
		return n;
	/* Untyped literals: the category the candidates take there (string
	 * when any takes one), preferred types of it when any takes one. */
	char slot_cat[64];
	bool slot_pref[64];
	bool resolved = nargs <= 64;
	for (int a = 0; a < nargs && resolved; a++) {
		if (!is_unknown(argtypes[a]))
			continue;
		slot_cat[a] = 0;
		slot_pref[a] = false;
		bool conflict = false;
		for (int i = 0; i < n; i++) {
			const char *p = cands[i].params[a];
			char cat = category_of(c, p);
			bool pref = preferred_of(c, p);
			if (!slot_cat[a]) {
				slot_cat[a] = cat;
				slot_pref[a] = pref;
			} else if (cat == slot_cat[a]) {
				slot_pref[a] |= pref;
			} else if (cat == 'S') {
				slot_cat[a] = cat;
				slot_pref[a] = pref;
			} else {
				conflict = true;
			}
		}
		if (conflict && slot_cat[a] != 'S')
			resolved = false;
	}
	if (resolved) {
		int kept = 0;
		cgm_candidate keep[SELECT_MAX_CANDIDATES];
		for (int i = 0; i < n; i++) {
			bool ok = true;
			for (int a = 0; a < nargs && ok; a++) {
				if (!is_unknown(argtypes[a]))
					continue;
				const char *p = cands[i].params[a];
				if (category_of(c, p) != slot_cat[a] || (slot_pref[a] && !preferred_of(c, p)))
					ok = false;
			}
			if (ok)
				keep[kept++] = cands[i];
		}
		if (kept > 0) {
			memcpy(cands, keep, sizeof(cgm_candidate) * (size_t)kept);
			n = kept;
		}
		if (n == 1)
			return 1;
	}
	/* Last: one known type among the arguments stands for the unknown ones. */
	if (nunknown < nargs) {
		const char *known = NULL;
		for (int a = 0; a < nargs; a++) {
			if (is_unknown(argtypes[a]))
				continue;
			if (!known)
				known = argtypes[a];
			else if (strcmp(known, argtypes[a]) != 0) {
				known = NULL;
				break;
			}
		}
		if (known) {
			int fits = 0, which = -1;
			for (int i = 0; i < n; i++) {
				bool ok = true;
				for (int a = 0; a < nargs && ok; a++)
					ok = cgm_can_coerce(c, known, cands[i].params[a]) == CGM_COERCE_YES;
				if (ok) {
					fits++;
					which = i;
				}
			}
			if (fits == 1) {
				cgm_candidate chosen = cands[which];
				cands[0] = chosen;
				return 1;
			}
		}
	}
	return n;
}

bool cgm_candidates_tie(const cgm_catalog *c, int nargs, const char *const *given,
			const cgm_candidate *cands, int n)
{
	if (n < 2 || nargs > SELECT_MAX_ARGS || n > SELECT_MAX_CANDIDATES)
		return false; /* past what cgm_select_candidates ranks */
	for (int a = 0; a < nargs; a++)
		if (!given[a] || cgm_type_is_polymorphic(given[a]))
			return false;
	for (int i = 0; i < n; i++)
		for (int a = 0; a < nargs; a++)
			if (cgm_can_coerce(c, given[a], cands[i].params[a]) != CGM_COERCE_YES)
				return false;
	return true;
}

/* ---- typing expressions ------------------------------------------------- */

/* Schema and name of a canonical type name ("app.t", "\"My\".\"T\"", "t"),
 * unquoted, into buffers (schema "" when unqualified); false when it does
 * not split into at most two parts that fit. */
static bool split_type_name(const char *t, char *schema, size_t slen, char *name, size_t nlen)
{
	char parts[2][128];
	int np = 0;
	size_t len = 0;
	bool quoted = false;
	for (const char *p = t;; p++) {
		if (*p == '"' && quoted && p[1] == '"') {
			p++; /* a doubled quote inside quotes is one quote */
		} else if (*p == '"') {
			quoted = !quoted;
			continue;
		} else if (*p == '\0' || (*p == '.' && !quoted)) {
			if (np >= 2)
				return false;
			parts[np++][len] = '\0';
			len = 0;
			if (*p == '\0')
				break;
			continue;
		}
		if (np >= 2 || len + 1 >= sizeof parts[0])
			return false;
		parts[np][len++] = *p;
	}
	const char *s = np == 2 ? parts[0] : "";
	const char *n = parts[np - 1];
	if (strlen(s) >= slen || strlen(n) >= nlen)
		return false;
	strcpy(schema, s);
	strcpy(name, n);
	return true;
}

/* The relation whose row type `type` is, or NULL. */
static const cgm_relation *composite_relation(const cgm_catalog *c, const char *type,
					      const char *const *path, int npath)
{
	char schema[128], name[128];
	if (!type || is_array(type) || cgm_type_is_builtin(type) ||
	    !split_type_name(type, schema, sizeof schema, name, sizeof name))
		return NULL;
	return find_relation(c, schema[0] ? schema : NULL, name, path, npath);
}

bool cgm_type_is_composite(const cgm_typer *t, const char *type)
{
	return composite_relation(t->catalog, type, t->path, t->npath) != NULL;
}

static bool is_composite_name(const cgm_catalog *c, const char *t)
{
	static const char *const catalog_path[] = { "pg_catalog" };
	return composite_relation(c, t, catalog_path, 1) != NULL;
}

/* A column's type without its typmod ("character varying(90)" is
 * character varying, "numeric(10,2)[]" numeric[]): argument types never
 * carry one. */
static const char *no_typmod(cgm_arena *arena, const char *type)
{
	if (!type || !strchr(type, '('))
		return type;
	size_t n = strlen(type);
	char *out = cgm_arena_alloc(arena, n + 1);
	size_t k = 0;
	bool quoted = false;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = type[i];
		if (ch == '"' && depth == 0)
			quoted = !quoted;
		if (!quoted && ch == '(') {
			depth++;
			continue;
		}
		if (!quoted && ch == ')' && depth > 0) {
			depth--;
			continue;
		}
		if (depth == 0)
			out[k++] = ch;
	}
	out[k] = '\0';
	return out;
}

static const char *column_of(cgm_arena *arena, const cgm_relation *r, const char *column)
{
	for (int i = 0; r && i < r->ncolumns; i++)
		if (r->columns[i].name && strcmp(r->columns[i].name, column) == 0)
			return no_typmod(arena, r->columns[i].type);
	return NULL;
}

/* The canonical row type name of a relation. */
static const char *relation_type(cgm_arena *arena, const cgm_relation *r)
{
	if (!r->schema || strcmp(r->schema, "pg_catalog") == 0)
		return cgm_quote_ident(arena, r->name);
	return cgm_quote_qualified(arena, r->schema, r->name);
}

static const char *type_of(cgm_typer *t, const cgm_expr *e);

/* A row expression with named columns behind e (a record variable
 * assigned from a query, a ROW of a query), or NULL. */
static const cgm_expr *named_row(const cgm_expr *e)
{
	for (int guard = 0; e && guard < 8; guard++) {
		if (e->kind == CGM_EXPR_ROW && e->names)
			return e;
		if (e->kind == CGM_EXPR_NAME && e->nnames == 1 && e->var)
			e = e->var;
		else if (e->kind == CGM_EXPR_VAR)
			e = e->nargs > 0 ? e->args[0] : NULL;
		else
			return NULL;
	}
	return NULL;
}

static const char *star_column(cgm_typer *t, const cgm_expr *star, const char *col, bool *found);

/* The result type of a call, and in *called (when not NULL) the one
 * function it runs, NULL when not one: resolution answers both at once. */
static const char *call_type(cgm_typer *t, const cgm_expr *call, const cgm_function **called)
{
	enum { MAXA = 100 };
	const char *argtypes[MAXA];
	if (called)
		*called = NULL;
	if (!call || call->kind != CGM_EXPR_CALL || call->nargs > MAXA || !t->call_result)
		return NULL;
	for (int i = 0; i < call->nargs; i++)
		argtypes[i] = type_of(t, call->args[i]);
	return t->call_result(t->ctx, call, argtypes, called);
}

/* The next item of a list as pg_get_function_arguments and
 * pg_get_function_result write it ("OUT x bigint, y text DEFAULT 'a,b'"):
 * [p, end) up to the next comma outside quotes and parentheses. */
static const char *list_item(const char *p, const char **end)
{
	int depth = 0;
	char quote = 0;
	const char *q = p;
	for (; *q; q++) {
		if (quote) {
			if (*q == quote)
				quote = 0;
		} else if (*q == '\'' || *q == '"') {
			quote = *q;
		} else if (*q == '(' || *q == '[') {
			depth++;
		} else if ((*q == ')' || *q == ']') && depth > 0) {
			depth--;
		} else if (*q == ',' && depth == 0) {
			break;
		}
	}
	*end = q;
	return p;
}

/* An item "[name] type" of those lists: the name (unquoted, into the
 * arena; NULL when it has none) and the type.  A multi-word type
 * ("double precision") is no name followed by a type. */
static void name_and_type(cgm_arena *a, const char *p, const char *end, const char **name,
			  const char **type)
{
	while (p < end && *p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	*name = NULL;
	const char *rest = p;
	if (*p == '"') {
		cgm_strbuf b = CGM_STRBUF_INIT;
		const char *q = p + 1;
		for (; q < end; q++) {
			if (*q == '"' && q + 1 < end && q[1] == '"')
				cgm_strbuf_putc(&b, *q++);
			else if (*q == '"')
				break;
			else
				cgm_strbuf_putc(&b, *q);
		}
		*name = cgm_arena_strdup(a, cgm_strbuf_cstr(&b));
		cgm_strbuf_free(&b);
		rest = q < end ? q + 1 : end;
	} else {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		char *whole = cgm_arena_strndup(a, p, (size_t)(end - p));
		if (sp && !cgm_type_is_builtin(whole)) {
			*name = cgm_arena_strndup(a, p, (size_t)(sp - p));
			rest = sp;
		}
	}
	while (rest < end && *rest == ' ')
		rest++;
	*type = cgm_arena_strndup(a, rest, (size_t)(end - rest));
}

/* The columns of the rows function f returns through OUT parameters or
 * RETURNS TABLE, their names (NULL when unnamed) and types in order, into
 * the arena: how many, 0 when it returns no such columns. */
static int out_columns(cgm_typer *t, const cgm_function *f, const char ***names,
		       const char ***types)
{
	enum { MAX_OUT = 1600 }; /* a row's most columns */
	if (!f || !f->result)
		return 0;
	const char *list = NULL;
	bool table = strncmp(f->result, "TABLE(", 6) == 0;
	if (table)
		list = f->result + 6;
	else if ((strcmp(f->result, "record") == 0 || strcmp(f->result, "SETOF record") == 0) &&
		 f->arguments && strstr(f->arguments, "OUT "))
		list = f->arguments;
	if (!list)
		return 0;
	int n = 0, cap = 0;
	*names = NULL;
	*types = NULL;
	for (const char *p = list; *p && n < MAX_OUT;) {
		const char *end;
		list_item(p, &end);
		const char *item_end = end;
		if (table && *end == '\0' && end > p && end[-1] == ')')
			item_end = end - 1; /* the list's closing parenthesis */
		const char *q = p;
		while (q < item_end && *q == ' ')
			q++;
		bool out = table;
		if (!table && strncmp(q, "OUT ", 4) == 0)
			q += 4, out = true;
		else if (!table && strncmp(q, "INOUT ", 6) == 0)
			q += 6, out = true;
		if (out) {
			if (n == cap) {
				int grown = cap ? cap * 2 : 8;
				const char **nn = cgm_arena_alloc(t->arena, sizeof(char *) * (size_t)grown);
				const char **tt = cgm_arena_alloc(t->arena, sizeof(char *) * (size_t)grown);
				if (n) {
					memcpy(nn, *names, sizeof(char *) * (size_t)n);
					memcpy(tt, *types, sizeof(char *) * (size_t)n);
				}
				*names = nn;
				*types = tt;
				cap = grown;
			}
			name_and_type(t->arena, q, item_end, &(*names)[n], &(*types)[n]);
			n++;
		}
		p = *end ? end + 1 : end;
	}
	return n;
}

/* Column `col` of the n OUT or TABLE columns out_columns gave, the first
 * `nrenamed` of them renamed by an alias list: its type (NULL when not
 * known), *found; NULL, *found false, when none has that name. */
static const char *out_column(const char *const *names, const char *const *types, int n,
			      const char *const *renamed, int nrenamed, const char *col, bool *found)
{
	*found = false;
	for (int i = 0; i < n; i++) {
		const char *name = i < nrenamed ? renamed[i] : names[i];
		if (name && strcmp(name, col) == 0) {
			*found = true;
			return types[i];
		}
	}
	return NULL;
}

static const char *field_of_type(cgm_typer *t, const char *type, const char *field)
{
	const cgm_relation *r = composite_relation(t->catalog, type, t->path, t->npath);
	return r ? column_of(t->arena, r, field) : NULL;
}

/* The field `field` of the value e. */
static const char *field_type(cgm_typer *t, const cgm_expr *e, const char *field)
{
	const cgm_expr *row = named_row(e);
	if (row) {
		for (int i = 0; i < row->nargs; i++) {
			if (row->names[i] && strcmp(row->names[i], field) == 0)
				return type_of(t, row->args[i]);
			if (!row->names[i] && row->args[i] && row->args[i]->kind == CGM_EXPR_STAR) {
				bool found = false;
				const char *type = star_column(t, row->args[i], field, &found);
				if (found)
					return type;
			}
		}
		return NULL;
	}
	/* (f()).x of a function returning OUT parameters or a TABLE. */
	if (e && e->kind == CGM_EXPR_CALL) {
		const cgm_function *f;
		const char *type = call_type(t, e, &f);
		const char **names, **types;
		int n = out_columns(t, f, &names, &types);
		bool found;
		return n > 0 ? out_column(names, types, n, NULL, 0, field, &found)
			     : field_of_type(t, type, field);
	}
	return field_of_type(t, type_of(t, e), field);
}

/* Types of user types and %TYPE for declared variables. */
typedef struct decl_ctx {
	cgm_typer *t;
} decl_ctx;

static const char *decl_type_schema(void *arg, const char *name)
{
	decl_ctx *d = arg;
	const cgm_model *m = d->t->model;
	for (int p = 0; p < d->t->npath; p++) {
		for (int i = 0; i < m->ntypes; i++)
			if (m->types[i].name && m->types[i].schema && strcmp(m->types[i].name, name) == 0 &&
			    strcmp(m->types[i].schema, d->t->path[p]) == 0)
				return m->types[i].schema;
	}
	const cgm_relation *r = find_relation(d->t->catalog, NULL, name, d->t->path, d->t->npath);
	return r ? r->schema : NULL;
}

static const char *decl_column_type(void *arg, const char *const *names, int n)
{
	decl_ctx *d = arg;
	if (n < 2)
		return NULL;
	const cgm_relation *r = find_relation(d->t->catalog, n >= 3 ? names[n - 3] : NULL, names[n - 2],
					      d->t->path, d->t->npath);
	return column_of(d->t->arena, r, names[n - 1]);
}

/* The type a PL/pgSQL variable was declared with, canonical; cached in the
 * node (a function's sites are typed by one thread). */
static const char *var_type(cgm_typer *t, const cgm_expr *v)
{
	if (v->flag)
		return v->type;
	cgm_expr *mv = (cgm_expr *)v;
	mv->flag = true;
	mv->type = NULL;
	const char *decl = v->name;
	if (!decl)
		return NULL;
	size_t len = strlen(decl);
	if (strcmp(decl, "record") == 0) {
		mv->type = "record";
		return v->type;
	}
	if (len > 8 && strcmp(decl + len - 8, "%ROWTYPE") == 0) {
		char *rel = cgm_arena_strndup(t->arena, decl, len - 8);
		char schema[128], name[128];
		if (split_type_name(rel, schema, sizeof schema, name, sizeof name)) {
			const cgm_relation *r = find_relation(t->catalog, schema[0] ? schema : NULL, name,
							      t->path, t->npath);
			if (r)
				mv->type = relation_type(t->arena, r);
		}
		return v->type;
	}
	decl_ctx d = { t };
	cgm_type_resolver res = { .type_schema = decl_type_schema, .column_type = decl_column_type, .ctx = &d };
	mv->type = cgm_type_canonical_text(t->arena, decl, &res);
	return v->type;
}

/* A type written without its schema, placed through the search_path like
 * PostgreSQL does (a user type or a relation's row type); as it is when
 * it is PostgreSQL's own or nobody knows it. */
static const char *qualify(cgm_typer *t, const char *type)
{
	if (!type || cgm_type_is_builtin(type) || cgm_type_is_polymorphic(type) || unqualified(type) != type)
		return type;
	bool array = is_array(type);
	const char *base = array ? cgm_arena_strndup(t->arena, type, strlen(type) - 2) : type;
	char schema[128], name[128];
	if (!split_type_name(base, schema, sizeof schema, name, sizeof name))
		return type;
	decl_ctx d = { t };
	const char *found = decl_type_schema(&d, name);
	if (!found)
		return type;
	return cgm_type_canonical(t->arena, found, name, array ? 1 : 0, NULL);
}

/* A column of one FROM item, or NULL (*found false when it has none). */
static const char *item_column(cgm_typer *t, const cgm_scope_item *it, const char *col, bool *found);

static const char *star_column(cgm_typer *t, const cgm_expr *star, const char *col, bool *found)
{
	const cgm_scope *s = star->scope;
	for (int i = 0; s && i < s->nitems; i++) {
		const cgm_scope_item *it = &s->items[i];
		if (star->nnames == 1 && (!it->alias || strcmp(it->alias, star->names[0]) != 0))
			continue;
		const char *type = item_column(t, it, col, found);
		if (*found)
			return type;
	}
	return NULL;
}

static const char *item_column(cgm_typer *t, const cgm_scope_item *it, const char *col, bool *found)
{
	*found = false;
	if (it->ncolumns < 0) {
		*found = true; /* it may have any column: what a name there is stays unknown */
		return NULL;
	}
	if (it->colexprs) {
		for (int i = 0; i < it->ncolumns; i++) {
			if (it->colnames[i] && strcmp(it->colnames[i], col) == 0) {
				*found = true;
				return it->colexprs[i] ? type_of(t, it->colexprs[i]) : NULL;
			}
			if (!it->colnames[i] && it->colexprs[i] && it->colexprs[i]->kind == CGM_EXPR_STAR) {
				const char *type = star_column(t, it->colexprs[i], col, found);
				if (*found)
					return type;
			}
		}
		return NULL;
	}
	if (it->func) {
		/* Columns of OUT parameters or RETURNS TABLE, the first ones
		 * renamed by an alias list. */
		const cgm_function *f;
		const char *type = call_type(t, it->func, &f);
		const char **names, **types;
		int n = out_columns(t, f, &names, &types);
		if (n > 0)
			return out_column(names, types, n, it->renamed ? it->colnames : NULL,
					  it->renamed ? it->ncolumns : 0, col, found);
		const cgm_relation *r = composite_relation(t->catalog, type, t->path, t->npath);
		if (r) {
			/* Only an alias's column list renames the columns: the
			 * item's one name otherwise is the function's, or its
			 * alias's, which names the row, not its first column. */
			for (int i = 0; i < r->ncolumns; i++) {
				const char *name = it->renamed && i < it->ncolumns && it->colnames[i]
							   ? it->colnames[i]
							   : r->columns[i].name;
				if (name && strcmp(name, col) == 0) {
					*found = true;
					return no_typmod(t->arena, r->columns[i].type);
				}
			}
			return NULL;
		}
		/* A function of one column: named by its one OUT parameter
		 * (get_func_result_name: jsonb_array_elements_text's `value`),
		 * else by its alias or itself; an alias's column list renames
		 * it. */
		const char *first = !it->renamed && f && f->out_name ? f->out_name : it->colnames[0];
		if (it->ncolumns >= 1 && first && strcmp(first, col) == 0) {
			*found = true;
			return it->ncolumns == 1 ? type : NULL;
		}
		if (it->ncolumns > 1)
			for (int i = 1; i < it->ncolumns; i++)
				if (it->colnames[i] && strcmp(it->colnames[i], col) == 0)
					*found = true;
		return NULL;
	}
	if (it->name) {
		const cgm_relation *r = find_relation(t->catalog, it->schema, it->name, t->path, t->npath);
		if (!r || !r->columns) {
			*found = true; /* a table cgmap does not know (or a view without types) */
			return NULL;
		}
		for (int i = 0; i < r->ncolumns; i++) {
			const char *name = i < it->ncolumns && it->colnames[i] ? it->colnames[i] : r->columns[i].name;
			if (name && strcmp(name, col) == 0) {
				*found = true;
				return no_typmod(t->arena, r->columns[i].type);
			}
		}
	}
	return NULL;
}

/* The row type of a whole FROM item named `alias`: a relation's row
 * type; a function's result (its row type when it returns one, as
 * PostGIS's `FROM ST_DumpAsPolygons(rast, band) gv` gives `(gv).geom` a
 * geometry; the value itself when it returns a scalar), but not a
 * record of OUT parameters, whose type has no name. */
static const char *item_row_type(cgm_typer *t, const cgm_scope_item *it)
{
	if (it->name && !it->colexprs && !it->func) {
		const cgm_relation *r = find_relation(t->catalog, it->schema, it->name, t->path, t->npath);
		return r ? relation_type(t->arena, r) : NULL;
	}
	if (it->func && !it->renamed && it->ncolumns >= 0) {
		const cgm_function *f;
		const char *type = call_type(t, it->func, &f);
		const char **names, **types;
		if (!type || out_columns(t, f, &names, &types) > 0 || strcmp(type, "record") == 0)
			return NULL;
		return type;
	}
	return NULL;
}

/* NEW.col / OLD.col in a trigger function: the column of every table the
 * function's triggers are on, when they agree. */
static const char *trigger_column(cgm_typer *t, const char *col)
{
	const cgm_model *m = t->model;
	const char *type = NULL;
	int index = t->fn ? (int)(t->fn - m->functions) : -1;
	if (index < 0 || index >= m->nfunctions)
		return NULL;
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *tg = &m->triggers[i];
		if (tg->function != index)
			continue;
		const cgm_relation *r = find_relation(t->catalog, tg->table_schema, tg->table_name, NULL, 0);
		const char *ct = column_of(t->arena, r, col);
		if (!ct || (type && strcmp(type, ct) != 0))
			return NULL;
		type = ct;
	}
	return type;
}

/* The special variables PL/pgSQL gives a trigger function (plpgsql
 * trigger docs, 43.10.1), or NULL. */
static const char *trigger_variable(const char *name)
{
	static const struct {
		const char *name, *type;
	} vars[] = {
		{ "tg_argv", "text[]" },	   { "tg_nargs", "integer" }, { "tg_name", "name" },
		{ "tg_when", "text" },		   { "tg_level", "text" },    { "tg_op", "text" },
		{ "tg_relid", "oid" },		   { "tg_relname", "name" },  { "tg_table_name", "name" },
		{ "tg_table_schema", "name" },
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (strcmp(vars[i].name, name) == 0)
			return vars[i].type;
	return NULL;
}

/* NEW / OLD in a trigger function: the row type of the one table the
 * function's triggers are on, or NULL (none, or several). */
static const char *trigger_row(cgm_typer *t)
{
	const cgm_model *m = t->model;
	int index = t->fn ? (int)(t->fn - m->functions) : -1;
	if (index < 0 || index >= m->nfunctions)
		return NULL;
	const cgm_trigger *one = NULL;
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *tg = &m->triggers[i];
		if (tg->function != index)
			continue;
		if (one && (strcmp(one->table_schema, tg->table_schema) != 0 ||
			    strcmp(one->table_name, tg->table_name) != 0))
			return NULL;
		one = tg;
	}
	if (!one || !find_relation(t->catalog, one->table_schema, one->table_name, NULL, 0))
		return NULL;
	return cgm_type_canonical(t->arena, one->table_schema, one->table_name, 0, NULL);
}

static const char *param_named(const cgm_function *fn, const char *name)
{
	for (int i = 0; fn && fn->argnames && i < fn->nargs; i++)
		if (fn->argnames[i] && strcmp(fn->argnames[i], name) == 0)
			return fn->argtypes ? fn->argtypes[i] : NULL;
	return NULL;
}

static const char *name_type(cgm_typer *t, const cgm_expr *e)
{
	const char *first = e->nnames > 0 ? e->names[0] : NULL;
	if (!first)
		return NULL;
	bool found = false;
	if (e->nnames == 1) {
		for (const cgm_scope *s = e->scope; s; s = s->parent) {
			for (int i = 0; i < s->nitems; i++) {
				const char *type = item_column(t, &s->items[i], first, &found);
				if (found)
					return type;
			}
			for (int i = 0; i < s->nitems; i++)
				if (s->items[i].alias && strcmp(s->items[i].alias, first) == 0)
					return item_row_type(t, &s->items[i]);
		}
		if (t->fn && t->fn->is_trigger && (strcmp(first, "new") == 0 || strcmp(first, "old") == 0)) {
			const char *row = trigger_row(t);
			if (row)
				return row;
		}
		if (t->fn && t->fn->is_trigger && !e->var) {
			const char *special = trigger_variable(first);
			if (special)
				return special;
		}
		if (e->var)
			return e->var->kind == CGM_EXPR_VAR ? var_type(t, e->var) : type_of(t, e->var);
		return t->fn && strcmp(t->fn->language ? t->fn->language : "", "sql") == 0
			       ? param_named(t->fn, first)
			       : NULL;
	}
	const char *second = e->names[1];
	if (e->nnames == 2) {
		for (const cgm_scope *s = e->scope; s; s = s->parent)
			for (int i = 0; i < s->nitems; i++)
				if (s->items[i].alias && strcmp(s->items[i].alias, first) == 0)
					return item_column(t, &s->items[i], second, &found);
		if (e->var)
			return field_type(t, e->var, second);
		if (t->fn && t->fn->is_trigger && (strcmp(first, "new") == 0 || strcmp(first, "old") == 0))
			return trigger_column(t, second);
		/* In a SQL body, function_name.parameter, else a record-typed
		 * parameter's field (sql_fn_post_column_ref, in that order). */
		bool sql_body = t->fn && strcmp(t->fn->language ? t->fn->language : "", "sql") == 0;
		if (t->fn && t->fn->name && strcmp(t->fn->name, first) == 0) {
			const char *type = param_named(t->fn, second);
			if (type || !sql_body)
				return type;
		}
		const char *row = sql_body ? param_named(t->fn, first) : NULL;
		return row ? field_of_type(t, row, second) : NULL;
	}
	if (e->nnames == 3) {
		for (const cgm_scope *s = e->scope; s; s = s->parent)
			for (int i = 0; i < s->nitems; i++) {
				const cgm_scope_item *it = &s->items[i];
				if (it->name && it->schema && !it->colexprs && strcmp(it->schema, first) == 0 &&
				    strcmp(it->alias ? it->alias : it->name, second) == 0)
					return item_column(t, it, e->names[2], &found);
			}
		if (e->var) {
			cgm_expr field = { .kind = CGM_EXPR_FIELD, .nargs = 1, .name = second };
			const cgm_expr *args[1] = { e->var };
			field.args = args;
			return field_of_type(t, type_of(t, &field), e->names[2]);
		}
	}
	return NULL;
}

/* Fallback when the model knows no operators: what every PostgreSQL
 * operator of that name yields for those operands. */
static const char *builtin_operator_guessless(const char *op, const char *l, const char *r)
{
	static const char *const boolean_ops[] = { "=", "<>", "!=", "<", ">", "<=", ">=", "~~", "!~~",
						   "~~*", "!~~*", "~", "!~", "~*", "!~*", NULL };
	for (int i = 0; boolean_ops[i]; i++)
		if (strcmp(op, boolean_ops[i]) == 0)
			return "boolean";
	if (strcmp(op, "||") == 0) {
		if ((l && is_array(l)) || (r && is_array(r)))
			return l && is_array(l) ? l : r;
		if ((l && (strcmp(l, "text") == 0 || is_unknown(l))) || (r && (strcmp(r, "text") == 0 || is_unknown(r))))
			return "text";
		return NULL;
	}
	/* Arithmetic on two values of one numeric type stays in it. */
	if (l && r && strcmp(l, r) == 0 && strchr("+-*/%", op[0]) && op[1] == '\0' &&
	    cgm_type_category(l) == 'N' && cgm_type_is_builtin(l))
		return l;
	return NULL;
}

static const char *operator_type(cgm_typer *t, const cgm_expr *e)
{
	const char *l = e->args[0] ? type_of(t, e->args[0]) : NULL;
	const char *r = e->nargs > 1 && e->args[1] ? type_of(t, e->args[1]) : NULL;
	const cgm_catalog *c = t->catalog;
	if (c->nops == 0)
		return builtin_operator_guessless(e->name, l, r);
	/* The operators of that name and arity in the schema written or on the path. */
	int lo = 0, hi = c->nops;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(t->model->operators[c->ops[mid]].name, e->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	enum { MAXOPS = 128 };
	cgm_candidate cands[MAXOPS];
	const char *params[MAXOPS][2];
	int ranks[MAXOPS];
	int n = 0;
	bool prefix = !e->args[0];
	for (int i = lo; i < c->nops && n < MAXOPS; i++) {
		const cgm_operator *op = &t->model->operators[c->ops[i]];
		if (strcmp(op->name, e->name) != 0)
			break;
		if ((op->left == NULL) != prefix || !op->schema)
			continue;
		int rank = -1;
		if (e->schema)
			rank = strcmp(op->schema, e->schema) == 0 ? 0 : -1;
		else
			for (int p = 0; p < t->npath && rank < 0; p++)
				if (strcmp(t->path[p], op->schema) == 0)
					rank = p;
		if (rank < 0)
			continue;
		/* One with the same operand types further down the path is masked. */
		bool masked = false;
		for (int j = 0; j < n; j++) {
			if ((params[j][0] == NULL) != (op->left == NULL))
				continue;
			if ((prefix || strcmp(params[j][0], op->left) == 0) && strcmp(params[j][1], op->right) == 0) {
				if (rank < ranks[j]) {
					cands[j].index = c->ops[i];
					ranks[j] = rank;
				}
				masked = true;
				break;
			}
		}
		if (masked)
			continue;
		params[n][0] = op->left;
		params[n][1] = op->right;
		ranks[n] = rank;
		cands[n] = (cgm_candidate){ .index = c->ops[i], .params = prefix ? &params[n][1] : params[n] };
		n++;
	}
	const char *argtypes[2] = { l, r };
	const char *const *args = prefix ? &argtypes[1] : argtypes;
	int nargs = prefix ? 1 : 2;
	/* binary_oper_exact: one untyped literal against a known type is
	 * taken as that type first. */
	if (!prefix && l && r && (is_unknown(l) != is_unknown(r))) {
		const char *known = is_unknown(l) ? r : l;
		for (int i = 0; i < n; i++)
			if (strcmp(cands[i].params[0], known) == 0 && strcmp(cands[i].params[1], known) == 0) {
				const cgm_operator *op = &t->model->operators[cands[i].index];
				return cgm_result_type(c, t->arena, op->result, 2, cands[i].params, argtypes);
			}
	}
	int chosen = cgm_select_candidates(c, nargs, args, cands, n);
	if (chosen != 1)
		return NULL;
	const cgm_operator *op = &t->model->operators[cands[0].index];
	return cgm_result_type(c, t->arena, op->result, nargs, cands[0].params, args);
}

static const char *subscript_type(cgm_typer *t, const cgm_expr *e)
{
	const char *base = type_of(t, e->args[0]);
	if (!base)
		return NULL;
	if (is_array(base))
		return e->flag ? base : cgm_type_element(t->arena, base);
	if (strcmp(base, "jsonb") == 0)
		return base;
	return NULL; /* point, name, int2vector, user subscripting: not worked out */
}

static const char *list_common(cgm_typer *t, const cgm_expr *e)
{
	enum { MAXN = 64 };
	const char *types[MAXN];
	int n = 0;
	for (int i = 0; i < e->nargs; i++) {
		if (n == MAXN)
			return NULL;
		types[n++] = e->args[i] ? type_of(t, e->args[i]) : "unknown";
	}
	return n ? cgm_common_type(t->catalog, n, types) : NULL;
}

static const char *type_of(cgm_typer *t, const cgm_expr *e)
{
	if (!e || t->depth > 64)
		return NULL;
	t->depth++;
	const char *type = NULL;
	switch (e->kind) {
	case CGM_EXPR_CONST:
		type = e->type;
		break;
	case CGM_EXPR_CAST:
		type = qualify(t, e->type);
		break;
	case CGM_EXPR_PARAM:
		if (e->var)
			type = e->var->kind == CGM_EXPR_VAR ? var_type(t, e->var) : type_of(t, e->var);
		else
			type = t->fn && e->param >= 1 && e->param <= t->fn->nargs && t->fn->argtypes
				       ? t->fn->argtypes[e->param - 1]
				       : NULL;
		break;
	case CGM_EXPR_NAME:
		type = name_type(t, e);
		break;
	case CGM_EXPR_VAR:
		type = var_type(t, e);
		break;
	case CGM_EXPR_CALL:
		type = call_type(t, e, NULL);
		break;
	case CGM_EXPR_OP:
		type = e->nargs == 2 ? operator_type(t, e) : NULL;
		break;
	case CGM_EXPR_SUBSCRIPT:
		type = subscript_type(t, e);
		break;
	case CGM_EXPR_FIELD:
		type = field_type(t, e->args[0], e->name);
		break;
	case CGM_EXPR_CASE:
	case CGM_EXPR_COALESCE:
	case CGM_EXPR_MINMAX:
		type = list_common(t, e);
		break;
	case CGM_EXPR_NULLIF:
		type = e->nargs > 0 ? type_of(t, e->args[0]) : NULL;
		break;
	case CGM_EXPR_ROW:
		type = "record";
		break;
	case CGM_EXPR_ARRAY: {
		const char *elem = e->nargs ? list_common(t, e) : NULL;
		/* ARRAY[ARRAY[...]] nests: its elements are arrays already. */
		type = elem && !is_unknown(elem) ? cgm_type_array_of(t->arena, elem) : NULL;
		break;
	}
	case CGM_EXPR_SUBLINK: {
		const char *first = e->nargs > 0 ? type_of(t, e->args[0]) : NULL;
		if (first && is_unknown(first))
			first = "text";
		type = e->flag ? cgm_type_array_of(t->arena, first) : first;
		break;
	}
	case CGM_EXPR_STAR:
	case CGM_EXPR_OTHER:
		break;
	}
	t->depth--;
	return type;
}

const char *cgm_call_without_function(cgm_typer *t, const cgm_expr *call, const char *argtype)
{
	if (call->nargs != 1 || call->schema)
		return NULL;
	/* A type's name: a function-style cast. */
	const char *cast = cgm_catalog_type(t->arena, call->name);
	if (cast)
		return cast;
	return argtype ? field_of_type(t, argtype, call->name) : NULL;
}

bool cgm_system_column(const char *name)
{
	static const char *const system_columns[] = { "tableoid", "xmin", "cmin", "xmax", "cmax", "ctid" };
	for (size_t i = 0; i < sizeof system_columns / sizeof system_columns[0]; i++)
		if (strcmp(name, system_columns[i]) == 0)
			return true;
	return false;
}

const char *cgm_attribute_row_type(cgm_typer *t, const cgm_expr *row, const char *name)
{
	if (cgm_system_column(name))
		return NULL;
	t->depth = 0;
	const char *type = type_of(t, row);
	const cgm_relation *r = composite_relation(t->catalog, type, t->path, t->npath);
	if (!r || !r->columns || r->ncolumns <= 0)
		return NULL; /* a row cgmap does not know: it may have that column */
	for (int i = 0; i < r->ncolumns; i++)
		if (!r->columns[i].name || strcmp(r->columns[i].name, name) == 0)
			return NULL;
	return type;
}

const char *cgm_expr_type(cgm_typer *t, const cgm_expr *e)
{
	t->depth = 0;
	return type_of(t, e);
}
