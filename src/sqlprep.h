/*
 * sqlprep.h - SQL text made ready for libpg_query, and refused when it
 * would take libpg_query too long or too deep.
 *
 * In:  NUL-terminated SQL text (a file with its function bodies cut out, a
 *      function body, one statement).
 * Out: cgm_sql_blank_continuations changes the caller's text in place;
 *      cgm_sql_check only reads it and fills a problem struct the caller
 *      owns.  Nothing is allocated that outlives a call.
 *
 * Why:
 *  - PostgreSQL joins 'a' -- comment <newline> 'b' into one string;
 *    libpg_query 15's scanner calls the second literal a syntax error, which
 *    dropped whole functions.  The comments in such a gap are blanked
 *    (newlines and offsets stay), so both read the same string.
 *  - PostgreSQL's lexer rescans a run of operator characters for each
 *    token it cuts from it: 32,000 nested slash-stars took 8 s.  Comment
 *    nesting and such runs are capped (cgmap/limits.h) before any text
 *    reaches the lexer.
 *  - libpg_query prints parse trees as JSON by recursing without a limit,
 *    so a statement like SELECT 1+1+...+1 (200,000 terms) overflowed the
 *    stack there.  The depth of a statement's tree is bounded from its text
 *    (every word and operator character chained without a comma, semicolon
 *    or bracket between them may add a level; brackets and CASE ... END
 *    add theirs) and a statement over CGM_MAX_NESTING_ESTIMATE is refused
 *    before it is printed.
 */
#ifndef CGMAP_SQLPREP_H
#define CGMAP_SQLPREP_H

#include <stdbool.h>

/* Blank, in place, the -- comments standing between two parts of one
 * string literal continued on a new line (PostgreSQL's quotecontinue
 * rule): their bytes become spaces, newlines stay. */
void cgm_sql_blank_continuations(char *text);

enum {
	CGM_SQL_CHECK_LEXER = 1, /* comment nesting, operator-character runs */
	CGM_SQL_CHECK_DEPTH = 2  /* the estimated depth of each statement's tree */
};

typedef struct cgm_sql_problem {
	int offset;         /* where in the text the limit was passed */
	char message[96];   /* lower case, names the limit */
} cgm_sql_problem;

/* Whether `text` is within the limits asked for (CGM_SQL_CHECK_* bits);
 * false with *problem filled when it is not. */
bool cgm_sql_check(const char *text, unsigned what, cgm_sql_problem *problem);

#endif
