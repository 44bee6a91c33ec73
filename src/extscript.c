/*
 * extscript.c - an extension's install or update script read as
 * CREATE EXTENSION runs it.
 *
 * In:  the path of a SQL file and its text (malloc'd, as sqlfile_read has
 *      it).
 * Out: when the file is an extension script (named NAME--VERSION.sql or
 *      NAME--FROM--TO.sql with NAME.control beside it or one folder up, as
 *      an extension's source tree has it), or a piece of one (any other
 *      name, holding @extschema@, with one control file in its folder or
 *      up to three above: the files of sql/functions/ an extension's build
 *      joins into its script), the same text with
 *      what PostgreSQL substitutes before running it: @extschema@ is the
 *      target schema (the control file's `schema`, else the first schema
 *      of a new database's search_path, public) as quote_identifier writes
 *      it, @extowner@ the owner (the bootstrap superuser's usual name,
 *      postgres); and for a target schema other than public, the schema
 *      made and put first in the search_path before the script's first
 *      statement, on its first line, so every line keeps its number.  The
 *      caller's buffer is replaced (realloc'd) and stays the caller's to
 *      free.  Anything else is left as it is.
 *
 * Why: extension scripts are not plain SQL until then.  Read as files,
 * pg_partman 4.7.2's script (345 @extschema@) mapped 1 function of about
 * a hundred, PostGIS 3.3.2's left 131 functions unparsed: the code an
 * extension's own CI would diff.
 */
#include "extscript.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/infile.h"
#include "cgmap/types.h"

/* Of "DIR/NAME--X.sql", NAME (into name, at most n bytes) and DIR/. */
static bool script_name(const char *path, char *dir, size_t ndir, char *name, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dashes = strstr(base, "--");
	size_t len = strlen(base);
	if (!dashes || dashes == base || len < 4 || strcmp(base + len - 4, ".sql") != 0 ||
	    dashes + 2 >= base + len - 4)
		return false;
	size_t nlen = (size_t)(dashes - base), dlen = (size_t)(base - path);
	if (nlen + 1 > n || dlen + 1 > ndir)
		return false;
	memcpy(name, base, nlen);
	name[nlen] = '\0';
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	return true;
}

/* The value of `schema = 'x'` (or schema = x) on one line of a control
 * file, into out. */
static bool line_schema(const char *p, char *out, size_t n)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "schema", 6) != 0)
		return false;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '=')
		return false;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t k = 0;
	if (*p == '\'') {
		for (p++; *p && *p != '\n' && *p != '\'' && k + 1 < n; p++)
			out[k++] = *p;
	} else {
		while (*p && *p != '#' && !isspace((unsigned char)*p) && k + 1 < n)
			out[k++] = *p++;
	}
	out[k] = '\0';
	return k > 0;
}

/* The control file's `schema`, into out; false when it names none. */
static bool control_schema(const char *text, char *out, size_t n)
{
	for (const char *line = text; line && *line;) {
		if (line_schema(line, out, n))
			return true;
		const char *next = strchr(line, '\n');
		line = next ? next + 1 : NULL;
	}
	return false;
}

/* The one NAME.control in the folder `dir` ("" the working one), into
 * name; false when it holds none or several, or cannot be read. */
static bool only_control(const char *dir, char *name, size_t n)
{
	DIR *d = opendir(*dir ? dir : ".");
	if (!d)
		return false;
	int found = 0;
	for (struct dirent *e; (e = readdir(d)) && found < 2;) {
		size_t len = strlen(e->d_name);
		if (len > 8 && strcmp(e->d_name + len - 8, ".control") == 0 && len - 8 < n) {
			if (found++ == 0) {
				memcpy(name, e->d_name, len - 8);
				name[len - 8] = '\0';
			}
		}
	}
	closedir(d);
	return found == 1;
}

/* The folder of `path` ("" for none), into dir; false when too long. */
static bool folder_of(const char *path, char *dir, size_t ndir)
{
	const char *base = strrchr(path, '/');
	size_t dlen = base ? (size_t)(base + 1 - path) : 0;
	if (dlen + 1 > ndir)
		return false;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	return true;
}

