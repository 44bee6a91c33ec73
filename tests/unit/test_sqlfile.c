/*
 * test_sqlfile.c - the SQL-file source: statements applied in order as
 * PostgreSQL would, psql scripts read like psql, errors with file and line
 * while the rest is still mapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgmap/error.h"
#include "cgmap/extract_pool.h"
#include "cgmap/strbuf.h"
#include "cgmap/infile.h"
#include "cgmap/pipeline.h"
#include "sqlfile_types.h"

static char folder[256];

static void write_file(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", folder, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(folder, sizeof folder, "%s/cgmap-sqlfile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(folder));
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
	return system(cmd) == 0 ? 0 : -1;
}

/* Load `text` as one file; the model is indexed like the pipeline does. */
static cgm_model *load_text(const char *text)
{
	write_file("schema.sql", text);
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	const char *paths[] = { path };
	cgm_model *model = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(model, paths, 1, NULL), 0);
	cgm_model_index(model);
	cgm_model_link(model);
	return model;
}

static const cgm_function *fn(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0) {
		for (int k = 0; k < m->nuser; k++)
			fprintf(stderr, "  have %s\n", m->functions[k].id);
		fail_msg("no function %s", id);
	}
	return &m->functions[i];
}

static void test_create_replace_drop(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.f(a int, b varchar(10) DEFAULT 'x') RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n"
		"CREATE OR REPLACE FUNCTION app.f(a integer, b character varying DEFAULT 'x') RETURNS int\n"
		"  LANGUAGE plpgsql AS $$ BEGIN RETURN 2; END $$;\n"
		"CREATE FUNCTION app.gone() RETURNS void LANGUAGE sql AS 'SELECT 1';\n"
		"DROP FUNCTION app.gone();\n"
		"DROP FUNCTION IF EXISTS app.never(int);\n"
		"CREATE PROCEDURE app.p(INOUT x int, VARIADIC y text[]) LANGUAGE sql AS $$ SELECT 1 $$;\n"
		"CREATE FUNCTION app.t(n int) RETURNS TABLE(a int, \"B\" text) LANGUAGE sql AS $$ SELECT 1, 'b' $$;\n"
		"CREATE FUNCTION app.o(x int, OUT y int, OUT z timestamptz) LANGUAGE sql AS $$ SELECT 1, now() $$;\n"
		"CREATE FUNCTION app.td(ts timestamptz DEFAULT now(), n int DEFAULT 0)\n"
		"  RETURNS TABLE(a int) LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT n; END $$;\n"
		"CREATE FUNCTION app.ad(a int[] DEFAULT ARRAY[1, 2], /* x, y */ b int DEFAULT abs(-1) -- last\n"
		"  ) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN b; END $$;\n");
	assert_int_equal(m->nuser, 6);
	const cgm_function *f = fn(m, "app.f(integer,character varying)");
	assert_string_equal(f->language, "plpgsql");
	assert_string_equal(f->arguments, "a integer, b character varying DEFAULT 'x'::character varying");
	assert_string_equal(f->result, "integer");
	assert_int_equal(f->ndefaults, 1);
	assert_int_equal(f->file_line, 3);
	assert_string_equal(f->source, " BEGIN RETURN 2; END ");
	assert_non_null(f->body_hash);
	const cgm_function *p = fn(m, "app.p(integer,text[])");
	assert_int_equal(p->kind, CGM_KIND_PROCEDURE);
	assert_null(p->result);
	assert_true(p->variadic);
	assert_string_equal(p->variadic_elem, "text");
	assert_string_equal(p->arguments, "INOUT x integer, VARIADIC y text[]");
	assert_string_equal(fn(m, "app.t(integer)")->result, "TABLE(a integer, \"B\" text)");
	assert_string_equal(fn(m, "app.o(integer)")->result, "record");
	assert_string_equal(fn(m, "app.o(integer)")->arguments,
			    "x integer, OUT y integer, OUT z timestamp with time zone");
	/* RETURNS TABLE's columns are parameters after the written list:
	 * a default is still found in the text of that list. */
	assert_string_equal(fn(m, "app.td(timestamp with time zone,integer)")->arguments,
			    "ts timestamp with time zone DEFAULT now(), n integer DEFAULT 0");
	/* The commas of ARRAY[...] are not the list's; comments are no
	 * part of a default. */
	assert_string_equal(fn(m, "app.ad(integer[],integer)")->arguments,
			    "a integer[] DEFAULT ARRAY[1, 2], b integer DEFAULT abs(-1)");
	assert_int_equal(cgm_model_find(m, "app.gone()"), -1);
	/* The builtins are there for resolution. */
	assert_true(fn(m, "lower(text)")->builtin);
	/* The one thing said: app.f's first body never runs. */
	assert_int_equal(m->ndiagnostics, 1);
	assert_non_null(strstr(m->diagnostics[0].message,
			       "function app.f(integer,character varying) is defined again: its "
			       "definition at line 2 is replaced"));
	cgm_model_free(m);
}

static void test_alter_and_search_path(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app; CREATE SCHEMA old;\n"
		"SET search_path = app, public;\n"
		"CREATE TYPE status AS ENUM ('new', 'paid');\n"
		"CREATE TABLE orders (id bigserial, state status);\n"
		"CREATE FUNCTION f(s status, i orders.id%TYPE) RETURNS void LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE FUNCTION old.g() RETURNS int LANGUAGE sql SET search_path = app, \"My S\" AS 'SELECT 1';\n"
		"ALTER FUNCTION old.g() RENAME TO h;\n"
		"ALTER FUNCTION old.h() SET SCHEMA app;\n"
		"ALTER FUNCTION app.h() RESET search_path;\n"
		"ALTER FUNCTION f(status, bigint) SET search_path TO public;\n"
		"COMMENT ON FUNCTION f(app.status, bigint) IS 'note';\n"
		"SELECT pg_catalog.set_config('search_path', '', false);\n"
		"CREATE FUNCTION nowhere() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	const cgm_function *f = fn(m, "app.f(app.status,bigint)");
	assert_int_equal(f->npath, 1);
	assert_string_equal(f->search_path[0], "public");
	assert_string_equal(f->comment, "note");
	const cgm_function *h = fn(m, "app.h()");
	assert_int_equal(h->npath, -1);
	assert_null(h->search_path);
	assert_int_equal(cgm_model_find(m, "old.g()"), -1);
	/* With an empty search_path an unqualified CREATE has nowhere to go. */
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 13);
	assert_non_null(strstr(m->diagnostics[0].message, "no schema"));
	cgm_model_free(m);
}

static void test_errors_keep_the_rest(void **state)
{
	cgm_model *m = load_text(
		"CREATE FUNCTION a() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"\n"
		"CREATE FUNCTION b( RETURNS int;\n"
		"CREATE FUNCTION c() RETURNS int LANGUAGE sql\n"
		"BEGIN ATOMIC\n"
		"  SELECT 1;\n"
		"  SELECT 2;\n"
		"END;\n"
		"CREATE FUNCTION d() RETURNS int LANGUAGE sql RETURN 4;\n");
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 3);
	assert_non_null(strstr(m->diagnostics[0].message, "syntax error"));
	assert_non_null(strstr(m->diagnostics[0].file, "schema.sql"));
	fn(m, "public.a()");
	const cgm_function *c = fn(m, "public.c()");
	assert_true(c->atomic_body);
	assert_string_equal(c->source, "BEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND");
	assert_string_equal(fn(m, "public.d()")->source, "RETURN 4");
	cgm_model_free(m);
}

/* A psql variable nobody set stays as written, as psql leaves it, and
 * PostgreSQL's "syntax error at or near ':'" follows; the message names
 * the variable and how to give it, at the statement's line: one psql
 * sets itself when it connects (DBNAME), one a \gset would fill. */
static void test_unset_psql_variable_named(void **state)
{
	(void)state;
	cgm_model *m = load_text("CREATE SCHEMA app;\n"
				 "ALTER DATABASE :\"DBNAME\" SET search_path = app;\n"
				 "SELECT 1 AS n \\gset\n"
				 "SELECT :'total' + :n;\n"
				 "SELECT 1::int;\n");
	assert_int_equal(m->ndiagnostics, 2);
	assert_int_equal(m->diagnostics[0].line, 2);
	assert_string_equal(m->diagnostics[0].message,
			    "syntax error at or near \":\": psql variable \"DBNAME\" is not set: psql "
			    "sets it itself when it connects, cgmap connects to nothing; give its "
			    "value with --set DBNAME=VALUE");
	assert_int_equal(m->diagnostics[1].line, 4);
	assert_string_equal(m->diagnostics[1].message,
			    "syntax error at or near \":\": psql variable \"total\" is not set: "
			    "\\set it in the files or give it with --set total=VALUE (a value \\gset "
			    "would take from a query is not known before it runs)");
	cgm_model_free(m);
}

static void test_psql_script(void **state)
{
	cgm_model *m = load_text(
		"\xEF\xBB\xBF\\restrict abc123\n"
		"\\connect shop\n"
		"\\set ON_ERROR_STOP on\n"
		"CREATE TABLE t (a int);\n"
		"COPY public.t (a) FROM stdin;\n"
		"1\n"
		"\\N\n"
		"\\.\n"
		/* pg_dump's data sections: a comment, then the COPY; the data
		 * lines are no SQL, the statement after them is. */
		"--\n-- Data for Name: t; Type: TABLE DATA; Schema: public\n--\n\n"
		"/* and a block comment */ COPY public.t (a) FROM stdin;\n"
		"296660\tnot sql at all ;\n"
		"\\.\n"
		"CREATE FUNCTION after_data() RETURNS int LANGUAGE sql AS 'SELECT 3';\n"
		"CREATE FUNCTION e() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN E'\\\\x'; END $$;\n"
		"CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;\n"
		"CREATE TRIGGER t_trg BEFORE INSERT OR UPDATE ON t FOR EACH ROW EXECUTE FUNCTION trg();\n"
		"ALTER TABLE t DISABLE TRIGGER t_trg;\n"
		/* \gset sends the query as a ';' would; the next statement is
		 * one of its own. */
		"SELECT count(*) AS n FROM t \\gset\n"
		"CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"SELECT 2 \\g\n"
		/* plpgsql is in every database already. */
		"CREATE EXTENSION IF NOT EXISTS plpgsql;\n"
		"\\unrestrict abc123\n");
	assert_int_equal(m->ndiagnostics, 0);
	fn(m, "public.g()");
	fn(m, "public.e()");
	fn(m, "public.after_data()");
	assert_int_equal(m->ntriggers, 1);
	assert_string_equal(m->triggers[0].function_id, "public.trg()");
	assert_int_equal(m->triggers[0].events, CGM_EV_INSERT | CGM_EV_UPDATE);
	assert_false(m->triggers[0].enabled);
	/* t, and the catalog's relations a new database has. */
	int user = 0, catalog = 0;
	for (int i = 0; i < m->nrelations; i++) {
		if (strcmp(m->relations[i].schema, "pg_catalog") == 0 ||
		    strcmp(m->relations[i].schema, "information_schema") == 0)
			catalog++;
		else
			user++;
	}
	assert_int_equal(user, 1);
	assert_true(catalog > 100);
	cgm_model_free(m);
}

static void test_references(void **state)
{
	cgm_model *m = load_text(
		"CREATE FUNCTION ok(x int) RETURNS boolean LANGUAGE sql AS 'SELECT true';\n"
		"CREATE FUNCTION code() RETURNS text LANGUAGE sql AS 'SELECT 1::text';\n"
		"CREATE TABLE t (a int CHECK (ok(a)), b text DEFAULT code(), CHECK (ok(a + 1)));\n"
		"CREATE VIEW v AS SELECT ok(a), lower(b) FROM t;\n"
		"ALTER TABLE t ENABLE ROW LEVEL SECURITY;\n"
		"CREATE POLICY p ON t USING (ok(a));\n");
	const char *expected[] = {
		"constraint t_a_check on table public.t", "default value for column b of table public.t",
		"constraint t_a_check1 on table public.t", "rule _RETURN on view public.v",
		"policy p on table public.t",
	};
	assert_int_equal(m->nreferences, 5);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(m->references[i].object, expected[i]);
		assert_true(m->references[i].function >= 0);
	}
	cgm_model_free(m);
}

