/*
 * test_types.c - canonical type names, identifier quoting, regprocedure
 * texts and the body hash, checked against what PostgreSQL 15 prints
 * (format_type, quote_ident, ::regprocedure), and the shipped builtins.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cgmap/bodyhash.h"
#include "cgmap/error.h"
#include "cgmap/types.h"

static cgm_arena *arena;

static int setup(void **state)
{
	arena = cgm_arena_new();
	return 0;
}

static int teardown(void **state)
{
	cgm_arena_free(arena);
	return 0;
}

static const char *canon(const char *text)
{
	cgm_type_resolver none = { 0 };
	return cgm_type_canonical_text(arena, text, &none);
}

static void test_catalog_types(void **state)
{
	assert_string_equal(canon("int"), "integer");
	assert_string_equal(canon("int4"), "integer");
	assert_string_equal(canon("integer"), "integer");
	assert_string_equal(canon("pg_catalog.int4"), "integer");
	assert_string_equal(canon("varchar(10)"), "character varying");
	assert_string_equal(canon("character varying"), "character varying");
	assert_string_equal(canon("timestamptz"), "timestamp with time zone");
	assert_string_equal(canon("timestamp(3) with time zone"), "timestamp with time zone");
	assert_string_equal(canon("timestamp"), "timestamp without time zone");
	assert_string_equal(canon("time"), "time without time zone");
	assert_string_equal(canon("int[]"), "integer[]");
	assert_string_equal(canon("int[][]"), "integer[]");
	assert_string_equal(canon("integer array"), "integer[]");
	assert_string_equal(canon("_int4"), "integer[]");
	assert_string_equal(canon("double precision"), "double precision");
	assert_string_equal(canon("float8"), "double precision");
	assert_string_equal(canon("float(10)"), "real");
	assert_string_equal(canon("float"), "double precision");
	assert_string_equal(canon("bool"), "boolean");
	assert_string_equal(canon("boolean"), "boolean");
	assert_string_equal(canon("char(3)"), "character");
	assert_string_equal(canon("\"char\""), "\"char\"");
	assert_string_equal(canon("\"any\""), "\"any\"");
	assert_string_equal(canon("numeric(10,2)"), "numeric");
	assert_string_equal(canon("decimal"), "numeric");
	assert_string_equal(canon("bit varying(3)"), "bit varying");
	assert_string_equal(canon("interval day to second"), "interval");
	assert_string_equal(canon("text"), "text");
	assert_string_equal(canon("jsonb[]"), "jsonb[]");
	assert_string_equal(canon("trigger"), "trigger");
	assert_string_equal(canon("regclass"), "regclass");
	assert_string_equal(canon("pg_class"), "pg_class");
}

static const char *schema_of(void *ctx, const char *name)
{
	return strcmp(name, "status") == 0 ? "app" : NULL;
}

static const char *column_of(void *ctx, const char *const *names, int n)
{
	if (n == 2 && strcmp(names[0], "orders") == 0 && strcmp(names[1], "id") == 0)
		return "bigint";
	return NULL;
}

static void test_user_types(void **state)
{
	cgm_type_resolver r = { schema_of, column_of, NULL, "public" };
	assert_string_equal(cgm_type_canonical_text(arena, "status", &r), "app.status");
	assert_string_equal(cgm_type_canonical_text(arena, "status[]", &r), "app.status[]");
	assert_string_equal(cgm_type_canonical_text(arena, "other.status", &r), "other.status");
	assert_string_equal(cgm_type_canonical_text(arena, "unknown_t", &r), "public.unknown_t");
	assert_string_equal(cgm_type_canonical_text(arena, "\"Odd Schema\".\"My Type\"", &r),
			    "\"Odd Schema\".\"My Type\"");
	assert_string_equal(cgm_type_canonical_text(arena, "Mixed", &r), "public.mixed");
	assert_string_equal(cgm_type_canonical_text(arena, "orders.id%TYPE", &r), "bigint");
	assert_string_equal(cgm_type_canonical_text(arena, "orders.id%type", &r), "bigint");
	assert_null(cgm_type_canonical_text(arena, "orders.nope%TYPE", &r));
	assert_non_null(strstr(cgm_error_message(), "orders.nope"));
	/* Without a resolver an unknown type stays unqualified. */
	assert_string_equal(canon("mytype"), "mytype");
}

static void test_not_a_type(void **state)
{
	assert_null(canon("int; drop table x"));
	assert_non_null(strstr(cgm_error_message(), "is not a type name"));
	assert_null(canon("1 + 2"));
	assert_null(canon(""));
}

/* Type text is canonicalised on the extraction threads while the SQL-file
 * source has jansson's process-wide allocator swapped: reading it must not
 * touch jansson at all. */
static void *refused_alloc(size_t size)
{
	(void)size;
	fail_msg("jansson allocated while type text was read");
	return NULL;
}

static void refused_free(void *p)
{
	(void)p;
	fail_msg("jansson freed while type text was read");
}

