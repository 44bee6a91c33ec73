/*
 * cgmap/model.h - the in-memory call graph every pipeline stage shares.
 *
 * In:  filled by a source (live catalog or SQL files), then by extract,
 *      resolve, merge and analyze, or read back whole from a JSON snapshot.
 * Out: read by every emitter (JSON, DOT, HTML, reports, diff).
 * Memory: a cgm_model owns one arena; every string and array hanging off the
 *      model lives in it and is freed at once by cgm_model_free().  Nothing
 *      here is freed on its own.  One exception: edge_order, an edge order a
 *      caller of several writers made for them (malloc'd, the caller's).
 */
#ifndef CGMAP_MODEL_H
#define CGMAP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmap/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CGM_SNAPSHOT_FORMAT 2

typedef enum {
	CGM_KIND_FUNCTION = 0,
	CGM_KIND_PROCEDURE,
	CGM_KIND_AGGREGATE,
	CGM_KIND_WINDOW
} cgm_kind;

/* The enums stored in every site and edge are one byte each (GCC and
 * Clang's packed enums: the same type and values, no code changes): a map
 * at 100,000 functions holds 1.7 million sites and 1.9 million edges. */
#define CGM_PACKED_ENUM __attribute__((packed))

/* How a caller makes PostgreSQL run a callee: the mechanism of an edge.
 * The names (cgm_via_name) are the snapshot's; new values go at the end. */
typedef enum CGM_PACKED_ENUM {
	CGM_VIA_CALL = 0,      /* direct call (including PERFORM, CALL) */
	CGM_VIA_LITERAL,       /* inside constant EXECUTE SQL */
	CGM_VIA_TRIGGER,       /* DML firing a trigger */
	CGM_VIA_DYNAMIC,       /* observed from a dynamic EXECUTE site */
	CGM_VIA_VIEW,          /* a function a view read by the statement calls */
	CGM_VIA_POLICY,        /* a row-level security policy's USING / WITH CHECK */
	CGM_VIA_DEFAULT,       /* a column default of an INSERT (or UPDATE ... DEFAULT) */
	CGM_VIA_GENERATED,     /* a generated column's expression */
	CGM_VIA_CHECK,         /* a CHECK constraint */
	CGM_VIA_DOMAIN,        /* a domain's CHECK constraint on a column's type */
	CGM_VIA_TRIGGER_WHEN,  /* a trigger's WHEN condition */
	CGM_VIA_RULE,          /* a rewrite rule */
	CGM_VIA_INDEX,         /* an index expression or partial-index predicate */
	CGM_VIA_CASCADE,       /* a foreign key's ON DELETE/UPDATE action on another table */
	CGM_VIA_EVENT_TRIGGER, /* an event trigger fired by DDL */
	CGM_VIA_OPERATOR,      /* the function behind an operator */
	CGM_VIA_CAST,          /* the function behind a cast */
	CGM_VIA_AGGREGATE,     /* a support function of an aggregate or window function */
	CGM_VIA_PARTITION_KEY  /* a partitioned table's key expression: routing a row,
	                        * checking a partition's constraint */
} cgm_via;
#define CGM_VIA_COUNT (CGM_VIA_PARTITION_KEY + 1)

/* What made a call site. */
typedef enum CGM_PACKED_ENUM {
	CGM_SITE_CALL = 0,     /* function call inside an expression or query */
	CGM_SITE_PERFORM,      /* PERFORM f(...) */
	CGM_SITE_CALL_STMT,    /* CALL p(...) */
	CGM_SITE_TRIGGER,      /* INSERT/UPDATE/DELETE/TRUNCATE on a table with triggers */
	CGM_SITE_EXEC_LITERAL, /* call found inside the constant SQL of an EXECUTE */
	CGM_SITE_DYNAMIC,      /* EXECUTE whose SQL cannot be known statically */
	CGM_SITE_RELATION,     /* a statement reading or writing a relation (name, events,
	                        * columns): its targets are what PostgreSQL runs on its
	                        * behalf (views, defaults, checks, policies, ...) */
	CGM_SITE_DDL,          /* a DDL statement; name is its command tag ("CREATE TABLE"):
	                        * its targets are the event triggers it fires */
	CGM_SITE_OPERATOR,     /* an operator; name is its symbol, schema as written in
	                        * OPERATOR(s.op); nargs 1 (prefix) or 2 operands */
	CGM_SITE_CAST          /* a cast; name is the target type (canonical), nargs 1 and
	                        * argtypes[0] the source type when known */
} cgm_site_kind;

/* What resolution made of a site. */
typedef enum CGM_PACKED_ENUM {
	CGM_RES_UNRESOLVED = 0, /* not resolved yet */
	CGM_RES_RESOLVED,       /* exactly one target */
	CGM_RES_AMBIGUOUS,      /* several candidates, all linked */
	CGM_RES_MISSING,        /* no function of that name and shape exists */
	CGM_RES_BUILTIN,        /* a pg_catalog function (no edge unless asked) */
	CGM_RES_NONE,           /* nothing to resolve: dynamic site, DML without triggers */
	CGM_RES_NOT_UNIQUE      /* PostgreSQL refuses the call as "not unique": functions of
	                         * one schema take the same arguments there (the targets
	                         * name them; no edge) */
} cgm_resolution;

