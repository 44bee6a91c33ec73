/*
 * test_sqlprep.c - SQL text made ready for libpg_query: strings continued
 * after a comment, and the limits on comment nesting, operator runs and
 * statement depth, alone and as the SQL-file source applies them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgmap/limits.h"
#include "cgmap/pipeline.h"
#include "sqlprep.h"

/* prefix, `term` n times joined by `op`, suffix (heap). */
static char *chain(const char *prefix, const char *term, const char *op, int n, const char *suffix)
{
	size_t len = strlen(prefix) + (size_t)n * (strlen(term) + strlen(op)) + strlen(suffix) + 1;
	char *s = malloc(len), *p = s;
	assert_non_null(s);
	p = stpcpy(p, prefix);
	for (int i = 0; i < n; i++) {
		if (i)
			p = stpcpy(p, op);
		p = stpcpy(p, term);
	}
	strcpy(p, suffix);
	return s;
}

static void expect_blanked(const char *in, const char *out)
{
	char *s = strdup(in);
	cgm_sql_blank_continuations(s);
	assert_string_equal(s, out);
	free(s);
}

static void test_blank_continuations(void **state)
{
	expect_blanked("SELECT 'a' -- c\n  'b'", "SELECT 'a'     \n  'b'");
	expect_blanked("SELECT 'a' -- c\n -- d\n'b', 1", "SELECT 'a'     \n     \n'b', 1");
	/* Not a continuation: no newline, no quote next, a prefixed literal,
	 * a dollar-quoted string, inside quotes. */
	expect_blanked("SELECT 'a' -- c", "SELECT 'a' -- c");
	expect_blanked("SELECT 'a' -- c\n, 'b'", "SELECT 'a' -- c\n, 'b'");
	expect_blanked("SELECT 'a' -- c\n E'b'", "SELECT 'a' -- c\n E'b'");
	expect_blanked("SELECT $$a$$ -- c\n 'b'", "SELECT $$a$$ -- c\n 'b'");
	expect_blanked("SELECT $$ 'a' -- c\n 'b' $$", "SELECT $$ 'a' -- c\n 'b' $$");
	expect_blanked("SELECT 'it''s' -- c\n 'b'", "SELECT 'it''s'     \n 'b'");
}

static void expect_refused(const char *text, unsigned what, const char *message)
{
	cgm_sql_problem p;
	if (cgm_sql_check(text, what, &p))
		fail_msg("accepted, expected '%s'", message);
	if (!strstr(p.message, message))
		fail_msg("'%s', expected '%s'", p.message, message);
}

static void expect_accepted(const char *text, unsigned what)
{
	cgm_sql_problem p;
	if (!cgm_sql_check(text, what, &p))
		fail_msg("refused at %d: %s", p.offset, p.message);
}

static void test_lexer_limits(void **state)
{
	const unsigned lex = CGM_SQL_CHECK_LEXER;
	char *s = chain("SELECT 1 ", "/*", "", CGM_MAX_COMMENT_NESTING + 1, "");
	expect_refused(s, lex, "comments nested deeper than 256 levels");
	cgm_sql_problem p;
	assert_false(cgm_sql_check(s, lex, &p));
	assert_int_equal(p.offset, 9 + 2 * CGM_MAX_COMMENT_NESTING);
	free(s);
	s = chain("SELECT 1 ", "/* ", "", CGM_MAX_COMMENT_NESTING, "");
	expect_accepted(s, lex);
	free(s);
	/* Comments opened and closed in one run, rescanned for each opening. */
	s = chain("SELECT 1 ", "/**/", "", 2000, " ");
	expect_refused(s, lex, "comment openings repeated");
	free(s);
	/* A banner is one opening. */
	s = chain("SELECT 1 /", "*", "", 20000, "/");
	expect_accepted(s, lex);
	free(s);
	s = chain("SELECT 1 ", "+-", "", CGM_MAX_OPERATOR_RUN / 2 + 1, "1");
	expect_refused(s, lex, "a run of more than 1024 operator characters");
	free(s);
	/* Inside quotes and -- comments nothing counts. */
	s = chain("SELECT '", "/*", "", 10000, "' -- /*/*/*/*\n");
	expect_accepted(s, lex);
	free(s);
}

