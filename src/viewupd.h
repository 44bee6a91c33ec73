/*
 * viewupd.h - whether PostgreSQL 15 updates a view by itself, read from the
 * view's query (rewriteHandler.c's view_query_is_auto_updatable and
 * view_col_is_auto_updatable), for both sources: the SQL files give the
 * CREATE VIEW's query, the live catalog pg_get_viewdef's text parsed again.
 *
 * In:  libpg_query's JSON tree of the view's SelectStmt (jsondom.h); for a
 *      call the tree cannot tell (an aggregate or a set-returning function
 *      by name), the caller's answer.
 * Out: the one relation the view selects from, as written, and what each
 *      output column shows; then, given that relation's columns, the
 *      view's updatable columns paired with the base columns they are.
 */
#ifndef CGMAP_VIEWUPD_H
#define CGMAP_VIEWUPD_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"
#include "jsondom.h"

/* Does a call of schema.name (schema NULL when unqualified) with nargs
 * arguments reach an aggregate or a set-returning function? */
typedef bool (*cgm_view_groups_fn)(void *ctx, const char *schema, const char *name, int nargs);

/* One output column of the view's query. */
typedef struct cgm_view_target {
	const char *name;   /* AS name, NULL when none */
	const char *column; /* a plain column reference: its column (the last name),
	                     * else NULL; "*" for `*` or `t.*`, which shows every
	                     * column of the relation */
} cgm_view_target;

/* A view's query as view_query_is_auto_updatable reads it. */
typedef struct cgm_view_shape {
	bool simple;             /* one FROM item, a relation (no join, subquery, function
	                          * or TABLESAMPLE), no DISTINCT, GROUP BY, HAVING,
	                          * LIMIT/OFFSET, set operation, WITH, window function,
	                          * aggregate or set-returning function at its level */
	const char *base_schema; /* that relation as written, schema NULL when unqualified */
	const char *base_name;
	int ntargets;
	cgm_view_target *targets;
} cgm_view_shape;

/* The shape of `select` (the SelectStmt object) in `arena`, its names
 * copied there (the tree may be freed first); calls whose
 * syntax says nothing are asked of `groups` (NULL: the caller knows from
 * the catalog, hasAggs, hasWindowFuncs and hasTargetSRFs, and checks them
 * itself).  False when `select` is no SELECT. */
bool cgm_view_shape_of(cgm_arena *arena, const jd_node *select, cgm_view_groups_fn groups,
		       void *ctx, cgm_view_shape *out);

/* The updatable columns of a simple view over a relation with `ncolumns`
 * `columns` (its own, in order): the view's names (`aliases`, the CREATE
 * VIEW's column list, name its first columns; NULL for none) into
 * *view_columns and the base column each shows into *base_columns; their
 * count.  A `*` shows every column; a reference to no column of the
 * relation (a whole row, a system column) is none. */
int cgm_view_updatable_columns(cgm_arena *arena, const cgm_view_shape *shape,
			       const char *const *aliases, int naliases, const cgm_column *columns,
			       int ncolumns, const char ***view_columns, const char ***base_columns);

#endif