/* DML events, as bits: also the events a trigger fires on. */
enum {
	CGM_EV_INSERT = 1 << 0,
	CGM_EV_UPDATE = 1 << 1,
	CGM_EV_DELETE = 1 << 2,
	CGM_EV_TRUNCATE = 1 << 3,
	CGM_EV_SELECT = 1 << 4,   /* a read: only relation sites, never a trigger's event */
	CGM_EV_REFRESH = 1 << 5,  /* REFRESH MATERIALIZED VIEW: its query runs again */
	/* How a relation site's statement names its table, never a trigger's
	 * event: */
	CGM_EV_ONLY = 1 << 6,     /* UPDATE, DELETE, TRUNCATE ONLY t: neither the tables
	                           * inheriting from t nor its partitions */
	CGM_EV_CASCADE = 1 << 7,  /* TRUNCATE ... CASCADE: the tables whose foreign keys
	                           * reference t too, and theirs in turn */
	CGM_EV_REWRITE = 1 << 8,  /* ALTER TABLE that may rewrite t, REINDEX, CLUSTER:
	                           * its indexes are built again, their expressions
	                           * and predicates evaluated for every row */
	CGM_EV_ANALYZE = 1 << 9,  /* ANALYZE t: its index expressions evaluated on the
	                           * rows sampled */
	CGM_EV_VALIDATE = 1 << 10, /* ALTER TABLE t VALIDATE CONSTRAINT: the checks the
	                           * site's `columns` name run on every row */
	CGM_EV_ATTACH = 1 << 11   /* ALTER TABLE t ATTACH PARTITION: t's partition keys
	                           * run on every row of the table attached */
};

/* What few sites have: a statement's events and columns (relation and
 * trigger sites), an EXECUTE's text, named arguments, and the mechanism
 * and object of each target (relation, DDL, operator and cast sites).  A
 * map at 100,000 functions holds 1.7 million sites, most of them plain
 * calls with none of it; a site points to its own (cgm_site.rare) once one
 * of these is set.  Read them through cgm_site_get_rare (zeros without). */
typedef struct cgm_site_rare {
	unsigned events;        /* CGM_SITE_TRIGGER, CGM_SITE_RELATION: CGM_EV_* of the statement */
	int ncolumns;           /* CGM_SITE_TRIGGER, CGM_SITE_RELATION: the columns an INSERT
	                         * lists or an UPDATE sets (columns); 0/NULL when all or unknown */
	const char **columns;   /* ncolumns entries */
	int nleading;           /* CGM_SITE_RELATION: an INSERT without a column list gives
	                         * the table's first nleading columns (resolution takes
	                         * their names from the relation); 0 unknown */
	int nreads;             /* CGM_SITE_RELATION read (SELECT): the columns of the */
	const char **reads;     /* relation the statement may read (nreads, possibly
	                         * none); NULL when all or unknown.  A view read runs
	                         * only the functions of its output columns read, and
	                         * of its other clauses (cgm_viewcols_*, relfx.c) */
	const char *text;       /* CGM_SITE_DYNAMIC: the EXECUTE expression text */
	const char **argnames;  /* the site's nargs entries, NULL entry for a positional
	                         * argument; NULL when every argument is positional */
	cgm_via *target_via;    /* the site's ntargets mechanisms, or NULL: every target's
	                         * is the site kind's (call, dynamic_literal, trigger) */
	const char **target_object; /* ntargets objects ("view app.v"), NULL entries allowed;
	                         * NULL array when target_via is NULL */
	int64_t runs;           /* CGM_SITE_DYNAMIC: times the statement finished at runtime
	                         * against the mapped body (cgmap_trace 1.4), called a
	                         * function or not; 0 also when unknown (model->has_site_runs) */
	const char *requires_extension; /* the site runs only when this extension is
	                         * installed: it stands in an IF whose condition finds it
	                         * in pg_extension (extguard.h); kept only on a missing
	                         * callee's site, whose handles_missing then says whether
	                         * the database lacks the extension */
} cgm_site_rare;

/* One call site in one function body.  Names are as PostgreSQL folds them
 * (unquoted identifiers lower-cased), schema NULL when unqualified. */
typedef struct cgm_site {
	/* Numbers first, then the one-byte enums and flags, pointers after:
	 * 16 bytes before the pointers, 64 in all. */
	int line;               /* 1-based line within the function body (prosrc) */
	int nargs;
	int ntargets;
	cgm_site_kind kind;
	cgm_resolution resolution;
	bool via_literal : 1;   /* found in the constant SQL of an EXECUTE */
	bool variadic_call : 1; /* last argument written as VARIADIC arr */
	bool handles_missing : 1; /* in the body of a PL/pgSQL block whose EXCEPTION
	                         * clause names undefined_function: a callee that does
	                         * not exist is an error the function expects (PostGIS's
	                         * postgis_full_version() and its optional raster) */
	const char *stmt;       /* PL/pgSQL statement kind ("assign", "perform", ...) or "sql" */
	const char *schema;     /* callee schema as written, or NULL */
	const char *name;       /* callee name as written; for triggers the table */
	const char **argtypes;  /* nargs entries, canonical type or NULL when unknown;
	                         * "unknown" for an untyped string literal */
	int *targets;           /* indexes into model->functions; a function may repeat
	                         * when target_via/target_object tell its targets apart */
	cgm_site_rare *rare;    /* events, columns, text, argnames, target_via and
	                         * target_object; NULL when it has none (cgm_site_rare_of) */
} cgm_site;

/* A call of a function that does not exist (CGM_RES_MISSING) ... that the
 * caller is not ready for: a defect, counted and reported as missing; and
 * one a block around it expects (handles_missing: its EXCEPTION clause
 * names undefined_function), listed apart, not a defect. */
static inline bool cgm_site_missing(const cgm_site *s)
{
	return s->resolution == CGM_RES_MISSING && !s->handles_missing;
}
static inline bool cgm_site_missing_handled(const cgm_site *s)
{
	return s->resolution == CGM_RES_MISSING && s->handles_missing;
}

/* The rare fields of a site, for reading: all zero/NULL without. */
extern const cgm_site_rare cgm_site_rare_none;
static inline const cgm_site_rare *cgm_site_get_rare(const cgm_site *s)
{
	return s->rare ? s->rare : &cgm_site_rare_none;
}
/* ... and for writing: the site's own, allocated zeroed in `arena` the
 * first time (the arena the site's other data lives in). */
cgm_site_rare *cgm_site_rare_of(cgm_arena *arena, cgm_site *s);
/* How a dynamic site's SQL runs, for its text: "EXECUTE", or "FETCH FROM"
 * for a FETCH or MOVE of a refcursor parameter (the query a caller opened). */
