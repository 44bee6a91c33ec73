/*
 * test_selectcols.c - a SELECT's output columns as PostgreSQL names them
 * (selectcols.h).  Each expected list is what PostgreSQL 15 named the
 * columns of the same query (psql's header, or pg_attribute of a view made
 * of it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pg_query.h>

#include "cgmap/strbuf.h"
#include "jsondom.h"
#include "selectcols.h"

static cgm_arena *arena;

static int setup(void **state)
{
	(void)state;
	arena = cgm_arena_new();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cgm_arena_free(arena);
	return 0;
}

/* app.rule has columns id integer, col text, fn varchar, prio integer. */
static int table(void *ctx, const char *schema, const char *name, const char *const **names,
		 const char *const **types)
{
	static const char *const n[] = { "id", "col", "fn", "prio" };
	static const char *const t[] = { "integer", "text", "character varying", "integer" };
	(void)ctx;
	if (strcmp(name, "rule") != 0 || (schema && strcmp(schema, "app") != 0))
		return -1;
	*names = n;
	*types = t;
	return 4;
}

static const jd_node *select_of(const char *sql)
{
	PgQueryParseResult r = pg_query_parse(sql);
	assert_null(r.error);
	jd_node *tree = jd_parse(arena, r.parse_tree, strlen(r.parse_tree));
	pg_query_free_parse_result(r);
	return jd_get(jd_get(jd_at(jd_get(tree, "stmts"), 0), "stmt"), "SelectStmt");
}

/* The names joined by '|', or "-" when they cannot be told. */
static const char *columns(const char *sql)
{
	cgm_select_columns cols;
	if (!cgm_select_columns_of(arena, select_of(sql), table, NULL, &cols))
		return "-";
	cgm_strbuf b = { 0 };
	for (int i = 0; i < cols.n; i++) {
		if (i)
			cgm_strbuf_puts(&b, "|");
		cgm_strbuf_puts(&b, cols.names[i]);
	}
	char *s = cgm_arena_strdup(arena, b.data ? b.data : "");
	cgm_strbuf_free(&b);
	return s;
}

/* A cast names its type as the caller writes it: the type's last name. */
static const char *cast_name(void *ctx, const jd_node *type_name)
{
	(void)ctx;
	const jd_node *names = jd_get(type_name, "names");
	size_t n = jd_size(names);
	return n ? jd_string_node(jd_at(names, n - 1)) : NULL;
}

/* The types joined by '|' ("?" when not known), or "-". */
static const char *types(const char *sql)
{
	cgm_select_columns cols;
	if (!cgm_select_columns_typed(arena, select_of(sql), table, cast_name, NULL, &cols))
		return "-";
	cgm_strbuf b = { 0 };
	for (int i = 0; i < cols.n; i++) {
		if (i)
			cgm_strbuf_puts(&b, "|");
		cgm_strbuf_puts(&b, cols.types[i] ? cols.types[i] : "?");
	}
	char *s = cgm_arena_strdup(arena, b.data ? b.data : "");
	cgm_strbuf_free(&b);
	return s;
}

/* A target naming a column of a FROM item has its type, bare when one
 * item has it, qualified by the item's alias or name, through a join or a
 * subquery; an expression has none, a cast its type's. */
static void test_types(void **state)
{
	(void)state;
	assert_string_equal(types("SELECT id, r.col, app.rule.fn FROM app.rule r"), "integer|text|?");
	assert_string_equal(types("SELECT rule.prio, fn FROM app.rule"), "integer|character varying");
	assert_string_equal(types("SELECT s.x, s.col FROM (SELECT id AS x, col FROM app.rule) s"), "integer|text");
	assert_string_equal(types("SELECT a.id, b.col, prio + 1, fn::int4, upper(col) "
				  "FROM app.rule a JOIN app.rule b USING (id)"),
			    "integer|text|?|int4|?");
	/* Two items have it: ambiguous, PostgreSQL refuses; not typed. */
	assert_string_equal(types("SELECT col FROM app.rule a, app.rule b"), "?");
	/* An item whose columns are not known may have it. */
	assert_string_equal(types("SELECT col FROM app.rule a, other.t b"), "?");
	assert_string_equal(types("SELECT a.col FROM app.rule a, other.t b"), "text");
	/* The names are what they were. */
	assert_string_equal(columns("SELECT id, r.col FROM app.rule r"), "id|col");
}

