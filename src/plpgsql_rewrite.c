/*
 * plpgsql_rewrite.c - make a PL/pgSQL body acceptable to libpg_query's
 * catalog-less PL/pgSQL parser without moving any call site to another line.
 *
 * In:  a body PostgreSQL accepted, and the error libpg_query gave for it.
 * Out: a rewritten body (heap, caller frees) or NULL when no rewrite applies;
 *      and, for the extraction, the cursor statements of a body and what the
 *      rewrite made of them (cgm_plpgsql_cursor_reads: heap, caller frees).
 *      The BEGIN ATOMIC rewrite is also used alone (DO blocks, doblock.c).
 *
 * Why: libpg_query 15-4.0.0 compiles PL/pgSQL without a catalog, so it cannot
 * know that a variable is a cursor (every OPEN, FETCH, MOVE, CLOSE and
 * FOR ... IN cursor fails) nor that a %ROWTYPE variable has fields
 * ("r.col := 1" fails).  Real schemas are full of both.  Its parser also
 * predates PostgreSQL 15's reading of `CREATE FUNCTION ... BEGIN ATOMIC
 * ... END` as one statement in a body (pl_gram.y, make_execsql_stmt): it
 * ends the statement at the first `;` of the atomic body, a syntax error
 * (plpgsql_misc's DO block); such a body is made a string body.  The rewrites keep
 * every newline where it was, so line numbers of everything else stay exact;
 * only the text inside one statement changes.
 */
#include "plpgsql_rewrite.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* The end of the word at body + i.  A statement may start after BEGIN,
 * THEN, ELSE, LOOP and DECLARE (*at_start); declarations, where a name
 * like `move` is a variable, run from DECLARE to BEGIN (*declaring). */
static size_t past_word(const char *body, size_t i, bool *at_start, bool *declaring)
{
	size_t j = i;
	while (ident_char(body[j]))
		j++;
	const char *w = body + i;
	size_t len = j - i;
	bool begin = len == 5 && strncasecmp(w, "begin", 5) == 0;
	bool declare = len == 7 && strncasecmp(w, "declare", 7) == 0;
	*at_start = begin || declare ||
		    (len == 4 && (strncasecmp(w, "then", 4) == 0 || strncasecmp(w, "else", 4) == 0 ||
				  strncasecmp(w, "loop", 4) == 0));
	if (declare)
		*declaring = true;
	else if (begin)
		*declaring = false;
	return j;
}

/* Is the word at w the target of an assignment or a subscript, not a
 * statement's keyword (a variable named move, fetch or open)? */
static bool assigned_word(const char *w)
{
	const char *q = w;
	while (ident_char(*q))
		q++;
	while (isspace((unsigned char)*q))
		q++;
	return *q == ':' || *q == '=' || *q == '[' || *q == '.' || *q == '(';
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

/* The names a DECLARE section of `body` declares (the first word of each
 * declaration, in any block), lower-cased, one per line in `out`. */
static void declared_names(const char *body, cgm_strbuf *out)
{
	bool in_declare = false, at_decl = false;
	size_t i = 0;
	while (body[i]) {
		size_t skip = skip_opaque_at(body, i);
		if (skip) {
			i += skip;
			continue;
		}
		if (ident_char(body[i]) && (i == 0 || !ident_char(body[i - 1]))) {
			size_t j = i;
			while (ident_char(body[j]))
				j++;
			if (word_at(body + i, "declare")) {
				in_declare = at_decl = true;
			} else if (word_at(body + i, "begin")) {
				in_declare = at_decl = false;
			} else if (in_declare && at_decl) {
				for (size_t k = i; k < j; k++)
					cgm_strbuf_putc(out, (char)tolower((unsigned char)body[k]));
				cgm_strbuf_putc(out, '\n');
				at_decl = false;
			}
			i = j;
			continue;
		}
		if (body[i] == ';' && in_declare)
			at_decl = true;
		i++;
	}
}

static bool name_listed(const char *list, const char *name, size_t len)
{
	for (const char *p = list; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n == len && strncasecmp(p, name, len) == 0)
			return true;
		p = nl ? nl + 1 : p + n;
	}
	return false;
}

/* Where a declaration goes in the function's outermost block: after its
 * DECLARE, or before its BEGIN (then *needs_keyword), past leading
 * comments and a block label. */