static inline const char *cgm_dynamic_site_verb(const cgm_site *s)
{
	return s->name && s->name[0] == 'F' && s->name[1] == 'E' ? "FETCH FROM" : "EXECUTE";
}
/* A site with no targets (nor their mechanisms and objects). */
static inline void cgm_site_clear_targets(cgm_site *s)
{
	s->ntargets = 0;
	s->targets = NULL;
	if (s->rare) {
		s->rare->target_via = NULL;
		s->rare->target_object = NULL;
	}
}

/* What typing reads of a site and no output does: the expressions
 * extraction recorded, kept beside the sites (cgm_function.site_exprs,
 * entry i for site i) from extraction to resolution only, so that the
 * sites a map keeps carry no room for them. */
typedef struct cgm_site_exprs {
	const struct cgm_expr *const *argexprs; /* nargs entries or NULL: each argument
	                         * as written (cgmap/exprtype.h), typed at resolution;
	                         * NULL entries unknown; not kept in snapshots */
	const struct cgm_expr *coerce_to; /* CGM_SITE_CAST PostgreSQL makes by itself (an
	                         * assignment, RETURN, SELECT INTO, a column value): an
	                         * expression of the target type, typed at resolution
	                         * (src/coerce.c), then name; NULL for a written cast */
	unsigned ddl_facts;     /* CGM_SITE_DDL: CGM_DDL_* bits, what the statement
	                         * cannot do (cgm_ddl_facts) */
	bool attribute;         /* a call in attribute notation, `row.name` (rawtree.h):
	                         * a call only when row's type has no such column */
	bool runtime_typed;     /* a call in the SQL of a dynamic EXECUTE with a part
	                         * known only at run time among its arguments: linked
	                         * only when one function fits whatever its type is */
	int rewrite_group;      /* CGM_SITE_DDL, and a REWRITE relation site: not 0 when
	                         * the statement rewrites the table only if an ADD
	                         * COLUMN's default, the sites of default_of this
	                         * group, calls a volatile function (resolution
	                         * decides, resolve.c's volatile_groups) */
	int default_of;         /* a site in such an ADD COLUMN default: its group */
	bool column_type;       /* CGM_SITE_CAST of default_of's group: the value of
	                         * the column ADD COLUMN adds becoming of its user
	                         * type, whose domain constraints (if any) make
	                         * PostgreSQL rewrite the table and check each row */
	bool type_default;      /* such a column_type site of a column without a
	                         * DEFAULT: the domain's own default fills it */
	uint64_t valued_columns; /* CGM_SITE_RELATION: bit i set when the statement gives
	                         * column i (of the first 64 it lists) a value whose cast
	                         * into the column is a site of its own (coerce.h), which
	                         * runs a domain's checks only when the value is not of
	                         * the domain already; the relation's `via domain` effect
	                         * is then left to it (relfx.h) */
} cgm_site_exprs;

/* What an ALTER statement's subcommands cannot do, which decides whether
 * sql_drop and table_rewrite event triggers may fire for it (relfx.h). */
enum {
	CGM_DDL_DROPS_NOTHING = 1 << 0,
	CGM_DDL_REWRITES_NOTHING = 1 << 1
};

/* A parse failure of one body: the function stays, marked. */
typedef struct cgm_parse_error {
	int line;               /* 1-based line within the body, 0 when unknown */
	const char *message;
} cgm_parse_error;

/* What the runtime evidence allows cgmap to say of a function that was
 * never called and that no root reaches (src/verdict.c, docs/reports.md).
 * The names (cgm_verdict_name) are the snapshot's. */
typedef enum {
	CGM_VERDICT_NONE = 0,         /* alive (called or reachable), or no runtime data */
	CGM_VERDICT_DEAD,             /* enough evidence, traceable, and no dynamic site can reach it */
	CGM_VERDICT_UNOBSERVED,       /* the window or the calls observed are too few to tell */
	CGM_VERDICT_UNTRACEABLE,      /* its calls cannot be seen in the mode the data was taken in */
	CGM_VERDICT_DYNAMIC_REACHABLE /* a possible target of a dynamic SQL site */
} cgm_verdict;

/* The runtime evidence of the whole model: filled by merge from each
 * source (src/verdict.c), completed by analyze; kept in the snapshot. */
typedef struct cgm_evidence {
	const char *since;          /* earliest window start, ISO 8601 UTC, or NULL */
	const char *until;          /* latest window end, or NULL */
	int64_t window_seconds;     /* the longest window of one source; -1 unknown */
	int nservers;               /* distinct servers (system identifier, port) */
	const char **servers;
	int ndatabases;             /* distinct server/database pairs */
	const char **databases;
	int64_t calls;              /* calls observed in all (user functions) */
	const char *trace_track;    /* cgmap_trace.track of the traced sources: "all",
	                             * "plpgsql" (the weaker wins), or NULL: no tracer */
	const char *track_functions;/* track_functions of the statistics: "all", "pl",
	                             * or NULL: no statistics */
	int64_t min_window_seconds; /* what analyze took as enough (--min-window) */
	int64_t min_calls;          /* (--min-calls) */
	int64_t lost_records;       /* call records of dropped functions the tracer removed in
	                             * the window (cgmap_trace_info().stale_removed): their calls
	                             * are missing, so nothing is enough for "dead" while > 0 */
	int64_t lost_to_full_table; /* edges the tracer evicted, or calls it could not record,
	                             * its table full, in sources whose statistics do not count
	                             * every function's calls: missing too, so nothing is
	                             * enough for "dead" while > 0 */
	bool enough;                /* window and calls are enough for "dead" */
} cgm_evidence;

/* Runtime figures (zero when nothing was observed). */
typedef struct cgm_runtime_stats {
	int64_t calls;
	double total_ms;
	double self_ms;
} cgm_runtime_stats;

/* cgmap_trace 1.3 figures merged from the runtime sources (docs/runtime.md,
 * "Call paths, shapes and timeline"), summed over sources by identity. */
