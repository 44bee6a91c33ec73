/*
 * test_litnames.c - the calls a body names in its string literals
 * (src/litnames.c): inside '...', E'...' and $tag$...$tag$ only, names
 * folded, qualified or not, comments and quoted identifiers outside
 * literals skipped, and no read past the text whatever it holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "litnames.h"

/* Every call named, "schema.name" or "name", joined by spaces. */
static char named[1024];

static void on_call(void *ctx, const char *schema, const char *name)
{
	(void)ctx;
	size_t len = strlen(named);
	snprintf(named + len, sizeof named - len, "%s%s%s%s", len ? " " : "", schema ? schema : "",
		 schema ? "." : "", name);
}

static const char *calls(const char *body)
{
	named[0] = '\0';
	cgm_literal_calls(body, on_call, NULL);
	return named;
}

static void test_named_in_literals(void **state)
{
	(void)state;
	/* E-Maj's script generator: a call in pieces of text */
	assert_string_equal(calls("v := quote_ident(a) || ' = '' || emaj._quote_nullable(o.' || "
				  "quote_ident(b) || '::TEXT) || ''';"),
			    "emaj._quote_nullable");
	/* calls outside literals are the parser's, not these */
	assert_string_equal(calls("PERFORM app.f(1); x := g(2);"), "");
	/* dollar quotes, E'' escapes, spaces before the bracket, folding */
	assert_string_equal(calls("q := $q$SELECT App.Refresh ($1)$q$ || $$, h()$$;"), "app.refresh h");
	assert_string_equal(calls("q := E'SELECT \\'x\\', k(1)';"), "k");
	/* a quoted name as written; the last two of a dotted run */
	assert_string_equal(calls("q := 'SELECT \"Odd\".\"Fn\"(1), db.app.f2()';"), "Odd.Fn app.f2");
	/* comments and quoted identifiers outside literals hide nothing */
	assert_string_equal(calls("-- 'commented(1)'\n/* 'also(2)' /* nested */ */ x := \"it's\" || 'real(3)';"),
			    "real");
	/* a parameter is no dollar quote, a name without a bracket no call */
	assert_string_equal(calls("x := $1 || 'no call here' || $2;"), "");
	assert_string_equal(calls("x := 'SELECT id FROM app.t WHERE x IN (1)';"), "in");
}

static void test_no_read_past_the_text(void **state)
{
	(void)state;
	/* unterminated literals, dollar quotes, comments, names */
	static const char *const broken[] = { "x := 'open(", "x := $t$ f(", "/* 'a(' ", "x := E'\\",
					      "x := '\"open", "x := 'a.", "$", "'", "x := 'a(" };
	for (size_t i = 0; i < sizeof broken / sizeof *broken; i++)
		calls(broken[i]);
	assert_string_equal(calls("x := 'open("), "open");
	/* a name past NAMEDATALEN is none */
	char body[300];
	memset(body, 'a', sizeof body);
	body[0] = '\'';
	body[sizeof body - 3] = '(';
	body[sizeof body - 2] = '\'';
	body[sizeof body - 1] = '\0';
	assert_string_equal(calls(body), "");
	cgm_literal_calls(NULL, on_call, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_in_literals),
		cmocka_unit_test(test_no_read_past_the_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
