/*
 * test_exprtype.c - argument types from expressions and PostgreSQL's choice
 * among overloads.  Each case maps a small schema from SQL (the whole
 * pipeline, offline), where the call was ambiguous before expression
 * typing and PostgreSQL calls exactly one function; then the rules of the
 * choice itself on candidate lists (func_select_candidate), and what stays
 * unknown.
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

#include "cgmap/exprtype.h"
#include "cgmap/map.h"
#include "cgmap/model.h"

/* Overloads every case calls, the tables their arguments come from. */
static const char schema_sql[] =
	"CREATE SCHEMA app;\n"
	"SET search_path = app, public;\n"
	"CREATE TABLE app.t (id bigint, v integer, note text, tags text[], at date, code varchar(10));\n"
	"CREATE FUNCTION app.f(x integer) RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n"
	"CREATE FUNCTION app.f(x text) RETURNS integer LANGUAGE sql AS $$ SELECT 2 $$;\n"
	"CREATE FUNCTION app.f(x boolean) RETURNS integer LANGUAGE sql AS $$ SELECT 3 $$;\n"
	"CREATE FUNCTION app.f(x integer[]) RETURNS integer LANGUAGE sql AS $$ SELECT 4 $$;\n"
	"CREATE FUNCTION app.f(x text[]) RETURNS integer LANGUAGE sql AS $$ SELECT 5 $$;\n"
	"CREATE FUNCTION app.f(x date) RETURNS integer LANGUAGE sql AS $$ SELECT 6 $$;\n"
	"CREATE FUNCTION app.f(x record) RETURNS integer LANGUAGE sql AS $$ SELECT 7 $$;\n"
	"CREATE FUNCTION app.f(x bigint) RETURNS integer LANGUAGE sql AS $$ SELECT 8 $$;\n"
	"CREATE FUNCTION app.name_of(x integer) RETURNS text LANGUAGE sql AS $$ SELECT 'n' $$;\n"
	"CREATE FUNCTION app.name_of(x text) RETURNS text LANGUAGE sql AS $$ SELECT 't' $$;\n";

static cgm_model *map_sql(const char *body_sql)
{
	char path[] = "/tmp/test_exprtype_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(schema_sql, f);
	fputs(body_sql, f);
	fclose(f);
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	const char *paths[1] = { path };
	opts.sql_paths = paths;
	opts.nsql = 1;
	opts.threads = 1;
	opts.runtime.no_runtime = true;
	cgm_model *model = NULL;
	int rc = cgm_map_source(&model, &opts);
	unlink(path);
	assert_int_equal(rc, 0);
	return model;
}

/* The targets of the one site of `caller` that calls `name`, as
 * "id|id ...", with " ambiguous" when so flagged. */
static char *targets_of(cgm_model *m, const char *caller, const char *name)
{
	static char buf[1024];
	int fi = cgm_model_find(m, caller);
	assert_true(fi >= 0);
	const cgm_function *fn = &m->functions[fi];
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		if (strcmp(s->name, name) != 0)
			continue;
		buf[0] = '\0';
		for (int t = 0; t < s->ntargets; t++) {
			if (t)
				strcat(buf, "|");
			strcat(buf, m->functions[s->targets[t]].id);
		}
		if (s->resolution == CGM_RES_AMBIGUOUS)
			strcat(buf, " ambiguous");
		if (s->resolution == CGM_RES_MISSING)
			strcat(buf, "missing");
		return buf;
	}
	return NULL;
}

/* A PL/pgSQL function app.c() with `decl` and `body`, calling f once. */
static void expect_plpgsql(const char *decl, const char *body, const char *expected)
{
	char sql[4096];
	snprintf(sql, sizeof sql,
		 "CREATE FUNCTION app.c() RETURNS void LANGUAGE plpgsql AS $$\nDECLARE\n%s\nBEGIN\n%s\nEND\n$$;\n",
		 decl, body);
	cgm_model *m = map_sql(sql);
	const char *got = targets_of(m, "app.c()", "f");
	if (!got || strcmp(got, expected) != 0)
		print_error("body: %s\nexpected: %s\ngot: %s\n", body, expected, got ? got : "(no site)");
	assert_non_null(got);
	assert_string_equal(got, expected);
	cgm_model_free(m);
}

