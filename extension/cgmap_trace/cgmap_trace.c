/*-------------------------------------------------------------------------
 *
 * cgmap_trace.c
 *		Runtime call-graph capture for PL/pgSQL, SQL and C user functions.
 *
 * cgmap_trace records, for every observed call of a user function, the edge
 * (database, caller, callee, call-site line, dynamic flag) together with the
 * number of calls, the inclusive and exclusive (self) time and the first and
 * last time the edge was seen.  A call made directly by a client statement
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
 *     or remove entries (new edges, reset, load at startup).
 *   - each entry's counters are updated under the entry's spinlock
 *     (entry->mutex), so concurrent backends holding the lock in shared mode
 *     count exactly; readers take the same spinlock to get a consistent copy.
 *   - cgt_state->mutex (spinlock) guards cgt_state->since.
 *   - cgt_state->dropped is an atomic counter: calls on new edges that found
 *     the table full.  A full table never raises an error.
 *   - cgt_state->reset_gen is atomic; it changes only under the exclusive
 *     lock, and flushes compare it under the lock.
 *
 * Persistence
 * -----------
 * With cgmap_trace.save = on, the postmaster writes the table to
 * PGDATA/pg_stat/cgmap_trace.stat (via a temporary file and a durable rename)
 * from an on_shmem_exit callback at clean shutdown, and reads it back (then
 * removes it) when shared memory is created at the next start.
 *
 * Copyright (c) 2026, the cgmap authors.  PostgreSQL License.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_language.h"
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
#include "utils/hsearch.h"
#include "utils/memutils.h"
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
#define CGT_FILE_VERSION	1

/* ---- shared structures ---- */

typedef struct cgtKey
{
	Oid			dbid;
	Oid			caller;			/* InvalidOid for an entry point */
	Oid			callee;
	int32		line;			/* caller's statement line, 0 if unknown */
	bool		dynamic;		/* call made by a dynamic EXECUTE-like stmt */
	/* padding is always zeroed: the key is hashed as a blob */
} cgtKey;

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
	pg_atomic_uint64 dropped;	/* calls not recorded: table full */
	pg_atomic_uint64 reset_gen;	/* bumped by every reset */
} cgtShared;

/* ---- per-backend call stack ---- */

