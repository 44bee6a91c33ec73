/*-------------------------------------------------------------------------
 *
 * cgmap_trace.c
 *		Runtime call-graph capture for PL/pgSQL, SQL and C user functions.
 *
 * cgmap_trace records, for every observed call of a user function, the edge
 * (database, caller, callee, call-site line, dynamic flag, version of the
 * caller's body: see "Body versions") together with the number of calls,
 * the inclusive and exclusive (self) time and the first and last time the
 * edge was seen.  A call made directly by a client statement
 * (no traced function on this backend's call stack) is an ENTRY POINT and is
 * recorded with caller = InvalidOid (0).
 *
 * How calls are seen
 * ------------------
 * - PL/pgSQL functions, procedures, trigger and event-trigger functions are
 *   seen through the PL/pgSQL instrumentation plugin (the rendezvous variable
 *   "PLpgSQL_plugin"): func_beg pushes a frame on a per-backend call stack,
 *   func_end pops it.  This costs nothing at plan time.  Any plugin that was
 *   installed before us (plprofiler, plpgsql_check, ...) is chained: its
 *   callbacks are called from ours, and the helper pointers PL/pgSQL fills in
 *   our struct (error_callback, assign_expr, ...) are copied into its struct
 *   before its func_setup runs.
 * - With cgmap_trace.track = 'all', needs_fmgr_hook/fmgr_hook also see every
 *   call of a non-PL/pgSQL user function (SQL, C, internal, other PLs).  The
 *   planner never inlines a function for which needs_fmgr_hook says yes, so
 *   plans of queries using SQL functions can change in that mode.  A
 *   value-per-call set-returning function goes through fmgr once per row, so
 *   it counts one call per row.
 *
 * Call sites
 * ----------
 * When the caller is a PL/pgSQL frame, the call is attributed to the
 * caller's currently executing statement: PL/pgSQL keeps it in
 * estate->err_stmt (set before each statement runs and restored to the
 * enclosing statement when a nested statement list finishes, so a call made
 * by the query of a FOR loop after its body ran is attributed to the FOR
 * line).  The edge is "dynamic" when that statement is EXECUTE, FOR ... IN
 * EXECUTE, OPEN ... FOR EXECUTE or RETURN QUERY EXECUTE.  Reading err_stmt at
 * call time needs no stmt_beg callback.  A cursor's query runs when rows are
 * fetched, not at OPEN: stmt_end remembers which OPEN (line, dynamic) opened
 * each portal, and a call made during a FETCH/MOVE of the same function is
 * attributed to that OPEN; a bound cursor's query is attributed to the line
 * of its DECLARE (also for FOR rec IN cursor), where the text of the query
 * is, so that runtime sites match the static ones.  stmt_beg is installed
 * only to forward it to a chained plugin.
 *
 * Keeping the call stack right on errors
 * --------------------------------------
 * PL/pgSQL does not call func_end for a function that errors out.  Every
 * live PL/pgSQL invocation, however, has an error-context entry whose
 * callback is plpgsql_exec_error_callback (PL/pgSQL hands us that pointer in
 * plugin->error_callback) and whose arg is the invocation's estate.  The
 * error_context_stack is reset by PG_CATCH / error recovery to exactly the
 * frames that are still alive, so it is the truth we check our stack against
 * ("reconcile"):
 *   - at SUBXACT_EVENT_ABORT_SUB (exception block caught an error, or any PL
 *     rolled back a subtransaction) and XACT_EVENT_ABORT (statement aborted;
 *     also a ROLLBACK inside a procedure, whose own frame stays alive and is
 *     kept because it is still on the error context stack);
 *   - at func_beg when the innermost live PL/pgSQL invocation below the new
 *     one is not the innermost PL/pgSQL frame we have (cheap pointer check);
 *   - at func_end when the ending estate is not on top of our stack.
 * Frames of fmgr-hooked functions are popped exactly by FHET_END/FHET_ABORT.
 * Frames found dead are popped and recorded (the call happened; its time
 * ends when the abort is noticed, which is at the abort itself in all the
 * cases above).  Procedures that COMMIT/ROLLBACK keep their frames: no abort
 * callback removes a frame whose invocation is still alive.  Nothing here
 * uses PG_TRY, so the hot path stays a few pointer compares.
 *
 * Recording
 * ---------
 * A finished call is first counted in a small backend-local table (no lock,
 * no allocation), which is added to the shared table once per transaction
 * (at commit/abort, which includes each COMMIT/ROLLBACK of a procedure), when
 * it fills up or is over a second old, before this backend reads the shared
 * table, and at backend exit.  Counts stay exact; they become visible when
 * the calling transaction ends.  A reset bumps a generation number so that
 * batches begun before it are discarded rather than added after it.
 * Times are taken with the TSC where the kernel itself uses it as its clock,
 * else with clock_gettime(CLOCK_MONOTONIC).
 *
 * Shared memory and locking
 * -------------------------
 * A fixed-size shared hash (cgmap_trace.max_edges entries, sized once in
 * shmem_request_hook) keyed by cgtKey holds one cgtEntry per edge.
 *   - cgt_state->lock (a named LWLock tranche "cgmap_trace") guards the hash
 *     table itself: it is held SHARED to look entries up and to update their
 *     counters (one acquisition per flushed batch), and EXCLUSIVE to insert
 *     or remove entries (new edges, eviction, dropped functions, reset, load
 *     at startup).
 *   - each entry's counters are updated under the entry's spinlock
 *     (entry->mutex), so concurrent backends holding the lock in shared mode
 *     count exactly; readers take the same spinlock to get a consistent copy.
 *   - cgt_state->mutex (spinlock) guards cgt_state->since.
 *   - cgt_state->dropped, evictions, evicted_calls, temp_skipped and
 *     stale_removed are atomic counters (see "Table policy").  A full table
 *     never raises an error.
 *   - cgt_state->reset_gen is atomic; it changes only under the exclusive
 *     lock, and flushes compare it under the lock.
 *
 * Table policy
 * ------------
 * The table is shared by every role and database, so none of them may
 * freeze it or fill it with junk:
 *   - edges whose caller or callee is in a temporary schema are not recorded
 *     (temp_skipped): any role with TEMP could create such functions by the
 *     thousand, and they vanish with their session;
 *   - a full table evicts its CGT_EVICT_PERCENT least recently seen edges
 *     (evictions, evicted_calls), so a new edge always finds room;
 *   - edges of dropped functions and databases are removed at the commit of
 *     the dropping transaction (object_access_hook), and cgmap_trace_edges()
 *     removes the current database's edges whose function does not exist
 *     (stale_removed), because the postmaster cannot read catalogs when it
 *     saves the table;
 *   - cgmap_trace_edges() shows a role only the edges of the databases it
 *     may connect to, unless it is a superuser or in pg_read_all_stats.
 *
 * Persistence
 * -----------
 * With cgmap_trace.save = on, the postmaster writes the table to
 * PGDATA/pg_stat/cgmap_trace.stat (via a temporary file and a durable rename)
 * from an on_shmem_exit callback at clean shutdown, and reads it back (then
 * removes it) when shared memory is created at the next start.  File format
 * 3 adds the caller's body version to each key, format 2 the policy
 * counters; formats 1 and 2 are still read (their edges' body is unknown).
 *
 * Copyright (c) 2026, the cgmap authors.  PostgreSQL License.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_database.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "plpgsql.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <x86intrin.h>
#define CGT_HAVE_RDTSC 1
#endif

PG_MODULE_MAGIC;

#define CGT_DUMP_FILE		PGSTAT_STAT_PERMANENT_DIRECTORY "/cgmap_trace.stat"
#define CGT_DUMP_TMP		CGT_DUMP_FILE ".tmp"
#define CGT_FILE_MAGIC		0x43474d54	/* "CGMT" */
#define CGT_FILE_VERSION	3	/* 2: keys without the caller's body version;
								 * 1: also without the eviction counters */

/*
 * Upper limit of cgmap_trace.max_edges: about 100 MB of shared memory.  A
 * call graph is bounded by the functions that exist; a table this large is
 * not needed for any code base, and a typo must not ask for gigabytes.
 */
#define CGT_MAX_EDGES_LIMIT	1000000

/* A full table evicts this share of its least recently seen edges. */
#define CGT_EVICT_PERCENT	5

/* ---- shared structures ---- */

typedef struct cgtKey
{
	Oid			dbid;
	Oid			caller;			/* InvalidOid for an entry point */
	Oid			callee;
	int32		line;			/* caller's statement line, 0 if unknown */
	bool		dynamic;		/* call made by a dynamic EXECUTE-like stmt */
	uint64		body;			/* version of the caller's body (cgt_body_hash
								 * of its prosrc), 0 for an entry point */
	/* padding is always zeroed: the key is hashed as a blob */
} cgtKey;

/* The key of file formats 1 and 2 (before the body version), read only. */
typedef struct cgtKeyV2
{
	Oid			dbid;
	Oid			caller;
	Oid			callee;
	int32		line;
	bool		dynamic;
} cgtKeyV2;

typedef struct cgtCounters
{
	int64		calls;
	double		total_ms;		/* inclusive time */
	double		self_ms;		/* exclusive time */
	TimestampTz first_seen;
	TimestampTz last_seen;
} cgtCounters;

