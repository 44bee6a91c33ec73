/*
 * rlsbypass.c - the row-level security policies a SECURITY DEFINER
 * function's statements never run (cgmap/rlsbypass.h).
 */
#include <string.h>

#include "cgmap/rlsbypass.h"

static bool same_role(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool cgm_rls_bypassed(const cgm_model *m, const cgm_function *fn, const char *schema,
		      const char *name)
{
	if (!fn || !fn->security_definer || !schema || !name)
		return false;
	for (int i = 0; i < m->nrelations; i++) {
		const cgm_relation *r = &m->relations[i];
		if (r->schema && r->name && strcmp(r->schema, schema) == 0 && strcmp(r->name, name) == 0)
			return !r->force_rls && same_role(fn->owner, r->owner);
	}
	return false;
}

/* Whether `object` is a policy of relation schema.name (its effect). */
static bool own_policy(const cgm_model *m, const char *schema, const char *name, const char *object)
{
	if (!object)
		return false;
	for (int i = 0; i < m->neffects; i++) {
		const cgm_effect *e = &m->effects[i];
		if (e->via == CGM_VIA_POLICY && e->reach == CGM_REACH_FUNCTION && e->object &&
		    e->schema && e->relation && strcmp(e->schema, schema) == 0 &&
		    strcmp(e->relation, name) == 0 && strcmp(e->object, object) == 0)
			return true;
	}
	return false;
}

void cgm_rls_drop_bypassed(const cgm_model *m, const cgm_function *fn, cgm_site *s)
{
	if (!fn || !fn->security_definer || s->kind != CGM_SITE_RELATION || s->ntargets == 0 ||
	    !s->rare || !s->rare->target_via || !s->rare->target_object)
		return;
	bool any = false;
	for (int i = 0; i < s->ntargets && !any; i++)
		any = s->rare->target_via[i] == CGM_VIA_POLICY;
	if (!any || !cgm_rls_bypassed(m, fn, s->schema, s->name))
		return;
	/* relfx.c gave the site arrays of its own: compacted in place. */
	int kept = 0;
	bool all_builtin = true;
	for (int i = 0; i < s->ntargets; i++) {
		if (s->rare->target_via[i] == CGM_VIA_POLICY &&
		    own_policy(m, s->schema, s->name, s->rare->target_object[i]))
			continue;
		s->targets[kept] = s->targets[i];
		s->rare->target_via[kept] = s->rare->target_via[i];
		s->rare->target_object[kept] = s->rare->target_object[i];
		if (!m->functions[s->targets[i]].builtin)
			all_builtin = false;
		kept++;
	}
	s->ntargets = kept;
	s->resolution = kept == 0 ? CGM_RES_NONE : all_builtin ? CGM_RES_BUILTIN : CGM_RES_RESOLVED;
}
