/*
 * exprcall.c - the overload PostgreSQL runs for a call in a DDL
 * expression (see cgmap/exprcall.h).
 *
 * In:  a libpg_query JSON tree and a source's callbacks.
 * Out: operand types and chosen functions, the source's or the arena's.
 * Memory: candidate lists are malloc'd and freed here; the catalog made
 * on first need is the source's, freed by cgm_exprcall_source_done.
 */
#include "cgmap/exprcall.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/viewcols.h"
#include "jsondom.h"

/* A nested call is typed by choosing it first: so deep, no further. */
#define MAX_CALL_DEPTH 4
/* Query levels and FROM items looked through for a column reference. */
#define MAX_LEVELS 32
#define MAX_FROM_ITEMS 64
/* Nodes of a query indexed once for its column references: a larger
 * query leaves them untyped. */
#define INDEX_BUDGET 4000000L
#define MAX_CANDIDATES 64
#define MAX_CALL_ARGS 100

static const char *operand_type(cgm_exprcall_source *src, const jd_node *node, int depth);
static const cgm_function *choose(cgm_exprcall_source *src, const jd_node *call, int depth,
				  const char *const *typed);

/* The string member `key` of an object, or NULL. */
static const char *member(const jd_node *node, const char *key)
{
	return jd_string(jd_get(node, key));
}

const char *cgm_exprcall_base_type(cgm_arena *arena, const char *type)
{
	if (!type || !strchr(type, '('))
		return type;
	/* Drop every "(...)" and the space left doubled. */
	size_t n = strlen(type);
	char *out = cgm_arena_alloc(arena, n + 1);
	size_t k = 0;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (type[i] == '(')
			depth++;
		else if (type[i] == ')' && depth > 0)
			depth--;
		else if (depth == 0 && !(type[i] == ' ' && (k == 0 || out[k - 1] == ' ')))
			out[k++] = type[i];
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
	return out;
}

/* ---- column references -------------------------------------------------- */

/* A FROM item as a column reference sees it: its name (an alias, else the
 * relation's) and columns; opaque when they are unknown here (a subquery,
 * a function, a CTE, a join's alias, a relation cgmap does not know). */
typedef struct from_item {
	const char *name;
	const cgm_column *columns;
	int ncolumns;
	bool opaque;
} from_item;

/* ---- the query's index: its levels, references and CTE names ---------- */

typedef struct query_level {
	const jd_node *body; /* a SelectStmt's body */
	int parent;          /* the level it is in, -1 for the outermost */
} query_level;

typedef struct ref_level {
	uintptr_t node; /* the node holding a ColumnRef */
	int level;
} ref_level;

struct cgm_exprcall_index {
	const jd_node *query;
	bool complete; /* the walk stayed within its budget */
	query_level *levels;
	int nlevels, cap_levels;
	ref_level *refs;
	int nrefs, cap_refs;
	const char **ctes;
	int nctes, cap_ctes;
};

#define GROW(a, n, cap)                                                                    \
	do {                                                                               \
		if ((n) == (cap)) {                                                        \
			(cap) = (cap) ? (cap) * 2 : 16;                                    \
			(a) = cgm_xrealloc((a), sizeof(*(a)) * (size_t)(cap));            \
		}                                                                          \
	} while (0)

static void index_walk(cgm_exprcall_index *x, const jd_node *node, int level, long *budget)
{
	if (--*budget < 0) {
		x->complete = false;
		return;
	}
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			index_walk(x, jd_at(node, i), level, budget);
		return;
	}
	if (!jd_is_object(node))
		return;
	if (jd_get(node, "ColumnRef")) {
		GROW(x->refs, x->nrefs, x->cap_refs);
		x->refs[x->nrefs++] = (ref_level){ (uintptr_t)node, level };
	}
	const jd_node *cte = jd_get(node, "CommonTableExpr");
	const char *ctename = cte ? member(cte, "ctename") : NULL;
	if (ctename) {
		GROW(x->ctes, x->nctes, x->cap_ctes);
		x->ctes[x->nctes++] = ctename;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value) {
		int inner = level;
		if (strcmp(key, "SelectStmt") == 0) {
			GROW(x->levels, x->nlevels, x->cap_levels);
			x->levels[x->nlevels] = (query_level){ value, level };
			inner = x->nlevels++;
		}
		index_walk(x, value, inner, budget);
	}
	(void)key;
}