static void test_folders_and_archives(void **state)
{
	char sub[300], path[512];
	snprintf(sub, sizeof sub, "%s/migrations", folder);
	mkdir(sub, 0755);
	write_file("migrations/0002_b.sql", "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2';\n");
	write_file("migrations/0001_a.sql", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	write_file("migrations/notes.txt", "not sql");
	const char *paths[] = { sub };
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 1, NULL), 0);
	cgm_model_index(m);
	assert_string_equal(fn(m, "public.f()")->source, "SELECT 2");
	assert_non_null(strstr(fn(m, "public.f()")->file, "0002_b.sql"));
	cgm_model_free(m);

	write_file("dump.custom", "PGDMP\x01\x0e");
	snprintf(path, sizeof path, "%s/dump.custom", folder);
	const char *archive[] = { path };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, archive, 1, NULL), CGM_ESOURCE);
	assert_non_null(strstr(cgm_error_message(), "pg_restore -f - --schema-only"));
	cgm_model_free(m);

	/* A text file damaged by one NUL byte is refused, saying where. */
	snprintf(path, sizeof path, "%s/damaged.sql", folder);
	FILE *damaged = fopen(path, "w");
	assert_non_null(damaged);
	fwrite("SELECT 1;\nSELECT 2;\nSELECT \0;\n", 1, 30, damaged);
	fclose(damaged);
	const char *nul[] = { path };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, nul, 1, NULL), CGM_ESOURCE);
	assert_non_null(strstr(cgm_error_message(), "damaged.sql\" is not a text file of SQL: a NUL byte at line 3"));
	cgm_model_free(m);

	snprintf(path, sizeof path, "%s/missing.sql", folder);
	const char *missing[] = { path };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, missing, 1, NULL), CGM_ESOURCE);
	assert_non_null(strstr(cgm_error_message(), "missing.sql"));
	cgm_model_free(m);
}

/* DO blocks: what they make is in the map, at its line (the THEN of an
 * IF, nested blocks, EXECUTE of a constant, format() of constants), not
 * what an ELSE, a handler
 * or a loop would make; a guarded object that exists is kept unsaid. */
static void test_do_blocks(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE TYPE app.kind AS ENUM ('x');\n"
		"DO $$ BEGIN\n"
		"  CREATE TYPE app.status AS ENUM ('new', 'done');\n"
		"EXCEPTION WHEN duplicate_object THEN NULL;\n"
		"END $$;\n"
		"DO $do$ BEGIN\n"
		"  IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'helper') THEN\n"
		"    CREATE FUNCTION app.helper(s app.status) RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$;\n"
		"  ELSE\n"
		"    CREATE FUNCTION app.other() RETURNS int LANGUAGE sql AS $f$ SELECT 2 $f$;\n"
		"  END IF;\n"
		"  BEGIN\n"
		"    EXECUTE 'CREATE FUNCTION app.h2(n int) RETURNS int LANGUAGE sql AS ''SELECT n''';\n"
		"    EXECUTE format('CREATE FUNCTION app.%I() RETURNS int LANGUAGE sql AS ''SELECT 3''', 'dyn');\n"
		"    CREATE TYPE app.kind AS ENUM ('y');\n"
		"  EXCEPTION WHEN others THEN\n"
		"    CREATE FUNCTION app.handler() RETURNS int LANGUAGE sql AS $f$ SELECT 4 $f$;\n"
		"  END;\n"
		"  FOR i IN 1..2 LOOP\n"
		"    CREATE FUNCTION app.looped() RETURNS int LANGUAGE sql AS $f$ SELECT 5 $f$;\n"
		"  END LOOP;\n"
		"END $do$;\n"
		"DO LANGUAGE plperl $$ 1; $$;\n"
		"DO $$ BEGIN this is not plpgsql; END $$;\n"
		"CREATE FUNCTION app.f(s text) RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;\n"
		"CREATE FUNCTION app.f(s app.status) RETURNS int LANGUAGE sql AS $$ SELECT 3 $$;\n"
		"CREATE FUNCTION app.main() RETURNS int LANGUAGE plpgsql AS $$\n"
		"BEGIN RETURN app.f('new'::app.status) + app.helper('done') + app.h2(1); END $$;\n");
	assert_int_equal(fn(m, "app.helper(app.status)")->file_line, 9);
	assert_int_equal(fn(m, "app.h2(integer)")->file_line, 14);
	assert_int_equal(cgm_model_find(m, "app.other()"), -1);
	/* format() of constants is constant SQL too. */
	assert_int_equal(fn(m, "app.dyn()")->file_line, 15);
	assert_int_equal(cgm_model_find(m, "app.handler()"), -1);
	assert_int_equal(cgm_model_find(m, "app.looped()"), -1);
	/* The enum made in the block is a type the overloads know. */
	fn(m, "app.f(app.status)");
	fn(m, "app.f(text)");
	for (int i = 0; i < m->ndiagnostics; i++)
		fprintf(stderr, "diagnostic: line %d: %s\n", m->diagnostics[i].line, m->diagnostics[i].message);
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
}

/* Promscale's migrations: a DO block whose THEN only says the step ran
 * and returns, then runs the step as a DO block of its own (PL/pgSQL
 * parses a DO as it parses CALL); an IF whose THEN changes nothing and
 * whose ELSE creates ("IF found THEN RAISE ... ELSE CREATE ..."). */
static void test_do_block_nested_and_else(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"DO $outer$\n"
		"DECLARE applied text;\n"
		"BEGIN\n"
		"  SELECT current_setting('application_name') INTO applied;\n"
		"  IF applied = 'done' THEN\n"
		"    RAISE LOG 'already applied';\n"
		"    RETURN;\n"
		"  END IF;\n"
		"DO $inner$\n"
		"BEGIN\n"
		"  CREATE FUNCTION app.nested() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$;\n"
		"END;\n"
		"$inner$;\n"
		"  IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'x') THEN\n"
		"    RAISE NOTICE 'there';\n"
		"  ELSIF applied IS NULL THEN\n"
		"    NULL;\n"
		"  ELSE\n"
		"    CREATE FUNCTION app.made_else() RETURNS int LANGUAGE sql AS $f$ SELECT 2 $f$;\n"
		"  END IF;\n"
		"  IF applied IS NULL THEN\n"
		"    CREATE FUNCTION app.made_then() RETURNS int LANGUAGE sql AS $f$ SELECT 3 $f$;\n"
		"  ELSE\n"
		"    CREATE FUNCTION app.not_made() RETURNS int LANGUAGE sql AS $f$ SELECT 4 $f$;\n"
		"  END IF;\n"
		"  CALL app.missing_procedure();\n"
		"END $outer$;\n");
	assert_int_equal(fn(m, "app.nested()")->file_line, 12);
	assert_int_equal(fn(m, "app.made_else()")->file_line, 20);
	assert_int_equal(fn(m, "app.made_then()")->file_line, 23);
	assert_int_equal(cgm_model_find(m, "app.not_made()"), -1);
	for (int i = 0; i < m->ndiagnostics; i++)
		fprintf(stderr, "diagnostic: line %d: %s\n", m->diagnostics[i].line, m->diagnostics[i].message);
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
}

/* A DO block's variables, where the files tell their values: the
 * search_path it reads (`EXECUTE 'SHOW search_path' INTO v`,
 * current_setting() assigned or selected INTO) as the files left it, and
 * constants, substituted in what it EXECUTEs (postgresql-tableversion's
 * loader: `EXECUTE 'SET search_path = table_version, ' || cur`).  A value
 * a loop or a branch not followed may have changed is unknown, and what
 * names it is not applied; of branches that only give values, the first's
 * stand. */
static void test_do_block_variables(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE SCHEMA lib;\n"
		"CREATE SCHEMA \"Odd\";\n"
		"DO $$\n"
		"DECLARE cur text;\n"
		"BEGIN\n"
		"  EXECUTE 'SHOW search_path' INTO cur;\n"
		"  EXECUTE 'SET search_path = app, ' || cur;\n"
		"END $$;\n"
		"CREATE FUNCTION a1() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"DO $$\n"
		"DECLARE cur text; s text := 'lib';\n"
		"BEGIN\n"
		"  cur := pg_catalog.current_setting('search_path');\n"
		"  EXECUTE format('SET search_path = %I, %s', s, cur);\n"
		"END $$;\n"
		"CREATE FUNCTION l1() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"DO $$\n"
		"DECLARE cur text;\n"
		"BEGIN\n"
		"  SELECT current_setting('search_path') INTO cur;\n"
		"  EXECUTE 'SET search_path TO \"Odd\", ' || cur;\n"
		"END $$;\n"
		"CREATE FUNCTION o1() RETURNS int LANGUAGE sql AS 'SELECT 3';\n"
		"SET search_path = public;\n"
		"DO $$\n"
		"DECLARE cur text := 'app';\n"
		"BEGIN\n"
		"  FOR i IN 1..2 LOOP cur := 'lib'; END LOOP;\n"
		"  EXECUTE 'SET search_path = ' || cur;\n"
		"END $$;\n"
		"CREATE FUNCTION p1() RETURNS int LANGUAGE sql AS 'SELECT 4';\n"
		/* branches that only give values: THEN's stand, as a
		 * current server runs a version check */
		"DO $$\n"
		"DECLARE q text;\n"
		"BEGIN\n"
		"  IF current_setting('server_version_num')::int >= 150000 THEN\n"
		"    q := 'CREATE FUNCTION app.by_version() RETURNS int LANGUAGE sql AS ''SELECT 15''';\n"
		"  ELSIF current_setting('server_version_num')::int >= 140000 THEN\n"
		"    q := 'CREATE FUNCTION app.by_version_14() RETURNS int LANGUAGE sql AS ''SELECT 14''';\n"
		"  ELSE\n"
		"    q := 'CREATE FUNCTION app.by_version_old() RETURNS int LANGUAGE sql AS ''SELECT 0''';\n"
		"  END IF;\n"
		"  EXECUTE q;\n"
		"END $$;\n"
		/* ... but not when another branch changes the schema */
		"DO $$\n"
		"DECLARE q text;\n"
		"BEGIN\n"
		"  IF false THEN\n"
		"    q := 'CREATE FUNCTION app.not_then() RETURNS int LANGUAGE sql AS ''SELECT 1''';\n"
		"  ELSE\n"
		"    CREATE FUNCTION app.by_else() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"  END IF;\n"
		"  EXECUTE q;\n"
		"END $$;\n");
	fn(m, "app.by_version()");
	assert_int_equal(cgm_model_find(m, "app.by_version_14()"), -1);
	assert_int_equal(cgm_model_find(m, "app.by_version_old()"), -1);
	fn(m, "app.by_else()");
	assert_int_equal(cgm_model_find(m, "app.not_then()"), -1);
	fn(m, "app.a1()");
	fn(m, "lib.l1()");
	/* SHOW quotes a name as quote_identifier does: "Odd" is read back. */
	fn(m, "\"Odd\".o1()");
	/* The loop may have set lib: the SET is not applied. */
	fn(m, "public.p1()");
	/* Each EXECUTE not applied is said (line 30: the SET after the loop,
	 * line 53: the EXECUTE q after a branch that made DDL), and one
	 * warning for all; the EXECUTEs of SQL the files tell are not. */
	assert_int_equal(m->ndiagnostics, 3);
	assert_true(m->diagnostics[0].detail && m->diagnostics[0].line == 30);
	assert_non_null(strstr(m->diagnostics[0].message, "'SET search_path = ' || cur"));
	assert_true(m->diagnostics[1].detail && m->diagnostics[1].line == 53);
	assert_false(m->diagnostics[2].detail);
	assert_non_null(strstr(m->diagnostics[2].message, "2 EXECUTEs in DO blocks and routines the files call run SQL known only when they run"));
	cgm_model_free(m);
}

