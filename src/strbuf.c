/*
 * strbuf.c - growable heap text buffer (see cgmap/strbuf.h).
 * The caller owns the buffer and frees it with cgm_strbuf_free().
 */
#include "cgmap/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strbuf_reserve(cgm_strbuf *buf, size_t extra)
{
	if (buf->len + extra + 1 <= buf->cap)
		return;
	size_t cap = buf->cap ? buf->cap : 256;
	while (cap < buf->len + extra + 1)
		cap *= 2;
	char *p = realloc(buf->data, cap);
	if (!p) {
		fprintf(stderr, "cgmap: out of memory (%zu bytes)\n", cap);
		abort();
	}
	buf->data = p;
	buf->cap = cap;
}

void cgm_strbuf_add(cgm_strbuf *buf, const char *s, size_t n)
{
	strbuf_reserve(buf, n);
	memcpy(buf->data + buf->len, s, n);
	buf->len += n;
	buf->data[buf->len] = '\0';
}

void cgm_strbuf_puts(cgm_strbuf *buf, const char *s)
{
	cgm_strbuf_add(buf, s, strlen(s));
}

void cgm_strbuf_putc(cgm_strbuf *buf, char c)
{
	cgm_strbuf_add(buf, &c, 1);
}

void cgm_strbuf_add_int(cgm_strbuf *buf, long long v)
{
	char digits[CGM_DECIMAL_MAX];
	char *end = digits + sizeof(digits), *p = cgm_decimal(end, v);
	cgm_strbuf_add(buf, p, (size_t)(end - p));
}

void cgm_strbuf_printf(cgm_strbuf *buf, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	/* Written straight into the room left; formatted a second time only
	 * when it does not fit (most calls are short: one pass, not two). */
	size_t room = buf->cap - buf->len;
	int n = vsnprintf(buf->cap ? buf->data + buf->len : NULL, buf->cap ? room : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (buf->data)
			buf->data[buf->len] = '\0';
		va_end(ap2);
		return;
	}
	if (!buf->cap || (size_t)n >= room) {
		strbuf_reserve(buf, (size_t)n);
		vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap2);
	}
	va_end(ap2);
	buf->len += (size_t)n;
}

void cgm_strbuf_reset(cgm_strbuf *buf)
{
	buf->len = 0;
	if (buf->data)
		buf->data[0] = '\0';
}

void cgm_strbuf_free(cgm_strbuf *buf)
{
	free(buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}

const char *cgm_strbuf_cstr(cgm_strbuf *buf)
{
	return buf->data ? buf->data : "";
}