static size_t outer_declare_at(const char *body, bool *needs_keyword)
{
	size_t i = 0;
	*needs_keyword = false;
	for (;;) {
		while (isspace((unsigned char)body[i]))
			i++;
		size_t skip = body[i] == '-' || body[i] == '/' ? skip_opaque_at(body, i) : 0;
		if (skip) {
			i += skip;
			continue;
		}
		if (body[i] == '<' && body[i + 1] == '<') {
			const char *close = strstr(body + i, ">>");
			if (!close)
				return SIZE_MAX;
			i = (size_t)(close - body) + 2;
			continue;
		}
		break;
	}
	*needs_keyword = !word_at(body + i, "declare");
	if (!*needs_keyword)
		return i + 7;
	return word_at(body + i, "begin") ? i : SIZE_MAX;
}

/* The arguments of a bound cursor, "(a, k := b, k => c)", as a row of
 * their values "(a, b, c)": PostgreSQL takes names there, SQL does not. */
static void put_cursor_args(cgm_strbuf *out, const char *args, size_t len)
{
	int depth = 0;
	bool arg_start = true;
	size_t i = 0;
	while (i < len) {
		size_t skip = skip_opaque_at(args, i);
		if (skip) {
			cgm_strbuf_add(out, args + i, skip < len - i ? skip : len - i);
			i += skip;
			arg_start = false;
			continue;
		}
		char c = args[i];
		if (arg_start && depth == 1 && ident_char(c)) {
			size_t j = i;
			while (j < len && ident_char(args[j]))
				j++;
			size_t k = j;
			while (k < len && isspace((unsigned char)args[k]))
				k++;
			if (k + 1 < len && ((args[k] == ':' && args[k + 1] == '=') ||
					    (args[k] == '=' && args[k + 1] == '>'))) {
				for (size_t m = i; m < k + 2; m++)
					cgm_strbuf_putc(out, args[m] == '\n' ? '\n' : ' ');
				i = k + 2;
				arg_start = false;
				continue;
			}
		}
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		if (!isspace((unsigned char)c))
			arg_start = (c == ',' || c == '(') && depth == 1;
		cgm_strbuf_putc(out, c);
		i++;
	}
}

/* Past the blanks and comments at stmt[j]. */
static size_t skip_blanks(const char *stmt, size_t len, size_t j)
{
	while (j < len) {
		if (isspace((unsigned char)stmt[j])) {
			j++;
			continue;
		}
		size_t sk = stmt[j] == '-' || stmt[j] == '/' ? skip_opaque_at(stmt, j) : 0;
		if (!sk)
			break;
		j += sk;
	}
	return j;
}

/* Offset of the first top-level word of `words` (NULL-terminated) in
 * stmt[from, len), outside literals, comments and parentheses; len when
 * none stands there. */
static size_t top_level_word(const char *stmt, size_t len, size_t from, const char *const *words)
{
	int depth = 0;
	for (size_t j = from; j < len;) {
		size_t sk = skip_opaque_at(stmt, j);
		if (sk) {
			j += sk;
			continue;
		}
		if (stmt[j] == '(')
			depth++;
		else if (stmt[j] == ')')
			depth--;
		else if (depth == 0 && (j == 0 || !ident_char(stmt[j - 1])))
			for (int w = 0; words[w]; w++)
				if (word_at(stmt + j, words[w]))
					return j;
		j++;
	}
	return len;
}

/* The FOR of `OPEN c [[NO] SCROLL] FOR query` (the statement starting at
 * OPEN, len bytes), or NULL for a bound cursor's OPEN. */
static const char *open_for(const char *stmt, size_t len)
{
	static const char *const for_word[] = { "for", NULL };
	size_t j = top_level_word(stmt, len, 4, for_word);
	return j < len ? stmt + j : NULL;
}

/* Where the expression of a cursor statement that PostgreSQL evaluates
 * stands, [*start, *end) of stmt (len bytes, from its OPEN, FETCH or MOVE
 * word): the arguments "(a, k := b)" of a bound cursor's OPEN, the count
 * of a FETCH or MOVE (`ABSOLUTE n`, `RELATIVE n`, `FORWARD n`,
 * `BACKWARD n`, or a bare `n`, up to FROM or IN as pl_gram.y's
 * read_fetch_direction reads it).  False when there is none; an OPEN ...
 * FOR keeps its query where it is. */