typedef struct cgtEntry
{
	cgtKey		key;			/* hash key, must be first */
	slock_t		mutex;			/* protects counters */
	cgtCounters counters;
} cgtEntry;

typedef struct cgtShared
{
	LWLock	   *lock;			/* protects the hash table (see banner) */
	slock_t		mutex;			/* protects since */
	TimestampTz since;			/* last reset, or first start */
	pg_atomic_uint64 dropped;	/* calls not recorded: no room */
	pg_atomic_uint64 reset_gen;	/* bumped by every reset */
	pg_atomic_uint64 evictions; /* edges evicted to make room */
	pg_atomic_uint64 evicted_calls; /* the calls those edges had counted */
	pg_atomic_uint64 temp_skipped;	/* calls of/from temporary functions */
	pg_atomic_uint64 stale_removed; /* edges of dropped functions removed */
	cgtEntry  **evict_buf;		/* max_edges pointers, for eviction */
} cgtShared;

/* ---- per-backend call stack ---- */

typedef struct cgtFrame
{
	const void *ident;			/* PL/pgSQL estate, or our fmgr cache */
	Oid			fn_oid;			/* InvalidOid for a DO block */
	bool		is_plpgsql;
	bool		fn_temp;		/* the function is in a temporary schema */
	bool		skip;			/* callee or caller temporary: not recorded */
	bool		dynamic;		/* site of this call in the caller */
	int32		line;
	Oid			caller;
	uint64		caller_body;	/* the caller frame's body version */
	uint64		body;			/* this function's body version, once known */
	bool		body_known;		/* body is set (looked up when it first calls) */
	uint64		start;			/* cgt_clock() ticks */
	uint64		children;		/* inclusive ticks of callees */
} cgtFrame;

/*
 * Backend-local aggregation of finished calls, flushed into the shared table
 * at the end of every transaction (also the COMMIT/ROLLBACK of a procedure),
 * when it is 3/4 full, when its oldest call is over a second old, before
 * this backend reads the table, and at backend exit.  One flush takes the
 * shared lock once for all the edges of a transaction instead of once per
 * call.  Open addressing, linear probing, never allocates.
 */
#define CGT_LOCAL_SIZE		512	/* power of two */
#define CGT_LOCAL_MAXFILL	384
#define CGT_FLUSH_USEC		1000000

typedef struct cgtLocalEntry
{
	cgtKey		key;
	bool		used;
	int64		calls;
	uint64		total;			/* ticks */
	uint64		self;
	uint64		first;			/* cgt_clock() of the first and last call */
	uint64		last;
} cgtLocalEntry;

/* per FmgrInfo state of the fmgr hook (lives in flinfo->fn_mcxt) */
typedef struct cgtFnCache
{
	Datum		prev_arg;		/* the private slot handed to a chained hook */
	bool		traced;
	bool		temp;			/* in a temporary schema */
} cgtFnCache;

/* ---- settings ---- */

typedef enum
{
	CGT_TRACK_PLPGSQL,
	CGT_TRACK_ALL
} cgtTrack;

static const struct config_enum_entry cgt_track_options[] = {
	{"plpgsql", CGT_TRACK_PLPGSQL, false},
	{"all", CGT_TRACK_ALL, false},
	{NULL, 0, false}
};

static bool cgt_enabled = true;
static int	cgt_max_edges = 10000;
static int	cgt_track = CGT_TRACK_PLPGSQL;
static bool cgt_save = true;

/* ---- state ---- */

static cgtShared *cgt_state = NULL;
static HTAB *cgt_hash = NULL;

static cgtLocalEntry cgt_local[CGT_LOCAL_SIZE];
static int	cgt_local_used = 0;
static uint16 cgt_local_slots[CGT_LOCAL_MAXFILL];	/* used slots, in order */
static uint64 cgt_local_gen = 0;	/* reset_gen when the batch began */
static uint64 cgt_local_oldest;	/* when the batch began */
static uint64 cgt_local_temp_skipped = 0;	/* calls not recorded: temporary */
static bool cgt_exit_registered = false;

/*
 * Cursors opened by OPEN statements, newest last: a cursor's query runs when
 * rows are fetched, so a call made while a FETCH/MOVE of the same function
 * reads a cursor is attributed to the OPEN that opened it (and is dynamic
 * for OPEN ... FOR EXECUTE), where the static analysis sees the query.
 */
#define CGT_CURSORS 32

typedef struct cgtCursor
{
	Oid			fn_oid;
	int32		line;
	bool		dynamic;
	int			namelen;
	char		name[NAMEDATALEN];
} cgtCursor;

static cgtCursor cgt_cursors[CGT_CURSORS];
static int	cgt_cursor_next = 0;

static cgtFrame *cgt_stack = NULL;
static int	cgt_depth = 0;
static int	cgt_capacity = 0;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static needs_fmgr_hook_type prev_needs_fmgr_hook = NULL;
static fmgr_hook_type prev_fmgr_hook = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

static PLpgSQL_plugin **cgt_plugin_ptr = NULL;

/*
 * plpgsql_exec_error_callback: identifies live PL/pgSQL invocations on the
 * error context stack.  Learnt from the first func_beg (the innermost entry
 * then is the new invocation's own), so it does not depend on a plugin
 * chained in front of us handing on plugin->error_callback.
 */
static void (*cgt_plpgsql_errcb) (void *arg) = NULL;
static PLpgSQL_plugin *prev_plugin = NULL;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(cgmap_trace_edges);
PG_FUNCTION_INFO_V1(cgmap_trace_reset);
PG_FUNCTION_INFO_V1(cgmap_trace_info);

static void cgt_func_setup(PLpgSQL_execstate *estate, PLpgSQL_function *func);
static void cgt_func_beg(PLpgSQL_execstate *estate, PLpgSQL_function *func);
static void cgt_func_end(PLpgSQL_execstate *estate, PLpgSQL_function *func);
static void cgt_stmt_beg(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt);
static void cgt_stmt_end(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt);
static uint64 cgt_fn_body(Oid fn_oid);

static PLpgSQL_plugin cgt_plugin = {
	NULL,						/* func_setup: set in _PG_init if chaining */
	cgt_func_beg,
	cgt_func_end,
	NULL,						/* stmt_beg: only to forward */
	NULL,						/* stmt_end: set in _PG_init */
	NULL, NULL, NULL, NULL, NULL	/* filled in by PL/pgSQL */
};

/* ====================================================================
 * Clock
 *
 * Two clock reads per call are most of the cost of tracing.  Where the
 * kernel itself trusts the TSC (clocksource "tsc": invariant and
 * synchronized across CPUs) we read it directly, which is several times
 * cheaper than clock_gettime() under virtualization; the tick rate is
 * calibrated against CLOCK_MONOTONIC once, in the postmaster, and inherited
 * by every backend.  Elsewhere a tick is a nanosecond of CLOCK_MONOTONIC.
 * ==================================================================== */

static bool cgt_use_tsc = false;
static double cgt_ticks_per_usec = 1000.0;	/* nanoseconds by default */
static uint64 cgt_flush_ticks = (uint64) CGT_FLUSH_USEC * 1000;	/* batch age limit */

static inline uint64
cgt_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * UINT64CONST(1000000000) + (uint64) ts.tv_nsec;
}

static inline uint64
cgt_clock(void)
{
#ifdef CGT_HAVE_RDTSC
	if (cgt_use_tsc)
		return __rdtsc();
#endif
	return cgt_monotonic_ns();
}

static inline double
cgt_ticks_ms(uint64 ticks)
{
	return (double) ticks / (cgt_ticks_per_usec * 1000.0);
}

static inline int64
cgt_ticks_usec(uint64 ticks)
{
	return (int64) ((double) ticks / cgt_ticks_per_usec);
}

static void
cgt_clock_init(void)
{
#ifdef CGT_HAVE_RDTSC
	unsigned int eax,
				ebx,
				ecx,
				edx;
	FILE	   *f;
	char		source[32] = "";
	uint64		t0,
				t1;
	uint64		c0,
				c1;

	/* invariant TSC (CPUID 0x80000007, EDX bit 8) ... */
	if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) == 0 ||
		(edx & (1U << 8)) == 0)
		return;
	/* ... that the kernel found good enough to be its clock */
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f == NULL)
		return;
	if (fgets(source, sizeof(source), f) == NULL)
		source[0] = '\0';
	fclose(f);
	if (strncmp(source, "tsc", 3) != 0 || (source[3] != '\n' && source[3] != '\0'))
		return;

	/* calibrate over 20 ms */
	t0 = cgt_monotonic_ns();
	c0 = __rdtsc();
	do
		t1 = cgt_monotonic_ns();
	while (t1 - t0 < 20000000);
	c1 = __rdtsc();
	t1 = cgt_monotonic_ns();
	if (c1 <= c0 || t1 <= t0)
		return;
	cgt_ticks_per_usec = (double) (c1 - c0) / (double) (t1 - t0) * 1000.0;
	/* sanity: between 100 MHz and 10 GHz */
	if (cgt_ticks_per_usec < 100.0 || cgt_ticks_per_usec > 10000.0)
	{
		cgt_ticks_per_usec = 1000.0;
		return;
	}
	cgt_use_tsc = true;
	cgt_flush_ticks = (uint64) (CGT_FLUSH_USEC * cgt_ticks_per_usec);
