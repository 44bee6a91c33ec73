/*
 * bodyver.c - the exact version of a function body (see cgmap/bodyver.h).
 *
 * In: body text.  Out: its FNV-1a 64-bit hash, or that hash as 16
 * lowercase hex digits in the caller's arena.  Nothing else is kept.
 */
#include "cgmap/bodyver.h"
#include "cgmap/hash.h"

#include <stdio.h>
#include <string.h>

uint64_t cgm_body_version_hash(const char *text, size_t len)
{
	return cgm_fnv1a_bytes(text, len);
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
