/*
 * sqlfile_read.c - the files of `cgmap --sql PATH...`: folder expansion in
 * name order, reading (standard input too), refusing pg_dump archives with a
 * way out, and blanking psql meta-commands (see sqlfile.h).
 *
 * In: paths.  Out: file names in the caller's arena; file texts malloc'd,
 * freed by the caller.
 */
#include "sqlfile.h"
#include "sqllex.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cgmap/error.h"
#include "cgmap/infile.h"
#include "extscript.h"

typedef struct name_list {
	const char **items;
	int n, cap;
	cgm_arena *arena;
} name_list;

static void push_name(name_list *list, const char *name)
{
	if (list->n == list->cap) {
		int cap = list->cap ? list->cap * 2 : 16;
		list->items = cgm_arena_grow(list->arena, list->items, (size_t)list->n, (size_t)cap,
					     sizeof(char *));
		list->cap = cap;
	}
	list->items[list->n++] = cgm_arena_strdup(list->arena, name);
}

static bool is_sql_name(const char *name)
{
	size_t len = strlen(name);
	return len > 4 && strcasecmp(name + len - 4, ".sql") == 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool sqlfile_path_under(const char *real, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return real[0] == '/';
	return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* ---- (device, inode) sets: each real folder walked once ---- */

void sqlfile_ids_free(sqlfile_ids *set)
{
	free(set->slots);
	memset(set, 0, sizeof(*set));
}

static uint64_t id_hash(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)dev * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)ino;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 29);
}

const char *sqlfile_ids_add(sqlfile_ids *set, dev_t dev, ino_t ino, const char *name)
{
	if ((set->used + 1) * 2 > set->size) {
		sqlfile_ids old = *set;
		set->size = old.size ? old.size * 2 : 64;
		set->used = 0;
		set->slots = cgm_xcalloc((size_t)set->size, sizeof(*set->slots));
		for (int i = 0; i < old.size; i++)
			if (old.slots[i].name)
				sqlfile_ids_add(set, old.slots[i].dev, old.slots[i].ino, old.slots[i].name);
		free(old.slots);
	}
	size_t mask = (size_t)set->size - 1;
	for (size_t i = id_hash(dev, ino) & mask;; i = (i + 1) & mask) {
		if (!set->slots[i].name) {
			set->slots[i].dev = dev;
			set->slots[i].ino = ino;
			set->slots[i].name = name;
			set->used++;
			return NULL;
		}
		if (set->slots[i].dev == dev && set->slots[i].ino == ino)
			return set->slots[i].name;
	}
}

typedef struct walk_state {
	name_list *list;
	sqlfile_ids folders;   /* every real folder entered */
	const char *root;      /* realpath of the folder given */
	bool allow_outside;
	sqlfile_note **notes;
	int *nnotes;
	cgm_arena *arena;
} walk_state;

static void note(walk_state *w, const char *file, const char *message)
{
	*w->notes = cgm_arena_grow(w->arena, *w->notes, (size_t)*w->nnotes, (size_t)*w->nnotes + 1,
				   sizeof(sqlfile_note));
	(*w->notes)[*w->nnotes].file = cgm_arena_strdup(w->arena, file);
	(*w->notes)[*w->nnotes].message = message;
	(*w->nnotes)++;
}

/* Does the entry at path (a link, perhaps) lead outside the folder given?
 * Noted when it does. */
static bool leads_outside(walk_state *w, const char *path, const char *kind)
{
	if (w->allow_outside)
		return false;
	char *real = realpath(path, NULL);
	bool outside = !real || !sqlfile_path_under(real, w->root);
	free(real);
	if (outside)
		note(w, path,
		     cgm_arena_printf(w->arena,
				      "%s \"%s\" leads outside the folder given: not read "
				      "(--allow-include-outside reads it)",
				      kind, path));
	return outside;
}

