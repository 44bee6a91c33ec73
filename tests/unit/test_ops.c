/*
 * test_ops.c - operators, casts and aggregates: PostgreSQL 15's builtin
 * lists, CREATE / DROP OPERATOR, CAST and AGGREGATE in SQL files, and the
 * lookups typing and resolution share (cgmap/ops.h).
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
#include "cgmap/map.h"
#include "cgmap/ops.h"
#include "cgmap/pipeline.h"

static char folder[256];

static int setup(void **state)
{
	snprintf(folder, sizeof folder, "%s/cgmap-ops-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(folder));
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
	return system(cmd) == 0 ? 0 : -1;
}

/* Load `text` as one SQL file, indexed and linked like the pipeline does. */
static cgm_model *load_text(const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	const char *paths[] = { path };
	cgm_model *model = cgm_model_new();
	assert_int_equal(cgm_source_sql_load(model, paths, 1, NULL), 0);
	cgm_model_index(model);
	cgm_model_link(model);
	cgm_ops_index(model);
	return model;
}

static const cgm_operator *user_operator(const cgm_model *m, const char *name, const char *left,
					 const char *right)
{
	for (int i = 0; i < m->noperators; i++) {
		const cgm_operator *o = &m->operators[i];
		if (!o->builtin && strcmp(o->name, name) == 0 &&
		    ((!o->left && !left) || (o->left && left && strcmp(o->left, left) == 0)) &&
		    strcmp(o->right, right) == 0)
			return o;
	}
	return NULL;
}

static void test_builtin_lists(void **state)
{
	cgm_model *m = cgm_model_new();
	int nops = cgm_builtin_operators_load(m);
	int ncasts = cgm_builtin_casts_load(m);
	assert_true(nops > 700);
	assert_true(ncasts > 200);
	assert_int_equal(m->noperators, nops);
	cgm_ops_index(m);

	/* integer + integer is int4pl, exactly. */
	const cgm_operator *out[8];
	int n = cgm_operator_lookup(m, NULL, NULL, 0, "+", "integer", "integer", false, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->function_id, "int4pl(integer,integer)");
	assert_string_equal(out[0]->result, "integer");
	/* An untyped literal takes the other side's type. */
	n = cgm_operator_lookup(m, NULL, NULL, 0, "||", "text", "unknown", false, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->function_id, "textcat(text,text)");
	/* smallint + bigint: int28pl exactly. */
	n = cgm_operator_lookup(m, NULL, NULL, 0, "+", "smallint", "bigint", false, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->result, "bigint");
	/* Prefix minus on numeric. */
	n = cgm_operator_lookup(m, NULL, NULL, 0, "-", NULL, "numeric", true, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->function_id, "numeric_uminus(numeric)");
	/* date + integer by an exact match; date - date gives integer. */
	n = cgm_operator_lookup(m, NULL, NULL, 0, "-", "date", "date", false, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->result, "integer");
	/* No such operator. */
	assert_int_equal(cgm_operator_lookup(m, NULL, NULL, 0, "===", "integer", "integer", false,
					     out, 8),
			 0);

	/* Casts and coercion. */
	const cgm_cast *c = cgm_cast_find(m, "integer", "bigint");
	assert_non_null(c);
	assert_int_equal(c->context, 'i');
	assert_string_equal(c->function_id, "int8(integer)");
	assert_true(cgm_type_coercible(m, "integer", "numeric", 'i'));
	assert_false(cgm_type_coercible(m, "bigint", "integer", 'i'));
	assert_true(cgm_type_coercible(m, "bigint", "integer", 'a'));
	assert_true(cgm_type_coercible(m, "integer", "text", 'a'));
	assert_false(cgm_type_coercible(m, "integer", "text", 'i'));
	assert_true(cgm_type_coercible(m, "integer[]", "bigint[]", 'i'));
	assert_true(cgm_type_coercible(m, "unknown", "date", 'i'));
	assert_true(cgm_type_coercible(m, "date", "anyelement", 'i'));
	int count;
	const cgm_cast *to_bigint = cgm_casts_to(m, "bigint", &count);
	assert_non_null(to_bigint);
	assert_true(count >= 5);
	for (int i = 0; i < count; i++)
		assert_string_equal(to_bigint[i].target, "bigint");
	cgm_model_free(m);
}

/* The fixed list extraction uses holds: each symbol it names has several
 * pg_catalog operators of that form. */
static void test_overloaded_symbols(void **state)
{
	cgm_model *m = cgm_model_new();
	assert_true(cgm_builtin_operators_load(m) > 0);
	const char *symbols[] = { "=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||",
				  "~~", "!~~", "~~*", "!~~*", "~", "!~", "~*", "!~*", "&", "|", "#",
				  "<<", ">>", "&&", "@>", "<@", "^", "===", "@@@@", NULL };
	for (int prefix = 0; prefix < 2; prefix++)
		for (int k = 0; symbols[k]; k++) {
			int count = 0;
			for (int i = 0; i < m->noperators; i++)
				count += strcmp(m->operators[i].name, symbols[k]) == 0 &&
					 (m->operators[i].left == NULL) == (prefix == 1);
			if (cgm_builtin_operator_overloaded(symbols[k], prefix == 1) && count < 2)
				fail_msg("%s %s: %d pg_catalog operators", prefix ? "prefix" : "infix",
					 symbols[k], count);
		}
	assert_true(cgm_builtin_operator_overloaded("=", false));
	assert_true(cgm_builtin_operator_overloaded("-", true));
	assert_false(cgm_builtin_operator_overloaded("===", false));
	assert_false(cgm_builtin_operator_overloaded("=", true));
	cgm_model_free(m);
}

