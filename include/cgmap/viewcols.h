/*
 * cgmap/viewcols.h - which of a view's functions a read of the view runs:
 * those of the output columns the statement reads, and those of its other
 * clauses, always.
 *
 * PostgreSQL 15 never evaluates an output column of a view that the query
 * reading it does not reference: a view pulled up into the query
 * (prepjointree.c) leaves its unreferenced target entries behind, and one
 * that is not (aggregates, DISTINCT, ORDER BY, LIMIT, a volatile function
 * in its target list, ...) has its unused outputs replaced by NULL by
 * remove_unused_subquery_outputs (allpaths.c), but for a column that
 * holds a volatile or set-returning function or that a GROUP BY, ORDER BY
 * or DISTINCT ON names, and for none at all under a plain DISTINCT or a
 * set operation.  Its WHERE, join conditions, GROUP BY, HAVING, ORDER BY
 * and the like run on every read.
 *
 * In:  for the sources (source_sql.c, source_pg.c), libpg_query's JSON
 *      tree of the view's query (the CREATE VIEW's, or pg_get_viewdef's
 *      text parsed again) and the view's output column names; for relfx.c,
 *      the columns a read site reads (cgm_site_rare.reads) and a view's
 *      effects (cgm_effect.columns, and for a view reading another
 *      relation its reads/read_by pairs).
 * Out: the query cut into parts, each an output column's expression or a
 *      clause evaluated always; each relation the query names with the
 *      columns of it that each output column reads; and the decisions
 *      relfx takes on a read.
 */
#ifndef CGMAP_VIEWCOLS_H
#define CGMAP_VIEWCOLS_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"

struct jd_node;

/* One part of a view's query. */
typedef struct cgm_viewcols_part {
	const struct jd_node *node;
	const char *column; /* the output column it computes, NULL: evaluated on
	                     * every read (a clause, or a column evaluated anyway) */
} cgm_viewcols_part;

/* A relation the view's query names (a RangeVar anywhere in it, a CTE's
 * name too: the caller finds what it is), and the columns of it the view
 * reads: reads[i] when the view's column read_by[i] is read (NULL: on every
 * read); reads[i] NULL: every column of it. */
typedef struct cgm_viewcols_rel {
	const char *schema; /* as written, NULL when unqualified */
	const char *name;
	int ncolumns;       /* read only when one of these output columns is (a */
	const char **columns; /* subquery's relation); 0: on every read (FROM) */
	int nreads;
	const char **reads;
	const char **read_by;
} cgm_viewcols_rel;

typedef struct cgm_viewcols {
	int nparts;
	cgm_viewcols_part *parts;
	int nrels;
	cgm_viewcols_rel *rels;
} cgm_viewcols;

/* Does a call of schema.name (schema NULL when unqualified) with nargs
 * arguments make the column holding it evaluated whatever is read (a
 * volatile or set-returning function)? */
typedef bool (*cgm_viewcols_forces_fn)(void *ctx, const char *schema, const char *name,
				       int nargs);

/* The columns of relation schema.name (schema NULL when unqualified) as a
 * `*` of a view's query shows them, in order: their count, or -1 when not
 * known. */
typedef int (*cgm_viewcols_star_fn)(void *ctx, const char *schema, const char *name,
				    const char *const **columns);

/* Cut `select` (the view's SelectStmt object) into parts, in `arena`:
 * `columns` are the view's output column names in order (ncolumns of
 * them; the CREATE VIEW's column list applied); a `*` of the one FROM
 * relation, or `alias.*` of a relation item, shows its columns (`star`;
 * NULL: none is expanded).  False when the columns cannot be told apart
 * (a set operation, a plain DISTINCT, a `*` not expanded, targets that do
 * not make `ncolumns` columns): then every function of the view runs on
 * every read, and every relation's every column is read, as the caller
 * had it before. */
bool cgm_viewcols_of(cgm_arena *arena, const struct jd_node *select, const char *const *columns,
		     int ncolumns, cgm_viewcols_forces_fn forces, cgm_viewcols_star_fn star,
		     void *ctx, cgm_viewcols *out);

/* Whether `part` calls schema.name (schema NULL: any), as written. */
bool cgm_viewcols_calls(const struct jd_node *part, const char *schema, const char *name);

/* The same, counting only the calls (FuncCall objects) `accept` takes. */
typedef bool (*cgm_viewcols_call_fn)(void *ctx, const struct jd_node *call);
bool cgm_viewcols_calls_where(const struct jd_node *part, const char *schema, const char *name,
			      cgm_viewcols_call_fn accept, void *ctx);

/* Add `column` (NULL: always) to the columns of an effect (*columns,
 * *ncolumns, 0 of them: always): an effect found in several parts runs
 * when any of them is evaluated.  `first` says the effect has none yet. */
void cgm_viewcols_add_column(cgm_arena *arena, const char ***columns, int *ncolumns, bool first,
			     const char *column);

/* Is there a function of that name (`t.name` of a row may call it)? */
typedef bool (*cgm_viewcols_function_fn)(void *ctx, const char *name);

/* Add what relation `rel` of a view's query reads to the view's effect
 * `e` reaching it (CGM_REACH_VIEW): its columns and pairs, copied into
 * `arena`, each pair once, sorted.  `fresh`: e has none yet (a relation
 * named twice reads what either reads).  With the relation's `columns`
 * known, a name that is none of them reads nothing of it, but one a
 * function has, which attribute notation may call with the whole row
 * (every column). */
void cgm_viewcols_add_rel(cgm_arena *arena, cgm_effect *e, bool fresh, const cgm_viewcols_rel *rel,
			  const cgm_column *columns, int ncolumns, cgm_viewcols_function_fn is_function,
			  void *ctx);

/* ---- decisions on a read (relfx.c) ---- */

/* Does a function of the view's `columns` (0 of them: a clause, always)
 * run on a read of `reads` (NULL: every column), when the view evaluates
 * its `forced` columns anyway? */
bool cgm_viewcols_runs(const char *const *reads, int nreads, const char *const *forced,
		       int nforced, const char *const *columns, int ncolumns);

/* The columns of the relation a view reads through its pairs (reads,
 * read_by: cgm_viewcols_rel) on a read of the view's `reads` (NULL:
 * every column) with its `forced` columns: into out (max entries, each
 * once), their count, or -1 for every column (a pair reading all, or more
 * than max). */
int cgm_viewcols_inner(const char *const *pair_reads, const char *const *pair_by, int npairs,
		       const char *const *reads, int nreads, const char *const *forced,
		       int nforced, const char **out, int max);

#endif
