/*
 * ops.c - operators, casts and aggregates: PostgreSQL 15's builtin
 * operators and casts read from the data files scripts/gen_builtins.sh
 * writes (data/pg15_operators.tsv, data/pg15_casts.tsv, next to the
 * builtin functions' list), and the lookups of cgmap/ops.h.
 *
 * In:  the model (its operators and casts ordered by cgm_ops_index).
 * Out: builtin rows appended to the model, strings in model->arena; the
 *      lookups return pointers into the model and allocate nothing.
 */
#include "cgmap/ops.h"
#include "cgmap/exprtype.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/types.h"

/* ---- the data files ---------------------------------------------------- */

/* Open `name` next to the builtin functions' list. */
static FILE *open_data(cgm_arena *arena, const char *name, const char **path)
{
	const char *builtins = cgm_builtins_path(arena);
	if (!builtins) {
		cgm_error(CGM_ESOURCE,
			  "cannot find \"%s\" (PostgreSQL 15's builtin list); set CGMAP_DATADIR to "
			  "the folder holding it",
			  name);
		return NULL;
	}
	const char *slash = strrchr(builtins, '/');
	*path = slash ? cgm_arena_printf(arena, "%.*s/%s", (int)(slash - builtins), builtins, name)
		      : name;
	FILE *in = fopen(*path, "r");
	if (!in)
		cgm_error(CGM_ESOURCE, "cannot read \"%s\": %s", *path, strerror(errno));
	return in;
}

/* The next data line split at tabs into exactly n fields ("-" after the
 * first read as NULL): 1, 0 at the end, CGM_ESOURCE on a malformed line. */
static int next_row(FILE *in, const char *path, char **line, size_t *cap, int *lineno, char **f,
		    int n)
{
	ssize_t len;
	while ((len = getline(line, cap, in)) >= 0) {
		(*lineno)++;
		while (len > 0 && ((*line)[len - 1] == '\n' || (*line)[len - 1] == '\r'))
			(*line)[--len] = '\0';
		/* Comments start "# "; "#" and "##" are operators. */
		if (len == 0 || ((*line)[0] == '#' && (*line)[1] == ' '))
			continue;
		char *p = *line;
		for (int i = 0; i < n; i++) {
			f[i] = p;
			char *tab = strchr(p, '\t');
			if ((tab == NULL) != (i == n - 1))
				return cgm_error(CGM_ESOURCE, "\"%s\":%d: expected %d tab-separated fields",
						 path, *lineno, n);
			if (tab) {
				*tab = '\0';
				p = tab + 1;
			}
			if (i > 0 && strcmp(f[i], "-") == 0)
				f[i] = NULL; /* the first field is a name: "-" is an operator */
		}
		return 1;
	}
	return 0;
}

int cgm_builtin_operators_load(cgm_model *model)
{
	cgm_arena *a = model->arena;
	const char *path;
	FILE *in = open_data(a, "pg15_operators.tsv", &path);
	if (!in)
		return CGM_ESOURCE;
	char *line = NULL, *f[5];
	size_t cap = 0;
	int lineno = 0, added = 0, rc;
	while ((rc = next_row(in, path, &line, &cap, &lineno, f, 5)) > 0) {
		if (!f[0] || !f[2]) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: an operator needs a name and a right operand",
				       path, lineno);
			break;
		}
		cgm_operator *op = cgm_model_add_operator(model);
		op->schema = "pg_catalog";
		op->name = cgm_arena_strdup(a, f[0]);
		op->left = cgm_arena_strdup(a, f[1]);
		op->right = cgm_arena_strdup(a, f[2]);
		op->result = cgm_arena_strdup(a, f[3]);
		op->function_id = cgm_arena_strdup(a, f[4]);
		op->function = -1;
		op->builtin = true;
		added++;
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : added;
}

