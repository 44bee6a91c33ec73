/*
 * cgmap/runtime.h - runtime data: what PostgreSQL servers observed (calls
 * between functions, per-function figures), merged into the static graph,
 * then the analysis (roots, reachability, dead, cold, recursion) and the
 * reports that read it.
 *
 * Flow in a mapping run, after resolve and before emit:
 *
 *     cgm_runtime *rt = cgm_runtime_new();
 *     cgm_runtime_load_pg(NULL, rt, dsn);            // unless --no-runtime
 *     cgm_runtime_load_file(rt, "runtime.json");     // each --runtime
 *     cgm_runtime_load_log(rt, "server.log", dsn);   // each --runtime-log
 *     cgm_merge(model, rt);                          // always, even when rt is empty
 *     cgm_runtime_free(rt);
 *     cgm_analyze(model, &analyze_options);
 *     cgm_analyze_print_summary(model, stderr);
 *
 * or the loading and merging in one call: cgm_runtime_apply() with
 * cgm_runtime_options (what src/map.c does).  Reports: cgm_report_write().
 *
 * Memory: a cgm_runtime owns one arena, freed by cgm_runtime_free(); merge
 * copies what it keeps into model->arena, so rt may go right after merge.
 * Errors: negative CGM_E* with the message set once (cgmap/error.h).  A bad
 * row, line or unknown function is a diagnostic (rt->diagnostics, then
 * model->diagnostics), never a silent drop and never a failure of the run.
 */
#ifndef CGMAP_RUNTIME_H
#define CGMAP_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgmap/model.h"
#include "cgmap/strbuf.h"

#define CGM_RUNTIME_FORMAT 1

/* The largest figures cgmap keeps: a call count stops at INT64_MAX, a time
 * at CGM_STATS_MAX_MS (about 31,700 years): both print in a snapshot and
 * read back exactly.  Sums are held there (saturated), never wrapped; a
 * time read from input must be a finite number from 0 to the limit. */
#define CGM_STATS_MAX_MS 1e15
/* Add `from` to `to`, each figure held at its limit; true when one was. */
bool cgm_runtime_stats_add(cgm_runtime_stats *to, const cgm_runtime_stats *from);
/* a + b for counts (both >= 0), held at INT64_MAX (then *held is set). */
int64_t cgm_count_add(int64_t a, int64_t b, bool *held);
/* A time cgmap keeps: finite, from 0 to CGM_STATS_MAX_MS. */
bool cgm_stats_time_valid(double ms);
/* Bring figures from a server into range (a negative count or time to 0, an
 * infinite or larger time to the limit, NaN to 0); true when one moved. */
bool cgm_runtime_stats_clamp(cgm_runtime_stats *stats);

/* One observed caller -> callee pair (summed over identical keys). */
typedef struct cgm_runtime_edge {
	const char *caller;     /* regprocedure text (empty search_path); NULL: entry point,
	                         * called from a client statement */
	const char *callee;
	int site_line;          /* line in the caller's body of the calling statement, 0 unknown */
	bool dynamic;           /* made by a dynamic EXECUTE (as the server saw it) */
	cgm_runtime_stats stats;
	int source;             /* index into rt->sources */
	const char *caller_body;/* version of the caller's body it was seen against
	                         * (cgmap/bodyver.h), NULL unknown (cgmap_trace before
	                         * 1.2, a log, an older file, an entry point) */
	bool kept;              /* cgmap_trace 1.8: an edge of an earlier function of the
	                         * caller's or callee's identity, dropped since and kept
	                         * by the extension: it makes the edge observed, while
	                         * its calls are the callee's already (cgm_runtime_gone) */
} cgm_runtime_edge;

/* cgmap_trace 1.3: one call path, from the entry point (frames[0]) down to
 * the function called (frames[nframes - 1]). */
