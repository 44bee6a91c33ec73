/*
 * jsontok.h - reading libpg_query's JSON output in place, over jsmn tokens.
 *
 * In:  a JSON text (owned by the caller, alive while the doc is used).
 * Out: a token array (heap, reused between documents by the same jt_doc;
 *      jt_doc_free releases it) and helpers to walk objects and arrays by
 *      token index.  Strings are compared in place and copied, unescaped,
 *      only when kept.
 *
 * Why not a DOM library: extraction reads a small part of every parse tree
 * of every function, and building jansson trees cost more than parsing the
 * SQL itself; jsmn tokenizes without allocating anything per value.
 */
#ifndef CGMAP_JSONTOK_H
#define CGMAP_JSONTOK_H

#include <stdbool.h>
#include <stddef.h>

#include "cgmap/arena.h"

typedef struct jt_token {
	int type;  /* JT_* */
	int start; /* byte offsets into text: strings without their quotes */
	int end;
	int size;  /* children: object keys, array elements; 1 for a key */
	int parent;/* index of the enclosing token, -1 at the top */
} jt_token;

enum { JT_UNDEFINED = 0, JT_OBJECT = 1, JT_ARRAY = 2, JT_STRING = 3, JT_PRIMITIVE = 4 };

typedef struct jt_doc {
	const char *text;
	jt_token *tokens;
	int *after; /* with skip_index: the token after each whole value */
	int count;
	int cap;
	/* Set before jt_parse when the tree is walked key by key: jt_skip is
	 * then O(1), for 4 bytes per token (readers that build a tree in one
	 * pass leave it off). */
	bool skip_index;
	/* Set before jt_parse: JSON nesting deeper than this is refused before
	 * jsmn sees it (0: CGM_MAX_JSON_NESTING).  jsmn closes a bracket by
	 * walking up from the last token, time quadratic in the depth (52 s
	 * for 200 KB of '['), and every reader of the tree recurses. */
	int max_depth;
	/* After jt_parse: the offset of the bracket past max_depth, or -1. */
	long too_deep_at;
} jt_doc;

/* Tokenize text; false when it is not valid JSON or nests deeper than
 * doc->max_depth (then doc->too_deep_at says where).  The doc may be
 * reused. */
bool jt_parse(jt_doc *doc, const char *text, size_t len);
void jt_doc_free(jt_doc *doc);

/* Index of the token after the whole value at i. */
int jt_skip(const jt_doc *doc, int i);
/* Value of `key` in the object at i, or -1. */
int jt_get(const jt_doc *doc, int i, const char *key);
/* The n-th element of the array at i, or -1. */
int jt_elem(const jt_doc *doc, int i, int n);
/* Is token i the string `s`? */
bool jt_eq(const jt_doc *doc, int i, const char *s);
/* Integer of a primitive token (dflt when not a number or i < 0). */
long jt_long(const jt_doc *doc, int i, long dflt);
bool jt_true(const jt_doc *doc, int i);
/* Unescaped copy of a string token into the arena (NULL when i < 0 or not
 * a string). */
char *jt_strdup(const jt_doc *doc, int i, cgm_arena *arena);
/* Same, on the heap (caller frees). */
char *jt_strdup_heap(const jt_doc *doc, int i);

/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 when s does not
 * start one (overlong forms, surrogates and code points past U+10FFFF are
 * not valid).  Reads no further than the first byte that breaks the
 * sequence, so a NUL or a quote after s ends the read. */
static inline size_t jt_utf8_length(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len;
	unsigned min, value;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, min = 0x80, value = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, min = 0x800, value = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, min = 0x10000, value = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		value = (value << 6) | (s[i] & 0x3F);
	}
	if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
		return 0;
	return len;
}

/* Strict unescaping, for readers that must take exactly what jansson takes:
 * the text of string token i, unescaped, written to dst and NUL-terminated;
 * returns its length, or -1 when the string holds what jansson rejects and
 * jsmn lets through (a raw control character, invalid UTF-8, \u0000, a
 * lone surrogate); dst is then left half-written.  dst may be the token's
 * own text (the caller owns the buffer): the result is never longer. */
long jt_unescape_strict(const jt_doc *doc, int i, char *dst);

/* Code point cp in UTF-8 at dst; the number of bytes written (1 to 4). */
size_t jt_encode_utf8(char *dst, unsigned cp);
/* The four hex digits at s into *out: 0, or -1 when one is not a digit. */
int jt_hex4(const char *s, unsigned *out);

#endif
