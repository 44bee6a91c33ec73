/*
 * plpgsql_locate.c - where the text of a PL/pgSQL statement stands in its
 * body, also when PL/pgSQL's parser rewrote it.
 *
 * In:  a body (NUL-terminated), an offset to search from, the text of one
 *      statement or expression as the PL/pgSQL parser stored it.
 * Out: the offset of the text in the body, or -1; the length of the prefix
 *      PL/pgSQL put before a simple CASE's WHEN values; a copy of the text
 *      made parseable blanked in place.  Nothing is allocated.
 *
 * Why: PL/pgSQL takes `SELECT ... INTO v`, `... RETURNING ... INTO v` and
 * `FETCH ... INTO v` apart and stores the SQL with the INTO clause (INTO,
 * STRICT, the targets and whatever stands before the next token) replaced
 * by as many spaces (pl_gram.y, make_execsql_stmt), so that an offset in
 * the stored text is the same offset in the body.  Newlines inside the
 * clause become spaces too: counting lines in the stored text puts every
 * call after a multi-line INTO too high in the body.  Found here in the
 * body, the stored text gives each offset its true line.
 *
 * A simple CASE (`CASE x WHEN a, b THEN`) stores each WHEN's values as
 * `"__Case__Variable_N__" IN (a, b)` (pl_gram.y, make_case): the text
 * between the prefix and the closing parenthesis is the body's own.
 *
 * libpg_query's PL/pgSQL parser (its pl_gram.y, read_sql_construct) ends
 * an expression's text at the token after it and then trims trailing
 * whitespace: a `-- comment` between the expression and that token stays,
 * without the newline that ended it (`x > 1 -- why`).  PostgreSQL 15's
 * current releases (15.18) stop at the last token of the expression.
 * Alone the text still parses, but a simple CASE's WHEN becomes
 * `"__Case__Variable_N__" IN (1 -- why)`, whose closing parenthesis is
 * inside the comment: cgm_plpgsql_blank_end_comment blanks such a comment
 * as PostgreSQL leaves it out.
 */
#include "plpgsql_locate.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "sqllex.h"

/* Does text stand at s, where a run of spaces in text that stands where s
 * has the word INTO is the blanked clause, any bytes of the same length? */
static bool stands_at(const char *s, const char *text)
{
	size_t i = 0;
	while (text[i]) {
		if (!s[i])
			return false;
		if (s[i] == text[i]) {
			i++;
			continue;
		}
		if (text[i] != ' ' || strncasecmp(s + i, "into", 4) != 0 ||
		    cgm_sql_ident_char((unsigned char)s[i + 4]) ||
		    (i > 0 && cgm_sql_ident_char((unsigned char)s[i - 1])))
			return false;
		size_t end = i;
		while (text[end] == ' ')
			end++;
		for (; i < end; i++)
			if (!s[i])
				return false;
	}
	return true;
}

long cgm_plpgsql_locate(const char *body, long from, const char *text)
{
	if (!body || !text || !*text || from < 0 || (size_t)from > strlen(body))
		return -1;
	const char *hit = strstr(body + from, text);
	if (hit)
		return (long)(hit - body);
	/* Only a text with a blanked clause is worth the slower search. */
	if (!strchr(text, ' '))
		return -1;
	for (const char *p = strchr(body + from, text[0]); p; p = strchr(p + 1, text[0]))
		if (stands_at(p, text))
			return (long)(p - body);
	return -1;
}

size_t cgm_plpgsql_case_prefix(const char *text)
{
	static const char head[] = "\"__Case__Variable_";
	size_t n = sizeof head - 1;
	if (!text || strncmp(text, head, n) != 0 || !isdigit((unsigned char)text[n]))
		return 0;
	while (isdigit((unsigned char)text[n]))
		n++;
	static const char tail[] = "__\" IN (";
	size_t len = strlen(text);
	if (strncmp(text + n, tail, sizeof tail - 1) != 0 || len < n + sizeof tail || text[len - 1] != ')')
		return 0;
	return n + sizeof tail - 1;
}

void cgm_plpgsql_blank_end_comment(char *text)
{
	if (!text)
		return;
	size_t len = strlen(text);
	/* In a simple CASE's WHEN the parenthesis PL/pgSQL closed it with
	 * stays. */
	size_t end = cgm_plpgsql_case_prefix(text) ? len - 1 : len;
	for (size_t i = 0; i < end;) {
		size_t next = cgm_sql_skip_opaque(text, i);
		if (next == i) {
			i++;
			continue;
		}
		if (text[i] == '-' && next >= len) {
			memset(text + i, ' ', end - i);
			return;
		}
		i = next;
	}
}
