/*
 * selectcols.c - the output columns of a SELECT as PostgreSQL names them
 * (selectcols.h): parse analysis's FigureColname for a target without AS,
 * and a star expanded through the FROM items as transformTargetList does.
 *
 * In:  libpg_query's JSON tree of a SELECT, read only; a callback for the
 *      columns of tables and views, and one for the type a cast names.
 * Out: arena-allocated names and types; nothing to free.
 * Work is bounded: CTEs and subqueries nest at most MAX_DEPTH deep and at
 * most MAX_EXPANSIONS FROM items are expanded in all, so a chain of CTEs
 * each showing the one before twice cannot grow without end.
 */
#include "selectcols.h"

#include <string.h>

#include "jsondom.h"

#define MAX_DEPTH 64
#define MAX_EXPANSIONS 4096

/* The WITH clauses a FROM item may name a CTE of, innermost first. */
typedef struct scope {
	const jd_node *with; /* a WithClause's "ctes" list, or NULL */
	const struct scope *up;
} scope;

typedef struct walk {
	cgm_arena *arena;
	cgm_selectcols_table_fn table;
	cgm_selectcols_cast_fn cast; /* may be NULL: casts' types not known */
	void *ctx;
	int expansions;
} walk;

static void put(walk *w, cgm_select_columns *out, int *cap, const char *name, const char *type)
{
	if (out->n == *cap) {
		int grown = *cap ? *cap * 2 : 16;
		const char **names = cgm_arena_alloc(w->arena, sizeof(char *) * (size_t)grown);
		const char **types = cgm_arena_alloc(w->arena, sizeof(char *) * (size_t)grown);
		if (out->n) {
			memcpy(names, out->names, sizeof(char *) * (size_t)out->n);
			memcpy(types, out->types, sizeof(char *) * (size_t)out->n);
		}
		out->names = names;
		out->types = types;
		*cap = grown;
	}
	out->names[out->n] = name;
	out->types[out->n] = type;
	out->n++;
}

/* ---- FigureColname ---------------------------------------------------- */

/* The name and its strength (2: a real name, 1: a fallback such as a cast's
 * type or "case", 0: none), as parse analysis weighs them. */
