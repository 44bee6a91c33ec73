/*
 * cgmap/dynsql.h - what the constant parts of a dynamic EXECUTE say before
 * it runs (src/dynsql.c): the statement kind of its template and the
 * functions it may call (possible targets).
 *
 * In:  a dynamic site's expression text (`'DROP TABLE ' || t`,
 *      `format('SELECT %I.%I($1)', s, f)`, `'SELECT handler_' || k || '()'`)
 *      and the model's functions, triggers and event triggers.
 * Out: a cgm_dynsql_info the caller frees with cgm_dynsql_info_free()
 *      (malloc'd), or the possible targets of every site at once.  A
 *      cgm_dynsql_reader (freed with cgm_dynsql_reader_free) shares the name
 *      index and pattern matches across the sites of one model.
 */
#ifndef CGMAP_DYNSQL_H
#define CGMAP_DYNSQL_H

#include <stdbool.h>

#include "cgmap/model.h"

/* Possible targets a site lists; past this many it lists the first ones
 * (in model order) and counts all: `format('SELECT app.f%s()', n)` may
 * name thousands. */
#define CGM_DYNSQL_TARGETS_KEPT 50

typedef struct cgm_dynsql_info {
	char *statement;   /* "SELECT", "DROP TABLE", "UPDATE", ...: DDL by its command
	                    * tag ("CREATE TABLE" for CREATE UNLOGGED TABLE, "CREATE
	                    * TABLE AS"); NULL: the template starts with a variable
	                    * (or has no constant part) */
	char *table;       /* INSERT/UPDATE/DELETE/TRUNCATE of a constant table, or NULL */
	bool can_call;     /* the statement may call a user function */
	int ntargets;      /* possible targets listed: indexes into model->functions
	                    * (user ones), in model order, at most CGM_DYNSQL_TARGETS_KEPT */
	int *targets;
	int total;         /* all possible targets (>= ntargets) */
} cgm_dynsql_info;

/* A model's user functions indexed by name, and each call pattern's matches
 * computed once: read every site of a model through one reader.  One reader
 * per thread; it must not outlive the model. */
typedef struct cgm_dynsql_reader cgm_dynsql_reader;
cgm_dynsql_reader *cgm_dynsql_reader_new(const cgm_model *model);
void cgm_dynsql_reader_free(cgm_dynsql_reader *reader);

/* Read the site's text (site->kind must be CGM_SITE_DYNAMIC). */
void cgm_dynsql_read_with(cgm_dynsql_info *out, cgm_dynsql_reader *reader, const cgm_site *site);
/* Marks in `seen` (model->nuser entries) every possible target of the site,
 * however many, and returns how many it marked that were not marked yet:
 * the distinct count of several sites' targets, which `total` cannot add. */
int cgm_dynsql_mark_targets(unsigned char *seen, cgm_dynsql_reader *reader, const cgm_site *site);
/* The same through a reader of its own: for one site, not a whole model. */
void cgm_dynsql_read(cgm_dynsql_info *out, const cgm_model *model, const cgm_site *site);
void cgm_dynsql_info_free(cgm_dynsql_info *info);
/* out[i] (model->nuser entries) set for each possible target of a dynamic
 * site of another function, and each function another analysed body names
 * as a call in a string literal (SQL text it builds, src/litnames.c). */
void cgm_dynsql_possible_targets(bool *out, const cgm_model *model);

#endif