/* ---- constructs ---------------------------------------------------------- */

static void test_subscript(void **state)
{
	(void)state;
	/* pgTAP's _todo(): todos INT[]; _get_note(todos[1]). */
	expect_plpgsql("todos integer[];", "PERFORM app.f(todos[1]);", "app.f(integer)");
	expect_plpgsql("todos integer[];", "PERFORM app.f(todos[1:2]);", "app.f(integer[])");
	expect_plpgsql("", "PERFORM app.f((ARRAY['a', 'b'])[1]);", "app.f(text)");
}

static void test_variables(void **state)
{
	(void)state;
	expect_plpgsql("n app.t.v%TYPE;", "PERFORM app.f(n);", "app.f(integer)");
	expect_plpgsql("r app.t%ROWTYPE;", "PERFORM app.f(r.note);", "app.f(text)");
	expect_plpgsql("r app.t%ROWTYPE;", "PERFORM app.f(r);", "app.f(record)");
	expect_plpgsql("r record;", "SELECT v, note INTO r FROM app.t;\nPERFORM app.f(r.v);", "app.f(integer)");
	expect_plpgsql("r record;", "FOR r IN SELECT t.note AS n FROM app.t LOOP\n  PERFORM app.f(r.n);\nEND LOOP;",
		       "app.f(text)");
	expect_plpgsql("r record;", "FOR r IN SELECT * FROM app.t LOOP\n  PERFORM app.f(r.at);\nEND LOOP;",
		       "app.f(date)");
	/* libpg_query refuses `addy.note := ...` of an OUT parameter, which
	 * cgmap rewrites to `addy := ...`; addy.note in an expression stays,
	 * typed as the column (it was rewritten too, and the call ambiguous). */
	cgm_model *m = map_sql("CREATE FUNCTION app.c(p app.t, n integer, OUT addy app.t) LANGUAGE plpgsql AS $$\n"
			       "BEGIN\n  addy.note := 'x';\n  addy.v := 1;\n  PERFORM app.f(addy.note);\n"
			       "  PERFORM app.name_of(n);\nEND\n$$;\n");
	assert_string_equal(targets_of(m, "app.c(app.t,integer)", "f"), "app.f(text)");
	/* Other variables keep their types. */
	assert_string_equal(targets_of(m, "app.c(app.t,integer)", "name_of"), "app.name_of(integer)");
	cgm_model_free(m);
}

