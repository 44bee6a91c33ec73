/*
 * cmd_report.c - `cgmap report KIND [SNAPSHOT | --dsn DSN | --sql PATH...]`:
 * print one report (docs/reports.md) of a snapshot or of a source mapped
 * on the spot.
 *
 * In:  the command line.  Out: the report on stdout (or -o FILE), problems
 * on stderr, the exit code (cmd.h).  The model built or read here is freed here.
 *
 * Loading (a snapshot, or a source mapped on the spot, with --runtime and
 * --entry applied) is shared with the queries: src/cmd_load.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/map.h"
#include "cgmap/runtime.h"
#include "cmd.h"

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
		"  profile      each function's exclusive time, its share, calls, average, min, max\n"
		"  paths        each call path from its entry point, with calls and times\n"
		"  timeline     calls and exclusive time per function and time bucket\n"
		"  shapes       the distinct edge sets of each entry point's calls, with counts\n"
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

int cmd_report(int argc, char **argv)
{
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	const char *output = NULL, *format_name = "text";
	const char *positional[2] = { NULL, NULL };
	int npositional = 0, rc = 0;
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
					   "unexplained, missing, edges, functions, recursion, "
					   "profile, paths, timeline, shapes)");
		goto fail_usage;
	}
	cgm_report_kind kind;
	cgm_report_format format;
	if ((rc = cgm_report_kind_parse(&kind, positional[0])) < 0 ||
	    (rc = cgm_report_format_parse(&format, format_name)) < 0)
		goto fail_usage;

	if ((rc = cmd_load_model(&model, positional[1], &opts, "report")) < 0)
		goto fail;
	if ((rc = cgm_report_write(&out, model, kind, format)) < 0)
		goto fail;
	if ((rc = cmd_write_output(output, cgm_strbuf_cstr(&out), out.len)) < 0)
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
	return cmd_exit_code(rc < 0 ? rc : 0);
}