static const char *const fixture =
	"CREATE SCHEMA app;\n"
	"CREATE TYPE app.money AS (cents bigint);\n"
	"CREATE FUNCTION app.money_eq(a app.money, b app.money) RETURNS boolean\n"
	"  LANGUAGE sql AS $$ SELECT a.cents = b.cents $$;\n"
	"CREATE FUNCTION app.money_eq_int(a app.money, b integer) RETURNS boolean\n"
	"  LANGUAGE sql AS $$ SELECT a.cents = b $$;\n"
	"CREATE FUNCTION app.money_neg(a app.money) RETURNS app.money\n"
	"  LANGUAGE sql AS $$ SELECT ROW(-a.cents)::app.money $$;\n"
	"CREATE FUNCTION app.to_money(t text) RETURNS app.money\n"
	"  LANGUAGE sql AS $$ SELECT ROW(t::bigint)::app.money $$;\n"
	"CREATE FUNCTION app.int_money(i integer) RETURNS app.money\n"
	"  LANGUAGE sql AS $$ SELECT ROW(i)::app.money $$;\n"
	"CREATE OPERATOR app.=== (LEFTARG = app.money, RIGHTARG = app.money, FUNCTION = app.money_eq);\n"
	"SET search_path = app;\n"
	"CREATE OPERATOR === (LEFTARG = app.money, RIGHTARG = integer, PROCEDURE = money_eq_int);\n"
	"CREATE OPERATOR - (RIGHTARG = app.money, FUNCTION = app.money_neg);\n"
	"CREATE OPERATOR app.~~~ (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.textlike);\n"
	"CREATE CAST (text AS app.money) WITH FUNCTION app.to_money(text) AS ASSIGNMENT;\n"
	"CREATE CAST (integer AS app.money) WITH FUNCTION app.int_money AS IMPLICIT;\n"
	"CREATE CAST (bigint AS app.money) WITH INOUT;\n"
	"CREATE FUNCTION app.acc(s numeric, v numeric) RETURNS numeric LANGUAGE sql AS $$ SELECT s + v $$;\n"
	"CREATE FUNCTION app.inv(s numeric, v numeric) RETURNS numeric LANGUAGE sql AS $$ SELECT s - v $$;\n"
	"CREATE FUNCTION app.fin(s numeric) RETURNS numeric LANGUAGE sql AS $$ SELECT s $$;\n"
	"CREATE AGGREGATE app.mysum(numeric) (SFUNC = app.acc, STYPE = numeric, FINALFUNC = app.fin,\n"
	"  MSFUNC = app.acc, MINVFUNC = app.inv, MSTYPE = numeric);\n"
	"CREATE FUNCTION app.gone(a app.money, b text) RETURNS boolean LANGUAGE sql AS 'SELECT true';\n"
	"CREATE OPERATOR app.=== (LEFTARG = app.money, RIGHTARG = text, FUNCTION = app.gone);\n"
	"DROP OPERATOR app.===(app.money, text);\n"
	"CREATE CAST (boolean AS app.money) WITHOUT FUNCTION;\n"
	"DROP CAST (boolean AS app.money);\n"
	"DROP CAST IF EXISTS (date AS app.money);\n"
	"DROP OPERATOR app.!!!(NONE, integer);\n";

static void test_sql_definitions(void **state)
{
	cgm_model *m = load_text(fixture);
	const cgm_operator *eq = user_operator(m, "===", "app.money", "app.money");
	assert_non_null(eq);
	assert_string_equal(eq->schema, "app");
	assert_string_equal(eq->function_id, "app.money_eq(app.money,app.money)");
	assert_true(eq->function >= 0);
	assert_string_equal(eq->result, "boolean");
	assert_false(eq->builtin);
	const cgm_operator *eq_int = user_operator(m, "===", "app.money", "integer");
	assert_non_null(eq_int);
	assert_string_equal(eq_int->function_id, "app.money_eq_int(app.money,integer)");
	const cgm_operator *neg = user_operator(m, "-", NULL, "app.money");
	assert_non_null(neg);
	assert_string_equal(neg->function_id, "app.money_neg(app.money)");
	assert_string_equal(neg->result, "app.money");
	const cgm_operator *like = user_operator(m, "~~~", "text", "text");
	assert_non_null(like);
	assert_string_equal(like->function_id, "textlike(text,text)");
	assert_null(user_operator(m, "===", "app.money", "text")); /* dropped */
	assert_string_equal(cgm_operator_object(m->arena, eq), "operator app.===(app.money,app.money)");
	assert_string_equal(cgm_operator_object(m->arena, neg), "operator app.-(NONE,app.money)");

	/* Lookups through the path and qualified, by operand types. */
	const cgm_operator *out[8];
	const char *app[] = { "app" };
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "===", "app.money", "app.money", false, out, 8), 1);
	assert_ptr_equal(out[0], eq);
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "===", "app.money", "integer", false, out, 8), 1);
	assert_ptr_equal(out[0], eq_int);
	/* smallint coerces to integer (and, by the user's implicit cast,
	 * integer to app.money is not needed): the integer one. */
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "===", "app.money", "smallint", false, out, 8), 1);
	assert_ptr_equal(out[0], eq_int);
	/* Not on the path: nothing unless qualified. */
	assert_int_equal(cgm_operator_lookup(m, NULL, NULL, 0, "===", "app.money", "app.money", false, out, 8), 0);
	assert_int_equal(cgm_operator_lookup(m, "app", NULL, 0, "===", "app.money", "app.money", false, out, 8), 1);
	/* An unknown right operand: both app.money ones fit; the exact
	 * reading (unknown as app.money) wins. */
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "===", "app.money", "unknown", false, out, 8), 1);
	assert_ptr_equal(out[0], eq);
	/* An operand of unknowable type: both candidates. */
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "===", "app.money", NULL, false, out, 8), 2);
	/* Prefix minus on app.money, and on integer still the builtin. */
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "-", NULL, "app.money", true, out, 8), 1);
	assert_ptr_equal(out[0], neg);
	assert_int_equal(cgm_operator_lookup(m, NULL, app, 1, "-", NULL, "integer", true, out, 8), 1);
	assert_string_equal(out[0]->function_id, "int4um(integer)");

	/* Casts. */
	const cgm_cast *c = cgm_cast_find(m, "text", "app.money");
	assert_non_null(c);
	assert_int_equal(c->context, 'a');
	assert_int_equal(c->method, 'f');
	assert_string_equal(c->function_id, "app.to_money(text)");
	assert_true(c->function >= 0);
	assert_string_equal(cgm_cast_object(m->arena, c), "cast (text AS app.money)");
	c = cgm_cast_find(m, "integer", "app.money");
	assert_non_null(c);
	assert_int_equal(c->context, 'i');
	assert_string_equal(c->function_id, "app.int_money(integer)");
	c = cgm_cast_find(m, "bigint", "app.money");
	assert_non_null(c);
	assert_int_equal(c->method, 'i');
	assert_null(c->function_id);
	assert_null(cgm_cast_find(m, "boolean", "app.money")); /* dropped */
	assert_true(cgm_type_coercible(m, "integer", "app.money", 'i'));
	assert_false(cgm_type_coercible(m, "text", "app.money", 'i'));
	assert_true(cgm_type_coercible(m, "text", "app.money", 'a'));
	int count;
	assert_non_null(cgm_casts_to(m, "app.money", &count));
	assert_int_equal(count, 3);

	/* The aggregate's support functions, by role. */
	int agg_fn = cgm_model_find(m, "app.mysum(numeric)");
	assert_true(agg_fn >= 0);
	const cgm_aggregate *agg = cgm_aggregate_of(m, agg_fn);
	assert_non_null(agg);
	assert_string_equal(cgm_aggregate_object(m->arena, agg), "aggregate app.mysum(numeric)");
	assert_int_equal(agg->nsupport, 4);
	const char *want[][2] = { { "transition", "app.acc(numeric,numeric)" },
				  { "moving transition", "app.acc(numeric,numeric)" },
				  { "moving inverse", "app.inv(numeric,numeric)" },
				  { "final", "app.fin(numeric)" } };
	for (int w = 0; w < 4; w++) {
		bool found = false;
		for (int k = 0; k < agg->nsupport; k++)
			if (strcmp(agg->support_roles[k], want[w][0]) == 0) {
				assert_string_equal(agg->support_ids[k], want[w][1]);
				assert_true(agg->support[k] >= 0);
				found = true;
			}
		assert_true(found);
	}

	/* DROP of what never existed is a diagnostic; IF EXISTS is not. */
	int drops = 0;
	for (int i = 0; i < m->ndiagnostics; i++) {
		if (strstr(m->diagnostics[i].message, "does not exist"))
			drops++;
	}
	assert_int_equal(drops, 1);
	cgm_model_free(m);
}