static int compare_refs(const void *a, const void *b)
{
	uintptr_t x = ((const ref_level *)a)->node, y = ((const ref_level *)b)->node;
	return x < y ? -1 : x > y;
}

/* The index of src->query, made on first need and again for another. */
static const cgm_exprcall_index *query_index(cgm_exprcall_source *src)
{
	cgm_exprcall_index *x = src->index;
	if (!x) {
		x = src->index = cgm_xcalloc(1, sizeof *x);
		src->own_index = true;
	}
	if (x->query == src->query && x->query)
		return x;
	x->query = src->query;
	x->complete = true;
	x->nlevels = x->nrefs = x->nctes = 0;
	long budget = INDEX_BUDGET;
	int top = -1;
	/* The query given as a SelectStmt's body is the outermost level. */
	if (!jd_get(src->query, "SelectStmt")) {
		GROW(x->levels, x->nlevels, x->cap_levels);
		x->levels[x->nlevels] = (query_level){ src->query, -1 };
		top = x->nlevels++;
	}
	index_walk(x, src->query, top, &budget);
	qsort(x->refs, (size_t)x->nrefs, sizeof(ref_level), compare_refs);
	return x;
}

static bool names_cte(const cgm_exprcall_index *x, const char *name)
{
	for (int i = 0; i < x->nctes; i++)
		if (strcmp(x->ctes[i], name) == 0)
			return true;
	return false;
}

cgm_exprcall_index *cgm_exprcall_index_new(void)
{
	return cgm_xcalloc(1, sizeof(cgm_exprcall_index));
}

void cgm_exprcall_index_free(cgm_exprcall_index *index)
{
	if (!index)
		return;
	free(index->levels);
	free(index->refs);
	free(index->ctes);
	free(index);
}

static void from_items_of(cgm_exprcall_source *src, const cgm_exprcall_index *x,
			  const jd_node *node, from_item *out, int *n)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			from_items_of(src, x, jd_at(node, i), out, n);
		return;
	}
	if (!jd_is_object(node) || *n >= MAX_FROM_ITEMS)
		return;
	const jd_node *r;
	if ((r = jd_get(node, "RangeVar"))) {
		const char *alias = member(jd_get(r, "alias"), "aliasname");
		const char *schema = member(r, "schemaname"), *relname = member(r, "relname");
		from_item item = { alias ? alias : relname, NULL, 0, true };
		if (relname && (schema || !names_cte(x, relname)))
			item.columns = src->relation(src->ctx, schema, relname, &item.ncolumns);
		item.opaque = !item.columns || item.ncolumns <= 0;
		out[(*n)++] = item;
	} else if ((r = jd_get(node, "JoinExpr"))) {
		from_items_of(src, x, jd_get(r, "larg"), out, n);
		from_items_of(src, x, jd_get(r, "rarg"), out, n);
		const char *alias = member(jd_get(r, "alias"), "aliasname");
		if (alias && *n < MAX_FROM_ITEMS)
			out[(*n)++] = (from_item){ alias, NULL, 0, true };
	} else {
		/* RangeSubselect, RangeFunction, RangeTableFunc, ...: the alias
		 * is in the one member object. */
		const char *key;
		jd_node *value;
		const jd_node *alias = NULL;
		jd_object_foreach(node, key, value)
			alias = jd_get(value, "alias");
		(void)key;
		out[(*n)++] = (from_item){ member(alias, "aliasname"), NULL, 0, true };
	}
}

/* The column's type among `items` (qualified: of the item so named);
 * *unknown when an opaque item may hold it. */
static const char *column_among(cgm_exprcall_source *src, const from_item *items, int n,
				const char *qual, const char *col, bool *unknown, bool *named)
{
	const char *type = NULL;
	for (int i = 0; i < n; i++) {
		if (qual && (!items[i].name || strcmp(items[i].name, qual) != 0))
			continue;
		*named = qual != NULL;
		if (items[i].opaque) {
			*unknown = true;
			continue;
		}
		for (int c = 0; c < items[i].ncolumns; c++) {
			const cgm_column *k = &items[i].columns[c];
			if (!k->name || strcmp(k->name, col) != 0)
				continue;
			const char *t = cgm_exprcall_base_type(src->arena, k->type);
			/* A USING join's merged column, of two types: its own. */
			if (!t || (type && strcmp(type, t) != 0)) {
				*unknown = true;
				return NULL;
			}
			type = t;
		}
		if (qual)
			break;
	}
	return type;
}

