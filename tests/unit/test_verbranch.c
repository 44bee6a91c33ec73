/*
 * test_verbranch.c - the branches of a PL/pgSQL body written for another
 * server version (verbranch.h): the lines that never run on a server in
 * a range of releases, and the sites on them taken out.  Each body is
 * what PostgreSQL 15 runs one branch of; the cases left undecided are
 * those where a line is shared with code that runs, or the condition is
 * not the version's alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbranch.h"

#define PG15_LIVE 150020LL

static cgm_function function_of(const char *body)
{
	cgm_function fn;
	memset(&fn, 0, sizeof fn);
	fn.id = "public.f(integer)";
	fn.language = "plpgsql";
	fn.kind = CGM_KIND_FUNCTION;
	fn.arguments = "p integer";
	fn.result = "integer";
	fn.source = body;
	return fn;
}

/* The dead ranges as "first-last first-last ...". */
static const char *dead_lines_in(const char *body, const cgm_server_versions *versions)
{
	static char out[256];
	cgm_function fn = function_of(body);
	int first[16], last[16];
	int n = cgm_verbranch_dead_lines(&fn, versions, first, last, 16);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t len = strlen(out);
		snprintf(out + len, sizeof out - len, "%s%d-%d", i ? " " : "", first[i], last[i]);
	}
	return out;
}

static const char *dead_lines(const char *body, long long lowest, long long highest)
{
	const cgm_server_versions versions = { .lowest = lowest, .highest = highest };
	return dead_lines_in(body, &versions);
}

static const char *const direct_body =
	"\n"                                                                   /* 1 */
	"DECLARE v text;\n"                                                    /* 2 */
	"BEGIN\n"                                                              /* 3 */
	"    IF current_setting('server_version_num')::int < 100000 THEN\n"    /* 4 */
	"        v := pg_xlogfile_name(pg_current_xlog_location());\n"         /* 5 */
	"        PERFORM a();\n"                                               /* 6 */
	"    ELSE\n"                                                           /* 7 */
	"        v := pg_walfile_name(pg_current_wal_lsn());\n"                /* 8 */
	"    END IF;\n"                                                        /* 9 */
	"    RETURN 1;\n"                                                      /* 10 */
	"END\n";

static void test_direct_condition(void **state)
{
	(void)state;
	assert_string_equal(dead_lines(direct_body, PG15_LIVE, PG15_LIVE), "5-7");
	/* On 9.6 the other branch is the dead one, up to the RETURN. */
	assert_string_equal(dead_lines(direct_body, 90624, 90624), "8-9");
	/* The files stand for any PostgreSQL 15. */
	assert_string_equal(dead_lines(direct_body, 150000, 159999), "5-7");
	/* A version not known decides nothing. */
	assert_string_equal(dead_lines(direct_body, 0, 0), "");
}

static void test_minor_release_undecided(void **state)
{
	(void)state;
	const char *body = "\nBEGIN\n"
			   "IF current_setting('server_version_num')::int >= 150004 THEN\n"
			   "  PERFORM a();\n"
			   "END IF;\n"
			   "RETURN 1;\nEND\n";
	assert_string_equal(dead_lines(body, 150000, 159999), "");
	assert_string_equal(dead_lines(body, 150002, 150002), "4-5");
	assert_string_equal(dead_lines(body, 150020, 150020), "");
}

/* PoWA's powa_take_snapshot: the variable is set inside a branch that
 * also holds the IFs testing it. */
