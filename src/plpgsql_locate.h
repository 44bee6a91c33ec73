/*
 * plpgsql_locate.h - where a text PL/pgSQL's parser took from a body
 * stands in that body (see plpgsql_locate.c).
 */
#ifndef CGMAP_PLPGSQL_LOCATE_H
#define CGMAP_PLPGSQL_LOCATE_H

#include <stddef.h>

/* Offset in body of the first place at or after `from` where text stands,
 * read as PL/pgSQL reads a statement with INTO: the INTO clause blanked,
 * byte for byte; -1 when it stands nowhere. */
long cgm_plpgsql_locate(const char *body, long from, const char *text);

/* The length of the `"__Case__Variable_N__" IN (` PL/pgSQL put before the
 * values of a simple CASE's WHEN (text ends with the closing parenthesis),
 * 0 when text is not such a WHEN. */
size_t cgm_plpgsql_case_prefix(const char *text);

/* A `-- comment` that runs to the end of text (or, in a simple CASE's
 * WHEN, to its closing parenthesis), which libpg_query's PL/pgSQL parser
 * keeps without the newline that ended it, replaced in place by spaces:
 * offsets stay.  Nothing else changes. */
void cgm_plpgsql_blank_end_comment(char *text);

#endif
