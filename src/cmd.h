/*
 * cmd.h - the subcommand table's entries.  Each cmd_X(argc, argv) gets argv
 * with argv[0] the command name and returns the process exit code.
 */
#ifndef CGMAP_CMD_H
#define CGMAP_CMD_H

typedef struct cgm_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} cgm_command;

/* Exit codes, the same in every command (README.md, "Exit codes"). */
enum {
	CMD_EXIT_OK = 0,
	CMD_EXIT_USAGE = 1,       /* a bad command line */
	CMD_EXIT_DIFFERENCES = 2, /* diff: the call graphs differ */
	CMD_EXIT_FAIL_ON = 3,     /* diff: a finding that --fail-on names */
	CMD_EXIT_INPUT = 4,       /* an input cannot be read or is not valid: the database,
	                           * SQL files, a snapshot, runtime data */
	CMD_EXIT_OUTPUT = 5       /* an output cannot be written */
};
/* The exit code of a CGM_E* return (0 for success). */
int cmd_exit_code(int rc);
/* `-o` names an output file in every command; map and render write a folder,
 * given with --out: an error saying so, for their `-o`. */
int cmd_reject_short_out(const char *cmd);

int cmd_map(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_callers(int argc, char **argv);
int cmd_callees(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_impact(int argc, char **argv);

/* Shared by the commands that read one call graph (src/cmd_load.c). */
#include <stdbool.h>
#include <stddef.h>

struct cgm_model;
struct cgm_map_options;
/* A .json file, or a folder holding cgmap.json (a folder of SQL holds none). */
bool cmd_looks_like_snapshot(const char *path);
/* The snapshot (NULL: cgmap.json) or the source the options name, with
 * --runtime / --entry applied to a snapshot; new diagnostics on stderr. */
int cmd_load_model(struct cgm_model **out, const char *snapshot, struct cgm_map_options *opts,
		   const char *cmd);
/* Whether cmd_apply_runtime would merge into or analyse again a model read
 * with these options (runtime files or logs, --entry, thresholds, the
 * configuration's declared calls and kept functions). */
bool cmd_runtime_changes(const struct cgm_map_options *opts);
/* --runtime FILE and --entry on a model read from `path` (analysed again). */
int cmd_apply_runtime(struct cgm_model *model, const struct cgm_map_options *opts,
		      const char *cmd, const char *path);
/* The answer to path (replaced whole, outdir.h) or to standard output (NULL). */
int cmd_write_output(const char *path, const char *text, size_t len);

/* callers, callees, path, impact: one runner (src/cmd_query.c). */
typedef enum { CMD_QUERY_CALLERS, CMD_QUERY_CALLEES, CMD_QUERY_PATH, CMD_QUERY_IMPACT } cmd_query_kind;
int cmd_query_run(int argc, char **argv, cmd_query_kind kind);

#endif