static void test_variable_in_enclosing_branch(void **state)
{
	(void)state;
	const char *body = "\n"                                              /* 1 */
			   "DECLARE\n"                                       /* 2 */
			   "    v_server_version int;\n"                     /* 3 */
			   "BEGIN\n"                                         /* 4 */
			   "    IF p = 0 THEN\n"                             /* 5 */
			   "        v_server_version := current_setting('server_version_num')::int;\n" /* 6 */
			   "        IF v_server_version >= 160000 THEN\n"    /* 7 */
			   "            PERFORM a();\n"                      /* 8 */
			   "        ELSIF v_server_version >= 130000 THEN\n" /* 9 */
			   "            PERFORM b();\n"                      /* 10 */
			   "        ELSE\n"                                  /* 11 */
			   "            PERFORM c();\n"                      /* 12 */
			   "        END IF;\n"                               /* 13 */
			   "    END IF;\n"                                   /* 14 */
			   "    RETURN 1;\n"                                 /* 15 */
			   "END\n";
	assert_string_equal(dead_lines(body, PG15_LIVE, PG15_LIVE), "8-8 12-14");
	assert_string_equal(dead_lines(body, 170000, 170000), "10-11 12-14");
}

/* pg_jobmon's check_job_status and show_running. */
static void test_select_into_variable(void **state)
{
	(void)state;
	const char *body = "\nDECLARE\n    v_version int;\nBEGIN\n"      /* 1-4 */
			   "SELECT current_setting('server_version_num')::int INTO v_version;\n" /* 5 */
			   "IF v_version >= 90200 THEN\n"                     /* 6 */
			   "    PERFORM c();\n"                               /* 7 */
			   "ELSE\n"                                           /* 8 */
			   "    PERFORM old_thing();\n"                       /* 9 */
			   "END IF;\n"                                        /* 10 */
			   "RETURN 1;\nEND\n";                                /* 11 */
	assert_string_equal(dead_lines(body, PG15_LIVE, PG15_LIVE), "9-10");
}

static void test_declared_default(void **state)
{
	(void)state;
	const char *body = "\nDECLARE\n"
			   "    v int := current_setting('server_version_num')::int;\n" /* 3 */
			   "BEGIN\n"                                                   /* 4 */
			   "    IF v < 120000 THEN\n"                                   /* 5 */
			   "        PERFORM a();\n"                                     /* 6 */
			   "    END IF;\n"                                              /* 7 */
			   "    RETURN 1;\nEND\n";                                      /* 8 */
	assert_string_equal(dead_lines(body, PG15_LIVE, PG15_LIVE), "6-7");
}

/* What a variable holds at the IF is not the version's alone. */
static void test_variables_not_followed(void **state)
{
	(void)state;
	/* assigned twice */
	const char *twice = "\nDECLARE v int;\nBEGIN\n"
			    "v := current_setting('server_version_num')::int;\n"
			    "v := 90000;\n"
			    "IF v < 100000 THEN\n  PERFORM a();\nEND IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(twice, PG15_LIVE, PG15_LIVE), "");
	/* assigned after the IF */
	const char *after = "\nDECLARE v int;\nBEGIN\n"
			    "IF v < 100000 THEN\n  PERFORM a();\nEND IF;\n"
			    "v := current_setting('server_version_num')::int;\nRETURN v;\nEND\n";
	assert_string_equal(dead_lines(after, PG15_LIVE, PG15_LIVE), "");
	/* assigned in a branch the IF is not in */
	const char *beside = "\nDECLARE v int;\nBEGIN\n"
			     "IF p = 0 THEN\n  v := current_setting('server_version_num')::int;\nEND IF;\n"
			     "IF v < 100000 THEN\n  PERFORM a();\nEND IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(beside, PG15_LIVE, PG15_LIVE), "");
	/* a loop's variable */
	const char *loop = "\nDECLARE v int;\nBEGIN\n"
			   "v := current_setting('server_version_num')::int;\n"
			   "FOR v IN 1..3 LOOP\n  IF v < 100000 THEN\n    PERFORM a();\n  END IF;\nEND LOOP;\n"
			   "RETURN 1;\nEND\n";
	assert_string_equal(dead_lines(loop, PG15_LIVE, PG15_LIVE), "");
	/* the version and something else */
	const char *mixed = "\nBEGIN\n"
			    "IF current_setting('server_version_num')::int < 100000 OR p > 1 THEN\n"
			    "  PERFORM a();\nEND IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(mixed, PG15_LIVE, PG15_LIVE), "");
	/* ... which AND with a false version test decides */
	const char *anded = "\nBEGIN\n"
			    "IF current_setting('server_version_num')::int < 100000 AND p > 1 THEN\n"
			    "  PERFORM a();\nEND IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(anded, PG15_LIVE, PG15_LIVE), "4-5");
}