static int figure(const jd_node *node, const char **name, int depth)
{
	if (!node || depth > MAX_DEPTH)
		return 0;
	const jd_node *n;
	if ((n = jd_get(node, "ColumnRef"))) {
		const jd_node *fields = jd_get(n, "fields");
		for (size_t i = jd_size(fields); i > 0; i--) {
			const char *s = jd_string_node(jd_at(fields, i - 1));
			if (s) {
				*name = s;
				return 2;
			}
		}
		return 0;
	}
	if ((n = jd_get(node, "A_Indirection"))) {
		const jd_node *ind = jd_get(n, "indirection");
		for (size_t i = jd_size(ind); i > 0; i--) {
			const char *s = jd_string_node(jd_at(ind, i - 1));
			if (s) {
				*name = s;
				return 2;
			}
		}
		return figure(jd_get(n, "arg"), name, depth + 1);
	}
	if ((n = jd_get(node, "FuncCall"))) {
		const jd_node *names = jd_get(n, "funcname");
		const char *s = jd_size(names) ? jd_string_node(jd_at(names, jd_size(names) - 1)) : NULL;
		if (s) {
			*name = s;
			return 2;
		}
		return 0;
	}
	if ((n = jd_get(node, "A_Expr"))) {
		const char *kind = jd_string(jd_get(n, "kind"));
		if (kind && strcmp(kind, "AEXPR_NULLIF") == 0) {
			*name = "nullif";
			return 2;
		}
		return 0;
	}
	if ((n = jd_get(node, "TypeCast"))) {
		int strength = figure(jd_get(n, "arg"), name, depth + 1);
		if (strength <= 1) {
			const jd_node *names = jd_get(jd_get(n, "typeName"), "names");
			const char *s = jd_size(names) ? jd_string_node(jd_at(names, jd_size(names) - 1)) : NULL;
			if (s) {
				*name = s;
				return 1;
			}
		}
		return strength;
	}
	if ((n = jd_get(node, "CollateClause")))
		return figure(jd_get(n, "arg"), name, depth + 1);
	if (jd_get(node, "GroupingFunc")) {
		*name = "grouping";
		return 2;
	}
	if ((n = jd_get(node, "SubLink"))) {
		const char *type = jd_string(jd_get(n, "subLinkType"));
		if (type && strcmp(type, "EXISTS_SUBLINK") == 0) {
			*name = "exists";
			return 2;
		}
		if (type && strcmp(type, "ARRAY_SUBLINK") == 0) {
			*name = "array";
			return 2;
		}
		if (type && strcmp(type, "EXPR_SUBLINK") == 0) {
			/* The subquery's one target, as its own query names it. */
			const jd_node *sub = jd_get(jd_get(n, "subselect"), "SelectStmt");
			while (sub && jd_get(sub, "larg"))
				sub = jd_get(sub, "larg");
			const jd_node *rt = jd_get(jd_at(jd_get(sub, "targetList"), 0), "ResTarget");
			if (rt) {
				const char *as = jd_string(jd_get(rt, "name"));
				*name = as ? as : cgm_select_figure_colname(jd_get(rt, "val"));
				return 2;
			}
		}
		return 0;
	}
	if ((n = jd_get(node, "CaseExpr"))) {
		int strength = figure(jd_get(n, "defresult"), name, depth + 1);
		if (strength <= 1) {
			*name = "case";
			return 1;
		}
		return strength;
	}
	if (jd_get(node, "A_ArrayExpr")) {
		*name = "array";
		return 2;
	}
	if (jd_get(node, "RowExpr")) {
		*name = "row";
		return 2;
	}
	if (jd_get(node, "CoalesceExpr")) {
		*name = "coalesce";
		return 2;
	}
	if ((n = jd_get(node, "MinMaxExpr"))) {
		const char *op = jd_string(jd_get(n, "op"));
		*name = op && strcmp(op, "IS_LEAST") == 0 ? "least" : "greatest";
		return 2;
	}
	if ((n = jd_get(node, "SQLValueFunction"))) {
		static const struct {
			const char *op, *name;
		} ops[] = {
			{ "SVFOP_CURRENT_DATE", "current_date" },
			{ "SVFOP_CURRENT_TIME", "current_time" },
			{ "SVFOP_CURRENT_TIME_N", "current_time" },
			{ "SVFOP_CURRENT_TIMESTAMP", "current_timestamp" },
			{ "SVFOP_CURRENT_TIMESTAMP_N", "current_timestamp" },
			{ "SVFOP_LOCALTIME", "localtime" },
			{ "SVFOP_LOCALTIME_N", "localtime" },
			{ "SVFOP_LOCALTIMESTAMP", "localtimestamp" },
			{ "SVFOP_LOCALTIMESTAMP_N", "localtimestamp" },
			{ "SVFOP_CURRENT_ROLE", "current_role" },
			{ "SVFOP_CURRENT_USER", "current_user" },
			{ "SVFOP_USER", "user" },
			{ "SVFOP_SESSION_USER", "session_user" },
			{ "SVFOP_CURRENT_CATALOG", "current_catalog" },
			{ "SVFOP_CURRENT_SCHEMA", "current_schema" },
		};
		const char *op = jd_string(jd_get(n, "op"));
		for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
			if (strcmp(op, ops[i].op) == 0) {
				*name = ops[i].name;
				return 2;
			}
		return 0;
	}
	if (jd_get(node, "XmlSerialize")) {
		*name = "xmlserialize";
		return 2;
	}
	return 0;
}

const char *cgm_select_figure_colname(const jd_node *val)
{
	const char *name = NULL;
	return figure(val, &name, 0) > 0 && name ? name : "?column?";
}

/* ---- a star's columns ------------------------------------------------- */

