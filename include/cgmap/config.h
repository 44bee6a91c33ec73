/*
 * cgmap/config.h - a project's configuration file, `.cgmap.yml` (found in
 * the working folder, or given with --config FILE; docs/config.md): what a
 * team knows of its own code that no catalog says.
 *
 *   schemas, exclude_schemas   the schemas mapped (as --schema, --exclude-schema)
 *   entry                      entry-point patterns (as --entry)
 *   dynamic                    dynamic EXECUTE sites and the functions they call
 *   keep                       functions kept on purpose though nothing calls them
 *   diff.ignore                findings `cgmap diff` does not report
 *   set                        psql variables for SQL files (as --set NAME=VALUE)
 *   search_path                the search_path the application's sessions use
 *                              (as --search-path)
 *
 * cgm_config_load reads one file (YAML, through libyaml's event parser: no
 * recursion, no aliases, nesting bounded) into a cgm_config that owns every
 * string in its arena; cgm_config_free frees it whole.  A bad file is one
 * CGM_EINPUT error naming "FILE:LINE".  Map, report, the queries and diff
 * apply it (src/map.c, src/cmd_load.c, src/cmd_diff.c).
 */
#ifndef CGMAP_CONFIG_H
#define CGMAP_CONFIG_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/diff.h"
#include "cgmap/model.h"

/* The file looked for in the working folder when --config is not given. */
#define CGM_CONFIG_DEFAULT_NAME ".cgmap.yml"

/* "dynamic:" - the functions one or all dynamic sites of a function call. */
typedef struct cgm_config_dynamic {
	const char *function; /* pattern, matched as --entry (cgm_entry_matches) */
	int line;             /* the site's line in the body; 0: every dynamic site */
	int ncalls;
	const char **calls;   /* patterns of the functions it calls */
	const char *reason;   /* why, or "" */
	int file_line;        /* where the file declares it */
} cgm_config_dynamic;

/* "keep:" - functions kept on purpose: roots, with the reason shown. */
typedef struct cgm_config_keep {
	const char *function; /* pattern */
	const char *reason;   /* required */
	int file_line;
} cgm_config_keep;

/* "diff: ignore:" - findings not reported. */
typedef struct cgm_config_ignore {
	int finding;          /* cgm_finding_code, or -1: any finding */
	const char *function; /* pattern of the function the finding is about, or NULL: any */
	const char *reason;   /* required */
	int file_line;
} cgm_config_ignore;

typedef struct cgm_config {
	cgm_arena *arena;
	const char *path;
	int nschemas;
	const char **schemas;
	int nexclude_schemas;
	const char **exclude_schemas;
	int nentry;
	const char **entry;
	int ndynamic;
	cgm_config_dynamic *dynamic;
	int nkeep;
	cgm_config_keep *keep;
	int nignore;
	cgm_config_ignore *ignore;
	int nset;
	const char **set;     /* "NAME=VALUE", as --set takes them */
	int nsearch_path;     /* -1: not given */
	const char **search_path; /* schema names, unquoted */
} cgm_config;

/* Read `path`.  CGM_EINPUT ("FILE:LINE: ...") when it cannot be read or is
 * not a configuration; *out is NULL then. */
int cgm_config_load(cgm_config **out, const char *path);
void cgm_config_free(cgm_config *config);

/* Into an analysed or resolved model: each declared dynamic call as an edge
 * `via dynamic` (provenance static and declared, the site's line, the
 * reason), each kept function's reason (function.kept: analyze makes it a
 * root).  A declaration that matches nothing is a diagnostic naming the
 * file and line; nothing else fails. */
void cgm_config_apply(cgm_model *model, const cgm_config *config);

/* Whether diff finding `code` about `function` is ignored (cgm_diff_options.ignored). */
bool cgm_config_ignores(const void *config, cgm_finding_code code, const char *function);

#endif
