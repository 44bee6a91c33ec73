/*
 * plpgsql_rewrite.c - make a PL/pgSQL body acceptable to libpg_query's
 * catalog-less PL/pgSQL parser without moving any call site to another line.
 *
 * In:  a body PostgreSQL accepted, and the error libpg_query gave for it.
 * Out: a rewritten body (heap, caller frees) or NULL when no rewrite applies.
 *
 * Why: libpg_query 15-4.0.0 compiles PL/pgSQL without a catalog, so it cannot
 * know that a variable is a cursor (every OPEN, FETCH, MOVE, CLOSE and
 * FOR ... IN cursor fails) nor that a %ROWTYPE variable has fields
 * ("r.col := 1" fails).  Real schemas are full of both.  The rewrites keep
 * every newline where it was, so line numbers of everything else stay exact;
 * only the text inside one statement changes.
 */
#include "plpgsql_rewrite.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/strbuf.h"
#include "sqllex.h"

/* Length of the comment or quoted text starting at base[i], 0 when none. */
static size_t skip_opaque_at(const char *base, size_t i)
{
	return cgm_sql_skip_opaque(base, i) - i;
}

static bool word_at(const char *s, const char *word)
{
	size_t n = strlen(word);
	return strncasecmp(s, word, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* Offset of the ';' ending the statement that starts at `start`, skipping
 * strings, comments and parentheses; strlen when none. */
static size_t statement_end(const char *body, size_t start)
{
	int depth = 0;
	size_t i = start;
	while (body[i]) {
		size_t skip = skip_opaque_at(body, i);
		if (skip) {
			i += skip;
			continue;
		}
		if (body[i] == '(')
			depth++;
		else if (body[i] == ')')
			depth--;
		else if (body[i] == ';' && depth <= 0)
			return i;
		i++;
	}
	return i;
}

/* Append `text`, then as many newlines as `original` held, so the lines
 * after the statement do not move. */
static void put_keeping_lines(cgm_strbuf *out, const char *text, const char *original, size_t len)
{
	cgm_strbuf_puts(out, text);
	for (size_t i = 0; i < len; i++)
		if (original[i] == '\n')
			cgm_strbuf_putc(out, '\n');
}

/* Rewrite cursor statements into plain statements that keep their SQL:
 *   OPEN c [SCROLL] FOR query      -> query
 *   OPEN c FOR EXECUTE e USING p   -> EXECUTE e USING p
 *   OPEN c [(args)], FETCH, MOVE, CLOSE -> NULL
 *   FOR r IN c [(args)] LOOP       -> FOR r IN SELECT [args] LOOP
 * Statement starts are found after ';' and after the block keywords. */
static char *rewrite_cursors(const char *body)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	bool at_start = true, changed = false;
	size_t i = 0;
	while (body[i]) {
		size_t skip = skip_opaque_at(body, i);
		if (skip) {
			cgm_strbuf_add(&out, body + i, skip);
			i += skip;
			continue;
		}
		char c = body[i];
		if (isspace((unsigned char)c)) {
			cgm_strbuf_putc(&out, c);
			i++;
			continue;
		}
		if (at_start && (word_at(body + i, "open") || word_at(body + i, "fetch") ||
				 word_at(body + i, "move") || word_at(body + i, "close"))) {
			size_t end = statement_end(body, i);
			const char *stmt = body + i;
			size_t len = end - i;
			if (word_at(stmt, "open")) {
				/* Find FOR at the top level of the statement. */
				size_t j = 4;
				const char *for_kw = NULL;
				while (j < len) {
					size_t sk = skip_opaque_at(stmt, j);
					if (sk) {
						j += sk;
						continue;
					}
					if (!ident_char(stmt[j - 1]) && word_at(stmt + j, "for")) {
						for_kw = stmt + j;
						break;
					}
					j++;
				}
				if (for_kw) {
					/* Keep the query with its own newlines; blank what precedes. */
					size_t head = (size_t)(for_kw + 3 - stmt);
					for (size_t k = 0; k < head; k++)
						cgm_strbuf_putc(&out, stmt[k] == '\n' ? '\n' : ' ');
					cgm_strbuf_add(&out, stmt + head, len - head);
				} else {
					put_keeping_lines(&out, "NULL", stmt, len);
				}
			} else {
				put_keeping_lines(&out, "NULL", stmt, len);
			}
			changed = true;
			i = end;
			at_start = false;
			continue;
		}
		if (word_at(body + i, "for")) {
			/* FOR target IN cursor_name [(args)] LOOP: a cursor is any name
			 * after IN that is not the start of a query or a range. */
			size_t j = i + 3;
			size_t in_at = 0;
			int guard = 0;
			while (body[j] && guard++ < 400) {
				size_t sk = skip_opaque_at(body, j);
				if (sk) {
					j += sk;
					continue;
				}
				if (body[j] == ';')
					break;
				if (!ident_char(body[j - 1]) && word_at(body + j, "in")) {
					in_at = j;
					break;
				}
				j++;
			}
			if (in_at) {
				size_t k = in_at + 2;
				while (isspace((unsigned char)body[k]))
					k++;
				size_t name_start = k;
				while (ident_char(body[k]) || body[k] == '.')
					k++;
				size_t name_len = k - name_start;
				const char *nm = body + name_start;
				bool is_query = name_len == 0 || word_at(nm, "select") || word_at(nm, "with") ||
						word_at(nm, "values") || word_at(nm, "execute") ||
						word_at(nm, "reverse") || word_at(nm, "table") ||
						word_at(nm, "array");
				size_t m = k;
				while (isspace((unsigned char)body[m]))
					m++;
				size_t args_start = 0, args_end = 0;
				if (!is_query && body[m] == '(') {
					args_start = m;
					int depth = 0;
					while (body[m]) {
						size_t sk = skip_opaque_at(body, m);
						if (sk) {
							m += sk;
							continue;
						}
						if (body[m] == '(')
							depth++;
						else if (body[m] == ')' && --depth == 0) {
							m++;
							break;
						}
						m++;
					}
					args_end = m;
					while (isspace((unsigned char)body[m]))
						m++;
				}
				if (!is_query && word_at(body + m, "loop")) {
					cgm_strbuf_add(&out, body + i, name_start - i);
					cgm_strbuf_puts(&out, "SELECT ");
					if (args_start) {
						/* Keep the argument expressions: they may call functions. */
						cgm_strbuf_add(&out, body + args_start, args_end - args_start);
						cgm_strbuf_add(&out, body + args_end, m - args_end);
					} else {
						cgm_strbuf_puts(&out, "1");
						cgm_strbuf_add(&out, body + k, m - k);
					}
					i = m;
					changed = true;
					at_start = false;
					continue;
				}
			}
		}
		if (ident_char(c)) {
			size_t j = i;
			while (ident_char(body[j]))
				j++;
			bool starts_block = (j - i == 5 && strncasecmp(body + i, "begin", 5) == 0) ||
					    (j - i == 4 && strncasecmp(body + i, "then", 4) == 0) ||
					    (j - i == 4 && strncasecmp(body + i, "else", 4) == 0) ||
					    (j - i == 4 && strncasecmp(body + i, "loop", 4) == 0) ||
					    (j - i == 7 && strncasecmp(body + i, "declare", 7) == 0);
			cgm_strbuf_add(&out, body + i, j - i);
			i = j;
			at_start = starts_block;
			continue;
		}
		cgm_strbuf_putc(&out, c);
		at_start = (c == ';') || (c == '>' && i > 0 && body[i - 1] == '>');
		i++;
	}
	if (!changed) {
		cgm_strbuf_free(&out);
		return NULL;
	}
	return out.data;
}

/* The rewrites below share one walk: text in comments and strings is
 * copied as it is, and at every other byte `rewrite_at` may append a
 * replacement and return how many bytes of body it stands for (0: none). */
typedef size_t (*rewrite_fn)(const char *body, size_t i, cgm_strbuf *out, const void *arg);

static char *rewrite_each(const char *body, rewrite_fn rewrite_at, const void *arg,
			  bool quoted_names)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	bool changed = false;
	size_t i = 0;
	while (body[i]) {
		size_t skip = skip_opaque_at(body, i);
		/* A quoted identifier may be what is rewritten. */
		if (skip && !(quoted_names && body[i] == '"')) {
			cgm_strbuf_add(&out, body + i, skip);
			i += skip;
			continue;
		}
		size_t used = rewrite_at(body, i, &out, arg);
		if (used) {
			i += used;
			changed = true;
			continue;
		}
		cgm_strbuf_putc(&out, body[i]);
		i++;
	}
	if (!changed) {
		cgm_strbuf_free(&out);
		return NULL;
	}
	return out.data;
}

