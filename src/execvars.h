/*
 * execvars.h - the constant SQL a PL/pgSQL function's variables can hold,
 * for an `EXECUTE v` of one (extract.c).  Real code builds its dynamic SQL
 * in a variable as often as in the EXECUTE itself:
 *
 *     q := 'SELECT app.refresh($1)';
 *     EXECUTE q USING id;
 *
 * Where no one assignment surely reaches the EXECUTE (extract.c decides),
 * the table answers by the order of the walk: every value the variable is
 * given on entry (its declaration's default), before the EXECUTE, or after
 * it inside a loop around it may reach it; when each of those is a
 * constant, any of them may run.  A value set any other way (built at run
 * time, a parameter, INTO, a loop variable, GET DIAGNOSTICS, a CALL's
 * INOUT argument, an element or field assigned) is not constant.
 * Same-named variables of nested blocks count as one: never a constant
 * where either is not.
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
/* Given on entry to the body: a declaration's default, a parameter. */
#define CGM_EXEC_VARS_ENTRY (-1)
/* The variable `name` (its declared name; matched without regard to case)
 * is given `constant`, or a value not constant (NULL), at step `at` of
 * the body's walk (its order), or CGM_EXEC_VARS_ENTRY. */
void cgm_exec_vars_set(cgm_exec_vars *vars, const char *name, int at, const char *constant);
/* The constants the variable an EXECUTE's expression `expr` at step `at`
 * names can hold (*constants, in the arena, in the order they were set,
 * distinct): those given on entry, before `at`, or after it before
 * `loop_end` (the end of the outermost loop around `at`, or `at` when
 * none).  How many: 0 when `expr` is not a lone variable name (`q`,
 * `"Q"`, `(q)`), when nothing constant reaches it, or when any value
 * that may reach it is not constant. */
int cgm_exec_vars_lookup(const cgm_exec_vars *vars, const char *expr, int at, int loop_end,
			 const char *const **constants);
/* The value of the variable `expr` names given last before step `at` (the
 * values are set in the walk's order): its constant (NULL when it is not
 * one), *set_at its step (CGM_EXEC_VARS_ENTRY when given on entry); NULL
 * and CGM_EXEC_VARS_ENTRY when none was.  Whether it surely reaches `at`
 * is extract.c's to tell. */
const char *cgm_exec_vars_last_before(const cgm_exec_vars *vars, const char *expr, int at, int *set_at);
/* The name of the lone variable `expr` is (as the lookup reads it,
 * lower-cased) into key[CGM_EXEC_VAR_KEY]; false when it is anything else. */
enum { CGM_EXEC_VAR_KEY = 256 };
bool cgm_exec_vars_name(char *key, const char *expr);

#endif
