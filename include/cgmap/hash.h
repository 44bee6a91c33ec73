/*
 * cgmap/hash.h - the one string hash cgmap uses: 64-bit FNV-1a, for its
 * hash tables, page names and body versions (the cgmap_trace extension
 * computes the same for body versions); and a faster one, eight bytes a
 * step, for keys that only cgmap itself compares again (the site's page
 * records: cgm_hash_words), and a wider one for whole files
 * (cgm_hash_wide).
 *
 * In: bytes.  Out: the hash; nothing is allocated.
 */
#ifndef CGMAP_HASH_H
#define CGMAP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CGM_FNV1A_OFFSET 0xcbf29ce484222325ULL
#define CGM_FNV1A_PRIME 0x100000001b3ULL

/* h carried on over one more byte: for keys of several parts. */
static inline uint64_t cgm_fnv1a_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * CGM_FNV1A_PRIME;
}

/* h carried on over the bytes of s (up to its NUL). */
static inline uint64_t cgm_fnv1a_more(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = cgm_fnv1a_byte(h, (unsigned char)*s);
	return h;
}

/* The hash of the string s. */
static inline uint64_t cgm_fnv1a(const char *s)
{
	return cgm_fnv1a_more(CGM_FNV1A_OFFSET, s);
}

/* The hash of len bytes (NULs included). */
static inline uint64_t cgm_fnv1a_bytes(const char *data, size_t len)
{
	uint64_t h = CGM_FNV1A_OFFSET;
	for (size_t i = 0; i < len; i++)
		h = cgm_fnv1a_byte(h, (unsigned char)data[i]);
	return h;
}

/* One 64-bit word into h: multiplied and folded, a bijection of v for a
 * given h. */
static inline uint64_t cgm_hash_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/* h carried on over len bytes, eight a step, the tail as one zero-padded
 * word, then the length (so "a" and "a\0" differ). */
static inline uint64_t cgm_hash_words(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t word;
		memcpy(&word, p + i, sizeof(word));
		h = cgm_hash_mix(h, word);
	}
	if (i < len) {
		uint64_t word = 0;
		memcpy(&word, p + i, len - i);
		h = cgm_hash_mix(h, word);
	}
	return cgm_hash_mix(h, (uint64_t)len);
}

/* h carried on over len bytes, 32 a step in four independent lanes (one
 * chain of multiplies waits on each before; four keep the multiplier
 * busy), then the tail by cgm_hash_words.  Not the same value as cgm_hash_words: for keys
 * of whole files, compared only with keys made the same way. */
static inline uint64_t cgm_hash_wide(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t lane[4] = { h, h ^ 0x9E3779B97F4A7C15ULL, h ^ 0xC2B2AE3D27D4EB4FULL,
			     h ^ 0x165667B19E3779F9ULL };
	size_t i = 0;
	for (; i + 32 <= len; i += 32) {
		uint64_t word[4];
		memcpy(word, p + i, sizeof(word));
		for (int k = 0; k < 4; k++)
			lane[k] = cgm_hash_mix(lane[k], word[k]);
	}
	for (int k = 0; k < 4; k++)
		h = cgm_hash_mix(h, lane[k]);
	return cgm_hash_words(h, p + i, len - i);
}
#endif
