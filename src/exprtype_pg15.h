/*
 * exprtype_pg15.h - PostgreSQL 15's own types for expression typing
 * (src/exprtype_pg15.c, written by scripts/gen_pg15_types.sh).  Both
 * tables are sorted in byte order of their names.
 */
#ifndef CGMAP_EXPRTYPE_PG15_H
#define CGMAP_EXPRTYPE_PG15_H

#include <stdbool.h>

typedef struct cgm_pg15_type {
	const char *name;  /* format_type text */
	char category;     /* pg_type.typcategory */
	bool preferred;    /* pg_type.typispreferred */
} cgm_pg15_type;

typedef struct cgm_pg15_cast {
	const char *source, *target;
} cgm_pg15_cast;

extern const cgm_pg15_type cgm_pg15_types[];
extern const int cgm_pg15_ntypes;
extern const cgm_pg15_cast cgm_pg15_implicit_casts[];
extern const int cgm_pg15_nimplicit_casts;

#endif
