/*
 * cmd_map.c - `cgmap [map] --dsn DSN | --sql PATH... --out DIR`: map a
 * source and document it: DIR/cgmap.json (the snapshot), DIR/callgraph.dot
 * and the HTML site.  A summary and every per-function problem go to stderr.
 *
 * Exit (cmd.h): 0 mapped (even with parse errors reported), 1 bad usage, 4
 * the source cannot be read, 5 the output folder cannot be written.
 *
 * The snapshot and the DOT graph are written at once, on two threads: both
 * writers only read the finished model and keep no static state; the edge
 * order they share is made before and freed after (model->edge_order).
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/extract_cache.h"
#include "cgmap/html.h"
#include "cgmap/map.h"
#include "cgmap/ops.h"
#include "cmd.h"
#include "outfile.h"

#define MAX_LISTED_PROBLEMS 50
/* Where the site keeps its layouts too (docs/html.md). */
#define PARSE_CACHE_DIR ".cgmap-cache"

static void usage(FILE *out)
{
	fprintf(out, "usage: cgmap [map] (--dsn DSN | --sql PATH...) --out DIR [options]\n\n"
		     "output:\n"
		     "  --out DIR              write cgmap.json, callgraph.dot and the HTML site\n"
		     "  --no-html              write only cgmap.json and callgraph.dot\n"
		     "  --compress             write the snapshot gzipped, as cgmap.json.gz (every\n"
		     "                         reader takes either; docs/snapshot.md)\n"
		     "  --snapshot-format N    snapshot format_version 2 (default, compact) or 1\n"
		     "                         (what cgmap wrote before, for older readers)\n"
		     "  --depth N              neighbourhood depth of function graphs (default 1)\n"
		     "  --node-cap N           most nodes drawn in one graph (default 50)\n"
		     "  --dot-sources          also write each graph's DOT text under DIR/dot/\n"
		     "  --no-layout-cache      lay every graph out and build every page again\n"
		     "                         (no layouts from .cgmap-cache/, no page records)\n"
		     "  --no-cache             also parse every body again: neither read nor\n"
		     "                         write .cgmap-cache/ at all\n"
		     "  --layout graphviz      lay out function graphs with Graphviz too (default:\n"
		     "                         cgmap's layered layout; schema overviews use Graphviz)\n"
		     "  --timing               print the wall time of each stage on stderr\n"
		     "  --quiet                print only errors\n");
	fputs(cgm_map_options_help, out);
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return cgm_error(CGM_EIO, "cannot create folder \"%s\": %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return cgm_error(CGM_EIO, "cannot create folder \"%s\": %s", buf, strerror(errno));
	return 0;
}

/* A name or message from the source, safe for a terminal. */
static const char *shown(cgm_strbuf *buf, const char *s)
{
	cgm_strbuf_reset(buf);
	cgm_escape_text(buf, s ? s : "");
	return cgm_strbuf_cstr(buf);
}

static void print_problems(const cgm_model *model, bool verbose)
{
	cgm_strbuf a = CGM_STRBUF_INIT, b = CGM_STRBUF_INIT, c = CGM_STRBUF_INIT;
	int listed = 0, total = 0;
	for (int f = 0; f < model->nuser; f++) {
		const cgm_function *fn = &model->functions[f];
		for (int e = 0; e < fn->nerrors; e++, total++)
			if (listed++ < MAX_LISTED_PROBLEMS) {
				if (fn->file)
					fprintf(stderr, "cgmap: %s:%d: %s: line %d: %s\n",
						shown(&a, fn->file), fn->file_line, shown(&b, fn->id),
						fn->errors[e].line, shown(&c, fn->errors[e].message));
				else
					fprintf(stderr, "cgmap: %s: line %d: %s\n", shown(&b, fn->id),
						fn->errors[e].line, shown(&c, fn->errors[e].message));
			}
	}
	for (int d = 0; d < model->ndiagnostics; d++) {
		const cgm_diagnostic *dg = &model->diagnostics[d];
		/* Items of a grouped warning: in cgmap.json, here with --verbose. */
		if (dg->detail && !verbose)
			continue;
		total++;
		if (!verbose && listed++ >= MAX_LISTED_PROBLEMS)
			continue;
		/* Line 0: of the whole file (a file read once), no place in it. */
		if (dg->file && dg->line > 0)
			fprintf(stderr, "cgmap: %s:%d: %s\n", shown(&a, dg->file), dg->line,
				shown(&c, dg->message));
		else if (dg->file)
			fprintf(stderr, "cgmap: %s: %s\n", shown(&a, dg->file), shown(&c, dg->message));
		else
			fprintf(stderr, "cgmap: %s\n", shown(&c, dg->message));
	}
	cgm_strbuf_free(&a), cgm_strbuf_free(&b), cgm_strbuf_free(&c);
	if (total > MAX_LISTED_PROBLEMS)
		fprintf(stderr, "cgmap: ... and %d more problems (all are in cgmap.json)\n",
			total - MAX_LISTED_PROBLEMS);
}

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int compare_schema_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool on_path(const char *schema, const char *const *path, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(path[i], schema) == 0)
			return true;
	return false;
}

