/*
 * cgmap/escape.h - escaping text for each medium a user sees it in.
 *
 * In: any bytes (names and sources may hold quotes, backslashes, '<', control
 * characters and non-ASCII).  Out: appended to a caller-owned cgm_strbuf.
 * Every output stays valid UTF-8.  Controls (C0, DEL, C1), bidi controls
 * and invalid bytes are shown visibly escaped in every medium a person
 * reads (text, HTML, Markdown, DOT), never passed raw; JSON replaces an
 * invalid byte by U+FFFD.
 */
#ifndef CGMAP_ESCAPE_H
#define CGMAP_ESCAPE_H

#include <stdbool.h>

#include "cgmap/strbuf.h"

/* A DOT label or tooltip: inside a double-quoted string (without the
 * quotes); TAB shows as a space, CR is dropped. */
void cgm_escape_dot(cgm_strbuf *out, const char *s);
/* A DOT node or cluster name (inside the quotes): injective, so two
 * different names never become one node. */
void cgm_escape_dot_id(cgm_strbuf *out, const char *s);
/* HTML text or attribute value (&, <, >, ", '). */
void cgm_escape_html(cgm_strbuf *out, const char *s);
/* HTML element content, never an attribute value: as cgm_escape_html but
 * for the quotes, written as they are (a source view's many string
 * literals). */
void cgm_escape_html_content(cgm_strbuf *out, const char *s);
/* Inside a JSON string (without the quotes). */
void cgm_escape_json(cgm_strbuf *out, const char *s);
/* Inside a JSON string whose text a page shows as it is: controls, bidi
 * controls and invalid bytes made visible as cgm_escape_html shows them. */
void cgm_escape_json_visible(cgm_strbuf *out, const char *s);
/* Markdown table cell / inline text (|, `, *, _, <, [ ...). */
void cgm_escape_markdown(cgm_strbuf *out, const char *s);
/* Markdown inline code (`s`); escaped text instead where a code span
 * cannot hold s: a backquote or | (ids rarely hold one), or a control, bidi
 * control or bad byte, which code would show raw. */
void cgm_escape_markdown_code(cgm_strbuf *out, const char *s);
/* Plain text for a terminal (text reports, the text diff): controls as
 * \t \n \r \xXX, C1 and bidi controls as \uXXXX, invalid bytes as \xXX. */
void cgm_escape_text(cgm_strbuf *out, const char *s);
/* True when s holds nothing the escapers above would show escaped besides
 * ordinary punctuation: no control, bidi control or invalid byte. */
bool cgm_escape_is_plain(const char *s);
/* A file name made from a function id: its part before the argument list
 * with [A-Za-z0-9._-] kept and everything else hex-encoded, then 8 hex
 * digits of a hash of the whole id, so overloads and names differing in
 * case get names of their own.  Two ids may still share one (a 32-bit
 * hash): whoever names a set of files checks, and names those that collide
 * with cgm_escape_filename_wide (16 digits, the whole 64-bit hash). */
void cgm_escape_filename(cgm_strbuf *out, const char *s);
void cgm_escape_filename_wide(cgm_strbuf *out, const char *s);

#endif
