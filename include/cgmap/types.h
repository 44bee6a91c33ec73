/*
 * cgmap/types.h - PostgreSQL 15 naming rules without a catalog: canonical
 * type names (as format_type prints them), identifier quoting (as
 * quote_identifier does), function identities (regprocedure text with an
 * empty search_path), and the lists of pg_catalog and extension functions
 * shipped as data.
 *
 * In:  names as the parser leaves them (unquoted identifiers already folded
 *      to lower case), or type text as a user writes it ("varchar(10)[]").
 * Out: strings allocated in the caller's arena; the static tables here are
 *      read-only and thread-safe.
 */
#ifndef CGMAP_TYPES_H
#define CGMAP_TYPES_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "cgmap/model.h"

struct jd_node;

/* True when PostgreSQL's quote_identifier would quote `ident`: anything but
 * [a-z_][a-z0-9_]*, or a keyword that is not unreserved. */
bool cgm_ident_needs_quotes(const char *ident);
/* `ident` quoted like quote_identifier ("" doubled inside quotes). */
const char *cgm_quote_ident(cgm_arena *arena, const char *ident);
/* `schema.name` like quote_qualified_identifier; schema NULL: just name. */
const char *cgm_quote_qualified(cgm_arena *arena, const char *schema, const char *name);

/* The format_type text of a pg_catalog type given by its pg_type name
 * ("int4" -> "integer", "_int4" -> "integer[]", "any" -> "\"any\""), or
 * NULL when PostgreSQL 15 has no such type in pg_catalog. */
const char *cgm_catalog_type(cgm_arena *arena, const char *typname);

/* The type each argument a VARIADIC parameter of type `param` expands is
 * matched against: the element of an array ("text[]" -> "text"), and the
 * polymorphic element of a polymorphic array (anyarray -> anyelement,
 * anycompatiblearray -> anycompatible, as PostgreSQL's parser binds them);
 * `param` itself otherwise ("any").  NULL for NULL. */
const char *cgm_variadic_element(cgm_arena *arena, const char *param);

/* The pg_type names of every non-array pg_catalog type, in byte order. */
const char *const *cgm_catalog_type_names(int *count);

/* How to name types that are not in pg_catalog.  Every member may be NULL. */
typedef struct cgm_type_resolver {
	/* Schema of the user type `name` visible through the current
	 * search_path, or NULL when no such type is known. */
	const char *(*type_schema)(void *ctx, const char *name);
	/* Canonical type of the column names[0..n-1] (`tab.col%TYPE`,
	 * `sch.tab.col%TYPE`), or NULL when unknown. */
	const char *(*column_type)(void *ctx, const char *const *names, int n);
	void *ctx;
	/* Schema given to an unqualified type nobody knows (PostgreSQL would
	 * have refused it; the creation schema is the best guess).  NULL:
	 * leave such a type unqualified. */
	const char *default_schema;
} cgm_type_resolver;

/* Canonical name of the type `schema.name` (schema NULL when unqualified)
 * with `array_dims` trailing [] (any count prints as one "[]", like
 * format_type).  Typmods are never part of it (format_type_be drops them). */
const char *cgm_type_canonical(cgm_arena *arena, const char *schema, const char *name,
			       int array_dims, const cgm_type_resolver *resolver);

/* Canonical name of a libpg_query JSON TypeName node (the object holding
 * "names", "arrayBounds", "pct_type", ...; "setof" is the caller's).
 * NULL when it names a %TYPE the resolver cannot answer. */
const char *cgm_type_canonical_json(cgm_arena *arena, const struct jd_node *type_name,
				    const cgm_type_resolver *resolver);

/* Canonical name of type text as a user writes it: "int", "varchar(10)",
 * "timestamptz", "int[]", "pg_catalog.int4", "app.status".  NULL (message
 * set, CGM_EINPUT) when it is not a type name. */
const char *cgm_type_canonical_text(cgm_arena *arena, const char *text,
				    const cgm_type_resolver *resolver);