/* Every *.sql file below `dir` (entered already), unsorted. */
static int walk_folder(walk_state *w, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return cgm_error(CGM_ESOURCE, "cannot read folder \"%s\": %s", dir, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL && rc == 0) {
		if (e->d_name[0] == '.')
			continue; /* ., .. and hidden files (editor backups, .git) */
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		char *path = malloc(len);
		if (!path) {
			rc = cgm_error(CGM_ESOURCE, "out of memory");
			break;
		}
		snprintf(path, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
		struct stat st;
		if (stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				/* A link back to a folder already walked (one to
				 * "." would make the walk exponential): once. */
				const char *name = cgm_arena_strdup(w->arena, path);
				const char *first = sqlfile_ids_add(&w->folders, st.st_dev, st.st_ino, name);
				if (first)
					note(w, path,
					     cgm_arena_printf(w->arena,
							      "folder \"%s\" is folder \"%s\" again "
							      "(a link): walked once",
							      path, first));
				else if (!leads_outside(w, path, "folder"))
					rc = walk_folder(w, path);
			} else if (S_ISREG(st.st_mode) && is_sql_name(e->d_name) &&
				   !leads_outside(w, path, "file")) {
				push_name(w->list, path);
			}
		}
		free(path);
	}
	closedir(d);
	return rc;
}

int sqlfile_collect(const char ***files, int *nfiles, cgm_arena *arena,
		    const char *const *paths, int npaths, bool allow_outside,
		    sqlfile_note **notes, int *nnotes)
{
	name_list list = { .arena = arena };
	*notes = NULL;
	*nnotes = 0;
	for (int i = 0; i < npaths; i++) {
		const char *path = paths[i];
		if (strcmp(path, "-") == 0) {
			push_name(&list, path);
			continue;
		}
		struct stat st;
		if (stat(path, &st) < 0)
			return cgm_error(CGM_ESOURCE, "cannot read \"%s\": %s", path, strerror(errno));
		if (!S_ISDIR(st.st_mode)) {
			push_name(&list, path);
			continue;
		}
		int first = list.n;
		walk_state w = { .list = &list, .allow_outside = allow_outside, .notes = notes,
				 .nnotes = nnotes, .arena = arena };
		char *root = realpath(path, NULL);
		if (!root)
			return cgm_error(CGM_ESOURCE, "cannot read folder \"%s\": %s", path, strerror(errno));
		w.root = root;
		sqlfile_ids_add(&w.folders, st.st_dev, st.st_ino, cgm_arena_strdup(arena, path));
		int rc = walk_folder(&w, path);
		sqlfile_ids_free(&w.folders);
		free(root);
		if (rc < 0)
			return rc;
		if (list.n == first)
			return cgm_error(CGM_ESOURCE, "folder \"%s\" holds no .sql file", path);
		/* Numbered migrations apply in name order. */
		qsort(list.items + first, (size_t)(list.n - first), sizeof(char *), compare_names);
	}
	*files = list.items;
	*nfiles = list.n;
	return 0;
}

