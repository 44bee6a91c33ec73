/*
 * cmd_report.c - `cgmap report KIND [SNAPSHOT | --dsn DSN | --sql PATH...]`:
 * print one report (docs/reports.md) of a snapshot or of a source mapped
 * on the spot.
 *
 * In:  the command line.  Out: the report on stdout (or -o FILE), problems
 * on stderr, the exit code (0; 1 bad usage or input; 2 cannot read the
 * source).  The model built or read here is freed here.
 *
 * A snapshot carries its analysis (status flags), so it is printed as it
 * is; --entry or --runtime make the report analyse it again (the roots the
 * snapshot already had stay roots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/map.h"
#include "cgmap/runtime.h"
#include "cmd.h"
#include "outdir.h"

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: cgmap report KIND [SNAPSHOT] [--format FORMAT] [-o FILE]\n"
		"       cgmap report KIND --dsn DSN | --sql PATH... [mapping options]\n"
		"\n"
		"KIND is one of:\n"
		"  dead         functions no root reaches and nobody called at runtime\n"
		"  cold         reachable functions never called while runtime data was taken\n"
		"  dynamic      dynamic EXECUTE sites, observed (with their targets) or unseen\n"
		"  unexplained  calls observed at runtime that cgmap did not find statically\n"
		"  missing      calls to functions that do not exist\n"
		"  edges        every edge: FROM -> TO via VIA PROVENANCE lines ...\n"
		"  functions    every function with its status\n"
		"  recursion    functions that call each other in a cycle, per component\n"
		"\n"
		"SNAPSHOT is a cgmap.json or the folder holding it (default: cgmap.json).\n"
		"With a snapshot, --runtime FILE merges runtime data into it (when it has\n"
		"none yet) and --entry PATTERN adds roots; both analyse it again.\n"
		"\n"
		"options:\n"
		"  --format F        text (default), csv, markdown or json\n"
		"  -o, --output FILE write the report to FILE instead of stdout\n"
		"\n"
		"%s"
		"\n"
		"See docs/reports.md for every line and column.\n",
		cgm_map_options_help);
}

/* A file is replaced whole (outdir.h: temporary file and rename, a link
 * refused); standard output is written as it is. */
static int write_all(const char *path, const char *text, size_t len)
{
	if (path)
		return cgm_outstream_write_whole(path, text, len);
	bool bad = fwrite(text, 1, len, stdout) != len || ferror(stdout);
	bad |= fflush(stdout) != 0;
	if (bad)
		return cgm_error(CGM_EIO, "cannot write 'standard output'");
	return 0;
}

