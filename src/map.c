/*
 * map.c - the mapping pipeline in one call (see cgmap/map.h), and the
 * command-line options every source-taking command shares.
 *
 * In: cgm_map_options.  Out: an analysed model owned by the caller.
 * Per-function problems (parse errors, missing callees) live in the model;
 * only an unreadable source fails the call.
 */
#include "cgmap/map.h"
#include "cgmap/extract_cache.h"
#include "cgmap/verdict.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

#include "cgmap/config.h"
#include "cgmap/error.h"
#include "cgmap/extract_pool.h"
#include "cgmap/infile.h"
#include "cgmap/relfx.h"
#include "cgmap/ops.h"
#include "docatalog.h"
#include "verbranch.h"
#include "sqlvars.h"

void cgm_map_options_init(cgm_map_options *opts)
{
	memset(opts, 0, sizeof(*opts));
}

void cgm_map_options_free(cgm_map_options *opts)
{
	free((void *)opts->sql_paths);
	free((void *)opts->source.schemas);
	free((void *)opts->source.exclude_schemas);
	free((void *)opts->source.psql_vars);
	free((void *)opts->runtime.files);
	free((void *)opts->runtime.logs);
	free((void *)opts->entry_patterns);
	cgm_config_free(opts->config);
	memset(opts, 0, sizeof(*opts));
}

/* `add` (n of them) after the n0 patterns of *list, which is reallocated. */
static int append_patterns(const char ***list, int *n0, const char *const *add, int n)
{
	if (n == 0)
		return 0;
	const char **grown = realloc((void *)*list, sizeof(char *) * (size_t)(*n0 + n));
	if (!grown)
		return cgm_error(CGM_EUSAGE, "out of memory");
	memcpy(grown + *n0, add, sizeof(char *) * (size_t)n);
	*list = grown;
	*n0 += n;
	return 0;
}

int cgm_map_options_load_config(cgm_map_options *opts)
{
	if (opts->config_loaded)
		return 0;
	opts->config_loaded = true;
	const char *path = opts->config_path;
	if (opts->no_config) {
		if (path)
			return cgm_error(CGM_EUSAGE, "give --config FILE or --no-config, not both");
		return 0;
	}
	struct stat st;
	if (!path) {
		/* Only a file of that name counts: a folder or a dangling link is
		 * not a configuration someone meant. */
		if (stat(CGM_CONFIG_DEFAULT_NAME, &st) != 0 || !S_ISREG(st.st_mode))
			return 0;
		path = CGM_CONFIG_DEFAULT_NAME;
	}
	int rc = cgm_config_load(&opts->config, path);
	if (rc < 0)
		return rc;
	const cgm_config *c = opts->config;
	/* The command line says what this run maps; the file what the project does. */
	if (opts->source.nschemas == 0 && opts->source.nexclude == 0) {
		if ((rc = append_patterns(&opts->source.schemas, &opts->source.nschemas, c->schemas,
					  c->nschemas)) < 0 ||
		    (rc = append_patterns(&opts->source.exclude_schemas, &opts->source.nexclude,
					  c->exclude_schemas, c->nexclude_schemas)) < 0)
			return rc;
	}
	/* psql variables: the file's first, so that --set overrides them. */
	if (c->nset) {
		int ncli = opts->source.npsql_vars;
		const char **cli = opts->source.psql_vars;
		opts->source.psql_vars = NULL;
		opts->source.npsql_vars = 0;
		if ((rc = append_patterns(&opts->source.psql_vars, &opts->source.npsql_vars, c->set, c->nset)) < 0 ||
		    (rc = append_patterns(&opts->source.psql_vars, &opts->source.npsql_vars, cli, ncli)) < 0) {
			free((void *)cli);
			return rc;
		}
		free((void *)cli);
	}
	return append_patterns(&opts->entry_patterns, &opts->nentry, c->entry, c->nentry);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void stage_time(const cgm_map_options *opts, const char *stage, double *start)
{
	double t = now_seconds();
	if (opts->timing)
		fprintf(opts->timing, "stage %-8s %8.3f s\n", stage, t - *start);
	*start = t;
}

/* Only references to mapped functions matter: the catalog's own views use
 * information_schema helpers, extensions use theirs. */
static void drop_unmapped_references(cgm_model *model)
{
	int kept = 0;
	for (int i = 0; i < model->nreferences; i++) {
		int f = model->references[i].function;
		if (f >= 0 && !model->functions[f].builtin)
			model->references[kept++] = model->references[i];
	}
	model->nreferences = kept;
}

/* --search-path, else the configuration's search_path: the path the
 * application's sessions run with, for every function without a SET
 * search_path of its own, instead of the one a new session of the
 * database (or of psql over the files) gets.  PostgREST sets one per
 * request, an application role its own with ALTER ROLE ... SET.  As
 * PostgreSQL searches it: pg_catalog first unless it is named; "$user"
 * names the role's schema, a role cgmap does not know, so it is left out.
 * Schemas that do not exist name nothing, as in PostgreSQL. */
static void apply_search_path(cgm_model *model, const cgm_map_options *opts)
{
	const char *const *given;
	int n;
	if (opts->search_path) {
		given = cgm_parse_search_path(model->arena, opts->search_path, &n);
	} else if (opts->config && opts->config->nsearch_path >= 0) {
		given = opts->config->search_path;
		n = opts->config->nsearch_path;
	} else {
		return;
	}
	const char **path = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)(n + 2));
	int np = 0;
	bool catalog_named = false;
	for (int k = 0; k < n; k++)
		catalog_named |= strcmp(given[k], "pg_catalog") == 0;
	if (!catalog_named)
		path[np++] = "pg_catalog";
	for (int k = 0; k < n; k++) {
		bool seen = strcmp(given[k], "$user") == 0;
		for (int j = 0; j < np && !seen; j++)
			seen = strcmp(path[j], given[k]) == 0;
		if (!seen)
			path[np++] = cgm_arena_strdup(model->arena, given[k]);
	}
	model->source.default_search_path = path;
	model->source.npath = np;
	model->source.search_path_given = true;
}

