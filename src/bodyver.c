/*
 * bodyver.c - the exact version of a function body (see cgmap/bodyver.h).
 *
 * In: body text.  Out: its FNV-1a 64-bit hash, or that hash as 16
 * lowercase hex digits in the caller's arena.  Nothing else is kept.
 */
#include "cgmap/bodyver.h"

#include <stdio.h>
#include <string.h>

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

uint64_t cgm_body_version_hash(const char *text, size_t len)
{
	uint64_t h = FNV64_OFFSET;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= FNV64_PRIME;
	}
	return h;
}

const char *cgm_body_version(cgm_arena *arena, const char *source)
{
	if (!source)
		return NULL;
	return cgm_arena_printf(arena, "%016llx",
				(unsigned long long)cgm_body_version_hash(source, strlen(source)));
}

bool cgm_body_version_valid(const char *text)
{
	if (!text)
		return false;
	size_t n = 0;
	for (; text[n]; n++)
		if (!((text[n] >= '0' && text[n] <= '9') || (text[n] >= 'a' && text[n] <= 'f')))
			return false;
	return n == 16;
}
