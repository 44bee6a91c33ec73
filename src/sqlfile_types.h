/*
 * sqlfile_types.h - internal to the SQL-file source: what CREATE TYPE
 * makes besides the type's name, as PostgreSQL 15's typecmds.c makes it.
 *
 * In:  a CREATE TYPE's name and its definition list (libpg_query's JSON),
 *      and a lookup of functions and types in the reader's state.
 * Out: the support functions the type refers to (pg_depend: the type on
 *      the function), a range's multirange name and the constructor
 *      functions PostgreSQL creates for a range and its multirange.
 *      Everything in the arena given; nothing to free.
 */
#ifndef CGMAP_SQLFILE_TYPES_H
#define CGMAP_SQLFILE_TYPES_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"
#include "jsondom.h"

/* How the reader's state answers the module. */
typedef struct sqlfile_type_lookup {
	void *ctx;
	/* The function `parts` ([schema,] name as written) taking exactly
	 * `types`, as LookupFuncName finds it: its index among the files'
	 * functions, or -1 with *builtin_id set (a pg_catalog one), or -1
	 * with *builtin_id NULL (none).  *result: its result type. */
	int (*function)(void *ctx, const char *const *parts, int nparts, const char *const *types,
			int ntypes, const char **builtin_id, const char **result);
	/* A TypeName node's canonical type, NULL when unknown. */
	const char *(*type)(void *ctx, const jd_node *type_name);
} sqlfile_type_lookup;

/* A function the type refers to: a file's function (fn >= 0) or a
 * builtin's (fn -1), named in pg_describe_object's words. */
typedef struct sqlfile_type_support {
	int fn;
	const char *object; /* "type app.t", or "type app.t[]" for its array */
} sqlfile_type_support;

/* The most references one CREATE TYPE makes: eight functions of a base
 * type, two of them also its array's. */
#define SQLFILE_TYPE_SUPPORT_MAX 10
/* A range's constructors: two of its own, three of its multirange's. */
#define SQLFILE_RANGE_CONSTRUCTORS 5

typedef struct sqlfile_type_def {
	sqlfile_type_support support[SQLFILE_TYPE_SUPPORT_MAX];
	int nsupport;
	/* A range's: its subtype, its multirange (schema and name unquoted,
	 * canonical as `multirange`), and the constructors (all in the
	 * range's schema, the multirange's named as it is; schema, name,
	 * kind, language, arguments, result, id set; the caller adds where
	 * they were made). */
	const char *subtype;
	const char *multirange_schema, *multirange_name, *multirange;
	cgm_function constructors[SQLFILE_RANGE_CONSTRUCTORS];
	int nconstructors;
} sqlfile_type_def;

/* CREATE TYPE schema.name (INPUT = ..., OUTPUT = ..., ...): the support
 * functions of `definition` (a DefElem list; NULL for a shell type).
 * 0, or -1 with *error (in `arena`) PostgreSQL's message, when a function
 * does not exist or returns the wrong type. */
int sqlfile_base_type(const sqlfile_type_lookup *lk, cgm_arena *arena, const char *schema,
		      const char *name, const jd_node *definition, sqlfile_type_def *out,
		      const char **error);

/* CREATE TYPE schema.name AS RANGE (params): its subtype, SUBTYPE_DIFF and
 * CANONICAL functions, multirange and constructors.  `creation_schema`:
 * where an unqualified multirange_type_name goes (NULL: none); `shell`:
 * CREATE TYPE schema.name made it as a shell before.  0, or -1 with
 * *error as above (also for a missing or unknown subtype). */
int sqlfile_range_type(const sqlfile_type_lookup *lk, cgm_arena *arena, const char *schema,
		       const char *name, const char *creation_schema, bool shell,
		       const jd_node *params, sqlfile_type_def *out, const char **error);

/* The multirange name PostgreSQL makes for range `range` when none is
 * written (makeMultirangeTypeName): its first "range" becomes
 * "multirange", else "_multirange" is appended; clipped to 63 bytes. */
const char *sqlfile_multirange_name(cgm_arena *arena, const char *range);

#endif
