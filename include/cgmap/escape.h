/*
 * cgmap/escape.h - escaping text for each medium a user sees it in.
 *
 * In: any bytes (names and sources may hold quotes, backslashes, '<', control
 * characters and non-ASCII).  Out: appended to a caller-owned cgm_strbuf.
 * Invalid UTF-8 is replaced by U+FFFD so every output stays valid.
 */
#ifndef CGMAP_ESCAPE_H
#define CGMAP_ESCAPE_H

#include "cgmap/strbuf.h"

/* Inside a DOT double-quoted string (without the quotes). */
void cgm_escape_dot(cgm_strbuf *out, const char *s);
/* HTML text or attribute value (&, <, >, ", '). */
void cgm_escape_html(cgm_strbuf *out, const char *s);
/* Inside a JSON string (without the quotes). */
void cgm_escape_json(cgm_strbuf *out, const char *s);
/* Markdown table cell / inline text (|, `, *, _, <, [ ...). */
void cgm_escape_markdown(cgm_strbuf *out, const char *s);
/* A file name made from a function id: [A-Za-z0-9._-] kept, everything
 * else hex-encoded, plus a short hash so distinct ids never collide. */
void cgm_escape_filename(cgm_strbuf *out, const char *s);

#endif