static bool cursor_expression(const char *stmt, size_t len, size_t *start, size_t *end)
{
	if (word_at(stmt, "open")) {
		if (open_for(stmt, len))
			return false;
		size_t j = skip_blanks(stmt, len, 4);
		if (j < len && stmt[j] == '"')
			j += skip_opaque_at(stmt, j);
		else
			while (j < len && ident_char(stmt[j]))
				j++;
		j = skip_blanks(stmt, len, j);
		if (j >= len || stmt[j] != '(')
			return false;
		*start = j;
		int depth = 0;
		while (j < len) {
			size_t sk = skip_opaque_at(stmt, j);
			if (sk) {
				j += sk;
				continue;
			}
			if (stmt[j] == '(')
				depth++;
			else if (stmt[j] == ')' && --depth == 0)
				break;
			j++;
		}
		if (j >= len)
			return false;
		*end = j + 1;
		return true;
	}
	size_t word = word_at(stmt, "fetch") ? 5 : 4;
	static const char *const into_word[] = { "into", NULL };
	static const char *const from_words[] = { "from", "in", NULL };
	size_t into = top_level_word(stmt, len, word, into_word);
	size_t from = top_level_word(stmt, into, word, from_words);
	if (from >= into)
		return false; /* `FETCH c INTO ...`: no direction */
	size_t j = skip_blanks(stmt, len, word);
	static const char *const no_count[] = { "next", "prior", "first", "last", "all", NULL };
	for (int w = 0; no_count[w]; w++)
		if (word_at(stmt + j, no_count[w]))
			return false;
	if (word_at(stmt + j, "absolute") || word_at(stmt + j, "relative")) {
		j = skip_blanks(stmt, len, j + 8);
	} else if (word_at(stmt + j, "forward") || word_at(stmt + j, "backward")) {
		j = skip_blanks(stmt, len, j + (word_at(stmt + j, "forward") ? 7 : 8));
		if (word_at(stmt + j, "all"))
			return false;
	}
	size_t e = from;
	while (e > j && isspace((unsigned char)stmt[e - 1]))
		e--;
	if (j >= e)
		return false;
	*start = j;
	*end = e;
	return true;
}

/* The cursor statement `stmt` (len bytes) as the statement that stands
 * for it: `ASSERT expr` of its expression (cursor_expression), else NULL;
 * newlines where they were. */
static void put_cursor_statement(cgm_strbuf *out, const char *stmt, size_t len)
{
	size_t start, end;
	if (!cursor_expression(stmt, len, &start, &end)) {
		put_keeping_lines(out, "NULL", stmt, len);
		return;
	}
	put_keeping_lines(out, "ASSERT ", stmt, start);
	if (stmt[start] == '(')
		put_cursor_args(out, stmt + start, end - start);
	else
		cgm_strbuf_add(out, stmt + start, end - start);
	put_keeping_lines(out, "", stmt + end, len - end);
}

/* Rewrite cursor statements into plain statements that keep their SQL:
 *   OPEN c [SCROLL] FOR query      -> query
 *   OPEN c FOR EXECUTE e USING p   -> EXECUTE e USING p
 *   OPEN c (args)                  -> ASSERT (args)
 *   FETCH, MOVE with a count n     -> ASSERT n
 *   OPEN c, FETCH, MOVE, CLOSE     -> NULL
 *   FOR r IN c [(args)] LOOP       -> FOR r IN SELECT [args] LOOP
 * ASSERT evaluates an expression and nothing else, so the calls of the
 * arguments and counts PostgreSQL evaluates stay sites, with no statement
 * kind of their own (the extraction tells them apart again by
 * cgm_plpgsql_cursor_reads).
 * Statement starts are found after ';' and after the block keywords.  A
 * cursor loop declares its variable itself (a record, PostgreSQL's
 * documentation says) where a query loop needs it declared: a variable
 * no DECLARE names is declared `r record;` in the outermost block, on the
 * line of its DECLARE (or BEGIN). */
