/*
 * test_extract.c - call-site extraction from PL/pgSQL and SQL bodies:
 * every statement form, exact lines, comments and strings, EXECUTE, cursors,
 * DML events, and bodies that do not parse; each case twice, read from the
 * trees libpg_query's PL/pgSQL parser built and from its JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "plpgsql_params.h"

static cgm_arena *arena;

/* Which path the cases run on (main). */
static bool from_parser_trees = true;

static cgm_function make(const char *language, const char *args, const char *result,
			 const char *body)
{
	cgm_function fn;
	memset(&fn, 0, sizeof fn);
	fn.id = "t.f()";
	fn.schema = "t";
	fn.name = "f";
	fn.kind = CGM_KIND_FUNCTION;
	fn.language = language;
	fn.arguments = args;
	fn.result = result;
	fn.source = body;
	fn.npath = -1;
	return fn;
}

static const cgm_site *find_site(const cgm_function *fn, const char *name, int nth)
{
	for (int i = 0; i < fn->nsites; i++)
		if (fn->sites[i].name && strcmp(fn->sites[i].name, name) == 0 && nth-- == 0)
			return &fn->sites[i];
	return NULL;
}

/* How many sites of `kind` the function has. */
static int count_kind(const cgm_function *fn, cgm_site_kind kind)
{
	int n = 0;
	for (int i = 0; i < fn->nsites; i++)
		n += fn->sites[i].kind == kind;
	return n;
}

/* No site for gone1() .. gone<n>(): `why` they run nothing. */
static void expect_gone(const cgm_function *fn, int n, const char *why)
{
	char name[16];
	for (int i = 1; i <= n; i++) {
		snprintf(name, sizeof name, "gone%d", i);
		if (find_site(fn, name, 0))
			fail_msg("'%s' %s, yet has a site", name, why);
	}
}

static void expect_site(const cgm_function *fn, const char *name, int line, cgm_site_kind kind)
{
	const cgm_site *s = find_site(fn, name, 0);
	if (!s)
		fail_msg("no site for '%s'", name);
	if (s->line != line)
		fail_msg("site '%s' at line %d, expected %d", name, s->line, line);
	if (s->kind != kind)
		fail_msg("site '%s' is %s, expected %s", name, cgm_site_kind_name(s->kind),
			 cgm_site_kind_name(kind));
}

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