/* A DO block's EXECUTE of SQL the files cannot tell that may change the
 * schema, in a loop or after it, is said where it stands; one of a query,
 * a GRANT or a COMMENT is not. */
static void test_do_block_unknown_execute(void **state)
{
	(void)state;
	cgm_model *m = load_text("CREATE SCHEMA app;\n"
				 "DO $$\n"
				 "DECLARE t text;\n"
				 "BEGIN\n"
				 "  FOR t IN SELECT unnest(ARRAY['a','b']) LOOP\n"
				 "    EXECUTE format('CREATE TABLE app.%I (id int)', t);\n"
				 "    EXECUTE format('SELECT count(*) FROM app.%I', t);\n"
				 "  END LOOP;\n"
				 "  EXECUTE 'GRANT USAGE ON SCHEMA app TO ' || current_user;\n"
				 "  EXECUTE E'COMMENT ON SCHEMA app IS ' || quote_literal(t);\n"
				 "  EXECUTE t;\n"
				 "END $$;\n");
	assert_int_equal(m->ndiagnostics, 3);
	assert_int_equal(m->diagnostics[0].line, 6);
	assert_int_equal(m->diagnostics[1].line, 11);
	assert_string_equal(m->diagnostics[1].message,
			    "a DO block's EXECUTE of SQL known only when it runs is not applied: t");
	assert_int_equal(m->diagnostics[2].line, 6);
	cgm_model_free(m);
}

/* A procedure the files CALL runs there, as a DO block does: what it
 * makes is in the map, made at the CALL's line, with the values the CALL
 * gives its parameters (a parameter the body assigns to is a variable,
 * as Lemmy's create_triggers assigns function_body, and replace() of
 * constants is one); an EXECUTE of SQL known only when it runs (an
 * argument that is no constant) is said at that line.  A procedure
 * nobody CALLs makes nothing. */
static void test_called_procedure(void **state)
{
	(void)state;
	cgm_model *m = load_text("CREATE SCHEMA app;\n"
				 "CREATE PROCEDURE app.setup(kind text, body text) LANGUAGE plpgsql AS $p$\n"
				 "DECLARE defs text := 'CREATE FUNCTION app.thing_f() RETURNS int LANGUAGE sql AS x';\n"
				 "BEGIN\n"
				 "  CREATE FUNCTION app.made() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
				 "  body := replace(body, 'a', 'b');\n"
				 "  defs := replace(replace(defs, 'x', quote_literal(body)), 'thing', kind);\n"
				 "  EXECUTE defs;\n"
				 "END $p$;\n"
				 "CREATE PROCEDURE app.unused() LANGUAGE plpgsql AS $p$\n"
				 "BEGIN CREATE FUNCTION app.never() RETURNS int LANGUAGE sql AS 'SELECT 2'; END $p$;\n"
				 "CALL app.setup('comment', 'SELECT 1');\n"
				 "CALL app.setup('post', current_user);\n");
	cgm_model_index(m);
	assert_non_null(fn(m, "app.made()"));
	assert_int_equal(cgm_model_find(m, "app.never()"), -1);
	assert_non_null(fn(m, "app.comment_f()"));
	assert_int_equal(cgm_model_find(m, "app.post_f()"), -1);
	assert_int_equal(m->ndiagnostics, 2);
	assert_int_equal(m->diagnostics[0].line, 13);
	assert_true(m->diagnostics[0].detail);
	assert_string_equal(m->diagnostics[0].message,
			    "the CALL of app.setup(text,text) runs an EXECUTE (line 7 of its body) of SQL "
			    "known only when it runs, not applied: defs");
	assert_int_equal(m->diagnostics[1].line, 13);
	assert_non_null(strstr(m->diagnostics[1].message, "routines the files call"));
	cgm_model_free(m);
}

/* A PL/pgSQL function the files call in a SELECT runs there with the
 * arguments' values: xTuple's `SELECT dropIfExists('FUNCTION', 'f(int)')`
 * reaches, through a RETURN of its three-argument overload, the branch
 * its `UPPER(pType)` chooses (an ALIAS FOR $1), whose EXECUTE drops f.
 * Its EXECUTE stands in a block whose handler catches a missing
 * function: no message for the second call.  The third call's ELSE
 * returns before any EXECUTE; a call per row of a query is not run. */
static void test_called_function(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE FUNCTION dropifexists(text, text) RETURNS integer LANGUAGE plpgsql AS $f$\n"
		"BEGIN RETURN dropIfExists($1, $2, 'public'); END $f$;\n"
		"CREATE FUNCTION dropifexists(text, text, text) RETURNS integer LANGUAGE plpgsql AS $f$\n"
		"DECLARE\n"
		"  pType ALIAS FOR $1;\n"
		"  pSchema ALIAS FOR $3;\n"
		"  _query text;\n"
		"BEGIN\n"
		"  IF (UPPER(pType) = 'VIEW') THEN\n"
		"    _query = 'DROP VIEW ' || quote_ident(LOWER(pSchema)) || '.' || quote_ident(LOWER($2));\n"
		"  ELSIF (UPPER(pType) = 'FUNCTION') THEN\n"
		"    _query = 'DROP FUNCTION ' || LOWER(pSchema) || '.' || LOWER($2);\n"
		"  ELSE\n"
		"    RETURN 0;\n"
		"  END IF;\n"
		"  BEGIN\n"
		"    EXECUTE _query;\n"
		"  EXCEPTION WHEN undefined_function THEN RETURN 0;\n"
		"  END;\n"
		"  EXECUTE 'CREATE FUNCTION public.after_' || LOWER(pType) || '() RETURNS int LANGUAGE sql AS ''SELECT 1''';\n"
		"  RETURN 1;\n"
		"END $f$;\n"
		"CREATE FUNCTION public.old(integer) RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE FUNCTION public.kept(integer) RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"SELECT dropIfExists('function', 'OLD(integer)');\n"
		"SELECT dropIfExists('FUNCTION', 'absent(integer)');\n"
		"SELECT dropIfExists('TABLE', 'kept(integer)');\n"
		"SELECT dropIfExists('FUNCTION', relname) FROM pg_class;\n");
	assert_int_equal(cgm_model_find(m, "public.old(integer)"), -1);
	assert_non_null(fn(m, "public.kept(integer)"));
	/* Made after the EXECUTE of the first call; the third returned
	 * before it. */
	assert_non_null(fn(m, "public.after_function()"));
	assert_int_equal(cgm_model_find(m, "public.after_table()"), -1);
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
}

/* A helper that calls itself ten times over, changing the schema each
 * time, runs at most CGM_MAX_ROUTINE_RUNS routines for the statement that
 * called it (10^8 without the bound), says so once, and the next
 * statement starts anew.  One that changes nothing runs once per depth
 * and values: its calls again with the same values are known to do
 * nothing (no bound reached, nothing said). */
static void test_called_function_fan_out(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.fan(n integer) RETURNS void LANGUAGE plpgsql AS $f$\n"
		"BEGIN\n"
		"  CREATE TEMP TABLE IF NOT EXISTS fan_seen (n integer);\n"
		"  PERFORM app.fan(n); PERFORM app.fan(n); PERFORM app.fan(n); PERFORM app.fan(n);\n"
		"  PERFORM app.fan(n); PERFORM app.fan(n); PERFORM app.fan(n); PERFORM app.fan(n);\n"
		"  PERFORM app.fan(n); PERFORM app.fan(n);\n"
		"END $f$;\n"
		"SELECT app.fan(1);\n"
		"CREATE FUNCTION app.make() RETURNS void LANGUAGE plpgsql AS $f$\n"
		"BEGIN CREATE FUNCTION app.made() RETURNS int LANGUAGE sql AS 'SELECT 1'; END $f$;\n"
		"SELECT app.make();\n"
		"CREATE FUNCTION app.idle(n integer) RETURNS void LANGUAGE plpgsql AS $f$\n"
		"BEGIN\n"
		"  PERFORM app.idle(n); PERFORM app.idle(n); PERFORM app.idle(n); PERFORM app.idle(n);\n"
		"  PERFORM app.idle(n); PERFORM app.idle(n); PERFORM app.idle(n); PERFORM app.idle(n);\n"
		"  PERFORM app.idle(n); PERFORM app.idle(n);\n"
		"END $f$;\n"
		"SELECT app.idle(1);\n");
	assert_non_null(fn(m, "app.made()"));
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 9);
	assert_string_equal(m->diagnostics[0].message,
			    "the calls of this statement run more than 1000 routines: app.fan(integer) and the "
			    "rest are not followed");
	cgm_model_free(m);
}

/* What a called function's IF tests that the files cannot tell (the
 * catalog) takes no branch: the EXECUTEs in them are said, once for the
 * call, and nothing of them is applied; a DO block still guesses its
 * "IF NOT EXISTS ... THEN CREATE". */
static void test_called_function_unknown_branch(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.ensure(name text) RETURNS void LANGUAGE plpgsql AS $f$\n"
		"BEGIN\n"
		"  IF EXISTS (SELECT 1 FROM pg_proc WHERE proname = name) THEN\n"
		"    EXECUTE 'DROP FUNCTION app.' || name || '()';\n"
		"  ELSE\n"
		"    EXECUTE 'CREATE FUNCTION app.' || name || '() RETURNS int LANGUAGE sql AS ''SELECT 1''';\n"
		"  END IF;\n"
		"END $f$;\n"
		"SELECT app.ensure('made');\n"
		"DO $d$ BEGIN\n"
		"  IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'guessed') THEN\n"
		"    CREATE FUNCTION app.guessed() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"  END IF;\n"
		"END $d$;\n");
	assert_int_equal(cgm_model_find(m, "app.made()"), -1);
	assert_non_null(fn(m, "app.guessed()"));
	assert_int_equal(m->ndiagnostics, 2);
	assert_int_equal(m->diagnostics[0].line, 10);
	assert_true(m->diagnostics[0].detail);
	assert_string_equal(m->diagnostics[0].message,
			    "the call of app.ensure(text) may run 2 EXECUTEs of SQL known only when it runs, "
			    "not applied; the first (line 4 of its body): 'DROP FUNCTION app.' || name || '()'");
	assert_non_null(strstr(m->diagnostics[1].message, "1 EXECUTE in DO blocks and routines the files call runs"));
	cgm_model_free(m);
}

/* A DO block's IF whose condition its variables decide takes the branch
 * they choose (before, the first that changes the schema), and a RETURN
 * there ends the block; a RETURN in a branch guessed at does not. */
static void test_do_block_decided_branches(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"DO $d$ DECLARE v int := 1; kind text := 'b'; BEGIN\n"
		"  IF v = 2 THEN\n"
		"    CREATE FUNCTION app.no() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"  ELSIF kind IN ('a', 'b') AND NOT (kind IS NULL) THEN\n"
		"    CREATE FUNCTION app.yes() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"  ELSE\n"
		"    CREATE FUNCTION app.no_else() RETURNS int LANGUAGE sql AS 'SELECT 3';\n"
		"  END IF;\n"
		"  IF upper(kind) = 'B' THEN RETURN; END IF;\n"
		"  CREATE FUNCTION app.after_return() RETURNS int LANGUAGE sql AS 'SELECT 4';\n"
		"END $d$;\n"
		"DO $d$ BEGIN\n"
		"  IF EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'x') THEN RETURN; END IF;\n"
		"  CREATE FUNCTION app.past_guess() RETURNS int LANGUAGE sql AS 'SELECT 5';\n"
		"END $d$;\n");
	assert_non_null(fn(m, "app.yes()"));
	assert_int_equal(cgm_model_find(m, "app.no()"), -1);
	assert_int_equal(cgm_model_find(m, "app.no_else()"), -1);
	assert_int_equal(cgm_model_find(m, "app.after_return()"), -1);
	assert_non_null(fn(m, "app.past_guess()"));
	cgm_model_free(m);
}

