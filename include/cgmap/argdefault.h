/*
 * cgmap/argdefault.h - the calls of parameters' default expressions, which
 * run in a caller that leaves the parameter out (src/argdefault.c).
 *
 * Built once per resolution, before the callers are resolved, then read
 * only (by every resolving thread): a call site resolved to f, which gives
 * no value for f's parameter p, also reaches what p's default calls,
 * `via default` with the object "default ID parameter NAME".
 */
#ifndef CGMAP_ARGDEFAULT_H
#define CGMAP_ARGDEFAULT_H

#include <stdbool.h>

#include "cgmap/model.h"

typedef struct cgm_argdefaults cgm_argdefaults;

typedef struct cgm_argdefault_call {
	int fn, param;      /* the function and its input parameter (0-based) */
	int target;         /* a function its default calls */
	const char *object; /* "default app.f(integer,integer) parameter b" (model arena) */
} cgm_argdefault_call;

/* Resolve `site`, a call of a default expression of `owner` (parsed as the
 * body of `expr_fn`, whose expressions `x` are, when not NULL), into
 * `arena`: resolution's own rules, with owner's search_path. */
typedef void (*cgm_argdefault_resolve_fn)(void *ctx, cgm_arena *arena, const cgm_function *owner,
					  const cgm_function *expr_fn, cgm_site *site,
					  const cgm_site_exprs *x);

/* Every function's defaults that call a user function (a builtin too with
 * include_builtins).  Allocates object texts in model->arena; call before
 * resolving threads start.  Free with cgm_argdefaults_free. */
cgm_argdefaults *cgm_argdefaults_build(cgm_model *model, bool include_builtins,
				       cgm_argdefault_resolve_fn resolve, void *ctx);
/* Whether any default of function `fn` calls something. */
bool cgm_argdefaults_any(const cgm_argdefaults *d, int fn);
/* The calls of the default of parameter `param` of `fn`: *calls, that many. */
int cgm_argdefaults_of(const cgm_argdefaults *d, int fn, int param,
		       const cgm_argdefault_call **calls);
void cgm_argdefaults_free(cgm_argdefaults *d);

/* The DEFAULT expression of input parameter `param` (0-based) in
 * `arguments`, as pg_get_function_arguments prints them: *expr, *len
 * (pointing into `arguments`) and true; false when it has none. */
bool cgm_argument_default(const char *arguments, int param, const char **expr, size_t *len);

#endif
