/*
 * cgmap/extract_cache.h - the call sites extraction found in each body,
 * kept between runs into the same output folder (DIR/.cgmap-cache/bodies),
 * so a nightly map parses again only the bodies that changed.
 *
 * In:  the file an earlier run wrote (its entries read whole, a record when fetched),
 *      and the functions a run extracts.
 * Out: a function's sites, site expressions, parse errors and `analysed`
 *      flag as cgm_extract_function_with left them, decoded into the
 *      caller's arena; the next file, written whole (temporary file,
 *      rename) with the entries this run used, old and new.
 *
 * A key is 128 bits of hash over everything extraction reads of a function
 * (language, kind, result, arguments, argument names and types, trigger
 * and BEGIN ATOMIC flags, the body) and which casts get a site; the file
 * as a whole is bound to the executable that wrote it (its size, time and
 * inode, with the version), since any change to cgmap may change what
 * extraction finds.  A file of another build, a damaged one (each record
 * is checked against a hash of its bytes) or none at all is an empty
 * cache: a cache is never an error, only a miss.
 *
 * Threads: fetch and keep take a slot each thread owns (cgm_extract_cache_slot),
 * the old file is only read; cgm_extract_cache_save runs once the
 * threads are done.  The cache owns its slots; cgm_extract_cache_free
 * frees everything.
 */
#ifndef CGMAP_EXTRACT_CACHE_H
#define CGMAP_EXTRACT_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"

#define CGM_EXTRACT_CACHE_FILE "bodies"

typedef struct cgm_extract_cache cgm_extract_cache;
typedef struct cgm_extract_cache_slot cgm_extract_cache_slot;

typedef struct cgm_extract_key {
	uint64_t h[2];
} cgm_extract_key;

/* The cache of the file at `path` (a missing or unusable file gives an
 * empty one).  Never NULL. */
cgm_extract_cache *cgm_extract_cache_open(const char *path);
void cgm_extract_cache_free(cgm_extract_cache *cache);

/* A slot for one thread's fetches and keeps (thread-safe). */
cgm_extract_cache_slot *cgm_extract_cache_slot_new(cgm_extract_cache *cache);

/* The key of fn's extraction with `coercions`. */
void cgm_extract_cache_key(cgm_extract_key *out, const cgm_function *fn, cgm_coercions coercions);

/* fn's extraction from the old file into `arena` (its sites, site_exprs,
 * errors, nsites, nerrors and analysed), kept for the next file: true.
 * false, fn untouched, when the key is not there or its record is damaged. */
bool cgm_extract_cache_fetch(cgm_extract_cache_slot *slot, const cgm_extract_key *key,
			     cgm_arena *arena, cgm_function *fn);

/* fn just extracted (before resolution) into the next file. */
void cgm_extract_cache_keep(cgm_extract_cache_slot *slot, const cgm_extract_key *key,
			    const cgm_function *fn);

/* The next file at `path`: the entries fetched or kept, one per key.
 * CGM_EIO naming the path when it cannot be written.  Once: the slots'
 * entry lists are let go as they are written. */
int cgm_extract_cache_save(cgm_extract_cache *cache, const char *path);

/* Bodies fetched from the old file and bodies kept after a parse. */
void cgm_extract_cache_counts(const cgm_extract_cache *cache, long *fetched, long *parsed);

#endif
