/*
 * types.c - PostgreSQL 15 naming rules offline (see cgmap/types.h): the
 * canonical type names format_type prints, quote_identifier, and the
 * regprocedure text that is every function's identity.
 *
 * In:  folded names, libpg_query JSON TypeName nodes, or type text (read
 *      by the parser through rawtree.c, never jansson: text is canonicalised
 *      on the extraction threads).
 * Out: strings in the caller's arena.  The tables below are static and
 * read-only, so every function here may run on several threads at once.
 *
 * The two tables were read from a PostgreSQL 15 server (the same one
 * scripts/gen_builtins.sh asks):
 *   keywords:  SELECT word FROM pg_get_keywords() WHERE catcode <> 'U'
 *   types:     SELECT typname FROM pg_type
 *              WHERE typnamespace = 'pg_catalog'::regnamespace
 *                AND NOT (typname LIKE '\_%' AND typelem <> 0)
 * both in byte order, so they are searched with bsearch/strcmp.
 */
#include "cgmap/types.h"
#include "jsondom.h"
#include "rawtree.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/error.h"
#include "cgmap/strbuf.h"

/* Keywords quote_identifier quotes (reserved, column-name and
 * type/function-name keywords). */
static const char *const quoted_keywords[] = {
	"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric",
	"authorization", "between", "bigint", "binary", "bit", "boolean", "both", "case",
	"cast", "char", "character", "check", "coalesce", "collate", "collation", "column",
	"concurrently", "constraint", "create", "cross", "current_catalog", "current_date",
	"current_role", "current_schema", "current_time", "current_timestamp", "current_user",
	"dec", "decimal", "default", "deferrable", "desc", "distinct", "do", "else", "end",
	"except", "exists", "extract", "false", "fetch", "float", "for", "foreign", "freeze",
	"from", "full", "grant", "greatest", "group", "grouping", "having", "ilike", "in",
	"initially", "inner", "inout", "int", "integer", "intersect", "interval", "into", "is",
	"isnull", "join", "lateral", "leading", "least", "left", "like", "limit", "localtime",
	"localtimestamp", "national", "natural", "nchar", "none", "normalize", "not", "notnull",
	"null", "nullif", "numeric", "offset", "on", "only", "or", "order", "out", "outer",
	"overlaps", "overlay", "placing", "position", "precision", "primary", "real",
	"references", "returning", "right", "row", "select", "session_user", "setof", "similar",
	"smallint", "some", "substring", "symmetric", "table", "tablesample", "then", "time",
	"timestamp", "to", "trailing", "treat", "trim", "true", "union", "unique", "user",
	"using", "values", "varchar", "variadic", "verbose", "when", "where", "window", "with",
	"xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces",
	"xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable"
};