/* The CTE `name` in scope, with the scope its query is read in. */
static const jd_node *find_cte(const scope *sc, const char *name, const scope **found)
{
	for (; sc; sc = sc->up)
		for (size_t i = 0; i < jd_size(sc->with); i++) {
			const jd_node *cte = jd_get(jd_at(sc->with, i), "CommonTableExpr");
			const char *cn = jd_string(jd_get(cte, "ctename"));
			if (cn && strcmp(cn, name) == 0) {
				*found = sc;
				return cte;
			}
		}
	return NULL;
}

/* A column name list (an alias's, a CTE's) renames the first columns. */
static void rename_by(const jd_node *names, cgm_select_columns *cols)
{
	for (size_t i = 0; i < jd_size(names) && (int)i < cols->n; i++)
		if (jd_string_node(jd_at(names, i)))
			cols->names[i] = jd_string_node(jd_at(names, i));
}

static bool select_columns(walk *w, const jd_node *select, const scope *outer,
			   cgm_select_columns *out, int depth);

/* A CTE's columns: its query's, renamed by its column list; its query sees
 * the WITH clause it stands in (`sc`). */
static bool cte_columns(walk *w, const jd_node *cte, const scope *sc, cgm_select_columns *out,
			int depth)
{
	if (!select_columns(w, jd_get(jd_get(cte, "ctequery"), "SelectStmt"), sc, out, depth))
		return false;
	rename_by(jd_get(cte, "aliascolnames"), out);
	return true;
}

/* The name a FROM item is referred to by (its alias, else a relation's
 * name), NULL when none. */
static const char *item_name(const jd_node *item)
{
	const jd_node *n;
	if ((n = jd_get(item, "RangeVar"))) {
		const char *alias = jd_string(jd_get(jd_get(n, "alias"), "aliasname"));
		return alias ? alias : jd_string(jd_get(n, "relname"));
	}
	if ((n = jd_get(item, "RangeSubselect")) || (n = jd_get(item, "JoinExpr")))
		return jd_string(jd_get(jd_get(n, "alias"), "aliasname"));
	return NULL;
}

static bool item_columns(walk *w, const jd_node *item, const scope *sc, cgm_select_columns *out,
			 int depth)
{
	memset(out, 0, sizeof *out);
	if (depth > MAX_DEPTH || ++w->expansions > MAX_EXPANSIONS)
		return false;
	const jd_node *n;
	if ((n = jd_get(item, "RangeVar"))) {
		const char *schema = jd_string(jd_get(n, "schemaname"));
		const char *name = jd_string(jd_get(n, "relname"));
		const scope *cte_scope = NULL;
		const jd_node *cte = !schema && name ? find_cte(sc, name, &cte_scope) : NULL;
		if (cte) {
			if (!cte_columns(w, cte, cte_scope, out, depth + 1))
				return false;
		} else {
			const char *const *names = NULL, *const *types = NULL;
			int count = name && w->table ? w->table(w->ctx, schema, name, &names, &types) : -1;
			if (count < 0 || (count > 0 && !names))
				return false;
			int cap = 0;
			for (int i = 0; i < count; i++)
				put(w, out, &cap, names[i], types ? types[i] : NULL);
		}
		rename_by(jd_get(jd_get(n, "alias"), "colnames"), out);
		return true;
	}
	if ((n = jd_get(item, "RangeSubselect"))) {
		if (!select_columns(w, jd_get(jd_get(n, "subquery"), "SelectStmt"), sc, out, depth + 1))
			return false;
		rename_by(jd_get(jd_get(n, "alias"), "colnames"), out);
		return true;
	}
	if ((n = jd_get(item, "JoinExpr"))) {
		cgm_select_columns left, right;
		if (jd_is_true(jd_get(n, "isNatural")) ||
		    !item_columns(w, jd_get(n, "larg"), sc, &left, depth + 1) ||
		    !item_columns(w, jd_get(n, "rarg"), sc, &right, depth + 1))
			return false;
		/* USING's columns first, once, then each side's others. */
		const jd_node *using = jd_get(n, "usingClause");
		int cap = 0;
		for (size_t u = 0; u < jd_size(using); u++)
			if (jd_string_node(jd_at(using, u)))
				put(w, out, &cap, jd_string_node(jd_at(using, u)), NULL);
		const cgm_select_columns *sides[2] = { &left, &right };
		for (int s = 0; s < 2; s++)
			for (int i = 0; i < sides[s]->n; i++) {
				bool merged = false;
				for (size_t u = 0; u < jd_size(using) && !merged; u++)
					merged = jd_string_node(jd_at(using, u)) &&
						 strcmp(jd_string_node(jd_at(using, u)), sides[s]->names[i]) == 0;
				if (!merged)
					put(w, out, &cap, sides[s]->names[i], sides[s]->types[i]);
			}
		rename_by(jd_get(jd_get(n, "alias"), "colnames"), out);
		return true;
	}
	return false; /* a function, XMLTABLE, ...: columns not known here */
}

