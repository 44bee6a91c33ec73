/*
 * test_arena.c - the bump allocator: zeroed allocations, arrays resized in
 * place (cgm_arena_resize) keeping their contents and zeroing what they
 * gain, small arrays copied, and resized blocks freed with the arena, reset
 * and adopted like any other; large arrays trimmed to their count
 * (cgm_arena_trim, cgm_model_trim_functions); interned strings and string lists
 * (cgmap/intern.h), one copy each in the arena.  Run under ASan, a block resized and then
 * freed twice or leaked would fail it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/intern.h"
#include "cgmap/model.h"

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* A large array grows by doubling: its contents stay, the rest is zero,
 * and the arena counts its final size, not the sum of its copies. */
static void test_resize_large(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	int *small = cgm_arena_alloc(a, 16);
	small[0] = 7;
	size_t n = 1024, cap = 1024;
	int *v = cgm_arena_resize(a, NULL, 0, cap, sizeof(int));
	for (size_t i = 0; i < n; i++)
		v[i] = (int)i + 1;
	while (cap < (1u << 22)) {
		size_t newcap = cap * 2;
		v = cgm_arena_resize(a, v, cap, newcap, sizeof(int));
		for (size_t i = 0; i < n; i++)
			assert_int_equal(v[i], (int)i + 1);
		assert_true(all_zero((const unsigned char *)(v + n), (newcap - n) * sizeof(int)));
		for (size_t i = n; i < newcap; i++)
			v[i] = (int)i + 1;
		n = cap = newcap;
	}
	/* Copies abandoned on the way would count about twice the final size. */
	assert_true(cgm_arena_used(a) < cap * sizeof(int) + (cap * sizeof(int)) / 4);
	assert_int_equal(small[0], 7);
	/* The arena keeps serving small requests after it. */
	char *s = cgm_arena_strdup(a, "kept");
	assert_string_equal(s, "kept");
	cgm_arena_free(a);
}

/* A small array is copied: the old copy stays readable, the new one holds
 * the same and zeroes the rest. */
static void test_resize_small(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	int *v = cgm_arena_alloc(a, 4 * sizeof(int));
	for (int i = 0; i < 4; i++)
		v[i] = i + 10;
	int *w = cgm_arena_resize(a, v, 4, 8, sizeof(int));
	for (int i = 0; i < 4; i++) {
		assert_int_equal(v[i], i + 10);
		assert_int_equal(w[i], i + 10);
	}
	assert_true(all_zero((const unsigned char *)(w + 4), 4 * sizeof(int)));
	/* An array the arena does not hold is copied, never reallocated. */
	int outside[4] = { 1, 2, 3, 4 };
	int *copy = cgm_arena_resize(a, outside, 4, 100000, sizeof(int));
	assert_int_equal(copy[3], 4);
	assert_int_equal(copy[99999], 0);
	cgm_arena_free(a);
}

/* A large array gives back what it holds beyond its count: contents kept,
 * the arena counts the smaller size, and it grows again from there; any
 * other pointer comes back as it was. */
static void test_trim(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	size_t cap = 1u << 20;
	int *v = cgm_arena_resize(a, NULL, 0, cap, sizeof(int));
	for (int i = 0; i < 1000; i++)
		v[i] = i * 3;
	size_t before = cgm_arena_used(a);
	v = cgm_arena_trim(a, v, 1000, sizeof(int));
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 3);
	assert_true(cgm_arena_used(a) <= before - (cap - 1000) * sizeof(int) + 16);
	v = cgm_arena_resize(a, v, 1000, 200000, sizeof(int));
	assert_int_equal(v[999], 2997);
	assert_true(all_zero((const unsigned char *)(v + 1000), (200000 - 1000) * sizeof(int)));
	int *small = cgm_arena_alloc(a, 64 * sizeof(int));
	assert_ptr_equal(cgm_arena_trim(a, small, 2, sizeof(int)), small);
	assert_null(cgm_arena_trim(a, NULL, 0, sizeof(int)));
	cgm_arena_free(a);

	/* The model's functions, grown by doubling, keep no room beyond them. */
	cgm_model *m = cgm_model_new();
	for (int i = 0; i < 1000; i++)
		cgm_model_add_function(m)->line_count = i;
	assert_int_equal(m->cap_functions, 1024);
	cgm_model_trim_functions(m);
	assert_int_equal(m->cap_functions, 1000);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(m->functions[i].line_count, i);
	cgm_model_add_function(m)->line_count = 1000;
	assert_int_equal(m->nfunctions, 1001);
	assert_int_equal(m->functions[999].line_count, 999);
	assert_int_equal(m->functions[1000].line_count, 1000);
	cgm_model_free(m);
}

