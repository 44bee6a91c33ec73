/*
 * test_doeval.c - the IF conditions the SQL files decide (doeval.h): 1
 * when PostgreSQL 15 takes the branch, 0 when it does not (false or
 * NULL), -1 when the files cannot tell.  Each decided answer below is the
 * one `DO $$ BEGIN IF <condition> THEN ... END IF; END $$` gave.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "doeval.h"

static void test_text_comparisons(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition("'a' = 'a'"), 1);
	assert_int_equal(cgm_do_eval_condition("(UPPER('function') = 'FUNCTION')"), 1);
	assert_int_equal(cgm_do_eval_condition("pg_catalog.lower('VIEW') <> 'view'"), 0);
	assert_int_equal(cgm_do_eval_condition("'x' != 'y'"), 1);
	/* The order of texts is the collation's; non-ASCII case too. */
	assert_int_equal(cgm_do_eval_condition("'a' < 'b'"), -1);
	assert_int_equal(cgm_do_eval_condition("lower('\xc3\x89t\xc3\xa9') = '\xc3\xa9t\xc3\xa9'"), -1);
	assert_int_equal(cgm_do_eval_condition("'a'::text = 'a'::varchar"), 1);
}

static void test_numbers_and_booleans(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition("2 > 5"), 0);
	assert_int_equal(cgm_do_eval_condition("-1 <= 0"), 1);
	/* A quoted literal against an integer is the integer it spells. */
	assert_int_equal(cgm_do_eval_condition("'5' = 5"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' = 5"), -1);
	assert_int_equal(cgm_do_eval_condition("'7'::integer >= 7"), 1);
	assert_int_equal(cgm_do_eval_condition("'off'"), 0);
	assert_int_equal(cgm_do_eval_condition("('true')"), 1);
	assert_int_equal(cgm_do_eval_condition("'yes'::boolean = true"), 1);
	assert_int_equal(cgm_do_eval_condition("1.5 > 1"), -1);
}

static void test_arrays(void **state)
{
	(void)state;
	/* array_length of an empty array is NULL: not taken. */
	assert_int_equal(cgm_do_eval_condition("array_length('{}'::text[], 1) > 0"), 0);
	assert_int_equal(cgm_do_eval_condition("array_length('{a,\"b,c\"}'::text[], 1) = 2"), 1);
	assert_int_equal(cgm_do_eval_condition("cardinality('{}'::text[]) = 0"), 1);
	assert_int_equal(cgm_do_eval_condition("array_length('{{a},{b}}'::text[], 1) = 2"), -1);
	assert_int_equal(cgm_do_eval_condition("array_length('{a}'::text[], 2) IS NULL"), -1);
	/* Arrays equal as arrays may be spelt apart as texts. */
	assert_int_equal(cgm_do_eval_condition("'{a, b}'::text[] = '{a,b}'::text[]"), -1);
}

/* LIKE, ILIKE and their NOT, || and quote_ident(): PostGIS topology's
 * AddToSearchPath() tests `cur_path LIKE '%' || quote_ident(schema) ||
 * '%'` before it adds its schema to the database's search_path. */
static void test_like_and_concatenation(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition("'\"$user\", public' LIKE '%' || quote_ident('topology') || '%'"), 0);
	assert_int_equal(cgm_do_eval_condition("'\"$user\", public, topology' LIKE '%' || "
					       "pg_catalog.quote_ident('topology') || '%'"), 1);
	assert_int_equal(cgm_do_eval_condition("'abc' LIKE 'a_c'"), 1);
	assert_int_equal(cgm_do_eval_condition("'abc' NOT LIKE 'a%'"), 0);
	assert_int_equal(cgm_do_eval_condition("'ABC' ILIKE 'a%c'"), 1);
	assert_int_equal(cgm_do_eval_condition("'a%c' LIKE 'a\\%c'"), 1);
	assert_int_equal(cgm_do_eval_condition("'abc' LIKE 'a\\%c'"), 0);
	assert_int_equal(cgm_do_eval_condition("'aXbXc' LIKE '%X%X%'"), 1);
	assert_int_equal(cgm_do_eval_condition("'aaa' LIKE '%a%a%a%a'"), 0);
	assert_int_equal(cgm_do_eval_condition("'\xc3\xa9' LIKE '_'"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' || 1 = 'x1'"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' || NULL = 'x'"), 0);
	assert_int_equal(cgm_do_eval_condition("quote_ident('My Schema') = '\"My Schema\"'"), 1);
	/* A non-ASCII letter without case is the collation's. */
	assert_int_equal(cgm_do_eval_condition("'\xc3\x89' ILIKE '\xc3\xa9'"), -1);
}

static void test_three_valued_logic(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition("NULL = 'a'"), 0);
	assert_int_equal(cgm_do_eval_condition("NOT (NULL = 'a')"), 0);
	assert_int_equal(cgm_do_eval_condition("NULL IS NULL AND 'a' IS NOT NULL"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' IN ('a', 'x')"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' NOT IN ('a', 'b')"), 1);
	assert_int_equal(cgm_do_eval_condition("'x' NOT IN ('a', NULL)"), 0);
	/* What is not known decides only where it cannot matter. */
	assert_int_equal(cgm_do_eval_condition("false AND found"), 0);
	assert_int_equal(cgm_do_eval_condition("true OR v > 1"), 1);
	assert_int_equal(cgm_do_eval_condition("true AND found"), -1);
	assert_int_equal(cgm_do_eval_condition("NULL OR v"), -1);
}

static void test_what_cannot_be_told(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition("EXISTS (SELECT 1 FROM pg_proc)"), -1);
	assert_int_equal(cgm_do_eval_condition("current_setting('server_version_num')::int >= 150000"), -1);
	assert_int_equal(cgm_do_eval_condition("v ~* 'serial'"), -1);
	assert_int_equal(cgm_do_eval_condition("x IS NULL"), -1);
	assert_int_equal(cgm_do_eval_condition("1 = 1; DROP TABLE t"), -1);
	assert_int_equal(cgm_do_eval_condition("1 = 1 FROM pg_class"), -1);
	assert_int_equal(cgm_do_eval_condition(""), -1);
	assert_int_equal(cgm_do_eval_condition("("), -1);
	assert_int_equal(cgm_do_eval_condition(NULL), -1);
}

/* The extensions the files made: pgcrypto alone. */
static int made(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "pgcrypto") == 0;
}

static const cgm_do_catalog catalog = { .has_extension = made, .server_major = 15 };

/* Subqueries of pg_extension by name, as PostgreSQL 15 answered them in a
 * database with pgcrypto and no other extension but plpgsql. */
static void test_extension_subqueries(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto')",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("NOT EXISTS (SELECT * FROM pg_catalog.pg_extension e "
						  "WHERE 'postgis' = e.extname::text)", &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT count(*) FROM pg_extension WHERE extname = 'hstore') > 0",
						  &catalog), 0);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT count(*) = 1 FROM pg_extension WHERE extname = 'pgcrypto')",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT extname FROM pg_extension WHERE extname = 'hstore') IS NULL",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT extname FROM pg_extension WHERE extname = 'pgcrypto') "
						  "= 'pgcrypto'", &catalog), 1);
	/* Without the files' catalog, or reading more than a name: unknown. */
	assert_int_equal(cgm_do_eval_condition("EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto')"), -1);
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT 1 FROM pg_extension WHERE extversion = '1.3')",
						  &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto' "
						  "AND extversion = '1.3')", &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT 1 FROM pg_extension, pg_namespace "
						  "WHERE extname = 'pgcrypto')", &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT 1 FROM app.pg_extension WHERE extname = 'x')",
						  &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT extversion FROM pg_extension WHERE extname = 'pgcrypto') "
						  "IS NULL", &catalog), -1);
	/* an aggregate has its one row: EXISTS of it holds, max() of no rows is NULL */
	assert_int_equal(cgm_do_eval_condition_in("EXISTS (SELECT max(extname) FROM pg_extension WHERE extname = 'hstore')",
						  &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT max(extname) FROM pg_extension WHERE extname = 'hstore') "
						  "IS NULL", &catalog), -1);
}

