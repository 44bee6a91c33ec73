/*
 * test_extract_cache.c - the parse cache: a body fetched is the body
 * extracted (its sites, errors and the expressions its sites carry, with
 * the same sharing between nodes), keys follow every input extraction
 * reads, and a damaged, truncated or foreign file gives misses, never a
 * crash or a wrong function.
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
#include "cgmap/extract_cache.h"
#include "cgmap/hash.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"

/* The file's layout as extract_cache.c writes it: a 40-byte header whose
 * identity is at byte 24 and count at 32, then 40-byte entries (key,
 * offset, length, hash), then the records. */
#define HEADER_SIZE 40
#define ENTRY_SIZE 40

static const char *const bodies[] = {
	/* variables, a record filled by a query, a loop over a CTE, named
	 * and VARIADIC arguments, operators, casts, DML with columns, DDL,
	 * constant and dynamic EXECUTE */
	"\nDECLARE\n  v int := g(a);\n  r record;\n  t text;\nBEGIN\n"
	"  SELECT x, y INTO r FROM app.t WHERE id = a;\n"
	"  PERFORM h(r.x, name => t, VARIADIC ARRAY[1, 2]);\n"
	"  FOR r IN WITH c(p, q) AS (SELECT 1, 'a'::text) SELECT p, q FROM c LOOP\n"
	"    v := k(r.p + 1, r.q || 'x', (SELECT max(z) FROM app.u WHERE u.w = r.p));\n"
	"  END LOOP;\n"
	"  INSERT INTO app.t (x, y) VALUES (v, t::int);\n"
	"  UPDATE app.t SET y = m($1) WHERE x = v;\n"
	"  CREATE TABLE app.tmp (i int);\n"
	"  EXECUTE 'SELECT n(1)';\n"
	"  EXECUTE format('SELECT %I(1)', t);\n"
	"  EXECUTE format('SELECT app.o(%I), app.p(1)', t);\n"
	"  RETURN v::text::int;\nEND\n",
	/* a body that does not parse */
	"\nBEGIN\n  x := ;\nEND\n",
	/* CASE, COALESCE, arrays, rows, subscripts, fields */
	"\nDECLARE\n  arr int[];\n  rw app.t;\nBEGIN\n"
	"  arr := ARRAY[f1(1), f2(2)];\n"
	"  rw := ROW(1, 2);\n"
	"  RETURN CASE WHEN arr[1] > 0 THEN coalesce(f3(arr[1:2]), (rw).x) ELSE greatest(1, f4()) END;\n"
	"END\n",
};

