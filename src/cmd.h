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
/* --runtime FILE and --entry on a model read from `path` (analysed again). */
int cmd_apply_runtime(struct cgm_model *model, const struct cgm_map_options *opts,
		      const char *cmd, const char *path);
/* The answer to path (replaced whole, outdir.h) or to standard output (NULL). */
int cmd_write_output(const char *path, const char *text, size_t len);

/* callers, callees, path, impact: one runner (src/cmd_query.c). */
typedef enum { CMD_QUERY_CALLERS, CMD_QUERY_CALLEES, CMD_QUERY_PATH, CMD_QUERY_IMPACT } cmd_query_kind;
int cmd_query_run(int argc, char **argv, cmd_query_kind kind);

#endif
