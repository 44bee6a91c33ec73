/*
 * test_relfx.c - the closure of relation effects: nested views, UPDATE OF
 * columns, defaults of unlisted columns, partitions' triggers, cascades
 * followed transitively and ended on a cycle, policies not applied under
 * a view, event triggers by event and tag, and DDL command tags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/model.h"
#include "cgmap/relfx.h"

static cgm_model *model;
static cgm_relfx *fx;

static int fn(const char *id)
{
	cgm_function *f = cgm_model_add_function(model);
	f->id = id;
	f->schema = "app";
	f->name = id;
	return model->nfunctions - 1;
}

static void relation(const char *name, char kind)
{
	cgm_relation *r = cgm_model_add_relation(model);
	r->schema = "app";
	r->name = name;
	r->relkind = kind;
}

static cgm_effect *effect(const char *rel, cgm_reach reach, cgm_via via, const char *object,
			  unsigned events, const char *function_id)
{
	cgm_effect *e = cgm_model_add_effect(model);
	e->schema = "app";
	e->relation = rel;
	e->reach = reach;
	e->via = via;
	e->object = object;
	e->events = events;
	e->function_id = function_id;
	e->function = -1;
	return e;
}

static cgm_effect *reach(const char *rel, cgm_reach kind, cgm_via via, const char *object,
			 unsigned events, const char *target, unsigned target_events)
{
	cgm_effect *e = effect(rel, kind, via, object, events, NULL);
	e->target_schema = "app";
	e->target_relation = target;
	e->target_events = target_events;
	return e;
}

static const char *amount[] = { "amount" };
static const char *created[] = { "created_at" };
static const char *ref_col[] = { "parent_id" };

static int setup(void **state)
{
	(void)state;
	model = cgm_model_new();
	fn("f_view_outer");
	fn("f_view_inner");
	fn("f_policy");
	fn("f_default");
	fn("f_audit");
	fn("f_when");
	fn("f_part");
	fn("f_parent_row");
	fn("f_parent_stmt");
	fn("f_child");
	fn("f_ddl");
	fn("f_drop");
	fn("f_log_default");
	fn("f_log_audit");
	fn("f_fallback");
	relation("v_outer", 'v');
	relation("v_inner", 'v');
	relation("orders", 'r');
	relation("events", 'p');
	relation("events_1", 'r');
	relation("a", 'r');
	relation("b", 'r');
	relation("log", 'r');
	relation("log_copy", 'r');
	relation("ship", 'r');
	effect("v_outer", CGM_REACH_FUNCTION, CGM_VIA_VIEW, "view app.v_outer", CGM_EV_SELECT,
	       "f_view_outer");
	reach("v_outer", CGM_REACH_VIEW, CGM_VIA_VIEW, "view app.v_outer", CGM_EV_SELECT, "v_inner",
	      CGM_EV_SELECT);
	effect("v_inner", CGM_REACH_FUNCTION, CGM_VIA_VIEW, "view app.v_inner", CGM_EV_SELECT,
	       "f_view_inner");
	reach("v_inner", CGM_REACH_VIEW, CGM_VIA_VIEW, "view app.v_inner", CGM_EV_SELECT, "orders",
	      CGM_EV_SELECT);
	effect("orders", CGM_REACH_FUNCTION, CGM_VIA_POLICY, "policy p on app.orders",
	       CGM_EV_SELECT | CGM_EV_UPDATE, "f_policy");
	cgm_effect *d = effect("orders", CGM_REACH_FUNCTION, CGM_VIA_DEFAULT,
			       "default app.orders.created_at", CGM_EV_INSERT, "f_default");
	d->columns = created;
	d->ncolumns = 1;
	cgm_effect *w = effect("orders", CGM_REACH_FUNCTION, CGM_VIA_TRIGGER_WHEN,
			       "trigger audit on app.orders", CGM_EV_UPDATE, "f_when");
	w->columns = amount;
	w->ncolumns = 1;
	cgm_trigger *t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "orders", "audit", CGM_EV_UPDATE, -1, "f_audit", true, 1,
			    amount, true };
	reach("events", CGM_REACH_PARTITION, CGM_VIA_TRIGGER, NULL, CGM_EV_INSERT | CGM_EV_DELETE,
	      "events_1", CGM_EV_INSERT | CGM_EV_DELETE);
	t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "events_1", "part", CGM_EV_INSERT, -1, "f_part", true, 0, NULL,
			    true };
	/* The parent's row trigger runs for a statement naming the partition
	 * (PostgreSQL clones it there); its statement trigger does not. */
	t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "events", "prow", CGM_EV_INSERT, -1, "f_parent_row", true, 0, NULL,
			    true };
	t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "events", "pstmt", CGM_EV_INSERT, -1, "f_parent_stmt", true, 0,
			    NULL, false };
	/* a and b cascade into each other: a DELETE on a deletes from b, whose
	 * DELETE sets a's key to NULL (an UPDATE of a), which fires a's child
	 * trigger and nothing more. */
	reach("a", CGM_REACH_CASCADE, CGM_VIA_CASCADE, "cascade app.b.b_a_fkey", CGM_EV_DELETE, "b",
	      CGM_EV_DELETE);
	cgm_effect *back = reach("b", CGM_REACH_CASCADE, CGM_VIA_CASCADE, "cascade app.a.a_b_fkey",
				 CGM_EV_DELETE, "a", CGM_EV_UPDATE);
	back->target_columns = ref_col;
	back->ntarget_columns = 1;
	reach("a", CGM_REACH_CASCADE, CGM_VIA_CASCADE, "cascade app.b.b_a_upd", CGM_EV_UPDATE, "b",
	      CGM_EV_DELETE);
	t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "b", "child", CGM_EV_DELETE, -1, "f_child", true, 0, NULL, true };
	/* Rules: an INSERT on log also inserts into log_copy (its default and
	 * trigger run), whose own rule inserts into log again: a cycle. */
	static const char *msg_col[] = { "msg" };
	static const char *kind_col[] = { "kind" };
	cgm_effect *r1 = reach("log", CGM_REACH_RULE, CGM_VIA_RULE, "rule copy on app.log",
			       CGM_EV_INSERT, "log_copy", CGM_EV_INSERT);
	r1->target_columns = msg_col;
	r1->ntarget_columns = 1;
	reach("log_copy", CGM_REACH_RULE, CGM_VIA_RULE, "rule back on app.log_copy", CGM_EV_INSERT,
	      "log", CGM_EV_INSERT);
	cgm_effect *ld = effect("log_copy", CGM_REACH_FUNCTION, CGM_VIA_DEFAULT,
				"default app.log_copy.kind", CGM_EV_INSERT, "f_log_default");
	ld->columns = kind_col;
	ld->ncolumns = 1;
	t = cgm_model_add_trigger(model);
	*t = (cgm_trigger){ "app", "log_copy", "copy_audit", CGM_EV_INSERT, -1, "f_log_audit", true,
			    0, NULL, true };
	/* ON DELETE SET DEFAULT from orders to ship.order_id. */
	static const char *order_col[] = { "order_id" };
	cgm_effect *sd = reach("orders", CGM_REACH_CASCADE, CGM_VIA_CASCADE,
			       "cascade app.ship.ship_fk", CGM_EV_DELETE, "ship", CGM_EV_UPDATE);
	sd->target_columns = order_col;
	sd->ntarget_columns = 1;
	sd->target_defaults = true;
	cgm_effect *sdef = effect("ship", CGM_REACH_FUNCTION, CGM_VIA_DEFAULT,
				  "default app.ship.order_id", CGM_EV_INSERT, "f_fallback");
	sdef->columns = order_col;
	sdef->ncolumns = 1;
	static const char *tags[] = { "CREATE TABLE" };
	cgm_event_trigger *et = cgm_model_add_event_trigger(model);
	*et = (cgm_event_trigger){ "log", "ddl_command_end", 1, tags, true, "f_ddl", -1 };
	et = cgm_model_add_event_trigger(model);
	*et = (cgm_event_trigger){ "drops", "sql_drop", 0, NULL, true, "f_drop", -1 };
	cgm_model_index(model);
	cgm_model_link(model);
	fx = cgm_relfx_build(model);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cgm_relfx_free(fx);
	cgm_model_free(model);
	return 0;
}