static void test_statement_forms(void **state)
{
	cgm_function fn = make("plpgsql", "a integer, b text DEFAULT 'x'::text", "SETOF integer",
			       "\n"
			       "DECLARE\n"                                      /* 2 */
			       "  v int := g_decl(a);\n"                        /* 3 */
			       "  x int; r record;\n"                           /* 4 */
			       "  c CURSOR FOR SELECT h_cursor(1);\n"           /* 5 */
			       "BEGIN\n"                                        /* 6 */
			       "  x := f_assign(1) + 2;\n"                      /* 7 */
			       "  IF k_if(x) > 0 THEN\n"                        /* 8 */
			       "    PERFORM p_perform(1, b => 2);\n"            /* 9 */
			       "  ELSIF z_elsif(3) THEN\n"                      /* 10 */
			       "    RETURN QUERY SELECT * FROM q_from(1);\n"    /* 11 */
			       "  END IF;\n"                                    /* 12 */
			       "  WHILE w_while(x) LOOP EXIT WHEN e_exit(1); END LOOP;\n" /* 13 */
			       "  FOR r IN SELECT * FROM t LOOP\n"              /* 14 */
			       "    INSERT INTO t VALUES (ins(r.a));\n"         /* 15 */
			       "  END LOOP;\n"                                  /* 16 */
			       "  CALL pr(1);\n"                                /* 17 */
			       "  RAISE NOTICE '%', rz(1);\n"                   /* 18 */
			       "  ASSERT ac(1), am(2);\n"                       /* 19 */
			       "  CASE cs(1) WHEN cw(1) THEN NULL; ELSE NULL; END CASE;\n" /* 20 */
			       "  RETURN NEXT\n"                                /* 21 */
			       "     rn(v);\n"                                  /* 22 */
			       "EXCEPTION WHEN others THEN\n"                   /* 23 */
			       "  RETURN NEXT ex(1);\n"                         /* 24 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	assert_true(fn.analysed);
	expect_site(&fn, "g_decl", 3, CGM_SITE_CALL);
	expect_site(&fn, "h_cursor", 5, CGM_SITE_CALL);
	expect_site(&fn, "f_assign", 7, CGM_SITE_CALL);
	expect_site(&fn, "k_if", 8, CGM_SITE_CALL);
	expect_site(&fn, "p_perform", 9, CGM_SITE_PERFORM);
	expect_site(&fn, "z_elsif", 10, CGM_SITE_CALL);
	expect_site(&fn, "q_from", 11, CGM_SITE_CALL);
	expect_site(&fn, "w_while", 13, CGM_SITE_CALL);
	expect_site(&fn, "e_exit", 13, CGM_SITE_CALL);
	expect_site(&fn, "ins", 15, CGM_SITE_CALL);
	expect_site(&fn, "pr", 17, CGM_SITE_CALL_STMT);
	expect_site(&fn, "rz", 18, CGM_SITE_CALL);
	expect_site(&fn, "ac", 19, CGM_SITE_CALL);
	expect_site(&fn, "am", 19, CGM_SITE_CALL);
	expect_site(&fn, "cs", 20, CGM_SITE_CALL);
	expect_site(&fn, "cw", 20, CGM_SITE_CALL);
	expect_site(&fn, "rn", 22, CGM_SITE_CALL);
	expect_site(&fn, "ex", 24, CGM_SITE_CALL);
	/* The loop's query reads t, the INSERT writes it. */
	const cgm_site *read = find_site(&fn, "t", 0);
	assert_non_null(read);
	assert_int_equal(read->kind, CGM_SITE_RELATION);
	assert_int_equal(cgm_site_get_rare(read)->events, CGM_EV_SELECT);
	assert_int_equal(read->line, 14);
	const cgm_site *dml = find_site(&fn, "t", 1);
	assert_non_null(dml);
	assert_int_equal(dml->kind, CGM_SITE_RELATION);
	assert_int_equal(cgm_site_get_rare(dml)->events, CGM_EV_INSERT);
	assert_int_equal(dml->line, 15);
	/* Named argument and literal types. */
	const cgm_site *p = find_site(&fn, "p_perform", 0);
	assert_int_equal(p->nargs, 2);
	assert_null(cgm_site_get_rare(p)->argnames[0]);
	assert_string_equal(cgm_site_get_rare(p)->argnames[1], "b");
	assert_string_equal(p->argtypes[0], "integer");
	/* A declared variable gives its type. */
	const cgm_site *rn = find_site(&fn, "rn", 0);
	assert_string_equal(rn->argtypes[0], "integer");
	/* Parameters too. */
	const cgm_site *g = find_site(&fn, "g_decl", 0);
	assert_null(g->argtypes[0]); /* fn.argtypes not set here: unknown */
}

static void test_comments_and_strings_are_not_calls(void **state)
{
	cgm_function fn = make("plpgsql", "", "integer",
			       "\nBEGIN\n"
			       "  -- not_a_call(1)\n"
			       "  /* nor_this(2) */\n"
			       "  RAISE NOTICE 'nor_that(3) %', real_call(4);\n"
			       "  RETURN length($q$ dollar_text(5) $q$);\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	assert_null(find_site(&fn, "not_a_call", 0));
	assert_null(find_site(&fn, "nor_this", 0));
	assert_null(find_site(&fn, "nor_that", 0));
	assert_null(find_site(&fn, "dollar_text", 0));
	expect_site(&fn, "real_call", 5, CGM_SITE_CALL);
	expect_site(&fn, "length", 6, CGM_SITE_CALL);
}

/* Text functions of constants fold as PostgreSQL computes them: the SQL
 * an EXECUTE of `'SELECT ' || quote_ident(lower('App')) || '.go()'` runs
 * is known, and of replace() (Lemmy's create_triggers rewrites its
 * template so); upper() of non-ASCII text is the collation's, so it is
 * not. */
/* A call in the body of a block whose EXCEPTION clause names
 * undefined_function (or SQLSTATE '42883') expects its callee may not
 * exist, as PostGIS's postgis_full_version() expects raster's; a call in
 * the clause's own handlers, in a block catching only OTHERS, or after the
 * block does not. */
static void test_calls_guarded_against_a_missing_callee(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "void",
			       "\nBEGIN\n"
			       "  BEGIN\n"                                              /* 3 */
			       "    PERFORM maybe_one();\n"                               /* 4 */
			       "    BEGIN\n"                                            /* 5 */
			       "      PERFORM maybe_inner();\n"                           /* 6 */
			       "    EXCEPTION WHEN division_by_zero THEN PERFORM inner_handler();\n" /* 7 */
			       "    END;\n"                                             /* 8 */
			       "  EXCEPTION WHEN undefined_function THEN PERFORM in_handler();\n" /* 9 */
			       "  END;\n"                                               /* 10 */
			       "  BEGIN PERFORM by_state(); EXCEPTION WHEN SQLSTATE '42883' THEN NULL; END;\n" /* 11 */
			       "  BEGIN PERFORM swallowed(); EXCEPTION WHEN OTHERS THEN NULL; END;\n" /* 12 */
			       "  BEGIN EXECUTE 'SELECT by_literal()'; EXCEPTION WHEN undefined_function OR others THEN NULL; END;\n" /* 13 */
			       "  PERFORM after_all();\n"                                 /* 14 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	assert_true(find_site(&fn, "maybe_one", 0)->handles_missing);
	assert_true(find_site(&fn, "maybe_inner", 0)->handles_missing);
	/* the inner block's handler is still in the outer block's body */
	assert_true(find_site(&fn, "inner_handler", 0)->handles_missing);
	assert_false(find_site(&fn, "in_handler", 0)->handles_missing);
	assert_true(find_site(&fn, "by_state", 0)->handles_missing);
	assert_false(find_site(&fn, "swallowed", 0)->handles_missing);
	assert_true(find_site(&fn, "by_literal", 0)->handles_missing);
	assert_false(find_site(&fn, "after_all", 0)->handles_missing);
}

/* A call an IF makes only after finding an extension in pg_extension
 * (a variable only such a query sets, IS NOT NULL; or EXISTS of such a
 * query) says which: resolution expects its callee absent where the
 * extension is.  Not in the ELSE branch, not for a variable set otherwise
 * too, nor for a count(*), which gives a row anyway. */
static void test_calls_under_an_extension_test(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "void",
			       "\nDECLARE\n"
			       "  v_jm text;\n"                                                    /* 3 */
			       "  v_other text;\n"                                                 /* 4 */
			       "  v_count int;\n"                                                  /* 5 */
			       "BEGIN\n"                                                           /* 6 */
			       "  SELECT nspname INTO v_jm FROM pg_catalog.pg_namespace n, pg_catalog.pg_extension e\n"
			       "   WHERE e.extname = 'pg_jobmon'::name AND e.extnamespace = n.oid;\n" /* 8 */
			       "  SELECT extname INTO v_other FROM pg_extension WHERE extname = 'x';\n"
			       "  v_other := 'set';\n"                                              /* 10 */
			       "  SELECT count(*) INTO v_count FROM pg_extension WHERE extname = 'y';\n"
			       "  IF v_jm IS NOT NULL THEN\n"                                       /* 12 */
			       "    PERFORM add_job('a');\n"                                        /* 13 */
			       "    IF true THEN PERFORM nested_job(); END IF;\n"                     /* 14 */
			       "  ELSE\n"                                                          /* 15 */
			       "    PERFORM not_jobmon();\n"                                        /* 16 */
			       "  END IF;\n"                                                       /* 17 */
			       "  IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'postgis') AND v_count > 0 THEN\n"
			       "    PERFORM st_thing();\n"                                          /* 19 */
			       "  END IF;\n"                                                       /* 20 */
			       "  IF v_other IS NOT NULL THEN PERFORM other_fn(); END IF;\n"        /* 21 */
			       "  IF v_count IS NOT NULL THEN PERFORM counted(); END IF;\n"         /* 22 */
			       "  PERFORM after_all();\n"                                           /* 23 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	if (!from_parser_trees)
		return; /* the JSON path does not read these IFs (docs/reports.md, missing) */
	const char *jm = cgm_site_get_rare(find_site(&fn, "add_job", 0))->requires_extension;
	assert_non_null(jm);
	assert_string_equal(jm, "pg_jobmon");
	assert_string_equal(cgm_site_get_rare(find_site(&fn, "nested_job", 0))->requires_extension, "pg_jobmon");
	assert_null(cgm_site_get_rare(find_site(&fn, "not_jobmon", 0))->requires_extension);
	assert_string_equal(cgm_site_get_rare(find_site(&fn, "st_thing", 0))->requires_extension, "postgis");
	assert_null(cgm_site_get_rare(find_site(&fn, "other_fn", 0))->requires_extension);
	assert_null(cgm_site_get_rare(find_site(&fn, "counted", 0))->requires_extension);
	assert_null(cgm_site_get_rare(find_site(&fn, "after_all", 0))->requires_extension);
}

static void test_execute_text_functions(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "void",
			       "\nBEGIN\n"
			       "  EXECUTE 'SELECT ' || quote_ident(lower('App')) || '.go()';\n"    /* 3 */
			       "  EXECUTE 'SELECT ' || upper('stop') || '_now()';\n"               /* 4 */
			       "  EXECUTE 'SELECT ' || pg_catalog.quote_literal('x') || ', w()';\n" /* 5 */
			       "  EXECUTE 'SELECT ' || lower('\xc3\x89t\xc3\xa9') || '()';\n"  /* 6 */
			       "  EXECUTE replace(replace('SELECT thing_f(1)', 'thing', 'comment'), '', 'x');\n" /* 7 */
			       "  EXECUTE replace('SELECT aaa_g()', 'aa', 'b');\n"                 /* 8 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	const cgm_site *go = find_site(&fn, "go", 0);
	assert_non_null(go);
	assert_int_equal(go->kind, CGM_SITE_EXEC_LITERAL);
	assert_string_equal(go->schema, "app");
	expect_site(&fn, "stop_now", 4, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "w", 5, CGM_SITE_EXEC_LITERAL);
	/* replace() as PostgreSQL's: left to right, not overlapping; an
	 * empty pattern replaces nothing. */
	expect_site(&fn, "comment_f", 7, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "ba_g", 8, CGM_SITE_EXEC_LITERAL);
	int dynamic = 0;
	for (int i = 0; i < fn.nsites; i++)
		dynamic += fn.sites[i].kind == CGM_SITE_DYNAMIC;
	assert_int_equal(dynamic, 1);
}

static void test_execute(void **state)
{
	cgm_function fn = make("plpgsql", "name text", "SETOF integer",
			       "\nDECLARE r int;\nBEGIN\n"
			       "  EXECUTE 'SELECT lit_one()' INTO r;\n"                   /* 4 */
			       "  EXECUTE 'SELECT ' || 'lit_two(1)';\n"                    /* 5 */
			       "  EXECUTE format('SELECT lit_three(%L)', name);\n"         /* 6 */
			       "  EXECUTE format('SELECT %I()', name) USING using_arg(1);\n" /* 7 */
			       "  EXECUTE 'SELECT ' || name;\n"                            /* 8 */
			       "  RETURN QUERY EXECUTE 'x' || name;\n"                     /* 9 */
			       "  EXECUTE 'UPDATE tab SET a = 1';\n"                       /* 10 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	expect_site(&fn, "lit_one", 4, CGM_SITE_EXEC_LITERAL);
	assert_true(find_site(&fn, "lit_one", 0)->via_literal);
	expect_site(&fn, "lit_two", 5, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "lit_three", 6, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "using_arg", 7, CGM_SITE_CALL);
	int dynamic = 0;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC) {
			dynamic++;
			assert_non_null(cgm_site_get_rare(&fn.sites[i])->text);
			assert_true(fn.sites[i].line == 7 || fn.sites[i].line == 8 || fn.sites[i].line == 9);
		}
	assert_int_equal(dynamic, 3);
	const cgm_site *upd = find_site(&fn, "tab", 0);
	assert_non_null(upd);
	assert_int_equal(upd->kind, CGM_SITE_RELATION);
	assert_int_equal(cgm_site_get_rare(upd)->events, CGM_EV_UPDATE);
	assert_int_equal(cgm_site_get_rare(upd)->ncolumns, 1);
	assert_string_equal(cgm_site_get_rare(upd)->columns[0], "a");
	assert_true(upd->via_literal);
	assert_int_equal(upd->line, 10);
}

/* EXECUTE of a variable (execvars.h): the assignment that surely reaches
 * it gives its SQL alone; where a loop or a branch stands between, every
 * constant given before it, or after it in a loop around it, may run; a
 * dynamic FOR's query runs before its loop's assignments. */
static int sites_named(const cgm_function *fn, const char *name, int *lines, int max)
{
	int n = 0;
	for (int i = 0; i < fn->nsites; i++)
		if (fn->sites[i].name && strcmp(fn->sites[i].name, name) == 0) {
			if (n < max)
				lines[n] = fn->sites[i].line;
			n++;
		}
	return n;
}

static void test_execute_of_a_variable(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "p int", "int",
			       "\nDECLARE q text := 'SELECT v_default()'; r int; s text;\nBEGIN\n"
			       "  EXECUTE q INTO r;\n"                                   /* 4 */
			       "  q := 'SELECT v_one()';\n"                              /* 5 */
			       "  IF p > 0 THEN\n"                                       /* 6 */
			       "    EXECUTE q INTO r;\n"                                 /* 7: v_one */
			       "  END IF;\n"                                             /* 8 */
			       "  LOOP\n"                                                /* 9 */
			       "    EXECUTE q INTO r;\n"                                 /* 10: any */
			       "    q := 'SELECT v_two()';\n"                            /* 11 */
			       "    EXIT;\n"                                             /* 12 */
			       "  END LOOP;\n"                                           /* 13 */
			       "  s := 'SELECT v_three()';\n"                            /* 14 */
			       "  FOR r IN EXECUTE s LOOP\n"                             /* 15: any */
			       "    s := 'SELECT v_four()';\n"                           /* 16 */
			       "  END LOOP;\n"                                           /* 17 */
			       "  RETURN r;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	if (!from_parser_trees) {
		/* the JSON path tells no variable's assignments: four dynamic
		 * sites, as before */
		assert_int_equal(count_kind(&fn, CGM_SITE_DYNAMIC), 4);
		assert_null(find_site(&fn, "v_one", 0));
		return;
	}
	int lines[16];
	/* at 4 only the default has been given; v_one alone at 7; in the
	 * loop at 10 what came before and what the loop gives on its way
	 * back */
	assert_int_equal(sites_named(&fn, "v_default", lines, 16), 2);
	assert_int_equal(lines[0], 4);
	assert_int_equal(lines[1], 10);
	assert_int_equal(sites_named(&fn, "v_one", lines, 16), 2);
	assert_int_equal(lines[0], 7);
	assert_int_equal(lines[1], 10);
	assert_int_equal(sites_named(&fn, "v_two", lines, 16), 1);
	assert_int_equal(lines[0], 10);
	/* the FOR's query runs before its loop: both of s's constants */
	assert_int_equal(sites_named(&fn, "v_three", lines, 16), 1);
	assert_int_equal(lines[0], 15);
	assert_int_equal(sites_named(&fn, "v_four", lines, 16), 1);
	assert_int_equal(lines[0], 15);
	assert_true(find_site(&fn, "v_one", 0)->via_literal);
	for (int i = 0; i < fn.nsites; i++)
		assert_int_not_equal(fn.sites[i].kind, CGM_SITE_DYNAMIC);

	/* set any other way, or a parameter: SQL known only at run time */
	cgm_function other = make("plpgsql", "p text", "int",
				  "\nDECLARE q text := 'SELECT w_one()'; r int; t text := 'SELECT w_two()';\n"
				  "  u text := 'SELECT w_three()';\nBEGIN\n"
				  "  SELECT 'SELECT w_four()' INTO q;\n"
				  "  EXECUTE q INTO r;\n"
				  "  EXECUTE p INTO r;\n"
				  "  t := t || p;\n"
				  "  EXECUTE t INTO r;\n"
				  "  GET DIAGNOSTICS u = ROW_COUNT;\n"
				  "  EXECUTE u INTO r;\n"
				  "  RETURN r;\n"
				  "END\n");
	cgm_extract_function(arena, &other);
	assert_int_equal(other.nerrors, 0);
	assert_null(find_site(&other, "w_one", 0));
	assert_null(find_site(&other, "w_two", 0));
	assert_null(find_site(&other, "w_three", 0));
	assert_int_equal(count_kind(&other, CGM_SITE_DYNAMIC), 4);
}

/* SQL built of constant pieces appended under IFs (`q := q || ' AND b'`):
 * each value the variable may hold is walked, the longest first, one only
 * when it holds a piece not walked yet; a value that does not parse is a
 * way the code never goes; a piece in no value that parses, or one built
 * at run time, leaves a dynamic site. */
static void test_execute_of_appended_pieces(void **state)
{
	cgm_function fn = make("plpgsql", "kind text, lim int", "setof int",
			       "\nDECLARE q text; r int;\nBEGIN\n"
			       "  q := 'SELECT a_base(id) FROM app.items WHERE true';\n"     /* 4 */
			       "  IF kind IS NOT NULL THEN\n"
			       "    q := q || ' AND a_kind(kind) = $1';\n"
			       "  END IF;\n"
			       "  IF lim > 0 THEN\n"
			       "    q := q || ' AND ' || 'a_lim(id) < $2';\n"
			       "  ELSE\n"
			       "    q := q || ' AND a_nolim(id)';\n"
			       "  END IF;\n"
			       "  RETURN QUERY EXECUTE q USING kind, lim;\n"                  /* 13 */
			       "  q := 'SELECT b_one()';\n"
			       "  q := q || ' + ' || kind;\n"
			       "  EXECUTE q INTO r;\n"                                        /* 16 */
			       "  q := 'SELECT c_one(';\n"
			       "  IF kind = 'x' THEN q := q || '1)'; ELSE q := q || '2)'; END IF;\n"
			       "  EXECUTE q INTO r;\n"                                        /* 19 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	if (!from_parser_trees) {
		/* the JSON path tells no variable's assignments: three dynamic
		 * sites */
		assert_int_equal(count_kind(&fn, CGM_SITE_DYNAMIC), 3);
		assert_null(find_site(&fn, "a_base", 0));
		return;
	}
	const char *at13[] = { "a_base", "a_kind", "a_lim", "a_nolim" };
	for (size_t i = 0; i < sizeof at13 / sizeof *at13; i++) {
		const cgm_site *s = find_site(&fn, at13[i], 0);
		assert_non_null(s);
		assert_int_equal(s->line, 13);
		assert_int_equal(s->kind, CGM_SITE_EXEC_LITERAL);
	}
	/* the value with every piece parses: the only one walked */
	assert_null(find_site(&fn, "a_base", 1));
	assert_null(find_site(&fn, "b_one", 0));
	/* 'SELECT c_one(' alone does not parse, nor with both pieces: each
	 * piece in a value that does */
	const cgm_site *c = find_site(&fn, "c_one", 0);
	assert_non_null(c);
	assert_int_equal(c->line, 19);
	assert_non_null(find_site(&fn, "c_one", 1));
	int dynamic = 0;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC) {
			dynamic++;
			assert_int_equal(fn.sites[i].line, 16);
		}
	assert_int_equal(dynamic, 1);
}

/* One big value EXECUTEd many times: its sites are made again each time,
 * so the walks of one body are bounded (limits.h); past that, each
 * EXECUTE of the variable is a dynamic site. */
static void test_execute_of_a_variable_is_bounded(void **state)
{
	if (!from_parser_trees)
		return; /* the JSON path walks no variable's value */
	size_t cap = 1 << 20, len = 0;
	char *body = malloc(cap);
	assert_non_null(body);
	len += (size_t)snprintf(body + len, cap - len, "\nDECLARE q text := 'SELECT 0");
	for (int i = 0; i < 4000; i++)
		len += (size_t)snprintf(body + len, cap - len, ", big_%d()", i);
	len += (size_t)snprintf(body + len, cap - len, "';\nBEGIN\n");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(body + len, cap - len, "  EXECUTE q;\n");
	snprintf(body + len, cap - len, "END\n");
	cgm_function fn = make("plpgsql", "", "void", body);
	cgm_extract_function(arena, &fn);
	free(body);
	assert_int_equal(fn.nerrors, 0);
	int literal = count_kind(&fn, CGM_SITE_EXEC_LITERAL), dynamic = count_kind(&fn, CGM_SITE_DYNAMIC);
	/* walked while under 20,000 sites (and 1 MiB), then dynamic */
	assert_true(literal >= 20000 && literal <= 24000 + 4000);
	assert_int_equal(literal % 4000, 0);
	assert_int_equal(dynamic, 40 - literal / 4000);
}

/* format() over constant arguments is the SQL it always yields (its
 * identifiers quoted as quote_ident does); a run-time identifier leaves a
 * dynamic site.  Both readers agree: the PL/pgSQL parser's trees and the
 * JSON a DO block's EXECUTE is read from. */
static void test_execute_format_of_constants(void **state)
{
	cgm_function fn = make("plpgsql", "name text", "integer",
			       "\nDECLARE r int;\nBEGIN\n"
			       "  EXECUTE format('SELECT %I.%I(1)', 'app', 'fmt_one') INTO r;\n"     /* 4 */
			       "  EXECUTE format('SELECT %s(%L)', 'fmt_two', name) INTO r;\n"         /* 5 */
			       "  EXECUTE format('SELECT %2$I(%1$s)', 3, 'Fmt_Three'::text);\n"     /* 6 */
			       "  EXECUTE format('SELECT %I.%I()', 'app', name);\n"                   /* 7 */
			       "  EXECUTE format('SELECT %I()', NULL);\n"                             /* 8 */
			       "  RETURN r;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	const cgm_site *one = find_site(&fn, "fmt_one", 0);
	assert_non_null(one);
	assert_int_equal(one->kind, CGM_SITE_EXEC_LITERAL);
	assert_string_equal(one->schema, "app");
	assert_int_equal(one->line, 4);
	expect_site(&fn, "fmt_two", 5, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "Fmt_Three", 6, CGM_SITE_EXEC_LITERAL);
	int dynamic = 0;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC) {
			dynamic++;
			/* a run-time name, and a NULL that format() refuses */
			assert_true(fn.sites[i].line == 7 || fn.sites[i].line == 8);
		}
	assert_int_equal(dynamic, 2);

	char *sql = cgm_extract_constant_sql("format('SELECT %I.%I(%L, %s)', 'app', 'Mixed', NULL, 2)");
	assert_non_null(sql);
	assert_string_equal(sql, "SELECT app.\"Mixed\"(NULL, 2)");
	free(sql);
	assert_null(cgm_extract_constant_sql("format('SELECT %I()', name)"));
	assert_null(cgm_extract_constant_sql("format('SELECT %s(%s)', 'f')")); /* too few */
	sql = cgm_extract_constant_sql("format('SELECT %I(%L)', 'f'::text, x)");
	assert_non_null(sql);
	assert_string_equal(sql, "SELECT f(NULL)");
	free(sql);
}

/* An EXECUTE whose SQL has parts known only at run time still runs the
 * calls and relations it names by constants: sites of their own beside
 * the dynamic one, at the EXECUTE's line; whatever a run-time part names
 * (a schema, a table, an operand) is left to the dynamic site. */
static void test_execute_of_runtime_parts(void **state)
{
	cgm_function fn = make("plpgsql", "s text, tbl text, col text, kind text, n integer", "integer",
			       "\nDECLARE r int;\nBEGIN\n"
			       "  EXECUTE format('SELECT %I.handler(app.version(), %L)', s, n) INTO r;\n" /* 4 */
			       "  EXECUTE 'INSERT INTO app.log VALUES (' || n || ')';\n"                 /* 5 */
			       "  EXECUTE 'UPDATE ' || tbl || ' SET x = app.calc(1)';\n"                 /* 6 */
			       "  EXECUTE format($q$\n"                                                    /* 7 */
			       "    SELECT count(*) FROM app.tbl WHERE %I = app.val()\n"
			       "  $q$, col) INTO r;\n"
			       "  EXECUTE format('SELECT %s', col) INTO r;\n"                             /* 10 */
			       "  EXECUTE 'CREATE ' || kind || ' TABLE app.t (x int)';\n"                 /* 11 */
			       "  EXECUTE 'SELECT ' || s || '.gone1(1)';\n"                               /* 12 */
			       "  EXECUTE 'SELECT app.pick(' || quote_ident(col) || ', 1), app.pick(x.a, 2)'\n" /* 13 */
			       "    || ' FROM ' || tbl || ' x';\n"
			       "  EXECUTE format('CREATE TABLE app.%I (x int)', tbl);\n"              /* 15 */
			       "  EXECUTE format('ALTER TABLE app.t ADD c int DEFAULT %s', col);\n"  /* 16 */
			       "  EXECUTE format('ALTER TABLE %s %s', tbl, col);\n"                   /* 17 */
			       "  RETURN r;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	assert_int_equal(count_kind(&fn, CGM_SITE_DYNAMIC), 11);
	expect_site(&fn, "version", 4, CGM_SITE_EXEC_LITERAL);
	assert_string_equal(find_site(&fn, "version", 0)->schema, "app");
	assert_null(find_site(&fn, "handler", 0));
	expect_site(&fn, "log", 5, CGM_SITE_RELATION);
	assert_int_equal(cgm_site_get_rare(find_site(&fn, "log", 0))->events, CGM_EV_INSERT);
	expect_site(&fn, "calc", 6, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "val", 7, CGM_SITE_EXEC_LITERAL);
	expect_site(&fn, "tbl", 7, CGM_SITE_RELATION);
	/* which column it reads is known at run time: any may be */
	assert_null(cgm_site_get_rare(find_site(&fn, "tbl", 0))->reads);
	expect_site(&fn, "count", 7, CGM_SITE_EXEC_LITERAL); /* resolution finds it builtin */
	/* DDL is the command its constant parts spell, whatever the parts
	 * name (its event triggers fire), but a CREATE of a kind known at
	 * run time is no statement at all. */
	expect_site(&fn, "CREATE TABLE", 15, CGM_SITE_DDL);
	expect_site(&fn, "ALTER TABLE", 16, CGM_SITE_DDL);
	/* No statement parses at 17, but its first words make it an ALTER
	 * TABLE: of its event triggers, those of its subcommands (sql_drop,
	 * table_rewrite) are left to the dynamic site. */
	const cgm_site *alter_any = find_site(&fn, "ALTER TABLE", 1);
	assert_non_null(alter_any);
	assert_int_equal(alter_any->line, 17);
	assert_int_equal(fn.site_exprs[alter_any - fn.sites].ddl_facts,
			 CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING);
	assert_int_equal(count_kind(&fn, CGM_SITE_DDL), 3);
	/* A default known at run time may be volatile: the table may be
	 * rewritten, and its indexes built again. */
	const cgm_site *alter = find_site(&fn, "ALTER TABLE", 0);
	assert_false(fn.site_exprs[alter - fn.sites].ddl_facts & CGM_DDL_REWRITES_NOTHING);
	expect_site(&fn, "t", 16, CGM_SITE_RELATION);
	assert_int_equal(cgm_site_get_rare(find_site(&fn, "t", 0))->events, CGM_EV_REWRITE);
	expect_gone(&fn, 1, "is named by a run-time part");
	/* Nothing else: no relation for the UPDATE's run-time table, no
	 * operator of a run-time operand. */
	assert_int_equal(count_kind(&fn, CGM_SITE_RELATION), 3);
	assert_null(find_site(&fn, "=", 0));
	assert_int_equal(count_kind(&fn, CGM_SITE_EXEC_LITERAL), 6);
	/* Which overload a call with a run-time part among its arguments (the
	 * part itself, or a column of a relation it names) runs is the
	 * part's type's: resolution links it only when one function fits. */
	const cgm_site *pick = find_site(&fn, "pick", 0);
	const cgm_site *pick_column = find_site(&fn, "pick", 1);
	expect_site(&fn, "pick", 13, CGM_SITE_EXEC_LITERAL);
	assert_non_null(pick_column);
	assert_non_null(fn.site_exprs);
	assert_true(fn.site_exprs[pick - fn.sites].runtime_typed);
	assert_true(fn.site_exprs[pick_column - fn.sites].runtime_typed);
	assert_false(fn.site_exprs[find_site(&fn, "version", 0) - fn.sites].runtime_typed);
	assert_false(fn.site_exprs[find_site(&fn, "calc", 0) - fn.sites].runtime_typed);
}

/* What DDL stores it does not run (a table's defaults and checks, a
 * view's query, a parameter's default, a trigger's WHEN, a SET DEFAULT, a
 * query WITH NO DATA): no site; what it evaluates as it runs (an index's
 * expressions, a partition's bounds, CREATE TABLE AS) keeps its sites. */
static void test_ddl_definitions_run_nothing(void **state)
{
	cgm_function fn = make("plpgsql", "", "void",
			       "\nBEGIN\n"
			       "  CREATE TABLE t (a int DEFAULT d1(1) CHECK (c1(a) > 0));\n"      /* 3 */
			       "  CREATE VIEW v AS SELECT v1(a) FROM t;\n"                        /* 4 */
			       "  CREATE FUNCTION f(x int DEFAULT p1(1)) RETURNS int\n"           /* 5 */
			       "    LANGUAGE sql RETURN b1(x);\n"
			       "  CREATE TRIGGER g BEFORE INSERT ON t FOR EACH ROW\n"             /* 7 */
			       "    WHEN (w1(NEW.a) > 0) EXECUTE FUNCTION tf();\n"
			       "  ALTER TABLE t ALTER COLUMN a SET DEFAULT s1(2);\n"              /* 9 */
			       "  CREATE TABLE u AS SELECT n1(1) WITH NO DATA;\n"                 /* 10 */
			       "  CREATE INDEX ON t (i1(a));\n"                                  /* 11 */
			       "  CREATE TABLE t1 PARTITION OF t FOR VALUES FROM (pb1(1)) TO (2);\n" /* 12 */
			       "  CREATE TABLE w AS SELECT ca1(1);\n"                             /* 13 */
			       "  ALTER TABLE t ADD COLUMN b int DEFAULT ad1(1);\n"               /* 14 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	static const char *const stored[] = { "d1", "c1", "v1", "p1", "b1", "w1", "s1", "n1", NULL };
	for (int i = 0; stored[i]; i++)
		if (find_site(&fn, stored[i], 0))
			fail_msg("%s is stored, not run, yet has a site", stored[i]);
	expect_site(&fn, "i1", 11, CGM_SITE_CALL);
	expect_site(&fn, "pb1", 12, CGM_SITE_CALL);
	expect_site(&fn, "ca1", 13, CGM_SITE_CALL);
	expect_site(&fn, "ad1", 14, CGM_SITE_CALL);
	/* each is still the command it is: its event triggers fire */
	expect_site(&fn, "CREATE VIEW", 4, CGM_SITE_DDL);
	expect_site(&fn, "CREATE FUNCTION", 5, CGM_SITE_DDL);
}

/* An EXECUTE of a variable one assignment surely gives is read as that
 * assignment's expression: the command its constant parts spell, a site
 * whose text is the expression; not when a piece is appended after it. */
static void test_execute_of_assigned_variable(void **state)
{
	cgm_function fn = make("plpgsql", "t text, c text", "void",
			       "\nDECLARE q text; r text;\nBEGIN\n"
			       "  q := format('ALTER TABLE app.%I ADD COLUMN x int', t);\n"     /* 4 */
			       "  EXECUTE q;\n"                                                  /* 5 */
			       "  r := 'SELECT app.f(' || c;\n"                                  /* 6 */
			       "  r := r || ')';\n"                                              /* 7 */
			       "  EXECUTE r;\n"                                                  /* 8 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	if (!from_parser_trees)
		return; /* only the parser's trees tell what sets a variable */
	expect_site(&fn, "ALTER TABLE", 5, CGM_SITE_DDL);
	const cgm_site *q = find_site(&fn, "EXECUTE", 0);
	assert_non_null(q);
	assert_int_equal(q->line, 5);
	assert_string_equal(cgm_site_get_rare(q)->text, "format('ALTER TABLE app.%I ADD COLUMN x int', t)");
	const cgm_site *r = find_site(&fn, "EXECUTE", 1);
	assert_non_null(r);
	assert_int_equal(r->line, 8);
	assert_string_equal(cgm_site_get_rare(r)->text, "r");
	assert_null(find_site(&fn, "f", 0));
}

static void test_cursors_are_rewritten(void **state)
{
	cgm_function fn = make("plpgsql", "who text", "numeric",
			       "\nDECLARE\n"
			       "  c refcursor;\n"
			       "  bound CURSOR (w text) FOR SELECT amount FROM o WHERE x = w;\n"
			       "  r record; n numeric;\n"
			       "BEGIN\n"
			       "  OPEN c FOR SELECT open_call(1);\n"                 /* 7 */
			       "  FETCH c INTO n;\n"
			       "  CLOSE c;\n"
			       "  OPEN c FOR EXECUTE dyn_text(1);\n"                 /* 10 */
			       "  FOR r IN bound(arg_call(who)) LOOP\n"              /* 11 */
			       "    n := in_loop(r.amount);\n"                       /* 12 */
			       "  END LOOP;\n"
			       "  RETURN n;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	expect_site(&fn, "open_call", 7, CGM_SITE_CALL);
	expect_site(&fn, "arg_call", 11, CGM_SITE_CALL);
	expect_site(&fn, "in_loop", 12, CGM_SITE_CALL);
	bool dynamic_at_10 = false;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC && fn.sites[i].line == 10)
			dynamic_at_10 = true;
	assert_true(dynamic_at_10);
}

/* FETCH and MOVE of a cursor the function does not OPEN read a query
 * opened elsewhere: dynamic sites at their lines (PostgreSQL 15 and
 * cgmap_trace see the query's calls there); those of the function's own
 * cursor are not. */
static void test_fetch_of_a_cursor_parameter(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "have refcursor, \"Want\" refcursor", "integer",
			       "\nDECLARE\n"
			       "  own refcursor; r record;\n"
			       "BEGIN\n"
			       "  FETCH have INTO r; -- a comment; FETCH x\n"     /* 5 */
			       "  FETCH NEXT FROM \"Want\" INTO r;\n"             /* 6 */
			       "  MOVE FORWARD 2 IN have;\n"                     /* 7 */
			       "  OPEN own FOR SELECT 1;\n"
			       "  FETCH own INTO r;\n"                            /* 9 */
			       "  RAISE NOTICE 'FETCH have';\n"
			       "  RETURN 1;\n"
			       "END\n");
	static const char *names[] = { "have", "Want" }, *types[] = { "refcursor", "refcursor" };
	fn.nargs = 2;
	fn.argnames = names;
	fn.argtypes = types;
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	int lines[3] = { 0 }, n = 0;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC) {
			assert_true(n < 3);
			assert_string_equal(cgm_dynamic_site_verb(&fn.sites[i]), "FETCH FROM");
			lines[n++] = fn.sites[i].line;
		}
	assert_int_equal(n, 3);
	assert_int_equal(lines[0], 5);
	assert_int_equal(lines[1], 6);
	assert_int_equal(lines[2], 7);

	/* pgTAP's results_eq(refcursor, refcursor, text): its parameters have
	 * no names, the body aliases them. */
	cgm_function tap = make("plpgsql", "refcursor, refcursor, text", "text",
				"\nDECLARE\n"
				"    have ALIAS FOR $1;\n"
				"    want ALIAS FOR $2;\n"
				"    have_rec RECORD;\n"
				"BEGIN\n"
				"    FETCH have INTO have_rec;\n"   /* 7 */
				"    FETCH want INTO have_rec;\n"   /* 8 */
				"    RETURN $3;\n"
				"END\n");
	static const char *tap_types[] = { "refcursor", "refcursor", "text" };
	tap.nargs = 3;
	tap.argtypes = tap_types;
	cgm_extract_function(arena, &tap);
	assert_int_equal(tap.nerrors, 0);
	n = 0;
	for (int i = 0; i < tap.nsites; i++)
		if (tap.sites[i].kind == CGM_SITE_DYNAMIC)
			assert_int_equal(tap.sites[i].line, 7 + n++);
	assert_int_equal(n, 2);

	/* A cursor a call returned: opened elsewhere too.  A variable named
	 * move is no MOVE, declared or assigned (PostgreSQL 15 takes both). */
	cgm_function got = make("plpgsql", "", "integer",
				"\nDECLARE\n"
				"  c refcursor; r record; move integer;\n"
				"BEGIN\n"
				"  c := app.cursor_of();\n"
				"  FETCH c INTO r;\n"          /* 6 */
				"  move := 1;\n"
				"  RETURN move;\n"
				"END\n");
	cgm_extract_function(arena, &got);
	assert_int_equal(got.nerrors, 0);
	n = 0;
	for (int i = 0; i < got.nsites; i++)
		if (got.sites[i].kind == CGM_SITE_DYNAMIC) {
			assert_int_equal(got.sites[i].line, 6);
			n++;
		}
	assert_int_equal(n, 1);
}

/* A cursor FOR loop declares its own record variable: PostgreSQL takes
 * these bodies (checked on PostgreSQL 15, where cgmap_trace saw every call
 * at these lines); bound cursors take arguments by name too. */
static void test_cursor_loop_declares_its_variable(void **state)
{
	cgm_function fn = make("plpgsql", "", "integer",
			       "\nDECLARE c CURSOR FOR SELECT a FROM tt; y int := 0;\n"
			       "  c2 CURSOR (k int, j int) FOR SELECT a FROM tt WHERE a = k + j;\n"
			       "BEGIN\n"
			       "  FOR rec IN c LOOP y := first_loop(rec.a); END LOOP;\n"   /* 5 */
			       "  FOR r2 IN c2(k := named_arg(1), j := 2) LOOP\n"        /* 6 */
			       "    y := y + second_loop(r2.a);\n"                       /* 7 */
			       "  END LOOP;\n"
			       "  FOR rec IN c2(3, positional(4)) LOOP NULL; END LOOP;\n" /* 9 */
			       "  RETURN y;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "first_loop", 5, CGM_SITE_CALL);
	expect_site(&fn, "named_arg", 6, CGM_SITE_CALL);
	expect_site(&fn, "second_loop", 7, CGM_SITE_CALL);
	expect_site(&fn, "positional", 9, CGM_SITE_CALL);

	/* No DECLARE in the outermost block, a label and a comment before it;
	 * and a variable that is declared already stays as it is. */
	cgm_function bare = make("plpgsql", "", "integer",
				 "\n-- first\n<<outer>>\nBEGIN\n"
				 "  DECLARE c CURSOR FOR SELECT a FROM tt; r record;\n"
				 "  BEGIN\n"
				 "    <<l>> FOR rec IN c LOOP PERFORM in_bare(rec.a); EXIT l; END LOOP;\n" /* 7 */
				 "    FOR r IN c LOOP PERFORM in_declared(r.a); END LOOP;\n"            /* 8 */
				 "  END;\n"
				 "  RETURN 1;\n"
				 "END\n");
	cgm_extract_function(arena, &bare);
	if (bare.nerrors)
		fail_msg("line %d: %s", bare.errors[0].line, bare.errors[0].message);
	expect_site(&bare, "in_bare", 7, CGM_SITE_PERFORM);
	expect_site(&bare, "in_declared", 8, CGM_SITE_PERFORM);
}

static void test_rowtype_fields(void **state)
{
	cgm_function fn = make("plpgsql", "", "void",
			       "\nDECLARE rr app.tbl%ROWTYPE;\nBEGIN\n"
			       "  rr.col := field_call(1);\n"
			       "  rr.other := 2;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	expect_site(&fn, "field_call", 4, CGM_SITE_CALL);

	/* A variable of a composite type with more fields assigned than
	 * there are retries (PoWA's powa_kcache_mi assigns 25): all of them
	 * in one rewrite, quoted ones and INTO targets too. */
	static char body[4096];
	size_t len = (size_t)snprintf(body, sizeof body, "\nDECLARE res app.diff;\nBEGIN\n");
	for (int i = 0; i < 40; i++) /* lines 4-43 */
		len += (size_t)snprintf(body + len, sizeof body - len, "  res.f%d = a.f%d - b.f%d;\n", i, i, i);
	snprintf(body + len, sizeof body - len,
		 "  res.\"Odd\" := field_call(res.f1);\n" /* 44 */
		 "  SELECT 1 INTO res.f2;\n"
		 "  RETURN res;\nEND\n");
	cgm_function many = make("plpgsql", "a app.t, b app.t", "app.diff", body);
	cgm_extract_function(arena, &many);
	if (many.nerrors)
		fail_msg("line %d: %s", many.errors[0].line, many.errors[0].message);
	expect_site(&many, "field_call", 44, CGM_SITE_CALL);
}

static void test_dml_events(void **state)
{
	cgm_function fn = make("sql", "", "void",
			       "INSERT INTO a.t VALUES (1) ON CONFLICT (id) DO UPDATE SET x = 2;\n"
			       "MERGE INTO m USING s ON m.id = s.id\n"
			       "  WHEN MATCHED THEN DELETE\n"
			       "  WHEN NOT MATCHED THEN INSERT VALUES (s.id);\n"
			       "TRUNCATE tr;\n"
			       "WITH d AS (DELETE FROM dl RETURNING *) SELECT cte_call(count(*)) FROM d;\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	const cgm_site *ins = find_site(&fn, "t", 0);
	assert_non_null(ins);
	assert_string_equal(ins->schema, "a");
	assert_int_equal(cgm_site_get_rare(ins)->events, CGM_EV_INSERT);
	assert_int_equal(cgm_site_get_rare(ins)->ncolumns, 0);
	const cgm_site *upsert = find_site(&fn, "t", 1); /* ON CONFLICT DO UPDATE */
	assert_non_null(upsert);
	assert_int_equal(cgm_site_get_rare(upsert)->events, CGM_EV_UPDATE);
	assert_int_equal(cgm_site_get_rare(upsert)->ncolumns, 1);
	assert_string_equal(cgm_site_get_rare(upsert)->columns[0], "x");
	assert_null(find_site(&fn, "d", 0)); /* a CTE's name is no relation */
	assert_int_equal(cgm_site_get_rare(find_site(&fn, "s", 0))->events, CGM_EV_SELECT); /* MERGE's source */
	const cgm_site *m = find_site(&fn, "m", 0);
	assert_int_equal(cgm_site_get_rare(m)->events, CGM_EV_INSERT | CGM_EV_DELETE);
	assert_int_equal(m->line, 2);
	assert_int_equal(cgm_site_get_rare(find_site(&fn, "tr", 0))->events, CGM_EV_TRUNCATE);
	assert_int_equal(cgm_site_get_rare(find_site(&fn, "dl", 0))->events, CGM_EV_DELETE);
	expect_site(&fn, "cte_call", 6, CGM_SITE_CALL);
}

static void test_sql_atomic_body(void **state)
{
	cgm_function fn = make("sql", "n integer", "integer",
			       "BEGIN ATOMIC\n"
			       " SELECT (n * atomic_call(1));\n"
			       " SELECT second(2);\n"
			       "END");
	fn.atomic_body = true;
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	expect_site(&fn, "atomic_call", 2, CGM_SITE_CALL);
	expect_site(&fn, "second", 3, CGM_SITE_CALL);
}

static void test_parse_errors_keep_the_function(void **state)
{
	cgm_function fn = make("plpgsql", "", "integer", "\nBEGIN\n  RETURN 1 +;\nEND\n");
	cgm_extract_function(arena, &fn);
	assert_true(fn.analysed);
	assert_int_equal(fn.nerrors, 1);
	assert_non_null(strstr(fn.errors[0].message, "syntax error"));
	assert_int_equal(fn.errors[0].line, 3);

	cgm_function sql = make("sql", "", "integer", "SELECT 1;\nSELECT FROM WHERE;\n");
	cgm_extract_function(arena, &sql);
	assert_int_equal(sql.nerrors, 1);
	assert_int_equal(sql.errors[0].line, 2);
}

static void test_other_languages_are_not_analysed(void **state)
{
	cgm_function fn = make("c", "", "integer", "my_c_symbol");
	cgm_extract_function(arena, &fn);
	assert_false(fn.analysed);
	assert_int_equal(fn.nsites, 0);
}

static void test_procedure_and_variadic(void **state)
{
	cgm_function fn = make("plpgsql", "INOUT a integer, OUT b text", NULL,
			       "\nBEGIN\n"
			       "  a := a + vf(VARIADIC ARRAY[1, 2]);\n"
			       "  b := cast_call('x'::varchar, 1.5, NULL, true, 3000000000);\n"
			       "  COMMIT;\n"
			       "END\n");
	fn.kind = CGM_KIND_PROCEDURE;
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	const cgm_site *v = find_site(&fn, "vf", 0);
	assert_true(v->variadic_call);
	const cgm_site *c = find_site(&fn, "cast_call", 0);
	assert_int_equal(c->nargs, 5);
	assert_string_equal(c->argtypes[0], "character varying");
	assert_string_equal(c->argtypes[1], "numeric");
	assert_string_equal(c->argtypes[2], "unknown");
	assert_string_equal(c->argtypes[3], "boolean");
	assert_string_equal(c->argtypes[4], "bigint");
}

static void test_real_world_forms(void **state)
{
	/* Positional parameters, ALIAS FOR $n, an assignment whose value is a
	 * comparison, "=" assignment, any SQL statement, FOREACH, FOR IN
	 * EXECUTE, LATERAL and functions in FROM. */
	static const char *types[] = { "boolean", "text" };
	cgm_function fn = make("plpgsql", "boolean, text", "SETOF text",
			       "\nDECLARE\n"
			       "  aok ALIAS FOR $1;\n"                                  /* 3 */
			       "  x text; y boolean; r record; e text;\n"
			       "BEGIN\n"
			       "  y := lower($2) = 'ok';\n"                             /* 6 */
			       "  x = upper_first(aok, $2);\n"                          /* 7 */
			       "  CREATE TEMP TABLE t AS SELECT in_create(1);\n"        /* 8 */
			       "  FOREACH e IN ARRAY split_it($2) LOOP NULL; END LOOP;\n" /* 9 */
			       "  FOR r IN EXECUTE dyn_for($2) LOOP NULL; END LOOP;\n"  /* 10 */
			       "  RETURN QUERY SELECT l.v FROM src s,\n"                /* 11 */
			       "    LATERAL lat_fn(s.id) AS l(v), gen_rows(3) g;\n"     /* 12 */
			       "END\n");
	fn.argtypes = types;
	fn.nargs = 2;
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "lower", 6, CGM_SITE_CALL);
	expect_site(&fn, "upper_first", 7, CGM_SITE_CALL);
	const cgm_site *u = find_site(&fn, "upper_first", 0);
	assert_string_equal(u->argtypes[0], "boolean"); /* the alias keeps $1's type */
	assert_string_equal(u->argtypes[1], "text");    /* $2 */
	expect_site(&fn, "in_create", 8, CGM_SITE_CALL);
	expect_site(&fn, "split_it", 9, CGM_SITE_CALL);
	expect_site(&fn, "dyn_for", 10, CGM_SITE_CALL);
	expect_site(&fn, "lat_fn", 12, CGM_SITE_CALL);
	expect_site(&fn, "gen_rows", 12, CGM_SITE_CALL);
	bool dynamic_at_10 = false;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC && fn.sites[i].line == 10)
			dynamic_at_10 = true;
	assert_true(dynamic_at_10);
}

/* PL/pgSQL stores `SELECT ... INTO v` with the INTO clause replaced by
 * spaces, newlines included: a call after a multi-line INTO stands lower
 * in the body than the stored text's newlines say.  Each site is at the
 * line its name stands on. */
static void test_lines_after_into(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "a integer", "integer",
			       "\n"
			       "DECLARE v int; w int; r record;\n"                      /* 2 */
			       "BEGIN\n"                                                /* 3 */
			       "  SELECT a.x INTO v\n"                                  /* 4 */
			       "  FROM t a\n"                                           /* 5 */
			       "  WHERE a.y = into_one(1);\n"                           /* 6 */
			       "  SELECT into_two(2) INTO\n"                            /* 7 */
			       "     w\n"                                               /* 8 */
			       "  ;\n"                                                  /* 9 */
			       "  SELECT count(*) INTO STRICT v\n"                      /* 10 */
			       "    FROM t WHERE into_three(a) > 0;\n"                  /* 11 */
			       "  SELECT 1, 2 INTO v,\n"                                /* 12 */
			       "    w FROM t\n"                                         /* 13 */
			       "    WHERE into_targets(1) > 0;\n"                       /* 14 */
			       "  UPDATE t SET x = 1 WHERE y = 2 RETURNING x INTO\n"    /* 15 */
			       "    v; PERFORM after_update(1);\n"                      /* 16 */
			       "  DELETE FROM t RETURNING x INTO /* a\n"                /* 17 */
			       "    comment */ v; INSERT INTO t SELECT 1\n"             /* 18 */
			       "    RETURNING x, into_insert(x) INTO v\n"               /* 19 */
			       "    , w;\n"                                             /* 20 */
			       "  RETURN into_four(v);\n"                               /* 21 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "into_one", 6, CGM_SITE_CALL);
	expect_site(&fn, "into_two", 7, CGM_SITE_CALL);
	expect_site(&fn, "into_three", 11, CGM_SITE_CALL);
	expect_site(&fn, "into_targets", 14, CGM_SITE_CALL);
	expect_site(&fn, "after_update", 16, CGM_SITE_PERFORM);
	expect_site(&fn, "into_insert", 19, CGM_SITE_CALL);
	expect_site(&fn, "into_four", 21, CGM_SITE_CALL);
}

/* PL/pgSQL knows parameter n as the variable $n, OUT parameters counted:
 * `$1 := ...` assigns an unnamed OUT parameter (libpg_query's parser knows
 * no such variable until the header names it), and $n is typed as that
 * parameter, not as the n-th input. */
static void test_numbered_parameters(void **state)
{
	(void)state;
	cgm_function out = make("plpgsql", "OUT integer", NULL,
				"\nBEGIN\n  $1 := num_h();\nEND\n");
	cgm_extract_function(arena, &out);
	if (out.nerrors)
		fail_msg("line %d: %s", out.errors[0].line, out.errors[0].message);
	expect_site(&out, "num_h", 3, CGM_SITE_CALL);

	static const char *in_types[] = { "text" };
	cgm_function second = make("plpgsql", "text, OUT integer", NULL,
				   "\nBEGIN\n"
				   "  $2 := num_k($1);\n"              /* 3 */
				   "  SELECT num_s($2) INTO $2;\n"     /* 4 */
				   "  GET DIAGNOSTICS $2 = ROW_COUNT;\n"
				   "END\n");
	second.argtypes = in_types;
	second.nargs = 1;
	cgm_extract_function(arena, &second);
	if (second.nerrors)
		fail_msg("line %d: %s", second.errors[0].line, second.errors[0].message);
	expect_site(&second, "num_k", 3, CGM_SITE_CALL);
	assert_string_equal(find_site(&second, "num_k", 0)->argtypes[0], "text");
	expect_site(&second, "num_s", 4, CGM_SITE_CALL);
	assert_string_equal(find_site(&second, "num_s", 0)->argtypes[0], "integer");

	/* $2 is a, the text, though the second input is b. */
	static const char *named_types[] = { "text", "bigint" };
	static const char *names[] = { "a", "b" };
	cgm_function named = make("plpgsql", "OUT x integer, a text, b bigint", NULL,
				  "\nBEGIN\n  x := num_t($2, $3, $1);\nEND\n");
	named.argtypes = named_types;
	named.argnames = names;
	named.nargs = 2;
	cgm_extract_function(arena, &named);
	assert_int_equal(named.nerrors, 0);
	const cgm_site *t = find_site(&named, "num_t", 0);
	assert_non_null(t);
	assert_string_equal(t->argtypes[0], "text");
	assert_string_equal(t->argtypes[1], "bigint");
	assert_string_equal(t->argtypes[2], "integer");

	static const char *proc_types[] = { "integer" };
	cgm_function proc = make("plpgsql", "INOUT integer, OUT text", NULL,
				 "\nBEGIN\n"
				 "  $2 := num_p($1)::text;\n"        /* 3 */
				 "  SELECT num_q() INTO $1;\n"       /* 4 */
				 "END\n");
	proc.kind = CGM_KIND_PROCEDURE;
	proc.argtypes = proc_types;
	proc.nargs = 1;
	cgm_extract_function(arena, &proc);
	if (proc.nerrors)
		fail_msg("line %d: %s", proc.errors[0].line, proc.errors[0].message);
	expect_site(&proc, "num_p", 3, CGM_SITE_CALL);
	assert_string_equal(find_site(&proc, "num_p", 0)->argtypes[0], "integer");
	expect_site(&proc, "num_q", 4, CGM_SITE_CALL);

	/* A RETURNS TABLE column is a parameter too, after the inputs. */
	cgm_function table = make("plpgsql", "integer", "TABLE(r text)",
				  "\nBEGIN\n  $2 := num_r($2);\n  RETURN NEXT;\nEND\n");
	table.argtypes = proc_types;
	table.nargs = 1;
	cgm_extract_function(arena, &table);
	if (table.nerrors)
		fail_msg("line %d: %s", table.errors[0].line, table.errors[0].message);
	expect_site(&table, "num_r", 3, CGM_SITE_CALL);
	assert_string_equal(find_site(&table, "num_r", 0)->argtypes[0], "text");
}

/* Statements the raw-tree walker does not know (utility commands) are read
 * from libpg_query's JSON, in the same batch as the others: their sites keep
 * their lines, and the sites after them too. */
static void test_utility_statements_among_others(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "a integer", "void",
			       "\n"
			       "BEGIN\n"                                              /* 2 */
			       "  PERFORM before_util(1);\n"                          /* 3 */
			       "  CREATE TEMP TABLE tmp AS\n"                         /* 4 */
			       "    SELECT in_ctas(a) AS v;\n"                         /* 5 */
			       "  EXPLAIN SELECT in_explain(1);\n"                    /* 6 */
			       "  INSERT INTO t.tab SELECT * FROM tmp WHERE v = after_util(2);\n" /* 7 */
			       "  CREATE INDEX ON t.tab ((in_index(v)));\n"           /* 8 */
			       "  SELECT x FROM ROWS FROM (in_rows(1), in_rows2(2)) AS r(x int) INTO a;\n" /* 9 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	assert_int_equal(fn.nerrors, 0);
	expect_site(&fn, "before_util", 3, CGM_SITE_PERFORM);
	expect_site(&fn, "in_ctas", 5, CGM_SITE_CALL);
	expect_site(&fn, "in_explain", 6, CGM_SITE_CALL);
	expect_site(&fn, "tab", 7, CGM_SITE_RELATION);
	expect_site(&fn, "tmp", 7, CGM_SITE_RELATION); /* read */
	expect_site(&fn, "CREATE TABLE AS", 4, CGM_SITE_DDL);
	expect_site(&fn, "CREATE INDEX", 8, CGM_SITE_DDL);
	expect_site(&fn, "after_util", 7, CGM_SITE_CALL);
	expect_site(&fn, "in_index", 8, CGM_SITE_CALL);
	expect_site(&fn, "in_rows", 9, CGM_SITE_CALL);
	expect_site(&fn, "in_rows2", 9, CGM_SITE_CALL);
	const cgm_site *s = find_site(&fn, "before_util", 0);
	assert_int_equal(s->nargs, 1);
	assert_string_equal(s->argtypes[0], "integer");
	/* 7 calls, 2 relations, 2 DDL statements and the operator of
	 * `v = after_util(2)`, whose operands resolution types. */
	assert_int_equal(fn.nsites, 12);
}

static void test_out_parameters_and_bare_return_next(void **state)
{
	/* PostgreSQL returns the OUT parameters on a bare RETURN NEXT;
	 * libpg_query does not know them and needs the rewrite. */
	cgm_function fn = make("plpgsql", "IN a integer, OUT b integer, OUT c text", "SETOF record",
			       "\nBEGIN\n"
			       "  FOR i IN 1..a LOOP\n"
			       "    b := twice(i);\n"        /* 4 */
			       "    RETURN NEXT;\n"
			       "  END LOOP;\n"
			       "  c := label_of(a);\n"      /* 7 */
			       "  RETURN  NEXT ;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "twice", 4, CGM_SITE_CALL);
	expect_site(&fn, "label_of", 7, CGM_SITE_CALL);
}

/* The operator or cast site of that name, kind and line, with its operand
 * types ("-" for none known): "left right" or the one type. */
static void expect_opcast(const cgm_function *fn, const char *schema, const char *name, int line,
			  cgm_site_kind kind, const char *left, const char *right)
{
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		if (s->kind != kind || s->line != line || strcmp(s->name, name) != 0 ||
		    (schema == NULL) != (s->schema == NULL) || (schema && strcmp(schema, s->schema) != 0))
			continue;
		const char *want[2] = { left, right };
		int n = right ? 2 : 1;
		if (s->nargs != n)
			continue;
		bool same = true;
		for (int k = 0; k < n; k++) {
			const char *got = s->argtypes[k] ? s->argtypes[k] : "-";
			same = same && strcmp(got, want[k]) == 0;
		}
		if (same)
			return;
	}
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		fprintf(stderr, "  %s %s%s%s line %d (%s, %s)\n", cgm_site_kind_name(s->kind),
			s->schema ? s->schema : "", s->schema ? "." : "", s->name, s->line,
			s->nargs > 0 && s->argtypes[0] ? s->argtypes[0] : "-",
			s->nargs > 1 && s->argtypes[1] ? s->argtypes[1] : "-");
	}
	fail_msg("no %s site %s at line %d (%s, %s)", cgm_site_kind_name(kind), name, line, left,
		 right ? right : "");
}

static void test_operators_and_casts(void **state)
{
	cgm_function fn = make("plpgsql", "a app.money, n integer, t text[]", "boolean",
			       "\n"
			       "DECLARE\n"                                            /* 2 */
			       "  m app.money;\n"                                     /* 3 */
			       "BEGIN\n"                                              /* 4 */
			       "  IF a OPERATOR(app.===) m THEN\n"                     /* 5 */
			       "    m := -a;\n"                                       /* 6 */
			       "  END IF;\n"                                          /* 7 */
			       "  m := CAST(n AS app.money);\n"                       /* 8 */
			       "  m := n::app.money + 'x'::app.money;\n"              /* 9 */
			       "  RETURN a === m AND n IN (1, 2) AND n BETWEEN 1 AND n\n" /* 10 */
			       "     AND 'a' = ANY (t) AND g(n) <> n;\n"              /* 11 */
			       "END\n");
	const char *types[] = { "app.money", "integer", "text[]" }, *names[] = { "a", "n", "t" };
	fn.nargs = 3;
	fn.argtypes = types;
	fn.argnames = names;
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_opcast(&fn, "app", "===", 5, CGM_SITE_OPERATOR, "app.money", "app.money");
	expect_opcast(&fn, NULL, "-", 6, CGM_SITE_OPERATOR, "app.money", NULL);
	expect_opcast(&fn, NULL, "app.money", 8, CGM_SITE_CAST, "integer", NULL);
	expect_opcast(&fn, NULL, "app.money", 9, CGM_SITE_CAST, "integer", NULL);
	expect_opcast(&fn, NULL, "+", 9, CGM_SITE_OPERATOR, "app.money", "app.money");
	expect_opcast(&fn, NULL, "===", 10, CGM_SITE_OPERATOR, "app.money", "app.money");
	expect_opcast(&fn, NULL, "=", 10, CGM_SITE_OPERATOR, "integer", "integer");
	expect_opcast(&fn, NULL, ">=", 10, CGM_SITE_OPERATOR, "integer", "integer");
	expect_opcast(&fn, NULL, "<=", 10, CGM_SITE_OPERATOR, "integer", "integer");
	expect_opcast(&fn, NULL, "=", 11, CGM_SITE_OPERATOR, "unknown", "text");
	expect_opcast(&fn, NULL, "<>", 11, CGM_SITE_OPERATOR, "-", "integer"); /* g(n): unknown */
	/* 'x'::app.money reads a literal (the input function), which no cast
	 * does; it is a cast site all the same, from "unknown": were app.money
	 * a domain, its checks would run (resolution knows the domains). */
	expect_opcast(&fn, NULL, "app.money", 9, CGM_SITE_CAST, "unknown", NULL);
	int casts = 0, coercions = 0;
	for (int i = 0; i < fn.nsites; i++) {
		bool coerced = fn.site_exprs && fn.site_exprs[i].coerce_to;
		casts += fn.sites[i].kind == CGM_SITE_CAST && !coerced;
		coercions += fn.sites[i].kind == CGM_SITE_CAST && coerced;
	}
	assert_int_equal(casts, 3);
	/* The assignments to m (lines 6, 8, 9) may cast their values
	 * (cgmap/coerce.h): resolution decides; so may the RETURN of a boolean
	 * while the casts are unknown (a user cast may target a pg_catalog
	 * type); and so may the declaration of m, of a type outside
	 * pg_catalog, which PL/pgSQL assigns a NULL as the block starts (a
	 * domain's checks would see it).  The values are the rows of the
	 * parser's own checks, which a shared libpg_query (the JSON path) does
	 * not show. */
	assert_int_equal(coercions, from_parser_trees ? 5 : 0);
	expect_site(&fn, "g", 11, CGM_SITE_CALL);
	/* A catalog whose user casts all target types of their own: the
	 * RETURN of a boolean is not considered; one with none: nothing is. */
	const cgm_coercions modes[] = { CGM_COERCE_USER_TYPES, CGM_COERCE_NONE };
	const int want[] = { 4, 0 };
	for (int k = 0; k < 2; k++) {
		cgm_extract_function_with(arena, &fn, modes[k]);
		int n = 0;
		for (int i = 0; i < fn.nsites; i++)
			n += fn.sites[i].kind == CGM_SITE_CAST && fn.site_exprs &&
			     fn.site_exprs[i].coerce_to;
		assert_int_equal(n, from_parser_trees ? want[k] : 0);
		expect_site(&fn, "g", 11, CGM_SITE_CALL);
	}

	/* SQL bodies and constant EXECUTE SQL alike. */
	cgm_function sql = make("sql", "a integer", "boolean",
				"SELECT a::app.money === $1::app.money\n"
				"   AND $1 NOT BETWEEN 1 AND 2;\n");
	const char *sql_types[] = { "integer" }, *sql_names[] = { "a" };
	sql.nargs = 1;
	sql.argtypes = sql_types;
	sql.argnames = sql_names;
	cgm_extract_function(arena, &sql);
	assert_int_equal(sql.nerrors, 0);
	expect_opcast(&sql, NULL, "app.money", 1, CGM_SITE_CAST, "integer", NULL);
	expect_opcast(&sql, NULL, "===", 1, CGM_SITE_OPERATOR, "app.money", "app.money");
	expect_opcast(&sql, NULL, "<", 2, CGM_SITE_OPERATOR, "integer", "integer");
	expect_opcast(&sql, NULL, ">", 2, CGM_SITE_OPERATOR, "integer", "integer");
}

/* prefix, then `term` n times joined by `op`, then suffix (heap, in the
 * arena). */
static char *chain(const char *prefix, const char *term, const char *op, int n, const char *suffix)
{
	size_t tl = strlen(term), ol = strlen(op);
	size_t len = strlen(prefix) + (size_t)n * (tl + ol) + strlen(suffix) + 1;
	char *s = cgm_arena_alloc(arena, len), *p = s;
	p = stpcpy(p, prefix);
	for (int i = 0; i < n; i++) {
		if (i)
			p = stpcpy(p, op);
		p = stpcpy(p, term);
	}
	strcpy(p, suffix);
	return s;
}

static void expect_error(const cgm_function *fn, int line, const char *text)
{
	if (fn->nerrors != 1)
		fail_msg("%d errors, expected one saying '%s'", fn->nerrors, text);
	if (!strstr(fn->errors[0].message, text))
		fail_msg("error '%s', expected '%s'", fn->errors[0].message, text);
	if (fn->errors[0].line != line)
		fail_msg("error at line %d, expected %d", fn->errors[0].line, line);
}

/* 200,000 chained terms (about 400 KB, which PostgreSQL accepts) overflowed
 * the stack of the raw-tree walker and of libpg_query's JSON printer: now a
 * parse error naming the limit, and the rest of the function is mapped. */
static void test_deep_expressions_are_parse_errors(void **state)
{
	enum { N = 200000 };
	cgm_function fn = make("plpgsql", "", "integer",
			       chain("\nBEGIN\n  PERFORM before_it(1);\n  RETURN ok(1)+", "1", "+", N,
				     ";\nEND\n"));
	cgm_extract_function(arena, &fn);
	expect_error(&fn, 4, "nested deeper than 10000 levels");
	expect_site(&fn, "before_it", 3, CGM_SITE_PERFORM);

	cgm_function concat = make("plpgsql", "", "text",
				   chain("\nBEGIN\n  PERFORM before_it(1);\n  PERFORM ok(", "'a'", "||", N,
					 ");\nEND\n"));
	cgm_extract_function(arena, &concat);
	expect_error(&concat, 4, "nested deeper than 10000 levels");
	expect_site(&concat, "before_it", 3, CGM_SITE_PERFORM);

	cgm_function exec = make("plpgsql", "", "void",
				 chain("\nBEGIN\n  PERFORM before_it(1);\n  EXECUTE ", "'a'", "||", N,
				       ";\nEND\n"));
	cgm_extract_function(arena, &exec);
	expect_error(&exec, 4, "nested deeper than 10000 levels");
	expect_site(&exec, "before_it", 3, CGM_SITE_PERFORM);

	cgm_function sql = make("sql", "", "integer",
				chain("SELECT before_it(1);\nSELECT ok(1)+", "1", "+", N, ";\n"));
	cgm_extract_function(arena, &sql);
	expect_error(&sql, 2, "nested deeper than 10000 levels");

	/* Joins nest left-deep too. */
	cgm_function joins = make("sql", "", "integer",
				  chain("SELECT before_it(1);\nSELECT ok(1) FROM t", " JOIN t USING (a)", "", N, ";\n"));
	cgm_extract_function(arena, &joins);
	expect_error(&joins, 2, "nested deeper than 10000 levels");

	/* A statement the raw walker does not know goes to libpg_query's JSON
	 * printer: refused from its text before. */
	cgm_function utility = make("sql", "", "void",
				    chain("SELECT before_it(1);\nCREATE TABLE t (a int DEFAULT ", "1", "+", N,
					  ");\n"));
	cgm_extract_function(arena, &utility);
	expect_error(&utility, 2, "nested deeper than 10000 levels");
	expect_site(&utility, "before_it", 1, CGM_SITE_CALL);

	/* What PostgreSQL runs at its default stack depth is read whole. */
	cgm_function fine = make("plpgsql", "", "integer",
				 chain("\nBEGIN\n  RETURN ok(1)+", "1", "+", 4000, ";\nEND\n"));
	cgm_extract_function(arena, &fine);
	assert_int_equal(fine.nerrors, 0);
	expect_site(&fine, "ok", 3, CGM_SITE_CALL);
}

/* 32,000 nested slash-stars took PostgreSQL's lexer 8 s: refused before it. */
static void test_nested_comments_are_capped(void **state)
{
	char *open = chain("", "/*", "", 32000, ""), *close = chain("", "*/", "", 32000, "");
	cgm_function fn = make("plpgsql", "", "integer", "");
	fn.source = cgm_arena_printf(arena, "\nBEGIN\n  PERFORM before_it(1);\n  %s%s\n  RETURN 1;\nEND\n",
				     open, close);
	cgm_extract_function(arena, &fn);
	expect_error(&fn, 4, "comments nested deeper than 256 levels");

	cgm_function sql = make("sql", "", "integer", "");
	sql.source = cgm_arena_printf(arena, "SELECT 1;\n%s%s SELECT 2", open, close);
	cgm_extract_function(arena, &sql);
	expect_error(&sql, 2, "comments nested deeper than 256 levels");

	/* Nesting as real code does it is read as before. */
	cgm_function fine = make("plpgsql", "", "integer",
				 "\nBEGIN\n  /* a /* b /* c */ */ */ PERFORM g(1);\n  RETURN 1;\nEND\n");
	cgm_extract_function(arena, &fine);
	assert_int_equal(fine.nerrors, 0);
	expect_site(&fine, "g", 3, CGM_SITE_PERFORM);
}

/* PostgreSQL reads 'a' -- comment <newline> 'b' as one string; libpg_query
 * called 'b' a syntax error, and the whole function was dropped. */
static void test_string_continued_after_comment(void **state)
{
	cgm_function fn = make("plpgsql", "", "text",
			       "\nBEGIN\n"
			       "  PERFORM before_it(1);\n"          /* 3 */
			       "  RETURN 'a' -- the first part\n"   /* 4 */
			       "    -- and a comment line\n"         /* 5 */
			       "    'b' || after_it(2);\n"           /* 6 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "before_it", 3, CGM_SITE_PERFORM);
	expect_site(&fn, "after_it", 6, CGM_SITE_CALL);
	/* The source as written stays in the map. */
	assert_non_null(strstr(fn.source, "-- the first part"));

	cgm_function sql = make("sql", "", "text",
				"SELECT 'a' -- c\n"
				"  'b', h(1);\n");
	cgm_extract_function(arena, &sql);
	assert_int_equal(sql.nerrors, 0);
	expect_site(&sql, "h", 2, CGM_SITE_CALL);
}

/* A simple CASE's WHEN values are stored behind PL/pgSQL's prefix
 * ("__Case__Variable_N__" IN (...)): each call is at the line its name
 * stands on, when the values start on a later line than WHEN, span lines,
 * or follow a comment. */
static void test_simple_case_values(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "x integer", "integer",
			       "\nBEGIN\n"
			       "  CASE x\n"                          /* 3 */
			       "    WHEN\n"                          /* 4 */
			       "      c_first(1) THEN NULL;\n"       /* 5 */
			       "    WHEN c_second(2),\n"             /* 6 */
			       "\n"
			       "         c_third(3)\n"               /* 8 */
			       "      THEN NULL;\n"
			       "    WHEN /* c_not (a comment) */\n"  /* 10 */
			       "      c_fourth(4) THEN\n"            /* 11 */
			       "      RETURN c_then(5);\n"           /* 12 */
			       "    WHEN c_commented(6) -- why\n"   /* 13 */
			       "      THEN NULL;\n"
			       "    ELSE NULL;\n"
			       "  END CASE;\n"
			       "  RETURN 0;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "c_first", 5, CGM_SITE_CALL);
	expect_site(&fn, "c_second", 6, CGM_SITE_CALL);
	expect_site(&fn, "c_third", 8, CGM_SITE_CALL);
	expect_site(&fn, "c_fourth", 11, CGM_SITE_CALL);
	expect_site(&fn, "c_then", 12, CGM_SITE_CALL);
	/* libpg_query keeps the comment before THEN inside the `IN (...)`
	 * it builds: PostgreSQL leaves it out. */
	expect_site(&fn, "c_commented", 13, CGM_SITE_CALL);
	assert_null(find_site(&fn, "c_not", 0));
}

/* A CALL in the constant SQL of an EXECUTE calls a procedure, as CALL
 * does; a DO statement of a body parses, and its block's calls are its
 * own (an entry point at run time), not sites of the body. */
static void test_call_in_literal_and_do(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", NULL,
			       "\nBEGIN\n"
			       "  EXECUTE 'CALL p_lit(10, $x$baz$x$)';\n" /* 3 */
			       "  EXECUTE 'SELECT f_lit(1)';\n"          /* 4 */
			       "  DO 'BEGIN PERFORM in_do(); END';\n"    /* 5 */
			       "  DO $d$BEGIN PERFORM in_do(); END$d$;\n"
			       "  CALL after_do();\n"                    /* 7 */
			       "END\n");
	fn.kind = CGM_KIND_PROCEDURE;
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "p_lit", 3, CGM_SITE_CALL_STMT);
	assert_true(find_site(&fn, "p_lit", 0)->via_literal);
	assert_string_equal(find_site(&fn, "p_lit", 0)->argtypes[1], "unknown");
	expect_site(&fn, "f_lit", 4, CGM_SITE_EXEC_LITERAL);
	assert_null(find_site(&fn, "in_do", 0));
	expect_site(&fn, "after_do", 7, CGM_SITE_CALL_STMT);
}

/* In the constant SQL of an EXECUTE, $n is a value of its USING, not the
 * function's n-th parameter (plpgsql.sql's exc_using: `length($1)` with
 * USING $2, $1 is length(text), not a missing length(integer)), and has
 * that value's type. */
static void test_params_in_literal(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "a integer, b text", "integer",
			       "\nDECLARE i int;\nBEGIN\n"
			       "  EXECUTE 'SELECT lit_len($1) + $2' INTO i USING b, a;\n"
			       "  RETURN own_len($2);\n"
			       "END\n");
	const char *argtypes[] = { "integer", "text" };
	const char *argnames[] = { "a", "b" };
	fn.nargs = 2;
	fn.argtypes = argtypes;
	fn.argnames = argnames;
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	const cgm_site *lit = find_site(&fn, "lit_len", 0);
	assert_non_null(lit);
	assert_true(lit->via_literal);
	/* b, the first USING value: text, where the function's $1 is integer */
	assert_string_equal(lit->argtypes[0], "text");
	assert_string_equal(find_site(&fn, "own_len", 0)->argtypes[0], "text");
}

/* CREATE FUNCTION ... BEGIN ATOMIC ... END in a body is one statement, as
 * PostgreSQL 15 reads it: the body parses, the atomic body's calls are the
 * new function's, and what follows keeps its lines. */
static void test_create_atomic_in_body(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "integer",
			       "\nDECLARE procedure int;\nBEGIN\n"
			       "  CREATE FUNCTION made() RETURNS int\n"  /* 4 */
			       "    BEGIN ATOMIC\n"
			       "      SELECT in_atomic(1);\n"
			       "      SELECT CASE WHEN in_atomic(2) > 0 THEN 1 END;\n"
			       "    END;\n"
			       "  CREATE OR REPLACE PROCEDURE p() begin  -- why\n"
			       "    atomic SELECT in_atomic(3); end;\n"
			       "  RETURN after_atomic(4);\n"             /* 11 */
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	assert_null(find_site(&fn, "in_atomic", 0));
	expect_site(&fn, "after_atomic", 11, CGM_SITE_CALL);
}

static void expect_stmt(const cgm_function *fn, const char *name, const char *stmt)
{
	const cgm_site *s = find_site(fn, name, 0);
	if (!s || !s->stmt || strcmp(s->stmt, stmt) != 0)
		fail_msg("site '%s' of statement '%s', expected '%s'", name,
			 s && s->stmt ? s->stmt : "(none)", stmt);
}

/* PostgreSQL evaluates a bound cursor's OPEN arguments and a FETCH's or
 * MOVE's count: their calls are sites at the lines their names stand on,
 * of the statements they are in (checked on PostgreSQL 15 with
 * fixtures/plpgsql_lines.sql). */
static void test_cursor_statement_expressions(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "given refcursor", "integer",
			       "\nDECLARE\n"
			       "  c CURSOR (p int, q int) FOR SELECT decl_q(p) + q;\n"   /* 3 */
			       "  d refcursor; r record; v int;\n"
			       "BEGIN\n"
			       "  OPEN c(open_a(1), q := open_b(2));\n"                  /* 6 */
			       "  FETCH c INTO r; CLOSE c;\n"
			       "  OPEN c(\n"
			       "    p => open_c(3),\n"                                   /* 9 */
			       "    q => 4);\n"
			       "  CLOSE c;\n"
			       "  OPEN d SCROLL FOR SELECT scroll_q(x) FROM tt;\n"       /* 12 */
			       "  FETCH ABSOLUTE fetch_abs(10) FROM d INTO r;\n"         /* 13 */
			       "  MOVE FORWARD move_fwd() IN d;\n"                       /* 14 */
			       "  FETCH RELATIVE\n"
			       "     fetch_rel(1) FROM d INTO\n"                         /* 16 */
			       "     v; v := after_into(v);\n"                           /* 17 */
			       "  FETCH bare_count(2) FROM d INTO r;\n"                  /* 18 */
			       "  MOVE BACKWARD ALL FROM d; FETCH NEXT FROM d INTO r;\n"
			       "  ASSERT own_assert(1); MOVE RELATIVE (SELECT in_sub(1)) IN d;"
			       " ASSERT own_second(2);\n"                                /* 20 */
			       "  FETCH ABSOLUTE foreign_count(1) FROM given INTO r;\n"  /* 21 */
			       "  CLOSE d;\n"
			       "  RETURN v;\n"
			       "END\n");
	static const char *names[] = { "given" }, *types[] = { "refcursor" };
	fn.nargs = 1;
	fn.argnames = names;
	fn.argtypes = types;
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "decl_q", 3, CGM_SITE_CALL);
	expect_site(&fn, "open_a", 6, CGM_SITE_CALL);
	expect_site(&fn, "open_b", 6, CGM_SITE_CALL);
	expect_site(&fn, "open_c", 9, CGM_SITE_CALL);
	expect_site(&fn, "scroll_q", 12, CGM_SITE_CALL);
	expect_site(&fn, "fetch_abs", 13, CGM_SITE_CALL);
	expect_site(&fn, "move_fwd", 14, CGM_SITE_CALL);
	expect_site(&fn, "fetch_rel", 16, CGM_SITE_CALL);
	expect_site(&fn, "after_into", 17, CGM_SITE_CALL);
	expect_site(&fn, "bare_count", 18, CGM_SITE_CALL);
	expect_site(&fn, "own_assert", 20, CGM_SITE_CALL);
	expect_site(&fn, "in_sub", 20, CGM_SITE_CALL);
	expect_site(&fn, "own_second", 20, CGM_SITE_CALL);
	expect_site(&fn, "foreign_count", 21, CGM_SITE_CALL);
	/* Each in its own statement, the body's ASSERTs on the line too. */
	expect_stmt(&fn, "open_a", "open");
	expect_stmt(&fn, "open_c", "open");
	expect_stmt(&fn, "fetch_abs", "fetch");
	expect_stmt(&fn, "move_fwd", "move");
	expect_stmt(&fn, "fetch_rel", "fetch");
	expect_stmt(&fn, "bare_count", "fetch");
	expect_stmt(&fn, "own_assert", "assert");
	expect_stmt(&fn, "in_sub", "move");
	expect_stmt(&fn, "own_second", "assert");
	expect_stmt(&fn, "foreign_count", "fetch");
	/* An integer loop over a range of calls is no cursor loop, in a body
	 * the cursor rewrite reads (it once made the body a parse error). */
	cgm_function range = make("plpgsql", "", "integer",
				  "\nDECLARE d refcursor; lo int := 1;\n"
				  "BEGIN\n"
				  "  OPEN d FOR SELECT 1; CLOSE d;\n"
				  "  FOR i IN lo..range_hi() LOOP PERFORM in_range(i); END LOOP;\n" /* 5 */
				  "  FOR j IN 1..3 LOOP PERFORM in_const(j); END LOOP;\n"          /* 6 */
				  "  RETURN 1;\n"
				  "END\n");
	cgm_extract_function(arena, &range);
	if (range.nerrors)
		fail_msg("line %d: %s", range.errors[0].line, range.errors[0].message);
	expect_site(&range, "range_hi", 5, CGM_SITE_CALL);
	expect_site(&range, "in_range", 5, CGM_SITE_PERFORM);
	expect_site(&range, "in_const", 6, CGM_SITE_PERFORM);

	/* The FETCH of the parameter reads a query opened elsewhere. */
	int dynamic = 0;
	for (int i = 0; i < fn.nsites; i++)
		if (fn.sites[i].kind == CGM_SITE_DYNAMIC) {
			assert_int_equal(fn.sites[i].line, 21);
			dynamic++;
		}
	assert_int_equal(dynamic, 1);
}