static void test_columns(void **state)
{
	(void)state;
	expect_plpgsql("", "PERFORM app.f(v) FROM app.t;", "app.f(integer)");
	/* A column's typmod is no part of its type: varchar(10) goes to text. */
	expect_plpgsql("", "PERFORM app.f(code) FROM app.t;", "app.f(text)");
	expect_plpgsql("", "PERFORM app.f(x.note) FROM app.t AS x WHERE x.id > 0;", "app.f(text)");
	expect_plpgsql("", "PERFORM app.f(q) FROM app.t x(a, b, q);", "app.f(text)");
	expect_plpgsql("", "PERFORM app.f(s.n) FROM (SELECT v AS n FROM app.t) s;", "app.f(integer)");
	expect_plpgsql("", "WITH c AS (SELECT note FROM app.t) SELECT app.f(note) FROM c;", "app.f(text)");
	expect_plpgsql("", "PERFORM app.f(g) FROM generate_series(1, 3) g;", "app.f(integer)");
	expect_plpgsql("", "PERFORM app.f(u) FROM unnest(ARRAY['a']) AS u;", "app.f(text)");
	expect_plpgsql("", "UPDATE app.t SET id = app.f(tags) WHERE v = 1;", "app.f(text[])");
	expect_plpgsql("", "PERFORM app.f((SELECT max(at) FROM app.t));", "app.f(date)");
	expect_plpgsql("", "PERFORM app.f(ARRAY(SELECT v FROM app.t));", "app.f(integer[])");
	/* A correlated sublink sees the outer query's columns. */
	expect_plpgsql("", "PERFORM (SELECT app.f(o.note)) FROM app.t o;", "app.f(text)");
	/* A function in FROM sees the items to its left (LATERAL), never its
	 * own columns or later items: here v is the variable, not a column. */
	expect_plpgsql("v date;", "PERFORM * FROM app.f(v) AS v;", "app.f(date)");
	expect_plpgsql("v date;", "PERFORM * FROM app.f(v), app.t;", "app.f(date)");
	expect_plpgsql("v date;", "PERFORM * FROM app.t AS x, app.f(x.v) AS y;", "app.f(integer)");
	expect_plpgsql("", "PERFORM * FROM app.t AS x JOIN app.f(note) AS y ON true;", "app.f(text)");
	/* A subquery without LATERAL sees only the enclosing queries. */
	expect_plpgsql("v date;", "PERFORM * FROM app.t, (SELECT app.f(v)) AS s;", "app.f(date)");
	expect_plpgsql("", "PERFORM * FROM app.t, LATERAL (SELECT app.f(note)) AS s;", "app.f(text)");
	/* Variables in a FROM item's expressions: a subquery's and a CTE's
	 * columns, a function's arguments. */
	expect_plpgsql("v date;", "PERFORM app.f(s.n) FROM (SELECT v AS n) AS s;", "app.f(date)");
	expect_plpgsql("v date;", "WITH c AS (SELECT v AS n) SELECT app.f(c.n) FROM c;", "app.f(date)");
	expect_plpgsql("v text;", "PERFORM app.f(x) FROM app.name_of(v) AS x;", "app.f(text)");
	/* An INSERT's and a MERGE's CTEs type their queries' columns, and a
	 * MERGE's WHEN clauses see its source. */
	expect_plpgsql("", "WITH c AS (SELECT at FROM app.t) INSERT INTO app.t (id) SELECT app.f(c.at) FROM c;",
		       "app.f(date)");
	expect_plpgsql("", "WITH c AS (SELECT at FROM app.t) MERGE INTO app.t USING c ON false\n"
			   "  WHEN NOT MATCHED THEN INSERT (id) VALUES (app.f(c.at));",
		       "app.f(date)");
	expect_plpgsql("", "MERGE INTO app.t USING (SELECT tags AS x FROM app.t) AS s ON false\n"
			   "  WHEN NOT MATCHED THEN INSERT (id) VALUES (app.f(s.x));",
		       "app.f(text[])");
	/* A data-modifying CTE's columns are its RETURNING list's, over its
	 * target (by its alias), an UPDATE's FROM, a DELETE's USING
	 * (postgresql-dbpatch's reapply_patch). */
	expect_plpgsql("", "WITH c AS (DELETE FROM app.t WHERE v = 1 RETURNING tags) SELECT app.f(tags) FROM c;",
		       "app.f(text[])");
	expect_plpgsql("", "WITH c AS (UPDATE app.t SET v = 1 RETURNING *) SELECT app.f(c.at) FROM c;",
		       "app.f(date)");
	expect_plpgsql("", "WITH c AS (INSERT INTO app.t AS x (id) VALUES (1) RETURNING x.note AS n)\n"
			   "SELECT app.f(n) FROM c;",
		       "app.f(text)");
	expect_plpgsql("", "WITH c AS (DELETE FROM app.t USING app.t AS o WHERE o.id = t.id RETURNING o.at)\n"
			   "SELECT app.f(c.at) FROM c;",
		       "app.f(date)");
	expect_plpgsql("", "WITH c AS (UPDATE app.t SET v = 1 FROM app.t AS o RETURNING o.tags) SELECT app.f(tags) FROM c;",
		       "app.f(text[])");
}