static int compare_named(const void *a, const void *b)
{
	return strcmp((*(const cgm_function *const *)a)->name, (*(const cgm_function *const *)b)->name);
}

/* Of the unqualified missing callees, how many name a mapped function that
 * takes that many arguments (the path the call was placed by does not hold
 * its schema), and the schema most of them are in: the application's
 * sessions likely run with another search_path (a role's ALTER ROLE ...
 * SET, which pg_dump does not write).  Names sorted once and searched: a
 * count, not the report's per-site list. */
static int missing_elsewhere(const cgm_model *model, const char **top_schema)
{
	*top_schema = NULL;
	const cgm_function **names = cgm_xcalloc((size_t)model->nuser + 1, sizeof(*names));
	for (int f = 0; f < model->nuser; f++)
		names[f] = &model->functions[f];
	qsort(names, (size_t)model->nuser, sizeof(*names), compare_named);
	const char **schemas = cgm_xcalloc((size_t)model->nuser + 1, sizeof(char *));
	int nfound = 0;
	for (int f = 0; f < model->nuser; f++) {
		const cgm_function *fn = &model->functions[f];
		for (int s = 0; s < fn->nsites; s++) {
			const cgm_site *site = &fn->sites[s];
			if (!cgm_site_missing(site) || site->schema || !site->name)
				continue;
			cgm_function key_fn = { .name = site->name };
			const cgm_function *key = &key_fn;
			const cgm_function **hit = bsearch(&key, names, (size_t)model->nuser,
							   sizeof(*names), compare_named);
			if (!hit)
				continue;
			while (hit > names && strcmp(hit[-1]->name, site->name) == 0)
				hit--;
			const char *path[64];
			int npath = cgm_function_path(model, fn, path, 64);
			const cgm_function **end = names + model->nuser;
			for (; hit < end && strcmp((*hit)->name, site->name) == 0; hit++)
				if (site->nargs >= 0 && cgm_function_takes(*hit, site->nargs) &&
				    !on_path((*hit)->schema, path, npath))
					break;
			if (hit == end || strcmp((*hit)->name, site->name) != 0)
				continue;
			if (nfound < model->nuser)
				schemas[nfound] = (*hit)->schema;
			nfound++;
		}
	}
	/* The schema named most often (first in sort order on a tie). */
	int kept = nfound < model->nuser ? nfound : model->nuser, best = 0;
	qsort(schemas, (size_t)kept, sizeof(char *), compare_schema_names);
	for (int i = 0; i < kept;) {
		int j = i;
		while (j < kept && strcmp(schemas[j], schemas[i]) == 0)
			j++;
		if (j - i > best) {
			best = j - i;
			*top_schema = schemas[i];
		}
		i = j;
	}
	free(schemas);
	free(names);
	return nfound;
}