#define CGM_PATH_CUT "..." /* the frame standing for frames left out for depth */
typedef struct cgm_runtime_path {
	int nframes;
	const char **frames;    /* regprocedure texts, or CGM_PATH_CUT */
	int *lines;             /* lines[i]: line of frames[i - 1] that called frames[i];
	                         * 0 for frames[0] and for the marker */
	cgm_runtime_stats stats;
	double min_ms, max_ms;  /* least and greatest inclusive time of one call */
	int source;
} cgm_runtime_path;

/* cgmap_trace 1.3: the distinct edges one top-level call of `entry`
 * exercised, and how many of its calls exercised exactly these. */
typedef struct cgm_runtime_shape_edge {
	const char *caller, *callee;
	int site_line;
	bool dynamic;
} cgm_runtime_shape_edge;
typedef struct cgm_runtime_shape {
	const char *entry;
	int nedges;
	cgm_runtime_shape_edge *edges; /* sorted: caller, callee, line, dynamic */
	int64_t calls;
	int source;
} cgm_runtime_shape;

/* Orders of paths (frames, then lines, then length) and shapes (entry,
 * then edges): 0 when they are the same path or shape. */
int cgm_runtime_path_cmp(const cgm_runtime_path *a, const cgm_runtime_path *b);
int cgm_runtime_shape_cmp(const cgm_runtime_shape *a, const cgm_runtime_shape *b);

/* cgmap_trace 1.3: a function's calls and exclusive time in one time bucket. */
typedef struct cgm_runtime_bucket {
	const char *function;
	const char *start;      /* the bucket's start, ISO 8601 UTC */
	int64_t calls;
	double self_ms;
	int source;
} cgm_runtime_bucket;

/* cgmap_trace 1.4: how many times the dynamic statement (EXECUTE and the
 * like) of `function` at `site_line` finished, whether or not it called a
 * function (summed over identical keys). */
typedef struct cgm_runtime_site_run {
	const char *function;   /* regprocedure text */
	int site_line;          /* the statement's line in the body, > 0 */
	const char *body;       /* version of the body it ran in (cgmap/bodyver.h), NULL unknown */
	int64_t runs;
	int source;
} cgm_runtime_site_run;

/* Per-function figures (pg_stat_user_functions, or a file's "functions"). */
/* cgmap_trace 1.5: calls that the edges removed with a dropped function
 * had counted, kept by the extension for the function they count for now. */
typedef struct cgm_runtime_gone {
	const char *function;   /* regprocedure text: the function of the dropped one's
	                         * identity, created again, or the callee whose callers
	                         * were dropped */
	const char *identity;   /* the dropped function as it was (qualified name and
	                         * argument types) when the calls were of it; NULL when
	                         * they were of `function` itself */
	cgm_runtime_stats stats;
	int source;
} cgm_runtime_gone;

typedef struct cgm_runtime_function {
	const char *id;
	cgm_runtime_stats stats;
	int source;
} cgm_runtime_function;

/* One server (or file, or log) the data came from. */
typedef struct cgm_runtime_source {
	const char *kind;       /* "database", "file" or "log" */
	const char *name;       /* database@server, file path or log path */
	const char *database;   /* database name, or NULL */
	const char *server_version;
	const char *since;      /* window start, ISO 8601 UTC, or NULL when unknown */
	const char *until;      /* window end, ISO 8601 UTC, or NULL */
	bool has_trace;         /* cgmap_trace edges are part of it */
	bool has_function_stats;/* per-function figures are part of it */
	const char *track_functions; /* the server's setting, or NULL */
	int64_t trace_dropped;  /* edges the extension could not record (full table) */
	int64_t trace_evictions;/* edges cgmap_trace 1.1 evicted to make room (-1: unknown,
	                         * an older extension: then trace_dropped says it) */
	int64_t trace_stale_removed; /* call records (edges, site runs) of dropped functions and
	                         * databases cgmap_trace 1.1 removed in the window, cluster-wide,
	                         * plus edges read that named a dropped function (-1: unknown):
	                         * the calls they counted are missing (cgm_evidence.lost_records);
	                         * from 1.5 only those whose calls it did not keep (has_gone) */
	int64_t trace_edges_used, trace_edges_max;
	const char *trace_track;/* cgmap_trace.track: "plpgsql", "all", or NULL unknown */
	const char *system_id;  /* pg_control_system().system_identifier, or NULL */
	const char *port;       /* the server's port setting, or NULL */
	bool duplicate;         /* merge: the same observation as an earlier source */
	bool has_paths;         /* cgmap_trace 1.3: paths, shapes, timeline are part of it */
	int64_t paths_dropped, shapes_dropped, timeline_dropped; /* its counts of what
	                         * did not fit (has_paths) */
	int bucket_seconds;     /* length of a timeline bucket (has_paths) */
	bool has_site_runs;     /* cgmap_trace 1.4: the runs of dynamic statements are part of it */
	bool has_gone;          /* cgmap_trace 1.5: the calls of dropped functions are part
	                         * of it (rt->gone), and trace_stale_removed counts only
	                         * records lost */
} cgm_runtime_source;

