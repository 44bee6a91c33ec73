/*
 * intern.c - one copy of each distinct string (see cgmap/intern.h).
 *
 * In:  strings.  Out: copies in the table's arena, one per distinct text.
 * The table is an open-addressed array of pointers to those copies, with
 * their hashes, lengths and first bytes (a short string is found without
 * reading its copy), doubled at half full; arrays of strings have a table of
 * their own, keyed by their interned pointers.  Both tables are heap
 * memory, freed with the table.  The copies belong to the arena.
 */
#include "cgmap/intern.h"
#include "cgmap/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A copy with its hash, length and first eight bytes: a lookup of a
 * short string is answered from the slot alone, without reading the copy
 * (most strings a snapshot repeats, schemas, names, types, are short). */
typedef struct slot {
	const char *s;
	uint64_t head;
	uint32_t hash;  /* the low half of the string's hash: its place */
	uint32_t len;   /* held at UINT32_MAX: longer strings are compared whole */
} slot;

static uint64_t head_of(const char *s, size_t len)
{
	uint64_t head = 0;
	memcpy(&head, s, len < sizeof head ? len : sizeof head);
	return head;
}

typedef struct array_slot {
	const char **v;       /* NULL: empty slot */
	int n;
	uint64_t hash;
} array_slot;

struct cgm_intern {
	cgm_arena *arena;
	slot *slots;
	size_t cap;   /* a power of two */
	size_t count;
	array_slot *arrays;
	size_t array_cap;   /* a power of two, or 0 before the first array */
	size_t array_count;
};

/* Eight bytes a step (cgm_hash_words): FNV-1a's byte a step was most of
 * interning a snapshot's hundreds of thousands of names. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	return cgm_hash_words(CGM_FNV1A_OFFSET, s, len);
}

cgm_intern *cgm_intern_new(cgm_arena *arena)
{
	cgm_intern *t = cgm_xcalloc(1, sizeof(*t));
	t->arena = arena;
	t->cap = 1024;
	t->slots = cgm_xcalloc(t->cap, sizeof(slot));
	return t;
}

void cgm_intern_free(cgm_intern *table)
{
	if (!table)
		return;
	free(table->slots);
	free(table->arrays);
	free(table);
}

static void grow(cgm_intern *t)
{
	size_t cap = t->cap * 2;
	slot *slots = cgm_xcalloc(cap, sizeof(slot));
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].s)
			continue;
		size_t j = (size_t)t->slots[i].hash & (cap - 1);
		while (slots[j].s)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

const char *cgm_intern_str(cgm_intern *t, const char *s)
{
	return s ? cgm_intern_strn(t, s, strlen(s)) : NULL;
}

const char *cgm_intern_strn(cgm_intern *t, const char *s, size_t len)
{
	if (!s)
		return NULL;
	uint64_t h = hash_bytes(s, len);
	size_t j = (size_t)h & (t->cap - 1);
	uint64_t head = head_of(s, len);
	uint32_t len32 = len < UINT32_MAX ? (uint32_t)len : UINT32_MAX;
	while (t->slots[j].s) {
		const slot *at = &t->slots[j];
		if (at->hash == (uint32_t)h && at->len == len32 && at->head == head &&
		    (len <= sizeof head ||
		     ((len32 < UINT32_MAX || strlen(at->s) == len) &&
		      memcmp(at->s + sizeof head, s + sizeof head, len - sizeof head) == 0)))
			return at->s;
		j = (j + 1) & (t->cap - 1);
	}
	const char *copy = cgm_arena_strndup(t->arena, s, len);
	t->slots[j] = (slot){ copy, head, (uint32_t)h, len32 };
	if (++t->count * 2 > t->cap)
		grow(t);
	return copy;
}

static void grow_arrays(cgm_intern *t)
{
	size_t cap = t->array_cap ? t->array_cap * 2 : 256;
	array_slot *arrays = cgm_xcalloc(cap, sizeof(array_slot));
	for (size_t i = 0; i < t->array_cap; i++) {
		if (!t->arrays[i].v)
			continue;
		size_t j = (size_t)t->arrays[i].hash & (cap - 1);
		while (arrays[j].v)
			j = (j + 1) & (cap - 1);
		arrays[j] = t->arrays[i];
	}
	free(t->arrays);
	t->arrays = arrays;
	t->array_cap = cap;
}

const char **cgm_intern_strs(cgm_intern *t, const char *const *v, int n)
{
	if (!v)
		return NULL;
	if (n < 0)
		n = 0;
	if (t->array_cap == 0)
		grow_arrays(t);
	/* The elements interned first: equal arrays then hold equal pointers. */
	const char *small[16];
	const char **kept = n <= 16 ? small : cgm_xcalloc((size_t)n, sizeof(char *));
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		kept[i] = cgm_intern_str(t, v[i]);
		h = (h ^ (uint64_t)(uintptr_t)kept[i]) * 1099511628211ULL;
		h ^= h >> 29;
	}
	size_t j = (size_t)h & (t->array_cap - 1);
	const char **found = NULL;
	while (t->arrays[j].v) {
		const array_slot *a = &t->arrays[j];
		if (a->hash == h && a->n == n && memcmp(a->v, kept, sizeof(char *) * (size_t)n) == 0) {
			found = a->v;
			break;
		}
		j = (j + 1) & (t->array_cap - 1);
	}
	if (!found) {
		found = cgm_arena_alloc(t->arena, sizeof(char *) * (size_t)(n ? n : 1));
		memcpy(found, kept, sizeof(char *) * (size_t)n);
		t->arrays[j] = (array_slot){ found, n, h };
		if (++t->array_count * 2 > t->array_cap)
			grow_arrays(t);
	}
	if (kept != small)
		free(kept);
	return found;
}

size_t cgm_intern_count(const cgm_intern *table)
{
	return table->count;
}
