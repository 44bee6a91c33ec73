/*
 * cgmap/limits.h - how deep and how odd input may be before cgmap refuses
 * it with a clear error instead of running out of stack or time.
 *
 * Every recursive walk over input-shaped data stops at one of these and
 * turns the excess into an error naming the place (a parse error of one
 * function, an error of one statement of a SQL file, a refused snapshot);
 * the rest of the input is read as usual.  PostgreSQL itself, at its default
 * max_stack_depth (2 MB), runs expressions nested about 4,500 levels deep,
 * so no function a default server runs is refused.
 */
#ifndef CGMAP_LIMITS_H
#define CGMAP_LIMITS_H

/* Levels of a parse tree (operator chains such as 1+1+...+1 count one level
 * per operator) that the raw-tree walker follows. */
#define CGM_MAX_NESTING 10000

/* The same bound as estimated from SQL text alone (src/sqlprep.c), before
 * libpg_query prints a tree as JSON (its printer recurses without a limit):
 * words and operator characters chained without a comma, semicolon or
 * bracket between them. */
#define CGM_MAX_NESTING_ESTIMATE 10000

/* Values of an EXECUTE's USING typed for the $n of its constant SQL; a $n
 * past them is left untyped (its calls ambiguous among overloads). */
#define CGM_USING_MAX 100

/* The SQL an `EXECUTE v` may run, when v is built of constant pieces
 * (`q := q || ' AND b'` under IFs): the values any path may give it,
 * built while there are at most this many of at most this many bytes in
 * all; past that, each further piece is taken as appended to every value
 * (src/execvars.c).  A variable given more pieces than CGM_EXEC_PARTS_MAX
 * before an EXECUTE leaves it a dynamic site. */
#define CGM_EXEC_VALUES_MAX 64
#define CGM_EXEC_VALUES_BYTES (1 << 20)
#define CGM_EXEC_PARTS_MAX 64
/* ... and the bytes of such values one body's EXECUTEs build in all. */
#define CGM_EXEC_BUILT_BYTES (64u << 20)
/* The bytes of variables' SQL the EXECUTEs of one body walk in all, past
 * the body's own length, and the sites those walks make, past one for 16
 * bytes of the body: each walk makes its sites again.  Past either, an
 * EXECUTE of a variable stays a dynamic site. */
#define CGM_EXEC_WALKED_BYTES (1u << 20)
#define CGM_EXEC_WALKED_SITES 20000

/* Levels of JSON that the token reader (src/jsontok.c) takes from
 * libpg_query: a tree level prints as up to three. */
#define CGM_MAX_JSON_NESTING (4 * CGM_MAX_NESTING)

/* Slash-star comments nested in one another (PostgreSQL's lexer takes time
 * quadratic in a run of nested openings). */
#define CGM_MAX_COMMENT_NESTING 256

/* Operator characters in one run outside quotes and comments, or after a
 * slash-star inside one (PostgreSQL's lexer rescans such a run for every
 * token it cuts from it). */
#define CGM_MAX_OPERATOR_RUN 1024

/* Routines a statement of the SQL files may run through the calls it
 * makes (a DO block, a CALL, a SELECT of a helper, and what those call,
 * at most 8 deep): a helper that calls ten others each calling ten would
 * otherwise run 10^8.  Past it the rest are not followed, and said. */
#define CGM_MAX_ROUTINE_RUNS 1000

/* Bytes of one psql variable's value (a longer one is left unset, as one
 * cgmap cannot know), and bytes a file's substituted variables may add to
 * it (past that, references stay as written): `\set x :x:x` forty times
 * over would ask for a terabyte. */
#define CGM_MAX_PSQL_VALUE ((size_t)1 << 20)
#define CGM_MAX_PSQL_GROWTH ((size_t)64 << 20)

#endif
