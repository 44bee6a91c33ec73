/*
 * source_sql.c - SQL files (pg_dump --schema-only output, migrations) into
 * the model, the offline twin of source_pg.c: `cgmap --sql PATH...`.
 *
 * In:  paths (files, folders taken in name order, "-" for standard input)
 *      and the schema filters.
 * Out: model->functions (the PostgreSQL 15 builtins from
 *      data/pg15_builtins.tsv and the functions of created extensions, both
 *      for resolution only, and the mapped functions), triggers, relations,
 *      what relations run (effects, relfx.h), event triggers, references,
 *      operators and casts (PostgreSQL 15's from data/pg15_operators.tsv and
 *      data/pg15_casts.tsv, and CREATE OPERATOR / CAST), aggregates' support
 *      functions, and diagnostics (what PostgreSQL would have refused, or a
 *      statement that does not parse: file, line, message).  Every string
 *      is copied into model->arena; libpg_query results, JSON trees, file
 *      texts and the lookup tables of what the files defined (smap) are
 *      freed before return.
 *
 * Statements are parsed with libpg_query and applied in order as PostgreSQL
 * would: CREATE [OR REPLACE] FUNCTION/PROCEDURE/AGGREGATE, CREATE OPERATOR,
 * CREATE CAST, DROP, ALTER
 * FUNCTION (RENAME TO, SET SCHEMA, SET/RESET search_path), COMMENT ON
 * FUNCTION, schemas, tables, types (a range's constructors, and the support
 * functions a type refers to: sqlfile_types.c), views, triggers, policies, indexes,
 * column defaults and constraints (as references), extensions (their
 * functions and types from data/pg15_extensions.tsv), and the file-level
 * search_path (SET or pg_dump's set_config).  Each file starts with the
 * search_path a new psql session would (the session options' from
 * PGOPTIONS, else the database's, else the default); psql's \i and \ir
 * includes run where they stand, in the including file's session.  Fields
 * are filled exactly like the live source fills them, so both give the same
 * snapshot (tests/integration/test_sql_parity.sh holds them to it).
 */
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pg_query.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgmap/argdefault.h"
#include "cgmap/arraylit.h"
#include "cgmap/bodyhash.h"
#include "cgmap/bodyver.h"
#include "cgmap/error.h"
#include "cgmap/hash.h"
#include "cgmap/limits.h"
#include "cgmap/exprcall.h"
#include "cgmap/exprtype.h"
#include "cgmap/extract_pool.h"
#include "cgmap/opclass.h"
#include "cgmap/ops.h"
#include "cgmap/relfx.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"
#include "cgmap/types.h"
#include "selectcols.h"
#include "sqlfile.h"
#include "sqlroles.h"
#include "jsondom.h"
#include "sqllex.h"
#include "sqlprep.h"
#include "sqlvars.h"
#include "doblock.h"
#include "doeval.h"
#include "pgoptions.h"
#include "sqlfile_types.h"
#include "viewupd.h"
#include "cgmap/viewcols.h"

/* ---- a string -> int map (open addressing, grows) ---- */

/* The table is heap memory, freed by smap_free once the source is read
 * (in the model's arena, the tables of every growth stayed to the end of
 * the map: 6 MB at 100,000 functions); the keys are the caller's. */

typedef struct smap {
	const char **keys;
	int *values;
	int size, used;
} smap;

/* Room for one more item in an arena-grown array: its capacity doubles
 * from `first`; the old copy stays in the arena (cgm_arena_grow). */
#define RESERVE_ONE(arena, items, count, cap, first)                                         \
	do {                                                                                 \
		if ((count) == (cap)) {                                                      \
			int grown_ = (cap) ? (cap) * 2 : (first);                            \
			(items) = cgm_arena_grow((arena), (items), (size_t)(count),          \
						 (size_t)grown_, sizeof *(items));           \
			(cap) = grown_;                                                      \
		}                                                                            \
	} while (0)

static void smap_put(smap *m, const char *key, int value);

static void smap_grow(smap *m)
{
	smap old = *m;
	m->size = old.size ? old.size * 2 : 256;
	m->used = 0;
	m->keys = cgm_xcalloc((size_t)m->size, sizeof(char *));
	m->values = cgm_xcalloc((size_t)m->size, sizeof(int));
	for (int i = 0; i < old.size; i++)
		if (old.keys[i])
			smap_put(m, old.keys[i], old.values[i]);
	free((void *)old.keys);
	free(old.values);
}

static void smap_free(smap *m)
{
	free((void *)m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

static void smap_put(smap *m, const char *key, int value)
{
	if ((m->used + 1) * 2 > m->size)
		smap_grow(m);
	size_t mask = (size_t)m->size - 1;
	for (size_t i = cgm_fnv1a(key) & mask;; i = (i + 1) & mask) {
		if (!m->keys[i]) {
			m->keys[i] = key;
			m->values[i] = value;
			m->used++;
			return;
		}
		if (strcmp(m->keys[i], key) == 0) {
			m->values[i] = value;
			return;
		}
	}
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The value of key, or -1. */
static int smap_get(const smap *m, const char *key)
{
	if (!m->size)
		return -1;
	size_t mask = (size_t)m->size - 1;
	for (size_t i = cgm_fnv1a(key) & mask; m->keys[i]; i = (i + 1) & mask)
		if (strcmp(m->keys[i], key) == 0)
			return m->values[i];
	return -1;
}

/* ---- what the files have defined so far ---- */

typedef cgm_column sql_column; /* type canonical, NULL when unknown */

typedef struct sql_table {
	const char *schema, *name;
	const char *kind; /* "table", "view", "materialized view", "foreign table" */
	sql_column *columns;
	int ncolumns, cap_columns;
	bool dropped;
	bool rls;         /* ENABLE ROW LEVEL SECURITY: its policies apply */
	bool force_rls;   /* FORCE ROW LEVEL SECURITY: to its owner too */
	bool security_invoker; /* a view WITH (security_invoker) */
	const char *owner; /* the role that made it or was given it; NULL: the session's */
	bool catalog;     /* pg_catalog's or information_schema's (pg15_relations.tsv) */
	/* The tables it inherits from or is a partition of ("schema\x1fname"):
	 * ALTER TABLE on them (not ONLY) reaches it. */
	const char **parents;
	int nparents, cap_parents;
	/* Its PRIMARY KEY's columns: what a foreign key referencing the table
	 * without a column list references. */
	const char **pkey_columns;
	int npkey_columns;
	/* PARTITION BY's columns, -1 when a key is an expression. */
	const char **key_columns;
	int nkey_columns;
	/* A view PostgreSQL updates by itself (viewupd.h): the relation it
	 * selects from ("schema\x1fname", NULL when none) and its updatable
	 * columns with the base columns they show. */
	const char *base_key;
	const char **updatable_columns, **base_columns;
	int nupdatable;
} sql_table;

/* What a relation runs (relfx.h), hanging on its relation like a
 * reference: dropping the relation, or the object (`ref_object`, the
 * reference's description), drops it. */
typedef struct sql_effect {
	cgm_effect effect;
	const char *owner;      /* "schema\x1ftable" */
	const char *ref_object; /* the object as references name it, or NULL */
	bool dropped;
	char rule_state;        /* a rule's pg_rewrite.ev_enabled after ALTER TABLE ...
	                         * ENABLE [REPLICA | ALWAYS] / DISABLE RULE ('O', 'R',
	                         * 'A', 'D'; 0 as created: 'O'): kept, run only when
	                         * it fires in the session mapped (state_fires) */
	bool no_inherit;        /* a CHECK ... NO INHERIT: children do not get it */
	bool cloned_key;        /* a partition's clone of its parent's foreign key:
	                         * it has no action triggers of its own (the
	                         * parent's action reaches the partition), until
	                         * DETACH makes it a key of its own */
	/* An index's: its name, and the column names and label a copy of it
	 * (LIKE ... INCLUDING INDEXES, a partition's) is named from. */
	const char *index_name;
	const char **index_columns;
	int nindex_columns;
	const char *index_label;
	/* A check's or an index's: the columns its expressions read, which
	 * DROP COLUMN takes it with. */
	const char **read_columns;
	int nread_columns;
	unsigned char policy_clause; /* a policy's: POLICY_USING or POLICY_CHECK */
} sql_effect;

/* A domain's DEFAULT: the functions it calls, which fill in a column of
 * the domain that has no default of its own (build_column_default falls
 * back to the type's).  CREATE DOMAIN without DEFAULT copies its base
 * domain's, as DefineDomain does: the nearest default wins, and a later
 * ALTER DOMAIN on the base leaves the copy alone. */
typedef struct sql_domain_default {
	const char *type;        /* the domain, canonical */
	const char **functions;  /* ids; none: no default, or one calling nothing */
	int nfunctions;
} sql_domain_default;

/* What CREATE and ALTER ROLE said of a role's SUPERUSER and BYPASSRLS. */
typedef struct sql_role_attrs {
	const char *role;
	bool superuser, bypassrls;
} sql_role_attrs;

/* A column's own default (own_defaults): which kind, for LIKE's options. */
enum { OWN_NONE = 0, OWN_DEFAULT = 1, OWN_GENERATED = 2, OWN_IDENTITY = 3 };

/* A CHECK of a domain, applied to the columns of its type at the end. */
typedef struct sql_domain_check {
	const char *type;     /* the domain, canonical */
	const char *base;     /* its base type, canonical */
	const char *object;   /* "domain s.d.constraint" */
	const char *function_id; /* NULL: the domain itself, for the base chain */
} sql_domain_check;

typedef struct sql_trigger {
	cgm_trigger trigger;
	bool dropped;
} sql_trigger;

/* Items (effects or references) by the relation they hang on ("owner"):
 * owner -> its latest item, next[i] the one before item i (-1 none), over
 * items [0, indexed); rebuilt after an indexed item changes owner or is
 * taken back (stale).  Caught up lazily (owned_by). */
typedef struct owner_index {
	smap head;
	int *next;
	int indexed, cap;
	bool stale;
} owner_index;

/* A reference and the relation it hangs on, so dropping the relation,
 * trigger, policy or index drops it too. */
typedef struct sql_reference {
	cgm_reference ref;
	const char *owner; /* "schema\x1ftable", or NULL */
	bool dropped;
	/* A policy's: the clauses (POLICY_USING, POLICY_CHECK) calling the
	 * function; none left, the reference goes. */
	unsigned char policy_clause;
} sql_reference;

enum { POLICY_USING = 1, POLICY_CHECK = 2 };

typedef struct sql_operator {
	cgm_operator op;
	int fn;
	const char *extension; /* the extension that made it, or NULL */
	bool dropped;
} sql_operator;

typedef struct sql_cast {
	cgm_cast cast;
	int fn;
	const char *extension; /* the extension that made it, or NULL */
	bool dropped;
} sql_cast;

/* A CREATE EXTENSION in force: what DROP EXTENSION and DROP SCHEMA ...
 * CASCADE take away with it. */
typedef struct sql_extension {
	const char *name;
	const char *schema;  /* pg_extension.extnamespace */
	const char **types;  /* its types, canonical */
	const char **type_keys; /* and as keys of types ("schema\x1fname") */
	int ntypes;
	int *tables;         /* its relations (indexes into tables) */
	int ntables;
	int *opclasses;      /* its operator classes (indexes into opclasses.items) */
	int nopclasses;
	bool dropped;
} sql_extension;

/* A range type and its multirange (canonical), which DROP TYPE of the
 * range takes with it. */
typedef struct sql_range {
	const char *range, *multirange;
	const char *multirange_schema, *multirange_name;
} sql_range;

typedef struct sql_aggregate {
	int fn;            /* the aggregate */
	int nsupport;
	int support[8];
	const char *roles[8];
	bool dropped;
} sql_aggregate;

typedef struct sql_state {
	cgm_model *model;
	cgm_arena *a;
	const cgm_source_options *opts;

	/* The current file and statement. */
	const char *file;
	const char *text;
	int *line_starts;
	int nlines;
	int line_base;                /* lines before text's first (the SQL of a DO
	                               * block stands at its place in the file) */
	int do_depth;                 /* DO blocks running DO blocks */
	int do_unknown;               /* DO blocks' EXECUTEs of SQL known only when run,
	                               * and those of routines the files call */
	const char *do_within;        /* what apply_sql_at's statements stand in:
	                               * NULL a DO block, else a routine's id */
	const char *do_within_kind;   /* ... "procedure " or "function " */
	int guarded;                  /* applying what a block with an EXCEPTION
	                               * clause runs: its errors are caught there */
	cgm_do_cache *do_cache;       /* routines' bodies parsed once (lazily made) */
	cgm_do_catalog do_catalog;    /* what blocks' queries of pg_extension read */
	int routine_runs;             /* routines the file's statement ran
	                               * (CGM_MAX_ROUTINE_RUNS) */
	unsigned long changes;        /* statements applied other than queries and
	                               * row changes: what may change the schema */
	smap inert_calls;             /* calls that changed and said nothing, with
	                               * `changes` then (call_key): not run again */
	const char *do_unknown_file;  /* the first's place */
	int do_unknown_line;
	int stmt_start, stmt_end; /* offsets of the statement in text */
	const sqlfile_shrunk *shrunk; /* what the parser read: bodies cut out */
	sqlfile_include *includes;    /* psql \i and \ir of the current file */
	int nincludes, next_include;
	int depth;                    /* of includes */
	const char **roots;           /* realpath of each folder given (of a file
	                               * given: its folder; of "-": the current one) */
	int nroots;
	sqlfile_ids files_read;       /* every file read, by (device, inode): once */
	struct included_read {        /* of those, the ones an include read first: */
		const char *name;     /* the name files_read keeps (that pointer) */
		const char *file;     /* the including file and the include's line */
		int line;
	} *included;
	int nincluded, cap_included;
	cgm_psql_vars initial_vars;   /* --set: each file starts with these */
	cgm_psql_vars vars;           /* psql's variables in the current session */
	cgm_psql_marks *marks;        /* the current file's, at each of its includes */

	const char **path; /* the session's search_path, unquoted names */
	int npath;
	/* A view's query while its effects and references are read: what
	 * attribute notation (`alias.f`) there names (view_attribute_callee). */
	const jd_node *view_query;
	cgm_exprcall_index *view_index; /* its column references' query levels */
	/* ALTER DATABASE ... SET search_path: what a new session (the next
	 * file) starts with, and the path calls resolve through; NULL: the
	 * default. */
	const char **db_path;
	int ndb_path;
	/* The search_path the session options (PGOPTIONS) give every session,
	 * over the database's; NULL: none given. */
	const char **session_path;
	int nsession_path;
	sql_roles roles; /* the acting role (owner of what is created) and each
	                  * role's own search_path (sqlroles.h) */

	smap schemas;    /* name -> 1 present, 0 dropped */
	smap types;      /* "schema\x1fname" -> 1 */
	sql_table *tables;
	int ntables, cap_tables;
	smap table_index; /* "schema\x1fname" -> index into tables */
	smap constraints; /* "table\x1fconstraint" -> 1: names taken (per schema, as
	                   * PostgreSQL checks; the table name stands in) */
	smap relation_names; /* "schema\x1findex" -> 1: index names taken, 0 dropped */
	smap policy_cmds;    /* a policy's reference object -> its command (policy_cmd_names) */
	/* Effects and references by owner, for copying a relation's
	 * (thousands of partitions each copy their parent's). */
	owner_index effect_owners, ref_owners;

	cgm_function *fns;
	bool *dropped;
	bool *made_in_block; /* its definition was made by a DO block or a guarded one */
	int nfns, cap_fns;
	smap fn_index; /* id -> index into fns, -1 after a drop */

	/* With a pool, each definition is extracted as soon as it is read, on
	 * a heap copy (fns moves as it grows): spec[i] is the latest copy for
	 * fns[i], adopted at the end when the definition did not change since;
	 * every copy is in specs, freed once the pool has drained. */
	cgm_extract_pool *pool;
	cgm_function **spec;
	cgm_function **specs;
	int nspecs, cap_specs;

	sql_trigger *triggers;
	int ntriggers, cap_triggers;

	sql_reference *refs;
	int nrefs, cap_refs;
	const char *ref_owner; /* "schema\x1ftable" the references being added hang on */

	sql_effect *effects;
	int neffects, cap_effects;
	sql_domain_check *domains;
	int ndomains, cap_domains;
	sql_domain_default *domain_defaults; /* the latest of a type counts */
	sql_role_attrs *role_attrs; /* SUPERUSER and BYPASSRLS by CREATE and ALTER ROLE */
	int nrole_attrs, cap_role_attrs;
	int ndomain_defaults, cap_domain_defaults;
	smap own_defaults; /* "schema\x1ftable\x1fcolumn" -> OWN_*: a default of
	                    * its own, which a domain's does not override */
	cgm_event_trigger *event_triggers;
	int nevent_triggers, cap_event_triggers;

	smap extensions;    /* name -> 1 created, 0 dropped */
	sql_extension *exts; /* each CREATE EXTENSION, the latest last */
	int nexts, cap_exts;
	smap ext_fns;       /* "extension\x1fid" -> 1: the functions an extension made */
	smap builtin_names; /* name -> 1: a pg_catalog function of that name exists */
	int nbuiltin;       /* model->functions[0..nbuiltin) are the builtins */

	/* CREATE OPERATOR / CAST / AGGREGATE: each with the index into fns of
	 * its function (-1 for a builtin one, named by function_id), whose id
	 * is taken at the end (renames) and whose drop drops it. */
	sql_operator *operators;
	int noperators, cap_operators;
	sql_cast *casts;
	int ncasts, cap_casts;
	sql_aggregate *aggregates;
	int naggregates, cap_aggregates;
	sql_range *ranges;
	int nranges, cap_ranges;
	/* CREATE OPERATOR CLASS: the support functions its indexes call
	 * (cgmap/opclass.h), each an index into fns. */
	cgm_opclass_set opclasses;
} sql_state;

static sql_role_attrs *role_attrs_of(sql_state *st, const char *role);

static const char *const default_path[] = { "$user", "public" };

/* ---- small helpers over libpg_query's JSON ---- */

static jd_node *jget(const jd_node *node, const char *key)
{
	return jd_get(node, key);
}

static const char *jstr(const jd_node *node, const char *key)
{
	return jd_string(jd_get(node, key));
}

static int jint(const jd_node *node, const char *key)
{
	return (int)jd_integer(jd_get(node, key));
}

static bool jbool(const jd_node *node, const char *key)
{
	return jd_is_true(jd_get(node, key));
}

/* A list of String nodes ("schema", "name") into parts; the count, or -1. */
static int name_list(const jd_node *list, const char **parts, int max)
{
	int n = (int)jd_size(list);
	if (n < 1 || n > max)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(parts[i] = jd_string_node(jd_at(list, (size_t)i))))
			return -1;
	return n;
}

static const char *pair_key(cgm_arena *a, const char *schema, const char *name)
{
	return cgm_arena_printf(a, "%s\x1f%s", schema, name);
}

/* A string constant as written: a body the parser saw as a marker comes
 * back from the original text. */
static const char *literal_value(sql_state *st, const char *v)
{
	int k = st->shrunk ? sqlfile_marker(st->shrunk, v) : -1;
	if (k < 0)
		return v;
	const sqlfile_literal *l = &st->shrunk->lits[k];
	return cgm_arena_strndup(st->a, st->text + l->content_start,
				 (size_t)(l->content_end - l->content_start));
}

/* ---- places: offsets to lines, diagnostics ---- */

static int line_of(const sql_state *st, int offset)
{
	int lo = 0, hi = st->nlines - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (st->line_starts[mid] <= offset)
			lo = mid;
		else
			hi = mid - 1;
	}
	return st->line_base + lo + 1;
}

static void diagnose(sql_state *st, int offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void vdiagnose(sql_state *st, int offset, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vdiagnose(sql_state *st, int offset, const char *fmt, va_list ap)
{
	if (st->guarded)
		return;
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	cgm_diagnostic *d = cgm_model_add_diagnostic(st->model);
	d->file = st->file;
	d->line = line_of(st, offset);
	d->message = cgm_arena_strdup(st->a, msg);
}

static void diagnose(sql_state *st, int offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiagnose(st, offset, fmt, ap);
	va_end(ap);
}

/* What is made that exists already (kept as it was).  In a DO block it
 * is what the block's guard (IF NOT EXISTS, EXCEPTION WHEN
 * duplicate_object) tested for: unsaid. */
static void diagnose_existing(sql_state *st, int offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void diagnose_existing(sql_state *st, int offset, const char *fmt, ...)
{
	if (st->do_depth > 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vdiagnose(st, offset, fmt, ap);
	va_end(ap);
}

/* Offset of the statement's first token (past blanks and comments). */
static int first_token(const sql_state *st)
{
	const char *s = st->text;
	int i = st->stmt_start;
	while (i < st->stmt_end) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
			i++;
			continue;
		}
		size_t after = cgm_sql_skip_comment(s, (size_t)i);
		if (after == (size_t)i)
			break;
		i = after < (size_t)st->stmt_end ? (int)after : st->stmt_end;
	}
	return i;
}

/* ---- schemas, search_path, types, tables ---- */

/* pg_temp is every session's own schema of temporary objects (a
 * migration's helper functions, say): it always exists, and what is made
 * in it goes when the session ends (end_session). */
static bool schema_exists(const sql_state *st, const char *name)
{
	return smap_get(&st->schemas, name) == 1 || strcmp(name, "pg_catalog") == 0 ||
	       strcmp(name, "pg_temp") == 0;
}

/* Where an unqualified CREATE puts its object: the first existing schema
 * of the search_path ($user names no schema offline), or NULL. */
static const char *creation_schema(const sql_state *st)
{
	for (int i = 0; i < st->npath; i++)
		if (strcmp(st->path[i], "$user") != 0 && schema_exists(st, st->path[i]))
			return st->path[i];
	return NULL;
}

static void set_path(sql_state *st, const char *const *names, int n)
{
	st->path = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		st->path[i] = cgm_arena_strdup(st->a, names[i]);
	st->npath = n;
}

/* A search_path value as set_config() takes it, "app, \"My S\", public",
 * into at most `max` names in the arena.  Returns how many. */
static int parse_path_text(sql_state *st, const char *text, const char **names, int max)
{
	int n = 0;
	const char *p = text;
	while (*p && n < max) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		cgm_strbuf buf = CGM_STRBUF_INIT;
		cgm_strbuf_puts(&buf, "");
		if (*p == '"') {
			for (p++; *p; p++) {
				if (*p == '"' && p[1] == '"') {
					cgm_strbuf_putc(&buf, '"');
					p++;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					cgm_strbuf_putc(&buf, *p);
				}
			}
		} else {
			for (; *p && *p != ',' && *p != ' '; p++)
				cgm_strbuf_putc(&buf, (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p);
		}
		names[n++] = cgm_arena_strdup(st->a, cgm_strbuf_cstr(&buf));
		cgm_strbuf_free(&buf);
		while (*p && *p != ',')
			p++;
	}
	return n;
}

static void set_path_text(sql_state *st, const char *text)
{
	const char *names[64];
	set_path(st, names, parse_path_text(st, text, names, 64));
}

/* The path a session starts with, and RESET returns to: the session's
 * options (PGOPTIONS) first, then the database's ALTER DATABASE ... SET,
 * then PostgreSQL's default. */
static const char *const *session_start_path(const sql_state *st, int *n)
{
	if (st->session_path) {
		*n = st->nsession_path;
		return st->session_path;
	}
	if (st->db_path) {
		*n = st->ndb_path;
		return st->db_path;
	}
	*n = 2;
	return default_path;
}

static const char *type_schema_cb(void *ctx, const char *name)
{
	sql_state *st = ctx;
	for (int i = 0; i < st->npath; i++)
		if (smap_get(&st->types, pair_key(st->a, st->path[i], name)) == 1)
			return st->path[i];
	return NULL;
}

static sql_table *find_table(sql_state *st, const char *schema, const char *name)
{
	if (schema) {
		int i = smap_get(&st->table_index, pair_key(st->a, schema, name));
		return i >= 0 && !st->tables[i].dropped ? &st->tables[i] : NULL;
	}
	/* pg_catalog first, unless the path places it. */
	bool placed = false;
	for (int p = 0; p < st->npath && !placed; p++)
		placed = strcmp(st->path[p], "pg_catalog") == 0;
	if (!placed) {
		int i = smap_get(&st->table_index, pair_key(st->a, "pg_catalog", name));
		if (i >= 0 && !st->tables[i].dropped)
			return &st->tables[i];
	}
	for (int p = 0; p < st->npath; p++) {
		int i = smap_get(&st->table_index, pair_key(st->a, st->path[p], name));
		if (i >= 0 && !st->tables[i].dropped)
			return &st->tables[i];
	}
	return NULL;
}

static const char *column_type_cb(void *ctx, const char *const *names, int n)
{
	sql_state *st = ctx;
	sql_table *t = find_table(st, n == 3 ? names[0] : NULL, names[n - 2]);
	if (!t)
		return NULL;
	for (int c = 0; c < t->ncolumns; c++)
		if (strcmp(t->columns[c].name, names[n - 1]) == 0)
			return t->columns[c].type;
	return NULL;
}

static cgm_type_resolver resolver_of(sql_state *st)
{
	cgm_type_resolver r = { type_schema_cb, column_type_cb, st, creation_schema(st) };
	return r;
}

static const char *type_of(sql_state *st, const jd_node *type_name)
{
	cgm_type_resolver r = resolver_of(st);
	return cgm_type_canonical_json(st->a, type_name, &r);
}

/* The written text of a TypeName, for messages. */
static const char *type_written(sql_state *st, const jd_node *type_name)
{
	const char *parts[4];
	int n = name_list(jget(type_name, "names"), parts, 4);
	if (n < 0)
		return "?";
	cgm_strbuf buf = CGM_STRBUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			cgm_strbuf_putc(&buf, '.');
		cgm_strbuf_puts(&buf, parts[i]);
	}
	if (jbool(type_name, "pct_type"))
		cgm_strbuf_puts(&buf, "%TYPE");
	const char *s = cgm_arena_strdup(st->a, cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return s;
}

static void add_type(sql_state *st, const char *schema, const char *name)
{
	smap_put(&st->types, pair_key(st->a, schema, name), 1);
}

/* Schema and name of a RangeVar; NULL schema resolved to the creation one
 * (for a new relation) or through the search_path (an existing one). */
static bool range_var(sql_state *st, const jd_node *rv, bool creating, const char **schema,
		      const char **name)
{
	*name = jstr(rv, "relname");
	*schema = jstr(rv, "schemaname");
	if (!*name)
		return false;
	if (!*schema) {
		sql_table *t = creating ? NULL : find_table(st, NULL, *name);
		*schema = t ? t->schema : creation_schema(st);
	}
	return *schema != NULL;
}

static sql_table *add_table(sql_state *st, const char *schema, const char *name,
			    const char *kind)
{
	RESERVE_ONE(st->a, st->tables, st->ntables, st->cap_tables, 64);
	int idx = st->ntables++;
	sql_table *t = &st->tables[idx];
	memset(t, 0, sizeof *t);
	t->schema = cgm_arena_strdup(st->a, schema);
	t->name = cgm_arena_strdup(st->a, name);
	t->kind = kind;
	t->owner = sql_roles_acting(&st->roles);
	smap_put(&st->table_index, pair_key(st->a, schema, name), idx);
	add_type(st, schema, name); /* every relation has a row type */
	return t;
}

/* pg_class.relkind of what a definition made, and back. */
static const struct {
	const char *kind;
	char relkind;
} relkinds[] = { { "table", 'r' },	       { "view", 'v' },	      { "materialized view", 'm' },
		 { "foreign table", 'f' }, { "type", 'c' }, { "partitioned table", 'p' } };

static char relkind_of(const char *kind)
{
	for (size_t i = 0; i < sizeof relkinds / sizeof relkinds[0]; i++)
		if (strcmp(relkinds[i].kind, kind) == 0)
			return relkinds[i].relkind;
	return 0;
}

static const char *kind_of_relkind(char relkind)
{
	for (size_t i = 0; i < sizeof relkinds / sizeof relkinds[0]; i++)
		if (relkinds[i].relkind == relkind)
			return relkinds[i].kind;
	return "table";
}

static const char *column_key(sql_state *st, const sql_table *t, const char *column)
{
	return cgm_arena_printf(st->a, "%s\x1f%s\x1f%s", t->schema, t->name, column);
}

/* Column `column` of t has a default of its own of `kind` (OWN_*). */
static void set_own_default(sql_state *st, const sql_table *t, const char *column, int kind)
{
	if (column)
		smap_put(&st->own_defaults, column_key(st, t, column), kind);
}

static int own_default(sql_state *st, const sql_table *t, const char *column)
{
	int kind = column ? smap_get(&st->own_defaults, column_key(st, t, column)) : -1;
	return kind < 0 ? OWN_NONE : kind;
}

static void add_column(sql_state *st, sql_table *t, const char *name, const char *type)
{
	set_own_default(st, t, name, OWN_NONE); /* a table or column made anew */
	RESERVE_ONE(st->a, t->columns, t->ncolumns, t->cap_columns, 8);
	t->columns[t->ncolumns].name = cgm_arena_strdup(st->a, name);
	t->columns[t->ncolumns].type = type;
	t->ncolumns++;
}

/* ---- functions ---- */

static bool arity_fits(const cgm_function *f, int nargs)
{
	if (nargs <= f->nargs && nargs >= f->nargs - f->ndefaults)
		return true;
	return f->variadic && nargs >= f->nargs - 1;
}

/* Index of the function a call `schema.name(nargs arguments)` reaches, the
 * way PostgreSQL looks: qualified in that schema; else pg_catalog first,
 * then the search_path.  -1 for a builtin or nothing. */
static int find_callee(sql_state *st, const char *schema, const char *name, int nargs,
		       bool any_arity)
{
	if (!schema && smap_get(&st->builtin_names, name) == 1) {
		/* pg_catalog comes first: a builtin that takes the call wins. */
		for (int i = 0; i < st->nbuiltin; i++) {
			const cgm_function *b = &st->model->functions[i];
			if (strcmp(b->name, name) == 0 && (any_arity || arity_fits(b, nargs)))
				return -1;
		}
	}
	int nschemas = schema ? 1 : st->npath;
	for (int p = 0; p < nschemas; p++) {
		const char *s = schema ? schema : st->path[p];
		int best = -1;
		for (int i = 0; i < st->nfns; i++) {
			const cgm_function *f = &st->fns[i];
			if (st->dropped[i] || strcmp(f->name, name) != 0 || strcmp(f->schema, s) != 0)
				continue;
			if (!any_arity && !arity_fits(f, nargs))
				continue;
			if (best < 0 || (!any_arity && f->nargs == nargs && st->fns[best].nargs != nargs))
				best = i;
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

/* The input argument types of an ObjectWithArgs ("f(int, OUT text)"). */
static int object_args(sql_state *st, const jd_node *owa, const char ***types, bool *ok)
{
	jd_node *args = jget(owa, "objargs");
	int n = (int)jd_size(args);
	*types = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(n ? n : 1));
	*ok = true;
	for (int i = 0; i < n; i++) {
		jd_node *tn = jget(jd_at(args, (size_t)i), "TypeName");
		(*types)[i] = tn ? type_of(st, tn) : NULL;
		if (!(*types)[i])
			*ok = false;
	}
	return n;
}

/* The function an ObjectWithArgs names, or -1 (*why set). */
static int find_object(sql_state *st, const jd_node *owa, const char **why)
{
	const char *parts[3];
	int n = name_list(jget(owa, "objname"), parts, 3);
	*why = "not found";
	if (n < 0)
		return -1;
	const char *schema = n >= 2 ? parts[n - 2] : NULL;
	const char *name = parts[n - 1];
	if (jbool(owa, "args_unspecified")) {
		int found = -1, count = 0;
		int nschemas = schema ? 1 : st->npath;
		for (int p = 0; p < nschemas && count == 0; p++) {
			const char *s = schema ? schema : st->path[p];
			for (int i = 0; i < st->nfns; i++)
				if (!st->dropped[i] && strcmp(st->fns[i].name, name) == 0 &&
				    strcmp(st->fns[i].schema, s) == 0) {
					found = i;
					count++;
				}
		}
		if (count > 1) {
			*why = "is not unique";
			return -1;
		}
		return found;
	}
	const char **types;
	bool ok;
	int nargs = object_args(st, owa, &types, &ok);
	if (!ok)
		return -1;
	int nschemas = schema ? 1 : st->npath;
	for (int p = 0; p < nschemas; p++) {
		const char *s = schema ? schema : st->path[p];
		const char *id = cgm_regprocedure(st->a, s, name, types, nargs);
		int i = smap_get(&st->fn_index, id);
		if (i >= 0)
			return i;
	}
	return -1;
}

/* Does `owa` name one of pg_catalog's functions, which ALTER FUNCTION
 * ... OWNER TO and COMMENT ON FUNCTION may name though the files do not
 * make it (Supabase's `alter function pg_catalog.lo_import(text) owner to
 * supabase_admin`)?  Nothing of it is kept: its owner and comment tell the
 * map nothing. */
static bool names_builtin(sql_state *st, const jd_node *owa, const char **why)
{
	const char *parts[3];
	int n = name_list(jget(owa, "objname"), parts, 3);
	if (n < 1 || n > 2 || (n == 2 && strcmp(parts[0], "pg_catalog") != 0) ||
	    smap_get(&st->builtin_names, parts[n - 1]) != 1)
		return false;
	const char **types = NULL;
	bool ok = true;
	bool unspecified = jbool(owa, "args_unspecified");
	int nargs = unspecified ? 0 : object_args(st, owa, &types, &ok);
	if (!ok)
		return false;
	const char *id = unspecified ? NULL : cgm_regprocedure(st->a, "pg_catalog", parts[n - 1], types, nargs);
	int matches = 0;
	for (int k = 0; k < st->nbuiltin; k++) {
		const cgm_function *b = &st->model->functions[k];
		if (unspecified ? strcmp(b->name, parts[n - 1]) == 0 : strcmp(b->id, id) == 0)
			matches++;
	}
	if (matches > 1 && strcmp(*why, "not found") == 0)
		*why = "is not unique"; /* as PostgreSQL says */
	return matches == 1;
}

static const char *object_text(sql_state *st, const jd_node *owa)
{
	const char *parts[3];
	int n = name_list(jget(owa, "objname"), parts, 3);
	if (n < 0)
		return "?";
	const char *name = n >= 2 ? cgm_arena_printf(st->a, "%s.%s", parts[n - 2], parts[n - 1])
				  : parts[0];
	if (jbool(owa, "args_unspecified"))
		return name;
	const char **types;
	bool ok;
	int nargs = object_args(st, owa, &types, &ok);
	if (!ok)
		return cgm_arena_printf(st->a, "%s(...)", name);
	return cgm_arena_printf(st->a, "%s(%s)", name, cgm_identity_args(st->a, types, nargs));
}

/* Give function i a new id (after a rename or a schema move); false when
 * that id is taken. */
/* What names function `old` by its id (effects, references, triggers,
 * event triggers, domain checks) names it `now` (NULL: it was dropped, and
 * what called it goes too, as DROP FUNCTION ... CASCADE takes it). */
static void drop_relation(sql_state *st, sql_table *t, bool cascade);

static void retarget_function(sql_state *st, const char *old, const char *now)
{
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->effect.function_id && strcmp(x->effect.function_id, old) == 0) {
			if (now) {
				x->effect.function_id = now;
				continue;
			}
			x->dropped = true;
			/* A view calling it goes whole, not just the call. */
			sql_table *v = x->effect.via == CGM_VIA_VIEW && x->effect.reach == CGM_REACH_FUNCTION
					       ? find_table(st, x->effect.schema, x->effect.relation)
					       : NULL;
			if (v)
				drop_relation(st, v, true);
		}
	}
	for (int i = 0; i < st->nrefs; i++) {
		sql_reference *r = &st->refs[i];
		if (r->ref.function_id && strcmp(r->ref.function_id, old) == 0) {
			if (now)
				r->ref.function_id = now;
			else
				r->dropped = true;
		}
	}
	for (int i = 0; i < st->ntriggers; i++) {
		cgm_trigger *tr = &st->triggers[i].trigger;
		if (tr->function_id && strcmp(tr->function_id, old) == 0) {
			if (now)
				tr->function_id = now;
			else
				st->triggers[i].dropped = true;
		}
	}
	for (int i = 0; i < st->nevent_triggers; i++)
		if (now && st->event_triggers[i].function_id &&
		    strcmp(st->event_triggers[i].function_id, old) == 0)
			st->event_triggers[i].function_id = now;
	for (int i = 0; i < st->ndomains; i++)
		if (st->domains[i].function_id && strcmp(st->domains[i].function_id, old) == 0) {
			st->domains[i].function_id = now;
			if (!now)
				st->domains[i].object = NULL;
		}
}

static bool reidentify(sql_state *st, int i, const char *schema, const char *name)
{
	cgm_function *f = &st->fns[i];
	const char *id = cgm_regprocedure(st->a, schema, name, f->argtypes, f->nargs);
	if (smap_get(&st->fn_index, id) >= 0)
		return false;
	smap_put(&st->fn_index, f->id, -1);
	retarget_function(st, f->id, id);
	if (f->kind == CGM_KIND_AGGREGATE) {
		/* Its references to its support functions name it. */
		const char *old_object = cgm_arena_printf(st->a, "function %s", f->id);
		const char *new_object = cgm_arena_printf(st->a, "function %s", id);
		for (int k = 0; k < st->nrefs; k++)
			if (strcmp(st->refs[k].ref.object, old_object) == 0)
				st->refs[k].ref.object = new_object;
	}
	f->id = id;
	f->schema = cgm_arena_strdup(st->a, schema);
	f->name = cgm_arena_strdup(st->a, name);
	smap_put(&st->fn_index, id, i);
	return true;
}

/* The values of a SET search_path as proconfig keeps them; NULL path for
 * RESET.  Returns false when `set` is not about search_path. */
static bool search_path_setting(sql_state *st, const jd_node *set, const char ***path, int *npath)
{
	const char *name = jstr(set, "name");
	const char *kind = jstr(set, "kind");
	if (kind && strcmp(kind, "VAR_RESET_ALL") == 0) {
		*path = NULL;
		*npath = -1;
		return true;
	}
	if (!name || !kind || strcmp(name, "search_path") != 0)
		return false;
	if (strcmp(kind, "VAR_SET_VALUE") == 0) {
		jd_node *args = jget(set, "args");
		int n = (int)jd_size(args);
		*path = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++) {
			jd_node *c = jget(jd_at(args, (size_t)i), "A_Const");
			const char *v = literal_value(st, jstr(jget(c, "sval"), "sval"));
			(*path)[i] = cgm_arena_strdup(st->a, v ? v : "");
		}
		*npath = n;
	} else if (strcmp(kind, "VAR_SET_CURRENT") == 0) {
		*path = st->path;
		*npath = st->npath;
	} else { /* DEFAULT, RESET */
		*path = NULL;
		*npath = -1;
	}
	return true;
}

/* Past the comment, string, quoted identifier or dollar-quoted text at
 * s[i] (sqllex.h), no further than `to`; i when none starts there. */
static int skip_opaque(const char *s, int i, int to)
{
	size_t past = cgm_sql_skip_opaque(s, (size_t)i);
	return past > (size_t)to ? to : (int)past;
}

/* The text of the parameter list "(...)" of a CREATE FUNCTION statement,
 * split at its top-level commas (not those of a default's ARRAY[...],
 * subscript, string or comment): starts and ends of each parameter. */
static int split_parameters(const char *s, int from, int to, int *starts, int *ends, int max)
{
	int i = from, depth = 0, n = 0;
	for (; i < to; i++) {
		char c = s[i];
		if (c == '$' && depth == 0)
			return -1; /* the body came first: no parameter list found */
		int past = skip_opaque(s, i, to);
		if (past != i) {
			i = past - 1;
		} else if (c == '(' || (c == '[' && depth > 0)) {
			if (depth++ == 0) {
				if (n >= max)
					return -1;
				starts[n] = i + 1;
			}
		} else if (c == ')' || (c == ']' && depth > 1)) {
			if (--depth == 0) {
				ends[n++] = i;
				return n;
			}
		} else if (c == ',' && depth == 1) {
			if (n + 1 >= max)
				return -1;
			ends[n++] = i;
			starts[n] = i + 1;
		}
	}
	return -1;
}

/* The default expression text of one parameter (after DEFAULT or =), its
 * comments left out (one at its end would hide the rest of the header
 * built from the arguments). */
static const char *default_text(sql_state *st, int from, int to)
{
	const char *s = st->text;
	int depth = 0;
	for (int i = from; i < to; i++) {
		char c = s[i];
		int past = skip_opaque(s, i, to);
		if (past != i) {
			i = past - 1;
		} else if (c == '(' || c == '[') {
			depth++;
		} else if (c == ')' || c == ']') {
			depth--;
		} else if (depth == 0 && (c == '=' ||
					  (strncasecmp(s + i, "default", 7) == 0 &&
					   (i == from || strchr(" \t\n\r", s[i - 1])) &&
					   strchr(" \t\n\r(", s[i + 7])))) {
			cgm_strbuf buf = CGM_STRBUF_INIT;
			for (int k = i + (c == '=' ? 1 : 7); k < to; k++) {
				int after = skip_opaque(s, k, to);
				if (after == k)
					cgm_strbuf_putc(&buf, s[k]);
				else if (cgm_sql_skip_comment(s, (size_t)k) != (size_t)k)
					cgm_strbuf_putc(&buf, ' ');
				else
					cgm_strbuf_add(&buf, s + k, (size_t)(after - k));
				if (after != k)
					k = after - 1;
			}
			const char *t = cgm_strbuf_cstr(&buf);
			size_t start = strspn(t, " \t\n\r"), end = strlen(t);
			while (end > start && strchr(" \t\n\r", t[end - 1]))
				end--;
			const char *out = cgm_arena_strndup(st->a, t + start, end - start);
			cgm_strbuf_free(&buf);
			return out;
		}
	}
	return NULL;
}

static void quote_literal(cgm_strbuf *buf, const char *v)
{
	cgm_strbuf_putc(buf, '\'');
	for (const char *p = v; *p; p++) {
		if (*p == '\'')
			cgm_strbuf_putc(buf, '\'');
		cgm_strbuf_putc(buf, *p);
	}
	cgm_strbuf_putc(buf, '\'');
}

static bool is_integer_text(const char *v)
{
	const char *p = v + (*v == '-' || *v == '+');
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* A constant of `type` printed as pg_get_expr prints it (get_const_expr). */
static void const_text(cgm_arena *a, cgm_strbuf *buf, const char *type, const char *value)
{
	if (strcmp(type, "integer") == 0 && is_integer_text(value)) {
		if (value[0] == '-')
			cgm_strbuf_printf(buf, "'%s'::integer", value);
		else
			cgm_strbuf_puts(buf, value + (value[0] == '+'));
		return;
	}
	if (strcmp(type, "boolean") == 0) {
		bool t = strcasecmp(value, "t") == 0 || strcasecmp(value, "true") == 0 ||
			 strcasecmp(value, "yes") == 0 || strcasecmp(value, "on") == 0 ||
			 strcmp(value, "1") == 0 || strcasecmp(value, "y") == 0;
		cgm_strbuf_puts(buf, t ? "true" : "false");
		return;
	}
	size_t tl = strlen(type);
	if (tl > 2 && strcmp(type + tl - 2, "[]") == 0) {
		/* an array: array_out's text of what array_in reads */
		const char *printed = cgm_array_literal_out(a, cgm_arena_strndup(a, type, tl - 2), value);
		if (printed) {
			quote_literal(buf, printed);
			cgm_strbuf_printf(buf, "::%s", type);
			return;
		}
	}
	if (strcmp(type, "numeric") == 0 && value[0] >= '0' && value[0] <= '9' &&
	    strspn(value, "0123456789.") == strlen(value) && strchr(value, '.')) {
		cgm_strbuf_puts(buf, value);
		return;
	}
	quote_literal(buf, value);
	cgm_strbuf_printf(buf, "::%s", type);
}

/* A parameter default as pg_get_function_arguments prints it: constants
 * the way the catalog stores them, anything else as written. */
static const char *default_display(sql_state *st, const jd_node *expr, const char *type,
				   const char *written)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	jd_node *c = jget(expr, "A_Const");
	jd_node *cast = jget(expr, "TypeCast");
	if (cast) {
		const char *to = type_of(st, jget(cast, "typeName"));
		jd_node *arg = jget(jget(cast, "arg"), "A_Const");
		/* 'x'::t and NULL::t of the parameter's own type are the same
		 * constant as 'x' and NULL. */
		if (arg && to && strcmp(to, type) == 0 &&
		    (jbool(arg, "isnull") || jget(arg, "sval")))
			c = arg;
	}
	if (c) {
		if (jbool(c, "isnull")) {
			cgm_strbuf_printf(&buf, "NULL::%s", type);
		} else if (jget(c, "sval")) {
			const char *v = literal_value(st, jstr(jget(c, "sval"), "sval"));
			const_text(st->a, &buf, type, v ? v : "");
		} else if (jget(c, "ival")) {
			/* An integer literal: an int4 constant, cast implicitly
			 * to the parameter's type, prints as the int4. */
			long long v = jd_integer(jget(jget(c, "ival"), "ival"));
			/* libpg_query's JSON leaves a negative integer out
			 * ("ival": {}), as if it were 0: the text has it. */
			if (!jget(jget(c, "ival"), "ival") && written && is_integer_text(written))
				v = strtoll(written, NULL, 10);
			if (v < 0)
				cgm_strbuf_printf(&buf, "'%lld'::integer", v);
			else
				cgm_strbuf_printf(&buf, "%lld", v);
		} else if (jget(c, "fval")) {
			const char *v = jstr(jget(c, "fval"), "fval");
			if (v && v[0] >= '0' && v[0] <= '9')
				cgm_strbuf_puts(&buf, v);
			else
				cgm_strbuf_printf(&buf, "'%s'::numeric", v ? v : "");
		} else if (jget(c, "boolval")) {
			cgm_strbuf_puts(&buf, jbool(jget(c, "boolval"), "boolval") ? "true" : "false");
		} else {
			cgm_strbuf_puts(&buf, written ? written : "");
		}
	} else {
		cgm_strbuf_puts(&buf, written ? written : "");
	}
	const char *s = cgm_arena_strdup(st->a, cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return s;
}

/* Offset of the word `word` (case-insensitive, whole) at paren depth 0 of
 * the statement, outside quotes and comments, from `from`; -1 if none.
 * `next`, when given, must follow it after blanks (BEGIN ATOMIC). */
static int find_word(const sql_state *st, int from, const char *word, const char *next)
{
	const char *s = st->text;
	size_t wl = strlen(word);
	int depth = 0;
	for (int i = from; i < st->stmt_end; i++) {
		char c = s[i];
		if (c == '\'' || c == '"') {
			for (i++; i < st->stmt_end && !(s[i] == c && s[i + 1] != c); i++)
				if (s[i] == c)
					i++;
		} else if (c == '$' && (i == 0 || !strchr("abcdefghijklmnopqrstuvwxyz_0123456789", s[i - 1] | 0x20))) {
			int t = i + 1;
			while (t < st->stmt_end && s[t] != '$' &&
			       strchr("abcdefghijklmnopqrstuvwxyz_0123456789", s[t] | 0x20))
				t++;
			if (t >= st->stmt_end || s[t] != '$' || (t > i + 1 && s[i + 1] >= '0' && s[i + 1] <= '9'))
				continue;
			size_t tag = (size_t)(t + 1 - i);
			int j = t + 1;
			while (j < st->stmt_end && strncmp(s + j, s + i, tag) != 0)
				j++;
			i = j + (int)tag - 1;
		} else if (c == '-' && s[i + 1] == '-') {
			while (i < st->stmt_end && s[i] != '\n')
				i++;
		} else if (c == '(') {
			depth++;
		} else if (c == ')') {
			depth--;
		} else if (depth == 0 && strncasecmp(s + i, word, wl) == 0 &&
			   (i == 0 || !strchr("abcdefghijklmnopqrstuvwxyz_0123456789$", s[i - 1] | 0x20)) &&
			   !strchr("abcdefghijklmnopqrstuvwxyz_0123456789$", s[i + wl] | 0x20)) {
			if (!next)
				return i;
			int j = i + (int)wl;
			while (j < st->stmt_end && strchr(" \t\n\r", s[j]))
				j++;
			if (strncasecmp(s + j, next, strlen(next)) == 0)
				return i;
		}
	}
	return -1;
}

/* A SQL-standard body as written: from BEGIN ATOMIC (or RETURN) to the end. */
static const char *atomic_text(sql_state *st, bool is_return)
{
	int start = is_return ? find_word(st, first_token(st), "return", NULL)
			      : find_word(st, first_token(st), "begin", "atomic");
	if (start < 0)
		return NULL;
	int end = st->stmt_end;
	while (end > start && strchr(" \t\n\r;", st->text[end - 1]))
		end--;
	return cgm_arena_strndup(st->a, st->text + start, (size_t)(end - start));
}

static void store_function(sql_state *st, cgm_function *f, bool replace, int at);
static cgm_reference *new_reference(sql_state *st, int fn, const char *kind, const char *object);

static void apply_create_function(sql_state *st, const jd_node *stmt)
{
	cgm_arena *a = st->a;
	const char *parts[3];
	int n = name_list(jget(stmt, "funcname"), parts, 3);
	int at = first_token(st);
	if (n < 0)
		return;
	const char *schema = n >= 2 ? parts[n - 2] : creation_schema(st);
	const char *name = parts[n - 1];
	if (!schema) {
		diagnose(st, at, "no schema has been selected to create function \"%s\" in", name);
		return;
	}
	if (!schema_exists(st, schema)) {
		diagnose(st, at, "schema \"%s\" does not exist", schema);
		return;
	}
	cgm_function f;
	memset(&f, 0, sizeof f);
	f.schema = cgm_arena_strdup(a, schema);
	f.name = cgm_arena_strdup(a, name);
	f.kind = jbool(stmt, "is_procedure") ? CGM_KIND_PROCEDURE : CGM_KIND_FUNCTION;
	f.npath = -1;
	f.scc = -1;
	f.language = "sql";
	f.volatility = 'v'; /* unless the options say IMMUTABLE or STABLE */

	/* Parameters: input ones make the identity; TABLE ones the result. */
	jd_node *params = jget(stmt, "parameters");
	int np = (int)jd_size(params);
	int *pstart = cgm_arena_alloc(a, sizeof(int) * (size_t)(np + 1));
	int *pend = cgm_arena_alloc(a, sizeof(int) * (size_t)(np + 1));
	/* RETURNS TABLE's columns follow the written list as TABLE
	 * parameters (mergeTableFuncParameters): the list holds the others. */
	int nlisted = 0;
	for (int i = 0; i < np; i++) {
		const char *mode = jstr(jget(jd_at(params, (size_t)i), "FunctionParameter"), "mode");
		nlisted += !mode || strcmp(mode, "FUNC_PARAM_TABLE") != 0;
	}
	bool have_text = nlisted > 0 && split_parameters(st->text, at, st->stmt_end, pstart, pend,
							 np + 1) == nlisted;
	f.argtypes = cgm_arena_alloc(a, sizeof(char *) * (size_t)(np ? np : 1));
	const char **names = cgm_arena_alloc(a, sizeof(char *) * (size_t)(np ? np : 1));
	cgm_strbuf args = CGM_STRBUF_INIT, table = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&args, "");
	int nout = 0, noutputs = 0;
	const char *out_type = NULL, *output_name = NULL;
	bool any_name = false;
	for (int i = 0; i < np; i++) {
		jd_node *p = jget(jd_at(params, (size_t)i), "FunctionParameter");
		const char *mode = jstr(p, "mode");
		const char *pname = jstr(p, "name");
		if (mode && (strcmp(mode, "FUNC_PARAM_OUT") == 0 || strcmp(mode, "FUNC_PARAM_INOUT") == 0 ||
			     strcmp(mode, "FUNC_PARAM_TABLE") == 0)) {
			noutputs++;
			output_name = pname && *pname ? pname : NULL;
		}
		const char *type = type_of(st, jget(p, "argType"));
		if (!type) {
			diagnose(st, at, "type \"%s\" of function \"%s\" cannot be known: %s",
				 type_written(st, jget(p, "argType")), name,
				 "its table or column is not defined before it");
			type = type_written(st, jget(p, "argType"));
		}
		bool input = !mode || strcmp(mode, "FUNC_PARAM_DEFAULT") == 0 ||
			     strcmp(mode, "FUNC_PARAM_IN") == 0 || strcmp(mode, "FUNC_PARAM_INOUT") == 0 ||
			     strcmp(mode, "FUNC_PARAM_VARIADIC") == 0;
		if (pname && *pname)
			any_name = true;
		if (mode && strcmp(mode, "FUNC_PARAM_TABLE") == 0) {
			if (table.len)
				cgm_strbuf_puts(&table, ", ");
			cgm_strbuf_printf(&table, "%s %s", cgm_quote_ident(a, pname ? pname : ""), type);
			continue;
		}
		if (args.len)
			cgm_strbuf_puts(&args, ", ");
		if (mode && strcmp(mode, "FUNC_PARAM_OUT") == 0)
			cgm_strbuf_puts(&args, "OUT ");
		else if (mode && strcmp(mode, "FUNC_PARAM_INOUT") == 0)
			cgm_strbuf_puts(&args, "INOUT ");
		else if (mode && strcmp(mode, "FUNC_PARAM_VARIADIC") == 0)
			cgm_strbuf_puts(&args, "VARIADIC ");
		else if (f.kind == CGM_KIND_PROCEDURE)
			cgm_strbuf_puts(&args, "IN "); /* PostgreSQL marks every mode of a procedure */
		if (pname && *pname)
			cgm_strbuf_printf(&args, "%s ", cgm_quote_ident(a, pname));
		cgm_strbuf_puts(&args, type);
		if (!input || (mode && strcmp(mode, "FUNC_PARAM_INOUT") == 0)) {
			nout++;
			out_type = type;
		}
		if (!input)
			continue;
		jd_node *def = jget(p, "defexpr");
		if (def) {
			const char *written = have_text ? default_text(st, pstart[i], pend[i]) : NULL;
			cgm_strbuf_printf(&args, " DEFAULT %s", default_display(st, def, type, written));
			f.ndefaults++;
		}
		if (mode && strcmp(mode, "FUNC_PARAM_VARIADIC") == 0) {
			f.variadic = true;
			f.variadic_elem = cgm_variadic_element(a, type);
		}
		names[f.nargs] = pname && *pname ? cgm_arena_strdup(a, pname) : NULL;
		f.argtypes[f.nargs++] = type;
	}
	f.argnames = any_name && f.nargs > 0 ? names : NULL;
	/* get_func_result_name: a call in FROM names its column so. */
	f.out_name = noutputs == 1 && output_name ? cgm_arena_strdup(a, output_name) : NULL;
	f.arguments = cgm_arena_strdup(a, cgm_strbuf_cstr(&args));
	f.identity_args = cgm_identity_args(a, f.argtypes, f.nargs);

	/* The result, as pg_get_function_result prints it. */
	jd_node *ret = jget(stmt, "returnType");
	const char *rettype = NULL;
	if (table.len) {
		f.result = cgm_arena_printf(a, "TABLE(%s)", cgm_strbuf_cstr(&table));
		rettype = "record";
	} else if (ret) {
		rettype = type_of(st, ret);
		if (!rettype)
			rettype = type_written(st, ret);
		f.result = jbool(ret, "setof") ? cgm_arena_printf(a, "SETOF %s", rettype) : rettype;
	} else if (nout > 0) {
		rettype = nout == 1 ? out_type : "record";
		f.result = rettype;
	}
	cgm_strbuf_free(&args);
	cgm_strbuf_free(&table);
	if (f.kind == CGM_KIND_PROCEDURE)
		f.result = NULL;
	f.is_trigger = rettype && (strcmp(rettype, "trigger") == 0 ||
				   strcmp(rettype, "event_trigger") == 0);

	/* Options: language, body, WINDOW, SET search_path. */
	jd_node *as_list = NULL;
	jd_node *options = jget(stmt, "options");
	for (size_t i = 0; i < jd_size(options); i++) {
		jd_node *d = jget(jd_at(options, i), "DefElem");
		const char *opt = jstr(d, "defname");
		jd_node *arg = jget(d, "arg");
		if (!opt)
			continue;
		if (strcmp(opt, "language") == 0 && jd_string_node(arg)) {
			f.language = cgm_arena_strdup(a, jd_string_node(arg));
		} else if (strcmp(opt, "as") == 0) {
			as_list = jget(jget(arg, "List"), "items");
		} else if (strcmp(opt, "window") == 0) {
			f.kind = CGM_KIND_WINDOW;
		} else if (strcmp(opt, "security") == 0) {
			f.security_definer = jbool(jget(arg, "Boolean"), "boolval");
		} else if (strcmp(opt, "volatility") == 0 && jd_string_node(arg)) {
			f.volatility = jd_string_node(arg)[0];
		} else if (strcmp(opt, "set") == 0) {
			const char **path;
			int npath;
			if (search_path_setting(st, jget(arg, "VariableSetStmt"), &path, &npath)) {
				f.search_path = path;
				f.npath = npath;
			}
		}
	}
	jd_node *sql_body = jget(stmt, "sql_body");
	if (sql_body) {
		f.atomic_body = true;
		f.source = atomic_text(st, jget(sql_body, "ReturnStmt") != NULL);
	} else if (as_list && (strcmp(f.language, "plpgsql") == 0 || strcmp(f.language, "sql") == 0)) {
		/* One copy of the body in the model (a marker's value is one
		 * already; a literal left in place lives in the parse tree). */
		const char *body = jd_string_node(jd_at(as_list, 0));
		const char *value = literal_value(st, body);
		f.source = value != body ? value : cgm_arena_strdup(a, body);
	}

	f.id = cgm_regprocedure(a, f.schema, f.name, f.argtypes, f.nargs);
	f.file = st->file;
	f.file_line = line_of(st, at);
	/* The literal's value is what PostgreSQL stores as prosrc (what
	 * cgmap_trace hashes); a BEGIN ATOMIC body's prosrc is not this text. */
	f.body_version = f.atomic_body ? NULL : cgm_body_version(a, f.source);
	if (!st->pool) {
		/* With a pool, its threads measure the body. */
		f.line_count = cgm_count_lines(f.source);
		f.body_hash = cgm_body_hash(a, f.source);
	}

	store_function(st, &f, jbool(stmt, "replace"), at);
}

/* PostgreSQL's limit on a function's arguments (FUNC_MAX_ARGS). */
#define FUNC_MAX_ARGS_SQL 100

/* A DefElem's argument read as defGetBoolean reads it: true, on, a
 * non-zero number. */
static bool defelem_true(const jd_node *arg)
{
	const char *s = jd_string_node(arg);
	if (s)
		return strcasecmp(s, "true") == 0 || strcasecmp(s, "on") == 0 || strcmp(s, "1") == 0;
	jd_node *i = jget(arg, "Integer");
	return i && jd_integer(jget(i, "ival")) != 0;
}

/* Can a value of `from` be passed as `to` with no run-time conversion
 * (IsBinaryCoercible)?  The same type, a polymorphic or "any" parameter,
 * a domain over it, or a binary-coercible pg_cast row. */
static bool binary_coercible(const sql_state *st, const char *from, const char *to)
{
	const cgm_model *m = st->model;
	for (int depth = 0; from && depth < 32; depth++) {
		if (strcmp(from, to) == 0 || cgm_type_is_polymorphic(to))
			return true;
		for (int i = 0; i < m->ncasts; i++)
			if (m->casts[i].method == 'b' && m->casts[i].source && m->casts[i].target &&
			    strcmp(m->casts[i].source, from) == 0 && strcmp(m->casts[i].target, to) == 0)
				return true;
		const char *base = NULL;
		for (int i = 0; i < m->ntype_infos && !base; i++)
			if (m->type_infos[i].kind == 'd' && m->type_infos[i].name &&
			    strcmp(m->type_infos[i].name, from) == 0)
				base = m->type_infos[i].base;
		from = base;
	}
	return false;
}

#define CALL_PATH_MAX 64

/* The schemas a call of a function qualified by `schema` (NULL: not)
 * searches, in order: that one, else pg_catalog unless the path places
 * it, then the path. */
static int call_path(const sql_state *st, const char *schema, const char **path)
{
	int npath = 0;
	if (schema) {
		path[npath++] = schema;
		return npath;
	}
	bool placed = false;
	for (int p = 0; p < st->npath; p++)
		placed = placed || strcmp(st->path[p], "pg_catalog") == 0;
	if (!placed)
		path[npath++] = "pg_catalog";
	for (int p = 0; p < st->npath && npath < CALL_PATH_MAX; p++)
		path[npath++] = st->path[p];
	return npath;
}

/* One support function of CREATE AGGREGATE, as lookup_agg_function finds
 * it: the functions of that name (qualified: in that schema; else pg_catalog
 * first unless placed, then the path, one masking another of the same
 * argument types further down) declaring exactly `ntypes` arguments (no
 * VARIADIC expansion, no defaults); an exact match of the declared types,
 * else PostgreSQL's choice among them (cgm_select_candidates); then every
 * type must reach its parameter binary-coercibly.  Returns the index in
 * fns, or -1 with *builtin set to the index of a pg_catalog one in
 * model->functions; else -1, with *why set when a function was found
 * that PostgreSQL refuses. */
static int find_agg_support(sql_state *st, const char *const *parts, int n,
			    const char *const *types, int ntypes, int *builtin, const char **why)
{
	*builtin = -1;
	*why = NULL;
	const char *schema = n >= 2 ? parts[n - 2] : NULL;
	const char *name = parts[n - 1];
	const char *path[CALL_PATH_MAX];
	int npath = call_path(st, schema, path);
	/* Candidates: k >= 0 a function of fns, k < 0 builtin -k - 1. */
	int cap = 16, ncand = 0;
	int *cand = cgm_xcalloc((size_t)cap, sizeof(int));
	int *rank = cgm_xcalloc((size_t)cap, sizeof(int));
	int nscan = st->nbuiltin + st->nfns;
	bool builtin_name = smap_get(&st->builtin_names, name) == 1;
	for (int k = 0; k < nscan; k++) {
		bool is_builtin = k < st->nbuiltin;
		if (is_builtin && !builtin_name) {
			k = st->nbuiltin - 1;
			continue;
		}
		const cgm_function *f = is_builtin ? &st->model->functions[k]
						   : &st->fns[k - st->nbuiltin];
		if (f->nargs != ntypes || strcmp(f->name, name) != 0 || f->kind == CGM_KIND_PROCEDURE ||
		    (!is_builtin && st->dropped[k - st->nbuiltin]))
			continue;
		int r = -1;
		for (int p = 0; p < npath && r < 0; p++)
			if (strcmp(f->schema, path[p]) == 0)
				r = p;
		if (r < 0)
			continue;
		int id = is_builtin ? -k - 1 : k - st->nbuiltin;
		bool masked = false;
		for (int j = 0; j < ncand && !masked; j++) {
			const cgm_function *g = cand[j] < 0 ? &st->model->functions[-cand[j] - 1]
							    : &st->fns[cand[j]];
			bool same = true;
			for (int a = 0; a < ntypes && same; a++)
				same = strcmp(f->argtypes[a], g->argtypes[a]) == 0;
			if (!same)
				continue;
			masked = true;
			if (r < rank[j]) {
				cand[j] = id;
				rank[j] = r;
			}
		}
		if (masked)
			continue;
		if (ncand == cap) {
			cap *= 2;
			cand = cgm_xrealloc(cand, sizeof(int) * (size_t)cap);
			rank = cgm_xrealloc(rank, sizeof(int) * (size_t)cap);
		}
		cand[ncand] = id;
		rank[ncand++] = r;
	}
	int chosen = INT_MIN;
	/* func_get_detail takes an exact match of the declared types first,
	 * polymorphic ones included. */
	for (int j = 0; j < ncand && chosen == INT_MIN; j++) {
		const cgm_function *g = cand[j] < 0 ? &st->model->functions[-cand[j] - 1] : &st->fns[cand[j]];
		bool same = true;
		for (int a = 0; a < ntypes && same; a++)
			same = types[a] && strcmp(types[a], g->argtypes[a]) == 0;
		if (same)
			chosen = cand[j];
	}
	if (chosen == INT_MIN && ncand > 0) {
		cgm_candidate *sel = cgm_xcalloc((size_t)ncand, sizeof(cgm_candidate));
		for (int j = 0; j < ncand; j++) {
			const cgm_function *g = cand[j] < 0 ? &st->model->functions[-cand[j] - 1]
							    : &st->fns[cand[j]];
			sel[j] = (cgm_candidate){ .index = j, .params = (const char *const *)g->argtypes };
		}
		cgm_catalog *catalog = cgm_catalog_new(st->model);
		int left = cgm_select_candidates(catalog, ntypes, types, sel, ncand);
		cgm_catalog_free(catalog);
		/* Several left only where cgmap cannot type an argument: the
		 * first declared of them stands for PostgreSQL's choice. */
		if (left > 0) {
			int first = sel[0].index;
			for (int j = 1; j < left; j++)
				if (sel[j].index < first)
					first = sel[j].index;
			chosen = cand[first];
		}
		free(sel);
	}
	free(cand);
	free(rank);
	if (chosen == INT_MIN)
		return -1;
	const cgm_function *g = chosen < 0 ? &st->model->functions[-chosen - 1] : &st->fns[chosen];
	for (int a = 0; a < ntypes; a++)
		if (types[a] && !binary_coercible(st, types[a], g->argtypes[a])) {
			*why = cgm_arena_printf(st->a, "function %s requires run-time type coercion", g->id);
			return -1;
		}
	if (chosen < 0) {
		*builtin = -chosen - 1;
		return -1;
	}
	return chosen;
}

/* The aggregate's result: its final function's, a polymorphic one
 * resolved from the types it is given when none of them is polymorphic
 * (lookup_agg_function's enforce_generic_type_consistency); with a
 * polymorphic argument the aggregate stays polymorphic. */
static const char *agg_final_result(sql_state *st, const cgm_function *g, const char *const *types,
				    int ntypes)
{
	if (!g->result || !cgm_type_is_polymorphic(g->result))
		return g->result;
	for (int i = 0; i < ntypes; i++)
		if (!types[i] || cgm_type_is_polymorphic(types[i]))
			return g->result;
	cgm_catalog *catalog = cgm_catalog_new(st->model);
	const char *resolved = cgm_result_type(catalog, st->a, g->result, ntypes,
					       (const char *const *)g->argtypes, types);
	cgm_catalog_free(catalog);
	return resolved ? resolved : g->result;
}

/* CREATE AGGREGATE name(args) (sfunc = ..., stype = ..., ...), or the old
 * name (basetype = type, sfunc = ...): a function of kind aggregate, as
 * pg_proc lists it, referring to its support
 * functions (as pg_depend records them). */
static void apply_create_aggregate(sql_state *st, const jd_node *stmt)
{
	cgm_arena *a = st->a;
	const char *parts[3];
	int n = name_list(jget(stmt, "defnames"), parts, 3);
	int at = first_token(st);
	jd_node *args = jget(stmt, "args");
	if (n < 0)
		return;
	/* The old form, CREATE AGGREGATE name (BASETYPE = type, ...), has
	 * its one argument's type among the options; BASETYPE = ANY is (*). */
	jd_node *basetype = NULL;
	if (!jd_is_array(args)) {
		jd_node *def = jget(stmt, "definition");
		for (size_t i = 0; i < jd_size(def); i++) {
			jd_node *d = jget(jd_at(def, i), "DefElem");
			const char *opt = jstr(d, "defname");
			if (opt && strcmp(opt, "basetype") == 0)
				basetype = jget(jget(d, "arg"), "TypeName");
		}
		if (!basetype)
			return;
		const char *bparts[2];
		if (name_list(jget(basetype, "names"), bparts, 2) == 1 &&
		    strcmp(bparts[0], "any") == 0)
			basetype = NULL;
	}
	const char *schema = n >= 2 ? parts[n - 2] : creation_schema(st);
	if (!schema || !schema_exists(st, schema)) {
		diagnose(st, at, "no schema to create aggregate \"%s\" in", parts[n - 1]);
		return;
	}
	cgm_function f;
	memset(&f, 0, sizeof f);
	f.schema = cgm_arena_strdup(a, schema);
	f.name = cgm_arena_strdup(a, parts[n - 1]);
	f.kind = CGM_KIND_AGGREGATE;
	f.language = "internal";
	f.npath = -1;
	f.scc = -1;
	jd_node *params = jd_is_array(args) ? jget(jget(jd_at(args, 0), "List"), "items")
					    : NULL; /* NULL for (*) */
	int np = basetype ? 1 : (int)jd_size(params);
	/* An ordered-set aggregate's direct arguments (args' second item) are
	 * not passed to its transition.  libpg_query's JSON writes that count
	 * as 0 both for a plain aggregate (-1 in the parse tree) and for
	 * (ORDER BY args): only direct arguments tell an ordered-set one. */
	int ndirect = jd_is_array(args) && jd_size(args) >= 2
			      ? (int)jd_integer(jget(jget(jd_at(args, 1), "Integer"), "ival"))
			      : 0;
	if (ndirect < 0 || ndirect > np)
		ndirect = 0;
	f.argtypes = cgm_arena_alloc(a, sizeof(char *) * (size_t)(np ? np : 1));
	const char **names = cgm_arena_alloc(a, sizeof(char *) * (size_t)(np ? np : 1));
	bool any_name = false;
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&text, "");
	for (int i = 0; i < np; i++) {
		jd_node *p = basetype ? NULL : jget(jd_at(params, (size_t)i), "FunctionParameter");
		jd_node *argtype = basetype ? basetype : jget(p, "argType");
		const char *type = type_of(st, argtype);
		if (!type)
			type = type_written(st, argtype);
		const char *pname = p ? jstr(p, "name") : NULL;
		const char *mode = p ? jstr(p, "mode") : NULL;
		bool variadic = mode && strcmp(mode, "FUNC_PARAM_VARIADIC") == 0;
		/* As pg_get_function_arguments prints an ordered-set one. */
		cgm_strbuf_printf(&text, "%s%s%s%s%s",
				  ndirect > 0 && i == ndirect ? " ORDER BY " : i ? ", " : "",
				  variadic ? "VARIADIC " : "",
				  pname && *pname ? cgm_quote_ident(a, pname) : "", pname && *pname ? " " : "",
				  type);
		/* A call passes a VARIADIC aggregate's arguments one by one, and
		 * may name them, as any function's. */
		if (variadic) {
			f.variadic = true;
			f.variadic_elem = cgm_variadic_element(a, type);
		}
		if (pname && *pname)
			any_name = true;
		names[f.nargs] = pname && *pname ? cgm_arena_strdup(a, pname) : NULL;
		f.argtypes[f.nargs++] = type;
	}
	f.argnames = any_name ? names : NULL;
	f.arguments = cgm_arena_strdup(a, cgm_strbuf_cstr(&text));
	cgm_strbuf_free(&text);
	f.identity_args = cgm_identity_args(a, f.argtypes, f.nargs);
	f.id = cgm_regprocedure(a, f.schema, f.name, f.argtypes, f.nargs);
	f.file = st->file;
	f.file_line = line_of(st, at);

	/* The options: the state types and FINALFUNC_EXTRA first, as the
	 * support functions are looked up by them. */
	jd_node *def = jget(stmt, "definition");
	const char *stype = NULL, *mstype = NULL;
	bool final_extra = false, mfinal_extra = false;
	for (size_t i = 0; i < jd_size(def); i++) {
		jd_node *d = jget(jd_at(def, i), "DefElem");
		const char *opt = jstr(d, "defname");
		jd_node *tn = jget(jget(d, "arg"), "TypeName");
		if (!opt)
			continue;
		if (strcmp(opt, "stype") == 0 && tn)
			stype = type_of(st, tn);
		else if (strcmp(opt, "mstype") == 0 && tn)
			mstype = type_of(st, tn);
		else if (strcmp(opt, "finalfunc_extra") == 0)
			final_extra = !jget(d, "arg") || defelem_true(jget(d, "arg"));
		else if (strcmp(opt, "mfinalfunc_extra") == 0)
			mfinal_extra = !jget(d, "arg") || defelem_true(jget(d, "arg"));
	}
	/* Each support function's argument types (lookup_agg_function's,
	 * from DefineAggregate / AggregateCreate). */
	const char *ttypes[FUNC_MAX_ARGS_SQL + 2];
	int ntrans;
	if (f.nargs > FUNC_MAX_ARGS_SQL) {
		ntrans = 0;
	} else if (ndirect > 0 && ndirect == f.nargs) {
		ntrans = 2; /* (direct..., VARIADIC x ORDER BY x): the VARIADIC one */
		ttypes[1] = f.argtypes[f.nargs - 1];
	} else {
		ntrans = f.nargs - ndirect + 1;
		for (int i = 1; i < ntrans; i++)
			ttypes[i] = f.argtypes[ndirect + i - 1];
	}
	int support[8], nsupport = 0;
	const char *roles[8];
	for (size_t i = 0; i < jd_size(def); i++) {
		jd_node *d = jget(jd_at(def, i), "DefElem");
		const char *opt = jstr(d, "defname");
		jd_node *tn = jget(jget(d, "arg"), "TypeName");
		if (!opt || !tn)
			continue;
		static const struct { const char *opt; const char *role; } kinds[] = {
			{ "sfunc", "transition" },     { "msfunc", "moving transition" },
			{ "minvfunc", "moving inverse" }, { "finalfunc", "final" },
			{ "mfinalfunc", "moving final" }, { "combinefunc", "combine" },
			{ "serialfunc", "serialize" }, { "deserialfunc", "deserialize" },
		};
		size_t k = 0;
		while (k < sizeof kinds / sizeof kinds[0] && strcmp(opt, kinds[k].opt) != 0)
			k++;
		if (k == sizeof kinds / sizeof kinds[0] || ntrans == 0)
			continue;
		const char *types[FUNC_MAX_ARGS_SQL + 2];
		int ntypes;
		bool moving = opt[0] == 'm';
		if (strcmp(opt, "sfunc") == 0 || strcmp(opt, "msfunc") == 0 || strcmp(opt, "minvfunc") == 0) {
			memcpy(types, ttypes, sizeof(char *) * (size_t)ntrans);
			ntypes = ntrans;
			types[0] = moving ? mstype : stype;
		} else if (strcmp(opt, "finalfunc") == 0 || strcmp(opt, "mfinalfunc") == 0) {
			/* The state and the direct arguments, or all with _EXTRA. */
			ntypes = 1 + ((moving ? mfinal_extra : final_extra) ? f.nargs : ndirect);
			types[0] = moving ? mstype : stype;
			for (int a = 1; a < ntypes; a++)
				types[a] = f.argtypes[a - 1];
		} else if (strcmp(opt, "combinefunc") == 0) {
			ntypes = 2;
			types[0] = types[1] = stype;
		} else if (strcmp(opt, "serialfunc") == 0) {
			ntypes = 1;
			types[0] = "internal";
		} else {
			ntypes = 2;
			types[0] = "bytea";
			types[1] = "internal";
		}
		const char *fparts[3];
		int fn_n = name_list(jget(tn, "names"), fparts, 3);
		if (fn_n < 1)
			continue;
		int builtin;
		const char *why;
		int fn = find_agg_support(st, fparts, fn_n, types, ntypes, &builtin, &why);
		if (fn < 0 && builtin < 0) {
			bool known = true;
			for (int a = 0; a < ntypes; a++)
				known = known && types[a];
			if (!known)
				continue; /* a type cgmap cannot know: said where it was written */
			/* PostgreSQL refuses the aggregate. */
			if (!why)
				why = cgm_arena_printf(a, "function %s does not exist",
						       cgm_regprocedure(a, fn_n >= 2 ? fparts[fn_n - 2] : NULL,
									fparts[fn_n - 1], types, ntypes));
			diagnose(st, at, "aggregate %s: %s", f.id, why);
			return;
		}
		if (strcmp(opt, "finalfunc") == 0) {
			const cgm_function *g = fn >= 0 ? &st->fns[fn] : &st->model->functions[builtin];
			f.result = agg_final_result(st, g, types, ntypes);
		}
		if (fn >= 0 && nsupport < 8) {
			roles[nsupport] = kinds[k].role;
			support[nsupport++] = fn;
		}
	}
	if (!f.result)
		f.result = stype;
	store_function(st, &f, jbool(stmt, "replace"), at);
	int self = smap_get(&st->fn_index, f.id);
	if (self >= 0 && st->fns[self].kind == CGM_KIND_AGGREGATE) {
		/* The latest definition counts: an earlier record is replaced. */
		for (int i = 0; i < st->naggregates; i++)
			if (st->aggregates[i].fn == self)
				st->aggregates[i].dropped = true;
		RESERVE_ONE(a, st->aggregates, st->naggregates, st->cap_aggregates, 16);
		sql_aggregate *agg = &st->aggregates[st->naggregates++];
		memset(agg, 0, sizeof *agg);
		agg->fn = self;
		agg->nsupport = nsupport;
		memcpy(agg->support, support, sizeof(int) * (size_t)nsupport);
		memcpy(agg->roles, roles, sizeof(char *) * (size_t)nsupport);
	}
	const char *object = cgm_arena_printf(a, "function %s", f.id);
	for (int i = 0; i < nsupport; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen = seen || support[k] == support[i];
		if (!seen)
			new_reference(st, support[i], "aggregate", object);
	}
}

/* Extract fns[i] now, on a copy, while the files are still read. */
static void speculate(sql_state *st, int i)
{
	if (!st->pool)
		return;
	st->spec[i] = NULL;
	if (!st->fns[i].source)
		return;
	if (st->nspecs == st->cap_specs) {
		st->cap_specs = st->cap_specs ? st->cap_specs * 2 : 256;
		st->specs = cgm_xrealloc(st->specs, sizeof(cgm_function *) * (size_t)st->cap_specs);
	}
	cgm_function *copy = cgm_xcalloc(1, sizeof(cgm_function));
	*copy = st->fns[i];
	st->specs[st->nspecs++] = copy;
	st->spec[i] = copy;
	cgm_extract_pool_submit(st->pool, copy, true);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Would extraction read the same from both?  (Only what
 * cgm_extract_function reads: a rename or a new search_path keeps the
 * sites.) */
static bool same_extraction_input(const cgm_function *a, const cgm_function *b)
{
	if (a->kind != b->kind || a->nargs != b->nargs || a->atomic_body != b->atomic_body ||
	    !same_text(a->language, b->language) || !same_text(a->source, b->source) ||
	    !same_text(a->arguments, b->arguments) || !same_text(a->result, b->result) ||
	    (a->argtypes == NULL) != (b->argtypes == NULL) || (a->argnames == NULL) != (b->argnames == NULL))
		return false;
	for (int k = 0; k < a->nargs; k++)
		if ((a->argtypes && !same_text(a->argtypes[k], b->argtypes[k])) ||
		    (a->argnames && !same_text(a->argnames[k], b->argnames[k])))
			return false;
	return true;
}

/* Whether a line of text[from, to) is a psql \if, \elif or \else: psql
 * runs one branch, and a file read here applies them all. */
static bool psql_branch_between(const char *text, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (i > from && text[i - 1] != '\n')
			continue;
		int j = i;
		while (j < to && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j + 3 <= to && (strncmp(text + j, "\\if", 3) == 0 ||
				    strncmp(text + j, "\\el", 3) == 0))
			return true;
	}
	return false;
}

/* CREATE OR REPLACE of a function the same file defined already, with
 * another definition, and nothing dropped it between: the earlier body
 * never runs, which in one file is a slip (two tests of the same name,
 * one of them never run), not a migration.  Either made by a DO block or
 * a guarded one (an update script's "make it if missing, then replace
 * it"), or on each side of a psql branch, is not said. */
static void diagnose_redefinition(sql_state *st, int existing, const cgm_function *f, int at)
{
	const cgm_function *old = &st->fns[existing];
	if (st->do_depth > 0 || st->guarded || st->made_in_block[existing] || !old->file || !f->file ||
	    strcmp(old->file, f->file) != 0 || old->file_line <= 0 || old->file_line >= f->file_line)
		return;
	if (same_extraction_input(old, f))
		return; /* the same definition twice: nothing is lost */
	int first = old->file_line - st->line_base - 1;
	if (first < 0 || first >= st->nlines ||
	    psql_branch_between(st->text, st->line_starts[first], at))
		return;
	diagnose(st, at,
		 "function %s is defined again: its definition at line %d is replaced and never runs",
		 f->id, old->file_line);
}

/* Add or replace a function record under its id (CREATE [OR REPLACE]). */
static void store_function(sql_state *st, cgm_function *f, bool replace, int at)
{
	int existing = smap_get(&st->fn_index, f->id);
	if (existing >= 0) {
		if (!replace) {
			diagnose_existing(st, at, "function %s already exists", f->id);
			return;
		}
		diagnose_redefinition(st, existing, f, at);
		st->made_in_block[existing] = st->do_depth > 0 || st->guarded;
		f->comment = st->fns[existing].comment; /* CREATE OR REPLACE keeps it */
		f->owner = st->fns[existing].owner;     /* and its owner */
		st->fns[existing] = *f;
		speculate(st, existing);
		return;
	}
	if (st->nfns == st->cap_fns) {
		int cap = st->cap_fns ? st->cap_fns * 2 : 256;
		/* Heap memory, freed once the model holds the functions: the
		 * model's arena keeps nothing of this list. */
		st->fns = cgm_xrealloc(st->fns, sizeof(cgm_function) * (size_t)cap);
		st->dropped = cgm_xrealloc(st->dropped, sizeof(bool) * (size_t)cap);
		st->made_in_block = cgm_xrealloc(st->made_in_block, sizeof(bool) * (size_t)cap);
		if (st->pool)
			st->spec = cgm_xrealloc(st->spec, sizeof(cgm_function *) * (size_t)cap);
		st->cap_fns = cap;
	}
	f->owner = sql_roles_acting(&st->roles);
	st->fns[st->nfns] = *f;
	st->dropped[st->nfns] = false;
	st->made_in_block[st->nfns] = st->do_depth > 0 || st->guarded;
	smap_put(&st->fn_index, f->id, st->nfns);
	st->nfns++;
	speculate(st, st->nfns - 1);
}

static bool is_routine_type(const char *objtype)
{
	return objtype && (strcmp(objtype, "OBJECT_FUNCTION") == 0 ||
			   strcmp(objtype, "OBJECT_PROCEDURE") == 0 ||
			   strcmp(objtype, "OBJECT_ROUTINE") == 0 ||
			   strcmp(objtype, "OBJECT_AGGREGATE") == 0);
}

/* The routine a statement on `objtype` names (find_object), refused as
 * LookupFuncWithArgs refuses it when ... AGGREGATE names no aggregate. */
static int find_routine(sql_state *st, const char *objtype, const jd_node *owa, const char **why)
{
	int fn = find_object(st, owa, why);
	if (fn >= 0 && strcmp(objtype, "OBJECT_AGGREGATE") == 0 &&
	    st->fns[fn].kind != CGM_KIND_AGGREGATE) {
		*why = "is not an aggregate";
		return -1;
	}
	return fn;
}

static void drop_references(sql_state *st, const char *object, const char *owner, bool prefix);

/* A function dropped.  Only with CASCADE does what calls it go too:
 * without, PostgreSQL refuses the drop while anything depends on it, and
 * a file run on regardless (DROP, then CREATE OR REPLACE) keeps those. */
static void drop_function(sql_state *st, int i, bool cascade)
{
	st->dropped[i] = true;
	smap_put(&st->fn_index, st->fns[i].id, -1);
	if (cascade)
		retarget_function(st, st->fns[i].id, NULL);
	/* An aggregate's references to its support functions are its own. */
	if (st->fns[i].kind == CGM_KIND_AGGREGATE)
		drop_references(st, cgm_arena_printf(st->a, "function %s", st->fns[i].id), NULL, false);
}

/* ---- references: catalog objects calling functions ---- */

static cgm_reference *new_reference(sql_state *st, int fn, const char *kind, const char *object)
{
	/* pg_depend holds one entry per object and function: a function an
	 * expression calls twice is referenced once.  One object's references
	 * are added together, so only the last ones need looking at. */
	for (int i = st->nrefs - 1; i >= 0 && st->refs[i].ref.object == object; i--)
		if (!st->refs[i].dropped && st->refs[i].owner == st->ref_owner &&
		    st->refs[i].ref.function_id == st->fns[fn].id && st->refs[i].ref.object_kind == kind)
			return &st->refs[i].ref;
	RESERVE_ONE(st->a, st->refs, st->nrefs, st->cap_refs, 64);
	sql_reference *r = &st->refs[st->nrefs++];
	memset(r, 0, sizeof *r);
	r->owner = st->ref_owner;
	r->ref.function = -1;
	r->ref.function_id = st->fns[fn].id;
	r->ref.object_kind = kind;
	r->ref.object = object;
	return &r->ref;
}

/* Drop the references of one object (its description), or of everything
 * hanging on a relation (owner key), or on any relation of a schema
 * (owner prefix "schema\x1f"). */
static void drop_references(sql_state *st, const char *object, const char *owner, bool prefix)
{
	size_t plen = owner ? strlen(owner) : 0;
	for (int i = 0; i < st->nrefs; i++) {
		sql_reference *r = &st->refs[i];
		if (object && strcmp(r->ref.object, object) == 0)
			r->dropped = true;
		if (owner && r->owner &&
		    (prefix ? strncmp(r->owner, owner, plen) == 0 : strcmp(r->owner, owner) == 0))
			r->dropped = true;
	}
	/* What the object or relation ran goes with it. */
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *e = &st->effects[i];
		if (object && e->ref_object && strcmp(e->ref_object, object) == 0)
			e->dropped = true;
		if (owner && e->owner &&
		    (prefix ? strncmp(e->owner, owner, plen) == 0 : strcmp(e->owner, owner) == 0))
			e->dropped = true;
	}
}

/* ---- what relations run (relfx.h), as the live catalog records it ---- */

static void add_references(sql_state *st, const jd_node *node, const char *schema, const char *rel,
			   const char *kind, const char *object);

static const char *relation_text(sql_state *st, const char *schema, const char *name)
{
	return cgm_quote_qualified(st->a, schema, name);
}

/* How pg_describe_object names a relation's kind ("trigger t on view
 * app.v"). */
static const char *relation_word(sql_state *st, const char *schema, const char *name)
{
	const sql_table *t = find_table(st, schema, name);
	if (t && (strcmp(t->kind, "view") == 0 || strcmp(t->kind, "materialized view") == 0 ||
		  strcmp(t->kind, "foreign table") == 0))
		return t->kind;
	return "table";
}


static void set_effect_owner(sql_state *st, int i, const char *key);

static cgm_effect *new_effect(sql_state *st, const char *schema, const char *rel, cgm_reach reach,
			      cgm_via via, const char *object, unsigned events,
			      const char *ref_object)
{
	RESERVE_ONE(st->a, st->effects, st->neffects, st->cap_effects, 32);
	sql_effect *x = &st->effects[st->neffects++];
	memset(x, 0, sizeof *x);
	x->owner = pair_key(st->a, schema, rel);
	x->ref_object = ref_object;
	cgm_effect *e = &x->effect;
	e->schema = cgm_arena_strdup(st->a, schema);
	e->relation = cgm_arena_strdup(st->a, rel);
	e->reach = reach;
	e->via = via;
	e->object = object;
	e->events = events;
	e->function = -1;
	return e;
}

/* Whether the effect just added repeats an earlier one of its object (an
 * expression calling a function twice runs it through one mechanism, as
 * the catalog lists it once): it is then taken back. */
static void drop_repeated_effect(sql_state *st)
{
	const sql_effect *last = &st->effects[st->neffects - 1];
	const cgm_effect *e = &last->effect;
	for (int i = st->neffects - 2; i >= 0 && st->effects[i].effect.object == e->object; i--) {
		const sql_effect *x = &st->effects[i];
		if (!x->dropped && x->ref_object == last->ref_object && x->effect.via == e->via &&
		    x->effect.events == e->events && x->effect.function_id == e->function_id &&
		    x->effect.ncolumns == e->ncolumns &&
		    (e->ncolumns == 0 || strcmp(x->effect.columns[0], e->columns[0]) == 0) &&
		    strcmp(x->owner, last->owner) == 0) {
			st->neffects--;
			if (st->neffects < st->effect_owners.indexed)
				st->effect_owners.stale = true; /* its slot is taken again */
			return;
		}
	}
}

/* Effects [first, neffects) are those of index `name` (columns, label:
 * what a copy of it is named from). */
static void mark_index_effects(sql_state *st, int first, const char *name, const char **columns,
			       int ncolumns, const char *label)
{
	const char **kept = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(ncolumns ? ncolumns : 1));
	for (int i = 0; i < ncolumns; i++)
		kept[i] = cgm_arena_strdup(st->a, columns[i]);
	for (int i = first; i < st->neffects; i++) {
		st->effects[i].index_name = cgm_arena_strdup(st->a, name);
		st->effects[i].index_columns = kept;
		st->effects[i].nindex_columns = ncolumns;
		st->effects[i].index_label = label;
	}
}

static const char **one_column(sql_state *st, const char *col, int *n)
{
	*n = col ? 1 : 0;
	if (!col)
		return NULL;
	const char **cols = cgm_arena_alloc(st->a, sizeof(char *));
	cols[0] = cgm_arena_strdup(st->a, col);
	return cols;
}

/* The names of a list of String nodes (UPDATE OF, a key's columns). */
static const char **string_list(sql_state *st, const jd_node *list, int *n)
{
	*n = (int)jd_size(list);
	if (*n == 0)
		return NULL;
	const char **out = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)*n);
	for (int i = 0; i < *n; i++)
		out[i] = cgm_arena_strdup(st->a, jd_string_node(jd_at(list, (size_t)i)));
	return out;
}

static const char *exprcall_type_name(void *ctx, const jd_node *type_name)
{
	return type_name ? type_of(ctx, type_name) : NULL;
}

static const cgm_column *exprcall_relation(void *ctx, const char *schema, const char *name,
					   int *ncolumns)
{
	sql_table *t = find_table(ctx, schema, name);
	*ncolumns = t ? t->ncolumns : 0;
	return t ? t->columns : NULL;
}

/* Every function of the name visible where the call is made (qualified:
 * in that schema; else pg_catalog unless placed, then the path) taking
 * nargs arguments, with its defaults too, and its schema's place. */
static int exprcall_candidates(void *ctx, const char *schema, const char *name, int nargs,
			       cgm_exprcall_candidate *out, int max)
{
	sql_state *st = ctx;
	const char *path[CALL_PATH_MAX];
	int npath = call_path(st, schema, path);
	int n = 0;
	bool builtin_name = smap_get(&st->builtin_names, name) == 1;
	for (int k = builtin_name ? 0 : st->nbuiltin; k < st->nbuiltin + st->nfns; k++) {
		bool is_builtin = k < st->nbuiltin;
		const cgm_function *f = is_builtin ? &st->model->functions[k]
						   : &st->fns[k - st->nbuiltin];
		if (strcmp(f->name, name) != 0 || f->kind == CGM_KIND_PROCEDURE ||
		    (!is_builtin && st->dropped[k - st->nbuiltin]) || !arity_fits(f, nargs))
			continue;
		for (int p = 0; p < npath; p++)
			if (strcmp(f->schema, path[p]) == 0) {
				if (n == max)
					return -1;
				out[n++] = (cgm_exprcall_candidate){ f, p };
				break;
			}
	}
	return n;
}

/* The typing of calls in an expression of relation schema.rel (rel NULL:
 * a view's query being made, or no relation). */
static cgm_exprcall_source exprcall_source(sql_state *st, const char *schema, const char *rel)
{
	return (cgm_exprcall_source){
		.ctx = st,
		.arena = st->a,
		.type_name = exprcall_type_name,
		.relation = exprcall_relation,
		.candidates = exprcall_candidates,
		.model = st->model,
		.query = rel ? NULL : st->view_query,
		.schema = schema,
		.rel = rel,
		.index = rel ? NULL : st->view_index,
	};
}

/* The type of an operand in an expression of relation schema.rel, where
 * the DDL tells it (cgm_exprcall_operand_type); else NULL. */
static const char *effect_operand_type(sql_state *st, const jd_node *n, const char *schema,
				       const char *rel)
{
	cgm_exprcall_source src = exprcall_source(st, schema, rel);
	const char *type = cgm_exprcall_operand_type(&src, n);
	cgm_exprcall_source_done(&src);
	return type;
}

/* The user function an operator expression of relation schema.rel runs,
 * chosen as PostgreSQL would when the DDL tells enough: the operators of
 * that symbol (in the schema written, else along the path) whose operand
 * types match exactly (an untyped literal taking the other's type), else
 * the only one there is when pg_catalog does not overload the symbol.
 * -1 when none or no single one. */
static int effect_operator_fn(sql_state *st, const jd_node *aexpr, const char *schema,
			      const char *rel)
{
	const char *kind = jstr(aexpr, "kind");
	const char *parts[3];
	int n = name_list(jget(aexpr, "name"), parts, 3);
	if (!kind || strcmp(kind, "AEXPR_OP") != 0 || n < 1 || st->noperators == 0)
		return -1;
	const char *opschema = n >= 2 ? parts[n - 2] : NULL, *name = parts[n - 1];
	bool prefix = !jget(aexpr, "lexpr");
	const char *l = prefix ? NULL : effect_operand_type(st, jget(aexpr, "lexpr"), schema, rel);
	const char *r = effect_operand_type(st, jget(aexpr, "rexpr"), schema, rel);
	if (l && r && strcmp(l, "unknown") == 0)
		l = r;
	if (l && r && strcmp(r, "unknown") == 0)
		r = l;
	int only = -1, count = 0;
	for (int p = 0; p < (opschema ? 1 : st->npath); p++) {
		const char *in = opschema ? opschema : st->path[p];
		for (int i = st->noperators - 1; i >= 0; i--) {
			const sql_operator *o = &st->operators[i];
			if (o->dropped || strcmp(o->op.name, name) != 0 || strcmp(o->op.schema, in) != 0 ||
			    prefix != !o->op.left)
				continue;
			if (r && strcmp(o->op.right, r) == 0 &&
			    (prefix || (l && strcmp(o->op.left, l) == 0)))
				return o->fn;
			only = o->fn;
			count++;
		}
	}
	return count == 1 && !cgm_builtin_operator_overloaded(name, prefix) ? only : -1;
}

/* The user function of the cast a TypeCast of relation schema.rel runs:
 * from the operand's known type to the written one; -1 when none. */
static int effect_cast_fn(sql_state *st, const jd_node *cast, const char *schema, const char *rel)
{
	const char *target = type_of(st, jget(cast, "typeName"));
	const char *source = effect_operand_type(st, jget(cast, "arg"), schema, rel);
	if (!target || !source || strcmp(source, "unknown") == 0 || strcmp(source, target) == 0)
		return -1;
	for (int i = st->ncasts - 1; i >= 0; i--) {
		const sql_cast *c = &st->casts[i];
		if (!c->dropped && strcmp(c->cast.source, source) == 0 &&
		    strcmp(c->cast.target, target) == 0)
			return c->fn;
	}
	return -1;
}

/* The relation `alias` names in a view's query: a FROM item's alias, or
 * the name of one without (the first found: a view's query is one
 * statement, and a name repeated in a subquery is rare enough). */
static sql_table *aliased_table(sql_state *st, const jd_node *node, const char *alias)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++) {
			sql_table *t = aliased_table(st, jd_at(node, i), alias);
			if (t)
				return t;
		}
		return NULL;
	}
	if (!jd_is_object(node))
		return NULL;
	jd_node *rv = jget(node, "RangeVar");
	if (rv) {
		const char *named = jstr(jget(rv, "alias"), "aliasname");
		const char *schema, *name;
		if (strcmp(named ? named : jstr(rv, "relname") ? jstr(rv, "relname") : "", alias) != 0 ||
		    !range_var(st, rv, false, &schema, &name))
			return NULL;
		return find_table(st, schema, name);
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value) {
		sql_table *t = aliased_table(st, value, alias);
		if (t)
			return t;
	}
	(void)key;
	return NULL;
}

/* Attribute notation in a view's query, `alias.f` of a relation with no
 * column f (nor a system column f): PostgreSQL calls f(row), the function
 * of that row type along the path, and the view's rule depends on it, as
 * a function's body does (rawtree.c).  The function's index, or -1. */
static int view_attribute_callee(sql_state *st, const jd_node *ref)
{
	jd_node *fields = jget(ref, "fields");
	if (!st->view_query || jd_size(fields) != 2)
		return -1;
	const char *alias = jd_string_node(jd_at(fields, 0)), *fname = jd_string_node(jd_at(fields, 1));
	if (!alias || !fname)
		return -1;
	if (cgm_system_column(fname))
		return -1;
	sql_table *t = aliased_table(st, st->view_query, alias);
	if (!t || t->ncolumns <= 0)
		return -1;
	for (int i = 0; i < t->ncolumns; i++)
		if (!t->columns[i].name || strcmp(t->columns[i].name, fname) == 0)
			return -1;
	const char *row = relation_text(st, t->schema, t->name);
	for (int p = 0; p < st->npath; p++)
		for (int i = 0; i < st->nfns; i++) {
			const cgm_function *f = &st->fns[i];
			if (!st->dropped[i] && arity_fits(f, 1) && f->nargs >= 1 && f->argtypes &&
			    f->argtypes[0] && strcmp(f->argtypes[0], row) == 0 && strcmp(f->name, fname) == 0 &&
			    strcmp(f->schema, st->path[p]) == 0)
				return i;
		}
	return -1;
}

/* Function `fn` (an index into st->fns) run on relation schema.rel's
 * behalf, unless the same object already runs it. */
static void add_function_effect(sql_state *st, int fn, const char *schema, const char *rel,
				cgm_via via, const char *object, unsigned events, const char *column,
				const char *ref_object)
{
	cgm_effect *e = new_effect(st, schema, rel, CGM_REACH_FUNCTION, via, object, events, ref_object);
	e->function_id = st->fns[fn].id;
	e->columns = one_column(st, column, &e->ncolumns);
	drop_repeated_effect(st);
}

static int find_function_by_types(sql_state *st, const char *const *parts, int n,
				  const char *const *types, int ntypes, const char **builtin_id);

/* The index in fns of a function of fns, -1 for one of model->functions
 * (pg_catalog's and the extensions' list). */
static int user_function_index(const sql_state *st, const cgm_function *f)
{
	uintptr_t at = (uintptr_t)f, first = (uintptr_t)st->fns;
	if (st->nfns <= 0 || at < first || at >= first + sizeof(cgm_function) * (size_t)st->nfns)
		return -1;
	return (int)((at - first) / sizeof(cgm_function));
}

/* The user function a call in an expression of relation schema.rel (a
 * default, check, index, policy, trigger's WHEN, rule; rel NULL for a
 * view's query or a domain's) runs, for its effects and its references
 * alike: the overload PostgreSQL takes for the arguments' types where
 * the DDL tells them (a constant, an untyped literal, a cast, a column of
 * the relation): ST_SRID('POINT(0 0)'::geometry) in PostGIS raster's
 * raster_columns view, among st_srid's three of one argument; else, or
 * when cgmap cannot tell, the first of that name and arity along the
 * path.  -1 for a builtin or none. */
static int expression_call_target(sql_state *st, const jd_node *call, const char *schema,
				  const char *rel)
{
	const char *parts[3];
	int n = name_list(jget(call, "funcname"), parts, 3);
	if (n <= 0)
		return -1;
	jd_node *args = jget(call, "args");
	int nargs = (int)jd_size(args);
	cgm_exprcall_source src = exprcall_source(st, schema, rel);
	int target = -2;
	const char **types = NULL;
	if (nargs > 0 && nargs <= 100) {
		types = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)nargs);
		bool known = true;
		for (int i = 0; i < nargs; i++) {
			types[i] = cgm_exprcall_operand_type(&src, jd_at(args, (size_t)i));
			known = known && types[i] && strcmp(types[i], "unknown") != 0;
		}
		const char *builtin_id;
		int fn = known ? find_function_by_types(st, parts, n, types, nargs, &builtin_id) : -1;
		if ((fn >= 0 && !st->dropped[fn]) || (known && builtin_id))
			target = fn;
	}
	if (target == -2) {
		const cgm_function *f = cgm_exprcall_choose_typed(&src, call, types);
		if (f)
			target = user_function_index(st, f);
	}
	cgm_exprcall_source_done(&src);
	if (target != -2)
		return target;
	return find_callee(st, n >= 2 ? parts[n - 2] : NULL, parts[n - 1], nargs, false);
}

/* Every function a FuncCall below `node` reaches, as an effect of the
 * relation schema.rel (calls resolved as references resolve them), and
 * the functions of the user operators and casts it holds (as the catalog
 * records an expression's dependency on an operator's or a cast's
 * function). */
static void add_effects(sql_state *st, const jd_node *node, const char *schema, const char *rel,
			cgm_via via, const char *object, unsigned events, const char *column,
			const char *ref_object)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			add_effects(st, jd_at(node, i), schema, rel, via, object, events, column,
				    ref_object);
		return;
	}
	if (!jd_is_object(node) || !events)
		return;
	/* A view's columns are not the ones its query reads: no column types. */
	const char *typed_rel = via == CGM_VIA_VIEW ? NULL : rel;
	jd_node *call = jget(node, "FuncCall");
	int target = call ? expression_call_target(st, call, schema, typed_rel) : -1;
	if (target >= 0)
		add_function_effect(st, target, schema, rel, via, object, events, column, ref_object);
	jd_node *ref = via == CGM_VIA_VIEW ? jget(node, "ColumnRef") : NULL;
	int attribute = ref ? view_attribute_callee(st, ref) : -1;
	if (attribute >= 0)
		add_function_effect(st, attribute, schema, rel, via, object, events, column, ref_object);
	jd_node *opcast = jget(node, "A_Expr");
	int runs = opcast ? effect_operator_fn(st, opcast, schema, typed_rel) : -1;
	if (!opcast && (opcast = jget(node, "TypeCast")))
		runs = effect_cast_fn(st, opcast, schema, typed_rel);
	if (runs >= 0)
		add_function_effect(st, runs, schema, rel, via, object, events, column, ref_object);
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		add_effects(st, value, schema, rel, via, object, events, column, ref_object);
	(void)key;
}

/* The CTE names of a query, which its FROM lists may name. */
static bool is_cte_name(const jd_node *node, const char *name)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			if (is_cte_name(jd_at(node, i), name))
				return true;
		return false;
	}
	if (!jd_is_object(node))
		return false;
	jd_node *cte = jget(node, "CommonTableExpr");
	if (cte && jstr(cte, "ctename") && strcmp(jstr(cte, "ctename"), name) == 0)
		return true;
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		if (is_cte_name(value, name))
			return true;
	(void)key;
	return false;
}

/* Each relation a view's query names: reading the view reads it. */
static void view_reads(sql_state *st, const jd_node *query, const jd_node *node,
		       const char *schema, const char *view, const char *object, unsigned events)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			view_reads(st, query, jd_at(node, i), schema, view, object, events);
		return;
	}
	if (!jd_is_object(node))
		return;
	jd_node *rv = jget(node, "RangeVar");
	if (rv) {
		const char *name = jstr(rv, "relname");
		const char *ns = jstr(rv, "schemaname");
		if (name && (ns || !is_cte_name(query, name))) {
			sql_table *t = find_table(st, ns, name);
			/* The system catalogs run nothing: the live catalog's
			 * effects leave them out. */
			if (t && !t->catalog && !(strcmp(t->schema, schema) == 0 && strcmp(t->name, view) == 0)) {
				bool seen = false;
				for (int i = 0; i < st->neffects && !seen; i++) {
					const sql_effect *x = &st->effects[i];
					seen = !x->dropped && x->effect.reach == CGM_REACH_VIEW &&
					       strcmp(x->effect.schema, schema) == 0 &&
					       strcmp(x->effect.relation, view) == 0 &&
					       strcmp(x->effect.target_schema, t->schema) == 0 &&
					       strcmp(x->effect.target_relation, t->name) == 0;
				}
				if (!seen) {
					cgm_effect *e = new_effect(st, schema, view, CGM_REACH_VIEW,
								   CGM_VIA_VIEW, object, events, NULL);
					e->target_schema = t->schema;
					e->target_relation = t->name;
					e->target_events = CGM_EV_SELECT;
				}
			}
		}
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		view_reads(st, query, value, schema, view, object, events);
	(void)key;
}

/* Does a call in a view's output column make PostgreSQL evaluate the
 * column on every read (viewcols.h)?  pg_catalog's volatile
 * (cgm_builtin_is_volatile: the shipped list gives no volatility) and
 * set-returning functions; the files' own functions relfx.c decides, from
 * their volatility and result, as for the live catalog. */
static bool view_column_forced(void *ctx, const char *schema, const char *name, int nargs)
{
	sql_state *st = ctx;
	if ((schema && strcmp(schema, "pg_catalog") != 0) || smap_get(&st->builtin_names, name) != 1)
		return false;
	if (cgm_builtin_is_volatile(name))
		return true;
	for (int i = 0; i < st->nbuiltin; i++) {
		const cgm_function *b = &st->model->functions[i];
		if (strcmp(b->name, name) == 0 && arity_fits(b, nargs) && b->result &&
		    strncmp(b->result, "SETOF ", 6) == 0)
			return true;
	}
	return false;
}

/* The effects [first, neffects) a view's parts added, one per part that
 * calls the function: made one per function, run when any of its
 * columns is read, or always when a clause calls it (viewcols.h). */
static void merge_view_effects(sql_state *st, int first)
{
	int kept = first;
	for (int i = first; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		int same = -1;
		for (int k = first; k < kept && same < 0; k++) {
			const sql_effect *y = &st->effects[k];
			if (!y->dropped && !x->dropped && y->effect.reach == x->effect.reach &&
			    y->effect.via == x->effect.via && y->ref_object == x->ref_object &&
			    y->effect.events == x->effect.events &&
			    y->effect.function_id == x->effect.function_id &&
			    y->effect.function == x->effect.function)
				same = k;
		}
		if (same < 0) {
			if (kept != i)
				st->effects[kept] = *x;
			kept++;
			continue;
		}
		cgm_effect *e = &st->effects[same].effect;
		if (x->effect.ncolumns == 0)
			cgm_viewcols_add_column(st->a, &e->columns, &e->ncolumns, false, NULL);
		for (int c = 0; c < x->effect.ncolumns; c++)
			cgm_viewcols_add_column(st->a, &e->columns, &e->ncolumns, false,
						x->effect.columns[c]);
	}
	if (kept < st->neffects && kept < st->effect_owners.indexed)
		st->effect_owners.stale = true;
	st->neffects = kept;
}

/* Whether a function of that name exists (the files' or pg_catalog's):
 * `t.name` of a row may call it. */
static bool has_function_named(void *ctx, const char *name)
{
	sql_state *st = ctx;
	if (smap_get(&st->builtin_names, name) == 1)
		return true;
	for (int i = 0; i < st->nfns; i++)
		if (st->fns[i].name && strcmp(st->fns[i].name, name) == 0)
			return true;
	return false;
}

/* The view's reads of the relations its query names (viewcols.h): one
 * effect per relation, reading the columns each output column reads. */
static void view_reads_by_column(sql_state *st, const jd_node *query, const cgm_viewcols *vc,
				 const char *schema, const char *view, const char *object,
				 unsigned events)
{
	for (int k = 0; k < vc->nrels; k++) {
		const cgm_viewcols_rel *vr = &vc->rels[k];
		if (!vr->name || (!vr->schema && is_cte_name(query, vr->name)))
			continue;
		sql_table *t = find_table(st, vr->schema, vr->name);
		if (!t || t->catalog || (strcmp(t->schema, schema) == 0 && strcmp(t->name, view) == 0))
			continue;
		cgm_effect *e = NULL;
		for (int i = 0; i < st->neffects && !e; i++) {
			sql_effect *x = &st->effects[i];
			if (!x->dropped && x->effect.reach == CGM_REACH_VIEW &&
			    strcmp(x->effect.schema, schema) == 0 && strcmp(x->effect.relation, view) == 0 &&
			    strcmp(x->effect.target_schema, t->schema) == 0 &&
			    strcmp(x->effect.target_relation, t->name) == 0)
				e = &x->effect;
		}
		bool fresh = !e;
		if (fresh) {
			e = new_effect(st, schema, view, CGM_REACH_VIEW, CGM_VIA_VIEW, object, events, NULL);
			e->target_schema = t->schema;
			e->target_relation = t->name;
			e->target_events = CGM_EV_SELECT;
		}
		cgm_viewcols_add_rel(st->a, e, fresh, vr, t->columns, t->ncolumns, has_function_named, st);
	}
}

/* A column default's description as the catalog words it
 * (getObjectDescription): "default value for column c of table s.t", the
 * relation's kind being "view" or "foreign table" for those (a
 * partitioned table is a table there). */
static const char *default_ref(sql_state *st, const char *schema, const char *name,
			       const char *column)
{
	const sql_table *t = find_table(st, schema, name);
	const char *word = "table";
	if (t && (strcmp(t->kind, "view") == 0 || strcmp(t->kind, "foreign table") == 0 ||
		  strcmp(t->kind, "materialized view") == 0))
		word = t->kind;
	return cgm_arena_printf(st->a, "default value for column %s of %s %s", column, word,
				relation_text(st, schema, name));
}

/* A foreign key's ON DELETE / ON UPDATE action on the referencing table. */
static void foreign_key_effects(sql_state *st, sql_table *t, const char *column, const jd_node *con)
{
	const char *del = jstr(con, "fk_del_action");
	const char *upd = jstr(con, "fk_upd_action");
	bool del_acts = del && strchr("cnd", del[0]);
	bool upd_acts = upd && strchr("cnd", upd[0]);
	const char *schema, *ref;
	if (!range_var(st, jget(con, "pktable"), false, &schema, &ref))
		return;
	int nfk = 0;
	const char **fk = string_list(st, jget(con, "fk_attrs"), &nfk);
	if (nfk == 0)
		fk = one_column(st, column, &nfk);
	const char *name = jstr(con, "conname");
	if (!name) {
		/* PostgreSQL names it table_col1_col2_fkey, cut to 63 bytes as
		 * an index's name is (ChooseConstraintName). */
		for (int i = 0; i < nfk; i++)
			if (!fk[i])
				fk[i] = "";
		name = cgm_index_name(st->a, t->name, fk, nfk, "fkey");
	}
	const char *object = cgm_arena_printf(st->a, "cascade %s.%s",
					      relation_text(st, t->schema, t->name),
					      cgm_quote_ident(st->a, name));
	/* TRUNCATE ... CASCADE truncates the referencing table (ONLY it),
	 * whatever the actions, and cascades on from there. */
	new_effect(st, schema, ref, CGM_REACH_CASCADE, CGM_VIA_CASCADE, object, CGM_EV_CASCADE, NULL);
	cgm_effect *truncated = &st->effects[st->neffects - 1].effect;
	truncated->target_schema = t->schema;
	truncated->target_relation = t->name;
	truncated->target_events = CGM_EV_TRUNCATE | CGM_EV_CASCADE;
	st->effects[st->neffects - 1].ref_object = NULL;
	set_effect_owner(st, st->neffects - 1, pair_key(st->a, t->schema, t->name));
	if (!del_acts && !upd_acts)
		return;
	int npk = 0;
	const char **pk = string_list(st, jget(con, "pk_attrs"), &npk);
	if (npk == 0) {
		/* REFERENCES t without columns: t's primary key. */
		const sql_table *r = find_table(st, schema, ref);
		if (r && r->npkey_columns > 0) {
			pk = r->pkey_columns;
			npk = r->npkey_columns;
		}
	}
	for (int which = 0; which < 2; which++) {
		const char *action = which == 0 ? del : upd;
		if (!(which == 0 ? del_acts : upd_acts))
			continue;
		cgm_effect *e = new_effect(st, schema, ref, CGM_REACH_CASCADE, CGM_VIA_CASCADE, object,
					   which == 0 ? CGM_EV_DELETE : CGM_EV_UPDATE, NULL);
		if (which == 1) {
			e->columns = pk;
			e->ncolumns = npk;
		}
		e->target_schema = t->schema;
		e->target_relation = t->name;
		e->target_events = which == 0 && action[0] == 'c' ? CGM_EV_DELETE : CGM_EV_UPDATE;
		e->target_defaults = action[0] == 'd';
		if (e->target_events == CGM_EV_UPDATE) {
			e->target_columns = fk;
			e->ntarget_columns = nfk;
		}
		/* Dropping the referencing table drops the key. */
		st->effects[st->neffects - 1].ref_object = NULL;
		set_effect_owner(st, st->neffects - 1, pair_key(st->a, t->schema, t->name));
	}
}

/* The relations the actions of the CREATE RULE statement being applied read
 * and write (relfx.h, cgm_rule_actions), found as PostgreSQL finds them
 * when the rule is made: effects reaching them, as the catalog's. */
static void rule_action_effects(sql_state *st, const char *schema, const char *table,
				const char *object, unsigned events, bool instead)
{
	if (!events || st->stmt_end <= st->stmt_start)
		return;
	char *sql = cgm_arena_strndup(st->a, st->text + st->stmt_start,
				      (size_t)(st->stmt_end - st->stmt_start));
	cgm_rule_action *acts;
	int n = cgm_rule_actions(st->a, sql, &acts);
	bool any = false;
	for (int k = 0; k < n; k++) {
		sql_table *t = find_table(st, acts[k].schema, acts[k].name);
		if (!t)
			continue;
		cgm_effect *e = new_effect(st, schema, table, CGM_REACH_RULE, CGM_VIA_RULE, object,
					   events, object);
		e->instead = instead;
		any = true;
		e->target_schema = t->schema;
		e->target_relation = t->name;
		e->target_events = acts[k].events;
		e->target_columns = acts[k].columns;
		e->ntarget_columns = acts[k].ncolumns;
		/* The catalog's action names the columns an INSERT without a
		 * list gives: the table's first ones. */
		if (!acts[k].ncolumns && acts[k].nleading > 0 && acts[k].nleading <= t->ncolumns) {
			const char **names = cgm_arena_alloc(st->a, sizeof(char *) *
									(size_t)acts[k].nleading);
			for (int c = 0; c < acts[k].nleading; c++)
				names[c] = t->columns[c].name;
			e->target_columns = names;
			e->ntarget_columns = acts[k].nleading;
		}
	}
	/* An unconditional DO INSTEAD rule that acts on no relation of ours
	 * (NOTHING) still replaces the statement, as the catalog's rule says. */
	if (instead && !any && n >= 0)
		new_effect(st, schema, table, CGM_REACH_RULE, CGM_VIA_RULE, object, events, object)
			->instead = true;
}

/* The command letters of CREATE POLICY ... FOR cmd. */
static const char *const policy_cmd_names[] = { "all", "select", "insert", "update", "delete" };

static unsigned policy_events(const char *cmd, bool using_expr);

/* One clause of a policy: its references (one per function, as
 * pg_depend keeps them, marked with the clauses that call it) and
 * effects, tagged with the clause. */
static void policy_clause(sql_state *st, const jd_node *expr, unsigned char clause,
			  const char *schema, const char *table, const char *name, const char *object,
			  const char *cmd)
{
	int refs = st->nrefs, effects = st->neffects;
	add_references(st, expr, schema, table, "policy", object);
	add_effects(st, expr, schema, table, CGM_VIA_POLICY,
		    cgm_arena_printf(st->a, "policy %s on %s", cgm_quote_ident(st->a, name),
				     relation_text(st, schema, table)),
		    policy_events(cmd, clause == POLICY_USING), NULL, object);
	for (int k = refs; k < st->nrefs; k++)
		st->refs[k].policy_clause = clause;
	/* A function the policy's other clause calls already has its
	 * reference (new_reference gave that one back): it is marked in the
	 * loop below when found among the earlier ones. */
	for (int k = 0; k < refs; k++) {
		sql_reference *r = &st->refs[k];
		if (r->dropped || strcmp(r->ref.object, object) != 0 || (r->policy_clause & clause))
			continue;
		for (int j = effects; j < st->neffects; j++)
			if (st->effects[j].effect.function_id &&
			    strcmp(st->effects[j].effect.function_id, r->ref.function_id) == 0)
				r->policy_clause |= clause;
	}
	for (int k = effects; k < st->neffects; k++) {
		st->effects[k].effect.note = "roles without BYPASSRLS";
		st->effects[k].policy_clause = clause;
	}
}

/* CREATE POLICY; ALTER POLICY, whose USING or WITH CHECK given replaces
 * that clause (pg_depend is recorded again for the whole policy). */
static void apply_policy(sql_state *st, const jd_node *stmt, bool create)
{
	const char *schema, *table, *name = jstr(stmt, "policy_name");
	if (!name || !range_var(st, jget(stmt, "table"), false, &schema, &table))
		return;
	const char *object = cgm_arena_printf(st->a, "policy %s on table %s", cgm_quote_ident(st->a, name),
					      relation_text(st, schema, table));
	st->ref_owner = pair_key(st->a, schema, table);
	const char *cmd = jstr(stmt, "cmd_name");
	if (create) {
		for (int k = 0; cmd && k < (int)(sizeof policy_cmd_names / sizeof *policy_cmd_names); k++)
			if (strcmp(cmd, policy_cmd_names[k]) == 0)
				smap_put(&st->policy_cmds, object, k);
	} else {
		int k = smap_get(&st->policy_cmds, object);
		cmd = k >= 0 && k < (int)(sizeof policy_cmd_names / sizeof *policy_cmd_names)
			      ? policy_cmd_names[k]
			      : NULL;
	}
	static const struct {
		const char *key;
		unsigned char clause;
	} clauses[] = { { "qual", POLICY_USING }, { "with_check", POLICY_CHECK } };
	for (size_t c = 0; c < 2; c++) {
		jd_node *expr = jget(stmt, clauses[c].key);
		if (!expr)
			continue;
		if (!create) {
			for (int k = 0; k < st->nrefs; k++)
				if ((st->refs[k].policy_clause & clauses[c].clause) &&
				    strcmp(st->refs[k].ref.object, object) == 0 &&
				    !(st->refs[k].policy_clause &= (unsigned char)~clauses[c].clause))
					st->refs[k].dropped = true;
			for (int k = 0; k < st->neffects; k++)
				if (st->effects[k].policy_clause == clauses[c].clause &&
				    st->effects[k].ref_object && strcmp(st->effects[k].ref_object, object) == 0)
					st->effects[k].dropped = true;
		}
		policy_clause(st, expr, clauses[c].clause, schema, table, name, object, cmd);
	}
}

static unsigned policy_events(const char *cmd, bool using_expr)
{
	if (!cmd || strcmp(cmd, "all") == 0)
		return using_expr ? CGM_EV_SELECT | CGM_EV_UPDATE | CGM_EV_DELETE
				  : CGM_EV_INSERT | CGM_EV_UPDATE;
	if (strcmp(cmd, "select") == 0)
		return using_expr ? CGM_EV_SELECT | CGM_EV_UPDATE | CGM_EV_DELETE : 0;
	if (strcmp(cmd, "insert") == 0)
		return using_expr ? 0 : CGM_EV_INSERT;
	if (strcmp(cmd, "update") == 0)
		return CGM_EV_UPDATE;
	if (strcmp(cmd, "delete") == 0)
		return using_expr ? CGM_EV_DELETE : 0;
	return 0;
}

/* A type's kind for resolution (cgm_type_info): a domain with its base
 * type, an enum, a composite type. */
static void note_type(sql_state *st, const char *type, char kind, const char *base)
{
	cgm_type_info *info = cgm_model_add_type_info(st->model);
	info->name = type;
	info->kind = kind;
	info->base = base;
	info->category = kind == 'e' ? 'E' : kind == 'c' ? 'C' : kind == 'r' || kind == 'm' ? 'R' : 0;
}

/* Domain `type` gains a constraint ('y') or loses one, which may have been
 * its last (0: not known); the latest record of the type is the one in force. */
static void note_domain_constrained(sql_state *st, const char *type, char constrained)
{
	cgm_model *m = st->model;
	for (int i = m->ntype_infos - 1; i >= 0; i--)
		if (m->type_infos[i].name && strcmp(m->type_infos[i].name, type) == 0) {
			m->type_infos[i].constrained = constrained;
			return;
		}
}

/* A CHECK of domain schema.name (type, over base): its functions, one
 * record each; whether it calls any. */
static bool add_domain_check(sql_state *st, const char *schema, const char *name, const char *type,
			     const char *base, const jd_node *con)
{
	const char *ct = jstr(con, "contype");
	if (!ct || strcmp(ct, "CONSTR_CHECK") != 0)
		return false;
	const char *cname = jstr(con, "conname");
	if (!cname)
		cname = cgm_index_name(st->a, name, NULL, 0, "check");
	const char *object = cgm_arena_printf(st->a, "domain %s.%s", type, cgm_quote_ident(st->a, cname));
	st->ref_owner = NULL;
	add_references(st, jget(con, "raw_expr"), NULL, NULL, "constraint",
		       cgm_arena_printf(st->a, "constraint %s", cname));
	bool any = false;
	int before = st->neffects;
	add_effects(st, jget(con, "raw_expr"), schema, name, CGM_VIA_DOMAIN, object,
		    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, NULL);
	for (int k = before; k < st->neffects; k++) {
		st->effects[k].dropped = true; /* held by the domain, not a relation */
		RESERVE_ONE(st->a, st->domains, st->ndomains, st->cap_domains, 16);
		st->domains[st->ndomains++] =
			(sql_domain_check){ type, base, object, st->effects[k].effect.function_id };
		any = true;
	}
	return any;
}

/* The latest DEFAULT of domain `type`, NULL when it never had one. */
static const sql_domain_default *domain_default(const sql_state *st, const char *type)
{
	for (int i = st->ndomain_defaults - 1; type && i >= 0; i--)
		if (strcmp(st->domain_defaults[i].type, type) == 0)
			return &st->domain_defaults[i];
	return NULL;
}

/* Domain schema.name (`type`) gets the DEFAULT `expr` (NULL: none, DROP
 * DEFAULT): the functions it calls, and the type's references to them, as
 * pg_depend has them (ALTER DOMAIN ... SET DEFAULT makes them anew). */
static void set_domain_default(sql_state *st, const char *schema, const char *name,
			       const char *type, const jd_node *expr)
{
	const char *object = cgm_arena_printf(st->a, "type %s", type);
	st->ref_owner = NULL;
	drop_references(st, object, NULL, false);
	const char **fns = NULL;
	int n = 0, cap = 0;
	if (expr) {
		add_references(st, expr, NULL, NULL, "type", object);
		int before = st->neffects;
		add_effects(st, expr, schema, name, CGM_VIA_DEFAULT, object, CGM_EV_INSERT, NULL, NULL);
		for (int k = before; k < st->neffects; k++) {
			st->effects[k].dropped = true; /* held by the domain, not a relation */
			const char *id = st->effects[k].effect.function_id;
			bool seen = false;
			for (int i = 0; i < n && !seen; i++)
				seen = strcmp(fns[i], id) == 0;
			if (!seen) {
				RESERVE_ONE(st->a, fns, n, cap, 4);
				fns[n++] = id;
			}
		}
	}
	RESERVE_ONE(st->a, st->domain_defaults, st->ndomain_defaults, st->cap_domain_defaults, 16);
	st->domain_defaults[st->ndomain_defaults++] = (sql_domain_default){ type, fns, n };
}

/* CREATE DOMAIN without DEFAULT over a domain with one: DefineDomain
 * copies the base's default, and the type depends on its functions. */
static void copy_domain_default(sql_state *st, const char *type, const char *base)
{
	const sql_domain_default *from = domain_default(st, base);
	if (!from)
		return;
	sql_domain_default copy = { type, from->functions, from->nfunctions };
	const char *from_object = cgm_arena_printf(st->a, "type %s", base);
	const char *object = cgm_arena_printf(st->a, "type %s", type);
	int nrefs = st->nrefs;
	for (int r = 0; r < nrefs; r++) {
		if (st->refs[r].dropped || st->refs[r].owner || strcmp(st->refs[r].ref.object, from_object) != 0 ||
		    !st->refs[r].ref.object_kind || strcmp(st->refs[r].ref.object_kind, "type") != 0)
			continue;
		RESERVE_ONE(st->a, st->refs, st->nrefs, st->cap_refs, 64);
		st->refs[st->nrefs] = st->refs[r];
		st->refs[st->nrefs++].ref.object = object;
	}
	RESERVE_ONE(st->a, st->domain_defaults, st->ndomain_defaults, st->cap_domain_defaults, 16);
	st->domain_defaults[st->ndomain_defaults++] = copy;
}

/* ALTER DOMAIN ... ADD CONSTRAINT ... CHECK, DROP CONSTRAINT, SET and DROP
 * DEFAULT. */
static void apply_alter_domain(sql_state *st, const jd_node *stmt)
{
	const char *parts[3];
	int n = name_list(jget(stmt, "typeName"), parts, 3);
	const char *sub = jstr(stmt, "subtype");
	if (n < 1 || !sub)
		return;
	const char *type = NULL, *base = NULL, *schema = NULL;
	for (int p = 0; p < (n >= 2 ? 1 : st->npath) && !type; p++) {
		schema = n >= 2 ? parts[n - 2] : st->path[p];
		const char *candidate = cgm_quote_qualified(st->a, schema, parts[n - 1]);
		for (int k = 0; k < st->ndomains && !type; k++)
			if (strcmp(st->domains[k].type, candidate) == 0)
				type = st->domains[k].type, base = st->domains[k].base;
	}
	if (!type)
		return;
	if (strcmp(sub, "T") == 0) {
		set_domain_default(st, schema, parts[n - 1], type, jget(stmt, "def"));
	} else if (strcmp(sub, "O") == 0) { /* SET NOT NULL */
		note_domain_constrained(st, type, 'y');
	} else if (strcmp(sub, "N") == 0) { /* DROP NOT NULL: CHECKs may remain */
		note_domain_constrained(st, type, 0);
	} else if (strcmp(sub, "C") == 0) {
		note_domain_constrained(st, type, 'y');
		add_domain_check(st, schema, parts[n - 1], type, base, jget(jget(stmt, "def"), "Constraint"));
	} else if (strcmp(sub, "X") == 0 && jstr(stmt, "name")) {
		note_domain_constrained(st, type, 0); /* others may remain */
		const char *object = cgm_arena_printf(st->a, "domain %s.%s", type,
						      cgm_quote_ident(st->a, jstr(stmt, "name")));
		/* What is left of the constraint's records is a link of the chain. */
		for (int k = 0; k < st->ndomains; k++)
			if (st->domains[k].object && strcmp(st->domains[k].object, object) == 0)
				st->domains[k].object = NULL, st->domains[k].function_id = NULL;
		for (int r = 0; r < st->nrefs; r++)
			if (!st->refs[r].owner &&
			    strcmp(st->refs[r].ref.object,
				   cgm_arena_printf(st->a, "constraint %s", jstr(stmt, "name"))) == 0 &&
			    st->refs[r].ref.object_kind && strcmp(st->refs[r].ref.object_kind, "constraint") == 0)
				st->refs[r].dropped = true;
	}
}

static void apply_create_domain(sql_state *st, const jd_node *stmt)
{
	const char *parts[3];
	int n = name_list(jget(stmt, "domainname"), parts, 3);
	if (n < 1)
		return;
	const char *schema = n >= 2 ? parts[n - 2] : creation_schema(st);
	if (!schema)
		return;
	const char *type = cgm_quote_qualified(st->a, schema, parts[n - 1]);
	const char *base = type_of(st, jget(stmt, "typeName"));
	if (base) /* resolution coerces its values as the base type's */
		note_type(st, type, 'd', base);
	jd_node *cons = jget(stmt, "constraints");
	bool any = false, has_default = false, constrained = false;
	for (size_t i = 0; i < jd_size(cons); i++) {
		jd_node *con = jget(jd_at(cons, i), "Constraint");
		const char *ct = jstr(con, "contype");
		constrained |= ct && (strcmp(ct, "CONSTR_CHECK") == 0 || strcmp(ct, "CONSTR_NOTNULL") == 0);
		if (ct && strcmp(ct, "CONSTR_DEFAULT") == 0) {
			set_domain_default(st, schema, parts[n - 1], type, jget(con, "raw_expr"));
			has_default = true;
		}
		any |= add_domain_check(st, schema, parts[n - 1], type, base, con);
	}
	if (base)
		note_domain_constrained(st, type, constrained ? 'y' : 'n');
	if (!has_default)
		copy_domain_default(st, type, base);
	if (!any) {
		/* Still a link of the chain of domains over domains. */
		RESERVE_ONE(st->a, st->domains, st->ndomains, st->cap_domains, 16);
		st->domains[st->ndomains++] = (sql_domain_check){ type, base, NULL, NULL };
	}
}

/* The event trigger named `name`, or NULL: event triggers are database
 * objects with names of their own, no schema. */
static cgm_event_trigger *find_event_trigger(sql_state *st, const char *name)
{
	for (int i = 0; name && i < st->nevent_triggers; i++)
		if (strcmp(st->event_triggers[i].name, name) == 0)
			return &st->event_triggers[i];
	return NULL;
}

/* Does a trigger, rule or event trigger in state `state` (pg_trigger's
 * tgenabled, pg_rewrite's ev_enabled, pg_event_trigger's evtenabled: 'O'
 * origin, 'D' disabled, 'R' replica, 'A' always) fire?  As the live source
 * reads the catalog: 'A' always, 'O' in an ordinary session, 'R' in one
 * with session_replication_role = replica (--replication-role). */
static bool state_fires(const sql_state *st, char state)
{
	if (state == 'D')
		return false;
	return state == 'A' || (state == 'R') == st->opts->replica;
}

/* The state an ALTER TABLE subcommand (AT_EnableTrig, AT_EnableReplicaRule,
 * AT_DisableTrigAll, ...) leaves a trigger or rule in. */
static char enable_state(const char *sub)
{
	return strncmp(sub, "AT_Disable", 10) == 0	      ? 'D'
	       : strncmp(sub, "AT_EnableAlways", 15) == 0  ? 'A'
	       : strncmp(sub, "AT_EnableReplica", 16) == 0 ? 'R'
							     : 'O';
}

static void apply_create_event_trigger(sql_state *st, const jd_node *stmt, int fn)
{
	if (st->nevent_triggers == st->cap_event_triggers) {
		int cap = st->cap_event_triggers ? st->cap_event_triggers * 2 : 8;
		st->event_triggers = cgm_arena_grow(st->a, st->event_triggers,
						    (size_t)st->nevent_triggers, (size_t)cap,
						    sizeof(cgm_event_trigger));
		st->cap_event_triggers = cap;
	}
	cgm_event_trigger *et = &st->event_triggers[st->nevent_triggers++];
	memset(et, 0, sizeof *et);
	et->name = cgm_arena_strdup(st->a, jstr(stmt, "trigname"));
	et->event = cgm_arena_strdup(st->a, jstr(stmt, "eventname"));
	et->enabled = state_fires(st, 'O');
	et->function = -1;
	et->function_id = st->fns[fn].id;
	jd_node *when = jget(stmt, "whenclause");
	for (size_t i = 0; i < jd_size(when); i++) {
		jd_node *d = jget(jd_at(when, i), "DefElem");
		const char *name = jstr(d, "defname");
		if (!name || strcmp(name, "tag") != 0)
			continue;
		jd_node *list = jget(jget(d, "arg"), "List");
		jd_node *items = list ? jget(list, "items") : jget(d, "arg");
		int n = 0;
		const char **tags = string_list(st, items, &n);
		for (int k = 0; k < n; k++) {
			char *up = cgm_arena_strdup(st->a, tags[k]);
			for (char *p = up; p && *p; p++)
				if (*p >= 'a' && *p <= 'z')
					*p = (char)(*p - 'a' + 'A');
			tags[k] = up;
		}
		et->tags = tags;
		et->ntags = n;
	}
}

/* DROP EVENT TRIGGER [IF EXISTS] name: the trigger and pg_depend's entry
 * on its function go. */
static void drop_event_trigger(sql_state *st, const char *name, bool missing_ok, int at)
{
	cgm_event_trigger *et = find_event_trigger(st, name);
	if (!et) {
		if (!missing_ok)
			diagnose(st, at, "event trigger \"%s\" does not exist", name ? name : "");
		return;
	}
	drop_references(st, cgm_arena_printf(st->a, "event trigger %s", cgm_quote_ident(st->a, name)),
			NULL, false);
	int i = (int)(et - st->event_triggers);
	memmove(et, et + 1, sizeof *et * (size_t)(st->nevent_triggers - i - 1));
	st->nevent_triggers--;
}

/* ALTER EVENT TRIGGER name ENABLE [REPLICA | ALWAYS] / DISABLE
 * (evtenabled): whether it fires in the session mapped. */
static void apply_alter_event_trigger(sql_state *st, const jd_node *stmt)
{
	cgm_event_trigger *et = find_event_trigger(st, jstr(stmt, "trigname"));
	const char *state = jstr(stmt, "tgenabled");
	if (!et) {
		diagnose(st, first_token(st), "event trigger \"%s\" does not exist",
			 jstr(stmt, "trigname") ? jstr(stmt, "trigname") : "");
		return;
	}
	if (state && state[0])
		et->enabled = state_fires(st, state[0]);
}

/* ALTER EVENT TRIGGER old RENAME TO new: its name and the reference's. */
static void rename_event_trigger(sql_state *st, const char *old, const char *name)
{
	cgm_event_trigger *et = find_event_trigger(st, old);
	if (!et || !name)
		return;
	const char *from = cgm_arena_printf(st->a, "event trigger %s", cgm_quote_ident(st->a, old));
	const char *to = cgm_arena_printf(st->a, "event trigger %s", cgm_quote_ident(st->a, name));
	for (int i = 0; i < st->nrefs; i++)
		if (!st->refs[i].dropped && strcmp(st->refs[i].ref.object, from) == 0)
			st->refs[i].ref.object = to;
	et->name = cgm_arena_strdup(st->a, name);
}

/* Does the trigger whose WHEN condition is effect `x` fire (pg_depend's
 * entries of a trigger that does not are not read live)? */
static bool trigger_fires(sql_state *st, const sql_effect *x)
{
	for (int k = 0; k < st->ntriggers; k++) {
		const cgm_trigger *tr = &st->triggers[k].trigger;
		if (st->triggers[k].dropped || strcmp(tr->table_schema, x->effect.schema) != 0 ||
		    strcmp(tr->table_name, x->effect.relation) != 0 || !x->effect.object)
			continue;
		const char *object = cgm_arena_printf(st->a, "trigger %s on %s",
						      cgm_quote_ident(st->a, tr->name),
						      relation_text(st, tr->table_schema, tr->table_name));
		if (strcmp(object, x->effect.object) == 0)
			return tr->enabled;
	}
	return true;
}

/* The end of the files: effects of dropped or policy-less relations go,
 * domain checks land on the columns of their types. */
static void finish_effects(sql_state *st, cgm_model *model)
{
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->dropped || x->cloned_key ||
		    (x->effect.via == CGM_VIA_RULE &&
		     !state_fires(st, x->rule_state ? x->rule_state : 'O')) ||
		    (x->effect.via == CGM_VIA_TRIGGER_WHEN && !trigger_fires(st, x)))
			continue;
		sql_table *t = find_table(st, x->effect.schema, x->effect.relation);
		if (!t || (x->effect.via == CGM_VIA_POLICY && !t->rls))
			continue;
		*cgm_model_add_effect(model) = x->effect;
	}
	for (int ti = 0; ti < st->ntables; ti++) {
		const sql_table *t = &st->tables[ti];
		if (t->dropped || strcmp(t->kind, "view") == 0 || strcmp(t->kind, "type") == 0 ||
		    strcmp(t->kind, "materialized view") == 0)
			continue;
		for (int c = 0; c < t->ncolumns; c++) {
			const char *type = t->columns[c].type;
			for (int depth = 0; type && depth < 16; depth++) {
				const char *base = NULL;
				for (int d = 0; d < st->ndomains; d++) {
					const sql_domain_check *dc = &st->domains[d];
					if (strcmp(dc->type, type) != 0)
						continue;
					base = dc->base;
					if (!dc->function_id)
						continue;
					cgm_effect *e = cgm_model_add_effect(model);
					e->schema = t->schema;
					e->relation = t->name;
					e->reach = CGM_REACH_FUNCTION;
					e->via = CGM_VIA_DOMAIN;
					e->object = dc->object;
					e->events = CGM_EV_INSERT | CGM_EV_UPDATE;
					e->columns = one_column(st, t->columns[c].name, &e->ncolumns);
					e->function_id = dc->function_id;
					e->function = -1;
				}
				type = base;
			}
		}
	}
	/* A column of a domain with a DEFAULT calling functions, and no
	 * default of its own, gets the domain's when an INSERT leaves it out
	 * (build_column_default); a view's columns are left out. */
	for (int ti = 0; ti < st->ntables; ti++) {
		sql_table *t = &st->tables[ti];
		if (t->dropped || t->catalog ||
		    (strcmp(t->kind, "table") != 0 && strcmp(t->kind, "partitioned table") != 0 &&
		     strcmp(t->kind, "foreign table") != 0))
			continue;
		for (int c = 0; c < t->ncolumns; c++) {
			const sql_domain_default *d = domain_default(st, t->columns[c].type);
			if (!d || d->nfunctions == 0 || own_default(st, t, t->columns[c].name) != OWN_NONE)
				continue;
			const char *object = cgm_arena_printf(
				st->a, "default %s.%s from domain %s", relation_text(st, t->schema, t->name),
				cgm_quote_ident(st->a, t->columns[c].name), d->type);
			for (int k = 0; k < d->nfunctions; k++) {
				cgm_effect *e = cgm_model_add_effect(model);
				e->schema = t->schema;
				e->relation = t->name;
				e->reach = CGM_REACH_FUNCTION;
				e->via = CGM_VIA_DEFAULT;
				e->object = object;
				e->events = CGM_EV_INSERT;
				e->columns = one_column(st, t->columns[c].name, &e->ncolumns);
				e->function_id = d->functions[k];
				e->function = -1;
			}
		}
	}
	/* Each domain's checks and those of the domains it is over, as the
	 * live catalog lists them (domaincheck.h). */
	for (int d = 0; d < st->ndomains; d++) {
		const char *domain = st->domains[d].type;
		bool first = true;
		for (int e = 0; e < d && first; e++)
			first = strcmp(st->domains[e].type, domain) != 0;
		const char *type = domain;
		for (int depth = 0; first && type && depth < 16; depth++) {
			const char *base = NULL;
			for (int k = 0; k < st->ndomains; k++) {
				const sql_domain_check *dc = &st->domains[k];
				if (strcmp(dc->type, type) != 0)
					continue;
				base = dc->base;
				if (!dc->function_id)
					continue;
				cgm_domain_check *out = cgm_model_add_domain_check(model);
				out->type = domain;
				out->object = dc->object;
				out->function_id = dc->function_id;
				out->function = -1;
			}
			type = base;
		}
	}
	role_attrs_of(st, "postgres");
	model->rls_bypass_roles = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)st->nrole_attrs);
	for (int i = 0; i < st->nrole_attrs; i++)
		if (st->role_attrs[i].superuser || st->role_attrs[i].bypassrls)
			model->rls_bypass_roles[model->nrls_bypass_roles++] = st->role_attrs[i].role;
	/* Each domain's latest DEFAULT: what a column of it added without one
	 * calls (ALTER TABLE ... ADD COLUMN). */
	for (int d = 0; d < st->ndomain_defaults; d++) {
		const sql_domain_default *dd = &st->domain_defaults[d];
		if (domain_default(st, dd->type) != dd)
			continue;
		const char *object = cgm_arena_printf(st->a, "default of domain %s", dd->type);
		for (int k = 0; k < dd->nfunctions; k++) {
			cgm_domain_default *out = cgm_model_add_domain_default(model);
			out->type = dd->type;
			out->object = object;
			out->function_id = dd->functions[k];
			out->function = -1;
		}
	}
	for (int i = 0; i < st->nevent_triggers; i++)
		*cgm_model_add_event_trigger(model) = st->event_triggers[i];
}

/* Every FuncCall below `node`, an expression of relation schema.rel
 * (expression_call_target), as a reference of `kind` to `object`. */
static void add_references(sql_state *st, const jd_node *node, const char *schema, const char *rel,
			   const char *kind, const char *object)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			add_references(st, jd_at(node, i), schema, rel, kind, object);
		return;
	}
	if (!jd_is_object(node))
		return;
	jd_node *call = jget(node, "FuncCall");
	int target = call ? expression_call_target(st, call, schema, rel) : -1;
	if (target >= 0)
		new_reference(st, target, kind, object);
	jd_node *ref = jget(node, "ColumnRef");
	int attribute = ref ? view_attribute_callee(st, ref) : -1;
	if (attribute >= 0)
		new_reference(st, attribute, kind, object);
	/* A user cast's function is one the expression calls (an operator's
	 * is the operator's: pg_depend names the operator). */
	jd_node *cast = jget(node, "TypeCast");
	int cast_fn = cast ? effect_cast_fn(st, cast, schema, rel) : -1;
	if (cast_fn >= 0)
		new_reference(st, cast_fn, kind, object);
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		add_references(st, value, schema, rel, kind, object);
	(void)key;
}


/* Names of the distinct columns an expression reads (for a generated
 * check constraint name): the one column, or NULL when not exactly one. */
/* The distinct names of the columns an expression (or list) reads. */
static void read_column_names(sql_state *st, const jd_node *node, const char ***names, int *n,
			      int *cap)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			read_column_names(st, jd_at(node, i), names, n, cap);
		return;
	}
	if (!jd_is_object(node))
		return;
	jd_node *ref = jget(node, "ColumnRef");
	jd_node *elem = jget(node, "IndexElem");
	const char *col = NULL;
	if (ref) {
		jd_node *fields = jget(ref, "fields");
		col = jd_string_node(jd_at(fields, jd_size(fields) - 1));
	} else if (elem && jstr(elem, "name")) {
		col = jstr(elem, "name");
	}
	if (col) {
		for (int i = 0; i < *n; i++)
			if (strcmp((*names)[i], col) == 0)
				return;
		RESERVE_ONE(st->a, *names, *n, *cap, 4);
		(*names)[(*n)++] = cgm_arena_strdup(st->a, col);
		if (ref)
			return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		read_column_names(st, value, names, n, cap);
	(void)key;
}

/* Effects [first, neffects) read the columns of `node` (and `more`). */
static void mark_read_columns(sql_state *st, int first, const jd_node *node, const jd_node *more)
{
	const char **names = NULL;
	int n = 0, cap = 0;
	read_column_names(st, node, &names, &n, &cap);
	read_column_names(st, more, &names, &n, &cap);
	for (int i = first; i < st->neffects; i++) {
		st->effects[i].read_columns = names;
		st->effects[i].nread_columns = n;
	}
}

/* Effects [first, neffects) are those of a stored generated column of t
 * computed by `expr`: an UPDATE computes it again only when it sets a
 * column the expression reads (PostgreSQL 13+: the RTE's extraUpdatedCols,
 * from the expression's columns), an INSERT always.  An expression that
 * reads no column of t runs on INSERT alone, as the live catalog's (whose
 * attrdef depends on no column then) does. */
static void generated_reads(sql_state *st, const sql_table *t, int first, const jd_node *expr)
{
	const char **names = NULL;
	int n = 0, cap = 0, kept = 0;
	read_column_names(st, expr, &names, &n, &cap);
	/* In the table's order, as the catalog lists them (attnum). */
	const char **cols = n ? cgm_arena_alloc(st->a, sizeof(char *) * (size_t)n) : NULL;
	for (int c = 0; c < t->ncolumns && kept < n; c++)
		for (int i = 0; i < n; i++)
			if (strcmp(t->columns[c].name, names[i]) == 0) {
				cols[kept++] = t->columns[c].name;
				break;
			}
	for (int i = first; i < st->neffects; i++) {
		cgm_effect *e = &st->effects[i].effect;
		e->columns = kept ? cols : NULL;
		e->ncolumns = kept;
		if (!kept)
			e->events = CGM_EV_INSERT;
	}
}

static void collect_columns(const jd_node *node, const char **first, int *count)
{
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			collect_columns(jd_at(node, i), first, count);
		return;
	}
	if (!jd_is_object(node))
		return;
	jd_node *ref = jget(node, "ColumnRef");
	if (ref) {
		jd_node *fields = jget(ref, "fields");
		const char *col = jd_string_node(jd_at(fields, jd_size(fields) - 1));
		if (col && (!*first || strcmp(*first, col) != 0)) {
			if (!*first)
				*first = col;
			(*count)++;
		}
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		collect_columns(value, first, count);
	(void)key;
}

static void constraint_index_effects(sql_state *st, sql_table *t, const char *column,
				     const jd_node *con);

static void constraint_references(sql_state *st, sql_table *t, const char *column,
				  const jd_node *con)
{
	const char *type = jstr(con, "contype");
	jd_node *expr = jget(con, "raw_expr");
	if (type && strcmp(type, "CONSTR_FOREIGN") == 0)
		foreign_key_effects(st, t, column, con);
	constraint_index_effects(st, t, column, con);
	/* The column's own default, which its domain's does not override. */
	if (type && column)
		set_own_default(st, t, column,
				strcmp(type, "CONSTR_DEFAULT") == 0	   ? OWN_DEFAULT
				: strcmp(type, "CONSTR_GENERATED") == 0 ? OWN_GENERATED
				: strcmp(type, "CONSTR_IDENTITY") == 0  ? OWN_IDENTITY
									 : own_default(st, t, column));
	if (!type || !expr)
		return;
	if (strcmp(type, "CONSTR_DEFAULT") == 0 && column) {
		const char *ref = default_ref(st, t->schema, t->name, column);
		add_references(st, expr, t->schema, t->name, "default", ref);
		add_effects(st, expr, t->schema, t->name, CGM_VIA_DEFAULT,
			    cgm_arena_printf(st->a, "default %s.%s", relation_text(st, t->schema, t->name),
					     cgm_quote_ident(st->a, column)),
			    CGM_EV_INSERT, column, ref);
	} else if (strcmp(type, "CONSTR_GENERATED") == 0 && column) {
		/* The catalog keeps a generated column's expression as its default. */
		const char *ref = default_ref(st, t->schema, t->name, column);
		add_references(st, expr, t->schema, t->name, "default", ref);
		int first = st->neffects;
		add_effects(st, expr, t->schema, t->name, CGM_VIA_GENERATED,
			    cgm_arena_printf(st->a, "generated %s.%s", relation_text(st, t->schema, t->name),
					     cgm_quote_ident(st->a, column)),
			    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, ref);
		generated_reads(st, t, first, expr);
	} else if (strcmp(type, "CONSTR_CHECK") == 0) {
		const char *name = jstr(con, "conname");
		if (!name) {
			/* PostgreSQL names it table_column_check when the
			 * expression reads one column, else table_check, and
			 * makes the label check1, check2, ... until the name is
			 * free, cut to 63 bytes as an index's name is
			 * (ChooseConstraintName). */
			const char *col = NULL;
			int ncols = 0;
			collect_columns(expr, &col, &ncols);
			const char *const *cols = ncols == 1 ? &col : NULL;
			name = cgm_index_name(st->a, t->name, cols, cols ? 1 : 0, "check");
			for (int k = 1; smap_get(&st->constraints, pair_key(st->a, t->name, name)) == 1; k++)
				name = cgm_index_name(st->a, t->name, cols, cols ? 1 : 0,
						      cgm_arena_printf(st->a, "check%d", k));
		}
		smap_put(&st->constraints, pair_key(st->a, t->name, name), 1);
		const char *ref = cgm_arena_printf(st->a, "constraint %s on table %s", name,
						   relation_text(st, t->schema, t->name));
		add_references(st, expr, t->schema, t->name, "constraint", ref);
		int first = st->neffects;
		add_effects(st, expr, t->schema, t->name, CGM_VIA_CHECK,
			    cgm_arena_printf(st->a, "check %s.%s", relation_text(st, t->schema, t->name),
					     cgm_quote_ident(st->a, name)),
			    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, ref);
		for (int i = first; i < st->neffects; i++)
			st->effects[i].no_inherit = jbool(con, "is_no_inherit");
		mark_read_columns(st, first, expr, NULL);
	}
}

static void apply_column(sql_state *st, sql_table *t, const jd_node *coldef)
{
	const char *col = jstr(coldef, "colname");
	jd_node *tn = jget(coldef, "typeName");
	const char *type = NULL;
	bool serial = false;
	if (tn) {
		const char *parts[2];
		int n = name_list(jget(tn, "names"), parts, 2);
		const char *base = n == 1 ? parts[0] : NULL;
		/* serial types are integers with a sequence behind them. */
		serial = true;
		if (base && (strcmp(base, "serial") == 0 || strcmp(base, "serial4") == 0))
			type = "integer";
		else if (base && (strcmp(base, "bigserial") == 0 || strcmp(base, "serial8") == 0))
			type = "bigint";
		else if (base && (strcmp(base, "smallserial") == 0 || strcmp(base, "serial2") == 0))
			type = "smallint";
		else
			type = type_of(st, tn), serial = false;
	}
	if (col)
		add_column(st, t, col, type);
	if (col && serial) /* its nextval() default */
		set_own_default(st, t, col, OWN_DEFAULT);
	jd_node *cons = jget(coldef, "constraints");
	for (size_t i = 0; i < jd_size(cons); i++)
		constraint_references(st, t, col, jget(jd_at(cons, i), "Constraint"));
}

/* ---- a relation's effects carried to another or moved with it ---- */

/* The items hanging on `key`, ascending (*out malloc'd, freed by the
 * caller), of the n items whose owners are owner_at(st, i) (NULL: none);
 * the index first catches up with the items made since. */
static int owned_by(sql_state *st, owner_index *ix, int n,
		    const char *(*owner_at)(const sql_state *, int), const char *key, int **out)
{
	if (ix->stale || ix->indexed > n) {
		smap_free(&ix->head);
		ix->indexed = 0;
		ix->stale = false;
	}
	if (ix->cap < n) {
		ix->cap = n * 2;
		ix->next = cgm_xrealloc(ix->next, sizeof(int) * (size_t)ix->cap);
	}
	for (int i = ix->indexed; i < n; i++) {
		const char *owner = owner_at(st, i);
		ix->next[i] = owner ? smap_get(&ix->head, owner) : -1;
		if (owner)
			smap_put(&ix->head, owner, i);
	}
	ix->indexed = n;
	int count = 0;
	for (int i = smap_get(&ix->head, key); i >= 0; i = ix->next[i])
		count++;
	int *list = cgm_xcalloc((size_t)(count ? count : 1), sizeof(int));
	int k = count;
	for (int i = smap_get(&ix->head, key); i >= 0; i = ix->next[i])
		list[--k] = i;
	*out = list;
	return count;
}

static const char *effect_owner(const sql_state *st, int i)
{
	return st->effects[i].owner;
}

static const char *reference_owner(const sql_state *st, int i)
{
	return st->refs[i].owner;
}

/* Effect i now hangs on `key`: the index is rebuilt if it had it. */
static void set_effect_owner(sql_state *st, int i, const char *key)
{
	st->effects[i].owner = key;
	if (i < st->effect_owners.indexed)
		st->effect_owners.stale = true;
}

static const char *choose_index_name(sql_state *st, const char *schema, const char *table,
				     const char *const *columns, int ncolumns, const char *label);

/* `text` with the first whole occurrence of the relation text `from`
 * (after a space, before '.', ' ', ')' or the end) replaced by `to`: the
 * descriptions of a relation's objects name it so ("check app.t.c",
 * "constraint c on table app.t"). */
static const char *retarget(sql_state *st, const char *text, const char *from, const char *to)
{
	if (!text)
		return NULL;
	size_t n = strlen(from);
	for (const char *p = strstr(text, from); p; p = strstr(p + 1, from)) {
		char after = p[n];
		if ((p == text || p[-1] == ' ') &&
		    (after == '\0' || after == '.' || after == ' ' || after == ')'))
			return cgm_arena_printf(st->a, "%.*s%s%s", (int)(p - text), text, to, p + n);
	}
	return text;
}

/* The references of relation `owner` describing `object`, copied to
 * `to_owner` described as `to_object`. */
static void copy_references(sql_state *st, const char *owner, const char *object,
			    const char *to_owner, const char *to_object)
{
	int *owned, n = owned_by(st, &st->ref_owners, st->nrefs, reference_owner, owner, &owned);
	for (int o = 0; o < n; o++) {
		int i = owned[o];
		sql_reference r = st->refs[i];
		if (r.dropped || !r.owner || strcmp(r.owner, owner) != 0 || strcmp(r.ref.object, object) != 0)
			continue;
		RESERVE_ONE(st->a, st->refs, st->nrefs, st->cap_refs, 64);
		r.owner = to_owner;
		r.ref.object = to_object;
		st->refs[st->nrefs++] = r;
	}
	free(owned);
}

enum {
	COPY_DEFAULTS = 1 << 0,
	COPY_GENERATED = 1 << 1,
	COPY_CHECKS = 1 << 2,           /* every CHECK (LIKE ... INCLUDING CONSTRAINTS) */
	COPY_INHERITED_CHECKS = 1 << 3, /* those without NO INHERIT (INHERITS, a partition) */
	COPY_INDEXES = 1 << 4,          /* new indexes, named as PostgreSQL names them */
	COPY_PARTITION_KEYS = 1 << 5    /* the keys of the table and of those above it */
};

/* What `from` runs of the kinds in `what`, run by `to` too, with the
 * references of each object: CREATE TABLE ... (LIKE from INCLUDING ...),
 * INHERITS (from), PARTITION OF from, ATTACH PARTITION (only_index: that
 * index alone, CREATE INDEX on a partitioned table).  The copies are
 * described as the catalog describes them on `to`; a copied index gets
 * the name PostgreSQL chooses for it there. */
static void copy_relation_effects(sql_state *st, const char *from_schema, const char *from_name,
				  const char *to_schema, const char *to_name, unsigned what,
				  const char *only_index, const char *only_ref)
{
	const char *from_key = pair_key(st->a, from_schema, from_name);
	const char *to_key = pair_key(st->a, to_schema, to_name);
	const char *from_text = relation_text(st, from_schema, from_name);
	const char *to_text = relation_text(st, to_schema, to_name);
	/* Each index is copied once, whatever the number of its effects. */
	const char **old_index = NULL, **new_index = NULL;
	int nindex = 0;
	/* Each object's references are copied once. */
	const char **copied = NULL;
	int ncopied = 0;
	int *owned, n = owned_by(st, &st->effect_owners, st->neffects, effect_owner, from_key, &owned);
	for (int o = 0; o < n; o++) {
		sql_effect x = st->effects[owned[o]];
		if (x.dropped || strcmp(x.owner, from_key) != 0 || x.effect.reach != CGM_REACH_FUNCTION ||
		    strcmp(x.effect.schema, from_schema) != 0 || strcmp(x.effect.relation, from_name) != 0)
			continue;
		bool take = false;
		switch (x.effect.via) {
		case CGM_VIA_DEFAULT:
			take = what & COPY_DEFAULTS;
			break;
		case CGM_VIA_GENERATED:
			take = what & COPY_GENERATED;
			break;
		case CGM_VIA_CHECK:
			take = (what & COPY_CHECKS) || ((what & COPY_INHERITED_CHECKS) && !x.no_inherit);
			break;
		case CGM_VIA_INDEX:
			take = (what & COPY_INDEXES) && x.index_name &&
			       (!only_index || strcmp(x.index_name, only_index) == 0);
			break;
		case CGM_VIA_PARTITION_KEY:
			take = what & COPY_PARTITION_KEYS;
			break;
		default:
			break;
		}
		if (!take || (only_ref && (!x.ref_object || strcmp(x.ref_object, only_ref) != 0)))
			continue;
		const char *object, *ref_object;
		if (x.effect.via == CGM_VIA_INDEX) {
			const char *name = NULL;
			for (int k = 0; k < nindex && !name; k++)
				if (strcmp(old_index[k], x.index_name) == 0)
					name = new_index[k];
			if (!name) {
				name = choose_index_name(st, to_schema, to_name,
							 x.nindex_columns ? x.index_columns : NULL,
							 x.nindex_columns, x.index_label);
				smap_put(&st->relation_names, pair_key(st->a, to_schema, name), 1);
				old_index = cgm_xrealloc(old_index, sizeof(char *) * (size_t)(nindex + 1));
				new_index = cgm_xrealloc(new_index, sizeof(char *) * (size_t)(nindex + 1));
				old_index[nindex] = x.index_name;
				new_index[nindex++] = name;
			}
			const char *old_text = relation_text(st, from_schema, x.index_name);
			const char *new_text = relation_text(st, to_schema, name);
			object = retarget(st, x.effect.object, old_text, new_text);
			ref_object = retarget(st, x.ref_object, old_text, new_text);
			x.index_name = name;
		} else if (x.effect.via == CGM_VIA_PARTITION_KEY) {
			/* The key stays its table's: a partition is checked
			 * against it, and no catalog object of its refers to it. */
			object = x.effect.object;
			ref_object = NULL;
		} else {
			object = retarget(st, x.effect.object, from_text, to_text);
			ref_object = retarget(st, x.ref_object, from_text, to_text);
		}
		new_effect(st, to_schema, to_name, x.effect.reach, x.effect.via, object, x.effect.events,
			   ref_object);
		sql_effect *y = &st->effects[st->neffects - 1];
		sql_effect made = *y;
		*y = x;
		y->owner = made.owner;
		y->ref_object = ref_object;
		y->effect.schema = made.effect.schema;
		y->effect.relation = made.effect.relation;
		y->effect.object = object;
		drop_repeated_effect(st);
		if (!x.ref_object || !ref_object)
			continue;
		bool done = false;
		for (int k = 0; k < ncopied && !done; k++)
			done = strcmp(copied[k], x.ref_object) == 0;
		if (done)
			continue;
		copied = cgm_xrealloc(copied, sizeof(char *) * (size_t)(ncopied + 1));
		copied[ncopied++] = x.ref_object;
		copy_references(st, from_key, x.ref_object, to_key, ref_object);
	}
	free(old_index);
	free(new_index);
	free(copied);
	free(owned);
}

/* A statement on schema.name reaching table `child` (owned by the child,
 * which dropping it takes): a partition's every statement, an inheriting
 * table's UPDATE, DELETE and TRUNCATE (an INSERT stays in the parent). */
static void add_child_reach(sql_state *st, const char *schema, const char *name, const char *child_schema,
			    const char *child_name, bool partition)
{
	unsigned events = CGM_EV_UPDATE | CGM_EV_DELETE | CGM_EV_TRUNCATE | (partition ? CGM_EV_INSERT : 0);
	cgm_effect *e = new_effect(st, schema, name, CGM_REACH_PARTITION, CGM_VIA_TRIGGER, NULL, events, NULL);
	e->target_schema = cgm_arena_strdup(st->a, child_schema);
	e->target_relation = cgm_arena_strdup(st->a, child_name);
	e->target_events = events;
	set_effect_owner(st, st->neffects - 1, pair_key(st->a, child_schema, child_name));
}

/* Ends what add_child_reach began. */
static void drop_child_reach(sql_state *st, const char *schema, const char *name, const char *child_schema,
			     const char *child_name)
{
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (!x->dropped && x->effect.reach == CGM_REACH_PARTITION &&
		    strcmp(x->effect.schema, schema) == 0 && strcmp(x->effect.relation, name) == 0 &&
		    x->effect.target_relation && strcmp(x->effect.target_schema, child_schema) == 0 &&
		    strcmp(x->effect.target_relation, child_name) == 0)
			x->dropped = true;
	}
}

/* PARTITION BY's key expressions: what an INSERT or UPDATE of the table
 * runs (routing its rows, checking a partition's), and of every partition
 * under it, which gets them as it is made or attached
 * (COPY_PARTITION_KEYS); the table refers to their functions. */
static void add_partition_key(sql_state *st, sql_table *t, const jd_node *spec)
{
	const char *table = relation_text(st, t->schema, t->name);
	const char *ref = cgm_arena_printf(st->a, "table %s", table);
	const char *fx = cgm_arena_printf(st->a, "partition key %s", table);
	jd_node *params = jget(spec, "partParams");
	t->key_columns = cgm_arena_alloc(st->a, sizeof(char *) * (jd_size(params) + 1));
	t->nkey_columns = 0;
	for (size_t i = 0; i < jd_size(params); i++) {
		jd_node *elem = jget(jd_at(params, i), "PartitionElem");
		jd_node *expr = jget(elem, "expr");
		if (t->nkey_columns >= 0 && !expr && jstr(elem, "name"))
			t->key_columns[t->nkey_columns++] = cgm_arena_strdup(st->a, jstr(elem, "name"));
		else
			t->nkey_columns = -1;
		if (!expr)
			continue; /* a column: nothing runs */
		add_references(st, expr, t->schema, t->name, "partition_key", ref);
		add_effects(st, expr, t->schema, t->name, CGM_VIA_PARTITION_KEY, fx,
			    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, ref);
	}
}

static int descendants(sql_state *st, const char *schema, const char *name, int **out);

/* DETACH PARTITION of c: c and the partitions under it are no longer
 * checked against the keys of the tables above c. */
static void drop_keys_above(sql_state *st, const sql_table *c)
{
	int *under, nunder = descendants(st, c->schema, c->name, &under);
	const char **kept = cgm_xcalloc((size_t)nunder + 1, sizeof(char *));
	const char **owners = cgm_xcalloc((size_t)nunder + 1, sizeof(char *));
	kept[0] = cgm_arena_printf(st->a, "partition key %s", relation_text(st, c->schema, c->name));
	owners[0] = pair_key(st->a, c->schema, c->name);
	for (int k = 0; k < nunder; k++) {
		const sql_table *d = &st->tables[under[k]];
		kept[k + 1] = cgm_arena_printf(st->a, "partition key %s",
					       relation_text(st, d->schema, d->name));
		owners[k + 1] = pair_key(st->a, d->schema, d->name);
	}
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->dropped || x->effect.via != CGM_VIA_PARTITION_KEY || !x->effect.object)
			continue;
		bool in_subtree = false, own_key = false;
		for (int k = 0; k <= nunder; k++) {
			in_subtree |= strcmp(x->owner, owners[k]) == 0;
			own_key |= strcmp(x->effect.object, kept[k]) == 0;
		}
		if (in_subtree && !own_key)
			x->dropped = true;
	}
	free(kept);
	free(owners);
	free(under);
}

/* DETACH PARTITION of c: the foreign keys c had cloned from its parent
 * become its own, with action triggers of their own (DetachPartitionFinalize);
 * those of c's partitions stay clones of c's. */
static void own_cloned_keys(sql_state *st, const sql_table *c)
{
	const char *key = pair_key(st->a, c->schema, c->name);
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->cloned_key && !x->dropped && strcmp(x->owner, key) == 0)
			x->cloned_key = false;
	}
}

static void add_parent(sql_state *st, sql_table *child, const char *schema, const char *name)
{
	const char *key = pair_key(st->a, schema, name);
	for (int i = 0; i < child->nparents; i++)
		if (strcmp(child->parents[i], key) == 0)
			return;
	RESERVE_ONE(st->a, child->parents, child->nparents, child->cap_parents, 2);
	child->parents[child->nparents++] = key;
}

static void remove_parent(sql_state *st, sql_table *child, const char *schema, const char *name)
{
	const char *key = pair_key(st->a, schema, name);
	for (int i = 0; i < child->nparents; i++)
		if (strcmp(child->parents[i], key) == 0) {
			child->parents[i] = child->parents[--child->nparents];
			return;
		}
}

/* The tables inheriting from schema.name or its partitions, at any depth,
 * each once (indexes into st->tables; the caller frees *out). */
static int descendants(sql_state *st, const char *schema, const char *name, int **out)
{
	int n = 0, cap = 8;
	int *found = cgm_xcalloc((size_t)cap, sizeof(int));
	const char *root = pair_key(st->a, schema, name);
	for (int done = -1; done < n; done++) {
		const char *key = done < 0 ? root
					   : pair_key(st->a, st->tables[found[done]].schema,
						      st->tables[found[done]].name);
		for (int t = 0; t < st->ntables; t++) {
			const sql_table *c = &st->tables[t];
			bool child = false;
			for (int p = 0; !c->dropped && p < c->nparents && !child; p++)
				child = strcmp(c->parents[p], key) == 0;
			for (int k = 0; child && k < n; k++)
				child = found[k] != t;
			if (!child)
				continue;
			if (n == cap) {
				cap *= 2;
				found = cgm_xrealloc(found, sizeof(int) * (size_t)cap);
			}
			found[n++] = t;
		}
	}
	*out = found;
	return n;
}

/* ALTER TABLE ... DROP COLUMN: the column's default or generation
 * expression, and the checks and indexes that read it, go with it. */
static void drop_column_effects(sql_state *st, sql_table *t, const char *column)
{
	const char *key = pair_key(st->a, t->schema, t->name);
	drop_references(st,
			default_ref(st, t->schema, t->name, column),
			NULL, false);
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->dropped || strcmp(x->owner, key) != 0 || strcmp(x->effect.schema, t->schema) != 0 ||
		    strcmp(x->effect.relation, t->name) != 0)
			continue;
		bool reads = false;
		for (int c = 0; c < x->nread_columns && !reads; c++)
			reads = strcmp(x->read_columns[c], column) == 0;
		if (!reads)
			continue;
		x->dropped = true;
		if (x->ref_object)
			for (int r = 0; r < st->nrefs; r++)
				if (st->refs[r].owner && strcmp(st->refs[r].owner, key) == 0 &&
				    strcmp(st->refs[r].ref.object, x->ref_object) == 0)
					st->refs[r].dropped = true;
	}
	for (int c = 0; c < t->ncolumns; c++)
		if (strcmp(t->columns[c].name, column) == 0) {
			memmove(&t->columns[c], &t->columns[c + 1],
				sizeof(t->columns[0]) * (size_t)(t->ncolumns - c - 1));
			t->ncolumns--;
			break;
		}
}

/* CREATE INDEX on partitioned table schema.name: each partition (as the
 * partition effects name them, inheriting tables left out) gets its own
 * copy of `index`, and its partitions copies of that, depth levels down. */
static void copy_index_to_partitions(sql_state *st, const char *schema, const char *name,
				     const char *index, int depth)
{
	int n = st->neffects;
	for (int i = 0; i < n && depth < 32; i++) {
		sql_effect x = st->effects[i];
		if (x.dropped || x.effect.reach != CGM_REACH_PARTITION || !x.effect.target_relation ||
		    !(x.effect.events & CGM_EV_INSERT) || /* inheritance: no index of its own */
		    strcmp(x.effect.schema, schema) != 0 || strcmp(x.effect.relation, name) != 0)
			continue;
		int before = st->neffects;
		copy_relation_effects(st, schema, name, x.effect.target_schema, x.effect.target_relation,
				      COPY_INDEXES, index, NULL);
		/* The partition's copy has a name of its own, which its own
		 * partitions' copies are named after. */
		const char *copy = before < st->neffects ? st->effects[before].index_name : NULL;
		if (copy)
			copy_index_to_partitions(st, x.effect.target_schema, x.effect.target_relation,
						 copy, depth + 1);
	}
}

static void copy_foreign_keys_to_partitions(sql_state *st, const char *schema, const char *name,
					    const char *only, int depth);

/* The foreign keys (with actions: the cascade effects foreign_key_effects
 * records, owned by the referencing table and reaching it) of partitioned
 * table `from`, cloned onto its partition `to` under the same name, as
 * CloneFkReferencing clones them, and onto to's partitions in turn;
 * `only`: that key's object alone.  A key of that name the partition has
 * already is the clone made before (ATTACH of a partitioned table). */
static void copy_foreign_keys(sql_state *st, const char *from_schema, const char *from_name,
			      const char *to_schema, const char *to_name, const char *only, int depth)
{
	const char *from_key = pair_key(st->a, from_schema, from_name);
	const char *to_key = pair_key(st->a, to_schema, to_name);
	const char *from_text = relation_text(st, from_schema, from_name);
	const char *to_text = relation_text(st, to_schema, to_name);
	int *owned, n = owned_by(st, &st->effect_owners, st->neffects, effect_owner, from_key, &owned);
	const char *copied = NULL;
	for (int o = 0; o < n; o++) {
		sql_effect x = st->effects[owned[o]];
		if (x.dropped || strcmp(x.owner, from_key) != 0 || x.effect.reach != CGM_REACH_CASCADE ||
		    !x.effect.target_relation || strcmp(x.effect.target_schema, from_schema) != 0 ||
		    strcmp(x.effect.target_relation, from_name) != 0 ||
		    (only && strcmp(x.effect.object, only) != 0))
			continue;
		const char *object = retarget(st, x.effect.object, from_text, to_text);
		bool have = false;
		for (int i = 0; i < st->neffects && !have; i++) {
			const sql_effect *y = &st->effects[i];
			have = !y->dropped && y->effect.reach == CGM_REACH_CASCADE &&
			       y->effect.events == x.effect.events && strcmp(y->owner, to_key) == 0 &&
			       strcmp(y->effect.object, object) == 0;
		}
		if (have)
			continue;
		new_effect(st, x.effect.schema, x.effect.relation, CGM_REACH_CASCADE, CGM_VIA_CASCADE,
			   object, x.effect.events, NULL);
		sql_effect *y = &st->effects[st->neffects - 1];
		*y = x; /* its events, columns and actions */
		y->cloned_key = true;
		y->effect.object = object;
		y->effect.target_schema = to_schema;
		y->effect.target_relation = to_name;
		set_effect_owner(st, st->neffects - 1, to_key);
		copied = object;
	}
	free(owned);
	if (copied || !only)
		copy_foreign_keys_to_partitions(st, to_schema, to_name,
						only ? retarget(st, only, from_text, to_text) : NULL,
						depth + 1);
}

/* Each partition of schema.name (as the partition effects name them,
 * inheriting tables left out: a foreign key is never inherited) gets
 * the table's foreign keys (`only`: that one), depth levels down. */
static void copy_foreign_keys_to_partitions(sql_state *st, const char *schema, const char *name,
					    const char *only, int depth)
{
	int n = st->neffects;
	for (int i = 0; i < n && depth < 32; i++) {
		sql_effect x = st->effects[i];
		if (x.dropped || x.effect.reach != CGM_REACH_PARTITION || !x.effect.target_relation ||
		    !(x.effect.events & CGM_EV_INSERT) || strcmp(x.effect.schema, schema) != 0 ||
		    strcmp(x.effect.relation, name) != 0)
			continue;
		copy_foreign_keys(st, schema, name, x.effect.target_schema, x.effect.target_relation,
				  only, depth);
	}
}

/* A relation renamed or moved to another schema (its indexes go with it
 * then): what it runs, its references, the effects of others carried on to
 * it, and its triggers follow it. */
static void move_relation_effects(sql_state *st, const char *old_schema, const char *old_name,
				  const char *new_schema, const char *new_name)
{
	const char *old_key = pair_key(st->a, old_schema, old_name);
	const char *new_key = pair_key(st->a, new_schema, new_name);
	const char *old_text = relation_text(st, old_schema, old_name);
	const char *new_text = relation_text(st, new_schema, new_name);
	bool schema_moved = strcmp(old_schema, new_schema) != 0;
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		cgm_effect *e = &x->effect;
		if (x->dropped)
			continue;
		if (e->target_schema && e->target_relation && strcmp(e->target_schema, old_schema) == 0 &&
		    strcmp(e->target_relation, old_name) == 0) {
			e->target_schema = new_schema;
			e->target_relation = new_name;
		}
		if (strcmp(x->owner, old_key) != 0)
			continue;
		set_effect_owner(st, i, new_key);
		if (strcmp(e->schema, old_schema) != 0 || strcmp(e->relation, old_name) != 0)
			continue; /* a partition's: the effect is its parent's */
		e->schema = new_schema;
		e->relation = new_name;
		if (e->via == CGM_VIA_INDEX && x->index_name) {
			if (!schema_moved)
				continue;
			const char *from = relation_text(st, old_schema, x->index_name);
			const char *to = relation_text(st, new_schema, x->index_name);
			e->object = retarget(st, e->object, from, to);
			x->ref_object = retarget(st, x->ref_object, from, to);
			smap_put(&st->relation_names, pair_key(st->a, old_schema, x->index_name), 0);
			smap_put(&st->relation_names, pair_key(st->a, new_schema, x->index_name), 1);
			continue;
		}
		e->object = retarget(st, e->object, old_text, new_text);
		x->ref_object = retarget(st, x->ref_object, old_text, new_text);
	}
	for (int i = 0; i < st->nrefs; i++) {
		sql_reference *r = &st->refs[i];
		if (r->dropped || !r->owner || strcmp(r->owner, old_key) != 0)
			continue;
		r->owner = new_key;
		st->ref_owners.stale = true;
		const char *moved = retarget(st, r->ref.object, old_text, new_text);
		if (moved == r->ref.object && schema_moved && strncmp(moved, "index ", 6) == 0) {
			/* "index s.i": the index moved with its table. */
			const char *qs = cgm_quote_ident(st->a, old_schema);
			size_t ql = strlen(qs);
			if (strncmp(moved + 6, qs, ql) == 0 && moved[6 + ql] == '.')
				moved = cgm_arena_printf(st->a, "index %s%s", cgm_quote_ident(st->a, new_schema),
							 moved + 6 + ql);
		}
		r->ref.object = moved;
	}
	for (int k = 0; k < st->ntriggers; k++) {
		cgm_trigger *tr = &st->triggers[k].trigger;
		if (strcmp(tr->table_schema, old_schema) == 0 && strcmp(tr->table_name, old_name) == 0) {
			tr->table_schema = new_schema;
			tr->table_name = new_name;
		}
	}
}

/* A column a table inherits (INHERITS, PARTITION OF, a parent's ADD
 * COLUMN) takes its parent's default or generation expression, not its
 * identity. */
static void inherit_own_default(sql_state *st, const sql_table *parent, const sql_table *child,
				const char *column)
{
	int own = own_default(st, parent, column);
	if (own == OWN_DEFAULT || own == OWN_GENERATED)
		set_own_default(st, child, column, own);
}

/* LIKE source INCLUDING ...: its columns, and what its options copy
 * (parsenodes.h's CREATE_TABLE_LIKE_* bits). */
static void apply_table_like(sql_state *st, sql_table *t, const jd_node *like)
{
	enum { LIKE_CONSTRAINTS = 1 << 2, LIKE_DEFAULTS = 1 << 3, LIKE_GENERATED = 1 << 4,
	       LIKE_IDENTITY = 1 << 5, LIKE_INDEXES = 1 << 6 };
	const char *ls, *ln;
	sql_table *source;
	if (!range_var(st, jget(like, "relation"), false, &ls, &ln) || !(source = find_table(st, ls, ln)))
		return;
	unsigned options = (unsigned)jint(like, "options");
	for (int c = 0; c < source->ncolumns; c++) {
		add_column(st, t, source->columns[c].name, source->columns[c].type);
		/* A default it does not copy leaves the column to its domain's. */
		int own = own_default(st, source, source->columns[c].name);
		if ((own == OWN_DEFAULT && (options & LIKE_DEFAULTS)) ||
		    (own == OWN_GENERATED && (options & LIKE_GENERATED)) ||
		    (own == OWN_IDENTITY && (options & LIKE_IDENTITY)))
			set_own_default(st, t, source->columns[c].name, own);
	}
	unsigned what = (options & LIKE_CONSTRAINTS ? COPY_CHECKS : 0) |
			(options & LIKE_DEFAULTS ? COPY_DEFAULTS : 0) |
			(options & LIKE_GENERATED ? COPY_GENERATED : 0) |
			(options & LIKE_INDEXES ? COPY_INDEXES : 0);
	if (what)
		copy_relation_effects(st, source->schema, source->name, t->schema, t->name, what, NULL,
				      NULL);
}

/* Why PostgreSQL refuses `ALTER TABLE child INHERIT parent`, or NULL:
 * every column of the parent must be the child's too, of the same type
 * (MergeAttributesIntoExisting); a type the files do not know is no
 * reason. */
static const char *inherit_refusal(sql_state *st, const sql_table *child, const sql_table *parent)
{
	for (int p = 0; p < parent->ncolumns; p++) {
		const sql_column *pc = &parent->columns[p];
		const sql_column *cc = NULL;
		for (int c = 0; c < child->ncolumns && !cc; c++)
			if (strcmp(child->columns[c].name, pc->name) == 0)
				cc = &child->columns[c];
		if (!cc)
			return cgm_arena_printf(st->a, "child table is missing column \"%s\"", pc->name);
		if (pc->type && cc->type && strcmp(pc->type, cc->type) != 0)
			return cgm_arena_printf(st->a, "child table \"%s\" has different type for column \"%s\"",
						child->name, pc->name);
	}
	return NULL;
}

static void apply_create_table(sql_state *st, const jd_node *stmt, const char *kind)
{
	const char *schema, *name;
	if (!range_var(st, jget(stmt, "relation"), true, &schema, &name)) {
		diagnose(st, first_token(st), "no schema has been selected to create in");
		return;
	}
	if (find_table(st, schema, name)) {
		if (!jbool(stmt, "if_not_exists"))
			diagnose_existing(st, first_token(st), "relation \"%s.%s\" already exists", schema, name);
		return;
	}
	if (jget(stmt, "partspec") && strcmp(kind, "table") == 0)
		kind = "partitioned table";
	if (jget(stmt, "partbound")) {
		/* PostgreSQL refuses a partition of a table it knows is not
		 * partitioned (a test suite's second `CREATE TABLE parent ...
		 * PARTITION BY` refused as existing already). */
		jd_node *parents = jget(stmt, "inhRelations");
		const char *ps, *pn;
		const sql_table *parent =
			jd_size(parents) == 1 && range_var(st, jget(jd_at(parents, 0), "RangeVar"), false, &ps, &pn)
				? find_table(st, ps, pn)
				: NULL;
		if (parent && strcmp(parent->kind, "partitioned table") != 0) {
			diagnose(st, first_token(st), "\"%s.%s\" is not partitioned: PostgreSQL refuses the partition %s.%s",
				 parent->schema, parent->name, schema, name);
			return;
		}
	}
	sql_table *t = add_table(st, schema, name, kind);
	st->ref_owner = pair_key(st->a, t->schema, t->name);
	if (jget(stmt, "partbound")) {
		/* A partition: a statement on its parent runs its triggers. */
		jd_node *parents = jget(stmt, "inhRelations");
		const char *ps, *pn;
		if (jd_size(parents) == 1 && range_var(st, jget(jd_at(parents, 0), "RangeVar"), false, &ps, &pn)) {
			sql_table *parent = find_table(st, ps, pn);
			for (int c = 0; parent && c < parent->ncolumns; c++) {
				add_column(st, t, parent->columns[c].name, parent->columns[c].type);
				inherit_own_default(st, parent, t, parent->columns[c].name);
			}
			cgm_effect *e = new_effect(st, ps, pn, CGM_REACH_PARTITION, CGM_VIA_TRIGGER, NULL,
						   CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE |
							   CGM_EV_TRUNCATE,
						   NULL);
			e->target_schema = t->schema;
			e->target_relation = t->name;
			e->target_events = e->events;
			set_effect_owner(st, st->neffects - 1, pair_key(st->a, t->schema, t->name));
			/* It takes its parent's defaults, generated columns,
			 * inherited checks, and a copy of each of its indexes. */
			add_parent(st, t, ps, pn);
			if (parent) {
				copy_relation_effects(st, ps, pn, t->schema, t->name,
						      COPY_DEFAULTS | COPY_GENERATED |
							      COPY_INHERITED_CHECKS | COPY_INDEXES |
							      COPY_PARTITION_KEYS,
						      NULL, NULL);
				copy_foreign_keys(st, ps, pn, t->schema, t->name, NULL, 0);
			}
		}
	} else {
		/* INHERITS: each parent's columns first, with their defaults,
		 * generated columns and checks (but NO INHERIT ones). */
		jd_node *parents = jget(stmt, "inhRelations");
		for (size_t i = 0; i < jd_size(parents); i++) {
			const char *ps, *pn;
			sql_table *parent;
			if (!range_var(st, jget(jd_at(parents, i), "RangeVar"), false, &ps, &pn) ||
			    !(parent = find_table(st, ps, pn)))
				continue;
			for (int c = 0; c < parent->ncolumns; c++) {
				add_column(st, t, parent->columns[c].name, parent->columns[c].type);
				inherit_own_default(st, parent, t, parent->columns[c].name);
			}
			add_parent(st, t, parent->schema, parent->name);
			add_child_reach(st, parent->schema, parent->name, t->schema, t->name, false);
			copy_relation_effects(st, parent->schema, parent->name, t->schema, t->name,
					      COPY_DEFAULTS | COPY_GENERATED | COPY_INHERITED_CHECKS, NULL,
					      NULL);
		}
	}
	if (strcmp(kind, "partitioned table") == 0)
		add_partition_key(st, t, jget(stmt, "partspec"));
	jd_node *elts = jget(stmt, "tableElts");
	for (size_t i = 0; i < jd_size(elts); i++) {
		jd_node *e = jd_at(elts, i);
		if (jget(e, "ColumnDef"))
			apply_column(st, t, jget(e, "ColumnDef"));
		else if (jget(e, "Constraint"))
			constraint_references(st, t, NULL, jget(e, "Constraint"));
		else if (jget(e, "TableLikeClause"))
			apply_table_like(st, t, jget(e, "TableLikeClause"));
	}
}

/* selectcols.h's table: the columns of a relation as the files left them. */
static int table_columns(void *ctx, const char *schema, const char *name,
			 const char *const **names, const char *const **types)
{
	sql_state *st = ctx;
	const sql_table *t = find_table(st, schema, name);
	if (!t)
		return -1;
	const char **n = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(t->ncolumns + 1));
	const char **ty = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(t->ncolumns + 1));
	for (int i = 0; i < t->ncolumns; i++) {
		n[i] = t->columns[i].name;
		ty[i] = t->columns[i].type;
	}
	*names = n;
	*types = ty;
	return t->ncolumns;
}

/* viewcols.h's star: the columns of a relation as the files left them, or
 * of a CTE of the view being made. */
static int star_columns(void *ctx, const char *schema, const char *name, const char *const **out)
{
	sql_state *st = ctx;
	cgm_select_columns cte;
	if (!schema && st->view_query &&
	    cgm_select_cte_columns(st->a, jget(st->view_query, "SelectStmt"), name, table_columns, st,
				   &cte)) {
		*out = cte.names;
		return cte.n;
	}
	const sql_table *t = find_table(st, schema, name);
	if (!t || t->ncolumns <= 0)
		return -1;
	const char **cols = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)t->ncolumns);
	for (int i = 0; i < t->ncolumns; i++)
		cols[i] = t->columns[i].name;
	*out = cols;
	return t->ncolumns;
}

/* A view's column names as PostgreSQL names them when it makes the view:
 * the alias list, else each output column's name (selectcols.h: AS name,
 * the name its expression gives, a `*` expanded through tables, CTEs and
 * subqueries).  When a `*` shows something the files do not define, the
 * other columns are named and the star's left out. */
/* selectcols.h's cast: the type a view's `expr::type` column has. */
static const char *cast_type(void *ctx, const jd_node *type_name)
{
	return type_name ? type_of(ctx, type_name) : NULL;
}

/* The types of a view's output columns that are calls: the result of the
 * overload each call takes (exprcall.h), as the catalog types the view's
 * column, so that a call passing the column on takes its overload too.
 * Only where each target makes one column (no `*`, no set operation). */
static void call_result_types(sql_state *st, const jd_node *query, const jd_node *select,
			      cgm_select_columns *cols)
{
	const char *op = jstr(select, "op");
	jd_node *targets = jget(select, "targetList");
	if ((op && strcmp(op, "SETOP_NONE") != 0) || (int)jd_size(targets) != cols->n)
		return;
	cgm_exprcall_source src = exprcall_source(st, NULL, NULL);
	src.query = query; /* st->view_query is set once the view's columns are */
	src.index = st->view_index;
	for (int c = 0; c < cols->n; c++) {
		const jd_node *val = jget(jget(jd_at(targets, (size_t)c), "ResTarget"), "val");
		if (!cols->types[c] && jget(val, "FuncCall"))
			cols->types[c] = cgm_exprcall_operand_type(&src, val);
	}
	cgm_exprcall_source_done(&src);
}

static void view_columns(sql_state *st, sql_table *v, const jd_node *query, const jd_node *aliases)
{
	const jd_node *select = jget(query, "SelectStmt");
	size_t nalias = jd_size(aliases);
	cgm_select_columns cols;
	if (cgm_select_columns_typed(st->a, select, table_columns, cast_type, st, &cols)) {
		call_result_types(st, query, select, &cols);
		for (int c = 0; c < cols.n; c++) {
			size_t at = (size_t)v->ncolumns;
			add_column(st, v, at < nalias ? jd_string_node(jd_at(aliases, at)) : cols.names[c],
				   cols.types[c]);
		}
		return;
	}
	/* A UNION takes its names from its first branch. */
	while (select && jstr(select, "op") && strcmp(jstr(select, "op"), "SETOP_NONE") != 0)
		select = jget(select, "larg");
	jd_node *targets = jget(select, "targetList");
	for (size_t i = 0; i < jd_size(targets); i++) {
		jd_node *rt = jget(jd_at(targets, i), "ResTarget");
		jd_node *ref = jget(jget(rt, "val"), "ColumnRef");
		jd_node *sf = ref ? jget(ref, "fields") : NULL;
		if (!rt || (jd_size(sf) && jget(jd_at(sf, jd_size(sf) - 1), "A_Star")))
			continue;
		size_t at = (size_t)v->ncolumns;
		const char *col = at < nalias ? jd_string_node(jd_at(aliases, at)) : jstr(rt, "name");
		add_column(st, v, col ? col : cgm_select_figure_colname(jget(rt, "val")), NULL);
	}
}

/* Is a call of schema.name with nargs arguments, as PostgreSQL finds it
 * (pg_catalog first, then the path), an aggregate, a window function or a
 * set-returning function?  A view returning one is not updatable. */
static bool groups_or_sets_by_name(void *ctx, const char *schema, const char *name, int nargs)
{
	sql_state *st = ctx;
	if ((!schema || strcmp(schema, "pg_catalog") == 0) && smap_get(&st->builtin_names, name) == 1) {
		bool found = false, groups = false;
		for (int i = 0; i < st->nbuiltin; i++) {
			const cgm_function *b = &st->model->functions[i];
			if (strcmp(b->name, name) != 0 || !arity_fits(b, nargs))
				continue;
			found = true;
			groups |= b->kind == CGM_KIND_AGGREGATE || b->kind == CGM_KIND_WINDOW ||
				  (b->result && strncmp(b->result, "SETOF ", 6) == 0);
		}
		if (found || schema)
			return groups;
	}
	int f = find_callee(st, schema, name, nargs, false);
	if (f < 0)
		return false;
	const cgm_function *fn = &st->fns[f];
	return fn->kind == CGM_KIND_AGGREGATE || fn->kind == CGM_KIND_WINDOW ||
	       (fn->result && (strncmp(fn->result, "SETOF ", 6) == 0 ||
			       strncmp(fn->result, "TABLE(", 6) == 0));
}

/* Whether PostgreSQL updates view v by itself, and which of its columns
 * (viewupd.h): the one relation its query selects from, found along the
 * path as the view is made, must be a table, a partitioned or foreign
 * table or a view. */
static void view_update(sql_state *st, sql_table *v, const jd_node *query, const jd_node *aliases)
{
	v->base_key = NULL;
	v->nupdatable = 0;
	cgm_view_shape shape;
	if (!cgm_view_shape_of(st->a, jget(query, "SelectStmt"), groups_or_sets_by_name, st, &shape) ||
	    !shape.simple || !shape.base_name)
		return;
	const sql_table *base = find_table(st, shape.base_schema, shape.base_name);
	if (!base || base == v ||
	    !(strcmp(base->kind, "table") == 0 || strcmp(base->kind, "partitioned table") == 0 ||
	      strcmp(base->kind, "foreign table") == 0 || strcmp(base->kind, "view") == 0))
		return;
	int naliases = (int)jd_size(aliases);
	const char **names = naliases ? cgm_arena_alloc(st->a, sizeof(char *) * (size_t)naliases) : NULL;
	for (int i = 0; i < naliases; i++)
		names[i] = cgm_arena_strdup(st->a, jd_string_node(jd_at(aliases, (size_t)i)));
	v->nupdatable = cgm_view_updatable_columns(st->a, &shape, names, naliases, base->columns,
						   base->ncolumns, &v->updatable_columns,
						   &v->base_columns);
	v->base_key = pair_key(st->a, base->schema, base->name);
}

/* A view's options (CREATE VIEW ... WITH, ALTER VIEW ... SET or RESET, a
 * List of DefElems, or a list of them): security_invoker, which `set`
 * gives as its argument says (a bare name: true) and RESET takes back. */
static void set_security_invoker(sql_table *v, const jd_node *options, bool set)
{
	const jd_node *items = jget(options, "items") ? jget(options, "items") : options;
	for (size_t i = 0; i < jd_size(items); i++) {
		jd_node *def = jget(jd_at(items, i), "DefElem");
		const char *name = jstr(def, "defname");
		if (!name || strcmp(name, "security_invoker") != 0)
			continue;
		jd_node *arg = jget(def, "arg");
		v->security_invoker = set && (!arg || defelem_true(arg));
	}
}

static void apply_view(sql_state *st, const jd_node *rv, const jd_node *query, const char *kind,
		       bool replace, const jd_node *aliases, const jd_node *options)
{
	const char *schema, *name;
	if (!range_var(st, rv, true, &schema, &name))
		return;
	sql_table *v = find_table(st, schema, name);
	if (!v)
		v = add_table(st, schema, name, kind);
	else if (!replace)
		diagnose_existing(st, first_token(st), "relation \"%s.%s\" already exists", schema, name);
	else
		v->ncolumns = 0; /* CREATE OR REPLACE VIEW: its columns now */
	v->security_invoker = false; /* CREATE OR REPLACE VIEW sets its options anew */
	set_security_invoker(v, options, true);
	st->view_index = cgm_exprcall_index_new();
	view_columns(st, v, query, aliases);
	if (strcmp(kind, "view") == 0)
		view_update(st, v, query, aliases);
	const char *object = cgm_arena_printf(st->a, "rule _RETURN on %s %s", kind,
					      relation_text(st, schema, name));
	drop_references(st, object, NULL, false); /* CREATE OR REPLACE VIEW */
	st->ref_owner = pair_key(st->a, schema, name);
	st->view_query = query;
	add_references(st, query, NULL, NULL, "view", object);
	if (strcmp(kind, "view") == 0 || strcmp(kind, "materialized view") == 0) {
		/* Reading a view runs its query; a materialized view's runs on
		 * REFRESH (and ran when it was made). */
		bool mat = kind[0] == 'm';
		const char *fx = cgm_arena_printf(st->a, "%s %s", mat ? "materialized view" : "view",
						  relation_text(st, schema, name));
		/* A view's read evaluates the output columns read and its
		 * clauses (viewcols.h); a REFRESH computes every column. */
		cgm_viewcols vc;
		const char **names = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(v->ncolumns + 1));
		for (int i = 0; i < v->ncolumns; i++)
			names[i] = v->columns[i].name;
		if (!mat && cgm_viewcols_of(st->a, jget(query, "SelectStmt"), names, v->ncolumns,
					    view_column_forced, star_columns, st, &vc)) {
			int first = st->neffects;
			for (int i = 0; i < vc.nparts; i++)
				add_effects(st, vc.parts[i].node, schema, name, CGM_VIA_VIEW, fx,
					    CGM_EV_SELECT, vc.parts[i].column, object);
			merge_view_effects(st, first);
			view_reads_by_column(st, query, &vc, schema, name, fx, CGM_EV_SELECT);
		} else {
			add_effects(st, query, schema, name, CGM_VIA_VIEW, fx,
				    mat ? CGM_EV_REFRESH : CGM_EV_SELECT, NULL, object);
			view_reads(st, query, query, schema, name, fx, mat ? CGM_EV_REFRESH : CGM_EV_SELECT);
		}
		for (int i = 0; i < st->neffects; i++)
			if (st->effects[i].effect.reach == CGM_REACH_VIEW && !st->effects[i].ref_object &&
			    strcmp(st->effects[i].effect.object, fx) == 0)
				st->effects[i].ref_object = object;
	}
	st->view_query = NULL;
	cgm_exprcall_index_free(st->view_index);
	st->view_index = NULL;
}

/* ALTER TABLE t DROP CONSTRAINT name: a check's calls and a foreign key's
 * cascade go with it (a migration that re-adds a key without ON DELETE
 * CASCADE ends the cascade). */
static void drop_constraint(sql_state *st, sql_table *t, const char *name)
{
	const char *rel = relation_text(st, t->schema, t->name);
	const char *quoted = cgm_quote_ident(st->a, name);
	drop_references(st, cgm_arena_printf(st->a, "constraint %s on table %s", name, rel), NULL,
			false);
	smap_put(&st->constraints, pair_key(st->a, t->name, name), 0);
	/* A key's cascade names no constraint reference: matched by its object. */
	const char *cascade = cgm_arena_printf(st->a, "cascade %s.%s", rel, quoted);
	const char *owner = pair_key(st->a, t->schema, t->name);
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *e = &st->effects[i];
		if (e->effect.object && e->owner && strcmp(e->owner, owner) == 0 &&
		    strcmp(e->effect.object, cascade) == 0)
			e->dropped = true;
	}
}

/* ALTER TABLE t (not ONLY) ADD CONSTRAINT ... CHECK, ADD COLUMN: the
 * tables inheriting from t and its partitions get what the effects
 * [first, neffects) made for t are (of the kinds in `what`), under the
 * same names; ADD COLUMN (`column`, of `type`) adds the column to them. */
static void add_to_descendants(sql_state *st, sql_table *t, int first, unsigned what,
			       const char *column, const char *type)
{
	int last = st->neffects;
	int *kids, nkids = descendants(st, t->schema, t->name, &kids);
	for (int k = 0; column && k < nkids; k++) {
		add_column(st, &st->tables[kids[k]], column, type);
		inherit_own_default(st, t, &st->tables[kids[k]], column);
	}
	for (int i = first; i < last; i++) {
		const char *ref = st->effects[i].ref_object;
		bool seen = !ref || st->effects[i].effect.reach != CGM_REACH_FUNCTION;
		for (int j = first; j < i && !seen; j++)
			seen = st->effects[j].ref_object && strcmp(st->effects[j].ref_object, ref) == 0;
		for (int k = 0; !seen && k < nkids; k++)
			copy_relation_effects(st, t->schema, t->name, st->tables[kids[k]].schema,
					      st->tables[kids[k]].name, what, NULL, ref);
	}
	free(kids);
}

/* The type of column `column` of t, NULL when unknown. */
static const char *column_type(const sql_table *t, const char *column)
{
	for (int c = 0; c < t->ncolumns; c++)
		if (strcmp(t->columns[c].name, column) == 0)
			return t->columns[c].type;
	return NULL;
}

static void apply_alter_table(sql_state *st, const jd_node *stmt)
{
	const char *schema, *name;
	if (!range_var(st, jget(stmt, "relation"), false, &schema, &name))
		return;
	sql_table *t = find_table(st, schema, name);
	st->ref_owner = t ? pair_key(st->a, t->schema, t->name) : NULL;
	/* Not ONLY: what a subcommand does to the table it does to the tables
	 * inheriting from it and its partitions too. */
	bool recurse = jbool(jget(stmt, "relation"), "inh");
	jd_node *cmds = jget(stmt, "cmds");
	for (size_t i = 0; i < jd_size(cmds); i++) {
		jd_node *cmd = jget(jd_at(cmds, i), "AlterTableCmd");
		const char *sub = jstr(cmd, "subtype");
		const char *cname = jstr(cmd, "name");
		jd_node *def = jget(cmd, "def");
		if (!sub)
			continue;
		if (t && strcmp(sub, "AT_AddColumn") == 0 && jget(def, "ColumnDef")) {
			int first = st->neffects;
			jd_node *coldef = jget(def, "ColumnDef");
			apply_column(st, t, coldef);
			const char *col = jstr(coldef, "colname");
			if (recurse && col)
				add_to_descendants(st, t, first,
						   COPY_DEFAULTS | COPY_GENERATED | COPY_INHERITED_CHECKS,
						   col, column_type(t, col));
		} else if (t && strcmp(sub, "AT_AlterColumnType") == 0 && cname &&
			   jget(jget(def, "ColumnDef"), "typeName")) {
			/* The column's domain (and so its checks) is the new type's. */
			const char *type = type_of(st, jget(jget(def, "ColumnDef"), "typeName"));
			int *kids, nkids = recurse ? descendants(st, t->schema, t->name, &kids) : 0;
			for (int k = -1; k < nkids; k++) {
				sql_table *c = k < 0 ? t : &st->tables[kids[k]];
				for (int i = 0; i < c->ncolumns; i++)
					if (strcmp(c->columns[i].name, cname) == 0)
						c->columns[i].type = type;
			}
			if (recurse)
				free(kids);
		} else if (t && strcmp(sub, "AT_AddConstraint") == 0 && jget(def, "Constraint")) {
			jd_node *con = jget(def, "Constraint");
			const char *type = jstr(con, "contype");
			bool fk = type && strcmp(type, "CONSTR_FOREIGN") == 0;
			if (fk && !recurse && strcmp(t->kind, "partitioned table") == 0) {
				diagnose(st, first_token(st),
					 "cannot use ONLY for foreign key on partitioned table \"%s\"", t->name);
				continue;
			}
			int first = st->neffects;
			constraint_references(st, t, NULL, con);
			if (recurse && type && strcmp(type, "CONSTR_CHECK") == 0 && !jbool(con, "is_no_inherit"))
				add_to_descendants(st, t, first, COPY_CHECKS, NULL, NULL);
			/* A partitioned table's foreign key is cloned onto each
			 * partition (never onto an inheriting table). */
			for (int i = first; fk && recurse && i < st->neffects; i++)
				if (!st->effects[i].dropped &&
				    st->effects[i].effect.reach == CGM_REACH_CASCADE &&
				    (i == first ||
				     strcmp(st->effects[i].effect.object, st->effects[i - 1].effect.object) != 0))
					copy_foreign_keys_to_partitions(st, t->schema, t->name,
									st->effects[i].effect.object, 0);
		} else if (t && strcmp(sub, "AT_DropConstraint") == 0 && cname) {
			drop_constraint(st, t, cname);
		} else if (t && strcmp(sub, "AT_AttachPartition") == 0 && strcmp(t->kind, "partitioned table") != 0) {
			diagnose(st, first_token(st), "table \"%s.%s\" is not partitioned: PostgreSQL refuses to attach a partition",
				 t->schema, t->name);
		} else if (t && strcmp(sub, "AT_AttachPartition") == 0) {
			/* pg_dump's way to make a partition. */
			const char *cs, *cn;
			jd_node *pc = jget(def, "PartitionCmd");
			if (range_var(st, jget(jget(pc, "name"), "RangeVar") ? jget(jget(pc, "name"), "RangeVar")
									   : jget(pc, "name"),
				      false, &cs, &cn) &&
			    find_table(st, cs, cn)) {
				cgm_effect *e = new_effect(st, t->schema, t->name, CGM_REACH_PARTITION,
							   CGM_VIA_TRIGGER, NULL,
							   CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE |
								   CGM_EV_TRUNCATE,
							   NULL);
				e->target_schema = cgm_arena_strdup(st->a, cs);
				e->target_relation = cgm_arena_strdup(st->a, cn);
				e->target_events = e->events;
				set_effect_owner(st, st->neffects - 1, pair_key(st->a, cs, cn));
				add_parent(st, find_table(st, cs, cn), t->schema, t->name);
				/* The parent's indexes are built on it (its checks
				 * it must have had already); it and the partitions
				 * under it are checked against the keys. */
				copy_relation_effects(st, t->schema, t->name, e->target_schema,
						      e->target_relation, COPY_INDEXES | COPY_PARTITION_KEYS,
						      NULL, NULL);
				int *under, nunder = descendants(st, cs, cn, &under);
				for (int k = 0; k < nunder; k++)
					copy_relation_effects(st, t->schema, t->name,
							      st->tables[under[k]].schema,
							      st->tables[under[k]].name, COPY_PARTITION_KEYS,
							      NULL, NULL);
				free(under);
				/* And its foreign keys, on the partition's partitions too. */
				copy_foreign_keys(st, t->schema, t->name, e->target_schema,
						  e->target_relation, NULL, 0);
			}
		} else if (t && (strcmp(sub, "AT_SetRelOptions") == 0 ||
				 strcmp(sub, "AT_ResetRelOptions") == 0)) {
			set_security_invoker(t, jget(jget(cmd, "def"), "List"), strcmp(sub, "AT_SetRelOptions") == 0);
		} else if (t && strcmp(sub, "AT_ForceRowSecurity") == 0) {
			t->force_rls = true;
		} else if (t && strcmp(sub, "AT_NoForceRowSecurity") == 0) {
			t->force_rls = false;
		} else if (t && strcmp(sub, "AT_ChangeOwner") == 0) {
			const char *role = sql_roles_spec(&st->roles, jget(cmd, "newowner"));
			t->owner = role ? cgm_arena_strdup(st->a, role) : NULL;
		} else if (t && strcmp(sub, "AT_EnableRowSecurity") == 0) {
			t->rls = true;
		} else if (t && strcmp(sub, "AT_DisableRowSecurity") == 0) {
			t->rls = false;
		} else if (t && strcmp(sub, "AT_ColumnDefault") == 0 && cname) {
			/* SET DEFAULT replaces the default, DROP DEFAULT (no
			 * def) removes it. */
			const char *ref = default_ref(st, t->schema, t->name, cname);
			drop_references(st, ref, NULL, false);
			set_own_default(st, t, cname, def ? OWN_DEFAULT : OWN_NONE);
			if (def) {
				add_references(st, def, t->schema, t->name, "default", ref);
				add_effects(st, def, t->schema, t->name, CGM_VIA_DEFAULT,
					    cgm_arena_printf(st->a, "default %s.%s",
							     relation_text(st, t->schema, t->name),
							     cgm_quote_ident(st->a, cname)),
					    CGM_EV_INSERT, cname, ref);
			}
			int *kids, nkids = recurse ? descendants(st, t->schema, t->name, &kids) : 0;
			for (int k = 0; k < nkids; k++) {
				const sql_table *c = &st->tables[kids[k]];
				drop_references(st,
						default_ref(st, c->schema, c->name, cname),
						NULL, false);
				set_own_default(st, c, cname, def ? OWN_DEFAULT : OWN_NONE);
				if (def)
					copy_relation_effects(st, t->schema, t->name, c->schema, c->name,
							      COPY_DEFAULTS, NULL, ref);
			}
			if (recurse)
				free(kids);
		} else if (t && strcmp(sub, "AT_DropExpression") == 0 && cname) {
			int *kids, nkids = recurse ? descendants(st, t->schema, t->name, &kids) : 0;
			for (int k = -1; k < nkids; k++) {
				const sql_table *c = k < 0 ? t : &st->tables[kids[k]];
				drop_references(st,
						default_ref(st, c->schema, c->name, cname),
						NULL, false);
				set_own_default(st, c, cname, OWN_NONE);
			}
			if (recurse)
				free(kids);
		} else if (t && cname &&
			   (strcmp(sub, "AT_AddIdentity") == 0 || strcmp(sub, "AT_DropIdentity") == 0)) {
			set_own_default(st, t, cname,
					strcmp(sub, "AT_AddIdentity") == 0 ? OWN_IDENTITY : OWN_NONE);
		} else if (t && strcmp(sub, "AT_DropColumn") == 0 && cname) {
			int *kids, nkids = recurse ? descendants(st, t->schema, t->name, &kids) : 0;
			for (int k = 0; k < nkids; k++)
				drop_column_effects(st, &st->tables[kids[k]], cname);
			if (recurse)
				free(kids);
			drop_column_effects(st, t, cname);
		} else if (t && (strcmp(sub, "AT_AddInherit") == 0 || strcmp(sub, "AT_DropInherit") == 0)) {
			const char *ps, *pn;
			const char *refused = NULL;
			if (strcmp(sub, "AT_AddInherit") == 0 && range_var(st, jget(def, "RangeVar"), false, &ps, &pn) &&
			    find_table(st, ps, pn))
				refused = inherit_refusal(st, t, find_table(st, ps, pn));
			if (refused) {
				diagnose(st, first_token(st), "%s: PostgreSQL refuses %s.%s as a child of %s.%s", refused,
					 t->schema, t->name, ps, pn);
			} else if (range_var(st, jget(def, "RangeVar"), false, &ps, &pn) && find_table(st, ps, pn)) {
				if (strcmp(sub, "AT_AddInherit") == 0) {
					add_parent(st, t, ps, pn);
					add_child_reach(st, ps, pn, t->schema, t->name, false);
				} else {
					remove_parent(st, t, ps, pn);
					drop_child_reach(st, ps, pn, t->schema, t->name);
				}
			}
		} else if (t && strcmp(sub, "AT_DetachPartition") == 0) {
			const char *cs, *cn;
			sql_table *c;
			jd_node *pc = jget(def, "PartitionCmd");
			if (range_var(st, jget(jget(pc, "name"), "RangeVar") ? jget(jget(pc, "name"), "RangeVar")
									   : jget(pc, "name"),
				      false, &cs, &cn) &&
			    (c = find_table(st, cs, cn))) {
				remove_parent(st, c, t->schema, t->name);
				/* A statement on the parent no longer reaches it;
				 * what it got from the parent it keeps, but the keys
				 * above it. */
				drop_child_reach(st, t->schema, t->name, c->schema, c->name);
				drop_keys_above(st, c);
				own_cloned_keys(st, c);
			}
		} else if (t && cname &&
			   (strcmp(sub, "AT_EnableRule") == 0 || strcmp(sub, "AT_EnableAlwaysRule") == 0 ||
			    strcmp(sub, "AT_EnableReplicaRule") == 0 || strcmp(sub, "AT_DisableRule") == 0)) {
			/* pg_rewrite.ev_enabled: whether the rule fires in the
			 * session mapped is decided at the end (finish_effects). */
			const char *object = cgm_arena_printf(st->a, "rule %s on %s",
							      cgm_quote_ident(st->a, cname),
							      relation_text(st, t->schema, t->name));
			const char *owner = pair_key(st->a, t->schema, t->name);
			for (int i = 0; i < st->neffects; i++) {
				sql_effect *x = &st->effects[i];
				if (!x->dropped && x->effect.via == CGM_VIA_RULE && x->effect.object &&
				    strcmp(x->owner, owner) == 0 && strcmp(x->effect.object, object) == 0)
					x->rule_state = enable_state(sub);
			}
		} else if (strncmp(sub, "AT_EnableTrig", 13) == 0 ||
			   strncmp(sub, "AT_EnableAlwaysTrig", 19) == 0 ||
			   strncmp(sub, "AT_EnableReplicaTrig", 20) == 0 ||
			   strncmp(sub, "AT_DisableTrig", 14) == 0) {
			bool enable = state_fires(st, enable_state(sub));
			bool all = strcmp(sub + strlen(sub) - 3, "All") == 0 ||
				   strcmp(sub + strlen(sub) - 4, "User") == 0;
			for (int k = 0; k < st->ntriggers; k++) {
				cgm_trigger *tr = &st->triggers[k].trigger;
				if (!st->triggers[k].dropped && strcmp(tr->table_schema, schema) == 0 &&
				    strcmp(tr->table_name, name) == 0 &&
				    (all || (cname && strcmp(tr->name, cname) == 0)))
					tr->enabled = enable;
			}
		}
	}
}

/* The id of the pg_catalog function `name` taking no argument and
 * returning trigger, when CREATE TRIGGER naming it (unqualified or in
 * pg_catalog) finds no user function; NULL when there is none. */
static const char *find_builtin_trigger(sql_state *st, const char *schema, const char *name)
{
	if ((schema && strcmp(schema, "pg_catalog") != 0) || smap_get(&st->builtin_names, name) != 1)
		return NULL;
	for (int i = 0; i < st->nbuiltin; i++) {
		const cgm_function *b = &st->model->functions[i];
		if (b->nargs == 0 && strcmp(b->name, name) == 0 && b->result &&
		    strcmp(b->result, "trigger") == 0)
			return b->id;
	}
	return NULL;
}

static void apply_create_trigger(sql_state *st, const jd_node *stmt)
{
	int at = first_token(st);
	const char *schema, *table;
	if (!range_var(st, jget(stmt, "relation"), false, &schema, &table))
		return;
	const char *parts[3];
	int n = name_list(jget(stmt, "funcname"), parts, 3);
	if (n < 0)
		return;
	const char *fn_schema = n >= 2 ? parts[n - 2] : NULL;
	int fn = find_callee(st, fn_schema, parts[n - 1], 0, false);
	/* pg_catalog's trigger functions (tsvector_update_trigger,
	 * suppress_redundant_updates_trigger) fire like any: the trigger is
	 * listed with the builtin's id, and pg_depend's entry on it is one the
	 * live source leaves out with every pg_catalog function. */
	const char *builtin = fn < 0 ? find_builtin_trigger(st, fn_schema, parts[n - 1]) : NULL;
	if (fn < 0 && !builtin) {
		diagnose(st, at, "function %s() does not exist (trigger \"%s\")",
			 n >= 2 ? cgm_arena_printf(st->a, "%s.%s", parts[n - 2], parts[n - 1]) : parts[0],
			 jstr(stmt, "trigname"));
		return;
	}
	const char *trigname = cgm_arena_strdup(st->a, jstr(stmt, "trigname"));
	if (!trigname)
		return;
	const char *object = cgm_arena_printf(st->a, "trigger %s on %s %s",
					      cgm_quote_ident(st->a, trigname),
					      relation_word(st, schema, table),
					      relation_text(st, schema, table));
	sql_trigger *slot = NULL;
	for (int k = 0; k < st->ntriggers; k++) {
		cgm_trigger *tr = &st->triggers[k].trigger;
		if (!st->triggers[k].dropped && strcmp(tr->table_schema, schema) == 0 &&
		    strcmp(tr->table_name, table) == 0 && strcmp(tr->name, trigname) == 0) {
			if (!jbool(stmt, "replace")) {
				diagnose_existing(st, at, "trigger \"%s\" for relation \"%s\" already exists",
					 trigname, table);
				return;
			}
			slot = &st->triggers[k];
		}
	}
	if (!slot) {
		RESERVE_ONE(st->a, st->triggers, st->ntriggers, st->cap_triggers, 32);
		slot = &st->triggers[st->ntriggers++];
	}
	memset(slot, 0, sizeof *slot);
	cgm_trigger *tr = &slot->trigger;
	tr->table_schema = cgm_arena_strdup(st->a, schema);
	tr->table_name = cgm_arena_strdup(st->a, table);
	tr->name = trigname;
	/* The grammar's event bits are pg_trigger.tgtype's. */
	int ev = jint(stmt, "events");
	tr->events = ((ev & (1 << 2)) ? CGM_EV_INSERT : 0) | ((ev & (1 << 3)) ? CGM_EV_DELETE : 0) |
		     ((ev & (1 << 4)) ? CGM_EV_UPDATE : 0) | ((ev & (1 << 5)) ? CGM_EV_TRUNCATE : 0);
	tr->function = -1;
	tr->function_id = builtin ? builtin : st->fns[fn].id;
	tr->enabled = state_fires(st, 'O');
	tr->row = jbool(stmt, "row");
	tr->columns = string_list(st, jget(stmt, "columns"), &tr->ncolumns);
	drop_references(st, object, NULL, false); /* CREATE OR REPLACE TRIGGER */
	st->ref_owner = pair_key(st->a, schema, table);
	if (!builtin)
		new_reference(st, fn, "trigger", object);
	add_references(st, jget(stmt, "whenClause"), schema, table, "trigger", object);
	int before = st->neffects;
	add_effects(st, jget(stmt, "whenClause"), schema, table, CGM_VIA_TRIGGER_WHEN,
		    cgm_arena_printf(st->a, "trigger %s on %s", cgm_quote_ident(st->a, trigname),
				     relation_text(st, schema, table)),
		    tr->events, NULL, object);
	for (int k = before; k < st->neffects; k++) {
		st->effects[k].effect.columns = tr->columns;
		st->effects[k].effect.ncolumns = tr->ncolumns;
	}
}

/* ---- operators and casts ---- */

/* The function `parts` (schema.name as written) taking `types`: its index
 * in fns, or -1 with *builtin_id set when it is a pg_catalog one. */
static int find_function_by_types(sql_state *st, const char *const *parts, int n,
				  const char *const *types, int ntypes, const char **builtin_id)
{
	*builtin_id = NULL;
	const char *schema = n >= 2 ? parts[n - 2] : NULL;
	const char *name = parts[n - 1];
	if ((!schema || strcmp(schema, "pg_catalog") == 0) &&
	    smap_get(&st->builtin_names, name) == 1) {
		const char *id = cgm_regprocedure(st->a, "pg_catalog", name, types, ntypes);
		for (int i = 0; i < st->nbuiltin; i++)
			if (strcmp(st->model->functions[i].id, id) == 0) {
				*builtin_id = id;
				return -1;
			}
	}
	for (int p = 0; p < (schema ? 1 : st->npath); p++) {
		const char *id = cgm_regprocedure(st->a, schema ? schema : st->path[p], name, types, ntypes);
		int i = smap_get(&st->fn_index, id);
		if (i >= 0)
			return i;
	}
	return -1;
}

/* Left and right operand types of an operator's ObjectWithArgs (NONE: NULL). */
static bool operator_args(sql_state *st, const jd_node *owa, const char **left, const char **right)
{
	jd_node *args = jget(owa, "objargs");
	if (jd_size(args) != 2)
		return false;
	jd_node *l = jget(jd_at(args, 0), "TypeName"), *r = jget(jd_at(args, 1), "TypeName");
	*left = l ? type_of(st, l) : NULL;
	*right = r ? type_of(st, r) : NULL;
	return (!l || *left) && r && *right;
}

static sql_operator *find_sql_operator(sql_state *st, const char *schema, const char *name,
				       const char *left, const char *right)
{
	for (int p = 0; p < (schema ? 1 : st->npath); p++)
		for (int i = st->noperators - 1; i >= 0; i--) {
			sql_operator *o = &st->operators[i];
			if (!o->dropped && strcmp(o->op.name, name) == 0 &&
			    strcmp(o->op.schema, schema ? schema : st->path[p]) == 0 &&
			    (o->op.left == left || (o->op.left && left && strcmp(o->op.left, left) == 0)) &&
			    strcmp(o->op.right, right) == 0)
				return o;
		}
	return NULL;
}

/* CREATE OPERATOR CLASS name [DEFAULT] FOR TYPE t USING am [FAMILY f] AS
 * ... FUNCTION n [(lt, rt)] f(args): the support functions its indexes
 * call.  The catalog refers to each as pg_amproc's entry, described as
 * pg_describe_object does ("function 1 (app.ver, app.ver) of operator
 * family app.ver_ops for access method btree: app.ver_cmp(app.ver,app.ver)");
 * a member PostgreSQL files under other types than the class's (a
 * cross-type btree comparison) is no support of its indexes' columns. */
/* A FUNCTION member `item` of operator family fschema.family of method
 * `am`: a reference, as pg_describe_object describes the pg_amproc entry,
 * and a support function of class `oc` (NULL: of every class of the
 * family) whose type its types are.  `type`: the class's, which the
 * member's types default to (NULL for ALTER OPERATOR FAMILY, which must
 * say them but for btree's comparison and in_range). */
static void add_family_function(sql_state *st, const char *am, const char *fschema,
				const char *family, const char *type, const jd_node *item,
				cgm_opclass *oc)
{
	jd_node *owa = jget(item, "name");
	if (jint(item, "itemtype") != 2 || !owa)
		return;
	const char *fnparts[3];
	int nfn = name_list(jget(owa, "objname"), fnparts, 3);
	jd_node *args = jget(owa, "objargs");
	int nargs = (int)jd_size(args);
	if (nfn < 1 || nargs > 100)
		return;
	const char **types = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(nargs + 1));
	bool known = true;
	for (int k = 0; k < nargs; k++)
		known = (types[k] = type_of(st, jget(jd_at(args, (size_t)k), "TypeName"))) && known;
	const char *builtin_id;
	int fn = known ? find_function_by_types(st, fnparts, nfn, types, nargs, &builtin_id) : -1;
	if (fn < 0)
		return;
	/* The member's types: as written, else btree's comparison and
	 * in_range take them from their arguments, the rest the class's. */
	const char *left = type, *right = type;
	jd_node *class_args = jget(item, "class_args");
	if (jd_size(class_args) == 2) {
		left = type_of(st, jget(jd_at(class_args, 0), "TypeName"));
		right = type_of(st, jget(jd_at(class_args, 1), "TypeName"));
	} else if (strcmp(am, "btree") == 0 && nargs >= 2 &&
		   (jint(item, "number") == 1 || jint(item, "number") == 3)) {
		left = types[0];
		right = types[jint(item, "number") == 3 && nargs > 2 ? 2 : 1];
	}
	if (!left || !right)
		return;
	st->ref_owner = NULL;
	new_reference(st, fn, "other",
		      cgm_arena_printf(st->a,
				       "function %d (%s, %s) of operator family %s for access "
				       "method %s: %s",
				       jint(item, "number"), left, right,
				       cgm_quote_qualified(st->a, fschema, family), am, st->fns[fn].id));
	if (strcmp(left, right) != 0)
		return;
	/* A family's own member: for its classes of that type made later too. */
	if (!oc)
		cgm_opclass_add_family_proc(&st->opclasses, fschema, family, cgm_arena_strdup(st->a, am),
					    left, jint(item, "number"), fn);
	for (int k = 0; k < (oc ? 1 : st->opclasses.n); k++) {
		cgm_opclass *c = oc ? oc : &st->opclasses.items[k];
		if (!c->dropped && strcmp(c->type, left) == 0 && strcmp(c->am, am) == 0 && c->family &&
		    strcmp(c->family, family) == 0 && strcmp(c->family_schema, fschema) == 0)
			cgm_opclass_add_proc(c, jint(item, "number"), fn);
	}
}

static void apply_create_opclass(sql_state *st, const jd_node *stmt)
{
	const char *parts[2];
	int n = name_list(jget(stmt, "opclassname"), parts, 2);
	const char *am = jstr(stmt, "amname");
	const char *type = type_of(st, jget(stmt, "datatype"));
	const char *schema = n == 2 ? parts[0] : creation_schema(st);
	if (n < 1 || !am || !type || !schema)
		return;
	const char *fparts[2];
	int nf = name_list(jget(stmt, "opfamilyname"), fparts, 2);
	const char *fschema = nf == 2 ? fparts[0] : schema;
	const char *family = nf >= 1 ? fparts[nf - 1] : parts[n - 1];
	cgm_opclass *oc = cgm_opclass_add(&st->opclasses, cgm_arena_strdup(st->a, schema),
					  cgm_arena_strdup(st->a, parts[n - 1]),
					  cgm_arena_strdup(st->a, am), type, jbool(stmt, "isDefault"));
	oc->family_schema = cgm_arena_strdup(st->a, fschema);
	oc->family = cgm_arena_strdup(st->a, family);
	jd_node *items = jget(stmt, "items");
	for (size_t i = 0; i < jd_size(items); i++)
		add_family_function(st, am, oc->family_schema, oc->family, type,
				    jget(jd_at(items, i), "CreateOpClassItem"), oc);
	/* What ALTER OPERATOR FAMILY added to the family before the class
	 * (pg_dump's order). */
	cgm_opclass_adopt_family_procs(&st->opclasses, oc);
}

/* ALTER OPERATOR FAMILY ... ADD FUNCTION (pg_dump writes the members of a
 * family that belong to none of its classes that way): each a reference,
 * and a support function of the family's classes of its types.  DROP
 * FUNCTION from a family is left alone (pg_dump never writes it). */
static void apply_alter_opfamily(sql_state *st, const jd_node *stmt)
{
	const char *parts[2];
	int n = name_list(jget(stmt, "opfamilyname"), parts, 2);
	const char *am = jstr(stmt, "amname");
	if (n < 1 || !am || jbool(stmt, "isDrop"))
		return;
	/* Unqualified: the family of that name a class of the path has,
	 * else one the creation schema holds (CREATE OPERATOR FAMILY alone
	 * makes no class cgmap would know it by). */
	const char *schema = n == 2 ? parts[0] : NULL;
	for (int p = 0; !schema && p < st->npath; p++)
		for (int k = 0; !schema && k < st->opclasses.n; k++) {
			const cgm_opclass *oc = &st->opclasses.items[k];
			if (!oc->dropped && oc->family && strcmp(oc->am, am) == 0 &&
			    strcmp(oc->family, parts[n - 1]) == 0 && strcmp(oc->family_schema, st->path[p]) == 0)
				schema = oc->family_schema;
		}
	if (!schema)
		schema = creation_schema(st);
	if (!schema)
		return;
	schema = cgm_arena_strdup(st->a, schema);
	const char *family = cgm_arena_strdup(st->a, parts[n - 1]);
	jd_node *items = jget(stmt, "items");
	for (size_t i = 0; i < jd_size(items); i++)
		add_family_function(st, am, schema, family, NULL,
				    jget(jd_at(items, i), "CreateOpClassItem"), NULL);
}

/* A column of an index: an IndexElem's, or a constraint's key. */
typedef struct index_elem {
	const char *column;     /* the column indexed, NULL for an expression */
	const jd_node *opclass; /* the operator class written, or NULL */
} index_elem;

/* The support functions an index on schema.table calls, as effects of the
 * table: each element's operator class (written, else the default of the
 * access method for the column's type) and the statements each of its
 * functions runs for (cgm_opclass_support_events). */
static void add_opclass_effects(sql_state *st, const char *schema, const char *table,
				const char *index, const char *am, const index_elem *elems,
				int nelems, bool exclusion)
{
	sql_table *t = find_table(st, schema, table);
	if (!t || !index || !am || st->opclasses.n == 0)
		return;
	/* One effect per class and function of this index, however many of
	 * its columns take the class: only this index's are compared. */
	int first = st->neffects;
	for (int i = 0; i < nelems; i++) {
		const cgm_opclass *oc = NULL;
		const char *parts[2];
		int n = name_list(elems[i].opclass, parts, 2);
		if (n >= 1) {
			oc = cgm_opclass_find(&st->opclasses, n == 2 ? parts[0] : NULL, parts[n - 1], am,
					      st->path, st->npath);
		} else if (elems[i].column) {
			for (int c = 0; c < t->ncolumns && !oc; c++)
				if (strcmp(t->columns[c].name, elems[i].column) == 0)
					oc = cgm_opclass_default(&st->opclasses, am, t->columns[c].type);
		}
		if (!oc || oc->nprocs == 0)
			continue;
		const char *object = cgm_arena_printf(
			st->a, "index %s.%s (operator class %s.%s)", cgm_quote_ident(st->a, t->schema),
			cgm_quote_ident(st->a, index), cgm_quote_ident(st->a, oc->schema),
			cgm_quote_ident(st->a, oc->name));
		for (int k = 0; k < oc->nprocs; k++) {
			unsigned events = cgm_opclass_support_events(am, oc->procs[k].number, exclusion);
			const char *id = st->fns[oc->procs[k].fn].id;
			bool seen = !events;
			for (int e = first; e < st->neffects && !seen; e++) {
				const sql_effect *x = &st->effects[e];
				seen = !x->dropped && x->effect.object &&
				       strcmp(x->effect.object, object) == 0 &&
				       strcmp(x->effect.function_id, id) == 0 &&
				       x->effect.events == events;
			}
			if (seen)
				continue;
			cgm_effect *e = new_effect(st, t->schema, t->name, CGM_REACH_FUNCTION,
						   CGM_VIA_INDEX, object, events, NULL);
			e->function_id = id;
		}
	}
}

/* FigureIndexColname (parse_target.c's FigureColnameInternal): the name
 * PostgreSQL gives an index expression's column when it chooses the
 * index's name, and how sure it is (2 a column or function name, 1 a type
 * or "case", 0 none: the column is then "expr"). */
static int figure_colname(const jd_node *node, const char **name, int depth)
{
	jd_node *x;
	if (!node || depth > 64)
		return 0;
	if ((x = jget(node, "ColumnRef"))) {
		jd_node *fields = jget(x, "fields");
		const char *last = jd_size(fields) ? jd_string_node(jd_at(fields, jd_size(fields) - 1)) : NULL;
		if (!last) /* "*" */
			return 0;
		*name = last;
		return 2;
	}
	if ((x = jget(node, "A_Indirection"))) {
		jd_node *ind = jget(x, "indirection");
		for (size_t i = jd_size(ind); i > 0; i--) {
			const char *field = jd_string_node(jd_at(ind, i - 1));
			if (field) {
				*name = field;
				return 2;
			}
		}
		return figure_colname(jget(x, "arg"), name, depth + 1);
	}
	if ((x = jget(node, "FuncCall"))) {
		jd_node *parts = jget(x, "funcname");
		const char *last = jd_size(parts) ? jd_string_node(jd_at(parts, jd_size(parts) - 1)) : NULL;
		if (!last)
			return 0;
		*name = last;
		return 2;
	}
	if ((x = jget(node, "A_Expr"))) {
		const char *kind = jstr(x, "kind");
		if (kind && strcmp(kind, "AEXPR_NULLIF") == 0) {
			*name = "nullif";
			return 2;
		}
		return 0;
	}
	if ((x = jget(node, "TypeCast"))) {
		int strength = figure_colname(jget(x, "arg"), name, depth + 1);
		jd_node *names = jget(jget(x, "typeName"), "names");
		if (strength <= 1 && jd_size(names)) {
			const char *type = jd_string_node(jd_at(names, jd_size(names) - 1));
			if (type) {
				*name = type;
				return 1;
			}
		}
		return strength;
	}
	if ((x = jget(node, "CollateClause")))
		return figure_colname(jget(x, "arg"), name, depth + 1);
	if ((x = jget(node, "CaseExpr"))) {
		int strength = figure_colname(jget(x, "defresult"), name, depth + 1);
		if (strength <= 1) {
			*name = "case";
			return 1;
		}
		return strength;
	}
	static const struct {
		const char *node, *name;
	} fixed[] = { { "A_ArrayExpr", "array" },   { "RowExpr", "row" },
		      { "CoalesceExpr", "coalesce" }, { "GroupingFunc", "grouping" } };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (jget(node, fixed[i].node)) {
			*name = fixed[i].name;
			return 2;
		}
	if ((x = jget(node, "MinMaxExpr"))) {
		const char *op = jstr(x, "op");
		*name = op && strcmp(op, "IS_LEAST") == 0 ? "least" : "greatest";
		return 2;
	}
	return 0;
}

/* An index element's column name as ChooseIndexColumnNames starts from:
 * the column, else what FigureIndexColname makes of the expression. */
static const char *index_column_name(const jd_node *elem)
{
	const char *name = jstr(elem, "indexcolname");
	if (name)
		return name;
	if ((name = jstr(elem, "name")))
		return name;
	return figure_colname(jget(elem, "expr"), &name, 0) > 0 ? name : "expr";
}

/* ChooseIndexColumnNames: a name already taken by an earlier column takes
 * 1, 2, ... */
static void unique_column_names(sql_state *st, const char **names, int n)
{
	for (int i = 1; i < n; i++) {
		const char *base = names[i];
		for (int k = 1;; k++) {
			bool clash = false;
			for (int j = 0; j < i && !clash; j++)
				clash = strcmp(names[i], names[j]) == 0;
			if (!clash)
				break;
			names[i] = cgm_arena_printf(st->a, "%s%d", base, k);
		}
	}
}

/* ChooseRelationName: the name PostgreSQL gives an index it names itself,
 * table_columns_label, with label1, label2, ... while a relation of the
 * schema holds the name; the name is then taken. */
static const char *choose_index_name(sql_state *st, const char *schema, const char *table,
				     const char *const *columns, int ncolumns, const char *label)
{
	const char *name = cgm_index_name(st->a, table, columns, ncolumns, label);
	for (int pass = 1; find_table(st, schema, name) ||
			   smap_get(&st->relation_names, pair_key(st->a, schema, name)) == 1;
	     pass++)
		name = cgm_index_name(st->a, table, columns, ncolumns,
				      cgm_arena_printf(st->a, "%s%d", label, pass));
	return name;
}

/* A PRIMARY KEY, UNIQUE or EXCLUDE constraint's index: its name (the
 * constraint's, else the one PostgreSQL chooses), access method and
 * elements. */
static void constraint_index_effects(sql_state *st, sql_table *t, const char *column,
				     const jd_node *con)
{
	const char *type = jstr(con, "contype");
	if (!type)
		return;
	bool pkey = strcmp(type, "CONSTR_PRIMARY") == 0, unique = strcmp(type, "CONSTR_UNIQUE") == 0;
	bool excl = strcmp(type, "CONSTR_EXCLUSION") == 0;
	if (!pkey && !unique && !excl)
		return;
	enum { MAX_ELEMS = 32 };
	index_elem elems[MAX_ELEMS];
	const char *names[MAX_ELEMS];
	int n = 0;
	if (excl) {
		jd_node *list = jget(con, "exclusions");
		for (size_t i = 0; i < jd_size(list) && n < MAX_ELEMS; i++) {
			jd_node *pair = jget(jget(jd_at(list, i), "List"), "items");
			jd_node *elem = jget(jd_at(pair, 0), "IndexElem");
			if (!elem)
				return;
			elems[n] = (index_elem){ jstr(elem, "name"), jget(elem, "opclass") };
			names[n++] = index_column_name(elem);
		}
	} else {
		jd_node *keys = jget(con, "keys");
		if (jd_size(keys) == 0 && column) {
			/* A column's own PRIMARY KEY or UNIQUE. */
			elems[n] = (index_elem){ column, NULL };
			names[n++] = column;
		}
		for (size_t i = 0; i < jd_size(keys) && n < MAX_ELEMS; i++) {
			const char *key = jd_string_node(jd_at(keys, i));
			if (!key)
				return;
			elems[n] = (index_elem){ key, NULL };
			names[n++] = key;
		}
	}
	if (n == 0)
		return;
	unique_column_names(st, names, n);
	if (pkey) {
		t->pkey_columns = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)n);
		for (int i = 0; i < n; i++)
			t->pkey_columns[i] = cgm_arena_strdup(st->a, elems[i].column);
		t->npkey_columns = n;
	}
	const char *index = jstr(con, "conname");
	if (!index)
		index = choose_index_name(st, t->schema, t->name, pkey ? NULL : names, n,
					  pkey ? "pkey" : excl ? "excl" : "key");
	smap_put(&st->relation_names, pair_key(st->a, t->schema, index), 1);
	const char *am = excl ? jstr(con, "access_method") : "btree";
	int first = st->neffects;
	add_opclass_effects(st, t->schema, t->name, index, am ? am : "btree", elems, n, excl);
	mark_index_effects(st, first, index, names, pkey ? 0 : n, pkey ? "pkey" : excl ? "excl" : "key");
	const char **read = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)n);
	int nread = 0;
	for (int i = 0; i < n; i++)
		if (elems[i].column)
			read[nread++] = cgm_arena_strdup(st->a, elems[i].column);
	for (int i = first; i < st->neffects; i++) {
		st->effects[i].read_columns = read;
		st->effects[i].nread_columns = nread;
	}
}

/* CREATE OPERATOR name (LEFTARG = t, RIGHTARG = t, FUNCTION = f, ...). */
static void apply_create_operator(sql_state *st, const jd_node *stmt)
{
	const char *parts[3];
	int n = name_list(jget(stmt, "defnames"), parts, 3);
	int at = first_token(st);
	if (n < 1)
		return;
	const char *schema = n >= 2 ? parts[n - 2] : creation_schema(st);
	if (!schema || !schema_exists(st, schema)) {
		diagnose(st, at, "no schema to create operator \"%s\" in", parts[n - 1]);
		return;
	}
	const char *left = NULL, *right = NULL, *fparts[3] = { NULL };
	int fn_n = -1;
	jd_node *def = jget(stmt, "definition");
	for (size_t i = 0; i < jd_size(def); i++) {
		jd_node *d = jget(jd_at(def, i), "DefElem");
		const char *opt = jstr(d, "defname");
		jd_node *tn = jget(jget(d, "arg"), "TypeName");
		if (!opt || !tn)
			continue;
		if (strcmp(opt, "leftarg") == 0)
			left = type_of(st, tn);
		else if (strcmp(opt, "rightarg") == 0)
			right = type_of(st, tn);
		else if (strcmp(opt, "function") == 0 || strcmp(opt, "procedure") == 0)
			fn_n = name_list(jget(tn, "names"), fparts, 3);
	}
	if (!right || fn_n < 1) {
		diagnose(st, at, "operator %s.%s: cgmap reads only prefix and infix operators with a "
				 "known right operand type and a function",
			 schema, parts[n - 1]);
		return;
	}
	const char *types[2] = { left ? left : right, right };
	const char *builtin_id;
	int fn = find_function_by_types(st, fparts, fn_n, left ? types : types + 1, left ? 2 : 1,
					&builtin_id);
	if (fn < 0 && !builtin_id) {
		diagnose(st, at, "operator %s.%s: function %s does not exist", schema, parts[n - 1],
			 cgm_regprocedure(st->a, fn_n >= 2 ? fparts[fn_n - 2] : NULL, fparts[fn_n - 1],
					  left ? types : types + 1, left ? 2 : 1));
		return;
	}
	if (find_sql_operator(st, schema, parts[n - 1], left, right)) {
		diagnose_existing(st, at, "operator %s.%s already exists", schema, parts[n - 1]);
		return;
	}
	RESERVE_ONE(st->a, st->operators, st->noperators, st->cap_operators, 16);
	sql_operator *o = &st->operators[st->noperators++];
	memset(o, 0, sizeof *o);
	o->op.schema = cgm_arena_strdup(st->a, schema);
	o->op.name = cgm_arena_strdup(st->a, parts[n - 1]);
	o->op.left = left;
	o->op.right = right;
	o->op.result = fn >= 0 ? st->fns[fn].result : NULL;
	o->op.function_id = builtin_id;
	o->op.function = -1;
	o->fn = fn;
	if (builtin_id)
		for (int i = 0; i < st->nbuiltin; i++)
			if (strcmp(st->model->functions[i].id, builtin_id) == 0)
				o->op.result = st->model->functions[i].result;
}

static const char *const cast_contexts[][2] = {
	{ "COERCION_IMPLICIT", "i" }, { "COERCION_ASSIGNMENT", "a" }, { "COERCION_EXPLICIT", "e" }
};

/* CREATE CAST (source AS target) WITH FUNCTION f(...) | WITHOUT FUNCTION |
 * WITH INOUT [AS ASSIGNMENT | AS IMPLICIT]. */
static void apply_create_cast(sql_state *st, const jd_node *stmt)
{
	int at = first_token(st);
	const char *source = type_of(st, jget(stmt, "sourcetype"));
	const char *target = type_of(st, jget(stmt, "targettype"));
	if (!source || !target)
		return;
	char context = 'e';
	const char *ctx = jstr(stmt, "context");
	for (size_t i = 0; ctx && i < 3; i++)
		if (strcmp(ctx, cast_contexts[i][0]) == 0)
			context = cast_contexts[i][1][0];
	jd_node *func = jget(stmt, "func");
	int fn = -1;
	const char *builtin_id = NULL;
	if (func) {
		const char *fparts[3];
		int fn_n = name_list(jget(func, "objname"), fparts, 3);
		const char **types;
		bool ok;
		int nargs = object_args(st, func, &types, &ok);
		if (jbool(func, "args_unspecified")) {
			/* WITH FUNCTION f: the one taking the source type. */
			types = cgm_arena_alloc(st->a, sizeof(char *));
			types[0] = source;
			nargs = 1;
		}
		if (fn_n > 0 && ok)
			fn = find_function_by_types(st, fparts, fn_n, types, nargs, &builtin_id);
		if (fn < 0 && !builtin_id) {
			diagnose(st, at, "cast (%s AS %s): function %s does not exist", source, target,
				 object_text(st, func));
			return;
		}
	}
	for (int i = 0; i < st->ncasts; i++)
		if (!st->casts[i].dropped && strcmp(st->casts[i].cast.source, source) == 0 &&
		    strcmp(st->casts[i].cast.target, target) == 0) {
			diagnose_existing(st, at, "cast from type %s to type %s already exists", source, target);
			return;
		}
	RESERVE_ONE(st->a, st->casts, st->ncasts, st->cap_casts, 16);
	sql_cast *c = &st->casts[st->ncasts++];
	memset(c, 0, sizeof *c);
	c->cast.source = source;
	c->cast.target = target;
	c->cast.context = context;
	c->cast.method = func ? 'f' : jbool(stmt, "inout") ? 'i' : 'b';
	c->cast.function_id = builtin_id;
	c->cast.function = -1;
	c->fn = fn;
}

/* DROP OPERATOR / DROP CAST of one object; false when it does not exist. */
static bool drop_operator_or_cast(sql_state *st, const char *type, const jd_node *obj)
{
	if (strcmp(type, "OBJECT_OPERATOR") == 0) {
		jd_node *owa = jget(obj, "ObjectWithArgs");
		const char *parts[3], *left, *right;
		int n = name_list(jget(owa, "objname"), parts, 3);
		if (n < 1 || !operator_args(st, owa, &left, &right))
			return false;
		sql_operator *o = find_sql_operator(st, n >= 2 ? parts[n - 2] : NULL, parts[n - 1], left,
						    right);
		if (o)
			o->dropped = true;
		return o != NULL;
	}
	jd_node *items = jget(jget(obj, "List"), "items");
	if (jd_size(items) != 2)
		return false;
	const char *source = type_of(st, jget(jd_at(items, 0), "TypeName"));
	const char *target = type_of(st, jget(jd_at(items, 1), "TypeName"));
	for (int i = 0; source && target && i < st->ncasts; i++)
		if (!st->casts[i].dropped && strcmp(st->casts[i].cast.source, source) == 0 &&
		    strcmp(st->casts[i].cast.target, target) == 0) {
			st->casts[i].dropped = true;
			return true;
		}
	return false;
}

/* What survived into the model, each function named by its final id. */
static void add_operators_casts_aggregates(sql_state *st)
{
	cgm_model *model = st->model;
	for (int i = 0; i < st->noperators; i++) {
		sql_operator *o = &st->operators[i];
		if (o->dropped || (o->fn >= 0 && st->dropped[o->fn]))
			continue;
		cgm_operator *op = cgm_model_add_operator(model);
		*op = o->op;
		if (o->fn >= 0) {
			op->function_id = st->fns[o->fn].id;
			op->result = st->fns[o->fn].result;
			/* As pg_depend describes it (pg_describe_object). */
			cgm_reference *ref = cgm_model_add_reference(model);
			ref->function = -1;
			ref->function_id = op->function_id;
			ref->object_kind = "operator";
			ref->object = cgm_operator_object(st->a, op);
		}
	}
	for (int i = 0; i < st->ncasts; i++) {
		sql_cast *c = &st->casts[i];
		if (c->dropped || (c->fn >= 0 && st->dropped[c->fn]))
			continue;
		cgm_cast *cast = cgm_model_add_cast(model);
		*cast = c->cast;
		if (c->fn >= 0) {
			cast->function_id = st->fns[c->fn].id;
			cgm_reference *ref = cgm_model_add_reference(model);
			ref->function = -1;
			ref->function_id = cast->function_id;
			ref->object_kind = "cast";
			ref->object = cgm_arena_printf(st->a, "cast from %s to %s", cast->source,
						       cast->target);
		}
	}
	for (int i = 0; i < st->naggregates; i++) {
		sql_aggregate *g = &st->aggregates[i];
		if (g->dropped || st->dropped[g->fn])
			continue;
		cgm_aggregate *agg = cgm_model_add_aggregate(model);
		agg->aggregate_id = st->fns[g->fn].id;
		agg->aggregate = -1;
		agg->support_roles = cgm_arena_alloc(st->a, sizeof(char *) * 8);
		agg->support_ids = cgm_arena_alloc(st->a, sizeof(char *) * 8);
		agg->support = cgm_arena_alloc(st->a, sizeof(int) * 8);
		for (int k = 0; k < g->nsupport; k++) {
			if (st->dropped[g->support[k]])
				continue;
			agg->support_roles[agg->nsupport] = g->roles[k];
			agg->support_ids[agg->nsupport] = st->fns[g->support[k]].id;
			agg->support[agg->nsupport++] = -1;
		}
	}
}

/* Is `type` (canonical; or an array of it, or SETOF it) in the schema
 * whose quoted name and "." are `prefix`, or one of `types`? */
static bool type_among(const char *type, const char *prefix, const char *const *types, int ntypes)
{
	if (!type)
		return false;
	if (strncmp(type, "SETOF ", 6) == 0)
		type += 6;
	size_t len = strlen(type);
	while (len > 2 && strncmp(type + len - 2, "[]", 2) == 0)
		len -= 2;
	if (prefix && strncmp(type, prefix, strlen(prefix)) == 0)
		return true;
	for (int i = 0; i < ntypes; i++)
		if (strlen(types[i]) == len && strncmp(type, types[i], len) == 0)
			return true;
	return false;
}

/* Types dropped (those of a schema, by `prefix`, or `types`): what
 * depends on them goes too, as pg_depend has it - the functions taking or
 * returning them, wherever they are, the operators and casts on them -
 * and typing forgets them (a later type of that name may be of another
 * kind). */
static void drop_type_references(sql_state *st, const char *type);

static void drop_type_dependents(sql_state *st, const char *prefix, const char *const *types,
				 int ntypes)
{
	for (int f = 0; f < st->nfns; f++) {
		if (st->dropped[f])
			continue;
		const cgm_function *fn = &st->fns[f];
		bool uses = type_among(fn->result, prefix, types, ntypes);
		for (int a = 0; a < fn->nargs && !uses; a++)
			uses = type_among(fn->argtypes[a], prefix, types, ntypes);
		if (uses)
			drop_function(st, f, false);
	}
	for (int i = 0; i < st->noperators; i++) {
		sql_operator *o = &st->operators[i];
		if (type_among(o->op.left, prefix, types, ntypes) ||
		    type_among(o->op.right, prefix, types, ntypes))
			o->dropped = true;
	}
	for (int i = 0; i < st->ncasts; i++) {
		sql_cast *c = &st->casts[i];
		if (type_among(c->cast.source, prefix, types, ntypes) ||
		    type_among(c->cast.target, prefix, types, ntypes))
			c->dropped = true;
	}
	cgm_model *m = st->model;
	for (int i = 0; i < m->ntype_infos; i++)
		if (type_among(m->type_infos[i].name, prefix, types, ntypes))
			m->type_infos[i].name = NULL;
}

/* DROP EXTENSION, or a DROP SCHEMA ... CASCADE reaching it: its
 * functions, casts, operators, operator classes and types, and what
 * depends on those; a later CREATE EXTENSION makes it again. */
static void drop_extension(sql_state *st, sql_extension *e)
{
	e->dropped = true;
	smap_put(&st->extensions, e->name, 0);
	for (int f = 0; f < st->nfns; f++)
		if (!st->dropped[f] && st->fns[f].from_extension &&
		    smap_get(&st->ext_fns, pair_key(st->a, e->name, st->fns[f].id)) == 1)
			drop_function(st, f, false);
	for (int i = 0; i < st->ncasts; i++)
		if (st->casts[i].extension && strcmp(st->casts[i].extension, e->name) == 0)
			st->casts[i].dropped = true;
	for (int i = 0; i < st->noperators; i++)
		if (st->operators[i].extension && strcmp(st->operators[i].extension, e->name) == 0)
			st->operators[i].dropped = true;
	for (int i = 0; i < e->ntables; i++)
		st->tables[e->tables[i]].dropped = true;
	for (int i = 0; i < e->nopclasses; i++)
		st->opclasses.items[e->opclasses[i]].dropped = true;
	for (int i = 0; i < e->ntypes; i++)
		smap_put(&st->types, e->type_keys[i], 0);
	drop_type_dependents(st, NULL, e->types, e->ntypes);
}

/* The extension `name` in force, or NULL. */
static sql_extension *find_extension(sql_state *st, const char *name)
{
	for (int i = st->nexts - 1; i >= 0; i--)
		if (!st->exts[i].dropped && strcmp(st->exts[i].name, name) == 0)
			return &st->exts[i];
	return NULL;
}

/* Does the extension have members in `schema` (the schema it was made
 * in, a function or a type there)?  DROP SCHEMA ... CASCADE then drops
 * it, as pg_depend's extension dependencies make PostgreSQL do. */
static bool extension_in_schema(sql_state *st, const sql_extension *e, const char *schema)
{
	if (strcmp(e->schema, schema) == 0)
		return true;
	for (int f = 0; f < st->nfns; f++)
		if (!st->dropped[f] && st->fns[f].from_extension && strcmp(st->fns[f].schema, schema) == 0 &&
		    smap_get(&st->ext_fns, pair_key(st->a, e->name, st->fns[f].id)) == 1)
			return true;
	const char *prefix = cgm_arena_printf(st->a, "%s.", cgm_quote_ident(st->a, schema));
	for (int i = 0; i < e->ntypes; i++)
		if (type_among(e->types[i], prefix, NULL, 0))
			return true;
	return false;
}

/* DROP OPERATOR CLASS [schema.]name USING am: the class, what its indexes
 * ran through it (they go with it, CASCADE being needed), and the catalog's
 * references to its members (filed under the family CREATE OPERATOR CLASS
 * made, of its name).  False when there is no such class. */
static bool drop_opclass(sql_state *st, const jd_node *obj)
{
	jd_node *items = jget(jget(obj, "List"), "items");
	size_t n = jd_size(items);
	if (n < 2 || n > 3)
		return false;
	const char *am = jd_string_node(jd_at(items, 0));
	const char *schema = n == 3 ? jd_string_node(jd_at(items, 1)) : NULL;
	const char *name = jd_string_node(jd_at(items, n - 1));
	if (!am || !name)
		return false;
	cgm_opclass *oc = (cgm_opclass *)cgm_opclass_find(&st->opclasses, schema, name, am, st->path,
							  st->npath);
	if (!oc)
		return false;
	oc->dropped = true;
	const char *tail = cgm_arena_printf(st->a, " (operator class %s.%s)",
					    cgm_quote_ident(st->a, oc->schema),
					    cgm_quote_ident(st->a, oc->name));
	size_t tlen = strlen(tail);
	for (int i = 0; i < st->neffects; i++) {
		const char *object = st->effects[i].effect.object;
		size_t len = object ? strlen(object) : 0;
		if (st->effects[i].effect.via == CGM_VIA_INDEX && len > tlen &&
		    strcmp(object + len - tlen, tail) == 0)
			st->effects[i].dropped = true;
	}
	const char *family = cgm_arena_printf(st->a, " of operator family %s for access method %s: ",
					      cgm_quote_qualified(st->a, oc->schema, oc->name), am);
	for (int i = 0; i < st->nrefs; i++)
		if (strcmp(st->refs[i].ref.object_kind, "other") == 0 &&
		    strstr(st->refs[i].ref.object, family))
			st->refs[i].dropped = true;
	return true;
}

/* DROP TABLE, VIEW, MATERIALIZED VIEW or FOREIGN TABLE of t, or of its
 * schema: its row type, triggers and what it runs go with it.  With
 * CASCADE (or as a view calling a function dropped CASCADE) so do the
 * views and materialized views reading it (their CGM_REACH_VIEW effects
 * name it), and those reading them, and the functions taking or returning
 * its row type, as pg_depend has it: a migration that drops a base view
 * CASCADE and makes its materialized view again makes a new one.  Without
 * CASCADE PostgreSQL refuses the drop while they exist. */
static void drop_relation(sql_state *st, sql_table *t, bool cascade)
{
	t->dropped = true;
	smap_put(&st->types, pair_key(st->a, t->schema, t->name), 0);
	for (int k = 0; k < st->ntriggers; k++)
		if (strcmp(st->triggers[k].trigger.table_schema, t->schema) == 0 &&
		    strcmp(st->triggers[k].trigger.table_name, t->name) == 0)
			st->triggers[k].dropped = true;
	drop_references(st, NULL, pair_key(st->a, t->schema, t->name), false);
	if (!cascade)
		return;
	const char *row_type = cgm_quote_qualified(st->a, t->schema, t->name);
	drop_type_dependents(st, NULL, &row_type, 1);
	for (int i = 0; i < st->neffects; i++) {
		const sql_effect *e = &st->effects[i];
		if (e->dropped || e->effect.reach != CGM_REACH_VIEW || !e->effect.target_relation ||
		    strcmp(e->effect.target_schema, t->schema) != 0 ||
		    strcmp(e->effect.target_relation, t->name) != 0)
			continue;
		sql_table *v = find_table(st, e->effect.schema, e->effect.relation);
		if (v && v != t)
			drop_relation(st, v, true); /* drops e, and restarts nothing */
	}
}

static void apply_drop(sql_state *st, const jd_node *stmt)
{
	const char *type = jstr(stmt, "removeType");
	jd_node *objects = jget(stmt, "objects");
	if (!type)
		return;
	bool missing_ok = jbool(stmt, "missing_ok");
	const char *behavior = jstr(stmt, "behavior");
	bool cascade = behavior && strcmp(behavior, "DROP_CASCADE") == 0;
	int at = first_token(st);
	for (size_t i = 0; i < jd_size(objects); i++) {
		jd_node *obj = jd_at(objects, i);
		if (is_routine_type(type)) {
			jd_node *owa = jget(obj, "ObjectWithArgs");
			const char *why;
			int fn = find_routine(st, type, owa, &why);
			if (fn >= 0 && strcmp(type, "OBJECT_FUNCTION") == 0 &&
			    st->fns[fn].kind == CGM_KIND_AGGREGATE)
				diagnose(st, at, "\"%s\" is an aggregate function (DROP AGGREGATE drops it)",
					 cgm_quote_qualified(st->a, st->fns[fn].schema, st->fns[fn].name));
			else if (fn >= 0)
				drop_function(st, fn, cascade);
			else if (!missing_ok || strcmp(why, "not found") != 0)
				diagnose(st, at, "function %s %s", object_text(st, owa),
					 strcmp(why, "not found") == 0 ? "does not exist" : why);
		} else if (strcmp(type, "OBJECT_OPCLASS") == 0) {
			if (!drop_opclass(st, obj) && !missing_ok)
				diagnose(st, at, "operator class does not exist");
		} else if (strcmp(type, "OBJECT_OPERATOR") == 0 || strcmp(type, "OBJECT_CAST") == 0) {
			if (!drop_operator_or_cast(st, type, obj) && !missing_ok)
				diagnose(st, at, "%s does not exist",
					 type[7] == 'O' ? "operator" : "cast");
		} else if (strcmp(type, "OBJECT_EXTENSION") == 0) {
			const char *name = jd_string_node(obj);
			if (!name || smap_get(&st->extensions, name) != 1)
				continue;
			sql_extension *e = find_extension(st, name);
			if (e)
				drop_extension(st, e);
			else /* made without cgmap knowing its objects, or plpgsql */
				smap_put(&st->extensions, cgm_arena_strdup(st->a, name), 0);
		} else if (strcmp(type, "OBJECT_SCHEMA") == 0) {
			const char *name = jd_string_node(obj);
			if (!name)
				continue;
			/* The extensions with members there go first, whole. */
			for (int k = 0; k < st->nexts; k++)
				if (!st->exts[k].dropped && extension_in_schema(st, &st->exts[k], name))
					drop_extension(st, &st->exts[k]);
			smap_put(&st->schemas, cgm_arena_strdup(st->a, name), 0);
			for (int f = 0; f < st->nfns; f++)
				if (!st->dropped[f] && strcmp(st->fns[f].schema, name) == 0)
					drop_function(st, f, cascade);
			for (int t = 0; t < st->ntables; t++)
				if (!st->tables[t].dropped && strcmp(st->tables[t].schema, name) == 0)
					drop_relation(st, &st->tables[t], cascade);
			for (int k = 0; k < st->ntriggers; k++)
				if (strcmp(st->triggers[k].trigger.table_schema, name) == 0)
					st->triggers[k].dropped = true;
			drop_references(st, NULL, cgm_arena_printf(st->a, "%s\x1f", name), true);
			/* Its types (tables' row types among them), its operators, and
			 * what depends on its types elsewhere. */
			const char *key_prefix = cgm_arena_printf(st->a, "%s\x1f", name);
			size_t klen = strlen(key_prefix);
			for (int k = 0; k < st->types.size; k++)
				if (st->types.keys[k] && strncmp(st->types.keys[k], key_prefix, klen) == 0)
					st->types.values[k] = 0;
			for (int k = 0; k < st->noperators; k++)
				if (strcmp(st->operators[k].op.schema, name) == 0)
					st->operators[k].dropped = true;
			drop_type_dependents(st,
					     cgm_arena_printf(st->a, "%s.", cgm_quote_ident(st->a, name)),
					     NULL, 0);
		} else if (strcmp(type, "OBJECT_TABLE") == 0 || strcmp(type, "OBJECT_VIEW") == 0 ||
			   strcmp(type, "OBJECT_MATVIEW") == 0 ||
			   strcmp(type, "OBJECT_FOREIGN_TABLE") == 0) {
			const char *parts[3];
			int n = name_list(jget(jget(obj, "List"), "items"), parts, 3);
			if (n < 0)
				continue;
			sql_table *t = find_table(st, n >= 2 ? parts[n - 2] : NULL, parts[n - 1]);
			if (t)
				drop_relation(st, t, cascade);
		} else if (strcmp(type, "OBJECT_TYPE") == 0 || strcmp(type, "OBJECT_DOMAIN") == 0) {
			jd_node *tn = jget(obj, "TypeName");
			const char *parts[3];
			int n = name_list(jget(tn, "names"), parts, 3);
			if (n < 1)
				continue;
			for (int p = 0; p < (n >= 2 ? 1 : st->npath); p++) {
				const char *key = pair_key(st->a, n >= 2 ? parts[n - 2] : st->path[p], parts[n - 1]);
				if (smap_get(&st->types, key) == 1) {
					const char *ts = n >= 2 ? parts[n - 2] : st->path[p];
					smap_put(&st->types, key, 0);
					sql_table *t = find_table(st, ts, parts[n - 1]);
					if (t && strcmp(t->kind, "type") == 0)
						t->dropped = true;
					const char *canonical = cgm_quote_qualified(st->a, ts, parts[n - 1]);
					drop_type_dependents(st, NULL, &canonical, 1);
					drop_type_references(st, canonical);
					break;
				}
			}
		} else if (strcmp(type, "OBJECT_EVENT_TRIGGER") == 0) {
			drop_event_trigger(st, jstr(jget(obj, "String"), "sval"), missing_ok, at);
		} else if (strcmp(type, "OBJECT_TRIGGER") == 0) {
			const char *parts[4];
			int n = name_list(jget(jget(obj, "List"), "items"), parts, 4);
			if (n < 2)
				continue;
			sql_table *t = find_table(st, n >= 3 ? parts[n - 3] : NULL, parts[n - 2]);
			for (int k = 0; t && k < st->ntriggers; k++) {
				cgm_trigger *tr = &st->triggers[k].trigger;
				if (strcmp(tr->table_schema, t->schema) == 0 &&
				    strcmp(tr->table_name, t->name) == 0 &&
				    strcmp(tr->name, parts[n - 1]) == 0)
					st->triggers[k].dropped = true;
			}
			if (t)
				drop_references(st, cgm_arena_printf(st->a, "trigger %s on %s %s",
								     cgm_quote_ident(st->a, parts[n - 1]),
								     relation_word(st, t->schema, t->name),
								     relation_text(st, t->schema, t->name)),
						NULL, false);
		} else if (strcmp(type, "OBJECT_POLICY") == 0) {
			const char *parts[4];
			int n = name_list(jget(jget(obj, "List"), "items"), parts, 4);
			sql_table *t = n >= 2 ? find_table(st, n >= 3 ? parts[n - 3] : NULL, parts[n - 2]) : NULL;
			if (t)
				drop_references(st, cgm_arena_printf(st->a, "policy %s on table %s",
								     cgm_quote_ident(st->a, parts[n - 1]),
								     relation_text(st, t->schema, t->name)),
						NULL, false);
		} else if (strcmp(type, "OBJECT_INDEX") == 0) {
			const char *parts[3];
			int n = name_list(jget(jget(obj, "List"), "items"), parts, 3);
			for (int p = 0; n > 0 && p < (n >= 2 ? 1 : st->npath); p++) {
				const char *schema = n >= 2 ? parts[n - 2] : st->path[p];
				drop_references(st, cgm_arena_printf(st->a, "index %s",
								     relation_text(st, schema, parts[n - 1])),
						NULL, false);
				if (smap_get(&st->relation_names, pair_key(st->a, schema, parts[n - 1])) == 1)
					smap_put(&st->relation_names, pair_key(st->a, schema, parts[n - 1]), 0);
			}
		}
	}
}

static void apply_alter_function(sql_state *st, const jd_node *stmt)
{
	jd_node *owa = jget(stmt, "func");
	const char *why;
	int fn = find_object(st, owa, &why);
	if (fn < 0) {
		if (!names_builtin(st, owa, &why))
			diagnose(st, first_token(st), "function %s %s", object_text(st, owa),
				 strcmp(why, "not found") == 0 ? "does not exist" : why);
		return;
	}
	jd_node *actions = jget(stmt, "actions");
	for (size_t i = 0; i < jd_size(actions); i++) {
		jd_node *d = jget(jd_at(actions, i), "DefElem");
		const char *opt = jstr(d, "defname");
		const char **path;
		int npath;
		if (opt && strcmp(opt, "set") == 0 &&
		    search_path_setting(st, jget(jget(d, "arg"), "VariableSetStmt"), &path, &npath)) {
			st->fns[fn].search_path = path;
			st->fns[fn].npath = npath;
		} else if (opt && strcmp(opt, "security") == 0) {
			st->fns[fn].security_definer = jbool(jget(jget(d, "arg"), "Boolean"), "boolval");
		} else if (opt && strcmp(opt, "volatility") == 0 && jd_string_node(jget(d, "arg"))) {
			st->fns[fn].volatility = jd_string_node(jget(d, "arg"))[0];
		}
	}
}

static bool is_relation_type(const char *type)
{
	return strcmp(type, "OBJECT_TABLE") == 0 || strcmp(type, "OBJECT_VIEW") == 0 ||
	       strcmp(type, "OBJECT_MATVIEW") == 0 || strcmp(type, "OBJECT_FOREIGN_TABLE") == 0;
}

/* ALTER TABLE ... RENAME TO / SET SCHEMA: the relation under its new name,
 * with its columns, and what it runs following it. */
static void move_table(sql_state *st, sql_table *t, const char *schema, const char *name)
{
	t->dropped = true;
	sql_table copy = *t;
	sql_table *moved = add_table(st, schema, name, copy.kind);
	moved->columns = copy.columns;
	moved->ncolumns = copy.ncolumns;
	for (int c = 0; c < copy.ncolumns; c++)
		set_own_default(st, moved, copy.columns[c].name,
				own_default(st, &copy, copy.columns[c].name));
	moved->cap_columns = copy.cap_columns;
	moved->rls = copy.rls;
	moved->force_rls = copy.force_rls;
	moved->security_invoker = copy.security_invoker;
	moved->owner = copy.owner;
	/* A key referencing it without columns references its primary key
	 * still (Lemmy's `REFERENCES person` after `user_` became `person`:
	 * without it, every UPDATE of person cascaded), and it is still
	 * partitioned by the same columns. */
	moved->pkey_columns = copy.pkey_columns;
	moved->npkey_columns = copy.npkey_columns;
	moved->key_columns = copy.key_columns;
	moved->nkey_columns = copy.nkey_columns;
	moved->parents = copy.parents;
	moved->nparents = copy.nparents;
	moved->cap_parents = copy.cap_parents;
	moved->base_key = copy.base_key;
	moved->updatable_columns = copy.updatable_columns;
	moved->base_columns = copy.base_columns;
	moved->nupdatable = copy.nupdatable;
	const char *old_key = pair_key(st->a, copy.schema, copy.name);
	const char *new_key = pair_key(st->a, moved->schema, moved->name);
	for (int k = 0; k < st->ntables; k++) {
		for (int p = 0; p < st->tables[k].nparents; p++)
			if (strcmp(st->tables[k].parents[p], old_key) == 0)
				st->tables[k].parents[p] = new_key;
		/* A view refers to its base relation itself, not to its name. */
		if (st->tables[k].base_key && strcmp(st->tables[k].base_key, old_key) == 0)
			st->tables[k].base_key = new_key;
	}
	move_relation_effects(st, copy.schema, copy.name, moved->schema, moved->name);
}

/* `list` (n names) with `old` renamed `renamed`, into *out: a copy when
 * it changes (lists may be shared). */
static void rename_in_list(sql_state *st, const char **list, int n, const char *old,
			   const char *renamed, const char ***out)
{
	const char **copy = NULL;
	for (int i = 0; i < n; i++) {
		if (!list[i] || strcmp(list[i], old) != 0)
			continue;
		if (!copy) {
			copy = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)n);
			memcpy(copy, list, sizeof(char *) * (size_t)n);
		}
		copy[i] = renamed;
	}
	if (copy)
		*out = copy;
}

/* ALTER TABLE ... RENAME COLUMN: the column's default, generated
 * expression and the columns effects and UPDATE OF triggers list. */
static void rename_column(sql_state *st, sql_table *t, const char *old, const char *name)
{
	const char *renamed = cgm_arena_strdup(st->a, name);
	int own = own_default(st, t, old);
	set_own_default(st, t, old, OWN_NONE);
	set_own_default(st, t, renamed, own);
	for (int c = 0; c < t->ncolumns; c++)
		if (strcmp(t->columns[c].name, old) == 0)
			t->columns[c].name = renamed;
	const char *key = pair_key(st->a, t->schema, t->name);
	/* A view's updatable column keeps what it shows under its new name, and
	 * a view over t shows t's column under the column's new name. */
	rename_in_list(st, t->updatable_columns, t->nupdatable, old, renamed, &t->updatable_columns);
	rename_in_list(st, t->pkey_columns, t->npkey_columns, old, renamed, &t->pkey_columns);
	rename_in_list(st, t->key_columns, t->nkey_columns, old, renamed, &t->key_columns);
	for (int k = 0; k < st->ntables; k++)
		if (!st->tables[k].dropped && st->tables[k].base_key &&
		    strcmp(st->tables[k].base_key, key) == 0)
			rename_in_list(st, st->tables[k].base_columns, st->tables[k].nupdatable, old,
				       renamed, &st->tables[k].base_columns);
	const char *old_object_tail = cgm_arena_printf(st->a, ".%s", cgm_quote_ident(st->a, old));
	const char *old_ref = default_ref(st, t->schema, t->name, old);
	const char *new_ref = default_ref(st, t->schema, t->name, name);
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		cgm_effect *e = &x->effect;
		/* A view reading t reads its column under the new name
		 * (viewcols.h), and a view's column renamed keeps its reads. */
		if (!x->dropped && e->reach == CGM_REACH_VIEW && e->target_schema &&
		    strcmp(e->target_schema, t->schema) == 0 && e->target_relation &&
		    strcmp(e->target_relation, t->name) == 0)
			rename_in_list(st, e->reads, e->nreads, old, renamed, &e->reads);
		/* A foreign key's action, owned by the referencing table: the
		 * referenced key's columns, or the referencing ones it sets. */
		if (!x->dropped && e->reach == CGM_REACH_CASCADE) {
			if (strcmp(e->schema, t->schema) == 0 && strcmp(e->relation, t->name) == 0)
				rename_in_list(st, e->columns, e->ncolumns, old, renamed, &e->columns);
			if (e->target_schema && strcmp(e->target_schema, t->schema) == 0 && e->target_relation &&
			    strcmp(e->target_relation, t->name) == 0)
				rename_in_list(st, e->target_columns, e->ntarget_columns, old, renamed,
					       &e->target_columns);
			continue;
		}
		if (x->dropped || strcmp(x->owner, key) != 0 || strcmp(e->schema, t->schema) != 0 ||
		    strcmp(e->relation, t->name) != 0)
			continue;
		if (e->reach == CGM_REACH_VIEW)
			rename_in_list(st, e->read_by, e->nreads, old, renamed, &e->read_by);
		for (int c = 0; c < e->ncolumns; c++)
			if (strcmp(e->columns[c], old) == 0) {
				const char **cols = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)e->ncolumns);
				memcpy(cols, e->columns, sizeof(char *) * (size_t)e->ncolumns);
				cols[c] = renamed;
				e->columns = cols;
			}
		if ((e->via == CGM_VIA_DEFAULT || e->via == CGM_VIA_GENERATED) && e->object) {
			size_t n = strlen(e->object), k = strlen(old_object_tail);
			if (n > k && strcmp(e->object + n - k, old_object_tail) == 0)
				e->object = cgm_arena_printf(st->a, "%.*s.%s", (int)(n - k), e->object,
							     cgm_quote_ident(st->a, name));
		}
		if (x->ref_object && strcmp(x->ref_object, old_ref) == 0)
			x->ref_object = new_ref;
	}
	for (int i = 0; i < st->nrefs; i++) {
		sql_reference *r = &st->refs[i];
		if (!r->dropped && r->owner && strcmp(r->owner, key) == 0 && strcmp(r->ref.object, old_ref) == 0)
			r->ref.object = new_ref;
	}
	for (int k = 0; k < st->ntriggers; k++) {
		cgm_trigger *tr = &st->triggers[k].trigger;
		if (st->triggers[k].dropped || strcmp(tr->table_schema, t->schema) != 0 ||
		    strcmp(tr->table_name, t->name) != 0)
			continue;
		for (int c = 0; c < tr->ncolumns; c++)
			if (strcmp(tr->columns[c], old) == 0) {
				const char **cols = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)tr->ncolumns);
				memcpy(cols, tr->columns, sizeof(char *) * (size_t)tr->ncolumns);
				cols[c] = renamed;
				tr->columns = cols;
			}
	}
}

/* The references and effects of relation t describing `old_ref` (and
 * effects whose object is `old_fx`) describe the object by its new name. */
static void rename_texts(sql_state *st, const sql_table *t, const char *old_ref, const char *new_ref,
			 const char *old_fx, const char *new_fx)
{
	const char *key = pair_key(st->a, t->schema, t->name);
	for (int i = 0; i < st->nrefs; i++) {
		sql_reference *r = &st->refs[i];
		if (!r->dropped && r->owner && strcmp(r->owner, key) == 0 && strcmp(r->ref.object, old_ref) == 0)
			r->ref.object = new_ref;
	}
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->dropped || strcmp(x->owner, key) != 0)
			continue;
		if (x->ref_object && strcmp(x->ref_object, old_ref) == 0)
			x->ref_object = new_ref;
		if (old_fx && x->effect.object && strcmp(x->effect.object, old_fx) == 0)
			x->effect.object = new_fx;
	}
}

/* ALTER TRIGGER / POLICY ... RENAME, ALTER TABLE ... RENAME CONSTRAINT. */
static void rename_table_object(sql_state *st, sql_table *t, const char *type, const char *old,
				const char *name)
{
	const char *rel = relation_text(st, t->schema, t->name);
	const char *qo = cgm_quote_ident(st->a, old), *qn = cgm_quote_ident(st->a, name);
	if (strcmp(type, "OBJECT_TRIGGER") == 0) {
		const char *word = relation_word(st, t->schema, t->name);
		rename_texts(st, t, cgm_arena_printf(st->a, "trigger %s on %s %s", qo, word, rel),
			     cgm_arena_printf(st->a, "trigger %s on %s %s", qn, word, rel),
			     cgm_arena_printf(st->a, "trigger %s on %s", qo, rel),
			     cgm_arena_printf(st->a, "trigger %s on %s", qn, rel));
		for (int k = 0; k < st->ntriggers; k++) {
			cgm_trigger *tr = &st->triggers[k].trigger;
			if (!st->triggers[k].dropped && strcmp(tr->table_schema, t->schema) == 0 &&
			    strcmp(tr->table_name, t->name) == 0 && strcmp(tr->name, old) == 0)
				tr->name = cgm_arena_strdup(st->a, name);
		}
	} else if (strcmp(type, "OBJECT_POLICY") == 0) {
		const char *old_ref = cgm_arena_printf(st->a, "policy %s on table %s", qo, rel);
		const char *new_ref = cgm_arena_printf(st->a, "policy %s on table %s", qn, rel);
		rename_texts(st, t, old_ref, new_ref, cgm_arena_printf(st->a, "policy %s on %s", qo, rel),
			     cgm_arena_printf(st->a, "policy %s on %s", qn, rel));
		int cmd = smap_get(&st->policy_cmds, old_ref);
		if (cmd >= 0)
			smap_put(&st->policy_cmds, new_ref, cmd);
	} else {
		rename_texts(st, t, cgm_arena_printf(st->a, "constraint %s on table %s", old, rel),
			     cgm_arena_printf(st->a, "constraint %s on table %s", name, rel),
			     cgm_arena_printf(st->a, "check %s.%s", rel, qo),
			     cgm_arena_printf(st->a, "check %s.%s", rel, qn));
		smap_put(&st->constraints, pair_key(st->a, t->name, old), 0);
		smap_put(&st->constraints, pair_key(st->a, t->name, name), 1);
	}
}

/* ALTER INDEX ... RENAME TO: effects through it and its references. */
static void rename_index(sql_state *st, const char *schema, const char *old, const char *name)
{
	const char *from = relation_text(st, schema, old), *to = relation_text(st, schema, name);
	for (int i = 0; i < st->neffects; i++) {
		sql_effect *x = &st->effects[i];
		if (x->dropped || !x->index_name || strcmp(x->index_name, old) != 0 ||
		    strcmp(x->effect.schema, schema) != 0)
			continue;
		x->index_name = cgm_arena_strdup(st->a, name);
		x->effect.object = retarget(st, x->effect.object, from, to);
		x->ref_object = retarget(st, x->ref_object, from, to);
	}
	const char *old_ref = cgm_arena_printf(st->a, "index %s", from);
	for (int i = 0; i < st->nrefs; i++)
		if (!st->refs[i].dropped && strcmp(st->refs[i].ref.object, old_ref) == 0)
			st->refs[i].ref.object = cgm_arena_printf(st->a, "index %s", to);
	smap_put(&st->relation_names, pair_key(st->a, schema, old), 0);
	smap_put(&st->relation_names, pair_key(st->a, schema, name), 1);
}

/* ALTER ROLE ... SET search_path (the role's sessions' path), ALTER
 * FUNCTION ... OWNER TO and REASSIGN OWNED (whose path a function's calls
 * take when it has none of its own: sqlroles.h). */
static void apply_role_statement(sql_state *st, const char *kind, const jd_node *stmt)
{
	if (strcmp(kind, "AlterRoleSetStmt") == 0) {
		/* ALTER ROLE ALL: every role's default, the database's path
		 * already stands for it (the live source reads it so). */
		const char *role = sql_roles_spec(&st->roles, jget(stmt, "role"));
		const char **path;
		int npath;
		if (role && search_path_setting(st, jget(stmt, "setstmt"), &path, &npath))
			sql_roles_set_path(&st->roles, st->a, role, jstr(stmt, "database") != NULL, path,
					   npath);
	} else if (strcmp(kind, "AlterOwnerStmt") == 0) {
		const char *type = jstr(stmt, "objectType");
		if (!is_routine_type(type) && !(type && strcmp(type, "OBJECT_AGGREGATE") == 0))
			return;
		jd_node *owa = jget(jget(stmt, "object"), "ObjectWithArgs");
		const char *why;
		int fn = find_object(st, owa, &why);
		if (fn < 0) {
			/* An aggregate's signature forms ((*), ORDER BY) are
			 * not all read: only a function's absence is sure. */
			if (is_routine_type(type) && !names_builtin(st, owa, &why))
				diagnose(st, first_token(st), "function %s %s", object_text(st, owa),
					 strcmp(why, "not found") == 0 ? "does not exist" : why);
			return;
		}
		const char *role = sql_roles_spec(&st->roles, jget(stmt, "newowner"));
		st->fns[fn].owner = role ? cgm_arena_strdup(st->a, role) : NULL;
	} else { /* REASSIGN OWNED BY ... TO ... */
		const char *to = sql_roles_spec(&st->roles, jget(stmt, "newrole"));
		jd_node *from = jget(stmt, "roles");
		for (size_t r = 0; r < jd_size(from); r++) {
			const char *role = sql_roles_spec(&st->roles, jd_at(from, r));
			for (int i = 0; role && i < st->nfns; i++)
				if (st->fns[i].owner && strcmp(st->fns[i].owner, role) == 0)
					st->fns[i].owner = to ? cgm_arena_strdup(st->a, to) : NULL;
			for (int i = 0; role && i < st->ntables; i++)
				if (st->tables[i].owner && strcmp(st->tables[i].owner, role) == 0)
					st->tables[i].owner = to ? cgm_arena_strdup(st->a, to) : NULL;
		}
	}
}

static void apply_rename(sql_state *st, const jd_node *stmt)
{
	const char *type = jstr(stmt, "renameType");
	const char *newname = jstr(stmt, "newname");
	int at = first_token(st);
	if (!type || !newname)
		return;
	if (strcmp(type, "OBJECT_ROLE") == 0) {
		const char *old = jstr(stmt, "subname");
		const char *to = cgm_arena_strdup(st->a, newname);
		if (!old)
			return;
		sql_roles_rename(&st->roles, old, to);
		for (int i = 0; i < st->nfns; i++)
			if (st->fns[i].owner && strcmp(st->fns[i].owner, old) == 0)
				st->fns[i].owner = to;
		for (int i = 0; i < st->ntables; i++)
			if (st->tables[i].owner && strcmp(st->tables[i].owner, old) == 0)
				st->tables[i].owner = to;
		return;
	}
	if (strcmp(type, "OBJECT_EVENT_TRIGGER") == 0) {
		rename_event_trigger(st, jstr(jget(jget(stmt, "object"), "String"), "sval"), newname);
		return;
	}
	if (is_routine_type(type)) {
		jd_node *owa = jget(jget(stmt, "object"), "ObjectWithArgs");
		const char *why;
		int fn = find_routine(st, type, owa, &why);
		if (fn < 0)
			diagnose(st, at, "function %s %s", object_text(st, owa),
				 strcmp(why, "not found") == 0 ? "does not exist" : why);
		else if (!reidentify(st, fn, st->fns[fn].schema, newname))
			diagnose_existing(st, at, "function %s already exists in schema \"%s\"",
				 cgm_regprocedure(st->a, NULL, newname, st->fns[fn].argtypes,
						  st->fns[fn].nargs),
				 st->fns[fn].schema);
	} else if (strcmp(type, "OBJECT_SCHEMA") == 0) {
		const char *old = jstr(stmt, "subname");
		if (!old || !schema_exists(st, old))
			return;
		const char *renamed = cgm_arena_strdup(st->a, newname);
		smap_put(&st->schemas, cgm_arena_strdup(st->a, old), 0);
		smap_put(&st->schemas, renamed, 1);
		for (int f = 0; f < st->nfns; f++)
			if (!st->dropped[f] && strcmp(st->fns[f].schema, old) == 0)
				reidentify(st, f, renamed, st->fns[f].name);
		for (int k = 0; k < st->nexts; k++)
			if (strcmp(st->exts[k].schema, old) == 0)
				st->exts[k].schema = renamed;
		for (int k = 0; k < st->ntriggers; k++)
			if (strcmp(st->triggers[k].trigger.table_schema, old) == 0)
				st->triggers[k].trigger.table_schema = renamed;
		int n = st->ntables;
		for (int t = 0; t < n; t++)
			if (!st->tables[t].dropped && strcmp(st->tables[t].schema, old) == 0) {
				st->tables[t].dropped = true;
				sql_table copy = st->tables[t];
				sql_table *moved = add_table(st, renamed, copy.name, copy.kind);
				moved->columns = copy.columns;
				moved->ncolumns = copy.ncolumns;
				moved->cap_columns = copy.cap_columns;
			}
	} else if (is_relation_type(type)) {
		const char *schema, *name;
		sql_table *t;
		if (range_var(st, jget(stmt, "relation"), false, &schema, &name) &&
		    (t = find_table(st, schema, name)))
			move_table(st, t, t->schema, newname);
	} else if (strcmp(type, "OBJECT_COLUMN") == 0) {
		const char *schema, *name, *old = jstr(stmt, "subname");
		sql_table *t;
		if (old && range_var(st, jget(stmt, "relation"), false, &schema, &name) &&
		    (t = find_table(st, schema, name)))
			rename_column(st, t, old, newname);
	} else if (strcmp(type, "OBJECT_TRIGGER") == 0 || strcmp(type, "OBJECT_POLICY") == 0 ||
		   strcmp(type, "OBJECT_TABCONSTRAINT") == 0) {
		const char *schema, *name, *old = jstr(stmt, "subname");
		sql_table *t;
		if (old && range_var(st, jget(stmt, "relation"), false, &schema, &name) &&
		    (t = find_table(st, schema, name)))
			rename_table_object(st, t, type, old, newname);
	} else if (strcmp(type, "OBJECT_INDEX") == 0) {
		const char *schema, *name;
		if (range_var(st, jget(stmt, "relation"), false, &schema, &name))
			rename_index(st, schema, name, newname);
	}
}

static void apply_set_schema(sql_state *st, const jd_node *stmt)
{
	const char *type = jstr(stmt, "objectType");
	const char *newschema = jstr(stmt, "newschema");
	int at = first_token(st);
	if (type && newschema && is_relation_type(type)) {
		const char *schema, *name;
		sql_table *t;
		if (range_var(st, jget(stmt, "relation"), false, &schema, &name) &&
		    (t = find_table(st, schema, name)) && schema_exists(st, newschema))
			move_table(st, t, newschema, t->name);
		return;
	}
	if (!is_routine_type(type) || !newschema)
		return;
	jd_node *owa = jget(jget(stmt, "object"), "ObjectWithArgs");
	const char *why;
	int fn = find_routine(st, type, owa, &why);
	if (fn < 0)
		diagnose(st, at, "function %s %s", object_text(st, owa),
			 strcmp(why, "not found") == 0 ? "does not exist" : why);
	else if (!schema_exists(st, newschema))
		diagnose(st, at, "schema \"%s\" does not exist", newschema);
	else if (!reidentify(st, fn, newschema, st->fns[fn].name))
		diagnose_existing(st, at, "function %s already exists in schema \"%s\"", st->fns[fn].name,
			 newschema);
}

static void apply_comment(sql_state *st, const jd_node *stmt)
{
	const char *objtype = jstr(stmt, "objtype");
	if (!is_routine_type(objtype))
		return;
	jd_node *owa = jget(jget(stmt, "object"), "ObjectWithArgs");
	const char *why;
	int fn = find_routine(st, objtype, owa, &why);
	if (fn < 0) {
		if (strcmp(why, "not found") != 0 || !names_builtin(st, owa, &why))
			diagnose(st, first_token(st), "function %s %s", object_text(st, owa),
				 strcmp(why, "not found") == 0 ? "does not exist" : why);
		return;
	}
	const char *comment = literal_value(st, jstr(stmt, "comment"));
	st->fns[fn].comment = comment && *comment ? cgm_arena_strdup(st->a, comment) : NULL;
}

static void apply_sql_at(sql_state *st, const char *sql, int line);

/* An extension's view r, made from its query as the script made it: what
 * a read of it runs follows from the columns read, as for the files' own
 * views (pg_stat_statements' function, for PoWA's reads); its columns'
 * types are the catalog's.  NULL when the query did not make it. */
static sql_table *make_extension_view(sql_state *st, const cgm_relation *r, const char *query, int at)
{
	apply_sql_at(st,
		     cgm_arena_printf(st->a, "CREATE VIEW %s AS %s",
				      cgm_quote_qualified(st->a, r->schema, r->name), query),
		     line_of(st, at));
	sql_table *t = find_table(st, r->schema, r->name);
	for (int c = 0; t && t->ncolumns == r->ncolumns && c < r->ncolumns; c++)
		if (strcmp(t->columns[c].name, r->columns[c].name) == 0)
			t->columns[c].type = r->columns[c].type;
	return t;
}

/* Required extensions deeper than this are not made (the list is data). */
#define MAX_EXTENSION_REQUIRES 16

/* Make extension `ext` in `schema` (the SCHEMA clause's, else NULL: the
 * creation schema), from the list generated from a server: its functions
 * (kept for resolution only, like the live source keeps them), types,
 * casts, relations, schemas, search_path, aggregates' support functions,
 * operators and operator classes.  The extensions it requires are made first when
 * the files have not made them: CASCADE makes them (in the SCHEMA
 * clause's schema), and without it the database had them, or PostgreSQL
 * would have refused the statement. */
static void make_extension(sql_state *st, const char *ext, const char *schema, int at, int depth)
{
	const char *given_schema = schema;
	if (!schema)
		schema = creation_schema(st);
	if (!schema) {
		diagnose(st, at, "no schema has been selected to create extension \"%s\" in", ext);
		return;
	}
	cgm_extension_contents x;
	int rc = cgm_extension_contents_read(&x, st->a, ext, schema);
	if (rc < 0) {
		diagnose(st, at, "%s", cgm_error_message());
		return;
	}
	for (int i = 0; rc == 1 && i < x.nrequires; i++)
		if (smap_get(&st->extensions, x.requires[i]) != 1 && depth < MAX_EXTENSION_REQUIRES)
			make_extension(st, x.requires[i], given_schema, at, depth + 1);
	if (rc == 0 && depth > 0)
		return; /* a language (plperl) or one the list lacks: the rest is made */
	const char *name = cgm_arena_strdup(st->a, ext);
	smap_put(&st->extensions, name, 1);
	RESERVE_ONE(st->a, st->exts, st->nexts, st->cap_exts, 8);
	sql_extension *e = &st->exts[st->nexts++];
	memset(e, 0, sizeof *e);
	e->name = name;
	e->schema = cgm_arena_strdup(st->a, schema);
	if (rc == 0) {
		diagnose(st, at, "extension \"%s\" is not in cgmap's list of extensions: calls to its "
			 "functions show as missing callees", ext);
		return;
	}
	e->types = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(x.ntypes ? x.ntypes : 1));
	e->type_keys = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(x.ntypes ? x.ntypes : 1));
	for (int i = 0; i < x.ntypes; i++) {
		add_type(st, x.type_schemas[i], x.types[i]);
		e->types[e->ntypes] = cgm_quote_qualified(st->a, x.type_schemas[i], x.types[i]);
		e->type_keys[e->ntypes++] = pair_key(st->a, x.type_schemas[i], x.types[i]);
	}
	for (int i = 0; i < x.nfunctions; i++) {
		store_function(st, &x.functions[i], false, at);
		smap_put(&st->ext_fns, pair_key(st->a, name, x.functions[i].id), 1);
	}
	/* What resolution knows of its types and casts, as the database's
	 * catalog tells it live (citext reaches text implicitly, not boolean). */
	for (int i = 0; i < x.ntype_infos; i++)
		*cgm_model_add_type_info(st->model) = x.type_infos[i];
	for (int i = 0; i < x.ncasts; i++) {
		RESERVE_ONE(st->a, st->casts, st->ncasts, st->cap_casts, 16);
		sql_cast *c = &st->casts[st->ncasts++];
		memset(c, 0, sizeof *c);
		c->cast = x.casts[i];
		c->fn = -1; /* the extension's function: no reference of the schema's */
		c->extension = name;
	}
	/* Its tables, views and composite types, whose columns type what
	 * reads them (PostGIS's ST_Dump() gives geometry_dump: its geom is a
	 * geometry); one the files made already stays theirs. */
	e->tables = cgm_arena_alloc(st->a, sizeof(int) * (size_t)(x.nrelations ? x.nrelations : 1));
	for (int i = 0; i < x.nrelations; i++) {
		const cgm_relation *r = &x.relations[i];
		if (find_table(st, r->schema, r->name))
			continue;
		const char *query = x.relation_queries ? x.relation_queries[i] : NULL;
		sql_table *t = r->relkind == 'v' && query ? make_extension_view(st, r, query, at) : NULL;
		if (!t) {
			t = add_table(st, r->schema, r->name, kind_of_relkind(r->relkind));
			for (int c = 0; c < r->ncolumns; c++)
				add_column(st, t, r->columns[c].name, r->columns[c].type);
		}
		e->tables[e->ntables++] = (int)(t - st->tables);
	}
	/* The schemas it makes (postgis_topology's topology): its objects'. */
	for (int i = 0; i < x.nfunctions; i++)
		if (smap_get(&st->schemas, x.functions[i].schema) != 1)
			smap_put(&st->schemas, x.functions[i].schema, 1);
	for (int i = 0; i < x.nrelations; i++)
		if (smap_get(&st->schemas, x.relations[i].schema) != 1)
			smap_put(&st->schemas, x.relations[i].schema, 1);
	/* The schemas its script adds to the database's search_path, as
	 * postgis_topology's AddToSearchPath('topology') does with ALTER
	 * DATABASE ... SET: the sessions after this one find its functions
	 * unqualified. */
	if (x.ndb_path > 0) {
		int n = st->db_path ? st->ndb_path : 2;
		const char *const *now = st->db_path ? (const char *const *)st->db_path : default_path;
		const char **path = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(n + x.ndb_path + 1));
		for (int i = 0; i < n; i++)
			path[i] = now[i];
		for (int i = 0; i < x.ndb_path; i++) {
			bool there = false;
			for (int k = 0; k < n && !there; k++)
				there = strcmp(path[k], x.db_path[i]) == 0;
			if (!there)
				path[n++] = x.db_path[i];
		}
		st->db_path = path;
		st->ndb_path = n;
	}
	/* Its aggregates' support functions, which a call of the aggregate
	 * runs (PostGIS's ST_Union); a builtin one (int8inc) is left out, as
	 * CREATE AGGREGATE in the files leaves it. */
	for (int i = 0; i < x.naggregates; i++) {
		const cgm_aggregate *g = &x.aggregates[i];
		int self = smap_get(&st->fn_index, g->aggregate_id);
		if (self < 0 || st->fns[self].kind != CGM_KIND_AGGREGATE)
			continue;
		RESERVE_ONE(st->a, st->aggregates, st->naggregates, st->cap_aggregates, 16);
		sql_aggregate *agg = &st->aggregates[st->naggregates++];
		memset(agg, 0, sizeof *agg);
		agg->fn = self;
		const char *object = cgm_arena_printf(st->a, "function %s", g->aggregate_id);
		for (int k = 0; k < g->nsupport && agg->nsupport < 8; k++) {
			int support = smap_get(&st->fn_index, g->support_ids[k]);
			if (support < 0)
				continue;
			bool seen = false;
			for (int j = 0; j < agg->nsupport; j++)
				seen = seen || agg->support[j] == support;
			agg->roles[agg->nsupport] = g->support_roles[k];
			agg->support[agg->nsupport++] = support;
			if (!seen)
				new_reference(st, support, "aggregate", object);
		}
	}
	/* Its operators, which type what their operands give (hstore's
	 * `h -> 'key'` is text): an operator of the files' own of the same
	 * name and operands stays, as PostgreSQL refuses the extension then. */
	for (int i = 0; i < x.noperators; i++) {
		const cgm_operator *op = &x.operators[i];
		if (find_sql_operator(st, op->schema, op->name, op->left, op->right))
			continue;
		RESERVE_ONE(st->a, st->operators, st->noperators, st->cap_operators, 16);
		sql_operator *o = &st->operators[st->noperators++];
		memset(o, 0, sizeof *o);
		o->op = *op;
		o->fn = op->function_id ? smap_get(&st->fn_index, op->function_id) : -1;
		o->extension = name;
	}
	/* Its operator classes, whose support functions an index of the class
	 * calls (btree_gist's for a GiST index on an integer column). */
	e->opclasses = cgm_arena_alloc(st->a, sizeof(int) * (size_t)(x.nopclasses ? x.nopclasses : 1));
	for (int i = 0; i < x.nopclasses; i++) {
		const cgm_extension_opclass *k = &x.opclasses[i];
		cgm_opclass *oc = cgm_opclass_add(&st->opclasses, k->schema, k->name, k->am, k->type,
						  k->is_default);
		for (int j = 0; j < k->nprocs; j++) {
			int fn = smap_get(&st->fn_index, k->function_ids[j]);
			if (fn >= 0)
				cgm_opclass_add_proc(oc, k->numbers[j], fn);
		}
		e->opclasses[e->nopclasses++] = st->opclasses.n - 1;
	}
}

/* CREATE EXTENSION [IF NOT EXISTS] name [SCHEMA s] [CASCADE]. */
static void apply_create_extension(sql_state *st, const jd_node *stmt)
{
	const char *ext = jstr(stmt, "extname");
	int at = first_token(st);
	if (!ext)
		return;
	if (smap_get(&st->extensions, ext) == 1) {
		if (!jbool(stmt, "if_not_exists"))
			diagnose_existing(st, at, "extension \"%s\" already exists", ext);
		return;
	}
	const char *schema = NULL;
	jd_node *options = jget(stmt, "options");
	for (size_t i = 0; i < jd_size(options); i++) {
		jd_node *d = jget(jd_at(options, i), "DefElem");
		if (jstr(d, "defname") && strcmp(jstr(d, "defname"), "schema") == 0)
			schema = jd_string_node(jget(d, "arg"));
	}
	make_extension(st, ext, schema, at, 0);
}

/* ---- what CREATE TYPE makes besides its name (sqlfile_types.h) ---- */

static int type_support_function(void *ctx, const char *const *parts, int nparts,
				 const char *const *types, int ntypes, const char **builtin_id,
				 const char **result)
{
	sql_state *st = ctx;
	int i = find_function_by_types(st, parts, nparts, types, ntypes, builtin_id);
	*result = NULL;
	if (i >= 0)
		*result = st->fns[i].result;
	for (int b = 0; i < 0 && *builtin_id && b < st->nbuiltin; b++)
		if (strcmp(st->model->functions[b].id, *builtin_id) == 0)
			*result = st->model->functions[b].result;
	return i;
}

static const char *type_support_type(void *ctx, const jd_node *type_name)
{
	return type_of(ctx, type_name);
}

static sqlfile_type_lookup type_lookup(sql_state *st)
{
	return (sqlfile_type_lookup){ st, type_support_function, type_support_type };
}

/* The type refers to its support functions, as pg_depend has it. */
static void add_type_references(sql_state *st, const sqlfile_type_def *def)
{
	st->ref_owner = NULL;
	for (int i = 0; i < def->nsupport; i++)
		if (def->support[i].fn >= 0)
			new_reference(st, def->support[i].fn, "type", def->support[i].object);
}

/* A type dropped takes its references to its support functions (those
 * of its array too), and a range its multirange. */
static void drop_type_references(sql_state *st, const char *type)
{
	drop_references(st, cgm_arena_printf(st->a, "type %s", type), NULL, false);
	drop_references(st, cgm_arena_printf(st->a, "type %s[]", type), NULL, false);
	for (int i = 0; i < st->nranges; i++) {
		sql_range *r = &st->ranges[i];
		if (!r->range || strcmp(r->range, type) != 0)
			continue;
		r->range = NULL;
		smap_put(&st->types, pair_key(st->a, r->multirange_schema, r->multirange_name), 0);
		drop_type_dependents(st, NULL, &r->multirange, 1);
	}
}

static void apply_create_range(sql_state *st, const jd_node *stmt)
{
	int at = first_token(st);
	const char *parts[3];
	int n = name_list(jget(stmt, "typeName"), parts, 3);
	const char *schema = n < 0 ? NULL : n >= 2 ? parts[n - 2] : creation_schema(st);
	if (!schema)
		return;
	schema = cgm_arena_strdup(st->a, schema);
	const char *name = cgm_arena_strdup(st->a, parts[n - 1]);
	bool shell = smap_get(&st->types, pair_key(st->a, schema, name)) == 1;
	sqlfile_type_lookup lk = type_lookup(st);
	sqlfile_type_def def;
	const char *error;
	if (sqlfile_range_type(&lk, st->a, schema, name, creation_schema(st), shell,
			       jget(stmt, "params"), &def, &error) < 0) {
		diagnose(st, at, "%s (range type \"%s\")", error, name);
		return;
	}
	if (smap_get(&st->types, pair_key(st->a, def.multirange_schema, def.multirange_name)) == 1) {
		diagnose(st, at, "type \"%s\" already exists (the multirange of range type \"%s\")",
			 def.multirange_name, name);
		return;
	}
	add_type(st, schema, name);
	add_type(st, def.multirange_schema, def.multirange_name);
	note_type(st, cgm_quote_qualified(st->a, schema, name), 'r', NULL);
	note_type(st, def.multirange, 'm', NULL);
	RESERVE_ONE(st->a, st->ranges, st->nranges, st->cap_ranges, 8);
	st->ranges[st->nranges++] = (sql_range){ cgm_quote_qualified(st->a, schema, name),
						 def.multirange, def.multirange_schema,
						 def.multirange_name };
	add_type_references(st, &def);
	for (int i = 0; i < def.nconstructors; i++) {
		cgm_function f = def.constructors[i];
		f.file = st->file;
		f.file_line = line_of(st, at);
		store_function(st, &f, false, at);
	}
}

static void apply_base_type(sql_state *st, const jd_node *stmt)
{
	const char *parts[3];
	int n = name_list(jget(stmt, "defnames"), parts, 3);
	const char *schema = n < 0 ? NULL : n >= 2 ? parts[n - 2] : creation_schema(st);
	if (!schema)
		return;
	sqlfile_type_lookup lk = type_lookup(st);
	sqlfile_type_def def;
	const char *error;
	if (sqlfile_base_type(&lk, st->a, schema, parts[n - 1], jget(stmt, "definition"), &def,
			      &error) < 0) {
		diagnose(st, first_token(st), "%s (type \"%s\")", error, parts[n - 1]);
		return;
	}
	add_type_references(st, &def);
}

/* CREATE TYPE / DOMAIN: a name that parameters may use. */
static void apply_type_name(sql_state *st, const jd_node *names)
{
	const char *parts[3];
	int n = name_list(names, parts, 3);
	if (n < 0)
		return;
	const char *schema = n >= 2 ? parts[n - 2] : creation_schema(st);
	if (schema)
		add_type(st, cgm_arena_strdup(st->a, schema), cgm_arena_strdup(st->a, parts[n - 1]));
}

static void note_type_name(sql_state *st, const jd_node *names, char kind)
{
	const char *parts[3];
	int n = name_list(names, parts, 3);
	const char *schema = n < 0 ? NULL : n >= 2 ? parts[n - 2] : creation_schema(st);
	if (schema)
		note_type(st, cgm_quote_qualified(st->a, schema, parts[n - 1]), kind, NULL);
}

static void apply_statement(sql_state *st, const jd_node *wrapper);
static void apply_tree(sql_state *st, const char *tree, int base, int len);
static void index_lines(sql_state *st);

/* The SQL text `sql` applied as if it stood at line `line` of the current
 * file: its own text, lines and statements for the while, then the file's
 * again (no include runs inside it: includes are the file's). */
static void apply_sql_at(sql_state *st, const char *sql, int line)
{
	const char *saved_text = st->text;
	int *saved_lines = st->line_starts, saved_nlines = st->nlines, saved_base = st->line_base;
	int saved_start = st->stmt_start, saved_end = st->stmt_end, saved_next = st->next_include;
	const sqlfile_shrunk *saved_shrunk = st->shrunk;
	sqlfile_shrunk none = { 0 };
	st->text = sql;
	st->shrunk = &none;
	st->line_base = line - 1;
	st->next_include = st->nincludes;
	index_lines(st);
	/* Past libpg_query's limits, refused before it is asked (as a file's
	 * statements are): 200,000 terms of one sum overflowed its stack. */
	cgm_sql_problem problem;
	/* Where the statement stands, for a message (the one a DO block's is). */
	const char *within_kind = st->do_within ? st->do_within_kind : "a DO block";
	const char *within = st->do_within ? st->do_within : "";
	if (!cgm_sql_check(sql, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem)) {
		diagnose(st, problem.offset, "in %s%s: %s", within_kind, within, problem.message);
	} else {
		PgQueryParseResult r = pg_query_parse(sql);
		if (r.error)
			diagnose(st, r.error->cursorpos > 0 ? r.error->cursorpos - 1 : 0, "in %s%s: %s",
				 within_kind, within, r.error->message);
		else
			apply_tree(st, r.parse_tree, 0, (int)strlen(sql));
		pg_query_free_parse_result(r);
	}
	free(st->line_starts);
	st->text = saved_text;
	st->line_starts = saved_lines;
	st->nlines = saved_nlines;
	st->line_base = saved_base;
	st->stmt_start = saved_start;
	st->stmt_end = saved_end;
	st->next_include = saved_next;
	st->shrunk = saved_shrunk;
}

typedef struct do_run {
	sql_state *st;
	int first_line; /* of the block's body in the file */
} do_run;

static void do_apply(void *ctx, const char *sql, int line, bool guarded)
{
	do_run *run = ctx;
	run->st->guarded += guarded;
	apply_sql_at(run->st, sql, run->first_line + line - 1);
	run->st->guarded -= guarded;
}

/* A detail diagnostic at `line` of the file for an EXECUTE not applied,
 * counted for the one warning of them all (the first's place). */
static cgm_diagnostic *unknown_execute(sql_state *st, int line)
{
	cgm_diagnostic *d = cgm_model_add_diagnostic(st->model);
	d->file = st->file;
	d->line = line;
	d->detail = true;
	if (st->do_unknown++ == 0) {
		st->do_unknown_file = st->file;
		st->do_unknown_line = line;
	}
	return d;
}

/* What a DO block EXECUTEs that the files cannot tell: each in the
 * snapshot (and with --verbose), one warning for all (load_files' end). */
static void do_unknown(void *ctx, const char *expr, int line)
{
	do_run *run = ctx;
	cgm_diagnostic *d = unknown_execute(run->st, run->first_line + line - 1);
	d->message = cgm_arena_printf(run->st->a,
				      "a DO block's EXECUTE of SQL known only when it runs is not "
				      "applied: %.200s%s",
				      expr, strlen(expr) > 200 ? "..." : "");
}

/* A setting as SHOW prints it in the session the files leave: the
 * search_path, each schema quoted as quote_identifier() quotes it. */
/* A search_path as SHOW prints it: each schema quoted as needed. */
static const char *shown_path(sql_state *st, const char *const *path, int npath)
{
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&text, "");
	for (int i = 0; i < npath; i++) {
		if (i)
			cgm_strbuf_puts(&text, ", ");
		cgm_strbuf_puts(&text, cgm_quote_ident(st->a, path[i]));
	}
	const char *shown = cgm_arena_strdup(st->a, cgm_strbuf_cstr(&text));
	cgm_strbuf_free(&text);
	return shown;
}

static const char *do_show(void *ctx, const char *setting)
{
	sql_state *st = ((do_run *)ctx)->st;
	return strcmp(setting, "search_path") == 0 ? shown_path(st, st->path, st->npath) : NULL;
}

/* pg_settings' reset_val of search_path: what a new session of the
 * database gets, its ALTER DATABASE ... SET as the files left it, else
 * PostgreSQL's default (a role's own setting is not told apart here). */
static const char *do_show_reset(void *ctx, const char *setting)
{
	sql_state *st = ((do_run *)ctx)->st;
	if (strcmp(setting, "search_path") != 0)
		return NULL;
	int n;
	const char *const *path = session_start_path(st, &n);
	return path == default_path ? "\"$user\", public" : shown_path(st, path, n);
}

/* The attributes of role `role`, made on first use: the bootstrap
 * superuser's usual name, postgres, is a superuser until said otherwise. */
static sql_role_attrs *role_attrs_of(sql_state *st, const char *role)
{
	for (int i = 0; i < st->nrole_attrs; i++)
		if (strcmp(st->role_attrs[i].role, role) == 0)
			return &st->role_attrs[i];
	RESERVE_ONE(st->a, st->role_attrs, st->nrole_attrs, st->cap_role_attrs, 4);
	sql_role_attrs *r = &st->role_attrs[st->nrole_attrs++];
	*r = (sql_role_attrs){ cgm_arena_strdup(st->a, role), strcmp(role, "postgres") == 0, false };
	return r;
}

/* CREATE ROLE or ALTER ROLE ... [NO]SUPERUSER, [NO]BYPASSRLS: whether any
 * policy applies to the role (a view's owner, relfx.c). */
static void apply_role_attrs(sql_state *st, const char *role, const jd_node *options)
{
	if (!role)
		return;
	sql_role_attrs *r = role_attrs_of(st, role);
	for (size_t i = 0; i < jd_size(options); i++) {
		jd_node *def = jget(jd_at(options, i), "DefElem");
		const char *name = jstr(def, "defname");
		bool value = jbool(jget(jget(def, "arg"), "Boolean"), "boolval");
		if (name && strcmp(name, "superuser") == 0)
			r->superuser = value;
		else if (name && strcmp(name, "bypassrls") == 0)
			r->bypassrls = value;
	}
}

/* What a DO block's query of pg_extension reads (docatalog.h): the
 * extensions the files made and did not drop. */
static int files_have_extension(void *ctx, const char *name)
{
	sql_state *st = ctx;
	return smap_get(&st->extensions, name) == 1;
}

/* A DO block: what it runs that changes the schema (doblock.h), applied
 * where it stands in the block. */
static void apply_do(sql_state *st, const jd_node *stmt)
{
	if (st->do_depth == 0)
		st->routine_runs = 0;
	const char *body = NULL, *language = "plpgsql";
	int body_at = -1;
	jd_node *args = jget(stmt, "args");
	for (size_t i = 0; i < jd_size(args); i++) {
		jd_node *def = jget(jd_at(args, i), "DefElem");
		const char *name = jstr(def, "defname");
		const char *value = jstr(jget(jget(def, "arg"), "String"), "sval");
		if (!name || !value)
			continue;
		if (strcmp(name, "language") == 0) {
			language = value;
		} else if (strcmp(name, "as") == 0) {
			int k = st->shrunk ? sqlfile_marker(st->shrunk, value) : -1;
			body_at = k >= 0 ? st->shrunk->lits[k].content_start : -1;
			body = literal_value(st, value);
		}
	}
	if (!body || strcmp(language, "plpgsql") != 0 || st->do_depth >= 8)
		return;
	if (body_at < 0) {
		/* A short body, left in the parsed text: where it stands. */
		const char *found = strstr(st->text + st->stmt_start, body);
		body_at = found ? (int)(found - st->text) : first_token(st);
	}
	do_run run = { .st = st, .first_line = line_of(st, body_at) };
	const cgm_do_session session = { .ctx = &run, .apply = do_apply, .show = do_show, .show_reset = do_show_reset,
					 .unknown = do_unknown, .catalog = &st->do_catalog };
	st->do_depth++;
	cgm_do_block_run(body, &session);
	st->do_depth--;
}

/* A procedure the files CALL, or a PL/pgSQL function they call in a
 * SELECT, runs there: what it runs that changes the schema is applied at
 * the call's line, as a DO block's is (doblock.h), with the values of the
 * arguments the call spells out, and an EXECUTE of SQL known only when it
 * runs is said, at that line too.  Lemmy's files `CALL
 * r.create_triggers('comment', $$ ... $$)`, whose EXECUTE of a template
 * makes a trigger function per table; xTuple's `SELECT
 * dropIfExists('FUNCTION', 'f(integer)')`, which EXECUTEs a DROP. */
typedef struct call_run {
	do_run run; /* first: do_show reads the session through it */
	const cgm_function *routine;
	int call_line;
	/* Its EXECUTEs of SQL known only when it runs: one message for the
	 * call, naming the first (a schema helper's every branch would
	 * otherwise say one per call). */
	int unknown;
	int first_unknown_line;
	const char *first_unknown;
} call_run;

static void call_apply(void *ctx, const char *sql, int line, bool guarded)
{
	(void)line;
	call_run *call = ctx;
	call->run.st->guarded += guarded;
	apply_sql_at(call->run.st, sql, call->call_line);
	call->run.st->guarded -= guarded;
}

static void call_unknown(void *ctx, const char *expr, int line)
{
	call_run *call = ctx;
	if (call->unknown++ == 0) {
		call->first_unknown_line = line;
		call->first_unknown = cgm_arena_printf(call->run.st->a, "%.200s%s", expr,
						       strlen(expr) > 200 ? "..." : "");
	}
}

static void say_unknown(call_run *call)
{
	if (!call->unknown)
		return;
	cgm_diagnostic *d = unknown_execute(call->run.st, call->call_line);
	if (call->unknown == 1)
		d->message = cgm_arena_printf(call->run.st->a,
					      "the %s of %s runs an EXECUTE (line %d of its body) of SQL known "
					      "only when it runs, not applied: %s",
					      call->routine->kind == CGM_KIND_PROCEDURE ? "CALL" : "call",
					      call->routine->id, call->first_unknown_line, call->first_unknown);
	else
		d->message = cgm_arena_printf(call->run.st->a,
					      "the %s of %s may run %d EXECUTEs of SQL known only when it runs, "
					      "not applied; the first (line %d of its body): %s",
					      call->routine->kind == CGM_KIND_PROCEDURE ? "CALL" : "call",
					      call->routine->id, call->unknown, call->first_unknown_line,
					      call->first_unknown);
}

/* An array element as array_out writes it: in double quotes (\ and "
 * escaped) when empty, NULL, or holding a brace, comma, quote, backslash
 * or blank. */
static void array_element(cgm_strbuf *out, const char *v)
{
	bool quote = !*v || strcasecmp(v, "null") == 0 || strpbrk(v, "{},\"\\ \t\n\r\v\f") != NULL;
	if (!quote) {
		cgm_strbuf_puts(out, v);
		return;
	}
	cgm_strbuf_putc(out, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			cgm_strbuf_putc(out, '\\');
		cgm_strbuf_putc(out, *v);
	}
	cgm_strbuf_putc(out, '"');
}

/* A constant argument's value as text ('x', 42, true, 'x'::regclass), or
 * NULL: an expression, a NULL, a named argument. */
static const char *argument_value(sql_state *st, const jd_node *arg)
{
	/* 'a' || 'b' of constants, as a long argument is written over
	 * lines (Evergreen's setup_delete_protect_rule calls). */
	const jd_node *op = jget(arg, "A_Expr");
	if (op) {
		const jd_node *names = jget(op, "name");
		const char *kind = jstr(op, "kind");
		if (!kind || strcmp(kind, "AEXPR_OP") != 0 || jd_size(names) != 1 ||
		    !jd_string_node(jd_at(names, 0)) || strcmp(jd_string_node(jd_at(names, 0)), "||") != 0)
			return NULL;
		const char *left = argument_value(st, jget(op, "lexpr"));
		const char *right = left ? argument_value(st, jget(op, "rexpr")) : NULL;
		return right ? cgm_arena_printf(st->a, "%s%s", left, right) : NULL;
	}
	const jd_node *c = jget(arg, "A_Const");
	const jd_node *array = jget(arg, "A_ArrayExpr");
	if (!c)
		c = jget(jget(jget(arg, "TypeCast"), "arg"), "A_Const");
	if (!c && !array)
		array = jget(jget(jget(arg, "TypeCast"), "arg"), "A_ArrayExpr");
	if (array) {
		/* ARRAY['a', 'b'] of constants: its text as array_out prints
		 * it, '{a,b}' ('{}' for ARRAY[]::text[]). */
		const jd_node *elements = jget(array, "elements");
		cgm_strbuf text = CGM_STRBUF_INIT;
		cgm_strbuf_putc(&text, '{');
		bool known = true;
		for (size_t i = 0; i < jd_size(elements) && known; i++) {
			const char *v = jget(jd_at(elements, i), "A_ArrayExpr") ? NULL
											: argument_value(st, jd_at(elements, i));
			known = v != NULL;
			if (known && i)
				cgm_strbuf_putc(&text, ',');
			if (known)
				array_element(&text, v);
		}
		cgm_strbuf_putc(&text, '}');
		const char *value = known ? cgm_arena_strdup(st->a, cgm_strbuf_cstr(&text)) : NULL;
		cgm_strbuf_free(&text);
		return value;
	}
	if (!c || jbool(c, "isnull"))
		return NULL;
	if (jget(c, "sval")) {
		const char *v = jstr(jget(c, "sval"), "sval");
		return literal_value(st, v ? v : "");
	}
	if (jget(c, "ival"))
		return cgm_arena_printf(st->a, "%d", jint(jget(c, "ival"), "ival"));
	if (jget(c, "fval"))
		return jstr(jget(c, "fval"), "fval");
	if (jget(c, "boolval"))
		return jbool(jget(c, "boolval"), "boolval") ? "true" : "false";
	return NULL;
}

/* Runs the routine st->fns[k] as a call with `args` (a FuncCall's) runs
 * it, when it is PL/pgSQL the files hold, or SQL (not BEGIN ATOMIC: a
 * wrapper such as audit-trigger's `audit_table(regclass)`, `SELECT
 * audit.audit_table($1, BOOLEAN 't', BOOLEAN 't')`). */
static void run_routine(sql_state *st, int k, const jd_node *args)
{
	const cgm_function *f = &st->fns[k];
	bool sql = f->language && strcmp(f->language, "sql") == 0 && !f->atomic_body;
	if (!f->source || !f->language || (strcmp(f->language, "plpgsql") != 0 && !sql) || st->do_depth >= 8 ||
	    (f->kind != CGM_KIND_PROCEDURE && f->kind != CGM_KIND_FUNCTION) ||
	    (f->result && strcmp(f->result, "trigger") == 0))
		return;
	if (st->do_depth == 0)
		st->routine_runs = 0;
	if (st->routine_runs++ >= CGM_MAX_ROUTINE_RUNS) {
		if (st->routine_runs == CGM_MAX_ROUTINE_RUNS + 1)
			diagnose(st, first_token(st),
				 "the calls of this statement run more than %d routines: %s and the rest are not "
				 "followed",
				 CGM_MAX_ROUTINE_RUNS, f->id);
		return;
	}
	const char **values = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(f->nargs ? f->nargs : 1));
	for (int i = 0; i < f->nargs && i < (int)jd_size(args); i++)
		values[i] = argument_value(st, jd_at(args, (size_t)i));
	/* A parameter the call leaves out has its default's value, when that
	 * is a constant (Evergreen's setup_delete_protect_rule('biblio',
	 * 'record_entry') builds its rule from t_pkey DEFAULT 'id'). */
	for (int i = (int)jd_size(args); i < f->nargs; i++) {
		const char *expr;
		size_t len;
		if (!cgm_argument_default(f->arguments, i, &expr, &len))
			continue;
		char *text = strndup(expr, len), *value = NULL;
		if (text && cgm_do_eval_value(text, &st->do_catalog, &value) > 0 && value)
			values[i] = cgm_arena_strdup(st->a, value);
		free(text);
		free(value);
	}
	/* A call run before with the same values, when nothing has changed
	 * since, that changed and said nothing, would again (pgTAP's
	 * has_function() calls ok() with values the files cannot tell, each
	 * of thousands of times). */
	cgm_strbuf key = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&key, "%d\x1f%lu\x1f%d\x1f%d", k, st->changes, st->do_depth, st->guarded);
	for (int i = 0; i < f->nargs; i++) {
		cgm_strbuf_putc(&key, '\x1f');
		if (values[i])
			cgm_strbuf_puts(&key, values[i]);
		else
			cgm_strbuf_putc(&key, '\x01');
	}
	bool ran_before = smap_get(&st->inert_calls, cgm_strbuf_cstr(&key)) >= 0;
	if (ran_before) {
		cgm_strbuf_free(&key);
		return;
	}
	unsigned long changes = st->changes;
	int ndiagnostics = st->model->ndiagnostics, unknown = st->do_unknown;
	call_run run = { .run = { .st = st }, .routine = f, .call_line = line_of(st, first_token(st)) };
	const bool procedure = f->kind == CGM_KIND_PROCEDURE;
	const cgm_do_session session = { .ctx = &run, .apply = call_apply, .show = do_show, .show_reset = do_show_reset,
					 .unknown = call_unknown, .catalog = &st->do_catalog,
					 .procedure_arguments = f->arguments ? f->arguments : "",
					 .function_result = procedure ? NULL : f->result ? f->result : "void",
					 .nargs = f->nargs, .argument_values = values,
					 .argument_names = f->argnames, .argument_types = f->argtypes,
					 .cache = st->do_cache ? st->do_cache : (st->do_cache = cgm_do_cache_new()) };
	const char *saved_within = st->do_within, *saved_kind = st->do_within_kind;
	/* A routine with a search_path of its own (SET clause) runs under
	 * it and gives the caller's back at its end, whatever it SETs. */
	const char **saved_path = st->path;
	int saved_npath = st->npath;
	if (f->npath >= 0)
		set_path(st, f->search_path, f->npath);
	st->do_within = f->id;
	st->do_within_kind = procedure ? "procedure " : "function ";
	st->do_depth++;
	if (sql)
		cgm_do_sql_body_run(f->source, &session);
	else
		cgm_do_block_run(f->source, &session);
	st->do_depth--;
	say_unknown(&run);
	st->do_within = saved_within;
	st->do_within_kind = saved_kind;
	if (f->npath >= 0) {
		st->path = saved_path;
		st->npath = saved_npath;
	}
	if (st->changes == changes && st->model->ndiagnostics == ndiagnostics && st->do_unknown == unknown &&
	    st->routine_runs <= CGM_MAX_ROUTINE_RUNS)
		smap_put(&st->inert_calls, cgm_arena_strdup(st->a, cgm_strbuf_cstr(&key)), 1);
	cgm_strbuf_free(&key);
}

/* The routine a FuncCall names with its arguments, or -1.  Named
 * arguments (`f(a => 1)`) are not matched to parameters: -1. */
static int called_routine(sql_state *st, const jd_node *call)
{
	const char *parts[3];
	int n = name_list(jget(call, "funcname"), parts, 3);
	const jd_node *args = jget(call, "args");
	if (n != 1 && n != 2)
		return -1;
	for (size_t i = 0; i < jd_size(args); i++)
		if (jget(jd_at(args, i), "NamedArgExpr"))
			return -1;
	return find_callee(st, n == 2 ? parts[0] : NULL, parts[n - 1], (int)jd_size(args), false);
}

static void apply_call(sql_state *st, const jd_node *stmt)
{
	jd_node *call = jget(stmt, "funccall"); /* a FuncCall field: no node name around it */
	int k = called_routine(st, call);
	if (k >= 0 && st->fns[k].kind == CGM_KIND_PROCEDURE)
		run_routine(st, k, jget(call, "args"));
}

/* The one function of `SELECT ... FROM f(...)`, which runs once whatever
 * the select list (pg_bitemporal's loader: `select * from
 * generate_ll_bitemporal_list_of_fields()`), or NULL: no WHERE, no other
 * FROM item, not LATERAL, not ROWS FROM (...) of several. */
static jd_node *from_function_call(const jd_node *stmt)
{
	jd_node *from = jget(stmt, "fromClause");
	jd_node *range = jget(jd_at(from, 0), "RangeFunction");
	jd_node *functions = jget(range, "functions");
	if (jd_size(from) != 1 || !range || jbool(range, "lateral") || jd_size(functions) != 1 ||
	    jget(stmt, "whereClause") || jget(stmt, "valuesLists") || jget(stmt, "larg") || jget(stmt, "withClause"))
		return NULL;
	return jget(jd_at(jget(jget(jd_at(functions, 0), "List"), "items"), 0), "FuncCall");
}

/* pg_dump's `SELECT pg_catalog.set_config('search_path', '', false);`,
 * and the PL/pgSQL functions a SELECT of no rows calls, or the one
 * function it reads FROM (run_routine). */
static void apply_select(sql_state *st, const jd_node *stmt)
{
	jd_node *targets = jget(stmt, "targetList");
	jd_node *from_call = from_function_call(stmt);
	if (from_call) {
		int k = called_routine(st, from_call);
		if (k >= 0 && st->fns[k].kind == CGM_KIND_FUNCTION)
			run_routine(st, k, jget(from_call, "args"));
	}
	/* A call per row of a query is not one the files can run. */
	bool once = !jget(stmt, "fromClause") && !jget(stmt, "whereClause") && !jget(stmt, "valuesLists") &&
		    !jget(stmt, "larg");
	for (size_t i = 0; i < jd_size(targets); i++) {
		jd_node *call = jget(jget(jget(jd_at(targets, i), "ResTarget"), "val"),
				    "FuncCall");
		const char *parts[2];
		int n = name_list(jget(call, "funcname"), parts, 2);
		if (n < 1)
			continue;
		if (strcmp(parts[n - 1], "set_config") != 0 || (n == 2 && strcmp(parts[0], "pg_catalog") != 0)) {
			int k = once ? called_routine(st, call) : -1;
			if (k >= 0 && st->fns[k].kind == CGM_KIND_FUNCTION)
				run_routine(st, k, jget(call, "args"));
			continue;
		}
		jd_node *args = jget(call, "args");
		const char *setting = jstr(jget(jget(jd_at(args, 0), "A_Const"), "sval"), "sval");
		jd_node *value = jget(jd_at(args, 1), "A_Const");
		if (setting && strcmp(setting, "search_path") == 0 && jget(value, "sval")) {
			const char *v = literal_value(st, jstr(jget(value, "sval"), "sval"));
			set_path_text(st, v ? v : "");
		}
	}
}

static void apply_statement(sql_state *st, const jd_node *wrapper)
{
	const char *kind;
	jd_node *stmt;
	jd_object_foreach(wrapper, kind, stmt)
	{
		st->ref_owner = NULL;
		if (strcmp(kind, "SelectStmt") != 0 && strcmp(kind, "InsertStmt") != 0 &&
		    strcmp(kind, "UpdateStmt") != 0 && strcmp(kind, "DeleteStmt") != 0)
			st->changes++;
		if (strcmp(kind, "CreateFunctionStmt") == 0) {
			apply_create_function(st, stmt);
		} else if (strcmp(kind, "DropStmt") == 0) {
			apply_drop(st, stmt);
		} else if (strcmp(kind, "AlterFunctionStmt") == 0) {
			apply_alter_function(st, stmt);
		} else if (strcmp(kind, "RenameStmt") == 0) {
			apply_rename(st, stmt);
		} else if (strcmp(kind, "AlterObjectSchemaStmt") == 0) {
			apply_set_schema(st, stmt);
		} else if (strcmp(kind, "CommentStmt") == 0) {
			apply_comment(st, stmt);
		} else if (strcmp(kind, "CreateSchemaStmt") == 0) {
			const char *name = jstr(stmt, "schemaname");
			if (!name) /* CREATE SCHEMA AUTHORIZATION role */
				name = jstr(jget(jget(stmt, "authrole"), "RoleSpec"), "rolename");
			if (!name)
				continue;
			if (schema_exists(st, name) && !jbool(stmt, "if_not_exists"))
				diagnose_existing(st, first_token(st), "schema \"%s\" already exists", name);
			smap_put(&st->schemas, cgm_arena_strdup(st->a, name), 1);
			/* Its elements are created in it. */
			jd_node *elts = jget(stmt, "schemaElts");
			const char **saved = st->path;
			int nsaved = st->npath;
			const char *only[] = { name };
			set_path(st, only, 1);
			for (size_t i = 0; i < jd_size(elts); i++)
				apply_statement(st, jd_at(elts, i));
			st->path = saved;
			st->npath = nsaved;
		} else if (strcmp(kind, "VariableSetStmt") == 0) {
			const char **path;
			int npath;
			if (sql_roles_apply_set(&st->roles, st->a, stmt)) {
				/* SET ROLE: who owns what follows; the path stays */
			} else if (search_path_setting(st, stmt, &path, &npath)) {
				if (npath < 0)
					path = (const char **)session_start_path(st, &npath);
				set_path(st, path, npath);
			}
		} else if (strcmp(kind, "AlterRoleSetStmt") == 0 || strcmp(kind, "AlterOwnerStmt") == 0 ||
			   strcmp(kind, "ReassignOwnedStmt") == 0) {
			apply_role_statement(st, kind, stmt);
		} else if (strcmp(kind, "AlterDatabaseSetStmt") == 0) {
			/* The database's own default, for the sessions after this
			 * one (pg_dump --create writes it; an extension may set it,
			 * as postgis_topology's AddToSearchPath does). */
			const char **path;
			int npath;
			if (search_path_setting(st, jget(stmt, "setstmt"), &path,
						&npath)) {
				st->db_path = NULL;
				st->ndb_path = 0;
				if (npath >= 0) {
					st->db_path = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(npath + 1));
					for (int k = 0; k < npath; k++)
						st->db_path[k] = cgm_arena_strdup(st->a, path[k]);
					st->ndb_path = npath;
				}
			}
		} else if (strcmp(kind, "DoStmt") == 0) {
			apply_do(st, stmt);
		} else if (strcmp(kind, "CallStmt") == 0) {
			apply_call(st, stmt);
		} else if (strcmp(kind, "CreateRoleStmt") == 0) {
			apply_role_attrs(st, jstr(stmt, "role"), jget(stmt, "options"));
		} else if (strcmp(kind, "AlterRoleStmt") == 0) {
			apply_role_attrs(st, jstr(jget(stmt, "role"), "rolename"), jget(stmt, "options"));
		} else if (strcmp(kind, "SelectStmt") == 0) {
			apply_select(st, stmt);
		} else if (strcmp(kind, "CreateStmt") == 0) {
			apply_create_table(st, stmt, "table");
		} else if (strcmp(kind, "CreateForeignTableStmt") == 0) {
			apply_create_table(st, jget(stmt, "base"), "foreign table");
		} else if (strcmp(kind, "ViewStmt") == 0) {
			apply_view(st, jget(stmt, "view"), jget(stmt, "query"), "view", jbool(stmt, "replace"),
				   jget(stmt, "aliases"), jget(stmt, "options"));
		} else if (strcmp(kind, "CreateTableAsStmt") == 0) {
			const char *objtype = jstr(stmt, "objtype");
			/* libpg_query writes the IntoClause bare, not as a node. */
			jd_node *into = jget(stmt, "into");
			if (jget(into, "IntoClause"))
				into = jget(into, "IntoClause");
			if (objtype && strcmp(objtype, "OBJECT_MATVIEW") == 0)
				apply_view(st, jget(into, "rel"), jget(stmt, "query"), "materialized view",
					   false, jget(into, "colNames"), NULL);
			else {
				const char *schema, *name;
				if (range_var(st, jget(into, "rel"), true, &schema, &name) &&
				    !find_table(st, schema, name))
					add_table(st, schema, name, "table");
			}
		} else if (strcmp(kind, "AlterTableStmt") == 0) {
			apply_alter_table(st, stmt);
		} else if (strcmp(kind, "CreateTrigStmt") == 0) {
			apply_create_trigger(st, stmt);
		} else if (strcmp(kind, "CreatePolicyStmt") == 0 || strcmp(kind, "AlterPolicyStmt") == 0) {
			apply_policy(st, stmt, strcmp(kind, "CreatePolicyStmt") == 0);
		} else if (strcmp(kind, "IndexStmt") == 0) {
			const char *schema, *table;
			if (!range_var(st, jget(stmt, "relation"), false, &schema, &table))
				continue;
			jd_node *params = jget(stmt, "indexParams");
			size_t nparams = jd_size(params);
			index_elem *elems = cgm_arena_alloc(st->a, sizeof(index_elem) * (nparams + 1));
			const char **colnames = cgm_arena_alloc(st->a, sizeof(char *) * (nparams + 1));
			for (size_t k = 0; k < nparams; k++) {
				jd_node *elem = jget(jd_at(params, k), "IndexElem");
				elems[k] = (index_elem){ jstr(elem, "name"), jget(elem, "opclass") };
				colnames[k] = index_column_name(elem);
			}
			unique_column_names(st, colnames, (int)nparams);
			/* CREATE INDEX without a name: DefineIndex's choice. */
			const char *idx = jstr(stmt, "idxname");
			if (!idx)
				idx = choose_index_name(st, schema, table, colnames, (int)nparams, "idx");
			smap_put(&st->relation_names, pair_key(st->a, schema, idx), 1);
			const char *object = cgm_arena_printf(st->a, "index %s",
							      relation_text(st, schema, idx));
			st->ref_owner = pair_key(st->a, schema, table);
			add_references(st, jget(stmt, "indexParams"), schema, table, "index", object);
			add_references(st, jget(stmt, "whereClause"), schema, table, "index", object);
			const char *fx = cgm_arena_printf(st->a, "index %s.%s",
							  cgm_quote_ident(st->a, schema),
							  cgm_quote_ident(st->a, idx));
			int first = st->neffects;
			add_effects(st, jget(stmt, "indexParams"), schema, table, CGM_VIA_INDEX, fx,
				    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, object);
			add_effects(st, jget(stmt, "whereClause"), schema, table, CGM_VIA_INDEX, fx,
				    CGM_EV_INSERT | CGM_EV_UPDATE, NULL, object);
			const char *am = jstr(stmt, "accessMethod");
			add_opclass_effects(st, schema, table, idx, am ? am : "btree", elems, (int)nparams,
					    false);
			mark_index_effects(st, first, idx, colnames, (int)nparams, "idx");
			mark_read_columns(st, first, params, jget(stmt, "whereClause"));
			/* On a partitioned table (not ONLY), each partition gets
			 * an index of its own. */
			if (jbool(jget(stmt, "relation"), "inh"))
				copy_index_to_partitions(st, schema, table, idx, 0);
		} else if (strcmp(kind, "CreateOpClassStmt") == 0) {
			apply_create_opclass(st, stmt);
		} else if (strcmp(kind, "AlterOpFamilyStmt") == 0) {
			apply_alter_opfamily(st, stmt);
		} else if (strcmp(kind, "RuleStmt") == 0) {
			const char *schema, *table;
			const char *rule = jstr(stmt, "rulename");
			if (!rule || !range_var(st, jget(stmt, "relation"), false, &schema, &table))
				continue;
			const char *ev = jstr(stmt, "event");
			unsigned events = !ev ? 0
					  : strcmp(ev, "CMD_INSERT") == 0 ? CGM_EV_INSERT
					  : strcmp(ev, "CMD_UPDATE") == 0 ? CGM_EV_UPDATE
					  : strcmp(ev, "CMD_DELETE") == 0 ? CGM_EV_DELETE
									  : 0;
			const char *fx = cgm_arena_printf(st->a, "rule %s on %s", cgm_quote_ident(st->a, rule),
							  relation_text(st, schema, table));
			/* The catalog files rules with views (pg_rewrite). */
			st->ref_owner = pair_key(st->a, schema, table);
			const char *ref = cgm_arena_printf(st->a, "rule %s on %s %s", rule,
							   relation_word(st, schema, table),
							   relation_text(st, schema, table));
			add_references(st, jget(stmt, "whereClause"), schema, table, "view", ref);
			add_references(st, jget(stmt, "actions"), schema, table, "view", ref);
			add_effects(st, jget(stmt, "whereClause"), schema, table, CGM_VIA_RULE, fx, events,
				    NULL, fx);
			add_effects(st, jget(stmt, "actions"), schema, table, CGM_VIA_RULE, fx, events,
				    NULL, fx);
			/* DO INSTEAD without a WHERE replaces the statement
			 * (rewriteHandler.c); a conditional one leaves it for
			 * the rows its condition does not take. */
			rule_action_effects(st, schema, table, fx, events,
					    jbool(stmt, "instead") && !jget(stmt, "whereClause"));
		} else if (strcmp(kind, "CreateEventTrigStmt") == 0) {
			const char *parts[3];
			int n = name_list(jget(stmt, "funcname"), parts, 3);
			int fn = n > 0 ? find_callee(st, n >= 2 ? parts[n - 2] : NULL, parts[n - 1], 0, false)
				       : -1;
			if (fn >= 0 && find_event_trigger(st, jstr(stmt, "trigname"))) {
				diagnose_existing(st, first_token(st), "event trigger \"%s\" already exists",
						  jstr(stmt, "trigname"));
			} else if (fn >= 0) {
				new_reference(st, fn, "event_trigger",
					      cgm_arena_printf(st->a, "event trigger %s",
							       cgm_quote_ident(st->a, jstr(stmt, "trigname"))));
				apply_create_event_trigger(st, stmt, fn);
			}
		} else if (strcmp(kind, "AlterEventTrigStmt") == 0) {
			apply_alter_event_trigger(st, stmt);
		} else if (strcmp(kind, "CreateExtensionStmt") == 0) {
			apply_create_extension(st, stmt);
		} else if (strcmp(kind, "CreateEnumStmt") == 0) {
			apply_type_name(st, jget(stmt, "typeName"));
			note_type_name(st, jget(stmt, "typeName"), 'e');
		} else if (strcmp(kind, "CreateRangeStmt") == 0) {
			apply_create_range(st, stmt);
		} else if (strcmp(kind, "AlterDomainStmt") == 0) {
			apply_alter_domain(st, stmt);
		} else if (strcmp(kind, "CreateDomainStmt") == 0) {
			apply_type_name(st, jget(stmt, "domainname"));
			apply_create_domain(st, stmt);
		} else if (strcmp(kind, "DefineStmt") == 0) {
			const char *k = jstr(stmt, "kind");
			if (k && strcmp(k, "OBJECT_TYPE") == 0) {
				apply_type_name(st, jget(stmt, "defnames"));
				apply_base_type(st, stmt);
			}
			else if (k && strcmp(k, "OBJECT_AGGREGATE") == 0)
				apply_create_aggregate(st, stmt);
			else if (k && strcmp(k, "OBJECT_OPERATOR") == 0)
				apply_create_operator(st, stmt);
		} else if (strcmp(kind, "CreateCastStmt") == 0) {
			apply_create_cast(st, stmt);
		} else if (strcmp(kind, "CompositeTypeStmt") == 0) {
			jd_node *rv = jget(stmt, "typevar");
			const char *schema = jstr(rv, "schemaname");
			const char *name = jstr(rv, "relname");
			if (!schema)
				schema = creation_schema(st);
			if (schema && name) {
				/* A composite type's fields serve %TYPE and attribute
				 * notation like columns; it is no relation. */
				note_type(st, cgm_quote_qualified(st->a, schema, name), 'c', NULL);
				sql_table *t = add_table(st, schema, name, "type");
				jd_node *cols = jget(stmt, "coldeflist");
				for (size_t i = 0; i < jd_size(cols); i++)
					apply_column(st, t, jget(jd_at(cols, i), "ColumnDef"));
			}
		}
		/* Everything else (grants, owners, sequences, data) changes no call. */
	}
}

/* ---- files: parse, split on error, apply ---- */

static void index_lines(sql_state *st)
{
	int cap = 1024, n = 0;
	int *starts = malloc(sizeof(int) * (size_t)cap);
	starts[n++] = 0;
	for (int i = 0; st->text[i]; i++)
		if (st->text[i] == '\n') {
			if (n == cap) {
				cap *= 2;
				starts = realloc(starts, sizeof(int) * (size_t)cap);
			}
			starts[n++] = i + 1;
		}
	st->line_starts = starts;
	st->nlines = n;
}

static void run_includes(sql_state *st, int upto);
static void apply_statements(sql_state *st, const jd_node *root, int base, int len);

/* Apply every statement of a parse tree whose offsets count from `base`.
 * The tree lives in an arena of its own, freed whole after. */
static void apply_tree(sql_state *st, const char *tree, int base, int len)
{
	cgm_arena *arena = cgm_arena_new();
	jd_node *root = jd_parse(arena, tree, strlen(tree));
	if (!root) /* nesting past CGM_MAX_JSON_NESTING */
		diagnose(st, sqlfile_original_offset(st->shrunk, base), "cannot read libpg_query output");
	apply_statements(st, root, base, len);
	cgm_arena_free(arena);
}

/* Apply the statements of a parse tree whose offsets count from `base`
 * (in the shrunk text; `len` ends the last statement). */
static void apply_statements(sql_state *st, const jd_node *root, int base, int len)
{
	jd_node *stmts = jget(root, "stmts");
	for (size_t i = 0; i < jd_size(stmts); i++) {
		jd_node *raw = jd_at(stmts, i);
		int loc = jint(raw, "stmt_location");
		int slen = jint(raw, "stmt_len");
		st->stmt_start = sqlfile_original_offset(st->shrunk, base + loc);
		st->stmt_end = sqlfile_original_offset(st->shrunk, slen ? base + loc + slen : base + len);
		if (st->next_include < st->nincludes) {
			/* psql runs an include where it stands. */
			int start = st->stmt_start, end = st->stmt_end;
			run_includes(st, first_token(st));
			st->stmt_start = start;
			st->stmt_end = end;
		}
		apply_statement(st, jget(raw, "stmt"));
	}
}

/* ---- parsing a big file on several threads ---- */

/* A big file is cut after statement-ending semicolons into chunks that
 * threads parse (each tree in an arena of its own); this thread applies
 * the chunks in order as they come, as one parse would, and frees each
 * tree once applied.  The parsers stay at most PARSE_AHEAD chunks ahead of
 * the one applied: the parse trees (several times the text in size) of a
 * whole file never live at once. */
#define CHUNK_BYTES (128 * 1024)
#define PARSE_AHEAD 8

typedef struct parse_chunk {
	int start, end;       /* in the shrunk text */
	jd_node *root;        /* NULL when it did not parse */
	cgm_arena *arena;     /* where root lives, freed once applied */
	bool parsed;          /* root is final */
} parse_chunk;

typedef struct parse_job {
	const char *text;     /* the shrunk text, read by every parser */
	parse_chunk *chunks;
	int n;
	int next;             /* the first chunk no parser took */
	int applied;          /* chunks applied (and freed) so far */
	bool stop;            /* a chunk did not parse: take no more */
	pthread_mutex_t lock;
	pthread_cond_t parsed; /* a chunk was parsed */
	pthread_cond_t room;   /* a chunk was applied, or stop */
} parse_job;

/* Parse chunk k (taken by the caller alone) outside the lock. */
static void parse_one(parse_job *job, int k)
{
	parse_chunk *c = &job->chunks[k];
	char *text = strndup(job->text + c->start, (size_t)(c->end - c->start));
	cgm_arena *arena = NULL;
	jd_node *root = NULL;
	if (text) {
		PgQueryParseResult r = pg_query_parse(text);
		free(text);
		if (!r.error) {
			arena = cgm_arena_new();
			root = jd_parse(arena, r.parse_tree, strlen(r.parse_tree));
		}
		pg_query_free_parse_result(r);
	}
	pthread_mutex_lock(&job->lock);
	c->arena = arena;
	c->root = root;
	c->parsed = true;
	pthread_cond_broadcast(&job->parsed);
	pthread_mutex_unlock(&job->lock);
}

/* The next chunk a parser may take, or -1 when none is left (or the job
 * stopped).  `wait`: block while the parsers are PARSE_AHEAD ahead.
 * Called with the lock held. */
static int take_chunk(parse_job *job, bool wait)
{
	for (;;) {
		if (job->stop || job->next >= job->n)
			return -1;
		if (job->next < job->applied + PARSE_AHEAD)
			return job->next++;
		if (!wait)
			return -1;
		pthread_cond_wait(&job->room, &job->lock);
	}
}

static void *parse_worker(void *arg)
{
	parse_job *job = arg;
	for (;;) {
		pthread_mutex_lock(&job->lock);
		int k = take_chunk(job, true);
		pthread_mutex_unlock(&job->lock);
		if (k < 0)
			return NULL;
		parse_one(job, k);
	}
}

/* Parse `text` (the shrunk file) in chunks on every core and apply it.
 * Returns -1, having applied nothing, when the file is too small to cut
 * or its first chunk does not parse; otherwise the offset up to which it
 * applied the file: `len`, or the start of the first chunk that did not
 * parse (a syntax error, or a cut inside a BEGIN ATOMIC body), from which
 * the caller takes the one-thread path, which finds the error's place. */
static int apply_parallel(sql_state *st, const char *text, int len)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores;
	if (nthreads < 2 || len < 2 * CHUNK_BYTES)
		return -1;
	int *starts, *ends;
	int n = sqlfile_split(&starts, &ends, text);
	if (n < 2) {
		if (n >= 0) {
			free(starts);
			free(ends);
		}
		return -1;
	}
	parse_chunk *chunks = calloc((size_t)n, sizeof(parse_chunk));
	int nchunks = 0, from = 0;
	for (int i = 0; chunks && i < n; i++) {
		int cut = ends[i] + (text[ends[i]] == ';');
		if (i == n - 1)
			cut = len;
		else if (cut - from < CHUNK_BYTES)
			continue;
		parse_chunk *c = &chunks[nchunks++];
		c->start = from;
		c->end = cut;
		from = cut;
	}
	free(starts);
	free(ends);
	if (!chunks)
		return -1;

	parse_job job = { .text = text, .chunks = chunks, .n = nchunks };
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.parsed, NULL);
	pthread_cond_init(&job.room, NULL);
	pthread_t threads[8];
	int started = 0;
	for (int t = 1; t < nthreads && t < nchunks; t++)
		if (pthread_create(&threads[started], NULL, parse_worker, &job) == 0)
			started++;
	int done = len;
	for (int k = 0; k < nchunks; k++) {
		/* Wait for chunk k, parsing the next ones meanwhile (this thread
		 * parses too, and alone when no thread could start). */
		pthread_mutex_lock(&job.lock);
		while (!chunks[k].parsed) {
			int take = take_chunk(&job, false);
			if (take >= 0) {
				pthread_mutex_unlock(&job.lock);
				parse_one(&job, take);
				pthread_mutex_lock(&job.lock);
			} else {
				pthread_cond_wait(&job.parsed, &job.lock);
			}
		}
		bool ok = chunks[k].root != NULL;
		if (!ok) {
			job.stop = true;
			pthread_cond_broadcast(&job.room);
		}
		pthread_mutex_unlock(&job.lock);
		if (!ok) {
			done = k == 0 ? -1 : chunks[k].start;
			break;
		}
		apply_statements(st, chunks[k].root, chunks[k].start, chunks[k].end - chunks[k].start);
		cgm_arena_free(chunks[k].arena);
		chunks[k].arena = NULL;
		pthread_mutex_lock(&job.lock);
		job.applied = k + 1;
		pthread_cond_broadcast(&job.room);
		pthread_mutex_unlock(&job.lock);
	}
	for (int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&job.room);
	pthread_cond_destroy(&job.parsed);
	pthread_mutex_destroy(&job.lock);
	for (int k = 0; k < nchunks; k++)
		cgm_arena_free(chunks[k].arena);
	free(chunks);
	return done;
}

/* The variables psql sets itself (when it connects, and after each
 * query): a file may use them with no \set, and cgmap, which connects to
 * nothing, does not know their values. */
static bool psql_sets_itself(const char *name, size_t len)
{
	static const char *const names[] = { "DBNAME", "USER", "HOST", "PORT", "ENCODING",
					      "VERSION", "VERSION_NAME", "VERSION_NUM",
					      "SERVER_VERSION_NAME", "SERVER_VERSION_NUM", "ROW_COUNT",
					      "SQLSTATE", "ERROR", "LAST_ERROR_MESSAGE",
					      "LAST_ERROR_SQLSTATE", "LASTOID", NULL };
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
			return true;
	return false;
}

/* The message of a parse error as psql shows it, with the file's line.
 * At a ':' that is a reference to a psql variable, the variable was not
 * set (a set one is substituted before parsing): the bare "syntax error at
 * or near ':'" is PostgreSQL's, but the cause is the missing value, so the
 * message names the variable and how to give it. */
static void parse_error(sql_state *st, const char *text, const PgQueryError *err, int base)
{
	int at = err->cursorpos > 0 ? base + err->cursorpos - 1 : base;
	int where = sqlfile_original_offset(st->shrunk, at);
	const char *c = text + at;
	if (c[0] == ':' && c[1] != ':') {
		char quote = c[1] == '\'' || c[1] == '"' ? c[1] : 0;
		const char *name = c + 1 + (quote != 0);
		size_t len = cgm_psql_name_length(name);
		if (len > 0 && (!quote || name[len] == quote)) {
			if (psql_sets_itself(name, len))
				diagnose(st, where,
					 "%s: psql variable \"%.*s\" is not set: psql sets it itself when "
					 "it connects, cgmap connects to nothing; give its value with --set "
					 "%.*s=VALUE",
					 err->message, (int)len, name, (int)len, name);
			else
				diagnose(st, where,
					 "%s: psql variable \"%.*s\" is not set: \\set it in the files or "
					 "give it with --set %.*s=VALUE (a value \\gset would take from a "
					 "query is not known before it runs)",
					 err->message, (int)len, name, (int)len, name);
			return;
		}
	}
	diagnose(st, where, "%s", err->message);
}

/* A file that does not parse whole: statements one by one (split at the
 * semicolons outside quotes), joining pieces that only parse together
 * (BEGIN ATOMIC bodies hold semicolons), so one bad statement loses
 * nothing else.  A piece past cgmap's limits (sqlprep.h) never reaches the
 * parser: its problem is the error of that statement. */
static void apply_pieces(sql_state *st, char *text, int from)
{
	int *starts, *ends;
	int n = sqlfile_split(&starts, &ends, text);
	if (n < 0) {
		diagnose(st, 0, "out of memory splitting the file");
		return;
	}
	int i = 0;
	while (i < n && starts[i] < from) /* applied already */
		i++;
	while (i < n) {
		int start = starts[i];
		bool applied = false, refused = false;
		cgm_sql_problem problem;
		PgQueryParseResult first = { 0 };
		for (int j = i; j < n && j < i + 64 && !applied && !refused; j++) {
			int end = ends[j] + (text[ends[j]] == ';');
			char saved = text[end];
			text[end] = '\0';
			if (!cgm_sql_check(text + start, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem)) {
				text[end] = saved;
				refused = true;
				break;
			}
			PgQueryParseResult r = pg_query_parse(text + start);
			text[end] = saved;
			if (!r.error) {
				apply_tree(st, r.parse_tree, start, end - start);
				pg_query_free_parse_result(r);
				i = j + 1;
				applied = true;
			} else if (j == i) {
				first = r;
			} else {
				pg_query_free_parse_result(r);
			}
		}
		if (refused) {
			diagnose(st, sqlfile_original_offset(st->shrunk, start + problem.offset), "%s",
				 problem.message);
			i++;
		} else if (!applied) {
			parse_error(st, text, first.error, start);
			i++;
		}
		if (first.error)
			pg_query_free_parse_result(first);
	}
	free(starts);
	free(ends);
}

/* A session's end: its temporary functions and tables are gone, as
 * they are from the database once psql has run the file. */
static void end_session(sql_state *st)
{
	for (int f = 0; f < st->nfns; f++)
		if (!st->dropped[f] && strcmp(st->fns[f].schema, "pg_temp") == 0)
			drop_function(st, f, true);
	for (int t = 0; t < st->ntables; t++)
		if (strcmp(st->tables[t].schema, "pg_temp") == 0)
			st->tables[t].dropped = true;
}

/* Apply one file.  A new file starts a new session (the default
 * search_path), an included one continues the including file's. */
static void apply_file(sql_state *st, const char *name, char *text, bool new_session)
{
	/* The current file's place, kept across an include. */
	const char *saved_file = st->file, *saved_text = st->text;
	int *saved_lines = st->line_starts, saved_nlines = st->nlines;
	const sqlfile_shrunk *saved_shrunk = st->shrunk;
	sqlfile_include *saved_includes = st->includes;
	int saved_ninc = st->nincludes, saved_next = st->next_include;

	/* psql's variables: a new run starts with --set's, an include goes
	 * on with the including file's. */
	if (new_session) {
		cgm_psql_vars_free(&st->vars);
		cgm_psql_vars_copy(&st->vars, &st->initial_vars);
	}
	cgm_psql_marks *saved_marks = st->marks, marks = { 0 };
	char *substituted = cgm_psql_substitute(text, &st->vars, &marks);
	st->marks = &marks;
	if (substituted)
		text = substituted;
	st->file = name;
	st->text = text;
	sqlfile_strip_psql(text, &st->includes, &st->nincludes);
	st->next_include = 0;
	index_lines(st);
	if (new_session) {
		int n;
		const char *const *path = session_start_path(st, &n);
		set_path(st, path, n);
		sql_roles_new_session(&st->roles);
	}
	sqlfile_shrunk shrunk;
	if (sqlfile_shrink(&shrunk, text) < 0) {
		diagnose(st, 0, "%s", cgm_error_message());
	} else {
		st->shrunk = &shrunk;
		int len = (int)strlen(shrunk.text);
		/* What PostgreSQL reads as one string, libpg_query too; a text
		 * past cgmap's limits goes statement by statement, so that only
		 * the statements past them are lost. */
		cgm_sql_blank_continuations(shrunk.text);
		cgm_sql_problem problem;
		int from;
		if (!cgm_sql_check(shrunk.text, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem)) {
			apply_pieces(st, shrunk.text, 0);
		} else if ((from = apply_parallel(st, shrunk.text, len)) < len) {
			/* The whole text, or what the threads left from a chunk that
			 * did not parse on its own, in one parse. */
			if (from < 0)
				from = 0;
			PgQueryParseResult rest = pg_query_parse(shrunk.text + from);
			if (!rest.error)
				apply_tree(st, rest.parse_tree, from, len - from);
			else
				apply_pieces(st, shrunk.text, from);
			pg_query_free_parse_result(rest);
		}
		run_includes(st, INT_MAX); /* the ones after the last statement */
		sqlfile_shrunk_free(&shrunk);
	}
	free(st->line_starts);
	sqlfile_includes_free(st->includes, st->nincludes);
	if (new_session)
		end_session(st);
	free(substituted);
	cgm_psql_marks_free(&marks);
	st->marks = saved_marks;

	st->file = saved_file;
	st->text = saved_text;
	st->line_starts = saved_lines;
	st->nlines = saved_nlines;
	st->shrunk = saved_shrunk;
	st->includes = saved_includes;
	st->nincludes = saved_ninc;
	st->next_include = saved_next;
}

/* Whether the real path of `path` lies below one of the folders given. */
static bool under_roots(const sql_state *st, const char *path)
{
	char *real = realpath(path, NULL);
	bool under = false;
	for (int i = 0; real && i < st->nroots && !under; i++)
		under = sqlfile_path_under(real, st->roots[i]);
	free(real);
	return under;
}

/* Whether `path`, which does not resolve, names no file in a folder below
 * the paths given: then saying it does not exist tells nothing of the
 * machine's other files. */
static bool missing_under_roots(const sql_state *st, const char *path)
{
	char *real = realpath(path, NULL);
	if (real || errno != ENOENT) {
		free(real);
		return false;
	}
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	bool under = dir && under_roots(st, dir);
	free(dir);
	return under;
}

/* False when `path` is a file read before (the same device and inode
 * under any name): every file is read once, so links and includes cannot
 * make the work grow beyond the files' size.  Then *first is the name it
 * was read under, and *by_file, *by_line the include that read it (NULL,
 * 0: it was given to --sql).  `include_line` is the line of the include
 * reading `path` now in st->file, 0 for a file given to --sql. */
static bool first_reading(sql_state *st, const char *path, int include_line, const char **first,
			  const char **by_file, int *by_line)
{
	struct stat sb;
	*first = *by_file = NULL;
	*by_line = 0;
	if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return true; /* reading it says why it cannot be read */
	const char *name = cgm_arena_strdup(st->a, path);
	*first = sqlfile_ids_add(&st->files_read, sb.st_dev, sb.st_ino, name);
	if (!*first) {
		if (include_line > 0) {
			if (st->nincluded == st->cap_included) {
				int cap = st->cap_included ? st->cap_included * 2 : 16;
				st->included = cgm_arena_grow(st->a, st->included, (size_t)st->cap_included,
							      (size_t)cap, sizeof(*st->included));
				st->cap_included = cap;
			}
			st->included[st->nincluded++] =
				(struct included_read){ name, st->file, include_line };
		}
		return true;
	}
	for (int i = 0; i < st->nincluded; i++)
		if (st->included[i].name == *first) {
			*by_file = st->included[i].file;
			*by_line = st->included[i].line;
		}
	return false;
}

/* Run the includes that stand before offset `upto` of the current file. */
static void run_includes(sql_state *st, int upto)
{
	while (st->next_include < st->nincludes && st->includes[st->next_include].offset < upto) {
		const sqlfile_include *inc = &st->includes[st->next_include++];
		const char *path = inc->path;
		if (inc->relative && path[0] != '/') {
			/* \ir: next to the including file. */
			const char *slash = strrchr(st->file, '/');
			if (slash)
				path = cgm_arena_printf(st->a, "%.*s/%s", (int)(slash - st->file), st->file, path);
		}
		if (st->depth >= 16) {
			diagnose(st, inc->offset, "includes nested too deep at \"%s\"", path);
			continue;
		}
		/* Untrusted SQL must not read the machine's other files: not a
		 * byte of one reaches the snapshot, not even in a message. */
		if (!st->opts->allow_include_outside && !under_roots(st, path)) {
			if (missing_under_roots(st, path))
				diagnose(st, inc->offset, "include of \"%s\" failed: no such file",
					 path);
			else
				diagnose(st, inc->offset,
					 "include of \"%s\" refused: it lies outside the paths given "
					 "to --sql (--allow-include-outside reads it)",
					 path);
			continue;
		}
		const char *first, *by_file;
		int by_line;
		if (!first_reading(st, path, line_of(st, inc->offset), &first, &by_file, &by_line)) {
			/* Where it was read: the reader finds it there. */
			const char *as = strcmp(first, path) != 0
						 ? cgm_arena_printf(st->a, " as \"%s\"", first)
						 : "";
			if (by_file)
				diagnose(st, inc->offset,
					 "include of \"%s\" skipped: read already%s, by the include at "
					 "%s:%d (each file is read once)",
					 path, as, by_file, by_line);
			else if (strcmp(first, path) != 0)
				diagnose(st, inc->offset,
					 "include of \"%s\" skipped: the same file as \"%s\", read already "
					 "(each file is read once)",
					 path, first);
			else
				diagnose(st, inc->offset,
					 "include of \"%s\" skipped: a file given to --sql, read already "
					 "(each file is read once)",
					 path);
			continue;
		}
		char *text;
		size_t len;
		if (sqlfile_read(&text, &len, path) < 0) {
			diagnose(st, inc->offset, "%s", cgm_error_message());
			continue;
		}
		/* The included file starts with the variables as they were
		 * where it is included (what it sets does not come back: the
		 * including file's text is substituted already). */
		const cgm_psql_vars *at = cgm_psql_marks_at(st->marks, (size_t)inc->offset);
		if (at) {
			cgm_psql_vars_free(&st->vars);
			cgm_psql_vars_copy(&st->vars, at);
		}
		st->depth++;
		apply_file(st, cgm_arena_strdup(st->a, path), text, false);
		st->depth--;
		free(text);
	}
}

/* The types a one-argument call may be a cast to, and the column names it
 * may be attribute notation for, as the live source lists them: every
 * pg_catalog type, the types the files made, and the distinct columns of
 * their relations and composite types. */
/* pg_catalog's and information_schema's relations with their typed
 * columns, and information_schema's domains, as a new database has them:
 * queries of the catalog are typed as in the database. */
static int add_catalog_relations(sql_state *st)
{
	cgm_relation *rels;
	cgm_type_info *infos;
	int nrels, ninfos;
	int rc = cgm_catalog_relations_read(&rels, &nrels, &infos, &ninfos, st->a);
	if (rc < 0)
		return rc;
	smap_put(&st->schemas, "information_schema", 1);
	for (int i = 0; i < nrels; i++) {
		sql_table *t = add_table(st, rels[i].schema, rels[i].name,
					 kind_of_relkind(rels[i].relkind));
		t->catalog = true;
		for (int c = 0; c < rels[i].ncolumns; c++)
			add_column(st, t, rels[i].columns[c].name, rels[i].columns[c].type);
	}
	for (int i = 0; i < ninfos; i++)
		*cgm_model_add_type_info(st->model) = infos[i];
	return 0;
}

static void add_types_and_columns(sql_state *st)
{
	int ncat;
	const char *const *cat = cgm_catalog_type_names(&ncat);
	for (int i = 0; i < ncat; i++) {
		cgm_relation *t = cgm_model_add_type(st->model);
		t->schema = "pg_catalog";
		t->name = cat[i];
	}
	for (int i = 0; i < st->types.size; i++) {
		const char *key = st->types.keys[i];
		if (!key || st->types.values[i] != 1)
			continue;
		const char *sep = strchr(key, '\x1f');
		cgm_relation *t = cgm_model_add_type(st->model);
		t->schema = cgm_arena_strndup(st->a, key, (size_t)(sep - key));
		t->name = sep + 1;
	}
	smap seen = { 0 };
	for (int i = 0; i < st->ntables; i++) {
		const sql_table *t = &st->tables[i];
		/* The database's list leaves the catalog's columns out too. */
		for (int c = 0; !t->dropped && !t->catalog && c < t->ncolumns; c++)
			if (smap_get(&seen, t->columns[c].name) < 0) {
				smap_put(&seen, t->columns[c].name, 1);
				cgm_model_add_column(st->model, t->columns[c].name);
			}
	}
	smap_free(&seen);
}

static const char *joined_paths(cgm_arena *a, const char *const *paths, int npaths)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	for (int i = 0; i < npaths; i++) {
		if (i)
			cgm_strbuf_puts(&buf, ", ");
		cgm_strbuf_puts(&buf, paths[i]);
	}
	const char *s = cgm_arena_strdup(a, cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return s;
}

/* Hand the mapped functions to the pool: a definition already extracted
 * (unchanged since) keeps its sites, the others are queued now. */
static void settle_extraction(sql_state *st, const int *origin, int first)
{
	cgm_model *model = st->model;
	cgm_extract_pool_drain(st->pool);
	for (int m = first; m < model->nfunctions; m++) {
		cgm_function *f = &model->functions[m];
		if (f->builtin)
			continue;
		const cgm_function *done = st->spec[origin[m - first]];
		if (done && same_extraction_input(done, f)) {
			f->sites = done->sites;
			f->site_exprs = done->site_exprs;
			f->nsites = done->nsites;
			f->errors = done->errors;
			f->nerrors = done->nerrors;
			f->analysed = done->analysed;
			f->extract_pending = done->extract_pending;
			f->line_count = done->line_count;
			f->body_hash = done->body_hash;
		} else {
			cgm_extract_pool_submit(st->pool, f, true);
		}
	}
}

static int load_files(sql_state *st, const char *const *paths, int npaths);

/* A --schema or --exclude-schema pattern that matches no schema the files
 * made (or the system's) is an error (cgm_schema_patterns_check). */
static int check_schema_patterns(sql_state *st)
{
	const cgm_source_options *opts = st->opts;
	if (opts->nschemas == 0 && opts->nexclude == 0)
		return 0;
	int cap = st->schemas.size + st->nfns + 2, n = 0;
	const char **names = cgm_xcalloc((size_t)cap, sizeof(char *));
	names[n++] = "pg_catalog";
	names[n++] = "information_schema";
	for (int i = 0; i < st->schemas.size; i++)
		if (st->schemas.keys[i] && st->schemas.values[i] == 1)
			names[n++] = st->schemas.keys[i];
	for (int i = 0; i < st->nfns; i++)
		if (!st->dropped[i])
			names[n++] = st->fns[i].schema;
	int rc = cgm_schema_patterns_check(opts, names, n, "the SQL files");
	free(names);
	return rc;
}

static void add_file_diagnostic(cgm_model *model, const char *file, const char *message)
{
	cgm_diagnostic *d = cgm_model_add_diagnostic(model);
	d->file = file;
	d->line = 0;
	d->message = message;
}

/* The folders includes may read from: each folder given, the folder of
 * each file given, the current folder for standard input. */
static int find_roots(sql_state *st, const char *const *paths, int npaths)
{
	st->roots = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)npaths);
	for (int i = 0; i < npaths; i++) {
		const char *dir = paths[i];
		struct stat sb;
		if (strcmp(dir, "-") == 0) {
			dir = ".";
		} else if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			const char *slash = strrchr(dir, '/');
			dir = !slash ? "." : slash == dir ? "/" : cgm_arena_strndup(st->a, dir, (size_t)(slash - dir));
		}
		char *real = realpath(dir, NULL);
		if (!real)
			return cgm_error(CGM_ESOURCE, "cannot read folder \"%s\": %s", dir, strerror(errno));
		st->roots[st->nroots++] = cgm_arena_strdup(st->a, real);
		free(real);
	}
	return 0;
}

int cgm_source_sql_load(cgm_model *model, const char *const *paths, int npaths,
			const cgm_source_options *opts)
{
	return cgm_source_sql_stream(model, paths, npaths, opts, NULL);
}

int cgm_source_sql_stream(cgm_model *model, const char *const *paths, int npaths,
			  const cgm_source_options *opts, cgm_extract_pool *pool)
{
	cgm_source_options no_filter = { 0 };
	if (!opts)
		opts = &no_filter;
	if (npaths < 1)
		return cgm_error(CGM_EUSAGE, "no SQL file given");
	sql_state st = { .model = model, .a = model->arena, .opts = opts, .pool = pool };
	st.do_catalog = (cgm_do_catalog){ .ctx = &st, .has_extension = files_have_extension,
					  .server_major = CGM_FILES_SERVER_MAJOR };
	int rc = 0;
	for (int i = 0; i < opts->npsql_vars && rc == 0; i++)
		rc = cgm_psql_vars_assign(&st.initial_vars, opts->psql_vars[i]);
	char session_path[1024];
	int given = cgm_pgoptions_setting(session_path, sizeof session_path, opts->session_options,
					  "search_path");
	if (given < 0) {
		rc = cgm_error(CGM_EUSAGE, "the search_path in the session options (PGOPTIONS) is "
				 "longer than %zu bytes", sizeof session_path - 1);
	} else if (given > 0) {
		const char *names[64];
		int n = parse_path_text(&st, session_path, names, 64);
		st.session_path = cgm_arena_alloc(st.a, sizeof(char *) * (size_t)(n + 1));
		memcpy(st.session_path, names, sizeof(char *) * (size_t)n);
		st.nsession_path = n;
	}
	if (rc == 0)
		rc = load_files(&st, paths, npaths);
	if (st.do_unknown > 0) {
		cgm_diagnostic *d = cgm_model_add_diagnostic(model);
		d->file = st.do_unknown_file;
		d->line = st.do_unknown_line;
		d->message = cgm_arena_printf(st.a,
					      "%d EXECUTE%s in DO blocks and routines the files call run%s SQL "
					      "known only when %s: what %s make%s is not in the map (--verbose "
					      "lists %s)",
					      st.do_unknown, st.do_unknown == 1 ? "" : "s",
					      st.do_unknown == 1 ? "s" : "", st.do_unknown == 1 ? "it runs" : "they run",
					      st.do_unknown == 1 ? "it" : "they", st.do_unknown == 1 ? "s" : "",
					      st.do_unknown == 1 ? "it" : "each");
	}
	cgm_psql_vars_free(&st.initial_vars);
	cgm_psql_vars_free(&st.vars);
	cgm_do_cache_free(st.do_cache);
	/* The speculative copies may still be in the pool's hands when the
	 * files stopped on an error (a --schema typo): let it finish them. */
	if (pool)
		cgm_extract_pool_drain(pool);
	sqlfile_ids_free(&st.files_read);
	smap *maps[] = { &st.schemas, &st.types, &st.table_index, &st.constraints, &st.relation_names,
			 &st.policy_cmds, &st.effect_owners.head, &st.ref_owners.head,
			 &st.fn_index, &st.extensions, &st.ext_fns, &st.builtin_names,
			 &st.own_defaults, &st.inert_calls };
	for (size_t k = 0; k < sizeof(maps) / sizeof(maps[0]); k++)
		smap_free(maps[k]);
	cgm_opclass_set_free(&st.opclasses);
	sql_roles_free(&st.roles);
	free(st.effect_owners.next);
	free(st.ref_owners.next);
	free(st.fns);
	free(st.dropped);
	free(st.made_in_block);
	for (int k = 0; k < st.nspecs; k++)
		free(st.specs[k]);
	free(st.specs);
	free(st.spec);
#ifdef __GLIBC__
	/* The files' texts and parse trees are gone: give their pages back
	 * (glibc keeps freed memory of the heap otherwise; a map's peak comes
	 * later, with resolution, and would count them). */
	malloc_trim(0);
#endif
	return rc;
}

static int load_files(sql_state *st, const char *const *paths, int npaths)
{
	cgm_model *model = st->model;
	const cgm_source_options *opts = st->opts;
	const char **files;
	int nfiles;
	sqlfile_note *notes;
	int nnotes;
	int rc = sqlfile_collect(&files, &nfiles, st->a, paths, npaths, opts->allow_include_outside,
				 &notes, &nnotes);
	if (rc < 0)
		return rc;
	for (int i = 0; i < nnotes; i++)
		add_file_diagnostic(model, notes[i].file, notes[i].message);
	if ((rc = find_roots(st, paths, npaths)) < 0)
		return rc;

	/* Builtins first: DDL resolution (triggers, references) needs them. */
	int nbuiltin = cgm_builtins_load(model);
	if (nbuiltin < 0)
		return nbuiltin;
	st->nbuiltin = model->nfunctions;
	/* Typing and resolution need the builtin operators and casts. */
	if ((rc = cgm_builtin_operators_load(model)) < 0 || (rc = cgm_builtin_casts_load(model)) < 0)
		return rc;
	for (int i = 0; i < model->nfunctions; i++)
		smap_put(&st->builtin_names, model->functions[i].name, 1);
	/* What every new database has: schema public, and plpgsql, an
	 * extension whose functions (its handlers) are in pg_catalog. */
	smap_put(&st->schemas, "public", 1);
	smap_put(&st->extensions, "plpgsql", 1);
	if ((rc = add_catalog_relations(st)) < 0)
		return rc;

	for (int i = 0; i < nfiles; i++) {
		char *text;
		size_t len;
		const char *first, *by_file;
		int by_line;
		if (!first_reading(st, files[i], 0, &first, &by_file, &by_line)) {
			/* Said of the file given (no line: the whole file), and
			 * where it was read instead. */
			const char *as = strcmp(first, files[i]) != 0
						 ? cgm_arena_printf(st->a, " as \"%s\"", first)
						 : "";
			const char *msg =
				by_file ? cgm_arena_printf(st->a,
							   "given to --sql but read already%s by the "
							   "include at %s:%d: not read again (each file "
							   "is read once)",
							   as, by_file, by_line)
				: *as
					? cgm_arena_printf(st->a,
							   "the same file as \"%s\", read already: not "
							   "read again (each file is read once)",
							   first)
					: "given to --sql twice: read once";
			add_file_diagnostic(model, files[i], msg);
			continue;
		}
		if ((rc = sqlfile_read(&text, &len, files[i])) < 0)
			return rc;
		apply_file(st, strcmp(files[i], "-") == 0 ? "<stdin>" : files[i], text, true);
		free(text);
	}

	if ((rc = check_schema_patterns(st)) < 0)
		return rc;

	/* The extensions the files made and did not drop, sorted, as the live
	 * source reads pg_extension. */
	model->extensions = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)(st->extensions.used + 1));
	model->nextensions = 0;
	for (int i = 0; i < st->extensions.size; i++)
		if (st->extensions.keys[i] && st->extensions.values[i] == 1)
			model->extensions[model->nextensions++] = cgm_arena_strdup(model->arena, st->extensions.keys[i]);
	qsort(model->extensions, (size_t)model->nextensions, sizeof(char *), compare_names);

	/* The functions that survived, in the model like the live source's:
	 * the out-of-scope ones only for resolution. */
	int first = model->nfunctions;
	int *origin = cgm_xcalloc((size_t)st->nfns + 1, sizeof(int)); /* model index - first -> fns index */
	for (int i = 0; i < st->nfns; i++) {
		if (st->dropped[i])
			continue;
		origin[model->nfunctions - first] = i;
		cgm_function *f = cgm_model_add_function(model);
		*f = st->fns[i];
		if (!cgm_schema_selected(opts, f->schema)) {
			f->builtin = true;
			f->source = NULL;
			f->body_version = NULL;
			f->comment = NULL;
		} else if (f->from_extension && opts && opts->include_extensions &&
			   strcmp(f->schema, "pg_catalog") != 0) {
			/* --include-extensions: an extension's functions are the
			 * graph's, as the live source maps them; the files have
			 * none of their bodies (C, or the list's SQL ones). */
			f->builtin = false;
		}
	}
	for (int k = 0; k < st->ntriggers; k++)
		if (!st->triggers[k].dropped)
			*cgm_model_add_trigger(model) = st->triggers[k].trigger;
	for (int k = 0; k < st->nrefs; k++)
		if (!st->refs[k].dropped)
			*cgm_model_add_reference(model) = st->refs[k].ref;
	finish_effects(st, model);
	for (int t = 0; t < st->ntables; t++)
		if (!st->tables[t].dropped) {
			const sql_table *tab = &st->tables[t];
			cgm_relation *r = cgm_model_add_relation(model);
			r->schema = tab->schema;
			r->name = tab->name;
			r->relkind = relkind_of(tab->kind);
			r->ncolumns = tab->ncolumns;
			r->columns = tab->columns;
			r->nkey_columns = tab->nkey_columns;
			r->key_columns = tab->key_columns;
			r->owner = tab->owner;
			r->force_rls = tab->force_rls;
			r->security_invoker = tab->security_invoker;
			int b = tab->base_key ? smap_get(&st->table_index, tab->base_key) : -1;
			if (b >= 0 && !st->tables[b].dropped) {
				r->base_schema = st->tables[b].schema;
				r->base_name = st->tables[b].name;
				r->nupdatable = tab->nupdatable;
				r->updatable_columns = tab->updatable_columns;
				r->base_columns = tab->base_columns;
			}
		}
	add_types_and_columns(st);
	add_operators_casts_aggregates(st);
	if (st->pool)
		settle_extraction(st, origin, first);
	free(origin);
	/* Each owner's sessions' path, by the roles' settings as the files
	 * leave them: PostgreSQL reads them at each login. */
	for (int m = first; m < model->nfunctions; m++) {
		cgm_function *f = &model->functions[m];
		int n = 0;
		const char *const *path = f->builtin ? NULL : sql_roles_path(&st->roles, f->owner, &n);
		if (path) {
			f->owner_path = cgm_role_search_path(st->a, path, n, f->owner);
			f->nowner_path = n;
		}
	}

	model->source.kind = "sql";
	model->source.name = joined_paths(st->a, paths, npaths);
	model->source.server_version = NULL;
	/* A new session's effective path: current_schemas(true) of the
	 * database (its ALTER DATABASE SET search_path, else a fresh one's):
	 * pg_catalog first unless named, "$user" and schemas that do not exist
	 * naming none. */
	int nwant;
	const char *const *want = session_start_path(st, &nwant);
	const char **dpath = cgm_arena_alloc(st->a, sizeof(char *) * (size_t)(nwant + 1));
	int nd = 0;
	bool catalog_named = false;
	for (int k = 0; k < nwant; k++)
		catalog_named |= strcmp(want[k], "pg_catalog") == 0;
	if (!catalog_named)
		dpath[nd++] = "pg_catalog";
	for (int k = 0; k < nwant; k++) {
		bool seen = false;
		for (int j = 0; j < nd && !seen; j++)
			seen = strcmp(dpath[j], want[k]) == 0;
		if (!seen && (strcmp(want[k], "pg_catalog") == 0 || smap_get(&st->schemas, want[k]) == 1))
			dpath[nd++] = want[k];
	}
	model->source.default_search_path = dpath;
	model->source.npath = nd;
	if (opts->stamp) {
		char buf[32];
		time_t now = time(NULL);
		strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		model->source.mapped_at = cgm_arena_strdup(st->a, buf);
	}
	return 0;
}
