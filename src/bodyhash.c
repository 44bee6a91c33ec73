/*
 * bodyhash.c - layout-blind hash of a function body (see cgmap/bodyhash.h).
 *
 * In: body text.  Out: the normalised text or its FNV-1a 128-bit hash as
 * 32 hex digits, in the caller's arena.  The scan follows PostgreSQL's
 * lexical rules for what is quoted ('...' with '' inside, E'...' with
 * backslash escapes, "..." identifiers, $tag$...$tag$) and for comments
 * (-- to end of line, nested slash-star), which PL/pgSQL shares.
 */
#include "cgmap/bodyhash.h"
#include "sqllex.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool space_char(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Write the normalised text of s to out (room for strlen(s) + 1 bytes:
 * normalising never lengthens); returns its length. */
static size_t normalise(char *out, const char *s)
{
	size_t len = 0;
	bool pending_space = false;
	size_t i = 0;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		size_t after = cgm_sql_skip_comment(s, i);
		if (after != i || space_char(c)) {
			pending_space = len > 0;
			i = after != i ? after : i + 1;
			continue;
		}
		if (pending_space) {
			out[len++] = ' ';
			pending_space = false;
		}
		size_t start = i;
		size_t quoted = cgm_sql_skip_opaque(s, i);
		if (quoted != i) {
			i = quoted; /* quoted text is kept byte for byte */
		} else if (cgm_sql_ident_char(c)) {
			while (s[i] && cgm_sql_ident_char((unsigned char)s[i]))
				i++;
		} else {
			i++;
		}
		memcpy(out + len, s + start, i - start);
		len += i - start;
	}
	out[len] = '\0';
	return len;
}

/* A buffer for the normalised text: on the stack for most bodies. */
static char *normalise_buffer(char *stack, size_t stack_size, const char *source)
{
	size_t need = strlen(source) + 1;
	if (need <= stack_size)
		return stack;
	char *heap = malloc(need);
	if (!heap) {
		fprintf(stderr, "cgmap: out of memory (%zu bytes)\n", need);
		abort();
	}
	return heap;
}

const char *cgm_body_normalise(cgm_arena *arena, const char *source)
{
	if (!source)
		return NULL;
	char stack[8192];
	char *buf = normalise_buffer(stack, sizeof stack, source);
	size_t len = normalise(buf, source);
	const char *result = cgm_arena_strndup(arena, buf, len);
	if (buf != stack)
		free(buf);
	return result;
}

/* FNV-1a, 128 bits: fast, and a collision would need 2^64 bodies. */
__extension__ typedef unsigned __int128 u128;

static inline u128 fnv_add(u128 hash, const char *p, size_t n)
{
	const u128 prime = ((u128)1 << 88) | 0x13b;
	for (size_t i = 0; i < n; i++) {
		hash ^= (unsigned char)p[i];
		hash *= prime;
	}
	return hash;
}

const char *cgm_body_hash(cgm_arena *arena, const char *source)
{
	if (!source)
		return NULL;
	/* The hash of normalise()'s output, computed as it would be written:
	 * the same bytes in the same order, without the copy. */
	u128 hash = ((u128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL;
	const char *s = source;
	bool emitted = false, pending_space = false;
	size_t i = 0;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		size_t after = cgm_sql_skip_comment(s, i);
		if (after != i || space_char(c)) {
			pending_space = emitted;
			i = after != i ? after : i + 1;
			continue;
		}
		if (pending_space) {
			hash = fnv_add(hash, " ", 1);
			pending_space = false;
		}
		size_t start = i;
		size_t quoted = cgm_sql_skip_opaque(s, i);
		if (quoted != i) {
			i = quoted;
		} else if (cgm_sql_ident_char(c)) {
			while (s[i] && cgm_sql_ident_char((unsigned char)s[i]))
				i++;
		} else {
			i++;
		}
		hash = fnv_add(hash, s + start, i - start);
		emitted = true;
	}
	/* 32 hex digits, high half first, as "%016llx%016llx" would print. */
	char hex[33];
	for (int d = 31; d >= 0; d--) {
		hex[d] = "0123456789abcdef"[(unsigned)(hash & 0xf)];
		hash >>= 4;
	}
	hex[32] = '\0';
	return cgm_arena_strndup(arena, hex, 32);
}
