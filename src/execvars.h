/*
 * execvars.h - the constant SQL a PL/pgSQL function's variables can hold,
 * for an `EXECUTE v` of one (extract.c).  Real code builds its dynamic SQL
 * in a variable as often as in the EXECUTE itself:
 *
 *     q := 'SELECT app.refresh($1)';
 *     EXECUTE q USING id;
 *
 * or appends optional clauses to it, each a constant piece:
 *
 *     q := 'SELECT id FROM app.items WHERE true';
 *     IF p_kind IS NOT NULL THEN q := q || ' AND kind = $1'; END IF;
 *     RETURN QUERY EXECUTE q USING p_kind;
 *
 * Where no one assignment surely reaches the EXECUTE (extract.c decides),
 * the table answers by the order of the walk: every value the variable is
 * given on entry (its declaration's default), before the EXECUTE, or after
 * it inside a loop around it may reach it; when each of those is a
 * constant, any of them may run.  A piece appended may or may not have
 * been: each value given, then each with any of the pieces appended after
 * it, in their order (limits.h bounds how many are built).  A value set any other way (built at run
 * time, a parameter, INTO, a loop variable, GET DIAGNOSTICS, a CALL's
 * INOUT argument, an element or field assigned) is not constant.
 * Same-named variables of nested blocks count as one: never a constant
 * where either is not.
 *
 * In: names and constants; the strings must outlive the table (the
 * extraction's arena).  Out: the table, in that arena; freed with it.
 * A lookup's values are the table's, kept until the next lookup of the
 * same variable, freed by cgm_exec_vars_release (heap: call it before the
 * arena is freed).
 */
#ifndef CGMAP_EXECVARS_H
#define CGMAP_EXECVARS_H

#include <stdbool.h>
#include <stdint.h>

#include "cgmap/arena.h"

typedef struct cgm_exec_vars cgm_exec_vars;

cgm_exec_vars *cgm_exec_vars_new(cgm_arena *arena);
/* Given on entry to the body: a declaration's default, a parameter. */
#define CGM_EXEC_VARS_ENTRY (-1)
/* The variable `name` (its declared name; matched without regard to case)
 * is given `constant`, or a value not constant (NULL), at step `at` of
 * the body's walk (its order), or CGM_EXEC_VARS_ENTRY. */
void cgm_exec_vars_set(cgm_exec_vars *vars, const char *name, int at, const char *constant);
/* Step `at` appends the constant text `piece` to the variable's value. */
void cgm_exec_vars_append(cgm_exec_vars *vars, const char *name, int at, const char *piece);

/* One value a variable may hold, and the values given and pieces
 * appended it is made of: bit k for the k-th of those that may reach. */
typedef struct cgm_exec_value {
	const char *sql;
	uint64_t parts;
} cgm_exec_value;
/* The values the variable an EXECUTE's expression `expr` at step `at`
 * names can hold (*values, the table's until the next lookup of the
 * variable, the caller may reorder them; distinct, in the order they were
 * built: shorter ones first), made of what is given to it at `from` or
 * later before `at` (CGM_EXEC_VARS_ENTRY: also on entry), or after it
 * before `loop_end` (the end of the outermost loop around `at`, or `at`
 * when none); *all_parts the bits of every part.  How many: 0 when `expr`
 * is not a lone variable name (`q`, `"Q"`, `(q)`), when nothing constant
 * reaches it, when any value that may reach it is not constant, or when
 * more than CGM_EXEC_PARTS_MAX parts would, or the values the body's
 * lookups built of pieces pass CGM_EXEC_BUILT_BYTES in all. */
int cgm_exec_vars_lookup(cgm_exec_vars *vars, const char *expr, int from, int at, int loop_end,
			 cgm_exec_value **values, uint64_t *all_parts);
/* Free what lookups left (the table itself is the arena's). */
void cgm_exec_vars_release(cgm_exec_vars *vars);
/* The value of the variable `expr` names given last before step `at` (the
 * values are set in the walk's order; pieces appended pass over): its
 * constant (NULL when it is not one), *set_at its step
 * (CGM_EXEC_VARS_ENTRY when given on entry); NULL and CGM_EXEC_VARS_ENTRY
 * when none was.  Whether it surely reaches `at` is extract.c's to tell. */
const char *cgm_exec_vars_last_before(const cgm_exec_vars *vars, const char *expr, int at, int *set_at);
/* Whether the last value the variable `expr` names was given before step
 * `at` is a piece appended (cgm_exec_vars_append), which
 * cgm_exec_vars_last_before passes over. */
bool cgm_exec_vars_appended_last(const cgm_exec_vars *vars, const char *expr, int at);
/* The name of the lone variable `expr` is (as the lookup reads it,
 * lower-cased) into key[CGM_EXEC_VAR_KEY]; false when it is anything else. */
enum { CGM_EXEC_VAR_KEY = 256 };
bool cgm_exec_vars_name(char *key, const char *expr);

#endif