static cgm_function make(const char *language, const char *body)
{
	static const char *argtypes[] = { "integer" };
	static const char *argnames[] = { "a" };
	cgm_function fn;
	memset(&fn, 0, sizeof fn);
	fn.id = "app.f(integer)";
	fn.schema = "app";
	fn.name = "f";
	fn.kind = CGM_KIND_FUNCTION;
	fn.language = language;
	fn.arguments = "a integer";
	fn.result = "integer";
	fn.nargs = 1;
	fn.argtypes = argtypes;
	fn.argnames = argnames;
	fn.source = body;
	fn.npath = -1;
	return fn;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_strs(const char *const *a, const char *const *b, int n)
{
	assert_int_equal(a == NULL, b == NULL);
	for (int i = 0; a && i < n; i++)
		assert_true(same_str(a[i], b[i]));
}

/* Original node -> decoded node, so shared nodes must stay shared. */
typedef struct pairs {
	const void *from[4096], *to[4096];
	int n;
} pairs;

/* true when the pair is new (compare it), false when seen (checked equal). */
static bool pair(pairs *p, const void *a, const void *b)
{
	for (int i = 0; i < p->n; i++)
		if (p->from[i] == a) {
			assert_ptr_equal(p->to[i], b);
			return false;
		}
	assert_true(p->n < 4096);
	p->from[p->n] = a;
	p->to[p->n++] = b;
	return true;
}

static void check_expr(pairs *p, const cgm_expr *a, const cgm_expr *b);

static void check_scope(pairs *p, const cgm_scope *a, const cgm_scope *b)
{
	assert_int_equal(a == NULL, b == NULL);
	if (!a || !pair(p, a, b))
		return;
	check_scope(p, a->parent, b->parent);
	assert_int_equal(a->nitems, b->nitems);
	for (int i = 0; i < a->nitems; i++) {
		const cgm_scope_item *x = &a->items[i], *y = &b->items[i];
		assert_true(same_str(x->alias, y->alias));
		assert_true(same_str(x->schema, y->schema));
		assert_true(same_str(x->name, y->name));
		assert_int_equal(x->ncolumns, y->ncolumns);
		int n = x->ncolumns > 0 ? x->ncolumns : 0;
		check_strs(x->colnames, y->colnames, n);
		assert_int_equal(x->colexprs == NULL, y->colexprs == NULL);
		for (int k = 0; x->colexprs && k < n; k++)
			check_expr(p, x->colexprs[k], y->colexprs[k]);
		check_expr(p, x->func, y->func);
	}
}

static void check_expr(pairs *p, const cgm_expr *a, const cgm_expr *b)
{
	assert_int_equal(a == NULL, b == NULL);
	if (!a || !pair(p, a, b))
		return;
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->flag, b->flag);
	assert_int_equal(a->nargs, b->nargs);
	assert_int_equal(a->nnames, b->nnames);
	assert_int_equal(a->param, b->param);
	assert_true(same_str(a->schema, b->schema));
	assert_true(same_str(a->name, b->name));
	assert_true(same_str(a->type, b->type));
	assert_int_equal(a->args == NULL, b->args == NULL);
	for (int i = 0; a->args && i < a->nargs; i++)
		check_expr(p, a->args[i], b->args[i]);
	int names = a->kind == CGM_EXPR_CALL || a->kind == CGM_EXPR_ROW ? a->nargs : a->nnames;
	check_strs(a->names, b->names, names);
	check_scope(p, a->scope, b->scope);
	check_expr(p, a->var, b->var);
}

static void check_same_extraction(const cgm_function *a, const cgm_function *b)
{
	assert_int_equal(a->analysed, b->analysed);
	assert_int_equal(a->nerrors, b->nerrors);
	for (int i = 0; i < a->nerrors; i++) {
		assert_int_equal(a->errors[i].line, b->errors[i].line);
		assert_string_equal(a->errors[i].message, b->errors[i].message);
	}
	assert_int_equal(a->nsites, b->nsites);
	assert_int_equal(a->site_exprs == NULL, b->site_exprs == NULL);
	pairs *p = calloc(1, sizeof *p);
	for (int i = 0; i < a->nsites; i++) {
		const cgm_site *x = &a->sites[i], *y = &b->sites[i];
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->nargs, y->nargs);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->resolution, y->resolution);
		assert_int_equal(x->via_literal, y->via_literal);
		assert_int_equal(x->variadic_call, y->variadic_call);
		assert_true(same_str(x->stmt, y->stmt));
		assert_true(same_str(x->schema, y->schema));
		assert_true(same_str(x->name, y->name));
		check_strs(x->argtypes, y->argtypes, x->nargs);
		const cgm_site_rare *rx = cgm_site_get_rare(x), *ry = cgm_site_get_rare(y);
		assert_int_equal(rx->events, ry->events);
		assert_int_equal(rx->ncolumns, ry->ncolumns);
		check_strs(rx->columns, ry->columns, rx->ncolumns > 0 ? rx->ncolumns : 0);
		assert_true(same_str(rx->text, ry->text));
		check_strs(rx->argnames, ry->argnames, x->nargs);
		if (!a->site_exprs)
			continue;
		const cgm_site_exprs *ex = &a->site_exprs[i], *ey = &b->site_exprs[i];
		assert_int_equal(ex->argexprs == NULL, ey->argexprs == NULL);
		for (int k = 0; ex->argexprs && k < x->nargs; k++)
			check_expr(p, ex->argexprs[k], ey->argexprs[k]);
		check_expr(p, ex->coerce_to, ey->coerce_to);
		assert_int_equal(ex->ddl_facts, ey->ddl_facts);
		assert_int_equal(ex->attribute, ey->attribute);
		assert_int_equal(ex->rewrite_group, ey->rewrite_group);
		assert_int_equal(ex->default_of, ey->default_of);
		assert_int_equal(ex->column_type, ey->column_type);
		assert_int_equal(ex->type_default, ey->type_default);
		assert_int_equal(ex->runtime_typed, ey->runtime_typed);
	}
	free(p);
}

