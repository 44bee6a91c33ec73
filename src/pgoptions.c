/*
 * pgoptions.c - one setting of a session's command-line options.
 *
 * In:  an options string as libpq sends it at connection (the PGOPTIONS
 *      environment variable, the `options` connection keyword): words
 *      separated by white space, a backslash taking the next character as
 *      it is (`-c search_path=a,\ b`).
 * Out: the value it gives one setting, copied into the caller's buffer.
 *      Nothing is allocated.
 *
 * Why: psql sessions loading a schema start with what PGOPTIONS sets (a
 * project's loader exporting `PGOPTIONS='-c search_path=app,public'` puts
 * every unqualified CREATE in `app`), and SQL files are mapped as psql
 * would have run them.  The server splits the string the same way
 * (pg_split_opts) and reads `-c name=value` and `--name=value`, a dash in
 * the name standing for an underscore, names in any case.
 */
#include "pgoptions.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* The next word of `*p` into `word`, backslash escapes removed; false at
 * the end.  A word longer than the buffer is cut short but consumed, and
 * `*truncated` says so. */
static bool next_word(const char **p, char *word, size_t size, bool *truncated)
{
	const char *s = *p;
	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*p = s;
		return false;
	}
	size_t n = 0;
	*truncated = false;
	while (*s && !isspace((unsigned char)*s)) {
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 < size)
			word[n++] = *s;
		else
			*truncated = true;
		s++;
	}
	word[n] = '\0';
	*p = s;
	return true;
}

/* Whether `given` (up to '=') names `name`: case folded, '-' as '_'. */
static bool names_setting(const char *given, const char *name)
{
	for (; *given && *given != '='; given++, name++) {
		char c = (char)tolower((unsigned char)*given);
		if (c == '-')
			c = '_';
		if (c != *name)
			return false;
	}
	return *given == '=' && *name == '\0';
}

int cgm_pgoptions_setting(char *value, size_t size, const char *options, const char *name)
{
	if (size == 0)
		return -1;
	value[0] = '\0';
	if (!options)
		return 0;
	/* A word is at most the whole string: one buffer of that size would
	 * do, but settings worth reading are short; longer words are read in
	 * pieces and judged by their start, their value refused if cut. */
	char word[1024];
	const char *p = options;
	int found = 0;
	bool expect_setting = false, truncated = false;
	while (next_word(&p, word, sizeof word, &truncated)) {
		const char *setting = NULL;
		if (expect_setting) {
			setting = word;
			expect_setting = false;
		} else if (strcmp(word, "-c") == 0) {
			expect_setting = true;
			continue;
		} else if (strncmp(word, "-c", 2) == 0) {
			setting = word + 2;
		} else if (strncmp(word, "--", 2) == 0) {
			setting = word + 2;
		}
		if (!setting || !names_setting(setting, name))
			continue;
		const char *v = strchr(setting, '=') + 1;
		if (truncated || strlen(v) + 1 > size) {
			value[0] = '\0';
			found = -1;
			continue;
		}
		memcpy(value, v, strlen(v) + 1);
		found = 1;
	}
	return found;
}