/* A branch that shares a line with code that runs is not decided. */
static void test_shared_lines(void **state)
{
	(void)state;
	const char *one_line = "\nBEGIN\n"
			       "IF current_setting('server_version_num')::int < 100000 THEN PERFORM a(); "
			       "ELSE PERFORM b(); END IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(one_line, PG15_LIVE, PG15_LIVE), "");
	/* the ELSE after a statement on the same line */
	const char *else_shared = "\nBEGIN\n"
				  "IF current_setting('server_version_num')::int >= 100000 THEN\n" /* 3 */
				  "  PERFORM a(\n"                                                /* 4 */
				  "    1); ELSE PERFORM b();\n"                                   /* 5 */
				  "END IF;\nRETURN 1;\nEND\n";
	assert_string_equal(dead_lines(else_shared, PG15_LIVE, PG15_LIVE), "");
	/* the next statement on the dead branch's last line ends it before */
	const char *next_shared = "\nBEGIN\n"
				  "IF current_setting('server_version_num')::int < 100000 THEN -- old\n" /* 3 */
				  "  PERFORM a();\n"                                                     /* 4 */
				  "  PERFORM b(); END IF; PERFORM c();\n"                                /* 5 */
				  "RETURN 1;\nEND\n";
	assert_string_equal(dead_lines(next_shared, PG15_LIVE, PG15_LIVE), "4-4");
	/* a nested block's declaration after the IF bounds the branch */
	const char *block = "\nBEGIN\n"
			    "IF current_setting('server_version_num')::int < 100000 THEN\n" /* 3 */
			    "  PERFORM a();\n"                                              /* 4 */
			    "END IF;\n"                                                     /* 5 */
			    "DECLARE x int := b();\n"                                       /* 6 */
			    "BEGIN\n  RETURN x;\nEND;\nEND\n";
	assert_string_equal(dead_lines(block, PG15_LIVE, PG15_LIVE), "4-5");
}

/* pgTAP's pg_version_num(): a SQL function returning the version. */
static const char *tap_schemas[] = { "public" }, *tap_names[] = { "pg_version_num" },
		  *tap_exprs[] = { "\n    current_setting('server_version_num')::integer" };

static const char *dead_lines_with(const char *body, bool bare)
{
	bool bares[] = { bare };
	const cgm_server_versions versions = { PG15_LIVE, PG15_LIVE, 1, tap_schemas, tap_names, tap_exprs,
					       bares };
	return dead_lines_in(body, &versions);
}

