/*
 * cgmap/domaincheck.h - the CHECKs of domains a value runs as it becomes
 * of a domain: passed to a parameter of the domain, assigned to a variable
 * of it (its declaration included: PL/pgSQL assigns the default, or a
 * NULL, when the block starts), returned as it, or cast to it.
 *
 * In:  a linked model (model->domain_checks, each flattened over the
 *      domains it holds for; model->type_infos for domains' base types).
 * Out: site targets via domain, object "domain app.d.constraint", in the
 *      arena given; the index is malloc'd, cgm_domain_index_free frees it.
 */
#ifndef CGMAP_DOMAINCHECK_H
#define CGMAP_DOMAINCHECK_H

#include <stdbool.h>

#include "cgmap/model.h"

typedef struct cgm_domain_index cgm_domain_index;

/* Built once per resolution, read only afterwards by any thread; the
 * checks whose function is not worth an edge (a builtin one without
 * `include_builtins`, or one not mapped) are left out. */
cgm_domain_index *cgm_domain_index_new(const cgm_model *model, bool include_builtins);
void cgm_domain_index_free(cgm_domain_index *index);

/* Whether `type` (canonical, qualified) is a domain with a check worth an edge. */
bool cgm_domain_checked(const cgm_domain_index *index, const char *type);

/* The checks that run when a value of type `from` (NULL: not known;
 * "unknown": an untyped literal) becomes of type `to`: none when `to` has
 * none or the value is of `to` already (of `to` itself or of a domain
 * over it, whose values passed `to`'s checks); else every check of `to`
 * and of the domains it is over, as targets of s via domain.  Returns how
 * many were added. */
int cgm_domain_check_targets(const cgm_domain_index *index, cgm_arena *arena, cgm_site *s,
			     const char *from, const char *to);

#endif
