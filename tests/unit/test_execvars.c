/*
 * test_execvars.c - the constant SQL a PL/pgSQL variable can hold, for an
 * EXECUTE of it (src/execvars.c): which expressions name a lone variable,
 * which of the values a variable is given may reach an EXECUTE at a step
 * of the walk, and one not constant among them leaving no constant, and
 * the values built of pieces appended to it.  The
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

/* The values a lookup gives, each "sql{parts in hex}", joined by " | "
 * into out; how many. */
static char described[4096];
static int lookup_from(cgm_exec_vars *v, const char *expr, int from, int at, int loop_end)
{
	cgm_exec_value *values;
	uint64_t all;
	int n = cgm_exec_vars_lookup(v, expr, from, at, loop_end, &values, &all);
	described[0] = '\0';
	uint64_t parts = 0;
	for (int k = 0; k < n; k++) {
		size_t len = strlen(described);
		snprintf(described + len, sizeof described - len, "%s%s{%llx}", k ? " | " : "",
			 values[k].sql, (unsigned long long)values[k].parts);
		parts |= values[k].parts;
	}
	assert_true(parts == all);
	if (n == 0)
		assert_null(values);
	return n;
}

/* lookup at step `at`, no loop around it, from entry */
static int at_step(cgm_exec_vars *v, const char *expr, int at)
{
	return lookup_from(v, expr, CGM_EXEC_VARS_ENTRY, at, at);
}

static void test_constants(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_exec_vars *v = cgm_exec_vars_new(arena);
	assert_int_equal(at_step(v, "q", 100), 0); /* never given anything */

	cgm_exec_vars_set(v, "q", CGM_EXEC_VARS_ENTRY, "SELECT a()");
	cgm_exec_vars_set(v, "Q", 10, "SELECT b()");
	cgm_exec_vars_set(v, "q", 20, "SELECT a()"); /* once */
	assert_int_equal(at_step(v, "(Q)", 100), 2);
	assert_string_equal(described, "SELECT a(){5} | SELECT b(){2}");
	/* at step 5 only the default has been given */
	assert_int_equal(at_step(v, "q", 5), 1);
	assert_string_equal(described, "SELECT a(){1}");
	/* from step 10 (an assignment that surely reaches): not the default */
	assert_int_equal(lookup_from(v, "q", 10, 15, 15), 1);
	assert_string_equal(described, "SELECT b(){1}");

	/* a value not constant that may reach: nothing known; one given
	 * after, outside any loop around the EXECUTE, does not reach it */
	cgm_exec_vars_set(v, "built", 30, "SELECT c()");
	cgm_exec_vars_set(v, "built", 50, NULL);
	assert_int_equal(at_step(v, "built", 40), 1);
	assert_string_equal(described, "SELECT c(){1}");
	assert_int_equal(at_step(v, "built", 60), 0);
	/* ... unless a loop around the EXECUTE holds it: the way back */
	assert_int_equal(lookup_from(v, "built", CGM_EXEC_VARS_ENTRY, 40, 55), 0);
	assert_int_equal(lookup_from(v, "built", CGM_EXEC_VARS_ENTRY, 40, 45), 1);
	/* a parameter's value: never constant */
	cgm_exec_vars_set(v, "p", CGM_EXEC_VARS_ENTRY, NULL);
	cgm_exec_vars_set(v, "p", 70, "SELECT d()");
	assert_int_equal(at_step(v, "p", 80), 0);

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
		snprintf(sql, sizeof sql, "SELECT f%d(){1}", i);
		assert_int_equal(at_step(v, name, 5000), 1);
		assert_string_equal(described, sql);
	}
	assert_int_equal(at_step(v, "q", 100), 2);
	assert_int_equal(at_step(NULL, "q", 100), 0);
	cgm_exec_vars_release(v);
	cgm_arena_free(arena);
}

/* Pieces appended (`q := q || ' AND b'`): each value given, then each
 * with any of the pieces after it, in their order; bounded. */
static void test_appended(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_exec_vars *v = cgm_exec_vars_new(arena);
	cgm_exec_vars_set(v, "q", 10, "S");
	cgm_exec_vars_append(v, "q", 20, "a");
	cgm_exec_vars_append(v, "q", 30, "b");
	assert_int_equal(at_step(v, "q", 40), 4);
	assert_string_equal(described, "S{1} | Sa{3} | Sb{5} | Sab{7}");
	/* the last value set before the EXECUTE: pieces pass over */
	int set_at;
	assert_string_equal(cgm_exec_vars_last_before(v, "q", 40, &set_at), "S");
	assert_int_equal(set_at, 10);
	/* a piece appended after the EXECUTE, inside a loop around it */
	assert_int_equal(lookup_from(v, "q", CGM_EXEC_VARS_ENTRY, 25, 35), 4);
	/* two values set, a piece after both */
	cgm_exec_vars_set(v, "q", 50, "T");
	cgm_exec_vars_append(v, "q", 60, "c");
	assert_int_equal(lookup_from(v, "q", 50, 70, 70), 2);
	assert_string_equal(described, "T{1} | Tc{3}");
	/* the same text two ways: one value, both ways' parts */
	cgm_exec_vars_set(v, "same", 10, "Sa");
	cgm_exec_vars_set(v, "same", 20, "S");
	cgm_exec_vars_append(v, "same", 30, "a");
	assert_int_equal(at_step(v, "same", 40), 3);
	assert_string_equal(described, "Sa{7} | S{2} | Saa{5}");
	/* a piece appended to nothing known (a NULL default): no value */
	cgm_exec_vars_append(v, "late", 10, "x");
	cgm_exec_vars_set(v, "late", 20, "L");
	assert_int_equal(at_step(v, "late", 30), 1);
	assert_string_equal(described, "L{2}");
	/* a piece built at run time: nothing known */
	cgm_exec_vars_set(v, "run", 10, "S");
	cgm_exec_vars_append(v, "run", 20, NULL);
	assert_int_equal(at_step(v, "run", 30), 0);

	/* the EXECUTEs that the same values reach share one lookup's */
	cgm_exec_value *first, *again;
	uint64_t all;
	assert_int_equal(cgm_exec_vars_lookup(v, "q", CGM_EXEC_VARS_ENTRY, 35, 35, &first, &all), 4);
	assert_int_equal(cgm_exec_vars_lookup(v, "q", CGM_EXEC_VARS_ENTRY, 40, 40, &again, &all), 4);
	assert_ptr_equal(first, again);
	assert_int_equal(cgm_exec_vars_lookup(v, "q", CGM_EXEC_VARS_ENTRY, 25, 25, &again, &all), 2);
	assert_int_equal(all, 3);

	/* many pieces: at most CGM_EXEC_VALUES_MAX values, every piece in one */
	char piece[16];
	cgm_exec_vars_set(v, "many", 0, "S");
	for (int i = 1; i <= 20; i++) {
		snprintf(piece, sizeof piece, "%c", 'a' + i - 1);
		cgm_exec_vars_append(v, "many", i, cgm_arena_strdup(arena, piece));
	}
	int n = at_step(v, "many", 100);
	assert_true(n > 1 && n <= 64);
	assert_non_null(strstr(described, "Sabcdefghijklmnopqrst{1fffff}"));
	/* more parts than CGM_EXEC_PARTS_MAX: nothing known */
	for (int i = 21; i <= 64; i++)
		cgm_exec_vars_append(v, "many", i, "z");
	assert_int_equal(at_step(v, "many", 100), 0);
	cgm_exec_vars_release(v);
	cgm_arena_free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_appended),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
