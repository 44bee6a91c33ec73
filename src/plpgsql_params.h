/*
 * plpgsql_params.h - a PL/pgSQL function's parameters as PL/pgSQL numbers
 * them (see plpgsql_params.c).
 */
#ifndef CGMAP_PLPGSQL_PARAMS_H
#define CGMAP_PLPGSQL_PARAMS_H

#include <stdbool.h>

#include <pg_query.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"

/* Parameter $n of a PL/pgSQL function is params[n - 1]. */
typedef struct cgm_plparam {
	const char *name; /* as the parser folded it, NULL when unnamed */
	const char *type; /* canonical, NULL when unknown */
	bool input;       /* IN, INOUT or VARIADIC (else OUT or a TABLE column) */
} cgm_plparam;

/* Every parameter of fn, from its arguments and a RETURNS TABLE result,
 * into *params (in arena), and in *named the arguments text with each
 * unnamed parameter named "$n" (in arena; NULL when every one has a name).
 * Returns their count; 0 (both NULL) when fn's parameters are named inputs
 * only, which fn->argnames and fn->argtypes tell already, or when the
 * arguments do not parse (the body's parse, which reads them too, names
 * that problem). */
int cgm_plpgsql_params(cgm_arena *arena, const cgm_function *fn, cgm_plparam **params,
		       const char **named);

/* The arguments text without its defaults (`DEFAULT expr` and `= expr` up
 * to the next parameter), in arena: a header PL/pgSQL parses the body
 * under needs no default, and one whose text a source could not give
 * whole (a SQL file's construct cgmap misreads) would cost the body all
 * its sites.  NULL when there is none to leave out. */
const char *cgm_plpgsql_args_without_defaults(cgm_arena *arena, const char *arguments);

/* The body parsed as PL/pgSQL inside fn's CREATE statement with
 * `arguments` as its header: parameters and result let the parser know
 * its variables (and NEW/OLD of triggers).  The caller frees the result
 * (pg_query_free_plpgsql_parse_result). */
PgQueryPlpgsqlParseResult cgm_plpgsql_parse_body(const cgm_function *fn, const char *arguments,
						  const char *body);

#endif