typedef struct cgm_runtime {
	cgm_arena *arena;
	int nedges, cap_edges;
	cgm_runtime_edge *edges;
	int nfunctions, cap_functions;
	cgm_runtime_function *functions;
	int nsources, cap_sources;
	cgm_runtime_source *sources;
	int npaths, cap_paths;
	cgm_runtime_path *paths;
	int nshapes, cap_shapes;
	cgm_runtime_shape *shapes;
	int nbuckets, cap_buckets;
	cgm_runtime_bucket *buckets;
	int nsite_runs, cap_site_runs;
	cgm_runtime_site_run *site_runs;
	int ngone, cap_gone;
	cgm_runtime_gone *gone;
	int ndiagnostics, cap_diagnostics;
	cgm_diagnostic *diagnostics;
	const char *log_line_prefix; /* stderr logs: the server's log_line_prefix (NULL:
	                              * the default '%m [%p] '); set before loading a log */
} cgm_runtime;

cgm_runtime *cgm_runtime_new(void);
void cgm_runtime_free(cgm_runtime *rt);

/* A live server (dsn: libpq conninfo or URI, NULL = environment): the
 * cgmap_trace edges and info when the extension is installed in that
 * database, and pg_stat_user_functions in any case (a diagnostic says so
 * when track_functions is off).  *found_trace (may be NULL) tells whether
 * the extension is installed there (read or not: a diagnostic says why not).  Fails (CGM_ESOURCE) only when it cannot connect
 * or read. */
int cgm_runtime_load_pg(bool *found_trace, cgm_runtime *rt, const char *dsn);
/* A file written by `cgmap collect` (docs/runtime-data.md). */
int cgm_runtime_load_file(cgm_runtime *rt, const char *path);
/* PostgreSQL server log lines `digraph {37615->37616;37615->37617}`: the
 * OIDs are mapped through the catalog of the database at dsn (required:
 * OIDs mean nothing elsewhere); unknown OIDs become diagnostics. */
int cgm_runtime_load_log(cgm_runtime *rt, const char *path, const char *dsn);
/* `collect --since FILE`: `now` (one source, just read) minus `before`
 * (the earlier file of the same server, read with cgm_runtime_load_file):
 * the calls since then, the window from its end (src/runtime_delta.c). */
int cgm_runtime_subtract(cgm_runtime *now, const cgm_runtime *before, const char *path);
/* `collect --reset`: cgmap_trace_reset() and pg_stat_reset() of the
 * database at dsn, each where the role may; a diagnostic in rt for each
 * that was refused. */
int cgm_runtime_reset_pg(cgm_runtime *rt, const char *dsn);
/* Write rt as a runtime file (what `cgmap collect` exports). */
int cgm_runtime_write_file(const cgm_runtime *rt, const char *path);

/* Join runtime data to the static graph: observed edges get their
 * provenance, figures and, when they come from a PL/pgSQL dynamic site,
 * via "dynamic"; functions get their figures and observed_entry; the
 * window goes to model->runtime_window, rt's diagnostics and every observed
 * id that is not in the model to model->diagnostics.  Sets
 * model->has_runtime when rt holds any data.  Needs cgm_model_index(). */