static char *temp_path(void)
{
	char *path = strdup("/tmp/cgmap-parse-cache-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* Every body extracted and kept, the file saved: its path. */
static char *save_all(cgm_function *fns, int n, cgm_arena *arena)
{
	char *path = temp_path();
	cgm_extract_cache *c = cgm_extract_cache_open(NULL);
	cgm_extract_cache_slot *slot = cgm_extract_cache_slot_new(c);
	for (int i = 0; i < n; i++) {
		cgm_extract_key key;
		cgm_extract_cache_key(&key, &fns[i], CGM_COERCE_ALL);
		cgm_extract_function_with(arena, &fns[i], CGM_COERCE_ALL);
		cgm_extract_cache_keep(slot, &key, &fns[i]);
	}
	assert_int_equal(cgm_extract_cache_save(c, path), 0);
	cgm_extract_cache_free(c);
	return path;
}

static int fetch_count(const char *path, cgm_function *fns, int n, bool compare)
{
	cgm_arena *arena = cgm_arena_new();
	cgm_extract_cache *c = cgm_extract_cache_open(path);
	cgm_extract_cache_slot *slot = cgm_extract_cache_slot_new(c);
	int hits = 0;
	for (int i = 0; i < n; i++) {
		cgm_function copy = make(fns[i].language, fns[i].source);
		cgm_extract_key key;
		cgm_extract_cache_key(&key, &copy, CGM_COERCE_ALL);
		if (!cgm_extract_cache_fetch(slot, &key, arena, &copy))
			continue;
		hits++;
		if (compare)
			check_same_extraction(&fns[i], &copy);
	}
	long fetched, parsed;
	cgm_extract_cache_counts(c, &fetched, &parsed);
	assert_int_equal(fetched, hits);
	cgm_extract_cache_free(c);
	cgm_arena_free(arena);
	return hits;
}

#define NBODIES ((int)(sizeof bodies / sizeof bodies[0]))

static void make_all(cgm_function *fns)
{
	for (int i = 0; i < NBODIES; i++)
		fns[i] = make("plpgsql", bodies[i]);
	fns[NBODIES] = make("sql", "SELECT g(a), (SELECT count(*) FROM app.t) + $1");
}

static void test_fetched_is_extracted(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_function fns[NBODIES + 1];
	make_all(fns);
	char *path = save_all(fns, NBODIES + 1, arena);
	assert_true(fns[0].site_exprs != NULL);
	assert_true(fns[1].nerrors > 0);
	/* app.o's argument is a run-time part, app.p's a constant. */
	int runtime_typed = 0;
	for (int i = 0; i < fns[0].nsites; i++)
		runtime_typed += fns[0].site_exprs[i].runtime_typed;
	assert_int_equal(runtime_typed, 1);
	assert_int_equal(fetch_count(path, fns, NBODIES + 1, true), NBODIES + 1);
	unlink(path);
	free(path);
	cgm_arena_free(arena);
}

static void test_keys_follow_inputs(void **state)
{
	(void)state;
	cgm_function a = make("plpgsql", bodies[0]), b = a;
	cgm_extract_key ka, kb;
	cgm_extract_cache_key(&ka, &a, CGM_COERCE_ALL);
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_equal(&ka, &kb, sizeof ka);
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_NONE);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
	b.source = bodies[2];
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
	b = a;
	b.result = "text";
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
	b = a;
	static const char *other_names[] = { "b" };
	b.argnames = other_names;
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
	b = a;
	b.language = "sql";
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
	b = a;
	b.is_trigger = true;
	cgm_extract_cache_key(&kb, &b, CGM_COERCE_ALL);
	assert_memory_not_equal(&ka, &kb, sizeof ka);
}

static unsigned char *read_all(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *data = malloc((size_t)*size);
	assert_int_equal(fread(data, 1, (size_t)*size, f), (size_t)*size);
	fclose(f);
	return data;
}

static void write_all(const char *path, const unsigned char *data, long size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, (size_t)size, f), (size_t)size);
	fclose(f);
}

