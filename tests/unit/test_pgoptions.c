/*
 * test_pgoptions.c - one setting read from a session's options as
 * PGOPTIONS gives them (pgoptions.h): the forms the server reads, its
 * escapes and its last-one-wins rule, and what is not a setting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pgoptions.h"

static void expect_setting(const char *options, const char *want)
{
	char value[256];
	assert_int_equal(cgm_pgoptions_setting(value, sizeof value, options, "search_path"), 1);
	assert_string_equal(value, want);
}

static void expect_none(const char *options)
{
	char value[256];
	assert_int_equal(cgm_pgoptions_setting(value, sizeof value, options, "search_path"), 0);
	assert_string_equal(value, "");
}

static void test_forms(void **state)
{
	(void)state;
	expect_setting("-c search_path=app,public", "app,public");
	expect_setting("-csearch_path=app", "app");
	expect_setting("--search_path=app", "app");
	expect_setting("--search-path=app", "app");
	expect_setting("-c SEARCH_PATH=App", "App");
	expect_setting("  -c   search_path=app  ", "app");
	expect_setting("-c search_path=", "");
}

static void test_escapes_and_order(void **state)
{
	(void)state;
	expect_setting("-c search_path=app,\\ public", "app, public");
	expect_setting("-c search_path=\"My\\ Schema\",public", "\"My Schema\",public");
	expect_setting("-c search_path=a -c search_path=b", "b");
	expect_setting("-c statement_timeout=0 -c search_path=app -c work_mem=64MB", "app");
}

static void test_not_a_setting(void **state)
{
	(void)state;
	expect_none(NULL);
	expect_none("");
	expect_none("-c search_paths=app");
	expect_none("-c search_path");
	expect_none("search_path=app");
	expect_none("-c work_mem=64MB");
	/* The value of another setting names it, and is no setting. */
	expect_none("-c application_name=search_path=app");
	/* -c with nothing after it waits for a word that never comes. */
	expect_none("-c");
}

static void test_too_long(void **state)
{
	(void)state;
	char value[8];
	assert_int_equal(cgm_pgoptions_setting(value, sizeof value, "-c search_path=app,public", "search_path"),
			 -1);
	assert_string_equal(value, "");
	/* A later value that fits wins over one that did not. */
	assert_int_equal(cgm_pgoptions_setting(value, sizeof value, "-c search_path=app,public -c search_path=app",
					       "search_path"),
			 1);
	assert_string_equal(value, "app");
	/* A word longer than the reader's own buffer is cut and refused. */
	char options[3000] = "-c search_path=";
	memset(options + strlen(options), 'a', 2500);
	options[sizeof options - 1] = '\0';
	char big[4096];
	assert_int_equal(cgm_pgoptions_setting(big, sizeof big, options, "search_path"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_escapes_and_order),
		cmocka_unit_test(test_not_a_setting),
		cmocka_unit_test(test_too_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