/* `q.*` names the item q: a FROM item, or one inside a join without alias. */
static const jd_node *named_item(const jd_node *item, const char *q, int depth)
{
	if (!item || depth > MAX_DEPTH)
		return NULL;
	const char *name = item_name(item);
	if (name && strcmp(name, q) == 0)
		return item;
	const jd_node *j = jd_get(item, "JoinExpr");
	if (!j || jd_get(j, "alias"))
		return NULL;
	const jd_node *found = named_item(jd_get(j, "larg"), q, depth + 1);
	return found ? found : named_item(jd_get(j, "rarg"), q, depth + 1);
}

/* The columns of FROM items already read for one select list's targets:
 * each item read once however many targets name it. */
typedef struct item_cache {
	const jd_node *item;
	cgm_select_columns cols;
	bool known;
} item_cache;

static const cgm_select_columns *cached_columns(walk *w, const jd_node *item, const scope *sc, int depth,
						item_cache **cache, int *ncache, int *cap)
{
	for (int i = 0; i < *ncache; i++)
		if ((*cache)[i].item == item)
			return (*cache)[i].known ? &(*cache)[i].cols : NULL;
	if (*ncache == *cap) {
		int grown = *cap ? *cap * 2 : 8;
		item_cache *bigger = cgm_arena_alloc(w->arena, sizeof(item_cache) * (size_t)grown);
		if (*ncache)
			memcpy(bigger, *cache, sizeof(item_cache) * (size_t)*ncache);
		*cache = bigger;
		*cap = grown;
	}
	item_cache *c = &(*cache)[(*ncache)++];
	c->item = item;
	c->known = item_columns(w, item, sc, &c->cols, depth + 1);
	return c->known ? &c->cols : NULL;
}

static const char *column_named(const cgm_select_columns *cols, const char *col, int *matches)
{
	const char *type = NULL;
	for (int i = 0; cols && i < cols->n; i++)
		if (cols->names[i] && strcmp(cols->names[i], col) == 0) {
			type = cols->types[i];
			(*matches)++;
		}
	return type;
}

/* The type of a target that is a column of a FROM item (`col` of the
 * one item that has it, `q.col` of the item q) as the item gives it, or
 * of a cast to a type; NULL otherwise.  Work past half the expansion
 * budget is left to the stars, which need it. */
static const char *target_type(walk *w, const jd_node *val, const jd_node *from, const scope *sc, int depth,
			       item_cache **cache, int *ncache, int *cap)
{
	const jd_node *cast = jd_get(val, "TypeCast");
	if (cast)
		return w->cast ? w->cast(w->ctx, jd_get(cast, "typeName")) : NULL;
	const jd_node *fields = jd_get(jd_get(val, "ColumnRef"), "fields");
	size_t nf = jd_size(fields);
	if (nf < 1 || nf > 2 || w->expansions > MAX_EXPANSIONS / 2)
		return NULL;
	const char *col = jd_string_node(jd_at(fields, nf - 1));
	const char *q = nf == 2 ? jd_string_node(jd_at(fields, 0)) : NULL;
	if (!col || (nf == 2 && !q))
		return NULL;
	const char *type = NULL;
	int matches = 0;
	for (size_t k = 0; k < jd_size(from); k++) {
		const jd_node *item = q ? named_item(jd_at(from, k), q, 0) : jd_at(from, k);
		if (!item)
			continue;
		const cgm_select_columns *cols = cached_columns(w, item, sc, depth, cache, ncache, cap);
		if (!cols)
			return NULL; /* an item whose columns are not known may have it */
		const char *t = column_named(cols, col, &matches);
		if (t)
			type = t;
		if (q)
			break;
	}
	return matches == 1 ? type : NULL;
}

