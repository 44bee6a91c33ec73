/*
 * cmd_query.c - the runner the graph questions share: `cgmap callers`,
 * `callees`, `path` and `impact` (each has its own file, cmd_<name>.c,
 * holding its entry in the command table).
 *
 * In:  the command line: the FUNC patterns, a snapshot (a positional
 *      cgmap.json or folder holding one, --snapshot PATH, default
 *      cgmap.json) or a source mapped on the spot (--dsn, --sql and the
 *      mapping options, as `cgmap report` and either side of `cgmap diff`
 *      take them), --depth, --max, --format, -o.
 * Out: the answer (src/query_out.c) on stdout or -o FILE; problems on
 *      stderr.  Exit 0 answered; 1 bad usage, bad input, or a FUNC that
 *      matches nothing; 2 the source cannot be read (docs/query.md).
 *      Everything allocated here is freed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/map.h"
#include "cgmap/query.h"
#include "cmd.h"

static const char *const query_names[] = { "callers", "callees", "path", "impact" };

static void query_usage(FILE *out, cmd_query_kind kind)
{
	const char *name = query_names[kind];
	switch (kind) {
	case CMD_QUERY_CALLERS:
	case CMD_QUERY_CALLEES:
		fprintf(out,
			"usage: cgmap %s FUNC [SNAPSHOT] [--depth N] [--format F] [-o FILE]\n"
			"       cgmap %s FUNC --dsn DSN | --sql PATH... [mapping options]\n"
			"\n"
			"Every function that %s FUNC, directly or through others, as an\n"
			"indented tree: each edge with its mechanism, provenance (static,\n"
			"observed, both), call-site lines and observed calls.\n"
			"\n"
			"  --depth N         at most N calls away (default: no limit)\n",
			name, name, kind == CMD_QUERY_CALLERS ? "calls" : "FUNC calls, and each one");
		break;
	case CMD_QUERY_PATH:
		fprintf(out,
			"usage: cgmap path FROM TO [SNAPSHOT] [--max K] [--format F] [-o FILE]\n"
			"       cgmap path FROM TO --dsn DSN | --sql PATH... [mapping options]\n"
			"\n"
			"The shortest call paths from FROM to TO, shortest first, with every\n"
			"hop's mechanism and call-site lines.\n"
			"\n"
			"  --max K           at most K paths (default 10)\n");
		break;
	case CMD_QUERY_IMPACT:
		fprintf(out,
			"usage: cgmap impact FUNC... [--snapshot SNAPSHOT] [--format F] [-o FILE]\n"
			"       cgmap impact FUNC... --dsn DSN | --sql PATH... [mapping options]\n"
			"\n"
			"Every entry point (root) that reaches any FUNC: the length of its\n"
			"shortest path, whether that path is static, observed or both, its\n"
			"observed calls; and the dead and cold functions among the callers.\n");
		break;
	}
	fprintf(out,
		"\n"
		"FUNC is matched as --entry is: a full id ('app.f(integer)') or a shell glob\n"
		"on the id or on schema.name ('app.f', 'billing.*'); a FUNC that matches\n"
		"several overloads uses them all.\n"
		"SNAPSHOT is a cgmap.json or the folder holding it (default: cgmap.json;\n"
		"also --snapshot PATH).  With a snapshot, --runtime FILE merges runtime data\n"
		"and --entry PATTERN adds roots.\n"
		"\n"
		"  --format F        text (an indented tree; default), dot, json, csv, markdown\n"
		"  -o, --output FILE write the answer to FILE instead of stdout\n"
		"\n"
		"%s"
		"\n"
		"exit: 0 answered, 1 usage or input error (a FUNC matching nothing),\n"
		"2 the source cannot be read.  See docs/query.md.\n",
		cgm_map_options_help);
}

static int parse_count(int *out, const char *value, const char *option, int lo, int hi)
{
	char *end;
	long n = value ? strtol(value, &end, 10) : 0;
	if (!value || !*value || *end || n < lo || n > hi)
		return cgm_error(CGM_EUSAGE, "option '%s' takes a number from %d to %d, not '%s'",
				 option, lo, hi, value ? value : "");
	*out = (int)n;
	return 0;
}

/* The functions each pattern names, appended to *set (no repeats). */
static int match_all(int **set, int *n, const cgm_model *model, const char **patterns, int npat)
{
	for (int p = 0; p < npat; p++) {
		int *found, nfound;
		int rc = cgm_query_match(&found, &nfound, model, patterns[p]);
		if (rc < 0)
			return rc;
		if (nfound > 1) {
			cgm_strbuf pat = CGM_STRBUF_INIT;
			cgm_escape_text(&pat, patterns[p]);
			fprintf(stderr, "cgmap: '%s' matches %d functions; using all of them:\n",
				cgm_strbuf_cstr(&pat), nfound);
			for (int i = 0; i < nfound; i++) {
				cgm_strbuf_reset(&pat);
				cgm_escape_text(&pat, model->functions[found[i]].id);
				fprintf(stderr, "  %s\n", cgm_strbuf_cstr(&pat));
			}
			cgm_strbuf_free(&pat);
		}
		int *grown = realloc(*set, sizeof(int) * (size_t)(*n + nfound + 1));
		if (!grown) {
			free(found);
			return cgm_error(CGM_EUSAGE, "out of memory");
		}
		*set = grown;
		for (int i = 0; i < nfound; i++) {
			bool seen = false;
			for (int j = 0; j < *n && !seen; j++)
				seen = (*set)[j] == found[i];
			if (!seen)
				(*set)[(*n)++] = found[i];
		}
		free(found);
	}
	return 0;
}