static void print_summary(const cgm_model *model, const char *outdir)
{
	int analysed = 0, parse_errors = 0, dynamic = 0, missing = 0, ambiguous = 0, not_unique = 0;
	int handled = 0;
	for (int f = 0; f < model->nuser; f++) {
		const cgm_function *fn = &model->functions[f];
		analysed += fn->analysed;
		parse_errors += fn->nerrors > 0;
		for (int s = 0; s < fn->nsites; s++) {
			dynamic += fn->sites[s].kind == CGM_SITE_DYNAMIC;
			missing += cgm_site_missing(&fn->sites[s]);
			handled += cgm_site_missing_handled(&fn->sites[s]);
			ambiguous += fn->sites[s].resolution == CGM_RES_AMBIGUOUS;
			not_unique += fn->sites[s].resolution == CGM_RES_NOT_UNIQUE;
		}
	}
	/* Said only when there are some: a call PostgreSQL refuses. */
	char refused[64] = "";
	if (not_unique)
		snprintf(refused, sizeof refused, "%d %s not unique, ", not_unique,
			 plural(not_unique, "call", "calls"));
	/* Said only when there are some: calls whose callee the caller expects
	 * may be absent (a block catching undefined_function around them, or
	 * an IF on an extension the database lacks), not counted as missing. */
	char expected[96] = "";
	if (handled)
		snprintf(expected, sizeof expected, " (and %d %s expected absent)", handled,
			 plural(handled, "callee", "callees"));
	fprintf(stderr,
		"cgmap: %d %s (%d analysed, %d not analysed), %d %s, %d dynamic %s, "
		"%d missing %s%s, %s%d ambiguous %s, %d %s with parse errors\n",
		model->nuser, plural(model->nuser, "function", "functions"), analysed,
		model->nuser - analysed, model->nedges, plural(model->nedges, "edge", "edges"),
		dynamic, plural(dynamic, "site", "sites"), missing, plural(missing, "callee", "callees"),
		expected, refused, ambiguous, plural(ambiguous, "call", "calls"), parse_errors,
		plural(parse_errors, "function", "functions"));
	const char *schema = NULL;
	int elsewhere = missing ? missing_elsewhere(model, &schema) : 0;
	if (elsewhere)
		fprintf(stderr,
			"cgmap: %d of the missing callees %s a function of a schema not on the "
			"search_path (\"%s\" most often): if the application's sessions set one "
			"(ALTER ROLE ... SET search_path, which pg_dump does not write), give "
			"--search-path, or map pg_dumpall --globals-only and pg_dump --create "
			"(cgmap report missing lists them)\n",
			elsewhere, elsewhere == 1 ? "names" : "name", schema);
	fprintf(stderr, "cgmap: wrote %s\n", outdir);
}

/* One output file written from the model, on a thread of its own. */
typedef struct {
	const cgm_model *model;
	int (*write)(const cgm_model *model, const char *path);
	char path[4096];
	int rc;
	/* cgm_error() keeps one message per thread: the job's is copied out
	 * for the thread that reports it. */
	char message[2048];
} output_job;

static void *run_output_job(void *arg)
{
	output_job *job = arg;
	job->rc = job->write(job->model, job->path);
	if (job->rc)
		snprintf(job->message, sizeof(job->message), "%s", cgm_error_message());
	return NULL;
}

/* DIR/cgmap.json (or cgmap.json.gz, --compress) on this thread and
 * DIR/callgraph.dot beside it (on this thread too when no thread can be
 * started).  Each file is whole or not there; the first failure in that
 * order is the one reported.  The snapshot of the other name, from an
 * earlier run, is removed once the new one is in place: a reader given DIR
 * must not find a stale one first. */
static int write_outputs(cgm_model *model, const char *outdir)
{
	bool gz = cgm_snapshot_defaults()->compress;
	output_job jobs[2] = { { .model = model, .write = cgm_snapshot_write },
			       { .model = model, .write = cgm_emit_dot } };
	char other[4096];
	if ((size_t)snprintf(other, sizeof(other), "%s/%s", outdir,
			     gz ? "cgmap.json" : "cgmap.json.gz") >= sizeof(other) ||
	    (size_t)snprintf(jobs[0].path, sizeof(jobs[0].path), "%s/%s", outdir,
			     gz ? "cgmap.json.gz" : "cgmap.json") >=
		    sizeof(jobs[0].path) ||
	    (size_t)snprintf(jobs[1].path, sizeof(jobs[1].path), "%s/callgraph.dot", outdir) >=
		    sizeof(jobs[1].path))
		return cgm_error(CGM_EIO, "cannot write into \"%s\": the path is too long", outdir);
	/* Both list the edges in the same order: sorted once, shared (an
	 * edge out of the function list is left to the writers, which refuse
	 * it with a message). */
	bool edges_valid = true;
	for (int i = 0; i < model->nedges && edges_valid; i++)
		edges_valid = model->edges[i].from >= 0 && model->edges[i].from < model->nfunctions &&
			      model->edges[i].to >= 0 && model->edges[i].to < model->nfunctions;
	int *edge_order = NULL;
	if (edges_valid) {
		int *rank = cgm_xcalloc((size_t)model->nfunctions + 1, sizeof(int));
		cgm_model_id_ranks(rank, model);
		edge_order = cgm_output_edge_order(model, rank);
		free(rank);
	}
	model->edge_order = edge_order;
	pthread_t dot_thread;
	bool threaded = pthread_create(&dot_thread, NULL, run_output_job, &jobs[1]) == 0;
	run_output_job(&jobs[0]);
	if (threaded)
		pthread_join(dot_thread, NULL);
	else
		run_output_job(&jobs[1]);
	model->edge_order = NULL;
	free(edge_order);
	for (int i = 0; i < 2; i++)
		if (jobs[i].rc)
			return cgm_error(jobs[i].rc, "%s", jobs[i].message);
	struct stat st;
	if (lstat(other, &st) == 0 && S_ISREG(st.st_mode) && unlink(other) != 0)
		return cgm_error(CGM_EIO, "cannot remove the earlier snapshot \"%s\": %s", other,
				 strerror(errno));
	return 0;
}