static void test_results_and_operators(void **state)
{
	(void)state;
	expect_plpgsql("s text;", "PERFORM app.f(length(s));", "app.f(integer)");
	expect_plpgsql("", "PERFORM app.f(app.name_of(1));", "app.f(text)");
	expect_plpgsql("n integer;", "PERFORM app.f(n * 2);", "app.f(integer)");
	expect_plpgsql("n integer;", "PERFORM app.f(n > 2);", "app.f(boolean)");
	expect_plpgsql("n integer;", "PERFORM app.f(n IS NULL);", "app.f(boolean)");
	expect_plpgsql("s text;", "PERFORM app.f(s LIKE 'a%');", "app.f(boolean)");
	expect_plpgsql("", "PERFORM app.f(current_date);", "app.f(date)");
	expect_plpgsql("", "PERFORM app.f(current_date + 1);", "app.f(date)");
	expect_plpgsql("s text;", "PERFORM app.f(s || 'x');", "app.f(text)");
	expect_plpgsql("a integer[];", "PERFORM app.f(a || 1);", "app.f(integer[])");
	/* anynonarray || text takes no array (periods' add_unique_key). */
	expect_plpgsql("a text[]; s text;", "PERFORM app.f(a || s);", "app.f(text[])");
	expect_plpgsql("n bigint;", "PERFORM app.f(-n);", "app.f(bigint)");
	expect_plpgsql("", "PERFORM app.f(array_agg(v)) FROM app.t;", "app.f(integer[])");
	expect_plpgsql("", "PERFORM app.f(unnest(ARRAY[1, 2]));", "app.f(integer)");
	expect_plpgsql("", "PERFORM app.f(count(*));", "app.f(bigint)");
}

static void test_conditionals(void **state)
{
	(void)state;
	expect_plpgsql("n integer;", "PERFORM app.f(coalesce(n, 0));", "app.f(integer)");
	expect_plpgsql("n integer;", "PERFORM app.f(greatest(n, 1));", "app.f(integer)");
	expect_plpgsql("n integer;", "PERFORM app.f(NULLIF(n, 0));", "app.f(integer)");
	expect_plpgsql("b boolean;", "PERFORM app.f(CASE WHEN b THEN 'x' ELSE 'y' END);", "app.f(text)");
	expect_plpgsql("b boolean; n integer;", "PERFORM app.f(CASE WHEN b THEN n ELSE 2 END);",
		       "app.f(integer)");
	expect_plpgsql("", "PERFORM app.f(ROW(1, 'a'));", "app.f(record)");
	expect_plpgsql("n integer;", "PERFORM app.f(ARRAY[n, 2]);", "app.f(integer[])");
}

static void test_sql_parameters(void **state)
{
	(void)state;
	cgm_model *m = map_sql(
		"CREATE FUNCTION app.c(n integer, s text) RETURNS integer LANGUAGE sql AS $$\n"
		"  SELECT app.f(n) + app.f(c.s) + app.f($1)\n$$;\n");
	int fi = cgm_model_find(m, "app.c(integer,text)");
	assert_true(fi >= 0);
	const cgm_function *fn = &m->functions[fi];
	assert_int_equal(fn->nsites, 3);
	const char *expected[] = { "app.f(integer)", "app.f(text)", "app.f(integer)" };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fn->sites[i].resolution, CGM_RES_RESOLVED);
		assert_string_equal(m->functions[fn->sites[i].targets[0]].id, expected[i]);
	}
	cgm_model_free(m);
}

static void test_triggers(void **state)
{
	(void)state;
	cgm_model *m = map_sql(
		"CREATE FUNCTION app.trg() RETURNS trigger LANGUAGE plpgsql AS $$\n"
		"BEGIN\n  PERFORM app.f(NEW.note);\n  RETURN NEW;\nEND\n$$;\n"
		"CREATE TRIGGER t BEFORE INSERT ON app.t FOR EACH ROW EXECUTE FUNCTION app.trg();\n");
	assert_string_equal(targets_of(m, "app.trg()", "f"), "app.f(text)");
	cgm_model_free(m);
}

/* ---- what stays unknown -------------------------------------------------- */