static void test_version_function(void **state)
{
	(void)state;
	/* pgTAP 1.3's format_type_string: to_regtypemod() is PostgreSQL 17's */
	const char *call = "\nBEGIN\n"
			   "    IF pg_version_num() >= 170000 THEN\n"                                /* 3 */
			   "        -- to_regtypemod() in 17 allows easy and correct normalization.\n" /* 4 */
			   "\n"                                                                    /* 5 */
			   "        RETURN format_type(to_regtype(p), to_regtypemod(p));\n"          /* 6 */
			   "    END IF;\n"                                                           /* 7 */
			   "    RETURN 1;\nEND\n";                                                  /* 8 */
	assert_string_equal(dead_lines_with(call, true), "6-7");
	/* a name other functions of no argument share is not known bare */
	assert_string_equal(dead_lines_with(call, false), "");
	const char *qualified = "\nBEGIN\n"
				"    IF public.pg_version_num ( ) >= 170000 THEN\n"
				"        RETURN 2;\n    END IF;\n    RETURN 1;\nEND\n";
	assert_string_equal(dead_lines_with(qualified, false), "4-5");
	const char *elsewhere = "\nBEGIN\n"
				"    IF tap.pg_version_num() >= 170000 THEN\n"
				"        RETURN 2;\n    END IF;\n    RETURN 1;\nEND\n";
	assert_string_equal(dead_lines_with(elsewhere, true), "");
	/* _table_privs: the version in a declaration's default */
	const char *declared = "\nDECLARE\n    pgversion INTEGER := pg_version_num();\nBEGIN\n"
			       "    IF pgversion < 80200 THEN RETURN 1;\n"                  /* 5 */
			       "    ELSIF pgversion < 80400 THEN\n"                         /* 6 */
			       "        RETURN 2;\n"                                        /* 7 */
			       "    ELSE\n        RETURN 3;\n    END IF;\nEND\n";
	assert_string_equal(dead_lines_with(declared, true), "7-8");
	/* not a call of it: an argument, a literal, another name */
	const char *others = "\nBEGIN\n"
			     "    IF pg_version_num(1) >= 170000 OR 'pg_version_num()' = p::text\n"
			     "       OR my_pg_version_num() > 1 THEN\n"
			     "        RETURN 2;\n    END IF;\n    RETURN 1;\nEND\n";
	assert_string_equal(dead_lines_with(others, true), "");
}

/* Version functions found in a model: SQL, no argument, `SELECT` of the
 * version alone. */
static void test_versions_of_model(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	const struct {
		const char *schema, *name, *language, *source;
		int nargs;
	} fns[] = {
		{ "public", "pg_version_num", "sql", "\n    SELECT current_setting('server_version_num')::integer;\n", 0 },
		{ "app", "ver", "sql", "select pg_catalog.current_setting('server_version_num')::int", 0 },
		{ "app", "ver", "sql", "SELECT current_setting('server_version_num')::int + $1", 1 },
		{ "app", "two", "sql", "SELECT 1; SELECT current_setting('server_version_num')::int", 0 },
		{ "app", "other", "sql", "SELECT current_setting('search_path')", 0 },
		{ "app", "plp", "plpgsql", "BEGIN RETURN current_setting('server_version_num')::int; END", 0 },
		{ "lib", "ver", "sql", "SELECT 3", 0 },
		/* E-Maj's, a comment first */
		{ "emaj", "_pg_version_num", "sql",
		  "\n-- This function returns as an integer the current postgresql version.\n"
		  "SELECT pg_catalog.current_setting('server_version_num')::INT;\n", 0 },
		{ "app", "commented", "sql", "-- only a comment", 0 },
	};
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		cgm_function *f = cgm_model_add_function(m);
		f->schema = fns[i].schema;
		f->name = fns[i].name;
		f->language = fns[i].language;
		f->source = fns[i].source;
		f->nargs = fns[i].nargs;
		f->kind = CGM_KIND_FUNCTION;
	}
	cgm_server_versions *v = cgm_verbranch_versions(m, PG15_LIVE, PG15_LIVE);
	assert_int_equal(v->nfunctions, 3);
	assert_string_equal(v->names[0], "pg_version_num");
	assert_true(v->bare[0]);
	assert_string_equal(v->schemas[1], "app");
	assert_string_equal(v->names[1], "ver");
	assert_false(v->bare[1]); /* lib.ver() has no argument either */
	assert_string_equal(v->schemas[2], "emaj");
	assert_string_equal(v->names[2], "_pg_version_num");
	assert_true(v->bare[2]);
	cgm_model_free(m);
}