int cgm_builtin_casts_load(cgm_model *model)
{
	cgm_arena *a = model->arena;
	const char *path;
	FILE *in = open_data(a, "pg15_casts.tsv", &path);
	if (!in)
		return CGM_ESOURCE;
	char *line = NULL, *f[5];
	size_t cap = 0;
	int lineno = 0, added = 0, rc;
	while ((rc = next_row(in, path, &line, &cap, &lineno, f, 5)) > 0) {
		if (!f[0] || !f[1] || !f[2] || !f[3] || strlen(f[2]) != 1 || strlen(f[3]) != 1 ||
		    !strchr("iae", f[2][0]) || !strchr("fbi", f[3][0])) {
			rc = cgm_error(CGM_ESOURCE,
				       "\"%s\":%d: a cast needs source, target, context (i, a, e) and "
				       "method (f, b, i)",
				       path, lineno);
			break;
		}
		cgm_cast *c = cgm_model_add_cast(model);
		c->source = cgm_arena_strdup(a, f[0]);
		c->target = cgm_arena_strdup(a, f[1]);
		c->context = f[2][0];
		c->method = f[3][0];
		c->function_id = cgm_arena_strdup(a, f[4]);
		c->function = -1;
		c->builtin = true;
		added++;
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : added;
}

/* ---- ordering ------------------------------------------------------------ */

static int cmp_nullable(const char *x, const char *y)
{
	if (x == y)
		return 0;
	if (!x || !y)
		return x ? 1 : -1;
	return strcmp(x, y);
}

static int compare_operators(const void *a, const void *b)
{
	const cgm_operator *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = cmp_nullable(x->left, y->left);
	if (!c)
		c = cmp_nullable(x->right, y->right);
	if (!c)
		c = cmp_nullable(x->schema, y->schema);
	return c;
}

static int compare_casts(const void *a, const void *b)
{
	const cgm_cast *x = a, *y = b;
	int c = strcmp(x->target, y->target);
	return c ? c : strcmp(x->source, y->source);
}

void cgm_ops_index(cgm_model *model)
{
	bool sorted = true;
	for (int i = 1; i < model->noperators && sorted; i++)
		sorted = compare_operators(&model->operators[i - 1], &model->operators[i]) <= 0;
	if (!sorted)
		qsort(model->operators, (size_t)model->noperators, sizeof(cgm_operator),
		      compare_operators);
	sorted = true;
	for (int i = 1; i < model->ncasts && sorted; i++)
		sorted = compare_casts(&model->casts[i - 1], &model->casts[i]) <= 0;
	if (!sorted)
		qsort(model->casts, (size_t)model->ncasts, sizeof(cgm_cast), compare_casts);
}

/* ---- paths ------------------------------------------------------------------ */

/* Its own SET search_path; else the application's path when one was given
 * (--search-path, the configuration); else the path its owner's sessions
 * start with, when the owner role sets one (the application's role often
 * owns its functions: pgstac's pgstac_admin); else the database's. */
int cgm_function_path(const cgm_model *model, const cgm_function *fn, const char **out, int max)
{
	const cgm_source_info *src = &model->source;
	const char *const *path = src->default_search_path;
	int n = src->npath;
	if (fn && fn->npath >= 0) {
		path = fn->search_path;
		n = fn->npath;
	} else if (fn && fn->owner_path && !src->search_path_given) {
		path = fn->owner_path;
		n = fn->nowner_path;
	}
	bool has_catalog = false;
	for (int i = 0; i < n; i++)
		if (path[i] && strcmp(path[i], "pg_catalog") == 0)
			has_catalog = true;
	int k = 0;
	if (!has_catalog && k < max)
		out[k++] = "pg_catalog";
	for (int i = 0; i < n && k < max; i++)
		if (path[i])
			out[k++] = path[i];
	return k;
}

/* ---- coercion --------------------------------------------------------------- */

static bool is_array(const char *t)
{
	size_t n = strlen(t);
	return n > 2 && strcmp(t + n - 2, "[]") == 0;
}

/* Does a parameter of type `param` take any argument (polymorphic)? */
static bool polymorphic_takes(const char *param, const char *arg)
{
	if (strcmp(param, "\"any\"") == 0 || strcmp(param, "anyelement") == 0 ||
	    strcmp(param, "anycompatible") == 0)
		return true;
	if (strcmp(param, "anynonarray") == 0 || strcmp(param, "anycompatiblenonarray") == 0)
		return !is_array(arg);
	if (strcmp(param, "anyarray") == 0 || strcmp(param, "anycompatiblearray") == 0)
		return is_array(arg);
	if (strcmp(param, "anyenum") == 0 || strcmp(param, "anyrange") == 0 ||
	    strcmp(param, "anymultirange") == 0 || strcmp(param, "anycompatiblerange") == 0 ||
	    strcmp(param, "anycompatiblemultirange") == 0)
		return true; /* cannot tell an enum or range apart by name */
	return false;
}

/* First cast to `target` (casts ordered by target, then source). */
static int first_cast_to(const cgm_model *model, const char *target)
{
	int lo = 0, hi = model->ncasts;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(model->casts[mid].target, target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const cgm_cast *cgm_casts_to(const cgm_model *model, const char *target, int *count)
{
	int first = first_cast_to(model, target), last = first;
	while (last < model->ncasts && strcmp(model->casts[last].target, target) == 0)
		last++;
	*count = last - first;
	return last > first ? &model->casts[first] : NULL;
}

const cgm_cast *cgm_cast_find(const cgm_model *model, const char *source, const char *target)
{
	if (!source || !target)
		return NULL;
	int n;
	const cgm_cast *c = cgm_casts_to(model, target, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(c[i].source, source) == 0)
			return &c[i];
	return NULL;
}

static bool context_allows(char cast_context, char context)
{
	switch (context) {
	case 'e':
		return true;
	case 'a':
		return cast_context == 'i' || cast_context == 'a';
	default:
		return cast_context == 'i';
	}
}

bool cgm_type_coercible(const cgm_model *model, const char *from, const char *to, char context)
{
	if (!from || !to || strcmp(from, to) == 0 || strcmp(from, "unknown") == 0)
		return true;
	if (polymorphic_takes(to, from))
		return true;
	const cgm_cast *c = cgm_cast_find(model, from, to);
	if (c)
		return context_allows(c->context, context);
	/* Arrays coerce element by element. */
	if (is_array(from) && is_array(to)) {
		size_t lf = strlen(from) - 2, lt = strlen(to) - 2;
		char ef[256], et[256];
		if (lf < sizeof ef && lt < sizeof et) {
			memcpy(ef, from, lf);
			ef[lf] = '\0';
			memcpy(et, to, lt);
			et[lt] = '\0';
			return cgm_type_coercible(model, ef, et, context);
		}
	}
	/* I/O conversion: to a string type in assignment, from one explicitly. */
	bool to_string = strcmp(to, "text") == 0 || strcmp(to, "character varying") == 0 ||
			 strcmp(to, "character") == 0 || strcmp(to, "name") == 0;
	bool from_string = strcmp(from, "text") == 0 || strcmp(from, "character varying") == 0 ||
			   strcmp(from, "character") == 0 || strcmp(from, "name") == 0;
	if (to_string && context != 'i')
		return true;
	if (from_string && context == 'e')
		return true;
	return false;
}

/* ---- operators ---------------------------------------------------------------- */

/* The preferred type of each category PostgreSQL marks (typispreferred). */
static bool preferred_type(const char *t)
{
	static const char *const preferred[] = { "text", "double precision", "boolean",
						 "timestamp with time zone", "interval", "oid",
						 "inet", "bit varying" };
	for (size_t i = 0; i < sizeof preferred / sizeof preferred[0]; i++)
		if (strcmp(preferred[i], t) == 0)
			return true;
	return false;
}

static bool same_type(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* First operator named `name` (operators ordered by name). */
static int first_operator(const cgm_model *model, const char *name)
{
	int lo = 0, hi = model->noperators;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(model->operators[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int path_rank(const char *schema, const char *const *path, int npath)
{
	for (int i = 0; i < npath; i++)
		if (path[i] && strcmp(path[i], schema) == 0)
			return i;
	return -1;
}

enum { MAX_OPERATOR_CANDIDATES = 64 };

int cgm_operator_lookup(const cgm_model *model, const char *schema, const char *const *path,
			int npath, const char *name, const char *left, const char *right, bool prefix,
			const cgm_operator **out, int max)
{
	if (!name || model->noperators == 0)
		return 0;
	/* pg_catalog is searched first unless the path places it. */
	const char *scratch[64];
	int ns = 0;
	if (schema) {
		scratch[ns++] = schema;
	} else {
		bool has_catalog = false;
		for (int i = 0; i < npath; i++)
			if (path[i] && strcmp(path[i], "pg_catalog") == 0)
				has_catalog = true;
		if (!has_catalog)
			scratch[ns++] = "pg_catalog";
		for (int i = 0; i < npath && ns < 64; i++)
			if (path[i])
				scratch[ns++] = path[i];
	}

	/* Visible operators of that name and form, one per operand types (the
	 * earliest schema masks the rest). */
	const cgm_operator *cand[MAX_OPERATOR_CANDIDATES];
	int rank[MAX_OPERATOR_CANDIDATES];
	int n = 0;
	for (int i = first_operator(model, name);
	     i < model->noperators && strcmp(model->operators[i].name, name) == 0; i++) {
		const cgm_operator *op = &model->operators[i];
		if ((op->left == NULL) != prefix || !op->right)
			continue;
		int r = path_rank(op->schema, scratch, ns);
		if (r < 0)
			continue;
		bool masked = false;
		for (int k = 0; k < n; k++)
			if (same_type(cand[k]->left, op->left) && same_type(cand[k]->right, op->right)) {
				if (r < rank[k]) {
					cand[k] = op;
					rank[k] = r;
				}
				masked = true;
				break;
			}
		if (!masked && n < MAX_OPERATOR_CANDIDATES) {
			cand[n] = op;
			rank[n++] = r;
		}
	}

	/* An exact match, an unknown literal taken as the other side's type. */
	const char *l = prefix ? NULL : left, *r = right;
	if (!prefix && l && r && strcmp(l, "unknown") == 0 && strcmp(r, "unknown") != 0)
		l = r;
	else if (!prefix && l && r && strcmp(r, "unknown") == 0 && strcmp(l, "unknown") != 0)
		r = l;
	if ((prefix || l) && r) {
		for (int k = 0; k < n; k++)
			if ((prefix || same_type(cand[k]->left, l)) && same_type(cand[k]->right, r)) {
				if (max > 0)
					out[0] = cand[k];
				return 1;
			}
	}

	/* Candidates every operand coerces to implicitly, scored by exact matches. */
	const char *args[2] = { prefix ? NULL : left, right };
	int exact[MAX_OPERATOR_CANDIDATES], kept = 0, best = -1;
	for (int k = 0; k < n; k++) {
		const char *params[2] = { cand[k]->left, cand[k]->right };
		int e = 0;
		bool fits = true;
		for (int a = prefix ? 1 : 0; a < 2 && fits; a++) {
			if (args[a] && strcmp(args[a], "unknown") != 0 && same_type(args[a], params[a]))
				e++;
			else
				fits = cgm_type_coercible(model, args[a], params[a], 'i');
		}
		if (!fits)
			continue;
		cand[kept] = cand[k];
		exact[kept++] = e;
		if (e > best)
			best = e;
	}
	n = 0;
	for (int k = 0; k < kept; k++)
		if (exact[k] == best)
			cand[n++] = cand[k];
	/* Then preferred types at the operands that needed a coercion. */
	if (n > 1) {
		int pref[MAX_OPERATOR_CANDIDATES], most = -1;
		for (int k = 0; k < n; k++) {
			const char *params[2] = { cand[k]->left, cand[k]->right };
			pref[k] = 0;
			/* As func_select_candidate: only where the operand's
			 * type is known, a preferred type of its category. */
			for (int a = prefix ? 1 : 0; a < 2; a++)
				if (args[a] && strcmp(args[a], "unknown") != 0 &&
				    !same_type(args[a], params[a]) && preferred_type(params[a]) &&
				    cgm_type_category(args[a]) == cgm_type_category(params[a]))
					pref[k]++;
			if (pref[k] > most)
				most = pref[k];
		}
		int m = 0;
		for (int k = 0; k < n; k++)
			if (pref[k] == most)
				cand[m++] = cand[k];
		n = m;
	}
	/* Then untyped literals, as func_select_candidate resolves them: at
	 * each, the category the candidates take there (string when any takes
	 * a string type; none when they disagree otherwise), and a preferred
	 * type of it when any candidate takes one. */
	for (int a = prefix ? 1 : 0; a < 2 && n > 1; a++) {
		if (!args[a] || strcmp(args[a], "unknown") != 0)
			continue;
		char cat = 0;
		bool conflict = false, any_preferred = false;
		for (int k = 0; k < n; k++) {
			const char *p = a == 0 ? cand[k]->left : cand[k]->right;
			char c = cgm_type_category(p);
			if (!cat || c == 'S')
				cat = c;
			else if (c != cat)
				conflict = true;
		}
		if (conflict && cat != 'S')
			continue;
		for (int k = 0; k < n; k++) {
			const char *p = a == 0 ? cand[k]->left : cand[k]->right;
			any_preferred |= cgm_type_category(p) == cat && preferred_type(p);
		}
		int m = 0;
		for (int k = 0; k < n; k++) {
			const char *p = a == 0 ? cand[k]->left : cand[k]->right;
			if (cgm_type_category(p) == cat && (!any_preferred || preferred_type(p)))
				cand[m++] = cand[k];
		}
		if (m > 0)
			n = m;
	}
	for (int k = 0; k < n && k < max; k++)
		out[k] = cand[k];
	return n;
}

bool cgm_builtin_operator_overloaded(const char *name, bool prefix)
{
	static const char *const infix[] = { "=",  "<>", "<",	"<=",  ">",  ">=",	"+",  "-",
					     "*",  "/",	 "%",	"||",  "~~", "!~~", "~~*", "!~~*",
					     "~",  "!~", "~*",	"!~*", "&",  "|",	"#",  "<<",
					     ">>", "&&", "@>", "<@",  "^" };
	static const char *const prefix_ops[] = { "-", "+", "~", "@" };
	const char *const *list = prefix ? prefix_ops : infix;
	size_t n = prefix ? sizeof prefix_ops / sizeof prefix_ops[0] : sizeof infix / sizeof infix[0];
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* ---- aggregates and objects ---------------------------------------------------- */

const cgm_aggregate *cgm_aggregate_of(const cgm_model *model, int fn)
{
	for (int i = 0; fn >= 0 && i < model->naggregates; i++)
		if (model->aggregates[i].aggregate == fn)
			return &model->aggregates[i];
	return NULL;
}

/* The schema-qualified name of a type or operator as regoperator prints it:
 * pg_catalog's bare. */
static const char *qualified(cgm_arena *arena, const char *schema, const char *name)
{
	if (!schema || strcmp(schema, "pg_catalog") == 0)
		return name;
	return cgm_arena_printf(arena, "%s.%s", cgm_quote_ident(arena, schema), name);
}

const char *cgm_operator_object(cgm_arena *arena, const cgm_operator *op)
{
	return cgm_arena_printf(arena, "operator %s(%s,%s)", qualified(arena, op->schema, op->name),
				op->left ? op->left : "NONE", op->right ? op->right : "NONE");
}

const char *cgm_cast_object(cgm_arena *arena, const cgm_cast *cast)
{
	return cgm_arena_printf(arena, "cast (%s AS %s)", cast->source, cast->target);
}

const char *cgm_aggregate_object(cgm_arena *arena, const cgm_aggregate *agg)
{
	return cgm_arena_printf(arena, "aggregate %s", agg->aggregate_id);
}