/* The site's targets as "function/via/object" words, sorted. */
static char *targets(cgm_site *s)
{
	static char buf[1024];
	const char *words[32];
	char texts[32][96];
	int n = s->ntargets < 32 ? s->ntargets : 32;
	for (int i = 0; i < n; i++) {
		const char *obj = cgm_site_target_object(s, i);
		snprintf(texts[i], sizeof texts[i], "%s/%s/%s", model->functions[s->targets[i]].id,
			 cgm_via_name(cgm_site_target_via(s, i)), obj ? obj : "-");
		words[i] = texts[i];
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(words[j], words[j - 1]) < 0; j--) {
			const char *w = words[j];
			words[j] = words[j - 1];
			words[j - 1] = w;
		}
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, words[i]);
	}
	return buf;
}

static char *run(const char *name, unsigned events, int ncols, const char **cols)
{
	cgm_site_rare x = { .events = events, .ncolumns = ncols, .columns = cols };
	cgm_site s = { .kind = CGM_SITE_RELATION, .name = name, .rare = &x };
	static const char *const path[] = { "pg_catalog", "app" };
	cgm_relfx_resolve_site(fx, model->arena, path, 2, &s, 0, 0);
	return targets(&s);
}

static void test_nested_views_without_policies(void **state)
{
	(void)state;
	/* Each function under the view that calls it; the table's policy is
	 * the view owner's business. */
	assert_string_equal(run("v_outer", CGM_EV_SELECT, 0, NULL),
			    "f_view_inner/view/view app.v_inner f_view_outer/view/view app.v_outer");
	assert_string_equal(run("orders", CGM_EV_SELECT, 0, NULL),
			    "f_policy/policy/policy p on app.orders");
}

