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
bool cgm_sql_ident_char(unsigned char c);
/* Index just past the comment (-- to end of line, nested slash-star)
 * starting at s[i]; i when none starts there. */
size_t cgm_sql_skip_comment(const char *s, size_t i);
/* Index just past the comment, '...' string (E'...' with backslash
 * escapes), "..." identifier or $tag$...$tag$ text starting at s[i]; i when
 * none starts there.  Unterminated: the end of s. */
size_t cgm_sql_skip_opaque(const char *s, size_t i);

#endif