/* The support function of `role` of the aggregate `id`, or NULL. */
static const char *support_of(const cgm_model *m, const char *id, const char *role)
{
	int fn = cgm_model_find(m, id);
	assert_true(fn >= 0);
	const cgm_aggregate *agg = cgm_aggregate_of(m, fn);
	assert_non_null(agg);
	for (int k = 0; k < agg->nsupport; k++)
		if (strcmp(agg->support_roles[k], role) == 0)
			return agg->support_ids[k];
	return NULL;
}

/* An aggregate's support functions are the ones declaring its types
 * (lookup_agg_function), not the first of their name; the ones PostgreSQL
 * refuses make no aggregate. */
static void test_aggregate_support_by_types(void **state)
{
	cgm_model *m = load_text(
		"CREATE TYPE rowt AS (a integer);\n"
		"CREATE DOMAIN small AS integer;\n"
		"CREATE FUNCTION tr3(state int, next numeric) RETURNS int LANGUAGE sql AS $$ SELECT state $$;\n"
		"CREATE FUNCTION tr3(state int, next int) RETURNS int LANGUAGE sql AS $$ SELECT state $$;\n"
		"CREATE AGGREGATE agg3(int) (sfunc = tr3, stype = int);\n"
		"CREATE AGGREGATE agg3(numeric) (sfunc = tr3, stype = int);\n"
		"CREATE AGGREGATE agg3(small) (sfunc = tr3, stype = int);\n"
		"CREATE FUNCTION tr(s jsonb, v anyelement) RETURNS jsonb LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION tr(s jsonb, v rowt) RETURNS jsonb LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE AGGREGATE aggr(rowt) (sfunc = tr, stype = jsonb);\n"
		"CREATE AGGREGATE agge(anyelement) (sfunc = tr, stype = jsonb);\n"
		"CREATE FUNCTION fin(s int) RETURNS text LANGUAGE sql AS $$ SELECT s::text $$;\n"
		"CREATE FUNCTION fin(s int, v int) RETURNS bigint LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION comb(a int, b numeric) RETURNS int LANGUAGE sql AS $$ SELECT a $$;\n"
		"CREATE FUNCTION comb(a int, b int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;\n"
		"CREATE AGGREGATE lab(int) (sfunc = tr3, stype = int, finalfunc = fin, combinefunc = comb);\n"
		"CREATE AGGREGATE wide(int) (sfunc = tr3, stype = int, finalfunc = fin, finalfunc_extra);\n"
		"CREATE FUNCTION mtr(s bigint, v int) RETURNS bigint LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION mtr(s int, v int) RETURNS int LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION mfin(s int) RETURNS int LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION mfin(s bigint) RETURNS int LANGUAGE sql AS $$ SELECT s::int $$;\n"
		"CREATE AGGREGATE msum(int) (sfunc = tr3, stype = int, msfunc = mtr, minvfunc = mtr,\n"
		"  mstype = bigint, mfinalfunc = mfin);\n"
		"CREATE FUNCTION ofin(s int, frac numeric) RETURNS int LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE FUNCTION ofin(s int) RETURNS int LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE AGGREGATE pick(numeric ORDER BY int) (sfunc = tr3, stype = int, finalfunc = ofin);\n"
		"CREATE AGGREGATE plus(int) (sfunc = int4pl, stype = int, finalfunc = numeric);\n"
		"CREATE FUNCTION co(s int, v bigint) RETURNS int LANGUAGE sql AS $$ SELECT s $$;\n"
		"CREATE AGGREGATE co_agg(int) (sfunc = co, stype = int);\n"
		"CREATE AGGREGATE no_agg(int) (sfunc = nosuch, stype = int);\n");
	assert_string_equal(support_of(m, "public.agg3(integer)", "transition"),
			    "public.tr3(integer,integer)");
	assert_string_equal(support_of(m, "public.agg3(numeric)", "transition"),
			    "public.tr3(integer,numeric)");
	assert_string_equal(support_of(m, "public.agg3(public.small)", "transition"),
			    "public.tr3(integer,integer)");
	assert_string_equal(support_of(m, "public.aggr(public.rowt)", "transition"),
			    "public.tr(jsonb,public.rowt)");
	assert_string_equal(support_of(m, "public.agge(anyelement)", "transition"),
			    "public.tr(jsonb,anyelement)");
	assert_string_equal(support_of(m, "public.lab(integer)", "final"), "public.fin(integer)");
	assert_string_equal(support_of(m, "public.lab(integer)", "combine"),
			    "public.comb(integer,integer)");
	assert_string_equal(m->functions[cgm_model_find(m, "public.lab(integer)")].result, "text");
	assert_string_equal(support_of(m, "public.wide(integer)", "final"),
			    "public.fin(integer,integer)");
	assert_string_equal(m->functions[cgm_model_find(m, "public.wide(integer)")].result, "bigint");
	assert_string_equal(support_of(m, "public.msum(integer)", "moving transition"),
			    "public.mtr(bigint,integer)");
	assert_string_equal(support_of(m, "public.msum(integer)", "moving inverse"),
			    "public.mtr(bigint,integer)");
	assert_string_equal(support_of(m, "public.msum(integer)", "moving final"), "public.mfin(bigint)");
	/* An ordered-set aggregate: the transition takes the aggregated
	 * arguments, the final the direct ones. */
	assert_string_equal(support_of(m, "public.pick(numeric,integer)", "transition"),
			    "public.tr3(integer,integer)");
	assert_string_equal(support_of(m, "public.pick(numeric,integer)", "final"),
			    "public.ofin(integer,numeric)");
	/* pg_catalog's support functions make no support of the model's, but
	 * give the result. */
	assert_string_equal(m->functions[cgm_model_find(m, "public.plus(integer)")].result, "numeric");
	/* What PostgreSQL refuses, it says, and makes no aggregate. */
	assert_int_equal(cgm_model_find(m, "public.co_agg(integer)"), -1);
	assert_int_equal(cgm_model_find(m, "public.no_agg(integer)"), -1);
	const char *want[] = {
		"aggregate public.co_agg(integer): function public.co(integer,bigint) requires run-time "
		"type coercion",
		"aggregate public.no_agg(integer): function nosuch(integer,integer) does not exist",
	};
	assert_int_equal(m->ndiagnostics, 2);
	for (int i = 0; i < 2; i++)
		assert_string_equal(m->diagnostics[i].message, want[i]);
	cgm_model_free(m);
}