#endif
}

/* ====================================================================
 * Shared memory
 * ==================================================================== */

static Size
cgt_memsize(void)
{
	Size		size;

	size = MAXALIGN(sizeof(cgtShared));
	size = add_size(size, MAXALIGN(mul_size(cgt_max_edges, sizeof(cgtEntry *))));
	size = add_size(size, hash_estimate_size(cgt_max_edges, sizeof(cgtEntry)));
	return size;
}

static void
cgt_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(cgt_memsize());
	RequestNamedLWLockTranche("cgmap_trace", 1);
}

/*
 * Reorder a[0..n-1] so that its k (1 <= k <= n) least recently seen entries
 * come first (quickselect on last_seen, in place, no allocation).
 */
static void
cgt_select_oldest(cgtEntry **a, int n, int k)
{
	int			lo = 0;
	int			hi = n - 1;

	while (lo < hi)
	{
		TimestampTz pivot = a[lo + (hi - lo) / 2]->counters.last_seen;
		int			i = lo;
		int			j = hi;

		while (i <= j)
		{
			while (a[i]->counters.last_seen < pivot)
				i++;
			while (a[j]->counters.last_seen > pivot)
				j--;
			if (i <= j)
			{
				cgtEntry   *t = a[i];

				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		/* now a[lo..j] <= pivot <= a[i..hi], and j < i */
		if (k - 1 <= j)
			hi = j;
		else if (k - 1 >= i)
			lo = i;
		else
			break;
	}
}

/*
 * The table is full: remove its CGT_EVICT_PERCENT least recently seen edges
 * (at least one), as pg_stat_statements deallocates its least used entries,
 * so that a new edge always finds room and nobody can freeze the table by
 * filling it.  Caller holds the lock exclusively (so no counter moves).
 * Uses the buffer reserved in shared memory: no allocation, no error.
 */
static void
cgt_evict(void)
{
	cgtEntry  **buf = cgt_state->evict_buf;
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;
	int			n = 0;
	int			k;
	int			i;
	uint64		calls = 0;

	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (n >= cgt_max_edges)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		buf[n++] = entry;
	}
	if (n == 0)
		return;
	k = Max(1, n * CGT_EVICT_PERCENT / 100);
	cgt_select_oldest(buf, n, k);
	for (i = 0; i < k; i++)
	{
		calls += (uint64) buf[i]->counters.calls;
		hash_search(cgt_hash, &buf[i]->key, HASH_REMOVE, NULL);
	}
	pg_atomic_fetch_add_u64(&cgt_state->evictions, (uint64) k);
	pg_atomic_fetch_add_u64(&cgt_state->evicted_calls, calls);
}

/*
 * Insert (or find) an entry, evicting the least recently seen edges when
 * the table is full; caller holds the lock exclusively.  NULL only if the
 * hash itself has no room left, which eviction should prevent.
 */
static cgtEntry *
cgt_entry_alloc(const cgtKey *key)
{
	cgtEntry   *entry;
	bool		found;

	if (hash_get_num_entries(cgt_hash) >= cgt_max_edges)
	{
		entry = hash_search(cgt_hash, key, HASH_FIND, NULL);
		if (entry != NULL)
			return entry;
		cgt_evict();
	}
	entry = hash_search(cgt_hash, key, HASH_ENTER_NULL, &found);
	if (entry != NULL && !found)
	{
		SpinLockInit(&entry->mutex);
		memset(&entry->counters, 0, sizeof(entry->counters));
	}
	return entry;
}

static void
cgt_load_file(void)
{
	FILE	   *file;
	uint32		header[2];
	TimestampTz since;
	uint64		dropped;
	uint64		totals[4] = {0, 0, 0, 0};	/* evictions, evicted_calls,
												 * temp_skipped, stale_removed */
	int32		num;
	int32		i;

	file = AllocateFile(CGT_DUMP_FILE, PG_BINARY_R);
	if (file == NULL)
	{
		if (errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("cgmap_trace: could not read file \"%s\": %m",
							CGT_DUMP_FILE)));
		return;
	}

	/*
	 * versions 1 (before the eviction counters) and 2 (before the body
	 * version in the key: its edges get body 0, "unknown") are read too
	 */
	if (fread(header, sizeof(header), 1, file) != 1 ||
		header[0] != CGT_FILE_MAGIC ||
		header[1] < 1 || header[1] > CGT_FILE_VERSION ||
		fread(&since, sizeof(since), 1, file) != 1 ||
		fread(&dropped, sizeof(dropped), 1, file) != 1 ||
		(header[1] >= 2 && fread(totals, sizeof(totals), 1, file) != 1) ||
		fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		goto bad_file;

	for (i = 0; i < num; i++)
	{
		cgtKey		key;
		cgtCounters counters;
		cgtEntry   *entry;

		if (header[1] >= 3)
		{
			if (fread(&key, sizeof(key), 1, file) != 1)
				goto bad_file;
		}
		else
		{
			cgtKeyV2	old;

			if (fread(&old, sizeof(old), 1, file) != 1)
				goto bad_file;
			memset(&key, 0, sizeof(key));
			key.dbid = old.dbid;
			key.caller = old.caller;
			key.callee = old.callee;
			key.line = old.line;
			key.dynamic = old.dynamic;
		}
		if (fread(&counters, sizeof(counters), 1, file) != 1)
			goto bad_file;

		/* if max_edges was lowered, the oldest edges are evicted */
		entry = cgt_entry_alloc(&key);
		if (entry == NULL)
		{
			dropped += counters.calls;
			continue;
		}
		entry->counters = counters;
	}

	cgt_state->since = since;
	pg_atomic_write_u64(&cgt_state->dropped, dropped);
	pg_atomic_fetch_add_u64(&cgt_state->evictions, totals[0]);
	pg_atomic_fetch_add_u64(&cgt_state->evicted_calls, totals[1]);
	pg_atomic_write_u64(&cgt_state->temp_skipped, totals[2]);
	pg_atomic_write_u64(&cgt_state->stale_removed, totals[3]);
	FreeFile(file);
	unlink(CGT_DUMP_FILE);
	return;

bad_file:
	ereport(LOG,
			(errmsg("cgmap_trace: ignoring invalid file \"%s\"", CGT_DUMP_FILE)));
	FreeFile(file);
	unlink(CGT_DUMP_FILE);
}

/* on_shmem_exit callback of the postmaster: dump the table at shutdown. */
static void
cgt_shmem_shutdown(int code, Datum arg)
{
	FILE	   *file;
	uint32		header[2] = {CGT_FILE_MAGIC, CGT_FILE_VERSION};
	uint64		dropped;
	uint64		totals[4];
	int32		num;
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;

	/* Don't dump after a crash, nor when there is nothing to dump. */
	if (code != 0 || cgt_state == NULL || cgt_hash == NULL)
		return;
	if (!cgt_save)
		return;

	file = AllocateFile(CGT_DUMP_TMP, PG_BINARY_W);
	if (file == NULL)
		goto error;

	dropped = pg_atomic_read_u64(&cgt_state->dropped);
	totals[0] = pg_atomic_read_u64(&cgt_state->evictions);
	totals[1] = pg_atomic_read_u64(&cgt_state->evicted_calls);
	totals[2] = pg_atomic_read_u64(&cgt_state->temp_skipped);
	totals[3] = pg_atomic_read_u64(&cgt_state->stale_removed);
	num = (int32) hash_get_num_entries(cgt_hash);
	if (fwrite(header, sizeof(header), 1, file) != 1 ||
		fwrite(&cgt_state->since, sizeof(TimestampTz), 1, file) != 1 ||
		fwrite(&dropped, sizeof(dropped), 1, file) != 1 ||
		fwrite(totals, sizeof(totals), 1, file) != 1 ||
		fwrite(&num, sizeof(num), 1, file) != 1)
		goto error;

	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (fwrite(&entry->key, sizeof(cgtKey), 1, file) != 1 ||
			fwrite(&entry->counters, sizeof(cgtCounters), 1, file) != 1)
		{
			hash_seq_term(&hash_seq);
			goto error;
		}
	}

	if (FreeFile(file))
	{
		file = NULL;
		goto error;
	}
	(void) durable_rename(CGT_DUMP_TMP, CGT_DUMP_FILE, LOG);
	return;

error:
	ereport(LOG,
			(errcode_for_file_access(),
			 errmsg("cgmap_trace: could not write file \"%s\": %m",
					CGT_DUMP_TMP)));
	if (file)
		FreeFile(file);
	unlink(CGT_DUMP_TMP);
}