typedef struct {
	const char *name; /* "r.col" as the error names it */
	size_t len;
	size_t keep;      /* length of "r" */
} field_ref;

static size_t unknown_field_at(const char *body, size_t i, cgm_strbuf *out, const void *arg)
{
	const field_ref *f = arg;
	if (strncasecmp(body + i, f->name, f->len) != 0 || (i > 0 && ident_char(body[i - 1])) ||
	    ident_char(body[i + f->len]) || body[i + f->len] == '.')
		return 0;
	cgm_strbuf_add(out, body + i, f->keep);
	return f->len;
}

/* "\"r.col\" is not a known variable": replace every whole-word `r.col`
 * (outside strings and comments) by `r`, which is declared. */
static char *rewrite_unknown_field(const char *body, const char *message)
{
	const char *q1 = strchr(message, '"');
	const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
	if (!q1 || !q2 || !strstr(q2, "is not a known variable"))
		return NULL;
	field_ref f = { q1 + 1, (size_t)(q2 - q1 - 1), 0 };
	const char *dot = memchr(f.name, '.', f.len);
	if (!dot || f.len == 0)
		return NULL;
	f.keep = (size_t)(dot - f.name);
	return rewrite_each(body, unknown_field_at, &f, true);
}

typedef struct {
	const char *const *argtypes;
	int nargs;
} arg_list;

