/*
 * sqllex.c - comments and quoted text in SQL (see sqllex.h).
 */
#include "sqllex.h"

#include <stdio.h>
#include <string.h>

size_t cgm_sql_skip_comment_from(const char *s, size_t i)
{
	if (s[i] == '-' && s[i + 1] == '-') {
		while (s[i] && s[i] != '\n')
			i++;
		return i;
	}
	if (s[i] == '/' && s[i + 1] == '*') {
		int depth = 0;
		while (s[i]) {
			if (s[i] == '/' && s[i + 1] == '*') {
				depth++;
				i += 2;
			} else if (s[i] == '*' && s[i + 1] == '/') {
				i += 2;
				if (--depth == 0)
					break;
			} else {
				i++;
			}
		}
	}
	return i;
}

size_t cgm_sql_skip_opaque_from(const char *s, size_t i)
{
	char c = s[i];
	size_t after = cgm_sql_skip_comment(s, i);
	if (after != i)
		return after;
	if (c == '\'' || c == '"') {
		bool escapes = c == '\'' && i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') &&
			       (i == 1 || !cgm_sql_ident_char((unsigned char)s[i - 2]));
		i++;
		while (s[i]) {
			if (escapes && s[i] == '\\' && s[i + 1]) {
				i += 2;
			} else if (s[i] == c && s[i + 1] == c) {
				i += 2;
			} else if (s[i] == c) {
				return i + 1;
			} else {
				i++;
			}
		}
		return i;
	}
	if (c == '$' && (i == 0 || !cgm_sql_ident_char((unsigned char)s[i - 1])) &&
	    (s[i + 1] == '$' || (s[i + 1] && !(s[i + 1] >= '0' && s[i + 1] <= '9') &&
				 cgm_sql_ident_char((unsigned char)s[i + 1])))) {
		size_t t = i + 1;
		while (s[t] && s[t] != '$' && cgm_sql_ident_char((unsigned char)s[t]))
			t++;
		if (s[t] != '$')
			return i;
		size_t taglen = t + 1 - i;
		for (const char *p = s + t + 1; (p = strchr(p, '$')) != NULL; p++)
			if (strncmp(p, s + i, taglen) == 0)
				return (size_t)(p - s) + taglen;
		return strlen(s);
	}
	return i;
}

void cgm_sql_dollar_tag(char *tag, size_t len, const char *body)
{
	snprintf(tag, len, "$cgmap$");
	for (int i = 0; strstr(body, tag); i++)
		snprintf(tag, len, "$cgmap%d$", i);
}