/* Each record's hash made right again after its bytes were changed, so
 * the decoder itself meets the damage. */
static void rehash(unsigned char *data, long size)
{
	uint64_t n;
	memcpy(&n, data + 32, sizeof n);
	const unsigned char *records = data + HEADER_SIZE + n * ENTRY_SIZE;
	for (uint64_t i = 0; i < n; i++) {
		unsigned char *e = data + HEADER_SIZE + i * ENTRY_SIZE;
		uint64_t off, len;
		memcpy(&off, e + 16, 8);
		memcpy(&len, e + 24, 8);
		if ((long)(HEADER_SIZE + n * ENTRY_SIZE + off + len) > size)
			continue;
		uint64_t h = cgm_hash_words(CGM_FNV1A_OFFSET, records + off, (size_t)len);
		memcpy(e + 32, &h, 8);
	}
}

static void test_damage_is_a_miss(void **state)
{
	(void)state;
	cgm_arena *arena = cgm_arena_new();
	cgm_function fns[NBODIES + 1];
	make_all(fns);
	char *path = save_all(fns, NBODIES + 1, arena);
	long size;
	unsigned char *good = read_all(path, &size);
	unsigned char *bad = malloc((size_t)size);

	/* Another build's file: nothing. */
	memcpy(bad, good, (size_t)size);
	bad[24] ^= 1;
	write_all(path, bad, size);
	assert_int_equal(fetch_count(path, fns, NBODIES + 1, false), 0);

	/* A changed byte anywhere in the records: that record misses. */
	uint64_t n;
	memcpy(&n, good + 32, sizeof n);
	long records = HEADER_SIZE + (long)n * ENTRY_SIZE;
	for (long at = records; at < size; at += 7) {
		memcpy(bad, good, (size_t)size);
		bad[at] ^= 0x5a;
		write_all(path, bad, size);
		assert_int_equal(fetch_count(path, fns, NBODIES + 1, false), NBODIES);
		/* ... and with its hash made right, the decoder refuses it or
		 * decodes something, but never reads out of bounds (ASan). */
		rehash(bad, size);
		write_all(path, bad, size);
		fetch_count(path, fns, NBODIES + 1, false);
	}
	/* Cut short anywhere: no crash; whole records before the cut may hit. */
	for (long cut = 0; cut < size; cut += 13) {
		write_all(path, good, cut);
		assert_true(fetch_count(path, fns, NBODIES + 1, false) <= NBODIES + 1);
	}
	write_all(path, good, size);
	assert_int_equal(fetch_count(path, fns, NBODIES + 1, true), NBODIES + 1);
	unlink(path);
	free(path);
	free(good);
	free(bad);
	cgm_arena_free(arena);
}

/* Bodies of `calls` calls each to functions named after `i`, all distinct. */
static char *many_calls_body(int i, int calls)
{
	size_t cap = (size_t)calls * 48 + 64;
	char *body = malloc(cap);
	size_t len = (size_t)snprintf(body, cap, "\nBEGIN\n");
	for (int c = 0; c < calls; c++)
		len += (size_t)snprintf(body + len, cap - len, "  PERFORM app.g%d_%d(a, 'x');\n", i, c);
	snprintf(body + len, cap - len, "END\n");
	return body;
}

/* A run's records go to a spill file past 1 MB per thread; the next file
 * holds them after the records fetched from the old one, each slot's
 * stream whole.  Fetching everything back, from two slots' spilled
 * streams and then from a file mixing old and new records, gives every
 * body as extracted. */