/* What the planner folds to a constant never runs: `false AND x`, `true OR
 * x`, a CASE's WHEN false arm and what follows a WHEN true arm make no
 * site; `true AND x` and a WHEN it cannot fold keep theirs. */
static void test_constant_folding(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "integer",
			       "\n"
			       "DECLARE\n"                                                        /* 2 */
			       "  n integer;\n"                                                   /* 3 */
			       "  b boolean;\n"                                                   /* 4 */
			       "BEGIN\n"                                                          /* 5 */
			       "  SELECT count(*) INTO n FROM t WHERE (false) AND EXISTS (SELECT 1 FROM gone1());\n"
			       "  IF false AND gone2() THEN n := 1; END IF;\n"                     /* 7 */
			       "  b := true OR gone3();\n"                                        /* 8 */
			       "  n := CASE WHEN false THEN gone4() WHEN true THEN 1 ELSE gone5() END;\n"
			       "  IF (NOT true) AND gone6() THEN n := 2; END IF;\n"               /* 10 */
			       "  IF 'f'::boolean AND gone7() THEN n := 2; END IF;\n"             /* 11 */
			       "  b := true AND kept1();\n"                                       /* 12 */
			       "  n := CASE WHEN kept2() THEN kept3() WHEN false THEN gone8() ELSE kept4() END;\n"
			       "  RETURN n;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_gone(&fn, 8, "is folded away");
	expect_site(&fn, "kept1", 12, CGM_SITE_CALL);
	expect_site(&fn, "kept2", 13, CGM_SITE_CALL);
	expect_site(&fn, "kept3", 13, CGM_SITE_CALL);
	expect_site(&fn, "kept4", 13, CGM_SITE_CALL);
	cgm_function sql = make("sql", "", "bigint", "SELECT count(*) FROM t WHERE false AND gone1() OR kept1()");
	cgm_extract_function(arena, &sql);
	assert_null(find_site(&sql, "gone1", 0));
	expect_site(&sql, "kept1", 1, CGM_SITE_CALL);
}