static size_t positional_alias_at(const char *body, size_t i, cgm_strbuf *out, const void *arg)
{
	const arg_list *args = arg;
	if ((i > 0 && ident_char(body[i - 1])) || !word_at(body + i, "alias"))
		return 0;
	size_t j = i + 5;
	while (isspace((unsigned char)body[j]))
		j++;
	if (!word_at(body + j, "for"))
		return 0;
	j += 3;
	while (isspace((unsigned char)body[j]))
		j++;
	if (body[j] != '$' || !isdigit((unsigned char)body[j + 1]))
		return 0;
	int n = atoi(body + j + 1);
	size_t k = j + 1;
	while (isdigit((unsigned char)body[k]))
		k++;
	const char *type = n >= 1 && n <= args->nargs && args->argtypes && args->argtypes[n - 1]
				   ? args->argtypes[n - 1]
				   : "text";
	/* Newlines between ALIAS and $n stay. */
	for (size_t m = i; m < k; m++)
		if (body[m] == '\n')
			cgm_strbuf_putc(out, '\n');
	cgm_strbuf_puts(out, type);
	return k - i;
}

/* "variable \"$1\" does not exist": libpg_query makes no variables of
 * positional parameters, so `name ALIAS FOR $n` fails.  Declare `name` with
 * the parameter's type instead, which keeps its type for resolution. */
static char *rewrite_positional_alias(const char *body, const char *const *argtypes, int nargs)
{
	arg_list args = { argtypes, nargs };
	return rewrite_each(body, positional_alias_at, &args, false);
}

static size_t bare_return_next_at(const char *body, size_t i, cgm_strbuf *out, const void *arg)
{
	(void)arg;
	if ((i > 0 && ident_char(body[i - 1])) || !word_at(body + i, "return"))
		return 0;
	size_t j = i + 6;
	while (body[j] == ' ' || body[j] == '\t')
		j++;
	if (!word_at(body + j, "next"))
		return 0;
	size_t k = j + 4;
	while (body[k] == ' ' || body[k] == '\t')
		k++;
	if (body[k] != ';')
		return 0;
	cgm_strbuf_add(out, body + i, k - i);
	cgm_strbuf_puts(out, " NULL");
	return k - i;
}

/* "missing expression at or near \";\"": libpg_query does not know a
 * function's OUT parameters, so a bare RETURN NEXT (which returns them)
 * fails.  Give it an expression; the line stays the same. */
static char *rewrite_bare_return_next(const char *body)
{
	return rewrite_each(body, bare_return_next_at, NULL, false);
}

char *cgm_plpgsql_rewrite(const char *body, const char *error_message,
			  const char *const *argtypes, int nargs)
{
	if (!error_message)
		return NULL;
	if (strstr(error_message, "variable \"$") && strstr(error_message, "does not exist"))
		return rewrite_positional_alias(body, argtypes, nargs);
	if (strstr(error_message, "missing expression"))
		return rewrite_bare_return_next(body);
	if (strstr(error_message, "must be of type cursor or refcursor") ||
	    strstr(error_message, "cursor FOR loop must use a bound cursor variable") ||
	    strstr(error_message, "syntax error"))
		return rewrite_cursors(body);
	if (strstr(error_message, "is not a known variable"))
		return rewrite_unknown_field(body, error_message);
	return NULL;
}