static void test_depth_estimate(void **state)
{
	const unsigned depth = CGM_SQL_CHECK_DEPTH;
	char *s = chain("SELECT ", "1", "+", CGM_MAX_NESTING_ESTIMATE + 2, "");
	expect_refused(s, depth, "statement nested deeper than 10000 levels");
	free(s);
	s = chain("SELECT ", "1", "+", 4000, "");
	expect_accepted(s, depth);
	free(s);
	/* Set operations chain across the commas of their target lists. */
	s = chain("SELECT 1", ", 2 UNION SELECT 1", "", 12000, "");
	expect_refused(s, depth, "nested deeper");
	free(s);
	s = chain("SELECT ", "(", "", 6000, "1");
	expect_refused(s, depth, "nested deeper");
	free(s);
	s = chain("SELECT ", "CASE WHEN true THEN ", "", 6000, "1");
	expect_refused(s, depth, "nested deeper");
	free(s);
	/* Flat lists of any length: target lists, AND, CASE branches,
	 * statements of a file. */
	s = chain("SELECT ", "a + b", ", ", 50000, "");
	expect_accepted(s, depth);
	free(s);
	s = chain("SELECT 1 WHERE ", "a = 1", " AND ", 50000, "");
	expect_accepted(s, depth);
	free(s);
	s = chain("SELECT CASE x", " WHEN 1 THEN 'a'", "", 50000, " END");
	expect_accepted(s, depth);
	free(s);
	s = chain("", "SELECT a + b + c", "; ", 50000, ";");
	expect_accepted(s, depth);
	free(s);
}

/* The SQL-file source: a statement past a limit is an error of that
 * statement (file and line), and everything else is applied. */
static void test_sql_file_statements_past_limits(void **state)
{
	char dir[256], path[300];
	snprintf(dir, sizeof dir, "%s/cgmap-sqlprep-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/schema.sql", dir);
	char *deep = chain("CREATE TABLE t (a int DEFAULT ", "1", "+", 200000, ");\n");
	char *atomic = chain("CREATE FUNCTION public.atomic() RETURNS int LANGUAGE sql\nBEGIN ATOMIC SELECT ", "1", "+",
			     200000, "; END;\n");
	char *open = chain("CREATE VIEW v AS SELECT 1 ", "/*", "", 32000, "");
	char *comments = chain(open, "*/", "", 32000, ";\n");
	free(open);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"CREATE FUNCTION public.before_it() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n" /* 1 */
		"%s"                                                                            /* 2 */
		"%s"                                                                            /* 3, 4: its body */
		"COMMENT ON FUNCTION public.before_it() IS 'a' -- c\n"                          /* 5 */
		"  'b';\n"                                                                      /* 6 */
		"%s"                                                                            /* 7 */
		"CREATE FUNCTION public.after_it() RETURNS int LANGUAGE sql AS $$ SELECT public.before_it() $$;\n",
		deep, atomic, comments);
	fclose(f);
	free(deep);
	free(atomic);
	free(comments);

	cgm_model *m = cgm_model_new();
	const char *paths[] = { path };
	assert_int_equal(cgm_source_sql_load(m, paths, 1, NULL), 0);
	cgm_model_index(m);
	assert_true(cgm_model_find(m, "public.before_it()") >= 0);
	assert_true(cgm_model_find(m, "public.after_it()") >= 0);
	assert_int_equal(m->ndiagnostics, 3);
	int lines[] = { 2, 4, 7 };
	const char *messages[] = { "statement nested deeper than 10000 levels",
				   "statement nested deeper than 10000 levels",
				   "comments nested deeper than 256 levels" };
	for (int i = 0; i < 3; i++) {
		if (m->diagnostics[i].line != lines[i] || !strstr(m->diagnostics[i].message, messages[i]))
			fail_msg("diagnostic %d: line %d: %s", i, m->diagnostics[i].line, m->diagnostics[i].message);
		assert_non_null(strstr(m->diagnostics[i].file, "schema.sql"));
	}
	const cgm_function *b = &m->functions[cgm_model_find(m, "public.before_it()")];
	assert_string_equal(b->comment, "ab");
	cgm_model_free(m);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blank_continuations),
		cmocka_unit_test(test_lexer_limits),
		cmocka_unit_test(test_depth_estimate),
		cmocka_unit_test(test_sql_file_statements_past_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
