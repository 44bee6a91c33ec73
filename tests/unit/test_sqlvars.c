/*
 * test_sqlvars.c - psql's variables in SQL files: \set and \unset as psql
 * parses their arguments, substitution where psql substitutes and nowhere
 * else (through the SQL source: test_sqlfile.c's test_psql_variables).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/error.h"
#include "cgmap/limits.h"
#include "cgmap/strbuf.h"
#include "sqlvars.h"

/* text substituted with vars, "" when unchanged (the caller frees it). */
static char *sub(const char *text, cgm_psql_vars *vars)
{
	char *out = cgm_psql_substitute(text, vars, NULL);
	return out ? out : strdup("");
}

static void expect(const char *text, cgm_psql_vars *vars, const char *want)
{
	char *got = sub(text, vars);
	if (strcmp(got, want) != 0)
		fail_msg("%s\n  gave: %s\n  want: %s", text, got, want);
	free(got);
}

static void test_references(void **state)
{
	(void)state;
	cgm_psql_vars v = { 0 };
	cgm_psql_vars_set(&v, "s", 1, "app");
	cgm_psql_vars_set(&v, "q", 1, "it's");
	cgm_psql_vars_set(&v, "b", 1, "a\\b");
	cgm_psql_vars_set(&v, "id", 2, "My \"T\"");
	expect("SELECT :s.f();", &v, "SELECT app.f();");
	expect("SELECT :'q', :'b', :\"id\";", &v, "SELECT 'it''s',  E'a\\\\b', \"My \"\"T\"\"\";");
	expect("SELECT :{?s}, :{?nope};", &v, "SELECT TRUE, FALSE;");
	/* Not set: as written; casts, quotes, dollar quotes and comments: as
	 * written; unchanged text gives NULL. */
	expect("SELECT :nope, 1::int, x::s;", &v, "");
	expect("SELECT ':s', \":s\", $$ :s $$, $f$:s$f$ -- :s\n /* :s */;", &v, "");
	expect("SELECT arr[1:s];", &v, "SELECT arr[1app];");
	/* COPY's data lines are data. */
	expect("COPY t FROM stdin;\n:s\n\\.\nSELECT :s;", &v, "COPY t FROM stdin;\n:s\n\\.\nSELECT app;");
	/* Without any variable, :{?x} still answers. */
	cgm_psql_vars none = { 0 };
	expect("SELECT :{?x} AND :x;", &none, "SELECT FALSE AND :x;");
	cgm_psql_vars_free(&v);
}

static void test_set_and_unset(void **state)
{
	(void)state;
	cgm_psql_vars v = { 0 };
	char *out = sub("\\set a one\n"
			"\\set b 'two words' three\n"
			"\\set c 'it''s\\n\\t\\101\\x42\\q'\n"
			"\\set d \"Quoted\" :a\n"
			"\\set e\n"
			"\\set f `date`\n"
			"\\set g x \\\\ SELECT 1;\n"
			"\\setenv h y\n"
			"\\set 'bad name' z\n"
			"SELECT :a, :b, :'c', :d, :'e', :f, :g;\n"
			"\\unset a\n"
			"SELECT :a;\n",
			&v);
	/* The lines stay for psql's stripping; the uses after them change. */
	const char *select = strstr(out, "SELECT one, two wordsthree, 'it''s\n\tAB" "q', \"Quoted\"one, '', :f, x;");
	if (!select)
		fail_msg("got: %s", out);
	assert_non_null(strstr(out, "\\unset a\nSELECT :a;\n"));
	assert_non_null(strstr(out, "\\set a one\n"));
	assert_null(cgm_psql_vars_get(&v, "a", 1));
	assert_null(cgm_psql_vars_get(&v, "f", 1)); /* from a shell: not known */
	assert_null(cgm_psql_vars_get(&v, "h", 1)); /* \setenv is another command */
	assert_string_equal(cgm_psql_vars_get(&v, "e", 1), "");
	free(out);
	/* An include's file name gets the variables too. */
	cgm_psql_vars_set(&v, "dir", 3, "sql/v2");
	expect("\\i :dir/a.sql\n\\ir ':dir'/b.sql\n", &v, "\\i sql/v2/a.sql\n\\ir ':dir'/b.sql\n");
	cgm_psql_vars_free(&v);

	cgm_psql_vars w = { 0 };
	assert_int_equal(cgm_psql_vars_assign(&w, "schema=app=1"), 0);
	assert_string_equal(cgm_psql_vars_get(&w, "schema", 6), "app=1");
	assert_int_equal(cgm_psql_vars_assign(&w, "empty="), 0);
	assert_string_equal(cgm_psql_vars_get(&w, "empty", 5), "");
	assert_int_equal(cgm_psql_vars_assign(&w, "no value"), CGM_EUSAGE);
	assert_int_equal(cgm_psql_vars_assign(&w, "=x"), CGM_EUSAGE);
	assert_int_equal(cgm_psql_vars_assign(&w, "a b=x"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "'a b=x'"));
	cgm_psql_vars_free(&w);
}

