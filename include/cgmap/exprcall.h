/*
 * cgmap/exprcall.h - the overload PostgreSQL runs for a call in a DDL
 * expression: a view's query, a check, a default, a policy, an index.
 *
 * The catalog records which function such an expression calls, but a read
 * of a view runs only the functions of the columns it reads (viewcols.h),
 * and the SQL files have no catalog: both need the overload each call
 * takes.  PostgreSQL chooses it from the arguments' types
 * (func_get_detail): this types each argument where the DDL tells it (a
 * constant, an untyped literal or NULL, a cast, a column of the relation
 * or, in a view's query, of the FROM item it names at the innermost query
 * level that has one, the result of a call chosen the same way), then
 * makes cgm_select_candidates' choice among the candidates the source
 * lists (every function of the name and arity visible there).
 *
 * In:  a JSON parse tree (libpg_query) and a cgm_exprcall_source, whose
 *      callbacks answer from the SQL files' state or the live model.
 * Out: types (strings of the source's arena or of the catalog) and the
 *      chosen function (the source's).  What the source makes on first
 *      need (a catalog, the query's index) cgm_exprcall_source_done
 *      frees; an index the caller gives stays the caller's.
 */
#ifndef CGMAP_EXPRCALL_H
#define CGMAP_EXPRCALL_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/exprtype.h"
#include "cgmap/model.h"

struct jd_node;

/* One function a call may reach, with its schema's place along the path
 * (0 first): of two with the same argument types, the earlier masks the
 * later, as FuncnameGetCandidates keeps it. */
typedef struct cgm_exprcall_candidate {
	const cgm_function *function;
	int rank;
} cgm_exprcall_candidate;

/* Where each column reference of a query is: its query levels, and the
 * query's CTE names, made once per query. */
typedef struct cgm_exprcall_index cgm_exprcall_index;

typedef struct cgm_exprcall_source {
	void *ctx;
	cgm_arena *arena;
	/* The canonical type a TypeName node names, or NULL. */
	const char *(*type_name)(void *ctx, const struct jd_node *type_name);
	/* The columns of relation schema.name (schema NULL: the name as an
	 * unqualified one resolves), *ncolumns set; NULL when unknown. */
	const cgm_column *(*relation)(void *ctx, const char *schema, const char *name,
				      int *ncolumns);
	/* The functions named schema.name (schema NULL: along the path) that
	 * take nargs arguments, with their defaults too, into out (at most
	 * max); returns how many, or -1 when more than max. */
	int (*candidates)(void *ctx, const char *schema, const char *name, int nargs,
			  cgm_exprcall_candidate *out, int max);
	/* Types and casts for the choice; made from `model` on first need
	 * when NULL. */
	const cgm_model *model;
	cgm_catalog *catalog;
	bool own_catalog;
	/* Where column references point: a view's query (its FROM items),
	 * else the columns of relation schema.rel (rel NULL: none). */
	const struct jd_node *query;
	const char *schema, *rel;
	/* The query's index: the caller's to keep across sources of one
	 * query, else made on first need and freed with the source. */
	cgm_exprcall_index *index;
	bool own_index;
} cgm_exprcall_source;

/* The type of an operand, where the expression tells it: a constant
 * ("unknown" for an untyped literal or NULL), a cast, a column, the
 * result of a call chosen as cgm_exprcall_choose chooses it (to a depth
 * of 4); NULL otherwise. */
const char *cgm_exprcall_operand_type(cgm_exprcall_source *src, const struct jd_node *node);

/* The function the FuncCall object `call` runs, as PostgreSQL chooses it;
 * NULL when cgmap cannot tell (an argument by name, VARIADIC, a variadic
 * candidate, several left where an argument's type is unknown) or none
 * fits. */
const cgm_function *cgm_exprcall_choose(cgm_exprcall_source *src, const struct jd_node *call);

/* The same with the arguments' types the caller got from
 * cgm_exprcall_operand_type (NULL: typed here). */
const cgm_function *cgm_exprcall_choose_typed(cgm_exprcall_source *src, const struct jd_node *call,
					      const char *const *types);

/* Whether a FuncCall of schema.name below `node` may run `f`: one whose
 * choice is f, or that cgmap cannot choose. */
bool cgm_exprcall_may_run(cgm_exprcall_source *src, const struct jd_node *node, const char *schema,
			  const char *name, const cgm_function *f);

/* A column's type as the choice compares it: without its typmod
 * ("character varying(20)" is "character varying"). */
const char *cgm_exprcall_base_type(cgm_arena *arena, const char *type);

/* Frees what the source made itself (its catalog, its index). */
void cgm_exprcall_source_done(cgm_exprcall_source *src);

/* An empty index for sources of one query after another to share
 * (cgm_exprcall_source.index); freed by cgm_exprcall_index_free. */
cgm_exprcall_index *cgm_exprcall_index_new(void);
void cgm_exprcall_index_free(cgm_exprcall_index *index);

#endif