static void
cgt_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	cgt_state = NULL;
	cgt_hash = NULL;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	cgt_state = ShmemInitStruct("cgmap_trace", sizeof(cgtShared), &found);
	if (!found)
	{
		cgt_state->lock = &(GetNamedLWLockTranche("cgmap_trace"))->lock;
		SpinLockInit(&cgt_state->mutex);
		cgt_state->since = GetCurrentTimestamp();
		pg_atomic_init_u64(&cgt_state->dropped, 0);
		pg_atomic_init_u64(&cgt_state->reset_gen, 0);
		pg_atomic_init_u64(&cgt_state->evictions, 0);
		pg_atomic_init_u64(&cgt_state->evicted_calls, 0);
		pg_atomic_init_u64(&cgt_state->temp_skipped, 0);
		pg_atomic_init_u64(&cgt_state->stale_removed, 0);
		cgt_state->evict_buf = NULL;
	}
	if (cgt_state->evict_buf == NULL)
	{
		bool		found_buf;

		cgt_state->evict_buf = ShmemInitStruct("cgmap_trace evict",
											   mul_size(cgt_max_edges, sizeof(cgtEntry *)),
											   &found_buf);
	}

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtKey);
	info.entrysize = sizeof(cgtEntry);
	cgt_hash = ShmemInitHash("cgmap_trace hash",
							 cgt_max_edges, cgt_max_edges,
							 &info,
							 HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	LWLockRelease(AddinShmemInitLock);

	/* The postmaster dumps the table when it exits cleanly. */
	if (!IsUnderPostmaster)
		on_shmem_exit(cgt_shmem_shutdown, (Datum) 0);

	if (found)
		return;

	if (cgt_save)
		cgt_load_file();
	else
		unlink(CGT_DUMP_FILE);

	/* Tell the administrator when a later library took the plugin slot. */
	if (!IsUnderPostmaster && cgt_plugin_ptr && *cgt_plugin_ptr != &cgt_plugin)
		ereport(LOG,
				(errmsg("cgmap_trace: the PL/pgSQL plugin slot was taken by a library loaded after cgmap_trace"),
				 errhint("PL/pgSQL calls are traced only if that library chains to earlier plugins; list cgmap_trace last in shared_preload_libraries.")));
}

/* ====================================================================
 * Recording
 * ==================================================================== */

/* Add one batch entry to the shared table; lock held (shared or exclusive). */
static inline void
cgt_entry_add(cgtEntry *entry, const cgtLocalEntry *le,
			  TimestampTz now_ts, uint64 now_c)
{
	TimestampTz first;
	TimestampTz last;

	first = now_ts - (now_c > le->first ? cgt_ticks_usec(now_c - le->first) : 0);
	last = now_ts - (now_c > le->last ? cgt_ticks_usec(now_c - le->last) : 0);

	SpinLockAcquire(&entry->mutex);
	if (entry->counters.calls == 0 || first < entry->counters.first_seen)
		entry->counters.first_seen = first;
	if (entry->counters.calls == 0 || last > entry->counters.last_seen)
		entry->counters.last_seen = last;
	entry->counters.calls += le->calls;
	entry->counters.total_ms += cgt_ticks_ms(le->total);
	entry->counters.self_ms += cgt_ticks_ms(le->self);
	SpinLockRelease(&entry->mutex);
}

/*
 * Move this backend's batch into the shared table.  Never raises an error:
 * it runs from transaction callbacks too.
 */
static void
cgt_flush(void)
{
	TimestampTz now_ts;
	uint64		now_c;
	int			i;
	int			missing = 0;

	if (cgt_local_temp_skipped > 0 && cgt_state != NULL)
	{
		pg_atomic_fetch_add_u64(&cgt_state->temp_skipped, cgt_local_temp_skipped);
		cgt_local_temp_skipped = 0;
	}
	if (cgt_local_used == 0)
		return;
	if (cgt_hash == NULL)
		goto clear;

	now_ts = GetCurrentTimestamp();
	now_c = cgt_clock();

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	/* calls counted before a reset are forgotten with it */
	if (pg_atomic_read_u64(&cgt_state->reset_gen) != cgt_local_gen)
	{
		LWLockRelease(cgt_state->lock);
		goto clear;
	}
	for (i = 0; i < cgt_local_used; i++)
	{
		cgtLocalEntry *le = &cgt_local[cgt_local_slots[i]];
		cgtEntry   *entry;

		entry = hash_search(cgt_hash, &le->key, HASH_FIND, NULL);
		if (entry == NULL)
		{
			missing++;
			continue;
		}
		cgt_entry_add(entry, le, now_ts, now_c);
		le->calls = 0;			/* done */
	}
	LWLockRelease(cgt_state->lock);

	if (missing > 0)
	{
		/* new edges: insert them under the exclusive lock */
		LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
		if (pg_atomic_read_u64(&cgt_state->reset_gen) == cgt_local_gen)
		{
			for (i = 0; i < cgt_local_used; i++)
			{
				cgtLocalEntry *le = &cgt_local[cgt_local_slots[i]];
				cgtEntry   *entry;

				if (le->calls == 0)
					continue;	/* flushed in the first pass */
				entry = cgt_entry_alloc(&le->key);
				if (entry == NULL)
					pg_atomic_fetch_add_u64(&cgt_state->dropped, (uint64) le->calls);
				else
					cgt_entry_add(entry, le, now_ts, now_c);
			}
		}
		LWLockRelease(cgt_state->lock);
	}

clear:
	for (i = 0; i < cgt_local_used; i++)
		cgt_local[cgt_local_slots[i]].used = false;
	cgt_local_used = 0;
}

static void
cgt_backend_exit(int code, Datum arg)
{
	cgt_flush();
}

static inline uint32
cgt_key_hash(const cgtKey *key)
{
	uint32		h;

	h = key->callee * 0x9E3779B1U;
	h ^= key->caller * 0x85EBCA77U;
	h ^= ((uint32) key->line + (key->dynamic ? 0x40000000U : 0)) * 0xC2B2AE3DU;
	h ^= key->dbid;
	h ^= (uint32) key->body ^ (uint32) (key->body >> 32);
	h ^= h >> 15;
	h *= 0x2C1B3C6DU;
	h ^= h >> 12;
	return h;
}

static inline bool
cgt_key_equal(const cgtKey *a, const cgtKey *b)
{
	return a->callee == b->callee && a->caller == b->caller &&
		a->line == b->line && a->dynamic == b->dynamic && a->dbid == b->dbid &&
		a->body == b->body;
}

/* Count one finished call in this backend's batch. */
static void
cgt_record(const cgtKey *key, uint64 total, uint64 self, uint64 end)
{
	uint32		i;
	cgtLocalEntry *le;

	if (cgt_hash == NULL)
		return;

	if (cgt_local_used == 0)
	{
		cgt_local_gen = pg_atomic_read_u64(&cgt_state->reset_gen);
		cgt_local_oldest = end;
		if (!cgt_exit_registered)
		{
			before_shmem_exit(cgt_backend_exit, (Datum) 0);
			cgt_exit_registered = true;
		}
	}

	i = cgt_key_hash(key) & (CGT_LOCAL_SIZE - 1);
	for (;;)
	{
		le = &cgt_local[i];
		if (!le->used)
		{
			memcpy(&le->key, key, sizeof(cgtKey));	/* padding too: a blob key */
			le->used = true;
			le->calls = 0;
			le->total = 0;
			le->self = 0;
			le->first = end;
			cgt_local_slots[cgt_local_used++] = (uint16) i;
			break;
		}
		if (cgt_key_equal(&le->key, key))
			break;
		i = (i + 1) & (CGT_LOCAL_SIZE - 1);
	}
	le->calls++;
	le->total += total;
	le->self += self;
	le->last = end;

	if (cgt_local_used >= CGT_LOCAL_MAXFILL)
		cgt_flush();
	else if (end - cgt_local_oldest >= cgt_flush_ticks && end > cgt_local_oldest)
		cgt_flush();
}

/* ====================================================================
 * Per-backend call stack
 * ==================================================================== */

static inline bool
cgt_stmt_is_dynamic(const PLpgSQL_stmt *stmt)
{
	switch (stmt->cmd_type)
	{
		case PLPGSQL_STMT_DYNEXECUTE:
		case PLPGSQL_STMT_DYNFORS:
			return true;
		case PLPGSQL_STMT_OPEN:
			return ((const PLpgSQL_stmt_open *) stmt)->dynquery != NULL;
		case PLPGSQL_STMT_RETURN_QUERY:
			return ((const PLpgSQL_stmt_return_query *) stmt)->dynquery != NULL;
		default:
			return false;
	}
}

/* The portal name held by a PL/pgSQL refcursor variable, without copying. */
static bool
cgt_cursor_name(const PLpgSQL_execstate *estate, int dno,
				const char **name, int *len)
{
	const PLpgSQL_var *var;
	const struct varlena *t;

	if (dno < 0 || dno >= estate->ndatums)
		return false;
	var = (const PLpgSQL_var *) estate->datums[dno];
	if (var == NULL || var->dtype != PLPGSQL_DTYPE_VAR || var->isnull)
		return false;
	t = (const struct varlena *) DatumGetPointer(var->value);
	if (VARATT_IS_EXTENDED(t) && !VARATT_IS_SHORT(t))
		return false;			/* never the case for a portal name */
	*name = VARDATA_ANY(t);
	*len = VARSIZE_ANY_EXHDR(t);
	return *len < NAMEDATALEN;
}

