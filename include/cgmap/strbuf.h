/*
 * cgmap/strbuf.h - growable text buffer on the heap (owner frees with
 * cgm_strbuf_free), used by emitters and by the extraction rewriting.
 */
#ifndef CGMAP_STRBUF_H
#define CGMAP_STRBUF_H

#include <stddef.h>

typedef struct cgm_strbuf {
	char *data;   /* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
} cgm_strbuf;

#define CGM_STRBUF_INIT { NULL, 0, 0 }

void cgm_strbuf_add(cgm_strbuf *buf, const char *s, size_t n);
void cgm_strbuf_puts(cgm_strbuf *buf, const char *s);
void cgm_strbuf_putc(cgm_strbuf *buf, char c);
/* v in decimal, as printf's %lld writes it, ending just before `end`
 * (room for CGM_DECIMAL_MAX bytes before it); returns where it starts. */
#define CGM_DECIMAL_MAX 24
static inline char *cgm_decimal(char *end, long long v)
{
	char *p = end;
	/* Negated as unsigned: LLONG_MIN has no positive counterpart. */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return p;
}
/* v in decimal (cgm_decimal): pages write a few hundred numbers each, and
 * printf's parsing of its format was a fifth of a site's render. */
void cgm_strbuf_add_int(cgm_strbuf *buf, long long v);
void cgm_strbuf_printf(cgm_strbuf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cgm_strbuf_reset(cgm_strbuf *buf);
void cgm_strbuf_free(cgm_strbuf *buf);
/* The contents ("" when empty); stays owned by buf. */
const char *cgm_strbuf_cstr(cgm_strbuf *buf);

#endif