/* Through the SQL source: a migration that names its schema in a
 * variable, given with --set for the first file, set by \set in an
 * include for the rest of that file, and gone in the next file (a new
 * psql run), where the statement using it does not parse. */
static void test_psql_variables(void **state)
{
	(void)state;
	char path1[512], path2[512];
	write_file("vars.sql", "CREATE FUNCTION :\"schema\".inc() RETURNS int LANGUAGE sql AS 'SELECT 0';\n");
	write_file("1.sql", "CREATE SCHEMA :\"schema\";\n"
			    "CREATE FUNCTION :\"schema\".helper() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "CREATE FUNCTION :\"schema\".main() RETURNS int LANGUAGE plpgsql\n"
			    "  AS $$ BEGIN RETURN app.helper(); END $$;\n"
			    "\\set schema other\n"
			    "\\ir vars.sql\n"
			    "\\set schema app\n"
			    "SELECT :'schema';\n");
	write_file("2.sql", "CREATE FUNCTION :\"schema\".later() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
			    "CREATE FUNCTION last() RETURNS int LANGUAGE sql AS 'SELECT 3';\n");
	snprintf(path1, sizeof path1, "%s/1.sql", folder);
	snprintf(path2, sizeof path2, "%s/2.sql", folder);
	const char *paths[] = { path1, path2 };
	const char *sets[] = { "schema=app" };
	cgm_source_options opts = { .psql_vars = sets, .npsql_vars = 1 };
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 2, &opts), 0);
	cgm_model_index(m);
	cgm_model_link(m);
	assert_true(cgm_model_find(m, "app.helper()") >= 0);
	int main_fn = cgm_model_find(m, "app.main()");
	assert_true(main_fn >= 0);
	assert_int_equal(m->functions[main_fn].file_line, 3);
	assert_true(cgm_model_find(m, "public.last()") >= 0);
	/* The include saw the variables of its place: schema "other" (not
	 * created: refused, as PostgreSQL would), not the "app" set after it. */
	assert_int_equal(cgm_model_find(m, "app.inc()"), -1);
	bool refused = false;
	for (int i = 0; i < m->ndiagnostics; i++)
		refused = refused || strstr(m->diagnostics[i].message, "schema \"other\" does not exist");
	assert_true(refused);
	/* The second file is a new run: --set's variables again, so it maps;
	 * without --set, its :"schema" is a syntax error on its line. */
	assert_true(cgm_model_find(m, "app.later()") >= 0);
	cgm_model_free(m);

	m = cgm_model_new();
	cgm_source_options none = { 0 };
	const char *second[] = { path2 };
	assert_int_equal(cgm_source_sql_load(m, second, 1, &none), 0);
	cgm_model_index(m);
	assert_true(cgm_model_find(m, "public.last()") >= 0);
	bool reported = false;
	for (int i = 0; i < m->ndiagnostics; i++)
		reported = reported || (m->diagnostics[i].line == 1 && strstr(m->diagnostics[i].message, "syntax error"));
	assert_true(reported);
	cgm_model_free(m);
}


/* A DO block's statement past libpg_query's limits is reported on its
 * line, never parsed (200,000 terms of a sum overflowed libpg_query's
 * stack), and the file goes on. */
static void test_do_block_too_deep(void **state)
{
	(void)state;
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&text, "CREATE SCHEMA app;\nDO $$ BEGIN\n  CREATE TABLE app.t AS SELECT 1");
	for (int i = 0; i < 200000; i++)
		cgm_strbuf_puts(&text, "+1");
	cgm_strbuf_puts(&text, ";\nEND $$;\nCREATE FUNCTION app.after() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	cgm_model *m = load_text(cgm_strbuf_cstr(&text));
	cgm_strbuf_free(&text);
	fn(m, "app.after()");
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 3);
	assert_non_null(strstr(m->diagnostics[0].message, "in a DO block: statement nested deeper"));
	cgm_model_free(m);
}

static void test_includes(void **state)
{
	char sub[300], path[512], text[1024];
	snprintf(sub, sizeof sub, "%s/part", folder);
	mkdir(sub, 0755);
	write_file("part/a.sql", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
				 "\\ir b.sql;\n"); /* psql drops the semicolon */
	write_file("part/b.sql", "CREATE FUNCTION h() RETURNS int LANGUAGE sql AS 'SELECT 3';\n");
	write_file("c.sql", "CREATE OR REPLACE FUNCTION h() RETURNS int LANGUAGE sql AS 'SELECT 4';\n");
	snprintf(path, sizeof path, "%s/c.sql", folder);
	snprintf(text, sizeof text,
		 "CREATE SCHEMA app;\n"
		 "SET search_path = app;\n"
		 "\\ir part/a.sql\n"
		 "CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		 "\\i '%s'\n"
		 "\\ir nowhere.sql\n",
		 path);
	cgm_model *m = load_text(text);
	/* The included files ran in the including session, in place. */
	const cgm_function *f = fn(m, "app.f()");
	assert_non_null(strstr(f->file, "part/a.sql"));
	assert_int_equal(f->file_line, 1);
	fn(m, "app.g()");
	assert_string_equal(fn(m, "app.h()")->source, "SELECT 4");
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 6);
	/* A file that is not there, in a folder given: said so, not
	 * "outside the paths". */
	assert_non_null(strstr(m->diagnostics[0].message, "/nowhere.sql\" failed: no such file"));
	cgm_model_free(m);
}

/* How many diagnostics hold `needle`. */
static int count_diagnostics(const cgm_model *m, const char *needle)
{
	int n = 0;
	for (int i = 0; i < m->ndiagnostics; i++)
		if (strstr(m->diagnostics[i].message, needle))
			n++;
	return n;
}

/* No message of the model holds `text` (a byte of a file it must not read). */
static void assert_nowhere(const cgm_model *m, const char *text)
{
	for (int i = 0; i < m->ndiagnostics; i++)
		if (strstr(m->diagnostics[i].message, text))
			fail_msg("diagnostic \"%s\" holds \"%s\"", m->diagnostics[i].message, text);
	for (int f = 0; f < m->nfunctions; f++)
		for (int e = 0; e < m->functions[f].nerrors; e++)
			if (strstr(m->functions[f].errors[e].message, text))
				fail_msg("parse error holds \"%s\"", text);
}

/* A link to "." made the walk follow loop/l/l/l/... until the kernel
 * refused (ELOOP), reading every file again on each level (two such links:
 * exponential).  Each real folder is walked once and each file read once,
 * whatever names lead to it. */
static void test_folder_links_walked_once(void **state)
{
	char sub[300], where[600], target[600];
	snprintf(sub, sizeof sub, "%s/loop", folder);
	mkdir(sub, 0755);
	write_file("loop/a.sql", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	snprintf(where, sizeof where, "%s/loop/again", folder);
	assert_int_equal(symlink(".", where), 0);
	snprintf(where, sizeof where, "%s/loop/b.sql", folder);
	assert_int_equal(symlink("a.sql", where), 0);
	snprintf(target, sizeof target, "%s/loop/a.sql", folder);
	snprintf(where, sizeof where, "%s/loop/c.sql", folder);
	assert_int_equal(link(target, where), 0); /* a hard link: same inode */
	const char *paths[] = { sub };
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 1, NULL), 0);
	cgm_model_index(m);
	assert_int_equal(m->nuser, 1);
	assert_int_equal(count_diagnostics(m, "walked once"), 1);
	assert_int_equal(count_diagnostics(m, "read once"), 2);
	assert_int_equal(count_diagnostics(m, "already exists"), 0);
	assert_int_equal(m->ndiagnostics, 3);
	cgm_model_free(m);
}

/* A file given to --sql that an include read before: said of the file
 * given, without a line (none of it is in question), naming the include
 * that read it; a file given twice, and an include of a file read under
 * another name, name the first reading. */
static void test_read_once_names_the_first_reading(void **state)
{
	(void)state;
	char sub[300], a[400], b[400], c[400];
	snprintf(sub, sizeof sub, "%s/once", folder);
	mkdir(sub, 0755);
	snprintf(b, sizeof b, "%s/once/b.sql", folder);
	char text[1000];
	snprintf(text, sizeof text,
		 "CREATE FUNCTION a() RETURNS int LANGUAGE sql AS 'SELECT 1';\n\\i %s\n\\ir c.sql\n", b);
	write_file("once/a.sql", text);
	write_file("once/b.sql", "CREATE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT 2';\n");
	snprintf(a, sizeof a, "%s/once/a.sql", folder);
	snprintf(c, sizeof c, "%s/once/c.sql", folder);
	assert_int_equal(symlink("b.sql", c), 0);
	const char *paths[] = { a, b, b };
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 3, NULL), 0);
	cgm_model_index(m);
	assert_int_equal(m->ndiagnostics, 3);
	char want[1200];
	assert_string_equal(m->diagnostics[0].file, a);
	assert_int_equal(m->diagnostics[0].line, 3);
	snprintf(want, sizeof want,
		 "include of \"%s/once/c.sql\" skipped: read already as \"%s\", by the include at "
		 "%s:2 (each file is read once)",
		 folder, b, a);
	assert_string_equal(m->diagnostics[0].message, want);
	assert_string_equal(m->diagnostics[1].file, b);
	assert_int_equal(m->diagnostics[1].line, 0);
	snprintf(want, sizeof want,
		 "given to --sql but read already by the include at %s:2: not read again "
		 "(each file is read once)",
		 a);
	assert_string_equal(m->diagnostics[1].message, want);
	/* Given again after: the include still read it first. */
	assert_int_equal(m->diagnostics[2].line, 0);
	assert_string_equal(m->diagnostics[2].message, want);
	cgm_model_free(m);

	/* Given twice, no include: said plainly. */
	const char *twice[] = { b, b };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, twice, 2, NULL), 0);
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 0);
	assert_string_equal(m->diagnostics[0].message, "given to --sql twice: read once");
	cgm_model_free(m);
}

/* psql's \i of a file outside the paths given (an absolute path, or ..)
 * read any file of the machine, and its first token came back in a parse
 * error.  Refused, unless allowed; nothing of the file reaches the model. */
static void test_include_outside_refused(void **state)
{
	char inside[300], secret[512], text[1200];
	snprintf(inside, sizeof inside, "%s/inside", folder);
	mkdir(inside, 0755);
	write_file("secret.sql", "topsecret:x:0:0:root:/root:/bin/bash\n");
	snprintf(secret, sizeof secret, "%s/secret.sql", folder);
	snprintf(text, sizeof text,
		 "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		 "\\i %s\n"
		 "\\ir ../secret.sql\n"
		 "\\ir ./../inside/../secret.sql\n",
		 secret);
	write_file("inside/main.sql", text);
	char path[512];
	snprintf(path, sizeof path, "%s/main.sql", inside);
	const char *paths[] = { path };
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 1, NULL), 0);
	cgm_model_index(m);
	assert_int_equal(count_diagnostics(m, "refused: it lies outside the paths given"), 3);
	for (int i = 0; i < m->ndiagnostics; i++) {
		assert_non_null(strstr(m->diagnostics[i].file, "main.sql"));
		assert_int_equal(m->diagnostics[i].line, i + 2);
	}
	assert_nowhere(m, "topsecret");
	cgm_model_free(m);

	/* Allowed: read (once), as psql would. */
	cgm_source_options opts = { .allow_include_outside = true };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 1, &opts), 0);
	assert_int_equal(count_diagnostics(m, "refused"), 0);
	assert_int_equal(count_diagnostics(m, "topsecret"), 1);
	assert_int_equal(count_diagnostics(m, "read already as"), 2);
	assert_int_equal(count_diagnostics(m, "read already"), 2);
	cgm_model_free(m);

	/* A folder given: its links leading outside are not followed. */
	char link[600];
	snprintf(link, sizeof link, "%s/inside/leak.sql", folder);
	assert_int_equal(symlink(secret, link), 0);
	const char *dirs[] = { inside };
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, dirs, 1, NULL), 0);
	assert_int_equal(count_diagnostics(m, "leads outside the folder given"), 1);
	assert_nowhere(m, "topsecret");
	cgm_model_free(m);
}