/* A SELECT CTE nothing reads never runs, nor one read only by such a CTE;
 * a data-modifying CTE always runs, and so do the CTEs it reads. */
static void test_unread_ctes(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "integer",
			       "\n"
			       "DECLARE\n"                                                          /* 2 */
			       "  n integer;\n"                                                     /* 3 */
			       "BEGIN\n"                                                            /* 4 */
			       "  WITH a AS (SELECT gone1()), b AS (SELECT * FROM a) SELECT 1 INTO n;\n"
			       "  WITH a AS (SELECT kept1() AS v), b AS (SELECT v FROM a) SELECT v INTO n FROM b;\n"
			       "  WITH a AS (SELECT kept2() AS v), i AS (INSERT INTO t SELECT v FROM a RETURNING 1),\n"
			       "       c AS (SELECT gone2()) SELECT 1 INTO n;\n"                   /* 8 */
			       "  n := (WITH a AS (SELECT gone3()), c AS (SELECT kept3() AS v) SELECT v FROM c);\n"
			       "  WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT gone4() FROM r) SELECT 1 INTO n;\n"
			       "  RETURN n;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_gone(&fn, 4, "is in a CTE nothing reads");
	expect_site(&fn, "kept1", 6, CGM_SITE_CALL);
	expect_site(&fn, "kept2", 7, CGM_SITE_CALL);
	expect_site(&fn, "kept3", 9, CGM_SITE_CALL);
	cgm_function sql = make("sql", "", "bigint", "WITH a AS (SELECT gone1()) SELECT kept1()");
	cgm_extract_function(arena, &sql);
	assert_null(find_site(&sql, "gone1", 0));
	expect_site(&sql, "kept1", 1, CGM_SITE_CALL);
}