static void test_update_of_and_defaults(void **state)
{
	(void)state;
	const char *set_amount[] = { "amount" }, *set_note[] = { "note" };
	assert_string_equal(run("orders", CGM_EV_UPDATE, 1, set_amount),
			    "f_audit/trigger/- f_policy/policy/policy p on app.orders "
			    "f_when/trigger_when/trigger audit on app.orders");
	assert_string_equal(run("orders", CGM_EV_UPDATE, 1, set_note),
			    "f_policy/policy/policy p on app.orders");
	/* Unknown columns: every UPDATE OF may fire. */
	assert_string_equal(run("orders", CGM_EV_UPDATE, 0, NULL),
			    "f_audit/trigger/- f_policy/policy/policy p on app.orders "
			    "f_when/trigger_when/trigger audit on app.orders");
	const char *listed[] = { "id", "created_at" }, *unlisted[] = { "id" };
	assert_string_equal(run("orders", CGM_EV_INSERT, 2, listed), "");
	assert_string_equal(run("orders", CGM_EV_INSERT, 1, unlisted),
			    "f_default/default/default app.orders.created_at");
}

static void test_partitions_and_cascade_cycles(void **state)
{
	(void)state;
	assert_string_equal(run("events", CGM_EV_INSERT, 0, NULL),
			    "f_parent_row/trigger/- f_parent_stmt/trigger/- f_part/trigger/-");
	assert_string_equal(run("events_1", CGM_EV_INSERT, 0, NULL),
			    "f_parent_row/trigger/- f_part/trigger/-");
	assert_string_equal(run("events", CGM_EV_DELETE, 0, NULL), "");
	/* a -> b (DELETE) -> a (UPDATE of parent_id) -> b again: b's DELETE is
	 * on the path already, the walk ends; the child trigger is reached
	 * under the first key's name. */
	assert_string_equal(run("a", CGM_EV_DELETE, 0, NULL),
			    "f_child/cascade/cascade app.b.b_a_fkey");
	/* b -> a (UPDATE) -> b (DELETE): already on the path. */
	assert_string_equal(run("b", CGM_EV_DELETE, 0, NULL), "f_child/trigger/-");
	/* The relation is found along the path; unknown ones run nothing. */
	cgm_site_rare sx = { .events = CGM_EV_SELECT };
	cgm_site s = { .kind = CGM_SITE_RELATION, .name = "nowhere", .rare = &sx };
	static const char *const path[] = { "app" };
	cgm_relfx_resolve_site(fx, model->arena, path, 1, &s, 0, 0);
	assert_int_equal(s.resolution, CGM_RES_NONE);
	assert_null(s.schema);
	cgm_site_rare qx = { .events = CGM_EV_DELETE };
	cgm_site q = { .kind = CGM_SITE_RELATION, .name = "a", .rare = &qx };
	cgm_relfx_resolve_site(fx, model->arena, path, 1, &q, 0, 0);
	assert_string_equal(q.schema, "app");
	assert_int_equal(q.resolution, CGM_RES_RESOLVED);
}

