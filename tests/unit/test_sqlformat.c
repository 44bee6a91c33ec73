/*
 * test_sqlformat.c - format(), quote_ident() and quote_literal() before run
 * time.  Every expected text and error below is what PostgreSQL 15 itself
 * returned for the same call (SELECT format(...)), so the rules tested are
 * the server's, not our reading of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cgmap/sqlformat.h"

#define T(s) { CGM_FORMAT_ARG_TEXT, (s) }
#define N { CGM_FORMAT_ARG_NULL, NULL }
#define R { CGM_FORMAT_ARG_RUNTIME, NULL }

static const cgm_format_unknown give_up = { 0, "NULL" };
static const cgm_format_unknown marked = { '?', "'x'" };

/* format(tmpl, args) must give `want` with `result`. */
static void check(const char *tmpl, const cgm_format_arg *args, int nargs,
		  const cgm_format_unknown *unknown, cgm_format_result result, const char *want)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	cgm_format_result got = cgm_sql_format(&out, tmpl, args, nargs, unknown);
	assert_int_equal(got, result);
	if (want)
		assert_string_equal(cgm_strbuf_cstr(&out), want);
	cgm_strbuf_free(&out);
}

static void test_identifiers_quoted_as_the_server_does(void **state)
{
	(void)state;
	/* SELECT format('%I|%I|%I|%I|%I|%I', 'abc', 'Abc', 'select', 'left',
	 * 'a"b', 'x y') */
	const cgm_format_arg args[] = { T("abc"), T("Abc"), T("select"), T("left"), T("a\"b"), T("x y") };
	check("%I|%I|%I|%I|%I|%I", args, 6, &give_up, CGM_FORMAT_KNOWN,
	      "abc|\"Abc\"|\"select\"|\"left\"|\"a\"\"b\"|\"x y\"");
	/* reserved, col-name and type-func-name keywords are quoted,
	 * unreserved ones are not: format('%I', 'user') ... 'abort' */
	const cgm_format_arg kw[] = { T("user"), T("name"), T("int"), T("between"), T("abort") };
	check("%I|%I|%I|%I|%I", kw, 5, &give_up, CGM_FORMAT_KNOWN,
	      "\"user\"|name|\"int\"|\"between\"|abort");
}

static void test_literals_and_nulls(void **state)
{
	(void)state;
	const cgm_format_arg args[] = { T("it's"), T("a\\b"), N };
	check("%L|%L|%L", args, 3, &give_up, CGM_FORMAT_KNOWN, "'it''s'|E'a\\\\b'|NULL");
	const cgm_format_arg nulls[] = { N, N };
	check("[%s][%L]", nulls, 2, &give_up, CGM_FORMAT_KNOWN, "[][NULL]");
	const cgm_format_arg values[] = { T("t"), T("12.5") };
	check("%s %s", values, 2, &give_up, CGM_FORMAT_KNOWN, "t 12.5");
	check("100%% of %s", values, 1, &give_up, CGM_FORMAT_KNOWN, "100% of t");
}

static void test_positions_and_widths(void **state)
{
	(void)state;
	const cgm_format_arg w[] = { T("ab"), T("ab"), T("4"), T("x"), T("4"), T("y"), T("-3"), T("z") };
	check("[%5s][%-5s][%*s][%-*s][%*s]", w, 8, &give_up, CGM_FORMAT_KNOWN,
	      "[   ab][ab   ][   x][y   ][z  ]");
	/* After n$, the next argument is n + 1. */
	const cgm_format_arg abc[] = { T("a"), T("b"), T("c"), T("d") };
	check("%2$s %1$s %s", abc, 3, &give_up, CGM_FORMAT_KNOWN, "b a b");
	check("%3$s %s", abc, 4, &give_up, CGM_FORMAT_KNOWN, "c d");
	const cgm_format_arg qw[] = { T("q"), T("4") };
	check("%1$*2$s|", qw, 2, &give_up, CGM_FORMAT_KNOWN, "   q|");
	/* A NULL width is none; a flag alone changes nothing. */
	const cgm_format_arg nw[] = { N, T("b") };
	check("[%*s]", nw, 2, &give_up, CGM_FORMAT_KNOWN, "[b]");
	check("[%-s|]", abc, 1, &give_up, CGM_FORMAT_KNOWN, "[a|]");
	/* Characters, not bytes, are padded to the width. */
	const cgm_format_arg utf8[] = { T("\xc3\xa9") };
	check("[%3s]", utf8, 1, &give_up, CGM_FORMAT_KNOWN, "[  \xc3\xa9]");
}

static void test_what_the_server_rejects(void **state)
{
	(void)state;
	const cgm_format_arg null[] = { N };
	const cgm_format_arg a[] = { T("a"), T("b") };
	/* null values cannot be formatted as an SQL identifier */
	check("%I", null, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	/* too few arguments for format() */
	check("%s %s", a, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	check("%5$s", a, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	/* unrecognized format() type specifier "x" */
	check("%x", a, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	/* format specifies argument 0, but arguments are numbered from 1 */
	check("%0$s", a, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	/* unterminated format() type specifier */
	check("abc %", a, 1, &give_up, CGM_FORMAT_FAILS, NULL);
	/* invalid input syntax for type integer: "a" (as a width) */
	check("%*s", a, 2, &give_up, CGM_FORMAT_FAILS, NULL);
	/* an argument position past INT_MAX */
	check("%99999999999$s", a, 2, &give_up, CGM_FORMAT_FAILS, NULL);
}

static void test_values_known_only_at_run_time(void **state)
{
	(void)state;
	const cgm_format_arg args[] = { T("app"), R, R };
	/* An identifier known only at run time: no constant SQL... */
	check("SELECT %I.%I(%L)", args, 3, &give_up, CGM_FORMAT_RUNTIME, NULL);
	/* ...but a template with marks for it, the constant parts exact. */
	check("SELECT %I.%I(%L)", args, 3, &marked, CGM_FORMAT_MARKED, "SELECT app.?('x')");
	/* A run-time %L alone: any value stands in for it. */
	const cgm_format_arg lit[] = { T("Mixed"), R };
	check("SELECT %I(%L)", lit, 2, &give_up, CGM_FORMAT_MARKED, "SELECT \"Mixed\"(NULL)");
	/* A run-time width: only spaces unknown, still no constant SQL. */
	const cgm_format_arg width[] = { R, T("f") };
	check("SELECT %*s()", width, 2, &give_up, CGM_FORMAT_RUNTIME, NULL);
	check("SELECT %*s()", width, 2, &marked, CGM_FORMAT_MARKED, "SELECT f()");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identifiers_quoted_as_the_server_does),
		cmocka_unit_test(test_literals_and_nulls),
		cmocka_unit_test(test_positions_and_widths),
		cmocka_unit_test(test_what_the_server_rejects),
		cmocka_unit_test(test_values_known_only_at_run_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
