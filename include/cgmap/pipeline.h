/*
 * cgmap/pipeline.h - the stages of a mapping run, in pipeline order:
 *
 *   source -> extract -> resolve -> merge -> analyze -> emit
 *
 * Each stage reads and fills the same cgm_model (cgmap/model.h); all memory
 * it allocates lives in model->arena.  Every function returns 0 or a
 * negative CGM_E* code with the message set once (cgmap/error.h).  Problems
 * of a single function (a body that does not parse, a missing callee) are
 * recorded in the model and never make a stage fail.
 */
#ifndef CGMAP_PIPELINE_H
#define CGMAP_PIPELINE_H

#include <stdbool.h>

#include "cgmap/model.h"

typedef struct cgm_source_options {
	const char *dsn;               /* libpq conninfo or URI; NULL: environment */
	const char **schemas;          /* --schema patterns (shell globs), may be NULL */
	int nschemas;
	const char **exclude_schemas;  /* --exclude-schema patterns */
	int nexclude;
	bool include_extensions;       /* map functions that belong to an extension */
	bool stamp;                    /* record the mapping time */
	bool allow_include_outside;    /* SQL files: psql includes and folder links may
	                                * read files outside the paths given */
	const char **psql_vars;        /* SQL files: --set NAME=VALUE, psql's variables
	                                * at the start of each file */
	int npsql_vars;
	const char *session_options;   /* SQL files: the options each psql session
	                                * starts with, as PGOPTIONS sets them (the
	                                * map reads the environment as libpq does);
	                                * their search_path places what the files
	                                * create unqualified.  NULL: none */
	bool replica;                  /* --replication-role replica: map a session with
	                                * session_replication_role = replica (a logical
	                                * replication apply worker's): triggers, rules and
	                                * event triggers enabled REPLICA or ALWAYS fire,
	                                * ordinary (origin) ones and foreign keys' actions
	                                * do not; false: an ordinary session */
} cgm_source_options;

/* Live database: every function in scope, the builtins (for resolution),
 * triggers, relations, catalog references, default search_path. */
int cgm_source_pg_load(cgm_model *model, const cgm_source_options *opts);

typedef struct cgm_extract_pool cgm_extract_pool; /* cgmap/extract_pool.h */
/* The same, handing each mapped function to `pool` (NULL: none) as soon as
 * its row arrives, so parsing overlaps reading the catalog.  Returns once
 * the last row is read; the caller finishes the pool (or cancels it on an
 * error) before it moves the functions (cgm_model_index). */
int cgm_source_pg_stream(cgm_model *model, const cgm_source_options *opts,
			 cgm_extract_pool *pool);

/* SQL files (pg_dump --schema-only output, migrations) into the same model
 * a live database gives; paths are files or folders, "-" standard input. */
int cgm_source_sql_load(cgm_model *model, const char *const *paths, int npaths,
			const cgm_source_options *opts);
/* The same, extracting each definition on `pool` (NULL: none) as soon as it
 * is read, while the files are still applied; a definition replaced or
 * changed later is extracted again at the end.  Returns with every mapped
 * function extracted or queued; the caller finishes the pool (or cancels it
 * on an error) before it moves the functions. */
int cgm_source_sql_stream(cgm_model *model, const char *const *paths, int npaths,
			  const cgm_source_options *opts, cgm_extract_pool *pool);

/* True when `name` matches the --schema / --exclude-schema filters. */
bool cgm_schema_selected(const cgm_source_options *opts, const char *name);
/* A search_path as PostgreSQL's setting writes it ("app, \"My S\", public")
 * into schema names, unquoted (unquoted ones lower-cased), in `arena`;
 * *count of them. */
const char **cgm_parse_search_path(cgm_arena *arena, const char *text, int *count);
/* The path a session of `role` runs with by its role's setting `path`
 * (n names): a copy in `arena` with "$user" made the role's name, as
 * PostgreSQL reads it for that session. */
const char **cgm_role_search_path(cgm_arena *arena, const char *const *path, int n,
				  const char *role);
/* Every --schema and --exclude-schema pattern must match one of the source's
 * schemas (`names`, n of them; `where` names the source in the message):
 * CGM_EUSAGE naming the first pattern that matches none. */
int cgm_schema_patterns_check(const cgm_source_options *opts, const char *const *names, int n,
			      const char *where);

/* One function, into `arena` (thread-safe across different functions). */
void cgm_extract_function(cgm_arena *arena, cgm_function *fn);
/* Which casts PostgreSQL applies by itself (coerce.h: assignments, RETURN,
 * SELECT INTO, column values) get a site.  What the catalog's user casts
 * of context assignment or implicit allow spares the expressions' memory:
 * none when there is no such cast, only values stored into a
 * non-pg_catalog type when no such cast targets a pg_catalog type. */
