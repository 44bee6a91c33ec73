/*
 * arraylit.c - an array constant as array_in reads it and array_out
 * prints it (see cgmap/arraylit.h), for the few element types whose
 * output cgmap knows.
 *
 * In: literal text, element type.  Out: the printed text in the caller's
 * arena, or NULL (keep the text as written).  Follows PostgreSQL 15's
 * arrayfuncs.c: ',' delimits (every type here), whitespace around an
 * element or brace is dropped, a backslash escapes the next character in
 * and out of double quotes, an unquoted NULL is the null element, the
 * sub-arrays of one level have the same length.
 */
#include "cgmap/arraylit.h"
#include "cgmap/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* PostgreSQL's MAXDIM: array_in refuses more dimensions. */
#define ARR_MAXDIM 6

enum elem_kind { ELEM_TEXT, ELEM_INT2, ELEM_INT4, ELEM_INT8, ELEM_BOOL };

/* array_isspace */
static bool arr_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The element's text as its type prints it; false when the type's input
 * function would refuse it. */
static bool elem_out(cgm_strbuf *out, enum elem_kind kind, const char *v)
{
	if (kind == ELEM_TEXT) {
		cgm_strbuf_puts(out, v);
		return true;
	}
	/* int2in/int4in/int8in and boolin skip surrounding whitespace */
	while (isspace((unsigned char)*v))
		v++;
	size_t n = strlen(v);
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	if (kind == ELEM_BOOL) {
		static const struct { const char *word; size_t min; bool value; } words[] = {
			{ "true", 1, true }, { "false", 1, false }, { "yes", 1, true },
			{ "no", 1, false }, { "on", 2, true }, { "off", 2, false },
			{ "1", 1, true }, { "0", 1, false },
		};
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
			if (n >= words[i].min && n <= strlen(words[i].word) &&
			    strncasecmp(v, words[i].word, n) == 0) {
				cgm_strbuf_putc(out, words[i].value ? 't' : 'f');
				return true;
			}
		return false;
	}
	char digits[32];
	size_t k = 0, i = 0;
	if (i < n && (v[i] == '+' || v[i] == '-')) {
		if (v[i] == '-')
			digits[k++] = '-';
		i++;
	}
	if (i >= n)
		return false;
	for (; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || k + 1 >= sizeof digits)
			return false;
		digits[k++] = v[i];
	}
	digits[k] = '\0';
	errno = 0;
	long long x = strtoll(digits, NULL, 10);
	if (errno == ERANGE)
		return false;
	if ((kind == ELEM_INT2 && (x < -32768 || x > 32767)) ||
	    (kind == ELEM_INT4 && (x < -2147483648LL || x > 2147483647LL)))
		return false;
	cgm_strbuf_add_int(out, x);
	return true;
}

/* array_out's quoting of one element's printed text. */
static void elem_quoted(cgm_strbuf *out, const char *v)
{
	bool quote = !*v || strcasecmp(v, "NULL") == 0;
	for (const char *p = v; *p && !quote; p++)
		quote = *p == '"' || *p == '\\' || *p == '{' || *p == '}' || *p == ',' ||
			arr_space(*p);
	if (!quote) {
		cgm_strbuf_puts(out, v);
		return;
	}
	cgm_strbuf_putc(out, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			cgm_strbuf_putc(out, '\\');
		cgm_strbuf_putc(out, *p);
	}
	cgm_strbuf_putc(out, '"');
}

typedef struct {
	const char *s;
	size_t i;
	enum elem_kind kind;
	int ndims;              /* fixed by the first element reached */
	int len[ARR_MAXDIM]; /* the length of each level, -1 until known */
	cgm_strbuf out, elem;
} arr_reader;

static void skip_space(arr_reader *r)
{
	while (arr_space(r->s[r->i]))
		r->i++;
}

