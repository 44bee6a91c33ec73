/*
 * sqlvars.h - psql's variables in SQL files: `\set NAME VALUE`, `\unset
 * NAME`, `--set NAME=VALUE` on cgmap's command line (psql's -v), and their
 * use in the SQL that follows as psql substitutes them: :NAME as written,
 * :'NAME' as a quoted literal, :"NAME" as a quoted identifier, :{?NAME} as
 * TRUE or FALSE; and psql's conditionals, \if, \elif, \else, \endif, on
 * those values: a branch that does not run becomes blank lines.
 *
 * In:  a file's text and the session's variables.  Out: the text with the
 *      variables substituted (malloc'd, the caller frees it), or NULL when
 *      nothing in it changes; the variables as the file leaves them.
 *
 * As psql: nothing is substituted inside quoted literals, quoted
 * identifiers, dollar quotes or comments, nor in COPY's data lines; `::` is
 * a cast; a variable that is not set is left as written.  Values and what
 * they add to a file are bounded (cgmap/limits.h): past that, a variable
 * is unset, or a reference stays as written.  A value psql
 * would take from a shell command (backquotes) is not known here: the
 * variable is left unset, so what uses it stays as written.
 */
#ifndef CGMAP_SQLVARS_H
#define CGMAP_SQLVARS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cgm_psql_vars {
	char **names; /* malloc'd, as the values */
	char **values;
	int n, cap;
} cgm_psql_vars;

/* Sets `name` (name_len bytes) to value; value NULL unsets it. */
void cgm_psql_vars_set(cgm_psql_vars *vars, const char *name, size_t name_len, const char *value);
/* The value of `name` (name_len bytes), or NULL when it is not set. */
const char *cgm_psql_vars_get(const cgm_psql_vars *vars, const char *name, size_t name_len);
void cgm_psql_vars_copy(cgm_psql_vars *to, const cgm_psql_vars *from);
void cgm_psql_vars_free(cgm_psql_vars *vars);

/* "NAME=VALUE" (cgmap's --set) into vars (NULL: only checked): 0, or
 * CGM_EUSAGE naming it. */
int cgm_psql_vars_assign(cgm_psql_vars *vars, const char *assignment);

/* The bytes at s that make a variable's name (0: none). */
size_t cgm_psql_name_length(const char *s);

/* Whether c may be part of a variable's name (letters, digits, '_', and
 * bytes past ASCII, as psql). */
static inline bool cgm_psql_var_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

/* The variables as they stood at each include (\i, \ir, ...) of a text:
 * what the included file starts with.  offsets[k] is where the include's
 * backslash stands in the substituted text. */
typedef struct cgm_psql_marks {
	size_t *offsets;
	cgm_psql_vars *vars;
	int n, cap;
} cgm_psql_marks;
void cgm_psql_marks_free(cgm_psql_marks *marks);
/* The variables at the include at `offset`, or NULL. */
const cgm_psql_vars *cgm_psql_marks_at(const cgm_psql_marks *marks, size_t offset);

/* The text with the variables substituted, the \set and \unset lines
 * applied to vars as they come (the lines themselves stay, for the psql
 * stripping that follows); NULL when the text is the same.  With marks
 * (may be NULL), the variables at each include are kept there. */
char *cgm_psql_substitute(const char *text, cgm_psql_vars *vars, cgm_psql_marks *marks);

#endif