bool extscript_target(const char *path, const char *text_read, char *schema, size_t n)
{
	char dir[4096], name[256], control[4096 + 256 + 16];
	if (!path || strcmp(path, "-") == 0 || n < 2)
		return false;
	/* A script: beside it (an installed extension), or one folder up (an
	 * extension's source tree: NAME.control at the top, scripts in sql/).
	 * A piece of one: the one control file nearest above it. */
	int to = 2;
	bool piece = false;
	if (!script_name(path, dir, sizeof(dir), name, sizeof(name))) {
		if (!text_read || !strstr(text_read, "@extschema@") || !folder_of(path, dir, sizeof(dir)))
			return false;
		piece = true;
		to = 4;
	}
	char *text = NULL;
	size_t len = 0;
	for (int up = 0; up < to && !text; up++) {
		char above[4096];
		if (snprintf(above, sizeof(above), "%s%s%s%s", dir, up > 0 ? "../" : "", up > 1 ? "../" : "",
			     up > 2 ? "../" : "") >= (int)sizeof(above))
			return false;
		if (piece && !only_control(above, name, sizeof(name)))
			continue;
		snprintf(control, sizeof(control), "%s%s.control", above, name);
		/* cgm_infile_read takes a regular file only (a link to one is
		 * followed: Debian's control files are links through
		 * /etc/alternatives); only its schema setting is ever used. */
		if (cgm_infile_read(&text, &len, control, "control file", CGM_ESOURCE, false, 1) < 0) {
			cgm_error_clear(); /* none there */
			text = NULL;
		}
	}
	if (!text)
		return false; /* no control file: a plain SQL file */
	/* A control file is a few lines: one larger than 1 MiB is none. */
	if (len > (1u << 20)) {
		free(text);
		return false;
	}
	if (!control_schema(text, schema, n))
		snprintf(schema, n, "public");
	free(text);
	return true;
}

/* The text with every `from` replaced by `to`, or NULL when it holds none. */
static char *replace_all(const char *text, size_t len, const char *from, const char *to,
			 size_t *newlen)
{
	size_t flen = strlen(from), tlen = strlen(to), count = 0;
	for (const char *p = text; (p = strstr(p, from)); p += flen)
		count++;
	if (!count)
		return NULL;
	size_t out_len = len - count * flen + count * tlen;
	char *out = malloc(out_len + 1), *w = out;
	if (!out)
		abort();
	const char *p = text;
	for (const char *hit; (hit = strstr(p, from)); p = hit + flen) {
		memcpy(w, p, (size_t)(hit - p));
		w += hit - p;
		memcpy(w, to, tlen);
		w += tlen;
	}
	memcpy(w, p, len - (size_t)(p - text));
	out[out_len] = '\0';
	*newlen = out_len;
	return out;
}

void extscript_prepare(char **text, size_t *len, const char *schema)
{
	cgm_arena *arena = cgm_arena_new();
	const char *quoted = cgm_quote_ident(arena, schema);
	static const struct {
		const char *marker, *value;
	} subs[] = { { "@extschema@", NULL }, { "@extowner@", "postgres" } };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		size_t newlen;
		char *out = replace_all(*text, *len, subs[i].marker, subs[i].value ? subs[i].value : quoted,
					&newlen);
		if (out) {
			free(*text);
			*text = out;
			*len = newlen;
		}
	}
	if (strcmp(schema, "public") != 0) {
		/* CREATE EXTENSION makes the schema a control file names and runs
		 * the script with it first in the search_path; no newline, so the
		 * lines keep their numbers. */
		char prefix[1024];
		int plen = snprintf(prefix, sizeof(prefix),
				    "CREATE SCHEMA IF NOT EXISTS %s; SET search_path = %s, public; ",
				    quoted, quoted);
		if (plen > 0 && (size_t)plen < sizeof(prefix)) {
			char *out = malloc(*len + (size_t)plen + 1);
			if (!out)
				abort();
			memcpy(out, prefix, (size_t)plen);
			memcpy(out + plen, *text, *len + 1);
			free(*text);
			*text = out;
			*len += (size_t)plen;
		}
	}
	cgm_arena_free(arena);
}