static void test_rules_and_set_default(void **state)
{
	(void)state;
	/* log -> log_copy (default, trigger) -> log again: on the path, ends. */
	assert_string_equal(run("log", CGM_EV_INSERT, 0, NULL),
			    "f_log_audit/rule/rule copy on app.log "
			    "f_log_default/rule/rule copy on app.log");
	/* From log_copy: its own effects, then log's rule back to log_copy,
	 * which is on the path with INSERT already. */
	assert_string_equal(run("log_copy", CGM_EV_INSERT, 0, NULL),
			    "f_log_audit/trigger/- f_log_default/default/default app.log_copy.kind");
	assert_string_equal(run("log", CGM_EV_DELETE, 0, NULL), "");
	/* SET DEFAULT: ship's default of the key column runs, naming both. */
	assert_string_equal(run("orders", CGM_EV_DELETE, 0, NULL),
			    "f_fallback/default/default app.ship.order_id by cascade app.ship.ship_fk");
}

static void test_event_triggers(void **state)
{
	(void)state;
	cgm_site s = { .kind = CGM_SITE_DDL, .name = "CREATE TABLE" };
	cgm_relfx_resolve_site(fx, model->arena, NULL, 0, &s, 0, 0);
	assert_string_equal(targets(&s), "f_ddl/event_trigger/event trigger log");
	s = (cgm_site){ .kind = CGM_SITE_DDL, .name = "DROP TABLE" };
	cgm_relfx_resolve_site(fx, model->arena, NULL, 0, &s, 0, 0);
	assert_string_equal(targets(&s), "f_drop/event_trigger/event trigger drops");
	s = (cgm_site){ .kind = CGM_SITE_DDL, .name = "CREATE INDEX" };
	cgm_relfx_resolve_site(fx, model->arena, NULL, 0, &s, 0, 0);
	assert_int_equal(s.resolution, CGM_RES_NONE);
}

/* What an ALTER's subcommands cannot do: PostgreSQL 15 fires sql_drop only
 * when an object goes, table_rewrite only when the table is rewritten
 * (checked against the server by tests/integration/test_ddl_events.sh). */
static void test_ddl_facts(void **state)
{
	(void)state;
	const unsigned both = CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING;
	const char *toggle[] = { "AT_DisableTrig" };
	assert_int_equal(cgm_ddl_facts("AlterTableStmt", toggle, 1), both);
	const char *drop_col[] = { "AT_EnableTrig", "AT_DropColumn" };
	assert_int_equal(cgm_ddl_facts("AlterTableStmt", drop_col, 2), CGM_DDL_REWRITES_NOTHING);
	const char *retype[] = { "AT_AlterColumnType" };
	assert_int_equal(cgm_ddl_facts("AlterTableStmt", retype, 1), CGM_DDL_DROPS_NOTHING);
	/* An added column rewrites only as its definition says, which
	 * extraction reads (added_column_rewrites), not its subtype. */
	const char *add_col[] = { "AT_AddColumn" };
	assert_int_equal(cgm_ddl_facts("AlterTableStmt", add_col, 1), both);
	/* A subcommand not listed may do anything. */
	const char *unknown[] = { "AT_SetStatistics", "AT_SomethingNew" };
	assert_int_equal(cgm_ddl_facts("AlterTableStmt", unknown, 2), 0);
	assert_int_equal(cgm_ddl_facts("RenameStmt", NULL, 0), both);
	assert_int_equal(cgm_ddl_facts("DropStmt", NULL, 0), 0);
	assert_int_equal(cgm_ddl_facts(NULL, NULL, 0), 0);

	cgm_event_trigger drop = { .name = "d", .event = "sql_drop", .enabled = true };
	cgm_event_trigger rewrite = { .name = "r", .event = "table_rewrite", .enabled = true };
	cgm_event_trigger end = { .name = "e", .event = "ddl_command_end", .enabled = true };
	assert_true(cgm_event_trigger_fires_ddl(&drop, "ALTER TABLE", CGM_DDL_REWRITES_NOTHING));
	assert_false(cgm_event_trigger_fires_ddl(&drop, "ALTER TABLE", CGM_DDL_DROPS_NOTHING));
	assert_true(cgm_event_trigger_fires_ddl(&rewrite, "ALTER TABLE", CGM_DDL_DROPS_NOTHING));
	assert_false(cgm_event_trigger_fires_ddl(&rewrite, "ALTER TABLE", both));
	assert_true(cgm_event_trigger_fires_ddl(&end, "ALTER TABLE", both));
	assert_true(cgm_event_trigger_fires(&drop, "ALTER TABLE"));
}

