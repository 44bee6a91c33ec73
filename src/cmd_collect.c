/*
 * cmd_collect.c - `cgmap collect [--dsn DSN] -o FILE`: export what a server
 * observed (cgmap_trace edges when the extension is installed, and
 * pg_stat_user_functions) as a runtime file (docs/runtime-data.md), to be
 * merged where the docs are built: `cgmap ... --runtime FILE`.
 *
 * In:  the command line.  Out: the file (or stdout with -o -), a summary
 * and diagnostics on stderr, the exit code (cmd.h: 1 bad usage, 4 cannot
 * connect or read, 5 cannot write the file).  The runtime data is freed here.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/runtime.h"
#include "cgmap/strbuf.h"
#include "cmd.h"

static void collect_usage(FILE *out)
{
	fprintf(out,
		"usage: cgmap collect [--dsn DSN] [--reset] [--since FILE] -o FILE\n"
		"\n"
		"Export the calls a PostgreSQL server observed: the edges of the cgmap_trace\n"
		"extension when it is installed in that database, and pg_stat_user_functions\n"
		"(calls, total and self time per function; needs track_functions) in any\n"
		"case, with the server and the time window they cover.  Merge the file where\n"
		"the docs are built with 'cgmap --dsn|--sql ... --runtime FILE'.\n"
		"\n"
		"options:\n"
		"  --dsn DSN          libpq connection string or URI (default: the PG*\n"
		"                     environment variables)\n"
		"  -o, --output FILE  where to write the runtime file ('-': standard output)\n"
		"  --reset            start a new window right after reading: cgmap_trace_reset()\n"
		"                     and pg_stat_reset() (where the role may)\n"
		"  --since FILE       write only what happened after FILE, an earlier collect of\n"
		"                     the same server (counters not reset in between)\n"
		"  --verbose          also list each item of a grouped warning\n");
}

int cmd_collect(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "dsn", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "reset", no_argument, NULL, 'r' },
		{ "since", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dsn = NULL, *output = NULL;
	bool verbose = false, reset = false;
	const char *since_file = NULL;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 'o': output = optarg; break;
		case 'v': verbose = true; break;
		case 'r': reset = true; break;
		case 's': since_file = optarg; break;
		case 'h': collect_usage(stdout); return 0;
		default:
			fprintf(stderr, "cgmap: collect: unknown or incomplete option '%s'\n"
					"see 'cgmap collect --help'\n",
				argv[optind - 1]);
			return CMD_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgmap: collect: unexpected argument '%s'\n", argv[optind]);
		return CMD_EXIT_USAGE;
	}
	if (!output) {
		fprintf(stderr, "cgmap: collect: where to? give -o FILE (or -o - for stdout)\n");
		return CMD_EXIT_USAGE;
	}

	cgm_runtime *rt = cgm_runtime_new();
	bool found_trace = false;
	int rc = cgm_runtime_load_pg(&found_trace, rt, dsn ? dsn : "");
	/* The next window starts now (as close to the read as one round trip). */
	if (rc == 0 && reset)
		rc = cgm_runtime_reset_pg(rt, dsn ? dsn : "");
	if (rc == 0 && since_file) {
		cgm_runtime *before = cgm_runtime_new();
		rc = cgm_runtime_load_file(before, since_file);
		if (rc == 0)
			rc = cgm_runtime_subtract(rt, before, since_file);
		cgm_runtime_free(before);
	}
	if (rc == 0)
		rc = cgm_runtime_write_file(rt, output);
	if (rc < 0) {
		fprintf(stderr, "cgmap: %s\n", cgm_error_message());
		cgm_runtime_free(rt);
		return cmd_exit_code(rc);
	}
	/* Names from the server, shown as text a terminal does not act on. */
	cgm_strbuf shown = CGM_STRBUF_INIT;
	for (int i = 0; i < rt->ndiagnostics; i++)
		if (verbose || !rt->diagnostics[i].detail) {
			cgm_strbuf_reset(&shown);
			cgm_escape_text(&shown, rt->diagnostics[i].message);
			fprintf(stderr, "cgmap: warning: %s\n", cgm_strbuf_cstr(&shown));
		}
	cgm_strbuf_free(&shown);
	const cgm_runtime_source *src = &rt->sources[0];
	int entries = 0;
	for (int i = 0; i < rt->nedges; i++)
		entries += rt->edges[i].caller == NULL;
	if (!found_trace)
		fprintf(stderr, "cgmap: cgmap_trace is not installed in database '%s': only "
				"per-function statistics were collected\n",
			src->database);
	/* Entry points are rows of their own (no caller), not a part of the edges. */
	fprintf(stderr, "cgmap: collected %d call %s, %d entry-point %s and %d function %s "
			"from %s, %s to %s\n",
		rt->nedges - entries, rt->nedges - entries == 1 ? "edge" : "edges", entries,
		entries == 1 ? "row" : "rows", rt->nfunctions,
		rt->nfunctions == 1 ? "figure" : "figures", src->name,
		src->since ? src->since : "an unknown start", src->until ? src->until : "now");
	if (src->has_paths)
		fprintf(stderr, "cgmap: and %d call paths, %d shapes, %d timeline buckets "
				"(%d-second buckets)\n",
			rt->npaths, rt->nshapes, rt->nbuckets, src->bucket_seconds);
	int64_t calls = 0; /* only compared with 0: held at its limit, never wrapped */
	bool held = false;
	for (int i = 0; i < rt->nedges; i++)
		calls = cgm_count_add(calls, rt->edges[i].stats.calls, &held);
	for (int i = 0; i < rt->nfunctions; i++)
		calls = cgm_count_add(calls, rt->functions[i].stats.calls, &held);
	if (calls == 0)
		fprintf(stderr, "cgmap: warning: the window holds no call at all: nothing has run "
				"since %s (or track_functions and cgmap_trace see nothing); this file "
				"cannot show any function dead\n",
			src->since ? src->since : "the start");
	cgm_runtime_free(rt);
	return 0;
}
