/*
 * cgmap/bodyver.h - the version of a function body as cgmap_trace records
 * it with each observed edge (the caller's body the call was seen against).
 *
 * In:  body text, exactly as pg_proc.prosrc holds it.  Out: the 64-bit
 *      FNV-1a hash of its bytes as 16 lowercase hex digits, in the caller's
 *      arena.  Every byte counts (layout too: call-site lines depend on it),
 *      unlike the layout-blind cgm_body_hash (cgmap/bodyhash.h).  The
 *      extension (extension/cgmap_trace) computes the same hash.
 */
#ifndef CGMAP_BODYVER_H
#define CGMAP_BODYVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmap/arena.h"

/* FNV-1a, 64 bits, of len bytes. */
uint64_t cgm_body_version_hash(const char *text, size_t len);
/* The version text of a body; NULL for a NULL body. */
const char *cgm_body_version(cgm_arena *arena, const char *source);
/* 16 lowercase hex digits: a version as the extension and cgmap write it. */
bool cgm_body_version_valid(const char *text);

#endif
