/*
 * cgmap/bodyhash.h - a hash of a function body that ignores layout, so
 * `cgmap diff` reports a function as changed only when its code changed.
 *
 * In: the body text (prosrc or the BEGIN ATOMIC text).  Out: 32 lowercase
 * hex digits in the caller's arena.  Thread-safe.
 */
#ifndef CGMAP_BODYHASH_H
#define CGMAP_BODYHASH_H

#include "cgmap/arena.h"

/* Comments (-- and nested slash-star) and runs of whitespace outside
 * string literals, quoted identifiers and dollar quotes fold to one space,
 * leading and trailing space goes; quoted text is kept byte for byte.
 * NULL source gives NULL. */
const char *cgm_body_hash(cgm_arena *arena, const char *source);

/* The normalised text the hash is taken of (for tests and debugging). */
const char *cgm_body_normalise(cgm_arena *arena, const char *source);

#endif