typedef enum cgm_coercions {
	CGM_COERCE_ALL = 0,    /* casts unknown yet (SQL files): every value */
	CGM_COERCE_USER_TYPES, /* values stored into a type outside pg_catalog */
	CGM_COERCE_NONE
} cgm_coercions;
/* The same, with the coercions the catalog allows. */
void cgm_extract_function_with(cgm_arena *arena, cgm_function *fn, cgm_coercions coercions);
/* Whether PL/pgSQL bodies are read from the trees libpg_query's own parser
 * built (the default, when the link could wrap it) or from its JSON with
 * every expression parsed again (the path of a shared libpg_query); the
 * sites are the same.  Set it before extraction starts, not during. */
void cgm_extract_use_parser_trees(bool on);
/* The SQL a PL/pgSQL expression of an EXECUTE always yields, as extraction
 * reads it (a string constant, constants joined with ||, format() of a
 * constant template), malloc'd; NULL when it depends on values, or when
 * the expression is past the limits of libpg_query (sqlprep.h). */
char *cgm_extract_constant_sql(const char *expr);

struct cgm_relfx;
typedef struct cgm_resolve_options {
	bool include_builtins;         /* keep edges to pg_catalog functions */
	int threads;                   /* resolving threads, 0: one per core */
	const struct cgm_relfx *relfx; /* relation effects (cgmap/relfx.h), or NULL:
	                                * relation and DDL sites resolve to nothing */
	cgm_coercions coercions;       /* for the bodies left to resolution
	                                * (cgm_function.extract_pending) */
	struct cgm_extract_cache *extract_cache; /* their extraction kept by an earlier
	                                * run (cgmap/extract_cache.h), or NULL */
	/* The releases the map stands for (server_version_num: one for a
	 * database, a major version's for SQL files) and the functions
	 * returning it, or NULL: branches for other versions are left out
	 * (src/verbranch.h). */
	const struct cgm_server_versions *versions;
} cgm_resolve_options;

/* Resolve every site to function identities and build the static edges.
 * Needs cgm_model_index() done. */
int cgm_resolve(cgm_model *model, const cgm_resolve_options *opts);

/* The JSON snapshot (docs/snapshot.md). */
typedef struct cgm_snapshot_options {
	int format_version; /* 1 or 2 (CGM_SNAPSHOT_FORMAT); 0: CGM_SNAPSHOT_FORMAT */
	bool compress;      /* gzip the file (a folder gets cgmap.json.gz) */
} cgm_snapshot_options;
/* What cgm_snapshot_write uses: set once from the command line, before any
 * writing thread starts. */
void cgm_snapshot_set_defaults(const cgm_snapshot_options *opts);
const cgm_snapshot_options *cgm_snapshot_defaults(void);
int cgm_snapshot_write(const cgm_model *model, const char *path);
int cgm_snapshot_write_with(const cgm_model *model, const char *path,
			    const cgm_snapshot_options *opts);
/* Round the model's runtime times to what its snapshot holds (12
 * significant digits), so that what a map renders from memory is what a
 * render of its snapshot shows, to the byte: a folded stack's microseconds
 * or a time at the edge of rounding would otherwise differ. */
void cgm_snapshot_settle_times(cgm_model *model);
/* Read a snapshot; `path` is the file (plain or gzipped) or the folder
 * holding cgmap.json (or cgmap.json.gz). */
int cgm_snapshot_read(cgm_model **out, const char *path);
/* The same, leaving out what the caller never looks at. */
enum {
	CGM_SNAPSHOT_READ_NO_SOURCES = 1 << 0, /* functions' bodies (f->source NULL):
					        * reports and queries never show them */
	/* Bodies left in the file as NO_SOURCES does, each function's place
	 * kept (f->source_at) for cgm_snapshot_read_sources: `cgmap diff`
	 * shows the bodies of the few functions that changed.  A file that
	 * is not read in one pass (see docs/architecture.md) has its bodies
	 * read at once instead. */
	CGM_SNAPSHOT_READ_SOURCES_LATER = 1 << 1,
	/* Only the sites `cgmap diff` compares kept in f->sites: dynamic
	 * sites and calls of functions that do not exist (every site still
	 * checked: the same file reads or fails whoever reads it).  For a
	 * model only compared, never merged with runtime data or analysed
	 * again. */
	CGM_SNAPSHOT_READ_DIFF_SITES = 1 << 2
};
int cgm_snapshot_read_with(cgm_model **out, const char *path, unsigned flags);
/* The bodies of model->functions[fns[0 .. n)] that were left in the
 * snapshot at `path` (CGM_SNAPSHOT_READ_SOURCES_LATER), read again from the
 * same file (gzipped: inflated up to the last one) into the model's arena;
 * functions with a body, or none in the file, are left as they are.  A
 * file that is not the one read (device, inode, size, modification time),
 * or a body not where and as long as it was, is CGM_EINPUT, nothing set. */
int cgm_snapshot_read_sources(cgm_model *model, const char *path, const int *fns, int n);

/* The whole graph as Graphviz DOT. */
int cgm_emit_dot(const cgm_model *model, const char *path);

#endif