/* The server's version, for files that stand for PostgreSQL 15: decided
 * where every 15.x decides alike (PostgreSQL 15.20 took the same branches). */
static void test_server_version(void **state)
{
	(void)state;
	assert_int_equal(cgm_do_eval_condition_in("current_setting('server_version_num')::int < 90600", &catalog), 0);
	assert_int_equal(cgm_do_eval_condition_in("pg_catalog.current_setting('server_version_num')::integer >= 120000",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("current_setting('server_version_num', true)::int < 160000",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("(SELECT current_setting('server_version_num')::int) >= 100000",
						  &catalog), 1);
	assert_int_equal(cgm_do_eval_condition_in("current_setting('server_version_num')::int >= 140000 AND "
						  "EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto')",
						  &catalog), 1);
	/* A release of 15 the files cannot tell, another setting, no major. */
	assert_int_equal(cgm_do_eval_condition_in("current_setting('server_version_num')::int >= 150004", &catalog),
			 -1);
	assert_int_equal(cgm_do_eval_condition_in("current_setting('server_version_num') = '150000'", &catalog), -1);
	assert_int_equal(cgm_do_eval_condition_in("current_setting('work_mem') = '4MB'", &catalog), -1);
	assert_int_equal(cgm_do_eval_condition("current_setting('server_version_num')::int < 90600"), -1);
}

/* SELECT ... INTO and PERFORM of pg_extension: the value stored, FOUND. */
static void test_extension_queries(void **state)
{
	(void)state;
	char *text;
	bool found;
	assert_int_equal(cgm_do_eval_query("SELECT count(*) = 1 AS installed FROM pg_extension "
					   "WHERE extname = 'pgcrypto'", &catalog, &text, &found), 1);
	assert_string_equal(text, "true");
	assert_true(found);
	free(text);
	assert_int_equal(cgm_do_eval_query("SELECT count(*) FROM pg_extension WHERE extname = 'hstore'", &catalog,
					   &text, &found), 1);
	assert_string_equal(text, "0");
	assert_true(found); /* an aggregate's one row */
	free(text);
	assert_int_equal(cgm_do_eval_query("SELECT extname FROM pg_extension WHERE extname = 'hstore'", &catalog,
					   &text, &found), 1);
	assert_null(text);
	assert_false(found);
	assert_int_equal(cgm_do_eval_query("SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto'", &catalog, &text,
					   &found), 1);
	assert_string_equal(text, "1");
	assert_true(found);
	free(text);
	assert_int_equal(cgm_do_eval_query("SELECT extversion FROM pg_extension WHERE extname = 'pgcrypto'",
					   &catalog, &text, &found), -1);
	assert_null(text);
	assert_int_equal(cgm_do_eval_query("SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto' LIMIT 1",
					   &catalog, &text, &found), -1);
	assert_int_equal(cgm_do_eval_query("SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto'; SELECT 2",
					   &catalog, &text, &found), -1);
	assert_int_equal(cgm_do_eval_query("SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto'", NULL, &text,
					   &found), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_comparisons),
		cmocka_unit_test(test_numbers_and_booleans),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_like_and_concatenation),
		cmocka_unit_test(test_three_valued_logic),
		cmocka_unit_test(test_what_cannot_be_told),
		cmocka_unit_test(test_extension_subqueries),
		cmocka_unit_test(test_extension_queries),
		cmocka_unit_test(test_server_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
