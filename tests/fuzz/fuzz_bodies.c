/*
 * fuzz_bodies.c - the parse cache (DIR/.cgmap-cache/bodies, which a run
 * reads from a folder it is pointed at) under fuzzing: the input is a
 * function body, extracted as PL/pgSQL and as SQL; each extraction is kept
 * in a cache file, fetched back and kept again, and both files must hold
 * the same bytes (what the decoder gives back encodes as what went in).
 * Then the record is damaged at places the input chooses, its hash made
 * right again so the decoder itself meets the damage: a fetch may fail or
 * succeed, never crash, leak or read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/extract_cache.h"
#include "cgmap/hash.h"
#include "cgmap/pipeline.h"
#include "fuzz_target.h"
#include "verbranch.h"

/* extract_cache.c's layout: a 40-byte header (entry count at byte 32),
 * 40-byte entries (key, offset, length, hash), the records. */
#define HEADER_SIZE 40
#define ENTRY_SIZE 40

static cgm_function body_function(const char *language, const char *body)
{
	static const char *argtypes[] = { "integer", "text" };
	static const char *argnames[] = { "a", "b" };
	cgm_function fn;
	memset(&fn, 0, sizeof fn);
	fn.id = "app.f(integer,text)";
	fn.schema = "app";
	fn.name = "f";
	fn.kind = CGM_KIND_FUNCTION;
	fn.language = language;
	fn.arguments = "a integer, b text";
	fn.result = "integer";
	fn.nargs = 2;
	fn.argtypes = argtypes;
	fn.argnames = argnames;
	fn.source = body;
	fn.npath = -1;
	return fn;
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
	*size = fread(data, 1, n > 0 ? (size_t)n : 0, f);
	fclose(f);
	return data;
}

static void spill(const char *path, const unsigned char *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size) {
		fprintf(stderr, "fuzz: cannot write \"%s\"\n", path);
		abort();
	}
	fclose(f);
}

static void keep_and_save(const cgm_function *fn, const cgm_extract_key *key, const char *path)
{
	cgm_extract_cache *c = cgm_extract_cache_open(NULL);
	cgm_extract_cache_keep(cgm_extract_cache_slot_new(c), key, fn);
	if (cgm_extract_cache_save(c, path) != 0) {
		fprintf(stderr, "fuzz: cannot save the parse cache: %s\n", cgm_error_message());
		abort();
	}
	cgm_extract_cache_free(c);
}

static bool fetch(const char *path, const cgm_extract_key *key, cgm_arena *arena,
		  cgm_function *fn)
{
	cgm_extract_cache *c = cgm_extract_cache_open(path);
	bool hit = cgm_extract_cache_fetch(cgm_extract_cache_slot_new(c), key, arena, fn);
	cgm_extract_cache_free(c);
	return hit;
}

static void one_language(const char *language, const char *body, const uint8_t *data,
			 size_t size)
{
	char *first = strdup(cgm_fuzz_file("bodies-1", (const uint8_t *)"", 0));
	char *second = strdup(cgm_fuzz_file("bodies-2", (const uint8_t *)"", 0));
	cgm_arena *arena = cgm_arena_new();
	cgm_function fn = body_function(language, body);
	cgm_extract_key key;
	cgm_extract_cache_key(&key, &fn, CGM_COERCE_ALL);
	cgm_extract_function_with(arena, &fn, CGM_COERCE_ALL);
	keep_and_save(&fn, &key, first);

	cgm_function back = body_function(language, body);
	if (!fetch(first, &key, arena, &back)) {
		fprintf(stderr, "fuzz: a body kept is not fetched back\n");
		abort();
	}
	keep_and_save(&back, &key, second);
	size_t n1 = 0, n2 = 0;
	unsigned char *a = slurp(first, &n1), *b = slurp(second, &n2);
	if (!a || !b || n1 != n2 || memcmp(a, b, n1) != 0) {
		fprintf(stderr, "fuzz: a fetched body encodes otherwise than the body kept\n");
		abort();
	}

	/* Damage the record where the input says, the hash made right. */
	uint64_t entries = 0;
	if (n1 >= HEADER_SIZE)
		memcpy(&entries, a + 32, sizeof entries);
	size_t records = HEADER_SIZE + (size_t)entries * ENTRY_SIZE;
	for (size_t k = 0; entries == 1 && records < n1 && k < 8 && k < size; k++) {
		memcpy(b, a, n1);
		size_t at = records + (size_t)data[k] * 131 % (n1 - records);
		b[at] ^= (unsigned char)(data[size - 1 - k] | 1);
		uint64_t h = cgm_hash_words(CGM_FNV1A_OFFSET, b + records, n1 - records);
		memcpy(b + HEADER_SIZE + 32, &h, sizeof h);
		spill(second, b, n1);
		cgm_function damaged = body_function(language, body);
		fetch(second, &key, arena, &damaged);
	}
	free(a);
	free(b);
	/* The branches for another server version, in the extraction kept
	 * (after the caches, which hold what came before): the sites left
	 * are those on no dead line. */
	static const char *schemas[] = { "app" }, *names[] = { "pg_version_num" },
			  *exprs[] = { " current_setting('server_version_num')::integer" };
	static bool bare[] = { true };
	const cgm_server_versions files = { 150000, 159999, 1, schemas, names, exprs, bare };
	const cgm_server_versions old = { 90600, 90600, 1, schemas, names, exprs, bare };
	cgm_verbranch_prune(arena, &fn, &files);
	int lines[2 * CGM_VERBRANCH_MAX];
	int n = cgm_verbranch_dead_lines(&fn, &old, lines, lines + CGM_VERBRANCH_MAX, CGM_VERBRANCH_MAX);
	for (int k = 0; k < n; k++)
		if (lines[k] < 1 || lines[CGM_VERBRANCH_MAX + k] < lines[k]) {
			fprintf(stderr, "fuzz: a dead branch of lines %d-%d\n", lines[k],
				lines[CGM_VERBRANCH_MAX + k]);
			abort();
		}
	cgm_arena_free(arena);
	free(first);
	free(second);
}

int cgm_fuzz_bodies(const uint8_t *data, size_t size)
{
	char *body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = '\0';
	one_language("plpgsql", body, data, size);
	one_language("sql", body, data, size);
	free(body);
	cgm_error_clear();
	return 0;
}