typedef struct cgm_call_path {
	int nframes;
	const char **frames;       /* function ids from the entry point (frames[0]) to the
	                            * function called; "..." for frames cut for depth */
	int *lines;                /* lines[i]: line of frames[i - 1] that called frames[i];
	                            * 0 for frames[0] and for the marker */
	cgm_runtime_stats stats;
	double min_ms, max_ms;     /* least and greatest inclusive time of one call */
} cgm_call_path;

typedef struct cgm_shape_edge {
	const char *caller, *callee;
	int site_line;
	bool dynamic;
} cgm_shape_edge;

/* One distinct set of edges that top-level calls of `entry` exercised. */
typedef struct cgm_call_shape {
	const char *entry;
	int nedges;
	cgm_shape_edge *edges;     /* sorted: caller, callee, line, dynamic */
	int64_t calls;
} cgm_call_shape;

/* A function's calls and exclusive time in one time bucket. */
typedef struct cgm_time_bucket {
	const char *function;
	const char *start;         /* ISO 8601 UTC */
	int64_t calls;
	double self_ms;
} cgm_time_bucket;

/* The most branches for another server version one body is said to have
 * (cgm_function.other_version_lines). */
#define CGM_VERBRANCH_MAX 64

typedef struct cgm_function {
	/* Each group's pointers first, its numbers and flags after, paired so
	 * that no field pads (a map holds 100,000 functions; src/model.c
	 * asserts the size). */
	const char *id;            /* regprocedure text with an empty search_path */
	const char *schema;
	const char *name;
	const char *identity_args; /* "integer, text" as in the id */
	const char *arguments;     /* pg_get_function_arguments: names, modes, defaults */
	const char *result;        /* pg_get_function_result, or NULL */
	const char *language;
	const char *comment;       /* COMMENT ON FUNCTION, or NULL */
	const char *source;        /* the body (prosrc, or the BEGIN ATOMIC text), or NULL */
	size_t source_at;          /* a snapshot read with CGM_SNAPSHOT_READ_SOURCES_LATER
	                            * (cgmap/pipeline.h): where the body's JSON string
	                            * starts in the file's text, 0 when it has none */
	size_t source_len;         /* ... and the body's length in bytes */
	uint64_t source_hash;      /* when not 0, cgm_hash_words(CGM_FNV1A_OFFSET, source,
	                            * its length) | 1 (cgmap/hash.h), set by the snapshot
	                            * reader, which has the body at hand: the site's
	                            * page keys read it instead of the body */
	cgm_kind kind;
	int line_count;            /* lines in source */
	int file_line;             /* SQL-file mode: line of CREATE in file */
	int nowner_path;           /* owner_path's entries (below: no padding here) */
	const char *file;          /* SQL-file mode: file of the definition, else NULL */
	const char *body_hash;     /* hash of the normalised body, hex */
	const char *body_version;  /* exact version of the body as PostgreSQL stores it
	                            * (cgmap/bodyver.h), or NULL when unknown (no body,
	                            * a BEGIN ATOMIC body): what cgmap_trace records */

	/* Resolution inputs. */
	int nargs;                 /* input arguments (IN, INOUT, VARIADIC) */
	int ndefaults;             /* trailing input arguments with defaults */
	const char **argtypes;     /* nargs canonical type names (format_type) */
	const char **argnames;     /* nargs names, NULL entry when unnamed */
	const char *out_name;      /* its one OUT, INOUT or TABLE parameter's name, or NULL
	                            * (get_func_result_name): its column's name in FROM */
	const char *variadic_elem; /* element type of the VARIADIC array, or NULL */
	bool variadic;             /* last input argument is VARIADIC */
	bool atomic_body;          /* source is a SQL-standard BEGIN ATOMIC ... END body */
	int npath;
	const char **search_path;  /* its own SET search_path, or NULL (npath -1) */
	const char **owner_path;   /* what its owner's sessions get, for a function
	                            * without its own: the owner role's ALTER ROLE
	                            * [IN DATABASE] SET search_path, "$user" made the
	                            * owner's name; NULL when the owner has none or
	                            * is unknown */
	const char *owner;         /* the owning role, or NULL when unknown */
	const int *other_version_lines; /* the line ranges of its branches for another
	                            * server version, whose calls are left out
	                            * (verbranch.h): NULL, or their count n (at most
	                            * CGM_VERBRANCH_MAX), then n first and last lines */

	bool builtin;              /* lives in pg_catalog: resolution only */
	bool analysed;             /* plpgsql or sql whose body was extracted */
	bool is_trigger;           /* returns trigger / event_trigger */
	bool security_definer;     /* SECURITY DEFINER: runs as its owner */
	bool from_extension;
	bool extract_pending;      /* handed to a deferring extraction pool: resolution
	                            * extracts the body, resolves its sites and keeps
	                            * only what the outputs read (never in snapshots) */
	char volatility;           /* pg_proc.provolatile: 'i', 's' or 'v' (CREATE FUNCTION's
	                            * IMMUTABLE, STABLE, VOLATILE, the default); 0 unknown
	                            * (a pg_catalog function of the shipped list) */

	int nsites;
	int nerrors;
	cgm_site *sites;
	cgm_site_exprs *site_exprs; /* nsites entries beside sites, or NULL when no site has
	                            * any: set by extraction, read by resolution, dropped
	                            * with the parse of a body extracted there (never in
	                            * snapshots) */
	cgm_parse_error *errors;

	/* Filled by merge / analyze. */
	cgm_runtime_stats runtime;
	const char *kept;          /* the configuration keeps it (cgmap/config.h): the
	                            * reason; analyze makes it a root */
	const char *confidence;    /* dead only: "high", "medium" or "low" */
	bool observed_entry;       /* called from a client statement at runtime */
	bool referenced;           /* a catalog object or trigger refers to it */
	bool root;
	bool reachable;
	bool dead;                 /* verdict == CGM_VERDICT_DEAD */
	bool cold;
	cgm_verdict verdict;
	int scc;                   /* id of its recursive component, -1 when none */
} cgm_function;

