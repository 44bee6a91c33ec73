/*
 * cgmap/arena.h - bump allocator: one per run (or per model), freed whole.
 *
 * In:  sizes and strings to copy.  Out: pointers valid until cgm_arena_free().
 * Nothing allocated here is freed on its own; allocation failure aborts the
 * process with a message, since a half-built graph is worth nothing.
 */
#ifndef CGMAP_ARENA_H
#define CGMAP_ARENA_H

#include <stddef.h>

typedef struct cgm_arena cgm_arena;

cgm_arena *cgm_arena_new(void);
void cgm_arena_free(cgm_arena *arena);
/* Zeroed, aligned for any type. */
void *cgm_arena_alloc(cgm_arena *arena, size_t size);
/* Copy of s (NULL stays NULL). */
char *cgm_arena_strdup(cgm_arena *arena, const char *s);
char *cgm_arena_strndup(cgm_arena *arena, const char *s, size_t n);
char *cgm_arena_printf(cgm_arena *arena, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Grow an array kept in the arena: returns a copy of old with room for
 * new_count elements (the old block is simply abandoned). */
void *cgm_arena_grow(cgm_arena *arena, void *old, size_t old_count,
		     size_t new_count, size_t elem_size);
/* Resize an array kept in the arena (new_count >= old_count): a large
 * array (more than 64 KB), which has a block of its own, is reallocated in
 * place of the old one instead of copied with the old copy abandoned, so
 * that growing it by doubling costs its final size, not twice that.
 * Pointers into the old array are invalid after; a small one is copied
 * as by cgm_arena_grow. */
void *cgm_arena_resize(cgm_arena *arena, void *old, size_t old_count, size_t new_count,
		       size_t elem_size);
/* Give back the room a large array (one cgm_arena_resize keeps in a block
 * of its own) has beyond its first `count` elements, reallocating it to
 * their size; any other pointer is returned as it is.  The array may move:
 * pointers into it are invalid after. */
void *cgm_arena_trim(cgm_arena *arena, void *p, size_t count, size_t elem_size);
/* Move every block of `child` into `parent` and free `child`: what a
 * worker thread allocated lives on with the parent. */
void cgm_arena_adopt(cgm_arena *parent, cgm_arena *child);
/* Free everything allocated so far but one block, kept (cleared) for what
 * comes next: a scratch arena reused once per function. */
void cgm_arena_reset(cgm_arena *arena);
/* Heap allocation for scratch tables outside any arena: zeroed (never
 * NULL, even for 0 bytes); on failure the process stops with a message,
 * as with arenas. */
void *cgm_xcalloc(size_t n, size_t size);
void *cgm_xrealloc(void *p, size_t n);

/* Bytes handed out, for the benchmarks. */
size_t cgm_arena_used(const cgm_arena *arena);

#endif
