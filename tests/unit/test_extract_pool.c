/*
 * test_extract_pool.c - extraction on worker threads gives every function
 * exactly what one thread gives it (sites, errors, line count, body hash),
 * whatever the thread count; submitting while workers run, draining before
 * the functions move, helping from the caller's thread, and cancelling with
 * work still queued (run under ASan/TSan: nothing leaks, nothing races).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgmap/bodyhash.h"
#include "cgmap/extract_pool.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"

#define NFUNCTIONS 600

/* Bodies of several shapes and lengths: PL/pgSQL with calls on known lines,
 * SQL, a body that does not parse, a language that is not analysed. */
static void fill(cgm_arena *a, cgm_function *f, int i)
{
	memset(f, 0, sizeof *f);
	f->schema = "t";
	f->name = cgm_arena_printf(a, "f%d", i);
	f->id = cgm_arena_printf(a, "t.f%d(integer)", i);
	f->kind = CGM_KIND_FUNCTION;
	f->arguments = "x integer";
	f->result = "integer";
	f->npath = -1;
	switch (i % 4) {
	case 0:
		f->language = "plpgsql";
		f->source = cgm_arena_printf(a,
					     "\nDECLARE\n  v int := g%d(x);\nBEGIN\n"
					     "  -- comment %d\n  PERFORM h%d(v, 'lit');\n"
					     "  RETURN   k(%d);\nEND\n",
					     i, i, i % 7, i);
		break;
	case 1:
		f->language = "sql";
		f->source = cgm_arena_printf(a, "SELECT s%d(x) + s%d(x * 2)", i, i + 1);
		break;
	case 2:
		f->language = "plpgsql";
		f->source = cgm_arena_printf(a, "\nBEGIN\n  RETURN f(%d\nEND\n", i); /* no ')' */
		break;
	default:
		f->language = "c";
		f->source = "int_fn";
		break;
	}
}

static cgm_function *make_functions(cgm_arena *a)
{
	cgm_function *fns = cgm_arena_alloc(a, sizeof(cgm_function) * NFUNCTIONS);
	for (int i = 0; i < NFUNCTIONS; i++)
		fill(a, &fns[i], i);
	return fns;
}

/* What one thread makes of each function. */
static cgm_function *expected_functions(cgm_arena *a)
{
	cgm_function *fns = make_functions(a);
	for (int i = 0; i < NFUNCTIONS; i++) {
		fns[i].line_count = cgm_count_lines(fns[i].source);
		fns[i].body_hash = cgm_body_hash(a, fns[i].source);
		cgm_extract_function(a, &fns[i]);
	}
	return fns;
}

static void expect_same(const cgm_function *want, const cgm_function *got, bool measured)
{
	assert_string_equal(got->id, want->id);
	assert_int_equal(got->analysed, want->analysed);
	if (measured) {
		assert_int_equal(got->line_count, want->line_count);
		assert_string_equal(got->body_hash, want->body_hash);
	} else {
		assert_int_equal(got->line_count, 0);
		assert_null(got->body_hash);
	}
	assert_int_equal(got->nsites, want->nsites);
	for (int s = 0; s < want->nsites; s++) {
		assert_int_equal(got->sites[s].line, want->sites[s].line);
		assert_int_equal(got->sites[s].kind, want->sites[s].kind);
		assert_int_equal(got->sites[s].nargs, want->sites[s].nargs);
		/* A cast PostgreSQL applies by itself is named at resolution. */
		if (want->sites[s].name)
			assert_string_equal(got->sites[s].name, want->sites[s].name);
		else
			assert_null(got->sites[s].name);
	}
	assert_int_equal(got->nerrors, want->nerrors);
	for (int e = 0; e < want->nerrors; e++) {
		assert_int_equal(got->errors[e].line, want->errors[e].line);
		assert_string_equal(got->errors[e].message, want->errors[e].message);
	}
}

static void test_same_result_on_any_thread_count(void **state)
{
	cgm_arena *a = cgm_arena_new();
	const cgm_function *want = expected_functions(a);
	/* The fixture must exercise sites, parse errors and skipped languages. */
	assert_true(want[0].nsites >= 3 && want[0].analysed);
	assert_true(want[2].nerrors == 1);
	assert_false(want[3].analysed);
	const int counts[] = { 1, 2, 3, 8 };
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		cgm_arena *out = cgm_arena_new();
		cgm_function *fns = make_functions(out);
		cgm_extract_pool *pool = cgm_extract_pool_start(counts[c]);
		assert_int_equal(cgm_extract_pool_threads(pool), counts[c]);
		for (int i = 0; i < NFUNCTIONS; i++)
			cgm_extract_pool_submit(pool, &fns[i], i % 2 == 0);
		cgm_extract_pool_finish(pool, out);
		for (int i = 0; i < NFUNCTIONS; i++)
			expect_same(&want[i], &fns[i], i % 2 == 0);
		cgm_arena_free(out);
	}
	cgm_arena_free(a);
}