/* Declaration line of a bound cursor variable (its query is there), or 0. */
static int32
cgt_bound_cursor_line(const PLpgSQL_execstate *estate, int dno)
{
	const PLpgSQL_var *var;

	if (dno < 0 || dno >= estate->ndatums)
		return 0;
	var = (const PLpgSQL_var *) estate->datums[dno];
	if (var == NULL || var->dtype != PLPGSQL_DTYPE_VAR ||
		var->cursor_explicit_expr == NULL)
		return 0;
	return var->lineno;
}

/* A call made by a FETCH/MOVE: use the site of the OPEN of that cursor. */
static void
cgt_fetch_site(cgtFrame *frame, const cgtFrame *parent,
			   const PLpgSQL_execstate *estate, int curvar)
{
	const char *name;
	int			len;
	int			i;

	if (!cgt_cursor_name(estate, curvar, &name, &len))
		return;
	for (i = 1; i <= CGT_CURSORS; i++)
	{
		const cgtCursor *c = &cgt_cursors[(cgt_cursor_next - i + CGT_CURSORS) % CGT_CURSORS];

		if (c->fn_oid == parent->fn_oid && c->namelen == len &&
			OidIsValid(c->fn_oid) && memcmp(c->name, name, len) == 0)
		{
			frame->line = c->line;
			frame->dynamic = c->dynamic;
			return;
		}
	}
}

/* Push a frame; the call site comes from the frame below. */
static void
cgt_push(const void *ident, Oid fn_oid, bool is_plpgsql, bool fn_temp)
{
	cgtFrame   *frame;

	if (cgt_depth >= cgt_capacity)
	{
		int			newcap = cgt_capacity > 0 ? cgt_capacity * 2 : 64;
		cgtFrame   *newstack;

		/* Never fail the user's query for our bookkeeping. */
		newstack = MemoryContextAllocExtended(TopMemoryContext,
											  sizeof(cgtFrame) * newcap,
											  MCXT_ALLOC_NO_OOM);
		if (newstack == NULL)
			return;
		if (cgt_stack)
		{
			memcpy(newstack, cgt_stack, sizeof(cgtFrame) * cgt_depth);
			pfree(cgt_stack);
		}
		cgt_stack = newstack;
		cgt_capacity = newcap;
	}

	frame = &cgt_stack[cgt_depth];
	frame->ident = ident;
	frame->fn_oid = fn_oid;
	frame->is_plpgsql = is_plpgsql;
	frame->fn_temp = fn_temp;
	frame->skip = fn_temp;
	frame->caller = InvalidOid;
	frame->caller_body = 0;
	frame->body = 0;
	frame->body_known = false;
	frame->line = 0;
	frame->dynamic = false;
	if (cgt_depth > 0)
	{
		cgtFrame   *parent = &cgt_stack[cgt_depth - 1];

		frame->caller = parent->fn_oid;
		if (!parent->body_known)
		{
			/* looked up once per frame that calls, from a per-backend cache */
			parent->body = cgt_fn_body(parent->fn_oid);
			parent->body_known = true;
		}
		frame->caller_body = parent->body;
		if (parent->fn_temp)
			frame->skip = true;
		if (parent->is_plpgsql && OidIsValid(parent->fn_oid))
		{
			const PLpgSQL_stmt *stmt =
			((const PLpgSQL_execstate *) parent->ident)->err_stmt;

			if (stmt != NULL)
			{
				frame->line = stmt->lineno;
				frame->dynamic = cgt_stmt_is_dynamic(stmt);
				if (stmt->cmd_type == PLPGSQL_STMT_FETCH)
					cgt_fetch_site(frame, parent,
								   (const PLpgSQL_execstate *) parent->ident,
								   ((const PLpgSQL_stmt_fetch *) stmt)->curvar);
				else if (stmt->cmd_type == PLPGSQL_STMT_FORC)
				{
					/* FOR rec IN bound_cursor: the query is at its DECLARE */
					int32		decl = cgt_bound_cursor_line((const PLpgSQL_execstate *) parent->ident,
															 ((const PLpgSQL_stmt_forc *) stmt)->curvar);

					if (decl > 0)
						frame->line = decl;
				}
			}
		}
	}
	frame->children = 0;
	frame->start = cgt_clock();
	cgt_depth++;
}

/* Pop frames down to (and including) index 'target', recording each. */
static void
cgt_pop_to(int target)
{
	uint64		now = cgt_clock();

	while (cgt_depth > target)
	{
		cgtFrame   *frame = &cgt_stack[cgt_depth - 1];
		uint64		total = now > frame->start ? now - frame->start : 0;
		uint64		self = total > frame->children ? total - frame->children : 0;

		if (cgt_depth > 1)
			cgt_stack[cgt_depth - 2].children += total;

		if (frame->skip)
		{
			/* a temporary function is the caller or the callee */
			if (cgt_local_temp_skipped == 0 && !cgt_exit_registered)
			{
				before_shmem_exit(cgt_backend_exit, (Datum) 0);
				cgt_exit_registered = true;
			}
			cgt_local_temp_skipped++;
		}
		else if (OidIsValid(frame->fn_oid))
		{
			cgtKey		key;

			memset(&key, 0, sizeof(key));
			key.dbid = MyDatabaseId;
			key.caller = frame->caller;
			key.callee = frame->fn_oid;
			key.line = frame->line;
			key.dynamic = frame->dynamic;
			key.body = frame->caller_body;
			cgt_record(&key, total, self, now);
		}
		cgt_depth--;
	}
}

/*
 * Position of a PL/pgSQL estate in the live error context stack, counting
 * from the innermost entry (0), or -1 when it is not alive.
 */
static int
cgt_live_position(const void *estate)
{
	ErrorContextCallback *ecxt;
	int			pos = 0;

	for (ecxt = error_context_stack; ecxt != NULL; ecxt = ecxt->previous)
	{
		if (ecxt->callback == cgt_plpgsql_errcb)
		{
			if (ecxt->arg == estate)
				return pos;
			pos++;
		}
	}
	return -1;
}

/*
 * Drop the frames of invocations that are no longer alive.  Frames are
 * alive while their PL/pgSQL estate is on the error context stack, in the
 * same order.  Everything above the first dead PL/pgSQL frame is dead too.
 */
static void
cgt_reconcile(void)
{
	int			i;
	int			prev_pos = INT_MAX;

	if (cgt_depth == 0)
		return;
	if (error_context_stack == NULL)
	{
		/* top-level error recovery: nothing of ours is alive any more */
		cgt_pop_to(0);
		return;
	}

	for (i = 0; i < cgt_depth; i++)
	{
		int			pos;

		if (!cgt_stack[i].is_plpgsql)
			continue;
		pos = cgt_live_position(cgt_stack[i].ident);
		if (pos < 0 || pos >= prev_pos)
		{
			cgt_pop_to(i);
			return;
		}
		prev_pos = pos;
	}
}

/*
 * Before pushing a frame: check that the innermost PL/pgSQL frame we have is
 * the innermost live PL/pgSQL invocation (other than 'self', the one
 * starting); if not, a callee errored out without our noticing yet.  Cheap:
 * a few pointer hops down the error context stack.
 */
static void
cgt_check_stack(const void *self)
{
	ErrorContextCallback *ecxt;
	const void *live_parent = NULL;
	int			i;

	for (i = cgt_depth - 1; i >= 0; i--)
		if (cgt_stack[i].is_plpgsql)
			break;
	if (i < 0)
		return;					/* only fmgr frames: FHET_ABORT keeps them exact */

	for (ecxt = error_context_stack; ecxt != NULL; ecxt = ecxt->previous)
	{
		if (ecxt->callback == cgt_plpgsql_errcb && ecxt->arg != self)
		{
			live_parent = ecxt->arg;
			break;
		}
	}
	if (cgt_stack[i].ident != live_parent)
		cgt_reconcile();
}

/* ====================================================================
 * Temporary functions
 *
 * Edges whose caller or callee lives in a temporary schema are not
 * recorded (only counted in temp_skipped): such functions vanish with their
 * session, no static map has them, and any role with only CONNECT and TEMP
 * could otherwise create them by the thousand and fill the shared table.
 * Whether a function is temporary is cached per backend by OID (a direct-
 * mapped array, cleared by any pg_proc invalidation), so the catalog is
 * looked up once per function, not once per call.
 * ==================================================================== */

#define CGT_TEMP_CACHE 256		/* power of two */

typedef struct cgtTempCache
{
	Oid			fn_oid;
	bool		temp;
} cgtTempCache;

static cgtTempCache cgt_temp_cache[CGT_TEMP_CACHE];
static bool cgt_temp_cb_registered = false;

/* Body versions, cached the same way (see "Body versions" below). */
#define CGT_BODY_CACHE 256		/* power of two */

typedef struct cgtBodyCache
{
	Oid			fn_oid;
	uint64		body;
} cgtBodyCache;

static cgtBodyCache cgt_body_cache[CGT_BODY_CACHE];

static void
cgt_proc_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	memset(cgt_temp_cache, 0, sizeof(cgt_temp_cache));
	memset(cgt_body_cache, 0, sizeof(cgt_body_cache));
}

/* Any change of pg_proc (CREATE OR REPLACE, DROP) clears both caches. */
static void
cgt_register_proc_inval(void)
{
	if (!cgt_temp_cb_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, cgt_proc_inval, (Datum) 0);
		cgt_temp_cb_registered = true;
	}
}