/* Only regular files are read, up to the size limit: \i /dev/zero grew to
 * gigabytes (/dev/null, a device too, stands in for it here), a file
 * including itself was read 16 levels deep. */
static void test_include_devices_size_and_cycles(void **state)
{
	cgm_source_options opts = { .allow_include_outside = true };
	char filler[400];
	memset(filler, '.', sizeof filler - 2);
	memcpy(filler, "SELECT 1; --", 12);
	filler[sizeof filler - 2] = '\n';
	filler[sizeof filler - 1] = '\0';
	write_file("big.sql", filler);
	char text[1200];
	snprintf(text, sizeof text,
		 "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		 "\\i /dev/null\n"
		 "\\ir big.sql\n"
		 "\\ir schema.sql\n");
	write_file("schema.sql", text);
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	const char *paths[] = { path };
	cgm_infile_set_max_size(200);
	cgm_model *m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, paths, 1, &opts), 0);
	cgm_infile_set_max_size(CGM_INFILE_DEFAULT_MAX);
	cgm_model_index(m);
	assert_int_equal(m->ndiagnostics, 3);
	assert_non_null(strstr(m->diagnostics[0].message, "\"/dev/null\" is not a regular file"));
	assert_int_equal(m->diagnostics[0].line, 2);
	assert_non_null(strstr(m->diagnostics[1].message, "big.sql\" is larger than the 200 bytes limit"));
	assert_int_equal(m->diagnostics[1].line, 3);
	assert_non_null(strstr(m->diagnostics[2].message,
			       "schema.sql\" skipped: a file given to --sql, read already"));
	assert_int_equal(m->diagnostics[2].line, 4);
	cgm_model_free(m);

	/* A file given that is too big: the run fails, naming it. */
	const char *big[] = { "" };
	char bigpath[512];
	snprintf(bigpath, sizeof bigpath, "%s/big.sql", folder);
	big[0] = bigpath;
	cgm_infile_set_max_size(300);
	m = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(m, big, 1, NULL), CGM_ESOURCE);
	cgm_infile_set_max_size(CGM_INFILE_DEFAULT_MAX);
	assert_non_null(strstr(cgm_error_message(), "big.sql"));
	assert_non_null(strstr(cgm_error_message(), "--max-file-size"));
	cgm_model_free(m);
}

/* --schema typo mapped no function and the run passed: a pattern (either
 * kind) that matches no schema of the files is an error naming it. */
/* Stopping on a --schema typo while the pool still extracts the functions
 * read so far: they are its until it has finished them (under ASan a use
 * after free otherwise, seen when the machine was busy). */
static void test_schema_typo_while_extracting(void **state)
{
	(void)state;
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "CREATE SCHEMA app;\n");
	for (int i = 0; i < 400; i++)
		cgm_strbuf_printf(&sql,
				  "CREATE FUNCTION app.f%d(x int) RETURNS int LANGUAGE plpgsql AS $$\n"
				  "BEGIN\n  RETURN app.f%d(x) + coalesce(length(x::text), 0);\nEND $$;\n",
				  i, i > 0 ? i - 1 : 0);
	write_file("many.sql", cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	char path[512];
	snprintf(path, sizeof path, "%s/many.sql", folder);
	const char *paths[] = { path };
	static const char *const typo[] = { "ap" };
	cgm_source_options opts = { .schemas = (const char **)typo, .nschemas = 1 };
	for (int threads = 2; threads <= 4; threads++) {
		cgm_model *m = cgm_model_new();
		cgm_extract_pool *pool = cgm_extract_pool_start(threads);
		assert_int_equal(cgm_source_sql_stream(m, paths, 1, &opts, pool), CGM_EUSAGE);
		cgm_extract_pool_cancel(pool, m->arena);
		cgm_model_free(m);
	}
}

static void test_schema_pattern_matching_nothing(void **state)
{
	write_file("schema.sql", "CREATE SCHEMA app;\n"
				 "CREATE FUNCTION app.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
				 "CREATE SCHEMA gone;\n"
				 "DROP SCHEMA gone;\n");
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	const char *paths[] = { path };
	static const char *const typo[] = { "ap" };
	static const char *const gone[] = { "gone" };
	static const char *const good[] = { "a*" };
	static const char *const system[] = { "pg_catalog" };
	struct {
		const char *const *schemas, *const *exclude;
		int rc;
		const char *message;
	} cases[] = {
		{ typo, NULL, CGM_EUSAGE, "--schema pattern \"ap\" matches no schema" },
		{ gone, NULL, CGM_EUSAGE, "--schema pattern \"gone\" matches no schema" },
		{ NULL, typo, CGM_EUSAGE, "--exclude-schema pattern \"ap\" matches no schema" },
		{ good, NULL, 0, NULL },
		{ good, system, 0, NULL },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		cgm_source_options opts = { .schemas = (const char **)cases[k].schemas,
					    .nschemas = cases[k].schemas ? 1 : 0,
					    .exclude_schemas = (const char **)cases[k].exclude,
					    .nexclude = cases[k].exclude ? 1 : 0 };
		cgm_model *m = cgm_model_new();
		assert_int_equal(cgm_source_sql_load(m, paths, 1, &opts), cases[k].rc);
		if (cases[k].message)
			assert_non_null(strstr(cgm_error_message(), cases[k].message));
		cgm_model_free(m);
	}
}

static void test_extensions(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA ext;\n"
		"CREATE EXTENSION IF NOT EXISTS hstore WITH SCHEMA ext;\n"
		"CREATE EXTENSION IF NOT EXISTS hstore;\n"
		"CREATE EXTENSION pgcrypto;\n"
		"DROP EXTENSION pgcrypto;\n"
		"CREATE EXTENSION no_such_extension;\n"
		"SET search_path = ext, public;\n"
		"CREATE FUNCTION public.keys(h hstore) RETURNS text[] LANGUAGE sql AS 'SELECT ext.akeys(h)';\n");
	/* The extension's types name parameters; its functions are there for
	 * resolution, in the schema it was created in. */
	fn(m, "public.keys(ext.hstore)");
	const cgm_function *akeys = fn(m, "ext.akeys(ext.hstore)");
	assert_true(akeys->builtin);
	assert_true(akeys->from_extension);
	assert_string_equal(akeys->result, "text[]");
	assert_int_equal(cgm_model_find(m, "public.crypt(text,text)"), -1);
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 6);
	assert_non_null(strstr(m->diagnostics[0].message, "no_such_extension"));
	assert_int_equal(m->nuser, 1);
	cgm_model_free(m);
}

/* DROP SCHEMA ... CASCADE takes the extensions with members there (a
 * later CREATE EXTENSION IF NOT EXISTS makes them again), the schema's
 * types, and the functions elsewhere that take or return them; DROP
 * EXTENSION its types and casts too. */
static void test_drop_schema_cascade(void **state)
{
	cgm_model *m = load_text(
		"CREATE EXTENSION IF NOT EXISTS pgcrypto;\n"
		"CREATE SCHEMA ext;\n"
		"CREATE EXTENSION citext SCHEMA ext;\n"
		"CREATE TYPE public.mood AS ENUM ('ok');\n"
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.feel(m public.mood) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$;\n"
		"CREATE FUNCTION app.moods() RETURNS SETOF public.mood LANGUAGE sql AS $$ SELECT 'ok'::public.mood $$;\n"
		"CREATE FUNCTION app.shout(s ext.citext[]) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$;\n"
		"CREATE FUNCTION app.keep(s text) RETURNS text LANGUAGE sql AS $$ SELECT s $$;\n"
		"DROP SCHEMA public CASCADE;\n"
		"CREATE SCHEMA public;\n"
		"CREATE EXTENSION IF NOT EXISTS pgcrypto;\n"
		"CREATE FUNCTION public.sign(t text) RETURNS bytea LANGUAGE sql\n"
		"  AS $$ SELECT public.hmac(t, 'k', 'sha256') $$;\n"
		"DROP EXTENSION citext CASCADE;\n"
		"CREATE EXTENSION citext SCHEMA ext;\n");
	assert_true(fn(m, "public.hmac(text,text,text)")->from_extension);
	assert_true(fn(m, "public.hmac(bytea,bytea,text)")->from_extension);
	fn(m, "public.sign(text)");
	fn(m, "app.keep(text)");
	assert_int_equal(cgm_model_find(m, "app.feel(public.mood)"), -1);
	assert_int_equal(cgm_model_find(m, "app.moods()"), -1);
	/* DROP EXTENSION ... CASCADE: what takes its types goes too; made
	 * again, its functions are back and its casts there once. */
	assert_int_equal(cgm_model_find(m, "app.shout(ext.citext[])"), -1);
	assert_true(fn(m, "ext.citext(boolean)")->from_extension);
	int citext_casts = 0;
	for (int i = 0; i < m->ncasts; i++)
		if (strcmp(m->casts[i].source, "ext.citext") == 0 && strcmp(m->casts[i].target, "text") == 0)
			citext_casts++;
	assert_int_equal(citext_casts, 1);
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
}

/* Files as given, in order (in the test's folder). */
static cgm_model *load_files(const char *const *names, int n)
{
	char paths[8][512];
	const char *p[8];
	for (int i = 0; i < n && i < 8; i++) {
		snprintf(paths[i], sizeof paths[i], "%s/%s", folder, names[i]);
		p[i] = paths[i];
	}
	cgm_model *model = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(model, p, n, NULL), 0);
	cgm_model_index(model);
	cgm_model_link(model);
	return model;
}

/* The owner of each function (the acting role when it was created, OWNER
 * TO, REASSIGN OWNED, a role renamed) and the path its sessions start with
 * by the role's settings as the files leave them (IN DATABASE first,
 * "$user" the owner); a new file is a new session, acting as psql's own
 * role, which the files do not name. */
