/*
 * selectcols.h - the output columns of a SELECT as PostgreSQL names them
 * when it makes a view (or a CTE, or a subquery in FROM): each target's
 * AS name, else the name PostgreSQL figures from its expression (the
 * column, the function, the type of a cast, "case", "?column?", ...), and
 * a `*` or `q.*` expanded through the FROM items it shows: a table or view
 * through the caller's callback, a CTE or a subquery in FROM through its
 * own query, a join as its sides (USING's columns merged first).
 *
 * In:  a SelectStmt of libpg_query's JSON (jsondom.h), read only.
 * Out: names and types (NULL when not known: a star's columns and a
 *      target naming a column take the relation's types, a cast its
 *      type) allocated in the arena.
 * Used by the SQL-file source for a view's columns, so that a `*` over a
 * CTE gives the view the columns PostgreSQL gives it.
 */
#ifndef CGMAP_SELECTCOLS_H
#define CGMAP_SELECTCOLS_H

#include <stdbool.h>

#include "cgmap/arena.h"

struct jd_node;

/* The columns of relation schema.name (schema NULL: as the path finds it)
 * in order, with their types (an entry or the array may be NULL): the
 * count, or -1 when the relation is not known. */
typedef int (*cgm_selectcols_table_fn)(void *ctx, const char *schema, const char *name,
				       const char *const **names, const char *const **types);

/* The type a cast's TypeName node names, as the caller writes types
 * (NULL: not known). */
typedef const char *(*cgm_selectcols_cast_fn)(void *ctx, const struct jd_node *type_name);

typedef struct cgm_select_columns {
	const char **names;
	const char **types; /* per column, NULL when not known */
	int n;
} cgm_select_columns;

/* The output columns of `select` (its WITH clause names the CTEs its FROM
 * may show).  False when they cannot be told (a `*` over something
 * unknown, a NATURAL join, a function in FROM, too deep): *out is then
 * empty. */
bool cgm_select_columns_of(cgm_arena *arena, const struct jd_node *select,
			   cgm_selectcols_table_fn table, void *ctx, cgm_select_columns *out);
/* The same, a target that is a column of a FROM item (`col`, `q.col`)
 * typed as that item's column, one that is a cast typed by `cast`. */
bool cgm_select_columns_typed(cgm_arena *arena, const struct jd_node *select, cgm_selectcols_table_fn table,
			      cgm_selectcols_cast_fn cast, void *ctx, cgm_select_columns *out);

/* The columns of the CTE `name` of `select`'s WITH clause: false when it
 * has none of that name or its columns cannot be told. */
bool cgm_select_cte_columns(cgm_arena *arena, const struct jd_node *select, const char *name,
			    cgm_selectcols_table_fn table, void *ctx, cgm_select_columns *out);

/* The name PostgreSQL gives an output column without AS (FigureColname):
 * never NULL ("?column?" when the expression gives none). */
const char *cgm_select_figure_colname(const struct jd_node *val);

#endif