/* Attribute notation: `alias.name` of a FROM relation and `(x).name` are
 * candidate calls of name(row), flagged for resolution to keep or drop;
 * `var.name` of a PL/pgSQL variable, `sub.name` of a subquery and
 * `cte.name` of a CTE are not. */
static const cgm_site_exprs *attribute_exprs(const cgm_function *fn, const char *name)
{
	for (int i = 0; i < fn->nsites; i++)
		if (fn->sites[i].name && strcmp(fn->sites[i].name, name) == 0)
			return fn->site_exprs && fn->site_exprs[i].attribute ? &fn->site_exprs[i] : NULL;
	return NULL;
}

static void test_attribute_notation(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "", "integer",
			       "\n"
			       "DECLARE\n"                                                        /* 2 */
			       "  r app.person;\n"                                                /* 3 */
			       "  n text;\n"                                                      /* 4 */
			       "BEGIN\n"                                                          /* 5 */
			       "  SELECT p.full_name INTO n FROM app.person p;\n"                 /* 6 */
			       "  n := (r).badge;\n"                                              /* 7 */
			       "  n := r.varfield;\n"                                             /* 8 */
			       "  SELECT s.subfield INTO n FROM (SELECT 1 AS x) s;\n"             /* 9 */
			       "  WITH c AS (SELECT 1) SELECT c.ctefield INTO n FROM c;\n"        /* 10 */
			       "  SELECT upper(person.nested) INTO n FROM app.person;\n"          /* 11 */
			       "  RETURN 1;\n"
			       "END\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "full_name", 6, CGM_SITE_CALL);
	expect_site(&fn, "badge", 7, CGM_SITE_CALL);
	expect_site(&fn, "nested", 11, CGM_SITE_CALL);
	const char *candidates[] = { "full_name", "badge", "nested" };
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		const cgm_site_exprs *x = attribute_exprs(&fn, candidates[i]);
		if (!x || !x->argexprs || !x->argexprs[0])
			fail_msg("'%s' is not a candidate call in attribute notation", candidates[i]);
		assert_int_equal(find_site(&fn, candidates[i], 0)->nargs, 1);
	}
	assert_null(find_site(&fn, "varfield", 0));
	assert_null(find_site(&fn, "subfield", 0));
	assert_null(find_site(&fn, "ctefield", 0));
	/* An ordinary call is no candidate. */
	assert_null(attribute_exprs(&fn, "upper"));
	/* In a SQL function, `p.name` of no FROM item may be a parameter's. */
	cgm_function sql = make("sql", "p app.person", "text", "SELECT p.full_name, s.x FROM (SELECT 1 AS x) s");
	cgm_extract_function(arena, &sql);
	assert_non_null(attribute_exprs(&sql, "full_name"));
	assert_null(find_site(&sql, "x", 0));
}