static void test_owner_paths(void **state)
{
	(void)state;
	write_file("a.sql", "CREATE SCHEMA app;\n"
			    "ALTER ROLE owner1 SET search_path = app, public;\n"
			    "ALTER ROLE owner1 IN DATABASE d SET search_path = \"$user\", app;\n"
			    "ALTER ROLE owner2 SET search_path TO 'app';\n"
			    "ALTER ROLE owner2 RESET search_path;\n"
			    "ALTER ROLE old3 SET search_path = public;\n"
			    "CREATE FUNCTION app.nobody() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "SET ROLE owner1;\n"
			    "CREATE FUNCTION app.one() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "RESET ROLE;\n"
			    "SET SESSION AUTHORIZATION owner2;\n"
			    "CREATE FUNCTION app.two() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "SET ROLE owner1;\n"
			    "CREATE OR REPLACE FUNCTION app.two() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
			    "CREATE FUNCTION app.three() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "ALTER FUNCTION app.three() OWNER TO old3;\n"
			    "ALTER ROLE old3 RENAME TO new3;\n"
			    "CREATE FUNCTION app.four() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "REASSIGN OWNED BY owner1 TO owner2;\n"
			    "CREATE FUNCTION app.five() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "ALTER FUNCTION app.five() OWNER TO CURRENT_USER;\n");
	write_file("b.sql", "CREATE FUNCTION app.six() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	static const char *const names[] = { "a.sql", "b.sql" };
	cgm_model *m = load_files(names, 2);
	assert_null(fn(m, "app.nobody()")->owner);
	assert_null(fn(m, "app.nobody()")->owner_path);
	/* REASSIGN OWNED moved one() and four() from owner1 to owner2, whose
	 * setting was reset. */
	assert_string_equal(fn(m, "app.one()")->owner, "owner2");
	assert_null(fn(m, "app.one()")->owner_path);
	assert_string_equal(fn(m, "app.four()")->owner, "owner2");
	/* CREATE OR REPLACE keeps the owner; SET ROLE owner1 came after. */
	assert_string_equal(fn(m, "app.two()")->owner, "owner2");
	const cgm_function *three = fn(m, "app.three()");
	assert_string_equal(three->owner, "new3");
	assert_int_equal(three->nowner_path, 1);
	assert_string_equal(three->owner_path[0], "public");
	/* CURRENT_USER: owner1, still acting; its IN DATABASE setting wins. */
	const cgm_function *five = fn(m, "app.five()");
	assert_string_equal(five->owner, "owner1");
	assert_int_equal(five->nowner_path, 2);
	assert_string_equal(five->owner_path[0], "owner1");
	assert_string_equal(five->owner_path[1], "app");
	assert_null(fn(m, "app.six()")->owner);
	cgm_model_free(m);
}

/* ALTER DATABASE ... SET search_path is what later sessions start with
 * (the next file) and what calls resolve through, as current_schemas(true)
 * of the database gives it: "$user" and missing schemas left out. */
static void test_database_search_path(void **state)
{
	(void)state;
	write_file("a.sql", "CREATE SCHEMA x;\n"
			    "CREATE FUNCTION x.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
			    "ALTER DATABASE d SET search_path = \"$user\", public, nosuch, x;\n");
	write_file("b.sql", "CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT f()';\n");
	static const char *const names[] = { "a.sql", "b.sql" };
	cgm_model *m = load_files(names, 2);
	assert_int_equal(m->source.npath, 3);
	assert_string_equal(m->source.default_search_path[0], "pg_catalog");
	assert_string_equal(m->source.default_search_path[1], "public");
	assert_string_equal(m->source.default_search_path[2], "x");
	fn(m, "public.g()"); /* the first schema of the path that exists */
	cgm_model_free(m);
	/* RESET gives the default back. */
	write_file("a.sql", "CREATE SCHEMA x;\n"
			    "ALTER DATABASE d SET search_path = x;\n"
			    "ALTER DATABASE d RESET search_path;\n");
	m = load_files(names, 2);
	assert_int_equal(m->source.npath, 2);
	fn(m, "public.g()");
	cgm_model_free(m);
}

/* A DO block putting a schema on the database's search_path as CARTO's
 * cartodb and PostGIS's AddToSearchPath do: pg_settings' reset_val is the
 * path a new session gets, and an EXECUTEd ALTER DATABASE naming
 * current_database() applies whatever the database's name.  Other SQL
 * naming the database is not applied: the files do not know its name. */
static void test_do_block_database_search_path(void **state)
{
	(void)state;
	write_file("a.sql",
		   "CREATE SCHEMA x;\n"
		   "CREATE FUNCTION x.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		   "DO $$\n"
		   "DECLARE p text; s text;\n"
		   "BEGIN\n"
		   "  SELECT reset_val INTO p FROM pg_settings WHERE name = 'search_path';\n"
		   "  SELECT setting INTO s FROM pg_catalog.pg_settings WHERE 'search_path' = name;\n"
		   "  IF p LIKE '%x%' THEN\n"
		   "    RAISE DEBUG 'there';\n"
		   "  ELSE\n"
		   "    p := p || ', x';\n"
		   "    EXECUTE 'ALTER DATABASE ' || quote_ident(current_database()) ||\n"
		   "            ' SET search_path = ' || p;\n"
		   "  END IF;\n"
		   "  EXECUTE 'CREATE SCHEMA ' || quote_ident(current_database() || '_' || s);\n"
		   "END $$;\n");
	write_file("b.sql", "CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT f()';\n");
	static const char *const names[] = { "a.sql", "b.sql" };
	cgm_model *m = load_files(names, 2);
	assert_int_equal(m->source.npath, 3);
	assert_string_equal(m->source.default_search_path[1], "public");
	assert_string_equal(m->source.default_search_path[2], "x");
	fn(m, "public.g()");
	assert_int_equal(count_diagnostics(m, "known only when it runs is not applied"), 1);
	assert_int_equal(count_diagnostics(m, "CREATE SCHEMA"), 1);
	cgm_model_free(m);
}

/* A DO block that makes what needs an extension only when the extension
 * is there (pgsql-tweaks' sha256): its queries of pg_extension read the
 * extensions the files made and did not drop.  The functions made are
 * those PostgreSQL 15 made from the same file. */
static void test_do_block_extension_checks(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE EXTENSION pgcrypto;\n"
		"CREATE EXTENSION hstore;\n"
		"DROP EXTENSION hstore;\n"
		"DO $$\n"
		"DECLARE installed boolean; n text;\n"
		"BEGIN\n"
		"  SELECT count(*) = 1 AS x FROM pg_extension WHERE extname = 'pgcrypto' INTO installed;\n"
		"  IF installed THEN\n"
		"    EXECUTE 'CREATE FUNCTION a1() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"  IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension e WHERE e.extname = 'postgis') THEN\n"
		"    EXECUTE 'CREATE FUNCTION a2() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  ELSE\n"
		"    EXECUTE 'CREATE FUNCTION a3() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"  PERFORM 1 FROM pg_extension WHERE extname = 'hstore';\n"
		"  IF NOT FOUND THEN\n"
		"    EXECUTE 'CREATE FUNCTION a4() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"  SELECT extname INTO n FROM pg_extension WHERE extname = 'hstore';\n"
		"  IF n IS NULL THEN\n"
		"    EXECUTE 'CREATE FUNCTION a5() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"  IF (SELECT count(*) FROM pg_extension WHERE extname = 'pgcrypto') > 0 THEN\n"
		"    EXECUTE 'CREATE FUNCTION a6() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  ELSE\n"
		"    EXECUTE 'CREATE FUNCTION a7() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"  PERFORM 1 FROM pg_class;\n"
		"  IF FOUND THEN\n"
		"    EXECUTE 'CREATE FUNCTION a8() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  ELSE\n"
		"    EXECUTE 'CREATE FUNCTION a9() RETURNS int LANGUAGE sql AS $f$ SELECT 1 $f$';\n"
		"  END IF;\n"
		"END $$;\n");
	fn(m, "public.a1()");
	fn(m, "public.a3()");
	fn(m, "public.a4()");
	fn(m, "public.a5()");
	fn(m, "public.a6()");
	/* FOUND after a query the files cannot tell: the first branch that
	 * makes something, as for any condition they cannot tell. */
	fn(m, "public.a8()");
	assert_true(cgm_model_find(m, "public.a2()") < 0);
	assert_true(cgm_model_find(m, "public.a7()") < 0);
	assert_true(cgm_model_find(m, "public.a9()") < 0);
	cgm_model_free(m);
}

/* A DO block that makes a function one way for old servers and another
 * for new ones (PoWA's powa_get_guc): the files stand for PostgreSQL 15,
 * and make the body PostgreSQL 15.20 made from the same text. */
static void test_do_block_server_version(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"DO $anon$\n"
		"BEGIN\n"
		"  IF current_setting('server_version_num')::int < 90600 THEN\n"
		"    CREATE FUNCTION get_guc(guc text) RETURNS text LANGUAGE plpgsql AS $_$\n"
		"    BEGIN RETURN old_get(guc); END $_$;\n"
		"  ELSE\n"
		"    CREATE FUNCTION get_guc(guc text) RETURNS text LANGUAGE plpgsql AS $_$\n"
		"    BEGIN RETURN new_get(guc); END $_$;\n"
		"  END IF;\n"
		"  IF current_setting('server_version_num')::int >= 150007 THEN\n"
		"    CREATE FUNCTION late() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"  END IF;\n"
		"END $anon$;\n");
	const cgm_function *f = fn(m, "public.get_guc(text)");
	assert_non_null(strstr(f->source, "new_get"));
	/* a condition only some releases of 15 meet: the first branch that
	 * makes something, as for any condition the files cannot tell */
	fn(m, "public.late()");
	cgm_model_free(m);
}

/* Supabase's migrations: ALTER FUNCTION ... OWNER TO and COMMENT ON a
 * pg_catalog function exist in PostgreSQL though the files do not make
 * them; and a block testing pg_available_extensions' installed_version
 * for an extension the files never made alters nothing.  The messages
 * kept are PostgreSQL 15's for the same file. */
static void test_builtin_objects_and_available_extensions(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"ALTER FUNCTION pg_catalog.lo_import(text) OWNER TO postgres;\n"
		"ALTER FUNCTION lo_export OWNER TO postgres;\n"
		"COMMENT ON FUNCTION pg_catalog.now() IS 'the time';\n"
		"ALTER FUNCTION pg_catalog.lo_import(int) OWNER TO postgres;\n"
		"ALTER FUNCTION pg_catalog.length OWNER TO postgres;\n"
		"DO $$\n"
		"DECLARE installed boolean;\n"
		"BEGIN\n"
		"  installed = (SELECT count(*) = 1 FROM pg_available_extensions\n"
		"               WHERE name = 'pg_net' AND installed_version IS NOT NULL);\n"
		"  IF installed THEN\n"
		"    ALTER FUNCTION net.http_get(url text) SECURITY DEFINER;\n"
		"  END IF;\n"
		"  IF EXISTS (SELECT 1 FROM pg_available_extensions a WHERE a.installed_version IS NOT NULL\n"
		"             AND a.name = 'pg_net') THEN\n"
		"    CREATE FUNCTION made_with_net() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"  END IF;\n"
		"END $$;\n");
	assert_int_equal(count_diagnostics(m, "lo_import(text)"), 0);
	assert_int_equal(count_diagnostics(m, "lo_export"), 0);
	assert_int_equal(count_diagnostics(m, "now()"), 0);
	assert_int_equal(count_diagnostics(m, "function pg_catalog.lo_import(integer) does not exist"), 1);
	assert_int_equal(count_diagnostics(m, "function pg_catalog.length is not unique"), 1);
	assert_int_equal(count_diagnostics(m, "http_get"), 0);
	assert_true(cgm_model_find(m, "public.made_with_net()") < 0);
	cgm_model_free(m);
}

/* pg_bitemporal's loader: a generator chooses a body by the server's
 * version and EXECUTEs it, called once from FROM, then dropped.  The
 * function it makes is the one PostgreSQL 15.20 made from these lines. */
static void test_routine_called_from_from(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE FUNCTION gen() RETURNS boolean AS $G$\n"
		"DECLARE v_sql text;\n"
		"BEGIN\n"
		"IF current_setting('server_version_num')::int < 120000 THEN\n"
		"  v_sql := $t$ CREATE FUNCTION fields(p text) RETURNS text LANGUAGE sql AS 'SELECT old(p)' $t$;\n"
		"ELSE\n"
		"  v_sql := $t$ CREATE FUNCTION fields(p text) RETURNS text LANGUAGE sql AS 'SELECT new(p)' $t$;\n"
		"END IF;\n"
		"EXECUTE (v_sql);\n"
		"RETURN NULL;\n"
		"END $G$ LANGUAGE plpgsql;\n"
		"SELECT * FROM gen();\n"
		"DROP FUNCTION gen();\n"
		"CREATE FUNCTION filtered() RETURNS int LANGUAGE plpgsql AS $$\n"
		"BEGIN EXECUTE 'CREATE FUNCTION made() RETURNS int LANGUAGE sql AS ''SELECT 1'''; RETURN 1; END $$;\n"
		"SELECT * FROM filtered() WHERE false;\n");
	const cgm_function *f = fn(m, "public.fields(text)");
	assert_non_null(strstr(f->source, "new(p)"));
	assert_true(cgm_model_find(m, "public.gen()") < 0);
	/* with a WHERE the files do not run it (PostgreSQL did not either,
	 * for this one-time filter) */
	assert_true(cgm_model_find(m, "public.made()") < 0);
	cgm_model_free(m);
}

