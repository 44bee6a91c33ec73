/*
 * arena.c - bump allocator (see cgmap/arena.h).
 *
 * In: allocation requests.  Out: zeroed memory that lives until the arena is
 * freed.  Blocks are chained; a request larger than a quarter of a block
 * gets its own, which cgm_arena_resize and cgm_arena_trim may reallocate
 * (the one way memory of an arena is given back before it is freed or
 * reset).  Strings are
 * packed unaligned, everything else aligned to 16 bytes.
 * Not thread-safe: each parsing thread keeps its own arena.
 */
#include "cgmap/arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (256 * 1024)
/* An arena's first shared block; each next one doubles, up to ARENA_BLOCK.
 * Most arenas are short-lived scratch (one function's extraction, one
 * graph's layout): a 256 KB block is above malloc's mmap threshold
 * (main.c), so each of those arenas cost an mmap, a munmap and fresh
 * page faults (6,500 of each mapping 10,000 functions). */
#define ARENA_FIRST_BLOCK (8 * 1024)
#define ARENA_ALIGN 16

typedef struct arena_block {
	struct arena_block *next;
	size_t size;
	size_t used;
	bool own;             /* holds one large allocation alone (cgm_arena_resize) */
	_Alignas(16) unsigned char data[];
} arena_block;

struct cgm_arena {
	arena_block *head;
	size_t handed_out;
	size_t next_block; /* the next shared block's size; 0: ARENA_FIRST_BLOCK */
};

void *cgm_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "cgmap: out of memory (%zu x %zu bytes)\n", n, size);
		abort();
	}
	return p;
}

void *cgm_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "cgmap: out of memory (%zu bytes)\n", n);
		abort();
	}
	return q;
}

static void free_blocks(arena_block *b)
{
	while (b) {
		arena_block *next = b->next;
		free(b);
		b = next;
	}
}

cgm_arena *cgm_arena_new(void)
{
	return cgm_xcalloc(1, sizeof(cgm_arena));
}

void cgm_arena_free(cgm_arena *arena)
{
	if (!arena)
		return;
	free_blocks(arena->head);
	free(arena);
}

/* `size` bytes at a multiple of `align` (a power of two, at most
 * ARENA_ALIGN) in the current block, or in a new one. */
static void *bump(cgm_arena *arena, size_t size, size_t align)
{
	if (size == 0)
		size = 1;
	arena_block *b = arena->head;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at > b->size || b->size - at < size) {
		bool own = size > ARENA_BLOCK / 4;
		size_t shared = arena->next_block ? arena->next_block : ARENA_FIRST_BLOCK;
		while (shared < size) /* a request past the block grown so far */
			shared *= 2;
		size_t bsize = own ? size : shared;
		if (!own)
			arena->next_block = shared < ARENA_BLOCK ? shared * 2 : ARENA_BLOCK;
		arena_block *nb = cgm_xcalloc(1, sizeof(arena_block) + bsize);
		nb->size = bsize;
		nb->own = own;
		if (own && b) {
			/* Keep the current block for small requests. */
			nb->next = b->next;
			b->next = nb;
			nb->used = size;
			arena->handed_out += size;
			return nb->data;
		}
		nb->next = b;
		arena->head = nb;
		b = nb;
		at = 0;
	}
	/* Blocks come zeroed from calloc and no byte is handed out twice, so
	 * every allocation is already zero: clearing it again touched every
	 * byte of a map twice. */
	void *p = b->data + at;
	b->used = at + size;
	arena->handed_out += size;
	return p;
}

void *cgm_arena_alloc(cgm_arena *arena, size_t size)
{
	size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	return bump(arena, size ? size : ARENA_ALIGN, ARENA_ALIGN);
}

char *cgm_arena_strndup(cgm_arena *arena, const char *s, size_t n)
{
	if (!s)
		return NULL;
	/* Characters need no alignment: a map holds millions of short strings,
	 * each of which rounded to 16 bytes wasted 8 on average. */
	char *p = bump(arena, n + 1, 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cgm_arena_strdup(cgm_arena *arena, const char *s)
{
	return s ? cgm_arena_strndup(arena, s, strlen(s)) : NULL;
}

char *cgm_arena_printf(cgm_arena *arena, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = bump(arena, (size_t)n + 1, 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void *cgm_arena_grow(cgm_arena *arena, void *old, size_t old_count,
		     size_t new_count, size_t elem_size)
{
	void *p = cgm_arena_alloc(arena, new_count * elem_size);
	if (old && old_count)
		memcpy(p, old, old_count * elem_size);
	return p;
}

void *cgm_arena_resize(cgm_arena *arena, void *old, size_t old_count, size_t new_count,
		       size_t elem_size)
{
	if (!old)
		return cgm_arena_grow(arena, NULL, 0, new_count, elem_size);
	size_t old_size = old_count * elem_size;
	size_t size = (new_count * elem_size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	/* Blocks are few (a block per 256 KB or per large array), and arrays
	 * are resized a few times over their growth: the walk costs nothing. */
	arena_block **link = &arena->head;
	while (*link && !((*link)->own && (*link)->data == (unsigned char *)old))
		link = &(*link)->next;
	arena_block *b = *link;
	if (!b || size < b->used)
		return cgm_arena_grow(arena, old, old_count, new_count, elem_size);
	arena_block *nb = cgm_xrealloc(b, sizeof(arena_block) + size);
	/* Allocations are zeroed: so is what the block gains. */
	if (size > old_size)
		memset(nb->data + old_size, 0, size - old_size);
	arena->handed_out += size - nb->used;
	nb->size = size;
	nb->used = size;
	*link = nb;
	return nb->data;
}

void *cgm_arena_trim(cgm_arena *arena, void *p, size_t count, size_t elem_size)
{
	if (!p)
		return p;
	size_t size = (count * elem_size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (size == 0)
		size = ARENA_ALIGN;
	arena_block **link = &arena->head;
	while (*link && !((*link)->own && (*link)->data == (unsigned char *)p))
		link = &(*link)->next;
	arena_block *b = *link;
	if (!b || size >= b->used)
		return p;
	arena_block *nb = cgm_xrealloc(b, sizeof(arena_block) + size);
	arena->handed_out -= nb->used - size;
	nb->size = size;
	nb->used = size;
	*link = nb;
	return nb->data;
}

void cgm_arena_reset(cgm_arena *arena)
{
	arena_block *keep = arena->head;
	if (!keep)
		return;
	free_blocks(keep->next);
	/* What was handed out is cleared again: allocations stay zeroed. */
	memset(keep->data, 0, keep->used);
	keep->used = 0;
	keep->next = NULL;
	arena->handed_out = 0;
}

size_t cgm_arena_used(const cgm_arena *arena)
{
	return arena->handed_out;
}

void cgm_arena_adopt(cgm_arena *parent, cgm_arena *child)
{
	if (!child)
		return;
	arena_block *b = child->head;
	while (b) {
		arena_block *next = b->next;
		/* Behind the parent's current block, which keeps serving small requests. */
		if (parent->head) {
			b->next = parent->head->next;
			parent->head->next = b;
		} else {
			b->next = NULL;
			parent->head = b;
		}
		b = next;
	}
	parent->handed_out += child->handed_out;
	free(child);
}