/* Every pg_catalog type that is not an array type (arrays are _elem). */
static const char *const catalog_types[] = {
	"aclitem", "any", "anyarray", "anycompatible", "anycompatiblearray",
	"anycompatiblemultirange", "anycompatiblenonarray", "anycompatiblerange", "anyelement",
	"anyenum", "anymultirange", "anynonarray", "anyrange", "bit", "bool", "box", "bpchar",
	"bytea", "char", "cid", "cidr", "circle", "cstring", "date", "datemultirange",
	"daterange", "event_trigger", "fdw_handler", "float4", "float8", "gtsvector",
	"index_am_handler", "inet", "int2", "int2vector", "int4", "int4multirange", "int4range",
	"int8", "int8multirange", "int8range", "internal", "interval", "json", "jsonb",
	"jsonpath", "language_handler", "line", "lseg", "macaddr", "macaddr8", "money", "name",
	"numeric", "nummultirange", "numrange", "oid", "oidvector", "path", "pg_aggregate",
	"pg_am", "pg_amop", "pg_amproc", "pg_attrdef", "pg_attribute", "pg_auth_members",
	"pg_authid", "pg_available_extension_versions", "pg_available_extensions",
	"pg_backend_memory_contexts", "pg_brin_bloom_summary", "pg_brin_minmax_multi_summary",
	"pg_cast", "pg_class", "pg_collation", "pg_config", "pg_constraint", "pg_conversion",
	"pg_cursors", "pg_database", "pg_db_role_setting", "pg_ddl_command", "pg_default_acl",
	"pg_depend", "pg_dependencies", "pg_description", "pg_enum", "pg_event_trigger",
	"pg_extension", "pg_file_settings", "pg_foreign_data_wrapper", "pg_foreign_server",
	"pg_foreign_table", "pg_group", "pg_hba_file_rules", "pg_ident_file_mappings",
	"pg_index", "pg_indexes", "pg_inherits", "pg_init_privs", "pg_language",
	"pg_largeobject", "pg_largeobject_metadata", "pg_locks", "pg_lsn", "pg_matviews",
	"pg_mcv_list", "pg_namespace", "pg_ndistinct", "pg_node_tree", "pg_opclass",
	"pg_operator", "pg_opfamily", "pg_parameter_acl", "pg_partitioned_table", "pg_policies",
	"pg_policy", "pg_prepared_statements", "pg_prepared_xacts", "pg_proc", "pg_publication",
	"pg_publication_namespace", "pg_publication_rel", "pg_publication_tables", "pg_range",
	"pg_replication_origin", "pg_replication_origin_status", "pg_replication_slots",
	"pg_rewrite", "pg_roles", "pg_rules", "pg_seclabel", "pg_seclabels", "pg_sequence",
	"pg_sequences", "pg_settings", "pg_shadow", "pg_shdepend", "pg_shdescription",
	"pg_shmem_allocations", "pg_shseclabel", "pg_snapshot", "pg_stat_activity",
	"pg_stat_all_indexes", "pg_stat_all_tables", "pg_stat_archiver", "pg_stat_bgwriter",
	"pg_stat_database", "pg_stat_database_conflicts", "pg_stat_gssapi",
	"pg_stat_progress_analyze", "pg_stat_progress_basebackup", "pg_stat_progress_cluster",
	"pg_stat_progress_copy", "pg_stat_progress_create_index", "pg_stat_progress_vacuum",
	"pg_stat_recovery_prefetch", "pg_stat_replication", "pg_stat_replication_slots",
	"pg_stat_slru", "pg_stat_ssl", "pg_stat_subscription", "pg_stat_subscription_stats",
	"pg_stat_sys_indexes", "pg_stat_sys_tables", "pg_stat_user_functions",
	"pg_stat_user_indexes", "pg_stat_user_tables", "pg_stat_wal", "pg_stat_wal_receiver",
	"pg_stat_xact_all_tables", "pg_stat_xact_sys_tables", "pg_stat_xact_user_functions",
	"pg_stat_xact_user_tables", "pg_statio_all_indexes", "pg_statio_all_sequences",
	"pg_statio_all_tables", "pg_statio_sys_indexes", "pg_statio_sys_sequences",
	"pg_statio_sys_tables", "pg_statio_user_indexes", "pg_statio_user_sequences",
	"pg_statio_user_tables", "pg_statistic", "pg_statistic_ext", "pg_statistic_ext_data",
	"pg_stats", "pg_stats_ext", "pg_stats_ext_exprs", "pg_subscription",
	"pg_subscription_rel", "pg_tables", "pg_tablespace", "pg_timezone_abbrevs",
	"pg_timezone_names", "pg_transform", "pg_trigger", "pg_ts_config", "pg_ts_config_map",
	"pg_ts_dict", "pg_ts_parser", "pg_ts_template", "pg_type", "pg_user", "pg_user_mapping",
	"pg_user_mappings", "pg_views", "point", "polygon", "record", "refcursor", "regclass",
	"regcollation", "regconfig", "regdictionary", "regnamespace", "regoper", "regoperator",
	"regproc", "regprocedure", "regrole", "regtype", "table_am_handler", "text", "tid",
	"time", "timestamp", "timestamptz", "timetz", "trigger", "tsm_handler", "tsmultirange",
	"tsquery", "tsrange", "tstzmultirange", "tstzrange", "tsvector", "txid_snapshot",
	"unknown", "uuid", "varbit", "varchar", "void", "xid", "xid8", "xml"
};

/* pg_type names that format_type prints another way than quote_identifier
 * of the typname (PostgreSQL 15: format_type(oid, NULL) <> quote_ident(typname)). */
static const struct {
	const char *typname;
	const char *display;
} display_names[] = {
	{ "bit", "bit" },
	{ "bool", "boolean" },
	{ "bpchar", "character" },
	{ "float4", "real" },
	{ "float8", "double precision" },
	{ "int2", "smallint" },
	{ "int4", "integer" },
	{ "int8", "bigint" },
	{ "interval", "interval" },
	{ "numeric", "numeric" },
	{ "time", "time without time zone" },
	{ "timestamp", "timestamp without time zone" },
	{ "timestamptz", "timestamp with time zone" },
	{ "timetz", "time with time zone" },
	{ "varbit", "bit varying" },
	{ "varchar", "character varying" },
};