int cgm_merge(cgm_model *model, const cgm_runtime *rt);

/* Part of cgm_merge: cgmap_trace 1.3's paths, shapes and timeline buckets
 * of rt's sources that are not duplicates, added to the model's
 * (src/runtime_paths.c).  True when a sum was held at its limit. */
bool cgm_merge_paths(cgm_model *model, const cgm_runtime *rt);

typedef struct cgm_analyze_options {
	const char **entry_patterns;   /* --entry: an id, or a shell glob on the id or
	                                * on schema.name */
	int nentry;
	bool keep_roots;               /* functions already marked root stay roots (a
	                                * snapshot analysed before with --entry) */
	bool has_min_window;           /* --min-window given: min_window_seconds */
	int64_t min_window_seconds;    /* else CGM_DEFAULT_MIN_WINDOW (cgmap/verdict.h) */
	bool has_min_calls;            /* --min-calls given: min_calls */
	int64_t min_calls;             /* else CGM_DEFAULT_MIN_CALLS */
} cgm_analyze_options;

/* Roots, reachability, dead and cold functions, recursive components
 * (function.referenced/root/reachable/dead/cold/scc).  Without runtime
 * data nothing is called dead: see cgm_function_uncalled(). */
int cgm_analyze(cgm_model *model, const cgm_analyze_options *opts);
/* One paragraph on `out`: window, observed/unexplained edges, unseen dynamic
 * sites, dead, cold, recursion. */
void cgm_analyze_print_summary(const cgm_model *model, FILE *out);

/* Whether --entry `pattern` names f: the id exactly (ids hold '[' in array
 * types), or a shell glob on the id or on schema.name; scratch holds
 * schema.name (len bytes).  Shared by analyze and the queries (cgmap/query.h). */
bool cgm_entry_matches(const cgm_function *f, const char *pattern, char *scratch, size_t len);

/* Derived facts shared by analyze and the reports. */
/* An edge observed at runtime that is neither static nor from a dynamic site. */
bool cgm_edge_unexplained(const cgm_edge *edge);
/* Dynamic site `site` of function `fn` has an observed dynamic edge. */
/* A call the project configuration declares for the dynamic site of function
 * fn at `line` (CGM_EDGE_DECLARED, cgmap/config.h). */
bool cgm_edge_declared_at(const cgm_edge *edge, int fn, int line);
bool cgm_dynamic_site_observed(const cgm_model *model, int fn, const cgm_site *site);
/* Whether the SQL of dynamic site `site` of `fn` also makes calls known
 * before it runs (a call or a relation it names by constants, sites at its
 * line reaching functions of the map): its calls observed there are those
 * static edges', and "calling no user function" means none beyond them. */
bool cgm_dynamic_site_has_static_calls(const cgm_function *fn, const cgm_site *site);
/* Every observed dynamic call as (caller, site line, callee), sorted by
 * caller index, line, then callee id: one pass answers every site.  Returns
 * a malloc'd array the caller frees (NULL when *count is 0). */
typedef struct cgm_dynamic_hit {
	int from, line, to;
} cgm_dynamic_hit;
cgm_dynamic_hit *cgm_dynamic_hits(int *count, const cgm_model *model);
/* Index of the first hit of (fn, line) in hits, or -1. */
int cgm_dynamic_hit_find(const cgm_dynamic_hit *hits, int count, int fn, int line);
/* Where a dynamic site stands, in the one order every output counts it:
 * a call from it observed; else calls the configuration declares for it;
 * else its SQL can call no user function (src/dynsql.c); else it ran
 * without calling one (cgmap_trace 1.4's runs); else unseen. */
typedef enum cgm_dynamic_state {
	CGM_DYN_OBSERVED,
	CGM_DYN_DECLARED,
	CGM_DYN_CALLS_NONE,
	CGM_DYN_RAN,
	CGM_DYN_UNSEEN
} cgm_dynamic_state;
struct cgm_dynsql_reader;
/* The state of dynamic site `site` of the model, whose observed and
 * declared facts the caller knows (each output finds them its own way);
 * *reader is made on first need and freed by the caller
 * (cgm_dynsql_reader_free). */