/* A column reference in a view's query, as PostgreSQL binds it: the
 * innermost query level with an item of that name (qualified) or holding
 * that column (unqualified: a known relation there that has it, which
 * valid SQL makes the only one; an unknown item there leaves it unknown). */
static const char *query_column_type(cgm_exprcall_source *src, const jd_node *ref,
				     const jd_node *fields)
{
	size_t nf = jd_size(fields);
	const char *col = nf ? jd_string_node(jd_at(fields, nf - 1)) : NULL;
	const char *qual = nf >= 2 ? jd_string_node(jd_at(fields, nf - 2)) : NULL;
	if (!col || nf > 3 || (nf >= 2 && !qual))
		return NULL;
	const cgm_exprcall_index *x = query_index(src);
	if (!x->complete)
		return NULL;
	ref_level key = { (uintptr_t)ref, -1 };
	const ref_level *found = bsearch(&key, x->refs, (size_t)x->nrefs, sizeof(ref_level),
					 compare_refs);
	if (!found)
		return NULL;
	for (int l = found->level, hops = 0; l >= 0 && hops < MAX_LEVELS; l = x->levels[l].parent, hops++) {
		from_item items[MAX_FROM_ITEMS];
		int n = 0;
		from_items_of(src, x, jd_get(x->levels[l].body, "fromClause"), items, &n);
		bool unknown = false, named = false;
		const char *type = column_among(src, items, n, qual, col, &unknown, &named);
		if (type || unknown || named)
			return type;
	}
	return NULL;
}

static const char *column_type(cgm_exprcall_source *src, const jd_node *node, const jd_node *ref)
{
	const jd_node *fields = jd_get(ref, "fields");
	if (src->query)
		return query_column_type(src, node, fields);
	size_t nf = jd_size(fields);
	const char *col = nf ? jd_string_node(jd_at(fields, nf - 1)) : NULL;
	if (!col || !src->rel)
		return NULL;
	int ncolumns = 0;
	const cgm_column *columns = src->relation(src->ctx, src->schema, src->rel, &ncolumns);
	for (int i = 0; columns && i < ncolumns; i++)
		if (columns[i].name && strcmp(columns[i].name, col) == 0)
			return cgm_exprcall_base_type(src->arena, columns[i].type);
	return NULL;
}

/* ---- operands and calls ------------------------------------------------- */

/* A constant the parser left as text (a Float node): an integer too large
 * for integer is bigint when it fits (make_const), else numeric, as is
 * anything with a point or an exponent. */
static const char *float_constant_type(const char *text)
{
	if (!text)
		return "numeric";
	/* A negated constant comes folded ("-5"): int8 reaches one further. */
	const char *largest = "9223372036854775807";
	if (*text == '-') {
		text++;
		largest = "9223372036854775808";
	}
	size_t digits = strspn(text, "0123456789");
	if (digits == 0 || text[digits] != '\0')
		return "numeric";
	while (digits > 1 && *text == '0')
		text++, digits--;
	if (digits < 19 || (digits == 19 && strcmp(text, largest) <= 0))
		return "bigint";
	return "numeric";
}

static const char *operand_type(cgm_exprcall_source *src, const jd_node *node, int depth)
{
	const jd_node *c;
	if (!node)
		return NULL;
	if ((c = jd_get(node, "A_Const"))) {
		if (jd_get(c, "fval"))
			return float_constant_type(member(jd_get(c, "fval"), "fval"));
		return jd_get(c, "ival") ? "integer" : jd_get(c, "boolval") ? "boolean"
			: jd_get(c, "sval") || jd_get(c, "isnull") ? "unknown" : NULL;
	}
	if ((c = jd_get(node, "TypeCast")))
		return src->type_name(src->ctx, jd_get(c, "typeName"));
	if ((c = jd_get(node, "ColumnRef")))
		return column_type(src, node, c);
	if ((c = jd_get(node, "FuncCall")) && depth < MAX_CALL_DEPTH) {
		const cgm_function *f = choose(src, c, depth + 1, NULL);
		const char *r = f ? f->result : NULL;
		if (r && strncmp(r, "SETOF ", 6) != 0 && strncmp(r, "TABLE(", 6) != 0 &&
		    strcmp(r, "record") != 0 && strcmp(r, "void") != 0 && strcmp(r, "trigger") != 0 &&
		    !cgm_type_is_polymorphic(r))
			return r;
	}
	return NULL;
}

const char *cgm_exprcall_operand_type(cgm_exprcall_source *src, const jd_node *node)
{
	return operand_type(src, node, 0);
}

