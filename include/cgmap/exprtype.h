/*
 * cgmap/exprtype.h - the types of call arguments, from the expressions as
 * written and the catalog, the way PostgreSQL's parse analysis finds them.
 *
 * In:  expression trees that extraction records for each argument of a
 *      call site (cgm_site_exprs.argexprs, beside the sites), built from
 *      libpg_query's raw parse trees (src/rawtree.c) in the extracting thread's arena: constants,
 *      $n, names (columns, PL/pgSQL variables, parameters) with the FROM
 *      scope they stand in, calls, operators, casts, subscripts, field
 *      selection, CASE/COALESCE/NULLIF/GREATEST/LEAST, rows, arrays,
 *      sublinks, boolean tests; the model's relations (typed columns),
 *      functions (results), operators and casts.
 * Out: a canonical type name (format_type text), "unknown" for an untyped
 *      literal, or NULL when the type cannot be known without running the
 *      code (dynamic SQL, a record from EXECUTE, a type nobody recorded).
 *      Types are interned in the typer's arena; nothing is freed alone.
 *
 * The rules of PostgreSQL 15 that resolution needs with them are here too:
 * type categories and preferred types (pg_type), implicit coercion
 * (can_coerce_type over pg_cast: the model's casts, else PostgreSQL 15's
 * builtin implicit casts), polymorphic arguments and results, the common
 * type of CASE-like constructs (select_common_type), and the choice among
 * candidates (func_select_candidate).
 */
#ifndef CGMAP_EXPRTYPE_H
#define CGMAP_EXPRTYPE_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"

typedef enum cgm_expr_kind {
	CGM_EXPR_OTHER = 0,  /* a construct whose type is not worked out: unknown */
	CGM_EXPR_CONST,      /* a literal or a construct of fixed type: `type` */
	CGM_EXPR_PARAM,      /* $n: `param`, the n-th input argument, or `var`
	                      * when set (by extraction): the PL/pgSQL variable
	                      * $n, numbered with the OUT parameters */
	CGM_EXPR_NAME,       /* a column, variable or parameter: names[0..nnames),
	                      * `scope` the FROM clause it stands in, `var` the
	                      * PL/pgSQL variable names[0] is (set by extraction) */
	CGM_EXPR_CALL,       /* schema.name(args); names: argument names or NULL;
	                      * flag: VARIADIC before the last argument */
	CGM_EXPR_OP,         /* schema.name operator; args[0] left (NULL: prefix), args[1] */
	CGM_EXPR_CAST,       /* args[0]::type */
	CGM_EXPR_SUBSCRIPT,  /* args[0][...]; flag: a slice */
	CGM_EXPR_FIELD,      /* (args[0]).name */
	CGM_EXPR_CASE,       /* CASE: args are its results (THEN ..., ELSE or none) */
	CGM_EXPR_COALESCE,
	CGM_EXPR_MINMAX,     /* GREATEST, LEAST */
	CGM_EXPR_NULLIF,     /* the type of args[0] */
	CGM_EXPR_ROW,        /* ROW(...) or a query's row: names the columns (or NULL) */
	CGM_EXPR_ARRAY,      /* ARRAY[args] */
	CGM_EXPR_SUBLINK,    /* (SELECT x ...): args[0] is x (NULL: unknown);
	                      * flag: ARRAY(SELECT ...) */
	CGM_EXPR_STAR,       /* `*` or `t.*` of a target list: the columns of `scope`
	                      * (of the FROM item names[0] when nnames is 1) */
	CGM_EXPR_VAR         /* a PL/pgSQL variable: `type` as declared ("integer[]",
	                      * "app.t%ROWTYPE", "app.t.c%TYPE", "record"), args[0] the
	                      * row a query assigns to a record variable, or NULL */
} cgm_expr_kind;

typedef struct cgm_expr {
	cgm_expr_kind kind;
	bool flag;
	int nargs;
	int nnames;
	int param;
	const char *schema, *name;
	const char *type;
	const struct cgm_expr **args;
	const char **names;
	const struct cgm_scope *scope;
	const struct cgm_expr *var;
} cgm_expr;

/* One item of a FROM clause: a relation (schema may be NULL: found through
 * the search_path), a subquery, CTE or VALUES list (colexprs), or a
 * function (func).  alias: the name its columns are qualified with. */
typedef struct cgm_scope_item {
	const char *alias;
	const char *schema, *name;
	int ncolumns;
	const char **colnames;       /* the columns' names, or the alias column list */
	const cgm_expr **colexprs;   /* subquery, CTE, VALUES: the columns' expressions */
	const cgm_expr *func;        /* a function in FROM */
	bool renamed;                /* func: colnames is an alias column list */
} cgm_scope_item;

typedef struct cgm_scope {
	const struct cgm_scope *parent; /* the enclosing query's (correlated sublinks) */
	int nitems;
	cgm_scope_item *items;
} cgm_scope;

/* ---- the type system ---------------------------------------------------- */

/* pg_type.typcategory of a canonical type name ('A' arrays, 'U' for a type
 * PostgreSQL 15 does not ship, 'X' unknown) and typispreferred. */
char cgm_type_category(const char *type);
bool cgm_type_preferred(const char *type);
bool cgm_type_is_builtin(const char *type);
bool cgm_type_is_polymorphic(const char *type);
/* "x[]" -> "x" (into arena), NULL when not an array. */
const char *cgm_type_element(cgm_arena *arena, const char *type);
const char *cgm_type_array_of(cgm_arena *arena, const char *type);