/* Dropping a function takes its operator, cast and aggregate along. */
static void test_drop_function_cascades(void **state)
{
	cgm_model *m = load_text(
		"CREATE SCHEMA app;\n"
		"CREATE FUNCTION app.f(a integer, b integer) RETURNS boolean LANGUAGE sql AS 'SELECT true';\n"
		"CREATE OPERATOR app.<<< (LEFTARG = integer, RIGHTARG = integer, FUNCTION = app.f);\n"
		"DROP FUNCTION app.f(integer, integer) CASCADE;\n"
		"CREATE OPERATOR app.>>> (LEFTARG = integer, RIGHTARG = integer, FUNCTION = app.nosuch);\n");
	for (int i = 0; i < m->noperators; i++)
		assert_true(m->operators[i].builtin);
	bool diagnosed = false;
	for (int i = 0; i < m->ndiagnostics; i++)
		if (strstr(m->diagnostics[i].message, "app.nosuch(integer,integer) does not exist"))
			diagnosed = true;
	assert_true(diagnosed);
	cgm_model_free(m);
}

/* The whole pipeline on `text` as one SQL file. */
static cgm_model *map_text_with(const char *text, bool include_builtins, bool include_extensions)
{
	char path[512];
	snprintf(path, sizeof path, "%s/schema.sql", folder);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	const char *paths[] = { path };
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	opts.sql_paths = paths;
	opts.nsql = 1;
	opts.threads = 1;
	opts.include_builtins = include_builtins;
	opts.source.include_extensions = include_extensions;
	opts.runtime.no_runtime = true;
	cgm_model *m = NULL;
	if (cgm_map_source(&m, &opts) < 0)
		fail_msg("map: %s", cgm_error_message());
	return m;
}

static cgm_model *map_text(const char *text, bool include_builtins)
{
	return map_text_with(text, include_builtins, false);
}

/* "from -> to via object @lines [ambiguous]" of every edge, one a line. */
static char *edge_text(const cgm_model *m)
{
	static char buf[8192];
	buf[0] = '\0';
	size_t used = 0;
	int *order = cgm_model_edge_order(m);
	for (int k = 0; k < m->nedges; k++) {
		const cgm_edge *e = &m->edges[order[k]];
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s -> %s %s%s%s @",
					 m->functions[e->from].id, m->functions[e->to].id,
					 cgm_via_name(e->via), e->object ? " " : "",
					 e->object ? e->object : "");
		for (int l = 0; l < e->nlines; l++)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%d", l ? "," : "",
						 e->lines[l]);
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s\n",
					 e->ambiguous ? " ambiguous" : "");
	}
	free(order);
	return buf;
}

static const char *const uses =
	"CREATE FUNCTION app.uses(a app.money, n integer, s smallint, v numeric) RETURNS boolean\n"
	"LANGUAGE plpgsql SET search_path = app AS $$\n"
	"DECLARE m app.money; x numeric;\n"                           /* 2 */
	"BEGIN\n"                                                     /* 3 */
	"  IF a OPERATOR(app.===) a THEN\n"                            /* 4 */
	"    m := -a;\n"                                              /* 5 */
	"  END IF;\n"                                                 /* 6 */
	"  m := CAST('12' AS text)::app.money;\n"                     /* 7 */
	"  m := n::app.money;\n"                                      /* 8 */
	"  SELECT app.mysum(v) INTO x FROM generate_series(1, 3) AS g(i);\n" /* 9 */
	"  PERFORM app.takes_money(n);\n"                             /* 10 */
	"  RETURN a === s AND n + 1 > 0 AND a === 'x' AND 'y'::app.money === a;\n" /* 11 */
	"  m := app.takes_money(m)::app.money;\n"                   /* 12 */
	"END $$;\n"
	"CREATE FUNCTION app.money_len(m app.money, n integer, b boolean) RETURNS app.money\n"
	"  LANGUAGE sql AS 'SELECT m';\n"
	"CREATE CAST (app.money AS app.money) WITH FUNCTION app.money_len(app.money, integer, boolean);\n"
	"CREATE FUNCTION app.takes_money(m app.money) RETURNS void LANGUAGE sql AS 'SELECT';\n";