static void test_unknowable(void **state)
{
	(void)state;
	/* A record from EXECUTE of SQL built at run time: its fields cannot
	 * be known. */
	expect_plpgsql("r record;\np text;",
		       "FOR r IN EXECUTE 'SELECT ' || p LOOP\n  PERFORM app.f(r.v);\nEND LOOP;",
		       "app.f(bigint)|app.f(boolean)|app.f(date)|app.f(integer)|app.f(integer[])|"
		       "app.f(record)|app.f(text)|app.f(text[]) ambiguous");
	/* Of constant SQL they are that SQL's, as PostgreSQL runs it. */
	expect_plpgsql("r record;",
		       "FOR r IN EXECUTE 'SELECT 1 AS v' LOOP\n  PERFORM app.f(r.v);\nEND LOOP;", "app.f(integer)");
	expect_plpgsql("r record;", "EXECUTE 'SELECT CURRENT_DATE AS d' INTO r;\nPERFORM app.f(r.d);",
		       "app.f(date)");
	/* Of a variable the one constant SQL surely reaches the EXECUTE with,
	 * the same; the same text twice, each statement its own. */
	expect_plpgsql("r record;\nq text;",
		       "q := 'SELECT CURRENT_DATE AS d';\nFOR r IN EXECUTE q LOOP\n  PERFORM app.f(r.d);\nEND LOOP;",
		       "app.f(date)");
	expect_plpgsql("r record;",
		       "EXECUTE 'SELECT 1 AS v' INTO r;\nPERFORM app.f(r.v);\n"
		       "EXECUTE 'SELECT 1 AS v' INTO r;\nPERFORM app.f(r.v);",
		       "app.f(integer)");
	/* A variable given two values before it: not one row. */
	expect_plpgsql("r record;\nq text;",
		       "IF p() THEN q := 'SELECT 1 AS v'; ELSE q := 'SELECT CURRENT_DATE AS v'; END IF;\n"
		       "EXECUTE q INTO r;\nPERFORM app.f(r.v);",
		       "app.f(bigint)|app.f(boolean)|app.f(date)|app.f(integer)|app.f(integer[])|"
		       "app.f(record)|app.f(text)|app.f(text[]) ambiguous");
	/* A column of a table nobody defined. */
	expect_plpgsql("", "PERFORM app.f(v) FROM nowhere;",
		       "app.f(bigint)|app.f(boolean)|app.f(date)|app.f(integer)|app.f(integer[])|"
		       "app.f(record)|app.f(text)|app.f(text[]) ambiguous");
}

static void test_no_self_edge(void **state)
{
	(void)state;
	/* pgTAP's col_is_fk(name, name, text) calling col_is_fk($1, x, $3)
	 * with x unknown: never a guessed call of itself. */
	cgm_model *m = map_sql(
		"CREATE FUNCTION app.g(a text, b text) RETURNS integer LANGUAGE plpgsql AS $$\n"
		"DECLARE r record;\nBEGIN\n  EXECUTE 'SELECT ' || b || ' AS x' INTO r;\n"
		"  RETURN app.g(a, r.x);\nEND\n$$;\n"
		"CREATE FUNCTION app.g(a text, b text[]) RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n"
		"CREATE FUNCTION app.g(a text, b integer) RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n");
	assert_string_equal(targets_of(m, "app.g(text,text)", "g"),
			    "app.g(text,integer)|app.g(text,text[]) ambiguous");
	int fi = cgm_model_find(m, "app.g(text,text)");
	assert_int_equal(m->functions[fi].scc, -1);
	/* With the type known, the real recursion is there. */
	cgm_model_free(m);
	m = map_sql("CREATE FUNCTION app.h(a integer) RETURNS integer LANGUAGE sql AS $$ SELECT app.h(a - 1) $$;\n"
		    "CREATE FUNCTION app.h(a text) RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n");
	assert_string_equal(targets_of(m, "app.h(integer)", "h"), "app.h(integer)");
	cgm_model_free(m);
}

/* ---- the choice itself --------------------------------------------------- */

static int choose(const cgm_model *m, int nargs, const char *const *args, int n, const char *const *params,
		  int *first)
{
	cgm_catalog *c = cgm_catalog_new(m);
	cgm_candidate cands[8];
	for (int i = 0; i < n; i++)
		cands[i] = (cgm_candidate){ .index = i, .params = params + i * nargs };
	int k = cgm_select_candidates(c, nargs, args, cands, n);
	*first = k > 0 ? cands[0].index : -1;
	cgm_catalog_free(c);
	return k;
}