/* The parse cache for the next run into DIR.  Losing it costs only time,
 * so a failure is a warning; a .cgmap-cache that is not a folder (a link)
 * is left alone, as the layout cache leaves it. */
static void keep_parse_cache(cgm_extract_cache *cache, const char *outdir, const char *path)
{
	char dir[4096];
	struct stat st;
	if ((size_t)snprintf(dir, sizeof dir, "%s/" PARSE_CACHE_DIR, outdir) >= sizeof dir)
		return;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "cgmap: warning: cannot create \"%s\": %s\n", dir, strerror(errno));
		return;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if (cgm_extract_cache_save(cache, path) < 0)
		fprintf(stderr, "cgmap: warning: the parse cache is not kept: %s\n",
			cgm_error_message());
}

static int exit_code(int rc)
{
	fprintf(stderr, "cgmap: %s\n", cgm_error_message());
	return cmd_exit_code(rc);
}

int cmd_map(int argc, char **argv)
{
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	cgm_html_options html;
	cgm_html_options_init(&html);
	const char *outdir = NULL;
	bool no_html = false, quiet = false, no_parse_cache = false;
	cgm_extract_cache *parse_cache = NULL;
	char parse_cache_path[4096];
	cgm_snapshot_options snapshot = *cgm_snapshot_defaults();
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int used = cgm_map_parse_option(&opts, argc, argv, &i);
		if (used < 0) {
			rc = exit_code(used);
			goto done;
		}
		if (used)
			continue;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			goto done;
		} else if (strcmp(a, "-o") == 0) {
			rc = exit_code(cmd_reject_short_out("map"));
			goto done;
		} else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
			outdir = argv[++i];
		} else if (strncmp(a, "--out=", 6) == 0) {
			outdir = a + 6;
		} else if (strcmp(a, "--no-html") == 0) {
			no_html = true;
		} else if (strcmp(a, "--compress") == 0) {
			snapshot.compress = true;
		} else if ((strcmp(a, "--snapshot-format") == 0 && i + 1 < argc) ||
			   strncmp(a, "--snapshot-format=", 18) == 0) {
			const char *v = a[17] == '=' ? a + 18 : argv[++i];
			if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0) {
				fprintf(stderr, "cgmap: option '--snapshot-format' takes 1 or 2, not '%s'\n", v);
				rc = 1;
				goto done;
			}
			snapshot.format_version = v[0] - '0';
		} else if (strcmp(a, "--dot-sources") == 0) {
			html.dot_sources = true;
		} else if (strcmp(a, "--no-layout-cache") == 0) {
			html.no_layout_cache = true;
		} else if (strcmp(a, "--no-cache") == 0) {
			html.no_layout_cache = true;
			no_parse_cache = true;
		} else if ((strcmp(a, "--layout") == 0 && i + 1 < argc) ||
			   strncmp(a, "--layout=", 9) == 0) {
			const char *v = a[8] == '=' ? a + 9 : argv[++i];
			if (strcmp(v, "cgmap") != 0 && strcmp(v, "graphviz") != 0) {
				fprintf(stderr, "cgmap: option '--layout' takes 'cgmap' or 'graphviz', not '%s'\n", v);
				rc = 1;
				goto done;
			}
			html.graphviz_neighbourhoods = strcmp(v, "graphviz") == 0;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = true;
		} else if (strcmp(a, "--timing") == 0) {
			opts.timing = stderr;
		} else if ((strcmp(a, "--depth") == 0 || strcmp(a, "--node-cap") == 0) && i + 1 < argc) {
			char *end;
			long n = strtol(argv[i + 1], &end, 10);
			if (*end || n < 0 || n > 100000) {
				fprintf(stderr, "cgmap: option '%s' takes a number, not '%s'\n", a, argv[i + 1]);
				rc = 1;
				goto done;
			}
			if (strcmp(a, "--depth") == 0)
				html.depth = (int)n;
			else
				html.node_cap = (int)n;
			i++;
		} else {
			fprintf(stderr, "cgmap: unknown option '%s'; see 'cgmap --help'\n", a);
			rc = 1;
			goto done;
		}
	}
	cgm_snapshot_set_defaults(&snapshot);
	if (!outdir) {
		fprintf(stderr, "cgmap: no output folder given: use --out DIR\n");
		usage(stderr);
		rc = 1;
		goto done;
	}
	if (opts.nsql > 0 && opts.source.dsn) {
		fprintf(stderr, "cgmap: give either --dsn or --sql, not both\n");
		rc = 1;
		goto done;
	}

	if ((rc = cgm_map_options_load_config(&opts)) < 0) {
		rc = exit_code(rc);
		goto done;
	}
	/* The bodies this folder's last run parsed, when they are still there
	 * (never through a .cgmap-cache that is a link: what it holds would
	 * become the map). */
	if (!no_parse_cache &&
	    (size_t)snprintf(parse_cache_path, sizeof parse_cache_path, "%s/" PARSE_CACHE_DIR "/%s",
			     outdir, CGM_EXTRACT_CACHE_FILE) < sizeof parse_cache_path) {
		char dir[4096];
		struct stat st;
		snprintf(dir, sizeof dir, "%s/" PARSE_CACHE_DIR, outdir);
		bool usable = lstat(dir, &st) != 0 || S_ISDIR(st.st_mode);
		parse_cache = cgm_extract_cache_open(usable ? parse_cache_path : NULL);
		opts.extract_cache = parse_cache;
	}
	cgm_model *model = NULL;
	if ((rc = cgm_map_source(&model, &opts)) < 0) {
		rc = exit_code(rc);
		goto done;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = make_dirs(outdir)) < 0) {
		cgm_model_free(model);
		rc = exit_code(rc);
		goto done;
	}
	/* The parse cache first, then let go of it: its old file's pages
	 * (234 MB at 100,000 functions) and its entries would otherwise stay
	 * resident beside the writers, where the map's memory peaks. */
	if (parse_cache) {
		keep_parse_cache(parse_cache, outdir, parse_cache_path);
		cgm_extract_cache_free(parse_cache);
		parse_cache = NULL;
		opts.extract_cache = NULL;
#ifdef __GLIBC__
		malloc_trim(0); /* what it held is in the threads' heaps */
#endif
	}
	cgm_snapshot_settle_times(model);
	if ((rc = write_outputs(model, outdir)) < 0) {
		cgm_model_free(model);
		rc = exit_code(rc);
		goto done;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (opts.timing)
		fprintf(stderr, "stage %-8s %8.3f s\n", "write",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (!no_html) {
		cgm_html_stats stats;
		if ((rc = cgm_emit_html_counted(&stats, model, &html, outdir)) < 0) {
			cgm_model_free(model);
			rc = exit_code(rc);
			goto done;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (opts.timing)
			fprintf(stderr, "stage %-8s %8.3f s (%ld of %ld function pages and %ld of "
					"%ld schema pages unchanged, %ld graphs laid out, %ld from "
					"the layout cache)\n",
				"html",
				(double)(t0.tv_sec - t1.tv_sec) + (double)(t0.tv_nsec - t1.tv_nsec) / 1e9,
				stats.pages_unchanged, stats.function_pages,
				stats.schema_pages_unchanged, stats.schema_pages, stats.layouts,
				stats.layout_hits);
	}
	print_problems(model, opts.verbose);
	if (!quiet) {
		print_summary(model, outdir);
		cgm_analyze_print_summary(model, stderr);
	}
	cgm_model_free(model);
	rc = 0;
done:
	cgm_extract_cache_free(parse_cache);
	cgm_map_options_free(&opts);
	return rc;
}
