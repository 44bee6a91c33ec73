/*
 * test_execvars.c - the constant SQL a PL/pgSQL variable can hold, for an
 * EXECUTE of it (src/execvars.c): which expressions name a lone variable,
 * which of the values a variable is given may reach an EXECUTE at a step
 * of the walk, and one not constant among them leaving no constant.  The
 * walk that feeds it is held to PostgreSQL by test_execvars.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/arena.h"
#include "execvars.h"

static void test_names(void **state)
{
	(void)state;
	char key[CGM_EXEC_VAR_KEY];
	assert_true(cgm_exec_vars_name(key, "q"));
	assert_string_equal(key, "q");
	assert_true(cgm_exec_vars_name(key, "  V_Sql "));
	assert_string_equal(key, "v_sql");
	assert_true(cgm_exec_vars_name(key, "((q))"));
	assert_string_equal(key, "q");
	assert_true(cgm_exec_vars_name(key, "\"Quoted\""));
	assert_string_equal(key, "quoted");
	assert_true(cgm_exec_vars_name(key, "sql$1"));
	/* anything more than one name is a value of its own */
	const char *not_names[] = { "q || 'x'", "arr[1]", "r.sql", "\"a\".\"b\"", "\"a\"\"b\"",
				    "(q", "q)", "1q", "'SELECT 1'", "", "  ", "f(q)", "$1", NULL };
	for (int i = 0; not_names[i]; i++)
		if (cgm_exec_vars_name(key, not_names[i]))
			fail_msg("'%s' taken for the name '%s'", not_names[i], key);
	char long_name[400];
	memset(long_name, 'a', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	assert_false(cgm_exec_vars_name(key, long_name));
}

/* lookup at step `at`, no loop around it */
static int at_step(const cgm_exec_vars *v, const char *expr, int at, const char *const **c)
{
	return cgm_exec_vars_lookup(v, expr, at, at, c);
}

static void test_constants(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_exec_vars *v = cgm_exec_vars_new(arena);
	const char *const *c;
	assert_int_equal(at_step(v, "q", 100, &c), 0); /* never given anything */

	cgm_exec_vars_set(v, "q", CGM_EXEC_VARS_ENTRY, "SELECT a()");
	cgm_exec_vars_set(v, "Q", 10, "SELECT b()");
	cgm_exec_vars_set(v, "q", 20, "SELECT a()"); /* once */
	assert_int_equal(at_step(v, "(Q)", 100, &c), 2);
	assert_string_equal(c[0], "SELECT a()");
	assert_string_equal(c[1], "SELECT b()");
	/* at step 5 only the default has been given */
	assert_int_equal(at_step(v, "q", 5, &c), 1);
	assert_string_equal(c[0], "SELECT a()");

	/* a value not constant that may reach: nothing known; one given
	 * after, outside any loop around the EXECUTE, does not reach it */
	cgm_exec_vars_set(v, "built", 30, "SELECT c()");
	cgm_exec_vars_set(v, "built", 50, NULL);
	assert_int_equal(at_step(v, "built", 40, &c), 1);
	assert_string_equal(c[0], "SELECT c()");
	assert_int_equal(at_step(v, "built", 60, &c), 0);
	assert_null(c);
	/* ... unless a loop around the EXECUTE holds it: the way back */
	assert_int_equal(cgm_exec_vars_lookup(v, "built", 40, 55, &c), 0);
	assert_int_equal(cgm_exec_vars_lookup(v, "built", 40, 45, &c), 1);
	/* a parameter's value: never constant */
	cgm_exec_vars_set(v, "p", CGM_EXEC_VARS_ENTRY, NULL);
	cgm_exec_vars_set(v, "p", 70, "SELECT d()");
	assert_int_equal(at_step(v, "p", 80, &c), 0);

	/* the value given last before a step, as extract.c asks for the one
	 * that may surely reach an EXECUTE */
	int set_at;
	assert_null(cgm_exec_vars_last_before(v, "built", 30, &set_at));
	assert_int_equal(set_at, CGM_EXEC_VARS_ENTRY);
	assert_string_equal(cgm_exec_vars_last_before(v, "built", 31, &set_at), "SELECT c()");
	assert_int_equal(set_at, 30);
	assert_null(cgm_exec_vars_last_before(v, "built", 60, &set_at));
	assert_int_equal(set_at, 50);
	assert_string_equal(cgm_exec_vars_last_before(v, "q", 10, &set_at), "SELECT a()");
	assert_int_equal(set_at, CGM_EXEC_VARS_ENTRY);
	assert_string_equal(cgm_exec_vars_last_before(v, "q", 15, &set_at), "SELECT b()");
	assert_int_equal(set_at, 10);
	assert_null(cgm_exec_vars_last_before(v, "q || ''", 15, &set_at));

	/* many variables: the table grows and keeps each */
	char name[32], sql[64];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "v%d", i);
		snprintf(sql, sizeof sql, "SELECT f%d()", i);
		cgm_exec_vars_set(v, name, i, cgm_arena_strdup(arena, sql));
	}
	for (int i = 0; i < 5000; i += 499) {
		snprintf(name, sizeof name, "V%d", i);
		snprintf(sql, sizeof sql, "SELECT f%d()", i);
		assert_int_equal(at_step(v, name, 5000, &c), 1);
		assert_string_equal(c[0], sql);
	}
	assert_int_equal(at_step(v, "q", 100, &c), 2);
	assert_int_equal(at_step(NULL, "q", 100, &c), 0);
	cgm_arena_free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