/* Namespace test of a pg_proc row. */
static bool
cgt_proc_is_temp(Form_pg_proc procform)
{
	Oid			nsp = procform->pronamespace;

	if (isTempOrTempToastNamespace(nsp))
		return true;
	return nsp != PG_CATALOG_NAMESPACE && isAnyTempNamespace(nsp);
}

/* Is this function in a temporary schema?  Needs a valid transaction. */
static bool
cgt_fn_is_temp(Oid fn_oid)
{
	cgtTempCache *c = &cgt_temp_cache[fn_oid & (CGT_TEMP_CACHE - 1)];
	HeapTuple	proctup;
	bool		temp = false;

	if (likely(c->fn_oid == fn_oid && OidIsValid(fn_oid)))
		return c->temp;
	if (!OidIsValid(fn_oid) || fn_oid < FirstNormalObjectId)
		return false;
	cgt_register_proc_inval();
	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (HeapTupleIsValid(proctup))
	{
		temp = cgt_proc_is_temp((Form_pg_proc) GETSTRUCT(proctup));
		ReleaseSysCache(proctup);
	}
	c->fn_oid = fn_oid;
	c->temp = temp;
	return temp;
}

/* ====================================================================
 * Body versions
 *
 * Each edge records the version of its caller's body: the 64-bit FNV-1a
 * hash of the caller's pg_proc.prosrc, byte for byte (call-site lines
 * depend on the layout, so any change counts).  cgmap computes the same
 * hash of the body it maps; when they differ, the edge was seen against an
 * earlier body and its line means nothing in the mapped one.  The hash is
 * taken once per function per backend (a direct-mapped cache by OID,
 * cleared by any pg_proc invalidation, as the temporary-function cache),
 * when the function first calls another; a call costs an array lookup.
 * 0 means "no body known" (an entry point, a DO block).
 * ==================================================================== */

#define CGT_FNV_OFFSET	UINT64CONST(0xcbf29ce484222325)
#define CGT_FNV_PRIME	UINT64CONST(0x100000001b3)

static uint64
cgt_body_hash(const char *text, Size len)
{
	uint64		h = CGT_FNV_OFFSET;
	Size		i;

	for (i = 0; i < len; i++)
	{
		h ^= (unsigned char) text[i];
		h *= CGT_FNV_PRIME;
	}
	return h;
}

/* Version of function fn_oid's body, or 0.  Needs a valid transaction. */
static uint64
cgt_fn_body(Oid fn_oid)
{
	cgtBodyCache *c = &cgt_body_cache[fn_oid & (CGT_BODY_CACHE - 1)];
	HeapTuple	proctup;
	uint64		body = 0;

	if (!OidIsValid(fn_oid))
		return 0;
	if (likely(c->fn_oid == fn_oid))
		return c->body;
	cgt_register_proc_inval();
	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (HeapTupleIsValid(proctup))
	{
		bool		isnull;
		Datum		prosrc;

		prosrc = SysCacheGetAttr(PROCOID, proctup, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
		{
			struct varlena *raw = (struct varlena *) DatumGetPointer(prosrc);
			struct varlena *t = pg_detoast_datum_packed(raw);

			body = cgt_body_hash(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
			if (t != raw)
				pfree(t);
		}
		ReleaseSysCache(proctup);
	}
	c->fn_oid = fn_oid;
	c->body = body;
	return body;
}

/* The text form of a body version: 16 lowercase hex digits. */
static Datum
cgt_body_text(uint64 body)
{
	char		buf[17];

	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long) body);
	return CStringGetTextDatum(buf);
}

/* ====================================================================
 * Dropped functions and databases
 *
 * Edges of a function or database that no longer exists are removed, so
 * that they neither take room nor come back after a restart.  The
 * postmaster cannot read any catalog when it saves the table at shutdown,
 * so this happens earlier, in the backends that can:
 *   - an object_access_hook notes every function (of this database) and
 *     every database dropped by this backend's transaction; subtransaction
 *     aborts forget what they dropped, and at commit the edges of what the
 *     transaction dropped are removed from the shared table;
 *   - cgmap_trace_edges() checks the OIDs of the current database's edges
 *     against pg_proc and removes the edges whose function does not exist,
 *     even for a transaction still in progress (a dirty snapshot): this
 *     catches what the hook cannot see, e.g. a call flushed by another
 *     backend just after the drop committed, a function whose creating
 *     transaction rolled back after calling it, or a prepared transaction.
 * ==================================================================== */

typedef struct cgtDrop
{
	Oid			dbid;
	Oid			fn_oid;			/* InvalidOid: the whole database */
	SubTransactionId subid;
} cgtDrop;

static cgtDrop *cgt_drops = NULL;	/* in TopTransactionContext */
static int	cgt_ndrops = 0;
static int	cgt_drops_cap = 0;

static void
cgt_note_drop(Oid dbid, Oid fn_oid)
{
	if (cgt_ndrops >= cgt_drops_cap)
	{
		int			newcap = cgt_drops_cap > 0 ? cgt_drops_cap * 2 : 16;

		if (cgt_drops == NULL)
			cgt_drops = MemoryContextAlloc(TopTransactionContext,
										   sizeof(cgtDrop) * newcap);
		else
			cgt_drops = repalloc(cgt_drops, sizeof(cgtDrop) * newcap);
		cgt_drops_cap = newcap;
	}
	cgt_drops[cgt_ndrops].dbid = dbid;
	cgt_drops[cgt_ndrops].fn_oid = fn_oid;
	cgt_drops[cgt_ndrops].subid = GetCurrentSubTransactionId();
	cgt_ndrops++;
}

static void
cgt_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if (access != OAT_DROP || cgt_hash == NULL)
		return;
	if (classId == ProcedureRelationId)
	{
		/* temporary functions have no edges (and every session has some) */
		if (!cgt_fn_is_temp(objectId))
			cgt_note_drop(MyDatabaseId, objectId);
	}
	else if (classId == DatabaseRelationId)
		cgt_note_drop(objectId, InvalidOid);
}

static int
cgt_drop_cmp(const void *a, const void *b)
{
	const cgtDrop *x = (const cgtDrop *) a;
	const cgtDrop *y = (const cgtDrop *) b;

	if (x->dbid != y->dbid)
		return x->dbid < y->dbid ? -1 : 1;
	if (x->fn_oid != y->fn_oid)
		return x->fn_oid < y->fn_oid ? -1 : 1;
	return 0;
}

/* Was (dbid, fn_oid) dropped?  cgt_drops is sorted. */
static bool
cgt_dropped(Oid dbid, Oid fn_oid)
{
	int			lo = 0;
	int			hi = cgt_ndrops - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const cgtDrop *d = &cgt_drops[mid];

		if (d->dbid == dbid && d->fn_oid == fn_oid)
			return true;
		if (d->dbid < dbid || (d->dbid == dbid && d->fn_oid < fn_oid))
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/*
 * At commit: remove the edges of what this transaction dropped.  Runs in a
 * commit callback: no allocation, no error.
 */
static void
cgt_apply_drops(void)
{
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;
	uint64		removed = 0;

	if (cgt_ndrops == 0 || cgt_hash == NULL)
		return;
	qsort(cgt_drops, cgt_ndrops, sizeof(cgtDrop), cgt_drop_cmp);

	LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		const cgtKey *k = &entry->key;

		if (cgt_dropped(k->dbid, InvalidOid) ||
			cgt_dropped(k->dbid, k->callee) ||
			(OidIsValid(k->caller) && cgt_dropped(k->dbid, k->caller)))
		{
			hash_search(cgt_hash, &entry->key, HASH_REMOVE, NULL);
			removed++;
		}
	}
	if (removed > 0)
		pg_atomic_fetch_add_u64(&cgt_state->stale_removed, removed);
	LWLockRelease(cgt_state->lock);
}

/* The transaction is over: its list went with TopTransactionContext. */
static void
cgt_forget_drops(void)
{
	cgt_drops = NULL;
	cgt_ndrops = 0;
	cgt_drops_cap = 0;
}

static void
cgt_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	int			i;
	int			n;

	switch (event)
	{
		case SUBXACT_EVENT_ABORT_SUB:
			if (cgt_depth > 0)
				cgt_reconcile();
			/* what the aborted subtransaction dropped still exists */
			for (i = 0, n = 0; i < cgt_ndrops; i++)
				if (cgt_drops[i].subid < mySubid)
					cgt_drops[n++] = cgt_drops[i];
			cgt_ndrops = n;
			break;
		case SUBXACT_EVENT_COMMIT_SUB:
			for (i = 0; i < cgt_ndrops; i++)
				if (cgt_drops[i].subid == mySubid)
					cgt_drops[i].subid = parentSubid;
			break;
		default:
			break;
	}
}

static void
cgt_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			if (cgt_depth > 0)
				cgt_reconcile();
			cgt_flush();
			cgt_forget_drops();
			break;
		case XACT_EVENT_COMMIT:
			cgt_flush();
			cgt_apply_drops();
			cgt_forget_drops();
			break;
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			cgt_flush();
			cgt_forget_drops();
			break;
		default:
			break;
	}
}

/* ====================================================================
 * PL/pgSQL plugin
 * ==================================================================== */