/* "integer,text[]" from canonical argument types ("" for none): the
 * argument part of a regprocedure id, which PostgreSQL prints without spaces. */
const char *cgm_identity_args(cgm_arena *arena, const char *const *argtypes, int nargs);
/* The regprocedure text PostgreSQL prints with an empty search_path:
 * `schema.name(integer,text)` with schema and name quoted like
 * quote_identifier; a pg_catalog function stays unqualified, as it is
 * visible through the implicit pg_catalog. */
const char *cgm_regprocedure(cgm_arena *arena, const char *schema, const char *name,
			     const char *const *argtypes, int nargs);

/* The PostgreSQL 15 pg_catalog functions (data/pg15_builtins.tsv, written
 * by scripts/gen_builtins.sh), appended to `model` as builtin functions so
 * offline resolution tells a builtin from a missing callee.  The file is
 * looked for in $CGMAP_DATADIR, next to the executable (../share/cgmap and
 * ./data) and in the source tree the binary was built from.  Returns the
 * number of functions added, or CGM_ESOURCE (message set) when no readable
 * list is found. */
int cgm_builtins_load(cgm_model *model);
/* The relations of pg_catalog and information_schema with their typed
 * columns, and information_schema's domains (data/pg15_relations.tsv, next
 * to the builtins list), all in `arena`: what typing a query of the catalog
 * needs offline.  Returns 0 (none when the list is not installed), or
 * CGM_ESOURCE (message set) when it cannot be read. */
int cgm_catalog_relations_read(cgm_relation **relations, int *nrelations, cgm_type_info **infos,
			       int *ninfos, cgm_arena *arena);

/* The file cgm_builtins_load reads, or NULL when none is found. */
const char *cgm_builtins_path(cgm_arena *arena);

/* An operator class an extension makes, with the support functions an
 * index of its type calls: the members of its family whose left and right
 * types are the class's, numbers and function ids in parallel. */
typedef struct cgm_extension_opclass {
	const char *schema, *name, *am;
	const char *type; /* the input type, canonical */
	bool is_default;
	int *numbers;
	const char **function_ids;
	int nprocs;
} cgm_extension_opclass;

/* What an extension creates (data/pg15_extensions.tsv): its functions
 * (builtin and from_extension set, types qualified), its types as parallel
 * name/schema lists with what resolution knows of each, and its casts. */
typedef struct cgm_extension_contents {
	cgm_function *functions;
	int nfunctions;
	const char **types, **type_schemas;
	int ntypes;
	cgm_type_info *type_infos; /* canonical names; a list written before
				    * typtype was recorded has none */
	int ntype_infos;
	cgm_cast *casts;           /* builtin false, function -1 */
	int ncasts;
	cgm_operator *operators;   /* canonical types; builtin false, function -1,
				    * function_id the extension's function's id */
	int noperators;
	const char **requires;     /* the extensions it requires (its control file's) */
	int nrequires;
	cgm_relation *relations;   /* its tables, views and composite types, with their
				    * columns' types canonical */
	const char **relation_queries; /* per relation, a view's query as
					* pg_get_viewdef prints it, names qualified
					* (NULL for another relation, or when the
					* list is older than its queries) */
	int nrelations;
	cgm_aggregate *aggregates; /* its aggregates' support functions, by id;
				    * aggregate and support -1 */
	int naggregates;
	const char **db_path;      /* the schemas its script adds to the end of the
				    * database's search_path (ALTER DATABASE ... SET) */
	int ndb_path;
	cgm_extension_opclass *opclasses; /* its operator classes */
	int nopclasses;
} cgm_extension_contents;

/* What extension `extension` creates when made in `schema`, into *out, all
 * in `arena` (the list is next to the builtins list).  Returns 1 when the
 * extension is listed, 0 when not, CGM_ESOURCE (message set) when the list
 * cannot be read. */
int cgm_extension_contents_read(cgm_extension_contents *out, cgm_arena *arena,
				const char *extension, const char *schema);

#endif
