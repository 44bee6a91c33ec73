/*
 * sqlformat.c - PostgreSQL's format(), quote_ident() and quote_literal()
 * before run time, so that EXECUTE format('SELECT %I.%I()', 'app', 'f')
 * is the call it always makes, and a template with run-time names keeps
 * the constant ones it spells (narrowing its possible targets).
 *
 * In:  a template and its arguments (constant text, NULL, or run-time).
 * Out: appended to the caller's cgm_strbuf; nothing else is allocated.
 *
 * The rules are those of PostgreSQL 15's text_format() (varlena.c): an
 * argument position n$ sets the next argument, otherwise each specifier
 * and each * width takes the one after the last used; widths pad with
 * spaces counted in characters; %s of NULL is empty, %L of NULL is NULL,
 * %I of NULL and too few arguments are errors.  quote_ident() quotes all
 * but plain lower-case names that are not keywords other than unreserved
 * ones: the keyword list is PostgreSQL's own (parser/kwlist.h of the
 * server headers), so it is the parser's, not a copy that drifts.
 */
#include "cgmap/sqlformat.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL's keyword categories, as kwlist.h names them. */
enum { UNRESERVED_KEYWORD, COL_NAME_KEYWORD, TYPE_FUNC_NAME_KEYWORD, RESERVED_KEYWORD };

typedef struct keyword {
	const char *name;
	int category;
} keyword;

#define PG_KEYWORD(kwname, value, category, collabel) { kwname, category },
static const keyword keywords[] = {
#include <parser/kwlist.h>
};
#undef PG_KEYWORD
#define NKEYWORDS (sizeof keywords / sizeof keywords[0])

static int compare_keyword(const void *key, const void *item)
{
	return strcmp(key, ((const keyword *)item)->name);
}

void cgm_sql_quote_ident(cgm_strbuf *out, const char *s)
{
	bool plain = (*s >= 'a' && *s <= 'z') || *s == '_';
	for (const char *c = s; *c && plain; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
	if (plain) {
		const keyword *k = bsearch(s, keywords, NKEYWORDS, sizeof keywords[0], compare_keyword);
		plain = !k || k->category == UNRESERVED_KEYWORD;
	}
	if (plain) {
		cgm_strbuf_puts(out, s);
		return;
	}
	cgm_strbuf_putc(out, '"');
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			cgm_strbuf_putc(out, '"');
		cgm_strbuf_putc(out, *c);
	}
	cgm_strbuf_putc(out, '"');
}

void cgm_sql_quote_literal(cgm_strbuf *out, const char *s)
{
	if (strchr(s, '\\'))
		cgm_strbuf_putc(out, 'E');
	cgm_strbuf_putc(out, '\'');
	for (const char *c = s; *c; c++) {
		if (*c == '\'' || *c == '\\')
			cgm_strbuf_putc(out, *c);
		cgm_strbuf_putc(out, *c);
	}
	cgm_strbuf_putc(out, '\'');
}

/* Characters, not bytes, as the server (UTF-8) counts a width. */
static long utf8_length(const char *s, size_t n)
{
	long chars = 0;
	for (size_t i = 0; i < n; i++)
		chars += ((unsigned char)s[i] & 0xC0) != 0x80;
	return chars;
}

/* `text` (n bytes) into out, padded with spaces to `width` characters. */
static void append_padded(cgm_strbuf *out, const char *text, size_t n, long width, bool left)
{
	long pad = width - utf8_length(text, n);
	if (!left)
		for (long i = 0; i < pad; i++)
			cgm_strbuf_putc(out, ' ');
	cgm_strbuf_add(out, text, n);
	if (left)
		for (long i = 0; i < pad; i++)
			cgm_strbuf_putc(out, ' ');
}

/* Decimal digits at *p into *n; false when there are none.  -1 in *n when
 * the number is out of range (format() rejects it). */
static bool read_digits(const char **p, long *n)
{
	if (**p < '0' || **p > '9')
		return false;
	long v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		if (v >= 0 && v > (INT_MAX - (**p - '0')) / 10)
			v = -1;
		else if (v >= 0)
			v = v * 10 + (**p - '0');
	}
	*n = v;
	return true;
}

/* The flags and width of a specifier after its argument position:
 * [-]...[digits | *[n$]]; false when format() rejects them. */
static bool read_flags_width(const char **p, bool *left, long *width, long *widthpos)
{
	long n;
	while (**p == '-') {
		*left = true;
		(*p)++;
	}
	if (**p == '*') {
		(*p)++;
		*widthpos = 0;
		if (read_digits(p, &n)) {
			if (n <= 0 || **p != '$')
				return false;
			*widthpos = n;
			(*p)++;
		}
	} else if (read_digits(p, &n)) {
		if (n < 0)
			return false;
		*width = n;
	}
	return true;
}

