/*
 * cgmap/extract_pool.h - call-site extraction on worker threads, fed one
 * function at a time while a source is still reading the rest.
 *
 * In:  functions handed over by cgm_extract_pool_submit(), whose structs
 *      must stay where they are (and untouched by the caller) until the pool
 *      is drained, finished or cancelled.
 * Out: each function's sites and parse errors (cgm_extract_function), and,
 *      when asked, its line count and body hash.  Every thread allocates in
 *      an arena of its own; finishing or cancelling moves those arenas into
 *      the arena the caller names, so the pool leaves nothing behind.
 * Threads: `threads` extractors in all, the caller's thread counted: the
 *      pool starts threads - 1 workers, and the caller extracts too whenever
 *      it calls cgm_extract_pool_help(), _drain() or _finish().  With one
 *      thread nothing runs until the caller helps.  Only one thread (the one
 *      that started the pool) may call the functions below.
 */
#ifndef CGMAP_EXTRACT_POOL_H
#define CGMAP_EXTRACT_POOL_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"

typedef struct cgm_extract_pool cgm_extract_pool;

/* Start a pool of `threads` extractors (0: one per core, at most 64).  When
 * the system refuses a thread, the pool runs with those it got. */
cgm_extract_pool *cgm_extract_pool_start(int threads);

/* Extractors in all (the caller's thread counted). */
int cgm_extract_pool_threads(const cgm_extract_pool *pool);

/* Queue `fn` for extraction.  measure_body: fill fn->line_count and
 * fn->body_hash from fn->source first (sources that leave that work to the
 * pool, off their reading thread). */
void cgm_extract_pool_submit(cgm_extract_pool *pool, cgm_function *fn, bool measure_body);

/* Before the first submit: the coercion sites the catalog's casts allow
 * (cgm_coercions in cgmap/pipeline.h; CGM_COERCE_ALL until said).  Only a
 * source that knows its casts before its functions (a live catalog) can
 * narrow them. */
void cgm_extract_pool_coercions(cgm_extract_pool *pool, cgm_coercions coercions);

/* Before the first submit: leave extraction to resolution.  Submitted
 * functions then only get their line count and body hash (when asked) and
 * extract_pending set; cgm_resolve extracts each body, resolves its sites
 * and drops the parse-time data at once, so the parse trees of every
 * function never live together. */
void cgm_extract_pool_defer(cgm_extract_pool *pool);

/* The coercions set by cgm_extract_pool_coercions (for cgm_resolve_options). */
cgm_coercions cgm_extract_pool_coercions_of(const cgm_extract_pool *pool);

/* Extract one queued function on the calling thread; false when none is
 * waiting.  For a caller that would otherwise wait for input. */
bool cgm_extract_pool_help(cgm_extract_pool *pool);

/* Return once every function submitted so far is extracted, helping
 * meanwhile; the workers stay for more.  After it the caller may move the
 * functions it submitted. */
void cgm_extract_pool_drain(cgm_extract_pool *pool);

/* Drain, stop and join the workers, move every thread's arena into `arena`
 * and free the pool. */
void cgm_extract_pool_finish(cgm_extract_pool *pool, cgm_arena *arena);

/* Stop on an error: queued functions are dropped unextracted, workers finish
 * the function in hand and are joined, their arenas go into `arena` (sites
 * already extracted point there), and the pool is freed.  NULL is a no-op. */
void cgm_extract_pool_cancel(cgm_extract_pool *pool, cgm_arena *arena);

#endif
