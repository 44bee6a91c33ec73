/*
 * cgmap/map.h - the whole mapping pipeline in one call, shared by the map
 * command and by every command that takes a source instead of a snapshot
 * (diff, report): source -> extract -> resolve -> merge -> analyze.
 *
 * In:  options naming one source (a database or SQL files) and what shapes
 *      the graph.  Out: *out, a model the caller frees with cgm_model_free().
 * Errors: CGM_ESOURCE when the source cannot be read at all (exit code 2),
 *      CGM_EUSAGE / CGM_EINPUT for bad options or runtime files.
 */
#ifndef CGMAP_MAP_H
#define CGMAP_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "cgmap/runtime.h"

typedef struct cgm_map_options {
	cgm_source_options source;     /* dsn, schema filters, extensions, stamp */
	const char **sql_paths;        /* --sql PATH...: SQL files instead of a database */
	int nsql;
	bool include_builtins;
	int threads;                   /* parsing threads, 0: one per core */
	cgm_runtime_options runtime;   /* --no-runtime, --runtime, --runtime-log */
	const char *search_path;       /* --search-path LIST: the application's, or NULL */
	const char **entry_patterns;   /* --entry */
	int nentry;
	bool has_min_window;           /* --min-window DURATION */
	int64_t min_window_seconds;
	bool has_min_calls;            /* --min-calls N */
	int64_t min_calls;
	bool verbose;                  /* --verbose: every diagnostic, details too */
	const char *config_path;       /* --config FILE */
	bool no_config;                /* --no-config: not even ./.cgmap.yml */
	struct cgm_config *config;     /* loaded by cgm_map_options_load_config, owned here */
	bool config_loaded;
	FILE *timing;                  /* when set, per-stage wall times go there */
	struct cgm_extract_cache *extract_cache; /* bodies an earlier run into the same
	                                * folder extracted (cgmap/extract_cache.h), or
	                                * NULL: every body parsed; borrowed */
} cgm_map_options;

void cgm_map_options_init(cgm_map_options *opts);
/* Free the lists the option parser grew (not the strings: they are argv's). */
void cgm_map_options_free(cgm_map_options *opts);
int cgm_map_source(cgm_model **out, const cgm_map_options *opts);

/* Parse one mapping option at argv[*i] (and its value), shared by every
 * command that accepts a source; returns 1 when consumed, 0 when not a
 * source option, negative (message set) when its value is missing. */
int cgm_map_parse_option(cgm_map_options *opts, int argc, char **argv, int *i);
/* The project configuration (cgmap/config.h): --config FILE, else
 * ./.cgmap.yml when there is one, unless --no-config.  Its schemas apply
 * when the command line gives none; its entry patterns add to --entry.
 * Call once the command line is parsed; again is a no-op.  CGM_EINPUT when
 * the file is bad. */
int cgm_map_options_load_config(cgm_map_options *opts);
/* The option lines for --help. */
extern const char cgm_map_options_help[];

#endif
