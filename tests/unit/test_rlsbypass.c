/*
 * test_rlsbypass.c - the policies a SECURITY DEFINER function's statements
 * never run: on a table of its owner that is not FORCE ROW LEVEL SECURITY,
 * its own policies are dropped from a relation site; a function that is
 * not SECURITY DEFINER, another owner's table, a FORCE table and the
 * other mechanisms keep theirs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/model.h"
#include "cgmap/rlsbypass.h"

static cgm_model *model;

static void relation(const char *name, const char *owner, bool force)
{
	cgm_relation *r = cgm_model_add_relation(model);
	r->schema = "app";
	r->name = name;
	r->relkind = 'r';
	r->owner = owner;
	r->force_rls = force;
}

static void policy(const char *rel, const char *object)
{
	cgm_effect *e = cgm_model_add_effect(model);
	e->schema = "app";
	e->relation = rel;
	e->reach = CGM_REACH_FUNCTION;
	e->via = CGM_VIA_POLICY;
	e->object = object;
	e->function = 0;
}

static cgm_function *function(const char *owner, bool definer)
{
	cgm_function *f = cgm_model_add_function(model);
	f->id = "app.f()";
	f->owner = owner;
	f->security_definer = definer;
	return f;
}

/* A read of app.`rel` whose targets are a policy of its own, a policy of
 * another relation (reached through it) and a default. */
static cgm_site read_of(const char *rel, const char *own_policy)
{
	cgm_site s = { 0 };
	s.kind = CGM_SITE_RELATION;
	s.schema = "app";
	s.name = rel;
	s.ntargets = 3;
	s.targets = cgm_arena_alloc(model->arena, sizeof(int) * 3);
	s.rare = cgm_site_rare_of(model->arena, &s);
	s.rare->target_via = cgm_arena_alloc(model->arena, sizeof(cgm_via) * 3);
	s.rare->target_object = cgm_arena_alloc(model->arena, sizeof(char *) * 3);
	const cgm_via via[] = { CGM_VIA_POLICY, CGM_VIA_POLICY, CGM_VIA_DEFAULT };
	const char *objects[] = { own_policy, "policy p on app.base", "default app.t.a" };
	for (int i = 0; i < 3; i++) {
		s.targets[i] = 1;
		s.rare->target_via[i] = via[i];
		s.rare->target_object[i] = objects[i];
	}
	s.resolution = CGM_RES_RESOLVED;
	return s;
}

static void test_policies_bypassed(void **state)
{
	(void)state;
	model = cgm_model_new();
	cgm_function *definer = function("owner", true);
	cgm_model_add_function(model)->id = "app.allowed()";
	definer = &model->functions[0];
	relation("t", "owner", false);
	relation("forced", "owner", true);
	relation("theirs", "other", false);
	relation("base", "owner", false);
	policy("t", "policy p on app.t");
	policy("forced", "policy p on app.forced");
	policy("theirs", "policy p on app.theirs");
	policy("base", "policy p on app.base");

	assert_true(cgm_rls_bypassed(model, definer, "app", "t"));
	assert_false(cgm_rls_bypassed(model, definer, "app", "forced"));
	assert_false(cgm_rls_bypassed(model, definer, "app", "theirs"));
	assert_false(cgm_rls_bypassed(model, definer, "app", "unknown"));

	cgm_site s = read_of("t", "policy p on app.t");
	cgm_rls_drop_bypassed(model, definer, &s);
	assert_int_equal(s.ntargets, 2);
	assert_string_equal(s.rare->target_object[0], "policy p on app.base");
	assert_int_equal(s.rare->target_via[1], CGM_VIA_DEFAULT);
	assert_int_equal(s.resolution, CGM_RES_RESOLVED);

	s = read_of("forced", "policy p on app.forced");
	cgm_rls_drop_bypassed(model, definer, &s);
	assert_int_equal(s.ntargets, 3);
	s = read_of("theirs", "policy p on app.theirs");
	cgm_rls_drop_bypassed(model, definer, &s);
	assert_int_equal(s.ntargets, 3);

	/* An invoker, or the session's role (NULL) against another owner. */
	definer->security_definer = false;
	s = read_of("t", "policy p on app.t");
	cgm_rls_drop_bypassed(model, definer, &s);
	assert_int_equal(s.ntargets, 3);
	definer->security_definer = true;
	definer->owner = NULL;
	assert_false(cgm_rls_bypassed(model, definer, "app", "t"));
	model->relations[0].owner = NULL;
	assert_true(cgm_rls_bypassed(model, definer, "app", "t"));
	cgm_model_free(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policies_bypassed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
