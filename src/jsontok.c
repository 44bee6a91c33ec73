/*
 * jsontok.c - libpg_query JSON over jsmn tokens (see jsontok.h).
 */
#include "jsontok.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/limits.h"
#include "cgmap/strbuf.h"

#define JSMN_STATIC
#define JSMN_STRICT
/* Parent links make closing a value O(1): without them jsmn walks back over
 * every token of the value, which dominated on large parse trees. */
#define JSMN_PARENT_LINKS
#include <jsmn.h>

_Static_assert(sizeof(jt_token) == sizeof(jsmntok_t), "jt_token mirrors jsmntok_t");

/* The offset of the first bracket nesting deeper than max, or -1: one
 * pass, strings skipped. */
static long deeper_than(const char *text, size_t len, int max)
{
	int depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				return (long)i;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return -1;
}

bool jt_parse(jt_doc *doc, const char *text, size_t len)
{
	doc->text = text;
	doc->too_deep_at = deeper_than(text, len, doc->max_depth > 0 ? doc->max_depth : CGM_MAX_JSON_NESTING);
	if (doc->too_deep_at >= 0) {
		doc->count = 0;
		return false;
	}
	/* Every token takes at least two bytes of text ("" or 1,), so this many
	 * always suffice. */
	int need = (int)(len / 2) + 8;
	if (need > doc->cap) {
		free(doc->tokens);
		free(doc->after);
		doc->tokens = malloc(sizeof(jt_token) * (size_t)need);
		doc->after = doc->skip_index ? malloc(sizeof(int) * (size_t)need) : NULL;
		doc->cap = doc->tokens && (doc->after || !doc->skip_index) ? need : 0;
		if (!doc->cap)
			return false;
	}
	jsmn_parser parser;
	jsmn_init(&parser);
	int n = jsmn_parse(&parser, text, len, (jsmntok_t *)doc->tokens, (unsigned)doc->cap);
	doc->count = n > 0 ? n : 0;
	/* Where each value ends, children first: walking a tree asks for the
	 * next key at every step, and counting through the value each time
	 * made that quadratic in the depth. */
	for (int i = doc->after ? doc->count - 1 : -1; i >= 0; i--) {
		const jt_token *t = &doc->tokens[i];
		int next = i + 1;
		if (t->type == JT_OBJECT) {
			/* A key's string token has size 1 but ends at itself: its
			 * value is skipped as a sibling. */
			for (int k = 0; k < t->size && next < doc->count; k++) {
				next = next + 1;
				if (next < doc->count)
					next = doc->after[next];
			}
		} else if (t->type == JT_ARRAY) {
			for (int k = 0; k < t->size && next < doc->count; k++)
				next = doc->after[next];
		}
		doc->after[i] = next < doc->count ? next : doc->count;
	}
	return n > 0;
}

void jt_doc_free(jt_doc *doc)
{
	free(doc->tokens);
	free(doc->after);
	doc->tokens = NULL;
	doc->after = NULL;
	doc->count = doc->cap = 0;
}

int jt_skip(const jt_doc *doc, int i)
{
	if (doc->after)
		return i >= 0 && i < doc->count ? doc->after[i] : doc->count;
	/* Tokens come in document order: skipping a value means skipping its
	 * children, counted down as they are passed. */
	int pending = 1;
	while (pending > 0 && i < doc->count) {
		const jt_token *t = &doc->tokens[i];
		pending--;
		if (t->type == JT_OBJECT)
			pending += t->size * 2;
		else if (t->type == JT_ARRAY)
			pending += t->size;
		i++;
	}
	return i;
}

bool jt_eq(const jt_doc *doc, int i, const char *s)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_STRING)
		return false;
	size_t n = (size_t)(doc->tokens[i].end - doc->tokens[i].start);
	return strlen(s) == n && memcmp(doc->text + doc->tokens[i].start, s, n) == 0;
}

int jt_get(const jt_doc *doc, int i, const char *key)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_OBJECT)
		return -1;
	int nkeys = doc->tokens[i].size;
	int k = i + 1;
	for (int n = 0; n < nkeys && k < doc->count; n++) {
		if (jt_eq(doc, k, key))
			return k + 1;
		k = jt_skip(doc, k + 1);
	}
	return -1;
}

int jt_elem(const jt_doc *doc, int i, int n)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_ARRAY || n >= doc->tokens[i].size)
		return -1;
	int k = i + 1;
	for (int e = 0; e < n; e++)
		k = jt_skip(doc, k);
	return k;
}

long jt_long(const jt_doc *doc, int i, long dflt)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_PRIMITIVE)
		return dflt;
	const char *s = doc->text + doc->tokens[i].start;
	if (*s != '-' && (*s < '0' || *s > '9'))
		return dflt;
	return strtol(s, NULL, 10);
}

