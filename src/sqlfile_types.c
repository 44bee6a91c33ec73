/*
 * sqlfile_types.c - what CREATE TYPE makes besides the type's name, read
 * from the statement as PostgreSQL 15's DefineType and DefineRange read it.
 *
 * In:  the type's schema and name, its definition (libpg_query's JSON
 *      DefElem list), a lookup of the reader's functions and types.
 * Out: sqlfile_type_def: the support functions the type refers to, a
 *      range's multirange and constructors; error messages.  All in the
 *      caller's arena (see sqlfile_types.h).
 *
 * The live catalog records a type's support functions as pg_depend
 * entries of the type on them, which the live source reads as references:
 * without them a type's input or output function looks unreferenced.  A
 * range's constructors are ordinary functions of pg_proc (language
 * internal) that calls in bodies resolve to.
 */
#include <stdio.h>
#include <string.h>

#include "cgmap/types.h"
#include "sqlfile_types.h"

/* A definition's argument that names a function ("INPUT = app.f_in"):
 * the grammar's def_arg makes it a TypeName, a List of Strings or a
 * String (defGetQualifiedName's cases).  The name's parts, or -1. */
static int qualified_name(const jd_node *arg, const char **parts, int max)
{
	const jd_node *list = NULL;
	const jd_node *tn = jd_get(arg, "TypeName");
	if (tn)
		list = jd_get(tn, "names");
	else if (jd_get(arg, "List"))
		list = jd_get(jd_get(arg, "List"), "items");
	else if (jd_get(arg, "String")) {
		parts[0] = jd_string(jd_get(jd_get(arg, "String"), "sval"));
		return parts[0] ? 1 : -1;
	}
	int n = (int)jd_size(list);
	if (n < 1 || n > max)
		return -1;
	for (int i = 0; i < n; i++) {
		const jd_node *s = jd_get(jd_at(list, (size_t)i), "String");
		if (!s || !(parts[i] = jd_string(jd_get(s, "sval"))))
			return -1;
	}
	return n;
}

/* NameListToString: the parts joined by dots, unquoted. */
static const char *name_text(cgm_arena *a, const char *const *parts, int n)
{
	return n >= 2 ? cgm_arena_printf(a, "%s.%s", parts[n - 2], parts[n - 1]) : parts[0];
}

/* func_signature_string: "name(type, type)". */
static const char *signature(cgm_arena *a, const char *const *parts, int n,
			     const char *const *types, int ntypes)
{
	const char *args = "";
	for (int i = 0; i < ntypes; i++)
		args = cgm_arena_printf(a, "%s%s%s", args, i ? ", " : "", types[i]);
	return cgm_arena_printf(a, "%s(%s)", name_text(a, parts, n), args);
}

/* One support function: the argument lists PostgreSQL tries, in order,
 * the result it requires, and the message when the result differs. */
typedef struct support_role {
	const char *option;     /* the definition's attribute */
	const char *tries[2][3]; /* argument types; "$" stands for the type */
	int ntries[2];
	const char *result;     /* "$": the type */
	const char *wrong;      /* "... %s must return type %s" */
	bool array_too;         /* the array type refers to it as well */
} support_role;

static const support_role base_roles[] = {
	{ "input", { { "cstring" }, { "cstring", "oid", "integer" } }, { 1, 3 }, "$",
	  "type input function %s must return type %s", false },
	{ "output", { { "$" } }, { 1, 0 }, "cstring", "type output function %s must return type %s",
	  false },
	{ "receive", { { "internal" }, { "internal", "oid", "integer" } }, { 1, 3 }, "$",
	  "type receive function %s must return type %s", false },
	{ "send", { { "$" } }, { 1, 0 }, "bytea", "type send function %s must return type %s", false },
	{ "typmod_in", { { "cstring[]" } }, { 1, 0 }, "integer",
	  "typmod_in function %s must return type %s", true },
	{ "typmod_out", { { "integer" } }, { 1, 0 }, "cstring",
	  "typmod_out function %s must return type %s", true },
	{ "analyze", { { "internal" } }, { 1, 0 }, "boolean",
	  "type analyze function %s must return type %s", false },
	{ "subscript", { { "internal" } }, { 1, 0 }, "internal",
	  "type subscripting function %s must return type %s", false },
};

static const support_role range_roles[] = {
	{ "subtype_diff", { { "@", "@" } }, { 2, 0 }, "double precision",
	  "function %s must return type %s", false },
	{ "canonical", { { "$" } }, { 1, 0 }, "$", "function %s must return type %s", false },
};