static void
cgt_func_setup(PLpgSQL_execstate *estate, PLpgSQL_function *func)
{
	if (prev_plugin)
	{
		/* hand PL/pgSQL's helper pointers on to the chained plugin */
		prev_plugin->error_callback = cgt_plugin.error_callback;
		prev_plugin->assign_expr = cgt_plugin.assign_expr;
		prev_plugin->assign_value = cgt_plugin.assign_value;
		prev_plugin->eval_datum = cgt_plugin.eval_datum;
		prev_plugin->cast_value = cgt_plugin.cast_value;
		if (prev_plugin->func_setup)
			prev_plugin->func_setup(estate, func);
	}
}

static void
cgt_func_beg(PLpgSQL_execstate *estate, PLpgSQL_function *func)
{
	if (prev_plugin && prev_plugin->func_beg)
		prev_plugin->func_beg(estate, func);

	if (!cgt_enabled || cgt_hash == NULL)
		return;

	if (unlikely(cgt_plpgsql_errcb == NULL))
	{
		/* PL/pgSQL fills it in when we hold the slot or are chained well */
		cgt_plpgsql_errcb = cgt_plugin.error_callback;
		if (cgt_plpgsql_errcb == NULL)
		{
			ErrorContextCallback *ecxt;

			for (ecxt = error_context_stack; ecxt != NULL; ecxt = ecxt->previous)
			{
				if (ecxt->arg == (void *) estate)
				{
					cgt_plpgsql_errcb = ecxt->callback;
					break;
				}
			}
		}
	}

	if (cgt_depth > 0)
		cgt_check_stack(estate);

	cgt_push(estate, func->fn_oid, true, cgt_fn_is_temp(func->fn_oid));
}

static void
cgt_func_end(PLpgSQL_execstate *estate, PLpgSQL_function *func)
{
	if (cgt_depth > 0)
	{
		int			i;

		for (i = cgt_depth - 1; i >= 0; i--)
		{
			if (cgt_stack[i].ident == (const void *) estate &&
				cgt_stack[i].is_plpgsql)
			{
				cgt_pop_to(i);
				break;
			}
		}
	}

	if (prev_plugin && prev_plugin->func_end)
		prev_plugin->func_end(estate, func);
}

static void
cgt_stmt_beg(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt)
{
	if (prev_plugin && prev_plugin->stmt_beg)
		prev_plugin->stmt_beg(estate, stmt);
}

static void
cgt_stmt_end(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt)
{
	if (stmt->cmd_type == PLPGSQL_STMT_OPEN && cgt_enabled &&
		OidIsValid(estate->func->fn_oid))
	{
		const PLpgSQL_stmt_open *open = (const PLpgSQL_stmt_open *) stmt;
		const char *name;
		int			len;

		if (cgt_cursor_name(estate, open->curvar, &name, &len))
		{
			cgtCursor  *c = &cgt_cursors[cgt_cursor_next];

			c->fn_oid = estate->func->fn_oid;
			c->line = stmt->lineno;
			c->dynamic = open->dynquery != NULL;
			if (open->query == NULL && open->dynquery == NULL)
			{
				/* OPEN of a bound cursor: its query is at its DECLARE */
				int32		decl = cgt_bound_cursor_line(estate, open->curvar);

				if (decl > 0)
					c->line = decl;
			}
			c->namelen = len;
			memcpy(c->name, name, len);
			cgt_cursor_next = (cgt_cursor_next + 1) % CGT_CURSORS;
		}
	}

	if (prev_plugin && prev_plugin->stmt_end)
		prev_plugin->stmt_end(estate, stmt);
}

/* ====================================================================
 * fmgr hooks (track = all)
 * ==================================================================== */

/*
 * Should calls of this function go through our fmgr hook?  User functions
 * (OID above the initdb range) in any language but PL/pgSQL (which the
 * plugin sees) and but our own C functions.
 */
static bool
cgt_should_trace(Oid fn_oid, bool *temp)
{
	HeapTuple	proctup;
	Form_pg_proc procform;
	bool		result = true;

	*temp = false;
	if (fn_oid < FirstNormalObjectId)
		return false;

	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(proctup))
		return false;
	procform = (Form_pg_proc) GETSTRUCT(proctup);
	*temp = cgt_proc_is_temp(procform);

	if (procform->prolang == ClanguageId)
	{
		bool		isnull;
		Datum		probin;

		probin = SysCacheGetAttr(PROCOID, proctup, Anum_pg_proc_probin, &isnull);
		if (!isnull)
		{
			char	   *bin = TextDatumGetCString(probin);

			if (strstr(bin, "cgmap_trace") != NULL)
				result = false;
			pfree(bin);
		}
	}
	else if (procform->prolang != INTERNALlanguageId &&
			 procform->prolang != SQLlanguageId)
	{
		HeapTuple	langtup;

		langtup = SearchSysCache1(LANGOID, ObjectIdGetDatum(procform->prolang));
		if (HeapTupleIsValid(langtup))
		{
			Form_pg_language langform = (Form_pg_language) GETSTRUCT(langtup);

			if (strcmp(NameStr(langform->lanname), "plpgsql") == 0)
				result = false;
			ReleaseSysCache(langtup);
		}
	}

	ReleaseSysCache(proctup);
	return result;
}

static bool
cgt_needs_fmgr_hook(Oid fn_oid)
{
	bool		temp;

	if (prev_needs_fmgr_hook && prev_needs_fmgr_hook(fn_oid))
		return true;
	return cgt_should_trace(fn_oid, &temp);
}

static void
cgt_fmgr_hook(FmgrHookEventType event, FmgrInfo *flinfo, Datum *arg)
{
	cgtFnCache *fc = (cgtFnCache *) DatumGetPointer(*arg);

	if (fc == NULL)
	{
		fc = MemoryContextAllocExtended(flinfo->fn_mcxt, sizeof(cgtFnCache),
										MCXT_ALLOC_ZERO | MCXT_ALLOC_NO_OOM);
		if (fc == NULL)
		{
			/* out of memory: stay out of the way rather than fail the call */
			if (prev_fmgr_hook)
				prev_fmgr_hook(event, flinfo, arg);
			return;
		}
		fc->traced = cgt_should_trace(flinfo->fn_oid, &fc->temp);
		*arg = PointerGetDatum(fc);
	}

	switch (event)
	{
		case FHET_START:
			if (prev_fmgr_hook)
				prev_fmgr_hook(event, flinfo, &fc->prev_arg);
			if (fc->traced && cgt_enabled && cgt_hash != NULL)
			{
				if (cgt_depth > 0)
					cgt_check_stack(NULL);
				cgt_push(fc, flinfo->fn_oid, false, fc->temp);
			}
			return;

		case FHET_END:
		case FHET_ABORT:
			if (cgt_depth > 0)
			{
				int			i;

				for (i = cgt_depth - 1; i >= 0; i--)
				{
					if (cgt_stack[i].ident == (const void *) fc &&
						!cgt_stack[i].is_plpgsql)
					{
						cgt_pop_to(i);
						break;
					}
				}
			}
			if (prev_fmgr_hook)
				prev_fmgr_hook(event, flinfo, &fc->prev_arg);
			return;
	}
}

