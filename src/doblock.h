/*
 * doblock.h - what a PL/pgSQL DO block in a SQL file runs that changes the
 * schema: its statements, and the constant strings it EXECUTEs, for the
 * SQL-file source to apply where the block stands (a migration that makes
 * a type or a function "if it does not exist yet" does it in a DO block).
 *
 * In:  the block's body.  Out: the SQL texts in the order they would run,
 *      each with its line in the body, in the caller's arena.
 *
 * Which paths are taken, since nothing runs: every statement of the
 * block's own list and of nested BEGIN ... END blocks; of an IF, its first
 * branch (the THEN: "IF NOT EXISTS (...) THEN CREATE ..."), not ELSIF or
 * ELSE, which would make the same object again; no exception handler; no
 * loop or CASE body (what a loop makes is named by its variables, and
 * would be made once per turn).  EXECUTE takes constant SQL as extraction
 * reads it (cgm_extract_constant_sql): what depends on values known when
 * it runs is left out.
 */
#ifndef CGMAP_DOBLOCK_H
#define CGMAP_DOBLOCK_H

#include "cgmap/arena.h"

typedef struct cgm_do_sql {
	const char *sql;
	int line; /* 1-based, in the body */
} cgm_do_sql;

/* The SQL of `body` into *out (arena): how many, 0 when there is none or
 * the body is not PL/pgSQL that parses (PostgreSQL then refuses the block;
 * nothing of it is applied). */
int cgm_do_block_sql(cgm_arena *arena, const char *body, cgm_do_sql **out);

#endif