/* The snapshot, with runtime files and entry patterns applied when given. */
static int load_snapshot(cgm_model **out, int *first_new_diagnostic, const char *path,
			 const cgm_map_options *opts)
{
	if (opts->runtime.nlogs)
		return cgm_error(CGM_EUSAGE, "report: --runtime-log maps OIDs through the "
					     "database's catalog: use it with --dsn, not a snapshot");
	int rc = cgm_snapshot_read(out, path);
	if (rc < 0)
		return rc;
	cgm_model *model = *out;
	*first_new_diagnostic = model->ndiagnostics;
	if (opts->runtime.nfiles) {
		if (model->has_runtime)
			return cgm_error(CGM_EUSAGE,
					 "report: snapshot '%s' already holds runtime data; merge "
					 "runtime files when mapping (cgmap ... --runtime FILE)",
					 path);
		cgm_runtime_options ropts = { .files = opts->runtime.files,
					      .nfiles = opts->runtime.nfiles,
					      .no_runtime = true };
		if ((rc = cgm_runtime_apply(model, &ropts)) < 0)
			return rc;
	}
	if (opts->runtime.nfiles || opts->nentry || opts->has_min_window || opts->has_min_calls) {
		cgm_analyze_options aopts = { .entry_patterns = opts->entry_patterns,
					      .nentry = opts->nentry,
					      .keep_roots = true,
					      .has_min_window = opts->has_min_window,
					      .min_window_seconds = opts->min_window_seconds,
					      .has_min_calls = opts->has_min_calls,
					      .min_calls = opts->min_calls };
		/* Without new options the thresholds the snapshot was analysed
		 * with stay. */
		if (!aopts.has_min_window && model->has_runtime) {
			aopts.has_min_window = true;
			aopts.min_window_seconds = model->evidence.min_window_seconds;
		}
		if (!aopts.has_min_calls && model->has_runtime) {
			aopts.has_min_calls = true;
			aopts.min_calls = model->evidence.min_calls;
		}
		if ((rc = cgm_analyze(model, &aopts)) < 0)
			return rc;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	const char *output = NULL, *format_name = "text";
	const char *positional[2] = { NULL, NULL };
	int npositional = 0, rc = 0, first_new_diagnostic = 0;
	cgm_model *model = NULL;
	cgm_strbuf out = CGM_STRBUF_INIT;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int used = cgm_map_parse_option(&opts, argc, argv, &i);
		if (used < 0) {
			rc = used;
			goto fail_usage;
		}
		if (used)
			continue;
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			report_usage(stdout);
			goto done;
		}
		if (strcmp(arg, "--format") == 0 || strcmp(arg, "-o") == 0 ||
		    strcmp(arg, "--output") == 0) {
			if (i + 1 >= argc) {
				rc = cgm_error(CGM_EUSAGE, "report: option '%s' needs a value", arg);
				goto fail_usage;
			}
			if (strcmp(arg, "--format") == 0)
				format_name = argv[++i];
			else
				output = argv[++i];
			continue;
		}
		if (strncmp(arg, "--format=", 9) == 0) {
			format_name = arg + 9;
			continue;
		}
		if (strncmp(arg, "--output=", 9) == 0) {
			output = arg + 9;
			continue;
		}
		if (arg[0] == '-' && arg[1]) {
			rc = cgm_error(CGM_EUSAGE, "report: unknown option '%s'", arg);
			goto fail_usage;
		}
		if (npositional == 2) {
			rc = cgm_error(CGM_EUSAGE, "report: unexpected argument '%s'", arg);
			goto fail_usage;
		}
		positional[npositional++] = arg;
	}
	if (!positional[0]) {
		rc = cgm_error(CGM_EUSAGE, "report: which report? (dead, cold, dynamic, "
					   "unexplained, missing, edges, functions, recursion)");
		goto fail_usage;
	}
	cgm_report_kind kind;
	cgm_report_format format;
	if ((rc = cgm_report_kind_parse(&kind, positional[0])) < 0 ||
	    (rc = cgm_report_format_parse(&format, format_name)) < 0)
		goto fail_usage;

	bool from_source = opts.source.dsn || opts.nsql;
	if (from_source && positional[1]) {
		rc = cgm_error(CGM_EUSAGE, "report: give a snapshot or a source (--dsn, --sql), "
					   "not both");
		goto fail_usage;
	}
	if (from_source) {
		opts.runtime.from_database = opts.nsql == 0;
		rc = cgm_map_source(&model, &opts);
	} else {
		rc = load_snapshot(&model, &first_new_diagnostic,
				   positional[1] ? positional[1] : "cgmap.json", &opts);
	}
	if (rc < 0)
		goto fail;
	/* What the merge could not place is part of the answer (a snapshot's
	 * own diagnostics were said when it was made). */
	for (int i = first_new_diagnostic; i < model->ndiagnostics; i++) {
		const cgm_diagnostic *d = &model->diagnostics[i];
		if (d->detail && !opts.verbose)
			continue;
		/* Names in them are shown as text a terminal does not act on. */
		cgm_strbuf file = CGM_STRBUF_INIT, message = CGM_STRBUF_INIT;
		cgm_escape_text(&file, d->file);
		cgm_escape_text(&message, d->message);
		if (d->file && d->line > 0)
			fprintf(stderr, "cgmap: %s:%d: %s\n", file.data, d->line, message.data);
		else if (d->file)
			fprintf(stderr, "cgmap: %s: %s\n", file.data, message.data);
		else
			fprintf(stderr, "cgmap: %s\n", message.data);
		cgm_strbuf_free(&file), cgm_strbuf_free(&message);
	}
	if ((rc = cgm_report_write(&out, model, kind, format)) < 0)
		goto fail;
	if ((rc = write_all(output, cgm_strbuf_cstr(&out), out.len)) < 0)
		goto fail;
	goto done;

fail_usage:
	fprintf(stderr, "cgmap: %s\nsee 'cgmap report --help'\n", cgm_error_message());
	goto done;
fail:
	fprintf(stderr, "cgmap: %s\n", cgm_error_message());
done:
	cgm_strbuf_free(&out);
	cgm_model_free(model);
	cgm_map_options_free(&opts);
	if (rc == CGM_ESOURCE)
		return 2;
	return rc < 0 ? 1 : 0;
}
