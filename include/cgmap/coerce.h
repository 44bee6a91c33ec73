/*
 * cgmap/coerce.h - the casts PostgreSQL applies without one being written:
 * a PL/pgSQL assignment (`v := expr`, `SELECT expr INTO v`), `RETURN expr`
 * against the function's declared result, and a value stored into a table
 * column (INSERT, UPDATE SET).  Each runs the pg_cast function from the
 * value's type to the target's when an assignment or implicit cast exists.
 *
 * In:  extraction hands the value's expression tree and an expression of
 *      the target type (a variable, a column of the written relation, a
 *      constant of the declared result type); resolution hands the typer.
 * Out: a CGM_SITE_CAST site whose expressions (cgm_site_exprs, beside the
 *      site) have coerce_to set (cgm_coercion_site), whose
 *      source and target types are worked out at resolution
 *      (cgm_coercion_types) - resolve_ops.c then finds the cast as for a
 *      written one, keeping only assignment and implicit ones.  Everything
 *      is allocated in the arena given; nothing is freed alone.
 */
#ifndef CGMAP_COERCE_H
#define CGMAP_COERCE_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/exprtype.h"
#include "cgmap/model.h"

/* The variable a PL/pgSQL assignment text ("v := expr", "v = expr") sets,
 * folded as PostgreSQL folds it; NULL when the target is anything else
 * (a field, an element, a qualified name) or the text is no assignment. */
const char *cgm_coercion_assign_target(cgm_arena *arena, const char *text);

/* The type a PL/pgSQL `RETURN expr` of `fn` is coerced to: its declared
 * scalar result, or NULL when RETURN takes no such value (void, trigger,
 * event_trigger, record, SETOF, TABLE, polymorphic results, procedures). */
const char *cgm_coercion_return_type(const cgm_function *fn);

/* An expression whose type is `type` (canonical as written). */
const cgm_expr *cgm_coercion_type_expr(cgm_arena *arena, const char *type);

/* An expression of the type of column `column` of the relation
 * schema.name (schema NULL: found through the search_path). */
const cgm_expr *cgm_coercion_column_expr(cgm_arena *arena, const char *schema, const char *name,
					 const char *column);

/* Make `s` (zeroed, its statement kind set) the coercion of `value` to the
 * type of `target` at `line`; `x` (zeroed) gets the site's expressions. */
void cgm_coercion_site(cgm_arena *arena, cgm_site *s, cgm_site_exprs *x,
		       const cgm_expr *value, const cgm_expr *target, int line);

/* At resolution: the type of the target of coercion site `s` (its
 * expressions `x`, NULL when none), and of its value, as typing finds
 * them; NULL when it cannot be known.  An untyped
 * literal stored into a column has none (the type's input function reads
 * it); one that is a whole PL/pgSQL expression is text, as PL/pgSQL
 * evaluates it as a query. */
const char *cgm_coercion_target(cgm_typer *typer, const cgm_site *s, const cgm_site_exprs *x);
const char *cgm_coercion_source(cgm_typer *typer, const cgm_site_exprs *x);

#endif
