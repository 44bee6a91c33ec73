/*
 * extract_pool.c - call-site extraction on worker threads (see
 * cgmap/extract_pool.h).
 *
 * In:  function pointers queued by one producer thread (a source reading
 *      rows, or the mapping pipeline handing over a finished model).
 * Out: sites, parse errors and, when asked, line count and body hash of
 *      each function, allocated in per-thread arenas that finish/cancel move
 *      into the caller's arena.  The queue itself is heap memory freed with
 *      the pool.
 *
 * One mutex guards the queue; workers take one function at a time, which
 * costs two lock round trips per function against a parse of a tenth of a
 * millisecond or more, and keeps every thread busy to the last function.
 */
#include "cgmap/extract_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgmap/bodyhash.h"
#include "cgmap/pipeline.h"

#define MAX_THREADS 64

typedef struct pool_entry {
	cgm_function *fn;
	bool measure_body;
} pool_entry;

typedef struct pool_worker {
	cgm_extract_pool *pool;
	cgm_arena *arena;
	pthread_t thread;
} pool_worker;

struct cgm_extract_pool {
	pthread_mutex_t lock;
	pthread_cond_t work_ready; /* something queued, or the pool closes */
	pthread_cond_t all_done;   /* done caught up with submitted */
	pool_entry *queue;
	size_t submitted, cap, taken, done;
	int idle_workers;          /* waiting on work_ready: only then signal */
	bool draining;             /* the caller waits on all_done */
	bool closing;
	cgm_coercions coercions;   /* set before the first submit */
	bool defer;                /* extraction left to resolution */
	int nthreads;              /* extractors, the caller's thread counted */
	int nstarted;              /* workers running: workers[1..nstarted] */
	pool_worker workers[MAX_THREADS]; /* [0]: the caller's arena */
};

static void extract_entry(const cgm_extract_pool *pool, cgm_arena *arena, const pool_entry *e)
{
	cgm_function *fn = e->fn;
	if (e->measure_body) {
		fn->line_count = cgm_count_lines(fn->source);
		fn->body_hash = cgm_body_hash(arena, fn->source);
	}
	if (pool->defer) {
		fn->nsites = 0;
		fn->nerrors = 0;
		fn->extract_pending = true;
		return;
	}
	cgm_extract_function_with(arena, fn, pool->coercions);
}

void cgm_extract_pool_defer(cgm_extract_pool *pool)
{
	pool->defer = true;
}

cgm_coercions cgm_extract_pool_coercions_of(const cgm_extract_pool *pool)
{
	return pool->coercions;
}

void cgm_extract_pool_coercions(cgm_extract_pool *pool, cgm_coercions coercions)
{
	pool->coercions = coercions;
}

/* With the lock held: one finished, tell a draining caller when all are. */
static void count_done(cgm_extract_pool *pool)
{
	pool->done++;
	if (pool->draining && pool->done == pool->submitted)
		pthread_cond_signal(&pool->all_done);
}

static void *worker_main(void *arg)
{
	pool_worker *w = arg;
	cgm_extract_pool *pool = w->pool;
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (pool->taken == pool->submitted && !pool->closing) {
			pool->idle_workers++;
			pthread_cond_wait(&pool->work_ready, &pool->lock);
			pool->idle_workers--;
		}
		if (pool->taken == pool->submitted)
			break; /* closing, nothing left */
		pool_entry e = pool->queue[pool->taken++];
		pthread_mutex_unlock(&pool->lock);
		extract_entry(pool, w->arena, &e);
		pthread_mutex_lock(&pool->lock);
		count_done(pool);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

cgm_extract_pool *cgm_extract_pool_start(int threads)
{
	if (threads <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (int)n : 1;
	}
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	cgm_extract_pool *pool = cgm_xcalloc(1, sizeof(*pool));
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work_ready, NULL);
	pthread_cond_init(&pool->all_done, NULL);
	pool->workers[0].pool = pool;
	pool->workers[0].arena = cgm_arena_new();
	for (int t = 1; t < threads; t++) {
		pool_worker *w = &pool->workers[t];
		w->pool = pool;
		w->arena = cgm_arena_new();
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
			/* Fewer threads only make it slower. */
			cgm_arena_free(w->arena);
			w->arena = NULL;
			break;
		}
		pool->nstarted = t;
	}
	pool->nthreads = pool->nstarted + 1;
	return pool;
}

int cgm_extract_pool_threads(const cgm_extract_pool *pool)
{
	return pool->nthreads;
}

void cgm_extract_pool_submit(cgm_extract_pool *pool, cgm_function *fn, bool measure_body)
{
	pthread_mutex_lock(&pool->lock);
	if (pool->submitted == pool->cap) {
		pool->cap = pool->cap ? pool->cap * 2 : 1024;
		pool->queue = cgm_xrealloc(pool->queue, pool->cap * sizeof(pool_entry));
	}
	pool->queue[pool->submitted++] = (pool_entry){ fn, measure_body };
	if (pool->idle_workers > 0)
		pthread_cond_signal(&pool->work_ready);
	pthread_mutex_unlock(&pool->lock);
}

bool cgm_extract_pool_help(cgm_extract_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	if (pool->taken == pool->submitted) {
		pthread_mutex_unlock(&pool->lock);
		return false;
	}
	pool_entry e = pool->queue[pool->taken++];
	pthread_mutex_unlock(&pool->lock);
	extract_entry(pool, pool->workers[0].arena, &e);
	pthread_mutex_lock(&pool->lock);
	count_done(pool);
	pthread_mutex_unlock(&pool->lock);
	return true;
}

void cgm_extract_pool_drain(cgm_extract_pool *pool)
{
	while (cgm_extract_pool_help(pool))
		;
	/* What is left is in the workers' hands: wait for it. */
	pthread_mutex_lock(&pool->lock);
	pool->draining = true;
	while (pool->done < pool->submitted)
		pthread_cond_wait(&pool->all_done, &pool->lock);
	pool->draining = false;
	pthread_mutex_unlock(&pool->lock);
}

/* Stop the workers (after the queue empties, or at once when it was
 * emptied by cancel), join them, hand every arena over, free the pool. */
static void close_pool(cgm_extract_pool *pool, cgm_arena *arena)
{
	pthread_mutex_lock(&pool->lock);
	pool->closing = true;
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->lock);
	for (int t = 1; t <= pool->nstarted; t++)
		pthread_join(pool->workers[t].thread, NULL);
	for (int t = 0; t <= pool->nstarted; t++)
		cgm_arena_adopt(arena, pool->workers[t].arena);
	pthread_cond_destroy(&pool->all_done);
	pthread_cond_destroy(&pool->work_ready);
	pthread_mutex_destroy(&pool->lock);
	free(pool->queue);
	free(pool);
}

void cgm_extract_pool_finish(cgm_extract_pool *pool, cgm_arena *arena)
{
	cgm_extract_pool_drain(pool);
	close_pool(pool, arena);
}

void cgm_extract_pool_cancel(cgm_extract_pool *pool, cgm_arena *arena)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->taken = pool->submitted; /* drop what nobody took yet */
	pthread_mutex_unlock(&pool->lock);
	close_pool(pool, arena);
}
