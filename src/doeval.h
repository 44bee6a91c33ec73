/*
 * doeval.h - whether a PL/pgSQL condition holds, when the SQL files tell:
 * for the code the files run (a DO block, a function or procedure they
 * call with constant arguments, doblock.h), the IF branch PostgreSQL
 * would take.  xTuple's files call `dropIfExists('FUNCTION', 'f(int)')`,
 * whose IF chain on `UPPER(pType)` picks the DROP it EXECUTEs.
 *
 * In:  a condition as PL/pgSQL keeps it, its variables already replaced
 *      by their values as literals (dovars.h).
 * Out: 1 (it holds), 0 (it does not, or is NULL), -1 (the files cannot
 *      tell: a column, a query, a function of values not known, a type
 *      whose comparison is not text's or integer's).  Nothing is kept.
 *
 * Decided: literals (text, integer, boolean, NULL) and casts of them to
 * text, integer or boolean types; upper(), lower() of ASCII text;
 * array_length(a, 1) and cardinality(a) of a one-dimensional array's
 * text; = <> !=
 * < <= > >= of two texts or integers (a quoted literal against an integer
 * is the integer it spells, as PostgreSQL resolves the unknown literal);
 * IN and NOT IN lists; AND, OR, NOT in three-valued logic; IS [NOT] NULL;
 * with a catalog (docatalog.h), EXISTS and scalar subqueries of
 * pg_extension (or pg_available_extensions' installed ones) by name: `EXISTS (SELECT 1 FROM pg_extension WHERE extname
 * = 'postgis')`, `(SELECT count(*) FROM pg_extension WHERE ...) > 0`.
 */
#ifndef CGMAP_DOEVAL_H
#define CGMAP_DOEVAL_H

#include <stdbool.h>

#include "docatalog.h"

int cgm_do_eval_condition(const char *expr);
/* The same, subqueries of pg_extension read from `catalog` (NULL: none). */
int cgm_do_eval_condition_in(const char *expr, const cgm_do_catalog *catalog);
/* What `SELECT ... INTO v` stores when the query reads pg_extension by
 * name (docatalog.h), INTO taken out as PL/pgSQL does: 1 with *text the
 * one target's value (heap; NULL for SQL's NULL, no row included) and
 * *found as FOUND is set after it; -1 when the files cannot tell. */
int cgm_do_eval_query(const char *query, const cgm_do_catalog *catalog, char **text, bool *found);
/* The value of an expression that reads pg_extension (`v := (SELECT
 * count(*) = 1 FROM pg_available_extensions WHERE name = 'pg_net' AND
 * installed_version IS NOT NULL)`): 1 with *text its text (heap; NULL
 * for SQL's NULL), -1 when the files cannot tell. */
int cgm_do_eval_value(const char *expr, const cgm_do_catalog *catalog, char **text);

/* The same for one server whose current_setting('server_version_num')
 * gives `version` (0: unknown), no catalog: 1, 0 or -1, and
 * *read_version set when the condition read the version (verbranch.h). */
int cgm_do_eval_condition_at(const char *expr, long long version, bool *read_version);
/* The value `expr` has there (`current_setting('server_version_num')::int`
 * read into a variable): 1 with *text its text (heap), -1 when it is not
 * known or does not read the version. */
int cgm_do_eval_version_value(const char *expr, long long version, char **text);

#endif
