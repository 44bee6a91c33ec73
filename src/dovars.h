/*
 * dovars.h - the values a DO block's variables hold as it runs, when the
 * SQL files tell them: a constant (`v := 'x'`, a declaration's default), or
 * a setting read from the session (`EXECUTE 'SHOW search_path' INTO v`,
 * `v := current_setting('search_path')`, `SELECT current_setting(...)
 * INTO v`).  doblock.c substitutes them in what the block EXECUTEs, so
 * that an install script's
 *
 *     EXECUTE 'SHOW search_path' INTO cur;
 *     EXECUTE 'SET search_path = app, ' || cur;
 *
 * (postgresql-tableversion's no-extension loader) sets the path it sets.
 *
 * In: variable names and values, expressions as PL/pgSQL stores them.
 * Out: strings in the table's arena, or heap strings where said.  A
 * variable of unknown value (assigned what the files cannot tell) makes
 * any expression naming it unknown.
 */
#ifndef CGMAP_DOVARS_H
#define CGMAP_DOVARS_H

#include <stdbool.h>

#include "cgmap/arena.h"

typedef struct cgm_do_vars cgm_do_vars;

cgm_do_vars *cgm_do_vars_new(cgm_arena *arena);
/* The variable `name` (as declared: matched without regard to case) now
 * holds `value`; NULL: a value the files cannot tell. */
void cgm_do_vars_set(cgm_do_vars *vars, const char *name, const char *value);
/* The variable `name` now holds SQL's NULL (SELECT ... INTO of no row). */
void cgm_do_vars_set_null(cgm_do_vars *vars, const char *name);
/* Every variable's value unknown (after a branch or loop not followed). */
void cgm_do_vars_forget(cgm_do_vars *vars);
/* A copy of the values, in the table's arena; `cgm_do_vars_restore` puts
 * them back (a branch's values, after others were walked). */
cgm_do_vars *cgm_do_vars_copy(const cgm_do_vars *vars);
void cgm_do_vars_restore(cgm_do_vars *vars, const cgm_do_vars *copy);
/* `expr` with each variable it names (not a function's name, not part of
 * a qualified name) replaced by its value as a literal (heap); NULL when it
 * names a variable of unknown value.  A name after `::` is a type; `$n`
 * is the variable "$n" (a routine's positional parameter). */
char *cgm_do_vars_substitute(const cgm_do_vars *vars, const char *expr);
/* The setting an expression reads, `current_setting('name')` (or
 * pg_catalog's, one argument), lower-cased into the arena; NULL when it is
 * anything else. */
const char *cgm_do_vars_current_setting(cgm_arena *arena, const char *expr);
/* The setting a query of pg_settings reads, `setting` or `reset_val`
 * (*reset) FROM [pg_catalog.]pg_settings WHERE name = 'name' (the query
 * after SELECT, as for current_setting), lower-cased into the arena; NULL
 * when it is anything else. */
const char *cgm_do_vars_settings_row(cgm_arena *arena, const char *expr, bool *reset);
/* What current_database() gives in the SQL substituted from now on (NULL:
 * the call is kept, unknown): the files do not know the database's name,
 * so a caller gives a name only for SQL where any name does (ALTER
 * DATABASE ... SET). */
void cgm_do_vars_set_database(cgm_do_vars *vars, const char *name);
/* Whether `sql` is one ALTER DATABASE ... SET or RESET statement. */
bool cgm_do_vars_alters_database(const char *sql);
/* The setting of a `SHOW name` statement, lower-cased into the arena; NULL
 * when `sql` is anything else. */
const char *cgm_do_vars_shown(cgm_arena *arena, const char *sql);

#endif