static void test_select_candidates(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	int first;
	/* integer to numeric or double precision: the preferred type wins. */
	assert_int_equal(choose(m, 1, (const char *[]){ "integer" }, 2,
				(const char *[]){ "numeric", "double precision" }, &first), 1);
	assert_int_equal(first, 1);
	/* An untyped literal: the string category, then its preferred text. */
	assert_int_equal(choose(m, 1, (const char *[]){ "unknown" }, 3,
				(const char *[]){ "integer", "character varying", "text" }, &first), 1);
	assert_int_equal(first, 2);
	/* integer or date for an untyped literal: PostgreSQL refuses. */
	assert_int_equal(choose(m, 1, (const char *[]){ "unknown" }, 2,
				(const char *[]){ "integer", "date" }, &first), 2);
	/* No implicit cast from text to integer. */
	assert_int_equal(choose(m, 1, (const char *[]){ "text" }, 2,
				(const char *[]){ "integer", "character varying" }, &first), 1);
	assert_int_equal(first, 1);
	/* anyelement bound once: (integer, text) does not fit (anyelement, anyelement). */
	assert_int_equal(choose(m, 2, (const char *[]){ "integer", "text" }, 2,
				(const char *[]){ "anyelement", "anyelement", "integer", "text" }, &first), 1);
	assert_int_equal(first, 1);
	/* The one known type stands for the untyped literal. */
	assert_int_equal(choose(m, 2, (const char *[]){ "bigint", "unknown" }, 2,
				(const char *[]){ "bigint", "bigint", "date", "date" }, &first), 1);
	assert_int_equal(first, 0);
	/* An argument cgmap cannot type where the candidates differ: no choice. */
	assert_int_equal(choose(m, 2, (const char *[]){ NULL, "integer" }, 2,
				(const char *[]){ "text", "integer", "integer", "bigint" }, &first), 2);
	cgm_model_free(m);
}

/* Types the database describes (cgm_type_info): a domain coerces as its
 * base type, a user base type takes only the implicit casts pg_cast lists,
 * and its category ranks candidates as PostgreSQL's own types do. */
static void test_user_types(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	cgm_type_info *citext = cgm_model_add_type_info(m);
	*citext = (cgm_type_info){ .name = "public.citext", .kind = 'b', .category = 'S' };
	cgm_type_info *term = cgm_model_add_type_info(m);
	*term = (cgm_type_info){ .name = "public.term", .kind = 'd', .base = "public.citext" };
	cgm_type_info *tag = cgm_model_add_type_info(m);
	*tag = (cgm_type_info){ .name = "public.tag", .kind = 'd', .base = "public.term" };
	cgm_type_info *mood = cgm_model_add_type_info(m);
	*mood = (cgm_type_info){ .name = "public.mood", .kind = 'e', .category = 'E' };
	cgm_cast *cast = cgm_model_add_cast(m);
	*cast = (cgm_cast){ .source = "public.citext", .target = "text", .context = 'i' };
	cast = cgm_model_add_cast(m);
	*cast = (cgm_cast){ .source = "public.citext", .target = "character varying", .context = 'i' };
	cgm_catalog *c = cgm_catalog_new(m);
	assert_int_equal(cgm_can_coerce(c, "public.citext", "text"), CGM_COERCE_YES);
	assert_int_equal(cgm_can_coerce(c, "public.citext", "boolean"), CGM_COERCE_NO);
	assert_int_equal(cgm_can_coerce(c, "public.tag", "text"), CGM_COERCE_YES);
	assert_int_equal(cgm_can_coerce(c, "public.tag", "public.citext"), CGM_COERCE_YES);
	assert_int_equal(cgm_can_coerce(c, "public.tag", "numeric"), CGM_COERCE_NO);
	assert_int_equal(cgm_can_coerce(c, "public.mood", "text"), CGM_COERCE_NO);
	assert_int_equal(cgm_can_coerce(c, "text", "public.citext"), CGM_COERCE_NO);
	/* A type nobody described is still "may be". */
	assert_int_equal(cgm_can_coerce(c, "public.other", "text"), CGM_COERCE_MAYBE);
	cgm_catalog_free(c);
	int first;
	/* json_value(text | numeric | boolean) of a domain over citext: text. */
	assert_int_equal(choose(m, 1, (const char *[]){ "public.tag" }, 3,
				(const char *[]){ "boolean", "numeric", "text" }, &first), 1);
	assert_int_equal(first, 2);
	/* text or character varying: text is the string category's preferred. */
	assert_int_equal(choose(m, 1, (const char *[]){ "public.term" }, 2,
				(const char *[]){ "character varying", "text" }, &first), 1);
	assert_int_equal(first, 1);
	/* An untyped literal: citext is of the string category, integer not. */
	assert_int_equal(choose(m, 1, (const char *[]){ "unknown" }, 2,
				(const char *[]){ "integer", "public.citext" }, &first), 1);
	assert_int_equal(first, 1);
	cgm_model_free(m);
}