/* Resized blocks move with adoption and go with a reset or a free. */
static void test_resize_adopt_reset(void **state)
{
	(void)state;
	cgm_arena *parent = cgm_arena_new();
	cgm_arena *child = cgm_arena_new();
	long *v = cgm_arena_resize(child, NULL, 0, 100000, sizeof(long));
	v[99999] = 5;
	v = cgm_arena_resize(child, v, 100000, 300000, sizeof(long));
	assert_int_equal(v[99999], 5);
	cgm_arena_adopt(parent, child);
	v = cgm_arena_resize(parent, v, 300000, 600000, sizeof(long));
	assert_int_equal(v[99999], 5);
	assert_int_equal(v[599999], 0);
	cgm_arena_reset(parent);
	char *p = cgm_arena_alloc(parent, 100);
	assert_true(all_zero((const unsigned char *)p, 100));
	long *big = cgm_arena_resize(parent, NULL, 0, 50000, sizeof(long));
	assert_true(all_zero((const unsigned char *)big, 50000 * sizeof(long)));
	cgm_arena_free(parent);
}

/* Strings are packed unaligned; every other allocation stays aligned to 16
 * bytes and zeroed between them. */
static void test_strings_packed(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	for (int round = 0; round < 20000; round++) {
		char *s = cgm_arena_strdup(a, round % 3 ? "ab" : "a longer string");
		assert_true(s[0] == 'a');
		char *f = cgm_arena_printf(a, "%d", round);
		assert_int_equal(atoi(f), round);
		long *p = cgm_arena_alloc(a, 24);
		assert_int_equal((uintptr_t)p % 16, 0);
		assert_true(all_zero((const unsigned char *)p, 24));
		p[0] = p[1] = p[2] = -1;
	}
	/* Two short strings share what one aligned slot took. */
	cgm_arena *b = cgm_arena_new();
	char *x = cgm_arena_strdup(b, "ab"), *y = cgm_arena_strdup(b, "cd");
	assert_ptr_equal(y, x + 3);
	assert_string_equal(x, "ab");
	cgm_arena_free(b);
	cgm_arena_free(a);
}

/* Equal strings and equal lists share one copy; lists differing in one
 * element, in length or in a NULL entry do not; NULL stays NULL and an
 * empty list is a list. */
static void test_intern_lists(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	cgm_intern *t = cgm_intern_new(a);
	char buf1[] = "integer", buf2[] = "integer";
	assert_ptr_equal(cgm_intern_str(t, buf1), cgm_intern_str(t, buf2));
	assert_null(cgm_intern_str(t, NULL));

	const char *x[] = { "integer", NULL, "text" };
	const char *y[] = { buf2, NULL, "text" };
	const char *z[] = { "integer", "x", "text" };
	const char **kx = cgm_intern_strs(t, x, 3);
	assert_ptr_equal(kx, cgm_intern_strs(t, y, 3));
	assert_ptr_not_equal(kx, cgm_intern_strs(t, z, 3));
	assert_ptr_not_equal(kx, cgm_intern_strs(t, x, 2));
	assert_string_equal(kx[0], "integer");
	assert_null(kx[1]);
	assert_ptr_equal(kx[2], cgm_intern_str(t, "text"));
	assert_null(cgm_intern_strs(t, NULL, 3));
	const char **empty = cgm_intern_strs(t, x, 0);
	assert_non_null(empty);
	assert_ptr_equal(empty, cgm_intern_strs(t, y, 0));

	/* Many distinct lists (the table grows), each found again; a list
	 * longer than the stack buffer too. */
	char names[3000][8];
	const char **kept[3000];
	for (int i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof names[i], "t%d", i);
		const char *v[2] = { names[i], "integer" };
		kept[i] = cgm_intern_strs(t, v, 2);
	}
	for (int i = 0; i < 3000; i++) {
		const char *v[2] = { names[i], "integer" };
		assert_ptr_equal(kept[i], cgm_intern_strs(t, v, 2));
		assert_string_equal(kept[i][0], names[i]);
	}
	const char *longer[40];
	for (int i = 0; i < 40; i++)
		longer[i] = names[i];
	const char **kl = cgm_intern_strs(t, longer, 40);
	assert_ptr_equal(kl, cgm_intern_strs(t, longer, 40));
	assert_string_equal(kl[39], "t39");
	cgm_intern_free(t);
	cgm_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resize_large),
		cmocka_unit_test(test_resize_small),
		cmocka_unit_test(test_resize_adopt_reset),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_strings_packed),
		cmocka_unit_test(test_intern_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
