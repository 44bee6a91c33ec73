/*
 * docatalog.h - what a DO block's queries of the catalog read, when the SQL
 * files tell: the rows of pg_extension by name.  An install script makes
 * what needs an extension only when the extension is there:
 *
 *     SELECT count(*) = 1 FROM pg_extension WHERE extname = 'pgcrypto'
 *       INTO installed;
 *     IF installed THEN EXECUTE 'CREATE FUNCTION sha256(bytea) ...'; END IF;
 *
 * (pgsql-tweaks), or `IF EXISTS (SELECT 1 FROM pg_extension WHERE extname
 * = 'postgis') THEN`.  The files know the extensions they made (CREATE
 * EXTENSION, not dropped since), and a map of files holds no other: its
 * calls into an extension they do not make resolve to nothing either.
 *
 * A condition on the server's version (`IF current_setting(
 * 'server_version_num')::int < 90600 THEN CREATE FUNCTION ... ELSE CREATE
 * FUNCTION ...`, PoWA's powa_get_guc) is decided for the major version the
 * files stand for, when all its releases decide it alike (doeval.c).
 *
 * In:  a query's SelectStmt as libpg_query's JSON tree has it (jsondom.h),
 *      the catalog's answers through `has_extension`.
 * Out: a row count; names point into the tree.  Nothing is kept.
 */
#ifndef CGMAP_DOCATALOG_H
#define CGMAP_DOCATALOG_H

#include "jsondom.h"

typedef struct cgm_do_catalog {
	void *ctx;
	/* 1: the files made the extension `name` and did not drop it, 0: not. */
	int (*has_extension)(void *ctx, const char *name);
	/* The major version of the PostgreSQL the files stand for (their
	 * builtins: data/pg15_*.tsv), which current_setting(
	 * 'server_version_num') of any of its releases gives; 0: unknown. */
	int server_major;
} cgm_do_catalog;

#define CGM_FILES_SERVER_MAJOR 15

/* The rows of a query that reads pg_extension by name alone: FROM
 * [pg_catalog.]pg_extension [[AS] alias] WHERE [alias.]extname = 'name'
 * (either way round, casts to text or name allowed), or
 * pg_available_extensions WHERE name = 'name' AND installed_version IS NOT
 * NULL (Supabase's migrations), and nothing else (no join, GROUP BY,
 * HAVING, LIMIT, WITH, set operation): 1 or 0, the name matched in *name
 * and the column holding it in *column; -1 for any other query, or with
 * no catalog.  `select` is the SelectStmt's fields. */
int cgm_do_catalog_rows(const jd_node *select, const cgm_do_catalog *catalog, const char **name,
			const char **column);

/* The name a query gives `relation` when it reads that catalog relation
 * alone: FROM [pg_catalog.]relation [[AS] alias]; NULL for anything else. */
const char *cgm_do_catalog_table(const jd_node *select, const char *relation);
/* The name `cond` looks a row up by: [table.]column = 'name', either way
 * round, casts to text or name allowed; NULL for anything else. */
const char *cgm_do_catalog_key(const jd_node *cond, const char *table, const char *column);

#endif