/* ====================================================================
 * Module load
 * ==================================================================== */

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;

	DefineCustomBoolVariable("cgmap_trace.enabled",
							 "Records function call edges.",
							 "A superuser can turn it off or on at any time, also for one session.",
							 &cgt_enabled,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.max_edges",
							"Maximum number of distinct call edges kept in shared memory.",
							"About 100 bytes of shared memory per edge, so at most 1000000 (about 100 MB). "
							"When the table is full, the least recently seen edges are evicted.",
							&cgt_max_edges,
							10000,
							10,
							CGT_MAX_EDGES_LIMIT,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("cgmap_trace.track",
							 "Which calls are captured: plpgsql, or all (also SQL, C and other languages).",
							 "'all' routes user functions through the fmgr hook: the planner never inlines them.",
							 &cgt_track,
							 CGT_TRACK_PLPGSQL,
							 cgt_track_options,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cgmap_trace.save",
							 "Saves the call edges across server shutdowns.",
							 NULL,
							 &cgt_save,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("cgmap_trace");

	cgt_clock_init();
	ereport(DEBUG1,
			(errmsg_internal("cgmap_trace: clock %s, %.3f ticks per microsecond",
							 cgt_use_tsc ? "rdtsc" : "clock_gettime",
							 cgt_ticks_per_usec)));

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = cgt_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = cgt_shmem_startup;

	if (cgt_track == CGT_TRACK_ALL)
	{
		prev_needs_fmgr_hook = needs_fmgr_hook;
		needs_fmgr_hook = cgt_needs_fmgr_hook;
		prev_fmgr_hook = fmgr_hook;
		fmgr_hook = cgt_fmgr_hook;
	}

	/* Chain into the PL/pgSQL plugin slot. */
	cgt_plugin_ptr = (PLpgSQL_plugin **) find_rendezvous_variable("PLpgSQL_plugin");
	prev_plugin = *cgt_plugin_ptr;
	/* stmt_end notes the sites of OPEN statements (see cgt_fetch_site) */
	cgt_plugin.stmt_end = cgt_stmt_end;
	if (prev_plugin)
	{
		cgt_plugin.func_setup = cgt_func_setup;
		if (prev_plugin->stmt_beg)
			cgt_plugin.stmt_beg = cgt_stmt_beg;
	}
	*cgt_plugin_ptr = &cgt_plugin;

	prev_object_access_hook = object_access_hook;
	object_access_hook = cgt_object_access;

	RegisterXactCallback(cgt_xact_callback, NULL);
	RegisterSubXactCallback(cgt_subxact_callback, NULL);
}

/* ====================================================================
 * SQL-callable functions
 * ==================================================================== */

static void
cgt_check_loaded(void)
{
	if (cgt_state == NULL || cgt_hash == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cgmap_trace must be loaded via shared_preload_libraries")));
}

/*
 * cgmap_trace_edges(): 10 columns in extension versions 1.0 and 1.1, 11
 * from 1.2 on (caller_body); the same C function serves both, by the
 * declared row type.  Under the older declaration, edges of one site seen
 * against several bodies come as several rows of the same site.
 */
#define CGT_EDGE_COLS_1_1 10
#define CGT_EDGE_COLS 11

/* A copy of one entry, taken under the lock. */
typedef struct cgtRow
{
	cgtKey		key;
	cgtCounters counters;
	bool		stale;
} cgtRow;

/* Per database: may the current role see its edges? */
typedef struct cgtDbVis
{
	Oid			dbid;
	bool		visible;
} cgtDbVis;

/*
 * May the current role see the edges of database dbid?  Superusers and
 * members of pg_read_all_stats see every database's; other roles those of
 * the databases they may connect to (as pg_stat_statements shows other
 * roles' query texts only to the privileged).
 */
static bool
cgt_db_visible(Oid dbid, bool privileged, cgtDbVis **cache, int *ncache,
			   int *capacity)
{
	bool		visible;
	int			i;

	if (privileged)
		return true;
	for (i = 0; i < *ncache; i++)
		if ((*cache)[i].dbid == dbid)
			return (*cache)[i].visible;

	/* pg_database_aclcheck raises an error for a database that is gone */
	visible = SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(dbid)) &&
		pg_database_aclcheck(dbid, GetUserId(), ACL_CONNECT) == ACLCHECK_OK;

	if (*ncache >= *capacity)
	{
		*capacity = *capacity > 0 ? *capacity * 2 : 8;
		*cache = *cache ? repalloc(*cache, sizeof(cgtDbVis) * *capacity)
			: palloc(sizeof(cgtDbVis) * *capacity);
	}
	(*cache)[*ncache].dbid = dbid;
	(*cache)[*ncache].visible = visible;
	(*ncache)++;
	return visible;
}

/*
 * Does function fn_oid of the current database exist, or might it (created
 * or dropped by a transaction still in progress)?  The syscache answers for
 * almost every function; a miss is confirmed with a dirty snapshot, which
 * also sees rows that uncommitted transactions inserted.
 */
static bool
cgt_fn_may_exist(Oid fn_oid)
{
	SnapshotData dirty;
	Relation	rel;
	ScanKeyData skey;
	SysScanDesc scan;
	bool		exists;

	if (SearchSysCacheExists1(PROCOID, ObjectIdGetDatum(fn_oid)))
		return true;

	InitDirtySnapshot(dirty);
	rel = table_open(ProcedureRelationId, AccessShareLock);
	ScanKeyInit(&skey, Anum_pg_proc_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(fn_oid));
	scan = systable_beginscan(rel, ProcedureOidIndexId, true, &dirty, 1, &skey);
	exists = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return exists;
}

/*
 * The edges the current role may see (see cgt_db_visible).  Edges of the
 * current database whose caller or callee no longer exists are not listed
 * and are removed from the table.
 */
Datum
cgmap_trace_edges(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;
	cgtRow	   *rows;
	int			nrows = 0;
	int			maxrows;
	int			nstale = 0;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	cgt_check_loaded();
	cgt_flush();
	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != CGT_EDGE_COLS_1_1 &&
		rsinfo->setDesc->natts != CGT_EDGE_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cgmap_trace_edges() is declared with %d columns, expected %d or %d",
						rsinfo->setDesc->natts, CGT_EDGE_COLS_1_1, CGT_EDGE_COLS),
				 errhint("ALTER EXTENSION cgmap_trace UPDATE;")));

	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	/*
	 * Copy the table under the lock (no entry comes or goes while it is held
	 * shared); the catalog is read without it.
	 */
	LWLockAcquire(cgt_state->lock, LW_SHARED);
	maxrows = (int) hash_get_num_entries(cgt_hash);
	rows = palloc(sizeof(cgtRow) * (maxrows + 1));
	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		cgtRow	   *r;

		if (nrows >= maxrows)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		r = &rows[nrows];
		SpinLockAcquire(&entry->mutex);
		r->counters = entry->counters;
		SpinLockRelease(&entry->mutex);
		if (r->counters.calls == 0)
			continue;
		memcpy(&r->key, &entry->key, sizeof(cgtKey));	/* with its padding */
		r->stale = false;
		nrows++;
	}
	LWLockRelease(cgt_state->lock);

	for (i = 0; i < nrows; i++)
	{
		cgtRow	   *r = &rows[i];
		Datum		values[CGT_EDGE_COLS];
		bool		nulls[CGT_EDGE_COLS];

		if (!cgt_db_visible(r->key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		if (r->key.dbid == MyDatabaseId &&
			(!cgt_fn_may_exist(r->key.callee) ||
			 (OidIsValid(r->key.caller) && !cgt_fn_may_exist(r->key.caller))))
		{
			r->stale = true;
			nstale++;
			continue;
		}

		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->key.dbid);
		values[1] = ObjectIdGetDatum(r->key.caller);
		values[2] = ObjectIdGetDatum(r->key.callee);
		values[3] = Int32GetDatum(r->key.line);
		values[4] = BoolGetDatum(r->key.dynamic);
		values[5] = Int64GetDatum(r->counters.calls);
		values[6] = Float8GetDatum(r->counters.total_ms);
		values[7] = Float8GetDatum(r->counters.self_ms);
		values[8] = TimestampTzGetDatum(r->counters.first_seen);
		values[9] = TimestampTzGetDatum(r->counters.last_seen);
		if (r->key.body != 0)
			values[10] = cgt_body_text(r->key.body);
		else
			nulls[10] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	if (nstale > 0)
	{
		uint64		removed = 0;

		LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
		for (i = 0; i < nrows; i++)
		{
			if (rows[i].stale &&
				hash_search(cgt_hash, &rows[i].key, HASH_REMOVE, NULL) != NULL)
				removed++;
		}
		if (removed > 0)
			pg_atomic_fetch_add_u64(&cgt_state->stale_removed, removed);
		LWLockRelease(cgt_state->lock);
	}
	pfree(rows);

	return (Datum) 0;
}

Datum
cgmap_trace_reset(PG_FUNCTION_ARGS)
{
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;

	cgt_check_loaded();

	LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
		hash_search(cgt_hash, &entry->key, HASH_REMOVE, NULL);
	pg_atomic_write_u64(&cgt_state->dropped, 0);
	pg_atomic_write_u64(&cgt_state->evictions, 0);
	pg_atomic_write_u64(&cgt_state->evicted_calls, 0);
	pg_atomic_write_u64(&cgt_state->temp_skipped, 0);
	pg_atomic_write_u64(&cgt_state->stale_removed, 0);
	pg_atomic_fetch_add_u64(&cgt_state->reset_gen, 1);
	SpinLockAcquire(&cgt_state->mutex);
	cgt_state->since = GetCurrentTimestamp();
	SpinLockRelease(&cgt_state->mutex);
	LWLockRelease(cgt_state->lock);

	PG_RETURN_VOID();
}

/*
 * cgmap_trace_info(): 4 columns in extension version 1.0, 8 from 1.1 on
 * (the same C function serves both, by the declared row type).
 */
#define CGT_INFO_COLS_1_0	4
#define CGT_INFO_COLS		8

Datum
cgmap_trace_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[CGT_INFO_COLS];
	bool		nulls[CGT_INFO_COLS];
	TimestampTz since;
	int64		used;

	cgt_check_loaded();
	cgt_flush();

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != CGT_INFO_COLS_1_0 && tupdesc->natts != CGT_INFO_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cgmap_trace_info() is declared with %d columns, expected %d or %d",
						tupdesc->natts, CGT_INFO_COLS_1_0, CGT_INFO_COLS),
				 errhint("ALTER EXTENSION cgmap_trace UPDATE;")));

	SpinLockAcquire(&cgt_state->mutex);
	since = cgt_state->since;
	SpinLockRelease(&cgt_state->mutex);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	used = (int64) hash_get_num_entries(cgt_hash);
	LWLockRelease(cgt_state->lock);

	memset(nulls, 0, sizeof(nulls));
	values[0] = TimestampTzGetDatum(since);
	values[1] = Int64GetDatum(used);
	values[2] = Int64GetDatum((int64) cgt_max_edges);
	values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->dropped));
	values[4] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->evictions));
	values[5] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->evicted_calls));
	values[6] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->temp_skipped));
	values[7] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->stale_removed));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
