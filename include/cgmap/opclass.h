/*
 * opclass.h - operator classes: the support functions an index's access
 * method calls on a statement's behalf.
 *
 * An index calls the support functions of its columns' operator classes
 * to insert a row's entry (INSERT, and an UPDATE that is not HOT) and to
 * scan (a read whose plan uses the index; an exclusion constraint's check
 * of each new row).  The live catalog lists them in pg_amproc
 * (src/source_pg.c asks it the same question); SQL files declare them with
 * CREATE OPERATOR CLASS, which src/source_sql.c collects here and looks up
 * for each index and PRIMARY KEY, UNIQUE or EXCLUDE constraint.
 *
 * Strings are not copied: they live as long as the caller's arena.  The
 * set's arrays are malloc'd; cgm_opclass_set_free frees them.
 */
#ifndef CGMAP_OPCLASS_H
#define CGMAP_OPCLASS_H

#include <stdbool.h>

#include "cgmap/arena.h"

/* The CGM_EV_* bits of the statements on whose behalf access method `am`
 * calls its support function `number`, by PostgreSQL 15's btree, hash,
 * GiST, GIN, SP-GiST and BRIN; an exclusion constraint's index also scans
 * on INSERT and UPDATE.  Every statement but TRUNCATE for another access
 * method; 0 for a number the method calls for none (options, sort
 * support at CREATE INDEX). */
unsigned cgm_opclass_support_events(const char *am, int number, bool exclusion);

typedef struct cgm_opclass_proc {
	int number;
	int fn; /* the caller's function index */
} cgm_opclass_proc;

typedef struct cgm_opclass {
	const char *schema, *name, *am;
	const char *type;   /* the input type, canonical */
	/* Its operator family (SQL files: ALTER OPERATOR FAMILY ... ADD
	 * FUNCTION gives the classes of the family their support functions);
	 * NULL when not known. */
	const char *family_schema, *family;
	bool is_default;
	bool dropped;
	cgm_opclass_proc *procs;
	int nprocs;
} cgm_opclass;

/* A support function of a family that no class declared (SQL files:
 * ALTER OPERATOR FAMILY ... ADD FUNCTION), for the classes of the family
 * whose input type is `type`, made before or after it. */
typedef struct cgm_opfamily_proc {
	const char *family_schema, *family, *am, *type;
	int number;
	int fn; /* the caller's function index */
} cgm_opfamily_proc;

typedef struct cgm_opclass_set {
	cgm_opclass *items;
	int n, cap;
	cgm_opfamily_proc *loose;
	int nloose, loose_cap;
} cgm_opclass_set;

/* A new operator class, its procedures added with cgm_opclass_add_proc;
 * a later one of the same name and method hides an earlier one. */
cgm_opclass *cgm_opclass_add(cgm_opclass_set *set, const char *schema, const char *name,
			     const char *am, const char *type, bool is_default);
void cgm_opclass_add_proc(cgm_opclass *oc, int number, int fn);

/* A family's support function `fn` of number `number` for input type
 * `type` (strings the caller's): kept for the classes of the family made
 * later, which cgm_opclass_adopt_family_procs gives it.  pg_dump writes a
 * family's loose members (GiST's optional compress, decompress, distance
 * and fetch among them) before the class that uses them. */
void cgm_opclass_add_family_proc(cgm_opclass_set *set, const char *family_schema,
				 const char *family, const char *am, const char *type,
				 int number, int fn);
/* The family procedures kept for oc's family, method and input type, added
 * to oc. */
void cgm_opclass_adopt_family_procs(const cgm_opclass_set *set, cgm_opclass *oc);

/* The operator class `name` of method `am` in `schema`, or along `path`
 * when schema is NULL; NULL when none. */
const cgm_opclass *cgm_opclass_find(const cgm_opclass_set *set, const char *schema,
				    const char *name, const char *am, const char *const *path,
				    int npath);
/* The default operator class of method `am` for `type`, or NULL. */
const cgm_opclass *cgm_opclass_default(const cgm_opclass_set *set, const char *am,
				       const char *type);

void cgm_opclass_set_free(cgm_opclass_set *set);

/* The name PostgreSQL gives an index it makes for a constraint or a
 * CREATE INDEX without one (ChooseRelationName with ChooseIndexNameAddition):
 * "table_col1_col2_label" cut to 63 bytes, the longer of the two names
 * losing bytes first; NULL columns for a name of the table and label alone
 * ("table_pkey").  A name already taken would get a number PostgreSQL
 * adds, which this does not guess. */
const char *cgm_index_name(cgm_arena *arena, const char *table, const char *const *columns,
			   int ncolumns, const char *label);

#endif
