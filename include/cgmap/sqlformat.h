/*
 * cgmap/sqlformat.h - PostgreSQL's format(), quote_ident() and
 * quote_literal(), evaluated before run time over the arguments a call
 * site spells as constants.
 *
 * In:  the template and its arguments, each a constant text, a NULL, or
 *      a value known only at run time.
 * Out: the text appended to a cgm_strbuf the caller owns and frees.
 */
#ifndef CGMAP_SQLFORMAT_H
#define CGMAP_SQLFORMAT_H

#include "cgmap/strbuf.h"

#include <stdbool.h>

typedef enum cgm_format_arg_kind {
	CGM_FORMAT_ARG_RUNTIME, /* known only when the statement runs */
	CGM_FORMAT_ARG_NULL,
	CGM_FORMAT_ARG_TEXT,
} cgm_format_arg_kind;

typedef struct cgm_format_arg {
	cgm_format_arg_kind kind;
	const char *text; /* CGM_FORMAT_ARG_TEXT: the value as text */
} cgm_format_arg;

/* What a run-time value becomes in the output. */
typedef struct cgm_format_unknown {
	char mark;           /* %I and %s: appended as one char; 0: give up */
	const char *literal; /* %L: appended as is (a literal that stands for any value) */
} cgm_format_unknown;

typedef enum cgm_format_result {
	CGM_FORMAT_KNOWN = 0,    /* every value was known: out is what format() returns */
	CGM_FORMAT_MARKED = 1,   /* some values are marks or stand-in literals */
	CGM_FORMAT_RUNTIME = 2,  /* an identifier or text is known only at run time
				    and unknown->mark is 0: out is incomplete */
	CGM_FORMAT_FAILS = -1,   /* format() raises an error for these arguments
				    (too few, %I of NULL, a bad specifier) */
} cgm_format_result;

/* format(tmpl, args...) into out, as PostgreSQL 15's text_format() does:
 * %[argpos$][-][width|*[argpos$]]{s,I,L} and %%. */
cgm_format_result cgm_sql_format(cgm_strbuf *out, const char *tmpl, const cgm_format_arg *args,
				 int nargs, const cgm_format_unknown *unknown);

/* quote_ident(s): s itself when it is a plain lower-case name that is not
 * a keyword PostgreSQL reserves in any way, else double-quoted. */
void cgm_sql_quote_ident(cgm_strbuf *out, const char *s);
/* quote_literal(s): single-quoted, E'' when s holds a backslash. */
void cgm_sql_quote_literal(cgm_strbuf *out, const char *s);

/* The text function `name` of the constant texts args[0..nargs-1], as
 * PostgreSQL computes it, appended to out: upper, lower, quote_ident,
 * quote_literal, quote_nullable of one text, replace(s, from, to) of three
 * (every occurrence of `from`, left to right and not overlapping; s itself
 * when `from` is empty).  False, out untouched, for another name or
 * count, or for upper() and lower() of non-ASCII text, which the
 * database's collation decides. */
bool cgm_sql_text_function(cgm_strbuf *out, const char *name, const char *const *args, int nargs);

#endif
