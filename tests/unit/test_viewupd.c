/*
 * test_viewupd.c - whether PostgreSQL 15 updates a view by itself, read from
 * the view's query as view_query_is_auto_updatable reads it: one FROM
 * relation whatever its subqueries read, nothing that groups, limits,
 * combines or returns sets; and which of its columns are updatable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pg_query.h>

#include "viewupd.h"

/* The shape of `sql`'s SELECT; `groups` answers calls by name. */
static bool shape_of(cgm_arena *a, const char *sql, cgm_view_groups_fn groups,
		     cgm_view_shape *out)
{
	PgQueryParseResult r = pg_query_parse(sql);
	assert_null(r.error);
	jd_node *tree = jd_parse(a, r.parse_tree, strlen(r.parse_tree));
	pg_query_free_parse_result(r);
	jd_node *select = jd_get(jd_get(jd_at(jd_get(tree, "stmts"), 0), "stmt"), "SelectStmt");
	return cgm_view_shape_of(a, select, groups, NULL, out);
}

/* generate_series returns a set, mysum is an aggregate; nothing else. */
static bool known_groups(void *ctx, const char *schema, const char *name, int nargs)
{
	(void)ctx;
	(void)schema;
	(void)nargs;
	return strcmp(name, "generate_series") == 0 || strcmp(name, "mysum") == 0;
}

static bool simple(const char *sql)
{
	cgm_arena *a = cgm_arena_new();
	cgm_view_shape s;
	assert_true(shape_of(a, sql, known_groups, &s));
	bool simple = s.simple;
	cgm_arena_free(a);
	return simple;
}

static void test_updatable_queries(void **state)
{
	(void)state;
	assert_true(simple("SELECT id, qty FROM app.item"));
	assert_true(simple("SELECT * FROM item WHERE id IN (SELECT id FROM app.open_ids)"));
	assert_true(simple("SELECT id FROM app.item i WHERE EXISTS (SELECT count(*) FROM app.x)"));
	assert_true(simple("SELECT id, (SELECT max(x) FROM app.y) AS m FROM app.item ORDER BY id"));
	assert_true(simple("SELECT id, upper(note) FROM ONLY app.item"));
	/* What PostgreSQL refuses to update by itself. */
	assert_false(simple("SELECT DISTINCT id FROM app.item"));
	assert_false(simple("SELECT DISTINCT ON (id) id FROM app.item"));
	assert_false(simple("SELECT id FROM app.item GROUP BY id"));
	assert_false(simple("SELECT 1 AS one FROM app.item HAVING true"));
	assert_false(simple("SELECT id FROM app.item LIMIT 1"));
	assert_false(simple("SELECT id FROM app.item OFFSET 1"));
	assert_false(simple("SELECT id FROM app.item UNION SELECT id FROM app.other"));
	assert_false(simple("WITH w AS (SELECT 1) SELECT id FROM app.item"));
	assert_false(simple("SELECT id FROM app.item, app.other"));
	assert_false(simple("SELECT i.id FROM app.item i JOIN app.other o USING (id)"));
	assert_false(simple("SELECT id FROM (SELECT id FROM app.item) s"));
	assert_false(simple("SELECT g FROM generate_series(1, 3) g"));
	assert_false(simple("SELECT id FROM app.item TABLESAMPLE SYSTEM (10)"));
	assert_false(simple("SELECT 1 AS one"));
	assert_false(simple("VALUES (1)"));
	/* Aggregates, window functions and set-returning functions. */
	assert_false(simple("SELECT count(*) FROM app.item"));
	assert_false(simple("SELECT count(DISTINCT id) FROM app.item"));
	assert_false(simple("SELECT string_agg(note, ',' ORDER BY id) FROM app.item"));
	assert_false(simple("SELECT row_number() OVER () FROM app.item"));
	assert_false(simple("SELECT id FROM app.item ORDER BY rank() OVER (ORDER BY id)"));
	assert_false(simple("SELECT mysum(qty) FROM app.item"));
	assert_false(simple("SELECT upper(mysum(qty)::text) FROM app.item"));
	assert_false(simple("SELECT id, generate_series(1, qty) FROM app.item"));
}

static void test_updatable_columns(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	const cgm_column base[] = { { "id", "integer" }, { "qty", "integer" }, { "note", "text" } };
	cgm_view_shape s;
	const char **view, **shows;
	assert_true(shape_of(a,
			     "SELECT i.id, i.qty AS amount, upper(i.note) AS loud, i.ctid, i, "
			     "app.item.note FROM app.item i",
			     NULL, &s));
	assert_true(s.simple);
	assert_string_equal(s.base_schema, "app");
	assert_string_equal(s.base_name, "item");
	int n = cgm_view_updatable_columns(a, &s, NULL, 0, base, 3, &view, &shows);
	assert_int_equal(n, 3);
	assert_string_equal(view[0], "id");
	assert_string_equal(shows[0], "id");
	assert_string_equal(view[1], "amount");
	assert_string_equal(shows[1], "qty");
	assert_string_equal(view[2], "note");
	assert_string_equal(shows[2], "note");

	/* A `*` shows every column; CREATE VIEW's column list names them. */
	assert_true(shape_of(a, "SELECT *, qty * 2 AS twice FROM item", NULL, &s));
	assert_null(s.base_schema);
	const char *aliases[] = { "k", NULL, "remark" };
	n = cgm_view_updatable_columns(a, &s, aliases, 3, base, 3, &view, &shows);
	assert_int_equal(n, 3);
	assert_string_equal(view[0], "k");
	assert_string_equal(shows[0], "id");
	assert_string_equal(view[1], "qty");
	assert_string_equal(shows[1], "qty");
	assert_string_equal(view[2], "remark");
	assert_string_equal(shows[2], "note");

	/* No plain column: still updatable (DELETE), with no column. */
	assert_true(shape_of(a, "SELECT id + 1 AS next FROM app.item", NULL, &s));
	assert_true(s.simple);
	assert_int_equal(cgm_view_updatable_columns(a, &s, NULL, 0, base, 3, &view, &shows), 0);
	cgm_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_updatable_queries),
		cmocka_unit_test(test_updatable_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