/* "$" is the type, "@" the range's subtype. */
static const char *role_type(const char *t, const char *type, const char *subtype)
{
	return strcmp(t, "$") == 0 ? type : strcmp(t, "@") == 0 ? subtype : t;
}

/* Finds the function `arg` names for `role` and files it under `type`
 * (and its array).  0, or -1 with *error. */
static int add_support(const sqlfile_type_lookup *lk, cgm_arena *a, const support_role *role,
		       const jd_node *arg, const char *type, const char *subtype,
		       sqlfile_type_def *out, const char **error)
{
	const char *parts[3];
	int n = qualified_name(arg, parts, 3);
	if (n < 0) {
		*error = cgm_arena_printf(a, "invalid function name for type attribute \"%s\"",
					  role->option);
		return -1;
	}
	const char *first[3];
	for (int t = 0; t < role->ntries[0]; t++)
		first[t] = role_type(role->tries[0][t], type, subtype);
	for (int k = 0; k < 2 && role->ntries[k]; k++) {
		const char *types[3];
		for (int t = 0; t < role->ntries[k]; t++)
			types[t] = role_type(role->tries[k][t], type, subtype);
		const char *builtin = NULL, *result = NULL;
		int fn = lk->function(lk->ctx, parts, n, types, role->ntries[k], &builtin, &result);
		if (fn < 0 && !builtin)
			continue;
		const char *want = role_type(role->result, type, subtype);
		if (!result || strcmp(result, want) != 0) {
			char msg[512];
			snprintf(msg, sizeof msg, role->wrong, name_text(a, parts, n), want);
			*error = cgm_arena_strdup(a, msg);
			return -1;
		}
		/* pg_catalog's are references the live source leaves out. */
		if (fn >= 0) {
			for (int r = 0; r < (role->array_too ? 2 : 1); r++) {
				if (out->nsupport == SQLFILE_TYPE_SUPPORT_MAX)
					break;
				out->support[out->nsupport].fn = fn;
				out->support[out->nsupport++].object =
					cgm_arena_printf(a, "type %s%s", type, r ? "[]" : "");
			}
		}
		return 0;
	}
	*error = cgm_arena_printf(a, "function %s does not exist",
				  signature(a, parts, n, first, role->ntries[0]));
	return -1;
}

static const jd_node *defelem(const jd_node *item, const char **name)
{
	const jd_node *d = jd_get(item, "DefElem");
	*name = jd_string(jd_get(d, "defname"));
	return d;
}

int sqlfile_base_type(const sqlfile_type_lookup *lk, cgm_arena *arena, const char *schema,
		      const char *name, const jd_node *definition, sqlfile_type_def *out,
		      const char **error)
{
	memset(out, 0, sizeof *out);
	if (!definition)
		return 0; /* a shell type */
	const char *type = cgm_quote_qualified(arena, schema, name);
	const jd_node *given[sizeof base_roles / sizeof base_roles[0]] = { 0 };
	for (size_t i = 0; i < jd_size(definition); i++) {
		const char *opt;
		const jd_node *d = defelem(jd_at(definition, i), &opt);
		for (size_t r = 0; opt && r < sizeof base_roles / sizeof base_roles[0]; r++)
			if (strcmp(opt, base_roles[r].option) == 0)
				given[r] = jd_get(d, "arg"); /* the last one written: DefineType
							      * refuses repeats, nothing is lost */
	}
	if (!given[0]) {
		*error = "type input function must be specified";
		return -1;
	}
	if (!given[1]) {
		*error = "type output function must be specified";
		return -1;
	}
	/* DefineType looks them up in this order, and stops at the first
	 * that fails. */
	for (size_t r = 0; r < sizeof base_roles / sizeof base_roles[0]; r++)
		if (given[r] && add_support(lk, arena, &base_roles[r], given[r], type, NULL, out, error) < 0)
			return -1;
	return 0;
}

const char *sqlfile_multirange_name(cgm_arena *arena, const char *range)
{
	const char *at = strstr(range, "range");
	const char *name = at ? cgm_arena_printf(arena, "%.*smulti%s", (int)(at - range), range, at)
			      : cgm_arena_printf(arena, "%s_multirange", range);
	size_t len = strlen(name);
	if (len <= 63)
		return name;
	/* pg_mbcliplen in UTF-8: never cut a character in two. */
	len = 63;
	while (len > 0 && ((unsigned char)name[len] & 0xC0) == 0x80)
		len--;
	return cgm_arena_strndup(arena, name, len);
}

/* A constructor: schema.name(types) returning `result`, the last
 * parameter VARIADIC when `variadic`. */