/* DomainHasConstraints as ADD COLUMN asks it: a domain's own constraints
 * or those of the domains under it; an enum, a composite, a base type or a
 * domain without any has none; the catalog may not tell. */
static void test_domain_constrained(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	const cgm_type_info infos[] = {
		{ .name = "app.checked", .kind = 'd', .base = "integer", .constrained = 'y' },
		{ .name = "app.over_checked", .kind = 'd', .base = "app.checked", .constrained = 'n' },
		{ .name = "app.plain", .kind = 'd', .base = "integer", .constrained = 'n' },
		{ .name = "app.over_plain", .kind = 'd', .base = "app.plain", .constrained = 'n' },
		{ .name = "app.untold", .kind = 'd', .base = "integer" },
		{ .name = "app.over_foreign", .kind = 'd', .base = "ext.thing", .constrained = 'n' },
		{ .name = "app.mood", .kind = 'e', .category = 'E' },
		{ .name = "app.pair", .kind = 'c', .category = 'C' },
	};
	for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++)
		*cgm_model_add_type_info(m) = infos[i];
	cgm_catalog *c = cgm_catalog_new(m);
	assert_int_equal(cgm_type_domain_constrained(c, "app.checked"), 1);
	assert_int_equal(cgm_type_domain_constrained(c, "app.over_checked"), 1);
	assert_int_equal(cgm_type_domain_constrained(c, "app.plain"), 0);
	assert_int_equal(cgm_type_domain_constrained(c, "app.over_plain"), 0);
	assert_int_equal(cgm_type_domain_constrained(c, "app.mood"), 0);
	assert_int_equal(cgm_type_domain_constrained(c, "app.pair"), 0);
	assert_int_equal(cgm_type_domain_constrained(c, "integer"), 0);
	assert_int_equal(cgm_type_domain_constrained(c, "app.untold"), -1);
	assert_int_equal(cgm_type_domain_constrained(c, "app.over_foreign"), -1);
	assert_int_equal(cgm_type_domain_constrained(c, "app.nowhere"), -1);
	cgm_catalog_free(c);
	cgm_model_free(m);
}

static void test_common_type(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	cgm_catalog *c = cgm_catalog_new(m);
	assert_string_equal(cgm_common_type(c, 2, (const char *[]){ "integer", "bigint" }), "bigint");
	assert_string_equal(cgm_common_type(c, 2, (const char *[]){ "integer", "numeric" }), "numeric");
	assert_string_equal(cgm_common_type(c, 2, (const char *[]){ "unknown", "unknown" }), "text");
	assert_string_equal(cgm_common_type(c, 2, (const char *[]){ "unknown", "date" }), "date");
	assert_null(cgm_common_type(c, 2, (const char *[]){ "integer", "text" }));
	assert_null(cgm_common_type(c, 2, (const char *[]){ "integer", NULL }));
	cgm_catalog_free(c);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subscript),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_results_and_operators),
		cmocka_unit_test(test_conditionals),
		cmocka_unit_test(test_sql_parameters),
		cmocka_unit_test(test_triggers),
		cmocka_unit_test(test_unknowable),
		cmocka_unit_test(test_no_self_edge),
		cmocka_unit_test(test_select_candidates),
		cmocka_unit_test(test_user_types),
		cmocka_unit_test(test_domain_constrained),
		cmocka_unit_test(test_common_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
