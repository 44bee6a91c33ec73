/*
 * viewupd.c - whether PostgreSQL 15 updates a view by itself (see
 * viewupd.h for what comes in and goes out).
 *
 * rewriteHandler.c's view_query_is_auto_updatable reads the analysed query:
 * no DISTINCT, GROUP BY (grouping sets too), HAVING, set operation, WITH,
 * LIMIT or OFFSET, no aggregate, window function or set-returning function
 * (hasAggs, hasWindowFuncs, hasTargetSRFs), and exactly one FROM item, a
 * table, partitioned table, foreign table or view without TABLESAMPLE.  A
 * subquery in WHERE, or anywhere, may read other relations: it is no FROM
 * item.  The raw tree tells all of it but whether a call by name is an
 * aggregate or a set-returning function, which the caller answers.  A
 * column is updatable when it is a plain reference to a column of that
 * relation (view_col_is_auto_updatable: not a whole row, not a system
 * column, no expression); the others are not, and the view stays
 * updatable for the rest.  Whether the relation is of a kind that may be
 * updated is the caller's to check, once it has found it.
 */
#include "viewupd.h"

#include <string.h>

static const char *string_of(const jd_node *node)
{
	return jd_string(jd_get(jd_get(node, "String"), "sval"));
}

/* Does the expression at `node` hold, at this query level (not inside a
 * subquery), an aggregate, a window function or a set-returning function?
 * OVER, `*`, DISTINCT, ORDER BY, FILTER and WITHIN GROUP in a call say so
 * by syntax; any other call is asked of `groups`. */
static bool groups_or_sets(const jd_node *node, cgm_view_groups_fn groups, void *ctx, int depth)
{
	if (!node || depth > 200)
		return false;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			if (groups_or_sets(jd_at(node, i), groups, ctx, depth + 1))
				return true;
		return false;
	}
	if (!jd_is_object(node))
		return false;
	if (jd_get(node, "SubLink"))
		return false; /* a subquery's aggregates are its own */
	const jd_node *call = jd_get(node, "FuncCall");
	if (call) {
		if (jd_get(call, "over") || jd_is_true(jd_get(call, "agg_star")) ||
		    jd_is_true(jd_get(call, "agg_distinct")) || jd_get(call, "agg_order") ||
		    jd_get(call, "agg_filter") || jd_is_true(jd_get(call, "agg_within_group")))
			return true;
		const jd_node *names = jd_get(call, "funcname");
		size_t n = jd_size(names);
		const char *schema = n == 2 ? string_of(jd_at(names, 0)) : NULL;
		const char *name = n >= 1 && n <= 2 ? string_of(jd_at(names, n - 1)) : NULL;
		if (groups && name &&
		    groups(ctx, schema, name, (int)jd_size(jd_get(call, "args"))))
			return true;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		if (groups_or_sets(value, groups, ctx, depth + 1))
			return true;
	(void)key;
	return false;
}

bool cgm_view_shape_of(cgm_arena *arena, const jd_node *select, cgm_view_groups_fn groups,
		       void *ctx, cgm_view_shape *out)
{
	memset(out, 0, sizeof *out);
	if (!jd_is_object(select))
		return false;
	const char *op = jd_string(jd_get(select, "op"));
	const jd_node *from = jd_get(select, "fromClause");
	const jd_node *item = jd_size(from) == 1 ? jd_at(from, 0) : NULL;
	const jd_node *rv = jd_get(item, "RangeVar");
	out->simple = (!op || strcmp(op, "SETOP_NONE") == 0) && rv &&
		      !jd_get(select, "distinctClause") && !jd_get(select, "groupClause") &&
		      !jd_get(select, "havingClause") && !jd_get(select, "withClause") &&
		      !jd_get(select, "limitOffset") && !jd_get(select, "limitCount") &&
		      !jd_get(select, "valuesLists");
	const jd_node *targets = jd_get(select, "targetList");
	if (out->simple && (groups_or_sets(targets, groups, ctx, 0) ||
			    groups_or_sets(jd_get(select, "sortClause"), groups, ctx, 0)))
		out->simple = false;
	if (rv) {
		out->base_schema = cgm_arena_strdup(arena, jd_string(jd_get(rv, "schemaname")));
		out->base_name = cgm_arena_strdup(arena, jd_string(jd_get(rv, "relname")));
	}
	out->ntargets = (int)jd_size(targets);
	out->targets = out->ntargets
			       ? cgm_arena_alloc(arena, sizeof(cgm_view_target) * (size_t)out->ntargets)
			       : NULL;
	for (int i = 0; i < out->ntargets; i++) {
		const jd_node *rt = jd_get(jd_at(targets, (size_t)i), "ResTarget");
		const jd_node *fields = jd_get(jd_get(jd_get(rt, "val"), "ColumnRef"), "fields");
		const jd_node *last = jd_size(fields) ? jd_at(fields, jd_size(fields) - 1) : NULL;
		out->targets[i].name = cgm_arena_strdup(arena, jd_string(jd_get(rt, "name")));
		out->targets[i].column = jd_get(last, "A_Star") ? "*"
							       : cgm_arena_strdup(arena, string_of(last));
	}
	return true;
}

static bool has_column(const cgm_column *columns, int ncolumns, const char *name)
{
	for (int c = 0; c < ncolumns; c++)
		if (columns[c].name && strcmp(columns[c].name, name) == 0)
			return true;
	return false;
}

int cgm_view_updatable_columns(cgm_arena *arena, const cgm_view_shape *shape,
			       const char *const *aliases, int naliases, const cgm_column *columns,
			       int ncolumns, const char ***view_columns, const char ***base_columns)
{
	*view_columns = *base_columns = NULL;
	/* The view's columns in order, each `*` spread over the relation's. */
	int total = 0;
	for (int i = 0; i < shape->ntargets; i++)
		total += shape->targets[i].column && strcmp(shape->targets[i].column, "*") == 0
				 ? ncolumns
				 : 1;
	if (total == 0)
		return 0;
	const char **names = cgm_arena_alloc(arena, sizeof(char *) * (size_t)total);
	const char **shows = cgm_arena_alloc(arena, sizeof(char *) * (size_t)total);
	int n = 0;
	for (int i = 0; i < shape->ntargets; i++) {
		const cgm_view_target *t = &shape->targets[i];
		if (t->column && strcmp(t->column, "*") == 0) {
			for (int c = 0; c < ncolumns; c++) {
				names[n] = columns[c].name;
				shows[n++] = columns[c].name;
			}
			continue;
		}
		bool plain = t->column && has_column(columns, ncolumns, t->column);
		names[n] = t->name ? t->name : t->column;
		shows[n++] = plain ? t->column : NULL;
	}
	for (int i = 0; i < naliases && i < n; i++)
		if (aliases[i])
			names[i] = aliases[i];
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (names[i] && shows[i]) {
			names[kept] = names[i];
			shows[kept++] = shows[i];
		}
	if (kept) {
		*view_columns = names;
		*base_columns = shows;
	}
	return kept;
}
