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
 * Beside the edges (extension version 1.3), every call is also counted
 * under its CALL PATH (the frames from its entry point down to it, see
 * "Call paths"), every top-level call under its SHAPE (the set of distinct
 * edges it exercised, see "Shapes"), and every function's calls and
 * exclusive time under the TIMELINE bucket in which they ended (a ring of
 * cgmap_trace.buckets intervals of cgmap_trace.bucket_seconds).
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
 *   value-per-call set-returning function goes through fmgr once per row
 *   and once more for the end of its set; from 1.6 one evaluation counts
 *   one call, as in pg_stat_user_functions, its time being that of all its
 *   invocations (see "Set-returning functions" at the fmgr hook).
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
 * Dynamic statements that ran
 * ---------------------------
 * A dynamic statement (EXECUTE, FOR ... IN EXECUTE, RETURN QUERY EXECUTE,
 * OPEN ... FOR EXECUTE) may run and call no user function at all (DDL, a
 * query of tables only): no edge says it ran.  From 1.4, stmt_end counts
 * each dynamic statement of a traced PL/pgSQL function that finishes as a
 * SITE RUN: an entry of the edge table whose callee is InvalidOid, keyed
 * like an edge by the function, the statement's line and the function's
 * body version, counting runs in its calls (no times).  cgmap_trace_sites()
 * lists them and cgmap_trace_edges() never does, so a dynamic site that ran
 * can be told from one that never did.  A FETCH or MOVE of a cursor that
 * no OPEN of the same function opened counts too (a refcursor parameter,
 * a variable a call filled): the query it runs was written elsewhere, and
 * the calls it makes are dynamic edges of its line.  A statement that raises an error
 * is not counted (PL/pgSQL calls no stmt_end for it).  Site runs share the
 * edge table's room, eviction, persistence and drop handling.
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
 * The batch also holds the paths and shapes of those calls, and all the
 * calls of one batch ended in one timeline bucket (a call ending after the
 * bucket flushes the batch first), so the timeline is added at flush time
 * from the batch's edges (per callee: calls, exclusive time): nothing per
 * call.
 *
 * Shared memory and locking
 * -------------------------
 * Six fixed-size shared hashes, each sized once in shmem_request_hook:
 * edges (cgmap_trace.max_edges cgtEntry keyed by cgtKey), paths
 * (cgmap_trace.max_paths cgtPathEntry keyed by database and path hash),
 * shapes (cgmap_trace.max_shapes cgtShapeEntry keyed by database, entry
 * point and shape hash) and the timeline (cgmap_trace.max_functions
 * cgtTlEntry keyed by database and function, each with a ring of
 * cgmap_trace.buckets slots), the calls of dropped functions
 * (CGT_MAX_GONE cgtGoneEntry keyed by database and function) and their
 * edges and site runs (CGT_MAX_GONE_EDGES cgtGoneEdge keyed as the edges).
 *   - cgt_state->lock (a named LWLock tranche "cgmap_trace") guards the six
 *     hash tables themselves: it is held SHARED to look entries up and to
 *     update their counters (one acquisition per flushed batch for all four),
 *     and EXCLUSIVE to insert or remove entries (new entries, eviction,
 *     dropped functions, reset, load at startup); the entries of dropped
 *     functions' calls and edges change only under it.
 *   - each entry's counters are updated under the entry's spinlock
 *     (entry->mutex), so concurrent backends holding the lock in shared mode
 *     count exactly; readers take the same spinlock to get a consistent copy.
 *   - cgt_state->mutex (spinlock) guards cgt_state->since.
 *   - cgt_state->dropped, evictions, evicted_calls, temp_skipped,
 *     stale_removed, stale_kept, paths_dropped, shapes_dropped and timeline_dropped are
 *     atomic counters (see "Table policy").  A full table never raises an
 *     error.
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
 *     (evictions, evicted_calls), so a new edge always finds room; the
 *     paths, shapes and timeline tables do not evict: what does not fit is
 *     counted (paths_dropped: calls; shapes_dropped: top-level calls, also
 *     those with more than CGT_SHAPE_EDGES distinct edges; timeline_dropped:
 *     calls) until a reset makes room;
 *   - paths, shapes and timeline entries naming a dropped function or
 *     database are removed with its edges at the drop's commit, and from
 *     1.6 with the edges found stale when a view is read;
 *   - edges of dropped functions and databases are removed at the commit of
 *     the dropping transaction (object_access_hook), and cgmap_trace_edges()
 *     removes the current database's edges whose function does not exist
 *     (stale_removed), because the postmaster cannot read catalogs when it
 *     saves the table; the calls the edges of a dropped function had
 *     counted are kept per callee (cgmap_trace_gone(), stale_kept), so that
 *     a test suite dropping its functions does not hide what ran; from 1.6
 *     also those of a function whose creating transaction rolled back;
 *     from 1.8 the edges and site runs removed at a drop's commit are kept
 *     too (cgmap_trace_gone_edges()), up to CGT_MAX_GONE_EDGES records
 *     (then gone_edges_lost), so that functions created again with the
 *     same identities keep what their earlier selves were seen to call;
 *   - cgmap_trace_edges() shows a role only the edges of the databases it
 *     may connect to, unless it is a superuser or in pg_read_all_stats.
 *
 * Persistence
 * -----------
 * With cgmap_trace.save = on, the postmaster writes the table to
 * PGDATA/pg_stat/cgmap_trace.stat (via a temporary file and a durable rename)
 * from an on_shmem_exit callback at clean shutdown, and reads it back (then
 * removes it) when shared memory is created at the next start.  File format
 * 6 adds the edges of dropped functions and gone_edges_lost at the end,
 * format 5 the calls of dropped functions and stale_kept after the timeline,
 * format 4 the paths, shapes and timeline after the edges (the timeline is
 * kept only if cgmap_trace.bucket_seconds did not change; a changed number
 * of buckets re-slots it), format 3 the caller's body version to each key,
 * format 2 the policy counters; formats 1 to 5 are still read (formats 1
 * and 2: their edges' body is unknown), format 5 without edges of dropped
 * functions.
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
#include "catalog/pg_type.h"
#include "executor/executor.h"
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
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
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
#define CGT_FILE_VERSION	6	/* 5: without the edges of dropped functions;
								 * 4: without the calls of dropped functions;
								 * 3: edges only (no paths, shapes, timeline);
								 * 2: keys without the caller's body version;
								 * 1: also without the eviction counters */

/*
 * Upper limit of cgmap_trace.max_edges: about 100 MB of shared memory.  A
 * call graph is bounded by the functions that exist; a table this large is
 * not needed for any code base, and a typo must not ask for gigabytes.
 */
#define CGT_MAX_EDGES_LIMIT	1000000

/* A full table evicts this share of its least recently seen edges. */
#define CGT_EVICT_PERCENT	5

/*
 * Call paths (see "Call paths"): at most CGT_PATH_DEPTH frames are kept per
 * path; a deeper path keeps its first CGT_PATH_KEEP frames, a marker frame
 * (function 0, line 0) and its last frame.
 */
#define CGT_PATH_DEPTH		32
#define CGT_PATH_KEEP		(CGT_PATH_DEPTH - 2)
#define CGT_MAX_PATHS_LIMIT	200000	/* about 70 MB */

/* Shapes: distinct edges one top-level call may exercise and be kept. */
#define CGT_SHAPE_EDGES		64
#define CGT_MAX_SHAPES_LIMIT 100000 /* about 110 MB */

/* Timeline: functions, and slots (functions x buckets) at most. */
#define CGT_MAX_FUNCTIONS_LIMIT 100000
#define CGT_TIMELINE_SLOTS_LIMIT 4000000	/* about 100 MB */

/*
 * Calls of dropped functions (see "Dropped functions and databases"): kept
 * for at most CGT_MAX_GONE functions, each named by its qualified identity
 * of at most CGT_IDENTITY_LEN - 1 bytes (about 1.3 MB of shared memory).
 */
#define CGT_MAX_GONE		4096
#define CGT_IDENTITY_LEN	256

/*
 * Edges and site runs of dropped functions (from 1.8): at most
 * CGT_MAX_GONE_EDGES records (about 1.5 MB of shared memory), keyed as the
 * edges are, by the OIDs the functions had; cgt_gone names each dropped
 * one.
 */
#define CGT_MAX_GONE_EDGES	16384

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

/*
 * The calls of one function that the edges removed with a drop had
 * counted: the function was dropped (identity names it as it was), or only
 * its callers were (identity empty: fn_oid still names it).
 */
typedef struct cgtGoneKey
{
	Oid			dbid;
	Oid			fn_oid;
} cgtGoneKey;

typedef struct cgtGoneEntry
{
	cgtGoneKey	key;			/* hash key, must be first */
	char		identity[CGT_IDENTITY_LEN];
	cgtCounters counters;		/* changed only under the exclusive lock */
} cgtGoneEntry;

/*
 * An edge or a site run removed with a dropped function (from 1.8), as the
 * edge table had it: its key keeps the OIDs, and each OID of a function
 * dropped since has its identity in cgt_gone.
 */
typedef struct cgtGoneEdge
{
	cgtKey		key;			/* hash key, must be first */
	cgtCounters counters;		/* changed only under the exclusive lock */
} cgtGoneEdge;

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
	pg_atomic_uint64 stale_kept;	/* of those, the ones whose loss hides no
									 * call of a function that exists */
	pg_atomic_uint64 gone_edges_lost;	/* edges and site runs of dropped
										 * functions cgt_gone_edges had no
										 * room (or no name) for */
	cgtEntry  **evict_buf;		/* max_edges pointers, for eviction */
	pg_atomic_uint64 paths_dropped; /* calls of paths not recorded: no room */
	pg_atomic_uint64 shapes_dropped;	/* top-level calls whose shape was not
										 * recorded: no room, or too many edges */
	pg_atomic_uint64 timeline_dropped;	/* calls of functions not in the
										 * timeline: no room */
} cgtShared;

/* ---- call paths ---- */

typedef struct cgtPathFrame
{
	Oid			fn_oid;			/* InvalidOid: the marker of a cut path */
	int32		line;			/* call site in the frame before, 0 for the
								 * entry point and the marker */
} cgtPathFrame;

typedef struct cgtPathKey
{
	Oid			dbid;
	uint32		pad;			/* always 0: the key is hashed as a blob */
	uint64		hash;			/* cgt_path_mix chain of the frames */
} cgtPathKey;

typedef struct cgtPathCounters
{
	int64		calls;
	double		total_ms;		/* inclusive */
	double		self_ms;		/* exclusive */
	double		min_ms;			/* least and greatest inclusive time of one call */
	double		max_ms;
	TimestampTz first_seen;
	TimestampTz last_seen;
} cgtPathCounters;

typedef struct cgtPathEntry
{
	cgtPathKey	key;			/* hash key, must be first */
	slock_t		mutex;			/* protects counters */
	int32		nframes;
	cgtPathFrame frames[CGT_PATH_DEPTH];
	cgtPathCounters counters;
} cgtPathEntry;

/* ---- shapes ---- */

typedef struct cgtShapeEdge
{
	Oid			caller;
	Oid			callee;
	int32		line;
	int32		dynamic;		/* 0 or 1; an int so that there is no padding */
} cgtShapeEdge;

typedef struct cgtShapeKey
{
	Oid			dbid;
	Oid			entry;			/* the top-level function */
	uint64		hash;			/* of its sorted distinct edges */
} cgtShapeKey;

typedef struct cgtShapeCounters
{
	int64		calls;
	TimestampTz first_seen;
	TimestampTz last_seen;
} cgtShapeCounters;

typedef struct cgtShapeEntry
{
	cgtShapeKey key;			/* hash key, must be first */
	slock_t		mutex;			/* protects counters */
	int32		nedges;
	cgtShapeEdge edges[CGT_SHAPE_EDGES];	/* sorted */
	cgtShapeCounters counters;
} cgtShapeEntry;

/* ---- timeline ---- */

typedef struct cgtTlKey
{
	Oid			dbid;
	Oid			fn_oid;
} cgtTlKey;

typedef struct cgtTlSlot
{
	int64		bucket;			/* which interval (start / bucket_seconds), -1 none */
	int64		calls;
	double		self_ms;
} cgtTlSlot;

typedef struct cgtTlEntry
{
	cgtTlKey	key;			/* hash key, must be first */
	slock_t		mutex;			/* protects slots */
	cgtTlSlot	slots[FLEXIBLE_ARRAY_MEMBER];	/* cgt_nbuckets, a ring */
} cgtTlEntry;

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
	uint64		path_hash;		/* of the path from the entry point to here */
	int32		path_len;		/* frames of that path (uncut); 0 for a DO
								 * block, whose callees are entry points */
	bool		path_skip;		/* a temporary function is on the path */
	bool		counts;			/* its end counts a call: false for the
								 * invocations of a value-per-call SRF
								 * after the first of one evaluation */
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
	bool		done;			/* added to the shared table by this flush */
	bool		tl_done;		/* added to the timeline by this flush */
	int64		calls;
	uint64		total;			/* ticks */
	uint64		self;
	uint64		first;			/* cgt_clock() of the first and last call */
	uint64		last;
} cgtLocalEntry;

/* The same for paths and shapes (local tables flushed with the edges). */
#define CGT_LPATH_SIZE		256	/* power of two */
#define CGT_LPATH_MAXFILL	192
#define CGT_LSHAPE_SIZE		32	/* power of two */
#define CGT_LSHAPE_MAXFILL	24

