/*
 * builtins.c - the PostgreSQL 15 pg_catalog functions, read from the data
 * file scripts/gen_builtins.sh writes (data/pg15_builtins.tsv), appended to
 * a model as builtin functions (see cgmap/types.h).
 *
 * In:  the model; the file found in $CGMAP_DATADIR, beside the executable,
 *      or in the source tree (CGMAP_DATADIR compile definition).
 * Out: functions with builtin = true, every string in model->arena.
 */
#include "cgmap/types.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/error.h"

#define BUILTINS_FILE "pg15_builtins.tsv"

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

const char *cgm_builtins_path(cgm_arena *arena)
{
	const char *env = getenv("CGMAP_DATADIR");
	if (env && *env) {
		const char *p = cgm_arena_printf(arena, "%s/%s", env, BUILTINS_FILE);
		if (readable(p))
			return p;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		const char *dir = dirname(exe);
		/* Installed (bin/../share/cgmap), or a build folder holding data/. */
		const char *candidates[] = { "%s/../share/cgmap/%s", "%s/data/%s", "%s/%s" };
		for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
			const char *p = cgm_arena_printf(arena, candidates[i], dir, BUILTINS_FILE);
			if (readable(p))
				return p;
		}
	}
#ifdef CGMAP_DATADIR
	const char *p = cgm_arena_printf(arena, "%s/%s", CGMAP_DATADIR, BUILTINS_FILE);
	if (readable(p))
		return p;
#endif
	return NULL;
}

/* Split `line` in place at tabs into at most `max` fields; returns the count. */
static int split_fields(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	while (n < max) {
		fields[n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

/* Split "a, b, c" (sep ", ") or "a,b" (sep ",") into arena strings. */
static int split_list(cgm_arena *arena, const char *text, const char *sep,
		      const char ***out)
{
	*out = NULL;
	if (!*text)
		return 0;
	int n = 1;
	size_t seplen = strlen(sep);
	for (const char *p = text; (p = strstr(p, sep)) != NULL; p += seplen)
		n++;
	const char **items = cgm_arena_alloc(arena, sizeof(char *) * (size_t)n);
	const char *start = text;
	for (int i = 0; i < n; i++) {
		const char *end = strstr(start, sep);
		size_t len = end ? (size_t)(end - start) : strlen(start);
		items[i] = cgm_arena_strndup(arena, start, len);
		start = end ? end + seplen : start + len;
	}
	*out = items;
	return n;
}

int cgm_builtins_load(cgm_model *model)
{
	cgm_arena *arena = model->arena;
	const char *path = cgm_builtins_path(arena);
	if (!path)
		return cgm_error(CGM_ESOURCE,
				 "cannot find \"%s\" (the list of PostgreSQL 15 builtin functions); "
				 "set CGMAP_DATADIR to the folder holding it",
				 BUILTINS_FILE);
	FILE *in = fopen(path, "r");
	if (!in)
		return cgm_error(CGM_ESOURCE, "cannot read \"%s\": %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, added = 0, rc = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		char *f[8];
		if (split_fields(line, f, 8) != 8) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: expected 8 tab-separated fields",
				       path, lineno);
			break;
		}
		cgm_function *fn = cgm_model_add_function(model);
		fn->builtin = true;
		fn->schema = "pg_catalog";
		fn->name = cgm_arena_strdup(arena, f[0]);
		fn->nargs = split_list(arena, f[1], ", ", &fn->argtypes);
		fn->identity_args = cgm_identity_args(arena, fn->argtypes, fn->nargs);
		fn->id = cgm_regprocedure(arena, fn->schema, fn->name, fn->argtypes, fn->nargs);
		fn->ndefaults = atoi(f[2]);
		fn->variadic = strcmp(f[3], "-") != 0;
		fn->variadic_elem = fn->variadic ? cgm_arena_strdup(arena, f[3]) : NULL;
		if (cgm_kind_parse(&fn->kind, f[4]) < 0) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: unknown kind \"%s\"", path, lineno,
				       f[4]);
			break;
		}
		fn->result = *f[5] ? cgm_arena_strdup(arena, f[5]) : NULL;
		fn->is_trigger = strcmp(f[5], "trigger") == 0 || strcmp(f[5], "event_trigger") == 0;
		const char **names = NULL;
		int nnames = split_list(arena, f[6], ",", &names);
		if (nnames == fn->nargs && nnames > 0) {
			for (int i = 0; i < nnames; i++)
				if (strcmp(names[i], "-") == 0)
					names[i] = NULL;
			fn->argnames = names;
		}
		fn->language = cgm_arena_strdup(arena, f[7]);
		fn->npath = -1;
		fn->scc = -1;
		added++;
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : added;
}
