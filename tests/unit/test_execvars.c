/*
 * test_execvars.c - the constant SQL a PL/pgSQL variable can hold, for an
 * EXECUTE of it (src/execvars.c): which expressions name a lone variable,
 * and a variable given anything not constant holding no constant.  The
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

static void test_constants(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_exec_vars *v = cgm_exec_vars_new(arena);
	const char *const *c;
	assert_int_equal(cgm_exec_vars_lookup(v, "q", &c), 0); /* never given anything */

	cgm_exec_vars_set(v, "q", "SELECT a()");
	cgm_exec_vars_set(v, "Q", "SELECT b()");
	cgm_exec_vars_set(v, "q", "SELECT a()"); /* once */
	assert_int_equal(cgm_exec_vars_lookup(v, "(Q)", &c), 2);
	assert_string_equal(c[0], "SELECT a()");
	assert_string_equal(c[1], "SELECT b()");

	/* one value not constant, before or after: nothing known */
	cgm_exec_vars_set(v, "built", NULL);
	cgm_exec_vars_set(v, "built", "SELECT c()");
	assert_int_equal(cgm_exec_vars_lookup(v, "built", &c), 0);
	cgm_exec_vars_set(v, "later", "SELECT c()");
	cgm_exec_vars_set(v, "later", NULL);
	assert_int_equal(cgm_exec_vars_lookup(v, "later", &c), 0);
	assert_null(c);

	/* many variables: the table grows and keeps each */
	char name[32], sql[64];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "v%d", i);
		snprintf(sql, sizeof sql, "SELECT f%d()", i);
		cgm_exec_vars_set(v, name, cgm_arena_strdup(arena, sql));
	}
	for (int i = 0; i < 5000; i += 499) {
		snprintf(name, sizeof name, "V%d", i);
		snprintf(sql, sizeof sql, "SELECT f%d()", i);
		assert_int_equal(cgm_exec_vars_lookup(v, name, &c), 1);
		assert_string_equal(c[0], sql);
	}
	assert_int_equal(cgm_exec_vars_lookup(v, "q", &c), 2);
	assert_int_equal(cgm_exec_vars_lookup(NULL, "q", &c), 0);
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