static void test_command_tags(void **state)
{
	(void)state;
	assert_string_equal(cgm_ddl_command_tag("CreateStmt", "", false), "CREATE TABLE");
	assert_string_equal(cgm_ddl_command_tag("DropStmt", "OBJECT_MATVIEW", false),
			    "DROP MATERIALIZED VIEW");
	assert_string_equal(cgm_ddl_command_tag("AlterTableStmt", "OBJECT_INDEX", false), "ALTER INDEX");
	assert_string_equal(cgm_ddl_command_tag("CreateFunctionStmt", "", true), "CREATE PROCEDURE");
	assert_string_equal(cgm_ddl_command_tag("GrantStmt", "OBJECT_TABLE", false), "REVOKE");
	assert_string_equal(cgm_ddl_command_tag("CreateTableAsStmt", "OBJECT_MATVIEW", false),
			    "CREATE MATERIALIZED VIEW");
	assert_null(cgm_ddl_command_tag("SelectStmt", "", false));
	assert_null(cgm_ddl_command_tag("CreateEventTrigStmt", "", false));
	assert_null(cgm_ddl_command_tag("DropStmt", "OBJECT_WHATEVER", false));
	/* No event trigger fires for a shared object or an event trigger. */
	assert_string_equal(cgm_ddl_command_tag("CommentStmt", "OBJECT_SCHEMA", false), "COMMENT");
	assert_null(cgm_ddl_command_tag("CommentStmt", "OBJECT_ROLE", false));
	assert_null(cgm_ddl_command_tag("SecLabelStmt", "OBJECT_DATABASE", false));
	assert_null(cgm_ddl_command_tag("GrantStmt", "OBJECT_TABLESPACE", true));
	assert_null(cgm_ddl_command_tag("GrantStmt", "OBJECT_PARAMETER_ACL", true));
	assert_null(cgm_ddl_command_tag("CommentStmt", "OBJECT_EVENT_TRIGGER", false));
	/* Commands of their own tag, event-triggered all the same. */
	assert_string_equal(cgm_ddl_command_tag("DropOwnedStmt", "", false), "DROP OWNED");
	assert_string_equal(cgm_ddl_command_tag("CreateAmStmt", "", false), "CREATE ACCESS METHOD");
	assert_string_equal(cgm_ddl_command_tag("AlterUserMappingStmt", "", false),
			    "ALTER USER MAPPING");
	assert_string_equal(cgm_ddl_command_tag("AlterTableMoveAllStmt", "OBJECT_INDEX", false),
			    "ALTER INDEX");
	assert_int_equal(cgm_ddl_facts("AlterTableMoveAllStmt", NULL, 0),
			 CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING);
	/* The tag a statement's first words give, whatever follows them. */
	unsigned facts;
	assert_string_equal(cgm_ddl_command_tag_of_words("  alter  table x y", &facts), "ALTER TABLE");
	assert_int_equal(facts, CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING);
	assert_string_equal(cgm_ddl_command_tag_of_words("DROP TABLE x", &facts), "DROP TABLE");
	assert_int_equal(facts, 0);
	assert_string_equal(cgm_ddl_command_tag_of_words("CREATE UNIQUE INDEX ON t", &facts),
			    "CREATE INDEX");
	assert_null(cgm_ddl_command_tag_of_words("CREATE TABLE t AS SELECT 1", &facts));
	assert_null(cgm_ddl_command_tag_of_words("CREATE x INDEX ON t", &facts));
	assert_null(cgm_ddl_command_tag_of_words("ALTER TABLEx y", &facts));
	assert_null(cgm_ddl_command_tag_of_words("ALTER TABLE", &facts));
	assert_null(cgm_ddl_command_tag_of_words("COMMENT ON ROLE r IS NULL", &facts));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_views_without_policies),
		cmocka_unit_test(test_update_of_and_defaults),
		cmocka_unit_test(test_partitions_and_cascade_cycles),
		cmocka_unit_test(test_rules_and_set_default),
		cmocka_unit_test(test_event_triggers),
		cmocka_unit_test(test_ddl_facts),
		cmocka_unit_test(test_command_tags),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
