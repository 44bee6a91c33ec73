/*
 * cgmap/query.h - questions asked of one call graph: who calls a function
 * (transitively), what it calls, the shortest call paths between two
 * functions, and which entry points reach a set of functions (`cgmap
 * callers`, `callees`, `path`, `impact`; the blast radius of `cgmap diff`).
 *
 * In:  an indexed, analysed model (a snapshot read back or a source mapped
 *      on the fly), only read.  Out: plain arrays of function and edge
 *      indexes into that model, malloc'd here and freed by the matching
 *      cgm_q*_free; the model must outlive them.  Every edge of the model
 *      takes part (static, observed, ambiguous candidates), so an answer
 *      says "possible" where the graph does.
 */
#ifndef CGMAP_QUERY_H
#define CGMAP_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "cgmap/model.h"
#include "cgmap/strbuf.h"

/* The edges of each function both ways, in the order every output lists
 * edges (cgm_model_edge_order). */
typedef struct cgm_qgraph {
	const cgm_model *model;
	int n;          /* model->nfunctions */
	int *out_start; /* n + 1: out_edges[out_start[f] .. out_start[f + 1]) leave f */
	int *out_edges;
	int *in_start;  /* n + 1: in_edges[...] arrive at f */
	int *in_edges;
} cgm_qgraph;

void cgm_qgraph_build(cgm_qgraph *g, const cgm_model *model);
void cgm_qgraph_free(cgm_qgraph *g);

/* The functions FUNC names, matched as --entry matches (an id, or a glob on
 * the id or on schema.name): the mapped functions, else the builtins kept
 * in the model.  *out (malloc'd, ascending) and *n; none matching is
 * CGM_EUSAGE naming the closest ids by edit distance. */
int cgm_query_match(int **out, int *n, const cgm_model *model, const char *pattern);
/* Up to k indexes of the functions whose id or schema.name is closest to
 * `text` (edit distance, then id), into out; returns how many. */
int cgm_query_closest(int *out, int k, const cgm_model *model, const char *text);

/* ---- callers, callees: the neighbourhood as a tree ---- */

typedef enum { CGM_Q_CALLERS = 0, CGM_Q_CALLEES } cgm_qdir;

/* Why a row shows no children. */
typedef enum {
	CGM_QROW_EXPANDED = 0, /* its neighbours follow (none when it has none) */
	CGM_QROW_SEEN,         /* expanded on another row (at its shortest depth) */
	CGM_QROW_CYCLE,        /* already on the way from the start: a cycle (or self loop) */
	CGM_QROW_LIMIT         /* at --depth, with neighbours not shown */
} cgm_qmark;

typedef struct cgm_qrow {
	int depth;      /* 0 for a queried function, then 1, 2, ... */
	int fn;         /* the function on this row */
	int parent;     /* the row it hangs from, -1 for depth 0 */
	int edge;       /* the edge between the two (caller -> callee), -1 at depth 0 */
	cgm_qmark mark;
} cgm_qrow;

typedef struct cgm_qtree {
	cgm_qrow *rows; /* depth-first, neighbours in edge order */
	int nrows;
	int nfunctions; /* distinct functions on the rows below the queried ones */
	int nqueried;   /* of those, queried ones (a queried overload calling another) */
	int max_depth;  /* the limit asked for, 0: none */
} cgm_qtree;

/* Every function is expanded once, on a row at its shortest distance from
 * the start; the rows for the other ways to it say SEEN or CYCLE.
 * max_depth 0: no limit. */
void cgm_query_tree(cgm_qtree *out, const cgm_qgraph *g, const int *start, int nstart,
		    cgm_qdir dir, int max_depth);
void cgm_qtree_free(cgm_qtree *t);

/* ---- path ---- */

typedef struct cgm_qpath {
	int nfns;       /* hops + 1 */
	int *fns;       /* from ... to; a hop is every edge between two neighbours */
} cgm_qpath;

typedef struct cgm_qpaths {
	cgm_qpath *paths; /* shortest first, then by the ids along the way */
	int npaths;
	bool cut;         /* the search stopped at its work bound: more may exist */
} cgm_qpaths;

/* Up to max_paths simple call paths from any of `from` to any of `to`, in
 * order of length (a path back to its start is a cycle, at least one hop).
 * The search does at most `budget` steps (0: a default of a few million). */
void cgm_query_paths(cgm_qpaths *out, const cgm_qgraph *g, const int *from, int nfrom,
		     const int *to, int nto, int max_paths, long budget);
void cgm_qpaths_free(cgm_qpaths *p);

/* ---- impact: the entry points reaching a set of functions ---- */

/* Whether f is an entry point: a root, or called by no other function. */
bool cgm_query_is_entry(const cgm_qgraph *g, int f);

/* The provenance of the best path: static only, observed only, both (a
 * static path and an observed path both exist), or mixed (only paths that
 * need static and observed edges together). */
typedef enum { CGM_QPROV_STATIC = 0, CGM_QPROV_OBSERVED, CGM_QPROV_BOTH, CGM_QPROV_MIXED } cgm_qprov;
const char *cgm_qprov_name(cgm_qprov prov);

typedef struct cgm_qentry {
	int fn;          /* a root (function.root) reaching a target, or a top: a
	                  * function no other function calls (graphs without
	                  * runtime data have few roots) */
	bool root;       /* a root, else a top */
	int length;      /* calls on the shortest path (0: it is a target itself) */
	int target;      /* the target that shortest path ends at */
	cgm_qprov prov;
	int64_t calls;   /* its observed calls (cgm_function_calls), 0 without data */
} cgm_qentry;

typedef struct cgm_qimpact {
	cgm_qentry *entries; /* most observed calls first, then by id */
	int nentries;
	int64_t calls;       /* the entries' calls added up */
	int *callers;        /* every function reaching a target, targets left out, by id */
	int ncallers;
} cgm_qimpact;

void cgm_query_impact(cgm_qimpact *out, const cgm_qgraph *g, const int *targets, int ntargets);
void cgm_qimpact_free(cgm_qimpact *im);

/* "static", "observed" or "both" of an edge. */
const char *cgm_qedge_provenance(const cgm_edge *e);

/* ---- writing the answers (src/query_out.c) ---- */

typedef enum {
	CGM_QFMT_TEXT = 0, /* an indented tree / aligned lines */
	CGM_QFMT_DOT,
	CGM_QFMT_JSON,
	CGM_QFMT_CSV,
	CGM_QFMT_MARKDOWN
} cgm_qformat;
/* "text" (or "tree"), "dot", "json", "csv", "markdown" (or "md"). */
int cgm_qformat_parse(cgm_qformat *out, const char *name);

/* Each writer appends to `o`; `matched` are the functions each FUNC named. */
void cgm_query_write_tree(cgm_strbuf *o, const cgm_model *model, const cgm_qtree *t,
			  cgm_qdir dir, cgm_qformat format);
void cgm_query_write_paths(cgm_strbuf *o, const cgm_model *model, const cgm_qgraph *g,
			   const cgm_qpaths *p, const int *from, int nfrom, const int *to, int nto,
			   cgm_qformat format);
void cgm_query_write_impact(cgm_strbuf *o, const cgm_model *model, const cgm_qgraph *g,
			    const cgm_qimpact *im, const int *targets, int ntargets,
			    cgm_qformat format);

#endif
