/*
 * plpgsql_rewrite.h - line-preserving rewrites of PL/pgSQL bodies that
 * libpg_query's catalog-less parser rejects (see plpgsql_rewrite.c).
 */
#ifndef CGMAP_PLPGSQL_REWRITE_H
#define CGMAP_PLPGSQL_REWRITE_H

/* A rewritten copy of body (malloc'd, caller frees) that avoids the error
 * libpg_query reported, or NULL when no rewrite applies.  Newlines stay put.
 * argtypes: the function's input argument types (for ALIAS FOR $n). */
char *cgm_plpgsql_rewrite(const char *body, const char *error_message,
			  const char *const *argtypes, int nargs);

#endif