/* A header whose default text came out broken (a source's misreading):
 * the body is read without the defaults and keeps its sites, on both
 * paths. */
static void test_broken_default_in_header(void **state)
{
	(void)state;
	cgm_function fn = make("plpgsql", "a integer DEFAULT , b text = 'x,y', c integer DEFAULT (", "integer",
			       "\nBEGIN\n  RETURN f(a, b, c);\nEND\n");
	cgm_extract_function(arena, &fn);
	if (fn.nerrors)
		fail_msg("line %d: %s", fn.errors[0].line, fn.errors[0].message);
	expect_site(&fn, "f", 3, CGM_SITE_CALL);
	assert_int_equal(find_site(&fn, "f", 0)->nargs, 3);
	const char *bare = cgm_plpgsql_args_without_defaults(arena, "a integer DEFAULT 1, b text = 'x,y', "
								     "c integer[] DEFAULT ARRAY[1, 2], d jsonb");
	assert_string_equal(bare, "a integer, b text, c integer[], d jsonb");
	assert_null(cgm_plpgsql_args_without_defaults(arena, "a integer, \"default\" text"));
}

/* The relation site of `name` in a SQL function's body `sql`. */
static const cgm_site *read_site_of(cgm_function *fn, const char *sql, const char *name)
{
	memset(fn, 0, sizeof *fn);
	fn->id = "t.f()";
	fn->schema = "t";
	fn->name = "f";
	fn->kind = CGM_KIND_FUNCTION;
	fn->language = "sql";
	fn->arguments = "";
	fn->result = "bigint";
	fn->source = sql;
	fn->npath = -1;
	cgm_extract_function(arena, fn);
	for (int i = 0; i < fn->nsites; i++)
		if (fn->sites[i].kind == CGM_SITE_RELATION && strcmp(fn->sites[i].name, name) == 0)
			return &fn->sites[i];
	fail_msg("no read of %s", name);
	return NULL;
}