/* One element at r->i, printed into r->out. */
static bool read_element(arr_reader *r)
{
	cgm_strbuf_reset(&r->elem);
	bool quoted = false, escaped = false;
	size_t keep = 0; /* the element's length up to its last significant character */
	if (r->s[r->i] == '"') {
		quoted = true;
		for (r->i++;; r->i++) {
			char c = r->s[r->i];
			if (!c)
				return false;
			if (c == '"')
				break;
			if (c == '\\') {
				c = r->s[++r->i];
				if (!c)
					return false;
			}
			cgm_strbuf_putc(&r->elem, c);
		}
		r->i++;
		skip_space(r);
		keep = r->elem.len;
	} else {
		for (;; r->i++) {
			char c = r->s[r->i];
			if (!c || c == '"' || c == '{')
				return false;
			if (c == ',' || c == '}')
				break;
			if (c == '\\') {
				c = r->s[++r->i];
				if (!c)
					return false;
				escaped = true;
				cgm_strbuf_putc(&r->elem, c);
				keep = r->elem.len;
				continue;
			}
			cgm_strbuf_putc(&r->elem, c);
			if (!arr_space(c))
				keep = r->elem.len;
		}
		if (keep == 0)
			return false; /* an empty unquoted element */
	}
	char c = r->s[r->i];
	if (c != ',' && c != '}')
		return false;
	const char *v = cgm_strbuf_cstr(&r->elem);
	cgm_strbuf elem_copy = CGM_STRBUF_INIT;
	cgm_strbuf_add(&elem_copy, v, keep);
	v = cgm_strbuf_cstr(&elem_copy);
	bool ok = true;
	if (!quoted && !escaped && strcasecmp(v, "NULL") == 0) {
		cgm_strbuf_puts(&r->out, "NULL");
	} else {
		cgm_strbuf printed = CGM_STRBUF_INIT;
		ok = elem_out(&printed, r->kind, v);
		if (ok)
			elem_quoted(&r->out, cgm_strbuf_cstr(&printed));
		cgm_strbuf_free(&printed);
	}
	cgm_strbuf_free(&elem_copy);
	return ok;
}

/* A '{...}' at r->i, level `dim` (0 the outermost). */
static bool read_level(arr_reader *r, int dim)
{
	if (dim >= ARR_MAXDIM || r->s[r->i] != '{')
		return false;
	r->i++;
	cgm_strbuf_putc(&r->out, '{');
	skip_space(r);
	int n = 0;
	if (r->s[r->i] == '}') {
		/* '{}' only as the whole array */
		if (dim > 0)
			return false;
		r->i++;
		cgm_strbuf_putc(&r->out, '}');
		r->ndims = 0;
		return true;
	}
	for (;;) {
		skip_space(r);
		if (n > 0)
			cgm_strbuf_putc(&r->out, ',');
		bool sub = r->s[r->i] == '{';
		if (r->ndims < 0)
			r->ndims = sub ? -1 : dim + 1;
		if (sub) {
			if (r->ndims >= 0 && dim + 1 >= r->ndims)
				return false;
			if (!read_level(r, dim + 1))
				return false;
			skip_space(r);
		} else {
			if (r->ndims != dim + 1 || !read_element(r))
				return false;
		}
		n++;
		char c = r->s[r->i];
		if (c == '}')
			break;
		if (c != ',')
			return false;
		r->i++;
	}
	r->i++;
	cgm_strbuf_putc(&r->out, '}');
	if (r->len[dim] < 0)
		r->len[dim] = n;
	return r->len[dim] == n;
}

const char *cgm_array_literal_out(cgm_arena *arena, const char *elemtype, const char *text)
{
	enum elem_kind kind;
	if (!elemtype || !text)
		return NULL;
	if (strcmp(elemtype, "text") == 0 || strcmp(elemtype, "character varying") == 0 ||
	    strcmp(elemtype, "name") == 0)
		kind = ELEM_TEXT;
	else if (strcmp(elemtype, "smallint") == 0)
		kind = ELEM_INT2;
	else if (strcmp(elemtype, "integer") == 0)
		kind = ELEM_INT4;
	else if (strcmp(elemtype, "bigint") == 0)
		kind = ELEM_INT8;
	else if (strcmp(elemtype, "boolean") == 0)
		kind = ELEM_BOOL;
	else
		return NULL;
	arr_reader r = { .s = text, .kind = kind, .ndims = -1,
			 .out = CGM_STRBUF_INIT, .elem = CGM_STRBUF_INIT };
	for (int d = 0; d < ARR_MAXDIM; d++)
		r.len[d] = -1;
	skip_space(&r);
	const char *result = NULL;
	if (read_level(&r, 0)) {
		skip_space(&r);
		if (!r.s[r.i])
			result = cgm_arena_strdup(arena, cgm_strbuf_cstr(&r.out));
	}
	cgm_strbuf_free(&r.out);
	cgm_strbuf_free(&r.elem);
	return result;
}