/* The source into the model, its functions extracted by `pool`: a database
 * streams each function to the pool as it reads it, SQL files each
 * definition as it is applied. */
static int load_source(cgm_model *model, const cgm_map_options *opts, cgm_extract_pool *pool)
{
	if (opts->nsql == 0)
		return cgm_source_pg_stream(model, &opts->source, pool);
	/* libpq gives a live session PGOPTIONS (the database's path is then
	 * read from cgmap's own session); psql would have given it to each
	 * session that ran the files. */
	cgm_source_options source = opts->source;
	if (!source.session_options)
		source.session_options = getenv("PGOPTIONS");
	return cgm_source_sql_stream(model, (const char *const *)opts->sql_paths, opts->nsql,
				     &source, pool);
}

int cgm_map_source(cgm_model **out, const cgm_map_options *opts)
{
	*out = NULL;
	cgm_model *model = cgm_model_new();
	double t = now_seconds();
	cgm_extract_pool *pool = cgm_extract_pool_start(opts->threads);
	/* Bodies are extracted by resolution, one at a time per thread, and
	 * their parse dropped as soon as their sites are resolved. */
	cgm_extract_pool_defer(pool);
	int rc = load_source(model, opts, pool);
	if (rc < 0) {
		cgm_extract_pool_cancel(pool, model->arena);
		cgm_model_free(model);
		return rc;
	}
	apply_search_path(model, opts);
	/* With a database, "catalog" ends with its last row and "parse" is the
	 * extraction still left then. */
	stage_time(opts, "catalog", &t);
	cgm_coercions coercions = cgm_extract_pool_coercions_of(pool);
	cgm_extract_pool_finish(pool, model->arena);
	cgm_model_trim_functions(model);
	model->include_extensions = opts->source.include_extensions;
	model->replica_session = opts->source.replica;
	cgm_model_index(model);
	cgm_model_link(model);
	cgm_ops_index(model);
	drop_unmapped_references(model);
	stage_time(opts, "parse", &t);

	/* What relations run on a statement's behalf, once per map. */
	cgm_relfx *relfx = cgm_relfx_build(model);
	stage_time(opts, "relfx", &t);

	cgm_resolve_options ropts = { .include_builtins = opts->include_builtins,
				      .threads = opts->threads, .relfx = relfx,
				      .coercions = coercions,
				      .extract_cache = opts->extract_cache };
	if (model->source.server_version_num > 0)
		ropts.versions = cgm_verbranch_versions(model, model->source.server_version_num,
							model->source.server_version_num);
	else if (model->source.kind && strcmp(model->source.kind, "sql") == 0)
		/* the files stand for any release of the major version whose
		 * builtins they know */
		ropts.versions = cgm_verbranch_versions(model, CGM_FILES_SERVER_MAJOR * 10000LL,
							CGM_FILES_SERVER_MAJOR * 10000LL + 9999);
	rc = cgm_resolve(model, &ropts);
	cgm_relfx_free(relfx);
	if (rc < 0)
		goto fail;
	if (opts->timing && opts->extract_cache) {
		long fetched, parsed;
		cgm_extract_cache_counts(opts->extract_cache, &fetched, &parsed);
		fprintf(opts->timing, "stage %-8s %8.3f s (%ld of %ld bodies from the parse cache)\n",
			"resolve", now_seconds() - t, fetched, fetched + parsed);
		t = now_seconds();
	} else {
		stage_time(opts, "resolve", &t);
	}
	/* Declared dynamic calls before the runtime merge, which adds its
	 * observations of the same calls to these edges. */
	cgm_config_apply(model, opts->config);

	cgm_runtime_options rt = opts->runtime;
	if (opts->nsql > 0) {
		rt.dsn = NULL; /* SQL files: runtime only from files and logs */
		rt.no_runtime = true;
	} else {
		rt.dsn = opts->source.dsn;
		rt.from_database = true; /* a log's OIDs are looked up there, env or --dsn */
	}
	if ((rc = cgm_runtime_apply(model, &rt)) < 0)
		goto fail;
	cgm_analyze_options aopts = { .entry_patterns = opts->entry_patterns,
				      .nentry = opts->nentry,
				      .has_min_window = opts->has_min_window,
				      .min_window_seconds = opts->min_window_seconds,
				      .has_min_calls = opts->has_min_calls,
				      .min_calls = opts->min_calls };
	if ((rc = cgm_analyze(model, &aopts)) < 0)
		goto fail;
	stage_time(opts, "analyze", &t);
	*out = model;
	return 0;
fail:
	cgm_model_free(model);
	return rc;
}