static void test_resolution(void **state)
{
	char *text = malloc(strlen(fixture) + strlen(uses) + 1);
	strcpy(text, fixture);
	strcat(text, uses);
	cgm_model *m = map_text(text, false);
	free(text);
	/* Line 11: a === s takes ===(app.money,integer), smallint coerced by a
	 * builtin cast; a === 'x' reads 'x' as app.money; 'y'::app.money reads
	 * a literal (no cast).  Line 10: integer to app.money by the implicit
	 * user cast.  app.acc is both the transition and the moving one.
	 * Line 12 casts a call's result, typed from the catalog (bigint): no
	 * user cast takes bigint, so none runs (PostgreSQL refuses the cast),
	 * where every user cast to app.money was once linked and flagged. */
	const char *want =
		"app.uses(app.money,integer,smallint,numeric) -> app.acc(numeric,numeric) aggregate aggregate app.mysum(numeric) @9\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.fin(numeric) aggregate aggregate app.mysum(numeric) @9\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.int_money(integer) cast cast (integer AS app.money) @8,10\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.inv(numeric,numeric) aggregate aggregate app.mysum(numeric) @9\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.money_eq(app.money,app.money) operator operator app.===(app.money,app.money) @4,11\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.money_eq_int(app.money,integer) operator operator app.===(app.money,integer) @11\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.money_neg(app.money) operator operator app.-(NONE,app.money) @5\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.mysum(numeric) call @9\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.takes_money(app.money) call @10,12\n"
		"app.uses(app.money,integer,smallint,numeric) -> app.to_money(text) cast cast (text AS app.money) @7\n";
	const char *got = edge_text(m);
	/* Only the edges of app.uses: the fixture's SQL bodies have their own. */
	char mine[8192] = "";
	for (const char *line = got; *line;) {
		const char *end = strchr(line, '\n');
		if (strncmp(line, "app.uses(", 9) == 0)
			strncat(mine, line, (size_t)(end - line + 1));
		line = end + 1;
	}
	if (strcmp(mine, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", mine, want);
	cgm_model_free(m);
}

/* An extension's operators type what they give offline as the database's
 * catalog does: pgxn-manager's `json_value(dist->'dist')`, dist an hstore,
 * takes json_value(text,text) of three overloads (text, numeric,
 * boolean), as PostgreSQL picks it; before, the list had no extension's
 * operators and the call was ambiguous among all three.  DROP EXTENSION
 * takes its operators: the call is unknown then, as the database would
 * refuse it. */
static void test_extension_operators(void **state)
{
	(void)state;
	static const char *const body =
		"CREATE FUNCTION jv(val text, def text DEFAULT 'null') RETURNS text LANGUAGE sql AS 'SELECT val';\n"
		"CREATE FUNCTION jv(val numeric, def text DEFAULT 'null') RETURNS text LANGUAGE sql AS 'SELECT def';\n"
		"CREATE FUNCTION jv(val boolean, def text DEFAULT 'null') RETURNS text LANGUAGE sql AS 'SELECT def';\n"
		"CREATE FUNCTION dist_json(d hstore) RETURNS text LANGUAGE plpgsql AS $$\n"
		"BEGIN\n"
		"  RETURN jv(d -> 'dist') || jv(d ? 'version');\n"
		"END $$;\n";
	char text[2048];
	snprintf(text, sizeof text, "CREATE EXTENSION hstore;\n%s", body);
	cgm_model *m = map_text(text, false);
	const char *got = edge_text(m);
	const char *want = "public.dist_json(public.hstore) -> public.jv(boolean,text) call @3\n"
			   "public.dist_json(public.hstore) -> public.jv(text,text) call @3\n";
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	int arrows = 0;
	for (int i = 0; i < m->noperators; i++)
		if (strcmp(m->operators[i].name, "->") == 0 && m->operators[i].left &&
		    strcmp(m->operators[i].left, "public.hstore") == 0 &&
		    strcmp(m->operators[i].right, "text") == 0) {
			assert_string_equal(m->operators[i].result, "text");
			assert_string_equal(m->operators[i].function_id, "public.fetchval(public.hstore,text)");
			assert_false(m->operators[i].builtin);
			arrows++;
		}
	assert_int_equal(arrows, 1);
	cgm_model_free(m);

	snprintf(text, sizeof text, "CREATE EXTENSION hstore;\nDROP EXTENSION hstore;\n"
				    "CREATE TYPE hstore;\n%s", body);
	m = map_text(text, false);
	for (int i = 0; i < m->noperators; i++)
		assert_false(strcmp(m->operators[i].name, "->") == 0 && m->operators[i].left &&
			     strcmp(m->operators[i].left, "public.hstore") == 0);
	cgm_model_free(m);
}

/* --include-extensions on files: the functions CREATE EXTENSION makes
 * are the graph's, as the live source maps them (earthdistance's SQL
 * functions call cube's C ones: 9 of its 16 edges were missing from the
 * files' map of its script), with no body; without it they stay out. */
static void test_extension_functions_included(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE EXTENSION pgcrypto;\n"
		"CREATE FUNCTION app_hash(t text) RETURNS text LANGUAGE sql\n"
		"  AS $$ SELECT crypt(t, gen_salt('bf')) $$;\n";
	cgm_model *m = map_text_with(text, false, true);
	const char *want = "public.app_hash(text) -> public.crypt(text,text) call @1\n"
			   "public.app_hash(text) -> public.gen_salt(text) call @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	const cgm_function *crypt = &m->functions[cgm_model_find(m, "public.crypt(text,text)")];
	assert_false(crypt->builtin);
	assert_false(crypt->analysed);
	assert_true(crypt->from_extension);
	cgm_model_free(m);

	m = map_text_with(text, false, false);
	assert_int_equal(m->nedges, 0);
	assert_true(m->functions[cgm_model_find(m, "public.crypt(text,text)")].builtin);
	cgm_model_free(m);
}

/* An extension's tables, views and composite types type what reads them
 * offline as the catalog does: PostGIS's ST_Dump() gives geometry_dump,
 * whose geom is a geometry, so a user's overloads for geometry and
 * geography are not ambiguous (they were, in both the FROM and the field
 * forms), and PostGIS's geometry_columns view has its columns.  DROP
 * EXTENSION takes them. */
static void test_extension_relations(void **state)
{
	(void)state;
	static const char *const body =
		"CREATE FUNCTION area_of(g geometry) RETURNS float8 LANGUAGE sql AS 'SELECT 1.0';\n"
		"CREATE FUNCTION area_of(g geography) RETURNS float8 LANGUAGE sql AS 'SELECT 2.0';\n"
		"CREATE FUNCTION parts(g geometry) RETURNS float8 LANGUAGE sql\n"
		"  AS $$ SELECT sum(area_of(d.geom)) FROM ST_Dump(g) AS d $$;\n"
		"CREATE FUNCTION parts2(g geometry) RETURNS float8 LANGUAGE plpgsql\n"
		"  AS $$ BEGIN RETURN area_of((ST_Dump(g)).geom); END $$;\n";
	char text[2048];
	snprintf(text, sizeof text, "CREATE EXTENSION postgis;\n%s", body);
	cgm_model *m = map_text(text, false);
	const char *want = "public.parts(public.geometry) -> public.area_of(public.geometry) call @1\n"
			   "public.parts2(public.geometry) -> public.area_of(public.geometry) call @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	int views = 0;
	for (int i = 0; i < m->nrelations; i++)
		if (strcmp(m->relations[i].name, "geometry_columns") == 0) {
			assert_string_equal(m->relations[i].schema, "public");
			assert_int_equal(m->relations[i].relkind, 'v');
			assert_int_equal(m->relations[i].ncolumns, 7);
			views++;
		}
	assert_int_equal(views, 1);
	cgm_model_free(m);

	snprintf(text, sizeof text, "CREATE EXTENSION postgis;\nDROP EXTENSION postgis;\n");
	m = map_text(text, false);
	for (int i = 0; i < m->nrelations; i++)
		assert_false(strcmp(m->relations[i].name, "geometry_columns") == 0);
	cgm_model_free(m);
}

/* An extension's operator classes give an index of their type its
 * support functions offline, as the catalog does: btree_gist's
 * gist_int4_ops for a GiST index on an integer column and for an
 * exclusion constraint's (the tsrange column's class is pg_catalog's,
 * whose functions are no edges). */
static void test_extension_opclasses(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE EXTENSION btree_gist;\n"
		"CREATE TABLE r (id integer, during tsrange,\n"
		"  EXCLUDE USING gist (id WITH =, during WITH &&));\n"
		"CREATE TABLE s (id integer);\n"
		"CREATE INDEX s_gist ON s USING gist (id);\n"
		"CREATE FUNCTION add_s(i integer) RETURNS void LANGUAGE sql\n"
		"  AS $$ INSERT INTO s VALUES (i) $$;\n"
		"CREATE FUNCTION add_r(i integer) RETURNS void LANGUAGE sql\n"
		"  AS $$ INSERT INTO r VALUES (i, NULL) $$;\n";
	cgm_model *m = map_text_with(text, false, true);
	const char *got = edge_text(m);
	static const char *const want[] = {
		"public.add_s(integer) -> public.gbt_int4_compress(internal) index index public.s_gist "
		"(operator class public.gist_int4_ops) @1\n",
		"public.add_s(integer) -> public.gbt_int4_penalty(internal,internal,internal) index "
		"index public.s_gist (operator class public.gist_int4_ops) @1\n",
		"public.add_r(integer) -> public.gbt_int4_consistent(internal,integer,smallint,oid,internal)"
		" index index public.r_id_during_excl (operator class public.gist_int4_ops) @1\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(got, want[i]))
			fail_msg("edges:\n%s\nlack:\n%s", got, want[i]);
	/* An insert runs no scan of s_gist: no consistent function there. */
	assert_null(strstr(got, "add_s(integer) -> public.gbt_int4_consistent"));
	assert_null(strstr(got, "range_"));
	cgm_model_free(m);
}

/* An extension's views are made from their queries, so a read of one runs
 * what the columns read call, as the catalog has it: pg_stat_statements'
 * function for any read of its view (the function is its FROM), and of
 * PostGIS's geometry_columns, postgis_typmod_dims() for coord_dimension
 * but nothing for f_table_name.  Each edge below is the live map's of a
 * database these statements made. */
static void test_extension_views(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE EXTENSION pg_stat_statements;\n"
		"CREATE EXTENSION postgis;\n"
		"CREATE FUNCTION total_calls() RETURNS numeric LANGUAGE sql\n"
		"  AS $$ SELECT sum(calls) FROM pg_stat_statements $$;\n"
		"CREATE FUNCTION deallocs() RETURNS bigint LANGUAGE sql\n"
		"  AS $$ SELECT dealloc FROM pg_stat_statements_info $$;\n"
		"CREATE FUNCTION dims() RETURNS bigint LANGUAGE sql\n"
		"  AS $$ SELECT count(coord_dimension) FROM geometry_columns $$;\n"
		"CREATE FUNCTION names() RETURNS bigint LANGUAGE sql\n"
		"  AS $$ SELECT count(f_table_name) FROM geometry_columns $$;\n";
	cgm_model *m = map_text_with(text, false, true);
	const char *want =
		"public.deallocs() -> public.pg_stat_statements_info() view view "
		"public.pg_stat_statements_info @1\n"
		"public.dims() -> public.postgis_typmod_dims(integer) view view public.geometry_columns @1\n"
		"public.total_calls() -> public.pg_stat_statements(boolean) view view "
		"public.pg_stat_statements @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	/* The view's columns keep the catalog's types. */
	int views = 0;
	for (int i = 0; i < m->nrelations; i++)
		if (strcmp(m->relations[i].name, "pg_stat_statements_info") == 0) {
			assert_int_equal(m->relations[i].relkind, 'v');
			assert_int_equal(m->relations[i].ncolumns, 2);
			assert_string_equal(m->relations[i].columns[1].type, "timestamp with time zone");
			views++;
		}
	assert_int_equal(views, 1);
	cgm_model_free(m);
}

/* The model's references are exactly `refs` (function, object), in any
 * order. */
static void assert_references(const cgm_model *m, const char *const (*refs)[2], size_t n)
{
	assert_int_equal(m->nreferences, (int)n);
	for (size_t k = 0; k < n; k++) {
		bool found = false;
		for (int i = 0; i < m->nreferences && !found; i++)
			found = strcmp(m->references[i].function_id, refs[k][0]) == 0 &&
				strcmp(m->references[i].object, refs[k][1]) == 0;
		if (!found)
			fail_msg("no reference of %s to %s", refs[k][1], refs[k][0]);
	}
}

/* A call in a check, a default or a view's query runs the overload its
 * arguments' types take, as PostgreSQL resolves it: a cast's type, a
 * constant's, the table's column's (each edge below is the live map's of
 * a database these statements made; the files took the first overload
 * of the arity before).  The objects refer to those overloads too, as
 * the live map's references (pg_depend) say. */
static void test_effect_overloads(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE FUNCTION srid(x integer) RETURNS integer LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE FUNCTION srid(x text) RETURNS integer LANGUAGE sql AS 'SELECT 2';\n"
		"CREATE FUNCTION srid(x date) RETURNS integer LANGUAGE sql AS 'SELECT 3';\n"
		"CREATE VIEW v AS SELECT (SELECT srid('x'::text)) AS a, srid(1) AS b,\n"
		"  srid(now()::date) AS c;\n"
		"CREATE TABLE t (id integer, d date DEFAULT now(), k integer CHECK (srid(d) > 0),\n"
		"  e integer DEFAULT srid('x'::text));\n"
		"CREATE FUNCTION read_a() RETURNS integer LANGUAGE sql AS 'SELECT a FROM v';\n"
		"CREATE FUNCTION read_b() RETURNS integer LANGUAGE sql AS 'SELECT b FROM v';\n"
		"CREATE FUNCTION read_c() RETURNS integer LANGUAGE sql AS 'SELECT c FROM v';\n"
		"CREATE FUNCTION add_t() RETURNS void LANGUAGE sql AS 'INSERT INTO t (id, k) VALUES (1, 1)';\n";
	cgm_model *m = map_text(text, false);
	const char *want =
		"public.add_t() -> public.srid(date) check check public.t.t_d_check @1\n"
		"public.add_t() -> public.srid(text) default default public.t.e @1\n"
		"public.read_a() -> public.srid(date) view view public.v @1\n"
		"public.read_a() -> public.srid(integer) view view public.v @1\n"
		"public.read_a() -> public.srid(text) view view public.v @1\n"
		"public.read_b() -> public.srid(date) view view public.v @1\n"
		"public.read_b() -> public.srid(integer) view view public.v @1\n"
		"public.read_b() -> public.srid(text) view view public.v @1\n"
		"public.read_c() -> public.srid(date) view view public.v @1\n"
		"public.read_c() -> public.srid(integer) view view public.v @1\n"
		"public.read_c() -> public.srid(text) view view public.v @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	static const char *const refs[][2] = {
		{ "public.srid(date)", "constraint t_d_check on table public.t" },
		{ "public.srid(text)", "default value for column e of table public.t" },
		{ "public.srid(integer)", "rule _RETURN on view public.v" },
		{ "public.srid(text)", "rule _RETURN on view public.v" },
		{ "public.srid(date)", "rule _RETURN on view public.v" },
	};
	assert_references(m, refs, sizeof refs / sizeof refs[0]);
	cgm_model_free(m);
}

/* An untyped literal or NULL among a DDL call's arguments takes the
 * overload PostgreSQL's rules give it, not the first of the arity along
 * the path: a string one when any candidate takes a string there (b.g
 * further down the path than a.g, h(varchar) before h(date), k's text
 * where its other argument is typed by the column), the candidates
 * counting those with defaults, and a pg_catalog one (lower(text)) runs
 * nothing of the user's.  Each edge and reference below is the live map's
 * of a database these statements made; the files gave a.g(integer),
 * h(date) and k(integer,integer) before. */
static void test_untyped_literal_overloads(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE SCHEMA a;\n"
		"CREATE SCHEMA b;\n"
		"SET search_path = a, b, public;\n"
		"CREATE FUNCTION a.g(x integer) RETURNS integer LANGUAGE sql AS 'SELECT 1';\n"
		"CREATE FUNCTION b.g(x text) RETURNS integer LANGUAGE sql AS 'SELECT 2';\n"
		"CREATE FUNCTION public.h(x date) RETURNS integer LANGUAGE sql AS 'SELECT 3';\n"
		"CREATE FUNCTION public.h(x varchar) RETURNS integer LANGUAGE sql AS 'SELECT 4';\n"
		"CREATE FUNCTION public.k(x integer, y integer) RETURNS integer LANGUAGE sql AS 'SELECT 5';\n"
		"CREATE FUNCTION public.k(x integer, y text) RETURNS integer LANGUAGE sql AS 'SELECT 6';\n"
		"CREATE FUNCTION public.m(x integer, y integer DEFAULT 0) RETURNS integer\n"
		"  LANGUAGE sql AS 'SELECT 7';\n"
		"CREATE FUNCTION public.m(x text) RETURNS integer LANGUAGE sql AS 'SELECT 8';\n"
		"CREATE FUNCTION public.lower(x integer) RETURNS integer LANGUAGE sql AS 'SELECT 9';\n"
		"CREATE TABLE public.t (n integer CHECK (g('x') > 0), d integer DEFAULT h('2020-01-01'),\n"
		"  e integer CHECK (k(n, NULL) > 0), f integer DEFAULT m('5'), s text DEFAULT lower('X'));\n"
		"CREATE FUNCTION public.fill() RETURNS void LANGUAGE sql\n"
		"  AS 'INSERT INTO public.t (n) VALUES (1)';\n";
	cgm_model *m = map_text(text, false);
	const char *want =
		"public.fill() -> b.g(text) check check public.t.t_check @1\n"
		"public.fill() -> public.h(character varying) default default public.t.d @1\n"
		"public.fill() -> public.k(integer,text) check check public.t.t_n_check @1\n"
		"public.fill() -> public.m(text) default default public.t.f @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	static const char *const refs[][2] = {
		{ "b.g(text)", "constraint t_check on table public.t" },
		{ "public.h(character varying)", "default value for column d of table public.t" },
		{ "public.k(integer,text)", "constraint t_n_check on table public.t" },
		{ "public.m(text)", "default value for column f of table public.t" },
	};
	assert_references(m, refs, sizeof refs / sizeof refs[0]);
	cgm_model_free(m);
}

/* A view's calls of overloads of one name take theirs by the types of
 * the columns they pass: a joined item's by its alias, the column of the
 * only relation of its query level holding it, a subquery's own FROM
 * item's, another call's result (upper() gives text, which reaches name
 * only).  The references are the live map's (pg_depend); each read runs
 * the overload of the column it reads, as a trace of the same statements
 * shows (test_viewcols.sh).  The files took sym(integer) for all before. */
static void test_view_column_overloads(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE FUNCTION sym(x integer) RETURNS text LANGUAGE sql STABLE AS 'SELECT 1::text';\n"
		"CREATE FUNCTION sym(x name) RETURNS text LANGUAGE sql STABLE AS 'SELECT 2::text';\n"
		"CREATE FUNCTION sym(x date) RETURNS text LANGUAGE sql STABLE AS 'SELECT 3::text';\n"
		"CREATE TABLE players (id integer, username name, born date);\n"
		"CREATE TABLE events (player_id integer, at date);\n"
		"CREATE VIEW v1 AS SELECT sym(p.username) AS a, sym(e.at) AS b\n"
		"  FROM players p JOIN events e ON e.player_id = p.id;\n"
		"CREATE VIEW v2 AS SELECT sym(born) AS c,\n"
		"  (SELECT sym(x.player_id) FROM events x LIMIT 1) AS d FROM players;\n"
		"CREATE VIEW v3 AS SELECT sym(upper(username)) AS e FROM players;\n"
		"CREATE FUNCTION r1() RETURNS text LANGUAGE sql AS 'SELECT a FROM v1';\n"
		"CREATE FUNCTION r2() RETURNS text LANGUAGE sql AS 'SELECT c FROM v2';\n"
		"CREATE FUNCTION r3() RETURNS text LANGUAGE sql AS 'SELECT e FROM v3';\n";
	cgm_model *m = map_text(text, false);
	const char *want = "public.r1() -> public.sym(name) view view public.v1 @1\n"
			   "public.r2() -> public.sym(date) view view public.v2 @1\n"
			   "public.r3() -> public.sym(name) view view public.v3 @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	static const char *const refs[][2] = {
		{ "public.sym(name)", "rule _RETURN on view public.v1" },
		{ "public.sym(date)", "rule _RETURN on view public.v1" },
		{ "public.sym(date)", "rule _RETURN on view public.v2" },
		{ "public.sym(integer)", "rule _RETURN on view public.v2" },
		{ "public.sym(name)", "rule _RETURN on view public.v3" },
	};
	assert_references(m, refs, sizeof refs / sizeof refs[0]);
	cgm_model_free(m);
}