/* A width argument's integer value (a text of digits with a sign). */
static bool parse_width(const char *text, long *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	while (*end == ' ')
		end++;
	if (end == text || *end || v < INT_MIN + 1 || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

cgm_format_result cgm_sql_format(cgm_strbuf *out, const char *tmpl, const cgm_format_arg *args,
				 int nargs, const cgm_format_unknown *unknown)
{
	cgm_format_result result = CGM_FORMAT_KNOWN;
	int arg = 0; /* the last argument used, 1-based; the template is 0 */
	for (const char *p = tmpl; *p; p++) {
		if (*p != '%') {
			const char *run = p;
			while (p[1] && p[1] != '%')
				p++;
			cgm_strbuf_add(out, run, (size_t)(p - run) + 1);
			continue;
		}
		p++;
		if (*p == '%') {
			cgm_strbuf_putc(out, '%');
			continue;
		}
		long argpos = -1, widthpos = -1, width = 0, n;
		bool left = false;
		bool width_only = false;
		if (read_digits(&p, &n)) {
			if (n < 0 || (*p == '$' && n == 0))
				return CGM_FORMAT_FAILS;
			if (*p == '$') {
				argpos = n;
				p++;
			} else {
				width = n; /* a width alone, then the type */
				width_only = true;
			}
		}
		if (!width_only && !read_flags_width(&p, &left, &width, &widthpos))
			return CGM_FORMAT_FAILS;
		if (!*p)
			return CGM_FORMAT_FAILS; /* unterminated specifier */
		if (widthpos >= 0) {
			arg = widthpos > 0 ? (int)widthpos : arg + 1;
			if (arg > nargs)
				return CGM_FORMAT_FAILS;
			const cgm_format_arg *w = &args[arg - 1];
			if (w->kind == CGM_FORMAT_ARG_TEXT) {
				if (!parse_width(w->text, &width))
					return CGM_FORMAT_FAILS;
			} else if (w->kind == CGM_FORMAT_ARG_RUNTIME) {
				/* Only spaces are unknown: still a mark's worth. */
				if (!unknown->mark)
					return CGM_FORMAT_RUNTIME;
				result = CGM_FORMAT_MARKED;
				width = 0;
			} else {
				width = 0;
			}
			if (width < 0) {
				left = true;
				width = -width;
			}
		}
		arg = argpos > 0 ? (int)argpos : arg + 1;
		if (arg > nargs || (*p != 's' && *p != 'I' && *p != 'L'))
			return CGM_FORMAT_FAILS;
		const cgm_format_arg *a = &args[arg - 1];
		if (a->kind == CGM_FORMAT_ARG_NULL) {
			if (*p == 'I')
				return CGM_FORMAT_FAILS;
			const char *text = *p == 'L' ? "NULL" : "";
			append_padded(out, text, strlen(text), width, left);
		} else if (a->kind == CGM_FORMAT_ARG_RUNTIME) {
			if (*p == 'L') {
				append_padded(out, unknown->literal, strlen(unknown->literal), width, left);
			} else if (unknown->mark) {
				cgm_strbuf_putc(out, unknown->mark);
			} else {
				return CGM_FORMAT_RUNTIME;
			}
			result = CGM_FORMAT_MARKED;
		} else if (*p == 's') {
			append_padded(out, a->text, strlen(a->text), width, left);
		} else {
			cgm_strbuf quoted = CGM_STRBUF_INIT;
			if (*p == 'I')
				cgm_sql_quote_ident(&quoted, a->text);
			else
				cgm_sql_quote_literal(&quoted, a->text);
			append_padded(out, quoted.data, quoted.len, width, left);
			cgm_strbuf_free(&quoted);
		}
	}
	return result;
}

static void replace_all(cgm_strbuf *out, const char *s, const char *from, const char *to)
{
	size_t n = strlen(from);
	cgm_strbuf_puts(out, "");
	if (n == 0) {
		cgm_strbuf_puts(out, s);
		return;
	}
	for (const char *hit; (hit = strstr(s, from)) != NULL; s = hit + n) {
		cgm_strbuf_add(out, s, (size_t)(hit - s));
		cgm_strbuf_puts(out, to);
	}
	cgm_strbuf_puts(out, s);
}

bool cgm_sql_text_function(cgm_strbuf *out, const char *name, const char *const *args, int nargs)
{
	if (nargs == 3 && strcmp(name, "replace") == 0) {
		replace_all(out, args[0], args[1], args[2]);
		return true;
	}
	if (nargs != 1)
		return false;
	const char *arg = args[0];
	bool upper = strcmp(name, "upper") == 0;
	if (upper || strcmp(name, "lower") == 0) {
		for (const char *p = arg; *p; p++)
			if ((unsigned char)*p >= 0x80)
				return false;
		for (const char *p = arg; *p; p++)
			cgm_strbuf_putc(out, (char)(upper ? toupper((unsigned char)*p) : tolower((unsigned char)*p)));
		cgm_strbuf_puts(out, "");
		return true;
	}
	if (strcmp(name, "quote_ident") == 0) {
		cgm_sql_quote_ident(out, arg);
		return true;
	}
	if (strcmp(name, "quote_literal") == 0 || strcmp(name, "quote_nullable") == 0) {
		cgm_sql_quote_literal(out, arg); /* of a text that is not NULL */
		return true;
	}
	return false;
}