const char cgm_map_options_help[] =
	"source (one of):\n"
	"  --dsn DSN              libpq conninfo or URI (default: the PG* environment)\n"
	"  --sql PATH...          SQL files or folders (pg_dump --schema-only, migrations);\n"
	"                         '-' reads standard input\n"
	"  --set NAME=VALUE       a psql variable for the SQL files (psql -v; repeatable)\n"
	"scope:\n"
	"  --schema PATTERN       map only schemas matching the glob (repeatable)\n"
	"  --exclude-schema PAT   skip schemas matching the glob (repeatable)\n"
	"  --include-extensions   map functions that belong to extensions too\n"
	"  --include-builtins     keep edges to pg_catalog functions\n"
	"  --search-path LIST     the application's search_path ('api, util') for functions\n"
	"                         without a SET search_path of their own (default: what a\n"
	"                         new session of the database gets)\n"
	"  --replication-role R   the session_replication_role mapped: origin (default;\n"
	"                         triggers, rules and event triggers enabled REPLICA do\n"
	"                         not fire) or replica (a replication apply session:\n"
	"                         only those enabled REPLICA or ALWAYS fire)\n"
	"runtime data:\n"
	"  --no-runtime           do not read runtime figures from the database\n"
	"  --runtime FILE         merge a file written by 'cgmap collect' (repeatable)\n"
	"  --runtime-log FILE     merge 'digraph {oid->oid;...}' server log lines (repeatable;\n"
	"                         stderr, csvlog or jsonlog)\n"
	"  --log-line-prefix P    the servers' log_line_prefix, when not the default\n"
	"                         '%m [%p] ' (its %m, %t or %n gives the time)\n"
	"analysis:\n"
	"  --entry PATTERN        treat matching functions as entry points (repeatable)\n"
	"  --min-window DURATION  observation needed before a function is called dead\n"
	"                         (30m, 2h, 7d; default 1h)\n"
	"  --min-calls N          calls observed in all needed for dead (default 100)\n"
	"run:\n"
	"  --threads N            parsing and resolving threads (default: one per core)\n"
	"  --verbose              print every diagnostic, also each item of a grouped one\n"
	"  --stamp                record the mapping time (outputs are otherwise\n"
	"                         byte-identical for the same source)\n"
	"project:\n"
	"  --config FILE          the project configuration (default: ./.cgmap.yml when\n"
	"                         there is one; docs/config.md)\n"
	"  --no-config            read no configuration file\n"
	"untrusted input:\n"
	"  --max-file-size SIZE   largest input file read (SQL, runtime, snapshot): bytes\n"
	"                         or K, M, G; 0 for no limit (default 256M)\n"
	"  --allow-include-outside  let psql \\i / \\ir and folder links read files\n"
	"                         outside the paths given to --sql\n";

static int push(const char ***list, int *n, const char *value)
{
	const char **grown = realloc((void *)*list, sizeof(char *) * (size_t)(*n + 1));
	if (!grown)
		return cgm_error(CGM_EUSAGE, "out of memory");
	grown[(*n)++] = value;
	*list = grown;
	return 1;
}

