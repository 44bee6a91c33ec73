/*
 * intern.c - one copy of each distinct string (see cgmap/intern.h).
 *
 * In:  strings.  Out: copies in the table's arena, one per distinct text.
 * The table is an open-addressed array of pointers to those copies, with
 * their hashes, doubled at half full; it is heap memory, freed with the
 * table.  The copies belong to the arena.
 */
#include "cgmap/intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
	const char *s;
	uint64_t hash;
} slot;

struct cgm_intern {
	cgm_arena *arena;
	slot *slots;
	size_t cap;   /* a power of two */
	size_t count;
};

static uint64_t hash_string(const char *s, size_t *len)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	*len = (size_t)(p - (const unsigned char *)s);
	return h;
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
	if (!s)
		return NULL;
	size_t len;
	uint64_t h = hash_string(s, &len);
	size_t j = (size_t)h & (t->cap - 1);
	while (t->slots[j].s) {
		if (t->slots[j].hash == h && strcmp(t->slots[j].s, s) == 0)
			return t->slots[j].s;
		j = (j + 1) & (t->cap - 1);
	}
	const char *copy = cgm_arena_strndup(t->arena, s, len);
	t->slots[j] = (slot){ copy, h };
	if (++t->count * 2 > t->cap)
		grow(t);
	return copy;
}

size_t cgm_intern_count(const cgm_intern *table)
{
	return table->count;
}