/* Edge provenance bits. */
enum {
	CGM_EDGE_STATIC = 1 << 0,
	CGM_EDGE_OBSERVED = 1 << 1,
	CGM_EDGE_DECLARED = 1 << 2 /* with STATIC: a call the project's configuration
	                            * declares (a dynamic site's target, cgmap/config.h) */
};


/* What few edges carry: runtime figures and the evidence of merge and of
 * the configuration (at 100,000 functions a map holds 1.9 million edges,
 * most of them static calls with none of it).  An edge points to its own
 * (cgm_edge.rare, in the model's arena) once one of these is set; read
 * them through the accessors below, which answer for an edge without. */
typedef struct cgm_edge_rare {
	cgm_runtime_stats runtime;
	const char **caller_bodies; /* the versions of `from`'s body its calls were
	                       * observed against (cgmap/bodyver.h), sorted, distinct;
	                       * none when unknown */
	const char *declared; /* CGM_EDGE_DECLARED: the reason the configuration gives, or "" */
	int ncaller_bodies;   /* caller_bodies entries */
	bool earlier_body;    /* observed (some of its calls) against an earlier body of
	                       * `from` than the mapped one: matched by callee, not line */
} cgm_edge_rare;

typedef struct cgm_edge {
	/* Numbers first, then the one-byte fields, pointers after: 16 bytes
	 * before the pointers, 40 in all. */
	int from, to;         /* indexes into model->functions */
	int nlines;           /* lines entries */
	uint8_t provenance;   /* CGM_EDGE_* */
	cgm_via via;
	bool ambiguous;       /* one of several candidates of a site */
	const char *object;   /* the object of the mechanism ("view app.v_orders",
	                       * "check app.orders.amount_positive"), or NULL for calls;
	                       * edges are one per (from, to, via, object) */
	int *lines;           /* sorted, distinct call-site lines in `from` */
	cgm_edge_rare *rare;  /* runtime figures, caller bodies, earlier_body, declared;
	                       * NULL when it has none (cgm_edge_rare_of) */
} cgm_edge;

/* The rare fields of an edge, for reading: all zero (no calls, no caller
 * bodies, not declared) when it has none. */
extern const cgm_edge_rare cgm_edge_rare_none;
static inline const cgm_edge_rare *cgm_edge_get_rare(const cgm_edge *e)
{
	return e->rare ? e->rare : &cgm_edge_rare_none;
}
static inline const cgm_runtime_stats *cgm_edge_runtime(const cgm_edge *e)
{
	return &cgm_edge_get_rare(e)->runtime;
}
/* ... and for writing: the edge's own, allocated zeroed in `arena` (the
 * model's) the first time. */
cgm_edge_rare *cgm_edge_rare_of(cgm_arena *arena, cgm_edge *e);

/* A table trigger (live catalog or CREATE TRIGGER). */
typedef struct cgm_trigger {
	const char *table_schema;
	const char *table_name;
	const char *name;
	unsigned events;      /* CGM_EV_* */
	int function;         /* index into model->functions, -1 when unknown */
	const char *function_id;
	bool enabled;
	int ncolumns;         /* UPDATE OF columns: an UPDATE fires it only when it sets */
	const char **columns; /* one of them (or sets unknown columns); 0/NULL: any */
	bool row;             /* FOR EACH ROW: PostgreSQL clones it onto every partition,
	                       * so a statement naming a partition runs it too (read by
	                       * resolution only; not in snapshots, which read false) */
} cgm_trigger;

/* How an effect of a relation acts: it runs a function, or carries the
 * statement on to another relation, whose own effects then run
 * (cgmap/relfx.h closes over these). */
typedef enum {
	CGM_REACH_FUNCTION = 0, /* runs `function` */
	CGM_REACH_VIEW,         /* a view reads `target`: its read effects run, each
	                         * under its own mechanism and object */
	CGM_REACH_PARTITION,    /* a partition of a partitioned table: its triggers run */
	CGM_REACH_CASCADE,      /* a foreign key's ON DELETE/UPDATE action: `target_events`
	                         * on the referencing table `target`, whose effects run
	                         * as via cascade with this effect's object */
	CGM_REACH_RULE          /* a rule's action: `target_events` (target_columns) on the
	                         * relation `target`, whose effects run as via rule with
	                         * this effect's object */
} cgm_reach;

/* One thing PostgreSQL runs on behalf of a statement on a relation (a
 * view's function, a default, a CHECK, a policy, a trigger's WHEN, ...), as
 * a source reads it from the catalog or the DDL.  Triggers themselves stay
 * in model->triggers. */
typedef struct cgm_effect {
	const char *schema;   /* the relation it belongs to, as stored */
	const char *relation;
	cgm_reach reach;
	cgm_via via;          /* CGM_REACH_FUNCTION: the mechanism; else view, trigger
	                       * (partition) or cascade */
	const char *object;   /* "check app.orders.amount_positive", names quoted as needed */
	unsigned events;      /* CGM_EV_* of the statements that run it */
	int ncolumns;         /* via default: an INSERT runs it only when its column list */
	const char **columns; /* leaves the column out; via view (events SELECT): a read runs
	                       * it only when it reads one of these output columns of the
	                       * view (viewcols.h); otherwise an UPDATE runs it only when
	                       * it sets one of them (or unknown columns); 0/NULL: always */
	const char *function_id; /* CGM_REACH_FUNCTION: the function run */
	int function;         /* index into model->functions, -1 (cgm_model_link) */
	const char *target_schema;   /* other reaches: the relation carried on to */
	const char *target_relation;
	unsigned target_events;      /* CGM_REACH_CASCADE: DELETE or UPDATE there */
	int ntarget_columns;         /* CGM_REACH_CASCADE with UPDATE: the columns it sets */
	const char **target_columns;
	bool target_defaults;        /* CGM_REACH_CASCADE: ON ... SET DEFAULT, which sets
	                              * them to their defaults: those run too */
	bool instead;                /* CGM_REACH_RULE: an unconditional DO INSTEAD rule,
	                              * which replaces the statement: for `events`, nothing
	                              * else of the relation runs (its triggers, checks,
	                              * a view's automatic update) but the defaults an
	                              * INSERT fills in first.  DO INSTEAD NOTHING has
	                              * no target (target_relation NULL) */
	int nreads;                  /* CGM_REACH_VIEW: the columns of `target` the view reads */
	const char **reads;          /* (cgmap/viewcols.h): reads[i] when the view's column */
	const char **read_by;        /* read_by[i] is read (NULL: on every read); reads[i]
	                              * NULL: every column.  reads NULL: every column of it
	                              * on every read (unknown).  Its `columns`: the view's
	                              * columns whose reading reads it (0: every read) */
	const char *note;     /* a condition of its own, or NULL ("roles without BYPASSRLS") */
} cgm_effect;