/* An extension's script beside its control file is read as CREATE
 * EXTENSION runs it: @extschema@ is the control file's schema (quoted as
 * quote_identifier does), made and first in the search_path, lines kept;
 * @extowner@ is the owner; so is a piece of the script in the extension's
 * tree.  The same text without a control file is a plain file, and does
 * not parse. */
static void test_extension_script(void **state)
{
	(void)state;
	write_file("demo.control", "# demo\ncomment = 'x'\nschema = 'Demo Ext'\nrelocatable = false\n");
	static const char script[] =
		"CREATE FUNCTION @extschema@.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"-- owned by @extowner@\n"
		"CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $$\n"
		"BEGIN\n"
		"  RETURN @extschema@.f();\n"
		"END $$;\n";
	write_file("demo--1.0.sql", script);
	static const char *const ext[] = { "demo--1.0.sql" };
	cgm_model *m = load_files(ext, 1);
	fn(m, "\"Demo Ext\".f()");
	const cgm_function *g = fn(m, "\"Demo Ext\".g()");
	assert_int_equal(g->file_line, 3);
	assert_non_null(strstr(g->source, "\"Demo Ext\".f()"));
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
	/* Without a schema in the control file: public. */
	write_file("demo.control", "comment = 'x'\n");
	m = load_files(ext, 1);
	fn(m, "public.f()");
	fn(m, "public.g()");
	cgm_model_free(m);
	/* An extension's source tree: the control file at the top, the
	 * script in sql/. */
	char sub[512];
	snprintf(sub, sizeof sub, "%s/sql", folder);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file("sql/demo--1.1.sql", script);
	static const char *const tree[] = { "sql/demo--1.1.sql" };
	m = load_files(tree, 1);
	fn(m, "public.g()");
	cgm_model_free(m);
	/* A piece the extension's build joins into its script, named
	 * anything: the one control file two folders up. */
	snprintf(sub, sizeof sub, "%s/sql/functions", folder);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file("sql/functions/g.sql", script);
	static const char *const pieces[] = { "sql/functions/g.sql" };
	m = load_files(pieces, 1);
	fn(m, "public.f()");
	fn(m, "public.g()");
	assert_int_equal(m->ndiagnostics, 0);
	cgm_model_free(m);
	/* ... but with two control files there, neither. */
	write_file("second.control", "comment = 'y'\n");
	m = load_files(pieces, 1);
	assert_int_equal(cgm_model_find(m, "public.f()"), -1);
	assert_true(m->ndiagnostics > 0);
	cgm_model_free(m);
	/* No control file beside it: the text as it is. */
	write_file("other--1.0.sql", script);
	static const char *const plain[] = { "other--1.0.sql" };
	m = load_files(plain, 1);
	assert_int_equal(cgm_model_find(m, "public.f()"), -1);
	assert_true(m->ndiagnostics > 0);
	cgm_model_free(m);
}

/* A file big enough to be parsed in chunks on several threads: the same
 * result as one parse, and a syntax error still found with its line. */
static void test_big_file(void **state)
{
	for (int broken = 0; broken <= 1; broken++) {
		size_t cap = 4 << 20, len = 0;
		char *text = malloc(cap);
		assert_non_null(text);
		const int n = 6000;
		for (int i = 0; i < n; i++) {
			len += (size_t)snprintf(text + len, cap - len,
						"CREATE FUNCTION public.f%d(a integer) RETURNS integer\n"
						"  LANGUAGE sql AS $$ SELECT a + %d /* a body long enough to cut */ $$;\n",
						i, i);
			if (broken && i == n / 2)
				len += (size_t)snprintf(text + len, cap - len, "CREATE FUNCTION oops( RETURNS;\n");
			if (i == n / 3) /* an atomic body holds semicolons: cut or not, it must stay whole */
				len += (size_t)snprintf(text + len, cap - len,
							"CREATE FUNCTION public.atomic() RETURNS integer LANGUAGE sql\n"
							"BEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND;\n");
		}
		cgm_model *m = load_text(text);
		free(text);
		assert_int_equal(m->nuser, n + 1);
		const cgm_function *last = fn(m, "public.f5999(integer)");
		/* 2 lines a function, 5 for the atomic one, 1 for the error. */
		assert_int_equal(last->file_line, 2 * (n - 1) + 1 + 5 + broken);
		assert_string_equal(last->source, " SELECT a + 5999 /* a body long enough to cut */ ");
		assert_true(fn(m, "public.atomic()")->atomic_body);
		assert_int_equal(m->ndiagnostics, broken);
		if (broken)
			assert_int_equal(m->diagnostics[0].line, 2 * (n / 2 + 1) + 5 + 1);
		cgm_model_free(m);
	}
}

static bool has_site(const cgm_function *f, const char *name)
{
	for (int i = 0; i < f->nsites; i++)
		if (f->sites[i].name && strcmp(f->sites[i].name, name) == 0)
			return true;
	return false;
}

/* Definitions are extracted while the file is still applied: what ends in
 * the model must be the sites of the last definition, whatever came before,
 * and the same as extracting after loading. */
static void test_extraction_while_applying(void **state)
{
	(void)state;
	write_file("schema.sql",
		   "CREATE SCHEMA app;\n"
		   "CREATE FUNCTION app.a() RETURNS int LANGUAGE sql AS $$ SELECT app.first() $$;\n"
		   "CREATE OR REPLACE FUNCTION app.a() RETURNS int LANGUAGE plpgsql\n"
		   "  AS $$ BEGIN RETURN app.second(); END $$;\n"
		   "CREATE FUNCTION app.b(x int) RETURNS int LANGUAGE sql AS $$ SELECT app.kept(x) $$;\n"
		   "ALTER FUNCTION app.b(int) RENAME TO c;\n"
		   "ALTER FUNCTION app.c(int) SET search_path = app;\n"
		   "CREATE FUNCTION app.d() RETURNS int LANGUAGE sql AS $$ SELECT app.dropped() $$;\n"
		   "DROP FUNCTION app.d();\n"
		   "CREATE FUNCTION app.d() RETURNS int LANGUAGE sql AS $$ SELECT app.again() $$;\n"
		   "CREATE FUNCTION app.e() RETURNS int LANGUAGE sql AS $$ SELEC 1 $$;\n");
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	const char *paths[] = { path };
	for (int threads = 1; threads <= 3; threads++) {
		cgm_model *m = cgm_model_new();
		cgm_extract_pool *pool = cgm_extract_pool_start(threads);
		assert_int_equal(cgm_source_sql_stream(m, paths, 1, NULL, pool), 0);
		cgm_extract_pool_finish(pool, m->arena);
		cgm_model_index(m);
		cgm_model_link(m);
		const cgm_function *a = fn(m, "app.a()");
		assert_true(a->analysed);
		/* the call, and the cast its RETURN may run (coerce.h: the casts
		 * of SQL files are unknown while they are applied) */
		assert_int_equal(a->nsites, 2);
		assert_true(has_site(a, "second"));
		assert_false(has_site(a, "first"));
		assert_non_null(a->body_hash);
		const cgm_function *c = fn(m, "app.c(integer)");
		assert_int_equal(c->nsites, 1);
		assert_true(has_site(c, "kept"));
		assert_int_equal(c->line_count, 1);
		const cgm_function *d = fn(m, "app.d()");
		assert_int_equal(d->nsites, 1);
		assert_true(has_site(d, "again"));
		const cgm_function *e = fn(m, "app.e()");
		assert_int_equal(e->nerrors, 1);
		cgm_model_free(m);
	}
}

/* DROP FUNCTION refuses an aggregate and ... AGGREGATE a plain function,
 * as PostgreSQL does; DROP AGGREGATE takes the aggregate's references. */
static void test_aggregate_statements(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.s(s int, x int) RETURNS int LANGUAGE sql AS 'SELECT s + x';\n"
		"CREATE AGGREGATE app.a(int) (sfunc = app.s, stype = int);\n"
		"DROP FUNCTION app.a(int);\n"
		"COMMENT ON AGGREGATE app.s(int, int) IS 'no';\n"
		"CREATE AGGREGATE app.b(int) (sfunc = app.s, stype = int);\n"
		"DROP AGGREGATE app.b(int);\n");
	assert_int_equal(m->ndiagnostics, 2);
	assert_int_equal(m->diagnostics[0].line, 4);
	assert_non_null(strstr(m->diagnostics[0].message, "\"app.a\" is an aggregate function"));
	assert_int_equal(m->diagnostics[1].line, 5);
	assert_non_null(strstr(m->diagnostics[1].message, "is not an aggregate"));
	assert_int_equal(fn(m, "app.a(integer)")->kind, CGM_KIND_AGGREGATE);
	assert_null(fn(m, "app.s(integer,integer)")->comment);
	assert_true(cgm_model_find(m, "app.b(integer)") < 0);
	assert_int_equal(m->nreferences, 1);
	assert_string_equal(m->references[0].object, "function app.a(integer)");
	cgm_model_free(m);
}

/* ALTER TABLE ONLY cannot add a foreign key to a partitioned table: said,
 * and its partitions get none. */
static void test_partitioned_foreign_key_only(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE TABLE app.c (id int PRIMARY KEY);\n"
		"CREATE TABLE app.p (c int, k int) PARTITION BY LIST (k);\n"
		"CREATE TABLE app.p1 PARTITION OF app.p FOR VALUES IN (1);\n"
		"ALTER TABLE ONLY app.p ADD CONSTRAINT p_c FOREIGN KEY (c) REFERENCES app.c ON DELETE CASCADE;\n"
		"ALTER TABLE app.p ADD CONSTRAINT p_d FOREIGN KEY (c) REFERENCES app.c ON DELETE CASCADE;\n");
	assert_int_equal(m->ndiagnostics, 1);
	assert_int_equal(m->diagnostics[0].line, 5);
	assert_non_null(strstr(m->diagnostics[0].message,
			       "cannot use ONLY for foreign key on partitioned table \"p\""));
	int cascades = 0, truncates = 0;
	for (int i = 0; i < m->neffects; i++)
		if (m->effects[i].reach == CGM_REACH_CASCADE) {
			if (m->effects[i].events == CGM_EV_CASCADE)
				truncates++; /* TRUNCATE app.c CASCADE */
			else
				cascades++;
			assert_non_null(strstr(m->effects[i].object, ".p_d"));
		}
	/* app.p's: app.p1's clone of it has no action of its own (the
	 * action on app.p reaches app.p1). */
	assert_int_equal(cascades, 1);
	assert_int_equal(truncates, 1);
	cgm_model_free(m);
}

/* A partition of a table that is not partitioned is refused, as
 * PostgreSQL refuses it: a test suite's second `CREATE TABLE parent ...
 * PARTITION BY`, refused as existing already, leaves the first, plain
 * one, and no statement on it reaches a partition. */
static void test_partition_of_plain_table(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE TABLE parent (a int);\n"
		"CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\n"
		"CREATE TABLE parent (a int) PARTITION BY LIST (a);\n"
		"CREATE TABLE child1 PARTITION OF parent FOR VALUES IN (1);\n"
		"CREATE TRIGGER t AFTER UPDATE ON child1 FOR EACH ROW EXECUTE FUNCTION trg();\n");
	assert_int_equal(count_diagnostics(m, "relation \"public.parent\" already exists"), 1);
	assert_int_equal(count_diagnostics(m, "\"public.parent\" is not partitioned"), 1);
	for (int i = 0; i < m->neffects; i++)
		assert_true(m->effects[i].reach != CGM_REACH_PARTITION);
	cgm_model_free(m);

	/* ATTACH PARTITION to it, and INHERIT from it by a table missing one
	 * of its columns or giving one another type, are refused too; a
	 * table with every column of the same type becomes its child. */
	m = load_text("CREATE TABLE parent (a int);\n"
		      "CREATE TABLE child2 (a text, b int);\n"
		      "ALTER TABLE parent ATTACH PARTITION child2 FOR VALUES IN ('BBB');\n"
		      "ALTER TABLE child2 INHERIT parent;\n"
		      "CREATE TABLE child3 (b int);\n"
		      "ALTER TABLE child3 INHERIT parent;\n"
		      "CREATE TABLE child4 (a integer, b int);\n"
		      "ALTER TABLE child4 INHERIT parent;\n");
	assert_int_equal(count_diagnostics(m, "table \"public.parent\" is not partitioned"), 1);
	assert_int_equal(count_diagnostics(m, "child table \"child2\" has different type for column \"a\""), 1);
	assert_int_equal(count_diagnostics(m, "child table is missing column \"a\""), 1);
	/* What a statement on parent reaches: child4 only. */
	int children = 0;
	for (int i = 0; i < m->neffects; i++)
		if (m->effects[i].reach == CGM_REACH_PARTITION)
			children += strcmp(m->effects[i].target_relation, "child4") == 0 ? 1 : 100;
	assert_int_equal(children, 1);
	cgm_model_free(m);
}