/* The catalog as typing needs it: relations by name, implicit casts,
 * operators by name.  Built once, read by any number of threads. */
typedef struct cgm_catalog cgm_catalog;
cgm_catalog *cgm_catalog_new(const cgm_model *model);
void cgm_catalog_free(cgm_catalog *catalog);

/* Has type `type` (canonical, qualified) constraints as a domain, its own
 * or those of the domains it is over (PostgreSQL's DomainHasConstraints)?
 * 1 yes, 0 no (no domain, or one without), -1 when the catalog does not
 * tell. */
int cgm_type_domain_constrained(const cgm_catalog *catalog, const char *type);

typedef enum { CGM_COERCE_NO = 0, CGM_COERCE_MAYBE, CGM_COERCE_YES } cgm_coercion;
/* Can a value of type `from` ("unknown" for a literal) be passed where
 * `to` is declared, implicitly?  MAYBE: a type cgmap knows nothing of
 * (a domain, a user type): it may be. Polymorphic targets are not judged
 * here (see cgm_select_candidates). */
cgm_coercion cgm_can_coerce(const cgm_catalog *catalog, const char *from, const char *to);

/* One candidate function or operator of a call. */
typedef struct cgm_candidate {
	int index;                /* the caller's: model->functions or model->operators */
	const char *const *params; /* its declared type at each argument (nargs) */
	bool expanded;            /* takes its VARIADIC array as separate arguments */
} cgm_candidate;

/* PostgreSQL's choice among candidates that take the arguments' number and
 * names (func_get_detail, func_match_argtypes, func_select_candidate):
 * exact match, implicit coercion (polymorphic arguments consistent), most
 * exact matches, most preferred types, categories of unknown literals, the
 * one known type.  Argument types NULL are unknowable: a candidate fits
 * them, and when the candidates left declare different types there, the
 * choice is not made.  Keeps the chosen candidates first in cands and
 * returns how many: 1 when PostgreSQL calls exactly that one, more when
 * it could not choose or cgmap cannot tell, 0 when none fits. */
int cgm_select_candidates(const cgm_catalog *catalog, int nargs, const char *const *argtypes,
			  cgm_candidate *cands, int ncands);

/* Whether the candidates cgm_select_candidates left (more than one) are a
 * tie PostgreSQL itself cannot break, so it refuses the call ("function
 * f(integer) is not unique"): every argument's type is known and not
 * polymorphic, and each candidate certainly takes each argument. */
bool cgm_candidates_tie(const cgm_catalog *catalog, int nargs, const char *const *argtypes,
			const cgm_candidate *cands, int ncands);

/* The result type of a candidate with polymorphic result given the
 * argument types (anyelement and anyarray from their arguments, the
 * anycompatible family's common type); `result` as pg_get_function_result
 * prints it ("SETOF x" is x; a TABLE(...) or record result: NULL). */
const char *cgm_result_type(const cgm_catalog *catalog, cgm_arena *arena, const char *result,
			    int nargs, const char *const *params, const char *const *argtypes);

/* select_common_type: CASE, COALESCE, GREATEST/LEAST, ARRAY[] (NULL when
 * any input is unknowable or the categories conflict; "text" when all are
 * untyped literals). */
const char *cgm_common_type(const cgm_catalog *catalog, int n, const char *const *types);

/* ---- typing expressions ------------------------------------------------- */

typedef struct cgm_typer {
	const cgm_catalog *catalog;
	const cgm_model *model;
	const cgm_function *fn;      /* the caller: $n, parameter names, trigger tables */
	cgm_arena *arena;            /* for the types made on the way */
	const char *const *path;     /* schemas of the caller's search_path, pg_catalog placed */
	int npath;
	/* The result type of a call whose arguments have these types: the one
	 * function PostgreSQL would call, or NULL when no single one; that
	 * function in *called when `called` is not NULL (NULL when none). */
	const char *(*call_result)(void *ctx, const cgm_expr *call, const char *const *argtypes,
				   const cgm_function **called);
	void *ctx;
	int depth;                   /* nesting guard */
} cgm_typer;

const char *cgm_expr_type(cgm_typer *typer, const cgm_expr *e);

/* Whether `type` is the row type of a relation or composite type the
 * catalog knows (found along the typer's path when unqualified). */
bool cgm_type_is_composite(const cgm_typer *typer, const char *type);

/* The type of a one-argument call that names no function, which
 * PostgreSQL reads otherwise: a function-style cast (`int4(x)`), or
 * attribute notation (`id(r)` is `r.id`) on an argument of type
 * `argtype`; NULL when it is neither. */
const char *cgm_call_without_function(cgm_typer *typer, const cgm_expr *call, const char *argtype);

/* Whether `name` is one of PostgreSQL 15's system columns, which every
 * table has (ctid, xmin, ...). */
bool cgm_system_column(const char *name);

/* Attribute notation, `row.name` or `(row).name`: the type of `row` when
 * it is the row of a relation or composite type the catalog knows that
 * has no column `name` (nor a system column of that name), so that
 * PostgreSQL calls name(row); NULL when it is a column, or may be. */
const char *cgm_attribute_row_type(cgm_typer *typer, const cgm_expr *row, const char *name);

#endif
