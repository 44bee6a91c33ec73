/*
 * sqlfile.h - internal to the SQL-file source (source_sql.c, sqlfile_*.c):
 * finding and reading the files, and turning psql scripts into plain SQL.
 */
#ifndef CGMAP_SQLFILE_H
#define CGMAP_SQLFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgmap/arena.h"

/* Something the folder walk left out, and why (the caller records it as
 * a diagnostic of `file`). */
typedef struct sqlfile_note {
	const char *file;
	const char *message;
} sqlfile_note;

/* The files named by `paths`, in the order they are applied: a file as
 * given, a folder's *.sql files (recursively) in byte order of their path,
 * "-" for standard input.  Each real folder is walked once, whatever links
 * lead to it again; unless allow_outside, a link leading outside the folder
 * given is not followed.  Both go to *notes (in `arena`).  Names are in
 * `arena`.  CGM_ESOURCE (message set) when a path does not exist or a
 * folder holds no SQL file. */
int sqlfile_collect(const char ***files, int *nfiles, cgm_arena *arena,
		    const char *const *paths, int npaths, bool allow_outside,
		    sqlfile_note **notes, int *nnotes);

/* Whether the real path `real` is `root` or lies below it (both absolute,
 * as realpath gives them). */
bool sqlfile_path_under(const char *real, const char *root);

/* A set of files or folders by (device, inode), each with the name it was
 * first met under (not copied). */
typedef struct sqlfile_ids {
	struct sqlfile_id {
		dev_t dev;
		ino_t ino;
		const char *name;
	} *slots;
	int size, used;
} sqlfile_ids;
/* Adds (dev, ino) as `name`: NULL when new, else the name it had. */
const char *sqlfile_ids_add(sqlfile_ids *set, dev_t dev, ino_t ino, const char *name);
void sqlfile_ids_free(sqlfile_ids *set);

/* The whole text of `path` ("-": standard input) into *text (malloc'd,
 * NUL-terminated, the caller frees it).  CGM_ESOURCE when it cannot be read
 * (not a regular file, larger than the limit of cgmap/infile.h) or is not
 * plain SQL (a pg_dump custom or tar archive: the message names
 * pg_restore as the way out). */
int sqlfile_read(char **text, size_t *len, const char *path);

/* A psql include (\i FILE, \ir FILE) met while stripping. */
typedef struct sqlfile_include {
	int offset;       /* where it stood: statements before it run first */
	char *path;       /* as written (malloc'd) */
	bool relative;    /* \ir: relative to the including file's folder */
} sqlfile_include;

/* Blank out, in place, what psql reads but PostgreSQL never sees: meta
 * commands (\connect, \set, \restrict, ... to the end of their line) and the
 * data lines of COPY ... FROM stdin up to "\.".  Newlines stay, so offsets
 * and line numbers still match the file.  The includes among the meta
 * commands go to *includes (malloc'd, in file order; free with
 * sqlfile_includes_free), when includes is not NULL. */
void sqlfile_strip_psql(char *text, sqlfile_include **includes, int *nincludes);
void sqlfile_includes_free(sqlfile_include *includes, int n);

/* \i, \include, \ir, \include_relative at s: 1 plain, 2 relative, 0 none;
 * *word: the command's length. */
int sqlfile_include_kind(const char *s, size_t *word);

/* Whether the statement from `start` to the ';' at `end` is a COPY ...
 * FROM STDIN, whose data lines psql sends after it. */
bool sqlfile_copy_from_stdin(const char *text, size_t start, size_t end);
/* Where such a COPY's data ends (past the "\\." line, or at the text's
 * end), its ';' at `semicolon`; *data: where the data starts (the end of
 * the statement's line). */
size_t sqlfile_copy_data(const char *text, size_t semicolon, size_t *data);

/* Split plain SQL at the semicolons outside quotes, comments and dollar
 * quotes: *starts and *ends (malloc'd, the caller frees both) get each
 * statement's offsets, the ';' excluded; blank pieces are left out.
 * Returns the count, or -1 when out of memory.  A BEGIN ATOMIC body holds
 * semicolons: the caller joins pieces that only parse together. */
int sqlfile_split(int **starts, int **ends, const char *text);

/* Long dollar-quoted literals (function bodies) cut out of the text handed
 * to the parser: its JSON then holds a short marker instead of every body,
 * which makes parsing a big dump several times faster.  The text keeps
 * everything else byte for byte; offsets map back to the original. */
#define SQLFILE_MARK '\x01'

typedef struct sqlfile_literal {
	int old_start, old_end;         /* the literal in the original, tags included */
	int content_start, content_end; /* its content in the original */
	int new_start, new_end;         /* the marker literal in the shrunk text */
} sqlfile_literal;

typedef struct sqlfile_shrunk {
	char *text;                     /* malloc'd */
	sqlfile_literal *lits;
	int n;
} sqlfile_shrunk;

int sqlfile_shrink(sqlfile_shrunk *out, const char *text);
/* An offset in the shrunk text as an offset in the original. */
int sqlfile_original_offset(const sqlfile_shrunk *sh, int offset);
/* The literal a string value stands for, or -1 when it is no marker. */
int sqlfile_marker(const sqlfile_shrunk *sh, const char *value);
void sqlfile_shrunk_free(sqlfile_shrunk *sh);

#endif
