/*
 * cmd_diff.c - `cgmap diff BASE HEAD`: what changed between two call graphs,
 * with an exit code a CI pipeline can act on.
 *
 * BASE and HEAD are snapshots (cgmap.json or the folder holding it), or
 * sources mapped on the fly: `--dsn DSN` or `--sql PATH...` standing in the
 * place of either, in order.  Output: the findings (cgmap/diff.h) as text,
 * Markdown or JSON, on standard output or --output FILE.
 *
 * Two snapshots are read at once, HEAD's on a thread of its own.
 *
 * Exit (cmd.h): 0 no difference, 2 differences and none that --fail-on
 * names, 3 a --fail-on finding is present, 1 bad usage, 4 an input that
 * cannot be read (a snapshot, a database, SQL files, runtime data), 5 the
 * report cannot be written.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/config.h"
#include "cgmap/diff.h"
#include "cgmap/error.h"
#include "cgmap/map.h"
#include "cgmap/pipeline.h"
#include "cmd.h"
#include "outdir.h"

typedef struct diff_source {
	const char *snapshot;  /* a snapshot path, or NULL */
	const char *dsn;       /* --dsn, or NULL */
	const char **sql;      /* --sql paths */
	int nsql;
	bool is_dsn;
	const char **runtime;  /* runtime files merged into this side */
	int nruntime;
} diff_source;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cgmap diff [options] BASE HEAD\n"
		"\n"
		"BASE and HEAD are snapshots (cgmap.json or the folder holding it); either\n"
		"may be replaced by a source mapped on the fly, in order:\n"
		"  --dsn DSN              a database\n"
		"  --sql PATH...          SQL files or folders ('-' reads standard input)\n"
		"\n"
		"options:\n"
		"  --format FORMAT        text (default), markdown (a pull-request comment) or json\n"
		"  --fail-on LIST         comma-separated finding codes (or 'any') that make the\n"
		"                         exit code 3, e.g. missing-callee,removed-called-function,\n"
		"                         new-dynamic-site,new-unreferenced\n"
		"  --output FILE, -o FILE write the report to FILE instead of standard output\n"
		"  --runtime FILE         merge a 'cgmap collect' file into both sides (repeatable);\n"
		"  --base-runtime FILE    into BASE only; --head-runtime FILE into HEAD only\n"
		"  --hot-threshold CALLS  observed calls that make an entry point hot, for\n"
		"                         touches-hot-path (default %d)\n"
		"  --base-label TEXT, --head-label TEXT\n"
		"                         what the report calls each side (default: the path)\n"
		"  --schema, --exclude-schema, --include-extensions, --include-builtins, --threads\n"
		"                         shape the sources mapped on the fly, as for 'cgmap map'\n"
		"\n"
		"findings:", CGM_DIFF_DEFAULT_HOT_THRESHOLD);
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		fprintf(out, "%s%s", k % 4 == 0 ? "\n  " : ", ", cgm_finding_name((cgm_finding_code)k));
	fprintf(out, "\n\nexit: 0 no difference, 2 differences, 3 a --fail-on finding, 1 usage or input error\n"
		     "See docs/diff.md for each finding and the JSON format.\n");
}

/* The options of one side or of the blast radius; *which says which
 * (0 --base-label, 1 --head-label, 2 --runtime, 3 --base-runtime,
 * 4 --head-runtime, 5 --hot-threshold); *value NULL when missing. */
static bool side_option(const char *a, const char **value, int argc, char **argv, int *i, int *which)
{
	static const char *const names[] = { "--base-label", "--head-label", "--runtime",
					     "--base-runtime", "--head-runtime", "--hot-threshold", NULL };
	for (int k = 0; names[k]; k++) {
		size_t len = strlen(names[k]);
		if (strncmp(a, names[k], len) != 0 || (a[len] != '\0' && a[len] != '='))
			continue;
		*which = k;
		if (a[len] == '=')
			*value = a + len + 1;
		else
			*value = *i + 1 < argc ? argv[++*i] : NULL;
		return true;
	}
	return false;
}

static int parse_fail_on(bool failing[CGM_FIND_COUNT], const char *list)
{
	char *copy = strdup(list);
	if (!copy)
		return cgm_error(CGM_EUSAGE, "out of memory");
	int rc = 0;
	for (char *save = NULL, *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (strcmp(tok, "any") == 0) {
			for (int k = 0; k < CGM_FIND_COUNT; k++)
				failing[k] = true;
			continue;
		}
		int code = cgm_finding_parse(tok);
		if (code < 0) {
			rc = cgm_error(CGM_EUSAGE,
				       "unknown finding \"%s\" in --fail-on; see 'cgmap diff --help'", tok);
			break;
		}
		failing[code] = true;
	}
	free(copy);
	return rc;
}