int cmd_query_run(int argc, char **argv, cmd_query_kind kind)
{
	const char *name = query_names[kind];
	cgm_map_options opts;
	cgm_map_options_init(&opts);
	const char *output = NULL, *snapshot = NULL, *format_name = "text";
	const char **patterns = calloc((size_t)argc + 1, sizeof(char *));
	int npatterns = 0, depth = 0, max_paths = 10, rc = 0;
	int *set[2] = { NULL, NULL }, nset[2] = { 0, 0 };
	cgm_model *model = NULL;
	cgm_strbuf out = CGM_STRBUF_INIT;
	cgm_qgraph graph = { 0 };
	if (!patterns) {
		rc = cgm_error(CGM_EUSAGE, "out of memory");
		goto fail;
	}

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
			query_usage(stdout, kind);
			goto done;
		}
		const char *opt = NULL, *value = NULL;
		static const char *const valued[] = { "--format", "--output", "-o", "--snapshot",
						      "--depth", "--max", NULL };
		for (int k = 0; valued[k] && !opt; k++) {
			size_t len = strlen(valued[k]);
			if (strcmp(arg, valued[k]) == 0) {
				opt = valued[k];
				if (i + 1 >= argc) {
					rc = cgm_error(CGM_EUSAGE, "%s: option '%s' needs a value", name, arg);
					goto fail_usage;
				}
				value = argv[++i];
			} else if (strncmp(arg, valued[k], len) == 0 && arg[len] == '=' && len > 2) {
				opt = valued[k];
				value = arg + len + 1;
			}
		}
		if (opt) {
			if (strcmp(opt, "--format") == 0)
				format_name = value;
			else if (strcmp(opt, "--output") == 0 || strcmp(opt, "-o") == 0)
				output = value;
			else if (strcmp(opt, "--snapshot") == 0)
				snapshot = value;
			else if (strcmp(opt, "--depth") == 0 &&
				 (kind == CMD_QUERY_CALLERS || kind == CMD_QUERY_CALLEES)) {
				if ((rc = parse_count(&depth, value, "--depth", 1, 1000000)) < 0)
					goto fail_usage;
			} else if (strcmp(opt, "--max") == 0 && kind == CMD_QUERY_PATH) {
				if ((rc = parse_count(&max_paths, value, "--max", 1, 100000)) < 0)
					goto fail_usage;
			} else {
				rc = cgm_error(CGM_EUSAGE, "%s: unknown option '%s'", name, opt);
				goto fail_usage;
			}
			continue;
		}
		if (arg[0] == '-' && arg[1]) {
			rc = cgm_error(CGM_EUSAGE, "%s: unknown option '%s'", name, arg);
			goto fail_usage;
		}
		/* A snapshot is a .json file or a folder holding cgmap.json; a
		 * function id never ends so. */
		if (!snapshot && cmd_looks_like_snapshot(arg) && npatterns > 0) {
			snapshot = arg;
			continue;
		}
		patterns[npatterns++] = arg;
	}
	int want = kind == CMD_QUERY_PATH ? 2 : kind == CMD_QUERY_IMPACT ? -1 : 1;
	/* The snapshot given before the functions (`cgmap callers cgmap.json
	 * app.f`): unambiguous when it exists and the functions still follow,
	 * as no pattern names an existing .json file or a folder holding a
	 * cgmap.json (one after the first is taken as the loop goes). */
	if (!snapshot && npatterns > (want > 0 ? want : 1) && access(patterns[0], F_OK) == 0 &&
	    cmd_looks_like_snapshot(patterns[0])) {
		snapshot = patterns[0];
		memmove(patterns, patterns + 1, sizeof(char *) * (size_t)--npatterns);
	}
	if (npatterns == 0 || (want > 0 && npatterns != want)) {
		/* The one that is no function: a first argument named like a
		 * file (a snapshot that is not there), else the one past FUNC. */
		const char *extra = npatterns > want && want > 0
					    ? (cmd_looks_like_snapshot(patterns[0]) || strchr(patterns[0], '/')
						       ? patterns[0]
						       : patterns[want])
					    : NULL;
		if (want == 2 && npatterns > 2)
			rc = cgm_error(CGM_EUSAGE,
				       "path: give FROM and TO, then the snapshot: cgmap path FROM TO "
				       "[SNAPSHOT] ('%s' is no snapshot: no such .json file, nor a folder "
				       "holding cgmap.json)",
				       extra);
		else if (want == 2)
			rc = cgm_error(CGM_EUSAGE, "path: give FROM and TO (%d function%s given)",
				       npatterns, npatterns == 1 ? "" : "s");
		else if (npatterns == 0)
			rc = cgm_error(CGM_EUSAGE, "%s: which function? give FUNC", name);
		else
			rc = cgm_error(CGM_EUSAGE,
				       "%s: give one FUNC, then the snapshot: cgmap %s FUNC [SNAPSHOT] "
				       "('%s' is no snapshot: no such .json file, nor a folder holding "
				       "cgmap.json)",
				       name, name, extra);
		goto fail_usage;
	}
	cgm_qformat format;
	if ((rc = cgm_qformat_parse(&format, format_name)) < 0)
		goto fail_usage;
	if ((rc = cmd_load_model(&model, snapshot, &opts, name)) < 0)
		goto fail;
	if (kind == CMD_QUERY_PATH) {
		if ((rc = match_all(&set[0], &nset[0], model, patterns, 1)) < 0 ||
		    (rc = match_all(&set[1], &nset[1], model, patterns + 1, 1)) < 0)
			goto fail;
	} else if ((rc = match_all(&set[0], &nset[0], model, patterns, npatterns)) < 0) {
		goto fail;
	}

	cgm_qgraph_build(&graph, model);
	switch (kind) {
	case CMD_QUERY_CALLERS:
	case CMD_QUERY_CALLEES: {
		cgm_qdir dir = kind == CMD_QUERY_CALLERS ? CGM_Q_CALLERS : CGM_Q_CALLEES;
		cgm_qtree tree;
		cgm_query_tree(&tree, &graph, set[0], nset[0], dir, depth);
		cgm_query_write_tree(&out, model, &tree, dir, format);
		cgm_qtree_free(&tree);
		break;
	}
	case CMD_QUERY_PATH: {
		cgm_qpaths paths;
		cgm_query_paths(&paths, &graph, set[0], nset[0], set[1], nset[1], max_paths, 0);
		cgm_query_write_paths(&out, model, &graph, &paths, set[0], nset[0], set[1], nset[1],
				      format);
		cgm_qpaths_free(&paths);
		break;
	}
	case CMD_QUERY_IMPACT: {
		cgm_qimpact impact;
		cgm_query_impact(&impact, &graph, set[0], nset[0]);
		cgm_query_write_impact(&out, model, &graph, &impact, set[0], nset[0], format);
		cgm_qimpact_free(&impact);
		break;
	}
	}
	if ((rc = cmd_write_output(output, cgm_strbuf_cstr(&out), out.len)) < 0)
		goto fail;
	goto done;

fail_usage:
	fprintf(stderr, "cgmap: %s\nsee 'cgmap %s --help'\n", cgm_error_message(), name);
	goto done;
fail:
	fprintf(stderr, "cgmap: %s\n", cgm_error_message());
done:
	cgm_qgraph_free(&graph);
	cgm_strbuf_free(&out);
	free(set[0]);
	free(set[1]);
	free((void *)patterns);
	cgm_model_free(model);
	cgm_map_options_free(&opts);
	return cmd_exit_code(rc < 0 ? rc : 0);
}
