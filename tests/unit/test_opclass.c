/*
 * test_opclass.c - operator classes (src/opclass.c): the statements each
 * support function runs for, the class an index column takes, and the
 * names PostgreSQL 15 gives the indexes it names (each expected name below
 * is what the server named, read back from pg_index).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cgmap/model.h"
#include "cgmap/opclass.h"

static void test_support_events(void **state)
{
	(void)state;
	const unsigned reads = CGM_EV_SELECT | CGM_EV_UPDATE | CGM_EV_DELETE;
	const unsigned inserts = CGM_EV_INSERT | CGM_EV_UPDATE;
	/* btree's comparison both inserts and scans. */
	assert_int_equal(cgm_opclass_support_events("btree", 1, false), reads | inserts);
	assert_int_equal(cgm_opclass_support_events("btree", 2, false), 0); /* sort support */
	assert_int_equal(cgm_opclass_support_events("hash", 2, false), reads | inserts);
	/* GiST: compress inserts; consistent scans, and on INSERT too when an
	 * exclusion constraint checks the new row; options never runs. */
	assert_int_equal(cgm_opclass_support_events("gist", 3, false), inserts);
	assert_int_equal(cgm_opclass_support_events("gist", 1, false), reads);
	assert_int_equal(cgm_opclass_support_events("gist", 1, true), reads | inserts);
	/* Distance (an ORDER BY on a distance operator) and fetch (an
	 * index-only scan) only for a read: an UPDATE's or DELETE's target
	 * and an exclusion check need the row's ctid. */
	assert_int_equal(cgm_opclass_support_events("gist", 8, false), CGM_EV_SELECT);
	assert_int_equal(cgm_opclass_support_events("gist", 9, false), CGM_EV_SELECT);
	assert_int_equal(cgm_opclass_support_events("gist", 9, true), CGM_EV_SELECT);
	assert_int_equal(cgm_opclass_support_events("gist", 4, true), reads | inserts); /* decompress */
	assert_int_equal(cgm_opclass_support_events("gist", 10, false), 0);
	assert_int_equal(cgm_opclass_support_events("gin", 2, false), inserts);
	assert_int_equal(cgm_opclass_support_events("brin", 3, false), reads);
	/* Another access method: anything but TRUNCATE may run it. */
	assert_int_equal(cgm_opclass_support_events("bloom", 1, false), reads | inserts);
	assert_int_equal(cgm_opclass_support_events("btree", 0, false), 0);
	assert_int_equal(cgm_opclass_support_events(NULL, 1, false), 0);
}

static void test_find_and_default(void **state)
{
	(void)state;
	cgm_opclass_set set = { 0 };
	cgm_opclass *a = cgm_opclass_add(&set, "app", "ver_ops", "btree", "app.ver", true);
	cgm_opclass_add_proc(a, 1, 7);
	cgm_opclass_add(&set, "app", "ver_hash_ops", "hash", "app.ver", false);
	cgm_opclass_add(&set, "lib", "ver_ops", "btree", "app.ver", false);
	const char *path[] = { "lib", "app" };
	/* Along the path: lib's class of that name comes first. */
	assert_string_equal(cgm_opclass_find(&set, NULL, "ver_ops", "btree", path, 2)->schema, "lib");
	assert_string_equal(cgm_opclass_find(&set, "app", "ver_ops", "btree", path, 2)->schema, "app");
	assert_null(cgm_opclass_find(&set, NULL, "ver_ops", "hash", path, 2));
	assert_null(cgm_opclass_find(&set, NULL, "ver_hash_ops", "hash", path, 1));
	/* The default of the method for the type; none for hash. */
	const cgm_opclass *d = cgm_opclass_default(&set, "btree", "app.ver");
	assert_non_null(d);
	assert_int_equal(d->nprocs, 1);
	assert_int_equal(d->procs[0].fn, 7);
	assert_null(cgm_opclass_default(&set, "hash", "app.ver"));
	assert_null(cgm_opclass_default(&set, "btree", "integer"));
	a->dropped = true;
	assert_null(cgm_opclass_default(&set, "btree", "app.ver"));
	cgm_opclass_set_free(&set);
}

/* pg_dump writes a family's loose members (GiST's optional support
 * functions) with ALTER OPERATOR FAMILY before CREATE OPERATOR CLASS ...
 * FAMILY: the class made after takes those of its type and method. */
static void test_family_procs_before_class(void **state)
{
	(void)state;
	cgm_opclass_set set = { 0 };
	cgm_opclass_add_family_proc(&set, "app", "i4_ops", "gist", "integer", 3, 11);
	cgm_opclass_add_family_proc(&set, "app", "i4_ops", "gist", "integer", 9, 12);
	cgm_opclass_add_family_proc(&set, "app", "i4_ops", "gist", "bigint", 9, 13);
	cgm_opclass_add_family_proc(&set, "lib", "i4_ops", "gist", "integer", 8, 14);
	cgm_opclass *oc = cgm_opclass_add(&set, "app", "i4_ops", "gist", "integer", false);
	oc->family_schema = "app";
	oc->family = "i4_ops";
	cgm_opclass_add_proc(oc, 1, 10);
	cgm_opclass_adopt_family_procs(&set, oc);
	assert_int_equal(oc->nprocs, 3);
	assert_int_equal(oc->procs[1].number, 3);
	assert_int_equal(oc->procs[1].fn, 11);
	assert_int_equal(oc->procs[2].number, 9);
	assert_int_equal(oc->procs[2].fn, 12);
	/* Another family's, or another method's class: none. */
	cgm_opclass *other = cgm_opclass_add(&set, "app", "i4_hash", "hash", "integer", false);
	other->family_schema = "app";
	other->family = "i4_ops";
	cgm_opclass_adopt_family_procs(&set, other);
	assert_int_equal(other->nprocs, 0);
	cgm_opclass_set_free(&set);
}

static void test_index_names(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	const char *xy[] = { "x", "x2y" };
	assert_string_equal(cgm_index_name(arena, "t2", xy, 2, "key"), "t2_x_x2y_key");
	assert_string_equal(cgm_index_name(arena, "booking", xy, 1, "excl"), "booking_x_excl");
	const char *table = "a_very_long_table_name_that_goes_on_and_on_for_quite_a_while_x";
	const char *long_cols[] = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "b" };
	/* The longer of table and columns loses bytes first. */
	assert_string_equal(cgm_index_name(arena, table, long_cols, 2, "key"),
			    "a_very_long_table_name_that_g_aaaaaaaaaaaaaaaaaaaaaaaaaaaaa_key");
	assert_string_equal(cgm_index_name(arena, table, NULL, 0, "pkey"),
			    "a_very_long_table_name_that_goes_on_and_on_for_quite_a_whi_pkey");
	/* Cut at a character, not inside one. */
	const char *col[] = { "çolumn_ñame_also_long_é" };
	assert_string_equal(
		cgm_index_name(arena, "tëst_ünïcode_ñame_that_is_quite_long_indeed_yes_very_long_", col,
			       1, "key"),
		"tëst_ünïcode_ñame_that_is_qu_çolumn_ñame_also_long_é_key");
	cgm_arena_free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_support_events),
		cmocka_unit_test(test_find_and_default),
		cmocka_unit_test(test_family_procs_before_class),
		cmocka_unit_test(test_index_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
