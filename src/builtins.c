/*
 * builtins.c - what PostgreSQL 15 itself and its extensions define, read
 * from the data files scripts/gen_builtins.sh writes from a real server:
 * data/pg15_builtins.tsv (the pg_catalog functions, appended to a model as
 * builtins) and data/pg15_extensions.tsv (per extension, its functions,
 * types, casts, operators, relations and aggregates' support functions,
 * and the extensions it requires; see cgmap/types.h).
 *
 * In:  the model or an arena; the files found in $CGMAP_DATADIR, beside the
 *      executable, or in the source tree (CGMAP_DATADIR compile definition).
 * Out: functions with builtin = true, every string in the arena given.
 */
#include "cgmap/types.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/error.h"

#define BUILTINS_FILE "pg15_builtins.tsv"
#define EXTENSIONS_FILE "pg15_extensions.tsv"
#define RELATIONS_FILE "pg15_relations.tsv"

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

const char *cgm_builtins_path(cgm_arena *arena)
{
	const char *env = getenv("CGMAP_DATADIR");
	if (env && *env) {
		const char *p = cgm_arena_printf(arena, "%s/%s", env, BUILTINS_FILE);
		if (readable(p))
			return p;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		const char *dir = dirname(exe);
		/* Installed (bin/../share/cgmap), or a build folder holding data/. */
		const char *candidates[] = { "%s/../share/cgmap/%s", "%s/data/%s", "%s/%s" };
		for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
			const char *p = cgm_arena_printf(arena, candidates[i], dir, BUILTINS_FILE);
			if (readable(p))
				return p;
		}
	}
#ifdef CGMAP_DATADIR
	const char *p = cgm_arena_printf(arena, "%s/%s", CGMAP_DATADIR, BUILTINS_FILE);
	if (readable(p))
		return p;
#endif
	return NULL;
}