/* A view's column that is a call has the type of the overload's result,
 * as the catalog types it: a function passing the column to overloads
 * takes show(date), not both (the live map's edges of a database these
 * statements made; the files called the call ambiguous before). */
static void test_view_call_column_types(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE FUNCTION mk(x integer) RETURNS date LANGUAGE sql STABLE AS 'SELECT current_date';\n"
		"CREATE FUNCTION mk(x text) RETURNS integer LANGUAGE sql STABLE AS 'SELECT 1';\n"
		"CREATE FUNCTION show(x integer) RETURNS text LANGUAGE plpgsql\n"
		"  AS $$ BEGIN RETURN 'i'; END $$;\n"
		"CREATE FUNCTION show(x date) RETURNS text LANGUAGE plpgsql\n"
		"  AS $$ BEGIN RETURN 'd'; END $$;\n"
		"CREATE TABLE t (id integer);\n"
		"CREATE VIEW v AS SELECT id, mk(id) AS day, lower('X') AS low FROM t;\n"
		"CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $$\n"
		"DECLARE r text;\n"
		"BEGIN\n"
		"  SELECT show(v.day) INTO r FROM v;\n"
		"  RETURN r;\n"
		"END $$;\n";
	cgm_model *m = map_text(text, false);
	const char *want = "public.f() -> public.mk(integer) view view public.v @4\n"
			   "public.f() -> public.show(date) call @4\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	cgm_model_free(m);
}

