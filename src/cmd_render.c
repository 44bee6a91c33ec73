/*
 * cmd_render.c - `cgmap render [SNAPSHOT] --out DIR`: rebuild the HTML site
 * from a snapshot alone, offline (no database).
 *
 * In:  the command line.  Out: the site under DIR, one summary line on
 * stderr; exit 0, or 1 for bad usage, an unreadable snapshot or an output
 * that cannot be written.  The model read here is freed here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cgmap/error.h"
#include "cgmap/hash.h"
#include "cgmap/html.h"
#include "cgmap/infile.h"
#include "cgmap/pipeline.h"
#include "cmd.h"

static void render_usage(FILE *out)
{
	fprintf(out,
		"usage: cgmap render [SNAPSHOT] --out DIR [options]\n"
		"\n"
		"Writes the HTML documentation site of a snapshot (a cgmap.json, or the\n"
		"folder holding it; default: cgmap.json) into DIR: index.html, one page per\n"
		"schema and per function, the reports, stacks.folded for flame graphs when\n"
		"it has call paths (and with --dot-sources DIR/dot/, the DOT source of every\n"
		"graph).  Needs no database.\n"
		"\n"
		"options:\n"
		"  --out DIR         output folder (created when missing)\n"
		"  --depth N         callers and callees drawn around a function (default 1)\n"
		"  --node-cap N      most functions drawn in one graph; the rest are counted\n"
		"                    in \"+N more\" nodes (default 50)\n"
		"  --threads N       layout workers (default: one per core)\n"
		"  --dot-sources     also write each graph's DOT text under DIR/dot/\n"
		"  --no-layout-cache lay every graph out and build every page again (no\n"
		"                    .cgmap-cache/, no page records)\n"
		"  --layout graphviz lay out function graphs with Graphviz too (default:\n"
		"                    cgmap's layered layout; schema overviews use Graphviz)\n"
		"  --max-file-size SIZE  largest snapshot read: bytes or K, M, G; 0 for no\n"
		"                    limit (default 256M)\n"
		"  --quiet           print only errors\n");
}

static int parse_int(int *out, const char *option, const char *text, int min, int max)
{
	char *end = NULL;
	long v = strtol(text, &end, 10);
	if (!*text || *end || v < min || v > max)
		return cgm_error(CGM_EUSAGE, "option '%s' wants a number from %d to %d, not '%s'",
				 option, min, max, text);
	*out = (int)v;
	return 0;
}

/* A hash of the snapshot's bytes (the file, or cgmap.json in the folder):
 * the site records it, and a rendering of the same bytes into a folder
 * that holds that site untouched writes nothing and reads no model.  The
 * file is read a piece at a time into one buffer that stays in cache
 * (read whole into memory of its own, a 50 MB snapshot cost twice as much
 * in copies and page faults as in hashing), each piece by cgm_hash_wide.
 * 0 when the file cannot be read (the snapshot's reading then says why):
 * not a regular file, past --max-file-size. */
static uint64_t snapshot_key(const char *path)
{
	struct stat st;
	char file[4096];
	bool folder = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	size_t n = strlen(path);
	if ((size_t)snprintf(file, sizeof(file), "%s%s", path,
			     !folder ? "" : n && path[n - 1] == '/' ? "cgmap.json" : "/cgmap.json") >=
	    sizeof(file))
		return 0;
	int rc = 0;
	FILE *in = cgm_infile_open(file, "snapshot", CGM_EINPUT, &rc);
	if (!in) {
		cgm_error_clear();
		return 0;
	}
	int64_t limit = cgm_infile_max_size();
	if (fstat(fileno(in), &st) != 0 || st.st_size < 0 ||
	    (limit > 0 && st.st_size > limit) || (uint64_t)st.st_size > SIZE_MAX) {
		fclose(in);
		return 0;
	}
	enum { PIECE = 1 << 18 };
	uint64_t h = CGM_FNV1A_OFFSET ^ (uint64_t)st.st_size;
	char *piece = malloc(PIECE);
	size_t got, total = 0;
	if (!piece) {
		fclose(in);
		return 0;
	}
	while ((got = fread(piece, 1, PIECE, in)) > 0) {
		h = cgm_hash_wide(h, piece, got);
		total += got;
	}
	bool whole = !ferror(in) && total == (size_t)st.st_size;
	free(piece);
	fclose(in);
	if (!whole)
		return 0;
	return h ? h : 1;
}