/* An event trigger (pg_event_trigger, CREATE EVENT TRIGGER): DDL sites fire it. */
typedef struct cgm_event_trigger {
	const char *name;
	const char *event;    /* ddl_command_start, ddl_command_end, sql_drop, table_rewrite */
	int ntags;            /* WHEN TAG IN (...), upper-case; 0/NULL: every command */
	const char **tags;
	bool enabled;
	const char *function_id;
	int function;         /* index into model->functions, -1 (cgm_model_link) */
} cgm_event_trigger;

/* A catalog object that refers to a function. */
typedef struct cgm_reference {
	int function;         /* index into model->functions, -1 when unknown */
	const char *function_id;
	const char *object_kind; /* "view", "default", "constraint", "trigger", "policy",
	                          * "index", "operator", "aggregate", "cast", ... */
	const char *object;   /* the object's description */
} cgm_reference;

/* A column of a relation or composite type, in attribute order. */
typedef struct cgm_column {
	const char *name;
	const char *type;     /* canonical format_type text (with typmod), NULL when unknown */
} cgm_column;

/* A relation (table, view, foreign table, composite type): lets an
 * unqualified table be found through the search_path like PostgreSQL does,
 * and gives the types of its columns.  Builtin relations (pg_catalog,
 * information_schema) are listed too. */
typedef struct cgm_relation {
	const char *schema;
	const char *name;
	char relkind;         /* pg_class.relkind: 'r', 'p', 'v', 'm', 'f', 'c'; 0 unknown */
	int ncolumns;
	cgm_column *columns;  /* NULL when unknown */
	int nkey_columns;     /* a partitioned table's key columns (an UPDATE setting one
	                       * may move rows to another partition); -1 unknown (a key
	                       * expression, or a source that does not say) */
	const char **key_columns;
	const char *owner;    /* the owning role; NULL in SQL files for the session's own
	                       * role (no SET ROLE), or unknown */
	bool force_rls;       /* FORCE ROW LEVEL SECURITY: policies apply to its owner too */
	bool security_invoker; /* a view WITH (security_invoker): its tables are read
	                        * and written with the invoking role's rights */
	/* A view PostgreSQL 15 updates by itself (rewriteHandler.c's
	 * view_query_is_auto_updatable, src/viewupd.c): the one relation its
	 * query selects from, NULL when the view is not automatically updatable
	 * (or no view); its updatable columns and the base column each is. */
	const char *base_schema;
	const char *base_name;
	int nupdatable;
	const char **updatable_columns; /* the view's names */
	const char **base_columns;      /* the base relation's, in the same order */
} cgm_relation;

/* An operator (pg_operator): typing needs its result, an edge its function. */
typedef struct cgm_operator {
	const char *schema;
	const char *name;     /* the symbol, e.g. "===" */
	const char *left;     /* canonical operand types; left NULL for a prefix operator */
	const char *right;
	const char *result;
	const char *function_id; /* oprcode as a function id, NULL when none */
	int function;         /* index into model->functions, -1 when unknown (cgm_model_link) */
	bool builtin;         /* pg_catalog's */
} cgm_operator;

/* What overload resolution knows of a type beyond its name (pg_type),
 * for the types outside pg_catalog: a value of a domain is coerced as one
 * of its base type, and a type whose kind is known takes no implicit cast
 * pg_cast does not list. */
typedef struct cgm_type_info {
	const char *name;     /* canonical (format_type) */
	const char *base;     /* a domain's base type, canonical; NULL otherwise */
	char kind;            /* pg_type.typtype: 'b' base, 'd' domain, 'e' enum,
			       * 'c' composite, 'r' range, 'm' multirange, 'p' pseudo */
	char category;        /* pg_type.typcategory, 0 when unknown */
	bool preferred;       /* pg_type.typispreferred */
	char constrained;     /* a domain: 'y' when it has a CHECK or NOT NULL of its
			       * own, 'n' when none, 0 when not known (its domains
			       * over domains: cgm_type_domain_constrained) */
} cgm_type_info;

/* A CHECK constraint of a domain that calls a function: it runs wherever
 * a value becomes of the domain, or of a domain over it (domaincheck.h). */
typedef struct cgm_domain_check {
	const char *type;        /* the domain it is a constraint of, canonical */
	const char *object;      /* "domain app.d.constraint", quoted as PostgreSQL quotes */
	const char *function_id; /* the function it calls, as a function id */
	int function;            /* index into model->functions, -1 (cgm_model_link) */
} cgm_domain_check;

/* A function the DEFAULT of a domain calls: a column of the domain added
 * with no DEFAULT of its own takes it (ALTER TABLE ... ADD COLUMN).  A
 * domain made over another without a DEFAULT copies the base's. */
typedef struct cgm_domain_default {
	const char *type;        /* the domain, canonical */
	const char *object;      /* "default of domain app.d", quoted as PostgreSQL quotes */
	const char *function_id; /* the function it calls, as a function id */
	int function;            /* index into model->functions, -1 (cgm_model_link) */
} cgm_domain_default;