bool jt_true(const jt_doc *doc, int i)
{
	return i >= 0 && i < doc->count && doc->tokens[i].type == JT_PRIMITIVE &&
	       doc->text[doc->tokens[i].start] == 't';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t jt_encode_utf8(char *dst, unsigned cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xC0 | (cp >> 6));
		dst[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xE0 | (cp >> 12));
		dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		dst[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	dst[0] = (char)(0xF0 | (cp >> 18));
	dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	dst[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

static void put_utf8(cgm_strbuf *out, unsigned cp)
{
	char b[4];
	cgm_strbuf_add(out, b, jt_encode_utf8(b, cp));
}

int jt_hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		int h = hex_value(s[k]);
		if (h < 0)
			return -1;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return 0;
}

static unsigned read_hex4(const char *s)
{
	unsigned v;
	return jt_hex4(s, &v) < 0 ? 0xFFFD : v;
}

/* The unescaped text of string token i into out. */
static void unescape(const jt_doc *doc, int i, cgm_strbuf *out)
{
	const char *s = doc->text + doc->tokens[i].start;
	const char *end = doc->text + doc->tokens[i].end;
	while (s < end) {
		const char *bs = memchr(s, '\\', (size_t)(end - s));
		if (!bs) {
			cgm_strbuf_add(out, s, (size_t)(end - s));
			break;
		}
		cgm_strbuf_add(out, s, (size_t)(bs - s));
		s = bs + 1;
		if (s >= end)
			break;
		char c = *s++;
		switch (c) {
		case 'n': cgm_strbuf_putc(out, '\n'); break;
		case 't': cgm_strbuf_putc(out, '\t'); break;
		case 'r': cgm_strbuf_putc(out, '\r'); break;
		case 'b': cgm_strbuf_putc(out, '\b'); break;
		case 'f': cgm_strbuf_putc(out, '\f'); break;
		case 'u': {
			if (end - s < 4) {
				s = end;
				break;
			}
			unsigned cp = read_hex4(s);
			s += 4;
			/* A surrogate pair makes one code point. */
			if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
				unsigned lo = read_hex4(s + 2);
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					s += 6;
				}
			}
			put_utf8(out, cp);
			break;
		}
		default: cgm_strbuf_putc(out, c); break; /* \" \\ \/ */
		}
	}
}

char *jt_strdup_heap(const jt_doc *doc, int i)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_STRING)
		return NULL;
	cgm_strbuf out = CGM_STRBUF_INIT;
	unescape(doc, i, &out);
	if (!out.data)
		return strdup("");
	return out.data;
}

char *jt_strdup(const jt_doc *doc, int i, cgm_arena *arena)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_STRING)
		return NULL;
	const char *s = doc->text + doc->tokens[i].start;
	size_t n = (size_t)(doc->tokens[i].end - doc->tokens[i].start);
	if (!memchr(s, '\\', n))
		return cgm_arena_strndup(arena, s, n);
	cgm_strbuf out = CGM_STRBUF_INIT;
	unescape(doc, i, &out);
	char *copy = cgm_arena_strndup(arena, cgm_strbuf_cstr(&out), out.len);
	cgm_strbuf_free(&out);
	return copy;
}

long jt_unescape_strict(const jt_doc *doc, int i, char *dst)
{
	if (i < 0 || i >= doc->count || doc->tokens[i].type != JT_STRING)
		return -1;
	/* jsmn (strict) has checked the escapes' syntax: a known letter, or
	 * 'u' and four hex digits.  What is left is what it does not look at. */
	const unsigned char *s = (const unsigned char *)doc->text + doc->tokens[i].start;
	const unsigned char *end = (const unsigned char *)doc->text + doc->tokens[i].end;
	char *out = dst;
	if (out == (const char *)s) {
		/* In place: nothing to move until the first byte that is not
		 * plain ASCII. */
		while (s < end && *s >= 0x20 && *s < 0x80 && *s != '\\')
			s++;
		out = (char *)dst + (s - (const unsigned char *)dst);
	}
	while (s < end) {
		unsigned char c = *s;
		if (c >= 0x20 && c < 0x80 && c != '\\') {
			*out++ = (char)*s++;
			continue;
		}
		if (c < 0x20)
			return -1;
		if (c >= 0x80) {
			size_t n = jt_utf8_length(s);
			if (n == 0)
				return -1;
			while (n--)
				*out++ = (char)*s++;
			continue;
		}
		c = s[1];
		s += 2;
		if (c != 'u') {
			static const char plain[] = "\"\\/\b\f\n\r\t", escape[] = "\"\\/bfnrt";
			*out++ = plain[strchr(escape, c) - escape];
			continue;
		}
		unsigned cp = read_hex4((const char *)s);
		s += 4;
		if (cp >= 0xD800 && cp < 0xDC00) {
			/* A high surrogate takes a low one after it. */
			unsigned lo = end - s >= 6 && s[0] == '\\' && s[1] == 'u' ? read_hex4((const char *)s + 2) : 0;
			if (lo < 0xDC00 || lo >= 0xE000)
				return -1;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			s += 6;
		} else if (cp == 0 || (cp >= 0xDC00 && cp < 0xE000)) {
			return -1;
		}
		out += jt_encode_utf8(out, cp);
	}
	*out = '\0';
	return (long)(out - dst);
}