/* The names PostgreSQL chooses for a foreign key, a check constraint and a
 * domain's check it names itself are cut to 63 bytes as an index's are
 * (ChooseConstraintName): each expected name below is PostgreSQL 15's,
 * read from pg_constraint after these statements. */
static void test_long_constraint_names(void **state)
{
	(void)state;
	static const char *const text =
		"CREATE FUNCTION positive(i integer) RETURNS boolean LANGUAGE sql AS 'SELECT i > 0';\n"
		"CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$;\n"
		"CREATE TABLE accounts_history_with_a_long_name (id integer PRIMARY KEY);\n"
		"CREATE TABLE ledger_entries_of_the_accounting_history (\n"
		"  account_identifier_number integer REFERENCES accounts_history_with_a_long_name\n"
		"    ON DELETE CASCADE,\n"
		"  amount_in_the_smallest_currency_unit integer\n"
		"    CHECK (positive(amount_in_the_smallest_currency_unit)),\n"
		"  CHECK (positive(amount_in_the_smallest_currency_unit)));\n"
		"CREATE TRIGGER t BEFORE DELETE ON ledger_entries_of_the_accounting_history\n"
		"  FOR EACH ROW EXECUTE FUNCTION stamp();\n"
		"CREATE DOMAIN a_domain_whose_name_is_long_enough_to_be_cut_when_it_is_named\n"
		"  AS integer CHECK (positive(VALUE));\n"
		"CREATE FUNCTION close_account(i integer) RETURNS void LANGUAGE sql\n"
		"  AS 'DELETE FROM accounts_history_with_a_long_name WHERE id = i';\n"
		"CREATE FUNCTION book(a integer) RETURNS void LANGUAGE sql\n"
		"  AS 'INSERT INTO ledger_entries_of_the_accounting_history VALUES (1, a)';\n"
		"CREATE FUNCTION typed(a integer) RETURNS integer LANGUAGE sql\n"
		"  AS 'SELECT (a::a_domain_whose_name_is_long_enough_to_be_cut_when_it_is_named)::integer';\n";
	cgm_model *m = map_text(text, false);
	const char *want =
		"public.book(integer) -> public.positive(integer) check check "
		"public.ledger_entries_of_the_accounting_history."
		"ledger_entries_of_the_accoun_amount_in_the_smallest_curr_check1 @1\n"
		"public.book(integer) -> public.positive(integer) check check "
		"public.ledger_entries_of_the_accounting_history."
		"ledger_entries_of_the_accoun_amount_in_the_smallest_curre_check @1\n"
		"public.close_account(integer) -> public.stamp() cascade cascade "
		"public.ledger_entries_of_the_accounting_history."
		"ledger_entries_of_the_accounting_account_identifier_number_fkey @1\n"
		"public.typed(integer) -> public.positive(integer) domain domain "
		"public.a_domain_whose_name_is_long_enough_to_be_cut_when_it_is_named."
		"a_domain_whose_name_is_long_enough_to_be_cut_when_it_is_n_check @1\n";
	const char *got = edge_text(m);
	if (strcmp(got, want) != 0)
		fail_msg("edges:\n%s\nexpected:\n%s", got, want);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_lists),
		cmocka_unit_test(test_overloaded_symbols),
		cmocka_unit_test_setup_teardown(test_sql_definitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aggregate_support_by_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_function_cascades, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolution, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_operators, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_opclasses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_constraint_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_effect_overloads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untyped_literal_overloads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_column_overloads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_call_column_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_functions_included, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_relations, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
