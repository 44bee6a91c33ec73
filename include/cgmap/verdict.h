/*
 * cgmap/verdict.h - what the runtime evidence allows cgmap to say of a
 * function nobody was seen calling: dead, unobserved, untraceable or
 * dynamic-reachable (docs/reports.md), and the evidence itself: the
 * observation window, the servers and databases, the calls observed, the
 * modes the calls were traced in.
 *
 * Flow: cgm_merge() calls cgm_evidence_add_source() for each runtime source
 * it keeps; cgm_analyze() calls cgm_verdicts_apply() once reachability is
 * known.  Everything kept lives in model->arena.
 */
#ifndef CGMAP_VERDICT_H
#define CGMAP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmap/model.h"
#include "cgmap/runtime.h"
#include "cgmap/strbuf.h"

/* Defaults of --min-window and --min-calls: an hour of observation and a
 * hundred calls seen in all before anything is called dead. */
#define CGM_DEFAULT_MIN_WINDOW (60 * 60)
#define CGM_DEFAULT_MIN_CALLS 100

const char *cgm_verdict_name(cgm_verdict verdict); /* "dead", "dynamic-reachable", ... */
int cgm_verdict_parse(cgm_verdict *out, const char *name);

/* Seconds since the epoch of "2026-11-29T19:40:00Z", "2026-11-29 19:40:00.123 UTC",
 * "2026-11-29 19:40:00+01" (a zone named otherwise counts as UTC: only
 * differences of times of one log are taken); -1 when not a time. */
int64_t cgm_time_parse(const char *text);
/* Whether the span the functions' call counts cover (since `stats_since`,
 * the statistics' reset) and the span of the traced call edges (since
 * `trace_since`) are two windows: 1 when the trace's starts more than a
 * minute later (calls before it have no edges), -1 when the statistics'
 * do (calls before it are in no count), 0 when they are one window (reset
 * together, a moment apart) or a time is unknown. */
int cgm_window_skew(const char *stats_since, const char *trace_since);
/* "90", "90s", "15m", "2h", "7d", "1w" (also "2h30m"); negative CGM_EUSAGE with
 * a message naming `option` otherwise. */
int cgm_duration_parse(int64_t *seconds, const char *text, const char *option);
/* "3 d 4 h", "12 min", "40 s". */
void cgm_duration_text(cgm_strbuf *out, int64_t seconds);

/* Merge: one kept source's window, server, database and trace modes. */
void cgm_evidence_add_source(cgm_model *model, const cgm_runtime_source *src);
/* The function's calls can be seen by the runtime data at all: by the
 * tracer in its mode, or by the statistics under track_functions (an SQL
 * function may be inlined: only cgmap_trace.track = all sees it; an
 * aggregate is seen through its support functions). */
bool cgm_function_traceable(const cgm_model *model, int fn);
/* Calls of fn; for an aggregate, those merge gave it through its support
 * functions, or the calls of a shared support function that a client
 * statement called, which may have been this aggregate's. */
int64_t cgm_function_calls(const cgm_model *model, int fn);
/* Analyze: evidence.calls / enough, and every user function's verdict,
 * confidence, dead and cold (reachable must be set). */
void cgm_verdicts_apply(cgm_model *model, const cgm_analyze_options *opts);
/* The likely cause of an unexplained edge (cgm_edge_unexplained): "inlined
 * SQL function" (a static path through an SQL function the planner inlines),
 * "view", "default", "trigger", "event trigger", "dynamic SQL", "changed
 * body" (the call was seen against an earlier body of the caller, by its
 * body version, or the observed line is past the mapped body's end: the
 * body was replaced since), or "unknown" (then possibly a miss of cgmap). */
const char *cgm_edge_cause(const cgm_model *model, const cgm_edge *edge);

/* One line: "window A to B (3 h), 1 server, 1 database, 9162 calls observed;
 * traced: plpgsql; statistics: all; enough for dead: yes (at least 1 h, 100 calls)";
 * with lost records "...; 2 call records of dropped functions lost (cgmap_trace
 * stale_removed): any function may have run; not enough for dead (at least 1 h and
 * 100 calls, none lost)". */
void cgm_evidence_text(cgm_strbuf *out, const cgm_model *model);

#endif
