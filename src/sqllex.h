/*
 * sqllex.h - the few lexical rules of PostgreSQL's SQL (shared by PL/pgSQL)
 * that cgmap needs outside a parser: where a comment, a quoted string, a
 * quoted identifier or a dollar-quoted text ends.  Used to split SQL files,
 * to hash bodies blind to layout, and to rewrite PL/pgSQL bodies without
 * touching what is inside quotes.  Pure functions over NUL-terminated text.
 */
#ifndef CGMAP_SQLLEX_H
#define CGMAP_SQLLEX_H

#include <stdbool.h>
#include <stddef.h>

/* A byte that may continue an identifier ($ included, as PostgreSQL). */
static inline bool cgm_sql_ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

/* The out-of-line halves of the two below, for a position where a comment
 * or quoted text may start. */
size_t cgm_sql_skip_comment_from(const char *s, size_t i);
size_t cgm_sql_skip_opaque_from(const char *s, size_t i);

/* Index just past the comment (-- to end of line, nested slash-star)
 * starting at s[i]; i when none starts there.  Inline: callers test every
 * byte of a body, and almost none starts a comment. */
static inline size_t cgm_sql_skip_comment(const char *s, size_t i)
{
	if ((s[i] == '-' && s[i + 1] == '-') || (s[i] == '/' && s[i + 1] == '*'))
		return cgm_sql_skip_comment_from(s, i);
	return i;
}

/* Index just past the comment, '...' string (E'...' with backslash
 * escapes), "..." identifier or $tag$...$tag$ text starting at s[i]; i when
 * none starts there.  Unterminated: the end of s. */
static inline size_t cgm_sql_skip_opaque(const char *s, size_t i)
{
	char c = s[i];
	if (c != '-' && c != '/' && c != '\'' && c != '"' && c != '$')
		return i;
	return cgm_sql_skip_opaque_from(s, i);
}

/* A dollar-quote tag ($cgmap$, $cgmap0$, ...) that does not occur in
 * body, for wrapping it in a statement (tag: at least 24 bytes). */
void cgm_sql_dollar_tag(char *tag, size_t len, const char *body);

#endif