cgm_dynamic_state cgm_dynamic_site_state(struct cgm_dynsql_reader **reader, const cgm_model *model,
					 const cgm_site *site, bool observed, bool declared);
/* No caller outside its own recursive component, not a root, never called. */
bool cgm_function_uncalled(const cgm_model *model, int fn);
/* The same for every function at once, in one pass over the edges:
 * out[i] for functions[i] (out holds model->nfunctions entries). */
void cgm_functions_uncalled(bool *out, const cgm_model *model);
/* The runtime data holds call edges (cgmap_trace, a log, a file with
 * edges), not only per-function figures: only then can a dynamic site be
 * called unseen.  Read from model->runtime_sources, so it survives a
 * snapshot. */
bool cgm_runtime_has_edges(const cgm_model *model);

/* Everything a mapping command does with runtime data, in one call: load
 * (unless no_runtime, the live server at dsn; each file; each log), merge. */
typedef struct cgm_runtime_options {
	bool from_database;            /* the model comes from a live database */
	const char *dsn;               /* its libpq conninfo or URI; NULL: the PG* environment
	                                * when from_database or !no_runtime, else there is
	                                * no database (SQL files: set no_runtime) */
	bool no_runtime;               /* --no-runtime: do not read the live server */
	const char **files;            /* --runtime FILE */
	int nfiles;
	const char **logs;             /* --runtime-log FILE */
	int nlogs;
	const char *log_line_prefix;   /* --log-line-prefix: of the stderr logs */
} cgm_runtime_options;
int cgm_runtime_apply(cgm_model *model, const cgm_runtime_options *opts);

/* Reports (docs/reports.md). */
typedef enum {
	CGM_REPORT_DEAD = 0,
	CGM_REPORT_COLD,
	CGM_REPORT_DYNAMIC,
	CGM_REPORT_UNEXPLAINED,
	CGM_REPORT_MISSING,
	CGM_REPORT_EDGES,
	CGM_REPORT_FUNCTIONS,
	CGM_REPORT_RECURSION,
	CGM_REPORT_PROFILE,     /* cgmap_trace 1.3 figures: src/report_profile.c */
	CGM_REPORT_PATHS,
	CGM_REPORT_TIMELINE,
	CGM_REPORT_SHAPES
} cgm_report_kind;

typedef enum {
	CGM_FORMAT_TEXT = 0,
	CGM_FORMAT_CSV,
	CGM_FORMAT_MARKDOWN,
	CGM_FORMAT_JSON
} cgm_report_format;

int cgm_report_kind_parse(cgm_report_kind *out, const char *name);
int cgm_report_format_parse(cgm_report_format *out, const char *name);
/* Append one report of the analysed model to out. */
int cgm_report_write(cgm_strbuf *out, const cgm_model *model, cgm_report_kind kind,
		     cgm_report_format format);

/* The rows of the profile report (src/report_profile.c): the measured user
 * functions (calls or self time), most self time first, then by id. */
typedef struct cgm_profile_row {
	int fn;            /* index into model->functions */
	cgm_runtime_stats stats; /* the figures shown: with call paths ending in it,
	                          * their sums (cgmap_trace's clock, as min and max;
	                          * a recursive call's inclusive time counted once),
	                          * else the function's runtime figures */
	double avg_ms;     /* inclusive time of one call, on average (with paths over
	                    * every call, as min and max count them); -1: no call */
	double share_pct;  /* of all self time; -1 when that is 0 */
	bool has_minmax;   /* a call path ends in it (cgmap_trace 1.3) */
	double min_ms, max_ms; /* least and greatest inclusive time of one call */
} cgm_profile_row;
/* *out: a malloc'd array (the caller frees it, even when 0 rows);
 * *whole (may be NULL): the sum of their self time.  Returns the count. */
int cgm_profile_rows(cgm_profile_row **out, double *whole, const cgm_model *model);

#endif