/* IFs nested n deep, the innermost testing the version. */
static char *nested(int n)
{
	size_t cap = (size_t)n * 64 + 256;
	char *b = malloc(cap);
	size_t len = (size_t)snprintf(b, cap, "\nBEGIN\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(b + len, cap - len, "IF p > %d THEN\n", i);
	len += (size_t)snprintf(b + len, cap - len,
				"IF current_setting('server_version_num')::int < 100000 THEN\n"
				"PERFORM a();\nEND IF;\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(b + len, cap - len, "END IF;\n");
	snprintf(b + len, cap - len, "RETURN 1;\nEND\n");
	return b;
}

/* A body nested deeper than the walks follow is not decided (a statement
 * missed could end a branch); one as deep as real code is. */
static void test_deep_nesting(void **state)
{
	(void)state;
	char *ten = nested(10), *thousand = nested(1000);
	assert_string_equal(dead_lines(ten, PG15_LIVE, PG15_LIVE), "14-25");
	assert_string_equal(dead_lines(thousand, PG15_LIVE, PG15_LIVE), "");
	free(ten);
	free(thousand);
}

/* A generated body of twenty thousand version tests: each branch alone
 * on its lines, the first ones said (at most the caller's 16 here), the
 * work bounded (the conditions past 4,096 are left undecided). */
static void test_many_conditions(void **state)
{
	(void)state;
	int n = 20000;
	size_t cap = (size_t)n * 96 + 64;
	char *body = malloc(cap);
	size_t len = (size_t)snprintf(body, cap, "\nDECLARE v int := current_setting('server_version_num')::int;\nBEGIN\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(body + len, cap - len,
					"IF v < %d THEN\n  PERFORM a();\nEND IF;\n", 100000 + i);
	snprintf(body + len, cap - len, "RETURN 1;\nEND\n");
	const char *lines = dead_lines(body, PG15_LIVE, PG15_LIVE);
	assert_true(strncmp(lines, "5-6 8-9 11-12 ", 14) == 0);
	int ranges = 1;
	for (const char *p = lines; *p; p++)
		ranges += *p == ' ';
	assert_int_equal(ranges, 16);
	free(body);
}

static void test_prune_sites(void **state)
{
	(void)state;
	const cgm_server_versions live = { .lowest = PG15_LIVE, .highest = PG15_LIVE };
	cgm_arena *a = cgm_arena_new();
	cgm_function fn = function_of(direct_body);
	cgm_site sites[5];
	memset(sites, 0, sizeof sites);
	const int lines[5] = { 4, 5, 5, 6, 8 };
	for (int i = 0; i < 5; i++)
		sites[i].line = lines[i];
	fn.sites = sites;
	fn.nsites = 5;
	assert_int_equal(cgm_verbranch_prune(a, &fn, &live), 3);
	assert_int_equal(fn.nsites, 2);
	assert_int_equal(fn.sites[0].line, 4);
	assert_int_equal(fn.sites[1].line, 8);
	assert_non_null(fn.other_version_lines);
	assert_int_equal(fn.other_version_lines[0], 1);
	assert_int_equal(fn.other_version_lines[1], 5);
	assert_int_equal(fn.other_version_lines[2], 7);
	/* again: nothing more */
	assert_int_equal(cgm_verbranch_prune(a, &fn, &live), 0);
	/* SQL functions and bodies that parse not are left alone */
	cgm_function sql = function_of("SELECT 1 WHERE current_setting('server_version_num')::int < 1");
	sql.language = "sql";
	sql.sites = sites;
	sql.nsites = 2;
	assert_int_equal(cgm_verbranch_prune(a, &sql, &live), 0);
	cgm_function broken = function_of("\nBEGIN IF current_setting('server_version_num') THEN\nEND\n");
	broken.sites = sites;
	broken.nsites = 2;
	assert_int_equal(cgm_verbranch_prune(a, &broken, &live), 0);
	cgm_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_condition),
		cmocka_unit_test(test_minor_release_undecided),
		cmocka_unit_test(test_variable_in_enclosing_branch),
		cmocka_unit_test(test_select_into_variable),
		cmocka_unit_test(test_declared_default),
		cmocka_unit_test(test_variables_not_followed),
		cmocka_unit_test(test_shared_lines),
		cmocka_unit_test(test_version_function),
		cmocka_unit_test(test_versions_of_model),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_many_conditions),
		cmocka_unit_test(test_prune_sites),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
