/*
 * schema_filter.c - the --schema and --exclude-schema patterns against the
 * schemas a source holds: a pattern that matches none is a typo, and a
 * typo must not map nothing and pass (a CI diff of two empty maps finds no
 * difference).
 *
 * In:  the source options and the names of every schema of the source
 *      (the caller's, read only).  Out: 0, or CGM_EUSAGE with the message
 *      naming the first pattern that matches nothing.  Nothing is kept.
 */
#include <fnmatch.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/pipeline.h"

static bool matches_any(const char *pattern, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (names[i] && fnmatch(pattern, names[i], 0) == 0)
			return true;
	return false;
}

static int no_match(const char *option, const char *pattern, const char *where)
{
	return cgm_error(CGM_EUSAGE, "%s pattern \"%s\" matches no schema in %s", option, pattern,
			 where);
}

int cgm_schema_patterns_check(const cgm_source_options *opts, const char *const *names, int n,
			      const char *where)
{
	for (int i = 0; i < opts->nschemas; i++)
		if (!matches_any(opts->schemas[i], names, n))
			return no_match("--schema", opts->schemas[i], where);
	for (int i = 0; i < opts->nexclude; i++)
		if (!matches_any(opts->exclude_schemas[i], names, n))
			return no_match("--exclude-schema", opts->exclude_schemas[i], where);
	return 0;
}