static bool same_arguments(const cgm_function *f, const cgm_function *g, int nargs)
{
	for (int a = 0; a < nargs; a++)
		if (!f->argtypes[a] || !g->argtypes[a] || strcmp(f->argtypes[a], g->argtypes[a]) != 0)
			return false;
	return true;
}

/* `typed`: the arguments' types as operand_type gives them, when the
 * caller has them already; else typed here. */
static const cgm_function *choose(cgm_exprcall_source *src, const jd_node *call, int depth,
				  const char *const *typed)
{
	const char *parts[3];
	const jd_node *names = jd_get(call, "funcname");
	size_t n = jd_size(names);
	if (n < 1 || n > 3 || jd_get(call, "agg_star") || jd_get(call, "func_variadic"))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(parts[i] = jd_string_node(jd_at(names, i))))
			return NULL;
	const jd_node *args = jd_get(call, "args");
	int nargs = (int)jd_size(args);
	if (nargs > MAX_CALL_ARGS)
		return NULL;
	for (int i = 0; i < nargs; i++)
		if (jd_get(jd_at(args, (size_t)i), "NamedArgExpr"))
			return NULL;
	/* The candidates first: the arguments are typed only for a call
	 * that has some. */
	cgm_exprcall_candidate found[MAX_CANDIDATES];
	int nfound = src->candidates(src->ctx, n >= 2 ? parts[n - 2] : NULL, parts[n - 1], nargs,
				     found, MAX_CANDIDATES);
	if (nfound <= 0)
		return NULL;
	const char *types[MAX_CALL_ARGS + 1];
	for (int i = 0; i < nargs; i++)
		types[i] = typed ? typed[i] : operand_type(src, jd_at(args, (size_t)i), depth);
	/* The earlier schema's of two with the same argument types; two of
	 * one schema make the call ambiguous, which PostgreSQL refuses. */
	cgm_exprcall_candidate kept[MAX_CANDIDATES];
	int nkept = 0;
	for (int i = 0; i < nfound; i++) {
		const cgm_function *f = found[i].function;
		if (f->variadic)
			return NULL;
		int same = -1;
		for (int j = 0; j < nkept && same < 0; j++)
			if (same_arguments(f, kept[j].function, nargs))
				same = j;
		if (same < 0)
			kept[nkept++] = found[i];
		else if (found[i].rank == kept[same].rank)
			return NULL;
		else if (found[i].rank < kept[same].rank)
			kept[same] = found[i];
	}
	cgm_candidate sel[MAX_CANDIDATES];
	for (int j = 0; j < nkept; j++)
		sel[j] = (cgm_candidate){ .index = j,
					  .params = (const char *const *)kept[j].function->argtypes };
	if (!src->catalog) {
		src->catalog = cgm_catalog_new(src->model);
		src->own_catalog = true;
	}
	int left = cgm_select_candidates(src->catalog, nargs, types, sel, nkept);
	return left == 1 ? kept[sel[0].index].function : NULL;
}

const cgm_function *cgm_exprcall_choose(cgm_exprcall_source *src, const jd_node *call)
{
	return choose(src, call, 0, NULL);
}

const cgm_function *cgm_exprcall_choose_typed(cgm_exprcall_source *src, const jd_node *call,
					      const char *const *types)
{
	return choose(src, call, 0, types);
}

/* The call may run the function sought: its choice is that one, or
 * cgmap cannot choose. */
typedef struct may_run_ctx {
	cgm_exprcall_source *src;
	const cgm_function *f;
} may_run_ctx;

static bool choice_may_be(void *ctx, const jd_node *call)
{
	const may_run_ctx *m = ctx;
	const cgm_function *chosen = cgm_exprcall_choose(m->src, call);
	return !chosen || chosen == m->f;
}

bool cgm_exprcall_may_run(cgm_exprcall_source *src, const jd_node *node, const char *schema,
			  const char *name, const cgm_function *f)
{
	may_run_ctx m = { src, f };
	return cgm_viewcols_calls_where(node, schema, name, choice_may_be, &m);
}

void cgm_exprcall_source_done(cgm_exprcall_source *src)
{
	if (src->own_catalog)
		cgm_catalog_free(src->catalog);
	src->catalog = NULL;
	src->own_catalog = false;
	if (src->own_index)
		cgm_exprcall_index_free(src->index);
	src->index = NULL;
	src->own_index = false;
}