int cmd_render(int argc, char **argv)
{
	cgm_html_options opts;
	cgm_html_options_init(&opts);
	const char *snapshot = NULL, *outdir = NULL;
	bool quiet = false;
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *a = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			render_usage(stdout);
			return 0;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = true;
		} else if (strcmp(a, "--dot-sources") == 0) {
			opts.dot_sources = true;
		} else if (strcmp(a, "--no-layout-cache") == 0) {
			opts.no_layout_cache = true;
		} else if (strcmp(a, "--layout") == 0 || strncmp(a, "--layout=", 9) == 0) {
			const char *v = a[8] == '=' ? a + 9 : value;
			if (a[8] != '=')
				i++;
			if (!v || (strcmp(v, "cgmap") != 0 && strcmp(v, "graphviz") != 0))
				rc = cgm_error(CGM_EUSAGE, "option '--layout' takes 'cgmap' or 'graphviz'");
			else
				opts.graphviz_neighbourhoods = strcmp(v, "graphviz") == 0;
		} else if (strcmp(a, "-o") == 0) {
			rc = cmd_reject_short_out("render");
		} else if (strcmp(a, "--out") == 0) {
			if (!value)
				rc = cgm_error(CGM_EUSAGE, "option '%s' needs a folder", a);
			outdir = value, i++;
		} else if (strncmp(a, "--out=", 6) == 0) {
			outdir = a + 6;
		} else if (strcmp(a, "--depth") == 0 || strcmp(a, "--node-cap") == 0 ||
			   strcmp(a, "--threads") == 0) {
			if (!value) {
				rc = cgm_error(CGM_EUSAGE, "option '%s' needs a number", a);
				break;
			}
			if (strcmp(a, "--depth") == 0)
				rc = parse_int(&opts.depth, a, value, 0, 20);
			else if (strcmp(a, "--node-cap") == 0)
				rc = parse_int(&opts.node_cap, a, value, 2, 2000);
			else
				rc = parse_int(&opts.threads, a, value, 0, 256);
			i++;
		} else if (strcmp(a, "--max-file-size") == 0) {
			int64_t bytes;
			if (!value)
				rc = cgm_error(CGM_EUSAGE, "option '%s' needs a size", a);
			else if ((rc = cgm_infile_parse_size(&bytes, value)) == 0)
				cgm_infile_set_max_size(bytes);
			i++;
		} else if (a[0] == '-' && a[1] != '\0') {
			rc = cgm_error(CGM_EUSAGE, "unknown option '%s'; see 'cgmap render --help'", a);
		} else if (!snapshot) {
			snapshot = a;
		} else {
			rc = cgm_error(CGM_EUSAGE, "one snapshot at a time: '%s' and '%s'", snapshot, a);
		}
	}
	if (rc == 0 && !outdir)
		rc = cgm_error(CGM_EUSAGE, "no output folder: give --out DIR");
	if (rc) {
		fprintf(stderr, "cgmap render: %s\n", cgm_error_message());
		return cmd_exit_code(rc);
	}
	if (!snapshot)
		snapshot = "cgmap.json";

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t outlen = strlen(outdir);
	while (outlen > 1 && outdir[outlen - 1] == '/')
		outlen--; /* "docs/" names the same folder as "docs" */
	opts.input_key = opts.no_layout_cache ? 0 : snapshot_key(snapshot);
	if (cgm_html_site_current(outdir, &opts)) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!quiet)
			fprintf(stderr, "cgmap render: %.*s/index.html is already the site of this "
					"snapshot: nothing to write (%.1f s)\n",
				(int)outlen, outdir,
				(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		return 0;
	}
	cgm_model *model = NULL;
	rc = cgm_snapshot_read(&model, snapshot);
	if (rc) {
		fprintf(stderr, "cgmap render: %s\n", cgm_error_message());
		return cmd_exit_code(rc);
	}
	cgm_html_stats stats;
	rc = cgm_emit_html_counted(&stats, model, &opts, outdir);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		fprintf(stderr, "cgmap render: %s\n", cgm_error_message());
		cgm_model_free(model);
		return cmd_exit_code(rc);
	}
	if (!quiet) {
		int nschemas = 0;
		for (int i = 0; i < model->nuser; i++)
			if (i == 0 || strcmp(model->functions[i].schema ? model->functions[i].schema : "",
					     model->functions[i - 1].schema ? model->functions[i - 1].schema
									    : "") != 0)
				nschemas++;
		fprintf(stderr, "cgmap render: %d %s in %d %s rendered to %.*s/index.html "
				"in %.1f s",
			model->nuser, model->nuser == 1 ? "function" : "functions", nschemas,
			nschemas == 1 ? "schema" : "schemas", (int)outlen, outdir,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		/* Says whether the folder's earlier rendering was of use: a
		 * nightly job that rebuilds everything has lost its records. */
		if (stats.schema_pages_unchanged > 0)
			fprintf(stderr, "; %ld of %ld schema pages unchanged",
				stats.schema_pages_unchanged, stats.schema_pages);
		if (stats.pages_unchanged > 0)
			fprintf(stderr, "; %ld of %ld function pages unchanged, %ld rebuilt",
				stats.pages_unchanged, stats.function_pages,
				stats.function_pages - stats.pages_unchanged);
		fputc('\n', stderr);
	}
	cgm_model_free(model);
	return 0;
}