int sqlfile_read(char **text, size_t *len, const char *path)
{
	*text = NULL;
	*len = 0;
	bool is_stdin = strcmp(path, "-") == 0;
	char *buf;
	size_t n;
	int rc = cgm_infile_read(&buf, &n, path, "SQL file", CGM_ESOURCE, true, 1);
	if (rc < 0)
		return rc;
	const char *shown = is_stdin ? "standard input" : path;
	/* Offsets into a file's text are ints. */
	if (n >= INT_MAX) {
		free(buf);
		return cgm_error(CGM_ESOURCE, "SQL file \"%s\" is larger than 2 GiB: not read", shown);
	}
	if (n >= 5 && memcmp(buf, "PGDMP", 5) == 0) {
		free(buf);
		return cgm_error(CGM_ESOURCE,
				 "\"%s\" is a pg_dump custom-format archive, not SQL; turn it into SQL "
				 "with: pg_restore -f - --schema-only \"%s\" | cgmap --sql - ...",
				 shown, shown);
	}
	/* A tar archive has "ustar" at offset 257; any NUL byte means binary. */
	const char *nul = memchr(buf, '\0', n);
	if (nul) {
		bool tar = n > 262 && memcmp(buf + 257, "ustar", 5) == 0;
		/* The line of the first NUL: a text file damaged in one place
		 * says where. */
		int line = 1;
		for (const char *c = buf; c < nul; c++)
			line += *c == '\n';
		free(buf);
		if (tar)
			return cgm_error(CGM_ESOURCE,
					 "\"%s\" is a pg_dump tar archive, not SQL; turn it into SQL "
					 "with: pg_restore -f - --schema-only \"%s\"",
					 shown, shown);
		return cgm_error(CGM_ESOURCE, "\"%s\" is not a text file of SQL: a NUL byte at line %d",
				 shown, line);
	}
	/* A byte-order mark some editors write is no SQL: blank it (same
	 * length, so offsets stay). */
	if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		memset(buf, ' ', 3);
	/* An extension's script is SQL once CREATE EXTENSION has filled in
	 * its schema (extscript.c). */
	char schema[256];
	if (!is_stdin && extscript_target(path, buf, schema, sizeof(schema)))
		extscript_prepare(&buf, &n, schema);
	*text = buf;
	*len = n;
	return 0;
}


/* Blank s[from, to) except newlines. */
static void blank(char *s, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (s[i] != '\n')
			s[i] = ' ';
}

/* Is the statement starting at `start` and ending at the ';' at `end` a
 * COPY ... FROM STDIN, whose data lines psql sends after it? */
size_t sqlfile_copy_data(const char *s, size_t semicolon, size_t *data)
{
	/* Data lines follow the statement's line, up to "\\.". */
	size_t from = semicolon;
	while (s[from] && s[from] != '\n')
		from++;
	size_t end = from;
	while (s[end]) {
		size_t line = end + (s[end] == '\n');
		if (s[line] == '\\' && s[line + 1] == '.') {
			end = line + 2;
			break;
		}
		end = line;
		while (s[end] && s[end] != '\n')
			end++;
	}
	*data = from;
	return end;
}