static void test_type_text_without_jansson(void **state)
{
	json_set_alloc_funcs(refused_alloc, refused_free);
	const char *a = canon("varchar(10)[]");
	const char *b = canon("app.t.c%TYPE");
	const char *c = canon("int, 2");
	json_set_alloc_funcs(malloc, free);
	assert_string_equal(a, "character varying[]");
	assert_null(b); /* no resolver for columns */
	assert_null(c);
}

static void test_quoting(void **state)
{
	assert_false(cgm_ident_needs_quotes("app"));
	assert_false(cgm_ident_needs_quotes("_x1"));
	assert_false(cgm_ident_needs_quotes("name"));   /* unreserved keyword */
	assert_false(cgm_ident_needs_quotes("trigger"));
	assert_true(cgm_ident_needs_quotes("select"));  /* reserved */
	assert_true(cgm_ident_needs_quotes("integer")); /* column-name keyword */
	assert_true(cgm_ident_needs_quotes("left"));    /* type/function-name keyword */
	assert_true(cgm_ident_needs_quotes("Upper"));
	assert_true(cgm_ident_needs_quotes("1abc"));
	assert_true(cgm_ident_needs_quotes("a$b"));
	assert_true(cgm_ident_needs_quotes(""));
	assert_string_equal(cgm_quote_ident(arena, "Weird \"Name\""), "\"Weird \"\"Name\"\"\"");
	assert_string_equal(cgm_quote_qualified(arena, "Odd Schema", "f"), "\"Odd Schema\".f");
}

static void test_regprocedure(void **state)
{
	const char *args[] = { "integer", "text[]" };
	assert_string_equal(cgm_regprocedure(arena, "app", "fact", args, 1), "app.fact(integer)");
	assert_string_equal(cgm_regprocedure(arena, "app", "log", args, 2),
			    "app.log(integer,text[])");
	assert_string_equal(cgm_regprocedure(arena, "Odd Schema", "Weird \"Name\"", NULL, 0),
			    "\"Odd Schema\".\"Weird \"\"Name\"\"\"()");
	assert_string_equal(cgm_regprocedure(arena, "pg_catalog", "lower", args + 1, 1),
			    "lower(text[])");
	assert_string_equal(cgm_regprocedure(arena, "public", "select", NULL, 0),
			    "public.\"select\"()");
	assert_string_equal(cgm_identity_args(arena, args, 2), "integer,text[]");
	assert_string_equal(cgm_identity_args(arena, args, 0), "");
}

static void test_body_hash(void **state)
{
	const char *a = "begin\n  return f(1); -- call\nend";
	const char *b = "  begin return   f(1);\n/* a /* nested */ comment */ end\n";
	const char *c = "begin return f(2); end";
	assert_string_equal(cgm_body_normalise(arena, a), "begin return f(1); end");
	assert_string_equal(cgm_body_hash(arena, a), cgm_body_hash(arena, b));
	assert_string_not_equal(cgm_body_hash(arena, a), cgm_body_hash(arena, c));
	assert_int_equal(strlen(cgm_body_hash(arena, a)), 32);
	/* Quoted text is kept as is: a space inside a string is a change. */
	assert_string_not_equal(cgm_body_hash(arena, "select 'a  b'"),
				cgm_body_hash(arena, "select 'a b'"));
	assert_string_equal(cgm_body_normalise(arena, "select 'it''s -- no comment'  ,1"),
			    "select 'it''s -- no comment' ,1");
	assert_string_equal(cgm_body_normalise(arena, "select E'\\' --x'   ,  $q$ a  -- b $q$"),
			    "select E'\\' --x' , $q$ a  -- b $q$");
	assert_string_equal(cgm_body_normalise(arena, "select $1,  a$b"), "select $1, a$b");
	assert_string_equal(cgm_body_normalise(arena, "select \"a  --b\""), "select \"a  --b\"");
	assert_null(cgm_body_hash(arena, NULL));
	assert_string_equal(cgm_body_normalise(arena, " \n-- only\n"), "");
}

static void test_builtins(void **state)
{
	cgm_model *model = cgm_model_new();
	int n = cgm_builtins_load(model);
	assert_true(n > 3000);
	assert_int_equal(model->nfunctions, n);
	cgm_model_index(model);
	int i = cgm_model_find(model, "lower(text)");
	assert_true(i >= 0);
	assert_true(model->functions[i].builtin);
	assert_string_equal(model->functions[i].result, "text");
	i = cgm_model_find(model, "make_interval(integer,integer,integer,integer,integer,"
				  "integer,double precision)");
	assert_true(i >= 0);
	assert_int_equal(model->functions[i].ndefaults, 7);
	assert_string_equal(model->functions[i].argnames[6], "secs");
	i = cgm_model_find(model, "format(text,\"any\")");
	assert_true(i >= 0);
	assert_true(model->functions[i].variadic);
	assert_string_equal(model->functions[i].variadic_elem, "\"any\"");
	i = cgm_model_find(model, "count(\"any\")");
	assert_true(i >= 0);
	assert_int_equal(model->functions[i].kind, CGM_KIND_AGGREGATE);
	assert_int_equal(cgm_model_find(model, "no_such_function()"), -1);
	cgm_model_free(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_catalog_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_text_without_jansson, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regprocedure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_hash, setup, teardown),
		cmocka_unit_test(test_builtins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