/* How a snapshot side is read: bodies stay in the file (only the changed
 * ones are shown, read again once the diff knows them: load_sources), and
 * a model only compared keeps only the sites diff compares. */
static unsigned snapshot_flags(const cgm_map_options *opts)
{
	unsigned flags = CGM_SNAPSHOT_READ_SOURCES_LATER;
	if (!cmd_runtime_changes(opts))
		flags |= CGM_SNAPSHOT_READ_DIFF_SITES;
	return flags;
}

static cgm_map_options side_options(const diff_source *src, const cgm_map_options *shared)
{
	cgm_map_options opts = *shared;
	opts.runtime.files = src->runtime;
	opts.runtime.nfiles = src->nruntime;
	return opts;
}

/* HEAD's snapshot read on a thread of its own while BASE's is read: the
 * two reads are most of a diff of snapshots, and share nothing (each
 * reader has its model, its arenas and its thread's error message). */
typedef struct side_read {
	const char *file;
	unsigned flags;
	cgm_model *model;
	int rc;
	char message[1024]; /* the reading thread's error message */
} side_read;

static void *read_side_main(void *arg)
{
	side_read *sr = arg;
	sr->rc = cgm_snapshot_read_with(&sr->model, sr->file, sr->flags);
	if (sr->rc < 0)
		snprintf(sr->message, sizeof sr->message, "%s", cgm_error_message());
	return NULL;
}

/* Read or map one side; *name gets what the report calls it.  A snapshot
 * already read (`read`, from read_side_main) is only finished here. */
static int load_side(cgm_model **out, const char **name, const diff_source *src,
		     const cgm_map_options *shared, char *namebuf, size_t namelen,
		     side_read *read)
{
	cgm_map_options opts = side_options(src, shared);
	if (src->snapshot) {
		*name = src->snapshot;
		int rc;
		if (read) {
			*out = read->model;
			read->model = NULL;
			rc = read->rc < 0 ? cgm_error(read->rc, "%s", read->message) : read->rc;
		} else {
			rc = cgm_snapshot_read_with(out, src->snapshot, snapshot_flags(&opts));
		}
		if (rc < 0)
			return rc;
		/* Runtime files (and --entry) as `cgmap report` applies them. */
		return cmd_apply_runtime(*out, &opts, "diff", src->snapshot);
	}
	opts.source.dsn = src->dsn;
	opts.sql_paths = src->sql;
	opts.nsql = src->nsql;
	/* A diff compares code: traffic only from the files given, never
	 * from the database being mapped. */
	opts.runtime.no_runtime = true;
	int rc = cgm_map_source(out, &opts);
	if (rc < 0)
		return rc;
	/* The database name, never the DSN: it may hold a password. */
	if (src->is_dsn)
		snprintf(namebuf, namelen, "database %s", (*out)->source.name ? (*out)->source.name : "?");
	else
		snprintf(namebuf, namelen, "%s", (*out)->source.name ? (*out)->source.name : "SQL files");
	*name = namebuf;
	return 0;
}

/* cgm_diff_options.load_sources: the bodies of a snapshot side's changed
 * functions, from its file. */
typedef struct sources_ctx {
	cgm_model **models;
	const diff_source *sides;
} sources_ctx;

static int load_sources(void *ctx, int side, const int *fns, int n)
{
	const sources_ctx *sc = ctx;
	if (!sc->sides[side].snapshot)
		return 0; /* mapped on the fly: the model has its bodies */
	return cgm_snapshot_read_sources(sc->models[side], sc->sides[side].snapshot, fns, n);
}

