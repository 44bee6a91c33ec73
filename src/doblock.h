/*
 * doblock.h - what a PL/pgSQL DO block in a SQL file runs that changes the
 * schema: its statements, and the constant strings it EXECUTEs, for the
 * SQL-file source to apply where the block stands (a migration that makes
 * a type or a function "if it does not exist yet" does it in a DO block).
 *
 * In:  the block's body, its session.  Out: the SQL texts in the order
 *      they would run, each with its line in the body (1-based), to the
 *      session's `apply`.
 *
 * Which paths are taken, since nothing runs: every statement of the
 * block's own list and of nested BEGIN ... END blocks, up to a RETURN; of
 * an IF, the branch its conditions choose when the values they test are
 * known (doeval.h: a function called with `'FUNCTION'` takes its
 * `UPPER(pType) = 'FUNCTION'` branch), else its first branch that changes
 * the schema (the THEN: "IF NOT EXISTS (...) THEN CREATE ..."), not ELSIF
 * or ELSE, which would make the same object again, and a RETURN there
 * does not end the walk; no exception handler; no loop or CASE body (what
 * a loop makes is named by its variables, and would be made once per
 * turn).  A call of a function in PERFORM, RETURN or an assignment, its
 * arguments' values known, goes to `apply` as `SELECT f(...)`: the
 * session runs what the function runs, as the files' own SELECT.  EXECUTE takes constant SQL as extraction
 * reads it (cgm_extract_constant_sql), with the variables whose values the
 * files tell substituted (dovars.h: a constant, or a setting the block
 * reads from the session as the files left it at that point, through
 * `show`): what depends on values known only when it runs is left out,
 * and when it may make, change or drop something, said (`unknown`), as is
 * an EXECUTE in a loop or a CASE.
 */
#ifndef CGMAP_DOBLOCK_H
#define CGMAP_DOBLOCK_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "docatalog.h"

/* Routine bodies parsed once for all the calls a load runs (a file may
 * call a helper a thousand times): given to each session, keyed by the
 * body's, arguments' and result's pointers, which must stay valid and
 * unchanged while the cache lives.  Freed by its owner. */
typedef struct cgm_do_cache cgm_do_cache;
cgm_do_cache *cgm_do_cache_new(void);
void cgm_do_cache_free(cgm_do_cache *cache);

/* What a block reads of its session, and where its SQL goes: `apply`
 * takes each statement in the order it runs (its line in the body;
 * `guarded`: it stands in a block with an EXCEPTION clause, which catches
 * the errors it raises, so the session says none of them), and
 * `show` gives a setting's value as SHOW prints it once what was applied
 * before has been (NULL: unknown, or no `show`). */
typedef struct cgm_do_session {
	void *ctx;
	void (*apply)(void *ctx, const char *sql, int line, bool guarded);
	const char *(*show)(void *ctx, const char *setting);
	/* A setting's value at the start of a new session (pg_settings'
	 * reset_val): the database's default, as SHOW prints it.  May be NULL. */
	const char *(*show_reset)(void *ctx, const char *setting);
	/* An EXECUTE that may change the schema, of SQL known only when it
	 * runs (its expression as written): not applied.  May be NULL. */
	void (*unknown)(void *ctx, const char *expr, int line);
	/* Run as the body of a procedure with these arguments (as
	 * pg_get_function_arguments prints them): its parameters are
	 * variables whose values are unknown.  NULL for a DO block. */
	const char *procedure_arguments;
	/* Run as the body of a function returning this (as
	 * pg_get_function_result prints it; with procedure_arguments its
	 * parameters): a function the files call, `SELECT f('x', 1)`.  NULL
	 * for a DO block or a procedure. */
	const char *function_result;
	/* What the call gives $1 .. $nargs: their values as text (a NULL
	 * entry: unknown), and the parameters' names (NULL entry: unnamed)
	 * and types (for `name ALIAS FOR $n`).  nargs 0: none known. */
	int nargs;
	const char *const *argument_values;
	const char *const *argument_names;
	const char *const *argument_types;
	/* The extensions the files made, for the block's queries of
	 * pg_extension (docatalog.h).  May be NULL: those are unknown. */
	const cgm_do_catalog *catalog;
	/* Where the routine's parsed body is kept between its calls; NULL:
	 * parsed for this run only (a DO block runs once). */
	cgm_do_cache *cache;
} cgm_do_session;

/* Runs `body` as far as the files tell, each statement to session->apply:
 * how many, 0 when there is none or the body is not PL/pgSQL that parses
 * (PostgreSQL then refuses the block; nothing of it is applied). */
int cgm_do_block_run(const char *body, const cgm_do_session *session);

/* A SQL-language routine's body (not BEGIN ATOMIC), its parameters ($n
 * and their names) replaced by the values the call gives, to `apply` as
 * one text (line 1): a wrapper `SELECT f($1, BOOLEAN 't')` passes the
 * call on.  0 when a statement names a parameter of unknown value:
 * nothing is applied. */
int cgm_do_sql_body_run(const char *body, const cgm_do_session *session);

#endif
