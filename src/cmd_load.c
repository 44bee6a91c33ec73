/*
 * cmd_load.c - what the commands that read one call graph share (report,
 * callers, callees, path, impact): taking a snapshot or mapping a source on
 * the spot, applying --runtime and --entry to a snapshot, saying the
 * diagnostics that are new, and writing the answer; and what every
 * command shares: its exit code for an error (cmd.h), one meaning of -o.
 *
 * In:  a snapshot path (or NULL when opts name a source) and the mapping
 *      options parsed by cgm_map_parse_option.  Out: *out, a model the
 *      caller frees with cgm_model_free; new diagnostics on stderr.
 *
 * A snapshot carries its analysis (status flags), so it is used as it is;
 * --entry or --runtime analyse it again (the roots the snapshot already had
 * stay roots).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmap/config.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/map.h"
#include "cgmap/runtime.h"
#include "cmd.h"
#include "outdir.h"

bool cmd_looks_like_snapshot(const char *path)
{
	size_t len = strlen(path);
	if ((len > 5 && strcmp(path + len - 5, ".json") == 0) ||
	    (len > 8 && strcmp(path + len - 8, ".json.gz") == 0))
		return true;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	char buf[4096];
	snprintf(buf, sizeof buf, "%s/cgmap.json", path);
	if (stat(buf, &st) == 0)
		return true;
	snprintf(buf, sizeof buf, "%s/cgmap.json.gz", path);
	return stat(buf, &st) == 0;
}

bool cmd_runtime_changes(const cgm_map_options *opts)
{
	const cgm_config *config = opts->config;
	return opts->runtime.nlogs || opts->runtime.nfiles || opts->nentry || opts->has_min_window ||
	       opts->has_min_calls || (config && (config->ndynamic || config->nkeep));
}

int cmd_apply_runtime(cgm_model *model, const cgm_map_options *opts, const char *cmd,
		      const char *path)
{
	int rc;
	if (opts->runtime.nlogs)
		return cgm_error(CGM_EUSAGE, "%s: --runtime-log maps OIDs through the "
					     "database's catalog: use it with --dsn, not a snapshot",
				 cmd);
	if (opts->runtime.nfiles) {
		if (model->has_runtime)
			return cgm_error(CGM_EUSAGE,
					 "%s: snapshot '%s' already holds runtime data; merge "
					 "runtime files when mapping (cgmap ... --runtime FILE)",
					 cmd, path);
		cgm_runtime_options ropts = { .files = opts->runtime.files,
					      .nfiles = opts->runtime.nfiles,
					      .no_runtime = true };
		if ((rc = cgm_runtime_apply(model, &ropts)) < 0)
			return rc;
	}
	/* The project's configuration applies to a snapshot too: its declared
	 * calls and kept functions change the analysis. */
	const cgm_config *config = opts->config;
	bool configured = config && (config->ndynamic || config->nkeep);
	if (configured)
		cgm_config_apply(model, config);
	if (opts->runtime.nfiles || opts->nentry || opts->has_min_window || opts->has_min_calls ||
	    configured) {
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

int cmd_load_model(cgm_model **out, const char *snapshot, cgm_map_options *opts, const char *cmd)
{
	int rc, first_new = 0;
	*out = NULL;
	if ((rc = cgm_map_options_load_config(opts)) < 0)
		return rc;
	if (opts->source.dsn || opts->nsql) {
		if (snapshot)
			return cgm_error(CGM_EUSAGE, "%s: give a snapshot or a source (--dsn, --sql), "
						     "not both",
					 cmd);
		opts->runtime.from_database = opts->nsql == 0;
		if ((rc = cgm_map_source(out, opts)) < 0)
			return rc;
	} else {
		const char *path = snapshot ? snapshot : "cgmap.json";
		/* Reports and queries show no function body: not kept. */
		if ((rc = cgm_snapshot_read_with(out, path, CGM_SNAPSHOT_READ_NO_SOURCES)) < 0)
			return rc;
		first_new = (*out)->ndiagnostics;
		if ((rc = cmd_apply_runtime(*out, opts, cmd, path)) < 0)
			return rc;
	}
	/* What the merge could not place is part of the answer (a snapshot's
	 * own diagnostics were said when it was made). */
	cgm_model *model = *out;
	for (int i = first_new; i < model->ndiagnostics; i++) {
		const cgm_diagnostic *d = &model->diagnostics[i];
		if (d->detail && !opts->verbose)
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
	return 0;
}

int cmd_write_output(const char *path, const char *text, size_t len)
{
	if (path)
		return cgm_outstream_write_whole(path, text, len);
	bool bad = fwrite(text, 1, len, stdout) != len || ferror(stdout);
	bad |= fflush(stdout) != 0;
	if (bad)
		return cgm_error(CGM_EIO, "cannot write 'standard output'");
	return 0;
}

int cmd_exit_code(int rc)
{
	switch (rc) {
	case 0: return CMD_EXIT_OK;
	case CGM_EUSAGE: return CMD_EXIT_USAGE;
	case CGM_EIO: return CMD_EXIT_OUTPUT;
	default: return CMD_EXIT_INPUT; /* CGM_ESOURCE, CGM_EINPUT */
	}
}

int cmd_reject_short_out(const char *cmd)
{
	return cgm_error(CGM_EUSAGE, "%s: '-o' names an output file in cgmap; give the output "
				     "folder with --out DIR", cmd);
}