static int compare_str(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static bool in_table(const char *const *table, size_t n, const char *word)
{
	return bsearch(word, table, n, sizeof(table[0]), compare_str) != NULL;
}

bool cgm_ident_needs_quotes(const char *ident)
{
	if (!ident || !*ident)
		return true;
	if (!((*ident >= 'a' && *ident <= 'z') || *ident == '_'))
		return true;
	for (const char *p = ident; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return true;
	return in_table(quoted_keywords, sizeof(quoted_keywords) / sizeof(quoted_keywords[0]),
			ident);
}

static void put_ident(cgm_strbuf *out, const char *ident)
{
	if (!ident)
		ident = ""; /* quoted as "" below: an empty name is visible, not a crash */
	if (!cgm_ident_needs_quotes(ident)) {
		cgm_strbuf_puts(out, ident);
		return;
	}
	cgm_strbuf_putc(out, '"');
	for (const char *p = ident; *p; p++) {
		if (*p == '"')
			cgm_strbuf_putc(out, '"');
		cgm_strbuf_putc(out, *p);
	}
	cgm_strbuf_putc(out, '"');
}

static const char *buf_to_arena(cgm_arena *arena, cgm_strbuf *buf)
{
	const char *s = cgm_arena_strndup(arena, cgm_strbuf_cstr(buf), buf->len);
	cgm_strbuf_free(buf);
	return s;
}

const char *cgm_quote_ident(cgm_arena *arena, const char *ident)
{
	if (!cgm_ident_needs_quotes(ident))
		return cgm_arena_strdup(arena, ident);
	cgm_strbuf buf = CGM_STRBUF_INIT;
	put_ident(&buf, ident);
	return buf_to_arena(arena, &buf);
}

const char *cgm_quote_qualified(cgm_arena *arena, const char *schema, const char *name)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	if (schema) {
		put_ident(&buf, schema);
		cgm_strbuf_putc(&buf, '.');
	}
	put_ident(&buf, name);
	return buf_to_arena(arena, &buf);
}

/* format_type of a non-array catalog type, or NULL. */
static const char *catalog_display(cgm_arena *arena, const char *typname)
{
	if (!in_table(catalog_types, sizeof(catalog_types) / sizeof(catalog_types[0]), typname))
		return NULL;
	for (size_t i = 0; i < sizeof(display_names) / sizeof(display_names[0]); i++)
		if (strcmp(display_names[i].typname, typname) == 0)
			return display_names[i].display;
	return cgm_quote_ident(arena, typname);
}

const char *const *cgm_catalog_type_names(int *count)
{
	*count = (int)(sizeof(catalog_types) / sizeof(catalog_types[0]));
	return catalog_types;
}

const char *cgm_variadic_element(cgm_arena *arena, const char *param)
{
	if (!param)
		return NULL;
	if (strcmp(param, "anyarray") == 0)
		return "anyelement";
	if (strcmp(param, "anycompatiblearray") == 0)
		return "anycompatible";
	size_t len = strlen(param);
	if (len > 2 && strcmp(param + len - 2, "[]") == 0)
		return cgm_arena_strndup(arena, param, len - 2);
	return param;
}

const char *cgm_catalog_type(cgm_arena *arena, const char *typname)
{
	if (!typname)
		return NULL;
	const char *display = catalog_display(arena, typname);
	if (display)
		return display;
	/* Array types are named after their element with a leading '_'. */
	if (typname[0] == '_' && (display = catalog_display(arena, typname + 1)) != NULL)
		return cgm_arena_printf(arena, "%s[]", display);
	return NULL;
}

const char *cgm_type_canonical(cgm_arena *arena, const char *schema, const char *name,
			       int array_dims, const cgm_type_resolver *resolver)
{
	const char *base = NULL;
	/* pg_catalog comes first in every search_path unless placed, so an
	 * unqualified catalog type name always means the catalog type. */
	if (!schema || strcmp(schema, "pg_catalog") == 0)
		base = cgm_catalog_type(arena, name);
	if (!base) {
		if (!schema && resolver && resolver->type_schema)
			schema = resolver->type_schema(resolver->ctx, name);
		if (!schema && resolver)
			schema = resolver->default_schema;
		/* A user array type written as _elem stays as written: the
		 * catalog would print elem[], but only if the element exists,
		 * which the resolver already answered for the name itself. */
		base = cgm_quote_qualified(arena, schema, name);
	}
	if (array_dims > 0)
		return cgm_arena_printf(arena, "%s[]", base);
	return base;
}

/* A type name as the parser read it: n name parts (1 to 4), array
 * dimensions, %TYPE. */
static const char *canonical_from_parts(cgm_arena *arena, const char *const *parts, int n,
					int dims, bool pct_type, const cgm_type_resolver *resolver)
{
	if (pct_type) {
		if (!resolver || !resolver->column_type)
			return NULL;
		const char *col = resolver->column_type(resolver->ctx, parts, n);
		if (!col)
			return NULL;
		/* `t.c%TYPE[]` is an array of the column's type (an array of
		 * an array type is the same array type). */
		size_t len = strlen(col);
		bool is_array = len >= 2 && strcmp(col + len - 2, "[]") == 0;
		if (dims > 0 && !is_array)
			return cgm_arena_printf(arena, "%s[]", col);
		return cgm_arena_strdup(arena, col);
	}
	/* A cross-database name (db.schema.type) keeps its last two parts,
	 * as PostgreSQL only accepts the current database there. */
	const char *schema = n >= 2 ? parts[n - 2] : NULL;
	return cgm_type_canonical(arena, schema, parts[n - 1], dims, resolver);
}

const char *cgm_type_canonical_json(cgm_arena *arena, const jd_node *type_name,
				    const cgm_type_resolver *resolver)
{
	jd_node *names = jd_get(type_name, "names");
	size_t n = jd_size(names);
	if (n == 0 || n > 4)
		return NULL;
	const char *parts[4];
	for (size_t i = 0; i < n; i++) {
		parts[i] = jd_string_node(jd_at(names, i));
		if (!parts[i])
			return NULL;
	}
	int dims = (int)jd_size(jd_get(type_name, "arrayBounds"));
	return canonical_from_parts(arena, parts, (int)n, dims,
				    jd_is_true(jd_get(type_name, "pct_type")), resolver);
}

/* What the raw tree of a one-name query held (rawtree.c), read into the
 * arena while the tree lives.  No JSON here: this runs on the extraction
 * threads, and jansson's allocator is process-wide state the SQL-file
 * source swaps while they run. */
typedef struct name_read {
	cgm_arena *arena;
	const cgm_type_resolver *resolver;
	bool column;        /* a column reference: resolve through column_type */
	const char *result;
} name_read;

static void on_name(void *arg, const char *const *names, int n, int dims, bool pct_type)
{
	name_read *r = arg;
	if (r->column) {
		const char *t = r->resolver && r->resolver->column_type
					? r->resolver->column_type(r->resolver->ctx, names, n)
					: NULL;
		r->result = t ? cgm_arena_strdup(r->arena, t) : NULL;
	} else {
		r->result = canonical_from_parts(r->arena, names, n, dims, pct_type, r->resolver);
	}
}

/* "a.b.c%TYPE" text: the column's type through the resolver. */
static const char *pct_type_text(cgm_arena *arena, const char *text, size_t namelen,
				 const cgm_type_resolver *resolver)
{
	name_read r = { .arena = arena, .resolver = resolver, .column = true };
	if (resolver && resolver->column_type)
		cgm_raw_column_ref(cgm_arena_printf(arena, "SELECT %.*s", (int)namelen, text), on_name, &r);
	if (!r.result)
		cgm_error(CGM_EINPUT, "cannot know the type of column \"%.*s\"", (int)namelen, text);
	return r.result;
}

const char *cgm_type_canonical_text(cgm_arena *arena, const char *text,
				    const cgm_type_resolver *resolver)
{
	size_t len = strlen(text);
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n'))
		len--;
	if (len > 5 && strncasecmp(text + len - 5, "%type", 5) == 0)
		return pct_type_text(arena, text, len - 5, resolver);

	/* Let PostgreSQL's grammar read the name: it alone knows that
	 * `double precision` is float8 and `varchar(10)` is varchar.
	 * Anything after the type (`int; drop ...`, `int, 2`) is refused. */
	name_read r = { .arena = arena, .resolver = resolver };
	cgm_raw_cast_type(cgm_arena_printf(arena, "SELECT NULL::%.*s", (int)len, text), on_name, &r);
	if (!r.result)
		cgm_error(CGM_EINPUT, "\"%s\" is not a type name", text);
	return r.result;
}

const char *cgm_identity_args(cgm_arena *arena, const char *const *argtypes, int nargs)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&buf, "");
	for (int i = 0; i < nargs; i++) {
		if (i)
			cgm_strbuf_putc(&buf, ','); /* regprocedure prints no space */
		cgm_strbuf_puts(&buf, argtypes[i]);
	}
	return buf_to_arena(arena, &buf);
}

const char *cgm_regprocedure(cgm_arena *arena, const char *schema, const char *name,
			     const char *const *argtypes, int nargs)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	if (schema && strcmp(schema, "pg_catalog") != 0) {
		put_ident(&buf, schema);
		cgm_strbuf_putc(&buf, '.');
	}
	put_ident(&buf, name);
	cgm_strbuf_putc(&buf, '(');
	for (int i = 0; i < nargs; i++) {
		if (i)
			cgm_strbuf_putc(&buf, ','); /* as regprocedureout: no space */
		cgm_strbuf_puts(&buf, argtypes[i]);
	}
	cgm_strbuf_putc(&buf, ')');
	return buf_to_arena(arena, &buf);
}