/* One thread: nothing happens until the caller helps, once per function. */
static void test_single_thread_extracts_only_when_helping(void **state)
{
	cgm_arena *a = cgm_arena_new();
	const cgm_function *want = expected_functions(a);
	cgm_function *fns = make_functions(a);
	cgm_extract_pool *pool = cgm_extract_pool_start(1);
	assert_int_equal(cgm_extract_pool_threads(pool), 1);
	for (int i = 0; i < 10; i++)
		cgm_extract_pool_submit(pool, &fns[i], true);
	assert_false(fns[0].analysed);
	int helped = 0;
	while (cgm_extract_pool_help(pool))
		helped++;
	assert_int_equal(helped, 10);
	cgm_extract_pool_finish(pool, a);
	for (int i = 0; i < 10; i++)
		expect_same(&want[i], &fns[i], true);
	cgm_arena_free(a);
}

/* A producer that outgrows its array drains the pool, moves the functions
 * and goes on submitting: every function ends extracted where it now is. */
static void test_drain_lets_the_array_move(void **state)
{
	cgm_arena *a = cgm_arena_new();
	const cgm_function *want = expected_functions(a);
	cgm_extract_pool *pool = cgm_extract_pool_start(3);
	int cap = 16, n = 0;
	cgm_function *fns = cgm_arena_alloc(a, sizeof(cgm_function) * (size_t)cap);
	for (int i = 0; i < NFUNCTIONS; i++) {
		if (n == cap) {
			cgm_extract_pool_drain(pool);
			for (int k = 0; k < n; k++)
				assert_true(fns[k].analysed || fns[k].nerrors || k % 4 == 3);
			cgm_function *moved = cgm_arena_grow(a, fns, (size_t)n, (size_t)cap * 2,
							      sizeof(cgm_function));
			/* Scribble over the old place: a late worker write would show. */
			memset(fns, 0xff, sizeof(cgm_function) * (size_t)n);
			fns = moved;
			cap *= 2;
		}
		fill(a, &fns[n], i);
		cgm_extract_pool_submit(pool, &fns[n], true);
		n++;
	}
	cgm_extract_pool_finish(pool, a);
	for (int i = 0; i < NFUNCTIONS; i++)
		expect_same(&want[i], &fns[i], true);
	cgm_arena_free(a);
}

/* After cancel every function is either fully extracted or untouched;
 * returns how many were extracted. */
static int check_all_or_nothing(const cgm_function *want, const cgm_function *fns)
{
	int extracted = 0;
	for (int i = 0; i < NFUNCTIONS; i++) {
		if (fns[i].body_hash) {
			expect_same(&want[i], &fns[i], true);
			extracted++;
		} else {
			assert_int_equal(fns[i].nsites, 0);
			assert_int_equal(fns[i].nerrors, 0);
			assert_false(fns[i].analysed);
		}
	}
	return extracted;
}

/* Cancel drops what is queued: with one thread, exactly what the caller
 * helped with is extracted.  With workers racing the cancel, whatever they
 * had in hand is finished whole, the rest untouched, and their arenas live
 * on in the caller's (ASan and TSan check the rest). */
static void test_cancel_with_work_queued(void **state)
{
	cgm_arena *a = cgm_arena_new();
	const cgm_function *want = expected_functions(a);
	cgm_arena *out = cgm_arena_new();
	cgm_function *fns = make_functions(out);
	cgm_extract_pool *pool = cgm_extract_pool_start(1);
	for (int i = 0; i < NFUNCTIONS; i++)
		cgm_extract_pool_submit(pool, &fns[i], true);
	for (int i = 0; i < 5; i++)
		assert_true(cgm_extract_pool_help(pool));
	cgm_extract_pool_cancel(pool, out);
	assert_int_equal(check_all_or_nothing(want, fns), 5);
	for (int i = 0; i < 5; i++)
		assert_non_null(fns[i].body_hash); /* in submission order */
	cgm_arena_free(out);

	for (int round = 0; round < 20; round++) {
		out = cgm_arena_new();
		fns = make_functions(out);
		pool = cgm_extract_pool_start(4);
		for (int i = 0; i < NFUNCTIONS; i++)
			cgm_extract_pool_submit(pool, &fns[i], true);
		cgm_extract_pool_cancel(pool, out);
		assert_true(check_all_or_nothing(want, fns) <= NFUNCTIONS);
		cgm_arena_free(out);
	}
	cgm_extract_pool_cancel(NULL, a); /* no pool: nothing to do */
	cgm_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_result_on_any_thread_count),
		cmocka_unit_test(test_single_thread_extracts_only_when_helping),
		cmocka_unit_test(test_drain_lets_the_array_move),
		cmocka_unit_test(test_cancel_with_work_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