static void test_spilled_records_come_back(void **state)
{
	(void)state;
	enum { N = 1200, CALLS = 30 };
	cgm_arena *arena = cgm_arena_new();
	cgm_function *fns = calloc(N, sizeof *fns);
	char **texts = calloc(N, sizeof *texts);
	for (int i = 0; i < N; i++) {
		texts[i] = many_calls_body(i, CALLS);
		fns[i] = make("plpgsql", texts[i]);
	}
	char *path = temp_path();
	cgm_extract_cache *c = cgm_extract_cache_open(NULL);
	cgm_extract_cache_slot *slots[2] = { cgm_extract_cache_slot_new(c), cgm_extract_cache_slot_new(c) };
	for (int i = 0; i < N; i++) {
		cgm_extract_key key;
		cgm_extract_cache_key(&key, &fns[i], CGM_COERCE_ALL);
		cgm_extract_function_with(arena, &fns[i], CGM_COERCE_ALL);
		assert_int_equal(fns[i].nsites, CALLS);
		cgm_extract_cache_keep(slots[i % 2], &key, &fns[i]);
	}
	assert_int_equal(cgm_extract_cache_save(c, path), 0);
	cgm_extract_cache_free(c);
	long size;
	unsigned char *data = read_all(path, &size);
	free(data);
	assert_true(size > 2 * 1024 * 1024); /* both slots spilled */
	assert_int_equal(fetch_count(path, fns, N, true), N);

	/* The next run fetches the first half and parses the second half's
	 * bodies again: the file it saves holds both. */
	char *next = temp_path();
	c = cgm_extract_cache_open(path);
	cgm_extract_cache_slot *slot = cgm_extract_cache_slot_new(c);
	cgm_arena *scratch = cgm_arena_new();
	for (int i = 0; i < N; i++) {
		cgm_function copy = make("plpgsql", texts[i]);
		cgm_extract_key key;
		cgm_extract_cache_key(&key, &copy, CGM_COERCE_ALL);
		if (i < N / 2) {
			assert_true(cgm_extract_cache_fetch(slot, &key, scratch, &copy));
		} else {
			cgm_extract_function_with(scratch, &copy, CGM_COERCE_ALL);
			cgm_extract_cache_keep(slot, &key, &copy);
		}
	}
	assert_int_equal(cgm_extract_cache_save(c, next), 0);
	cgm_extract_cache_free(c);
	cgm_arena_free(scratch);
	assert_int_equal(fetch_count(next, fns, N, true), N);

	/* No spill file can be made: that slot keeps nothing, the save works
	 * and what another slot kept in memory comes back. */
	const char *tmpdir = getenv("TMPDIR");
	char *saved_tmpdir = tmpdir ? strdup(tmpdir) : NULL;
	setenv("TMPDIR", "/nonexistent-cgmap-test-dir", 1);
	c = cgm_extract_cache_open(NULL);
	cgm_extract_cache_slot *failing = cgm_extract_cache_slot_new(c);
	cgm_extract_cache_slot *small = cgm_extract_cache_slot_new(c);
	for (int i = 0; i < N; i++) {
		cgm_extract_key key;
		cgm_extract_cache_key(&key, &fns[i], CGM_COERCE_ALL);
		cgm_extract_cache_keep(i == 0 ? small : failing, &key, &fns[i]);
	}
	assert_int_equal(cgm_extract_cache_save(c, next), 0);
	cgm_extract_cache_free(c);
	if (saved_tmpdir)
		setenv("TMPDIR", saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	free(saved_tmpdir);
	assert_int_equal(fetch_count(next, fns, 1, true), 1);
	assert_int_equal(fetch_count(next, fns, N, false), 1);

	unlink(path);
	unlink(next);
	free(path);
	free(next);
	for (int i = 0; i < N; i++)
		free(texts[i]);
	free(texts);
	free(fns);
	cgm_arena_free(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fetched_is_extracted),
		cmocka_unit_test(test_keys_follow_inputs),
		cmocka_unit_test(test_damage_is_a_miss),
		cmocka_unit_test(test_spilled_records_come_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