bool sqlfile_copy_from_stdin(const char *s, size_t start, size_t end)
{
	/* pg_dump writes a comment before each table's data. */
	for (;;) {
		while (start < end && (s[start] == ' ' || s[start] == '\t' || s[start] == '\n' ||
				       s[start] == '\r'))
			start++;
		size_t after = start < end ? cgm_sql_skip_comment(s, start) : start;
		if (after == start)
			break;
		start = after;
	}
	if (start >= end)
		return false;
	if (end - start < 4 || strncasecmp(s + start, "copy", 4) != 0 || cgm_sql_ident_char((unsigned char)s[start + 4]))
		return false;
	for (size_t i = start; i + 10 <= end; i++)
		if (strncasecmp(s + i, "from", 4) == 0) {
			size_t j = i + 4;
			while (j < end && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n'))
				j++;
			if (j + 5 <= end && strncasecmp(s + j, "stdin", 5) == 0 &&
			    !cgm_sql_ident_char((unsigned char)s[j + 5]))
				return true;
		}
	return false;
}

int sqlfile_split(int **starts, int **ends, const char *s)
{
	int cap = 64, n = 0;
	int *st = malloc(sizeof(int) * (size_t)cap), *en = malloc(sizeof(int) * (size_t)cap);
	size_t i = 0, begin = 0;
	bool content = false;
	while (st && en) {
		size_t after = s[i] ? cgm_sql_skip_opaque(s, i) : i;
		bool comment = s[i] == '-' || s[i] == '/';
		if (after != i) {
			content = content || !comment;
			i = after;
			continue;
		}
		if (s[i] == ';' || !s[i]) {
			if (content) {
				if (n == cap) {
					cap *= 2;
					st = realloc(st, sizeof(int) * (size_t)cap);
					en = realloc(en, sizeof(int) * (size_t)cap);
					if (!st || !en)
						break;
				}
				st[n] = (int)begin;
				en[n] = (int)i;
				n++;
			}
			if (!s[i])
				break;
			begin = ++i;
			content = false;
			continue;
		}
		if (!strchr(" \t\n\r\f", s[i]))
			content = true;
		i++;
	}
	if (!st || !en) {
		free(st);
		free(en);
		return -1;
	}
	*starts = st;
	*ends = en;
	return n;
}

/* The file name of a psql include meta-command at s (after the command
 * word): psql's rules, quotes optional. */
static char *include_path(const char *s, size_t end)
{
	size_t i = 0;
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t start = i, stop;
	if (s[i] == '\'' || s[i] == '"') {
		char q = s[i];
		start = ++i;
		while (i < end && s[i] != q)
			i++;
		stop = i;
	} else {
		while (i < end && !strchr(" \t\r\\", s[i]))
			i++;
		stop = i;
		/* psql drops the semicolons ending an unquoted argument of \i
		 * (psql_scan_slash_option's `semicolon`): `\i b.sql;` reads b.sql. */
		while (stop > start && s[stop - 1] == ';')
			stop--;
	}
	return stop > start ? strndup(s + start, stop - start) : NULL;
}

int sqlfile_include_kind(const char *s, size_t *word)
{
	static const struct { const char *cmd; int kind; } cmds[] = {
		{ "\\include_relative", 2 }, { "\\include", 1 }, { "\\ir", 2 }, { "\\i", 1 },
	};
	for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
		size_t n = strlen(cmds[k].cmd);
		if (strncmp(s, cmds[k].cmd, n) == 0 && (s[n] == ' ' || s[n] == '\t')) {
			*word = n;
			return cmds[k].kind;
		}
	}
	return 0;
}

/* Whether the meta-command at s sends the query buffer, as a ';' does:
 * \g and its kin (SELECT ... \gset ends that SELECT). */
static bool sends_buffer(const char *s)
{
	static const char *const cmds[] = { "\\gexec", "\\gdesc", "\\gset", "\\gx", "\\g",
					    "\\crosstabview", "\\watch" };
	for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
		size_t n = strlen(cmds[k]);
		if (strncmp(s, cmds[k], n) == 0 && strchr(" \t\r\n", s[n]))
			return true;
	}
	return false;
}

void sqlfile_includes_free(sqlfile_include *includes, int n)
{
	for (int i = 0; i < n; i++)
		free(includes[i].path);
	free(includes);
}

void sqlfile_strip_psql(char *s, sqlfile_include **includes, int *nincludes)
{
	size_t i = 0, stmt_start = 0;
	int cap = 0;
	if (includes) {
		*includes = NULL;
		*nincludes = 0;
	}
	while (s[i]) {
		char c = s[i];
		size_t after = cgm_sql_skip_opaque(s, i);
		if (after != i) {
			i = after;
		} else if (c == '\\') {
			/* A psql meta-command runs to the end of its line. */
			size_t end = i, word;
			while (s[end] && s[end] != '\n')
				end++;
			int kind = includes ? sqlfile_include_kind(s + i, &word) : 0;
			char *path = kind ? include_path(s + i + word, end - i - word) : NULL;
			if (path) {
				if (*nincludes == cap) {
					cap = cap ? cap * 2 : 8;
					sqlfile_include *grown = realloc(*includes, sizeof(sqlfile_include) * (size_t)cap);
					if (!grown) {
						free(path);
						path = NULL;
					} else {
						*includes = grown;
					}
				}
				if (path) {
					(*includes)[*nincludes].offset = (int)i;
					(*includes)[*nincludes].path = path;
					(*includes)[*nincludes].relative = kind == 2;
					(*nincludes)++;
				}
			}
			bool sends = sends_buffer(s + i);
			blank(s, i, end);
			if (sends) {
				s[i] = ';';
				stmt_start = i + 1;
			}
			i = end;
		} else if (c == ';') {
			if (sqlfile_copy_from_stdin(s, stmt_start, i)) {
				size_t data, end = sqlfile_copy_data(s, i, &data);
				blank(s, data, end);
				i = end;
			} else {
				i++;
			}
			stmt_start = i;
		} else {
			i++;
		}
	}
}

