/*
 * extscript.h - internal to the SQL-file source (sqlfile_read.c): an
 * extension's script read as CREATE EXTENSION runs it (extscript.c).
 */
#ifndef CGMAP_EXTSCRIPT_H
#define CGMAP_EXTSCRIPT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `path` is an extension script (NAME--VERSION.sql or
 * NAME--FROM--TO.sql, with a readable NAME.control in its folder or the one
 * above), or a piece of one (any other name, its `text` holding
 * @extschema@, with one control file in its folder or up to three above),
 * and the schema it installs into (the control file's `schema`, else
 * "public") into schema (n bytes).  Standard input ("-") never is. */
bool extscript_target(const char *path, const char *text, char *schema, size_t n);

/* *text (malloc'd, *len bytes, NUL-terminated) as PostgreSQL runs it in
 * `schema`: @extschema@ and @extowner@ replaced, and for a schema other than
 * public that schema made and put first in the search_path on line 1.  The
 * buffer may be replaced; it stays the caller's. */
void extscript_prepare(char **text, size_t *len, const char *schema);

#endif