/* A cast (pg_cast). */
typedef struct cgm_cast {
	const char *source;   /* canonical type names */
	const char *target;
	char context;         /* 'i' implicit, 'a' assignment, 'e' explicit only */
	char method;          /* 'f' function, 'b' binary coercible, 'i' I/O conversion */
	const char *function_id; /* castfunc as a function id, NULL when none */
	int function;         /* index into model->functions, -1 (cgm_model_link) */
	bool builtin;         /* both types and the function are pg_catalog's */
} cgm_cast;

/* The support functions of an aggregate (pg_aggregate). */
typedef struct cgm_aggregate {
	const char *aggregate_id;
	int aggregate;        /* index into model->functions, -1 (cgm_model_link) */
	int nsupport;
	const char **support_roles; /* "transition", "final", "combine", "serialize",
	                             * "deserialize", "moving transition",
	                             * "moving inverse", "moving final" */
	const char **support_ids;
	int *support;         /* indexes into model->functions, -1 (cgm_model_link) */
} cgm_aggregate;

/* A problem that belongs to no single function: an SQL file that does not
 * parse, an unknown OID in a runtime log, ... */
typedef struct cgm_diagnostic {
	const char *file;     /* or NULL */
	int line;             /* 0 when unknown */
	const char *message;
	bool detail;          /* one item of a warning given once in aggregate: kept in
	                       * the snapshot, printed only with --verbose */
} cgm_diagnostic;

/* Where the model came from. */
typedef struct cgm_source_info {
	const char *kind;     /* "database" or "sql" */
	const char *name;     /* database name or the SQL paths */
	const char *server_version;
	long server_version_num; /* a live database's (its branches for other
	                          * versions, verbranch.h); 0: not read */
	const char *mapped_at;/* ISO 8601 UTC, only with --stamp (outputs are deterministic) */
	int npath;
	const char **default_search_path;
	bool search_path_given; /* --search-path or the configuration's: the
	                         * application's path, over the owners' */
} cgm_source_info;

/* The snapshot file a model was read from with its bodies left in it
 * (CGM_SNAPSHOT_READ_SOURCES_LATER): what it was before it was read, so
 * that reading the bodies again knows it is still the same file. */
typedef struct cgm_snapshot_file {
	bool known;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
} cgm_snapshot_file;

typedef struct cgm_model {
	cgm_arena *arena;
	cgm_source_info source;
	cgm_snapshot_file snapshot_file;

	int nfunctions, cap_functions;
	cgm_function *functions;   /* user functions sorted by id, builtins after */
	int nuser;                 /* functions[0..nuser) are the mapped ones */

	int nedges, cap_edges;
	cgm_edge *edges;

	int ntriggers, cap_triggers;
	cgm_trigger *triggers;

	int nreferences, cap_references;
	cgm_reference *references;

	int neffects, cap_effects;
	cgm_effect *effects;       /* what relations run (cgmap/relfx.h) */
	int nevent_triggers, cap_event_triggers;
	cgm_event_trigger *event_triggers;

	int nrelations, cap_relations;
	cgm_relation *relations;

	int noperators, cap_operators;
	cgm_operator *operators;
	int ncasts, cap_casts;
	cgm_cast *casts;
	int ndomain_checks, cap_domain_checks;
	cgm_domain_check *domain_checks; /* the domains' CHECKs that call functions */
	int ndomain_defaults, cap_domain_defaults;
	cgm_domain_default *domain_defaults; /* the domains' DEFAULTs that call functions */
	int nrls_bypass_roles;
	const char **rls_bypass_roles; /* the roles no policy applies to: superusers and
	                                * BYPASSRLS roles (pg_roles; CREATE ROLE in files) */
	int naggregates, cap_aggregates;
	cgm_aggregate *aggregates;

	/* What a one-argument call that names no function may be instead:
	 * a function-style cast to a type (`mytype(x)`), or attribute notation
	 * on a row (`id(r)` is `r.id`).  Used only for such calls. */
	int ntypes, cap_types;
	cgm_relation *types;       /* user-defined types, schema and name */
	int ntype_infos, cap_type_infos;
	cgm_type_info *type_infos; /* kinds and domains' base types, where known */
	int ncolumns, cap_columns;
	const char **columns;      /* distinct column names of relations and composite types */

	int ndiagnostics, cap_diagnostics;
	cgm_diagnostic *diagnostics;

	int *lookup;               /* open-addressing id -> index, by cgm_model_index */
	int lookup_size;

	/* cgm_output_edge_order's result, when the caller of several writers
	 * running at once on this model made it for them to share (cmd_map:
	 * the snapshot and the DOT graph; 8 MB at 100,000 functions), else
	 * NULL.  The caller's (malloc'd): not freed with the model; valid
	 * while the edges do not change. */
	const int *edge_order;

	bool has_runtime;          /* any runtime data merged */
	bool has_site_runs;        /* a source counted the runs of dynamic statements
	                            * (cgmap_trace 1.4): a dynamic site's runs of 0 means
	                            * it never ran, not that nobody counted */
	const char *runtime_window;/* description of the observation window */
	cgm_evidence evidence;     /* what the runtime data can show (has_runtime) */

	/* Recorded in the snapshot ("options", "runtime.sources"): what shaped
	 * the graph, set by the mapping command and by merge. */
	bool include_builtins;     /* edges to pg_catalog functions were kept */
	bool include_extensions;   /* functions of extensions were mapped */
	int nextensions;           /* the extensions installed in the database mapped */
	const char **extensions;   /* (live: pg_extension; files: those CREATE EXTENSION
	                            * made and nothing dropped), sorted, for the calls
	                            * that run only when one is (cgm_site_rare
	                            * .requires_extension); NULL when the source did not
	                            * say (a snapshot read back) */
	bool replica_session;      /* --replication-role replica: the map is of a session
	                            * with session_replication_role = replica (the
	                            * sources kept the REPLICA and ALWAYS triggers, rules
	                            * and event triggers firing; relfx runs no foreign
	                            * key action, whose internal triggers are origin's) */
	int nruntime_sources;
	const char **runtime_sources; /* one line per runtime source merged, e.g.
	                               * "database demo@host:5432" or "file run.json" */

	/* cgmap_trace 1.3 (snapshot "runtime.paths", "shapes", "timeline"):
	 * in model->arena, each sorted and one row per identity. */
	int npaths;
	cgm_call_path *paths;      /* by frames, then lines */
	int nshapes;
	cgm_call_shape *shapes;    /* by entry, then edges */
	int nbuckets;
	cgm_time_bucket *buckets;  /* by function, then start */
} cgm_model;

