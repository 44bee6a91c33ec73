/*
 * litnames.c - the calls a function body names in its string literals:
 * SQL text it builds, to run later or to hand to someone else.
 *
 * In:  a body's text (PL/pgSQL or SQL, as prosrc holds it).
 * Out: for each `name(` or `schema.name(` inside a string literal ('...',
 *      E'...', $tag$...$tag$; comments and quoted identifiers outside
 *      literals skipped), a call of `found` with the names folded as
 *      PostgreSQL folds unquoted identifiers (a quoted one as written),
 *      in NUL-terminated buffers that live for the call only.  Nothing is
 *      allocated.
 *
 * Why: code that generates SQL names the functions that SQL will call in
 * pieces of text no parse can put together: E-Maj's script generators
 * write `' || emaj._quote_nullable(o.' || quote_ident(attname) || ...`,
 * and the function is only ever called by the scripts they write.  Such a
 * function is no dead code (src/verdict.c: dynamic-reachable).
 */
#include "litnames.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* Bytes of a name kept: PostgreSQL's NAMEDATALEN - 1 is 63; longer names
 * are truncated by the server, never matched here. */
#define NAME_MAX_BYTES 64

static bool ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c >= 0x80;
}

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* One name at p in [p, end): folded into out; its end, or NULL when p
 * starts none (or it is too long to be a name). */
static const char *read_name(const char *p, const char *end, char *out)
{
	size_t n = 0;
	if (p < end && *p == '"') {
		for (p++; p < end; p++) {
			if (*p == '"') {
				if (p + 1 < end && p[1] == '"') {
					p++;
				} else {
					break;
				}
			}
			if (n + 1 >= NAME_MAX_BYTES)
				return NULL;
			out[n++] = *p;
		}
		if (p >= end || n == 0)
			return NULL;
		out[n] = '\0';
		return p + 1;
	}
	if (p >= end || !ident_start((unsigned char)*p))
		return NULL;
	for (; p < end && ident_char((unsigned char)*p); p++) {
		if (n + 1 >= NAME_MAX_BYTES)
			return NULL;
		out[n++] = (char)tolower((unsigned char)*p);
	}
	out[n] = '\0';
	return p;
}

/* The calls named in the text [p, end) of one literal. */
static void scan_literal(const char *p, const char *end, cgm_literal_call_fn found, void *ctx)
{
	/* The last two names of a dotted run: schema.name(, or a.b.name( */
	char names[2][NAME_MAX_BYTES];
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (!(ident_start(c) || c == '"')) {
			p++;
			continue;
		}
		int count = 0;
		const char *q = p;
		for (;;) {
			const char *next = read_name(q, end, names[count % 2]);
			if (!next)
				break;
			count++;
			q = next;
			if (q < end && *q == '.') {
				q++;
				continue;
			}
			break;
		}
		if (count == 0) {
			/* too long or unterminated: step over the word */
			for (p++; p < end && ident_char((unsigned char)*p); p++)
				;
			continue;
		}
		const char *paren = q;
		while (paren < end && isspace((unsigned char)*paren))
			paren++;
		if (paren < end && *paren == '(')
			found(ctx, count >= 2 ? names[(count - 2) % 2] : NULL, names[(count - 1) % 2]);
		p = q;
	}
}

/* The end of a dollar quote's opening tag at p ('$'), or NULL when p
 * opens none: $$ or $tag$ with a tag that starts as a name. */
static const char *dollar_tag_end(const char *p, const char *end)
{
	const char *q = p + 1;
	if (q < end && *q == '$')
		return q + 1;
	if (q >= end || !(isalpha((unsigned char)*q) || *q == '_' || (unsigned char)*q >= 0x80))
		return NULL;
	while (q < end && (isalnum((unsigned char)*q) || *q == '_' || (unsigned char)*q >= 0x80))
		q++;
	return q < end && *q == '$' ? q + 1 : NULL;
}

void cgm_literal_calls(const char *body, cgm_literal_call_fn found, void *ctx)
{
	if (!body || !found)
		return;
	const char *p = body, *end = body + strlen(body);
	while (p < end) {
		if (p[0] == '-' && p + 1 < end && p[1] == '-') {
			while (p < end && *p != '\n')
				p++;
		} else if (p[0] == '/' && p + 1 < end && p[1] == '*') {
			int depth = 0;
			while (p < end) {
				if (p[0] == '/' && p + 1 < end && p[1] == '*') {
					depth++;
					p += 2;
				} else if (p[0] == '*' && p + 1 < end && p[1] == '/') {
					p += 2;
					if (--depth == 0)
						break;
				} else {
					p++;
				}
			}
		} else if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				;
			p++;
		} else if (*p == '\'' || ((*p == 'E' || *p == 'e') && p + 1 < end && p[1] == '\'' &&
					  (p == body || !ident_char((unsigned char)p[-1])))) {
			bool escapes = *p != '\'';
			p += escapes ? 2 : 1;
			const char *start = p;
			while (p < end) {
				if (escapes && *p == '\\' && p + 1 < end) {
					p += 2;
				} else if (*p == '\'' && p + 1 < end && p[1] == '\'') {
					p += 2;
				} else if (*p == '\'') {
					break;
				} else {
					p++;
				}
			}
			scan_literal(start, p, found, ctx);
			p++;
		} else if (*p == '$' && (p == body || !ident_char((unsigned char)p[-1]))) {
			const char *open_end = dollar_tag_end(p, end);
			if (!open_end) {
				p++;
				continue;
			}
			size_t tag_len = (size_t)(open_end - p);
			const char *close = open_end;
			while (close < end && !(*close == '$' && (size_t)(end - close) >= tag_len &&
						 memcmp(close, p, tag_len) == 0))
				close++;
			scan_literal(open_end, close, found, ctx);
			p = close < end ? close + tag_len : end;
		} else if (ident_start((unsigned char)*p)) {
			while (p < end && ident_char((unsigned char)*p))
				p++;
		} else {
			p++;
		}
	}
}