typedef struct cgtLocalPath
{
	uint64		hash;
	bool		used;
	bool		done;
	int32		nframes;
	int64		calls;
	uint64		total;			/* ticks */
	uint64		self;
	uint64		min;			/* least and greatest inclusive ticks of a call */
	uint64		max;
	uint64		first;
	uint64		last;
	cgtPathFrame frames[CGT_PATH_DEPTH];
} cgtLocalPath;

typedef struct cgtLocalShape
{
	Oid			entry;
	uint64		hash;
	bool		used;
	bool		done;
	int32		nedges;
	int64		calls;
	uint64		first;
	uint64		last;
	cgtShapeEdge edges[CGT_SHAPE_EDGES];
} cgtLocalShape;

/* per FmgrInfo state of the fmgr hook (lives in flinfo->fn_mcxt) */
typedef struct cgtFnCache
{
	Datum		prev_arg;		/* the private slot handed to a chained hook */
	bool		traced;
	bool		temp;			/* in a temporary schema */
	/* set-returning functions (see "Set-returning functions") */
	FmgrInfo   *flinfo;			/* the FmgrInfo this cache belongs to */
	MemoryContext mcxt;			/* its fn_mcxt, where this cache lives */
	PGFunction	real_addr;		/* the function's own fn_addr, or NULL */
	bool		in_set;			/* its last invocation returned
								 * ExprMultipleResult: the evaluation goes on */
	bool		shutdown_reg;	/* cgt_srf_shutdown registered */
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
static bool cgt_track_paths = true;
static bool cgt_track_shapes = true;
static bool cgt_track_timeline = true;
static int	cgt_max_paths = 10000;
static int	cgt_max_shapes = 1000;
static int	cgt_max_functions = 1000;
static int	cgt_bucket_seconds = 60;
static int	cgt_buckets = 60;
static int	cgt_nbuckets = 60;		/* cgt_buckets, within the slot limit */

/* ---- state ---- */

static cgtShared *cgt_state = NULL;
static HTAB *cgt_hash = NULL;
static HTAB *cgt_paths = NULL;
static HTAB *cgt_shapes = NULL;
static HTAB *cgt_timeline = NULL;
static HTAB *cgt_gone = NULL;
static HTAB *cgt_gone_edges = NULL;

static cgtLocalEntry cgt_local[CGT_LOCAL_SIZE];
static int	cgt_local_used = 0;
static uint16 cgt_local_slots[CGT_LOCAL_MAXFILL];	/* used slots, in order */
static uint64 cgt_local_gen = 0;	/* reset_gen when the batch began */
static uint64 cgt_local_oldest;	/* when the batch began */
static uint64 cgt_local_temp_skipped = 0;	/* calls not recorded: temporary */
static bool cgt_exit_registered = false;

/*
 * One batch holds the edges, paths and shapes of the calls that ended in
 * one timeline bucket (a call ending in the next bucket flushes it first),
 * so the timeline is taken from the batch's edges when it is flushed.
 */
static bool cgt_batch_open = false;
static int64 cgt_batch_bucket = 0;	/* timeline bucket of the batch */
static uint64 cgt_batch_bucket_end = 0;	/* cgt_clock() when it ends */
static TimestampTz cgt_anchor_ts = 0;	/* wall clock at cgt_anchor_c */
static uint64 cgt_anchor_c = 0;
static bool cgt_anchor_valid = false;

static cgtLocalPath cgt_lpath[CGT_LPATH_SIZE];
static int	cgt_lpath_used = 0;
static uint16 cgt_lpath_slots[CGT_LPATH_MAXFILL];

static cgtLocalShape cgt_lshape[CGT_LSHAPE_SIZE];
static int	cgt_lshape_used = 0;
static uint16 cgt_lshape_slots[CGT_LSHAPE_MAXFILL];
static uint64 cgt_local_shapes_dropped = 0;

/*
 * The distinct edges of the current top-level call, collected while its
 * frame (cgt_shape_owner, an index into cgt_stack; -1 none) is alive.
 */
#define CGT_SHAPE_SET		128	/* power of two, > 2 * CGT_SHAPE_EDGES */
static int	cgt_shape_owner = -1;
static cgtShapeEdge cgt_shape_cur[CGT_SHAPE_EDGES];
static int	cgt_shape_n = 0;
static bool cgt_shape_overflow = false;
static uint8 cgt_shape_set[CGT_SHAPE_SET];	/* index + 1 into cgt_shape_cur */

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
PG_FUNCTION_INFO_V1(cgmap_trace_paths);
PG_FUNCTION_INFO_V1(cgmap_trace_shapes);
PG_FUNCTION_INFO_V1(cgmap_trace_timeline);
PG_FUNCTION_INFO_V1(cgmap_trace_sites);
PG_FUNCTION_INFO_V1(cgmap_trace_gone);
PG_FUNCTION_INFO_V1(cgmap_trace_gone_edges);

static void cgt_check_cols(ReturnSetInfo *rsinfo, const char *name, int expected);
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

/* Size of a timeline entry: its ring holds cgt_nbuckets slots. */
static Size
cgt_tl_entrysize(void)
{
	return offsetof(cgtTlEntry, slots) + sizeof(cgtTlSlot) * (Size) cgt_nbuckets;
}

static Size
cgt_memsize(void)
{
	Size		size;

	size = MAXALIGN(sizeof(cgtShared));
	size = add_size(size, MAXALIGN(mul_size(cgt_max_edges, sizeof(cgtEntry *))));
	size = add_size(size, hash_estimate_size(cgt_max_edges, sizeof(cgtEntry)));
	size = add_size(size, hash_estimate_size(cgt_max_paths, sizeof(cgtPathEntry)));
	size = add_size(size, hash_estimate_size(cgt_max_shapes, sizeof(cgtShapeEntry)));
	size = add_size(size, hash_estimate_size(cgt_max_functions, cgt_tl_entrysize()));
	size = add_size(size, hash_estimate_size(CGT_MAX_GONE, sizeof(cgtGoneEntry)));
	size = add_size(size, hash_estimate_size(CGT_MAX_GONE_EDGES, sizeof(cgtGoneEdge)));
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

/*
 * Insert (or find) a path, a shape or a timeline entry; caller holds the
 * lock exclusively.  These tables do not evict: NULL when full (the caller
 * counts the calls as dropped).  A new entry's counters are zero.
 */
/* The entry of 'key' in 'table', entered when missing and the table holds
 * fewer than 'max'; *fresh says it was just entered (counters to set). */
static void *
cgt_bounded_enter(HTAB *table, const void *key, long max, bool *fresh)
{
	void	   *entry;
	bool		found;

	*fresh = false;
	entry = hash_search(table, key, HASH_FIND, NULL);
	if (entry != NULL)
		return entry;
	if (hash_get_num_entries(table) >= max)
		return NULL;
	entry = hash_search(table, key, HASH_ENTER_NULL, &found);
	*fresh = entry != NULL && !found;
	return entry;
}

static cgtPathEntry *
cgt_path_alloc(const cgtPathKey *key)
{
	bool		fresh;
	cgtPathEntry *entry = cgt_bounded_enter(cgt_paths, key, cgt_max_paths, &fresh);

	if (fresh)
	{
		SpinLockInit(&entry->mutex);
		entry->nframes = 0;
		memset(&entry->counters, 0, sizeof(entry->counters));
	}
	return entry;
}

static cgtShapeEntry *
cgt_shape_alloc(const cgtShapeKey *key)
{
	bool		fresh;
	cgtShapeEntry *entry = cgt_bounded_enter(cgt_shapes, key, cgt_max_shapes, &fresh);

	if (fresh)
	{
		SpinLockInit(&entry->mutex);
		entry->nedges = 0;
		memset(&entry->counters, 0, sizeof(entry->counters));
	}
	return entry;
}

static cgtTlEntry *
cgt_tl_alloc(const cgtTlKey *key)
{
	bool		fresh;
	cgtTlEntry *entry = cgt_bounded_enter(cgt_timeline, key, cgt_max_functions, &fresh);

	if (fresh)
	{
		SpinLockInit(&entry->mutex);
		for (int i = 0; i < cgt_nbuckets; i++)
		{
			entry->slots[i].bucket = -1;
			entry->slots[i].calls = 0;
			entry->slots[i].self_ms = 0;
		}
	}
	return entry;
}

/*
 * Add calls of bucket 'bucket' to a timeline entry: its slot in the ring is
 * taken over when it holds an older bucket (the ring keeps the last
 * cgt_nbuckets intervals); a bucket older than the slot's is gone already.
 */
static inline void
cgt_tl_add(cgtTlEntry *entry, int64 bucket, int64 calls, double self_ms)
{
	cgtTlSlot  *slot = &entry->slots[bucket % cgt_nbuckets];

	SpinLockAcquire(&entry->mutex);
	if (slot->bucket < bucket)
	{
		slot->bucket = bucket;
		slot->calls = 0;
		slot->self_ms = 0;
	}
	if (slot->bucket == bucket)
	{
		slot->calls += calls;
		slot->self_ms += self_ms;
	}
	SpinLockRelease(&entry->mutex);
}

/*
 * Read the paths, shapes and timeline of a format 4 file (after its edges).
 * false on a short or invalid file.
 */
static bool
cgt_load_more(FILE *file)
{
	int32		depth;
	uint64		dropped[3];
	int32		num;
	int32		i;
	int32		tl_seconds;
	int32		tl_buckets;

	if (fread(&depth, sizeof(depth), 1, file) != 1 || depth != CGT_PATH_DEPTH ||
		fread(dropped, sizeof(dropped), 1, file) != 1)
		return false;

	if (fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		return false;
	for (i = 0; i < num; i++)
	{
		cgtPathEntry tmp;
		cgtPathEntry *entry;

		if (fread(&tmp.key, sizeof(tmp.key), 1, file) != 1 ||
			fread(&tmp.nframes, sizeof(tmp.nframes), 1, file) != 1 ||
			tmp.nframes < 1 || tmp.nframes > CGT_PATH_DEPTH ||
			fread(tmp.frames, sizeof(tmp.frames), 1, file) != 1 ||
			fread(&tmp.counters, sizeof(tmp.counters), 1, file) != 1)
			return false;
		tmp.key.pad = 0;
		entry = cgt_path_alloc(&tmp.key);
		if (entry == NULL)
		{
			dropped[0] += tmp.counters.calls;
			continue;
		}
		entry->nframes = tmp.nframes;
		memcpy(entry->frames, tmp.frames, sizeof(tmp.frames));
		entry->counters = tmp.counters;
	}

	if (fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		return false;
	for (i = 0; i < num; i++)
	{
		cgtShapeEntry tmp;
		cgtShapeEntry *entry;

		if (fread(&tmp.key, sizeof(tmp.key), 1, file) != 1 ||
			fread(&tmp.nedges, sizeof(tmp.nedges), 1, file) != 1 ||
			tmp.nedges < 0 || tmp.nedges > CGT_SHAPE_EDGES ||
			fread(tmp.edges, sizeof(tmp.edges), 1, file) != 1 ||
			fread(&tmp.counters, sizeof(tmp.counters), 1, file) != 1)
			return false;
		entry = cgt_shape_alloc(&tmp.key);
		if (entry == NULL)
		{
			dropped[1] += tmp.counters.calls;
			continue;
		}
		entry->nedges = tmp.nedges;
		memcpy(entry->edges, tmp.edges, sizeof(tmp.edges));
		entry->counters = tmp.counters;
	}

	if (fread(&tl_seconds, sizeof(tl_seconds), 1, file) != 1 ||
		fread(&tl_buckets, sizeof(tl_buckets), 1, file) != 1 ||
		tl_buckets < 1 || tl_buckets > CGT_TIMELINE_SLOTS_LIMIT ||
		fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		return false;
	for (i = 0; i < num; i++)
	{
		cgtTlKey	key;
		int32		j;
		cgtTlEntry *entry = NULL;

		if (fread(&key, sizeof(key), 1, file) != 1)
			return false;
		/* bucket numbers of another bucket length mean other intervals */
		if (tl_seconds == cgt_bucket_seconds)
			entry = cgt_tl_alloc(&key);
		for (j = 0; j < tl_buckets; j++)
		{
			cgtTlSlot	slot;

			if (fread(&slot, sizeof(slot), 1, file) != 1)
				return false;
			if (entry != NULL && slot.bucket >= 0)
				cgt_tl_add(entry, slot.bucket, slot.calls, slot.self_ms);
			else if (tl_seconds == cgt_bucket_seconds && slot.bucket >= 0)
				dropped[2] += slot.calls;
		}
	}

	pg_atomic_write_u64(&cgt_state->paths_dropped, dropped[0]);
	pg_atomic_write_u64(&cgt_state->shapes_dropped, dropped[1]);
	pg_atomic_write_u64(&cgt_state->timeline_dropped, dropped[2]);
	return true;
}

/* Write the paths, shapes and timeline (format 4, after the edges). */
static bool
cgt_save_more(FILE *file)
{
	int32		depth = CGT_PATH_DEPTH;
	uint64		dropped[3];
	int32		num;
	int32		tl_seconds = cgt_bucket_seconds;
	int32		tl_buckets = cgt_nbuckets;
	HASH_SEQ_STATUS hash_seq;

	dropped[0] = pg_atomic_read_u64(&cgt_state->paths_dropped);
	dropped[1] = pg_atomic_read_u64(&cgt_state->shapes_dropped);
	dropped[2] = pg_atomic_read_u64(&cgt_state->timeline_dropped);
	if (fwrite(&depth, sizeof(depth), 1, file) != 1 ||
		fwrite(dropped, sizeof(dropped), 1, file) != 1)
		return false;

	{
		cgtPathEntry *entry;

		num = (int32) hash_get_num_entries(cgt_paths);
		if (fwrite(&num, sizeof(num), 1, file) != 1)
			return false;
		hash_seq_init(&hash_seq, cgt_paths);
		while ((entry = hash_seq_search(&hash_seq)) != NULL)
		{
			if (fwrite(&entry->key, sizeof(entry->key), 1, file) != 1 ||
				fwrite(&entry->nframes, sizeof(entry->nframes), 1, file) != 1 ||
				fwrite(entry->frames, sizeof(entry->frames), 1, file) != 1 ||
				fwrite(&entry->counters, sizeof(entry->counters), 1, file) != 1)
			{
				hash_seq_term(&hash_seq);
				return false;
			}
		}
	}
	{
		cgtShapeEntry *entry;

		num = (int32) hash_get_num_entries(cgt_shapes);
		if (fwrite(&num, sizeof(num), 1, file) != 1)
			return false;
		hash_seq_init(&hash_seq, cgt_shapes);
		while ((entry = hash_seq_search(&hash_seq)) != NULL)
		{
			if (fwrite(&entry->key, sizeof(entry->key), 1, file) != 1 ||
				fwrite(&entry->nedges, sizeof(entry->nedges), 1, file) != 1 ||
				fwrite(entry->edges, sizeof(entry->edges), 1, file) != 1 ||
				fwrite(&entry->counters, sizeof(entry->counters), 1, file) != 1)
			{
				hash_seq_term(&hash_seq);
				return false;
			}
		}
	}
	{
		cgtTlEntry *entry;

		num = (int32) hash_get_num_entries(cgt_timeline);
		if (fwrite(&tl_seconds, sizeof(tl_seconds), 1, file) != 1 ||
			fwrite(&tl_buckets, sizeof(tl_buckets), 1, file) != 1 ||
			fwrite(&num, sizeof(num), 1, file) != 1)
			return false;
		hash_seq_init(&hash_seq, cgt_timeline);
		while ((entry = hash_seq_search(&hash_seq)) != NULL)
		{
			if (fwrite(&entry->key, sizeof(entry->key), 1, file) != 1 ||
				fwrite(entry->slots, sizeof(cgtTlSlot), cgt_nbuckets, file) != (size_t) cgt_nbuckets)
			{
				hash_seq_term(&hash_seq);
				return false;
			}
		}
	}
	return true;
}

/*
 * Read the calls of dropped functions and stale_kept of a format 5 file
 * (after its timeline).  false on a short or invalid file.
 */
static bool
cgt_load_gone(FILE *file)
{
	int32		identity_len;
	uint64		kept;
	int32		num;
	int32		i;

	if (fread(&identity_len, sizeof(identity_len), 1, file) != 1 ||
		identity_len != CGT_IDENTITY_LEN ||
		fread(&kept, sizeof(kept), 1, file) != 1 ||
		fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		return false;
	for (i = 0; i < num; i++)
	{
		cgtGoneEntry tmp;
		cgtGoneEntry *entry;
		bool		found;

		if (fread(&tmp.key, sizeof(tmp.key), 1, file) != 1 ||
			fread(tmp.identity, sizeof(tmp.identity), 1, file) != 1 ||
			fread(&tmp.counters, sizeof(tmp.counters), 1, file) != 1 ||
			memchr(tmp.identity, '\0', sizeof(tmp.identity)) == NULL)
			return false;
		entry = hash_search(cgt_gone, &tmp.key, HASH_ENTER_NULL, &found);
		if (entry == NULL || found)
			continue;			/* cannot happen: the table had them all */
		memcpy(entry->identity, tmp.identity, sizeof(tmp.identity));
		entry->counters = tmp.counters;
	}
	pg_atomic_write_u64(&cgt_state->stale_kept, kept);
	return true;
}

/* Write the calls of dropped functions and stale_kept (format 5, last). */
static bool
cgt_save_gone(FILE *file)
{
	int32		identity_len = CGT_IDENTITY_LEN;
	uint64		kept = pg_atomic_read_u64(&cgt_state->stale_kept);
	int32		num = (int32) hash_get_num_entries(cgt_gone);
	HASH_SEQ_STATUS hash_seq;
	cgtGoneEntry *entry;

	if (fwrite(&identity_len, sizeof(identity_len), 1, file) != 1 ||
		fwrite(&kept, sizeof(kept), 1, file) != 1 ||
		fwrite(&num, sizeof(num), 1, file) != 1)
		return false;
	hash_seq_init(&hash_seq, cgt_gone);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (fwrite(&entry->key, sizeof(entry->key), 1, file) != 1 ||
			fwrite(entry->identity, sizeof(entry->identity), 1, file) != 1 ||
			fwrite(&entry->counters, sizeof(entry->counters), 1, file) != 1)
		{
			hash_seq_term(&hash_seq);
			return false;
		}
	}
	return true;
}

/*
 * Read the edges of dropped functions and gone_edges_lost of a format 6
 * file (after the calls of dropped functions).  false on a short or
 * invalid file.
 */
static bool
cgt_load_gone_edges(FILE *file)
{
	uint64		lost;
	int32		num;
	int32		i;

	if (fread(&lost, sizeof(lost), 1, file) != 1 ||
		fread(&num, sizeof(num), 1, file) != 1 || num < 0)
		return false;
	for (i = 0; i < num; i++)
	{
		cgtGoneEdge tmp;
		cgtGoneEdge *entry;
		bool		found;

		if (fread(&tmp.key, sizeof(tmp.key), 1, file) != 1 ||
			fread(&tmp.counters, sizeof(tmp.counters), 1, file) != 1)
			return false;
		entry = hash_search(cgt_gone_edges, &tmp.key, HASH_ENTER_NULL, &found);
		if (entry == NULL || found)
			continue;			/* cannot happen: the table had them all */
		entry->counters = tmp.counters;
	}
	pg_atomic_write_u64(&cgt_state->gone_edges_lost, lost);
	return true;
}

/* Write the edges of dropped functions and gone_edges_lost (format 6, last). */
static bool
cgt_save_gone_edges(FILE *file)
{
	uint64		lost = pg_atomic_read_u64(&cgt_state->gone_edges_lost);
	int32		num = (int32) hash_get_num_entries(cgt_gone_edges);
	HASH_SEQ_STATUS hash_seq;
	cgtGoneEdge *entry;

	if (fwrite(&lost, sizeof(lost), 1, file) != 1 ||
		fwrite(&num, sizeof(num), 1, file) != 1)
		return false;
	hash_seq_init(&hash_seq, cgt_gone_edges);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (fwrite(&entry->key, sizeof(entry->key), 1, file) != 1 ||
			fwrite(&entry->counters, sizeof(entry->counters), 1, file) != 1)
		{
			hash_seq_term(&hash_seq);
			return false;
		}
	}
	return true;
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
	if (header[1] >= 4 && !cgt_load_more(file))
		goto bad_file;
	if (header[1] >= 5 && !cgt_load_gone(file))
		goto bad_file;
	if (header[1] >= 6 && !cgt_load_gone_edges(file))
		goto bad_file;

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
	if (code != 0 || cgt_state == NULL || cgt_hash == NULL ||
		cgt_paths == NULL || cgt_shapes == NULL || cgt_timeline == NULL ||
		cgt_gone == NULL || cgt_gone_edges == NULL)
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

	if (!cgt_save_more(file) || !cgt_save_gone(file) || !cgt_save_gone_edges(file))
		goto error;

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
	cgt_paths = NULL;
	cgt_shapes = NULL;
	cgt_timeline = NULL;
	cgt_gone = NULL;
	cgt_gone_edges = NULL;

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
		pg_atomic_init_u64(&cgt_state->stale_kept, 0);
		pg_atomic_init_u64(&cgt_state->gone_edges_lost, 0);
		pg_atomic_init_u64(&cgt_state->paths_dropped, 0);
		pg_atomic_init_u64(&cgt_state->shapes_dropped, 0);
		pg_atomic_init_u64(&cgt_state->timeline_dropped, 0);
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

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtPathKey);
	info.entrysize = sizeof(cgtPathEntry);
	cgt_paths = ShmemInitHash("cgmap_trace paths",
							  cgt_max_paths, cgt_max_paths,
							  &info,
							  HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtShapeKey);
	info.entrysize = sizeof(cgtShapeEntry);
	cgt_shapes = ShmemInitHash("cgmap_trace shapes",
							   cgt_max_shapes, cgt_max_shapes,
							   &info,
							   HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtTlKey);
	info.entrysize = cgt_tl_entrysize();
	cgt_timeline = ShmemInitHash("cgmap_trace timeline",
								 cgt_max_functions, cgt_max_functions,
								 &info,
								 HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtGoneKey);
	info.entrysize = sizeof(cgtGoneEntry);
	cgt_gone = ShmemInitHash("cgmap_trace gone",
							 CGT_MAX_GONE, CGT_MAX_GONE,
							 &info,
							 HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(cgtKey);
	info.entrysize = sizeof(cgtGoneEdge);
	cgt_gone_edges = ShmemInitHash("cgmap_trace gone edges",
								   CGT_MAX_GONE_EDGES, CGT_MAX_GONE_EDGES,
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

/* The same for a path: its frames are copied into a new entry. */
static inline void
cgt_path_add(cgtPathEntry *entry, const cgtLocalPath *lp,
			 TimestampTz now_ts, uint64 now_c)
{
	TimestampTz first;
	TimestampTz last;
	double		min_ms = cgt_ticks_ms(lp->min);
	double		max_ms = cgt_ticks_ms(lp->max);

	first = now_ts - (now_c > lp->first ? cgt_ticks_usec(now_c - lp->first) : 0);
	last = now_ts - (now_c > lp->last ? cgt_ticks_usec(now_c - lp->last) : 0);

	SpinLockAcquire(&entry->mutex);
	if (entry->nframes == 0)
	{
		entry->nframes = lp->nframes;
		memcpy(entry->frames, lp->frames, sizeof(entry->frames));
	}
	if (entry->counters.calls == 0 || first < entry->counters.first_seen)
		entry->counters.first_seen = first;
	if (entry->counters.calls == 0 || last > entry->counters.last_seen)
		entry->counters.last_seen = last;
	if (entry->counters.calls == 0 || min_ms < entry->counters.min_ms)
		entry->counters.min_ms = min_ms;
	if (entry->counters.calls == 0 || max_ms > entry->counters.max_ms)
		entry->counters.max_ms = max_ms;
	entry->counters.calls += lp->calls;
	entry->counters.total_ms += cgt_ticks_ms(lp->total);
	entry->counters.self_ms += cgt_ticks_ms(lp->self);
	SpinLockRelease(&entry->mutex);
}

/* The same for a shape: its edges are copied into a new entry. */
static inline void
cgt_shape_add(cgtShapeEntry *entry, const cgtLocalShape *ls,
			  TimestampTz now_ts, uint64 now_c)
{
	TimestampTz first;
	TimestampTz last;

	first = now_ts - (now_c > ls->first ? cgt_ticks_usec(now_c - ls->first) : 0);
	last = now_ts - (now_c > ls->last ? cgt_ticks_usec(now_c - ls->last) : 0);

	SpinLockAcquire(&entry->mutex);
	if (entry->counters.calls == 0)
	{
		entry->nedges = ls->nedges;
		memcpy(entry->edges, ls->edges, sizeof(entry->edges));
	}
	if (entry->counters.calls == 0 || first < entry->counters.first_seen)
		entry->counters.first_seen = first;
	if (entry->counters.calls == 0 || last > entry->counters.last_seen)
		entry->counters.last_seen = last;
	entry->counters.calls += ls->calls;
	SpinLockRelease(&entry->mutex);
}

static inline void
cgt_path_key(cgtPathKey *key, uint64 hash)
{
	key->dbid = MyDatabaseId;
	key->pad = 0;
	key->hash = hash;
}

static inline void
cgt_shape_key(cgtShapeKey *key, const cgtLocalShape *ls)
{
	key->dbid = MyDatabaseId;
	key->entry = ls->entry;
	key->hash = ls->hash;
}

/*
 * Move this backend's batch (edges, paths, shapes, and the timeline taken
 * from the edges) into the shared tables.  Never raises an error: it runs
 * from transaction callbacks too.
 */
static void
cgt_flush(void)
{
	TimestampTz now_ts;
	uint64		now_c;
	int			i;
	int			missing = 0;
	bool		timeline;

	if (cgt_state != NULL)
	{
		if (cgt_local_temp_skipped > 0)
			pg_atomic_fetch_add_u64(&cgt_state->temp_skipped, cgt_local_temp_skipped);
		if (cgt_local_shapes_dropped > 0)
			pg_atomic_fetch_add_u64(&cgt_state->shapes_dropped, cgt_local_shapes_dropped);
	}
	cgt_local_temp_skipped = 0;
	cgt_local_shapes_dropped = 0;
	if (!cgt_batch_open)
		return;
	if (cgt_hash == NULL || cgt_paths == NULL || cgt_shapes == NULL ||
		cgt_timeline == NULL)
		goto clear;

	now_ts = GetCurrentTimestamp();
	now_c = cgt_clock();
	/* the wall clock of later batches is taken from this reading */
	cgt_anchor_ts = now_ts;
	cgt_anchor_c = now_c;
	cgt_anchor_valid = true;
	timeline = cgt_track_timeline;

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
		if (entry != NULL)
		{
			cgt_entry_add(entry, le, now_ts, now_c);
			le->done = true;
		}
		else
			missing++;
		/* a site run (callee 0) is no call of a function: no timeline */
		if (timeline && OidIsValid(le->key.callee))
		{
			cgtTlKey	tk;
			cgtTlEntry *te;

			tk.dbid = le->key.dbid;
			tk.fn_oid = le->key.callee;
			te = hash_search(cgt_timeline, &tk, HASH_FIND, NULL);
			if (te != NULL)
			{
				cgt_tl_add(te, cgt_batch_bucket, le->calls, cgt_ticks_ms(le->self));
				le->tl_done = true;
			}
			else
				missing++;
		}
		else
			le->tl_done = true;
	}
	for (i = 0; i < cgt_lpath_used; i++)
	{
		cgtLocalPath *lp = &cgt_lpath[cgt_lpath_slots[i]];
		cgtPathKey	key;
		cgtPathEntry *entry;

		cgt_path_key(&key, lp->hash);
		entry = hash_search(cgt_paths, &key, HASH_FIND, NULL);
		if (entry != NULL)
		{
			cgt_path_add(entry, lp, now_ts, now_c);
			lp->done = true;
		}
		else
			missing++;
	}
	for (i = 0; i < cgt_lshape_used; i++)
	{
		cgtLocalShape *ls = &cgt_lshape[cgt_lshape_slots[i]];
		cgtShapeKey key;
		cgtShapeEntry *entry;

		cgt_shape_key(&key, ls);
		entry = hash_search(cgt_shapes, &key, HASH_FIND, NULL);
		if (entry != NULL)
		{
			cgt_shape_add(entry, ls, now_ts, now_c);
			ls->done = true;
		}
		else
			missing++;
	}
	LWLockRelease(cgt_state->lock);

	if (missing > 0)
	{
		/* new entries: insert them under the exclusive lock */
		LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
		if (pg_atomic_read_u64(&cgt_state->reset_gen) == cgt_local_gen)
		{
			for (i = 0; i < cgt_local_used; i++)
			{
				cgtLocalEntry *le = &cgt_local[cgt_local_slots[i]];

				if (!le->done)
				{
					cgtEntry   *entry = cgt_entry_alloc(&le->key);

					if (entry == NULL)
						pg_atomic_fetch_add_u64(&cgt_state->dropped, (uint64) le->calls);
					else
						cgt_entry_add(entry, le, now_ts, now_c);
				}
				if (!le->tl_done)
				{
					cgtTlKey	tk;
					cgtTlEntry *te;

					tk.dbid = le->key.dbid;
					tk.fn_oid = le->key.callee;
					te = cgt_tl_alloc(&tk);
					if (te == NULL)
						pg_atomic_fetch_add_u64(&cgt_state->timeline_dropped, (uint64) le->calls);
					else
						cgt_tl_add(te, cgt_batch_bucket, le->calls, cgt_ticks_ms(le->self));
				}
			}
			for (i = 0; i < cgt_lpath_used; i++)
			{
				cgtLocalPath *lp = &cgt_lpath[cgt_lpath_slots[i]];
				cgtPathKey	key;
				cgtPathEntry *entry;

				if (lp->done)
					continue;
				cgt_path_key(&key, lp->hash);
				entry = cgt_path_alloc(&key);
				if (entry == NULL)
					pg_atomic_fetch_add_u64(&cgt_state->paths_dropped, (uint64) lp->calls);
				else
					cgt_path_add(entry, lp, now_ts, now_c);
			}
			for (i = 0; i < cgt_lshape_used; i++)
			{
				cgtLocalShape *ls = &cgt_lshape[cgt_lshape_slots[i]];
				cgtShapeKey key;
				cgtShapeEntry *entry;

				if (ls->done)
					continue;
				cgt_shape_key(&key, ls);
				entry = cgt_shape_alloc(&key);
				if (entry == NULL)
					pg_atomic_fetch_add_u64(&cgt_state->shapes_dropped, (uint64) ls->calls);
				else
					cgt_shape_add(entry, ls, now_ts, now_c);
			}
		}
		LWLockRelease(cgt_state->lock);
	}

clear:
	for (i = 0; i < cgt_local_used; i++)
		cgt_local[cgt_local_slots[i]].used = false;
	cgt_local_used = 0;
	for (i = 0; i < cgt_lpath_used; i++)
		cgt_lpath[cgt_lpath_slots[i]].used = false;
	cgt_lpath_used = 0;
	for (i = 0; i < cgt_lshape_used; i++)
		cgt_lshape[cgt_lshape_slots[i]].used = false;
	cgt_lshape_used = 0;
	cgt_batch_open = false;
}

static void
cgt_backend_exit(int code, Datum arg)
{
	cgt_flush();
}

/*
 * Start a batch with a call that ended at cgt_clock() 'now': its timeline
 * bucket, and the clock reading at which that bucket ends.
 */
static void
cgt_batch_begin(uint64 now)
{
	int64		usec = (int64) cgt_bucket_seconds * USECS_PER_SEC;
	TimestampTz ts;
	TimestampTz end_ts;

	if (!cgt_anchor_valid)
	{
		cgt_anchor_ts = GetCurrentTimestamp();
		cgt_anchor_c = cgt_clock();
		cgt_anchor_valid = true;
	}
	ts = cgt_anchor_ts + (now > cgt_anchor_c ? cgt_ticks_usec(now - cgt_anchor_c) : 0);
	cgt_batch_bucket = ts > 0 ? ts / usec : 0;
	end_ts = (cgt_batch_bucket + 1) * usec;
	cgt_batch_bucket_end = cgt_anchor_c +
		(uint64) ((double) (end_ts - cgt_anchor_ts) * cgt_ticks_per_usec);
	cgt_local_gen = pg_atomic_read_u64(&cgt_state->reset_gen);
	cgt_local_oldest = now;
	if (!cgt_exit_registered)
	{
		before_shmem_exit(cgt_backend_exit, (Datum) 0);
		cgt_exit_registered = true;
	}
	cgt_batch_open = true;
}

/* Before recording a call that ended at 'now': a batch of its bucket. */
static inline void
cgt_batch_prepare(uint64 now)
{
	if (cgt_batch_open && now >= cgt_batch_bucket_end)
		cgt_flush();
	if (!cgt_batch_open)
		cgt_batch_begin(now);
}

/* After recording: flush a batch that is nearly full or over a second old. */
static inline void
cgt_batch_check(uint64 now)
{
	if (cgt_local_used >= CGT_LOCAL_MAXFILL ||
		cgt_lpath_used >= CGT_LPATH_MAXFILL ||
		cgt_lshape_used >= CGT_LSHAPE_MAXFILL)
		cgt_flush();
	else if (now > cgt_local_oldest && now - cgt_local_oldest >= cgt_flush_ticks)
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

/* Count one finished call in this backend's (open) batch. */
static inline void
cgt_record(const cgtKey *key, int64 calls, uint64 total, uint64 self,
		   uint64 end)
{
	uint32		i;
	cgtLocalEntry *le;

	i = cgt_key_hash(key) & (CGT_LOCAL_SIZE - 1);
	for (;;)
	{
		le = &cgt_local[i];
		if (!le->used)
		{
			memcpy(&le->key, key, sizeof(cgtKey));	/* padding too: a blob key */
			le->used = true;
			le->done = false;
			le->tl_done = false;
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
	le->calls += calls;
	le->total += total;
	le->self += self;
	le->last = end;
}

/* ====================================================================
 * Call paths
 *
 * A frame's path is the chain of (function, call-site line) frames from
 * its entry point (line 0) down to it, identified by a 64-bit hash chained
 * frame by frame as calls are pushed (cgt_path_mix), so that nothing is
 * walked per call.  A DO block's callees are entry points, as for edges.
 * Recursion makes paths as deep as the stack: a path longer than
 * CGT_PATH_DEPTH frames keeps its first CGT_PATH_KEEP frames, a marker
 * frame (function 0) and its last frame, so all the deeper calls of one
 * function below one prefix are one path.  The hash depends only on the
 * frames kept, so it is the same in every backend and across restarts.
 * ==================================================================== */

#define CGT_PATH_SEED	UINT64CONST(0x9e3779b97f4a7c15)

static inline uint64
cgt_path_mix(uint64 h, uint32 a, uint32 b)
{
	uint64		x = h ^ (((uint64) a << 32) | (uint64) b);

	/* the finalizer of MurmurHash3: every input bit moves every output bit */
	x ^= x >> 33;
	x *= UINT64CONST(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64CONST(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* The frames of the path of cgt_stack[idx] (see above). */
static void
cgt_path_frames(cgtLocalPath *lp, int idx)
{
	const cgtFrame *frame = &cgt_stack[idx];
	int			start = idx - (frame->path_len - 1);
	int			stop = frame->path_len <= CGT_PATH_DEPTH ? idx : start + CGT_PATH_KEEP - 1;
	int			n = 0;
	int			j;

	for (j = start; j <= stop; j++)
	{
		lp->frames[n].fn_oid = cgt_stack[j].fn_oid;
		lp->frames[n].line = j == start ? 0 : cgt_stack[j].line;
		n++;
	}
	if (frame->path_len > CGT_PATH_DEPTH)
	{
		lp->frames[n].fn_oid = InvalidOid;	/* the marker */
		lp->frames[n].line = 0;
		n++;
		lp->frames[n].fn_oid = frame->fn_oid;
		lp->frames[n].line = frame->line;
		n++;
	}
	lp->nframes = n;
	if (n < CGT_PATH_DEPTH)
		memset(&lp->frames[n], 0, sizeof(cgtPathFrame) * (CGT_PATH_DEPTH - n));
}

/*
 * Count one finished call of cgt_stack[idx] under its path (calls 0: an
 * invocation of a value-per-call SRF that adds time to its call).
 */
static inline void
cgt_record_path(int idx, int64 calls, uint64 total, uint64 self, uint64 end)
{
	uint64		hash = cgt_stack[idx].path_hash;
	uint32		i = (uint32) hash & (CGT_LPATH_SIZE - 1);
	cgtLocalPath *lp;

	for (;;)
	{
		lp = &cgt_lpath[i];
		if (!lp->used)
		{
			lp->hash = hash;
			lp->used = true;
			lp->done = false;
			lp->calls = 0;
			lp->total = 0;
			lp->self = 0;
			lp->min = PG_UINT64_MAX;
			lp->max = 0;
			lp->first = end;
			cgt_path_frames(lp, idx);
			cgt_lpath_slots[cgt_lpath_used++] = (uint16) i;
			break;
		}
		if (lp->hash == hash)
			break;
		i = (i + 1) & (CGT_LPATH_SIZE - 1);
	}
	lp->calls += calls;
	lp->total += total;
	lp->self += self;
	if (calls > 0)
	{
		if (total < lp->min)
			lp->min = total;
		if (total > lp->max)
			lp->max = total;
	}
	lp->last = end;
}

/* ====================================================================
 * Shapes
 *
 * While a top-level call (a frame whose path has one frame) runs, the
 * distinct edges of the calls below it are collected in a small set
 * (cgt_shape_cur, at most CGT_SHAPE_EDGES; more and the call's shape is
 * counted in shapes_dropped).  When it ends, the set is sorted, hashed,
 * and counted per (database, entry point, hash) in the batch.
 * ==================================================================== */

/* Note an edge of the current top-level call. */
static inline void
cgt_shape_note(const cgtKey *key)
{
	uint32		h;
	uint32		i;

	h = key->callee * 0x9E3779B1U;
	h ^= key->caller * 0x85EBCA77U;
	h ^= ((uint32) key->line + (key->dynamic ? 0x40000000U : 0)) * 0xC2B2AE3DU;
	h ^= h >> 15;
	i = h & (CGT_SHAPE_SET - 1);
	for (;;)
	{
		uint8		v = cgt_shape_set[i];

		if (v == 0)
			break;
		{
			const cgtShapeEdge *e = &cgt_shape_cur[v - 1];

			if (e->callee == key->callee && e->caller == key->caller &&
				e->line == key->line && e->dynamic == (key->dynamic ? 1 : 0))
				return;
		}
		i = (i + 1) & (CGT_SHAPE_SET - 1);
	}
	if (cgt_shape_n >= CGT_SHAPE_EDGES)
	{
		cgt_shape_overflow = true;
		return;
	}
	cgt_shape_cur[cgt_shape_n].caller = key->caller;
	cgt_shape_cur[cgt_shape_n].callee = key->callee;
	cgt_shape_cur[cgt_shape_n].line = key->line;
	cgt_shape_cur[cgt_shape_n].dynamic = key->dynamic ? 1 : 0;
	cgt_shape_n++;
	cgt_shape_set[i] = (uint8) cgt_shape_n;
}

static inline int
cgt_shape_edge_cmp(const cgtShapeEdge *a, const cgtShapeEdge *b)
{
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	if (a->callee != b->callee)
		return a->callee < b->callee ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->dynamic - b->dynamic;
}

/* The top-level call of 'entry' ended at 'end': count its shape. */
static void
cgt_shape_finish(Oid entry, uint64 end)
{
	uint64		hash = CGT_PATH_SEED;
	uint32		i;
	int			j;
	cgtLocalShape *ls;

	if (cgt_shape_overflow)
	{
		cgt_local_shapes_dropped++;
		return;
	}
	/* insertion sort: a few dozen edges at most */
	for (j = 1; j < cgt_shape_n; j++)
	{
		cgtShapeEdge e = cgt_shape_cur[j];
		int			k = j - 1;

		while (k >= 0 && cgt_shape_edge_cmp(&cgt_shape_cur[k], &e) > 0)
		{
			cgt_shape_cur[k + 1] = cgt_shape_cur[k];
			k--;
		}
		cgt_shape_cur[k + 1] = e;
	}
	for (j = 0; j < cgt_shape_n; j++)
	{
		hash = cgt_path_mix(hash, cgt_shape_cur[j].caller, cgt_shape_cur[j].callee);
		hash = cgt_path_mix(hash, (uint32) cgt_shape_cur[j].line,
							(uint32) cgt_shape_cur[j].dynamic);
	}
	hash = cgt_path_mix(hash, (uint32) cgt_shape_n, 0);

	i = (uint32) (hash ^ entry) & (CGT_LSHAPE_SIZE - 1);
	for (;;)
	{
		ls = &cgt_lshape[i];
		if (!ls->used)
		{
			ls->entry = entry;
			ls->hash = hash;
			ls->used = true;
			ls->done = false;
			ls->calls = 0;
			ls->first = end;
			ls->nedges = cgt_shape_n;
			memcpy(ls->edges, cgt_shape_cur, sizeof(cgtShapeEdge) * cgt_shape_n);
			if (cgt_shape_n < CGT_SHAPE_EDGES)
				memset(&ls->edges[cgt_shape_n], 0,
					   sizeof(cgtShapeEdge) * (CGT_SHAPE_EDGES - cgt_shape_n));
			cgt_lshape_slots[cgt_lshape_used++] = (uint16) i;
			break;
		}
		if (ls->hash == hash && ls->entry == entry)
			break;
		i = (i + 1) & (CGT_LSHAPE_SIZE - 1);
	}
	ls->calls++;
	ls->last = end;
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

/*
 * The OPEN of this function (fn_oid) that opened the portal the cursor
 * variable names, or NULL: then a caller or a function it called opened
 * it (a refcursor parameter, a variable a call filled), and its FETCH runs
 * a query written elsewhere: dynamic, like an EXECUTE, for the edges and
 * the runs (see "Dynamic statements that ran").
 */
static const cgtCursor *
cgt_cursor_open(Oid fn_oid, const PLpgSQL_execstate *estate, int curvar)
{
	const char *name;
	int			len;
	int			i;

	if (!OidIsValid(fn_oid) || !cgt_cursor_name(estate, curvar, &name, &len))
		return NULL;
	for (i = 1; i <= CGT_CURSORS; i++)
	{
		const cgtCursor *c = &cgt_cursors[(cgt_cursor_next - i + CGT_CURSORS) % CGT_CURSORS];

		if (c->fn_oid == fn_oid && c->namelen == len && memcmp(c->name, name, len) == 0)
			return c;
	}
	return NULL;
}

/* A call made by a FETCH/MOVE: use the site of the OPEN of that cursor. */
static void
cgt_fetch_site(cgtFrame *frame, const cgtFrame *parent,
			   const PLpgSQL_execstate *estate, int curvar)
{
	const cgtCursor *c = cgt_cursor_open(parent->fn_oid, estate, curvar);

	if (c == NULL)
	{
		frame->dynamic = true;	/* opened elsewhere: at the FETCH's line */
		return;
	}
	frame->line = c->line;
	frame->dynamic = c->dynamic;
}

/* Push a frame; the call site comes from the frame below. */
static void
cgt_push(const void *ident, Oid fn_oid, bool is_plpgsql, bool fn_temp,
		 bool counts)
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
	frame->counts = counts;
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

	/* the path to this frame (see "Call paths") */
	if (!OidIsValid(fn_oid))
	{
		/* a DO block: its callees are entry points */
		frame->path_len = 0;
		frame->path_hash = CGT_PATH_SEED;
		frame->path_skip = false;
	}
	else
	{
		const cgtFrame *parent = cgt_depth > 0 ? &cgt_stack[cgt_depth - 1] : NULL;
		int32		plen = parent != NULL ? parent->path_len : 0;

		frame->path_len = plen + 1;
		frame->path_skip = fn_temp || (plen > 0 && parent->path_skip);
		if (plen == 0)
			frame->path_hash = cgt_path_mix(CGT_PATH_SEED, fn_oid, 0);
		else if (frame->path_len <= CGT_PATH_DEPTH)
			frame->path_hash = cgt_path_mix(parent->path_hash, fn_oid,
											(uint32) frame->line);
		else
		{
			/* cut: the first CGT_PATH_KEEP frames, the marker, this one */
			uint64		kept = cgt_stack[cgt_depth - plen + CGT_PATH_KEEP - 1].path_hash;

			frame->path_hash = cgt_path_mix(cgt_path_mix(kept, 0, 0), fn_oid,
											(uint32) frame->line);
		}
		if (plen == 0 && cgt_shape_owner < 0 && cgt_track_shapes &&
			!frame->path_skip && counts)
		{
			/* a top-level call: collect the edges below it */
			cgt_shape_owner = cgt_depth;
			cgt_shape_n = 0;
			cgt_shape_overflow = false;
			memset(cgt_shape_set, 0, sizeof(cgt_shape_set));
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
		else if (OidIsValid(frame->fn_oid) && cgt_hash != NULL)
		{
			cgtKey		key;
			int			idx = cgt_depth - 1;

			memset(&key, 0, sizeof(key));
			key.dbid = MyDatabaseId;
			key.caller = frame->caller;
			key.callee = frame->fn_oid;
			key.line = frame->line;
			key.dynamic = frame->dynamic;
			key.body = frame->caller_body;
			cgt_batch_prepare(now);
			cgt_record(&key, frame->counts ? 1 : 0, total, self, now);
			if (cgt_track_paths && !frame->path_skip)
				cgt_record_path(idx, frame->counts ? 1 : 0, total, self, now);
			if (cgt_shape_owner >= 0 && idx > cgt_shape_owner &&
				frame->path_len >= 2)
				cgt_shape_note(&key);
			else if (idx == cgt_shape_owner)
				cgt_shape_finish(frame->fn_oid, now);
			cgt_batch_check(now);
		}
		if (cgt_depth - 1 == cgt_shape_owner)
			cgt_shape_owner = -1;
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
 *     every database dropped by this backend's transaction, a function with
 *     its qualified identity (the catalog still has it then); subtransaction
 *     aborts forget what they dropped, and at commit the edges of what the
 *     transaction dropped are removed from the shared table;
 *   - the calls those edges counted are not lost with them: each edge's
 *     calls are added to its callee's entry in the table of dropped
 *     functions' calls (cgmap_trace_gone()), under the callee's identity
 *     when the callee was dropped, so that a reader finds them for a
 *     function of the same identity created again (tests drop and create
 *     their functions), and under the callee itself when only its caller
 *     was.  Such edges, the site runs of a dropped function and the
 *     records of a dropped database count in stale_kept as well as in
 *     stale_removed: their removal hides no call of a function that exists.
 *     An identity too long for an entry, or a full table, loses the calls
 *     (stale_removed only);
 *   - from 1.8 the removed edges and site runs themselves are kept as
 *     well, in cgt_gone_edges under the OIDs they had, and each dropped
 *     function they name is named in cgt_gone by its identity (with no
 *     calls of its own when it was only a caller); a later drop of a
 *     function they name by a live OID names it then.  A reader matches
 *     the identities to the functions created again, so that an edge a
 *     test suite ran before it dropped and reloaded its schema is still an
 *     observed edge, and a dynamic statement that ran still ran.  What
 *     has no room or no name counts in gone_edges_lost;
 *   - cgmap_trace_edges() checks the OIDs of the current database's edges
 *     against pg_proc and removes the edges whose function does not exist,
 *     even for a transaction still in progress (a dirty snapshot): this
 *     catches what the hook cannot see, e.g. a call flushed by another
 *     backend just after the drop committed, a function whose creating
 *     transaction rolled back after calling it (no DROP at all), or a
 *     prepared transaction.  From 1.6 these removals keep what they can
 *     (cgt_remove_stale): an edge whose callee exists adds its calls to
 *     the callee's entry, as a drop of its caller does; an edge whose
 *     callee is gone, or a site run, hides no call of a function that
 *     exists.  Both count in stale_kept.  There is no identity to keep for
 *     a callee found gone only then (the catalog no longer has it), so a
 *     function of the same identity created again does not get its calls:
 *     they were the calls of another OID, which pg_stat_user_functions
 *     does not give a later function of the same name either.
 * ==================================================================== */

typedef struct cgtDrop
{
	Oid			dbid;
	Oid			fn_oid;			/* InvalidOid: the whole database */
	SubTransactionId subid;
	const char *identity;		/* the function's qualified identity, NULL
								 * when too long for an entry of cgt_gone */
} cgtDrop;

static cgtDrop *cgt_drops = NULL;	/* in TopTransactionContext */
static int	cgt_ndrops = 0;
static int	cgt_drops_cap = 0;

static void
cgt_note_drop(Oid dbid, Oid fn_oid, const char *identity)
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
	cgt_drops[cgt_ndrops].identity = identity;
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
		{
			/*
			 * Named now: at commit the catalog no longer has it.  Qualified
			 * name and argument types, as to_regprocedure() reads them back
			 * whatever the reader's search_path.
			 */
			char	   *identity = format_procedure_qualified(objectId);
			char	   *kept = NULL;

			if (strlen(identity) < CGT_IDENTITY_LEN)
				kept = MemoryContextStrdup(TopTransactionContext, identity);
			pfree(identity);
			cgt_note_drop(MyDatabaseId, objectId, kept);
		}
	}
	else if (classId == DatabaseRelationId)
		cgt_note_drop(objectId, InvalidOid, NULL);
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

/* The drop of (dbid, fn_oid), or NULL.  cgt_drops is sorted. */
static const cgtDrop *
cgt_find_drop(Oid dbid, Oid fn_oid)
{
	int			lo = 0;
	int			hi = cgt_ndrops - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const cgtDrop *d = &cgt_drops[mid];

		if (d->dbid == dbid && d->fn_oid == fn_oid)
			return d;
		if (d->dbid < dbid || (d->dbid == dbid && d->fn_oid < fn_oid))
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static bool
cgt_dropped(Oid dbid, Oid fn_oid)
{
	return cgt_find_drop(dbid, fn_oid) != NULL;
}

/*
 * Add the calls an edge counted to its callee's entry in cgt_gone: under
 * the callee's identity when it was dropped (drop), under the callee itself
 * otherwise (drop NULL).  false when they cannot be kept (an identity too
 * long, a full table).  Exclusive lock held; no allocation, no error.
 */
/* Add counters `c` to `to`: sums, and the widest seen interval. */
static void
cgt_counters_add(cgtCounters *to, const cgtCounters *c)
{
	to->calls += c->calls;
	to->total_ms += c->total_ms;
	to->self_ms += c->self_ms;
	if (c->first_seen < to->first_seen)
		to->first_seen = c->first_seen;
	if (c->last_seen > to->last_seen)
		to->last_seen = c->last_seen;
}

static bool
cgt_gone_add(Oid dbid, Oid callee, const cgtDrop *drop, const cgtCounters *c)
{
	cgtGoneKey	key;
	cgtGoneEntry *g;
	bool		found;

	if (drop != NULL && drop->identity == NULL)
		return false;
	key.dbid = dbid;
	key.fn_oid = callee;
	g = hash_search(cgt_gone, &key, HASH_ENTER_NULL, &found);
	if (g == NULL)
		return false;
	if (!found)
	{
		g->identity[0] = '\0';
		memset(&g->counters, 0, sizeof(g->counters));
		g->counters.first_seen = c->first_seen;
		g->counters.last_seen = c->last_seen;
	}
	if (drop != NULL)
		strlcpy(g->identity, drop->identity, sizeof(g->identity));
	cgt_counters_add(&g->counters, c);
	return true;
}

/*
 * Name a dropped function in cgt_gone by its identity (adding no calls), so
 * that the edges cgt_gone_edges keeps under its OID say which function
 * they were of.  false when it cannot be named (an identity too long, a
 * full table).  Exclusive lock held; no allocation, no error.
 */
static bool
cgt_gone_name(Oid dbid, Oid fn_oid, const cgtDrop *drop, const cgtCounters *c)
{
	cgtCounters none = {0};

	none.first_seen = c->first_seen;
	none.last_seen = c->last_seen;
	return drop != NULL && cgt_gone_add(dbid, fn_oid, drop, &none);
}

/*
 * Keep an edge or site run removed with a dropped function in
 * cgt_gone_edges, adding to the record of the same key (a function dropped
 * and created again with the same OID is not told apart, as the edge table
 * does not either).  No room counts in gone_edges_lost.  Exclusive lock
 * held; no allocation, no error.
 */
static void
cgt_keep_edge(const cgtKey *key, const cgtCounters *c)
{
	cgtGoneEdge *ge;
	bool		found;

	ge = hash_search(cgt_gone_edges, key, HASH_ENTER_NULL, &found);
	if (ge == NULL)
	{
		pg_atomic_fetch_add_u64(&cgt_state->gone_edges_lost, 1);
		return;
	}
	if (!found)
		ge->counters = *c;
	else
		cgt_counters_add(&ge->counters, c);
}

/*
 * Remove the paths, shapes and timeline entries that name a function (or
 * database: fn_oid InvalidOid) for which gone() says true.  Exclusive lock
 * held; no allocation, no error.
 */
typedef bool (*cgtGoneFn) (Oid dbid, Oid fn_oid, const void *arg);

static void
cgt_remove_named(cgtGoneFn gone_fn, const void *arg)
{
	HASH_SEQ_STATUS hash_seq;

	{
		cgtPathEntry *pe;

		hash_seq_init(&hash_seq, cgt_paths);
		while ((pe = hash_seq_search(&hash_seq)) != NULL)
		{
			bool		gone = gone_fn(pe->key.dbid, InvalidOid, arg);
			int			i;

			for (i = 0; i < pe->nframes && !gone; i++)
				gone = OidIsValid(pe->frames[i].fn_oid) &&
					gone_fn(pe->key.dbid, pe->frames[i].fn_oid, arg);
			if (gone)
				hash_search(cgt_paths, &pe->key, HASH_REMOVE, NULL);
		}
	}
	{
		cgtShapeEntry *se;

		hash_seq_init(&hash_seq, cgt_shapes);
		while ((se = hash_seq_search(&hash_seq)) != NULL)
		{
			bool		gone = gone_fn(se->key.dbid, InvalidOid, arg) ||
				gone_fn(se->key.dbid, se->key.entry, arg);
			int			i;

			for (i = 0; i < se->nedges && !gone; i++)
				gone = gone_fn(se->key.dbid, se->edges[i].caller, arg) ||
					gone_fn(se->key.dbid, se->edges[i].callee, arg);
			if (gone)
				hash_search(cgt_shapes, &se->key, HASH_REMOVE, NULL);
		}
	}
	{
		cgtTlEntry *te;

		hash_seq_init(&hash_seq, cgt_timeline);
		while ((te = hash_seq_search(&hash_seq)) != NULL)
		{
			if (gone_fn(te->key.dbid, InvalidOid, arg) ||
				gone_fn(te->key.dbid, te->key.fn_oid, arg))
				hash_search(cgt_timeline, &te->key, HASH_REMOVE, NULL);
		}
	}
}

/* cgtGoneFn of a commit: what this transaction dropped */
static bool
cgt_drop_gone(Oid dbid, Oid fn_oid, const void *arg)
{
	return cgt_dropped(dbid, fn_oid);
}

/*
 * At commit: remove the edges of what this transaction dropped, keeping
 * the calls they counted in cgt_gone.  Runs in a commit callback: no
 * allocation, no error.
 */
static void
cgt_apply_drops(void)
{
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;
	uint64		removed = 0;
	uint64		kept = 0;

	if (cgt_ndrops == 0 || cgt_hash == NULL)
		return;
	qsort(cgt_drops, cgt_ndrops, sizeof(cgtDrop), cgt_drop_cmp);

	LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
	{
		cgtGoneEntry *g;

		/*
		 * Entries of a dropped database go; a function counted only for
		 * its dropped callers until now takes its own identity.
		 */
		hash_seq_init(&hash_seq, cgt_gone);
		while ((g = hash_seq_search(&hash_seq)) != NULL)
		{
			const cgtDrop *drop = cgt_find_drop(g->key.dbid, g->key.fn_oid);

			if (cgt_dropped(g->key.dbid, InvalidOid))
				hash_search(cgt_gone, &g->key, HASH_REMOVE, NULL);
			else if (drop != NULL && g->identity[0] == '\0')
			{
				if (drop->identity != NULL)
					strlcpy(g->identity, drop->identity, sizeof(g->identity));
				else
				{
					hash_search(cgt_gone, &g->key, HASH_REMOVE, NULL);
					removed++;
				}
			}
		}
	}
	{
		cgtGoneEdge *ge;
		uint64		unnamed = 0;

		/*
		 * Edges kept earlier: a dropped database's go; a function they
		 * named by its OID, dropped now, is named by its identity.
		 */
		hash_seq_init(&hash_seq, cgt_gone_edges);
		while ((ge = hash_seq_search(&hash_seq)) != NULL)
		{
			const cgtKey *k = &ge->key;
			const cgtDrop *caller_drop;
			const cgtDrop *callee_drop;

			if (cgt_dropped(k->dbid, InvalidOid))
			{
				hash_search(cgt_gone_edges, &ge->key, HASH_REMOVE, NULL);
				continue;
			}
			caller_drop = OidIsValid(k->caller) ? cgt_find_drop(k->dbid, k->caller) : NULL;
			callee_drop = OidIsValid(k->callee) ? cgt_find_drop(k->dbid, k->callee) : NULL;
			if ((caller_drop != NULL &&
				 !cgt_gone_name(k->dbid, k->caller, caller_drop, &ge->counters)) ||
				(callee_drop != NULL &&
				 !cgt_gone_name(k->dbid, k->callee, callee_drop, &ge->counters)))
			{
				hash_search(cgt_gone_edges, &ge->key, HASH_REMOVE, NULL);
				unnamed++;
			}
		}
		if (unnamed > 0)
			pg_atomic_fetch_add_u64(&cgt_state->gone_edges_lost, unnamed);
	}
	hash_seq_init(&hash_seq, cgt_hash);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		const cgtKey *k = &entry->key;
		const cgtDrop *callee_drop;
		const cgtDrop *caller_drop;
		bool		callee_named;

		if (cgt_dropped(k->dbid, InvalidOid))
		{
			/* no function of a database that exists is hidden */
			hash_search(cgt_hash, &entry->key, HASH_REMOVE, NULL);
			removed++;
			kept++;
			continue;
		}
		callee_drop = OidIsValid(k->callee) ? cgt_find_drop(k->dbid, k->callee) : NULL;
		caller_drop = OidIsValid(k->caller) ? cgt_find_drop(k->dbid, k->caller) : NULL;
		if (callee_drop == NULL && caller_drop == NULL)
			continue;
		/*
		 * A site run (no callee) counts no call; an edge's calls go to its
		 * callee's entry.
		 */
		callee_named = !OidIsValid(k->callee) ||
			cgt_gone_add(k->dbid, k->callee, callee_drop, &entry->counters);
		if (callee_named)
			kept++;
		/*
		 * From 1.8 the edge itself is kept too, under the OIDs, each
		 * dropped one named in cgt_gone: that it ran, from which line of
		 * which body, is what makes it an observed edge of the functions
		 * created again with those identities.
		 */
		if (callee_named &&
			(caller_drop == NULL ||
			 cgt_gone_name(k->dbid, k->caller, caller_drop, &entry->counters)))
			cgt_keep_edge(&entry->key, &entry->counters);
		else
			pg_atomic_fetch_add_u64(&cgt_state->gone_edges_lost, 1);
		hash_search(cgt_hash, &entry->key, HASH_REMOVE, NULL);
		removed++;
	}
	if (removed > 0)
		pg_atomic_fetch_add_u64(&cgt_state->stale_removed, removed);
	if (kept > 0)
		pg_atomic_fetch_add_u64(&cgt_state->stale_kept, kept);

	/* paths, shapes and timeline entries that name a dropped function */
	cgt_remove_named(cgt_drop_gone, NULL);
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

	cgt_push(estate, func->fn_oid, true, cgt_fn_is_temp(func->fn_oid), true);
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

/*
 * Count one finished dynamic statement of the innermost frame's function
 * (see "Dynamic statements that ran").  The frame must be this estate's:
 * after an error recovery not yet reconciled it may not be, and nothing is
 * counted then.
 */
static void
cgt_count_site_run(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt)
{
	cgtFrame   *frame;
	cgtKey		key;
	uint64		now;

	if (cgt_depth == 0)
		return;
	frame = &cgt_stack[cgt_depth - 1];
	if (frame->ident != (const void *) estate || frame->fn_temp ||
		!OidIsValid(frame->fn_oid))
		return;
	if (!frame->body_known)
	{
		frame->body = cgt_fn_body(frame->fn_oid);
		frame->body_known = true;
	}
	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.caller = frame->fn_oid;
	key.callee = InvalidOid;
	key.line = stmt->lineno;
	key.dynamic = true;
	key.body = frame->body;
	now = cgt_clock();
	cgt_batch_prepare(now);
	cgt_record(&key, 1, 0, 0, now);
	cgt_batch_check(now);
}

static void
cgt_stmt_end(PLpgSQL_execstate *estate, PLpgSQL_stmt *stmt)
{
	if (cgt_enabled && cgt_hash != NULL &&
		(cgt_stmt_is_dynamic(stmt) ||
		 (stmt->cmd_type == PLPGSQL_STMT_FETCH &&
		  cgt_cursor_open(estate->func->fn_oid, estate,
						  ((const PLpgSQL_stmt_fetch *) stmt)->curvar) == NULL)))
		cgt_count_site_run(estate, stmt);

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

/*
 * Set-returning functions
 *
 * PostgreSQL calls a value-per-call SRF once per row and once more for the
 * end of the set, and its statistics count one call per evaluation: the
 * caller of the function (fmgr_security_definer, which also runs the fmgr
 * hook) counts a call only when the function returns with isDone other
 * than ExprMultipleResult.  The fmgr hook does not see fcinfo, so the first
 * FHET_START of a traced SRF puts cgt_srf_call in the FmgrInfo's fn_addr
 * (that FmgrInfo is private to fmgr_security_definer, which calls it right
 * after the hook): cgt_srf_call runs the function and notes in the cache
 * whether the set goes on.  An invocation that starts while the set goes
 * on counts no call, only its time, so an evaluation counts one call, at
 * its first row, as it does when it is stopped early (a LIMIT: PostgreSQL
 * never calls it for the end of the set and counts no call) or by an error
 * (PostgreSQL counts none either): the function ran.  The evaluation is
 * over when the function returns anything else, raises an error
 * (FHET_ABORT), or when the ExprContext it runs in is shut down or rescanned
 * (cgt_srf_shutdown, registered as the executor registers its own); a
 * materialize-mode SRF returns once per call and counts once.
 */
static cgtFnCache *cgt_srf_next = NULL;	/* set by FHET_START for cgt_srf_call */

static void
cgt_srf_shutdown(Datum arg)
{
	cgtFnCache *fc = (cgtFnCache *) DatumGetPointer(arg);

	fc->in_set = false;
	fc->shutdown_reg = false;
}

static Datum
cgt_srf_call(PG_FUNCTION_ARGS)
{
	cgtFnCache *fc = cgt_srf_next;
	ReturnSetInfo *rsi;
	Datum		result;

	cgt_srf_next = NULL;
	if (fc == NULL || fc->flinfo != fcinfo->flinfo || fc->real_addr == NULL)
		elog(ERROR, "cgmap_trace: set-returning function %u called without the fmgr hook",
			 fcinfo->flinfo->fn_oid);

	result = fc->real_addr(fcinfo);

	rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	if (rsi != NULL && IsA(rsi, ReturnSetInfo) &&
		rsi->returnMode == SFRM_ValuePerCall &&
		rsi->isDone == ExprMultipleResult)
	{
		fc->in_set = true;
		/*
		 * The executor's ExprContexts and the FmgrInfos of their expressions
		 * live in the same per-query memory: only then can the callback
		 * outlive nothing it points to.
		 */
		if (!fc->shutdown_reg && rsi->econtext != NULL &&
			rsi->econtext->ecxt_per_query_memory == fc->mcxt)
		{
			RegisterExprContextCallback(rsi->econtext, cgt_srf_shutdown,
										PointerGetDatum(fc));
			fc->shutdown_reg = true;
		}
	}
	else
		fc->in_set = false;
	return result;
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
		fc->flinfo = flinfo;
		fc->mcxt = flinfo->fn_mcxt;
		*arg = PointerGetDatum(fc);
		if (fc->traced && flinfo->fn_retset && event == FHET_START)
		{
			/* see "Set-returning functions" above */
			fc->real_addr = flinfo->fn_addr;
			flinfo->fn_addr = cgt_srf_call;
		}
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
				cgt_push(fc, flinfo->fn_oid, false, fc->temp, !fc->in_set);
			}
			if (fc->real_addr != NULL)
				cgt_srf_next = fc;
			return;

		case FHET_ABORT:
			fc->in_set = false;
			cgt_srf_next = NULL;
			/* FALLTHROUGH */
		case FHET_END:
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

	DefineCustomBoolVariable("cgmap_trace.track_paths",
							 "Records the call path (frames from the entry point) of every call.",
							 NULL,
							 &cgt_track_paths,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cgmap_trace.track_shapes",
							 "Records the distinct edge sets of every top-level call.",
							 NULL,
							 &cgt_track_shapes,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("cgmap_trace.track_timeline",
							 "Records calls and exclusive time per function in a ring of time buckets.",
							 NULL,
							 &cgt_track_timeline,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.max_paths",
							"Maximum number of distinct call paths kept in shared memory.",
							"About 350 bytes of shared memory per path, so at most 200000 (about 70 MB). "
							"When the table is full, calls of new paths are counted as dropped.",
							&cgt_max_paths,
							10000,
							10,
							CGT_MAX_PATHS_LIMIT,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.max_shapes",
							"Maximum number of distinct call shapes kept in shared memory.",
							"About 1.1 kB of shared memory per shape, so at most 100000 (about 110 MB). "
							"When the table is full, new shapes are counted as dropped.",
							&cgt_max_shapes,
							1000,
							10,
							CGT_MAX_SHAPES_LIMIT,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.max_functions",
							"Maximum number of functions in the timeline.",
							"Each takes 24 bytes per bucket; functions x buckets is at most 4000000 (about 100 MB). "
							"When the table is full, calls of other functions are counted as dropped.",
							&cgt_max_functions,
							1000,
							10,
							CGT_MAX_FUNCTIONS_LIMIT,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.bucket_seconds",
							"Length of one timeline bucket.",
							NULL,
							&cgt_bucket_seconds,
							60,
							1,
							86400,
							PGC_POSTMASTER,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomIntVariable("cgmap_trace.buckets",
							"Number of timeline buckets kept: the last N intervals.",
							NULL,
							&cgt_buckets,
							60,
							1,
							100000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("cgmap_trace");

	cgt_nbuckets = cgt_buckets;
	if ((int64) cgt_nbuckets * cgt_max_functions > CGT_TIMELINE_SLOTS_LIMIT)
	{
		cgt_nbuckets = CGT_TIMELINE_SLOTS_LIMIT / cgt_max_functions;
		ereport(WARNING,
				(errmsg("cgmap_trace: cgmap_trace.buckets = %d with cgmap_trace.max_functions = %d needs more than %d slots, keeping %d buckets",
						cgt_buckets, cgt_max_functions, CGT_TIMELINE_SLOTS_LIMIT, cgt_nbuckets)));
	}

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
	if (cgt_state == NULL || cgt_hash == NULL || cgt_paths == NULL ||
		cgt_shapes == NULL || cgt_timeline == NULL)
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
	bool		callee_alive;	/* stale, but its callee exists */
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
 * A copy of the entries with calls: the edges (site_runs false) or the
 * site runs (callee InvalidOid, see "Dynamic statements that ran").  The
 * table is copied under the lock (no entry comes or goes while it is held
 * shared); the catalog is read without it.  The rows are palloc'd.
 */
static cgtRow *
cgt_copy_rows(bool site_runs, int *nrows_out)
{
	HASH_SEQ_STATUS hash_seq;
	cgtEntry   *entry;
	cgtRow	   *rows;
	int			nrows = 0;
	int			maxrows;

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
		if (OidIsValid(entry->key.callee) == site_runs)
			continue;
		r = &rows[nrows];
		SpinLockAcquire(&entry->mutex);
		r->counters = entry->counters;
		SpinLockRelease(&entry->mutex);
		if (r->counters.calls == 0)
			continue;
		memcpy(&r->key, &entry->key, sizeof(cgtKey));	/* with its padding */
		r->stale = false;
		r->callee_alive = false;
		nrows++;
	}
	LWLockRelease(cgt_state->lock);
	*nrows_out = nrows;
	return rows;
}

/*
 * Remove the rows marked stale from the table (stale_removed), keeping
 * what they tell of the functions that exist (stale_kept, see "Dropped
 * functions and databases"):
 *   - a record whose callee exists (only its caller is gone: a function
 *     created by a transaction that rolled back after calling it, a drop
 *     the hook did not see) adds its calls to the callee's entry in
 *     cgt_gone, under the callee itself, as a drop of the caller does;
 *   - a record whose callee is gone hides no call of any function that
 *     exists: it counted the calls of that OID, which no function has now
 *     (PostgreSQL's own statistics count an OID's calls too, never those
 *     of a later function of the same name); a function created again
 *     after a drop the hook did not see starts from its own calls, as in
 *     pg_stat_user_functions;
 *   - a site run (no callee) counts no call.
 * Only a full cgt_gone loses calls (stale_removed without stale_kept).
 * The counters are read from the entry under the exclusive lock, so calls
 * added since the copy are kept too.
 */
typedef struct cgtGoneSet
{
	const Oid  *oids;			/* sorted */
	int			n;
} cgtGoneSet;

/* cgtGoneFn of a read: the functions of this database found gone */
static bool
cgt_stale_gone(Oid dbid, Oid fn_oid, const void *arg)
{
	const cgtGoneSet *set = (const cgtGoneSet *) arg;

	if (dbid != MyDatabaseId || !OidIsValid(fn_oid))
		return false;
	return bsearch(&fn_oid, set->oids, set->n, sizeof(Oid), oid_cmp) != NULL;
}

static void
cgt_remove_stale(const cgtRow *rows, int nrows, const Oid *gone, int ngone)
{
	uint64		removed = 0;
	uint64		kept = 0;
	int			i;
	cgtGoneSet	set;

	LWLockAcquire(cgt_state->lock, LW_EXCLUSIVE);
	for (i = 0; i < nrows; i++)
	{
		cgtEntry   *entry;

		if (!rows[i].stale)
			continue;
		entry = hash_search(cgt_hash, &rows[i].key, HASH_FIND, NULL);
		if (entry == NULL)
			continue;
		if (!rows[i].callee_alive ||
			cgt_gone_add(entry->key.dbid, entry->key.callee, NULL,
						 &entry->counters))
			kept++;
		hash_search(cgt_hash, &rows[i].key, HASH_REMOVE, NULL);
		removed++;
	}
	if (removed > 0)
		pg_atomic_fetch_add_u64(&cgt_state->stale_removed, removed);
	if (kept > 0)
		pg_atomic_fetch_add_u64(&cgt_state->stale_kept, kept);
	/* and, as at a drop's commit, the paths, shapes and timeline naming them */
	set.oids = gone;
	set.n = ngone;
	if (ngone > 0)
		cgt_remove_named(cgt_stale_gone, &set);
	LWLockRelease(cgt_state->lock);
}

/*
 * The edges (site_runs false) or the site runs the current role may see
 * (see cgt_db_visible), palloc'd.  Rows of the current database whose
 * caller or callee no longer exists are not listed and are removed from
 * the table.
 */
static cgtRow *
cgt_visible_rows(bool site_runs, int *nrows_out)
{
	cgtRow	   *rows;
	int			nrows;
	int			nkept = 0;
	int			nstale = 0;
	Oid		   *gone;
	int			ngone = 0;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	rows = cgt_copy_rows(site_runs, &nrows);
	gone = palloc(sizeof(Oid) * (2 * nrows + 1));
	for (i = 0; i < nrows; i++)
	{
		cgtRow	   *r = &rows[i];
		bool		callee_gone;
		bool		caller_gone;

		if (r->key.dbid != MyDatabaseId)
			continue;
		callee_gone = OidIsValid(r->key.callee) && !cgt_fn_may_exist(r->key.callee);
		caller_gone = OidIsValid(r->key.caller) && !cgt_fn_may_exist(r->key.caller);
		if (callee_gone || caller_gone)
		{
			r->stale = true;
			r->callee_alive = OidIsValid(r->key.callee) && !callee_gone;
			nstale++;
			if (callee_gone)
				gone[ngone++] = r->key.callee;
			if (caller_gone)
				gone[ngone++] = r->key.caller;
		}
	}
	if (nstale > 0)
	{
		qsort(gone, ngone, sizeof(Oid), oid_cmp);
		cgt_remove_stale(rows, nrows, gone, ngone);
	}
	pfree(gone);
	for (i = 0; i < nrows; i++)
	{
		if (rows[i].stale ||
			!cgt_db_visible(rows[i].key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		rows[nkept++] = rows[i];
	}
	*nrows_out = nkept;
	return rows;
}

/*
 * Before listing the calls of gone functions, paths, shapes or timeline:
 * remove the current database's stale edges and site runs
 * (cgt_visible_rows), crediting what they counted to cgmap_trace_gone, and
 * with them what names their functions, so that a function whose creating
 * transaction rolled back leaves no path behind and its callees' calls
 * are in cgmap_trace_gone, whichever view is read first.
 */
static void
cgt_purge_stale(void)
{
	int			nrows;

	pfree(cgt_visible_rows(false, &nrows));
	pfree(cgt_visible_rows(true, &nrows));
}

/*
 * The columns of an edge's row, as cgmap_trace_edges() and
 * cgmap_trace_gone_edges() list it (CGT_EDGE_COLS).
 */
static void
cgt_edge_values(Datum *values, bool *nulls, const cgtKey *key, const cgtCounters *c)
{
	memset(nulls, 0, sizeof(bool) * CGT_EDGE_COLS);
	values[0] = ObjectIdGetDatum(key->dbid);
	values[1] = ObjectIdGetDatum(key->caller);
	values[2] = ObjectIdGetDatum(key->callee);
	values[3] = Int32GetDatum(key->line);
	values[4] = BoolGetDatum(key->dynamic);
	values[5] = Int64GetDatum(c->calls);
	values[6] = Float8GetDatum(c->total_ms);
	values[7] = Float8GetDatum(c->self_ms);
	values[8] = TimestampTzGetDatum(c->first_seen);
	values[9] = TimestampTzGetDatum(c->last_seen);
	if (key->body != 0)
		values[10] = cgt_body_text(key->body);
	else
		nulls[10] = true;
}

/*
 * The edges the current role may see (cgt_visible_rows).
 */
Datum
cgmap_trace_edges(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	cgtRow	   *rows;
	int			nrows;
	int			i;

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

	rows = cgt_visible_rows(false, &nrows);
	for (i = 0; i < nrows; i++)
	{
		cgtRow	   *r = &rows[i];
		Datum		values[CGT_EDGE_COLS];
		bool		nulls[CGT_EDGE_COLS];

		cgt_edge_values(values, nulls, &r->key, &r->counters);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);

	return (Datum) 0;
}

#define CGT_SITE_COLS 7

/*
 * The site runs the current role may see (cgt_visible_rows): per
 * function, dynamic statement line and body version, how many times the
 * statement finished (see "Dynamic statements that ran").
 */
Datum
cgmap_trace_sites(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	cgtRow	   *rows;
	int			nrows;
	int			i;

	cgt_check_loaded();
	cgt_flush();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_sites()", CGT_SITE_COLS);

	rows = cgt_visible_rows(true, &nrows);
	for (i = 0; i < nrows; i++)
	{
		cgtRow	   *r = &rows[i];
		Datum		values[CGT_SITE_COLS];
		bool		nulls[CGT_SITE_COLS];

		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->key.dbid);
		values[1] = ObjectIdGetDatum(r->key.caller);
		values[2] = Int32GetDatum(r->key.line);
		if (r->key.body != 0)
			values[3] = cgt_body_text(r->key.body);
		else
			nulls[3] = true;
		values[4] = Int64GetDatum(r->counters.calls);
		values[5] = TimestampTzGetDatum(r->counters.first_seen);
		values[6] = TimestampTzGetDatum(r->counters.last_seen);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);

	return (Datum) 0;
}

#define CGT_GONE_COLS 8

/*
 * A copy of a table of dropped functions' records (cgt_gone, cgt_gone_edges:
 * entries of `entrysize` bytes), taken under the shared lock, palloc'd;
 * *nrows entries.  Before it, the caller's own batch and the stale records
 * of its database were added (cgt_flush, cgt_purge_stale).
 */
static void *
cgt_copy_gone(HTAB *table, Size entrysize, int *nrows)
{
	HASH_SEQ_STATUS hash_seq;
	void	   *entry;
	char	   *rows;
	int			n = 0;
	int			maxrows;

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	maxrows = (int) hash_get_num_entries(table);
	rows = palloc(entrysize * (maxrows + 1));
	hash_seq_init(&hash_seq, table);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (n >= maxrows)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		memcpy(rows + entrysize * n++, entry, entrysize);
	}
	LWLockRelease(cgt_state->lock);
	*nrows = n;
	return rows;
}

/*
 * The calls of dropped functions (extension version 1.5; see "Dropped
 * functions and databases") of the databases the current role may see:
 * per function, its identity when it was dropped (NULL when only its
 * callers were, fn_oid naming it), and the calls the removed edges had
 * counted.  The table is copied under the shared lock.
 */
Datum
cgmap_trace_gone(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	cgtGoneEntry *rows;
	int			nrows;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	cgt_check_loaded();
	cgt_flush();
	cgt_purge_stale();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_gone()", CGT_GONE_COLS);
	rows = cgt_copy_gone(cgt_gone, sizeof(cgtGoneEntry), &nrows);

	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	for (i = 0; i < nrows; i++)
	{
		const cgtGoneEntry *r = &rows[i];
		Datum		values[CGT_GONE_COLS];
		bool		nulls[CGT_GONE_COLS];

		if (!cgt_db_visible(r->key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->key.dbid);
		values[1] = ObjectIdGetDatum(r->key.fn_oid);
		if (r->identity[0] != '\0')
			values[2] = CStringGetTextDatum(r->identity);
		else
			nulls[2] = true;
		values[3] = Int64GetDatum(r->counters.calls);
		values[4] = Float8GetDatum(r->counters.total_ms);
		values[5] = Float8GetDatum(r->counters.self_ms);
		values[6] = TimestampTzGetDatum(r->counters.first_seen);
		values[7] = TimestampTzGetDatum(r->counters.last_seen);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);

	return (Datum) 0;
}

#define CGT_GONE_EDGE_COLS CGT_EDGE_COLS	/* the columns of cgmap_trace_edges() */

/*
 * cgmap_trace_gone_edges() (1.8): the edges and site runs removed with a
 * dropped function (see "Dropped functions and databases") of the
 * databases the current role may see, with the columns of
 * cgmap_trace_edges(): caller and callee are the OIDs the functions had
 * (cgmap_trace_gone() names each dropped one by its identity); a site run
 * has callee 0 and counts its runs in calls.  The table is copied under
 * the shared lock.
 */
Datum
cgmap_trace_gone_edges(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	cgtGoneEdge *rows;
	int			nrows;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	cgt_check_loaded();
	cgt_flush();
	cgt_purge_stale();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_gone_edges()", CGT_GONE_EDGE_COLS);
	rows = cgt_copy_gone(cgt_gone_edges, sizeof(cgtGoneEdge), &nrows);

	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	for (i = 0; i < nrows; i++)
	{
		const cgtGoneEdge *r = &rows[i];
		Datum		values[CGT_GONE_EDGE_COLS];
		bool		nulls[CGT_GONE_EDGE_COLS];

		if (!cgt_db_visible(r->key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		cgt_edge_values(values, nulls, &r->key, &r->counters);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
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
	{
		cgtPathEntry *pe;
		cgtShapeEntry *se;
		cgtTlEntry *te;

		hash_seq_init(&hash_seq, cgt_paths);
		while ((pe = hash_seq_search(&hash_seq)) != NULL)
			hash_search(cgt_paths, &pe->key, HASH_REMOVE, NULL);
		hash_seq_init(&hash_seq, cgt_shapes);
		while ((se = hash_seq_search(&hash_seq)) != NULL)
			hash_search(cgt_shapes, &se->key, HASH_REMOVE, NULL);
		hash_seq_init(&hash_seq, cgt_timeline);
		while ((te = hash_seq_search(&hash_seq)) != NULL)
			hash_search(cgt_timeline, &te->key, HASH_REMOVE, NULL);
	}
	{
		cgtGoneEntry *g;

		cgtGoneEdge *ge;

		hash_seq_init(&hash_seq, cgt_gone);
		while ((g = hash_seq_search(&hash_seq)) != NULL)
			hash_search(cgt_gone, &g->key, HASH_REMOVE, NULL);
		hash_seq_init(&hash_seq, cgt_gone_edges);
		while ((ge = hash_seq_search(&hash_seq)) != NULL)
			hash_search(cgt_gone_edges, &ge->key, HASH_REMOVE, NULL);
	}
	pg_atomic_write_u64(&cgt_state->stale_kept, 0);
	pg_atomic_write_u64(&cgt_state->gone_edges_lost, 0);
	pg_atomic_write_u64(&cgt_state->paths_dropped, 0);
	pg_atomic_write_u64(&cgt_state->shapes_dropped, 0);
	pg_atomic_write_u64(&cgt_state->timeline_dropped, 0);
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
 * cgmap_trace_info(): 4 columns in extension version 1.0, 8 in 1.1 and 1.2,
 * 19 in 1.3 and 1.4, 20 in 1.5, 21 in 1.6 and 1.7, 22 from 1.8 on (the same
 * C function serves all, by the declared row type).  library_version (1.8)
 * is the version of this library, which counts as described above whatever
 * the version of the extension's SQL objects.
 */
#define CGT_INFO_COLS_1_0	4
#define CGT_INFO_COLS_1_1	8
#define CGT_INFO_COLS_1_3	19
#define CGT_INFO_COLS_1_5	20
#define CGT_INFO_COLS_1_6	21
#define CGT_INFO_COLS		22
#define CGT_LIBRARY_VERSION	"1.8"

Datum
cgmap_trace_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[CGT_INFO_COLS];
	bool		nulls[CGT_INFO_COLS];
	TimestampTz since;
	int64		used;
	int64		paths_used;
	int64		shapes_used;
	int64		tl_used;

	cgt_check_loaded();
	cgt_flush();

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != CGT_INFO_COLS_1_0 && tupdesc->natts != CGT_INFO_COLS_1_1 &&
		tupdesc->natts != CGT_INFO_COLS_1_3 && tupdesc->natts != CGT_INFO_COLS_1_5 &&
		tupdesc->natts != CGT_INFO_COLS_1_6 && tupdesc->natts != CGT_INFO_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cgmap_trace_info() is declared with %d columns, expected %d, %d, %d, %d, %d or %d",
						tupdesc->natts, CGT_INFO_COLS_1_0, CGT_INFO_COLS_1_1,
						CGT_INFO_COLS_1_3, CGT_INFO_COLS_1_5, CGT_INFO_COLS_1_6,
						CGT_INFO_COLS),
				 errhint("ALTER EXTENSION cgmap_trace UPDATE;")));

	SpinLockAcquire(&cgt_state->mutex);
	since = cgt_state->since;
	SpinLockRelease(&cgt_state->mutex);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	used = (int64) hash_get_num_entries(cgt_hash);
	paths_used = (int64) hash_get_num_entries(cgt_paths);
	shapes_used = (int64) hash_get_num_entries(cgt_shapes);
	tl_used = (int64) hash_get_num_entries(cgt_timeline);
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
	values[8] = Int64GetDatum(paths_used);
	values[9] = Int64GetDatum((int64) cgt_max_paths);
	values[10] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->paths_dropped));
	values[11] = Int64GetDatum(shapes_used);
	values[12] = Int64GetDatum((int64) cgt_max_shapes);
	values[13] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->shapes_dropped));
	values[14] = Int64GetDatum(tl_used);
	values[15] = Int64GetDatum((int64) cgt_max_functions);
	values[16] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->timeline_dropped));
	values[17] = Int32GetDatum(cgt_bucket_seconds);
	values[18] = Int32GetDatum(cgt_nbuckets);
	values[19] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->stale_kept));
	values[20] = CStringGetTextDatum(CGT_LIBRARY_VERSION);
	values[21] = Int64GetDatum((int64) pg_atomic_read_u64(&cgt_state->gone_edges_lost));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ====================================================================
 * Paths, shapes and timeline (extension version 1.3)
 *
 * Each function flushes this backend's batch, copies the table under the
 * shared lock, then builds the rows without it, showing a role only the
 * databases it may see (cgt_db_visible).
 * ==================================================================== */

#define CGT_PATH_COLS 12
#define CGT_SHAPE_COLS 11
#define CGT_TL_COLS 5

static Datum
cgt_oid_array(const Oid *oids, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = ObjectIdGetDatum(oids[i]);
	return PointerGetDatum(construct_array(d, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
}

static Datum
cgt_int4_array(const int32 *v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = Int32GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, n, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

static void
cgt_check_cols(ReturnSetInfo *rsinfo, const char *name, int expected)
{
	if (rsinfo->setDesc->natts != expected)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s is declared with %d columns, expected %d",
						name, rsinfo->setDesc->natts, expected),
				 errhint("ALTER EXTENSION cgmap_trace UPDATE;")));
}

/* One path copied under the lock. */
typedef struct cgtPathRow
{
	cgtPathKey	key;
	int32		nframes;
	cgtPathFrame frames[CGT_PATH_DEPTH];
	cgtPathCounters counters;
} cgtPathRow;

Datum
cgmap_trace_paths(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS hash_seq;
	cgtPathEntry *entry;
	cgtPathRow *rows;
	int			nrows = 0;
	int			maxrows;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	cgt_check_loaded();
	cgt_flush();
	cgt_purge_stale();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_paths()", CGT_PATH_COLS);
	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	maxrows = (int) hash_get_num_entries(cgt_paths);
	rows = palloc(sizeof(cgtPathRow) * (maxrows + 1));
	hash_seq_init(&hash_seq, cgt_paths);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		cgtPathRow *r;

		if (nrows >= maxrows)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		r = &rows[nrows];
		SpinLockAcquire(&entry->mutex);
		r->counters = entry->counters;
		r->nframes = entry->nframes;
		memcpy(r->frames, entry->frames, sizeof(r->frames));
		SpinLockRelease(&entry->mutex);
		if (r->counters.calls == 0 || r->nframes < 1)
			continue;
		r->key = entry->key;
		nrows++;
	}
	LWLockRelease(cgt_state->lock);

	for (i = 0; i < nrows; i++)
	{
		cgtPathRow *r = &rows[i];
		Datum		values[CGT_PATH_COLS];
		bool		nulls[CGT_PATH_COLS];
		Oid			oids[CGT_PATH_DEPTH];
		int32		lines[CGT_PATH_DEPTH];
		int			j;

		if (!cgt_db_visible(r->key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		for (j = 0; j < r->nframes; j++)
		{
			oids[j] = r->frames[j].fn_oid;
			lines[j] = r->frames[j].line;
		}
		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->key.dbid);
		values[1] = Int64GetDatum((int64) r->key.hash);
		values[2] = Int32GetDatum(r->nframes);
		values[3] = cgt_oid_array(oids, r->nframes);
		values[4] = cgt_int4_array(lines, r->nframes);
		values[5] = Int64GetDatum(r->counters.calls);
		values[6] = Float8GetDatum(r->counters.total_ms);
		values[7] = Float8GetDatum(r->counters.self_ms);
		values[8] = Float8GetDatum(r->counters.min_ms);
		values[9] = Float8GetDatum(r->counters.max_ms);
		values[10] = TimestampTzGetDatum(r->counters.first_seen);
		values[11] = TimestampTzGetDatum(r->counters.last_seen);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
	return (Datum) 0;
}

/* One shape copied under the lock. */
typedef struct cgtShapeRow
{
	cgtShapeKey key;
	int32		nedges;
	cgtShapeEdge edges[CGT_SHAPE_EDGES];
	cgtShapeCounters counters;
} cgtShapeRow;

Datum
cgmap_trace_shapes(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS hash_seq;
	cgtShapeEntry *entry;
	cgtShapeRow *rows;
	int			nrows = 0;
	int			maxrows;
	int			i;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;

	cgt_check_loaded();
	cgt_flush();
	cgt_purge_stale();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_shapes()", CGT_SHAPE_COLS);
	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	maxrows = (int) hash_get_num_entries(cgt_shapes);
	rows = palloc(sizeof(cgtShapeRow) * (maxrows + 1));
	hash_seq_init(&hash_seq, cgt_shapes);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		cgtShapeRow *r;

		if (nrows >= maxrows)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		r = &rows[nrows];
		SpinLockAcquire(&entry->mutex);
		r->counters = entry->counters;
		r->nedges = entry->nedges;
		memcpy(r->edges, entry->edges, sizeof(r->edges));
		SpinLockRelease(&entry->mutex);
		if (r->counters.calls == 0)
			continue;
		r->key = entry->key;
		nrows++;
	}
	LWLockRelease(cgt_state->lock);

	for (i = 0; i < nrows; i++)
	{
		cgtShapeRow *r = &rows[i];
		Datum		values[CGT_SHAPE_COLS];
		bool		nulls[CGT_SHAPE_COLS];
		Oid			callers[CGT_SHAPE_EDGES];
		Oid			callees[CGT_SHAPE_EDGES];
		int32		lines[CGT_SHAPE_EDGES];
		Datum		dyn[CGT_SHAPE_EDGES];
		int			j;

		if (!cgt_db_visible(r->key.dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		for (j = 0; j < r->nedges; j++)
		{
			callers[j] = r->edges[j].caller;
			callees[j] = r->edges[j].callee;
			lines[j] = r->edges[j].line;
			dyn[j] = BoolGetDatum(r->edges[j].dynamic != 0);
		}
		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->key.dbid);
		values[1] = ObjectIdGetDatum(r->key.entry);
		values[2] = Int64GetDatum((int64) r->key.hash);
		values[3] = Int32GetDatum(r->nedges);
		values[4] = cgt_oid_array(callers, r->nedges);
		values[5] = cgt_oid_array(callees, r->nedges);
		values[6] = cgt_int4_array(lines, r->nedges);
		values[7] = PointerGetDatum(construct_array(dyn, r->nedges, BOOLOID, 1, true, TYPALIGN_CHAR));
		values[8] = Int64GetDatum(r->counters.calls);
		values[9] = TimestampTzGetDatum(r->counters.first_seen);
		values[10] = TimestampTzGetDatum(r->counters.last_seen);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
	return (Datum) 0;
}

/*
 * The timeline: one row per function and bucket of the last cgt_nbuckets
 * intervals that has calls (slots of older intervals are not shown; the
 * next call in their place of the ring takes them over).
 */
Datum
cgmap_trace_timeline(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS hash_seq;
	cgtTlEntry *entry;
	cgtTlKey   *keys;
	cgtTlSlot  *slots;
	int			nrows = 0;
	int			maxrows;
	int			i;
	int			j;
	bool		privileged;
	cgtDbVis   *vis = NULL;
	int			nvis = 0;
	int			visCapacity = 0;
	int64		usec = (int64) cgt_bucket_seconds * USECS_PER_SEC;
	int64		current;

	cgt_check_loaded();
	cgt_flush();
	cgt_purge_stale();
	InitMaterializedSRF(fcinfo, 0);
	cgt_check_cols(rsinfo, "cgmap_trace_timeline()", CGT_TL_COLS);
	privileged = superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	current = GetCurrentTimestamp() / usec;

	LWLockAcquire(cgt_state->lock, LW_SHARED);
	maxrows = (int) hash_get_num_entries(cgt_timeline);
	keys = palloc(sizeof(cgtTlKey) * (maxrows + 1));
	slots = palloc(sizeof(cgtTlSlot) * (Size) cgt_nbuckets * (maxrows + 1));
	hash_seq_init(&hash_seq, cgt_timeline);
	while ((entry = hash_seq_search(&hash_seq)) != NULL)
	{
		if (nrows >= maxrows)
		{
			hash_seq_term(&hash_seq);
			break;
		}
		keys[nrows] = entry->key;
		SpinLockAcquire(&entry->mutex);
		memcpy(&slots[(Size) nrows * cgt_nbuckets], entry->slots,
			   sizeof(cgtTlSlot) * cgt_nbuckets);
		SpinLockRelease(&entry->mutex);
		nrows++;
	}
	LWLockRelease(cgt_state->lock);

	for (i = 0; i < nrows; i++)
	{
		if (!cgt_db_visible(keys[i].dbid, privileged, &vis, &nvis, &visCapacity))
			continue;
		for (j = 0; j < cgt_nbuckets; j++)
		{
			const cgtTlSlot *slot = &slots[(Size) i * cgt_nbuckets + j];
			Datum		values[CGT_TL_COLS];
			bool		nulls[CGT_TL_COLS];

			if (slot->bucket < 0 || slot->calls == 0 ||
				slot->bucket <= current - cgt_nbuckets)
				continue;
			memset(nulls, 0, sizeof(nulls));
			values[0] = ObjectIdGetDatum(keys[i].dbid);
			values[1] = ObjectIdGetDatum(keys[i].fn_oid);
			values[2] = TimestampTzGetDatum((TimestampTz) (slot->bucket * usec));
			values[3] = Int64GetDatum(slot->calls);
			values[4] = Float8GetDatum(slot->self_ms);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	pfree(keys);
	pfree(slots);
	return (Datum) 0;
}