/* Whether the extension `name` is installed in the database mapped: 1, 0,
 * or -1 when the source did not say. */
int cgm_model_has_extension(const cgm_model *model, const char *name);

cgm_model *cgm_model_new(void);
void cgm_model_free(cgm_model *model);

/* Append and return a zeroed slot; pointers into the arrays move on append. */
cgm_function *cgm_model_add_function(cgm_model *model);
/* Once a source has added every function: the array keeps no room beyond
 * them (grown by doubling, it has up to twice their size; at 100,000
 * functions 8 MB).  The functions may move. */
void cgm_model_trim_functions(cgm_model *model);
/* Room for `count` edges in all, in one allocation, before adding many. */
void cgm_model_reserve_edges(cgm_model *model, int count);
cgm_edge *cgm_model_add_edge(cgm_model *model);
cgm_trigger *cgm_model_add_trigger(cgm_model *model);
cgm_reference *cgm_model_add_reference(cgm_model *model);
cgm_effect *cgm_model_add_effect(cgm_model *model);
cgm_event_trigger *cgm_model_add_event_trigger(cgm_model *model);
cgm_relation *cgm_model_add_relation(cgm_model *model);
cgm_operator *cgm_model_add_operator(cgm_model *model);
cgm_cast *cgm_model_add_cast(cgm_model *model);
cgm_domain_check *cgm_model_add_domain_check(cgm_model *model);
cgm_domain_default *cgm_model_add_domain_default(cgm_model *model);
cgm_aggregate *cgm_model_add_aggregate(cgm_model *model);
cgm_relation *cgm_model_add_type(cgm_model *model);
cgm_type_info *cgm_model_add_type_info(cgm_model *model);
void cgm_model_add_column(cgm_model *model, const char *name);
cgm_diagnostic *cgm_model_add_diagnostic(cgm_model *model);

/* Set trigger, reference, effect, event trigger, operator, cast and aggregate function indexes
 * from their ids (after cgm_model_index). */
void cgm_model_link(cgm_model *model);

/* Index of the function with that id, or -1.  Needs cgm_model_index(). */
int cgm_model_find(const cgm_model *model, const char *id);
/* Whether a call of n arguments fits f's parameters by their count alone
 * (defaults, VARIADIC): the first test of a candidate. */
bool cgm_function_takes(const cgm_function *f, int n);
/* Sort user functions by id (builtins after), remap every index, and build
 * the id lookup.  Call once the function list is complete. */
void cgm_model_index(cgm_model *model);

/* Order of two edges between the same pair of functions: via name, then
 * object (none first).  Every edge order uses it after from and to. */
int cgm_edge_compare_kind(const cgm_edge *x, const cgm_edge *y);
/* The mechanism of target t of a site (target_via, else by the site's kind)
 * and its object (NULL when none). */
cgm_via cgm_site_target_via(const cgm_site *site, int t);
const char *cgm_site_target_object(const cgm_site *site, int t);

/* Edge indexes in the order every output lists edges: from id, to id, via
 * name, object, then model order (malloc'd, nedges entries; caller frees). */
int *cgm_model_edge_order(const cgm_model *model);
/* Per function index, the rank of its id in byte order (equal ids share
 * the rank of the first): rank must hold model->nfunctions ints; a missing
 * id ranks as "".  The functions are usually sorted already (the model
 * keeps them by id), which is checked before sorting. */
void cgm_model_id_ranks(int *rank, const cgm_model *model);
/* Lines in a function body ("" and NULL: 0; a final newline adds none). */
int cgm_count_lines(const char *s);

const char *cgm_kind_name(cgm_kind kind);
int cgm_kind_parse(cgm_kind *out, const char *name);
const char *cgm_site_kind_name(cgm_site_kind kind);
int cgm_site_kind_parse(cgm_site_kind *out, const char *name);
const char *cgm_resolution_name(cgm_resolution res);
int cgm_resolution_parse(cgm_resolution *out, const char *name);
const char *cgm_via_name(cgm_via via);
int cgm_via_parse(cgm_via *out, const char *name);
/* An edge's object as a person reads it after the mechanism's name: the
 * object names its own kind ("check app.t.positive", "cast (text AS
 * app.money)"), so that word is left out when it is the mechanism's
 * ("check" then "app.t.positive", not "check check app.t.positive"). */
const char *cgm_via_object_tail(cgm_via via, const char *object);
/* Whether the functions a call PostgreSQL refuses as not unique
 * (CGM_RES_NOT_UNIQUE) ties take its arguments as the same types (the tie
 * FuncnameGetCandidates finds), rather than fit its argument types equally
 * well (func_select_candidate's). */
bool cgm_site_tie_same_types(const cgm_model *m, const cgm_site *s);

/* An operator site as PostgreSQL names it in "operator is not unique:
 * unknown ### unknown": its operand types ("?" when not known) around the
 * symbol, schema-qualified as written; into `buf` (truncated to `len`). */
const char *cgm_site_operator_text(char *buf, size_t len, const cgm_site *s);
/* The name of each CGM_EV_* bit, by bit number (snapshots, reports). */
#define CGM_NEVENTS 12
extern const char *const cgm_event_names[CGM_NEVENTS];
/* "INSERT|UPDATE" style text of CGM_EV_* bits, into buf. */
const char *cgm_events_text(char *buf, size_t len, unsigned events);

#ifdef __cplusplus
}
#endif

#endif