static char *rewrite_cursors(const char *body)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	cgm_strbuf loop_vars = CGM_STRBUF_INIT; /* cursor loops' variables, one per line */
	bool at_start = true, changed = false;
	bool declaring = false; /* between DECLARE and BEGIN: `move integer;` is a variable */
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
		if (at_start && !declaring && !assigned_word(body + i) &&
		    (word_at(body + i, "open") || word_at(body + i, "fetch") ||
		     word_at(body + i, "move") || word_at(body + i, "close"))) {
			size_t end = statement_end(body, i);
			const char *stmt = body + i;
			size_t len = end - i;
			const char *for_kw = word_at(stmt, "open") ? open_for(stmt, len) : NULL;
			if (for_kw) {
				/* Keep the query with its own newlines; blank what precedes. */
				size_t head = (size_t)(for_kw + 3 - stmt);
				for (size_t k = 0; k < head; k++)
					cgm_strbuf_putc(&out, stmt[k] == '\n' ? '\n' : ' ');
				cgm_strbuf_add(&out, stmt + head, len - head);
			} else if (word_at(stmt, "close")) {
				put_keeping_lines(&out, "NULL", stmt, len);
			} else {
				put_cursor_statement(&out, stmt, len);
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
				/* `FOR i IN lo..f(x) LOOP` counts: a range, no cursor. */
				bool range = isdigit((unsigned char)nm[0]) ||
					     (name_len > 1 && memmem(nm, name_len, "..", 2));
				bool is_query = name_len == 0 || range || word_at(nm, "select") || word_at(nm, "with") ||
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
					/* The target: one plain name is the cursor's own record. */
					size_t t = i + 3, t_end = in_at;
					while (t < t_end && isspace((unsigned char)body[t]))
						t++;
					while (t_end > t && isspace((unsigned char)body[t_end - 1]))
						t_end--;
					bool plain = t < t_end && !isdigit((unsigned char)body[t]);
					for (size_t q = t; q < t_end && plain; q++)
						plain = ident_char(body[q]);
					if (plain && !name_listed(loop_vars.data, body + t, t_end - t)) {
						cgm_strbuf_add(&loop_vars, body + t, t_end - t);
						cgm_strbuf_putc(&loop_vars, '\n');
					}
					cgm_strbuf_add(&out, body + i, name_start - i);
					cgm_strbuf_puts(&out, "SELECT ");
					if (args_start) {
						/* Keep the argument expressions: they may call functions. */
						put_cursor_args(&out, body + args_start, args_end - args_start);
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
			size_t j = past_word(body, i, &at_start, &declaring);
			cgm_strbuf_add(&out, body + i, j - i);
			i = j;
			continue;
		}
		cgm_strbuf_putc(&out, c);
		at_start = (c == ';') || (c == '>' && i > 0 && body[i - 1] == '>');
		i++;
	}
	if (!changed) {
		cgm_strbuf_free(&out);
		cgm_strbuf_free(&loop_vars);
		return NULL;
	}
	if (loop_vars.len) {
		/* Nothing before the outermost DECLARE or BEGIN was rewritten:
		 * the offset is the same in `out`. */
		bool needs_keyword;
		size_t at = outer_declare_at(body, &needs_keyword);
		cgm_strbuf declared = CGM_STRBUF_INIT, decls = CGM_STRBUF_INIT;
		declared_names(body, &declared);
		for (const char *p = loop_vars.data; at != SIZE_MAX && *p;) {
			const char *nl = strchr(p, '\n');
			if (!name_listed(declared.data, p, (size_t)(nl - p))) {
				cgm_strbuf_putc(&decls, ' ');
				cgm_strbuf_add(&decls, p, (size_t)(nl - p));
				cgm_strbuf_puts(&decls, " record;");
			}
			p = nl + 1;
		}
		if (decls.len && at <= out.len) {
			cgm_strbuf with = CGM_STRBUF_INIT;
			cgm_strbuf_add(&with, out.data, at);
			if (needs_keyword)
				cgm_strbuf_puts(&with, "DECLARE");
			cgm_strbuf_add(&with, decls.data, decls.len);
			cgm_strbuf_putc(&with, ' ');
			cgm_strbuf_add(&with, out.data + at, out.len - at);
			cgm_strbuf_free(&out);
			out = with;
		}
		cgm_strbuf_free(&declared);
		cgm_strbuf_free(&decls);
	}
	cgm_strbuf_free(&loop_vars);
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

/* The word of body ending just before `end` (letters, digits, _, $, dots
 * and double quotes), its start in *start. */
static bool word_before(const char *body, size_t end, const char *word)
{
	size_t start = end;
	while (start > 0 && (ident_char(body[start - 1]) || body[start - 1] == '.' || body[start - 1] == '"'))
		start--;
	size_t n = strlen(word);
	return end - start == n && strncasecmp(body + start, word, n) == 0;
}

static size_t skip_space_back(const char *body, size_t i)
{
	while (i > 0 && isspace((unsigned char)body[i - 1]))
		i--;
	return i;
}

/* Whether the `r.col` at body[i..i+len) is where PL/pgSQL wants a
 * variable: an assignment's target (`r.col := v` starting a statement), or
 * one of an INTO's (or GET DIAGNOSTICS') targets.  Elsewhere `r.col` is
 * SQL, which PL/pgSQL leaves to the server: it raised no error there. */
static bool field_is_target(const char *body, size_t i, size_t len)
{
	size_t after = i + len;
	while (isspace((unsigned char)body[after]))
		after++;
	bool assigned = (body[after] == ':' && body[after + 1] == '=') ||
			(body[after] == '=' && body[after + 1] != '=' && body[after + 1] != '>');
	size_t back = skip_space_back(body, i);
	if (assigned) {
		static const char *const openers[] = { "begin", "then", "else", "loop" };
		if (back == 0 || body[back - 1] == ';')
			return true;
		for (size_t k = 0; k < sizeof openers / sizeof openers[0]; k++)
			if (word_before(body, back, openers[k]))
				return true;
	}
	/* INTO a, b.c, r.col: back over the list to INTO, STRICT or DIAGNOSTICS. */
	for (int guard = 0; guard < 1000; guard++) {
		if (word_before(body, back, "into") || word_before(body, back, "strict") ||
		    word_before(body, back, "diagnostics"))
			return true;
		if (back == 0 || body[back - 1] != ',')
			return false;
		back = skip_space_back(body, back - 1);
		while (back > 0 && (ident_char(body[back - 1]) || body[back - 1] == '.' || body[back - 1] == '"'))
			back--;
		back = skip_space_back(body, back);
	}
	return false;
}

static size_t unknown_field_target_at(const char *body, size_t i, cgm_strbuf *out, const void *arg)
{
	const field_ref *f = arg;
	if (strncasecmp(body + i, f->name, f->len) != 0 || !field_is_target(body, i, f->len))
		return 0;
	return unknown_field_at(body, i, out, arg);
}

/* Any field `r.col` of the variable `r` (f->name's first f->keep bytes)
 * where PL/pgSQL wants a variable: the length of `r.col`, 0 when none. */
static size_t any_field_target_len(const char *body, size_t i, const field_ref *f)
{
	if ((i > 0 && (ident_char(body[i - 1]) || body[i - 1] == '.')) ||
	    strncasecmp(body + i, f->name, f->keep) != 0 || body[i + f->keep] != '.')
		return 0;
	size_t j = i + f->keep + 1;
	if (body[j] == '"') {
		for (j++; body[j] && !(body[j] == '"' && body[j + 1] != '"'); j++)
			if (body[j] == '"')
				j++; /* "" inside a quoted name */
		if (!body[j])
			return 0;
		j++;
	} else {
		size_t start = j;
		while (ident_char(body[j]))
			j++;
		if (j == start)
			return 0;
	}
	if (body[j] == '.' || !field_is_target(body, i, j - i))
		return 0;
	return j - i;
}

static size_t any_field_target_at(const char *body, size_t i, cgm_strbuf *out, const void *arg)
{
	const field_ref *f = arg;
	size_t len = any_field_target_len(body, i, f);
	if (!len)
		return 0;
	cgm_strbuf_add(out, body + i, f->keep);
	return len;
}

/* "\"r.col\" is not a known variable": replace the whole-word `r.col`
 * (outside strings and comments) PL/pgSQL wants as a variable by `r`,
 * which is declared. */
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
	/* Only where PL/pgSQL wants a variable: `r.col` in an expression
	 * stays, so that typing still sees the column.  Every field of r
	 * there at once: libpg_query knows none of a composite variable's
	 * fields, and one retry per field ran out of retries on PoWA's
	 * powa_kcache_mi (25 fields assigned), a parse error PostgreSQL never
	 * gives.  Else `r.col` as a target, and when no such place is found
	 * (one this does not know), every `r.col`. */
	char *targets = rewrite_each(body, any_field_target_at, &f, true);
	if (!targets)
		targets = rewrite_each(body, unknown_field_target_at, &f, true);
	return targets ? targets : rewrite_each(body, unknown_field_at, &f, true);
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

/* The cursor FETCH [direction] [FROM | IN] cursor [INTO ...] or MOVE
 * names: the last word before a top-level INTO, else before the end. */
static bool cursor_of(char *out, size_t cap, const char *stmt, size_t len)
{
	size_t end = len;
	for (size_t j = 0; j < len; j++) {
		size_t sk = skip_opaque_at(stmt, j);
		if (sk && stmt[j] != '"') {
			j += sk - 1;
			continue;
		}
		if (j > 0 && !ident_char(stmt[j - 1]) && stmt[j - 1] != '"' && word_at(stmt + j, "into")) {
			end = j;
			break;
		}
	}
	while (end > 0 && isspace((unsigned char)stmt[end - 1]))
		end--;
	size_t n = 0;
	if (end > 0 && stmt[end - 1] == '"') {
		size_t start = end - 1;
		while (start > 0 && stmt[start - 1] != '"')
			start--;
		if (start == 0)
			return false;
		for (size_t k = start; k < end - 1 && n + 1 < cap; k++)
			out[n++] = stmt[k];
	} else {
		size_t start = end;
		while (start > 0 && ident_char(stmt[start - 1]))
			start--;
		if (start == end || start < 5) /* not the FETCH / MOVE word itself */
			return false;
		for (size_t k = start; k < end && n + 1 < cap; k++)
			out[n++] = (char)tolower((unsigned char)stmt[k]);
	}
	out[n] = '\0';
	return n > 0;
}

/* The cursor `OPEN cursor ...` names: its first word. */
static bool opened_cursor(char *out, size_t cap, const char *rest, size_t len)
{
	size_t k = 0;
	while (k < len && isspace((unsigned char)rest[k]))
		k++;
	size_t n = 0;
	if (k < len && rest[k] == '"') {
		for (k++; k < len && rest[k] != '"' && n + 1 < cap; k++)
			out[n++] = rest[k];
	} else {
		for (; k < len && ident_char(rest[k]) && n + 1 < cap; k++)
			out[n++] = (char)tolower((unsigned char)rest[k]);
	}
	out[n] = '\0';
	return n > 0;
}

int cgm_plpgsql_cursor_reads(cgm_cursor_read **out, const char *body)
{
	*out = NULL;
	int n = 0, cap = 0, line = 1;
	int assert_line = 0, asserts = 0; /* ASSERT statements starting on assert_line */
	bool at_start = true, declaring = false; /* between DECLARE and BEGIN */
	size_t i = 0;
	while (body[i]) {
		size_t skip = skip_opaque_at(body, i);
		if (skip) {
			for (size_t k = 0; k < skip; k++)
				line += body[i + k] == '\n';
			i += skip;
			continue;
		}
		char c = body[i];
		if (isspace((unsigned char)c)) {
			line += c == '\n';
			i++;
			continue;
		}
		bool open = at_start && word_at(body + i, "open");
		bool read = at_start && (word_at(body + i, "fetch") || word_at(body + i, "move"));
		bool assert_stmt = at_start && word_at(body + i, "assert");
		/* `move := 1`, or `move integer;` among the declarations: a variable */
		if ((open || read || assert_stmt) && (declaring || assigned_word(body + i)))
			open = read = assert_stmt = false;
		if (line != assert_line) {
			assert_line = line;
			asserts = 0;
		}
		if (assert_stmt)
			asserts++;
		if (open || read) {
			size_t end = statement_end(body, i);
			cgm_cursor_read r = { .line = line, .open = open, .assert_nth = -1,
					      .stmt = open ? "open" : word_at(body + i, "fetch") ? "fetch" : "move" };
			size_t x0, x1;
			if (cursor_expression(body + i, end - i, &x0, &x1))
				r.assert_nth = asserts++; /* rewritten into an ASSERT */
			bool named = open ? opened_cursor(r.cursor, sizeof r.cursor, body + i + 4, end - i - 4)
					  : cursor_of(r.cursor, sizeof r.cursor, body + i, end - i);
			if (!named)
				r.cursor[0] = '\0';
			if (named || r.assert_nth >= 0) {
				if (n == cap) {
					cap = cap ? cap * 2 : 8;
					cgm_cursor_read *grown = realloc(*out, sizeof(cgm_cursor_read) * (size_t)cap);
					if (!grown) {
						fprintf(stderr, "cgmap: out of memory\n");
						abort();
					}
					*out = grown;
				}
				(*out)[n++] = r;
			}
			for (size_t k = i; k < end; k++)
				line += body[k] == '\n';
			i = end;
			at_start = false;
			continue;
		}
		if (ident_char(c)) {
			i = past_word(body, i, &at_start, &declaring);
			continue;
		}
		at_start = (c == ';') || (c == '>' && i > 0 && body[i - 1] == '>');
		i++;
	}
	return n;
}

/* The word at body[i] (ident_char run) compared to `w`, any case. */
static bool word_is(const char *body, size_t i, size_t len, const char *w)
{
	return strlen(w) == len && strncasecmp(body + i, w, len) == 0;
}

char *cgm_plpgsql_atomic_as_string(const char *body)
{
	if (!body)
		return NULL;
	/* A dollar-quote tag of one letter the body never spells. */
	char tag[4] = "$a$";
	while (tag[1] <= 'z' && strstr(body, tag))
		tag[1]++;
	if (tag[1] > 'z')
		return NULL;
	char *out = NULL;
	/* state: 0 at a statement's start, 1 after CREATE, 2 after CREATE OR,
	 * 3 after CREATE OR REPLACE, 4 in a routine's definition, 5 inside its
	 * BEGIN ATOMIC, -1 in another statement. */
	int state = 0, paren = 0, depth = 0;
	for (size_t i = 0; body[i];) {
		size_t skip = skip_opaque_at(body, i);
		if (skip) {
			i += skip;
			continue;
		}
		char c = body[i];
		if (!ident_char(c)) {
			if (c == '(')
				paren++;
			else if (c == ')' && paren > 0)
				paren--;
			else if (c == ';' && paren == 0 && state != 5)
				state = 0, paren = 0;
			i++;
			continue;
		}
		size_t j = i;
		while (ident_char(body[j]) || body[j] == '$')
			j++;
		size_t len = j - i;
		if (state <= 0 && (word_is(body, i, len, "begin") || word_is(body, i, len, "then") ||
				   word_is(body, i, len, "else") || word_is(body, i, len, "loop") ||
				   word_is(body, i, len, "declare") || word_is(body, i, len, "exception")))
			state = 0; /* a statement may start after these */
		else if (state == 0)
			state = word_is(body, i, len, "create") ? 1 : -1;
		else if (state >= 1 && state <= 3) {
			if (state == 1 && word_is(body, i, len, "or"))
				state = 2;
			else if (state == 2 && word_is(body, i, len, "replace"))
				state = 3;
			else if ((state == 1 || state == 3) &&
				 (word_is(body, i, len, "function") || word_is(body, i, len, "procedure")))
				state = 4;
			else
				state = -1;
		} else if (state == 4 && paren == 0 && word_is(body, i, len, "begin")) {
			size_t k = j;
			for (;;) {
				while (isspace((unsigned char)body[k]))
					k++;
				size_t past = cgm_sql_skip_comment_from(body, k);
				if (past == k)
					break;
				k = past;
			}
			if (word_at(body + k, "atomic")) {
				out = out ? out : strdup(body);
				if (!out)
					return NULL;
				memcpy(out + i, "AS   ", 5);
				memcpy(out + k, "$a$   ", 6);
				out[k + 1] = tag[1];
				state = 5;
				depth = 0;
				j = k + 6;
			}
		} else if (state == 5 && paren == 0) {
			if (word_is(body, i, len, "begin") || word_is(body, i, len, "case"))
				depth++;
			else if (word_is(body, i, len, "end") && depth > 0)
				depth--;
			else if (word_is(body, i, len, "end")) {
				memcpy(out + i, tag, 3);
				state = -1;
			}
		}
		i = j;
	}
	if (out && state == 5) { /* no END: leave the body as it was */
		free(out);
		return NULL;
	}
	return out;
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
	    strstr(error_message, "syntax error")) {
		char *rewritten = rewrite_cursors(body);
		if (rewritten || !strstr(error_message, "syntax error"))
			return rewritten;
		return cgm_plpgsql_atomic_as_string(body);
	}
	if (strstr(error_message, "is not a known variable"))
		return rewrite_unknown_field(body, error_message);
	return NULL;
}
