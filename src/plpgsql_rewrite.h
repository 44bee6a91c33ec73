/*
 * plpgsql_rewrite.h - line-preserving rewrites of PL/pgSQL bodies that
 * libpg_query's catalog-less parser rejects (see plpgsql_rewrite.c).
 */
#ifndef CGMAP_PLPGSQL_REWRITE_H
#define CGMAP_PLPGSQL_REWRITE_H

#include <stdbool.h>

/* A rewritten copy of body (malloc'd, caller frees) that avoids the error
 * libpg_query reported, or NULL when no rewrite applies.  Newlines stay put.
 * argtypes: the types of the function's parameters $1, $2, ... as PL/pgSQL
 * numbers them (OUT ones too; for ALIAS FOR $n). */
char *cgm_plpgsql_rewrite(const char *body, const char *error_message,
			  const char *const *argtypes, int nargs);

/* The body with each `CREATE [OR REPLACE] FUNCTION|PROCEDURE ... BEGIN
 * ATOMIC ... END` statement's atomic body made a string body of the same
 * length (`AS   $x$   ... $x$`, the tag one letter the body never spells),
 * which libpg_query's PL/pgSQL parser reads as one statement, as
 * PostgreSQL 15 reads the original; malloc'd, caller frees; NULL when the
 * body has none.  The statement's other text and every offset stay. */
char *cgm_plpgsql_atomic_as_string(const char *body);

/* One FETCH, MOVE or OPEN statement of a body: the 1-based line it starts
 * on and its cursor, folded as PostgreSQL folds an identifier (lower case
 * unless quoted). */
typedef struct cgm_cursor_read {
	int line;
	bool open;          /* OPEN (else FETCH or MOVE) */
	char cursor[64];    /* empty when it could not be read */
	const char *stmt;   /* "open", "fetch" or "move" (static) */
	/* The cursor rewrite made it `ASSERT expr` of its OPEN arguments or
	 * FETCH/MOVE count: which of the ASSERT statements starting on its
	 * line it is (the body's own counted), from 0; else -1. */
	int assert_nth;
} cgm_cursor_read;

/* The FETCH, MOVE and OPEN statements of body, in order, into *out
 * (malloc'd, caller frees; NULL when none); returns their count.  Found
 * the way the cursor rewrite finds statements (after ';' and block
 * keywords, outside comments and literals), so a catalog-less parse that
 * rewrote them away still knows where they stood and what they were. */
int cgm_plpgsql_cursor_reads(cgm_cursor_read **out, const char *body);

#endif