int cgm_map_parse_option(cgm_map_options *opts, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *value = NULL;
	char name[64];
	const char *eq = strchr(arg, '=');
	if (strncmp(arg, "--", 2) != 0)
		return 0;
	if (eq && (size_t)(eq - arg) < sizeof name) {
		memcpy(name, arg, (size_t)(eq - arg));
		name[eq - arg] = '\0';
		value = eq + 1;
	} else {
		snprintf(name, sizeof name, "%s", arg);
	}
	static const char *const flags[] = { "--include-extensions", "--include-builtins",
					     "--no-runtime", "--stamp", "--allow-include-outside",
					     "--verbose", "--no-config", NULL };
	for (int k = 0; flags[k]; k++)
		if (strcmp(name, flags[k]) == 0) {
			if (k == 0)
				opts->source.include_extensions = true;
			else if (k == 1)
				opts->include_builtins = true;
			else if (k == 2)
				opts->runtime.no_runtime = true;
			else if (k == 3)
				opts->source.stamp = true;
			else if (k == 4)
				opts->source.allow_include_outside = true;
			else if (k == 5)
				opts->verbose = true;
			else
				opts->no_config = true;
			return 1;
		}
	static const char *const valued[] = { "--dsn", "--sql", "--schema", "--exclude-schema",
					      "--runtime", "--runtime-log", "--entry", "--threads",
					      "--max-file-size", "--min-window", "--min-calls",
					      "--log-line-prefix", "--config", "--set", "--search-path",
					      "--replication-role", NULL };
	int which = -1;
	for (int k = 0; valued[k]; k++)
		if (strcmp(name, valued[k]) == 0)
			which = k;
	if (which < 0)
		return 0;
	if (!value) {
		if (*i + 1 >= argc)
			return cgm_error(CGM_EUSAGE, "option '%s' needs a value", name);
		value = argv[++*i];
	}
	switch (which) {
	case 0:
		opts->source.dsn = value;
		return 1;
	case 1:
		push(&opts->sql_paths, &opts->nsql, value);
		/* --sql takes every following argument that is not an option. */
		while (*i + 1 < argc && (argv[*i + 1][0] != '-' || strcmp(argv[*i + 1], "-") == 0))
			push(&opts->sql_paths, &opts->nsql, argv[++*i]);
		return 1;
	case 2:
		return push(&opts->source.schemas, &opts->source.nschemas, value);
	case 3:
		return push(&opts->source.exclude_schemas, &opts->source.nexclude, value);
	case 4:
		return push(&opts->runtime.files, &opts->runtime.nfiles, value);
	case 5:
		return push(&opts->runtime.logs, &opts->runtime.nlogs, value);
	case 6:
		return push(&opts->entry_patterns, &opts->nentry, value);
	case 8: {
		int64_t bytes;
		int rc = cgm_infile_parse_size(&bytes, value);
		if (rc < 0)
			return rc;
		cgm_infile_set_max_size(bytes);
		return 1;
	}
	case 9: {
		int rc = cgm_duration_parse(&opts->min_window_seconds, value, "--min-window");
		if (rc < 0)
			return rc;
		opts->has_min_window = true;
		return 1;
	}
	case 11:
		opts->runtime.log_line_prefix = value;
		return 1;
	case 12:
		opts->config_path = value;
		return 1;
	case 13: {
		int rc = cgm_psql_vars_assign(NULL, value);
		if (rc < 0)
			return rc;
		return push(&opts->source.psql_vars, &opts->source.npsql_vars, value);
	}
	case 14:
		opts->search_path = value;
		return 1;
	case 15:
		/* session_replication_role's values; local fires as origin. */
		if (strcmp(value, "replica") != 0 && strcmp(value, "origin") != 0 &&
		    strcmp(value, "local") != 0)
			return cgm_error(CGM_EUSAGE,
					 "option '--replication-role' takes origin, replica or local, not '%s'",
					 value);
		opts->source.replica = strcmp(value, "replica") == 0;
		return 1;
	case 10: {
		char *end;
		long long n = strtoll(value, &end, 10);
		if (!*value || *end || n < 0 || n > 1000000000000LL)
			return cgm_error(CGM_EUSAGE, "option '--min-calls' takes a number of calls, not '%s'",
					 value);
		opts->min_calls = n;
		opts->has_min_calls = true;
		return 1;
	}
	default: {
		char *end;
		long n = strtol(value, &end, 10);
		if (*end || n < 0 || n > 64)
			return cgm_error(CGM_EUSAGE, "option '--threads' takes a number from 0 to 64, not '%s'",
					 value);
		opts->threads = (int)n;
		return 1;
	}
	}
}
