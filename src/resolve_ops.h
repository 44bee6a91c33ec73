/*
 * resolve_ops.h - resolution of what runs behind an expression: operator
 * and cast sites to the function of the operator or cast, and the extra
 * targets of resolved calls (an aggregate's support functions, the user
 * casts that coerce a call's or an operator's arguments).  Used by
 * resolve.c; see resolve_ops.c.
 */
#ifndef CGMAP_RESOLVE_OPS_H
#define CGMAP_RESOLVE_OPS_H

#include <stdbool.h>

#include "cgmap/exprtype.h"
#include "cgmap/model.h"

typedef struct cgm_ops_resolver cgm_ops_resolver;

/* Append target `fn` reached through `via` (`object`: what it goes
 * through, or NULL) to s, into `arena`, unless it is there already; the
 * earlier targets keep their mechanisms. */
void cgm_site_add_target(cgm_arena *arena, cgm_site *s, int fn, cgm_via via, const char *object);

/* Built once per resolution from a linked model whose operators and casts
 * are ordered (cgm_ops_index); read only afterwards, by any thread.  NULL
 * only when out of memory is impossible (cgm_x* abort), so never. */
cgm_ops_resolver *cgm_ops_resolver_new(const cgm_model *model, bool include_builtins);
void cgm_ops_resolver_free(cgm_ops_resolver *r);

/* Resolve an operator or cast site of `caller`: targets (with target_via
 * and target_object) into `arena`.  False when it reaches no function
 * worth an edge (a builtin one without --include-builtins, or none): the
 * caller drops the site.  `typer` (the caller's) types, from the site's
 * expressions `x` (NULL when none), the operands the parser could not
 * type and the value and target of a cast PostgreSQL applies by itself
 * (coerce_to, cgmap/coerce.h). */
bool cgm_resolve_opcast_site(const cgm_ops_resolver *r, cgm_arena *arena, cgm_typer *typer,
			     const cgm_function *caller, cgm_site *s, const cgm_site_exprs *x);

/* The resolution of a site whose targets are set: ambiguous, builtin when
 * every target is pg_catalog's, else resolved. */
void cgm_resolve_settle(const cgm_ops_resolver *r, cgm_site *s, bool ambiguous);

/* Type name `type` as `caller` writes it (canonical, qualified or not),
 * qualified by the caller's search_path when it names a user type. */
const char *cgm_resolve_type_name(const cgm_ops_resolver *r, cgm_arena *arena,
				  const cgm_function *caller, const char *type);

/* A call PostgreSQL reads as a cast of an untyped literal to `type`
 * (canonical, qualified): `typename('literal')`.  The literal becomes of
 * the type by its input function, when the statement is parsed; the checks
 * of a domain still run each time the statement does, as for
 * 'literal'::typename.  False (no targets) when none runs. */
bool cgm_resolve_literal_cast(const cgm_ops_resolver *r, cgm_arena *arena, cgm_site *s,
			      const char *type);

/* After a call site is resolved: each target that is an aggregate gains
 * its support functions (via aggregate), and a call resolved to one
 * function gains the user casts that turn its known argument types into
 * the parameter types (via cast). */
void cgm_resolve_call_effects(const cgm_ops_resolver *r, cgm_arena *arena,
			      const cgm_function *caller, cgm_site *s);

#endif