/* FigureColname: what an expression without AS is named by. */
static void test_figured_names(void **state)
{
	(void)state;
	assert_string_equal(
		columns("SELECT 1, 'a'::text, 1::integer, CAST(2 AS bigint), x.id, upper('a'), "
			"nullif(1,2), coalesce(1,2), greatest(1,2), least(1,2), "
			"CASE WHEN true THEN 1 END, CASE WHEN true THEN 1 ELSE x.id END, ARRAY[1], "
			"ROW(1,2), EXISTS(SELECT 1), ARRAY(SELECT 1), (SELECT 1 AS inner_name), "
			"(SELECT x.col), current_date, current_user, (x.col) COLLATE \"C\", 1 + 2, "
			"NOT true, x.id IS NULL, ('(1,2)'::point)[0] FROM app.rule x"),
		"?column?|text|int4|int8|id|upper|nullif|coalesce|greatest|least|case|id|array|row|"
		"exists|array|inner_name|col|current_date|current_user|col|?column?|?column?|"
		"?column?|point");
}

/* A star shows tables, CTEs (renamed by their column list), subqueries in
 * FROM (renamed by their alias), joins (USING's columns once, first). */
static void test_stars(void **state)
{
	(void)state;
	assert_string_equal(columns("SELECT *, 1 AS one FROM app.rule"), "id|col|fn|prio|one");
	assert_string_equal(columns("SELECT r.* FROM app.rule r, app.rule s"), "id|col|fn|prio");
	assert_string_equal(columns("SELECT * FROM app.rule r(a, b)"), "a|b|fn|prio");
	/* PostgreSQL Anonymizer's pg_masking_rules: the first branch of a
	 * UNION of CTEs names the columns. */
	assert_string_equal(
		columns("WITH k AS (SELECT 'x'::text AS p), "
			"lo AS (SELECT r.id, r.col, r.fn::text, lower(r.col), 0 AS prio FROM app.rule r), "
			"hi AS (SELECT r.id, r.col, r.fn::text, lower(r.col), 100 AS prio FROM k, app.rule r), "
			"a AS (SELECT * FROM lo UNION SELECT * FROM hi) "
			"SELECT DISTINCT ON (id) *, (SELECT upper(fn)) AS s FROM a ORDER BY id"),
		"id|col|fn|lower|prio|s");
	assert_string_equal(columns("WITH x(p, q) AS (SELECT id, col FROM app.rule) "
				    "SELECT *, 1::int, CASE WHEN p > 1 THEN 1 END, (SELECT 1 AS one) FROM x"),
			    "p|q|int4|case|one");
	assert_string_equal(columns("SELECT * FROM (SELECT id, upper(col) AS u FROM app.rule) sub "
				    "JOIN app.rule USING (id)"),
			    "id|u|col|fn|prio");
	assert_string_equal(columns("SELECT sub.*, t.* FROM (SELECT id AS i, col FROM app.rule) sub(a), "
				    "app.rule t"),
			    "a|col|id|col|fn|prio");
	/* A CTE named in the WITH of an enclosing UNION. */
	assert_string_equal(columns("WITH c AS (SELECT id FROM app.rule) SELECT * FROM c "
				    "UNION SELECT 1"),
			    "id");
}

/* What cannot be told: a star over an unknown relation, a function in
 * FROM, a NATURAL join; a CTE showing itself is bounded. */
static void test_unknown(void **state)
{
	(void)state;
	assert_string_equal(columns("SELECT * FROM app.other"), "-");
	assert_string_equal(columns("SELECT * FROM generate_series(1, 2)"), "-");
	assert_string_equal(columns("SELECT * FROM app.rule NATURAL JOIN app.rule r"), "-");
	assert_string_equal(columns("WITH c AS (SELECT * FROM c) SELECT * FROM c"), "-");
	assert_string_equal(columns("SELECT id, 2 FROM app.other"), "id|?column?");
}

/* A chain of CTEs each showing the one before twice is bounded, not
 * expanded 2^n times; a CTE's columns keep the types of the table its
 * star shows. */
static void test_expansion_bounded(void **state)
{
	(void)state;
	cgm_strbuf sql = { 0 };
	cgm_strbuf_puts(&sql, "WITH c0 AS (SELECT id FROM app.rule)");
	for (int i = 1; i < 60; i++)
		cgm_strbuf_printf(&sql, ", c%d AS (SELECT * FROM c%d a, c%d b)", i, i - 1, i - 1);
	cgm_strbuf_puts(&sql, " SELECT * FROM c59");
	assert_string_equal(columns(sql.data), "-");
	cgm_strbuf_free(&sql);
	cgm_select_columns cte;
	assert_true(cgm_select_cte_columns(arena,
					   select_of("WITH x(p) AS (SELECT * FROM app.rule) "
						     "SELECT 1"),
					   "x", table, NULL, &cte));
	assert_int_equal(cte.n, 4);
	assert_string_equal(cte.names[0], "p");
	assert_string_equal(cte.names[1], "col");
	assert_string_equal(cte.types[0], "integer");
	assert_string_equal(cte.types[2], "character varying");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_figured_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stars, setup, teardown),
		cmocka_unit_test_setup_teardown(test_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expansion_bounded, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
