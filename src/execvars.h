/*
 * execvars.h - the constant SQL a PL/pgSQL function's variables can hold,
 * for an `EXECUTE v` of one (extract.c).  Real code builds its dynamic SQL
 * in a variable as often as in the EXECUTE itself:
 *
 *     q := 'SELECT app.refresh($1)';
 *     EXECUTE q USING id;
 *
 * The table is flow-insensitive, like the map: a variable every one of
 * whose values is a constant (its declaration's default, each assignment
 * of the whole variable) holds any of them at an EXECUTE; one set any
 * other way (a value not constant, a function parameter, INTO, a loop
 * variable, GET DIAGNOSTICS, a CALL's INOUT argument, an element or field
 * assigned) holds SQL known only at run time.  Same-named variables of
 * nested blocks count as one: never a constant where either is not.
 *
 * In: names and constants; the strings must outlive the table (the
 * extraction's arena).  Out: the table, in that arena; freed with it.
 */
#ifndef CGMAP_EXECVARS_H
#define CGMAP_EXECVARS_H

#include <stdbool.h>

#include "cgmap/arena.h"

typedef struct cgm_exec_vars cgm_exec_vars;

cgm_exec_vars *cgm_exec_vars_new(cgm_arena *arena);
/* The variable `name` (its declared name; matched without regard to case)
 * is given `constant`, or a value not constant (NULL). */
void cgm_exec_vars_set(cgm_exec_vars *vars, const char *name, const char *constant);
/* The constants the variable an EXECUTE's expression `expr` names can
 * hold (*constants, in the order they were set, distinct); how many: 0
 * when `expr` is not a lone variable name (`q`, `"Q"`, `(q)`) or the
 * variable can hold anything else. */
int cgm_exec_vars_lookup(const cgm_exec_vars *vars, const char *expr, const char *const **constants);
/* The name of the lone variable `expr` is (as the lookup reads it,
 * lower-cased) into key[CGM_EXEC_VAR_KEY]; false when it is anything else. */
enum { CGM_EXEC_VAR_KEY = 256 };
bool cgm_exec_vars_name(char *key, const char *expr);

#endif
