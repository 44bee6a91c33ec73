/*
 * cgmap/diff.h - what changed between two call graphs (`cgmap diff`).
 *
 * In:  two indexed models (a snapshot read back, or a source mapped on the
 *      fly), BASE and HEAD.  Out: a cgm_diff holding the findings, sorted,
 *      in its own arena (cgm_diff_free); writers print it as text, Markdown
 *      or JSON.  The models are only read, and may be freed once the diff is
 *      computed (every string is copied).
 *
 * Findings are named by stable codes (docs/diff.md), which `--fail-on`
 * takes.
 */
#ifndef CGMAP_DIFF_H
#define CGMAP_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"

/* In the order a report lists them: what breaks first. */
typedef enum {
	CGM_FIND_REMOVED_CALLED = 0, /* removed-called-function */
	CGM_FIND_MISSING_CALLEE,     /* missing-callee */
	CGM_FIND_NEW_PARSE_ERROR,    /* new-parse-error */
	CGM_FIND_NEW_DYNAMIC,        /* new-dynamic-site */
	CGM_FIND_NEW_UNREFERENCED,   /* new-unreferenced */
	CGM_FIND_REMOVED_FUNCTION,   /* removed-function */
	CGM_FIND_ADDED_FUNCTION,     /* added-function */
	CGM_FIND_SIGNATURE_CHANGED,  /* signature-changed */
	CGM_FIND_BODY_CHANGED,       /* body-changed */
	CGM_FIND_DEFINITION_CHANGED, /* definition-changed */
	CGM_FIND_REMOVED_EDGE,       /* removed-edge */
	CGM_FIND_ADDED_EDGE,         /* added-edge */
	CGM_FIND_BECAME_AMBIGUOUS,   /* became-ambiguous: a new candidate of a known call */
	CGM_FIND_RESOLVED_DYNAMIC,   /* resolved-dynamic-site */
	/* Derived from the blast radius (src/diff_impact.c), one per function: */
	CGM_FIND_TOUCHES_HOT,        /* touches-hot-path */
	CGM_FIND_DEAD_CHANGED,       /* dead-code-changed */
	CGM_FIND_COUNT
} cgm_finding_code;

/* An entry point (cgm_query_impact: a root, or a function no other calls)
 * reaching a changed function. */
typedef struct cgm_diff_entry {
	const char *id;
	int64_t calls;        /* its observed calls on its side, 0 without runtime data */
	int nfunctions;       /* diff->affected: the changed functions it reaches */
} cgm_diff_entry;

typedef struct cgm_finding {
	cgm_finding_code code;
	const char *function; /* the function it is about (HEAD id, or BASE id when gone) */
	const char *other;    /* the other function: callee, old id, ... or NULL */
	int line;             /* line in the function's body (HEAD when it exists), 0: none */
	const char *detail;   /* one readable sentence */
	const char *sql;      /* SQL text the sentence quotes (shown as code), or NULL */
	const char *excerpt;  /* body-changed, signature-changed with its body: one folded hunk, or NULL */
	/* Blast radius: the entry points of HEAD reaching `function` (of BASE
	 * when HEAD has no such function), most observed calls first, then by
	 * id; shared by the findings of one function. */
	bool from_base;
	const char *file;     /* SQL-file mode: where the function is defined, else NULL */
	int file_line;        /* (the side its entry points come from) */
	int nentries;
	const cgm_diff_entry *entries;
	int64_t entry_calls;  /* their calls added up (held at INT64_MAX) */
} cgm_finding;

typedef struct cgm_diff {
	cgm_arena *arena;
	const char *base_name, *head_name; /* what was compared, as given */
	int nfindings;
	cgm_finding *findings;              /* sorted: code, function, line, other, detail */
	int counts[CGM_FIND_COUNT];
	bool has_runtime;                   /* either side holds runtime data */
	int64_t hot_threshold;              /* touches-hot-path: calls of an entry point */
	int naffected;
	cgm_diff_entry *affected;           /* every entry point of any finding: by calls, reach, id */
	long comment_max;                   /* Markdown size bound, 0: CGM_DIFF_COMMENT_MAX */
	int nignored;                       /* findings cgm_diff_options.ignored left out */
} cgm_diff;

/* The Markdown comment's bound in bytes: under GitHub's 65,536 characters
 * (GitLab takes 1,000,000); findings past it are counted in "+N more". */
#define CGM_DIFF_COMMENT_MAX 60000

/* Default of --hot-threshold: observed calls that make an entry point hot. */
#define CGM_DIFF_DEFAULT_HOT_THRESHOLD 1000

typedef struct cgm_diff_options {
	int64_t hot_threshold;              /* <= 0: CGM_DIFF_DEFAULT_HOT_THRESHOLD */
	/* A finding this says is ignored is not reported, only counted in
	 * nignored (the project configuration's diff.ignore, cgmap/config.h). */
	bool (*ignored)(const void *ctx, cgm_finding_code code, const char *function);
	const void *ignore_ctx;
	/* The bodies of a side's functions whose excerpt is shown (body-changed,
	 * signature-changed with its body), when the models were read without
	 * them (CGM_SNAPSHOT_READ_SOURCES_LATER): called at most once per side
	 * (0 BASE, 1 HEAD) with their indexes, before any excerpt is made.  A
	 * negative return stops the diff with that error.  NULL: the models
	 * hold their bodies. */
	int (*load_sources)(void *ctx, int side, const int *fns, int n);
	void *sources_ctx;
} cgm_diff_options;

typedef enum { CGM_DIFF_TEXT = 0, CGM_DIFF_MARKDOWN, CGM_DIFF_JSON } cgm_diff_format;

/* "removed-called-function" ... */
const char *cgm_finding_name(cgm_finding_code code);
/* Code of a name; -1 when there is no such finding. */
int cgm_finding_parse(const char *name);

/* Compare BASE with HEAD.  *out is freed by cgm_diff_free; on an error of
 * load_sources, *out is NULL and its code returned. */
int cgm_diff_compute(cgm_diff **out, const cgm_model *base, const cgm_model *head,
		     const char *base_name, const char *head_name);
int cgm_diff_compute_opts(cgm_diff **out, const cgm_model *base, const cgm_model *head,
			  const char *base_name, const char *head_name,
			  const cgm_diff_options *opts);
/* src/diff_impact.c, called by the above once the findings are known: each
 * finding's entry points, diff->affected, and the derived findings
 * touches-hot-path and dead-code-changed (then sorted again by the caller). */
void cgm_diff_blast_radius(cgm_diff *diff, const cgm_model *base, const cgm_model *head,
			   void (*add)(void *ctx, cgm_finding_code code, const char *function,
				       const char *other, int line, const char *detail),
			   void *ctx);
void cgm_diff_free(cgm_diff *diff);

/* src/diff_excerpt.c: the start of a line diff of two bodies (hunks with
 * two lines of context, at most max_lines lines shown, then "... N more
 * lines"), in arena; NULL when they are equal line for line or either is
 * NULL. */
const char *cgm_body_excerpt(cgm_arena *arena, const char *base, const char *head, int max_lines);

/* Print the diff; `failing` marks the codes --fail-on names (may be NULL).
 * CGM_EIO when the stream fails. */
int cgm_diff_write(FILE *out, const cgm_diff *diff, cgm_diff_format format,
		   const bool failing[CGM_FIND_COUNT]);

#endif