/* Split `line` in place at tabs into at most `max` fields; returns the count. */
static int split_fields(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	while (n < max) {
		fields[n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

/* Split "a, b, c" (sep ", ") or "a,b" (sep ",") into arena strings. */
static int split_list(cgm_arena *arena, const char *text, const char *sep,
		      const char ***out)
{
	*out = NULL;
	if (!*text)
		return 0;
	int n = 1;
	size_t seplen = strlen(sep);
	for (const char *p = text; (p = strstr(p, sep)) != NULL; p += seplen)
		n++;
	const char **items = cgm_arena_alloc(arena, sizeof(char *) * (size_t)n);
	const char *start = text;
	for (int i = 0; i < n; i++) {
		const char *end = strstr(start, sep);
		size_t len = end ? (size_t)(end - start) : strlen(start);
		items[i] = cgm_arena_strndup(arena, start, len);
		start = end ? end + seplen : start + len;
	}
	*out = items;
	return n;
}

/* "@extschema@.t" -> "schema.t" in a type list or result ("" schema: none). */
static const char *in_schema(cgm_arena *arena, const char *text, const char *qualified_schema)
{
	static const char placeholder[] = "@extschema@.";
	if (!strstr(text, placeholder))
		return cgm_arena_strdup(arena, text);
	size_t plen = sizeof placeholder - 1;
	size_t n = 1;
	for (const char *p = text; (p = strstr(p, placeholder)) != NULL; p += plen)
		n++;
	char *out = cgm_arena_alloc(arena, strlen(text) + n * strlen(qualified_schema) + 1);
	char *o = out;
	for (const char *p = text; *p;) {
		if (strncmp(p, placeholder, plen) == 0) {
			o += sprintf(o, "%s.", qualified_schema);
			p += plen;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* One function row (name argtypes ndefaults variadic kind result argnames
 * language, then outname when nfields is 9) into fn; qualified_schema
 * replaces @extschema@ in its types.  Returns 0, or -1 when the kind is
 * unknown. */
static int parse_function_row(cgm_arena *arena, cgm_function *fn, char **f, int nfields,
			      const char *schema, const char *qualified_schema)
{
	fn->builtin = true;
	fn->schema = schema;
	fn->name = cgm_arena_strdup(arena, f[0]);
	fn->nargs = split_list(arena, in_schema(arena, f[1], qualified_schema), ", ", &fn->argtypes);
	fn->identity_args = cgm_identity_args(arena, fn->argtypes, fn->nargs);
	fn->id = cgm_regprocedure(arena, fn->schema, fn->name, fn->argtypes, fn->nargs);
	fn->ndefaults = atoi(f[2]);
	fn->variadic = strcmp(f[3], "-") != 0;
	fn->variadic_elem = fn->variadic ? in_schema(arena, f[3], qualified_schema) : NULL;
	if (cgm_kind_parse(&fn->kind, f[4]) < 0)
		return -1;
	fn->result = *f[5] ? in_schema(arena, f[5], qualified_schema) : NULL;
	fn->is_trigger = strcmp(f[5], "trigger") == 0 || strcmp(f[5], "event_trigger") == 0;
	const char **names = NULL;
	int nnames = split_list(arena, f[6], ",", &names);
	if (nnames == fn->nargs && nnames > 0) {
		for (int i = 0; i < nnames; i++)
			if (strcmp(names[i], "-") == 0)
				names[i] = NULL;
		fn->argnames = names;
	}
	fn->language = cgm_arena_strdup(arena, f[7]);
	fn->out_name = nfields >= 9 && f[8][0] ? cgm_arena_strdup(arena, f[8]) : NULL;
	fn->npath = -1;
	fn->scc = -1;
	return 0;
}

/* Open a data file found like the builtins list. */
static FILE *open_data(cgm_arena *arena, const char *name, const char **path)
{
	*path = cgm_builtins_path(arena);
	if (!*path) {
		cgm_error(CGM_ESOURCE,
			  "cannot find \"%s\" (the list of PostgreSQL 15 builtin functions); "
			  "set CGMAP_DATADIR to the folder holding it",
			  BUILTINS_FILE);
		return NULL;
	}
	if (strcmp(name, BUILTINS_FILE) != 0) {
		/* The other data files sit next to the builtins list. */
		const char *slash = strrchr(*path, '/');
		*path = cgm_arena_printf(arena, "%.*s/%s", (int)(slash - *path), *path, name);
	}
	FILE *in = fopen(*path, "r");
	if (!in)
		cgm_error(CGM_ESOURCE, "cannot read \"%s\": %s", *path, strerror(errno));
	return in;
}

/* The next data line split at tabs into at most `max` fields: the field
 * count, 0 at the end of the file. */
static int next_row(FILE *in, char **line, size_t *cap, int *lineno, char **f, int max)
{
	ssize_t len;
	while ((len = getline(line, cap, in)) >= 0) {
		(*lineno)++;
		while (len > 0 && ((*line)[len - 1] == '\n' || (*line)[len - 1] == '\r'))
			(*line)[--len] = '\0';
		if (len == 0 || (*line)[0] == '#')
			continue;
		return split_fields(*line, f, max);
	}
	return 0;
}

int cgm_builtins_load(cgm_model *model)
{
	cgm_arena *arena = model->arena;
	const char *path;
	FILE *in = open_data(arena, BUILTINS_FILE, &path);
	if (!in)
		return CGM_ESOURCE;
	char *line = NULL, *f[9];
	size_t cap = 0;
	int lineno = 0, added = 0, rc;
	while ((rc = next_row(in, &line, &cap, &lineno, f, 9)) > 0) {
		if (rc != 9) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: expected 9 tab-separated fields",
				       path, lineno);
			break;
		}
		cgm_function *fn = cgm_model_add_function(model);
		if (parse_function_row(arena, fn, f, 9, "pg_catalog", "pg_catalog") < 0) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: unknown kind \"%s\"", path, lineno,
				       f[4]);
			break;
		}
		added++;
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : added;
}

/* A type row's facts (name, typtype, typcategory, typispreferred, base
 * type or "-" at f[0..4]) in `schema`; qualified_schema replaces
 * @extschema@ in the base type. */
static void read_type_info(cgm_arena *arena, cgm_type_info *info, const char *schema, char **f,
			   const char *qualified_schema)
{
	memset(info, 0, sizeof *info);
	info->name = cgm_arena_printf(arena, "%s.%s", cgm_quote_ident(arena, schema),
				      cgm_quote_ident(arena, f[0]));
	info->kind = f[1][0];
	info->category = f[2][0];
	info->preferred = f[3][0] == 't';
	info->base = strcmp(f[4], "-") != 0 ? in_schema(arena, f[4], qualified_schema) : NULL;
}

/* A relation's columns from its list's ";"-separated names and types
 * (none when the two counts differ), "@extschema@." in a type made the
 * quoted schema given. */
static void read_columns(cgm_arena *arena, cgm_relation *r, const char *names_text,
			 const char *types_text, const char *qualified_schema)
{
	const char **names = NULL, **types = NULL;
	int nn = split_list(arena, names_text, ";", &names);
	int nt = split_list(arena, types_text, ";", &types);
	if (nn <= 0 || nn != nt)
		return;
	r->columns = cgm_arena_alloc(arena, sizeof(cgm_column) * (size_t)nn);
	for (int c = 0; c < nn; c++)
		r->columns[c] = (cgm_column){ names[c], in_schema(arena, types[c], qualified_schema) };
	r->ncolumns = nn;
}

/* Append one element to an arena array of *n with capacity *cap. */
static void *arena_push(cgm_arena *arena, void *array, int *n, int *cap, size_t size)
{
	if (*n == *cap) {
		int grown = *cap ? *cap * 2 : 16;
		array = cgm_arena_grow(arena, array, (size_t)*n, (size_t)grown, size);
		*cap = grown;
	}
	(*n)++;
	return array;
}

int cgm_extension_contents_read(cgm_extension_contents *out, cgm_arena *arena,
				const char *extension, const char *schema)
{
	memset(out, 0, sizeof *out);
	const char *path;
	FILE *in = open_data(arena, EXTENSIONS_FILE, &path);
	if (!in)
		return CGM_ESOURCE;
	const char *qualified = cgm_quote_ident(arena, schema);
	char *line = NULL, *f[12];
	size_t cap = 0;
	int lineno = 0, rc, found = 0, capf = 0, capt = 0, capi = 0, capc = 0, capo = 0, capr = 0, capl = 0, capg = 0,
	    capk = 0, capq = 0;
	while ((rc = next_row(in, &line, &cap, &lineno, f, 12)) > 0) {
		bool type = rc >= 4 && strcmp(f[1], "type") == 0;
		bool cast = rc == 8 && strcmp(f[1], "cast") == 0;
		bool operator = rc == 8 && strcmp(f[1], "operator") == 0;
		bool requires = rc == 4 && strcmp(f[1], "requires") == 0;
		bool dbpath = rc == 4 && strcmp(f[1], "dbpath") == 0;
		bool relation = (rc == 7 || rc == 8) && strcmp(f[1], "relation") == 0;
		bool aggsupport = rc == 6 && strcmp(f[1], "aggsupport") == 0;
		bool opclass = rc == 9 && strcmp(f[1], "opclass") == 0;
		/* A function row written before outname was listed has 11. */
		if (!(type && (rc == 4 || rc == 8)) && !cast && !operator && !requires && !dbpath &&
		    !relation && !aggsupport && !opclass && rc != 11 && rc != 12) {
			rc = cgm_error(CGM_ESOURCE,
				       "\"%s\":%d: expected 4 (requires, dbpath), 4 or 8 (type), 6 "
				       "(aggsupport), 7 or 8 (relation), 8 (cast or operator), 9 (opclass) "
				       "or 11 or 12 (function) fields",
				       path, lineno);
			break;
		}
		if (strcmp(f[0], extension) != 0)
			continue;
		found = 1;
		/* @extschema@: where the extension is created; else its fixed schema. */
		const char *where = strcmp(f[2], "@extschema@") == 0 ? cgm_arena_strdup(arena, schema)
								    : cgm_arena_strdup(arena, f[2]);
		if (type) {
			if (out->ntypes == capt) {
				int grown = capt ? capt * 2 : 8;
				out->types = cgm_arena_grow(arena, out->types, (size_t)out->ntypes,
							    (size_t)grown, sizeof(char *));
				out->type_schemas = cgm_arena_grow(arena, out->type_schemas,
								   (size_t)out->ntypes, (size_t)grown,
								   sizeof(char *));
				capt = grown;
			}
			out->types[out->ntypes] = cgm_arena_strdup(arena, f[3]);
			out->type_schemas[out->ntypes++] = where;
			if (rc == 8) {
				out->type_infos = arena_push(arena, out->type_infos, &out->ntype_infos, &capi,
							     sizeof(cgm_type_info));
				read_type_info(arena, &out->type_infos[out->ntype_infos - 1], where, f + 3,
					       qualified);
			}
			continue;
		}
		if (cast) {
			out->casts = arena_push(arena, out->casts, &out->ncasts, &capc, sizeof(cgm_cast));
			cgm_cast *c = &out->casts[out->ncasts - 1];
			memset(c, 0, sizeof *c);
			c->source = in_schema(arena, f[3], qualified);
			c->target = in_schema(arena, f[4], qualified);
			c->context = f[5][0];
			c->method = f[6][0];
			c->function_id = strcmp(f[7], "-") != 0 ? in_schema(arena, f[7], qualified) : NULL;
			c->function = -1;
			continue;
		}
		if (dbpath) {
			out->ndb_path = split_list(arena, f[3], ";", &out->db_path);
			continue;
		}
		if (aggsupport) {
			const char **roles = NULL, **ids = NULL;
			int nr = split_list(arena, f[4], ";", &roles);
			int ni = split_list(arena, f[5], ";", &ids);
			if (nr != ni) {
				rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: %d roles for %d support functions",
					       path, lineno, nr, ni);
				break;
			}
			out->aggregates = arena_push(arena, out->aggregates, &out->naggregates, &capg,
						     sizeof(cgm_aggregate));
			cgm_aggregate *g = &out->aggregates[out->naggregates - 1];
			memset(g, 0, sizeof *g);
			g->aggregate_id = in_schema(arena, f[3], qualified);
			g->aggregate = -1;
			g->nsupport = ni;
			g->support_roles = roles;
			g->support_ids = ids;
			for (int k = 0; k < ni; k++)
				ids[k] = in_schema(arena, ids[k], qualified);
			continue;
		}
		if (opclass) {
			const char **numbers = NULL, **ids = NULL;
			int nn = split_list(arena, f[7], ";", &numbers);
			int ni = split_list(arena, f[8], ";", &ids);
			if (nn != ni) {
				rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: %d support numbers for %d functions",
					       path, lineno, nn, ni);
				break;
			}
			out->opclasses = arena_push(arena, out->opclasses, &out->nopclasses, &capk,
						    sizeof(cgm_extension_opclass));
			cgm_extension_opclass *k = &out->opclasses[out->nopclasses - 1];
			memset(k, 0, sizeof *k);
			k->schema = where;
			k->name = cgm_arena_strdup(arena, f[3]);
			k->am = cgm_arena_strdup(arena, f[4]);
			k->type = in_schema(arena, f[5], qualified);
			k->is_default = strcmp(f[6], "t") == 0;
			k->numbers = cgm_arena_alloc(arena, sizeof(int) * (size_t)(nn ? nn : 1));
			for (int i = 0; i < nn; i++) {
				k->numbers[i] = atoi(numbers[i]);
				ids[i] = in_schema(arena, ids[i], qualified);
			}
			k->function_ids = ids;
			k->nprocs = nn;
			continue;
		}
		if (relation) {
			out->relations = arena_push(arena, out->relations, &out->nrelations, &capl,
						    sizeof(cgm_relation));
			int nqueries = out->nrelations - 1; /* the array in step with relations */
			out->relation_queries = arena_push(arena, out->relation_queries, &nqueries, &capq,
							   sizeof(char *));
			out->relation_queries[nqueries - 1] =
				rc == 8 && strcmp(f[7], "-") != 0 ? in_schema(arena, f[7], qualified) : NULL;
			cgm_relation *r = &out->relations[out->nrelations - 1];
			memset(r, 0, sizeof *r);
			r->schema = where;
			r->name = cgm_arena_strdup(arena, f[3]);
			r->relkind = f[4][0];
			read_columns(arena, r, f[5], f[6], qualified);
			continue;
		}
		if (requires) {
			out->requires = arena_push(arena, out->requires, &out->nrequires, &capr,
						   sizeof(char *));
			out->requires[out->nrequires - 1] = cgm_arena_strdup(arena, f[3]);
			continue;
		}
		if (operator) {
			out->operators = arena_push(arena, out->operators, &out->noperators, &capo,
						    sizeof(cgm_operator));
			cgm_operator *o = &out->operators[out->noperators - 1];
			memset(o, 0, sizeof *o);
			o->schema = where;
			o->name = cgm_arena_strdup(arena, f[3]);
			o->left = strcmp(f[4], "-") != 0 ? in_schema(arena, f[4], qualified) : NULL;
			o->right = in_schema(arena, f[5], qualified);
			o->result = in_schema(arena, f[6], qualified);
			o->function_id = strcmp(f[7], "-") != 0 ? in_schema(arena, f[7], qualified) : NULL;
			o->function = -1;
			continue;
		}
		out->functions = arena_push(arena, out->functions, &out->nfunctions, &capf,
					    sizeof(cgm_function));
		cgm_function *fn = &out->functions[out->nfunctions - 1];
		memset(fn, 0, sizeof *fn);
		if (parse_function_row(arena, fn, f + 3, rc - 3, where, qualified) < 0) {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: unknown kind \"%s\"", path, lineno, f[7]);
			break;
		}
		fn->from_extension = true;
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : found;
}

int cgm_catalog_relations_read(cgm_relation **relations, int *nrelations, cgm_type_info **infos,
			       int *ninfos, cgm_arena *arena)
{
	*relations = NULL;
	*infos = NULL;
	*nrelations = *ninfos = 0;
	const char *path;
	FILE *in = open_data(arena, RELATIONS_FILE, &path);
	if (!in) {
		/* An installation from before the list: catalog columns stay
		 * untyped, as they were. */
		cgm_error_clear();
		return 0;
	}
	char *line = NULL, *f[7];
	size_t cap = 0;
	int lineno = 0, rc, capr = 0, capi = 0;
	while ((rc = next_row(in, &line, &cap, &lineno, f, 7)) > 0) {
		if (rc == 6 && strcmp(f[0], "relation") == 0) {
			*relations = arena_push(arena, *relations, nrelations, &capr, sizeof(cgm_relation));
			cgm_relation *r = &(*relations)[*nrelations - 1];
			memset(r, 0, sizeof *r);
			r->schema = cgm_arena_strdup(arena, f[1]);
			r->name = cgm_arena_strdup(arena, f[2]);
			r->relkind = f[3][0];
			read_columns(arena, r, f[4], f[5], "");
		} else if (rc == 7 && strcmp(f[0], "type") == 0) {
			*infos = arena_push(arena, *infos, ninfos, &capi, sizeof(cgm_type_info));
			read_type_info(arena, &(*infos)[*ninfos - 1], f[1], f + 2, "");
		} else {
			rc = cgm_error(CGM_ESOURCE, "\"%s\":%d: expected a relation (6 fields) or a type (7)",
				       path, lineno);
			break;
		}
	}
	free(line);
	fclose(in);
	return rc < 0 ? rc : 0;
}