/* CREATE TYPE refused as PostgreSQL refuses it: said with file and line,
 * nothing of the type made, the rest still mapped. */
static void test_type_support_errors(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE TYPE app.t;\n"
		"CREATE FUNCTION app.t_out(app.t) RETURNS text LANGUAGE internal AS 'textout';\n"
		"CREATE TYPE app.t (INPUT = app.nope, OUTPUT = app.t_out);\n"
		"CREATE FUNCTION app.t_in(cstring) RETURNS app.t LANGUAGE internal AS 'int4in';\n"
		"CREATE TYPE app.t (INPUT = app.t_in, OUTPUT = app.t_out);\n"
		"CREATE TYPE app.r AS RANGE (subtype_diff = app.d);\n"
		"CREATE TYPE app.s AS RANGE (subtype = int4, canonical = app.c);\n"
		"CREATE TYPE app.u AS RANGE (subtype = int4, subtype_diff = app.t_out);\n"
		"CREATE TYPE app.w_multirange;\n"
		"CREATE TYPE app.w AS RANGE (subtype = int4);\n"
		"CREATE FUNCTION app.f() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	const char *want[][2] = {
		{ "4", "function app.nope(cstring) does not exist (type \"t\")" },
		{ "6", "type output function app.t_out must return type cstring (type \"t\")" },
		{ "7", "type attribute \"subtype\" is required (range type \"r\")" },
		{ "8", "cannot specify a canonical function without a pre-created shell type" },
		{ "9", "function app.t_out(integer, integer) does not exist (range type \"u\")" },
		{ "11", "type \"w_multirange\" already exists (the multirange of range type \"w\")" },
	};
	assert_int_equal(m->ndiagnostics, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(m->diagnostics[i].line, atoi(want[i][0]));
		assert_non_null(strstr(m->diagnostics[i].message, want[i][1]));
	}
	assert_int_equal(m->nreferences, 0);
	assert_true(cgm_model_find(m, "app.s(integer,integer)") < 0);
	assert_true(cgm_model_find(m, "app.w(integer,integer)") < 0);
	fn(m, "app.f()");
	cgm_model_free(m);
}

/* makeMultirangeTypeName: the first "range" becomes "multirange", else
 * "_multirange" follows; the name is clipped to 63 bytes, never inside a
 * UTF-8 character. */
static void test_multirange_names(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	assert_string_equal(sqlfile_multirange_name(a, "floatrange"), "floatmultirange");
	assert_string_equal(sqlfile_multirange_name(a, "range_of_range"), "multirange_of_range");
	assert_string_equal(sqlfile_multirange_name(a, "fr"), "fr_multirange");
	char longname[80];
	memset(longname, 'x', 60);
	longname[60] = '\0';
	const char *clipped = sqlfile_multirange_name(a, longname);
	assert_int_equal(strlen(clipped), 63);
	assert_memory_equal(clipped + 60, "_mu", 3);
	/* 62 bytes and a 2-byte character: byte 63 is the character's
	 * second, so the cut comes before it. */
	memset(longname, 'x', 62);
	memcpy(longname + 62, "\xc3\xa9", 3);
	clipped = sqlfile_multirange_name(a, longname);
	assert_int_equal(strlen(clipped), 62);
	cgm_arena_free(a);
}

/* The relation `schema`.`name` of the model (NULL when none). */
static const cgm_relation *relation(const cgm_model *m, const char *schema, const char *name)
{
	for (int i = 0; i < m->nrelations; i++)
		if (strcmp(m->relations[i].schema, schema) == 0 && strcmp(m->relations[i].name, name) == 0)
			return &m->relations[i];
	return NULL;
}

/* A view PostgreSQL updates by itself keeps its base relation and the base
 * column each updatable column shows as the files rename them: a view
 * refers to its relation itself, not to names. */
static void test_view_base_follows_renames(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE TABLE app.item (id integer, qty integer, note text);\n"
		"CREATE TABLE app.open_ids (id integer);\n"
		"SET search_path = app;\n"
		"CREATE VIEW open_item (k) AS SELECT id, qty AS amount, upper(note) AS loud\n"
		"  FROM item WHERE id IN (SELECT id FROM open_ids);\n"
		"CREATE VIEW counted AS SELECT count(*) AS n FROM item;\n"
		"CREATE VIEW paired AS SELECT i.id FROM item i JOIN open_ids o USING (id);\n"
		"ALTER TABLE item RENAME COLUMN qty TO quantity;\n"
		"ALTER TABLE item RENAME TO goods;\n"
		"ALTER TABLE goods SET SCHEMA public;\n"
		"ALTER VIEW open_item RENAME COLUMN amount TO n;\n");
	const cgm_relation *v = relation(m, "app", "open_item");
	assert_non_null(v);
	assert_string_equal(v->base_schema, "public");
	assert_string_equal(v->base_name, "goods");
	assert_int_equal(v->nupdatable, 2);
	assert_string_equal(v->updatable_columns[0], "k");
	assert_string_equal(v->base_columns[0], "id");
	assert_string_equal(v->updatable_columns[1], "n");
	assert_string_equal(v->base_columns[1], "quantity");
	assert_null(relation(m, "app", "counted")->base_name);
	assert_null(relation(m, "app", "paired")->base_name);
	cgm_model_free(m);
}

/* A function one file defines again with another body loses its first
 * definition, which never runs: said at the second, naming the first's
 * line.  Not said of the same definition twice, of a DROP between, of the
 * two sides of a psql \if, of a DO block's CREATE or one replacing a DO
 * block's (PostGIS's update scripts make a function in a DO block when it
 * is missing, then replace it), nor across files (a migration replacing
 * what an earlier file made). */
static void test_redefinition_in_one_file(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE FUNCTION test_a() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE OR REPLACE FUNCTION test_a() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE OR REPLACE FUNCTION test_a() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"CREATE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"DROP FUNCTION b();\n"
		"CREATE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"\\if :have_new\n"
		"CREATE OR REPLACE FUNCTION c() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"\\else\n"
		"CREATE OR REPLACE FUNCTION c() RETURNS int LANGUAGE sql AS 'SELECT 2';\n"
		"\\endif\n"
		"CREATE FUNCTION d() RETURNS int LANGUAGE sql AS 'SELECT 1';\n"
		"DO $$ BEGIN CREATE OR REPLACE FUNCTION d() RETURNS int LANGUAGE sql AS 'SELECT 2'; END $$;\n"
		"DO $$ BEGIN CREATE FUNCTION e() RETURNS int LANGUAGE sql AS 'SELECT 1'; END $$;\n"
		"CREATE OR REPLACE FUNCTION e() RETURNS int LANGUAGE sql AS 'SELECT 2';\n");
	assert_int_equal(count_diagnostics(m, "is defined again"), 1);
	const cgm_diagnostic *d = NULL;
	for (int i = 0; i < m->ndiagnostics; i++)
		if (strstr(m->diagnostics[i].message, "is defined again"))
			d = &m->diagnostics[i];
	assert_non_null(d);
	assert_int_equal(d->line, 3);
	assert_string_equal(d->message, "function public.test_a() is defined again: its definition "
					"at line 2 is replaced and never runs");
	assert_string_equal(fn(m, "public.test_a()")->source, "SELECT 2");
	assert_string_equal(fn(m, "public.d()")->source, "SELECT 2");
	assert_string_equal(fn(m, "public.e()")->source, "SELECT 2");
	cgm_model_free(m);

	write_file("v1.sql", "CREATE FUNCTION e() RETURNS int LANGUAGE sql AS 'SELECT 1';\n");
	write_file("v2.sql", "CREATE OR REPLACE FUNCTION e() RETURNS int LANGUAGE sql AS 'SELECT 2';\n");
	const char *names[] = { "v1.sql", "v2.sql" };
	m = load_files(names, 2);
	assert_int_equal(count_diagnostics(m, "is defined again"), 0);
	cgm_model_free(m);
}

/* CREATE EXTENSION makes what the extension requires first, when the
 * files have not made it: with CASCADE in the SCHEMA clause's schema (as
 * PostgreSQL does), and without it too, since the statement succeeded
 * only where the database had them.  A required language (plpgsql,
 * plperl) the list does not hold is passed over without a word. */
static void test_extension_requires(void **state)
{
	(void)state;
	cgm_model *m = load_text(
		"CREATE SCHEMA ext;\n"
		"CREATE EXTENSION earthdistance SCHEMA ext CASCADE;\n"
		"CREATE EXTENSION hstore_plperl CASCADE;\n"
		"CREATE EXTENSION pgtap;\n"
		"CREATE FUNCTION d(a ext.earth, b ext.earth) RETURNS float8 LANGUAGE sql\n"
		"  AS $$ SELECT ext.earth_distance(a, b) $$;\n");
	assert_true(fn(m, "ext.cube_distance(ext.cube,ext.cube)")->from_extension);
	assert_true(fn(m, "ext.earth_distance(ext.earth,ext.earth)")->from_extension);
	assert_true(fn(m, "public.akeys(public.hstore)")->from_extension);
	fn(m, "public.d(ext.earth,ext.earth)");
	for (int i = 0; i < m->ndiagnostics; i++)
		fail_msg("diagnostic: %s", m->diagnostics[i].message);
	cgm_model_free(m);

	/* postgis_topology's script adds its schema to the database's
	 * search_path (ALTER DATABASE ... SET): the next sessions, and the
	 * map's default path, have it, as a database with it has. */
	m = load_text("CREATE EXTENSION postgis_topology CASCADE;\n");
	assert_int_equal(m->source.npath, 3);
	assert_string_equal(m->source.default_search_path[0], "pg_catalog");
	assert_string_equal(m->source.default_search_path[1], "public");
	assert_string_equal(m->source.default_search_path[2], "topology");
	assert_true(fn(m, "topology.topologysummary(character varying)")->from_extension);
	cgm_model_free(m);

	/* Made once: a later CREATE EXTENSION cube says it exists. */
	m = load_text("CREATE EXTENSION earthdistance;\nCREATE EXTENSION cube;\n");
	assert_int_equal(count_diagnostics(m, "extension \"cube\" already exists"), 1);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_replace_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alter_and_search_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_keep_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psql_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unset_psql_variable_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_references, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folders_and_archives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_includes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_links_walked_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_once_names_the_first_reading, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_outside_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_devices_size_and_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_pattern_matching_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_typo_while_extracting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extensions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_schema_cascade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_database_search_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_nested_and_else, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_variables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_unknown_execute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_too_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_called_procedure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_called_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_called_function_fan_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_called_function_unknown_branch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_decided_branches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psql_variables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extraction_while_applying, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_support_errors, setup, teardown),
		cmocka_unit_test(test_multirange_names),
		cmocka_unit_test_setup_teardown(test_aggregate_statements, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partitioned_foreign_key_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partition_of_plain_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_base_follows_renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_database_search_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_extension_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_do_block_server_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_routine_called_from_from, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builtin_objects_and_available_extensions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redefinition_in_one_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_requires, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