int cmd_diff(int argc, char **argv)
{
	diff_source sides[2];
	memset(sides, 0, sizeof sides);
	int nsides = 0;
	cgm_map_options shared;
	cgm_map_options_init(&shared);
	cgm_diff_format format = CGM_DIFF_TEXT;
	bool failing[CGM_FIND_COUNT] = { false };
	const char *output = NULL;
	int exit_code = CMD_EXIT_USAGE;
	cgm_model *models[2] = { NULL, NULL };
	cgm_diff *diff = NULL;
	const char **sql_lists[2] = { NULL, NULL };
	const char **runtime_lists[2] = { NULL, NULL };
	int nruntime[2] = { 0, 0 }, which = 0;
	const char *labels[2] = { NULL, NULL };
	cgm_diff_options dopts = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *value = NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			exit_code = 0;
			goto done;
		}
		bool is_sql = strcmp(a, "--sql") == 0 || strncmp(a, "--sql=", 6) == 0;
		bool is_dsn = strcmp(a, "--dsn") == 0 || strncmp(a, "--dsn=", 6) == 0;
		if (is_sql || is_dsn || a[0] != '-' || strcmp(a, "-") == 0) {
			if (nsides == 2) {
				fprintf(stderr, "cgmap diff: more than two inputs given ('%s'); see 'cgmap diff --help'\n", a);
				goto done;
			}
			diff_source *src = &sides[nsides];
			if (!is_sql && !is_dsn) {
				src->snapshot = a;
				nsides++;
				continue;
			}
			if (a[5] == '=') {
				value = a + 6;
			} else if (i + 1 < argc) {
				value = argv[++i];
			} else {
				fprintf(stderr, "cgmap diff: option '%.5s' needs a value\n", a);
				goto done;
			}
			if (is_dsn) {
				src->dsn = value;
				src->is_dsn = true;
			} else {
				int cap = argc;
				sql_lists[nsides] = malloc(sizeof(char *) * (size_t)cap);
				if (!sql_lists[nsides]) {
					fprintf(stderr, "cgmap diff: out of memory\n");
					goto done;
				}
				src->sql = sql_lists[nsides];
				src->sql[src->nsql++] = value;
				/* --sql takes the paths that follow, up to an option
				 * or a snapshot (which is the other side). */
				while (i + 1 < argc && (argv[i + 1][0] != '-' || strcmp(argv[i + 1], "-") == 0) &&
				       !cmd_looks_like_snapshot(argv[i + 1]))
					src->sql[src->nsql++] = argv[++i];
			}
			nsides++;
			continue;
		}
		if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
			value = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (value && strcmp(value, "text") == 0)
				format = CGM_DIFF_TEXT;
			else if (value && (strcmp(value, "markdown") == 0 || strcmp(value, "md") == 0))
				format = CGM_DIFF_MARKDOWN;
			else if (value && strcmp(value, "json") == 0)
				format = CGM_DIFF_JSON;
			else {
				fprintf(stderr, "cgmap diff: --format takes text, markdown or json, not '%s'\n",
					value ? value : "");
				goto done;
			}
		} else if (strcmp(a, "--fail-on") == 0 || strncmp(a, "--fail-on=", 10) == 0) {
			value = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
			if (!value || parse_fail_on(failing, value) < 0) {
				fprintf(stderr, "cgmap diff: %s\n",
					value ? cgm_error_message() : "option '--fail-on' needs a value");
				goto done;
			}
		} else if (side_option(a, &value, argc, argv, &i, &which)) {
			if (!value) {
				fprintf(stderr, "cgmap diff: option '%s' needs a value\n", a);
				goto done;
			}
			if (which == 0 || which == 1) { /* --base-label, --head-label */
				labels[which] = value;
			} else if (which == 5) { /* --hot-threshold */
				char *end;
				long long n = strtoll(value, &end, 10);
				if (!*value || *end || n < 1 || n > 1000000000000000LL) {
					fprintf(stderr, "cgmap diff: --hot-threshold takes a number of calls, "
							"not '%s'\n", value);
					goto done;
				}
				dopts.hot_threshold = n;
			} else {
				/* --runtime: both sides; --base-runtime, --head-runtime: one. */
				for (int s = 0; s < 2; s++)
					if (which == 2 || which == 3 + s) {
						if (!runtime_lists[s])
							runtime_lists[s] = calloc((size_t)argc, sizeof(char *));
						if (!runtime_lists[s]) {
							fprintf(stderr, "cgmap diff: out of memory\n");
							goto done;
						}
						runtime_lists[s][nruntime[s]++] = value;
					}
			}
		} else if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "cgmap diff: option '%s' needs a value\n", a);
				goto done;
			}
			output = argv[++i];
		} else if (strncmp(a, "--output=", 9) == 0) {
			output = a + 9;
		} else {
			int used = cgm_map_parse_option(&shared, argc, argv, &i);
			if (used < 0) {
				fprintf(stderr, "cgmap diff: %s\n", cgm_error_message());
				goto done;
			}
			if (!used) {
				fprintf(stderr, "cgmap diff: unknown option '%s'; see 'cgmap diff --help'\n", a);
				goto done;
			}
		}
	}
	if (nsides != 2) {
		fprintf(stderr, "cgmap diff: give BASE and HEAD (%s)\n",
			nsides == 0 ? "none given" : "only one given");
		if (nsides == 1 && sides[0].nsql > 1)
			fprintf(stderr, "cgmap diff: --sql took all %d paths after it; give each side "
					"its own: --sql BASE... --sql HEAD...\n",
				sides[0].nsql);
		usage(stderr);
		goto done;
	}

	const char *names[2];
	char namebufs[2][1024];
	for (int s = 0; s < 2; s++) {
		sides[s].runtime = runtime_lists[s];
		sides[s].nruntime = nruntime[s];
	}
	/* One configuration for both sides: the project's, as HEAD has it. */
	int config_rc = cgm_map_options_load_config(&shared);
	if (config_rc < 0) {
		fprintf(stderr, "cgmap diff: %s\n", cgm_error_message());
		exit_code = cmd_exit_code(config_rc);
		goto done;
	}
	dopts.ignored = cgm_config_ignores;
	dopts.ignore_ctx = shared.config;
	side_read head_read = { 0 };
	pthread_t head_reader;
	bool threaded = false;
	/* With one core the reads would only take turns, and hold both
	 * files' text at once. */
	if (sides[0].snapshot && sides[1].snapshot && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		cgm_map_options head_opts = side_options(&sides[1], &shared);
		head_read.file = sides[1].snapshot;
		head_read.flags = snapshot_flags(&head_opts);
		threaded = pthread_create(&head_reader, NULL, read_side_main, &head_read) == 0;
	}
	for (int s = 0; s < 2; s++) {
		side_read *read = NULL;
		if (s == 1 && threaded) {
			pthread_join(head_reader, NULL);
			threaded = false;
			read = &head_read;
		}
		int rc = load_side(&models[s], &names[s], &sides[s], &shared, namebufs[s],
				   sizeof namebufs[s], read);
		if (rc < 0) {
			fprintf(stderr, "cgmap diff: %s: %s\n", s == 0 ? "BASE" : "HEAD",
				cgm_error_message());
			exit_code = cmd_exit_code(rc);
			if (threaded) /* BASE failed while HEAD was being read */
				pthread_join(head_reader, NULL);
			cgm_model_free(head_read.model);
			goto done;
		}
	}
	for (int s = 0; s < 2; s++)
		if (labels[s])
			names[s] = labels[s];
	sources_ctx sctx = { models, sides };
	dopts.load_sources = load_sources;
	dopts.sources_ctx = &sctx;
	int drc = cgm_diff_compute_opts(&diff, models[0], models[1], names[0], names[1], &dopts);
	if (drc < 0) {
		fprintf(stderr, "cgmap diff: %s\n", cgm_error_message());
		exit_code = cmd_exit_code(drc);
		goto done;
	}
	if (diff->nignored)
		fprintf(stderr, "cgmap diff: %d %s ignored by %s (diff.ignore)\n", diff->nignored,
			diff->nignored == 1 ? "finding" : "findings", shared.config->path);

	/* A file is replaced whole, never written through a link (outdir.h). */
	FILE *out = stdout;
	cgm_outstream stream;
	if (output) {
		if (cgm_outstream_open(&stream, output) < 0) {
			fprintf(stderr, "cgmap diff: %s\n", cgm_error_message());
			exit_code = CMD_EXIT_OUTPUT;
			goto done;
		}
		out = stream.file;
	}
	int rc = cgm_diff_write(out, diff, format, failing);
	if (output) {
		int crc = cgm_outstream_commit(&stream, rc == 0);
		rc = rc ? rc : crc;
	}
	if (rc < 0) {
		fprintf(stderr, "cgmap diff: %s\n", cgm_error_message());
		exit_code = cmd_exit_code(rc);
		goto done;
	}
	exit_code = diff->nfindings == 0 ? CMD_EXIT_OK : CMD_EXIT_DIFFERENCES;
	for (int k = 0; k < CGM_FIND_COUNT; k++)
		if (failing[k] && diff->counts[k])
			exit_code = CMD_EXIT_FAIL_ON;
done:
	cgm_diff_free(diff);
	cgm_model_free(models[0]);
	cgm_model_free(models[1]);
	free((void *)sql_lists[0]);
	free((void *)sql_lists[1]);
	free((void *)runtime_lists[0]);
	free((void *)runtime_lists[1]);
	cgm_map_options_free(&shared);
	return exit_code;
}