static void constructor(cgm_arena *a, cgm_function *f, const char *schema, const char *name,
			const char *const *types, int ntypes, const char *result, bool variadic)
{
	memset(f, 0, sizeof *f);
	f->schema = schema;
	f->name = name;
	f->kind = CGM_KIND_FUNCTION;
	f->language = "internal";
	f->npath = -1;
	f->scc = -1;
	f->argtypes = cgm_arena_alloc(a, sizeof(char *) * (size_t)(ntypes ? ntypes : 1));
	const char *args = "";
	for (int i = 0; i < ntypes; i++) {
		f->argtypes[i] = types[i];
		args = cgm_arena_printf(a, "%s%s%s%s", args, i ? ", " : "",
					variadic && i == ntypes - 1 ? "VARIADIC " : "", types[i]);
	}
	f->nargs = ntypes;
	f->arguments = args;
	f->identity_args = cgm_identity_args(a, f->argtypes, ntypes);
	f->result = result;
	if (variadic) {
		f->variadic = true;
		f->variadic_elem = cgm_variadic_element(a, types[ntypes - 1]);
	}
	f->id = cgm_regprocedure(a, schema, name, f->argtypes, ntypes);
}

int sqlfile_range_type(const sqlfile_type_lookup *lk, cgm_arena *arena, const char *schema,
		       const char *name, const char *creation_schema, bool shell, const jd_node *params,
		       sqlfile_type_def *out, const char **error)
{
	memset(out, 0, sizeof *out);
	const char *type = cgm_quote_qualified(arena, schema, name);
	const jd_node *diff = NULL, *canonical = NULL;
	for (size_t i = 0; i < jd_size(params); i++) {
		const char *opt;
		const jd_node *d = defelem(jd_at(params, i), &opt);
		const jd_node *arg = jd_get(d, "arg");
		if (!opt)
			continue;
		if (strcmp(opt, "subtype") == 0) {
			const jd_node *tn = jd_get(arg, "TypeName");
			if (!tn || !(out->subtype = lk->type(lk->ctx, tn))) {
				*error = "the range's subtype is not a known type";
				return -1;
			}
		} else if (strcmp(opt, "subtype_diff") == 0) {
			diff = arg;
		} else if (strcmp(opt, "canonical") == 0) {
			canonical = arg;
		} else if (strcmp(opt, "multirange_type_name") == 0) {
			const char *parts[3];
			int n = qualified_name(arg, parts, 3);
			if (n < 1 || n > 2) {
				*error = "invalid multirange_type_name";
				return -1;
			}
			/* QualifiedNameGetCreationNamespace: unqualified, the
			 * first schema of the path, not the range's. */
			out->multirange_schema = n == 2 ? cgm_arena_strdup(arena, parts[0]) : creation_schema;
			out->multirange_name = cgm_arena_strdup(arena, parts[n - 1]);
			if (!out->multirange_schema) {
				*error = "no schema has been selected to create in";
				return -1;
			}
		}
	}
	if (!out->subtype) {
		*error = "type attribute \"subtype\" is required";
		return -1;
	}
	if (!out->multirange_name) {
		out->multirange_schema = schema;
		out->multirange_name = sqlfile_multirange_name(arena, name);
	}
	out->multirange = cgm_quote_qualified(arena, out->multirange_schema, out->multirange_name);
	/* DefineRange: the canonical function first, then the difference.
	 * The canonical one takes the range, which must exist as a shell. */
	if (canonical && !shell) {
		*error = "cannot specify a canonical function without a pre-created shell type";
		return -1;
	}
	if (canonical && add_support(lk, arena, &range_roles[1], canonical, type, out->subtype, out, error) < 0)
		return -1;
	if (diff && add_support(lk, arena, &range_roles[0], diff, type, out->subtype, out, error) < 0)
		return -1;

	const char *two[] = { out->subtype, out->subtype, "text" };
	constructor(arena, &out->constructors[0], schema, name, two, 2, type, false);
	constructor(arena, &out->constructors[1], schema, name, two, 3, type, false);
	const char *range_array[] = { cgm_arena_printf(arena, "%s[]", type) };
	const char *one[] = { type };
	/* makeMultirangeConstructors puts them in the range's schema, even
	 * when multirange_type_name puts the type in another. */
	constructor(arena, &out->constructors[2], schema, out->multirange_name, NULL, 0,
		    out->multirange, false);
	constructor(arena, &out->constructors[3], schema, out->multirange_name, one, 1,
		    out->multirange, false);
	constructor(arena, &out->constructors[4], schema, out->multirange_name, range_array, 1,
		    out->multirange, true);
	out->nconstructors = SQLFILE_RANGE_CONSTRUCTORS;
	return 0;
}
