/*
 * test_argdefault.c - a parameter's DEFAULT expression read from the
 * arguments as pg_get_function_arguments prints them (argdefault.h):
 * input parameters counted, OUT and TABLE columns skipped, commas and
 * the word DEFAULT inside quotes and parentheses not taken for the
 * list's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cgmap/argdefault.h"

static void expect_default(const char *arguments, int param, const char *want)
{
	const char *expr = NULL;
	size_t len = 0;
	bool found = cgm_argument_default(arguments, param, &expr, &len);
	if (!want) {
		assert_false(found);
		return;
	}
	assert_true(found);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(expr, want, len);
}

static void test_defaults(void **state)
{
	(void)state;
	const char *args = "t_schema text, t_table text, t_additional text DEFAULT ''::text, "
			   "t_pkey text DEFAULT 'id'::text, t_deleted text DEFAULT 'deleted'::text";
	expect_default(args, 0, NULL);
	expect_default(args, 1, NULL);
	expect_default(args, 2, "''::text");
	expect_default(args, 3, "'id'::text");
	expect_default(args, 4, "'deleted'::text");
	expect_default(args, 5, NULL);
}

static void test_out_and_quotes(void **state)
{
	(void)state;
	/* OUT parameters are not inputs: the second input is b. */
	const char *args = "a integer, OUT r integer, b text DEFAULT 'x, DEFAULT y'::text, "
			   "c integer[] DEFAULT ARRAY[1, 2]";
	expect_default(args, 0, NULL);
	expect_default(args, 1, "'x, DEFAULT y'::text");
	expect_default(args, 2, "ARRAY[1, 2]");
	expect_default("", 0, NULL);
	expect_default(NULL, 0, NULL);
	expect_default("n integer DEFAULT f(1, g(2))", 0, "f(1, g(2))");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_out_and_quotes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