static bool select_columns(walk *w, const jd_node *select, const scope *outer,
			   cgm_select_columns *out, int depth)
{
	memset(out, 0, sizeof *out);
	if (!jd_is_object(select) || depth > MAX_DEPTH)
		return false;
	/* A set operation takes its names from its first branch, which sees
	 * the WITH clause of the whole. */
	scope sc = { .with = jd_get(jd_get(select, "withClause"), "ctes"), .up = outer };
	const scope *inner = sc.with ? &sc : outer;
	while (jd_get(select, "larg")) {
		select = jd_get(select, "larg"); /* a SelectStmt's fields, unwrapped */
		if (++depth > MAX_DEPTH)
			return false;
	}
	scope own = { .with = jd_get(jd_get(select, "withClause"), "ctes"), .up = inner };
	if (own.with)
		inner = &own;
	const jd_node *targets = jd_get(select, "targetList");
	if (!targets)
		return false; /* VALUES: column1, ... not needed here */
	const jd_node *from = jd_get(select, "fromClause");
	int cap = 0;
	item_cache *cache = NULL;
	int ncache = 0, cache_cap = 0;
	for (size_t i = 0; i < jd_size(targets); i++) {
		const jd_node *rt = jd_get(jd_at(targets, i), "ResTarget");
		if (!rt)
			return false;
		const jd_node *val = jd_get(rt, "val");
		const jd_node *fields = jd_get(jd_get(val, "ColumnRef"), "fields");
		size_t nf = jd_size(fields);
		if (!(nf && jd_get(jd_at(fields, nf - 1), "A_Star"))) {
			const char *as = jd_string(jd_get(rt, "name"));
			put(w, out, &cap, as ? as : cgm_select_figure_colname(val),
			    target_type(w, val, from, inner, depth, &cache, &ncache, &cache_cap));
			continue;
		}
		const char *q = nf >= 2 ? jd_string_node(jd_at(fields, nf - 2)) : NULL;
		if (nf > 3 || (nf >= 2 && !q))
			return false;
		for (size_t k = 0; k < jd_size(from); k++) {
			const jd_node *item = q ? named_item(jd_at(from, k), q, 0) : jd_at(from, k);
			if (!item)
				continue;
			cgm_select_columns cols;
			if (!item_columns(w, item, inner, &cols, depth + 1))
				return false;
			for (int c = 0; c < cols.n; c++)
				put(w, out, &cap, cols.names[c], cols.types[c]);
			if (q)
				break;
		}
	}
	return true;
}

bool cgm_select_columns_of(cgm_arena *arena, const jd_node *select,
			   cgm_selectcols_table_fn table, void *ctx, cgm_select_columns *out)
{
	return cgm_select_columns_typed(arena, select, table, NULL, ctx, out);
}

bool cgm_select_columns_typed(cgm_arena *arena, const jd_node *select, cgm_selectcols_table_fn table,
			      cgm_selectcols_cast_fn cast, void *ctx, cgm_select_columns *out)
{
	walk w = { .arena = arena, .table = table, .cast = cast, .ctx = ctx };
	if (!select_columns(&w, select, NULL, out, 0)) {
		memset(out, 0, sizeof *out);
		return false;
	}
	return true;
}

bool cgm_select_cte_columns(cgm_arena *arena, const jd_node *select, const char *name,
			    cgm_selectcols_table_fn table, void *ctx, cgm_select_columns *out)
{
	memset(out, 0, sizeof *out);
	walk w = { .arena = arena, .table = table, .ctx = ctx };
	scope sc = { .with = jd_get(jd_get(select, "withClause"), "ctes"), .up = NULL };
	const scope *found;
	const jd_node *cte = name ? find_cte(&sc, name, &found) : NULL;
	return cte && cte_columns(&w, cte, found, out, 1);
}