/* "a b" of a site's reads, "*" for all. */
static const char *reads_of(const cgm_site *s)
{
	static char buf[256];
	const cgm_site_rare *x = cgm_site_get_rare(s);
	if (!x->reads)
		return "*";
	buf[0] = 0;
	for (int i = 0; i < x->nreads; i++) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", x->reads[i]);
	}
	return buf;
}

/* The columns a read may read (rawtree.c's stmt_refs): a view evaluates
 * only those of its output columns (viewcols.h). */
static void test_read_columns(void **state)
{
	(void)state;
	cgm_function fn;
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT sum(a) FROM app.v", "v")), "a");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT count(*) FROM app.v", "v")), "");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT * FROM app.v", "v")), "*");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT x.* FROM app.v x", "v")), "*");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT row_to_json(x) FROM app.v x", "v")), "*");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT row_to_json(v) FROM app.v", "v")), "*");
	/* Another item's columns are not v's; unqualified ones may be. */
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT w.b, c FROM app.v x JOIN app.w ON"
							" x.a = w.a WHERE x.d > 0 ORDER BY x.e",
					       "v")),
			    "w c a d e"); /* w.b: maybe column w's field b */
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT b FROM app.v JOIN app.w USING (k)", "v")),
			    "k b");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT b FROM app.v NATURAL JOIN app.w", "v")),
			    "*");
	/* A subquery's references to v count; its own relation is its own. */
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT x.a FROM app.v x WHERE EXISTS"
							" (SELECT 1 FROM app.u WHERE u.k = x.k)",
					       "v")),
			    "a u k");
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT x.a FROM app.v x WHERE EXISTS"
							" (SELECT 1 FROM app.u WHERE u.k = x.k)",
					       "u")),
			    "k x");
	/* A star in a subquery reads all of the subquery's own items. */
	assert_string_equal(reads_of(read_site_of(&fn, "SELECT count(*) FROM (SELECT * FROM app.v) s",
					       "v")),
			    "*");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statement_forms),
		cmocka_unit_test(test_comments_and_strings_are_not_calls),
		cmocka_unit_test(test_execute),
		cmocka_unit_test(test_execute_text_functions),
		cmocka_unit_test(test_execute_of_a_variable),
		cmocka_unit_test(test_cursors_are_rewritten),
		cmocka_unit_test(test_cursor_loop_declares_its_variable),
		cmocka_unit_test(test_rowtype_fields),
		cmocka_unit_test(test_dml_events),
		cmocka_unit_test(test_sql_atomic_body),
		cmocka_unit_test(test_parse_errors_keep_the_function),
		cmocka_unit_test(test_other_languages_are_not_analysed),
		cmocka_unit_test(test_procedure_and_variadic),
		cmocka_unit_test(test_fetch_of_a_cursor_parameter),
		cmocka_unit_test(test_real_world_forms),
		cmocka_unit_test(test_lines_after_into),
		cmocka_unit_test(test_numbered_parameters),
		cmocka_unit_test(test_out_parameters_and_bare_return_next),
		cmocka_unit_test(test_utility_statements_among_others),
		cmocka_unit_test(test_operators_and_casts),
		cmocka_unit_test(test_execute_of_appended_pieces),
		cmocka_unit_test(test_execute_of_a_variable_is_bounded),
		cmocka_unit_test(test_execute_format_of_constants),
		cmocka_unit_test(test_execute_of_runtime_parts),
		cmocka_unit_test(test_ddl_definitions_run_nothing),
		cmocka_unit_test(test_execute_of_assigned_variable),
		cmocka_unit_test(test_deep_expressions_are_parse_errors),
		cmocka_unit_test(test_nested_comments_are_capped),
		cmocka_unit_test(test_string_continued_after_comment),
		cmocka_unit_test(test_simple_case_values),
		cmocka_unit_test(test_call_in_literal_and_do),
		cmocka_unit_test(test_create_atomic_in_body),
		cmocka_unit_test(test_params_in_literal),
		cmocka_unit_test(test_cursor_statement_expressions),
		cmocka_unit_test(test_constant_folding),
		cmocka_unit_test(test_unread_ctes),
		cmocka_unit_test(test_attribute_notation),
		cmocka_unit_test(test_broken_default_in_header),
		cmocka_unit_test(test_read_columns),
		cmocka_unit_test(test_calls_guarded_against_a_missing_callee),
		cmocka_unit_test(test_calls_under_an_extension_test),
	};
	/* Every case on both paths: the trees libpg_query's own parser built,
	 * and the JSON path a shared libpg_query forces. */
	int failed = cmocka_run_group_tests_name("from the parser's trees", tests, setup, teardown);
	cgm_extract_use_parser_trees(false);
	from_parser_trees = false;
	failed += cmocka_run_group_tests_name("from libpg_query's JSON", tests, setup, teardown);
	cgm_extract_use_parser_trees(true);
	return failed;
}
