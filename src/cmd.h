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

#endif
