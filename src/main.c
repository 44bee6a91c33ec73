/*
 * main.c - the cgmap command line: a table of subcommands, one source file
 * each (cmd_*.c).  A command line that names no subcommand maps a source
 * (`cgmap --dsn ... --out DIR`), the headline use.
 *
 * Exit codes are one table for every command (cmd.h, README.md): 0
 * success, 1 bad usage, 4 an input cannot be read, 5 an output cannot be
 * written; `diff` adds 2 (differences) and 3 (a --fail-on finding).
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cmd.h"

static const cgm_command commands[] = {
	{ "map", cmd_map, "map a database or SQL files into DIR (the default command)" },
	{ "render", cmd_render, "rebuild the HTML site of a snapshot, offline" },
	{ "report", cmd_report, "print one report (dead, cold, dynamic, edges, ...) of a snapshot" },
	{ "collect", cmd_collect, "export the calls a server observed, to merge with --runtime" },
	{ "diff", cmd_diff, "compare two call graphs (snapshots or sources), for CI" },
	{ "callers", cmd_callers, "who calls FUNC, transitively, as a tree" },
	{ "callees", cmd_callees, "what FUNC calls, transitively, as a tree" },
	{ "path", cmd_path, "the shortest call paths from FROM to TO" },
	{ "impact", cmd_impact, "the entry points reaching FUNC..., with their traffic" },
};

static void print_help(FILE *out)
{
	fprintf(out,
		"usage: cgmap [--dsn DSN | --sql PATH...] --out DIR [options]\n"
		"       cgmap <command> [options]\n"
		"\n"
		"cgmap maps which PL/pgSQL and SQL function calls which: it parses every\n"
		"function body, resolves each call like PostgreSQL would, merges calls\n"
		"observed at runtime, and documents the graph.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'cgmap <command> --help' describes a command's options; a command\n"
		     "line that starts with an option maps (cgmap --dsn DSN --out DIR).\n");
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
	/* glibc raises its mmap threshold to the largest block freed (up to
	 * 32 MB), after which the arenas' blocks and large arrays come from
	 * the heap, where what is freed mid-run (a source's file texts and
	 * parse trees) stays resident below what is still held; fixed
	 * thresholds give such blocks back.  Map of 100,000 functions: peak
	 * RSS docs/architecture.md "Memory". */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	mallopt(M_TRIM_THRESHOLD, 512 * 1024);
#endif
	if (argc < 2) { /* as git does: what there is to run */
		print_help(stdout);
		return CMD_EXIT_USAGE;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "help") == 0)) {
		print_help(stdout);
		if (argc == 2)
			return 0;
		return cmd_map(argc, argv); /* `cgmap --help` also lists map's options */
	}
	if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
		printf("cgmap %s\n", CGMAP_VERSION);
		return 0;
	}
	if (argc >= 2 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				return commands[i].run(argc - 1, argv + 1);
		fprintf(stderr, "cgmap: unknown command '%s'; see 'cgmap --help'\n", argv[1]);
		return CMD_EXIT_USAGE;
	}
	return cmd_map(argc, argv);
}
