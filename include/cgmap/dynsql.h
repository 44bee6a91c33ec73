/*
 * cgmap/dynsql.h - what the constant parts of a dynamic EXECUTE say before
 * it runs (src/dynsql.c): the statement kind of its template and the
 * functions it may call (possible targets).
 *
 * In:  a dynamic site's expression text (`'DROP TABLE ' || t`,
 *      `format('SELECT %I.%I($1)', s, f)`, `'SELECT handler_' || k || '()'`)
 *      and the model's functions and triggers.
 * Out: a cgm_dynsql_info the caller frees with cgm_dynsql_info_free()
 *      (malloc'd), or the possible targets of every site at once.
 */
#ifndef CGMAP_DYNSQL_H
#define CGMAP_DYNSQL_H

#include <stdbool.h>

#include "cgmap/model.h"

typedef struct cgm_dynsql_info {
	char *statement;   /* "SELECT", "DROP TABLE", "UPDATE", ...; NULL: the template
	                    * starts with a variable (or has no constant part) */
	char *table;       /* INSERT/UPDATE/DELETE/TRUNCATE of a constant table, or NULL */
	bool can_call;     /* the statement may call a user function */
	int ntargets;      /* possible targets: indexes into model->functions (user ones) */
	int *targets;
} cgm_dynsql_info;

/* Read the site's text (site->kind must be CGM_SITE_DYNAMIC). */
void cgm_dynsql_read(cgm_dynsql_info *out, const cgm_model *model, const cgm_site *site);
void cgm_dynsql_info_free(cgm_dynsql_info *info);
/* out[i] (model->nuser entries) set for each possible target of a dynamic
 * site of another function. */
void cgm_dynsql_possible_targets(bool *out, const cgm_model *model);

#endif