/* The number of newlines in s. */
static int lines_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* psql's conditionals: the branch that runs stays, the others are blank
 * lines (so lines still match the file); nothing in a branch that does
 * not run is set, substituted or included. */
static void test_conditionals(void **state)
{
	(void)state;
	cgm_psql_vars v = { 0 };
	cgm_psql_vars_set(&v, "on", 2, "yes");
	const char *text = "\\if :on\n"
			   "A;\n"
			   "\\elif true\n"
			   "B;\n"
			   "\\else\n"
			   "C; \\set never 1\n"
			   "\\i skipped.sql\n"
			   "\\endif\n"
			   "\\if OFF\n"
			   "  \\if true\n"
			   "  D;\n"
			   "  \\endif\n"
			   "  SELECT '\\endif';\n"
			   "\\elif 'T'\n"
			   "E :on;\n"
			   "\\endif\n"
			   "\\if maybe\n"
			   "F;\n"
			   "\\elif :{?never}\n"
			   "G;\n"
			   "\\else\n"
			   "H;\n"
			   "\\endif\n"
			   "\\endif\n"
			   "\\else\n"
			   "I;\n";
	char *out = cgm_psql_substitute(text, &v, NULL);
	assert_non_null(out);
	assert_int_equal(lines_of(out), lines_of(text));
	const char *kept[] = { "A;", "E yes;", "H;", "I;" };
	for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
		if (!strstr(out, kept[k]))
			fail_msg("'%s' not kept in:\n%s", kept[k], out);
	const char *gone[] = { "B;", "C;", "skipped.sql", "D;", "SELECT", "F;", "G;" };
	for (size_t k = 0; k < sizeof gone / sizeof gone[0]; k++)
		if (strstr(out, gone[k]))
			fail_msg("'%s' kept in:\n%s", gone[k], out);
	assert_null(cgm_psql_vars_get(&v, "never", 5));
	/* The conditional lines themselves stay, for psql's stripping. */
	assert_non_null(strstr(out, "\\elif true\n"));
	free(out);
	/* Booleans as psql reads them. */
	const char *yes[] = { "t", "TRUE", "y", "on", "1", "Yes" };
	const char *no[] = { "f", "false", "n", "off", "0", "o", "2", "tru e" };
	for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
		char line[64];
		snprintf(line, sizeof line, "\\if '%s'\nX;\n\\endif\n", yes[k]);
		char *r = cgm_psql_substitute(line, &v, NULL);
		if (r && !strstr(r, "X;"))
			fail_msg("'%s' not true", yes[k]);
		free(r);
	}
	for (size_t k = 0; k < sizeof no / sizeof no[0]; k++) {
		char line[64];
		snprintf(line, sizeof line, "\\if '%s'\nX;\n\\endif\n", no[k]);
		char *r = cgm_psql_substitute(line, &v, NULL);
		if (!r || strstr(r, "X;"))
			fail_msg("'%s' not false", no[k]);
		free(r);
	}
	cgm_psql_vars_free(&v);
}

/* Bounded: a value doubled forty times is unset whenever it would pass
 * its limit, and a file's references stop being substituted once they would
 * add more than their limit (cgmap/limits.h). */
static void test_bounded(void **state)
{
	(void)state;
	cgm_psql_vars v = { 0 };
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&text, "\\set x aaaaaaaaaaaaaaaa\n");
	for (int i = 0; i < 40; i++)
		cgm_strbuf_puts(&text, "\\set x :x:x\n");
	free(cgm_psql_substitute(cgm_strbuf_cstr(&text), &v, NULL));
	/* Unset past the limit, then set again from ":x:x" as written, and
	 * so on: never longer than the limit. */
	const char *x = cgm_psql_vars_get(&v, "x", 1);
	assert_true(!x || strlen(x) <= CGM_MAX_PSQL_VALUE);
	cgm_strbuf_free(&text);

	char *big = malloc(CGM_MAX_PSQL_VALUE + 1);
	memset(big, 'a', CGM_MAX_PSQL_VALUE);
	big[CGM_MAX_PSQL_VALUE] = '\0';
	cgm_psql_vars_set(&v, "big", 3, big);
	free(big);
	size_t refs = CGM_MAX_PSQL_GROWTH / CGM_MAX_PSQL_VALUE + 8;
	for (size_t i = 0; i < refs; i++)
		cgm_strbuf_puts(&text, "SELECT :big;\n");
	char *out = cgm_psql_substitute(cgm_strbuf_cstr(&text), &v, NULL);
	assert_non_null(out);
	assert_true(strlen(out) <= text.len + CGM_MAX_PSQL_GROWTH);
	assert_non_null(strstr(out, "SELECT :big;\n")); /* the last ones, as written */
	assert_non_null(strstr(out, "SELECT aaaa"));
	free(out);
	cgm_strbuf_free(&text);
	cgm_psql_vars_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_set_and_unset),
		cmocka_unit_test(test_conditionals),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
