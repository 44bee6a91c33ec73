/*
 * extguard.h - code that runs only when an extension is installed, as a
 * PL/pgSQL body tells it: pg_partman calls pg_jobmon's functions only
 * after finding pg_jobmon in pg_extension,
 *
 *     SELECT nspname INTO v_jobmon_schema FROM pg_catalog.pg_namespace n,
 *       pg_catalog.pg_extension e WHERE e.extname = 'pg_jobmon'::name
 *       AND e.extnamespace = n.oid;
 *     IF v_jobmon_schema IS NOT NULL THEN
 *         v_job_id := add_job(...);
 *
 * so a database without pg_jobmon never runs those calls, and their
 * missing callees are no defect (cgm_site_rare.requires_extension).
 *
 * In:  a query's or a condition's text (libpg_query parses it here).
 * Out: the extension's name in the caller's arena, or NULL.
 */
#ifndef CGMAP_EXTGUARD_H
#define CGMAP_EXTGUARD_H

#include "cgmap/arena.h"

/* The extension a query's rows need: a SELECT that reads pg_extension
 * ([pg_catalog.]pg_extension, aliased or not) among its plain or inner-
 * joined FROM items, whose WHERE is, or ANDs with other conditions,
 * [alias.]extname = 'name', and whose targets are columns or constants
 * (an aggregate would give a row all the same): it gives no row when that
 * extension is not installed, so `SELECT ... INTO v` leaves v NULL.
 * NULL for any other query. */
const char *cgm_extguard_query(cgm_arena *arena, const char *query);

/* The extension a condition needs to be true: `v IS NOT NULL` of a
 * variable `probe` says only such a query sets (its extension), `EXISTS
 * (query)` of such a query, or an AND with one of them.  `probe` may be
 * NULL; it returns the extension of the variable `name`, or NULL. */
typedef const char *(*cgm_extguard_probe)(void *ctx, const char *name);
const char *cgm_extguard_condition(cgm_arena *arena, const char *condition,
				   cgm_extguard_probe probe, void *ctx);

#endif