typedef struct cgtFrame
{
	const void *ident;			/* PL/pgSQL estate, or our fmgr cache */
	Oid			fn_oid;			/* InvalidOid for a DO block */
	bool		is_plpgsql;
	bool		dynamic;		/* site of this call in the caller */
	int32		line;
	Oid			caller;
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

/* Insert (or find) an entry; caller holds the lock exclusively. */
static cgtEntry *
cgt_entry_alloc(const cgtKey *key)
{
	cgtEntry   *entry;
	bool		found;

	if (hash_get_num_entries(cgt_hash) >= cgt_max_edges)
	{
		entry = hash_search(cgt_hash, key, HASH_FIND, NULL);
		return entry;
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

	if (fread(header, sizeof(header), 1, file) != 1 ||
		header[0] != CGT_FILE_MAGIC || header[1] != CGT_FILE_VERSION ||
		fread(&since, sizeof(since), 1, file) != 1 ||
		fread(&dropped, sizeof(dropped), 1, file) != 1 ||
		fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		goto bad_file;

	for (i = 0; i < num; i++)
	{
		cgtKey		key;
		cgtCounters counters;
		cgtEntry   *entry;

		if (fread(&key, sizeof(key), 1, file) != 1 ||
			fread(&counters, sizeof(counters), 1, file) != 1)
			goto bad_file;

		entry = cgt_entry_alloc(&key);
		if (entry == NULL)
		{
			/* max_edges was lowered since the file was written */
			dropped += counters.calls;
			continue;
		}
		entry->counters = counters;
	}

	cgt_state->since = since;
	pg_atomic_write_u64(&cgt_state->dropped, dropped);
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
	num = (int32) hash_get_num_entries(cgt_hash);
	if (fwrite(header, sizeof(header), 1, file) != 1 ||
		fwrite(&cgt_state->since, sizeof(TimestampTz), 1, file) != 1 ||
		fwrite(&dropped, sizeof(dropped), 1, file) != 1 ||
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
	h ^= h >> 15;
	h *= 0x2C1B3C6DU;
	h ^= h >> 12;
	return h;
}

static inline bool
cgt_key_equal(const cgtKey *a, const cgtKey *b)
{
	return a->callee == b->callee && a->caller == b->caller &&
		a->line == b->line && a->dynamic == b->dynamic && a->dbid == b->dbid;
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
			le->key = *key;
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
cgt_push(const void *ident, Oid fn_oid, bool is_plpgsql)
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
	frame->caller = InvalidOid;
	frame->line = 0;
	frame->dynamic = false;
	if (cgt_depth > 0)
	{
		cgtFrame   *parent = &cgt_stack[cgt_depth - 1];

		frame->caller = parent->fn_oid;
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

		if (OidIsValid(frame->fn_oid))
		{
			cgtKey		key;

			memset(&key, 0, sizeof(key));
			key.dbid = MyDatabaseId;
			key.caller = frame->caller;
			key.callee = frame->fn_oid;
			key.line = frame->line;
			key.dynamic = frame->dynamic;
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

static void
cgt_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && cgt_depth > 0)
		cgt_reconcile();
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
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			cgt_flush();
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

	cgt_push(estate, func->fn_oid, true);
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
cgt_should_trace(Oid fn_oid)
{
	HeapTuple	proctup;
	Form_pg_proc procform;
	bool		result = true;

	if (fn_oid < FirstNormalObjectId)
		return false;

	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(proctup))
		return false;
	procform = (Form_pg_proc) GETSTRUCT(proctup);

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
	if (prev_needs_fmgr_hook && prev_needs_fmgr_hook(fn_oid))
		return true;
	return cgt_should_trace(fn_oid);
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
		fc->traced = cgt_should_trace(flinfo->fn_oid);
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
				cgt_push(fc, flinfo->fn_oid, false);
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
							"Calls on new edges when the table is full are counted as dropped.",
							&cgt_max_edges,
							10000,
							10,
							INT_MAX / 2,
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

#define CGT_EDGE_COLS 10

Datum
cgmap_trace_edges(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;

	cgt_check_loaded();
	cgt_flush();
	InitMaterializedSRF(fcinfo, 0);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		Datum		values[CGT_EDGE_COLS];
		bool		nulls[CGT_EDGE_COLS];
		cgtCounters c;

		SpinLockAcquire(&entry->mutex);
		c = entry->counters;
		SpinLockRelease(&entry->mutex);

		if (c.calls == 0)
			continue;

		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(entry->key.dbid);
		values[1] = ObjectIdGetDatum(entry->key.caller);
		values[2] = ObjectIdGetDatum(entry->key.callee);
		values[3] = Int32GetDatum(entry->key.line);
		values[4] = BoolGetDatum(entry->key.dynamic);
		values[5] = Int64GetDatum(c.calls);
		values[6] = Float8GetDatum(c.total_ms);
		values[7] = Float8GetDatum(c.self_ms);
		values[8] = TimestampTzGetDatum(c.first_seen);
		values[9] = TimestampTzGetDatum(c.last_seen);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(cgt_state->lock);

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
	pg_atomic_fetch_add_u64(&cgt_state->reset_gen, 1);
	SpinLockAcquire(&cgt_state->mutex);
	cgt_state->since = GetCurrentTimestamp();
	SpinLockRelease(&cgt_state->mutex);
	LWLockRelease(cgt_state->lock);

	PG_RETURN_VOID();
}

Datum
cgmap_trace_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	TimestampTz since;
	int64		used;

	cgt_check_loaded();
	cgt_flush();

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	SpinLockAcquire(&cgt_state->mutex);
	since = cgt_state->since;
	SpinLockRelease(&cgt_state->mutex);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	used = (int64) hash_get_num_entries(cgt_hash);
	LWLockRelease(cgt_state->lock);

	values[0] = TimestampTzGetDatum(since);
	values[1] = Int64GetDatum(used);
	values[2] = Int64GetDatum((int64) cgt_max_edges);
	values[3] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->dropped));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
