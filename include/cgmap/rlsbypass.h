/*
 * cgmap/rlsbypass.h - the row-level security policies a SECURITY DEFINER
 * function's statements never run.
 *
 * PostgreSQL applies a table's policies to the role a statement runs as,
 * unless that role owns the table and the table is not FORCE ROW LEVEL
 * SECURITY (or is a superuser or has BYPASSRLS, which only a live database
 * tells; the SQL files do not, so neither source uses it).  A SECURITY
 * DEFINER function runs its statements as its owner: on a table of the
 * same owner, the policies never run for them, whoever calls it.
 *
 * In:  a linked model whose relations carry their owners and FORCE flag
 *      and whose functions their owner and SECURITY DEFINER flag (both
 *      sources fill them; a NULL owner in SQL files is the session's role,
 *      the same for a table and a function); a relation site resolved by
 *      relfx.c (its schema set, its targets with their mechanisms).
 * Out: the site without the targets of the policies of its own relation
 *      (policies reached through a view or a cascade are checked against
 *      the view's or the table's owner, and stay).
 */
#ifndef CGMAP_RLSBYPASS_H
#define CGMAP_RLSBYPASS_H

#include <stdbool.h>

#include "cgmap/model.h"

/* Whether the statements of `fn` on relation schema.name never meet its
 * policies: fn is SECURITY DEFINER and owns it, and it is not FORCE. */
bool cgm_rls_bypassed(const cgm_model *m, const cgm_function *fn, const char *schema,
		      const char *name);

/* Drops from `site` (a CGM_SITE_RELATION site of `fn`) the targets of its
 * relation's own policies when cgm_rls_bypassed; writes only the site. */
void cgm_rls_drop_bypassed(const cgm_model *m, const cgm_function *fn, cgm_site *site);

#endif