/* Literals shorter than this stay in place: replacing them saves nothing. */
#define SHRINK_MIN 48

int sqlfile_shrink(sqlfile_shrunk *out, const char *s)
{
	memset(out, 0, sizeof *out);
	size_t len = strlen(s);
	/* A marker is never longer than what it replaces: the shrunk text
	 * fits in the original's size. */
	char *text = malloc(len + 1);
	if (!text)
		return cgm_error(CGM_ESOURCE, "out of memory");
	size_t tlen = 0;
	int cap = 0;
	size_t i = 0, copied = 0;
	while (s[i]) {
		size_t after = cgm_sql_skip_opaque(s, i);
		if (after == i) {
			i++;
			continue;
		}
		size_t taglen = 0;
		if (s[i] == '$') {
			while (s[i + taglen + 1] != '$')
				taglen++;
			taglen += 2;
		}
		/* Only a closed dollar quote long enough is worth a marker. */
		if (taglen == 0 || after - i < 2 * taglen + SHRINK_MIN ||
		    strncmp(s + after - taglen, s + i, taglen) != 0) {
			i = after;
			continue;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 256;
			sqlfile_literal *grown = realloc(out->lits, sizeof(sqlfile_literal) * (size_t)cap);
			if (!grown) {
				free(text);
				free(out->lits);
				out->lits = NULL;
				return cgm_error(CGM_ESOURCE, "out of memory");
			}
			out->lits = grown;
		}
		memcpy(text + tlen, s + copied, i - copied);
		tlen += i - copied;
		sqlfile_literal *lit = &out->lits[out->n];
		lit->old_start = (int)i;
		lit->old_end = (int)after;
		lit->content_start = (int)(i + taglen);
		lit->content_end = (int)(after - taglen);
		lit->new_start = (int)tlen;
		memcpy(text + tlen, s + i, taglen);
		tlen += taglen;
		tlen += (size_t)sprintf(text + tlen, "%ccgm%d", SQLFILE_MARK, out->n);
		memcpy(text + tlen, s + i, taglen);
		tlen += taglen;
		lit->new_end = (int)tlen;
		out->n++;
		copied = i = after;
	}
	memcpy(text + tlen, s + copied, len - copied);
	tlen += len - copied;
	text[tlen] = '\0';
	out->text = text;
	return 0;
}

int sqlfile_original_offset(const sqlfile_shrunk *sh, int offset)
{
	int lo = 0, hi = sh->n - 1, k = -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (sh->lits[mid].new_start <= offset) {
			k = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (k < 0)
		return offset;
	const sqlfile_literal *l = &sh->lits[k];
	if (offset < l->new_end)
		return l->old_start + (offset - l->new_start < l->old_end - l->old_start
					       ? offset - l->new_start
					       : l->old_end - l->old_start - 1);
	return offset - l->new_end + l->old_end;
}

int sqlfile_marker(const sqlfile_shrunk *sh, const char *value)
{
	if (!value || value[0] != SQLFILE_MARK || strncmp(value + 1, "cgm", 3) != 0)
		return -1;
	char *end;
	long k = strtol(value + 4, &end, 10);
	return *end == '\0' && k >= 0 && k < sh->n ? (int)k : -1;
}

void sqlfile_shrunk_free(sqlfile_shrunk *sh)
{
	free(sh->text);
	free(sh->lits);
	memset(sh, 0, sizeof *sh);
}
